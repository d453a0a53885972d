// SPDX-License-Identifier: GPL-2.0
/*
 * deb-example - the program check-deb builds against the unpacked
 * libwheeltimer-dev package, with the flags pkg-config gives, and runs on
 * the host against the unpacked libwheeltimer1: the in-process engine on a
 * virtual clock, so that it needs neither the module nor time. One timeout,
 * due at 5 ms, must come back once, final, at its deadline, when the clock
 * is moved to 10 ms. Prints the library's version and "...: ok".
 */
#include <stdio.h>
#include <stdlib.h>

#include <wheeltimer/wheeltimer.h>

#define MSEC	1000000ULL

static int fail(const char *what, int err)
{
	fprintf(stderr, "deb-example: %s: %s\n", what, wheeltimer_strerror(err));
	return EXIT_FAILURE;
}

int main(void)
{
	struct wheeltimer_params p;
	struct wheeltimer_event ev[4];
	struct wheeltimer *wt;
	uint64_t handle, now, expired;
	int ret, n;

	wheeltimer_params_init(&p);
	p.engine = WHEELTIMER_ENGINE_PROCESS;
	p.flags = WHEELTIMER_PARAM_VIRTUAL;
	ret = wheeltimer_open(&p, &wt);
	if (ret < 0)
		return fail("wheeltimer_open", ret);
	ret = wheeltimer_add(wt, 5 * MSEC, 0, 0, 42, &handle);
	if (ret < 0)
		return fail("wheeltimer_add", ret);
	ret = wheeltimer_submit(wt);
	if (ret < 0)
		return fail("wheeltimer_submit", ret);
	ret = wheeltimer_advance(wt, 10 * MSEC, 0, &now, &expired);
	if (ret < 0)
		return fail("wheeltimer_advance", ret);
	n = wheeltimer_reap(wt, ev, 4);
	if (n < 0)
		return fail("wheeltimer_reap", n);
	if (n != 1 || ev[0].handle != handle || ev[0].cookie != 42 ||
	    ev[0].deadline != 5 * MSEC || ev[0].fired_at < ev[0].deadline ||
	    !(ev[0].flags & WHEELTIMER_EV_FINAL)) {
		fprintf(stderr, "deb-example: reaped %d events, not the one timeout\n", n);
		return EXIT_FAILURE;
	}
	wheeltimer_close(wt);
	printf("deb-example: libwheeltimer %d.%d: one timeout, reaped once: ok\n",
	       wheeltimer_major_version(), wheeltimer_minor_version());
	return EXIT_SUCCESS;
}
