// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * stats_test.c - counters: the fdinfo parser, a live context's counters,
 * and another file's fdinfo
 */
#include <fcntl.h>

#include "lib_test.h"

/* The fdinfo parser: unknown, missing, renamed and odd lines. */
static void test_stats_parser(void)
{
	static const char text[] =
		"pos:\t0\nflags:\t02004002\nclockid:\t1\n"
		"resolution_ns:\t1000000\nnever_heard_of:\t99\n"
		"slots_occupied:\t3\t0\t1\n"
		"added: 12\nfired:\t18446744073709551615\n"
		"hrtimer_armed_tick:\t-\nrewinds:\t4\n"
		"no colon here\nwithdrawn:\t99999999999999999999\n"
		"delivered:\t7";
	struct wheeltimer_stats st = { 0 };
	uint64_t v;

	wtl_stats_parse(text, &st);
	CHECK_EQ(st.resolution_ns, MS);
	CHECK_EQ(st.added, 12);
	CHECK(st.fired == UINT64_MAX);
	CHECK_EQ(st.rewinds, 4);
	CHECK_EQ(st.delivered, 7);
	CHECK_EQ(st.withdrawn, 0);
	CHECK_EQ(st.present, WHEELTIMER_STAT_RESOLUTION | WHEELTIMER_STAT_ADDED |
			     WHEELTIMER_STAT_FIRED | WHEELTIMER_STAT_REWINDS |
			     WHEELTIMER_STAT_DELIVERED);
	CHECK_EQ(wtl_fdinfo_value(text, "never_heard_of", &v), 0);
	CHECK_EQ(v, 99);
	CHECK_EQ(wtl_fdinfo_value(text, "flags", &v), 0);
	CHECK_EQ(v, 02004002);
	CHECK_EQ(wtl_fdinfo_value(text, "slots_occupied", &v), 0);
	CHECK_EQ(v, 3);
	CHECK_EQ(wtl_fdinfo_value(text, "hrtimer_armed_tick", &v), -EINVAL);
	CHECK_EQ(wtl_fdinfo_value(text, "withdrawn", &v), -EINVAL);
	CHECK_EQ(wtl_fdinfo_value(text, "added_", &v), -ENOENT);
	CHECK_EQ(wtl_fdinfo_value(text, "dded", &v), -ENOENT);
	CHECK_EQ(wtl_fdinfo_value("", "added", &v), -ENOENT);
}

static void test_stats_live(void)
{
	struct wheeltimer_stats st;
	struct wheeltimer *wt;
	uint64_t h, v;

	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &h), 0);
	CHECK_EQ(wheeltimer_add(wt, 2 * MS, 0, 0, 2, &h), 0);
	CHECK_EQ(advance_to(wt, MS), 1);
	CHECK_EQ(wheeltimer_stats(wt, &st), 0);
	CHECK_EQ(st.present & (WHEELTIMER_STAT_ADDED | WHEELTIMER_STAT_LIVE |
			       WHEELTIMER_STAT_READY | WHEELTIMER_STAT_NOW |
			       WHEELTIMER_STAT_TIMER_PROGRAMS),
		 WHEELTIMER_STAT_ADDED | WHEELTIMER_STAT_LIVE |
		 WHEELTIMER_STAT_READY | WHEELTIMER_STAT_NOW |
		 WHEELTIMER_STAT_TIMER_PROGRAMS);
	CHECK_EQ(st.added, 2);
	CHECK_EQ(st.live, 2);
	CHECK_EQ(st.pending, 1);
	CHECK_EQ(st.ready, 1);
	CHECK_EQ(st.now_ns, MS);
	CHECK_EQ(st.resolution_ns, MS);
	CHECK_EQ(st.max_pending, 1ULL << 20);
	CHECK_EQ(st.submits, 1);
	CHECK_EQ(wheeltimer_stat(wt, "added", &v), 0);
	CHECK_EQ(v, 2);
	CHECK_EQ(wheeltimer_stat(wt, "no_such_counter", &v), -ENOENT);
	CHECK_EQ(wheeltimer_stat(wt, "lib_no_such_counter", &v), -ENOENT);
	wheeltimer_close(wt);
}

/* Any file's fdinfo, by path: a wheeltimer file's, or not. */
static void test_fdinfo_stats(void)
{
	static const char text[] =
		"pos:\t0\nflags:\t02\nresolution_ns:\t250000\n"
		"max_pending:\t77\nlive:\t5\npending:\t3\nready:\t2\n"
		"slots_occupied:\t1\t0\nfired:\t9\nhrtimer_programs:\t4\n";
	struct wheeltimer_stats st, own;
	char path[64] = "/tmp/lib_test_fdinfo_XXXXXX";
	const char *tail;
	struct wheeltimer *wt;
	uint64_t h;
	int fd;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, text, sizeof(text) - 1), sizeof(text) - 1);
	close(fd);
	memset(&st, 0xff, sizeof(st));
	CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), 0);
	CHECK_EQ(st.resolution_ns, 250 * US);
	CHECK_EQ(st.max_pending, 77);
	CHECK_EQ(st.live, 5);
	CHECK_EQ(st.pending, 3);
	CHECK_EQ(st.ready, 2);
	CHECK_EQ(st.fired, 9);
	CHECK_EQ(st.timer_programs, 4);
	CHECK_EQ(st.added, 0);
	CHECK_EQ(st.submits, 0);
	CHECK(!(st.present & WHEELTIMER_STAT_ADDED));

	/* Without a key every wheeltimer file has (resolution_ns): not one. */
	tail = strstr(text, "max_pending");
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, tail, strlen(tail)), strlen(tail));
	close(fd);
	CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), -ENODATA);
	CHECK_EQ(st.present, 0);
	unlink(path);
	CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), -ENOENT);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), -ENODATA);
	close(fd);

	/*
	 * The context's own descriptor: the device's fdinfo, with the
	 * counters wheeltimer_stats() reads; the in-process engine's is an
	 * epoll descriptor's, which is not a wheeltimer file's.
	 */
	CHECK_EQ(open_virtual(&wt), 0);
	CHECK_EQ(wheeltimer_add(wt, MS, 0, 0, 1, &h), 0);
	CHECK_EQ(wheeltimer_add(wt, SEC, 0, 0, 2, &h), 0);
	CHECK_EQ(advance_to(wt, MS), 1);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", wheeltimer_fd(wt));
	if (engine == WHEELTIMER_ENGINE_PROCESS) {
		CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), -ENODATA);
	} else {
		CHECK_EQ(wheeltimer_fdinfo_stats(path, &st), 0);
		CHECK_EQ(wheeltimer_stats(wt, &own), 0);
		CHECK_EQ(st.present, own.present);
		CHECK_EQ(st.added, 2);
		CHECK_EQ(st.live, 2);
		CHECK_EQ(st.pending, 1);
		CHECK_EQ(st.ready, 1);
		CHECK_EQ(st.now_ns, MS);
		CHECK_EQ(st.submits, 0);
	}
	wheeltimer_close(wt);
}

const struct tap_test stats_tests[] = {
	{ "stats_parser", test_stats_parser },
	{ "stats_live", test_stats_live },
	{ "fdinfo_stats", test_fdinfo_stats },
	{ NULL, NULL },
};
