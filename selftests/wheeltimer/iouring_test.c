// SPDX-License-Identifier: GPL-2.0
/*
 * Reading records through io_uring. The file's read never sleeps when
 * asked not to (FMODE_NOWAIT), so io_uring reads records inline when they
 * are ready, and otherwise waits for the file to poll readable, instead of
 * handing the read to one of its worker threads ("iou-wrk-<pid>") to
 * block in. The test looks for such threads in /proc/self/task.
 *
 * The ring is driven through the raw system calls, so that the test needs
 * no library and builds for any ABI the selftests are built for.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/io_uring.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

#define EV	sizeof(struct wt_event)

struct ring {
	int fd;
	struct io_uring_params p;
	void *sq_ptr, *cq_ptr;
	size_t sq_len, cq_len;
	struct io_uring_sqe *sqes;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
};

static int ring_init(struct ring *r, unsigned int entries)
{
	memset(&r->p, 0, sizeof(r->p));
	r->fd = syscall(__NR_io_uring_setup, entries, &r->p);
	if (r->fd < 0)
		return -errno;
	r->sq_len = r->p.sq_off.array + r->p.sq_entries * sizeof(unsigned int);
	r->cq_len = r->p.cq_off.cqes +
		    r->p.cq_entries * sizeof(struct io_uring_cqe);
	if (r->p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_len > r->sq_len)
			r->sq_len = r->cq_len;
		r->cq_len = r->sq_len;
	}
	r->sq_ptr = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (r->sq_ptr == MAP_FAILED)
		return -errno;
	if (r->p.features & IORING_FEAT_SINGLE_MMAP)
		r->cq_ptr = r->sq_ptr;
	else
		r->cq_ptr = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_POPULATE, r->fd,
				 IORING_OFF_CQ_RING);
	if (r->cq_ptr == MAP_FAILED)
		return -errno;
	r->sqes = mmap(NULL, r->p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -errno;
	r->sq_tail = r->sq_ptr + r->p.sq_off.tail;
	r->sq_mask = r->sq_ptr + r->p.sq_off.ring_mask;
	r->sq_array = r->sq_ptr + r->p.sq_off.array;
	r->cq_head = r->cq_ptr + r->p.cq_off.head;
	r->cq_tail = r->cq_ptr + r->p.cq_off.tail;
	r->cq_mask = r->cq_ptr + r->p.cq_off.ring_mask;
	r->cqes = r->cq_ptr + r->p.cq_off.cqes;
	return 0;
}

/* Queue and submit one IORING_OP_READ of @len bytes of @fd into @buf. */
static int ring_read(struct ring *r, int fd, void *buf, unsigned int len,
		     __u64 user_data)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)buf;
	sqe->len = len;
	sqe->user_data = user_data;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0) == 1 ?
	       0 : -errno;
}

/* Take one completion, waiting up to @ms for it; false if none came. */
static bool ring_reap(struct ring *r, int ms, struct io_uring_cqe *out)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	unsigned int head = *r->cq_head;

	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) &&
	    poll(&p, 1, ms) != 1)
		return false;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return false;
	*out = r->cqes[head & *r->cq_mask];
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return true;
}

static void ring_fini(struct ring *r)
{
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->p.sq_entries * sizeof(struct io_uring_sqe));
	if (r->cq_ptr && r->cq_ptr != MAP_FAILED && r->cq_ptr != r->sq_ptr)
		munmap(r->cq_ptr, r->cq_len);
	if (r->sq_ptr && r->sq_ptr != MAP_FAILED)
		munmap(r->sq_ptr, r->sq_len);
	if (r->fd >= 0)
		close(r->fd);
}

/* How many of this process's threads are io_uring workers. */
static int io_workers(void)
{
	char path[300], comm[64];
	struct dirent *d;
	int n = 0, fd;
	ssize_t len;
	DIR *dir = opendir("/proc/self/task");

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		comm[len > 0 ? len : 0] = '\0';
		if (!strncmp(comm, "iou-wrk-", 8))
			n++;
	}
	closedir(dir);
	return n;
}

FIXTURE(uring) {
	int fd;
	int ring_err;
	struct ring ring;
};

FIXTURE_SETUP(uring)
{
	memset(&self->ring, 0, sizeof(self->ring));
	self->ring.fd = -1;
	self->fd = wt_open();
	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_EQ(0, wt_virtual(self->fd, MSEC));
	self->ring_err = ring_init(&self->ring, 8);
	if (self->ring_err)
		SKIP(return, "io_uring: %s", strerror(-self->ring_err));
}

FIXTURE_TEARDOWN(uring)
{
	ring_fini(&self->ring);
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(uring, a_read_with_records_ready_completes_without_a_worker)
{
	struct io_uring_cqe cqe;
	struct wt_event ev[2];
	__u64 a, b;
	int workers;

	if (self->fd < 0 || self->ring_err)
		return;	/* skipped in the setup, which 6.1 does not stop at */
	ASSERT_EQ(0, io_workers());
	ASSERT_EQ(0, wt_add(self->fd, MSEC, &a));
	ASSERT_EQ(0, wt_add(self->fd, 2 * MSEC, &b));
	ASSERT_EQ(2, wt_advance(self->fd, 2 * MSEC));
	memset(ev, 0, sizeof(ev));
	ASSERT_EQ(0, ring_read(&self->ring, self->fd, ev, sizeof(ev), 7));
	ASSERT_TRUE(ring_reap(&self->ring, 10000, &cqe))
		TH_LOG("no completion in 10 s");
	workers = io_workers();
	ksft_print_msg("read with records ready: res %d, %d io_uring workers\n",
		       cqe.res, workers);
	EXPECT_EQ(7, cqe.user_data);
	EXPECT_EQ(2 * EV, cqe.res);
	EXPECT_EQ(a, ev[0].id);
	EXPECT_EQ(b, ev[1].id);
	EXPECT_EQ(0, workers) TH_LOG("the read was handed to a worker thread");
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
}

TEST_F(uring, a_read_with_nothing_ready_completes_after_an_advance_without_a_worker)
{
	struct io_uring_cqe cqe;
	struct wt_event ev;
	int workers, early;
	__u64 id;

	if (self->fd < 0 || self->ring_err)
		return;	/* skipped in the setup, which 6.1 does not stop at */
	ASSERT_EQ(0, io_workers());
	ASSERT_EQ(0, wt_add(self->fd, 5 * MSEC, &id));
	memset(&ev, 0, sizeof(ev));
	ASSERT_EQ(0, ring_read(&self->ring, self->fd, &ev, sizeof(ev), 9));
	/* Nothing is due: nothing completes. */
	early = ring_reap(&self->ring, 200, &cqe);
	EXPECT_FALSE(early) TH_LOG("completed with %d before anything fired",
				   cqe.res);
	workers = io_workers();
	ASSERT_EQ(1, wt_advance(self->fd, 5 * MSEC));
	if (!early)
		ASSERT_TRUE(ring_reap(&self->ring, 10000, &cqe))
			TH_LOG("no completion 10 s after the timeout fired");
	if (io_workers() > workers)
		workers = io_workers();
	ksft_print_msg("read waiting for a record: res %d, %d io_uring workers\n",
		       cqe.res, workers);
	EXPECT_EQ(9, cqe.user_data);
	EXPECT_EQ(EV, cqe.res);
	EXPECT_EQ(id, ev.id);
	EXPECT_EQ(0, workers) TH_LOG("the read was handed to a worker thread");
}

TEST_HARNESS_MAIN
