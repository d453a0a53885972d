// SPDX-License-Identifier: GPL-2.0
/*
 * The bounds on what a user may pin in kernel memory, and the sysctls in
 * /proc/sys/dev/wheeltimer/ that set them:
 *
 * - max_pending: a new file's max_pending, and the most a file may ask for
 *   without CAP_SYS_RESOURCE (more is EPERM);
 * - max_pending_limit: the most a file opened with CAP_SYS_RESOURCE may
 *   ask for (more is EINVAL);
 * - max_user_timeouts: the storage all files of one user may hold, in
 *   timeouts, counted in whole pages of 85 plus each file's context, a
 *   file keeping its peak until it empties. By default 4% of RAM, as
 *   epoll's max_user_watches. Past it, WT_OP_ADD fails with ENOSPC; files
 *   opened with CAP_SYS_RESOURCE are charged but not limited.
 *
 * A bad value written to a limit fails with EINVAL and changes nothing,
 * and only root may write one. The tests run as root and do what a user
 * would as uid 65534 in a child; they lower max_user_timeouts for speed
 * and restore every limit afterwards.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "wt_user.h"
#include "wt_util.h"

#define NR_FILES	64

enum { P_PENDING, P_LIMIT, P_USER, NR_LIMITS };

static const char * const limit_name[NR_LIMITS] = {
	"max_pending", "max_pending_limit", "max_user_timeouts",
};

/* A field of /proc/meminfo in kB, or 0. */
static __u64 meminfo_kb(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	__u64 val = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			val = strtoull(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return val;
}

FIXTURE(limits) {
	__u64 saved[NR_LIMITS];
	bool have[NR_LIMITS];
};

FIXTURE_SETUP(limits)
{
	int p;

	for (p = 0; p < NR_LIMITS; p++)
		self->have[p] = !limit_get(limit_name[p], &self->saved[p]);
	if (geteuid() != 0)
		SKIP(return, "the limits and setresuid() need root");
}

/* Put every limit back, in an order each step allows. */
FIXTURE_TEARDOWN(limits)
{
	int round, p;

	for (round = 0; round < 2; round++)
		for (p = NR_LIMITS; p-- > 0; )
			if (self->have[p])
				limit_set(limit_name[p], self->saved[p]);
}

TEST_F(limits, the_sysctls_exist_and_max_user_timeouts_is_4_percent_of_ram)
{
	__u64 pages = meminfo_kb("MemTotal") / (getpagesize() / 1024);
	__u64 expect = pages / 25 * PER_PAGE;

	if (geteuid() != 0)
		return;	/* skipped in the setup, which 6.1 does not stop at */
	EXPECT_TRUE(self->have[P_PENDING]);
	EXPECT_TRUE(self->have[P_LIMIT]);
	ASSERT_TRUE(self->have[P_USER]) TH_LOG("no sysctl max_user_timeouts");
	ksft_print_msg("max_user_timeouts %llu; MemTotal %llu pages / 25 * 85 = %llu\n",
		       self->saved[P_USER], pages, expect);
	EXPECT_EQ(1048576, self->saved[P_PENDING]);
	EXPECT_EQ(16777216, self->saved[P_LIMIT]);
	/* The driver took its figure at init; MemTotal may drift. */
	EXPECT_LE(expect * 97 / 100, self->saved[P_USER]);
	EXPECT_GE(expect * 103 / 100, self->saved[P_USER]);
}

TEST_F(limits, bad_values_are_einval_and_change_nothing)
{
	static const struct {
		int limit;
		const char *val;
	} bad[] = {
		{ P_PENDING, "0" },
		{ P_PENDING, "16777217" },	/* above max_pending_limit */
		{ P_LIMIT, "0" },
		{ P_LIMIT, "1048575" },		/* below max_pending */
		/*
		 * Above the ceiling: a file's ids, its leases' included, must
		 * fit the 32 bits of an index (core.h, WT_PENDING_CEILING).
		 */
		{ P_LIMIT, "1073741825" },
		{ P_USER, "0" },
		{ P_PENDING, "-1" },
		{ P_LIMIT, "many" },
		{ P_USER, "99999999999999999999999" },	/* beyond a long */
		{ P_USER, "9223372036854775807" },	/* beyond the ceiling */
	};
	__u64 v[NR_LIMITS];
	unsigned int i;
	int p;

	if (geteuid() != 0)
		return;	/* skipped in the setup, which 6.1 does not stop at */
	ASSERT_TRUE(self->have[P_PENDING] && self->have[P_LIMIT]);
	ASSERT_EQ(1048576, self->saved[P_PENDING]);
	ASSERT_EQ(16777216, self->saved[P_LIMIT]);
	EXPECT_TRUE(self->have[P_USER]) TH_LOG("no sysctl max_user_timeouts");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		p = bad[i].limit;
		if (!self->have[p])
			continue;
		EXPECT_EQ(-EINVAL, limit_set_str(limit_name[p], bad[i].val))
			TH_LOG("%s=%s", limit_name[p], bad[i].val);
		for (p = 0; p < NR_LIMITS; p++) {
			if (!self->have[p])
				continue;
			ASSERT_EQ(0, limit_get(limit_name[p], &v[p]));
			EXPECT_EQ(self->saved[p], v[p])
				TH_LOG("%s changed by %s=%s", limit_name[p],
				       limit_name[bad[i].limit], bad[i].val);
			if (v[p] != self->saved[p])
				limit_set(limit_name[p], self->saved[p]);
		}
	}
	/* The edges are accepted. */
	EXPECT_EQ(0, limit_set(limit_name[P_LIMIT], 1073741824ULL));
	EXPECT_EQ(0, limit_set(limit_name[P_PENDING], 1073741824ULL));
	EXPECT_EQ(0, limit_set(limit_name[P_PENDING], 1));
	EXPECT_EQ(0, limit_set(limit_name[P_LIMIT], 1));
	if (self->have[P_USER])
		EXPECT_EQ(0, limit_set(limit_name[P_USER], 1));
	/* A new file gets the new default. */
	p = wt_open();
	ASSERT_LE(0, p);
	EXPECT_EQ(1, wt_fdinfo(p, "max_pending"));
	close(p);
}

/*
 * The limits are the administrator's: a user may read them (as any
 * sysctl), but a write as uid 65534 fails and changes nothing, whatever
 * the value.
 */
TEST_F(limits, only_root_writes_the_limits)
{
	int status, p;
	pid_t pid;

	if (geteuid() != 0)
		return;	/* skipped in the setup, which 6.1 does not stop at */
	ASSERT_TRUE(self->have[P_PENDING] && self->have[P_LIMIT] &&
		    self->have[P_USER]) TH_LOG("a sysctl is missing");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u64 v;
		int bad = 0;

		if (become_nobody())
			_exit(100);
		for (p = 0; p < NR_LIMITS; p++) {
			if (limit_get(limit_name[p], &v) || v != self->saved[p])
				bad |= 1 << p;
			/* Raising one's own bound would be the attack. */
			if (limit_set(limit_name[p], self->saved[p] * 2) != -EACCES)
				bad |= 8 << p;
		}
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("bits 0-2: a limit unreadable, 3-5: a write not EACCES");
	for (p = 0; p < NR_LIMITS; p++) {
		__u64 v;

		ASSERT_EQ(0, limit_get(limit_name[p], &v));
		EXPECT_EQ(self->saved[p], v) TH_LOG("%s", limit_name[p]);
	}
}

/* What a child working as uid 65534 reports to the test. */
struct report {
	int open_err, config_err, eperm, fill_err, errors;
	unsigned int total, files_with_any;
	__u64 ctx_charge, charged, slab_before, slab_after;
	bool have_key;
};

/*
 * As uid 65534: NR_FILES files at the default max_pending, filled a batch
 * each in turn until an add fails, at most @cap timeouts in all.
 */
static void nobody_fills(struct report *r, __u64 max_pending, __u64 cap)
{
	unsigned int n, per_file[NR_FILES] = { 0 };
	int fds[NR_FILES], f, err;
	bool full = false;

	if (become_nobody())
		_exit(3);
	r->slab_before = meminfo_kb("Slab");
	for (f = 0; f < NR_FILES; f++) {
		fds[f] = open_virtual(max_pending, &err);
		if (fds[f] < 0) {
			r->open_err = err;
			_exit(1);
		}
		if (f == 0) {
			r->ctx_charge = wt_fdinfo(fds[0], "user_timeouts");
			r->have_key = r->ctx_charge != UINT64_MAX;
		}
	}
	/* One more than the default needs CAP_SYS_RESOURCE. */
	r->eperm = wt_config(fds[0], MSEC, CLOCK_MONOTONIC, WT_CONFIG_VIRTUAL,
			     max_pending + 1);
	while (!full && r->total < cap) {
		for (f = 0; f < NR_FILES && r->total < cap; f++) {
			n = cap - r->total < FILL_BATCH ? cap - r->total :
							  FILL_BATCH;
			n = fill(fds[f], n, NULL, &err);
			r->total += n;
			per_file[f] += n;
			if (err && !r->fill_err)
				r->fill_err = err;
			if (err && err != ENOSPC)
				r->errors++;
			full |= err;
		}
	}
	for (f = 0; f < NR_FILES; f++)
		r->files_with_any += per_file[f] > 0;
	r->slab_after = meminfo_kb("Slab");
	r->charged = wt_fdinfo(fds[0], "user_timeouts");
	_exit(0);
}

TEST_F_TIMEOUT(limits, a_user_stops_at_max_user_timeouts_and_slab_grows_with_it, 600)
{
	const __u64 limit = 300000;
	const __u64 room = (limit + PER_PAGE - 1) / PER_PAGE * PER_PAGE;
	__u64 ctx, grown, low, high, cap;
	struct report *r;
	int status;
	pid_t pid;

	if (geteuid() != 0)
		return;	/* skipped in the setup, which 6.1 does not stop at */
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	memset(r, 0, sizeof(*r));
	EXPECT_TRUE(self->have[P_USER]) TH_LOG("no sysctl max_user_timeouts");
	if (self->have[P_USER])
		ASSERT_EQ(0, limit_set(limit_name[P_USER], limit));
	/* Without a limit, stop the fill where one should have stopped it. */
	cap = limit + NR_FILES * 2 * CTX_GUESS;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		nobody_fills(r, self->saved[P_PENDING], cap);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the child failed (%d): open %d", status, r->open_err);

	ctx = r->have_key ? r->ctx_charge : CTX_GUESS;
	grown = (r->slab_after - r->slab_before) * 1024;
	ksft_print_msg("uid %d: %u timeouts in %u of %d files, then %s; limit %llu\n",
		       NOBODY, r->total, r->files_with_any, NR_FILES,
		       r->fill_err ? strerror(r->fill_err) : "no error",
		       (unsigned long long)limit);
	ksft_print_msg("fdinfo user_timeouts: one file %lld, all %lld (-1: no such key)\n",
		       (long long)r->ctx_charge, (long long)r->charged);
	ksft_print_msg("Slab grew by %llu kB: %.1f bytes per timeout\n",
		       (unsigned long long)grown / 1024,
		       r->total ? (double)grown / r->total : 0.0);

	EXPECT_EQ(-EPERM, r->eperm)
		TH_LOG("uid %d raised max_pending above the default", NOBODY);
	EXPECT_EQ(ENOSPC, r->fill_err);
	EXPECT_EQ(0, r->errors);
	/*
	 * The contexts and the timeouts' pages fit in the limit, counted in
	 * whole pages (rounded up: any limit allows a page), and it stopped
	 * the user within a few pages of it: the last page of each file may
	 * be part empty, and a block table may take some.
	 */
	EXPECT_GE(room, r->total + NR_FILES * ctx);
	EXPECT_LT(room, r->total + NR_FILES * (ctx + PER_PAGE) + 16 * PER_PAGE);
	EXPECT_TRUE(r->have_key) TH_LOG("no fdinfo key user_timeouts");
	if (r->have_key) {
		EXPECT_GE(room, r->charged);
		EXPECT_LT(room, r->charged + 16 * PER_PAGE);
		EXPECT_LE(r->total + NR_FILES * ctx, r->charged);
	}
	/* Slab: 4 KiB per 85 timeouts, with generous room for the rest. */
	low = (__u64)r->total * 48 * 3 / 4;
	high = 2 * ((__u64)r->total / PER_PAGE + NR_FILES * 16) * 4096 +
	       (16 << 20);
	EXPECT_LE(low, grown);
	EXPECT_GE(high, grown);
	munmap(r, sizeof(*r));
}

/*
 * Leased blocks are storage like any other: a user who leases ids and adds
 * nothing still stops at max_user_timeouts, in all its files together.
 */
TEST_F_TIMEOUT(limits, leases_count_against_the_users_limit, 600)
{
	const __u64 limit = 100000;
	const __u64 room = (limit + PER_PAGE - 1) / PER_PAGE * PER_PAGE;
	struct report *r;
	int status;
	pid_t pid;

	if (geteuid() != 0)
		return;
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	memset(r, 0, sizeof(*r));
	ASSERT_TRUE(self->have[P_USER]);
	ASSERT_EQ(0, limit_set(limit_name[P_USER], limit));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct wt_lease l;
		int fds[NR_FILES], f, err;
		bool full = false;

		if (become_nobody())
			_exit(3);
		for (f = 0; f < NR_FILES; f++) {
			fds[f] = open_virtual(self->saved[P_PENDING], &err);
			if (fds[f] < 0) {
				r->open_err = err;
				_exit(1);
			}
		}
		while (!full) {
			for (f = 0; f < NR_FILES && !full; f++) {
				memset(&l, 0, sizeof(l));
				if (ioctl(fds[f], WT_IOC_LEASE, &l)) {
					full = true;
					r->fill_err = errno;
				} else {
					r->total += l.count;
				}
			}
		}
		r->charged = wt_fdinfo(fds[0], "user_timeouts");
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the child failed (%d): open %d", status, r->open_err);
	ksft_print_msg("uid %d leased %u ids in %d files, then %s; charged %llu of %llu\n",
		       NOBODY, r->total, NR_FILES, strerror(r->fill_err),
		       (unsigned long long)r->charged,
		       (unsigned long long)limit);
	EXPECT_EQ(ENOSPC, r->fill_err);
	EXPECT_GE(room, r->total);
	EXPECT_GE(room, r->charged);
	/* Stopped within the files' own contexts and tables of the limit. */
	EXPECT_LT(room, r->total + NR_FILES * CTX_GUESS);
	munmap(r, sizeof(*r));
}

TEST_F(limits, max_pending_above_the_default_needs_cap_sys_resource)
{
	struct wt_config c;
	int fd, status;
	pid_t pid;

	if (geteuid() != 0)
		return;	/* skipped in the setup, which 6.1 does not stop at */
	ASSERT_TRUE(self->have[P_PENDING]);
	ASSERT_TRUE(self->have[P_LIMIT]);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int err;

		if (become_nobody())
			_exit(3);
		fd = open_virtual(self->saved[P_PENDING], &err);
		if (fd < 0)
			_exit(4);
		if (wt_config(fd, MSEC, CLOCK_MONOTONIC, 0,
			      self->saved[P_PENDING] + 1) != -EPERM)
			_exit(5);
		/* Beyond the ceiling too: either answer says no. */
		err = wt_config(fd, MSEC, CLOCK_MONOTONIC, 0,
				self->saved[P_LIMIT] + 1);
		if (err != -EINVAL && err != -EPERM)
			_exit(6);
		/* The failures changed nothing. */
		if (wt_get_config(fd, &c) || c.max_pending != self->saved[P_PENDING] ||
		    !c.flags)
			_exit(7);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("5: uid %d raised max_pending above the default", NOBODY);

	/* Root may, up to max_pending_limit. */
	fd = wt_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, wt_config(fd, MSEC, CLOCK_MONOTONIC, 0,
			       self->saved[P_PENDING] + 1));
	EXPECT_EQ(0, wt_config(fd, MSEC, CLOCK_MONOTONIC, 0,
			       self->saved[P_LIMIT]));
	EXPECT_EQ(-EINVAL, wt_config(fd, MSEC, CLOCK_MONOTONIC, 0,
				     self->saved[P_LIMIT] + 1));
	ASSERT_EQ(0, wt_get_config(fd, &c));
	EXPECT_EQ(self->saved[P_LIMIT], c.max_pending);
	close(fd);
}

TEST_F_TIMEOUT(limits, root_fills_a_raised_file_beyond_the_user_limit, 600)
{
	const __u64 limit = 50000, want = limit + 100 * PER_PAGE;
	unsigned int n;
	int fd, err;

	if (geteuid() != 0)
		return;	/* skipped in the setup, which 6.1 does not stop at */
	ASSERT_TRUE(self->have[P_USER]) TH_LOG("no sysctl max_user_timeouts");
	ASSERT_EQ(0, limit_set(limit_name[P_USER], limit));
	fd = open_virtual(self->saved[P_PENDING] + 1, &err);
	ASSERT_LE(0, fd) TH_LOG("open or config: %s", strerror(-err));
	n = fill(fd, want, NULL, &err);
	EXPECT_EQ(want, n) TH_LOG("stopped with %s", strerror(err));
	/* Charged all the same. */
	EXPECT_NE(UINT64_MAX, wt_fdinfo(fd, "user_timeouts"));
	EXPECT_LE(n, wt_fdinfo(fd, "user_timeouts"));
	EXPECT_EQ(n, wt_fdinfo(fd, "live"));
	close(fd);
}

/* As uid 65534; exits with the number of the check that failed. */
static void nobody_peak(__u64 max_pending, __u64 limit, unsigned int *got)
{
	unsigned int n, half, i, cap = limit + 2 * CTX_GUESS;
	int a, b, err;
	__u64 *ids = calloc(cap, sizeof(*ids)), ctx, peak;

	if (!ids || become_nobody())
		_exit(2);
	a = open_virtual(max_pending, &err);
	b = open_virtual(max_pending, &err);
	if (a < 0 || b < 0)
		_exit(3);
	ctx = wt_fdinfo(a, "user_timeouts");
	if (ctx == UINT64_MAX)
		ctx = CTX_GUESS;
	/* A alone: up to the limit. */
	n = fill(a, cap, ids, &err);
	got[0] = n;
	if (err != ENOSPC)
		_exit(4);
	peak = wt_fdinfo(a, "user_timeouts");
	/* Half cancelled: A keeps its peak, B gets nothing. */
	half = n / 2;
	for (i = 0; i < half; i++)
		if (wt_cancel(a, ids[i]) != WT_STATUS_PENDING)
			_exit(5);
	got[1] = fill(b, cap, NULL, &err);
	if (got[1] > PER_PAGE || err != ENOSPC)
		_exit(6);
	if (wt_fdinfo(a, "user_timeouts") != peak)
		_exit(7);
	/* A fills its own room again. */
	got[2] = fill(a, half, ids, &err);
	if (got[2] != half)
		_exit(8);
	/* Emptied, A gives its peak back; B gets most of the limit. */
	for (i = 0; i < n; i++)
		if (wt_cancel(a, ids[i]) != WT_STATUS_PENDING)
			_exit(9);
	got[3] = fill(b, cap, NULL, &err);
	if (got[3] + got[1] + 2 * ctx + 17 * PER_PAGE < limit)
		_exit(10);
	_exit(0);
}

TEST_F_TIMEOUT(limits, a_file_keeps_its_peak_charged_until_it_empties, 600)
{
	const __u64 limit = 20000;
	unsigned int *got;
	int status;
	pid_t pid;

	if (geteuid() != 0)
		return;	/* skipped in the setup, which 6.1 does not stop at */
	ASSERT_TRUE(self->have[P_USER]) TH_LOG("no sysctl max_user_timeouts");
	ASSERT_EQ(0, limit_set(limit_name[P_USER], limit));
	got = mmap(NULL, 4 * sizeof(*got), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, got);
	memset(got, 0, 4 * sizeof(*got));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		nobody_peak(self->saved[P_PENDING], limit, got);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ksft_print_msg("A filled %u, B then got %u, A refilled %u, B after A emptied %u\n",
		       got[0], got[1], got[2], got[3]);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("check %d failed in the child",
						 WEXITSTATUS(status));
	munmap(got, 4 * sizeof(*got));
}

TEST_HARNESS_MAIN
