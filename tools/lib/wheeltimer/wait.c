// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * wait.c - waiting for records, and waking a thread that waits
 *
 * wheeltimer_wait() is submit, reap, and ppoll() on the context's
 * descriptor and its wake-up eventfd until a record comes, the timeout
 * passes or wheeltimer_wake() is called. A wake-up with nothing to reap
 * (the timer was armed for a timeout cancelled since) just polls again.
 *
 * wheeltimer_wake() is the library's one call that any thread, or a signal
 * handler, may make on a context that another thread is using. It touches
 * two things only, both set up at open and left alone until close: the flag
 * @woken, which it sets with an atomic exchange, and, when the flag was
 * clear, the eventfd @wake_fd, which it writes. Any number of wakes between
 * two waits so cost one write, and a wait looks for one with a load, not a
 * system call. An exchange and a write(2) are async-signal-safe, and errno
 * is kept as it was.
 *
 * The wait that finds @woken set submits the queue (as it does before any
 * return), clears the flag, then empties the eventfd, and returns -EINTR
 * without reaping: a wake is reported before records, so that a caller who
 * looks for what it was woken for only on -EINTR finds it at once; the
 * records are still there for the next call. A submit that fails is
 * returned instead, and the wake stays for the next wait.
 *
 * Turns. Were wakes always first, a thread woken again and again (by
 * producers that each queue work and wake it) would get -EINTR from every
 * wait and never reap. So the wait after one that reported a wake reaps
 * first: records that are ready are returned, and a wake that came
 * meanwhile is reported by the next call (or by this one, if nothing is
 * ready). Neither wakes nor records are held back for more than one call.
 *
 * No wake is lost. The wait clears the flag, then empties the eventfd: a
 * wake whose exchange comes after the clear sets the flag again, and the
 * next wait reports it at once even if the emptying took its write. A
 * write that comes after the emptying (its waker paused between its
 * exchange and its write, whose wake was reported meanwhile) leaves a
 * count with the flag clear: a ppoll() it ends finds the flag clear,
 * empties the eventfd and polls again, so it costs a turn of the loop,
 * never a return.
 */
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* An atomic exchange on it is lock-free, hence async-signal-safe. */
static_assert(__atomic_always_lock_free(sizeof(int), 0),
	      "wheeltimer_wake() needs a lock-free int");

int wtl_wake_open(struct wheeltimer *wt)
{
	wt->woken = 0;
	wt->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return wt->wake_fd < 0 ? -errno : 0;
}

void wtl_wake_close(struct wheeltimer *wt)
{
	if (wt->wake_fd >= 0)
		close(wt->wake_fd);
	wt->wake_fd = -1;
}

int wheeltimer_wake(struct wheeltimer *wt)
{
	const uint64_t one = 1;
	int saved = errno, ret = 0;

	if (__atomic_exchange_n(&wt->woken, 1, __ATOMIC_SEQ_CST))
		return 0;
	/* EAGAIN: the count is at its maximum, readable all the same. */
	if (write(wt->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		ret = -errno;
	errno = saved;
	return ret;
}

static void wtl_wake_drain(struct wheeltimer *wt)
{
	uint64_t count;
	ssize_t n;

	/* EAGAIN when it was empty already. */
	n = read(wt->wake_fd, &count, sizeof(count));
	(void)n;
}

/* Whether a wake came since the last one a wait reported. */
static bool wtl_woken(const struct wheeltimer *wt)
{
	return __atomic_load_n(&wt->woken, __ATOMIC_ACQUIRE);
}

/*
 * Take the wake, to report it: the flag first, then the eventfd. The
 * barrier between the clear and whatever the caller reads next pairs with
 * the waker's exchange: a waker whose exchange still found the flag set,
 * and so wrote nothing, made its stores before it, and they are seen.
 */
static void wtl_wake_take(struct wheeltimer *wt)
{
	__atomic_store_n(&wt->woken, 0, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	wtl_wake_drain(wt);
}

static int64_t wtl_mono_ns(void)
{
	return (int64_t)wtl_clock_ns(CLOCK_MONOTONIC);
}

/* Report the wake: submit, take it, and let records have the next turn. */
static int wtl_report_wake(struct wheeltimer *wt)
{
	int ret = wtl_submit(wt);

	if (ret < 0)
		return ret;
	wtl_wake_take(wt);
	wt->wake_reported = true;
	return -EINTR;
}

int wheeltimer_wait(struct wheeltimer *wt, struct wheeltimer_event *events,
		    unsigned int max, int64_t timeout_ns)
{
	struct pollfd pfd[2] = {
		{ .fd = wt->fd, .events = POLLIN },
		{ .fd = wt->wake_fd, .events = POLLIN },
	};
	int64_t end = 0, left;
	bool records_first;
	struct timespec ts;
	int ret;

	if (!max)
		return -EINVAL;
	if (timeout_ns > 0)
		end = wtl_mono_ns() + timeout_ns;
	records_first = wt->wake_reported;
	wt->wake_reported = false;
	for (;;) {
		if (!records_first && wtl_woken(wt))
			return wtl_report_wake(wt);
		records_first = false;
		ret = wheeltimer_reap(wt, events, max);
		if (ret)
			return ret;
		/* Nothing ready: a wake's turn now, even after a report. */
		if (wtl_woken(wt))
			continue;
		if (!timeout_ns)
			return 0;
		if (timeout_ns > 0) {
			left = end - wtl_mono_ns();
			if (left <= 0)
				return 0;
			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
		}
		ret = ppoll(pfd, 2, timeout_ns > 0 ? &ts : NULL, NULL);
		if (ret < 0)
			return -errno;
		/* A wake's write, or a stale one (see above): the flag decides. */
		if (pfd[1].revents)
			wtl_wake_drain(wt);
	}
}
