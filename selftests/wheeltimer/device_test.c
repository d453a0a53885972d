// SPDX-License-Identifier: GPL-2.0
/*
 * The device node: /dev/wheeltimer is a misc character device with a
 * dynamic minor that anyone may open; each open is a file of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

#define DEV_PATH	"/dev/wheeltimer"
#define MISC_MAJOR	10

TEST(node_is_the_world_accessible_misc_device_sysfs_names)
{
	unsigned int major, minor;
	struct stat st;
	FILE *f;

	f = fopen("/sys/class/misc/wheeltimer/dev", "r");
	ASSERT_NE(NULL, f) TH_LOG("/sys/class/misc/wheeltimer/dev: %m");
	ASSERT_EQ(2, fscanf(f, "%u:%u", &major, &minor));
	fclose(f);
	EXPECT_EQ(MISC_MAJOR, major);
	/* Dynamic: devices.txt keeps misc minors 240 to 254 for local use. */
	EXPECT_FALSE(minor >= 240 && minor <= 254) TH_LOG("minor %u", minor);

	ASSERT_EQ(0, stat(DEV_PATH, &st)) TH_LOG("%s: %m", DEV_PATH);
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(major, major(st.st_rdev));
	EXPECT_EQ(minor, minor(st.st_rdev));
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

TEST_HARNESS_MAIN
