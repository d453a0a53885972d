// SPDX-License-Identifier: GPL-2.0
/*
 * When timeouts fire, checked exactly on a virtual clock.
 *
 * With WT_CONFIG_VIRTUAL time moves only by WT_IOC_ADVANCE, and a record's
 * fired_at is the virtual instant its tick came, so the rules hold to the
 * nanosecond: never before the deadline, less than one resolution after it
 * (plus the slack), in deadline order from one tick to the next, each
 * firing delivered once unless cancelled, and periodic timeouts re-armed as
 * the header says.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/eventfd.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

#define RES		(1 * MSEC)

FIXTURE(virt) {
	int fd;
};

FIXTURE_SETUP(virt)
{
	self->fd = wt_open();
	if (self->fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	ASSERT_EQ(0, wt_virtual(self->fd, RES));
}

FIXTURE_TEARDOWN(virt)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* A small deterministic generator, so that failures can be replayed. */
static __u64 rnd_state = 0x9e3779b97f4a7c15ULL;

static __u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static __u64 ticks_of(__u64 ns, __u64 res)
{
	return (ns + res - 1) / res;
}

/* Read every ready record into @ev (room for @max); returns the count. */
static int drain(int fd, struct wt_event *ev, int max)
{
	int n = 0, r;

	while (n < max) {
		r = wt_read(fd, ev + n, max - n > 4096 ? 4096 : max - n);
		if (r <= 0)
			break;
		n += r;
	}
	return n;
}

/*
 * Adds @n one-shot timeouts at random deadlines below @span ns, with
 * @slack, moves the clock in steps of at most @step ns (0: one step)
 * until all have fired, and checks every record.
 */
static void fire_and_check(struct __test_metadata *_metadata, int fd, int n,
			   __u64 span, __u64 slack, __u64 step)
{
	struct wt_event *ev = calloc(n + 1, sizeof(*ev));
	unsigned char *seen = calloc(n + 2, 1);
	__u64 *deadline = calloc(n + 2, sizeof(*deadline));
	__u64 now = 0, id, prev_tick = 0, prev_fired = 0;
	int i, got;

	ASSERT_NE(NULL, ev);
	ASSERT_NE(NULL, seen);
	ASSERT_NE(NULL, deadline);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
	for (i = 0; i < n; i++) {
		__u64 d = rnd() % span;

		ASSERT_EQ(0, wt_add_full(fd, WT_ABSTIME, d, 0, slack, i, &id));
		ASSERT_EQ(0, id >> 32);
		ASSERT_GE(n + 1, id);
		deadline[id] = d;
	}

	got = 0;
	while (now < span + slack + RES) {
		__u64 dt = step ? 1 + rnd() % step : span + slack + RES;

		ASSERT_LE(0, wt_advance(fd, dt));
		now += dt;
		i = drain(fd, ev + got, n + 1 - got);
		/* Nothing still pending is due; everything due has fired. */
		for (; i > 0; i--, got++) {
			struct wt_event *e = &ev[got];
			__u64 tick = ticks_of(e->deadline, RES);

			ASSERT_GE(n + 1, e->id);
			EXPECT_EQ(0, seen[e->id]) TH_LOG("id %llu twice", e->id);
			seen[e->id] = 1;
			EXPECT_EQ(deadline[e->id], e->deadline);
			EXPECT_LE(e->deadline, e->fired_at);
			EXPECT_GT(e->deadline + RES + slack, e->fired_at)
				TH_LOG("deadline %llu fired %llu", e->deadline,
				       e->fired_at);
			EXPECT_GE(now, e->fired_at);
			if (!slack) {
				EXPECT_LE(prev_tick, tick);
				prev_tick = tick;
			}
			EXPECT_LE(prev_fired, e->fired_at);
			prev_fired = e->fired_at;
			EXPECT_EQ(WT_EVENT_FINAL, e->flags);
		}
	}
	EXPECT_EQ(n, got);
	EXPECT_EQ(0, wt_fdinfo(fd, "pending"));
	EXPECT_EQ(0, wt_fdinfo(fd, "live"));
	EXPECT_EQ(n, wt_fdinfo(fd, "fired"));
	EXPECT_EQ(n, wt_fdinfo(fd, "delivered"));
	free(ev);
	free(seen);
	free(deadline);
}

TEST_F(virt, one_step_fires_everything_in_order_within_a_resolution)
{
	if (self->fd < 0)
		return;
	fire_and_check(_metadata, self->fd, 5000, 10 * SEC, 0, 0);
}

TEST_F(virt, small_steps_fire_everything_in_order_within_a_resolution)
{
	if (self->fd < 0)
		return;
	fire_and_check(_metadata, self->fd, 2000, 500 * MSEC, 0, 3 * RES);
}

TEST_F(virt, steps_finer_than_a_tick_change_nothing)
{
	if (self->fd < 0)
		return;
	fire_and_check(_metadata, self->fd, 500, 50 * MSEC, 0, RES / 7);
}

TEST_F(virt, slack_delays_by_at_most_the_slack)
{
	if (self->fd < 0)
		return;
	fire_and_check(_metadata, self->fd, 2000, 2 * SEC, 40 * RES, 5 * RES);
}

TEST_F(virt, far_deadlines_cross_every_level_and_the_horizon)
{
	/*
	 * Distances from the clock, around each level's boundaries, at the
	 * finest resolution so that 2^48 ticks fit before KTIME_MAX.
	 */
	const __u64 R = WT_RESOLUTION_MIN;
	__u64 dist[] = {
		0, 1, R - 1, R, R + 1, 63 * R, 64 * R, 65 * R,
		4095 * R, 4096 * R, 4097 * R, (1ULL << 18) * R,
		(1ULL << 24) * R + 1, (1ULL << 30) * R - 1,
		(1ULL << 36) * R, (1ULL << 42) * R, (1ULL << 42) * R + 1,
		(1ULL << 48) * R + 12345,
	};
	struct wt_event ev;
	__u64 id, now, t, tick;
	unsigned int i;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_virtual(self->fd, R));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	for (i = 0; i <= ARRAY_SIZE(dist); i++) {
		now = wt_fdinfo(self->fd, "now_ns");
		/* Last, the latest deadline that can fire at all. */
		t = i < ARRAY_SIZE(dist) ? now + dist[i] :
		    WT_KTIME_MAX / R * R;
		tick = ticks_of(t, R);
		ASSERT_EQ(0, wt_add_abs(self->fd, t, &id));
		/* Up to the last nanosecond before its tick: nothing. */
		if (tick * R - 1 >= now && tick > 0) {
			ASSERT_EQ(0, wt_set_clock(self->fd, tick * R - 1));
			EXPECT_EQ(-EAGAIN, wt_read(self->fd, &ev, 1))
				TH_LOG("deadline %llu fired early", t);
		}
		/* Its tick: fired, at the tick. */
		ASSERT_EQ(1, wt_set_clock(self->fd, tick * R))
			TH_LOG("deadline %llu did not fire", t);
		ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
		EXPECT_EQ(t, ev.deadline);
		EXPECT_EQ(tick * R, ev.fired_at);
	}
}

TEST_F(virt, a_timeout_never_fires_a_nanosecond_early)
{
	__u64 d[] = { 1, RES - 1, RES, RES + 1, 2 * RES - 1, 777 * RES + 3 };
	struct wt_event ev;
	__u64 id, base = 0;
	unsigned int i;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	for (i = 0; i < ARRAY_SIZE(d); i++) {
		ASSERT_EQ(0, wt_add(self->fd, d[i], &id));
		ASSERT_EQ(0, wt_advance(self->fd, d[i] - 1));
		EXPECT_EQ(-EAGAIN, wt_read(self->fd, &ev, 1));
		/* Reaching the deadline may still be within its tick. */
		ASSERT_LE(0, wt_advance(self->fd, 1));
		if (wt_read(self->fd, &ev, 1) != 1) {
			ASSERT_EQ(1, wt_advance(self->fd, RES - 1));
			ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
		}
		EXPECT_EQ(base + d[i], ev.deadline);
		EXPECT_LE(ev.deadline, ev.fired_at);
		EXPECT_GT(ev.deadline + RES, ev.fired_at);
		base = wt_fdinfo(self->fd, "now_ns");
	}
}

TEST_F(virt, cancel_tells_pending_from_fired_and_read_is_gone)
{
	enum { N = 1000 };
	struct wt_event ev[N];
	__u64 id[N], dl[N];
	bool read_it[N] = {};
	int i, got, pending = 0, withdrawn = 0, gone = 0, st;

	if (self->fd < 0)
		return;
	for (i = 0; i < N; i++) {
		dl[i] = rnd() % (100 * RES);
		ASSERT_EQ(0, wt_add_full(self->fd, WT_ABSTIME, dl[i], 0, 0, i,
					 &id[i]));
	}
	ASSERT_LE(0, wt_advance(self->fd, 50 * RES));
	/* Read some of what fired. */
	got = wt_read(self->fd, ev, N / 5);
	ASSERT_LT(0, got);
	for (i = 0; i < got; i++)
		read_it[ev[i].cookie] = true;

	for (i = 0; i < N; i++) {
		st = wt_cancel(self->fd, id[i]);
		if (read_it[i]) {
			EXPECT_EQ(-ENOENT, st);
			gone++;
		} else if (dl[i] <= 50 * RES) {
			EXPECT_EQ(WT_STATUS_WITHDRAWN, st) TH_LOG("dl %llu", dl[i]);
			withdrawn++;
		} else {
			EXPECT_EQ(WT_STATUS_PENDING, st) TH_LOG("dl %llu", dl[i]);
			pending++;
		}
	}
	EXPECT_EQ(N, gone + withdrawn + pending);
	EXPECT_LT(0, withdrawn);
	EXPECT_LT(0, pending);
	/* Nothing is left to fire or to read. */
	EXPECT_EQ(0, wt_advance(self->fd, 100 * RES));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, ev, 1));
	EXPECT_EQ(pending, wt_fdinfo(self->fd, "cancelled"));
	EXPECT_EQ(withdrawn, wt_fdinfo(self->fd, "withdrawn"));
	EXPECT_EQ(gone, wt_fdinfo(self->fd, "delivered"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
}

TEST_F(virt, fixed_rate_counts_the_periods_missed_while_unread)
{
	struct wt_event ev[4];
	struct wt_query q;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, wt_add_full(self->fd, WT_FIXED_RATE, 10 * MSEC,
				 10 * MSEC, 0, 5, &id));
	/* Deadlines 10, 20 and 30 ms pass; one record waits, not three. */
	ASSERT_EQ(1, wt_advance(self->fd, 35 * MSEC));
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(WT_STATE_FIRED, q.state);
	ASSERT_EQ(1, wt_read(self->fd, ev, 4));
	EXPECT_EQ(id, ev[0].id);
	EXPECT_EQ(5, ev[0].cookie);
	EXPECT_EQ(10 * MSEC, ev[0].deadline);
	EXPECT_EQ(10 * MSEC, ev[0].fired_at);
	EXPECT_EQ(2, ev[0].overruns);
	EXPECT_EQ(WT_FIXED_RATE, ev[0].flags);
	/* It goes on at the first deadline of its grid after the read. */
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(WT_STATE_PENDING, q.state);
	EXPECT_EQ(40 * MSEC, q.deadline);
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, ev, 4));

	ASSERT_EQ(0, wt_advance(self->fd, 5 * MSEC - 1));
	ASSERT_EQ(1, wt_advance(self->fd, 1));
	ASSERT_EQ(1, wt_read(self->fd, ev, 4));
	EXPECT_EQ(40 * MSEC, ev[0].deadline);
	EXPECT_EQ(0, ev[0].overruns);

	/* A thousand periods unread: still one record. */
	ASSERT_EQ(1, wt_advance(self->fd, 10000 * MSEC));
	ASSERT_EQ(1, wt_read(self->fd, ev, 4));
	EXPECT_EQ(50 * MSEC, ev[0].deadline);
	EXPECT_EQ(999, ev[0].overruns);
	EXPECT_EQ(1001, wt_fdinfo(self->fd, "overruns"));
	EXPECT_EQ(3, wt_fdinfo(self->fd, "fired"));
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(10050 * MSEC, q.deadline);
}

TEST_F(virt, fixed_delay_rearms_one_period_after_the_read)
{
	struct wt_event ev[2];
	struct wt_query q;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, wt_add_full(self->fd, WT_FIXED_DELAY, 10 * MSEC,
				 10 * MSEC, 0, 6, &id));
	ASSERT_EQ(1, wt_advance(self->fd, 35 * MSEC));
	/* Unread, it waits: no second record, no re-arm. */
	ASSERT_EQ(0, wt_advance(self->fd, 100 * MSEC));
	ASSERT_EQ(1, wt_read(self->fd, ev, 2));
	EXPECT_EQ(10 * MSEC, ev[0].deadline);
	EXPECT_EQ(0, ev[0].overruns);
	EXPECT_EQ(WT_FIXED_DELAY, ev[0].flags);
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(145 * MSEC, q.deadline);
	ASSERT_EQ(0, wt_advance(self->fd, 10 * MSEC - 1));
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, ev, 2));
	ASSERT_EQ(1, wt_advance(self->fd, 1));
	ASSERT_EQ(1, wt_read(self->fd, ev, 2));
	EXPECT_EQ(145 * MSEC, ev[0].deadline);
	EXPECT_EQ(0, wt_fdinfo(self->fd, "overruns"));
}

TEST_F(virt, a_periodic_timeout_that_would_pass_ktime_max_ends)
{
	__u64 last = WT_KTIME_MAX / RES * RES;
	struct wt_event ev;
	struct wt_query q;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add_full(self->fd, WT_FIXED_RATE | WT_ABSTIME, last,
				 SEC, 0, 0, &id));
	ASSERT_EQ(1, wt_set_clock(self->fd, last));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(WT_FIXED_RATE | WT_EVENT_FINAL, ev.flags);
	EXPECT_EQ(-ENOENT, wt_query(self->fd, id, &q));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
}

TEST_F(virt, cancelling_a_fired_periodic_timeout_withdraws_it)
{
	struct wt_event ev;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add_full(self->fd, WT_FIXED_RATE, 1 * MSEC, 1 * MSEC,
				 0, 0, &id));
	ASSERT_EQ(1, wt_advance(self->fd, 5 * MSEC));
	EXPECT_EQ(WT_STATUS_WITHDRAWN, wt_cancel(self->fd, id));
	EXPECT_EQ(0, wt_advance(self->fd, 5 * MSEC));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, id));
}

TEST_F(virt, a_realtime_clock_set_back_never_fires_early)
{
	struct wt_event ev;
	__u64 late, soon, first;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_config(self->fd, RES, CLOCK_REALTIME,
			       WT_CONFIG_VIRTUAL, 0));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	/* A firing at 100 ms takes the wheel's clock there. */
	ASSERT_EQ(0, wt_add_abs(self->fd, 100 * MSEC, &first));
	ASSERT_EQ(1, wt_advance(self->fd, 100 * MSEC));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	ASSERT_EQ(0, wt_add_abs(self->fd, 150 * MSEC, &late));
	/* The clock is set back by 50 ms... */
	ASSERT_EQ(0, wt_set_clock(self->fd, 50 * MSEC));
	/* ...and a timeout due at 60 ms lies behind the wheel's own clock. */
	ASSERT_EQ(0, wt_add(self->fd, 10 * MSEC, &soon));
	EXPECT_EQ(1, wt_fdinfo(self->fd, "rewinds"));
	ASSERT_EQ(0, wt_advance(self->fd, 10 * MSEC - 1));
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, &ev, 1));
	ASSERT_EQ(1, wt_advance(self->fd, 1));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(soon, ev.id);
	EXPECT_EQ(60 * MSEC, ev.fired_at);
	/* The earlier timeout keeps its wall-clock deadline. */
	ASSERT_EQ(0, wt_set_clock(self->fd, 150 * MSEC - 1));
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, &ev, 1));
	ASSERT_EQ(1, wt_advance(self->fd, 1));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(late, ev.id);
	EXPECT_EQ(150 * MSEC, ev.fired_at);
}

TEST_F(virt, a_due_timeout_after_a_backward_step_fires_at_once)
{
	struct wt_event ev[2];
	__u64 first, zero, past, soon;
	int i;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_config(self->fd, RES, CLOCK_REALTIME,
			       WT_CONFIG_VIRTUAL, 0));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	/* A firing at 100 ms takes the wheel's clock there. */
	ASSERT_EQ(0, wt_add_abs(self->fd, 100 * MSEC, &first));
	ASSERT_EQ(1, wt_set_clock(self->fd, 100 * MSEC));
	ASSERT_EQ(1, wt_read(self->fd, ev, 1));
	/* Set back to 50 ms: due now is due now, not at 100 ms. */
	ASSERT_EQ(0, wt_set_clock(self->fd, 50 * MSEC));
	ASSERT_EQ(0, wt_add(self->fd, 0, &zero));
	ASSERT_EQ(0, wt_add_abs(self->fd, 10 * MSEC, &past));
	EXPECT_EQ(2, wt_advance(self->fd, 0));
	ASSERT_EQ(2, wt_read(self->fd, ev, 2));
	for (i = 0; i < 2; i++) {
		EXPECT_TRUE(ev[i].id == zero || ev[i].id == past);
		EXPECT_EQ(ev[i].id == zero ? 50 * MSEC : 10 * MSEC,
			  ev[i].deadline);
		EXPECT_EQ(50 * MSEC, ev[i].fired_at);
	}
	EXPECT_NE(ev[0].id, ev[1].id);
	/* The wheel's clock went back with the file's. */
	EXPECT_NE(UINT64_MAX, wt_fdinfo(self->fd, "rewinds"));
	EXPECT_LE(1, wt_fdinfo(self->fd, "rewinds"));
	/* One 10 ms ahead fires at 60 ms, neither before nor at 100 ms. */
	ASSERT_EQ(0, wt_add(self->fd, 10 * MSEC, &soon));
	EXPECT_EQ(0, wt_advance(self->fd, 10 * MSEC - 1));
	EXPECT_EQ(1, wt_advance(self->fd, 1));
	ASSERT_EQ(1, wt_read(self->fd, ev, 2));
	EXPECT_EQ(soon, ev[0].id);
	EXPECT_EQ(60 * MSEC, ev[0].fired_at);
}

/* The eventfd's counter, read and reset; 0 if it was not signalled. */
static __u64 eventfd_take(int efd)
{
	__u64 n = 0;

	if (read(efd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}

/* @n one-shot timeouts at @first, @first + @step, ... (absolute). */
static int add_spread(int fd, unsigned int n, __u64 first, __u64 step)
{
	struct wt_op ops[WT_BATCH_MAX];
	unsigned int i, k, done = 0;
	int r;

	while (done < n) {
		k = n - done < WT_BATCH_MAX ? n - done : WT_BATCH_MAX;
		memset(ops, 0, k * sizeof(ops[0]));
		for (i = 0; i < k; i++) {
			ops[i].op = WT_OP_ADD;
			ops[i].flags = WT_ABSTIME;
			ops[i].deadline = first + (done + i) * step;
		}
		r = wt_batch(fd, ops, k);
		if (r != (int)k)
			return -1;
		done += k;
	}
	return 0;
}

TEST_F(virt, one_advance_that_fires_adds_exactly_one_to_the_eventfd)
{
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	struct wt_event ev[256];
	int n;

	if (self->fd < 0)
		return;
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, wt_set_eventfd(self->fd, efd));
	/* 200 at one instant, 1000 at as many ticks, 1000 at one more. */
	ASSERT_EQ(0, add_spread(self->fd, 200, 10 * MSEC, 0));
	ASSERT_EQ(0, add_spread(self->fd, 1000, 100 * MSEC, RES));
	ASSERT_EQ(0, add_spread(self->fd, 1000, 2000 * MSEC, 0));

	EXPECT_EQ(0, wt_advance(self->fd, 5 * MSEC));
	EXPECT_EQ(0, eventfd_take(efd)) TH_LOG("signalled with nothing fired");
	EXPECT_EQ(200, wt_advance(self->fd, 5 * MSEC));
	EXPECT_EQ(1, eventfd_take(efd));
	EXPECT_EQ(1000, wt_advance(self->fd, 1500 * MSEC));
	EXPECT_EQ(1, eventfd_take(efd)) TH_LOG("1000 fired over 1000 ticks");
	EXPECT_EQ(1000, wt_advance(self->fd, 500 * MSEC));
	EXPECT_EQ(1, eventfd_take(efd)) TH_LOG("1000 fired at one tick");
	EXPECT_EQ(0, wt_advance(self->fd, 500 * MSEC));
	EXPECT_EQ(0, eventfd_take(efd));
	/* Registered again while records wait: one more. */
	ASSERT_EQ(0, wt_set_eventfd(self->fd, efd));
	EXPECT_EQ(1, eventfd_take(efd));
	/* Reading the records signals nothing. */
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	while ((n = wt_read(self->fd, ev, 256)) > 0)
		;
	EXPECT_EQ(-EAGAIN, n);
	EXPECT_EQ(0, eventfd_take(efd));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
	close(efd);
}

/*
 * One timeout a day away, the virtual clock moved through the day a
 * minute at a time while a reader waits: the reader wakes once and the
 * eventfd counts one, however many levels of the wheel the timeout comes
 * down (an ADVANCE signals only when something fired).
 */
TEST_F_TIMEOUT(virt, a_timeout_a_day_away_wakes_its_waiter_once, 120)
{
	const __u64 day = 24 * 3600 * SEC;
	struct wt_waiter w;
	__u64 id, t, count;
	pthread_t th;
	int efd;

	if (self->fd < 0)
		return;
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, wt_set_eventfd(self->fd, efd));
	ASSERT_EQ(0, wt_add(self->fd, day, &id));
	ASSERT_EQ(0, wt_start_waiter(&w, self->fd, &th));
	for (t = 60 * SEC; t < day; t += 60 * SEC)
		ASSERT_EQ(0, wt_advance(self->fd, 60 * SEC));
	ASSERT_EQ(1, wt_advance(self->fd, 60 * SEC));
	ASSERT_EQ(0, pthread_join(th, NULL));
	count = eventfd_take(efd);
	ksft_print_msg("a day away: %llu wake-ups of the waiter, %llu eventfd increments\n",
		       w.sleeps, count);
	EXPECT_EQ(1, w.n);
	EXPECT_EQ(id, w.ev.id);
	EXPECT_EQ(day, w.ev.fired_at);
	EXPECT_EQ(1, w.sleeps);
	EXPECT_EQ(1, count);
	close(efd);
}

TEST_F(virt, the_last_tick_below_ktime_max_fires_and_the_part_after_it_is_refused)
{
	const __u64 last = WT_KTIME_MAX / RES * RES;
	__u64 id, moved, slacked;
	struct wt_event ev[4];
	int r, n;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	/* A deadline in the last partial tick could never fire. */
	r = wt_add_abs(self->fd, WT_KTIME_MAX, &id);
	EXPECT_EQ(-ERANGE, r);
	/* The last whole tick, by ADD, by MODIFY, and with slack. */
	ASSERT_EQ(0, wt_add_abs(self->fd, last, &id));
	ASSERT_EQ(0, wt_add(self->fd, SEC, &moved));
	ASSERT_EQ(WT_STATUS_PENDING,
		  wt_modify(self->fd, moved, WT_ABSTIME, last, 0));
	EXPECT_EQ(-ERANGE, wt_modify(self->fd, moved, WT_ABSTIME,
				     WT_KTIME_MAX, 0));
	/* Slack never moves a timeout past the last tick. */
	ASSERT_EQ(0, wt_add_full(self->fd, WT_ABSTIME, last - RES, 0,
				 10 * SEC, 0, &slacked));

	n = wt_set_clock(self->fd, WT_KTIME_MAX);
	EXPECT_EQ(3, n);
	n = wt_read(self->fd, ev, 4);
	EXPECT_EQ(3, n);
	ksft_print_msg("%d fired at KTIME_MAX; still live: %llu\n", n,
		       (unsigned long long)wt_fdinfo(self->fd, "live"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "pending"));
}

TEST_F(virt, a_periodic_timeout_whose_next_deadline_is_in_the_last_partial_tick_ends)
{
	const __u64 last = WT_KTIME_MAX / RES * RES;
	const __u64 rest = WT_KTIME_MAX - last;	/* next: KTIME_MAX itself */
	struct wt_event ev[2];
	struct wt_query q;
	__u64 rate, delay;
	int i;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add_full(self->fd, WT_FIXED_RATE | WT_ABSTIME, last,
				 rest, 0, 1, &rate));
	ASSERT_EQ(0, wt_add_full(self->fd, WT_FIXED_DELAY | WT_ABSTIME, last,
				 rest, 0, 2, &delay));
	ASSERT_EQ(2, wt_set_clock(self->fd, last));
	ASSERT_EQ(2, wt_read(self->fd, ev, 2));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(last, ev[i].deadline);
		EXPECT_TRUE(ev[i].flags & WT_EVENT_FINAL)
			TH_LOG("cookie %llu: flags %#llx", ev[i].cookie,
			       ev[i].flags);
	}
	EXPECT_EQ(-ENOENT, wt_query(self->fd, rate, &q));
	EXPECT_EQ(-ENOENT, wt_query(self->fd, delay, &q));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
}

TEST_F(virt, many_due_at_the_same_instant_all_fire_at_it)
{
	enum { N = 100000, BATCH = 1024 };
	struct wt_op *ops = calloc(BATCH, sizeof(*ops));
	struct wt_event *ev = calloc(4096, sizeof(*ev));
	int i, n, got = 0;

	if (self->fd < 0)
		return;
	ASSERT_NE(NULL, ops);
	ASSERT_NE(NULL, ev);
	for (i = 0; i < N; i += n) {
		int j;

		n = N - i < BATCH ? N - i : BATCH;
		for (j = 0; j < n; j++) {
			ops[j].op = WT_OP_ADD;
			ops[j].flags = WT_ABSTIME;
			ops[j].deadline = 7 * MSEC + 1;
		}
		ASSERT_EQ(n, wt_batch(self->fd, ops, n));
	}
	/* Hundreds of batches inside one ADVANCE. */
	ASSERT_EQ(N, wt_advance(self->fd, 8 * MSEC));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	while ((n = wt_read(self->fd, ev, 4096)) > 0) {
		for (i = 0; i < n; i++)
			ASSERT_EQ(8 * MSEC, ev[i].fired_at);
		got += n;
	}
	EXPECT_EQ(N, got);
	free(ops);
	free(ev);
}

/* Each line of @text as a TAP comment. */
static void print_lines(const char *title, const char *text)
{
	const char *end;

	ksft_print_msg("%s\n", title);
	for (; *text; text = *end ? end + 1 : end) {
		end = strchrnul(text, '\n');
		ksft_print_msg("  %.*s\n", (int)(end - text), text);
	}
}

static void print_slab(void)
{
	char line[512];
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "wheeltimer") || line[0] == '#')
			ksft_print_msg("  %s", line);
	fclose(f);
}

TEST_F_TIMEOUT(virt, a_million_pending_all_fire_and_are_read_once, 900)
{
	enum { N = 1000000, BATCH = WT_BATCH_MAX, READ = 4096 };
	struct wt_op *ops = calloc(BATCH, sizeof(*ops));
	struct wt_event *ev = calloc(READ, sizeof(*ev));
	unsigned char *seen = calloc(N + 1, 1);
	char info[4096];
	__u64 got = 0, span = 600 * SEC;
	int i, j, n;

	if (self->fd < 0)
		return;
	ASSERT_NE(NULL, ops);
	ASSERT_NE(NULL, ev);
	ASSERT_NE(NULL, seen);
	ASSERT_EQ(0, wt_config(self->fd, RES, CLOCK_MONOTONIC,
			       WT_CONFIG_VIRTUAL, N));
	for (i = 0; i < N; i += n) {
		n = N - i < BATCH ? N - i : BATCH;
		for (j = 0; j < n; j++) {
			ops[j].op = WT_OP_ADD;
			ops[j].flags = WT_ABSTIME;
			ops[j].deadline = rnd() % span;
			ops[j].cookie = ops[j].deadline;
		}
		ASSERT_EQ(n, wt_batch(self->fd, ops, n));
	}
	/* The limit holds at a million. */
	ops[0].op = WT_OP_ADD;
	ASSERT_EQ(0, wt_batch(self->fd, ops, 1));
	EXPECT_EQ(ENOSPC, ops[0].error);

	wt_fdinfo_text(self->fd, info, sizeof(info));
	print_lines("fdinfo with a million timeouts pending:", info);
	ksft_print_msg("/proc/slabinfo with a million timeouts pending:\n");
	print_slab();
	EXPECT_EQ(N, wt_fdinfo(self->fd, "pending"));
	EXPECT_EQ(N, wt_fdinfo(self->fd, "live"));
	EXPECT_EQ(N, wt_fdinfo(self->fd, "added"));

	ASSERT_EQ(N, wt_advance(self->fd, span));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "pending"));
	EXPECT_EQ(N, wt_fdinfo(self->fd, "ready"));

	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	while ((n = wt_read(self->fd, ev, READ)) > 0) {
		for (i = 0; i < n; i++) {
			struct wt_event *e = &ev[i];

			ASSERT_GE(N, e->id);
			ASSERT_EQ(0, seen[e->id]);
			seen[e->id] = 1;
			ASSERT_EQ(e->cookie, e->deadline);
			ASSERT_LE(e->deadline, e->fired_at);
			ASSERT_GT(e->deadline + RES, e->fired_at);
		}
		got += n;
	}
	EXPECT_EQ(-EAGAIN, n);
	EXPECT_EQ(N, got);
	wt_fdinfo_text(self->fd, info, sizeof(info));
	print_lines("fdinfo after reading them all:", info);
	EXPECT_EQ(N, wt_fdinfo(self->fd, "fired"));
	EXPECT_EQ(N, wt_fdinfo(self->fd, "delivered"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "ready"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "cancelled"));
	free(ops);
	free(ev);
	free(seen);
}

TEST_HARNESS_MAIN
