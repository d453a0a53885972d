/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the list_head part of <linux/list.h>, written to
 * the kernel's documented semantics: a circular doubly linked list; an
 * empty list, and a node taken off with list_del_init(), point at
 * themselves. (module/store.h names struct hlist_node, which the shim
 * <linux/types.h> defines; nothing here uses the hlist functions.)
 *
 * Every list_head primitive that changes links counts itself in
 * wheel_shim_list_ops (defined by the test program), so that a test can
 * check how many list operations a wheel call made: wheel_rewind(), for
 * one, must make at most one per slot, never one per entry.
 */
#ifndef _WHEEL_SHIM_LINUX_LIST_H
#define _WHEEL_SHIM_LINUX_LIST_H

#include <linux/types.h>

extern unsigned long wheel_shim_list_ops;

#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(head, type, member)				\
	list_entry((head)->next, type, member)

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static inline int list_empty(const struct list_head *head)
{
	return head->next == head;
}

/* Link @new between two consecutive nodes @prev and @next. */
static inline void __list_add(struct list_head *new, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = new;
	new->next = next;
	new->prev = prev;
	prev->next = new;
	wheel_shim_list_ops++;
}

/* Insert @new after @head: a stack. */
static inline void list_add(struct list_head *new, struct list_head *head)
{
	__list_add(new, head, head->next);
}

/* Insert @new before @head, at the end of the list: a queue. */
static inline void list_add_tail(struct list_head *new, struct list_head *head)
{
	__list_add(new, head->prev, head);
}

/* Take @entry off its list and leave it pointing at itself (empty). */
static inline void list_del_init(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	entry->prev->next = entry->next;
	INIT_LIST_HEAD(entry);
	wheel_shim_list_ops++;
}

static inline void list_move(struct list_head *list, struct list_head *head)
{
	list_del_init(list);
	list_add(list, head);
}

static inline void list_move_tail(struct list_head *list,
				  struct list_head *head)
{
	list_del_init(list);
	list_add_tail(list, head);
}

/* Join the non-empty @list's nodes in between @prev and @next. */
static inline void __list_splice(const struct list_head *list,
				 struct list_head *prev,
				 struct list_head *next)
{
	struct list_head *first = list->next;
	struct list_head *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
	wheel_shim_list_ops++;
}

/* Move @list's nodes to the front of @head; @list is left empty. */
static inline void list_splice_init(struct list_head *list,
				    struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}

/* Move @list's nodes to the end of @head; @list is left empty. */
static inline void list_splice_tail_init(struct list_head *list,
					 struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}

#endif
