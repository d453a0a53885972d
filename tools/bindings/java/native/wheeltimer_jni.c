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
 * One struct wtj per org.wheeltimer.WheelTimer: the library's context and
 * two buffers that Java sees as direct ByteBuffers: the operations the
 * worker hands over in a batch, and the records a reap or a wait returns.
 * Passing them through shared memory keeps every call free of array
 * copies and of critical sections: the methods take and return only
 * primitives, except open(), now(), advance() and stats(), which fill a
 * small long[] once.
 *
 * Threads. Everything but wake() is called by the timer's worker thread
 * alone (or, before it starts and after it ends, by the one thread that
 * owns the timer), as the library requires. wake() is
 * wheeltimer_wake(), the library's one call that any thread may make
 * while another uses the context: it ends the worker's wait(). The Java
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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <wheeltimer/wheeltimer.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* The class whose native methods these are. */
#define WTJ_CLASS		"org/wheeltimer/Native"

/* Operations per batch, and records per reap: one WT_IOC_BATCH each. */
#define WTJ_OPS_MAX		1024U
#define WTJ_EVENTS_MAX		1024U

/*
 * An operation as Java writes it into the ops buffer: WTJ_OP_WORDS
 * 64-bit words, the last two written back by apply().
 */
#define WTJ_OP_WORDS		8U
#define WTJ_OP_KIND		0	/* WTJ_ADD, WTJ_ADD_PERIODIC, WTJ_CANCEL */
#define WTJ_OP_FLAGS		1	/* WHEELTIMER_* flags of the call */
#define WTJ_OP_ARG		2	/* the deadline, or the handle to cancel */
#define WTJ_OP_PERIOD		3
#define WTJ_OP_SLACK		4
#define WTJ_OP_COOKIE		5
#define WTJ_OP_RES		6	/* out: 0 or a negative error */
#define WTJ_OP_HANDLE		7	/* out: the handle of an add */

#define WTJ_ADD			1
#define WTJ_ADD_PERIODIC	2
#define WTJ_CANCEL		3

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

/* The counters stats() copies: struct wheeltimer_stats up to @reserved. */
#define WTJ_STATS_WORDS		(offsetof(struct wheeltimer_stats, reserved) / \
				 sizeof(uint64_t))

/**
 * struct wtj - the native side of one WheelTimer
 * @wt: the library's context
 * @ops: WTJ_OPS_MAX operations of WTJ_OP_WORDS words, shared with Java
 * @events: WTJ_EVENTS_MAX records, shared with Java
 */
struct wtj {
	struct wheeltimer *wt;
	uint64_t *ops;
	struct wheeltimer_event *events;
};

static inline struct wtj *wtj_of(jlong ptr)
{
	return (struct wtj *)(intptr_t)ptr;
}

static void wtj_free(struct wtj *w)
{
	if (w->wt)
		wheeltimer_close(w->wt);
	free(w->ops);
	free(w->events);
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
	w->ops = calloc(WTJ_OPS_MAX, WTJ_OP_WORDS * sizeof(uint64_t));
	w->events = calloc(WTJ_EVENTS_MAX, sizeof(struct wheeltimer_event));
	if (!w->ops || !w->events) {
		err = -ENOMEM;
		goto out;
	}

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

/* The ops buffer, as a direct ByteBuffer (null with an exception pending). */
static jobject wtj_ops_buffer(JNIEnv *env, jclass cls, jlong ptr)
{
	return (*env)->NewDirectByteBuffer(env, wtj_of(ptr)->ops,
					   WTJ_OPS_MAX * WTJ_OP_WORDS *
					   sizeof(uint64_t));
}

static jobject wtj_events_buffer(JNIEnv *env, jclass cls, jlong ptr)
{
	return (*env)->NewDirectByteBuffer(env, wtj_of(ptr)->events,
					   WTJ_EVENTS_MAX *
					   sizeof(struct wheeltimer_event));
}

static jint wtj_ops_max(JNIEnv *env, jclass cls)
{
	return WTJ_OPS_MAX;
}

static jint wtj_events_max(JNIEnv *env, jclass cls)
{
	return WTJ_EVENTS_MAX;
}

/*
 * Queues the first @n operations of the ops buffer with the library (no
 * system call unless its queue fills), each one's outcome written back
 * into it. Returns @n, or -EINVAL for a bad count.
 */
static jint wtj_apply(JNIEnv *env, jclass cls, jlong ptr, jint n)
{
	struct wtj *w = wtj_of(ptr);
	uint64_t *op, handle;
	jint i;
	int res;

	if (n < 0 || (unsigned int)n > WTJ_OPS_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		op = &w->ops[(size_t)i * WTJ_OP_WORDS];
		handle = WHEELTIMER_HANDLE_NONE;
		switch (op[WTJ_OP_KIND]) {
		case WTJ_ADD:
			res = wheeltimer_add(w->wt, op[WTJ_OP_ARG],
					     op[WTJ_OP_SLACK],
					     (uint32_t)op[WTJ_OP_FLAGS],
					     op[WTJ_OP_COOKIE], &handle);
			break;
		case WTJ_ADD_PERIODIC:
			res = wheeltimer_add_periodic(w->wt, op[WTJ_OP_ARG],
						      op[WTJ_OP_PERIOD],
						      op[WTJ_OP_SLACK],
						      (uint32_t)op[WTJ_OP_FLAGS],
						      op[WTJ_OP_COOKIE],
						      &handle);
			break;
		case WTJ_CANCEL:
			res = wheeltimer_cancel(w->wt, op[WTJ_OP_ARG],
						(uint32_t)op[WTJ_OP_FLAGS]);
			break;
		default:
			res = -EINVAL;
			break;
		}
		op[WTJ_OP_RES] = (uint64_t)(int64_t)res;
		op[WTJ_OP_HANDLE] = handle;
	}
	return n;
}

/* Sends what is queued to the engine: the number of operations sent. */
static jint wtj_submit(JNIEnv *env, jclass cls, jlong ptr)
{
	return wheeltimer_submit(wtj_of(ptr)->wt);
}

/* Submits what is queued and reaps up to WTJ_EVENTS_MAX records, at once. */
static jint wtj_reap(JNIEnv *env, jclass cls, jlong ptr)
{
	struct wtj *w = wtj_of(ptr);

	return wheeltimer_reap(w->wt, w->events, WTJ_EVENTS_MAX);
}

/*
 * Submits what is queued and waits up to @timeout_ns (negative: for ever;
 * 0: not at all) for records, which it stores in the events buffer, as
 * wheeltimer_wait(): returns their number, 0 when the time passed, -EINTR
 * when wake() came first (or a signal), or another negative error.
 */
static jint wtj_wait(JNIEnv *env, jclass cls, jlong ptr, jlong timeout_ns)
{
	struct wtj *w = wtj_of(ptr);

	return wheeltimer_wait(w->wt, w->events, WTJ_EVENTS_MAX, timeout_ns);
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

/* Copies the context's counters, in struct wheeltimer_stats order, into @out. */
static jint wtj_stats(JNIEnv *env, jclass cls, jlong ptr, jlongArray out)
{
	struct wheeltimer_stats st;
	jlong v[WTJ_STATS_WORDS];
	unsigned int i;
	int res;

	res = wheeltimer_stats(wtj_of(ptr)->wt, &st);
	if (res)
		return res;
	for (i = 0; i < WTJ_STATS_WORDS; i++)
		v[i] = (jlong)((const uint64_t *)&st)[i];
	(*env)->SetLongArrayRegion(env, out, 0, WTJ_STATS_WORDS, v);
	return 0;
}

static jint wtj_stats_words(JNIEnv *env, jclass cls)
{
	return WTJ_STATS_WORDS;
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
	WTJ_METHOD("opsBuffer", "(J)Ljava/nio/ByteBuffer;", wtj_ops_buffer),
	WTJ_METHOD("eventsBuffer", "(J)Ljava/nio/ByteBuffer;", wtj_events_buffer),
	WTJ_METHOD("opsMax", "()I", wtj_ops_max),
	WTJ_METHOD("eventsMax", "()I", wtj_events_max),
	WTJ_METHOD("apply", "(JI)I", wtj_apply),
	WTJ_METHOD("submit", "(J)I", wtj_submit),
	WTJ_METHOD("reap", "(J)I", wtj_reap),
	WTJ_METHOD("waitRecords", "(JJ)I", wtj_wait),
	WTJ_METHOD("wake", "(J)I", wtj_wake),
	WTJ_METHOD("advance", "(JJI[J)I", wtj_advance),
	WTJ_METHOD("now", "(J[J)I", wtj_now),
	WTJ_METHOD("stats", "(J[J)I", wtj_stats),
	WTJ_METHOD("statsWords", "()I", wtj_stats_words),
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
