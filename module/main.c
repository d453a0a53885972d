// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - /dev/wheeltimer, a misc device of mode 0666 (any local user may
 * open it, as any user may call timerfd_create()), init and exit
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "compat.h"
#include "ctx.h"
#include "store.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static struct miscdevice wheeltimer_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "wheeltimer",
	.fops		= &wt_fops,
	/* Meant for unprivileged programs, as timerfd is. */
	.mode		= 0666,
};

static int __init wheeltimer_init(void)
{
	int ret;

	BUILD_BUG_ON(WT_OPS_CHUNK < 1 || WT_OPS_CHUNK > WT_READ_BATCH);

	ret = wt_store_create_caches();
	if (ret)
		return ret;
	ret = wt_limits_init();
	if (ret)
		goto err_caches;
	ret = misc_register(&wheeltimer_misc);
	if (ret)
		goto err_limits;
	return 0;

err_limits:
	wt_limits_exit();
err_caches:
	wt_store_destroy_caches();
	return ret;
}

static void __exit wheeltimer_exit(void)
{
	misc_deregister(&wheeltimer_misc);
	wt_limits_exit();
	wt_store_destroy_caches();
}

module_init(wheeltimer_init);
module_exit(wheeltimer_exit);

MODULE_DESCRIPTION("Tickless hierarchical timing wheel behind /dev/wheeltimer");
MODULE_LICENSE("GPL");
#ifdef WT_VERSION
MODULE_VERSION(WT_VERSION);
#endif
