// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * reap.c - reaping records, and waiting for them
 *
 * wheeltimer_reap() submits what is queued (so that a record is never
 * reaped for a timeout the caller has already cancelled or moved), hands
 * out the records the library made itself (failed operations, NOTIFY
 * outcomes), then reads the engine's, without blocking. An engine record
 * names its handle in its cookie; the caller's cookie replaces it, and a
 * final record releases the handle. A record whose handle is not the live
 * one it names (which the rules above should make impossible) is dropped
 * and counted ("lib_dropped").
 *
 * wheeltimer_wait() is submit, reap, and poll() on the context's
 * descriptor until a record comes or the timeout passes. A wake-up with
 * nothing to reap (a slot that only cascaded) just polls again.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* Engine records read per read call. */
#define WTL_READ_CHUNK		256U

int wtl_lq_reserve(struct wheeltimer *wt, uint32_t n)
{
	struct wheeltimer_event *lq;
	uint32_t cap = wt->lq_cap ? wt->lq_cap : 16, i;

	if (wt->lq_cap - wt->lq_len >= n)
		return 0;
	while (cap - wt->lq_len < n) {
		if (cap > UINT32_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	lq = malloc((size_t)cap * sizeof(*lq));
	if (!lq)
		return -ENOMEM;
	/* Unwrap the ring into the new array. */
	for (i = 0; i < wt->lq_len; i++)
		lq[i] = wt->lq[(wt->lq_head + i) & (wt->lq_cap - 1)];
	free(wt->lq);
	wt->lq = lq;
	wt->lq_cap = cap;
	wt->lq_head = 0;
	return 0;
}

void wtl_lq_push(struct wheeltimer *wt, const struct wheeltimer_event *ev)
{
	wt->lq[(wt->lq_head + wt->lq_len) & (wt->lq_cap - 1)] = *ev;
	wt->lq_len++;
}

/* Whether a library record is still due to its handle; releases it if final. */
static bool wtl_lq_deliver(struct wheeltimer *wt,
			   const struct wheeltimer_event *ev)
{
	struct wtl_handle *h = wtl_handle(wt, ev->handle);

	if (!h)
		return false;
	/* A failed add that was cancelled since: the EV_CANCEL replaces it. */
	if (ev->flags & WHEELTIMER_EV_ADD && h->state != WTL_H_FAILED)
		return false;
	if (ev->flags & WHEELTIMER_EV_FINAL)
		wtl_handle_release(wt, ev->handle);
	return true;
}

/* Turn the engine records at @evs, in place, into the caller's. */
static unsigned int wtl_convert(struct wheeltimer *wt,
				struct wheeltimer_event *evs, unsigned int n)
{
	struct wtl_handle *h;
	struct wt_event raw;
	unsigned int i, out = 0;

	for (i = 0; i < n; i++) {
		memcpy(&raw, &evs[i], sizeof(raw));
		h = wtl_handle(wt, raw.cookie);
		if (!h || h->kid != raw.id || (h->state != WTL_H_LIVE &&
					       h->state != WTL_H_CANCELLING)) {
			wt->cnt.dropped++;
			continue;
		}
		evs[out].handle = raw.cookie;
		evs[out].cookie = h->cookie;
		evs[out].deadline = raw.deadline;
		evs[out].fired_at = raw.fired_at;
		evs[out].overruns = raw.overruns;
		evs[out].flags = raw.flags & (WT_FIXED_RATE | WT_FIXED_DELAY |
					      WT_EVENT_FINAL);
		evs[out].res = 0;
		if (raw.flags & WT_EVENT_FINAL)
			wtl_handle_release(wt, raw.cookie);
		out++;
	}
	return out;
}

int wheeltimer_reap(struct wheeltimer *wt, struct wheeltimer_event *events,
		    unsigned int max)
{
	unsigned int n = 0, want;
	int ret;

	if (wt->q_len) {
		ret = wtl_submit(wt);
		if (ret < 0)
			return ret;
	}
	if (max > INT32_MAX)
		max = INT32_MAX;

	while (n < max && wt->lq_len) {
		events[n] = wt->lq[wt->lq_head];
		wt->lq_head = (wt->lq_head + 1) & (wt->lq_cap - 1);
		wt->lq_len--;
		if (wtl_lq_deliver(wt, &events[n]))
			n++;
	}

	while (n < max) {
		want = max - n < WTL_READ_CHUNK ? max - n : WTL_READ_CHUNK;
		ret = wt->engine->read(wt, &events[n], want);
		wt->cnt.reads++;
		if (ret < 0) {
			if (n)
				break;
			return ret;
		}
		n += wtl_convert(wt, &events[n], ret);
		if ((unsigned int)ret < want)
			break;
	}
	wt->cnt.reaped += n;
	return n;
}

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
