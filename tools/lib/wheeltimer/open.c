// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * open.c - opening a context: parameters, the choice of engine, the
 * handshake, and closing; and wheeltimer_probe()
 *
 * The engine. WHEELTIMER_ENGINE_KERNEL opens /dev/wheeltimer or fails;
 * WHEELTIMER_ENGINE_PROCESS is the in-process engine; AUTO tries the device
 * and falls back to the in-process engine when the device is absent or
 * refused (ENOENT, ENXIO, ENODEV: no module; EACCES, EPERM: not allowed,
 * as in a container). With AUTO in the parameters, the environment
 * variable WHEELTIMER_ENGINE=kernel|process|auto decides instead, so that
 * a user can force an engine on a program that did not choose; a program
 * that chose keeps its choice. A module that answers the handshake but
 * lacks what the context needs is not a reason to fall back: the open
 * fails and says what is missing, since that is a machine to fix.
 *
 * The handshake. WT_IOC_API is asked for version 1. A module that does not
 * know the ioctl (ENOTTY) or the version (EINVAL), that reports records of
 * another size, or lacks an ioctl the library cannot do without, fails
 * with -WHEELTIMER_EAPI; one that lacks a feature the context needs fails
 * with -WHEELTIMER_EFEATURE, and the missing bits are written back in the
 * parameters. The in-process engine answers the same handshake, through
 * the same checks.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* The public constants are the uapi's, where the uapi has them. */
static_assert(WHEELTIMER_ABSTIME == WT_ABSTIME, "ABSTIME");
static_assert(WHEELTIMER_FIXED_RATE == WT_FIXED_RATE, "FIXED_RATE");
static_assert(WHEELTIMER_FIXED_DELAY == WT_FIXED_DELAY, "FIXED_DELAY");
static_assert(WHEELTIMER_EV_FIXED_RATE == WT_FIXED_RATE, "EV_FIXED_RATE");
static_assert(WHEELTIMER_EV_FIXED_DELAY == WT_FIXED_DELAY, "EV_FIXED_DELAY");
static_assert(WHEELTIMER_EV_FINAL == WT_EVENT_FINAL, "EV_FINAL");
static_assert(WHEELTIMER_FEATURE_VIRTUAL_CLOCK == WT_FEATURE_VIRTUAL_CLOCK, "VC");
static_assert(WHEELTIMER_FEATURE_PERIODIC == WT_FEATURE_PERIODIC, "PERIODIC");
static_assert(WHEELTIMER_FEATURE_SLACK == WT_FEATURE_SLACK, "SLACK");
static_assert(WHEELTIMER_FEATURE_EVENTFD == WT_FEATURE_EVENTFD, "EVENTFD");
static_assert(WHEELTIMER_FEATURE_BOOTTIME == WT_FEATURE_BOOTTIME, "BOOTTIME");
static_assert(WHEELTIMER_FEATURE_REALTIME == WT_FEATURE_REALTIME, "REALTIME");
static_assert(WHEELTIMER_STATE_PENDING == WT_STATE_PENDING, "PENDING");
static_assert(WHEELTIMER_STATE_FIRED == WT_STATE_FIRED, "FIRED");
static_assert(WHEELTIMER_ADVANCE_SET == WT_ADVANCE_SET, "ADVANCE_SET");
static_assert(sizeof(struct wheeltimer_event) == sizeof(struct wt_event),
	      "a record of either kind is 48 bytes");
static_assert(offsetof(struct wheeltimer_event, handle) ==
	      offsetof(struct wt_event, id) &&
	      offsetof(struct wheeltimer_event, cookie) ==
	      offsetof(struct wt_event, cookie) &&
	      offsetof(struct wheeltimer_event, deadline) ==
	      offsetof(struct wt_event, deadline) &&
	      offsetof(struct wheeltimer_event, fired_at) ==
	      offsetof(struct wt_event, fired_at) &&
	      offsetof(struct wheeltimer_event, overruns) ==
	      offsetof(struct wt_event, overruns) &&
	      offsetof(struct wheeltimer_event, flags) ==
	      offsetof(struct wt_event, flags),
	      "an engine's record converts in place: only flags and res differ");

/*
 * Ioctls the library cannot do without, and the one a virtual clock needs;
 * the features likewise: an engine older than the library's leased ids
 * fails the handshake.
 */
#define WTL_IOCTLS_NEEDED	((1ULL << _WT_IOC_API) | \
				 (1ULL << _WT_IOC_SET_CONFIG) | \
				 (1ULL << _WT_IOC_GET_CONFIG) | \
				 (1ULL << _WT_IOC_BATCH) | \
				 (1ULL << _WT_IOC_LEASE))
#define WTL_FEATURES_NEEDED	WT_FEATURE_LEASED_IDS
#define WTL_QUEUE_MAX		(64U * WT_BATCH_MAX)

#ifdef WTL_TEST
int (*wtl_api_hook)(uint32_t engine, struct wt_api *api, int ret);
#endif

void wheeltimer_params_init(struct wheeltimer_params *p)
{
	memset(p, 0, sizeof(*p));
	p->version = WHEELTIMER_PARAMS_VERSION;
	p->engine = WHEELTIMER_ENGINE_AUTO;
	p->resolution_ns = WT_RESOLUTION_DEFAULT;
	p->clockid = CLOCK_MONOTONIC;
	p->queue_depth = WHEELTIMER_QUEUE_DEFAULT;
}

static int wtl_params_check(const struct wheeltimer_params *p)
{
	unsigned int i;

	if (p->version != WHEELTIMER_PARAMS_VERSION || p->reserved0)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(p->reserved); i++)
		if (p->reserved[i])
			return -EINVAL;
	if (p->resolution_ns && (p->resolution_ns < WT_RESOLUTION_MIN ||
				 p->resolution_ns > WT_RESOLUTION_MAX))
		return -EINVAL;
	if (p->clockid != CLOCK_MONOTONIC && p->clockid != CLOCK_BOOTTIME &&
	    p->clockid != CLOCK_REALTIME)
		return -EINVAL;
	if (p->flags & ~WHEELTIMER_PARAM_VIRTUAL || p->queue_depth > WTL_QUEUE_MAX)
		return -EINVAL;
	if (p->engine > WHEELTIMER_ENGINE_PROCESS)
		return -WHEELTIMER_EENGINE;
	return 0;
}

/* The engine asked for: the parameter, else the environment. */
static int wtl_engine_choice(const struct wheeltimer_params *p, uint32_t *engine)
{
	const char *env = getenv("WHEELTIMER_ENGINE");

	*engine = p->engine;
	if (*engine != WHEELTIMER_ENGINE_AUTO || !env || !*env)
		return 0;
	if (!strcmp(env, "kernel"))
		*engine = WHEELTIMER_ENGINE_KERNEL;
	else if (!strcmp(env, "process"))
		*engine = WHEELTIMER_ENGINE_PROCESS;
	else if (strcmp(env, "auto"))
		return -WHEELTIMER_EENGINE;
	return 0;
}

/* Whether AUTO falls back to the in-process engine after this error. */
static bool wtl_device_absent(int err)
{
	return err == -ENOENT || err == -ENXIO || err == -ENODEV ||
	       err == -EACCES || err == -EPERM;
}

/* The features a context of these parameters needs. */
static uint64_t wtl_needed(const struct wheeltimer_params *p)
{
	uint64_t needed = p->features;

	if (p->flags & WHEELTIMER_PARAM_VIRTUAL)
		needed |= WT_FEATURE_VIRTUAL_CLOCK;
	if (p->clockid == CLOCK_BOOTTIME)
		needed |= WT_FEATURE_BOOTTIME;
	if (p->clockid == CLOCK_REALTIME)
		needed |= WT_FEATURE_REALTIME;
	return needed;
}

/* The engine's answer (in the test build, through its hook if set). */
static int wtl_handshake(struct wheeltimer *wt, struct wt_api *api)
{
	int ret = wt->engine->handshake(wt, api);

#ifdef WTL_TEST
	if (wtl_api_hook)
		ret = wtl_api_hook(wt->engine->id, api, ret);
#endif
	return ret;
}

/* Judge the handshake's answer; sets @p->missing. */
static int wtl_check_api(const struct wt_api *api, int ret,
			 struct wheeltimer_params *p)
{
	uint64_t ioctls = WTL_IOCTLS_NEEDED;

	if (ret == -ENOTTY || ret == -EINVAL)
		return -WHEELTIMER_EAPI;
	if (ret)
		return ret;
	if (p->flags & WHEELTIMER_PARAM_VIRTUAL)
		ioctls |= 1ULL << _WT_IOC_ADVANCE;
	if (api->api != WT_API_VERSION ||
	    api->event_size != sizeof(struct wt_event) || !api->batch_max ||
	    (api->ioctls & ioctls) != ioctls ||
	    (api->features & WTL_FEATURES_NEEDED) != WTL_FEATURES_NEEDED)
		return -WHEELTIMER_EAPI;
	p->missing = wtl_needed(p) & ~api->features;
	return p->missing ? -WHEELTIMER_EFEATURE : 0;
}

static int wtl_open_engine(struct wheeltimer *wt, uint32_t engine)
{
	int ret;

	if (engine != WHEELTIMER_ENGINE_PROCESS) {
		wt->engine = &wtl_kernel_engine;
		ret = wt->engine->open(wt);
		if (!ret || engine == WHEELTIMER_ENGINE_KERNEL ||
		    !wtl_device_absent(ret))
			return ret;
	}
	wt->engine = &wtl_process_engine;
	return wt->engine->open(wt);
}

/* Take in the configuration the engine reports, after a handshake. */
static void wtl_take_config(struct wheeltimer *wt, const struct wt_config *cfg)
{
	wt->clockid = cfg->clockid;
	wt->virtual = cfg->flags & WT_CONFIG_VIRTUAL;
	wt->resolution = cfg->resolution;
	wt->max_pending = cfg->max_pending;
	wt->vnow = 0;
}

static void wtl_take_api(struct wheeltimer *wt, const struct wt_api *api)
{
	wt->features = api->features;
	wt->ioctls = api->ioctls;
	wt->batch_max = api->batch_max < WT_BATCH_MAX ? api->batch_max :
							WT_BATCH_MAX;
}

/* Room for a queue of @depth operations, not in place yet. */
struct wtl_queue {
	struct wt_op *ops;
	uint32_t depth;
};

static int wtl_queue_alloc(struct wtl_queue *q, uint32_t depth)
{
	q->ops = calloc(depth, sizeof(*q->ops));
	q->depth = depth;
	return q->ops ? 0 : -ENOMEM;
}

/* Put the queue @q in place, empty, in that of an empty one. */
static void wtl_queue_swap(struct wheeltimer *wt, const struct wtl_queue *q)
{
	free(wt->q_ops);
	wt->q_ops = q->ops;
	wt->q_cap = q->depth;
	wt->q_len = 0;
	wt->q_holes = 0;
}

/* The engine configuration @p asks for. */
static void wtl_config_of(const struct wheeltimer_params *p,
			  struct wt_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->resolution = p->resolution_ns ? p->resolution_ns :
			  WT_RESOLUTION_DEFAULT;
	cfg->max_pending = p->max_pending;
	cfg->flags = p->flags & WHEELTIMER_PARAM_VIRTUAL ? WT_CONFIG_VIRTUAL : 0;
	cfg->clockid = p->clockid;
}

static int wtl_setup(struct wheeltimer *wt, struct wheeltimer_params *p)
{
	struct wtl_queue q;
	struct wt_config cfg;
	struct wt_api api;
	int ret;

	ret = wtl_check_api(&api, wtl_handshake(wt, &api), p);
	if (ret)
		return ret;
	wtl_config_of(p, &cfg);
	ret = wt->engine->configure(wt, &cfg);
	if (ret)
		return ret;
	wtl_take_api(wt, &api);
	wtl_take_config(wt, &cfg);
	ret = wtl_queue_alloc(&q, p->queue_depth ? p->queue_depth :
				  WHEELTIMER_QUEUE_DEFAULT);
	if (!ret)
		wtl_queue_swap(wt, &q);
	return ret;
}

int wheeltimer_open(struct wheeltimer_params *params, struct wheeltimer **wtp)
{
	struct wheeltimer_params defaults;
	struct wheeltimer *wt;
	uint32_t engine;
	int ret;

	*wtp = NULL;
	if (!params) {
		wheeltimer_params_init(&defaults);
		params = &defaults;
	}
	params->missing = 0;
	ret = wtl_params_check(params);
	if (!ret)
		ret = wtl_engine_choice(params, &engine);
	if (ret)
		return ret;

	wt = calloc(1, sizeof(*wt));
	if (!wt)
		return -ENOMEM;
	wt->fd = -1;
	ret = wtl_wake_open(wt);
	if (!ret) {
		ret = wtl_open_engine(wt, engine);
		if (ret)
			wtl_wake_close(wt);
	}
	if (ret) {
		free(wt);
		return ret;
	}
	ret = wtl_setup(wt, params);
	if (ret) {
		wheeltimer_close(wt);
		return ret;
	}

	params->engine = wt->engine->id;
	params->max_pending = wt->max_pending;
	params->features = wt->features;
	*wtp = wt;
	return 0;
}

void wheeltimer_close(struct wheeltimer *wt)
{
	if (!wt)
		return;
	/* Closing the engine cancels whatever it holds. */
	wt->engine->close(wt);
	wtl_wake_close(wt);
	wtl_handles_destroy(wt);
	free(wt->q_ops);
	free(wt->lq);
	free(wt->rq);
	free(wt);
}

int wheeltimer_fd(const struct wheeltimer *wt)
{
	return wt->fd;
}

uint32_t wheeltimer_engine(const struct wheeltimer *wt)
{
	return wt->engine->id;
}

uint64_t wheeltimer_features(const struct wheeltimer *wt)
{
	return wt->features;
}

/*
 * A new context of the kernel engine on a duplicate of the caller's
 * device descriptor @fd, made non-blocking: the library never blocks in
 * read().
 */
static int wtl_open_dup(int fd, struct wheeltimer **wtp)
{
	struct wheeltimer *wt;
	int ret, flags;

	wt = calloc(1, sizeof(*wt));
	if (!wt)
		return -ENOMEM;
	wt->engine = &wtl_kernel_engine;
	wt->shared = true;
	ret = wtl_wake_open(wt);
	if (ret) {
		free(wt);
		return ret;
	}
	wt->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (wt->fd < 0) {
		ret = -errno;
		wtl_wake_close(wt);
		free(wt);
		return ret;
	}
	*wtp = wt;
	flags = fcntl(wt->fd, F_GETFL);
	if (flags < 0 || (!(flags & O_NONBLOCK) &&
			  fcntl(wt->fd, F_SETFL, flags | O_NONBLOCK)))
		return -errno;
	return 0;
}

/* Take in the file's configuration as it is, after a handshake. */
static int wtl_adopt(struct wheeltimer *wt)
{
	struct wheeltimer_params p;
	struct wt_config cfg;
	struct wt_api api;
	uint64_t now;
	int ret;

	wheeltimer_params_init(&p);
	ret = wtl_check_api(&api, wtl_handshake(wt, &api), &p);
	if (!ret)
		ret = wt->engine->get_config(wt, &cfg);
	if (ret)
		return ret;
	wtl_take_api(wt, &api);
	wtl_take_config(wt, &cfg);
	p.flags = wt->virtual ? WHEELTIMER_PARAM_VIRTUAL : 0;
	ret = wtl_check_api(&api, 0, &p);
	/* A virtual clock may have moved: the file knows where it is. */
	if (!ret && wt->virtual) {
		ret = wheeltimer_stat(wt, "now_ns", &now);
		wt->vnow = now;
	}
	return ret;
}

/*
 * A context on a device descriptor the caller opened: the kernel engine on
 * a duplicate of it, with the file's configuration as it is.
 */
int wheeltimer_open_fd(int fd, struct wheeltimer **wtp)
{
	struct wheeltimer *wt = NULL;
	struct wtl_queue q;
	int ret;

	*wtp = NULL;
	if (fd < 0)
		return -EBADF;
	ret = wtl_open_dup(fd, &wt);
	if (!ret)
		ret = wtl_adopt(wt);
	if (!ret)
		ret = wtl_queue_alloc(&q, WHEELTIMER_QUEUE_DEFAULT);
	if (ret) {
		wheeltimer_close(wt);
		return ret;
	}
	wtl_queue_swap(wt, &q);
	*wtp = wt;
	return 0;
}

void wheeltimer_get_params(const struct wheeltimer *wt,
			   struct wheeltimer_params *params)
{
	memset(params, 0, sizeof(*params));
	params->version = WHEELTIMER_PARAMS_VERSION;
	params->engine = wt->engine->id;
	params->resolution_ns = wt->resolution;
	params->max_pending = wt->max_pending;
	params->clockid = wt->clockid;
	params->flags = wt->virtual ? WHEELTIMER_PARAM_VIRTUAL : 0;
	params->queue_depth = wt->q_cap;
	params->features = wt->features;
}

/*
 * Whether @params may be applied to @wt: its own engine, no timeout held
 * or queued, and what the engine's handshake said, judged for them.
 */
static int wtl_params_allowed(struct wheeltimer *wt,
			      struct wheeltimer_params *params)
{
	struct wt_api api = {
		.api = WT_API_VERSION,
		.features = wt->features,
		.ioctls = wt->ioctls,
		.event_size = sizeof(struct wt_event),
		.batch_max = wt->batch_max,
	};
	int ret;

	params->missing = 0;
	ret = wtl_params_check(params);
	if (ret)
		return ret;
	if (params->engine != WHEELTIMER_ENGINE_AUTO &&
	    params->engine != wt->engine->id)
		return -EINVAL;
	if (wt->q_holes)
		wtl_queue_compact(wt);
	if (wt->handles.nr_live || wt->q_len || wt->rq_len > wt->rq_head)
		return -EBUSY;
	return wtl_check_api(&api, 0, params);
}

int wheeltimer_set_params(struct wheeltimer *wt,
			  struct wheeltimer_params *params)
{
	struct wtl_queue q = { 0 };
	struct wt_config cfg;
	uint32_t depth;
	bool resize;
	int ret;

	ret = wtl_params_allowed(wt, params);
	if (ret)
		return ret;
	depth = params->queue_depth ? params->queue_depth :
				      WHEELTIMER_QUEUE_DEFAULT;
	resize = depth != wt->q_cap;
	if (resize && wtl_queue_alloc(&q, depth))
		return -ENOMEM;
	wtl_config_of(params, &cfg);
	ret = wt->engine->configure(wt, &cfg);
	if (ret) {
		if (resize)
			free(q.ops);
		return ret;
	}
	if (resize)
		wtl_queue_swap(wt, &q);
	wtl_take_config(wt, &cfg);
	params->engine = wt->engine->id;
	params->max_pending = wt->max_pending;
	params->features = wt->features;
	return 0;
}

int wheeltimer_probe(struct wheeltimer_probe *probe)
{
	struct wheeltimer wt = {
		.fd = -1,
		.wake_fd = -1,
		.engine = &wtl_kernel_engine,
	};
	struct wt_api api;
	int ret;

	memset(probe, 0, sizeof(*probe));
	ret = wt.engine->open(&wt);
	if (ret) {
		probe->device_error = -ret;
	} else {
		if (!wtl_handshake(&wt, &api)) {
			probe->api = api.api;
			probe->kernel_features = api.features;
			probe->kernel_ioctls = api.ioctls;
			probe->batch_max = api.batch_max;
			probe->event_size = api.event_size;
		}
		wt.engine->close(&wt);
	}
	wt.engine = &wtl_process_engine;
	if (!wtl_handshake(&wt, &api))
		probe->process_features = api.features;
	return 0;
}
