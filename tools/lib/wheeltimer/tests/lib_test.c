// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * lib_test.c - libwheeltimer's test suite, the same cases on either engine:
 * its runner and the helpers its topics (*_test.c, lib_test.h) share
 *
 *   lib_test [-c] -e process|kernel [-n HANDLES] [-u UNIT]
 *
 * -n sets the size of the request-timeout case (1000000), -u the name of
 * the TAP unit (lib/ENGINE); -c lets the cases that step CLOCK_REALTIME
 * run (as root, in a VM: tests/run-vm), which are skipped otherwise.
 *
 * Every case opens its contexts on the engine named by -e, so the same
 * expectations hold the kernel's /dev/wheeltimer and the in-process engine
 * to one set of semantics. Expected values are worked out here from the
 * documented rules (a deadline D fires at tick ceil(D / resolution), a
 * FIXED_RATE timeout reaped at T reports (T - D) / period overruns, ...),
 * never read back from the library. With the kernel engine the suite also
 * runs everything against a second, in-process context and compares the
 * two answer for answer. Timing on an emulated machine is noisy, so the
 * real-clock cases assert only what holds at any speed: never early,
 * exactly once, order, counts.
 *
 * It links the library's objects, built with WTL_TEST, rather than the
 * shared library, to reach the engines directly and the handshake's test
 * hook.
 */
#include "lib_test.h"

uint32_t engine;
const char *engine_name;
unsigned long n_request = 1000000;
bool may_step_clock;

static const struct tap_test *const topics[] = {
	open_tests,
	virtual_tests,
	queue_tests,
	realclock_tests,
	wake_tests,
	stats_tests,
	reap_tests,
	engines_tests,
	NULL,
};

int open_ctx(struct wheeltimer **wt, uint32_t eng, uint32_t flags,
	     int32_t clockid, uint64_t max_pending, uint32_t depth)
{
	struct wheeltimer_params p;

	wheeltimer_params_init(&p);
	p.engine = eng;
	p.flags = flags;
	p.clockid = clockid;
	p.resolution_ns = MS;
	p.max_pending = max_pending;
	p.queue_depth = depth;
	return wheeltimer_open(&p, wt);
}

/* A virtual-clock context on the engine under test, 1 ms resolution. */
int open_virtual(struct wheeltimer **wt)
{
	return open_ctx(wt, engine, WHEELTIMER_PARAM_VIRTUAL, CLOCK_MONOTONIC,
			0, 0);
}

/* Reap until nothing is ready; returns the records or a negative errno. */
int reap_all(struct wheeltimer *wt, struct wheeltimer_event *evs, int cap)
{
	int n = 0, r = 0;

	while (n < cap && (r = wheeltimer_reap(wt, evs + n, cap - n)) > 0)
		n += r;
	return r < 0 ? r : n;
}

int64_t advance_to(struct wheeltimer *wt, uint64_t t)
{
	uint64_t expired;
	int r = wheeltimer_advance(wt, t, WHEELTIMER_ADVANCE_SET, NULL,
				   &expired);

	return r ? r : (int64_t)expired;
}

uint64_t stat_of(struct wheeltimer *wt, const char *key)
{
	uint64_t v;

	return wheeltimer_stat(wt, key, &v) ? UINT64_MAX : v;
}

/* The module counts "rebuilds" today, "rewinds" after issue 11. */
uint64_t rewinds_of(struct wheeltimer *wt)
{
	struct wheeltimer_stats st;

	if (wheeltimer_stats(wt, &st) || !(st.present & WHEELTIMER_STAT_REWINDS))
		return UINT64_MAX;
	return st.rewinds;
}

/* The tick boundary at which a deadline fires with no slack. */
uint64_t tick_of(uint64_t deadline)
{
	return (deadline + MS - 1) / MS * MS;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *unit_name = NULL;
	char unit[64];
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	engine_name = "process";
	while ((opt = getopt(argc, argv, "ce:n:u:")) != -1) {
		switch (opt) {
		case 'c':
			may_step_clock = true;
			break;
		case 'e':
			engine_name = optarg;
			break;
		case 'n':
			n_request = strtoul(optarg, NULL, 0);
			break;
		case 'u':
			unit_name = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-c] [-e process|kernel] [-n HANDLES] [-u UNIT]\n",
				argv[0]);
			return 2;
		}
	}
	if (!strcmp(engine_name, "kernel")) {
		engine = WHEELTIMER_ENGINE_KERNEL;
	} else if (!strcmp(engine_name, "process")) {
		engine = WHEELTIMER_ENGINE_PROCESS;
	} else {
		fprintf(stderr, "lib_test: no engine '%s'\n", engine_name);
		return 2;
	}
	setenv("WHEELTIMER_ENGINE", engine_name, 1);
	unsetenv("WHEELTIMER_DEVICE");
	snprintf(unit, sizeof(unit), "lib/%s", unit_name ? unit_name : engine_name);
	return tap_run(unit, topics) ? 1 : 0;
}
