// SPDX-License-Identifier: GPL-2.0
/*
 * wheelctl - add, cancel, modify, query and watch timeouts on /dev/wheeltimer
 *
 * Every open() of the device is a context of its own, so one wheelctl run
 * opens it once and applies a sequence of subcommands to that one file:
 * given on the command line, separated by "--", or read from a script, one
 * per line. --fd uses a descriptor the caller already holds open, so that a
 * shell script can keep one file across several wheelctl runs.
 *
 * The file is driven through libwheeltimer, on its kernel engine only
 * (wheeltimer_open_fd() on the descriptor wheelctl opened or was given):
 * wheelctl is a tool for the device, whose files ls, top, fdinfo and --fd
 * are about, so it never falls back to the in-process engine, and
 * WHEELTIMER_ENGINE does not apply. Each command is submitted as soon as
 * it is given, so that its errors are its own. The ids wheelctl prints are
 * the library's handles, this run's: another run on the same file (--fd)
 * sees the timeouts this one added as foreign ones, which it can watch but
 * not cancel, modify or query.
 *
 * Run "wheelctl --help" for the commands; the manual is wheelctl(1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <wheeltimer/wheeltimer.h>

#include "json.h"
#include "parse.h"
#include "top.h"

#define WT_DEVICE	"/dev/wheeltimer"
/* The project's version, from the file VERSION (the Makefile passes it). */
#ifndef WT_VERSION
#error "WT_VERSION is not defined: build with tools/wheelctl/Makefile"
#endif
/* The device's interface version that wheelctl speaks, through the library. */
#define WT_API		1
#define NSEC_PER_SEC	1000000000ULL
#define SCRIPT_ARGS	64
#define WATCH_BATCH	64

/* Exit statuses: an operation failed, or the command line was wrong. */
#define EXIT_FAILED	1
#define EXIT_USAGE	2

/* The library's records that are outcomes of operations, not firings. */
#define EV_OUTCOME	(WHEELTIMER_EV_ADD | WHEELTIMER_EV_MODIFY | \
			 WHEELTIMER_EV_CANCEL)

/**
 * struct ctl - the state of one wheelctl run
 * @wt: the context on the open device
 * @json: print one JSON object per line instead of text
 * @where: the current script line, for error messages; 0 on the command line
 * @ids: the handles added by this run, in order, for the %N references
 * @nr_ids: how many @ids there are
 * @cap_ids: how many @ids fit in the allocation
 * @events: records printed by watch commands
 * @early: records whose fired_at was before their deadline (a kernel bug)
 * @worst_late: the largest fired_at - deadline seen, in ns
 */
struct ctl {
	struct wheeltimer *wt;
	bool json;
	unsigned int where;
	uint64_t *ids;
	size_t nr_ids;
	size_t cap_ids;
	unsigned long long events;
	unsigned long long early;
	unsigned long long worst_late;
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void print_help(FILE *f)
{
	fputs("usage: wheelctl [-j] [-d DEVICE | --fd N] COMMAND [ARGS] [-- COMMAND [ARGS]]...\n"
	      "       wheelctl [-j] [-d DEVICE | --fd N] -f SCRIPT   (one command per line; - is stdin)\n"
	      "       wheelctl [-j] ls | top [--interval D] [--count N]\n"
	      "       wheelctl [-j] --version\n"
	      "\n"
	      "Opens /dev/wheeltimer once and runs the commands in order on that one file:\n"
	      "its timeouts live as long as the file stays open, so a timeout added by one\n"
	      "wheelctl run is gone when it exits. To keep a context across runs, open the\n"
	      "device in the shell (exec 3<>/dev/wheeltimer) and pass --fd 3 each time;\n"
	      "ids are each run's own: a later run watches an earlier one's timeouts, no more.\n"
	      "\n"
	      "Commands:\n"
	      "  add TIME [--abs] [--rate P | --delay P] [--cookie N] [--slack D] [--repeat N]\n"
	      "        arm a timeout TIME from now (at TIME with --abs) and print its id.\n"
	      "        --rate P: periodic, next deadline = previous + P (overruns counted);\n"
	      "        --delay P: periodic, next deadline = P after its event is read;\n"
	      "        --repeat N: add N such timeouts in batches, cookies N, N+1, ...\n"
	      "  cancel ID...       cancel timeouts, or withdraw their unread events\n"
	      "  modify ID TIME [--abs] [--slack D]\n"
	      "                     move a timeout's deadline (re-arms it in any state)\n"
	      "  query ID...        print state, deadline, time remaining, cookie, period\n"
	      "  watch [--count N] [--timeout D]\n"
	      "        print each event as it arrives: id, cookie, deadline, fired_at,\n"
	      "        lateness (fired_at - deadline), overruns. Stops after N events,\n"
	      "        after D, or when the file holds no timeout any more\n"
	      "  config [--resolution D] [--clock monotonic|boottime|realtime]\n"
	      "         [--max-pending N] [--virtual]\n"
	      "        with options, set the configuration (only while no timeout is held);\n"
	      "        print it either way\n"
	      "  advance D [--set]  move a virtual clock forward by D (to D with --set)\n"
	      "  fdinfo             print the kernel's counters for the file\n"
	      "  api                print the interface version and features\n"
	      "  sleep D            pause (between other commands)\n"
	      "\n"
	      "Every open wheeltimer file on the machine (alone, without a device):\n"
	      "  ls                 pid, command, fd, pending, ready, fired, hrtimer programs\n"
	      "  top [--interval D] [--count N]\n"
	      "        the same with fired/s and hrtimer programs/s over D (default 1s),\n"
	      "        N times (default 1; 0: until interrupted). Without root, only the\n"
	      "        files of this user's processes\n"
	      "\n"
	      "Options:\n"
	      "  -d, --device PATH  open PATH instead of /dev/wheeltimer\n"
	      "      --fd N         use the open descriptor N instead of opening a device\n"
	      "  -f, --file SCRIPT  read commands from SCRIPT, one per line, # comments\n"
	      "  -j, --json         print one JSON object per line (errors too, on stdout)\n"
	      "  -h, --help         this text\n"
	      "  -V, --version      print wheelctl's version, and the loaded module's\n"
	      "\n"
	      "TIME and durations are numbers with a unit: ns, us, ms, s, m or h (1.5s,\n"
	      "250us); a bare number is nanoseconds. An absolute TIME is on the file's\n"
	      "clock (CLOCK_MONOTONIC unless config says otherwise). ID is an id this run\n"
	      "printed, or %N for the N-th timeout it added (%1 is the first), or % for\n"
	      "the last.\n"
	      "\n"
	      "Examples:\n"
	      "  wheelctl add 100ms --cookie 7 -- add 2s -- cancel %2 -- watch\n"
	      "  wheelctl add 1s --rate 250ms -- watch --count 5\n"
	      "  wheelctl config --virtual -- add 5s -- advance 10s -- watch --timeout 0\n"
	      "\n"
	      "Exit status: 0, 1 if a command failed (the commands after it are not run),\n"
	      "2 for a usage error.\n", f);
}

/* Messages that name what went wrong, for the errors the device returns. */
static const char *wt_strerror(int err)
{
	switch (err) {
	case ENOENT:
		return "no such timeout";
	case ENOSPC:
		return "too many timeouts (the file's max_pending or its user's max_user_timeouts)";
	case EPERM:
		return "max_pending above the module's default needs CAP_SYS_RESOURCE";
	case EMFILE:
		return "the user's wheeltimer files hold all that max_user_timeouts allows";
	case ERANGE:
		return "deadline out of range (beyond the last tick below 2^63 ns)";
	case EBUSY:
		return "the file holds timeouts; configure it before adding any";
	case ENOTTY:
	case WHEELTIMER_EAPI:
		return "not a wheeltimer device, or an older module";
	default:
		return wheeltimer_strerror(err);
	}
}

static const char *errno_name(int err)
{
	switch (err) {
	case ENOENT: return "ENOENT";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	case ENOTTY: return "ENOTTY";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case EINTR: return "EINTR";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ETIMEDOUT: return "ETIMEDOUT";
	case WHEELTIMER_EAPI: return "WHEELTIMER_EAPI";
	case WHEELTIMER_EFEATURE: return "WHEELTIMER_EFEATURE";
	default: return "E?";
	}
}

/*
 * Reports "wheelctl: [line N: ]WHAT: MESSAGE" on stderr and, with --json,
 * the same as an object on stdout. @err is a positive errno value or
 * library error (either sign is taken). Returns EXIT_FAILED.
 */
static int fail(struct ctl *c, const char *what, int err, const char *msg)
{
	if (err < 0)
		err = -err;
	if (!msg)
		msg = wt_strerror(err);
	if (c->where)
		fprintf(stderr, "wheelctl: line %u: %s: %s\n", c->where, what, msg);
	else
		fprintf(stderr, "wheelctl: %s: %s\n", what, msg);
	if (c->json)
		json_error(err ? errno_name(err) : "usage", what, msg);
	return EXIT_FAILED;
}

static int usage_error(struct ctl *c, const char *cmd, const char *msg)
{
	fail(c, cmd, 0, msg);
	fprintf(stderr, "wheelctl: try 'wheelctl --help'\n");
	return EXIT_USAGE;
}

static int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* An id: a number, %N (the N-th this run added) or % (the last). */
static int parse_id(struct ctl *c, const char *s, uint64_t *out)
{
	uint64_t n;

	if (s[0] != '%')
		return parse_u64(s, out);
	if (!s[1]) {
		if (!c->nr_ids)
			return -1;
		*out = c->ids[c->nr_ids - 1];
		return 0;
	}
	if (parse_u64(s + 1, &n) || n < 1 || n > c->nr_ids)
		return -1;
	*out = c->ids[n - 1];
	return 0;
}

static int remember_id(struct ctl *c, uint64_t id)
{
	if (c->nr_ids == c->cap_ids) {
		size_t cap = c->cap_ids ? 2 * c->cap_ids : 64;
		uint64_t *ids = realloc(c->ids, cap * sizeof(*ids));

		if (!ids)
			return -1;
		c->ids = ids;
		c->cap_ids = cap;
	}
	c->ids[c->nr_ids++] = id;
	return 0;
}

/* "1.250000000" for a clock reading in ns. */
static const char *fmt_clock(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%llu.%09llu", (unsigned long long)(ns / NSEC_PER_SEC),
		 (unsigned long long)(ns % NSEC_PER_SEC));
	return buf;
}

/* "250ns", "12.345us", "1.500ms", "2.000000s" for a duration in ns. */
static const char *fmt_dur(char *buf, size_t size, uint64_t v)
{
	unsigned long long ns = v;

	if (ns < 1000)
		snprintf(buf, size, "%lluns", ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%llu.%03lluus", ns / 1000, ns % 1000);
	else if (ns < NSEC_PER_SEC)
		snprintf(buf, size, "%llu.%03llums", ns / 1000000,
			 ns % 1000000 / 1000);
	else
		snprintf(buf, size, "%llu.%06llus", ns / NSEC_PER_SEC,
			 ns % NSEC_PER_SEC / 1000);
	return buf;
}

static const char *kind_name(uint32_t flags)
{
	if (flags & WHEELTIMER_FIXED_RATE)
		return "fixed-rate";
	if (flags & WHEELTIMER_FIXED_DELAY)
		return "fixed-delay";
	return "one-shot";
}

/* Options of the subcommands, parsed with getopt_long. */
enum {
	OPT_ABS = 0x100,
	OPT_RATE,
	OPT_DELAY,
	OPT_COOKIE,
	OPT_SLACK,
	OPT_REPEAT,
	OPT_COUNT,
	OPT_TIMEOUT,
	OPT_RESOLUTION,
	OPT_CLOCK,
	OPT_MAX_PENDING,
	OPT_VIRTUAL,
	OPT_SET,
};

/* Options may come before or after the arguments: getopt permutes them. */
static int getopt_cmd(int argc, char **argv, const struct option *longopts)
{
	return getopt_long(argc, argv, "", longopts, NULL);
}

static void reset_getopt(void)
{
	optind = 0;
	opterr = 0;
}

static int bad_option(struct ctl *c, char **argv)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "unknown or incomplete option '%s'",
		 argv[optind - 1]);
	return usage_error(c, argv[0], msg);
}

/**
 * struct add_args - an add command's timeout
 * @deadline: relative, or absolute with WHEELTIMER_ABSTIME in @flags
 * @period: 0, or the period of a WHEELTIMER_FIXED_RATE or _FIXED_DELAY one
 * @slack: ns it may fire late, to share a tick with others
 * @cookie: the first cookie
 * @flags: WHEELTIMER_ABSTIME, WHEELTIMER_FIXED_RATE, WHEELTIMER_FIXED_DELAY
 */
struct add_args {
	uint64_t deadline;
	uint64_t period;
	uint64_t slack;
	uint64_t cookie;
	uint32_t flags;
};

/* Queues one add; the library submits by itself when its queue is full. */
static int queue_add(struct ctl *c, const struct add_args *a, uint64_t cookie,
		     uint64_t *h)
{
	if (a->period)
		return wheeltimer_add_periodic(c->wt, a->deadline, a->period,
					       a->slack, a->flags, cookie, h);
	return wheeltimer_add(c->wt, a->deadline, a->slack, a->flags, cookie, h);
}

/*
 * The outcome of the add of @h, submitted: 0 or its error. A failed one
 * is cancelled, which releases its handle and drops its record.
 */
static int add_outcome(struct ctl *c, uint64_t h)
{
	int err = wheeltimer_error(c->wt, h);

	if (err)
		wheeltimer_cancel(c->wt, h, 0);
	return err;
}

static int add_many(struct ctl *c, const struct add_args *a, uint64_t repeat)
{
	uint64_t i, failed = 0, *h;
	struct wheeltimer_params p;
	size_t first = c->nr_ids;
	char what[64];
	int err, first_err = 0;

	h = calloc(repeat, sizeof(*h));
	if (!h)
		return fail(c, "add", ENOMEM, NULL);
	for (i = 0; i < repeat; i++) {
		err = queue_add(c, a, a->cookie + i, &h[i]);
		if (err) {
			free(h);
			return fail(c, "add", err, NULL);
		}
	}
	err = wheeltimer_submit(c->wt);
	if (err < 0) {
		free(h);
		return fail(c, "add: submit", err, NULL);
	}
	for (i = 0; i < repeat; i++) {
		err = add_outcome(c, h[i]);
		if (err) {
			failed++;
			if (!first_err)
				first_err = err;
		} else if (remember_id(c, h[i])) {
			free(h);
			return fail(c, "add", ENOMEM, NULL);
		}
	}
	free(h);
	wheeltimer_get_params(c->wt, &p);
	if (c->json) {
		json_begin("cmd", "add");
		json_u64("added", repeat - failed);
		json_u64("failed", failed);
		json_u64("first_ref", first + 1);
		json_u64("last_ref", c->nr_ids);
		json_end();
	} else {
		printf("added %llu timeouts in batches of up to %u (%%%zu to %%%zu)\n",
		       (unsigned long long)(repeat - failed), p.queue_depth,
		       first + 1, c->nr_ids);
	}
	if (failed) {
		snprintf(what, sizeof(what), "add: %llu of %llu",
			 (unsigned long long)failed, (unsigned long long)repeat);
		return fail(c, what, first_err, NULL);
	}
	return 0;
}

static int cmd_add(struct ctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "abs", no_argument, NULL, OPT_ABS },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "delay", required_argument, NULL, OPT_DELAY },
		{ "cookie", required_argument, NULL, OPT_COOKIE },
		{ "slack", required_argument, NULL, OPT_SLACK },
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ NULL, 0, NULL, 0 },
	};
	struct add_args a = { 0 };
	struct wheeltimer_info info;
	char what[64], b1[32], b2[32];
	uint64_t repeat = 1, h;
	int o, err;

	reset_getopt();
	while ((o = getopt_cmd(argc, argv, opts)) != -1) {
		switch (o) {
		case OPT_ABS:
			a.flags |= WHEELTIMER_ABSTIME;
			break;
		case OPT_RATE:
		case OPT_DELAY:
			if (a.flags & (WHEELTIMER_FIXED_RATE | WHEELTIMER_FIXED_DELAY))
				return usage_error(c, "add",
						   "--rate and --delay exclude each other");
			a.flags |= o == OPT_RATE ? WHEELTIMER_FIXED_RATE :
						   WHEELTIMER_FIXED_DELAY;
			if (parse_time(optarg, &a.period) || !a.period)
				return usage_error(c, "add",
						   "the period must be a positive duration");
			break;
		case OPT_COOKIE:
			if (parse_u64(optarg, &a.cookie))
				return usage_error(c, "add",
						   "the cookie is an unsigned 64-bit number");
			break;
		case OPT_SLACK:
			if (parse_time(optarg, &a.slack))
				return usage_error(c, "add", "bad --slack duration");
			break;
		case OPT_REPEAT:
			if (parse_u64(optarg, &repeat) || !repeat)
				return usage_error(c, "add", "--repeat needs a positive count");
			break;
		default:
			return bad_option(c, argv);
		}
	}
	if (optind != argc - 1)
		return usage_error(c, "add", "needs one TIME");
	if (parse_time(argv[optind], &a.deadline))
		return usage_error(c, "add", "bad TIME (want e.g. 100ms, 2s, 1.5s, 250us)");

	if (repeat > 1)
		return add_many(c, &a, repeat);

	snprintf(what, sizeof(what), "add %s", argv[optind]);
	err = queue_add(c, &a, a.cookie, &h);
	if (err)
		return fail(c, what, err, NULL);
	err = wheeltimer_submit(c->wt);
	if (err >= 0)
		err = add_outcome(c, h);
	if (err)
		return fail(c, what, err, NULL);
	if (remember_id(c, h))
		return fail(c, "add", ENOMEM, NULL);

	/* Ask for the absolute deadline the engine computed. */
	if (wheeltimer_query(c->wt, h, &info))
		info.deadline = 0;
	if (c->json) {
		json_begin("cmd", "add");
		json_u64("id", h);
		json_u64("ref", c->nr_ids);
		json_u64("cookie", a.cookie);
		json_u64("deadline", info.deadline);
		json_str("kind", kind_name(a.flags));
		json_u64("period", a.period);
		json_end();
		return 0;
	}
	printf("added id=%llu (%%%zu) cookie=%llu deadline=%s",
	       (unsigned long long)h, c->nr_ids, (unsigned long long)a.cookie,
	       fmt_clock(b1, sizeof(b1), info.deadline));
	if (a.period)
		printf(" %s every %s", kind_name(a.flags),
		       fmt_dur(b2, sizeof(b2), a.period));
	putchar('\n');
	return 0;
}

/*
 * Submits the cancel or modify of @h queued with WHEELTIMER_NOTIFY and
 * takes its outcome, a record of the library's: those come before any
 * firing, and wheelctl leaves none unreaped. Returns 0 or its error.
 */
static int outcome(struct ctl *c, uint32_t kind, struct wheeltimer_event *ev)
{
	int n = wheeltimer_reap(c->wt, ev, 1);

	if (n < 0)
		return n;
	if (n != 1 || !(ev->flags & kind))
		return -EIO;
	return ev->res;
}

static int cmd_cancel(struct ctl *c, int argc, char **argv)
{
	struct wheeltimer_event ev;
	char what[64];
	uint64_t h;
	bool withdrawn;
	int i, err;

	if (argc < 2)
		return usage_error(c, "cancel", "needs at least one ID");
	for (i = 1; i < argc; i++) {
		snprintf(what, sizeof(what), "cancel %s", argv[i]);
		if (parse_id(c, argv[i], &h))
			return usage_error(c, what, "not an id (a number, %N or %)");
		err = wheeltimer_cancel(c->wt, h, WHEELTIMER_NOTIFY);
		if (!err)
			err = outcome(c, WHEELTIMER_EV_CANCEL, &ev);
		if (err)
			return fail(c, what, err, NULL);
		withdrawn = ev.flags & WHEELTIMER_EV_WITHDRAWN;
		if (c->json) {
			json_begin("cmd", "cancel");
			json_u64("id", h);
			json_str("status", withdrawn ? "withdrawn" : "pending");
			json_end();
		} else if (withdrawn) {
			printf("cancelled id=%llu: it had fired; its unread event is withdrawn\n",
			       (unsigned long long)h);
		} else {
			printf("cancelled id=%llu: it was pending\n",
			       (unsigned long long)h);
		}
	}
	return 0;
}

static int cmd_modify(struct ctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "abs", no_argument, NULL, OPT_ABS },
		{ "slack", required_argument, NULL, OPT_SLACK },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t h, deadline, slack = 0;
	struct wheeltimer_event ev;
	struct wheeltimer_info info;
	char what[64], b1[32];
	uint32_t flags = WHEELTIMER_NOTIFY;
	bool withdrawn;
	int o, err;

	reset_getopt();
	while ((o = getopt_cmd(argc, argv, opts)) != -1) {
		switch (o) {
		case OPT_ABS:
			flags |= WHEELTIMER_ABSTIME;
			break;
		case OPT_SLACK:
			if (parse_time(optarg, &slack))
				return usage_error(c, "modify", "bad --slack duration");
			break;
		default:
			return bad_option(c, argv);
		}
	}
	if (optind != argc - 2)
		return usage_error(c, "modify", "needs an ID and a TIME");
	snprintf(what, sizeof(what), "modify %s", argv[optind]);
	if (parse_id(c, argv[optind], &h))
		return usage_error(c, what, "not an id (a number, %N or %)");
	if (parse_time(argv[optind + 1], &deadline))
		return usage_error(c, what, "bad TIME (want e.g. 100ms, 2s)");
	err = wheeltimer_modify(c->wt, h, deadline, slack, flags);
	if (!err)
		err = outcome(c, WHEELTIMER_EV_MODIFY, &ev);
	if (err)
		return fail(c, what, err, NULL);
	withdrawn = ev.flags & WHEELTIMER_EV_WITHDRAWN;

	if (wheeltimer_query(c->wt, h, &info))
		info.deadline = 0;
	if (c->json) {
		json_begin("cmd", "modify");
		json_u64("id", h);
		json_str("status", withdrawn ? "withdrawn" : "pending");
		json_u64("deadline", info.deadline);
		json_end();
		return 0;
	}
	printf("modified id=%llu (was %s) deadline=%s\n", (unsigned long long)h,
	       withdrawn ? "fired, its unread event withdrawn" : "pending",
	       fmt_clock(b1, sizeof(b1), info.deadline));
	return 0;
}

static const char *state_name(uint32_t state)
{
	switch (state) {
	case WHEELTIMER_STATE_PENDING:
		return "pending";
	case WHEELTIMER_STATE_FIRED:
		return "fired";
	case WHEELTIMER_STATE_FAILED:
		return "failed";
	default:
		return "?";
	}
}

static int cmd_query(struct ctl *c, int argc, char **argv)
{
	char what[64], b1[32], b2[32], b3[32];
	struct wheeltimer_info q;
	uint64_t h;
	int i, err;

	if (argc < 2)
		return usage_error(c, "query", "needs at least one ID");
	for (i = 1; i < argc; i++) {
		snprintf(what, sizeof(what), "query %s", argv[i]);
		if (parse_id(c, argv[i], &h))
			return usage_error(c, what, "not an id (a number, %N or %)");
		err = wheeltimer_query(c->wt, h, &q);
		if (err)
			return fail(c, what, err, NULL);
		if (c->json) {
			json_begin("cmd", "query");
			json_u64("id", h);
			json_str("state", state_name(q.state));
			json_str("kind", kind_name(q.flags));
			json_u64("deadline", q.deadline);
			json_u64("remaining", q.remaining);
			json_u64("cookie", q.cookie);
			json_u64("period", q.period);
			json_end();
			continue;
		}
		printf("id=%llu state=%s %s deadline=%s ", (unsigned long long)h,
		       state_name(q.state), kind_name(q.flags),
		       fmt_clock(b1, sizeof(b1), q.deadline));
		printf("remaining=%s cookie=%llu period=%s\n",
		       fmt_dur(b2, sizeof(b2), q.remaining),
		       (unsigned long long)q.cookie,
		       fmt_dur(b3, sizeof(b3), q.period));
	}
	return 0;
}

/* CLOCK_MONOTONIC, for watch --timeout, whatever the file's clock. */
static uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/*
 * A firing. One of a timeout that another context added to the file (an
 * earlier run's, through --fd) has no handle here, so no id; its cookie
 * is the one that run gave it.
 */
static void print_event(struct ctl *c, const struct wheeltimer_event *e)
{
	bool early = e->fired_at < e->deadline;
	bool foreign = e->flags & WHEELTIMER_EV_FOREIGN;
	uint64_t late = early ? e->deadline - e->fired_at : e->fired_at - e->deadline;
	char b1[32], b2[32], b3[32];

	c->events++;
	if (early)
		c->early++;
	else if (late > c->worst_late)
		c->worst_late = late;
	if (c->json) {
		json_begin("event", "fired");
		if (foreign)
			json_null("id");
		else
			json_u64("id", e->handle);
		json_u64("cookie", e->cookie);
		json_u64("deadline", e->deadline);
		json_u64("fired_at", e->fired_at);
		json_key("late_ns");
		printf("%s%llu", early ? "-" : "", (unsigned long long)late);
		json_u64("overruns", e->overruns);
		json_str("kind", kind_name(e->flags));
		json_bool("final", e->flags & WHEELTIMER_EV_FINAL);
		if (foreign)
			json_bool("foreign", true);
		json_end();
	} else {
		if (foreign)
			printf("event id=?");
		else
			printf("event id=%llu", (unsigned long long)e->handle);
		printf(" cookie=%llu deadline=%s fired_at=%s late=%s%s overruns=%llu",
		       (unsigned long long)e->cookie,
		       fmt_clock(b1, sizeof(b1), e->deadline),
		       fmt_clock(b2, sizeof(b2), e->fired_at),
		       early ? "-" : "", fmt_dur(b3, sizeof(b3), late),
		       (unsigned long long)e->overruns);
		if (e->flags & (WHEELTIMER_EV_FIXED_RATE | WHEELTIMER_EV_FIXED_DELAY))
			printf(" %s", kind_name(e->flags));
		if (foreign)
			printf(" (added by another run)");
		putchar('\n');
	}
	fflush(stdout);
}

/* Whether the file holds no timeout, armed or fired and unread. */
static bool file_empty(struct ctl *c)
{
	uint64_t live;

	return !wheeltimer_stat(c->wt, "live", &live) && !live;
}

static int cmd_watch(struct ctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ NULL, 0, NULL, 0 },
	};
	struct wheeltimer_event ev[WATCH_BATCH];
	uint64_t count = 0, timeout = 0, seen = 0, start, spent, left;
	unsigned long long early_before = c->early;
	bool has_timeout = false;
	unsigned int want;
	char msg[128];
	int o, k, n, ms;

	reset_getopt();
	while ((o = getopt_cmd(argc, argv, opts)) != -1) {
		switch (o) {
		case OPT_COUNT:
			if (parse_u64(optarg, &count) || !count)
				return usage_error(c, "watch", "--count needs a positive number");
			break;
		case OPT_TIMEOUT:
			if (parse_time(optarg, &timeout))
				return usage_error(c, "watch", "bad --timeout duration");
			has_timeout = true;
			break;
		default:
			return bad_option(c, argv);
		}
	}
	if (optind != argc)
		return usage_error(c, "watch", "takes no arguments besides its options");

	start = clock_ns();
	while (!count || seen < count) {
		struct pollfd p = { .fd = wheeltimer_fd(c->wt), .events = POLLIN };

		want = WATCH_BATCH;
		if (count && count - seen < want)
			want = (unsigned int)(count - seen);
		n = wheeltimer_reap(c->wt, ev, want);
		if (n < 0)
			return fail(c, "watch: reap", n, NULL);
		for (k = 0; k < n; k++) {
			if (ev[k].flags & EV_OUTCOME)
				continue;
			print_event(c, &ev[k]);
			seen++;
		}
		if (n)
			continue;

		/* Nothing ready and nothing that could fire: done. */
		if (!count && !has_timeout && file_empty(c))
			break;
		ms = -1;
		if (has_timeout) {
			spent = clock_ns() - start;
			if (spent >= timeout)
				break;
			left = (timeout - spent + 999999) / 1000000;
			ms = left > INT_MAX ? INT_MAX : (int)left;
		} else if (!count) {
			/* Check "live" now and then: another process may cancel. */
			ms = 1000;
		}
		if (poll(&p, 1, ms) < 0 && errno != EINTR)
			return fail(c, "watch: poll", errno, NULL);
	}
	if (c->early != early_before) {
		snprintf(msg, sizeof(msg), "%llu timeouts fired before their deadline",
			 c->early - early_before);
		return fail(c, "watch", 0, msg);
	}
	if (count && seen < count) {
		snprintf(msg, sizeof(msg), "%llu of %llu events before the timeout",
			 (unsigned long long)seen, (unsigned long long)count);
		return fail(c, "watch", ETIMEDOUT, msg);
	}
	return 0;
}

static const char *clock_name(int32_t id)
{
	switch (id) {
	case CLOCK_MONOTONIC:
		return "monotonic";
	case CLOCK_BOOTTIME:
		return "boottime";
	case CLOCK_REALTIME:
		return "realtime";
	default:
		return "?";
	}
}

static int cmd_config(struct ctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "resolution", required_argument, NULL, OPT_RESOLUTION },
		{ "clock", required_argument, NULL, OPT_CLOCK },
		{ "max-pending", required_argument, NULL, OPT_MAX_PENDING },
		{ "virtual", no_argument, NULL, OPT_VIRTUAL },
		{ NULL, 0, NULL, 0 },
	};
	struct wheeltimer_params p;
	bool set = false;
	char b1[32];
	int o, err;

	wheeltimer_get_params(c->wt, &p);
	reset_getopt();
	while ((o = getopt_cmd(argc, argv, opts)) != -1) {
		set = true;
		switch (o) {
		case OPT_RESOLUTION:
			if (parse_time(optarg, &p.resolution_ns))
				return usage_error(c, "config", "bad --resolution duration");
			break;
		case OPT_CLOCK:
			if (!strcmp(optarg, "monotonic"))
				p.clockid = CLOCK_MONOTONIC;
			else if (!strcmp(optarg, "boottime"))
				p.clockid = CLOCK_BOOTTIME;
			else if (!strcmp(optarg, "realtime"))
				p.clockid = CLOCK_REALTIME;
			else
				return usage_error(c, "config",
						   "--clock is monotonic, boottime or realtime");
			break;
		case OPT_MAX_PENDING:
			if (parse_u64(optarg, &p.max_pending))
				return usage_error(c, "config", "--max-pending needs a number");
			break;
		case OPT_VIRTUAL:
			p.flags |= WHEELTIMER_PARAM_VIRTUAL;
			break;
		default:
			return bad_option(c, argv);
		}
	}
	if (optind != argc)
		return usage_error(c, "config", "takes no arguments besides its options");
	if (set) {
		err = wheeltimer_set_params(c->wt, &p);
		if (err)
			return fail(c, "config", err, NULL);
		wheeltimer_get_params(c->wt, &p);
	}
	if (c->json) {
		json_begin("cmd", "config");
		json_u64("resolution", p.resolution_ns);
		json_str("clock", clock_name(p.clockid));
		json_bool("virtual", p.flags & WHEELTIMER_PARAM_VIRTUAL);
		json_u64("max_pending", p.max_pending);
		json_end();
		return 0;
	}
	printf("config resolution=%s clock=%s%s max_pending=%llu\n",
	       fmt_dur(b1, sizeof(b1), p.resolution_ns), clock_name(p.clockid),
	       p.flags & WHEELTIMER_PARAM_VIRTUAL ? " (virtual)" : "",
	       (unsigned long long)p.max_pending);
	return 0;
}

static int cmd_advance(struct ctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "set", no_argument, NULL, OPT_SET },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t time, now, expired;
	char what[64], b1[32];
	uint32_t flags = 0;
	int o, err;

	reset_getopt();
	while ((o = getopt_cmd(argc, argv, opts)) != -1) {
		if (o != OPT_SET)
			return bad_option(c, argv);
		flags |= WHEELTIMER_ADVANCE_SET;
	}
	if (optind != argc - 1 || parse_time(argv[optind], &time))
		return usage_error(c, "advance", "needs one duration");
	snprintf(what, sizeof(what), "advance %s", argv[optind]);
	err = wheeltimer_advance(c->wt, time, flags, &now, &expired);
	if (err)
		return fail(c, what, err, err == -EINVAL ?
			    "invalid argument (is the clock virtual? see config --virtual)" :
			    NULL);
	if (c->json) {
		json_begin("cmd", "advance");
		json_u64("now", now);
		json_u64("expired", expired);
		json_end();
	} else {
		printf("advanced to %s: %llu timeouts fired\n",
		       fmt_clock(b1, sizeof(b1), now), (unsigned long long)expired);
	}
	return 0;
}

/*
 * Prints the kernel's fdinfo lines for the file as they are, or as one
 * JSON object (each line's key, and its value as a number, a list or a
 * string).
 */
static int cmd_fdinfo(struct ctl *c, int argc, char **argv)
{
	char path[64], line[512];
	FILE *f;

	(void)argv;
	if (argc != 1)
		return usage_error(c, "fdinfo", "takes no arguments");
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", wheeltimer_fd(c->wt));
	f = fopen(path, "re");
	if (!f)
		return fail(c, path, errno, strerror(errno));
	if (c->json)
		json_begin("cmd", "fdinfo");
	while (fgets(line, sizeof(line), f)) {
		char *colon, *val;

		if (!c->json) {
			fputs(line, stdout);
			continue;
		}
		line[strcspn(line, "\n")] = '\0';
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		val = colon + 1 + strspn(colon + 1, " \t");
		json_fdinfo_value(line, val);
	}
	if (c->json)
		json_end();
	fclose(f);
	return 0;
}

/* The module's interface, as the library's probe of the device finds it. */
static int cmd_api(struct ctl *c, int argc, char **argv)
{
	static const char * const features[] = {
		"virtual-clock", "periodic", "slack", "eventfd", "boottime",
		"realtime",
	};
	struct wheeltimer_probe a;
	unsigned int i;
	bool first = true;

	(void)argv;
	if (argc != 1)
		return usage_error(c, "api", "takes no arguments");
	wheeltimer_probe(&a);
	if (a.device_error)
		return fail(c, "api", a.device_error, NULL);
	if (!a.api)
		return fail(c, "api", WHEELTIMER_EAPI, NULL);
	if (c->json) {
		json_begin("cmd", "api");
		json_u64("api", a.api);
		json_u64("event_size", a.event_size);
		json_u64("batch_max", a.batch_max);
		json_u64("ioctls", a.kernel_ioctls);
		json_key("features");
		putchar('[');
	} else {
		printf("api=%u event_size=%u batch_max=%u ioctls=%#llx features=",
		       a.api, a.event_size, a.batch_max,
		       (unsigned long long)a.kernel_ioctls);
	}
	for (i = 0; i < ARRAY_SIZE(features); i++) {
		if (!(a.kernel_features & (1ULL << i)))
			continue;
		printf(c->json ? "%s\"%s\"" : "%s%s", first ? "" : ",",
		       features[i]);
		first = false;
	}
	puts(c->json ? "]}" : "");
	return 0;
}

static int cmd_sleep(struct ctl *c, int argc, char **argv)
{
	struct timespec ts;
	uint64_t ns;

	if (argc != 2 || parse_time(argv[1], &ns))
		return usage_error(c, "sleep", "needs one duration");
	ts.tv_sec = (time_t)(ns / NSEC_PER_SEC);
	ts.tv_nsec = (long)(ns % NSEC_PER_SEC);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct ctl *c, int argc, char **argv);
} commands[] = {
	{ "add", cmd_add },
	{ "cancel", cmd_cancel },
	{ "modify", cmd_modify },
	{ "query", cmd_query },
	{ "watch", cmd_watch },
	{ "config", cmd_config },
	{ "advance", cmd_advance },
	{ "fdinfo", cmd_fdinfo },
	{ "api", cmd_api },
	{ "sleep", cmd_sleep },
};

static int find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return (int)i;
	return -1;
}

static int run_command(struct ctl *c, int argc, char **argv)
{
	int i = find_command(argv[0]);
	int ret;

	if (i < 0)
		return usage_error(c, argv[0], "unknown command");
	ret = commands[i].fn(c, argc, argv);
	fflush(stdout);
	return ret;
}

/*
 * wheelctl's version, the interface it was built for and the loaded
 * module's version (from sysfs: MODULE_VERSION), without opening the device.
 */
static int print_version(bool json)
{
	char module[64] = "";
	bool loaded = !access("/sys/module/wheeltimer", F_OK);
	FILE *f = fopen("/sys/module/wheeltimer/version", "re");

	if (f) {
		if (!fgets(module, sizeof(module), f))
			module[0] = '\0';
		module[strcspn(module, "\n")] = '\0';
		fclose(f);
	}
	if (json) {
		json_begin("wheelctl", WT_VERSION);
		json_u64("api", WT_API);
		json_bool("module_loaded", loaded);
		if (module[0])
			json_str("module", module);
		else
			json_null("module");
		json_end();
		return 0;
	}
	printf("wheelctl %s (interface %d)\n", WT_VERSION, WT_API);
	if (module[0])
		printf("module %s\n", module);
	else
		printf("module %s\n", loaded ? "loaded, without a version" : "not loaded");
	return 0;
}

/* Command names are checked before the device is opened. */
static int check_args(struct ctl *c, int argc, char **argv)
{
	bool first = true;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			first = true;
			continue;
		}
		if (first && wt_ps_command(argv[i]))
			return usage_error(c, argv[i], "runs alone, not with other commands");
		if (first && find_command(argv[i]) < 0)
			return usage_error(c, argv[i], "unknown command");
		first = false;
	}
	return 0;
}

/* Runs the command line's commands, separated by "--". */
static int run_args(struct ctl *c, int argc, char **argv)
{
	int start = 0, i, ret;

	for (i = 0; i <= argc; i++) {
		if (i < argc && strcmp(argv[i], "--"))
			continue;
		if (i > start) {
			char *saved = argv[i < argc ? i : argc];

			argv[i] = NULL;
			ret = run_command(c, i - start, argv + start);
			argv[i] = saved;
			if (ret)
				return ret;
		}
		start = i + 1;
	}
	return 0;
}

/* Runs a script: one command per line, words split at blanks, # comments. */
static int run_script(struct ctl *c, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *line = NULL, *args[SCRIPT_ARGS];
	size_t size = 0;
	int ret = 0;

	if (!f)
		return fail(c, path, errno, strerror(errno));
	while (!ret && getline(&line, &size, f) >= 0) {
		char *hash = strchr(line, '#'), *tok, *save;
		int n = 0;

		c->where++;
		if (hash)
			*hash = '\0';
		for (tok = strtok_r(line, " \t\r\n", &save); tok;
		     tok = strtok_r(NULL, " \t\r\n", &save)) {
			if (n == SCRIPT_ARGS - 1) {
				ret = usage_error(c, "script", "too many words on a line");
				break;
			}
			args[n++] = tok;
		}
		if (ret || !n)
			continue;
		args[n] = NULL;
		ret = run_command(c, n, args);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}

/*
 * The context on the file: the descriptor given with --fd, or @device
 * opened here. Returns 0, or wheelctl's exit status.
 */
static int open_context(struct ctl *c, int fd, const char *device)
{
	int err, own = -1;

	if (fd < 0) {
		own = open(device, O_RDWR | O_CLOEXEC);
		if (own < 0) {
			err = errno;
			return fail(c, device, err, err == ENOENT ?
				    "no such device (is the wheeltimer module loaded?)" :
				    err == ENODEV ?
				    "the module could not be loaded (modprobe wheeltimer)" :
				    strerror(err));
		}
		fd = own;
	}
	/* The library works on its own duplicate of the descriptor. */
	err = wheeltimer_open_fd(fd, &c->wt);
	if (own >= 0)
		close(own);
	if (err)
		return fail(c, own >= 0 ? device : "--fd", err, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "fd", required_argument, NULL, 'F' },
		{ "file", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl c = { 0 };
	bool version = false;
	const char *device = WT_DEVICE, *script = NULL;
	uint64_t fdnum;
	int o, ret, fd = -1;

	/* "+": stop at the first command, whose options are its own. */
	while ((o = getopt_long(argc, argv, "+d:f:jhV", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			device = optarg;
			/* Where the library's probe (the api command) looks too. */
			setenv("WHEELTIMER_DEVICE", device, 1);
			break;
		case 'F':
			if (parse_u64(optarg, &fdnum) || fdnum > INT_MAX)
				return usage_error(&c, "--fd", "needs a descriptor number");
			fd = (int)fdnum;
			break;
		case 'f':
			script = optarg;
			break;
		case 'j':
			c.json = true;
			break;
		case 'h':
			print_help(stdout);
			return 0;
		case 'V':
			version = true;
			break;
		default:
			print_help(stderr);
			return EXIT_USAGE;
		}
	}
	if (version)
		return print_version(c.json);
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (!script && optind < argc && wt_ps_command(argv[optind]))
		return wt_ps_run(argc - optind, argv + optind, c.json);
	if (!script && optind == argc) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	if (script && optind != argc)
		return usage_error(&c, "-f", "a script and commands exclude each other");
	if (!script) {
		ret = check_args(&c, argc - optind, argv + optind);
		if (ret)
			return ret;
	}

	ret = open_context(&c, fd, device);
	if (ret)
		return ret;
	if (script)
		ret = run_script(&c, script);
	else
		ret = run_args(&c, argc - optind, argv + optind);
	wheeltimer_close(c.wt);
	free(c.ids);
	return ret;
}
