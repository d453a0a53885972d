// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring - libwheeltimer's records read through an io_uring
 *
 * A loop built on io_uring does not poll descriptors: it submits reads.
 * With the kernel engine it keeps one IORING_OP_READ of the context's
 * descriptor in flight, into a buffer of its own: the module's read never
 * sleeps for io_uring (FMODE_NOWAIT), so io_uring waits for the device to
 * become readable and reads when it is, without a worker thread. Each
 * completion's records go to wheeltimer_reap_buffer(), which maps them to
 * handles and cookies as wheeltimer_reap() would, and submits what the
 * loop queued. The in-process engine's descriptor is an epoll set, which
 * cannot be read: there the loop keeps an IORING_OP_POLL_ADD in flight
 * and calls wheeltimer_reap() on each completion.
 *
 * 1000 timeouts, due from 5 to 104 ms, are added in one batch; one in five
 * is cancelled at once, with another, and of those one in two after it
 * was submitted, the others while their add was still queued (these never
 * reach the engine). The loop then collects the 800 others.
 *
 * Checked at any speed: each of the 800 arrives exactly once, none of the
 * cancelled ones does, none before its deadline, and io_uring never
 * needed a worker thread (an "iou-wrk" task) to wait for the records;
 * exit 1 otherwise.
 * Build: cc io_uring.c $(pkg-config --cflags --libs wheeltimer liburing)
 */
#include <dirent.h>
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wheeltimer/wheeltimer.h>

#define MSEC		1000000ULL
#define N		1000U
#define CANCEL_EVERY	5U
/* The size of the module's records, struct wt_event of <linux/wheeltimer.h>. */
#define RECORD		48
#define BATCH		64

static struct wheeltimer *wt;
static uint64_t handles[N];
static unsigned char seen[N];
static int failures;

static void fail(const char *what)
{
	printf("FAIL: %s\n", what);
	failures++;
}

static void die(const char *what, int err)
{
	printf("FAIL: %s: %s\n", what, wheeltimer_strerror(err));
	exit(1);
}

/* Checks the records reaped; returns how many timeouts fired. */
static unsigned int account(const struct wheeltimer_event *ev, int n)
{
	unsigned int got = 0;
	uint64_t now;
	int k;

	wheeltimer_now(wt, &now);
	for (k = 0; k < n; k++) {
		uint64_t c = ev[k].cookie;

		if (ev[k].fired_at < ev[k].deadline || now < ev[k].deadline)
			fail("a timeout fired before its deadline");
		if (c >= N || c % CANCEL_EVERY == 0 || seen[c]++ ||
		    ev[k].handle != handles[c])
			fail("a cancelled or duplicate timeout was delivered");
		got++;
	}
	return got;
}

/* io_uring's worker threads this process has: tasks named iou-wrk-PID. */
static unsigned int io_workers(void)
{
	char path[320], comm[32];
	unsigned int n = 0;
	struct dirent *d;
	DIR *dir;
	FILE *f;

	dir = opendir("/proc/self/task");
	if (!dir)
		die("/proc/self/task", -errno);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "iou-wrk", 7))
			n++;
		fclose(f);
	}
	closedir(dir);
	return n;
}

/* The one request the loop keeps in flight: a read, or a poll. */
static void queue_wait(struct io_uring *ring, void *buf, size_t size,
		       bool read_records)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	int ret;

	if (!sqe)
		die("io_uring_get_sqe", EBUSY);
	if (read_records)
		io_uring_prep_read(sqe, wheeltimer_fd(wt), buf, size, 0);
	else
		io_uring_prep_poll_add(sqe, wheeltimer_fd(wt), POLLIN);
	ret = io_uring_submit(ring);
	if (ret != 1)
		die("io_uring_submit", ret < 0 ? ret : -EIO);
}

int main(void)
{
	static char buf[BATCH * RECORD];
	struct __kernel_timespec limit = { .tv_sec = 10 };
	struct wheeltimer_event ev[BATCH];
	unsigned int i, n = 0, expected = 0, got = 0, wakeups = 0, queued;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	bool read_records;
	size_t len;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = wheeltimer_open(NULL, &wt);
	if (r)
		die("wheeltimer_open", r);
	read_records = wheeltimer_engine(wt) == WHEELTIMER_ENGINE_KERNEL;
	r = io_uring_queue_init(8, &ring, 0);
	if (r < 0)
		die("io_uring_queue_init", r);

	for (i = 0; i < N; i++) {
		r = wheeltimer_add(wt, (5 + i % 100) * MSEC, 0, 0, i, &handles[i]);
		if (r)
			die("wheeltimer_add", r);
		/* Half the cancels while the add is still queued. */
		if (i % CANCEL_EVERY == 0 && i % (2 * CANCEL_EVERY) == 0) {
			r = wheeltimer_cancel(wt, handles[i], 0);
			if (r)
				die("wheeltimer_cancel", r);
			n++;
		}
	}
	r = wheeltimer_submit(wt);
	if (r != (int)(N - n))
		fail("the adds were submitted");
	for (i = CANCEL_EVERY; i < N; i += 2 * CANCEL_EVERY) {
		r = wheeltimer_cancel(wt, handles[i], 0);
		if (r)
			die("wheeltimer_cancel", r);
		n++;
	}
	/*
	 * Either engine queues these cancels and sends them at the submit;
	 * the records below show that every cancel took.
	 */
	queued = wheeltimer_queued(wt);
	if (queued != N / (2 * CANCEL_EVERY))
		fail("the cancels were queued");
	r = wheeltimer_submit(wt);
	if (r != (int)queued)
		fail("the cancels were submitted");
	for (i = 0; i < N; i++)
		if (i % CANCEL_EVERY)
			expected++;
	printf("added %u timeouts, cancelled %u (%u before they were submitted)\n",
	       N, n, N / (2 * CANCEL_EVERY));

	queue_wait(&ring, buf, sizeof(buf), read_records);
	while (got < expected) {
		r = io_uring_wait_cqe_timeout(&ring, &cqe, &limit);
		if (r == -ETIME) {
			fail("no completion for 10 s");
			break;
		}
		if (r < 0)
			die("io_uring_wait_cqe", r);
		if (cqe->res < 0)
			die(read_records ? "read through io_uring" :
			    "poll through io_uring", cqe->res);
		len = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		wakeups++;
		do {
			if (read_records) {
				r = wheeltimer_reap_buffer(wt, buf, len, ev, BATCH);
				len = 0;
			} else {
				r = wheeltimer_reap(wt, ev, BATCH);
			}
			if (r < 0)
				die("reap", r);
			got += account(ev, r);
		} while (r == BATCH);
		if (got < expected)
			queue_wait(&ring, buf, sizeof(buf), read_records);
	}
	if (got != expected)
		fail("every timeout that was not cancelled arrived");
	if (io_workers())
		fail("io_uring punted a request to a worker thread");
	printf("%u completions for %u timeouts, %s\n", wakeups, got,
	       read_records ? "records read through the ring" :
	       "in-process engine: polled through the ring");
	printf("io_uring: %u of %u timeouts, none early, cancelled or twice: %s\n",
	       got, expected, failures ? "FAIL" : "ok");
	io_uring_queue_exit(&ring);
	wheeltimer_close(wt);
	return failures ? 1 : 0;
}
