/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/mm.h>: the page geometry module/store.h
 * relies on (blocks of one page, found by masking an address).
 */
#ifndef _WHEELTIMER_LIB_SHIM_MM_H
#define _WHEELTIMER_LIB_SHIM_MM_H

#include <linux/kernel.h>

#define PAGE_SIZE		4096UL
#define PAGE_MASK		(~(PAGE_SIZE - 1))

#endif
