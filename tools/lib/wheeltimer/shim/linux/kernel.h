/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/kernel.h>: the uapi header of that name,
 * which libc headers may include, and what module/ uses of the kernel's.
 */
#ifndef _WHEELTIMER_LIB_SHIM_KERNEL_H
#define _WHEELTIMER_LIB_SHIM_KERNEL_H

#include_next <linux/kernel.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/types.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))
#endif
#define lower_32_bits(n)	((u32)((n) & 0xffffffff))
#define upper_32_bits(n)	((u32)((u64)(n) >> 32))

#endif
