// SPDX-License-Identifier: GPL-2.0
/*
 * Every ioctl of /dev/wheeltimer, what it does when used right, and what it
 * answers when used wrong. A call that fails changes nothing: after each
 * failure the test compares the file's fdinfo (counters, wheel occupancy,
 * clock) and the QUERY of its timeouts with what they were before.
 *
 * The file runs on a virtual clock unless a test says otherwise, so that
 * nothing fires behind the test's back.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

#define FDINFO_SIZE	4096

FIXTURE(wt) {
	int fd;
	char before[FDINFO_SIZE];
	char after[FDINFO_SIZE];
};

FIXTURE_SETUP(wt)
{
	self->fd = wt_open();
	if (self->fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	ASSERT_EQ(0, wt_virtual(self->fd, 1 * MSEC));
}

FIXTURE_TEARDOWN(wt)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * The 6.1 harness runs the test body even after SKIP() in the setup: each
 * test starts with "if (self->fd < 0) return;", which keeps the skip.
 */

#define SNAPSHOT() wt_fdinfo_text(self->fd, self->before, FDINFO_SIZE)
#define ASSERT_UNCHANGED() do { \
	wt_fdinfo_text(self->fd, self->after, FDINFO_SIZE); \
	ASSERT_STREQ(self->before, self->after); \
} while (0)

/* A limit the administrator sets, from /proc/sys/dev/wheeltimer/. */
static __u64 sysctl_limit(const char *name)
{
	char path[128], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/dev/wheeltimer/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return strtoull(buf, NULL, 0);
}

/*
 * A page followed by nothing: the next page is unmapped, so that an access
 * running off its end faults. With @len bytes of @src copied to its end,
 * and made read-only if @readonly.
 */
static char *page_before_a_hole(const void *src, size_t len, bool readonly)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p + 4096, 4096);
	memcpy(p + 4096 - len, src, len);
	if (readonly)
		mprotect(p, 4096, PROT_READ);
	return p;
}

/* ---- WT_IOC_API ---- */

TEST_F(wt, api_reports_version_features_and_ioctls)
{
	struct wt_api api = { .api = WT_API_VERSION };

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, ioctl(self->fd, WT_IOC_API, &api));
	EXPECT_EQ(WT_API_VERSION, api.api);
	EXPECT_EQ(WT_FEATURE_VIRTUAL_CLOCK | WT_FEATURE_PERIODIC |
		  WT_FEATURE_SLACK | WT_FEATURE_EVENTFD |
		  WT_FEATURE_BOOTTIME | WT_FEATURE_REALTIME |
		  WT_FEATURE_LEASED_IDS, api.features);
	EXPECT_EQ(0xfffULL, api.ioctls);
	EXPECT_EQ(sizeof(struct wt_event), api.event_size);
	EXPECT_EQ(WT_BATCH_MAX, api.batch_max);
}

TEST_F(wt, api_accepts_the_features_it_has)
{
	struct wt_api api = {
		.api = WT_API_VERSION,
		.features = WT_FEATURE_PERIODIC | WT_FEATURE_EVENTFD,
	};

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, ioctl(self->fd, WT_IOC_API, &api));
}

TEST_F(wt, api_rejects_another_version_and_zeroes_the_answer)
{
	struct wt_api api = { .api = WT_API_VERSION + 1, .features = 1 };

	if (self->fd < 0)
		return;
	ASSERT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_API, &api)));
	EXPECT_EQ(0, api.api);
	EXPECT_EQ(0, api.features);
	EXPECT_EQ(0, api.ioctls);
}

TEST_F(wt, api_rejects_a_feature_it_lacks)
{
	struct wt_api api = { .api = WT_API_VERSION, .features = 1ULL << 63 };

	if (self->fd < 0)
		return;
	ASSERT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_API, &api)));
	EXPECT_EQ(0, api.features);
}

/*
 * The fields the kernel only writes must be zero on the way in, so that
 * a later version may give them a meaning: -EINVAL, the answer zeroed.
 */
TEST_F(wt, api_rejects_anything_in_its_output_fields)
{
	struct wt_api api;
	int field;

	if (self->fd < 0)
		return;
	for (field = 0; field < 3; field++) {
		api = (struct wt_api){ .api = WT_API_VERSION };
		if (field == 0)
			api.ioctls = 1ULL << _WT_IOC_API;
		else if (field == 1)
			api.event_size = sizeof(struct wt_event);
		else
			api.batch_max = WT_BATCH_MAX;
		EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_API, &api)))
			TH_LOG("output field %d set", field);
		EXPECT_EQ(0, api.api);
		EXPECT_EQ(0, api.ioctls);
		EXPECT_EQ(0, api.event_size);
		EXPECT_EQ(0, api.batch_max);
	}
}

TEST_F(wt, api_bad_pointer_is_efault)
{
	if (self->fd < 0)
		return;
	ASSERT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_API, (void *)8)));
}

TEST_F(wt, unknown_commands_are_enotty)
{
	struct wt_op op = {};

	if (self->fd < 0)
		return;
	SNAPSHOT();
	EXPECT_EQ(-ENOTTY, wt_ret(ioctl(self->fd,
					_IOWR(WT_IOC_MAGIC, 0x3f, struct wt_op),
					&op)));
	/* A known number with the wrong size is another command. */
	EXPECT_EQ(-ENOTTY, wt_ret(ioctl(self->fd,
					_IOWR(WT_IOC_MAGIC, _WT_IOC_ADD, int),
					&op)));
	EXPECT_EQ(-ENOTTY, wt_ret(ioctl(self->fd, _IO('T', 1), 0)));
	ASSERT_UNCHANGED();
}

/* ---- WT_IOC_SET_CONFIG, WT_IOC_GET_CONFIG ---- */

TEST(config_of_a_new_file_is_monotonic_at_one_millisecond)
{
	struct wt_config c;
	int fd = wt_open();

	if (fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	ASSERT_EQ(0, wt_get_config(fd, &c));
	EXPECT_EQ(WT_RESOLUTION_DEFAULT, c.resolution);
	EXPECT_EQ(CLOCK_MONOTONIC, c.clockid);
	EXPECT_EQ(0, c.flags);
	EXPECT_EQ(sysctl_limit("max_pending"), c.max_pending);
	EXPECT_EQ(0, c.reserved[0] | c.reserved[1] | c.reserved[2]);
	close(fd);
}

TEST_F(wt, config_set_is_what_get_returns)
{
	struct wt_config c;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_config(self->fd, 2 * MSEC, CLOCK_BOOTTIME, 0, 100));
	ASSERT_EQ(0, wt_get_config(self->fd, &c));
	EXPECT_EQ(2 * MSEC, c.resolution);
	EXPECT_EQ(CLOCK_BOOTTIME, c.clockid);
	EXPECT_EQ(0, c.flags);
	EXPECT_EQ(100, c.max_pending);

	ASSERT_EQ(0, wt_config(self->fd, WT_RESOLUTION_MIN, CLOCK_REALTIME,
			       WT_CONFIG_VIRTUAL, 0));
	ASSERT_EQ(0, wt_get_config(self->fd, &c));
	EXPECT_EQ(WT_RESOLUTION_MIN, c.resolution);
	EXPECT_EQ(CLOCK_REALTIME, c.clockid);
	EXPECT_EQ(WT_CONFIG_VIRTUAL, c.flags);
	/* 0 stands for the default, the sysctl max_pending. */
	EXPECT_EQ(sysctl_limit("max_pending"), c.max_pending);

	ASSERT_EQ(0, wt_config(self->fd, WT_RESOLUTION_MAX, CLOCK_MONOTONIC,
			       0, sysctl_limit("max_pending_limit")));
}

TEST_F(wt, config_rejects_each_bad_field_and_keeps_the_old_one)
{
	struct wt_config good = {
		.resolution = 1 * MSEC,
		.clockid = CLOCK_MONOTONIC,
		.flags = WT_CONFIG_VIRTUAL,
	};
	struct wt_config c, now;

	if (self->fd < 0)
		return;
	SNAPSHOT();

	c = good;
	c.reserved[2] = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_SET_CONFIG, &c)));
	c = good;
	c.flags = WT_CONFIG_VIRTUAL << 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_SET_CONFIG, &c)));
	c = good;
	c.resolution = WT_RESOLUTION_MIN - 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_SET_CONFIG, &c)));
	c = good;
	c.resolution = WT_RESOLUTION_MAX + 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_SET_CONFIG, &c)));
	c = good;
	c.clockid = CLOCK_PROCESS_CPUTIME_ID;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_SET_CONFIG, &c)));
	c = good;
	c.clockid = CLOCK_TAI;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_SET_CONFIG, &c)));
	c = good;
	c.clockid = (__u32)-1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_SET_CONFIG, &c)));
	c = good;
	c.max_pending = sysctl_limit("max_pending_limit") + 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_SET_CONFIG, &c)));
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_SET_CONFIG, (void *)8)));
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_GET_CONFIG, (void *)8)));

	ASSERT_EQ(0, wt_get_config(self->fd, &now));
	EXPECT_EQ(1 * MSEC, now.resolution);
	EXPECT_EQ(WT_CONFIG_VIRTUAL, now.flags);
	EXPECT_EQ(CLOCK_MONOTONIC, now.clockid);
	ASSERT_UNCHANGED();
}

TEST_F(wt, config_is_refused_while_the_file_holds_timeouts)
{
	struct wt_event ev;
	struct wt_config c;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 5 * MSEC, &id));
	SNAPSHOT();
	EXPECT_EQ(-EBUSY, wt_config(self->fd, 2 * MSEC, CLOCK_MONOTONIC, 0, 0));
	ASSERT_UNCHANGED();

	/* Fired but unread still counts: the record holds the id. */
	ASSERT_EQ(1, wt_advance(self->fd, 5 * MSEC));
	EXPECT_EQ(-EBUSY, wt_config(self->fd, 2 * MSEC, CLOCK_MONOTONIC, 0, 0));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(0, wt_config(self->fd, 2 * MSEC, CLOCK_MONOTONIC, 0, 0));
	ASSERT_EQ(0, wt_get_config(self->fd, &c));
	EXPECT_EQ(2 * MSEC, c.resolution);
	EXPECT_EQ(0, c.flags);
}

/* ---- WT_IOC_ADD ---- */

TEST_F(wt, add_returns_an_id_that_query_describes)
{
	struct wt_query q;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_advance(self->fd, 3 * MSEC));
	ASSERT_EQ(0, wt_add_full(self->fd, 0, 5 * MSEC, 0, 0, 0xc00c1e, &id));
	EXPECT_NE(0, id);
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(id, q.id);
	EXPECT_EQ(WT_STATE_PENDING, q.state);
	EXPECT_EQ(8 * MSEC, q.deadline);
	EXPECT_EQ(5 * MSEC, q.remaining);
	EXPECT_EQ(0xc00c1e, q.cookie);
	EXPECT_EQ(0, q.period);
	EXPECT_EQ(0, q.flags);
	EXPECT_EQ(1, wt_fdinfo(self->fd, "pending"));
	EXPECT_EQ(1, wt_fdinfo(self->fd, "added"));
}

TEST_F(wt, add_abstime_takes_the_deadline_as_is)
{
	struct wt_query q;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_advance(self->fd, 3 * MSEC));
	ASSERT_EQ(0, wt_add_abs(self->fd, 5 * MSEC, &id));
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(5 * MSEC, q.deadline);
	EXPECT_EQ(2 * MSEC, q.remaining);
}

TEST_F(wt, add_periodic_reports_its_period_and_kind)
{
	struct wt_query q;
	__u64 a, b;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add_full(self->fd, WT_FIXED_RATE, 1 * MSEC, 7 * MSEC,
				 0, 1, &a));
	ASSERT_EQ(0, wt_add_full(self->fd, WT_FIXED_DELAY, 1 * MSEC, 9 * MSEC,
				 2 * MSEC, 2, &b));
	ASSERT_EQ(0, wt_query(self->fd, a, &q));
	EXPECT_EQ(WT_FIXED_RATE, q.flags);
	EXPECT_EQ(7 * MSEC, q.period);
	ASSERT_EQ(0, wt_query(self->fd, b, &q));
	EXPECT_EQ(WT_FIXED_DELAY, q.flags);
	EXPECT_EQ(9 * MSEC, q.period);
}

TEST_F(wt, add_takes_op_zero_or_add_and_nothing_else)
{
	struct wt_op op = { .deadline = 1 * MSEC };

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, ioctl(self->fd, WT_IOC_ADD, &op));
	EXPECT_EQ(WT_STATUS_ADDED, op.status);
	EXPECT_EQ(0, op.error);
	EXPECT_NE(0, op.id);

	SNAPSHOT();
	op.op = WT_OP_CANCEL;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_ADD, &op)));
	EXPECT_EQ(EINVAL, op.error);
	EXPECT_EQ(0, op.status);
	op.op = 99;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_ADD, &op)));
	ASSERT_UNCHANGED();
}

TEST_F(wt, add_rejects_bad_flags_periods_slack_and_reserved)
{
	struct wt_op base = {
		.op = WT_OP_ADD,
		.deadline = 1 * MSEC,
	};
	struct wt_op op;
	__u64 bad_flags[] = {
		1ULL << 3, 1ULL << 31, 1ULL << 32, 1ULL << 63,
		WT_EVENT_FINAL, WT_FIXED_RATE | WT_FIXED_DELAY,
	};
	unsigned int i;

	if (self->fd < 0)
		return;
	SNAPSHOT();
	for (i = 0; i < ARRAY_SIZE(bad_flags); i++) {
		op = base;
		op.flags = bad_flags[i];
		op.period = bad_flags[i] & (WT_FIXED_RATE | WT_FIXED_DELAY) ?
			    MSEC : 0;
		EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_ADD, &op)))
			TH_LOG("flags %#llx", (unsigned long long)op.flags);
		EXPECT_EQ(EINVAL, op.error);
	}
	/* A period without a periodic flag, and the reverse. */
	op = base;
	op.period = MSEC;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_ADD, &op)));
	op = base;
	op.flags = WT_FIXED_RATE;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_ADD, &op)));
	op.flags = WT_FIXED_DELAY;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_ADD, &op)));
	op.period = WT_KTIME_MAX + 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_ADD, &op)));
	op = base;
	op.slack = WT_KTIME_MAX + 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_ADD, &op)));
	op = base;
	op.reserved = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_ADD, &op)));
	ASSERT_UNCHANGED();
}

TEST_F(wt, add_deadlines_beyond_ktime_max_are_erange)
{
	const __u64 last = WT_KTIME_MAX / MSEC * MSEC;
	__u64 id;

	if (self->fd < 0)
		return;
	/*
	 * The last deadline is the start of the last tick that starts by
	 * KTIME_MAX; at virtual time 0 both reach it exactly: fine.
	 */
	EXPECT_EQ(0, wt_add_abs(self->fd, last, &id));
	EXPECT_EQ(0, wt_add(self->fd, last, &id));
	ASSERT_EQ(0, wt_advance(self->fd, 1));

	SNAPSHOT();
	/* In the last, partial tick: no clock reading could reach its end. */
	EXPECT_EQ(-ERANGE, wt_add_abs(self->fd, WT_KTIME_MAX, &id));
	EXPECT_EQ(-ERANGE, wt_add_abs(self->fd, last + 1, &id));
	EXPECT_EQ(-ERANGE, wt_add(self->fd, last, &id));	/* now is 1 ns */
	EXPECT_EQ(-ERANGE, wt_add_full(self->fd, WT_FIXED_DELAY | WT_ABSTIME,
				       WT_KTIME_MAX, SEC, 0, 0, &id));
	EXPECT_EQ(-ERANGE, wt_add_abs(self->fd, WT_KTIME_MAX + 1, &id));
	EXPECT_EQ(-ERANGE, wt_add_abs(self->fd, UINT64_MAX, &id));
	EXPECT_EQ(-ERANGE, wt_add(self->fd, WT_KTIME_MAX, &id));
	EXPECT_EQ(-ERANGE, wt_add(self->fd, UINT64_MAX, &id));
	EXPECT_EQ(-ERANGE, wt_add_full(self->fd, WT_FIXED_RATE, WT_KTIME_MAX,
				       1, 0, 0, &id));
	ASSERT_UNCHANGED();
}

TEST_F(wt, modify_into_the_last_partial_tick_is_erange)
{
	const __u64 last = WT_KTIME_MAX / MSEC * MSEC;
	struct wt_query before, after;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 5 * MSEC, &id));
	ASSERT_EQ(0, wt_query(self->fd, id, &before));
	SNAPSHOT();
	EXPECT_EQ(-ERANGE, wt_modify(self->fd, id, WT_ABSTIME, WT_KTIME_MAX, 0));
	EXPECT_EQ(-ERANGE, wt_modify(self->fd, id, WT_ABSTIME, last + 1, 0));
	EXPECT_EQ(-ERANGE, wt_modify(self->fd, id, 0, last + 1, 0));
	ASSERT_UNCHANGED();
	ASSERT_EQ(0, wt_query(self->fd, id, &after));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	EXPECT_EQ(WT_STATUS_PENDING, wt_modify(self->fd, id, WT_ABSTIME, last, 0));
	ASSERT_EQ(0, wt_query(self->fd, id, &after));
	EXPECT_EQ(last, after.deadline);
}

TEST_F(wt, add_with_a_bad_pointer_adds_nothing)
{
	struct wt_op op = { .op = WT_OP_ADD, .deadline = MSEC };
	char *ro = page_before_a_hole(&op, sizeof(op), true);
	char *cut = page_before_a_hole(&op, sizeof(op) - 8, false);
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_NE(NULL, ro);
	ASSERT_NE(NULL, cut);
	ASSERT_EQ(0, wt_add(self->fd, 5 * MSEC, &id));
	SNAPSHOT();
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_ADD, (void *)8)));
	/* Readable but not writable: the id could not be returned. */
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_ADD,
					ro + 4096 - sizeof(op))));
	/* The struct runs into the unmapped page. */
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_ADD,
					cut + 4096 - sizeof(op) + 8)));
	/* Nor may a cancel or modify whose outcome could not be told. */
	op.op = WT_OP_CANCEL;
	op.id = id;
	op.deadline = 0;
	munmap(ro, 4096);
	ro = page_before_a_hole(&op, sizeof(op), true);
	ASSERT_NE(NULL, ro);
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_CANCEL,
					ro + 4096 - sizeof(op))));
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_MODIFY,
					ro + 4096 - sizeof(op))));
	ASSERT_UNCHANGED();
	munmap(ro, 4096);
	munmap(cut, 4096);
}

TEST_F(wt, add_beyond_max_pending_is_enospc)
{
	struct wt_event ev;
	__u64 id[3], extra;
	int i;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_config(self->fd, 1 * MSEC, CLOCK_MONOTONIC,
			       WT_CONFIG_VIRTUAL, 3));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, wt_add(self->fd, (i + 1) * MSEC, &id[i]));
	SNAPSHOT();
	EXPECT_EQ(-ENOSPC, wt_add(self->fd, 1 * MSEC, &extra));
	EXPECT_EQ(-ENOSPC, wt_add_full(self->fd, WT_FIXED_RATE, 1 * MSEC,
				       MSEC, 0, 0, &extra));
	ASSERT_UNCHANGED();

	/* A cancel makes room. */
	ASSERT_EQ(WT_STATUS_PENDING, wt_cancel(self->fd, id[0]));
	ASSERT_EQ(0, wt_add(self->fd, 10 * MSEC, &id[0]));
	EXPECT_EQ(-ENOSPC, wt_add(self->fd, 1 * MSEC, &extra));

	/* Fired is not gone: reading the record is. */
	ASSERT_EQ(2, wt_advance(self->fd, 3 * MSEC));
	EXPECT_EQ(-ENOSPC, wt_add(self->fd, 1 * MSEC, &extra));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(0, wt_add(self->fd, 1 * MSEC, &extra));
	EXPECT_EQ(3, wt_fdinfo(self->fd, "live"));
}

/* ---- WT_IOC_CANCEL ---- */

TEST_F(wt, cancel_of_a_pending_timeout_cancels_it)
{
	struct wt_event ev;
	struct wt_query q;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 5 * MSEC, &id));
	ASSERT_EQ(WT_STATUS_PENDING, wt_cancel(self->fd, id));
	EXPECT_EQ(-ENOENT, wt_query(self->fd, id, &q));
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, id));
	EXPECT_EQ(0, wt_advance(self->fd, 10 * MSEC));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(1, wt_fdinfo(self->fd, "cancelled"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "pending"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
}

TEST_F(wt, cancel_after_firing_withdraws_the_unread_record)
{
	struct wt_event ev;
	struct wt_query q;
	__u64 id, other;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 5 * MSEC, &id));
	ASSERT_EQ(0, wt_add(self->fd, 6 * MSEC, &other));
	ASSERT_EQ(2, wt_advance(self->fd, 10 * MSEC));
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(WT_STATE_FIRED, q.state);
	EXPECT_EQ(0, q.remaining);

	ASSERT_EQ(WT_STATUS_WITHDRAWN, wt_cancel(self->fd, id));
	/* Only the other record is left. */
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(other, ev.id);
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(1, wt_fdinfo(self->fd, "withdrawn"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "cancelled"));
}

TEST_F(wt, cancel_after_the_record_was_read_is_enoent)
{
	struct wt_event ev;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 1 * MSEC, &id));
	ASSERT_EQ(1, wt_advance(self->fd, 1 * MSEC));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_TRUE(ev.flags & WT_EVENT_FINAL);
	SNAPSHOT();
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, id));
	ASSERT_UNCHANGED();
}

TEST_F(wt, cancel_of_unknown_and_stale_ids_is_enoent)
{
	struct wt_query q;
	__u64 id, old;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 5 * MSEC, &old));
	ASSERT_EQ(WT_STATUS_PENDING, wt_cancel(self->fd, old));
	ASSERT_EQ(0, wt_add(self->fd, 5 * MSEC, &id));
	EXPECT_NE(old, id);
	SNAPSHOT();
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, 0));
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, old));
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, id + 1));
	/* Same index, another generation. */
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, id + (1ULL << 32)));
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, id | (1ULL << 63)));
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, UINT64_MAX));
	EXPECT_EQ(-ENOENT, wt_query(self->fd, old, &q));
	ASSERT_UNCHANGED();
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(WT_STATE_PENDING, q.state);
}

TEST_F(wt, cancel_rejects_fields_it_does_not_use)
{
	struct wt_op op;
	struct wt_query q;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 5 * MSEC, &id));
	SNAPSHOT();
	memset(&op, 0, sizeof(op));
	op.id = id;
	op.flags = WT_ABSTIME;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_CANCEL, &op)));
	op.flags = 0;
	op.deadline = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_CANCEL, &op)));
	op.deadline = 0;
	op.cookie = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_CANCEL, &op)));
	op.cookie = 0;
	op.period = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_CANCEL, &op)));
	op.period = 0;
	op.slack = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_CANCEL, &op)));
	op.slack = 0;
	op.reserved = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_CANCEL, &op)));
	ASSERT_UNCHANGED();
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
}

/* ---- WT_IOC_MODIFY ---- */

TEST_F(wt, modify_moves_a_pending_timeout_later_or_earlier)
{
	struct wt_event ev;
	struct wt_query q;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add_full(self->fd, 0, 5 * MSEC, 0, 0, 42, &id));
	ASSERT_EQ(WT_STATUS_PENDING, wt_modify(self->fd, id, 0, 10 * MSEC, 0));
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(10 * MSEC, q.deadline);
	EXPECT_EQ(42, q.cookie);
	EXPECT_EQ(0, wt_advance(self->fd, 9 * MSEC));
	ASSERT_EQ(WT_STATUS_PENDING,
		  wt_modify(self->fd, id, WT_ABSTIME, 9500 * USEC, 0));
	EXPECT_EQ(1, wt_advance(self->fd, 1 * MSEC));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(id, ev.id);
	EXPECT_EQ(9500 * USEC, ev.deadline);
	EXPECT_EQ(42, ev.cookie);
	EXPECT_EQ(2, wt_fdinfo(self->fd, "modified"));
}

TEST_F(wt, modify_after_firing_withdraws_the_record_and_rearms)
{
	struct wt_event ev[2];
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 1 * MSEC, &id));
	ASSERT_EQ(1, wt_advance(self->fd, 1 * MSEC));
	ASSERT_EQ(WT_STATUS_WITHDRAWN, wt_modify(self->fd, id, 0, 4 * MSEC, 0));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, ev, 2));
	EXPECT_EQ(1, wt_advance(self->fd, 4 * MSEC));
	ASSERT_EQ(1, wt_read(self->fd, ev, 2));
	EXPECT_EQ(id, ev[0].id);
	EXPECT_EQ(5 * MSEC, ev[0].deadline);
}

TEST_F(wt, modify_rejects_bad_input_and_keeps_the_timeout)
{
	struct wt_query before, after;
	struct wt_op op;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add_full(self->fd, WT_FIXED_RATE, 5 * MSEC, MSEC, 0,
				 7, &id));
	ASSERT_EQ(0, wt_query(self->fd, id, &before));
	SNAPSHOT();
	memset(&op, 0, sizeof(op));
	op.id = id;
	op.deadline = MSEC;
	op.flags = WT_FIXED_DELAY;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_MODIFY, &op)));
	op.flags = 1ULL << 40;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_MODIFY, &op)));
	op.flags = 0;
	op.period = MSEC;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_MODIFY, &op)));
	op.period = 0;
	op.cookie = 8;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_MODIFY, &op)));
	op.cookie = 0;
	op.slack = WT_KTIME_MAX + 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_MODIFY, &op)));
	op.slack = 0;
	op.deadline = WT_KTIME_MAX + 1;
	op.flags = WT_ABSTIME;
	EXPECT_EQ(-ERANGE, wt_ret(ioctl(self->fd, WT_IOC_MODIFY, &op)));
	op.deadline = MSEC;
	op.flags = 0;
	op.id = id + (1ULL << 32);
	EXPECT_EQ(-ENOENT, wt_ret(ioctl(self->fd, WT_IOC_MODIFY, &op)));
	op.id = 0;
	EXPECT_EQ(-ENOENT, wt_ret(ioctl(self->fd, WT_IOC_MODIFY, &op)));
	ASSERT_UNCHANGED();
	ASSERT_EQ(0, wt_query(self->fd, id, &after));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
}

/* ---- WT_IOC_BATCH ---- */

TEST_F(wt, batch_applies_each_operation_in_order_on_its_own)
{
	struct wt_op ops[7];
	struct wt_query q;
	__u64 keep, drop;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 5 * MSEC, &keep));
	ASSERT_EQ(0, wt_add(self->fd, 5 * MSEC, &drop));
	memset(ops, 0, sizeof(ops));
	ops[0].op = WT_OP_ADD;
	ops[0].deadline = 1 * MSEC;
	ops[0].cookie = 100;
	ops[1].op = WT_OP_CANCEL;
	ops[1].id = drop;
	ops[2].op = 9;				/* unknown */
	ops[3].op = WT_OP_MODIFY;
	ops[3].id = keep;
	ops[3].deadline = 7 * MSEC;
	ops[4].op = WT_OP_CANCEL;
	ops[4].id = drop;			/* cancelled by ops[1] */
	ops[5].op = WT_OP_ADD;
	ops[5].flags = 1ULL << 20;		/* unknown flag */
	ops[6].op = WT_OP_ADD;
	ops[6].flags = WT_FIXED_DELAY;
	ops[6].deadline = 2 * MSEC;
	ops[6].period = 3 * MSEC;

	ASSERT_EQ(4, wt_batch(self->fd, ops, 7));
	EXPECT_EQ(WT_STATUS_ADDED, ops[0].status);
	EXPECT_EQ(0, ops[0].error);
	EXPECT_NE(0, ops[0].id);
	EXPECT_EQ(WT_STATUS_PENDING, ops[1].status);
	EXPECT_EQ(EINVAL, ops[2].error);
	EXPECT_EQ(0, ops[2].status);
	EXPECT_EQ(WT_STATUS_PENDING, ops[3].status);
	EXPECT_EQ(ENOENT, ops[4].error);
	EXPECT_EQ(EINVAL, ops[5].error);
	EXPECT_EQ(0, ops[5].id);
	EXPECT_EQ(WT_STATUS_ADDED, ops[6].status);

	ASSERT_EQ(0, wt_query(self->fd, ops[0].id, &q));
	EXPECT_EQ(100, q.cookie);
	ASSERT_EQ(0, wt_query(self->fd, keep, &q));
	EXPECT_EQ(7 * MSEC, q.deadline);
	EXPECT_EQ(-ENOENT, wt_query(self->fd, drop, &q));
	ASSERT_EQ(0, wt_query(self->fd, ops[6].id, &q));
	EXPECT_EQ(WT_FIXED_DELAY, q.flags);
	EXPECT_EQ(3, wt_fdinfo(self->fd, "live"));
}

TEST_F(wt, batch_of_the_maximum_size_adds_them_all)
{
	struct wt_op *ops = calloc(WT_BATCH_MAX, sizeof(*ops));
	unsigned int i;

	if (self->fd < 0)
		return;
	ASSERT_NE(NULL, ops);
	for (i = 0; i < WT_BATCH_MAX; i++) {
		ops[i].op = WT_OP_ADD;
		ops[i].deadline = (i + 1) * USEC;
	}
	ASSERT_EQ(WT_BATCH_MAX, wt_batch(self->fd, ops, WT_BATCH_MAX));
	EXPECT_EQ(WT_BATCH_MAX, wt_fdinfo(self->fd, "pending"));
	free(ops);
}

TEST_F(wt, batch_rejects_bad_headers_and_unreachable_arrays_whole)
{
	struct wt_op ops[2] = {
		{ .op = WT_OP_ADD, .deadline = MSEC },
		{ .op = WT_OP_ADD, .deadline = MSEC },
	};
	struct wt_batch b = { .ops = (uintptr_t)ops, .count = 2 };
	char *ro = page_before_a_hole(ops, sizeof(ops), true);
	char *cut = page_before_a_hole(ops, sizeof(ops[0]), false);
	struct wt_batch c;

	if (self->fd < 0)
		return;
	ASSERT_NE(NULL, ro);
	ASSERT_NE(NULL, cut);
	SNAPSHOT();
	c = b;
	c.count = WT_BATCH_MAX + 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_BATCH, &c)));
	c = b;
	c.flags = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_BATCH, &c)));
	c = b;
	c.reserved = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_BATCH, &c)));
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_BATCH, (void *)8)));
	c = b;
	c.ops = 8;
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_BATCH, &c)));
	/* Two valid adds, readable but not writable: neither happens. */
	c.ops = (uintptr_t)ro + 4096 - sizeof(ops);
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_BATCH, &c)));
	/* Two adds, the second running into an unmapped page. */
	c.ops = (uintptr_t)cut + 4096 - sizeof(ops[0]);
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_BATCH, &c)));
	/* Zero operations: nothing to do, and nothing read. */
	c = b;
	c.count = 0;
	c.ops = 8;
	EXPECT_EQ(0, wt_ret(ioctl(self->fd, WT_IOC_BATCH, &c)));
	ASSERT_UNCHANGED();
	munmap(ro, 4096);
	munmap(cut, 4096);
}

/* ---- WT_IOC_ADVANCE ---- */

TEST_F(wt, advance_moves_the_virtual_clock_and_says_where_it_is)
{
	struct wt_advance a = { .time = 3 * MSEC };
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 2 * MSEC, &id));
	ASSERT_EQ(0, ioctl(self->fd, WT_IOC_ADVANCE, &a));
	EXPECT_EQ(3 * MSEC, a.now);
	EXPECT_EQ(1, a.expired);
	a.time = 10 * MSEC;
	a.flags = WT_ADVANCE_SET;
	ASSERT_EQ(0, ioctl(self->fd, WT_IOC_ADVANCE, &a));
	EXPECT_EQ(10 * MSEC, a.now);
	EXPECT_EQ(0, a.expired);
	EXPECT_EQ(10 * MSEC, wt_fdinfo(self->fd, "now_ns"));
}

TEST_F(wt, advance_rejects_bad_input)
{
	struct wt_advance a = { .time = 1, .flags = 2 };

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_advance(self->fd, 5 * MSEC));
	SNAPSHOT();
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_ADVANCE, &a)));
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_ADVANCE, (void *)8)));
	/* Only a virtual CLOCK_REALTIME may be set back. */
	EXPECT_EQ(-EINVAL, wt_set_clock(self->fd, 4 * MSEC));
	EXPECT_EQ(-ERANGE, wt_set_clock(self->fd, WT_KTIME_MAX + 1));
	EXPECT_EQ(-ERANGE, wt_advance(self->fd, WT_KTIME_MAX));
	EXPECT_EQ(-ERANGE, wt_advance(self->fd, UINT64_MAX));
	ASSERT_UNCHANGED();
	EXPECT_EQ(0, wt_set_clock(self->fd, WT_KTIME_MAX));
	EXPECT_EQ(-ERANGE, wt_advance(self->fd, 1));
}

TEST_F(wt, advance_with_a_readonly_struct_is_efault_and_changes_nothing)
{
	struct wt_advance a = { .time = 5 * MSEC };
	struct wt_advance set = { .time = 10 * MSEC, .flags = WT_ADVANCE_SET };
	char *ro = page_before_a_hole(&a, sizeof(a), true);
	char *ro_set = page_before_a_hole(&set, sizeof(set), true);
	struct wt_event ev;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_NE(NULL, ro);
	ASSERT_NE(NULL, ro_set);
	ASSERT_EQ(0, wt_add(self->fd, 2 * MSEC, &id));
	SNAPSHOT();
	/* Readable, not writable: the answer could not be given. */
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_ADVANCE,
					ro + 4096 - sizeof(a))));
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_ADVANCE,
					ro_set + 4096 - sizeof(set))));
	/* Neither the clock moved nor anything fired. */
	ASSERT_UNCHANGED();
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-EAGAIN, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "now_ns"));
	EXPECT_EQ(1, wt_advance(self->fd, 5 * MSEC));
	munmap(ro, 4096);
	munmap(ro_set, 4096);
}

/* An advance that fails leaves the caller's struct as it was. */
TEST_F(wt, a_failed_advance_writes_nothing_back)
{
	const struct wt_advance sent[] = {
		{ .time = WT_KTIME_MAX, .now = 0x1111, .expired = 0x2222 },
		{ .time = 1, .flags = WT_ADVANCE_SET, .now = 0x3333,
		  .expired = 0x4444 },
		{ .time = 1, .flags = 4, .now = 0x5555, .expired = 0x6666 },
	};
	const int errs[] = { ERANGE, EINVAL, EINVAL };
	struct wt_advance a;
	unsigned int i;
	int real;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_advance(self->fd, 5 * MSEC));
	for (i = 0; i < 3; i++) {
		a = sent[i];
		EXPECT_EQ(-errs[i], wt_ret(ioctl(self->fd, WT_IOC_ADVANCE, &a)));
		EXPECT_EQ(0, memcmp(&a, &sent[i], sizeof(a)))
			TH_LOG("case %u: now %#llx expired %#llx", i,
			       (unsigned long long)a.now,
			       (unsigned long long)a.expired);
	}
	/* On a real clock: -EINVAL, and nothing written either. */
	real = wt_open();
	ASSERT_LE(0, real);
	a = sent[0];
	a.time = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(real, WT_IOC_ADVANCE, &a)));
	EXPECT_EQ(0x1111, a.now);
	EXPECT_EQ(0x2222, a.expired);
	close(real);
}

TEST(advance_on_a_real_clock_is_einval)
{
	int fd = wt_open();

	if (fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	EXPECT_EQ(-EINVAL, wt_advance(fd, 1 * MSEC));
	EXPECT_EQ(-EINVAL, wt_set_clock(fd, 1 * MSEC));
	close(fd);
}

/* ---- WT_IOC_LEASE and WT_LEASED_ID ---- */

static int wt_lease(int fd, struct wt_lease *l)
{
	memset(l, 0, sizeof(*l));
	return wt_ret(ioctl(fd, WT_IOC_LEASE, l));
}

/* An ADD naming its own id, @id, with @deadline ns of delay. */
static int wt_add_leased(int fd, __u64 id, __u64 deadline, __u64 cookie)
{
	struct wt_op op = {
		.op = WT_OP_ADD,
		.flags = WT_LEASED_ID,
		.id = id,
		.deadline = deadline,
		.cookie = cookie,
	};
	int r = wt_ret(ioctl(fd, WT_IOC_ADD, &op));

	return r < 0 ? r : (op.id == id ? 0 : -EPROTO);
}

/*
 * A leased block's ids are the caller's: an ADD names one, with the
 * generation it likes, and that id is the timeout's everywhere.
 */
TEST_F(wt, a_leased_id_names_its_timeout_everywhere)
{
	struct wt_lease l, l2;
	struct wt_query q;
	struct wt_event ev;
	__u64 id, kid;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_lease(self->fd, &l));
	ASSERT_LT(0, l.first);
	ASSERT_LT(0, l.count);
	ASSERT_EQ(0, wt_lease(self->fd, &l2));
	/* Leases do not overlap. */
	EXPECT_TRUE(l2.first >= l.first + l.count ||
		    l2.first + l2.count <= l.first);
	id = 7ULL << 32 | (l.first + 3);
	ASSERT_EQ(0, wt_add_leased(self->fd, id, 2 * MSEC, 0xc0));
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(id, q.id);
	EXPECT_EQ(0xc0, q.cookie);
	/* The kernel never hands out a leased id itself. */
	ASSERT_EQ(0, wt_add(self->fd, 50 * MSEC, &kid));
	EXPECT_TRUE((__u32)kid < l.first || (__u32)kid >= l.first + l.count);
	EXPECT_TRUE((__u32)kid < l2.first || (__u32)kid >= l2.first + l2.count);
	ASSERT_EQ(1, wt_advance(self->fd, 2 * MSEC));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	EXPECT_EQ(id, ev.id);
	EXPECT_EQ(0xc0, ev.cookie);
	EXPECT_TRUE(ev.flags & WT_EVENT_FINAL);
	/* Released: stale, and free again, under another generation. */
	EXPECT_EQ(-ENOENT, wt_query(self->fd, id, &q));
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, id));
	ASSERT_EQ(0, wt_add_leased(self->fd, 8ULL << 32 | (l.first + 3),
				   5 * MSEC, 0xc1));
	EXPECT_EQ(-ENOENT, wt_cancel(self->fd, id));
	EXPECT_EQ(WT_STATUS_PENDING,
		  wt_cancel(self->fd, 8ULL << 32 | (l.first + 3)));
	EXPECT_EQ(WT_STATUS_PENDING, wt_cancel(self->fd, kid));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "live"));
}

TEST_F(wt, a_leased_id_must_be_leased_and_free)
{
	struct wt_op op = { .op = WT_OP_ADD, .flags = WT_LEASED_ID };
	struct wt_lease l;
	__u64 kid;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 50 * MSEC, &kid));
	/* No lease yet: no id is the caller's, the kernel's least of all. */
	EXPECT_EQ(-EINVAL, wt_add_leased(self->fd, kid, MSEC, 0));
	EXPECT_EQ(-EINVAL, wt_add_leased(self->fd, 1ULL << 32, MSEC, 0));
	ASSERT_EQ(0, wt_lease(self->fd, &l));
	SNAPSHOT();
	EXPECT_EQ(-EINVAL, wt_add_leased(self->fd, l.first + l.count, MSEC, 0));
	EXPECT_EQ(-EINVAL, wt_add_leased(self->fd, 0, MSEC, 0));
	EXPECT_EQ(-EINVAL, wt_add_leased(self->fd, (__u32)kid, MSEC, 0));
	ASSERT_UNCHANGED();
	ASSERT_EQ(0, wt_add_leased(self->fd, l.first, MSEC, 0));
	/* Live: -EEXIST, whatever the generation; the failed op says 0 status. */
	EXPECT_EQ(-EEXIST, wt_add_leased(self->fd, l.first, MSEC, 0));
	op.id = 5ULL << 32 | l.first;
	op.deadline = MSEC;
	EXPECT_EQ(-1, ioctl(self->fd, WT_IOC_ADD, &op));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(EEXIST, op.error);
	EXPECT_EQ(0, op.status);
	EXPECT_EQ(5ULL << 32 | l.first, op.id);
	/* Other bad input still fails as for any ADD. */
	EXPECT_EQ(-ERANGE, wt_add_leased(self->fd, l.first + 1,
					 WT_KTIME_MAX, 0));
	EXPECT_EQ(2, wt_fdinfo(self->fd, "live"));
	/* A lease with flags, or a struct that cannot be written: refused. */
	l.flags = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_LEASE, &l)));
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_LEASE, (void *)8)));
}

/* @n operations in batches of at most WT_BATCH_MAX; how many succeeded. */
static int batch_all(int fd, struct wt_op *ops, unsigned int n)
{
	unsigned int i, k;
	int r, done = 0;

	for (i = 0; i < n; i += k) {
		k = n - i < WT_BATCH_MAX ? n - i : WT_BATCH_MAX;
		r = wt_batch(fd, ops + i, k);
		if (r < 0)
			return r;
		done += r;
	}
	return done;
}

/*
 * A block leased after the file gave blocks back (an emptied store keeps
 * 16) gets ids that no timeout of the file ever had: an id gone stale
 * before the lease finds nothing, whatever generation the lessee gives
 * its timeouts (libwheeltimer gives 1 to each at first). Two rounds of
 * kernel-given ids over 24 blocks leave stale ids of generations 0 and 1
 * at every index of them.
 */
TEST_F(wt, a_stale_id_never_reaches_a_leased_timeout)
{
	enum { N = 24 * 85, LEASES = 8 };
	static struct wt_op ops[N];
	static __u64 stale[2 * N];
	__u32 lo[LEASES], hi[LEASES];
	unsigned int round, i, k, n = 0, named = 0, found = 0;
	struct wt_lease l;
	struct wt_query q;

	if (self->fd < 0)
		return;
	for (round = 0; round < 2; round++) {
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < N; i++) {
			ops[i].op = WT_OP_ADD;
			ops[i].deadline = SEC;
		}
		ASSERT_EQ(N, batch_all(self->fd, ops, N));
		for (i = 0; i < N; i++) {
			stale[n++] = ops[i].id;
			ops[i] = (struct wt_op){ .op = WT_OP_CANCEL,
						 .id = stale[n - 1] };
		}
		ASSERT_EQ(N, batch_all(self->fd, ops, N));
	}
	ASSERT_EQ(0, wt_fdinfo(self->fd, "live"));
	/* The store gave all but 16 blocks back. */
	EXPECT_EQ(16, wt_fdinfo(self->fd, "timer_blocks"));

	for (k = 0; k < LEASES; k++) {
		ASSERT_EQ(0, wt_lease(self->fd, &l));
		lo[k] = l.first;
		hi[k] = l.first + l.count;
		for (i = lo[k]; i < hi[k]; i++)
			ASSERT_EQ(0, wt_add_leased(self->fd, 1ULL << 32 | i,
						   SEC, i));
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < LEASES; k++)
			if ((__u32)stale[i] >= lo[k] && (__u32)stale[i] < hi[k])
				named++;
		if (wt_query(self->fd, stale[i], &q) != -ENOENT && !found++)
			ksft_print_msg("stale id %#llx found the timeout with cookie %llu\n",
				       stale[i], q.cookie);
	}
	EXPECT_EQ(0, found) TH_LOG("%u of %u stale ids found a timeout", found, n);
	EXPECT_EQ(0, named) TH_LOG("%u stale ids name an index leased", named);
	EXPECT_EQ(LEASES * l.count, wt_fdinfo(self->fd, "live"));
}

/* A file leases at most max_pending + 65536 ids; a failed lease writes nothing. */
TEST_F(wt, leases_stop_at_max_pending_and_some)
{
	struct wt_lease l, sent = { .first = 0x1111, .count = 0x2222 };
	unsigned int n = 0, ids = 0, block = 0;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_config(self->fd, MSEC, CLOCK_MONOTONIC,
			       WT_CONFIG_VIRTUAL, 100));
	while (!wt_lease(self->fd, &l)) {
		block = l.count;
		ids += l.count;
		ASSERT_GT(1000, ++n);
	}
	/* Rounded up to whole blocks. */
	EXPECT_LE(100 + 65536, ids);
	EXPECT_GT(100 + 65536 + block, ids);
	l = sent;
	EXPECT_EQ(-ENOSPC, wt_ret(ioctl(self->fd, WT_IOC_LEASE, &l)));
	EXPECT_EQ(0, memcmp(&l, &sent, sizeof(l)));
	/* The blocks count against the user, as the store's others do. */
	EXPECT_EQ(n, wt_fdinfo(self->fd, "timer_blocks"));
}

/* ---- WT_IOC_SET_EVENTFD ---- */

TEST_F(wt, set_eventfd_takes_an_eventfd_or_none)
{
	struct wt_eventfd e = { .fd = 0 };
	int efd = eventfd(0, EFD_CLOEXEC);
	int pipefd[2];

	if (self->fd < 0)
		return;
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, wt_set_eventfd(self->fd, efd));
	EXPECT_EQ(1, wt_fdinfo(self->fd, "eventfd"));
	ASSERT_EQ(0, wt_set_eventfd(self->fd, WT_EVENTFD_NONE));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "eventfd"));

	SNAPSHOT();
	EXPECT_EQ(-EINVAL, wt_set_eventfd(self->fd, pipefd[0]));
	EXPECT_EQ(-EINVAL, wt_set_eventfd(self->fd, self->fd));
	EXPECT_EQ(-EBADF, wt_set_eventfd(self->fd, 1000000));
	EXPECT_EQ(-EBADF, wt_set_eventfd(self->fd, 0x80000000U));
	e.fd = efd;
	e.flags = 1;
	EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_SET_EVENTFD, &e)));
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_SET_EVENTFD,
					(void *)8)));
	ASSERT_UNCHANGED();
	close(efd);
	close(pipefd[0]);
	close(pipefd[1]);
}

TEST_F(wt, set_eventfd_keeps_its_own_reference)
{
	int efd = eventfd(0, EFD_CLOEXEC);
	__u64 id, count = 0;
	int dup_fd;

	if (self->fd < 0)
		return;
	ASSERT_LE(0, efd);
	dup_fd = dup(efd);
	ASSERT_EQ(0, wt_set_eventfd(self->fd, efd));
	close(efd);
	ASSERT_EQ(0, wt_add(self->fd, 1 * MSEC, &id));
	ASSERT_EQ(1, wt_advance(self->fd, 1 * MSEC));
	ASSERT_EQ(sizeof(count), read(dup_fd, &count, sizeof(count)));
	EXPECT_EQ(1, count);
	close(dup_fd);
}

/* ---- WT_IOC_QUERY ---- */

TEST_F(wt, query_of_unknown_ids_and_bad_pointers_fails)
{
	struct wt_query q;

	if (self->fd < 0)
		return;
	SNAPSHOT();
	EXPECT_EQ(-ENOENT, wt_query(self->fd, 0, &q));
	EXPECT_EQ(-ENOENT, wt_query(self->fd, 1, &q));
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_QUERY, (void *)8)));
	ASSERT_UNCHANGED();
}

/*
 * QUERY reads only @id: every other field must be zero on the way in, so
 * that a later version may give one a meaning. A refused QUERY writes
 * nothing back.
 */
TEST_F(wt, query_rejects_anything_but_an_id_on_the_way_in)
{
	struct wt_query q, sent;
	unsigned int off;
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, SEC, &id));
	SNAPSHOT();
	for (off = sizeof(q.id); off < sizeof(q); off += sizeof(__u32)) {
		memset(&q, 0, sizeof(q));
		q.id = id;
		((unsigned char *)&q)[off] = 1;
		sent = q;
		EXPECT_EQ(-EINVAL, wt_ret(ioctl(self->fd, WT_IOC_QUERY, &q)))
			TH_LOG("byte %u of struct wt_query set", off);
		EXPECT_EQ(0, memcmp(&q, &sent, sizeof(q)));
	}
	ASSERT_UNCHANGED();
	ASSERT_EQ(0, wt_query(self->fd, id, &q));
	EXPECT_EQ(WT_STATE_PENDING, q.state);
}

/* ---- read() ---- */

TEST_F(wt, read_needs_room_for_a_whole_record)
{
	char buf[sizeof(struct wt_event)];
	__u64 id;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 1 * MSEC, &id));
	ASSERT_EQ(1, wt_advance(self->fd, 1 * MSEC));
	SNAPSHOT();
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf) - 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, read(self->fd, buf, 0));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_UNCHANGED();
	/* A buffer of one and a half records gets one. */
	EXPECT_EQ(sizeof(struct wt_event), read(self->fd, buf, sizeof(buf)));
}

TEST_F(wt, read_without_records_is_eagain_when_nonblocking)
{
	struct wt_event ev;
	int fd;

	if (self->fd < 0)
		return;
	fd = open(WT_DEV, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EAGAIN, wt_read(fd, &ev, 1));
	close(fd);
}

TEST_F(wt, read_into_a_bad_buffer_loses_nothing)
{
	struct wt_event ev[2];
	char *map;
	__u64 a, b;

	if (self->fd < 0)
		return;
	ASSERT_EQ(0, wt_add(self->fd, 1 * MSEC, &a));
	ASSERT_EQ(0, wt_add(self->fd, 2 * MSEC, &b));
	ASSERT_EQ(2, wt_advance(self->fd, 2 * MSEC));
	SNAPSHOT();
	/* By syscall(), which keeps the compiler from judging the address. */
	EXPECT_EQ(-1, syscall(SYS_read, self->fd, 8UL, sizeof(ev)));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_UNCHANGED();

	/* Room for one record before an unmapped page: one is read. */
	map = page_before_a_hole(ev, 0, false);
	ASSERT_NE(NULL, map);
	EXPECT_EQ(sizeof(ev[0]),
		  read(self->fd, map + 4096 - sizeof(ev[0]) - 8, sizeof(ev)));
	memcpy(&ev[0], map + 4096 - sizeof(ev[0]) - 8, sizeof(ev[0]));
	EXPECT_EQ(a, ev[0].id);
	/* The other one is still there, and comes next. */
	ASSERT_EQ(1, wt_read(self->fd, ev, 2));
	EXPECT_EQ(b, ev[0].id);
	EXPECT_EQ(2, wt_fdinfo(self->fd, "delivered"));
	munmap(map, 4096);
}

TEST_F(wt, seeking_is_not_supported)
{
	if (self->fd < 0)
		return;
	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
}

TEST_HARNESS_MAIN
