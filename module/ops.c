// SPDX-License-Identifier: GPL-2.0
/*
 * ops.c - WT_OP_ADD, WT_OP_CANCEL and WT_OP_MODIFY, one at a time
 * (WT_IOC_ADD, WT_IOC_CANCEL, WT_IOC_MODIFY) or in a WT_IOC_BATCH
 *
 * Both paths are the same: the fields the answers write are checked first
 * (wt_ops_probe()), then operations are applied in chunks of
 * WT_OPS_CHUNK, each read field by field, applied under one hold of the
 * file's mutex with at most one clock reading and one hrtimer programming,
 * and answered by writing back only @id, @status and @error. A bad array
 * fails before anything is applied, and a call that fails changes
 * nothing, in the file or in the array.
 *
 * An add that finds no free timeout grows the store, charging the opener's
 * user first (user.h): past the per-user limit it fails with -ENOSPC, as
 * it does past the file's max_pending. Growing sleeps, which is fine under
 * the mutex; nothing here runs with interrupts off.
 */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include "ctx.h"
#include "trace.h"
#include "user.h"

#define WT_ADD_FLAGS		(WT_ABSTIME | WT_FIXED_RATE | WT_FIXED_DELAY)
#define WT_PERIODIC_FLAGS	(WT_FIXED_RATE | WT_FIXED_DELAY)

/* Grow the store for the next add, within the user's limit. */
static int wt_grow(struct wt_ctx *ctx, bool periodic)
{
	size_t need = wt_store_grow_bytes(&ctx->store, periodic);
	size_t before = ctx->store.bytes;
	int ret;

	lockdep_assert_held(&ctx->mutex);
	if (!wt_user_charge(ctx->user, need, ctx->privileged))
		return -ENOSPC;
	ret = wt_store_grow(&ctx->store, periodic);
	/* What was charged and not allocated, if the store ran out. */
	wt_user_uncharge(ctx->user, need - (ctx->store.bytes - before));
	return ret;
}

/* Give back what an emptied store no longer needs, and its charge. */
void wt_trim(struct wt_ctx *ctx)
{
	size_t before = ctx->store.bytes;

	lockdep_assert_held(&ctx->mutex);
	wt_store_trim(&ctx->store);
	/* Mostly nothing: spare the user's shared counter the atomic. */
	if (ctx->store.bytes != before)
		wt_user_uncharge(ctx->user, before - ctx->store.bytes);
}

static int wt_op_add(struct wt_ctx *ctx, struct wt_op *op, u64 now)
{
	u64 periodic = op->flags & WT_PERIODIC_FLAGS;
	struct wt_period *p;
	struct wt_timer *t;
	u64 deadline;
	int ret;

	lockdep_assert_held(&ctx->mutex);
	if (op->flags & ~WT_ADD_FLAGS || periodic == WT_PERIODIC_FLAGS)
		return -EINVAL;
	if (periodic ? !op->period || op->period > WT_TIME_MAX : op->period)
		return -EINVAL;
	if (op->slack > WT_TIME_MAX)
		return -EINVAL;
	ret = wt_deadline(ctx, op->deadline, op->flags & WT_ABSTIME, now,
			  &deadline);
	if (ret)
		return ret;
	if (ctx->store.nr_live >= ctx->max_pending)
		return -ENOSPC;
	t = wt_store_get(&ctx->store, periodic);
	if (!t) {
		ret = wt_grow(ctx, periodic);
		if (ret)
			return ret;
		t = wt_store_get(&ctx->store, periodic);
		if (WARN_ON_ONCE(!t))
			return -ENOMEM;
	}

	wt_wheel_entry_init(&t->entry);
	t->deadline = deadline;
	t->cookie = op->cookie;
	if (periodic) {
		t->kind = periodic == WT_FIXED_RATE ? WT_KIND_FIXED_RATE :
						      WT_KIND_FIXED_DELAY;
		p = wt_timer_period(t);
		p->period = op->period;
		p->slack = op->slack;
	} else {
		t->kind = WT_KIND_ONESHOT;
	}
	wt_queue(ctx, t, wt_tick(ctx, deadline, op->slack));
	wt_count(ctx, added, 1);
	op->id = wt_timer_id(t);
	trace_wheeltimer_add(ctx->context_id, op->id, deadline, op->period,
			     op->cookie);
	return WT_STATUS_ADDED;
}

/*
 * Take @t out of the wheel or the ready list; returns a WT_STATUS_*. A
 * queued timeout before @due (wt_due_tick()) has fired, though nobody has
 * collected it yet: its record is withdrawn as if it had been.
 */
static int wt_unlink(struct wt_ctx *ctx, struct wt_timer *t, u64 due)
{
	lockdep_assert_held(&ctx->mutex);
	if (t->state == WT_TIMER_READY) {
		wt_ready_del(ctx, t);
		wt_count(ctx, withdrawn, 1);
		return WT_STATUS_WITHDRAWN;
	}
	wt_wheel_del(&ctx->wheel, &t->entry);
	if (t->entry.expires < due) {
		wt_count(ctx, fired, 1);
		wt_count(ctx, withdrawn, 1);
		return WT_STATUS_WITHDRAWN;
	}
	return WT_STATUS_PENDING;
}

/*
 * Cancelling never makes the wheel's next expiry earlier, so the hrtimer
 * is left as it is: see wt_program().
 */
static int wt_op_cancel(struct wt_ctx *ctx, struct wt_op *op, u64 due)
{
	struct wt_timer *t;
	int status;

	lockdep_assert_held(&ctx->mutex);
	if (op->flags || op->deadline || op->period || op->slack || op->cookie)
		return -EINVAL;
	t = wt_store_lookup(&ctx->store, op->id);
	if (!t)
		return -ENOENT;
	status = wt_unlink(ctx, t, due);
	if (status == WT_STATUS_PENDING)
		wt_count(ctx, cancelled, 1);
	trace_wheeltimer_cancel(ctx->context_id, op->id, status);
	wt_store_put(&ctx->store, t);
	return status;
}

static int wt_op_modify(struct wt_ctx *ctx, struct wt_op *op, u64 now,
			u64 due)
{
	struct wt_timer *t;
	u64 deadline;
	int status;

	lockdep_assert_held(&ctx->mutex);
	if (op->flags & ~WT_ABSTIME || op->period || op->cookie ||
	    op->slack > WT_TIME_MAX)
		return -EINVAL;
	status = wt_deadline(ctx, op->deadline, op->flags & WT_ABSTIME, now,
			     &deadline);
	if (status)
		return status;
	t = wt_store_lookup(&ctx->store, op->id);
	if (!t)
		return -ENOENT;
	status = wt_unlink(ctx, t, due);
	t->deadline = deadline;
	if (t->kind != WT_KIND_ONESHOT)
		wt_timer_period(t)->slack = op->slack;
	wt_queue(ctx, t, wt_tick(ctx, deadline, op->slack));
	wt_count(ctx, modified, 1);
	trace_wheeltimer_modify(ctx->context_id, op->id, deadline, status);
	return status;
}

/* Record in @op the outcome of applying it: a WT_STATUS_* or a -errno. */
static void wt_op_done(struct wt_op *op, int ret)
{
	if (ret < 0) {
		if (op->op == WT_OP_ADD)
			op->id = 0;
		op->status = 0;
		op->error = -ret;
	} else {
		op->status = ret;
		op->error = 0;
	}
}

/*
 * Apply one operation and record its outcome in @op. @only is the
 * operation of a single-operation ioctl, which no other may claim, or 0.
 */
static void wt_apply(struct wt_ctx *ctx, struct wt_op *op, u32 only,
		     u64 now, u64 due)
{
	int ret;

	if (op->reserved || (only && op->op != only))
		ret = -EINVAL;
	else if (op->op == WT_OP_ADD)
		ret = wt_op_add(ctx, op, now);
	else if (op->op == WT_OP_CANCEL)
		ret = wt_op_cancel(ctx, op, due);
	else if (op->op == WT_OP_MODIFY)
		ret = wt_op_modify(ctx, op, now, due);
	else
		ret = -EINVAL;
	wt_op_done(op, ret);
}

/*
 * Whether any of @n operations needs the clock: a deadline relative to
 * now, or, on a real clock, a timeout that may have come due.
 */
static bool wt_ops_need_clock(const struct wt_ctx *ctx,
			      const struct wt_op *ops, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (ops[i].op == WT_OP_ADD && ops[i].flags & WT_ABSTIME)
			continue;
		if (ops[i].op == WT_OP_ADD || ops[i].op == WT_OP_MODIFY ||
		    (ops[i].op == WT_OP_CANCEL && !wt_is_virtual(ctx)))
			return true;
	}
	return false;
}

/*
 * Apply @n operations under one hold of the mutex, with one clock reading,
 * and program the hrtimer at most once. Returns how many succeeded.
 */
static unsigned int wt_apply_ops(struct wt_ctx *ctx, struct wt_op *ops,
				 unsigned int n, u32 only)
{
	unsigned int i, done = 0;
	u64 now, due;

	lockdep_assert_held(&ctx->mutex);
	if (wt_ops_need_clock(ctx, ops, n)) {
		now = wt_now(ctx);
		due = wt_due_tick(ctx, now);
	} else {
		now = 0;
		due = 0;
	}
	for (i = 0; i < n; i++) {
		wt_apply(ctx, &ops[i], only, now, due);
		done += !ops[i].error;
	}
	wt_trim(ctx);
	if (ctx->reprogram)
		wt_program(ctx);
	return done;
}

/*
 * Check that the answers to the @n operations at @uops can be written,
 * before any is applied, by writing back the values their fields hold:
 * @status, @error and an add's @id, the fields an answer writes, and no
 * other. So a call that fails here has changed nothing. @only is the
 * operation of a single-operation ioctl, for which 0 stands; 0 in a batch.
 */
static int wt_ops_probe(struct wt_op __user *uops, unsigned int n, u32 only)
{
	u32 op, status, error;
	unsigned int i;
	u64 id;

	if (!user_access_begin(uops, n * sizeof(*uops)))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		unsafe_get_user(op, &uops[i].op, fault);
		unsafe_get_user(status, &uops[i].status, fault);
		unsafe_get_user(error, &uops[i].error, fault);
		unsafe_put_user(status, &uops[i].status, fault);
		unsafe_put_user(error, &uops[i].error, fault);
		if ((op ? op : only) == WT_OP_ADD) {
			unsafe_get_user(id, &uops[i].id, fault);
			unsafe_put_user(id, &uops[i].id, fault);
		}
	}
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/*
 * Read the inputs of @n operations, field by field. @only is the
 * operation of a single-operation ioctl, for which 0 stands; 0 in a batch.
 */
static int wt_ops_read(struct wt_op *ops, struct wt_op __user *uops,
		       unsigned int n, u32 only)
{
	struct wt_op *op;
	unsigned int i;

	if (!user_read_access_begin(uops, n * sizeof(*ops)))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		op = &ops[i];
		unsafe_get_user(op->op, &uops[i].op, fault);
		unsafe_get_user(op->reserved, &uops[i].reserved, fault);
		unsafe_get_user(op->flags, &uops[i].flags, fault);
		unsafe_get_user(op->id, &uops[i].id, fault);
		unsafe_get_user(op->deadline, &uops[i].deadline, fault);
		unsafe_get_user(op->period, &uops[i].period, fault);
		unsafe_get_user(op->slack, &uops[i].slack, fault);
		unsafe_get_user(op->cookie, &uops[i].cookie, fault);
		if (!op->op)
			op->op = only;
		op->status = 0;
		op->error = 0;
	}
	user_read_access_end();
	return 0;
fault:
	user_read_access_end();
	return -EFAULT;
}

/* Write back what userspace learns of @n applied operations. */
static int wt_ops_answer(struct wt_op __user *uops, const struct wt_op *ops,
			 unsigned int n)
{
	unsigned int i;

	if (!user_write_access_begin(uops, n * sizeof(*ops)))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		if (ops[i].op == WT_OP_ADD)
			unsafe_put_user(ops[i].id, &uops[i].id, fault);
		unsafe_put_user(ops[i].status, &uops[i].status, fault);
		unsafe_put_user(ops[i].error, &uops[i].error, fault);
	}
	user_write_access_end();
	return 0;
fault:
	user_write_access_end();
	return -EFAULT;
}

/*
 * Read, apply and answer @n <= WT_OPS_CHUNK operations at @uops; @only is
 * the operation of a single-operation ioctl, 0 in a batch. Adds to *@done
 * how many succeeded. Caller holds the mutex.
 */
static int wt_apply_user(struct wt_ctx *ctx, struct wt_op __user *uops,
			 unsigned int n, u32 only, unsigned int *done)
{
	struct wt_op *ops = ctx->scratch.ops;

	lockdep_assert_held(&ctx->mutex);
	if (wt_ops_read(ops, uops, n, only))
		return -EFAULT;
	*done += wt_apply_ops(ctx, ops, n, only);
	return wt_ops_answer(uops, ops, n);
}

long wt_ioctl_batch(struct wt_ctx *ctx, void __user *uarg)
{
	struct wt_op __user *uops;
	unsigned int done = 0, n;
	struct wt_batch batch;
	u32 i;
	int ret;

	if (copy_from_user(&batch, uarg, sizeof(batch)))
		return -EFAULT;
	if (batch.flags || batch.reserved || batch.count > WT_BATCH_MAX)
		return -EINVAL;
	if (!batch.count)
		return 0;
	uops = u64_to_user_ptr(batch.ops);
	if (wt_ops_probe(uops, batch.count, 0))
		return -EFAULT;

	ret = wt_lock(ctx);
	if (ret)
		return ret;
	for (i = 0; i < batch.count && !ret; i += n) {
		n = min_t(u32, batch.count - i, WT_OPS_CHUNK);
		ret = wt_apply_user(ctx, uops + i, n, 0, &done);
	}
	wt_unlock(ctx);
	return ret ? ret : done;
}

/* WT_IOC_ADD, WT_IOC_CANCEL, WT_IOC_MODIFY: a batch of one. */
long wt_ioctl_op(struct wt_ctx *ctx, void __user *uarg, u32 code)
{
	unsigned int done = 0;
	long ret;

	if (wt_ops_probe(uarg, 1, code))
		return -EFAULT;
	ret = wt_lock(ctx);
	if (ret)
		return ret;
	ret = wt_apply_user(ctx, uarg, 1, code, &done);
	if (!ret)
		ret = -(long)ctx->scratch.ops[0].error;
	wt_unlock(ctx);
	return ret;
}
