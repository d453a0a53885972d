// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * handles.c - handles: the engine's own ids, leased a block at a time
 *
 * The library asks its engine for a block of ids when it has no free one
 * (WT_IOC_LEASE, or the in-process engine's core), and hands them out as
 * handles: the low 32 bits an index in one of its blocks, the high 32 bits
 * the index's generation, bumped when the handle is released. The engine
 * is told the whole id when the add reaches it (WT_LEASED_ID), so that the
 * handle names the timeout everywhere, and a stale handle finds nothing
 * rather than whatever reused its index (until the index has been reused
 * 2^32 times).
 *
 * The table is indexed by index, from the lowest leased: one subtraction
 * and one load (wtl_handle()). Blocks of a file that another context
 * leased leave a hole in it, never handed out. Free indexes are reused
 * most recently freed first, which keeps request-timeout churn on a few
 * cache-hot handles here and timeouts in the engine. Memory grows with the
 * leases and is kept until the context is closed, as the engine keeps the
 * leased blocks.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static_assert(sizeof(struct wtl_handle) == 24, "a handle costs 24 bytes");

/*
 * Make room in the table for the indexes @first to @first + @count - 1:
 * it grows by doubling, as leases come in order.
 */
static int wtl_handles_cover(struct wtl_handles *hs, uint32_t first,
			     uint32_t count)
{
	uint64_t lo = first, hi = (uint64_t)first + count, len;
	struct wtl_handle *tab;

	if (hs->len) {
		if (lo >= hs->base && hi <= (uint64_t)hs->base + hs->len)
			return 0;
		lo = lo < hs->base ? lo : hs->base;
		hi = hi > (uint64_t)hs->base + hs->len ?
		     hi : (uint64_t)hs->base + hs->len;
		/* Room for as many again, within the 32-bit index space. */
		len = 2 * (hi - lo);
		if (lo + len > (uint64_t)UINT32_MAX + 1)
			len = (uint64_t)UINT32_MAX + 1 - lo;
	} else {
		len = hi - lo;
	}
	tab = calloc(len, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	if (hs->len)
		memcpy(&tab[hs->base - lo], hs->tab, hs->len * sizeof(*tab));
	free(hs->tab);
	hs->tab = tab;
	hs->base = lo;
	hs->len = len;
	return 0;
}

/* Lease a block of ids from the engine and put them on the free list. */
int wtl_handle_lease(struct wheeltimer *wt)
{
	struct wtl_handles *hs = &wt->handles;
	uint32_t first, count, i;
	struct wtl_handle *h;
	int ret;

	ret = wt->engine->lease(wt, &first, &count);
	if (ret)
		return ret;
	if (!first || !count || first > UINT32_MAX - count)
		return -EIO;
	ret = wtl_handles_cover(hs, first, count);
	if (ret)
		return ret;
	/* The lowest index is handed out first. */
	for (i = count; i-- > 0; ) {
		h = &hs->tab[first + i - hs->base];
		h->gen = 1;
		h->state = WTL_H_FREE;
		h->link = hs->free;
		hs->free = first + i;
	}
	return 0;
}

void wtl_handles_destroy(struct wheeltimer *wt)
{
	free(wt->handles.tab);
	memset(&wt->handles, 0, sizeof(wt->handles));
}
