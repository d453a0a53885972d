/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/types.h>, for module/core.c, store.c and
 * wheel.c in libwheeltimer's in-process engine and in the wheel's tests:
 * the system's uapi header (libc headers may include it too), the kernel's
 * integer types, and the list heads.
 */
#ifndef _WHEELTIMER_LIB_SHIM_TYPES_H
#define _WHEELTIMER_LIB_SHIM_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

#endif
