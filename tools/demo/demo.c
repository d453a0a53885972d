// SPDX-License-Identifier: GPL-2.0
/*
 * demo - what /dev/wheeltimer is for, in a few seconds
 *
 * An RPC client sends thousands of requests and arms a timeout for each in
 * a few batched ioctls; most responses arrive and their timeouts are
 * cancelled in batches too; the few requests that got no answer time out,
 * on time and never early. A response that arrives just after its timeout
 * fired withdraws the unread event, so that the request counts once. A lock
 * lease is renewed by a FIXED_DELAY timeout, which starts the next period
 * only when the renewal reads its event, and a FIXED_RATE heartbeat whose
 * reader is slow reports the beats it missed as overruns instead of piling
 * them up.
 *
 * What is printed is also checked: the program exits 1 if a timeout fired
 * or was read before its deadline, was delivered twice, or both delivered
 * and cancelled, or was lost. Lateness is shown, never asserted: under
 * emulation the clock is noisy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

#define MSEC		1000000ULL
#define SEC		1000000000ULL

#define REQUESTS	5000U
/* One request in LOST_EVERY gets no response and times out. */
#define LOST_EVERY	100U
/* How long to wait for an event before calling the timeout lost. */
#define GRACE		(60 * SEC)

#define LEASE_PERIOD	(100 * MSEC)
#define LEASE_WORK	(150 * MSEC)
#define LEASE_RENEWALS	4

#define BEAT_PERIOD	(20 * MSEC)
#define BEAT_READER	(110 * MSEC)
#define BEAT_READS	4

/* What became of one request's timeout. */
enum outcome {
	ARMED,
	CANCELLED,	/* cancelled while pending */
	WITHDRAWN,	/* fired, and its unread event withdrawn by the cancel */
	FIRED,		/* its event was read */
};

/**
 * struct totals - what the summary counts
 * @added: timeouts added
 * @cancelled: cancelled while pending
 * @withdrawn: cancelled after firing, their event withdrawn unread
 * @events: event records read
 * @timed_out: one-shot timeouts whose event was read
 * @overruns: overruns reported by FIXED_RATE events
 * @early: records with fired_at before the deadline, or read before it
 * @lost: timeouts neither delivered nor cancelled
 * @dup: timeouts delivered twice, or delivered and cancelled
 * @worst_late: the largest fired_at - deadline, in ns
 * @failures: checks that failed
 */
struct totals {
	unsigned long long added;
	unsigned long long cancelled;
	unsigned long long withdrawn;
	unsigned long long events;
	unsigned long long timed_out;
	unsigned long long overruns;
	unsigned long long early;
	unsigned long long lost;
	unsigned long long dup;
	unsigned long long worst_late;
	unsigned int failures;
};

static struct totals t;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * SEC + (__u64)ts.tv_nsec;
}

static void sleep_ns(__u64 ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / SEC),
		.tv_nsec = (long)(ns % SEC),
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static double ms(__u64 ns)
{
	return (double)ns / 1e6;
}

static void check(bool ok, const char *what)
{
	if (!ok) {
		printf("  FAILED: %s\n", what);
		t.failures++;
	}
}

static void die(const char *what)
{
	fprintf(stderr, "demo: %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * Accounts for one record: never early, by the kernel's fired_at and by our
 * own CLOCK_MONOTONIC (the context's clock) read after the read() returned.
 */
static void account(const struct wt_event *e)
{
	t.events++;
	t.overruns += e->overruns;
	if (e->fired_at < e->deadline) {
		printf("  EARLY: id %llu fired at %llu, deadline %llu\n",
		       e->id, e->fired_at, e->deadline);
		t.early++;
		return;
	}
	if (now_ns() < e->deadline) {
		printf("  EARLY: id %llu was read before its deadline\n", e->id);
		t.early++;
	}
	if (e->fired_at - e->deadline > t.worst_late)
		t.worst_late = e->fired_at - e->deadline;
}

/*
 * Waits at most @timeout ns for records and reads up to @max of them.
 * @read_start, if not NULL, is set to our clock just before the read().
 */
static int read_events(int fd, struct wt_event *ev, unsigned int max,
		       __u64 timeout, __u64 *read_start)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t r;
	int i, n;

	if (poll(&p, 1, (int)(timeout / MSEC)) < 0)
		die("poll");
	if (!(p.revents & POLLIN))
		return 0;
	if (read_start)
		*read_start = now_ns();
	r = read(fd, ev, max * sizeof(*ev));
	if (r < 0) {
		if (errno == EAGAIN)
			return 0;
		die("read");
	}
	check(r % sizeof(*ev) == 0, "read() returns whole records");
	n = (int)(r / sizeof(*ev));
	for (i = 0; i < n; i++)
		account(&ev[i]);
	return n;
}

/* Applies @n operations in WT_BATCH_MAX chunks; returns how many succeeded. */
static unsigned int batch(int fd, struct wt_op *ops, unsigned int n)
{
	unsigned int done = 0, ok = 0;

	while (done < n) {
		struct wt_batch b = {
			.ops = (uintptr_t)(ops + done),
			.count = n - done < WT_BATCH_MAX ? n - done : WT_BATCH_MAX,
		};
		int r = ioctl(fd, WT_IOC_BATCH, &b);

		if (r < 0)
			die("WT_IOC_BATCH");
		ok += (unsigned int)r;
		done += b.count;
	}
	return ok;
}

static void show_wheel(int fd)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "pending:", 8))
			printf("  fdinfo: %s", line);
		if (!strncmp(line, "slots_occupied:", 15))
			printf("  fdinfo: %s", line);
	}
	fclose(f);
}

static __u64 ids[REQUESTS];
static enum outcome state[REQUESTS];
static struct wt_op ops[REQUESTS];
static unsigned int idx[REQUESTS];

/*
 * 1. REQUESTS request timeouts added in batches; all but one in LOST_EVERY
 * cancelled in batches as their responses arrive; the rest fire.
 */
static void show_requests(int fd)
{
	unsigned int i, n, ok, wave, unanswered = 0, fired = 0, shown = 0;
	struct wt_event ev[64];
	__u64 t0;

	printf("\n== 1. an RPC client sends %u requests, with a timeout each\n",
	       REQUESTS);
	for (i = 0; i < REQUESTS; i++) {
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].op = WT_OP_ADD;
		ops[i].cookie = i;
		/* Most calls allow 250-449 ms; one in ten is a 30 s long poll. */
		if (i % 10 == 3)
			ops[i].deadline = 30 * SEC;
		else
			ops[i].deadline = 250 * MSEC + (i % 200) * MSEC;
	}
	t0 = now_ns();
	ok = batch(fd, ops, REQUESTS);
	printf("  added %u timeouts with %u WT_IOC_BATCH calls in %.1f ms\n",
	       ok, (REQUESTS + WT_BATCH_MAX - 1) / WT_BATCH_MAX,
	       ms(now_ns() - t0));
	check(ok == REQUESTS, "every add succeeded");
	t.added += ok;
	for (i = 0; i < REQUESTS; i++)
		ids[i] = ops[i].id;
	show_wheel(fd);

	/* Responses arrive in four waves; one request in LOST_EVERY never does. */
	for (wave = 0; wave < 4; wave++) {
		sleep_ns(40 * MSEC);
		n = 0;
		for (i = wave; i < REQUESTS; i += 4) {
			if (i % LOST_EVERY == LOST_EVERY - 1)
				continue;
			memset(&ops[n], 0, sizeof(ops[n]));
			ops[n].op = WT_OP_CANCEL;
			ops[n].id = ids[i];
			idx[n++] = i;
		}
		ok = batch(fd, ops, n);
		for (i = 0; i < n; i++) {
			if (ops[i].status == WT_STATUS_PENDING) {
				state[idx[i]] = CANCELLED;
				t.cancelled++;
			} else if (ops[i].status == WT_STATUS_WITHDRAWN) {
				state[idx[i]] = WITHDRAWN;
				t.withdrawn++;
			}
		}
		printf("  +%4.0f ms: %u responses; %u timeouts cancelled in %u batches\n",
		       ms(now_ns() - t0), n, ok,
		       (n + WT_BATCH_MAX - 1) / WT_BATCH_MAX);
		check(ok == n, "every cancel found its timeout");
	}
	show_wheel(fd);

	for (i = 0; i < REQUESTS; i++)
		if (state[i] == ARMED)
			unanswered++;
	printf("  %u requests got no response; their timeouts fire:\n",
	       unanswered);
	t0 = now_ns();
	while (fired < unanswered && now_ns() - t0 < GRACE) {
		int got = read_events(fd, ev, 64, SEC, NULL);
		int k;

		for (k = 0; k < got; k++) {
			__u64 c = ev[k].cookie;

			if (c >= REQUESTS || state[c] != ARMED) {
				t.dup++;
				printf("  DUPLICATE or cancelled: request %llu\n", c);
				continue;
			}
			check(ev[k].flags == WT_EVENT_FINAL,
			      "a one-shot event is final");
			state[c] = FIRED;
			fired++;
			t.timed_out++;
			if (shown++ < 3)
				printf("    request %4llu timed out %.3f ms after its deadline\n",
				       c, ms(ev[k].fired_at - ev[k].deadline));
		}
	}
	if (shown > 3)
		printf("    ... and %u more, none early\n", shown - 3);
	t.lost += unanswered - fired;
	check(fired == unanswered, "every unanswered request timed out");
}

/*
 * 2. The race cancel is built for: the response arrives after the timeout
 * fired but before its event was read. The event is withdrawn, so the
 * request is seen once, as answered.
 */
static void show_late_response(int fd)
{
	struct wt_op op = { .op = WT_OP_ADD, .deadline = 1 * MSEC,
			    .cookie = 0x1a7e };
	struct wt_query q = { 0 };
	struct wt_event ev;
	ssize_t r;

	printf("\n== 2. a response arrives just after its timeout fired\n");
	if (ioctl(fd, WT_IOC_ADD, &op) < 0)
		die("WT_IOC_ADD");
	t.added++;
	/* Wait, without reading, until the timeout has fired. */
	q.id = op.id;
	do {
		sleep_ns(10 * MSEC);
		if (ioctl(fd, WT_IOC_QUERY, &q) < 0)
			die("WT_IOC_QUERY");
	} while (q.state != WT_STATE_FIRED);
	printf("  the 1 ms timeout has fired, its event is unread (query: state fired)\n");

	memset(&op, 0, sizeof(op));
	op.id = q.id;
	if (ioctl(fd, WT_IOC_CANCEL, &op) < 0)
		die("WT_IOC_CANCEL");
	check(op.status == WT_STATUS_WITHDRAWN, "cancel says WITHDRAWN");
	if (op.status == WT_STATUS_WITHDRAWN)
		t.withdrawn++;
	printf("  the response arrives: cancel returns %s, and read() finds nothing:\n",
	       op.status == WT_STATUS_WITHDRAWN ? "WITHDRAWN" : "something else");

	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		die("fcntl");
	r = read(fd, &ev, sizeof(ev));
	check(r < 0 && errno == EAGAIN, "no event after the withdrawal");
	printf("  read: %s\n", r < 0 ? strerror(errno) : "an event (wrong)");
	if (r > 0)
		t.dup++;
	if (fcntl(fd, F_SETFL, 0) < 0)
		die("fcntl");
}

/*
 * 3. A lease renewed by a FIXED_DELAY timeout: each renewal takes longer
 * than the period, and the next period starts only when the event is read,
 * so nothing piles up.
 */
static void show_lease(int fd)
{
	struct wt_op op = { .op = WT_OP_ADD, .flags = WT_FIXED_DELAY,
			    .deadline = LEASE_PERIOD, .period = LEASE_PERIOD,
			    .cookie = 0x1ea5e };
	__u64 read_start = 0, prev_read = 0, prev_deadline = 0;
	struct wt_event ev[4];
	int k, n;

	printf("\n== 3. a lock lease renewed %.0f ms after each renewal (FIXED_DELAY)\n",
	       ms(LEASE_PERIOD));
	printf("  each renewal takes %.0f ms, longer than the period\n",
	       ms(LEASE_WORK));
	if (ioctl(fd, WT_IOC_ADD, &op) < 0)
		die("WT_IOC_ADD");
	t.added++;
	for (k = 0; k < LEASE_RENEWALS; k++) {
		n = read_events(fd, ev, 4, GRACE, &read_start);
		check(n == 1, "one lease event per read, no backlog");
		if (n < 1) {
			t.lost++;
			break;
		}
		check(ev[0].flags == WT_FIXED_DELAY, "a FIXED_DELAY event, not final");
		check(ev[0].overruns == 0, "FIXED_DELAY never overruns");
		if (k) {
			check(ev[0].deadline >= prev_read + LEASE_PERIOD,
			      "the next deadline is a period after the read");
			printf("  renewal %d: due %.1f ms after the previous, late %.3f ms\n",
			       k + 1, ms(ev[0].deadline - prev_deadline),
			       ms(ev[0].fired_at - ev[0].deadline));
		} else {
			printf("  renewal 1: late %.3f ms\n",
			       ms(ev[0].fired_at - ev[0].deadline));
		}
		prev_read = read_start;
		prev_deadline = ev[0].deadline;
		sleep_ns(LEASE_WORK);
	}
	memset(&op, 0, sizeof(op));
	op.id = ev[0].id;
	if (ioctl(fd, WT_IOC_CANCEL, &op) < 0)
		die("WT_IOC_CANCEL lease");
	if (op.status == WT_STATUS_WITHDRAWN)
		t.withdrawn++;
	else
		t.cancelled++;
	printf("  lease released: cancel returns %s\n",
	       op.status == WT_STATUS_WITHDRAWN ? "WITHDRAWN" : "PENDING");
}

/*
 * 4. A FIXED_RATE heartbeat read by a slow reader: the deadlines stay on
 * the period's grid, and the beats missed are reported as overruns.
 */
static void show_heartbeat(int fd)
{
	struct wt_op op = { .op = WT_OP_ADD, .flags = WT_FIXED_RATE,
			    .deadline = BEAT_PERIOD, .period = BEAT_PERIOD,
			    .cookie = 0xbea7 };
	unsigned long long overruns = 0;
	struct wt_event ev[4];
	__u64 first = 0;
	int k, n;

	printf("\n== 4. a heartbeat every %.0f ms (FIXED_RATE), read every %.0f ms\n",
	       ms(BEAT_PERIOD), ms(BEAT_READER));
	if (ioctl(fd, WT_IOC_ADD, &op) < 0)
		die("WT_IOC_ADD");
	t.added++;
	for (k = 0; k < BEAT_READS; k++) {
		n = read_events(fd, ev, 4, GRACE, NULL);
		check(n == 1, "one heartbeat event per read, however slow");
		if (n < 1) {
			t.lost++;
			break;
		}
		if (!k)
			first = ev[0].deadline;
		check((ev[0].deadline - first) % BEAT_PERIOD == 0,
		      "deadlines stay on the period's grid");
		printf("  read %d: beat %llu, %llu beats missed (overruns), late %.3f ms\n",
		       k + 1, (ev[0].deadline - first) / BEAT_PERIOD + 1,
		       ev[0].overruns, ms(ev[0].fired_at - ev[0].deadline));
		overruns += ev[0].overruns;
		sleep_ns(BEAT_READER);
	}
	/* Each sleep lets at least (110 - 20) / 20 periods pass unread. */
	check(overruns > 0, "a slow reader sees overruns");
	memset(&op, 0, sizeof(op));
	op.id = ev[0].id;
	if (ioctl(fd, WT_IOC_CANCEL, &op) < 0)
		die("WT_IOC_CANCEL heartbeat");
	if (op.status == WT_STATUS_WITHDRAWN)
		t.withdrawn++;
	else
		t.cancelled++;
	printf("  heartbeat stopped: %llu beats missed in %d reads, one record each\n",
	       overruns, BEAT_READS);
}

int main(void)
{
	struct wt_api api = { .api = WT_API_VERSION,
			      .features = WT_FEATURE_PERIODIC };
	struct wt_config cfg = { 0 };
	long long kadded, kdelivered, live;
	__u64 start = now_ns();
	bool ok;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open("/dev/wheeltimer", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/wheeltimer");
	if (ioctl(fd, WT_IOC_API, &api) < 0)
		die("WT_IOC_API");
	if (ioctl(fd, WT_IOC_GET_CONFIG, &cfg) < 0)
		die("WT_IOC_GET_CONFIG");
	printf("wheeltimer: one open file = one wheel driven by one hrtimer\n");
	printf("  resolution %.3f ms, up to %llu timeouts, batches of %u\n",
	       ms(cfg.resolution), cfg.max_pending, api.batch_max);

	show_requests(fd);
	show_late_response(fd);
	show_lease(fd);
	show_heartbeat(fd);

	kadded = wt_fdinfo_value(fd, "added");
	kdelivered = wt_fdinfo_value(fd, "delivered");
	live = wt_fdinfo_value(fd, "live");
	check(kadded == (long long)t.added, "the kernel counted the same adds");
	check(kdelivered == (long long)t.events,
	      "the kernel counted the same deliveries");
	check(live == 0, "nothing is left in the file");

	printf("\n== summary (%.1f s)\n", ms(now_ns() - start) / 1000);
	printf("  added       %llu timeouts\n", t.added);
	printf("  cancelled   %llu while pending, %llu after firing (withdrawn unread)\n",
	       t.cancelled, t.withdrawn);
	printf("  fired       %llu events: %llu request timeouts, %llu periodic\n",
	       t.events, t.timed_out, t.events - t.timed_out);
	printf("  overruns    %llu (the heartbeat's missed beats)\n", t.overruns);
	printf("  early       %llu (fired_at and our own clock, both checked)\n",
	       t.early);
	printf("  lost        %llu, delivered twice or after a cancel: %llu\n",
	       t.lost, t.dup);
	printf("  worst late  %.3f ms (resolution %.3f ms; emulated, not asserted)\n",
	       ms(t.worst_late), ms(cfg.resolution));
	printf("  the kernel's fdinfo agrees: added %lld, delivered %lld, live %lld\n",
	       kadded, kdelivered, live);

	ok = !t.failures && !t.early && !t.lost && !t.dup;
	printf("\ndemo: %s\n", ok ?
	       "PASS: nothing fired early, nothing was lost or delivered twice" :
	       "FAIL");
	close(fd);
	return ok ? 0 : 1;
}
