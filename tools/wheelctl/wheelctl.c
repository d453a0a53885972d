// SPDX-License-Identifier: GPL-2.0
/*
 * wheelctl - add, cancel, modify, query and watch timeouts on /dev/wheeltimer
 *
 * Every open() of the device is a context of its own, so one wheelctl run
 * opens it once and applies a sequence of subcommands to that one file:
 * given on the command line, separated by "--", or read from a script, one
 * per line. --fd uses a descriptor the caller already holds open, so that a
 * shell script can keep one context across several wheelctl runs.
 *
 * Run "wheelctl --help" for the commands; the manual is wheeltimer(4).
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
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <linux/wheeltimer.h>

#include "wt_fdinfo.h"
#include "json.h"
#include "parse.h"
#include "top.h"

#define WT_DEVICE	"/dev/wheeltimer"
/* The project's version, from the file VERSION (the Makefile passes it). */
#ifndef WT_VERSION
#error "WT_VERSION is not defined: build with tools/wheelctl/Makefile"
#endif
#define NSEC_PER_SEC	1000000000ULL
#define SCRIPT_ARGS	64

/* Exit statuses: an operation failed, or the command line was wrong. */
#define EXIT_FAILED	1
#define EXIT_USAGE	2

/**
 * struct ctl - the state of one wheelctl run
 * @fd: the open device
 * @json: print one JSON object per line instead of text
 * @where: the current script line, for error messages; 0 on the command line
 * @ids: the ids added by this run, in order, for the %N references
 * @nr_ids: how many @ids there are
 * @cap_ids: how many @ids fit in the allocation
 * @events: records read by watch commands
 * @early: records whose fired_at was before their deadline (a kernel bug)
 * @worst_late: the largest fired_at - deadline seen, in ns
 */
struct ctl {
	int fd;
	bool json;
	unsigned int where;
	__u64 *ids;
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
	      "device in the shell (exec 3<>/dev/wheeltimer) and pass --fd 3 each time.\n"
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
	      "clock (CLOCK_MONOTONIC unless config says otherwise). ID is a number, or\n"
	      "%N for the N-th timeout this run added (%1 is the first), or % for the last.\n"
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
		return "too many timeouts (the file's max_pending is reached)";
	case ERANGE:
		return "deadline out of range (beyond 2^63 - 1 ns)";
	case EBUSY:
		return "the file holds timeouts; configure it before adding any";
	case ENOTTY:
		return "not a wheeltimer device, or an older module";
	default:
		return strerror(err);
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
	default: return "E?";
	}
}

/*
 * Reports "wheelctl: [line N: ]WHAT: MESSAGE" on stderr and, with --json,
 * the same as an object on stdout. Returns EXIT_FAILED.
 */
static int fail(struct ctl *c, const char *what, int err, const char *msg)
{
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

static int parse_u64(const char *s, __u64 *out)
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
static int parse_id(struct ctl *c, const char *s, __u64 *out)
{
	__u64 n;

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

static int remember_id(struct ctl *c, __u64 id)
{
	if (c->nr_ids == c->cap_ids) {
		size_t cap = c->cap_ids ? 2 * c->cap_ids : 64;
		__u64 *ids = realloc(c->ids, cap * sizeof(*ids));

		if (!ids)
			return -1;
		c->ids = ids;
		c->cap_ids = cap;
	}
	c->ids[c->nr_ids++] = id;
	return 0;
}

/* "1.250000000" for a clock reading in ns. */
static const char *fmt_clock(char *buf, size_t size, __u64 ns)
{
	snprintf(buf, size, "%llu.%09llu", ns / NSEC_PER_SEC, ns % NSEC_PER_SEC);
	return buf;
}

/* "250ns", "12.345us", "1.500ms", "2.000000s" for a duration in ns. */
static const char *fmt_dur(char *buf, size_t size, __u64 ns)
{
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

static const char *kind_name(__u64 flags)
{
	if (flags & WT_FIXED_RATE)
		return "fixed-rate";
	if (flags & WT_FIXED_DELAY)
		return "fixed-delay";
	return "one-shot";
}

static const char *status_name(__u32 status)
{
	switch (status) {
	case WT_STATUS_ADDED:
		return "added";
	case WT_STATUS_PENDING:
		return "pending";
	case WT_STATUS_WITHDRAWN:
		return "withdrawn";
	default:
		return "?";
	}
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

static int add_many(struct ctl *c, struct wt_op *proto, __u64 repeat)
{
	struct wt_op *ops;
	__u64 done = 0, failed = 0, i, n;
	int first_err = 0;
	char what[64];
	size_t first;

	ops = calloc(WT_BATCH_MAX, sizeof(*ops));
	if (!ops)
		return fail(c, "add", ENOMEM, NULL);
	while (done < repeat) {
		struct wt_batch b = { .ops = (uintptr_t)ops };

		n = repeat - done < WT_BATCH_MAX ? repeat - done : WT_BATCH_MAX;
		for (i = 0; i < n; i++) {
			ops[i] = *proto;
			ops[i].cookie = proto->cookie + done + i;
		}
		b.count = (__u32)n;
		if (ioctl(c->fd, WT_IOC_BATCH, &b) < 0) {
			free(ops);
			return fail(c, "add: batch", errno, NULL);
		}
		for (i = 0; i < n; i++) {
			if (ops[i].error) {
				failed++;
				if (!first_err)
					first_err = (int)ops[i].error;
			} else if (remember_id(c, ops[i].id)) {
				free(ops);
				return fail(c, "add", ENOMEM, NULL);
			}
		}
		done += n;
	}
	free(ops);
	first = c->nr_ids - (size_t)(repeat - failed) + 1;
	if (c->json) {
		json_begin("cmd", "add");
		json_u64("added", repeat - failed);
		json_u64("failed", failed);
		json_u64("first_ref", first);
		json_u64("last_ref", c->nr_ids);
		json_end();
	} else {
		printf("added %llu timeouts in batches of up to %u (%%%zu to %%%zu)\n",
		       repeat - failed, WT_BATCH_MAX, first, c->nr_ids);
	}
	if (failed) {
		snprintf(what, sizeof(what), "add: %llu of %llu", failed, repeat);
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
	struct wt_op op = { .op = WT_OP_ADD };
	struct wt_query q;
	__u64 repeat = 1;
	char what[64], b1[32], b2[32];
	int o;

	reset_getopt();
	while ((o = getopt_cmd(argc, argv, opts)) != -1) {
		switch (o) {
		case OPT_ABS:
			op.flags |= WT_ABSTIME;
			break;
		case OPT_RATE:
		case OPT_DELAY:
			if (op.flags & (WT_FIXED_RATE | WT_FIXED_DELAY))
				return usage_error(c, "add",
						   "--rate and --delay exclude each other");
			op.flags |= o == OPT_RATE ? WT_FIXED_RATE : WT_FIXED_DELAY;
			if (parse_time(optarg, &op.period) || !op.period)
				return usage_error(c, "add",
						   "the period must be a positive duration");
			break;
		case OPT_COOKIE:
			if (parse_u64(optarg, &op.cookie))
				return usage_error(c, "add",
						   "the cookie is an unsigned 64-bit number");
			break;
		case OPT_SLACK:
			if (parse_time(optarg, &op.slack))
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
	if (parse_time(argv[optind], &op.deadline))
		return usage_error(c, "add", "bad TIME (want e.g. 100ms, 2s, 1.5s, 250us)");

	if (repeat > 1)
		return add_many(c, &op, repeat);

	if (ioctl(c->fd, WT_IOC_ADD, &op) < 0) {
		snprintf(what, sizeof(what), "add %s", argv[optind]);
		return fail(c, what, errno, NULL);
	}
	if (remember_id(c, op.id))
		return fail(c, "add", ENOMEM, NULL);

	/* Ask for the absolute deadline the kernel computed. */
	memset(&q, 0, sizeof(q));
	q.id = op.id;
	if (ioctl(c->fd, WT_IOC_QUERY, &q) < 0)
		q.deadline = 0;
	if (c->json) {
		json_begin("cmd", "add");
		json_u64("id", op.id);
		json_u64("ref", c->nr_ids);
		json_u64("cookie", op.cookie);
		json_u64("deadline", q.deadline);
		json_str("kind", kind_name(op.flags));
		json_u64("period", op.period);
		json_end();
		return 0;
	}
	printf("added id=%llu (%%%zu) cookie=%llu deadline=%s", op.id,
	       c->nr_ids, op.cookie, fmt_clock(b1, sizeof(b1), q.deadline));
	if (op.period)
		printf(" %s every %s", kind_name(op.flags),
		       fmt_dur(b2, sizeof(b2), op.period));
	putchar('\n');
	return 0;
}

static int cmd_cancel(struct ctl *c, int argc, char **argv)
{
	char what[64];
	int i;

	if (argc < 2)
		return usage_error(c, "cancel", "needs at least one ID");
	for (i = 1; i < argc; i++) {
		struct wt_op op = { .op = WT_OP_CANCEL };

		snprintf(what, sizeof(what), "cancel %s", argv[i]);
		if (parse_id(c, argv[i], &op.id))
			return usage_error(c, what, "not an id (a number, %N or %)");
		if (ioctl(c->fd, WT_IOC_CANCEL, &op) < 0)
			return fail(c, what, errno, NULL);
		if (c->json) {
			json_begin("cmd", "cancel");
			json_u64("id", op.id);
			json_str("status", status_name(op.status));
			json_end();
		} else if (op.status == WT_STATUS_WITHDRAWN) {
			printf("cancelled id=%llu: it had fired; its unread event is withdrawn\n",
			       op.id);
		} else {
			printf("cancelled id=%llu: it was pending\n", op.id);
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
	struct wt_op op = { .op = WT_OP_MODIFY };
	struct wt_query q;
	char what[64], b1[32];
	int o;

	reset_getopt();
	while ((o = getopt_cmd(argc, argv, opts)) != -1) {
		switch (o) {
		case OPT_ABS:
			op.flags |= WT_ABSTIME;
			break;
		case OPT_SLACK:
			if (parse_time(optarg, &op.slack))
				return usage_error(c, "modify", "bad --slack duration");
			break;
		default:
			return bad_option(c, argv);
		}
	}
	if (optind != argc - 2)
		return usage_error(c, "modify", "needs an ID and a TIME");
	snprintf(what, sizeof(what), "modify %s", argv[optind]);
	if (parse_id(c, argv[optind], &op.id))
		return usage_error(c, what, "not an id (a number, %N or %)");
	if (parse_time(argv[optind + 1], &op.deadline))
		return usage_error(c, what, "bad TIME (want e.g. 100ms, 2s)");
	if (ioctl(c->fd, WT_IOC_MODIFY, &op) < 0)
		return fail(c, what, errno, NULL);

	memset(&q, 0, sizeof(q));
	q.id = op.id;
	if (ioctl(c->fd, WT_IOC_QUERY, &q) < 0)
		q.deadline = 0;
	if (c->json) {
		json_begin("cmd", "modify");
		json_u64("id", op.id);
		json_str("status", status_name(op.status));
		json_u64("deadline", q.deadline);
		json_end();
		return 0;
	}
	printf("modified id=%llu (was %s) deadline=%s\n", op.id,
	       op.status == WT_STATUS_WITHDRAWN ?
	       "fired, its unread event withdrawn" : "pending",
	       fmt_clock(b1, sizeof(b1), q.deadline));
	return 0;
}

static int cmd_query(struct ctl *c, int argc, char **argv)
{
	char what[64], b1[32], b2[32], b3[32];
	int i;

	if (argc < 2)
		return usage_error(c, "query", "needs at least one ID");
	for (i = 1; i < argc; i++) {
		struct wt_query q;
		const char *state;

		memset(&q, 0, sizeof(q));
		snprintf(what, sizeof(what), "query %s", argv[i]);
		if (parse_id(c, argv[i], &q.id))
			return usage_error(c, what, "not an id (a number, %N or %)");
		if (ioctl(c->fd, WT_IOC_QUERY, &q) < 0)
			return fail(c, what, errno, NULL);
		state = q.state == WT_STATE_PENDING ? "pending" :
			q.state == WT_STATE_FIRED ? "fired" : "?";
		if (c->json) {
			json_begin("cmd", "query");
			json_u64("id", q.id);
			json_str("state", state);
			json_str("kind", kind_name(q.flags));
			json_u64("deadline", q.deadline);
			json_u64("remaining", q.remaining);
			json_u64("cookie", q.cookie);
			json_u64("period", q.period);
			json_end();
			continue;
		}
		printf("id=%llu state=%s %s deadline=%s ", q.id, state,
		       kind_name(q.flags), fmt_clock(b1, sizeof(b1), q.deadline));
		printf("remaining=%s cookie=%llu period=%s\n",
		       fmt_dur(b2, sizeof(b2), q.remaining), q.cookie,
		       fmt_dur(b3, sizeof(b3), q.period));
	}
	return 0;
}

static __u64 clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + (__u64)ts.tv_nsec;
}

static void print_event(struct ctl *c, const struct wt_event *e)
{
	bool early = e->fired_at < e->deadline;
	__u64 late = early ? e->deadline - e->fired_at : e->fired_at - e->deadline;
	char b1[32], b2[32], b3[32];

	c->events++;
	if (early)
		c->early++;
	else if (late > c->worst_late)
		c->worst_late = late;
	if (c->json) {
		json_begin("event", "fired");
		json_u64("id", e->id);
		json_u64("cookie", e->cookie);
		json_u64("deadline", e->deadline);
		json_u64("fired_at", e->fired_at);
		json_key("late_ns");
		printf("%s%llu", early ? "-" : "", late);
		json_u64("overruns", e->overruns);
		json_str("kind", kind_name(e->flags));
		json_bool("final", e->flags & WT_EVENT_FINAL);
		json_end();
	} else {
		printf("event id=%llu cookie=%llu deadline=%s ", e->id,
		       e->cookie, fmt_clock(b1, sizeof(b1), e->deadline));
		printf("fired_at=%s late=%s%s overruns=%llu",
		       fmt_clock(b2, sizeof(b2), e->fired_at),
		       early ? "-" : "", fmt_dur(b3, sizeof(b3), late),
		       e->overruns);
		if (e->flags & (WT_FIXED_RATE | WT_FIXED_DELAY))
			printf(" %s", kind_name(e->flags));
		putchar('\n');
	}
	fflush(stdout);
}

static int cmd_watch(struct ctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ NULL, 0, NULL, 0 },
	};
	struct wt_event ev[64];
	__u64 count = 0, timeout = 0, seen = 0, start;
	unsigned long long early_before = c->early;
	bool has_timeout = false;
	char msg[128];
	int o;

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
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int ms = -1, n;
		size_t want;
		ssize_t r;

		/* Nothing ready and nothing that could fire: done. */
		if (!count && !has_timeout && wt_fdinfo_value(c->fd, "live") == 0)
			break;
		if (has_timeout) {
			__u64 spent = clock_ns() - start;

			if (spent >= timeout) {
				ms = 0;
			} else {
				__u64 left = (timeout - spent + 999999) / 1000000;

				ms = left > INT_MAX ? INT_MAX : (int)left;
			}
		} else if (!count) {
			/* Re-check "live" now and then: another process may cancel. */
			ms = 1000;
		}
		n = poll(&p, 1, ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return fail(c, "watch: poll", errno, NULL);
		}
		if (n == 0) {
			if (has_timeout && clock_ns() - start >= timeout)
				break;
			continue;
		}
		want = ARRAY_SIZE(ev);
		if (count && count - seen < want)
			want = (size_t)(count - seen);
		r = read(c->fd, ev, want * sizeof(ev[0]));
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return fail(c, "watch: read", errno, NULL);
		}
		if (r % sizeof(ev[0]))
			return fail(c, "watch: read", 0, "a partial event record");
		for (n = 0; n < (int)(r / sizeof(ev[0])); n++) {
			print_event(c, &ev[n]);
			seen++;
		}
	}
	if (c->early != early_before) {
		snprintf(msg, sizeof(msg), "%llu timeouts fired before their deadline",
			 c->early - early_before);
		return fail(c, "watch", 0, msg);
	}
	if (count && seen < count) {
		snprintf(msg, sizeof(msg), "%llu of %llu events before the timeout",
			 seen, count);
		return fail(c, "watch", ETIMEDOUT, msg);
	}
	return 0;
}

static const char *clock_name(__u32 id)
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
	struct wt_config cfg;
	bool set = false;
	char b1[32];
	int o;

	memset(&cfg, 0, sizeof(cfg));
	if (ioctl(c->fd, WT_IOC_GET_CONFIG, &cfg) < 0)
		return fail(c, "config", errno, NULL);
	reset_getopt();
	while ((o = getopt_cmd(argc, argv, opts)) != -1) {
		set = true;
		switch (o) {
		case OPT_RESOLUTION:
			if (parse_time(optarg, &cfg.resolution))
				return usage_error(c, "config", "bad --resolution duration");
			break;
		case OPT_CLOCK:
			if (!strcmp(optarg, "monotonic"))
				cfg.clockid = CLOCK_MONOTONIC;
			else if (!strcmp(optarg, "boottime"))
				cfg.clockid = CLOCK_BOOTTIME;
			else if (!strcmp(optarg, "realtime"))
				cfg.clockid = CLOCK_REALTIME;
			else
				return usage_error(c, "config",
							   "--clock is monotonic, boottime or realtime");
			break;
		case OPT_MAX_PENDING:
			if (parse_u64(optarg, &cfg.max_pending))
				return usage_error(c, "config", "--max-pending needs a number");
			break;
		case OPT_VIRTUAL:
			cfg.flags |= WT_CONFIG_VIRTUAL;
			break;
		default:
			return bad_option(c, argv);
		}
	}
	if (optind != argc)
		return usage_error(c, "config", "takes no arguments besides its options");
	if (set) {
		if (ioctl(c->fd, WT_IOC_SET_CONFIG, &cfg) < 0)
			return fail(c, "config", errno, NULL);
		if (ioctl(c->fd, WT_IOC_GET_CONFIG, &cfg) < 0)
			return fail(c, "config", errno, NULL);
	}
	if (c->json) {
		json_begin("cmd", "config");
		json_u64("resolution", cfg.resolution);
		json_str("clock", clock_name(cfg.clockid));
		json_bool("virtual", cfg.flags & WT_CONFIG_VIRTUAL);
		json_u64("max_pending", cfg.max_pending);
		json_end();
		return 0;
	}
	printf("config resolution=%s clock=%s%s max_pending=%llu\n",
	       fmt_dur(b1, sizeof(b1), cfg.resolution), clock_name(cfg.clockid),
	       cfg.flags & WT_CONFIG_VIRTUAL ? " (virtual)" : "",
	       cfg.max_pending);
	return 0;
}

static int cmd_advance(struct ctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "set", no_argument, NULL, OPT_SET },
		{ NULL, 0, NULL, 0 },
	};
	struct wt_advance a;
	char what[64], b1[32];
	int o;

	memset(&a, 0, sizeof(a));
	reset_getopt();
	while ((o = getopt_cmd(argc, argv, opts)) != -1) {
		if (o != OPT_SET)
			return bad_option(c, argv);
		a.flags |= WT_ADVANCE_SET;
	}
	if (optind != argc - 1 || parse_time(argv[optind], &a.time))
		return usage_error(c, "advance", "needs one duration");
	snprintf(what, sizeof(what), "advance %s", argv[optind]);
	if (ioctl(c->fd, WT_IOC_ADVANCE, &a) < 0)
		return fail(c, what, errno, errno == EINVAL ?
			    "invalid argument (is the clock virtual? see config --virtual)" :
			    NULL);
	if (c->json) {
		json_begin("cmd", "advance");
		json_u64("now", a.now);
		json_u64("expired", a.expired);
		json_end();
	} else {
		printf("advanced to %s: %llu timeouts fired\n",
		       fmt_clock(b1, sizeof(b1), a.now), a.expired);
	}
	return 0;
}

/* Prints the fdinfo as it is, or as one JSON object of numbers. */
static int cmd_fdinfo(struct ctl *c, int argc, char **argv)
{
	char path[64], line[512];
	FILE *f;

	(void)argv;
	if (argc != 1)
		return usage_error(c, "fdinfo", "takes no arguments");
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", c->fd);
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

static int cmd_api(struct ctl *c, int argc, char **argv)
{
	static const char * const features[] = {
		"virtual-clock", "periodic", "slack", "eventfd", "boottime",
		"realtime",
	};
	struct wt_api a;
	unsigned int i;
	bool first = true;

	(void)argv;
	if (argc != 1)
		return usage_error(c, "api", "takes no arguments");
	memset(&a, 0, sizeof(a));
	a.api = WT_API_VERSION;
	if (ioctl(c->fd, WT_IOC_API, &a) < 0)
		return fail(c, "api", errno, NULL);
	if (c->json) {
		json_begin("cmd", "api");
		json_u64("api", a.api);
		json_u64("event_size", a.event_size);
		json_u64("batch_max", a.batch_max);
		json_u64("ioctls", a.ioctls);
		json_key("features");
		putchar('[');
	} else {
		printf("api=%llu event_size=%u batch_max=%u ioctls=%#llx features=",
		       a.api, a.event_size, a.batch_max, a.ioctls);
	}
	for (i = 0; i < ARRAY_SIZE(features); i++) {
		if (!(a.features & (1ULL << i)))
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
	__u64 ns;

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
		json_u64("api", WT_API_VERSION);
		json_bool("module_loaded", loaded);
		if (module[0])
			json_str("module", module);
		else
			json_null("module");
		json_end();
		return 0;
	}
	printf("wheelctl %s (interface %llu)\n", WT_VERSION, WT_API_VERSION);
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
	struct ctl c = { .fd = -1 };
	bool version = false;
	const char *device = WT_DEVICE, *script = NULL;
	__u64 fdnum;
	int o, ret;

	/* "+": stop at the first command, whose options are its own. */
	while ((o = getopt_long(argc, argv, "+d:f:jhV", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			device = optarg;
			break;
		case 'F':
			if (parse_u64(optarg, &fdnum) || fdnum > INT_MAX)
				return usage_error(&c, "--fd", "needs a descriptor number");
			c.fd = (int)fdnum;
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

	if (c.fd < 0) {
		c.fd = open(device, O_RDWR | O_CLOEXEC);
		if (c.fd < 0) {
			int err = errno;

			return fail(&c, device, err, err == ENOENT ?
				    "no such device (is the wheeltimer module loaded?)" :
				    err == ENODEV ?
				    "the module could not be loaded (modprobe wheeltimer)" :
				    strerror(err));
		}
	}

	if (script)
		ret = run_script(&c, script);
	else
		ret = run_args(&c, argc - optind, argv + optind);
	free(c.ids);
	return ret;
}
