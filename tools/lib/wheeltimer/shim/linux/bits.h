/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/bits.h>, for module/wheel.c in
 * libwheeltimer's in-process engine and in the wheel's tests.
 */
#ifndef _WHEELTIMER_LIB_SHIM_BITS_H
#define _WHEELTIMER_LIB_SHIM_BITS_H

#define BIT(nr)		(1UL << (nr))
#define BIT_ULL(nr)	(1ULL << (nr))

#endif
