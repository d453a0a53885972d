// SPDX-License-Identifier: GPL-2.0
/*
 * Many threads on one file at once: adders, cancellers and readers race
 * each other and the hrtimer (or a thread advancing a virtual clock). At
 * the end every timeout was either read exactly once or cancelled exactly
 * once, never both and never neither: fired + cancelled == added, timeout
 * by timeout. Each timeout's cookie is its place in the order of adds, as
 * ids are reused (with a new generation) once their timeout is gone.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

enum {
	ADDERS = 4,
	CANCELLERS = 2,
	READERS = 2,
	PER_ADDER = 25000,
	TOTAL = ADDERS * PER_ADDER,
	BATCH = 64,
};

struct shared {
	int fd;
	bool virtual;
	/* Ids in the order they were added, for the cancellers to pick. */
	atomic_ullong ids[TOTAL];
	/* Places in @ids taken; the id is stored there once it is known. */
	atomic_int nr_ids;
	atomic_int adders_done;
	atomic_bool stop;
	/* Per place in @ids: 1 once read, 2 once cancelled. */
	atomic_uchar fate[TOTAL];
	atomic_long read, cancelled, withdrawn, twice, errors;
};

/* Timeout number @pos, whose id is @id, was read (1) or cancelled (2). */
static void note(struct shared *s, __u64 pos, __u64 id, unsigned char how)
{
	unsigned char was;
	__u64 known;

	if (pos >= TOTAL) {
		atomic_fetch_add(&s->errors, 1);
		return;
	}
	/* Its adder may not have stored the id yet; if it has, it is @id. */
	known = atomic_load(&s->ids[pos]);
	if (!id || (known && known != id))
		atomic_fetch_add(&s->errors, 1);
	was = atomic_fetch_or(&s->fate[pos], how);
	if (was)
		atomic_fetch_add(&s->twice, 1);
}

static __u64 rnd(__u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static void *adder(void *arg)
{
	struct shared *s = arg;
	struct wt_op ops[BATCH];
	__u64 seed = (__u64)(uintptr_t)&ops | 1;
	int done = 0, i, k, slot;

	while (done < PER_ADDER) {
		k = PER_ADDER - done < BATCH ? PER_ADDER - done : BATCH;
		memset(ops, 0, sizeof(ops));
		slot = atomic_fetch_add(&s->nr_ids, k);
		for (i = 0; i < k; i++) {
			ops[i].op = WT_OP_ADD;
			/* Due soon enough that many fire while others are added. */
			ops[i].deadline = rnd(&seed) % (20 * MSEC);
			ops[i].cookie = slot + i;
		}
		if (wt_batch(s->fd, ops, k) != k) {
			atomic_fetch_add(&s->errors, 1);
			break;
		}
		for (i = 0; i < k; i++)
			atomic_store(&s->ids[slot + i], ops[i].id);
		done += k;
	}
	atomic_fetch_add(&s->adders_done, 1);
	return NULL;
}

static void *canceller(void *arg)
{
	struct shared *s = arg;
	__u64 seed = (__u64)(uintptr_t)&seed | 1;
	__u64 id, pos;
	int n, st;

	while (!atomic_load(&s->stop)) {
		n = atomic_load(&s->nr_ids);
		if (!n)
			continue;
		/* Ids are still 0 for a moment after their place is taken. */
		pos = rnd(&seed) % n;
		id = atomic_load(&s->ids[pos]);
		if (!id)
			continue;
		/* Stale once read or cancelled, even if its slot is reused. */
		st = wt_cancel(s->fd, id);
		if (st == WT_STATUS_PENDING || st == WT_STATUS_WITHDRAWN) {
			note(s, pos, id, 2);
			atomic_fetch_add(st == WT_STATUS_PENDING ?
					 &s->cancelled : &s->withdrawn, 1);
		} else if (st != -ENOENT) {
			atomic_fetch_add(&s->errors, 1);
		}
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct shared *s = arg;
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	struct wt_event ev[32];
	int n, i;

	while (!atomic_load(&s->stop)) {
		if (poll(&p, 1, 20) <= 0)
			continue;
		n = wt_read(s->fd, ev, 32);
		if (n == -EAGAIN)
			continue;
		if (n < 0) {
			atomic_fetch_add(&s->errors, 1);
			continue;
		}
		for (i = 0; i < n; i++) {
			if (!(ev[i].flags & WT_EVENT_FINAL) ||
			    ev[i].fired_at < ev[i].deadline)
				atomic_fetch_add(&s->errors, 1);
			note(s, ev[i].cookie, ev[i].id, 1);
		}
		atomic_fetch_add(&s->read, n);
	}
	return NULL;
}

static void *advancer(void *arg)
{
	struct shared *s = arg;

	while (!atomic_load(&s->stop))
		if (wt_advance(s->fd, 100 * USEC) < 0)
			atomic_fetch_add(&s->errors, 1);
	return NULL;
}

static void run(struct __test_metadata *_metadata, bool virtual)
{
	pthread_t th[ADDERS + CANCELLERS + READERS + 1];
	struct shared *s = calloc(1, sizeof(*s));
	int i, n = 0, both = 0, neither = 0;
	long waited;

	ASSERT_NE(NULL, s);
	s->fd = wt_open();
	if (s->fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	s->virtual = virtual;
	if (virtual)
		ASSERT_EQ(0, wt_virtual(s->fd, 100 * USEC));
	ASSERT_EQ(0, fcntl(s->fd, F_SETFL, O_NONBLOCK));

	for (i = 0; i < READERS; i++)
		ASSERT_EQ(0, pthread_create(&th[n++], NULL, reader, s));
	for (i = 0; i < CANCELLERS; i++)
		ASSERT_EQ(0, pthread_create(&th[n++], NULL, canceller, s));
	if (virtual)
		ASSERT_EQ(0, pthread_create(&th[n++], NULL, advancer, s));
	for (i = 0; i < ADDERS; i++)
		ASSERT_EQ(0, pthread_create(&th[n++], NULL, adder, s));

	/* Until every timeout is gone: read or cancelled. */
	for (waited = 0; waited < 300000; waited += 10) {
		if (atomic_load(&s->adders_done) == ADDERS &&
		    wt_fdinfo(s->fd, "live") == 0)
			break;
		usleep(10000);
	}
	atomic_store(&s->stop, true);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);

	ksft_print_msg("%ld read, %ld cancelled pending, %ld withdrawn after firing\n",
		       atomic_load(&s->read), atomic_load(&s->cancelled),
		       atomic_load(&s->withdrawn));
	EXPECT_EQ(0, atomic_load(&s->errors));
	EXPECT_EQ(0, atomic_load(&s->twice));
	EXPECT_EQ(TOTAL, atomic_load(&s->nr_ids));
	EXPECT_EQ(TOTAL, atomic_load(&s->read) + atomic_load(&s->cancelled) +
			 atomic_load(&s->withdrawn));
	for (i = 0; i < TOTAL; i++) {
		unsigned char f = atomic_load(&s->fate[i]);

		both += f == 3;
		neither += f == 0;
	}
	EXPECT_EQ(0, both);
	EXPECT_EQ(0, neither);
	/* The kernel's books agree with ours. */
	EXPECT_EQ(TOTAL, wt_fdinfo(s->fd, "added"));
	EXPECT_EQ(atomic_load(&s->read), wt_fdinfo(s->fd, "delivered"));
	EXPECT_EQ(atomic_load(&s->cancelled), wt_fdinfo(s->fd, "cancelled"));
	EXPECT_EQ(atomic_load(&s->withdrawn), wt_fdinfo(s->fd, "withdrawn"));
	EXPECT_EQ(wt_fdinfo(s->fd, "fired"),
		  wt_fdinfo(s->fd, "delivered") + wt_fdinfo(s->fd, "withdrawn"));
	close(s->fd);
	free(s);
}

/* Plain TEST() has no timeout of its own in the 6.1 harness. */
FIXTURE(threads) {};
FIXTURE_SETUP(threads) {}
FIXTURE_TEARDOWN(threads) {}

TEST_F_TIMEOUT(threads, on_a_real_clock_nothing_is_lost_or_doubled, 600)
{
	run(_metadata, false);
}

TEST_F_TIMEOUT(threads, on_a_virtual_clock_nothing_is_lost_or_doubled, 600)
{
	run(_metadata, true);
}

TEST_HARNESS_MAIN
