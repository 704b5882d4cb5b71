/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TEXT_TEXT_H_
#define UET_TEXT_TEXT_H_

#include <stddef.h>
#include <stdint.h>

/*
 * What the option parser (lib/conf) and the failure vocabulary (lib/sim)
 * share when they read text: quoting user input in messages, stripping,
 * numbers, and the one time syntax every tool takes. Each parser returns
 * 0, or -1 with a message in err (err may be NULL).
 */

/* Writes the message into err and returns -1. */
int uet_text_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* s made printable (others as '?') and cut to fit n ("..." marks a cut). */
const char *uet_text_shown(const char *s, char *buf, size_t n);
#define UET_SHOWN(s) uet_text_shown((s), (char[72]){ 0 }, 72)

/* Leading and trailing white space cut off, in place. */
char *uet_text_strip(char *s);

/* A finite decimal number: no "inf", "nan", hex or white space. */
int uet_text_parse_double(const char *s, double *out, char *err, size_t n);

/*
 * A time: a number with a unit, ns, us, ms or s, and a bare number is
 * seconds ("2.5", "250ms", "100us"); at most 1e6 s, whole nanoseconds.
 * uet-perf (--fail-ev-at, --exec-at, -D), uet-sim (--failure) and
 * tools/fabric (schedule --at) all take it.
 */
int uet_text_parse_time_ns(const char *s, uint64_t *ns, char *err, size_t n);

#endif
