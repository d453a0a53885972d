/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wt_fdinfo.h - read one counter of a /dev/wheeltimer file's fdinfo, for
 * the userspace tools (wheelctl, the demo, wheelbench)
 */
#ifndef _WT_FDINFO_H
#define _WT_FDINFO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of "KEY:" in the fdinfo of @fd, or -1 if there is none. */
static inline long long wt_fdinfo_value(int fd, const char *key)
{
	char path[64], line[256];
	size_t len = strlen(key);
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

#endif /* _WT_FDINFO_H */
