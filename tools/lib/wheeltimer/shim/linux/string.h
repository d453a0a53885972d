/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* Userspace stand-in for <linux/string.h>: libc's. */
#ifndef _WHEELTIMER_LIB_SHIM_STRING_H
#define _WHEELTIMER_LIB_SHIM_STRING_H

#include <string.h>

#endif
