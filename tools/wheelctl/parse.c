// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - wheelctl's durations and times: "250us", "1.5s", "2h"
 */
#include <stdint.h>
#include <string.h>

#include "parse.h"

#define NSEC_PER_SEC	1000000000ULL
#define KTIME_MAX_NS	((uint64_t)INT64_MAX)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * A duration or time: digits, an optional fraction, an optional unit. Fails
 * on anything else and on values beyond KTIME_MAX.
 */
int parse_time(const char *s, uint64_t *out)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", NSEC_PER_SEC }, { "m", 60 * NSEC_PER_SEC },
		{ "h", 3600 * NSEC_PER_SEC }, { "", 1 },
	};
	uint64_t whole = 0, frac = 0, scale = 1, mult = 0;
	const char *p = s;
	size_t i;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		uint64_t digit = (uint64_t)(*p - '0');

		if (whole > (KTIME_MAX_NS - digit) / 10)
			return -1;
		whole = whole * 10 + digit;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale < NSEC_PER_SEC) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
		}
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(p, units[i].name)) {
			mult = units[i].ns;
			break;
		}
	}
	if (!mult)
		return -1;
	if (whole > KTIME_MAX_NS / mult)
		return -1;
	whole *= mult;
	frac = frac * mult / scale;
	if (frac > KTIME_MAX_NS - whole)
		return -1;
	*out = whole + frac;
	return 0;
}
