/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctx.h - the context of one open /dev/wheeltimer file, and what the
 * module's files tell each other about it
 *
 * Every open() of the device makes one struct wt_ctx: a core (core.h: the
 * timeouts and their rules) and what drives it: an hrtimer, the file's
 * mutex, the readers' waitqueue, an eventfd, the opener's time namespace
 * and user.
 * Each file of the module does one job:
 *
 *	main.c		the misc device, init and exit
 *	limits.c	the limits an administrator sets (sysctls)
 *	file.c		the file operations: open, release, read, poll, ioctl
 *	lock.c		the file's mutex, and waking those it turned away
 *	ops.c		WT_OP_ADD, WT_OP_CANCEL and WT_OP_MODIFY, alone or
 *			batched: the copies in and out
 *	ioctl.c		the other ioctls: API, configuration, ADVANCE, eventfd,
 *			QUERY, STATS, LEASE
 *	drive.c		the file's clock, its hrtimer and its memory charge:
 *			the calls core.h lists for them
 *	fdinfo.c	/proc/PID/fdinfo
 *	user.c		the memory all the files of one user may hold
 *	core.c		the rules, wheel.c the timing wheel, store.c the timeouts
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
 * ctx->mutex serializes everything userspace does to the file: every call
 * into the core (its wheel, store, ready list, backlog, configuration,
 * virtual clock, counters, and the hrtimer's programming) is made with it
 * held. All the work whose size a user controls (operations, collecting
 * what is due, ADVANCE, read()) runs under it, in process context,
 * charged to the caller, in slices that reschedule and stop on a fatal
 * signal. poll() and non-blocking reads never wait for it: they only try
 * it, and a caller that held it wakes them when it lets go (wt_trylock(),
 * wt_unlock()).
 *
 * ctx->wqh.lock, the waitqueue's lock as in timerfd, is all the hrtimer
 * callback takes. It protects what the callback shares with process
 * context: @expired, @expired_at, @expiries and @eventfd (written with
 * both locks held). Nothing under it loops over timeouts.
 *
 * The configuration is written with both locks held, the hrtimer
 * cancelled (wt_configure()): the core's resolution, limits, flags and
 * clockid (wt_core_configure()), @offset and the hrtimer's setup. The
 * mutex's holders read it, and so do, under ctx->wqh.lock alone, the
 * callback (the file's clock) and fdinfo, which must not wait for a file
 * its owner keeps busy: each sees one configuration whole.
 *
 * Read without a lock, with READ_ONCE() against writers' WRITE_ONCE():
 * @expired and the core's @nr_ready and @backlog, whether records are owed
 * (wt_records_owed(), for poll(), sleeping readers and wt_unlock());
 * @missed, an atomic; and, by fdinfo: the core's counters, @vnow (through
 * wt_core_now()), @armed, and the sizes of the wheel and the store. What
 * fdinfo shows of them is a snapshot, field by field, used for no
 * decision (a 64-bit value may tear on a 32-bit kernel).
 */
#ifndef _WHEELTIMER_CTX_H
#define _WHEELTIMER_CTX_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/wheeltimer.h>

#include "core.h"

struct eventfd_ctx;
struct wt_user;

/* Operations applied per hold of the mutex: as many as read()'s room takes. */
#define WT_OPS_CHUNK		(WT_READ_BATCH * sizeof(struct wt_event) / \
				 sizeof(struct wt_op))

/* Who wt_trylock() turned away, for the note in ctx->missed. */
#define WT_MISSED_POLL		0x1
#define WT_MISSED_READ		0x2

/**
 * struct wt_ctx - the context of one open file
 * @wqh: waiters for records; its lock is what the hrtimer callback takes
 * @timer: the hrtimer driving the wheel on a real clock
 * @eventfd: signalled when records may have become ready, or NULL
 * @expired: the hrtimer expired and what it found due is not collected yet
 * @expired_at: the file's clock when it did, while @expired
 * @expiries: times the file's timer expired: the hrtimer's callback ran, or
 *	the core found the next expiry due already
 * @mutex: serializes what userspace does, see above
 * @missed: the WT_MISSED_* of the callers wt_trylock() turned away while
 *	the mutex was held; its holder wakes the waiters when it lets go
 * @offset: ns to add to the host's reading of the clock to get the file's:
 *	the opener's time namespace offset, 0 for CLOCK_REALTIME
 * @ns_monotonic: the opener's time namespace offset of CLOCK_MONOTONIC
 * @ns_boottime: the opener's time namespace offset of CLOCK_BOOTTIME
 * @privileged: opened with CAP_SYS_RESOURCE: may raise max_pending above
 *	the module default, and is not held to the per-user limit
 * @user: what the opener's user holds, across all its files
 * @scratch: room for read()'s records or for a chunk of operations
 * @scratch.events: the records read() copies out
 * @scratch.ops: the operations being applied
 * @core: the timeouts and their rules, last because it is large
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
	s64 offset;
	s64 ns_monotonic;
	s64 ns_boottime;
	bool privileged;
	struct wt_user *user;
	union {
		struct wt_event events[WT_READ_BATCH];
		struct wt_op ops[WT_OPS_CHUNK];
	} scratch;
	struct wt_core core;
};

static inline struct wt_ctx *wt_ctx_of(const struct wt_core *core)
{
	return container_of(core, struct wt_ctx, core);
}

/*
 * Whether records are ready or owed: a waiter must not sleep, and a reader
 * turned away must hear when the file is free. Without a lock.
 */
static inline bool wt_records_owed(const struct wt_ctx *ctx)
{
	return wt_core_owes(&ctx->core) || READ_ONCE(ctx->expired);
}

/* limits.c: the limits, as they are now. */
int wt_limits_init(void);
void wt_limits_exit(void);
unsigned long wt_pending_default(void);
unsigned long wt_pending_limit(void);
unsigned long wt_user_limit_bytes(void);

/* file.c */
extern const struct file_operations wt_fops;

/* lock.c */
int wt_lock(struct wt_ctx *ctx);
bool wt_trylock(struct wt_ctx *ctx, int who);
void wt_unlock(struct wt_ctx *ctx);

/* drive.c */
void wt_notify(struct wt_ctx *ctx);
void wt_configure(struct wt_ctx *ctx, const struct wt_config *cfg);
void wt_drive_init(struct wt_ctx *ctx);

/* ops.c */
long wt_ioctl_op(struct wt_ctx *ctx, void __user *uarg, u32 code);
long wt_ioctl_batch(struct wt_ctx *ctx, void __user *uarg);

/* ioctl.c */
long wt_ioctl_api(void __user *uarg);
long wt_ioctl_set_config(struct wt_ctx *ctx, void __user *uarg);
long wt_ioctl_get_config(struct wt_ctx *ctx, void __user *uarg);
long wt_ioctl_advance(struct wt_ctx *ctx, void __user *uarg);
long wt_ioctl_set_eventfd(struct wt_ctx *ctx, void __user *uarg);
long wt_ioctl_query(struct wt_ctx *ctx, void __user *uarg);
long wt_ioctl_stats(struct wt_ctx *ctx, void __user *uarg, size_t usize);
long wt_ioctl_lease(struct wt_ctx *ctx, void __user *uarg);

/* fdinfo.c */
void wt_stats_fill(struct wt_ctx *ctx, struct wt_stats *st);
#ifdef CONFIG_PROC_FS
struct seq_file;
void wt_show_fdinfo(struct seq_file *m, struct file *file);
#endif

#endif /* _WHEELTIMER_CTX_H */
