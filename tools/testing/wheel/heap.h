/* SPDX-License-Identifier: GPL-2.0 */
/*
 * heap.h - a binary min-heap timer queue, the textbook alternative to a
 * timing wheel: O(log n) add, cancel and modify (each node knows its index
 * in the heap), O(1) peek at the earliest.
 *
 * It serves twice: as the reference the model test checks the wheel
 * against, and as the baseline the benchmark compares the wheel with.
 */
#ifndef _WHEEL_TEST_HEAP_H
#define _WHEEL_TEST_HEAP_H

#include <linux/types.h>

#define HEAP_NONE	UINT32_MAX

struct heap_node {
	u64 expires;
	u32 idx;	/* position in heap->v, HEAP_NONE when not queued */
};

struct heap {
	struct heap_node **v;
	u32 n, cap;
};

int heap_init(struct heap *h, u32 cap);
void heap_free(struct heap *h);
void heap_push(struct heap *h, struct heap_node *x, u64 expires);
void heap_remove(struct heap *h, struct heap_node *x);
void heap_modify(struct heap *h, struct heap_node *x, u64 expires);
struct heap_node *heap_pop(struct heap *h);
/* Returns 0 if the heap property and every node's index hold. */
int heap_verify(const struct heap *h);

static inline void heap_node_init(struct heap_node *x)
{
	x->idx = HEAP_NONE;
}

static inline bool heap_queued(const struct heap_node *x)
{
	return x->idx != HEAP_NONE;
}

static inline struct heap_node *heap_peek(const struct heap *h)
{
	return h->n ? h->v[0] : NULL;
}

#endif
