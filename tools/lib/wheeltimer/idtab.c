// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * idtab.c - elements named by ids of an index and a generation
 *
 * The library's handles and the in-process engine's timer ids are both
 * ids of this kind: the low 32 bits an index (from 1), the high 32 bits the
 * generation of that index, bumped when its element is freed. An id whose
 * generation is not the element's, or whose element is free, finds
 * nothing, so a stale id is an error rather than an alias of whatever
 * reused its index (until the index has been reused 2^32 times).
 *
 * Elements live in blocks of WTL_ID_BLOCK that never move, so that they
 * can hold list links; the table of blocks grows by doubling. Freed
 * elements are reused most recently freed first, which keeps
 * request-timeout churn on a few cache-hot elements. Memory grows to the
 * peak and is returned by wtl_idtab_destroy().
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static struct wtl_idhdr *wtl_idtab_at(const struct wtl_idtab *t, uint32_t idx)
{
	uint32_t pos = idx - 1;

	return (struct wtl_idhdr *)(t->blocks[pos >> WTL_ID_SHIFT] +
				    (size_t)(pos & (WTL_ID_BLOCK - 1)) *
				    t->elem_size);
}

void wtl_idtab_init(struct wtl_idtab *t, size_t elem_size)
{
	memset(t, 0, sizeof(*t));
	t->elem_size = elem_size;
}

void wtl_idtab_destroy(struct wtl_idtab *t)
{
	uint32_t i;

	for (i = 0; i < t->nr_blocks; i++)
		free(t->blocks[i]);
	free(t->blocks);
	memset(t, 0, sizeof(*t));
}

/* Make room for index @t->used + 1. */
static int wtl_idtab_grow(struct wtl_idtab *t)
{
	uint32_t cap;
	char **blocks;

	if (t->used == UINT32_MAX - 1)
		return -1;
	if (t->nr_blocks == t->cap_blocks) {
		cap = t->cap_blocks ? t->cap_blocks * 2 : 16;
		blocks = realloc(t->blocks, cap * sizeof(*blocks));
		if (!blocks)
			return -1;
		t->blocks = blocks;
		t->cap_blocks = cap;
	}
	t->blocks[t->nr_blocks] = malloc((size_t)WTL_ID_BLOCK * t->elem_size);
	if (!t->blocks[t->nr_blocks])
		return -1;
	t->nr_blocks++;
	return 0;
}

/**
 * wtl_idtab_get() - hand out an element
 * @t: the table
 * @id: set to the element's id
 *
 * The element's bytes after its struct wtl_idhdr are the caller's to set.
 *
 * Return: the element, or NULL if memory ran out.
 */
void *wtl_idtab_get(struct wtl_idtab *t, uint64_t *id)
{
	struct wtl_idhdr *h;
	uint32_t idx;

	if (t->free) {
		idx = t->free;
		h = wtl_idtab_at(t, idx);
		t->free = h->next_free;
	} else {
		if (t->used == (uint64_t)t->nr_blocks * WTL_ID_BLOCK &&
		    wtl_idtab_grow(t))
			return NULL;
		idx = ++t->used;
		h = wtl_idtab_at(t, idx);
		h->gen = 1;
	}
	h->next_free = WTL_ID_LIVE;
	t->nr_live++;
	*id = (uint64_t)h->gen << 32 | idx;
	return h;
}

/* The live element @id names, or NULL. */
void *wtl_idtab_lookup(const struct wtl_idtab *t, uint64_t id)
{
	uint32_t idx = (uint32_t)id;
	struct wtl_idhdr *h;

	if (!idx || idx > t->used)
		return NULL;
	h = wtl_idtab_at(t, idx);
	if (h->next_free != WTL_ID_LIVE || h->gen != (uint32_t)(id >> 32))
		return NULL;
	return h;
}

/* Free the live element @id; its id goes stale. */
void wtl_idtab_put(struct wtl_idtab *t, uint64_t id)
{
	uint32_t idx = (uint32_t)id;
	struct wtl_idhdr *h = wtl_idtab_at(t, idx);

	h->gen++;
	h->next_free = t->free;
	t->free = idx;
	t->nr_live--;
}
