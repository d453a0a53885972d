/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_test.h - helpers shared by the userspace tests of module/wheel.c:
 * a seeded generator, the WARN hook of the shim <linux/bug.h>, a white-box
 * check of the wheel's invariants, and saturating tick arithmetic.
 */
#ifndef _WHEEL_TEST_H
#define _WHEEL_TEST_H

#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/types.h>

#include "wheel.h"

/* splitmix64: tiny, seedable, and good enough to pick test cases. */
static inline u64 rng_next(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline u64 sat_add(u64 a, u64 b)
{
	return a > U64_MAX - b ? U64_MAX : a + b;
}

static inline u64 sat_sub(u64 a, u64 b)
{
	return a < b ? 0 : a - b;
}

/*
 * Warnings from wheel.c land here. They are counted; when
 * wheel_warn_fatal is set (the model test, the fuzzer) they abort.
 */
extern unsigned long wheel_warnings;
extern bool wheel_warn_fatal;

/*
 * Walk the whole wheel and check what wheel.c promises about its layout:
 * every slot entry shares the clock's digits above its level and has a
 * larger digit at it (so no top-level slot above 15 is used); the occupied
 * bits match the slots; each occupied slot's earliest tick lies between
 * its start and its entries' ticks, an empty slot's is U64_MAX; the links
 * are consistent; the count is right.
 * Returns NULL if all holds, else a description of the first breakage.
 * @levels, if not NULL, receives the number of entries per level, with
 * [WHEEL_LEVELS] for the due list.
 */
const char *wheel_check(const struct wheel *w, u64 levels[WHEEL_LEVELS + 1]);

/* The level wheel.c must choose for @tick at clock @clk (> @clk). */
static inline unsigned int wheel_test_level(u64 clk, u64 tick)
{
	return (64 - __builtin_clzll(tick ^ clk) - 1) / WHEEL_LVL_BITS;
}

#endif
