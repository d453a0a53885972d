// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * engines_test.c - the two engines side by side, operation for operation
 * and record for record, and contexts on many threads at once
 */
#include <pthread.h>

#include "lib_test.h"

/* Contexts are independent: one per thread, all at once. */
static void *thread_main(void *arg)
{
	struct wheeltimer_event ev[64];
	long fired = 0, i;
	struct wheeltimer *wt;
	uint64_t h;
	int r;

	(void)arg;
	if (open_virtual(&wt))
		return (void *)-1L;
	for (i = 0; i < 20000; i++) {
		if (wheeltimer_add(wt, (i % 100 + 1) * MS, 0, 0, i, &h))
			break;
		if (i % 2 && wheeltimer_cancel(wt, h, 0))
			break;
	}
	if (advance_to(wt, SEC) == 10000)
		while ((r = wheeltimer_reap(wt, ev, 64)) > 0)
			fired += r;
	wheeltimer_close(wt);
	return (void *)fired;
}

static void test_threads(void)
{
	pthread_t t[4];
	void *ret;
	int i;

	for (i = 0; i < 4; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, thread_main, NULL), 0);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(pthread_join(t[i], &ret), 0);
		CHECK_EQ((long)ret, 10000);
	}
}

/* The second batch of the parity test, on the ids the first one got. */
static void parity_second(struct wt_op *o, const struct wt_op *first)
{
	memset(o, 0, 5 * sizeof(*o));
	o[0] = (struct wt_op){ .op = WT_OP_CANCEL, .id = first[0].id };
	o[1] = (struct wt_op){ .op = WT_OP_MODIFY, .id = first[0].id,
			       .deadline = MS };
	o[2] = (struct wt_op){ .op = WT_OP_CANCEL, .id = first[0].id };
	o[3] = (struct wt_op){ .op = WT_OP_MODIFY, .id = first[15].id,
			       .deadline = 2 * MS };
	o[4] = (struct wt_op){ .op = WT_OP_CANCEL, .id = first[14].id };
}

/* Kernel engine only: raw operations get the same answers in-process. */
static void test_parity_ops(void)
{
	struct wt_op k[20], p[20], k2[5], p2[5];
	struct wheeltimer *wk, *wp;
	unsigned int i, n = 0;

	if (engine != WHEELTIMER_ENGINE_KERNEL)
		tap_skip("compares the kernel engine with the in-process one");
	CHECK_EQ(open_ctx(&wk, WHEELTIMER_ENGINE_KERNEL, WHEELTIMER_PARAM_VIRTUAL,
			  CLOCK_MONOTONIC, 3, 0), 0);
	CHECK_EQ(open_ctx(&wp, WHEELTIMER_ENGINE_PROCESS, WHEELTIMER_PARAM_VIRTUAL,
			  CLOCK_MONOTONIC, 3, 0), 0);
	memset(k, 0, sizeof(k));
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .deadline = 10 * MS, .cookie = 1 };
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .deadline = MS, .period = MS,
				 .flags = WT_FIXED_RATE | WT_FIXED_DELAY };
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .flags = WT_FIXED_RATE };
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .period = 5 };
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .slack = TMAX + 1 };
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .deadline = TMAX + 1 };
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .flags = 0x80 };
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .reserved = 1 };
	k[n++] = (struct wt_op){ .op = 0 };
	k[n++] = (struct wt_op){ .op = 9 };
	k[n++] = (struct wt_op){ .op = WT_OP_CANCEL, .cookie = 5 };
	k[n++] = (struct wt_op){ .op = WT_OP_CANCEL, .id = 0xdead00000001ULL };
	k[n++] = (struct wt_op){ .op = WT_OP_MODIFY, .period = 1 };
	k[n++] = (struct wt_op){ .op = WT_OP_MODIFY, .flags = WT_FIXED_RATE };
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .flags = WT_ABSTIME, .cookie = 2 };
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .deadline = SEC, .cookie = 3 };
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .deadline = SEC, .cookie = 4 };
	/* A deadline whose tick lies past KTIME_MAX (1 ms does not divide it). */
	k[n++] = (struct wt_op){ .op = WT_OP_ADD, .flags = WT_ABSTIME,
				 .deadline = TMAX };
	memcpy(p, k, sizeof(k));
	CHECK_EQ(wk->engine->batch(wk, k, n), 3);
	CHECK_EQ(wp->engine->batch(wp, p, n), 3);
	for (i = 0; i < n; i++) {
		CHECK_EQ(k[i].status, p[i].status);
		CHECK_EQ(k[i].error, p[i].error);
		CHECK_EQ(!k[i].id, !p[i].id);
	}
	CHECK_EQ(k[5].error, ERANGE);
	CHECK_EQ(k[16].error, ENOSPC);

	/* The due one fires; then cancels and modifies on each one's ids. */
	CHECK_EQ(wheeltimer_advance(wk, 0, 0, NULL, NULL), 0);
	CHECK_EQ(wheeltimer_advance(wp, 0, 0, NULL, NULL), 0);
	parity_second(k2, k);
	parity_second(p2, p);
	CHECK_EQ(wk->engine->batch(wk, k2, 5), 3);
	CHECK_EQ(wp->engine->batch(wp, p2, 5), 3);
	for (i = 0; i < 5; i++) {
		CHECK_EQ(k2[i].status, p2[i].status);
		CHECK_EQ(k2[i].error, p2[i].error);
	}
	CHECK_EQ(k2[0].status, WT_STATUS_PENDING);
	CHECK_EQ(k2[1].error, ENOENT);
	CHECK_EQ(k2[4].status, WT_STATUS_WITHDRAWN);
	wheeltimer_close(wk);
	wheeltimer_close(wp);
}

/* A scripted virtual-clock run, recorded for comparison between engines. */
static int trace_run(uint32_t eng, struct wheeltimer_event *out, int cap)
{
	struct wheeltimer *wt;
	uint64_t h[64];
	int i, n = 0, r;

	if (open_ctx(&wt, eng, WHEELTIMER_PARAM_VIRTUAL, CLOCK_REALTIME, 8, 4))
		return -1;
	for (i = 0; i < 12; i++) {
		if (i % 4 == 3)
			r = wheeltimer_add_periodic(wt, (i + 1) * MS, 3 * MS,
						    (i % 3) * MS,
						    i % 8 == 3 ?
						    WHEELTIMER_FIXED_RATE :
						    WHEELTIMER_FIXED_DELAY,
						    i, &h[i]);
		else
			r = wheeltimer_add(wt, (i * 37 % 11) * MS + i * 1000,
					   (i % 5) * MS, 0, i, &h[i]);
		if (r)
			goto fail;
	}
	wheeltimer_modify(wt, h[1], 20 * MS, 0, WHEELTIMER_NOTIFY);
	wheeltimer_cancel(wt, h[2], WHEELTIMER_NOTIFY);
	for (i = 1; i <= 40; i++) {
		if (advance_to(wt, i * 1700 * US) < 0)
			goto fail;
		if (i == 10)
			wheeltimer_modify(wt, h[5], 2 * MS, MS, WHEELTIMER_NOTIFY);
		if (i == 20 && advance_to(wt, 5 * MS) < 0)
			goto fail;
		if (i % 3)
			continue;
		r = reap_all(wt, out + n, cap - n);
		if (r < 0)
			goto fail;
		n += r;
	}
	wheeltimer_close(wt);
	return n;
fail:
	wheeltimer_close(wt);
	return -1;
}

static void test_parity_trace(void)
{
	static struct wheeltimer_event k[512], p[512];
	int nk, np, i;

	if (engine != WHEELTIMER_ENGINE_KERNEL)
		tap_skip("compares the kernel engine with the in-process one");
	nk = trace_run(WHEELTIMER_ENGINE_KERNEL, k, 512);
	np = trace_run(WHEELTIMER_ENGINE_PROCESS, p, 512);
	printf("# %d records from the kernel, %d in-process\n", nk, np);
	CHECK(nk > 20);
	CHECK_EQ(nk, np);
	for (i = 0; i < nk; i++) {
		CHECK_EQ(k[i].cookie, p[i].cookie);
		CHECK_EQ(k[i].deadline, p[i].deadline);
		CHECK_EQ(k[i].fired_at, p[i].fired_at);
		CHECK_EQ(k[i].overruns, p[i].overruns);
		CHECK_EQ(k[i].flags, p[i].flags);
		CHECK_EQ(k[i].res, p[i].res);
	}
}

const struct tap_test engines_tests[] = {
	{ "threads", test_threads },
	{ "parity_ops", test_parity_ops },
	{ "parity_trace", test_parity_trace },
	{ NULL, NULL },
};
