// SPDX-License-Identifier: GPL-2.0
/*
 * lib-callgrind.c - libwheeltimer's paths, driven for callgrind
 * (tools/bench/lib-callgrind runs it)
 *
 *   lib-callgrind churn ROUNDS     ROUNDS times: 64 wheeltimer_add() (a
 *                                  deadline 1 to 61 s ahead, ABSTIME), a
 *                                  submit, the 64 cancels, a submit
 *   lib-callgrind expiry N         N timeouts due within 1 ms, reaped
 *
 * On the engine WHEELTIMER_ENGINE says. For the expiry, the context is
 * opened just past a 4096-tick boundary of its clock and the timeouts
 * are 1.5 s ahead, so that the wheel cascades each once in every run (a
 * count that depends on where the clock stands would not repeat); they
 * are reaped once all are due.
 *
 * Built with FAKE_DEVICE (and linked statically), its ioctl() stands in
 * for /dev/wheeltimer: every operation succeeds and does nothing, so that
 * callgrind counts the kernel engine's library layer alone, the stand-in
 * itself being subtracted.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/wheeltimer.h>
#include <wheeltimer/wheeltimer.h>

#define MS	1000000ULL
#define SEC	1000000000ULL
#define BATCH	64

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "lib-callgrind: %s: %s\n", what, wheeltimer_strerror(err));
	exit(1);
}

static void churn(struct wheeltimer *wt, unsigned long rounds)
{
	uint64_t h[BATCH], dl[BATCH], base;
	unsigned long r;
	int i, ret;

	for (r = 0; r < rounds; r++) {
		base = mono_ns() + SEC;
		for (i = 0; i < BATCH; i++)
			dl[i] = base + rnd() % (60 * SEC);
		for (i = 0; i < BATCH; i++) {
			ret = wheeltimer_add(wt, dl[i], 0, WHEELTIMER_ABSTIME, i,
					     &h[i]);
			if (ret)
				die("wheeltimer_add", ret);
		}
		ret = wheeltimer_submit(wt);
		if (ret < 0)
			die("wheeltimer_submit", ret);
		for (i = 0; i < BATCH; i++) {
			ret = wheeltimer_cancel(wt, h[i], 0);
			if (ret)
				die("wheeltimer_cancel", ret);
		}
		ret = wheeltimer_submit(wt);
		if (ret < 0)
			die("wheeltimer_submit", ret);
	}
}

static void expiry(struct wheeltimer *wt, unsigned long n)
{
	struct wheeltimer_event ev[256];
	struct pollfd pfd = { .fd = wheeltimer_fd(wt), .events = POLLIN };
	uint64_t base = mono_ns() + 1500 * MS, h;
	unsigned long i, got = 0;
	int ret;

	for (i = 0; i < n; i++) {
		ret = wheeltimer_add(wt, base + rnd() % MS, 0,
				     WHEELTIMER_ABSTIME, i, &h);
		if (ret)
			die("wheeltimer_add", ret);
	}
	ret = wheeltimer_submit(wt);
	if (ret < 0)
		die("wheeltimer_submit", ret);
	while (mono_ns() < base + 2 * MS)
		usleep(1000);
	while (got < n) {
		ret = wheeltimer_reap(wt, ev, 256);
		if (ret < 0)
			die("wheeltimer_reap", ret);
		if (!ret)
			poll(&pfd, 1, 100);
		got += ret;
	}
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	struct wheeltimer *wt;
	int ret;

	if (argc != 3 || !n ||
	    (strcmp(argv[1], "churn") && strcmp(argv[1], "expiry"))) {
		fprintf(stderr, "usage: lib-callgrind churn ROUNDS | expiry N\n");
		return 2;
	}
	if (!strcmp(argv[1], "expiry")) {
		while (mono_ns() % (4096 * MS) > 100 * MS)
			usleep(1000);
	}
	ret = wheeltimer_open(NULL, &wt);
	if (ret)
		die("wheeltimer_open", ret);
	if (!strcmp(argv[1], "churn"))
		churn(wt, n);
	else
		expiry(wt, n);
	wheeltimer_close(wt);
	return 0;
}

#ifdef FAKE_DEVICE
/* The device's ioctls, answered at once; leases of 85 ids from 1. */
int ioctl(int fd, unsigned long cmd, ...)
{
	static struct wt_config cfg;
	static uint32_t next = 1;
	struct wt_batch *b;
	struct wt_lease *l;
	struct wt_api *api;
	struct wt_op *op;
	va_list ap;
	void *arg;
	uint32_t i;

	(void)fd;
	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	switch (cmd) {
	case WT_IOC_API:
		api = arg;
		api->features = WT_FEATURE_LEASED_IDS | WT_FEATURE_SLACK |
				WT_FEATURE_PERIODIC;
		api->ioctls = ~0ULL;
		api->event_size = sizeof(struct wt_event);
		api->batch_max = WT_BATCH_MAX;
		return 0;
	case WT_IOC_SET_CONFIG:
		cfg = *(struct wt_config *)arg;
		return 0;
	case WT_IOC_GET_CONFIG:
		*(struct wt_config *)arg = cfg;
		return 0;
	case WT_IOC_LEASE:
		l = arg;
		l->first = next;
		l->count = 85;
		next += 85;
		return 0;
	case WT_IOC_BATCH:
		b = arg;
		op = (struct wt_op *)(uintptr_t)b->ops;
		for (i = 0; i < b->count; i++) {
			op[i].status = op[i].op == WT_OP_ADD ? WT_STATUS_ADDED :
							       WT_STATUS_PENDING;
			op[i].error = 0;
		}
		return b->count;
	}
	errno = ENOTTY;
	return -1;
}
#endif
