// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * slab.c - the allocator behind the shim <linux/slab.h>, for module/store.c
 * in libwheeltimer's in-process engine and in the wheel's tests
 */
#include <stdlib.h>
#include <string.h>

#include <linux/slab.h>

struct kmem_cache {
	unsigned int size;
	unsigned int align;
};

unsigned long wheel_shim_slab_fail_in;
long wheel_shim_slab_live;

/* Whether this allocation is the one made to fail. */
static bool slab_shim_fails(void)
{
	return wheel_shim_slab_fail_in && !--wheel_shim_slab_fail_in;
}

static void *slab_shim_alloc(size_t size, size_t align)
{
	void *p;

	if (slab_shim_fails())
		return NULL;
	/* aligned_alloc() wants a size that is a multiple of the alignment. */
	p = aligned_alloc(align, (size + align - 1) / align * align);
	if (p) {
		/* Garbage, as a fresh kernel object may hold. */
		memset(p, 0xa5, size);
		wheel_shim_slab_live++;
	}
	return p;
}

static void slab_shim_free(const void *p)
{
	if (!p)
		return;
	wheel_shim_slab_live--;
	free((void *)p);
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned long flags,
				     void (*ctor)(void *))
{
	struct kmem_cache *cache;

	(void)name;
	(void)flags;
	(void)ctor;
	if (slab_shim_fails())
		return NULL;
	cache = malloc(sizeof(*cache));
	if (cache) {
		cache->size = size;
		cache->align = align ? align : sizeof(void *);
	}
	return cache;
}

void kmem_cache_destroy(struct kmem_cache *cache)
{
	free(cache);
}

void *kmem_cache_alloc(struct kmem_cache *cache, unsigned int flags)
{
	(void)flags;
	return slab_shim_alloc(cache->size, cache->align);
}

void kmem_cache_free(struct kmem_cache *cache, void *obj)
{
	(void)cache;
	slab_shim_free(obj);
}

void *kmalloc_array(size_t n, size_t size, unsigned int flags)
{
	(void)flags;
	if (size && n > SIZE_MAX / size)
		return NULL;
	return slab_shim_alloc(n * size, sizeof(void *));
}

void *kvmalloc_array(size_t n, size_t size, unsigned int flags)
{
	return kmalloc_array(n, size, flags);
}

void kvfree(const void *p)
{
	slab_shim_free(p);
}
