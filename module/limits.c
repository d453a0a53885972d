// SPDX-License-Identifier: GPL-2.0
/*
 * limits.c - what one user's files may hold: the limits in
 * /proc/sys/dev/wheeltimer/
 *
 * The device is mode 0666: any local user may open it, as any user may
 * call timerfd_create(). What one user's files may hold is bounded by the
 * limits below, which an administrator sets as sysctls, as epoll's
 * fs.epoll.max_user_watches; each is checked, against the others too, when
 * it is written, and a write that fails changes nothing:
 *
 *	max_pending		a new file's max_pending, and the most a
 *				file opened without CAP_SYS_RESOURCE may ask
 *	max_pending_limit	the most any file may ask
 *	max_user_timeouts	the storage all the files of one user may
 *				hold together, in timeouts (user.h); by
 *				default 4% of RAM, as max_user_watches
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sysctl.h>

#include "compat.h"
#include "ctx.h"
#include "store.h"

/* Keep a user's limit in bytes within a long. */
#define WT_USER_CEILING		(LONG_MAX / PAGE_SIZE * WT_BLOCK_TIMERS)

static unsigned long max_pending = 1UL << 20;
static unsigned long max_pending_limit = 1UL << 24;
/* Sized from the memory at init. */
static unsigned long max_user_timeouts;

/* Serializes the writers of the limits, which are checked together. */
static DEFINE_MUTEX(wt_limits_lock);

static bool wt_limit_valid(const unsigned long *p, unsigned long v)
{
	lockdep_assert_held(&wt_limits_lock);
	if (p == &max_pending)
		return v && v <= max_pending_limit;
	if (p == &max_pending_limit)
		return v <= WT_PENDING_CEILING && v >= max_pending;
	return v && v <= WT_USER_CEILING;
}

/* Parses into a copy, so that a value refused leaves the limit as it was. */
static int wt_limit_handler(wt_ctl_table *table, int write,
			    void *buffer, size_t *lenp, loff_t *ppos)
{
	unsigned long *p = table->data, v;
	struct ctl_table copy = *table;
	int ret;

	copy.data = &v;
	mutex_lock(&wt_limits_lock);
	v = *p;
	ret = proc_doulongvec_minmax(&copy, write, buffer, lenp, ppos);
	if (!ret && write) {
		if (wt_limit_valid(p, v))
			WRITE_ONCE(*p, v);
		else
			ret = -EINVAL;
	}
	mutex_unlock(&wt_limits_lock);
	return ret;
}

static struct ctl_table wt_sysctls[] = {
	{
		.procname	= "max_pending",
		.data		= &max_pending,
		.maxlen		= sizeof(max_pending),
		.mode		= 0644,
		.proc_handler	= wt_limit_handler,
	},
	{
		.procname	= "max_pending_limit",
		.data		= &max_pending_limit,
		.maxlen		= sizeof(max_pending_limit),
		.mode		= 0644,
		.proc_handler	= wt_limit_handler,
	},
	{
		.procname	= "max_user_timeouts",
		.data		= &max_user_timeouts,
		.maxlen		= sizeof(max_user_timeouts),
		.mode		= 0644,
		.proc_handler	= wt_limit_handler,
	},
	WT_SYSCTL_END
};

static struct ctl_table_header *wt_sysctl_header;

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

/* Sizes max_user_timeouts from the memory, and registers the sysctls. */
int __init wt_limits_init(void)
{
	/* As epoll sizes max_user_watches: 4% of the memory. */
	max_user_timeouts = min(totalram_pages() / 25 * WT_BLOCK_TIMERS,
				WT_USER_CEILING);
	wt_sysctl_header = register_sysctl("dev/wheeltimer", wt_sysctls);
	if (IS_ENABLED(CONFIG_SYSCTL) && !wt_sysctl_header)
		return -ENOMEM;
	return 0;
}

void wt_limits_exit(void)
{
	unregister_sysctl_table(wt_sysctl_header);
}
