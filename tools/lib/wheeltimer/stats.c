// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * stats.c - a context's counters: the engine's fdinfo lines, parsed once
 * here for every program, and the library's own
 *
 * The kernel engine's counters are the lines of /proc/self/fdinfo/FD; the
 * in-process engine writes the same lines. Each line is "key:" and a
 * value; the value of a counter is the first number after the colon
 * (decimal, or octal with a leading 0 or hexadecimal with 0x, as strtoull()
 * reads them, for the kernel's own lines such as "flags"). The
 * module's keys grow and change between versions, so the parser knows no
 * order and no set: a key it does not know is skipped (wheeltimer_stat()
 * still finds it by name), a counter that is missing is left 0 with its
 * WHEELTIMER_STAT_* bit clear, and a renamed counter is looked for under
 * both names (hrtimer_programs or timerfd_programs, rebuilds or rewinds).
 *
 * wheeltimer_fdinfo_stats() is the same parser for any wheeltimer file's
 * fdinfo, another process's included (/proc/PID/fdinfo/FD), as wheelctl ls
 * and top read them: one parser for every program.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define WTL_FDINFO_SIZE		4096
#define WTL_FDINFO_MAX		0x100000U

/* The counters every wheeltimer fdinfo has had, the module's and ours. */
#define WTL_STAT_IDENTITY	(WHEELTIMER_STAT_RESOLUTION | \
				 WHEELTIMER_STAT_MAX_PENDING | \
				 WHEELTIMER_STAT_LIVE | WHEELTIMER_STAT_PENDING | \
				 WHEELTIMER_STAT_READY)

struct wtl_stat_key {
	const char *key;
	size_t offset;
	uint64_t bit;
};

#define WTL_STAT(name, field, flag) \
	{ name, offsetof(struct wheeltimer_stats, field), WHEELTIMER_STAT_##flag }

static const struct wtl_stat_key wtl_stat_keys[] = {
	WTL_STAT("resolution_ns", resolution_ns, RESOLUTION),
	WTL_STAT("max_pending", max_pending, MAX_PENDING),
	WTL_STAT("now_ns", now_ns, NOW),
	WTL_STAT("live", live, LIVE),
	WTL_STAT("pending", pending, PENDING),
	WTL_STAT("ready", ready, READY),
	WTL_STAT("added", added, ADDED),
	WTL_STAT("modified", modified, MODIFIED),
	WTL_STAT("fired", fired, FIRED),
	WTL_STAT("delivered", delivered, DELIVERED),
	WTL_STAT("cancelled", cancelled, CANCELLED),
	WTL_STAT("withdrawn", withdrawn, WITHDRAWN),
	WTL_STAT("overruns", overruns, OVERRUNS),
	WTL_STAT("hrtimer_programs", timer_programs, TIMER_PROGRAMS),
	WTL_STAT("timerfd_programs", timer_programs, TIMER_PROGRAMS),
	WTL_STAT("rebuilds", rewinds, REWINDS),
	WTL_STAT("rewinds", rewinds, REWINDS),
};

/*
 * The line at *@pos: its key (not NUL-terminated) in @key and @keylen, and
 * the first number after the colon in @value. Moves *@pos to the next
 * line. Returns 0 for a line with a number, -EINVAL for one without (or
 * with one beyond 2^64), -ENOENT at the end of @text.
 */
static int wtl_kv_next(const char **pos, const char **key, size_t *keylen,
		       uint64_t *value)
{
	const char *line = *pos, *colon, *eol, *p;
	unsigned long long v;
	char *end;

	if (!*line)
		return -ENOENT;
	eol = strchr(line, '\n');
	if (!eol)
		eol = line + strlen(line);
	*pos = *eol ? eol + 1 : eol;

	colon = memchr(line, ':', eol - line);
	if (!colon)
		return -EINVAL;
	*key = line;
	*keylen = colon - line;
	for (p = colon + 1; p < eol && (*p == ' ' || *p == '\t'); p++)
		;
	if (p == eol || *p < '0' || *p > '9')
		return -EINVAL;
	/* Base 0: the kernel's own lines give "flags" in octal. */
	errno = 0;
	v = strtoull(p, &end, 0);
	if (errno || end > eol)
		return -EINVAL;
	*value = v;
	return 0;
}

/* The value of @key in fdinfo @text: 0, -ENOENT, or -EINVAL (not a number). */
int wtl_fdinfo_value(const char *text, const char *key, uint64_t *value)
{
	size_t len = strlen(key), klen;
	const char *pos = text, *k;
	uint64_t v;
	int ret;

	while ((ret = wtl_kv_next(&pos, &k, &klen, &v)) != -ENOENT) {
		if (klen != len || memcmp(k, key, len))
			continue;
		if (ret)
			return ret;
		*value = v;
		return 0;
	}
	return -ENOENT;
}

/* Fill the engine counters of @st from fdinfo @text. */
void wtl_stats_parse(const char *text, struct wheeltimer_stats *st)
{
	const struct wtl_stat_key *sk;
	const char *pos = text, *k;
	size_t klen, i;
	uint64_t v;
	int ret;

	while ((ret = wtl_kv_next(&pos, &k, &klen, &v)) != -ENOENT) {
		if (ret)
			continue;
		for (i = 0; i < ARRAY_SIZE(wtl_stat_keys); i++) {
			sk = &wtl_stat_keys[i];
			if (strlen(sk->key) != klen || memcmp(sk->key, k, klen))
				continue;
			memcpy((char *)st + sk->offset, &v, sizeof(v));
			st->present |= sk->bit;
			break;
		}
	}
}

/**
 * wtl_read_file() - the text of a file, NUL-terminated
 * @path: the file, typically under /proc
 * @buf: where to put it
 * @size: room in @buf, the NUL included
 *
 * Return: its length, -ENOSPC if it does not fit, or open()'s or read()'s
 * negative errno.
 */
int wtl_read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	if (err)
		return err;
	return len + 1 < size ? (int)len : -ENOSPC;
}

/*
 * The fdinfo text of @wt's engine, or with @wt NULL of the file at @path,
 * in a buffer to free().
 */
static int wtl_fdinfo(const struct wheeltimer *wt, const char *path,
		      char **text)
{
	size_t size = WTL_FDINFO_SIZE;
	char *buf;
	int ret;

	for (;;) {
		buf = malloc(size);
		if (!buf)
			return -ENOMEM;
		ret = wt ? wt->engine->fdinfo(wt, buf, size) :
			   wtl_read_file(path, buf, size);
		if (ret >= 0) {
			*text = buf;
			return 0;
		}
		free(buf);
		if (ret != -ENOSPC || size >= WTL_FDINFO_MAX)
			return ret;
		size *= 2;
	}
}

int wheeltimer_stats(const struct wheeltimer *wt,
		     struct wheeltimer_stats *stats)
{
	char *text;
	int ret;

	memset(stats, 0, sizeof(*stats));
	ret = wtl_fdinfo(wt, NULL, &text);
	if (ret)
		return ret;
	wtl_stats_parse(text, stats);
	free(text);

	stats->submits = wt->cnt.submits;
	stats->submitted = wt->cnt.submitted;
	stats->auto_submits = wt->cnt.auto_submits;
	stats->queue_resolved = wt->cnt.queue_resolved;
	stats->reads = wt->cnt.reads;
	stats->reaped = wt->cnt.reaped;
	return 0;
}

/* The library's own counters, by name. */
static int wtl_lib_stat(const struct wheeltimer *wt, const char *key,
			uint64_t *value)
{
	const struct {
		const char *key;
		uint64_t value;
	} keys[] = {
		{ "lib_submits", wt->cnt.submits },
		{ "lib_submitted", wt->cnt.submitted },
		{ "lib_auto_submits", wt->cnt.auto_submits },
		{ "lib_queue_resolved", wt->cnt.queue_resolved },
		{ "lib_reads", wt->cnt.reads },
		{ "lib_reaped", wt->cnt.reaped },
		{ "lib_dropped", wt->cnt.dropped },
		{ "lib_buffered", wt->cnt.buffered },
		{ "lib_foreign", wt->cnt.foreign },
		{ "lib_backlog", wt->rq_len - wt->rq_head },
		{ "lib_handles", wt->handles.nr_live },
		{ "lib_queued", wheeltimer_queued(wt) },
		{ "lib_warnings", wtl_warnings() },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (!strcmp(keys[i].key, key)) {
			*value = keys[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

int wheeltimer_stat(const struct wheeltimer *wt, const char *key,
		    uint64_t *value)
{
	char *text;
	int ret;

	if (!strncmp(key, "lib_", 4))
		return wtl_lib_stat(wt, key, value);
	ret = wtl_fdinfo(wt, NULL, &text);
	if (ret)
		return ret;
	ret = wtl_fdinfo_value(text, key, value);
	free(text);
	return ret;
}

int wheeltimer_fdinfo_stats(const char *path, struct wheeltimer_stats *stats)
{
	char *text;
	int ret;

	memset(stats, 0, sizeof(*stats));
	ret = wtl_fdinfo(NULL, path, &text);
	if (ret)
		return ret;
	wtl_stats_parse(text, stats);
	free(text);
	if ((stats->present & WTL_STAT_IDENTITY) != WTL_STAT_IDENTITY) {
		memset(stats, 0, sizeof(*stats));
		return -ENODATA;
	}
	return 0;
}
