// SPDX-License-Identifier: GPL-2.0
/* common.c - see wheel_test.h. */
#include <stdio.h>
#include <stdlib.h>

#include "wheel_test.h"

unsigned long wheel_warnings;
bool wheel_warn_fatal;

void wheel_shim_warn(const char *file, int line, const char *cond)
{
	wheel_warnings++;
	fflush(stdout);
	fprintf(stderr, "# WARNING at %s:%d: %s\n", file, line, cond);
	if (wheel_warn_fatal)
		abort();
}

/* Counted by the shim <linux/list.h>: list_head operations that link. */
unsigned long wheel_shim_list_ops;

/*
 * Walk a circular list: every node's prev must be the node before it, and
 * the walk must come back to @head within @limit nodes (a list whose
 * links loop elsewhere would never end).
 */
static const char *check_list(const struct list_head *head, u64 limit,
			      u64 *n)
{
	const struct list_head *prev = head, *node;

	for (node = head->next; node != head; node = node->next) {
		if (node->prev != prev)
			return "prev does not point at the previous node";
		if (++*n > limit)
			return "list longer than the count";
		prev = node;
	}
	if (head->prev != prev)
		return "head's prev is not the last node";
	return NULL;
}

const char *wheel_check(const struct wheel *w, u64 levels[WHEEL_LEVELS + 1])
{
	const struct list_head *node;
	const struct wheel_entry *e;
	unsigned int l, i;
	u64 total = 0, n;
	const char *err;

	if (levels)
		for (l = 0; l < WHEEL_LEVELS + 1; l++)
			levels[l] = 0;

	for (l = 0; l < WHEEL_LEVELS; l++) {
		/* The clock's digits above @l, then digit @l set to @i. */
		u64 above = l == WHEEL_LEVELS - 1 ? 0 :
			    w->clk >> ((l + 1) * WHEEL_LVL_BITS) <<
			    ((l + 1) * WHEEL_LVL_BITS);

		for (i = 0; i < WHEEL_LVL_SIZE; i++) {
			const struct list_head *head = &w->slots[l][i];
			u64 start = above | (u64)i << (l * WHEEL_LVL_BITS);

			/* Most slots are empty: say so quickly, and exactly. */
			if (head->next == head && head->prev == head) {
				if (w->occupied[l] & (1ULL << i))
					return "occupied bit set on an empty slot";
				if (w->first[l][i] != U64_MAX)
					return "an empty slot has an earliest tick";
				continue;
			}
			if (w->first[l][i] < start)
				return "a slot's earliest tick is before its start";
			n = 0;
			err = check_list(head, w->count - total, &n);
			if (err)
				return err;
			if (!!n != !!(w->occupied[l] & (1ULL << i)))
				return "occupied bit does not match the slot";
			for (node = head->next; node != head; node = node->next) {
				e = list_entry(node, struct wheel_entry, node);
				if (e->expires <= w->clk)
					return "slot entry not after the clock";
				if (wheel_test_level(w->clk, e->expires) != l)
					return "slot entry at the wrong level";
				if (((e->expires >> (l * WHEEL_LVL_BITS)) &
				     (WHEEL_LVL_SIZE - 1)) != i)
					return "slot entry in the wrong slot";
				if (e->expires < w->first[l][i])
					return "slot entry before its slot's earliest tick";
			}
			total += n;
			if (levels)
				levels[l] += n;
		}
	}

	n = 0;
	err = check_list(&w->due, w->count - total, &n);
	if (err)
		return err;
	total += n;
	if (levels)
		levels[WHEEL_LEVELS] = n;

	if (total != w->count)
		return "count does not match the entries";
	return NULL;
}
