/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/hrtimer.h>: only what module/compat.h's
 * inline wrappers name, so that files including compat.h compile. Nothing
 * tested here arms an hrtimer.
 */
#ifndef _WHEELTIMER_LIB_SHIM_HRTIMER_H
#define _WHEELTIMER_LIB_SHIM_HRTIMER_H

#include <time.h>

enum hrtimer_restart { HRTIMER_NORESTART };
enum hrtimer_mode { HRTIMER_MODE_ABS };

struct hrtimer {
	enum hrtimer_restart (*function)(struct hrtimer *timer);
};

static inline void hrtimer_init(struct hrtimer *timer, clockid_t clock_id,
				enum hrtimer_mode mode)
{
	(void)timer;
	(void)clock_id;
	(void)mode;
}

#endif
