/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/mm.h>: the page geometry module/store.h
 * relies on (blocks of one page, found by masking an address).
 */
#ifndef _WHEEL_SHIM_LINUX_MM_H
#define _WHEEL_SHIM_LINUX_MM_H

#include <linux/kernel.h>

#define PAGE_SIZE		4096UL
#define PAGE_MASK		(~(PAGE_SIZE - 1))

#endif
