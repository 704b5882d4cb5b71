/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CONF_CONF_INT_H_
#define UET_CONF_CONF_INT_H_

/*
 * What lib/conf's files share (not part of its interface, conf.h): the
 * option table's row type and the table itself, and the helpers more than
 * one of them uses. The files, one job each:
 *   table.c   the option table, profiles, names of patterns and modes
 *   values.c  reading one value (numbers, sizes, times, sets, endpoints)
 *   apply.c   setting an option from a source; the checks across options
 *   ini.c     INI files: options files and hosts lists
 *   cli.c     the command line and profiles; uet_perf_opts_parse
 *   format.c  --help, doc/options.md, INI output, the options' hash
 *   tool.c    options to an endpoint configuration; ranks and launchers
 */

#include <arpa/inet.h>
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <iniparser.h>
#include "text/text.h"
#include "conf/conf.h"
#include "text/series.h"
#include "uet/wire.h"

#ifndef UET_VERSION
#define UET_VERSION "unknown"
#endif

/* iniparser reads lines into 1024-byte buffers (continuations included);
 * stay well below. */
#define INI_LINE_MAX 1000
#define INI_FILE_MAX (1u << 20)
#define IP_UDP_HDR_BYTES 28u

enum opt_type {
	T_BOOL,     /* INI and --name=V: true/false/yes/no/on/off/1/0 */
	T_COUNT,    /* -v -v ...; --name=N */
	T_UINT,     /* decimal or 0x hex */
	T_BYTES,    /* integer with an optional K, M, G or T (2^10..) suffix */
	T_DOUBLE,
	T_STR,
	T_PATH_IN,  /* input file; in an INI file relative to its directory */
	T_NAME,     /* one of a list of names */
	T_SET,      /* "a-b,c" */
	T_ENDPOINT, /* repeatable types from here to T_EXEC */
	T_NEIGHBOR,
	T_FAIL_EV,
	T_EXEC,
	T_FAILURE,
	T_CONFIG,   /* command line only from here on */
	T_HELP,
	T_VERSION,
	T_PRINT,    /* print the effective configuration, after every source */
};
#define IS_REPEATABLE(t) ((t) >= T_ENDPOINT && (t) <= T_FAILURE)

#define F_SYM 0x1  /* every host must agree: in uet_perf_opts_hash */
#define F_POW2 0x2 /* power of two */
#define F_AUTO0 0x4 /* 0 (automatic) is allowed below the range */

enum { NAMES_NONE = 0, NAMES_PATTERN, NAMES_LB, NAMES_CC, NAMES_LOSS, NAMES_PROFILE };

struct opt {
	const char *lname;   /* --lname */
	char sname;          /* -s, 0 if none */
	uint8_t type;        /* enum opt_type */
	uint8_t flags;       /* F_* */
	uint8_t names;       /* T_NAME: NAMES_* */
	const char *sec;     /* INI section, NULL: command line only */
	const char *key;     /* INI key */
	size_t off, size;    /* the field; repeatables: the array, one element */
	size_t n_off;        /* repeatables: the count */
	uint32_t cap;        /* repeatables: the array's length */
	uint64_t def, min, max;
	double ddef, dmin, dmax;
	const char *sdef;
	const char *meta;    /* value placeholder in --help */
	const char *defdoc;  /* default as the docs show it, when not the value */
	const char *help;
	uint8_t app;         /* UET_CONF_APP_* it belongs to; 0: both */
	bool has_simdef;     /* uet-sim's default differs: */
	uint64_t simdef;
	double dsimdef;
	const char *simdefdoc;
};

extern const struct opt opt_table[];
extern const int conf_n_opts;
#define N_OPTS conf_n_opts

struct conf_section {
	const char *sec, *title;
};
extern const struct conf_section conf_sections[];
extern const size_t conf_n_sections;
extern int conf_app; /* UET_CONF_APP_*: the program parsing now */

#define SHOWN UET_SHOWN /* user input quoted in a message */
/* Every parser's error: the message into err, UET_CONF_EBAD returned. */
#define fail uet_text_fail
/* An option in a message, by where it was set (file:line, or the command
 * line); the other option of a conflict, shorter. Both take o. */
#define WHERE(i) conf_where(o, (i), (char[UET_PERF_PATH_MAX + 96]){ 0 }, UET_PERF_PATH_MAX + 96)
#define OTHER(i) conf_other(o, (i), (char[96]){ 0 }, 96)

/* Shared helpers, each defined in the file named. */

/* table.c */
const char *
conf_app_name(void);
bool
conf_for_app(const struct opt *p);
void *
conf_field(struct uet_perf_opts *o, const struct opt *p);
const void *
conf_cfield(const struct uet_perf_opts *o, const struct opt *p);
uint32_t *
conf_count_of(struct uet_perf_opts *o, const struct opt *p);
uint32_t
conf_ccount_of(const struct uet_perf_opts *o, const struct opt *p);
void
conf_put_uint(void *f, size_t size, uint64_t v);
uint64_t
conf_get_uint(const void *f, size_t size);
int
conf_find_long(const char *lname);
int
conf_row(const char *lname);
bool
conf_is_set(const struct uet_perf_opts *o, const char *lname);
const char *
conf_mac_str(const uint8_t *m, char *buf, size_t n);
const char *
conf_ip_str(uint32_t ip, char *buf, size_t n);

/* values.c */
int
conf_parse_uint(const char *s, bool bytes, uint64_t *out, char *err, size_t n);
int
conf_parse_bool(const char *s, bool *out, char *err, size_t n);
int
conf_parse_dec(const char *s, uint64_t max, uint64_t *out);
void
conf_name_list(int names, char *buf, size_t n);
int
conf_check_name(int names, const char *v, char *err, size_t n);

/* apply.c */
int
conf_apply(struct uet_perf_opts *o, int i, const char *v, int src, uint32_t line,
      const char *base_dir, char *err, size_t n);
const char *
conf_where(const struct uet_perf_opts *o, int i, char *buf, size_t n);
const char *
conf_other(const struct uet_perf_opts *o, int i, char *buf, size_t n);
int
conf_finalize(struct uet_perf_opts *o, char *err, size_t n);

/* ini.c */
int
conf_load_ini(struct uet_perf_opts *o, const char *path, char *err, size_t n);

/* cli.c */
int
conf_has_arg(const struct opt *p);

#endif /* UET_CONF_CONF_INT_H_ */
