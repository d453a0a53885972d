/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/bitops.h>, for module/wheel.c in
 * libwheeltimer's in-process engine and in the wheel's tests: the two bit
 * searches the wheel uses, with the kernel's meaning, on the compiler's
 * builtins.
 */
#ifndef _WHEELTIMER_LIB_SHIM_BITOPS_H
#define _WHEELTIMER_LIB_SHIM_BITOPS_H

#include <linux/bits.h>
#include <linux/types.h>

/* The 1-based position of the highest set bit; 0 for 0. */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* The 0-based position of the lowest set bit; @x must not be 0. */
static inline unsigned long __ffs64(u64 x)
{
	return __builtin_ctzll(x);
}

#endif
