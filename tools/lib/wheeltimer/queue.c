// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * queue.c - preparing and submitting: the queue of operations, what
 * becomes of each once the engine has answered, and the ring of the
 * records the library makes itself
 *
 * wheeltimer_add() takes a handle, an id leased from the engine
 * (handles.c), and queues a WT_OP_ADD that gives the timeout that id
 * (WT_LEASED_ID) and the caller's cookie: every operation and every record
 * names the handle itself. Nothing reaches the engine until
 * wheeltimer_submit(), which the library also calls by itself when the
 * queue is full. Both engines take the queue the same way, in batches of
 * struct wt_op: the kernel's in WT_IOC_BATCH, the in-process engine's in
 * the module's own wt_core_apply().
 *
 * The state machine. A handle is LIVE from its add until it is released
 * (a final record reaped, or a cancel without NOTIFY), FAILED once its add
 * has failed (its EV_ADD record waits), CANCELLING after a cancel with
 * NOTIFY (its EV_CANCEL record waits), or FREE. A LIVE handle has at most
 * one operation in the queue: @link is its position, which counts only
 * while the operation there still names the handle (wtl_queued()), so
 * that a submit, which empties the queue, needs no pass over the handles.
 * A second operation on a handle is folded into the first, without a
 * system call:
 *
 *	queued	then		becomes
 *	ADD	modify		the ADD, with the new deadline and slack
 *	ADD	cancel		a hole: the engine never sees either
 *	MODIFY	modify		the MODIFY, with the new deadline and slack
 *	MODIFY	cancel		a CANCEL
 *
 * Holes are squeezed out when the queue is submitted; the order of the
 * other operations is kept, so that a cancel that frees room in the
 * engine goes before the adds queued after it.
 *
 * Answers. An operation that succeeds without NOTIFY needs no answer: the
 * engine holds its handle's id, as the handle says. So the answers are
 * looked at only when a batch had a failure or the queue held a NOTIFY:
 * an add's failure becomes a record with WHEELTIMER_EV_ADD (the handle
 * lives until that record is reaped); a modify's failure, or its outcome
 * if NOTIFY was asked, a record with WHEELTIMER_EV_MODIFY; a cancel's
 * outcome, with NOTIFY, a record with WHEELTIMER_EV_CANCEL. Without NOTIFY
 * a cancelled handle is released at once: its index may be handed out
 * again, with a new generation, to an add queued after the CANCEL, which
 * reaches the engine first.
 *
 * The records the library makes wait in a ring (@lq), reaped before the
 * engine's (reap.c). Room for one per queued operation is made before a
 * submit, and before a NOTIFY is queued, so that no answer is lost.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static_assert(!(WTL_HF_NOTIFY & WTL_HF_KIND), "handle flags apart");

/* ------------------------------------------------- the ring of records */

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

/* Push a record the library makes for @handle, in room reserved before. */
static void wtl_notify(struct wheeltimer *wt, uint64_t handle,
		       const struct wtl_handle *h, uint32_t flags, int res)
{
	struct wheeltimer_event *ev;

	ev = &wt->lq[(wt->lq_head + wt->lq_len) & (wt->lq_cap - 1)];
	memset(ev, 0, sizeof(*ev));
	ev->handle = handle;
	ev->cookie = h->cookie;
	ev->flags = flags;
	ev->res = res;
	wt->lq_len++;
}

/* ----------------------------------------------------------- the queue */

/* Squeeze the holes out of the queue, keeping the order. */
void wtl_queue_compact(struct wheeltimer *wt)
{
	struct wtl_handle *h;
	uint32_t i, n = 0;

	for (i = 0; i < wt->q_len; i++) {
		if (!wt->q_ops[i].op)
			continue;
		if (i != n) {
			wt->q_ops[n] = wt->q_ops[i];
			h = wtl_handle(wt, wt->q_ops[n].id);
			if (h && h->link == i)
				h->link = n;
		}
		n++;
	}
	wt->q_len = n;
	wt->q_holes = 0;
}

/*
 * A free place at the end of the queue. A full queue is squeezed if it
 * has holes, and submitted only if it is full of operations, so that
 * every batch call carries a full queue.
 */
static inline int wtl_queue_slot(struct wheeltimer *wt, uint32_t *qidx)
{
	int ret;

	if (__builtin_expect(wt->q_len == wt->q_cap, 0)) {
		if (wt->q_holes) {
			wtl_queue_compact(wt);
		} else {
			ret = wtl_submit(wt);
			if (ret < 0)
				return ret;
			wt->cnt.auto_submits++;
		}
	}
	*qidx = wt->q_len++;
	return 0;
}

/* The operation of the handle @handle (@h) still in the queue, or NULL. */
static inline struct wt_op *wtl_queued(const struct wheeltimer *wt,
				       const struct wtl_handle *h,
				       uint64_t handle)
{
	struct wt_op *op;

	if (h->link >= wt->q_len)
		return NULL;
	op = &wt->q_ops[h->link];
	return op->id == handle ? op : NULL;
}

/* Take the queued @op out, leaving a hole that names no handle. */
static void wtl_queue_hole(struct wheeltimer *wt, struct wt_op *op)
{
	op->op = 0;
	op->id = 0;
	wt->q_holes++;
}

/* ---------------------------------------------------------- operations */

/* Queue the add of a new handle, for which there is room. */
static inline void wtl_add_queue(struct wheeltimer *wt, uint64_t deadline,
				 uint64_t period, uint64_t slack, uint32_t flags,
				 uint64_t cookie, uint64_t *handle)
{
	uint32_t qidx = wt->q_len++;
	uint64_t id = wtl_handle_take(wt);
	struct wtl_handle *h = wtl_handle_at(wt, id);
	struct wt_op *op = &wt->q_ops[qidx];

	h->cookie = cookie;
	h->link = qidx;
	h->state = WTL_H_LIVE;
	h->hflags = flags & WTL_HF_KIND;
	h->error = 0;
	op->op = WT_OP_ADD;
	op->reserved = 0;
	op->flags = flags | WT_LEASED_ID;
	op->id = id;
	op->deadline = deadline;
	op->period = period;
	op->slack = slack;
	op->cookie = cookie;
	*handle = id;
}

/* Whether the deadline and slack of an add may be queued as they are. */
static inline int wtl_add_check(const struct wheeltimer *wt,
				uint64_t deadline, uint64_t slack)
{
	if (slack > WTL_TIME_MAX)
		return -EINVAL;
	if (deadline > WTL_TIME_MAX)
		return -ERANGE;
	if (slack && !(wt->features & WT_FEATURE_SLACK))
		return -WHEELTIMER_EFEATURE;
	return 0;
}

/*
 * Room for an add: a place in the queue (wtl_queue_slot()), then a free
 * handle, leasing a block from the engine when none is left.
 */
static int wtl_add_room(struct wheeltimer *wt)
{
	uint32_t qidx;
	int ret;

	if (wt->q_len == wt->q_cap) {
		ret = wtl_queue_slot(wt, &qidx);
		if (ret)
			return ret;
		wt->q_len--;
	}
	return wt->handles.free ? 0 : wtl_handle_lease(wt);
}

static int wtl_add(struct wheeltimer *wt, uint64_t deadline, uint64_t period,
		   uint64_t slack, uint32_t flags, uint64_t cookie,
		   uint64_t *handle)
{
	int ret = wtl_add_check(wt, deadline, slack);

	if (!ret)
		ret = wtl_add_room(wt);
	if (!ret)
		wtl_add_queue(wt, deadline, period, slack, flags, cookie,
			      handle);
	return ret;
}

/* wtl_add() of a one-shot timeout, out of line (see wheeltimer_add()). */
static __attribute__((noinline)) int
wtl_add_oneshot(struct wheeltimer *wt, uint64_t deadline, uint64_t slack,
		uint32_t flags, uint64_t cookie, uint64_t *handle)
{
	return wtl_add(wt, deadline, 0, slack, flags, cookie, handle);
}

/*
 * The common add, room there already, needs no call: then no register is
 * saved either. Every other goes to wtl_add(), which makes room.
 */
int wheeltimer_add(struct wheeltimer *wt, uint64_t deadline, uint64_t slack,
		   uint32_t flags, uint64_t cookie, uint64_t *handle)
{
	if (flags & ~WHEELTIMER_ABSTIME)
		return -EINVAL;
	if (__builtin_expect(slack || deadline > WTL_TIME_MAX ||
			     wt->q_len == wt->q_cap || !wt->handles.free, 0))
		return wtl_add_oneshot(wt, deadline, slack, flags, cookie,
				       handle);
	wtl_add_queue(wt, deadline, 0, 0, flags, cookie, handle);
	return 0;
}

int wheeltimer_add_periodic(struct wheeltimer *wt, uint64_t deadline,
			    uint64_t period, uint64_t slack, uint32_t flags,
			    uint64_t cookie, uint64_t *handle)
{
	uint32_t kind = flags & (WHEELTIMER_FIXED_RATE | WHEELTIMER_FIXED_DELAY);

	if (flags & ~(WHEELTIMER_ABSTIME | WHEELTIMER_FIXED_RATE |
		      WHEELTIMER_FIXED_DELAY) ||
	    (kind != WHEELTIMER_FIXED_RATE && kind != WHEELTIMER_FIXED_DELAY) ||
	    !period || period > WTL_TIME_MAX)
		return -EINVAL;
	if (!(wt->features & WT_FEATURE_PERIODIC))
		return -WHEELTIMER_EFEATURE;
	return wtl_add(wt, deadline, period, slack, flags, cookie, handle);
}

/*
 * Fold a modify into the queued ADD or MODIFY @op of @handle; a NOTIFY is
 * answered at once for an add (the engine has not seen the timeout), by
 * the MODIFY's answer otherwise.
 */
static void wtl_modify_queued(struct wheeltimer *wt, uint64_t handle,
			      struct wtl_handle *h, struct wt_op *op,
			      uint64_t deadline, uint64_t slack, uint32_t flags)
{
	op->flags = (op->flags & ~(uint64_t)WT_ABSTIME) |
		    (flags & WHEELTIMER_ABSTIME);
	op->deadline = deadline;
	op->slack = slack;
	wt->cnt.queue_resolved++;
	if (!(flags & WHEELTIMER_NOTIFY))
		return;
	if (op->op == WT_OP_MODIFY) {
		h->hflags |= WTL_HF_NOTIFY;
		wt->q_notify = true;
		return;
	}
	wtl_notify(wt, handle, h,
		   WHEELTIMER_EV_MODIFY | WHEELTIMER_EV_UNSUBMITTED, 0);
}

int wheeltimer_modify(struct wheeltimer *wt, uint64_t handle,
		      uint64_t deadline, uint64_t slack, uint32_t flags)
{
	struct wtl_handle *h;
	struct wt_op *op;
	uint32_t qidx;
	int ret;

	if (flags & ~(WHEELTIMER_ABSTIME | WHEELTIMER_NOTIFY) ||
	    slack > WTL_TIME_MAX)
		return -EINVAL;
	if (deadline > WTL_TIME_MAX)
		return -ERANGE;
	if (slack && !(wt->features & WT_FEATURE_SLACK))
		return -WHEELTIMER_EFEATURE;
	h = wtl_handle(wt, handle);
	if (!h || h->state != WTL_H_LIVE)
		return -ENOENT;
	if (flags & WHEELTIMER_NOTIFY && wtl_lq_room(wt, 1))
		return -ENOMEM;
	op = wtl_queued(wt, h, handle);
	if (op) {
		wtl_modify_queued(wt, handle, h, op, deadline, slack, flags);
		return 0;
	}

	ret = wtl_queue_slot(wt, &qidx);
	if (ret)
		return ret;
	op = &wt->q_ops[qidx];
	memset(op, 0, sizeof(*op));
	op->op = WT_OP_MODIFY;
	op->id = handle;
	op->flags = flags & WHEELTIMER_ABSTIME;
	op->deadline = deadline;
	op->slack = slack;
	h->link = qidx;
	h->hflags &= ~WTL_HF_NOTIFY;
	if (flags & WHEELTIMER_NOTIFY) {
		h->hflags |= WTL_HF_NOTIFY;
		wt->q_notify = true;
	}
	return 0;
}

/*
 * A cancel the engine never hears of: the handle's add failed, or is
 * still queued (@op, which becomes a hole). @res and @flags are its
 * NOTIFY record's.
 */
static int wtl_cancel_unsent(struct wheeltimer *wt, uint64_t handle,
			     struct wtl_handle *h, uint32_t flags, int res)
{
	h->link = WTL_NOQ;
	if (!(flags & WHEELTIMER_NOTIFY)) {
		wtl_handle_release(wt, h, handle);
		return 0;
	}
	h->state = WTL_H_CANCELLING;
	wtl_notify(wt, handle, h, WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_FINAL |
		   (res ? 0 : WHEELTIMER_EV_UNSUBMITTED), res);
	return 0;
}

/*
 * The CANCEL of @handle (@h) goes in the queue at @op, its place; without
 * NOTIFY the handle is released now.
 */
static inline void wtl_cancel_queue(struct wheeltimer *wt, uint64_t handle,
				    struct wtl_handle *h, struct wt_op *op,
				    uint32_t flags)
{
	memset(op, 0, sizeof(*op));
	op->op = WT_OP_CANCEL;
	op->id = handle;
	if (!(flags & WHEELTIMER_NOTIFY)) {
		wtl_handle_release(wt, h, handle);
		return;
	}
	h->state = WTL_H_CANCELLING;
	h->hflags |= WTL_HF_NOTIFY;
	wt->q_notify = true;
}

static __attribute__((noinline)) int
wtl_cancel(struct wheeltimer *wt, uint64_t handle, uint32_t flags)
{
	struct wtl_handle *h;
	struct wt_op *op;
	uint32_t qidx;
	int ret;

	if (flags & ~WHEELTIMER_NOTIFY)
		return -EINVAL;
	h = wtl_handle(wt, handle);
	if (!h || h->state == WTL_H_CANCELLING)
		return -ENOENT;
	if (flags & WHEELTIMER_NOTIFY && wtl_lq_room(wt, 1))
		return -ENOMEM;
	/* A failed add: nothing is armed; its EV_ADD record is dropped. */
	if (h->state == WTL_H_FAILED)
		return wtl_cancel_unsent(wt, handle, h, flags, h->error);
	op = wtl_queued(wt, h, handle);
	if (op) {
		wt->cnt.queue_resolved++;
		if (op->op == WT_OP_ADD) {
			wtl_queue_hole(wt, op);
			return wtl_cancel_unsent(wt, handle, h, flags, 0);
		}
		/* The queued MODIFY becomes the CANCEL. */
	} else {
		ret = wtl_queue_slot(wt, &qidx);
		if (ret)
			return ret;
		op = &wt->q_ops[qidx];
		h->link = qidx;
	}
	wtl_cancel_queue(wt, handle, h, op, flags);
	return 0;
}

/*
 * The common cancel, of a live timeout with nothing queued, without
 * NOTIFY, the queue not full, needs no call; every other is wtl_cancel()'s.
 */
int wheeltimer_cancel(struct wheeltimer *wt, uint64_t handle, uint32_t flags)
{
	struct wtl_handle *h = wtl_handle(wt, handle);

	if (__builtin_expect(flags || !h || h->state != WTL_H_LIVE ||
			     wtl_queued(wt, h, handle) ||
			     wt->q_len == wt->q_cap, 0))
		return wtl_cancel(wt, handle, flags);
	wtl_cancel_queue(wt, handle, h, &wt->q_ops[wt->q_len++], flags);
	return 0;
}

int wheeltimer_error(const struct wheeltimer *wt, uint64_t handle)
{
	const struct wtl_handle *h = wtl_handle(wt, handle);

	return h ? h->error : -ENOENT;
}

unsigned int wheeltimer_queued(const struct wheeltimer *wt)
{
	return wt->q_len - wt->q_holes;
}

/* --------------------------------------------------------- the answers */

/*
 * What becomes of the submitted @op, at position @pos, once answered:
 * anything only if it failed or its handle waits for its outcome.
 */
static void wtl_answer(struct wheeltimer *wt, const struct wt_op *op,
		       uint32_t pos)
{
	uint64_t handle = op->id;
	struct wtl_handle *h = wtl_handle(wt, handle);
	int res = -(int)op->error;
	uint32_t flags;

	/* A CANCEL without NOTIFY: its handle was released when queued. */
	if (!h || h->link != pos)
		return;
	if (op->op == WT_OP_ADD) {
		if (!res)
			return;
		h->link = WTL_NOQ;
		h->error = res;
		h->state = WTL_H_FAILED;
		wtl_notify(wt, handle, h, WHEELTIMER_EV_ADD | WHEELTIMER_EV_FINAL,
			   res);
		return;
	}
	if (!res && !(h->hflags & WTL_HF_NOTIFY))
		return;
	h->link = WTL_NOQ;
	if (res)
		h->error = res;
	flags = op->op == WT_OP_MODIFY ? WHEELTIMER_EV_MODIFY :
		WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_FINAL;
	h->hflags &= ~WTL_HF_NOTIFY;
	if (op->status == WT_STATUS_WITHDRAWN)
		flags |= WHEELTIMER_EV_WITHDRAWN;
	wtl_notify(wt, handle, h, flags, res);
}

/*
 * A batch call failed as a whole at @sent: keep what was not applied, at
 * the head of the queue, and return the call's @err.
 */
static int wtl_queue_keep(struct wheeltimer *wt, uint32_t sent, int err)
{
	uint32_t j, n = wt->q_len - sent;
	struct wtl_handle *h;

	memmove(wt->q_ops, &wt->q_ops[sent], n * sizeof(*wt->q_ops));
	for (j = 0; j < n; j++) {
		h = wtl_handle(wt, wt->q_ops[j].id);
		if (h && h->link == sent + j)
			h->link = j;
	}
	wt->q_len = n;
	return err;
}

/**
 * wtl_submit() - send the queue to the engine
 * @wt: the context
 *
 * In batches of at most @wt->batch_max. Room for the records the answers
 * may make (one per operation) is made first, so that no answer is lost.
 * If a batch call fails as a whole (nothing in it was applied), the rest
 * of the queue stays queued, at its start, and the call's error is
 * returned.
 *
 * Return: the operations sent, or a negative errno.
 */
int wtl_submit(struct wheeltimer *wt)
{
	uint32_t i, j, n;
	int ret;

	if (wt->q_holes)
		wtl_queue_compact(wt);
	if (!wt->q_len)
		return 0;
	if (wtl_lq_room(wt, wt->q_len))
		return -ENOMEM;
	for (i = 0; i < wt->q_len; i += n) {
		n = wt->q_len - i < wt->batch_max ? wt->q_len - i : wt->batch_max;
		ret = wt->engine->batch(wt, &wt->q_ops[i], n);
		if (ret < 0)
			return wtl_queue_keep(wt, i, ret);
		wt->cnt.submits++;
		wt->cnt.submitted += n;
		if ((unsigned int)ret == n && !wt->q_notify)
			continue;
		for (j = i; j < i + n; j++)
			wtl_answer(wt, &wt->q_ops[j], j);
	}
	wt->q_len = 0;
	wt->q_notify = false;
	return i;
}

int wheeltimer_submit(struct wheeltimer *wt)
{
	return wtl_submit(wt);
}

int wheeltimer_query(struct wheeltimer *wt, uint64_t handle,
		     struct wheeltimer_info *info)
{
	struct wtl_handle *h = wtl_handle(wt, handle);
	struct wt_query q = { 0 };
	int ret;

	if (!h || h->state == WTL_H_CANCELLING)
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	info->cookie = h->cookie;
	info->flags = h->hflags & WTL_HF_KIND;
	if (h->state == WTL_H_FAILED) {
		info->state = WHEELTIMER_STATE_FAILED;
		info->error = h->error;
		return 0;
	}
	if (wtl_queued(wt, h, handle)) {
		ret = wtl_submit(wt);
		if (ret < 0)
			return ret;
		/* The submit may have failed its add. */
		return wheeltimer_query(wt, handle, info);
	}
	q.id = handle;
	ret = wt->engine->query(wt, &q);
	if (ret)
		return ret;
	info->state = q.state;
	info->deadline = q.deadline;
	info->remaining = q.remaining;
	info->period = q.period;
	info->error = h->error;
	return 0;
}
