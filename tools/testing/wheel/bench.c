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
 * New ticks are drawn before each timed batch, so the generator is not in
 * the cost. Each operation is measured three ways:
 *
 *  hot    nanoseconds, entries in one array, as a slab would give them.
 *         At 1K everything the operations touch sits in L1; at 1M and 10M
 *         every entry touched (and, for the wheel, its slot neighbours; for
 *         the heap, the nodes on its path) is a cache miss. This is the
 *         cost a caller sees, and it mixes the structure with the memory
 *         hierarchy.
 *  cold   nanoseconds, with the caller's objects equally cold at every
 *         size: each entry sits alone on a cache line picked at random in
 *         one arena far larger than the caches (64 MiB; huge pages asked
 *         for, so that TLB reach does not depend on the size either), and
 *         the calls are timed in slices of 16, each of which starts with
 *         every entry out of the caches: the lines a slice may touch (the
 *         entries, the wheel's slot neighbours, the heap's nodes on the
 *         paths of its sift operations) are noted and flushed (clflush)
 *         before the next slice, and the slice's entries and ticks are
 *         copied to a buffer beforehand, so that the benchmark's own
 *         arrays are in L1 at every size too. What the structure keeps to
 *         itself (the wheel's slot heads, the heap's array) is left alone:
 *         its cost is the structure's. The ratio between sizes then
 *         reflects the structure, not how many of the caller's objects
 *         happen to fit in the caches. Up to 1M (already far beyond the
 *         caches); not expire, whose cascades move entries the benchmark
 *         does not see, so it could not flush them alike at every size.
 *  instr  instructions per operation, counted by valgrind's callgrind:
 *         the benchmark re-runs itself under callgrind (--instr-child) and
 *         reads, from a dump per timed batch, the inclusive cost of the
 *         calls into the API (wt_wheel_add ... heap_pop; for expire also
 *         wt_wheel_next_expiry; the driver's inline heap_peek is not counted).
 *         Independent of caches and deterministic. Not at 10M: the fill
 *         and the drain alone would take minutes under callgrind.
 *
 * Times are the median over the rounds of nanoseconds per operation (per
 * handed-out entry for expire), the machine being shared and noisy.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if __has_include("valgrind/callgrind.h")
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND	1
#else
/* Without valgrind's headers: no instruction counts, the rest works. */
#define HAVE_CALLGRIND	0
#define RUNNING_ON_VALGRIND		0
#define CALLGRIND_ZERO_STATS		do { } while (0)
#define CALLGRIND_TOGGLE_COLLECT	do { } while (0)
#define CALLGRIND_DUMP_STATS_AT(s)	((void)(s))
#endif

#ifdef __SSE2__		/* x86: clflush and mfence come with SSE2 */
#include <immintrin.h>
#define HAVE_CLFLUSH	1
#else
#define HAVE_CLFLUSH	0
#endif

#include "heap.h"
#include "wheel_test.h"

#define RANGE_BITS	36
#define BATCH_MAX	BIT(20)
#define OPS_HOT		BIT(22)		/* per operation, order and size */
#define OPS_COLD	BIT(20)
#define OPS_INSTR	BIT(16)
#define ROUNDS_MIN	5
#define ARENA_MIN	(64UL << 20)
#define LINE		64
#define COLD_SLICE	16		/* cold: calls per timed slice */
#define COLD_BATCH	BIT(16)
#define DIRTY_MAX	8192
#define TARGET_RATIO	1.5
#define TARGET_BYTES	64

enum { ADD, CANCEL, MODIFY, EXPIRE, NOPS };
enum mode { HOT, COLD, INSTR, NMODES };
enum { WHEEL, HEAP, NQUEUES };

static const u32 sizes[] = { 1000, 100000, 1000000, 10000000 };
#define NSIZES		ARRAY_SIZE(sizes)
#define INSTR_SIZES	3		/* 1K, 100K, 1M */
#define COLD_SIZES	3
#define S1K		0
#define S1M		2

static const char *const mode_name[NMODES] = { "hot", "cold", "instructions" };
static const char *const op_name[NOPS] = { "add", "cancel", "modify", "expire" };
static const char *const order_name[2] = { "fifo", "random" };

struct result {
	bool valid;
	double v[2][NOPS];	/* [fifo, random][op]; expire only in [0] */
	double bytes;
};

static struct result res[NMODES][NQUEUES][NSIZES];

/* One benchmark run: a queue at one size, measured one way. */
struct run {
	enum mode mode;
	u32 n, batch, rounds;
	u32 sub;		/* calls per timed slice */
	void **dirty;		/* cold: entry lines touched since the flush */
	u32 ndirty;
	bool flush_all;		/* cold: flush every entry instead */
	char *base;		/* entry i lives at base + line[i] * stride */
	size_t stride;
	u32 *line;		/* NULL: line[i] = i */
	u32 *seq;		/* entry positions, in the order touched */
	u64 *ticks;		/* new ticks for the next batch */
	double *samples;	/* [op][round], for the median */
	double total[NOPS];
	double t0;
	const char *queue;
	char label[64];		/* "wheel n=1000 fifo", names the dumps */
};

static u64 rng = 12345;
static double timer_ns;		/* what an empty timed slice reads */

/* --instr-child: the dump file prefix given to callgrind, and dumps so far */
static const char *cg_out;
static unsigned int cg_dumps;

/* The cold arena, shared by every size. */
static char *arena;
static u32 *arena_perm;
static size_t arena_lines;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, u32 n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void timer_init(void)
{
	double d[1001];
	u32 i;

	for (i = 0; i < ARRAY_SIZE(d); i++) {
		double t0 = now_ns();

		d[i] = now_ns() - t0;
	}
	timer_ns = median(d, ARRAY_SIZE(d));
}

static u64 random_tick(u64 clk)
{
	return clk + 1 + (rng_next(&rng) & ((1ULL << RANGE_BITS) - 1));
}

static void *xmalloc(size_t size)
{
	void *p = calloc(1, size);

	if (!p)
		abort();
	return p;
}

static void shuffle(u32 *a, size_t n)
{
	size_t i;

	for (i = n - 1; n && i > 0; i--) {
		size_t j = rng_next(&rng) % (i + 1);
		u32 t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}

/* Entry indices in the order they are touched: FIFO or shuffled. */
static u32 *make_order(u32 n, bool random)
{
	u32 *order = xmalloc((size_t)n * sizeof(*order)), i;

	for (i = 0; i < n; i++)
		order[i] = i;
	if (random)
		shuffle(order, n);
	return order;
}

static bool arena_init(u32 nmax)
{
	size_t size = (size_t)nmax * LINE, i;

	if (!HAVE_CLFLUSH)
		return false;
	if (size < ARENA_MIN)
		size = ARENA_MIN;
	arena = mmap(NULL, size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED)
		return false;
#ifdef MADV_HUGEPAGE
	madvise(arena, size, MADV_HUGEPAGE);
#endif
	memset(arena, 0, size);		/* no page faults while timing */
	arena_lines = size / LINE;
	arena_perm = xmalloc(arena_lines * sizeof(*arena_perm));
	for (i = 0; i < arena_lines; i++)
		arena_perm[i] = i;
	shuffle(arena_perm, arena_lines);
	return true;
}

/*
 * Set up storage for n entries of the given size: one array (hot, instr),
 * or one random line each in the arena (cold).
 */
static void run_init(struct run *r, enum mode m, u32 n, size_t size,
		     const char *queue)
{
	u32 ops = m == HOT ? OPS_HOT : m == COLD ? OPS_COLD : OPS_INSTR;

	memset(r, 0, sizeof(*r));
	r->mode = m;
	r->n = n;
	r->batch = n < BATCH_MAX ? n : BATCH_MAX;
	if (m == INSTR && r->batch > OPS_INSTR)
		r->batch = OPS_INSTR;
	r->rounds = ops / r->batch;
	if (r->rounds < ROUNDS_MIN && m != INSTR)
		r->rounds = ROUNDS_MIN;
	if (!r->rounds)
		r->rounds = 1;
	r->sub = r->batch;
	if (m == COLD) {
		r->batch = n < COLD_BATCH ? n : COLD_BATCH;
		r->rounds = max((u32)(OPS_COLD / r->batch), (u32)ROUNDS_MIN);
		r->sub = COLD_SLICE;
		r->dirty = xmalloc(DIRTY_MAX * sizeof(*r->dirty));
		r->flush_all = true;
		r->base = arena;
		r->stride = LINE;
		r->line = arena_perm;
	} else {
		r->base = xmalloc((size_t)n * size);
		r->stride = size;
	}
	r->ticks = xmalloc((size_t)r->batch * sizeof(*r->ticks));
	r->samples = xmalloc((size_t)NOPS * r->rounds * sizeof(*r->samples));
	r->queue = queue;
}

static void run_free(struct run *r)
{
	if (r->mode != COLD)
		free(r->base);
	free(r->ticks);
	free(r->samples);
	free(r->seq);
	free(r->dirty);
}

static void *entry(const struct run *r, u32 i)
{
	return r->base + (size_t)(r->line ? r->line[i] : i) * r->stride;
}

/* The order in which the rounds touch the entries, as positions. */
static void run_order(struct run *r, bool random)
{
	u32 i;

	free(r->seq);
	r->seq = make_order(r->n, random);
	snprintf(r->label, sizeof(r->label), "%s n=%u %s", r->queue, r->n,
		 order_name[random]);
	for (i = 0; r->line && i < r->n; i++)
		r->seq[i] = r->line[r->seq[i]];
}

static void fresh_ticks(struct run *r)
{
	u32 i;

	for (i = 0; i < r->batch; i++)
		r->ticks[i] = random_tick(0);
}

static void flush_entries(const struct run *r)
{
#if HAVE_CLFLUSH
	u32 i;

	for (i = 0; i < r->n; i++)
		_mm_clflush(entry(r, i));
	_mm_mfence();
#endif
}

/* Cold: remember an entry's line, to be flushed before the next slice. */
static void touched(struct run *r, const void *p)
{
	if (r->ndirty < DIRTY_MAX)
		r->dirty[r->ndirty++] = (void *)p;
	else
		r->flush_all = true;
}

static void flush_touched(struct run *r)
{
#if HAVE_CLFLUSH
	u32 i;

	if (r->flush_all) {
		flush_entries(r);
	} else {
		for (i = 0; i < r->ndirty; i++)
			_mm_clflush(r->dirty[i]);
		_mm_mfence();
	}
#endif
	r->ndirty = 0;
	r->flush_all = false;
}

/* Start timing (counting) a slice. */
static void phase_begin(struct run *r)
{
	if (r->mode == COLD)
		flush_touched(r);
	if (r->mode == INSTR) {
		CALLGRIND_ZERO_STATS;
		CALLGRIND_TOGGLE_COLLECT;
	}
	r->t0 = now_ns();
}

/*
 * Sum, over one callgrind dump, the inclusive cost of every call to @fn or
 * @fn2: that is every instruction executed inside them and their callees.
 * Written with --compress-strings=no --compress-pos=no, a call appears as
 *   cfn=NAME / calls=COUNT TARGET / POSITION INCLUSIVE-COST
 */
static double cg_calls_cost(const char *path, const char *fn, const char *fn2)
{
	char buf[4096];
	bool want = false, cost_next = false;
	double sum = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = 0;
		if (cost_next) {
			char *last = strrchr(buf, ' ');

			if (want && last)
				sum += strtod(last + 1, NULL);
			cost_next = false;
		} else if (!strncmp(buf, "cfn=", 4)) {
			want = !strcmp(buf + 4, fn) ||
			       (fn2 && !strcmp(buf + 4, fn2));
		} else if (!strncmp(buf, "calls=", 6)) {
			cost_next = true;
		}
	}
	fclose(f);
	return sum;
}

/*
 * End a timed batch: its nanoseconds (hot, cold) or the instructions
 * executed inside @fn and @fn2 (instr).
 */
static double phase_end(struct run *r, const char *what, const char *fn,
			const char *fn2)
{
	char path[4096], name[128];
	double v;

	if (r->mode != INSTR)
		return now_ns() - r->t0 - timer_ns;
	CALLGRIND_TOGGLE_COLLECT;
	snprintf(name, sizeof(name), "%s %s", r->label, what);
	CALLGRIND_DUMP_STATS_AT(name);
	snprintf(path, sizeof(path), "%s.%u", cg_out, ++cg_dumps);
	v = cg_calls_cost(path, fn, fn2);
	unlink(path);
	return v;
}

static void record(struct run *r, int op, u32 round, double v)
{
	r->samples[op * r->rounds + round] = v;
	r->total[op] += v;
}

/*
 * Per operation: the median of the rounds (hot, cold), the mean (instr);
 * and start afresh.
 */
static double summarize(struct run *r, int op)
{
	double *s = r->samples + op * r->rounds, v;
	u32 k;

	if (r->mode == INSTR) {
		v = r->total[op] / ((double)r->rounds * r->batch);
	} else {
		for (k = 0; k < r->rounds; k++)
			s[k] /= r->batch;
		v = median(s, r->rounds);
	}
	r->total[op] = 0;
	return v;
}

/* The position after x, in a sequence of n. */
static inline u32 next_pos(u32 x, u32 n)
{
	return x + 1 == n ? 0 : x + 1;
}

/* The entry at position x of the run's sequence. */
static inline void *seq_entry(const struct run *r, u32 x)
{
	return r->base + (size_t)r->seq[x] * r->stride;
}

/*
 * One round of one operation: r->batch calls call(q, entry, new tick) on
 * the entries from position p on, for the queue q, timed (or counted) in
 * slices of r->sub calls. Cold, each slice's entries and ticks are first
 * copied to a small buffer, untimed, so that the benchmark's own arrays
 * (megabytes at 1M) are in L1 at every size; pre(r, q, k, entry) before
 * the slice and post(r, q, k, entry) after it note every entry line the
 * calls may touch, all of which are flushed before the next slice. So
 * every slice, at every size, starts with all the entries out of the
 * caches. Inline, so that the calls through call, pre and post are direct
 * ones at every use, as in a loop written out by hand.
 */
static inline void timed(struct run *r, int op, u32 k, u32 p,
			 const char *what, const char *fn, void *q,
			 void (*call)(void *q, void *e, u64 t),
			 void (*pre)(struct run *r, void *q, u32 k, void *e),
			 void (*post)(struct run *r, void *q, u32 k, void *e))
{
	void *e[COLD_SLICE];
	u64 t[COLD_SLICE];
	double acc = 0;
	u32 j, m, x = p, i;

	r->flush_all = true;	/* the fill touched them all */
	for (j = 0; j < r->batch; j += m) {
		m = min(r->sub, r->batch - j);
		if (r->mode == COLD) {
			for (i = 0; i < m; i++, x = next_pos(x, r->n)) {
				e[i] = seq_entry(r, x);
				t[i] = r->ticks[j + i];
				pre(r, q, i, e[i]);
			}
			phase_begin(r);
			for (i = 0; i < m; i++)
				call(q, e[i], t[i]);
			acc += phase_end(r, what, fn, NULL);
			for (i = 0; i < m; i++)
				post(r, q, i, e[i]);
		} else {
			phase_begin(r);
			for (i = j; i < j + m; i++, x = next_pos(x, r->n))
				call(q, seq_entry(r, x), r->ticks[i]);
			acc += phase_end(r, what, fn, NULL);
		}
	}
	record(r, op, k, acc);
}

/*
 * The wheel touches the entry, its list neighbours before (cancel, modify)
 * and after (add, modify: the slot's old last entry); the slot heads are
 * the wheel's own memory and stay.
 */
static void wheel_neighbour(struct run *r, const struct wheel *w,
			    const struct list_head *n)
{
	if ((const void *)n < (const void *)w ||
	    (const void *)n >= (const void *)(w + 1))
		touched(r, n);
}

static void wheel_pre(struct run *r, const struct wheel *w,
		      const struct wheel_entry *e)
{
	touched(r, e);
	if (wt_wheel_entry_pending(e)) {
		wheel_neighbour(r, w, e->node.next);
		wheel_neighbour(r, w, e->node.prev);
	}
}

static void wheel_post(struct run *r, const struct wheel *w,
		       const struct wheel_entry *e)
{
	if (wt_wheel_entry_pending(e)) {
		wheel_neighbour(r, w, e->node.next);
		wheel_neighbour(r, w, e->node.prev);
	}
}

/*
 * A heap operation at index i moves and compares nodes on the path from
 * i towards the root or down to where the moved node settles; note, for
 * each index a call of the slice may have started or ended at, the nodes
 * on its path to the root, their siblings and its children. The array
 * h->v is the heap's own memory and stays.
 */
static void heap_path(struct run *r, const struct heap *h, u32 i)
{
	if (i >= h->n)
		return;
	if (2 * (u64)i + 1 < h->n)
		touched(r, h->v[2 * i + 1]);
	if (2 * (u64)i + 2 < h->n)
		touched(r, h->v[2 * i + 2]);
	for (;;) {
		touched(r, h->v[i]);
		if (!i)
			break;
		if ((i & 1 ? i + 1 : i - 1) < h->n)
			touched(r, h->v[i & 1 ? i + 1 : i - 1]);
		i = (i - 1) / 2;
	}
}

/* What timed() calls for the wheel, q being the struct wheel. */
static inline void w_del(void *q, void *e, u64 t)
{
	(void)t;
	wt_wheel_del(q, e);
}

static inline void w_add(void *q, void *e, u64 t)
{
	wt_wheel_add(q, e, t);
}

static inline void w_mod(void *q, void *e, u64 t)
{
	wt_wheel_modify(q, e, t);
}

static inline void w_pre(struct run *r, void *q, u32 k, void *e)
{
	(void)k;
	wheel_pre(r, q, e);
}

static inline void w_post(struct run *r, void *q, u32 k, void *e)
{
	(void)k;
	wheel_post(r, q, e);
}

/*
 * The heap, and what a cold slice notes before its calls for heap_path()
 * after them: where each entry was, the node that was last when the slice
 * began (k from the end), and how many there were.
 */
struct heap_bench {
	struct heap h;
	struct heap_node *last[COLD_SLICE];
	u32 pre_idx[COLD_SLICE];
	u32 n0;
};

/* What timed() calls for the heap, q being the struct heap_bench. */
static inline void h_del(void *q, void *e, u64 t)
{
	struct heap_bench *hb = q;

	(void)t;
	heap_remove(&hb->h, e);
}

static inline void h_add(void *q, void *e, u64 t)
{
	struct heap_bench *hb = q;

	heap_push(&hb->h, e, t);
}

static inline void h_mod(void *q, void *e, u64 t)
{
	struct heap_bench *hb = q;

	heap_modify(&hb->h, e, t);
}

static inline void h_pre(struct run *r, void *q, u32 k, void *e)
{
	struct heap_bench *hb = q;
	const struct heap_node *x = e;

	if (!k)
		hb->n0 = hb->h.n;
	hb->pre_idx[k] = x->idx;
	hb->last[k] = hb->n0 > k ? hb->h.v[hb->n0 - 1 - k] : NULL;
	touched(r, e);
}

static inline void h_post(struct run *r, void *q, u32 k, void *e)
{
	struct heap_bench *hb = q;
	const struct heap_node *x = e;

	heap_path(r, &hb->h, hb->pre_idx[k]);
	heap_path(r, &hb->h, x->idx);
	if (hb->last[k])
		heap_path(r, &hb->h, hb->last[k]->idx);
	heap_path(r, &hb->h, hb->n0 + k);
	if (hb->n0 > k)
		heap_path(r, &hb->h, hb->n0 - 1 - k);
}

static void bench_wheel(enum mode mode, u32 n, struct result *res)
{
	struct wheel *w = xmalloc(sizeof(*w));
	struct wheel_entry *e;
	unsigned int budget;
	struct run r;
	u32 i, k, o, p;
	u64 out = 0, stop, t;
	bool more = true;
	double v = 0;

	run_init(&r, mode, n, sizeof(*e), "wheel");
	wt_wheel_init(w, 0);
	for (i = 0; i < n; i++) {
		wt_wheel_entry_init(entry(&r, i));
		wt_wheel_add(w, entry(&r, i), random_tick(0));
	}

	for (o = 0; o < 2; o++) {
		run_order(&r, o);
		for (k = 0, p = 0; k < r.rounds; k++, p = (p + r.batch) % n) {
			timed(&r, CANCEL, k, p, "cancel", "wt_wheel_del", w,
			      w_del, w_pre, w_post);
			fresh_ticks(&r);
			timed(&r, ADD, k, p, "add", "wt_wheel_add", w,
			      w_add, w_pre, w_post);
			fresh_ticks(&r);
			timed(&r, MODIFY, k, p, "modify", "wt_wheel_modify", w,
			      w_mod, w_pre, w_post);
		}
		for (i = ADD; i <= MODIFY; i++)
			res->v[o][i] = summarize(&r, i);
	}

	/* Drain, in slices of r.sub entries when cold, whole otherwise. */
	/*
	 * Not cold: cascades move entries the benchmark does not see, which
	 * it could not flush alike at every size.
	 */
	snprintf(r.label, sizeof(r.label), "wheel n=%u", n);
	more = mode != COLD;
	while (more) {
		stop = U64_MAX;
		phase_begin(&r);
		while (out < stop && (more = wt_wheel_next_expiry(w, &t))) {
			budget = 64;
			while ((e = wt_wheel_expire(w, t, &budget)))
				out++;
		}
		v += phase_end(&r, "expire", "wt_wheel_expire",
			       "wt_wheel_next_expiry");
	}
	if (mode != COLD && out != n)
		abort();
	res->v[0][EXPIRE] = mode == COLD ? NAN : v / out;
	res->bytes = sizeof(*e) + (double)sizeof(*w) / n;
	res->valid = true;
	run_free(&r);
	free(w);
}

static void bench_heap(enum mode mode, u32 n, struct result *res)
{
	struct heap_bench hb = { .n0 = 0 };
	struct heap *h = &hb.h;
	struct heap_node *y;
	struct run r;
	u32 i, k, o, p;
	u64 out = 0, stop, t;
	bool more = true;
	double v = 0;

	if (heap_init(h, n))
		abort();
	run_init(&r, mode, n, sizeof(*y), "heap");
	for (i = 0; i < n; i++) {
		heap_node_init(entry(&r, i));
		heap_push(h, entry(&r, i), random_tick(0));
	}

	for (o = 0; o < 2; o++) {
		run_order(&r, o);
		for (k = 0, p = 0; k < r.rounds; k++, p = (p + r.batch) % n) {
			timed(&r, CANCEL, k, p, "cancel", "heap_remove", &hb,
			      h_del, h_pre, h_post);
			fresh_ticks(&r);
			timed(&r, ADD, k, p, "add", "heap_push", &hb,
			      h_add, h_pre, h_post);
			fresh_ticks(&r);
			timed(&r, MODIFY, k, p, "modify", "heap_modify", &hb,
			      h_mod, h_pre, h_post);
		}
		for (i = ADD; i <= MODIFY; i++)
			res->v[o][i] = summarize(&r, i);
	}

	/* The same driver: wake at the earliest, take what is due, 64 max. */
	snprintf(r.label, sizeof(r.label), "heap n=%u", n);
	more = mode != COLD;
	while (more) {
		stop = U64_MAX;
		phase_begin(&r);
		while (out < stop && (more = (y = heap_peek(h)) != NULL)) {
			unsigned int budget = 64;

			t = y->expires;
			while (budget-- && (y = heap_peek(h)) &&
			       y->expires <= t) {
				heap_pop(h);
				out++;
			}
		}
		v += phase_end(&r, "expire", "heap_pop", NULL);
	}
	if (mode != COLD && out != n)
		abort();
	res->v[0][EXPIRE] = mode == COLD ? NAN : v / out;
	res->bytes = sizeof(*y) + (double)h->cap * sizeof(*h->v) / n +
		     (double)sizeof(*h) / n;
	res->valid = true;
	heap_free(h);
	run_free(&r);
}

static const char *size_name(u32 n)
{
	static char buf[4][16];
	static unsigned int i;
	char *b = buf[i++ % 4];

	if (n >= 1000000)
		snprintf(b, sizeof(buf[0]), "%uM", n / 1000000);
	else
		snprintf(b, sizeof(buf[0]), "%uK", n / 1000);
	return b;
}

/*
 * Run this program again under callgrind (--instr-child) and read its
 * instruction counts. Returns false, having said why, if that fails.
 */
static bool measure_instr(unsigned int nsizes)
{
	const char *valgrind = getenv("VALGRIND"), *tmp = getenv("TMPDIR");
	char self[4096], dir[4096], cmd[16384], line[4200];
	unsigned int got = 0;
	ssize_t len;
	FILE *f;
	int rc;

	if (!HAVE_CALLGRIND) {
		printf("\n# instructions: not measured: built without <valgrind/callgrind.h>\n");
		return false;
	}
	if (!valgrind)
		valgrind = "valgrind";
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0) {
		perror("bench: /proc/self/exe");
		return false;
	}
	self[len] = 0;
	snprintf(dir, sizeof(dir), "%s/wheel-bench.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("bench: mkdtemp");
		return false;
	}
	snprintf(cmd, sizeof(cmd),
		 "'%s' --tool=callgrind -q --collect-atstart=no --compress-strings=no --compress-pos=no --callgrind-out-file='%s/cg' '%s' --instr-child '%s/cg' %u",
		 valgrind, dir, self, dir, nsizes);
	fflush(stdout);
	f = popen(cmd, "r");
	if (!f) {
		perror("bench: popen");
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		int q, s, o, op;
		double v;

		if (sscanf(line, "I %d %d %d %d %lf", &q, &s, &o, &op, &v) != 5 ||
		    q < 0 || q >= NQUEUES || s < 0 || s >= (int)NSIZES ||
		    o < 0 || o > 1 || op < 0 || op >= NOPS)
			continue;
		res[INSTR][q][s].v[o][op] = v;
		res[INSTR][q][s].valid = true;
		got++;
	}
	rc = pclose(f);
	snprintf(line, sizeof(line), "%s/cg", dir);
	unlink(line);
	rmdir(dir);
	if (rc || !got) {
		printf("\n# instructions: not measured: `%s ...` failed (status %d)\n",
		       valgrind, rc);
		return false;
	}
	return true;
}

static void instr_child(const char *out, unsigned int nsizes)
{
	unsigned int s, q, o, op;

	if (!RUNNING_ON_VALGRIND) {
		fprintf(stderr, "bench: --instr-child runs under callgrind\n");
		exit(1);
	}
	cg_out = out;
	for (s = 0; s < nsizes && s < INSTR_SIZES; s++) {
		bench_wheel(INSTR, sizes[s], &res[INSTR][WHEEL][s]);
		bench_heap(INSTR, sizes[s], &res[INSTR][HEAP][s]);
	}
	for (s = 0; s < nsizes && s < INSTR_SIZES; s++)
		for (q = 0; q < NQUEUES; q++)
			for (o = 0; o < 2; o++)
				for (op = 0; op < NOPS; op++)
					if (o == 0 || op != EXPIRE)
						printf("I %u %u %u %u %.3f\n", q, s,
						       o, op,
						       res[INSTR][q][s].v[o][op]);
}

static void print_table(enum mode m, unsigned int nsizes)
{
	unsigned int s, o, q;

	printf("\n%-8s %-6s |", "pending", "order");
	for (q = 0; q < NQUEUES; q++)
		printf(" %7s %8s %7s %7s |", q ? "h.add" : "w.add",
		       q ? "h.cancel" : "w.cancel", q ? "h.mod" : "w.mod",
		       q ? "h.exp" : "w.exp");
	printf("\n");
	for (s = 0; s < nsizes; s++) {
		if (!res[m][WHEEL][s].valid || !res[m][HEAP][s].valid)
			continue;
		for (o = 0; o < 2; o++) {
			printf("%-8s %-6s |", o ? "" : size_name(sizes[s]),
			       order_name[o]);
			for (q = 0; q < NQUEUES; q++) {
				const double *v = res[m][q][s].v[o];

				printf(" %7.1f %8.1f %7.1f ", v[ADD], v[CANCEL],
				       v[MODIFY]);
				if (o || isnan(v[EXPIRE]))
					printf("%7s |", o ? "" : "-");
				else
					printf("%7.1f |", v[EXPIRE]);
			}
			printf("\n");
		}
	}
}

static const char *verdict(bool ok, unsigned int *met)
{
	*met += ok;
	return ok ? "meets" : "FAILS";
}

/* One line per target and order, every measurement with its ratio. */
static void print_verdicts(unsigned int nsizes)
{
	unsigned int met[NMODES] = { 0 }, tried[NMODES] = { 0 };
	static const int ops[] = { ADD, CANCEL };
	unsigned int i, o, m, s;
	double most = 0;

	printf("\n# verdicts against issue 3 (the wheel; the heap's ratio for contrast)\n");
	if (nsizes <= S1M) {
		printf("# needs the 1M size: run without a size limit\n");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		for (o = 0; o < 2; o++) {
			printf("%-6s 1M/1K %-6s:", op_name[ops[i]], order_name[o]);
			for (m = 0; m < NMODES; m++) {
				const struct result *a = &res[m][WHEEL][S1K];
				const struct result *b = &res[m][WHEEL][S1M];
				double ratio;

				if (!a->valid || !b->valid) {
					printf("%s %s n/a", m ? "," : "", mode_name[m]);
					continue;
				}
				ratio = b->v[o][ops[i]] / a->v[o][ops[i]];
				tried[m]++;
				printf("%s %s %.2fx %s", m ? "," : "", mode_name[m], ratio,
				       verdict(ratio <= TARGET_RATIO, &met[m]));
			}
			printf(" -- target <= %.1fx\n%21s(heap:", TARGET_RATIO, "");
			for (m = 0; m < NMODES; m++)
				if (res[m][HEAP][S1K].valid && res[m][HEAP][S1M].valid)
					printf(" %s %.2fx", mode_name[m],
					       res[m][HEAP][S1M].v[o][ops[i]] /
					       res[m][HEAP][S1K].v[o][ops[i]]);
			printf(")\n");
		}
	}
	for (o = 0; o < 2; o++) {
		printf("add+cancel 1M %-6s:", order_name[o]);
		for (m = 0; m < NMODES; m++) {
			const double *wv = res[m][WHEEL][S1M].v[o];
			const double *hv = res[m][HEAP][S1M].v[o];
			double wsum = wv[ADD] + wv[CANCEL], hsum = hv[ADD] + hv[CANCEL];

			if (!res[m][WHEEL][S1M].valid || !res[m][HEAP][S1M].valid) {
				printf("%s %s n/a", m ? "," : "", mode_name[m]);
				continue;
			}
			tried[m]++;
			printf("%s %s %.1f vs %.1f %s", m ? "," : "",
			       mode_name[m], wsum, hsum,
			       verdict(wsum < hsum, &met[m]));
		}
		printf(" -- target: wheel below heap\n");
	}
	for (s = 0; s < nsizes; s++)
		if (res[HOT][WHEEL][s].valid && res[HOT][WHEEL][s].bytes > most)
			most = res[HOT][WHEEL][s].bytes;
	if (most > 0)
		fprintf(stdout,
			"bytes per entry: at most %.2f (struct wheel_entry %zu, and struct wheel shared) %s -- target <= %d\n",
			most, sizeof(struct wheel_entry),
			most <= TARGET_BYTES ? "meets" : "FAILS", TARGET_BYTES);
	else
		fprintf(stdout,
			"bytes per entry: struct wheel_entry %zu, and struct wheel shared -- target <= %d\n",
			sizeof(struct wheel_entry), TARGET_BYTES);
	printf("# of the 6 lines above:");
	for (m = 0, i = 0; m < NMODES; m++)
		if (tried[m])
			printf("%s %s meets %u of %u", i++ ? "," : "",
			       mode_name[m], met[m], tried[m]);
	printf("\n# hot is ns as a caller sees them: its objects are in cache at 1K and not at\n"
	       "# 1M. cold takes that difference out; instructions take the caches out.\n");
}

static void print_help(void)
{
	fprintf(stderr,
		"usage: bench [--no-cold] [--no-instr | --instr] [NSIZES]\n"
		"  NSIZES      measure only the first NSIZES of 1K 100K 1M 10M\n"
		"  --no-cold   skip the cold timings\n"
		"  --no-instr  skip the instruction counts (no valgrind)\n"
		"  --instr     only the instruction counts\n"
		"  VALGRIND=   the valgrind to run (default: valgrind from PATH)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool hot = true, cold = true, instr = true;
	unsigned int nsizes = NSIZES, s;
	double t0 = now_ns();
	int i;

	timer_init();
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--instr-child") && i + 2 < argc) {
			instr_child(argv[i + 1], strtoul(argv[i + 2], NULL, 0));
			return 0;
		} else if (!strcmp(argv[i], "--no-cold")) {
			cold = false;
		} else if (!strcmp(argv[i], "--no-instr")) {
			instr = false;
		} else if (!strcmp(argv[i], "--instr")) {
			hot = false;
			cold = false;
		} else if (argv[i][0] >= '1' && argv[i][0] <= '9') {
			nsizes = strtoul(argv[i], NULL, 0);
			if (nsizes > NSIZES)
				nsizes = NSIZES;
		} else {
			print_help();
		}
	}
	if (!hot)
		instr = true;

	printf("# wheel (module/wheel.c) vs binary min-heap\n");
	printf("# ticks uniform over 2^%d ahead; expire = per entry handed out,\n",
	       RANGE_BITS);
	printf("# cascades included; fifo = in the order added, random = shuffled\n");

	if (hot) {
		for (s = 0; s < nsizes; s++) {
			bench_wheel(HOT, sizes[s], &res[HOT][WHEEL][s]);
			bench_heap(HOT, sizes[s], &res[HOT][HEAP][s]);
		}
		printf("\n# hot: ns per operation, entries in one array (median of rounds)\n");
		print_table(HOT, nsizes);
		printf("\n%-8s | %12s %12s\n", "pending", "wheel B/ent",
		       "heap B/ent");
		for (s = 0; s < nsizes; s++)
			printf("%-8s | %12.2f %12.2f\n", size_name(sizes[s]),
			       res[HOT][WHEEL][s].bytes,
			       res[HOT][HEAP][s].bytes);
	}

	if (cold && !arena_init(sizes[(nsizes < COLD_SIZES ? nsizes : COLD_SIZES) - 1])) {
		printf("\n# cold: not measured (no clflush, or no memory for the arena)\n");
		cold = false;
	}
	if (cold) {
		for (s = 0; s < nsizes && s < COLD_SIZES; s++) {
			bench_wheel(COLD, sizes[s], &res[COLD][WHEEL][s]);
			bench_heap(COLD, sizes[s], &res[COLD][HEAP][s]);
		}
		fprintf(stdout,
			"\n# cold: ns per operation, each entry alone on a random line of a %zu MiB\n"
			"# arena, timed in slices of %d calls that each start with every entry\n"
			"# flushed from the caches; the structure's own memory (slot heads, heap\n"
			"# array) is left alone (median of rounds). Not at 10M: 1M is already far\n"
			"# beyond the caches. No expire: see bench.c.\n",
			arena_lines * LINE >> 20, COLD_SLICE);
		print_table(COLD, nsizes);
	}

	if (instr && measure_instr(nsizes)) {
		printf("\n# instructions per operation, callgrind, inside the API calls only\n"
		       "# (cache-independent, deterministic); not at 10M: too slow under callgrind\n");
		print_table(INSTR, nsizes);
	}

	print_verdicts(nsizes);
	printf("# %.1f s\n", (now_ns() - t0) / 1e9);
	return 0;
}
