// SPDX-License-Identifier: GPL-2.0
/*
 * store_test.c - module/store.c against a model: random gets (with the
 * store's allocations made to fail now and then), leases of blocks and
 * gets of ids in them, puts, lookups of live, stale and made-up ids,
 * drains and trims, in epochs that each end by destroying the store. After
 * every step the store must find exactly the live ids, each at its own
 * timer, and never a stale one; every timer must be live, on the free list
 * once, or free in a leased block and never on the free list; a get of a
 * leased id must succeed exactly when the model says it is free, and name
 * the timer by the id asked for; a leased block's indexes must be above
 * every index the store handed out or leased before in the epoch, so that
 * no stale id reaches a leased timeout whatever its generation (a leased
 * index is first got with a small generation, as stale ids have, then
 * with one more at each reuse); and a destroyed
 * store must leave nothing allocated. Built a second time with the index
 * space cut to WT_STORE_MAX_BLOCKS = 64 blocks (store-small), where gets
 * and leases must stop there with -ENOSPC. Usage: store [-s SEED]
 * [-n OPS]; the seed is printed so that a failure can be replayed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/slab.h>

/* store-small: the store's index space cut down, to reach its end. */
#ifdef WT_STORE_MAX_BLOCKS
#define SMALL_INDEX_SPACE	1
#else
#define SMALL_INDEX_SPACE	0
#endif

#include "store.h"
#include "wheel_test.h"

#define LIVE_MAX	30000
#define STALE_MAX	4096
#define EPOCH_OPS	400000
#define PHASE_OPS	100000
/* A full check walks everything: every this many steps, and at the end. */
#define CHECK_EVERY	4096

/* A timer the test holds; its @deadline is its place in live[]. */
struct held {
	struct wt_timer *t;
	u64 id;
	bool periodic;
};

static struct held live[LIVE_MAX];
static unsigned int nlive;
/* The free ids of leased blocks, by index, and how many of them. */
static u32 leased_free[LIVE_MAX];
/*
 * The generation the test gives the next timeout at each of them: a small
 * one at the first use, as stale ids of a reused index would have, then
 * one more at each reuse, as a lessee should (libwheeltimer does).
 */
static u32 leased_gen[LIVE_MAX];
static unsigned int nleased_free;
static u64 stale[STALE_MAX];
static u64 nstale;
/* The highest index handed out or leased in this epoch. */
static u32 top_index;
static u64 seed, rng, cookies;

static struct {
	u64 steps, epochs, gets, grows, enomem, puts, drains, trims, trimmed;
	u64 lookups_live, lookups_stale, lookups_made_up, made_up_found;
	u64 leases, lease_enomem, leased_gets, leased_refused;
	u64 max_blocks, enospc, leases_skipping;
} st;

static __printf(1, 2) void fail(const char *fmt, ...)
{
	va_list ap;

	printf("not ok 1 - store, seed %llu, step %llu: ",
	       (unsigned long long)seed, (unsigned long long)st.steps);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n# replay: store -s %llu\n", (unsigned long long)seed);
	printf("# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0\n");
	fflush(stdout);
	exit(1);
}

static u32 below(u32 n)
{
	return rng_next(&rng) % n;
}

/* Counted by the shim's array_index_nospec(). */
unsigned long long wheel_shim_nospec_calls;

/*
 * What the store must find for each id it has handed out and not taken
 * back; the id, as userspace gives it, is clamped under speculation.
 */
static void check_live(const struct wt_store *s, unsigned int i)
{
	unsigned long long clamps = wheel_shim_nospec_calls;
	const struct held *h = &live[i];
	struct wt_timer *t = wt_store_lookup(s, h->id);

	if (wheel_shim_nospec_calls == clamps)
		fail("id %#llx was looked up without array_index_nospec()",
		     (unsigned long long)h->id);

	if (t != h->t)
		fail("id %#llx found %p, not its timer %p",
		     (unsigned long long)h->id, (void *)t, (void *)h->t);
	if (wt_timer_id(t) != h->id || t->deadline != i)
		fail("timer of id %#llx now says id %#llx, place %llu",
		     (unsigned long long)h->id,
		     (unsigned long long)wt_timer_id(t),
		     (unsigned long long)t->deadline);
	if (h->periodic && wt_timer_period(t)->period != t->cookie)
		fail("the period of id %#llx was lost",
		     (unsigned long long)h->id);
}

static void check_all(const struct wt_store *s)
{
	u64 nfree = 0, room, skipped = 0;
	const struct wt_block *skip = NULL;
	const struct wt_timer *t;
	unsigned int i, j;

	if (s->nr_blocks > WT_STORE_MAX_BLOCKS)
		fail("%u blocks: past the index space's %u", s->nr_blocks,
		     (unsigned int)WT_STORE_MAX_BLOCKS);
	room = (u64)(s->nr_blocks - s->nr_skipped) * WT_BLOCK_TIMERS;
	if (s->nr_live != nlive)
		fail("nr_live %llu, the model holds %u",
		     (unsigned long long)s->nr_live, nlive);
	for (t = s->free; t; t = t->free_next) {
		if (t->state != WT_TIMER_FREE)
			fail("a timer on the free list is not free");
		if (wt_block_of(t)->leased)
			fail("a timer of a leased block is on the free list");
		if (++nfree > room)
			fail("the free list is longer than the store");
	}
	if (nfree + nleased_free + s->nr_live != room)
		fail("%llu free + %u leased free + %llu live != %llu timers",
		     (unsigned long long)nfree, nleased_free,
		     (unsigned long long)s->nr_live, (unsigned long long)room);
	for (i = 0; i < s->nr_blocks; i++) {
		/* An index range a lease skipped: one empty block for all. */
		if (s->blocks[i]->first != i * WT_BLOCK_TIMERS + 1) {
			if (skip && s->blocks[i] != skip)
				fail("block %u starts at index %u", i,
				     s->blocks[i]->first);
			skip = s->blocks[i];
			for (j = 0; j < WT_BLOCK_TIMERS; j++)
				if (skip->timers[j].state != WT_TIMER_FREE)
					fail("a skipped range holds a timer");
			if (skip->leased || !s->nr_leased)
				fail("block %u skipped with nothing leased", i);
			skipped++;
			continue;
		}
		if ((unsigned long)s->blocks[i] & ~PAGE_MASK)
			fail("block %u is not page-aligned", i);
	}
	if (skipped != s->nr_skipped)
		fail("%llu blocks skipped, the store says %u",
		     (unsigned long long)skipped, s->nr_skipped);
	if (s->nr_blocks > s->blocks_cap)
		fail("%u blocks in a table of %u", s->nr_blocks, s->blocks_cap);
	for (i = 0; i < nlive; i++)
		check_live(s, i);
}

static void step_get(struct wt_store *s)
{
	bool periodic = !below(6);
	struct wt_timer *t;
	struct held *h;
	int ret;

	if (nlive == LIVE_MAX)
		return;
	st.gets++;
	t = wt_store_get(s, periodic);
	if (!t) {
		/* Now and then the table, the block or the periods fail. */
		if (!below(8))
			wheel_shim_slab_fail_in = 1 + below(3);
		st.grows++;
		ret = wt_store_grow(s, periodic);
		if (ret) {
			st.enomem += ret == -ENOMEM;
			wheel_shim_slab_fail_in = 0;
			if (s->nr_live != nlive)
				fail("a failed grow changed nr_live");
			if (ret == -ENOSPC) {
				st.enospc++;
				if (s->free || s->nr_blocks < WT_STORE_MAX_BLOCKS)
					fail("ENOSPC with %u of %u blocks",
					     s->nr_blocks,
					     (unsigned int)WT_STORE_MAX_BLOCKS);
			}
			return;
		}
		wheel_shim_slab_fail_in = 0;
		t = wt_store_get(s, periodic);
		if (!t)
			fail("the store grew but has nothing to give");
	}
	if (t->state != WT_TIMER_FREE)
		fail("got a timer that is not free");
	if (wt_block_of(t)->leased)
		fail("got a timer of a leased block");
	h = &live[nlive];
	h->t = t;
	h->id = wt_timer_id(t);
	h->periodic = periodic;
	if (!h->id || !lower_32_bits(h->id))
		fail("id %#llx has index 0", (unsigned long long)h->id);
	if (lower_32_bits(h->id) > top_index)
		top_index = lower_32_bits(h->id);
	t->state = WT_TIMER_QUEUED;
	t->cookie = ++cookies;
	t->deadline = nlive;
	if (periodic)
		wt_timer_period(t)->period = t->cookie;
	nlive++;
	if (s->nr_blocks > st.max_blocks)
		st.max_blocks = s->nr_blocks;
}

/*
 * Lease a block, now and then with its allocations failing: above every
 * index handed out or leased before, and right after the last block unless
 * a trim gave back the ranges in between.
 */
static void step_lease(struct wt_store *s)
{
	u32 first, before = s->nr_blocks, i;
	int ret;

	if (nleased_free + WT_BLOCK_TIMERS > LIVE_MAX / 2)
		return;
	if (!below(8))
		wheel_shim_slab_fail_in = 1 + below(2);
	st.leases++;
	ret = wt_store_lease(s, &first);
	if (ret) {
		wheel_shim_slab_fail_in = 0;
		st.lease_enomem += ret == -ENOMEM;
		if (ret == -ENOSPC) {
			st.enospc++;
			if (max(s->nr_blocks, s->nr_used) < WT_STORE_MAX_BLOCKS)
				fail("a lease ENOSPC with %u of %u blocks",
				     s->nr_blocks,
				     (unsigned int)WT_STORE_MAX_BLOCKS);
		}
		if (s->nr_blocks != before)
			fail("a failed lease changed the blocks");
		return;
	}
	wheel_shim_slab_fail_in = 0;
	if (first <= top_index)
		fail("leased block at index %u, not above index %u used before",
		     first, top_index);
	if (first != before * WT_BLOCK_TIMERS + 1)
		st.leases_skipping++;
	top_index = first + WT_BLOCK_TIMERS - 1;
	for (i = 0; i < WT_BLOCK_TIMERS; i++) {
		leased_gen[nleased_free] = below(4);
		leased_free[nleased_free++] = first + i;
	}
}

/*
 * Get a leased id the model says is free, with a generation of the test's
 * choosing; try one that is live, and one that is not leased, first.
 */
static void step_get_leased(struct wt_store *s)
{
	bool periodic = !below(6);
	unsigned int k;
	struct held *h;
	struct wt_timer *t;
	u64 id;
	int ret;

	if (!nleased_free || nlive == LIVE_MAX)
		return;
	for (k = 0; k < nlive && k < 4; k++) {
		h = &live[below(nlive)];
		ret = wt_store_get_leased(s, h->id, false, &t);
		if (ret != (wt_block_of(h->t)->leased ? -EEXIST : -EINVAL))
			fail("a get of live id %#llx gave %d",
			     (unsigned long long)h->id, ret);
		st.leased_refused++;
	}
	if (wt_store_get_leased(s, s->nr_blocks * WT_BLOCK_TIMERS + 1, false,
				&t) != -EINVAL)
		fail("a get past the store's last block did not fail");
	k = below(nleased_free);
	id = (u64)leased_gen[k] << 32 | leased_free[k];
	ret = wt_store_get_leased(s, id, periodic, &t);
	if (ret == -ENOMEM && periodic) {
		if (wt_store_grow_periods(s, t))
			fail("growing the periods of a leased block");
		ret = wt_store_get_leased(s, id, periodic, &t);
	}
	if (ret)
		fail("a get of free leased id %#llx gave %d",
		     (unsigned long long)id, ret);
	if (wt_timer_id(t) != id)
		fail("leased id %#llx got the timer of id %#llx",
		     (unsigned long long)id, (unsigned long long)wt_timer_id(t));
	leased_free[k] = leased_free[--nleased_free];
	leased_gen[k] = leased_gen[nleased_free];
	st.leased_gets++;
	h = &live[nlive];
	h->t = t;
	h->id = id;
	h->periodic = periodic;
	t->state = WT_TIMER_QUEUED;
	t->cookie = ++cookies;
	t->deadline = nlive;
	if (periodic)
		wt_timer_period(t)->period = t->cookie;
	nlive++;
}

static void put_one(struct wt_store *s, unsigned int i)
{
	struct held h = live[i];

	if (wt_block_of(h.t)->leased) {
		leased_gen[nleased_free] = upper_32_bits(h.id) + 1;
		leased_free[nleased_free++] = wt_timer_index(h.t);
	}
	wt_store_put(s, h.t);
	stale[nstale++ % STALE_MAX] = h.id;
	live[i] = live[--nlive];
	if (i < nlive)
		live[i].t->deadline = i;
	st.puts++;
	if (wt_store_lookup(s, h.id))
		fail("id %#llx still found once put back",
		     (unsigned long long)h.id);
}

static void step_lookup(const struct wt_store *s)
{
	struct wt_timer *t;
	u64 id;

	switch (below(3)) {
	case 0:
		if (!nlive)
			return;
		st.lookups_live++;
		check_live(s, below(nlive));
		break;
	case 1:
		if (!nstale)
			return;
		st.lookups_stale++;
		id = stale[below(nstale < STALE_MAX ? nstale : STALE_MAX)];
		t = wt_store_lookup(s, id);
		/* Unless it is live again: only if a slot went round 2^32. */
		if (t)
			fail("stale id %#llx found a timer (id %#llx)",
			     (unsigned long long)id,
			     (unsigned long long)wt_timer_id(t));
		break;
	default:
		/* Any index up to past the end, any generation near 0. */
		st.lookups_made_up++;
		id = (u64)below(8) << 32 |
		     below(s->nr_blocks * WT_BLOCK_TIMERS + 200);
		t = wt_store_lookup(s, id);
		if (!t)
			break;
		st.made_up_found++;
		if (wt_timer_id(t) != id || t->deadline >= nlive ||
		    live[t->deadline].t != t)
			fail("made-up id %#llx found a timer the model lacks",
			     (unsigned long long)id);
		break;
	}
}

static void step_trim(struct wt_store *s)
{
	u32 before = s->nr_blocks;

	st.trims++;
	wt_store_trim(s);
	if ((nlive || s->nr_leased) && s->nr_blocks != before)
		fail("trimmed a store that holds %u timeouts, %u leased blocks",
		     nlive, s->nr_leased);
	if (!nlive && !s->nr_leased && s->nr_blocks > WT_STORE_KEEP_BLOCKS)
		fail("an empty store kept %u blocks", s->nr_blocks);
	if (s->nr_blocks < before)
		st.trimmed++;
}

static void run(u64 ops)
{
	struct wt_store s = {};
	u64 i;

	for (i = 0; i < ops; i++) {
		/* Phases that fill the store up towards LIVE_MAX, then drain it. */
		bool filling = (i / PHASE_OPS) % 2 == 0;
		u32 r = below(100);

		st.steps++;
		if (r < (filling ? 45 : 20)) {
			step_get(&s);
		} else if (r < (filling ? 55 : 25)) {
			/*
			 * Every other epoch leases, from its second half on,
			 * when the first half may have trimmed: the others
			 * only trim.
			 */
			if (st.epochs % 2 && i % EPOCH_OPS >= EPOCH_OPS / 2 &&
			    !below(8))
				step_lease(&s);
			step_get_leased(&s);
		} else if (r < 70) {
			if (nlive)
				put_one(&s, below(nlive));
		} else if (r < 98) {
			step_lookup(&s);
		} else if (r == 98 && !below(200)) {
			/* Empty it, so that trims find something to do. */
			st.drains++;
			while (nlive)
				put_one(&s, below(nlive));
			step_trim(&s);
		} else {
			step_trim(&s);
		}
		if (!(i % CHECK_EVERY))
			check_all(&s);
		if ((i + 1) % EPOCH_OPS == 0 || i + 1 == ops) {
			check_all(&s);
			wt_store_destroy(&s);
			if (wheel_shim_slab_live)
				fail("%ld allocations left after destroy",
				     wheel_shim_slab_live);
			memset(&s, 0, sizeof(s));
			nlive = 0;
			nstale = 0;
			nleased_free = 0;
			top_index = 0;
			st.epochs++;
		}
	}
}

int main(int argc, char **argv)
{
	u64 ops = 2000000;
	struct timespec a, b;
	int opt;

	seed = (u64)time(NULL) ^ ((u64)getpid() << 32);
	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		if (opt == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (opt == 'n')
			ops = strtoull(optarg, NULL, 0);
		else
			return 2;
	}
	rng = seed;
	printf("# store: seed %llu, %llu operations, %zu timers per block\n",
	       (unsigned long long)seed, (unsigned long long)ops,
	       (size_t)WT_BLOCK_TIMERS);

	/* The caches: their creation fails cleanly, then works. */
	wheel_shim_slab_fail_in = 2;
	if (wt_store_create_caches() != -ENOMEM)
		fail("creating the caches with the second one failing");
	wheel_shim_slab_fail_in = 0;
	if (wt_store_create_caches())
		fail("creating the caches");

	clock_gettime(CLOCK_MONOTONIC, &a);
	run(ops);
	clock_gettime(CLOCK_MONOTONIC, &b);
	wt_store_destroy_caches();

	printf("# %llu steps in %llu epochs, %.1f s; up to %llu blocks\n",
	       (unsigned long long)st.steps, (unsigned long long)st.epochs,
	       (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
	       (unsigned long long)st.max_blocks);
	printf("#  gets %llu (grows %llu, ENOMEM %llu), puts %llu\n",
	       (unsigned long long)st.gets, (unsigned long long)st.grows,
	       (unsigned long long)st.enomem, (unsigned long long)st.puts);
	printf("#  leases %llu (ENOMEM %llu, past trims %llu), leased gets %llu, refused %llu\n",
	       (unsigned long long)st.leases,
	       (unsigned long long)st.lease_enomem,
	       (unsigned long long)st.leases_skipping,
	       (unsigned long long)st.leased_gets,
	       (unsigned long long)st.leased_refused);
	printf("#  ENOSPC at the end of the index space (%u blocks): %llu\n",
	       (unsigned int)WT_STORE_MAX_BLOCKS,
	       (unsigned long long)st.enospc);
	printf("#  drains %llu, trims %llu (%llu gave blocks back)\n",
	       (unsigned long long)st.drains, (unsigned long long)st.trims,
	       (unsigned long long)st.trimmed);
	printf("#  lookups: live %llu, stale %llu, made-up %llu (%llu of them live)\n",
	       (unsigned long long)st.lookups_live,
	       (unsigned long long)st.lookups_stale,
	       (unsigned long long)st.lookups_made_up,
	       (unsigned long long)st.made_up_found);
	if (!st.enomem || !st.trimmed || !st.made_up_found ||
	    (SMALL_INDEX_SPACE && !st.enospc))
		fail("untried: ENOMEM %llu, trims that freed %llu, made-up hits %llu, ENOSPC %llu",
		     (unsigned long long)st.enomem,
		     (unsigned long long)st.trimmed,
		     (unsigned long long)st.made_up_found,
		     (unsigned long long)st.enospc);
	printf("ok 1 - store\n");
	printf("# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0\n");
	return 0;
}
