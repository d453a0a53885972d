/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for the list_head part of <linux/list.h> that
 * module/wheel.c uses, for the wheel in libwheeltimer's in-process engine
 * and in the wheel's tests, with the kernel's documented meaning: a
 * list_head is circular, and an empty one (or a node taken off with
 * list_del_init()) points at itself.
 *
 * Each primitive that changes links (one insertion, two removals, one
 * splice) runs wheel_shim_list_op(): nothing, unless the program defines
 * it before including this header (the wheel's tests count with it the
 * list operations a wheel call makes).
 */
#ifndef _WHEELTIMER_LIB_SHIM_LIST_H
#define _WHEELTIMER_LIB_SHIM_LIST_H

#include <linux/types.h>

#ifndef wheel_shim_list_op
#define wheel_shim_list_op()	do { } while (0)
#endif

#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static inline int list_empty(const struct list_head *head)
{
	return head->next == head;
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) \
	list_entry((ptr)->next, type, member)

/* Put @n between the neighbours @prev and @next. */
static inline void __list_add(struct list_head *n, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
	wheel_shim_list_op();
}

static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_add(n, head->prev, head);
}

/* Join @prev and @next, dropping what was between them; no checks. */
static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	prev->next = next;
	wheel_shim_list_op();
}

static inline void list_del_init(struct list_head *entry)
{
	entry->prev->next = entry->next;
	entry->next->prev = entry->prev;
	INIT_LIST_HEAD(entry);
	wheel_shim_list_op();
}

/* Put the entries of @list between @prev and @next; @list is not emptied. */
static inline void __list_splice(const struct list_head *list,
				 struct list_head *prev, struct list_head *next)
{
	struct list_head *first = list->next, *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
	wheel_shim_list_op();
}

/* Move the entries of @list to the front of @head; @list is left empty. */
static inline void list_splice_init(struct list_head *list,
				    struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}

/* Move the entries of @list to the back of @head; @list is left empty. */
static inline void list_splice_tail_init(struct list_head *list,
					 struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}

#endif
