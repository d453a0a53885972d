/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * store.h - where one wheeltimer file keeps its timeouts, and their ids
 *
 * Timeouts live in page-sized blocks of WT_BLOCK_TIMERS, found through a
 * table indexed by block. An id is a generation (high 32 bits) and an index
 * (low 32 bits); freeing a timeout bumps its generation, so a stale id
 * finds nothing. Free timeouts are reused most recently freed first. A
 * caller may lease whole blocks and choose its timeouts' ids among theirs
 * (wt_store_lease(), wt_store_get_leased()): a leased block's indexes
 * were never used before, so that no stale id names one of its timeouts,
 * whatever generation the caller gives them. @bytes is what it all takes,
 * for the caller to charge. Documentation/misc-devices/wheeltimer.rst
 * describes the store.
 *
 * The store knows nothing of files, wheels or hrtimers: the caller
 * serializes every call (wheeltimer: the file's mutex) and decides what a
 * timeout's fields other than @gen and @free_next mean.
 */
#ifndef _WHEELTIMER_STORE_H
#define _WHEELTIMER_STORE_H

#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/types.h>

#include "wheel.h"

enum wt_kind {
	WT_KIND_ONESHOT,
	WT_KIND_FIXED_RATE,
	WT_KIND_FIXED_DELAY,
};

enum wt_state {
	WT_TIMER_FREE,		/* on the store's free list */
	WT_TIMER_QUEUED,	/* in the wheel */
	WT_TIMER_READY,		/* on the ready list, or taken off it by read() */
};

/**
 * struct wt_timer - one timeout; 48 bytes on 64-bit
 * @entry: its place in the wheel while queued
 * @ready: while its record waits to be read
 * @ready.link: its place in the file's ready list
 * @ready.fired_at: when it was found due, in ns on the file's clock
 * @free_next: the next free timer, while free
 * @deadline: the deadline that fires next (queued) or fired (ready), in ns,
 *	exactly as asked
 * @cookie: the caller's cookie
 * @gen: the generation of its slot, the high half of its id; bumped when
 *	it is freed
 * @kind: an enum wt_kind; periodic ones have a struct wt_period as well
 * @state: an enum wt_state
 *
 * @entry, @ready and @free_next overlap: a timeout is in the wheel, on the
 * ready list or free, one at a time. The low half of its id is its index
 * in the store, which wt_timer_index() finds from its address.
 */
struct wt_timer {
	union {
		struct wheel_entry entry;
		struct {
			struct hlist_node link;
			u64 fired_at;
		} ready;
		struct wt_timer *free_next;
	};
	u64 deadline;
	u64 cookie;
	u32 gen;
	u8 kind;
	u8 state;
};

/**
 * struct wt_period - what a FIXED_RATE or FIXED_DELAY timeout adds
 * @period: its period in ns
 * @slack: its slack in ns, applied to every period
 */
struct wt_period {
	u64 period;
	u64 slack;
};

#define WT_BLOCK_TIMERS		((PAGE_SIZE - 2 * sizeof(u64)) / \
				 sizeof(struct wt_timer))
/* The array of periods a block gets with its first periodic timer. */
#define WT_PERIODS_BYTES	(WT_BLOCK_TIMERS * sizeof(struct wt_period))
/* Blocks an emptied store keeps, so that churn near zero does not realloc. */
#define WT_STORE_KEEP_BLOCKS	16
/*
 * The most blocks a store may have, leased and skipped ones included: the
 * last index stays within 32 bits. (The tests lower it.)
 */
#ifndef WT_STORE_MAX_BLOCKS
#define WT_STORE_MAX_BLOCKS	(U32_MAX / WT_BLOCK_TIMERS)
#endif

/**
 * struct wt_block - one page of a store
 * @timers: the timers; index @first + n is @timers[n]
 * @periods: period and slack of the periodic ones among @timers, by the
 *	same position, or NULL while none has been periodic
 * @first: the index of @timers[0]
 * @leased: the block is the caller's (wt_store_lease()): its free timers
 *	are not on the store's free list
 *
 * Blocks come from a cache aligned to their size, so that a timer finds its
 * block, and so its index, by masking its address.
 */
struct wt_block {
	struct wt_timer timers[WT_BLOCK_TIMERS];
	struct wt_period *periods;
	u32 first;
	bool leased;
};

/**
 * struct wt_store - the timeouts of one file
 * @blocks: @nr_blocks blocks; index i >= 1 is timer (i - 1) %
 *	WT_BLOCK_TIMERS of block (i - 1) / WT_BLOCK_TIMERS
 * @nr_blocks: blocks in use, @nr_skipped of them the empty block that
 *	stands for an index range a lease skipped; each may be read without
 *	the caller's lock, for statistics (READ_ONCE)
 * @nr_skipped: see @nr_blocks
 * @nr_used: the most blocks the store has had: the index ranges from
 *	@nr_blocks up to it were given back by a trim, and a lease skips them
 * @blocks_cap: room in @blocks
 * @free: the free timers, linked through @free_next
 * @gen_floor: the generation new blocks start at, above every generation
 *	of the blocks given back
 * @nr_live: timers handed out by wt_store_get() or wt_store_get_leased()
 *	and not yet put back; may be read without the caller's lock, for
 *	statistics (READ_ONCE)
 * @nr_leased: blocks leased
 * @bytes: the memory the store holds: its blocks, their period arrays and
 *	the block table, as allocated; may be read without the caller's lock
 */
struct wt_store {
	struct wt_block **blocks;
	u32 nr_blocks;
	u32 nr_skipped;
	u32 nr_used;
	u32 blocks_cap;
	struct wt_timer *free;
	u32 gen_floor;
	u64 nr_live;
	u32 nr_leased;
	size_t bytes;
};

int wt_store_create_caches(void);
void wt_store_destroy_caches(void);
size_t wt_store_grow_bytes(const struct wt_store *s, bool periodic);
int wt_store_grow(struct wt_store *s, bool periodic);
size_t wt_store_lease_bytes(const struct wt_store *s);
int wt_store_lease(struct wt_store *s, u32 *first);
int wt_store_grow_periods(struct wt_store *s, struct wt_timer *t);
void __wt_store_trim(struct wt_store *s);
void wt_store_destroy(struct wt_store *s);

/*
 * Give back all but WT_STORE_KEEP_BLOCKS blocks of a store that holds no
 * timeout and has leased none, and the table's room beyond them if a
 * smaller one can be had. Inline, as it is called after every cancel and
 * has nothing to do but then. Sleeps.
 */
static inline void wt_store_trim(struct wt_store *s)
{
	if (!s->nr_live && !s->nr_leased &&
	    s->nr_blocks > WT_STORE_KEEP_BLOCKS)
		__wt_store_trim(s);
}

static inline struct wt_block *wt_block_of(const struct wt_timer *t)
{
	return (struct wt_block *)((unsigned long)t & PAGE_MASK);
}

static inline u32 wt_timer_index(const struct wt_timer *t)
{
	const struct wt_block *b = wt_block_of(t);

	return b->first + (t - b->timers);
}

static inline u64 wt_timer_id(const struct wt_timer *t)
{
	return (u64)t->gen << 32 | wt_timer_index(t);
}

/* Period and slack of a periodic timer. */
static inline struct wt_period *wt_timer_period(const struct wt_timer *t)
{
	const struct wt_block *b = wt_block_of(t);

	return &b->periods[t - b->timers];
}

/*
 * The live timer with id @id, or NULL. The id comes from userspace: the
 * block index is clamped under speculation too (Spectre v1).
 */
static inline struct wt_timer *wt_store_lookup(const struct wt_store *s,
					       u64 id)
{
	u32 index = lower_32_bits(id), pos = index - 1, block;
	struct wt_timer *t;

	block = pos / WT_BLOCK_TIMERS;
	if (!index || block >= s->nr_blocks)
		return NULL;
	block = array_index_nospec(block, s->nr_blocks);
	t = &s->blocks[block]->timers[pos % WT_BLOCK_TIMERS];
	if (t->state == WT_TIMER_FREE || t->gen != upper_32_bits(id))
		return NULL;
	return t;
}

/*
 * A free timer, counted in @nr_live, or NULL if wt_store_grow() has to run
 * first. Its id is wt_timer_id(); it can be looked up once the caller has
 * set @state to anything but WT_TIMER_FREE. Every field but @gen is the
 * caller's to fill in. A periodic one's block has an array of periods.
 */
static inline struct wt_timer *wt_store_get(struct wt_store *s, bool periodic)
{
	struct wt_timer *t = s->free;

	if (!t || (periodic && !wt_block_of(t)->periods))
		return NULL;
	s->free = t->free_next;
	s->nr_live++;
	return t;
}

/*
 * The free timer of a leased block that @id names, its generation set to
 * the id's, counted in @nr_live, in *@tp. -EINVAL if @id is not in a
 * leased block, -EEXIST if its timer is live, -ENOMEM if it is to be
 * periodic and its block has no array of periods yet: wt_store_grow_periods()
 * first. Every field but @gen is the caller's to fill in, as for
 * wt_store_get().
 */
static inline int wt_store_get_leased(struct wt_store *s, u64 id,
				      bool periodic, struct wt_timer **tp)
{
	u32 index = lower_32_bits(id), pos = index - 1, block;
	struct wt_block *b;
	struct wt_timer *t;

	block = pos / WT_BLOCK_TIMERS;
	if (!index || block >= s->nr_blocks)
		return -EINVAL;
	block = array_index_nospec(block, s->nr_blocks);
	b = s->blocks[block];
	if (!b->leased)
		return -EINVAL;
	t = &b->timers[pos % WT_BLOCK_TIMERS];
	if (t->state != WT_TIMER_FREE)
		return -EEXIST;
	if (periodic && !b->periods) {
		*tp = t;
		return -ENOMEM;
	}
	t->gen = upper_32_bits(id);
	s->nr_live++;
	*tp = t;
	return 0;
}

/*
 * Put back @t, which nothing refers to any more, and make its id stale.
 * The timer of a leased block stays the caller's to hand out again.
 */
static inline void wt_store_put(struct wt_store *s, struct wt_timer *t)
{
	t->gen++;
	t->state = WT_TIMER_FREE;
	if (!wt_block_of(t)->leased) {
		t->free_next = s->free;
		s->free = t;
	}
	s->nr_live--;
}

#endif /* _WHEELTIMER_STORE_H */
