/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/compiler.h>: the attribute macros and the
 * one-time accesses module/ uses. A context of the library is used by one
 * thread at a time, and nothing reads a core from another: a plain access
 * is all READ_ONCE() and WRITE_ONCE() take here. (checkpatch asks for these
 * very macros in place of the attributes they are defined as.)
 */
#ifndef _WHEELTIMER_LIB_SHIM_COMPILER_H
#define _WHEELTIMER_LIB_SHIM_COMPILER_H

#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define __noreturn		__attribute__((noreturn))

#define READ_ONCE(x)		(x)
#define WRITE_ONCE(x, val)	((x) = (val))

#endif
