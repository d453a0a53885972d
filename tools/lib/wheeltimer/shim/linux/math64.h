/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* Userspace stand-in for <linux/math64.h>: 64-bit division is native. */
#ifndef _WHEELTIMER_LIB_SHIM_MATH64_H
#define _WHEELTIMER_LIB_SHIM_MATH64_H

#include <linux/types.h>

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#endif
