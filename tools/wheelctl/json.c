// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - wheelctl's --json output: one JSON object per line on stdout,
 * with strings escaped so that any bytes make valid JSON (see json.h)
 */
#include <string.h>

#include "json.h"

/* Whether the JSON object being printed has no member yet. */
static bool json_first;

/*
 * The length of the valid UTF-8 sequence (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF) that @s starts with, or 0.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', f);
	while (*p) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			fputc(*p++, f);
		} else {
			n = utf8_len(p);
			if (n) {
				fwrite(p, 1, n, f);
				p += n;
			} else {
				fputs("\\ufffd", f);
				p++;
			}
		}
	}
	fputc('"', f);
}

void json_key(const char *key)
{
	if (!json_first)
		putchar(',');
	json_first = false;
	json_string(stdout, key);
	putchar(':');
}

void json_begin(const char *key, const char *value)
{
	putchar('{');
	json_first = true;
	json_str(key, value);
}

void json_u64(const char *key, uint64_t v)
{
	json_key(key);
	printf("%llu", (unsigned long long)v);
}

void json_str(const char *key, const char *v)
{
	json_key(key);
	json_string(stdout, v);
}

void json_bool(const char *key, bool v)
{
	json_key(key);
	fputs(v ? "true" : "false", stdout);
}

void json_null(const char *key)
{
	json_key(key);
	fputs("null", stdout);
}

void json_rate(const char *key, double v)
{
	json_key(key);
	printf("%.1f", v);
}

void json_end(void)
{
	puts("}");
}

void json_error(const char *code, const char *what, const char *message)
{
	json_begin("error", code);
	json_str("what", what);
	json_str("message", message);
	json_end();
}

/* A JSON number: digits without a leading zero, or a lone 0. */
static bool is_number(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s) && (s[0] != '0' || !s[1]);
}

static void json_scalar(char *val)
{
	if (is_number(val))
		fputs(val, stdout);
	else if (!strcmp(val, "-"))
		fputs("null", stdout);
	else
		json_string(stdout, val);
}

void json_fdinfo_value(const char *key, char *val)
{
	char *tok, *save;
	bool first = true;

	json_key(key);
	if (!strchr(val, '\t')) {
		json_scalar(val);
		return;
	}
	/* A list, as slots_occupied is. */
	putchar('[');
	for (tok = strtok_r(val, "\t", &save); tok; tok = strtok_r(NULL, "\t", &save)) {
		if (!first)
			putchar(',');
		json_scalar(tok);
		first = false;
	}
	putchar(']');
}
