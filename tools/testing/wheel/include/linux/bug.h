/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/bug.h>.
 *
 * Unlike the kernel's, WARN_ON_ONCE() here reports every time it fires, to
 * a hook the test program defines: a test can then count the warnings it
 * provokes on purpose, and the model test and the fuzzer abort on any.
 */
#ifndef _WHEEL_SHIM_LINUX_BUG_H
#define _WHEEL_SHIM_LINUX_BUG_H

#include <assert.h>

void wheel_shim_warn(const char *file, int line, const char *cond);

#define WARN_ON(cond) ({						\
	int __ret_warn = !!(cond);					\
	if (__builtin_expect(__ret_warn, 0))				\
		wheel_shim_warn(__FILE__, __LINE__, #cond);		\
	__ret_warn;							\
})

#define WARN_ON_ONCE(cond)	WARN_ON(cond)

#define BUILD_BUG_ON(cond)	static_assert(!(cond), #cond)

#endif
