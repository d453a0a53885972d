// SPDX-License-Identifier: GPL-2.0
/*
 * model_main.c - the randomized model test: runs module/wheel.c and the
 * reference heap through N random operations in epochs (a fresh wheel at a
 * random clock and a random pool size each) and stops at the first broken
 * promise. Usage: model [-s SEED] [-n OPS]; the seed is printed so that a
 * failure can be replayed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model.h"

static u64 seed;

static void report_failure(const char *msg)
{
	printf("not ok 1 - model, seed %llu: %s\n", (unsigned long long)seed,
	       msg);
	printf("# replay: model -s %llu\n", (unsigned long long)seed);
	printf("# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0\n");
	fflush(stdout);
	exit(1);
}

static const char *level_name(int l)
{
	static char buf[4][8];
	static unsigned int i;
	char *b = buf[i++ % 4];

	snprintf(b, sizeof(buf[0]), "L%d", l);
	return b;
}

static void report(const struct model *m, double secs)
{
	static const char * const names[OP_NR] = {
		"add", "cancel", "modify", "advance", "expire", "tickless",
		"drain-one", "rewind",
	};
	const struct model_stats *st = &m->st;
	u64 total = 0;
	int i;

	printf("# %llu steps in %llu epochs, %.1f s\n",
	       (unsigned long long)st->steps, (unsigned long long)st->epochs,
	       secs);
	printf("#  ops:");
	for (i = 0; i < OP_NR; i++)
		printf(" %s %llu", names[i], (unsigned long long)st->op[i]);
	printf("\n");
	printf("#  handed out %llu, cancelled %llu (+%llu not pending), drained %llu\n",
	       (unsigned long long)st->fired, (unsigned long long)st->cancelled,
	       (unsigned long long)st->cancel_missed,
	       (unsigned long long)st->drained);
	printf("#  wt_wheel_expire calls %llu, budget units %llu\n",
	       (unsigned long long)st->expire_calls,
	       (unsigned long long)st->budget_units);
	printf("#  expired to the end %llu times, cut short %llu, most units at once %llu\n",
	       (unsigned long long)st->full_drains,
	       (unsigned long long)st->partial_drains,
	       (unsigned long long)st->max_units_one_drain);
	for (i = 0; i < WHEEL_LEVELS + 1; i++)
		total += st->placed[i];
	printf("#  where entries sat at %llu white-box checks (%%):",
	       (unsigned long long)st->checks);
	for (i = 0; i < WHEEL_LEVELS + 1; i++)
		printf(" %s %.1f", i < WHEEL_LEVELS ? level_name(i) : "due",
		       total ? 100.0 * st->placed[i] / total : 0.0);
	printf("\n");
	printf("#  adds and modifies placed at:");
	for (i = 0; i < WHEEL_LEVELS + 1; i++)
		printf(" %s %llu", i < WHEEL_LEVELS ? level_name(i) : "due",
		       (unsigned long long)st->added[i]);
	printf("\n");
	printf("#  rewinds by highest digit changed:");
	for (i = 0; i < WHEEL_LEVELS; i++)
		printf(" %s %llu", level_name(i),
		       (unsigned long long)st->rewound[i]);
	printf(", not behind the clock %llu\n",
	       (unsigned long long)st->rewind_noops);
	printf("#  rewinds: %llu splices, at most %llu at once; %llu due made future\n",
	       (unsigned long long)st->rewind_splices,
	       (unsigned long long)st->rewind_max_splices,
	       (unsigned long long)st->rewind_future_due);
	printf("#  wt_wheel_expire calls whose work was accounted: %llu\n",
	       (unsigned long long)st->watched_calls);
	printf("#  steps with the clock above 2^63: %llu\n",
	       (unsigned long long)st->near_max_clk);
}

int main(int argc, char **argv)
{
	u64 ops = 10000000, done;
	struct model_src src = { 0 };
	struct model m = { 0 };
	struct timespec t0, t1;
	int opt;

	seed = (u64)time(NULL) ^ ((u64)getpid() << 32);
	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			ops = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-s seed] [-n ops]\n", argv[0]);
			return 2;
		}
	}

	printf("TAP version 13\n1..1\n");
	printf("# model: seed %llu, %llu ops\n", (unsigned long long)seed,
	       (unsigned long long)ops);
	fflush(stdout);
	src.rng = seed;
	wheel_warn_fatal = true;
	model_fail_hook = report_failure;
	m.check_every = 1024;
	m.watch_every = 8;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (m.st.steps < ops) {
		/* Epochs of 1000 to ~300000 steps, some long enough to fill. */
		u64 len = 1000 + rng_next(&src.rng) % 300000;

		if (model_epoch_begin(&m, &src, 4096)) {
			report_failure("out of memory");
			return 1;
		}
		for (done = 0; done < len && m.st.steps < ops; done++)
			model_step(&m);
		model_epoch_end(&m);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	report(&m, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	printf("ok 1 - model: %llu ops against the reference heap, seed %llu\n",
	       (unsigned long long)m.st.steps, (unsigned long long)seed);
	printf("# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0\n");
	return 0;
}
