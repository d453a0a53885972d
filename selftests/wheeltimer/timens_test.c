// SPDX-License-Identifier: GPL-2.0
/*
 * Time namespaces: a file uses the time namespace of the process that
 * opened it. On CLOCK_MONOTONIC and CLOCK_BOOTTIME its absolute deadlines
 * (in and out), fired_at, QUERY's deadline and fdinfo's now_ns are what
 * clock_gettime() shows in that namespace, and nothing fires early as seen
 * from there.
 *
 * Each test makes a time namespace with unshare(CLONE_NEWTIME), sets its
 * monotonic and boottime offsets (an hour ahead, or back by all of the
 * uptime but two seconds) and forks a child, which is then in it and does
 * the checks. A deadline taken as host time would fire an hour late, or
 * at once, 200 ms early.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

#define STEP		(200 * MSEC)	/* how far the deadlines are */
#define WAIT_MS		10000		/* how long a child waits for one */
#define LATE_NS		(5 * SEC)	/* how late one may fire here */

FIXTURE(timens) {
	int ok;		/* unshare() and the offsets worked */
	__s64 offset[2];	/* monotonic, boottime: ns */
	int host_fd;	/* a file opened outside the namespace */
};

FIXTURE_VARIANT(timens) {
	clockid_t clk;
	bool ahead;	/* +1 h, or back by all of the uptime but 2 s */
};

FIXTURE_VARIANT_ADD(timens, monotonic_ahead) {
	.clk = CLOCK_MONOTONIC,
	.ahead = true,
};

FIXTURE_VARIANT_ADD(timens, monotonic_behind) {
	.clk = CLOCK_MONOTONIC,
	.ahead = false,
};

FIXTURE_VARIANT_ADD(timens, boottime_ahead) {
	.clk = CLOCK_BOOTTIME,
	.ahead = true,
};

FIXTURE_VARIANT_ADD(timens, boottime_behind) {
	.clk = CLOCK_BOOTTIME,
	.ahead = false,
};

/* An offset in whole seconds for @clk, written as "<clockid> <s> 0". */
static __s64 offset_for(clockid_t clk, bool ahead)
{
	__s64 up = wt_clock_ns(clk) / SEC;

	return ahead ? 3600 : -(up - 2);
}

FIXTURE_SETUP(timens)
{
	char buf[128];
	int fd, n;

	self->ok = 0;
	self->host_fd = -1;
	if (geteuid() != 0)
		SKIP(return, "time namespaces need CAP_SYS_ADMIN");
	/* "Most of the uptime" should be seconds at least. */
	while (wt_clock_ns(CLOCK_MONOTONIC) < 12 * SEC)
		usleep(100000);
	self->host_fd = wt_open();
	if (self->host_fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	if (unshare(CLONE_NEWTIME))
		SKIP(return, "unshare(CLONE_NEWTIME): %s", strerror(errno));
	self->offset[0] = offset_for(CLOCK_MONOTONIC, variant->ahead);
	self->offset[1] = offset_for(CLOCK_BOOTTIME, variant->ahead);
	n = snprintf(buf, sizeof(buf), "%d %lld 0\n%d %lld 0\n",
		     CLOCK_MONOTONIC, (long long)self->offset[0],
		     CLOCK_BOOTTIME, (long long)self->offset[1]);
	fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("timens_offsets: %s", strerror(errno));
	ASSERT_EQ(n, write(fd, buf, n))
		TH_LOG("timens_offsets: %s", strerror(errno));
	close(fd);
	self->offset[0] *= SEC;
	self->offset[1] *= SEC;
	self->ok = 1;
}

FIXTURE_TEARDOWN(timens)
{
	if (self->host_fd >= 0)
		close(self->host_fd);
}

/* Wait for a record; false if none came within WAIT_MS. */
static bool read_one(int fd, struct wt_event *ev)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, WAIT_MS) == 1 && wt_read(fd, ev, 1) == 1;
}

/*
 * In the namespace: fdinfo's now_ns, an absolute and a relative deadline
 * on the namespace's @clk, and a file opened outside, which keeps the
 * host's time. Runs in the child, so it only ASSERTs: a failure ends the
 * child through the harness in a way its parent sees, with the harness of
 * any kernel (6.1's exits non-zero; later ones record it in metadata
 * shared with the parent), where an EXPECT that failed would be lost in
 * the child's copy of 6.1's.
 */
static void in_namespace(struct __test_metadata *_metadata, clockid_t clk,
			 __s64 offset, int host_fd)
{
	__u64 t1, t2, now_ns, d, id, after;
	struct wt_event ev;
	struct wt_query q;
	int fd;

	fd = wt_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wt_config(fd, MSEC, clk, 0, 0));

	t1 = wt_clock_ns(clk);
	now_ns = wt_fdinfo(fd, "now_ns");
	t2 = wt_clock_ns(clk);
	ASSERT_LE(t1, now_ns) TH_LOG("now_ns %.3f s behind", (t1 - now_ns) / 1e9);
	ASSERT_GE(t2, now_ns) TH_LOG("now_ns %.3f s ahead", (now_ns - t2) / 1e9);

	/* Absolute: the deadline as given, fired neither early nor an hour late. */
	d = wt_clock_ns(clk) + STEP;
	ASSERT_EQ(0, wt_add_abs(fd, d, &id));
	ASSERT_EQ(0, wt_query(fd, id, &q));
	ASSERT_EQ(d, q.deadline);
	ASSERT_GE(STEP, q.remaining) TH_LOG("remaining %.3f s", q.remaining / 1e9);
	ASSERT_TRUE(read_one(fd, &ev))
		TH_LOG("a deadline 200 ms away had not fired after %d ms",
		       WAIT_MS);
	after = wt_clock_ns(clk);
	ASSERT_EQ(d, ev.deadline);
	ASSERT_LE(d, after) TH_LOG("read %.3f s early", (d - after) / 1e9);
	ASSERT_LE(d, ev.fired_at);
	ASSERT_GE(after, ev.fired_at)
		TH_LOG("fired_at %.3f s after the read",
		       (ev.fired_at - after) / 1e9);
	ASSERT_GE(d + LATE_NS, ev.fired_at);

	/* Relative: the deadline reported is in the namespace's time. */
	t1 = wt_clock_ns(clk);
	ASSERT_EQ(0, wt_add(fd, STEP, &id));
	t2 = wt_clock_ns(clk);
	ASSERT_EQ(0, wt_query(fd, id, &q));
	ASSERT_LE(t1 + STEP, q.deadline);
	ASSERT_GE(t2 + STEP, q.deadline)
		TH_LOG("QUERY's deadline %.3f s off", ((__s64)(q.deadline - t2 - STEP)) / 1e9);
	ASSERT_TRUE(read_one(fd, &ev));
	after = wt_clock_ns(clk);
	ASSERT_EQ(q.deadline, ev.deadline);
	ASSERT_LE(ev.deadline, after);
	ASSERT_LE(ev.deadline, ev.fired_at);
	ASSERT_GE(after, ev.fired_at);
	close(fd);

	/* A file opened outside keeps the host's time. */
	ASSERT_EQ(0, wt_config(host_fd, MSEC, clk, 0, 0));
	d = wt_clock_ns(clk) - offset + STEP;
	ASSERT_EQ(0, wt_add_abs(host_fd, d, &id));
	ASSERT_TRUE(read_one(host_fd, &ev))
		TH_LOG("a host deadline 200 ms away had not fired after %d ms",
		       WAIT_MS);
	after = wt_clock_ns(clk) - offset;
	ASSERT_EQ(d, ev.deadline);
	ASSERT_LE(d, after);
	ASSERT_LE(d, ev.fired_at);
	ASSERT_GE(after, ev.fired_at);
	now_ns = wt_fdinfo(host_fd, "now_ns");
	ASSERT_LE(after, now_ns);
	ASSERT_GE(wt_clock_ns(clk) - offset, now_ns);
}

TEST_F_TIMEOUT(timens, deadlines_fired_at_and_query_are_in_the_openers_namespace, 120)
{
	int status;
	pid_t pid;

	if (!self->ok)
		return;	/* skipped in the setup, which 6.1 does not stop at */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		in_namespace(_metadata, variant->clk,
			     self->offset[variant->clk == CLOCK_BOOTTIME],
			     self->host_fd);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ksft_print_msg("offsets: monotonic %+lld s, boottime %+lld s\n",
		       (long long)(self->offset[0] / (__s64)SEC),
		       (long long)(self->offset[1] / (__s64)SEC));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child in the namespace failed (status %#x)", status);
}

TEST_HARNESS_MAIN
