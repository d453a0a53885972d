/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <trace/define_trace.h>: there are no tracepoints
 * to define (see <linux/tracepoint.h>).
 */
