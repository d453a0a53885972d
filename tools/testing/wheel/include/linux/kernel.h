/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/kernel.h>: the uapi header of that name,
 * which libc headers may include, plus what the test programs use.
 */
#ifndef _WHEEL_SHIM_LINUX_KERNEL_H
#define _WHEEL_SHIM_LINUX_KERNEL_H

#include_next <linux/kernel.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/types.h>

#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))
#define lower_32_bits(n)	((u32)((n) & 0xffffffff))
#define upper_32_bits(n)	((u32)((u64)(n) >> 32))

#endif
