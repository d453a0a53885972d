/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/slab.h>, enough for module/store.c: caches
 * honour their alignment (the store finds a block by masking an address),
 * and allocations can be made to fail on purpose. slab_shim_fail_in, when
 * non-zero, counts allocations down and fails the one that brings it to
 * zero; slab_shim_live counts what is allocated and not freed, so that a
 * test can check that nothing is left behind.
 */
#ifndef _WHEEL_SHIM_LINUX_SLAB_H
#define _WHEEL_SHIM_LINUX_SLAB_H

#include <linux/kernel.h>

#define GFP_KERNEL_ACCOUNT	0x1u
#define __GFP_NOWARN		0x2u
#define SLAB_ACCOUNT		0x1ul

struct kmem_cache;

extern unsigned long slab_shim_fail_in;
extern long slab_shim_live;

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned long flags,
				     void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *cache);
void *kmem_cache_alloc(struct kmem_cache *cache, unsigned int flags);
void kmem_cache_free(struct kmem_cache *cache, void *obj);
void *kmalloc_array(size_t n, size_t size, unsigned int flags);
void *kvmalloc_array(size_t n, size_t size, unsigned int flags);
void kvfree(const void *p);

#endif
