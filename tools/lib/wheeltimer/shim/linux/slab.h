/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for <linux/slab.h>, enough for module/store.c (shim
 * slab.c): caches honour their alignment (the store finds a block by
 * masking an address). For the tests, allocations can be made to fail:
 * wheel_shim_slab_fail_in, when non-zero, counts allocations down and fails
 * the one that brings it to zero; wheel_shim_slab_live counts what is
 * allocated and not freed.
 */
#ifndef _WHEELTIMER_LIB_SHIM_SLAB_H
#define _WHEELTIMER_LIB_SHIM_SLAB_H

#include <linux/kernel.h>

#define GFP_KERNEL_ACCOUNT	0x1u
#define __GFP_NOWARN		0x2u
#define SLAB_ACCOUNT		0x1ul

struct kmem_cache;

extern unsigned long wheel_shim_slab_fail_in;
extern long wheel_shim_slab_live;

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
