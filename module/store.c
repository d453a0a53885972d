// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * store.c - the blocks of timeouts behind a wheeltimer file's ids
 *
 * What the store is, store.h says. This file holds what allocates and
 * frees: growing the store by a block (and its table), its periods,
 * leasing a block, trimming an emptied store, and destroying one.
 *
 * A trim gives back the index ranges of the blocks it frees, and blocks
 * made later take them again, their generations starting above every one
 * handed out there before. A lease does not take them: the caller picks
 * its timeouts' generations, and one it picks could be that of a stale
 * id. So a lease puts its block after every index range the store has
 * had, and the table holds the empty block wt_store_skipped in each range
 * it skips: a lookup there finds no live timeout, an ADD no leased block.
 */
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "compat.h"
#include "store.h"

static struct kmem_cache *wt_block_cache;
static struct kmem_cache *wt_periods_cache;
/* What the table holds at an index range a lease skipped: free timers. */
static struct wt_block wt_store_skipped;

int wt_store_create_caches(void)
{
	BUILD_BUG_ON(sizeof(struct wt_timer) > 48);
	BUILD_BUG_ON(sizeof(struct wt_block) > PAGE_SIZE);

	/* Aligned to their size, for wt_block_of(). */
	wt_block_cache = kmem_cache_create("wheeltimer_block", PAGE_SIZE,
					   PAGE_SIZE,
					   SLAB_ACCOUNT | WT_SLAB_NO_MERGE,
					   NULL);
	wt_periods_cache = kmem_cache_create("wheeltimer_periods",
					     WT_PERIODS_BYTES, 0,
					     SLAB_ACCOUNT | WT_SLAB_NO_MERGE,
					     NULL);
	if (!wt_block_cache || !wt_periods_cache) {
		wt_store_destroy_caches();
		return -ENOMEM;
	}
	return 0;
}

void wt_store_destroy_caches(void)
{
	kmem_cache_destroy(wt_periods_cache);
	kmem_cache_destroy(wt_block_cache);
}

/* The room the block table needs for @n blocks: it grows by doubling. */
static u32 wt_store_cap_for(const struct wt_store *s, u32 n)
{
	u32 cap = s->blocks_cap ? s->blocks_cap : WT_STORE_KEEP_BLOCKS;

	while (cap < n)
		cap = cap > WT_STORE_MAX_BLOCKS / 2 ? WT_STORE_MAX_BLOCKS :
						      cap * 2;
	return cap;
}

/* The bytes the block table grows by to hold @n blocks. */
static size_t wt_store_table_bytes(const struct wt_store *s, u32 n)
{
	return (size_t)(wt_store_cap_for(s, n) - s->blocks_cap) *
	       sizeof(*s->blocks);
}

/* Make room in the block table for @n blocks in all. */
static int wt_store_grow_table(struct wt_store *s, u32 n)
{
	u32 cap = wt_store_cap_for(s, n);
	struct wt_block **blocks;

	blocks = kvmalloc_array(cap, sizeof(*blocks),
				GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!blocks)
		return -ENOMEM;
	if (s->nr_blocks)
		memcpy(blocks, s->blocks, s->nr_blocks * sizeof(*blocks));
	kvfree(s->blocks);
	s->bytes += (cap - s->blocks_cap) * sizeof(*blocks);
	s->blocks = blocks;
	s->blocks_cap = cap;
	return 0;
}

/*
 * The bytes the next wt_store_grow(@s, @periodic) allocates if it
 * succeeds: a block, the table's growth and a period array, as needed.
 */
size_t wt_store_grow_bytes(const struct wt_store *s, bool periodic)
{
	size_t bytes = 0;

	if (!s->free) {
		bytes += PAGE_SIZE + wt_store_table_bytes(s, s->nr_blocks + 1);
		if (periodic)
			bytes += WT_PERIODS_BYTES;
	} else if (periodic && !wt_block_of(s->free)->periods) {
		bytes += WT_PERIODS_BYTES;
	}
	return bytes;
}

/*
 * A new block at the end of the store, its timers free, in *@bp: 0,
 * -ENOSPC past the 32 bits of an index, or -ENOMEM.
 */
static int wt_store_new_block(struct wt_store *s, struct wt_block **bp)
{
	struct wt_block *b;
	unsigned int i;

	if (s->nr_blocks >= WT_STORE_MAX_BLOCKS)
		return -ENOSPC;
	if (s->nr_blocks == s->blocks_cap &&
	    wt_store_grow_table(s, s->nr_blocks + 1))
		return -ENOMEM;
	b = kmem_cache_alloc(wt_block_cache, GFP_KERNEL_ACCOUNT);
	if (!b)
		return -ENOMEM;
	b->periods = NULL;
	b->first = s->nr_blocks * WT_BLOCK_TIMERS + 1;
	b->leased = false;
	for (i = 0; i < WT_BLOCK_TIMERS; i++) {
		b->timers[i].gen = s->gen_floor;
		b->timers[i].state = WT_TIMER_FREE;
	}
	s->blocks[s->nr_blocks] = b;
	WRITE_ONCE(s->nr_blocks, s->nr_blocks + 1);
	s->nr_used = max(s->nr_used, s->nr_blocks);
	WRITE_ONCE(s->bytes, s->bytes + PAGE_SIZE);
	*bp = b;
	return 0;
}

/* Give the block of @t, which has none, its array of periods. */
static int wt_store_new_periods(struct wt_store *s, struct wt_timer *t)
{
	struct wt_block *b = wt_block_of(t);

	b->periods = kmem_cache_alloc(wt_periods_cache, GFP_KERNEL_ACCOUNT);
	if (!b->periods)
		return -ENOMEM;
	WRITE_ONCE(s->bytes, s->bytes + WT_PERIODS_BYTES);
	return 0;
}

/*
 * Give the store what the next wt_store_get() needs: a free timer, and for
 * a periodic one the period array of that timer's block. Sleeps; the
 * caller's lock keeps what is made ready here there until the get.
 */
int wt_store_grow(struct wt_store *s, bool periodic)
{
	struct wt_block *b;
	unsigned int i;
	int ret;

	if (!s->free) {
		ret = wt_store_new_block(s, &b);
		if (ret)
			return ret;
		/* The lowest index is handed out first. */
		for (i = WT_BLOCK_TIMERS; i-- > 0; ) {
			b->timers[i].free_next = s->free;
			s->free = &b->timers[i];
		}
	}
	if (periodic && !wt_block_of(s->free)->periods)
		return wt_store_new_periods(s, s->free);
	return 0;
}

/* Where the next leased block goes: after every index range ever used. */
static u32 wt_store_lease_at(const struct wt_store *s)
{
	return max(s->nr_blocks, s->nr_used);
}

/* The bytes the next wt_store_lease() allocates if it succeeds. */
size_t wt_store_lease_bytes(const struct wt_store *s)
{
	return PAGE_SIZE + wt_store_table_bytes(s, wt_store_lease_at(s) + 1);
}

/*
 * Lease a new block, after the index ranges a trim gave back: its
 * WT_BLOCK_TIMERS ids, from *@first on, are the caller's to hand out with
 * wt_store_get_leased(). -ENOSPC past the 32 bits of an index. Sleeps.
 */
int wt_store_lease(struct wt_store *s, u32 *first)
{
	u32 at = wt_store_lease_at(s), from = s->nr_blocks, i;
	struct wt_block *b;
	int ret;

	if (at >= WT_STORE_MAX_BLOCKS)
		return -ENOSPC;
	if (at >= s->blocks_cap && wt_store_grow_table(s, at + 1))
		return -ENOMEM;
	/*
	 * As many as a trim freed (the store's peak): the caller's own. No
	 * trim runs while a block is leased: these stay until destroy.
	 */
	for (i = from; i < at; i++) {
		s->blocks[i] = &wt_store_skipped;
		if (!(i % 1024))
			cond_resched();
	}
	WRITE_ONCE(s->nr_skipped, s->nr_skipped + (at - from));
	WRITE_ONCE(s->nr_blocks, at);
	ret = wt_store_new_block(s, &b);
	if (ret) {
		WRITE_ONCE(s->nr_blocks, from);
		WRITE_ONCE(s->nr_skipped, s->nr_skipped - (at - from));
		return ret;
	}
	b->leased = true;
	s->nr_leased++;
	*first = b->first;
	return 0;
}

/* Give the leased block of @t the period array a periodic timer needs. */
int wt_store_grow_periods(struct wt_store *s, struct wt_timer *t)
{
	if (wt_block_of(t)->periods)
		return 0;
	return wt_store_new_periods(s, t);
}

/* Free the blocks from @keep on, whose timers are all free. */
static void wt_store_free_blocks(struct wt_store *s, u32 keep)
{
	struct wt_block *b;
	unsigned int j;
	u32 i;

	for (i = keep; i < s->nr_blocks; i++) {
		b = s->blocks[i];
		if (b == &wt_store_skipped)
			continue;
		for (j = 0; j < WT_BLOCK_TIMERS; j++)
			s->gen_floor = max(s->gen_floor, b->timers[j].gen);
		if (b->periods) {
			kmem_cache_free(wt_periods_cache, b->periods);
			s->bytes -= WT_PERIODS_BYTES;
		}
		kmem_cache_free(wt_block_cache, b);
		s->bytes -= PAGE_SIZE;
		if (!(i % 1024))
			cond_resched();
	}
	WRITE_ONCE(s->nr_blocks, min(keep, s->nr_blocks));
}

/*
 * wt_store_trim()'s work, for a store it found with nothing live and more
 * than WT_STORE_KEEP_BLOCKS blocks: the free list is made again from what
 * is kept, lowest index first. Sleeps.
 */
void __wt_store_trim(struct wt_store *s)
{
	struct wt_block **blocks;
	struct wt_block *b;
	unsigned int j;
	u32 i;

	wt_store_free_blocks(s, WT_STORE_KEEP_BLOCKS);
	blocks = kmalloc_array(WT_STORE_KEEP_BLOCKS, sizeof(*blocks),
			       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (blocks) {
		memcpy(blocks, s->blocks, s->nr_blocks * sizeof(*blocks));
		kvfree(s->blocks);
		s->bytes -= (s->blocks_cap - WT_STORE_KEEP_BLOCKS) *
			    sizeof(*blocks);
		s->blocks = blocks;
		s->blocks_cap = WT_STORE_KEEP_BLOCKS;
	}
	s->free = NULL;
	for (i = s->nr_blocks; i-- > 0; ) {
		b = s->blocks[i];
		for (j = WT_BLOCK_TIMERS; j-- > 0; ) {
			b->timers[j].free_next = s->free;
			s->free = &b->timers[j];
		}
	}
}

/* Free the whole store, whatever state its timers are in. Sleeps. */
void wt_store_destroy(struct wt_store *s)
{
	wt_store_free_blocks(s, 0);
	kvfree(s->blocks);
	s->bytes -= s->blocks_cap * sizeof(*s->blocks);
	s->blocks = NULL;
	s->blocks_cap = 0;
	s->free = NULL;
	s->nr_live = 0;
	s->nr_leased = 0;
	s->nr_skipped = 0;
	s->nr_used = 0;
}
