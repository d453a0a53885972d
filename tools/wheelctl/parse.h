/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h - wheelctl's durations and times: "250us", "1.5s", "2h"
 */
#ifndef _WHEELCTL_PARSE_H
#define _WHEELCTL_PARSE_H

#include <stdint.h>

/*
 * Digits, an optional fraction and an optional unit (ns, us, ms, s, m, h;
 * none is ns) into @out, in ns. Returns 0, or -1 on anything else and on
 * values beyond KTIME_MAX.
 */
int parse_time(const char *s, uint64_t *out);

#endif /* _WHEELCTL_PARSE_H */
