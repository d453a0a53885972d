/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * lib_test.h - what the topics of libwheeltimer's test suite share: the
 * engine under test, units, and the helpers every topic uses
 *
 * Each topic (*_test.c) holds its cases and a table of them, NULL
 * terminated; lib_test.c runs the tables in order, as one TAP unit per
 * engine.
 */
#ifndef _WHEELTIMER_LIB_TEST_H
#define _WHEELTIMER_LIB_TEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

#define US		1000ULL
#define MS		1000000ULL
#define SEC		1000000000ULL
#define TMAX		((uint64_t)INT64_MAX)
#define EVS		256

/* The engine under test (-e), its name, and the request-timeout size (-n). */
extern uint32_t engine;
extern const char *engine_name;
extern unsigned long n_request;
/* -c: the cases may step CLOCK_REALTIME (in a VM, as root). */
extern bool may_step_clock;

int open_ctx(struct wheeltimer **wt, uint32_t eng, uint32_t flags,
	     int32_t clockid, uint64_t max_pending, uint32_t depth);
int open_virtual(struct wheeltimer **wt);
int reap_all(struct wheeltimer *wt, struct wheeltimer_event *evs, int cap);
int64_t advance_to(struct wheeltimer *wt, uint64_t t);
uint64_t stat_of(struct wheeltimer *wt, const char *key);
uint64_t rewinds_of(struct wheeltimer *wt);
uint64_t tick_of(uint64_t deadline);
uint64_t mono_ns(void);

/* The topics, in the order they run. */
extern const struct tap_test open_tests[];
extern const struct tap_test virtual_tests[];
extern const struct tap_test queue_tests[];
extern const struct tap_test realclock_tests[];
extern const struct tap_test wake_tests[];
extern const struct tap_test stats_tests[];
extern const struct tap_test reap_tests[];
extern const struct tap_test engines_tests[];

#endif /* _WHEELTIMER_LIB_TEST_H */
