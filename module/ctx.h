/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctx.h - the context of one open /dev/wheeltimer file, and what the
 * module's files tell each other about it
 *
 * Every open() of the device makes one struct wt_ctx: a timing wheel
 * (wheel.h) holding the file's timeouts (store.h), the list of records
 * ready to be read, one hrtimer, and the file's configuration and
 * counters. Each file of the module does one job on it:
 *
 *	main.c		module parameters, the misc device, init and exit
 *	file.c		the file operations: open, release, read, poll, ioctl
 *	ops.c		WT_OP_ADD, WT_OP_CANCEL and WT_OP_MODIFY, alone or batched
 *	ioctl.c		the other ioctls: API, configuration, ADVANCE, eventfd,
 *			QUERY
 *	drive.c		the file's clock, its hrtimer, and collecting what is due
 *	ready.c		the ready list and the records read() returns
 *	fdinfo.c	/proc/PID/fdinfo
 *	user.c		the memory all the files of one user may hold
 *
 * Locking order:
 *	ctx->mutex
 *	  mmap_lock and what a page fault takes: the mutex is held across
 *	  copies to and from userspace (operations, answers, records), which
 *	  may fault, and stall for as long as a userfaultfd handler likes
 *	  ctx->wqh.lock		(irq-safe: the hrtimer callback takes it)
 *	    the registered eventfd's lock, and the locks of whatever waits
 *	    on ctx->wqh (eventfd_signal(), wake_up_locked_poll())
 *
 * ctx->mutex serializes everything userspace does to the file: it protects
 * the wheel, the store, the ready list, the backlog, the configuration,
 * the virtual clock, the hrtimer's programming and the @counters. All the
 * work whose size a user controls (operations, collecting what is due,
 * ADVANCE, read()) runs under it, in process context, charged to the
 * caller, in slices that reschedule and stop on a fatal signal. poll() and
 * non-blocking reads never wait for it: they only try it, and a caller
 * that held it wakes them when it lets go (wt_trylock(), wt_unlock()).
 *
 * ctx->wqh.lock, the waitqueue's lock as in timerfd, is all the hrtimer
 * callback takes. It protects what the callback shares with process
 * context: @expired, @expired_at, @expiries and @eventfd (written with
 * both locks held). Nothing under it loops over timeouts.
 *
 * Read without a lock, with READ_ONCE() against writers' WRITE_ONCE():
 * @nr_ready, @expired and @backlog, whether records are owed
 * (wt_records_owed(), for poll(), sleeping readers and wt_unlock());
 * @missed, an atomic; and, by fdinfo, which must not wait for a file its
 * owner keeps busy: the counters, @vnow (through wt_now()), @armed, and
 * the sizes of the wheel and the store. What fdinfo shows is a snapshot,
 * field by field, used for no decision (a 64-bit value may tear on a
 * 32-bit kernel). The configuration changes only under the mutex, with the
 * hrtimer cancelled and the file empty, so that the callback and fdinfo
 * may read it with no lock at all.
 */
#ifndef _WHEELTIMER_CTX_H
#define _WHEELTIMER_CTX_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/wheeltimer.h>

#include "store.h"
#include "wheel.h"

struct cred;
struct eventfd_ctx;
struct wt_user;

/* Records read() copies out per hold of the mutex. */
#define WT_READ_BATCH		64
/* Operations applied per hold of the mutex: as many as read()'s room takes. */
#define WT_OPS_CHUNK		(WT_READ_BATCH * sizeof(struct wt_event) / \
				 sizeof(struct wt_op))
/* The last nanosecond a deadline may name. */
#define WT_TIME_MAX		((u64)KTIME_MAX)
/* ctx->armed when the hrtimer is not armed for anything we rely on. */
#define WT_UNARMED		U64_MAX
/* wt_collect()'s @want for "everything that is due". */
#define WT_COLLECT_ALL		U64_MAX

/**
 * struct wt_counters - what happened in a context, as fdinfo and
 *	WT_IOC_STATS show it
 * @added: timeouts added
 * @modified: successful MODIFY operations
 * @fired: records queued (periodic timeouts once per period)
 * @delivered: records copied out by read()
 * @cancelled: timeouts cancelled while pending
 * @withdrawn: records withdrawn unread, by CANCEL or MODIFY
 * @overruns: FIXED_RATE periods skipped while records were unread
 * @programs: times the hrtimer was started
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

/*
 * Add @n to counter @field of @ctx's counters; caller holds the mutex, and
 * fdinfo may read the counter at any time.
 */
#define wt_count(ctx, field, n)						\
	do {								\
		u64 *__counter = &(ctx)->counters.field;			\
									\
		WRITE_ONCE(*__counter, *__counter + (n));		\
	} while (0)

/**
 * struct wt_ctx - the context of one open file
 * @wqh: waiters for records; its lock is what the hrtimer callback takes
 * @timer: the hrtimer driving the wheel on a real clock
 * @eventfd: signalled when records may have become ready, or NULL
 * @expired: the hrtimer expired and what it found due is not collected yet
 * @expired_at: the file's clock when it did, while @expired
 * @expiries: times the file's timer expired: the hrtimer's callback ran, or
 *	wt_program() found the next expiry due already
 * @mutex: serializes what userspace does, see above
 * @missed: the WT_MISSED_* of the callers wt_trylock() turned away while
 *	the mutex was held; its holder wakes the waiters when it lets go
 * @ready: timeouts that fired and whose record is unread, oldest first
 * @ready_tail: the last node of @ready, for O(1) appends; NULL when empty
 * @nr_ready: records on @ready
 * @armed: the tick @timer was last armed for, WT_UNARMED if none; it fires
 *	no later than that tick's start
 * @reprogram: the hrtimer may have to be moved earlier (an entry went in
 *	before @armed, or @ready emptied with due timeouts left behind it)
 * @collected: the tick up to which the last collection looked
 * @backlog: a collection stopped short: what was due at @backlog_at is not
 *	all on the ready list yet
 * @backlog_at: the reading of that collection, while @backlog
 * @vnow: the virtual clock, in ns, when WT_CONFIG_VIRTUAL
 * @resolution: ns per tick
 * @last_tick: the last tick whose start is a time (at most WT_TIME_MAX)
 * @max_deadline: the last deadline a timeout may have: @last_tick's start
 * @max_pending: the most live timeouts the context may hold
 * @flags: WT_CONFIG_* flags
 * @clockid: the clock deadlines are measured on
 * @offset: ns to add to the host's reading of @clockid to get the file's:
 *	the opener's time namespace offset, 0 for CLOCK_REALTIME
 * @ns_monotonic: the opener's time namespace offset of CLOCK_MONOTONIC
 * @ns_boottime: the opener's time namespace offset of CLOCK_BOOTTIME
 * @privileged: opened with CAP_SYS_RESOURCE: may raise @max_pending above
 *	the module default, and is not held to the per-user limit
 * @user: what the opener's user holds, across all its files
 * @store: the timeouts; @store.nr_live of them hold an id (queued, ready
 *	or being read)
 * @counters: event counters, for fdinfo and WT_IOC_STATS
 * @context_id: the file's number in fdinfo and the tracepoints, unique
 *	while the module is loaded
 * @taken: the timeouts whose records read() is copying out, and the
 *	deadline each goes on with
 * @scratch: room for read()'s records or for a chunk of operations
 * @scratch.events: the records read() copies out
 * @scratch.ops: the operations being applied
 * @wheel: the timing wheel, last because it is large
 */
struct wt_ctx {
	wait_queue_head_t wqh;
	struct hrtimer timer;
	struct eventfd_ctx *eventfd;
	bool expired;
	u64 expired_at;
	u64 expiries;

	struct mutex mutex;	/* see the locking order above */
	atomic_t missed;
	struct hlist_head ready;
	struct hlist_node *ready_tail;
	u64 nr_ready;
	u64 armed;
	bool reprogram;
	u64 collected;
	bool backlog;
	u64 backlog_at;
	u64 vnow;
	u64 resolution;
	u64 last_tick;
	u64 max_deadline;
	u64 max_pending;
	u64 flags;
	clockid_t clockid;
	s64 offset;
	s64 ns_monotonic;
	s64 ns_boottime;
	bool privileged;
	struct wt_user *user;
	struct wt_store store;
	struct wt_counters counters;
	u64 context_id;
	struct {
		struct wt_timer *timer;
		u64 next;
	} taken[WT_READ_BATCH];
	union {
		struct wt_event events[WT_READ_BATCH];
		struct wt_op ops[WT_OPS_CHUNK];
	} scratch;
	struct wheel wheel;
};

static inline bool wt_is_virtual(const struct wt_ctx *ctx)
{
	return ctx->flags & WT_CONFIG_VIRTUAL;
}

/*
 * Whether records are ready or owed: a waiter must not sleep, and a reader
 * turned away must hear when the file is free. Without a lock.
 */
static inline bool wt_records_owed(const struct wt_ctx *ctx)
{
	return READ_ONCE(ctx->nr_ready) || READ_ONCE(ctx->expired) ||
	       READ_ONCE(ctx->backlog);
}

static inline u64 wt_kind_flags(const struct wt_timer *t)
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

/* Who wt_trylock() turned away, for the note in ctx->missed. */
#define WT_MISSED_POLL		0x1
#define WT_MISSED_READ		0x2

/* main.c: the module parameters, as they are now. */
unsigned long wt_pending_default(void);
unsigned long wt_pending_limit(void);
unsigned long wt_user_limit_bytes(void);

/* file.c */
extern const struct file_operations wt_fops;
int wt_lock(struct wt_ctx *ctx);
bool wt_trylock(struct wt_ctx *ctx, int who);
void wt_unlock(struct wt_ctx *ctx);

/* drive.c */
u64 wt_now(const struct wt_ctx *ctx);
u64 wt_tick(const struct wt_ctx *ctx, u64 ns, u64 slack);
u64 wt_tick_now(const struct wt_ctx *ctx, u64 now);
int wt_deadline(const struct wt_ctx *ctx, u64 deadline, bool abs, u64 now,
		u64 *out);
void wt_queue(struct wt_ctx *ctx, struct wt_timer *t, u64 tick);
u64 wt_due_tick(struct wt_ctx *ctx, u64 now);
void wt_program(struct wt_ctx *ctx);
void wt_collect(struct wt_ctx *ctx, u64 want);
int wt_advance(struct wt_ctx *ctx, u64 target, u64 *expired);
void wt_notify(struct wt_ctx *ctx);
void wt_configure(struct wt_ctx *ctx, const struct wt_config *cfg);
void wt_drive_init(struct wt_ctx *ctx);

/* ready.c */
void wt_ready_append(struct wt_ctx *ctx, struct wt_timer *t);
void wt_ready_del(struct wt_ctx *ctx, struct wt_timer *t);
ssize_t wt_read_records(struct wt_ctx *ctx, struct iov_iter *to, bool *fault);

/* ops.c */
long wt_ioctl_op(struct wt_ctx *ctx, void __user *uarg, u32 code);
long wt_ioctl_batch(struct wt_ctx *ctx, void __user *uarg);
void wt_trim(struct wt_ctx *ctx);

/* ioctl.c */
long wt_ioctl_api(void __user *uarg);
long wt_ioctl_set_config(struct wt_ctx *ctx, void __user *uarg);
long wt_ioctl_get_config(struct wt_ctx *ctx, void __user *uarg);
long wt_ioctl_advance(struct wt_ctx *ctx, void __user *uarg);
long wt_ioctl_set_eventfd(struct wt_ctx *ctx, void __user *uarg);
long wt_ioctl_query(struct wt_ctx *ctx, void __user *uarg);
long wt_ioctl_stats(struct wt_ctx *ctx, void __user *uarg, size_t usize);

/* fdinfo.c */
void wt_stats_fill(struct wt_ctx *ctx, struct wt_stats *st);
#ifdef CONFIG_PROC_FS
struct seq_file;
void wt_show_fdinfo(struct seq_file *m, struct file *file);
#endif

#endif /* _WHEELTIMER_CTX_H */
