/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* Userspace stand-in for <linux/errno.h>: the uapi header's numbers. */
#ifndef _WHEELTIMER_LIB_SHIM_ERRNO_H
#define _WHEELTIMER_LIB_SHIM_ERRNO_H

#include_next <linux/errno.h>

#endif
