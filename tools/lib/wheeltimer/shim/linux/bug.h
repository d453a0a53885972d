/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/bug.h>, for libwheeltimer's in-process
 * engine. A WARN_ON_ONCE() that fires is a bug in the wheel or in the
 * engine: it is counted (the "lib_warnings" counter of wheeltimer_stat())
 * rather than printed or fatal, and the library's tests fail on it.
 */
#ifndef _WHEELTIMER_LIB_SHIM_BUG_H
#define _WHEELTIMER_LIB_SHIM_BUG_H

void wtl_warn(const char *file, int line);

#define WARN_ON_ONCE(cond) ({						\
	int __wtl_warned = !!(cond);					\
	if (__builtin_expect(__wtl_warned, 0))				\
		wtl_warn(__FILE__, __LINE__);				\
	__wtl_warned;							\
})

#endif
