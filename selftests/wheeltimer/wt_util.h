/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the wheeltimer selftests: one call per ioctl,
 * returning 0 or -errno, so that a test reads as the operations it makes.
 */
#ifndef WT_UTIL_H
#define WT_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <linux/wheeltimer.h>

#define WT_DEV		"/dev/wheeltimer"
#define NSEC		1ULL
#define USEC		1000ULL
#define MSEC		1000000ULL
#define SEC		1000000000ULL
#define WT_KTIME_MAX	((__u64)INT64_MAX)

/*
 * Each test runs in a child that ends with _exit(): through the runner's
 * pipe a fully buffered stdout would lose what ksft_print_msg() reports.
 */
static void __attribute__((constructor)) wt_stdout_line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static inline int wt_open(void)
{
	return open(WT_DEV, O_RDWR | O_CLOEXEC);
}

static inline int wt_ret(int r)
{
	return r < 0 ? -errno : r;
}

static inline int wt_config(int fd, __u64 resolution, __u32 clockid,
			    __u64 flags, __u64 max_pending)
{
	struct wt_config c = {
		.resolution = resolution,
		.max_pending = max_pending,
		.flags = flags,
		.clockid = clockid,
	};

	return wt_ret(ioctl(fd, WT_IOC_SET_CONFIG, &c));
}

static inline int wt_get_config(int fd, struct wt_config *c)
{
	return wt_ret(ioctl(fd, WT_IOC_GET_CONFIG, c));
}

/* A virtual clock at 0 on CLOCK_MONOTONIC with the given resolution. */
static inline int wt_virtual(int fd, __u64 resolution)
{
	return wt_config(fd, resolution, CLOCK_MONOTONIC, WT_CONFIG_VIRTUAL, 0);
}

static inline int wt_add_full(int fd, __u64 flags, __u64 deadline,
			      __u64 period, __u64 slack, __u64 cookie,
			      __u64 *id)
{
	struct wt_op op = {
		.op = WT_OP_ADD,
		.flags = flags,
		.deadline = deadline,
		.period = period,
		.slack = slack,
		.cookie = cookie,
	};
	int r = wt_ret(ioctl(fd, WT_IOC_ADD, &op));

	if (id)
		*id = op.id;
	return r;
}

/* A one-shot timeout @deadline ns from now, its cookie the deadline. */
static inline int wt_add(int fd, __u64 deadline, __u64 *id)
{
	return wt_add_full(fd, 0, deadline, 0, 0, deadline, id);
}

static inline int wt_add_abs(int fd, __u64 deadline, __u64 *id)
{
	return wt_add_full(fd, WT_ABSTIME, deadline, 0, 0, deadline, id);
}

/* Returns a WT_STATUS_* or -errno. */
static inline int wt_cancel(int fd, __u64 id)
{
	struct wt_op op = { .op = WT_OP_CANCEL, .id = id };
	int r = wt_ret(ioctl(fd, WT_IOC_CANCEL, &op));

	return r < 0 ? r : (int)op.status;
}

/* Returns a WT_STATUS_* or -errno. */
static inline int wt_modify(int fd, __u64 id, __u64 flags,
			    __u64 deadline, __u64 slack)
{
	struct wt_op op = {
		.op = WT_OP_MODIFY,
		.id = id,
		.flags = flags,
		.deadline = deadline,
		.slack = slack,
	};
	int r = wt_ret(ioctl(fd, WT_IOC_MODIFY, &op));

	return r < 0 ? r : (int)op.status;
}

/* Returns how many timeouts fired, or -errno. */
static inline __s64 wt_advance(int fd, __u64 ns)
{
	struct wt_advance a = { .time = ns };
	int r = wt_ret(ioctl(fd, WT_IOC_ADVANCE, &a));

	return r < 0 ? r : (__s64)a.expired;
}

static inline __s64 wt_set_clock(int fd, __u64 ns)
{
	struct wt_advance a = { .time = ns, .flags = WT_ADVANCE_SET };
	int r = wt_ret(ioctl(fd, WT_IOC_ADVANCE, &a));

	return r < 0 ? r : (__s64)a.expired;
}

static inline int wt_query(int fd, __u64 id, struct wt_query *q)
{
	memset(q, 0, sizeof(*q));
	q->id = id;
	return wt_ret(ioctl(fd, WT_IOC_QUERY, q));
}

static inline int wt_set_eventfd(int fd, __u32 efd)
{
	struct wt_eventfd e = { .fd = efd };

	return wt_ret(ioctl(fd, WT_IOC_SET_EVENTFD, &e));
}

/* Returns the number of ops that succeeded, or -errno. */
static inline int wt_batch(int fd, struct wt_op *ops, __u32 count)
{
	struct wt_batch b = {
		.ops = (uintptr_t)ops,
		.count = count,
	};

	return wt_ret(ioctl(fd, WT_IOC_BATCH, &b));
}

/* Returns the number of records read, or -errno. */
static inline int wt_read(int fd, struct wt_event *ev, size_t max)
{
	ssize_t r = read(fd, ev, max * sizeof(*ev));

	return r < 0 ? -errno : (int)(r / sizeof(*ev));
}

/*
 * A field of /proc/@pid/fdinfo/@fd (of this process if @pid is 0), or
 * UINT64_MAX if it is missing or cannot be read.
 */
static inline __u64 wt_pid_fdinfo(pid_t pid, int fd, const char *key)
{
	char path[64], line[256];
	size_t len = strlen(key);
	__u64 val = UINT64_MAX;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	else
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return UINT64_MAX;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, len) && line[len] == ':') {
			val = strtoull(line + len + 1, NULL, 0);
			break;
		}
	}
	fclose(f);
	return val;
}

/* A field of /proc/self/fdinfo/@fd, or UINT64_MAX if it is missing. */
static inline __u64 wt_fdinfo(int fd, const char *key)
{
	return wt_pid_fdinfo(0, fd, key);
}

/* The whole fdinfo of @fd, for logs and for "nothing changed" checks. */
static inline void wt_fdinfo_text(int fd, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	buf[0] = '\0';
	f = open(path, O_RDONLY);
	if (f < 0)
		return;
	n = read(f, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(f);
}

/* Whether the fdinfo of @fd contains @text. */
static inline int wt_fdinfo_has(int fd, const char *text)
{
	char buf[4096];

	wt_fdinfo_text(fd, buf, sizeof(buf));
	return !!strstr(buf, text);
}

static inline __u64 wt_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * SEC + ts.tv_nsec;
}

/*
 * How often the thread @tid of this process has gone to sleep (its
 * voluntary context switches), or UINT64_MAX if it cannot be read: a
 * thread blocked in read() or poll() counts one more each time it is
 * woken and finds it must wait again.
 */
static inline __u64 wt_thread_sleeps(pid_t tid)
{
	char path[64], line[128];
	__u64 val = UINT64_MAX;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return UINT64_MAX;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "voluntary_ctxt_switches:", 24)) {
			val = strtoull(line + 24, NULL, 10);
			break;
		}
	fclose(f);
	return val;
}

/* A thread blocked in read() for one record, counting how often it slept. */
struct wt_waiter {
	int fd;
	int n;
	struct wt_event ev;
	__u64 before;
	atomic_int tid;
	__u64 sleeps;
};

static inline void *wt_waiting_reader(void *arg)
{
	struct wt_waiter *w = arg;

	w->before = wt_thread_sleeps(gettid());
	w->tid = gettid();
	w->n = wt_read(w->fd, &w->ev, 1);
	w->sleeps = wt_thread_sleeps(gettid()) - w->before;
	return NULL;
}

/* Start @w on @fd and return 0 once it sleeps in its read(), else -1. */
static inline int wt_start_waiter(struct wt_waiter *w, int fd, pthread_t *th)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	if (pthread_create(th, NULL, wt_waiting_reader, w))
		return -1;
	for (i = 0; i < 10000; i++) {
		if (w->tid && wt_thread_sleeps(w->tid) > w->before)
			return 0;
		usleep(1000);
	}
	return -1;
}

#endif /* WT_UTIL_H */
