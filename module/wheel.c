// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wheel.c - a hierarchical, tickless timing wheel with exact cascading
 *
 * Eleven levels of 64 slots over absolute u64 ticks: an entry goes in the
 * level of the highest base-64 digit in which its tick differs from the
 * wheel's clock, in the slot of that digit, and moves down a level each
 * time its slot comes due, so that it is handed out in the tick it names.
 * Adding, cancelling and moving are O(1); finding the next expiry is
 * O(levels); expiring and rewinding the clock are bounded by the caller's
 * budget and the number of slots. Documentation/misc-devices/wheeltimer.rst
 * explains the invariant and why each operation is exact.
 *
 * The levels: an entry in level L shares every base-64 digit above L with
 * the clock, so it is due within 64^(L+1) ticks; each of its slots spans
 * 64^L ticks. With 1 ms ticks:
 *
 *	level	slot spans		due within
 *	0	1 tick (1 ms)		64 ms
 *	1	64 ticks (64 ms)	4.1 s
 *	2	64^2 (4.1 s)		4.4 min
 *	3	64^3 (4.4 min)		4.7 h
 *	4	64^4 (4.7 h)		12.4 days
 *	5	64^5 (12.4 days)	2.2 years
 *	6	64^6 (2.2 years)	139 years
 *	7 to 10	64^7 to 64^10		the rest of the u64 ticks (level 10
 *					uses 16 of its slots: 66 bits > 64)
 *
 * None of this takes locks, allocates, sleeps or knows what a tick means:
 * the caller serializes all calls on one wheel and owns the entries'
 * memory.
 */
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/types.h>

#include "wheel.h"

#define WHEEL_LVL_MASK		((u64)WHEEL_LVL_SIZE - 1)

static unsigned int wheel_digit(u64 tick, unsigned int lvl)
{
	return (tick >> (lvl * WHEEL_LVL_BITS)) & WHEEL_LVL_MASK;
}

/*
 * Not list_add_tail() and list_del_init(): under CONFIG_DEBUG_LIST those
 * call out-of-line checks on the hottest paths. The model test checks the
 * links instead. Splices keep list.h's.
 */
static void wheel_list_append(struct list_head *n, struct list_head *head)
{
	struct list_head *prev = head->prev;

	n->next = head;
	n->prev = prev;
	prev->next = n;
	head->prev = n;
}

static void wheel_list_remove(struct list_head *n)
{
	__list_del(n->prev, n->next);
	INIT_LIST_HEAD(n);
}

/* The highest base-64 digit in which two different ticks differ. */
static unsigned int wheel_level(u64 a, u64 b)
{
	return (fls64(a ^ b) - 1) / WHEEL_LVL_BITS;
}

/*
 * Put @e where it belongs relative to the current clock: on the due list,
 * or in the slot of the highest base-64 digit in which its tick differs
 * from the clock. The caller accounts for @count.
 */
static void wheel_place(struct wheel *w, struct wheel_entry *e)
{
	unsigned int lvl, idx, n;
	u64 *first;

	if (e->expires <= w->clk) {
		wheel_list_append(&e->node, &w->due);
		return;
	}

	lvl = wheel_level(e->expires, w->clk);
	idx = wheel_digit(e->expires, lvl);
	n = lvl * WHEEL_LVL_SIZE + idx;
	wheel_list_append(&e->node, &w->slots[0][0] + n);
	w->occupied[lvl] |= BIT_ULL(idx);
	first = &w->first[0][0] + n;
	if (e->expires < *first)
		*first = e->expires;
}

/* Slot @idx of level @lvl is empty now. */
static void wheel_slot_emptied(struct wheel *w, unsigned int lvl,
			       unsigned int idx)
{
	w->occupied[lvl] &= ~BIT_ULL(idx);
	w->first[lvl][idx] = U64_MAX;
}

/*
 * Find the earliest non-empty slot and the first tick it may hold. On
 * success *@lvl is its level and *@idx its slot number. Returns false if
 * every slot is empty; the due list is the caller's business.
 */
static bool wheel_first_slot(const struct wheel *w, unsigned int *lvl,
			     unsigned int *idx, u64 *start)
{
	unsigned int l, shift;
	u64 mask;

	for (l = 0; l < WHEEL_LEVELS; l++) {
		if (!w->occupied[l])
			continue;
		shift = l * WHEEL_LVL_BITS;
		*lvl = l;
		*idx = __ffs64(w->occupied[l]);
		/*
		 * Digit @l and the bits below it; the clock keeps the rest.
		 * (Not ~0 << (shift + 6): at level 10 that is a shift by 66.)
		 */
		mask = (WHEEL_LVL_MASK << shift) | (BIT_ULL(shift) - 1);
		*start = (w->clk & ~mask) | ((u64)*idx << shift);
		return true;
	}
	return false;
}

/* Unlink a pending @e, keeping the slot's occupied bit honest. */
static void wheel_unlink(struct wheel *w, struct wheel_entry *e)
{
	uintptr_t head = (uintptr_t)e->node.next;
	uintptr_t first = (uintptr_t)&w->slots[0][0];
	uintptr_t end = first + sizeof(w->slots);
	unsigned int n;

	/*
	 * An entry alone in its list has the list's head on both sides; if
	 * that head is one of the slots, the slot becomes empty. The
	 * addresses are compared as integers because the entry may be on
	 * the due list.
	 */
	if (e->node.next == e->node.prev && head >= first && head < end) {
		n = (head - first) / sizeof(struct list_head);
		wheel_slot_emptied(w, n / WHEEL_LVL_SIZE, n % WHEEL_LVL_SIZE);
	}
	wheel_list_remove(&e->node);
	w->count--;
}

/**
 * wt_wheel_init() - initialize an empty wheel
 * @w: the wheel
 * @now: the current tick; entries at or before it are due at once
 */
void wt_wheel_init(struct wheel *w, u64 now)
{
	unsigned int l, i;

	w->clk = now;
	w->count = 0;
	INIT_LIST_HEAD(&w->due);
	for (l = 0; l < WHEEL_LEVELS; l++) {
		w->occupied[l] = 0;
		for (i = 0; i < WHEEL_LVL_SIZE; i++) {
			INIT_LIST_HEAD(&w->slots[l][i]);
			w->first[l][i] = U64_MAX;
		}
	}
}

/**
 * wt_wheel_add() - queue an entry
 * @w: the wheel
 * @e: an entry that is not in any wheel (wt_wheel_entry_init() or handed out)
 * @expires: the tick at or after which @e is handed out; any u64, including
 *	ticks in the past (due at the next wt_wheel_expire()) and U64_MAX
 *
 * O(1). Adding an entry that is still pending is a bug; it is warned about
 * and treated as wt_wheel_modify().
 */
void wt_wheel_add(struct wheel *w, struct wheel_entry *e, u64 expires)
{
	if (WARN_ON_ONCE(wt_wheel_entry_pending(e)))
		wheel_unlink(w, e);
	e->expires = expires;
	wheel_place(w, e);
	w->count++;
}

/**
 * wt_wheel_del() - cancel an entry
 * @w: the wheel
 * @e: the entry
 *
 * O(1). Afterwards @e is not pending and may be added again or freed.
 *
 * Return: true if @e was in the wheel and has been removed, false if it was
 * not in the wheel (never added, already cancelled, or already handed out
 * by wt_wheel_expire() or wt_wheel_drain()).
 */
bool wt_wheel_del(struct wheel *w, struct wheel_entry *e)
{
	if (!wt_wheel_entry_pending(e))
		return false;
	wheel_unlink(w, e);
	return true;
}

/**
 * wt_wheel_modify() - move an entry to a new tick
 * @w: the wheel
 * @e: the entry, pending or not
 * @expires: the new tick, as for wt_wheel_add()
 *
 * O(1): wt_wheel_del() followed by wt_wheel_add(). The new tick may be
 * earlier or later than the old one, and before the wheel's clock.
 */
void wt_wheel_modify(struct wheel *w, struct wheel_entry *e, u64 expires)
{
	wt_wheel_del(w, e);
	wt_wheel_add(w, e, expires);
}

/**
 * wt_wheel_next_expiry() - when the wheel next has something to hand out
 * @w: the wheel
 * @tick: set to that tick when the wheel is not empty
 *
 * The wheel's clock if the due list holds entries, else the earliest tick
 * put in the earliest non-empty slot (@w->first): never later than the
 * earliest entry's tick, and that tick itself unless the entry that had
 * the earliest tick of that slot has been cancelled or moved since. A
 * caller that sleeps until then so wakes when an entry is due, not at the
 * start of each slot an entry cascades through on its way down.
 * O(WHEEL_LEVELS).
 *
 * Return: false if the wheel holds no entries.
 */
bool wt_wheel_next_expiry(const struct wheel *w, u64 *tick)
{
	unsigned int lvl, idx;
	u64 start;

	if (!w->count)
		return false;
	if (!list_empty(&w->due)) {
		*tick = w->clk;
		return true;
	}
	if (wheel_first_slot(w, &lvl, &idx, &start)) {
		*tick = w->first[lvl][idx];
		return true;
	}
	/* @count says there are entries, but there are none anywhere. */
	WARN_ON_ONCE(1);
	return false;
}

/**
 * wt_wheel_expire() - hand out one entry that is due at @now
 * @w: the wheel
 * @now: the current tick; earlier than the wheel's clock, nothing happens
 *	(a caller whose clock stepped back calls wt_wheel_rewind() first)
 * @budget: entries this call may still take off the due list; decremented
 *	for each, whether handed out or placed again at a lower level
 *
 * Advances the wheel's clock towards @now, cascading the slots it reaches,
 * until it finds an entry due at the clock, and unlinks it. Call it in a
 * loop until it returns NULL: entries come out in tick order, never before
 * @now reaches their tick; once it returns NULL with budget left, nothing
 * due at @now remains. What the budget left undone stays on the due list.
 *
 * Return: an entry that is due, or NULL if none is due at @now or *@budget
 * reached zero.
 */
struct wheel_entry *wt_wheel_expire(struct wheel *w, u64 now,
				    unsigned int *budget)
{
	struct wheel_entry *e;
	unsigned int lvl, idx;
	u64 start;

	/* A caller's clock that reads behind ours has nothing due. */
	if (now < w->clk)
		return NULL;

	for (;;) {
		if (!*budget)
			return NULL;

		if (list_empty(&w->due)) {
			if (!wheel_first_slot(w, &lvl, &idx, &start) ||
			    start > now) {
				/* Nothing reaches @now: safe to jump to it. */
				w->clk = max(w->clk, now);
				return NULL;
			}
			w->clk = start;
			list_splice_init(&w->slots[lvl][idx], &w->due);
			wheel_slot_emptied(w, lvl, idx);
		}

		e = list_first_entry(&w->due, struct wheel_entry, node);
		wheel_list_remove(&e->node);
		(*budget)--;
		if (e->expires <= w->clk) {
			w->count--;
			return e;
		}
		/*
		 * Cascade: it shares one more digit with the clock now. (Or
		 * a rewind left it here, and it goes wherever it belongs.)
		 */
		wheel_place(w, e);
	}
}

/**
 * wt_wheel_rewind() - set the wheel's clock back, for a clock that stepped back
 * @w: the wheel
 * @now: the caller's current tick
 *
 * If @now is before the wheel's clock, the clock becomes @now, and every
 * entry is handed out when the clock reaches its tick, as if added at @now;
 * otherwise nothing happens. One list splice per non-empty slot below the
 * highest digit in which the two clocks differ, whatever the number of
 * entries; due-list entries not due at @now are placed again by
 * wt_wheel_expire(), one budget unit each.
 */
void wt_wheel_rewind(struct wheel *w, u64 now)
{
	struct list_head *dst;
	unsigned int h, l, i, idx;
	u64 occ;

	if (now >= w->clk)
		return;

	h = wheel_level(w->clk, now);
	idx = wheel_digit(w->clk, h);
	dst = &w->slots[h][idx];
	/* Level-H entries all have a larger digit H than the old clock. */
	WARN_ON_ONCE(w->occupied[h] & BIT_ULL(idx));
	for (l = 0; l < h; l++) {
		for (occ = w->occupied[l]; occ; occ &= occ - 1) {
			i = __ffs64(occ);
			list_splice_tail_init(&w->slots[l][i], dst);
			w->first[h][idx] = min(w->first[h][idx],
					       w->first[l][i]);
			w->first[l][i] = U64_MAX;
		}
		w->occupied[l] = 0;
	}
	if (!list_empty(dst))
		w->occupied[h] |= BIT_ULL(idx);
	w->clk = now;
}

/**
 * wt_wheel_drain() - take any entry out of the wheel, for teardown
 * @w: the wheel
 *
 * Removes entries regardless of their ticks: the due list first, then the
 * levels from the lowest. O(WHEEL_LEVELS).
 *
 * Return: an entry no longer in the wheel, or NULL once the wheel is empty.
 */
struct wheel_entry *wt_wheel_drain(struct wheel *w)
{
	struct list_head *head = NULL;
	struct wheel_entry *e;
	unsigned int l;

	if (!list_empty(&w->due)) {
		head = &w->due;
	} else {
		for (l = 0; l < WHEEL_LEVELS; l++) {
			if (w->occupied[l]) {
				head = &w->slots[l][__ffs64(w->occupied[l])];
				break;
			}
		}
	}
	if (!head)
		return NULL;

	e = list_first_entry(head, struct wheel_entry, node);
	wheel_unlink(w, e);
	return e;
}

/**
 * wt_wheel_apply_slack() - pick the coarsest tick within a slack window
 * @expires: the earliest acceptable tick
 * @slack: how many ticks later the entry may be handed out
 *
 * Of the ticks in [@expires, @expires + @slack] (the upper end saturating
 * at U64_MAX), returns the one with the most trailing zero bits. It is the
 * start of the coarsest slot in the window, so an entry placed there is
 * handed out with the fewest cascades, and entries whose windows overlap
 * tend to share it. With no slack, or @expires zero, @expires itself.
 *
 * Return: a tick in the window, never less than @expires.
 */
u64 wt_wheel_apply_slack(u64 expires, u64 slack)
{
	u64 limit, low;
	int bit;

	if (!slack || !expires)
		return expires;

	limit = expires > U64_MAX - slack ? U64_MAX : expires + slack;
	/*
	 * Above the highest bit in which @expires - 1 and @limit differ, every
	 * tick of the window has the same bits; @limit has that bit set and
	 * @expires - 1 has it clear. So @limit with the lower bits cleared is
	 * in the window, and no tick in it has more trailing zeros.
	 */
	bit = fls64((expires - 1) ^ limit) - 1;
	low = BIT_ULL(bit) - 1;
	return limit & ~low;
}
