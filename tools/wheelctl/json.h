/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - wheelctl's --json output: one JSON object per line on stdout
 *
 * Strings are escaped so that every line is valid JSON (RFC 8259) whatever
 * bytes they hold: '"', '\' and control characters as escapes, valid UTF-8
 * as it is, and each byte that is not part of a valid UTF-8 sequence as
 * U+FFFD, the replacement character (\ufffd).
 */
#ifndef _WHEELCTL_JSON_H
#define _WHEELCTL_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include <stdint.h>

void json_begin(const char *key, const char *value);
void json_key(const char *key);
void json_u64(const char *key, uint64_t v);
void json_str(const char *key, const char *v);
void json_bool(const char *key, bool v);
void json_null(const char *key);
void json_rate(const char *key, double v);
void json_end(void);
/* {"error":CODE,"what":WHAT,"message":MESSAGE}, as every error is printed. */
void json_error(const char *code, const char *what, const char *message);

/* A string value alone, quoted and escaped, as in an array. */
void json_string(FILE *f, const char *s);
/* A fdinfo value: a number, null for "-", an array of tab-separated ones, or a string. */
void json_fdinfo_value(const char *key, char *val);

#endif /* _WHEELCTL_JSON_H */
