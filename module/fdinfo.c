// SPDX-License-Identifier: GPL-2.0
/*
 * fdinfo.c - a wheeltimer file's counters, in text for /proc/PID/fdinfo
 * and in binary for WT_IOC_STATS
 *
 * One "key:\tvalue" line per item, the keys listed in wheeltimer(4) and
 * stable. fdinfo takes no lock that userspace can hold: anyone who may
 * read it (wheelctl ls, an administrator) must not be stalled by a file
 * whose owner keeps it busy. So it reads a snapshot of the counters with
 * READ_ONCE(), consistent field by field rather than as a whole, and the
 * configuration and the hrtimer's state under the waitqueue's lock, which
 * WT_IOC_SET_CONFIG holds to change them (ctx.h). WT_IOC_STATS fills in
 * the same counters, under the mutex, so that they are consistent.
 */
#include <linux/bitops.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

#include "ctx.h"
#include "user.h"

/* The counters of @ctx, as WT_IOC_STATS returns them; @size is not set. */
void wt_stats_fill(struct wt_ctx *ctx, struct wt_stats *st)
{
	wt_core_stats(&ctx->core, st);
	spin_lock_irq(&ctx->wqh.lock);
	st->hrtimer_expiries = ctx->expiries;
	spin_unlock_irq(&ctx->wqh.lock);
	st->user_timeouts = wt_user_bytes(ctx->user) / PAGE_SIZE *
			    WT_BLOCK_TIMERS;
}

#ifdef CONFIG_PROC_FS
#define WT_SHOW(m, key, val) \
	seq_printf(m, "%s:\t%llu\n", key, (unsigned long long)(val))

void wt_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct wt_ctx *ctx = file->private_data;
	const struct wt_core *core = &ctx->core;
	u64 resolution, max_pending, now, armed;
	bool eventfd, virtual;
	struct wt_stats st;
	clockid_t clockid;
	unsigned int l;

	wt_stats_fill(ctx, &st);
	/* One configuration whole, and the hrtimer as it was set up for it. */
	spin_lock_irq(&ctx->wqh.lock);
	clockid = core->clockid;
	virtual = wt_core_is_virtual(core);
	resolution = core->resolution;
	max_pending = core->max_pending;
	now = wt_core_now(core);
	/* Once it has expired, it is armed for nothing until re-armed. */
	armed = READ_ONCE(core->armed);
	if (!hrtimer_is_queued(&ctx->timer))
		armed = WT_UNARMED;
	eventfd = ctx->eventfd;
	spin_unlock_irq(&ctx->wqh.lock);

	WT_SHOW(m, "context_id", st.context_id);
	seq_printf(m, "clockid:\t%d\n", clockid);
	seq_printf(m, "virtual:\t%d\n", virtual);
	WT_SHOW(m, "resolution_ns", resolution);
	WT_SHOW(m, "max_pending", max_pending);
	WT_SHOW(m, "now_ns", now);
	WT_SHOW(m, "clk", READ_ONCE(core->wheel.clk));
	WT_SHOW(m, "live", st.live);
	WT_SHOW(m, "pending", st.pending);
	seq_puts(m, "slots_occupied:");
	for (l = 0; l < WHEEL_LEVELS; l++)
		seq_printf(m, "\t%u",
			   (unsigned int)hweight64(READ_ONCE(core->wheel.occupied[l])));
	seq_putc(m, '\n');
	WT_SHOW(m, "ready", st.ready);
	WT_SHOW(m, "added", st.added);
	WT_SHOW(m, "modified", st.modified);
	WT_SHOW(m, "fired", st.fired);
	WT_SHOW(m, "delivered", st.delivered);
	WT_SHOW(m, "cancelled", st.cancelled);
	WT_SHOW(m, "withdrawn", st.withdrawn);
	WT_SHOW(m, "overruns", st.overruns);
	WT_SHOW(m, "hrtimer_programs", st.hrtimer_programs);
	WT_SHOW(m, "hrtimer_expiries", st.hrtimer_expiries);
	if (armed == WT_UNARMED)
		seq_puts(m, "hrtimer_armed_tick:\t-\n");
	else
		WT_SHOW(m, "hrtimer_armed_tick", armed);
	WT_SHOW(m, "rewinds", st.rewinds);
	WT_SHOW(m, "timer_blocks", st.timer_blocks);
	WT_SHOW(m, "timers_per_block", WT_BLOCK_TIMERS);
	WT_SHOW(m, "user_timeouts", st.user_timeouts);
	seq_printf(m, "eventfd:\t%d\n", eventfd);
}
#endif
