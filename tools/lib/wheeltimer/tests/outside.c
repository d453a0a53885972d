// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * outside.c - a program as a user would write it, built outside the tree
 * against an installed libwheeltimer with nothing but
 * `pkg-config --cflags --libs wheeltimer` (tests/install-test does that)
 *
 * It arms three request timeouts, answers one in time, waits for the
 * other two, and says which engine served it: "outside: ENGINE: ok".
 */
#include <stdio.h>
#include <stdlib.h>
#include <wheeltimer/wheeltimer.h>

int main(void)
{
	struct wheeltimer_event ev[4];
	uint64_t h[3], now;
	struct wheeltimer *wt;
	int i, r, got = 0;

	r = wheeltimer_open(NULL, &wt);
	if (r) {
		fprintf(stderr, "outside: open: %s\n", wheeltimer_strerror(r));
		return 1;
	}
	for (i = 0; i < 3; i++) {
		r = wheeltimer_add(wt, (i + 1) * 10000000ULL, 0, 0, 100 + i,
				   &h[i]);
		if (r)
			goto fail;
	}
	r = wheeltimer_cancel(wt, h[1], 0);
	if (r)
		goto fail;
	while (got < 2) {
		r = wheeltimer_wait(wt, ev, 4, 10000000000LL);
		if (r <= 0)
			goto fail;
		wheeltimer_now(wt, &now);
		for (i = 0; i < r; i++) {
			if (ev[i].cookie == 101 || ev[i].fired_at < ev[i].deadline ||
			    now < ev[i].deadline) {
				fprintf(stderr, "outside: bad record, cookie %llu\n",
					(unsigned long long)ev[i].cookie);
				return 1;
			}
		}
		got += r;
	}
	printf("outside: %s: ok\n",
	       wheeltimer_engine(wt) == WHEELTIMER_ENGINE_KERNEL ? "kernel" :
								  "process");
	wheeltimer_close(wt);
	return 0;
fail:
	fprintf(stderr, "outside: %s\n", r ? wheeltimer_strerror(r) : "timed out");
	wheeltimer_close(wt);
	return 1;
}
