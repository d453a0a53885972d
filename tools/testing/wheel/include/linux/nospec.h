/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/nospec.h>: array_index_nospec() clamps
 * nothing here (there is no speculation to stop in a test), but it counts
 * its calls, so that a test can check that an index from userspace goes
 * through it, and it checks the bound its caller has checked already.
 */
#ifndef _WHEEL_SHIM_LINUX_NOSPEC_H
#define _WHEEL_SHIM_LINUX_NOSPEC_H

#include <assert.h>

extern unsigned long long wheel_shim_nospec_calls;

#define array_index_nospec(index, size)					\
	({								\
		__typeof__(index) __i = (index);			\
		wheel_shim_nospec_calls++;				\
		assert(__i < (size));					\
		__i;							\
	})

#endif
