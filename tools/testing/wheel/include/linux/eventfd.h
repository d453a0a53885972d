/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/eventfd.h>: only what module/compat.h's
 * inline wrappers name, so that files including compat.h compile. Nothing
 * tested here signals an eventfd.
 */
#ifndef _WHEEL_SHIM_LINUX_EVENTFD_H
#define _WHEEL_SHIM_LINUX_EVENTFD_H

struct eventfd_ctx;

static inline void eventfd_signal(struct eventfd_ctx *ctx, int n)
{
	(void)ctx;
	(void)n;
}

#endif
