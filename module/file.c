// SPDX-License-Identifier: GPL-2.0
/*
 * file.c - the file operations of /dev/wheeltimer
 *
 * Each open() is a context of its own (ctx.h), freed by the last close().
 * read() returns whole records, blocking for the first unless the file is
 * O_NONBLOCK or io_uring asks without waiting (FMODE_NOWAIT); poll()
 * reports EPOLLIN while records are ready and a read() would get them.
 * Both collect what is due first (drive.c), and neither sleeps on the
 * file's mutex when it must not: a caller that only tries the mutex and is
 * turned away leaves a note that makes the holder wake the waiters when it
 * lets go.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/user_namespace.h>
#include <linux/wait.h>

#include "compat.h"
#include "ctx.h"
#include "user.h"

/* Numbers the contexts, for fdinfo and the tracepoints. */
static atomic64_t wt_contexts = ATOMIC64_INIT(0);

/*
 * Copy out the records at the head of the ready list, as many as fit in
 * @to and up to WT_READ_BATCH; those copied whole are consumed, the rest
 * stay queued as they were. Returns the bytes copied (whole records), 0
 * if none was ready, or -EFAULT if not even the first could be copied;
 * *@fault is set when the copy stopped short of what was ready and fitted.
 */
static ssize_t wt_read_records(struct wt_ctx *ctx, struct iov_iter *to,
			       bool *fault)
{
	struct wt_event *ev = ctx->scratch.events;
	unsigned int n, copied;
	size_t bytes;

	lockdep_assert_held(&ctx->mutex);
	n = wt_core_take(&ctx->core, ev, iov_iter_count(to) / sizeof(*ev));
	bytes = n ? copy_to_iter(ev, n * sizeof(*ev), to) : 0;
	copied = bytes / sizeof(*ev);
	/* Give back the part of a record that was not copied whole. */
	iov_iter_revert(to, bytes % sizeof(*ev));
	/*
	 * A copy that faults may report less than it copied (arm64's copies
	 * stop at their own stride): try the records after the last one it
	 * reported, one at a time, so that every record that fits is given.
	 */
	while (copied < n) {
		bytes = copy_to_iter(&ev[copied], sizeof(*ev), to);
		if (bytes != sizeof(*ev)) {
			iov_iter_revert(to, bytes);
			break;
		}
		copied++;
	}
	*fault = copied < n;
	wt_core_consume(&ctx->core, ev, copied);
	if (n && !copied)
		return -EFAULT;
	return copied * sizeof(*ev);
}

static ssize_t wt_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct wt_ctx *ctx = file->private_data;
	bool nowait = file->f_flags & O_NONBLOCK ||
		      iocb->ki_flags & IOCB_NOWAIT;
	bool fault = false;
	size_t done = 0;
	ssize_t ret;

	if (iov_iter_count(to) < sizeof(struct wt_event))
		return -EINVAL;
	for (;;) {
		if (nowait) {
			if (!wt_trylock(ctx, WT_MISSED_READ))
				return done ? done : -EAGAIN;
		} else {
			ret = wt_lock(ctx);
			if (ret)
				return done ? done : ret;
		}
		ret = wt_read_records(ctx, to, &fault);
		wt_unlock(ctx);
		if (ret < 0)
			return done ? done : ret;
		done += ret;
		if (fault || iov_iter_count(to) < sizeof(struct wt_event))
			return done;
		if (ret) {
			if (fatal_signal_pending(current))
				return done;
			cond_resched();
			continue;
		}
		/* Nothing was ready: return what we have, or wait for more. */
		if (done)
			return done;
		if (nowait)
			return -EAGAIN;
		ret = wait_event_interruptible(ctx->wqh, wt_records_owed(ctx));
		if (ret)
			return ret;
	}
}

/*
 * Readable means that a read() now makes progress, as for timerfd and
 * eventfd: a file that another call keeps busy (the mutex held by a batch,
 * an ADVANCE, a read() stalled in a page fault) is not readable, even with
 * records queued, since a non-blocking read() would be turned away; its
 * holder wakes the pollers when it lets go (wt_unlock()).
 */
static __poll_t wt_poll(struct file *file, poll_table *wait)
{
	struct wt_ctx *ctx = file->private_data;
	bool ready;

	poll_wait(file, &ctx->wqh, wait);
	if (!wt_trylock(ctx, WT_MISSED_POLL))
		return 0;
	if (!ctx->core.nr_ready)
		wt_core_collect(&ctx->core, 1);
	ready = ctx->core.nr_ready;
	wt_unlock(ctx);
	return ready ? EPOLLIN | EPOLLRDNORM : 0;
}

static long wt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct wt_ctx *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;

	/* A struct that grows: its size is the caller's, in the number. */
	if (_IOC_TYPE(cmd) == WT_IOC_MAGIC && _IOC_NR(cmd) == _WT_IOC_STATS &&
	    _IOC_DIR(cmd) == _IOC_READ)
		return wt_ioctl_stats(ctx, uarg, _IOC_SIZE(cmd));
	switch (cmd) {
	case WT_IOC_API:
		return wt_ioctl_api(uarg);
	case WT_IOC_SET_CONFIG:
		return wt_ioctl_set_config(ctx, uarg);
	case WT_IOC_GET_CONFIG:
		return wt_ioctl_get_config(ctx, uarg);
	case WT_IOC_ADD:
		return wt_ioctl_op(ctx, uarg, WT_OP_ADD);
	case WT_IOC_CANCEL:
		return wt_ioctl_op(ctx, uarg, WT_OP_CANCEL);
	case WT_IOC_MODIFY:
		return wt_ioctl_op(ctx, uarg, WT_OP_MODIFY);
	case WT_IOC_BATCH:
		return wt_ioctl_batch(ctx, uarg);
	case WT_IOC_ADVANCE:
		return wt_ioctl_advance(ctx, uarg);
	case WT_IOC_SET_EVENTFD:
		return wt_ioctl_set_eventfd(ctx, uarg);
	case WT_IOC_QUERY:
		return wt_ioctl_query(ctx, uarg);
	case WT_IOC_LEASE:
		return wt_ioctl_lease(ctx, uarg);
	default:
		return -ENOTTY;
	}
}

static int wt_open(struct inode *inode, struct file *file)
{
	struct wt_config cfg = {
		.resolution = WT_RESOLUTION_DEFAULT,
		.max_pending = wt_pending_default(),
		.clockid = CLOCK_MONOTONIC,
	};
	struct wt_ctx *ctx;
	int ret = -ENOMEM;

	ctx = kvzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	/* The opener's privileges are the file's, as its time namespace is. */
	ctx->privileged = file_ns_capable(file, &init_user_ns,
					  CAP_SYS_RESOURCE);
	ctx->user = wt_user_get(file->f_cred);
	if (!ctx->user)
		goto err_free;
	/* The context itself counts against what its user may hold. */
	ret = -EMFILE;
	if (!wt_user_charge(ctx->user, sizeof(*ctx), ctx->privileged))
		goto err_user;

	init_waitqueue_head(&ctx->wqh);
	mutex_init(&ctx->mutex);
	atomic_set(&ctx->missed, 0);
	wt_core_init(&ctx->core, atomic64_inc_return(&wt_contexts));
	wt_drive_init(ctx);
	mutex_lock(&ctx->mutex);
	wt_configure(ctx, &cfg);
	mutex_unlock(&ctx->mutex);

	file->private_data = ctx;
	file->f_mode |= FMODE_NOWAIT;
	return stream_open(inode, file);

err_user:
	wt_user_put(ctx->user);
err_free:
	kvfree(ctx);
	return ret;
}

static int wt_release(struct inode *inode, struct file *file)
{
	struct wt_ctx *ctx = file->private_data;

	/* Last reference: only the hrtimer could still run. */
	hrtimer_cancel(&ctx->timer);
	/* Every timer, queued, ready or free, lives in the store. */
	wt_user_uncharge(ctx->user, ctx->core.store.bytes + sizeof(*ctx));
	wt_core_destroy(&ctx->core);
	wt_user_put(ctx->user);
	if (ctx->eventfd)
		eventfd_ctx_put(ctx->eventfd);
	mutex_destroy(&ctx->mutex);
	kvfree(ctx);
	return 0;
}

const struct file_operations wt_fops = {
	.owner		= THIS_MODULE,
	.open		= wt_open,
	.release	= wt_release,
	.read_iter	= wt_read_iter,
	.poll		= wt_poll,
	.unlocked_ioctl	= wt_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
#ifdef CONFIG_PROC_FS
	.show_fdinfo	= wt_show_fdinfo,
#endif
};
