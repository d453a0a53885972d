/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wheeltimer.h - libwheeltimer, the C library over /dev/wheeltimer
 *
 * Millions of timeouts behind one file descriptor, with a prepare, submit
 * and reap split modelled on liburing: wheeltimer_add(), _modify() and
 * _cancel() queue operations locally and return at once, without a system
 * call; wheeltimer_submit() sends the queue in as few WT_IOC_BATCH calls as
 * it can; wheeltimer_reap() returns what fired. Two engines stand behind
 * the same calls: the kernel's /dev/wheeltimer, and an in-process engine
 * (the module's timing wheel compiled into the library, driven by one
 * timerfd) for machines without the module. libwheeltimer(7) is the
 * overview; each function has its own page in section 3.
 *
 * Naming. Everything here is wheeltimer_* or WHEELTIMER_*: the kernel's
 * uapi header <linux/wheeltimer.h> owns the short wt_* and WT_* names, and
 * a program may include both.
 *
 * Self-contained. This header needs only <stdint.h> and <stddef.h>, not the
 * kernel's headers, so that a binding generator can read it alone. Where a
 * constant has a uapi counterpart it has the same value (the library checks
 * that at build time): WHEELTIMER_ABSTIME, _FIXED_RATE, _FIXED_DELAY,
 * WHEELTIMER_EV_FINAL and the WHEELTIMER_FEATURE_* bits. Clock ids are
 * those of <time.h> (CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME).
 *
 * For foreign function interfaces. Every function is an exported symbol:
 * nothing is inline-only, nothing is variadic, and every struct is made
 * of fixed-width fields without implicit padding, the same on 32- and
 * 64-bit. Handles are plain uint64_t values.
 *
 * Errors. Functions that can fail return a negative errno value (as the
 * kernel and liburing do) or one of the library's own codes below, never
 * -1 with errno; wheeltimer_strerror() names both.
 *
 * Threads. A context is not locked: use each one from one thread at a
 * time (one context per thread, as liburing's rings, or a lock of your
 * own around every call). Different contexts are independent. Only
 * wheeltimer_fd() may be polled by another thread meanwhile, and
 * wheeltimer_wake() is the one call that any thread (or a signal handler)
 * may make at any time while the context is open, to wake the thread
 * blocked in wheeltimer_wait(); never while wheeltimer_close() runs.
 */
#ifndef _WHEELTIMER_WHEELTIMER_H
#define _WHEELTIMER_WHEELTIMER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WHEELTIMER_VERSION_MAJOR	1
#define WHEELTIMER_VERSION_MINOR	0

/*
 * Handles. wheeltimer_add() returns a handle at once: the low 32 bits are
 * an index into the context's table of handles, the high 32 bits the
 * index's generation, bumped each time the index is reused. A handle stays
 * valid until its final record is reaped (WHEELTIMER_EV_FINAL) or it is
 * cancelled; using it afterwards fails with -ENOENT instead of touching
 * whatever reused its index (until the index has been reused 2^32 times).
 * 0 is never a handle. A handle means nothing to another context.
 */
#define WHEELTIMER_HANDLE_NONE		0ULL

/* Engines, for wheeltimer_params.engine and wheeltimer_engine(). */
/** WHEELTIMER_ENGINE_AUTO - the kernel's if /dev/wheeltimer opens, else in-process */
#define WHEELTIMER_ENGINE_AUTO		0U
/** WHEELTIMER_ENGINE_KERNEL - /dev/wheeltimer, or fail */
#define WHEELTIMER_ENGINE_KERNEL	1U
/** WHEELTIMER_ENGINE_PROCESS - the in-process engine: the wheel and one timerfd */
#define WHEELTIMER_ENGINE_PROCESS	2U

/* Features, the bits of wheeltimer_params.features; the uapi's values. */
/** WHEELTIMER_FEATURE_VIRTUAL_CLOCK - WHEELTIMER_PARAM_VIRTUAL, wheeltimer_advance() */
#define WHEELTIMER_FEATURE_VIRTUAL_CLOCK	0x1ULL
/** WHEELTIMER_FEATURE_PERIODIC - wheeltimer_add_periodic() */
#define WHEELTIMER_FEATURE_PERIODIC		0x2ULL
/** WHEELTIMER_FEATURE_SLACK - a non-zero slack */
#define WHEELTIMER_FEATURE_SLACK		0x4ULL
/** WHEELTIMER_FEATURE_EVENTFD - wheeltimer_set_eventfd() (kernel engine only) */
#define WHEELTIMER_FEATURE_EVENTFD		0x8ULL
/** WHEELTIMER_FEATURE_BOOTTIME - CLOCK_BOOTTIME as the context's clock */
#define WHEELTIMER_FEATURE_BOOTTIME		0x10ULL
/** WHEELTIMER_FEATURE_REALTIME - CLOCK_REALTIME as the context's clock */
#define WHEELTIMER_FEATURE_REALTIME		0x20ULL

/* Flags of wheeltimer_params.flags. */
/**
 * WHEELTIMER_PARAM_VIRTUAL - a virtual clock: it starts at 0 and moves only
 * by wheeltimer_advance(); nothing fires in between
 */
#define WHEELTIMER_PARAM_VIRTUAL	0x1U

/** WHEELTIMER_PARAMS_VERSION - what wheeltimer_params_init() writes in @version */
#define WHEELTIMER_PARAMS_VERSION	1U

/** WHEELTIMER_QUEUE_DEFAULT - operations queued before submit is automatic */
#define WHEELTIMER_QUEUE_DEFAULT	1024U

/**
 * struct wheeltimer_params - how to open a context
 * @version: WHEELTIMER_PARAMS_VERSION; wheeltimer_params_init() sets it,
 *	and any other value (a struct that was only zeroed) fails with -EINVAL
 * @engine: in: WHEELTIMER_ENGINE_*; out: the engine that was opened
 * @resolution_ns: the tick length, 1 us to 1 hour; 0 means 1 ms
 * @max_pending: in: the most live timeouts (queued adds not counted), 0
 *	for the engine's default; out: the limit in force
 * @clockid: CLOCK_MONOTONIC (the default), CLOCK_BOOTTIME or CLOCK_REALTIME
 * @flags: WHEELTIMER_PARAM_VIRTUAL or 0
 * @queue_depth: operations queued before wheeltimer_submit() runs by
 *	itself; 0 means WHEELTIMER_QUEUE_DEFAULT (one full WT_IOC_BATCH)
 * @reserved0: must be zero
 * @features: in: WHEELTIMER_FEATURE_* bits the caller needs besides those
 *	its parameters imply (VIRTUAL_CLOCK, BOOTTIME, REALTIME); out: every
 *	feature the opened engine has
 * @missing: out: when wheeltimer_open() fails with -WHEELTIMER_EFEATURE,
 *	the needed features the engine lacks; else 0
 * @reserved: must be zero
 */
struct wheeltimer_params {
	uint32_t version;
	uint32_t engine;
	uint64_t resolution_ns;
	uint64_t max_pending;
	int32_t clockid;
	uint32_t flags;
	uint32_t queue_depth;
	uint32_t reserved0;
	uint64_t features;
	uint64_t missing;
	uint64_t reserved[4];
};

/* Flags of wheeltimer_add(), wheeltimer_add_periodic() and wheeltimer_modify(). */
/** WHEELTIMER_ABSTIME - the deadline is absolute on the context's clock */
#define WHEELTIMER_ABSTIME		0x1U
/** WHEELTIMER_FIXED_RATE - periodic: next deadline = previous + period */
#define WHEELTIMER_FIXED_RATE		0x2U
/** WHEELTIMER_FIXED_DELAY - periodic: next deadline = reap + period */
#define WHEELTIMER_FIXED_DELAY		0x4U
/**
 * WHEELTIMER_NOTIFY - wheeltimer_cancel(), wheeltimer_modify(): report the
 * outcome as a record (WHEELTIMER_EV_CANCEL or WHEELTIMER_EV_MODIFY)
 */
#define WHEELTIMER_NOTIFY		0x10000U

/* Flags of wheeltimer_event.flags. */
/** WHEELTIMER_EV_FIXED_RATE - the timeout is WHEELTIMER_FIXED_RATE */
#define WHEELTIMER_EV_FIXED_RATE	0x2U
/** WHEELTIMER_EV_FIXED_DELAY - the timeout is WHEELTIMER_FIXED_DELAY */
#define WHEELTIMER_EV_FIXED_DELAY	0x4U
/** WHEELTIMER_EV_FINAL - the handle's last record: it is released now */
#define WHEELTIMER_EV_FINAL		0x100U
/** WHEELTIMER_EV_ADD - the outcome of an add: it failed, see @res */
#define WHEELTIMER_EV_ADD		0x10000U
/** WHEELTIMER_EV_MODIFY - the outcome of a modify: failed, or NOTIFY */
#define WHEELTIMER_EV_MODIFY		0x20000U
/** WHEELTIMER_EV_CANCEL - the outcome of a cancel with WHEELTIMER_NOTIFY */
#define WHEELTIMER_EV_CANCEL		0x40000U
/**
 * WHEELTIMER_EV_WITHDRAWN - with EV_CANCEL or EV_MODIFY: the timeout had
 * fired and its record, not yet reaped, was withdrawn: it is never reaped
 */
#define WHEELTIMER_EV_WITHDRAWN		0x80000U
/**
 * WHEELTIMER_EV_UNSUBMITTED - with EV_CANCEL: the add was still queued and
 * was dropped from the queue; the engine never saw it
 */
#define WHEELTIMER_EV_UNSUBMITTED	0x100000U
/**
 * WHEELTIMER_EV_FOREIGN - a firing of a timeout that another context added
 * to the same file (a context of wheeltimer_open_fd()): @handle is
 * WHEELTIMER_HANDLE_NONE and @cookie the engine's (for a timeout another
 * libwheeltimer context added, that context's handle)
 */
#define WHEELTIMER_EV_FOREIGN		0x200000U

/**
 * struct wheeltimer_event - one record, as wheeltimer_reap() returns it
 * @handle: the timeout's handle
 * @cookie: the cookie given to wheeltimer_add()
 * @deadline: a firing: the deadline that fired, in ns on the context's clock
 * @fired_at: a firing: when the engine found it due; never below @deadline
 * @overruns: a firing of a WHEELTIMER_FIXED_RATE timeout: the periods that
 *	passed unreaped; it goes on at the first deadline after the reap
 * @flags: WHEELTIMER_EV_* bits. Without EV_ADD, EV_MODIFY or EV_CANCEL the
 *	record is a firing.
 * @res: 0, or the negative errno of an operation that failed at submit
 *	(-ENOSPC, -ERANGE, -ENOMEM): then @deadline, @fired_at and @overruns
 *	are 0
 */
struct wheeltimer_event {
	uint64_t handle;
	uint64_t cookie;
	uint64_t deadline;
	uint64_t fired_at;
	uint64_t overruns;
	uint32_t flags;
	int32_t res;
};

/* States, for wheeltimer_info.state (the uapi's values, and one more). */
/** WHEELTIMER_STATE_PENDING - armed in the engine */
#define WHEELTIMER_STATE_PENDING	1U
/** WHEELTIMER_STATE_FIRED - fired; its record waits to be reaped */
#define WHEELTIMER_STATE_FIRED		2U
/** WHEELTIMER_STATE_FAILED - its add failed; the EV_ADD record waits */
#define WHEELTIMER_STATE_FAILED		3U

/**
 * struct wheeltimer_info - one timeout, from wheeltimer_query()
 * @state: WHEELTIMER_STATE_*
 * @flags: WHEELTIMER_FIXED_RATE, WHEELTIMER_FIXED_DELAY or 0
 * @deadline: absolute, in ns on the context's clock: the next one, or the
 *	one that fired; 0 if the add failed
 * @remaining: ns until @deadline, 0 once it has passed
 * @period: ns, 0 for a one-shot timeout
 * @cookie: the cookie given to wheeltimer_add()
 * @error: 0, or the negative errno of its last failed operation
 * @reserved: zero
 */
struct wheeltimer_info {
	uint32_t state;
	uint32_t flags;
	uint64_t deadline;
	uint64_t remaining;
	uint64_t period;
	uint64_t cookie;
	int32_t error;
	uint32_t reserved;
};

/* Flags of wheeltimer_advance(). */
/** WHEELTIMER_ADVANCE_SET - set the virtual clock instead of moving it */
#define WHEELTIMER_ADVANCE_SET		0x1U

/**
 * struct wheeltimer_probe - what this machine offers, from wheeltimer_probe()
 * @device_error: 0 if /dev/wheeltimer opened, else the positive errno of
 *	open() (ENOENT: no module loaded; EACCES: not allowed)
 * @api: the interface version the module answered, 0 if none
 * @kernel_features: WHEELTIMER_FEATURE_* bits of the module (and bits this
 *	library does not know yet, passed through)
 * @kernel_ioctls: bit N set when the module implements ioctl number N
 * @batch_max: the most operations one WT_IOC_BATCH takes
 * @event_size: the size of the module's records
 * @process_features: the features of the in-process engine
 * @reserved: zero
 */
struct wheeltimer_probe {
	int32_t device_error;
	uint32_t api;
	uint64_t kernel_features;
	uint64_t kernel_ioctls;
	uint32_t batch_max;
	uint32_t event_size;
	uint64_t process_features;
	uint64_t reserved[4];
};

/* Bits of wheeltimer_stats.present, one per engine counter. */
#define WHEELTIMER_STAT_RESOLUTION	0x1ULL
#define WHEELTIMER_STAT_MAX_PENDING	0x2ULL
#define WHEELTIMER_STAT_NOW		0x4ULL
#define WHEELTIMER_STAT_LIVE		0x8ULL
#define WHEELTIMER_STAT_PENDING		0x10ULL
#define WHEELTIMER_STAT_READY		0x20ULL
#define WHEELTIMER_STAT_ADDED		0x40ULL
#define WHEELTIMER_STAT_MODIFIED	0x80ULL
#define WHEELTIMER_STAT_FIRED		0x100ULL
#define WHEELTIMER_STAT_DELIVERED	0x200ULL
#define WHEELTIMER_STAT_CANCELLED	0x400ULL
#define WHEELTIMER_STAT_WITHDRAWN	0x800ULL
#define WHEELTIMER_STAT_OVERRUNS	0x1000ULL
#define WHEELTIMER_STAT_TIMER_PROGRAMS	0x2000ULL
#define WHEELTIMER_STAT_REWINDS		0x4000ULL

/**
 * struct wheeltimer_stats - counters of a context, from wheeltimer_stats()
 * @present: WHEELTIMER_STAT_* bits of the engine counters that the engine
 *	reported; a counter it did not report is 0 and its bit clear
 * @resolution_ns: the tick length
 * @max_pending: the most live timeouts
 * @now_ns: the context's clock
 * @live: timeouts holding an id in the engine (armed, or fired and unread)
 * @pending: timeouts in the wheel
 * @ready: records waiting to be read from the engine
 * @added: adds the engine applied
 * @modified: modifies the engine applied
 * @fired: records the engine queued
 * @delivered: records read from the engine
 * @cancelled: timeouts the engine cancelled while armed
 * @withdrawn: records withdrawn unread, by a cancel or a modify
 * @overruns: FIXED_RATE periods that passed unread
 * @timer_programs: times the engine's timer (hrtimer or timerfd) was set
 * @rewinds: times the wheel was rebuilt or rewound after the clock went back
 * @submits: engine batch calls (WT_IOC_BATCH for the kernel engine)
 * @submitted: operations they carried
 * @auto_submits: submits the library made itself, because the queue was full
 * @queue_resolved: cancels and modifies folded into a queued operation,
 *	which cost no system call
 * @reads: engine read calls (read() for the kernel engine)
 * @reaped: records wheeltimer_reap() returned
 * @reserved: zero
 */
struct wheeltimer_stats {
	uint64_t present;
	uint64_t resolution_ns;
	uint64_t max_pending;
	uint64_t now_ns;
	uint64_t live;
	uint64_t pending;
	uint64_t ready;
	uint64_t added;
	uint64_t modified;
	uint64_t fired;
	uint64_t delivered;
	uint64_t cancelled;
	uint64_t withdrawn;
	uint64_t overruns;
	uint64_t timer_programs;
	uint64_t rewinds;
	uint64_t submits;
	uint64_t submitted;
	uint64_t auto_submits;
	uint64_t queue_resolved;
	uint64_t reads;
	uint64_t reaped;
	uint64_t reserved[8];
};

/*
 * The library's own error codes, returned negated like errno values and
 * above every errno value.
 */
/** WHEELTIMER_EFEATURE - the engine lacks a needed feature (see @missing) */
#define WHEELTIMER_EFEATURE		4001
/** WHEELTIMER_EAPI - the module speaks no interface version this library knows */
#define WHEELTIMER_EAPI			4002
/** WHEELTIMER_EENGINE - WHEELTIMER_ENGINE names no engine this library has */
#define WHEELTIMER_EENGINE		4003

struct wheeltimer;

/* Opening and closing: wheeltimer_open(3), wheeltimer_open_fd(3) */
void wheeltimer_params_init(struct wheeltimer_params *params);
int wheeltimer_open(struct wheeltimer_params *params, struct wheeltimer **wtp);
int wheeltimer_open_fd(int fd, struct wheeltimer **wtp);
void wheeltimer_close(struct wheeltimer *wt);
int wheeltimer_fd(const struct wheeltimer *wt);
uint32_t wheeltimer_engine(const struct wheeltimer *wt);
uint64_t wheeltimer_features(const struct wheeltimer *wt);

/* A context's configuration: wheeltimer_set_params(3) */
void wheeltimer_get_params(const struct wheeltimer *wt,
			   struct wheeltimer_params *params);
int wheeltimer_set_params(struct wheeltimer *wt,
			  struct wheeltimer_params *params);

/* Preparing: wheeltimer_add(3), wheeltimer_modify(3), wheeltimer_cancel(3) */
int wheeltimer_add(struct wheeltimer *wt, uint64_t deadline, uint64_t slack,
		   uint32_t flags, uint64_t cookie, uint64_t *handle);
int wheeltimer_add_periodic(struct wheeltimer *wt, uint64_t deadline,
			    uint64_t period, uint64_t slack, uint32_t flags,
			    uint64_t cookie, uint64_t *handle);
int wheeltimer_modify(struct wheeltimer *wt, uint64_t handle,
		      uint64_t deadline, uint64_t slack, uint32_t flags);
int wheeltimer_cancel(struct wheeltimer *wt, uint64_t handle, uint32_t flags);
int wheeltimer_error(const struct wheeltimer *wt, uint64_t handle);
int wheeltimer_query(struct wheeltimer *wt, uint64_t handle,
		     struct wheeltimer_info *info);

/*
 * Submitting and reaping: wheeltimer_submit(3), wheeltimer_reap(3);
 * records read by the caller (io_uring): wheeltimer_reap_buffer(3)
 */
int wheeltimer_submit(struct wheeltimer *wt);
unsigned int wheeltimer_queued(const struct wheeltimer *wt);
int wheeltimer_reap(struct wheeltimer *wt, struct wheeltimer_event *events,
		    unsigned int max);
int wheeltimer_wait(struct wheeltimer *wt, struct wheeltimer_event *events,
		    unsigned int max, int64_t timeout_ns);
int wheeltimer_reap_buffer(struct wheeltimer *wt, const void *buf, size_t len,
			   struct wheeltimer_event *events, unsigned int max);

/*
 * Waking a wheeltimer_wait(): wheeltimer_wake(3). The one call that is
 * safe from any thread, and from a signal handler, while another thread
 * uses the context: the wait in progress, or the next one, returns -EINTR.
 */
int wheeltimer_wake(struct wheeltimer *wt);

/* Time: wheeltimer_now(3), wheeltimer_advance(3) */
int wheeltimer_now(const struct wheeltimer *wt, uint64_t *now);
int wheeltimer_advance(struct wheeltimer *wt, uint64_t time, uint32_t flags,
		       uint64_t *now, uint64_t *expired);

/* Notification, probing, counters, errors */
int wheeltimer_set_eventfd(struct wheeltimer *wt, int eventfd);
int wheeltimer_probe(struct wheeltimer_probe *probe);
int wheeltimer_stats(const struct wheeltimer *wt,
		     struct wheeltimer_stats *stats);
int wheeltimer_stat(const struct wheeltimer *wt, const char *key,
		    uint64_t *value);
int wheeltimer_fdinfo_stats(const char *path, struct wheeltimer_stats *stats);
const char *wheeltimer_strerror(int error);
const char *wheeltimer_feature_name(uint64_t feature);
int wheeltimer_major_version(void);
int wheeltimer_minor_version(void);

#ifdef __cplusplus
}
#endif

#endif /* _WHEELTIMER_WHEELTIMER_H */
