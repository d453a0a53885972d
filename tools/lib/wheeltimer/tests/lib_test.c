// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * lib_test.c - libwheeltimer's test suite, the same cases on either engine
 *
 *   lib_test -e process|kernel [-n HANDLES] [-u UNIT]
 *
 * -n sets the size of the request-timeout case (1000000), -u the name of
 * the TAP unit (lib/ENGINE).
 *
 * Every case opens its contexts on the engine named by -e, so the same
 * expectations hold the kernel's /dev/wheeltimer and the in-process engine
 * to one set of semantics. Expected values are worked out here from the
 * documented rules (a deadline D fires at tick ceil(D / resolution), a
 * FIXED_RATE timeout reaped at T reports (T - D) / period overruns, ...),
 * never read back from the library. With the kernel engine the suite also
 * runs everything against a second, in-process context and compares the
 * two answer for answer. Timing on an emulated machine is noisy, so the
 * real-clock cases assert only what holds at any speed: never early,
 * exactly once, order, counts.
 *
 * It links the library's objects rather than the shared library, to reach
 * the engines directly and the handshake's test hook.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

#define US		1000ULL
#define MS		1000000ULL
#define SEC		1000000000ULL
#define TMAX		((uint64_t)INT64_MAX)
#define EVS		256

static uint32_t engine;

static const char *engine_name;
static unsigned long n_request = 1000000;

static int open_ctx(struct wheeltimer **wt, uint32_t eng, uint32_t flags,
		    int32_t clockid, uint64_t max_pending, uint32_t depth)
{
	struct wheeltimer_params p;

	wheeltimer_params_init(&p);
	p.engine = eng;
	p.flags = flags;
	p.clockid = clockid;
	p.resolution_ns = MS;
	p.max_pending = max_pending;
	p.queue_depth = depth;
	return wheeltimer_open(&p, wt);
}

/* A virtual-clock context on the engine under test, 1 ms resolution. */
static int open_virtual(struct wheeltimer **wt)
{
	return open_ctx(wt, engine, WHEELTIMER_PARAM_VIRTUAL, CLOCK_MONOTONIC,
			0, 0);
}

/* Reap until nothing is ready; returns the records or a negative errno. */
static int reap_all(struct wheeltimer *wt, struct wheeltimer_event *evs,
		    int cap)
{
	int n = 0, r = 0;

	while (n < cap && (r = wheeltimer_reap(wt, evs + n, cap - n)) > 0)
		n += r;
	return r < 0 ? r : n;
}

static int64_t advance_to(struct wheeltimer *wt, uint64_t t)
{
	uint64_t expired;
	int r = wheeltimer_advance(wt, t, WHEELTIMER_ADVANCE_SET, NULL,
				   &expired);

	return r ? r : (int64_t)expired;
}

static uint64_t stat_of(struct wheeltimer *wt, const char *key)
{
	uint64_t v;

	return wheeltimer_stat(wt, key, &v) ? UINT64_MAX : v;
}

/* The module counts "rebuilds" today, "rewinds" after issue 11. */
static uint64_t rewinds_of(struct wheeltimer *wt)
{
	struct wheeltimer_stats st;

	if (wheeltimer_stats(wt, &st) || !(st.present & WHEELTIMER_STAT_REWINDS))
		return UINT64_MAX;
	return st.rewinds;
}

/* The tick boundary at which a deadline fires with no slack. */
static uint64_t tick_of(uint64_t deadline)
{
	return (deadline + MS - 1) / MS * MS;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static void test_params(void)
{
	struct wheeltimer_params p;
	struct wheeltimer *wt;

	wheeltimer_params_init(&p);
	CHECK_EQ(p.version, WHEELTIMER_PARAMS_VERSION);
	CHECK_EQ(p.clockid, CLOCK_MONOTONIC);
	CHECK_EQ(p.resolution_ns, MS);

	/* A struct that was only zeroed is refused, not taken as REALTIME. */
	memset(&p, 0, sizeof(p));
	CHECK_EQ(wheeltimer_open(&p, &wt), -EINVAL);
	CHECK(!wt);

#define REFUSED(field, value, err) do {					\
	wheeltimer_params_init(&p);					\
	p.engine = engine;						\
	p.field = value;						\
	CHECK_EQ(wheeltimer_open(&p, &wt), err);			\
} while (0)
	REFUSED(resolution_ns, US - 1, -EINVAL);
	REFUSED(resolution_ns, 3600 * SEC + 1, -EINVAL);
	REFUSED(clockid, 12345, -EINVAL);
	REFUSED(flags, 0x2, -EINVAL);
	REFUSED(reserved0, 1, -EINVAL);
	REFUSED(reserved[3], 1, -EINVAL);
	REFUSED(queue_depth, 64 * 1024 + 1, -EINVAL);
	REFUSED(max_pending, (1ULL << 24) + 1, -EINVAL);
	REFUSED(engine, 7, -WHEELTIMER_EENGINE);
#undef REFUSED

	/* What comes back: the engine, the limit in force, its features. */
	wheeltimer_params_init(&p);
	p.engine = engine;
	CHECK_EQ(wheeltimer_open(&p, &wt), 0);
	CHECK_EQ(p.engine, engine);
	CHECK_EQ(wheeltimer_engine(wt), engine);
	CHECK_EQ(p.max_pending, 1ULL << 20);
	CHECK_EQ(p.missing, 0);
	CHECK(p.features & WHEELTIMER_FEATURE_PERIODIC);
	CHECK_EQ(p.features, wheeltimer_features(wt));
	CHECK(wheeltimer_fd(wt) >= 0);
	wheeltimer_close(wt);

	/* NULL parameters: AUTO, which WHEELTIMER_ENGINE (set by main) decides. */
	CHECK_EQ(wheeltimer_open(NULL, &wt), 0);
	CHECK_EQ(wheeltimer_engine(wt), engine);
	wheeltimer_close(wt);
	setenv("WHEELTIMER_ENGINE", "kernal", 1);
	CHECK_EQ(wheeltimer_open(NULL, &wt), -WHEELTIMER_EENGINE);
	setenv("WHEELTIMER_ENGINE", engine_name, 1);
	CHECK_EQ(wheeltimer_major_version(), WHEELTIMER_VERSION_MAJOR);
	CHECK_EQ(wheeltimer_minor_version(), WHEELTIMER_VERSION_MINOR);
}

/* No device: KERNEL fails with open()'s errno, AUTO falls back. */
static void test_fallback(void)
{
	struct wheeltimer_params pk, pa;
	struct wheeltimer_probe probe;
	struct wheeltimer *wk, *wa;
	int rk, ra;

	setenv("WHEELTIMER_DEVICE", "/nonexistent/wheeltimer", 1);
	unsetenv("WHEELTIMER_ENGINE");
	wheeltimer_params_init(&pk);
	pk.engine = WHEELTIMER_ENGINE_KERNEL;
	rk = wheeltimer_open(&pk, &wk);
	wheeltimer_params_init(&pa);
	ra = wheeltimer_open(&pa, &wa);
	wheeltimer_probe(&probe);
	unsetenv("WHEELTIMER_DEVICE");
	setenv("WHEELTIMER_ENGINE", engine_name, 1);

	CHECK_EQ(rk, -ENOENT);
	CHECK_EQ(ra, 0);
	wheeltimer_close(wa);
	CHECK_EQ(pa.engine, WHEELTIMER_ENGINE_PROCESS);
	CHECK_EQ(probe.device_error, ENOENT);
	CHECK_EQ(probe.api, 0);
	CHECK(probe.process_features & WHEELTIMER_FEATURE_VIRTUAL_CLOCK);
	CHECK(!(probe.process_features & WHEELTIMER_FEATURE_EVENTFD));

	CHECK_EQ(wheeltimer_probe(&probe), 0);
	if (engine == WHEELTIMER_ENGINE_KERNEL) {
		CHECK_EQ(probe.device_error, 0);
		CHECK_EQ(probe.api, 1);
		CHECK_EQ(probe.event_size, 48);
		CHECK_EQ(probe.batch_max, 1024);
		CHECK(probe.kernel_features & WHEELTIMER_FEATURE_EVENTFD);
	}
}

/* The handshake's answer, as an older or odder module would give it. */
static uint64_t hook_drop_features, hook_drop_ioctls;
static int hook_ret;
static uint32_t hook_event_size, hook_engine_seen;

static int api_hook(uint32_t eng, struct wt_api *api, int ret)
{
	hook_engine_seen = eng;
	api->features &= ~hook_drop_features;
	api->ioctls &= ~hook_drop_ioctls;
	if (hook_event_size)
		api->event_size = hook_event_size;
	if (hook_ret) {
		memset(api, 0, sizeof(*api));
		return hook_ret;
	}
	return ret;
}

static int open_hooked(struct wheeltimer_params *p, struct wheeltimer **wt)
{
	int r;

	wtl_api_hook = api_hook;
	r = wheeltimer_open(p, wt);
	wtl_api_hook = NULL;
	hook_drop_features = 0;
	hook_drop_ioctls = 0;
	hook_ret = 0;
	hook_event_size = 0;
	return r;
}

static void test_old_module(void)
{
	struct wheeltimer_params p;
	struct wheeltimer *wt;
	uint64_t h;

	/* A module without virtual clocks or periodic timeouts. */
	wheeltimer_params_init(&p);
	p.engine = engine;
	p.flags = WHEELTIMER_PARAM_VIRTUAL;
	hook_drop_features = WT_FEATURE_VIRTUAL_CLOCK | WT_FEATURE_PERIODIC;
	CHECK_EQ(open_hooked(&p, &wt), -WHEELTIMER_EFEATURE);
	CHECK_EQ(hook_engine_seen, engine);
	CHECK_EQ(p.missing, WHEELTIMER_FEATURE_VIRTUAL_CLOCK);
	CHECK(!strcmp(wheeltimer_feature_name(p.missing), "virtual_clock"));
	CHECK(strstr(wheeltimer_strerror(-WHEELTIMER_EFEATURE), "feature"));

	/* Asked for explicitly, periodic is missing too. */
	wheeltimer_params_init(&p);
	p.engine = engine;
	p.features = WHEELTIMER_FEATURE_PERIODIC | WHEELTIMER_FEATURE_SLACK;
	hook_drop_features = WT_FEATURE_VIRTUAL_CLOCK | WT_FEATURE_PERIODIC;
	CHECK_EQ(open_hooked(&p, &wt), -WHEELTIMER_EFEATURE);
	CHECK_EQ(p.missing, WHEELTIMER_FEATURE_PERIODIC);

	/* Not asked for: the context opens, and only periodic adds fail. */
	wheeltimer_params_init(&p);
	p.engine = engine;
	hook_drop_features = WT_FEATURE_PERIODIC | WT_FEATURE_SLACK;
	CHECK_EQ(open_hooked(&p, &wt), 0);
	CHECK(!(wheeltimer_features(wt) & WHEELTIMER_FEATURE_PERIODIC));
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, MS, 0, WHEELTIMER_FIXED_RATE,
					 1, &h), -WHEELTIMER_EFEATURE);
	CHECK_EQ(wheeltimer_add(wt, MS, MS, 0, 1, &h), -WHEELTIMER_EFEATURE);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &h), 0);
	CHECK_EQ(wheeltimer_queued(wt), 1);
	wheeltimer_close(wt);

	/* A module from before the handshake, or of another version. */
	wheeltimer_params_init(&p);
	p.engine = engine;
	hook_ret = -ENOTTY;
	CHECK_EQ(open_hooked(&p, &wt), -WHEELTIMER_EAPI);
	hook_ret = -EINVAL;
	CHECK_EQ(open_hooked(&p, &wt), -WHEELTIMER_EAPI);
	hook_event_size = 40;
	CHECK_EQ(open_hooked(&p, &wt), -WHEELTIMER_EAPI);
	hook_drop_ioctls = 1ULL << _WT_IOC_BATCH;
	CHECK_EQ(open_hooked(&p, &wt), -WHEELTIMER_EAPI);
	p.flags = WHEELTIMER_PARAM_VIRTUAL;
	hook_drop_ioctls = 1ULL << _WT_IOC_ADVANCE;
	CHECK_EQ(open_hooked(&p, &wt), -WHEELTIMER_EAPI);
	CHECK(strstr(wheeltimer_strerror(-WHEELTIMER_EAPI), "version"));
	/* Other errors of the handshake pass through. */
	hook_ret = -EIO;
	CHECK_EQ(open_hooked(&p, &wt), -EIO);
}

/* One-shot deadlines on a virtual clock fire exactly at their tick. */
static void test_virtual_exact(void)
{
	static const uint64_t d[] = {
		0, 1, MS - 1, MS, MS + 1, 5 * MS + MS / 2, 100 * MS,
		3600 * SEC, 3600 * SEC + 1,
	};
	static const uint64_t stops[] = {
		0, MS - 1, MS, 2 * MS - 1, 2 * MS, 6 * MS, 99 * MS, 100 * MS,
		3600 * SEC - 1, 3600 * SEC, 3600 * SEC + MS,
	};
	const int nd = ARRAY_SIZE(d);
	struct wheeltimer_event evs[EVS];
	int seen[ARRAY_SIZE(d)] = { 0 };
	uint64_t h[ARRAY_SIZE(d)], last = 0, now;
	struct wheeltimer *wt;
	int i, s, n, fired, expect;

	CHECK_EQ(open_virtual(&wt), 0);
	for (i = 0; i < nd; i++)
		CHECK_EQ(wheeltimer_add(wt, d[i], 0, 0, 1000 + i, &h[i]), 0);
	for (s = 0; s < (int)ARRAY_SIZE(stops); s++) {
		fired = advance_to(wt, stops[s]);
		CHECK(fired >= 0);
		CHECK_EQ(wheeltimer_now(wt, &now), 0);
		CHECK_EQ(now, stops[s]);
		n = reap_all(wt, evs, EVS);
		CHECK_EQ(n, fired);
		for (i = 0; i < n; i++) {
			int k = evs[i].cookie - 1000;

			CHECK(k >= 0 && k < nd);
			CHECK_EQ(evs[i].handle, h[k]);
			CHECK_EQ(evs[i].deadline, d[k]);
			CHECK_EQ(evs[i].fired_at, tick_of(d[k]));
			CHECK_EQ(evs[i].flags, WHEELTIMER_EV_FINAL);
			CHECK_EQ(evs[i].res, 0);
			CHECK(evs[i].fired_at >= last);
			last = evs[i].fired_at;
			seen[k]++;
		}
		/* Everything due by now has fired, exactly once; nothing else. */
		for (i = 0; i < nd; i++) {
			expect = tick_of(d[i]) <= stops[s];
			CHECK_EQ(seen[i], expect);
		}
	}
	for (i = 0; i < nd; i++)
		CHECK_EQ(wheeltimer_cancel(wt, h[i], 0), -ENOENT);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	CHECK_EQ(stat_of(wt, "lib_warnings"), 0);
	wheeltimer_close(wt);
}

/* Slack fires at the tick with most trailing zeros in the window. */
/*
 * A virtual clock fires only during an advance: a timeout added with its
 * tick reached already (at or before the clock, which stands on a tick)
 * fires at the next advance, one by 0 included, at the clock's time; not
 * at the submit, a reap or a wait. One whose tick is still ahead (the
 * clock between ticks, the deadline before it) waits for that tick.
 */
static void test_virtual_due_next_advance(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h, now, expired;
	int i;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(advance_to(wt, 5 * MS), 0);
	CHECK_EQ(wheeltimer_add(wt, 3 * MS, 0, WHEELTIMER_ABSTIME, 3, &h), 0);
	CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, WHEELTIMER_ABSTIME, 5, &h), 0);
	CHECK_EQ(wheeltimer_add(wt, 0, 0, 0, 0, &h), 0);
	CHECK_EQ(wheeltimer_submit(wt), 3);
	CHECK_EQ(wheeltimer_reap(wt, ev, 4), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 20 * MS), 0);
	CHECK_EQ(wheeltimer_advance(wt, 0, 0, &now, &expired), 0);
	CHECK_EQ(now, 5 * MS);
	CHECK_EQ(expired, 3);
	CHECK_EQ(reap_all(wt, ev, 4), 3);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(ev[i].deadline, ev[i].cookie ? ev[i].cookie * MS :
							5 * MS);
		CHECK_EQ(ev[i].fired_at, 5 * MS);
		CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FINAL);
	}

	CHECK_EQ(advance_to(wt, 7 * MS + 500 * US), 0);
	CHECK_EQ(wheeltimer_add(wt, 7 * MS + 200 * US, 0, WHEELTIMER_ABSTIME,
				7, &h), 0);
	CHECK_EQ(wheeltimer_advance(wt, 0, 0, NULL, &expired), 0);
	CHECK_EQ(expired, 0);
	CHECK_EQ(reap_all(wt, ev, 4), 0);
	CHECK_EQ(advance_to(wt, 8 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 7 * MS + 200 * US);
	CHECK_EQ(ev[0].fired_at, 8 * MS);
	wheeltimer_close(wt);
}

static void test_slack(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h;

	CHECK_EQ(open_virtual(&wt), 0);
	/* Ticks 3 to 3 + 13 = 16: 16 (0b10000) has the most trailing zeros. */
	CHECK_EQ(wheeltimer_add(wt, 3 * MS, 13 * MS, 0, 7, &h), 0);
	CHECK_EQ(advance_to(wt, 15 * MS), 0);
	CHECK_EQ(advance_to(wt, 16 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 3 * MS);
	CHECK_EQ(ev[0].fired_at, 16 * MS);
	/* Ticks 17 to 17 + 2 = 19: 18 (0b10010). */
	CHECK_EQ(wheeltimer_add(wt, MS, 2 * MS, 0, 8, &h), 0);
	CHECK_EQ(advance_to(wt, 17 * MS), 0);
	CHECK_EQ(advance_to(wt, 18 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].fired_at, 18 * MS);
	wheeltimer_close(wt);
}

static void test_fixed_rate(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer_info info;
	struct wheeltimer *wt;
	uint64_t h;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add_periodic(wt, 10 * MS, 10 * MS, 0,
					 WHEELTIMER_FIXED_RATE, 42, &h), 0);
	/* One record at a time: 10 ms fires, the rest pass unreaped. */
	CHECK_EQ(advance_to(wt, 55 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].handle, h);
	CHECK_EQ(ev[0].cookie, 42);
	CHECK_EQ(ev[0].deadline, 10 * MS);
	CHECK_EQ(ev[0].fired_at, 10 * MS);
	/* Reaped at 55 ms: 20, 30, 40, 50 passed. */
	CHECK_EQ(ev[0].overruns, 4);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_FIXED_RATE);
	/* It goes on at 60 ms, the first deadline after the reap. */
	CHECK_EQ(wheeltimer_query(wt, h, &info), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_PENDING);
	CHECK_EQ(info.deadline, 60 * MS);
	CHECK_EQ(info.period, 10 * MS);
	CHECK_EQ(info.flags, WHEELTIMER_FIXED_RATE);
	CHECK_EQ(advance_to(wt, 60 * MS - 1), 0);
	CHECK_EQ(advance_to(wt, 60 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 60 * MS);
	CHECK_EQ(ev[0].overruns, 0);
	CHECK_EQ(advance_to(wt, 100 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 70 * MS);
	CHECK_EQ(ev[0].overruns, 3);
	CHECK_EQ(wheeltimer_cancel(wt, h, 0), 0);
	CHECK_EQ(advance_to(wt, 200 * MS), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 0);
	CHECK_EQ(stat_of(wt, "overruns"), 7);
	wheeltimer_close(wt);
}

static void test_fixed_delay(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add_periodic(wt, 10 * MS, 10 * MS, 0,
					 WHEELTIMER_FIXED_DELAY, 9, &h), 0);
	CHECK_EQ(advance_to(wt, 25 * MS), 1);
	/* Reaped at 25 ms: the next period starts now, so 35 ms. */
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 10 * MS);
	CHECK_EQ(ev[0].overruns, 0);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_FIXED_DELAY);
	CHECK_EQ(advance_to(wt, 34 * MS), 0);
	CHECK_EQ(advance_to(wt, 35 * MS), 1);
	CHECK_EQ(advance_to(wt, 90 * MS), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 35 * MS);
	CHECK_EQ(ev[0].fired_at, 35 * MS);
	CHECK_EQ(advance_to(wt, 100 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].deadline, 100 * MS);
	wheeltimer_close(wt);
}

/* Cancels and modifies of queued adds cost no system call. */
static void test_before_submit(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h[1000];
	int i;

	CHECK_EQ(open_virtual(&wt), 0);
	for (i = 0; i < 1000; i++)
		CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, i, &h[i]), 0);
	CHECK_EQ(wheeltimer_queued(wt), 1000);
	for (i = 0; i < 999; i++)
		CHECK_EQ(wheeltimer_cancel(wt, h[i], 0), 0);
	CHECK_EQ(wheeltimer_queued(wt), 1);
	/* Moved in the queue, from 1 ms to 7 ms. */
	CHECK_EQ(wheeltimer_modify(wt, h[999], 7 * MS, 0, 0), 0);
	CHECK_EQ(wheeltimer_modify(wt, h[999], 7 * MS, 0, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 0);
	CHECK_EQ(stat_of(wt, "lib_queue_resolved"), 1001);
	CHECK_EQ(stat_of(wt, "added"), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	CHECK_EQ(wheeltimer_submit(wt), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 1);
	CHECK_EQ(stat_of(wt, "added"), 1);
	CHECK_EQ(advance_to(wt, 6 * MS), 0);
	CHECK_EQ(advance_to(wt, 7 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].cookie, 999);
	CHECK_EQ(ev[0].deadline, 7 * MS);
	for (i = 0; i < 1000; i++)
		CHECK_EQ(wheeltimer_error(wt, h[i]), -ENOENT);
	wheeltimer_close(wt);
}

static void test_after_submit(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t a, b, c;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, 0, 1, &a), 0);
	CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, 0, 2, &b), 0);
	CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, 0, 3, &c), 0);
	CHECK_EQ(wheeltimer_submit(wt), 3);
	/* a moves to 9 ms (absolute), b is cancelled, c modified then cancelled. */
	CHECK_EQ(wheeltimer_modify(wt, a, 9 * MS, 0, WHEELTIMER_ABSTIME), 0);
	CHECK_EQ(wheeltimer_cancel(wt, b, 0), 0);
	CHECK_EQ(wheeltimer_modify(wt, c, 1 * MS, 0, 0), 0);
	CHECK_EQ(wheeltimer_cancel(wt, c, 0), 0);
	/* b's cancel came after a's queued modify: it is queued too. */
	CHECK_EQ(wheeltimer_queued(wt), 3);
	CHECK_EQ(stat_of(wt, "lib_queue_resolved"), 1);
	CHECK_EQ(advance_to(wt, 8 * MS), 0);
	CHECK_EQ(stat_of(wt, "cancelled"), 2);
	CHECK_EQ(stat_of(wt, "modified"), 1);
	CHECK_EQ(advance_to(wt, 9 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].handle, a);
	CHECK_EQ(ev[0].deadline, 9 * MS);
	CHECK_EQ(ev[0].fired_at, 9 * MS);
	CHECK_EQ(advance_to(wt, 100 * MS), 0);
	CHECK_EQ(wheeltimer_cancel(wt, b, 0), -ENOENT);
	CHECK_EQ(wheeltimer_modify(wt, c, MS, 0, 0), -ENOENT);
	wheeltimer_close(wt);
}

/* A fired, unreaped record is withdrawn by a cancel or a modify. */
static void test_withdraw(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t a, b, c;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &a), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 2, &b), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 3, &c), 0);
	CHECK_EQ(advance_to(wt, 2 * MS), 3);
	CHECK_EQ(stat_of(wt, "ready"), 3);

	CHECK_EQ(wheeltimer_cancel(wt, a, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_modify(wt, b, 5 * MS, 0, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_cancel(wt, c, 0), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 2);
	CHECK_EQ(ev[0].handle, a);
	CHECK_EQ(ev[0].cookie, 1);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_WITHDRAWN |
			      WHEELTIMER_EV_FINAL);
	CHECK_EQ(ev[0].res, 0);
	CHECK_EQ(ev[1].handle, b);
	CHECK_EQ(ev[1].flags, WHEELTIMER_EV_MODIFY | WHEELTIMER_EV_WITHDRAWN);
	CHECK_EQ(stat_of(wt, "withdrawn"), 3);
	CHECK_EQ(stat_of(wt, "delivered"), 0);
	CHECK_EQ(wheeltimer_cancel(wt, a, 0), -ENOENT);

	/* b fires again, 5 ms after the modify's submit at 2 ms. */
	CHECK_EQ(advance_to(wt, 7 * MS - 1), 0);
	CHECK_EQ(advance_to(wt, 7 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].handle, b);
	CHECK_EQ(ev[0].deadline, 7 * MS);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_FINAL);

	/* A pending one with NOTIFY: cancelled, nothing withdrawn. */
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 4, &a), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	CHECK_EQ(wheeltimer_cancel(wt, a, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_cancel(wt, a, 0), -ENOENT);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_FINAL);
	/* A queued one with NOTIFY: the engine never saw it. */
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 5, &a), 0);
	CHECK_EQ(wheeltimer_modify(wt, a, 2 * MS, 0, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_cancel(wt, a, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 2);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_MODIFY | WHEELTIMER_EV_UNSUBMITTED);
	CHECK_EQ(ev[1].flags, WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_UNSUBMITTED |
			      WHEELTIMER_EV_FINAL);
	CHECK_EQ(ev[1].cookie, 5);
	CHECK_EQ(stat_of(wt, "added"), 4);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

static void test_stale_handles(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer_info info;
	struct wheeltimer *wt;
	uint64_t a, b;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &a), 0);
	CHECK(a != WHEELTIMER_HANDLE_NONE);
	CHECK_EQ(advance_to(wt, MS), 1);
	CHECK_EQ(wheeltimer_error(wt, a), 0);
	CHECK_EQ(wheeltimer_query(wt, a, &info), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_FIRED);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	/* Reaped final: stale for everything. */
	CHECK_EQ(wheeltimer_cancel(wt, a, 0), -ENOENT);
	CHECK_EQ(wheeltimer_modify(wt, a, MS, 0, 0), -ENOENT);
	CHECK_EQ(wheeltimer_query(wt, a, &info), -ENOENT);
	CHECK_EQ(wheeltimer_error(wt, a), -ENOENT);
	/* Its index is reused under a new generation; the old handle stays stale. */
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 2, &b), 0);
	CHECK_EQ((uint32_t)b, (uint32_t)a);
	CHECK(b != a);
	CHECK_EQ(wheeltimer_cancel(wt, a, 0), -ENOENT);
	CHECK_EQ(wheeltimer_cancel(wt, b, 0), 0);
	CHECK_EQ(wheeltimer_cancel(wt, b, 0), -ENOENT);
	/* Never handed out. */
	CHECK_EQ(wheeltimer_cancel(wt, WHEELTIMER_HANDLE_NONE, 0), -ENOENT);
	CHECK_EQ(wheeltimer_cancel(wt, 1ULL << 40 | 12345, 0), -ENOENT);
	CHECK_EQ(wheeltimer_modify(wt, UINT64_MAX, MS, 0, 0), -ENOENT);
	CHECK_EQ(wheeltimer_error(wt, 0x100000002ULL), -ENOENT);
	wheeltimer_close(wt);
}

/*
 * After a submit, the place a handle's operation had in the queue may hold
 * another handle's: a modify or cancel of the first is queued anew, never
 * folded into the other's.
 */
static void test_stale_position(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t a, b, c;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, 10 * MS, 0, 0, 1, &a), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	/* b's add takes the place a's had; a's modify goes after it. */
	CHECK_EQ(wheeltimer_add(wt, 20 * MS, 0, 0, 2, &b), 0);
	CHECK_EQ(wheeltimer_modify(wt, a, 30 * MS, 0, 0), 0);
	CHECK_EQ(wheeltimer_queued(wt), 2);
	CHECK_EQ(wheeltimer_submit(wt), 2);
	/* And c's add; a's cancel goes after it. */
	CHECK_EQ(wheeltimer_add(wt, 40 * MS, 0, 0, 3, &c), 0);
	CHECK_EQ(wheeltimer_cancel(wt, a, 0), 0);
	CHECK_EQ(wheeltimer_queued(wt), 2);
	CHECK_EQ(advance_to(wt, 50 * MS), 2);
	CHECK_EQ(reap_all(wt, ev, 4), 2);
	CHECK_EQ(ev[0].handle, b);
	CHECK_EQ(ev[0].deadline, 20 * MS);
	CHECK_EQ(ev[1].handle, c);
	CHECK_EQ(ev[1].deadline, 40 * MS);
	CHECK_EQ(stat_of(wt, "cancelled"), 1);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

/* Queue @n adds with cookies from @first and submit: all fail, full. */
static int add_failing(struct wheeltimer *wt, uint64_t first, int n)
{
	uint64_t h;
	int i;

	for (i = 0; i < n; i++)
		if (wheeltimer_add(wt, SEC, 0, 0, first + i, &h))
			return -1;
	return wheeltimer_submit(wt) == n ? 0 : -1;
}

/* Reap the EV_ADD records of cookies @from to @to, in order, one by one. */
static int reap_cookies(struct wheeltimer *wt, uint64_t from, uint64_t to)
{
	struct wheeltimer_event ev;

	for (; from < to; from++) {
		if (wheeltimer_reap(wt, &ev, 1) != 1 || ev.cookie != from ||
		    ev.res != -ENOSPC)
			return -1;
	}
	return 0;
}

static void test_enospc(void)
{
	struct wheeltimer_event ev[8];
	struct wheeltimer_info info;
	struct wheeltimer *wt;
	uint64_t h[7];
	int i;

	CHECK_EQ(open_ctx(&wt, engine, WHEELTIMER_PARAM_VIRTUAL,
			  CLOCK_MONOTONIC, 4, 0), 0);
	for (i = 0; i < 6; i++)
		CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, i, &h[i]), 0);
	/* Four fit; the rest fail at the submit and say so on their handles. */
	CHECK_EQ(wheeltimer_submit(wt), 6);
	CHECK_EQ(wheeltimer_error(wt, h[3]), 0);
	CHECK_EQ(wheeltimer_error(wt, h[4]), -ENOSPC);
	CHECK_EQ(wheeltimer_query(wt, h[5], &info), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_FAILED);
	CHECK_EQ(info.error, -ENOSPC);
	CHECK_EQ(info.cookie, 5);
	/* A cancel frees room for an add queued after it, in the same batch. */
	CHECK_EQ(wheeltimer_cancel(wt, h[0], 0), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 6, &h[6]), 0);
	CHECK_EQ(reap_all(wt, ev, 8), 2);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(ev[i].handle, h[4 + i]);
		CHECK_EQ(ev[i].cookie, 4 + i);
		CHECK_EQ(ev[i].flags, WHEELTIMER_EV_ADD | WHEELTIMER_EV_FINAL);
		CHECK_EQ(ev[i].res, -ENOSPC);
	}
	CHECK_EQ(wheeltimer_error(wt, h[4]), -ENOENT);
	CHECK_EQ(wheeltimer_error(wt, h[6]), 0);
	CHECK_EQ(advance_to(wt, MS), 4);
	CHECK_EQ(reap_all(wt, ev, 8), 4);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);

	/* A failed add cancelled before its record is reaped: no record. */
	for (i = 0; i < 5; i++)
		CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, 0, i, &h[i]), 0);
	CHECK_EQ(wheeltimer_submit(wt), 5);
	CHECK_EQ(wheeltimer_error(wt, h[4]), -ENOSPC);
	CHECK_EQ(wheeltimer_cancel(wt, h[4], 0), 0);
	CHECK_EQ(reap_all(wt, ev, 8), 0);

	/*
	 * Records the library makes wrap around its ring, which then grows.
	 * Four are live: every add fails.
	 */
	CHECK_EQ(add_failing(wt, 0, 40), 0);
	CHECK_EQ(reap_cookies(wt, 0, 36), 0);
	CHECK_EQ(add_failing(wt, 100, 40), 0);
	CHECK_EQ(add_failing(wt, 200, 40), 0);
	CHECK_EQ(reap_cookies(wt, 36, 40), 0);
	CHECK_EQ(reap_cookies(wt, 100, 140), 0);
	CHECK_EQ(reap_cookies(wt, 200, 240), 0);
	wheeltimer_close(wt);
}

static void test_errors(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h, now;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, WHEELTIMER_FIXED_RATE, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0x80, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add(wt, TMAX + 1, 0, 0, 0, &h), -ERANGE);
	CHECK_EQ(wheeltimer_add(wt, MS, TMAX + 1, 0, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, 0, 0, WHEELTIMER_FIXED_RATE,
					 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, TMAX + 1, 0,
					 WHEELTIMER_FIXED_RATE, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, MS, 0, 0, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, MS, 0, WHEELTIMER_FIXED_RATE |
					 WHEELTIMER_FIXED_DELAY, 0, &h), -EINVAL);
	CHECK_EQ(wheeltimer_queued(wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 0, &h), 0);
	CHECK_EQ(wheeltimer_modify(wt, h, MS, 0, WHEELTIMER_FIXED_RATE), -EINVAL);
	CHECK_EQ(wheeltimer_modify(wt, h, TMAX + 1, 0, 0), -ERANGE);
	CHECK_EQ(wheeltimer_cancel(wt, h, WHEELTIMER_ABSTIME), -EINVAL);
	CHECK_EQ(wheeltimer_advance(wt, 0, 0x2, NULL, NULL), -EINVAL);
	/* A monotonic clock, even virtual, is not set back. */
	CHECK_EQ(advance_to(wt, 10 * MS), 1);
	CHECK_EQ(advance_to(wt, 5 * MS), -EINVAL);
	CHECK_EQ(wheeltimer_advance(wt, TMAX, 0, NULL, NULL), -ERANGE);
	CHECK_EQ(reap_all(wt, ev, 4), 1);

	/* A relative deadline that passes KTIME_MAX only at submit. */
	CHECK_EQ(advance_to(wt, TMAX - 5), 0);
	CHECK_EQ(wheeltimer_now(wt, &now), 0);
	CHECK_EQ(now, TMAX - 5);
	CHECK_EQ(wheeltimer_add(wt, 100, 0, 0, 77, &h), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_ADD | WHEELTIMER_EV_FINAL);
	CHECK_EQ(ev[0].res, -ERANGE);
	CHECK_EQ(ev[0].cookie, 77);
	wheeltimer_close(wt);

	/*
	 * The last deadline is KTIME_MAX rounded down to the resolution: one
	 * in the partial tick above it could never be reached.
	 */
	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, TMAX / MS * MS, 0, WHEELTIMER_ABSTIME, 1,
				&h), 0);
	CHECK_EQ(wheeltimer_add(wt, TMAX / MS * MS + 1, 0, WHEELTIMER_ABSTIME,
				2, &h), 0);
	CHECK_EQ(wheeltimer_add(wt, TMAX / MS * MS - MS, 3 * MS,
				WHEELTIMER_ABSTIME, 3, &h), 0);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].cookie, 2);
	CHECK_EQ(ev[0].res, -ERANGE);
	/* Slack stops at the last tick. */
	CHECK_EQ(advance_to(wt, TMAX / MS * MS - 1), 0);
	CHECK_EQ(advance_to(wt, TMAX), 2);
	CHECK_EQ(reap_all(wt, ev, 4), 2);
	CHECK_EQ(ev[0].fired_at, TMAX / MS * MS);
	CHECK_EQ(ev[1].fired_at, TMAX / MS * MS);
	wheeltimer_close(wt);

	/* Not virtual: no advance. */
	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_advance(wt, MS, 0, NULL, NULL), -EINVAL);
	wheeltimer_close(wt);
	CHECK(!strcmp(wheeltimer_strerror(-ENOSPC), strerror(ENOSPC)));
	CHECK(!strcmp(wheeltimer_strerror(ENOENT), strerror(ENOENT)));
	CHECK(strstr(wheeltimer_strerror(-WHEELTIMER_EENGINE), "engine"));
	CHECK(!wheeltimer_feature_name(3));
}

/* CLOCK_REALTIME set back: adds after the step never fire early. */
static void test_clock_back(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t a, b;

	CHECK_EQ(open_ctx(&wt, engine, WHEELTIMER_PARAM_VIRTUAL, CLOCK_REALTIME,
			  0, 0), 0);
	/* Something fires at 1000 ms, so the wheel's own clock gets there. */
	CHECK_EQ(wheeltimer_add(wt, 1000 * MS, 0, 0, 0, &a), 0);
	CHECK_EQ(advance_to(wt, 1000 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(rewinds_of(wt), 0);
	CHECK_EQ(wheeltimer_add(wt, 1500 * MS, 0, WHEELTIMER_ABSTIME, 1, &a), 0);
	CHECK_EQ(advance_to(wt, 100 * MS), 0);
	/* 50 ms from 100 ms: the wheel's clock is at 1000 ms. */
	CHECK_EQ(wheeltimer_add(wt, 50 * MS, 0, 0, 2, &b), 0);
	CHECK_EQ(advance_to(wt, 150 * MS - 1), 0);
	CHECK_EQ(advance_to(wt, 150 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].handle, b);
	CHECK_EQ(ev[0].deadline, 150 * MS);
	CHECK_EQ(ev[0].fired_at, 150 * MS);
	CHECK_EQ(rewinds_of(wt), 1);
	/* The absolute one keeps its wall-clock time. */
	CHECK_EQ(advance_to(wt, 1500 * MS - 1), 0);
	CHECK_EQ(advance_to(wt, 1500 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].handle, a);
	CHECK_EQ(ev[0].fired_at, 1500 * MS);
	wheeltimer_close(wt);
}

/* The request-timeout pattern at n_request handles. */
static void test_request_timeouts(void)
{
	unsigned long n = n_request, i, fired = 0, resolved = 0, cancels = 0;
	struct wheeltimer_event *evs;
	struct wheeltimer_stats st;
	struct wheeltimer *wt;
	unsigned char *seen;
	uint64_t *h, extra;
	int r, k;

	CHECK_EQ(open_virtual(&wt), 0);
	h = malloc(n * sizeof(*h));
	seen = calloc(n, 1);
	evs = malloc(4096 * sizeof(*evs));
	CHECK(h && seen && evs);
	for (i = 0; i < n; i++) {
		r = wheeltimer_add(wt, SEC + (i % 1000) * MS + i % 7, 0, 0, i,
				   &h[i]);
		CHECK_EQ(r, 0);
		/* Every tenth request is answered before the loop submits. */
		if (i % 10 == 5) {
			CHECK_EQ(wheeltimer_add(wt, SEC, 0, 0, n + i, &extra), 0);
			CHECK_EQ(wheeltimer_cancel(wt, extra, 0), 0);
			resolved++;
		}
	}
	CHECK_EQ(wheeltimer_submit(wt) >= 0, 1);
	CHECK_EQ(stat_of(wt, "live"), n);
	/* Nine in ten are answered in time. */
	for (i = 0; i < n; i++) {
		if (i % 10) {
			CHECK_EQ(wheeltimer_cancel(wt, h[i], 0), 0);
			cancels++;
		}
	}
	CHECK_EQ(advance_to(wt, 3 * SEC), n - cancels);
	while ((r = wheeltimer_reap(wt, evs, 4096)) > 0) {
		for (k = 0; k < r; k++) {
			i = evs[k].cookie;
			CHECK(i < n && i % 10 == 0 && !seen[i]);
			seen[i] = 1;
			CHECK_EQ(evs[k].handle, h[i]);
			CHECK_EQ(evs[k].deadline, SEC + (i % 1000) * MS + i % 7);
			CHECK_EQ(evs[k].fired_at, tick_of(evs[k].deadline));
			CHECK_EQ(evs[k].flags, WHEELTIMER_EV_FINAL);
			fired++;
		}
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(fired, n - cancels);
	CHECK_EQ(wheeltimer_stats(wt, &st), 0);
	CHECK_EQ(st.added, n);
	CHECK_EQ(st.cancelled, cancels);
	CHECK_EQ(st.fired, n - cancels);
	CHECK_EQ(st.delivered, n - cancels);
	CHECK_EQ(st.live, 0);
	CHECK_EQ(st.queue_resolved, resolved);
	/* Full batches only: one call per 1024 adds, then per 1024 cancels. */
	CHECK_EQ(st.submits, (n + 1023) / 1024 + (cancels + 1023) / 1024);
	CHECK_EQ(st.submitted, n + cancels);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	CHECK_EQ(stat_of(wt, "lib_dropped"), 0);
	CHECK_EQ(stat_of(wt, "lib_warnings"), 0);
	printf("# %lu handles: %lu cancelled after submit, %lu in the queue, ",
	       n, cancels, resolved);
	printf("%lu fired; %llu batch calls\n", fired,
	       (unsigned long long)st.submits);
	free(h);
	free(seen);
	free(evs);
	wheeltimer_close(wt);
}

/* Auto-submit: a full queue goes out by itself, in one call. */
static void test_auto_submit(void)
{
	struct wheeltimer_info info;
	struct wheeltimer *wt;
	uint64_t h[100];
	int i;

	CHECK_EQ(open_ctx(&wt, engine, WHEELTIMER_PARAM_VIRTUAL,
			  CLOCK_MONOTONIC, 0, 16), 0);
	for (i = 0; i < 100; i++)
		CHECK_EQ(wheeltimer_add(wt, SEC, 0, 0, i, &h[i]), 0);
	CHECK_EQ(stat_of(wt, "lib_auto_submits"), 6);
	CHECK_EQ(stat_of(wt, "lib_submits"), 6);
	CHECK_EQ(wheeltimer_queued(wt), 4);
	CHECK_EQ(stat_of(wt, "added"), 96);
	/* Holes are squeezed out before a full queue is sent. */
	for (i = 96; i < 100; i++)
		CHECK_EQ(wheeltimer_cancel(wt, h[i], 0), 0);
	for (i = 0; i < 16; i++)
		CHECK_EQ(wheeltimer_modify(wt, h[i], 2 * SEC, 0, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 6);
	CHECK_EQ(wheeltimer_modify(wt, h[16], 2 * SEC, 0, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 7);
	CHECK_EQ(stat_of(wt, "modified"), 16);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	CHECK_EQ(stat_of(wt, "modified"), 17);

	/* Folding into an operation the squeeze moved finds it where it went. */
	for (i = 0; i < 4; i++)
		CHECK_EQ(wheeltimer_add(wt, SEC, 0, 0, i, &h[96 + i]), 0);
	for (i = 96; i < 100; i++)
		CHECK_EQ(wheeltimer_cancel(wt, h[i], 0), 0);
	for (i = 20; i < 32; i++)
		CHECK_EQ(wheeltimer_modify(wt, h[i], 3 * SEC, 0, 0), 0);
	CHECK_EQ(wheeltimer_modify(wt, h[32], 3 * SEC, 0, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 8);
	for (i = 20; i < 33; i++)
		CHECK_EQ(wheeltimer_modify(wt, h[i], 4 * SEC + i, 0,
					   WHEELTIMER_ABSTIME), 0);
	CHECK_EQ(stat_of(wt, "lib_submits"), 8);
	CHECK_EQ(wheeltimer_submit(wt), 13);
	for (i = 20; i < 33; i++) {
		CHECK_EQ(wheeltimer_query(wt, h[i], &info), 0);
		CHECK_EQ(info.deadline, 4 * SEC + i);
	}
	wheeltimer_close(wt);
}

/* An engine whose batch call fails as a whole once, after @batch_ok calls. */
static const struct wtl_engine *real_engine;
static int batch_ok;

static int failing_batch(struct wheeltimer *wt, struct wt_op *ops,
			 unsigned int n)
{
	if (!batch_ok--)
		return -EIO;
	return real_engine->batch(wt, ops, n);
}

/* A batch call that fails keeps the rest of the queue, in order. */
static void test_submit_failure(void)
{
	struct wheeltimer_event ev[EVS];
	struct wtl_engine failing;
	struct wheeltimer *wt;
	uint64_t h[3000];
	int i, n;

	CHECK_EQ(open_ctx(&wt, engine, WHEELTIMER_PARAM_VIRTUAL,
			  CLOCK_MONOTONIC, 0, 4096), 0);
	real_engine = wt->engine;
	failing = *wt->engine;
	failing.batch = failing_batch;
	wt->engine = &failing;
	for (i = 0; i < 3000; i++)
		CHECK_EQ(wheeltimer_add(wt, (i + 1) * MS, 0, 0, i, &h[i]), 0);
	batch_ok = 1;
	CHECK_EQ(wheeltimer_submit(wt), -EIO);
	CHECK_EQ(wheeltimer_queued(wt), 3000 - 1024);
	CHECK_EQ(stat_of(wt, "added"), 1024);
	/* The ones still queued fold into their moved operations. */
	CHECK_EQ(wheeltimer_cancel(wt, h[2999], 0), 0);
	CHECK_EQ(wheeltimer_modify(wt, h[1024], 5000 * MS, 0,
				   WHEELTIMER_ABSTIME), 0);
	CHECK_EQ(wheeltimer_queued(wt), 3000 - 1024 - 1);
	CHECK_EQ(stat_of(wt, "added"), 1024);
	batch_ok = -1;
	CHECK_EQ(wheeltimer_submit(wt), 3000 - 1024 - 1);
	CHECK_EQ(stat_of(wt, "added"), 2999);
	CHECK_EQ(advance_to(wt, 2999 * MS), 2998);
	for (i = 0; i < 2998; i += n) {
		n = reap_all(wt, ev, EVS);
		CHECK(n > 0);
	}
	CHECK_EQ(advance_to(wt, 5000 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, EVS), 1);
	CHECK_EQ(ev[0].handle, h[1024]);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

static void test_query(void)
{
	struct wheeltimer_info info;
	struct wheeltimer *wt;
	uint64_t h, p;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, 5 * MS, 0, WHEELTIMER_ABSTIME, 11, &h), 0);
	CHECK_EQ(wheeltimer_add_periodic(wt, 3 * MS, 4 * MS, 0,
					 WHEELTIMER_FIXED_DELAY, 12, &p), 0);
	/* Queued: the query submits it first. */
	CHECK_EQ(wheeltimer_query(wt, h, &info), 0);
	CHECK_EQ(wheeltimer_queued(wt), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_PENDING);
	CHECK_EQ(info.deadline, 5 * MS);
	CHECK_EQ(info.remaining, 5 * MS);
	CHECK_EQ(info.cookie, 11);
	CHECK_EQ(info.period, 0);
	CHECK_EQ(info.flags, 0);
	CHECK_EQ(advance_to(wt, 2 * MS), 0);
	CHECK_EQ(wheeltimer_query(wt, h, &info), 0);
	CHECK_EQ(info.remaining, 3 * MS);
	CHECK_EQ(wheeltimer_query(wt, p, &info), 0);
	CHECK_EQ(info.period, 4 * MS);
	CHECK_EQ(info.flags, WHEELTIMER_FIXED_DELAY);
	CHECK_EQ(advance_to(wt, 5 * MS), 2);
	CHECK_EQ(wheeltimer_query(wt, h, &info), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_FIRED);
	CHECK_EQ(info.remaining, 0);
	wheeltimer_close(wt);
}

/* Real clock: never early, exactly once, whatever the machine's speed. */
static void test_real_clock(void)
{
	enum { N = 200 };
	struct wheeltimer_event ev[64];
	int seen[N] = { 0 }, got = 0, i, r;
	uint64_t h[N], dl[N], now, start;
	struct wheeltimer *wt;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_now(wt, &now), 0);
	start = mono_ns();
	CHECK(now <= start && start - now < SEC);
	for (i = 0; i < N; i++) {
		dl[i] = now + (i * 997 % N) * 200 * US;
		CHECK_EQ(wheeltimer_add(wt, dl[i], 0, WHEELTIMER_ABSTIME, i,
					&h[i]), 0);
	}
	while (got < N) {
		r = wheeltimer_wait(wt, ev, 64, 30 * SEC);
		CHECK(r > 0);
		now = mono_ns();
		for (i = 0; i < r; i++) {
			int k = ev[i].cookie;

			CHECK(k >= 0 && k < N && !seen[k]);
			seen[k] = 1;
			CHECK_EQ(ev[i].deadline, dl[k]);
			CHECK(ev[i].fired_at >= dl[k]);
			CHECK(now >= dl[k]);
			CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FINAL);
		}
		got += r;
	}
	/* Nothing more comes. */
	CHECK_EQ(wheeltimer_wait(wt, ev, 64, 20 * MS), 0);
	CHECK(mono_ns() - now >= 20 * MS);
	CHECK_EQ(wheeltimer_wait(wt, ev, 64, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

static void test_periodic_real(void)
{
	struct wheeltimer_event ev[8];
	uint64_t h, start, next;
	struct wheeltimer *wt;
	int got = 0, r;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_now(wt, &start), 0);
	next = start + 5 * MS;
	CHECK_EQ(wheeltimer_add_periodic(wt, next, 5 * MS, 0,
					 WHEELTIMER_ABSTIME |
					 WHEELTIMER_FIXED_RATE, 3, &h), 0);
	while (got < 5) {
		r = wheeltimer_wait(wt, ev, 8, 30 * SEC);
		CHECK_EQ(r, 1);
		/* Each deadline is the last + (overruns + 1) periods. */
		CHECK_EQ(ev[0].deadline, next);
		CHECK(ev[0].fired_at >= ev[0].deadline);
		CHECK(mono_ns() >= ev[0].deadline);
		CHECK_EQ(ev[0].flags, WHEELTIMER_EV_FIXED_RATE);
		next += (ev[0].overruns + 1) * 5 * MS;
		got++;
	}
	CHECK_EQ(wheeltimer_cancel(wt, h, 0), 0);
	wheeltimer_close(wt);
}

/* Due by the clock, collected or not: a cancel or modify withdraws it. */
static void test_due_uncollected(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer_info info;
	struct timespec ts = { 0, 3 * MS };
	struct wheeltimer *wt;
	uint64_t a, b, c, now;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_now(wt, &now), 0);
	CHECK_EQ(wheeltimer_add(wt, now + MS, 0, WHEELTIMER_ABSTIME, 1, &a), 0);
	CHECK_EQ(wheeltimer_add(wt, now + MS, 0, WHEELTIMER_ABSTIME, 2, &b), 0);
	CHECK_EQ(wheeltimer_add(wt, now + MS, 0, WHEELTIMER_ABSTIME, 3, &c), 0);
	CHECK_EQ(wheeltimer_submit(wt), 3);
	/*
	 * Past the deadline's tick, with nothing read since. The module
	 * counts as fired what its hrtimer found due, which an emulated
	 * machine under load may run some milliseconds late: wait for it.
	 */
	do {
		nanosleep(&ts, NULL);
		CHECK_EQ(wheeltimer_query(wt, c, &info), 0);
	} while (info.state != WHEELTIMER_STATE_FIRED &&
		 mono_ns() < now + 30 * SEC);
	CHECK_EQ(info.state, WHEELTIMER_STATE_FIRED);
	CHECK_EQ(wheeltimer_cancel(wt, a, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_modify(wt, b, SEC, 0, WHEELTIMER_NOTIFY), 0);
	CHECK_EQ(wheeltimer_submit(wt), 2);
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 30 * SEC), 3);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_CANCEL | WHEELTIMER_EV_WITHDRAWN |
			      WHEELTIMER_EV_FINAL);
	CHECK_EQ(ev[1].flags, WHEELTIMER_EV_MODIFY | WHEELTIMER_EV_WITHDRAWN);
	CHECK_EQ(ev[2].handle, c);
	CHECK_EQ(ev[2].flags, WHEELTIMER_EV_FINAL);
	CHECK(ev[2].fired_at >= now + MS);
	CHECK_EQ(stat_of(wt, "withdrawn"), 2);
	CHECK_EQ(stat_of(wt, "fired"), 3);
	CHECK_EQ(wheeltimer_cancel(wt, b, 0), 0);
	wheeltimer_close(wt);
}

/* The descriptor is readable while records wait, for epoll users. */
static void test_poll_fd(void)
{
	struct epoll_event ee = { .events = EPOLLIN };
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	int ep, i, r = 0;
	uint64_t h;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, wheeltimer_fd(wt), &ee), 0);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0);
	CHECK_EQ(wheeltimer_add(wt, 10 * MS, 0, 0, 1, &h), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	/* A wake-up for a slot that only cascades may find nothing. */
	for (i = 0; i < 100 && !r; i++) {
		CHECK_EQ(epoll_wait(ep, &ee, 1, 30000), 1);
		r = wheeltimer_reap(wt, ev, 4);
	}
	CHECK_EQ(r, 1);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0);

	/* Three due at once, reaped one at a time: readable until the last. */
	for (i = 0; i < 3; i++)
		CHECK_EQ(wheeltimer_add(wt, 0, 0, 0, i, &h), 0);
	CHECK_EQ(wheeltimer_submit(wt), 3);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(epoll_wait(ep, &ee, 1, 30000), 1);
		CHECK_EQ(wheeltimer_reap(wt, ev, 1), 1);
	}
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0);
	close(ep);
	wheeltimer_close(wt);

	/* A virtual clock: readable once an advance has queued records. */
	CHECK_EQ(open_virtual(&wt), 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0);
	ee.events = EPOLLIN;
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, wheeltimer_fd(wt), &ee), 0);
	for (i = 0; i < 2; i++)
		CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, i, &h), 0);
	CHECK_EQ(advance_to(wt, MS - 1), 0);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0);
	CHECK_EQ(advance_to(wt, MS), 2);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 1);
	CHECK_EQ(wheeltimer_reap(wt, ev, 1), 1);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 1);
	CHECK_EQ(wheeltimer_reap(wt, ev, 1), 1);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0);
	close(ep);
	wheeltimer_close(wt);
}

/*
 * wheeltimer_wake() before a wait: the next wait submits the queue and
 * returns -EINTR at once, whatever its timeout; any number of wakes make
 * one report; reap neither reports nor clears one; the descriptor does not
 * become readable.
 */
static void test_wake_before_wait(void)
{
	struct pollfd pfd = { .events = POLLIN };
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h, t0;
	int i;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_add(wt, 3600 * SEC, 0, 0, 1, &h), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(wheeltimer_wake(wt), 0);
	pfd.fd = wheeltimer_fd(wt);
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 60 * SEC), -EINTR);
	CHECK_EQ(wheeltimer_queued(wt), 0);
	CHECK_EQ(stat_of(wt, "live"), 1);

	/* Three wakes, one report: the next wait sleeps its whole timeout. */
	t0 = mono_ns();
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 20 * MS), 0);
	CHECK(mono_ns() - t0 >= 20 * MS);

	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_reap(wt, ev, 4), 0);
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 0), -EINTR);
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 0), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 0, 0), -EINVAL);
	CHECK_EQ(stat_of(wt, "live"), 1);
	wheeltimer_close(wt);
}

/* A wake is reported before records, and the records wait for the next call. */
static void test_wake_keeps_records(void)
{
	struct wheeltimer_event ev[8];
	struct wheeltimer *wt;
	uint64_t h;
	int i;

	CHECK_EQ(open_virtual(&wt), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(wheeltimer_add(wt, (i + 1) * MS, 0, 0, i, &h), 0);
	CHECK_EQ(advance_to(wt, 5 * MS), 3);
	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 9, &h), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 8, 60 * SEC), -EINTR);
	CHECK_EQ(wheeltimer_queued(wt), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 8, 60 * SEC), 3);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(ev[i].cookie, i);
		CHECK_EQ(ev[i].deadline, (i + 1) * MS);
		CHECK_EQ(ev[i].fired_at, (i + 1) * MS);
		CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FINAL);
	}
	CHECK_EQ(wheeltimer_wait(wt, ev, 8, 0), 0);
	CHECK_EQ(advance_to(wt, 6 * MS), 1);
	CHECK_EQ(wheeltimer_wait(wt, ev, 8, 60 * SEC), 1);
	CHECK_EQ(ev[0].handle, h);
	CHECK_EQ(ev[0].deadline, 6 * MS);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

/*
 * Wakes and records take turns: after a wait that reported a wake, the
 * next reaps first, and a wake that came meanwhile waits one call; with
 * nothing to reap, it is reported at once all the same.
 */
static void test_wake_turns(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h;
	int i;

	CHECK_EQ(open_virtual(&wt), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, i, &h), 0);
	CHECK_EQ(advance_to(wt, MS), 3);
	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), -EINTR);
	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), 1);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), -EINTR);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), 1);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), 1);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 0), 0);

	/* Nothing to reap: a wake right after a report is reported. */
	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 0), -EINTR);
	CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 60 * SEC), -EINTR);
	CHECK_EQ(wheeltimer_wait(wt, ev, 1, 0), 0);
	CHECK_EQ(stat_of(wt, "lib_handles"), 0);
	wheeltimer_close(wt);
}

/* A thread blocked in wheeltimer_wait(), for the wake tests. */
struct waiter {
	struct wheeltimer *wt;
	int tid;
	int done;
	int res;
	uint64_t took;
};

static void *waiter_main(void *arg)
{
	struct wheeltimer_event ev[4];
	struct waiter *w = arg;
	uint64_t t0;

	__atomic_store_n(&w->tid, (int)gettid(), __ATOMIC_RELEASE);
	t0 = mono_ns();
	w->res = wheeltimer_wait(w->wt, ev, 4, 60 * SEC);
	w->took = mono_ns() - t0;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Whether thread @tid sleeps in ppoll(2), as /proc says. */
static bool in_ppoll(int tid)
{
	char path[64], buf[128], *end;
	long nr;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	/* The system call's number, then its arguments; "running" if none. */
	nr = strtol(buf, &end, 10);
	return end != buf && nr == SYS_ppoll;
}

static struct wheeltimer *wake_from_handler;

static void wake_handler(int sig)
{
	(void)sig;
	wheeltimer_wake(wake_from_handler);
}

/*
 * Start a waiter on @wt, see it asleep in ppoll(), wake it and return what
 * its wait returned. With @sig, the waiter starts with @sig blocked, as
 * this thread has it, and the wake comes from this thread's handler.
 */
static int wake_sleeper(struct wheeltimer *wt, const sigset_t *sig)
{
	struct timespec ms = { 0, MS };
	struct waiter w = { .wt = wt };
	uint64_t t0 = mono_ns();
	bool asleep = false;
	pthread_t t;
	int tid;

	CHECK_EQ(pthread_create(&t, NULL, waiter_main, &w), 0);
	if (sig)
		CHECK_EQ(pthread_sigmask(SIG_UNBLOCK, sig, NULL), 0);
	while (!asleep && !__atomic_load_n(&w.done, __ATOMIC_ACQUIRE) &&
	       mono_ns() - t0 < 30 * SEC) {
		tid = __atomic_load_n(&w.tid, __ATOMIC_ACQUIRE);
		asleep = tid && in_ppoll(tid);
		if (!asleep)
			nanosleep(&ms, NULL);
	}
	/* Asleep, and only the wake can end its wait before 60 s. */
	CHECK(asleep);
	CHECK(!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE));
	if (sig)
		CHECK_EQ(pthread_kill(pthread_self(), SIGUSR1), 0);
	else
		CHECK_EQ(wheeltimer_wake(wt), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	/* Before its timeout: a wait whose timeout passed reports the wake too. */
	CHECK(w.took < 60 * SEC);
	return w.res;
}

/*
 * A thread asleep in wheeltimer_wait() with a timeout of 60 s and nothing
 * due for an hour is woken by another thread's wheeltimer_wake(), again
 * after a report, and by a signal handler's (the signal blocked in the
 * waiter, so that only the wake can end its wait).
 */
static void test_wake_sleeper(void)
{
	struct sigaction sa = { .sa_handler = wake_handler }, old_sa;
	struct wheeltimer_event ev[4];
	sigset_t usr1, old_mask;
	struct wheeltimer *wt;
	uint64_t h;
	int i;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_add(wt, 3600 * SEC, 0, 0, 1, &h), 0);
	for (i = 0; i < 2; i++)
		CHECK_EQ(wake_sleeper(wt, NULL), -EINTR);

	wake_from_handler = wt;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	CHECK_EQ(sigaction(SIGUSR1, &sa, &old_sa), 0);
	CHECK_EQ(pthread_sigmask(SIG_BLOCK, &usr1, &old_mask), 0);
	i = wake_sleeper(wt, &usr1);
	CHECK_EQ(pthread_sigmask(SIG_SETMASK, &old_mask, NULL), 0);
	CHECK_EQ(i, -EINTR);
	CHECK_EQ(sigaction(SIGUSR1, &old_sa, NULL), 0);

	/* Nothing was reaped or dropped on the way. */
	CHECK_EQ(wheeltimer_wait(wt, ev, 4, 0), 0);
	CHECK_EQ(stat_of(wt, "live"), 1);
	CHECK_EQ(stat_of(wt, "lib_handles"), 1);
	wheeltimer_close(wt);
}

/* Wakes N times, each after storing its number, pausing now and then. */
struct waker {
	struct wheeltimer *wt;
	unsigned int n;
	unsigned int seq;
	int err;
};

static void *waker_main(void *arg)
{
	struct timespec ts = { 0, 0 };
	struct waker *w = arg;
	unsigned int i;

	for (i = 1; i <= w->n && !w->err; i++) {
		__atomic_store_n(&w->seq, i, __ATOMIC_RELEASE);
		w->err = wheeltimer_wake(w->wt);
		if (i % 16 == 0) {
			ts.tv_nsec = (i * 7919 % 50) * US;
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

/*
 * One thread waits in a loop while another wakes it @n times; after each
 * -EINTR the waiter reads how far the waker got, until the last wake.
 * Without @period only wakes end its waits: a wake lost would leave it
 * asleep for its 60 s, which fails the test. With @period a FIXED_RATE
 * timeout fires every @period meanwhile, and every period must come as a
 * firing or an overrun, in order (a wake lost there would be found at the
 * next firing: the loop has a bound of minutes too). Returns the reports.
 */
static unsigned int wake_storm(struct wheeltimer *wt, unsigned int n,
			       uint64_t period)
{
	struct wheeltimer_event ev[16];
	struct waker w = { .wt = wt, .n = n };
	unsigned int seen = 0, reports = 0, firings = 0;
	uint64_t h = 0, next = 0, start, t0;
	pthread_t t;
	int r, i;

	CHECK_EQ(wheeltimer_now(wt, &start), 0);
	if (period) {
		next = start + period;
		CHECK_EQ(wheeltimer_add_periodic(wt, next, period, 0,
						 WHEELTIMER_ABSTIME |
						 WHEELTIMER_FIXED_RATE, 7, &h), 0);
	}
	CHECK_EQ(pthread_create(&t, NULL, waker_main, &w), 0);
	while (seen < n || (period && firings < 3)) {
		CHECK(mono_ns() - start < 300 * SEC);
		t0 = mono_ns();
		r = wheeltimer_wait(wt, ev, 16, 60 * SEC);
		/* A wake, or a firing, ended it: not its timeout. */
		CHECK(mono_ns() - t0 < 60 * SEC);
		if (r == -EINTR) {
			reports++;
			seen = __atomic_load_n(&w.seq, __ATOMIC_ACQUIRE);
			continue;
		}
		CHECK(period && r > 0);
		for (i = 0; i < r; i++) {
			CHECK_EQ(ev[i].handle, h);
			CHECK_EQ(ev[i].deadline, next);
			CHECK(ev[i].fired_at >= next);
			CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FIXED_RATE);
			next += (ev[i].overruns + 1) * period;
			firings++;
		}
	}
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(w.err, 0);
	printf("# %u wakes, %u reports, %u firings\n", n, reports, firings);
	CHECK(reports >= 1 && reports <= n);
	if (period)
		CHECK_EQ(wheeltimer_cancel(wt, h, 0), 0);
	return reports;
}

/*
 * Wait for 5 firings of a FIXED_RATE timeout of 2 ms on @wt, woken before
 * every wait if @wake_each (else by whatever else wakes it), within two
 * minutes: every period must come as a firing or an overrun, in order.
 * Returns the waits that reported a wake.
 */
static unsigned int five_firings(struct wheeltimer *wt, bool wake_each)
{
	struct wheeltimer_event ev[16];
	unsigned int reports = 0, firings = 0;
	uint64_t h, next, start;
	int r, i;

	CHECK_EQ(wheeltimer_now(wt, &start), 0);
	next = start + 2 * MS;
	CHECK_EQ(wheeltimer_add_periodic(wt, next, 2 * MS, 0,
					 WHEELTIMER_ABSTIME |
					 WHEELTIMER_FIXED_RATE, 7, &h), 0);
	while (firings < 5 && mono_ns() - start < 120 * SEC) {
		if (wake_each)
			CHECK_EQ(wheeltimer_wake(wt), 0);
		r = wheeltimer_wait(wt, ev, 16, 60 * SEC);
		if (r == -EINTR) {
			reports++;
			continue;
		}
		CHECK(r > 0);
		for (i = 0; i < r; i++) {
			CHECK_EQ(ev[i].handle, h);
			CHECK_EQ(ev[i].deadline, next);
			CHECK(ev[i].fired_at >= next);
			next += (ev[i].overruns + 1) * 2 * MS;
			firings++;
		}
	}
	CHECK(firings >= 5);
	CHECK_EQ(wheeltimer_cancel(wt, h, 0), 0);
	return reports;
}

/* Wakes as fast as it can until told to stop. */
struct spinner {
	struct wheeltimer *wt;
	int stop;
	int err;
	unsigned long wakes;
};

static void *spinner_main(void *arg)
{
	struct spinner *sp = arg;

	while (!__atomic_load_n(&sp->stop, __ATOMIC_ACQUIRE) && !sp->err) {
		sp->err = wheeltimer_wake(sp->wt);
		sp->wakes++;
	}
	return NULL;
}

/*
 * A thread woken again and again still reaps: woken before each of its
 * waits (which would starve it of records if wakes always came first),
 * then by another thread that wakes without pause.
 */
static void test_wake_no_starvation(void)
{
	struct spinner sp = { 0 };
	unsigned int reports;
	pthread_t t;

	CHECK_EQ(open_ctx(&sp.wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	reports = five_firings(sp.wt, true);
	printf("# woken before each wait: %u reports\n", reports);
	CHECK(reports >= 5);

	CHECK_EQ(pthread_create(&t, NULL, spinner_main, &sp), 0);
	reports = five_firings(sp.wt, false);
	__atomic_store_n(&sp.stop, 1, __ATOMIC_RELEASE);
	CHECK_EQ(pthread_join(t, NULL), 0);
	printf("# woken by another thread without pause: %lu wakes, %u reports\n",
	       sp.wakes, reports);
	CHECK_EQ(sp.err, 0);
	wheeltimer_close(sp.wt);
}

/* No wake is lost, whatever the timing; nor any firing. */
static void test_wake_race(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h;
	int r;

	CHECK_EQ(open_ctx(&wt, engine, 0, CLOCK_MONOTONIC, 0, 0), 0);
	CHECK_EQ(wheeltimer_add(wt, 3600 * SEC, 0, 0, 1, &h), 0);
	wake_storm(wt, 3000, 0);
	wake_storm(wt, 3000, 2 * MS);
	/*
	 * All reported: nothing is left for the next wait but, at most, the
	 * last wake, when it came after the report that let the waiter read
	 * the waker's count; wakes coalesce, so one report covers it.
	 */
	r = wheeltimer_wait(wt, ev, 4, 0);
	if (r == -EINTR)
		r = wheeltimer_wait(wt, ev, 4, 0);
	CHECK_EQ(r, 0);
	CHECK_EQ(stat_of(wt, "live"), 1);
	wheeltimer_close(wt);
}

static void test_eventfd(void)
{
	struct pollfd pfd = { .events = POLLIN };
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t h, count;
	int efd;

	CHECK_EQ(open_ctx(&wt, engine, WHEELTIMER_PARAM_VIRTUAL,
			  CLOCK_MONOTONIC, 0, 0), 0);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	CHECK(efd >= 0);
	if (!(wheeltimer_features(wt) & WHEELTIMER_FEATURE_EVENTFD)) {
		/* The in-process engine has no one to signal it. */
		CHECK_EQ(engine, WHEELTIMER_ENGINE_PROCESS);
		CHECK_EQ(wheeltimer_set_eventfd(wt, efd), -WHEELTIMER_EFEATURE);
		close(efd);
		wheeltimer_close(wt);
		return;
	}
	CHECK_EQ(wheeltimer_set_eventfd(wt, efd), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &h), 0);
	CHECK_EQ(advance_to(wt, MS), 1);
	pfd.fd = efd;
	CHECK_EQ(poll(&pfd, 1, 0), 1);
	CHECK_EQ(read(efd, &count, sizeof(count)), sizeof(count));
	CHECK(count >= 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(wheeltimer_set_eventfd(wt, -1), 0);
	CHECK_EQ(wheeltimer_set_eventfd(wt, -7), -EBADF);
	close(efd);
	wheeltimer_close(wt);
}

/* The fdinfo parser: unknown, missing, renamed and odd lines. */
static void test_stats_parser(void)
{
	static const char text[] =
		"pos:\t0\nflags:\t02004002\nclockid:\t1\n"
		"resolution_ns:\t1000000\nnever_heard_of:\t99\n"
		"slots_occupied:\t3\t0\t1\n"
		"added: 12\nfired:\t18446744073709551615\n"
		"hrtimer_armed_tick:\t-\nrewinds:\t4\n"
		"no colon here\nwithdrawn:\t99999999999999999999\n"
		"delivered:\t7";
	struct wheeltimer_stats st = { 0 };
	uint64_t v;

	wtl_stats_parse(text, &st);
	CHECK_EQ(st.resolution_ns, MS);
	CHECK_EQ(st.added, 12);
	CHECK(st.fired == UINT64_MAX);
	CHECK_EQ(st.rewinds, 4);
	CHECK_EQ(st.delivered, 7);
	CHECK_EQ(st.withdrawn, 0);
	CHECK_EQ(st.present, WHEELTIMER_STAT_RESOLUTION | WHEELTIMER_STAT_ADDED |
			     WHEELTIMER_STAT_FIRED | WHEELTIMER_STAT_REWINDS |
			     WHEELTIMER_STAT_DELIVERED);
	CHECK_EQ(wtl_fdinfo_value(text, "never_heard_of", &v), 0);
	CHECK_EQ(v, 99);
	CHECK_EQ(wtl_fdinfo_value(text, "flags", &v), 0);
	CHECK_EQ(v, 02004002);
	CHECK_EQ(wtl_fdinfo_value(text, "slots_occupied", &v), 0);
	CHECK_EQ(v, 3);
	CHECK_EQ(wtl_fdinfo_value(text, "hrtimer_armed_tick", &v), -EINVAL);
	CHECK_EQ(wtl_fdinfo_value(text, "withdrawn", &v), -EINVAL);
	CHECK_EQ(wtl_fdinfo_value(text, "added_", &v), -ENOENT);
	CHECK_EQ(wtl_fdinfo_value(text, "dded", &v), -ENOENT);
	CHECK_EQ(wtl_fdinfo_value("", "added", &v), -ENOENT);
}

static void test_stats_live(void)
{
	struct wheeltimer_stats st;
	struct wheeltimer *wt;
	uint64_t h, v;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &h), 0);
	CHECK_EQ(wheeltimer_add(wt, 2 * MS, 0, 0, 2, &h), 0);
	CHECK_EQ(advance_to(wt, MS), 1);
	CHECK_EQ(wheeltimer_stats(wt, &st), 0);
	CHECK_EQ(st.present & (WHEELTIMER_STAT_ADDED | WHEELTIMER_STAT_LIVE |
			       WHEELTIMER_STAT_READY | WHEELTIMER_STAT_NOW |
			       WHEELTIMER_STAT_TIMER_PROGRAMS),
		 WHEELTIMER_STAT_ADDED | WHEELTIMER_STAT_LIVE |
		 WHEELTIMER_STAT_READY | WHEELTIMER_STAT_NOW |
		 WHEELTIMER_STAT_TIMER_PROGRAMS);
	CHECK_EQ(st.added, 2);
	CHECK_EQ(st.live, 2);
	CHECK_EQ(st.pending, 1);
	CHECK_EQ(st.ready, 1);
	CHECK_EQ(st.now_ns, MS);
	CHECK_EQ(st.resolution_ns, MS);
	CHECK_EQ(st.max_pending, 1ULL << 20);
	CHECK_EQ(st.submits, 1);
	CHECK_EQ(wheeltimer_stat(wt, "added", &v), 0);
	CHECK_EQ(v, 2);
	CHECK_EQ(wheeltimer_stat(wt, "no_such_counter", &v), -ENOENT);
	CHECK_EQ(wheeltimer_stat(wt, "lib_no_such_counter", &v), -ENOENT);
	wheeltimer_close(wt);
}

/* Any file's fdinfo, by path: a wheeltimer file's, or not. */
static void test_fdinfo_stats(void)
{
	static const char text[] =
		"pos:\t0\nflags:\t02\nresolution_ns:\t250000\n"
		"max_pending:\t77\nlive:\t5\npending:\t3\nready:\t2\n"
		"slots_occupied:\t1\t0\nfired:\t9\nhrtimer_programs:\t4\n";
	struct wheeltimer_stats st, own;
	char path[64] = "/tmp/lib_test_fdinfo_XXXXXX";
	const char *tail;
	struct wheeltimer *wt;
	uint64_t h;
	int fd;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, text, sizeof(text) - 1), sizeof(text) - 1);
	close(fd);
	memset(&st, 0xff, sizeof(st));
	CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), 0);
	CHECK_EQ(st.resolution_ns, 250 * US);
	CHECK_EQ(st.max_pending, 77);
	CHECK_EQ(st.live, 5);
	CHECK_EQ(st.pending, 3);
	CHECK_EQ(st.ready, 2);
	CHECK_EQ(st.fired, 9);
	CHECK_EQ(st.timer_programs, 4);
	CHECK_EQ(st.added, 0);
	CHECK_EQ(st.submits, 0);
	CHECK(!(st.present & WHEELTIMER_STAT_ADDED));

	/* Without a key every wheeltimer file has (resolution_ns): not one. */
	tail = strstr(text, "max_pending");
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, tail, strlen(tail)), strlen(tail));
	close(fd);
	CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), -ENODATA);
	CHECK_EQ(st.present, 0);
	unlink(path);
	CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), -ENOENT);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), -ENODATA);
	close(fd);

	/*
	 * The context's own descriptor: the device's fdinfo, with the
	 * counters wheeltimer_stats() reads; the in-process engine's is an
	 * epoll descriptor's, which is not a wheeltimer file's.
	 */
	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &h), 0);
	CHECK_EQ(wheeltimer_add(wt, SEC, 0, 0, 2, &h), 0);
	CHECK_EQ(advance_to(wt, MS), 1);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", wheeltimer_fd(wt));
	if (engine == WHEELTIMER_ENGINE_PROCESS) {
		CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), -ENODATA);
	} else {
		CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), 0);
		CHECK_EQ(wheeltimer_stats(wt, &own), 0);
		CHECK_EQ(st.present, own.present);
		CHECK_EQ(st.added, 2);
		CHECK_EQ(st.live, 2);
		CHECK_EQ(st.pending, 1);
		CHECK_EQ(st.ready, 1);
		CHECK_EQ(st.now_ns, MS);
		CHECK_EQ(st.submits, 0);
	}
	wheeltimer_close(wt);
}

/*
 * Records the caller read itself (as io_uring does) handed to the library:
 * the kernel engine only. Those that do not fit wait in the library;
 * cancels made after the read drop them, or let them through, as they
 * would have withdrawn them or come too late.
 */
static void test_reap_buffer(void)
{
	struct wheeltimer_event ev[16];
	struct wheeltimer_info info;
	struct wt_event raw[16];
	uint64_t h[6], hr, hd, seen = 0;
	struct wheeltimer *wt;
	int i, n, m;
	ssize_t len;

	CHECK_EQ(open_virtual(&wt), 0);
	if (engine == WHEELTIMER_ENGINE_PROCESS) {
		/* Its descriptor is an epoll set: nothing to read records from. */
		CHECK_EQ(wheeltimer_reap_buffer(wt, NULL, 0, ev, 16),
			 -WHEELTIMER_EFEATURE);
		wheeltimer_close(wt);
		return;
	}
	CHECK_EQ(wheeltimer_reap_buffer(wt, raw, sizeof(raw[0]) - 1, ev, 16),
		 -EINVAL);
	CHECK_EQ(wheeltimer_reap_buffer(wt, NULL, sizeof(raw[0]), ev, 16),
		 -EINVAL);
	CHECK_EQ(wheeltimer_reap_buffer(wt, NULL, 0, ev, 16), 0);

	for (i = 0; i < 6; i++)
		CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 100 + i, &h[i]), 0);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, MS, 0, WHEELTIMER_FIXED_RATE,
					 200, &hr), 0);
	CHECK_EQ(wheeltimer_add_periodic(wt, MS, 5 * MS, 0,
					 WHEELTIMER_FIXED_DELAY, 300, &hd), 0);
	CHECK_EQ(advance_to(wt, 3 * MS), 8);
	len = read(wheeltimer_fd(wt), raw, sizeof(raw));
	CHECK_EQ(len, 8 * sizeof(raw[0]));

	/*
	 * After the read: h[5] is cancelled, its record is dropped as a
	 * withdrawn one; h[4] is cancelled with NOTIFY, too late: it fired,
	 * and its record is its last, with no EV_CANCEL after it.
	 */
	CHECK_EQ(wheeltimer_cancel(wt, h[5], 0), 0);
	CHECK_EQ(wheeltimer_cancel(wt, h[4], WHEELTIMER_NOTIFY), 0);
	n = wheeltimer_reap_buffer(wt, raw, len, ev, 3);
	CHECK_EQ(n, 3);
	CHECK(stat_of(wt, "lib_backlog") >= 4);
	m = wheeltimer_reap_buffer(wt, NULL, 0, ev + n, 16 - n);
	CHECK_EQ(m, 4);
	CHECK_EQ(wheeltimer_reap_buffer(wt, NULL, 0, ev, 16), 0);
	CHECK_EQ(stat_of(wt, "lib_backlog"), 0);
	CHECK_EQ(stat_of(wt, "lib_dropped"), 1);
	for (i = 0; i < n + m; i++) {
		CHECK(!(ev[i].flags & (WHEELTIMER_EV_ADD | WHEELTIMER_EV_MODIFY |
				       WHEELTIMER_EV_CANCEL)));
		CHECK_EQ(ev[i].deadline, MS);
		CHECK_EQ(ev[i].fired_at, MS);
		if (ev[i].cookie >= 100 && ev[i].cookie < 105) {
			CHECK_EQ(ev[i].handle, h[ev[i].cookie - 100]);
			CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FINAL);
			CHECK_EQ(wheeltimer_error(wt, ev[i].handle), -ENOENT);
		} else if (ev[i].cookie == 200) {
			CHECK_EQ(ev[i].handle, hr);
			CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FIXED_RATE);
			CHECK_EQ(ev[i].overruns, 2);
		} else {
			CHECK_EQ(ev[i].cookie, 300);
			CHECK_EQ(ev[i].handle, hd);
			CHECK_EQ(ev[i].flags, WHEELTIMER_EV_FIXED_DELAY);
		}
		CHECK(!(seen & 1ULL << (ev[i].cookie % 64)));
		seen |= 1ULL << (ev[i].cookie % 64);
	}

	/* The kernel moved the periodic ones on at the read. */
	CHECK_EQ(wheeltimer_query(wt, hr, &info), 0);
	CHECK_EQ(info.state, WHEELTIMER_STATE_PENDING);
	CHECK_EQ(info.deadline, 4 * MS);
	CHECK_EQ(wheeltimer_query(wt, hd, &info), 0);
	CHECK_EQ(info.deadline, 8 * MS);

	/* What one call kept, wheeltimer_reap() hands out first. */
	CHECK_EQ(advance_to(wt, 10 * MS), 2);
	len = read(wheeltimer_fd(wt), raw, sizeof(raw));
	CHECK_EQ(len, 2 * sizeof(raw[0]));
	CHECK_EQ(wheeltimer_reap_buffer(wt, raw, len, ev, 1), 1);
	CHECK_EQ(wheeltimer_reap(wt, ev + 1, 16), 1);
	CHECK_EQ(ev[0].cookie + ev[1].cookie, 500);
	CHECK_EQ(stat_of(wt, "lib_buffered"), 10);

	/* It submits, and hands out the library's records: a failed add. */
	CHECK_EQ(wheeltimer_add(wt, TMAX, 0, WHEELTIMER_ABSTIME, 7, &h[0]), 0);
	CHECK_EQ(wheeltimer_reap_buffer(wt, NULL, 0, ev, 16), 1);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_ADD | WHEELTIMER_EV_FINAL);
	CHECK_EQ(ev[0].res, -ERANGE);
	CHECK_EQ(ev[0].cookie, 7);
	wheeltimer_close(wt);
}

/* A context's configuration, read and changed while it holds nothing. */
static void test_set_params(void)
{
	struct wheeltimer_event ev[4];
	struct wheeltimer_params p;
	struct wheeltimer *wt;
	uint64_t h, now;

	CHECK_EQ(open_virtual(&wt), 0);
	memset(&p, 0xff, sizeof(p));
	wheeltimer_get_params(wt, &p);
	CHECK_EQ(p.version, WHEELTIMER_PARAMS_VERSION);
	CHECK_EQ(p.engine, engine);
	CHECK_EQ(p.resolution_ns, MS);
	CHECK_EQ(p.max_pending, 1ULL << 20);
	CHECK_EQ(p.clockid, CLOCK_MONOTONIC);
	CHECK_EQ(p.flags, WHEELTIMER_PARAM_VIRTUAL);
	CHECK_EQ(p.queue_depth, WHEELTIMER_QUEUE_DEFAULT);
	CHECK_EQ(p.features, wheeltimer_features(wt));
	CHECK_EQ(p.missing, 0);
	CHECK_EQ(p.reserved0 | p.reserved[0] | p.reserved[3], 0);

	/* A queued add is a timeout held; cancelled, it is not. */
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &h), 0);
	CHECK_EQ(wheeltimer_set_params(wt, &p), -EBUSY);
	CHECK_EQ(wheeltimer_cancel(wt, h, 0), 0);
	p.resolution_ns = 100 * US;
	p.clockid = CLOCK_BOOTTIME;
	p.flags = 0;
	p.queue_depth = 16;
	p.max_pending = 5;
	CHECK_EQ(wheeltimer_set_params(wt, &p), 0);
	CHECK_EQ(p.max_pending, 5);
	wheeltimer_get_params(wt, &p);
	CHECK_EQ(p.resolution_ns, 100 * US);
	CHECK_EQ(p.clockid, CLOCK_BOOTTIME);
	CHECK_EQ(p.flags, 0);
	CHECK_EQ(p.queue_depth, 16);
	CHECK_EQ(p.max_pending, 5);
	CHECK_EQ(wheeltimer_now(wt, &now), 0);
	CHECK(now > 0);
	CHECK_EQ(wheeltimer_stat(wt, "resolution_ns", &now), 0);
	CHECK_EQ(now, 100 * US);

	/* Submitted and armed: busy, in the engine too. */
	CHECK_EQ(wheeltimer_add(wt, SEC, 0, 0, 2, &h), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);
	CHECK_EQ(wheeltimer_set_params(wt, &p), -EBUSY);
	CHECK_EQ(wheeltimer_cancel(wt, h, 0), 0);
	CHECK_EQ(wheeltimer_submit(wt), 1);

	/* Back to a virtual clock, which starts at 0 again. */
	p.engine = WHEELTIMER_ENGINE_AUTO;
	p.flags = WHEELTIMER_PARAM_VIRTUAL;
	p.resolution_ns = MS;
	p.clockid = CLOCK_MONOTONIC;
	p.max_pending = 0;
	p.queue_depth = 0;
	CHECK_EQ(wheeltimer_set_params(wt, &p), 0);
	CHECK_EQ(p.engine, engine);
	CHECK_EQ(p.max_pending, 1ULL << 20);
	CHECK_EQ(wheeltimer_now(wt, &now), 0);
	CHECK_EQ(now, 0);
	CHECK_EQ(wheeltimer_add(wt, 2 * MS, 0, 0, 3, &h), 0);
	CHECK_EQ(advance_to(wt, 2 * MS), 1);
	CHECK_EQ(reap_all(wt, ev, 4), 1);
	CHECK_EQ(ev[0].fired_at, 2 * MS);

	/* Refused: another engine, a bad struct, a missing feature. */
	wheeltimer_get_params(wt, &p);
	p.engine = engine == WHEELTIMER_ENGINE_KERNEL ?
		   WHEELTIMER_ENGINE_PROCESS : WHEELTIMER_ENGINE_KERNEL;
	CHECK_EQ(wheeltimer_set_params(wt, &p), -EINVAL);
	wheeltimer_get_params(wt, &p);
	p.version = 0;
	CHECK_EQ(wheeltimer_set_params(wt, &p), -EINVAL);
	wheeltimer_get_params(wt, &p);
	p.features = WHEELTIMER_FEATURE_EVENTFD;
	if (engine == WHEELTIMER_ENGINE_PROCESS) {
		CHECK_EQ(wheeltimer_set_params(wt, &p), -WHEELTIMER_EFEATURE);
		CHECK_EQ(p.missing, WHEELTIMER_FEATURE_EVENTFD);
	} else {
		CHECK_EQ(wheeltimer_set_params(wt, &p), 0);
	}
	wheeltimer_close(wt);
}

/*
 * A context on a descriptor the caller opened, and a file two contexts
 * share in turn: the second reaps the first one's timeouts as foreign.
 */
static void test_open_fd(void)
{
	struct wheeltimer_event ev[8];
	struct wheeltimer_params p;
	struct wheeltimer *a, *b;
	uint64_t ha1, ha2, hb, now;
	int fd, i, n;

	CHECK_EQ(wheeltimer_open_fd(-1, &a), -EBADF);
	CHECK(!a);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_EQ(wheeltimer_open_fd(fd, &a), -WHEELTIMER_EAPI);
	close(fd);
	if (engine != WHEELTIMER_ENGINE_KERNEL)
		return;

	fd = open("/dev/wheeltimer", O_RDWR | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_EQ(wheeltimer_open_fd(fd, &a), 0);
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	CHECK(wheeltimer_fd(a) != fd);
	CHECK_EQ(wheeltimer_engine(a), WHEELTIMER_ENGINE_KERNEL);
	wheeltimer_get_params(a, &p);
	CHECK_EQ(p.flags, 0);
	p.flags = WHEELTIMER_PARAM_VIRTUAL;
	CHECK_EQ(wheeltimer_set_params(a, &p), 0);
	CHECK_EQ(wheeltimer_add(a, MS, 0, 0, 1, &ha1), 0);
	CHECK_EQ(wheeltimer_add(a, 5 * MS, 0, 0, 2, &ha2), 0);
	CHECK_EQ(advance_to(a, 2 * MS), 1);
	/* Its duplicate closed, the file and its timeouts live on. */
	wheeltimer_close(a);

	CHECK_EQ(wheeltimer_open_fd(fd, &b), 0);
	wheeltimer_get_params(b, &p);
	CHECK_EQ(p.flags, WHEELTIMER_PARAM_VIRTUAL);
	CHECK_EQ(p.resolution_ns, MS);
	CHECK_EQ(wheeltimer_now(b, &now), 0);
	CHECK_EQ(now, 2 * MS);
	CHECK_EQ(wheeltimer_stat(b, "live", &now), 0);
	CHECK_EQ(now, 2);
	CHECK_EQ(wheeltimer_set_params(b, &p), -EBUSY);
	n = reap_all(b, ev, 8);
	CHECK_EQ(n, 1);
	CHECK_EQ(ev[0].handle, WHEELTIMER_HANDLE_NONE);
	CHECK_EQ(ev[0].cookie, 1);
	CHECK_EQ(ev[0].flags, WHEELTIMER_EV_FOREIGN | WHEELTIMER_EV_FINAL);
	CHECK_EQ(ev[0].deadline, MS);

	/* Its own handles are ids of a block it leased: never the first's. */
	CHECK_EQ(wheeltimer_add(b, MS, 0, 0, 3, &hb), 0);
	CHECK(hb != ha1 && hb != ha2);
	CHECK_EQ(advance_to(b, 10 * MS), 2);
	n = reap_all(b, ev, 8);
	CHECK_EQ(n, 2);
	for (i = 0; i < n; i++) {
		if (ev[i].flags & WHEELTIMER_EV_FOREIGN) {
			CHECK_EQ(ev[i].handle, WHEELTIMER_HANDLE_NONE);
			CHECK_EQ(ev[i].cookie, 2);
			CHECK_EQ(ev[i].deadline, 5 * MS);
		} else {
			CHECK_EQ(ev[i].handle, hb);
			CHECK_EQ(ev[i].cookie, 3);
			CHECK_EQ(ev[i].deadline, 3 * MS);
		}
	}
	CHECK_EQ(stat_of(b, "lib_foreign"), 2);
	CHECK_EQ(stat_of(b, "lib_dropped"), 0);

	/* A wake belongs to its context, not to the file. */
	CHECK_EQ(wheeltimer_open_fd(fd, &a), 0);
	CHECK_EQ(wheeltimer_wake(b), 0);
	CHECK_EQ(wheeltimer_wait(a, ev, 8, 0), 0);
	CHECK_EQ(wheeltimer_wait(b, ev, 8, 0), -EINTR);
	CHECK_EQ(wheeltimer_wake(a), 0);
	CHECK_EQ(wheeltimer_wait(b, ev, 8, 0), 0);
	CHECK_EQ(wheeltimer_wait(a, ev, 8, 0), -EINTR);
	wheeltimer_close(a);
	wheeltimer_close(b);
	close(fd);
}

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

static void test_close_busy(void)
{
	struct wheeltimer *wt;
	uint64_t h;
	int i;

	/* Closing with timeouts queued, armed, fired and unreaped frees all. */
	CHECK_EQ(open_virtual(&wt), 0);
	for (i = 0; i < 3000; i++)
		CHECK_EQ(wheeltimer_add(wt, (i % 3) * MS, 0, 0, i, &h), 0);
	CHECK_EQ(advance_to(wt, MS), 2000);
	for (i = 0; i < 100; i++)
		CHECK_EQ(wheeltimer_add(wt, SEC, 0, 0, i, &h), 0);
	wheeltimer_close(wt);
	wheeltimer_close(NULL);
}

static const struct tap_test tests[] = {
	{ "params", test_params },
	{ "engine_fallback", test_fallback },
	{ "old_module_handshake", test_old_module },
	{ "virtual_exact_ticks", test_virtual_exact },
	{ "virtual_due_at_next_advance", test_virtual_due_next_advance },
	{ "slack", test_slack },
	{ "fixed_rate_overruns", test_fixed_rate },
	{ "fixed_delay_rearm_on_reap", test_fixed_delay },
	{ "cancel_modify_before_submit", test_before_submit },
	{ "cancel_modify_after_submit", test_after_submit },
	{ "withdraw_and_notify", test_withdraw },
	{ "stale_handles", test_stale_handles },
	{ "stale_queue_positions", test_stale_position },
	{ "enospc", test_enospc },
	{ "errors", test_errors },
	{ "realtime_clock_set_back", test_clock_back },
	{ "request_timeouts", test_request_timeouts },
	{ "auto_submit", test_auto_submit },
	{ "submit_failure", test_submit_failure },
	{ "query", test_query },
	{ "real_clock_never_early", test_real_clock },
	{ "due_uncollected_is_fired", test_due_uncollected },
	{ "periodic_real_clock", test_periodic_real },
	{ "poll_fd", test_poll_fd },
	{ "wake_before_wait", test_wake_before_wait },
	{ "wake_keeps_records", test_wake_keeps_records },
	{ "wake_turns", test_wake_turns },
	{ "wake_sleeper", test_wake_sleeper },
	{ "wake_race", test_wake_race },
	{ "wake_no_starvation", test_wake_no_starvation },
	{ "eventfd", test_eventfd },
	{ "stats_parser", test_stats_parser },
	{ "stats_live", test_stats_live },
	{ "fdinfo_stats", test_fdinfo_stats },
	{ "reap_buffer", test_reap_buffer },
	{ "set_params", test_set_params },
	{ "open_fd_shared_file", test_open_fd },
	{ "threads", test_threads },
	{ "parity_ops", test_parity_ops },
	{ "parity_trace", test_parity_trace },
	{ "close_busy", test_close_busy },
};

int main(int argc, char **argv)
{
	const char *unit_name = NULL;
	char unit[64];
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	engine_name = "process";
	while ((opt = getopt(argc, argv, "e:n:u:")) != -1) {
		switch (opt) {
		case 'e':
			engine_name = optarg;
			break;
		case 'n':
			n_request = strtoul(optarg, NULL, 0);
			break;
		case 'u':
			unit_name = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-e process|kernel] [-n HANDLES] [-u UNIT]\n",
				argv[0]);
			return 2;
		}
	}
	if (!strcmp(engine_name, "kernel")) {
		engine = WHEELTIMER_ENGINE_KERNEL;
	} else if (!strcmp(engine_name, "process")) {
		engine = WHEELTIMER_ENGINE_PROCESS;
	} else {
		fprintf(stderr, "lib_test: no engine '%s'\n", engine_name);
		return 2;
	}
	setenv("WHEELTIMER_ENGINE", engine_name, 1);
	unsetenv("WHEELTIMER_DEVICE");
	snprintf(unit, sizeof(unit), "lib/%s", unit_name ? unit_name : engine_name);
	return tap_run(unit, tests, ARRAY_SIZE(tests)) ? 1 : 0;
}
