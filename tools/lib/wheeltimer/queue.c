// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * queue.c - preparing and submitting: handles, the queue of operations,
 * and what becomes of each operation once the engine has answered
 *
 * wheeltimer_add() takes a handle, an id leased from the engine
 * (handles.c), and queues a WT_OP_ADD that gives the timeout that id
 * (WT_LEASED_ID) and the caller's cookie: every operation and every record
 * names the handle itself. Nothing is sent until wheeltimer_submit(),
 * which the library also calls by itself when the queue is full.
 *
 * A handle has at most one operation in the queue, so a second operation
 * on it is folded into the first, without a system call:
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
 * The in-process engine, where an operation costs no system call, keeps
 * the same rules more cheaply (its @add, @cancel, @modify_deferred and
 * @place): it takes each add at once, counted against max_pending, and
 * places it (its relative deadline counting from then) at the next
 * submit, in order; a cancel is applied at once, and a cancel of an add
 * not placed yet undoes it, as a hole would; a modify of such an add
 * changes it, as a folded one. Modifies of placed timeouts, cancels folded
 * into them, and whatever comes while one is queued, go through the
 * queue, so that operations keep their order. The two engines give the
 * same answers, on a virtual clock the same records; on a real one, a
 * cancel finds the timeout pending or fired by the clock of the engine's
 * last reading rather than of the submit, and an add refused at once
 * (the context is full) says so before an earlier add that the submit
 * finds past the last tick.
 *
 * After a submit, each operation's answer lands on its handle: an add's
 * engine id, or its failure as a record with WHEELTIMER_EV_ADD (the handle
 * lives until that record is reaped); a modify's failure, or its outcome
 * if NOTIFY was asked, as a record with WHEELTIMER_EV_MODIFY; a cancel's
 * outcome, with NOTIFY, as a record with WHEELTIMER_EV_CANCEL. Without
 * NOTIFY a cancelled handle is released at once: its index may be handed
 * out again, with a new generation, to an add queued after the CANCEL,
 * which reaches the engine first.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "internal.h"

static_assert(!(WTL_HF_NOTIFY & WTL_HF_KIND), "handle flags apart");

/* A handle that may still be acted on: queued or live. */
static struct wtl_handle *wtl_handle_active(const struct wheeltimer *wt,
					    uint64_t handle)
{
	struct wtl_handle *h = wtl_handle(wt, handle);

	if (!h || (h->state != WTL_H_QUEUED && h->state != WTL_H_LIVE))
		return NULL;
	return h;
}

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
static int wtl_queue_slot(struct wheeltimer *wt, uint32_t *qidx)
{
	int ret;

	if (wt->q_len == wt->q_cap && wt->q_holes)
		wtl_queue_compact(wt);
	if (wt->q_len == wt->q_cap) {
		ret = wtl_submit(wt);
		if (ret < 0)
			return ret;
		wt->cnt.auto_submits++;
	}
	*qidx = wt->q_len++;
	return 0;
}

/* Push a record the library makes for @handle, in room reserved before. */
static void wtl_notify(struct wheeltimer *wt, uint64_t handle,
		       const struct wtl_handle *h, uint32_t flags, int res)
{
	struct wheeltimer_event ev = {
		.handle = handle,
		.cookie = h->cookie,
		.flags = flags,
		.res = res,
	};

	wtl_lq_push(wt, &ev);
}

static void wtl_answer(struct wheeltimer *wt, const struct wt_op *op);
static void wtl_refused(struct wheeltimer *wt, uint64_t handle,
			struct wtl_handle *h, int err);

/*
 * An add the engine takes at once and places at the next submit. Room for
 * the record of an add refused now is reserved first; the number of adds
 * waiting is bounded by the queue's depth, as queued ones are.
 */
static int wtl_add_deferred(struct wheeltimer *wt, uint64_t deadline,
			    uint64_t period, uint64_t slack, uint32_t flags,
			    uint64_t cookie, uint64_t *handle)
{
	struct wt_op op = {
		.op = WT_OP_ADD,
		.flags = flags | WT_LEASED_ID,
		.deadline = deadline,
		.period = period,
		.slack = slack,
		.cookie = cookie,
	};
	struct wtl_handle *h;
	uint64_t id;
	int ret;

	if (wt->deferred >= wt->q_cap) {
		ret = wtl_submit(wt);
		if (ret < 0)
			return ret;
		wt->cnt.auto_submits++;
	}
	if (wtl_lq_room(wt, 1))
		return -ENOMEM;
	ret = wtl_handle_new(wt, &id);
	if (ret)
		return ret;
	op.id = id;
	h = wtl_handle_at(wt, id);
	h->cookie = cookie;
	h->link = WTL_NOQ;
	h->state = WTL_H_LIVE;
	h->hflags = flags & WTL_HF_KIND;
	h->error = 0;
	ret = wt->engine->add(wt, &op);
	if (ret)
		wtl_refused(wt, id, h, ret);
	else
		wt->deferred++;
	*handle = id;
	return 0;
}

/*
 * The engine refused the add of @handle: it fails, and says so in a
 * record, in room reserved before.
 */
static void wtl_refused(struct wheeltimer *wt, uint64_t handle,
			struct wtl_handle *h, int err)
{
	h->error = err;
	h->state = WTL_H_FAILED;
	wtl_notify(wt, handle, h, WHEELTIMER_EV_ADD | WHEELTIMER_EV_FINAL,
		   err);
}

/* The engine could not place the add of @handle after all. */
void wtl_placed(struct wheeltimer *wt, uint64_t handle, int err)
{
	struct wtl_handle *h = wtl_handle(wt, handle);

	if (h)
		wtl_refused(wt, handle, h, err);
}

static int wtl_add(struct wheeltimer *wt, uint64_t deadline, uint64_t period,
		   uint64_t slack, uint32_t flags, uint64_t cookie,
		   uint64_t *handle)
{
	struct wtl_handle *h;
	struct wt_op *op;
	uint32_t qidx;
	uint64_t id;
	int ret;

	if (slack > WTL_TIME_MAX)
		return -EINVAL;
	if (deadline > WTL_TIME_MAX)
		return -ERANGE;
	if (slack && !(wt->features & WT_FEATURE_SLACK))
		return -WHEELTIMER_EFEATURE;
	if (wt->engine->add && !wt->q_len)
		return wtl_add_deferred(wt, deadline, period, slack, flags,
					cookie, handle);
	ret = wtl_queue_slot(wt, &qidx);
	if (ret)
		return ret;
	ret = wtl_handle_new(wt, &id);
	if (ret) {
		wt->q_len--;
		return ret;
	}
	h = wtl_handle_at(wt, id);
	h->cookie = cookie;
	h->link = qidx;
	h->state = WTL_H_QUEUED;
	h->hflags = flags & WTL_HF_KIND;
	h->error = 0;

	op = &wt->q_ops[qidx];
	op->op = WT_OP_ADD;
	op->reserved = 0;
	op->flags = flags | WT_LEASED_ID;
	op->id = id;
	op->deadline = deadline;
	op->period = period;
	op->slack = slack;
	op->cookie = cookie;
	op->status = 0;
	op->error = 0;
	*handle = id;
	return 0;
}

int wheeltimer_add(struct wheeltimer *wt, uint64_t deadline, uint64_t slack,
		   uint32_t flags, uint64_t cookie, uint64_t *handle)
{
	if (flags & ~WHEELTIMER_ABSTIME)
		return -EINVAL;
	return wtl_add(wt, deadline, 0, slack, flags, cookie, handle);
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
	h = wtl_handle_active(wt, handle);
	if (!h)
		return -ENOENT;
	if (flags & WHEELTIMER_NOTIFY && wtl_lq_reserve(wt, 1))
		return -ENOMEM;

	if (h->link == WTL_NOQ && wt->engine->modify_deferred) {
		/* Folded into the add the engine has not placed yet, if so. */
		struct wt_op mod = {
			.op = WT_OP_MODIFY,
			.flags = flags & WHEELTIMER_ABSTIME,
			.id = handle,
			.deadline = deadline,
			.slack = slack,
		};

		if (!wt->engine->modify_deferred(wt, &mod)) {
			wt->cnt.queue_resolved++;
			if (flags & WHEELTIMER_NOTIFY)
				wtl_notify(wt, handle, h, WHEELTIMER_EV_MODIFY |
					   WHEELTIMER_EV_UNSUBMITTED, 0);
			return 0;
		}
	}

	if (h->link != WTL_NOQ) {
		/* Folded into the queued ADD or MODIFY. */
		op = &wt->q_ops[h->link];
		op->flags = (op->flags & ~(uint64_t)WT_ABSTIME) |
			    (flags & WHEELTIMER_ABSTIME);
		op->deadline = deadline;
		op->slack = slack;
		wt->cnt.queue_resolved++;
		if (!(flags & WHEELTIMER_NOTIFY))
			return 0;
		if (op->op == WT_OP_MODIFY) {
			h->hflags |= WTL_HF_NOTIFY;
			return 0;
		}
		wtl_notify(wt, handle, h,
			   WHEELTIMER_EV_MODIFY | WHEELTIMER_EV_UNSUBMITTED, 0);
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
	if (flags & WHEELTIMER_NOTIFY)
		h->hflags |= WTL_HF_NOTIFY;
	return 0;
}

/*
 * A cancel the engine applies at once (the in-process engine): its outcome
 * is known now, and becomes what a queued one's answer would.
 */
static int wtl_cancel_now(struct wheeltimer *wt, uint64_t handle,
			  struct wtl_handle *h, bool notify)
{
	int status = wt->engine->cancel(wt, handle);
	struct wt_op op;

	if (status == WTL_UNSUBMITTED) {
		wt->deferred--;
		wt->cnt.queue_resolved++;
		if (!notify) {
			wtl_handle_release(wt, handle);
			return 0;
		}
		h->link = WTL_NOQ;
		h->state = WTL_H_CANCELLING;
		wtl_notify(wt, handle, h, WHEELTIMER_EV_CANCEL |
			   WHEELTIMER_EV_UNSUBMITTED | WHEELTIMER_EV_FINAL, 0);
		return 0;
	}
	wt->cnt.submitted++;
	if (!notify) {
		wtl_handle_release(wt, handle);
		return 0;
	}
	memset(&op, 0, sizeof(op));
	op.op = WT_OP_CANCEL;
	op.id = handle;
	if (status < 0)
		op.error = -status;
	else
		op.status = status;
	/* An answer is taken by a handle with an operation pending. */
	h->link = 0;
	h->state = WTL_H_CANCELLING;
	wtl_answer(wt, &op);
	return 0;
}

int wheeltimer_cancel(struct wheeltimer *wt, uint64_t handle, uint32_t flags)
{
	bool notify = flags & WHEELTIMER_NOTIFY;
	struct wtl_handle *h;
	struct wt_op *op;
	uint32_t qidx;
	int ret;

	if (flags & ~WHEELTIMER_NOTIFY)
		return -EINVAL;
	h = wtl_handle(wt, handle);
	if (!h || h->state == WTL_H_CANCELLING)
		return -ENOENT;
	if (notify && wtl_lq_reserve(wt, 1))
		return -ENOMEM;

	if (h->state == WTL_H_FAILED) {
		/* Nothing is armed; its EV_ADD record is dropped unreaped. */
		if (!notify) {
			wtl_handle_release(wt, handle);
			return 0;
		}
		h->state = WTL_H_CANCELLING;
		wtl_notify(wt, handle, h, WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_FINAL,
			   h->error);
		return 0;
	}

	if (h->link == WTL_NOQ && wt->engine->cancel && !wt->q_len)
		return wtl_cancel_now(wt, handle, h, notify);

	if (h->link != WTL_NOQ && wt->q_ops[h->link].op == WT_OP_ADD) {
		/* The engine never hears of it. */
		wt->q_ops[h->link].op = 0;
		wt->q_holes++;
		wt->cnt.queue_resolved++;
		h->link = WTL_NOQ;
		if (!notify) {
			wtl_handle_release(wt, handle);
			return 0;
		}
		h->state = WTL_H_CANCELLING;
		wtl_notify(wt, handle, h, WHEELTIMER_EV_CANCEL |
			   WHEELTIMER_EV_UNSUBMITTED | WHEELTIMER_EV_FINAL, 0);
		return 0;
	}

	if (h->link != WTL_NOQ) {
		/* The queued MODIFY becomes the CANCEL. */
		qidx = h->link;
		wt->cnt.queue_resolved++;
	} else {
		ret = wtl_queue_slot(wt, &qidx);
		if (ret)
			return ret;
	}
	op = &wt->q_ops[qidx];
	memset(op, 0, sizeof(*op));
	op->op = WT_OP_CANCEL;
	op->id = handle;
	if (!notify) {
		wtl_handle_release(wt, handle);
		return 0;
	}
	h->link = qidx;
	h->state = WTL_H_CANCELLING;
	h->hflags |= WTL_HF_NOTIFY;
	return 0;
}

int wheeltimer_error(const struct wheeltimer *wt, uint64_t handle)
{
	const struct wtl_handle *h = wtl_handle(wt, handle);

	return h ? h->error : -ENOENT;
}

unsigned int wheeltimer_queued(const struct wheeltimer *wt)
{
	return wt->q_len - wt->q_holes + wt->deferred;
}

static void wtl_answer(struct wheeltimer *wt, const struct wt_op *op)
{
	uint64_t handle = op->id;
	struct wtl_handle *h = wtl_handle(wt, handle);
	int res = -(int)op->error;
	uint32_t flags;

	/* A CANCEL without NOTIFY: its handle was released when queued. */
	if (!h || h->link == WTL_NOQ)
		return;
	h->link = WTL_NOQ;
	if (res)
		h->error = res;

	switch (op->op) {
	case WT_OP_ADD:
		if (!res) {
			h->state = WTL_H_LIVE;
			return;
		}
		h->state = WTL_H_FAILED;
		wtl_notify(wt, handle, h, WHEELTIMER_EV_ADD | WHEELTIMER_EV_FINAL,
			   res);
		return;
	case WT_OP_MODIFY:
		if (!res && !(h->hflags & WTL_HF_NOTIFY))
			return;
		flags = WHEELTIMER_EV_MODIFY;
		break;
	default:
		flags = WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_FINAL;
		break;
	}
	h->hflags &= ~WTL_HF_NOTIFY;
	if (op->status == WT_STATUS_WITHDRAWN)
		flags |= WHEELTIMER_EV_WITHDRAWN;
	wtl_notify(wt, handle, h, flags, res);
}

/**
 * wtl_submit() - send the queue to the engine
 * @wt: the context
 *
 * In batches of at most @wt->batch_max. Room for the records the answers
 * may make (one per operation) is reserved first, so that no answer is
 * lost. If a batch call fails as a whole (nothing in it was applied), the
 * rest of the queue stays queued, at its start, and the call's error is
 * returned.
 *
 * Return: the operations sent, or a negative errno.
 */
int wtl_submit(struct wheeltimer *wt)
{
	struct wtl_handle *h;
	uint32_t i, j, n;
	int ret = 0, placed = 0;

	if (wt->q_holes)
		wtl_queue_compact(wt);
	if (!wt->q_len && !wt->deferred)
		return 0;
	if (wtl_lq_reserve(wt, wt->q_len + wt->deferred))
		return -ENOMEM;
	if (wt->deferred) {
		placed = wt->engine->place(wt);
		wt->cnt.submits++;
		wt->cnt.submitted += placed;
		wt->deferred = 0;
	}
	if (!wt->q_len)
		return placed;
	for (i = 0; i < wt->q_len; i += n) {
		n = wt->q_len - i < wt->batch_max ? wt->q_len - i : wt->batch_max;
		ret = wt->engine->batch(wt, &wt->q_ops[i], n);
		if (ret < 0)
			break;
		wt->cnt.submits++;
		wt->cnt.submitted += n;
		for (j = i; j < i + n; j++)
			wtl_answer(wt, &wt->q_ops[j]);
	}
	if (ret >= 0) {
		wt->q_len = 0;
		return placed + i;
	}

	/* Keep what was not applied, at the head of the queue. */
	n = wt->q_len - i;
	memmove(wt->q_ops, &wt->q_ops[i], n * sizeof(*wt->q_ops));
	for (j = 0; j < n; j++) {
		h = wtl_handle(wt, wt->q_ops[j].id);
		if (h && h->link == i + j)
			h->link = j;
	}
	wt->q_len = n;
	return ret;
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
	if (h->link != WTL_NOQ || wt->deferred) {
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
