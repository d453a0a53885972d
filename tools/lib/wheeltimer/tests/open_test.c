// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * open_test.c - opening a context: parameters, the choice of engine, the
 * handshake with an old module, changing the parameters, a context on a
 * descriptor the caller opened, and closing
 */
#include <fcntl.h>

#include "lib_test.h"

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

const struct tap_test open_tests[] = {
	{ "params", test_params },
	{ "engine_fallback", test_fallback },
	{ "old_module_handshake", test_old_module },
	{ "set_params", test_set_params },
	{ "open_fd_shared_file", test_open_fd },
	{ "close_busy", test_close_busy },
	{ NULL, NULL },
};
