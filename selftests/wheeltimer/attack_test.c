// SPDX-License-Identifier: GPL-2.0
/*
 * What one unprivileged user can make the kernel do at the expense of
 * everyone else, with a million timeouts in a file of its own:
 *
 * - step_back: a virtual CLOCK_REALTIME file with a million timeouts whose
 *   clock is set forward and back in a loop, with a MODIFY landing behind
 *   the wheel's clock each time. Pinned to CPU 0 with it, a victim file's
 *   1 ms FIXED_RATE timeout measures how late it fires and how far apart
 *   its reads are, and a busy thread how long it goes without running.
 *   Both must stay within a generous bound of what the same processes
 *   measure in the same boot while the attacker runs the same calls
 *   without ever stepping back.
 * - far_advance: ADVANCE from 0 to KTIME_MAX - 1 over a million timeouts
 *   near KTIME_MAX at 1 us resolution ends in bounded time.
 * - sigkill: a SIGKILL ends such an ADVANCE within seconds.
 *
 * The two ADVANCE tests run it in a child whose end the parent waits for
 * with a time limit. A child that does not end is reported and left
 * behind (nothing can stop a call that ignores SIGKILL), with its output
 * closed so that it holds up nothing that reads the test's.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "wt_util.h"

enum {
	NR_FAR = 1000000,	/* the ADVANCE tests' timeouts */
	ROUNDS = 3,		/* of a baseline, an attack and a pause */
	PHASES = 3 * ROUNDS - 1,
	STOP = PHASES,
	MIN_ROUNDS = 2,		/* attacker loops per phase, at least */
};

/*
 * The attacker's timeouts: the longer a rebuild of its wheel, the further
 * it stands out of the noise of an emulated machine. Root may hold this
 * many in one file (any user could before issue 11); half as many on the
 * debug kernel, where each takes twice the slab.
 */
#define NR_ATTACK	4194304U
#define NR_ATTACK_DEBUG	2097152U
#define PHASE_NS	(1500 * MSEC)	/* baselines and attacks last this */
#define PAUSE_NS	(300 * MSEC)	/* a pause lasts this */

/*
 * The verdict compares the attack phase that stalled least with the
 * baseline phase that stalled most: each phase's worst gap is mostly the
 * host's noise, which may hit any one phase, but not all three attack
 * phases alone. Allowed: three times that baseline, plus 100 ms.
 */
#define BOUND_FACTOR	3
#define BOUND_SLACK_NS	(100 * MSEC)

static bool debug_kernel(void)
{
	return !access("/sys/kernel/debug/failslab", F_OK);
}

static __u64 rnd(__u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static int pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Add @n one-shot timeouts at absolute deadlines from @base to
 * @base + @span, in batches. Returns how many were added.
 */
static unsigned int fill(int fd, unsigned int n, __u64 base, __u64 span,
			 __u64 seed)
{
	struct wt_op ops[WT_BATCH_MAX];
	unsigned int added = 0, k, i;
	int r;

	while (added < n) {
		k = n - added < WT_BATCH_MAX ? n - added : WT_BATCH_MAX;
		memset(ops, 0, k * sizeof(ops[0]));
		for (i = 0; i < k; i++) {
			ops[i].op = WT_OP_ADD;
			ops[i].flags = WT_ABSTIME;
			ops[i].deadline = base + rnd(&seed) % span;
		}
		r = wt_batch(fd, ops, k);
		if (r < 0)
			break;
		added += r;
		if (r != (int)k)
			break;
	}
	return added;
}

/*
 * Phases go baseline, attack, pause, baseline... The attacker steps back
 * in attacks only. A pause is not measured: it takes the end of the last
 * attack round, if that was still going on, away from the next baseline.
 */
static bool is_attack(int ph)
{
	return ph % 3 == 1;
}

static bool is_pause(int ph)
{
	return ph % 3 == 2;
}

/*
 * What the victim and the busy thread measure: intervals during which the
 * busy thread did not run, the victim waited between two reads, and the
 * victim's timeout was overdue (its deadline to its fired_at). Each is
 * logged with its ends, and charged to each phase for the part of it that
 * lies in the phase.
 */
enum { BUSY, GAP, LATE, METRICS };

static const char * const metric_name[METRICS] = {
	"busy thread without running",
	"victim's reads apart",
	"victim's timeout late",
};

#define SPAN_MIN_NS	(2 * MSEC)	/* shorter ones are not logged */
#define NR_SPANS	262144

struct span {
	__u64 from, to;
	int metric;
};

/* What the processes of step_back share. */
struct arena {
	atomic_int phase;
	atomic_int ready;	/* the attacker: 1 filled, -1 failed */
	unsigned int nr_attack;
	atomic_ullong fill_ns;
	__u64 start_ns[PHASES + 1];	/* when each phase began, and STOP */
	atomic_long rounds[PHASES];	/* attacker rounds begun in a phase */
	atomic_ullong round_max_ns[PHASES];
	atomic_long reads;
	atomic_long victim_errors, attacker_errors;
	atomic_ullong rebuilds, rewinds;
	atomic_int nr_spans;
	struct span spans[NR_SPANS];
};

static void note_max(atomic_ullong *max, __u64 v)
{
	__u64 old = atomic_load(max);

	while (v > old && !atomic_compare_exchange_weak(max, &old, v))
		;
}

static void note_span(struct arena *a, int metric, __u64 from, __u64 to)
{
	int i;

	if (to < from + SPAN_MIN_NS)
		return;
	i = atomic_fetch_add(&a->nr_spans, 1);
	if (i < NR_SPANS)
		a->spans[i] = (struct span){ from, to, metric };
}

/*
 * The attacker. Baseline: move one timeout to T, set the clock to T
 * (it fires), set it to T again. Attack: the same calls with the clock
 * set back to 0 instead, so that each MODIFY to T lands behind the
 * wheel's clock. After an attack, T moves a millisecond on, so that the
 * next baseline round does not land behind it too.
 */
static void attacker(struct arena *a)
{
	__u64 t = 10 * SEC, t0, dt, id;
	bool stepped_back = false;
	int fd, ph;

	t0 = wt_clock_ns(CLOCK_MONOTONIC);
	fd = wt_open();
	if (fd < 0 || wt_config(fd, MSEC, CLOCK_REALTIME, WT_CONFIG_VIRTUAL,
				a->nr_attack + 1) ||
	    fill(fd, a->nr_attack, 3600 * SEC, 3600 * SEC, 0x5eed) !=
	    a->nr_attack ||
	    wt_add_abs(fd, t, &id)) {
		atomic_store(&a->ready, -1);
		_exit(1);
	}
	atomic_store(&a->fill_ns, wt_clock_ns(CLOCK_MONOTONIC) - t0);
	atomic_store(&a->ready, 1);
	while ((ph = atomic_load(&a->phase)) != STOP) {
		t0 = wt_clock_ns(CLOCK_MONOTONIC);
		if (!is_attack(ph) && stepped_back) {
			t += MSEC;
			stepped_back = false;
		}
		if (wt_modify(fd, id, WT_ABSTIME, t, 0) < 0 ||
		    wt_set_clock(fd, t) != 1 ||
		    wt_set_clock(fd, is_attack(ph) ? 0 : t) < 0) {
			atomic_fetch_add(&a->attacker_errors, 1);
			break;
		}
		stepped_back |= is_attack(ph);
		dt = wt_clock_ns(CLOCK_MONOTONIC) - t0;
		note_max(&a->round_max_ns[ph], dt);
		atomic_fetch_add(&a->rounds[ph], 1);
	}
	atomic_store(&a->rebuilds, wt_fdinfo(fd, "rebuilds"));
	atomic_store(&a->rewinds, wt_fdinfo(fd, "rewinds"));
	close(fd);
	_exit(0);
}

/* Runs, and logs the times it went without running. */
static void *busy(void *arg)
{
	struct arena *a = arg;
	__u64 prev = wt_clock_ns(CLOCK_MONOTONIC), now;

	while (atomic_load(&a->phase) != STOP) {
		now = wt_clock_ns(CLOCK_MONOTONIC);
		note_span(a, BUSY, prev, now);
		prev = now;
	}
	return NULL;
}

/* Reads a 1 ms FIXED_RATE timeout: how late it fired, how far apart reads are. */
static void *victim(void *arg)
{
	struct arena *a = arg;
	struct pollfd p = { .events = POLLIN };
	struct wt_event ev;
	__u64 prev, now;
	int fd;

	fd = wt_open();
	if (fd < 0 || wt_add_full(fd, WT_FIXED_RATE, MSEC, MSEC, 0, 0, NULL)) {
		atomic_fetch_add(&a->victim_errors, 1);
		return NULL;
	}
	p.fd = fd;
	prev = wt_clock_ns(CLOCK_MONOTONIC);
	while (atomic_load(&a->phase) != STOP) {
		if (poll(&p, 1, 30000) != 1 || wt_read(fd, &ev, 1) != 1) {
			atomic_fetch_add(&a->victim_errors, 1);
			break;
		}
		now = wt_clock_ns(CLOCK_MONOTONIC);
		if (ev.fired_at < ev.deadline || now < ev.deadline)
			atomic_fetch_add(&a->victim_errors, 1);
		else
			note_span(a, LATE, ev.deadline, ev.fired_at);
		note_span(a, GAP, prev, now);
		atomic_fetch_add(&a->reads, 1);
		prev = now;
	}
	close(fd);
	return NULL;
}

/*
 * A baseline or an attack lasts PHASE_NS and until the attacker began
 * MIN_ROUNDS rounds in it; a pause PAUSE_NS and until the attacker began
 * one round in it, so that no attack round is left for the next baseline;
 * none of them longer than @limit_ns.
 */
static void run_phase(struct arena *a, int ph, __u64 limit_ns)
{
	long min_rounds = is_pause(ph) ? 1 : MIN_ROUNDS;
	__u64 least = is_pause(ph) ? PAUSE_NS : PHASE_NS;
	__u64 t0, now;

	atomic_store(&a->phase, ph);
	t0 = wt_clock_ns(CLOCK_MONOTONIC);
	a->start_ns[ph] = t0;
	do {
		usleep(50000);
		now = wt_clock_ns(CLOCK_MONOTONIC);
	} while (now - t0 < limit_ns &&
		 (now - t0 < least || atomic_load(&a->rounds[ph]) < min_rounds));
}

static double ms(__u64 ns)
{
	return ns / 1e6;
}

/* The longest part of an interval of @metric that lies in phase @ph. */
static __u64 phase_max(const struct arena *a, int metric, int ph)
{
	__u64 from, to, v = 0;
	int i, n = atomic_load(&a->nr_spans);

	for (i = 0; i < n && i < NR_SPANS; i++) {
		if (a->spans[i].metric != metric)
			continue;
		from = a->spans[i].from > a->start_ns[ph] ?
		       a->spans[i].from : a->start_ns[ph];
		to = a->spans[i].to < a->start_ns[ph + 1] ?
		     a->spans[i].to : a->start_ns[ph + 1];
		if (to > from && to - from > v)
			v = to - from;
	}
	return v;
}

/*
 * Prints the verdict's figures for @metric; true if the attack phase that
 * did least harm stayed within the bound set by the baseline phase that
 * saw the most noise.
 */
static bool within_bound(const struct arena *a, int metric)
{
	__u64 base = 0, att = UINT64_MAX, limit, v;
	int ph;

	for (ph = 0; ph < PHASES; ph++) {
		if (is_pause(ph))
			continue;
		v = phase_max(a, metric, ph);
		if (is_attack(ph) && v < att)
			att = v;
		if (!is_attack(ph) && v > base)
			base = v;
	}
	limit = BOUND_FACTOR * base + BOUND_SLACK_NS;
	ksft_print_msg("%s: worst baseline %.1f ms, mildest attack %.1f ms, allowed %.1f ms\n",
		       metric_name[metric], ms(base), ms(att), ms(limit));
	return att <= limit;
}

FIXTURE(attack) {
	int fd;
};

FIXTURE_SETUP(attack)
{
	self->fd = wt_open();
}

FIXTURE_TEARDOWN(attack)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F_TIMEOUT(attack, clock_steps_back_do_not_stall_the_cpu, 900)
{
	pthread_t busy_th, victim_th;
	struct arena *a;
	int status, ph, m, i;
	pid_t pid;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_EQ(0, pin_to_cpu0()) TH_LOG("sched_setaffinity: %m");
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, a);
	memset(a, 0, sizeof(*a));
	a->nr_attack = debug_kernel() ? NR_ATTACK_DEBUG : NR_ATTACK;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		attacker(a);
	/* The fill takes a while under emulation, longer with KASAN. */
	for (i = 0; i < 6000 && !atomic_load(&a->ready); i++)
		usleep(100000);
	ASSERT_EQ(1, atomic_load(&a->ready)) TH_LOG("the attacker's fill failed");
	ksft_print_msg("the attacker added %u timeouts in %.1f s\n",
		       a->nr_attack, atomic_load(&a->fill_ns) / 1e9);

	ASSERT_EQ(0, pthread_create(&victim_th, NULL, victim, a));
	ASSERT_EQ(0, pthread_create(&busy_th, NULL, busy, a));
	for (ph = 0; ph < PHASES; ph++)
		run_phase(a, ph, 120 * SEC);
	atomic_store(&a->phase, STOP);
	a->start_ns[PHASES] = wt_clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	pthread_join(busy_th, NULL);
	pthread_join(victim_th, NULL);

	ksft_print_msg("phase    length   attacker rounds     ms max: busy, apart, late\n");
	for (ph = 0; ph < PHASES; ph++)
		ksft_print_msg("%-8s %4.1f s: %5ld rounds (%6.1f ms max); max: %6.1f %6.1f %6.1f\n",
			       is_pause(ph) ? "pause" :
			       is_attack(ph) ? "attack" : "baseline",
			       (a->start_ns[ph + 1] - a->start_ns[ph]) / 1e9,
			       atomic_load(&a->rounds[ph]),
			       ms(atomic_load(&a->round_max_ns[ph])),
			       ms(phase_max(a, BUSY, ph)),
			       ms(phase_max(a, GAP, ph)),
			       ms(phase_max(a, LATE, ph)));
	ksft_print_msg("attacker: rebuilds %lld, rewinds %lld (-1: no key); victim: %ld reads\n",
		       (long long)atomic_load(&a->rebuilds),
		       (long long)atomic_load(&a->rewinds),
		       atomic_load(&a->reads));

	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_EQ(0, atomic_load(&a->attacker_errors));
	EXPECT_EQ(0, atomic_load(&a->victim_errors));
	EXPECT_GE(NR_SPANS, atomic_load(&a->nr_spans));
	for (ph = 0; ph < PHASES; ph++)
		if (!is_pause(ph))
			EXPECT_LE(MIN_ROUNDS, atomic_load(&a->rounds[ph]));
	for (m = 0; m < METRICS; m++)
		EXPECT_TRUE(within_bound(a, m))
			TH_LOG("too long while the attacker stepped back: see above");
	munmap(a, sizeof(*a));
}

/* ------------------------------------------------- ADVANCE to KTIME_MAX */

/* The last deadline that can fire at 1 us resolution, and ADVANCE's target. */
#define FAR_LAST	(WT_KTIME_MAX / USEC * USEC)
#define FAR_TARGET	(WT_KTIME_MAX - 1)

struct far_child {
	pid_t pid;
	int filled;	/* read end: a byte once the fill is done */
	int result;	/* read end: the struct wt_advance once it returned */
};

/*
 * Fork a child that fills @fd (already configured) with NR_FAR timeouts
 * within 2^36 us below FAR_LAST, says so on a pipe, advances the clock to
 * FAR_TARGET and writes the answer on another pipe.
 */
static int far_start(int fd, struct far_child *c)
{
	int filled[2], result[2], null;
	struct wt_advance adv = { .time = FAR_TARGET, .flags = WT_ADVANCE_SET };

	if (pipe(filled) || pipe(result))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		/* It may outlive the test: hold no pipe the runner reads. */
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close(filled[0]);
		close(result[0]);
		if (fill(fd, NR_FAR, FAR_LAST - (1ULL << 36) * USEC,
			 (1ULL << 36) * USEC, 0xfa4) != NR_FAR)
			_exit(1);
		if (write(filled[1], "f", 1) != 1)
			_exit(1);
		if (ioctl(fd, WT_IOC_ADVANCE, &adv))
			_exit(2);
		if (write(result[1], &adv, sizeof(adv)) != sizeof(adv))
			_exit(1);
		_exit(0);
	}
	close(filled[1]);
	close(result[1]);
	c->filled = filled[0];
	c->result = result[0];
	return 0;
}

/* Wait up to @ms for @fd to be readable (or closed). */
static bool wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/*
 * Whether the child's ADVANCE on @fd is under way: the wheel's clock has
 * moved off @clk0, where the fill left it, and no answer is on @result
 * yet. Looks every millisecond, for as long as a fill may take; false
 * once the answer is there. The ADVANCE works in slices, and the clock
 * moves after the first, so that a fast machine is caught early in it
 * (a fixed wait of 0.7 s missed ADVANCEs of 0.67 s).
 */
static bool advance_under_way(int fd, int result, __u64 clk0)
{
	int waited;

	for (waited = 0; waited < 600000; waited++) {
		if (wait_readable(result, 1))
			return false;
		if (wt_fdinfo(fd, "clk") != clk0)
			return !wait_readable(result, 0);
	}
	return false;
}

/* Reap @pid within @ms; returns false (and leaves it) if it is still there. */
static bool reap_within(pid_t pid, int ms, int *status)
{
	int waited;

	for (waited = 0; waited <= ms; waited += 10) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return true;
		usleep(10000);
	}
	return false;
}

static int far_config(int fd)
{
	return wt_config(fd, WT_RESOLUTION_MIN, CLOCK_MONOTONIC,
			 WT_CONFIG_VIRTUAL, NR_FAR);
}

/*
 * The bound: a wheel that re-examines its far entries at every 2^42 ticks
 * walks the million of them 2048 times on the way, which took 78 to 170 s
 * under emulation on Debian's kernel and 258 s on the debug kernel; one
 * that moves each entry at most ten times needs a few seconds.
 */
TEST_F_TIMEOUT(attack, advance_to_ktime_max_over_far_timeouts_is_bounded, 900)
{
	int limit_s = debug_kernel() ? 60 : 20, status;
	struct far_child c;
	struct wt_advance adv;
	__u64 t0, dt, clk;
	char byte;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_EQ(0, far_config(self->fd));
	ASSERT_EQ(0, far_start(self->fd, &c));
	ASSERT_TRUE(wait_readable(c.filled, 600000));
	ASSERT_EQ(1, read(c.filled, &byte, 1)) TH_LOG("the fill failed");
	t0 = wt_clock_ns(CLOCK_MONOTONIC);

	if (!wait_readable(c.result, limit_s * 1000)) {
		dt = wt_clock_ns(CLOCK_MONOTONIC) - t0;
		clk = wt_fdinfo(self->fd, "clk");
		ksft_print_msg("after %.1f s the wheel's clock is at tick %llu of %llu (%.4f%%)\n",
			       dt / 1e9, clk, FAR_TARGET / USEC,
			       100.0 * clk / (FAR_TARGET / USEC));
		if (clk > 0 && clk < FAR_TARGET / USEC)
			ksft_print_msg("at that pace the whole ADVANCE takes %.0f s\n",
				       dt / 1e9 * (FAR_TARGET / USEC) / clk);
		kill(c.pid, SIGKILL);
		if (!reap_within(c.pid, 5000, &status))
			ksft_print_msg("nor did SIGKILL end it: child %d left behind\n",
				       c.pid);
		ASSERT_TRUE(false) TH_LOG("ADVANCE to KTIME_MAX - 1 took more than %d s",
					  limit_s);
	}
	dt = wt_clock_ns(CLOCK_MONOTONIC) - t0;
	ASSERT_EQ(sizeof(adv), read(c.result, &adv, sizeof(adv)))
		TH_LOG("the ADVANCE failed");
	ASSERT_TRUE(reap_within(c.pid, 10000, &status));
	ksft_print_msg("ADVANCE to KTIME_MAX - 1 over %u far timeouts: %.2f s, %llu fired\n",
		       NR_FAR, dt / 1e9, adv.expired);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_EQ(FAR_TARGET, adv.now);
	EXPECT_EQ(NR_FAR, adv.expired);
	EXPECT_EQ(NR_FAR, wt_fdinfo(self->fd, "ready"));
	EXPECT_EQ(0, wt_fdinfo(self->fd, "pending"));
	close(c.filled);
	close(c.result);
}

TEST_F_TIMEOUT(attack, sigkill_ends_a_long_advance, 900)
{
	struct wt_advance adv;
	struct far_child c;
	__u64 t0;
	int status;
	char byte;

	if (self->fd < 0)
		SKIP(return, "%s: %s", WT_DEV, strerror(errno));
	ASSERT_EQ(0, far_config(self->fd));
	ASSERT_EQ(0, far_start(self->fd, &c));
	ASSERT_TRUE(wait_readable(c.filled, 600000));
	ASSERT_EQ(1, read(c.filled, &byte, 1)) TH_LOG("the fill failed");
	if (!advance_under_way(self->fd, c.result, wt_fdinfo(self->fd, "clk"))) {
		ASSERT_EQ(sizeof(adv), read(c.result, &adv, sizeof(adv)))
			TH_LOG("the ADVANCE failed");
		reap_within(c.pid, 10000, &status);
		SKIP(return, "the ADVANCE ended before it was seen under way");
	}
	ksft_print_msg("the ADVANCE under way: %llu of %u timeouts fired\n",
		       wt_fdinfo(self->fd, "ready"), NR_FAR);
	t0 = wt_clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, kill(c.pid, SIGKILL));
	if (!reap_within(c.pid, 5000, &status)) {
		ksft_print_msg("child %d still in its ADVANCE 5 s after SIGKILL: left behind\n",
			       c.pid);
		ASSERT_TRUE(false) TH_LOG("SIGKILL did not end the ADVANCE");
	}
	ksft_print_msg("SIGKILL ended the ADVANCE in %.3f s\n",
		       (wt_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* What fired stays fired: every timeout is still accounted for. */
	EXPECT_EQ(NR_FAR, wt_fdinfo(self->fd, "live"));
	close(c.filled);
	close(c.result);
}

TEST_HARNESS_MAIN
