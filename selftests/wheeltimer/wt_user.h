/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the selftests of the per-user limit share: the limits (the sysctls
 * in /proc/sys/dev/wheeltimer/), becoming another user, and files filled
 * until they are refused. The tests run as root and act as other users in
 * children.
 */
#ifndef WT_USER_H
#define WT_USER_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wt_util.h"

#define LIMITS_DIR	"/proc/sys/dev/wheeltimer/"
#define NOBODY		65534
#define PER_PAGE	85	/* timeouts charged per page of storage */
/* What a file's context may cost at most, in timeouts, if fdinfo says not. */
#define CTX_GUESS	(16 * PER_PAGE)

/* 0 and the value, or -errno. */
static inline int limit_get(const char *name, __u64 *val)
{
	char path[128], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), LIMITS_DIR "%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	*val = strtoull(buf, NULL, 0);
	return 0;
}

/* 0, or -errno of the open or of the write. */
static inline int limit_set_str(const char *name, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), LIMITS_DIR "%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static inline int limit_set(const char *name, __u64 val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)val);
	return limit_set_str(name, buf);
}

/* Become uid and gid @id, with no supplementary groups. */
static inline int become_user(unsigned int id)
{
	if (setgroups(0, NULL) || setresgid(id, id, id) ||
	    setresuid(id, id, id))
		return -errno;
	return 0;
}

static inline int become_nobody(void)
{
	return become_user(NOBODY);
}

/* A virtual file, so that nothing fires, allowed @max_pending. */
static inline int open_virtual(__u64 max_pending, int *err)
{
	int fd = wt_open();

	*err = fd < 0 ? -errno : 0;
	if (fd >= 0) {
		*err = wt_config(fd, MSEC, CLOCK_MONOTONIC, WT_CONFIG_VIRTUAL,
				 max_pending);
		if (*err) {
			close(fd);
			fd = -1;
		}
	}
	return fd;
}

/* Whole pages of timeouts per batch. */
#define FILL_BATCH	(WT_BATCH_MAX / PER_PAGE * PER_PAGE)

/*
 * Add up to @n timeouts in batches until one fails; the ids go to @ids if
 * not NULL. Returns how many were added; *@err is the error of the first
 * op that failed, 0 if none did.
 */
static inline unsigned int fill(int fd, unsigned int n, __u64 *ids,
				int *err)
{
	struct wt_op ops[WT_BATCH_MAX];
	unsigned int added = 0, k, i;
	int r;

	*err = 0;
	while (added < n) {
		k = n - added < FILL_BATCH ? n - added : FILL_BATCH;
		memset(ops, 0, k * sizeof(ops[0]));
		for (i = 0; i < k; i++) {
			ops[i].op = WT_OP_ADD;
			ops[i].deadline = 3600 * SEC;
		}
		r = wt_batch(fd, ops, k);
		if (r < 0) {
			*err = -r;
			break;
		}
		for (i = 0; i < k; i++) {
			if (ops[i].error) {
				if (!*err)
					*err = ops[i].error;
				continue;
			}
			if (ids)
				ids[added] = ops[i].id;
			added++;
		}
		if (*err)
			break;
	}
	return added;
}

#endif /* WT_USER_H */
