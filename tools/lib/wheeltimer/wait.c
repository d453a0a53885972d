// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * wait.c - waiting for records
 *
 * wheeltimer_wait() is submit, reap, and poll() on the context's
 * descriptor until a record comes or the timeout passes. A wake-up with
 * nothing to reap (a slot that only cascaded) just polls again.
 */
#include <errno.h>
#include <poll.h>
#include <time.h>

#include "internal.h"

static int64_t wtl_mono_ns(void)
{
	return (int64_t)wtl_clock_ns(CLOCK_MONOTONIC);
}

int wheeltimer_wait(struct wheeltimer *wt, struct wheeltimer_event *events,
		    unsigned int max, int64_t timeout_ns)
{
	struct pollfd pfd = { .fd = wt->fd, .events = POLLIN };
	int64_t end = 0, left;
	struct timespec ts;
	int ret;

	if (!max)
		return -EINVAL;
	if (timeout_ns > 0)
		end = wtl_mono_ns() + timeout_ns;
	for (;;) {
		ret = wheeltimer_reap(wt, events, max);
		if (ret || !timeout_ns)
			return ret;
		if (timeout_ns > 0) {
			left = end - wtl_mono_ns();
			if (left <= 0)
				return 0;
			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
		}
		ret = ppoll(&pfd, 1, timeout_ns > 0 ? &ts : NULL, NULL);
		if (ret < 0)
			return -errno;
	}
}
