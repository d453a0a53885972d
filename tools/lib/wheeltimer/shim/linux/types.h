/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/types.h>, for module/wheel.c compiled into
 * libwheeltimer's in-process engine: the system's uapi header (libc headers
 * may include it too), the kernel's short integer types and the list
 * structs (hlist for the 7-level wheel, list_head for the 11-level one).
 */
#ifndef _WHEELTIMER_LIB_SHIM_TYPES_H
#define _WHEELTIMER_LIB_SHIM_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t u32;
typedef uint64_t u64;

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct list_head {
	struct list_head *next, *prev;
};

#endif
