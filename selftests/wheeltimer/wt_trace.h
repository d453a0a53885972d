/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wheeltimer tracepoints as the selftests read them, from the trace
 * buffer of tracefs: enable the events, then pick out the lines of one
 * file (one context) and compare them with what the test did. Include
 * after kselftest_harness.h, whose assertions EXPECT_EVENT() uses.
 */
#ifndef WT_TRACE_H
#define WT_TRACE_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACEFS		"/sys/kernel/tracing"

static inline int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

/*
 * tracefs mounted where it belongs, or a reason to skip. The tests read
 * pids, not comms: recording comms is switched off before any event is
 * enabled, so that enabling one does not also hook sched_switch, a static
 * key patched (int3 on every CPU) into __schedule, which under QEMU TCG
 * has oopsed on that int3.
 */
static inline const char *tracefs_ready(void)
{
	struct stat st;

	if (geteuid())
		return "tracing needs root";
	if (stat(TRACEFS "/events", &st) &&
	    mount("nodev", TRACEFS, "tracefs", 0, NULL))
		return "no tracefs";
	(void)write_file(TRACEFS "/options/record-cmd", "0");
	return NULL;
}

/*
 * The pid in a trace line's "comm-pid [cpu]" prefix (comm may hold '-'
 * and spaces), or -1.
 */
static inline int trace_line_pid(const char *line)
{
	const char *cpu = strstr(line, " [");
	const char *p;

	if (!cpu)
		return -1;
	p = cpu;
	while (p > line && p[-1] == ' ')
		p--;
	while (p > line && isdigit((unsigned char)p[-1]))
		p--;
	if (p == line || p[-1] != '-' || !isdigit((unsigned char)*p))
		return -1;
	return atoi(p);
}

/*
 * The events of context @ctx in the trace buffer, one per line as
 * "NAME: FIELDS", at most @max of them, in the order they were traced;
 * with @pids, the pid of the task that traced each one.
 */
static inline int trace_events(unsigned long long ctx, char lines[][256],
			       int *pids, int max)
{
	char line[512], want[64], *p;
	FILE *f = fopen(TRACEFS "/trace", "re");
	int n = 0;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), " context=%llu ", ctx);
	while (n < max && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		strcat(line, " ");
		if (line[0] == '#' || !strstr(line, want))
			continue;
		/* "comm-pid [cpu] flags stamp: NAME: FIELDS" */
		p = strstr(line, ": ");
		if (!p)
			continue;
		if (pids)
			pids[n] = trace_line_pid(line);
		snprintf(lines[n++], 256, "%s", p + 2);
	}
	fclose(f);
	return n;
}

/* Whether @line is event @name and holds every field of @fields. */
static inline bool event_is(const char *line, const char *name,
			    const char *fields)
{
	char want[256], one[64];
	const char *f = fields;
	int len;

	snprintf(want, sizeof(want), "%s: ", name);
	if (strncmp(line, want, strlen(want)))
		return false;
	while (*f) {
		len = strcspn(f, " ");
		snprintf(one, sizeof(one), " %.*s ", len, f);
		if (!strstr(line + strlen(name), one))
			return false;
		f += len + (f[len] == ' ');
	}
	return true;
}

#define EXPECT_EVENT(line, name, ...) do {				\
		const char *__line = (line), *__name = (name);		\
		char __f[256];						\
									\
		snprintf(__f, sizeof(__f), __VA_ARGS__);		\
		EXPECT_TRUE(event_is(__line, __name, __f))		\
			TH_LOG("want %s: %s, got %s", __name, __f, __line); \
	} while (0)

#endif /* WT_TRACE_H */
