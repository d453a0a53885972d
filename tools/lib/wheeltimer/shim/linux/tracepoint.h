/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/tracepoint.h>: module/trace.h's events
 * become functions that do nothing, as the kernel makes them when it is
 * built without tracepoints.
 */
#ifndef _WHEELTIMER_LIB_SHIM_TRACEPOINT_H
#define _WHEELTIMER_LIB_SHIM_TRACEPOINT_H

#define TP_PROTO(args...)	args
#define TP_ARGS(args...)	args
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)		\
	_Pragma("GCC diagnostic push")					\
	_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")	\
	static inline void trace_##name(proto)				\
	{								\
	}								\
	_Pragma("GCC diagnostic pop")

#endif
