// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * reap.c - reaping records
 *
 * wheeltimer_reap() submits what is queued (so that a record is never
 * reaped for a timeout the caller has already cancelled or moved), hands
 * out the records the library made itself (failed operations, NOTIFY
 * outcomes), then reads the engine's, without blocking. An engine record
 * names its handle in its id, and carries the caller's cookie; a final
 * record releases the handle. A record whose handle is not the live one it
 * names (which the rules above make impossible for the records it reads
 * itself) is dropped and counted ("lib_dropped").
 *
 * wheeltimer_reap_buffer() takes engine records the caller read itself,
 * through io_uring for instance, and converts them the same way. Those
 * that do not fit in the caller's array are kept in the engine's format
 * and converted when they are handed out, by the next reap of either
 * kind: until then they are in the state they would be in inside the
 * engine, so that a cancel made meanwhile drops them as it would have
 * withdrawn them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Engine records read per read call. */
#define WTL_READ_CHUNK		256U

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
		wtl_handle_release(wt, h, ev->handle);
	return true;
}

/*
 * Turn the engine record at @rawp (unaligned use allowed) into the
 * caller's @out, which may be the same place; a final one releases its
 * handle. A record that no live handle of the context names is one whose
 * handle was cancelled after the caller read it for
 * wheeltimer_reap_buffer() (the cancel withdrew it), which is dropped:
 * returns false. But on a shared file (wheeltimer_open_fd()), it may be
 * another context's: it is handed out as foreign, with the engine's
 * cookie and no handle.
 */
static inline bool wtl_convert(struct wheeltimer *wt, const void *rawp,
			       struct wheeltimer_event *out)
{
	const char *raw = rawp;
	struct wtl_handle *h;
	uint64_t id, flags;

	memcpy(&id, raw + offsetof(struct wt_event, id), sizeof(id));
	memcpy(&flags, raw + offsetof(struct wt_event, flags), sizeof(flags));
	flags &= WT_FIXED_RATE | WT_FIXED_DELAY | WT_EVENT_FINAL;
	h = wtl_handle(wt, id);
	if (!h || (h->state != WTL_H_LIVE && h->state != WTL_H_CANCELLING)) {
		if (!wt->shared) {
			wt->cnt.dropped++;
			return false;
		}
		wt->cnt.foreign++;
		id = WHEELTIMER_HANDLE_NONE;
		flags |= WHEELTIMER_EV_FOREIGN;
	} else if (flags & WT_EVENT_FINAL) {
		wtl_handle_release(wt, h, id);
	}
	/* Both records are the same but for these (see open.c). */
	if ((const void *)out != rawp)
		memmove(out, rawp, sizeof(*out));
	out->handle = id;
	out->flags = flags;
	out->res = 0;
	return true;
}

/* Hand out up to @max of the records wheeltimer_reap_buffer() kept. */
static unsigned int wtl_rq_reap(struct wheeltimer *wt,
				struct wheeltimer_event *events,
				unsigned int max)
{
	unsigned int n = 0;

	while (n < max && wt->rq_head < wt->rq_len) {
		if (wtl_convert(wt, &wt->rq[wt->rq_head], &events[n]))
			n++;
		wt->rq_head++;
	}
	if (wt->rq_head == wt->rq_len) {
		wt->rq_head = 0;
		wt->rq_len = 0;
	}
	return n;
}

/* Keep the @n engine records at @raw for a later reap. */
static int wtl_rq_keep(struct wheeltimer *wt, const void *raw, uint32_t n)
{
	uint32_t waiting = wt->rq_len - wt->rq_head, cap;
	struct wt_event *rq;

	if (wt->rq_head) {
		memmove(wt->rq, &wt->rq[wt->rq_head], waiting * sizeof(*rq));
		wt->rq_head = 0;
		wt->rq_len = waiting;
	}
	if (wt->rq_cap - waiting < n) {
		cap = wt->rq_cap ? wt->rq_cap : 64;
		while (cap - waiting < n) {
			if (cap > UINT32_MAX / 2)
				return -ENOMEM;
			cap *= 2;
		}
		rq = realloc(wt->rq, (size_t)cap * sizeof(*rq));
		if (!rq)
			return -ENOMEM;
		wt->rq = rq;
		wt->rq_cap = cap;
	}
	memcpy(&wt->rq[wt->rq_len], raw, (size_t)n * sizeof(*rq));
	wt->rq_len += n;
	return 0;
}

/* Hand out up to @max of the records the library made. */
static unsigned int wtl_lq_reap(struct wheeltimer *wt,
				struct wheeltimer_event *events,
				unsigned int max)
{
	unsigned int n = 0;

	while (n < max && wt->lq_len) {
		events[n] = wt->lq[wt->lq_head];
		wt->lq_head = (wt->lq_head + 1) & (wt->lq_cap - 1);
		wt->lq_len--;
		if (wtl_lq_deliver(wt, &events[n]))
			n++;
	}
	return n;
}

/*
 * Records that left the engine before the queue was submitted go first:
 * those wheeltimer_reap_buffer() kept. Their timeouts fired before any
 * queued cancel or modify reached the engine, so they are handed out
 * before that operation's answer can take their handle away (a cancel
 * without NOTIFY has already released it: its records are dropped).
 */
int wheeltimer_reap(struct wheeltimer *wt, struct wheeltimer_event *events,
		    unsigned int max)
{
	unsigned int n, want, i, base;
	int ret;

	if (max > INT32_MAX)
		max = INT32_MAX;
	n = wtl_rq_reap(wt, events, max);
	if (wt->q_len) {
		ret = wtl_submit(wt);
		if (ret < 0)
			return n ? (int)n : ret;
	}
	n += wtl_lq_reap(wt, &events[n], max - n);

	while (n < max) {
		want = max - n < WTL_READ_CHUNK ? max - n : WTL_READ_CHUNK;
		ret = wt->engine->read(wt, &events[n], want);
		wt->cnt.reads++;
		if (ret < 0) {
			if (n)
				break;
			return ret;
		}
		base = n;
		for (i = 0; i < (unsigned int)ret; i++)
			if (wtl_convert(wt, &events[base + i], &events[n]))
				n++;
		if ((unsigned int)ret < want)
			break;
	}
	wt->cnt.reaped += n;
	return n;
}

int wheeltimer_reap_buffer(struct wheeltimer *wt, const void *buf, size_t len,
			   struct wheeltimer_event *events, unsigned int max)
{
	const size_t size = sizeof(struct wt_event);
	const char *raw = buf;
	unsigned int n;
	size_t nr, i;
	int ret;

	if (wt->engine->id != WHEELTIMER_ENGINE_KERNEL)
		return -WHEELTIMER_EFEATURE;
	if (len % size || (len && !buf))
		return -EINVAL;
	nr = len / size;
	if (nr > UINT32_MAX - wt->rq_len)
		return -ENOMEM;
	if (max > INT32_MAX)
		max = INT32_MAX;

	n = wtl_rq_reap(wt, events, max);
	for (i = 0; i < nr && n < max; i++)
		if (wtl_convert(wt, raw + i * size, &events[n]))
			n++;
	wt->cnt.buffered += nr;
	if (i < nr) {
		ret = wtl_rq_keep(wt, raw + i * size, nr - i);
		if (ret)
			return ret;
	}
	if (wt->q_len) {
		ret = wtl_submit(wt);
		if (ret < 0 && !n)
			return ret;
	}
	n += wtl_lq_reap(wt, &events[n], max - n);
	wt->cnt.reaped += n;
	return n;
}
