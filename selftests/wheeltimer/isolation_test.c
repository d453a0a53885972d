// SPDX-License-Identifier: GPL-2.0
/*
 * What belongs to whom: each open file is a context of its own, whose ids
 * mean nothing to another file; a forked child or a dup()ed descriptor
 * shares the open file and so the context; and closing the last reference
 * frees every timeout it held, which the slab caches show: a file keeps its
 * timeouts in page-sized blocks from the wheeltimer_block cache, and the
 * period and slack of periodic ones in wheeltimer_periods.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

TEST(ids_of_one_file_mean_nothing_in_another)
{
	int a = wt_open(), b = wt_open();
	__u64 ida, idb;
	struct wt_query q;

	if (a < 0 || b < 0)
		SKIP(return, "%s: %m", WT_DEV);
	ASSERT_EQ(0, wt_virtual(a, MSEC));
	ASSERT_EQ(0, wt_virtual(b, MSEC));
	ASSERT_EQ(0, wt_add(a, 5 * MSEC, &ida));
	EXPECT_EQ(-ENOENT, wt_query(b, ida, &q));
	EXPECT_EQ(-ENOENT, wt_cancel(b, ida));
	EXPECT_EQ(-ENOENT, wt_modify(b, ida, 0, MSEC, 0));

	/* Both files count from the same start: equal numbers, two timeouts. */
	ASSERT_EQ(0, wt_add(b, 7 * MSEC, &idb));
	EXPECT_EQ(ida, idb);
	EXPECT_EQ(WT_STATUS_PENDING, wt_cancel(b, idb));
	ASSERT_EQ(0, wt_query(a, ida, &q));
	EXPECT_EQ(5 * MSEC, q.deadline);
	EXPECT_EQ(WT_STATE_PENDING, q.state);

	/* Advancing one file's clock leaves the other's alone. */
	ASSERT_EQ(0, wt_advance(b, 10 * MSEC));
	EXPECT_EQ(0, wt_fdinfo(a, "now_ns"));
	EXPECT_EQ(1, wt_fdinfo(a, "pending"));
	close(a);
	close(b);
}

TEST(a_forked_child_shares_the_context)
{
	struct wt_event ev[2];
	struct wt_query q;
	__u64 id, kept;
	int fd = wt_open(), status;
	pid_t pid;

	if (fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	ASSERT_EQ(0, wt_virtual(fd, MSEC));
	ASSERT_EQ(0, wt_add(fd, 5 * MSEC, &id));
	ASSERT_EQ(0, wt_add(fd, 6 * MSEC, &kept));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u64 child_id;

		/* The child sees the parent's timeouts and acts on them. */
		if (wt_query(fd, id, &q) || q.deadline != 5 * MSEC)
			_exit(1);
		if (wt_cancel(fd, id) != WT_STATUS_PENDING)
			_exit(2);
		if (wt_add_full(fd, 0, 2 * MSEC, 0, 0, 77, &child_id))
			_exit(3);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	/* The parent sees what the child did. */
	EXPECT_EQ(-ENOENT, wt_query(fd, id, &q));
	ASSERT_EQ(2, wt_advance(fd, 10 * MSEC));
	ASSERT_EQ(2, wt_read(fd, ev, 2));
	EXPECT_EQ(77, ev[0].cookie);
	EXPECT_EQ(kept, ev[1].id);
	close(fd);
}

TEST(a_dup_shares_the_context_and_the_last_close_ends_it)
{
	struct wt_query q;
	__u64 id;
	int fd = wt_open(), copy;

	if (fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	ASSERT_EQ(0, wt_virtual(fd, MSEC));
	copy = dup(fd);
	ASSERT_LE(0, copy);
	ASSERT_EQ(0, wt_add(fd, 5 * MSEC, &id));
	close(fd);
	/* The open file lives on through the copy. */
	ASSERT_EQ(0, wt_query(copy, id, &q));
	ASSERT_EQ(1, wt_advance(copy, 5 * MSEC));
	EXPECT_EQ(1, wt_fdinfo(copy, "ready"));
	close(copy);
}

/*
 * Objects in use in one of the module's caches, from the SLUB sysfs
 * directory, which exists under the cache's name even when SLUB merged it
 * into another cache (then the count includes the other cache's objects).
 *
 * The cache is shrunk first: that empties KASAN's quarantine of its
 * objects (on a debug kernel, freed objects wait there) and gives back the
 * per-CPU slabs, whose free objects SLUB would count as in use. What is
 * left is exact to a few slabs.
 */
static long slab_objects(const char *cache)
{
	char path[128], buf[64] = "";
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", cache);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) < 0)
			ksft_print_msg("%s: %m\n", path);
		close(fd);
	}
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/objects", cache);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return strtol(buf, NULL, 10);
}

/* A few slabs' worth of blocks per CPU, free but counted as in use. */
#define SLAB_SLACK	64

/*
 * Add @n timeouts in batches, one every microsecond from @deadline on;
 * their ids go to @ids unless it is NULL.
 */
static void fill(struct __test_metadata *_metadata, int fd, int n,
		 __u64 flags, __u64 deadline, __u64 period, __u64 *ids)
{
	struct wt_op ops[WT_BATCH_MAX];
	int i, j, k;

	for (i = 0; i < n; i += k) {
		k = n - i < WT_BATCH_MAX ? n - i : WT_BATCH_MAX;
		memset(ops, 0, sizeof(ops));
		for (j = 0; j < k; j++) {
			ops[j].op = WT_OP_ADD;
			ops[j].flags = flags;
			ops[j].deadline = deadline + (i + j) * USEC;
			ops[j].period = period;
		}
		ASSERT_EQ(k, wt_batch(fd, ops, k));
		for (j = 0; ids && j < k; j++)
			ids[i + j] = ops[j].id;
	}
}

/* Plain TEST() has no timeout of its own in the 6.1 harness. */
FIXTURE(slab) {};
FIXTURE_SETUP(slab) {}
FIXTURE_TEARDOWN(slab) {}

TEST_F_TIMEOUT(slab, closing_a_file_with_100k_timeouts_frees_them_all, 600)
{
	enum { ONESHOT = 100000, PERIODIC = 10000, DUE = 5000 };
	long b0 = slab_objects("wheeltimer_block");
	long p0 = slab_objects("wheeltimer_periods");
	long b1, p1, b2, p2, blocks, per_block;
	struct pollfd pfd;
	int fd = wt_open();

	if (fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	if (b0 < 0 || p0 < 0)
		SKIP(return, "no /sys/kernel/slab/wheeltimer_*/objects");
	/* Pending far away, periodic, and fired but unread: all of them. */
	fill(_metadata, fd, ONESHOT - DUE, 0, 3600 * SEC, 0, NULL);
	fill(_metadata, fd, PERIODIC, WT_FIXED_RATE, SEC, SEC, NULL);
	fill(_metadata, fd, DUE, 0, 0, 0, NULL);
	pfd.fd = fd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	EXPECT_EQ(ONESHOT + PERIODIC, wt_fdinfo(fd, "live"));

	/* Nothing was freed: the store is exactly as large as it must be. */
	blocks = wt_fdinfo(fd, "timer_blocks");
	per_block = wt_fdinfo(fd, "timers_per_block");
	ASSERT_LT(0, per_block);
	EXPECT_EQ((ONESHOT + PERIODIC + per_block - 1) / per_block, blocks);

	b1 = slab_objects("wheeltimer_block");
	p1 = slab_objects("wheeltimer_periods");
	ksft_print_msg("%ld blocks of %ld timers; in use: blocks %ld -> %ld, periods %ld -> %ld\n",
		       blocks, per_block, b0, b1, p0, p1);
	EXPECT_LE(b0 + blocks - SLAB_SLACK, b1);
	/* The periodic ones were added in a row: a block's array serves many. */
	EXPECT_LE(p0 + PERIODIC / per_block - SLAB_SLACK, p1);
	EXPECT_GE(p0 + PERIODIC / per_block + 2 + SLAB_SLACK, p1);

	close(fd);
	b2 = slab_objects("wheeltimer_block");
	p2 = slab_objects("wheeltimer_periods");
	ksft_print_msg("after close: blocks %ld, periods %ld\n", b2, p2);
	EXPECT_GE(b0 + SLAB_SLACK, b2);
	EXPECT_GE(p0 + SLAB_SLACK, p2);
}

/* Cancel @n ids in batches; returns how many were found. */
static int cancel_all(struct __test_metadata *_metadata, int fd,
		      const __u64 *ids, int n)
{
	struct wt_op ops[WT_BATCH_MAX];
	int i, j, k, found = 0;

	for (i = 0; i < n; i += k) {
		k = n - i < WT_BATCH_MAX ? n - i : WT_BATCH_MAX;
		memset(ops, 0, sizeof(ops));
		for (j = 0; j < k; j++) {
			ops[j].op = WT_OP_CANCEL;
			ops[j].id = ids[i + j];
		}
		found += wt_batch(fd, ops, k);
		for (j = 0; j < k; j++)
			EXPECT_TRUE(ops[j].status == WT_STATUS_PENDING ||
				    ops[j].error == ENOENT);
	}
	return found;
}

TEST_F_TIMEOUT(slab, an_emptied_file_gives_blocks_back_and_old_ids_stay_stale, 600)
{
	enum { N = 20000 };
	static __u64 old[N], cur[N];
	long b0 = slab_objects("wheeltimer_block"), b1, b2;
	long peak, kept, per_block;
	int fd = wt_open();

	if (fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	if (b0 < 0)
		SKIP(return, "no /sys/kernel/slab/wheeltimer_block/objects");
	per_block = wt_fdinfo(fd, "timers_per_block");
	fill(_metadata, fd, N, 0, 3600 * SEC, 0, old);
	peak = wt_fdinfo(fd, "timer_blocks");
	b1 = slab_objects("wheeltimer_block");
	EXPECT_EQ(N, cancel_all(_metadata, fd, old, N));
	EXPECT_EQ(0, wt_fdinfo(fd, "live"));
	kept = wt_fdinfo(fd, "timer_blocks");
	b2 = slab_objects("wheeltimer_block");
	ksft_print_msg("%d timeouts: %ld blocks, %ld kept; in use %ld -> %ld -> %ld\n",
		       N, peak, kept, b0, b1, b2);
	EXPECT_EQ((N + per_block - 1) / per_block, peak);
	/* A few blocks stay, for churn near zero; the rest go back. */
	EXPECT_LT(0, kept);
	EXPECT_GE(2048, kept * per_block);
	EXPECT_LE(b0 + peak - SLAB_SLACK, b1);
	EXPECT_GE(b0 + kept + SLAB_SLACK, b2);

	/* The same slots again, from blocks made anew: no old id is valid. */
	fill(_metadata, fd, N, 0, 3600 * SEC, 0, cur);
	EXPECT_EQ(peak, wt_fdinfo(fd, "timer_blocks"));
	EXPECT_EQ(0, cancel_all(_metadata, fd, old, N));
	EXPECT_EQ(N, wt_fdinfo(fd, "live"));
	EXPECT_EQ(N, cancel_all(_metadata, fd, cur, N));
	close(fd);
}

TEST_F_TIMEOUT(slab, a_process_that_exits_with_timeouts_frees_them, 600)
{
	enum { N = 50000 };
	long t0 = slab_objects("wheeltimer_block"), t1;
	int status;
	pid_t pid;

	if (access(WT_DEV, R_OK))
		SKIP(return, "%s: %m", WT_DEV);
	if (t0 < 0)
		SKIP(return, "no /sys/kernel/slab/wheeltimer_block/objects");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = wt_open();

		fill(_metadata, fd, N, 0, 60 * SEC, 0, NULL);
		_exit(wt_fdinfo(fd, "live") == N ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	t1 = slab_objects("wheeltimer_block");
	ksft_print_msg("blocks in use: %ld before, %ld after the exit\n",
		       t0, t1);
	EXPECT_GE(t0 + SLAB_SLACK, t1);
}

TEST_HARNESS_MAIN
