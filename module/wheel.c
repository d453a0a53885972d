// SPDX-License-Identifier: GPL-2.0
/*
 * wheel.c - a hierarchical, tickless timing wheel with exact cascading
 *
 * Ticks
 * -----
 * The wheel works on absolute ticks: a u64 the caller computes as its clock
 * reading divided by its resolution. A u64 of nanoseconds lasts for 584
 * years, so the tick counter never wraps and no comparison here has to be
 * modular; U64_MAX is an ordinary, legal tick. The wheel's own clock, @clk,
 * is the tick up to which everything due has been found; it only moves
 * forward, and only when wheel_expire() is asked to look at a later tick.
 *
 * Geometry
 * --------
 * Read a tick as eleven base-64 digits (six bits each, the top one short).
 * The wheel has WHEEL_LEVELS = 7 levels of 64 slots, one level per low
 * digit, and a level is chosen by comparing an entry's tick E with @clk:
 *
 *	E <= clk:   the entry is already due and goes on the due list;
 *	otherwise:  L = the highest digit in which E and clk differ
 *		      = (fls64(E ^ clk) - 1) / 6,
 *		    slot = digit L of E,
 *		    and L >= WHEEL_LEVELS means the overflow list.
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
 *	  3      2^18      2^24 - 1 ahead      16.7 s
 *	  4      2^24      2^30 - 1 ahead      17.9 min
 *	  5      2^30      2^36 - 1 ahead      19.1 h
 *	  6      2^36      2^42 - 1 ahead      50.9 days
 *	overflow           anything later      (never clamped)
 *
 * "Up to" is a bound, not a rule: placement follows the digits, not the
 * distance, so a tick one step ahead of @clk lands in level 2 if reaching it
 * carries into digit 2 (clk = 4095, E = 4096). It then sits exactly at its
 * slot's start and is handed out without cascading.
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
 * The overflow list is the pseudo-level 7: its entries differ from @clk
 * above bit 42. Its "start" is the next multiple of 2^42 above @clk; when
 * @clk reaches that boundary the whole list is re-examined, and entries
 * still too far away go back on it. That is one pass over the overflow
 * entries per 2^42 ticks the clock moves (51 days at one microsecond per
 * tick, 73 minutes at one nanosecond), and no deadline is ever clamped to
 * the horizon, so none fires early. The price is paid by clock jumps: a
 * jump of D ticks costs every overflow entry D / 2^42 placements, spread
 * over calls by the budget. If the next multiple of 2^42 does not fit in a
 * u64, @clk already has all of E's top bits and the overflow list is
 * necessarily empty.
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
 * six times in all plus once per overflow pass, and an entry with no slack
 * is handed out by the first wheel_expire() whose @now reaches its tick,
 * never earlier and, given enough budget, never later: the lateness is zero
 * ticks, which the caller turns into "within one resolution" by rounding a
 * deadline up to a tick.
 *
 * Most timeouts are cancelled long before their slot comes up; those are
 * never touched again after wheel_add(). The cost falls on the ones that
 * fire: a tickless caller wakes at each slot start on an entry's way down
 * (they are what wheel_next_expiry() reports), so in a sparse wheel an
 * entry may cost up to seven wake-ups where a heap would cost one. In a
 * busy wheel the wake-ups are shared by the entries of a slot, and slack
 * (below) removes them.
 *
 * Bounded work
 * ------------
 * wheel_expire() charges one unit of the caller's budget for each entry it
 * takes off the due list, whether it hands the entry out or places it
 * again, and stops when the budget is spent. A slot holding a million
 * entries is therefore cascaded in slices: the rest of it stays on the due
 * list, where wheel_next_expiry() reports it as due "now", and the caller
 * comes back for more. Splicing a slot onto the due list is O(1) whatever
 * its size.
 *
 * Slack
 * -----
 * wheel_apply_slack() moves a deadline, within the caller's slack, to the
 * tick with the most trailing zero bits. Such a tick is the start of a
 * coarse slot, so the entry is handed out straight from that slot with few
 * or no cascades, and entries with overlapping slack windows tend to meet
 * on the same tick, which coalesces the caller's wake-ups.
 *
 * Order
 * -----
 * Entries are handed out strictly in tick order across ticks: each comes
 * out while @clk equals its tick, or, if it was added at or behind @clk,
 * while @clk is still where it was then (the clock does not move while the
 * due list holds anything). Within one tick the order is unspecified: it
 * depends on the order of adds and on the levels the entries went through.
 *
 * Costs
 * -----
 * wheel_add(), wheel_del() and wheel_modify() are O(1). wheel_del() needs
 * no level or slot number in the entry: if the entry is the only one in its
 * slot, its pprev points at the slot's head inside @slots, and the head's
 * address gives the slot whose @occupied bit to clear; otherwise the slot
 * stays non-empty and its bit stays set. That keeps an entry at 24 bytes
 * (an hlist_node and the tick). wheel_next_expiry() is O(WHEEL_LEVELS).
 * wheel_expire() is O(WHEEL_LEVELS) plus the budget it is given. The wheel
 * itself is about 3.6 KiB, almost all of it slot heads.
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

#define WHEEL_LVL_MASK		(WHEEL_LVL_SIZE - 1)

/* wheel_first_slot()'s level number for the overflow list. */
#define WHEEL_OVERFLOW		WHEEL_LEVELS

static unsigned int wheel_digit(u64 tick, unsigned int lvl)
{
	return (tick >> (lvl * WHEEL_LVL_BITS)) & WHEEL_LVL_MASK;
}

/*
 * Put @e where it belongs relative to the current clock: on the due list,
 * in the slot of the highest base-64 digit in which its tick differs from
 * the clock, or on the overflow list. The caller accounts for @count.
 */
static void wheel_place(struct wheel *w, struct wheel_entry *e)
{
	unsigned int lvl, idx;

	if (e->expires <= w->clk) {
		hlist_add_head(&e->node, &w->due);
		return;
	}

	lvl = (fls64(e->expires ^ w->clk) - 1) / WHEEL_LVL_BITS;
	if (lvl >= WHEEL_LEVELS) {
		hlist_add_head(&e->node, &w->overflow);
		return;
	}

	idx = wheel_digit(e->expires, lvl);
	hlist_add_head(&e->node, &w->slots[lvl][idx]);
	w->occupied[lvl] |= BIT_ULL(idx);
}

/*
 * Find the earliest non-empty slot and the first tick it may hold. On
 * success *@lvl is its level (WHEEL_OVERFLOW for the overflow list) and
 * *@idx its slot number. Returns false if every slot and the overflow list
 * are empty; the due list is the caller's business.
 */
static bool wheel_first_slot(const struct wheel *w, unsigned int *lvl,
			     unsigned int *idx, u64 *start)
{
	unsigned int l, shift;
	u64 next;

	for (l = 0; l < WHEEL_LEVELS; l++) {
		if (!w->occupied[l])
			continue;
		shift = l * WHEEL_LVL_BITS;
		*lvl = l;
		*idx = __ffs64(w->occupied[l]);
		/* Keep the clock's digits above @l, put the slot in digit @l. */
		*start = (w->clk & (~0ULL << (shift + WHEEL_LVL_BITS))) |
			 ((u64)*idx << shift);
		return true;
	}

	if (hlist_empty(&w->overflow))
		return false;

	/* The next multiple of 2^WHEEL_HORIZON_BITS above the clock. */
	next = (w->clk | (BIT_ULL(WHEEL_HORIZON_BITS) - 1)) + 1;
	/*
	 * If that wrapped, the clock already shares every bit above the
	 * horizon with every later tick, and nothing can be on overflow.
	 */
	if (WARN_ON_ONCE(!next))
		return false;
	*lvl = WHEEL_OVERFLOW;
	*idx = 0;
	*start = next;
	return true;
}

/* Unlink a pending @e, keeping the slot's occupied bit honest. */
static void wheel_unlink(struct wheel *w, struct wheel_entry *e)
{
	uintptr_t pprev = (uintptr_t)e->node.pprev;
	uintptr_t first = (uintptr_t)&w->slots[0][0];
	uintptr_t end = first + sizeof(w->slots);
	struct hlist_head *head;
	unsigned int n;

	/*
	 * Only the first entry of a list has a pprev pointing at the list's
	 * head; if that head is one of the slots and nothing follows the
	 * entry, the slot becomes empty. The addresses are compared as
	 * integers because the entry may be on the due or overflow list.
	 */
	if (!e->node.next && pprev >= first && pprev < end) {
		head = container_of(e->node.pprev, struct hlist_head, first);
		n = head - &w->slots[0][0];
		w->occupied[n / WHEEL_LVL_SIZE] &= ~BIT_ULL(n % WHEEL_LVL_SIZE);
	}
	hlist_del_init(&e->node);
	w->count--;
}

/**
 * wheel_init() - initialize an empty wheel
 * @w: the wheel
 * @now: the current tick; entries at or before it are due at once
 */
void wheel_init(struct wheel *w, u64 now)
{
	unsigned int l, i;

	w->clk = now;
	w->count = 0;
	INIT_HLIST_HEAD(&w->due);
	INIT_HLIST_HEAD(&w->overflow);
	for (l = 0; l < WHEEL_LEVELS; l++) {
		w->occupied[l] = 0;
		for (i = 0; i < WHEEL_LVL_SIZE; i++)
			INIT_HLIST_HEAD(&w->slots[l][i]);
	}
}

/**
 * wheel_add() - queue an entry
 * @w: the wheel
 * @e: an entry that is not in any wheel (wheel_entry_init() or handed out)
 * @expires: the tick at or after which @e is handed out; any u64, including
 *	ticks in the past (due at the next wheel_expire()) and U64_MAX
 *
 * O(1). Adding an entry that is still pending is a bug; it is warned about
 * and treated as wheel_modify().
 */
void wheel_add(struct wheel *w, struct wheel_entry *e, u64 expires)
{
	if (WARN_ON_ONCE(wheel_entry_pending(e)))
		wheel_unlink(w, e);
	e->expires = expires;
	wheel_place(w, e);
	w->count++;
}

/**
 * wheel_del() - cancel an entry
 * @w: the wheel
 * @e: the entry
 *
 * O(1). Afterwards @e is not pending and may be added again or freed.
 *
 * Return: true if @e was in the wheel and has been removed, false if it was
 * not in the wheel (never added, already cancelled, or already handed out
 * by wheel_expire() or wheel_drain()).
 */
bool wheel_del(struct wheel *w, struct wheel_entry *e)
{
	if (!wheel_entry_pending(e))
		return false;
	wheel_unlink(w, e);
	return true;
}

/**
 * wheel_modify() - move an entry to a new tick
 * @w: the wheel
 * @e: the entry, pending or not
 * @expires: the new tick, as for wheel_add()
 *
 * O(1): wheel_del() followed by wheel_add(). The new tick may be earlier or
 * later than the old one, and before the wheel's clock.
 */
void wheel_modify(struct wheel *w, struct wheel_entry *e, u64 expires)
{
	wheel_del(w, e);
	wheel_add(w, e, expires);
}

/**
 * wheel_next_expiry() - when the wheel may next have something to hand out
 * @w: the wheel
 * @tick: set to that tick when the wheel is not empty
 *
 * The answer is the wheel's clock if entries are waiting on the due list
 * (already due, or a slot cascaded only in part because the budget ran
 * out), otherwise the start of the earliest non-empty slot. It is never
 * later than the earliest pending entry's tick, and may be earlier: at that
 * tick wheel_expire() may only cascade a coarse slot and report the next
 * tick to wait for. O(WHEEL_LEVELS).
 *
 * Return: false if the wheel holds no entries.
 */
bool wheel_next_expiry(const struct wheel *w, u64 *tick)
{
	unsigned int lvl, idx;

	if (!w->count)
		return false;
	if (!hlist_empty(&w->due)) {
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
 * wheel_expire() - hand out one entry that is due at @now
 * @w: the wheel
 * @now: the current tick; earlier than the wheel's clock, nothing happens
 * @budget: entries this call may still take off the due list; decremented
 *	for each, whether handed out or placed again at a lower level
 *
 * Advances the wheel's clock towards @now, cascading the slots it reaches,
 * until it finds an entry whose tick is at or before the clock, and hands
 * it out: the entry is unlinked and no longer counted, and a later
 * wheel_del() on it returns false. Call it in a loop until it returns NULL.
 *
 * Entries come out in tick order; within one tick in no particular order.
 * An entry is never handed out before @now reaches its tick. Once a call
 * returns NULL with budget left, no entry with a tick at or before @now
 * remains in the wheel. When the budget runs out first, the unfinished work
 * stays on the due list and wheel_next_expiry() reports it as due at once.
 *
 * Return: an entry that is due, or NULL if none is due at @now or *@budget
 * reached zero.
 */
struct wheel_entry *wheel_expire(struct wheel *w, u64 now,
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

		if (hlist_empty(&w->due)) {
			if (!wheel_first_slot(w, &lvl, &idx, &start) ||
			    start > now) {
				/* Nothing reaches @now: safe to jump to it. */
				w->clk = max(w->clk, now);
				return NULL;
			}
			w->clk = start;
			if (lvl == WHEEL_OVERFLOW) {
				hlist_move_list(&w->overflow, &w->due);
			} else {
				hlist_move_list(&w->slots[lvl][idx], &w->due);
				w->occupied[lvl] &= ~BIT_ULL(idx);
			}
		}

		e = hlist_entry(w->due.first, struct wheel_entry, node);
		hlist_del_init(&e->node);
		(*budget)--;
		if (e->expires <= w->clk) {
			w->count--;
			return e;
		}
		/* Cascade: it shares one more digit with the clock now. */
		wheel_place(w, e);
	}
}

/**
 * wheel_drain() - take any entry out of the wheel, for teardown
 * @w: the wheel
 *
 * Removes entries regardless of their ticks: the due list first, then the
 * levels from the lowest, then the overflow list. O(WHEEL_LEVELS).
 *
 * Return: an entry no longer in the wheel, or NULL once the wheel is empty.
 */
struct wheel_entry *wheel_drain(struct wheel *w)
{
	struct hlist_node *node = NULL;
	struct wheel_entry *e;
	unsigned int l;

	if (!hlist_empty(&w->due)) {
		node = w->due.first;
	} else {
		for (l = 0; l < WHEEL_LEVELS; l++) {
			if (w->occupied[l]) {
				node = w->slots[l][__ffs64(w->occupied[l])].first;
				break;
			}
		}
		if (!node)
			node = w->overflow.first;
	}
	if (!node)
		return NULL;

	e = hlist_entry(node, struct wheel_entry, node);
	wheel_unlink(w, e);
	return e;
}

/**
 * wheel_apply_slack() - pick the coarsest tick within a slack window
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
u64 wheel_apply_slack(u64 expires, u64 slack)
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
