/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* Userspace stand-in for <linux/time.h>: the clock ids, libc's. */
#ifndef _WHEELTIMER_LIB_SHIM_TIME_H
#define _WHEELTIMER_LIB_SHIM_TIME_H

#include <time.h>

#endif
