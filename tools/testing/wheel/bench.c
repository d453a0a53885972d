// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - module/wheel.c against a binary min-heap timer queue, in the
 * same run, at 1K, 100K, 1M and 10M pending timeouts.
 *
 * For each size the queue is filled with that many entries at ticks drawn
 * uniformly from (clock, clock + 2^36] (at one microsecond per tick: up to
 * 19 hours ahead), then, keeping the size steady:
 *  - cancel: batches of entries are cancelled, then
 *  - add:    added back with new ticks, and
 *  - modify: moved to new ticks, pending all along;
 *    once in the order the entries were added (FIFO, as request timeouts
 *    complete) and once in random order;
 *  - expire: the clock is driven as the device drives it (sleep until the
 *    next expiry, hand out what is due, at most 64 per round) until every
 *    entry has been handed out; cascading is included in the cost.
 * Entries live in one array, as a slab would give them. Times are
 * nanoseconds per operation (per handed-out entry for expire).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heap.h"
#include "wheel_test.h"

#define RANGE_BITS	36
#define BATCH_MAX	BIT(20)
#define OPS_TARGET	BIT(22)

enum { ADD, CANCEL, MODIFY, NOPS };

struct result {
	double ns[2][NOPS];		/* [fifo, random][op] */
	double expire;
	double bytes;
};

static u64 rng = 12345;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static u64 random_tick(u64 clk)
{
	return clk + 1 + (rng_next(&rng) & ((1ULL << RANGE_BITS) - 1));
}

/* Entry indices in the order they are touched: FIFO or shuffled. */
static u32 *make_order(u32 n, bool shuffle)
{
	u32 *order = malloc((size_t)n * sizeof(*order)), i;

	if (!order)
		abort();
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; shuffle && i > 0; i--) {
		u32 j = rng_next(&rng) % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	return order;
}

static void bench_wheel(u32 n, struct result *r)
{
	struct wheel_entry *ents = calloc(n, sizeof(*ents)), *e;
	struct wheel *w = malloc(sizeof(*w));
	u32 batch = n < BATCH_MAX ? n : BATCH_MAX, rounds, i, k, o;
	unsigned int budget;
	u64 out = 0, t;
	double t0, t1;

	if (!ents || !w)
		abort();
	rounds = OPS_TARGET / batch ? OPS_TARGET / batch : 1;
	wheel_init(w, 0);
	for (i = 0; i < n; i++) {
		wheel_entry_init(&ents[i]);
		wheel_add(w, &ents[i], random_tick(0));
	}

	for (o = 0; o < 2; o++) {
		u32 *order = make_order(n, o), p = 0;
		double ns[NOPS] = { 0 };

		for (k = 0; k < rounds; k++, p = (p + batch) % n) {
			t0 = now_ns();
			for (i = 0; i < batch; i++)
				wheel_del(w, &ents[order[(p + i) % n]]);
			t1 = now_ns();
			ns[CANCEL] += t1 - t0;
			for (i = 0; i < batch; i++)
				wheel_add(w, &ents[order[(p + i) % n]],
					  random_tick(0));
			t0 = now_ns();
			ns[ADD] += t0 - t1;
			for (i = 0; i < batch; i++)
				wheel_modify(w, &ents[order[(p + i) % n]],
					     random_tick(0));
			ns[MODIFY] += now_ns() - t0;
		}
		for (i = 0; i < NOPS; i++)
			r->ns[o][i] = ns[i] / ((double)rounds * batch);
		free(order);
	}

	t0 = now_ns();
	while (wheel_next_expiry(w, &t)) {
		budget = 64;
		while ((e = wheel_expire(w, t, &budget)))
			out++;
	}
	r->expire = (now_ns() - t0) / out;
	if (out != n)
		abort();
	r->bytes = sizeof(*ents) + (double)sizeof(*w) / n;
	free(w);
	free(ents);
}

static void bench_heap(u32 n, struct result *r)
{
	struct heap_node *ents = calloc(n, sizeof(*ents)), *x;
	u32 batch = n < BATCH_MAX ? n : BATCH_MAX, rounds, i, k, o;
	struct heap h;
	u64 out = 0, t;
	double t0, t1;

	if (!ents || heap_init(&h, n))
		abort();
	rounds = OPS_TARGET / batch ? OPS_TARGET / batch : 1;
	for (i = 0; i < n; i++) {
		heap_node_init(&ents[i]);
		heap_push(&h, &ents[i], random_tick(0));
	}

	for (o = 0; o < 2; o++) {
		u32 *order = make_order(n, o), p = 0;
		double ns[NOPS] = { 0 };

		for (k = 0; k < rounds; k++, p = (p + batch) % n) {
			t0 = now_ns();
			for (i = 0; i < batch; i++)
				heap_remove(&h, &ents[order[(p + i) % n]]);
			t1 = now_ns();
			ns[CANCEL] += t1 - t0;
			for (i = 0; i < batch; i++)
				heap_push(&h, &ents[order[(p + i) % n]],
					  random_tick(0));
			t0 = now_ns();
			ns[ADD] += t0 - t1;
			for (i = 0; i < batch; i++)
				heap_modify(&h, &ents[order[(p + i) % n]],
					    random_tick(0));
			ns[MODIFY] += now_ns() - t0;
		}
		for (i = 0; i < NOPS; i++)
			r->ns[o][i] = ns[i] / ((double)rounds * batch);
		free(order);
	}

	/* The same driver: wake at the earliest, take what is due, 64 max. */
	t0 = now_ns();
	while ((x = heap_peek(&h))) {
		unsigned int budget = 64;

		t = x->expires;
		while (budget-- && (x = heap_peek(&h)) && x->expires <= t) {
			heap_pop(&h);
			out++;
		}
	}
	r->expire = (now_ns() - t0) / out;
	if (out != n)
		abort();
	r->bytes = sizeof(*ents) + (double)h.cap * sizeof(*h.v) / n +
		   (double)sizeof(h) / n;
	heap_free(&h);
	free(ents);
}

static const char *size_name(u32 n)
{
	static char buf[16];

	if (n >= 1000000)
		snprintf(buf, sizeof(buf), "%uM", n / 1000000);
	else
		snprintf(buf, sizeof(buf), "%uK", n / 1000);
	return buf;
}

int main(int argc, char **argv)
{
	static const u32 sizes[] = { 1000, 100000, 1000000, 10000000 };
	unsigned int nsizes = ARRAY_SIZE(sizes), s, o;
	struct result wr[4], hr[4];
	double t0 = now_ns();

	/* An argument limits the sizes, for a quick run. */
	if (argc > 1 && strtoul(argv[1], NULL, 0) < nsizes)
		nsizes = strtoul(argv[1], NULL, 0);

	printf("# wheel (module/wheel.c) vs binary min-heap, ns per operation\n");
	printf("# ticks uniform over 2^%d ahead; expire = per entry handed out,\n",
	       RANGE_BITS);
	printf("# cascades included; fifo = in the order added, random = shuffled\n");
	for (s = 0; s < nsizes; s++) {
		bench_wheel(sizes[s], &wr[s]);
		bench_heap(sizes[s], &hr[s]);
	}

	printf("\n%-8s %-6s | %7s %7s %7s %7s | %7s %7s %7s %7s\n",
	       "pending", "order", "w.add", "w.cancel", "w.mod", "w.exp",
	       "h.add", "h.cancel", "h.mod", "h.exp");
	for (s = 0; s < nsizes; s++) {
		for (o = 0; o < 2; o++) {
			printf("%-8s %-6s | %7.1f %8.1f %7.1f ",
			       o ? "" : size_name(sizes[s]),
			       o ? "random" : "fifo",
			       wr[s].ns[o][ADD], wr[s].ns[o][CANCEL],
			       wr[s].ns[o][MODIFY]);
			if (o)
				printf("%7s | ", "");
			else
				printf("%7.1f | ", wr[s].expire);
			printf("%7.1f %8.1f %7.1f ", hr[s].ns[o][ADD],
			       hr[s].ns[o][CANCEL], hr[s].ns[o][MODIFY]);
			if (o)
				printf("%7s\n", "");
			else
				printf("%7.1f\n", hr[s].expire);
		}
	}

	printf("\n%-8s | %12s %12s\n", "pending", "wheel B/ent", "heap B/ent");
	for (s = 0; s < nsizes; s++)
		printf("%-8s | %12.2f %12.2f\n", size_name(sizes[s]),
		       wr[s].bytes, hr[s].bytes);

	if (nsizes >= 3) {
		printf("\n# wheel 1M/1K: add %.2fx, cancel %.2fx (fifo); %.2fx, %.2fx (random)\n",
		       wr[2].ns[0][ADD] / wr[0].ns[0][ADD],
		       wr[2].ns[0][CANCEL] / wr[0].ns[0][CANCEL],
		       wr[2].ns[1][ADD] / wr[0].ns[1][ADD],
		       wr[2].ns[1][CANCEL] / wr[0].ns[1][CANCEL]);
		printf("# add+cancel at 1M, ns: wheel %.1f, heap %.1f (fifo); %.1f, %.1f (rnd)\n",
		       wr[2].ns[0][ADD] + wr[2].ns[0][CANCEL],
		       hr[2].ns[0][ADD] + hr[2].ns[0][CANCEL],
		       wr[2].ns[1][ADD] + wr[2].ns[1][CANCEL],
		       hr[2].ns[1][ADD] + hr[2].ns[1][CANCEL]);
	}
	printf("# %.1f s\n", (now_ns() - t0) / 1e9);
	return 0;
}
