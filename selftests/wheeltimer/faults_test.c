// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures, injected with failslab (debug kernel only, SKIP
 * elsewhere). Two ways:
 *
 * - fail-nth: /proc/thread-self/fail-nth makes exactly the N-th fault
 *   point of this thread fail. Each operation is run with N = 1, 2, ...
 *   until it no longer reaches the N-th point, so that every allocation on
 *   its path fails once. The operation must then fail with -ENOMEM and
 *   change nothing, or succeed (an allocation it could do without, or
 *   kmemleak's own bookkeeping), and the file must stay consistent: QUERY
 *   and fdinfo agree with what userspace holds, later operations work.
 * - make-it-fail: failslab with probability 100 restricted to tasks with
 *   /proc/thread-self/make-it-fail set: every allocation of this thread
 *   fails, while another thread of the same process, not marked, works.
 *
 * Leaks on the error paths are caught by the kmemleak scan that follows
 * the debug run. A file's timeouts live in page-sized blocks, so an add
 * allocates only when it opens a new block (or that block's array of
 * periods, or a larger table of blocks); a batch allocates nothing of its
 * own.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/eventfd.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define MAX_NTH		64

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static int failslab_set(const char *attr, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FAILSLAB "%s", attr);
	return write_str(path, val);
}

/* The defaults, so that nothing else fails after the test. */
static void failslab_reset(void)
{
	failslab_set("probability", "0");
	failslab_set("interval", "1");
	failslab_set("times", "1");
	failslab_set("space", "0");
	failslab_set("verbose", "2");
	failslab_set("task-filter", "N");
	failslab_set("ignore-gfp-wait", "Y");
}

FIXTURE(faults) {
	int fd;
	int nth;	/* /proc/thread-self/fail-nth, opened ahead */
	int mif;	/* /proc/thread-self/make-it-fail */
	const char *why;
};

FIXTURE_SETUP(faults)
{
	self->why = NULL;
	self->nth = -1;
	self->mif = -1;
	self->fd = wt_open();
	if (self->fd < 0) {
		self->why = "no " WT_DEV;
		return;
	}
	if (access(FAILSLAB, F_OK)) {
		self->why = "no failslab: not the debug kernel";
		return;
	}
	/* GFP_KERNEL allocations too; quietly: a stack trace fails the VM. */
	if (failslab_set("ignore-gfp-wait", "N") ||
	    failslab_set("verbose", "0") || failslab_set("space", "0")) {
		self->why = "cannot configure failslab";
		return;
	}
	self->nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	self->mif = open("/proc/thread-self/make-it-fail", O_RDWR | O_CLOEXEC);
	if (self->nth < 0 || self->mif < 0)
		self->why = "no /proc/thread-self/fail-nth or make-it-fail";
}

FIXTURE_TEARDOWN(faults)
{
	if (self->mif >= 0) {
		pwrite(self->mif, "0", 1, 0);
		close(self->mif);
	}
	if (self->nth >= 0) {
		pwrite(self->nth, "0", 1, 0);
		close(self->nth);
	}
	if (!access(FAILSLAB, F_OK))
		failslab_reset();
	if (self->fd >= 0)
		close(self->fd);
}

static void nth_arm(int nth, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth, buf, len, 0) != len)
		abort();
}

/* Disarm; returns whether the armed fault point was reached. */
static bool nth_disarm(int nth)
{
	char buf[16] = "";
	bool reached;

	if (pread(nth, buf, sizeof(buf) - 1, 0) <= 0)
		abort();
	reached = atoi(buf) == 0;
	if (pwrite(nth, "0", 1, 0) != 1)
		abort();
	return reached;
}

/*
 * What a file holds, as userspace knows it: live ids with their cookies.
 * check_books() compares it with QUERY and fdinfo.
 */
struct book {
	__u64 id[4096];
	__u64 cookie[4096];
	unsigned int n;
	__u64 added;
};

static void book_add(struct book *b, __u64 id, __u64 cookie)
{
	b->id[b->n] = id;
	b->cookie[b->n++] = cookie;
	b->added++;
}

static void book_drop(struct book *b, __u64 id)
{
	unsigned int j;

	for (j = 0; j < b->n; j++) {
		if (b->id[j] == id) {
			b->n--;
			b->id[j] = b->id[b->n];
			b->cookie[j] = b->cookie[b->n];
			return;
		}
	}
}

static void check_books(struct __test_metadata *_metadata, int fd,
			struct book *b)
{
	struct wt_query q;
	unsigned int i;

	EXPECT_EQ(b->n, wt_fdinfo(fd, "live"));
	EXPECT_EQ(b->added, wt_fdinfo(fd, "added"));
	EXPECT_EQ(b->n, wt_fdinfo(fd, "pending") + wt_fdinfo(fd, "ready"));
	for (i = 0; i < b->n; i++) {
		ASSERT_EQ(0, wt_query(fd, b->id[i], &q))
			TH_LOG("id %#llx", b->id[i]);
		EXPECT_EQ(b->cookie[i], q.cookie);
	}
}

struct tally {
	unsigned int enomem, ok_with_fault, ok, other;
};

/*
 * Run one ADD with the N-th fault point failing, for every N its path
 * reaches. Returns through @b what was added.
 */
static void add_every_way(struct __test_metadata *_metadata, int nth, int fd,
			  struct book *b, __u64 flags, __u64 period,
			  struct tally *t)
{
	struct wt_op op;
	unsigned int n;
	bool reached;
	int r;

	for (n = 1; n <= MAX_NTH; n++) {
		op = (struct wt_op){ .op = WT_OP_ADD, .flags = flags,
				     .deadline = 3600 * SEC, .period = period,
				     .cookie = 0xc0de0000 + b->added };
		nth_arm(nth, n);
		r = wt_ret(ioctl(fd, WT_IOC_ADD, &op));
		reached = nth_disarm(nth);
		if (r == 0) {
			book_add(b, op.id, op.cookie);
			if (!reached) {
				t->ok++;
				return;
			}
			t->ok_with_fault++;
			/* It got by without that allocation: next one. */
			continue;
		}
		if (r == -ENOMEM && reached) {
			t->enomem++;
			EXPECT_EQ(0, op.id);
			EXPECT_EQ(0, op.status);
			EXPECT_EQ(ENOMEM, op.error);
			EXPECT_EQ(b->n, wt_fdinfo(fd, "live"));
			continue;
		}
		t->other++;
		TH_LOG("ADD with fault point %u failing: %d", n, r);
		return;
	}
}

TEST_F_TIMEOUT(faults, add_fails_cleanly_at_every_allocation, 300)
{
	static struct book b;
	struct tally t = {};
	unsigned int i;

	if (self->why)
		SKIP(return, "%s", self->why);
	memset(&b, 0, sizeof(b));
	/*
	 * Past 85 and 170 timeouts the store needs a new block (see
	 * timers_per_block), and the first periodic one in a block its
	 * array of periods.
	 */
	for (i = 0; i < 180; i++)
		add_every_way(_metadata, self->nth, self->fd, &b,
			      0, 0, &t);
	for (i = 0; i < 20; i++)
		add_every_way(_metadata, self->nth, self->fd, &b,
			      i & 1 ? WT_FIXED_RATE : WT_FIXED_DELAY, SEC, &t);
	ksft_print_msg("ADD: %u failures gave -ENOMEM, %u survived, %u clean, %u other\n",
		       t.enomem, t.ok_with_fault, t.ok, t.other);
	EXPECT_EQ(0, t.other);
	/* At least the three blocks and one array of periods. */
	EXPECT_LE(4, t.enomem);
	check_books(_metadata, self->fd, &b);
	/* Later operations work: cancel everything. */
	for (i = 0; i < b.n; i++)
		EXPECT_EQ(WT_STATUS_PENDING, wt_cancel(self->fd, b.id[i]));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
}

TEST_F_TIMEOUT(faults, batch_fails_cleanly_at_every_allocation, 300)
{
	enum { OPS = 8 };
	static struct book b;
	struct wt_op ops[OPS];
	unsigned int n, i, round, whole = 0, partial = 0, clean = 0;
	__u64 cid;
	bool reached;
	int r;

	if (self->why)
		SKIP(return, "%s", self->why);
	memset(&b, 0, sizeof(b));
	for (round = 0; round < 20; round++) {
		for (n = 1; n <= MAX_NTH; n++) {
			memset(ops, 0, sizeof(ops));
			for (i = 0; i < OPS; i++) {
				ops[i].op = WT_OP_ADD;
				ops[i].flags = i == 3 ? WT_FIXED_RATE : 0;
				ops[i].period = i == 3 ? SEC : 0;
				ops[i].deadline = 3600 * SEC;
				ops[i].cookie = 0xba7c0000 + b.added + i;
			}
			/* A cancel and a modify of known ids ride along. */
			cid = b.n >= 2 ? b.id[b.n - 1] : 0;
			if (cid) {
				ops[5] = (struct wt_op){ .op = WT_OP_MODIFY,
							 .id = b.id[0],
							 .deadline = 7200 * SEC };
				ops[6] = (struct wt_op){ .op = WT_OP_CANCEL,
							 .id = b.id[b.n - 1] };
			}
			nth_arm(self->nth, n);
			r = wt_batch(self->fd, ops, OPS);
			reached = nth_disarm(self->nth);
			if (r == -ENOMEM) {
				/* Nothing happened, but nothing should fail whole. */
				EXPECT_TRUE(reached);
				whole++;
				check_books(_metadata, self->fd, &b);
				continue;
			}
			ASSERT_LE(0, r) TH_LOG("batch, fault point %u: %d", n, r);
			for (i = 0; i < OPS; i++) {
				if (ops[i].error) {
					EXPECT_EQ(ENOMEM, ops[i].error);
					EXPECT_EQ(WT_OP_ADD, ops[i].op);
					EXPECT_EQ(0, ops[i].id);
					partial++;
					continue;
				}
				if (ops[i].op == WT_OP_ADD) {
					book_add(&b, ops[i].id, ops[i].cookie);
				} else if (ops[i].op == WT_OP_CANCEL) {
					EXPECT_EQ(WT_STATUS_PENDING, ops[i].status);
					book_drop(&b, cid);
				}
			}
			check_books(_metadata, self->fd, &b);
			if (!reached) {
				clean++;
				break;
			}
		}
	}
	ksft_print_msg("BATCH: %u failed whole with -ENOMEM, %u ops failed alone, %u ran clean\n",
		       whole, partial, clean);
	/* A batch allocates nothing of its own; only adds need memory. */
	EXPECT_EQ(0, whole);
	EXPECT_LT(0, partial);
	EXPECT_EQ(20, clean);
}

TEST_F_TIMEOUT(faults, open_fails_cleanly_at_every_allocation, 300)
{
	unsigned int n, enomem = 0;
	bool reached;
	int fd = -1;

	if (self->why)
		SKIP(return, "%s", self->why);
	for (n = 1; n <= MAX_NTH; n++) {
		nth_arm(self->nth, n);
		fd = open(WT_DEV, O_RDWR | O_CLOEXEC);
		reached = nth_disarm(self->nth);
		if (fd >= 0) {
			/* A usable file, whatever it survived. */
			EXPECT_EQ(0, wt_add(fd, 0, NULL));
			close(fd);
			if (!reached)
				break;
			continue;
		}
		EXPECT_EQ(ENOMEM, errno) TH_LOG("fault point %u", n);
		enomem++;
	}
	ksft_print_msg("open: %u injected failures gave -ENOMEM before one ran clean\n",
		       enomem);
	EXPECT_LE(1, enomem);	/* at least the context */
	EXPECT_GE(MAX_NTH, n);
}

/*
 * The ioctls that need no memory: with the first fault point armed they
 * succeed, whether or not something on the way reached it.
 */
TEST_F_TIMEOUT(faults, ioctls_without_allocations_are_unaffected, 300)
{
	struct wt_advance adv = { .time = 10 * USEC };
	struct wt_config cfg;
	struct wt_api api = { .api = WT_API_VERSION };
	struct wt_query q;
	struct wt_event ev;
	__u64 id, id2;
	int efd, r, reached = 0;

	if (self->why)
		SKIP(return, "%s", self->why);
	ASSERT_EQ(0, wt_virtual(self->fd, USEC));
	ASSERT_EQ(0, wt_add(self->fd, 5 * USEC, &id));
	ASSERT_EQ(0, wt_add(self->fd, SEC, &id2));
	efd = eventfd(0, EFD_CLOEXEC);
	ASSERT_LE(0, efd);

#define NO_ALLOC(expr, want) do { \
	nth_arm(self->nth, 1); \
	r = (expr); \
	reached += nth_disarm(self->nth); \
	EXPECT_EQ(want, r) TH_LOG("%s", #expr); \
} while (0)
	NO_ALLOC(wt_ret(ioctl(self->fd, WT_IOC_API, &api)), 0);
	NO_ALLOC(wt_get_config(self->fd, &cfg), 0);
	NO_ALLOC(wt_query(self->fd, id, &q), 0);
	NO_ALLOC(wt_modify(self->fd, id2, 0, 2 * SEC, 0), WT_STATUS_PENDING);
	NO_ALLOC(wt_ret(ioctl(self->fd, WT_IOC_ADVANCE, &adv)), 0);
	NO_ALLOC(wt_set_eventfd(self->fd, efd), 0);
	NO_ALLOC(wt_read(self->fd, &ev, 1), 1);
	NO_ALLOC(wt_cancel(self->fd, id2), WT_STATUS_PENDING);
	NO_ALLOC(wt_set_eventfd(self->fd, WT_EVENTFD_NONE), 0);
	NO_ALLOC(wt_virtual(self->fd, 2 * USEC), 0);
#undef NO_ALLOC
	ksft_print_msg("%d of 10 allocation-free ioctls reached a fault point anyway\n",
		       reached);
	EXPECT_EQ(id, ev.id);
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
	close(efd);
}

struct bystander {
	int fd;
	atomic_bool go, stop;
	atomic_long ok, failed;
};

static void *bystander_fn(void *arg)
{
	struct bystander *s = arg;
	__u64 id;

	while (!atomic_load(&s->go))
		usleep(100);
	while (!atomic_load(&s->stop)) {
		if (wt_add(s->fd, 3600 * SEC, &id) == 0 &&
		    wt_cancel(s->fd, id) == WT_STATUS_PENDING)
			atomic_fetch_add(&s->ok, 1);
		else
			atomic_fetch_add(&s->failed, 1);
	}
	return NULL;
}

/*
 * Add far-away timeouts until the store is full, so that the next add
 * needs a new block. Returns how many were added.
 */
static unsigned int fill_store(struct __test_metadata *_metadata, int fd)
{
	__u64 per = wt_fdinfo(fd, "timers_per_block");
	unsigned int n = 0;

	while (wt_fdinfo(fd, "live") < wt_fdinfo(fd, "timer_blocks") * per) {
		if (wt_add(fd, 3600 * SEC, NULL)) {
			EXPECT_TRUE(false) TH_LOG("filling the store: %m");
			break;
		}
		n++;
	}
	return n;
}

TEST_F_TIMEOUT(faults, make_it_fail_hits_this_thread_only, 300)
{
	struct bystander s = {};
	struct wt_op ops[4];
	pthread_t th;
	unsigned int i, round, added = 0;
	int r_add, r_per, r_batch, fd2;
	__u64 id;

	if (self->why)
		SKIP(return, "%s", self->why);
	s.fd = wt_open();
	ASSERT_LE(0, s.fd);
	ASSERT_EQ(0, pthread_create(&th, NULL, bystander_fn, &s));
	ASSERT_EQ(0, failslab_set("task-filter", "Y"));
	ASSERT_EQ(0, failslab_set("interval", "1"));
	ASSERT_EQ(0, failslab_set("times", "-1"));
	ASSERT_EQ(0, failslab_set("probability", "100"));
	atomic_store(&s.go, true);

	for (round = 0; round < 50; round++) {
		/* An add allocates only when the store is full. */
		added += fill_store(_metadata, self->fd);
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < 4; i++)
			ops[i].op = WT_OP_ADD;
		/* Everything this thread allocates fails, in this window. */
		ASSERT_EQ(1, pwrite(self->mif, "1", 1, 0));
		r_add = wt_add(self->fd, 0, &id);
		r_per = wt_add_full(self->fd, WT_FIXED_DELAY, 0, MSEC, 0, 0,
				    NULL);
		r_batch = wt_batch(self->fd, ops, 4);
		fd2 = open(WT_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_EQ(1, pwrite(self->mif, "0", 1, 0));
		EXPECT_EQ(-ENOMEM, r_add);
		EXPECT_EQ(-ENOMEM, r_per);
		/* The batch itself runs: each of its adds fails alone. */
		EXPECT_EQ(0, r_batch);
		for (i = 0; i < 4; i++)
			EXPECT_EQ(ENOMEM, ops[i].error);
		EXPECT_EQ(-1, fd2);
		if (fd2 >= 0)
			close(fd2);
		/* And out of it, everything works. */
		EXPECT_EQ(0, wt_add(self->fd, 0, &id));
		EXPECT_EQ(4, wt_batch(self->fd, ops, 4));
		added += 5;
	}
	usleep(10000);
	ASSERT_EQ(0, failslab_set("probability", "0"));
	atomic_store(&s.stop, true);
	pthread_join(th, NULL);
	ksft_print_msg("bystander: %ld add+cancel pairs worked, %ld failed\n",
		       atomic_load(&s.ok), atomic_load(&s.failed));
	EXPECT_LT(0, atomic_load(&s.ok));
	EXPECT_EQ(0, atomic_load(&s.failed));
	EXPECT_EQ(0, wt_fdinfo(s.fd, "live"));
	EXPECT_EQ(added, wt_fdinfo(self->fd, "live"));
	EXPECT_EQ(added, wt_fdinfo(self->fd, "added"));
	close(s.fd);
}

TEST_HARNESS_MAIN
