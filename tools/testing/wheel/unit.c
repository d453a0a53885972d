// SPDX-License-Identifier: GPL-2.0
/*
 * unit.c - one test per operation and per edge of module/wheel.c, with the
 * expected answers worked out independently of the wheel's own formulas.
 * Prints TAP; exits non-zero if any test fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heap.h"
#include "wheel_test.h"

static unsigned int cur_fail;
static unsigned long checks;

#define CHECK(cond) do {						\
	checks++;							\
	if (!(cond)) {							\
		if (cur_fail++ < 8)					\
			printf("#   %s:%d: failed: %s\n", __FILE__,	\
			       __LINE__, #cond);			\
	}								\
} while (0)

/* Also reports the values, for checks whose operands tell the story. */
#define CHECK_EQ(a, b) do {						\
	unsigned long long __a = (a), __b = (b);			\
	checks++;							\
	if (__a != __b) {						\
		if (cur_fail++ < 8)					\
			printf("#   %s:%d: failed: %s == %s (%#llx != %#llx)\n", \
			       __FILE__, __LINE__, #a, #b, __a, __b);	\
	}								\
} while (0)

static struct wheel wheel;

static void check_layout(const struct wheel *w)
{
	const char *err = wheel_check(w, NULL);

	if (err)
		printf("#   wheel_check: %s\n", err);
	CHECK(!err);
}

/* The highest base-64 digit in which @a and @b differ, by digit compare. */
static unsigned int digit_level(u64 a, u64 b)
{
	int d;

	for (d = 10; d >= 0; d--)
		if (((a >> (6 * d)) & 63) != ((b >> (6 * d)) & 63))
			return d;
	return 0;
}

static u64 lowbits(unsigned int bits)
{
	return bits >= 64 ? U64_MAX : (1ULL << bits) - 1;
}

/*
 * Where an entry @e added at clock @clk waits, as a number: its slot (the
 * level and the digit there, with the digits above, which the clock
 * shares), or, for one due at once, the due list (U64_MAX).
 */
static u64 slot_of(u64 clk, u64 e)
{
	unsigned int l;

	if (e <= clk)
		return U64_MAX;
	l = digit_level(clk, e);
	return (u64)l << 60 | (e >> (6 * l) & 63);
}

/*
 * wt_wheel_expire() with a budget far beyond what these small tests need: a
 * NULL that spent it all means the wheel went round in circles.
 */
static struct wheel_entry *expire_one(struct wheel *w, u64 now)
{
	unsigned int budget = 1U << 20;
	struct wheel_entry *e = wt_wheel_expire(w, now, &budget);

	CHECK(e || budget);
	return e;
}

static void t_empty(void)
{
	struct wheel *w = &wheel;
	unsigned int budget = 5;
	u64 t;

	wt_wheel_init(w, 1234);
	CHECK(!wt_wheel_next_expiry(w, &t));
	CHECK(!wt_wheel_expire(w, 1000, &budget));
	CHECK_EQ(w->clk, 1234);
	CHECK(!wt_wheel_expire(w, 5000, &budget));
	CHECK_EQ(w->clk, 5000);
	CHECK_EQ(budget, 5);
	CHECK(!wt_wheel_drain(w));
	CHECK_EQ(w->count, 0);
	check_layout(w);
}

static void t_sizes(void)
{
	CHECK_EQ(sizeof(struct wheel_entry), 24);
	/*
	 * 704 slot heads and the due list's, 704 earliest ticks, the bitmaps,
	 * clock and count.
	 */
	CHECK_EQ(sizeof(struct wheel),
		 (WHEEL_LEVELS * WHEEL_LVL_SIZE + 1) * 16 +
		 WHEEL_LEVELS * WHEEL_LVL_SIZE * 8 + (WHEEL_LEVELS + 2) * 8);
	printf("#   sizeof(struct wheel_entry) %zu, sizeof(struct wheel) %zu\n",
	       sizeof(struct wheel_entry), sizeof(struct wheel));
}

static void t_past_and_now(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry a, b, c, *e;
	unsigned int n = 0, l;
	u64 t = 0;

	wt_wheel_init(w, 1000);
	wt_wheel_entry_init(&a);
	wt_wheel_entry_init(&b);
	wt_wheel_entry_init(&c);
	wt_wheel_add(w, &a, 5);
	wt_wheel_add(w, &b, 1000);
	wt_wheel_add(w, &c, 0);
	CHECK(!list_empty(&w->due));
	for (l = 0; l < WHEEL_LEVELS; l++)
		CHECK_EQ(w->occupied[l], 0);
	CHECK(wt_wheel_entry_pending(&a));
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 1000);
	check_layout(w);
	/* A caller whose clock reads behind the wheel's gets nothing. */
	CHECK(!expire_one(w, 999));
	CHECK_EQ(w->count, 3);
	while ((e = expire_one(w, 1000))) {
		CHECK(e == &a || e == &b || e == &c);
		CHECK(!wt_wheel_entry_pending(e));
		n++;
	}
	CHECK_EQ(n, 3);
	CHECK_EQ(w->count, 0);
	CHECK(!wt_wheel_del(w, &a));
	CHECK(!wt_wheel_next_expiry(w, &t));
	check_layout(w);
}

static void t_zero_budget(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry a;
	unsigned int budget = 0;

	wt_wheel_init(w, 0);
	wt_wheel_entry_init(&a);
	wt_wheel_add(w, &a, 0);
	CHECK(!wt_wheel_expire(w, 10, &budget));
	CHECK(wt_wheel_entry_pending(&a));
	CHECK_EQ(w->clk, 0);
	budget = 1;
	CHECK(wt_wheel_expire(w, 10, &budget) == &a);
	CHECK_EQ(budget, 0);
	CHECK(!wt_wheel_expire(w, 10, &budget));
}

static void t_slot_boundary(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry a, b, c;
	u64 t = 0;

	wt_wheel_init(w, 0);
	wt_wheel_entry_init(&a);
	wt_wheel_entry_init(&b);
	wt_wheel_add(w, &a, 64);
	wt_wheel_add(w, &b, 63);
	CHECK_EQ(w->occupied[0], 1ULL << 63);
	CHECK_EQ(w->occupied[1], 1ULL << 1);
	CHECK(w->slots[1][1].next == &a.node);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 63);
	CHECK(!expire_one(w, 62));
	CHECK_EQ(w->clk, 62);
	CHECK(expire_one(w, 63) == &b);
	CHECK(!expire_one(w, 63));
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 64);
	CHECK(expire_one(w, 64) == &a);
	CHECK_EQ(w->clk, 64);

	/* Digit 1 of 128 is 2: slot 2 of level 1, starting right at 128. */
	wt_wheel_init(w, 70);
	wt_wheel_entry_init(&c);
	wt_wheel_add(w, &c, 128);
	CHECK_EQ(w->occupied[1], 1ULL << 2);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 128);
	CHECK(!expire_one(w, 127));
	CHECK(expire_one(w, 128) == &c);
	check_layout(w);
}

/*
 * Put one entry at @base + @dist and check where it lands, what
 * next_expiry says (its tick), and that a tickless driver (sleep until
 * next_expiry, expire, repeat) gets it exactly at its tick, never before,
 * at its first wake-up: none only cascades it.
 */
static void one_entry(u64 base, u64 dist)
{
	struct wheel *w = &wheel;
	struct wheel_entry a;
	u64 e = base + dist, t = 0, wakeups = 0;
	unsigned int l = digit_level(base, e);
	struct wheel_entry *got;

	wt_wheel_init(w, base);
	wt_wheel_entry_init(&a);
	wt_wheel_add(w, &a, e);
	CHECK(l < WHEEL_LEVELS);
	CHECK(w->slots[l][(e >> (6 * l)) & 63].next == &a.node);
	CHECK_EQ(w->occupied[l], 1ULL << ((e >> (6 * l)) & 63));
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, e);
	check_layout(w);

	/*
	 * However far: a tickless driver (sleep until next_expiry, expire)
	 * gets it at its first wake-up, none of them only cascading it.
	 */
	while (!cur_fail && wt_wheel_next_expiry(w, &t)) {
		CHECK(t <= e);
		if (t > w->clk)
			CHECK(!expire_one(w, t - 1));
		got = expire_one(w, t);
		wakeups++;
		if (got) {
			CHECK(got == &a);
			CHECK_EQ(t, e);
			CHECK_EQ(w->clk, e);
			break;
		}
		if (wakeups > WHEEL_LEVELS)	/* a broken wheel */
			break;
	}
	CHECK_EQ(wakeups, 1);
	CHECK_EQ(w->count, 0);

	/* And a caller that jumps straight there gets it at once. */
	wt_wheel_init(w, base);
	wt_wheel_add(w, &a, e);
	if (e > base)
		CHECK(!expire_one(w, e - 1));
	CHECK(expire_one(w, e) == &a);
	CHECK_EQ(w->count, 0);
}

static void t_level_boundaries(void)
{
	static const u64 bases[] = {
		0, 1, 63, 64, 4095, 0x123456789abcdefULL, (1ULL << 42) - 1,
		1ULL << 42, 0x7fffffffffffffffULL, 0xfffffc0000000000ULL,
		U64_MAX - (1ULL << 61),
	};
	unsigned int l, b, k;

	for (l = 0; l <= 10; l++) {
		u64 unit = 1ULL << (6 * l);
		u64 dists[] = { unit - 1, unit, unit + 1 };

		for (b = 0; b < ARRAY_SIZE(bases); b++) {
			for (k = 0; k < 3 && !cur_fail; k++) {
				if (!dists[k] || bases[b] > U64_MAX - dists[k])
					continue;
				one_entry(bases[b], dists[k]);
			}
		}
		/* The same distances back from the end of time. */
		for (k = 0; k < 3; k++)
			if (dists[k])
				one_entry(U64_MAX - dists[k], dists[k]);
	}
}

/*
 * The top levels: 64^L and the largest digit L from clock 0 land in level
 * L, the top one using slots 1 to 15 only; an entry alone there clears its
 * bit when cancelled; what used to be past the horizon (2^42 and beyond)
 * is in a slot like any other tick.
 */
static void t_top_levels(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry a, b;
	unsigned int l, top, k;
	u64 t = 0;

	wt_wheel_entry_init(&a);
	wt_wheel_entry_init(&b);
	for (l = 0; l < WHEEL_LEVELS; l++) {
		top = l == 10 ? 15 : 63;
		wt_wheel_init(w, 0);
		wt_wheel_add(w, &a, 1ULL << (6 * l));
		wt_wheel_add(w, &b, (u64)top << (6 * l));
		CHECK(w->slots[l][1].next == &a.node);
		CHECK(w->slots[l][top].next == &b.node);
		for (k = 0; k < WHEEL_LEVELS; k++)
			CHECK_EQ(w->occupied[k],
				 k == l ? (1ULL << 1) | (1ULL << top) : 0);
		CHECK(wt_wheel_next_expiry(w, &t));
		CHECK_EQ(t, 1ULL << (6 * l));
		check_layout(w);
		CHECK(wt_wheel_del(w, &b));
		CHECK_EQ(w->occupied[l], 1ULL << 1);
		CHECK(wt_wheel_del(w, &a));
		CHECK_EQ(w->occupied[l], 0);
		CHECK(!wt_wheel_next_expiry(w, &t));
	}

	/* 2^42 is level 7, slot 1: handed out at its tick, no earlier. */
	wt_wheel_init(w, 0);
	wt_wheel_add(w, &a, 1ULL << 42);
	CHECK_EQ(w->occupied[7], 1ULL << 1);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 1ULL << 42);
	CHECK(!expire_one(w, (1ULL << 42) - 1));
	CHECK(expire_one(w, 1ULL << 42) == &a);

	/* Far entries wait in their slots, not on a list re-examined. */
	wt_wheel_init(w, 17);
	wt_wheel_add(w, &a, (3ULL << 42) + 7);
	wt_wheel_add(w, &b, (5ULL << 42) + 9);
	CHECK_EQ(w->occupied[7], (1ULL << 3) | (1ULL << 5));
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, (3ULL << 42) + 7);
	CHECK(!expire_one(w, (3ULL << 42) + 6));
	CHECK_EQ(w->clk, (3ULL << 42) + 6);
	CHECK(expire_one(w, 6ULL << 42) == &a);
	CHECK_EQ(w->clk, (3ULL << 42) + 7);
	CHECK(expire_one(w, 6ULL << 42) == &b);
	CHECK_EQ(w->clk, (5ULL << 42) + 9);
	check_layout(w);

	/*
	 * The top digit's slot starts, with the clock's low digits set: the
	 * start keeps no bit of the clock below digit 10 (no shift by 66).
	 */
	wt_wheel_init(w, 0x0123456789abcdefULL);
	wt_wheel_add(w, &a, 0xa000000000000000ULL + 12345);
	CHECK_EQ(w->occupied[10], 1ULL << 10);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 0xa000000000000000ULL + 12345);
	CHECK(!expire_one(w, 0xa000000000000000ULL + 12344));
	CHECK(expire_one(w, 0xa000000000000000ULL + 12345) == &a);
}

/*
 * From 0 to the end of time in one go: each entry is placed at most once
 * per level on its way down, WHEEL_LEVELS budget units at most, however
 * far the jump (with an overflow list re-examined every 2^42 ticks this
 * was 2^22 passes over every far entry).
 */
static void t_jump_to_the_end(void)
{
	const unsigned int n = 100000;
	struct wheel *w = &wheel;
	struct wheel_entry *ents = calloc(n, sizeof(*ents)), a, *e;
	unsigned int i, out = 0, budget;
	u64 rng = 3, units, last = 0;
	bool ordered = true, exact = true;

	if (!ents) {
		CHECK(ents);
		return;
	}

	/* U64_MAX alone: level 10 slot 15, then each level's slot 63. */
	wt_wheel_init(w, 0);
	wt_wheel_entry_init(&a);
	wt_wheel_add(w, &a, U64_MAX);
	CHECK(w->slots[10][15].next == &a.node);
	budget = 1000;
	CHECK(!wt_wheel_expire(w, U64_MAX - 1, &budget));
	CHECK_EQ(1000 - budget, WHEEL_LEVELS - 1);
	CHECK_EQ(w->occupied[0], 1ULL << 63);
	CHECK(wt_wheel_expire(w, U64_MAX, &budget) == &a);
	CHECK_EQ(1000 - budget, WHEEL_LEVELS);
	CHECK_EQ(w->clk, U64_MAX);

	wt_wheel_init(w, 0);
	for (i = 0; i < n; i++) {
		wt_wheel_entry_init(&ents[i]);
		wt_wheel_add(w, &ents[i], i % 16 ? U64_MAX -
			     (rng_next(&rng) >> (rng_next(&rng) % 64)) : U64_MAX);
	}
	check_layout(w);
	budget = WHEEL_LEVELS * n + 1;
	while ((e = wt_wheel_expire(w, U64_MAX, &budget))) {
		ordered &= e->expires >= last;
		exact &= e->expires == w->clk;
		last = e->expires;
		out++;
	}
	units = WHEEL_LEVELS * n + 1 - budget;
	CHECK(budget);
	CHECK_EQ(out, n);
	CHECK(ordered);
	CHECK(exact);
	CHECK(units <= (u64)WHEEL_LEVELS * n);
	printf("#   %u entries from 0 to near U64_MAX: %.2f units each\n", n,
	       (double)units / n);
	free(ents);
}

static void t_end_of_time(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry a, b, *e;
	unsigned int n = 0;
	u64 t = 0;

	wt_wheel_init(w, 0);
	wt_wheel_entry_init(&a);
	wt_wheel_entry_init(&b);
	wt_wheel_add(w, &a, U64_MAX);
	CHECK_EQ(w->occupied[10], 1ULL << 15);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, U64_MAX);		/* level 10, slot 15, at its tick */
	CHECK(expire_one(w, U64_MAX) == &a);
	CHECK_EQ(w->clk, U64_MAX);

	wt_wheel_init(w, U64_MAX - 5);
	wt_wheel_add(w, &a, U64_MAX - 3);
	wt_wheel_add(w, &b, U64_MAX);
	while ((e = expire_one(w, U64_MAX)))
		n++;
	CHECK_EQ(n, 2);
	CHECK_EQ(w->clk, U64_MAX);
	/* At the end of time everything is due. */
	wt_wheel_add(w, &a, U64_MAX);
	CHECK(!list_empty(&w->due));
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, U64_MAX);
	CHECK(expire_one(w, U64_MAX) == &a);

	wt_wheel_init(w, U64_MAX);
	wt_wheel_add(w, &a, 0);
	CHECK(expire_one(w, U64_MAX) == &a);

	/* With the clock's top bits all ones, U64_MAX is a level-6 tick. */
	wt_wheel_init(w, 0xfffffc0000000005ULL);
	wt_wheel_add(w, &a, U64_MAX);
	CHECK_EQ(w->occupied[6], 1ULL << 63);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, U64_MAX);		/* level 6, slot 63, at its tick */
	CHECK(!expire_one(w, U64_MAX - 1));
	CHECK(expire_one(w, U64_MAX) == &a);
	check_layout(w);
}

static void t_cancel(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry a, b, c, d, *left, *moved;
	unsigned int budget;
	u64 t = 0;

	wt_wheel_init(w, 0);
	wt_wheel_entry_init(&a);
	wt_wheel_entry_init(&b);
	wt_wheel_entry_init(&c);
	wt_wheel_entry_init(&d);

	CHECK(!wt_wheel_del(w, &a));		/* never added */
	wt_wheel_add(w, &a, 100);
	CHECK(wt_wheel_del(w, &a));
	CHECK(!wt_wheel_del(w, &a));		/* twice */
	CHECK_EQ(w->count, 0);
	CHECK_EQ(w->occupied[1], 0);		/* the only entry: bit cleared */
	CHECK(!wt_wheel_next_expiry(w, &t));

	/* Four in one slot (64..127 at level 1), in the order a, b, c, d. */
	wt_wheel_add(w, &a, 100);
	wt_wheel_add(w, &b, 101);
	wt_wheel_add(w, &c, 102);
	wt_wheel_add(w, &d, 103);
	CHECK(wt_wheel_del(w, &b));		/* in the middle */
	CHECK_EQ(w->occupied[1], 1ULL << 1);
	CHECK(wt_wheel_del(w, &a));		/* first, not the only one */
	CHECK_EQ(w->occupied[1], 1ULL << 1);
	CHECK(wt_wheel_del(w, &d));		/* last, not the only one */
	CHECK_EQ(w->occupied[1], 1ULL << 1);
	CHECK(wt_wheel_del(w, &c));		/* the only one */
	CHECK_EQ(w->occupied[1], 0);
	check_layout(w);

	/*
	 * An entry alone on the due list leaves the bits alone; one alone in
	 * the top level's last slot clears its bit.
	 */
	wt_wheel_add(w, &a, 100);
	wt_wheel_add(w, &b, 0);
	wt_wheel_add(w, &c, U64_MAX);
	CHECK_EQ(w->occupied[10], 1ULL << 15);
	CHECK(wt_wheel_del(w, &b));
	CHECK_EQ(w->occupied[1], 1ULL << 1);
	CHECK_EQ(w->occupied[10], 1ULL << 15);
	CHECK(wt_wheel_del(w, &c));
	CHECK_EQ(w->occupied[1], 1ULL << 1);
	CHECK_EQ(w->occupied[10], 0);
	check_layout(w);

	/* Handed out, then cancelled: too late, false. */
	CHECK(expire_one(w, 100) == &a);
	CHECK(!wt_wheel_del(w, &a));

	/* Drained, then cancelled. */
	wt_wheel_add(w, &a, 5000);
	CHECK(wt_wheel_drain(w) == &a);
	CHECK(!wt_wheel_del(w, &a));

	/*
	 * A slot spliced onto due and left half done: its entries are on the
	 * due list now, and cancelling them must not clear the bit of the
	 * slot, which has new entries meanwhile.
	 */
	wt_wheel_init(w, 0);
	wt_wheel_add(w, &a, 4096 + 1);
	wt_wheel_add(w, &b, 4096 + 2);
	budget = 1;
	CHECK(!wt_wheel_expire(w, 4096 + 2, &budget));	/* one cascaded */
	CHECK_EQ(w->clk, 4096);
	CHECK(!list_empty(&w->due));
	wt_wheel_add(w, &c, 4096 + 3);
	wt_wheel_add(w, &d, 4096 + 3);
	CHECK(w->occupied[0] & (1ULL << 3));
	left = w->due.next == &a.node ? &a : &b;
	moved = left == &a ? &b : &a;
	CHECK(w->due.prev == &left->node);	/* alone on the due list */
	CHECK(wt_wheel_del(w, left));
	CHECK(w->occupied[0] & (1ULL << 3));
	check_layout(w);
	/* The due list is empty again: the earliest is the other's new slot. */
	CHECK(list_empty(&w->due));
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, moved->expires);
}

static void t_modify(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry a;
	u64 t = 0;

	wt_wheel_init(w, 0);
	wt_wheel_entry_init(&a);

	wt_wheel_add(w, &a, 1ULL << 33);			/* level 5 */
	wt_wheel_modify(w, &a, 10);			/* earlier */
	CHECK_EQ(w->count, 1);
	CHECK_EQ(w->occupied[5], 0);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 10);
	wt_wheel_modify(w, &a, 1ULL << 20);		/* later */
	CHECK(!expire_one(w, 10));
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 1ULL << 20);
	CHECK(!expire_one(w, (1ULL << 20) - 1));
	CHECK(expire_one(w, 1ULL << 20) == &a);

	/* Re-arming an entry that was handed out, as a periodic timer does. */
	wt_wheel_modify(w, &a, (1ULL << 20) + 64);
	CHECK(wt_wheel_entry_pending(&a));
	CHECK_EQ(w->count, 1);
	CHECK(expire_one(w, (1ULL << 20) + 64) == &a);

	/* Into the past: due at once. */
	wt_wheel_add(w, &a, 1ULL << 30);
	wt_wheel_modify(w, &a, 5);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, w->clk);
	CHECK(expire_one(w, w->clk) == &a);
	CHECK_EQ(w->count, 0);
	check_layout(w);
}

/* A slot of 100000 entries, expired seven entries' worth at a time. */
static void big_slot(bool same_tick)
{
	const unsigned int n = 100000;
	const u64 base = 5ULL << 18;			/* level 3, slot 5 */
	struct wheel *w = &wheel;
	struct wheel_entry *ents = calloc(n, sizeof(*ents)), *e;
	u64 now = base + (1ULL << 18) - 1, t = 0, last = 0, units = 0, rounds = 0;
	unsigned int i, out = 0, budget;
	bool ordered = true, early = false, clk_ok = true;

	if (!ents) {
		CHECK(ents);
		return;
	}
	wt_wheel_init(w, 0);
	for (i = 0; i < n; i++) {
		wt_wheel_entry_init(&ents[i]);
		wt_wheel_add(w, &ents[i],
			     same_tick ? base : base + (i * 7919ULL) % (1ULL << 18));
	}
	CHECK_EQ(w->occupied[3], 1ULL << 5);
	check_layout(w);
	while (out < n) {
		budget = 7;
		while ((e = wt_wheel_expire(w, now, &budget))) {
			ordered &= e->expires >= last;
			early |= e->expires > now;
			clk_ok &= e->expires == w->clk;
			last = e->expires;
			out++;
		}
		units += 7 - budget;
		if (++rounds > 10 * n) {
			CHECK(rounds <= 10 * n);
			break;
		}
		if (!budget || out == n)
			continue;
		/* Budget left over but entries remain: must not happen. */
		CHECK(out == n);
		break;
	}
	CHECK_EQ(out, n);
	CHECK(ordered);
	CHECK(!early);
	CHECK(clk_ok);
	CHECK(rounds >= (n + 6) / 7);
	if (same_tick)
		CHECK_EQ(units, n);	/* no cascade at all */
	else
		CHECK(units <= 4ULL * n);
	CHECK_EQ(w->count, 0);
	CHECK(!wt_wheel_next_expiry(w, &t));
	printf("#   %u entries %s: %llu rounds of budget 7, %llu units\n", n,
	       same_tick ? "on one tick" : "spread over the slot",
	       (unsigned long long)rounds, (unsigned long long)units);
	free(ents);
}

static void t_budget_big_slot(void)
{
	big_slot(true);
	big_slot(false);
}

/* While a slot is only part done, next_expiry says "now". */
static void t_budget_next_expiry(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry ents[20];
	unsigned int i, budget = 3;
	u64 t = 0;

	wt_wheel_init(w, 0);
	for (i = 0; i < 20; i++) {
		wt_wheel_entry_init(&ents[i]);
		wt_wheel_add(w, &ents[i], 4096 + i);
	}
	CHECK(!wt_wheel_expire(w, 5000, &budget) || budget < 3);
	while (wt_wheel_expire(w, 5000, &budget))
		;
	CHECK_EQ(budget, 0);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK(t <= 5000 && t == w->clk);
	check_layout(w);
}

/*
 * What next_expiry says of the entries @ents[@from..@n), all added at
 * @clk, none expired, the ones before @from cancelled: the clock if one
 * waits on the due list, else the earliest tick put in the earliest slot
 * still holding one of them, the ticks of the cancelled entries that
 * shared that slot included (a slot forgets its earliest tick only once
 * it is empty).
 */
static u64 want_next(u64 clk, const struct wheel_entry *ents,
		     unsigned int from, unsigned int n)
{
	u64 slot = U64_MAX, first = U64_MAX, s, t;
	unsigned int i;

	for (i = from; i < n; i++) {
		s = slot_of(clk, ents[i].expires);
		if (s == U64_MAX)
			return clk;
		/* Lower levels first, then lower digits. */
		if (s < slot)
			slot = s;
	}
	for (i = 0; i < n; i++) {
		t = ents[i].expires;
		if (slot_of(clk, t) == slot && t < first)
			first = t;
	}
	return first;
}

static void t_next_expiry_random(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry ents[10];
	u64 rng = 42, clk, t = 0;
	unsigned int trial, i, n;

	for (trial = 0; trial < 20000; trial++) {
		clk = rng_next(&rng) >> (rng_next(&rng) % 64);
		n = 1 + rng_next(&rng) % 10;
		wt_wheel_init(w, clk);
		for (i = 0; i < n; i++) {
			u64 e = sat_add(clk, rng_next(&rng) >>
					(rng_next(&rng) % 64));

			if (!(rng_next(&rng) % 8))
				e = sat_sub(clk, rng_next(&rng) % 100);
			/* Now and then, two in one slot. */
			if (i && !(rng_next(&rng) % 4) && ents[i - 1].expires > clk)
				e = ents[i - 1].expires | (rng_next(&rng) % 64);
			wt_wheel_entry_init(&ents[i]);
			wt_wheel_add(w, &ents[i], e);
		}
		CHECK(wt_wheel_next_expiry(w, &t));
		CHECK_EQ(t, want_next(clk, ents, 0, n));
		/* Cancel them one by one; the answer follows. */
		for (i = 0; i < n; i++) {
			wt_wheel_del(w, &ents[i]);
			if (i + 1 < n) {
				CHECK(wt_wheel_next_expiry(w, &t));
				CHECK_EQ(t, want_next(clk, ents, i + 1, n));
			} else {
				CHECK(!wt_wheel_next_expiry(w, &t));
			}
		}
		check_layout(w);
	}
}

static void t_drain(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry ents[8], *e;
	static const u64 ticks[8] = {
		0, 999, 1000, 1001, 1 << 20, 1ULL << 40, 1ULL << 50, U64_MAX,
	};
	unsigned int i, n = 0, seen = 0;
	u64 t;

	wt_wheel_init(w, 1000);
	for (i = 0; i < 8; i++) {
		wt_wheel_entry_init(&ents[i]);
		wt_wheel_add(w, &ents[i], ticks[i]);
	}
	while ((e = wt_wheel_drain(w))) {
		i = e - ents;
		if (i >= 8 || n >= 8) {		/* not an entry, or too many */
			CHECK(i < 8 && n < 8);
			break;
		}
		CHECK(!(seen & (1U << i)));
		seen |= 1U << i;
		CHECK(!wt_wheel_entry_pending(e));
		/* Due ones first, the top levels last. */
		if (n < 3)
			CHECK(ticks[i] <= 1000);
		if (n >= 6)
			CHECK(ticks[i] >= 1ULL << 50);
		n++;
	}
	CHECK_EQ(n, 8);
	CHECK_EQ(seen, 0xff);
	CHECK_EQ(w->count, 0);
	for (i = 0; i < WHEEL_LEVELS; i++)
		CHECK_EQ(w->occupied[i], 0);
	CHECK(!wt_wheel_next_expiry(w, &t));
	CHECK(!expire_one(w, U64_MAX));
	check_layout(w);
}

/* The best tick in the window, by brute force from the coarsest down. */
static u64 slack_reference(u64 expires, u64 slack)
{
	u64 limit = sat_add(expires, slack), c;
	int b;

	if (!slack)
		return expires;
	if (!expires)
		return 0;
	for (b = 63; b >= 0; b--) {
		u64 mask = (1ULL << b) - 1;

		if (expires > U64_MAX - mask)
			continue;
		c = (expires + mask) & ~mask;
		if (c <= limit)
			return c;
	}
	return expires;
}

static int ctz(u64 x)
{
	return x ? __builtin_ctzll(x) : 64;
}

static void t_apply_slack(void)
{
	u64 e, s, r, rng = 7, i;
	bool ok = true;
	struct wheel_entry a;
	unsigned int budget;

	/* Every small window, against the most trailing zeros by search. */
	for (e = 0; e <= 520; e++) {
		for (s = 0; s <= 520; s++) {
			u64 x, best = e;

			r = wt_wheel_apply_slack(e, s);
			for (x = e; x <= e + s; x++)
				if (ctz(x) > ctz(best))
					best = x;
			ok &= r >= e && r <= e + s && ctz(r) == ctz(best);
			ok &= s || r == e;
		}
	}
	CHECK(ok);

	ok = true;
	for (i = 0; i < 1000000; i++) {
		e = rng_next(&rng) >> (rng_next(&rng) % 64);
		s = i % 5 ? rng_next(&rng) >> (rng_next(&rng) % 64) : 0;
		if (i % 7 == 0)
			e = U64_MAX - rng_next(&rng) % 300;
		r = wt_wheel_apply_slack(e, s);
		ok &= r == slack_reference(e, s);
		ok &= r >= e && r <= sat_add(e, s);
	}
	CHECK(ok);

	CHECK_EQ(wt_wheel_apply_slack(12345, 0), 12345);
	CHECK_EQ(wt_wheel_apply_slack(0, 100), 0);
	CHECK_EQ(wt_wheel_apply_slack(U64_MAX, 1000), U64_MAX);
	CHECK_EQ(wt_wheel_apply_slack(U64_MAX - 3, 100), U64_MAX - 3);
	CHECK_EQ(wt_wheel_apply_slack(U64_MAX - 4, 100), U64_MAX - 3);
	CHECK_EQ(wt_wheel_apply_slack(1, U64_MAX), 1ULL << 63);
	CHECK_EQ(wt_wheel_apply_slack(1000, 24), 1024);
	CHECK_EQ(wt_wheel_apply_slack(1000, 23), 1008);

	/* A coarse tick comes straight out of its slot: one budget unit. */
	wt_wheel_init(&wheel, 0);
	wt_wheel_entry_init(&a);
	r = wt_wheel_apply_slack(1000000, 1 << 18);
	CHECK(ctz(r) >= 18);
	wt_wheel_add(&wheel, &a, r);
	budget = 100;
	CHECK(!wt_wheel_expire(&wheel, r - 1, &budget));
	CHECK_EQ(budget, 100);
	CHECK(wt_wheel_expire(&wheel, r, &budget) == &a);
	CHECK_EQ(budget, 99);
}

static void t_add_pending_warns(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry a;
	unsigned long before = wheel_warnings;
	u64 t = 0;

	wt_wheel_init(w, 0);
	wt_wheel_entry_init(&a);
	wt_wheel_add(w, &a, 100);
	printf("#   (a WARNING is expected next)\n");
	wt_wheel_add(w, &a, 5000);
	CHECK_EQ(wheel_warnings, before + 1);
	CHECK_EQ(w->count, 1);
	CHECK_EQ(w->occupied[1], 0);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 5000);
	check_layout(w);
	wheel_warnings = before;
}

static void t_clock_jumps(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry a;
	u64 t = 0;

	/* Moving the clock below the earliest slot keeps every placement. */
	wt_wheel_init(w, 0);
	wt_wheel_entry_init(&a);
	wt_wheel_add(w, &a, (7ULL << 30) + 12345);
	CHECK_EQ(w->occupied[5], 1ULL << 7);
	CHECK(!expire_one(w, (7ULL << 30) - 1));
	CHECK_EQ(w->clk, (7ULL << 30) - 1);
	CHECK_EQ(w->occupied[5], 1ULL << 7);
	check_layout(w);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, (7ULL << 30) + 12345);
	CHECK(!expire_one(w, (7ULL << 30) + 12344));
	CHECK(expire_one(w, (7ULL << 30) + 12345) == &a);
}

static void t_order(void)
{
	const unsigned int n = 20000;
	struct wheel *w = &wheel;
	struct wheel_entry *ents = calloc(n, sizeof(*ents)), *e;
	u64 rng = 99, last = 0;
	unsigned int i, out = 0;
	bool ordered = true, exact = true;

	if (!ents) {
		CHECK(ents);
		return;
	}
	wt_wheel_init(w, 0);
	for (i = 0; i < n; i++) {
		wt_wheel_entry_init(&ents[i]);
		wt_wheel_add(w, &ents[i], rng_next(&rng) >> (34 + i % 30));
	}
	while ((e = expire_one(w, 1ULL << 30))) {
		ordered &= e->expires >= last;
		exact &= e->expires == w->clk;
		last = e->expires;
		out++;
	}
	CHECK_EQ(out, n);
	CHECK(ordered);
	CHECK(exact);
	free(ents);
}

/* Digit @l of @x. */
static unsigned int digit(u64 x, unsigned int l)
{
	return (x >> (6 * l)) & 63;
}

/* @x with digit @l replaced by @d, and the digits below it from @low. */
static u64 with_digit(u64 x, unsigned int l, unsigned int d, u64 low)
{
	return (x & ~lowbits(6 * (l + 1))) | ((u64)d << (6 * l)) |
	       (low & lowbits(6 * l));
}

/*
 * Drive @w as a tickless caller does (sleep until next_expiry, expire)
 * until it is empty: each of the @n entries of @ents must come out exactly
 * once, never before its tick, while the wheel's clock is the later of its
 * tick and @floor (the clock it was added at, or rewound to).
 */
static void hand_out_all(struct wheel *w, struct wheel_entry *ents,
			 unsigned int n, u64 floor)
{
	unsigned char *seen = calloc(n, 1);
	struct wheel_entry *e;
	unsigned int out = 0;
	u64 t = 0, rounds = 0;
	bool early = false, exact = true, twice = false, alien = false;

	if (!seen) {
		CHECK(seen);
		return;
	}
	while (wt_wheel_next_expiry(w, &t)) {
		CHECK(t >= w->clk);
		if (t > w->clk)
			CHECK(!expire_one(w, t - 1));
		while ((e = expire_one(w, t))) {
			if (e < ents || e >= ents + n) {
				alien = true;
				continue;
			}
			twice |= seen[e - ents];
			seen[e - ents] = 1;
			early |= e->expires > t;
			exact &= w->clk == max(e->expires, floor);
			out++;
		}
		if (++rounds > 20ULL * n + 100 || cur_fail)
			break;
	}
	CHECK_EQ(out, n);
	CHECK(!alien);
	CHECK(!twice);
	CHECK(!early);
	CHECK(exact);
	CHECK_EQ(w->count, 0);
	free(seen);
}

/*
 * A wheel at clock @c with entries at every level the clock's digits leave
 * room in and on the due list (at and below @n, and between @n and @c),
 * rewound to @n: the clock, the layout (against placements worked out here
 * from the ticks), the number of list operations and of entries written
 * (at most one and two per slot below the highest differing digit), then
 * every entry handed out at its tick, or at @n if that is later.
 */
static void rewind_case(u64 c, u64 n, u64 *rng)
{
	enum { MAX = 64 };
	static struct wheel_entry ents[MAX];
	static struct list_head saved[MAX];
	struct wheel *w = &wheel;
	u64 before[WHEEL_LEVELS] = { 0 }, want[WHEEL_LEVELS] = { 0 };
	u64 due[8], ops, slots_below = 0;
	unsigned int h = digit_level(c, n), l, k, i, cnt = 0, written = 0;

	CHECK(n < c);
	wt_wheel_init(w, c);
	for (l = 0; l < WHEEL_LEVELS; l++) {
		unsigned int top = l == 10 ? 15 : 63, dc = digit(c, l), d;

		for (k = 0; k < 4 && dc < top; k++) {
			d = dc + 1 + rng_next(rng) % (top - dc);
			wt_wheel_entry_init(&ents[cnt]);
			wt_wheel_add(w, &ents[cnt++],
				     with_digit(c, l, d, rng_next(rng)));
			before[l] |= 1ULL << d;
		}
	}
	due[0] = 0;
	due[1] = n;
	due[2] = sat_sub(n, 1);
	due[3] = n + 1;			/* made future */
	due[4] = c;			/* made future */
	due[5] = n + (c - n) / 2;
	due[6] = n + 1 + rng_next(rng) % (c - n);
	due[7] = rng_next(rng) % (n + 1);
	for (k = 0; k < ARRAY_SIZE(due); k++) {
		wt_wheel_entry_init(&ents[cnt]);
		wt_wheel_add(w, &ents[cnt++], due[k]);
	}
	for (l = 0; l < WHEEL_LEVELS; l++) {
		CHECK_EQ(w->occupied[l], before[l]);
		if (l < h)
			slots_below += __builtin_popcountll(before[l]);
	}
	/* Where each slot entry belongs relative to @n, by digit compare. */
	for (i = 0; i < cnt; i++) {
		if (ents[i].expires <= c)
			continue;
		l = digit_level(n, ents[i].expires);
		want[l] |= 1ULL << digit(ents[i].expires, l);
	}
	for (i = 0; i < cnt; i++)
		saved[i] = ents[i].node;

	ops = wheel_shim_list_ops;
	wt_wheel_rewind(w, n);
	ops = wheel_shim_list_ops - ops;

	CHECK_EQ(w->clk, n);
	CHECK_EQ(w->count, cnt);
	for (l = 0; l < WHEEL_LEVELS; l++)
		CHECK_EQ(w->occupied[l], want[l]);
	check_layout(w);
	for (i = 0; i < cnt; i++)
		written += saved[i].next != ents[i].node.next ||
			   saved[i].prev != ents[i].node.prev;
	CHECK(ops <= slots_below);
	CHECK(written <= 2 * slots_below);
	hand_out_all(w, ents, cnt, n);
}

/*
 * A rewind across each digit: H = 0 .. 10 is the highest digit in which
 * the old and the new clock differ, from just below a boundary of 64^H to
 * far below it.
 */
static void t_rewind_levels(void)
{
	u64 rng = 11, c, n;
	unsigned int h, trial;

	for (h = 0; h < WHEEL_LEVELS; h++) {
		for (trial = 0; trial < 64 && !cur_fail; trial++) {
			c = rng_next(&rng);
			if (trial % 2)		/* room at the top level */
				c &= ~(1ULL << 63);
			if (!digit(c, h))
				c |= 1ULL << (6 * h);
			switch (trial % 4) {
			case 0:		/* just below c's digit-H boundary */
				n = with_digit(c, h, digit(c, h), 0) - 1;
				break;
			case 1:
				n = with_digit(c, h, rng_next(&rng) % digit(c, h),
					       rng_next(&rng));
				break;
			case 2:
				n = with_digit(c, h, 0, 0);
				break;
			default:	/* c at a boundary, n one below */
				c = with_digit(c, h, digit(c, h), 0);
				n = c - 1;
				break;
			}
			CHECK_EQ(digit_level(c, n), h);
			rewind_case(c, n, &rng);
		}
	}
	/* The extremes: from the end of time to 0, and by one. */
	rewind_case(U64_MAX, 0, &rng);
	rewind_case(U64_MAX, U64_MAX - 1, &rng);
	rewind_case(1ULL << 60, (1ULL << 60) - 1, &rng);
	rewind_case(1, 0, &rng);
}

/* A rewind to the clock or later changes nothing at all. */
static void t_rewind_noop(void)
{
	static struct wheel copy;
	static const u64 ticks[] = {
		100, 5000, 5001, 70000, 1ULL << 40, 1ULL << 62, U64_MAX,
	};
	struct wheel_entry ents[ARRAY_SIZE(ticks)];
	struct wheel *w = &wheel;
	unsigned long ops;
	unsigned int i;
	u64 t = 0;

	wt_wheel_init(w, 5000);
	for (i = 0; i < ARRAY_SIZE(ticks); i++) {
		wt_wheel_entry_init(&ents[i]);
		wt_wheel_add(w, &ents[i], ticks[i]);
	}
	memcpy(&copy, w, sizeof(*w));
	ops = wheel_shim_list_ops;
	wt_wheel_rewind(w, 5000);
	wt_wheel_rewind(w, 5001);
	wt_wheel_rewind(w, U64_MAX);
	CHECK(!memcmp(&copy, w, sizeof(*w)));
	CHECK_EQ(wheel_shim_list_ops, ops);
	CHECK_EQ(w->clk, 5000);

	/* An empty wheel just takes the clock. */
	wt_wheel_init(w, 100);
	wt_wheel_rewind(w, 50);
	CHECK_EQ(w->clk, 50);
	CHECK(!wt_wheel_next_expiry(w, &t));
	check_layout(w);
}

/*
 * The scenario of a clock stepped back: entries on the due list that the
 * step makes future are placed again, not handed out early; those still
 * due come out at the new clock; and a deadline between the new reading
 * and the old clock, added after the rewind, fires at its tick.
 */
static void t_rewind_due(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry a, b, c, d;
	u64 t = 0;

	wt_wheel_init(w, 1000);
	wt_wheel_entry_init(&a);
	wt_wheel_entry_init(&b);
	wt_wheel_entry_init(&c);
	wt_wheel_entry_init(&d);
	wt_wheel_add(w, &a, 500);			/* due: behind the clock */
	wt_wheel_add(w, &b, 150);
	wt_wheel_add(w, &c, 1000);
	wt_wheel_rewind(w, 200);
	CHECK_EQ(w->clk, 200);
	check_layout(w);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 200);
	CHECK(expire_one(w, 200) == &b);
	CHECK_EQ(w->clk, 200);
	CHECK(!expire_one(w, 200));
	/* 500 and 1000 against 200: level 1, slots 7 and 15. */
	CHECK(list_empty(&w->due));
	CHECK_EQ(w->occupied[1], (1ULL << 7) | (1ULL << 15));
	check_layout(w);
	wt_wheel_add(w, &d, 300);			/* between the clocks */
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 300);
	CHECK(!expire_one(w, 299));
	CHECK(expire_one(w, 300) == &d);
	CHECK(!expire_one(w, 499));
	CHECK(expire_one(w, 500) == &a);
	CHECK_EQ(w->clk, 500);
	CHECK(!expire_one(w, 999));
	CHECK(expire_one(w, 1000) == &c);
	CHECK_EQ(w->clk, 1000);
	CHECK_EQ(w->count, 0);
}

/*
 * A slot cascaded in part when the budget ran out, then a rewind: what
 * waits on the due list and what went down to lower levels all come out
 * at their ticks, none early.
 */
static void t_rewind_half_cascaded(void)
{
	struct wheel *w = &wheel;
	struct wheel_entry ents[20];
	unsigned int i, budget = 5;
	u64 t = 0;

	wt_wheel_init(w, 0);
	for (i = 0; i < 20; i++) {
		wt_wheel_entry_init(&ents[i]);
		wt_wheel_add(w, &ents[i], 4096 + 1 + 3 * i);	/* level 2, slot 1 */
	}
	CHECK(!wt_wheel_expire(w, 4200, &budget));
	CHECK_EQ(budget, 0);
	CHECK_EQ(w->clk, 4096);
	CHECK(!list_empty(&w->due));
	CHECK(w->occupied[0] || w->occupied[1]);
	wt_wheel_rewind(w, 100);
	CHECK_EQ(w->clk, 100);
	CHECK_EQ(w->occupied[0], 0);
	CHECK_EQ(w->occupied[1], 0);
	CHECK_EQ(w->occupied[2], 1ULL << 1);
	check_layout(w);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 100);			/* the due list: early, never late */
	CHECK(!expire_one(w, 100));
	CHECK(list_empty(&w->due));
	check_layout(w);
	CHECK(wt_wheel_next_expiry(w, &t));
	CHECK_EQ(t, 4097);
	hand_out_all(w, ents, 20, 100);
}

/*
 * Rewind a wheel whose 630 slots below the top level are all occupied, by
 * one entry each and by 1M in all: the same number of list operations
 * (one per slot), and at most two entries written per slot, whatever the
 * number of entries. The times are printed, not judged.
 */
static void rewind_cost(unsigned int n, u64 *ops, u64 *written, double *ns)
{
	const u64 c = 7ULL << 60;
	struct wheel *w = &wheel;
	struct wheel_entry *ents = calloc(n, sizeof(*ents));
	struct list_head *saved = calloc(n, sizeof(*saved));
	struct timespec t0, t1;
	u64 rng = 17, top;
	unsigned int i, l, d;

	*ops = *written = ~0ULL;
	if (!ents || !saved) {
		CHECK(ents && saved);
		goto out;
	}
	wt_wheel_init(w, c);
	for (i = 0; i < n; i++) {
		l = i % 10;
		d = 1 + (i / 10) % 63;
		wt_wheel_entry_init(&ents[i]);
		wt_wheel_add(w, &ents[i], with_digit(c, l, d, rng_next(&rng)));
	}
	for (l = 0; l < 10; l++)
		CHECK_EQ(w->occupied[l], n >= 630 ? lowbits(64) - 1 : 0);
	top = w->occupied[10];
	for (i = 0; i < n; i++)
		saved[i] = ents[i].node;

	*ops = wheel_shim_list_ops;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	wt_wheel_rewind(w, c - 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*ops = wheel_shim_list_ops - *ops;
	*ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);

	for (*written = 0, i = 0; i < n; i++)
		*written += saved[i].next != ents[i].node.next ||
			    saved[i].prev != ents[i].node.prev;
	CHECK_EQ(w->clk, c - 1);
	CHECK_EQ(w->count, n);
	for (l = 0; l < 10; l++)
		CHECK_EQ(w->occupied[l], 0);
	CHECK_EQ(w->occupied[10], top | 1ULL << 7);
	check_layout(w);
out:
	free(ents);
	free(saved);
}

static void t_rewind_cost(void)
{
	u64 ops1, ops2, wr1, wr2;
	double ns1 = 0, ns2 = 0;

	rewind_cost(630, &ops1, &wr1, &ns1);
	rewind_cost(1000000, &ops2, &wr2, &ns2);
	CHECK_EQ(ops1, 630);
	CHECK_EQ(ops2, ops1);
	CHECK(wr1 <= 2 * 630);
	CHECK(wr2 <= 2 * 630);
	printf("#   rewind of 630 slots, list operations and entries written:\n");
	printf("#   %llu and %llu with 630 entries (%.0f ns), %llu and %llu with 1M (%.0f ns)\n",
	       (unsigned long long)ops1, (unsigned long long)wr1, ns1,
	       (unsigned long long)ops2, (unsigned long long)wr2, ns2);
}

/* The heap is the model test's reference and the benchmark's baseline. */
static void t_heap(void)
{
	enum { N = 500 };
	static struct heap_node nodes[N];
	struct heap h;
	u64 rng = 5, min;
	unsigned int i, k, step;
	bool ok = true;

	CHECK(!heap_init(&h, 4));
	for (i = 0; i < N; i++)
		heap_node_init(&nodes[i]);
	for (step = 0; step < 200000; step++) {
		struct heap_node *x = &nodes[rng_next(&rng) % N];
		u64 v = rng_next(&rng) % 1000;

		switch (rng_next(&rng) % 4) {
		case 0:
			if (!heap_queued(x))
				heap_push(&h, x, v);
			break;
		case 1:
			if (heap_queued(x))
				heap_remove(&h, x);
			break;
		case 2:
			heap_modify(&h, x, v);
			break;
		default:
			x = heap_pop(&h);
			if (x) {
				for (k = 0; k < N; k++)
					ok &= !heap_queued(&nodes[k]) ||
					      nodes[k].expires >= x->expires;
			}
			break;
		}
		if (step % 64)
			continue;
		ok &= !heap_verify(&h);
		min = U64_MAX;
		k = 0;
		for (i = 0; i < N; i++) {
			if (heap_queued(&nodes[i])) {
				k++;
				if (nodes[i].expires < min)
					min = nodes[i].expires;
			}
		}
		ok &= k == h.n && (!k || heap_peek(&h)->expires == min);
	}
	CHECK(ok);
	heap_free(&h);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "sizes", t_sizes },
	{ "empty wheel", t_empty },
	{ "deadlines in the past and at the clock", t_past_and_now },
	{ "zero budget", t_zero_budget },
	{ "slot boundaries", t_slot_boundary },
	{ "64^L - 1, 64^L, 64^L + 1 ahead, every level, many clocks",
	  t_level_boundaries },
	{ "the top levels: every level's slots from clock 0, far ticks",
	  t_top_levels },
	{ "from 0 to U64_MAX: at most WHEEL_LEVELS units per entry",
	  t_jump_to_the_end },
	{ "U64_MAX and the clock near it", t_end_of_time },
	{ "cancel: pending, twice, collected, drained, half-cascaded slot",
	  t_cancel },
	{ "modify earlier, later, re-arm, into the past", t_modify },
	{ "100000 entries in one slot, budget 7 at a time", t_budget_big_slot },
	{ "next_expiry while a slot is half done", t_budget_next_expiry },
	{ "next_expiry against the earliest ticks, 20000 random wheels",
	  t_next_expiry_random },
	{ "drain", t_drain },
	{ "apply_slack", t_apply_slack },
	{ "add of a pending entry warns and re-arms", t_add_pending_warns },
	{ "clock jumps keep placements", t_clock_jumps },
	{ "hand-out in tick order, at the tick", t_order },
	{ "rewind across digit 0 .. 10: layout, then each entry at its tick",
	  t_rewind_levels },
	{ "rewind to the clock or later changes nothing", t_rewind_noop },
	{ "rewind: due entries made future are placed again, not early",
	  t_rewind_due },
	{ "rewind of a slot cascaded in part", t_rewind_half_cascaded },
	{ "rewind costs one splice per slot, 630 entries or 1M",
	  t_rewind_cost },
	{ "reference heap", t_heap },
};

int main(void)
{
	unsigned int i, n = ARRAY_SIZE(tests), failed = 0;
	unsigned long warnings;

	/* Line by line, so that a crash keeps what was reported before it. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%u\n", n);
	for (i = 0; i < n; i++) {
		cur_fail = 0;
		warnings = wheel_warnings;
		tests[i].fn();
		if (wheel_warnings != warnings) {
			printf("#   unexpected WARNING from wheel.c\n");
			cur_fail++;
		}
		printf("%sok %u - %s\n", cur_fail ? "not " : "", i + 1,
		       tests[i].name);
		failed += !!cur_fail;
	}
	printf("# %lu checks\n", checks);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n",
	       n - failed, failed);
	return failed ? 1 : 0;
}
