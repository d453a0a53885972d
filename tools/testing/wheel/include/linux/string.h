/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/string.h>: libc's. */
#ifndef _WHEEL_SHIM_LINUX_STRING_H
#define _WHEEL_SHIM_LINUX_STRING_H

#include <string.h>

#endif
