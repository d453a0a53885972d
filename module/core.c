// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * core.c - the rules of a file of timeouts (core.h)
 *
 * A deadline goes in the wheel at the tick it falls in, rounded up, and is
 * due once a reading reaches that tick: never early, at most one
 * resolution late with no slack. The file's timer expires at the wheel's
 * next expiry; what it finds due is collected into the ready list by
 * whoever looks next, in slices, and stamped with that look's reading. A
 * clock read behind the wheel's sets the wheel back before anything is
 * added or collected. Documentation/misc-devices/wheeltimer.rst has the
 * whole design: collection, records, periodic timeouts, the file's timer
 * and the virtual clock.
 *
 * Every loop whose length a user controls runs in slices that reschedule
 * and stop on a fatal signal; nothing here runs with interrupts off.
 */
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

#include "core.h"
#include "trace.h"

/* Entries taken off the wheel between two chances to reschedule. */
#define WT_COLLECT_SLICE	256
#define WT_ADD_FLAGS		(WT_ABSTIME | WT_FIXED_RATE | WT_FIXED_DELAY | \
				 WT_LEASED_ID)
#define WT_PERIODIC_FLAGS	(WT_FIXED_RATE | WT_FIXED_DELAY)

void wt_core_init(struct wt_core *core, u64 id)
{
	INIT_HLIST_HEAD(&core->ready);
	core->id = id;
}

/* Give back everything; the file's timer has been stopped. */
void wt_core_destroy(struct wt_core *core)
{
	wt_store_destroy(&core->store);
}

/* The file's clock, in ns; callable without the file's mutex. */
u64 wt_core_now(const struct wt_core *core)
{
	if (wt_core_is_virtual(core))
		return READ_ONCE(core->vnow);
	return wt_core_clock(core);
}

/*
 * The tick at which a deadline of @ns (at most core->max_deadline) with
 * @slack ns of slack is due; slack stops at the last tick.
 */
static u64 wt_tick(const struct wt_core *core, u64 ns, u64 slack)
{
	u64 tick = div64_u64(ns + core->resolution - 1, core->resolution);
	u64 room;

	if (slack) {
		room = min(div64_u64(slack, core->resolution),
			   core->last_tick - tick);
		tick = wt_wheel_apply_slack(tick, room);
	}
	return tick;
}

/* The last tick that has started at the reading @now. */
static u64 wt_tick_now(const struct wt_core *core, u64 now)
{
	return div64_u64(now, core->resolution);
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

/*
 * The absolute deadline of an operation: @deadline itself, or with @abs
 * clear @deadline ns after @now. -ERANGE if its tick would start after
 * WT_TIME_MAX.
 */
static int wt_deadline(const struct wt_core *core, u64 deadline, bool abs,
		       u64 now, u64 *out)
{
	if (!abs) {
		if (deadline > WT_TIME_MAX - now)
			return -ERANGE;
		deadline += now;
	}
	if (deadline > core->max_deadline)
		return -ERANGE;
	*out = deadline;
	return 0;
}

/* Set the wheel's clock back to the reading's tick if it is behind. */
static void wt_rewind(struct wt_core *core, u64 nowtick)
{
	if (nowtick >= core->wheel.clk)
		return;
	wt_wheel_rewind(&core->wheel, nowtick);
	wt_count(core, rewinds, 1);
	/* Due entries it made future are re-placed at the next expiry. */
	core->reprogram = true;
}

/*
 * Queue @t, which is in neither the wheel nor the ready list, at @tick; the
 * caller makes sure wt_core_program() runs (@reprogram) before it lets go
 * of its lock.
 */
static void wt_queue(struct wt_core *core, struct wt_timer *t, u64 tick)
{
	/* Due for the wheel: is it due for the clock too? */
	if (tick <= core->wheel.clk)
		wt_rewind(core, wt_tick_now(core, wt_core_now(core)));
	t->state = WT_TIMER_QUEUED;
	wt_wheel_add(&core->wheel, &t->entry, tick);
	if (tick < core->armed)
		core->reprogram = true;
}

/*
 * The first tick that is not due at the reading whose tick is @tick, nor
 * found due by an expiry or a collection not finished yet: a queued
 * timeout before it has fired, though nobody may have collected it
 * (nobody needs to, while nobody reads or polls). 0 on a virtual clock,
 * where only ADVANCE fires.
 */
static u64 wt_due_after(struct wt_core *core, u64 tick)
{
	u64 at;

	if (wt_core_is_virtual(core))
		return 0;
	if (core->backlog)
		tick = max(tick, wt_tick_now(core, core->backlog_at));
	/* A clock stepped back since may read before the expiry. */
	if (wt_core_expiry(core, &at, false))
		tick = max(tick, wt_tick_now(core, at));
	return tick + 1;
}

/* The same at the reading @now. */
static u64 wt_due_tick(struct wt_core *core, u64 now)
{
	return wt_due_after(core, wt_tick_now(core, now));
}

/* The ready list: an hlist used as a FIFO through its tail pointer. */
static void wt_ready_append(struct wt_core *core, struct wt_timer *t)
{
	if (core->ready_tail)
		hlist_add_behind(&t->ready.link, core->ready_tail);
	else
		hlist_add_head(&t->ready.link, &core->ready);
	core->ready_tail = &t->ready.link;
	WRITE_ONCE(core->nr_ready, core->nr_ready + 1);
}

static void wt_ready_del(struct wt_core *core, struct wt_timer *t)
{
	struct hlist_node *node = &t->ready.link;

	if (core->ready_tail == node)
		core->ready_tail = node->pprev == &core->ready.first ? NULL :
				   container_of(node->pprev, struct hlist_node,
						next);
	hlist_del(node);
	/* The same memory serves the wheel next: an entry out of any list. */
	wt_wheel_entry_init(&t->entry);
	WRITE_ONCE(core->nr_ready, core->nr_ready - 1);
	/* A backlog behind the records may need the timer now. */
	if (!core->nr_ready)
		core->reprogram = true;
}

/* ---------------------------------------------------------- operations */

/*
 * Charge @need bytes, what the store is about to allocate, to the file's
 * user (wt_core_charge()): false if refused. The store's size is noted in
 * *@before.
 */
static bool wt_charge(struct wt_core *core, size_t need, size_t *before)
{
	*before = core->store.bytes;
	return wt_core_charge(core, need);
}

/* Give back what was charged and not allocated, if the store ran out. */
static void wt_refund(struct wt_core *core, size_t need, size_t before)
{
	wt_core_uncharge(core, need - (core->store.bytes - before));
}

/* Give back what an emptied store no longer needs, and its charge. */
static void wt_trim(struct wt_core *core)
{
	size_t before = core->store.bytes;

	wt_store_trim(&core->store);
	if (core->store.bytes != before)
		wt_core_uncharge(core, before - core->store.bytes);
}

/*
 * A timer for an ADD: the store's next free one, or the one of a leased
 * block that the ADD names, growing the store as it must.
 */
static int wt_get(struct wt_core *core, const struct wt_op *op, bool periodic,
		  struct wt_timer **tp)
{
	struct wt_store *s = &core->store;
	size_t need, before;
	int ret;

	if (op->flags & WT_LEASED_ID) {
		ret = wt_store_get_leased(s, op->id, periodic, tp);
		if (ret != -ENOMEM)
			return ret;
		need = WT_PERIODS_BYTES;
		if (!wt_charge(core, need, &before))
			return -ENOSPC;
		ret = wt_store_grow_periods(s, *tp);
		wt_refund(core, need, before);
		return ret ? ret : wt_store_get_leased(s, op->id, periodic, tp);
	}
	*tp = wt_store_get(s, periodic);
	if (*tp)
		return 0;
	need = wt_store_grow_bytes(s, periodic);
	if (!wt_charge(core, need, &before))
		return -ENOSPC;
	ret = wt_store_grow(s, periodic);
	wt_refund(core, need, before);
	if (ret)
		return ret;
	*tp = wt_store_get(s, periodic);
	return WARN_ON_ONCE(!*tp) ? -ENOMEM : 0;
}

/* Queue @t, its deadline and slack set, and say so. */
static void wt_place(struct wt_core *core, struct wt_timer *t, u64 slack)
{
	wt_queue(core, t, wt_tick(core, t->deadline, slack));
	wt_count(core, added, 1);
	trace_wheeltimer_add(core->id, wt_timer_id(t), t->deadline,
			     t->kind == WT_KIND_ONESHOT ? 0 :
			     wt_timer_period(t)->period, t->cookie);
}

/* WT_OP_ADD; a relative deadline counts from the reading @now. */
static int wt_op_add(struct wt_core *core, struct wt_op *op, u64 now)
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
	ret = wt_deadline(core, op->deadline, op->flags & WT_ABSTIME, now,
			  &deadline);
	if (ret)
		return ret;
	if (core->store.nr_live >= core->max_pending)
		return -ENOSPC;
	ret = wt_get(core, op, periodic, &t);
	if (ret)
		return ret;

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
	if (!(op->flags & WT_LEASED_ID))
		op->id = wt_timer_id(t);
	wt_place(core, t, op->slack);
	return WT_STATUS_ADDED;
}

/*
 * Take @t out of the wheel or the ready list; returns a WT_STATUS_*. A
 * queued timeout before @due (wt_due_tick()) has fired, though nobody has
 * collected it yet: its record is withdrawn as if it had been.
 */
static int wt_unlink(struct wt_core *core, struct wt_timer *t, u64 due)
{
	if (t->state == WT_TIMER_READY) {
		wt_ready_del(core, t);
		wt_count(core, withdrawn, 1);
		return WT_STATUS_WITHDRAWN;
	}
	wt_wheel_del(&core->wheel, &t->entry);
	if (t->entry.expires < due) {
		wt_count(core, fired, 1);
		wt_count(core, withdrawn, 1);
		return WT_STATUS_WITHDRAWN;
	}
	return WT_STATUS_PENDING;
}

/*
 * Cancelling never makes the wheel's next expiry earlier, so the timer is
 * left as it is.
 */
static int wt_cancel(struct wt_core *core, u64 id, u64 due)
{
	struct wt_timer *t = wt_store_lookup(&core->store, id);
	int status;

	if (!t)
		return -ENOENT;
	status = wt_unlink(core, t, due);
	if (status == WT_STATUS_PENDING)
		wt_count(core, cancelled, 1);
	trace_wheeltimer_cancel(core->id, id, status);
	wt_store_put(&core->store, t);
	return status;
}

static int wt_op_cancel(struct wt_core *core, struct wt_op *op, u64 due)
{
	if (op->flags || op->deadline || op->period || op->slack || op->cookie)
		return -EINVAL;
	return wt_cancel(core, op->id, due);
}

static int wt_op_modify(struct wt_core *core, struct wt_op *op, u64 now,
			u64 due)
{
	struct wt_timer *t;
	u64 deadline;
	int status;

	if (op->flags & ~WT_ABSTIME || op->period || op->cookie ||
	    op->slack > WT_TIME_MAX)
		return -EINVAL;
	status = wt_deadline(core, op->deadline, op->flags & WT_ABSTIME, now,
			     &deadline);
	if (status)
		return status;
	t = wt_store_lookup(&core->store, op->id);
	if (!t)
		return -ENOENT;
	status = wt_unlink(core, t, due);
	t->deadline = deadline;
	if (t->kind != WT_KIND_ONESHOT)
		wt_timer_period(t)->slack = op->slack;
	wt_queue(core, t, wt_tick(core, deadline, op->slack));
	wt_count(core, modified, 1);
	trace_wheeltimer_modify(core->id, op->id, deadline, status);
	return status;
}

/* Record in @op the outcome of applying it: a WT_STATUS_* or a -errno. */
static void wt_op_done(struct wt_op *op, int ret)
{
	if (ret < 0) {
		if (op->op == WT_OP_ADD && !(op->flags & WT_LEASED_ID))
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
static void wt_apply(struct wt_core *core, struct wt_op *op, u32 only,
		     u64 now, u64 due)
{
	int ret;

	if (op->reserved || (only && op->op != only))
		ret = -EINVAL;
	else if (op->op == WT_OP_ADD)
		ret = wt_op_add(core, op, now);
	else if (op->op == WT_OP_CANCEL)
		ret = wt_op_cancel(core, op, due);
	else if (op->op == WT_OP_MODIFY)
		ret = wt_op_modify(core, op, now, due);
	else
		ret = -EINVAL;
	wt_op_done(op, ret);
}

/*
 * Whether any of @n operations needs the clock: a deadline relative to
 * now, or, on a real clock, a timeout that may have come due.
 */
static bool wt_ops_need_clock(const struct wt_core *core,
			      const struct wt_op *ops, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (ops[i].op == WT_OP_ADD && ops[i].flags & WT_ABSTIME)
			continue;
		if (ops[i].op == WT_OP_ADD || ops[i].op == WT_OP_MODIFY ||
		    (ops[i].op == WT_OP_CANCEL && !wt_core_is_virtual(core)))
			return true;
	}
	return false;
}

/**
 * wt_core_apply() - apply operations, in order, each on its own
 * @core: the file
 * @ops: @n operations; each one's @status and @error are set, and an add's
 *	@id on success
 * @n: how many
 * @only: the operation of a single-operation ioctl, for which 0 stands in
 *	@ops[i].op already; 0 for a batch
 *
 * With one clock reading, at most one programming of the file's timer, and
 * what an emptied store no longer needs given back.
 *
 * Return: how many succeeded.
 */
unsigned int wt_core_apply(struct wt_core *core, struct wt_op *ops,
			   unsigned int n, u32 only)
{
	unsigned int i, done = 0;
	u64 now, due;

	if (wt_ops_need_clock(core, ops, n)) {
		now = wt_core_now(core);
		due = wt_due_tick(core, now);
	} else {
		now = 0;
		due = 0;
	}
	for (i = 0; i < n; i++) {
		wt_apply(core, &ops[i], only, now, due);
		done += !ops[i].error;
	}
	wt_trim(core);
	if (core->reprogram)
		wt_core_program(core);
	return done;
}

/**
 * wt_core_lease() - lease a block of ids to the caller
 * @core: the file
 * @first: set to the index of the first id
 * @count: set to how many ids follow from it
 *
 * The ids are the caller's to name timeouts by, with WT_LEASED_ID; the
 * file keeps the block until it is closed. A file leases at most
 * max_pending + WT_LEASE_SLACK ids, rounded up to whole blocks.
 *
 * Return: 0, -ENOSPC beyond that or the user's limit, -ENOMEM.
 */
int wt_core_lease(struct wt_core *core, u32 *first, u32 *count)
{
	struct wt_store *s = &core->store;
	size_t need, before;
	int ret;

	if ((u64)s->nr_leased * WT_BLOCK_TIMERS >=
	    core->max_pending + WT_LEASE_SLACK)
		return -ENOSPC;
	need = wt_store_lease_bytes(s);
	if (!wt_charge(core, need, &before))
		return -ENOSPC;
	ret = wt_store_lease(s, first);
	wt_refund(core, need, before);
	if (ret)
		return ret;
	*count = WT_BLOCK_TIMERS;
	return 0;
}

/* ---------------------------------------------------------- collection */

/*
 * Move what is due at the reading @now (its tick @nowtick) to the ready
 * list, stamped @now, within *@budget. Returns how many records were
 * queued.
 */
static unsigned int wt_expire(struct wt_core *core, u64 now, u64 nowtick,
			      unsigned int *budget)
{
	struct wheel_entry *e;
	struct wt_timer *t;
	unsigned int n = 0;

	while ((e = wt_wheel_expire(&core->wheel, nowtick, budget))) {
		t = container_of(e, struct wt_timer, entry);
		t->state = WT_TIMER_READY;
		t->ready.fired_at = now;
		wt_ready_append(core, t);
		trace_wheeltimer_expire(core->id, wt_timer_id(t), t->deadline,
					now);
		n++;
	}
	wt_count(core, fired, n);
	return n;
}

/*
 * How a collection at one reading ended: WT_DRAINED, everything due at the
 * reading is on the ready list; WT_STOPPED, more is due at it, and @want
 * records were ready or a fatal signal came.
 */
enum wt_collected {
	WT_DRAINED,
	WT_STOPPED,
};

/* Whether the wheel holds a timeout due at the tick @tick. */
static bool wt_due_by(const struct wt_core *core, u64 tick)
{
	u64 next;

	return wt_wheel_next_expiry(&core->wheel, &next) && next <= tick;
}

/*
 * Hand out what is due at the reading @at, stamped @at, in slices, until
 * @want records are ready or nothing more is due at it.
 */
static enum wt_collected wt_collect_at(struct wt_core *core, u64 at, u64 want)
{
	u64 attick = wt_tick_now(core, at);
	unsigned int budget;

	for (;;) {
		/* Only what is due at @at is left behind: not a mere "full". */
		if (core->nr_ready >= want)
			return wt_due_by(core, attick) ? WT_STOPPED : WT_DRAINED;
		budget = WT_COLLECT_SLICE;
		wt_expire(core, at, attick, &budget);
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
static enum wt_collected wt_collect_or_keep(struct wt_core *core, u64 at,
					    u64 want)
{
	if (wt_collect_at(core, at, want) == WT_DRAINED)
		return WT_DRAINED;
	core->backlog_at = at;
	WRITE_ONCE(core->backlog, true);
	return WT_STOPPED;
}

/**
 * wt_core_collect() - move the timeouts that are due to the ready list
 * @core: the file
 * @want: stop once this many records are ready (WT_COLLECT_ALL: never)
 *
 * Each timeout is stamped with the reading of the look that found it due:
 * first the backlog a collection stopped short left, with that
 * collection's reading; then what the file's timer found at its last
 * expiry, with the expiry's reading; then the rest, with the clock now. A
 * reading the clock has since stepped back from is dropped: what it found
 * is due again when the clock gets there. Then the timer is armed for
 * whatever comes next. A virtual clock collects only in wt_core_advance().
 */
void wt_core_collect(struct wt_core *core, u64 want)
{
	u64 at, now, nowtick;

	if (wt_core_is_virtual(core))
		return;
	now = wt_core_now(core);
	nowtick = wt_tick_now(core, now);
	if (core->backlog) {
		at = core->backlog_at;
		if (wt_tick_now(core, at) <= nowtick &&
		    wt_collect_at(core, at, want) != WT_DRAINED)
			goto out;
		WRITE_ONCE(core->backlog, false);
	}
	if (wt_core_expiry(core, &at, true) &&
	    wt_tick_now(core, at) <= nowtick &&
	    wt_collect_or_keep(core, at, want) != WT_DRAINED)
		goto out;
	wt_rewind(core, nowtick);
	if (wt_collect_or_keep(core, now, want) == WT_DRAINED)
		core->collected = nowtick;
out:
	wt_core_program(core);
}

/**
 * wt_core_program() - make sure the file's timer expires when it must
 * @core: the file
 *
 * Arm the timer for the wheel's next expiry if that is earlier than what
 * it is armed for, or have it expire at once if it is due already, unless
 * a backlog or ready records stand in front of it. An emptied wheel
 * leaves the timer armed: it expires once for nothing, which costs less
 * than disarming it now and arming it again for the next add.
 */
void wt_core_program(struct wt_core *core)
{
	u64 tick, now;

	core->reprogram = false;
	/* A backlog is collected first, and its collection programs again. */
	if (wt_core_is_virtual(core) || core->backlog)
		return;
	if (!wt_core_armed(core))
		WRITE_ONCE(core->armed, WT_UNARMED);
	if (!wt_wheel_next_expiry(&core->wheel, &tick))
		return;
	if (core->nr_ready && tick <= core->collected)
		return;
	if (tick >= core->armed)
		return;
	/* Already due: expire now, not by the timer a moment later. */
	now = wt_core_now(core);
	if (tick <= wt_tick_now(core, now)) {
		wt_core_expire_now(core, now);
		return;
	}
	WRITE_ONCE(core->armed, tick);
	wt_count(core, programs, 1);
	wt_core_arm(core, tick);
}

/* ------------------------------------------------------------- records */

/*
 * Describe a ready timeout in @ev and decide what becomes of it once the
 * record is read at @now: the id is released (WT_EVENT_FINAL) or the
 * timeout goes on at *@next.
 */
static void wt_describe(const struct wt_core *core, const struct wt_timer *t,
			u64 now, struct wt_event *ev, u64 *next)
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
		/* deadline + (overruns + 1) * period, if a timeout may have it */
		if (overruns < div64_u64(core->max_deadline - t->deadline,
					 period))
			*next = t->deadline + (overruns + 1) * period;
		break;
	case WT_KIND_FIXED_DELAY:
		period = wt_timer_period(t)->period;
		if (now <= core->max_deadline &&
		    period <= core->max_deadline - now)
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
 * The record @ev of @t, taken off the ready list, was handed out: its id
 * is released if final, else its timeout goes on at @next. The caller
 * counts it delivered, with its overruns.
 */
static void wt_consume_one(struct wt_core *core, struct wt_timer *t,
			   const struct wt_event *ev, u64 next)
{
	trace_wheeltimer_deliver(core->id, ev->id, ev->overruns,
				 ev->flags & WT_EVENT_FINAL);
	if (ev->flags & WT_EVENT_FINAL) {
		wt_store_put(&core->store, t);
		return;
	}
	t->deadline = next;
	wt_queue(core, t, wt_tick(core, next, wt_timer_period(t)->slack));
}

/* After @n records, with @overruns between them, were handed out. */
static void wt_consumed(struct wt_core *core, unsigned int n, u64 overruns)
{
	wt_count(core, delivered, n);
	wt_count(core, overruns, overruns);
	wt_trim(core);
	if (core->reprogram)
		wt_core_program(core);
}

/*
 * What a read of up to @max records takes first: at most WT_READ_BATCH,
 * and what is due collected unless the ready list holds enough already.
 * Returns the records to describe; *@now is the reading they carry.
 */
static unsigned int wt_take_begin(struct wt_core *core, unsigned int max,
				  u64 *now)
{
	max = min_t(unsigned int, max, WT_READ_BATCH);
	if (core->nr_ready < max)
		wt_core_collect(core, max);
	*now = wt_core_now(core);
	return max;
}

/**
 * wt_core_take() - describe the records at the head of the ready list
 * @core: the file
 * @ev: where to
 * @max: room in @ev
 *
 * Collects what is due first if fewer records are ready than @max. The
 * records stay queued until wt_core_consume() says how many the caller
 * handed out.
 *
 * Return: how many were described, at most WT_READ_BATCH.
 */
unsigned int wt_core_take(struct wt_core *core, struct wt_event *ev,
			  unsigned int max)
{
	struct hlist_node *node;
	unsigned int n = 0;
	struct wt_timer *t;
	u64 now;

	max = wt_take_begin(core, max, &now);
	for (node = core->ready.first; node && n < max; n++) {
		t = container_of(node, struct wt_timer, ready.link);
		node = node->next;
		wt_describe(core, t, now, &ev[n], &core->taken[n].next);
		core->taken[n].timer = t;
	}
	return n;
}

/**
 * wt_core_consume() - the first @n records wt_core_take() described were
 *	handed out
 * @core: the file
 * @ev: those records
 * @n: how many; the others stay queued as they were
 *
 * Each goes: its id released if final, else its timeout queued again.
 */
void wt_core_consume(struct wt_core *core, const struct wt_event *ev,
		     unsigned int n)
{
	u64 overruns = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		wt_ready_del(core, core->taken[i].timer);
		overruns += ev[i].overruns;
		wt_consume_one(core, core->taken[i].timer, &ev[i],
			       core->taken[i].next);
	}
	wt_consumed(core, n, overruns);
}

/* ------------------------------------------------------- virtual clock */

/* Move a virtual clock to @target, firing what comes due on the way. */
static int wt_walk(struct wt_core *core, u64 target, u64 *expired)
{
	u64 ttick = wt_tick_now(core, target);
	unsigned int budget;
	u64 tick, n = 0;
	int ret = 0;

	if (target < core->vnow) {
		/* Stepped back: nothing fires. */
		WRITE_ONCE(core->vnow, target);
		wt_rewind(core, ttick);
		*expired = 0;
		return 0;
	}
	for (;;) {
		budget = WT_COLLECT_SLICE;
		while (budget) {
			if (!wt_wheel_next_expiry(&core->wheel, &tick) ||
			    tick > ttick)
				goto done;
			/* tick <= ttick, so tick * resolution <= target */
			WRITE_ONCE(core->vnow,
				   max(core->vnow, tick * core->resolution));
			n += wt_expire(core, core->vnow, tick, &budget);
		}
		cond_resched();
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
	}
done:
	if (!ret)
		WRITE_ONCE(core->vnow, target);
	if (n)
		wt_core_notify(core);
	*expired = n;
	return ret;
}

/**
 * wt_core_advance() - WT_IOC_ADVANCE
 * @core: the file
 * @adv: the request; on success its @now and @expired are set, and on
 *	failure nothing of it is changed
 *
 * Fires what comes due on the way at the tick it is due, as a real clock
 * would, in slices, and signals the readers and the eventfd once if
 * anything fired.
 *
 * Return: 0; -EINVAL on a file that is not virtual, for unknown flags, or
 * to set a clock back that is not CLOCK_REALTIME; -ERANGE past
 * WT_TIME_MAX; -EINTR if a fatal signal stopped it (the clock then stands
 * where it stopped, everything due by then fired).
 */
int wt_core_advance(struct wt_core *core, struct wt_advance *adv)
{
	u64 target, expired;
	int ret;

	if (adv->flags & ~WT_ADVANCE_SET || !wt_core_is_virtual(core))
		return -EINVAL;
	if (adv->flags & WT_ADVANCE_SET) {
		target = adv->time;
		if (target < core->vnow && core->clockid != CLOCK_REALTIME)
			return -EINVAL;
	} else {
		target = core->vnow + adv->time;
		if (adv->time > WT_TIME_MAX - core->vnow)
			target = U64_MAX;
	}
	if (target > WT_TIME_MAX)
		return -ERANGE;
	ret = wt_walk(core, target, &expired);
	if (ret)
		return ret;
	adv->now = core->vnow;
	adv->expired = expired;
	return 0;
}

/* ------------------------------------------------------ configuration */

/**
 * wt_core_check_config() - whether a WT_IOC_SET_CONFIG may be applied
 * @cfg: the configuration asked for
 * @pending_limit: the most max_pending any file may have
 *
 * Return: 0 or -EINVAL; nothing is changed.
 */
int wt_core_check_config(const struct wt_config *cfg, u64 pending_limit)
{
	/*
	 * A file at the ceiling, its leases and the index ranges they skip
	 * (at most as many as it had before: ceil(max_pending / block) each
	 * way) fit the 32 bits of an index (WT_STORE_MAX_BLOCKS).
	 */
	BUILD_BUG_ON(3ULL * WT_PENDING_CEILING + WT_LEASE_SLACK +
		     4 * WT_BLOCK_TIMERS > U32_MAX);

	if (cfg->reserved[0] || cfg->reserved[1] || cfg->reserved[2] ||
	    cfg->flags & ~WT_CONFIG_VIRTUAL ||
	    cfg->resolution < WT_RESOLUTION_MIN ||
	    cfg->resolution > WT_RESOLUTION_MAX ||
	    cfg->max_pending > pending_limit)
		return -EINVAL;
	if (cfg->clockid != CLOCK_MONOTONIC && cfg->clockid != CLOCK_BOOTTIME &&
	    cfg->clockid != CLOCK_REALTIME)
		return -EINVAL;
	return 0;
}

/**
 * wt_core_configure() - set the configuration of a file with no timeout
 * @core: the file
 * @cfg: a configuration wt_core_check_config() accepted, with a non-zero
 *	max_pending; the file's timer is set up on its clock
 */
void wt_core_configure(struct wt_core *core, const struct wt_config *cfg)
{
	core->resolution = cfg->resolution;
	core->last_tick = div64_u64(WT_TIME_MAX, cfg->resolution);
	core->max_deadline = core->last_tick * cfg->resolution;
	core->max_pending = cfg->max_pending;
	core->flags = cfg->flags;
	core->clockid = cfg->clockid;
	WRITE_ONCE(core->vnow, 0);
	WRITE_ONCE(core->armed, WT_UNARMED);
	core->reprogram = false;
	WRITE_ONCE(core->backlog, false);
	wt_wheel_init(&core->wheel, wt_tick_now(core, wt_core_now(core)));
	core->collected = core->wheel.clk;
}

/* ------------------------------------------------------------- queries */

/**
 * wt_core_query() - WT_IOC_QUERY
 * @core: the file
 * @q: in, @q->id and every other field zero; out, the answer
 *
 * What is due is queued first, so that the counters say what QUERY says.
 *
 * Return: 0; -EINVAL if a field but @q->id is not zero, -ENOENT for an id
 * no live timeout has (@q unchanged either way).
 */
int wt_core_query(struct wt_core *core, struct wt_query *q)
{
	struct wt_timer *t;
	bool fired;
	u64 now;

	/* So that any of them may become an input one day. */
	if (q->flags || q->state || q->reserved || q->deadline ||
	    q->remaining || q->cookie || q->period)
		return -EINVAL;
	t = wt_store_lookup(&core->store, q->id);
	if (!t)
		return -ENOENT;
	wt_core_collect(core, WT_COLLECT_ALL);
	/* Fired: ready, or due though a fatal signal cut the collection. */
	now = wt_core_now(core);
	fired = t->state == WT_TIMER_READY ||
		t->entry.expires < wt_due_tick(core, now);
	memset(q, 0, sizeof(*q));
	q->id = wt_timer_id(t);
	q->flags = wt_kind_flags(t);
	q->state = fired ? WT_STATE_FIRED : WT_STATE_PENDING;
	q->deadline = t->deadline;
	q->remaining = t->deadline > now ? t->deadline - now : 0;
	q->cookie = t->cookie;
	q->period = t->kind == WT_KIND_ONESHOT ? 0 : wt_timer_period(t)->period;
	return 0;
}

/*
 * The counters of @core, as WT_IOC_STATS returns them, read field by field
 * without the mutex; @size, @hrtimer_expiries and @user_timeouts are the
 * caller's to set.
 */
void wt_core_stats(const struct wt_core *core, struct wt_stats *st)
{
	const struct wt_counters *c = &core->counters;
	u32 blocks, skipped;

	memset(st, 0, sizeof(*st));
	st->context_id = core->id;
	st->live = READ_ONCE(core->store.nr_live);
	st->pending = READ_ONCE(core->wheel.count);
	st->ready = READ_ONCE(core->nr_ready);
	st->added = READ_ONCE(c->added);
	st->modified = READ_ONCE(c->modified);
	st->fired = READ_ONCE(c->fired);
	st->delivered = READ_ONCE(c->delivered);
	st->cancelled = READ_ONCE(c->cancelled);
	st->withdrawn = READ_ONCE(c->withdrawn);
	st->overruns = READ_ONCE(c->overruns);
	st->hrtimer_programs = READ_ONCE(c->programs);
	st->rewinds = READ_ONCE(c->rewinds);
	blocks = READ_ONCE(core->store.nr_blocks);
	skipped = READ_ONCE(core->store.nr_skipped);
	st->timer_blocks = blocks > skipped ? blocks - skipped : 0;
}
