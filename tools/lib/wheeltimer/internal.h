/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * internal.h - what libwheeltimer's files share: the context, the handle
 * table, the operation queue, and the interface of an engine
 *
 * The library talks to both engines in the kernel's own terms: batches of
 * struct wt_op, records of struct wt_event, struct wt_advance and friends
 * from <linux/wheeltimer.h>. The kernel engine passes them to ioctl() and
 * read(); the in-process engine hands them to module/core.c, the module's
 * own rules compiled in. Everything above the engines (handles, queue,
 * records the library makes itself) is therefore written once.
 *
 * One id. A handle is the id of its timeout in the engine: the library
 * leases blocks of ids from the engine (WT_IOC_LEASE) and names each
 * timeout it adds with one of them (WT_LEASED_ID), so that the number the
 * caller holds is the one the engine's store indexes, the one its records
 * carry, and the index of the library's own table: no layer looks another
 * up.
 *
 * Nothing here is exported: the version script (libwheeltimer.map) keeps
 * only the wheeltimer_* functions of the public header global.
 */
#ifndef _WHEELTIMER_LIB_INTERNAL_H
#define _WHEELTIMER_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <linux/wheeltimer.h>

#include "wheeltimer/wheeltimer.h"

/* The last nanosecond a deadline may name, KTIME_MAX. */
#define WTL_TIME_MAX		((uint64_t)INT64_MAX)

/* The limits of the in-process engine: the module's defaults, 2^20 and 2^24. */
#define WTL_PENDING_DEFAULT	0x100000ULL
#define WTL_PENDING_LIMIT	0x1000000ULL

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

/* States of a handle (queue.c). */
enum wtl_hstate {
	WTL_H_FREE,		/* on the free list, or an index not leased */
	WTL_H_LIVE,		/* added: its add is queued, or the engine holds it */
	WTL_H_FAILED,		/* its add failed; its EV_ADD record waits */
	WTL_H_CANCELLING,	/* cancelled with NOTIFY; its EV_CANCEL waits */
};

/* Flags of a handle, besides its WHEELTIMER_FIXED_RATE or _FIXED_DELAY. */
#define WTL_HF_NOTIFY		0x1U	/* its queued operation has NOTIFY */
#define WTL_HF_KIND		(WHEELTIMER_FIXED_RATE | WHEELTIMER_FIXED_DELAY)

/* wtl_handle.link when no operation of the handle is queued. */
#define WTL_NOQ			UINT32_MAX

/**
 * struct wtl_handle - what the library keeps per handle: 24 bytes
 * @cookie: the caller's cookie, for the records the library makes
 * @gen: the generation of its index: the high half of the handle, and of
 *	the engine's id
 * @link: while free, the next free index (0 at the end of the list); else
 *	the position of its queued operation, which counts only while the
 *	operation there names the handle (a submit empties the queue), or
 *	WTL_NOQ
 * @state: an enum wtl_hstate
 * @hflags: WTL_HF_NOTIFY, and its kind: WHEELTIMER_FIXED_RATE,
 *	WHEELTIMER_FIXED_DELAY or neither
 * @error: the negative errno of its last failed operation, or 0 (errno
 *	values are below 4096)
 */
struct wtl_handle {
	uint64_t cookie;
	uint32_t gen;
	uint32_t link;
	uint8_t state;
	uint8_t hflags;
	int16_t error;
};

/**
 * struct wtl_handles - the handles of a context, by index
 * @tab: @tab[i] is the handle of index @base + i; only the indexes of the
 *	blocks leased from the engine are ever handed out
 * @base: the lowest index leased
 * @len: entries in @tab
 * @free: the most recently freed index, 0 if none
 * @nr_live: handles handed out and not freed
 */
struct wtl_handles {
	struct wtl_handle *tab;
	uint32_t base;
	uint32_t len;
	uint32_t free;
	uint32_t nr_live;
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
 * @lease: WT_IOC_LEASE: a block of ids, *@count of them from *@first
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
	int (*lease)(struct wheeltimer *wt, uint32_t *first, uint32_t *count);
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
 * @handles: the handle table
 * @q_ops: the queue: operations in the engine's format, each naming its
 *	handle in @id; op 0 is a hole left by a cancelled queued add
 * @q_len: operations (and holes) queued
 * @q_cap: room in the queue; reaching it submits
 * @q_holes: holes among them
 * @q_notify: an operation with NOTIFY is queued: the submit looks at
 *	every answer, not only at those of a batch with a failure
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
	struct wtl_handles handles;
	struct wt_op *q_ops;
	uint32_t q_len;
	uint32_t q_cap;
	uint32_t q_holes;
	bool q_notify;
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

/* handles.c */
int wtl_handle_lease(struct wheeltimer *wt);
void wtl_handles_destroy(struct wheeltimer *wt);

/*
 * Release the live handle @handle, whose entry is @h: its index is free,
 * the handle stale. Inline: every cancel and every final record does it.
 */
static inline void wtl_handle_release(struct wheeltimer *wt,
				      struct wtl_handle *h, uint64_t handle)
{
	struct wtl_handles *hs = &wt->handles;

	h->gen++;
	h->state = WTL_H_FREE;
	h->link = hs->free;
	hs->free = (uint32_t)handle;
	hs->nr_live--;
}

/* The live handle @handle names, or NULL: one subtraction, one load. */
static inline struct wtl_handle *wtl_handle(const struct wheeltimer *wt,
					    uint64_t handle)
{
	uint32_t i = (uint32_t)handle - wt->handles.base;
	struct wtl_handle *h;

	if (i >= wt->handles.len)
		return NULL;
	h = &wt->handles.tab[i];
	if (h->state == WTL_H_FREE || h->gen != (uint32_t)(handle >> 32))
		return NULL;
	return h;
}

/* The entry of a handle just taken by wtl_handle_take(). */
static inline struct wtl_handle *wtl_handle_at(const struct wheeltimer *wt,
					       uint64_t handle)
{
	return &wt->handles.tab[(uint32_t)handle - wt->handles.base];
}

/*
 * Hand out a handle from the free list, which holds one (else
 * wtl_handle_lease() first). The handle's fields but @gen are the caller's
 * to set, its state first.
 */
static inline uint64_t wtl_handle_take(struct wheeltimer *wt)
{
	struct wtl_handles *hs = &wt->handles;
	uint32_t idx = hs->free;
	struct wtl_handle *h = &hs->tab[idx - hs->base];

	hs->free = h->link;
	hs->nr_live++;
	return (uint64_t)h->gen << 32 | idx;
}

/* queue.c */
int wtl_submit(struct wheeltimer *wt);
void wtl_queue_compact(struct wheeltimer *wt);
int wtl_lq_reserve(struct wheeltimer *wt, uint32_t n);

/* Room for @n records the library makes: mostly there already. */
static inline int wtl_lq_room(struct wheeltimer *wt, uint32_t n)
{
	return wt->lq_cap - wt->lq_len >= n ? 0 : wtl_lq_reserve(wt, n);
}

/* wait.c */
int wtl_wake_open(struct wheeltimer *wt);
void wtl_wake_close(struct wheeltimer *wt);

/* stats.c */
int wtl_fdinfo_value(const char *text, const char *key, uint64_t *value);
void wtl_stats_parse(const char *text, struct wheeltimer_stats *st);
int wtl_read_file(const char *path, char *buf, size_t size);

/* shim/bug.c: how many WARN_ON_ONCE()s fired in the core, in all contexts */
uint64_t wtl_warnings(void);

/* The clock @clockid in ns, 0 before 1970: the engines' and wait.c's. */
static inline uint64_t wtl_clock_ns(int32_t clockid)
{
	struct timespec ts;

	if (clock_gettime(clockid, &ts) || ts.tv_sec < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#ifdef WTL_TEST
/*
 * The test build's hook (lib_test's flavours, never the library a
 * program links): rewrites an engine's handshake answer.
 */
extern int (*wtl_api_hook)(uint32_t engine, struct wt_api *api, int ret);
#endif

#endif /* _WHEELTIMER_LIB_INTERNAL_H */
