// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * realclock_test.c - a real clock: never early, set back, periodic, due
 * but not collected, and the descriptor and eventfd a program polls
 */
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "lib_test.h"

/* CLOCK_REALTIME set back: adds after the step never fire early. */
static void test_clock_back(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t a, b;

	CHECK_EQ(open_ctx(&wt, engine, WHEELTIMER_PARAM_VIRTUAL, CLOCK_REALTIME,
			  0, 0), 0);
	/* Something fires at 1000 ms, so the wheel's own clock gets there. */
	CHECK_EQ(wheeltimer_add(wt, 1000 * MS, 0, 0, 0, &a), 0);
	CHECK_EQ(advance_to(wt, 1000 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(rewinds_of(wt), 0);
	CHECK_EQ(wheeltimer_add(wt, 1500 * MS, 0, WHEELTIMER_ABSTIME, 1, &a), 0);
	CHECK_EQ(advance_to(wt, 100 * MS), 0);
	/* 50 ms from 100 ms: the wheel's clock is at 1000 ms. */
	CHECK_EQ(wheeltimer_add(wt, 50 * MS, 0, 0, 2, &b), 0);
	CHECK_EQ(advance_to(wt, 150 * MS - 1), 0);
	CHECK_EQ(advance_to(wt, 150 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].handle, b);
	CHECK_EQ(ev[0].deadline, 150 * MS);
	CHECK_EQ(ev[0].fired_at, 150 * MS);
	CHECK_EQ(rewinds_of(wt), 1);
	/* The absolute one keeps its wall-clock time. */
	CHECK_EQ(advance_to(wt, 1500 * MS - 1), 0);
	CHECK_EQ(advance_to(wt, 1500 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].handle, a);
	CHECK_EQ(ev[0].fired_at, 1500 * MS);
	wheeltimer_close(wt);
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static int set_wall_clock(uint64_t ns)
{
	struct timespec ts = { ns / SEC, ns % SEC };

	return clock_settime(CLOCK_REALTIME, &ts) ? -errno : 0;
}

/*
 * CLOCK_REALTIME steps back a second after the file's timer expired and
 * before anyone reaped, to after the last reading the file took: the
 * descriptor must not stay readable with nothing to reap (the in-process
 * engine's poller spun there, its timerfd never read again, until the
 * clock caught up). The kernel engine's poll collected the record at the
 * expiry already; the in-process engine, which collects at the reap, gets
 * it when the clock reaches the deadline again, here when the clock is
 * put back. Either way one record, never before its deadline. Steps the
 * machine's clock: only with -c (tests/run-vm, in the VM, as root).
 */
static void test_clock_back_after_expiry(void)
{
	struct epoll_event ee = { .events = EPOLLIN };
	struct wheeltimer_event ev[4];
	uint64_t h, deadline, wall, mono, end;
	unsigned int turns = 0;
	struct wheeltimer *wt;
	int ep, got = 0, r;

	if (!may_step_clock)
		tap_skip("steps CLOCK_REALTIME: -c, as root in a VM (tests/run-vm)");
	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_REALTIME, 0, 0), 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, wheeltimer_fd(wt), &ee), 0);
	deadline = clock_ns(CLOCK_REALTIME) + 2 * SEC;
	CHECK_EQ(wheeltimer_add(wt, deadline, 0, WHEELTIMER_ABSTIME, 7, &h), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	/* Its tick has passed, and the timer has expired: readable. */
	while (clock_ns(CLOCK_REALTIME) < deadline + 5 * MS)
		usleep(1000);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 30000), 1);
	wall = clock_ns(CLOCK_REALTIME);
	mono = mono_ns();
	CHECK_EQ(set_wall_clock(wall - SEC), 0);

	/* A poll-and-reap loop for 300 ms: at most one turn finds nothing. */
	end = mono_ns() + 300 * MS;
	while (mono_ns() < end && turns < 1000) {
		if (epoll_wait(ep, &ee, 1, 10) != 1)
			continue;
		r = wheeltimer_reap(wt, ev + got, 4 - got);
		if (r > 0)
			got += r;
		else
			turns++;
	}
	/* The clock back where it would be, before any check can fail. */
	r = set_wall_clock(wall + mono_ns() - mono);
	printf("# %u turns with nothing to reap in 300 ms after the step back\n",
	       turns);
	CHECK_EQ(r, 0);
	CHECK(turns <= 1);
	CHECK_EQ(got, engine == WHEELTIMER_ENGINE_PROCESS ? 0 : 1);
	if (!got)
		CHECK_EQ(wheeltimer_wait(wt, ev, 4, 30 * SEC), 1);
	CHECK_EQ(ev[0].handle, h);
	CHECK(ev[0].fired_at >= deadline);
	CHECK_EQ(wheeltimer_reap(wt, ev, 4), 0);
	close(ep);
	wheeltimer_close(wt);
}

/* Real clock: never early, exactly once, whatever the machine's speed. */
static void test_real_clock(void)
{
	enum { N = 200 };
	struct wheeltimer_event ev[64];
	int seen[N] = { 0 }, got = 0, i, r;
	uint64_t h[N], dl[N], now, start;
	struct wheeltimer *wt;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_now(wt, &now), 0);
	start = mono_ns();
	CHECK(now <= start && start - now < SEC);
	for (i = 0; i < N; i++) {
		dl[i] = now + (i * 997 % N) * 200 * US;
		CHECK_EQ(wheeltimer_add(wt, dl[i], 0, WHEELTIMER_ABSTIME, i,
					&h[i]), 0);
	}
	while (got < N) {
		r = wheeltimer_wait(wt, ev, 64, 30 * SEC);
		CHECK(r > 0);
		now = mono_ns();
		for (i = 0; i < r; i++) {
			int k = ev[i].cookie;

			CHECK(k >= 0 && k < N && !seen[k]);
			seen[k] = 1;
			CHECK_EQ(ev[i].deadline, dl[k]);
			CHECK(ev[i].fired_at >= dl[k]);
			CHECK(now >= dl[k]);
			CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FINAL);
		}
		got += r;
	}
	/* Nothing more comes. */
	CHECK_EQ(wheeltimer_wait(wt, ev, 64, 20 * MS), 0);
	CHECK(mono_ns() - now >= 20 * MS);
	CHECK_EQ(wheeltimer_wait(wt, ev, 64, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

static void test_periodic_real(void)
{
	struct wheeltimer_event ev[8];
	uint64_t h, start, next;
	struct wheeltimer *wt;
	int got = 0, r;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_now(wt, &start), 0);
	next = start + 5 * MS;
	CHECK_EQ(wheeltimer_add_periodic(wt, next, 5 * MS, 0,
					 WHEELTIMER_ABSTIME |
					 WHEELTIMER_FIXED_RATE, 3, &h), 0);
	while (got < 5) {
		r = wheeltimer_wait(wt, ev, 8, 30 * SEC);
		CHECK_EQ(r, 1);
		/* Each deadline is the last + (overruns + 1) periods. */
		CHECK_EQ(ev[0].deadline, next);
		CHECK(ev[0].fired_at >= ev[0].deadline);
		CHECK(mono_ns() >= ev[0].deadline);
		CHECK_EQ(ev[0].flags, WHEELTIMER_EV_FIXED_RATE);
		next += (ev[0].overruns + 1) * 5 * MS;
		got++;
	}
	CHECK_EQ(wheeltimer_cancel(wt, h, 0), 0);
	wheeltimer_close(wt);
}

/* Due by the clock, collected or not: a cancel or modify withdraws it. */
static void test_due_uncollected(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer_info info;
	struct timespec ts = { 0, 3 * MS };
	struct wheeltimer *wt;
	uint64_t a, b, c, now;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_now(wt, &now), 0);
	CHECK_EQ(wheeltimer_add(wt, now + MS, 0, WHEELTIMER_ABSTIME, 1, &a), 0);
	CHECK_EQ(wheeltimer_add(wt, now + MS, 0, WHEELTIMER_ABSTIME, 2, &b), 0);
	CHECK_EQ(wheeltimer_add(wt, now + MS, 0, WHEELTIMER_ABSTIME, 3, &c), 0);
	CHECK_EQ(wheeltimer_submit(wt), 3);
	/*
	 * Past the deadline's tick, with nothing read since. The module
	 * counts as fired what its hrtimer found due, which an emulated
	 * machine under load may run some milliseconds late: wait for it.
	 */
	do {
		nanosleep(&ts, NULL);
		CHECK_EQ(wheeltimer_query(wt, c, &info), 0);
	} while (info.state != WHEELTIMER_STATE_FIRED &&
		 mono_ns() < now + 30 * SEC);
	CHECK_EQ(info.state, WHEELTIMER_STATE_FIRED);
	CHECK_EQ(wheeltimer_cancel(wt, a, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_modify(wt, b, SEC, 0, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_submit(wt), 2);
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 30 * SEC), 3);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_WITHDRAWN |
			      WHEELTIMER_EV_FINAL);
	CHECK_EQ(ev[1].flags, WHEELTIMER_EV_MODIFY | WHEELTIMER_EV_WITHDRAWN);
	CHECK_EQ(ev[2].handle, c);
	CHECK_EQ(ev[2].flags, WHEELTIMER_EV_FINAL);
	CHECK(ev[2].fired_at >= now + MS);
	CHECK_EQ(stat_of(wt, "withdrawn"), 2);
	CHECK_EQ(stat_of(wt, "fired"), 3);
	CHECK_EQ(wheeltimer_cancel(wt, b, 0), 0);
	wheeltimer_close(wt);
}

/* The descriptor is readable while records wait, for epoll users. */
static void test_poll_fd(void)
{
	struct epoll_event ee = { .events = EPOLLIN };
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	int ep, i, r = 0;
	uint64_t h;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, wheeltimer_fd(wt), &ee), 0);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0);
	CHECK_EQ(wheeltimer_add(wt, 10 * MS, 0, 0, 1, &h), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	/* The one wake-up finds the record (none only cascades). */
	for (i = 0; i < 100 && !r; i++) {
		CHECK_EQ(epoll_wait(ep, &ee, 1, 30000), 1);
		r = wheeltimer_reap(wt, ev, 4);
	}
	CHECK_EQ(r, 1);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0);

	/* Three due at once, reaped one at a time: readable until the last. */
	for (i = 0; i < 3; i++)
		CHECK_EQ(wheeltimer_add(wt, 0, 0, 0, i, &h), 0);
	CHECK_EQ(wheeltimer_submit(wt), 3);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(epoll_wait(ep, &ee, 1, 30000), 1);
		CHECK_EQ(wheeltimer_reap(wt, ev, 1), 1);
	}
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0);
	close(ep);
	wheeltimer_close(wt);

	/* A virtual clock: readable once an advance has queued records. */
	CHECK_EQ(open_virtual(&wt), 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0);
	ee.events = EPOLLIN;
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, wheeltimer_fd(wt), &ee), 0);
	for (i = 0; i < 2; i++)
		CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, i, &h), 0);
	CHECK_EQ(advance_to(wt, MS - 1), 0);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0);
	CHECK_EQ(advance_to(wt, MS), 2);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 1);
	CHECK_EQ(wheeltimer_reap(wt, ev, 1), 1);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 1);
	CHECK_EQ(wheeltimer_reap(wt, ev, 1), 1);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0);
	close(ep);
	wheeltimer_close(wt);
}

/*
 * A timeout in the next slot of level 1, 5 ticks past its start: the
 * descriptor becomes readable once, when the timeout is due, and that
 * reap gets it. (The in-process engine's timerfd was armed for the slot's
 * start, a wake-up with nothing to reap; the kernel's poll() hid it.)
 */
static void test_one_wakeup(void)
{
	struct epoll_event ee = { .events = EPOLLIN };
	struct wheeltimer_event ev[4];
	uint64_t h, now, deadline;
	unsigned int wakeups = 0;
	struct wheeltimer *wt;
	int ep, r = 0;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, wheeltimer_fd(wt), &ee), 0);
	CHECK_EQ(wheeltimer_now(wt, &now), 0);
	deadline = ((now / MS / 64 + 1) * 64 + 5) * MS;
	CHECK_EQ(wheeltimer_add(wt, deadline, 0, WHEELTIMER_ABSTIME, 1, &h), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	while (!r && wakeups < 100) {
		CHECK_EQ(epoll_wait(ep, &ee, 1, 30000), 1);
		wakeups++;
		r = wheeltimer_reap(wt, ev, 4);
	}
	CHECK_EQ(r, 1);
	CHECK_EQ(wakeups, 1);
	CHECK_EQ(ev[0].handle, h);
	CHECK(ev[0].fired_at >= deadline);
	close(ep);
	wheeltimer_close(wt);
}

static void test_eventfd(void)
{
	struct pollfd pfd = { .events = POLLIN };
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h, count;
	int efd;

	CHECK_EQ(open_ctx(&wt, engine, WHEELTIMER_PARAM_VIRTUAL,
			  CLOCK_MONOTONIC, 0, 0), 0);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	CHECK(efd >= 0);
	if (!(wheeltimer_features(wt) & WHEELTIMER_FEATURE_EVENTFD)) {
		/* The in-process engine has no one to signal it. */
		CHECK_EQ(engine, WHEELTIMER_ENGINE_PROCESS);
		CHECK_EQ(wheeltimer_set_eventfd(wt, efd), -WHEELTIMER_EFEATURE);
		close(efd);
		wheeltimer_close(wt);
		return;
	}
	CHECK_EQ(wheeltimer_set_eventfd(wt, efd), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &h), 0);
	CHECK_EQ(advance_to(wt, MS), 1);
	pfd.fd = efd;
	CHECK_EQ(poll(&pfd, 1, 0), 1);
	CHECK_EQ(read(efd, &count, sizeof(count)), sizeof(count));
	CHECK(count >= 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(wheeltimer_set_eventfd(wt, -1), 0);
	CHECK_EQ(wheeltimer_set_eventfd(wt, -7), -EBADF);
	close(efd);
	wheeltimer_close(wt);
}

const struct tap_test realclock_tests[] = {
	{ "realtime_clock_set_back", test_clock_back },
	{ "realtime_back_after_expiry", test_clock_back_after_expiry },
	{ "real_clock_never_early", test_real_clock },
	{ "periodic_real_clock", test_periodic_real },
	{ "due_uncollected_is_fired", test_due_uncollected },
	{ "poll_fd", test_poll_fd },
	{ "one_wakeup_per_timeout", test_one_wakeup },
	{ "eventfd", test_eventfd },
	{ NULL, NULL },
};
