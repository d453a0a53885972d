// SPDX-License-Identifier: GPL-2.0
/*
 * wheelbench - wheeltimer against timerfd + epoll and io_uring timeouts,
 * and libwheeltimer's two engines against each other, side by side in one
 * boot
 *
 * Every figure is measured for each mechanism in the same run, so that what
 * matters is the ratio between them, not the absolute time (which under
 * emulation says little). Each measurement is repeated and the median is
 * reported. The tests:
 *
 *   churn     arm + cancel of request timeouts with nothing else pending:
 *             wheeltimer one ioctl per operation and batched, timerfd from
 *             a pool of descriptors (and one descriptor per timeout),
 *             io_uring TIMEOUT / TIMEOUT_REMOVE one and many per submit;
 *             libwheeltimer on its kernel engine and on its in-process
 *             engine (the honest competitor: a wheel in the process and
 *             one timerfd), one submit per loop iteration of 64
 *             operations; and the floor of a system call (an empty
 *             WT_IOC_BATCH, getppid()), which a shared ring would save
 *   scale     the same with 1 K, 100 K and 1 M timeouts pending (cancelling
 *             a random pending one), kernel memory per pending timeout
 *             (MemFree and Slab deltas), and the idle cost at the largest
 *             size: hrtimer programs (fdinfo), wake-ups of a process
 *             polling the descriptor, and local timer interrupts per
 *             second while every timeout is an hour away
 *   expiry    N timeouts due within 1 ms: time until all are read, per event
 *   lateness  read time minus deadline over deadlines from 50 us to 2 s,
 *             p50/p99/p99.9/max, and the count of early events
 *
 * Tables go to stdout; each CSV is printed between marker lines, for the
 * host to extract from the console (the VM has no shared file system).
 * Every figure is in the unit of the clock the program reads, which -c
 * names in each table's heading: ns under QEMU's TCG or on the host, or
 * instructions under QEMU's icount, where the guest's clock advances one
 * ns per instruction executed. The CSVs' columns keep the name "ns" for
 * either. Under callgrind, -g counts the instructions of the library's
 * own tests (lib-process, lib-process-expiry) as the clock times them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <linux/wheeltimer.h>

#include <wheeltimer/wheeltimer.h>

#if __has_include("valgrind/callgrind.h")
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND	1
#else
#define HAVE_CALLGRIND			0
#define RUNNING_ON_VALGRIND		0
#define CALLGRIND_TOGGLE_COLLECT	do { } while (0)
#define CALLGRIND_DUMP_STATS_AT(s)	((void)(s))
#endif

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL
#define HOUR_NS		(3600 * NSEC_PER_SEC)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define URING_SQ	4096
#define URING_CQ	65536
#define REMOVE_TAG	0x8000000000000000ULL
#define MAX_CHUNK	WT_BATCH_MAX
#define MAX_LEVELS	4

enum kind { WT, TFD, URING, LIB };

/* One mechanism as benchmarked: a kind, and how many operations per call. */
struct mech {
	const char *name;
	enum kind kind;
	unsigned int batch;	/* operations per system call */
	bool fd_per_timeout;	/* timerfd: create per arm, close per cancel */
	__u64 resolution;	/* wheeltimer: tick length in ns */
	uint32_t engine;	/* libwheeltimer: WHEELTIMER_ENGINE_* */

	int fd;			/* the device, epoll, or the library's */
	struct wheeltimer *wt;	/* libwheeltimer: the context */
	struct wheeltimer_event *lev;
	struct io_uring ring;
	struct wt_op *ops;
	struct wt_event *wtev;
	struct __kernel_timespec *ts;
	int *pool;		/* timerfd: idle descriptors */
	unsigned int npool;
	unsigned int pool_cap;
	__u64 *cookie_of_fd;	/* timerfd: cookie of the timeout on an fd */
	unsigned long nfds;
	struct ev *fired;	/* io_uring: expiries met while submitting */
	unsigned int nfired;
	unsigned int fired_cap;
	long errors;
	int stop_err;		/* why mech_arm() stopped short */
};

/* An expiry as the program sees it. */
struct ev {
	__u64 cookie;
	__u64 fired_at;		/* the kernel's stamp (wheeltimer), else 0 */
};

static struct {
	bool quick;
	unsigned int rounds;
	unsigned int idle_sec;
	unsigned long levels[MAX_LEVELS];
	unsigned int nlevels;
	unsigned long expiry_n;
	unsigned int expiry_rounds;	/* 0: as many as the others */
	unsigned long late_n;
	unsigned long rearm_n;
	__u64 late_span;
	double build_cap_sec;
	double round_cap_sec;
	bool one_by_one;	/* churn, re-arm: no taking turns (icount) */
} cfg;

/*
 * What the clock counts (-c), named in every heading: a figure's unit,
 * lateness's unit, the instrument, and the two together.
 */
static struct {
	const char *unit;	/* "ns" or "instructions" */
	const char *usec;	/* lateness: "us" or "k-instructions" */
	char instr[128];	/* "TCG", "icount", "host, <CPU model>" */
	char name[160];		/* "ns (TCG)", "instructions (icount)", ... */
} clk = { "ns", "us", "", "ns" };

static __u64 rng_state = 0x9e3779b97f4a7c15ULL;
static long sanity_failures;
static __u64 clock_cost;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stdout, "wheelbench: error: ");
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fprintf(stdout, "\n");
	fflush(stdout);
	exit(1);
}

/* -c: tcg, icount or host. */
static void set_clock(const char *what)
{
	char line[256], model[64] = "", family[16] = "?", num[16] = "?", *v;
	FILE *f;

	if (!strcmp(what, "icount")) {
		cfg.one_by_one = true;
		clk.unit = "instructions";
		clk.usec = "k-instructions";
		snprintf(clk.instr, sizeof(clk.instr), "icount");
	} else if (!strcmp(what, "tcg")) {
		snprintf(clk.instr, sizeof(clk.instr), "TCG");
	} else if (!strcmp(what, "host")) {
		/* "host, AMD EPYC (family 26, model 2)", from the first CPU's. */
		snprintf(clk.instr, sizeof(clk.instr), "host");
		f = fopen("/proc/cpuinfo", "r");
		while (f && fgets(line, sizeof(line), f) && line[0] != '\n') {
			v = strchr(line, ':');
			if (!v)
				continue;
			v[strcspn(v, "\n")] = 0;
			v += 1 + strspn(v + 1, " \t");
			if (!strncmp(line, "model name", 10))
				snprintf(model, sizeof(model), "%s", v);
			else if (!strncmp(line, "cpu family", 10))
				snprintf(family, sizeof(family), "%s", v);
			else if (!strncmp(line, "model\t", 6))
				snprintf(num, sizeof(num), "%s", v);
		}
		if (f)
			fclose(f);
		if (model[0])
			snprintf(clk.instr, sizeof(clk.instr),
				 "host, %.60s (family %.8s, model %.8s)",
				 model, family, num);
	} else {
		die("-c %s: tcg, icount or host", what);
	}
	snprintf(clk.name, sizeof(clk.name), "%s (%s)", clk.unit, clk.instr);
}

/*
 * -g FILE, under valgrind --tool=callgrind --collect-atstart=no
 * --compress-strings=no --compress-pos=no --callgrind-out-file=FILE: the
 * library's tests alone collect the instructions of the intervals they
 * time (rounds that count only), dump them to FILE.N (at the end of the
 * test, and at each expiry round's first delivery) and read them back.
 */
static const char *cg_file;
static unsigned int cg_dumps;
static bool cg_lib;		/* a library's test alone is running */
static bool cg_now;		/* and this round counts */
static unsigned long cg_ops;	/* operations (or events) collected */
static double cg_total;		/* instructions collected, dumps so far */
static double cg_before;	/* of which before a first delivery */
static struct {
	char name[64];		/* a library function called from here */
	double cost;		/* inclusive instructions of those calls */
} cg_fn[16];
static unsigned int cg_nfn;

/* The start or the end of a timed interval. */
static inline void cg_toggle(void)
{
	if (cg_now)
		CALLGRIND_TOGGLE_COLLECT;
}

/*
 * -g: dump what callgrind collected since the last dump and add it up:
 * all the instructions of the intervals timed (what icount counts of them
 * in the guest, less the kernel's), and per library function called from
 * this program, the instructions inside it (the library and the core it
 * runs, without the benchmark's loop). Returns the dump's total. In the
 * dump, written uncompressed, a call from the function after "fn=" (in
 * the file of the last "fl=") appears as "cfn=CALLEE", "calls=COUNT
 * TARGET" and "POSITION INCLUSIVE-COST".
 */
static double cg_dump(const char *what)
{
	bool ours = false, cost_next = false;
	char path[4096], line[4096], fl[4096] = "";
	double total = -1;
	unsigned int i;
	int want = -1;
	size_t len;
	FILE *f;
	char *p;

	CALLGRIND_DUMP_STATS_AT(what);
	snprintf(path, sizeof(path), "%s.%u", cg_file, ++cg_dumps);
	f = fopen(path, "r");
	if (!f)
		die("-g: %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (cost_next) {
			p = strrchr(line, ' ');
			if (want >= 0 && p)
				cg_fn[want].cost += strtod(p + 1, NULL);
			cost_next = false;
		} else if (!strncmp(line, "fl=", 3)) {
			memcpy(fl, line + 3, strlen(line + 3) + 1);
		} else if (!strncmp(line, "fn=", 3)) {
			len = strlen(fl);
			ours = len >= 12 && !strcmp(fl + len - 12, "wheelbench.c");
		} else if (!strncmp(line, "cfn=", 4)) {
			want = -1;
			if (!ours || strncmp(line + 4, "wheeltimer_", 11))
				continue;
			for (i = 0; i < cg_nfn && strcmp(cg_fn[i].name, line + 4); i++)
				;
			if (i == cg_nfn && cg_nfn < ARRAY_SIZE(cg_fn)) {
				snprintf(cg_fn[i].name, sizeof(cg_fn[i].name),
					 "%.63s", line + 4);
				cg_fn[i].cost = 0;
				cg_nfn++;
			}
			if (i < cg_nfn)
				want = i;
		} else if (!strncmp(line, "calls=", 6)) {
			cost_next = true;
		} else if (!strncmp(line, "totals:", 7)) {
			total = strtod(line + 7, NULL);
		}
	}
	fclose(f);
	if (total < 0)
		die("-g: %s: no totals", path);
	cg_total += total;
	return total;
}

/* -g: print what @test collected in all, per @per, and start afresh. */
static void cg_report(const char *test, const char *per)
{
	double lib = 0;
	unsigned int i;

	if (!cg_file)
		return;
	cg_dump(test);
	if (!cg_ops)
		die("-g: %s: nothing collected", test);
	for (i = 0; i < cg_nfn; i++)
		lib += cg_fn[i].cost;
	printf("## %s, instructions (callgrind) per %s: ", test, per);
	printf("%.0f in the timed intervals, %.0f in the library and core (%lu collected)\n",
	       cg_total / cg_ops, lib / cg_ops, cg_ops);
	if (cg_before)
		printf("##   of which before the first delivery: %.0f\n",
		       cg_before / cg_ops);
	for (i = 0; i < cg_nfn; i++)
		printf("##   %-28s %8.1f\n", cg_fn[i].name, cg_fn[i].cost / cg_ops);
	cg_ops = 0;
	cg_total = 0;
	cg_before = 0;
	cg_nfn = 0;
}

static __u64 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void sleep_ns(__u64 ns)
{
	struct timespec ts = {
		.tv_sec = ns / NSEC_PER_SEC,
		.tv_nsec = ns % NSEC_PER_SEC,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of memory for %zu x %zu bytes", n, size);
	/* Touch it now, so that it is not counted as kernel memory later. */
	memset(p, 0, n * size);
	return p;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_s64(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static __u64 median(__u64 *v, unsigned int n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* --- /proc ---------------------------------------------------------- */

static long long meminfo_kb(const char *field)
{
	char line[256];
	size_t len = strlen(field);
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, len) && line[len] == ':') {
			v = atoll(line + len + 1);
			break;
		}
	}
	fclose(f);
	return v;
}

/* Local timer interrupts, all CPUs: the system's timer wake-ups. */
static long long local_timer_irqs(void)
{
	char line[4096], *p, *end;
	long long sum = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = line;
		while (*p == ' ')
			p++;
		if (strncmp(p, "LOC:", 4))
			continue;
		p += 4;
		sum = 0;
		for (;;) {
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
		break;
	}
	fclose(f);
	return sum;
}

/* Wait until freed memory (RCU, io_uring's exit work) has come back. */
static void settle(void)
{
	long long prev = meminfo_kb("MemFree"), cur;
	int i;

	for (i = 0; i < 50; i++) {
		sleep_ns(100 * NSEC_PER_MSEC);
		cur = meminfo_kb("MemFree");
		if (llabs(cur - prev) < 256)
			break;
		prev = cur;
	}
}

/* --- the mechanisms ------------------------------------------------- */

static void fired_push(struct mech *m, __u64 cookie)
{
	if (m->nfired == m->fired_cap) {
		m->fired_cap = m->fired_cap ? 2 * m->fired_cap : 1024;
		m->fired = realloc(m->fired, m->fired_cap * sizeof(*m->fired));
		if (!m->fired)
			die("out of memory");
	}
	m->fired[m->nfired].cookie = cookie;
	m->fired[m->nfired].fired_at = 0;
	m->nfired++;
}

/* io_uring: take every completion there is, without waiting. */
static void uring_drain(struct mech *m)
{
	struct io_uring_cqe *cqes[256], *cqe;
	unsigned int n, i;

	while ((n = io_uring_peek_batch_cqe(&m->ring, cqes, ARRAY_SIZE(cqes)))) {
		for (i = 0; i < n; i++) {
			cqe = cqes[i];
			if (cqe->user_data & REMOVE_TAG) {
				if (cqe->res)
					m->errors++;
			} else if (cqe->res == -ETIME) {
				fired_push(m, cqe->user_data);
			} else if (cqe->res != -ECANCELED) {
				m->errors++;
			}
		}
		io_uring_cq_advance(&m->ring, n);
	}
}

static void uring_submit(struct mech *m)
{
	int ret;

	do {
		ret = io_uring_submit(&m->ring);
	} while (ret == -EINTR || ret == -EAGAIN || ret == -EBUSY);
	if (ret < 0)
		die("io_uring_submit: %s", strerror(-ret));
	uring_drain(m);
}

static void mech_open(struct mech *m)
{
	struct wheeltimer_params lp;
	struct io_uring_params p;
	struct wt_config c;
	struct rlimit rl;
	int ret;

	m->errors = 0;
	m->nfired = 0;
	switch (m->kind) {
	case WT:
		m->fd = open("/dev/wheeltimer", O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (m->fd < 0)
			die("open /dev/wheeltimer: %s", strerror(errno));
		memset(&c, 0, sizeof(c));
		c.resolution = m->resolution;
		c.max_pending = 4UL << 20;
		c.clockid = CLOCK_MONOTONIC;
		if (ioctl(m->fd, WT_IOC_SET_CONFIG, &c))
			die("WT_IOC_SET_CONFIG: %s", strerror(errno));
		if (!m->ops)
			m->ops = xcalloc(WT_BATCH_MAX, sizeof(*m->ops));
		if (!m->wtev)
			m->wtev = xcalloc(MAX_CHUNK, sizeof(*m->wtev));
		break;
	case TFD:
		m->fd = epoll_create1(EPOLL_CLOEXEC);
		if (m->fd < 0)
			die("epoll_create1: %s", strerror(errno));
		if (!m->cookie_of_fd) {
			if (getrlimit(RLIMIT_NOFILE, &rl))
				die("getrlimit: %s", strerror(errno));
			m->nfds = rl.rlim_cur;
			m->cookie_of_fd = xcalloc(m->nfds, sizeof(__u64));
			m->pool_cap = m->nfds;
			m->pool = xcalloc(m->pool_cap, sizeof(int));
		}
		m->npool = 0;
		break;
	case URING:
		/*
		 * io_uring at its cheapest for one thread: completions run as
		 * task work on the way back to userspace (no IPI). Older
		 * kernels lack the flags: plain setup then.
		 */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN |
			  IORING_SETUP_SINGLE_ISSUER;
		p.cq_entries = URING_CQ;
		ret = io_uring_queue_init_params(URING_SQ, &m->ring, &p);
		if (ret == -EINVAL) {
			memset(&p, 0, sizeof(p));
			p.flags = IORING_SETUP_CQSIZE;
			p.cq_entries = URING_CQ;
			ret = io_uring_queue_init_params(URING_SQ, &m->ring, &p);
		}
		if (ret)
			die("io_uring_queue_init: %s", strerror(-ret));
		if (!m->ts)
			m->ts = xcalloc(URING_SQ, sizeof(*m->ts));
		break;
	case LIB:
		/* As the raw file: 4 Mi timeouts (root may), the default queue. */
		wheeltimer_params_init(&lp);
		lp.engine = m->engine;
		lp.resolution_ns = m->resolution;
		lp.max_pending = 4UL << 20;
		ret = wheeltimer_open(&lp, &m->wt);
		if (ret)
			die("wheeltimer_open: %s", wheeltimer_strerror(ret));
		m->fd = wheeltimer_fd(m->wt);
		if (!m->lev)
			m->lev = xcalloc(MAX_CHUNK, sizeof(*m->lev));
		break;
	}
}

static void mech_close(struct mech *m)
{
	switch (m->kind) {
	case WT:
		close(m->fd);
		break;
	case TFD:
		while (m->npool)
			close(m->pool[--m->npool]);
		close(m->fd);
		break;
	case URING:
		io_uring_queue_exit(&m->ring);
		break;
	case LIB:
		wheeltimer_close(m->wt);
		m->wt = NULL;
		break;
	}
}

/* libwheeltimer: the loop iteration's one submit. */
static void lib_submit(struct mech *m)
{
	int ret = wheeltimer_submit(m->wt);

	if (ret < 0)
		die("wheeltimer_submit: %s", wheeltimer_strerror(ret));
}

/*
 * libwheeltimer: the adds @h[@from] to @h[@to - 1], just submitted, all
 * succeeded; else m->stop_err says why the first failed, for a failure
 * that means the engine is full, and the rest of the program dies.
 */
static bool lib_added(struct mech *m, const __u64 *h, unsigned long from,
		      unsigned long to)
{
	unsigned long i;
	int err;

	for (i = from; i < to; i++) {
		err = wheeltimer_error(m->wt, h[i]);
		if (!err)
			continue;
		if (err != -ENOSPC && err != -ENOMEM)
			die("%s: add: %s", m->name, wheeltimer_strerror(err));
		m->stop_err = -err;
		return false;
	}
	return true;
}

/* Close every pending timerfd among @h (they are not in the pool). */
static void tfd_close_pending(const __u64 *h, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		close((int)h[i]);
}

static int tfd_get(struct mech *m)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd;

	if (m->npool && !m->fd_per_timeout)
		return m->pool[--m->npool];
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if ((unsigned long)fd >= m->nfds) {
		close(fd);
		return -EMFILE;
	}
	ev.data.u64 = fd;
	if (epoll_ctl(m->fd, EPOLL_CTL_ADD, fd, &ev)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static void tfd_put(struct mech *m, int fd)
{
	if (m->fd_per_timeout)
		close(fd);
	else
		m->pool[m->npool++] = fd;
}

static void wt_batch_call(struct mech *m, unsigned int n)
{
	struct wt_batch b = { .ops = (__u64)(unsigned long)m->ops, .count = n };
	int ret;

	if (n == 1) {
		unsigned long cmd = m->ops[0].op == WT_OP_ADD ? WT_IOC_ADD :
				    WT_IOC_CANCEL;

		ret = ioctl(m->fd, cmd, &m->ops[0]);
		if (ret && !m->ops[0].error)
			die("wheeltimer ioctl: %s", strerror(errno));
		return;
	}
	ret = ioctl(m->fd, WT_IOC_BATCH, &b);
	if (ret < 0)
		die("WT_IOC_BATCH: %s", strerror(errno));
}

/*
 * Arm @n timeouts at the absolute CLOCK_MONOTONIC deadlines @dl with the
 * cookies @ck, m->batch per system call; their handles go to @h. Returns
 * how many were armed: fewer only when the mechanism ran out of room
 * (descriptors, memory, max_pending).
 */
static unsigned long mech_arm(struct mech *m, unsigned long n, const __u64 *dl,
			      const __u64 *ck, __u64 *h)
{
	struct itimerspec its = { 0 };
	unsigned long i = 0, done = 0, j, k;
	struct io_uring_sqe *sqe;
	uint64_t handle;
	unsigned int c;
	int fd, ret;

	switch (m->kind) {
	case WT:
		while (i < n) {
			c = n - i < m->batch ? n - i : m->batch;
			for (j = 0; j < c; j++) {
				memset(&m->ops[j], 0, sizeof(m->ops[j]));
				m->ops[j].op = WT_OP_ADD;
				m->ops[j].flags = WT_ABSTIME;
				m->ops[j].deadline = dl[i + j];
				m->ops[j].cookie = ck[i + j];
			}
			wt_batch_call(m, c);
			for (j = 0, k = 0; j < c; j++) {
				if (m->ops[j].status == WT_STATUS_ADDED) {
					h[done++] = m->ops[j].id;
					k++;
				} else if (m->ops[j].error != ENOSPC &&
					   m->ops[j].error != ENOMEM) {
					die("WT_OP_ADD: %s",
					    strerror(m->ops[j].error));
				}
			}
			if (k < c) {
				m->stop_err = ENOSPC;
				for (j = 0; j < c; j++)
					if (m->ops[j].error)
						m->stop_err = m->ops[j].error;
				return done;
			}
			i += c;
		}
		return done;
	case TFD:
		for (i = 0; i < n; i++) {
			fd = tfd_get(m);
			if (fd == -EMFILE || fd == -ENFILE || fd == -ENOMEM ||
			    fd == -ENOSPC) {
				m->stop_err = -fd;
				return i;
			}
			if (fd < 0)
				die("timerfd: %s", strerror(-fd));
			its.it_value.tv_sec = dl[i] / NSEC_PER_SEC;
			its.it_value.tv_nsec = dl[i] % NSEC_PER_SEC;
			m->cookie_of_fd[fd] = ck[i];
			if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
				die("timerfd_settime: %s", strerror(errno));
			h[i] = fd;
		}
		return n;
	case URING:
		for (i = 0; i < n; i++) {
			c = i % m->batch;
			m->ts[c].tv_sec = dl[i] / NSEC_PER_SEC;
			m->ts[c].tv_nsec = dl[i] % NSEC_PER_SEC;
			sqe = io_uring_get_sqe(&m->ring);
			if (!sqe)
				die("io_uring: no SQE");
			io_uring_prep_timeout(sqe, &m->ts[c], 0,
					      IORING_TIMEOUT_ABS);
			io_uring_sqe_set_data64(sqe, ck[i]);
			h[i] = ck[i];
			if (c == m->batch - 1 || i == n - 1)
				uring_submit(m);
		}
		return n;
	case LIB:
		/* m->batch operations per loop iteration, one submit each. */
		for (i = 0; i < n; i++) {
			ret = wheeltimer_add(m->wt, dl[i], 0, WHEELTIMER_ABSTIME,
					     ck[i], &handle);
			h[i] = handle;
			if (ret)
				die("wheeltimer_add: %s", wheeltimer_strerror(ret));
			if ((i + 1) % m->batch && i != n - 1)
				continue;
			lib_submit(m);
			if (!lib_added(m, h, done, i + 1))
				return done;
			done = i + 1;
		}
		return n;
	}
	return 0;
}

/* Cancel the @n pending timeouts @h, m->batch per system call. */
static void mech_cancel(struct mech *m, unsigned long n, const __u64 *h)
{
	struct itimerspec its = { 0 };
	unsigned long i = 0, j;
	struct io_uring_sqe *sqe;
	unsigned int c;

	switch (m->kind) {
	case WT:
		while (i < n) {
			c = n - i < m->batch ? n - i : m->batch;
			for (j = 0; j < c; j++) {
				memset(&m->ops[j], 0, sizeof(m->ops[j]));
				m->ops[j].op = WT_OP_CANCEL;
				m->ops[j].id = h[i + j];
			}
			wt_batch_call(m, c);
			for (j = 0; j < c; j++)
				if (m->ops[j].status != WT_STATUS_PENDING)
					m->errors++;
			i += c;
		}
		break;
	case TFD:
		for (i = 0; i < n; i++) {
			if (!m->fd_per_timeout &&
			    timerfd_settime((int)h[i], 0, &its, NULL))
				die("timerfd_settime: %s", strerror(errno));
			tfd_put(m, (int)h[i]);
		}
		break;
	case URING:
		for (i = 0; i < n; i++) {
			sqe = io_uring_get_sqe(&m->ring);
			if (!sqe)
				die("io_uring: no SQE");
			io_uring_prep_timeout_remove(sqe, h[i], 0);
			io_uring_sqe_set_data64(sqe, h[i] | REMOVE_TAG);
			if (i % m->batch == m->batch - 1 || i == n - 1)
				uring_submit(m);
		}
		break;
	case LIB:
		for (i = 0; i < n; i++) {
			if (wheeltimer_cancel(m->wt, h[i], 0))
				m->errors++;
			if ((i + 1) % m->batch == 0 || i == n - 1)
				lib_submit(m);
		}
		break;
	}
}

/*
 * Move the @n pending timeouts @h to the deadlines @dl, m->batch per
 * system call: WT_OP_MODIFY, timerfd_settime(), IORING_OP_TIMEOUT_REMOVE
 * with IORING_TIMEOUT_UPDATE.
 */
static void mech_modify(struct mech *m, unsigned long n, const __u64 *h,
			const __u64 *dl)
{
	struct itimerspec its = { 0 };
	unsigned long i = 0, j;
	struct io_uring_sqe *sqe;
	unsigned int c;

	switch (m->kind) {
	case WT:
		while (i < n) {
			c = n - i < m->batch ? n - i : m->batch;
			for (j = 0; j < c; j++) {
				memset(&m->ops[j], 0, sizeof(m->ops[j]));
				m->ops[j].op = WT_OP_MODIFY;
				m->ops[j].flags = WT_ABSTIME;
				m->ops[j].id = h[i + j];
				m->ops[j].deadline = dl[i + j];
			}
			if (c == 1) {
				if (ioctl(m->fd, WT_IOC_MODIFY, &m->ops[0]) &&
				    !m->ops[0].error)
					die("WT_IOC_MODIFY: %s", strerror(errno));
			} else {
				wt_batch_call(m, c);
			}
			for (j = 0; j < c; j++)
				if (m->ops[j].status != WT_STATUS_PENDING)
					m->errors++;
			i += c;
		}
		break;
	case TFD:
		for (i = 0; i < n; i++) {
			its.it_value.tv_sec = dl[i] / NSEC_PER_SEC;
			its.it_value.tv_nsec = dl[i] % NSEC_PER_SEC;
			if (timerfd_settime((int)h[i], TFD_TIMER_ABSTIME, &its,
					    NULL))
				die("timerfd_settime: %s", strerror(errno));
		}
		break;
	case URING:
		for (i = 0; i < n; i++) {
			c = i % m->batch;
			m->ts[c].tv_sec = dl[i] / NSEC_PER_SEC;
			m->ts[c].tv_nsec = dl[i] % NSEC_PER_SEC;
			sqe = io_uring_get_sqe(&m->ring);
			if (!sqe)
				die("io_uring: no SQE");
			io_uring_prep_timeout_update(sqe, &m->ts[c], h[i],
						     IORING_TIMEOUT_ABS);
			io_uring_sqe_set_data64(sqe, h[i] | REMOVE_TAG);
			if (c == m->batch - 1 || i == n - 1)
				uring_submit(m);
		}
		break;
	case LIB:
		for (i = 0; i < n; i++) {
			if (wheeltimer_modify(m->wt, h[i], dl[i], 0,
					      WHEELTIMER_ABSTIME))
				m->errors++;
			if ((i + 1) % m->batch == 0 || i == n - 1)
				lib_submit(m);
		}
		break;
	}
}

/* Wait up to @timeout_ms for expiries; returns how many were put in @ev. */
static unsigned int mech_reap(struct mech *m, struct ev *ev, unsigned int max,
			      int timeout_ms)
{
	struct epoll_event eev[MAX_CHUNK];
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;
	struct pollfd pfd;
	unsigned int n = 0, i;
	ssize_t len;
	__u64 buf;
	int ret, fd;

	if (max > MAX_CHUNK)
		max = MAX_CHUNK;
	switch (m->kind) {
	case WT:
		pfd.fd = m->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, timeout_ms) <= 0)
			return 0;
		len = read(m->fd, m->wtev, max * sizeof(*m->wtev));
		if (len < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			die("read /dev/wheeltimer: %s", strerror(errno));
		}
		n = len / sizeof(*m->wtev);
		for (i = 0; i < n; i++) {
			ev[i].cookie = m->wtev[i].cookie;
			ev[i].fired_at = m->wtev[i].fired_at;
		}
		return n;
	case TFD:
		ret = epoll_wait(m->fd, eev, max, timeout_ms);
		if (ret < 0) {
			if (errno == EINTR)
				return 0;
			die("epoll_wait: %s", strerror(errno));
		}
		for (i = 0; i < (unsigned int)ret; i++) {
			fd = (int)eev[i].data.u64;
			if (read(fd, &buf, sizeof(buf)) != sizeof(buf))
				continue;
			ev[n].cookie = m->cookie_of_fd[fd];
			ev[n].fired_at = 0;
			n++;
			tfd_put(m, fd);
		}
		return n;
	case URING:
		if (!m->nfired) {
			ts.tv_sec = timeout_ms / 1000;
			ts.tv_nsec = (timeout_ms % 1000) * NSEC_PER_MSEC;
			ret = io_uring_wait_cqe_timeout(&m->ring, &cqe, &ts);
			if (ret && ret != -ETIME && ret != -EINTR)
				die("io_uring_wait_cqe: %s", strerror(-ret));
			uring_drain(m);
		}
		n = m->nfired < max ? m->nfired : max;
		for (i = 0; i < n; i++)
			ev[i] = m->fired[i];
		memmove(m->fired, m->fired + n,
			(m->nfired - n) * sizeof(*m->fired));
		m->nfired -= n;
		return n;
	case LIB:
		/* Records may wait in the library: poll only when none came. */
		ret = wheeltimer_reap(m->wt, m->lev, max);
		if (!ret) {
			pfd.fd = m->fd;
			pfd.events = POLLIN;
			if (poll(&pfd, 1, timeout_ms) <= 0)
				return 0;
			ret = wheeltimer_reap(m->wt, m->lev, max);
		}
		if (ret < 0)
			die("wheeltimer_reap: %s", wheeltimer_strerror(ret));
		for (i = 0; i < (unsigned int)ret; i++) {
			if (m->lev[i].flags & (WHEELTIMER_EV_ADD |
					       WHEELTIMER_EV_MODIFY |
					       WHEELTIMER_EV_CANCEL)) {
				m->errors++;
				continue;
			}
			ev[n].cookie = m->lev[i].cookie;
			ev[n].fired_at = m->lev[i].fired_at;
			n++;
		}
		return n;
	}
	return 0;
}

/* --- the variants ---------------------------------------------------- */

#define MS_WT(n, b)	{ .name = n, .kind = WT, .batch = b, \
			  .resolution = WT_RESOLUTION_DEFAULT }
#define MS_URING(n, b)	{ .name = n, .kind = URING, .batch = b }
#define MS_LIB(n, e)	{ .name = n, .kind = LIB, .batch = 64, .engine = e, \
			  .resolution = WT_RESOLUTION_DEFAULT }
#define MS_LIBK		MS_LIB("lib-kernel/64", WHEELTIMER_ENGINE_KERNEL)
#define MS_LIBP		MS_LIB("lib-process/64", WHEELTIMER_ENGINE_PROCESS)

static struct mech churn_mechs[] = {
	MS_WT("wheeltimer/1", 1),
	MS_WT("wheeltimer/64", 64),
	MS_WT("wheeltimer/1024", 1024),
	{ .name = "timerfd", .kind = TFD, .batch = 1 },
	{ .name = "timerfd-open", .kind = TFD, .batch = 1,
	  .fd_per_timeout = true },
	MS_URING("io_uring/1", 1),
	MS_URING("io_uring/64", 64),
	MS_URING("io_uring/1024", 1024),
	MS_LIBK,
	MS_LIBP,
};

static struct mech scale_mechs[] = {
	MS_WT("wheeltimer/1", 1),
	MS_WT("wheeltimer/64", 64),
	MS_WT("wheeltimer/1024", 1024),
	{ .name = "timerfd", .kind = TFD, .batch = 1 },
	MS_URING("io_uring/1", 1),
	MS_URING("io_uring/64", 64),
	MS_LIBK,
	MS_LIBP,
};

static struct mech expiry_mechs[] = {
	MS_WT("wheeltimer", 1024),
	{ .name = "timerfd", .kind = TFD, .batch = 1 },
	MS_URING("io_uring", 1024),
	MS_LIB("lib-kernel", WHEELTIMER_ENGINE_KERNEL),
	MS_LIB("lib-process", WHEELTIMER_ENGINE_PROCESS),
};

static struct mech late_mechs[] = {
	MS_WT("wheeltimer", 1024),
	{ .name = "wheeltimer-100us", .kind = WT, .batch = 1024,
	  .resolution = 100 * NSEC_PER_USEC },
	{ .name = "timerfd", .kind = TFD, .batch = 1 },
	MS_URING("io_uring", 1024),
};

/* The CSV's name, then its column names, then NULL. */
static void csv_begin(const char *name, ...)
{
	const char *col, *sep = "";
	va_list ap;

	printf("=== wheelbench csv %s begin\n", name);
	va_start(ap, name);
	while ((col = va_arg(ap, const char *))) {
		printf("%s%s", sep, col);
		sep = ",";
	}
	va_end(ap);
	printf("\n");
}

static void csv_end(const char *name)
{
	printf("=== wheelbench csv %s end\n", name);
	fflush(stdout);
}

static const struct mech *find_mech(const struct mech *v, unsigned int n,
				    const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	die("no mechanism %s", name);
	return NULL;
}

/* --- churn and scale ------------------------------------------------- */

#define MAX_ROUNDS	31

/* Per-round figures of one mechanism, ns per timeout. */
struct rounds {
	__u64 arm[MAX_ROUNDS];
	__u64 cancel[MAX_ROUNDS];
	__u64 total[MAX_ROUNDS];
	unsigned int n;
	unsigned long ops;	/* arm+cancel pairs timed, all rounds */
};

struct churn_result {
	__u64 arm;		/* ns per timeout, medians of the rounds */
	__u64 cancel;
	__u64 total;
	unsigned long ops;
};

/* The timeouts one mechanism holds while it churns, or none. */
struct held {
	__u64 *pend;
	unsigned long npend;
	unsigned long next;	/* the oldest, when @fifo */
	bool fifo;
};

/*
 * One chunk of arm + cancel: arm @chunk new timeouts (1 to 61 s away, or
 * an hour away if @far) and cancel as many pending ones: random ones of
 * @held, whose places the new ones take, or the new ones themselves when
 * none are held. With @held->fifo the victims are the oldest instead, as
 * when requests are answered in the order they were sent (@pend must then
 * be in the order the timeouts were armed, from @held->next on). Adds the
 * time each half took to *@ta and *@tc.
 */
static void churn_chunk(struct mech *m, struct held *held, unsigned int chunk,
			bool far, __u64 *ta, __u64 *tc)
{
	__u64 dl[MAX_CHUNK], ck[MAX_CHUNK], h[MAX_CHUNK], victim[MAX_CHUNK];
	static __u64 seq = 1ULL << 40;
	__u64 t0, t1, t2, base;
	unsigned long idx;
	unsigned int j;

	t0 = now_ns();
	base = t0 + (far ? HOUR_NS : NSEC_PER_SEC);
	for (j = 0; j < chunk; j++) {
		dl[j] = base + rnd() % (60 * NSEC_PER_SEC);
		ck[j] = seq++;
	}
	t0 = now_ns();
	cg_toggle();
	if (mech_arm(m, chunk, dl, ck, h) != chunk)
		die("%s: arming failed", m->name);
	cg_toggle();
	t1 = now_ns();
	cg_toggle();
	if (held && held->npend) {
		for (j = 0; j < chunk; j++) {
			if (held->fifo) {
				idx = held->next;
				held->next = (idx + 1) % held->npend;
			} else {
				idx = rnd() % held->npend;
			}
			victim[j] = held->pend[idx];
			held->pend[idx] = h[j];
		}
		mech_cancel(m, chunk, victim);
	} else {
		mech_cancel(m, chunk, h);
	}
	cg_toggle();
	t2 = now_ns();
	if (cg_now)
		cg_ops += chunk;
	*ta += t1 - t0 - clock_cost;
	*tc += t2 - t1 - clock_cost;
}

/*
 * Let the kernel finish what the last mechanism left it to do later (RCU
 * callbacks, freeing, work items) before the next one is measured: it
 * runs while this process sleeps, which under icount costs no time.
 */
static void quiesce(void)
{
	sleep_ns(50 * NSEC_PER_MSEC);
}

/*
 * Rounds of churn for @n mechanisms at once: within a round they take
 * turns chunk by chunk, so that whatever else the machine does in the
 * meantime falls on all of them alike; a round ends after @cap seconds
 * (at least one chunk each). Round 0 only warms up. Per-round figures go
 * to @r and, as CSV rows, to stdout.
 */
static void churn_turns(struct mech *mv, unsigned int n, struct held *held,
			unsigned int min_chunk, bool far, struct rounds *r,
			unsigned long level, const char *pattern, double cap)
{
	__u64 ta[16], tc[16], start;
	unsigned long done[16];
	unsigned int round, k, chunk;
	struct mech *m;

	if (n > ARRAY_SIZE(ta))
		die("too many mechanisms");
	for (round = 0; round <= cfg.rounds; round++) {
		memset(ta, 0, sizeof(ta));
		memset(tc, 0, sizeof(tc));
		memset(done, 0, sizeof(done));
		cg_now = cg_lib && round;
		start = now_ns();
		do {
			for (k = 0; k < n; k++) {
				m = &mv[k];
				if (held && !held[k].npend)
					continue;
				chunk = m->batch > min_chunk ? m->batch : min_chunk;
				churn_chunk(m, held ? &held[k] : NULL, chunk,
					    far, &ta[k], &tc[k]);
				done[k] += chunk;
			}
		} while (now_ns() - start < cap * NSEC_PER_SEC);
		cg_now = false;
		if (!round)
			continue;
		for (k = 0; k < n; k++) {
			if (!done[k] || r[k].n >= MAX_ROUNDS)
				continue;
			r[k].arm[r[k].n] = ta[k] / done[k];
			r[k].cancel[r[k].n] = tc[k] / done[k];
			r[k].total[r[k].n] = (ta[k] + tc[k]) / done[k];
			printf("%s,%s,%lu,%u,%llu,%llu,%llu,%lu\n", mv[k].name,
			       pattern, level, round, r[k].arm[r[k].n],
			       r[k].cancel[r[k].n], r[k].total[r[k].n],
			       done[k]);
			r[k].n++;
			r[k].ops += done[k];
		}
	}
}

/*
 * Rounds of churn for @n mechanisms, taking turns; or, under icount
 * (cfg.one_by_one), one mechanism after the other, each for its share of
 * the round's length: nothing on the host can fall on a mechanism there,
 * while taking turns lets what one mechanism leaves the kernel to do
 * later (freeing a file through RCU, say) fall on the next one.
 */
static void churn_rounds(struct mech *mv, unsigned int n, struct held *held,
			 unsigned int min_chunk, bool far, struct rounds *r,
			 unsigned long level, const char *pattern)
{
	unsigned int k;

	if (!cfg.one_by_one || n == 1) {
		churn_turns(mv, n, held, min_chunk, far, r, level, pattern,
			    cfg.round_cap_sec);
		return;
	}
	for (k = 0; k < n; k++) {
		quiesce();
		churn_turns(mv + k, 1, held ? held + k : NULL, min_chunk, far,
			    r + k, level, pattern, cfg.round_cap_sec / n);
	}
}

static struct churn_result rounds_median(struct mech *m, struct rounds *r)
{
	struct churn_result c;

	c.arm = median(r->arm, r->n);
	c.cancel = median(r->cancel, r->n);
	c.total = median(r->total, r->n);
	c.ops = r->ops;
	if (m->errors) {
		printf("# %s: %ld cancels did not find their timeout\n",
		       m->name, m->errors);
		sanity_failures++;
	}
	return c;
}

static void ratio_str(char *buf, size_t len, __u64 x, __u64 base)
{
	if (!x || !base)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2fx", (double)x / base);
}

static struct churn_result churn_res[ARRAY_SIZE(churn_mechs)];

/*
 * The floor of a system call, which a submission ring shared with the
 * kernel would not pay per batch: getppid() (entry and exit alone) and an
 * empty WT_IOC_BATCH (with the ioctl's dispatch, the LSM's file_ioctl hook
 * and the copy of struct wt_batch, but no lock and no operation).
 */
static __u64 floor_getppid, floor_ioctl;

static void syscall_floor(int fd)
{
	__u64 vp[MAX_ROUNDS], vi[MAX_ROUNDS], t0, t1, t2;
	struct wt_batch b = { 0 };
	const unsigned int calls = cfg.quick ? 2000 : 20000;
	unsigned int round, i;

	for (round = 0; round <= cfg.rounds && round < MAX_ROUNDS; round++) {
		t0 = now_ns();
		for (i = 0; i < calls; i++)
			getppid();
		t1 = now_ns();
		for (i = 0; i < calls; i++)
			if (ioctl(fd, WT_IOC_BATCH, &b))
				die("empty WT_IOC_BATCH: %s", strerror(errno));
		t2 = now_ns();
		/* Round 0 warms up. */
		if (!round)
			continue;
		vp[round - 1] = (t1 - t0 - clock_cost) / calls;
		vi[round - 1] = (t2 - t1 - clock_cost) / calls;
	}
	floor_getppid = median(vp, round - 1);
	floor_ioctl = median(vi, round - 1);
	printf("\n## the floor of a system call (%s per call, median of %u rounds)\n",
	       clk.name, round - 1);
	csv_begin("syscall", "call", "ns", NULL);
	printf("getppid,%llu\nempty_wt_ioc_batch,%llu\n", floor_getppid,
	       floor_ioctl);
	csv_end("syscall");
	printf("getppid() %llu %s, an empty WT_IOC_BATCH %llu %s\n",
	       floor_getppid, clk.unit, floor_ioctl, clk.unit);
}

static void churn_lib_section(void);

static void test_churn(void)
{
	static struct rounds rr[ARRAY_SIZE(churn_mechs)];
	const unsigned int n = ARRAY_SIZE(churn_mechs);
	char r1[32], r64[32], r1k[32];
	unsigned int i;
	struct mech *m;

	/* All open at once, taking turns: noise hits all alike. */
	for (i = 0; i < n; i++)
		mech_open(&churn_mechs[i]);
	csv_begin("churn_raw", "mechanism", "pattern", "pending", "round",
		  "arm_ns", "cancel_ns", "arm_cancel_ns", "ops", NULL);
	churn_rounds(churn_mechs, n, NULL, 64, false, rr, 0, "own");
	csv_end("churn_raw");
	syscall_floor(churn_mechs[0].fd);
	for (i = 0; i < n; i++) {
		churn_res[i] = rounds_median(&churn_mechs[i], &rr[i]);
		mech_close(&churn_mechs[i]);
	}

	printf("\n## churn: arm + cancel, none pending (%s per timeout, median of %u rounds)\n",
	       clk.name, cfg.rounds);
	csv_begin("churn", "mechanism", "batch", "arm_ns", "cancel_ns",
		  "arm_cancel_ns", "ratio_wt1", "ratio_wt64", "ratio_wt1024",
		  "ops", NULL);
	for (i = 0; i < n; i++) {
		m = &churn_mechs[i];
		printf("%s,%u,%llu,%llu,%llu,%.3f,%.3f,%.3f,%lu\n", m->name,
		       m->batch, churn_res[i].arm, churn_res[i].cancel,
		       churn_res[i].total,
		       (double)churn_res[i].total / churn_res[0].total,
		       (double)churn_res[i].total / churn_res[1].total,
		       (double)churn_res[i].total / churn_res[2].total,
		       churn_res[i].ops);
	}
	csv_end("churn");
	printf("%-16s %6s %10s %10s %12s %8s %8s %9s\n", "mechanism", "batch",
	       "arm", "cancel", "arm+cancel", "x wt/1", "x wt/64", "x wt/1024");
	for (i = 0; i < n; i++) {
		m = &churn_mechs[i];
		ratio_str(r1, sizeof(r1), churn_res[i].total, churn_res[0].total);
		ratio_str(r64, sizeof(r64), churn_res[i].total, churn_res[1].total);
		ratio_str(r1k, sizeof(r1k), churn_res[i].total, churn_res[2].total);
		printf("%-16s %6u %10llu %10llu %12llu %8s %8s %9s\n", m->name,
		       m->batch, churn_res[i].arm, churn_res[i].cancel,
		       churn_res[i].total, r1, r64, r1k);
	}
	fflush(stdout);
	churn_lib_section();
}

/*
 * What the system calls cost of each wheeltimer arm + cancel: two calls
 * per batch of @batch timeouts (one to arm, one to cancel), each at least
 * the empty WT_IOC_BATCH, as a share of @total ns per timeout.
 */
static double syscall_share(unsigned int batch, __u64 total)
{
	return total ? 2.0 * floor_ioctl / batch / total : 0;
}

/*
 * libwheeltimer's kernel engine against its in-process engine, per arm +
 * cancel; and what a shared submission ring would take off the kernel
 * engine at most: the floor of its two system calls per 64 timeouts.
 */
static void churn_lib_section(void)
{
	const unsigned int n = ARRAY_SIZE(churn_mechs);
	const struct mech *k = find_mech(churn_mechs, n, "lib-kernel/64");
	const struct mech *p = find_mech(churn_mechs, n, "lib-process/64");
	__u64 kt = churn_res[k - churn_mechs].total;
	__u64 pt = churn_res[p - churn_mechs].total;
	double sys = 2.0 * floor_ioctl / k->batch;
	unsigned int i;

	printf("\n## the system calls' share of wheeltimer's arm + cancel, %s (2 calls\n"
	       "## per batch, each at least an empty WT_IOC_BATCH, %llu)\n",
	       clk.name, floor_ioctl);
	csv_begin("syscall_share", "mechanism", "batch", "arm_cancel_ns",
		  "syscall_floor_ns", "share", NULL);
	for (i = 0; i < n; i++) {
		const struct mech *m = &churn_mechs[i];

		if (m->kind != WT && !(m->kind == LIB &&
				       m->engine == WHEELTIMER_ENGINE_KERNEL))
			continue;
		printf("%s,%u,%llu,%.1f,%.3f\n", m->name, m->batch,
		       churn_res[i].total, 2.0 * floor_ioctl / m->batch,
		       syscall_share(m->batch, churn_res[i].total));
	}
	csv_end("syscall_share");
	for (i = 0; i < n; i++) {
		const struct mech *m = &churn_mechs[i];

		if (m->kind != WT && !(m->kind == LIB &&
				       m->engine == WHEELTIMER_ENGINE_KERNEL))
			continue;
		printf("%-16s %6u %10llu, of which system calls >= %7.1f (%4.1f%%)\n",
		       m->name, m->batch, churn_res[i].total,
		       2.0 * floor_ioctl / m->batch,
		       100 * syscall_share(m->batch, churn_res[i].total));
	}
	printf("\n## libwheeltimer: kernel engine / in-process engine, arm + cancel, %s\n",
	       clk.name);
	csv_begin("lib_churn", "kernel_ns", "process_ns", "ratio",
		  "kernel_without_syscall_floor_ns", "ratio_without", NULL);
	printf("%llu,%llu,%.3f,%.1f,%.3f\n", kt, pt, pt ? (double)kt / pt : 0,
	       kt - sys, pt ? (kt - sys) / pt : 0);
	csv_end("lib_churn");
	printf("lib-kernel/64 %llu, lib-process/64 %llu: %.2fx;\n"
	       "less the system calls' floor (what a shared ring saves of them): %.1f, %.2fx\n",
	       kt, pt, pt ? (double)kt / pt : 0, kt - sys, pt ? (kt - sys) / pt : 0);
	fflush(stdout);
}

struct scale_result {
	unsigned long pending;	/* reached: may be short of the level */
	const char *stopped;	/* why it fell short, or NULL */
	struct churn_result c;	/* cancelling random pending ones */
	struct churn_result fifo; /* cancelling the oldest */
	__u64 build_ns;		/* per timeout, building the pending set */
	double slab_b;		/* Slab bytes per pending timeout */
	double mem_b;		/* MemFree bytes per pending timeout */
	double idle_programs;	/* per second; -1 if not measured */
	double idle_wakeups;	/* of a poller, per second; -1 if not measured */
	double idle_irqs;
};

static struct scale_result scale_res[MAX_LEVELS][ARRAY_SIZE(scale_mechs)];
static double idle_base_irqs;

/* Timer programs of a wheeltimer mechanism: the hrtimer's, or the timerfd's. */
static long long idle_programs(struct mech *m)
{
	struct wheeltimer_stats st;
	char path[64];
	int ret;

	if (m->kind == LIB) {
		ret = wheeltimer_stats(m->wt, &st);
	} else {
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", m->fd);
		ret = wheeltimer_fdinfo_stats(path, &st);
	}
	if (ret || !(st.present & WHEELTIMER_STAT_TIMER_PROGRAMS))
		return -1;
	return st.timer_programs;
}

/*
 * Poll @m's descriptor until @end, as an idle event loop does; returns how
 * often it woke up. A wake-up reaps what there is (nothing is due).
 */
static long long idle_poll(struct mech *m, __u64 end)
{
	struct pollfd pfd = { .fd = m->fd, .events = POLLIN };
	struct wt_event wev[16];
	long long wakeups = 0;
	__u64 t;
	int ret;

	while ((t = now_ns()) < end) {
		ret = poll(&pfd, 1, (int)((end - t + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC));
		if (ret <= 0)
			continue;
		wakeups++;
		if (m->kind == LIB)
			ret = wheeltimer_reap(m->wt, m->lev, MAX_CHUNK);
		else
			ret = read(m->fd, wev, sizeof(wev)) > 0;
		if (ret > 0)
			die("%s: a record while idle", m->name);
	}
	return wakeups;
}

static void idle_measure(struct mech *m, struct scale_result *r)
{
	long long p0 = -1, p1 = -1, w = -1, i0, i1;
	bool wheel = m && (m->kind == WT || m->kind == LIB);
	__u64 t0, t1;

	if (wheel)
		p0 = idle_programs(m);
	i0 = local_timer_irqs();
	t0 = now_ns();
	if (wheel)
		w = idle_poll(m, t0 + cfg.idle_sec * NSEC_PER_SEC);
	else
		sleep_ns(cfg.idle_sec * NSEC_PER_SEC);
	t1 = now_ns();
	i1 = local_timer_irqs();
	if (wheel)
		p1 = idle_programs(m);
	r->idle_programs = p0 < 0 || p1 < 0 ? -1 :
			   (double)(p1 - p0) * NSEC_PER_SEC / (t1 - t0);
	r->idle_wakeups = w < 0 ? -1 : (double)w * NSEC_PER_SEC / (t1 - t0);
	r->idle_irqs = (double)(i1 - i0) * NSEC_PER_SEC / (t1 - t0);
}

/*
 * Build @want timeouts an hour away (spread over a minute) in @pend, as
 * fast as the mechanism can: in batches of 1024 where it may. Returns how
 * many it holds, and says in r->stopped why, if that is fewer.
 */
static unsigned long scale_build(struct mech *m, unsigned long want,
				 __u64 *pend, __u64 *dl, __u64 *ck,
				 struct scale_result *r)
{
	unsigned int batch = m->batch;
	unsigned long i, got = 0, step;
	__u64 t0, t1;

	t0 = now_ns();
	for (i = 0; i < want; i++) {
		dl[i] = t0 + HOUR_NS + rnd() % (60 * NSEC_PER_SEC);
		ck[i] = i;
	}
	m->batch = m->kind == TFD ? 1 : 1024;
	while (got < want) {
		step = want - got < 16384 ? want - got : 16384;
		i = mech_arm(m, step, dl + got, ck + got, pend + got);
		got += i;
		if (i < step) {
			r->stopped = strerror(m->stop_err);
			break;
		}
		if (now_ns() - t0 > cfg.build_cap_sec * NSEC_PER_SEC &&
		    got < want) {
			r->stopped = "time budget";
			break;
		}
	}
	t1 = now_ns();
	m->batch = batch;
	r->build_ns = got ? (t1 - t0) / got : 0;
	printf("# scale %s: %lu pending%s%s, built in %.1f s\n", m->name, got,
	       r->stopped ? ", stopped: " : "", r->stopped ? r->stopped : "",
	       (double)(t1 - t0) / NSEC_PER_SEC);
	return got;
}

/*
 * Each timerfd in an epoll set is one of the user's epoll watches, which
 * fs.epoll.max_user_watches bounds (4% of low memory by default): say
 * where that would stop timerfd, then raise it so that only the
 * descriptor limit does, as on a machine tuned for it.
 */
static void epoll_watches(unsigned long want)
{
	const char *path = "/proc/sys/fs/epoll/max_user_watches";
	unsigned long cur = 0;
	FILE *f = fopen(path, "r");

	if (!f || fscanf(f, "%lu", &cur) != 1)
		cur = 0;
	if (f)
		fclose(f);
	if (cur >= want)
		return;
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%lu\n", want);
		if (fclose(f))
			f = NULL;
	}
	printf("# fs.epoll.max_user_watches: %lu (timerfd + epoll stops there); %s %lu\n",
	       cur, f ? "raised to" : "could not raise it to", want);
}

/* libwheeltimer's kernel engine / its in-process engine, at each level. */
static void lib_scale_section(void)
{
	const unsigned int n = ARRAY_SIZE(scale_mechs);
	unsigned int k = find_mech(scale_mechs, n, "lib-kernel/64") - scale_mechs;
	unsigned int p = find_mech(scale_mechs, n, "lib-process/64") - scale_mechs;
	const struct scale_result *rk, *rp;
	unsigned int l;

	printf("\n## libwheeltimer: kernel engine / in-process engine, %s (%s per timeout;\n"
	       "## kernel memory in bytes per pending timeout)\n",
	       "arm + cancel with N pending", clk.name);
	csv_begin("lib_scale", "level", "pending_kernel", "pending_process",
		  "fifo_kernel_ns", "fifo_process_ns", "fifo_ratio",
		  "random_kernel_ns", "random_process_ns", "random_ratio",
		  "mem_kernel_bytes", "mem_process_bytes", NULL);
	for (l = 0; l < cfg.nlevels; l++) {
		rk = &scale_res[l][k];
		rp = &scale_res[l][p];
		printf("%lu,%lu,%lu,%llu,%llu,%.3f,%llu,%llu,%.3f,%.1f,%.1f\n",
		       cfg.levels[l], rk->pending, rp->pending, rk->fifo.total,
		       rp->fifo.total,
		       rp->fifo.total ? (double)rk->fifo.total / rp->fifo.total : 0,
		       rk->c.total, rp->c.total,
		       rp->c.total ? (double)rk->c.total / rp->c.total : 0,
		       rk->mem_b, rp->mem_b);
	}
	csv_end("lib_scale");
	printf("%9s %10s %10s %7s %10s %10s %7s %9s %9s\n", "pending",
	       "fifo kern", "fifo proc", "x", "rand kern", "rand proc", "x",
	       "mem kern", "mem proc");
	for (l = 0; l < cfg.nlevels; l++) {
		char f[32], r[32];

		rk = &scale_res[l][k];
		rp = &scale_res[l][p];
		ratio_str(f, sizeof(f), rk->fifo.total, rp->fifo.total);
		ratio_str(r, sizeof(r), rk->c.total, rp->c.total);
		printf("%9lu %10llu %10llu %7s %10llu %10llu %7s %9.1f %9.1f\n",
		       cfg.levels[l], rk->fifo.total, rp->fifo.total, f,
		       rk->c.total, rp->c.total, r, rk->mem_b, rp->mem_b);
	}
}

static void test_scale(void)
{
	const unsigned int n = ARRAY_SIZE(scale_mechs);
	unsigned long maxn = cfg.levels[cfg.nlevels - 1];
	static struct rounds rr[ARRAY_SIZE(scale_mechs)];
	static struct rounds rf[ARRAY_SIZE(scale_mechs)];
	struct held held[ARRAY_SIZE(scale_mechs)];
	__u64 *pend[ARRAY_SIZE(scale_mechs)], *dl, *ck;
	long long free0, slab0, free1, slab1;
	struct scale_result *r, base;
	unsigned int l, k;
	char rbuf[32];
	struct mech *m;

	for (k = 0; k < n; k++)
		pend[k] = xcalloc(maxn, sizeof(**pend));
	dl = xcalloc(maxn, sizeof(*dl));
	ck = xcalloc(maxn, sizeof(*ck));

	epoll_watches(2 * maxn + 65536);

	/* The machine's own timer interrupts, with nothing of ours pending. */
	idle_measure(NULL, &base);
	idle_base_irqs = base.idle_irqs;

	for (l = 0; l < cfg.nlevels; l++) {
		/*
		 * Each mechanism's memory is the change its own build makes;
		 * then all hold their timeouts while their rounds take turns.
		 */
		for (k = 0; k < n; k++) {
			m = &scale_mechs[k];
			r = &scale_res[l][k];
			memset(r, 0, sizeof(*r));
			r->idle_programs = -1;
			r->idle_wakeups = -1;
			r->idle_irqs = -1;
			memset(&rr[k], 0, sizeof(rr[k]));
			memset(&rf[k], 0, sizeof(rf[k]));
			mech_open(m);
			settle();
			free0 = meminfo_kb("MemFree");
			slab0 = meminfo_kb("Slab");
			r->pending = scale_build(m, cfg.levels[l], pend[k], dl,
						 ck, r);
			free1 = meminfo_kb("MemFree");
			slab1 = meminfo_kb("Slab");
			if (r->pending) {
				r->mem_b = (double)(free0 - free1) * 1024 / r->pending;
				r->slab_b = (double)(slab1 - slab0) * 1024 / r->pending;
			}
			if (l == cfg.nlevels - 1)
				idle_measure(m, r);
		}
		/* Oldest first while @pend is still in the order armed. */
		for (k = 0; k < n; k++) {
			held[k].pend = pend[k];
			held[k].npend = scale_res[l][k].pending;
			held[k].next = 0;
			held[k].fifo = true;
		}
		csv_begin("scale_raw", "mechanism", "pattern", "pending",
			  "round", "arm_ns", "cancel_ns", "arm_cancel_ns", "ops",
			  NULL);
		churn_rounds(scale_mechs, n, held, 16, true, rf, cfg.levels[l],
			     "fifo");
		for (k = 0; k < n; k++)
			held[k].fifo = false;
		churn_rounds(scale_mechs, n, held, 16, true, rr, cfg.levels[l],
			     "random");
		csv_end("scale_raw");
		for (k = 0; k < n; k++) {
			m = &scale_mechs[k];
			r = &scale_res[l][k];
			r->c = rounds_median(m, &rr[k]);
			r->fifo = rounds_median(m, &rf[k]);
			if (m->kind == TFD)
				tfd_close_pending(pend[k], r->pending);
			mech_close(m);
		}
		settle();
	}

	printf("\n## scale: arm + cancel, N pending 1 h away (%s per timeout,\n"
	       "## median of %u rounds)\n", clk.name, cfg.rounds);
	printf("## fifo: the oldest pending one cancelled; random: any pending one;\n"
	       "## build: per timeout of the pending set; slab, mem: bytes per pending timeout\n");
	csv_begin("scale", "mechanism", "batch", "level", "pending",
		  "fifo_arm_ns", "fifo_cancel_ns", "fifo_arm_cancel_ns",
		  "fifo_ratio_wt1", "arm_ns", "cancel_ns", "arm_cancel_ns",
		  "ratio_wt1", "build_ns", "slab_bytes", "mem_bytes", "stopped",
		  NULL);
	for (l = 0; l < cfg.nlevels; l++) {
		for (k = 0; k < n; k++) {
			r = &scale_res[l][k];
			printf("%s,%u,%lu,%lu,%llu,%llu,%llu,%.3f,",
			       scale_mechs[k].name, scale_mechs[k].batch,
			       cfg.levels[l], r->pending, r->fifo.arm,
			       r->fifo.cancel, r->fifo.total,
			       scale_res[l][0].fifo.total ?
			       (double)r->fifo.total / scale_res[l][0].fifo.total : 0);
			printf("%llu,%llu,%llu,%.3f,%llu,%.1f,%.1f,%s\n",
			       r->c.arm, r->c.cancel, r->c.total,
			       scale_res[l][0].c.total ?
			       (double)r->c.total / scale_res[l][0].c.total : 0,
			       r->build_ns, r->slab_b, r->mem_b,
			       r->stopped ? r->stopped : "");
		}
	}
	csv_end("scale");
	printf("%-15s %8s %10s %7s %10s %7s %9s %8s %8s\n", "mechanism",
	       "pending", "fifo", "x wt/1", "random", "x wt/1", "build", "slab B",
	       "mem B");
	for (l = 0; l < cfg.nlevels; l++) {
		for (k = 0; k < n; k++) {
			char fbuf[32];

			r = &scale_res[l][k];
			ratio_str(fbuf, sizeof(fbuf), r->fifo.total,
				  scale_res[l][0].fifo.total);
			ratio_str(rbuf, sizeof(rbuf), r->c.total,
				  scale_res[l][0].c.total);
			printf("%-15s %8lu %10llu %7s %10llu %7s %9llu %8.1f %8.1f%s%s\n",
			       scale_mechs[k].name, r->pending, r->fifo.total,
			       fbuf, r->c.total, rbuf, r->build_ns, r->slab_b,
			       r->mem_b, r->stopped ? "  stopped: " : "",
			       r->stopped ? r->stopped : "");
		}
	}

	lib_scale_section();

	l = cfg.nlevels - 1;
	printf("\n## idle: %lu timeouts pending, all an hour away\n"
	       "## (%u s asleep; seconds of the %s clock)\n",
	       cfg.levels[l], cfg.idle_sec, clk.instr[0] ? clk.instr : "guest's");
	csv_begin("idle", "mechanism", "pending", "seconds",
		  "timer_programs_per_s", "poller_wakeups_per_s",
		  "local_timer_irqs_per_s", "baseline_irqs_per_s", NULL);
	for (k = 0; k < n; k++) {
		r = &scale_res[l][k];
		printf("%s,%lu,%u,%.3f,%.3f,%.3f,%.3f\n", scale_mechs[k].name,
		       r->pending, cfg.idle_sec, r->idle_programs,
		       r->idle_wakeups, r->idle_irqs, idle_base_irqs);
	}
	csv_end("idle");
	printf("(timer: the hrtimer's programs, the in-process engine's timerfd's;\n"
	       " wake-ups: of a process polling the descriptor all along)\n");
	printf("%-15s %16s %12s %20s\n", "mechanism", "timer programs/s",
	       "wake-ups/s", "timer interrupts/s");
	printf("%-15s %16s %12s %20.1f\n", "(nothing)", "-", "-", idle_base_irqs);
	for (k = 0; k < n; k++) {
		char wbuf[32];

		r = &scale_res[l][k];
		if (r->idle_programs >= 0)
			snprintf(rbuf, sizeof(rbuf), "%.2f", r->idle_programs);
		else
			snprintf(rbuf, sizeof(rbuf), "-");
		if (r->idle_wakeups >= 0)
			snprintf(wbuf, sizeof(wbuf), "%.2f", r->idle_wakeups);
		else
			snprintf(wbuf, sizeof(wbuf), "-");
		printf("%-15s %16s %12s %20.1f\n", scale_mechs[k].name, rbuf,
		       wbuf, r->idle_irqs);
	}
	fflush(stdout);
	for (k = 0; k < n; k++)
		free(pend[k]);
	free(dl);
	free(ck);
}

/* --- re-arm ---------------------------------------------------------- */

/* libwheeltimer's re-arm, ns per timeout: the kernel engine, in-process. */
static __u64 rearm_lib[2];

/*
 * Re-arm (modify) timeouts that are pending, as a lease renewal or a
 * keepalive does: each mechanism holds cfg.rearm_n timeouts an hour away
 * and moves them, oldest first, to new deadlines an hour away, in rounds
 * that take turns chunk by chunk.
 */
static void test_rearm(void)
{
	const unsigned int n = ARRAY_SIZE(churn_mechs);
	const unsigned long np = cfg.rearm_n;
	__u64 *pend[ARRAY_SIZE(churn_mechs)], *dl, *ck, t[ARRAY_SIZE(churn_mechs)];
	static __u64 v[ARRAY_SIZE(churn_mechs)][MAX_ROUNDS];
	unsigned long next[ARRAY_SIZE(churn_mechs)] = { 0 };
	unsigned long done[ARRAY_SIZE(churn_mechs)];
	__u64 tm[ARRAY_SIZE(churn_mechs)], t0, t1, start, res;
	unsigned int k, round, chunk, j, nm = 0, pass, lo, hi;
	char rbuf[32];
	struct mech *m;
	double cap;

	dl = xcalloc(np, sizeof(*dl));
	ck = xcalloc(np, sizeof(*ck));
	for (k = 0; k < n; k++) {
		m = &churn_mechs[k];
		pend[k] = xcalloc(np, sizeof(**pend));
		if (m->fd_per_timeout)
			continue;
		mech_open(m);
		t0 = now_ns();
		for (j = 0; j < np; j++) {
			dl[j] = t0 + HOUR_NS + rnd() % (60 * NSEC_PER_SEC);
			ck[j] = j;
		}
		if (mech_arm(m, np, dl, ck, pend[k]) != np)
			die("%s: could not arm %lu", m->name, np);
	}
	csv_begin("rearm_raw", "mechanism", "pending", "round", "modify_ns",
		  "ops", NULL);
	/* Taking turns, or one after the other (as churn_rounds()). */
	for (pass = 0; pass < (cfg.one_by_one ? n : 1); pass++) {
		lo = cfg.one_by_one ? pass : 0;
		hi = cfg.one_by_one ? pass + 1 : n;
		cap = cfg.round_cap_sec * (hi - lo) / n;
		if (cfg.one_by_one) {
			if (churn_mechs[pass].fd_per_timeout)
				continue;
			quiesce();
		}
		for (round = 0; round <= cfg.rounds && round <= MAX_ROUNDS; round++) {
			memset(done, 0, sizeof(done));
			memset(tm, 0, sizeof(tm));
			start = now_ns();
			do {
				for (k = lo; k < hi; k++) {
					m = &churn_mechs[k];
					if (m->fd_per_timeout)
						continue;
					chunk = m->batch > 64 ? m->batch : 64;
					if (next[k] + chunk > np)
						next[k] = 0;
					t0 = now_ns();
					for (j = 0; j < chunk; j++)
						dl[j] = t0 + HOUR_NS +
							rnd() % (60 * NSEC_PER_SEC);
					t0 = now_ns();
					mech_modify(m, chunk, pend[k] + next[k], dl);
					t1 = now_ns();
					tm[k] += t1 - t0 - clock_cost;
					done[k] += chunk;
					next[k] += chunk;
				}
			} while (now_ns() - start < cap * NSEC_PER_SEC);
			if (!round)
				continue;
			for (k = lo; k < hi; k++) {
				if (!done[k])
					continue;
				v[k][round - 1] = tm[k] / done[k];
				printf("%s,%lu,%u,%llu,%lu\n", churn_mechs[k].name,
				       np, round, v[k][round - 1], done[k]);
			}
			nm = round;
		}
	}
	csv_end("rearm_raw");

	printf("\n## re-arm: modify one of %lu pending (%s per timeout, median of %u rounds)\n",
	       np, clk.name, nm);
	for (k = 0; k < n; k++) {
		t[k] = churn_mechs[k].fd_per_timeout ? 0 : median(v[k], nm);
		m = &churn_mechs[k];
		if (!m->fd_per_timeout) {
			if (m->errors) {
				printf("# %s: %ld modifies did not find their timeout\n",
				       m->name, m->errors);
				sanity_failures++;
			}
			if (m->kind == TFD)
				tfd_close_pending(pend[k], np);
			mech_close(m);
		}
		free(pend[k]);
	}
	csv_begin("rearm", "mechanism", "batch", "pending", "modify_ns",
		  "ratio_wt1", "ratio_wt1024", NULL);
	for (k = 0; k < n; k++)
		if (t[k])
			printf("%s,%u,%lu,%llu,%.3f,%.3f\n", churn_mechs[k].name,
			       churn_mechs[k].batch, np, t[k],
			       (double)t[k] / t[0], (double)t[k] / t[2]);
	csv_end("rearm");
	printf("%-16s %6s %10s %8s %9s\n", "mechanism", "batch", "modify",
	       "x wt/1", "x wt/1024");
	for (k = 0; k < n; k++) {
		if (!t[k])
			continue;
		res = t[k];
		ratio_str(rbuf, sizeof(rbuf), res, t[0]);
		printf("%-16s %6u %10llu %8s", churn_mechs[k].name,
		       churn_mechs[k].batch, res, rbuf);
		ratio_str(rbuf, sizeof(rbuf), res, t[2]);
		printf(" %9s\n", rbuf);
	}
	k = find_mech(churn_mechs, n, "lib-kernel/64") - churn_mechs;
	j = find_mech(churn_mechs, n, "lib-process/64") - churn_mechs;
	rearm_lib[0] = t[k];
	rearm_lib[1] = t[j];
	ratio_str(rbuf, sizeof(rbuf), t[k], t[j]);
	printf("libwheeltimer: kernel engine %llu, in-process %llu: %s\n",
	       t[k], t[j], rbuf);
	fflush(stdout);
	free(dl);
	free(ck);
}

/* --- expiry throughput ----------------------------------------------- */

static unsigned int expiry_rounds(void)
{
	return cfg.expiry_rounds ? cfg.expiry_rounds : cfg.rounds;
}

static __u64 expiry_res[ARRAY_SIZE(expiry_mechs)];

/*
 * One round: @n timeouts due from @lead from now on (at least 64 ticks
 * of the default resolution, at most 3 s), spread over @window (at most
 * one tick),
 * which ends at a multiple of the resolution: a wheel at that resolution
 * has them all due at one tick. A hierarchical wheel files a timeout at
 * the level of the highest base-64 digit in which its tick differs from
 * the wheel's clock, and cascades it once per level on its way down; its
 * clock moves when it collects. So that each round costs one cascade,
 * not sometimes two, the round waits, if need be, until now and that
 * tick share their digits from the third on (4096 ticks), then has the
 * mechanism deliver one timeout due at once, which brings a wheel's
 * clock to now, and arms them, again if that ended past the start of
 * their level-1 slot. Returns ns per event from the first delivery until
 * the last is read. The first delivery is the first record's stamp where
 * the mechanism stamps one (wheeltimer, the library), else the first
 * deadline (timerfd and io_uring expire each timeout on time); a wheel
 * delivers at its tick. Idle time before it would count under icount,
 * whose clock jumps over an idle CPU, as so many instructions.
 */
static __u64 expiry_round(struct mech *m, unsigned long n, __u64 lead,
			  __u64 window, __u64 *dl, __u64 *ck, __u64 *h,
			  struct ev *ev, bool *late, unsigned long *lost)
{
	const __u64 res = WT_RESOLUTION_DEFAULT, block = 4096 * res;
	__u64 start, end, ta, tdone, now;
	unsigned long seen, i;
	unsigned int got;

	if (lead < 64 * res)
		lead = 64 * res;
again:
	if (lead > 3 * NSEC_PER_SEC)
		lead = 3 * NSEC_PER_SEC;
	now = now_ns();
	end = now + 2 * res + lead + window;
	if (now / block != end / block)
		sleep_ns(end / block * block - now);
	dl[0] = now_ns();
	ck[0] = n;
	if (mech_arm(m, 1, dl, ck, h) != 1)
		die("%s: could not arm", m->name);
	got = 0;
	while (!got)
		got = mech_reap(m, ev, MAX_CHUNK, 2000);
	if (got != 1 || ev[0].cookie != n)
		die("%s: a timeout due at once did not come alone", m->name);
	end = now_ns() + lead + window;
	end += res - end % res;
	start = end - window + 1;
	for (i = 0; i < n; i++) {
		dl[i] = start + (window - 1) * i / n;
		ck[i] = i;
	}
	if (mech_arm(m, n, dl, ck, h) != n)
		die("%s: could not arm %lu", m->name, n);
	ta = now_ns();
	/*
	 * The wheel cascades them when its clock reaches their level-1
	 * slot, 64 ticks or fewer before their tick: if arming took us past
	 * that, the cascade may have been done while arming, not here. Try
	 * again with twice the lead (arming took longer than its estimate:
	 * the host is busy).
	 */
	if (ta < start && ta >= end - end % (64 * res) &&
	    lead < 3 * NSEC_PER_SEC) {
		mech_cancel(m, n, h);
		lead *= 2;
		goto again;
	}
	*late = ta > start;
	seen = 0;
	tdone = ta;
	cg_toggle();
	while (seen < n) {
		got = mech_reap(m, ev, MAX_CHUNK, 2000);
		if (!got && now_ns() - ta > 10 * NSEC_PER_SEC) {
			*lost += n - seen;
			break;
		}
		if (!seen && got && ev[0].fired_at > start)
			start = ev[0].fired_at;
		if (!seen && got && cg_now) {
			cg_toggle();
			cg_before += cg_dump("before the first delivery");
			cg_toggle();
		}
		seen += got;
		tdone = now_ns();
	}
	cg_toggle();
	if (cg_now)
		cg_ops += seen;
	return (tdone - start) / n;
}

/*
 * The churn or the expiry of one of the library's engines alone, for a
 * profile of it: the tests "lib-kernel" and "lib-process" (churn), and
 * "lib-kernel-expiry" and "lib-process-expiry". Under callgrind (-g),
 * their timed intervals are counted too.
 */
static void test_lib_alone(uint32_t engine, bool expiry)
{
	struct mech m = engine == WHEELTIMER_ENGINE_KERNEL ? (struct mech)MS_LIBK :
							     (struct mech)MS_LIBP;
	const unsigned long n = cfg.expiry_n;
	__u64 *dl, *ck, *h, v[MAX_ROUNDS];
	unsigned long lost = 0;
	static struct rounds rr;
	unsigned int round, nlate = 0;
	struct churn_result c;
	__u64 t0, lead;
	char what[96];
	unsigned long i;
	struct ev *ev;
	bool late;

	mech_open(&m);
	cg_lib = !!cg_file;
	if (!expiry) {
		memset(&rr, 0, sizeof(rr));
		csv_begin("churn_raw", "mechanism", "pattern", "pending",
			  "round", "arm_ns", "cancel_ns", "arm_cancel_ns",
			  "ops", NULL);
		churn_rounds(&m, 1, NULL, 64, false, &rr, 0, "own");
		csv_end("churn_raw");
		c = rounds_median(&m, &rr);
		printf("\n## %s alone, %s per timeout: arm %llu, cancel %llu, arm + cancel %llu\n",
		       m.name, clk.name, c.arm, c.cancel, c.total);
		snprintf(what, sizeof(what), "%s alone", m.name);
		cg_report(what, "arm + cancel");
		cg_lib = false;
		mech_close(&m);
		return;
	}

	dl = xcalloc(n, sizeof(*dl));
	ck = xcalloc(n, sizeof(*ck));
	h = xcalloc(n, sizeof(*h));
	ev = xcalloc(MAX_CHUNK, sizeof(*ev));
	/*
	 * 200 ms ahead, or more if arming takes longer (under callgrind):
	 * timeouts due before they are all armed would take another path.
	 */
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		dl[i] = t0 + HOUR_NS;
		ck[i] = i;
	}
	if (mech_arm(&m, n, dl, ck, h) != n)
		die("%s: could not arm %lu", m.name, n);
	lead = 2 * (now_ns() - t0) + 50 * NSEC_PER_MSEC;
	if (lead < 200 * NSEC_PER_MSEC)
		lead = 200 * NSEC_PER_MSEC;
	mech_cancel(&m, n, h);
	cg_now = cg_lib;
	for (round = 0; round < expiry_rounds(); round++) {
		v[round] = expiry_round(&m, n, lead, NSEC_PER_MSEC, dl, ck, h,
					ev, &late, &lost);
		nlate += late;
	}
	cg_now = false;
	if (nlate)
		printf("# %s: arming ended after the first deadline in %u rounds\n",
		       m.name, nlate);
	printf("## %s alone, %s per event: %llu, %lu due within 1 ms%s\n",
	       m.name, clk.name, median(v, expiry_rounds()), n,
	       lost ? ", some lost" : "");
	snprintf(what, sizeof(what), "%s alone, %lu due within 1 ms", m.name, n);
	cg_report(what, "event");
	cg_lib = false;
	mech_close(&m);
	free(dl);
	free(ck);
	free(h);
	free(ev);
}

static void test_expiry(void)
{
	const unsigned int nm = ARRAY_SIZE(expiry_mechs);
	__u64 *dl, *ck, *h, t0, lead[ARRAY_SIZE(expiry_mechs)];
	__u64 v[ARRAY_SIZE(expiry_mechs)][MAX_ROUNDS];
	unsigned long lost[ARRAY_SIZE(expiry_mechs)] = { 0 };
	unsigned int late[ARRAY_SIZE(expiry_mechs)] = { 0 };
	const unsigned long n = cfg.expiry_n;
	unsigned int k, round;
	unsigned long i;
	struct ev *ev;
	char rbuf[32];
	struct mech *m;
	bool was_late;

	dl = xcalloc(n, sizeof(*dl));
	ck = xcalloc(n, sizeof(*ck));
	h = xcalloc(n, sizeof(*h));
	ev = xcalloc(MAX_CHUNK, sizeof(*ev));
	/* How long does arming take? This also fills the timerfd pool. */
	for (k = 0; k < nm; k++) {
		m = &expiry_mechs[k];
		mech_open(m);
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			dl[i] = t0 + HOUR_NS;
			ck[i] = i;
		}
		if (mech_arm(m, n, dl, ck, h) != n)
			die("%s: could not arm %lu", m->name, n);
		lead[k] = 2 * (now_ns() - t0) + 50 * NSEC_PER_MSEC;
		mech_cancel(m, n, h);
	}
	csv_begin("expiry_raw", "mechanism", "n", "round", "ns_per_event",
		  "armed_late", NULL);
	for (round = 0; round < expiry_rounds(); round++) {
		for (k = 0; k < nm; k++) {
			m = &expiry_mechs[k];
			v[k][round] = expiry_round(m, n, lead[k], NSEC_PER_MSEC,
						   dl, ck, h, ev, &was_late,
						   &lost[k]);
			late[k] += was_late;
			printf("%s,%lu,%u,%llu,%d\n", m->name, n, round,
			       v[k][round], was_late);
		}
	}
	csv_end("expiry_raw");
	for (k = 0; k < nm; k++) {
		m = &expiry_mechs[k];
		expiry_res[k] = median(v[k], expiry_rounds());
		if (late[k])
			printf("# expiry %s: arming ended after the first deadline in %u rounds\n",
			       m->name, late[k]);
		if (lost[k]) {
			printf("# expiry %s: %lu events never came\n", m->name,
			       lost[k]);
			sanity_failures++;
		}
		mech_close(m);
	}
	printf("\n## expiry: %lu timeouts due within 1 ms, from the first delivery until all read\n"
	       "## (%s per event, median of %u rounds)\n",
	       n, clk.name, expiry_rounds());
	csv_begin("expiry", "mechanism", "n", "ns_per_event", "events_per_s",
		  "ratio_wt", NULL);
	for (k = 0; k < nm; k++)
		printf("%s,%lu,%llu,%.0f,%.3f\n", expiry_mechs[k].name, n,
		       expiry_res[k],
		       expiry_res[k] ? (double)NSEC_PER_SEC / expiry_res[k] : 0,
		       expiry_res[0] ? (double)expiry_res[k] / expiry_res[0] : 0);
	csv_end("expiry");
	printf("%-14s %12s %14s %10s\n", "mechanism", "per event",
	       strcmp(clk.unit, "ns") ? "events/1e9" : "events/s", "x wt");
	for (k = 0; k < nm; k++) {
		ratio_str(rbuf, sizeof(rbuf), expiry_res[k], expiry_res[0]);
		printf("%-14s %12llu %14.0f %10s\n", expiry_mechs[k].name,
		       expiry_res[k],
		       expiry_res[k] ? (double)NSEC_PER_SEC / expiry_res[k] : 0,
		       rbuf);
	}
	k = find_mech(expiry_mechs, nm, "lib-kernel") - expiry_mechs;
	i = find_mech(expiry_mechs, nm, "lib-process") - expiry_mechs;
	ratio_str(rbuf, sizeof(rbuf), expiry_res[k], expiry_res[i]);
	printf("libwheeltimer: kernel engine %llu per event, in-process %llu: %s\n",
	       expiry_res[k], expiry_res[i], rbuf);
	fflush(stdout);
	free(dl);
	free(ck);
	free(h);
	free(ev);
}

/* --- lateness -------------------------------------------------------- */

struct late_result {
	long long p50, p99, p999, max;
	long long k50, k99, k999, kmax;	/* wheeltimer: fired_at - deadline */
	unsigned long early;		/* read before the deadline */
	unsigned long kernel_early;	/* wheeltimer: fired_at < deadline */
	unsigned long n;
};

static struct late_result late_res[ARRAY_SIZE(late_mechs)];

static long long pct(const long long *v, unsigned long n, unsigned int permille)
{
	unsigned long i = (n * permille + 999) / 1000;

	if (!n)
		return 0;
	if (i)
		i--;
	return v[i < n ? i : n - 1];
}

static void test_lateness(void)
{
	const unsigned long n = cfg.late_n;
	__u64 *dl, *ck, *h, base, t, span_us = cfg.late_span / NSEC_PER_USEC;
	unsigned long seen, i;
	long long *late, *klate;
	unsigned long kseen;
	struct late_result *r;
	unsigned int k, got, j;
	double x;
	struct ev *ev;
	struct mech *m;

	dl = xcalloc(n, sizeof(*dl));
	ck = xcalloc(n, sizeof(*ck));
	h = xcalloc(n, sizeof(*h));
	late = xcalloc(n, sizeof(*late));
	klate = xcalloc(n, sizeof(*klate));
	ev = xcalloc(MAX_CHUNK, sizeof(*ev));
	csv_begin("lateness_cdf", "mechanism", "lateness_us", "fraction",
		  NULL);
	for (k = 0; k < ARRAY_SIZE(late_mechs); k++) {
		m = &late_mechs[k];
		r = &late_res[k];
		memset(r, 0, sizeof(*r));
		mech_open(m);
		base = now_ns() + 100 * NSEC_PER_MSEC;
		for (i = 0; i < n; i++) {
			/* Log-uniform from 50 us to the span: every level. */
			x = (double)(rnd() % 1000000) / 1000000;
			dl[i] = base + (__u64)(50.0 * NSEC_PER_USEC *
				pow(span_us / 50.0, x)) + rnd() % 1000;
			ck[i] = i;
		}
		if (mech_arm(m, n, dl, ck, h) != n)
			die("%s: could not arm %lu", m->name, n);
		seen = 0;
		kseen = 0;
		while (seen < n) {
			got = mech_reap(m, ev, MAX_CHUNK, 5000);
			t = now_ns();
			if (!got && t > dl[0] + cfg.late_span + 10 * NSEC_PER_SEC)
				break;
			for (j = 0; j < got && seen < n; j++) {
				i = ev[j].cookie;
				late[seen++] = (long long)(t - dl[i]);
				if (t < dl[i])
					r->early++;
				if (m->kind != WT)
					continue;
				klate[kseen++] = (long long)(ev[j].fired_at - dl[i]);
				if (ev[j].fired_at < dl[i])
					r->kernel_early++;
			}
		}
		mech_close(m);
		if (seen < n) {
			printf("# lateness %s: %lu of %lu events never came\n",
			       m->name, n - seen, n);
			sanity_failures++;
		}
		qsort(late, seen, sizeof(*late), cmp_s64);
		r->n = seen;
		r->p50 = pct(late, seen, 500);
		r->p99 = pct(late, seen, 990);
		r->p999 = pct(late, seen, 999);
		r->max = seen ? late[seen - 1] : 0;
		qsort(klate, kseen, sizeof(*klate), cmp_s64);
		r->k50 = pct(klate, kseen, 500);
		r->k99 = pct(klate, kseen, 990);
		r->k999 = pct(klate, kseen, 999);
		r->kmax = kseen ? klate[kseen - 1] : 0;
		for (j = 0; j <= 100; j++)
			printf("%s,%.1f,%.2f\n", m->name,
			       pct(late, seen, j * 10) / 1000.0, j / 100.0);
		if (m->kind == WT && (r->early || r->kernel_early))
			sanity_failures++;
	}
	csv_end("lateness_cdf");
	printf("\n## lateness: read time - deadline, %lu deadlines from 50 us to %llu ms\n"
	       "## (%s (%s))\n", n, cfg.late_span / NSEC_PER_MSEC, clk.usec,
	       clk.instr[0] ? clk.instr : "clock");
	printf("%-17s %9s %9s %9s %9s %6s %8s\n", "mechanism", "p50", "p99",
	       "p99.9", "max", "early", "x wt p99");
	csv_begin("lateness", "mechanism", "n", "p50_ns", "p99_ns", "p999_ns",
		  "max_ns", "early", "kernel_early", "fired_p50_ns",
		  "fired_p99_ns", "fired_p999_ns", "fired_max_ns", NULL);
	for (k = 0; k < ARRAY_SIZE(late_mechs); k++) {
		r = &late_res[k];
		printf("%s,%lu,%lld,%lld,%lld,%lld,%lu,%lu,%lld,%lld,%lld,%lld\n",
		       late_mechs[k].name, r->n, r->p50, r->p99, r->p999,
		       r->max, r->early, r->kernel_early, r->k50, r->k99,
		       r->k999, r->kmax);
	}
	csv_end("lateness");
	for (k = 0; k < ARRAY_SIZE(late_mechs); k++) {
		r = &late_res[k];
		printf("%-17s %9.1f %9.1f %9.1f %9.1f %6lu %7.2fx\n",
		       late_mechs[k].name, r->p50 / 1000.0, r->p99 / 1000.0,
		       r->p999 / 1000.0, r->max / 1000.0,
		       r->early + r->kernel_early,
		       late_res[0].p99 ? (double)r->p99 / late_res[0].p99 : 0);
	}
	printf("as the kernel stamped them (fired_at - deadline, %s):\n", clk.usec);
	for (k = 0; k < ARRAY_SIZE(late_mechs); k++) {
		r = &late_res[k];
		if (late_mechs[k].kind != WT)
			continue;
		printf("%-17s %9.1f %9.1f %9.1f %9.1f %6lu  resolution %llu us\n",
		       late_mechs[k].name, r->k50 / 1000.0, r->k99 / 1000.0,
		       r->k999 / 1000.0, r->kmax / 1000.0, r->kernel_early,
		       late_mechs[k].resolution / NSEC_PER_USEC);
	}
	fflush(stdout);
	free(dl);
	free(ck);
	free(h);
	free(late);
	free(klate);
	free(ev);
}

/* --- the verdict on the targets ---------------------------------------- */

static void target(const char *what, bool met, const char *fmt, ...)
{
	va_list ap;

	printf("%-7s %-56s ", met ? "met" : "NOT met", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* The targets of issue 12: the library's kernel engine against its own. */
static void lib_verdicts(bool did_churn, bool did_scale, bool did_expiry)
{
	const unsigned int nc = ARRAY_SIZE(churn_mechs);
	const unsigned int ns = ARRAY_SIZE(scale_mechs);
	const unsigned int ne = ARRAY_SIZE(expiry_mechs);
	const struct scale_result *rk, *rp;
	unsigned int k, p, l;
	char what[80];
	double x;

	printf("\n## targets (issue 12: libwheeltimer, kernel engine / in-process engine), %s\n",
	       clk.name);
	if (did_churn) {
		k = find_mech(churn_mechs, nc, "lib-kernel/64") - churn_mechs;
		p = find_mech(churn_mechs, nc, "lib-process/64") - churn_mechs;
		x = (double)churn_res[k].total / churn_res[p].total;
		target("arm+cancel, none pending, at most 1.5x", x <= 1.5,
		       "%.2fx (%llu, %llu)", x, churn_res[k].total,
		       churn_res[p].total);
	}
	if (rearm_lib[0] && rearm_lib[1]) {
		x = (double)rearm_lib[0] / rearm_lib[1];
		printf("%-7s %-56s %.2fx (%llu, %llu)\n", "info",
		       "  re-arm", x, rearm_lib[0], rearm_lib[1]);
	}
	if (did_scale) {
		k = find_mech(scale_mechs, ns, "lib-kernel/64") - scale_mechs;
		p = find_mech(scale_mechs, ns, "lib-process/64") - scale_mechs;
		for (l = 0; l < cfg.nlevels; l++) {
			rk = &scale_res[l][k];
			rp = &scale_res[l][p];
			x = (double)rk->fifo.total / rp->fifo.total;
			snprintf(what, sizeof(what),
				 "arm+cancel, %lu pending, oldest, at most 1.5x",
				 cfg.levels[l]);
			target(what, x <= 1.5, "%.2fx (%llu, %llu)", x,
			       rk->fifo.total, rp->fifo.total);
			x = (double)rk->c.total / rp->c.total;
			snprintf(what, sizeof(what),
				 "arm+cancel, %lu pending, random, at most 1.5x",
				 cfg.levels[l]);
			target(what, x <= 1.5, "%.2fx (%llu, %llu)", x,
			       rk->c.total, rp->c.total);
		}
		rk = &scale_res[cfg.nlevels - 1][k];
		rp = &scale_res[cfg.nlevels - 1][p];
		target("no wake-ups with nothing due, either engine",
		       !rk->idle_wakeups && !rp->idle_wakeups,
		       "%.2f/s kernel, %.2f/s in-process, %lu pending",
		       rk->idle_wakeups, rp->idle_wakeups, rk->pending);
	}
	if (did_expiry) {
		k = find_mech(expiry_mechs, ne, "lib-kernel") - expiry_mechs;
		p = find_mech(expiry_mechs, ne, "lib-process") - expiry_mechs;
		x = (double)expiry_res[k] / expiry_res[p];
		target("per delivered event no more than in-process", x <= 1,
		       "%.2fx (%llu, %llu)", x, expiry_res[k],
		       expiry_res[p]);
	}
}

static void verdicts(bool did_churn, bool did_scale, bool did_late)
{
	const struct churn_result *c = churn_res;
	const struct mech *v = churn_mechs;
	const unsigned int nc = ARRAY_SIZE(churn_mechs);
	const struct scale_result *lo, *hi;
	double x;
	unsigned int k;

	printf("\n## targets (issue 6), %s\n", clk.name);
	if (did_churn) {
		__u64 wt1 = c[find_mech(v, nc, "wheeltimer/1") - v].total;
		__u64 wtb = c[find_mech(v, nc, "wheeltimer/1024") - v].total;
		__u64 tfd = c[find_mech(v, nc, "timerfd") - v].total;
		__u64 ur = c[find_mech(v, nc, "io_uring/1024") - v].total;
		__u64 ur1 = c[find_mech(v, nc, "io_uring/1") - v].total;

		x = (double)tfd / wtb;
		target("batched arm+cancel >= 10x cheaper than timerfd", x >= 10,
		       "%.2fx (wt/1024 %llu, timerfd %llu)", x, wtb, tfd);
		x = (double)ur / wtb;
		target("batched arm+cancel >= 3x cheaper than io_uring/1024", x >= 3,
		       "%.2fx (io_uring/1024 %llu)", x, ur);
		x = (double)ur1 / wtb;
		printf("%-7s %-56s %.2fx (io_uring/1 %llu)\n", "info",
		       "  the same against io_uring one per submit", x, ur1);
		x = (double)tfd / wt1;
		target("one ioctl per operation at least on par with timerfd",
		       x >= 1, "%.2fx (wt/1 %llu, timerfd %llu)", x, wt1, tfd);
	}
	if (did_scale && cfg.nlevels > 1) {
		lo = &scale_res[0][0];
		hi = &scale_res[cfg.nlevels - 1][0];
		x = (double)hi->fifo.total / lo->fifo.total;
		target("cost at the largest N within 1.5x of smallest (fifo)",
		       x <= 1.5, "%.2fx (wt/1: %llu at %lu, %llu at %lu)",
		       x, lo->fifo.total, lo->pending, hi->fifo.total,
		       hi->pending);
		x = (double)hi->c.total / lo->c.total;
		target("cost at the largest N within 1.5x of smallest (random)",
		       x <= 1.5, "%.2fx (wt/1: %llu at %lu, %llu at %lu)",
		       x, lo->c.total, lo->pending, hi->c.total, hi->pending);
	}
	if (did_scale) {
		hi = &scale_res[cfg.nlevels - 1][0];
		for (k = 0; k < ARRAY_SIZE(scale_mechs); k++)
			if (scale_mechs[k].kind == TFD)
				break;
		target("at most 64 bytes of kernel memory per pending timeout",
		       hi->slab_b <= 64,
		       "slab %.1f B, all %.1f B (timerfd: slab %.1f B, all %.1f B)",
		       hi->slab_b, hi->mem_b,
		       scale_res[cfg.nlevels - 1][k].slab_b,
		       scale_res[cfg.nlevels - 1][k].mem_b);
		target("no hrtimer wake-ups with nothing due (an hour away)",
		       hi->idle_programs == 0, "%.2f programs/s at %lu pending",
		       hi->idle_programs, hi->pending);
	}
	if (did_late) {
		target("zero early events", !late_res[0].early &&
		       !late_res[0].kernel_early && !late_res[1].early &&
		       !late_res[1].kernel_early,
		       "%lu early of %lu (1 ms), %lu of %lu (100 us)",
		       late_res[0].early + late_res[0].kernel_early, late_res[0].n,
		       late_res[1].early + late_res[1].kernel_early, late_res[1].n);
	}
}

static void help(void)
{
	printf("usage: wheelbench [-q] [-c CLOCK] [-r ROUNDS] [-t SEC] [-n N,N,...] [-e N]\n"
	       "                  [-x ROUNDS] [-i SEC] [-g FILE] [TEST...]\n"
	       "tests: churn rearm scale expiry lateness (default: all), and for\n"
	       "       profiles lib-kernel, lib-process: the churn of that engine alone,\n"
	       "       lib-kernel-expiry, lib-process-expiry: its expiry alone\n"
	       "  -q  quick: small sizes, few rounds (a smoke test of seconds)\n"
	       "  -c  what the clock counts, named in each heading: tcg (ns under\n"
	       "      QEMU's TCG), icount (instructions: QEMU's -icount shift=0),\n"
	       "      host (ns on this CPU); unnamed: ns\n"
	       "  -r  rounds per measurement, the median is reported\n"
	       "  -n  pending counts for the scale test (default 1000,100000,1000000)\n"
	       "  -e  timeouts due in the expiry test (default 100000)\n"
	       "  -x  rounds of the expiry test (default: as -r)\n"
	       "  -t  seconds of the clock per round of churn and re-arm (default 0.25)\n"
	       "  -i  seconds asleep for the idle measurement\n"
	       "  -g  under valgrind --tool=callgrind --collect-atstart=no\n"
	       "      --compress-strings=no --compress-pos=no --callgrind-out-file=FILE:\n"
	       "      count the instructions of lib-process and lib-process-expiry\n");
}

int main(int argc, char **argv)
{
	bool all, do_churn, do_rearm, do_scale, do_expiry, do_late;
	bool do_libk = false, do_libp = false, do_libke = false;
	bool do_libpe = false;
	struct timespec t0, t1;
	char *p, *tok;
	__u64 a, b;
	int opt, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	cfg.idle_sec = 5;
	cfg.levels[0] = 1000;
	cfg.levels[1] = 100000;
	cfg.levels[2] = 1000000;
	cfg.nlevels = 3;
	cfg.expiry_n = 100000;
	cfg.late_n = 2000;
	cfg.rearm_n = 10000;
	cfg.late_span = 2 * NSEC_PER_SEC;
	cfg.build_cap_sec = 120;
	cfg.round_cap_sec = 0.25;
	cfg.rounds = 9;
	while ((opt = getopt(argc, argv, "qc:r:n:e:x:t:i:g:h")) != -1) {
		switch (opt) {
		case 'q':
			cfg.quick = true;
			cfg.rounds = 3;
			cfg.idle_sec = 1;
			cfg.levels[0] = 1000;
			cfg.levels[1] = 10000;
			cfg.nlevels = 2;
			cfg.expiry_n = 2000;
			cfg.late_n = 200;
			cfg.rearm_n = 2048;
			cfg.late_span = 200 * NSEC_PER_MSEC;
			cfg.build_cap_sec = 10;
			cfg.round_cap_sec = 0.05;
			break;
		case 'r':
			cfg.rounds = atoi(optarg);
			if (cfg.rounds < 1 || cfg.rounds > MAX_ROUNDS)
				die("-r: 1 to %d rounds", MAX_ROUNDS);
			break;
		case 'n':
			cfg.nlevels = 0;
			p = optarg;
			while ((tok = strsep(&p, ",")) && cfg.nlevels < MAX_LEVELS)
				cfg.levels[cfg.nlevels++] = strtoul(tok, NULL, 0);
			if (!cfg.nlevels || !cfg.levels[0])
				die("-n: a list of pending counts");
			break;
		case 'c':
			set_clock(optarg);
			break;
		case 'e':
			cfg.expiry_n = strtoul(optarg, NULL, 0);
			if (!cfg.expiry_n)
				die("-e: a number of timeouts");
			break;
		case 'x':
			cfg.expiry_rounds = atoi(optarg);
			if (cfg.expiry_rounds < 1 || cfg.expiry_rounds > MAX_ROUNDS)
				die("-x: 1 to %d rounds", MAX_ROUNDS);
			break;
		case 't':
			cfg.round_cap_sec = strtod(optarg, NULL);
			if (!(cfg.round_cap_sec > 0))
				die("-t: seconds per round");
			break;
		case 'i':
			cfg.idle_sec = atoi(optarg);
			break;
		case 'g':
			if (!HAVE_CALLGRIND)
				die("-g: built without <valgrind/callgrind.h>");
			if (!RUNNING_ON_VALGRIND)
				die("-g: run under valgrind --tool=callgrind");
			cg_file = optarg;
			break;
		default:
			help();
			return opt == 'h' ? 0 : 2;
		}
	}
	all = optind == argc;
	do_churn = all;
	do_scale = all;
	do_expiry = all;
	do_late = all;
	do_rearm = all;
	for (i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "churn"))
			do_churn = true;
		else if (!strcmp(argv[i], "scale"))
			do_scale = true;
		else if (!strcmp(argv[i], "expiry"))
			do_expiry = true;
		else if (!strcmp(argv[i], "rearm"))
			do_rearm = true;
		else if (!strcmp(argv[i], "lateness"))
			do_late = true;
		else if (!strcmp(argv[i], "lib-kernel"))
			do_libk = true;
		else if (!strcmp(argv[i], "lib-process"))
			do_libp = true;
		else if (!strcmp(argv[i], "lib-kernel-expiry"))
			do_libke = true;
		else if (!strcmp(argv[i], "lib-process-expiry"))
			do_libpe = true;
		else
			die("unknown test '%s'", argv[i]);
	}

	/* What one clock reading costs, subtracted from every interval. */
	a = now_ns();
	for (i = 0; i < 1000; i++)
		now_ns();
	b = now_ns();
	clock_cost = (b - a) / 1000;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("# wheelbench%s: figures in %s, %u rounds per figure (of churn and re-arm: %.3g s,\n"
	       "# mechanisms %s), scale up to %lu, clock read %llu\n",
	       cfg.quick ? " (quick)" : "", clk.name, cfg.rounds, cfg.round_cap_sec,
	       cfg.one_by_one ? "one after the other" : "taking turns chunk by chunk",
	       cfg.levels[cfg.nlevels - 1], clock_cost);

	if (do_churn)
		test_churn();
	if (do_rearm)
		test_rearm();
	if (do_scale)
		test_scale();
	if (do_expiry)
		test_expiry();
	if (do_late)
		test_lateness();
	if (do_libk)
		test_lib_alone(WHEELTIMER_ENGINE_KERNEL, false);
	if (do_libp)
		test_lib_alone(WHEELTIMER_ENGINE_PROCESS, false);
	if (do_libke)
		test_lib_alone(WHEELTIMER_ENGINE_KERNEL, true);
	if (do_libpe)
		test_lib_alone(WHEELTIMER_ENGINE_PROCESS, true);
	verdicts(do_churn, do_scale, do_late);
	lib_verdicts(do_churn, do_scale, do_expiry);

	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("\n# wheelbench: done in %.1f s, %ld sanity failures\n",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       sanity_failures);
	return sanity_failures ? 1 : 0;
}
