/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/minmax.h>, for module/wheel.c in
 * libwheeltimer's in-process engine and in the wheel's tests: each argument
 * is evaluated once, and, as in the kernel, the compiler complains when
 * their types differ.
 */
#ifndef _WHEELTIMER_LIB_SHIM_MINMAX_H
#define _WHEELTIMER_LIB_SHIM_MINMAX_H

#define __wtl_cmp(x, y, op) ({						\
	__typeof__(x) __x = (x);					\
	__typeof__(y) __y = (y);					\
	(void)(&__x == &__y);						\
	__x op __y ? __x : __y;						\
})

#define min(x, y)	__wtl_cmp(x, y, <)
#define max(x, y)	__wtl_cmp(x, y, >)
#define min_t(type, x, y)	min((type)(x), (type)(y))

#endif
