/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/sched/signal.h>: a fatal signal ends the
 * process before the library could look for it.
 */
#ifndef _WHEELTIMER_LIB_SHIM_SCHED_SIGNAL_H
#define _WHEELTIMER_LIB_SHIM_SCHED_SIGNAL_H

#include <stdbool.h>

static inline bool fatal_signal_pending(const void *task)
{
	(void)task;
	return false;
}

#endif
