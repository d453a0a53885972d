// SPDX-License-Identifier: GPL-2.0
/*
 * ops.c - WT_OP_ADD, WT_OP_CANCEL and WT_OP_MODIFY, one at a time
 * (WT_IOC_ADD, WT_IOC_CANCEL, WT_IOC_MODIFY) or in a WT_IOC_BATCH: the
 * copies between userspace and the core (core.c), which applies them
 *
 * Both paths are the same: the fields the answers write are checked first
 * (wt_ops_probe()), then operations are applied in chunks of
 * WT_OPS_CHUNK, each read field by field, applied under one hold of the
 * file's mutex with at most one clock reading and one hrtimer programming,
 * and answered by writing back only @id, @status and @error. A bad array
 * fails before anything is applied, and a call that fails changes
 * nothing, in the file or in the array.
 */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include "ctx.h"

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
	*done += wt_core_apply(&ctx->core, ops, n, only);
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
