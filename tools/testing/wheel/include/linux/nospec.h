/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/nospec.h> for the test programs: libwheeltimer's stand-in, with
 * every array_index_nospec() counted in wheel_shim_nospec_calls (defined by
 * the test program), so that a test can check that an index from userspace
 * goes through it; and the bound its caller checked is checked again.
 */
#ifndef _WHEEL_SHIM_LINUX_NOSPEC_H
#define _WHEEL_SHIM_LINUX_NOSPEC_H

#include <assert.h>

extern unsigned long long wheel_shim_nospec_calls;

#define wheel_shim_nospec(index, size)	do {			\
		wheel_shim_nospec_calls++;				\
		assert((index) < (size));				\
	} while (0)

#include_next <linux/nospec.h>

#endif
