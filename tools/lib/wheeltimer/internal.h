/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * internal.h - what libwheeltimer's files share: the context, the handle
 * table, the operation queue, and the interface of an engine
 *
 * The library talks to both engines in the kernel's own terms: batches of
 * struct wt_op, records of struct wt_event, struct wt_advance and friends
 * from <linux/wheeltimer.h>. The kernel engine passes them to ioctl() and
 * read(); the in-process engine applies them to module/wheel.c in the same
 * way as the module does. Everything above the engines (handles, queue,
 * records the library makes itself) is therefore written once.
 *
 * Nothing here is exported: the version script (libwheeltimer.map) keeps
 * only the wheeltimer_* functions of the public header global.
 */
#ifndef _WHEELTIMER_LIB_INTERNAL_H
#define _WHEELTIMER_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/wheeltimer.h>

#include "wheeltimer/wheeltimer.h"

/* The last nanosecond a deadline may name, KTIME_MAX. */
#define WTL_TIME_MAX		((uint64_t)INT64_MAX)

/* The limits of the in-process engine: the module's defaults, 2^20 and 2^24. */
#define WTL_PENDING_DEFAULT	0x100000ULL
#define WTL_PENDING_LIMIT	0x1000000ULL

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/**
 * struct wtl_idhdr - the head of every element of a struct wtl_idtab
 * @gen: the element's generation, the high half of its id
 * @next_free: WTL_ID_LIVE while the element is handed out; else the index
 *	of the next free element, 0 at the end of the free list
 */
struct wtl_idhdr {
	uint32_t gen;
	uint32_t next_free;
};

#define WTL_ID_LIVE		UINT32_MAX

/**
 * struct wtl_idtab - elements named by ids of an index and a generation
 * @blocks: @nr_blocks blocks of WTL_ID_BLOCK elements; element index i >= 1
 *	is element (i - 1) % WTL_ID_BLOCK of block (i - 1) / WTL_ID_BLOCK.
 *	Elements never move, so they may hold list links.
 * @nr_blocks: blocks allocated
 * @cap_blocks: room in @blocks
 * @elem_size: bytes per element, a struct wtl_idhdr first
 * @free: the most recently freed element's index, 0 if none
 * @used: indices handed out at least once; the next new one is @used + 1
 * @nr_live: elements handed out and not freed
 */
struct wtl_idtab {
	char **blocks;
	uint32_t nr_blocks;
	uint32_t cap_blocks;
	uint32_t elem_size;
	uint32_t free;
	uint32_t used;
	uint32_t nr_live;
};

#define WTL_ID_SHIFT		10
#define WTL_ID_BLOCK		1024U	/* 2^WTL_ID_SHIFT */

void wtl_idtab_init(struct wtl_idtab *t, size_t elem_size);
void wtl_idtab_destroy(struct wtl_idtab *t);
void *wtl_idtab_get(struct wtl_idtab *t, uint64_t *id);
void *wtl_idtab_lookup(const struct wtl_idtab *t, uint64_t id);
void wtl_idtab_put(struct wtl_idtab *t, uint64_t id);

/* States of a handle. */
enum wtl_hstate {
	WTL_H_QUEUED = 1,	/* its add is in the queue */
	WTL_H_LIVE,		/* submitted: the engine holds its id */
	WTL_H_FAILED,		/* its add failed; its EV_ADD record waits */
	WTL_H_CANCELLING,	/* cancelled with NOTIFY; its EV_CANCEL waits */
};

/* Flags of a handle, besides its WHEELTIMER_FIXED_RATE or _FIXED_DELAY. */
#define WTL_HF_NOTIFY		0x1U	/* its queued operation has NOTIFY */
#define WTL_HF_KIND		(WHEELTIMER_FIXED_RATE | WHEELTIMER_FIXED_DELAY)

/* wtl_handle.qidx when no operation of the handle is queued. */
#define WTL_NOQ			UINT32_MAX

/**
 * struct wtl_handle - what the library keeps per handle: 32 bytes
 * @hdr: index and generation, the handle's value
 * @cookie: the caller's cookie
 * @kid: the engine's id of the timeout, once its add was submitted
 * @qidx: the position of its queued operation, or WTL_NOQ
 * @state: an enum wtl_hstate
 * @hflags: WTL_HF_NOTIFY, and its kind: WHEELTIMER_FIXED_RATE,
 *	WHEELTIMER_FIXED_DELAY or neither
 * @error: the negative errno of its last failed operation, or 0 (errno
 *	values are below 4096)
 */
struct wtl_handle {
	struct wtl_idhdr hdr;
	uint64_t cookie;
	uint64_t kid;
	uint32_t qidx;
	uint8_t state;
	uint8_t hflags;
	int16_t error;
};

struct wheeltimer;

/**
 * struct wtl_engine - an engine: the calls of /dev/wheeltimer
 * @id: WHEELTIMER_ENGINE_KERNEL or WHEELTIMER_ENGINE_PROCESS
 * @open: set up the engine and set @wt->fd; returns 0 or a negative errno
 *	(the kernel engine: open()'s), having cleaned up after itself
 * @handshake: WT_IOC_API asking for version 1 and no feature, the answer
 *	in @api; returns 0 or the call's negative errno
 * @configure: WT_IOC_SET_CONFIG, then WT_IOC_GET_CONFIG into @cfg
 * @get_config: WT_IOC_GET_CONFIG into @cfg
 * @batch: apply @n <= batch_max operations in order; returns how many
 *	succeeded, each op's @status and @error (and @id of an add) written;
 *	or a negative errno when nothing was applied
 * @read: move up to @max records into @buf (struct wt_event, unaligned
 *	use allowed), without blocking; returns their number, 0 if none
 * @advance: WT_IOC_ADVANCE
 * @set_eventfd: WT_IOC_SET_EVENTFD with @fd, or WT_EVENTFD_NONE; NULL
 *	when the engine has no WHEELTIMER_FEATURE_EVENTFD
 * @query: WT_IOC_QUERY
 * @now: the context's clock in ns
 * @fdinfo: write the engine's counters as fdinfo lines ("key:\tvalue\n")
 *	into @buf, NUL-terminated; returns the length or a negative errno
 * @close: release everything the engine holds
 */
struct wtl_engine {
	uint32_t id;
	int (*open)(struct wheeltimer *wt);
	int (*handshake)(struct wheeltimer *wt, struct wt_api *api);
	int (*configure)(struct wheeltimer *wt, struct wt_config *cfg);
	int (*get_config)(struct wheeltimer *wt, struct wt_config *cfg);
	int (*batch)(struct wheeltimer *wt, struct wt_op *ops, unsigned int n);
	int (*read)(struct wheeltimer *wt, void *buf, unsigned int max);
	int (*advance)(struct wheeltimer *wt, struct wt_advance *adv);
	int (*set_eventfd)(struct wheeltimer *wt, uint32_t fd);
	int (*query)(struct wheeltimer *wt, struct wt_query *q);
	int (*now)(const struct wheeltimer *wt, uint64_t *now);
	int (*fdinfo)(const struct wheeltimer *wt, char *buf, size_t size);
	void (*close)(struct wheeltimer *wt);
};

extern const struct wtl_engine wtl_kernel_engine;
extern const struct wtl_engine wtl_process_engine;

/**
 * struct wtl_counters - what the library itself counts
 * @submits: engine batch calls
 * @submitted: operations they carried
 * @auto_submits: submits made because the queue was full
 * @queue_resolved: cancels and modifies folded into a queued operation
 * @reads: engine read calls
 * @reaped: records handed to the caller
 * @dropped: engine records for no live handle: none should ever come from
 *	wheeltimer_reap(); from wheeltimer_reap_buffer(), those of handles
 *	cancelled after the caller read them
 * @buffered: engine records handed in by wheeltimer_reap_buffer()
 * @foreign: records of a shared file's timeouts that another context
 *	added, reaped with WHEELTIMER_EV_FOREIGN
 */
struct wtl_counters {
	uint64_t submits;
	uint64_t submitted;
	uint64_t auto_submits;
	uint64_t queue_resolved;
	uint64_t reads;
	uint64_t reaped;
	uint64_t dropped;
	uint64_t buffered;
	uint64_t foreign;
};

/**
 * struct wheeltimer - a context
 * @engine: its engine's calls
 * @priv: the engine's own state
 * @fd: the descriptor to poll: the device's, or the in-process engine's
 *	epoll descriptor
 * @wake_fd: the eventfd that wheeltimer_wake() writes and wheeltimer_wait()
 *	polls beside @fd (see wait.c)
 * @woken: set by wheeltimer_wake(), cleared by the wait that reports it;
 *	accessed atomically, from any thread
 * @wake_reported: the last wheeltimer_wait() reported a wake: the next one
 *	reaps before it reports another (see wait.c)
 * @shared: opened by wheeltimer_open_fd() on a file other contexts may
 *	hold: records that no handle of this one names are foreign, not
 *	dropped
 * @features: the engine's WHEELTIMER_FEATURE_* bits
 * @ioctls: the engine's ioctls, as its handshake said
 * @batch_max: the most operations per engine batch call
 * @clockid: the context's clock
 * @virtual: whether that clock is virtual
 * @resolution: ns per tick
 * @max_pending: the engine's limit of live timeouts
 * @vnow: the kernel engine's virtual clock, as its last advance left it
 * @handles: the handle table, of struct wtl_handle
 * @q_ops: the queue: operations in the engine's format; op 0 is a hole left
 *	by a cancelled queued add
 * @q_handles: the handle of each queued operation
 * @q_len: operations (and holes) queued
 * @q_cap: room in the queue; reaching it submits
 * @q_holes: holes among them
 * @lq: records the library made (failed operations, NOTIFY outcomes),
 *	reaped before the engine's, as a ring of @lq_cap (a power of two)
 * @lq_head: the first of them
 * @lq_len: how many
 * @lq_cap: the ring's room
 * @rq: engine records the caller read itself and handed to
 *	wheeltimer_reap_buffer() beyond the room it gave, still in the
 *	engine's format: converted when they are reaped, after @lq's
 * @rq_head: the first of them
 * @rq_len: the end of them: @rq_len - @rq_head wait
 * @rq_cap: room in @rq
 * @cnt: the library's counters
 */
struct wheeltimer {
	const struct wtl_engine *engine;
	void *priv;
	int fd;
	int wake_fd;
	int woken;
	bool wake_reported;
	bool shared;
	uint64_t features;
	uint64_t ioctls;
	uint32_t batch_max;
	int32_t clockid;
	bool virtual;
	uint64_t resolution;
	uint64_t max_pending;
	uint64_t vnow;
	struct wtl_idtab handles;
	struct wt_op *q_ops;
	uint64_t *q_handles;
	uint32_t q_len;
	uint32_t q_cap;
	uint32_t q_holes;
	struct wheeltimer_event *lq;
	uint32_t lq_head;
	uint32_t lq_len;
	uint32_t lq_cap;
	struct wt_event *rq;
	uint32_t rq_head;
	uint32_t rq_len;
	uint32_t rq_cap;
	struct wtl_counters cnt;
};

/* queue.c */
int wtl_submit(struct wheeltimer *wt);
void wtl_queue_compact(struct wheeltimer *wt);
struct wtl_handle *wtl_handle(const struct wheeltimer *wt, uint64_t handle);
void wtl_handle_release(struct wheeltimer *wt, uint64_t handle);

/* reap.c */
int wtl_lq_reserve(struct wheeltimer *wt, uint32_t n);
void wtl_lq_push(struct wheeltimer *wt, const struct wheeltimer_event *ev);

/* wait.c */
int wtl_wake_open(struct wheeltimer *wt);
void wtl_wake_close(struct wheeltimer *wt);

/* stats.c */
int wtl_fdinfo_value(const char *text, const char *key, uint64_t *value);
void wtl_stats_parse(const char *text, struct wheeltimer_stats *st);
int wtl_read_file(const char *path, char *buf, size_t size);

/* clock reading shared by the engines: the clock in ns, 0 before 1970 */
uint64_t wtl_clock_ns(int32_t clockid);

/* Test hook: rewrites an engine's handshake answer (tests only). */
extern int (*wtl_api_hook)(uint32_t engine, struct wt_api *api, int ret);

/* How many WARN_ON_ONCE()s fired in the wheel, in all contexts. */
uint64_t wtl_warnings(void);

#endif /* _WHEELTIMER_LIB_INTERNAL_H */
