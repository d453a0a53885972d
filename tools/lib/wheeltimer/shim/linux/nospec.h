/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/nospec.h>: a process's ids come from
 * itself, so array_index_nospec() clamps nothing. It runs
 * wheel_shim_nospec(), nothing unless the program defines it before
 * including this header (the store's test counts the clamps with it).
 */
#ifndef _WHEELTIMER_LIB_SHIM_NOSPEC_H
#define _WHEELTIMER_LIB_SHIM_NOSPEC_H

#ifndef wheel_shim_nospec
#define wheel_shim_nospec(index, size)	do { } while (0)
#endif

#define array_index_nospec(index, size) ({				\
	__typeof__(index) __wtl_i = (index);				\
	wheel_shim_nospec(__wtl_i, size);				\
	__wtl_i;							\
})

#endif
