// SPDX-License-Identifier: GPL-2.0
/*
 * libuv - /dev/wheeltimer in a libuv loop, through a uv_poll_t on its fd
 *
 * A client retries a request with exponential backoff (10, 20, 40, 80 ms,
 * ...) under an overall deadline of 200 ms: two kinds of timeout in one
 * wheeltimer file, told apart by their cookies. Each retry is armed when
 * the previous one fires; when the overall deadline fires, the pending
 * retry is cancelled, the poll handle closed, and uv_run() returns.
 *
 * The callback reads one record per call: libuv polls level-triggered, so
 * it is called again while records remain, and a record left in the kernel
 * can still be withdrawn by a cancel.
 *
 * Checked at any speed: no retry is due sooner than its backoff after the
 * previous one was handled, nothing fires before its deadline, the deadline
 * comes last and nothing is delivered after it; exit 1 otherwise.
 * Build: cc -static -isystem uapi libuv.c -luv_a -lpthread -ldl -lrt
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include <linux/types.h>
#include <linux/wheeltimer.h>

#define MSEC		1000000ULL
#define FIRST_BACKOFF	(10 * MSEC)
#define DEADLINE	(200 * MSEC)

enum { COOKIE_RETRY = 1, COOKIE_DEADLINE = 2 };

static int wt;
static uv_poll_t poller;
static uv_timer_t watchdog;
static __u64 retry_id, backoff = FIRST_BACKOFF, start, handled_at;
static unsigned int attempts;
static int failures, gave_up;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static void fail(const char *what)
{
	printf("FAIL: %s\n", what);
	failures++;
}

static __u64 add(__u64 delay, __u64 cookie)
{
	struct wt_op op = { .op = WT_OP_ADD, .deadline = delay,
			    .cookie = cookie };

	if (ioctl(wt, WT_IOC_ADD, &op) < 0) {
		printf("FAIL: WT_IOC_ADD: %s\n", strerror(errno));
		exit(1);
	}
	return op.id;
}

static void give_up(void)
{
	struct wt_op op = { .op = WT_OP_CANCEL, .id = retry_id };

	gave_up = 1;
	if (ioctl(wt, WT_IOC_CANCEL, &op) < 0)
		fail("the pending retry could be cancelled");
	printf("deadline at +%.1f ms after %u attempts: retry cancelled (%s)\n",
	       (double)(now_ns() - start) / MSEC, attempts,
	       op.status == WT_STATUS_WITHDRAWN ? "its event withdrawn" :
	       "it was pending");
	uv_poll_stop(&poller);
	uv_close((uv_handle_t *)&poller, NULL);
	uv_timer_stop(&watchdog);
	uv_close((uv_handle_t *)&watchdog, NULL);
}

static void on_readable(uv_poll_t *handle, int status, int events)
{
	struct wt_event ev;
	ssize_t r;

	(void)handle;
	(void)events;
	if (status < 0) {
		fail(uv_strerror(status));
		return;
	}
	r = read(wt, &ev, sizeof(ev));
	if (r < 0 && errno == EAGAIN)
		return;
	if (r != sizeof(ev)) {
		fail("read one record");
		return;
	}
	if (ev.fired_at < ev.deadline || now_ns() < ev.deadline)
		fail("a timeout fired before its deadline");
	if (gave_up) {
		fail("an event after the overall deadline");
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
	       attempts, (double)(now_ns() - start) / MSEC,
	       (double)backoff / MSEC);
	backoff *= 2;
	handled_at = now_ns();
	retry_id = add(backoff, COOKIE_RETRY);
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
	wt = open("/dev/wheeltimer", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (wt < 0) {
		printf("FAIL: open /dev/wheeltimer: %s\n", strerror(errno));
		return 1;
	}
	ret = uv_poll_init(loop, &poller, wt);
	if (!ret)
		ret = uv_poll_start(&poller, UV_READABLE, on_readable);
	if (!ret)
		ret = uv_timer_init(loop, &watchdog);
	if (!ret)
		ret = uv_timer_start(&watchdog, on_watchdog, 60000, 0);
	if (ret) {
		printf("FAIL: libuv: %s\n", uv_strerror(ret));
		return 1;
	}

	start = now_ns();
	handled_at = start;
	add(DEADLINE, COOKIE_DEADLINE);
	retry_id = add(backoff, COOKIE_RETRY);
	uv_run(loop, UV_RUN_DEFAULT);

	if (!attempts)
		fail("at least one retry before the deadline");
	if (!gave_up)
		fail("the overall deadline fired");
	printf("libuv: %u attempts, then the deadline; nothing early or after it: %s\n",
	       attempts, failures ? "FAIL" : "ok");
	uv_loop_close(loop);
	close(wt);
	return failures ? 1 : 0;
}
