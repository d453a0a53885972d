/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* Userspace stand-in for <linux/limits.h>, for libwheeltimer's in-process engine. */
#ifndef _WHEELTIMER_LIB_SHIM_LIMITS_H
#define _WHEELTIMER_LIB_SHIM_LIMITS_H

#include_next <linux/limits.h>
#include <stdint.h>

#define U64_MAX		UINT64_MAX

#endif
