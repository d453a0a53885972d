// SPDX-License-Identifier: GPL-2.0
/*
 * drive.c - what drives a wheeltimer file's core in the kernel: its clock,
 * its hrtimer, and the memory it charges
 *
 * It defines the calls core.h lists for them.
 *
 * Clock. A file measures time on its clockid, in the time namespace of the
 * process that opened it: the host's CLOCK_MONOTONIC or CLOCK_BOOTTIME
 * reading plus that namespace's offset (as clock_gettime() there shows
 * it), CLOCK_REALTIME as it is, or a virtual clock (the core's own). Every
 * time userspace gives or gets is on that clock; only the hrtimer is armed
 * on the host's, and wt_tick_to_host() converts.
 *
 * The hrtimer's callback does O(1) work. As timerfd's, it takes the
 * waitqueue's lock, notes that it expired and when (ctx->expired_at),
 * wakes the waiters and signals the eventfd; it runs in hard interrupt
 * context (in a softirq thread on PREEMPT_RT) and touches neither the
 * wheel nor any timeout. The timeouts it found due are collected later,
 * in process context, by whoever looks (core.c).
 */
#include <linux/eventfd.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/nsproxy.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/time_namespace.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "compat.h"
#include "ctx.h"
#include "trace.h"
#include "user.h"

/* Like timerfd's, an hrtimer whose callback runs in hard interrupt context. */
#define WT_HRTIMER_MODE		HRTIMER_MODE_ABS

/* The file's real clock, in ns; the callback and fdinfo call it too. */
u64 wt_core_clock(const struct wt_core *core)
{
	const struct wt_ctx *ctx = wt_ctx_of(core);
	s64 now;

	switch (core->clockid) {
	case CLOCK_BOOTTIME:
		now = ktime_get_boottime();
		break;
	case CLOCK_REALTIME:
		now = ktime_get_real();
		break;
	default:
		now = ktime_get();
		break;
	}
	/* The namespace's own reading: never negative, never past the end. */
	if (ctx->offset > 0 && now > KTIME_MAX - ctx->offset)
		return WT_TIME_MAX;
	now += ctx->offset;
	return now < 0 ? 0 : now;
}

/* The host's reading of the hrtimer's clock at which @tick starts. */
static ktime_t wt_tick_to_host(const struct wt_ctx *ctx, u64 tick)
{
	s64 t;

	if (tick > ctx->core.last_tick)
		return KTIME_MAX;
	t = tick * ctx->core.resolution;
	if (ctx->offset >= 0)
		return t > ctx->offset ? t - ctx->offset : 0;
	return t > KTIME_MAX + ctx->offset ? KTIME_MAX : t - ctx->offset;
}

bool wt_core_expiry(struct wt_core *core, u64 *at, bool take)
{
	struct wt_ctx *ctx = wt_ctx_of(core);
	bool expired;

	lockdep_assert_held(&ctx->mutex);
	if (!READ_ONCE(ctx->expired))
		return false;
	spin_lock_irq(&ctx->wqh.lock);
	expired = ctx->expired;
	*at = ctx->expired_at;
	if (take)
		WRITE_ONCE(ctx->expired, false);
	spin_unlock_irq(&ctx->wqh.lock);
	return expired;
}

/* Wake the readers and signal the eventfd; caller holds wqh.lock. */
static void wt_notify_locked(struct wt_ctx *ctx)
{
	lockdep_assert_held(&ctx->wqh.lock);
	wake_up_locked_poll(&ctx->wqh, EPOLLIN | EPOLLRDNORM);
	if (ctx->eventfd)
		wt_eventfd_signal(ctx->eventfd);
}

/* The same; caller does not hold wqh.lock. */
void wt_notify(struct wt_ctx *ctx)
{
	spin_lock_irq(&ctx->wqh.lock);
	wt_notify_locked(ctx);
	spin_unlock_irq(&ctx->wqh.lock);
}

void wt_core_notify(struct wt_core *core)
{
	lockdep_assert_held(&wt_ctx_of(core)->mutex);
	wt_notify(wt_ctx_of(core));
}

/*
 * The file's timer expires at the reading @now: what is due then waits to
 * be collected, stamped @now (the first uncollected expiry's reading), and
 * the waiters and the eventfd hear of it. Caller holds wqh.lock.
 */
static void wt_expire_locked(struct wt_ctx *ctx, u64 now)
{
	lockdep_assert_held(&ctx->wqh.lock);
	if (!ctx->expired) {
		WRITE_ONCE(ctx->expired, true);
		ctx->expired_at = now;
	}
	ctx->expiries++;
	wt_notify_locked(ctx);
}

void wt_core_expire_now(struct wt_core *core, u64 now)
{
	struct wt_ctx *ctx = wt_ctx_of(core);

	lockdep_assert_held(&ctx->mutex);
	spin_lock_irq(&ctx->wqh.lock);
	wt_expire_locked(ctx, now);
	spin_unlock_irq(&ctx->wqh.lock);
}

void wt_core_arm(struct wt_core *core, u64 tick)
{
	struct wt_ctx *ctx = wt_ctx_of(core);
	ktime_t expires = wt_tick_to_host(ctx, tick);

	lockdep_assert_held(&ctx->mutex);
	trace_wheeltimer_hrtimer_program(core->id, tick, expires);
	hrtimer_start(&ctx->timer, expires, WT_HRTIMER_MODE);
}

/* Not queued: it has expired (or is expiring) since it was armed. */
bool wt_core_armed(const struct wt_core *core)
{
	return hrtimer_is_queued(&wt_ctx_of(core)->timer);
}

/* The store's memory counts against the opener's user (user.h). */
bool wt_core_charge(struct wt_core *core, size_t bytes)
{
	struct wt_ctx *ctx = wt_ctx_of(core);

	lockdep_assert_held(&ctx->mutex);
	return wt_user_charge(ctx->user, bytes, ctx->privileged);
}

void wt_core_uncharge(struct wt_core *core, size_t bytes)
{
	struct wt_ctx *ctx = wt_ctx_of(core);

	/* Mostly nothing: spare the user's shared counter the atomic. */
	if (bytes)
		wt_user_uncharge(ctx->user, bytes);
}

static enum hrtimer_restart wt_hrtimer_fn(struct hrtimer *timer)
{
	struct wt_ctx *ctx = container_of(timer, struct wt_ctx, timer);
	unsigned long flags;

	spin_lock_irqsave(&ctx->wqh.lock, flags);
	wt_expire_locked(ctx, wt_core_clock(&ctx->core));
	spin_unlock_irqrestore(&ctx->wqh.lock, flags);
	/* Re-armed, if at all, by the collection it asks for. */
	return HRTIMER_NORESTART;
}

/* The time namespace offset the opener sees on @clockid. */
static s64 wt_ns_offset(const struct wt_ctx *ctx, clockid_t clockid)
{
	switch (clockid) {
	case CLOCK_MONOTONIC:
		return ctx->ns_monotonic;
	case CLOCK_BOOTTIME:
		return ctx->ns_boottime;
	default:
		return 0;
	}
}

/**
 * wt_configure() - set the configuration of an empty context
 * @ctx: the context; caller holds its mutex, and it holds no timeout
 * @cfg: a configuration already checked, with a non-zero max_pending
 */
void wt_configure(struct wt_ctx *ctx, const struct wt_config *cfg)
{
	lockdep_assert_held(&ctx->mutex);
	/* Nothing is queued, but the hrtimer may still fire once for nothing. */
	hrtimer_cancel(&ctx->timer);
	/* fdinfo reads the configuration under this lock alone (ctx.h). */
	spin_lock_irq(&ctx->wqh.lock);
	wt_hrtimer_setup(&ctx->timer, wt_hrtimer_fn, cfg->clockid,
			 WT_HRTIMER_MODE);
	ctx->offset = cfg->flags & WT_CONFIG_VIRTUAL ? 0 :
		      wt_ns_offset(ctx, cfg->clockid);
	WRITE_ONCE(ctx->expired, false);
	wt_core_configure(&ctx->core, cfg);
	spin_unlock_irq(&ctx->wqh.lock);
}

/*
 * Set up the drive of a new context: its hrtimer, and the time namespace
 * of the process opening it, whose offsets stay fixed once a process is in
 * it.
 */
void wt_drive_init(struct wt_ctx *ctx)
{
#ifdef CONFIG_TIME_NS
	const struct timens_offsets *off = &current->nsproxy->time_ns->offsets;

	ctx->ns_monotonic = timespec64_to_ns(&off->monotonic);
	ctx->ns_boottime = timespec64_to_ns(&off->boottime);
#endif
	wt_hrtimer_setup(&ctx->timer, wt_hrtimer_fn, CLOCK_MONOTONIC,
			 WT_HRTIMER_MODE);
}
