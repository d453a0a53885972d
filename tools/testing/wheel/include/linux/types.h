/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/types.h> for the test programs: libwheeltimer's stand-in (the
 * uapi header, u32, u64, struct list_head), plus the narrower types that
 * module/store.h and the model name, and the hlist node that store.h's
 * timer links its file's ready list with.
 */
#ifndef _WHEEL_SHIM_LINUX_TYPES_H
#define _WHEEL_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;

struct hlist_node {
	struct hlist_node *next, **pprev;
};

#endif
