/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/text.h"

#define TIME_MAX_NS 1000000999999999ULL /* just under 1e6 + 1 s */

int
uet_text_fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && n > 0) {
		va_start(ap, fmt);
		vsnprintf(err, n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *
uet_text_shown(const char *s, char *buf, size_t n)
{
	size_t i, j = 0;

	for (i = 0; s[i] != '\0' && j + 4 < n; i++)
		buf[j++] = isprint((unsigned char)s[i]) ? s[i] : '?';
	if (s[i] != '\0' && j >= 3)
		memcpy(buf + j - 3, "...", 3);
	buf[j] = '\0';
	return buf;
}

char *
uet_text_strip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int
uet_text_parse_double(const char *s, double *out, char *err, size_t n)
{
	char *end;
	double v;

	if (*s == '\0')
		return uet_text_fail(err, n, "missing value");
	/* strtod also takes "inf", "nan", hex floats and leading spaces. */
	if (s[strspn(s, "0123456789.eE+-")] != '\0' || strpbrk(s, "0123456789") == NULL)
		return uet_text_fail(err, n, "'%s' is not a number", UET_SHOWN(s));
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || end == s)
		return uet_text_fail(err, n, "'%s' is not a number", UET_SHOWN(s));
	if (errno == ERANGE || !isfinite(v))
		return uet_text_fail(err, n, "'%s' is out of range", UET_SHOWN(s));
	*out = v;
	return 0;
}

int
uet_text_parse_time_ns(const char *s, uint64_t *ns, char *err, size_t n)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };
	unsigned __int128 mant = 0, v;
	uint64_t unit = 1000000000, div = 1;
	const char *p = s;
	size_t i, digits = 0;

	for (; isdigit((unsigned char)*p); p++, digits++)
		if ((mant = mant * 10 + (unsigned)(*p - '0')) > TIME_MAX_NS)
			return uet_text_fail(err, n, "time '%s' is above 1e6 s", UET_SHOWN(s));
	if (*p == '.') {
		if (digits == 0 || !isdigit((unsigned char)p[1]))
			return uet_text_fail(err, n, "'%s' is not a time (a number with ns, "
					     "us, ms or s; bare: seconds)", UET_SHOWN(s));
		for (p++; isdigit((unsigned char)*p); p++, digits++) {
			if (div >= 1000000000000000000ULL)
				return uet_text_fail(err, n, "time '%s' has too many decimals",
						     UET_SHOWN(s));
			mant = mant * 10 + (unsigned)(*p - '0');
			div *= 10;
		}
	}
	if (digits == 0)
		return uet_text_fail(err, n, "'%s' is not a time (a number with ns, us, "
				     "ms or s; bare: seconds)", UET_SHOWN(s));
	if (*p != '\0') {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(p, units[i].suffix) == 0)
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return uet_text_fail(err, n, "time '%s' has an unknown unit (ns, us, "
					     "ms, s)", UET_SHOWN(s));
		unit = units[i].ns;
	}
	v = mant * unit;
	if (v % div != 0)
		return uet_text_fail(err, n, "time '%s' is finer than a nanosecond",
				     UET_SHOWN(s));
	v /= div;
	if (v > TIME_MAX_NS)
		return uet_text_fail(err, n, "time '%s' is above 1e6 s", UET_SHOWN(s));
	*ns = (uint64_t)v;
	return 0;
}
