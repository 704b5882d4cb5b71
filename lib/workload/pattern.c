/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pattern generators: one iteration of a pattern is generated as a
 * template (flows 0..T-1 with their deps), then copied for iterations
 * 1..K-1 with the deps that chain iterations back to back. Every dep is
 * chosen so that the flow's own source sees the event it waits for (see
 * workload.h): a process running some ranks needs no global view. A
 * ping-pong is generated round by round instead.
 */
#define UET_WORKLOAD_INTERNAL
#include "workload/workload.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uet/prng.h"
#include "uet/err.h"

static const char *const pattern_names[] = {
	[UET_WL_PAIR] = "pair",
	[UET_WL_PERMUTATION] = "permutation",
	[UET_WL_TORNADO] = "tornado",
	[UET_WL_INCAST] = "incast",
	[UET_WL_OUTCAST] = "outcast",
	[UET_WL_ALLTOALL] = "alltoall",
	[UET_WL_BISECTION] = "bisection",
	[UET_WL_RING_ALLREDUCE] = "ring_allreduce",
	[UET_WL_BUTTERFLY_ALLREDUCE] = "butterfly_allreduce",
	[UET_WL_WEBSEARCH] = "websearch",
	[UET_WL_CM] = "cm",
	[UET_WL_PINGPONG] = "pingpong",
};
#define NPATTERNS (sizeof(pattern_names) / sizeof(pattern_names[0]))

const char *
uet_wl_pattern_name(enum uet_wl_pattern p)
{
	if ((unsigned)p >= NPATTERNS)
		return "?";
	return pattern_names[p];
}

int
uet_wl_pattern_parse(const char *name, enum uet_wl_pattern *out)
{
	unsigned i;

	if (name == NULL || out == NULL)
		return UET_ERR_INVAL;
	for (i = 0; i < NPATTERNS; i++) {
		if (strcmp(name, pattern_names[i]) == 0) {
			*out = (enum uet_wl_pattern)i;
			return 0;
		}
	}
	return UET_ERR_INVAL;
}

void
uet_wl_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- builder ---------------------------------------------------------- */

int
uet_wl_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
	uint64_t ncap = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (p == NULL)
		return UET_ERR_NOMEM;
	*arr = p;
	*cap = (uint32_t)(ncap > UINT32_MAX ? UINT32_MAX : ncap);
	return 0;
}

int
uet_wl_bld_flow(struct uet_wl_bld *b, const struct uet_wl_flow *f, char *err, size_t errlen)
{
	struct uet_wl *wl = b->wl;
	struct uet_wl_flow *nf;

	if (wl->nflows >= UET_WL_MAX_FLOWS) {
		uet_wl_errf(err, errlen, "more than %u flows", UET_WL_MAX_FLOWS);
		return UET_ERR_INVAL;
	}
	if (uet_wl_grow((void **)&wl->flows, &b->flow_cap, wl->nflows + 1, sizeof(*wl->flows)) < 0) {
		uet_wl_errf(err, errlen, "out of memory for %u flows", wl->nflows + 1);
		return UET_ERR_NOMEM;
	}
	nf = &wl->flows[wl->nflows];
	*nf = *f;
	nf->id = wl->nflows++;
	nf->dep_first = wl->ndeps;
	nf->ndeps = 0;
	nf->deps_needed = 0;
	return 0;
}

int
uet_wl_bld_dep(struct uet_wl_bld *b, uint32_t flow, enum uet_wl_on on, char *err,
	       size_t errlen)
{
	struct uet_wl *wl = b->wl;
	struct uet_wl_flow *f = &wl->flows[wl->nflows - 1];
	uint32_t i;

	for (i = 0; i < f->ndeps; i++) {
		const struct uet_wl_dep *d = &wl->deps[f->dep_first + i];

		if (d->flow == flow && d->on == on)
			return 0;
	}
	if (wl->ndeps >= UET_WL_MAX_DEPS) {
		uet_wl_errf(err, errlen, "more than %u dependencies", UET_WL_MAX_DEPS);
		return UET_ERR_INVAL;
	}
	if (uet_wl_grow((void **)&wl->deps, &b->dep_cap, wl->ndeps + 1, sizeof(*wl->deps)) < 0) {
		uet_wl_errf(err, errlen, "out of memory for %u dependencies", wl->ndeps + 1);
		return UET_ERR_NOMEM;
	}
	wl->deps[wl->ndeps++] = (struct uet_wl_dep){ .flow = flow, .on = on };
	f->ndeps++;
	f->deps_needed++;
	return 0;
}

/* ---- reverse index, validation ------------------------------------------ */

/* Without list: count the waiters of each event into first[e + 1]. With
 * it: place them, advancing first[e]. */
static void
rev_pass(const struct uet_wl *wl, const bool *keep, uint32_t *first, uint32_t *list)
{
	uint32_t i, j;

	for (i = 0; i < wl->nflows; i++) {
		const struct uet_wl_flow *f = &wl->flows[i];

		if (keep != NULL && !keep[f->src])
			continue;
		for (j = 0; j < f->ndeps; j++) {
			const struct uet_wl_dep *d = &wl->deps[f->dep_first + j];
			uint64_t e = 2 * (uint64_t)d->flow + d->on;

			if (list == NULL)
				first[e + 1]++;
			else
				list[first[e]++] = i;
		}
	}
}

int
uet_wl_rev_index(const struct uet_wl *wl, const bool *keep, uint32_t **firstp, uint32_t **listp)
{
	uint64_t nev = 2 * (uint64_t)wl->nflows, e;
	uint32_t *first, *list, total;

	first = calloc(nev + 1, sizeof(*first));
	if (first == NULL)
		return UET_ERR_NOMEM;
	rev_pass(wl, keep, first, NULL);
	for (e = 0; e < nev; e++)
		first[e + 1] += first[e];
	total = first[nev];
	list = malloc((total ? total : 1) * sizeof(*list));
	if (list == NULL) {
		free(first);
		return UET_ERR_NOMEM;
	}
	rev_pass(wl, keep, first, list);
	/* Each first[e] now holds the start of e + 1: shift back. */
	for (e = nev; e > 0; e--)
		first[e] = first[e - 1];
	first[0] = 0;
	*firstp = first;
	*listp = list;
	return 0;
}

/*
 * A flow can start once deps_needed of its deps are met; a started flow
 * eventually produces both its events. Propagate from the flows that wait
 * on nothing; whatever is not reached waits forever.
 */
int64_t
uet_wl_first_stuck(const struct uet_wl *wl)
{
	uint32_t *first, *list, *cnt, *queue, head = 0, tail = 0, i;
	int64_t stuck = UINT32_MAX;

	if (uet_wl_rev_index(wl, NULL, &first, &list) < 0)
		return UET_ERR_NOMEM;
	cnt = calloc(wl->nflows ? wl->nflows : 1, sizeof(*cnt));
	queue = malloc((wl->nflows ? wl->nflows : 1) * sizeof(*queue));
	if (cnt == NULL || queue == NULL) {
		stuck = UET_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < wl->nflows; i++)
		if (wl->flows[i].deps_needed == 0)
			queue[tail++] = i;
	while (head < tail) {
		uint64_t g = queue[head++], e;

		for (e = 2 * g; e < 2 * g + 2; e++) {
			uint32_t k;

			for (k = first[e]; k < first[e + 1]; k++) {
				uint32_t f = list[k];

				if (++cnt[f] == wl->flows[f].deps_needed)
					queue[tail++] = f;
			}
		}
	}
	if (tail < wl->nflows) {
		/* queue[0..tail) are the reachable ones; mark them in cnt. */
		memset(cnt, 0, wl->nflows * sizeof(*cnt));
		for (i = 0; i < tail; i++)
			cnt[queue[i]] = 1;
		for (i = 0; i < wl->nflows && cnt[i]; i++)
			;
		stuck = i;
	}
out:
	free(cnt);
	free(queue);
	free(first);
	free(list);
	return stuck;
}

int
uet_wl_validate(const struct uet_wl *wl, char *err, size_t errlen)
{
	uint32_t i, j;
	int64_t stuck;

	if (wl == NULL || (wl->nflows > 0 && wl->flows == NULL) ||
	    (wl->ndeps > 0 && wl->deps == NULL)) {
		uet_wl_errf(err, errlen, "no workload");
		return UET_ERR_INVAL;
	}
	if (wl->hosts < 2 || wl->hosts > UET_WL_MAX_HOSTS || wl->nflows > UET_WL_MAX_FLOWS) {
		uet_wl_errf(err, errlen, "hosts %u or flows %u out of range", wl->hosts,
			    wl->nflows);
		return UET_ERR_INVAL;
	}
	for (i = 0; i < wl->nflows; i++) {
		const struct uet_wl_flow *f = &wl->flows[i];

		if (f->id != i || f->src >= wl->hosts || f->dst >= wl->hosts ||
		    f->src == f->dst || f->size_bytes == 0 ||
		    f->dep_first > wl->ndeps || f->ndeps > wl->ndeps - f->dep_first ||
		    f->deps_needed > f->ndeps) {
			uet_wl_errf(err, errlen,
				    "flow %u (%u->%u, %llu bytes, id %u, deps %u+%u need %u) is "
				    "malformed", i, f->src, f->dst,
				    (unsigned long long)f->size_bytes, f->id, f->dep_first,
				    f->ndeps, f->deps_needed);
			return UET_ERR_INVAL;
		}
		for (j = 0; j < f->ndeps; j++) {
			const struct uet_wl_dep *d = &wl->deps[f->dep_first + j];
			const struct uet_wl_flow *g;

			if (d->flow >= wl->nflows || d->flow == i ||
			    (d->on != UET_WL_ON_SEND_DONE && d->on != UET_WL_ON_RECV_DONE)) {
				uet_wl_errf(err, errlen, "flow %u: dependency %u names flow %u", i,
					    j, d->flow);
				return UET_ERR_INVAL;
			}
			g = &wl->flows[d->flow];
			if ((d->on == UET_WL_ON_SEND_DONE && g->src != f->src) ||
			    (d->on == UET_WL_ON_RECV_DONE && g->dst != f->src)) {
				uet_wl_errf(err, errlen,
					    "flow %u (%u->%u) waits on %s of flow %u (%u->%u), which "
					    "host %u cannot observe",
					    i, f->src, f->dst,
					    d->on == UET_WL_ON_SEND_DONE ? "send-done" : "recv-done",
					    d->flow, g->src, g->dst, f->src);
				return UET_ERR_INVAL;
			}
		}
	}
	stuck = uet_wl_first_stuck(wl);
	if (stuck < 0) {
		uet_wl_errf(err, errlen, "out of memory");
		return UET_ERR_NOMEM;
	}
	if (stuck != UINT32_MAX) {
		uet_wl_errf(err, errlen,
			    "flow %u (%u->%u) can never start: its dependencies form a cycle "
			    "or wait on events that never come", (uint32_t)stuck,
			    wl->flows[stuck].src, wl->flows[stuck].dst);
		return UET_ERR_INVAL;
	}
	return 0;
}

/* ---- web search --------------------------------------------------------- */

/*
 * Web-search flow sizes: the DCTCP paper's measured production web-search
 * background traffic (Alizadeh et al., "Data Center TCP", SIGCOMM 2010,
 * Fig. 4), as the piecewise-linear CDF used by pFabric (SIGCOMM 2013) and
 * HPCC (SIGCOMM 2019, traffic_gen/WebSearch_distribution.txt): bytes,
 * cumulative probability. Mean 1,711,250 bytes.
 */
static const struct {
	double bytes, cdf;
} websearch_cdf[] = {
	{ 0, 0.00 },	   { 10000, 0.15 },   { 20000, 0.20 },	  { 30000, 0.30 },
	{ 50000, 0.40 },   { 80000, 0.53 },   { 200000, 0.60 },	  { 1000000, 0.70 },
	{ 2000000, 0.80 }, { 5000000, 0.90 }, { 10000000, 0.97 }, { 30000000, 1.00 },
};
#define WEBSEARCH_N (sizeof(websearch_cdf) / sizeof(websearch_cdf[0]))

double
uet_wl_websearch_mean_bytes(void)
{
	double m = 0;
	unsigned i;

	for (i = 1; i < WEBSEARCH_N; i++)
		m += (websearch_cdf[i].cdf - websearch_cdf[i - 1].cdf) *
		     (websearch_cdf[i].bytes + websearch_cdf[i - 1].bytes) / 2;
	return m;
}

static uint64_t
websearch_size(struct uet_prng *r)
{
	double u = uet_prng_unit(r), x;
	unsigned i;

	for (i = 1; i < WEBSEARCH_N - 1 && u >= websearch_cdf[i].cdf; i++)
		;
	x = websearch_cdf[i - 1].bytes +
	    (u - websearch_cdf[i - 1].cdf) / (websearch_cdf[i].cdf - websearch_cdf[i - 1].cdf) *
		    (websearch_cdf[i].bytes - websearch_cdf[i - 1].bytes);
	return x < 1 ? 1 : (uint64_t)llround(x);
}

/* ---- generators --------------------------------------------------------- */

struct gen {
	const struct uet_wl_spec *s;
	struct uet_wl_bld *b;
	uint32_t hosts, streams, fanin;
	char *err;
	size_t errlen;
};

static int
emit(struct gen *g, uint32_t src, uint32_t dst, uint64_t size, uint64_t start_ns,
     uint32_t stream, uint32_t step)
{
	struct uet_wl_flow f = {
		.src = src, .dst = dst, .size_bytes = size, .start_ns = start_ns,
		.stream = (uint16_t)stream, .step = step,
	};

	return uet_wl_bld_flow(g->b, &f, g->err, g->errlen);
}

static int
dep(struct gen *g, uint32_t flow, enum uet_wl_on on)
{
	return uet_wl_bld_dep(g->b, flow, on, g->err, g->errlen);
}

/* `streams` flows src -> dst of size_bytes at t = 0. */
static int
pairs(struct gen *g, uint32_t src, uint32_t dst)
{
	uint32_t c;
	int rc;

	for (c = 0; c < g->streams; c++)
		if ((rc = emit(g, src, dst, g->s->size_bytes, 0, c, 0)) < 0)
			return rc;
	return 0;
}

/* Uniform random derangement: shuffle until there is no fixed point
 * (about e tries); past a bound, Sattolo's algorithm (a random n-cycle,
 * which is a derangement) ends it. */
static void
derangement(uint32_t *p, uint32_t n, struct uet_prng *r)
{
	uint32_t tries, i, j, t;
	bool fixed = true;

	for (tries = 0; tries < 1000 && fixed; tries++) {
		for (i = 0; i < n; i++)
			p[i] = i;
		for (i = n - 1; i > 0; i--) {
			j = (uint32_t)uet_prng_below(r, (uint64_t)i + 1);
			t = p[i], p[i] = p[j], p[j] = t;
		}
		for (fixed = false, i = 0; i < n && !fixed; i++)
			fixed = p[i] == i;
	}
	if (!fixed)
		return;
	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = (uint32_t)uet_prng_below(r, i);
		t = p[i], p[i] = p[j], p[j] = t;
	}
}

static int
gen_permutation(struct gen *g)
{
	struct uet_prng r;
	uint32_t *p, i;
	int rc = 0;

	p = malloc(g->hosts * sizeof(*p));
	if (p == NULL)
		return UET_ERR_NOMEM;
	uet_prng_seed(&r, g->s->seed);
	derangement(p, g->hosts, &r);
	for (i = 0; i < g->hosts && rc == 0; i++)
		rc = pairs(g, i, p[i]);
	free(p);
	return rc;
}

static int
gen_alltoall(struct gen *g)
{
	uint32_t n = g->hosts, par = g->s->parallel, i, d, c, q;
	int rc;

	for (i = 0; i < n; i++) {
		uint32_t first = g->b->wl->nflows;

		for (q = 0, d = 1; d < n; d++) {
			for (c = 0; c < g->streams; c++, q++) {
				if ((rc = emit(g, i, (i + d) % n, g->s->size_bytes, 0, c, q)) < 0)
					return rc;
				if (par && q >= par &&
				    (rc = dep(g, first + q - par, UET_WL_ON_SEND_DONE)) < 0)
					return rc;
			}
		}
	}
	return 0;
}

/* Part j of `total` cut into `parts` pieces of ceil(total / parts) bytes,
 * the last one the remainder (0 when the cut runs out early). */
static uint64_t
split_part(uint64_t total, uint64_t parts, uint64_t j)
{
	uint64_t each = total / parts + (total % parts != 0), lo = j * each;

	if (j >= parts || lo >= total)
		return 0;
	return total - lo < each ? total - lo : each;
}

static int
gen_ring(struct gen *g)
{
	uint32_t n = g->hosts, steps = 2 * (n - 1), c, s, i;
	int rc;

	for (c = 0; c < g->streams; c++) {
		uint64_t slice = split_part(g->s->size_bytes, g->streams, c);
		uint32_t base = g->b->wl->nflows;

		for (s = 0; s < steps; s++) {
			for (i = 0; i < n; i++) {
				/* NCCL's ring: reduce-scatter sends chunk (i - s),
				 * all-gather chunk (i + 1 - s'). */
				uint32_t chunk = s < n - 1 ? (i + n - s) % n
							   : (i + 1 + n - (s - (n - 1))) % n;

				if ((rc = emit(g, i, (i + 1) % n, split_part(slice, n, chunk), 0, c,
					       s)) < 0)
					return rc;
				if (s > 0 &&
				    (rc = dep(g, base + (s - 1) * n + (i + n - 1) % n,
					      UET_WL_ON_RECV_DONE)) < 0)
					return rc;
			}
		}
	}
	return 0;
}

static uint32_t
log2u(uint32_t n)
{
	uint32_t m = 0;

	while ((1u << m) < n)
		m++;
	return m;
}

static uint32_t
bfly_partner(uint32_t i, uint32_t m, uint32_t t)
{
	return i ^ (1u << (t < m ? t : 2 * m - 1 - t));
}

static int
gen_butterfly(struct gen *g)
{
	uint32_t n = g->hosts, m = log2u(n), c, t, i;
	uint64_t *lo, *hi;
	int rc = 0;

	lo = malloc(n * sizeof(*lo));
	hi = malloc(n * sizeof(*hi));
	if (lo == NULL || hi == NULL) {
		rc = UET_ERR_NOMEM;
		goto out;
	}
	for (c = 0; c < g->streams && rc == 0; c++) {
		uint32_t base = g->b->wl->nflows;

		for (i = 0; i < n; i++) {
			lo[i] = 0;
			hi[i] = split_part(g->s->size_bytes, g->streams, c);
		}
		for (t = 0; t < 2 * m && rc == 0; t++) {
			for (i = 0; i < n && rc == 0; i++) {
				uint32_t p = bfly_partner(i, m, t);
				uint64_t size;

				if (t < m) {
					/* Recursive halving: i and p hold the same
					 * segment; the lower bit keeps the lower half. */
					uint64_t mid = lo[i] + (hi[i] - lo[i] + 1) / 2;

					if ((i & (1u << t)) == 0) {
						size = hi[i] - mid;
						hi[i] = mid;
					} else {
						size = mid - lo[i];
						lo[i] = mid;
					}
				} else {
					/* Recursive doubling: send back what was kept at
					 * the matching halving step, i.e. what p sent. */
					uint32_t k = 2 * m - 1 - t;

					size = g->b->wl->flows[base + k * n + p].size_bytes;
				}
				rc = emit(g, i, p, size, 0, c, t);
				if (rc == 0 && t > 0)
					rc = dep(g, base + (t - 1) * n + bfly_partner(i, m, t - 1),
						 UET_WL_ON_RECV_DONE);
			}
		}
	}
out:
	free(lo);
	free(hi);
	return rc;
}

static int
gen_websearch(struct gen *g)
{
	const struct uet_wl_spec *s = g->s;
	double rate_per_ns = s->load * (double)s->link_bps /
			     (8.0 * uet_wl_websearch_mean_bytes()) / 1e9;
	uint32_t i;
	int rc;

	for (i = 0; i < g->hosts; i++) {
		struct uet_prng r;
		double t = 0;
		uint32_t k;

		/* One stream per source: adding hosts leaves the others' draws. */
		uet_prng_seed(&r, uet_mix64(s->seed) ^ i);
		for (k = 0;; k++) {
			uint32_t dst;
			uint64_t size;

			t += -log1p(-uet_prng_unit(&r)) / rate_per_ns;
			if (t >= (double)s->duration_ns)
				break;
			dst = (uint32_t)uet_prng_below(&r, g->hosts - 1);
			dst += dst >= i;
			size = websearch_size(&r);
			if ((rc = emit(g, i, dst, size, (uint64_t)t, k % g->streams, 0)) < 0)
				return rc;
		}
	}
	return 0;
}

/* Every round of every chain (see workload.h): no template to expand, as
 * a round waits on the previous round's pong, not on a send. */
static int
gen_pingpong(struct gen *g, uint32_t iters)
{
	uint32_t root = g->s->root, peer = (root + 1) % g->hosts, k, c, ping;
	int rc = 0;

	for (k = 0; k < iters && rc == 0; k++) {
		for (c = 0; c < g->streams && rc == 0; c++) {
			ping = g->b->wl->nflows;
			if ((rc = emit(g, root, peer, g->s->size_bytes, 0, c, 0)) < 0)
				break;
			g->b->wl->flows[ping].iteration = k;
			/* The previous round's pong of this chain. */
			if (k > 0 && (rc = dep(g, ping - 2 * g->streams + 1, UET_WL_ON_RECV_DONE)) < 0)
				break;
			if ((rc = emit(g, peer, root, g->s->size_bytes, 0, c, 1)) < 0)
				break;
			g->b->wl->flows[ping + 1].iteration = k;
			rc = dep(g, ping, UET_WL_ON_RECV_DONE);
		}
	}
	return rc;
}

static int
gen_template(struct gen *g)
{
	const struct uet_wl_spec *s = g->s;
	uint32_t n = g->hosts, i;
	int rc = 0;

	switch (s->pattern) {
	case UET_WL_PAIR:
		return pairs(g, s->root, (s->root + 1) % n);
	case UET_WL_PERMUTATION:
		return gen_permutation(g);
	case UET_WL_TORNADO:
		for (i = 0; i < n && rc == 0; i++)
			rc = pairs(g, i, (i + n / 2) % n);
		return rc;
	case UET_WL_INCAST:
		for (i = 1; i <= g->fanin && rc == 0; i++)
			rc = pairs(g, (s->root + i) % n, s->root);
		return rc;
	case UET_WL_OUTCAST:
		for (i = 1; i <= g->fanin && rc == 0; i++)
			rc = pairs(g, s->root, (s->root + i) % n);
		return rc;
	case UET_WL_ALLTOALL:
		return gen_alltoall(g);
	case UET_WL_BISECTION:
		for (i = 0; i < n / 2 && rc == 0; i++)
			rc = pairs(g, i, i + n / 2);
		for (i = 0; i < n / 2 && rc == 0; i++)
			rc = pairs(g, i + n / 2, i);
		return rc;
	case UET_WL_RING_ALLREDUCE:
		return gen_ring(g);
	case UET_WL_BUTTERFLY_ALLREDUCE:
		return gen_butterfly(g);
	case UET_WL_WEBSEARCH:
		return gen_websearch(g);
	case UET_WL_CM:
	case UET_WL_PINGPONG:
		break;
	}
	return UET_ERR_INVAL;
}

/* ---- iterations ---------------------------------------------------------- */

struct tkey {
	uint32_t src, dst, stream, idx;
};

static int
tkey_cmp(const void *a, const void *b)
{
	const struct tkey *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool
is_collective(enum uet_wl_pattern p)
{
	return p == UET_WL_RING_ALLREDUCE || p == UET_WL_BUTTERFLY_ALLREDUCE;
}

/*
 * Copy the template (flows 0..T-1) for iterations 1..K-1. The first flow
 * of a (src, dst, stream) waits for SEND_DONE of its last one in the
 * previous iteration (point-to-point patterns: `parallel` iterations
 * back, so that many messages of a stream are in flight); a collective's first step at rank i also waits for
 * RECV_DONE of the last step into i (the collective has finished at i);
 * alltoall's window of `parallel` flows continues across iterations.
 */
static int
expand(struct gen *g, uint32_t iters)
{
	struct uet_wl *wl = g->b->wl;
	uint32_t T = wl->nflows, h = g->hosts, par = g->s->parallel;
	bool coll = is_collective(g->s->pattern), a2a = g->s->pattern == UET_WL_ALLTOALL;
	/* Point-to-point patterns keep `parallel` messages of a stream in
	 * flight: iteration k waits for iteration k - parallel. */
	uint32_t lag = coll || a2a || par == 0 ? 1 : par;
	uint32_t *prev_last = NULL, *last_into = NULL, k, p, j;
	struct tkey *keys = NULL;
	int rc = 0;

	if (iters <= 1 || T == 0)
		return 0;
	keys = malloc(T * sizeof(*keys));
	prev_last = malloc(T * sizeof(*prev_last));
	last_into = malloc((size_t)h * g->streams * sizeof(*last_into));
	if (keys == NULL || prev_last == NULL || last_into == NULL) {
		rc = UET_ERR_NOMEM;
		goto out;
	}
	for (p = 0; p < T; p++) {
		const struct uet_wl_flow *f = &wl->flows[p];

		keys[p] = (struct tkey){ f->src, f->dst, f->stream, p };
		prev_last[p] = UINT32_MAX;
	}
	qsort(keys, T, sizeof(*keys), tkey_cmp);
	for (p = 0; p < T; p = j) {
		for (j = p + 1; j < T && keys[j].src == keys[p].src && keys[j].dst == keys[p].dst &&
				keys[j].stream == keys[p].stream;
		     j++)
			;
		prev_last[keys[p].idx] = keys[j - 1].idx;
	}
	for (p = 0; p < h * g->streams; p++)
		last_into[p] = UINT32_MAX;
	for (p = 0; p < T; p++) {
		const struct uet_wl_flow *f = &wl->flows[p];
		uint32_t *li = &last_into[f->dst * g->streams + f->stream];

		if (*li == UINT32_MAX || wl->flows[*li].step <= f->step)
			*li = p;
	}

	for (k = 1; k < iters && rc == 0; k++) {
		for (p = 0; p < T && rc == 0; p++) {
			struct uet_wl_flow f = wl->flows[p];
			uint32_t first = f.dep_first, n = f.ndeps;

			f.iteration = k;
			if (g->s->rate_bps > 0)
				f.start_ns = uet_wl_paced_ns(f.size_bytes, g->s->rate_bps, k);
			if ((rc = uet_wl_bld_flow(g->b, &f, g->err, g->errlen)) < 0)
				break;
			for (j = 0; j < n && rc == 0; j++)
				rc = dep(g, wl->deps[first + j].flow + k * T, wl->deps[first + j].on);
			if (rc == 0 && prev_last[p] != UINT32_MAX && k >= lag)
				rc = dep(g, (k - lag) * T + prev_last[p], UET_WL_ON_SEND_DONE);
			if (rc == 0 && coll && f.step == 0)
				rc = dep(g, (k - 1) * T + last_into[f.src * g->streams + f.stream],
					 UET_WL_ON_RECV_DONE);
			if (rc == 0 && a2a && par) {
				/* Template is source-major: M flows per source. */
				uint64_t M = T / h, gq = (uint64_t)k * M + p % M;

				if (gq >= par) {
					uint64_t w = gq - par;

					rc = dep(g, (uint32_t)((w / M) * T + (p / M) * M + w % M),
						 UET_WL_ON_SEND_DONE);
				}
			}
		}
	}
out:
	free(keys);
	free(prev_last);
	free(last_into);
	return rc;
}

/* ---- spec checks ----------------------------------------------------------- */

static uint64_t
smul(uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

#define BAD(...)                                         \
	do {                                             \
		uet_wl_errf(err, errlen, __VA_ARGS__);   \
		return UET_ERR_INVAL;                    \
	} while (0)

/* Check a collective's slices; 0 or UET_ERR_INVAL. */
static int
check_collective(const struct uet_wl_spec *s, uint32_t streams, char *err, size_t errlen)
{
	const char *name = uet_wl_pattern_name(s->pattern);
	uint64_t slice = split_part(s->size_bytes, streams, streams - 1), n = s->hosts;

	/* The last slice is the smallest. */
	if (slice == 0)
		BAD("%s: size_bytes %llu cannot be cut into %u stream slices", name,
		    (unsigned long long)s->size_bytes, streams);
	if (s->pattern == UET_WL_RING_ALLREDUCE) {
		uint64_t c;

		for (c = 0; c < streams; c++) {
			slice = split_part(s->size_bytes, streams, c);
			if (split_part(slice, n, n - 1) == 0)
				BAD("ring_allreduce: a slice of %llu bytes cannot be cut into %u "
				    "chunks of ceil(size/%u) bytes (size_bytes too small for %u "
				    "hosts x %u streams)",
				    (unsigned long long)slice, s->hosts, s->hosts, s->hosts, streams);
		}
	} else {
		if ((s->hosts & (s->hosts - 1)) != 0)
			BAD("butterfly_allreduce: hosts %u is not a power of two", s->hosts);
		if (slice < n)
			BAD("butterfly_allreduce: a slice of %llu bytes is smaller than the %u "
			    "hosts (size_bytes too small for %u streams)",
			    (unsigned long long)slice, s->hosts, streams);
	}
	return 0;
}

/* Flows in one iteration (UINT64_MAX on overflow; websearch: expected). */
static uint64_t
template_flows(const struct uet_wl_spec *s, uint32_t streams, uint32_t fanin)
{
	uint64_t n = s->hosts;

	switch (s->pattern) {
	case UET_WL_PAIR:
		return streams;
	case UET_WL_PINGPONG:
		return smul(2, streams);
	case UET_WL_INCAST:
	case UET_WL_OUTCAST:
		return smul(fanin, streams);
	case UET_WL_ALLTOALL:
		return smul(smul(n, n - 1), streams);
	case UET_WL_RING_ALLREDUCE:
		return smul(smul(2 * (n - 1), n), streams);
	case UET_WL_BUTTERFLY_ALLREDUCE:
		return smul(smul(2 * log2u(s->hosts), n), streams);
	case UET_WL_WEBSEARCH: {
		double e = n * s->load * (double)s->link_bps /
			   (8.0 * uet_wl_websearch_mean_bytes()) * ((double)s->duration_ns / 1e9);

		return e >= 1e18 ? UINT64_MAX : (uint64_t)e;
	}
	default:
		return smul(n, streams);
	}
}

static int
check_spec(const struct uet_wl_spec *s, uint32_t *streams, uint32_t *iters, uint32_t *fanin,
	   char *err, size_t errlen)
{
	const char *name = uet_wl_pattern_name(s->pattern);
	uint64_t t;

	if ((unsigned)s->pattern >= NPATTERNS)
		BAD("unknown pattern %d", (int)s->pattern);
	*streams = s->streams ? s->streams : 1;
	*iters = s->iterations ? s->iterations : 1;
	*fanin = s->fanin ? s->fanin : (s->hosts ? s->hosts - 1 : 0);
	if (s->streams > UET_WL_MAX_STREAMS)
		BAD("streams %u > %u", s->streams, UET_WL_MAX_STREAMS);
	if (s->size_bytes > UET_WL_MAX_SIZE_BYTES)
		BAD("size_bytes %llu > %llu", (unsigned long long)s->size_bytes,
		    (unsigned long long)UET_WL_MAX_SIZE_BYTES);
	if (s->rate_bps > 0 && (s->pattern == UET_WL_CM || s->pattern == UET_WL_WEBSEARCH ||
				s->pattern == UET_WL_PINGPONG || is_collective(s->pattern)))
		BAD("%s: a rate applies to the point-to-point patterns only", name);
	if (s->pattern == UET_WL_CM) {
		if (s->cm_path == NULL || s->cm_path[0] == '\0')
			BAD("cm: no cm_path");
		if (*streams > 1 || *iters > 1)
			BAD("cm: streams and iterations must be 0 or 1 (the file says what runs)");
		return 0;
	}
	if (s->hosts < 2 || s->hosts > UET_WL_MAX_HOSTS)
		BAD("%s: hosts %u not in [2, %u]", name, s->hosts, UET_WL_MAX_HOSTS);
	if (s->root >= s->hosts)
		BAD("%s: root %u >= hosts %u", name, s->root, s->hosts);
	if (s->pattern != UET_WL_WEBSEARCH && s->size_bytes == 0)
		BAD("%s: size_bytes is 0", name);
	if ((s->pattern == UET_WL_INCAST || s->pattern == UET_WL_OUTCAST) &&
	    *fanin > s->hosts - 1)
		BAD("%s: fanin %u > hosts - 1 = %u", name, *fanin, s->hosts - 1);
	if (s->pattern == UET_WL_BISECTION && s->hosts % 2 != 0)
		BAD("bisection: hosts %u is odd", s->hosts);
	if (is_collective(s->pattern) && check_collective(s, *streams, err, errlen) < 0)
		return UET_ERR_INVAL;
	if (s->pattern == UET_WL_WEBSEARCH) {
		if (!(s->load > 0 && s->load <= 1))
			BAD("websearch: load %g not in (0, 1]", s->load);
		if (s->link_bps == 0 || s->duration_ns == 0)
			BAD("websearch: link_bps and duration_ns must be > 0");
		if (*iters > 1)
			BAD("websearch: iterations must be 0 or 1 (use duration_ns)");
	}
	t = template_flows(s, *streams, *fanin);
	if (smul(t, *iters) > UET_WL_MAX_FLOWS)
		BAD("%s: about %llu flows x %u iterations, more than the limit %u", name,
		    (unsigned long long)t, *iters, UET_WL_MAX_FLOWS);
	return 0;
}

int
uet_wl_build(const struct uet_wl_spec *s, struct uet_wl **out, char *err, size_t errlen)
{
	struct uet_wl_bld b = { 0 };
	struct gen g;
	uint32_t streams, iters, fanin;
	int rc;

	uet_wl_errf(err, errlen, "%s", "");
	if (out == NULL || s == NULL) {
		uet_wl_errf(err, errlen, "no spec or no output");
		return UET_ERR_INVAL;
	}
	*out = NULL;
	if ((rc = check_spec(s, &streams, &iters, &fanin, err, errlen)) < 0)
		return rc;
	b.wl = calloc(1, sizeof(*b.wl));
	if (b.wl == NULL)
		return UET_ERR_NOMEM;
	b.wl->pattern = s->pattern;
	b.wl->hosts = s->hosts;
	if (s->pattern == UET_WL_CM) {
		rc = uet_wl_cm_load(s, &b, err, errlen);
	} else {
		g = (struct gen){ .s = s, .b = &b, .hosts = s->hosts, .streams = streams,
				  .fanin = fanin, .err = err, .errlen = errlen };
		if (is_collective(s->pattern))
			b.wl->coll_bytes = s->size_bytes;
		if (s->pattern == UET_WL_PINGPONG) {
			rc = gen_pingpong(&g, iters);
		} else {
			rc = gen_template(&g);
			if (rc == 0)
				rc = expand(&g, iters);
		}
		if (rc == UET_ERR_NOMEM)
			uet_wl_errf(err, errlen, "out of memory");
	}
	if (rc == 0)
		rc = uet_wl_validate(b.wl, err, errlen);
	if (rc < 0) {
		uet_wl_free(b.wl);
		return rc;
	}
	*out = b.wl;
	return 0;
}

uint64_t
uet_wl_paced_ns(uint64_t size_bytes, uint64_t rate_bps, uint64_t k)
{
	unsigned __int128 t = (unsigned __int128)k * size_bytes * 8 * 1000000000ULL;

	if (rate_bps == 0)
		return 0;
	t /= rate_bps;
	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

void
uet_wl_free(struct uet_wl *wl)
{
	uint32_t i;

	if (wl == NULL)
		return;
	for (i = 0; i < wl->unsupported; i++)
		free(wl->unsupported_text[i]);
	free(wl->unsupported_text);
	free(wl->flows);
	free(wl->deps);
	free(wl);
}
