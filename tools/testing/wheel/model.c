// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - the wheel against a reference heap, one operation at a time.
 *
 * What is checked, after every step:
 *  - nothing is handed out early: its tick is <= now at hand-out;
 *  - nothing is handed out late or out of order: the wheel's clock at
 *    hand-out equals the entry's tick, or the clock when the entry was
 *    added if that was later (white-box, and stronger than "in order");
 *    after a rewind, the later of its tick and the rewound clock;
 *  - nothing is left behind: after wt_wheel_expire() returns NULL with budget
 *    left, the reference holds nothing at or before now, the wheel's clock
 *    is now, and the next expiry is after now;
 *  - every entry is handed out exactly once or cancelled: a hand-out must be
 *    pending in the reference, wt_wheel_del() must return true exactly when
 *    the reference says pending, wt_wheel_drain() at the end must return
 *    exactly the entries still pending;
 *  - wt_wheel_next_expiry() answers whenever the wheel is not empty, never
 *    later than the reference's earliest tick (or the clock, for entries
 *    added behind it), never before the clock;
 *  - the count matches, the clock never runs ahead of now, the budget is
 *    honoured: no call moves more entries than it charged (checked every
 *    watch_every calls on small pools), and (every check_every steps)
 *    wheel_check() finds the layout intact;
 *  - a rewind (the caller's clock stepping back) moves the wheel's clock
 *    exactly there, or does nothing if it is not behind the clock; it
 *    empties every level below the highest digit in which the clocks
 *    differ into the one slot the proof at the top of wheel.c names,
 *    leaves the levels above alone, makes at most one list operation per
 *    slot it empties, and leaves a layout wheel_check() accepts (checked
 *    after every rewind on small pools, every 16th on large ones).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

void (*model_fail_hook)(const char *msg);

static void __printf(2, 3) __noreturn
model_fail(struct model *m, const char *fmt, ...)
{
	char msg[512];
	int n;
	va_list ap;

	n = snprintf(msg, sizeof(msg),
		     "step %llu (epoch %llu, pool %u, now %#llx, clk %#llx): ",
		     (unsigned long long)m->st.steps,
		     (unsigned long long)m->st.epochs, m->nents,
		     (unsigned long long)m->now,
		     (unsigned long long)m->w.clk);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	if (model_fail_hook)
		model_fail_hook(msg);
	fprintf(stderr, "model: %s\n", msg);
	abort();
}

static bool src_dry(const struct model_src *s)
{
	return s->data && s->pos >= s->len;
}

static u8 src_byte(struct model_src *s)
{
	if (!s->data)
		return rng_next(&s->rng);
	return s->pos < s->len ? s->data[s->pos++] : 0;
}

static u64 src_u64(struct model_src *s)
{
	u64 v = 0;
	int i;

	if (!s->data)
		return rng_next(&s->rng);
	for (i = 0; i < 8; i++)
		v |= (u64)src_byte(s) << (8 * i);
	return v;
}

/* A value below @n (> 0); one byte of fuzz input when that is enough. */
static u64 src_below(struct model_src *s, u64 n)
{
	if (s->data && n <= 256)
		return src_byte(s) % n;
	return src_u64(s) % n;
}

/* A random value of random magnitude: below 2^k for a random k <= 64. */
static u64 src_scaled(struct model_src *s)
{
	unsigned int shift = src_below(s, 65);

	return shift == 64 ? 0 : src_u64(s) >> shift;
}

/* Log-uniform: below 2^k for a random k < @bits. */
static u64 src_log(struct model_src *s, unsigned int bits)
{
	unsigned int k = src_below(s, bits);

	return k ? src_u64(s) >> (64 - k) : 0;
}

static struct model_entry *pick_entry(struct model *m)
{
	return &m->ents[src_below(m->src, m->nents)];
}

/*
 * A tick for add or modify: every scale, both sides of the clock, the
 * edges. Most are within 2^43 of now, where they move through the levels
 * and fire; far ones mostly sit at the top levels until the epoch ends.
 */
static u64 gen_tick(struct model *m)
{
	struct model_src *s = m->src;
	u64 now = m->now, clk = m->w.clk, t, slack, r, unit;
	unsigned int l, kind = src_below(s, 64);

	if (kind < 20)		/* log-uniform within the horizon */
		return sat_add(now, src_log(s, 43));
	if (kind < 26)		/* soon */
		return sat_add(now, src_below(s, 70));
	if (kind < 30)		/* already passed */
		return sat_sub(now, src_below(s, 100));
	if (kind < 36) {	/* a level's reach from the clock, -1, 0, +1 */
		l = src_below(s, 11);
		unit = 1ULL << (WHEEL_LVL_BITS * l);
		return sat_add(clk, unit - 1 + src_below(s, 3));
	}
	if (kind < 42) {	/* a slot boundary at some level, -1, 0, +1 */
		l = src_below(s, 11);
		unit = 1ULL << (WHEEL_LVL_BITS * l);
		t = sat_add(now | (unit - 1), 1 + src_below(s, 4) * unit);
		return sat_sub(sat_add(t, src_below(s, 3)), 1);
	}
	if (kind < 48)		/* the same tick as another entry */
		return pick_entry(m)->we.expires;
	if (kind < 56) {	/* with slack, as the device will use it */
		t = sat_add(now, src_log(s, 43));
		slack = src_below(s, 8) ? src_log(s, 43) : src_scaled(s);
		r = wt_wheel_apply_slack(t, slack);
		if (r < t || r > sat_add(t, slack) || (!slack && r != t))
			model_fail(m, "apply_slack(%#llx, %#llx) = %#llx",
				   (unsigned long long)t,
				   (unsigned long long)slack,
				   (unsigned long long)r);
		return r;
	}
	if (kind < 57)		/* far: levels 7 to 10 */
		return sat_add(clk, (1ULL << 42) + src_scaled(s));
	if (kind < 58)		/* anywhere at all */
		return src_u64(s);
	if (kind < 59)		/* the very end of time */
		return U64_MAX - src_below(s, 100);
	return sat_add(now, src_below(s, 1 << 20));
}

static void check_next_expiry(struct model *m)
{
	struct heap_node *min = heap_peek(&m->ref);
	u64 t = 0;
	bool r = wt_wheel_next_expiry(&m->w, &t);

	if (!min) {
		if (r)
			model_fail(m, "next_expiry %#llx on an empty wheel",
				   (unsigned long long)t);
		return;
	}
	if (!r)
		model_fail(m, "next_expiry false with %u pending", m->ref.n);
	/* Entries added behind the clock are due at the clock. */
	if (t > min->expires && t > m->w.clk)
		model_fail(m, "next_expiry %#llx after the earliest tick %#llx",
			   (unsigned long long)t,
			   (unsigned long long)min->expires);
	if (t < m->w.clk)
		model_fail(m, "next_expiry %#llx before the clock",
			   (unsigned long long)t);
}

static void handed_out(struct model *m, struct wheel_entry *e)
{
	struct model_entry *me = container_of(e, struct model_entry, we);
	uintptr_t off = (uintptr_t)me - (uintptr_t)m->ents;

	if ((uintptr_t)me < (uintptr_t)m->ents ||
	    off / sizeof(*me) >= m->nents || off % sizeof(*me))
		model_fail(m, "handed out a pointer that is not an entry");
	if (!heap_queued(&me->ref))
		model_fail(m, "handed out entry %zu, which is not pending",
			   (size_t)(me - m->ents));
	if (wt_wheel_entry_pending(e))
		model_fail(m, "handed out entry still linked");
	if (e->expires > m->now)
		model_fail(m, "entry %zu early: tick %#llx",
			   (size_t)(me - m->ents),
			   (unsigned long long)e->expires);
	/*
	 * A rewind makes every pending entry's hand-out clock the later of
	 * its tick and the rewound clock; only the last rewind counts.
	 */
	if (me->rewinds != m->rewinds) {
		me->eff = max(e->expires, m->rewind_clk);
		me->rewinds = m->rewinds;
	}
	if (me->eff != m->w.clk)
		model_fail(m, "entry %zu (tick %#llx) out at clock %#llx, not %#llx",
			   (size_t)(me - m->ents),
			   (unsigned long long)e->expires,
			   (unsigned long long)m->w.clk,
			   (unsigned long long)me->eff);
	heap_remove(&m->ref, &me->ref);
	m->st.fired++;
}

#define LOC_NONE	0xffff
#define LOC_DUE		(WHEEL_LEVELS * WHEEL_LVL_SIZE)

static void locate_list(struct model *m, const struct list_head *head,
			u16 where, u16 *loc)
{
	struct list_head *node;

	for (node = head->next; node != head; node = node->next) {
		struct wheel_entry *e = list_entry(node, struct wheel_entry,
						   node);

		loc[container_of(e, struct model_entry, we) - m->ents] = where;
	}
}

/* Where every entry is: a slot (level * 64 + slot), due, none. */
static void locate(struct model *m, u16 *loc)
{
	unsigned int l, i;

	for (i = 0; i < m->nents; i++)
		loc[i] = LOC_NONE;
	for (l = 0; l < WHEEL_LEVELS; l++)
		for (i = 0; i < WHEEL_LVL_SIZE; i++)
			locate_list(m, &m->w.slots[l][i], l * WHEEL_LVL_SIZE + i,
				    loc);
	locate_list(m, &m->w.due, LOC_DUE, loc);
}

/*
 * Bounded work: an entry handed out, or moved to another slot by a call,
 * was taken off the due list and charged to the budget. (Entries only
 * spliced from a slot onto the due list cost nothing, and an entry that
 * moved twice in one call is seen once, so this is a lower bound.)
 */
static void check_work(struct model *m, unsigned int units)
{
	u64 moved = 0;
	u32 i;

	locate(m, m->loc_after);
	for (i = 0; i < m->nents; i++) {
		u16 a = m->loc_before[i], b = m->loc_after[i];

		if (a == LOC_NONE && b != LOC_NONE)
			model_fail(m, "wt_wheel_expire put entry %u in the wheel", i);
		if (a != LOC_NONE && a != b && b != LOC_DUE)
			moved++;
	}
	if (moved > units)
		model_fail(m, "wt_wheel_expire moved %llu entries on %u budget units",
			   (unsigned long long)moved, units);
	m->st.watched_calls++;
}

static unsigned int gen_budget(struct model *m)
{
	switch (src_below(m->src, 8)) {
	case 0:
		return 1;
	case 1:
		return 2;
	case 2:
		return 7;
	case 3:
		return 1 + src_below(m->src, 16);
	case 4:
		return 1 + src_below(m->src, 1000);
	default:	/* enough for anything; a runaway still stops */
		return 1U << 24;
	}
}

/*
 * Call wt_wheel_expire() at the current time in rounds of a random budget;
 * with @to_end, until a round ends with budget to spare.
 */
static void drain(struct model *m, bool to_end)
{
	/*
	 * Each entry costs a unit per level it moves down and one to be
	 * handed out (WHEEL_LEVELS at most), plus one if a rewind left it on
	 * the due list before it was due, however far the clock goes.
	 */
	u64 max_units = (m->nents + 1ULL) * (WHEEL_LEVELS + 2);
	u64 units_all = 0;

	for (;;) {
		unsigned int budget = gen_budget(m), b0 = budget;
		struct wheel_entry *e;
		u64 out = 0;

		for (;;) {
			bool watch = m->watch_every && m->nents <= 256 &&
				     m->st.expire_calls % m->watch_every == 0;
			unsigned int b1 = budget;

			m->st.expire_calls++;
			if (watch)
				locate(m, m->loc_before);
			e = wt_wheel_expire(&m->w, m->now, &budget);
			if (watch)
				check_work(m, b1 - budget);
			if (!e)
				break;
			handed_out(m, e);
			out++;
		}
		if (budget > b0 || out > b0 - budget)
			model_fail(m, "budget %u -> %u but %llu handed out",
				   b0, budget, (unsigned long long)out);
		m->st.budget_units += b0 - budget;
		units_all += b0 - budget;
		if (units_all > max_units)
			model_fail(m, "%llu budget units at one time, more than %llu",
				   (unsigned long long)units_all,
				   (unsigned long long)max_units);

		if (budget) {
			struct heap_node *min = heap_peek(&m->ref);
			u64 t;

			m->st.full_drains++;
			if (min && min->expires <= m->now)
				model_fail(m, "late: tick %#llx still pending",
					   (unsigned long long)min->expires);
			if (m->w.clk != m->now)
				model_fail(m, "clock not at now once all expired");
			if (wt_wheel_next_expiry(&m->w, &t) && t <= m->now)
				model_fail(m, "next_expiry %#llx not after now",
					   (unsigned long long)t);
			break;
		}
		if (!to_end) {
			m->st.partial_drains++;
			break;
		}
	}
	if (units_all > m->st.max_units_one_drain)
		m->st.max_units_one_drain = units_all;
}

static void advance(struct model *m)
{
	struct model_src *s = m->src;
	struct heap_node *min;
	u64 d = 0;

	/*
	 * Any jump is fine: an entry is placed at most once per level on its
	 * way down however far the clock goes, and drain() checks that.
	 */
	switch (src_below(s, 16)) {
	case 0:
		break;
	case 1:
		d = 1;
		break;
	case 2:
		d = src_below(s, 64);
		break;
	case 3:
		d = src_below(s, 4096);
		break;
	case 4:
	case 5:
		d = src_below(s, 1 << 20);
		break;
	case 6:
	case 7:
	case 8:
		d = src_log(s, 37);
		break;
	case 9:		/* rarely, far: any scale up to the end of time */
		if (!src_below(s, 8))
			d = src_scaled(s);
		break;
	case 10:
	case 11:
	case 12:	/* to the reference's earliest tick, -1, 0 or +1 */
		min = heap_peek(&m->ref);
		if (min && min->expires > m->now)
			d = sat_add(min->expires - m->now, src_below(s, 3)) - 1;
		break;
	default:
		d = src_below(s, 1 << 12);
		break;
	}
	m->now = sat_add(m->now, d);
	drain(m, src_below(s, 4) != 0);
}

/* What a tickless driver does: sleep until next_expiry, then expire. */
static void tickless(struct model *m)
{
	u64 t;

	if (wt_wheel_next_expiry(&m->w, &t) && t > m->now)
		m->now = t;
	drain(m, true);
}

static void op_add(struct model *m, bool modify)
{
	struct model_entry *me = pick_entry(m);
	u64 t = gen_tick(m);

	me->eff = t > m->w.clk ? t : m->w.clk;
	me->rewinds = m->rewinds;
	if (t <= m->w.clk)
		m->st.added[WHEEL_LEVELS]++;
	else
		m->st.added[wheel_test_level(m->w.clk, t)]++;
	if (modify || wt_wheel_entry_pending(&me->we)) {
		wt_wheel_modify(&m->w, &me->we, t);
		heap_modify(&m->ref, &me->ref, t);
	} else {
		wt_wheel_add(&m->w, &me->we, t);
		heap_push(&m->ref, &me->ref, t);
	}
	if (me->we.expires != t)
		model_fail(m, "add did not set the tick");
}

static void op_cancel(struct model *m)
{
	struct model_entry *me = pick_entry(m);
	bool queued = heap_queued(&me->ref);
	bool r = wt_wheel_del(&m->w, &me->we);

	if (r != queued)
		model_fail(m, "wt_wheel_del of entry %zu returned %d, pending %d",
			   (size_t)(me - m->ents), r, queued);
	if (wt_wheel_entry_pending(&me->we))
		model_fail(m, "entry still pending after wt_wheel_del");
	if (r) {
		heap_remove(&m->ref, &me->ref);
		m->st.cancelled++;
	} else {
		m->st.cancel_missed++;
	}
}

static void take_drained(struct model *m, struct wheel_entry *e)
{
	struct model_entry *me = container_of(e, struct model_entry, we);

	if (!heap_queued(&me->ref))
		model_fail(m, "wt_wheel_drain returned an entry not pending");
	if (wt_wheel_entry_pending(e))
		model_fail(m, "drained entry still linked");
	heap_remove(&m->ref, &me->ref);
	m->st.drained++;
}

static void op_drain_one(struct model *m)
{
	struct wheel_entry *e = wt_wheel_drain(&m->w);

	if (!e) {
		if (m->ref.n)
			model_fail(m, "wt_wheel_drain NULL with %u pending",
				   m->ref.n);
		return;
	}
	take_drained(m, e);
}

static void white_box(struct model *m)
{
	u64 levels[WHEEL_LEVELS + 1];
	const char *err = wheel_check(&m->w, levels);
	unsigned int l;

	if (err)
		model_fail(m, "wheel_check: %s", err);
	if (heap_verify(&m->ref))
		model_fail(m, "the reference heap is broken");
	for (l = 0; l < WHEEL_LEVELS + 1; l++)
		m->st.placed[l] += levels[l];
	m->st.checks++;
}

/* Where the caller's clock steps back to: every scale, and the edges. */
static u64 gen_rewind(struct model *m)
{
	struct model_src *s = m->src;
	u64 now = m->now, clk = m->w.clk, unit, b, t;

	switch (src_below(s, 10)) {
	case 0:		/* no step back, or a step forward: nothing to do */
		return sat_add(now, src_below(s, 3));
	case 1:
		return sat_sub(now, 1);
	case 2:		/* within or across a level-0 slot */
		return sat_sub(clk, 1 + src_below(s, 64));
	case 3:
	case 4:		/* across the digit boundary of a level, -1, 0, +1 */
		unit = 1ULL << (WHEEL_LVL_BITS * src_below(s, WHEEL_LEVELS));
		b = clk & ~(unit - 1);
		return sat_sub(sat_add(b, src_below(s, 3)), 1);
	case 5:		/* log-uniform, every scale */
		return sat_sub(clk, src_log(s, 65));
	case 6:		/* anywhere below */
		return now == U64_MAX ? src_u64(s) : src_u64(s) % (now + 1);
	case 7:
		return 0;
	case 8:		/* an entry's tick, -1, 0, +1 */
		t = pick_entry(m)->we.expires;
		return sat_sub(sat_add(t, src_below(s, 3)), 1);
	default:
		return sat_sub(now, src_below(s, 1 << 20));
	}
}

/*
 * The caller's clock steps back (or not) to a new reading, and the caller
 * tells the wheel; then, often, it collects what is due at the new time.
 */
static void op_rewind(struct model *m)
{
	u64 to = gen_rewind(m), old = m->w.clk, occ[WHEEL_LEVELS];
	u64 want, slots_below = 0, ops, due_future = 0;
	const struct list_head *node;
	unsigned int h, l, idx;

	/* Only the first case reads later than now, and by 2 at most. */
	if (to > sat_add(m->now, 2))
		to = m->now;
	memcpy(occ, m->w.occupied, sizeof(occ));
	if (to < old)
		for (node = m->w.due.next; node != &m->w.due; node = node->next)
			due_future += list_entry(node, struct wheel_entry,
						 node)->expires > to;
	ops = wheel_shim_list_ops;
	wt_wheel_rewind(&m->w, to);
	ops = wheel_shim_list_ops - ops;

	if (to >= old) {
		if (m->w.clk != old || ops ||
		    memcmp(occ, m->w.occupied, sizeof(occ)))
			model_fail(m, "rewind to %#llx, not behind %#llx, changed it",
				   (unsigned long long)to,
				   (unsigned long long)old);
		m->st.rewind_noops++;
		m->now = to;
		return;
	}

	if (m->w.clk != to)
		model_fail(m, "rewind from %#llx to %#llx left the clock at %#llx",
			   (unsigned long long)old, (unsigned long long)to,
			   (unsigned long long)m->w.clk);
	/* The layout the proof in wheel.c predicts, worked out here. */
	h = wheel_test_level(old, to);
	idx = (old >> (WHEEL_LVL_BITS * h)) & (WHEEL_LVL_SIZE - 1);
	for (l = 0; l < h; l++)
		slots_below += __builtin_popcountll(occ[l]);
	for (l = 0; l < WHEEL_LEVELS; l++) {
		want = l < h ? 0 : occ[l];
		if (l == h && slots_below)
			want |= 1ULL << idx;
		if (m->w.occupied[l] != want)
			model_fail(m, "rewind %#llx to %#llx (H %u): L%u occupied %#llx, not %#llx",
				   (unsigned long long)old,
				   (unsigned long long)to, h, l,
				   (unsigned long long)m->w.occupied[l],
				   (unsigned long long)want);
	}
	if (ops > slots_below)
		model_fail(m, "rewind made %llu list operations for %llu slots",
			   (unsigned long long)ops,
			   (unsigned long long)slots_below);

	m->now = to;
	m->rewinds++;
	m->rewind_clk = to;
	m->st.rewound[h]++;
	m->st.rewind_splices += ops;
	m->st.rewind_future_due += due_future;
	if (ops > m->st.rewind_max_splices)
		m->st.rewind_max_splices = ops;
	if (m->nents <= 256 || !(m->st.rewound[h] % 16))
		white_box(m);
	if (src_below(m->src, 2))
		drain(m, src_below(m->src, 4) != 0);
}

int model_epoch_begin(struct model *m, struct model_src *src, u32 max_pool)
{
	static const u32 pools[] = { 1, 2, 3, 8, 16, 64, 256, 1024, 4096 };
	u64 start;
	u32 i, n;

	m->src = src;
	switch (src_below(src, 6)) {
	case 0:
		start = 0;
		break;
	case 1:
		start = src_scaled(src);
		break;
	case 2:
		start = U64_MAX - src_scaled(src);
		break;
	case 3:		/* just before a digit of some level carries */
		start = sat_sub(src_u64(src) & ~((1ULL << (WHEEL_LVL_BITS *
				(1 + src_below(src, WHEEL_LEVELS - 1)))) - 1),
				src_below(src, 5000));
		break;
	case 4:
		start = U64_MAX - src_below(src, 200);
		break;
	default:
		start = src_u64(src);
		break;
	}
	do {
		n = pools[src_below(src, ARRAY_SIZE(pools))];
	} while (n > max_pool);

	m->ents = calloc(n, sizeof(*m->ents));
	m->loc_before = calloc(n, sizeof(*m->loc_before));
	m->loc_after = calloc(n, sizeof(*m->loc_after));
	if (!m->ents || !m->loc_before || !m->loc_after ||
	    heap_init(&m->ref, n))
		return -1;
	m->nents = n;
	for (i = 0; i < n; i++) {
		wt_wheel_entry_init(&m->ents[i].we);
		heap_node_init(&m->ents[i].ref);
	}
	wt_wheel_init(&m->w, start);
	m->now = start;
	m->rewinds = 0;
	m->rewind_clk = start;
	m->st.epochs++;
	return 0;
}

bool model_step(struct model *m)
{
	struct model_src *s = m->src;
	unsigned int op;

	if (src_dry(s))
		return false;

	op = src_below(s, 64);
	if (op < 18) {
		m->st.op[OP_ADD]++;
		op_add(m, false);
	} else if (op < 28) {
		m->st.op[OP_CANCEL]++;
		op_cancel(m);
	} else if (op < 36) {
		m->st.op[OP_MODIFY]++;
		op_add(m, true);
	} else if (op < 47) {
		m->st.op[OP_ADVANCE]++;
		advance(m);
	} else if (op < 50) {
		m->st.op[OP_REWIND]++;
		op_rewind(m);
	} else if (op < 56) {
		m->st.op[OP_EXPIRE]++;
		drain(m, src_below(s, 2));
	} else if (op < 63) {
		m->st.op[OP_TICKLESS]++;
		tickless(m);
	} else {
		m->st.op[OP_DRAIN_ONE]++;
		op_drain_one(m);
	}
	m->st.steps++;
	if (m->now >> 63)
		m->st.near_max_clk++;

	if (m->w.count != m->ref.n)
		model_fail(m, "count %llu, reference %u",
			   (unsigned long long)m->w.count, m->ref.n);
	if (m->w.clk > m->now)
		model_fail(m, "clock ahead of now");
	check_next_expiry(m);
	if (m->check_every && m->st.steps % m->check_every == 0)
		white_box(m);
	return true;
}

void model_epoch_end(struct model *m)
{
	struct wheel_entry *e;
	unsigned int budget = UINT32_MAX;
	u64 t;

	white_box(m);
	while ((e = wt_wheel_drain(&m->w)))
		take_drained(m, e);
	if (m->ref.n)
		model_fail(m, "wt_wheel_drain left %u pending behind", m->ref.n);
	if (m->w.count || wt_wheel_next_expiry(&m->w, &t))
		model_fail(m, "drained wheel not empty");
	if (wt_wheel_expire(&m->w, m->now, &budget))
		model_fail(m, "drained wheel still hands out");
	white_box(m);
	heap_free(&m->ref);
	free(m->ents);
	free(m->loc_before);
	free(m->loc_after);
	m->ents = NULL;
	m->nents = 0;
}
