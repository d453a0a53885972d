/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/bitops.h>: the bit helpers module/wheel.c
 * uses, on top of the compiler's builtins, with the kernel's semantics.
 */
#ifndef _WHEEL_SHIM_LINUX_BITOPS_H
#define _WHEEL_SHIM_LINUX_BITOPS_H

#include <linux/bits.h>
#include <linux/types.h>

/* 1-based index of the most significant set bit; 0 for 0. */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* 0-based index of the least significant set bit; undefined for 0. */
static inline unsigned long __ffs64(u64 word)
{
	return __builtin_ctzll(word);
}

static inline unsigned int hweight64(u64 w)
{
	return __builtin_popcountll(w);
}

#endif
