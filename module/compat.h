/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the kernel interfaces wheeltimer uses that changed after 6.1
 *
 * Everything that depends on the kernel version lives here, so that a new
 * kernel needs changes in this file only. The version decides: the module
 * is built for Debian's kernels, which carry none of these changes back.
 */
#ifndef _WHEELTIMER_COMPAT_H
#define _WHEELTIMER_COMPAT_H

#include <linux/eventfd.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/version.h>

/* 6.8 dropped the count argument: a signal always adds one. */
static inline void wt_eventfd_signal(struct eventfd_ctx *ctx)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

/* 6.13 added hrtimer_setup(); 6.15 removed hrtimer_init(). */
static inline void wt_hrtimer_setup(struct hrtimer *timer,
				    enum hrtimer_restart (*fn)(struct hrtimer *),
				    clockid_t clock_id, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock_id, mode);
#else
	hrtimer_init(timer, clock_id, mode);
	timer->function = fn;
#endif
}

/*
 * 6.5 added SLAB_NO_MERGE. Without it (6.1), SLUB may merge our caches
 * with others of the same size and flags, and /proc/slabinfo then shows
 * them under the other cache's name; boot with slab_nomerge to see them.
 */
#ifdef SLAB_NO_MERGE
#define WT_SLAB_NO_MERGE	SLAB_NO_MERGE
#else
#define WT_SLAB_NO_MERGE	0
#endif

/* 6.11 made the table a sysctl's handler is given const. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define wt_ctl_table		const struct ctl_table
#else
#define wt_ctl_table		struct ctl_table
#endif

/*
 * Until 6.6 register_sysctl() took a table ended by an empty entry; since,
 * it counts the entries of the array, and 6.12 refuses an empty one.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define WT_SYSCTL_END
#else
#define WT_SYSCTL_END		{ }
#endif

#endif /* _WHEELTIMER_COMPAT_H */
