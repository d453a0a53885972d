/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * trace.h - the tracepoints of wheeltimer, in tracefs as events/wheeltimer/
 *
 *	wheeltimer_add		a timeout was added: its id, deadline, period,
 *				cookie
 *	wheeltimer_cancel	a timeout was cancelled: WT_STATUS_PENDING, or
 *				WT_STATUS_WITHDRAWN if its record was withdrawn
 *	wheeltimer_modify	a timeout was moved to a new deadline; status
 *				as cancel
 *	wheeltimer_expire	a timeout's record was queued: deadline,
 *				fired_at, and the lateness fired_at - deadline
 *	wheeltimer_deliver	read() copied a record out: overruns, and
 *				whether it was the timeout's last
 *	wheeltimer_hrtimer_program	the file's hrtimer was armed: the tick,
 *				and the host clock reading it expires at
 *
 * Every event names its file by @context, the number fdinfo shows as
 * context_id, and times are ns on the file's clock unless said otherwise.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM wheeltimer

#if !defined(_WHEELTIMER_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _WHEELTIMER_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(wheeltimer_add,
	TP_PROTO(u64 context, u64 id, u64 deadline, u64 period, u64 cookie),
	TP_ARGS(context, id, deadline, period, cookie),
	TP_STRUCT__entry(
		__field(u64, context)
		__field(u64, id)
		__field(u64, deadline)
		__field(u64, period)
		__field(u64, cookie)
	),
	TP_fast_assign(
		__entry->context = context;
		__entry->id = id;
		__entry->deadline = deadline;
		__entry->period = period;
		__entry->cookie = cookie;
	),
	TP_printk("context=%llu id=%#llx deadline=%llu period=%llu cookie=%#llx",
		  __entry->context, __entry->id, __entry->deadline,
		  __entry->period, __entry->cookie)
);

TRACE_EVENT(wheeltimer_cancel,
	TP_PROTO(u64 context, u64 id, u32 status),
	TP_ARGS(context, id, status),
	TP_STRUCT__entry(
		__field(u64, context)
		__field(u64, id)
		__field(u32, status)
	),
	TP_fast_assign(
		__entry->context = context;
		__entry->id = id;
		__entry->status = status;
	),
	TP_printk("context=%llu id=%#llx status=%s", __entry->context,
		  __entry->id, __print_symbolic(__entry->status,
						{ WT_STATUS_PENDING, "pending" },
						{ WT_STATUS_WITHDRAWN, "withdrawn" }))
);

TRACE_EVENT(wheeltimer_modify,
	TP_PROTO(u64 context, u64 id, u64 deadline, u32 status),
	TP_ARGS(context, id, deadline, status),
	TP_STRUCT__entry(
		__field(u64, context)
		__field(u64, id)
		__field(u64, deadline)
		__field(u32, status)
	),
	TP_fast_assign(
		__entry->context = context;
		__entry->id = id;
		__entry->deadline = deadline;
		__entry->status = status;
	),
	TP_printk("context=%llu id=%#llx deadline=%llu status=%s",
		  __entry->context, __entry->id, __entry->deadline,
		  __print_symbolic(__entry->status,
				   { WT_STATUS_PENDING, "pending" },
				   { WT_STATUS_WITHDRAWN, "withdrawn" }))
);

TRACE_EVENT(wheeltimer_expire,
	TP_PROTO(u64 context, u64 id, u64 deadline, u64 fired_at),
	TP_ARGS(context, id, deadline, fired_at),
	TP_STRUCT__entry(
		__field(u64, context)
		__field(u64, id)
		__field(u64, deadline)
		__field(u64, fired_at)
		__field(u64, lateness)
	),
	TP_fast_assign(
		__entry->context = context;
		__entry->id = id;
		__entry->deadline = deadline;
		__entry->fired_at = fired_at;
		__entry->lateness = fired_at - deadline;
	),
	TP_printk("context=%llu id=%#llx deadline=%llu fired_at=%llu lateness=%llu",
		  __entry->context, __entry->id, __entry->deadline,
		  __entry->fired_at, __entry->lateness)
);

TRACE_EVENT(wheeltimer_deliver,
	TP_PROTO(u64 context, u64 id, u64 overruns, bool final),
	TP_ARGS(context, id, overruns, final),
	TP_STRUCT__entry(
		__field(u64, context)
		__field(u64, id)
		__field(u64, overruns)
		__field(bool, final)
	),
	TP_fast_assign(
		__entry->context = context;
		__entry->id = id;
		__entry->overruns = overruns;
		__entry->final = final;
	),
	TP_printk("context=%llu id=%#llx overruns=%llu final=%d",
		  __entry->context, __entry->id, __entry->overruns,
		  __entry->final)
);

TRACE_EVENT(wheeltimer_hrtimer_program,
	TP_PROTO(u64 context, u64 tick, s64 expires),
	TP_ARGS(context, tick, expires),
	TP_STRUCT__entry(
		__field(u64, context)
		__field(u64, tick)
		__field(s64, expires)
	),
	TP_fast_assign(
		__entry->context = context;
		__entry->tick = tick;
		__entry->expires = expires;
	),
	TP_printk("context=%llu tick=%llu expires=%lld", __entry->context,
		  __entry->tick, __entry->expires)
);

#endif /* _WHEELTIMER_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
