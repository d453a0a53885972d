// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * wake_test.c - wheeltimer_wake(): before a wait, during one, from a
 * signal handler, from other threads, and turns between wakes and records
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

#include "lib_test.h"

/*
 * wheeltimer_wake() before a wait: the next wait submits the queue and
 * returns -EINTR at once, whatever its timeout; any number of wakes make
 * one report; reap neither reports nor clears one; the descriptor does not
 * become readable.
 */
static void test_wake_before_wait(void)
{
	struct pollfd pfd = { .events = POLLIN };
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h, t0;
	int i;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_add(wt, 3600 * SEC, 0, 0, 1, &h), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(wheeltimer_wake(wt), 0);
	pfd.fd = wheeltimer_fd(wt);
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 60 * SEC), -EINTR);
	CHECK_EQ(wheeltimer_queued(wt), 0);
	CHECK_EQ(stat_of(wt, "live"), 1);

	/* Three wakes, one report: the next wait sleeps its whole timeout. */
	t0 = mono_ns();
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 20 * MS), 0);
	CHECK(mono_ns() - t0 >= 20 * MS);

	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_reap(wt, ev, 4), 0);
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 0), -EINTR);
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 0), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 0, 0), -EINVAL);
	CHECK_EQ(stat_of(wt, "live"), 1);
	wheeltimer_close(wt);
}

/* A wake is reported before records, and the records wait for the next call. */
static void test_wake_keeps_records(void)
{
	struct wheeltimer_event ev[8];
	struct wheeltimer *wt;
	uint64_t h;
	int i;

	CHECK_EQ(open_virtual(&wt), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(wheeltimer_add(wt, (i + 1) * MS, 0, 0, i, &h), 0);
	CHECK_EQ(advance_to(wt, 5 * MS), 3);
	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 9, &h), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 8, 60 * SEC), -EINTR);
	CHECK_EQ(wheeltimer_queued(wt), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 8, 60 * SEC), 3);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(ev[i].cookie, i);
		CHECK_EQ(ev[i].deadline, (i + 1) * MS);
		CHECK_EQ(ev[i].fired_at, (i + 1) * MS);
		CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FINAL);
	}
	CHECK_EQ(wheeltimer_wait(wt, ev, 8, 0), 0);
	CHECK_EQ(advance_to(wt, 6 * MS), 1);
	CHECK_EQ(wheeltimer_wait(wt, ev, 8, 60 * SEC), 1);
	CHECK_EQ(ev[0].handle, h);
	CHECK_EQ(ev[0].deadline, 6 * MS);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

/*
 * Wakes and records take turns: after a wait that reported a wake, the
 * next reaps first, and a wake that came meanwhile waits one call; with
 * nothing to reap, it is reported at once all the same.
 */
static void test_wake_turns(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h;
	int i;

	CHECK_EQ(open_virtual(&wt), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, i, &h), 0);
	CHECK_EQ(advance_to(wt, MS), 3);
	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), -EINTR);
	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), 1);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), -EINTR);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), 1);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), 1);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 0), 0);

	/* Nothing to reap: a wake right after a report is reported. */
	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 0), -EINTR);
	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), -EINTR);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

/* A thread blocked in wheeltimer_wait(), for the wake tests. */
struct waiter {
	struct wheeltimer *wt;
	int tid;
	int done;
	int res;
	uint64_t took;
};

static void *waiter_main(void *arg)
{
	struct wheeltimer_event ev[4];
	struct waiter *w = arg;
	uint64_t t0;

	__atomic_store_n(&w->tid, (int)gettid(), __ATOMIC_RELEASE);
	t0 = mono_ns();
	w->res = wheeltimer_wait(w->wt, ev, 4, 60 * SEC);
	w->took = mono_ns() - t0;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Whether thread @tid sleeps in ppoll(2), as /proc says. */
static bool in_ppoll(int tid)
{
	char path[64], buf[128], *end;
	long nr;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	/* The system call's number, then its arguments; "running" if none. */
	nr = strtol(buf, &end, 10);
	return end != buf && nr == SYS_ppoll;
}

static struct wheeltimer *wake_from_handler;

static void wake_handler(int sig)
{
	(void)sig;
	wheeltimer_wake(wake_from_handler);
}

/*
 * Start a waiter on @wt, see it asleep in ppoll(), wake it and return what
 * its wait returned. With @sig, the waiter starts with @sig blocked, as
 * this thread has it, and the wake comes from this thread's handler.
 */
static int wake_sleeper(struct wheeltimer *wt, const sigset_t *sig)
{
	struct timespec ms = { 0, MS };
	struct waiter w = { .wt = wt };
	uint64_t t0 = mono_ns();
	bool asleep = false;
	pthread_t t;
	int tid;

	CHECK_EQ(pthread_create(&t, NULL, waiter_main, &w), 0);
	if (sig)
		CHECK_EQ(pthread_sigmask(SIG_UNBLOCK, sig, NULL), 0);
	while (!asleep && !__atomic_load_n(&w.done, __ATOMIC_ACQUIRE) &&
	       mono_ns() - t0 < 30 * SEC) {
		tid = __atomic_load_n(&w.tid, __ATOMIC_ACQUIRE);
		asleep = tid && in_ppoll(tid);
		if (!asleep)
			nanosleep(&ms, NULL);
	}
	/* Asleep, and only the wake can end its wait before 60 s. */
	CHECK(asleep);
	CHECK(!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE));
	if (sig)
		CHECK_EQ(pthread_kill(pthread_self(), SIGUSR1), 0);
	else
		CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	/* Before its timeout: a wait whose timeout passed reports the wake too. */
	CHECK(w.took < 60 * SEC);
	return w.res;
}

/*
 * A thread asleep in wheeltimer_wait() with a timeout of 60 s and nothing
 * due for an hour is woken by another thread's wheeltimer_wake(), again
 * after a report, and by a signal handler's (the signal blocked in the
 * waiter, so that only the wake can end its wait).
 */
static void test_wake_sleeper(void)
{
	struct sigaction sa = { .sa_handler = wake_handler }, old_sa;
	struct wheeltimer_event ev[4];
	sigset_t usr1, old_mask;
	struct wheeltimer *wt;
	uint64_t h;
	int i;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_add(wt, 3600 * SEC, 0, 0, 1, &h), 0);
	for (i = 0; i < 2; i++)
		CHECK_EQ(wake_sleeper(wt, NULL), -EINTR);

	wake_from_handler = wt;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	CHECK_EQ(sigaction(SIGUSR1, &sa, &old_sa), 0);
	CHECK_EQ(pthread_sigmask(SIG_BLOCK, &usr1, &old_mask), 0);
	i = wake_sleeper(wt, &usr1);
	CHECK_EQ(pthread_sigmask(SIG_SETMASK, &old_mask, NULL), 0);
	CHECK_EQ(i, -EINTR);
	CHECK_EQ(sigaction(SIGUSR1, &old_sa, NULL), 0);

	/* Nothing was reaped or dropped on the way. */
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 0), 0);
	CHECK_EQ(stat_of(wt, "live"), 1);
	CHECK_EQ(stat_of(wt, "lib_handles"), 1);
	wheeltimer_close(wt);
}

/* Wakes N times, each after storing its number, pausing now and then. */
struct waker {
	struct wheeltimer *wt;
	unsigned int n;
	unsigned int seq;
	int err;
};

static void *waker_main(void *arg)
{
	struct timespec ts = { 0, 0 };
	struct waker *w = arg;
	unsigned int i;

	for (i = 1; i <= w->n && !w->err; i++) {
		__atomic_store_n(&w->seq, i, __ATOMIC_RELEASE);
		w->err = wheeltimer_wake(w->wt);
		if (i % 16 == 0) {
			ts.tv_nsec = (i * 7919 % 50) * US;
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

/*
 * One thread waits in a loop while another wakes it @n times; after each
 * -EINTR the waiter reads how far the waker got, until the last wake.
 * Without @period only wakes end its waits: a wake lost would leave it
 * asleep for its 60 s, which fails the test. With @period a FIXED_RATE
 * timeout fires every @period meanwhile, and every period must come as a
 * firing or an overrun, in order (a wake lost there would be found at the
 * next firing: the loop has a bound of minutes too). Returns the reports.
 */
static unsigned int wake_storm(struct wheeltimer *wt, unsigned int n,
			       uint64_t period)
{
	struct wheeltimer_event ev[16];
	struct waker w = { .wt = wt, .n = n };
	unsigned int seen = 0, reports = 0, firings = 0;
	uint64_t h = 0, next = 0, start, t0;
	pthread_t t;
	int r, i;

	CHECK_EQ(wheeltimer_now(wt, &start), 0);
	if (period) {
		next = start + period;
		CHECK_EQ(wheeltimer_add_periodic(wt, next, period, 0,
						 WHEELTIMER_ABSTIME |
						 WHEELTIMER_FIXED_RATE, 7, &h), 0);
	}
	CHECK_EQ(pthread_create(&t, NULL, waker_main, &w), 0);
	while (seen < n || (period && firings < 3)) {
		CHECK(mono_ns() - start < 300 * SEC);
		t0 = mono_ns();
		r = wheeltimer_wait(wt, ev, 16, 60 * SEC);
		/* A wake, or a firing, ended it: not its timeout. */
		CHECK(mono_ns() - t0 < 60 * SEC);
		if (r == -EINTR) {
			reports++;
			seen = __atomic_load_n(&w.seq, __ATOMIC_ACQUIRE);
			continue;
		}
		CHECK(period && r > 0);
		for (i = 0; i < r; i++) {
			CHECK_EQ(ev[i].handle, h);
			CHECK_EQ(ev[i].deadline, next);
			CHECK(ev[i].fired_at >= next);
			CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FIXED_RATE);
			next += (ev[i].overruns + 1) * period;
			firings++;
		}
	}
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(w.err, 0);
	printf("# %u wakes, %u reports, %u firings\n", n, reports, firings);
	CHECK(reports >= 1 && reports <= n);
	if (period)
		CHECK_EQ(wheeltimer_cancel(wt, h, 0), 0);
	return reports;
}

/*
 * Wait for 5 firings of a FIXED_RATE timeout of 2 ms on @wt, woken before
 * every wait if @wake_each (else by whatever else wakes it), within two
 * minutes: every period must come as a firing or an overrun, in order.
 * Returns the waits that reported a wake.
 */
static unsigned int five_firings(struct wheeltimer *wt, bool wake_each)
{
	struct wheeltimer_event ev[16];
	unsigned int reports = 0, firings = 0;
	uint64_t h, next, start;
	int r, i;

	CHECK_EQ(wheeltimer_now(wt, &start), 0);
	next = start + 2 * MS;
	CHECK_EQ(wheeltimer_add_periodic(wt, next, 2 * MS, 0,
					 WHEELTIMER_ABSTIME |
					 WHEELTIMER_FIXED_RATE, 7, &h), 0);
	while (firings < 5 && mono_ns() - start < 120 * SEC) {
		if (wake_each)
			CHECK_EQ(wheeltimer_wake(wt), 0);
		r = wheeltimer_wait(wt, ev, 16, 60 * SEC);
		if (r == -EINTR) {
			reports++;
			continue;
		}
		CHECK(r > 0);
		for (i = 0; i < r; i++) {
			CHECK_EQ(ev[i].handle, h);
			CHECK_EQ(ev[i].deadline, next);
			CHECK(ev[i].fired_at >= next);
			next += (ev[i].overruns + 1) * 2 * MS;
			firings++;
		}
	}
	CHECK(firings >= 5);
	CHECK_EQ(wheeltimer_cancel(wt, h, 0), 0);
	return reports;
}

/* Wakes as fast as it can until told to stop. */
struct spinner {
	struct wheeltimer *wt;
	int stop;
	int err;
	unsigned long wakes;
};

static void *spinner_main(void *arg)
{
	struct spinner *sp = arg;

	while (!__atomic_load_n(&sp->stop, __ATOMIC_ACQUIRE) && !sp->err) {
		sp->err = wheeltimer_wake(sp->wt);
		sp->wakes++;
	}
	return NULL;
}

/*
 * A thread woken again and again still reaps: woken before each of its
 * waits (which would starve it of records if wakes always came first),
 * then by another thread that wakes without pause.
 */
static void test_wake_no_starvation(void)
{
	struct spinner sp = { 0 };
	unsigned int reports;
	pthread_t t;

	CHECK_EQ(open_ctx(&sp.wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	reports = five_firings(sp.wt, true);
	printf("# woken before each wait: %u reports\n", reports);
	CHECK(reports >= 5);

	CHECK_EQ(pthread_create(&t, NULL, spinner_main, &sp), 0);
	reports = five_firings(sp.wt, false);
	__atomic_store_n(&sp.stop, 1, __ATOMIC_RELEASE);
	CHECK_EQ(pthread_join(t, NULL), 0);
	printf("# woken by another thread without pause: %lu wakes, %u reports\n",
	       sp.wakes, reports);
	CHECK_EQ(sp.err, 0);
	wheeltimer_close(sp.wt);
}

/* No wake is lost, whatever the timing; nor any firing. */
static void test_wake_race(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h;
	int r;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_add(wt, 3600 * SEC, 0, 0, 1, &h), 0);
	wake_storm(wt, 3000, 0);
	wake_storm(wt, 3000, 2 * MS);
	/*
	 * All reported: nothing is left for the next wait but, at most, the
	 * last wake, when it came after the report that let the waiter read
	 * the waker's count; wakes coalesce, so one report covers it.
	 */
	r = wheeltimer_wait(wt, ev, 4, 0);
	if (r == -EINTR)
		r = wheeltimer_wait(wt, ev, 4, 0);
	CHECK_EQ(r, 0);
	CHECK_EQ(stat_of(wt, "live"), 1);
	wheeltimer_close(wt);
}

const struct tap_test wake_tests[] = {
	{ "wake_before_wait", test_wake_before_wait },
	{ "wake_keeps_records", test_wake_keeps_records },
	{ "wake_turns", test_wake_turns },
	{ "wake_sleeper", test_wake_sleeper },
	{ "wake_no_starvation", test_wake_no_starvation },
	{ "wake_race", test_wake_race },
	{ NULL, NULL },
};
