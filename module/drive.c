// SPDX-License-Identifier: GPL-2.0
/*
 * drive.c - what moves a wheeltimer file's wheel: its clock, its hrtimer,
 * and the collection of what is due
 *
 * Clock. A file measures time on its clockid, in the time namespace of the
 * process that opened it: the host's CLOCK_MONOTONIC or CLOCK_BOOTTIME
 * reading plus that namespace's offset (as clock_gettime() there shows
 * it), CLOCK_REALTIME as it is, or a virtual clock that only WT_IOC_ADVANCE
 * moves. Every time userspace gives or gets (deadlines, fired_at, QUERY,
 * ADVANCE, fdinfo's now_ns) is on that clock; only the hrtimer is armed on
 * the host's, and wt_tick_to_host() converts.
 *
 * Ticks. A deadline D goes in the wheel at tick ceil(D / resolution),
 * moved later within its slack by wt_wheel_apply_slack(); what is due at a
 * reading N is what the wheel holds up to tick floor(N / resolution). So a
 * timeout is never handed out before its deadline, and with no slack at
 * most one resolution after it, plus the latency of the hrtimer interrupt
 * and of whoever collects it. A deadline is refused (-ERANGE) if its tick
 * would start after KTIME_MAX, where no clock reading could reach it, and
 * slack never moves a timeout past the last tick that can.
 *
 * Tickless drive. The hrtimer is armed at the start of the wheel's
 * earliest non-empty slot, and moved only when an entry goes in before the
 * tick it is armed for (ctx->armed). Cancelling or moving timeouts later
 * leaves it alone: at worst it expires once for nothing. Nothing pending
 * means no interrupt after that one. What is due already (a deadline in
 * the past, or the backlog a reader with a small buffer leaves behind, 64
 * records at a time) needs no hrtimer: wt_program() expires the file's
 * timer then and there, as the callback would a moment later, without an
 * interrupt.
 *
 * The callback does O(1) work. As timerfd's, it takes the waitqueue's lock,
 * notes that it expired and when (ctx->expired_at), wakes the waiters and
 * signals the eventfd; it runs in hard interrupt context (in a softirq
 * thread on PREEMPT_RT) and touches neither the wheel nor any timeout. The
 * timeouts it found due are moved to the ready list later, in process
 * context and charged to whoever looks: read(), poll() and the ioctls call
 * wt_collect() under the file's mutex, which hands them out in slices of
 * WT_COLLECT_SLICE, rescheduling in between and stopping on a fatal
 * signal. No work whose size a user controls runs with interrupts or
 * softirqs off, and none is charged to another user.
 *
 * fired_at. A record's fired_at is the file's clock when the kernel found
 * the timeout due: the reading the callback took at the expiry that found
 * it, for what was due by then, else the reading of the call that
 * collected it. A collection that stops short (a reader's buffer is full)
 * keeps its reading with what is left due at it, the backlog, and the next
 * collection hands that out first, stamped with the same reading: a
 * thousand timeouts found due by one expiry all carry its reading, however
 * many reads take them. fired_at is never less than the deadline. A
 * timeout whose tick has started counts as fired whether or not anyone has
 * collected it: a CANCEL or MODIFY withdraws its record
 * (WT_STATUS_WITHDRAWN), and QUERY calls it fired (wt_due_tick()). Nobody
 * needs to collect while nobody reads or polls: an expiry that finds only
 * a cascade to do wakes the waiters, and the first to look moves the wheel
 * on and re-arms.
 *
 * Who re-arms. After a collection the hrtimer is armed for the wheel's next
 * expiry, unless a backlog is left (whoever collects it re-arms), or
 * records are ready and what is due lies behind them: the reader who
 * empties the ready list then collects it, or arms the hrtimer at once
 * (ctx->reprogram). So while anything is pending, the hrtimer is armed for
 * it, or has expired and a collection is owed, or a backlog or ready
 * records stand in front of it, and a waiter never sleeps while records
 * are owed (wt_records_owed()).
 *
 * Clocks that step back. CLOCK_REALTIME (and a virtual clock set back on
 * purpose) can read earlier than the wheel's own clock, which only moves
 * forward on its own. Entries already in the wheel are safe; a new one
 * whose tick lies between the reading and the wheel's clock would be taken
 * for due and fire early. So whenever the reading is behind the wheel's
 * clock, wt_wheel_rewind() sets the wheel's clock back to it, in O(1) (see
 * wheel.c), before anything is added or collected; ctx->counters.rewinds
 * counts it.
 *
 * Virtual clock. With WT_CONFIG_VIRTUAL the hrtimer is never armed and
 * nothing is collected but by WT_IOC_ADVANCE, which walks the wheel from
 * one due tick to the next, as a real clock would, in the same slices.
 */
#include <linux/eventfd.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/nsproxy.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/time_namespace.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "compat.h"
#include "ctx.h"
#include "trace.h"

/* Entries taken off the wheel between two chances to reschedule. */
#define WT_COLLECT_SLICE	256
/* Like timerfd's, an hrtimer whose callback runs in hard interrupt context. */
#define WT_HRTIMER_MODE		HRTIMER_MODE_ABS

/*
 * The file's clock, in ns. Callers hold the mutex, or are the callback, or
 * fdinfo, which reads the virtual clock without the mutex.
 */
u64 wt_now(const struct wt_ctx *ctx)
{
	s64 now;

	if (wt_is_virtual(ctx))
		return READ_ONCE(ctx->vnow);
	switch (ctx->clockid) {
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

/*
 * The tick at which a deadline of @ns (at most ctx->max_deadline) with
 * @slack ns of slack is due; slack stops at the last tick.
 */
u64 wt_tick(const struct wt_ctx *ctx, u64 ns, u64 slack)
{
	u64 tick = div64_u64(ns + ctx->resolution - 1, ctx->resolution);
	u64 room;

	if (slack) {
		room = min(div64_u64(slack, ctx->resolution),
			   ctx->last_tick - tick);
		tick = wt_wheel_apply_slack(tick, room);
	}
	return tick;
}

/* The last tick that has started at the reading @now. */
u64 wt_tick_now(const struct wt_ctx *ctx, u64 now)
{
	return div64_u64(now, ctx->resolution);
}

/*
 * The absolute deadline of an operation: @deadline itself, or with @abs
 * clear @deadline ns after @now. -ERANGE if its tick would start after
 * KTIME_MAX.
 */
int wt_deadline(const struct wt_ctx *ctx, u64 deadline, bool abs, u64 now,
		u64 *out)
{
	if (!abs) {
		if (deadline > WT_TIME_MAX - now)
			return -ERANGE;
		deadline += now;
	}
	if (deadline > ctx->max_deadline)
		return -ERANGE;
	*out = deadline;
	return 0;
}

/* The host's reading of the hrtimer's clock at which @tick starts. */
static ktime_t wt_tick_to_host(const struct wt_ctx *ctx, u64 tick)
{
	s64 t;

	if (tick > ctx->last_tick)
		return KTIME_MAX;
	t = tick * ctx->resolution;
	if (ctx->offset >= 0)
		return t > ctx->offset ? t - ctx->offset : 0;
	return t > KTIME_MAX + ctx->offset ? KTIME_MAX : t - ctx->offset;
}

/* Set the wheel's clock back to the file's reading @now if it is behind. */
static void wt_rewind(struct wt_ctx *ctx, u64 nowtick)
{
	lockdep_assert_held(&ctx->mutex);
	if (nowtick >= ctx->wheel.clk)
		return;
	wt_wheel_rewind(&ctx->wheel, nowtick);
	wt_count(ctx, rewinds, 1);
	/* Due entries it made future are re-placed at the next expiry. */
	ctx->reprogram = true;
}

/*
 * Queue @t, which is in neither the wheel nor the ready list, at @tick. The
 * caller makes sure wt_program() runs (ctx->reprogram) before it lets go of
 * the mutex.
 */
void wt_queue(struct wt_ctx *ctx, struct wt_timer *t, u64 tick)
{
	lockdep_assert_held(&ctx->mutex);
	/* Due for the wheel: is it due for the clock too? */
	if (tick <= ctx->wheel.clk)
		wt_rewind(ctx, wt_tick_now(ctx, wt_now(ctx)));
	t->state = WT_TIMER_QUEUED;
	wt_wheel_add(&ctx->wheel, &t->entry, tick);
	if (tick < ctx->armed)
		ctx->reprogram = true;
}

/*
 * The first tick that is not due at the reading @now, nor found due by an
 * hrtimer expiry not collected yet: a queued timeout before it has fired,
 * though nobody may have collected it (nobody needs to, while nobody
 * reads or polls). 0 on a virtual clock, where only ADVANCE fires.
 */
u64 wt_due_tick(struct wt_ctx *ctx, u64 now)
{
	u64 tick;

	lockdep_assert_held(&ctx->mutex);
	if (wt_is_virtual(ctx))
		return 0;
	tick = wt_tick_now(ctx, now);
	if (ctx->backlog)
		tick = max(tick, wt_tick_now(ctx, ctx->backlog_at));
	if (READ_ONCE(ctx->expired)) {
		spin_lock_irq(&ctx->wqh.lock);
		/* A clock stepped back since may read before the expiry. */
		if (ctx->expired)
			tick = max(tick, wt_tick_now(ctx, ctx->expired_at));
		spin_unlock_irq(&ctx->wqh.lock);
	}
	return tick + 1;
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

static void wt_arm(struct wt_ctx *ctx, u64 tick)
{
	ktime_t expires = wt_tick_to_host(ctx, tick);

	WRITE_ONCE(ctx->armed, tick);
	wt_count(ctx, programs, 1);
	trace_wheeltimer_hrtimer_program(ctx->context_id, tick, expires);
	hrtimer_start(&ctx->timer, expires, WT_HRTIMER_MODE);
}

/*
 * Make sure the file's timer expires by the wheel's next expiry: start the
 * hrtimer if that is earlier than what it is armed for, or expire at once
 * if it is due already, unless records are ready and the next expiry is a
 * backlog behind them (see "Who re-arms" above). An emptied wheel leaves
 * the hrtimer armed: it expires once for nothing, which costs less than
 * cancelling it now and starting it again for the next add.
 */
void wt_program(struct wt_ctx *ctx)
{
	u64 tick, now;

	lockdep_assert_held(&ctx->mutex);
	ctx->reprogram = false;
	/* A backlog is collected first, and its collection programs again. */
	if (wt_is_virtual(ctx) || ctx->backlog)
		return;
	/* Not queued: it has expired (or is expiring) since it was armed. */
	if (!hrtimer_is_queued(&ctx->timer))
		WRITE_ONCE(ctx->armed, WT_UNARMED);
	if (!wt_wheel_next_expiry(&ctx->wheel, &tick))
		return;
	if (ctx->nr_ready && tick <= ctx->collected)
		return;
	if (tick >= ctx->armed)
		return;
	/* Already due: expire now, not by an interrupt a moment later. */
	now = wt_now(ctx);
	if (tick <= wt_tick_now(ctx, now)) {
		spin_lock_irq(&ctx->wqh.lock);
		wt_expire_locked(ctx, now);
		spin_unlock_irq(&ctx->wqh.lock);
		return;
	}
	wt_arm(ctx, tick);
}

/*
 * Move what is due at @now to the ready list, stamped @now, within
 * *@budget. Returns how many records were queued.
 */
static unsigned int __wt_expire(struct wt_ctx *ctx, u64 now, u64 nowtick,
				unsigned int *budget)
{
	struct wheel_entry *e;
	struct wt_timer *t;
	unsigned int n = 0;

	lockdep_assert_held(&ctx->mutex);
	while ((e = wt_wheel_expire(&ctx->wheel, nowtick, budget))) {
		t = container_of(e, struct wt_timer, entry);
		t->state = WT_TIMER_READY;
		t->ready.fired_at = now;
		wt_ready_append(ctx, t);
		trace_wheeltimer_expire(ctx->context_id, wt_timer_id(t),
					t->deadline, now);
		n++;
	}
	wt_count(ctx, fired, n);
	return n;
}

/* How a collection at one reading ended. */
enum wt_collected {
	WT_DRAINED,	/* everything due at the reading is on the ready list */
	WT_STOPPED,	/* @want records were ready, or a fatal signal came */
};

/*
 * Hand out what is due at the reading @at, stamped @at, in slices, until
 * @want records are ready or nothing more is due at it.
 */
static enum wt_collected wt_collect_at(struct wt_ctx *ctx, u64 at, u64 want)
{
	u64 attick = wt_tick_now(ctx, at);
	unsigned int budget;

	lockdep_assert_held(&ctx->mutex);
	for (;;) {
		if (ctx->nr_ready >= want)
			return WT_STOPPED;
		budget = WT_COLLECT_SLICE;
		__wt_expire(ctx, at, attick, &budget);
		if (budget)
			return WT_DRAINED;
		cond_resched();
		if (fatal_signal_pending(current))
			return WT_STOPPED;
	}
}

/*
 * Collect at the reading @at; if that stops short, what is left due at it
 * is the backlog, to be collected with the same reading next time.
 */
static enum wt_collected wt_collect_or_keep(struct wt_ctx *ctx, u64 at,
					    u64 want)
{
	if (wt_collect_at(ctx, at, want) == WT_DRAINED)
		return WT_DRAINED;
	ctx->backlog_at = at;
	WRITE_ONCE(ctx->backlog, true);
	return WT_STOPPED;
}

/**
 * wt_collect() - move the timeouts that are due to the ready list
 * @ctx: the context; caller holds its mutex
 * @want: stop once this many records are ready (WT_COLLECT_ALL: never)
 *
 * Each timeout is stamped with the reading of the look that found it due:
 * first the backlog that a collection stopped short left, with that
 * collection's reading; then what the last hrtimer expiry found, with the
 * expiry's reading; then the rest, with the clock now. A reading the clock
 * has since stepped back from is dropped: what it found is due again when
 * the clock gets there (see "Clocks that step back"). Then the hrtimer is
 * armed for whatever comes next. A virtual clock collects only in
 * wt_advance().
 */
void wt_collect(struct wt_ctx *ctx, u64 want)
{
	u64 at, now, nowtick;
	bool expired;

	lockdep_assert_held(&ctx->mutex);
	if (wt_is_virtual(ctx))
		return;
	now = wt_now(ctx);
	nowtick = wt_tick_now(ctx, now);
	if (ctx->backlog) {
		at = ctx->backlog_at;
		if (wt_tick_now(ctx, at) <= nowtick &&
		    wt_collect_at(ctx, at, want) != WT_DRAINED)
			goto out;
		WRITE_ONCE(ctx->backlog, false);
	}

	spin_lock_irq(&ctx->wqh.lock);
	expired = ctx->expired;
	at = ctx->expired_at;
	WRITE_ONCE(ctx->expired, false);
	spin_unlock_irq(&ctx->wqh.lock);

	if (expired && wt_tick_now(ctx, at) <= nowtick &&
	    wt_collect_or_keep(ctx, at, want) != WT_DRAINED)
		goto out;
	wt_rewind(ctx, nowtick);
	if (wt_collect_or_keep(ctx, now, want) == WT_DRAINED)
		ctx->collected = nowtick;
out:
	wt_program(ctx);
}

/**
 * wt_advance() - move a virtual clock to @target
 * @ctx: a virtual context; caller holds its mutex
 * @target: the new clock, at most WT_TIME_MAX; earlier than the clock only
 *	when the caller allows a step back
 * @expired: set to how many timeouts fired
 *
 * Fires what comes due on the way at the tick it is due, as a real clock
 * would, in slices, and signals the readers and the eventfd once if
 * anything fired. Return: 0, or -EINTR if a fatal signal stopped it (the
 * clock then stands where it stopped, everything due by then fired).
 */
int wt_advance(struct wt_ctx *ctx, u64 target, u64 *expired)
{
	u64 ttick = wt_tick_now(ctx, target);
	unsigned int budget;
	u64 tick, n = 0;
	int ret = 0;

	lockdep_assert_held(&ctx->mutex);
	if (target < ctx->vnow) {
		/* Stepped back: nothing fires. */
		WRITE_ONCE(ctx->vnow, target);
		wt_rewind(ctx, ttick);
		*expired = 0;
		return 0;
	}
	for (;;) {
		budget = WT_COLLECT_SLICE;
		while (budget) {
			if (!wt_wheel_next_expiry(&ctx->wheel, &tick) ||
			    tick > ttick)
				goto done;
			/* tick <= ttick, so tick * resolution <= target */
			WRITE_ONCE(ctx->vnow,
				   max(ctx->vnow, tick * ctx->resolution));
			n += __wt_expire(ctx, ctx->vnow, tick, &budget);
		}
		cond_resched();
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
	}
done:
	if (!ret)
		WRITE_ONCE(ctx->vnow, target);
	if (n)
		wt_notify(ctx);
	*expired = n;
	return ret;
}

static enum hrtimer_restart wt_hrtimer_fn(struct hrtimer *timer)
{
	struct wt_ctx *ctx = container_of(timer, struct wt_ctx, timer);
	unsigned long flags;

	spin_lock_irqsave(&ctx->wqh.lock, flags);
	wt_expire_locked(ctx, wt_now(ctx));
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
 * @cfg: a configuration already checked
 */
void wt_configure(struct wt_ctx *ctx, const struct wt_config *cfg)
{
	lockdep_assert_held(&ctx->mutex);
	/* Nothing is queued, but the hrtimer may still fire once for nothing. */
	hrtimer_cancel(&ctx->timer);
	wt_hrtimer_setup(&ctx->timer, wt_hrtimer_fn, cfg->clockid,
			 WT_HRTIMER_MODE);
	ctx->resolution = cfg->resolution;
	ctx->last_tick = div64_u64(WT_TIME_MAX, cfg->resolution);
	ctx->max_deadline = ctx->last_tick * cfg->resolution;
	ctx->max_pending = cfg->max_pending;
	ctx->flags = cfg->flags;
	ctx->clockid = cfg->clockid;
	ctx->offset = cfg->flags & WT_CONFIG_VIRTUAL ? 0 :
		      wt_ns_offset(ctx, cfg->clockid);
	WRITE_ONCE(ctx->vnow, 0);
	WRITE_ONCE(ctx->armed, WT_UNARMED);
	ctx->reprogram = false;
	spin_lock_irq(&ctx->wqh.lock);
	WRITE_ONCE(ctx->expired, false);
	spin_unlock_irq(&ctx->wqh.lock);
	WRITE_ONCE(ctx->backlog, false);
	wt_wheel_init(&ctx->wheel, wt_tick_now(ctx, wt_now(ctx)));
	ctx->collected = ctx->wheel.clk;
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
