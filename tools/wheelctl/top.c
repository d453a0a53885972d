// SPDX-License-Identifier: GPL-2.0
/*
 * top.c - wheelctl ls and top: every open wheeltimer file on the machine,
 * found through /proc, as ss(8) finds sockets
 *
 * A descriptor /proc/PID/fd/N is a wheeltimer file if it links to
 * /dev/wheeltimer, or if it is a misc character device (major 10, as the
 * device may be mounted elsewhere in a container) whose fdinfo has the
 * module's keys. Its counters come from /proc/PID/fdinfo/N, read by
 * libwheeltimer's parser (wheeltimer_fdinfo_stats()). Processes this
 * user may not inspect (another user's, without root) are skipped and
 * counted; processes that exit during the scan are ignored.
 *
 * ls prints one sample; top takes two, an interval apart, and prints the
 * rates of the fired and hrtimer_programs counters between them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <wheeltimer/wheeltimer.h>

#include "json.h"
#include "parse.h"
#include "top.h"

#define WT_DEVICE	"/dev/wheeltimer"
#define MISC_MAJOR	10
#define NSEC_PER_SEC	1000000000ULL

/**
 * struct wt_file - one open wheeltimer file, as one sample saw it
 * @pid: the process holding it
 * @fd: its descriptor in that process
 * @comm: the process's command name, as /proc/PID/comm gives it
 * @pending: timeouts in the wheel
 * @ready: records waiting to be read
 * @fired: records queued since the file was opened
 * @programs: times the file's hrtimer was programmed
 */
struct wt_file {
	int pid;
	int fd;
	char comm[64];
	unsigned long long pending;
	unsigned long long ready;
	unsigned long long fired;
	unsigned long long programs;
};

/**
 * struct wt_sample - every wheeltimer file the scan could see
 * @files: the files, in /proc order
 * @nr: how many there are
 * @cap: how many fit in @files
 * @skipped: processes whose descriptors this user may not read
 * @ns: CLOCK_MONOTONIC when the scan ended
 */
struct wt_sample {
	struct wt_file *files;
	size_t nr;
	size_t cap;
	unsigned int skipped;
	unsigned long long ns;
};

bool wt_ps_command(const char *name)
{
	return !strcmp(name, "ls") || !strcmp(name, "top");
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * NSEC_PER_SEC + (unsigned long long)ts.tv_nsec;
}

/*
 * Reads the counters of @path (an fdinfo file) into @f, with the library's
 * parser. Returns 1 if it is a wheeltimer file's, 0 if not, -1 if it could
 * not be read.
 */
static int read_fdinfo(const char *path, struct wt_file *f)
{
	struct wheeltimer_stats st;
	int ret = wheeltimer_fdinfo_stats(path, &st);

	if (ret)
		return ret == -ENODATA ? 0 : -1;
	f->pending = st.pending;
	f->ready = st.ready;
	f->fired = st.fired;
	f->programs = st.timer_programs;
	return 1;
}

static int sample_add(struct wt_sample *s, const struct wt_file *f)
{
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct wt_file *files = realloc(s->files, cap * sizeof(*files));

		if (!files)
			return -1;
		s->files = files;
		s->cap = cap;
	}
	s->files[s->nr++] = *f;
	return 0;
}

/* Whether /proc/PID/fd/N, which links to @link, may be a wheeltimer file. */
static bool candidate(const char *fdpath, const char *link, const struct stat *dev)
{
	struct stat st;

	if (!strcmp(link, WT_DEVICE))
		return true;
	if (link[0] != '/' || stat(fdpath, &st) || !S_ISCHR(st.st_mode))
		return false;
	if (dev && st.st_rdev == dev->st_rdev)
		return true;
	return major(st.st_rdev) == MISC_MAJOR;
}

/* The wheeltimer files of process @pid; its comm is read once it has one. */
static int scan_pid(struct wt_sample *s, int pid, const struct stat *dev)
{
	char path[64], fdpath[64], link[256];
	struct wt_file f;
	struct dirent *d;
	bool named = false;
	ssize_t n;
	char *end;
	long fd;
	DIR *dir;
	FILE *in;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir) {
		if (errno == EACCES || errno == EPERM)
			s->skipped++;
		return 0;
	}
	memset(&f, 0, sizeof(f));
	f.pid = pid;
	while ((d = readdir(dir))) {
		fd = strtol(d->d_name, &end, 10);
		if (*end || end == d->d_name || fd < 0 || fd > INT_MAX)
			continue;
		snprintf(fdpath, sizeof(fdpath), "/proc/%d/fd/%ld", pid, fd);
		n = readlink(fdpath, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (!candidate(fdpath, link, dev))
			continue;
		snprintf(fdpath, sizeof(fdpath), "/proc/%d/fdinfo/%ld", pid, fd);
		if (read_fdinfo(fdpath, &f) != 1)
			continue;
		f.fd = (int)fd;
		if (!named) {
			snprintf(path, sizeof(path), "/proc/%d/comm", pid);
			in = fopen(path, "re");
			if (!in || !fgets(f.comm, sizeof(f.comm), in))
				strcpy(f.comm, "?");
			if (in)
				fclose(in);
			f.comm[strcspn(f.comm, "\n")] = '\0';
			named = true;
		}
		if (sample_add(s, &f)) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	return 0;
}

static int scan(struct wt_sample *s)
{
	struct stat devst, *dev = NULL;
	struct dirent *d;
	DIR *proc;
	char *end;
	long pid;

	s->nr = 0;
	s->skipped = 0;
	if (!stat(WT_DEVICE, &devst) && S_ISCHR(devst.st_mode))
		dev = &devst;
	proc = opendir("/proc");
	if (!proc)
		return -1;
	while ((d = readdir(proc))) {
		pid = strtol(d->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (scan_pid(s, (int)pid, dev)) {
			closedir(proc);
			return -1;
		}
	}
	closedir(proc);
	s->ns = mono_ns();
	return 0;
}

static const struct wt_file *find(const struct wt_sample *s, const struct wt_file *f)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->files[i].pid == f->pid && s->files[i].fd == f->fd)
			return &s->files[i];
	return NULL;
}

static void note_skipped(const struct wt_sample *s, bool json, const char *cmd)
{
	if (json) {
		json_begin("cmd", cmd);
		json_u64("files", s->nr);
		json_u64("skipped_processes", s->skipped);
		json_end();
	} else if (s->skipped) {
		fprintf(stderr,
			"wheelctl: %s: %u processes of other users skipped (run as root to see them)\n",
			cmd, s->skipped);
	}
}

static void print_ls(const struct wt_sample *s, bool json)
{
	const struct wt_file *f;
	size_t i;

	if (!json)
		printf("%7s %-16s %4s %10s %8s %12s %12s\n", "PID", "COMMAND", "FD",
		       "PENDING", "READY", "FIRED", "HRTIMER_PROG");
	for (i = 0; i < s->nr; i++) {
		f = &s->files[i];
		if (!json) {
			printf("%7d %-16s %4d %10llu %8llu %12llu %12llu\n", f->pid,
			       f->comm, f->fd, f->pending, f->ready, f->fired,
			       f->programs);
			continue;
		}
		json_begin("cmd", "ls");
		json_u64("pid", f->pid);
		json_str("comm", f->comm);
		json_u64("fd", f->fd);
		json_u64("pending", f->pending);
		json_u64("ready", f->ready);
		json_u64("fired", f->fired);
		json_u64("hrtimer_programs", f->programs);
		json_end();
	}
	note_skipped(s, json, "ls");
}

/**
 * struct wt_row - a file of the second sample, with its rates since the first
 * @f: the file
 * @fired: records queued per second, or -1 if the file is new
 * @programs: hrtimer programs per second, or -1 if the file is new
 */
struct wt_row {
	const struct wt_file *f;
	double fired;
	double programs;
};

static int by_fired(const void *a, const void *b)
{
	const struct wt_file *x = a, *y = b;

	return x->fired < y->fired ? 1 : x->fired > y->fired ? -1 : x->pid - y->pid;
}

static int by_rate(const void *a, const void *b)
{
	const struct wt_row *x = a, *y = b;

	if (x->fired != y->fired)
		return x->fired < y->fired ? 1 : -1;
	return x->f->pid - y->f->pid;
}

/*
 * The rates of @now's files since @then, busiest first. A file that is
 * not in @then, or whose counters went back (its descriptor now names
 * another file), has no rate yet.
 */
static int print_top(const struct wt_sample *then, const struct wt_sample *now, bool json)
{
	double secs = (double)(now->ns - then->ns) / NSEC_PER_SEC;
	struct wt_row *rows = calloc(now->nr ? now->nr : 1, sizeof(*rows));
	const struct wt_file *f, *old;
	size_t i;

	if (!rows)
		return -1;
	for (i = 0; i < now->nr; i++) {
		f = &now->files[i];
		old = find(then, f);
		rows[i].f = f;
		rows[i].fired = -1;
		rows[i].programs = -1;
		if (old && old->fired <= f->fired && old->programs <= f->programs) {
			rows[i].fired = (double)(f->fired - old->fired) / secs;
			rows[i].programs = (double)(f->programs - old->programs) / secs;
		}
	}
	qsort(rows, now->nr, sizeof(*rows), by_rate);
	if (!json)
		printf("%7s %-16s %4s %10s %8s %10s %10s\n", "PID", "COMMAND", "FD",
		       "PENDING", "READY", "FIRED/S", "PROG/S");
	for (i = 0; i < now->nr; i++) {
		f = rows[i].f;
		if (json) {
			json_begin("cmd", "top");
			json_u64("pid", f->pid);
			json_str("comm", f->comm);
			json_u64("fd", f->fd);
			json_u64("pending", f->pending);
			json_u64("ready", f->ready);
			if (rows[i].fired < 0) {
				json_null("fired_per_s");
				json_null("hrtimer_programs_per_s");
			} else {
				json_rate("fired_per_s", rows[i].fired);
				json_rate("hrtimer_programs_per_s", rows[i].programs);
			}
			json_end();
		} else if (rows[i].fired < 0) {
			printf("%7d %-16s %4d %10llu %8llu %10s %10s\n", f->pid,
			       f->comm, f->fd, f->pending, f->ready, "-", "-");
		} else {
			printf("%7d %-16s %4d %10llu %8llu %10.1f %10.1f\n", f->pid,
			       f->comm, f->fd, f->pending, f->ready, rows[i].fired,
			       rows[i].programs);
		}
	}
	free(rows);
	note_skipped(now, json, "top");
	return 0;
}

/* --interval: a duration as the other commands take them, 1 ms to 1 hour. */
static int parse_interval(const char *s, unsigned long long *ns)
{
	uint64_t v;

	if (parse_time(s, &v) || v < NSEC_PER_SEC / 1000 || v > 3600 * NSEC_PER_SEC)
		return -1;
	*ns = v;
	return 0;
}

static int usage(const char *cmd, const char *msg, bool json)
{
	fprintf(stderr, "wheelctl: %s: %s\nwheelctl: try 'wheelctl --help'\n", cmd, msg);
	if (json)
		json_error("usage", cmd, msg);
	return 2;
}

static int failed(const char *cmd, bool json)
{
	int err = errno;

	fprintf(stderr, "wheelctl: %s: %s\n", cmd, strerror(err));
	if (json)
		json_error("scan", cmd, strerror(err));
	return 1;
}

int wt_ps_run(int argc, char **argv, bool json)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct wt_sample a = { 0 }, b = { 0 }, tmp;
	unsigned long long interval = NSEC_PER_SEC, count = 1, round;
	bool top = !strcmp(argv[0], "top");
	struct timespec ts;
	char *end;
	int o, ret = 0;

	optind = 0;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (!top)
			return usage(argv[0], "takes no options", json);
		switch (o) {
		case 'i':
			if (parse_interval(optarg, &interval))
				return usage(argv[0], "--interval is 1ms to 1h, e.g. 500ms, 2s",
					     json);
			break;
		case 'n':
			errno = 0;
			count = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg)
				return usage(argv[0], "--count needs a number", json);
			break;
		default:
			return usage(argv[0], "unknown or incomplete option", json);
		}
	}
	if (optind != argc)
		return usage(argv[0], "takes no arguments", json);

	if (scan(&a))
		return failed(argv[0], json);
	if (!top) {
		qsort(a.files, a.nr, sizeof(*a.files), by_fired);
		print_ls(&a, json);
		goto out;
	}
	for (round = 0; !count || round < count; round++) {
		ts.tv_sec = (time_t)(interval / NSEC_PER_SEC);
		ts.tv_nsec = (long)(interval % NSEC_PER_SEC);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		if (scan(&b)) {
			ret = failed(argv[0], json);
			break;
		}
		if (round && !json)
			putchar('\n');
		if (print_top(&a, &b, json)) {
			ret = failed(argv[0], json);
			break;
		}
		fflush(stdout);
		tmp = a;
		a = b;
		b = tmp;
	}
out:
	free(a.files);
	free(b.files);
	return ret;
}
