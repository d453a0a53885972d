// SPDX-License-Identifier: GPL-2.0
/*
 * Stress, bounded by operation counts rather than by time:
 *
 * - mixed: threads add, cancel, modify and read on one file while other
 *   threads open, fill and close files of their own. Every id ends read
 *   exactly once or cancelled exactly once, no record is early, and the
 *   kernel's counters (fdinfo) agree with ours, per file.
 * - flood: a million timeouts (fewer on the debug kernel) due at the same
 *   instant on one file, while another file keeps firing and a watchdog
 *   thread measures how late its own sleeps end. The delay is reported,
 *   not asserted: under emulation it says more about the host than about
 *   the module.
 *
 * Op counts are divided by 8 on the debug kernel (KASAN makes every
 * allocation slow), which is recognised by /sys/kernel/debug/failslab, or
 * forced either way with WT_STRESS_SCALE=<divisor>.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

static unsigned int scale_div(void)
{
	const char *env = getenv("WT_STRESS_SCALE");

	if (env && atoi(env) > 0)
		return atoi(env);
	return access("/sys/kernel/debug/failslab", F_OK) ? 1 : 8;
}

static __u64 rnd(__u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* ---------------------------------------------------------------- mixed */

enum {
	ADDERS = 3,
	MODIFIERS = 2,
	CANCELLERS = 2,
	READERS = 2,
	CHURNERS = 2,
	ADD_BATCH = 16,
	CHURN_ADDS = 32,
};

struct mixed {
	int fd;
	unsigned int per_adder, per_modifier, per_canceller, churn_files;
	unsigned int total;
	atomic_ullong *ids;		/* in the order they were added */
	atomic_uchar *fate;		/* by place in @ids: 1 read, 2 cancelled */
	atomic_int nr_ids;		/* places taken; ids stored once known */
	atomic_int workers_done;
	atomic_bool stop;
	atomic_long added, read, cancelled, cancel_withdrawn;
	atomic_long modified_pending, modified_withdrawn, modify_enoent;
	atomic_long early, twice, errors;
	atomic_long churn_opened, churn_checked, churn_bad;
	char first_error[256];
	atomic_flag error_noted;
};

static void mixed_error(struct mixed *s, const char *what, long val)
{
	atomic_fetch_add(&s->errors, 1);
	if (!atomic_flag_test_and_set(&s->error_noted))
		snprintf(s->first_error, sizeof(s->first_error), "%s: %ld",
			 what, val);
}

/*
 * Timeout number @pos (its cookie: ids are reused, with a new generation,
 * once their timeout is gone), whose id is @id, was read or cancelled.
 */
static void mixed_note(struct mixed *s, __u64 pos, __u64 id,
		       unsigned char how)
{
	__u64 known;

	if (pos >= s->total) {
		mixed_error(s, "cookie out of range", (long)pos);
		return;
	}
	/* Its adder may not have stored the id yet; if it has, it is @id. */
	known = atomic_load(&s->ids[pos]);
	if (!id || (known && known != id))
		mixed_error(s, "id of another timeout", (long)id);
	if (atomic_fetch_or(&s->fate[pos], how))
		atomic_fetch_add(&s->twice, 1);
}

/* A random timeout added so far: its id (0 if not known yet) and place. */
static __u64 mixed_pick(struct mixed *s, __u64 *seed, __u64 *pos)
{
	int n = atomic_load(&s->nr_ids);

	if (!n)
		return 0;
	*pos = rnd(seed) % n;
	return atomic_load(&s->ids[*pos]);
}

static void *mixed_adder(void *arg)
{
	struct mixed *s = arg;
	struct wt_op ops[ADD_BATCH];
	__u64 seed = (__u64)(uintptr_t)ops | 1, id;
	unsigned int done = 0, k, i;
	int r, slot;

	while (done < s->per_adder) {
		k = s->per_adder - done < ADD_BATCH ? s->per_adder - done :
						       ADD_BATCH;
		if (rnd(&seed) % 4 == 0) {
			/* A single ADD now and then: the other code path. */
			slot = atomic_fetch_add(&s->nr_ids, 1);
			r = wt_add_full(s->fd, 0, rnd(&seed) % (3 * MSEC), 0, 0,
					slot, &id);
			if (r) {
				mixed_error(s, "add", r);
				break;
			}
			atomic_store(&s->ids[slot], id);
			atomic_fetch_add(&s->added, 1);
			done++;
			continue;
		}
		memset(ops, 0, sizeof(ops));
		slot = atomic_fetch_add(&s->nr_ids, k);
		for (i = 0; i < k; i++) {
			ops[i].op = WT_OP_ADD;
			ops[i].deadline = rnd(&seed) % (3 * MSEC);
			ops[i].slack = rnd(&seed) % 8 ? 0 : MSEC;
			ops[i].cookie = slot + i;
		}
		r = wt_batch(s->fd, ops, k);
		if (r != (int)k) {
			mixed_error(s, "batch add", r);
			break;
		}
		for (i = 0; i < k; i++)
			atomic_store(&s->ids[slot + i], ops[i].id);
		atomic_fetch_add(&s->added, k);
		done += k;
	}
	atomic_fetch_add(&s->workers_done, 1);
	return NULL;
}

static void *mixed_modifier(void *arg)
{
	struct mixed *s = arg;
	__u64 seed = (__u64)(uintptr_t)&seed | 1, id, pos;
	unsigned int done = 0;
	int st;

	while (done < s->per_modifier) {
		id = mixed_pick(s, &seed, &pos);
		if (!id)
			continue;
		st = wt_modify(s->fd, id, 0, rnd(&seed) % (3 * MSEC), 0);
		if (st == WT_STATUS_PENDING)
			atomic_fetch_add(&s->modified_pending, 1);
		else if (st == WT_STATUS_WITHDRAWN)
			atomic_fetch_add(&s->modified_withdrawn, 1);
		else if (st == -ENOENT)
			atomic_fetch_add(&s->modify_enoent, 1);
		else
			mixed_error(s, "modify", st);
		done++;
	}
	atomic_fetch_add(&s->workers_done, 1);
	return NULL;
}

static void *mixed_canceller(void *arg)
{
	struct mixed *s = arg;
	__u64 seed = (__u64)(uintptr_t)&seed | 1, id, pos;
	unsigned int done = 0;
	int st;

	while (done < s->per_canceller) {
		id = mixed_pick(s, &seed, &pos);
		if (!id)
			continue;
		st = wt_cancel(s->fd, id);
		if (st == WT_STATUS_PENDING || st == WT_STATUS_WITHDRAWN) {
			mixed_note(s, pos, id, 2);
			atomic_fetch_add(&s->cancelled, 1);
			if (st == WT_STATUS_WITHDRAWN)
				atomic_fetch_add(&s->cancel_withdrawn, 1);
		} else if (st != -ENOENT) {
			mixed_error(s, "cancel", st);
		}
		done++;
	}
	atomic_fetch_add(&s->workers_done, 1);
	return NULL;
}

static void *mixed_reader(void *arg)
{
	struct mixed *s = arg;
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	struct wt_event ev[48];
	__u64 seed = (__u64)(uintptr_t)&p | 1, now;
	int n, i;

	while (!atomic_load(&s->stop)) {
		if (poll(&p, 1, 20) <= 0)
			continue;
		n = wt_read(s->fd, ev, 1 + rnd(&seed) % 48);
		if (n == -EAGAIN)
			continue;
		if (n < 0) {
			mixed_error(s, "read", n);
			continue;
		}
		now = wt_clock_ns(CLOCK_MONOTONIC);
		for (i = 0; i < n; i++) {
			if (ev[i].fired_at < ev[i].deadline ||
			    now < ev[i].deadline)
				atomic_fetch_add(&s->early, 1);
			if (!(ev[i].flags & WT_EVENT_FINAL))
				mixed_error(s, "one-shot record not final",
					    (long)ev[i].flags);
			mixed_note(s, ev[i].cookie, ev[i].id, 1);
		}
		atomic_fetch_add(&s->read, n);
	}
	return NULL;
}

/*
 * Open a file, use it a little, check its books and close it with timeouts
 * pending, ready and (on a real clock) the hrtimer armed.
 */
static void *mixed_churner(void *arg)
{
	struct mixed *s = arg;
	__u64 seed = (__u64)(uintptr_t)&seed | 1;
	struct wt_event ev[CHURN_ADDS];
	struct wt_op ops[CHURN_ADDS];
	__u64 cancelled, read, added, live;
	unsigned int f, i;
	bool virtual;
	int fd, n, st;

	for (f = 0; f < s->churn_files; f++) {
		fd = open(WT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			mixed_error(s, "churn open", -errno);
			break;
		}
		atomic_fetch_add(&s->churn_opened, 1);
		virtual = rnd(&seed) & 1;
		if (virtual && wt_virtual(fd, 10 * USEC)) {
			mixed_error(s, "churn config", -errno);
			close(fd);
			break;
		}
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < CHURN_ADDS; i++) {
			ops[i].op = WT_OP_ADD;
			ops[i].deadline = rnd(&seed) % (2 * MSEC);
		}
		added = wt_batch(fd, ops, CHURN_ADDS);
		if (virtual)
			wt_advance(fd, MSEC);
		else
			usleep(rnd(&seed) % 1000);
		read = 0;
		n = wt_read(fd, ev, rnd(&seed) % CHURN_ADDS + 1);
		if (n > 0)
			read = n;
		cancelled = 0;
		for (i = 0; i < CHURN_ADDS; i += 3) {
			st = wt_cancel(fd, ops[i].id);
			if (st == WT_STATUS_PENDING || st == WT_STATUS_WITHDRAWN)
				cancelled++;
		}
		live = wt_fdinfo(fd, "live");
		if (added != CHURN_ADDS ||
		    wt_fdinfo(fd, "added") != added ||
		    wt_fdinfo(fd, "delivered") != read ||
		    wt_fdinfo(fd, "cancelled") + wt_fdinfo(fd, "withdrawn") !=
		    cancelled ||
		    read + cancelled + live != added)
			atomic_fetch_add(&s->churn_bad, 1);
		else
			atomic_fetch_add(&s->churn_checked, 1);
		/* Leave some periodic ones behind for close() to free too. */
		wt_add_full(fd, WT_FIXED_RATE, 0, 100 * USEC, 0, 0, NULL);
		wt_add_full(fd, WT_FIXED_DELAY, 50 * USEC, MSEC, 0, 0, NULL);
		close(fd);
	}
	atomic_fetch_add(&s->workers_done, 1);
	return NULL;
}

FIXTURE(stress) {
	int fd;
	unsigned int div;
};

FIXTURE_SETUP(stress)
{
	self->div = scale_div();
	self->fd = wt_open();
}

FIXTURE_TEARDOWN(stress)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F_TIMEOUT(stress, mixed_ops_with_reopen_fired_plus_cancelled_is_added, 900)
{
	pthread_t th[ADDERS + MODIFIERS + CANCELLERS + READERS + CHURNERS];
	unsigned int nth = 0, workers, i, both = 0, neither = 0;
	struct mixed *s;
	long waited;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	s = calloc(1, sizeof(*s));
	ASSERT_NE(NULL, s);
	s->fd = self->fd;
	s->per_adder = 20000 / self->div;
	s->per_modifier = 20000 / self->div;
	s->per_canceller = 10000 / self->div;
	s->churn_files = 400 / self->div;
	s->total = ADDERS * s->per_adder;
	s->ids = calloc(s->total, sizeof(*s->ids));
	s->fate = calloc(s->total + 1, sizeof(*s->fate));
	ASSERT_NE(NULL, s->ids);
	ASSERT_NE(NULL, s->fate);
	ASSERT_EQ(0, wt_config(s->fd, 100 * USEC, CLOCK_MONOTONIC, 0, 0));
	ASSERT_EQ(0, fcntl(s->fd, F_SETFL, O_NONBLOCK));

	for (i = 0; i < READERS; i++)
		ASSERT_EQ(0, pthread_create(&th[nth++], NULL, mixed_reader, s));
	workers = nth;
	for (i = 0; i < CHURNERS; i++)
		ASSERT_EQ(0, pthread_create(&th[nth++], NULL, mixed_churner, s));
	for (i = 0; i < MODIFIERS; i++)
		ASSERT_EQ(0, pthread_create(&th[nth++], NULL, mixed_modifier, s));
	for (i = 0; i < CANCELLERS; i++)
		ASSERT_EQ(0, pthread_create(&th[nth++], NULL, mixed_canceller, s));
	for (i = 0; i < ADDERS; i++)
		ASSERT_EQ(0, pthread_create(&th[nth++], NULL, mixed_adder, s));
	workers = nth - workers;

	/* Until the workers are done and every timeout is read or cancelled. */
	for (waited = 0; waited < 600000; waited += 10) {
		if (atomic_load(&s->workers_done) == (int)workers &&
		    wt_fdinfo(s->fd, "live") == 0)
			break;
		usleep(10000);
	}
	atomic_store(&s->stop, true);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);

	for (i = 0; i < s->total; i++) {
		both += atomic_load(&s->fate[i]) == 3;
		neither += atomic_load(&s->fate[i]) == 0;
	}
	ksft_print_msg("mixed: added %ld = read %ld + cancelled %ld (%ld after firing)\n",
		       atomic_load(&s->added), atomic_load(&s->read),
		       atomic_load(&s->cancelled),
		       atomic_load(&s->cancel_withdrawn));
	ksft_print_msg("mixed: modified %ld pending, %ld withdrawn, %ld ENOENT\n",
		       atomic_load(&s->modified_pending),
		       atomic_load(&s->modified_withdrawn),
		       atomic_load(&s->modify_enoent));
	ksft_print_msg("mixed: churners: %ld files, %ld checked, %ld inconsistent\n",
		       atomic_load(&s->churn_opened),
		       atomic_load(&s->churn_checked),
		       atomic_load(&s->churn_bad));
	EXPECT_EQ(0, atomic_load(&s->errors)) TH_LOG("first: %s", s->first_error);
	EXPECT_EQ(0, atomic_load(&s->early));
	EXPECT_EQ(0, atomic_load(&s->twice));
	EXPECT_EQ(0, both);
	EXPECT_EQ(0, neither);
	EXPECT_EQ(s->total, atomic_load(&s->added));
	EXPECT_EQ(atomic_load(&s->added),
		  atomic_load(&s->read) + atomic_load(&s->cancelled));
	EXPECT_EQ(0, atomic_load(&s->churn_bad));
	EXPECT_EQ(CHURNERS * s->churn_files, atomic_load(&s->churn_checked));
	/* The kernel's books agree with ours. */
	EXPECT_EQ(0, wt_fdinfo(s->fd, "live"));
	EXPECT_EQ(0, wt_fdinfo(s->fd, "pending"));
	EXPECT_EQ(0, wt_fdinfo(s->fd, "ready"));
	EXPECT_EQ(atomic_load(&s->added), wt_fdinfo(s->fd, "added"));
	EXPECT_EQ(atomic_load(&s->read), wt_fdinfo(s->fd, "delivered"));
	EXPECT_EQ(atomic_load(&s->cancelled) - atomic_load(&s->cancel_withdrawn),
		  wt_fdinfo(s->fd, "cancelled"));
	EXPECT_EQ(atomic_load(&s->cancel_withdrawn) +
		  atomic_load(&s->modified_withdrawn),
		  wt_fdinfo(s->fd, "withdrawn"));
	EXPECT_EQ(wt_fdinfo(s->fd, "fired"),
		  wt_fdinfo(s->fd, "delivered") + wt_fdinfo(s->fd, "withdrawn"));
	EXPECT_EQ(atomic_load(&s->modified_pending) +
		  atomic_load(&s->modified_withdrawn),
		  wt_fdinfo(s->fd, "modified"));
	free(s->ids);
	free((void *)s->fate);
	free(s);
}

/* ---------------------------------------------------------------- flood */

struct flood {
	int fd, other;
	__u64 deadline;
	unsigned int total;
	atomic_bool stop;
	atomic_long other_rounds, other_early;
	/* The watchdog's figures, [0] before the deadline, [1] while draining. */
	atomic_int phase;
	atomic_long dog_samples[2];
	atomic_ullong dog_max_ns[2], dog_sum_ns[2];
};

/* Sleeps 1 ms at a time and records how much later than that it woke. */
static void *flood_watchdog(void *arg)
{
	struct flood *s = arg;
	struct timespec ts = { 0, 1000000 };
	__u64 t0, late;
	int ph;

	while (!atomic_load(&s->stop)) {
		t0 = wt_clock_ns(CLOCK_MONOTONIC);
		nanosleep(&ts, NULL);
		late = wt_clock_ns(CLOCK_MONOTONIC) - t0 - MSEC;
		ph = atomic_load(&s->phase);
		if (ph > 1)
			continue;
		atomic_fetch_add(&s->dog_samples[ph], 1);
		atomic_fetch_add(&s->dog_sum_ns[ph], late);
		if (late > atomic_load(&s->dog_max_ns[ph]))
			atomic_store(&s->dog_max_ns[ph], late);
	}
	return NULL;
}

/* Another file that keeps adding one timeout and reading it back. */
static void *flood_other(void *arg)
{
	struct flood *s = arg;
	struct pollfd p = { .fd = s->other, .events = POLLIN };
	struct wt_event ev;
	__u64 id;

	while (!atomic_load(&s->stop)) {
		if (wt_add(s->other, MSEC, &id))
			break;
		if (poll(&p, 1, 10000) != 1)
			break;
		if (wt_read(s->other, &ev, 1) != 1 || ev.id != id)
			break;
		if (wt_clock_ns(CLOCK_MONOTONIC) < ev.deadline)
			atomic_fetch_add(&s->other_early, 1);
		atomic_fetch_add(&s->other_rounds, 1);
	}
	return NULL;
}

TEST_F_TIMEOUT(stress, a_million_due_at_once_others_keep_working, 900)
{
	unsigned int total = 1000000 / self->div, added = 0, k, i, n;
	__u64 t0, est, per_add, t_due, t_done = 0, read = 0;
	long others_before, others_during, early = 0, wrong = 0, dup = 0;
	unsigned int ev_max = 4096;
	struct wt_event *ev;
	struct wt_op *ops;
	unsigned char *seen;
	pthread_t dog, other;
	struct flood s = {};
	int probe;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	s.fd = self->fd;
	s.total = total;
	ops = calloc(WT_BATCH_MAX, sizeof(*ops));
	ev = calloc(ev_max, sizeof(*ev));
	seen = calloc(total + 1, 1);
	ASSERT_NE(NULL, ops);
	ASSERT_NE(NULL, ev);
	ASSERT_NE(NULL, seen);
	ASSERT_EQ(0, wt_config(s.fd, WT_RESOLUTION_DEFAULT, CLOCK_MONOTONIC,
			       0, total));

	/* How long do adds take here? Time a few batches on a scratch file. */
	probe = wt_open();
	ASSERT_LE(0, probe);
	t0 = wt_clock_ns(CLOCK_MONOTONIC);
	for (n = 0; n < 8; n++) {
		for (i = 0; i < WT_BATCH_MAX; i++)
			ops[i] = (struct wt_op){ .op = WT_OP_ADD,
						 .deadline = 3600 * SEC };
		ASSERT_EQ(WT_BATCH_MAX, wt_batch(probe, ops, WT_BATCH_MAX));
	}
	per_add = (wt_clock_ns(CLOCK_MONOTONIC) - t0) / (8 * WT_BATCH_MAX);
	close(probe);
	/* Twice the estimate, and 2 s more: all must be in before any is due. */
	est = 2 * per_add * total + 2 * SEC;
	s.deadline = wt_clock_ns(CLOCK_MONOTONIC) + est;

	while (added < total) {
		k = total - added < WT_BATCH_MAX ? total - added : WT_BATCH_MAX;
		for (i = 0; i < k; i++)
			ops[i] = (struct wt_op){ .op = WT_OP_ADD,
						 .flags = WT_ABSTIME,
						 .deadline = s.deadline,
						 .cookie = added + i };
		ASSERT_EQ(k, wt_batch(s.fd, ops, k));
		added += k;
	}
	t0 = wt_clock_ns(CLOCK_MONOTONIC);
	ksft_print_msg("flood: %u added (%llu ns each), due in %.3f s; %llu fired\n",
		       total, (unsigned long long)per_add,
		       s.deadline > t0 ? (s.deadline - t0) / 1e9 : 0.0,
		       (unsigned long long)wt_fdinfo(s.fd, "fired"));
	EXPECT_EQ(total, wt_fdinfo(s.fd, "live"));

	s.other = wt_open();
	ASSERT_LE(0, s.other);
	ASSERT_EQ(0, pthread_create(&dog, NULL, flood_watchdog, &s));
	ASSERT_EQ(0, pthread_create(&other, NULL, flood_other, &s));

	/* Wait for the instant, then read everything as it arrives. */
	while (wt_clock_ns(CLOCK_MONOTONIC) < s.deadline)
		usleep(1000);
	t_due = wt_clock_ns(CLOCK_MONOTONIC);
	atomic_store(&s.phase, 1);
	others_before = atomic_load(&s.other_rounds);
	while (read < total) {
		struct pollfd p = { .fd = s.fd, .events = POLLIN };

		if (poll(&p, 1, 60000) != 1)
			break;
		n = wt_read(s.fd, ev, ev_max);
		if ((int)n < 0)
			break;
		for (i = 0; i < n; i++) {
			__u64 idx = ev[i].cookie;

			if (ev[i].deadline != s.deadline || idx >= total ||
			    !(ev[i].flags & WT_EVENT_FINAL)) {
				wrong++;
				continue;
			}
			if (ev[i].fired_at < ev[i].deadline)
				early++;
			if (seen[idx]++)
				dup++;
		}
		read += n;
	}
	t_done = wt_clock_ns(CLOCK_MONOTONIC);
	atomic_store(&s.phase, 2);
	others_during = atomic_load(&s.other_rounds) - others_before;
	/* Let the other file go on a moment after the flood, then stop. */
	usleep(20000);
	atomic_store(&s.stop, true);
	pthread_join(dog, NULL);
	pthread_join(other, NULL);

	ksft_print_msg("flood: %llu of %u read in %.3f s after the deadline\n",
		       (unsigned long long)read, total, (t_done - t_due) / 1e9);
	ksft_print_msg("flood: other file: %ld round trips meanwhile, %ld in all\n",
		       others_during, atomic_load(&s.other_rounds));
	for (i = 0; i < 2; i++)
		ksft_print_msg("watchdog %s: %ld 1 ms sleeps, late by %.1f us avg, %.1f max\n",
			       i ? "while the flood drained" : "before the deadline",
			       atomic_load(&s.dog_samples[i]),
			       atomic_load(&s.dog_samples[i]) ?
			       atomic_load(&s.dog_sum_ns[i]) / 1e3 /
			       atomic_load(&s.dog_samples[i]) : 0.0,
			       atomic_load(&s.dog_max_ns[i]) / 1e3);
	ksft_print_msg("flood: fdinfo hrtimer_programs %llu, fired %llu\n",
		       (unsigned long long)wt_fdinfo(s.fd, "hrtimer_programs"),
		       (unsigned long long)wt_fdinfo(s.fd, "fired"));
	EXPECT_EQ(total, read);
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(0, early);
	EXPECT_EQ(0, dup);
	EXPECT_EQ(0, atomic_load(&s.other_early));
	/* The other file was served while the flood drained. */
	EXPECT_LT(0, atomic_load(&s.other_rounds));
	EXPECT_LT(0, atomic_load(&s.dog_samples[1]));
	EXPECT_EQ(0, wt_fdinfo(s.fd, "live"));
	EXPECT_EQ(total, wt_fdinfo(s.fd, "delivered"));
	close(s.other);
	free(seen);
	free(ev);
	free(ops);
}

/* Whether the kernel log holds @text (read through /dev/kmsg). */
static bool kmsg_has(const char *text)
{
	char rec[2048];
	bool found = false;
	ssize_t n;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten while we read: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		if (strstr(rec, text))
			found = true;
	}
	close(fd);
	return found;
}

enum { FLOOD_FILES = 16 };

struct many {
	struct flood f;		/* watchdog, phase */
	int fds[FLOOD_FILES];
};

/*
 * The same flood split over 16 files, whose hrtimers all fire at once:
 * each callback's work is bounded, but nothing bounds their sum. The
 * watchdog's delay and the kernel's "hrtimer: interrupt took" warning, if
 * any, are reported; exactly-once delivery is asserted.
 */
TEST_F_TIMEOUT(stress, a_flood_over_many_files_at_once, 900)
{
	unsigned int per = 1000000 / self->div / FLOOD_FILES, i, f, k, n;
	unsigned int ev_max = 1024, done_files = 0;
	long wrong = 0, early = 0, dup = 0;
	__u64 deadline, t_due, t_done, t_add, got[FLOOD_FILES] = { 0 };
	struct pollfd p[FLOOD_FILES];
	unsigned char *seen;
	struct wt_event *ev;
	struct wt_op *ops;
	bool warned_before;
	struct many m = {};
	pthread_t dog;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ops = calloc(WT_BATCH_MAX, sizeof(*ops));
	ev = calloc(ev_max, sizeof(*ev));
	seen = calloc((size_t)FLOOD_FILES * per, 1);
	ASSERT_NE(NULL, ops);
	ASSERT_NE(NULL, ev);
	ASSERT_NE(NULL, seen);
	warned_before = kmsg_has("hrtimer: interrupt took");

	/* Far enough ahead that every file is filled before it is due. */
	t_add = wt_clock_ns(CLOCK_MONOTONIC);
	deadline = t_add + 3600 * SEC;
	for (f = 0; f < FLOOD_FILES; f++) {
		m.fds[f] = open(WT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, m.fds[f]);
		for (i = 0; i < per; i += k) {
			k = per - i < WT_BATCH_MAX ? per - i : WT_BATCH_MAX;
			for (n = 0; n < k; n++)
				ops[n] = (struct wt_op){ .op = WT_OP_ADD,
							 .flags = WT_ABSTIME,
							 .deadline = deadline,
							 .cookie = (__u64)f * per + i + n };
			ASSERT_EQ(k, wt_batch(m.fds[f], ops, k));
		}
	}
	t_add = wt_clock_ns(CLOCK_MONOTONIC) - t_add;
	/*
	 * Then bring them all to one instant: MODIFY costs about what ADD
	 * did, so twice the adding time and a second from now.
	 */
	ASSERT_EQ(0, pthread_create(&dog, NULL, flood_watchdog, &m.f));
	usleep(200000);
	for (f = 0; f < FLOOD_FILES; f++) {
		struct pollfd ready = { .fd = m.fds[f], .events = POLLIN };

		/* Ids are 1..per in each fresh file. */
		for (i = 1; i <= per; i += k) {
			k = per + 1 - i < WT_BATCH_MAX ? per + 1 - i : WT_BATCH_MAX;
			for (n = 0; n < k; n++)
				ops[n] = (struct wt_op){ .op = WT_OP_MODIFY,
							 .id = i + n,
							 .deadline = 0 };
			if (f == 0 && i == 1)
				deadline = wt_clock_ns(CLOCK_MONOTONIC) +
					   2 * t_add + SEC;
			for (n = 0; n < k; n++) {
				ops[n].flags = WT_ABSTIME;
				ops[n].deadline = deadline;
			}
			ASSERT_EQ(k, wt_batch(m.fds[f], ops, k));
		}
		/*
		 * Nothing is ready before the deadline. On a slow machine the
		 * deadline may have passed already: poll() looks without
		 * taking a record, which the count below still needs.
		 */
		if (poll(&ready, 1, 0) == 1)
			EXPECT_LE(deadline, wt_clock_ns(CLOCK_MONOTONIC));
		p[f] = (struct pollfd){ .fd = m.fds[f], .events = POLLIN };
	}
	t_due = wt_clock_ns(CLOCK_MONOTONIC);
	ksft_print_msg("many: %u files x %u timeouts due in %.3f s\n",
		       FLOOD_FILES, per,
		       deadline > t_due ? (deadline - t_due) / 1e9 : 0.0);
	while (wt_clock_ns(CLOCK_MONOTONIC) < deadline)
		usleep(1000);
	atomic_store(&m.f.phase, 1);
	t_due = wt_clock_ns(CLOCK_MONOTONIC);
	while (done_files < FLOOD_FILES) {
		if (poll(p, FLOOD_FILES, 60000) <= 0)
			break;
		for (f = 0; f < FLOOD_FILES; f++) {
			if (!(p[f].revents & POLLIN))
				continue;
			n = wt_read(m.fds[f], ev, ev_max);
			if ((int)n <= 0)
				continue;
			for (i = 0; i < n; i++) {
				__u64 idx = ev[i].cookie;

				if (ev[i].deadline != deadline ||
				    idx / per != f) {
					wrong++;
					continue;
				}
				early += ev[i].fired_at < ev[i].deadline;
				dup += seen[idx]++ != 0;
			}
			got[f] += n;
			if (got[f] == per) {
				done_files++;
				p[f].fd = -1;
			}
		}
	}
	t_done = wt_clock_ns(CLOCK_MONOTONIC);
	atomic_store(&m.f.phase, 2);
	atomic_store(&m.f.stop, true);
	pthread_join(dog, NULL);

	ksft_print_msg("many: %u of %u files fully read %.3f s after the deadline\n",
		       done_files, FLOOD_FILES, (t_done - t_due) / 1e9);
	for (i = 0; i < 2; i++)
		ksft_print_msg("watchdog %s: %ld 1 ms sleeps, late by %.1f us avg, %.1f max\n",
			       i ? "while 16 drained" : "before the deadline",
			       atomic_load(&m.f.dog_samples[i]),
			       atomic_load(&m.f.dog_samples[i]) ?
			       atomic_load(&m.f.dog_sum_ns[i]) / 1e3 /
			       atomic_load(&m.f.dog_samples[i]) : 0.0,
			       atomic_load(&m.f.dog_max_ns[i]) / 1e3);
	if (!warned_before && kmsg_has("hrtimer: interrupt took"))
		ksft_print_msg("many: the kernel logged \"%s\"\n",
			       "hrtimer: interrupt took");
	EXPECT_EQ(FLOOD_FILES, done_files);
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(0, early);
	EXPECT_EQ(0, dup);
	for (f = 0; f < FLOOD_FILES; f++) {
		EXPECT_EQ(per, got[f]) TH_LOG("file %u", f);
		EXPECT_EQ(0, wt_fdinfo(m.fds[f], "live"));
		close(m.fds[f]);
	}
	free(seen);
	free(ev);
	free(ops);
}

TEST_HARNESS_MAIN
