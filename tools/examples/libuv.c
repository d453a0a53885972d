// SPDX-License-Identifier: GPL-2.0
/*
 * libuv - libwheeltimer in a libuv loop, through a uv_poll_t on its
 * descriptor
 *
 * A client retries a request with exponential backoff (10, 20, 40, 80 ms,
 * ...) under an overall deadline of 200 ms: two kinds of timeout in one
 * context, told apart by their cookies. Each retry is armed when the
 * previous one fires; when the overall deadline fires, the pending retry
 * is cancelled, the handles closed, and uv_run() returns.
 *
 * What the callbacks queue is submitted once per loop iteration, by a
 * uv_prepare_t, which libuv runs just before it polls: the place for it
 * in any libuv program. The poll callback reaps one record per call:
 * libuv polls level-triggered, so it is called again while records
 * remain, and a record left unreaped can still be withdrawn by a cancel.
 *
 * Checked at any speed: no retry is due sooner than its backoff after the
 * previous one was handled, nothing fires before its deadline, the deadline
 * comes last and nothing is delivered after it; exit 1 otherwise. It runs
 * on either engine (WHEELTIMER_ENGINE=process for the in-process one).
 * Build: cc libuv.c $(pkg-config --cflags --libs wheeltimer libuv)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

#include <wheeltimer/wheeltimer.h>

#define MSEC		1000000ULL
#define FIRST_BACKOFF	(10 * MSEC)
#define DEADLINE	(200 * MSEC)

enum { COOKIE_RETRY = 1, COOKIE_DEADLINE = 2 };

static struct wheeltimer *wt;
static uv_poll_t poller;
static uv_prepare_t submitter;
static uv_timer_t watchdog;
static uint64_t retry, backoff = FIRST_BACKOFF, start, handled_at;
static unsigned int attempts;
static int failures, gave_up;

static void fail(const char *what)
{
	printf("FAIL: %s\n", what);
	failures++;
}

static void die(const char *what, int err)
{
	printf("FAIL: %s: %s\n", what, wheeltimer_strerror(err));
	exit(1);
}

static uint64_t now(void)
{
	uint64_t t;

	wheeltimer_now(wt, &t);
	return t;
}

static uint64_t add(uint64_t delay, uint64_t cookie)
{
	uint64_t h;
	int err = wheeltimer_add(wt, delay, 0, 0, cookie, &h);

	if (err)
		die("wheeltimer_add", err);
	return h;
}

/* Before each poll: send what this iteration queued. */
static void on_prepare(uv_prepare_t *p)
{
	int err = wheeltimer_submit(wt);

	(void)p;
	if (err < 0)
		die("wheeltimer_submit", err);
}

static void give_up(void)
{
	struct wheeltimer_event ev;
	int err;

	gave_up = 1;
	/* With NOTIFY, the outcome is a record of the library's: reaped first. */
	err = wheeltimer_cancel(wt, retry, WHEELTIMER_NOTIFY);
	if (!err)
		err = wheeltimer_reap(wt, &ev, 1);
	if (err != 1 || !(ev.flags & WHEELTIMER_EV_CANCEL))
		fail("the pending retry could be cancelled");
	printf("deadline at +%.1f ms after %u attempts: retry cancelled (%s)\n",
	       (double)(now() - start) / MSEC, attempts,
	       ev.flags & WHEELTIMER_EV_WITHDRAWN ? "its record withdrawn" :
	       "it was pending");
	uv_poll_stop(&poller);
	uv_close((uv_handle_t *)&poller, NULL);
	uv_prepare_stop(&submitter);
	uv_close((uv_handle_t *)&submitter, NULL);
	uv_timer_stop(&watchdog);
	uv_close((uv_handle_t *)&watchdog, NULL);
}

static void on_readable(uv_poll_t *handle, int status, int events)
{
	struct wheeltimer_event ev;
	int n;

	(void)handle;
	(void)events;
	if (status < 0) {
		fail(uv_strerror(status));
		return;
	}
	n = wheeltimer_reap(wt, &ev, 1);
	if (n < 0)
		die("wheeltimer_reap", n);
	if (!n)
		return;
	if (ev.fired_at < ev.deadline || now() < ev.deadline)
		fail("a timeout fired before its deadline");
	if (gave_up) {
		fail("a record after the overall deadline");
		return;
	}
	if (ev.cookie == COOKIE_DEADLINE) {
		give_up();
		return;
	}
	/* A retry: it was armed at handled_at with the backoff then. */
	if (ev.deadline < handled_at + backoff)
		fail("a retry came sooner than its backoff");
	attempts++;
	printf("attempt %u at +%.1f ms (backoff %.0f ms), no answer\n",
	       attempts, (double)(now() - start) / MSEC,
	       (double)backoff / MSEC);
	backoff *= 2;
	handled_at = now();
	retry = add(backoff, COOKIE_RETRY);
}

static void on_watchdog(uv_timer_t *t)
{
	(void)t;
	fail("the overall deadline never fired");
	uv_stop(uv_default_loop());
}

int main(void)
{
	uv_loop_t *loop = uv_default_loop();
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = wheeltimer_open(NULL, &wt);
	if (ret)
		die("wheeltimer_open", ret);
	ret = uv_poll_init(loop, &poller, wheeltimer_fd(wt));
	if (!ret)
		ret = uv_poll_start(&poller, UV_READABLE, on_readable);
	if (!ret)
		ret = uv_prepare_init(loop, &submitter);
	if (!ret)
		ret = uv_prepare_start(&submitter, on_prepare);
	if (!ret)
		ret = uv_timer_init(loop, &watchdog);
	if (!ret)
		ret = uv_timer_start(&watchdog, on_watchdog, 60000, 0);
	if (ret) {
		printf("FAIL: libuv: %s\n", uv_strerror(ret));
		return 1;
	}

	start = now();
	handled_at = start;
	add(DEADLINE, COOKIE_DEADLINE);
	retry = add(backoff, COOKIE_RETRY);
	uv_run(loop, UV_RUN_DEFAULT);

	if (!attempts)
		fail("at least one retry before the deadline");
	if (!gave_up)
		fail("the overall deadline fired");
	printf("libuv: %u attempts, then the deadline; nothing early or after it, %s engine: %s\n",
	       attempts, wheeltimer_engine(wt) == WHEELTIMER_ENGINE_KERNEL ?
	       "kernel" : "in-process", failures ? "FAIL" : "ok");
	uv_loop_close(loop);
	wheeltimer_close(wt);
	return failures ? 1 : 0;
}
