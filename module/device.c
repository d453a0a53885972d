// SPDX-License-Identifier: GPL-2.0
/*
 * wheeltimer - millions of timeouts per file in a tickless timing wheel
 *
 * Each open of /dev/wheeltimer is an independent context: a timing wheel
 * (wheel.c), a store of the timeouts in it, a list of records ready to be
 * read, and one hrtimer. The interface is described in <linux/wheeltimer.h>;
 * this comment is about how it is driven.
 *
 * The timer store (store.h) holds a context's timeouts in page-sized
 * blocks and turns ids into timeouts with a division and two loads; freed
 * timeouts are reused, most recently freed first, under a new generation.
 *
 * Ticks. A deadline D (ns on the context's clock) goes in the wheel at tick
 * ceil(D / resolution), moved later within its slack by wheel_apply_slack();
 * the wheel is asked for what is due at tick floor(now / resolution). So a
 * timeout is never handed out before its deadline, and with zero slack at
 * most one resolution after it, plus the latency of the hrtimer.
 *
 * Tickless drive. The hrtimer is armed, in absolute mode on the context's
 * clock, at the start of the wheel's earliest non-empty slot, and is moved
 * only when an add, a move or a periodic re-arm puts an entry in the wheel
 * before the tick it is armed for (ctx->armed remembers that tick,
 * ctx->reprogram that it was undercut; ctx->stats.programs counts how often
 * the hrtimer was started).
 * Cancelling or moving timeouts later does not re-program it, and neither
 * does emptying the wheel: at worst it fires once for nothing and arms
 * itself for the next slot, or not at all. Nothing pending means no
 * interrupt after that one.
 *
 * Batches. Operations are applied in chunks of WT_OPS_CHUNK, each read
 * field by field, applied under one hold of the lock with at most one
 * clock reading and one hrtimer programming, and answered by writing back
 * only @id, @status and @error. Reading a chunk clears those fields, which
 * checks that they can be written; a batch of more chunks than one has its
 * pages probed for reading and writing first. Either way a bad array fails
 * before anything is applied.
 *
 * Bounded work. The hrtimer is a soft one: its callback runs in the timer
 * softirq (in a softirq thread on PREEMPT_RT), where the kernel bounds the
 * time spent and defers the rest to ksoftirqd, and it is written to be
 * correct in hard interrupt context as well. It takes at most
 * WT_EXPIRE_BATCH entries off the wheel, cascades included. If the budget
 * runs out, it arms itself WT_EXPIRE_BACKOFF_NS after a fresh clock reading
 * rather than at once: an hrtimer re-armed in the past would be run again
 * in the same pass over the expired timers, which is the stall the budget
 * exists to avoid. A million timeouts due at once thus reach the ready list
 * in slices of 256, and other interrupts and tasks run in between.
 *
 * Delivery. A timeout that comes due moves from the wheel to the ready list
 * (the same hlist_node serves both) and stays there until read() or a
 * cancel takes it: a timeout is in the wheel or on the ready list, never
 * both, so there is at most one record per timeout and a slow reader costs
 * no wake-ups. Periodic timeouts are re-queued by the read() that consumes
 * their record: FIXED_RATE at the first deadline + k * period after the
 * read (k - 1 overruns), FIXED_DELAY one period after the read.
 *
 * Virtual clock. With WT_CONFIG_VIRTUAL the hrtimer is never armed; time
 * is ctx->vnow and moves only by WT_IOC_ADVANCE, which walks the wheel from
 * one due tick to the next as a real clock would, in batches of
 * WT_EXPIRE_BATCH with the lock dropped in between.
 *
 * Clocks that step backwards. CLOCK_REALTIME (and the virtual clock set
 * back on purpose) can read earlier than the wheel's own clock, which only
 * moves forward. Pending entries are safe: their ticks are above the
 * wheel's clock, so they wait for the clock to catch up. But a new entry
 * whose tick lies between the clock's reading and the wheel's clock would
 * be taken for due and fire early. When an add, modify or re-arm meets that
 * case, the wheel is rebuilt around the clock's reading (drained and every
 * entry added again): O(pending) once per backward step that an add
 * actually lands in, with interrupts off; ctx->stats.rebuilds counts them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/wheeltimer.h>

#include "compat.h"
#include "store.h"
#include "wheel.h"

/* Entries the hrtimer callback takes off the wheel per run, cascades included. */
#define WT_EXPIRE_BATCH		256
/* How much later the callback comes back when its budget ran out. */
#define WT_EXPIRE_BACKOFF_NS	(20 * NSEC_PER_USEC)
/* Records read() moves per round trip through the lock. */
#define WT_READ_BATCH		64
/*
 * Soft: the callback runs in softirq, where the kernel bounds and defers
 * bulk work across all files, rather than in the hard interrupt, where the
 * batches of many files due at once would add up in one hrtimer_interrupt()
 * and trip its hang detection.
 */
#define WT_HRTIMER_MODE		HRTIMER_MODE_ABS_SOFT
/* ctx->armed when the hrtimer is not armed for anything we rely on. */
#define WT_UNARMED		U64_MAX
/* The last nanosecond a deadline may name. */
#define WT_TIME_MAX		((u64)KTIME_MAX)

#define WT_ADD_FLAGS		(WT_ABSTIME | WT_FIXED_RATE | WT_FIXED_DELAY)
#define WT_PERIODIC_FLAGS	(WT_FIXED_RATE | WT_FIXED_DELAY)
#define WT_FEATURES		(WT_FEATURE_VIRTUAL_CLOCK | WT_FEATURE_PERIODIC | \
				 WT_FEATURE_SLACK | WT_FEATURE_EVENTFD | \
				 WT_FEATURE_BOOTTIME | WT_FEATURE_REALTIME)
#define WT_IOCTLS		(BIT_ULL(_WT_IOC_API) | \
				 BIT_ULL(_WT_IOC_SET_CONFIG) | \
				 BIT_ULL(_WT_IOC_GET_CONFIG) | \
				 BIT_ULL(_WT_IOC_ADD) | BIT_ULL(_WT_IOC_CANCEL) | \
				 BIT_ULL(_WT_IOC_MODIFY) | BIT_ULL(_WT_IOC_BATCH) | \
				 BIT_ULL(_WT_IOC_ADVANCE) | \
				 BIT_ULL(_WT_IOC_SET_EVENTFD) | \
				 BIT_ULL(_WT_IOC_QUERY))

/* Records read() moves per round trip, and the room they take. */
#define WT_SCRATCH_SIZE		(WT_READ_BATCH * sizeof(struct wt_event))
/* Operations applied per hold of the lock: as many as the same room takes. */
#define WT_OPS_CHUNK		(WT_SCRATCH_SIZE / sizeof(struct wt_op))
/* No file may hold more timeouts than there are indices (u32, from 1). */
#define WT_PENDING_CEILING	((unsigned long)U32_MAX - PAGE_SIZE)

static unsigned long max_pending = 1UL << 20;
module_param(max_pending, ulong, 0644);
MODULE_PARM_DESC(max_pending,
		 "Timeouts a new file may hold until WT_IOC_SET_CONFIG changes it (default 1048576)");

static unsigned long max_pending_limit = 1UL << 24;
module_param(max_pending_limit, ulong, 0644);
MODULE_PARM_DESC(max_pending_limit,
		 "The most timeouts WT_IOC_SET_CONFIG may allow one file (default 16777216)");

/* A record read() has taken off the ready list and is copying out. */
struct wt_taken {
	struct wt_timer *timer;
	u64 next;		/* the deadline a periodic one goes on with */
};

/**
 * struct wt_stats - what happened in a context, as show_fdinfo prints it
 * @added: timeouts added
 * @modified: successful MODIFY operations
 * @fired: records queued on the ready list (periodic ones once per period)
 * @delivered: records copied out by read()
 * @cancelled: timeouts cancelled while queued
 * @withdrawn: records withdrawn unread, by CANCEL or MODIFY
 * @overruns: FIXED_RATE periods skipped while records were unread
 * @programs: times the hrtimer was started
 * @rebuilds: times the wheel was rebuilt after the clock stepped back
 */
struct wt_stats {
	u64 added;
	u64 modified;
	u64 fired;
	u64 delivered;
	u64 cancelled;
	u64 withdrawn;
	u64 overruns;
	u64 programs;
	u64 rebuilds;
};

/*
 * Locking order:
 *	ctx->mutex
 *	  ctx->wqh.lock		(irq-safe)
 *	    the registered eventfd's lock, and the locks of whatever waits on
 *	    ctx->wqh (eventfd_signal(), wake_up_locked_poll())
 *
 * ctx->mutex serializes everything userspace does: every ioctl, and read()
 * while it takes records and copies them out (it is not held while read()
 * sleeps for records). It protects the timer store (@store, every timer's
 * @gen and the periods of every block) and whatever only userspace
 * changes: @taken, @scratch, and the configuration,
 * which is also written under ctx->wqh.lock so that the hrtimer callback may
 * read it under that lock alone. The hrtimer callback never looks an id up
 * nor frees a timer.
 *
 * ctx->wqh.lock, the waitqueue's lock as in timerfd, is what the hrtimer
 * callback takes. It protects the wheel, the ready list and every timer's
 * @state, @deadline and list links, @vnow, @armed, @eventfd and the
 * counters. Process context takes it with spin_lock_irq(). Functions named
 * __wt_*() expect it held.
 *
 * Nothing is allocated under ctx->wqh.lock: an operation that needs memory
 * makes wt_apply_ops() drop the lock, grow the store and try again.
 */

/**
 * struct wt_ctx - the context of one open file
 * @wqh: waiters for records; its lock is the context's spinlock
 * @mutex: serializes userspace operations, see above
 * @ready: timeouts that fired and whose record is unread, oldest first
 * @ready_tail: the last node of @ready, for O(1) appends; NULL when empty
 * @timer: the hrtimer driving the wheel on a real clock
 * @armed: the tick @timer was last armed for, WT_UNARMED if none; @timer
 *	fires no later than @armed * @resolution
 * @reprogram: an entry went in the wheel earlier than @armed since
 *	__wt_program() last ran
 * @vnow: the virtual clock, in ns, when WT_CONFIG_VIRTUAL
 * @eventfd: signalled when records become ready, or NULL
 * @resolution: ns per tick
 * @max_pending: the most live timeouts the context may hold
 * @flags: WT_CONFIG_* flags
 * @clockid: the clock deadlines are measured on
 * @store: the timeouts; @store.nr_live of them hold an id (queued, ready
 *	or being read)
 * @nr_ready: records on @ready
 * @stats: event counters, for show_fdinfo
 * @taken: records read() is copying out, and their timeouts
 * @scratch: WT_SCRATCH_SIZE bytes for read() or for a chunk of operations
 * @scratch.events: the records read() copies out
 * @scratch.ops: the operations being applied
 * @wheel: the timing wheel, last because it is large (3.6 KiB)
 */
struct wt_ctx {
	wait_queue_head_t wqh;
	struct mutex mutex;	/* see the locking order above */
	struct hlist_head ready;
	struct hlist_node *ready_tail;
	struct hrtimer timer;
	u64 armed;
	bool reprogram;
	u64 vnow;
	struct eventfd_ctx *eventfd;
	u64 resolution;
	u64 max_pending;
	u64 flags;
	clockid_t clockid;
	struct wt_store store;
	u64 nr_ready;
	struct wt_stats stats;
	struct wt_taken *taken;
	union {
		struct wt_event *events;
		struct wt_op *ops;
	} scratch;
	struct wheel wheel;
};

static bool wt_is_virtual(const struct wt_ctx *ctx)
{
	return ctx->flags & WT_CONFIG_VIRTUAL;
}

/* The context's clock; callers hold ctx->mutex or ctx->wqh.lock. */
static u64 wt_now(const struct wt_ctx *ctx)
{
	ktime_t now;

	if (wt_is_virtual(ctx))
		return ctx->vnow;
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
	/* The wall clock cannot be set before 1970, but be sure. */
	return now < 0 ? 0 : now;
}

/* The tick at which a deadline of @ns with @slack ns of slack is due. */
static u64 wt_tick(const struct wt_ctx *ctx, u64 ns, u64 slack)
{
	u64 tick = div64_u64(ns + ctx->resolution - 1, ctx->resolution);

	if (slack)
		tick = wheel_apply_slack(tick, div64_u64(slack, ctx->resolution));
	return tick;
}

static u64 wt_tick_now(const struct wt_ctx *ctx, u64 now)
{
	return div64_u64(now, ctx->resolution);
}

/* The start of @tick as an hrtimer expiry; ticks past KTIME_MAX saturate. */
static ktime_t wt_tick_to_ktime(const struct wt_ctx *ctx, u64 tick)
{
	if (tick > div64_u64(WT_TIME_MAX, ctx->resolution))
		return KTIME_MAX;
	return tick * ctx->resolution;
}

static u64 wt_kind_flags(const struct wt_timer *t)
{
	switch (t->kind) {
	case WT_KIND_FIXED_RATE:
		return WT_FIXED_RATE;
	case WT_KIND_FIXED_DELAY:
		return WT_FIXED_DELAY;
	default:
		return 0;
	}
}

/* The ready list: an hlist used as a FIFO through its tail pointer. */
static void __wt_ready_append(struct wt_ctx *ctx, struct wt_timer *t)
{
	if (ctx->ready_tail)
		hlist_add_behind(&t->ready.link, ctx->ready_tail);
	else
		hlist_add_head(&t->ready.link, &ctx->ready);
	ctx->ready_tail = &t->ready.link;
	ctx->nr_ready++;
}

static void __wt_ready_push_front(struct wt_ctx *ctx, struct wt_timer *t)
{
	hlist_add_head(&t->ready.link, &ctx->ready);
	if (!ctx->ready_tail)
		ctx->ready_tail = &t->ready.link;
	ctx->nr_ready++;
}

static void __wt_ready_del(struct wt_ctx *ctx, struct wt_timer *t)
{
	struct hlist_node *node = &t->ready.link;

	if (ctx->ready_tail == node)
		ctx->ready_tail = node->pprev == &ctx->ready.first ? NULL :
				  container_of(node->pprev, struct hlist_node, next);
	hlist_del_init(node);
	ctx->nr_ready--;
}

static void __wt_arm(struct wt_ctx *ctx, u64 tick, ktime_t expires)
{
	ctx->armed = tick;
	ctx->stats.programs++;
	hrtimer_start(&ctx->timer, expires, WT_HRTIMER_MODE);
}

/*
 * Make sure the hrtimer fires by the wheel's next expiry: start it if that
 * is earlier than what it is armed for. An emptied wheel leaves it armed:
 * it then fires once for nothing and does not re-arm, which costs less than
 * the two clock event programmings that cancelling it, then starting it
 * again for the next add, would cost in the usual add-then-cancel pattern.
 */
static void __wt_program(struct wt_ctx *ctx)
{
	u64 tick;

	lockdep_assert_held(&ctx->wqh.lock);
	ctx->reprogram = false;
	if (wt_is_virtual(ctx) || !wheel_next_expiry(&ctx->wheel, &tick))
		return;
	if (tick < ctx->armed)
		__wt_arm(ctx, tick, wt_tick_to_ktime(ctx, tick));
}

/*
 * The same after adds, moves and re-arms, but only if one of them went in
 * earlier than the hrtimer is armed for: otherwise the hrtimer fires by
 * then anyway, and __wt_program() runs from its callback.
 */
static void __wt_program_queued(struct wt_ctx *ctx)
{
	if (ctx->reprogram)
		__wt_program(ctx);
}

/* Put every entry back in a wheel whose clock is @nowtick. */
static void __wt_rebuild(struct wt_ctx *ctx, u64 nowtick)
{
	struct wheel_entry *e;
	struct hlist_node *tmp;
	HLIST_HEAD(all);

	while ((e = wheel_drain(&ctx->wheel)))
		hlist_add_head(&e->node, &all);
	wheel_init(&ctx->wheel, nowtick);
	hlist_for_each_entry_safe(e, tmp, &all, node) {
		hlist_del_init(&e->node);
		wheel_add(&ctx->wheel, e, e->expires);
	}
	/* The hrtimer may be armed for a later time than is now right. */
	ctx->armed = WT_UNARMED;
	ctx->reprogram = true;
	ctx->stats.rebuilds++;
}

/*
 * Queue @t, which is in neither the wheel nor the ready list, at @tick.
 * The caller calls __wt_program_queued() before it lets go of the lock.
 */
static void __wt_queue(struct wt_ctx *ctx, struct wt_timer *t, u64 tick)
{
	u64 nowtick;

	lockdep_assert_held(&ctx->wqh.lock);
	if (tick <= ctx->wheel.clk) {
		/* Due for the wheel; is it due for the clock too? */
		nowtick = wt_tick_now(ctx, wt_now(ctx));
		if (nowtick < tick)
			__wt_rebuild(ctx, nowtick);
	}
	t->state = WT_TIMER_QUEUED;
	wheel_add(&ctx->wheel, &t->entry, tick);
	if (tick < ctx->armed)
		ctx->reprogram = true;
}

static void __wt_notify(struct wt_ctx *ctx)
{
	wake_up_locked_poll(&ctx->wqh, EPOLLIN | EPOLLRDNORM);
	if (ctx->eventfd)
		wt_eventfd_signal(ctx->eventfd);
}

/*
 * Move what is due at @nowtick to the ready list, stamped @now, within
 * *@budget. Returns how many records were queued.
 */
static unsigned int __wt_expire(struct wt_ctx *ctx, u64 now, u64 nowtick,
				unsigned int *budget)
{
	struct wheel_entry *e;
	struct wt_timer *t;
	unsigned int n = 0;

	lockdep_assert_held(&ctx->wqh.lock);
	while ((e = wheel_expire(&ctx->wheel, nowtick, budget))) {
		t = container_of(e, struct wt_timer, entry);
		t->state = WT_TIMER_READY;
		t->ready.fired_at = now;
		__wt_ready_append(ctx, t);
		n++;
	}
	ctx->stats.fired += n;
	return n;
}

static enum hrtimer_restart wt_hrtimer_fn(struct hrtimer *timer)
{
	struct wt_ctx *ctx = container_of(timer, struct wt_ctx, timer);
	unsigned int budget = WT_EXPIRE_BATCH;
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&ctx->wqh.lock, flags);
	/* Unless an add re-armed it while we waited for the lock. */
	if (!hrtimer_is_queued(timer))
		ctx->armed = WT_UNARMED;
	now = wt_now(ctx);
	if (__wt_expire(ctx, now, wt_tick_now(ctx, now), &budget))
		__wt_notify(ctx);
	if (!budget) {
		/*
		 * From a fresh reading: had the work taken longer than the
		 * back-off, an expiry computed from the first one would be
		 * past already, and hrtimer_interrupt() would loop on it.
		 */
		now = wt_now(ctx) + WT_EXPIRE_BACKOFF_NS;
		if (ctx->armed > wt_tick(ctx, now, 0))
			__wt_arm(ctx, wt_tick(ctx, now, 0), now);
	} else {
		__wt_program(ctx);
	}
	spin_unlock_irqrestore(&ctx->wqh.lock, flags);
	/* Re-armed, if at all, by hrtimer_start() above. */
	return HRTIMER_NORESTART;
}

/*
 * An absolute deadline from a relative or absolute one, or -ERANGE.
 * @now is the clock as read for the operation's chunk.
 */
static int wt_deadline(const struct wt_op *op, u64 now, u64 *deadline)
{
	if (op->deadline > WT_TIME_MAX)
		return -ERANGE;
	if (op->flags & WT_ABSTIME) {
		*deadline = op->deadline;
		return 0;
	}
	if (op->deadline > WT_TIME_MAX - now)
		return -ERANGE;
	*deadline = now + op->deadline;
	return 0;
}

/* -ENOMEM when the store must grow first: see wt_apply_ops(). */
static int __wt_op_add(struct wt_ctx *ctx, struct wt_op *op, u64 now)
{
	u64 periodic = op->flags & WT_PERIODIC_FLAGS;
	struct wt_period *p;
	struct wt_timer *t;
	u64 deadline;
	int ret;

	if (op->flags & ~WT_ADD_FLAGS || periodic == WT_PERIODIC_FLAGS)
		return -EINVAL;
	if (periodic ? !op->period || op->period > WT_TIME_MAX : op->period)
		return -EINVAL;
	if (op->slack > WT_TIME_MAX)
		return -EINVAL;
	ret = wt_deadline(op, now, &deadline);
	if (ret)
		return ret;
	if (ctx->store.nr_live >= ctx->max_pending)
		return -ENOSPC;
	t = wt_store_get(&ctx->store, periodic);
	if (!t)
		return -ENOMEM;

	wheel_entry_init(&t->entry);
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
	__wt_queue(ctx, t, wt_tick(ctx, deadline, op->slack));
	ctx->stats.added++;
	op->id = wt_timer_id(t);
	return WT_STATUS_ADDED;
}

/* Take @t out of the wheel or the ready list; returns a WT_STATUS_*. */
static int __wt_unlink(struct wt_ctx *ctx, struct wt_timer *t)
{
	if (t->state == WT_TIMER_READY) {
		__wt_ready_del(ctx, t);
		ctx->stats.withdrawn++;
		return WT_STATUS_WITHDRAWN;
	}
	wheel_del(&ctx->wheel, &t->entry);
	return WT_STATUS_PENDING;
}

/*
 * Cancelling never makes the wheel's next expiry earlier, so the hrtimer
 * is left as it is: see __wt_program().
 */
static int __wt_op_cancel(struct wt_ctx *ctx, struct wt_op *op)
{
	struct wt_timer *t;
	int status;

	if (op->flags || op->deadline || op->period || op->slack || op->cookie)
		return -EINVAL;
	t = wt_store_lookup(&ctx->store, op->id);
	if (!t)
		return -ENOENT;
	status = __wt_unlink(ctx, t);
	if (status == WT_STATUS_PENDING)
		ctx->stats.cancelled++;
	wt_store_put(&ctx->store, t);
	return status;
}

static int __wt_op_modify(struct wt_ctx *ctx, struct wt_op *op, u64 now)
{
	struct wt_timer *t;
	u64 deadline;
	int status;

	if (op->flags & ~WT_ABSTIME || op->period || op->cookie ||
	    op->slack > WT_TIME_MAX)
		return -EINVAL;
	status = wt_deadline(op, now, &deadline);
	if (status)
		return status;
	t = wt_store_lookup(&ctx->store, op->id);
	if (!t)
		return -ENOENT;
	status = __wt_unlink(ctx, t);
	t->deadline = deadline;
	if (t->kind != WT_KIND_ONESHOT)
		wt_timer_period(t)->slack = op->slack;
	__wt_queue(ctx, t, wt_tick(ctx, deadline, op->slack));
	ctx->stats.modified++;
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
 * Returns -ENOMEM, with @op untouched, when the store has to grow first.
 */
static int __wt_apply(struct wt_ctx *ctx, struct wt_op *op, u32 only,
		      u64 now)
{
	int ret;

	lockdep_assert_held(&ctx->wqh.lock);
	if (op->reserved || (only && op->op != only))
		ret = -EINVAL;
	else if (op->op == WT_OP_ADD)
		ret = __wt_op_add(ctx, op, now);
	else if (op->op == WT_OP_CANCEL)
		ret = __wt_op_cancel(ctx, op);
	else if (op->op == WT_OP_MODIFY)
		ret = __wt_op_modify(ctx, op, now);
	else
		ret = -EINVAL;
	if (ret == -ENOMEM)
		return ret;
	wt_op_done(op, ret);
	return 0;
}

/* Whether any of @n operations has a deadline relative to now. */
static bool wt_ops_need_clock(const struct wt_op *ops, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if ((ops[i].op == WT_OP_ADD || ops[i].op == WT_OP_MODIFY) &&
		    !(ops[i].flags & WT_ABSTIME))
			return true;
	return false;
}

/*
 * Apply @n operations under one hold of the lock, with one clock reading,
 * and program the hrtimer once. An add that needs the store to grow makes
 * it drop the lock, grow the store and try that add again; if the store
 * cannot grow, the add fails with -ENOMEM and the others go on. Returns
 * how many succeeded. Caller holds the mutex.
 */
static unsigned int wt_apply_ops(struct wt_ctx *ctx, struct wt_op *ops,
				 unsigned int n, u32 only)
{
	unsigned int i, done = 0;
	int err;
	u64 now;

	lockdep_assert_held(&ctx->mutex);
	spin_lock_irq(&ctx->wqh.lock);
	now = wt_ops_need_clock(ops, n) ? wt_now(ctx) : 0;
	for (i = 0; i < n; i++) {
		if (__wt_apply(ctx, &ops[i], only, now)) {
			/* The wheel must be driven while the lock is let go. */
			__wt_program_queued(ctx);
			spin_unlock_irq(&ctx->wqh.lock);
			err = wt_store_grow(&ctx->store, ops[i].flags & WT_PERIODIC_FLAGS);
			spin_lock_irq(&ctx->wqh.lock);
			if (err || __wt_apply(ctx, &ops[i], only, now))
				wt_op_done(&ops[i], -ENOMEM);
		}
		done += !ops[i].error;
	}
	__wt_program_queued(ctx);
	spin_unlock_irq(&ctx->wqh.lock);
	return done;
}

/*
 * Check that every page of the @size bytes at @uaddr can be read and
 * written, by reading and writing back one byte of each, so that a call
 * fails before it changes anything rather than after.
 */
static int wt_user_probe(void __user *uaddr, size_t size)
{
	char __user *p = uaddr, *end = p + size;
	char c;

	if (!user_access_begin(uaddr, size))
		return -EFAULT;
	while (p < end) {
		unsafe_get_user(c, p, fault);
		unsafe_put_user(c, p, fault);
		p = (char __user *)PAGE_ALIGN((unsigned long)p + 1);
	}
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/*
 * Read the inputs of @n operations, field by field, and clear the fields
 * the answer will write (@status, @error, and @id of an add), which checks
 * that they can be written before anything is applied. @only is the
 * operation of a single-operation ioctl, for which 0 stands; 0 in a batch.
 */
static int wt_ops_read(struct wt_op *ops, struct wt_op __user *uops,
		       unsigned int n, u32 only)
{
	struct wt_op *op;
	unsigned int i;

	if (!user_access_begin(uops, n * sizeof(*ops)))
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
		unsafe_put_user(0, &uops[i].status, fault);
		unsafe_put_user(0, &uops[i].error, fault);
		if (op->op == WT_OP_ADD)
			unsafe_put_user(0, &uops[i].id, fault);
	}
	user_access_end();
	return 0;
fault:
	user_access_end();
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

	if (wt_ops_read(ops, uops, n, only))
		return -EFAULT;
	*done += wt_apply_ops(ctx, ops, n, only);
	wt_store_trim(&ctx->store);
	return wt_ops_answer(uops, ops, n);
}

static int wt_lock(struct wt_ctx *ctx)
{
	/* Nothing has happened yet, so the call can be restarted. */
	return mutex_lock_interruptible(&ctx->mutex) ? -ERESTARTSYS : 0;
}

static long wt_ioctl_batch(struct wt_ctx *ctx, void __user *uarg)
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
	/* One chunk is checked as it is read; more must be checked first. */
	if (batch.count > WT_OPS_CHUNK &&
	    wt_user_probe(uops, batch.count * sizeof(*uops)))
		return -EFAULT;

	ret = wt_lock(ctx);
	if (ret)
		return ret;
	for (i = 0; i < batch.count && !ret; i += n) {
		n = min_t(u32, batch.count - i, WT_OPS_CHUNK);
		ret = wt_apply_user(ctx, uops + i, n, 0, &done);
	}
	mutex_unlock(&ctx->mutex);
	return ret ? ret : done;
}

/* WT_IOC_ADD, WT_IOC_CANCEL, WT_IOC_MODIFY: a batch of one. */
static long wt_ioctl_op(struct wt_ctx *ctx, void __user *uarg, u32 code)
{
	unsigned int done = 0;
	long ret;

	ret = wt_lock(ctx);
	if (ret)
		return ret;
	ret = wt_apply_user(ctx, uarg, 1, code, &done);
	if (!ret)
		ret = -(long)ctx->scratch.ops[0].error;
	mutex_unlock(&ctx->mutex);
	return ret;
}

static long wt_ioctl_api(void __user *uarg)
{
	struct wt_api api;
	long ret = 0;

	if (copy_from_user(&api, uarg, sizeof(api)))
		return -EFAULT;
	if (api.api != WT_API_VERSION || api.features & ~WT_FEATURES) {
		memset(&api, 0, sizeof(api));
		ret = -EINVAL;
	} else {
		api.features = WT_FEATURES;
		api.ioctls = WT_IOCTLS;
		api.event_size = sizeof(struct wt_event);
		api.batch_max = WT_BATCH_MAX;
	}
	if (copy_to_user(uarg, &api, sizeof(api)))
		return -EFAULT;
	return ret;
}

static unsigned long wt_pending_limit(void)
{
	return min(READ_ONCE(max_pending_limit), WT_PENDING_CEILING);
}

static unsigned long wt_pending_default(void)
{
	return clamp(READ_ONCE(max_pending), 1UL, wt_pending_limit());
}

/* Set the configuration of an empty context; caller holds the mutex. */
static void wt_configure(struct wt_ctx *ctx, const struct wt_config *cfg)
{
	/* Nothing is queued, but the hrtimer may still fire once for nothing. */
	hrtimer_cancel(&ctx->timer);
	wt_hrtimer_setup(&ctx->timer, wt_hrtimer_fn, cfg->clockid,
			 WT_HRTIMER_MODE);

	spin_lock_irq(&ctx->wqh.lock);
	ctx->resolution = cfg->resolution;
	ctx->max_pending = cfg->max_pending;
	ctx->flags = cfg->flags;
	ctx->clockid = cfg->clockid;
	ctx->vnow = 0;
	ctx->armed = WT_UNARMED;
	wheel_init(&ctx->wheel, wt_tick_now(ctx, wt_now(ctx)));
	spin_unlock_irq(&ctx->wqh.lock);
}

static long wt_ioctl_set_config(struct wt_ctx *ctx, void __user *uarg)
{
	struct wt_config cfg;
	long ret;

	if (copy_from_user(&cfg, uarg, sizeof(cfg)))
		return -EFAULT;
	if (memchr_inv(cfg.reserved, 0, sizeof(cfg.reserved)) ||
	    cfg.flags & ~WT_CONFIG_VIRTUAL ||
	    cfg.resolution < WT_RESOLUTION_MIN ||
	    cfg.resolution > WT_RESOLUTION_MAX ||
	    cfg.max_pending > wt_pending_limit())
		return -EINVAL;
	if (cfg.clockid != CLOCK_MONOTONIC && cfg.clockid != CLOCK_BOOTTIME &&
	    cfg.clockid != CLOCK_REALTIME)
		return -EINVAL;
	if (!cfg.max_pending)
		cfg.max_pending = wt_pending_default();

	ret = wt_lock(ctx);
	if (ret)
		return ret;
	if (ctx->store.nr_live)
		ret = -EBUSY;
	else
		wt_configure(ctx, &cfg);
	mutex_unlock(&ctx->mutex);
	return ret;
}

static long wt_ioctl_get_config(struct wt_ctx *ctx, void __user *uarg)
{
	struct wt_config cfg = {};

	spin_lock_irq(&ctx->wqh.lock);
	cfg.resolution = ctx->resolution;
	cfg.max_pending = ctx->max_pending;
	cfg.flags = ctx->flags;
	cfg.clockid = ctx->clockid;
	spin_unlock_irq(&ctx->wqh.lock);
	return copy_to_user(uarg, &cfg, sizeof(cfg)) ? -EFAULT : 0;
}

/*
 * Move the virtual clock to @target, firing what comes due on the way at
 * the tick it is due, as a real clock would. Returns how many fired.
 */
static u64 wt_advance(struct wt_ctx *ctx, u64 target)
{
	u64 ttick = wt_tick_now(ctx, target);
	unsigned int budget, n;
	u64 tick, expired = 0;
	bool more = true;

	spin_lock_irq(&ctx->wqh.lock);
	while (more) {
		budget = WT_EXPIRE_BATCH;
		n = 0;
		while (budget) {
			if (!wheel_next_expiry(&ctx->wheel, &tick) ||
			    tick > ttick) {
				more = false;
				break;
			}
			/* tick <= ttick, so tick * resolution <= target */
			ctx->vnow = max(ctx->vnow, tick * ctx->resolution);
			n += __wt_expire(ctx, ctx->vnow, tick, &budget);
		}
		if (n)
			__wt_notify(ctx);
		expired += n;
		if (more) {
			spin_unlock_irq(&ctx->wqh.lock);
			cond_resched();
			spin_lock_irq(&ctx->wqh.lock);
		}
	}
	ctx->vnow = max(ctx->vnow, target);
	spin_unlock_irq(&ctx->wqh.lock);
	return expired;
}

static long wt_ioctl_advance(struct wt_ctx *ctx, void __user *uarg)
{
	struct wt_advance adv;
	u64 target;
	long ret;

	if (copy_from_user(&adv, uarg, sizeof(adv)))
		return -EFAULT;
	if (adv.flags & ~WT_ADVANCE_SET)
		return -EINVAL;
	ret = wt_lock(ctx);
	if (ret)
		return ret;
	if (!wt_is_virtual(ctx)) {
		ret = -EINVAL;
		goto out;
	}
	if (adv.flags & WT_ADVANCE_SET) {
		target = adv.time;
		if (target < ctx->vnow && ctx->clockid != CLOCK_REALTIME) {
			ret = -EINVAL;
			goto out;
		}
	} else {
		target = ctx->vnow + adv.time;
		if (adv.time > WT_TIME_MAX - ctx->vnow)
			target = U64_MAX;
	}
	if (target > WT_TIME_MAX) {
		ret = -ERANGE;
		goto out;
	}

	if (target < ctx->vnow) {
		/* Stepped back: nothing fires, __wt_queue() copes with adds. */
		spin_lock_irq(&ctx->wqh.lock);
		ctx->vnow = target;
		spin_unlock_irq(&ctx->wqh.lock);
		adv.expired = 0;
	} else {
		adv.expired = wt_advance(ctx, target);
	}
	adv.now = ctx->vnow;
out:
	mutex_unlock(&ctx->mutex);
	if (!ret && copy_to_user(uarg, &adv, sizeof(adv)))
		ret = -EFAULT;
	return ret;
}

static long wt_ioctl_set_eventfd(struct wt_ctx *ctx, void __user *uarg)
{
	struct eventfd_ctx *new = NULL, *old;
	struct wt_eventfd arg;
	long ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.flags)
		return -EINVAL;
	if (arg.fd != WT_EVENTFD_NONE) {
		if (arg.fd > INT_MAX)
			return -EBADF;
		new = eventfd_ctx_fdget(arg.fd);
		if (IS_ERR(new))
			return PTR_ERR(new);
	}
	ret = wt_lock(ctx);
	if (ret) {
		if (new)
			eventfd_ctx_put(new);
		return ret;
	}
	spin_lock_irq(&ctx->wqh.lock);
	old = ctx->eventfd;
	ctx->eventfd = new;
	/* Records already waiting would otherwise go unannounced. */
	if (new && ctx->nr_ready)
		wt_eventfd_signal(new);
	spin_unlock_irq(&ctx->wqh.lock);
	mutex_unlock(&ctx->mutex);
	if (old)
		eventfd_ctx_put(old);
	return 0;
}

static long wt_ioctl_query(struct wt_ctx *ctx, void __user *uarg)
{
	struct wt_query q;
	struct wt_timer *t;
	long ret;
	u64 now;

	if (copy_from_user(&q, uarg, sizeof(q)))
		return -EFAULT;
	ret = wt_lock(ctx);
	if (ret)
		return ret;
	t = wt_store_lookup(&ctx->store, q.id);
	if (!t) {
		mutex_unlock(&ctx->mutex);
		return -ENOENT;
	}
	memset(&q, 0, sizeof(q));
	spin_lock_irq(&ctx->wqh.lock);
	now = wt_now(ctx);
	q.id = wt_timer_id(t);
	q.flags = wt_kind_flags(t);
	q.state = t->state == WT_TIMER_READY ? WT_STATE_FIRED : WT_STATE_PENDING;
	q.deadline = t->deadline;
	q.remaining = t->deadline > now ? t->deadline - now : 0;
	q.cookie = t->cookie;
	q.period = t->kind == WT_KIND_ONESHOT ? 0 : wt_timer_period(t)->period;
	spin_unlock_irq(&ctx->wqh.lock);
	mutex_unlock(&ctx->mutex);
	return copy_to_user(uarg, &q, sizeof(q)) ? -EFAULT : 0;
}

static long wt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct wt_ctx *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;

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
	default:
		return -ENOTTY;
	}
}

/*
 * Describe a ready timeout in @ev and decide what becomes of it once the
 * record is read at @now: the id is released (WT_EVENT_FINAL) or the
 * timeout goes on at *@next.
 */
static void __wt_describe(struct wt_timer *t, u64 now, struct wt_event *ev,
			  u64 *next)
{
	u64 period, overruns = 0;

	ev->id = wt_timer_id(t);
	ev->cookie = t->cookie;
	ev->deadline = t->deadline;
	ev->fired_at = t->ready.fired_at;
	ev->flags = wt_kind_flags(t);
	*next = 0;

	switch (t->kind) {
	case WT_KIND_FIXED_RATE:
		period = wt_timer_period(t)->period;
		if (now > t->deadline)
			overruns = div64_u64(now - t->deadline, period);
		/* deadline + (overruns + 1) * period, if it is a time at all */
		if (overruns < div64_u64(WT_TIME_MAX - t->deadline, period))
			*next = t->deadline + (overruns + 1) * period;
		break;
	case WT_KIND_FIXED_DELAY:
		period = wt_timer_period(t)->period;
		if (period <= WT_TIME_MAX - now)
			*next = now + period;
		break;
	default:
		break;
	}
	ev->overruns = overruns;
	if (!*next)
		ev->flags |= WT_EVENT_FINAL;
}

/*
 * Copy up to @max records to @buf. Returns the bytes copied, 0 if no record
 * is ready, or -EFAULT if not even the first one could be copied; sets
 * *@fault when the copy stopped short. Records that were not copied go back
 * to the head of the ready list, in order. Caller holds the mutex.
 */
static ssize_t wt_read_batch(struct wt_ctx *ctx, char __user *buf,
			     unsigned int max, bool *fault)
{
	struct wt_event *ev = ctx->scratch.events;
	struct wt_taken *tk = ctx->taken;
	unsigned int n = 0, copied, i;
	struct wt_timer *t;
	unsigned long left;
	u64 now;

	spin_lock_irq(&ctx->wqh.lock);
	now = wt_now(ctx);
	while (n < max && !hlist_empty(&ctx->ready)) {
		t = hlist_entry(ctx->ready.first, struct wt_timer, ready.link);
		__wt_ready_del(ctx, t);
		__wt_describe(t, now, &ev[n], &tk[n].next);
		tk[n++].timer = t;
	}
	spin_unlock_irq(&ctx->wqh.lock);
	if (!n)
		return 0;

	left = copy_to_user(buf, ev, n * sizeof(*ev));
	copied = (n * sizeof(*ev) - left) / sizeof(*ev);
	*fault = copied < n;

	spin_lock_irq(&ctx->wqh.lock);
	for (i = n; i-- > copied; )
		__wt_ready_push_front(ctx, tk[i].timer);
	for (i = 0; i < copied; i++) {
		t = tk[i].timer;
		ctx->stats.delivered++;
		ctx->stats.overruns += ev[i].overruns;
		if (ev[i].flags & WT_EVENT_FINAL)
			continue;
		t->deadline = tk[i].next;
		__wt_queue(ctx, t, wt_tick(ctx, t->deadline,
					   wt_timer_period(t)->slack));
	}
	__wt_program_queued(ctx);
	spin_unlock_irq(&ctx->wqh.lock);

	for (i = 0; i < copied; i++)
		if (ev[i].flags & WT_EVENT_FINAL)
			wt_store_put(&ctx->store, tk[i].timer);
	wt_store_trim(&ctx->store);
	if (!copied)
		return -EFAULT;
	return copied * sizeof(*ev);
}

static ssize_t wt_read(struct file *file, char __user *buf, size_t count,
		       loff_t *ppos)
{
	struct wt_ctx *ctx = file->private_data;
	size_t done = 0, room;
	bool fault = false;
	ssize_t ret;

	if (count < sizeof(struct wt_event))
		return -EINVAL;
	for (;;) {
		room = (count - done) / sizeof(struct wt_event);
		ret = wt_lock(ctx);
		if (!ret) {
			ret = wt_read_batch(ctx, buf + done,
					    min_t(size_t, room, WT_READ_BATCH),
					    &fault);
			mutex_unlock(&ctx->mutex);
		}
		if (ret < 0)
			return done ? done : ret;
		done += ret;
		if (fault || (ret && room == ret / sizeof(struct wt_event)))
			return done;
		if (ret) {
			cond_resched();
			continue;
		}
		/* Nothing was ready: return what we have, or wait for more. */
		if (done)
			return done;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		spin_lock_irq(&ctx->wqh.lock);
		ret = wait_event_interruptible_locked_irq(ctx->wqh,
							  !hlist_empty(&ctx->ready));
		spin_unlock_irq(&ctx->wqh.lock);
		if (ret)
			return ret;
	}
}

static __poll_t wt_poll(struct file *file, poll_table *wait)
{
	struct wt_ctx *ctx = file->private_data;
	__poll_t events = 0;

	poll_wait(file, &ctx->wqh, wait);
	spin_lock_irq(&ctx->wqh.lock);
	if (!hlist_empty(&ctx->ready))
		events = EPOLLIN | EPOLLRDNORM;
	spin_unlock_irq(&ctx->wqh.lock);
	return events;
}

static int wt_open(struct inode *inode, struct file *file)
{
	struct wt_ctx *ctx;
	struct wt_config cfg = {
		.resolution = WT_RESOLUTION_DEFAULT,
		.max_pending = wt_pending_default(),
		.clockid = CLOCK_MONOTONIC,
	};

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	ctx->taken = kcalloc(WT_READ_BATCH, sizeof(*ctx->taken),
			     GFP_KERNEL_ACCOUNT);
	ctx->scratch.events = kmalloc(WT_SCRATCH_SIZE, GFP_KERNEL_ACCOUNT);
	if (!ctx->taken || !ctx->scratch.events) {
		kfree(ctx->taken);
		kfree(ctx->scratch.events);
		kfree(ctx);
		return -ENOMEM;
	}
	init_waitqueue_head(&ctx->wqh);
	mutex_init(&ctx->mutex);
	INIT_HLIST_HEAD(&ctx->ready);
	wt_hrtimer_setup(&ctx->timer, wt_hrtimer_fn, CLOCK_MONOTONIC,
			 WT_HRTIMER_MODE);
	mutex_lock(&ctx->mutex);
	wt_configure(ctx, &cfg);
	mutex_unlock(&ctx->mutex);

	file->private_data = ctx;
	return stream_open(inode, file);
}

static int wt_release(struct inode *inode, struct file *file)
{
	struct wt_ctx *ctx = file->private_data;

	/* Last reference: only the hrtimer could still run. */
	hrtimer_cancel(&ctx->timer);
	/* Every timer, queued, ready or free, lives in the store. */
	wt_store_destroy(&ctx->store);
	if (ctx->eventfd)
		eventfd_ctx_put(ctx->eventfd);
	mutex_destroy(&ctx->mutex);
	kfree(ctx->taken);
	kfree(ctx->scratch.events);
	kfree(ctx);
	return 0;
}

#ifdef CONFIG_PROC_FS
static void wt_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct wt_ctx *ctx = file->private_data;
	u64 now, clk, pending, live, ready, armed;
	unsigned int slots[WHEEL_LEVELS];
	struct wt_stats st;
	bool eventfd;
	unsigned int l;

	spin_lock_irq(&ctx->wqh.lock);
	now = wt_now(ctx);
	clk = ctx->wheel.clk;
	pending = ctx->wheel.count;
	for (l = 0; l < WHEEL_LEVELS; l++)
		slots[l] = hweight64(ctx->wheel.occupied[l]);
	/* Changed under the mutex, which read() alone holds when it frees. */
	live = READ_ONCE(ctx->store.nr_live);
	ready = ctx->nr_ready;
	armed = ctx->armed;
	eventfd = ctx->eventfd;
	st = ctx->stats;
	spin_unlock_irq(&ctx->wqh.lock);

	/* The configuration only changes under the mutex and in an empty context. */
	seq_printf(m, "clockid:\t%d\n", ctx->clockid);
	seq_printf(m, "virtual:\t%d\n", wt_is_virtual(ctx));
	seq_printf(m, "resolution_ns:\t%llu\n", ctx->resolution);
	seq_printf(m, "max_pending:\t%llu\n", ctx->max_pending);
	seq_printf(m, "now_ns:\t%llu\n", now);
	seq_printf(m, "clk:\t%llu\n", clk);
	seq_printf(m, "live:\t%llu\n", live);
	seq_printf(m, "pending:\t%llu\n", pending);
	seq_puts(m, "slots_occupied:");
	for (l = 0; l < WHEEL_LEVELS; l++)
		seq_printf(m, "\t%u", slots[l]);
	seq_putc(m, '\n');
	seq_printf(m, "ready:\t%llu\n", ready);
	seq_printf(m, "added:\t%llu\n", st.added);
	seq_printf(m, "modified:\t%llu\n", st.modified);
	seq_printf(m, "fired:\t%llu\n", st.fired);
	seq_printf(m, "delivered:\t%llu\n", st.delivered);
	seq_printf(m, "cancelled:\t%llu\n", st.cancelled);
	seq_printf(m, "withdrawn:\t%llu\n", st.withdrawn);
	seq_printf(m, "overruns:\t%llu\n", st.overruns);
	seq_printf(m, "hrtimer_programs:\t%llu\n", st.programs);
	if (armed == WT_UNARMED)
		seq_puts(m, "hrtimer_armed_tick:\t-\n");
	else
		seq_printf(m, "hrtimer_armed_tick:\t%llu\n", armed);
	seq_printf(m, "rebuilds:\t%llu\n", st.rebuilds);
	/* Changed under the mutex only; a stale count is harmless here. */
	seq_printf(m, "timer_blocks:\t%u\n", READ_ONCE(ctx->store.nr_blocks));
	seq_printf(m, "timers_per_block:\t%lu\n", WT_BLOCK_TIMERS);
	seq_printf(m, "eventfd:\t%d\n", eventfd);
}
#else
#define wt_show_fdinfo NULL
#endif

static const struct file_operations wheeltimer_fops = {
	.owner		= THIS_MODULE,
	.open		= wt_open,
	.release	= wt_release,
	.read		= wt_read,
	.poll		= wt_poll,
	.unlocked_ioctl	= wt_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.show_fdinfo	= wt_show_fdinfo,
};

static struct miscdevice wheeltimer_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "wheeltimer",
	.fops		= &wheeltimer_fops,
	/* Meant for unprivileged programs, as timerfd is. */
	.mode		= 0666,
};

static int __init wheeltimer_init(void)
{
	int ret;

	BUILD_BUG_ON(WT_OPS_CHUNK < 1 || WT_OPS_CHUNK > WT_READ_BATCH);

	if (!max_pending || max_pending > max_pending_limit ||
	    max_pending_limit > WT_PENDING_CEILING) {
		pr_err("need 0 < max_pending <= max_pending_limit <= %lu\n",
		       WT_PENDING_CEILING);
		return -EINVAL;
	}
	ret = wt_store_create_caches();
	if (ret)
		return ret;
	ret = misc_register(&wheeltimer_misc);
	if (ret)
		wt_store_destroy_caches();
	return ret;
}

static void __exit wheeltimer_exit(void)
{
	misc_deregister(&wheeltimer_misc);
	wt_store_destroy_caches();
}

module_init(wheeltimer_init);
module_exit(wheeltimer_exit);

MODULE_DESCRIPTION("Tickless hierarchical timing wheel behind /dev/wheeltimer");
MODULE_LICENSE("GPL");
