// SPDX-License-Identifier: GPL-2.0
/*
 * epoll - /dev/wheeltimer in a plain epoll event loop: idle connections
 *
 * A server keeps an idle timeout per connection. The timeout's cookie is a
 * pointer to the connection, so an event leads straight to it; traffic on
 * a connection pushes its timeout back with WT_OP_MODIFY, as mod_timer()
 * does in the kernel. The loop waits on the connections (pipes stand for
 * sockets here) and on the wheeltimer file with one epoll_wait().
 *
 * Here, connection 0 gets a message every 30 ms from a FIXED_RATE
 * "client" timeout for its first 8 beats, so it outlives its 100 ms idle
 * timeout several times over; connections 1 to 3 stay silent and are
 * closed at 100, 120 and 140 ms, in that order; then connection 0 goes
 * quiet and is closed 100 ms after its last message.
 *
 * The program checks what holds at any speed: the silent connections close
 * in the order of their deadlines, none closes sooner than its idle timeout
 * after its last activity (by our own clock), every connection closes once;
 * it exits 1 otherwise. Build: cc -static -isystem uapi epoll.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <linux/wheeltimer.h>

#define MSEC		1000000ULL
#define NCONN		4
#define IDLE		(100 * MSEC)
#define BEAT		(30 * MSEC)
#define BEATS		8

/**
 * struct conn - one server connection
 * @no: its number
 * @fd: the server's end of the connection (a pipe here, for simplicity)
 * @peer: the client's end, which the beat writes to
 * @timeout: the id of its idle timeout
 * @idle: how long it may stay idle
 * @last: our clock at its last activity
 * @messages: messages it received
 * @open: not closed yet
 */
struct conn {
	int no;
	int fd;
	int peer;
	__u64 timeout;
	__u64 idle;
	__u64 last;
	unsigned int messages;
	bool open;
};

static struct conn conns[NCONN];
/* The cookie of the client's beat: no connection has this address. */
static const char beat_cookie;
static int failures;
static unsigned int beats, alive = NCONN;
static __u64 beat_id;

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

static void die(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

static __u64 arm(int wt, const struct wt_op *proto)
{
	struct wt_op op = *proto;

	if (ioctl(wt, WT_IOC_ADD, &op) < 0)
		die("WT_IOC_ADD");
	return op.id;
}

/* Activity: push the connection's idle timeout back, like mod_timer(). */
static void touch(int wt, struct conn *c)
{
	struct wt_op op = { .op = WT_OP_MODIFY, .id = c->timeout,
			    .deadline = c->idle };

	c->last = now_ns();
	if (ioctl(wt, WT_IOC_MODIFY, &op) < 0)
		die("WT_IOC_MODIFY");
}

static void close_conn(struct conn *c, const struct wt_event *e, __u64 t0)
{
	static int last_silent;
	__u64 now = now_ns();

	printf("conn %d: idle for %.1f ms, closed at +%.0f ms after %u messages\n",
	       c->no, (double)(now - c->last) / MSEC,
	       (double)(now - t0) / MSEC, c->messages);
	if (now < c->last + c->idle || e->fired_at < e->deadline)
		fail("a connection was closed before its idle timeout");
	if (!(e->flags & WT_EVENT_FINAL))
		fail("a one-shot event is final");
	if (c->no) {
		if (c->no != last_silent + 1)
			fail("silent connections closed out of deadline order");
		last_silent = c->no;
	}
	c->open = false;
	close(c->fd);
	close(c->peer);
}

/* The client's beat: a message on connection 0, BEATS times. */
static void on_beat(int wt)
{
	struct wt_op op = { .op = WT_OP_CANCEL, .id = beat_id };

	if (conns[0].open && write(conns[0].peer, "ping", 4) != 4)
		die("write");
	if (++beats == BEATS && ioctl(wt, WT_IOC_CANCEL, &op) < 0)
		die("WT_IOC_CANCEL");
}

/* Reads the ready events: beats make the client talk, the rest close. */
static void on_wheeltimer(int wt, __u64 t0)
{
	struct wt_event ev[16];
	ssize_t r;
	int k;

	r = read(wt, ev, sizeof(ev));
	if (r < 0 && errno == EAGAIN)
		return;
	if (r < 0)
		die("read wheeltimer");
	for (k = 0; k < (int)(r / sizeof(ev[0])); k++) {
		void *cookie = (void *)(uintptr_t)ev[k].cookie;
		struct conn *c = cookie;

		if (cookie == &beat_cookie) {
			on_beat(wt);
			continue;
		}
		if (!c->open) {
			fail("an event for a closed connection");
			continue;
		}
		close_conn(c, &ev[k], t0);
		alive--;
	}
}

int main(void)
{
	struct wt_op beat = { .op = WT_OP_ADD, .flags = WT_FIXED_RATE,
			      .deadline = BEAT, .period = BEAT,
			      .cookie = (uintptr_t)&beat_cookie };
	struct epoll_event ee, events[8];
	int wt, ep, i, n;
	__u64 t0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	wt = open("/dev/wheeltimer", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (wt < 0)
		die("open /dev/wheeltimer");
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	ee.events = EPOLLIN;
	ee.data.ptr = NULL;	/* NULL stands for the wheeltimer file */
	if (epoll_ctl(ep, EPOLL_CTL_ADD, wt, &ee) < 0)
		die("epoll_ctl wheeltimer");

	t0 = now_ns();
	for (i = 0; i < NCONN; i++) {
		struct conn *c = &conns[i];
		int sv[2];
		struct wt_op op = { .op = WT_OP_ADD };

		/* A pipe stands for the socket: any kernel has pipes. */
		if (pipe2(sv, O_NONBLOCK | O_CLOEXEC) < 0)
			die("pipe2");
		c->no = i;
		c->fd = sv[0];
		c->peer = sv[1];
		c->idle = IDLE + (__u64)(i ? i - 1 : 0) * 20 * MSEC;
		c->last = now_ns();
		c->open = true;
		op.deadline = c->idle;
		op.cookie = (uintptr_t)c;
		c->timeout = arm(wt, &op);
		ee.events = EPOLLIN;
		ee.data.ptr = c;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ee) < 0)
			die("epoll_ctl conn");
	}
	beat_id = arm(wt, &beat);

	while (alive) {
		n = epoll_wait(ep, events, 8, 10000);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		if (n == 0) {
			fail("nothing happened for 10 s");
			break;
		}
		for (i = 0; i < n; i++) {
			struct conn *c = events[i].data.ptr;
			char buf[64];

			if (!c) {
				on_wheeltimer(wt, t0);
				continue;
			}
			/* A message: the connection is not idle. */
			if (c->open && read(c->fd, buf, sizeof(buf)) > 0) {
				c->messages++;
				touch(wt, c);
			}
		}
	}
	printf("epoll: %u beats, %d connections closed once each, none early: %s\n",
	       beats, NCONN, failures ? "FAIL" : "ok");
	return failures ? 1 : 0;
}
