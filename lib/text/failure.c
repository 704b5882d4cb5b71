/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parsing the failure vocabulary (failure.h): --failure specs and htsim
 * connection-matrix failure lines, text only; lib/sim applies them to a
 * fabric.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/failure.h"
#include "text/text.h"

/* Messages name what they quote the text/text.h way. */
#define fail uet_text_fail
#define SHOWN UET_SHOWN

/* "tor12" -> kind and index; with .upM for links. */
static int
parse_node(const char *s, bool link, struct sim_failure *f, char *err, size_t n)
{
	static const struct {
		const char *name;
		uint8_t kind;
	} names[] = { { "host", SIM_NODE_HOST }, { "tor", SIM_NODE_TOR },
		      { "spine", SIM_NODE_T1 }, { "agg", SIM_NODE_T1 },
		      { "core", SIM_NODE_T2 } };
	const char *what = link ? "link (hostN, torN.upM, aggN.upM)"
				: "switch (torN, spineN, aggN, coreN)";
	size_t i, l = 0;
	char *end;
	unsigned long v;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		l = strlen(names[i].name);
		if (strncmp(s, names[i].name, l) == 0 && isdigit((unsigned char)s[l]))
			break;
	}
	if (i == sizeof(names) / sizeof(names[0]))
		return fail(err, n, "'%s' is not a %s", SHOWN(s), what);
	errno = 0;
	v = strtoul(s + l, &end, 10);
	if (errno != 0 || v > UINT32_MAX - 1)
		return fail(err, n, "'%s': index out of range", SHOWN(s));
	f->node_kind = names[i].kind;
	f->node = (uint32_t)v;
	f->uplink = UINT32_MAX;
	if (!link) {
		if (*end != '\0' || f->node_kind == SIM_NODE_HOST)
			return fail(err, n, "'%s' is not a %s", SHOWN(s), what);
		return 0;
	}
	if (f->node_kind == SIM_NODE_HOST)
		return *end == '\0' ? 0 : fail(err, n, "'%s' is not a %s", SHOWN(s), what);
	if (strncmp(end, ".up", 3) != 0 || !isdigit((unsigned char)end[3]))
		return fail(err, n, "'%s': a switch's link is SWITCH.upM (its uplink M)", SHOWN(s));
	errno = 0;
	v = strtoul(end + 3, &end, 10);
	if (errno != 0 || *end != '\0' || v > 65535)
		return fail(err, n, "'%s': bad uplink index", SHOWN(s));
	if (f->node_kind == SIM_NODE_T2)
		return fail(err, n, "'%s': cores have no uplinks", SHOWN(s));
	f->uplink = (uint32_t)v;
	return 0;
}

static int
parse_class(const char *s, bool switches_ok, uint8_t *cls, char *err, size_t n)
{
	static const struct {
		const char *name;
		uint8_t cls;
	} names[] = { { "host", SIM_CLASS_HOST }, { "tor-up", SIM_CLASS_TOR_UP },
		      { "agg-up", SIM_CLASS_T1_UP }, { "spine-up", SIM_CLASS_T1_UP },
		      { "tor", SIM_CLASS_TOR }, { "spine", SIM_CLASS_T1 },
		      { "agg", SIM_CLASS_T1 }, { "core", SIM_CLASS_T2 } };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i].name) == 0) {
			if (!switches_ok && names[i].cls >= SIM_CLASS_TOR)
				return fail(err, n, "'%s': only links here (host, tor-up, agg-up)",
					    SHOWN(s));
			*cls = names[i].cls;
			return 0;
		}
	return fail(err, n, "'%s' is not a class (host, tor-up, agg-up%s)", SHOWN(s),
		    switches_ok ? ", tor, spine, agg, core" : "");
}

static int
parse_pct(const char *s, double *pct, char *err, size_t n)
{
	char num[40];
	size_t l = strlen(s);

	if (l == 0 || s[l - 1] != '%' || l >= sizeof(num))
		return fail(err, n, "'%s' is not a percentage (e.g. 3%%)", SHOWN(s));
	memcpy(num, s, l - 1);
	num[l - 1] = '\0';
	if (uet_text_parse_double(num, pct, err, n) < 0)
		return -1;
	if (*pct <= 0 || *pct > 100)
		return fail(err, n, "'%s' is outside (0, 100]%%", SHOWN(s));
	return 0;
}

static const char *const kinds[SIM_FAIL_KINDS] = {
	"link-down", "link-up", "link-rate", "switch-down", "switch-up",
	"random-down", "degrade", "ber", "htsim-failed",
};
#define KIND_LIST "link-down, link-up, link-rate, switch-down, switch-up, random-down, " \
		  "degrade, ber, htsim-failed"

/* Fields after the kind and T: fixed ones, then optional positional ones,
 * then key=value options. */
static const uint8_t nfixed[SIM_FAIL_KINDS] = { 1, 1, 2, 1, 1, 2, 3, 3, 1 };
#define OPT_FOR 0x1
#define OPT_CONV 0x2
#define OPT_SHAPE 0x4 /* dir=, buffer= */
#define OPT_DIR 0x8   /* dir= */
static const uint8_t opts[SIM_FAIL_KINDS] = {
	OPT_FOR | OPT_CONV | OPT_DIR, 0, OPT_FOR | OPT_SHAPE, OPT_FOR | OPT_CONV, 0,
	OPT_FOR | OPT_CONV | OPT_DIR, OPT_FOR | OPT_SHAPE, OPT_FOR | OPT_DIR, OPT_FOR,
};

static int
parse_option(struct sim_failure *f, char *tok, char *err, size_t n)
{
	char *eq = strchr(tok, '=');
	const char *v;

	if (eq == NULL)
		return fail(err, n, "'%s' is not key=value (for=, converge=, dir=, buffer=)",
			    SHOWN(tok));
	*eq = '\0';
	v = eq + 1;
	if (strcmp(tok, "for") == 0 && (opts[f->kind] & OPT_FOR)) {
		if (uet_text_parse_time_ns(v, &f->for_ns, err, n) < 0)
			return -1;
		if (f->for_ns == 0)
			return fail(err, n, "for=0: leave it out for a lasting failure");
	} else if (strcmp(tok, "converge") == 0 && (opts[f->kind] & OPT_CONV)) {
		if (strcmp(v, "never") == 0)
			f->converge_ns = SIM_CONVERGE_NEVER;
		else if (uet_text_parse_time_ns(v, &f->converge_ns, err, n) < 0)
			return -1;
		else if (f->converge_ns == 0)
			return fail(err, n, "converge=0: use converge=never for no convergence "
				    "(a converge time must be > 0)");
	} else if (strcmp(tok, "dir") == 0 && (opts[f->kind] & (OPT_SHAPE | OPT_DIR))) {
		if (strcmp(v, "both") == 0)
			f->dir = SIM_DIR_BOTH;
		else if (strcmp(v, "up") == 0)
			f->dir = SIM_DIR_UP;
		else if (strcmp(v, "down") == 0)
			f->dir = SIM_DIR_DOWN;
		else
			return fail(err, n, "dir='%s': up, down or both", SHOWN(v));
	} else if (strcmp(tok, "buffer") == 0 && (opts[f->kind] & OPT_SHAPE)) {
		if (strcmp(v, "scale") == 0)
			f->keep_buffer = false;
		else if (strcmp(v, "keep") == 0)
			f->keep_buffer = true;
		else
			return fail(err, n, "buffer='%s': scale or keep", SHOWN(v));
	} else {
		return fail(err, n, "%s takes no '%s='", kinds[f->kind], SHOWN(tok));
	}
	return 0;
}

int
sim_failure_parse(const char *spec, struct sim_failure *out, char *err, size_t errlen)
{
	struct sim_failure f;
	char buf[160], *tok[10], *save = NULL, *t;
	uint32_t nt = 0, k;

	memset(&f, 0, sizeof(f));
	f.converge_ns = SIM_CONVERGE_DEFAULT;
	if (strlen(spec) >= sizeof(buf) || strlen(spec) >= sizeof(f.text))
		return fail(err, errlen, "spec too long");
	snprintf(f.text, sizeof(f.text), "%s", spec);
	snprintf(buf, sizeof(buf), "%s", spec);
	for (t = strtok_r(buf, ":", &save); t != NULL; t = strtok_r(NULL, ":", &save)) {
		if (nt == sizeof(tok) / sizeof(tok[0]))
			return fail(err, errlen, "'%s' has too many fields", SHOWN(spec));
		tok[nt++] = uet_text_strip(t);
	}
	if (nt < 2)
		return fail(err, errlen, "'%s' is not KIND:T:... (kinds: " KIND_LIST ")",
			    SHOWN(spec));
	for (k = 0; k < SIM_FAIL_KINDS && strcmp(kinds[k], tok[0]) != 0; k++)
		;
	if (k == SIM_FAIL_KINDS)
		return fail(err, errlen, "unknown kind '%s' (" KIND_LIST ")", SHOWN(tok[0]));
	f.kind = (uint8_t)k;
	if (uet_text_parse_time_ns(tok[1], &f.at_ns, err, errlen) < 0)
		return -1;
	if (nt < 2u + nfixed[k])
		return fail(err, errlen, "%s needs %u field%s after the time", kinds[k], nfixed[k],
			    nfixed[k] > 1 ? "s" : "");
	switch (k) {
	case SIM_FAIL_LINK_DOWN:
	case SIM_FAIL_LINK_UP:
	case SIM_FAIL_LINK_RATE:
		if (parse_node(tok[2], true, &f, err, errlen) < 0)
			return -1;
		if (k == SIM_FAIL_LINK_RATE &&
		    (uet_text_parse_double(tok[3], &f.value, err, errlen) < 0 || f.value <= 0))
			return fail(err, errlen, "'%s' is not a rate in Gbit/s", SHOWN(tok[3]));
		break;
	case SIM_FAIL_SWITCH_DOWN:
	case SIM_FAIL_SWITCH_UP:
		if (parse_node(tok[2], false, &f, err, errlen) < 0)
			return -1;
		break;
	case SIM_FAIL_HTSIM_FAILED: {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(tok[2], &end, 10);
		if (!isdigit((unsigned char)tok[2][0]) || *end != '\0' || errno != 0 || v == 0 ||
		    v > 65535)
			return fail(err, errlen, "'%s' is not a number of links (1..65535)",
				    SHOWN(tok[2]));
		f.count = (uint32_t)v;
		f.value = 0.25;
		/* An optional FACTOR before the options. */
		if (nt > 3 && strchr(tok[3], '=') == NULL) {
			if (uet_text_parse_double(tok[3], &f.value, err, errlen) < 0 ||
			    f.value <= 0 || f.value > 1)
				return fail(err, errlen, "'%s' is not a rate factor in (0, 1]",
					    SHOWN(tok[3]));
			k = 4;
			goto options;
		}
		break;
	}
	default:
		if (parse_pct(tok[2], &f.pct, err, errlen) < 0 ||
		    parse_class(tok[3], k == SIM_FAIL_RANDOM_DOWN, &f.cls, err, errlen) < 0)
			return -1;
		if (k == SIM_FAIL_DEGRADE &&
		    (uet_text_parse_double(tok[4], &f.value, err, errlen) < 0 || f.value <= 0 ||
		     f.value > 1))
			return fail(err, errlen, "'%s' is not a rate factor in (0, 1]",
				    SHOWN(tok[4]));
		if (k == SIM_FAIL_BER &&
		    (uet_text_parse_double(tok[4], &f.value, err, errlen) < 0 || f.value <= 0 ||
		     f.value >= 1))
			return fail(err, errlen, "'%s' is not a bit error ratio in (0, 1)",
				    SHOWN(tok[4]));
		break;
	}
	k = 2u + nfixed[f.kind];
options:
	for (; k < nt; k++)
		if (parse_option(&f, tok[k], err, errlen) < 0)
			return -1;
	if (f.kind == SIM_FAIL_RANDOM_DOWN && f.cls >= SIM_CLASS_TOR && f.dir != SIM_DIR_BOTH)
		return fail(err, errlen, "dir= is for cables; a switch fails whole");
	*out = f;
	return 0;
}

int
sim_failure_parse_cm(const char *line, struct sim_failure *out, char *err, size_t errlen)
{
	char buf[512], *tok[16], *save = NULL, *t, kind[16] = "";
	struct sim_failure f;
	uint32_t nt = 0, i;
	long long id = -1, link = -1;
	double start = 0, dur = 0;
	char *end;

	if (strlen(line) >= sizeof(buf))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", line);
	for (t = strtok_r(buf, " \t\r\n", &save); t != NULL && nt < 16;
	     t = strtok_r(NULL, " \t\r\n", &save))
		tok[nt++] = t;
	if (nt == 0 || strcmp(tok[0], "failure") != 0)
		goto bad;
	for (i = 1; i + 1 < nt; i += 2) {
		const char *v = tok[i + 1];

		errno = 0;
		if (strcmp(tok[i], "switch_type") == 0) {
			snprintf(kind, sizeof(kind), "%s", v);
			continue;
		}
		if (strcmp(tok[i], "switch_id") == 0)
			id = strtoll(v, &end, 10);
		else if (strcmp(tok[i], "link_id") == 0)
			link = strtoll(v, &end, 10);
		else if (strcmp(tok[i], "start") == 0)
			start = strtod(v, &end);
		else if (strcmp(tok[i], "duration") == 0)
			dur = strtod(v, &end);
		else
			goto bad;
		if (*v == '\0' || *end != '\0' || errno != 0)
			goto bad;
	}
	if (i != nt || id < 0 || id > UINT32_MAX - 1 || link < 0 || link > 65535 ||
	    !(start >= 0) || !(dur >= 0) || start > 1e9 || dur > 1e9)
		goto bad;
	memset(&f, 0, sizeof(f));
	f.kind = SIM_FAIL_LINK_DOWN;
	f.at_ns = (uint64_t)(start * 1e3 + 0.5);
	f.for_ns = (uint64_t)(dur * 1e3 + 0.5);
	f.converge_ns = SIM_CONVERGE_DEFAULT;
	f.node = (uint32_t)id;
	f.uplink = (uint32_t)link;
	snprintf(f.text, sizeof(f.text), "%s", line);
	f.text[strcspn(f.text, "\r\n")] = '\0';
	if (strcmp(kind, "TOR") == 0)
		f.node_kind = SIM_NODE_TOR;
	else if (strcmp(kind, "AGG") == 0)
		f.node_kind = SIM_NODE_T1;
	else if (strcmp(kind, "CORE") == 0)
		f.node_kind = SIM_NODE_T2; /* a core's port link_id */
	else
		goto bad;
	*out = f;
	return 0;
bad:
	return fail(err, errlen, "expected 'failure switch_type TOR|AGG|CORE switch_id X link_id Y "
		    "[start US] [duration US]'");
}

int
sim_failure_parse_link(const char *s, struct sim_failure *f, char *err, size_t n)
{
	return parse_node(s, true, f, err, n);
}

int
sim_failure_parse_class(const char *s, uint8_t *cls, char *err, size_t n)
{
	return parse_class(s, false, cls, err, n);
}
