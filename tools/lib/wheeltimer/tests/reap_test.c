// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * reap_test.c - records the caller read itself, handed to
 * wheeltimer_reap_buffer()
 */
#include "lib_test.h"

/*
 * Records the caller read itself (as io_uring does) handed to the library:
 * the kernel engine only. Those that do not fit wait in the library;
 * cancels made after the read drop them, or let them through, as they
 * would have withdrawn them or come too late.
 */
static void test_reap_buffer(void)
{
	struct wheeltimer_event ev[16];
	struct wheeltimer_info info;
	struct wt_event raw[16];
	uint64_t h[6], hr, hd, seen = 0;
	struct wheeltimer *wt;
	int i, n, m;
	ssize_t len;

	CHECK_EQ(open_virtual(&wt), 0);
	if (engine == WHEELTIMER_ENGINE_PROCESS) {
		/* Its descriptor is an epoll set: nothing to read records from. */
		CHECK_EQ(wheeltimer_reap_buffer(wt, NULL, 0, ev, 16),
			 -WHEELTIMER_EFEATURE);
		wheeltimer_close(wt);
		return;
	}
	CHECK_EQ(wheeltimer_reap_buffer(wt, raw, sizeof(raw[0]) - 1, ev, 16),
		 -EINVAL);
	CHECK_EQ(wheeltimer_reap_buffer(wt, NULL, sizeof(raw[0]), ev, 16),
		 -EINVAL);
	CHECK_EQ(wheeltimer_reap_buffer(wt, NULL, 0, ev, 16), 0);

	for (i = 0; i < 6; i++)
		CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 100 + i, &h[i]), 0);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, MS, 0, WHEELTIMER_FIXED_RATE,
					 200, &hr), 0);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, 5 * MS, 0,
					 WHEELTIMER_FIXED_DELAY, 300, &hd), 0);
	CHECK_EQ(advance_to(wt, 3 * MS), 8);
	len = read(wheeltimer_fd(wt), raw, sizeof(raw));
	CHECK_EQ(len, 8 * sizeof(raw[0]));

	/*
	 * After the read: h[5] is cancelled, its record is dropped as a
	 * withdrawn one; h[4] is cancelled with NOTIFY, too late: it fired,
	 * and its record is its last, with no EV_CANCEL after it.
	 */
	CHECK_EQ(wheeltimer_cancel(wt, h[5], 0), 0);
	CHECK_EQ(wheeltimer_cancel(wt, h[4], WHEELTIMER_NOTIFY), 0);
	n = wheeltimer_reap_buffer(wt, raw, len, ev, 3);
	CHECK_EQ(n, 3);
	CHECK(stat_of(wt, "lib_backlog") >= 4);
	m = wheeltimer_reap_buffer(wt, NULL, 0, ev + n, 16 - n);
	CHECK_EQ(m, 4);
	CHECK_EQ(wheeltimer_reap_buffer(wt, NULL, 0, ev, 16), 0);
	CHECK_EQ(stat_of(wt, "lib_backlog"), 0);
	CHECK_EQ(stat_of(wt, "lib_dropped"), 1);
	for (i = 0; i < n + m; i++) {
		CHECK(!(ev[i].flags & (WHEELTIMER_EV_ADD | WHEELTIMER_EV_MODIFY |
				       WHEELTIMER_EV_CANCEL)));
		CHECK_EQ(ev[i].deadline, MS);
		CHECK_EQ(ev[i].fired_at, MS);
		if (ev[i].cookie >= 100 && ev[i].cookie < 105) {
			CHECK_EQ(ev[i].handle, h[ev[i].cookie - 100]);
			CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FINAL);
			CHECK_EQ(wheeltimer_error(wt, ev[i].handle), -ENOENT);
		} else if (ev[i].cookie == 200) {
			CHECK_EQ(ev[i].handle, hr);
			CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FIXED_RATE);
			CHECK_EQ(ev[i].overruns, 2);
		} else {
			CHECK_EQ(ev[i].cookie, 300);
			CHECK_EQ(ev[i].handle, hd);
			CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FIXED_DELAY);
		}
		CHECK(!(seen & 1ULL << (ev[i].cookie % 64)));
		seen |= 1ULL << (ev[i].cookie % 64);
	}

	/* The kernel moved the periodic ones on at the read. */
	CHECK_EQ(wheeltimer_query(wt, hr, &info), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_PENDING);
	CHECK_EQ(info.deadline, 4 * MS);
	CHECK_EQ(wheeltimer_query(wt, hd, &info), 0);
	CHECK_EQ(info.deadline, 8 * MS);

	/* What one call kept, wheeltimer_reap() hands out first. */
	CHECK_EQ(advance_to(wt, 10 * MS), 2);
	len = read(wheeltimer_fd(wt), raw, sizeof(raw));
	CHECK_EQ(len, 2 * sizeof(raw[0]));
	CHECK_EQ(wheeltimer_reap_buffer(wt, raw, len, ev, 1), 1);
	CHECK_EQ(wheeltimer_reap(wt, ev + 1, 16), 1);
	CHECK_EQ(ev[0].cookie + ev[1].cookie, 500);
	CHECK_EQ(stat_of(wt, "lib_buffered"), 10);

	/* It submits, and hands out the library's records: a failed add. */
	CHECK_EQ(wheeltimer_add(wt, TMAX, 0, WHEELTIMER_ABSTIME, 7, &h[0]), 0);
	CHECK_EQ(wheeltimer_reap_buffer(wt, NULL, 0, ev, 16), 1);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_ADD | WHEELTIMER_EV_FINAL);
	CHECK_EQ(ev[0].res, -ERANGE);
	CHECK_EQ(ev[0].cookie, 7);
	wheeltimer_close(wt);
}

const struct tap_test reap_tests[] = {
	{ "reap_buffer", test_reap_buffer },
	{ NULL, NULL },
};
