// SPDX-License-Identifier: GPL-2.0
/*
 * demo - what wheeltimer is for, in a few seconds
 *
 * An RPC client sends thousands of requests and arms a timeout for each;
 * libwheeltimer queues them and submits them in a few batches. Most
 * responses arrive and their timeouts are cancelled, in batches too; the
 * few requests that got no answer time out, on time and never early. A
 * response that arrives just after its timeout fired withdraws the unread
 * record, so that the request counts once. A lock lease is renewed by a
 * FIXED_DELAY timeout, which starts the next period only when the renewal
 * reaps its record, and a FIXED_RATE heartbeat whose reader is slow
 * reports the beats it missed as overruns instead of piling them up.
 *
 * What is printed is also checked: the program exits 1 if a timeout fired
 * or was reaped before its deadline, was delivered twice, or both
 * delivered and cancelled, or was lost. Lateness is shown, never asserted:
 * under emulation the clock is noisy. It runs on the kernel's engine where
 * /dev/wheeltimer opens (the VM of `make demo`), else on the in-process
 * one.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <wheeltimer/wheeltimer.h>

#define MSEC		1000000ULL
#define SEC		1000000000ULL

#define REQUESTS	5000U
/* One request in LOST_EVERY gets no response and times out. */
#define LOST_EVERY	100U
/* How long to wait for a record before calling the timeout lost. */
#define GRACE		(60 * SEC)

#define LEASE_PERIOD	(100 * MSEC)
#define LEASE_WORK	(150 * MSEC)
#define LEASE_RENEWALS	4

#define BEAT_PERIOD	(20 * MSEC)
#define BEAT_READER	(110 * MSEC)
#define BEAT_READS	4

/* The library's own records: outcomes of operations, not firings. */
#define EV_OUTCOME	(WHEELTIMER_EV_ADD | WHEELTIMER_EV_MODIFY | \
			 WHEELTIMER_EV_CANCEL)

/* What became of one request's timeout. */
enum outcome {
	ARMED,
	CANCELLING,	/* its cancel is submitted, its outcome not reaped */
	CANCELLED,	/* cancelled while pending */
	WITHDRAWN,	/* fired, and its unreaped record withdrawn by the cancel */
	FIRED,		/* its record was reaped */
};

/**
 * struct totals - what the summary counts
 * @added: timeouts added
 * @cancelled: cancelled while pending
 * @withdrawn: cancelled after firing, their record withdrawn unreaped
 * @events: firings reaped
 * @timed_out: one-shot timeouts whose record was reaped
 * @overruns: overruns reported by FIXED_RATE records
 * @early: records with fired_at before the deadline, or reaped before it
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
static struct wheeltimer *wt;

static uint64_t now(void)
{
	uint64_t ns;

	wheeltimer_now(wt, &ns);
	return ns;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / SEC),
		.tv_nsec = (long)(ns % SEC),
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static double ms(uint64_t ns)
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

static void die(const char *what, int err)
{
	fprintf(stderr, "demo: %s: %s\n", what, wheeltimer_strerror(err));
	exit(1);
}

static uint64_t submits(void)
{
	uint64_t v = 0;

	wheeltimer_stat(wt, "lib_submits", &v);
	return v;
}

/*
 * Accounts for one firing: never early, by the engine's fired_at and by
 * the context's clock (CLOCK_MONOTONIC) read after the reap returned.
 */
static void account(const struct wheeltimer_event *e)
{
	t.events++;
	t.overruns += e->overruns;
	if (e->fired_at < e->deadline) {
		printf("  EARLY: cookie %llu fired at %llu, deadline %llu\n",
		       (unsigned long long)e->cookie,
		       (unsigned long long)e->fired_at,
		       (unsigned long long)e->deadline);
		t.early++;
		return;
	}
	if (now() < e->deadline) {
		printf("  EARLY: cookie %llu was reaped before its deadline\n",
		       (unsigned long long)e->cookie);
		t.early++;
	}
	if (e->fired_at - e->deadline > t.worst_late)
		t.worst_late = e->fired_at - e->deadline;
}

/* The outcome of a cancel with WHEELTIMER_NOTIFY; returns its outcome. */
static enum outcome cancel_outcome(const struct wheeltimer_event *e)
{
	check(e->res == 0, "every cancel found its timeout");
	if (e->flags & WHEELTIMER_EV_WITHDRAWN) {
		t.withdrawn++;
		return WITHDRAWN;
	}
	t.cancelled++;
	return CANCELLED;
}

/* Waits at most @timeout ns for records, reaps up to @max and accounts. */
static int wait_records(struct wheeltimer_event *ev, unsigned int max,
			uint64_t timeout)
{
	int i, n = wheeltimer_wait(wt, ev, max, (int64_t)timeout);

	if (n < 0)
		die("wheeltimer_wait", n);
	for (i = 0; i < n; i++)
		if (!(ev[i].flags & EV_OUTCOME))
			account(&ev[i]);
	return n;
}

static uint64_t handles[REQUESTS];
static enum outcome state[REQUESTS];

/* A record for a request: a cancel's outcome, or its timeout firing. */
static unsigned int request_record(const struct wheeltimer_event *e,
				   unsigned int *shown)
{
	uint64_t c = e->cookie;

	if (e->flags & WHEELTIMER_EV_CANCEL) {
		if (c < REQUESTS && state[c] == CANCELLING)
			state[c] = cancel_outcome(e);
		else
			check(false, "a cancel's outcome for its request");
		return 0;
	}
	if (c >= REQUESTS || state[c] != ARMED) {
		t.dup++;
		printf("  DUPLICATE or cancelled: request %llu\n",
		       (unsigned long long)c);
		return 0;
	}
	check(e->flags == WHEELTIMER_EV_FINAL, "a one-shot record is final");
	state[c] = FIRED;
	t.timed_out++;
	if ((*shown)++ < 3)
		printf("    request %4llu timed out %.3f ms after its deadline\n",
		       (unsigned long long)c, ms(e->fired_at - e->deadline));
	return 1;
}

static void show_wheel(void)
{
	struct wheeltimer_stats st;

	if (!wheeltimer_stats(wt, &st))
		printf("  the engine: %llu pending, %llu ready\n",
		       (unsigned long long)st.pending,
		       (unsigned long long)st.ready);
}

/*
 * 1. REQUESTS request timeouts added, submitted in batches; all but one in
 * LOST_EVERY cancelled as their responses arrive, in waves; the rest fire.
 */
static void show_requests(void)
{
	unsigned int i, n, wave, unanswered = 0, fired = 0, shown = 0, ok;
	struct wheeltimer_event ev[64];
	uint64_t t0, s0;
	int k, got, err;

	printf("\n== 1. an RPC client sends %u requests, with a timeout each\n",
	       REQUESTS);
	t0 = now();
	s0 = submits();
	for (i = 0; i < REQUESTS; i++) {
		/* Most calls allow 250-449 ms; one in ten is a 30 s long poll. */
		uint64_t d = i % 10 == 3 ? 30 * SEC : 250 * MSEC + (i % 200) * MSEC;

		err = wheeltimer_add(wt, d, 0, 0, i, &handles[i]);
		if (err)
			die("wheeltimer_add", err);
	}
	err = wheeltimer_submit(wt);
	if (err < 0)
		die("wheeltimer_submit", err);
	for (i = 0, ok = 0; i < REQUESTS; i++)
		ok += !wheeltimer_error(wt, handles[i]);
	printf("  added %u timeouts, submitted in %llu batch calls, in %.1f ms\n",
	       ok, (unsigned long long)(submits() - s0), ms(now() - t0));
	check(ok == REQUESTS, "every add succeeded");
	t.added += ok;
	show_wheel();

	/* Responses arrive in four waves; one request in LOST_EVERY never does. */
	for (wave = 0; wave < 4; wave++) {
		sleep_ns(40 * MSEC);
		n = 0;
		s0 = submits();
		for (i = wave; i < REQUESTS; i += 4) {
			if (i % LOST_EVERY == LOST_EVERY - 1)
				continue;
			/*
			 * A response after its timeout's record was reaped: the
			 * client gave up on it already (a slow machine).
			 */
			if (state[i] != ARMED)
				continue;
			/* NOTIFY: a record says whether it had fired meanwhile. */
			err = wheeltimer_cancel(wt, handles[i], WHEELTIMER_NOTIFY);
			if (err)
				die("wheeltimer_cancel", err);
			state[i] = CANCELLING;
			n++;
		}
		err = wheeltimer_submit(wt);
		if (err < 0)
			die("wheeltimer_submit", err);
		printf("  +%4.0f ms: %u responses; their timeouts cancelled in %llu batches\n",
		       ms(now() - t0), n, (unsigned long long)(submits() - s0));
		/* The outcomes are the library's records: they come first. */
		do {
			got = wait_records(ev, 64, 0);
			for (k = 0; k < got; k++)
				fired += request_record(&ev[k], &shown);
		} while (got);
	}
	for (i = 0; i < REQUESTS; i++) {
		if (state[i] == ARMED)
			unanswered++;
		check(state[i] != CANCELLING, "every cancel's outcome was reaped");
	}
	show_wheel();

	printf("  %u requests got no response; their timeouts fire:\n",
	       unanswered);
	/* Those that fired during the waves (a slow machine) are counted. */
	fired = 0;
	t0 = now();
	while (fired < unanswered && now() - t0 < GRACE) {
		got = wait_records(ev, 64, SEC);
		for (k = 0; k < got; k++)
			fired += request_record(&ev[k], &shown);
	}
	if (shown > 3)
		printf("    ... and %u more, none early\n", shown - 3);
	t.lost += unanswered - fired;
	check(fired == unanswered, "every unanswered request timed out");
}

/*
 * 2. The race cancel is built for: the response arrives after the timeout
 * fired but before its record was reaped. The record is withdrawn, so the
 * request is seen once, as answered.
 */
static void show_late_response(void)
{
	struct wheeltimer_info info;
	struct wheeltimer_event ev;
	uint64_t h;
	int err, n;

	printf("\n== 2. a response arrives just after its timeout fired\n");
	err = wheeltimer_add(wt, 1 * MSEC, 0, 0, 0x1a7e, &h);
	if (err)
		die("wheeltimer_add", err);
	t.added++;
	/* Wait, without reaping, until the timeout has fired. */
	do {
		sleep_ns(10 * MSEC);
		err = wheeltimer_query(wt, h, &info);
		if (err)
			die("wheeltimer_query", err);
	} while (info.state != WHEELTIMER_STATE_FIRED);
	printf("  the 1 ms timeout has fired, its record is unreaped (query: fired)\n");

	err = wheeltimer_cancel(wt, h, WHEELTIMER_NOTIFY);
	if (err)
		die("wheeltimer_cancel", err);
	n = wheeltimer_reap(wt, &ev, 1);
	check(n == 1 && ev.flags & WHEELTIMER_EV_CANCEL,
	      "the cancel's outcome is reaped");
	check(n == 1 && ev.flags & WHEELTIMER_EV_WITHDRAWN,
	      "the cancel withdrew the record");
	if (n == 1 && ev.flags & WHEELTIMER_EV_WITHDRAWN)
		t.withdrawn++;
	printf("  the response arrives: the cancel says %s, and a reap finds nothing:\n",
	       n == 1 && ev.flags & WHEELTIMER_EV_WITHDRAWN ? "WITHDRAWN" :
	       "something else");
	n = wheeltimer_reap(wt, &ev, 1);
	check(n == 0, "no record after the withdrawal");
	printf("  reap: %s\n", n ? "a record (wrong)" : "0 records");
	if (n > 0)
		t.dup++;
}

/* Stops a periodic timeout; its outcome says whether it had fired. */
static void stop(uint64_t h)
{
	struct wheeltimer_event ev;
	int err = wheeltimer_cancel(wt, h, WHEELTIMER_NOTIFY);

	if (err)
		die("wheeltimer_cancel", err);
	err = wheeltimer_reap(wt, &ev, 1);
	check(err == 1 && ev.flags & WHEELTIMER_EV_CANCEL,
	      "the cancel's outcome is reaped");
	if (err == 1)
		printf("  stopped: the cancel says %s\n",
		       cancel_outcome(&ev) == WITHDRAWN ? "WITHDRAWN" : "PENDING");
}

/*
 * 3. A lease renewed by a FIXED_DELAY timeout: each renewal takes longer
 * than the period, and the next period starts only when the record is
 * reaped, so nothing piles up.
 */
static void show_lease(void)
{
	uint64_t before = 0, prev_before = 0, prev_deadline = 0, h;
	struct wheeltimer_event ev[4];
	int k, n, err;

	printf("\n== 3. a lock lease renewed %.0f ms after each renewal (FIXED_DELAY)\n",
	       ms(LEASE_PERIOD));
	printf("  each renewal takes %.0f ms, longer than the period\n",
	       ms(LEASE_WORK));
	err = wheeltimer_add_periodic(wt, LEASE_PERIOD, LEASE_PERIOD, 0,
				      WHEELTIMER_FIXED_DELAY, 0x1ea5e, &h);
	if (err)
		die("wheeltimer_add_periodic", err);
	t.added++;
	for (k = 0; k < LEASE_RENEWALS; k++) {
		before = now();
		n = wait_records(ev, 4, GRACE);
		check(n == 1, "one lease record per reap, no backlog");
		if (n < 1) {
			t.lost++;
			break;
		}
		check(ev[0].flags == WHEELTIMER_EV_FIXED_DELAY,
		      "a FIXED_DELAY record, not final");
		check(ev[0].overruns == 0, "FIXED_DELAY never overruns");
		if (k) {
			/* The period started at the reap, after prev_before. */
			check(ev[0].deadline >= prev_before + LEASE_PERIOD,
			      "the next deadline is a period after the reap");
			printf("  renewal %d: due %.1f ms after the previous, late %.3f ms\n",
			       k + 1, ms(ev[0].deadline - prev_deadline),
			       ms(ev[0].fired_at - ev[0].deadline));
		} else {
			printf("  renewal 1: late %.3f ms\n",
			       ms(ev[0].fired_at - ev[0].deadline));
		}
		prev_before = before;
		prev_deadline = ev[0].deadline;
		sleep_ns(LEASE_WORK);
	}
	stop(h);
}

/*
 * 4. A FIXED_RATE heartbeat reaped by a slow reader: the deadlines stay on
 * the period's grid, and the beats missed are reported as overruns.
 */
static void show_heartbeat(void)
{
	unsigned long long overruns = 0;
	struct wheeltimer_event ev[4];
	uint64_t first = 0, h;
	int k, n, err;

	printf("\n== 4. a heartbeat every %.0f ms (FIXED_RATE), reaped every %.0f ms\n",
	       ms(BEAT_PERIOD), ms(BEAT_READER));
	err = wheeltimer_add_periodic(wt, BEAT_PERIOD, BEAT_PERIOD, 0,
				      WHEELTIMER_FIXED_RATE, 0xbea7, &h);
	if (err)
		die("wheeltimer_add_periodic", err);
	t.added++;
	for (k = 0; k < BEAT_READS; k++) {
		n = wait_records(ev, 4, GRACE);
		check(n == 1, "one heartbeat record per reap, however slow");
		if (n < 1) {
			t.lost++;
			break;
		}
		if (!k)
			first = ev[0].deadline;
		check((ev[0].deadline - first) % BEAT_PERIOD == 0,
		      "deadlines stay on the period's grid");
		printf("  reap %d: beat %llu, %llu beats missed (overruns), late %.3f ms\n",
		       k + 1,
		       (unsigned long long)((ev[0].deadline - first) / BEAT_PERIOD + 1),
		       (unsigned long long)ev[0].overruns,
		       ms(ev[0].fired_at - ev[0].deadline));
		overruns += ev[0].overruns;
		sleep_ns(BEAT_READER);
	}
	/* Each sleep lets at least (110 - 20) / 20 periods pass unreaped. */
	check(overruns > 0, "a slow reader sees overruns");
	stop(h);
	printf("  %llu beats missed in %d reaps, one record each\n", overruns,
	       BEAT_READS);
}

int main(void)
{
	struct wheeltimer_params p;
	struct wheeltimer_stats st;
	bool kernel, ok;
	uint64_t start;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	wheeltimer_params_init(&p);
	p.features = WHEELTIMER_FEATURE_PERIODIC;
	err = wheeltimer_open(&p, &wt);
	if (err)
		die("wheeltimer_open", err);
	kernel = p.engine == WHEELTIMER_ENGINE_KERNEL;
	start = now();
	if (kernel)
		printf("wheeltimer: the kernel's engine, /dev/wheeltimer: one open file = %s\n",
		       "one wheel driven by one hrtimer");
	else
		printf("wheeltimer: the in-process engine: %s\n",
		       "the same wheel, driven by one timerfd");
	printf("  resolution %.3f ms, up to %llu timeouts, submitted in batches of up to %u\n",
	       ms(p.resolution_ns), (unsigned long long)p.max_pending,
	       p.queue_depth);

	show_requests();
	show_late_response();
	show_lease();
	show_heartbeat();

	err = wheeltimer_stats(wt, &st);
	if (err)
		die("wheeltimer_stats", err);
	check(st.added == t.added, "the engine counted the same adds");
	check(st.delivered == t.events, "the engine counted the same deliveries");
	check(st.live == 0, "nothing is left in the engine");

	printf("\n== summary (%.1f s)\n", ms(now() - start) / 1000);
	printf("  added       %llu timeouts\n", t.added);
	printf("  cancelled   %llu while pending, %llu after firing (withdrawn unreaped)\n",
	       t.cancelled, t.withdrawn);
	printf("  fired       %llu records: %llu request timeouts, %llu periodic\n",
	       t.events, t.timed_out, t.events - t.timed_out);
	printf("  overruns    %llu (the heartbeat's missed beats)\n", t.overruns);
	printf("  early       %llu (fired_at and our own clock, both checked)\n",
	       t.early);
	printf("  lost        %llu, delivered twice or after a cancel: %llu\n",
	       t.lost, t.dup);
	printf("  worst late  %.3f ms (resolution %.3f ms; emulated, not asserted)\n",
	       ms(t.worst_late), ms(p.resolution_ns));
	printf("  the %s counters agree: added %llu, delivered %llu, live %llu\n",
	       kernel ? "kernel's fdinfo" : "engine's", (unsigned long long)st.added,
	       (unsigned long long)st.delivered, (unsigned long long)st.live);

	ok = !t.failures && !t.early && !t.lost && !t.dup;
	printf("\ndemo: %s\n", ok ?
	       "PASS: nothing fired early, nothing was lost or delivered twice" :
	       "FAIL");
	wheeltimer_close(wt);
	return ok ? 0 : 1;
}
