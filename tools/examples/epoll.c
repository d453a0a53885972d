// SPDX-License-Identifier: GPL-2.0
/*
 * epoll - libwheeltimer in a plain epoll event loop: idle connections
 *
 * A server keeps an idle timeout per connection. The timeout's cookie is a
 * pointer to the connection, so a record leads straight to it; traffic on
 * a connection pushes its timeout back with wheeltimer_modify(), as
 * mod_timer() does in the kernel. The loop waits on the connections (pipes
 * stand for sockets here) and on the context's descriptor with one
 * epoll_wait(), and submits what it queued once per iteration, before it
 * waits, as liburing's loops do: a burst of traffic costs one system call.
 *
 * Here, connection 0 gets a message every 30 ms from a FIXED_RATE
 * "client" timeout for its first 8 beats, so it outlives its 100 ms idle
 * timeout several times over; connections 1 to 3 stay silent and are
 * closed at 100, 120 and 140 ms, in that order; then connection 0 goes
 * quiet and is closed 100 ms after its last message.
 *
 * The program checks what holds at any speed: the silent connections close
 * in the order of their deadlines, none closes sooner than its idle timeout
 * after its last activity (by the context's clock), every connection closes
 * once; it exits 1 otherwise. It runs on either engine, /dev/wheeltimer or
 * the in-process one (WHEELTIMER_ENGINE=process).
 * Build: cc epoll.c $(pkg-config --cflags --libs wheeltimer)
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
#include <unistd.h>

#include <wheeltimer/wheeltimer.h>

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
 * @timeout: the handle of its idle timeout
 * @idle: how long it may stay idle
 * @last: the context's clock at its last activity
 * @messages: messages it received
 * @open: not closed yet
 */
struct conn {
	int no;
	int fd;
	int peer;
	uint64_t timeout;
	uint64_t idle;
	uint64_t last;
	unsigned int messages;
	bool open;
};

static struct wheeltimer *wt;
static struct conn conns[NCONN];
/* The cookie of the client's beat: no connection has this address. */
static const char beat_cookie;
static int failures;
static unsigned int beats, alive = NCONN;
static uint64_t beat;

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

/* Activity: push the connection's idle timeout back, like mod_timer(). */
static void touch(struct conn *c)
{
	int err;

	c->last = now();
	/* Relative: from the submit that sends it, after c->last. */
	err = wheeltimer_modify(wt, c->timeout, c->idle, 0, 0);
	if (err)
		die("wheeltimer_modify", err);
}

static void close_conn(struct conn *c, const struct wheeltimer_event *e,
		       uint64_t t0)
{
	static int last_silent;
	uint64_t t = now();

	printf("conn %d: idle for %.1f ms, closed at +%.0f ms after %u messages\n",
	       c->no, (double)(t - c->last) / MSEC, (double)(t - t0) / MSEC,
	       c->messages);
	if (t < c->last + c->idle || e->fired_at < e->deadline)
		fail("a connection was closed before its idle timeout");
	if (!(e->flags & WHEELTIMER_EV_FINAL))
		fail("a one-shot record is final");
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
static void on_beat(void)
{
	int err;

	if (conns[0].open && write(conns[0].peer, "ping", 4) != 4)
		die("write", errno);
	if (++beats == BEATS) {
		err = wheeltimer_cancel(wt, beat, 0);
		if (err)
			die("wheeltimer_cancel", err);
	}
}

/* The records ready: beats make the client talk, the rest close. */
static void on_wheeltimer(uint64_t t0)
{
	struct wheeltimer_event ev[16];
	int k, n;

	do {
		n = wheeltimer_reap(wt, ev, 16);
		if (n < 0)
			die("wheeltimer_reap", n);
		for (k = 0; k < n; k++) {
			struct conn *c = (void *)(uintptr_t)ev[k].cookie;

			if (c == (void *)&beat_cookie) {
				on_beat();
			} else if (!c->open) {
				fail("a record for a closed connection");
			} else {
				close_conn(c, &ev[k], t0);
				alive--;
			}
		}
	} while (n == 16);
}

int main(void)
{
	struct epoll_event ee, events[8];
	int ep, i, n, err;
	uint64_t t0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The kernel's engine where /dev/wheeltimer opens, else in-process. */
	err = wheeltimer_open(NULL, &wt);
	if (err)
		die("wheeltimer_open", err);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1", errno);
	ee.events = EPOLLIN;
	ee.data.ptr = NULL;	/* NULL stands for the context */
	if (epoll_ctl(ep, EPOLL_CTL_ADD, wheeltimer_fd(wt), &ee) < 0)
		die("epoll_ctl wheeltimer", errno);

	t0 = now();
	for (i = 0; i < NCONN; i++) {
		struct conn *c = &conns[i];
		int sv[2];

		/* A pipe stands for the socket: any kernel has pipes. */
		if (pipe2(sv, O_NONBLOCK | O_CLOEXEC) < 0)
			die("pipe2", errno);
		c->no = i;
		c->fd = sv[0];
		c->peer = sv[1];
		c->idle = IDLE + (uint64_t)(i ? i - 1 : 0) * 20 * MSEC;
		c->last = now();
		c->open = true;
		err = wheeltimer_add(wt, c->idle, 0, 0, (uintptr_t)c, &c->timeout);
		if (err)
			die("wheeltimer_add", err);
		ee.events = EPOLLIN;
		ee.data.ptr = c;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ee) < 0)
			die("epoll_ctl conn", errno);
	}
	err = wheeltimer_add_periodic(wt, BEAT, BEAT, 0, WHEELTIMER_FIXED_RATE,
				      (uintptr_t)&beat_cookie, &beat);
	if (err)
		die("wheeltimer_add_periodic", err);

	while (alive) {
		/* One system call for what the last iteration queued. */
		err = wheeltimer_submit(wt);
		if (err < 0)
			die("wheeltimer_submit", err);
		n = epoll_wait(ep, events, 8, 10000);
		if (n < 0 && errno != EINTR)
			die("epoll_wait", errno);
		if (n == 0) {
			fail("nothing happened for 10 s");
			break;
		}
		for (i = 0; i < n; i++) {
			struct conn *c = events[i].data.ptr;
			char buf[64];

			if (!c) {
				on_wheeltimer(t0);
				continue;
			}
			/* A message: the connection is not idle. */
			if (c->open && read(c->fd, buf, sizeof(buf)) > 0) {
				c->messages++;
				touch(c);
			}
		}
	}
	printf("epoll: %u beats, %d connections closed once each, none early, %s engine: %s\n",
	       beats, NCONN, wheeltimer_engine(wt) == WHEELTIMER_ENGINE_KERNEL ?
	       "kernel" : "in-process", failures ? "FAIL" : "ok");
	wheeltimer_close(wt);
	return failures ? 1 : 0;
}
