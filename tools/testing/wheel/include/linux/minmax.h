/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/minmax.h>: min() and max() evaluate each
 * argument once and, as in the kernel, complain when the types differ.
 */
#ifndef _WHEEL_SHIM_LINUX_MINMAX_H
#define _WHEEL_SHIM_LINUX_MINMAX_H

#define __wheel_cmp(x, y, op) ({					\
	__typeof__(x) __x = (x);					\
	__typeof__(y) __y = (y);					\
	(void)(&__x == &__y);						\
	__x op __y ? __x : __y;						\
})

#define min(x, y)	__wheel_cmp(x, y, <)
#define max(x, y)	__wheel_cmp(x, y, >)

#endif
