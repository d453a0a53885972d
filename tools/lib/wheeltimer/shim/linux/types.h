/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/types.h>, for module/wheel.c in
 * libwheeltimer's in-process engine and in the wheel's tests: the system's
 * uapi header (libc headers may include it too), the kernel's integer types
 * the wheel uses and struct list_head.
 */
#ifndef _WHEELTIMER_LIB_SHIM_TYPES_H
#define _WHEELTIMER_LIB_SHIM_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t u32;
typedef uint64_t u64;

struct list_head {
	struct list_head *next, *prev;
};

#endif
