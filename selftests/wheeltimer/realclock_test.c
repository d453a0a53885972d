// SPDX-License-Identifier: GPL-2.0
/*
 * Timeouts on real clocks, driven by the hrtimer: they fire, never before
 * their deadline as clock_gettime() reads it, and wake read(), poll(),
 * select(), epoll and a registered eventfd.
 *
 * Under software emulation time is slow and uneven, so nothing here bounds
 * how late a timeout may be: only what must hold at any speed is checked.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

FIXTURE(real) {
	int fd;
	clockid_t clk;
};

FIXTURE_VARIANT(real) {
	clockid_t clk;
};

FIXTURE_VARIANT_ADD(real, monotonic) {
	.clk = CLOCK_MONOTONIC,
};

FIXTURE_VARIANT_ADD(real, boottime) {
	.clk = CLOCK_BOOTTIME,
};

FIXTURE_VARIANT_ADD(real, realtime) {
	.clk = CLOCK_REALTIME,
};

FIXTURE_SETUP(real)
{
	self->clk = variant->clk;
	self->fd = wt_open();
	if (self->fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	ASSERT_EQ(0, wt_config(self->fd, 1 * MSEC, self->clk, 0, 0));
}

FIXTURE_TEARDOWN(real)
{
	if (self->fd >= 0)
		close(self->fd);
}

static __u64 now(struct _test_data_real *self)
{
	return wt_clock_ns(self->clk);
}

/*
 * A record read at @read_at (a clock reading taken after read() returned)
 * fired at or after its deadline, and before it was read.
 */
static void expect_in_time(struct __test_metadata *_metadata,
			   const struct wt_event *ev, __u64 read_at)
{
	EXPECT_LE(ev->deadline, ev->fired_at);
	EXPECT_LE(ev->fired_at, read_at);
}

TEST_F(real, a_one_shot_fires_and_never_early)
{
	struct wt_event ev;
	__u64 before, after, id;

	if (self->fd < 0)
		return;
	before = now(self);
	ASSERT_EQ(0, wt_add_full(self->fd, 0, 20 * MSEC, 0, 0, 9, &id));
	after = now(self);
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	expect_in_time(_metadata, &ev, now(self));
	EXPECT_EQ(id, ev.id);
	EXPECT_EQ(9, ev.cookie);
	EXPECT_LE(before + 20 * MSEC, ev.deadline);
	EXPECT_GE(after + 20 * MSEC, ev.deadline);
	EXPECT_EQ(WT_EVENT_FINAL, ev.flags);
}

TEST_F(real, an_absolute_deadline_is_on_the_files_clock)
{
	struct wt_event ev;
	__u64 deadline, id;

	if (self->fd < 0)
		return;
	deadline = now(self) + 30 * MSEC;
	ASSERT_EQ(0, wt_add_abs(self->fd, deadline, &id));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_LE(deadline, now(self));
	EXPECT_EQ(deadline, ev.deadline);
	expect_in_time(_metadata, &ev, now(self));
}

TEST_F(real, many_short_timeouts_each_fire_once_and_never_early)
{
	enum { N = 300 };
	struct wt_event ev[N];
	bool seen[N + 1] = {};
	__u64 id, t;
	int i, n, got = 0;

	if (self->fd < 0)
		return;
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, wt_add(self->fd, (i * 7919) % (50 * MSEC), &id));
		ASSERT_GE(N, id);
	}
	while (got < N) {
		n = wt_read(self->fd, ev, N);
		ASSERT_LT(0, n);
		t = now(self);
		for (i = 0; i < n; i++) {
			expect_in_time(_metadata, &ev[i], t);
			EXPECT_FALSE(seen[ev[i].id]);
			seen[ev[i].id] = true;
		}
		got += n;
	}
	EXPECT_EQ(N, wt_fdinfo(self->fd, "delivered"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
}

TEST_F(real, fixed_rate_fires_on_its_grid)
{
	const __u64 period = 10 * MSEC;
	struct wt_event ev[6];
	int i, status;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add_full(self->fd, WT_FIXED_RATE, period, period, 0,
				 0, &id));
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(1, wt_read(self->fd, &ev[i], 1));
		expect_in_time(_metadata, &ev[i], now(self));
		EXPECT_EQ(WT_FIXED_RATE, ev[i].flags);
		if (i)
			EXPECT_EQ(ev[i - 1].deadline +
				  (1 + ev[i - 1].overruns) * period,
				  ev[i].deadline);
	}
	/* The next period may have fired already on a slow machine. */
	status = wt_cancel(self->fd, id);
	EXPECT_TRUE(status == WT_STATUS_PENDING ||
		    status == WT_STATUS_WITHDRAWN) TH_LOG("status %d", status);
}

TEST_F(real, fixed_delay_starts_each_period_at_the_read)
{
	const __u64 period = 10 * MSEC;
	__u64 id, before, after, next = 0;
	struct wt_event ev;
	struct wt_query q;
	int i;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add_full(self->fd, WT_FIXED_DELAY, period, period, 0,
				 0, &id));
	for (i = 0; i < 4; i++) {
		/* A slow consumer: the next period starts when it reads. */
		usleep(15000);
		before = now(self);
		ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
		after = now(self);
		expect_in_time(_metadata, &ev, after);
		EXPECT_EQ(0, ev.overruns);
		if (i)
			EXPECT_EQ(next, ev.deadline);
		ASSERT_EQ(0, wt_query(self->fd, id, &q));
		EXPECT_LE(before + period, q.deadline);
		EXPECT_GE(after + period, q.deadline);
		next = q.deadline;
	}
}

TEST_F(real, nonblocking_read_before_the_deadline_is_eagain)
{
	struct wt_event ev;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, wt_add(self->fd, 10 * SEC, &id));
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(WT_STATUS_PENDING, wt_cancel(self->fd, id));
}

TEST_F(real, poll_reports_pollin_once_a_record_is_ready)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	struct wt_event ev;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, poll(&p, 1, 0));
	/*
	 * "Not yet" can only be asserted of a deadline no emulated machine
	 * reaches while the test runs: an hour away, then moved to 20 ms.
	 */
	ASSERT_EQ(0, wt_add(self->fd, 3600 * SEC, &id));
	ASSERT_EQ(0, poll(&p, 1, 0));
	ASSERT_EQ(WT_STATUS_PENDING, wt_modify(self->fd, id, 0, 20 * MSEC, 0));
	ASSERT_EQ(1, poll(&p, 1, 10000));
	EXPECT_EQ(POLLIN, p.revents);
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	expect_in_time(_metadata, &ev, now(self));
	EXPECT_EQ(0, poll(&p, 1, 0));
}

TEST_F(real, select_sees_the_file_readable)
{
	struct timeval tv = { .tv_sec = 10 };
	struct wt_event ev;
	fd_set rd;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 20 * MSEC, &id));
	FD_ZERO(&rd);
	FD_SET(self->fd, &rd);
	ASSERT_EQ(1, select(self->fd + 1, &rd, NULL, NULL, &tv));
	EXPECT_TRUE(FD_ISSET(self->fd, &rd));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	expect_in_time(_metadata, &ev, now(self));
}

TEST_F(real, epoll_wakes_when_timeouts_fire)
{
	struct epoll_event e = { .events = EPOLLIN }, out;
	struct wt_event ev[2];
	int ep = epoll_create1(EPOLL_CLOEXEC);
	__u64 id;
	int i;

	if (self->fd < 0)
		return;
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &e));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, wt_add(self->fd, (10 + 10 * i) * MSEC, &id));
		ASSERT_EQ(1, epoll_wait(ep, &out, 1, 10000));
		EXPECT_TRUE(out.events & EPOLLIN);
		ASSERT_EQ(1, wt_read(self->fd, &ev[i], 2));
		expect_in_time(_metadata, &ev[i], now(self));
		EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	}
	close(ep);
}

TEST_F(real, eventfd_counts_wakeups_and_stays_quiet_when_idle)
{
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	struct pollfd p = { .events = POLLIN };
	__u64 count, total = 0, id;
	struct wt_event ev[4];
	int i, got = 0;

	if (self->fd < 0)
		return;
	ASSERT_LE(0, efd);
	p.fd = efd;
	ASSERT_EQ(0, wt_set_eventfd(self->fd, efd));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, wt_add(self->fd, 20 * MSEC, &id));
	ASSERT_EQ(0, wt_add(self->fd, 40 * MSEC, &id));
	while (got < 4) {
		ASSERT_EQ(1, poll(&p, 1, 10000));
		ASSERT_EQ(sizeof(count), read(efd, &count, sizeof(count)));
		total += count;
		i = wt_read(self->fd, ev + got, 4 - got);
		if (i > 0)
			got += i;
		else
			ASSERT_EQ(-EAGAIN, i);
	}
	/*
	 * One wake-up or more, each an expiry of the file's hrtimer at a
	 * tick at which something was due: the bound is the number of
	 * expiries, not of records (the three due together share one).
	 */
	EXPECT_LE(1, total);
	EXPECT_NE(UINT64_MAX, wt_fdinfo(self->fd, "hrtimer_expiries"));
	EXPECT_GE(wt_fdinfo(self->fd, "hrtimer_expiries"), total);
	/*
	 * With nothing pending, nothing is signalled, once the hrtimer has
	 * expired for the tick it was armed for: a read may have collected
	 * the last record first (a late interrupt, a loaded host), and that
	 * expiry, finding nothing, still counts.
	 */
	for (i = 0; i < 1000 && !wt_fdinfo_has(self->fd, "hrtimer_armed_tick:\t-"); i++)
		usleep(10000);
	EXPECT_TRUE(wt_fdinfo_has(self->fd, "hrtimer_armed_tick:\t-"));
	if (read(efd, &count, sizeof(count)) == sizeof(count))
		total += count;
	usleep(50000);
	EXPECT_EQ(-1, read(efd, &count, sizeof(count)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_GE(wt_fdinfo(self->fd, "hrtimer_expiries"), total);

	/* Unregistered, it is not signalled any more. */
	ASSERT_EQ(0, wt_set_eventfd(self->fd, WT_EVENTFD_NONE));
	ASSERT_EQ(0, wt_add(self->fd, 1 * MSEC, &id));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, 0));
	ASSERT_EQ(1, wt_read(self->fd, ev, 1));
	EXPECT_EQ(-1, read(efd, &count, sizeof(count)));

	/* Registered while a record waits, it is signalled at once. */
	ASSERT_EQ(0, wt_add(self->fd, 1 * MSEC, &id));
	p.fd = self->fd;
	ASSERT_EQ(1, poll(&p, 1, 10000));
	ASSERT_EQ(0, wt_set_eventfd(self->fd, efd));
	ASSERT_EQ(sizeof(count), read(efd, &count, sizeof(count)));
	/* An expiry of the hrtimer for the same tick may come on top. */
	EXPECT_LE(1, count);
	EXPECT_GE(2, count);
	close(efd);
}

struct reader {
	int fd;
	int n;
	struct wt_event ev;
	__u64 returned_at;
	clockid_t clk;
};

static void *blocking_reader(void *arg)
{
	struct reader *r = arg;

	r->n = wt_read(r->fd, &r->ev, 1);
	r->returned_at = wt_clock_ns(r->clk);
	return NULL;
}

TEST_F(real, a_blocked_read_wakes_for_a_timeout_added_later)
{
	struct reader r = { .fd = self->fd, .clk = self->clk };
	pthread_t th;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, pthread_create(&th, NULL, blocking_reader, &r));
	/* Give it time to block on an empty file. */
	usleep(50000);
	ASSERT_EQ(0, wt_add(self->fd, 20 * MSEC, &id));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(1, r.n);
	EXPECT_EQ(id, r.ev.id);
	expect_in_time(_metadata, &r.ev, r.returned_at);
}

static void on_alarm(int sig)
{
}

TEST_F(real, a_blocked_read_is_interrupted_or_restarted_by_signals)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct wt_event ev;
	__u64 id;

	if (self->fd < 0)
		return;
	/* Without SA_RESTART the signal ends the wait with EINTR. */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	alarm(1);
	EXPECT_EQ(-EINTR, wt_read(self->fd, &ev, 1));

	/* With it, the read goes on waiting and gets the record. */
	sa.sa_flags = SA_RESTART;
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, wt_add(self->fd, 1500 * MSEC, &id));
	alarm(1);
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(id, ev.id);
	expect_in_time(_metadata, &ev, now(self));
	signal(SIGALRM, SIG_DFL);
}

TEST_F(real, the_hrtimer_is_programmed_only_for_an_earlier_deadline)
{
	/*
	 * The hrtimer is armed for the start of the wheel's earliest
	 * non-empty slot. Deadlines on slot starts of one level L, in the
	 * same level-(L + 1) slot as the wheel's clock and at least one
	 * level-L slot (minutes) away, are each the start of their own slot:
	 * the armed tick is then the earliest deadline, and nothing fires or
	 * cascades while the test runs, however slow the machine.
	 */
	const __u64 res = 1 * MSEC;
	__u64 at[] = { 2, 4, 3, 1, 5, 0 }, id[6], programs, expect;
	__u64 clk, digit = 0, slot = 0, top;
	unsigned int level;
	int i;

	if (self->fd < 0)
		return;
	clk = wt_fdinfo(self->fd, "clk");
	for (level = 3; level < 7; level++) {
		digit = (clk >> (6 * level)) & 63;
		if (digit + 2 + 5 < 64)
			break;
	}
	if (level == 7)
		SKIP(return, "no room after the wheel's clock %llu", clk);
	slot = 1ULL << (6 * level);
	top = clk & ~(slot * 64 - 1);
#define TICK(k) (top + (digit + 2 + (k)) * slot)

	programs = wt_fdinfo(self->fd, "hrtimer_programs");
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, wt_add_abs(self->fd, TICK(at[i]) * res, &id[i]));
		/* Only a new earliest deadline re-arms it: 2, 1 and 0. */
		expect = programs + 1 + (i >= 3) + (i >= 5);
		EXPECT_EQ(expect, wt_fdinfo(self->fd, "hrtimer_programs"))
			TH_LOG("after adding the deadline at %llu", at[i]);
		if (i == 3) {
			EXPECT_EQ(TICK(1),
				  wt_fdinfo(self->fd, "hrtimer_armed_tick"));
			/* Cancelling the earliest does not re-arm it. */
			EXPECT_EQ(WT_STATUS_PENDING, wt_cancel(self->fd, id[3]));
			EXPECT_EQ(expect,
				  wt_fdinfo(self->fd, "hrtimer_programs"));
		}
	}
	EXPECT_EQ(TICK(0), wt_fdinfo(self->fd, "hrtimer_armed_tick"));

	/* Emptying the wheel does not touch the hrtimer either. */
	expect = wt_fdinfo(self->fd, "hrtimer_programs");
	for (i = 0; i < 6; i++)
		if (i != 3)
			EXPECT_EQ(WT_STATUS_PENDING, wt_cancel(self->fd, id[i]));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "pending"));
	EXPECT_EQ(expect, wt_fdinfo(self->fd, "hrtimer_programs"));
	EXPECT_EQ(TICK(0), wt_fdinfo(self->fd, "hrtimer_armed_tick"));
#undef TICK
}

/*
 * Nobody reads or polls, so nobody collects: the hrtimer expires at the
 * deadline, and the coarse slot the timeouts wait in is not even
 * cascaded. Once the deadline has passed, the timeouts have fired all the
 * same: CANCEL withdraws one and QUERY says the other fired.
 */
TEST_F(real, a_deadline_passed_unobserved_counts_as_fired)
{
	struct wt_query q;
	__u64 a, b, deadline;

	if (self->fd < 0)
		return;
	/* 300 ticks away: beyond level 0, in a slot to cascade first. */
	ASSERT_EQ(0, wt_add(self->fd, 300 * MSEC, &a));
	ASSERT_EQ(0, wt_add(self->fd, 300 * MSEC, &b));
	ASSERT_EQ(0, wt_query(self->fd, a, &q));
	EXPECT_EQ(WT_STATE_PENDING, q.state);
	deadline = q.deadline;
	while (now(self) < deadline + 50 * MSEC)
		usleep(20000);
	ASSERT_EQ(0, wt_query(self->fd, b, &q));
	EXPECT_EQ(WT_STATE_FIRED, q.state);
	EXPECT_EQ(WT_STATUS_WITHDRAWN, wt_cancel(self->fd, a));
	EXPECT_EQ(WT_STATUS_WITHDRAWN, wt_modify(self->fd, b, 0, SEC, 0));
	EXPECT_EQ(2, wt_fdinfo(self->fd, "withdrawn"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "cancelled"));
}

TEST_F(real, an_emptied_file_fires_once_for_nothing_then_stays_quiet)
{
	__u64 id, programs;
	int i;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 200 * MSEC, &id));
	/* A machine 200 ms slow between two calls has nothing to show here. */
	if (wt_cancel(self->fd, id) != WT_STATUS_PENDING)
		SKIP(return, "the timeout fired before its cancel");
	/* The stale expiry passes, finds nothing and arms nothing. */
	for (i = 0; i < 1000; i++) {
		if (wt_fdinfo_has(self->fd, "hrtimer_armed_tick:\t-\n"))
			break;
		usleep(10000);
	}
	EXPECT_TRUE(wt_fdinfo_has(self->fd, "hrtimer_armed_tick:\t-\n"));
	programs = wt_fdinfo(self->fd, "hrtimer_programs");
	usleep(100000);
	EXPECT_EQ(programs, wt_fdinfo(self->fd, "hrtimer_programs"));
	EXPECT_TRUE(wt_fdinfo_has(self->fd, "hrtimer_armed_tick:\t-\n"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "fired"));
}

/*
 * Timeouts already due need no interrupt: adding them expires the file's
 * timer at once (the eventfd hears of it), and a reader that takes the
 * backlog 64 records per read() leaves none behind for the hrtimer either.
 * Each is read once, none before its deadline, and the hrtimer is never
 * programmed (it was, once per read, before).
 */
TEST_F(real, a_backlog_already_due_is_read_without_arming_the_hrtimer)
{
	enum { N = 4096, CHUNK = 64 };
	struct wt_event ev[CHUNK];
	struct wt_op ops[256];
	__u64 programs, expiries, count, deadline;
	static unsigned char seen[N];
	unsigned int got = 0, i, k;
	struct pollfd p;
	int efd, r;

	if (self->fd < 0)
		return;
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, wt_set_eventfd(self->fd, efd));
	programs = wt_fdinfo(self->fd, "hrtimer_programs");
	expiries = wt_fdinfo(self->fd, "hrtimer_expiries");
	/* A resolution and more in the past: due at the reading of the add. */
	deadline = now(self) - 2 * MSEC;
	for (k = 0; k < N; k += 256) {
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < 256; i++) {
			ops[i].op = WT_OP_ADD;
			ops[i].flags = WT_ABSTIME;
			ops[i].deadline = deadline - (k + i) % 1000;
			ops[i].cookie = k + i;
		}
		ASSERT_EQ(256, wt_batch(self->fd, ops, 256));
	}
	/* Due at once: the eventfd and poll() say so, with nothing read. */
	p = (struct pollfd){ .fd = efd, .events = POLLIN };
	ASSERT_EQ(1, poll(&p, 1, 10000));
	ASSERT_EQ(sizeof(count), read(efd, &count, sizeof(count)));
	EXPECT_LE(1, count);
	p = (struct pollfd){ .fd = self->fd, .events = POLLIN };
	ASSERT_EQ(1, poll(&p, 1, 0));

	while (got < N) {
		r = wt_read(self->fd, ev, CHUNK);
		ASSERT_LT(0, r) TH_LOG("after %u records: %s", got, strerror(-r));
		for (i = 0; i < (unsigned int)r; i++) {
			ASSERT_GT(N, ev[i].cookie);
			EXPECT_EQ(0, seen[ev[i].cookie]++)
				TH_LOG("cookie %llu twice", ev[i].cookie);
			EXPECT_LE(ev[i].deadline, ev[i].fired_at);
			EXPECT_TRUE(ev[i].flags & WT_EVENT_FINAL);
		}
		got += r;
	}
	EXPECT_EQ(0, poll(&p, 1, 0));
	EXPECT_EQ(N, wt_fdinfo(self->fd, "delivered"));
	EXPECT_EQ(programs, wt_fdinfo(self->fd, "hrtimer_programs"))
		TH_LOG("%llu programs for %u records read %u at a time",
		       wt_fdinfo(self->fd, "hrtimer_programs") - programs,
		       N, CHUNK);
	EXPECT_LT(expiries, wt_fdinfo(self->fd, "hrtimer_expiries"));
	close(efd);
}

/*
 * A read that fills its buffer with what one expiry found leaves the
 * hrtimer armed for what comes due next: two timeouts due together and a
 * third 40 ticks later, read one record at a time. The third gets its own
 * expiry (the eventfd hears of it) and its record carries that expiry's
 * reading, though nobody read or polled between. (The first two are put
 * where the third shares their level-1 slot, so that the third is due at
 * the very tick the hrtimer is armed for, whatever the wheel's layout.)
 */
TEST_F(real, a_read_that_fills_its_buffer_still_arms_for_what_is_due_next)
{
	struct pollfd p = { .events = POLLIN };
	__u64 tick, first, third, count, heard, id;
	struct wt_event ev[3];
	int efd, i, n;

	if (self->fd < 0)
		return;
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, wt_set_eventfd(self->fd, efd));
	/* The first tick at least 10 ms away whose digit 0 is 2. */
	tick = now(self) / MSEC + 10;
	tick += (64 + 2 - tick % 64) % 64;
	first = tick * MSEC;
	third = (tick + 40) * MSEC;
	ASSERT_EQ(0, wt_add_abs(self->fd, first, &id));
	ASSERT_EQ(0, wt_add_abs(self->fd, first, &id));
	ASSERT_EQ(0, wt_add_abs(self->fd, third, &id));
	ASSERT_EQ(1, wt_read(self->fd, ev, 1));
	EXPECT_EQ(first, ev[0].deadline);
	/*
	 * The read collected what was due when it ran. One that ran 40 ms
	 * late took the third with the first two: nothing was left to arm.
	 */
	if (now(self) >= third)
		SKIP(goto out, "the read ran after the third's deadline");
	/* Nobody reads: the third's expiry comes all the same. */
	ASSERT_EQ(sizeof(count), read(efd, &count, sizeof(count)));
	p.fd = efd;
	if (count < 2)
		EXPECT_EQ(1, poll(&p, 1, 5000))
			TH_LOG("no expiry for the timeout due 40 ms after the first two");
	heard = now(self);
	n = wt_read(self->fd, ev + 1, 2);
	ASSERT_EQ(2, n);
	for (i = 1; i <= n; i++) {
		expect_in_time(_metadata, &ev[i], now(self));
		if (ev[i].deadline != third)
			continue;
		EXPECT_LE(ev[i].fired_at, heard)
			TH_LOG("the third was stamped %llu us after its deadline",
			       (ev[i].fired_at - third) / USEC);
	}
out:
	close(efd);
}

/*
 * Timeouts that one expiry finds due carry that expiry's reading, however
 * many reads take them and however late: a reader that takes 64 records
 * at a time does not make the rest look found later.
 */
TEST_F(real, one_expiry_stamps_its_whole_backlog_with_its_reading)
{
	enum { N = 1000, BATCH = 250, CHUNK = 64 };
	static unsigned char seen[N];
	struct wt_event ev[CHUNK];
	struct wt_op ops[BATCH];
	unsigned int got = 0, late = 0, i, k;
	__u64 deadline, stamp = 0;
	int r;

	if (self->fd < 0)
		return;
	memset(seen, 0, sizeof(seen));
	deadline = now(self) + 50 * MSEC;
	for (k = 0; k < N; k += BATCH) {
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < BATCH; i++) {
			ops[i].op = WT_OP_ADD;
			ops[i].flags = WT_ABSTIME;
			ops[i].deadline = deadline;
			ops[i].cookie = k + i;
		}
		ASSERT_EQ(BATCH, wt_batch(self->fd, ops, BATCH));
	}
	while (got < N) {
		r = wt_read(self->fd, ev, CHUNK);
		ASSERT_LT(0, r) TH_LOG("after %u records: %s", got, strerror(-r));
		if (!stamp)
			stamp = ev[0].fired_at;
		for (i = 0; i < (unsigned int)r; i++) {
			ASSERT_GT(N, ev[i].cookie);
			EXPECT_EQ(0, seen[ev[i].cookie]++);
			EXPECT_LE(deadline, ev[i].fired_at);
			if (ev[i].fired_at != stamp && !late++)
				ksft_print_msg("record %u: fired_at %lld ns after the first's\n",
					       got + i,
					       (long long)(ev[i].fired_at - stamp));
		}
		got += r;
		/* The next read comes later: its own clock is later. */
		usleep(2000);
	}
	EXPECT_EQ(0, late) TH_LOG("%u of %u records carry a later reading",
				  late, N);
	EXPECT_EQ(N, wt_fdinfo(self->fd, "delivered"));
}

/*
 * Once a timeout's deadline has passed, QUERY calls it fired, and STATS
 * counts it fired: both collect what is due before they answer.
 */
TEST_F(real, query_and_stats_agree_on_what_has_fired)
{
	struct wt_stats st = { 0 };
	struct wt_query q;
	__u64 id, deadline;
	int i;

	if (self->fd < 0)
		return;
	deadline = now(self) + 10 * MSEC;
	ASSERT_EQ(0, wt_add_abs(self->fd, deadline, &id));
	/* Past the deadline, and the hrtimer has expired for it. */
	for (i = 0; i < 2000; i++) {
		if (now(self) > deadline + 10 * MSEC &&
		    wt_fdinfo(self->fd, "hrtimer_expiries"))
			break;
		usleep(5000);
	}
	ASSERT_LE(1, wt_fdinfo(self->fd, "hrtimer_expiries"));
	/* Nobody has looked yet. */
	EXPECT_EQ(0, wt_fdinfo(self->fd, "fired"));
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(WT_STATE_FIRED, q.state);
	ASSERT_EQ(0, ioctl(self->fd, WT_IOC_STATS, &st));
	EXPECT_EQ(1, st.fired);
	EXPECT_EQ(1, st.ready);
	EXPECT_EQ(0, st.pending);
	EXPECT_EQ(1, wt_fdinfo(self->fd, "fired"));
}

static int set_realtime(__u64 ns)
{
	struct timespec ts = { .tv_sec = ns / SEC, .tv_nsec = ns % SEC };

	return clock_settime(CLOCK_REALTIME, &ts) ? -errno : 0;
}

/*
 * What one timeout a day away costs its waiter: one wake-up, one eventfd
 * increment, one expiry of the hrtimer, however many levels of the wheel
 * it comes down on its way. CLOCK_REALTIME is stepped forward (as root)
 * to a few points before the deadline, close enough at the end to pass
 * the start of every slot the timeout moves through, and then the
 * deadline passes in real time; the clock is put back afterwards. Before
 * the file's timer was armed for the first tick at which something is
 * due, each of those slot starts woke the waiter and signalled the
 * eventfd for nothing.
 */
FIXTURE(day) {
	int unused;
};

FIXTURE_SETUP(day)
{
}

FIXTURE_TEARDOWN(day)
{
}

TEST_F_TIMEOUT(day, a_timeout_a_day_away_wakes_its_waiter_once, 120)
{
	static const __u64 ahead[] = {
		12 * 3600 * SEC, 3600 * SEC, 600 * SEC, 60 * SEC, 10 * SEC,
		SEC, 100 * MSEC, 10 * MSEC,
	};
	__u64 mono0, wall0, deadline, count = 0, expiries, id;
	struct timespec until;
	struct wt_waiter w;
	pthread_t th;
	unsigned int i;
	int fd, efd, r;

	fd = wt_open();
	if (fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	if (set_realtime(wt_clock_ns(CLOCK_REALTIME)))
		SKIP(return, "cannot set CLOCK_REALTIME: %m");
	ASSERT_EQ(0, wt_config(fd, MSEC, CLOCK_REALTIME, 0, 0));
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, wt_set_eventfd(fd, efd));
	mono0 = wt_clock_ns(CLOCK_MONOTONIC);
	wall0 = wt_clock_ns(CLOCK_REALTIME);
	deadline = wall0 + 24 * 3600 * SEC;
	ASSERT_EQ(0, wt_add_abs(fd, deadline, &id));
	ASSERT_EQ(0, wt_start_waiter(&w, fd, &th));

	for (i = 0; i < ARRAY_SIZE(ahead); i++) {
		r = set_realtime(deadline - ahead[i]);
		EXPECT_EQ(0, r);
		usleep(50000);
	}
	/* The last 10 ms pass in real time. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30;
	r = pthread_timedjoin_np(th, NULL, &until);
	/* Back to the time it would be, before anything can fail. */
	EXPECT_EQ(0, set_realtime(wall0 + wt_clock_ns(CLOCK_MONOTONIC) - mono0));
	ASSERT_EQ(0, r) TH_LOG("the waiter did not wake for its deadline");

	EXPECT_EQ(1, w.n);
	EXPECT_EQ(id, w.ev.id);
	EXPECT_LE(deadline, w.ev.fired_at);
	if (read(efd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	expiries = wt_fdinfo(fd, "hrtimer_expiries");
	ksft_print_msg("a day away: %llu wake-ups, %llu eventfd increments, %llu expiries\n",
		       w.sleeps, count, expiries);
	EXPECT_EQ(1, w.sleeps);
	EXPECT_EQ(1, count);
	EXPECT_EQ(1, expiries);
	close(efd);
	close(fd);
}

TEST_HARNESS_MAIN
