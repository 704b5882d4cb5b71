/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * htsim connection-matrix (.cm) files, as read by htsim's
 * ConnectionMatrix::load() (Broadcom/csg-htsim, sim/datacenter/
 * connection_matrix.cpp) and the UEC htsim derived from it. Our own
 * parser, stricter than htsim's (which exits or asserts on most errors):
 *
 *   # comment                    (blank lines too)
 *   Nodes N                      header, before any body line
 *   Connections C                number of connection lines
 *   Triggers T                   number of trigger lines (default 0)
 *   Failures F                   number of failure lines (default 0)
 *   S->D [id I] (start US | trigger X) size B
 *        [send_done_trigger X] [recv_done_trigger X] [prio P]
 *   trigger id X (oneshot | multishot | barrier count N)
 *   failure ...                  a link/switch failure: counted, not run
 *
 * Units: htsim's loader stores `start` as read, but every main_*.cpp turns
 * it into time with timeFromUs() and save() writes timeAsUs(), so `start`
 * is in microseconds (fractional allowed); `size` is bytes, and `size 0`
 * means the default flow size (spec->size_bytes here, -flowsize there).
 * `prio` is accepted and ignored. Each line is a connection of its own
 * there (one UecSrc per line), so here the n-th line from S to D is
 * stream n: its own PDC, not a message queued behind the pair's others.
 *
 * Triggers (htsim trigger.cpp): a connection with send_done_trigger X
 * activates X when its sender finishes, recv_done_trigger X when its
 * receiver has everything. A oneshot fires on its (only) activation and
 * starts all its targets; a multishot starts its k-th target (file order)
 * on its k-th activation; a barrier fires on its count-th activation. So a
 * target gets one dependency per activation of its trigger, of which it
 * needs 1 (oneshot), k (multishot) or count (barrier). What htsim would
 * abort on, or what would never start, is an error here: a oneshot with
 * several activations, a barrier activated more often than its count,
 * targets that wait on too few activations, cycles. Every activation must
 * be observable by the target's source host (workload.h).
 */
#define UET_WORKLOAD_INTERNAL
#include "workload/workload.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"
#include "uet/err.h"

#define MAX_TOKENS 64

enum trig_type { TRIG_NONE, TRIG_ONESHOT, TRIG_MULTISHOT, TRIG_BARRIER };

struct cm_conn {
	uint32_t src, dst, line, id;
	uint32_t trig, sdt, rdt; /* trigger ids from the file, 0 = none; then indexes + 1 */
	uint64_t size, start_ns;
};

struct cm_trig {
	uint32_t id, line, count;
	enum trig_type type;
	uint32_t nact, act_first, ntargets, first_target_line;
};

struct cm_act {
	uint32_t conn;
	enum uet_wl_on on;
};

/* A header value: line and value, line 0 = not given. */
struct cm_hdr {
	uint32_t line, val;
};

struct cm {
	const struct uet_wl_spec *s;
	struct uet_wl_bld *b;
	const char *path;
	char *err;
	size_t errlen;
	uint32_t line;
	bool body;
	struct cm_hdr nodes, nconns, ntrigs, nfails;
	struct cm_conn *conns;
	uint32_t nconn, conn_cap;
	struct cm_trig *trigs;
	uint32_t ntrig, trig_cap;
	struct cm_act *acts;
	uint32_t nfail, text_cap;
};

__attribute__((format(printf, 3, 4))) static int
cm_err(struct cm *c, uint32_t line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	char *q;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The words quoted come from the file: its control bytes (terminal
	 * escapes) and non-ASCII bytes are shown as '?', not written out. */
	for (q = msg; *q != '\0'; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f)
			*q = '?';
	if (line)
		uet_wl_errf(c->err, c->errlen, "%s:%u: %s", c->path, line, msg);
	else
		uet_wl_errf(c->err, c->errlen, "%s: %s", c->path, msg);
	return UET_ERR_INVAL;
}

/* Unsigned decimal, no sign, <= max. */
static bool
parse_u64(const char *t, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (*t == '\0')
		return false;
	for (; *t; t++) {
		if (*t < '0' || *t > '9')
			return false;
		if (x > (max - (uint64_t)(*t - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*t - '0');
	}
	*v = x;
	return true;
}

static int
want_u32(struct cm *c, const char *key, const char *t, uint32_t min, uint32_t *v)
{
	uint64_t x;

	if (t == NULL)
		return cm_err(c, c->line, "expected a number after '%s'", key);
	if (!parse_u64(t, UINT32_MAX, &x) || x < min)
		return cm_err(c, c->line, "'%s %s': expected an integer in [%u, %u]", key, t, min,
			      UINT32_MAX);
	*v = (uint32_t)x;
	return 0;
}

static int
header(struct cm *c, char **tok, uint32_t ntok, struct cm_hdr *h)
{
	if (c->body)
		return cm_err(c, c->line, "'%s' after the first connection, trigger or failure "
				       "line (the header comes first)", tok[0]);
	if (h->line)
		return cm_err(c, c->line, "'%s' given twice (first at line %u)", tok[0], h->line);
	if (ntok != 2)
		return cm_err(c, c->line, "expected '%s <count>'", tok[0]);
	if (want_u32(c, tok[0], tok[1], 0, &h->val) < 0)
		return UET_ERR_INVAL;
	h->line = c->line;
	return 0;
}

/* "S->D" */
static int
endpoints(struct cm *c, const char *t, uint32_t *src, uint32_t *dst)
{
	const char *arrow = strstr(t, "->");
	char a[16];
	uint64_t x, y;
	size_t n = (size_t)(arrow - t);

	if (n == 0 || n >= sizeof(a))
		return cm_err(c, c->line, "'%s': expected <src>-><dst>", t);
	memcpy(a, t, n);
	a[n] = '\0';
	if (!parse_u64(a, UINT32_MAX, &x) || !parse_u64(arrow + 2, UINT32_MAX, &y))
		return cm_err(c, c->line, "'%s': expected <src>-><dst> with decimal ranks", t);
	if (!c->nodes.line)
		return cm_err(c, c->line, "connection before the 'Nodes' line");
	if (x >= c->nodes.val || y >= c->nodes.val)
		return cm_err(c, c->line, "'%s': rank out of range (Nodes %u)", t, c->nodes.val);
	if (x == y)
		return cm_err(c, c->line, "'%s': source and destination are the same host", t);
	*src = (uint32_t)x;
	*dst = (uint32_t)y;
	return 0;
}

static int
conn_line(struct cm *c, char **tok, uint32_t ntok)
{
	struct cm_conn k = { .line = c->line };
	bool has_start = false, has_size = false, has_prio = false, has_id = false;
	uint32_t i;

	if (endpoints(c, tok[0], &k.src, &k.dst) < 0)
		return UET_ERR_INVAL;
	for (i = 1; i < ntok; i += 2) {
		const char *key = tok[i], *val = i + 1 < ntok ? tok[i + 1] : NULL;
		bool dup = false;
		int rc = 0;

		if (strcmp(key, "start") == 0) {
			char *end;
			double us;

			dup = has_start;
			has_start = true;
			if (val == NULL)
				return cm_err(c, c->line, "expected a time in microseconds after "
							  "'start'");
			errno = 0;
			us = strtod(val, &end);
			if (end == val || *end != '\0' || errno != 0 || !isfinite(us) || us < 0 ||
			    us > 1e12)
				return cm_err(c, c->line, "'start %s': expected a time in "
							  "microseconds in [0, 1e12]", val);
			k.start_ns = (uint64_t)llround(us * 1000.0);
		} else if (strcmp(key, "size") == 0) {
			uint64_t x;

			dup = has_size;
			has_size = true;
			if (val == NULL || !parse_u64(val, UET_WL_MAX_SIZE_BYTES, &x))
				return cm_err(c, c->line, "'size %s': expected bytes in [0, %llu]",
					      val ? val : "",
					      (unsigned long long)UET_WL_MAX_SIZE_BYTES);
			k.size = x;
		} else if (strcmp(key, "id") == 0) {
			dup = has_id;
			has_id = true;
			rc = want_u32(c, key, val, 1, &k.id);
		} else if (strcmp(key, "trigger") == 0) {
			dup = k.trig != 0;
			rc = want_u32(c, key, val, 1, &k.trig);
		} else if (strcmp(key, "send_done_trigger") == 0) {
			dup = k.sdt != 0;
			rc = want_u32(c, key, val, 1, &k.sdt);
		} else if (strcmp(key, "recv_done_trigger") == 0) {
			dup = k.rdt != 0;
			rc = want_u32(c, key, val, 1, &k.rdt);
		} else if (strcmp(key, "prio") == 0) {
			uint32_t prio;

			dup = has_prio;
			has_prio = true;
			rc = want_u32(c, key, val, 0, &prio);
		} else {
			return cm_err(c, c->line, "unknown keyword '%s' (expected start, size, id, "
						  "trigger, send_done_trigger, recv_done_trigger "
						  "or prio)", key);
		}
		if (rc < 0)
			return rc;
		if (dup)
			return cm_err(c, c->line, "'%s' given twice", key);
	}
	if (!has_size)
		return cm_err(c, c->line, "expected 'size <bytes>'");
	if (k.size == 0) {
		if (c->s->size_bytes == 0)
			return cm_err(c, c->line, "'size 0' means the default flow size, but "
						  "size_bytes is 0");
		k.size = c->s->size_bytes;
	}
	if (has_start && k.trig)
		return cm_err(c, c->line, "both 'start' and 'trigger' given (expected one)");
	if (!has_start && !k.trig)
		return cm_err(c, c->line, "expected 'start <us>' or 'trigger <id>'");
	if (c->nconn >= UET_WL_MAX_FLOWS)
		return cm_err(c, c->line, "more than %u connections", UET_WL_MAX_FLOWS);
	if (uet_wl_grow((void **)&c->conns, &c->conn_cap, c->nconn + 1, sizeof(*c->conns)) < 0)
		return UET_ERR_NOMEM;
	c->conns[c->nconn++] = k;
	return 0;
}

static int
trigger_line(struct cm *c, char **tok, uint32_t ntok)
{
	struct cm_trig t = { .line = c->line };
	bool has_count = false;
	uint32_t i;

	for (i = 1; i < ntok; i++) {
		enum trig_type type = TRIG_NONE;

		if (strcmp(tok[i], "id") == 0) {
			if (t.id)
				return cm_err(c, c->line, "'id' given twice");
			if (want_u32(c, "id", i + 1 < ntok ? tok[++i] : NULL, 1, &t.id) < 0)
				return UET_ERR_INVAL;
		} else if (strcmp(tok[i], "count") == 0) {
			if (has_count)
				return cm_err(c, c->line, "'count' given twice");
			has_count = true;
			if (want_u32(c, "count", i + 1 < ntok ? tok[++i] : NULL, 1, &t.count) < 0)
				return UET_ERR_INVAL;
		} else if (strcmp(tok[i], "oneshot") == 0) {
			type = TRIG_ONESHOT;
		} else if (strcmp(tok[i], "multishot") == 0) {
			type = TRIG_MULTISHOT;
		} else if (strcmp(tok[i], "barrier") == 0) {
			type = TRIG_BARRIER;
		} else {
			return cm_err(c, c->line, "unknown keyword '%s' (expected id, oneshot, "
						  "multishot, barrier or count)", tok[i]);
		}
		if (type != TRIG_NONE) {
			if (t.type != TRIG_NONE)
				return cm_err(c, c->line, "more than one trigger type");
			t.type = type;
		}
	}
	if (!t.id)
		return cm_err(c, c->line, "expected 'id <trigger id>'");
	if (t.type == TRIG_NONE)
		return cm_err(c, c->line, "expected a trigger type: oneshot, multishot or barrier");
	if (t.type == TRIG_BARRIER && !has_count)
		return cm_err(c, c->line, "expected 'count <n>' for a barrier");
	if (t.type != TRIG_BARRIER && has_count)
		return cm_err(c, c->line, "'count' is only for a barrier");
	if (c->ntrig >= UET_WL_MAX_FLOWS)
		return cm_err(c, c->line, "more than %u triggers", UET_WL_MAX_FLOWS);
	if (uet_wl_grow((void **)&c->trigs, &c->trig_cap, c->ntrig + 1, sizeof(*c->trigs)) < 0)
		return UET_ERR_NOMEM;
	c->trigs[c->ntrig++] = t;
	return 0;
}

static int
failure_line(struct cm *c, const char *text)
{
	struct uet_wl *wl = c->b->wl;
	size_t n = strlen(c->path) + strlen(text) + 24;
	char *s;

	if (c->nfail >= UET_WL_MAX_FLOWS)
		return cm_err(c, c->line, "more than %u failures", UET_WL_MAX_FLOWS);
	if (uet_wl_grow((void **)&wl->unsupported_text, &c->text_cap, wl->unsupported + 1,
			sizeof(char *)) < 0 ||
	    (s = malloc(n)) == NULL)
		return UET_ERR_NOMEM;
	snprintf(s, n, "%s:%u: %s", c->path, c->line, text);
	wl->unsupported_text[wl->unsupported++] = s;
	c->nfail++;
	return 0;
}

static int
one_line(struct cm *c, char *line, char *copy)
{
	char *tok[MAX_TOKENS], *p = copy;
	uint32_t ntok = 0;

	strcpy(copy, line);
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (ntok == MAX_TOKENS)
			return cm_err(c, c->line, "more than %u words", MAX_TOKENS);
		tok[ntok++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
	if (ntok == 0 || tok[0][0] == '#')
		return 0;
	if (strcmp(tok[0], "Nodes") == 0)
		return header(c, tok, ntok, &c->nodes);
	if (strcmp(tok[0], "Connections") == 0)
		return header(c, tok, ntok, &c->nconns);
	if (strcmp(tok[0], "Triggers") == 0)
		return header(c, tok, ntok, &c->ntrigs);
	if (strcmp(tok[0], "Failures") == 0)
		return header(c, tok, ntok, &c->nfails);
	c->body = true;
	if (strstr(tok[0], "->") != NULL)
		return conn_line(c, tok, ntok);
	if (strcmp(tok[0], "trigger") == 0)
		return trigger_line(c, tok, ntok);
	if (strcmp(tok[0], "failure") == 0)
		return failure_line(c, line);
	return cm_err(c, c->line, "unknown keyword '%s' (expected Nodes, Connections, Triggers, "
				  "Failures, <src>-><dst>, trigger or failure)", tok[0]);
}

static int
read_file(struct cm *c)
{
	FILE *f = fopen(c->path, "r");
	char *line = NULL, *copy = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	if (f == NULL)
		return cm_err(c, 0, "cannot open: %s", strerror(errno));
	copy = malloc(UET_WL_CM_MAX_LINE + 1);
	if (copy == NULL) {
		fclose(f);
		return UET_ERR_NOMEM;
	}
	while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
		c->line++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if ((size_t)n > UET_WL_CM_MAX_LINE)
			rc = cm_err(c, c->line, "line longer than %u bytes", UET_WL_CM_MAX_LINE);
		else if (strlen(line) != (size_t)n)
			rc = cm_err(c, c->line, "NUL byte in a text line");
		else
			rc = one_line(c, line, copy);
	}
	if (rc == 0 && ferror(f))
		rc = cm_err(c, c->line, "read error");
	free(line);
	free(copy);
	fclose(f);
	return rc;
}

static int
check_counts(struct cm *c)
{
	if (!c->nodes.line)
		return cm_err(c, 0, "no 'Nodes <count>' line");
	if (c->nodes.val < 2 || c->nodes.val > UET_WL_MAX_HOSTS)
		return cm_err(c, c->nodes.line, "Nodes %u not in [2, %u]", c->nodes.val,
			      UET_WL_MAX_HOSTS);
	if (c->s->hosts != 0 && c->s->hosts != c->nodes.val)
		return cm_err(c, c->nodes.line, "Nodes %u but hosts is %u", c->nodes.val,
			      c->s->hosts);
	if (!c->nconns.line)
		return cm_err(c, 0, "no 'Connections <count>' line");
	if (c->nconns.val != c->nconn)
		return cm_err(c, c->nconns.line, "Connections %u but the file has %u connection "
						 "lines", c->nconns.val, c->nconn);
	if (c->ntrigs.val != c->ntrig)
		return cm_err(c, c->ntrigs.line, "Triggers %u but the file has %u trigger lines",
			      c->ntrigs.val, c->ntrig);
	if (c->nfails.val != c->nfail)
		return cm_err(c, c->nfails.line, "Failures %u but the file has %u failure lines",
			      c->nfails.val, c->nfail);
	if (c->nconn == 0)
		return cm_err(c, 0, "no connections");
	return 0;
}

/* Trigger ids -> indexes + 1 in the connections; activation lists. */
static int
resolve(struct cm *c, struct uet_hmap *ids)
{
	uint32_t i, j, idx, pos = 0;

	for (i = 0; i < c->ntrig; i++) {
		if (uet_hmap_get(ids, c->trigs[i].id, &idx))
			return cm_err(c, c->trigs[i].line, "trigger %u defined again (first at "
							   "line %u)", c->trigs[i].id,
				      c->trigs[idx].line);
		if (uet_hmap_put(ids, c->trigs[i].id, i) < 0)
			return UET_ERR_NOMEM;
	}
	for (i = 0; i < c->nconn; i++) {
		struct cm_conn *k = &c->conns[i];
		uint32_t *refs[3] = { &k->trig, &k->sdt, &k->rdt };

		for (j = 0; j < 3; j++) {
			if (*refs[j] == 0)
				continue;
			if (!uet_hmap_get(ids, *refs[j], &idx))
				return cm_err(c, k->line, "trigger %u has no 'trigger id %u ...' line",
					      *refs[j], *refs[j]);
			*refs[j] = idx + 1;
			if (j == 0) {
				if (c->trigs[idx].ntargets++ == 0)
					c->trigs[idx].first_target_line = k->line;
			} else {
				c->trigs[idx].nact++;
			}
		}
	}
	for (i = 0; i < c->ntrig; i++) {
		c->trigs[i].act_first = pos;
		pos += c->trigs[i].nact;
		c->trigs[i].nact = 0;
	}
	c->acts = malloc((pos ? pos : 1) * sizeof(*c->acts));
	if (c->acts == NULL)
		return UET_ERR_NOMEM;
	for (i = 0; i < c->nconn; i++) {
		const struct cm_conn *k = &c->conns[i];

		if (k->sdt) {
			struct cm_trig *t = &c->trigs[k->sdt - 1];

			c->acts[t->act_first + t->nact++] = (struct cm_act){ i, UET_WL_ON_SEND_DONE };
		}
		if (k->rdt) {
			struct cm_trig *t = &c->trigs[k->rdt - 1];

			c->acts[t->act_first + t->nact++] = (struct cm_act){ i, UET_WL_ON_RECV_DONE };
		}
	}
	return 0;
}

static int
check_triggers(struct cm *c)
{
	uint32_t i;

	for (i = 0; i < c->ntrig; i++) {
		const struct cm_trig *t = &c->trigs[i];

		if (t->type == TRIG_ONESHOT && t->nact > 1)
			return cm_err(c, t->line, "oneshot trigger %u is activated %u times (lines "
						  "%u and %u); it may fire once (use multishot or "
						  "barrier)", t->id, t->nact,
				      c->conns[c->acts[t->act_first].conn].line,
				      c->conns[c->acts[t->act_first + 1].conn].line);
		if (t->type == TRIG_BARRIER && t->nact > t->count)
			return cm_err(c, t->line, "barrier trigger %u has count %u but is activated "
						  "%u times", t->id, t->count, t->nact);
		if (t->ntargets == 0)
			continue;
		if (t->nact == 0)
			return cm_err(c, t->line, "trigger %u starts flows (first at line %u) but no "
						  "send_done_trigger/recv_done_trigger %u activates "
						  "it", t->id, t->first_target_line, t->id);
		if (t->type == TRIG_BARRIER && t->nact < t->count)
			return cm_err(c, t->line, "barrier trigger %u has count %u but is activated "
						  "only %u times, so it never fires", t->id,
				      t->count, t->nact);
		if (t->type == TRIG_MULTISHOT && t->nact < t->ntargets)
			return cm_err(c, t->line, "multishot trigger %u starts %u flows but is "
						  "activated only %u times", t->id, t->ntargets,
				      t->nact);
	}
	return 0;
}

/*
 * Append the flows in file order, triggers as deps. htsim makes every
 * connection line its own connection (a UecSrc/UecSink pair, its own
 * window and load-balancer state), however many lines a pair has: the
 * n-th line from S to D here is stream n, its own PDC, so such lines run
 * side by side as there instead of queueing as messages on one PDC.
 */
static int
emit(struct cm *c)
{
	uint32_t i, j, *seen;
	struct uet_hmap pairs = { 0 };
	int rc = 0;

	seen = calloc(c->ntrig ? c->ntrig : 1, sizeof(*seen)); /* targets emitted so far */
	if (seen == NULL || uet_hmap_init(&pairs, c->nconn ? c->nconn : 1) < 0) {
		free(seen);
		uet_hmap_fini(&pairs);
		return UET_ERR_NOMEM;
	}
	for (i = 0; i < c->nconn && rc == 0; i++) {
		const struct cm_conn *k = &c->conns[i];
		uint64_t pair = (uint64_t)k->src << 32 | k->dst;
		uint32_t nth = 0;
		struct uet_wl_flow f = {
			.src = k->src, .dst = k->dst, .size_bytes = k->size,
			.start_ns = k->trig ? 0 : k->start_ns, .tag = k->id,
		};
		const struct cm_trig *t;

		if (uet_hmap_get(&pairs, pair, &nth) && nth >= UET_WL_MAX_STREAMS) {
			rc = cm_err(c, k->line, "more than %u connections from %u to %u (each is its "
						"own PDC, and stream ids are 16 bits)",
				    UET_WL_MAX_STREAMS, k->src, k->dst);
			break;
		}
		f.stream = (uint16_t)nth;
		if (uet_hmap_put(&pairs, pair, nth + 1) < 0) {
			rc = UET_ERR_NOMEM;
			break;
		}
		if ((rc = uet_wl_bld_flow(c->b, &f, c->err, c->errlen)) < 0 || !k->trig)
			continue;
		t = &c->trigs[k->trig - 1];
		for (j = 0; j < t->nact && rc == 0; j++) {
			const struct cm_act *a = &c->acts[t->act_first + j];
			const struct cm_conn *g = &c->conns[a->conn];
			uint32_t host = a->on == UET_WL_ON_SEND_DONE ? g->src : g->dst;

			if (a->conn == i)
				rc = cm_err(c, k->line, "this flow waits on trigger %u, which only it "
							"activates", t->id);
			else if (host != k->src)
				rc = cm_err(c, k->line,
					    "trigger %u starts this flow from host %u, but the %s of "
					    "line %u (seen at host %u) activates it: a trigger may "
					    "only start flows from the host that sees it (sender for "
					    "send_done, receiver for recv_done)",
					    t->id, k->src,
					    a->on == UET_WL_ON_SEND_DONE ? "send_done" : "recv_done",
					    g->line, host);
			else
				rc = uet_wl_bld_dep(c->b, a->conn, a->on, c->err, c->errlen);
		}
		if (rc == 0) {
			struct uet_wl_flow *nf = &c->b->wl->flows[c->b->wl->nflows - 1];

			nf->deps_needed = t->type == TRIG_ONESHOT   ? 1
					  : t->type == TRIG_BARRIER ? t->count
								    : ++seen[k->trig - 1];
		}
	}
	free(seen);
	uet_hmap_fini(&pairs);
	return rc;
}

static int
check_ids(struct cm *c, struct uet_hmap *ids)
{
	uint32_t i, prev;

	for (i = 0; i < c->nconn; i++) {
		const struct cm_conn *k = &c->conns[i];

		if (k->id == 0)
			continue;
		if (uet_hmap_get(ids, k->id, &prev))
			return cm_err(c, k->line, "id %u already used at line %u", k->id,
				      c->conns[prev].line);
		if (uet_hmap_put(ids, k->id, i) < 0)
			return UET_ERR_NOMEM;
	}
	return 0;
}

int
uet_wl_cm_load(const struct uet_wl_spec *s, struct uet_wl_bld *b, char *err, size_t errlen)
{
	struct cm c = { .s = s, .b = b, .path = s->cm_path, .err = err, .errlen = errlen };
	struct uet_hmap trig_ids = { 0 }, conn_ids = { 0 };
	int64_t stuck;
	int rc;

	rc = read_file(&c);
	if (rc == 0)
		rc = check_counts(&c);
	if (rc == 0) {
		b->wl->hosts = c.nodes.val;
		if (uet_hmap_init(&trig_ids, c.ntrig ? c.ntrig : 1) < 0 ||
		    uet_hmap_init(&conn_ids, c.nconn) < 0)
			rc = UET_ERR_NOMEM;
	}
	if (rc == 0)
		rc = check_ids(&c, &conn_ids);
	if (rc == 0)
		rc = resolve(&c, &trig_ids);
	if (rc == 0)
		rc = check_triggers(&c);
	if (rc == 0)
		rc = emit(&c);
	if (rc == 0) {
		stuck = uet_wl_first_stuck(b->wl);
		if (stuck < 0)
			rc = UET_ERR_NOMEM;
		else if (stuck != UINT32_MAX)
			rc = cm_err(&c, c.conns[stuck].line,
				    "this flow can never start: its trigger waits, directly or "
				    "through other triggers, on flows that wait on it");
	}
	if (rc == UET_ERR_NOMEM)
		uet_wl_errf(err, errlen, "%s: out of memory", c.path);
	uet_hmap_fini(&trig_ids);
	uet_hmap_fini(&conn_ids);
	free(c.conns);
	free(c.trigs);
	free(c.acts);
	return rc;
}
