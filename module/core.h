/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * core.h - a file of timeouts: the rules of /dev/wheeltimer, in one place
 *
 * A core is what one open /dev/wheeltimer file is to userspace: its
 * timeouts (store.h) in a timing wheel (wheel.h), the records that wait to
 * be read, its configuration, its clock and its counters. core.c applies
 * the uapi's rules to it: the operations and their errors, ticks and
 * deadlines, collecting what is due, the records and what reading them
 * does to periodic timeouts, the virtual clock, and when the file's timer
 * must expire next. It does not touch the hrtimer, the file's locks or
 * user memory: the rest of the driver does (ctx.h), and calls it with the
 * file's mutex held. Fields read without that mutex are said below
 * (READ_ONCE()).
 *
 * The words the code uses:
 *
 *	tick		a resolution-sized step of the file's clock; a
 *			timeout fires at the start of the tick its deadline
 *			rounds up to, never before its deadline
 *	reading		one read of the file's clock, which every record
 *			found due by the look that took it carries
 *			(fired_at)
 *	collect		move what is due at a reading from the wheel to
 *			the ready list, in slices a caller's budget bounds
 *	backlog		what a collection that stopped short left due at
 *			its reading: collected next, with that reading
 *	owe		a file owes records while some are ready or a
 *			backlog is left (wt_core_owes()): a reader or
 *			poller finds something
 *	take, consume	describe the ready records a read() copies out;
 *			then drop (or re-arm, if periodic) those it
 *			copied whole
 */
#ifndef _WHEELTIMER_CORE_H
#define _WHEELTIMER_CORE_H

#include <linux/limits.h>
#include <linux/list.h>
#include <linux/time.h>
#include <linux/types.h>
#include <linux/wheeltimer.h>

#include "store.h"
#include "wheel.h"

/* Records described per call of wt_core_take(). */
#define WT_READ_BATCH		64
/* The last nanosecond a deadline may name. */
#define WT_TIME_MAX		((u64)S64_MAX)
/* wt_core.armed when the file's timer is not armed for anything. */
#define WT_UNARMED		U64_MAX
/* wt_core_collect()'s @want for "everything that is due". */
#define WT_COLLECT_ALL		U64_MAX
/*
 * Ids a file may lease beyond its max_pending: room for the adds a caller
 * queues and submits before it learns they failed, up to 64 batches.
 */
#define WT_LEASE_SLACK		(64 * WT_BATCH_MAX)
/*
 * The most max_pending any file may have: its ids, those it may lease and
 * the index ranges its leases skip (store.h) must all fit the 32 bits of
 * an index, leases included (wt_core_check_config() checks the sum).
 */
#define WT_PENDING_CEILING	BIT(30)

/**
 * struct wt_counters - what happened in a file, as fdinfo and
 *	WT_IOC_STATS show it
 * @added: timeouts added
 * @modified: successful MODIFY operations
 * @fired: records queued (periodic timeouts once per period)
 * @delivered: records read
 * @cancelled: timeouts cancelled while pending
 * @withdrawn: records withdrawn unread, by CANCEL or MODIFY
 * @overruns: FIXED_RATE periods skipped while records were unread
 * @programs: times the file's timer was armed
 * @rewinds: times the wheel's clock was set back because the file's clock
 *	had stepped back
 */
struct wt_counters {
	u64 added;
	u64 modified;
	u64 fired;
	u64 delivered;
	u64 cancelled;
	u64 withdrawn;
	u64 overruns;
	u64 programs;
	u64 rewinds;
};

/**
 * struct wt_core - the timeouts of one file, and their rules
 * @store: the timeouts; @store.nr_live of them hold an id
 * @ready: timeouts that fired and whose record is unread, oldest first
 * @ready_tail: the last node of @ready, for O(1) appends; NULL when empty
 * @nr_ready: records on @ready; read without the lock (READ_ONCE())
 * @backlog: a collection stopped short: what was due at @backlog_at is not
 *	all on @ready yet; read without the lock
 * @backlog_at: the reading of that collection, while @backlog
 * @collected: the tick up to which the last collection looked
 * @armed: the tick the file's timer was last armed for, WT_UNARMED if
 *	none; it expires no later than that tick's start
 * @reprogram: the timer may have to be moved earlier (an entry went in
 *	before @armed, or @ready emptied with due timeouts left behind it)
 * @vnow: the virtual clock, in ns, when WT_CONFIG_VIRTUAL; read without
 *	the lock (wt_core_now() from fdinfo)
 * @resolution: ns per tick
 * @last_tick: the last tick whose start is a time (at most WT_TIME_MAX)
 * @max_deadline: the last deadline a timeout may have: @last_tick's start
 * @max_pending: the most live timeouts the file may hold
 * @flags: WT_CONFIG_* flags
 * @clockid: the clock deadlines are measured on
 * @id: the file's number for the tracepoints
 * @counters: event counters, each read without the lock
 * @taken: the records wt_core_take() described, and the deadline each
 *	timeout goes on with once the record is consumed
 * @wheel: the timing wheel, last because it is large
 *
 * The configuration changes only while the file holds no timeout.
 */
struct wt_core {
	struct wt_store store;
	struct hlist_head ready;
	struct hlist_node *ready_tail;
	u64 nr_ready;
	bool backlog;
	u64 backlog_at;
	u64 collected;
	u64 armed;
	bool reprogram;
	u64 vnow;
	u64 resolution;
	u64 last_tick;
	u64 max_deadline;
	u64 max_pending;
	u64 flags;
	clockid_t clockid;
	u64 id;
	struct wt_counters counters;
	struct {
		struct wt_timer *timer;
		u64 next;
	} taken[WT_READ_BATCH];
	struct wheel wheel;
};

/*
 * Add @n to counter @field of @core's counters; caller holds the mutex,
 * and fdinfo and WT_IOC_STATS may read the counter at any time.
 */
#define wt_count(core, field, n)					\
	do {								\
		u64 *__counter = &(core)->counters.field;		\
									\
		WRITE_ONCE(*__counter, *__counter + (n));		\
	} while (0)

static inline bool wt_core_is_virtual(const struct wt_core *core)
{
	return core->flags & WT_CONFIG_VIRTUAL;
}

/* Whether records are ready or a backlog is owed; without the lock. */
static inline bool wt_core_owes(const struct wt_core *core)
{
	return READ_ONCE(core->nr_ready) || READ_ONCE(core->backlog);
}

void wt_core_init(struct wt_core *core, u64 id);
int wt_core_check_config(const struct wt_config *cfg, u64 pending_limit);
void wt_core_configure(struct wt_core *core, const struct wt_config *cfg);
u64 wt_core_now(const struct wt_core *core);
unsigned int wt_core_apply(struct wt_core *core, struct wt_op *ops,
			   unsigned int n, u32 only);
int wt_core_lease(struct wt_core *core, u32 *first, u32 *count);
void wt_core_collect(struct wt_core *core, u64 want);
unsigned int wt_core_take(struct wt_core *core, struct wt_event *ev,
			  unsigned int max);
void wt_core_consume(struct wt_core *core, const struct wt_event *ev,
		     unsigned int n);
int wt_core_advance(struct wt_core *core, struct wt_advance *adv);
int wt_core_query(struct wt_core *core, struct wt_query *q);
void wt_core_stats(const struct wt_core *core, struct wt_stats *st);
void wt_core_program(struct wt_core *core);
void wt_core_destroy(struct wt_core *core);

/*
 * The file's clock, timer and memory charge, which drive.c defines. Each
 * is called with the file's mutex held.
 *
 * wt_core_clock(): the file's clock, in ns, when it is not virtual.
 * wt_core_expiry(): whether the file's timer has expired with what it
 *	found due not yet collected, and the clock's reading when it did;
 *	with @take, the expiry is then taken (it will be collected now).
 * wt_core_expire_now(): the file's timer expires at once, at the reading
 *	@now: what is due waits to be collected, and waiters hear of it.
 * wt_core_arm(): arm the file's timer to expire at the start of @tick (at
 *	most @core->last_tick + 1, which means never).
 * wt_core_armed(): whether the timer is armed and has not expired since.
 * wt_core_charge(): the store is about to allocate @bytes: false if the
 *	per-user limit refuses them (user.c).
 * wt_core_uncharge(): the store gave back, or did not allocate, @bytes.
 * wt_core_notify(): records were queued (by an advance): wake waiters.
 */
u64 wt_core_clock(const struct wt_core *core);
bool wt_core_expiry(struct wt_core *core, u64 *at, bool take);
void wt_core_expire_now(struct wt_core *core, u64 now);
void wt_core_arm(struct wt_core *core, u64 tick);
bool wt_core_armed(const struct wt_core *core);
bool wt_core_charge(struct wt_core *core, size_t bytes);
void wt_core_uncharge(struct wt_core *core, size_t bytes);
void wt_core_notify(struct wt_core *core);

#endif /* _WHEELTIMER_CORE_H */
