/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the attribute macros of <linux/compiler.h>, for
 * the test programs. (checkpatch asks for these very macros in place of
 * the attributes they are defined as.)
 */
#ifndef _WHEEL_SHIM_LINUX_COMPILER_H
#define _WHEEL_SHIM_LINUX_COMPILER_H

#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define __noreturn		__attribute__((noreturn))

/* The tests run one thread: a plain access is all it takes. */
#define READ_ONCE(x)		(x)
#define WRITE_ONCE(x, val)	((x) = (val))

#endif
