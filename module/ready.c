// SPDX-License-Identifier: GPL-2.0
/*
 * ready.c - the records of a wheeltimer file, from the ready list to read()
 *
 * A timeout that comes due moves from the wheel to the file's ready list
 * (the same memory serves both) and stays there until read() or a CANCEL
 * takes it: a timeout is in the wheel or on the ready list, never both, so
 * there is at most one record per timeout and a slow reader costs no
 * wake-ups. read() describes the records at the head of the list, copies
 * them out, and only then takes off the ones that were copied whole: a
 * record is consumed exactly when userspace got it, and one that was not
 * never left the list, where poll() and other readers still see it.
 *
 * Periodic timeouts go on when their record is read: WT_FIXED_RATE at the
 * first deadline + k * period after the read (k - 1 overruns), as timerfd
 * counts them; WT_FIXED_DELAY one period after the read. A one-shot
 * timeout, or a periodic one whose next deadline is past the last tick,
 * gives its id back with its last record (WT_EVENT_FINAL).
 */
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/uio.h>

#include "ctx.h"
#include "trace.h"

/*
 * The ready list is an hlist used as a FIFO through its tail pointer: an
 * hlist's links are not checked by CONFIG_DEBUG_LIST, whose out-of-line
 * checks would cost a record two calls on Debian's kernels (see wheel.c).
 */
void wt_ready_append(struct wt_ctx *ctx, struct wt_timer *t)
{
	lockdep_assert_held(&ctx->mutex);
	if (ctx->ready_tail)
		hlist_add_behind(&t->ready.link, ctx->ready_tail);
	else
		hlist_add_head(&t->ready.link, &ctx->ready);
	ctx->ready_tail = &t->ready.link;
	WRITE_ONCE(ctx->nr_ready, ctx->nr_ready + 1);
}

void wt_ready_del(struct wt_ctx *ctx, struct wt_timer *t)
{
	struct hlist_node *node = &t->ready.link;

	lockdep_assert_held(&ctx->mutex);
	if (ctx->ready_tail == node)
		ctx->ready_tail = node->pprev == &ctx->ready.first ? NULL :
				  container_of(node->pprev, struct hlist_node, next);
	hlist_del(node);
	/* The same memory serves the wheel next: an entry out of any list. */
	wt_wheel_entry_init(&t->entry);
	WRITE_ONCE(ctx->nr_ready, ctx->nr_ready - 1);
	/* A backlog behind the records may need the hrtimer now. */
	if (!ctx->nr_ready)
		ctx->reprogram = true;
}

/*
 * Describe a ready timeout in @ev and decide what becomes of it once the
 * record is read at @now: the id is released (WT_EVENT_FINAL) or the
 * timeout goes on at *@next.
 */
static void wt_describe(const struct wt_ctx *ctx, const struct wt_timer *t,
			u64 now, struct wt_event *ev, u64 *next)
{
	u64 period, overruns = 0;

	ev->id = wt_timer_id(t);
	ev->cookie = t->cookie;
	ev->deadline = t->deadline;
	ev->fired_at = t->ready.fired_at;
	ev->flags = wt_kind_flags(t);
	*next = 0;

	switch (t->kind) {
	case WT_KIND_FIXED_RATE:
		period = wt_timer_period(t)->period;
		if (now > t->deadline)
			overruns = div64_u64(now - t->deadline, period);
		/* deadline + (overruns + 1) * period, if a timeout may have it */
		if (overruns < div64_u64(ctx->max_deadline - t->deadline, period))
			*next = t->deadline + (overruns + 1) * period;
		break;
	case WT_KIND_FIXED_DELAY:
		period = wt_timer_period(t)->period;
		if (now <= ctx->max_deadline && period <= ctx->max_deadline - now)
			*next = now + period;
		break;
	default:
		break;
	}
	ev->overruns = overruns;
	if (!*next)
		ev->flags |= WT_EVENT_FINAL;
}

/**
 * wt_read_records() - copy out the records at the head of the ready list
 * @ctx: the context; caller holds its mutex
 * @to: where to; takes as many whole records as fit, up to WT_READ_BATCH
 * @fault: set when the copy stopped short of what was ready and fitted
 *
 * Collects what is due first if fewer records are ready than fit. The
 * records copied whole are consumed; the rest stay queued as they were.
 *
 * Return: the bytes copied (whole records), 0 if none was ready, or
 * -EFAULT if not even the first could be copied.
 */
ssize_t wt_read_records(struct wt_ctx *ctx, struct iov_iter *to, bool *fault)
{
	struct wt_event *ev = ctx->scratch.events;
	unsigned int room, n = 0, copied, i;
	struct wt_timer *t;
	size_t bytes;
	u64 now;

	lockdep_assert_held(&ctx->mutex);
	room = min_t(size_t, iov_iter_count(to) / sizeof(*ev), WT_READ_BATCH);
	if (ctx->nr_ready < room)
		wt_collect(ctx, room);

	now = wt_now(ctx);
	hlist_for_each_entry(t, &ctx->ready, ready.link) {
		if (n == room)
			break;
		wt_describe(ctx, t, now, &ev[n], &ctx->taken[n].next);
		ctx->taken[n++].timer = t;
	}
	if (!n)
		goto out;

	bytes = copy_to_iter(ev, n * sizeof(*ev), to);
	copied = bytes / sizeof(*ev);
	/* Give back the part of a record that was not copied whole. */
	iov_iter_revert(to, bytes % sizeof(*ev));
	*fault = copied < n;

	for (i = 0; i < copied; i++) {
		t = ctx->taken[i].timer;
		wt_ready_del(ctx, t);
		wt_count(ctx, delivered, 1);
		wt_count(ctx, overruns, ev[i].overruns);
		trace_wheeltimer_deliver(ctx->context_id, ev[i].id,
					 ev[i].overruns,
					 ev[i].flags & WT_EVENT_FINAL);
		if (ev[i].flags & WT_EVENT_FINAL) {
			wt_store_put(&ctx->store, t);
			continue;
		}
		t->deadline = ctx->taken[i].next;
		wt_queue(ctx, t, wt_tick(ctx, t->deadline,
					 wt_timer_period(t)->slack));
	}
	wt_trim(ctx);
out:
	if (ctx->reprogram)
		wt_program(ctx);
	if (n && !copied)
		return -EFAULT;
	return copied * sizeof(*ev);
}
