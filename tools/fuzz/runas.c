// SPDX-License-Identifier: GPL-2.0
/*
 * runas - run a program as another uid and gid, with no supplementary
 * groups: the busybox guest has no su that works without /etc/passwd.
 *
 * usage: runas UID GID PROGRAM [ARG...]
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: %s UID GID PROGRAM [ARG...]\n", argv[0]);
		return 2;
	}
	uid = strtoul(argv[1], NULL, 0);
	gid = strtoul(argv[2], NULL, 0);
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		perror("runas");
		return 2;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
