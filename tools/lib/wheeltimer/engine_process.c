// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * engine_process.c - the in-process engine: module/core.c, the module's
 * own rules for a file of timeouts, driven by one timerfd
 *
 * For machines without the module. The core is compiled unchanged (with
 * module/store.c and module/wheel.c, against the stand-ins in shim/, and
 * with this file as one unit: inprocess.c), so that every rule, check and
 * errno is the module's; this file is only its driver, as module/drive.c
 * is in the kernel: a clock (clock_gettime() on the context's clock), a
 * timer (a timerfd), and a descriptor to poll.
 *
 * Where it differs, because it has no interrupt: the timerfd only wakes a
 * poller; what is due is collected by the reap that wants it, and stamped
 * with the clock of that reap (the module stamps what its hrtimer found
 * due with the expiry's reading), or with the reading of the call that
 * found it due already. On CLOCK_REALTIME a reap reads the timerfd
 * whatever the clock says, a system call more, for a clock stepped back
 * after the expiry (wtp_consume_expiry()). There is no per-user limit:
 * the memory is the process's own.
 *
 * The descriptor a caller polls is an epoll descriptor holding two others:
 * the timerfd, armed by the core for the first tick at which a timeout is
 * due, and an eventfd that the engine keeps signalled, from the end of
 * each of its calls, while records may be ready at once (some wait, a
 * backlog is owed, or the core found timeouts due already). A wake-up may
 * still find nothing to reap, when the timeout the timerfd was armed for
 * was cancelled or moved since. There is no eventfd for the caller to
 * register: nothing would signal it when a timeout comes due while the
 * program is not in the library, so the engine lacks WT_FEATURE_EVENTFD
 * and callers poll the descriptor.
 *
 * Limits are the module's defaults: max_pending 1048576 unless asked, at
 * most 16777216.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "core.h"

#define WTP_FEATURES		(WT_FEATURE_VIRTUAL_CLOCK | WT_FEATURE_PERIODIC | \
				 WT_FEATURE_SLACK | WT_FEATURE_BOOTTIME | \
				 WT_FEATURE_REALTIME | WT_FEATURE_LEASED_IDS)
#define WTP_IOCTLS		((1ULL << _WT_IOC_API) | \
				 (1ULL << _WT_IOC_SET_CONFIG) | \
				 (1ULL << _WT_IOC_GET_CONFIG) | \
				 (1ULL << _WT_IOC_BATCH) | \
				 (1ULL << _WT_IOC_ADVANCE) | \
				 (1ULL << _WT_IOC_QUERY) | \
				 (1ULL << _WT_IOC_LEASE))

/**
 * struct wtp - the in-process engine of one context
 * @tfd: the timerfd
 * @efd: the eventfd that says records may be ready at once
 * @epfd: the epoll descriptor holding both, the context's descriptor
 * @signalled: @efd is signalled
 * @armed: the timerfd is armed, and its expiry was not consumed
 * @expired: the core found timeouts due already (wt_core_expire_now())
 * @expired_at: the reading it found them due at, while @expired
 * @core: the timeouts and their rules, last because it is large
 */
struct wtp {
	int tfd;
	int efd;
	int epfd;
	bool signalled;
	bool armed;
	bool expired;
	uint64_t expired_at;
	struct wt_core core;
};

static uint64_t wtp_contexts;
static pthread_once_t wtp_caches_once = PTHREAD_ONCE_INIT;
static int wtp_caches_err;

static struct wtp *wtp(const struct wheeltimer *wt)
{
	return wt->priv;
}

static struct wtp *wtp_of(const struct wt_core *core)
{
	return container_of(core, struct wtp, core);
}

/* ------------------------------------------- what the core asks of us */

u64 wt_core_clock(const struct wt_core *core)
{
	return wtl_clock_ns(core->clockid);
}

/* No interrupt notes an expiry: only what the core found due already. */
bool wt_core_expiry(struct wt_core *core, u64 *at, bool take)
{
	struct wtp *e = wtp_of(core);

	if (!e->expired)
		return false;
	*at = e->expired_at;
	if (take)
		e->expired = false;
	return true;
}

void wt_core_expire_now(struct wt_core *core, u64 now)
{
	struct wtp *e = wtp_of(core);

	if (!e->expired) {
		e->expired = true;
		e->expired_at = now;
	}
}

void wt_core_arm(struct wt_core *core, u64 tick)
{
	struct wtp *e = wtp_of(core);
	struct itimerspec its = { 0 };
	uint64_t ns;

	ns = tick > core->last_tick ? WTL_TIME_MAX : tick * core->resolution;
	its.it_value.tv_sec = ns / 1000000000;
	its.it_value.tv_nsec = ns % 1000000000;
	/* Cannot fail: the descriptor is ours and the time is valid. */
	if (!WARN_ON_ONCE(timerfd_settime(e->tfd, TFD_TIMER_ABSTIME, &its,
					  NULL)))
		e->armed = true;
}

bool wt_core_armed(const struct wt_core *core)
{
	return wtp_of(core)->armed;
}

bool wt_core_charge(struct wt_core *core, size_t bytes)
{
	(void)core;
	(void)bytes;
	return true;
}

void wt_core_uncharge(struct wt_core *core, size_t bytes)
{
	(void)core;
	(void)bytes;
}

/* The descriptor is made readable at the end of the call (wtp_signal()). */
void wt_core_notify(struct wt_core *core)
{
	(void)core;
}

/* ------------------------------------------------------------ the fds */

/*
 * Keep the eventfd signalled exactly while records may be ready at once,
 * at the end of each call.
 */
static void wtp_signal(struct wtp *e)
{
	bool ready = wt_core_owes(&e->core) || e->expired;
	uint64_t v = 1;

	if (ready == e->signalled)
		return;
	if (ready)
		WARN_ON_ONCE(write(e->efd, &v, sizeof(v)) != sizeof(v));
	else
		WARN_ON_ONCE(read(e->efd, &v, sizeof(v)) != sizeof(v));
	e->signalled = ready;
}

/*
 * Once the timerfd's time has come, consume its expiry: it is collected.
 * CLOCK_REALTIME may have stepped back since the timerfd expired, to
 * before its time: there the timerfd is read whatever the clock says (a
 * read before its time fails with EAGAIN), or an expiry the clock stepped
 * back from would keep the descriptor readable with nothing to reap, and
 * its poller would spin until the clock caught up.
 */
static void wtp_consume_expiry(struct wtp *e)
{
	const struct wt_core *core = &e->core;
	uint64_t expirations;

	if (!e->armed || core->armed > core->last_tick)
		return;
	if (core->clockid != CLOCK_REALTIME &&
	    wt_core_clock(core) < core->armed * core->resolution)
		return;
	if (read(e->tfd, &expirations, sizeof(expirations)) ==
	    sizeof(expirations))
		e->armed = false;
}

/* ------------------------------------------------------ the engine's calls */

static int wtp_batch(struct wheeltimer *wt, struct wt_op *ops, unsigned int n)
{
	struct wtp *e = wtp(wt);
	unsigned int done = wt_core_apply(&e->core, ops, n, 0);

	wtp_signal(e);
	return done;
}

/*
 * wt_core_take() and wt_core_consume() in one pass, with core.c's own
 * steps (this file is one unit with it: inprocess.c): a record copied
 * into the caller's memory here cannot fail to arrive, so each is
 * consumed as soon as it is described, without a second walk.
 */
static unsigned int wtp_deliver(struct wt_core *core, struct wt_event *ev,
				unsigned int max)
{
	u64 now, next, overruns = 0;
	struct hlist_node *node;
	unsigned int n = 0;
	struct wt_timer *t;

	max = wt_take_begin(core, max, &now);
	for (node = core->ready.first; node && n < max; n++) {
		t = container_of(node, struct wt_timer, ready.link);
		node = node->next;
		wt_describe(core, t, now, &ev[n], &next);
		wt_ready_del(core, t);
		overruns += ev[n].overruns;
		wt_consume_one(core, t, &ev[n], next);
	}
	if (n)
		wt_consumed(core, n, overruns);
	return n;
}

/* Records straight into @buf, WT_READ_BATCH at a time; @buf is aligned. */
static int wtp_read(struct wheeltimer *wt, void *buf, unsigned int max)
{
	struct wt_event *ev = buf;
	struct wtp *e = wtp(wt);
	unsigned int n, got = 0;

	wtp_consume_expiry(e);
	do {
		n = wtp_deliver(&e->core, &ev[got], max - got);
		got += n;
	} while (n == WT_READ_BATCH && got < max);
	wtp_signal(e);
	return got;
}

static int wtp_advance(struct wheeltimer *wt, struct wt_advance *adv)
{
	struct wtp *e = wtp(wt);
	int ret = wt_core_advance(&e->core, adv);

	wtp_signal(e);
	return ret;
}

static int wtp_lease(struct wheeltimer *wt, uint32_t *first, uint32_t *count)
{
	return wt_core_lease(&wtp(wt)->core, first, count);
}

static int wtp_query(struct wheeltimer *wt, struct wt_query *q)
{
	struct wtp *e = wtp(wt);
	int ret = wt_core_query(&e->core, q);

	wtp_signal(e);
	return ret;
}

static int wtp_now(const struct wheeltimer *wt, uint64_t *now)
{
	*now = wt_core_now(&wtp(wt)->core);
	return 0;
}

/* The module's fdinfo lines, with the timerfd in place of the hrtimer. */
static int wtp_fdinfo(const struct wheeltimer *wt, char *buf, size_t size)
{
	const struct wt_core *core = &wtp(wt)->core;
	struct wt_stats st;
	int len;

	wt_core_stats(core, &st);
	len = snprintf(buf, size,
		       "engine:\tprocess\ncontext_id:\t%llu\nclockid:\t%d\n"
		       "virtual:\t%d\nresolution_ns:\t%llu\nmax_pending:\t%llu\n"
		       "now_ns:\t%llu\nclk:\t%llu\nlive:\t%llu\npending:\t%llu\n"
		       "ready:\t%llu\nadded:\t%llu\nmodified:\t%llu\n"
		       "fired:\t%llu\ndelivered:\t%llu\ncancelled:\t%llu\n"
		       "withdrawn:\t%llu\noverruns:\t%llu\n"
		       "timerfd_programs:\t%llu\nrewinds:\t%llu\n"
		       "timer_blocks:\t%llu\ntimers_per_block:\t%lu\n",
		       (unsigned long long)st.context_id, (int)core->clockid,
		       wt_core_is_virtual(core),
		       (unsigned long long)core->resolution,
		       (unsigned long long)core->max_pending,
		       (unsigned long long)wt_core_now(core),
		       (unsigned long long)core->wheel.clk,
		       (unsigned long long)st.live,
		       (unsigned long long)st.pending,
		       (unsigned long long)st.ready,
		       (unsigned long long)st.added,
		       (unsigned long long)st.modified,
		       (unsigned long long)st.fired,
		       (unsigned long long)st.delivered,
		       (unsigned long long)st.cancelled,
		       (unsigned long long)st.withdrawn,
		       (unsigned long long)st.overruns,
		       (unsigned long long)st.hrtimer_programs,
		       (unsigned long long)st.rewinds,
		       (unsigned long long)st.timer_blocks,
		       (unsigned long)WT_BLOCK_TIMERS);
	if (len < 0)
		return -EIO;
	return (size_t)len < size ? len : -ENOSPC;
}

static void wtp_close(struct wheeltimer *wt)
{
	struct wtp *e = wtp(wt);

	if (!e)
		return;
	if (e->tfd >= 0)
		close(e->tfd);
	if (e->efd >= 0)
		close(e->efd);
	if (e->epfd >= 0)
		close(e->epfd);
	wt_core_destroy(&e->core);
	free(e);
	wt->priv = NULL;
	wt->fd = -1;
}

static int wtp_watch(struct wtp *e, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* The store's caches, as the module makes them at load: once. */
static void wtp_create_caches(void)
{
	wtp_caches_err = wt_store_create_caches();
}

static int wtp_open(struct wheeltimer *wt)
{
	struct wtp *e;
	int err;

	pthread_once(&wtp_caches_once, wtp_create_caches);
	if (wtp_caches_err)
		return wtp_caches_err;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->tfd = -1;
	e->efd = -1;
	e->epfd = -1;
	wt_core_init(&e->core,
		     __atomic_add_fetch(&wtp_contexts, 1, __ATOMIC_RELAXED));
	wt->priv = e;
	wt->fd = -1;
	e->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->efd < 0 || e->epfd < 0 || wtp_watch(e, e->efd)) {
		err = -errno;
		wtp_close(wt);
		return err;
	}
	wt->fd = e->epfd;
	return 0;
}

static int wtp_handshake(struct wheeltimer *wt, struct wt_api *api)
{
	(void)wt;
	memset(api, 0, sizeof(*api));
	api->api = WT_API_VERSION;
	api->features = WTP_FEATURES;
	api->ioctls = WTP_IOCTLS;
	api->event_size = sizeof(struct wt_event);
	api->batch_max = WT_BATCH_MAX;
	return 0;
}

static int wtp_configure(struct wheeltimer *wt, struct wt_config *cfg)
{
	struct wtp *e = wtp(wt);
	int tfd, ret;

	ret = wt_core_check_config(cfg, WTL_PENDING_LIMIT);
	if (ret)
		return ret;
	if (e->core.store.nr_live)
		return -EBUSY;
	if (!cfg->max_pending)
		cfg->max_pending = WTL_PENDING_DEFAULT;

	/* A virtual clock never arms it. */
	tfd = timerfd_create(cfg->flags & WT_CONFIG_VIRTUAL ? CLOCK_MONOTONIC :
			     (clockid_t)cfg->clockid,
			     TFD_NONBLOCK | TFD_CLOEXEC);
	if (tfd < 0)
		return -errno;
	if (wtp_watch(e, tfd)) {
		ret = -errno;
		close(tfd);
		return ret;
	}
	/* Closing it takes it out of the epoll set. */
	if (e->tfd >= 0)
		close(e->tfd);
	e->tfd = tfd;
	e->armed = false;
	e->expired = false;
	wt_core_configure(&e->core, cfg);
	wtp_signal(e);
	return 0;
}

static int wtp_get_config(struct wheeltimer *wt, struct wt_config *cfg)
{
	const struct wt_core *core = &wtp(wt)->core;

	memset(cfg, 0, sizeof(*cfg));
	cfg->resolution = core->resolution;
	cfg->max_pending = core->max_pending;
	cfg->flags = core->flags;
	cfg->clockid = core->clockid;
	return 0;
}

const struct wtl_engine wtl_process_engine = {
	.id		= WHEELTIMER_ENGINE_PROCESS,
	.open		= wtp_open,
	.handshake	= wtp_handshake,
	.configure	= wtp_configure,
	.get_config	= wtp_get_config,
	.batch		= wtp_batch,
	.read		= wtp_read,
	.advance	= wtp_advance,
	.set_eventfd	= NULL,
	.lease		= wtp_lease,
	.query		= wtp_query,
	.now		= wtp_now,
	.fdinfo		= wtp_fdinfo,
	.close		= wtp_close,
};
