/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * wheel.h - a hierarchical, tickless timing wheel
 *
 * The wheel keeps intrusive entries keyed by an absolute tick (a clock
 * reading divided by the user's resolution) and hands them back, never
 * before their tick comes and never after it has passed, in slices whose
 * size the caller bounds. Every u64 tick has a slot (eleven levels of 64),
 * and a caller whose clock steps back moves the wheel's clock back with
 * wt_wheel_rewind(), at a cost that does not depend on the number of entries.
 * It knows nothing of files, locks, hrtimers or uaccess: the caller
 * serializes every call and decides what a tick is. That keeps this file
 * and wheel.c compilable in userspace, where tools/testing/wheel checks
 * them against a reference model.
 *
 * The geometry and its trade-offs are explained at the top of wheel.c.
 */
#ifndef _WHEELTIMER_WHEEL_H
#define _WHEELTIMER_WHEEL_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/types.h>

#define WHEEL_LVL_BITS		6
#define WHEEL_LVL_SIZE		BIT(WHEEL_LVL_BITS)
/*
 * 11 digits of 6 bits cover all 64 bits of a tick (the top digit, bits 60
 * to 63, uses 16 of its 64 slots): every tick has a slot, and there is no
 * overflow list.
 */
#define WHEEL_LEVELS		11

/**
 * struct wheel_entry - one timeout, embedded in the caller's object
 * @node: link in a slot or the due list; empty (pointing at itself) when
 *	the entry is not in the wheel
 * @expires: the tick at which the entry becomes due
 *
 * An entry must go through wt_wheel_entry_init() before its first wt_wheel_add(),
 * and again whenever its memory has served another purpose since it left
 * the wheel: zeroed memory, or a node overwritten by another list, does not
 * read as "not pending". Leaving the wheel (wt_wheel_del(), wt_wheel_expire(),
 * wt_wheel_drain()) leaves it initialized.
 */
struct wheel_entry {
	struct list_head node;
	u64 expires;
};

/**
 * struct wheel - the wheel itself; the caller provides the storage and the lock
 * @clk: the wheel's current tick. Every entry with @expires <= @clk has been
 *	handed out or waits on @due. wt_wheel_expire() moves it forward, and
 *	wt_wheel_rewind() back, for a clock that steps back
 * @count: entries in the wheel (pending, not yet handed out)
 * @occupied: per level, bit n set when slot n of that level is non-empty
 * @due: entries of the slot being opened, entries added already due, and
 *	after wt_wheel_rewind() possibly entries due only later; while
 *	non-empty, the wheel's next event is @clk itself
 * @slots: WHEEL_LEVELS levels of WHEEL_LVL_SIZE slots
 * @first: per slot, the earliest tick of the entries put in it since it
 *	was last empty, U64_MAX while it is empty: no entry of the slot is
 *	due before it, and one is due at it unless that one has left the
 *	slot (cancelled or moved) since
 */
struct wheel {
	u64 clk;
	u64 count;
	u64 occupied[WHEEL_LEVELS];
	struct list_head due;
	struct list_head slots[WHEEL_LEVELS][WHEEL_LVL_SIZE];
	u64 first[WHEEL_LEVELS][WHEEL_LVL_SIZE];
};

void wt_wheel_init(struct wheel *w, u64 now);
void wt_wheel_add(struct wheel *w, struct wheel_entry *e, u64 expires);
bool wt_wheel_del(struct wheel *w, struct wheel_entry *e);
void wt_wheel_modify(struct wheel *w, struct wheel_entry *e, u64 expires);
bool wt_wheel_next_expiry(const struct wheel *w, u64 *tick);
struct wheel_entry *wt_wheel_expire(struct wheel *w, u64 now,
				    unsigned int *budget);
struct wheel_entry *wt_wheel_drain(struct wheel *w);
u64 wt_wheel_apply_slack(u64 expires, u64 slack);
void wt_wheel_rewind(struct wheel *w, u64 now);

static inline void wt_wheel_entry_init(struct wheel_entry *e)
{
	INIT_LIST_HEAD(&e->node);
}

static inline bool wt_wheel_entry_pending(const struct wheel_entry *e)
{
	return !list_empty(&e->node);
}

#endif /* _WHEELTIMER_WHEEL_H */
