/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/eventfd.h>: only what module/compat.h's
 * inline wrappers name, so that files including compat.h compile. Nothing
 * tested here signals an eventfd.
 */
#ifndef _WHEELTIMER_LIB_SHIM_EVENTFD_H
#define _WHEELTIMER_LIB_SHIM_EVENTFD_H

struct eventfd_ctx;

static inline void eventfd_signal(struct eventfd_ctx *ctx, int n)
{
	(void)ctx;
	(void)n;
}

#endif
