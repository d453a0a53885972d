// SPDX-License-Identifier: GPL-2.0
/*
 * The device node and the module's lifetime: /dev/wheeltimer is a misc
 * character device anyone may open, with a fixed number so that its first
 * open can load the module; each open is a file of its own, and the module
 * cannot be unloaded while a file is open.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

#define DEV_PATH	"/dev/wheeltimer"
#define MISC_MAJOR	10
#define WT_MINOR	250	/* fixed, for modules.devname */

TEST(node_is_a_world_accessible_misc_device)
{
	struct stat st;

	ASSERT_EQ(0, stat(DEV_PATH, &st)) TH_LOG("%s: %m", DEV_PATH);
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(MISC_MAJOR, major(st.st_rdev));
	EXPECT_EQ(WT_MINOR, minor(st.st_rdev));
	EXPECT_EQ(0666, st.st_mode & 07777);
}

/*
 * Whether the driver was built out of the kernel's tree: its module is
 * tainted O. Built in, there is no taint file; built in tree as a module,
 * no O.
 */
static bool built_out_of_tree(void)
{
	char buf[32] = "";
	ssize_t n;
	int fd;

	fd = open("/sys/module/wheeltimer/taint", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && strchr(buf, 'O');
}

TEST(the_module_says_its_version_and_aliases)
{
	char buf[64] = "";
	ssize_t n;
	int fd;

	/* In tree, the kernel's version is the driver's. */
	if (!built_out_of_tree())
		SKIP(return, "built in the kernel's tree: no version of its own");
	fd = open("/sys/module/wheeltimer/version", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("no MODULE_VERSION: %m");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(1, n);
	/* MAJOR.MINOR.PATCH, as the file VERSION gives it */
	EXPECT_TRUE(buf[0] >= '0' && buf[0] <= '9' && strchr(buf, '.'))
		TH_LOG("version \"%s\"", buf);
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

/*
 * Opening the node of an unloaded module loads it, as the node that
 * kmod static-nodes makes from modules.devname at boot would: the kernel
 * asks modprobe for char-major-10-250, which the module's alias names.
 * Only on a machine whose module tree this may build (the VM's, empty).
 */
TEST(the_first_open_of_the_node_loads_the_module)
{
	char dir[128], cmd[512];
	struct utsname u;
	struct stat st;
	int fd;

	if (geteuid() != 0)
		SKIP(return, "unloading a module needs root");
	if (access(WT_MODULE_PATH, R_OK))
		SKIP(return, "no %s to load the module from", WT_MODULE_PATH);
	ASSERT_EQ(0, uname(&u));
	snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
	if (!stat(dir, &st))
		SKIP(return, "%s exists: this test only builds a module tree of its own",
		     dir);
	if (system("command -v depmod >/dev/null && command -v modprobe >/dev/null"))
		SKIP(return, "no depmod and modprobe");

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/extra && cp %s %s/extra/ && depmod %s",
		 dir, WT_MODULE_PATH, dir, u.release);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, wt_unload_module()) TH_LOG("rmmod: %m");
	ASSERT_NE(0, access("/sys/module/wheeltimer", F_OK));

	umask(0);
	ASSERT_EQ(0, mknod(DEV_PATH, S_IFCHR | 0666,
			   makedev(MISC_MAJOR, WT_MINOR))) TH_LOG("mknod: %m");
	fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("the first open did not load the module: %m");
	EXPECT_EQ(0, access("/sys/module/wheeltimer", F_OK));
	EXPECT_EQ(0, wt_add(fd, SEC, NULL));
	EXPECT_EQ(0, close(fd));

	/* As the tests after this one expect: a node that goes with it. */
	ASSERT_EQ(0, wt_unload_module()) TH_LOG("rmmod: %m");
	ASSERT_EQ(0, unlink(DEV_PATH));
	ASSERT_EQ(0, wt_load_module()) TH_LOG("reloading the module: %m");
}

TEST_HARNESS_MAIN
