/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/limits.h>: the uapi one plus the U*_MAX. */
#ifndef _WHEEL_SHIM_LINUX_LIMITS_H
#define _WHEEL_SHIM_LINUX_LIMITS_H

#include_next <linux/limits.h>
#include <stdint.h>

#define U8_MAX		UINT8_MAX
#define U32_MAX		UINT32_MAX
#define U64_MAX		UINT64_MAX
#define S64_MAX		INT64_MAX

#endif
