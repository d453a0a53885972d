// SPDX-License-Identifier: GPL-2.0
/*
 * What only timeouts kept in the kernel give, tested across processes:
 *
 * - timeouts outlive the process that armed them: a file handed to
 *   another process over a Unix socket (SCM_RIGHTS, as systemd's file
 *   descriptor store keeps a service's files across a restart) delivers
 *   every record, with the first process's cookies, to the second, none
 *   lost, none early, none twice;
 * - one file serves a group of processes, whether they inherited it with
 *   fork() or were passed it: any of them adds or cancels, and each expiry
 *   is read by exactly one of the readers reading at once;
 * - the machine sees every process's timeouts: another process, of
 *   another user, reads a file's counters in /proc/PID/fdinfo (what
 *   wheelctl top reads), the tracepoints show every process's adds and
 *   expiries, and the per-user limit counts the timeouts of all of a
 *   user's processes together.
 *
 * An in-process wheel has none of these: its timeouts die with the
 * process, belong to it alone, and are invisible from outside. The tests
 * of the last group run as root and act as other users in children.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "wt_trace.h"
#include "wt_user.h"
#include "wt_util.h"

/* A second unprivileged user, besides nobody. */
#define OTHER_USER	65533
/* How long a reader waits for a record before it gives up on the test. */
#define STALL_MS	30000

/* Send @fd and @len bytes of @data in one message on @sock. */
static int send_fd(int sock, int fd, const void *data, size_t len)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == (ssize_t)len ? 0 : -1;
}

/* The descriptor sent with a message of @len bytes into @data, or -1. */
static int recv_fd(int sock, void *data, size_t len)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = data, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)len)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* The exit status of child @pid, or -1 if it did not exit normally. */
static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Memory a test shares with its children. */
static void *shared(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* One byte through a pipe: what a child waits for, or says. */
static void gate_open(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		_exit(90);
}

static int gate_wait(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

FIXTURE(processes) {
	__u64 saved_user_limit;
	bool have_user_limit;
};

FIXTURE_SETUP(processes)
{
	self->have_user_limit = !limit_get("max_user_timeouts",
					   &self->saved_user_limit);
}

FIXTURE_TEARDOWN(processes)
{
	if (self->have_user_limit && !geteuid())
		limit_set("max_user_timeouts", self->saved_user_limit);
}

/*
 * Timeouts outlive the process that armed them.
 */

#define HANDED		10000
#define HANDED_TAG	(0xc0deULL << 48)

/* What the arming process sends with the file. */
struct handover {
	__u64 base;	/* its CLOCK_MONOTONIC when it started arming */
	__u64 armed;	/* how many it armed */
};

/*
 * When timeout @i is due, after the base: a tenth of them already when
 * they are armed, the rest 1 to 3 s later, many in the same millisecond.
 */
static __s64 handed_offset(unsigned int i)
{
	if (i % 10 == 0)
		return -(__s64)MSEC;
	return SEC + (__s64)((i * 7919ULL) % 2000) * MSEC;
}

/* In a child: arm HANDED timeouts, send the file, and exit. */
static void arm_and_hand_over(int sock)
{
	struct wt_op ops[WT_BATCH_MAX];
	struct handover h = { 0 };
	unsigned int i, n, k;
	int fd = wt_open();

	if (fd < 0)
		_exit(2);
	h.base = wt_clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < HANDED; i += k) {
		k = HANDED - i < WT_BATCH_MAX ? HANDED - i : WT_BATCH_MAX;
		memset(ops, 0, k * sizeof(ops[0]));
		for (n = 0; n < k; n++) {
			ops[n].op = WT_OP_ADD;
			ops[n].flags = WT_ABSTIME;
			ops[n].deadline = h.base + handed_offset(i + n);
			ops[n].cookie = HANDED_TAG | (i + n);
		}
		if (wt_batch(fd, ops, k) != (int)k)
			_exit(3);
		h.armed += k;
	}
	if (send_fd(sock, fd, &h, sizeof(h)))
		_exit(4);
	_exit(0);
}

TEST_F_TIMEOUT(processes, timeouts_outlive_the_process_that_armed_them, 600)
{
	unsigned int got = 0, outlived = 0, early = 0, foreign = 0;
	unsigned int twice = 0, wrong_deadline = 0, not_final = 0;
	struct wt_event ev[64], bad = { 0 };
	unsigned char *seen;
	struct handover h;
	__u64 exited_at, now;
	int sv[2], fd, n, i;
	pid_t pid;

	fd = wt_open();
	if (fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	close(fd);
	seen = calloc(HANDED, 1);
	ASSERT_NE(NULL, seen);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(sv[0]);
		arm_and_hand_over(sv[1]);
	}
	close(sv[1]);
	fd = recv_fd(sv[0], &h, sizeof(h));
	ASSERT_LE(0, fd) TH_LOG("no file from the arming process");
	close(sv[0]);
	ASSERT_EQ(0, reap(pid)) TH_LOG("the arming process failed");
	ASSERT_EQ(HANDED, h.armed);
	/* It is gone; its file and its timeouts are not. */
	exited_at = wt_clock_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(HANDED, wt_fdinfo(fd, "live"));
	EXPECT_EQ(HANDED, wt_fdinfo(fd, "added"));

	while (got < HANDED) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		ASSERT_EQ(1, poll(&p, 1, STALL_MS))
			TH_LOG("no record for %d ms: %u of %u read", STALL_MS,
			       got, HANDED);
		n = wt_read(fd, ev, 64);
		ASSERT_LT(0, n) TH_LOG("read: %s", strerror(-n));
		/* The receiver's own clock, after the records came. */
		now = wt_clock_ns(CLOCK_MONOTONIC);
		for (i = 0; i < n; i++) {
			__u64 k = ev[i].cookie & 0xffffffffULL;

			if ((ev[i].cookie & ~0xffffffffULL) != HANDED_TAG ||
			    k >= HANDED) {
				foreign++;
				bad = ev[i];
				continue;
			}
			if (seen[k]++)
				twice++;
			if (ev[i].deadline != h.base + handed_offset(k))
				wrong_deadline++;
			if (ev[i].fired_at < ev[i].deadline ||
			    now < ev[i].deadline) {
				early++;
				bad = ev[i];
			}
			if (!(ev[i].flags & WT_EVENT_FINAL))
				not_final++;
			outlived += ev[i].deadline > exited_at;
		}
		got += n;
	}
	ksft_print_msg("%u of %u were due only after their process exited\n",
		       outlived, HANDED);
	EXPECT_EQ(0, foreign) TH_LOG("a cookie the arming process never chose: %#llx",
				     (unsigned long long)bad.cookie);
	EXPECT_EQ(0, twice);
	EXPECT_EQ(0, wrong_deadline);
	EXPECT_EQ(0, early) TH_LOG("early: deadline %llu fired_at %llu",
				   (unsigned long long)bad.deadline,
				   (unsigned long long)bad.fired_at);
	EXPECT_EQ(0, not_final);
	/* Else the machine was so slow that nothing outlived its process. */
	EXPECT_LT(0, outlived);
	/* Every one once, and nothing more to read. */
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-EAGAIN, wt_read(fd, ev, 1));
	EXPECT_EQ(HANDED, wt_fdinfo(fd, "delivered"));
	EXPECT_EQ(0, wt_fdinfo(fd, "live"));
	close(fd);
	free(seen);
}

/*
 * One file shared by a group of processes.
 */

#define GROUP		4
#define PER_PROC	900
#define CANCEL_EVERY	3
#define CANCELLED_PER	((PER_PROC + CANCEL_EVERY - 1) / CANCEL_EVERY)
#define GROUP_EXPECTED	(GROUP * (PER_PROC - CANCELLED_PER))

struct sharing {
	pthread_barrier_t added, cancelled;
	__u64 ids[GROUP][PER_PROC];
	int cancel_status[GROUP][PER_PROC];
	unsigned int seen[GROUP * PER_PROC];
	unsigned int read_by[GROUP];
	unsigned int delivered;
};

/*
 * Worker @w of the group, on the shared file @fd: add PER_PROC timeouts,
 * cancel every third of the next worker's, then read with the others
 * until every record that should come has come. Exits with 0, or the
 * number of the step that failed.
 */
static void group_worker(struct sharing *g, int w, int fd)
{
	struct wt_op ops[PER_PROC];
	struct wt_event ev[16];
	int victim = (w + 1) % GROUP, failed = 0, i, n;
	__u64 give_up;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < PER_PROC; i++) {
		ops[i].op = WT_OP_ADD;
		ops[i].deadline = 200 * MSEC + (i % 50) * 2 * MSEC;
		ops[i].cookie = (__u64)w << 32 | i;
	}
	/* A failure still meets the others, which then wait in vain. */
	if (wt_batch(fd, ops, PER_PROC) != PER_PROC)
		failed = 2;
	for (i = 0; i < PER_PROC; i++)
		g->ids[w][i] = ops[i].id;
	pthread_barrier_wait(&g->added);

	/* Nobody reads yet: each cancelled timeout is pending or unread. */
	for (i = 0; i < PER_PROC; i += CANCEL_EVERY)
		g->cancel_status[victim][i] = wt_cancel(fd, g->ids[victim][i]);
	pthread_barrier_wait(&g->cancelled);
	if (failed)
		_exit(failed);

	give_up = wt_clock_ns(CLOCK_MONOTONIC) + STALL_MS * MSEC;
	while (__atomic_load_n(&g->delivered, __ATOMIC_SEQ_CST) < GROUP_EXPECTED) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (wt_clock_ns(CLOCK_MONOTONIC) > give_up)
			_exit(3);
		poll(&p, 1, 100);
		n = wt_read(fd, ev, 16);
		if (n == -EAGAIN)
			continue;
		if (n < 0)
			_exit(4);
		for (i = 0; i < n; i++) {
			__u64 who = ev[i].cookie >> 32, k = ev[i].cookie & 0xffffffff;

			if (who >= GROUP || k >= PER_PROC)
				_exit(5);
			__atomic_fetch_add(&g->seen[who * PER_PROC + k], 1,
					   __ATOMIC_SEQ_CST);
		}
		g->read_by[w] += n;
		__atomic_fetch_add(&g->delivered, n, __ATOMIC_SEQ_CST);
		give_up = wt_clock_ns(CLOCK_MONOTONIC) + STALL_MS * MSEC;
	}
	_exit(0);
}

TEST_F_TIMEOUT(processes, one_file_serves_a_group_of_processes, 600)
{
	unsigned int cancelled = 0, lost = 0, twice = 0, revived = 0, k;
	pthread_barrierattr_t attr;
	struct wt_event ev[16];
	pid_t pids[GROUP];
	struct sharing *g;
	int sv[2], fd, w, n, i;

	fd = wt_open();
	if (fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	close(fd);
	g = shared(sizeof(*g));
	ASSERT_NE(NULL, g);
	ASSERT_EQ(0, pthread_barrierattr_init(&attr));
	ASSERT_EQ(0, pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED));
	ASSERT_EQ(0, pthread_barrier_init(&g->added, &attr, GROUP));
	ASSERT_EQ(0, pthread_barrier_init(&g->cancelled, &attr, GROUP));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv));

	/* Worker 0 exists before the file: it is passed the file. */
	pids[0] = fork();
	ASSERT_LE(0, pids[0]);
	if (pids[0] == 0) {
		char c;

		close(sv[0]);
		fd = recv_fd(sv[1], &c, 1);
		if (fd < 0)
			_exit(10);
		group_worker(g, 0, fd);
	}
	close(sv[1]);
	fd = wt_open();
	ASSERT_LE(0, fd);
	/* The status flags belong to the open file: all read without blocking. */
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, send_fd(sv[0], fd, "f", 1));
	close(sv[0]);
	/* The others inherit it. */
	for (w = 1; w < GROUP; w++) {
		pids[w] = fork();
		ASSERT_LE(0, pids[w]);
		if (pids[w] == 0)
			group_worker(g, w, fd);
	}
	for (w = 0; w < GROUP; w++)
		EXPECT_EQ(0, reap(pids[w])) TH_LOG("worker %d failed", w);
	/* Anything still there would have been read twice or not at all. */
	usleep(300000);
	while ((n = wt_read(fd, ev, 16)) > 0) {
		for (i = 0; i < n; i++) {
			k = (ev[i].cookie >> 32) * PER_PROC +
			    (ev[i].cookie & 0xffffffff);
			ASSERT_GT(GROUP * PER_PROC, k);
			g->seen[k]++;
		}
	}

	for (w = 0; w < GROUP; w++) {
		for (i = 0; i < PER_PROC; i++) {
			k = g->seen[w * PER_PROC + i];
			if (i % CANCEL_EVERY == 0) {
				EXPECT_TRUE(g->cancel_status[w][i] == WT_STATUS_PENDING ||
					    g->cancel_status[w][i] == WT_STATUS_WITHDRAWN)
					TH_LOG("cancel of %d/%d by another process: %d",
					       w, i, g->cancel_status[w][i]);
				cancelled++;
				revived += k != 0;
			} else {
				lost += k == 0;
				twice += k > 1;
			}
		}
	}
	ksft_print_msg("records read by each process: %u %u %u %u\n",
		       g->read_by[0], g->read_by[1], g->read_by[2], g->read_by[3]);
	EXPECT_EQ(GROUP * CANCELLED_PER, cancelled);
	EXPECT_EQ(0, revived) TH_LOG("cancelled timeouts were delivered");
	EXPECT_EQ(0, lost);
	EXPECT_EQ(0, twice);
	EXPECT_EQ(GROUP_EXPECTED, g->delivered);
	EXPECT_EQ(GROUP * PER_PROC, wt_fdinfo(fd, "added"));
	EXPECT_EQ(GROUP_EXPECTED, wt_fdinfo(fd, "delivered"));
	EXPECT_EQ(GROUP * CANCELLED_PER,
		  wt_fdinfo(fd, "cancelled") + wt_fdinfo(fd, "withdrawn"));
	EXPECT_EQ(0, wt_fdinfo(fd, "live"));
	close(fd);
	munmap(g, sizeof(*g));
}

/*
 * The machine's view and limits.
 */

/*
 * Every wheeltimer file of every process, as wheelctl ls finds them: the
 * descriptors under /proc/PID/fd that link to the device. Returns the
 * pending timeouts of descriptor @fd of process @pid, or -1 if the scan
 * did not find that file.
 */
static long long scan_machine(pid_t pid, int fd, unsigned int *files)
{
	char path[600], link[64];
	struct dirent *p, *f;
	long long found = -1;
	DIR *proc, *fds;
	ssize_t n;

	*files = 0;
	proc = opendir("/proc");
	if (!proc)
		return -1;
	while ((p = readdir(proc))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s",
				 p->d_name, f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n < 0)
				continue;
			link[n] = '\0';
			if (strcmp(link, WT_DEV))
				continue;
			(*files)++;
			if (atoi(p->d_name) == pid && atoi(f->d_name) == fd)
				found = wt_pid_fdinfo(pid, fd, "pending");
		}
		closedir(fds);
	}
	closedir(proc);
	return found;
}

#define HELD		300

TEST_F_TIMEOUT(processes, another_user_sees_a_files_timeouts_in_fdinfo, 600)
{
	int report[2], release[2], holder_fd, status, i;
	unsigned int files;
	pid_t holder, peer;

	if (geteuid())
		SKIP(return, "acting as other users needs root");
	ASSERT_EQ(0, pipe2(report, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(release, O_CLOEXEC));
	holder = fork();
	ASSERT_LE(0, holder);
	if (holder == 0) {
		int fd;

		/* As a program started as nobody would be: inspectable. */
		if (become_nobody() || prctl(PR_SET_DUMPABLE, 1))
			_exit(2);
		fd = wt_open();
		if (fd < 0)
			_exit(3);
		for (i = 0; i < HELD; i++)
			if (wt_add_full(fd, 0, 3600 * SEC, 0, 0, i, NULL))
				_exit(4);
		if (write(report[1], &fd, sizeof(fd)) != sizeof(fd))
			_exit(5);
		gate_wait(release[0]);
		_exit(0);
	}
	ASSERT_EQ(sizeof(holder_fd), read(report[0], &holder_fd, sizeof(holder_fd)))
		TH_LOG("the holder failed: %d", reap(holder));

	/* Root, another user, reads its counters... */
	EXPECT_EQ(HELD, wt_pid_fdinfo(holder, holder_fd, "pending"));
	EXPECT_EQ(HELD, wt_pid_fdinfo(holder, holder_fd, "live"));
	EXPECT_EQ(HELD, wt_pid_fdinfo(holder, holder_fd, "added"));
	EXPECT_LE(HELD, wt_pid_fdinfo(holder, holder_fd, "user_timeouts"));
	/* ...and finds the file among every process's. */
	EXPECT_EQ(HELD, scan_machine(holder, holder_fd, &files));
	EXPECT_LE(1, files);

	/* Another process of the same user reads them too. */
	peer = fork();
	ASSERT_LE(0, peer);
	if (peer == 0) {
		if (become_nobody())
			_exit(2);
		_exit(wt_pid_fdinfo(holder, holder_fd, "pending") == HELD ? 0 : 3);
	}
	EXPECT_EQ(0, reap(peer)) TH_LOG("nobody's other process did not see them");

	gate_open(release[1]);
	ASSERT_EQ(holder, waitpid(holder, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(report[0]);
	close(report[1]);
	close(release[0]);
	close(release[1]);
}

#define TRACED		3

/* As user @id: a file, TRACED timeouts added and read; its context id. */
static void traced_process(unsigned int id, int report)
{
	struct wt_event ev[TRACED];
	__u64 ctx;
	int fd, i, got = 0, n;

	if (become_user(id))
		_exit(2);
	fd = wt_open();
	if (fd < 0)
		_exit(3);
	ctx = wt_fdinfo(fd, "context_id");
	for (i = 0; i < TRACED; i++)
		if (wt_add_full(fd, 0, (i + 1) * MSEC, 0, 0, id + i, NULL))
			_exit(4);
	while (got < TRACED) {
		n = wt_read(fd, ev, TRACED - got);
		if (n <= 0)
			_exit(5);
		got += n;
	}
	if (write(report, &ctx, sizeof(ctx)) != sizeof(ctx))
		_exit(6);
	_exit(0);
}

TEST_F_TIMEOUT(processes, the_tracepoints_see_every_processs_adds_and_expiries, 600)
{
	static const unsigned int users[] = { NOBODY, OTHER_USER };
	const char *why = tracefs_ready();
	int report[2], u, n, i, pids[32];
	int adds, expires, delivers, by_it;
	__u64 ctx[2];
	char lines[32][256];
	pid_t pid[2];

	if (geteuid())
		SKIP(return, "acting as other users needs root");
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, write_file(TRACEFS "/events/wheeltimer/enable", "1"))
		TH_LOG("the driver has no tracepoints");
	ASSERT_EQ(0, write_file(TRACEFS "/trace", ""));
	ASSERT_EQ(0, write_file(TRACEFS "/tracing_on", "1"));
	ASSERT_EQ(0, pipe2(report, O_CLOEXEC));
	for (u = 0; u < 2; u++) {
		pid[u] = fork();
		ASSERT_LE(0, pid[u]);
		if (pid[u] == 0)
			traced_process(users[u], report[1]);
		ASSERT_EQ(sizeof(ctx[u]), read(report[0], &ctx[u], sizeof(ctx[u])))
			TH_LOG("process of user %u failed: %d", users[u], reap(pid[u]));
		ASSERT_EQ(0, reap(pid[u]));
	}
	ASSERT_EQ(0, write_file(TRACEFS "/events/wheeltimer/enable", "0"));
	close(report[0]);
	close(report[1]);

	for (u = 0; u < 2; u++) {
		n = trace_events(ctx[u], lines, pids, 32);
		adds = 0;
		expires = 0;
		delivers = 0;
		by_it = 0;
		for (i = 0; i < n; i++) {
			adds += event_is(lines[i], "wheeltimer_add", "");
			expires += event_is(lines[i], "wheeltimer_expire", "");
			delivers += event_is(lines[i], "wheeltimer_deliver", "final=1");
			by_it += pids[i] == pid[u];
		}
		ksft_print_msg("user %u, pid %d, context %llu: %d events, %d its own\n",
			       users[u], pid[u], (unsigned long long)ctx[u], n, by_it);
		EXPECT_EQ(TRACED, adds) TH_LOG("user %u", users[u]);
		EXPECT_EQ(TRACED, expires) TH_LOG("user %u", users[u]);
		EXPECT_EQ(TRACED, delivers) TH_LOG("user %u", users[u]);
		/* Added and read by that process, which the trace names. */
		EXPECT_LE(2 * TRACED, by_it) TH_LOG("user %u", users[u]);
	}
}

/* What the processes of the per-user limit test report. */
struct limit_report {
	unsigned int first, second, second_after, other;
	int first_err, second_err, other_err;
	__u64 second_sees;
};

#define USER_LIMIT	20000
#define FIRST_HOLDS	10000

TEST_F_TIMEOUT(processes, the_user_limit_counts_all_of_a_users_processes, 600)
{
	const __u64 room = (USER_LIMIT + PER_PAGE - 1) / PER_PAGE * PER_PAGE;
	int first_done[2], first_go[2], second_done[2], second_go[2];
	struct limit_report *r;
	__u64 max_pending = 0;
	pid_t first, second, other;
	int err;

	if (geteuid())
		SKIP(return, "the limits and acting as other users need root");
	ASSERT_TRUE(self->have_user_limit) TH_LOG("no sysctl max_user_timeouts");
	ASSERT_EQ(0, limit_get("max_pending", &max_pending));
	ASSERT_EQ(0, limit_set("max_user_timeouts", USER_LIMIT));
	r = shared(sizeof(*r));
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, pipe2(first_done, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(first_go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(second_done, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(second_go, O_CLOEXEC));

	/* nobody's first process holds half the limit, and waits. */
	first = fork();
	ASSERT_LE(0, first);
	if (first == 0) {
		int fd;

		if (become_nobody())
			_exit(2);
		fd = open_virtual(max_pending, &err);
		if (fd < 0)
			_exit(3);
		r->first = fill(fd, FIRST_HOLDS, NULL, &r->first_err);
		gate_open(first_done[1]);
		gate_wait(first_go[0]);
		_exit(0);
	}
	ASSERT_EQ(0, gate_wait(first_done[0]));
	ASSERT_EQ(FIRST_HOLDS, r->first) TH_LOG("%s", strerror(r->first_err));

	/* Its second process, with a file of its own, gets the rest only. */
	second = fork();
	ASSERT_LE(0, second);
	if (second == 0) {
		int fd;

		if (become_nobody())
			_exit(2);
		fd = open_virtual(max_pending, &err);
		if (fd < 0)
			_exit(3);
		r->second = fill(fd, 2 * USER_LIMIT, NULL, &r->second_err);
		r->second_sees = wt_fdinfo(fd, "user_timeouts");
		gate_open(second_done[1]);
		/* Once the first has gone, what it held is free again. */
		gate_wait(second_go[0]);
		r->second_after = fill(fd, 2 * USER_LIMIT, NULL, &err);
		_exit(0);
	}
	ASSERT_EQ(0, gate_wait(second_done[0]));

	/* Another user is not held back by nobody's timeouts. */
	other = fork();
	ASSERT_LE(0, other);
	if (other == 0) {
		int fd;

		if (become_user(OTHER_USER))
			_exit(2);
		fd = open_virtual(max_pending, &err);
		if (fd < 0)
			_exit(3);
		r->other = fill(fd, 2 * USER_LIMIT, NULL, &r->other_err);
		_exit(0);
	}
	EXPECT_EQ(0, reap(other));

	gate_open(first_go[1]);
	EXPECT_EQ(0, reap(first));
	gate_open(second_go[1]);
	EXPECT_EQ(0, reap(second));

	ksft_print_msg("limit %d: nobody's processes %u and %u, then %u more\n",
		       USER_LIMIT, r->first, r->second, r->second_after);
	ksft_print_msg("user %d alone: %u\n", OTHER_USER, r->other);
	/* The second process stopped at what the user, not it, had left. */
	EXPECT_EQ(ENOSPC, r->second_err);
	EXPECT_GE(room, r->first + r->second);
	EXPECT_LT(room, r->first + r->second + 2 * (CTX_GUESS + PER_PAGE) +
			16 * PER_PAGE);
	EXPECT_LE(r->first + r->second, r->second_sees)
		TH_LOG("fdinfo user_timeouts does not count the other process's");
	/* The other user had the whole limit. */
	EXPECT_EQ(ENOSPC, r->other_err);
	EXPECT_LT(room, r->other + CTX_GUESS + PER_PAGE + 16 * PER_PAGE);
	/* The first process's exit gave its share back. */
	EXPECT_LE(FIRST_HOLDS - 2 * PER_PAGE, r->second_after);
	munmap(r, sizeof(*r));
}

TEST_HARNESS_MAIN
