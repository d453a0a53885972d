// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * wheeltimer_jni.c - the JNI glue between org.wheeltimer.Native and
 * libwheeltimer
 *
 * libwheeltimer_jni.so holds libwheeltimer itself (linked from
 * libwheeltimer.a, whose only global symbols are the wheeltimer_* calls),
 * and exports nothing but JNI_OnLoad, which registers the native methods
 * of org.wheeltimer.Native by name: no other symbol can clash with the
 * JVM's or another library's.
 *
 * One struct wtj per org.wheeltimer.WheelTimer: the library's context, and
 * what one JNI call moves between it and the worker's two long[] arrays.
 *
 * Operations. The worker writes up to WTJ_OPS_MAX operations into a long[]
 * (a head word of kind, flags and an add's cookie, the worker's slot for
 * it, then the kind's arguments: two words for a plain add or a cancel);
 * apply() copies them in with one GetLongArrayRegion(), queues each with
 * the library (no system call unless its queue fills) and copies one
 * outcome per operation back.
 *
 * Records: rounds. A wait (or, on a virtual clock, a reap) starts a round:
 * every record ready then, reaped to the last into a buffer here that
 * grows as a burst needs, and put in deadline order (the engine hands out
 * those of one tick in no particular order; ties keep its order). The
 * worker takes the round in chunks of WTJ_CHUNK records, one
 * SetLongArrayRegion() per chunk, and runs each chunk's tasks before it
 * asks for the next. A record reaches Java as the library wrote it, a
 * struct wheeltimer_event of six 64-bit words: the round's own bytes when
 * it came in order, else gathered in deadline order (and, on a big-endian
 * machine, with @flags and @res swapped into the little-endian word that
 * Java reads).
 *
 * Why Java arrays and not direct ByteBuffers (as before): the worker
 * reads and writes a few words per timeout, and before the JIT has
 * compiled it a ByteBuffer access costs about 1.2 us (a dozen interpreted
 * calls), an array element about 20 ns. The first burst of a fresh JVM ran
 * mostly in those accesses. The copies cost a memcpy per chunk, not a
 * call per operation, and no array is pinned.
 *
 * Threads. Everything but wake() is called by the timer's worker thread
 * alone (or, before it starts and after it ends, by the one thread that
 * owns the timer), as the library requires. wake() is
 * wheeltimer_wake(), the library's one call that any thread may make
 * while another uses the context: it ends the worker's wait. The Java
 * side keeps the context open until every wake() that started has
 * returned (see WheelTimer).
 *
 * Errors are returned as negative errno values (or the library's own
 * codes); the Java side turns them into exceptions. The only exceptions
 * raised here are those of the JNI calls themselves (out of memory, an
 * array too short), checked after each call.
 */
#include <errno.h>
#include <jni.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <wheeltimer/wheeltimer.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* The class whose native methods these are. */
#define WTJ_CLASS		"org/wheeltimer/Native"

/* Operations per apply(): one full library queue, one WT_IOC_BATCH. */
#define WTJ_OPS_MAX		1024U
/* An operation's words: the head, then at most three arguments. */
#define WTJ_OP_MAX_WORDS	4U
#define WTJ_OPS_WORDS		(WTJ_OPS_MAX * WTJ_OP_MAX_WORDS)

/*
 * The head word: the kind in the low byte, the library's flags in the 24
 * bits above, an add's cookie in the high half.
 */
#define WTJ_OP_KIND_MASK	0xffU
#define WTJ_OP_FLAGS_SHIFT	8
#define WTJ_OP_FLAGS_MASK	0xffffffU
#define WTJ_OP_COOKIE_SHIFT	32
#define WTJ_ADD			1	/* deadline */
#define WTJ_ADD_SLACK		2	/* deadline, slack */
#define WTJ_ADD_PERIODIC	3	/* deadline, period, slack */
#define WTJ_CANCEL		4	/* handle */

/* Records per chunk, and a record's words: struct wheeltimer_event. */
#define WTJ_CHUNK		1024U
#define WTJ_REC_WORDS		(sizeof(struct wheeltimer_event) / sizeof(jlong))
_Static_assert(sizeof(struct wheeltimer_event) == 6 * sizeof(jlong),
	       "a record is six words for Java");
_Static_assert(offsetof(struct wheeltimer_event, overruns) == 4 * sizeof(jlong) &&
	       offsetof(struct wheeltimer_event, flags) == 5 * sizeof(jlong) &&
	       offsetof(struct wheeltimer_event, res) == 5 * sizeof(jlong) + 4,
	       "Java reads the overruns from word 4, the flags and result from word 5");
/*
 * The round buffer between bursts, in records; after a burst grew it, it
 * goes back to this once WTJ_SHRINK_ROUNDS rounds in a row fitted.
 */
#define WTJ_ROUND_MIN		1024U
#define WTJ_SHRINK_ROUNDS	64U

/* The long[] of open(): parameters in, the outcome out. */
#define WTJ_IO_ENGINE		0	/* in/out */
#define WTJ_IO_RESOLUTION	1
#define WTJ_IO_MAX_PENDING	2	/* in/out */
#define WTJ_IO_CLOCKID		3
#define WTJ_IO_FLAGS		4
#define WTJ_IO_FEATURES		5	/* in/out */
#define WTJ_IO_MISSING		6	/* out */
#define WTJ_IO_ERROR		7	/* out: 0 or a negative error */
#define WTJ_IO_WORDS		8

/*
 * The counters stats() copies into Java's long[], by name: the one list of
 * them, X(field of struct wheeltimer_stats). Java finds each by its name
 * (statsNames()) when it loads, so that a field added to the struct, or
 * moved, or to this list, shifts none of them, and one Java reads that the
 * list lost fails the load.
 */
#define WTJ_STATS(X)		\
	X(resolution_ns)	\
	X(max_pending)		\
	X(live)			\
	X(added)		\
	X(fired)		\
	X(cancelled)		\
	X(withdrawn)		\
	X(overruns)		\
	X(timer_programs)	\
	X(submits)		\
	X(submitted)		\
	X(reads)

#define WTJ_STAT_CHECK(field) \
	_Static_assert(sizeof(((struct wheeltimer_stats *)0)->field) == sizeof(uint64_t), \
		       #field " is a 64-bit counter");
#define WTJ_STAT_OFFSET(field)	offsetof(struct wheeltimer_stats, field),
#define WTJ_STAT_NAME(field)	#field,
WTJ_STATS(WTJ_STAT_CHECK)
static const size_t wtj_stat_offsets[] = { WTJ_STATS(WTJ_STAT_OFFSET) };
static const char *const wtj_stat_names[] = { WTJ_STATS(WTJ_STAT_NAME) };
#define WTJ_STATS_WORDS		ARRAY_SIZE(wtj_stat_offsets)

/* A record's place in deadline order. */
struct wtj_key {
	uint64_t deadline;
	uint64_t idx;
};

/**
 * struct wtj - the native side of one WheelTimer
 * @wt: the library's context
 * @ops: the operations apply() copied in
 * @results: their outcomes, copied out
 * @round: the records of the round, in the engine's order
 * @keys: when @sorted is false, the round's deadline order (@round indices)
 * @tmp: scratch for sorting @keys
 * @runs: scratch for sorting: where each ascending run of @keys starts
 * @cap: records @round has room for (and @keys, @tmp, @runs when allocated)
 * @key_cap: records @keys, @tmp and @runs have room for
 * @len: records in the round
 * @pos: records of the round already handed over
 * @sorted: the round is in deadline order as it came
 * @fitted: rounds in a row that fitted in WTJ_ROUND_MIN records
 * @chunk: one chunk gathered in deadline order, when the round came out of it
 */
struct wtj {
	struct wheeltimer *wt;
	jlong ops[WTJ_OPS_WORDS];
	jlong results[WTJ_OPS_MAX];
	struct wheeltimer_event *round;
	struct wtj_key *keys;
	struct wtj_key *tmp;
	uint32_t *runs;
	uint32_t cap;
	uint32_t key_cap;
	uint32_t len;
	uint32_t pos;
	bool sorted;
	uint32_t fitted;
	struct wheeltimer_event chunk[WTJ_CHUNK];
};

static inline struct wtj *wtj_of(jlong ptr)
{
	return (struct wtj *)(intptr_t)ptr;
}

static void wtj_free_keys(struct wtj *w)
{
	free(w->keys);
	free(w->tmp);
	free(w->runs);
	w->keys = NULL;
	w->tmp = NULL;
	w->runs = NULL;
	w->key_cap = 0;
}

static void wtj_free(struct wtj *w)
{
	if (w->wt)
		wheeltimer_close(w->wt);
	free(w->round);
	wtj_free_keys(w);
	free(w);
}

/*
 * Opens a context with the parameters in @io and returns it, or 0 with
 * the error in io[WTJ_IO_ERROR].
 */
static jlong wtj_open(JNIEnv *env, jclass cls, jlongArray io)
{
	struct wheeltimer_params p;
	jlong v[WTJ_IO_WORDS];
	struct wtj *w;
	int err;

	(*env)->GetLongArrayRegion(env, io, 0, WTJ_IO_WORDS, v);
	if ((*env)->ExceptionCheck(env))
		return 0;

	w = calloc(1, sizeof(*w));
	if (!w) {
		err = -ENOMEM;
		goto out;
	}
	w->round = calloc(WTJ_ROUND_MIN, sizeof(*w->round));
	if (!w->round) {
		err = -ENOMEM;
		goto out;
	}
	w->cap = WTJ_ROUND_MIN;

	wheeltimer_params_init(&p);
	p.engine = (uint32_t)v[WTJ_IO_ENGINE];
	p.resolution_ns = (uint64_t)v[WTJ_IO_RESOLUTION];
	p.max_pending = (uint64_t)v[WTJ_IO_MAX_PENDING];
	p.clockid = (int32_t)v[WTJ_IO_CLOCKID];
	p.flags = (uint32_t)v[WTJ_IO_FLAGS];
	p.features = (uint64_t)v[WTJ_IO_FEATURES];
	err = wheeltimer_open(&p, &w->wt);
	v[WTJ_IO_ENGINE] = p.engine;
	v[WTJ_IO_MAX_PENDING] = (jlong)p.max_pending;
	v[WTJ_IO_FEATURES] = (jlong)p.features;
	v[WTJ_IO_MISSING] = (jlong)p.missing;
out:
	v[WTJ_IO_ERROR] = err;
	(*env)->SetLongArrayRegion(env, io, 0, WTJ_IO_WORDS, v);
	if (err || (*env)->ExceptionCheck(env)) {
		if (w)
			wtj_free(w);
		return 0;
	}
	return (jlong)(intptr_t)w;
}

static void wtj_close(JNIEnv *env, jclass cls, jlong ptr)
{
	wtj_free(wtj_of(ptr));
}

static jint wtj_ops_words(JNIEnv *env, jclass cls)
{
	return WTJ_OPS_WORDS;
}

static jint wtj_ops_max(JNIEnv *env, jclass cls)
{
	return WTJ_OPS_MAX;
}

static jint wtj_chunk_records(JNIEnv *env, jclass cls)
{
	return WTJ_CHUNK;
}

/* An outcome as Java reads it: the handle, or the errno in the high half. */
static jlong wtj_outcome(int res, uint64_t handle)
{
	return res ? (jlong)((uint64_t)(uint32_t)-res << 32) : (jlong)handle;
}

/*
 * Queues the operations in the first @words words of @ops with the library,
 * each one's outcome written into @results. Returns their number, or
 * -EINVAL for a malformed one (those before it queued, their outcomes
 * written).
 */
static jint wtj_apply(JNIEnv *env, jclass cls, jlong ptr, jlongArray ops,
		      jint words, jlongArray results)
{
	struct wtj *w = wtj_of(ptr);
	const uint64_t *op, *end;
	uint64_t handle, cookie;
	uint32_t flags;
	unsigned int size;
	jint n = 0, ret;
	int res;

	if (words < 0 || (unsigned int)words > WTJ_OPS_WORDS)
		return -EINVAL;
	(*env)->GetLongArrayRegion(env, ops, 0, words, w->ops);
	if ((*env)->ExceptionCheck(env))
		return -EINVAL;
	op = (const uint64_t *)w->ops;
	end = op + words;
	ret = 0;
	while (op < end) {
		flags = (uint32_t)(op[0] >> WTJ_OP_FLAGS_SHIFT) & WTJ_OP_FLAGS_MASK;
		cookie = op[0] >> WTJ_OP_COOKIE_SHIFT;
		handle = WHEELTIMER_HANDLE_NONE;
		switch (op[0] & WTJ_OP_KIND_MASK) {
		case WTJ_ADD:
			size = 2;
			break;
		case WTJ_ADD_SLACK:
			size = 3;
			break;
		case WTJ_ADD_PERIODIC:
			size = 4;
			break;
		case WTJ_CANCEL:
			size = 2;
			break;
		default:
			size = 0;
			break;
		}
		if (!size || (size_t)(end - op) < size || (unsigned int)n == WTJ_OPS_MAX) {
			ret = -EINVAL;
			break;
		}
		switch (op[0] & WTJ_OP_KIND_MASK) {
		case WTJ_ADD:
			res = wheeltimer_add(w->wt, op[1], 0, flags, cookie, &handle);
			break;
		case WTJ_ADD_SLACK:
			res = wheeltimer_add(w->wt, op[1], op[2], flags, cookie, &handle);
			break;
		case WTJ_ADD_PERIODIC:
			res = wheeltimer_add_periodic(w->wt, op[1], op[2], op[3],
						      flags, cookie, &handle);
			break;
		default:
			res = wheeltimer_cancel(w->wt, op[1], flags);
			break;
		}
		w->results[n++] = wtj_outcome(res, handle);
		op += size;
	}
	(*env)->SetLongArrayRegion(env, results, 0, n, w->results);
	return ret ? ret : n;
}

/* Room for @cap records in the round buffer; false if memory ran out. */
static bool wtj_round_grow(struct wtj *w, uint32_t cap)
{
	struct wheeltimer_event *round;

	round = realloc(w->round, (size_t)cap * sizeof(*round));
	if (!round)
		return false;
	w->round = round;
	w->cap = cap;
	return true;
}

/*
 * Merge the ascending runs of @src at @runs[0..@nr] (each run i is
 * [@runs[i], @runs[i + 1])) pairwise into @dst; returns the number of runs
 * left, their bounds written back into @runs.
 */
static uint32_t wtj_merge_pass(const struct wtj_key *src, struct wtj_key *dst,
			       uint32_t *runs, uint32_t nr)
{
	uint32_t r, out = 0, i, j, k, mid, hi;

	for (r = 0; r < nr; r += 2) {
		i = runs[r];
		k = i;
		if (r + 1 == nr) {
			memcpy(&dst[i], &src[i], (runs[r + 1] - i) * sizeof(*src));
			runs[out++] = i;
			continue;
		}
		mid = runs[r + 1];
		hi = runs[r + 2];
		j = mid;
		/* Ties take the earlier run's first: the sort is stable. */
		while (i < mid && j < hi)
			dst[k++] = src[j].deadline < src[i].deadline ? src[j++] : src[i++];
		while (i < mid)
			dst[k++] = src[i++];
		while (j < hi)
			dst[k++] = src[j++];
		runs[out++] = runs[r];
	}
	runs[out] = runs[nr];
	return out;
}

/*
 * Put the round in deadline order, stably: as it came if it is in order
 * already (a pass over it), else by a merge of its ascending runs, which
 * costs little when a burst came in a few long runs. Without memory for
 * the keys the round stays in the engine's order.
 */
static void wtj_round_order(struct wtj *w)
{
	struct wtj_key *src, *dst, *t;
	uint32_t i, nr;

	w->sorted = true;
	for (i = 1; i < w->len; i++) {
		if (w->round[i].deadline < w->round[i - 1].deadline) {
			w->sorted = false;
			break;
		}
	}
	if (w->sorted)
		return;
	if (w->key_cap < w->len) {
		wtj_free_keys(w);
		w->keys = malloc((size_t)w->cap * sizeof(*w->keys));
		w->tmp = malloc((size_t)w->cap * sizeof(*w->tmp));
		w->runs = malloc(((size_t)w->cap + 1) * sizeof(*w->runs));
		if (!w->keys || !w->tmp || !w->runs) {
			wtj_free_keys(w);
			w->sorted = true;
			return;
		}
		w->key_cap = w->cap;
	}
	nr = 0;
	for (i = 0; i < w->len; i++) {
		w->keys[i].deadline = w->round[i].deadline;
		w->keys[i].idx = i;
		if (!i || w->round[i].deadline < w->round[i - 1].deadline)
			w->runs[nr++] = i;
	}
	w->runs[nr] = w->len;
	src = w->keys;
	dst = w->tmp;
	while (nr > 1) {
		nr = wtj_merge_pass(src, dst, w->runs, nr);
		t = src;
		src = dst;
		dst = t;
	}
	/* The order is in @src: make it @keys. */
	if (src != w->keys) {
		w->tmp = w->keys;
		w->keys = src;
	}
}

/*
 * Finish a round whose first @n records a wait or a reap put at the start
 * of the round buffer: reap the rest of what is ready, growing the buffer,
 * then order it. A reap that fails once records are in hand ends the round
 * with them (the next wait meets the error again); so does a buffer that
 * cannot grow (the rest comes in the next round).
 */
static void wtj_round_fill(struct wtj *w, uint32_t n)
{
	int got;

	while (n == w->cap) {
		if (w->cap > UINT32_MAX / 2 / sizeof(*w->round) ||
		    !wtj_round_grow(w, w->cap * 2))
			break;
		got = wheeltimer_reap(w->wt, &w->round[n], w->cap - n);
		if (got <= 0)
			break;
		n += (uint32_t)got;
	}
	w->len = n;
	w->pos = 0;
	wtj_round_order(w);
}

/*
 * Word 5 of a record as Java reads it: @flags in the low half, @res in the
 * high half. That is the struct's own layout on a little-endian machine.
 */
static void wtj_java_order(struct wheeltimer_event *ev, uint32_t n)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	uint64_t word;
	uint32_t i;

	for (i = 0; i < n; i++) {
		word = (uint64_t)(uint32_t)ev[i].res << 32 | ev[i].flags;
		memcpy(&ev[i].flags, &word, sizeof(word));
	}
#else
	(void)ev;
	(void)n;
#endif
}

/* Copy the next chunk of the round into @out: its size, 0 if the round is over. */
static jint wtj_chunk(JNIEnv *env, struct wtj *w, jlongArray out)
{
	struct wheeltimer_event *src = &w->round[w->pos];
	uint32_t i, n = w->len - w->pos;

	if (n > WTJ_CHUNK)
		n = WTJ_CHUNK;
	if (!w->sorted) {
		for (i = 0; i < n; i++)
			w->chunk[i] = w->round[w->keys[w->pos + i].idx];
		src = w->chunk;
	}
	if (n) {
		wtj_java_order(src, n);
		(*env)->SetLongArrayRegion(env, out, 0, n * WTJ_REC_WORDS,
					   (const jlong *)src);
	}
	w->pos += n;
	if (w->pos < w->len)
		return n;
	/* The round is over: give back what a burst took, once bursts stop. */
	w->fitted = w->len <= WTJ_ROUND_MIN ? w->fitted + 1 : 0;
	if (w->cap > WTJ_ROUND_MIN && w->fitted >= WTJ_SHRINK_ROUNDS) {
		wtj_free_keys(w);
		wtj_round_grow(w, WTJ_ROUND_MIN);
	}
	w->len = 0;
	w->pos = 0;
	return n;
}

/* A round from a wait or a reap that returned @n: its first chunk, or @n. */
static jint wtj_round_start(JNIEnv *env, struct wtj *w, int n, jlongArray out)
{
	if (n <= 0)
		return n;
	wtj_round_fill(w, (uint32_t)n);
	return wtj_chunk(env, w, out);
}

/* Sends what is queued to the engine: the number of operations sent. */
static jint wtj_submit(JNIEnv *env, jclass cls, jlong ptr)
{
	return wheeltimer_submit(wtj_of(ptr)->wt);
}

/*
 * Submits what is queued and waits up to @timeout_ns (negative: for ever;
 * 0: not at all) for records, as wheeltimer_wait(): the first chunk of the
 * round they start, 0 when the time passed, -EINTR when wake() came first
 * (or a signal), or another negative error. -EBUSY if a round is not over.
 */
static jint wtj_wait_round(JNIEnv *env, jclass cls, jlong ptr, jlong timeout_ns,
			   jlongArray out)
{
	struct wtj *w = wtj_of(ptr);

	if (w->pos < w->len)
		return -EBUSY;
	return wtj_round_start(env, w, wheeltimer_wait(w->wt, w->round, w->cap,
							timeout_ns), out);
}

/* As wtj_wait_round(), without waiting: submits, then reaps what is ready. */
static jint wtj_reap_round(JNIEnv *env, jclass cls, jlong ptr, jlongArray out)
{
	struct wtj *w = wtj_of(ptr);

	if (w->pos < w->len)
		return -EBUSY;
	return wtj_round_start(env, w, wheeltimer_reap(w->wt, w->round, w->cap), out);
}

static jint wtj_next_chunk(JNIEnv *env, jclass cls, jlong ptr, jlongArray out)
{
	return wtj_chunk(env, wtj_of(ptr), out);
}

/* From any thread: ends the worker's wait(), or makes its next one return. */
static jint wtj_wake(JNIEnv *env, jclass cls, jlong ptr)
{
	return wheeltimer_wake(wtj_of(ptr)->wt);
}

/* The virtual clock: moves it (or sets it, WHEELTIMER_ADVANCE_SET); out: now, expired. */
static jint wtj_advance(JNIEnv *env, jclass cls, jlong ptr, jlong time,
			jint flags, jlongArray out)
{
	uint64_t now = 0, expired = 0;
	jlong v[2];
	int res;

	res = wheeltimer_advance(wtj_of(ptr)->wt, (uint64_t)time,
				 (uint32_t)flags, &now, &expired);
	v[0] = (jlong)now;
	v[1] = (jlong)expired;
	(*env)->SetLongArrayRegion(env, out, 0, 2, v);
	return res;
}

static jint wtj_now(JNIEnv *env, jclass cls, jlong ptr, jlongArray out)
{
	uint64_t now = 0;
	jlong v;
	int res;

	res = wheeltimer_now(wtj_of(ptr)->wt, &now);
	v = (jlong)now;
	(*env)->SetLongArrayRegion(env, out, 0, 1, &v);
	return res;
}

/* Copies the context's counters into @out, in the order of WTJ_STATS. */
static jint wtj_stats(JNIEnv *env, jclass cls, jlong ptr, jlongArray out)
{
	struct wheeltimer_stats st;
	jlong v[WTJ_STATS_WORDS];
	uint64_t counter;
	unsigned int i;
	int res;

	res = wheeltimer_stats(wtj_of(ptr)->wt, &st);
	if (res)
		return res;
	for (i = 0; i < WTJ_STATS_WORDS; i++) {
		memcpy(&counter, (const char *)&st + wtj_stat_offsets[i], sizeof(counter));
		v[i] = (jlong)counter;
	}
	(*env)->SetLongArrayRegion(env, out, 0, WTJ_STATS_WORDS, v);
	return 0;
}

/* The names of stats()'s counters, in its order; null if out of memory. */
static jobjectArray wtj_stats_names(JNIEnv *env, jclass cls)
{
	jobjectArray names;
	jclass string;
	jstring name;
	unsigned int i;

	string = (*env)->FindClass(env, "java/lang/String");
	if (!string)
		return NULL;
	names = (*env)->NewObjectArray(env, WTJ_STATS_WORDS, string, NULL);
	(*env)->DeleteLocalRef(env, string);
	for (i = 0; names && i < WTJ_STATS_WORDS; i++) {
		name = (*env)->NewStringUTF(env, wtj_stat_names[i]);
		if (!name)
			return NULL;
		(*env)->SetObjectArrayElement(env, names, i, name);
		(*env)->DeleteLocalRef(env, name);
	}
	return names;
}

static jint wtj_engine(JNIEnv *env, jclass cls, jlong ptr)
{
	return (jint)wheeltimer_engine(wtj_of(ptr)->wt);
}

static jlong wtj_features(JNIEnv *env, jclass cls, jlong ptr)
{
	return (jlong)wheeltimer_features(wtj_of(ptr)->wt);
}

/* The library's name for an error (either sign); null if out of memory. */
static jstring wtj_strerror(JNIEnv *env, jclass cls, jint err)
{
	return (*env)->NewStringUTF(env, wheeltimer_strerror(err));
}

/* A clock_gettime() reading in ns, or a negative errno. */
static jlong wtj_clock(JNIEnv *env, jclass cls, jint clockid)
{
	struct timespec ts;

	if (clock_gettime((clockid_t)clockid, &ts))
		return -errno;
	return (jlong)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The calling thread's kernel id, to find its counters under /proc. */
static jint wtj_gettid(JNIEnv *env, jclass cls)
{
	return (jint)gettid();
}

#define WTJ_METHOD(name, sig, fn) \
	{ (char *)(name), (char *)(sig), (void *)(fn) }

static const JNINativeMethod wtj_methods[] = {
	WTJ_METHOD("open", "([J)J", wtj_open),
	WTJ_METHOD("close", "(J)V", wtj_close),
	WTJ_METHOD("opsWords", "()I", wtj_ops_words),
	WTJ_METHOD("opsMax", "()I", wtj_ops_max),
	WTJ_METHOD("chunkRecords", "()I", wtj_chunk_records),
	WTJ_METHOD("apply", "(J[JI[J)I", wtj_apply),
	WTJ_METHOD("submit", "(J)I", wtj_submit),
	WTJ_METHOD("waitRound", "(JJ[J)I", wtj_wait_round),
	WTJ_METHOD("reapRound", "(J[J)I", wtj_reap_round),
	WTJ_METHOD("nextChunk", "(J[J)I", wtj_next_chunk),
	WTJ_METHOD("wake", "(J)I", wtj_wake),
	WTJ_METHOD("advance", "(JJI[J)I", wtj_advance),
	WTJ_METHOD("now", "(J[J)I", wtj_now),
	WTJ_METHOD("stats", "(J[J)I", wtj_stats),
	WTJ_METHOD("statsNames", "()[Ljava/lang/String;", wtj_stats_names),
	WTJ_METHOD("engine", "(J)I", wtj_engine),
	WTJ_METHOD("features", "(J)J", wtj_features),
	WTJ_METHOD("strerror", "(I)Ljava/lang/String;", wtj_strerror),
	WTJ_METHOD("clock", "(I)J", wtj_clock),
	WTJ_METHOD("gettid", "()I", wtj_gettid),
};

/*
 * Called by System.load() or System.loadLibrary(): registers the methods
 * on org.wheeltimer.Native. A mismatch (a jar and a library of different
 * versions) fails the load with the JVM's NoSuchMethodError. <jni.h>
 * declares it JNIEXPORT JNICALL, which makes it visible here although
 * everything else is hidden.
 */
jint JNI_OnLoad(JavaVM *vm, void *reserved)
{
	JNIEnv *env;
	jclass cls;
	jint res;

	if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK)
		return JNI_ERR;
	cls = (*env)->FindClass(env, WTJ_CLASS);
	if (!cls)
		return JNI_ERR;
	res = (*env)->RegisterNatives(env, cls, wtj_methods,
				      ARRAY_SIZE(wtj_methods));
	(*env)->DeleteLocalRef(env, cls);
	return res ? JNI_ERR : JNI_VERSION_1_8;
}
