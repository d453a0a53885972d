// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring - /dev/wheeltimer signalling an eventfd that io_uring waits on
 *
 * A loop built on io_uring does not poll file descriptors: it submits
 * reads. Here the wheeltimer file signals an eventfd (WT_IOC_SET_EVENTFD)
 * whenever records become ready, the loop keeps one IORING_OP_READ of the
 * eventfd in flight, and on each completion drains the wheeltimer file
 * with non-blocking read()s. The eventfd counts wake-ups, not timeouts.
 *
 * 1000 timeouts, due from 5 to 104 ms, are added with one WT_IOC_BATCH;
 * one in five is cancelled at once, with another. The loop then collects
 * the 800 others.
 *
 * Checked at any speed: each of the 800 arrives exactly once, none of the
 * cancelled ones does, none before its deadline; exit 1 otherwise.
 * Build: cc -static -isystem uapi io_uring.c -luring
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <linux/wheeltimer.h>

#define MSEC		1000000ULL
#define N		1000U
#define CANCEL_EVERY	5U

static struct wt_op ops[N];
static __u64 ids[N];
static unsigned char seen[N];
static int failures;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static void fail(const char *what)
{
	printf("FAIL: %s\n", what);
	failures++;
}

static void die(const char *what, int err)
{
	printf("FAIL: %s: %s\n", what, strerror(err));
	exit(1);
}

static int apply(int wt, unsigned int n)
{
	struct wt_batch b = { .ops = (uintptr_t)ops, .count = n };
	int r = ioctl(wt, WT_IOC_BATCH, &b);

	if (r < 0)
		die("WT_IOC_BATCH", errno);
	return r;
}

/* Reads every ready record; returns how many there were. */
static unsigned int drain(int wt)
{
	struct wt_event ev[64];
	unsigned int got = 0;
	ssize_t r;
	int k;

	for (;;) {
		r = read(wt, ev, sizeof(ev));
		if (r < 0 && errno == EAGAIN)
			return got;
		if (r < 0)
			die("read wheeltimer", errno);
		for (k = 0; k < (int)(r / sizeof(ev[0])); k++) {
			__u64 c = ev[k].cookie;

			if (ev[k].fired_at < ev[k].deadline ||
			    now_ns() < ev[k].deadline)
				fail("a timeout fired before its deadline");
			if (c >= N || c % CANCEL_EVERY == 0 || seen[c]++)
				fail("a cancelled or duplicate timeout was delivered");
			got++;
		}
	}
}

static void read_eventfd(struct io_uring *ring, int efd, __u64 *counter)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		die("io_uring_get_sqe", EBUSY);
	io_uring_prep_read(sqe, efd, counter, sizeof(*counter), 0);
	if (io_uring_submit(ring) != 1)
		die("io_uring_submit", EIO);
}

int main(void)
{
	struct __kernel_timespec limit = { .tv_sec = 10 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct wt_eventfd reg;
	unsigned int i, n, expected = 0, got = 0, wakeups = 0;
	__u64 counter = 0, signals = 0;
	int wt, efd, r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	wt = open("/dev/wheeltimer", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (wt < 0)
		die("open /dev/wheeltimer", errno);
	efd = eventfd(0, EFD_CLOEXEC);
	if (efd < 0)
		die("eventfd", errno);
	reg = (struct wt_eventfd){ .fd = (__u32)efd };
	if (ioctl(wt, WT_IOC_SET_EVENTFD, &reg) < 0)
		die("WT_IOC_SET_EVENTFD", errno);
	r = io_uring_queue_init(8, &ring, 0);
	if (r < 0)
		die("io_uring_queue_init", -r);

	for (i = 0; i < N; i++) {
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].op = WT_OP_ADD;
		ops[i].deadline = (5 + i % 100) * MSEC;
		ops[i].cookie = i;
	}
	if (apply(wt, N) != (int)N)
		fail("every add succeeded");
	for (i = 0; i < N; i++)
		ids[i] = ops[i].id;
	n = 0;
	for (i = 0; i < N; i += CANCEL_EVERY) {
		memset(&ops[n], 0, sizeof(ops[n]));
		ops[n].op = WT_OP_CANCEL;
		ops[n].id = ids[i];
		n++;
	}
	if (apply(wt, n) != (int)n)
		fail("every cancel succeeded");
	for (i = 0; i < N; i++)
		if (i % CANCEL_EVERY)
			expected++;
	printf("added %u timeouts in one batch, cancelled %u in another\n", N, n);

	read_eventfd(&ring, efd, &counter);
	while (got < expected) {
		r = io_uring_wait_cqe_timeout(&ring, &cqe, &limit);
		if (r == -ETIME) {
			fail("no wake-up for 10 s");
			break;
		}
		if (r < 0)
			die("io_uring_wait_cqe", -r);
		if (cqe->res != sizeof(counter))
			die("read eventfd through io_uring",
			    cqe->res < 0 ? -cqe->res : EIO);
		io_uring_cqe_seen(&ring, cqe);
		wakeups++;
		signals += counter;
		got += drain(wt);
		if (got < expected)
			read_eventfd(&ring, efd, &counter);
	}
	if (got != expected)
		fail("every timeout that was not cancelled arrived");
	printf("%u wake-ups for %u timeouts; the eventfd counted %llu signals\n",
	       wakeups, got, signals);
	printf("io_uring: %u of %u timeouts, none early, cancelled or twice: %s\n",
	       got, expected, failures ? "FAIL" : "ok");
	io_uring_queue_exit(&ring);
	close(efd);
	close(wt);
	return failures ? 1 : 0;
}
