// SPDX-License-Identifier: GPL-2.0
/*
 * The device node and the module's lifetime: /dev/wheeltimer is a misc
 * character device anyone may open, each open is a file of its own, and
 * the module cannot be unloaded while a file is open.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

#define DEV_PATH	"/dev/wheeltimer"
#define MISC_MAJOR	10

TEST(node_is_a_world_accessible_misc_device)
{
	struct stat st;

	ASSERT_EQ(0, stat(DEV_PATH, &st)) TH_LOG("%s: %m", DEV_PATH);
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(MISC_MAJOR, major(st.st_rdev));
	EXPECT_EQ(0666, st.st_mode & 07777);
}

TEST(open_and_close)
{
	int fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd) TH_LOG("open: %m");
	EXPECT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(0, close(fd));
}

TEST(read_only_open_works)
{
	int fd = open(DEV_PATH, O_RDONLY);

	ASSERT_LE(0, fd) TH_LOG("open: %m");
	EXPECT_EQ(0, close(fd));
}

TEST(two_opens_are_two_files)
{
	int a = open(DEV_PATH, O_RDWR);
	int b = open(DEV_PATH, O_RDWR);

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	/* File status flags live in the open file: one must not see the other's. */
	ASSERT_EQ(0, fcntl(a, F_SETFL, O_NONBLOCK));
	EXPECT_TRUE(fcntl(a, F_GETFL) & O_NONBLOCK);
	EXPECT_FALSE(fcntl(b, F_GETFL) & O_NONBLOCK);
	/* Closing one leaves the other working. */
	EXPECT_EQ(0, close(a));
	EXPECT_EQ(0, fcntl(b, F_GETFL) & O_NONBLOCK);
	EXPECT_EQ(0, close(b));
}

TEST(many_files_open_at_once)
{
	int fds[256];
	unsigned int i;

	for (i = 0; i < 256; i++) {
		fds[i] = open(DEV_PATH, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fds[i]) TH_LOG("open #%u: %m", i);
	}
	for (i = 0; i < 256; i++)
		EXPECT_EQ(0, close(fds[i]));
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

TEST_HARNESS_MAIN
