// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * engine_process.c - the in-process engine: /dev/wheeltimer's semantics on
 * module/wheel.c, driven by one timerfd
 *
 * This is the module's file of timeouts done again in userspace, for
 * machines without the module: the same timing wheel (module/wheel.c,
 * compiled unchanged against the shim headers in shim/linux/), the same
 * operations with the same checks and errnos, the same records. What
 * module/device.c says holds here too:
 *
 *  - Ticks: a deadline D goes in the wheel at tick ceil(D / resolution),
 *    moved later within its slack by wt_wheel_apply_slack(); what is due is
 *    asked for at tick floor(now / resolution). So nothing fires before
 *    its deadline, and with zero slack nothing waits in the wheel for more
 *    than one resolution after it. A deadline whose tick would start after
 *    KTIME_MAX fails with -ERANGE, and slack stops at the last tick.
 *  - Delivery: a timeout that comes due moves to the ready list (its links
 *    take the place of its wheel node) until a read or a cancel takes it,
 *    so it has at most one record. A cancel of a fired, unread one
 *    withdraws the record; a modify withdraws it and arms the timeout
 *    again. A timeout that is due by the clock counts as fired even before
 *    a read has collected it: a cancel or a modify withdraws it, as the
 *    module does with what its hrtimer found due.
 *  - Periodic timeouts go on when their record is read: FIXED_RATE at the
 *    first deadline + k * period after the read (k - 1 overruns),
 *    FIXED_DELAY one period after the read.
 *  - The virtual clock moves only by advance, which walks the wheel from
 *    one due tick to the next; records carry the tick they fired at.
 *  - A clock that reads behind the wheel's (CLOCK_REALTIME set back, or a
 *    virtual CLOCK_REALTIME clock set back) sets the wheel's clock back
 *    with wt_wheel_rewind() before anything is added or collected, so that a
 *    new timeout is never taken for due early; "rewinds" counts it.
 *
 * Where it differs, because it has no interrupt of its own: due timeouts
 * are collected by the read that wants them, or a batch, as in the module,
 * but stamped with the clock at that moment (the module stamps what its
 * hrtimer found due with the expiry's reading), and a read collects only
 * as many as it has room for. There is no per-user limit: the memory is
 * the process's own.
 *
 * The descriptor a caller polls is an epoll descriptor holding two others:
 * a timerfd, armed (absolute, on the context's clock) at the start of the
 * wheel's earliest non-empty slot when that lies ahead, and an eventfd that
 * the engine itself keeps signalled, from the end of each of its calls,
 * while records may be ready at once (some wait, or the wheel has entries
 * due that a read has not collected yet). So the descriptor is readable
 * when a timeout may have come due, and, like the module's file, at once
 * after a call that left records waiting (an advance, a short read). A
 * wake-up may still find nothing to reap: the timerfd also fires at the
 * start of a slot that only cascades. The timerfd is re-armed only when an
 * entry goes in earlier than it is armed for. There is no eventfd for the
 * caller to register: nothing would signal it when a timeout comes due
 * while the program is not in the library, so the engine lacks
 * WT_FEATURE_EVENTFD and callers poll the descriptor.
 *
 * Limits are the module's defaults: max_pending 1048576 unless asked, at
 * most 16777216.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/bug.h>

#include "internal.h"
#include "wheel.h"

#define WTP_ADD_FLAGS		(WT_ABSTIME | WT_FIXED_RATE | WT_FIXED_DELAY)
#define WTP_PERIODIC_FLAGS	(WT_FIXED_RATE | WT_FIXED_DELAY)
#define WTP_FEATURES		(WT_FEATURE_VIRTUAL_CLOCK | WT_FEATURE_PERIODIC | \
				 WT_FEATURE_SLACK | WT_FEATURE_BOOTTIME | \
				 WT_FEATURE_REALTIME)
#define WTP_IOCTLS		((1ULL << _WT_IOC_API) | \
				 (1ULL << _WT_IOC_SET_CONFIG) | \
				 (1ULL << _WT_IOC_GET_CONFIG) | \
				 (1ULL << _WT_IOC_BATCH) | \
				 (1ULL << _WT_IOC_ADVANCE) | \
				 (1ULL << _WT_IOC_QUERY))
/* wtp.armed when the timerfd is not armed for anything we rely on. */
#define WTP_UNARMED		UINT64_MAX

enum wtp_kind {
	WTP_ONESHOT,
	WTP_FIXED_RATE,
	WTP_FIXED_DELAY,
};

enum wtp_state {
	WTP_QUEUED = 1,		/* in the wheel */
	WTP_READY,		/* on the ready list */
};

/**
 * struct wtp_timer - one timeout of the in-process engine
 * @hdr: its id's generation, for the store
 * @entry: its place in the wheel, while queued
 * @link: while ready, its place on the ready list, over @entry's node (so
 *	@entry goes through wt_wheel_entry_init() before it is queued again)
 * @link.next: the next ready timeout, NULL for the last
 * @link.prev: the previous one, NULL for the first
 * @deadline: the deadline that fires next (queued) or fired (ready), in ns
 * @cookie: the caller's cookie
 * @fired_at: when it was found due, while ready
 * @period: ns, 0 for a one-shot timeout
 * @slack: ns, applied to every period
 * @kind: an enum wtp_kind
 * @state: an enum wtp_state
 * @idx: its index in the store, the low half of its id
 */
struct wtp_timer {
	struct wtl_idhdr hdr;
	union {
		struct wheel_entry entry;
		struct {
			struct wtp_timer *next;
			struct wtp_timer *prev;
		} link;
	};
	uint64_t deadline;
	uint64_t cookie;
	uint64_t fired_at;
	uint64_t period;
	uint64_t slack;
	uint8_t kind;
	uint8_t state;
	uint32_t idx;
};

static_assert(sizeof(struct wtp_timer) == 80, "a timeout costs 80 bytes");

/* The module's counters, by the names its fdinfo gives them. */
struct wtp_stats {
	uint64_t added;
	uint64_t modified;
	uint64_t fired;
	uint64_t delivered;
	uint64_t cancelled;
	uint64_t withdrawn;
	uint64_t overruns;
	uint64_t programs;
	uint64_t rewinds;
};

/**
 * struct wtp - the engine's state for one context
 * @timers: the store of timeouts, whose ids the library sees
 * @ready: the first of the fired timeouts whose record is unread, oldest
 *	first; NULL when there is none
 * @ready_tail: the last of them
 * @nr_ready: records on @ready
 * @vnow: the virtual clock, in ns
 * @armed: the tick the timerfd is armed for, or WTP_UNARMED
 * @reprogram: an entry went in the wheel earlier than @armed
 * @signalled: @efd is signalled
 * @tfd: the timerfd
 * @efd: the eventfd that says records may be ready at once
 * @epfd: the epoll descriptor holding both, the context's descriptor
 * @resolution: ns per tick
 * @last_tick: the last tick whose start is a time (at most KTIME_MAX)
 * @max_deadline: the last deadline a timeout may have: @last_tick's start
 * @max_pending: the most live timeouts
 * @flags: WT_CONFIG_* flags
 * @clockid: the clock deadlines are measured on
 * @stats: counters, for the fdinfo lines
 * @wheel: the timing wheel
 */
struct wtp {
	struct wtl_idtab timers;
	struct wtp_timer *ready;
	struct wtp_timer *ready_tail;
	uint64_t nr_ready;
	uint64_t vnow;
	uint64_t armed;
	bool reprogram;
	bool signalled;
	int tfd;
	int efd;
	int epfd;
	uint64_t resolution;
	uint64_t last_tick;
	uint64_t max_deadline;
	uint64_t max_pending;
	uint64_t flags;
	int32_t clockid;
	struct wtp_stats stats;
	struct wheel wheel;
};

static uint64_t wtl_nr_warnings;

void wtl_warn(const char *file, int line)
{
	(void)file;
	(void)line;
	__atomic_fetch_add(&wtl_nr_warnings, 1, __ATOMIC_RELAXED);
}

uint64_t wtl_warnings(void)
{
	return __atomic_load_n(&wtl_nr_warnings, __ATOMIC_RELAXED);
}

static struct wtp *wtp(const struct wheeltimer *wt)
{
	return wt->priv;
}

static bool wtp_is_virtual(const struct wtp *e)
{
	return e->flags & WT_CONFIG_VIRTUAL;
}

static uint64_t wtp_now(const struct wtp *e)
{
	return wtp_is_virtual(e) ? e->vnow : wtl_clock_ns(e->clockid);
}

/*
 * The tick at which a deadline of @ns (at most @e->max_deadline) with
 * @slack ns of slack is due; slack stops at the last tick.
 */
static uint64_t wtp_tick(const struct wtp *e, uint64_t ns, uint64_t slack)
{
	uint64_t tick = (ns + e->resolution - 1) / e->resolution;
	uint64_t room = e->last_tick - tick;

	if (slack)
		tick = wt_wheel_apply_slack(tick, slack / e->resolution < room ?
					    slack / e->resolution : room);
	return tick;
}

static uint64_t wtp_tick_now(const struct wtp *e, uint64_t now)
{
	return now / e->resolution;
}

static uint64_t wtp_kind_flags(const struct wtp_timer *t)
{
	switch (t->kind) {
	case WTP_FIXED_RATE:
		return WT_FIXED_RATE;
	case WTP_FIXED_DELAY:
		return WT_FIXED_DELAY;
	default:
		return 0;
	}
}

static uint64_t wtp_id(const struct wtp_timer *t)
{
	return (uint64_t)t->hdr.gen << 32 | t->idx;
}

/* The ready list: a FIFO with removal from anywhere, for withdrawals. */
static void wtp_ready_append(struct wtp *e, struct wtp_timer *t)
{
	t->state = WTP_READY;
	t->link.next = NULL;
	t->link.prev = e->ready_tail;
	if (e->ready_tail)
		e->ready_tail->link.next = t;
	else
		e->ready = t;
	e->ready_tail = t;
	e->nr_ready++;
}

static void wtp_ready_del(struct wtp *e, struct wtp_timer *t)
{
	if (t->link.prev)
		t->link.prev->link.next = t->link.next;
	else
		e->ready = t->link.next;
	if (t->link.next)
		t->link.next->link.prev = t->link.prev;
	else
		e->ready_tail = t->link.prev;
	e->nr_ready--;
}

/* Arm the timerfd for the start of @tick. */
static void wtp_arm(struct wtp *e, uint64_t tick)
{
	struct itimerspec its = { 0 };
	uint64_t ns;

	if (tick > e->last_tick)
		ns = WTL_TIME_MAX;
	else
		ns = tick * e->resolution;
	its.it_value.tv_sec = ns / 1000000000;
	its.it_value.tv_nsec = ns % 1000000000;
	/* Cannot fail: the descriptor is ours and the time is valid. */
	if (WARN_ON_ONCE(timerfd_settime(e->tfd, TFD_TIMER_ABSTIME, &its, NULL)))
		return;
	e->armed = tick;
	e->stats.programs++;
}

/* Keep the eventfd signalled exactly while @ready. */
static void wtp_signal(struct wtp *e, bool ready)
{
	uint64_t v = 1;

	if (ready == e->signalled)
		return;
	if (ready)
		WARN_ON_ONCE(write(e->efd, &v, sizeof(v)) != sizeof(v));
	else
		WARN_ON_ONCE(read(e->efd, &v, sizeof(v)) != sizeof(v));
	e->signalled = ready;
}

/*
 * Make the descriptor readable by the time records may be ready: at once
 * (the eventfd) if some wait or the wheel has entries due now, else by
 * the wheel's next expiry (the timerfd), if that is earlier than it is
 * armed for. Leaving it armed later costs at most one wake-up for nothing,
 * as the module's hrtimer does.
 */
static void wtp_program(struct wtp *e)
{
	bool ready = e->nr_ready;
	uint64_t tick;

	e->reprogram = false;
	if (!ready && !wtp_is_virtual(e) &&
	    wt_wheel_next_expiry(&e->wheel, &tick)) {
		if (tick <= wtp_tick_now(e, wtp_now(e)))
			ready = true;
		else if (tick < e->armed)
			wtp_arm(e, tick);
	}
	wtp_signal(e, ready);
}

/* Set the wheel's clock back to the reading @nowtick if it is behind. */
static void wtp_rewind(struct wtp *e, uint64_t nowtick)
{
	if (nowtick >= e->wheel.clk)
		return;
	wt_wheel_rewind(&e->wheel, nowtick);
	e->stats.rewinds++;
	/* Due entries it made future are placed again at the next expiry. */
	e->reprogram = true;
}

/* Queue @t, in neither the wheel nor the ready list, at @tick. */
static void wtp_queue(struct wtp *e, struct wtp_timer *t, uint64_t tick)
{
	/* Due for the wheel: is it due for the clock too? */
	if (tick <= e->wheel.clk)
		wtp_rewind(e, wtp_tick_now(e, wtp_now(e)));
	t->state = WTP_QUEUED;
	wt_wheel_entry_init(&t->entry);
	wt_wheel_add(&e->wheel, &t->entry, tick);
	if (tick < e->armed)
		e->reprogram = true;
}

/*
 * The absolute deadline of @op: its own, or with WT_ABSTIME clear that
 * many ns after @now. -ERANGE if its tick would start after KTIME_MAX.
 */
static int wtp_deadline(const struct wtp *e, const struct wt_op *op,
			uint64_t now, uint64_t *deadline)
{
	uint64_t d = op->deadline;

	if (!(op->flags & WT_ABSTIME)) {
		if (d > WTL_TIME_MAX - now)
			return -ERANGE;
		d += now;
	}
	if (d > e->max_deadline)
		return -ERANGE;
	*deadline = d;
	return 0;
}

static int wtp_op_add(struct wtp *e, struct wt_op *op, uint64_t now)
{
	uint64_t periodic = op->flags & WTP_PERIODIC_FLAGS;
	struct wtp_timer *t;
	uint64_t deadline, id;
	int ret;

	if (op->flags & ~WTP_ADD_FLAGS || periodic == WTP_PERIODIC_FLAGS)
		return -EINVAL;
	if (periodic ? !op->period || op->period > WTL_TIME_MAX : op->period)
		return -EINVAL;
	if (op->slack > WTL_TIME_MAX)
		return -EINVAL;
	ret = wtp_deadline(e, op, now, &deadline);
	if (ret)
		return ret;
	if (e->timers.nr_live >= e->max_pending)
		return -ENOSPC;
	t = wtl_idtab_get(&e->timers, &id);
	if (!t)
		return -ENOMEM;

	t->idx = (uint32_t)id;
	t->deadline = deadline;
	t->cookie = op->cookie;
	t->fired_at = 0;
	t->period = op->period;
	t->slack = op->slack;
	if (periodic == WT_FIXED_RATE)
		t->kind = WTP_FIXED_RATE;
	else if (periodic == WT_FIXED_DELAY)
		t->kind = WTP_FIXED_DELAY;
	else
		t->kind = WTP_ONESHOT;
	wtp_queue(e, t, wtp_tick(e, deadline, op->slack));
	e->stats.added++;
	op->id = id;
	return WT_STATUS_ADDED;
}

/*
 * Take @t out of the wheel or the ready list; returns a WT_STATUS_*. A
 * queued timeout before @due, the first tick the clock has not reached,
 * has fired, though no read has collected it yet: it is withdrawn as if
 * it had been.
 */
static int wtp_unlink(struct wtp *e, struct wtp_timer *t, uint64_t due)
{
	if (t->state == WTP_READY) {
		wtp_ready_del(e, t);
		e->stats.withdrawn++;
		return WT_STATUS_WITHDRAWN;
	}
	wt_wheel_del(&e->wheel, &t->entry);
	if (t->entry.expires < due) {
		e->stats.fired++;
		e->stats.withdrawn++;
		return WT_STATUS_WITHDRAWN;
	}
	return WT_STATUS_PENDING;
}

static int wtp_op_cancel(struct wtp *e, struct wt_op *op, uint64_t due)
{
	struct wtp_timer *t;
	int status;

	if (op->flags || op->deadline || op->period || op->slack || op->cookie)
		return -EINVAL;
	t = wtl_idtab_lookup(&e->timers, op->id);
	if (!t)
		return -ENOENT;
	status = wtp_unlink(e, t, due);
	if (status == WT_STATUS_PENDING)
		e->stats.cancelled++;
	wtl_idtab_put(&e->timers, op->id);
	return status;
}

static int wtp_op_modify(struct wtp *e, struct wt_op *op, uint64_t now,
			 uint64_t due)
{
	struct wtp_timer *t;
	uint64_t deadline;
	int status;

	if (op->flags & ~WT_ABSTIME || op->period || op->cookie ||
	    op->slack > WTL_TIME_MAX)
		return -EINVAL;
	status = wtp_deadline(e, op, now, &deadline);
	if (status)
		return status;
	t = wtl_idtab_lookup(&e->timers, op->id);
	if (!t)
		return -ENOENT;
	status = wtp_unlink(e, t, due);
	t->deadline = deadline;
	if (t->kind != WTP_ONESHOT)
		t->slack = op->slack;
	wtp_queue(e, t, wtp_tick(e, deadline, op->slack));
	e->stats.modified++;
	return status;
}

/* Apply @op and record its outcome in it, as the module does. */
static void wtp_apply(struct wtp *e, struct wt_op *op, uint64_t now,
		      uint64_t due)
{
	int ret;

	if (op->reserved)
		ret = -EINVAL;
	else if (op->op == WT_OP_ADD)
		ret = wtp_op_add(e, op, now);
	else if (op->op == WT_OP_CANCEL)
		ret = wtp_op_cancel(e, op, due);
	else if (op->op == WT_OP_MODIFY)
		ret = wtp_op_modify(e, op, now, due);
	else
		ret = -EINVAL;

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

static int wtp_batch(struct wheeltimer *wt, struct wt_op *ops, unsigned int n)
{
	struct wtp *e = wtp(wt);
	unsigned int i, done = 0;
	uint64_t now = 0, due = 0;
	bool virt = wtp_is_virtual(e);

	/*
	 * One clock reading for the batch, if a relative deadline needs it,
	 * or, on a real clock, a cancel or modify may find a timeout due.
	 */
	for (i = 0; i < n; i++) {
		if (((ops[i].op == WT_OP_ADD || ops[i].op == WT_OP_MODIFY) &&
		     !(ops[i].flags & WT_ABSTIME)) ||
		    (!virt && (ops[i].op == WT_OP_CANCEL ||
			       ops[i].op == WT_OP_MODIFY))) {
			now = wtp_now(e);
			break;
		}
	}
	if (!virt && i < n)
		due = wtp_tick_now(e, now) + 1;
	for (i = 0; i < n; i++) {
		wtp_apply(e, &ops[i], now, due);
		done += !ops[i].error;
	}
	if (e->reprogram)
		wtp_program(e);
	return done;
}

/* Move what is due at @nowtick to the ready list, until @want are ready. */
static void wtp_collect(struct wtp *e, uint64_t now, uint64_t nowtick,
			uint64_t want)
{
	unsigned int budget = UINT_MAX;
	struct wheel_entry *ent;
	struct wtp_timer *t;

	while (e->nr_ready < want &&
	       (ent = wt_wheel_expire(&e->wheel, nowtick, &budget))) {
		t = container_of(ent, struct wtp_timer, entry);
		t->fired_at = now;
		wtp_ready_append(e, t);
		e->stats.fired++;
	}
}

/*
 * Describe a ready timeout in @ev and decide what becomes of it once the
 * record is read at @now: its id is released (WT_EVENT_FINAL) or it goes
 * on at *@next.
 */
static void wtp_describe(const struct wtp *e, const struct wtp_timer *t,
			 uint64_t now, struct wt_event *ev, uint64_t *next)
{
	uint64_t overruns = 0;

	ev->id = wtp_id(t);
	ev->cookie = t->cookie;
	ev->deadline = t->deadline;
	ev->fired_at = t->fired_at;
	ev->flags = wtp_kind_flags(t);
	*next = 0;

	switch (t->kind) {
	case WTP_FIXED_RATE:
		if (now > t->deadline)
			overruns = (now - t->deadline) / t->period;
		/* deadline + (overruns + 1) * period, if it is a time at all */
		if (overruns < (e->max_deadline - t->deadline) / t->period)
			*next = t->deadline + (overruns + 1) * t->period;
		break;
	case WTP_FIXED_DELAY:
		if (now <= e->max_deadline && t->period <= e->max_deadline - now)
			*next = now + t->period;
		break;
	default:
		break;
	}
	ev->overruns = overruns;
	if (!*next)
		ev->flags |= WT_EVENT_FINAL;
}

static int wtp_read(struct wheeltimer *wt, void *buf, unsigned int max)
{
	struct wtp *e = wtp(wt);
	struct wtp_timer *t;
	struct wt_event ev;
	uint64_t now, next, expirations;
	unsigned int n = 0;

	/* Its expiry is consumed here: what it announced is collected below. */
	if (read(e->tfd, &expirations, sizeof(expirations)) ==
	    sizeof(expirations))
		e->armed = WTP_UNARMED;

	now = wtp_now(e);
	if (!wtp_is_virtual(e)) {
		wtp_rewind(e, wtp_tick_now(e, now));
		wtp_collect(e, now, wtp_tick_now(e, now), max);
	}

	while (n < max && e->ready) {
		t = e->ready;
		wtp_ready_del(e, t);
		wtp_describe(e, t, now, &ev, &next);
		memcpy((char *)buf + (size_t)n * sizeof(ev), &ev, sizeof(ev));
		n++;
		e->stats.delivered++;
		e->stats.overruns += ev.overruns;
		if (ev.flags & WT_EVENT_FINAL) {
			wtl_idtab_put(&e->timers, ev.id);
			continue;
		}
		t->deadline = next;
		wtp_queue(e, t, wtp_tick(e, next, t->slack));
	}
	wtp_program(e);
	return n;
}

/* Move the virtual clock to @target, firing what comes due on the way. */
static uint64_t wtp_walk(struct wtp *e, uint64_t target)
{
	uint64_t ttick = wtp_tick_now(e, target), tick, expired = 0;
	struct wheel_entry *ent;
	struct wtp_timer *t;
	unsigned int budget;

	while (wt_wheel_next_expiry(&e->wheel, &tick) && tick <= ttick) {
		/* tick <= ttick, so tick * resolution <= target */
		if (tick * e->resolution > e->vnow)
			e->vnow = tick * e->resolution;
		budget = UINT_MAX;
		while ((ent = wt_wheel_expire(&e->wheel, tick, &budget))) {
			t = container_of(ent, struct wtp_timer, entry);
			t->fired_at = e->vnow;
			wtp_ready_append(e, t);
			e->stats.fired++;
			expired++;
		}
	}
	if (target > e->vnow)
		e->vnow = target;
	return expired;
}

static int wtp_advance(struct wheeltimer *wt, struct wt_advance *adv)
{
	struct wtp *e = wtp(wt);
	uint64_t target;

	if (adv->flags & ~WT_ADVANCE_SET || !wtp_is_virtual(e))
		return -EINVAL;
	if (adv->flags & WT_ADVANCE_SET) {
		target = adv->time;
		if (target < e->vnow && e->clockid != CLOCK_REALTIME)
			return -EINVAL;
	} else {
		target = e->vnow + adv->time;
		if (adv->time > WTL_TIME_MAX - e->vnow)
			target = UINT64_MAX;
	}
	if (target > WTL_TIME_MAX)
		return -ERANGE;

	if (target < e->vnow) {
		/* Stepped back: nothing fires. */
		e->vnow = target;
		wtp_rewind(e, wtp_tick_now(e, target));
		adv->expired = 0;
	} else {
		adv->expired = wtp_walk(e, target);
	}
	adv->now = e->vnow;
	wtp_program(e);
	return 0;
}

static int wtp_query(struct wheeltimer *wt, struct wt_query *q)
{
	struct wtp *e = wtp(wt);
	struct wtp_timer *t;
	uint64_t now;
	bool fired;

	t = wtl_idtab_lookup(&e->timers, q->id);
	if (!t)
		return -ENOENT;
	now = wtp_now(e);
	/* Fired: ready, or due by the clock and not collected yet. */
	fired = t->state == WTP_READY ||
		(!wtp_is_virtual(e) &&
		 t->entry.expires <= wtp_tick_now(e, now));
	memset(q, 0, sizeof(*q));
	q->id = wtp_id(t);
	q->flags = wtp_kind_flags(t);
	q->state = fired ? WT_STATE_FIRED : WT_STATE_PENDING;
	q->deadline = t->deadline;
	q->remaining = t->deadline > now ? t->deadline - now : 0;
	q->cookie = t->cookie;
	q->period = t->period;
	return 0;
}

static int wtp_now_op(const struct wheeltimer *wt, uint64_t *now)
{
	*now = wtp_now(wtp(wt));
	return 0;
}

/* The module's fdinfo lines, with the timerfd in place of the hrtimer. */
static int wtp_fdinfo(const struct wheeltimer *wt, char *buf, size_t size)
{
	const struct wtp *e = wtp(wt);
	const struct wtp_stats *st = &e->stats;
	int len;

	len = snprintf(buf, size,
		       "engine:\tprocess\nclockid:\t%d\nvirtual:\t%d\n"
		       "resolution_ns:\t%llu\nmax_pending:\t%llu\n"
		       "now_ns:\t%llu\nclk:\t%llu\nlive:\t%u\npending:\t%llu\n"
		       "ready:\t%llu\nadded:\t%llu\nmodified:\t%llu\n"
		       "fired:\t%llu\ndelivered:\t%llu\ncancelled:\t%llu\n"
		       "withdrawn:\t%llu\noverruns:\t%llu\n"
		       "timerfd_programs:\t%llu\nrewinds:\t%llu\n",
		       e->clockid, wtp_is_virtual(e),
		       (unsigned long long)e->resolution,
		       (unsigned long long)e->max_pending,
		       (unsigned long long)wtp_now(e),
		       (unsigned long long)e->wheel.clk, e->timers.nr_live,
		       (unsigned long long)e->wheel.count,
		       (unsigned long long)e->nr_ready,
		       (unsigned long long)st->added,
		       (unsigned long long)st->modified,
		       (unsigned long long)st->fired,
		       (unsigned long long)st->delivered,
		       (unsigned long long)st->cancelled,
		       (unsigned long long)st->withdrawn,
		       (unsigned long long)st->overruns,
		       (unsigned long long)st->programs,
		       (unsigned long long)st->rewinds);
	if (len < 0)
		return -EIO;
	return (size_t)len < size ? len : -ENOSPC;
}

static void wtp_close(struct wheeltimer *wt)
{
	struct wtp *e = wtp(wt);

	if (!e)
		return;
	if (e->tfd >= 0)
		close(e->tfd);
	if (e->efd >= 0)
		close(e->efd);
	if (e->epfd >= 0)
		close(e->epfd);
	/* Every timer, in the wheel or ready, lives in the store. */
	wtl_idtab_destroy(&e->timers);
	free(e);
	wt->priv = NULL;
	wt->fd = -1;
}

static int wtp_watch(struct wtp *e, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static int wtp_open(struct wheeltimer *wt)
{
	struct wtp *e = calloc(1, sizeof(*e));
	int err;

	if (!e)
		return -ENOMEM;
	e->tfd = -1;
	e->efd = -1;
	e->epfd = -1;
	wtl_idtab_init(&e->timers, sizeof(struct wtp_timer));
	wt->priv = e;
	wt->fd = -1;
	e->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->efd < 0 || e->epfd < 0 || wtp_watch(e, e->efd)) {
		err = -errno;
		wtp_close(wt);
		return err;
	}
	wt->fd = e->epfd;
	return 0;
}

static int wtp_handshake(struct wheeltimer *wt, struct wt_api *api)
{
	(void)wt;
	memset(api, 0, sizeof(*api));
	api->api = WT_API_VERSION;
	api->features = WTP_FEATURES;
	api->ioctls = WTP_IOCTLS;
	api->event_size = sizeof(struct wt_event);
	api->batch_max = WT_BATCH_MAX;
	return 0;
}

static int wtp_configure(struct wheeltimer *wt, struct wt_config *cfg)
{
	struct wtp *e = wtp(wt);
	int tfd, err;

	if (cfg->reserved[0] || cfg->reserved[1] || cfg->reserved[2] ||
	    cfg->flags & ~WT_CONFIG_VIRTUAL ||
	    cfg->resolution < WT_RESOLUTION_MIN ||
	    cfg->resolution > WT_RESOLUTION_MAX ||
	    cfg->max_pending > WTL_PENDING_LIMIT)
		return -EINVAL;
	if (cfg->clockid != CLOCK_MONOTONIC && cfg->clockid != CLOCK_BOOTTIME &&
	    cfg->clockid != CLOCK_REALTIME)
		return -EINVAL;
	if (e->timers.nr_live)
		return -EBUSY;
	if (!cfg->max_pending)
		cfg->max_pending = WTL_PENDING_DEFAULT;

	/* A virtual clock never arms it. */
	tfd = timerfd_create(cfg->flags & WT_CONFIG_VIRTUAL ? CLOCK_MONOTONIC :
			     (clockid_t)cfg->clockid,
			     TFD_NONBLOCK | TFD_CLOEXEC);
	if (tfd < 0)
		return -errno;
	if (wtp_watch(e, tfd)) {
		err = -errno;
		close(tfd);
		return err;
	}
	/* Closing it takes it out of the epoll set. */
	if (e->tfd >= 0)
		close(e->tfd);
	e->tfd = tfd;

	e->resolution = cfg->resolution;
	e->last_tick = WTL_TIME_MAX / cfg->resolution;
	e->max_deadline = e->last_tick * cfg->resolution;
	e->max_pending = cfg->max_pending;
	e->flags = cfg->flags;
	e->clockid = cfg->clockid;
	e->vnow = 0;
	e->armed = WTP_UNARMED;
	e->reprogram = false;
	wt_wheel_init(&e->wheel, wtp_tick_now(e, wtp_now(e)));
	return 0;
}

static int wtp_get_config(struct wheeltimer *wt, struct wt_config *cfg)
{
	const struct wtp *e = wtp(wt);

	memset(cfg, 0, sizeof(*cfg));
	cfg->resolution = e->resolution;
	cfg->max_pending = e->max_pending;
	cfg->flags = e->flags;
	cfg->clockid = e->clockid;
	return 0;
}

const struct wtl_engine wtl_process_engine = {
	.id		= WHEELTIMER_ENGINE_PROCESS,
	.open		= wtp_open,
	.handshake	= wtp_handshake,
	.configure	= wtp_configure,
	.get_config	= wtp_get_config,
	.batch		= wtp_batch,
	.read		= wtp_read,
	.advance	= wtp_advance,
	.set_eventfd	= NULL,
	.query		= wtp_query,
	.now		= wtp_now_op,
	.fdinfo		= wtp_fdinfo,
	.close		= wtp_close,
};
