// SPDX-License-Identifier: GPL-2.0
/*
 * lock.c - the file's mutex, and the note of who it turned away
 *
 * ctx->mutex serializes what userspace does to a file (ctx.h). poll() and
 * non-blocking reads only try it: a caller turned away leaves a note in
 * ctx->missed, and the holder, when it lets go, wakes the waiters (and
 * signals the eventfd for a reader that may wait on it alone), so that
 * nobody misses what the holder did meanwhile.
 */
#include <linux/atomic.h>
#include <linux/eventfd.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "compat.h"
#include "ctx.h"

int wt_lock(struct wt_ctx *ctx)
{
	/* Nothing has happened yet, so the call can be restarted. */
	return mutex_lock_interruptible(&ctx->mutex) ? -ERESTARTSYS : 0;
}

/*
 * Take the mutex if it is free. If it is not, leave a note for its holder
 * first, saying who was turned away (WT_MISSED_POLL, WT_MISSED_READ): the
 * holder's wt_unlock() either sees the note and wakes the waiters, or has
 * let go already, and the second try gets the mutex.
 */
bool wt_trylock(struct wt_ctx *ctx, int who)
{
	if (mutex_trylock(&ctx->mutex))
		return true;
	atomic_or(who, &ctx->missed);
	/* Pairs with the barrier in wt_unlock(). */
	smp_mb__after_atomic();
	return mutex_trylock(&ctx->mutex);
}

void wt_unlock(struct wt_ctx *ctx)
{
	int missed;

	mutex_unlock(&ctx->mutex);
	/* Pairs with the barrier in wt_trylock(). */
	smp_mb();
	if (!atomic_read(&ctx->missed))
		return;
	missed = atomic_xchg(&ctx->missed, 0);
	if (!missed)
		return;
	spin_lock_irq(&ctx->wqh.lock);
	wake_up_locked_poll(&ctx->wqh, EPOLLIN | EPOLLRDNORM);
	/*
	 * A non-blocking reader turned away may be one that waits on the
	 * eventfd alone, which would otherwise wait for good; a poller is
	 * woken above.
	 */
	if (missed & WT_MISSED_READ && ctx->eventfd && wt_records_owed(ctx))
		wt_eventfd_signal(ctx->eventfd);
	spin_unlock_irq(&ctx->wqh.lock);
}
