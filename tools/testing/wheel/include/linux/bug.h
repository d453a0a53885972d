/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/bug.h> for the test programs: libwheeltimer's stand-in, whose
 * WARN_ON_ONCE() reports every time it fires; here it reports to a hook
 * the test program defines, so that a test can count the warnings it
 * provokes on purpose, and the model test and the fuzzer abort on any.
 */
#ifndef _WHEEL_SHIM_LINUX_BUG_H
#define _WHEEL_SHIM_LINUX_BUG_H

void wheel_shim_warn(const char *file, int line, const char *cond);

#define wheel_shim_on_warn(file, line, cond)	wheel_shim_warn(file, line, cond)

#include_next <linux/bug.h>

#endif
