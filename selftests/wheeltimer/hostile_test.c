// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile userspace: buffers that fault part way, arrays that run into
 * unmapped or read-only memory, signals in the middle of a blocking read,
 * one file exhausting its max_pending, two processes reading one file,
 * the wall clock set back, and memory that stalls a call half way through
 * (userfaultfd). Whatever the caller does wrong, no record is lost or
 * doubled, a call that fails changes nothing, no waiter sleeps while
 * records wait, and a non-blocking read never waits for another's call.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/userfaultfd.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

#define EV	sizeof(struct wt_event)

FIXTURE(hostile) {
	int fd;
	long page;
	char *map;	/* two pages: the first read-write, the second PROT_NONE */
};

FIXTURE_SETUP(hostile)
{
	self->page = sysconf(_SC_PAGESIZE);
	self->map = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (self->map != MAP_FAILED)
		mprotect(self->map + self->page, self->page, PROT_NONE);
	self->fd = wt_open();
}

FIXTURE_TEARDOWN(hostile)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->map != MAP_FAILED)
		munmap(self->map, 2 * self->page);
}

/* @n one-shot timeouts on a virtual clock, all fired; their ids in @ids. */
static void fire_n(struct __test_metadata *_metadata, int fd, unsigned int n,
		   __u64 *ids, __u64 flags, __u64 period)
{
	unsigned int i;

	ASSERT_EQ(0, wt_virtual(fd, USEC));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, wt_add_full(fd, flags, (i + 1) * USEC, period, 0,
					 1000 + i, &ids[i]));
	ASSERT_EQ(n, wt_advance(fd, (n + 1) * USEC));
	ASSERT_EQ(n, wt_fdinfo(fd, "ready"));
}

TEST_F(hostile, read_buffer_faulting_halfway_keeps_the_rest_queued)
{
	enum { N = 10, FIT = 4 };
	struct wt_event ev[N];
	__u64 ids[N];
	char *buf;
	int r, got, i;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	fire_n(_metadata, self->fd, N, ids, 0, 0);
	/* FIT whole records and half of one more before the hole. */
	buf = self->map + self->page - FIT * EV - EV / 2;
	r = read(self->fd, buf, N * EV);
	ASSERT_LT(0, r) TH_LOG("read: %m");
	ASSERT_EQ(0, r % EV);
	got = r / EV;
	/* copy_to_user() may stop short of the hole, never past it. */
	EXPECT_LE(got, FIT);
	EXPECT_LE(1, got);
	memcpy(ev, buf, r);
	EXPECT_EQ(N - got, wt_fdinfo(self->fd, "ready"));
	EXPECT_EQ(got, wt_fdinfo(self->fd, "delivered"));
	/* The rest come next, in firing order, once each. */
	EXPECT_EQ(N - got, wt_read(self->fd, ev + got, N));
	for (i = 0; i < N; i++) {
		EXPECT_EQ(ids[i], ev[i].id);
		EXPECT_EQ(1000 + i, ev[i].cookie);
		EXPECT_TRUE(ev[i].flags & WT_EVENT_FINAL);
	}
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
	EXPECT_EQ(N, wt_fdinfo(self->fd, "delivered"));
}

TEST_F(hostile, periodic_records_not_copied_are_not_rearmed)
{
	enum { N = 6, FIT = 2 };
	struct wt_event ev[N];
	struct wt_query q;
	__u64 ids[N];
	char *buf;
	int r, got, i;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	fire_n(_metadata, self->fd, N, ids, WT_FIXED_RATE, 1000 * USEC);
	buf = self->map + self->page - FIT * EV - 8;
	r = read(self->fd, buf, N * EV);
	ASSERT_LT(0, r);
	got = r / EV;
	EXPECT_LE(got, FIT);
	/* Copied ones go on with their period, the others still wait. */
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, wt_query(self->fd, ids[i], &q));
		EXPECT_EQ(i < got ? WT_STATE_PENDING : WT_STATE_FIRED, q.state)
			TH_LOG("timeout %d", i);
	}
	EXPECT_EQ(N - got, wt_read(self->fd, ev, N));
	for (i = got; i < N; i++)
		EXPECT_EQ(ids[i], ev[i - got].id);
}

TEST_F(hostile, read_into_unmapped_or_readonly_memory_consumes_nothing)
{
	/* NULL, out of the compiler's sight: read(NULL) is what we test. */
	void *null_buf = (void *)(uintptr_t)atoi("0");
	struct wt_event ev[4];
	__u64 ids[4];
	char *ro;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	fire_n(_metadata, self->fd, 4, ids, 0, 0);
	EXPECT_EQ(-1, read(self->fd, self->map + self->page, 4 * EV));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, read(self->fd, null_buf, 4 * EV));
	EXPECT_EQ(EFAULT, errno);
	ro = mmap(NULL, self->page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		  -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-1, read(self->fd, ro, 4 * EV));
	EXPECT_EQ(EFAULT, errno);
	munmap(ro, self->page);
	EXPECT_EQ(4, wt_fdinfo(self->fd, "ready"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "delivered"));
	EXPECT_EQ(4, wt_read(self->fd, ev, 4));
	EXPECT_EQ(ids[0], ev[0].id);
	EXPECT_EQ(ids[3], ev[3].id);
}

/* An array of @n ops whose last one runs @over bytes into the hole. */
static struct wt_op *ops_at_hole(char *map, long page, unsigned int n,
				 size_t over)
{
	struct wt_op *ops = (struct wt_op *)(map + page + over -
					     n * sizeof(*ops));
	unsigned int i;

	for (i = 0; i < n - 1; i++)
		ops[i] = (struct wt_op){ .op = WT_OP_ADD, .deadline = SEC };
	return ops;
}

TEST_F(hostile, batch_crossing_into_unmapped_memory_applies_nothing)
{
	struct wt_batch b = { .count = 8 };
	struct wt_op *ops;
	size_t over;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	for (over = 8; over <= sizeof(*ops); over += 24) {
		ops = ops_at_hole(self->map, self->page, 8, over);
		b.ops = (uintptr_t)ops;
		EXPECT_EQ(-1, ioctl(self->fd, WT_IOC_BATCH, &b));
		EXPECT_EQ(EFAULT, errno);
		/* Nothing applied, nothing written back. */
		EXPECT_EQ(0, ops[0].id);
		EXPECT_EQ(0, ops[0].status);
	}
	/* The whole array unmapped, and the batch struct itself. */
	b.ops = (uintptr_t)(self->map + self->page);
	EXPECT_EQ(-1, ioctl(self->fd, WT_IOC_BATCH, &b));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, WT_IOC_BATCH, self->map + self->page));
	EXPECT_EQ(EFAULT, errno);
	/* The batch struct half in the hole. */
	EXPECT_EQ(-1, ioctl(self->fd, WT_IOC_BATCH,
			    self->map + self->page - 8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, wt_fdinfo(self->fd, "added"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
	/* The file still works. */
	ops = (struct wt_op *)self->map;
	memset(ops, 0, 8 * sizeof(*ops));
	ops[0].op = WT_OP_ADD;
	ops[0].deadline = SEC;
	b.ops = (uintptr_t)ops;
	b.count = 1;
	EXPECT_EQ(1, ioctl(self->fd, WT_IOC_BATCH, &b));
	EXPECT_NE(0, ops[0].id);
	EXPECT_EQ(1, wt_fdinfo(self->fd, "live"));
}

TEST_F(hostile, batch_in_readonly_memory_applies_nothing)
{
	struct wt_batch b = { .count = 4 };
	struct wt_op *ops;
	__u64 id;
	unsigned int i;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	/* A live timeout that a read-only CANCEL must not touch. */
	ASSERT_EQ(0, wt_add(self->fd, SEC, &id));
	ops = (struct wt_op *)self->map;
	memset(ops, 0, 4 * sizeof(*ops));
	for (i = 0; i < 3; i++) {
		ops[i].op = WT_OP_ADD;
		ops[i].deadline = SEC;
	}
	ops[3].op = WT_OP_CANCEL;
	ops[3].id = id;
	ASSERT_EQ(0, mprotect(self->map, self->page, PROT_READ));
	b.ops = (uintptr_t)ops;
	EXPECT_EQ(-1, ioctl(self->fd, WT_IOC_BATCH, &b));
	EXPECT_EQ(EFAULT, errno);
	/* A single op in read-only memory: refused before it is applied. */
	EXPECT_EQ(-1, ioctl(self->fd, WT_IOC_ADD, &ops[0]));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, WT_IOC_CANCEL, &ops[3]));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, mprotect(self->map, self->page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(1, wt_fdinfo(self->fd, "added"));
	EXPECT_EQ(1, wt_fdinfo(self->fd, "live"));
	EXPECT_EQ(WT_STATUS_PENDING, wt_cancel(self->fd, id));
}

/*
 * A batch that fails changes nothing, in the file or in the array: the
 * fields its answers would write keep what they held.
 */
TEST_F(hostile, a_failed_batch_leaves_the_array_as_it_was)
{
	enum { N = 8 };
	struct wt_batch b = { .count = N };
	struct wt_op *ops, saved[N - 1];
	unsigned int i;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	/* The last op's status and error are in the hole. */
	ops = ops_at_hole(self->map, self->page, N, sizeof(*ops) - 16);
	for (i = 0; i < N - 1; i++) {
		ops[i].id = 0x1d00 + i;
		ops[i].status = 0x5a5a5a5a;
		ops[i].error = 0xa5a5a5a5;
	}
	memcpy(saved, ops, sizeof(saved));
	b.ops = (uintptr_t)ops;
	EXPECT_EQ(-1, ioctl(self->fd, WT_IOC_BATCH, &b));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, memcmp(saved, ops, sizeof(saved)))
		TH_LOG("op 0: id %#llx status %#x error %#x",
		       (unsigned long long)ops[0].id, ops[0].status,
		       ops[0].error);
	EXPECT_EQ(0, wt_fdinfo(self->fd, "added"));
}

TEST_F(hostile, every_ioctl_with_a_bad_pointer_is_efault)
{
	static const unsigned long cmds[] = {
		WT_IOC_API, WT_IOC_SET_CONFIG, WT_IOC_GET_CONFIG, WT_IOC_ADD,
		WT_IOC_CANCEL, WT_IOC_MODIFY, WT_IOC_BATCH, WT_IOC_ADVANCE,
		WT_IOC_SET_EVENTFD, WT_IOC_QUERY,
	};
	void *bad[] = { NULL, self->map + self->page, (void *)-4096L,
			self->map + self->page - 4 };
	unsigned int c, b;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	ASSERT_EQ(0, wt_virtual(self->fd, USEC));
	for (c = 0; c < ARRAY_SIZE(cmds); c++) {
		for (b = 0; b < ARRAY_SIZE(bad); b++) {
			EXPECT_EQ(-1, ioctl(self->fd, cmds[c], bad[b]));
			EXPECT_EQ(EFAULT, errno) TH_LOG("cmd %#lx ptr %p",
							cmds[c], bad[b]);
		}
	}
	EXPECT_EQ(0, wt_fdinfo(self->fd, "added"));
	EXPECT_TRUE(wt_fdinfo_has(self->fd, "virtual:\t1"));
}

static atomic_int sigs;

static void on_signal(int sig)
{
	atomic_fetch_add(&sigs, 1);
}

struct blocked {
	int fd;
	int ret, err;
	struct wt_event ev;
	atomic_bool in_read;
};

static void *blocked_reader(void *arg)
{
	struct blocked *b = arg;

	atomic_store(&b->in_read, true);
	b->ret = read(b->fd, &b->ev, sizeof(b->ev));
	b->err = errno;
	return NULL;
}

/* Wait until @t sleeps (in read()), judged by /proc's state letter. */
static void wait_sleeping(pid_t tid)
{
	char path[64], buf[512], *p;
	int fd, n, tries;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	for (tries = 0; tries < 5000; tries++) {
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = 0;
			p = strrchr(buf, ')');
			if (p && p[2] == 'S')
				return;
		}
		usleep(1000);
	}
}

static pid_t gettid_of(pthread_t t, atomic_int *slot)
{
	while (!atomic_load(slot))
		usleep(100);
	return atomic_load(slot);
}

struct blocked_tid {
	struct blocked b;
	atomic_int tid;
};

static void *blocked_reader_tid(void *arg)
{
	struct blocked_tid *bt = arg;

	atomic_store(&bt->tid, gettid());
	return blocked_reader(&bt->b);
}

TEST_F(hostile, signal_interrupts_a_blocking_read_with_eintr)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct blocked_tid bt = { .b.fd = -1 };
	pthread_t t;
	__u64 id;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));	/* no SA_RESTART */
	bt.b.fd = self->fd;
	/* A timeout far away: the read has to block. */
	ASSERT_EQ(0, wt_add(self->fd, 3600 * SEC, &id));
	ASSERT_EQ(0, pthread_create(&t, NULL, blocked_reader_tid, &bt));
	wait_sleeping(gettid_of(t, &bt.tid));
	ASSERT_EQ(0, pthread_kill(t, SIGUSR1));
	pthread_join(t, NULL);
	EXPECT_EQ(-1, bt.b.ret);
	EXPECT_EQ(EINTR, bt.b.err);
	EXPECT_LE(1, atomic_load(&sigs));
	/* Nothing lost: the timeout is still there and fires later. */
	EXPECT_EQ(0, wt_modify(self->fd, id, 0, 0, 0) < 0);
	EXPECT_EQ(1, wt_read(self->fd, &bt.b.ev, 1));
	EXPECT_EQ(id, bt.b.ev.id);
}

TEST_F(hostile, signal_with_sa_restart_restarts_the_read)
{
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_RESTART };
	struct blocked_tid bt = {};
	pthread_t t;
	int before;
	__u64 id;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	ASSERT_EQ(0, sigaction(SIGUSR2, &sa, NULL));
	bt.b.fd = self->fd;
	ASSERT_EQ(0, pthread_create(&t, NULL, blocked_reader_tid, &bt));
	wait_sleeping(gettid_of(t, &bt.tid));
	before = atomic_load(&sigs);
	ASSERT_EQ(0, pthread_kill(t, SIGUSR2));
	while (atomic_load(&sigs) == before)
		usleep(1000);
	/* Restarted, asleep again: a timeout now wakes it with a record. */
	wait_sleeping(bt.tid);
	ASSERT_EQ(0, wt_add(self->fd, MSEC, &id));
	pthread_join(t, NULL);
	EXPECT_EQ(EV, bt.b.ret) TH_LOG("read: %s", strerror(bt.b.err));
	EXPECT_EQ(id, bt.b.ev.id);
}

TEST_F(hostile, sigkill_in_a_blocking_read_leaves_the_file_usable)
{
	struct wt_event ev;
	pid_t pid;
	int status;
	__u64 id;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		read(self->fd, &ev, sizeof(ev));
		_exit(1);
	}
	/* The child blocks in read() on the shared file, then dies. */
	usleep(200000);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(0, wt_add(self->fd, 0, &id));
	EXPECT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(id, ev.id);
}

TEST_F(hostile, max_pending_exhaustion_of_one_file_spares_another)
{
	enum { MAX = 1000 };
	struct wt_op ops[16];
	struct wt_event ev;
	struct wt_config c;
	unsigned int i;
	int other, r;
	__u64 id;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	ASSERT_EQ(0, wt_config(self->fd, WT_RESOLUTION_DEFAULT, CLOCK_MONOTONIC,
			       WT_CONFIG_VIRTUAL, MAX));
	for (i = 0; i < MAX; i++)
		ASSERT_EQ(0, wt_add(self->fd, (i % 7) * MSEC, NULL));
	EXPECT_EQ(-ENOSPC, wt_add(self->fd, 0, &id));
	EXPECT_EQ(0, id);
	EXPECT_EQ(-ENOSPC, wt_add_full(self->fd, WT_FIXED_RATE, 0, MSEC, 0, 0,
				       NULL));
	/* A batch fails op by op, and says so. */
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 16; i++)
		ops[i].op = WT_OP_ADD;
	EXPECT_EQ(0, wt_batch(self->fd, ops, 16));
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(ENOSPC, ops[i].error);
		EXPECT_EQ(0, ops[i].status);
	}
	EXPECT_EQ(MAX, wt_fdinfo(self->fd, "live"));
	EXPECT_EQ(MAX, wt_fdinfo(self->fd, "added"));

	/* Another file is not affected, up to its own limit. */
	other = wt_open();
	ASSERT_LE(0, other);
	ASSERT_EQ(0, wt_get_config(other, &c));
	EXPECT_LT(MAX, c.max_pending);
	for (i = 0; i < 2 * MAX; i++)
		ASSERT_EQ(0, wt_add(other, SEC, NULL));
	EXPECT_EQ(2 * MAX, wt_fdinfo(other, "live"));
	close(other);

	/* Fired but unread still counts; reading one frees a place. */
	EXPECT_LT(0, wt_advance(self->fd, 10 * MSEC));
	EXPECT_EQ(-ENOSPC, wt_add(self->fd, 0, NULL));
	EXPECT_EQ(1, wt_read(self->fd, &ev, 1));
	r = wt_add(self->fd, 0, &id);
	EXPECT_EQ(0, r);
	EXPECT_EQ(-ENOSPC, wt_add(self->fd, 0, NULL));
	EXPECT_EQ(WT_STATUS_PENDING, wt_cancel(self->fd, id));
	EXPECT_EQ(0, wt_add(self->fd, 0, NULL));
}

TEST_F(hostile, two_processes_reading_one_file_get_each_record_once)
{
	enum { N = 2000 };
	unsigned char *seen;
	struct wt_op ops[100];
	struct wt_event ev[32];
	int pipefd[2], i, n, status, dup = 0, total = 0;
	pid_t pid;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	seen = mmap(NULL, N + 1, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, seen);
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, wt_virtual(self->fd, USEC));
	for (i = 0; i < N; i += 100) {
		memset(ops, 0, sizeof(ops));
		for (n = 0; n < 100; n++) {
			ops[n].op = WT_OP_ADD;
			ops[n].deadline = (i + n) * USEC;
		}
		ASSERT_EQ(100, wt_batch(self->fd, ops, 100));
	}
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	pid = fork();
	ASSERT_LE(0, pid);
	/* Both read while the parent's clock moves: the file is shared. */
	for (;;) {
		if (pid) {
			wt_advance(self->fd, 10 * USEC);
			/* Give the child its chance at what just fired. */
			usleep(200);
		}
		n = wt_read(self->fd, ev, 1 + (total % 32));
		if (n == -EAGAIN) {
			if (wt_fdinfo(self->fd, "live") == 0)
				break;
			continue;
		}
		if (n < 0)
			break;
		for (i = 0; i < n; i++) {
			__u64 idx = ev[i].id & 0xffffffff;

			if (idx > N || __atomic_fetch_add(&seen[idx], 1,
							  __ATOMIC_SEQ_CST))
				dup++;
		}
		total += n;
	}
	if (pid == 0) {
		if (write(pipefd[1], &total, sizeof(total)) < 0)
			_exit(2);
		_exit(dup ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(sizeof(n), read(pipefd[0], &n, sizeof(n)));
	ksft_print_msg("parent read %d, child read %d\n", total, n);
	EXPECT_EQ(0, dup);
	EXPECT_EQ(N, total + n);
	EXPECT_EQ(N, wt_fdinfo(self->fd, "delivered"));
	munmap(seen, N + 1);
}

/* The wall clock as it would read had nobody set it since @real0, @mono0. */
static void restore_wall_clock(__u64 real0, __u64 mono0)
{
	__u64 real = real0 + (wt_clock_ns(CLOCK_MONOTONIC) - mono0);
	struct timespec ts = { real / SEC, real % SEC };

	clock_settime(CLOCK_REALTIME, &ts);
}

static int shift_wall_clock(__s64 delta)
{
	__u64 real = wt_clock_ns(CLOCK_REALTIME) + delta;
	struct timespec ts = { real / SEC, real % SEC };

	return clock_settime(CLOCK_REALTIME, &ts);
}

/*
 * Whoever sets the wall clock (root, NTP) is hostile to a CLOCK_REALTIME
 * file: set back, nothing may fire before the wall clock reaches it, even
 * a timeout added after the step, whose tick the wheel has already passed.
 */
TEST_F_TIMEOUT(hostile, wall_clock_set_back_never_fires_early, 120)
{
	struct pollfd p = { .events = POLLIN };
	__u64 real0, mono0, id1, id2, now;
	struct wt_event ev;
	int r;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_NE(MAP_FAILED, self->map);
	if (geteuid() != 0)
		SKIP(return, "setting the clock needs root");
	p.fd = self->fd;
	ASSERT_EQ(0, wt_config(self->fd, 100 * USEC, CLOCK_REALTIME, 0, 0));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	real0 = wt_clock_ns(CLOCK_REALTIME);
	mono0 = wt_clock_ns(CLOCK_MONOTONIC);

	/* One fires and is read: the wheel's clock has moved on. */
	ASSERT_EQ(0, wt_add(self->fd, MSEC, &id1));
	ASSERT_EQ(1, poll(&p, 1, 10000));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	/* One pending when the clock goes back 10 s. */
	ASSERT_EQ(0, wt_add(self->fd, 300 * MSEC, &id1));
	if (shift_wall_clock(-10 * (__s64)SEC))
		SKIP(return, "clock_settime: %s", strerror(errno));
	/* One added after the step, 200 ms from the new reading. */
	r = wt_add(self->fd, 200 * MSEC, &id2);
	EXPECT_EQ(0, r);

	/* 600 ms later by the monotonic clock, only the second may be due. */
	usleep(600000);
	while (poll(&p, 1, 5000) == 1 && wt_read(self->fd, &ev, 1) == 1) {
		now = wt_clock_ns(CLOCK_REALTIME);
		EXPECT_EQ(id2, ev.id);
		EXPECT_LE(ev.deadline, ev.fired_at);
		EXPECT_LE(ev.deadline, now)
			TH_LOG("read %llu ns early", ev.deadline - now);
		if (ev.id == id2)
			break;
	}
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, id2));
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, &ev, 1));

	/* Forward again: the first comes due at once, not early either. */
	restore_wall_clock(real0, mono0);
	ASSERT_EQ(1, poll(&p, 1, 10000));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(id1, ev.id);
	EXPECT_LE(ev.deadline, ev.fired_at);
	EXPECT_LE(ev.deadline, wt_clock_ns(CLOCK_REALTIME));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
	ksft_print_msg("rewinds after the step: %llu\n",
		       (unsigned long long)wt_fdinfo(self->fd, "rewinds"));
}

/*
 * Set back, the wall clock is behind the wheel's own clock: a deadline
 * already past on the new wall clock is due at once, not when the wall
 * clock catches up with where the wheel was.
 */
TEST_F_TIMEOUT(hostile, wall_clock_set_back_a_past_deadline_fires_at_once, 120)
{
	struct pollfd p = { .events = POLLIN };
	__u64 real0, mono0, d, id, t0, waited;
	struct wt_event ev;
	int ready, n = 0, shifted;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	if (geteuid() != 0)
		SKIP(return, "setting the clock needs root");
	p.fd = self->fd;
	ASSERT_EQ(0, wt_config(self->fd, MSEC, CLOCK_REALTIME, 0, 0));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	real0 = wt_clock_ns(CLOCK_REALTIME);
	mono0 = wt_clock_ns(CLOCK_MONOTONIC);

	shifted = shift_wall_clock(-10 * (__s64)SEC);
	if (shifted)
		SKIP(return, "clock_settime: %s", strerror(errno));
	/* Until the clock is put back, nothing may end the test early. */
	d = wt_clock_ns(CLOCK_REALTIME) - SEC;
	t0 = wt_clock_ns(CLOCK_MONOTONIC);
	id = 0;
	if (!wt_add_abs(self->fd, d, &id)) {
		ready = poll(&p, 1, 2000);
		waited = wt_clock_ns(CLOCK_MONOTONIC) - t0;
		if (ready == 1)
			n = wt_read(self->fd, &ev, 1);
	} else {
		ready = -1;
		waited = 0;
	}
	restore_wall_clock(real0, mono0);

	ASSERT_NE(0, id) TH_LOG("the add failed");
	ksft_print_msg("a deadline 1 s past on a wall clock set back 10 s: %s after %.3f s\n",
		       ready == 1 ? "readable" : "not readable", waited / 1e9);
	EXPECT_EQ(1, ready);
	if (ready == 1) {
		ASSERT_EQ(1, n);
		EXPECT_EQ(id, ev.id);
		EXPECT_EQ(d, ev.deadline);
		EXPECT_LE(ev.deadline, ev.fired_at);
	}
}

/* ----------------------------------------------------- userfaultfd */

/*
 * A userfaultfd watching one page for missing-page faults, so that a
 * kernel access to that page stalls until the test resolves it: the call
 * making it is held in mid-flight, with whatever it holds.
 */
struct stall {
	int uffd;
	long page;
	char *map;	/* two pages: the first present, the second watched */
};

/* 0, or a reason to skip in @why. */
static int stall_init(struct stall *st, long page, const char **why)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	st->page = page;
	st->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (st->uffd < 0) {
		*why = "userfaultfd() is not available";
		return -1;
	}
	if (ioctl(st->uffd, UFFDIO_API, &api)) {
		*why = "UFFDIO_API failed";
		return -1;
	}
	st->map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->map == MAP_FAILED) {
		*why = "mmap failed";
		return -1;
	}
	memset(st->map, 0, page);
	reg.range.start = (uintptr_t)st->map + page;
	reg.range.len = page;
	if (ioctl(st->uffd, UFFDIO_REGISTER, &reg)) {
		*why = "UFFDIO_REGISTER failed";
		return -1;
	}
	return 0;
}

static void stall_fini(struct stall *st)
{
	if (st->uffd >= 0)
		close(st->uffd);	/* wakes anything still stalled */
	if (st->map && st->map != MAP_FAILED)
		munmap(st->map, 2 * st->page);
}

/* Whether something stalled on the watched page within @ms. */
static bool stall_wait(struct stall *st, int ms)
{
	struct pollfd p = { .fd = st->uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&p, 1, ms) != 1)
		return false;
	if (read(st->uffd, &msg, sizeof(msg)) != sizeof(msg))
		return false;
	return msg.event == UFFD_EVENT_PAGEFAULT &&
	       msg.arg.pagefault.address >= (uintptr_t)st->map + st->page;
}

/* Let the stalled access go on: with a page of zeros. */
static int stall_resolve(struct stall *st)
{
	struct uffdio_zeropage z = {
		.range = { (uintptr_t)st->map + st->page, st->page },
	};

	return ioctl(st->uffd, UFFDIO_ZEROPAGE, &z);
}

/* Make the stalled access fail: the page becomes read-only, then wake it. */
static int stall_fail_write(struct stall *st)
{
	struct uffdio_range r = { (uintptr_t)st->map + st->page, st->page };

	if (mprotect(st->map + st->page, st->page, PROT_READ))
		return -1;
	return ioctl(st->uffd, UFFDIO_WAKE, &r);
}

struct racer {
	int fd;
	void *buf;
	size_t len;
	ssize_t ret;
	int err;
	atomic_bool done;
	atomic_int tid;
};

static void *racer_read(void *arg)
{
	struct racer *r = arg;

	atomic_store(&r->tid, gettid());
	r->ret = read(r->fd, r->buf, r->len);
	r->err = errno;
	atomic_store(&r->done, true);
	return NULL;
}

static void *racer_batch(void *arg)
{
	struct racer *r = arg;
	struct wt_batch b = { .ops = (uintptr_t)r->buf, .count = 1 };

	atomic_store(&r->tid, gettid());
	r->ret = ioctl(r->fd, WT_IOC_BATCH, &b);
	r->err = errno;
	atomic_store(&r->done, true);
	return NULL;
}

/* Whether @r finished within @ms. */
static bool racer_wait(struct racer *r, int ms)
{
	int waited;

	for (waited = 0; waited < ms; waited += 5) {
		if (atomic_load(&r->done))
			return true;
		usleep(5000);
	}
	return atomic_load(&r->done);
}

struct poller {
	int ep;
	int n;
	struct epoll_event ev;
	__u64 took_ns;
	atomic_int tid;
};

static void *poller_wait(void *arg)
{
	struct poller *p = arg;
	__u64 t0 = wt_clock_ns(CLOCK_MONOTONIC);

	atomic_store(&p->tid, gettid());
	p->n = epoll_wait(p->ep, &p->ev, 1, 10000);
	p->took_ns = wt_clock_ns(CLOCK_MONOTONIC) - t0;
	return NULL;
}

/*
 * Reader A takes both ready records and stalls copying the second one
 * out; poller C then sleeps in a level-triggered epoll_wait. A's copy
 * fails: the second record goes back on the ready list, and C must be
 * woken for it.
 */
TEST_F_TIMEOUT(hostile, a_read_faulting_part_way_wakes_a_poller_for_the_rest, 120)
{
	struct epoll_event e = { .events = EPOLLIN };
	struct poller c = { .ep = -1 };
	struct racer a = { .fd = -1 };
	struct stall st = { .uffd = -1 };
	struct wt_event ev[2];
	const char *why = "";
	pthread_t ta, tc;
	bool stalled;
	__u64 ids[2];

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	if (stall_init(&st, self->page, &why)) {
		stall_fini(&st);
		SKIP(return, "%s", why);
	}
	c.ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, c.ep);
	ASSERT_EQ(0, epoll_ctl(c.ep, EPOLL_CTL_ADD, self->fd, &e));
	fire_n(_metadata, self->fd, 2, ids, 0, 0);

	/* The first record ends the present page, the second is on the watched one. */
	a.fd = self->fd;
	a.buf = st.map + st.page - EV;
	a.len = 2 * EV;
	ASSERT_EQ(0, pthread_create(&ta, NULL, racer_read, &a));
	stalled = stall_wait(&st, 10000);
	EXPECT_TRUE(stalled) TH_LOG("the read never touched the watched page");
	if (stalled) {
		ASSERT_EQ(0, pthread_create(&tc, NULL, poller_wait, &c));
		wait_sleeping(gettid_of(tc, &c.tid));
		ASSERT_EQ(0, stall_fail_write(&st));
		pthread_join(tc, NULL);
		ksft_print_msg("epoll_wait returned %d after %.3f s\n", c.n,
			       c.took_ns / 1e9);
		EXPECT_EQ(1, c.n) TH_LOG("the poller slept while a record waited");
		EXPECT_TRUE(c.ev.events & EPOLLIN);
	}
	stall_fini(&st);
	pthread_join(ta, NULL);
	/* A got the first record, the second waits, and was announced. */
	EXPECT_EQ(EV, a.ret) TH_LOG("read: %zd, %s", a.ret, strerror(a.err));
	EXPECT_EQ(1, wt_read(self->fd, ev, 2));
	EXPECT_EQ(ids[1], ev[0].id);
	EXPECT_EQ(2, wt_fdinfo(self->fd, "delivered"));
	close(c.ep);
}

/*
 * Thread 1 holds the file busy in a call stalled on the watched page;
 * thread 2's O_NONBLOCK read must return at once, with records or EAGAIN,
 * not after the stall ends.
 */
static void nonblocking_read_during(struct __test_metadata *_metadata,
				    int fd, struct stall *st,
				    struct racer *busy, bool batch,
				    struct racer *out)
{
	struct racer r = { .fd = fd, .buf = out->buf, .len = EV };
	pthread_t t1, t2;
	bool stalled, quick;

	ASSERT_EQ(0, pthread_create(&t1, NULL, batch ? racer_batch : racer_read,
				    busy));
	stalled = stall_wait(st, 10000);
	EXPECT_TRUE(stalled) TH_LOG("the call never touched the watched page");
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, pthread_create(&t2, NULL, racer_read, &r));
	/* Ten seconds of stall, then it goes on. */
	quick = racer_wait(&r, 10000);
	ASSERT_EQ(0, stall_resolve(st));
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	ksft_print_msg("the non-blocking read %s the stalled %s: %zd (%s)\n",
		       quick ? "returned during" : "waited for",
		       batch ? "batch" : "read", r.ret,
		       r.ret < 0 ? strerror(r.err) : "bytes");
	EXPECT_TRUE(stalled && quick)
		TH_LOG("the O_NONBLOCK read slept until the stall ended");
	EXPECT_TRUE(r.ret == EV || (r.ret < 0 && r.err == EAGAIN));
	out->ret = r.ret;
	out->err = r.err;
}

TEST_F_TIMEOUT(hostile, a_nonblocking_read_never_waits_for_a_stalled_batch, 120)
{
	struct racer busy = { .fd = -1 }, nb = { .fd = -1 };
	struct stall st = { .uffd = -1 };
	const char *why = "";
	struct wt_event ev;
	__u64 ids[1];

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	if (stall_init(&st, self->page, &why)) {
		stall_fini(&st);
		SKIP(return, "%s", why);
	}
	fire_n(_metadata, self->fd, 1, ids, 0, 0);
	/* A batch of one op, on the watched page: read in mid-call. */
	busy.fd = self->fd;
	busy.buf = st.map + st.page;
	nb.buf = &ev;
	nonblocking_read_during(_metadata, self->fd, &st, &busy, true, &nb);
	stall_fini(&st);
	/* The zeroed op was refused; the record is read once. */
	EXPECT_EQ(0, busy.ret) TH_LOG("batch: %zd, %s", busy.ret,
				      strerror(busy.err));
	EXPECT_EQ(1, wt_fdinfo(self->fd, "delivered") +
		     wt_fdinfo(self->fd, "ready"));
	EXPECT_EQ(1, wt_fdinfo(self->fd, "live") + wt_fdinfo(self->fd, "delivered"));
}

TEST_F_TIMEOUT(hostile, a_nonblocking_read_never_waits_for_a_stalled_read, 120)
{
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	struct racer busy = { .fd = -1 }, nb = { .fd = -1 };
	struct stall st = { .uffd = -1 };
	struct wt_event ev, rest[3];
	const char *why = "";
	__u64 ids[3], count = 0;
	int n;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	if (stall_init(&st, self->page, &why)) {
		stall_fini(&st);
		SKIP(return, "%s", why);
	}
	fire_n(_metadata, self->fd, 3, ids, 0, 0);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, wt_set_eventfd(self->fd, efd));
	/* Records were waiting: it was signalled once. */
	ASSERT_EQ(sizeof(count), read(efd, &count, sizeof(count)));
	/* A read of two records, the second landing on the watched page. */
	busy.fd = self->fd;
	busy.buf = st.map + st.page - EV;
	busy.len = 2 * EV;
	nb.buf = &ev;
	nonblocking_read_during(_metadata, self->fd, &st, &busy, false, &nb);
	stall_fini(&st);
	/* Turned away while a record waited: the end of the busy call says so. */
	if (nb.ret < 0 && nb.err == EAGAIN) {
		count = 0;
		EXPECT_EQ(sizeof(count), read(efd, &count, sizeof(count)));
		EXPECT_EQ(1, count);
	}
	close(efd);
	/* Every record once: two by the stalled read, one by the other or now. */
	EXPECT_EQ(2 * EV, busy.ret) TH_LOG("read: %zd, %s", busy.ret,
					   strerror(busy.err));
	n = wt_read(self->fd, rest, 3);
	EXPECT_TRUE(n == 1 || n == -EAGAIN);
	EXPECT_EQ(3, wt_fdinfo(self->fd, "delivered"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
}

/*
 * A file another call keeps busy (here a read() stalled in a page fault,
 * holding the file) is not readable, even with records queued, since a
 * non-blocking read() would be turned away: a level-triggered epoll loop
 * sleeps instead of going round, and is woken when the file is free.
 */
TEST_F_TIMEOUT(hostile, a_busy_file_is_not_readable_until_a_read_can_progress, 120)
{
	struct epoll_event e = { .events = EPOLLIN };
	struct racer a = { .fd = -1 };
	struct stall st = { .uffd = -1 };
	unsigned int rounds = 0, wasted = 0;
	struct wt_event ev;
	const char *why = "";
	__u64 ids[3], end;
	pthread_t ta;
	bool stalled;
	int ep;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	if (stall_init(&st, self->page, &why)) {
		stall_fini(&st);
		SKIP(return, "%s", why);
	}
	fire_n(_metadata, self->fd, 3, ids, 0, 0);
	a.fd = self->fd;
	a.buf = st.map + st.page - EV;
	a.len = 2 * EV;
	ASSERT_EQ(0, pthread_create(&ta, NULL, racer_read, &a));
	stalled = stall_wait(&st, 10000);
	EXPECT_TRUE(stalled) TH_LOG("the read never touched the watched page");
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &e));
	/* A fifth of a second of stall, looked at as an event loop would. */
	end = wt_clock_ns(CLOCK_MONOTONIC) + 200 * MSEC;
	while (wt_clock_ns(CLOCK_MONOTONIC) < end) {
		rounds++;
		if (epoll_wait(ep, &e, 1, 20) != 1)
			continue;
		if (read(self->fd, &ev, EV) < 0 && errno == EAGAIN)
			wasted++;
	}
	ASSERT_EQ(0, stall_resolve(&st));
	pthread_join(ta, NULL);
	stall_fini(&st);
	ksft_print_msg("%u rounds during the stall, %u readable then EAGAIN\n",
		       rounds, wasted);
	EXPECT_LE(wasted, 2) TH_LOG("the loop spun while the file was busy");
	EXPECT_EQ(2 * EV, a.ret);
	/* Free again: readable, and the third record reads. */
	EXPECT_EQ(1, epoll_wait(ep, &e, 1, 10000));
	EXPECT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(ids[2], ev.id);
	close(ep);
}

/*
 * Timeouts for a long ADVANCE: @n of them, @apart ns apart from @from (all
 * at @from with 0: an advance then cascades them all, level by level,
 * before the first fires).
 */
static void add_far(struct __test_metadata *_metadata, int fd, unsigned int n,
		    __u64 from, __u64 apart)
{
	static struct wt_op ops[WT_BATCH_MAX];
	unsigned int i, k, m;

	for (k = 0; k < n; k += m) {
		m = n - k < WT_BATCH_MAX ? n - k : WT_BATCH_MAX;
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < m; i++) {
			ops[i].op = WT_OP_ADD;
			ops[i].flags = WT_ABSTIME;
			ops[i].deadline = from + (__u64)(k + i) * apart;
			ops[i].cookie = k + i;
		}
		ASSERT_EQ(m, wt_batch(fd, ops, m));
	}
}

struct advancer {
	int fd;
	__u64 step;
	__s64 expired;
	__u64 took_ns;
	atomic_bool done;
};

static void *advancer_run(void *arg)
{
	struct advancer *a = arg;
	__u64 t0 = wt_clock_ns(CLOCK_MONOTONIC);

	a->expired = wt_advance(a->fd, a->step);
	a->took_ns = wt_clock_ns(CLOCK_MONOTONIC) - t0;
	atomic_store(&a->done, true);
	return NULL;
}

#define FAR	200000

/* The same, with the file busy in a long ADVANCE in another thread. */
TEST_F_TIMEOUT(hostile, a_long_advance_does_not_make_an_event_loop_spin, 300)
{
	struct epoll_event e = { .events = EPOLLIN };
	struct advancer a = { .fd = -1 };
	unsigned int rounds = 0, wasted = 0;
	struct wt_event ev;
	pthread_t ta;
	int ep;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	/* More records than the loop can read before the advance starts. */
	ASSERT_EQ(0, wt_virtual(self->fd, USEC));
	add_far(_metadata, self->fd, 20000, SEC, USEC);
	ASSERT_EQ(20000, wt_advance(self->fd, 2 * SEC));
	add_far(_metadata, self->fd, FAR, 10 * SEC, 500 * USEC);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &e));
	a.fd = self->fd;
	a.step = 200 * SEC;
	ASSERT_EQ(0, pthread_create(&ta, NULL, advancer_run, &a));
	while (!atomic_load(&a.done)) {
		rounds++;
		if (epoll_wait(ep, &e, 1, 50) != 1)
			continue;
		if (read(self->fd, &ev, EV) < 0 && errno == EAGAIN)
			wasted++;
	}
	pthread_join(ta, NULL);
	ksft_print_msg("advance of %d timeouts took %.3f s: %u rounds, %u readable then EAGAIN\n",
		       FAR, a.took_ns / 1e9, rounds, wasted);
	EXPECT_EQ(FAR, a.expired);
	EXPECT_LE(wasted, 5) TH_LOG("the loop spun while the file was busy");
	close(ep);
}

/*
 * The eventfd counts what the uapi says: a poll() turned away by a busy
 * file adds nothing to it (pollers are woken through the file); only the
 * ADVANCE that queued records does.
 */
TEST_F_TIMEOUT(hostile, a_poll_turned_away_adds_nothing_to_the_eventfd, 300)
{
	struct pollfd p = { .fd = -1, .events = POLLIN };
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	struct advancer a = { .fd = -1 };
	unsigned int polls = 0;
	__u64 count = 0;
	pthread_t ta;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, wt_virtual(self->fd, USEC));
	ASSERT_EQ(0, wt_set_eventfd(self->fd, efd));
	/* Long before the first record: polls find nothing queued. */
	add_far(_metadata, self->fd, FAR, SEC, 0);
	p.fd = self->fd;
	a.fd = self->fd;
	a.step = 200 * SEC;
	ASSERT_EQ(0, pthread_create(&ta, NULL, advancer_run, &a));
	while (!atomic_load(&a.done)) {
		poll(&p, 1, 0);
		polls++;
	}
	pthread_join(ta, NULL);
	ksft_print_msg("%u polls during an advance of %.3f s\n", polls,
		       a.took_ns / 1e9);
	EXPECT_EQ(FAR, a.expired);
	ASSERT_EQ(sizeof(count), read(efd, &count, sizeof(count)));
	EXPECT_EQ(1, count);
	close(efd);
}

/* ------------------------------------------- userfaultfd write-protect */

struct wp_watch {
	int uffd;
	char *base;		/* the ops array */
	unsigned int n;		/* its length */
	atomic_bool stop;
	unsigned int faults;
	unsigned int bad;	/* writes to a field no answer writes */
	unsigned long bad_off;
};

/* Whether the kernel writes byte @off of an ADD op's answer. */
static bool answer_field(unsigned long off)
{
	return (off >= offsetof(struct wt_op, id) &&
		off < offsetof(struct wt_op, id) + 8) ||
	       off >= offsetof(struct wt_op, status);
}

static void *wp_handler(void *arg)
{
	struct wp_watch *w = arg;
	struct pollfd p = { .fd = w->uffd, .events = POLLIN };
	struct uffdio_writeprotect wp = { 0 };
	unsigned long addr, off;
	long page = sysconf(_SC_PAGESIZE);
	struct uffd_msg msg;

	while (!atomic_load(&w->stop)) {
		if (poll(&p, 1, 50) != 1)
			continue;
		if (read(w->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		addr = msg.arg.pagefault.address;
		w->faults++;
		off = (addr - (unsigned long)w->base) % sizeof(struct wt_op);
		if (addr < (unsigned long)w->base ||
		    addr >= (unsigned long)w->base + w->n * sizeof(struct wt_op) ||
		    !answer_field(off)) {
			w->bad++;
			w->bad_off = off;
		}
		/* Let this page be written from now on, and wake the writer. */
		wp.range.start = addr & ~(page - 1);
		wp.range.len = page;
		wp.mode = 0;
		ioctl(w->uffd, UFFDIO_WRITEPROTECT, &wp);
	}
	return NULL;
}

/*
 * A batch writes its answers (an add's @id, @status and @error) and
 * nothing else of the caller's array, not even to check that it can: the
 * first write the kernel makes to each write-protected page of the array
 * is caught and must be an answer. The pages start mid-op, in @slack.
 */
TEST_F_TIMEOUT(hostile, a_batch_writes_nothing_but_its_answers, 120)
{
	enum { N = 150, PAGES = 4 };
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_EXACT_ADDRESS,
	};
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	struct uffdio_writeprotect wp = { .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	struct wp_watch w = { .uffd = -1 };
	size_t len = PAGES * self->page;
	struct wt_batch b = { .count = N };
	struct wt_op *ops;
	unsigned int i;
	pthread_t th;
	char *map;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_EQ(0, wt_virtual(self->fd, USEC));
	w.uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (w.uffd < 0)
		SKIP(return, "userfaultfd() is not available");
	if (ioctl(w.uffd, UFFDIO_API, &api)) {
		close(w.uffd);
		SKIP(return, "no UFFD_FEATURE_EXACT_ADDRESS");
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	memset(map, 0, len);
	/* Each page after the first starts at byte 40 of an op: @slack. */
	ops = (struct wt_op *)(map + 24);
	for (i = 0; i < N; i++)
		ops[i] = (struct wt_op){ .op = WT_OP_ADD, .deadline = SEC,
					 .cookie = i };
	reg.range.start = (uintptr_t)map;
	reg.range.len = len;
	if (ioctl(w.uffd, UFFDIO_REGISTER, &reg)) {
		munmap(map, len);
		close(w.uffd);
		SKIP(return, "no write-protect userfaultfd for anonymous memory");
	}
	wp.range = reg.range;
	ASSERT_EQ(0, ioctl(w.uffd, UFFDIO_WRITEPROTECT, &wp));
	w.base = (char *)ops;
	w.n = N;
	ASSERT_EQ(0, pthread_create(&th, NULL, wp_handler, &w));
	b.ops = (uintptr_t)ops;
	EXPECT_EQ(N, ioctl(self->fd, WT_IOC_BATCH, &b));
	/* A single op, across a page boundary, the same. */
	wp.range = reg.range;
	ASSERT_EQ(0, ioctl(w.uffd, UFFDIO_WRITEPROTECT, &wp));
	EXPECT_EQ(0, ioctl(self->fd, WT_IOC_ADD, &ops[63]));
	atomic_store(&w.stop, true);
	pthread_join(th, NULL);
	ksft_print_msg("%u write faults, %u outside the answers\n", w.faults,
		       w.bad);
	EXPECT_LE(3, w.faults) TH_LOG("the kernel wrote no protected page");
	EXPECT_EQ(0, w.bad) TH_LOG("a write to byte %lu of an op", w.bad_off);
	for (i = 0; i < N; i++)
		EXPECT_EQ(WT_STATUS_ADDED, ops[i].status);
	EXPECT_EQ(N + 1, wt_fdinfo(self->fd, "added"));
	close(w.uffd);
	munmap(map, len);
}

TEST_HARNESS_MAIN
