// SPDX-License-Identifier: GPL-2.0
/*
 * fdinfo.c - what /proc/PID/fdinfo/FD shows of a wheeltimer file
 *
 * One "key:\tvalue" line per item, the keys listed in wheeltimer(4). It
 * takes no lock that userspace can hold: anyone who may read the fdinfo
 * (wheelctl ls, an administrator) must not be stalled by a file whose
 * owner keeps it busy. So it reads a snapshot of the counters with
 * READ_ONCE(), consistent field by field rather than as a whole, and the
 * configuration, which only changes in an empty file.
 */
#include <linux/bitops.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

#include "ctx.h"
#include "user.h"

#define WT_SHOW(m, key, val) \
	seq_printf(m, "%s:\t%llu\n", key, (unsigned long long)(val))

void wt_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct wt_ctx *ctx = file->private_data;
	u64 armed, expiries;
	unsigned int l;
	bool eventfd;

	spin_lock_irq(&ctx->wqh.lock);
	expiries = ctx->expiries;
	eventfd = ctx->eventfd;
	spin_unlock_irq(&ctx->wqh.lock);

	seq_printf(m, "clockid:\t%d\n", ctx->clockid);
	seq_printf(m, "virtual:\t%d\n", wt_is_virtual(ctx));
	WT_SHOW(m, "resolution_ns", ctx->resolution);
	WT_SHOW(m, "max_pending", ctx->max_pending);
	WT_SHOW(m, "now_ns", wt_now(ctx));
	WT_SHOW(m, "clk", READ_ONCE(ctx->wheel.clk));
	WT_SHOW(m, "live", READ_ONCE(ctx->store.nr_live));
	WT_SHOW(m, "pending", READ_ONCE(ctx->wheel.count));
	seq_puts(m, "slots_occupied:");
	for (l = 0; l < WHEEL_LEVELS; l++)
		seq_printf(m, "\t%u",
			   (unsigned int)hweight64(READ_ONCE(ctx->wheel.occupied[l])));
	seq_putc(m, '\n');
	WT_SHOW(m, "ready", READ_ONCE(ctx->nr_ready));
	WT_SHOW(m, "added", READ_ONCE(ctx->stats.added));
	WT_SHOW(m, "modified", READ_ONCE(ctx->stats.modified));
	WT_SHOW(m, "fired", READ_ONCE(ctx->stats.fired));
	WT_SHOW(m, "delivered", READ_ONCE(ctx->stats.delivered));
	WT_SHOW(m, "cancelled", READ_ONCE(ctx->stats.cancelled));
	WT_SHOW(m, "withdrawn", READ_ONCE(ctx->stats.withdrawn));
	WT_SHOW(m, "overruns", READ_ONCE(ctx->stats.overruns));
	WT_SHOW(m, "hrtimer_programs", READ_ONCE(ctx->stats.programs));
	WT_SHOW(m, "hrtimer_expiries", expiries);
	/* Once it has expired, it is armed for nothing until re-armed. */
	armed = READ_ONCE(ctx->armed);
	if (armed == WT_UNARMED || !hrtimer_is_queued(&ctx->timer))
		seq_puts(m, "hrtimer_armed_tick:\t-\n");
	else
		WT_SHOW(m, "hrtimer_armed_tick", armed);
	WT_SHOW(m, "rewinds", READ_ONCE(ctx->stats.rewinds));
	WT_SHOW(m, "timer_blocks", READ_ONCE(ctx->store.nr_blocks));
	WT_SHOW(m, "timers_per_block", WT_BLOCK_TIMERS);
	WT_SHOW(m, "user_timeouts",
		wt_user_bytes(ctx->user) / PAGE_SIZE * WT_BLOCK_TIMERS);
	seq_printf(m, "eventfd:\t%d\n", eventfd);
}
