// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * bug.c - what a WARN_ON_ONCE() of the shim <linux/bug.h> does in
 * libwheeltimer: count it, for the "lib_warnings" counter of
 * wheeltimer_stat() (stats.c), which the library's tests check
 */
#include <linux/bug.h>

#include "internal.h"

static uint64_t wtl_nr_warnings;

void wtl_warn(const char *file, int line)
{
	(void)file;
	(void)line;
	__atomic_fetch_add(&wtl_nr_warnings, 1, __ATOMIC_RELAXED);
}

uint64_t wtl_warnings(void)
{
	return __atomic_load_n(&wtl_nr_warnings, __ATOMIC_RELAXED);
}
