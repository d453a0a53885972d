// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wheel.c - a hierarchical, tickless timing wheel with exact cascading
 *
 * Ticks
 * -----
 * The wheel works on absolute ticks: a u64 the caller computes as its clock
 * reading divided by its resolution. A u64 of nanoseconds lasts for 584
 * years, so the tick counter never wraps and no comparison here has to be
 * modular; U64_MAX is an ordinary, legal tick. The wheel's own clock, @clk,
 * is the tick up to which everything due has been found. wt_wheel_expire()
 * moves it forward, when asked to look at a later tick; only
 * wt_wheel_rewind() moves it back, for a caller whose clock stepped back.
 *
 * Geometry
 * --------
 * Read a tick as eleven base-64 digits (six bits each; the top one, bits 60
 * to 63, has only 16 values). The wheel has WHEEL_LEVELS = 11 levels of 64
 * slots, one level per digit, and a level is chosen by comparing an
 * entry's tick E with @clk:
 *
 *	E <= clk:   the entry is already due and goes on the due list;
 *	otherwise:  L = the highest digit in which E and clk differ
 *		      = (fls64(E ^ clk) - 1) / 6, at most 10,
 *		    slot = digit L of E.
 *
 * A slot of level L therefore spans 64^L ticks, and its start (the smallest
 * tick it may hold) is @clk with the digits above L kept, digit L replaced
 * by the slot number, and the digits below L cleared. At one microsecond
 * per tick:
 *
 *	level  slot width  holds ticks up to  at 1 us per tick
 *	  0      1         64^1 - 1 ahead      64 us
 *	  1      64        64^2 - 1 ahead      4 ms
 *	  2      2^12      2^18 - 1 ahead      262 ms
 *	  3      2^18      2^24 - 1 ahead      16.8 s
 *	  4      2^24      2^30 - 1 ahead      17.9 min
 *	  5      2^30      2^36 - 1 ahead      19.1 h
 *	  6      2^36      2^42 - 1 ahead      50.9 days
 *	  7      2^42      2^48 - 1 ahead      8.9 years
 *	  8      2^48      2^54 - 1 ahead      571 years
 *	  9      2^54      2^60 - 1 ahead      36 534 years
 *	 10      2^60      U64_MAX             584 542 years (16 slots)
 *
 * "Up to" is a bound, not a rule: placement follows the digits, not the
 * distance, so a tick one step ahead of @clk lands in level 2 if reaching it
 * carries into digit 2 (clk = 4095, E = 4096). It then sits exactly at its
 * slot's start and is handed out without cascading.
 *
 * Every u64 tick has a slot, so there is no overflow list and no horizon:
 * an entry is placed once when it is added and at most once more per level
 * on its way down, however far the clock jumps, and no deadline is ever
 * clamped. The top level is where C's shifts bite: the bits above digit 10
 * would be a shift by 66, so no mask here is built by shifting past digit
 * L; they are built from the digit's own mask and the bits below it.
 *
 * The invariant is that every entry of a level-L slot shares @clk's digits
 * above L and has a larger digit L. Three things follow:
 *
 *  - All entries of level L are later than all entries of level L - 1, and
 *    within a level a higher slot is later than a lower one. The earliest
 *    event is therefore in the lowest level with a non-empty slot, in the
 *    slot that __ffs64() finds in that level's @occupied bitmap: a few bit
 *    operations, no rotation (the slots do not wrap around @clk) and no scan
 *    of slots or entries.
 *  - A slot's start is never later than any tick in it, so the start of the
 *    earliest non-empty slot is a safe time to wake up.
 *  - Moving @clk forward to any tick before the earliest slot start keeps
 *    the invariant, because no digit that decides a placement changes. A
 *    tickless caller can jump from one event to the next, however far
 *    apart, without stepping through the ticks in between.
 *
 * Cascading and exactness
 * -----------------------
 * kernel/time/timer.c gave up cascading: a timer stays in the slot it was
 * queued in and fires at that slot's granularity, up to 12.5% late. Here a
 * slot that comes due is cascaded: @clk jumps to the slot's start, the
 * slot's whole list is spliced onto the due list in O(1), and the entries
 * are then taken off one at a time. An entry whose tick equals @clk is
 * handed out; any other one is placed again relative to the new @clk. It
 * now shares digit L with @clk, so it lands in a lower level, or on the due
 * list. So an entry moves at most once per level on its way down, at most
 * ten times in all, and an entry with no slack is handed out by the first
 * wt_wheel_expire() whose @now reaches its tick, never earlier and, given
 * enough budget, never later: the lateness is zero ticks, which the caller
 * turns into "within one resolution" by rounding a deadline up to a tick.
 *
 * Most timeouts are cancelled long before their slot comes up; those are
 * never touched again after wt_wheel_add(). The cost falls on the ones that
 * fire: a tickless caller wakes at each slot start on an entry's way down
 * (they are what wt_wheel_next_expiry() reports), so in a sparse wheel an
 * entry placed at level L may cost L + 1 wake-ups where a heap would cost
 * one: up to seven for anything within 50 days at one microsecond per
 * tick, eleven at most. In a busy wheel the wake-ups are shared by the
 * entries of a slot, and slack (below) removes them.
 *
 * A clock that steps back
 * -----------------------
 * wt_wheel_rewind(w, now) with now < @clk makes the wheel's clock @now and
 * keeps the invariant exact, at a cost bounded by the number of slots
 * (WHEEL_LEVELS * WHEEL_LVL_SIZE list splices at most), whatever the number
 * of entries. Let C be the old clock, N = now < C, and H the highest digit
 * in which C and N differ; N < C gives digit H of N < digit H of C, and
 * the digits above H are the same in both.
 *
 *  - An entry at a level L > H shares C's digits above L, which are N's,
 *    and has a digit L larger than C's, which is N's (L > H): relative to
 *    N it belongs at level L, in the slot it is in.
 *  - An entry at level H shares C's digits above H, which are N's, and has
 *    a digit H larger than C's, hence larger than N's: it stays too.
 *  - An entry at a level L < H shares C's digits above L, so digit H and
 *    every digit above it: relative to N, its highest differing digit is
 *    H, and its slot there is digit H of C. No level-H entry is in that
 *    slot (they all have a larger digit H than C).
 *
 * So every non-empty slot of levels 0 to H - 1 is spliced whole, in O(1),
 * into slot (digit H of C) of level H, which was empty; their occupied
 * bits are cleared and that slot's bit set. This is what the slots being
 * list_heads buys: an hlist has no pointer to its tail, and joining two
 * of them walks one.
 *
 * The due list is left as it is. It may now hold entries whose tick is
 * after N: added behind C, or left from a slot cascaded in part.
 * wt_wheel_expire() takes the due list's entries off one by one, as it does
 * a cascading slot's, and places again those not due at the clock, so
 * none is handed out before its tick; meanwhile wt_wheel_next_expiry()
 * reports N, which is early but never late. Entries with a tick at or
 * before N stay due and are handed out at N. That re-placing is the only
 * work of a rewind proportional to the number of entries, and it is
 * charged to the budget of the wt_wheel_expire() calls that do it, like any
 * cascade; so are the cascades, over again, of the entries moved up to
 * level H, when the clock comes forward again.
 *
 * Bounded work
 * ------------
 * wt_wheel_expire() charges one unit of the caller's budget for each entry it
 * takes off the due list, whether it hands the entry out or places it
 * again, and stops when the budget is spent. A slot holding a million
 * entries is therefore cascaded in slices: the rest of it stays on the due
 * list, where wt_wheel_next_expiry() reports it as due "now", and the caller
 * comes back for more. Splicing a slot onto the due list is O(1) whatever
 * its size. Between two rewinds an entry costs at most WHEEL_LEVELS units
 * (ten placements and the hand-out), plus one if a rewind left it on the
 * due list.
 *
 * Slack
 * -----
 * wt_wheel_apply_slack() moves a deadline, within the caller's slack, to the
 * tick with the most trailing zero bits. Such a tick is the start of a
 * coarse slot, so the entry is handed out straight from that slot with few
 * or no cascades, and entries with overlapping slack windows tend to meet
 * on the same tick, which coalesces the caller's wake-ups.
 *
 * Order
 * -----
 * Entries are handed out strictly in tick order across ticks: each comes
 * out while @clk equals its tick, or, if it was added at or behind @clk,
 * while @clk is still where it was then (the clock does not move forward
 * while the due list holds anything; a rewind makes that the new clock).
 * Within one tick the order is unspecified: it depends on the order of
 * adds and on the levels the entries went through.
 *
 * Costs
 * -----
 * wt_wheel_add(), wt_wheel_del() and wt_wheel_modify() are O(1).
 * wt_wheel_del() needs no level or slot number in the entry: an entry
 * alone in its list has both neighbours at the list's head (node.next ==
 * node.prev); if that head lies inside @slots, its address gives the slot
 * whose @occupied bit to clear; otherwise the slot stays non-empty and its
 * bit stays set. That keeps an entry at 24 bytes (a list_head and the
 * tick). wt_wheel_next_expiry() is O(WHEEL_LEVELS). wt_wheel_expire() is
 * O(WHEEL_LEVELS) plus the budget it is given. wt_wheel_rewind() is
 * O(WHEEL_LEVELS * WHEEL_LVL_SIZE) at worst and makes one splice per
 * non-empty slot below level H. The wheel itself is about 11 KiB, almost
 * all of it the 704 slot heads.
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
 * Entries go on and come off the lists with these two rather than with
 * list_add_tail() and list_del_init(): under CONFIG_DEBUG_LIST, which
 * Debian's kernels have, those are calls to out-of-line checks, and adding
 * and cancelling a timeout are the wheel's hottest paths. The checks cost
 * a batched add + cancel a fifth of its time in the benchmark's VM, where
 * the hlist this wheel had before, like the kernel's own timer wheel's,
 * cost none. The links are checked instead by the userspace model test,
 * which walks every list after every step. Splices keep list.h's.
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
	unsigned int lvl, idx;

	if (e->expires <= w->clk) {
		wheel_list_append(&e->node, &w->due);
		return;
	}

	lvl = wheel_level(e->expires, w->clk);
	idx = wheel_digit(e->expires, lvl);
	wheel_list_append(&e->node, &w->slots[lvl][idx]);
	w->occupied[lvl] |= BIT_ULL(idx);
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
		w->occupied[n / WHEEL_LVL_SIZE] &= ~BIT_ULL(n % WHEEL_LVL_SIZE);
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
		for (i = 0; i < WHEEL_LVL_SIZE; i++)
			INIT_LIST_HEAD(&w->slots[l][i]);
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
 * wt_wheel_next_expiry() - when the wheel may next have something to hand out
 * @w: the wheel
 * @tick: set to that tick when the wheel is not empty
 *
 * The answer is the wheel's clock if entries are waiting on the due list
 * (already due, a slot cascaded only in part because the budget ran out,
 * or entries a wt_wheel_rewind() left there), otherwise the start of the
 * earliest non-empty slot. It is never later than the earliest pending
 * entry's tick, and may be earlier: at that tick wt_wheel_expire() may only
 * cascade a coarse slot and report the next tick to wait for.
 * O(WHEEL_LEVELS).
 *
 * Return: false if the wheel holds no entries.
 */
bool wt_wheel_next_expiry(const struct wheel *w, u64 *tick)
{
	unsigned int lvl, idx;

	if (!w->count)
		return false;
	if (!list_empty(&w->due)) {
		*tick = w->clk;
		return true;
	}
	if (wheel_first_slot(w, &lvl, &idx, tick))
		return true;
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
 * until it finds an entry whose tick is at or before the clock, and hands
 * it out: the entry is unlinked and no longer counted, and a later
 * wt_wheel_del() on it returns false. Call it in a loop until it returns NULL.
 *
 * Entries come out in tick order; within one tick in no particular order.
 * An entry is never handed out before @now reaches its tick. Once a call
 * returns NULL with budget left, no entry with a tick at or before @now
 * remains in the wheel. When the budget runs out first, the unfinished work
 * stays on the due list and wt_wheel_next_expiry() reports it as due at once.
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
			w->occupied[lvl] &= ~BIT_ULL(idx);
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
 * If @now is before the wheel's clock, the clock becomes @now: entries with
 * a tick at or before @now are due at once, and every other one is handed
 * out when the clock reaches its tick, as if it had been added at @now.
 * If @now is at or after the wheel's clock, nothing happens (wt_wheel_expire()
 * moves the clock forward).
 *
 * O(WHEEL_LEVELS * WHEEL_LVL_SIZE) at worst, whatever the number of
 * entries: one list splice per non-empty slot below the highest digit in
 * which the two clocks differ (see the top of this file for why that
 * keeps every placement exact). Entries that were waiting on the due list
 * and are not due at @now stay there until wt_wheel_expire() places them
 * again, one budget unit each; meanwhile wt_wheel_next_expiry() reports @now.
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
