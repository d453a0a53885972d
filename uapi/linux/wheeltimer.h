/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * wheeltimer - many timeouts per file descriptor, kept in a tickless
 * hierarchical timing wheel behind /dev/wheeltimer
 *
 * This header is the whole userspace interface: ioctl numbers, the structs
 * they take, the record read() returns, and their flags.
 */
#ifndef _UAPI_LINUX_WHEELTIMER_H
#define _UAPI_LINUX_WHEELTIMER_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * DOC: overview
 *
 * Every open() of /dev/wheeltimer is an independent context with its own
 * timeouts, ids, clock and limits; close() cancels and frees everything it
 * holds. A forked child or a dup()ed descriptor shares the context of the
 * open file description.
 *
 * Time is counted in nanoseconds on the context's clock (CLOCK_MONOTONIC
 * unless WT_IOC_SET_CONFIG chose CLOCK_BOOTTIME, CLOCK_REALTIME or a
 * virtual clock), as the process that opened the file reads it: in that
 * process's time namespace (see time_namespaces(7)), whatever process
 * uses the file later. Every absolute time the interface takes or gives
 * (WT_ABSTIME deadlines, &struct wt_event's deadline and fired_at, QUERY's
 * deadline) is on that clock. The clock is cut into ticks of one
 * *resolution* (1 ms by default): a timeout whose deadline is D becomes
 * due at the first tick boundary at or after D. A timeout never fires
 * before its deadline, and with zero slack it fires at most one resolution
 * after it, plus the latency of one hrtimer interrupt and of the reader
 * that collects it. A non-zero slack lets the kernel fire it up to that
 * much later still, to share wake-ups.
 *
 * A deadline's tick must start by KTIME_MAX (2^63 - 1) ns: the last
 * deadline a context accepts is KTIME_MAX rounded down to a multiple of the
 * resolution, and one in the partial tick above it fails with -ERANGE. On
 * CLOCK_REALTIME a relative deadline is turned into an absolute wall-clock
 * time when it is added, and a timeout fires when the wall clock reaches
 * it, however the clock is set in between.
 *
 * Ids are assigned by the kernel: never 0. The lower 32 bits are a slot
 * that the file reuses once the timeout that held it is gone; the upper 32
 * bits are the slot's generation, bumped on each reuse, so a stale id is
 * unknown (-ENOENT) rather than aliasing a newer timeout, until its slot has
 * been reused 2^32 times. An id means nothing to any other file.
 *
 * When timeouts come due, the file's hrtimer expires: it wakes read(),
 * poll(), select() and epoll waiters (EPOLLIN) and adds 1 to the eventfd
 * registered with WT_IOC_SET_EVENTFD, if any, and the timeouts are queued
 * as one &struct wt_event each by the first call that looks (read(),
 * poll(), WT_IOC_QUERY, WT_IOC_STATS). The hrtimer expires only at a tick
 * at which a timeout is due, however far ahead it was set: a timeout a day
 * away costs its waiters one wake-up. The eventfd is incremented by
 * exactly 1 at each expiry (timeouts due together share one; an expiry
 * finds nothing due only when the timeout it was armed for was cancelled
 * or moved since), once per WT_IOC_ADVANCE
 * that queued records, once at WT_IOC_SET_EVENTFD if records are waiting,
 * and once when a call that kept the file busy ends after a non-blocking
 * read() was turned away (a poll() turned away is woken through the file,
 * and adds nothing). It counts wake-ups, not timeouts: read the records
 * until -EAGAIN to learn how many fired.
 *
 * poll() reports EPOLLIN when records are ready and a read() would take
 * them now: not while another call keeps the file busy (a batch, an
 * ADVANCE, a read() held in a page fault), even with records queued;
 * pollers are woken when that call ends. A level-triggered event loop so
 * sleeps while the file is busy, rather than going round.
 *
 * Each timeout has at most one unread record at a time, so the memory a
 * context uses is bounded by the number of its live timeouts:
 *
 * - a one-shot timeout's id is released when its record is read;
 * - a WT_FIXED_RATE timeout is re-armed when its record is read, at the
 *   first deadline + k * period that lies in the future; the k - 1 periods
 *   that passed unread are reported as @overruns (as timerfd does);
 * - a WT_FIXED_DELAY timeout is re-armed when its record is read, one
 *   period after that read.
 *
 * Every timeout is therefore either delivered by read() exactly once per
 * firing, or cancelled: WT_OP_CANCEL tells which of the two it was.
 *
 * A timeout counts against the context's max_pending from WT_OP_ADD until
 * it is cancelled or its final record is read. All the contexts opened by
 * one user (real uid, as the kernel sees it: each uid a user namespace
 * maps is a user of its own) together hold at most the storage of the
 * sysctl dev.wheeltimer.max_user_timeouts (by default 4% of RAM, as epoll
 * bounds a user's watches), counted in pages of 85 timeouts, plus each
 * context's own few pages; a context keeps the storage of its peak until
 * it holds no timeout. Past that WT_OP_ADD fails with -ENOSPC and open()
 * with -EMFILE, unless the file was opened with CAP_SYS_RESOURCE.
 */

/**
 * WT_API_VERSION - the interface version WT_IOC_API negotiates
 */
#define WT_API_VERSION		1ULL

/* Features reported by WT_IOC_API. */
/** WT_FEATURE_VIRTUAL_CLOCK - WT_CONFIG_VIRTUAL and WT_IOC_ADVANCE */
#define WT_FEATURE_VIRTUAL_CLOCK	_BITULL(0)
/** WT_FEATURE_PERIODIC - WT_FIXED_RATE and WT_FIXED_DELAY timeouts */
#define WT_FEATURE_PERIODIC		_BITULL(1)
/** WT_FEATURE_SLACK - the @slack field of &struct wt_op */
#define WT_FEATURE_SLACK		_BITULL(2)
/** WT_FEATURE_EVENTFD - WT_IOC_SET_EVENTFD */
#define WT_FEATURE_EVENTFD		_BITULL(3)
/** WT_FEATURE_BOOTTIME - CLOCK_BOOTTIME as the context's clock */
#define WT_FEATURE_BOOTTIME		_BITULL(4)
/** WT_FEATURE_REALTIME - CLOCK_REALTIME as the context's clock */
#define WT_FEATURE_REALTIME		_BITULL(5)
/** WT_FEATURE_LEASED_IDS - WT_IOC_LEASE and WT_LEASED_ID */
#define WT_FEATURE_LEASED_IDS		_BITULL(6)

/**
 * struct wt_api - interface handshake, for WT_IOC_API
 * @api: in: WT_API_VERSION; any other value fails with -EINVAL. Out:
 *	WT_API_VERSION.
 * @features: in: the WT_FEATURE_* bits the caller depends on; if the kernel
 *	lacks one, the call fails with -EINVAL. Out: every feature the kernel
 *	supports.
 * @ioctls: out: bit N is set when the ioctl whose number (_IOC_NR) is N is
 *	implemented; see the _WT_IOC_* numbers.
 * @event_size: out: the size of the record read() returns,
 *	sizeof(struct wt_event) for this version.
 * @batch_max: out: the largest @count WT_IOC_BATCH accepts.
 *
 * The handshake is optional and changes nothing in the context: it tells a
 * program built against a newer header what this kernel implements. The
 * output fields @ioctls, @event_size and @batch_max must be zero on the
 * way in (-EINVAL otherwise), so that a later version may make any of them
 * an input. On failure the struct is written back with every field zero,
 * so that a caller ignoring the return value still sees no features.
 */
struct wt_api {
	__u64 api;
	__u64 features;
	__u64 ioctls;
	__u32 event_size;
	__u32 batch_max;
};

/* Flags of &struct wt_op.flags. */
/**
 * WT_ABSTIME - @deadline is an absolute time on the context's clock rather
 * than a delay from now
 */
#define WT_ABSTIME		_BITULL(0)
/**
 * WT_FIXED_RATE - periodic: the next deadline is the previous one plus
 * @period; periods missed while a record is unread are counted as overruns
 */
#define WT_FIXED_RATE		_BITULL(1)
/**
 * WT_FIXED_DELAY - periodic: the next deadline is @period after the read()
 * that consumed the previous record
 */
#define WT_FIXED_DELAY		_BITULL(2)
/**
 * WT_LEASED_ID - ADD: the caller names the new timeout's id, in @id: one
 * of the ids of a block it leased with WT_IOC_LEASE, with a generation of
 * its choice (see &struct wt_lease)
 */
#define WT_LEASED_ID		_BITULL(3)

/* Operations, for &struct wt_op.op. */
/** WT_OP_ADD - arm a new timeout; its id is returned in @id */
#define WT_OP_ADD		1U
/** WT_OP_CANCEL - cancel the timeout @id, or withdraw its unread record */
#define WT_OP_CANCEL		2U
/** WT_OP_MODIFY - move the deadline (and slack) of the timeout @id */
#define WT_OP_MODIFY		3U

/* Outcomes, for &struct wt_op.status. */
/** WT_STATUS_ADDED - WT_OP_ADD succeeded; @id holds the new id */
#define WT_STATUS_ADDED		1U
/**
 * WT_STATUS_PENDING - the timeout was pending (armed, not fired): CANCEL
 * cancelled it, MODIFY moved it. Nothing was or will be delivered for the
 * deadline it had.
 */
#define WT_STATUS_PENDING	2U
/**
 * WT_STATUS_WITHDRAWN - the timeout had fired and its record was not read
 * yet: the record is withdrawn and will not be delivered. CANCEL then
 * released the id; MODIFY armed the timeout again at the new deadline.
 */
#define WT_STATUS_WITHDRAWN	3U

/**
 * struct wt_op - one operation, for WT_IOC_ADD, WT_IOC_CANCEL, WT_IOC_MODIFY
 *	and each element of a WT_IOC_BATCH array
 * @op: WT_OP_ADD, WT_OP_CANCEL or WT_OP_MODIFY. For the single-operation
 *	ioctls it may also be 0, which stands for the ioctl's own operation.
 * @reserved: must be zero
 * @flags: ADD: WT_ABSTIME, WT_LEASED_ID, and at most one of WT_FIXED_RATE
 *	and WT_FIXED_DELAY. MODIFY: WT_ABSTIME only. CANCEL: must be zero.
 * @id: CANCEL and MODIFY: in, the timeout to act on. ADD: out, the id of the
 *	new timeout (the value passed in is ignored); with WT_LEASED_ID, in,
 *	the id to give it, and out, the same.
 * @deadline: ADD and MODIFY: the deadline in ns, relative to now or, with
 *	WT_ABSTIME, absolute on the context's clock. A relative deadline of 0
 *	and an absolute one in the past are due at once. A deadline that ends
 *	up beyond KTIME_MAX rounded down to the resolution fails with -ERANGE.
 *	CANCEL: must be zero.
 * @period: ADD: the period in ns of a WT_FIXED_RATE or WT_FIXED_DELAY
 *	timeout, at least 1 and at most KTIME_MAX; must be zero for a one-shot.
 *	MODIFY and CANCEL: must be zero (MODIFY keeps the period).
 * @slack: ADD and MODIFY: how much later than one resolution past its
 *	deadline the timeout may fire, in ns, at most KTIME_MAX, so that the
 *	kernel can fire it together with others; 0 for the best precision.
 *	A periodic timeout keeps its slack for every period. CANCEL: must be
 *	zero.
 * @cookie: ADD: any value; it is returned in each &struct wt_event of this
 *	timeout. MODIFY and CANCEL: must be zero (MODIFY keeps the cookie).
 * @status: out: on success, one of WT_STATUS_ADDED, WT_STATUS_PENDING or
 *	WT_STATUS_WITHDRAWN; 0 on failure.
 * @error: out: 0 on success, else the positive errno value of the failure:
 *	EINVAL for an unknown operation or flag, a non-zero reserved or unused
 *	field, a bad period, or with WT_LEASED_ID an id outside the blocks
 *	leased; ERANGE for a deadline beyond the last tick (above); ENOENT for
 *	an unknown or stale id; EEXIST with WT_LEASED_ID for an id whose slot
 *	holds a live timeout; ENOSPC when the context already holds
 *	max_pending timeouts, or its user's contexts hold all the storage they
 *	may; ENOMEM.
 *
 * MODIFY works like mod_timer(): it re-arms the timeout whatever state it is
 * in. A periodic timeout continues with its period from the new deadline.
 * On a real clock, a timeout whose tick has started counts as fired,
 * whether or not a read() or poll() has queued its record yet: CANCEL and
 * MODIFY withdraw it (WT_STATUS_WITHDRAWN). On a virtual clock only
 * WT_IOC_ADVANCE fires timeouts.
 */
struct wt_op {
	__u32 op;
	__u32 reserved;
	__u64 flags;
	__u64 id;
	__u64 deadline;
	__u64 period;
	__u64 slack;
	__u64 cookie;
	__u32 status;
	__u32 error;
};

/**
 * WT_BATCH_MAX - the most operations one WT_IOC_BATCH takes
 */
#define WT_BATCH_MAX		1024U

/**
 * struct wt_batch - an array of operations, for WT_IOC_BATCH
 * @ops: the address of an array of @count &struct wt_op, read and written
 * @count: the number of operations, at most WT_BATCH_MAX; 0 does nothing
 * @flags: must be zero
 * @reserved: must be zero
 *
 * Before applying anything, the kernel checks that the whole array can be
 * read and written: if not, the call fails with -EFAULT and nothing has
 * happened, in the context or in the array.
 * The operations are then applied in order, each on its own: one
 * failing (its @error says why) does not stop the ones after it nor undo
 * the ones before it. The kernel writes @status and @error of every
 * element, and @id of every ADD, and no other field; the ioctl returns the
 * number of operations that succeeded. Should the array become unreadable
 * or unwritable during the call (another thread unmapped it), the call
 * fails with -EFAULT, and the operations before that point took effect.
 */
struct wt_batch {
	__u64 ops;
	__u32 count;
	__u32 flags;
	__u64 reserved;
};

/* Flags of &struct wt_config.flags. */
/**
 * WT_CONFIG_VIRTUAL - time stands still except for WT_IOC_ADVANCE; no
 * timer interrupt is ever armed, and timeouts fire only during an
 * advance (one added already due fires at the next, an advance by 0
 * included). The virtual clock starts at 0 each time the configuration
 * is set.
 */
#define WT_CONFIG_VIRTUAL	_BITULL(0)

/** WT_RESOLUTION_DEFAULT - the resolution of a new context: 1 ms */
#define WT_RESOLUTION_DEFAULT	1000000ULL
/** WT_RESOLUTION_MIN - the finest resolution accepted: 1 us */
#define WT_RESOLUTION_MIN	1000ULL
/** WT_RESOLUTION_MAX - the coarsest resolution accepted: 1 hour */
#define WT_RESOLUTION_MAX	3600000000000ULL

/**
 * struct wt_config - a context's configuration, for WT_IOC_SET_CONFIG and
 *	WT_IOC_GET_CONFIG
 * @resolution: the tick length in ns, from WT_RESOLUTION_MIN to
 *	WT_RESOLUTION_MAX
 * @max_pending: how many live timeouts (armed, or fired and unread) the
 *	context may hold; WT_OP_ADD fails with -ENOSPC beyond it. On SET, 0
 *	means the default (sysctl dev.wheeltimer.max_pending); a value above
 *	it fails with -EPERM unless the file was opened with
 *	CAP_SYS_RESOURCE, and one above the ceiling (sysctl
 *	dev.wheeltimer.max_pending_limit) with -EINVAL.
 * @flags: WT_CONFIG_VIRTUAL or 0
 * @clockid: CLOCK_MONOTONIC (the default), CLOCK_BOOTTIME or
 *	CLOCK_REALTIME. With WT_CONFIG_VIRTUAL it only decides whether the
 *	virtual clock may be set backwards (CLOCK_REALTIME only).
 * @reserved: must be zero
 *
 * SET replaces the whole configuration and is only allowed while the
 * context holds no timeout at all (-EBUSY otherwise); every field is
 * checked before anything changes. GET fills in the current values.
 */
struct wt_config {
	__u64 resolution;
	__u64 max_pending;
	__u64 flags;
	__u32 clockid;
	__u32 reserved[3];
};

/* Flags of &struct wt_advance.flags. */
/**
 * WT_ADVANCE_SET - set the virtual clock to @time instead of moving it
 * forward by @time. Setting it backwards is only allowed when the
 * configured clockid is CLOCK_REALTIME, as clock_settime() would.
 */
#define WT_ADVANCE_SET		_BITULL(0)

/**
 * struct wt_advance - move a virtual clock, for WT_IOC_ADVANCE
 * @time: in: the step in ns or, with WT_ADVANCE_SET, the new clock value;
 *	a result beyond KTIME_MAX fails with -ERANGE
 * @flags: in: WT_ADVANCE_SET or 0
 * @now: out: the virtual clock after the call
 * @expired: out: how many timeouts fired during the call
 *
 * Time moves through every tick at which something is due, in order, as a
 * real clock would: each timeout fires at the earliest tick boundary the
 * wheel allows, and its record's @fired_at is that moment, not the end of
 * the step. Everything due by the new time has fired (its record is queued)
 * when the call returns. On a context that is not virtual the call fails
 * with -EINVAL. The struct must be writable (-EFAULT before anything
 * happens); a call that fails writes nothing back. A long advance runs in
 * slices and ends at once on a fatal signal, with the clock where it
 * stopped.
 */
struct wt_advance {
	__u64 time;
	__u64 flags;
	__u64 now;
	__u64 expired;
};

/**
 * WT_EVENTFD_NONE - &struct wt_eventfd.fd that unregisters the eventfd
 */
#define WT_EVENTFD_NONE		0xffffffffU

/**
 * struct wt_eventfd - register an eventfd, for WT_IOC_SET_EVENTFD
 * @fd: an eventfd file descriptor, or WT_EVENTFD_NONE ((__u32)-1) to stop
 *	signalling. A descriptor that is not open fails with -EBADF, one that
 *	is not an eventfd with -EINVAL.
 * @flags: must be zero
 *
 * The context keeps a reference to the eventfd (closing the descriptor does
 * not unregister it) and replaces any previous registration. If records are
 * already waiting when it is registered, the eventfd is signalled at once.
 * What increments it is said in the overview above.
 */
struct wt_eventfd {
	__u32 fd;
	__u32 flags;
};

/**
 * struct wt_lease - lease a block of ids, for WT_IOC_LEASE
 * @first: out: the lowest 32 bits of the block's first id (its index)
 * @count: out: how many ids the block has: indexes @first to
 *	@first + @count - 1
 * @flags: in: must be zero
 *
 * A leased block is the caller's: the kernel never gives its ids to a
 * timeout itself, and an ADD with WT_LEASED_ID may name any of them whose
 * timeout is not live, with the upper 32 bits (the generation) of the
 * caller's choice; it is then the timeout's id, in CANCEL, MODIFY, QUERY
 * and its records, and is free again when the timeout is cancelled or its
 * final record read. So a program can name a timeout by its own number
 * from the start, with no table from its ids to the kernel's (changing the
 * generation at each reuse keeps a stale id from reaching a newer
 * timeout). A leased block's indexes were never used in the file before,
 * so an id that went stale earlier (its timeout gone, its block given
 * back when the file emptied) finds nothing (-ENOENT), whatever generation
 * the caller gives its timeouts. Blocks are kept until the file is
 * closed, and counted in the storage of the opener's user (see the
 * overview); a context leases at most max_pending + 65536 ids, rounded up
 * to whole blocks (-ENOSPC beyond, as when the user's storage is full):
 * room for adds that fail.
 */
struct wt_lease {
	__u64 first;
	__u32 count;
	__u32 flags;
};

/* States, for &struct wt_query.state. */
/** WT_STATE_PENDING - armed, not yet fired */
#define WT_STATE_PENDING	1U
/** WT_STATE_FIRED - fired; its record waits to be read */
#define WT_STATE_FIRED		2U

/**
 * struct wt_query - the state of one timeout, for WT_IOC_QUERY
 * @id: in: the timeout; unknown or stale ids fail with -ENOENT. Every
 *	other field is output only and must be zero on the way in (-EINVAL
 *	otherwise), so that a later version may make any of them an input;
 *	a call that fails writes nothing back.
 * @flags: out: the timeout's WT_FIXED_RATE or WT_FIXED_DELAY flag, or 0
 * @state: out: WT_STATE_PENDING or WT_STATE_FIRED (due: QUERY queues what
 *	is due before it answers)
 * @reserved: out: zero
 * @deadline: out: the absolute deadline in ns on the context's clock: the
 *	next one if pending, the one that fired if fired
 * @remaining: out: ns from now until @deadline, 0 once it has passed
 * @cookie: out: the cookie given at WT_OP_ADD
 * @period: out: the period in ns, 0 for a one-shot timeout
 */
struct wt_query {
	__u64 id;
	__u64 flags;
	__u32 state;
	__u32 reserved;
	__u64 deadline;
	__u64 remaining;
	__u64 cookie;
	__u64 period;
};

/* Flags of &struct wt_event.flags, besides WT_FIXED_RATE and WT_FIXED_DELAY. */
/**
 * WT_EVENT_FINAL - this is the timeout's last record and its id is now
 * released: always for a one-shot timeout, and for a periodic one whose next
 * deadline would lie beyond the last deadline the context accepts (KTIME_MAX
 * rounded down to the resolution: see the overview)
 */
#define WT_EVENT_FINAL		_BITULL(8)

/**
 * struct wt_event - the record read() returns, one per firing
 * @id: the timeout's id
 * @cookie: the cookie given at WT_OP_ADD
 * @deadline: the deadline that fired, in ns on the context's clock
 * @fired_at: the clock reading when the kernel found the timeout due: at
 *	the hrtimer expiry that found it, or at the call that queued it if
 *	no expiry had. All the timeouts one look finds due carry its
 *	reading, however many read() calls take them. Never less than
 *	@deadline.
 * @overruns: WT_FIXED_RATE only: how many more periods had passed by the
 *	time the record was read; the timeout resumes at the first deadline
 *	after the read. 0 otherwise.
 * @flags: WT_FIXED_RATE or WT_FIXED_DELAY for a periodic timeout, plus
 *	WT_EVENT_FINAL when the id is released by this read
 *
 * read() needs a buffer of at least one record (-EINVAL otherwise) and
 * returns as many whole records as fit and are ready, in the order the
 * timeouts fired. With no record ready it blocks until one is, unless the
 * file is O_NONBLOCK (-EAGAIN). A non-blocking read() (O_NONBLOCK, or
 * io_uring's IOCB_NOWAIT) never waits for another call: while another
 * thread keeps the file busy (a batch, an advance, a read() held in a page
 * fault) it fails with -EAGAIN at once, and the file is woken (EPOLLIN)
 * when that call ends. (It may still sleep for its own sake, as any call
 * may: to allocate memory, to give the CPU up, on a fault in its own
 * buffer.) A record is consumed
 * only when it was copied out whole: if the buffer faults after some
 * records, read() returns those and the rest stay queued.
 */
struct wt_event {
	__u64 id;
	__u64 cookie;
	__u64 deadline;
	__u64 fired_at;
	__u64 overruns;
	__u64 flags;
};

/**
 * struct wt_stats - a context's counters, for WT_IOC_STATS
 * @size: out: how many bytes of the struct the kernel filled in: the size
 *	of its own struct wt_stats, or the caller's if that is smaller.
 *	Fields beyond it are zeroed: the caller's header is newer.
 * @context_id: the context's number, as fdinfo and the tracepoints show it
 * @live: timeouts that hold an id (pending, fired and unread, being read)
 * @pending: timeouts in the wheel, not yet fired
 * @ready: records waiting to be read
 * @added: timeouts added
 * @modified: successful MODIFY operations
 * @fired: records queued (periodic timeouts once per period)
 * @delivered: records read
 * @cancelled: timeouts cancelled while pending
 * @withdrawn: records withdrawn unread, by CANCEL or MODIFY
 * @overruns: WT_FIXED_RATE periods skipped
 * @hrtimer_programs: times the context's hrtimer was armed
 * @hrtimer_expiries: times it expired
 * @rewinds: times the wheel's clock was set back after the clock stepped
 *	back
 * @timer_blocks: page-sized blocks of timeouts the context holds
 * @user_timeouts: the storage, in timeouts, that all the contexts of the
 *	opener's user hold against the sysctl max_user_timeouts
 *
 * The counters are those of /proc/PID/fdinfo, by the same names, but
 * STATS queues what is due first, so that @fired counts every timeout found
 * due, as QUERY reports them; fdinfo takes no lock and shows what has been
 * queued so far. The struct only grows at its end; the size of the caller's
 * struct travels in the ioctl number (_IOC_SIZE), so a program built
 * against an older or a newer header works with any kernel that has
 * WT_IOC_STATS.
 */
struct wt_stats {
	__u64 size;
	__u64 context_id;
	__u64 live;
	__u64 pending;
	__u64 ready;
	__u64 added;
	__u64 modified;
	__u64 fired;
	__u64 delivered;
	__u64 cancelled;
	__u64 withdrawn;
	__u64 overruns;
	__u64 hrtimer_programs;
	__u64 hrtimer_expiries;
	__u64 rewinds;
	__u64 timer_blocks;
	__u64 user_timeouts;
};

/*
 * ioctl numbers. 0xE7 is unassigned in the kernel's ioctl-number.rst (as of
 * 6.1); the command numbers 0x00 to 0x3F belong to this interface.
 */
#define WT_IOC_MAGIC		0xE7

#define _WT_IOC_API		0x00
#define _WT_IOC_SET_CONFIG	0x01
#define _WT_IOC_GET_CONFIG	0x02
#define _WT_IOC_ADD		0x03
#define _WT_IOC_CANCEL		0x04
#define _WT_IOC_MODIFY		0x05
#define _WT_IOC_BATCH		0x06
#define _WT_IOC_ADVANCE		0x07
#define _WT_IOC_SET_EVENTFD	0x08
#define _WT_IOC_QUERY		0x09
#define _WT_IOC_STATS		0x0A
#define _WT_IOC_LEASE		0x0B

/**
 * DOC: ioctls
 *
 * Unknown commands fail with -ENOTTY, unreadable or unwritable arguments
 * with -EFAULT. A call that fails changes nothing, except as WT_IOC_BATCH
 * says for its individual operations.
 *
 * Output fields: those of &struct wt_api and &struct wt_query must be
 * zero on the way in, and may become inputs in a later version. Those of
 * &struct wt_advance (@now, @expired), &struct wt_lease (@first, @count)
 * and &struct wt_stats are accepted whatever they hold, as they were from
 * the first version, and are fixed: they stay outputs. The structs that
 * take inputs have zeroed reserved fields or flags to grow by instead.
 *
 * WT_IOC_API: the handshake, see &struct wt_api.
 *
 * WT_IOC_SET_CONFIG, WT_IOC_GET_CONFIG: see &struct wt_config.
 *
 * WT_IOC_ADD, WT_IOC_CANCEL, WT_IOC_MODIFY: one &struct wt_op, the same code
 * path as a WT_IOC_BATCH of one. The struct is written back with @id,
 * @status and @error filled in; the ioctl returns 0, or the negative errno
 * that @error holds as a positive number. Like a batch, the struct must be
 * writable before anything is done.
 *
 * WT_IOC_BATCH: see &struct wt_batch; returns the number of operations
 * that succeeded.
 *
 * WT_IOC_ADVANCE: virtual clock only, see &struct wt_advance.
 *
 * WT_IOC_SET_EVENTFD: see &struct wt_eventfd.
 *
 * WT_IOC_QUERY: see &struct wt_query.
 *
 * WT_IOC_STATS: see &struct wt_stats. Implemented when bit _WT_IOC_STATS
 * of &struct wt_api.ioctls is set.
 *
 * WT_IOC_LEASE: see &struct wt_lease; with WT_FEATURE_LEASED_IDS.
 */
#define WT_IOC_API		_IOWR(WT_IOC_MAGIC, _WT_IOC_API, struct wt_api)
#define WT_IOC_SET_CONFIG	_IOW(WT_IOC_MAGIC, _WT_IOC_SET_CONFIG, struct wt_config)
#define WT_IOC_GET_CONFIG	_IOR(WT_IOC_MAGIC, _WT_IOC_GET_CONFIG, struct wt_config)
#define WT_IOC_ADD		_IOWR(WT_IOC_MAGIC, _WT_IOC_ADD, struct wt_op)
#define WT_IOC_CANCEL		_IOWR(WT_IOC_MAGIC, _WT_IOC_CANCEL, struct wt_op)
#define WT_IOC_MODIFY		_IOWR(WT_IOC_MAGIC, _WT_IOC_MODIFY, struct wt_op)
#define WT_IOC_BATCH		_IOW(WT_IOC_MAGIC, _WT_IOC_BATCH, struct wt_batch)
#define WT_IOC_ADVANCE		_IOWR(WT_IOC_MAGIC, _WT_IOC_ADVANCE, struct wt_advance)
#define WT_IOC_SET_EVENTFD	_IOW(WT_IOC_MAGIC, _WT_IOC_SET_EVENTFD, struct wt_eventfd)
#define WT_IOC_QUERY		_IOWR(WT_IOC_MAGIC, _WT_IOC_QUERY, struct wt_query)
#define WT_IOC_STATS		_IOR(WT_IOC_MAGIC, _WT_IOC_STATS, struct wt_stats)
#define WT_IOC_LEASE		_IOWR(WT_IOC_MAGIC, _WT_IOC_LEASE, struct wt_lease)

#endif /* _UAPI_LINUX_WHEELTIMER_H */
