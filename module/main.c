// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the wheeltimer module: its parameters, /dev/wheeltimer, init
 * and exit
 *
 * The device is mode 0666: any local user may open it, as any user may
 * call timerfd_create(). What one user's files may hold is bounded by the
 * parameters below, each checked when it is written (a bad value fails the
 * write and changes nothing) and once more, together, at load:
 *
 *	max_pending		a new file's max_pending, and the most a
 *				file opened without CAP_SYS_RESOURCE may ask
 *	max_pending_limit	the most any file may ask
 *	max_user_timeouts	the storage all the files of one user may
 *				hold together, in timeouts (user.h); by
 *				default 4% of RAM, as epoll's
 *				max_user_watches
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "ctx.h"
#include "store.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/* Keep a user's limit in bytes within a long. */
#define WT_USER_CEILING		(LONG_MAX / PAGE_SIZE * WT_BLOCK_TIMERS)

static unsigned long max_pending = 1UL << 20;
static unsigned long max_pending_limit = 1UL << 24;
/* 0 until init sizes it from the memory, unless given at load. */
static unsigned long max_user_timeouts;
/* Set once init has checked the parameters together. */
static bool wt_params_live;

static int wt_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned long v, *p = kp->arg;
	int ret;

	ret = kstrtoul(val, 0, &v);
	if (ret)
		return ret;
	if (p == &max_pending)
		ret = v && (!wt_params_live || v <= max_pending_limit);
	else if (p == &max_pending_limit)
		ret = v <= WT_PENDING_CEILING &&
		      (!wt_params_live || v >= max_pending);
	else
		ret = v && v <= WT_USER_CEILING;
	if (!ret)
		return -EINVAL;
	/* Writers are serialized by the module's parameter lock. */
	WRITE_ONCE(*p, v);
	return 0;
}

static const struct kernel_param_ops wt_param_ops = {
	.set = wt_param_set,
	.get = param_get_ulong,
};

module_param_cb(max_pending, &wt_param_ops, &max_pending, 0644);
MODULE_PARM_DESC(max_pending,
		 "Timeouts a new file may hold, and the most it may ask for without CAP_SYS_RESOURCE (default 1048576)");
module_param_cb(max_pending_limit, &wt_param_ops, &max_pending_limit, 0644);
MODULE_PARM_DESC(max_pending_limit,
		 "The most timeouts any file may ask for (default 16777216)");
module_param_cb(max_user_timeouts, &wt_param_ops, &max_user_timeouts, 0644);
MODULE_PARM_DESC(max_user_timeouts,
		 "The storage all the files of one user may hold, in timeouts (default: 4% of RAM)");

unsigned long wt_pending_limit(void)
{
	return READ_ONCE(max_pending_limit);
}

unsigned long wt_pending_default(void)
{
	return READ_ONCE(max_pending);
}

/* The user's limit as memory: whole pages of WT_BLOCK_TIMERS timeouts. */
unsigned long wt_user_limit_bytes(void)
{
	return DIV_ROUND_UP(READ_ONCE(max_user_timeouts), WT_BLOCK_TIMERS) *
	       PAGE_SIZE;
}

/*
 * A fixed minor, so that depmod can record the node in modules.devname and
 * the system create it before the module is loaded; opening it then loads
 * the module, as for /dev/fuse. Documentation/admin-guide/devices.txt keeps
 * misc minors 243 to 254 for local use: this module, being out of tree,
 * takes one of those.
 */
#define WHEELTIMER_MINOR	250

static struct miscdevice wheeltimer_misc = {
	.minor		= WHEELTIMER_MINOR,
	.name		= "wheeltimer",
	.fops		= &wt_fops,
	/* Meant for unprivileged programs, as timerfd is. */
	.mode		= 0666,
};

static int __init wheeltimer_init(void)
{
	int ret;

	BUILD_BUG_ON(WT_OPS_CHUNK < 1 || WT_OPS_CHUNK > WT_READ_BATCH);

	/* As epoll sizes max_user_watches: 4% of the memory. */
	if (!max_user_timeouts)
		max_user_timeouts = min(totalram_pages() / 25 * WT_BLOCK_TIMERS,
					WT_USER_CEILING);
	if (max_pending > max_pending_limit) {
		pr_err("need max_pending <= max_pending_limit\n");
		return -EINVAL;
	}
	wt_params_live = true;
	ret = wt_store_create_caches();
	if (ret)
		return ret;
	ret = misc_register(&wheeltimer_misc);
	if (ret) {
		if (ret == -EBUSY)
			pr_err("misc minor %d is taken by another driver\n",
			       WHEELTIMER_MINOR);
		wt_store_destroy_caches();
	}
	return ret;
}

static void __exit wheeltimer_exit(void)
{
	misc_deregister(&wheeltimer_misc);
	wt_store_destroy_caches();
}

module_init(wheeltimer_init);
module_exit(wheeltimer_exit);

MODULE_DESCRIPTION("Tickless hierarchical timing wheel behind /dev/wheeltimer");
MODULE_LICENSE("GPL");
#ifdef WT_VERSION
MODULE_VERSION(WT_VERSION);
#endif
/* The first open() of the node made from modules.devname loads it. */
MODULE_ALIAS_MISCDEV(WHEELTIMER_MINOR);
MODULE_ALIAS("devname:wheeltimer");
