/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/bug.h>, for module/wheel.c in
 * libwheeltimer's in-process engine and in the wheel's tests, and for the
 * engine itself.
 *
 * A WARN_ON_ONCE() that fires calls wheel_shim_on_warn(file, line, cond).
 * In the library that counts it (the "lib_warnings" counter of
 * wheeltimer_stat()) rather than printing it or stopping: it is a bug in
 * the wheel or in the engine, and the library's tests fail on it. A program
 * that wants another handler (the wheel's tests report to theirs) defines
 * wheel_shim_on_warn() before including this header.
 */
#ifndef _WHEELTIMER_LIB_SHIM_BUG_H
#define _WHEELTIMER_LIB_SHIM_BUG_H

#include <assert.h>

#ifndef wheel_shim_on_warn
void wtl_warn(const char *file, int line);
#define wheel_shim_on_warn(file, line, cond)	wtl_warn(file, line)
#endif

#define BUILD_BUG_ON(cond)	static_assert(!(cond), #cond)

#define WARN_ON_ONCE(cond) ({						\
	int __wtl_warned = !!(cond);					\
	if (__builtin_expect(__wtl_warned, 0))				\
		wheel_shim_on_warn(__FILE__, __LINE__, #cond);		\
	__wtl_warned;							\
})

#endif
