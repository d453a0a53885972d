/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/list.h> for the test programs: libwheeltimer's list_head
 * stand-in, with every primitive that changes links counted in
 * wheel_shim_list_ops (defined by the test program), so that a test can
 * check how many list operations a wheel call made: wt_wheel_rewind(), for
 * one, must make at most one per slot, never one per entry.
 */
#ifndef _WHEEL_SHIM_LINUX_LIST_H
#define _WHEEL_SHIM_LINUX_LIST_H

extern unsigned long wheel_shim_list_ops;

#define wheel_shim_list_op()	(wheel_shim_list_ops++)

#include_next <linux/list.h>

/*
 * Not used by the wheel: the mutant rewind-per-entry moves entries one by
 * one with it (two counted operations each), and the tests must see that.
 */
static inline void list_move_tail(struct list_head *list,
				  struct list_head *head)
{
	list_del_init(list);
	list_add_tail(list, head);
}

#endif
