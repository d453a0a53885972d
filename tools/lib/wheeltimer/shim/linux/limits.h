/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/limits.h>, for module/wheel.c in
 * libwheeltimer's in-process engine and in the wheel's tests: the uapi
 * header of that name, which libc headers may include, and U64_MAX.
 */
#ifndef _WHEELTIMER_LIB_SHIM_LIMITS_H
#define _WHEELTIMER_LIB_SHIM_LIMITS_H

#include_next <linux/limits.h>
#include <stdint.h>

#define U32_MAX		UINT32_MAX
#define U64_MAX		UINT64_MAX
#define S64_MAX		INT64_MAX

#endif
