// SPDX-License-Identifier: GPL-2.0
/*
 * The module's own lifetime, out of the kernel's tree only (the upstream
 * series leaves this program out: a driver there is built in as often as
 * not, and has the kernel's version):
 *
 * - its version, the project's;
 * - rmmod: refused while a file is open, and while files are open and
 *   busy; accepted once they are closed, with the module's slab caches
 *   empty. The module is loaded again afterwards from
 *   /lib/modules/wheeltimer.ko for later tests, which is why this
 *   program runs first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

#define DEV_PATH	"/dev/wheeltimer"
#define WT_MODULE_NAME	"wheeltimer"
/* Where tools/vm/run puts the module. */
#define WT_MODULE_PATH	"/lib/modules/wheeltimer.ko"

static int wt_unload_module(void)
{
	return syscall(__NR_delete_module, WT_MODULE_NAME, O_NONBLOCK);
}

static int wt_load_module(void)
{
	int fd, ret;

	fd = open(WT_MODULE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(__NR_finit_module, fd, "", 0);
	close(fd);
	return ret;
}

TEST(the_module_says_its_version)
{
	char buf[64] = "";
	ssize_t n;
	int fd;

	fd = open("/sys/module/wheeltimer/version", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("no MODULE_VERSION: %m");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(1, n);
	/* MAJOR.MINOR.PATCH, as the file VERSION gives it */
	EXPECT_TRUE(buf[0] >= '0' && buf[0] <= '9' && strchr(buf, '.'))
		TH_LOG("version \"%s\"", buf);
}

TEST(rmmod_is_refused_while_a_file_is_open)
{
	int fd;

	if (geteuid() != 0)
		SKIP(return, "unloading a module needs root");
	if (access(WT_MODULE_PATH, R_OK))
		SKIP(return, "no %s to reload the module from", WT_MODULE_PATH);

	fd = open(DEV_PATH, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, wt_unload_module());
	EXPECT_EQ(EWOULDBLOCK, errno);
	/* Still there, still usable. */
	EXPECT_EQ(0, access(DEV_PATH, F_OK));
	EXPECT_EQ(0, close(fd));

	ASSERT_EQ(0, wt_unload_module()) TH_LOG("rmmod after close: %m");
	EXPECT_EQ(-1, access(DEV_PATH, F_OK));
	EXPECT_EQ(ENOENT, errno);

	ASSERT_EQ(0, wt_load_module()) TH_LOG("reloading the module: %m");
	fd = open(DEV_PATH, O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("open after reload: %m");
	EXPECT_EQ(0, close(fd));
}

static __u64 rnd(__u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* The module's reference count from /proc/modules, or -1. */
static long module_refs(void)
{
	char line[512], name[64];
	long size, refs = -1;
	FILE *f = fopen("/proc/modules", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld %ld", name, &size, &refs) == 3 &&
		    !strcmp(name, WT_MODULE_NAME))
			break;
		refs = -1;
	}
	fclose(f);
	return refs;
}

/*
 * Active and total objects of a slab cache from /proc/slabinfo; returns 0,
 * or -1 if the cache is not listed under its own name (SLUB merged it
 * with another, as 6.1 may without slab_nomerge).
 */
static int slab_objects(const char *cache, long *active, long *num)
{
	char line[512], name[64];
	int ret = -1;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld %ld", name, active, num) == 3 &&
		    !strcmp(name, cache)) {
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* Ask SLUB to give back empty slabs, so that the counts mean objects in use. */
static void slab_shrink(const char *cache)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", cache);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) < 0)
			perror(path);
		close(fd);
	}
}

static bool slab_merged(const char *cache)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s", cache);
	return lstat(path, &st) || S_ISLNK(st.st_mode);
}

struct busy {
	int fd;
	atomic_bool stop;
	atomic_long ops;
};

static void *busy_worker(void *arg)
{
	struct busy *b = arg;
	struct wt_event ev[16];
	__u64 seed = (__u64)(uintptr_t)&seed | 1, id;

	while (!atomic_load(&b->stop)) {
		if (!wt_add(b->fd, rnd(&seed) % MSEC, &id) && rnd(&seed) & 1)
			wt_cancel(b->fd, id);
		wt_read(b->fd, ev, 16);
		atomic_fetch_add(&b->ops, 1);
	}
	return NULL;
}

TEST(rmmod_refused_under_load_then_slabs_empty)
{
	static const char * const caches[] = {
		"wheeltimer_block", "wheeltimer_periods",
	};
	struct busy b[4] = {};
	pthread_t th[4];
	long active, num, refs;
	unsigned int i, c;
	int r, err;

	if (geteuid() != 0)
		SKIP(return, "unloading a module needs root");
	if (access(WT_MODULE_PATH, R_OK))
		SKIP(return, "no %s to reload the module from", WT_MODULE_PATH);

	for (i = 0; i < 4; i++) {
		b[i].fd = open(WT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, b[i].fd);
		/* Timeouts of both kinds, far away, so the caches hold some. */
		for (c = 0; c < 100; c++)
			ASSERT_EQ(0, wt_add(b[i].fd, 3600 * SEC, NULL));
		ASSERT_EQ(0, wt_add_full(b[i].fd, WT_FIXED_RATE, 0, MSEC, 0, 0,
					 NULL));
		ASSERT_EQ(0, pthread_create(&th[i], NULL, busy_worker, &b[i]));
	}
	refs = module_refs();
	ksft_print_msg("rmmod: module refcount %ld with 4 files open\n", refs);
	EXPECT_LE(4, refs);

	for (i = 0; i < 20; i++) {
		r = wt_unload_module();
		err = errno;
		EXPECT_EQ(-1, r);
		if (r == 0)
			break;
		EXPECT_TRUE(err == EWOULDBLOCK || err == EBUSY) TH_LOG("errno %d", err);
		usleep(5000);
	}
	EXPECT_EQ(0, access(WT_DEV, F_OK));

	for (i = 0; i < 4; i++) {
		atomic_store(&b[i].stop, true);
		pthread_join(th[i], NULL);
		/* The files still work after the refused attempts. */
		EXPECT_EQ(0, wt_add(b[i].fd, 0, NULL));
		ksft_print_msg("rmmod: worker %u did %ld operations\n", i,
			       atomic_load(&b[i].ops));
		EXPECT_LT(0, atomic_load(&b[i].ops));
	}
	/* Close all but one: still refused. */
	for (i = 1; i < 4; i++)
		EXPECT_EQ(0, close(b[i].fd));
	EXPECT_EQ(-1, wt_unload_module());
	EXPECT_EQ(0, close(b[0].fd));

	/* All closed: the caches hold nothing. */
	for (c = 0; c < 2; c++) {
		if (slab_merged(caches[c])) {
			ksft_print_msg("rmmod: %s is merged, not counted (see slab_nomerge)\n",
				       caches[c]);
			continue;
		}
		slab_shrink(caches[c]);
		if (slab_objects(caches[c], &active, &num)) {
			ksft_print_msg("rmmod: %s not in /proc/slabinfo\n",
				       caches[c]);
			continue;
		}
		ksft_print_msg("rmmod: %s: %ld active, %ld total objects after close\n",
			       caches[c], active, num);
		EXPECT_EQ(0, active) TH_LOG("%s", caches[c]);
	}

	ASSERT_EQ(0, wt_unload_module()) TH_LOG("rmmod after close: %m");
	EXPECT_EQ(-1, access(WT_DEV, F_OK));
	for (c = 0; c < 2; c++)
		EXPECT_NE(0, slab_objects(caches[c], &active, &num))
			TH_LOG("cache %u still in /proc/slabinfo", c);

	ASSERT_EQ(0, wt_load_module()) TH_LOG("reloading the module: %m");
	r = wt_open();
	ASSERT_LE(0, r) TH_LOG("open after reload: %m");
	EXPECT_EQ(0, close(r));
}

TEST_HARNESS_MAIN
