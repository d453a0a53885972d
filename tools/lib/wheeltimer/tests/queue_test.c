// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * queue_test.c - prepare and submit: the queue and what it folds, handles,
 * NOTIFY and withdrawn records, a full context, errors, the
 * request-timeout pattern, a full queue, a failed batch call, and queries
 */
#include "lib_test.h"

/* Cancels and modifies of queued adds cost no system call. */
static void test_before_submit(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h[1000];
	int i;

	CHECK_EQ(open_virtual(&wt), 0);
	for (i = 0; i < 1000; i++)
		CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, i, &h[i]), 0);
	CHECK_EQ(wheeltimer_queued(wt), 1000);
	for (i = 0; i < 999; i++)
		CHECK_EQ(wheeltimer_cancel(wt, h[i], 0), 0);
	CHECK_EQ(wheeltimer_queued(wt), 1);
	/* Moved in the queue, from 1 ms to 7 ms. */
	CHECK_EQ(wheeltimer_modify(wt, h[999], 7 * MS, 0, 0), 0);
	CHECK_EQ(wheeltimer_modify(wt, h[999], 7 * MS, 0, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 0);
	CHECK_EQ(stat_of(wt, "lib_queue_resolved"), 1001);
	CHECK_EQ(stat_of(wt, "added"), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	CHECK_EQ(wheeltimer_submit(wt), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 1);
	CHECK_EQ(stat_of(wt, "added"), 1);
	CHECK_EQ(advance_to(wt, 6 * MS), 0);
	CHECK_EQ(advance_to(wt, 7 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].cookie, 999);
	CHECK_EQ(ev[0].deadline, 7 * MS);
	for (i = 0; i < 1000; i++)
		CHECK_EQ(wheeltimer_error(wt, h[i]), -ENOENT);
	wheeltimer_close(wt);
}

static void test_after_submit(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t a, b, c;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, 0, 1, &a), 0);
	CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, 0, 2, &b), 0);
	CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, 0, 3, &c), 0);
	CHECK_EQ(wheeltimer_submit(wt), 3);
	/* a moves to 9 ms (absolute), b is cancelled, c modified then cancelled. */
	CHECK_EQ(wheeltimer_modify(wt, a, 9 * MS, 0, WHEELTIMER_ABSTIME), 0);
	CHECK_EQ(wheeltimer_cancel(wt, b, 0), 0);
	CHECK_EQ(wheeltimer_modify(wt, c, 1 * MS, 0, 0), 0);
	CHECK_EQ(wheeltimer_cancel(wt, c, 0), 0);
	/* b's cancel came after a's queued modify: it is queued too. */
	CHECK_EQ(wheeltimer_queued(wt), 3);
	CHECK_EQ(stat_of(wt, "lib_queue_resolved"), 1);
	CHECK_EQ(advance_to(wt, 8 * MS), 0);
	CHECK_EQ(stat_of(wt, "cancelled"), 2);
	CHECK_EQ(stat_of(wt, "modified"), 1);
	CHECK_EQ(advance_to(wt, 9 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].handle, a);
	CHECK_EQ(ev[0].deadline, 9 * MS);
	CHECK_EQ(ev[0].fired_at, 9 * MS);
	CHECK_EQ(advance_to(wt, 100 * MS), 0);
	CHECK_EQ(wheeltimer_cancel(wt, b, 0), -ENOENT);
	CHECK_EQ(wheeltimer_modify(wt, c, MS, 0, 0), -ENOENT);
	wheeltimer_close(wt);
}

/* A fired, unreaped record is withdrawn by a cancel or a modify. */
static void test_withdraw(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t a, b, c;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &a), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 2, &b), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 3, &c), 0);
	CHECK_EQ(advance_to(wt, 2 * MS), 3);
	CHECK_EQ(stat_of(wt, "ready"), 3);

	CHECK_EQ(wheeltimer_cancel(wt, a, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_modify(wt, b, 5 * MS, 0, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_cancel(wt, c, 0), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 2);
	CHECK_EQ(ev[0].handle, a);
	CHECK_EQ(ev[0].cookie, 1);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_WITHDRAWN |
			      WHEELTIMER_EV_FINAL);
	CHECK_EQ(ev[0].res, 0);
	CHECK_EQ(ev[1].handle, b);
	CHECK_EQ(ev[1].flags, WHEELTIMER_EV_MODIFY | WHEELTIMER_EV_WITHDRAWN);
	CHECK_EQ(stat_of(wt, "withdrawn"), 3);
	CHECK_EQ(stat_of(wt, "delivered"), 0);
	CHECK_EQ(wheeltimer_cancel(wt, a, 0), -ENOENT);

	/* b fires again, 5 ms after the modify's submit at 2 ms. */
	CHECK_EQ(advance_to(wt, 7 * MS - 1), 0);
	CHECK_EQ(advance_to(wt, 7 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].handle, b);
	CHECK_EQ(ev[0].deadline, 7 * MS);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_FINAL);

	/* A pending one with NOTIFY: cancelled, nothing withdrawn. */
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 4, &a), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	CHECK_EQ(wheeltimer_cancel(wt, a, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_cancel(wt, a, 0), -ENOENT);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_FINAL);
	/* A queued one with NOTIFY: the engine never saw it. */
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 5, &a), 0);
	CHECK_EQ(wheeltimer_modify(wt, a, 2 * MS, 0, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_cancel(wt, a, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 2);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_MODIFY | WHEELTIMER_EV_UNSUBMITTED);
	CHECK_EQ(ev[1].flags, WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_UNSUBMITTED |
			      WHEELTIMER_EV_FINAL);
	CHECK_EQ(ev[1].cookie, 5);
	CHECK_EQ(stat_of(wt, "added"), 4);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

static void test_stale_handles(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer_info info;
	struct wheeltimer *wt;
	uint64_t a, b;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &a), 0);
	CHECK(a != WHEELTIMER_HANDLE_NONE);
	CHECK_EQ(advance_to(wt, MS), 1);
	CHECK_EQ(wheeltimer_error(wt, a), 0);
	CHECK_EQ(wheeltimer_query(wt, a, &info), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_FIRED);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	/* Reaped final: stale for everything. */
	CHECK_EQ(wheeltimer_cancel(wt, a, 0), -ENOENT);
	CHECK_EQ(wheeltimer_modify(wt, a, MS, 0, 0), -ENOENT);
	CHECK_EQ(wheeltimer_query(wt, a, &info), -ENOENT);
	CHECK_EQ(wheeltimer_error(wt, a), -ENOENT);
	/* Its index is reused under a new generation; the old handle stays stale. */
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 2, &b), 0);
	CHECK_EQ((uint32_t)b, (uint32_t)a);
	CHECK(b != a);
	CHECK_EQ(wheeltimer_cancel(wt, a, 0), -ENOENT);
	CHECK_EQ(wheeltimer_cancel(wt, b, 0), 0);
	CHECK_EQ(wheeltimer_cancel(wt, b, 0), -ENOENT);
	/* Never handed out. */
	CHECK_EQ(wheeltimer_cancel(wt, WHEELTIMER_HANDLE_NONE, 0), -ENOENT);
	CHECK_EQ(wheeltimer_cancel(wt, 1ULL << 40 | 12345, 0), -ENOENT);
	CHECK_EQ(wheeltimer_modify(wt, UINT64_MAX, MS, 0, 0), -ENOENT);
	CHECK_EQ(wheeltimer_error(wt, 0x100000002ULL), -ENOENT);
	wheeltimer_close(wt);
}

/*
 * After a submit, the place a handle's operation had in the queue may hold
 * another handle's: a modify or cancel of the first is queued anew, never
 * folded into the other's.
 */
static void test_stale_position(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t a, b, c;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, 10 * MS, 0, 0, 1, &a), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	/* b's add takes the place a's had; a's modify goes after it. */
	CHECK_EQ(wheeltimer_add(wt, 20 * MS, 0, 0, 2, &b), 0);
	CHECK_EQ(wheeltimer_modify(wt, a, 30 * MS, 0, 0), 0);
	CHECK_EQ(wheeltimer_queued(wt), 2);
	CHECK_EQ(wheeltimer_submit(wt), 2);
	/* And c's add; a's cancel goes after it. */
	CHECK_EQ(wheeltimer_add(wt, 40 * MS, 0, 0, 3, &c), 0);
	CHECK_EQ(wheeltimer_cancel(wt, a, 0), 0);
	CHECK_EQ(wheeltimer_queued(wt), 2);
	CHECK_EQ(advance_to(wt, 50 * MS), 2);
	CHECK_EQ(reap_all(wt, ev, 4), 2);
	CHECK_EQ(ev[0].handle, b);
	CHECK_EQ(ev[0].deadline, 20 * MS);
	CHECK_EQ(ev[1].handle, c);
	CHECK_EQ(ev[1].deadline, 40 * MS);
	CHECK_EQ(stat_of(wt, "cancelled"), 1);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

/* Queue @n adds with cookies from @first and submit: all fail, full. */
static int add_failing(struct wheeltimer *wt, uint64_t first, int n)
{
	uint64_t h;
	int i;

	for (i = 0; i < n; i++)
		if (wheeltimer_add(wt, SEC, 0, 0, first + i, &h))
			return -1;
	return wheeltimer_submit(wt) == n ? 0 : -1;
}

/* Reap the EV_ADD records of cookies @from to @to, in order, one by one. */
static int reap_cookies(struct wheeltimer *wt, uint64_t from, uint64_t to)
{
	struct wheeltimer_event ev;

	for (; from < to; from++) {
		if (wheeltimer_reap(wt, &ev, 1) != 1 || ev.cookie != from ||
		    ev.res != -ENOSPC)
			return -1;
	}
	return 0;
}

static void test_enospc(void)
{
	struct wheeltimer_event ev[8];
	struct wheeltimer_info info;
	struct wheeltimer *wt;
	uint64_t h[7];
	int i;

	CHECK_EQ(open_ctx(&wt, engine, WHEELTIMER_PARAM_VIRTUAL,
			  CLOCK_MONOTONIC, 4, 0), 0);
	for (i = 0; i < 6; i++)
		CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, i, &h[i]), 0);
	/* Four fit; the rest fail at the submit and say so on their handles. */
	CHECK_EQ(wheeltimer_submit(wt), 6);
	CHECK_EQ(wheeltimer_error(wt, h[3]), 0);
	CHECK_EQ(wheeltimer_error(wt, h[4]), -ENOSPC);
	CHECK_EQ(wheeltimer_query(wt, h[5], &info), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_FAILED);
	CHECK_EQ(info.error, -ENOSPC);
	CHECK_EQ(info.cookie, 5);
	/* A cancel frees room for an add queued after it, in the same batch. */
	CHECK_EQ(wheeltimer_cancel(wt, h[0], 0), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 6, &h[6]), 0);
	CHECK_EQ(reap_all(wt, ev, 8), 2);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(ev[i].handle, h[4 + i]);
		CHECK_EQ(ev[i].cookie, 4 + i);
		CHECK_EQ(ev[i].flags, WHEELTIMER_EV_ADD | WHEELTIMER_EV_FINAL);
		CHECK_EQ(ev[i].res, -ENOSPC);
	}
	CHECK_EQ(wheeltimer_error(wt, h[4]), -ENOENT);
	CHECK_EQ(wheeltimer_error(wt, h[6]), 0);
	CHECK_EQ(advance_to(wt, MS), 4);
	CHECK_EQ(reap_all(wt, ev, 8), 4);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);

	/* A failed add cancelled before its record is reaped: no record. */
	for (i = 0; i < 5; i++)
		CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, 0, i, &h[i]), 0);
	CHECK_EQ(wheeltimer_submit(wt), 5);
	CHECK_EQ(wheeltimer_error(wt, h[4]), -ENOSPC);
	CHECK_EQ(wheeltimer_cancel(wt, h[4], 0), 0);
	CHECK_EQ(reap_all(wt, ev, 8), 0);

	/*
	 * Records the library makes wrap around its ring, which then grows.
	 * Four are live: every add fails.
	 */
	CHECK_EQ(add_failing(wt, 0, 40), 0);
	CHECK_EQ(reap_cookies(wt, 0, 36), 0);
	CHECK_EQ(add_failing(wt, 100, 40), 0);
	CHECK_EQ(add_failing(wt, 200, 40), 0);
	CHECK_EQ(reap_cookies(wt, 36, 40), 0);
	CHECK_EQ(reap_cookies(wt, 100, 140), 0);
	CHECK_EQ(reap_cookies(wt, 200, 240), 0);
	wheeltimer_close(wt);
}

static void test_errors(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h, now;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, WHEELTIMER_FIXED_RATE, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0x80, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add(wt, TMAX + 1, 0, 0, 0, &h), -ERANGE);
	CHECK_EQ(wheeltimer_add(wt, MS, TMAX + 1, 0, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, 0, 0, WHEELTIMER_FIXED_RATE,
					 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, TMAX + 1, 0,
					 WHEELTIMER_FIXED_RATE, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, MS, 0, 0, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, MS, 0, WHEELTIMER_FIXED_RATE |
					 WHEELTIMER_FIXED_DELAY, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_queued(wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 0, &h), 0);
	CHECK_EQ(wheeltimer_modify(wt, h, MS, 0, WHEELTIMER_FIXED_RATE), -EINVAL);
	CHECK_EQ(wheeltimer_modify(wt, h, TMAX + 1, 0, 0), -ERANGE);
	CHECK_EQ(wheeltimer_cancel(wt, h, WHEELTIMER_ABSTIME), -EINVAL);
	CHECK_EQ(wheeltimer_advance(wt, 0, 0x2, NULL, NULL), -EINVAL);
	/* A monotonic clock, even virtual, is not set back. */
	CHECK_EQ(advance_to(wt, 10 * MS), 1);
	CHECK_EQ(advance_to(wt, 5 * MS), -EINVAL);
	CHECK_EQ(wheeltimer_advance(wt, TMAX, 0, NULL, NULL), -ERANGE);
	CHECK_EQ(reap_all(wt, ev, 4), 1);

	/* A relative deadline that passes KTIME_MAX only at submit. */
	CHECK_EQ(advance_to(wt, TMAX - 5), 0);
	CHECK_EQ(wheeltimer_now(wt, &now), 0);
	CHECK_EQ(now, TMAX - 5);
	CHECK_EQ(wheeltimer_add(wt, 100, 0, 0, 77, &h), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_ADD | WHEELTIMER_EV_FINAL);
	CHECK_EQ(ev[0].res, -ERANGE);
	CHECK_EQ(ev[0].cookie, 77);
	wheeltimer_close(wt);

	/*
	 * The last deadline is KTIME_MAX rounded down to the resolution: one
	 * in the partial tick above it could never be reached.
	 */
	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, TMAX / MS * MS, 0, WHEELTIMER_ABSTIME, 1,
				&h), 0);
	CHECK_EQ(wheeltimer_add(wt, TMAX / MS * MS + 1, 0, WHEELTIMER_ABSTIME,
				2, &h), 0);
	CHECK_EQ(wheeltimer_add(wt, TMAX / MS * MS - MS, 3 * MS,
				WHEELTIMER_ABSTIME, 3, &h), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].cookie, 2);
	CHECK_EQ(ev[0].res, -ERANGE);
	/* Slack stops at the last tick. */
	CHECK_EQ(advance_to(wt, TMAX / MS * MS - 1), 0);
	CHECK_EQ(advance_to(wt, TMAX), 2);
	CHECK_EQ(reap_all(wt, ev, 4), 2);
	CHECK_EQ(ev[0].fired_at, TMAX / MS * MS);
	CHECK_EQ(ev[1].fired_at, TMAX / MS * MS);
	wheeltimer_close(wt);

	/* Not virtual: no advance. */
	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_advance(wt, MS, 0, NULL, NULL), -EINVAL);
	wheeltimer_close(wt);
	CHECK(!strcmp(wheeltimer_strerror(-ENOSPC), strerror(ENOSPC)));
	CHECK(!strcmp(wheeltimer_strerror(ENOENT), strerror(ENOENT)));
	CHECK(strstr(wheeltimer_strerror(-WHEELTIMER_EENGINE), "engine"));
	CHECK(!wheeltimer_feature_name(3));
}

/* The request-timeout pattern at n_request handles. */
static void test_request_timeouts(void)
{
	unsigned long n = n_request, i, fired = 0, resolved = 0, cancels = 0;
	struct wheeltimer_event *evs;
	struct wheeltimer_stats st;
	struct wheeltimer *wt;
	unsigned char *seen;
	uint64_t *h, extra;
	int r, k;

	CHECK_EQ(open_virtual(&wt), 0);
	h = malloc(n * sizeof(*h));
	seen = calloc(n, 1);
	evs = malloc(4096 * sizeof(*evs));
	CHECK(h && seen && evs);
	for (i = 0; i < n; i++) {
		r = wheeltimer_add(wt, SEC + (i % 1000) * MS + i % 7, 0, 0, i,
				   &h[i]);
		CHECK_EQ(r, 0);
		/* Every tenth request is answered before the loop submits. */
		if (i % 10 == 5) {
			CHECK_EQ(wheeltimer_add(wt, SEC, 0, 0, n + i, &extra), 0);
			CHECK_EQ(wheeltimer_cancel(wt, extra, 0), 0);
			resolved++;
		}
	}
	CHECK_EQ(wheeltimer_submit(wt) >= 0, 1);
	CHECK_EQ(stat_of(wt, "live"), n);
	/* Nine in ten are answered in time. */
	for (i = 0; i < n; i++) {
		if (i % 10) {
			CHECK_EQ(wheeltimer_cancel(wt, h[i], 0), 0);
			cancels++;
		}
	}
	CHECK_EQ(advance_to(wt, 3 * SEC), n - cancels);
	while ((r = wheeltimer_reap(wt, evs, 4096)) > 0) {
		for (k = 0; k < r; k++) {
			i = evs[k].cookie;
			CHECK(i < n && i % 10 == 0 && !seen[i]);
			seen[i] = 1;
			CHECK_EQ(evs[k].handle, h[i]);
			CHECK_EQ(evs[k].deadline, SEC + (i % 1000) * MS + i % 7);
			CHECK_EQ(evs[k].fired_at, tick_of(evs[k].deadline));
			CHECK_EQ(evs[k].flags, WHEELTIMER_EV_FINAL);
			fired++;
		}
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(fired, n - cancels);
	CHECK_EQ(wheeltimer_stats(wt, &st), 0);
	CHECK_EQ(st.added, n);
	CHECK_EQ(st.cancelled, cancels);
	CHECK_EQ(st.fired, n - cancels);
	CHECK_EQ(st.delivered, n - cancels);
	CHECK_EQ(st.live, 0);
	CHECK_EQ(st.queue_resolved, resolved);
	/* Full batches only: one call per 1024 adds, then per 1024 cancels. */
	CHECK_EQ(st.submits, (n + 1023) / 1024 + (cancels + 1023) / 1024);
	CHECK_EQ(st.submitted, n + cancels);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	CHECK_EQ(stat_of(wt, "lib_dropped"), 0);
	CHECK_EQ(stat_of(wt, "lib_warnings"), 0);
	printf("# %lu handles: %lu cancelled after submit, %lu in the queue, ",
	       n, cancels, resolved);
	printf("%lu fired; %llu batch calls\n", fired,
	       (unsigned long long)st.submits);
	free(h);
	free(seen);
	free(evs);
	wheeltimer_close(wt);
}

/* Auto-submit: a full queue goes out by itself, in one call. */
static void test_auto_submit(void)
{
	struct wheeltimer_info info;
	struct wheeltimer *wt;
	uint64_t h[100];
	int i;

	CHECK_EQ(open_ctx(&wt, engine, WHEELTIMER_PARAM_VIRTUAL,
			  CLOCK_MONOTONIC, 0, 16), 0);
	for (i = 0; i < 100; i++)
		CHECK_EQ(wheeltimer_add(wt, SEC, 0, 0, i, &h[i]), 0);
	CHECK_EQ(stat_of(wt, "lib_auto_submits"), 6);
	CHECK_EQ(stat_of(wt, "lib_submits"), 6);
	CHECK_EQ(wheeltimer_queued(wt), 4);
	CHECK_EQ(stat_of(wt, "added"), 96);
	/* Holes are squeezed out before a full queue is sent. */
	for (i = 96; i < 100; i++)
		CHECK_EQ(wheeltimer_cancel(wt, h[i], 0), 0);
	for (i = 0; i < 16; i++)
		CHECK_EQ(wheeltimer_modify(wt, h[i], 2 * SEC, 0, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 6);
	CHECK_EQ(wheeltimer_modify(wt, h[16], 2 * SEC, 0, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 7);
	CHECK_EQ(stat_of(wt, "modified"), 16);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	CHECK_EQ(stat_of(wt, "modified"), 17);

	/* Folding into an operation the squeeze moved finds it where it went. */
	for (i = 0; i < 4; i++)
		CHECK_EQ(wheeltimer_add(wt, SEC, 0, 0, i, &h[96 + i]), 0);
	for (i = 96; i < 100; i++)
		CHECK_EQ(wheeltimer_cancel(wt, h[i], 0), 0);
	for (i = 20; i < 32; i++)
		CHECK_EQ(wheeltimer_modify(wt, h[i], 3 * SEC, 0, 0), 0);
	CHECK_EQ(wheeltimer_modify(wt, h[32], 3 * SEC, 0, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 8);
	for (i = 20; i < 33; i++)
		CHECK_EQ(wheeltimer_modify(wt, h[i], 4 * SEC + i, 0,
					   WHEELTIMER_ABSTIME), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 8);
	CHECK_EQ(wheeltimer_submit(wt), 13);
	for (i = 20; i < 33; i++) {
		CHECK_EQ(wheeltimer_query(wt, h[i], &info), 0);
		CHECK_EQ(info.deadline, 4 * SEC + i);
	}
	wheeltimer_close(wt);
}

/* An engine whose batch call fails as a whole once, after @batch_ok calls. */
static const struct wtl_engine *real_engine;

static int batch_ok;

static int failing_batch(struct wheeltimer *wt, struct wt_op *ops,
			 unsigned int n)
{
	if (!batch_ok--)
		return -EIO;
	return real_engine->batch(wt, ops, n);
}

/* A batch call that fails keeps the rest of the queue, in order. */
static void test_submit_failure(void)
{
	struct wheeltimer_event ev[EVS];
	struct wtl_engine failing;
	struct wheeltimer *wt;
	uint64_t h[3000];
	int i, n;

	CHECK_EQ(open_ctx(&wt, engine, WHEELTIMER_PARAM_VIRTUAL,
			  CLOCK_MONOTONIC, 0, 4096), 0);
	real_engine = wt->engine;
	failing = *wt->engine;
	failing.batch = failing_batch;
	wt->engine = &failing;
	for (i = 0; i < 3000; i++)
		CHECK_EQ(wheeltimer_add(wt, (i + 1) * MS, 0, 0, i, &h[i]), 0);
	batch_ok = 1;
	CHECK_EQ(wheeltimer_submit(wt), -EIO);
	CHECK_EQ(wheeltimer_queued(wt), 3000 - 1024);
	CHECK_EQ(stat_of(wt, "added"), 1024);
	/* The ones still queued fold into their moved operations. */
	CHECK_EQ(wheeltimer_cancel(wt, h[2999], 0), 0);
	CHECK_EQ(wheeltimer_modify(wt, h[1024], 5000 * MS, 0,
				   WHEELTIMER_ABSTIME), 0);
	CHECK_EQ(wheeltimer_queued(wt), 3000 - 1024 - 1);
	CHECK_EQ(stat_of(wt, "added"), 1024);
	batch_ok = -1;
	CHECK_EQ(wheeltimer_submit(wt), 3000 - 1024 - 1);
	CHECK_EQ(stat_of(wt, "added"), 2999);
	CHECK_EQ(advance_to(wt, 2999 * MS), 2998);
	for (i = 0; i < 2998; i += n) {
		n = reap_all(wt, ev, EVS);
		CHECK(n > 0);
	}
	CHECK_EQ(advance_to(wt, 5000 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, EVS), 1);
	CHECK_EQ(ev[0].handle, h[1024]);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

static void test_query(void)
{
	struct wheeltimer_info info;
	struct wheeltimer *wt;
	uint64_t h, p;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, WHEELTIMER_ABSTIME, 11, &h), 0);
	CHECK_EQ(wheeltimer_add_periodic(wt, 3 * MS, 4 * MS, 0,
					 WHEELTIMER_FIXED_DELAY, 12, &p), 0);
	/* Queued: the query submits it first. */
	CHECK_EQ(wheeltimer_query(wt, h, &info), 0);
	CHECK_EQ(wheeltimer_queued(wt), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_PENDING);
	CHECK_EQ(info.deadline, 5 * MS);
	CHECK_EQ(info.remaining, 5 * MS);
	CHECK_EQ(info.cookie, 11);
	CHECK_EQ(info.period, 0);
	CHECK_EQ(info.flags, 0);
	CHECK_EQ(advance_to(wt, 2 * MS), 0);
	CHECK_EQ(wheeltimer_query(wt, h, &info), 0);
	CHECK_EQ(info.remaining, 3 * MS);
	CHECK_EQ(wheeltimer_query(wt, p, &info), 0);
	CHECK_EQ(info.period, 4 * MS);
	CHECK_EQ(info.flags, WHEELTIMER_FIXED_DELAY);
	CHECK_EQ(advance_to(wt, 5 * MS), 2);
	CHECK_EQ(wheeltimer_query(wt, h, &info), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_FIRED);
	CHECK_EQ(info.remaining, 0);
	wheeltimer_close(wt);
}

const struct tap_test queue_tests[] = {
	{ "cancel_modify_before_submit", test_before_submit },
	{ "cancel_modify_after_submit", test_after_submit },
	{ "withdraw_and_notify", test_withdraw },
	{ "stale_handles", test_stale_handles },
	{ "stale_queue_positions", test_stale_position },
	{ "enospc", test_enospc },
	{ "errors", test_errors },
	{ "request_timeouts", test_request_timeouts },
	{ "auto_submit", test_auto_submit },
	{ "submit_failure", test_submit_failure },
	{ "query", test_query },
	{ NULL, NULL },
};
