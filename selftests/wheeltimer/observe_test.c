// SPDX-License-Identifier: GPL-2.0
/*
 * What an administrator or a tool observes of a file: the counters of
 * WT_IOC_STATS, which must say what fdinfo says and cope with callers
 * built against a smaller or larger struct wt_stats, and the tracepoints
 * in tracefs, which must show a known sequence of operations as the
 * matching events, in order, with the right ids.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "../kselftest_harness.h"
#include "wt_trace.h"
#include "wt_util.h"

FIXTURE(observe) {
	int fd;
};

FIXTURE_SETUP(observe)
{
	self->fd = wt_open();
}

FIXTURE_TEARDOWN(observe)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* WT_IOC_STATS with a struct of @size bytes at @buf. */
static int stats_sized(int fd, void *buf, size_t size)
{
	return wt_ret(ioctl(fd, _IOC(_IOC_READ, WT_IOC_MAGIC, _WT_IOC_STATS,
				     size), buf));
}

TEST_F(observe, stats_say_what_fdinfo_says)
{
	struct wt_stats st;
	struct wt_event ev;
	__u64 a, b, c;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_EQ(0, wt_virtual(self->fd, MSEC));
	ASSERT_EQ(0, wt_add(self->fd, 1 * MSEC, &a));
	ASSERT_EQ(0, wt_add(self->fd, 2 * MSEC, &b));
	ASSERT_EQ(0, wt_add(self->fd, 9 * MSEC, &c));
	ASSERT_EQ(WT_STATUS_PENDING, wt_modify(self->fd, c, 0, 8 * MSEC, 0));
	ASSERT_EQ(2, wt_advance(self->fd, 3 * MSEC));
	ASSERT_EQ(1, wt_read(self->fd, &ev, 1));
	ASSERT_EQ(WT_STATUS_WITHDRAWN, wt_cancel(self->fd, b));

	memset(&st, 0xa5, sizeof(st));
	ASSERT_EQ(0, wt_ret(ioctl(self->fd, WT_IOC_STATS, &st)));
	EXPECT_EQ(sizeof(st), st.size);
	EXPECT_EQ(wt_fdinfo(self->fd, "context_id"), st.context_id);
	EXPECT_EQ(1, st.live);
	EXPECT_EQ(1, st.pending);
	EXPECT_EQ(0, st.ready);
	EXPECT_EQ(3, st.added);
	EXPECT_EQ(1, st.modified);
	EXPECT_EQ(2, st.fired);
	EXPECT_EQ(1, st.delivered);
	EXPECT_EQ(0, st.cancelled);
	EXPECT_EQ(1, st.withdrawn);
	EXPECT_EQ(0, st.overruns);
	EXPECT_EQ(0, st.hrtimer_programs);	/* a virtual clock */
	EXPECT_EQ(0, st.hrtimer_expiries);
	EXPECT_EQ(0, st.rewinds);
	EXPECT_EQ(1, st.timer_blocks);
	EXPECT_LE(85, st.user_timeouts);
	/* Every counter fdinfo has, by the same name. */
	EXPECT_EQ(wt_fdinfo(self->fd, "live"), st.live);
	EXPECT_EQ(wt_fdinfo(self->fd, "pending"), st.pending);
	EXPECT_EQ(wt_fdinfo(self->fd, "ready"), st.ready);
	EXPECT_EQ(wt_fdinfo(self->fd, "added"), st.added);
	EXPECT_EQ(wt_fdinfo(self->fd, "modified"), st.modified);
	EXPECT_EQ(wt_fdinfo(self->fd, "fired"), st.fired);
	EXPECT_EQ(wt_fdinfo(self->fd, "delivered"), st.delivered);
	EXPECT_EQ(wt_fdinfo(self->fd, "cancelled"), st.cancelled);
	EXPECT_EQ(wt_fdinfo(self->fd, "withdrawn"), st.withdrawn);
	EXPECT_EQ(wt_fdinfo(self->fd, "overruns"), st.overruns);
	EXPECT_EQ(wt_fdinfo(self->fd, "hrtimer_programs"), st.hrtimer_programs);
	EXPECT_EQ(wt_fdinfo(self->fd, "hrtimer_expiries"), st.hrtimer_expiries);
	EXPECT_EQ(wt_fdinfo(self->fd, "rewinds"), st.rewinds);
	EXPECT_EQ(wt_fdinfo(self->fd, "timer_blocks"), st.timer_blocks);
	EXPECT_EQ(wt_fdinfo(self->fd, "user_timeouts"), st.user_timeouts);
}

TEST_F(observe, stats_fit_older_and_newer_callers)
{
	__u64 buf[64];
	size_t ours = sizeof(struct wt_stats) / 8;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_EQ(0, wt_add(self->fd, SEC, NULL));

	/* An older header: three fields, and nothing past them is written. */
	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, stats_sized(self->fd, buf, 3 * 8));
	EXPECT_EQ(3 * 8, buf[0]);
	EXPECT_EQ(wt_fdinfo(self->fd, "context_id"), buf[1]);
	EXPECT_EQ(1, buf[2]);		/* live */
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, buf[3]);

	/* A newer one: what this kernel does not know reads as zero. */
	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, stats_sized(self->fd, buf, (ours + 8) * 8));
	EXPECT_EQ(ours * 8, buf[0]);
	EXPECT_EQ(1, buf[3]);		/* pending */
	EXPECT_EQ(0, buf[ours]);
	EXPECT_EQ(0, buf[ours + 7]);
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, buf[ours + 8]);

	/* Not even room for the size, or not whole fields: refused. */
	EXPECT_EQ(-EINVAL, stats_sized(self->fd, buf, 4));
	EXPECT_EQ(-EINVAL, stats_sized(self->fd, buf, 0));
	EXPECT_EQ(-EINVAL, stats_sized(self->fd, buf, 3 * 8 + 4));
	EXPECT_EQ(-EFAULT, wt_ret(ioctl(self->fd, WT_IOC_STATS, (void *)8)));
	/* Written, not read: the request number says _IOR. */
	EXPECT_EQ(-ENOTTY, wt_ret(ioctl(self->fd,
					_IOC(_IOC_READ | _IOC_WRITE,
					     WT_IOC_MAGIC, _WT_IOC_STATS,
					     sizeof(struct wt_stats)), buf)));
}

TEST_F(observe, the_handshake_lists_stats)
{
	struct wt_api api = { .api = WT_API_VERSION };

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_EQ(0, wt_ret(ioctl(self->fd, WT_IOC_API, &api)));
	EXPECT_TRUE(api.ioctls & (1ULL << _WT_IOC_STATS));
}

TEST_F(observe, tracepoints_show_a_known_sequence)
{
	char lines[32][256];
	const char *why = tracefs_ready();
	unsigned long long ctx, ctx2;
	struct wt_event ev[2];
	__u64 a, b, c, d;
	int n, real;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, write_file(TRACEFS "/events/wheeltimer/enable", "1"))
		TH_LOG("the module has no tracepoints");
	ASSERT_EQ(0, write_file(TRACEFS "/trace", ""));
	ASSERT_EQ(0, write_file(TRACEFS "/tracing_on", "1"));

	ctx = wt_fdinfo(self->fd, "context_id");
	ASSERT_EQ(0, wt_virtual(self->fd, MSEC));
	ASSERT_EQ(0, wt_add_full(self->fd, 0, 5 * MSEC, 0, 0, 7, &a));
	ASSERT_EQ(0, wt_add_full(self->fd, 0, 10 * MSEC, 0, 0, 8, &b));
	ASSERT_EQ(0, wt_add_full(self->fd, 0, 20 * MSEC, 0, 0, 9, &c));
	ASSERT_EQ(WT_STATUS_PENDING, wt_cancel(self->fd, c));
	ASSERT_EQ(WT_STATUS_PENDING, wt_modify(self->fd, b, 0, 3 * MSEC, 0));
	ASSERT_EQ(2, wt_advance(self->fd, 6 * MSEC));
	ASSERT_EQ(2, wt_read(self->fd, ev, 2));

	/* A real clock arms its hrtimer for the tick of the deadline. */
	real = wt_open();
	ASSERT_LE(0, real);
	ctx2 = wt_fdinfo(real, "context_id");
	ASSERT_EQ(0, wt_add(real, 20 * MSEC, &d));
	ASSERT_EQ(1, wt_read(real, ev, 1));
	close(real);
	ASSERT_EQ(0, write_file(TRACEFS "/events/wheeltimer/enable", "0"));

	n = trace_events(ctx, lines, NULL, 32);
	ASSERT_EQ(9, n);
	EXPECT_EVENT(lines[0], "wheeltimer_add",
		     "id=%#llx deadline=5000000 period=0 cookie=0x7",
		     (unsigned long long)a);
	EXPECT_EVENT(lines[1], "wheeltimer_add",
		     "id=%#llx deadline=10000000 cookie=0x8",
		     (unsigned long long)b);
	EXPECT_EVENT(lines[2], "wheeltimer_add",
		     "id=%#llx deadline=20000000 cookie=0x9",
		     (unsigned long long)c);
	EXPECT_EVENT(lines[3], "wheeltimer_cancel", "id=%#llx status=pending",
		     (unsigned long long)c);
	EXPECT_EVENT(lines[4], "wheeltimer_modify",
		     "id=%#llx deadline=3000000 status=pending",
		     (unsigned long long)b);
	/* Fired in deadline order, at their ticks: no lateness. */
	EXPECT_EVENT(lines[5], "wheeltimer_expire",
		     "id=%#llx deadline=3000000 fired_at=3000000 lateness=0",
		     (unsigned long long)b);
	EXPECT_EVENT(lines[6], "wheeltimer_expire",
		     "id=%#llx deadline=5000000 fired_at=5000000 lateness=0",
		     (unsigned long long)a);
	EXPECT_EVENT(lines[7], "wheeltimer_deliver", "id=%#llx overruns=0 final=1",
		     (unsigned long long)b);
	EXPECT_EVENT(lines[8], "wheeltimer_deliver", "id=%#llx overruns=0 final=1",
		     (unsigned long long)a);

	/*
	 * The add arms the hrtimer, unless the machine is so slow that the
	 * deadline has passed before the call ends: then the file expires
	 * at once, with nothing to program.
	 */
	n = trace_events(ctx2, lines, NULL, 32);
	ASSERT_LE(3, n);
	EXPECT_EVENT(lines[0], "wheeltimer_add", "id=%#llx", (unsigned long long)d);
	if (n > 3)
		EXPECT_EVENT(lines[1], "wheeltimer_hrtimer_program", "%s", "");
	EXPECT_EVENT(lines[n - 2], "wheeltimer_expire", "id=%#llx", (unsigned long long)d);
	EXPECT_EVENT(lines[n - 1], "wheeltimer_deliver", "id=%#llx final=1",
		     (unsigned long long)d);
}

/* The value of @key in one fdinfo text, or UINT64_MAX. */
static __u64 fdinfo_field(const char *text, const char *key)
{
	char pat[64];
	const char *at;

	snprintf(pat, sizeof(pat), "\n%s:\t", key);
	at = strstr(text, pat);
	return at ? strtoull(at + strlen(pat), NULL, 10) : UINT64_MAX;
}

struct flipper {
	int fd;
	atomic_bool stop;
	atomic_long flips, errors;
};

/* Set one configuration, then the other, until told to stop. */
static void *flip_configs(void *arg)
{
	struct flipper *f = arg;
	unsigned long n;

	for (n = 0; !atomic_load(&f->stop); n++) {
		if (n & 1 ? wt_config(f->fd, MSEC, CLOCK_REALTIME, 0, 2000) :
			    wt_config(f->fd, USEC, CLOCK_MONOTONIC,
				      WT_CONFIG_VIRTUAL, 1000))
			atomic_fetch_add(&f->errors, 1);
		atomic_fetch_add(&f->flips, 1);
	}
	return NULL;
}

/*
 * fdinfo, which takes no lock a user can hold, while another thread sets
 * the configuration over and over: each reading shows one configuration
 * whole, its clock included (the virtual clock starts at 0; the other is
 * the wall clock), never the fields of one with those of the other.
 */
TEST(fdinfo_shows_one_configuration_whole_while_it_changes)
{
	struct flipper f = { 0 };
	unsigned int i, mixed = 0, virt = 0, real = 0;
	__u64 clk, vflag, res, max, now_ns, end;
	char text[4096];
	pthread_t th;

	f.fd = wt_open();
	if (f.fd < 0)
		SKIP(return, "%s: %m", WT_DEV);
	ASSERT_EQ(0, wt_config(f.fd, USEC, CLOCK_MONOTONIC, WT_CONFIG_VIRTUAL,
			       1000));
	ASSERT_EQ(0, pthread_create(&th, NULL, flip_configs, &f));
	end = wt_clock_ns(CLOCK_MONOTONIC) + 3 * SEC;
	for (i = 0; i < 100000 && wt_clock_ns(CLOCK_MONOTONIC) < end; i++) {
		text[0] = '\n';
		wt_fdinfo_text(f.fd, text + 1, sizeof(text) - 1);
		clk = fdinfo_field(text, "clockid");
		vflag = fdinfo_field(text, "virtual");
		res = fdinfo_field(text, "resolution_ns");
		max = fdinfo_field(text, "max_pending");
		now_ns = fdinfo_field(text, "now_ns");
		if (clk == CLOCK_MONOTONIC && vflag == 1 && res == USEC &&
		    max == 1000 && now_ns == 0) {
			virt++;
		} else if (clk == CLOCK_REALTIME && vflag == 0 &&
			   res == MSEC && max == 2000 && now_ns > 1000000 * SEC) {
			real++;
		} else if (mixed++ < 3) {
			ksft_print_msg("mixed: clock %llu virtual %llu res %llu max %llu at %llu\n",
				       clk, vflag, res, max, now_ns);
		}
	}
	atomic_store(&f.stop, true);
	ASSERT_EQ(0, pthread_join(th, NULL));
	ksft_print_msg("%u readings: %u virtual, %u realtime, %u mixed; %ld configurations set\n",
		       i, virt, real, mixed, atomic_load(&f.flips));
	EXPECT_EQ(0, atomic_load(&f.errors));
	EXPECT_EQ(0, mixed);
	EXPECT_LT(0, virt);
	EXPECT_LT(0, real);
	close(f.fd);
}

TEST_HARNESS_MAIN
