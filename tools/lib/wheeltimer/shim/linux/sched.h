/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/sched.h>: a process's own loops have no
 * one to yield the CPU to but the scheduler, which does not need asking.
 */
#ifndef _WHEELTIMER_LIB_SHIM_SCHED_H
#define _WHEELTIMER_LIB_SHIM_SCHED_H

#define current			((void *)0)

static inline void cond_resched(void)
{
}

#endif
