/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/sched.h>: there is no one to yield to. */
#ifndef _WHEEL_SHIM_LINUX_SCHED_H
#define _WHEEL_SHIM_LINUX_SCHED_H

static inline void cond_resched(void)
{
}

#endif
