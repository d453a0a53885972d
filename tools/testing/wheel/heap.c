// SPDX-License-Identifier: GPL-2.0
/* heap.c - the binary min-heap baseline and reference; see heap.h. */
#include <stdlib.h>

#include "heap.h"

int heap_init(struct heap *h, u32 cap)
{
	h->n = 0;
	h->cap = cap;
	h->v = malloc((size_t)(cap ? cap : 1) * sizeof(*h->v));
	return h->v ? 0 : -1;
}

void heap_free(struct heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = 0;
	h->cap = 0;
}

static void heap_set(struct heap *h, u32 i, struct heap_node *x)
{
	h->v[i] = x;
	x->idx = i;
}

/* Move the node at @i towards the root while it is earlier than its parent. */
static void heap_up(struct heap *h, u32 i)
{
	struct heap_node *x = h->v[i];

	while (i) {
		u32 parent = (i - 1) / 2;

		if (h->v[parent]->expires <= x->expires)
			break;
		heap_set(h, i, h->v[parent]);
		i = parent;
	}
	heap_set(h, i, x);
}

/* Move the node at @i towards the leaves while a child is earlier. */
static void heap_down(struct heap *h, u32 i)
{
	struct heap_node *x = h->v[i];

	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1]->expires < h->v[c]->expires)
			c++;
		if (x->expires <= h->v[c]->expires)
			break;
		heap_set(h, i, h->v[c]);
		i = c;
	}
	heap_set(h, i, x);
}

void heap_push(struct heap *h, struct heap_node *x, u64 expires)
{
	if (h->n == h->cap) {
		u32 cap = h->cap ? 2 * h->cap : 16;
		struct heap_node **v = realloc(h->v, (size_t)cap * sizeof(*v));

		if (!v)
			abort();
		h->v = v;
		h->cap = cap;
	}
	x->expires = expires;
	heap_set(h, h->n++, x);
	heap_up(h, h->n - 1);
}

void heap_remove(struct heap *h, struct heap_node *x)
{
	u32 i = x->idx;
	struct heap_node *last = h->v[--h->n];

	x->idx = HEAP_NONE;
	if (last == x)
		return;
	heap_set(h, i, last);
	/* The node moved into the hole may belong above it or below it. */
	if (i && h->v[(i - 1) / 2]->expires > last->expires)
		heap_up(h, i);
	else
		heap_down(h, i);
}

void heap_modify(struct heap *h, struct heap_node *x, u64 expires)
{
	u64 old = x->expires;

	if (!heap_queued(x)) {
		heap_push(h, x, expires);
		return;
	}
	x->expires = expires;
	if (expires < old)
		heap_up(h, x->idx);
	else
		heap_down(h, x->idx);
}

struct heap_node *heap_pop(struct heap *h)
{
	struct heap_node *x = heap_peek(h);

	if (x)
		heap_remove(h, x);
	return x;
}

int heap_verify(const struct heap *h)
{
	u32 i;

	for (i = 0; i < h->n; i++) {
		if (h->v[i]->idx != i)
			return -1;
		if (i && h->v[(i - 1) / 2]->expires > h->v[i]->expires)
			return -1;
	}
	return 0;
}
