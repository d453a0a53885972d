/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Userspace stand-in for the parts of <linux/list.h> that module/ uses,
 * for libwheeltimer's in-process engine and the wheel's tests, with the
 * kernel's documented meaning: a list_head is circular, and an empty one
 * (or a node taken off with list_del_init()) points at itself; an hlist is
 * a NULL-terminated list whose nodes point back at what points at them.
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
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)

/* Each entry of @head, as @pos; @n holds the next, so @pos may leave. */
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, __typeof__(*(pos)), member),	\
	     n = list_next_entry(pos, member);				\
	     &(pos)->member != (head);					\
	     pos = n, n = list_next_entry(n, member))

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

static inline void INIT_HLIST_HEAD(struct hlist_head *h)
{
	h->first = NULL;
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	n->next = first;
	if (first)
		first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

/* Put @n after @prev. */
static inline void hlist_add_behind(struct hlist_node *n,
				    struct hlist_node *prev)
{
	n->next = prev->next;
	prev->next = n;
	n->pprev = &prev->next;
	if (n->next)
		n->next->pprev = &n->next;
}

static inline void hlist_del(struct hlist_node *n)
{
	struct hlist_node *next = n->next;

	*n->pprev = next;
	if (next)
		next->pprev = n->pprev;
}

#define hlist_entry_safe(ptr, type, member) ({				\
	__typeof__(ptr) __wtl_p = (ptr);				\
	__wtl_p ? container_of(__wtl_p, type, member) : NULL;		\
})

#define hlist_for_each_entry(pos, head, member)				\
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)),	\
				    member);				\
	     pos;							\
	     pos = hlist_entry_safe((pos)->member.next,		\
				    __typeof__(*(pos)), member))

#endif
