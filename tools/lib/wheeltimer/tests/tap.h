/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tap.h - the few lines of TAP the library's tests print, in the shape
 * tools/ksft-summary counts: "# unit: NAME", "ok N name", "not ok N name"
 * with the failed check before it, "ok N name # SKIP why", and a kselftest
 * "# Totals:" line (tap.c).
 *
 * A test is a void function run once, in the order given. CHECK() and
 * CHECK_EQ() fail it and tap_skip() skips it by jumping back to the runner
 * (longjmp), so the rest of the test, which relies on what was checked,
 * does not run. What the test had allocated is then left to the exit.
 */
#ifndef _WHEELTIMER_TAP_H
#define _WHEELTIMER_TAP_H

#include <stdnoreturn.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* A test; a table of them ends with one whose @name is NULL. */
struct tap_test {
	const char *name;
	void (*fn)(void);
};

noreturn void tap_fail(const char *file, int line, const char *what);
noreturn void tap_fail_eq(const char *file, int line, const char *a,
			  const char *b, long long va, long long vb);
noreturn void tap_skip(const char *why);

#define CHECK(cond) do {						\
	if (!(cond))							\
		tap_fail(__FILE__, __LINE__, #cond);			\
} while (0)

/* CHECK(a == b) for integers, printing both sides when it fails. */
#define CHECK_EQ(a, b) do {						\
	long long __a = (long long)(a), __b = (long long)(b);		\
	if (__a != __b)							\
		tap_fail_eq(__FILE__, __LINE__, #a, #b, __a, __b);	\
} while (0)

/*
 * Run the tests of @tables (a NULL-terminated list of tables) as one TAP
 * unit; returns the number that failed.
 */
int tap_run(const char *unit, const struct tap_test *const *tables);

#endif /* _WHEELTIMER_TAP_H */
