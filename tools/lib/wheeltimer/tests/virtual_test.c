// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * virtual_test.c - the virtual clock: exact ticks, what fires at the next
 * advance, slack, and periodic timeouts
 */
#include "lib_test.h"

/* One-shot deadlines on a virtual clock fire exactly at their tick. */
static void test_virtual_exact(void)
{
	static const uint64_t d[] = {
		0, 1, MS - 1, MS, MS + 1, 5 * MS + MS / 2, 100 * MS,
		3600 * SEC, 3600 * SEC + 1,
	};
	static const uint64_t stops[] = {
		0, MS - 1, MS, 2 * MS - 1, 2 * MS, 6 * MS, 99 * MS, 100 * MS,
		3600 * SEC - 1, 3600 * SEC, 3600 * SEC + MS,
	};
	const int nd = ARRAY_SIZE(d);
	struct wheeltimer_event evs[EVS];
	int seen[ARRAY_SIZE(d)] = { 0 };
	uint64_t h[ARRAY_SIZE(d)], last = 0, now;
	struct wheeltimer *wt;
	int i, s, n, fired, expect;

	CHECK_EQ(open_virtual(&wt), 0);
	for (i = 0; i < nd; i++)
		CHECK_EQ(wheeltimer_add(wt, d[i], 0, 0, 1000 + i, &h[i]), 0);
	for (s = 0; s < (int)ARRAY_SIZE(stops); s++) {
		fired = advance_to(wt, stops[s]);
		CHECK(fired >= 0);
		CHECK_EQ(wheeltimer_now(wt, &now), 0);
		CHECK_EQ(now, stops[s]);
		n = reap_all(wt, evs, EVS);
		CHECK_EQ(n, fired);
		for (i = 0; i < n; i++) {
			int k = evs[i].cookie - 1000;

			CHECK(k >= 0 && k < nd);
			CHECK_EQ(evs[i].handle, h[k]);
			CHECK_EQ(evs[i].deadline, d[k]);
			CHECK_EQ(evs[i].fired_at, tick_of(d[k]));
			CHECK_EQ(evs[i].flags, WHEELTIMER_EV_FINAL);
			CHECK_EQ(evs[i].res, 0);
			CHECK(evs[i].fired_at >= last);
			last = evs[i].fired_at;
			seen[k]++;
		}
		/* Everything due by now has fired, exactly once; nothing else. */
		for (i = 0; i < nd; i++) {
			expect = tick_of(d[i]) <= stops[s];
			CHECK_EQ(seen[i], expect);
		}
	}
	for (i = 0; i < nd; i++)
		CHECK_EQ(wheeltimer_cancel(wt, h[i], 0), -ENOENT);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	CHECK_EQ(stat_of(wt, "lib_warnings"), 0);
	wheeltimer_close(wt);
}

/*
 * A virtual clock fires only during an advance: a timeout added with its
 * tick reached already (at or before the clock, which stands on a tick)
 * fires at the next advance, one by 0 included, at the clock's time; not
 * at the submit, a reap or a wait. One whose tick is still ahead (the
 * clock between ticks, the deadline before it) waits for that tick.
 */
static void test_virtual_due_next_advance(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h, now, expired;
	int i;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(advance_to(wt, 5 * MS), 0);
	CHECK_EQ(wheeltimer_add(wt, 3 * MS, 0, WHEELTIMER_ABSTIME, 3, &h), 0);
	CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, WHEELTIMER_ABSTIME, 5, &h), 0);
	CHECK_EQ(wheeltimer_add(wt, 0, 0, 0, 0, &h), 0);
	CHECK_EQ(wheeltimer_submit(wt), 3);
	CHECK_EQ(wheeltimer_reap(wt, ev, 4), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 20 * MS), 0);
	CHECK_EQ(wheeltimer_advance(wt, 0, 0, &now, &expired), 0);
	CHECK_EQ(now, 5 * MS);
	CHECK_EQ(expired, 3);
	CHECK_EQ(reap_all(wt, ev, 4), 3);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(ev[i].deadline, ev[i].cookie ? ev[i].cookie * MS :
							5 * MS);
		CHECK_EQ(ev[i].fired_at, 5 * MS);
		CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FINAL);
	}

	CHECK_EQ(advance_to(wt, 7 * MS + 500 * US), 0);
	CHECK_EQ(wheeltimer_add(wt, 7 * MS + 200 * US, 0, WHEELTIMER_ABSTIME,
				7, &h), 0);
	CHECK_EQ(wheeltimer_advance(wt, 0, 0, NULL, &expired), 0);
	CHECK_EQ(expired, 0);
	CHECK_EQ(reap_all(wt, ev, 4), 0);
	CHECK_EQ(advance_to(wt, 8 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 7 * MS + 200 * US);
	CHECK_EQ(ev[0].fired_at, 8 * MS);
	wheeltimer_close(wt);
}

/* Slack fires at the tick with most trailing zeros in the window. */
static void test_slack(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h;

	CHECK_EQ(open_virtual(&wt), 0);
	/* Ticks 3 to 3 + 13 = 16: 16 (0b10000) has the most trailing zeros. */
	CHECK_EQ(wheeltimer_add(wt, 3 * MS, 13 * MS, 0, 7, &h), 0);
	CHECK_EQ(advance_to(wt, 15 * MS), 0);
	CHECK_EQ(advance_to(wt, 16 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 3 * MS);
	CHECK_EQ(ev[0].fired_at, 16 * MS);
	/* Ticks 17 to 17 + 2 = 19: 18 (0b10010). */
	CHECK_EQ(wheeltimer_add(wt, MS, 2 * MS, 0, 8, &h), 0);
	CHECK_EQ(advance_to(wt, 17 * MS), 0);
	CHECK_EQ(advance_to(wt, 18 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].fired_at, 18 * MS);
	wheeltimer_close(wt);
}

static void test_fixed_rate(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer_info info;
	struct wheeltimer *wt;
	uint64_t h;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add_periodic(wt, 10 * MS, 10 * MS, 0,
					 WHEELTIMER_FIXED_RATE, 42, &h), 0);
	/* One record at a time: 10 ms fires, the rest pass unreaped. */
	CHECK_EQ(advance_to(wt, 55 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].handle, h);
	CHECK_EQ(ev[0].cookie, 42);
	CHECK_EQ(ev[0].deadline, 10 * MS);
	CHECK_EQ(ev[0].fired_at, 10 * MS);
	/* Reaped at 55 ms: 20, 30, 40, 50 passed. */
	CHECK_EQ(ev[0].overruns, 4);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_FIXED_RATE);
	/* It goes on at 60 ms, the first deadline after the reap. */
	CHECK_EQ(wheeltimer_query(wt, h, &info), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_PENDING);
	CHECK_EQ(info.deadline, 60 * MS);
	CHECK_EQ(info.period, 10 * MS);
	CHECK_EQ(info.flags, WHEELTIMER_FIXED_RATE);
	CHECK_EQ(advance_to(wt, 60 * MS - 1), 0);
	CHECK_EQ(advance_to(wt, 60 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 60 * MS);
	CHECK_EQ(ev[0].overruns, 0);
	CHECK_EQ(advance_to(wt, 100 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 70 * MS);
	CHECK_EQ(ev[0].overruns, 3);
	CHECK_EQ(wheeltimer_cancel(wt, h, 0), 0);
	CHECK_EQ(advance_to(wt, 200 * MS), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 0);
	CHECK_EQ(stat_of(wt, "overruns"), 7);
	wheeltimer_close(wt);
}

static void test_fixed_delay(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add_periodic(wt, 10 * MS, 10 * MS, 0,
					 WHEELTIMER_FIXED_DELAY, 9, &h), 0);
	CHECK_EQ(advance_to(wt, 25 * MS), 1);
	/* Reaped at 25 ms: the next period starts now, so 35 ms. */
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 10 * MS);
	CHECK_EQ(ev[0].overruns, 0);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_FIXED_DELAY);
	CHECK_EQ(advance_to(wt, 34 * MS), 0);
	CHECK_EQ(advance_to(wt, 35 * MS), 1);
	CHECK_EQ(advance_to(wt, 90 * MS), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 35 * MS);
	CHECK_EQ(ev[0].fired_at, 35 * MS);
	CHECK_EQ(advance_to(wt, 100 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 100 * MS);
	wheeltimer_close(wt);
}

const struct tap_test virtual_tests[] = {
	{ "virtual_exact_ticks", test_virtual_exact },
	{ "virtual_due_at_next_advance", test_virtual_due_next_advance },
	{ "slack", test_slack },
	{ "fixed_rate_overruns", test_fixed_rate },
	{ "fixed_delay_rearm_on_reap", test_fixed_delay },
	{ NULL, NULL },
};
