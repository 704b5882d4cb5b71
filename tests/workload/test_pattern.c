/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/workload: pattern generators (flows, bytes, deps), spec validation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "uet/err.h"
#include "workload/workload.h"

static char errbuf[512];

static struct uet_wl *
build(const struct uet_wl_spec *s)
{
	struct uet_wl *wl = NULL;
	int rc = uet_wl_build(s, &wl, errbuf, sizeof(errbuf));

	if (rc != 0)
		print_error("build failed: %d %s\n", rc, errbuf);
	assert_int_equal(rc, 0);
	assert_non_null(wl);
	return wl;
}

static void
build_fails(const struct uet_wl_spec *s, const char *needle)
{
	struct uet_wl *wl = (struct uet_wl *)1;

	errbuf[0] = '\0';
	assert_int_equal(uet_wl_build(s, &wl, errbuf, sizeof(errbuf)), UET_ERR_INVAL);
	assert_null(wl);
	if (strstr(errbuf, needle) == NULL)
		print_error("error '%s' lacks '%s'\n", errbuf, needle);
	assert_non_null(strstr(errbuf, needle));
}

static const struct uet_wl_dep *
dep_of(const struct uet_wl *wl, uint32_t flow, uint32_t k)
{
	assert_true(k < wl->flows[flow].ndeps);
	return &wl->deps[wl->flows[flow].dep_first + k];
}

/* Written independently of the library's own check. */
static void
assert_observable(const struct uet_wl *wl)
{
	uint32_t i, k;

	for (i = 0; i < wl->nflows; i++) {
		const struct uet_wl_flow *f = &wl->flows[i];

		assert_int_equal(f->id, i);
		assert_true(f->src < wl->hosts && f->dst < wl->hosts && f->src != f->dst);
		assert_true(f->size_bytes > 0);
		assert_int_equal(f->deps_needed, f->ndeps);
		for (k = 0; k < f->ndeps; k++) {
			const struct uet_wl_dep *d = dep_of(wl, i, k);
			const struct uet_wl_flow *g = &wl->flows[d->flow];

			assert_true(d->flow < i); /* generated patterns only look back */
			if (d->on == UET_WL_ON_SEND_DONE)
				assert_int_equal(g->src, f->src);
			else
				assert_int_equal(g->dst, f->src);
		}
	}
}

static uint64_t
total_bytes(const struct uet_wl *wl)
{
	uint64_t t = 0;
	uint32_t i;

	for (i = 0; i < wl->nflows; i++)
		t += wl->flows[i].size_bytes;
	return t;
}

static void
test_names(void **state)
{
	enum uet_wl_pattern p, q;

	(void)state;
	for (p = UET_WL_PAIR; p <= UET_WL_PINGPONG; p++) {
		assert_int_equal(uet_wl_pattern_parse(uet_wl_pattern_name(p), &q), 0);
		assert_int_equal(q, p);
	}
	assert_string_equal(uet_wl_pattern_name(UET_WL_PERMUTATION), "permutation");
	assert_string_equal(uet_wl_pattern_name(UET_WL_RING_ALLREDUCE), "ring_allreduce");
	assert_string_equal(uet_wl_pattern_name(UET_WL_PINGPONG), "pingpong");
	assert_string_equal(uet_wl_pattern_name((enum uet_wl_pattern)99), "?");
	assert_int_equal(uet_wl_pattern_parse("Permutation", &q), UET_ERR_INVAL);
	assert_int_equal(uet_wl_pattern_parse("", &q), UET_ERR_INVAL);
	assert_int_equal(uet_wl_pattern_parse(NULL, &q), UET_ERR_INVAL);
}

static void
test_pair(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_PAIR, .hosts = 4, .size_bytes = 1000,
				 .streams = 3 };
	struct uet_wl *wl;
	uint32_t i;

	(void)state;
	wl = build(&s);
	assert_int_equal(wl->nflows, 3);
	assert_int_equal(wl->ndeps, 0);
	assert_int_equal(wl->coll_bytes, 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(wl->flows[i].src, 0);
		assert_int_equal(wl->flows[i].dst, 1);
		assert_int_equal(wl->flows[i].stream, i);
		assert_int_equal(wl->flows[i].size_bytes, 1000);
		assert_int_equal(wl->flows[i].start_ns, 0);
	}
	uet_wl_free(wl);
	s.root = 3;
	s.streams = 0;
	wl = build(&s);
	assert_int_equal(wl->nflows, 1);
	assert_int_equal(wl->flows[0].src, 3);
	assert_int_equal(wl->flows[0].dst, 0);
	uet_wl_free(wl);
}

/* Ping-pong: per round and stream a ping root -> peer and its pong; the
 * ping waits on the previous round's pong of its own chain, the pong on its
 * ping, both arrivals (RECV_DONE), and nothing waits on a send. */
static void
test_pingpong(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_PINGPONG, .hosts = 5, .size_bytes = 64,
				 .streams = 2, .iterations = 4, .root = 4, .parallel = 8 };
	struct uet_wl *wl;
	uint32_t i;

	(void)state;
	wl = build(&s);
	assert_int_equal(wl->nflows, 16);
	assert_int_equal(wl->ndeps, 14);
	assert_observable(wl);
	for (i = 0; i < 16; i++) {
		const struct uet_wl_flow *f = &wl->flows[i];
		bool ping = i % 2 == 0;

		assert_int_equal(f->src, ping ? 4 : 0);
		assert_int_equal(f->dst, ping ? 0 : 4);
		assert_int_equal(f->step, ping ? 0 : 1);
		assert_int_equal(f->stream, (i / 2) % 2);
		assert_int_equal(f->iteration, i / 4);
		assert_int_equal(f->size_bytes, 64);
		if (ping && i < 4) {
			assert_int_equal(f->ndeps, 0);
			continue;
		}
		assert_int_equal(f->ndeps, 1);
		assert_int_equal(dep_of(wl, i, 0)->on, UET_WL_ON_RECV_DONE);
		/* A pong answers the flow before it; a ping follows its
		 * chain's pong of the round before. */
		assert_int_equal(dep_of(wl, i, 0)->flow, ping ? i - 3 : i - 1);
	}
	uet_wl_free(wl);
	/* Defaults: one chain, one round, root 0 -> 1. */
	s = (struct uet_wl_spec){ .pattern = UET_WL_PINGPONG, .hosts = 2, .size_bytes = 1 };
	wl = build(&s);
	assert_int_equal(wl->nflows, 2);
	assert_int_equal(wl->flows[0].src, 0);
	assert_int_equal(wl->flows[1].src, 1);
	assert_int_equal(wl->flows[1].ndeps, 1);
	uet_wl_free(wl);
	s.size_bytes = 0;
	build_fails(&s, "pingpong: size_bytes is 0");
	s.size_bytes = 1;
	s.iterations = UET_WL_MAX_FLOWS / 2 + 1;
	build_fails(&s, "pingpong: about 2 flows");
}

static uint32_t
perm_dst(const struct uet_wl *wl, uint32_t src)
{
	assert_int_equal(wl->flows[src].src, src);
	return wl->flows[src].dst;
}

static void
test_permutation(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_PERMUTATION, .hosts = 16, .size_bytes = 64,
				 .seed = 1 };
	struct uet_wl *a, *b, *c;
	uint32_t i, seed, differ = 0, two_cycles = 0;
	bool seen[16] = { false };

	(void)state;
	a = build(&s);
	b = build(&s);
	s.seed = 2;
	c = build(&s);
	assert_int_equal(a->nflows, 16);
	for (i = 0; i < 16; i++) {
		uint32_t d = perm_dst(a, i);

		assert_int_not_equal(d, i);
		assert_false(seen[d]);
		seen[d] = true;
		assert_int_equal(perm_dst(b, i), d);
		differ += perm_dst(c, i) != d;
	}
	assert_true(differ > 0);
	uet_wl_free(a);
	uet_wl_free(b);
	uet_wl_free(c);

	/* Uniform over derangements, not just n-cycles: of the 44 derangements
	 * of 5 elements, 20 are a 2-cycle plus a 3-cycle. */
	s.hosts = 5;
	for (seed = 0; seed < 2000; seed++) {
		s.seed = seed;
		a = build(&s);
		for (i = 0; i < 5; i++) {
			assert_int_not_equal(perm_dst(a, i), i);
			if (perm_dst(a, perm_dst(a, i)) == i) {
				two_cycles++;
				break;
			}
		}
		uet_wl_free(a);
	}
	assert_true(fabs(two_cycles / 2000.0 - 20.0 / 44) < 0.05);

	s.hosts = 2;
	a = build(&s);
	assert_int_equal(perm_dst(a, 0), 1);
	assert_int_equal(perm_dst(a, 1), 0);
	uet_wl_free(a);
}

static void
test_tornado_bisection(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_TORNADO, .hosts = 5, .size_bytes = 10,
				 .streams = 2 };
	struct uet_wl *wl;
	uint32_t i;

	(void)state;
	wl = build(&s);
	assert_int_equal(wl->nflows, 10);
	for (i = 0; i < 10; i++) {
		assert_int_equal(wl->flows[i].src, i / 2);
		assert_int_equal(wl->flows[i].dst, (i / 2 + 2) % 5);
		assert_int_equal(wl->flows[i].stream, i % 2);
	}
	assert_int_equal(total_bytes(wl), 100);
	uet_wl_free(wl);

	s.pattern = UET_WL_BISECTION;
	s.hosts = 6;
	s.streams = 1;
	wl = build(&s);
	assert_int_equal(wl->nflows, 6);
	for (i = 0; i < 3; i++) {
		assert_int_equal(wl->flows[i].src, i);
		assert_int_equal(wl->flows[i].dst, i + 3);
		assert_int_equal(wl->flows[3 + i].src, i + 3);
		assert_int_equal(wl->flows[3 + i].dst, i);
	}
	uet_wl_free(wl);
	s.hosts = 7;
	build_fails(&s, "odd");
}

static void
test_incast_outcast(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_INCAST, .hosts = 8, .size_bytes = 500,
				 .root = 2, .fanin = 3, .streams = 2 };
	struct uet_wl *wl;
	uint32_t i;

	(void)state;
	wl = build(&s);
	assert_int_equal(wl->nflows, 6);
	for (i = 0; i < 6; i++) {
		assert_int_equal(wl->flows[i].src, 3 + i / 2);
		assert_int_equal(wl->flows[i].dst, 2);
	}
	assert_int_equal(total_bytes(wl), 3000);
	uet_wl_free(wl);

	s.fanin = 0; /* hosts - 1 senders: everyone but the root */
	s.streams = 1;
	wl = build(&s);
	assert_int_equal(wl->nflows, 7);
	for (i = 0; i < 7; i++) {
		assert_int_equal(wl->flows[i].src, (2 + 1 + i) % 8);
		assert_int_equal(wl->flows[i].dst, 2);
	}
	uet_wl_free(wl);

	s.pattern = UET_WL_OUTCAST;
	s.root = 6;
	s.fanin = 3;
	wl = build(&s);
	assert_int_equal(wl->nflows, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(wl->flows[i].src, 6);
		assert_int_equal(wl->flows[i].dst, (7 + i) % 8);
	}
	uet_wl_free(wl);
	s.fanin = 8;
	build_fails(&s, "fanin 8");
}

static void
test_alltoall(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_ALLTOALL, .hosts = 5, .size_bytes = 100,
				 .streams = 2 };
	struct uet_wl *wl;
	uint32_t i, q, count[5][5] = { { 0 } };

	(void)state;
	wl = build(&s);
	assert_int_equal(wl->nflows, 5 * 4 * 2);
	assert_int_equal(wl->ndeps, 0);
	for (i = 0; i < wl->nflows; i++)
		count[wl->flows[i].src][wl->flows[i].dst]++;
	for (i = 0; i < 25; i++)
		assert_int_equal(count[i / 5][i % 5], i / 5 == i % 5 ? 0 : 2);
	uet_wl_free(wl);

	s.parallel = 3;
	wl = build(&s);
	assert_observable(wl);
	for (i = 0; i < 5; i++) {
		for (q = 0; q < 8; q++) {
			const struct uet_wl_flow *f = &wl->flows[i * 8 + q];

			/* Source i's order: i+1, i+2, ..., each with its streams. */
			assert_int_equal(f->src, i);
			assert_int_equal(f->dst, (i + 1 + q / 2) % 5);
			assert_int_equal(f->stream, q % 2);
			assert_int_equal(f->step, q);
			if (q < 3) {
				assert_int_equal(f->ndeps, 0);
			} else {
				assert_int_equal(f->ndeps, 1);
				assert_int_equal(dep_of(wl, f->id, 0)->flow, i * 8 + q - 3);
				assert_int_equal(dep_of(wl, f->id, 0)->on, UET_WL_ON_SEND_DONE);
			}
		}
	}
	uet_wl_free(wl);

	s.hosts = 5000; /* 25M flows */
	s.streams = 1;
	build_fails(&s, "limit");
}

/* Bytes each rank sends. */
static void
sent_per_rank(const struct uet_wl *wl, uint64_t *sent)
{
	uint32_t i;

	memset(sent, 0, wl->hosts * sizeof(*sent));
	for (i = 0; i < wl->nflows; i++)
		sent[wl->flows[i].src] += wl->flows[i].size_bytes;
}

static void
test_ring(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_RING_ALLREDUCE, .hosts = 4,
				 .size_bytes = 4000 };
	struct uet_wl *wl;
	uint64_t sent[8];
	uint32_t i, st;

	(void)state;
	wl = build(&s);
	assert_int_equal(wl->coll_bytes, 4000);
	assert_int_equal(wl->nflows, 2 * 3 * 4);
	assert_observable(wl);
	sent_per_rank(wl, sent);
	for (i = 0; i < 4; i++)
		assert_int_equal(sent[i], 2 * 3 * 4000 / 4); /* 2(n-1)/n * S */
	for (st = 0; st < 6; st++) {
		for (i = 0; i < 4; i++) {
			const struct uet_wl_flow *f = &wl->flows[st * 4 + i];

			assert_int_equal(f->src, i);
			assert_int_equal(f->dst, (i + 1) % 4);
			assert_int_equal(f->step, st);
			assert_int_equal(f->size_bytes, 1000);
			if (st == 0) {
				assert_int_equal(f->ndeps, 0);
				continue;
			}
			assert_int_equal(f->ndeps, 1);
			assert_int_equal(dep_of(wl, f->id, 0)->on, UET_WL_ON_RECV_DONE);
			assert_int_equal(dep_of(wl, f->id, 0)->flow, (st - 1) * 4 + (i + 3) % 4);
		}
	}
	uet_wl_free(wl);

	/* S = 10 over 3 ranks: chunks 4, 4, 2. Rank i sends every chunk
	 * twice except (i+1)%3 and (i+2)%3 once each. */
	s.hosts = 3;
	s.size_bytes = 10;
	wl = build(&s);
	sent_per_rank(wl, sent);
	assert_int_equal(sent[0], 20 - 4 - 2);
	assert_int_equal(sent[1], 20 - 2 - 4);
	assert_int_equal(sent[2], 20 - 4 - 4);
	assert_int_equal(total_bytes(wl), 2 * 2 * 10); /* each step moves S */
	assert_int_equal(wl->flows[2].size_bytes, 2);   /* step 0: rank 2 sends chunk 2 */
	uet_wl_free(wl);

	/* Two streams: two rings over 4000-byte slices. */
	s.hosts = 4;
	s.size_bytes = 8000;
	s.streams = 2;
	wl = build(&s);
	assert_int_equal(wl->nflows, 2 * 24);
	sent_per_rank(wl, sent);
	for (i = 0; i < 4; i++)
		assert_int_equal(sent[i], 2 * 3 * 8000 / 4);
	for (i = 0; i < 24; i++)
		assert_int_equal(wl->flows[24 + i].stream, 1);
	uet_wl_free(wl);

	s.hosts = 8;
	s.size_bytes = 10; /* ceil(10/8) = 2: chunks run out after 5 */
	s.streams = 1;
	build_fails(&s, "too small");
}

static void
test_butterfly(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_BUTTERFLY_ALLREDUCE, .hosts = 8,
				 .size_bytes = 8000 };
	static const uint32_t sizes[6] = { 4000, 2000, 1000, 1000, 2000, 4000 };
	static const uint32_t dist[6] = { 1, 2, 4, 4, 2, 1 };
	struct uet_wl *wl;
	uint64_t sent[8];
	uint32_t i, t;

	(void)state;
	wl = build(&s);
	assert_int_equal(wl->coll_bytes, 8000);
	assert_int_equal(wl->nflows, 2 * 3 * 8);
	assert_observable(wl);
	sent_per_rank(wl, sent);
	for (i = 0; i < 8; i++)
		assert_int_equal(sent[i], 2 * 7 * 8000 / 8);
	for (t = 0; t < 6; t++) {
		for (i = 0; i < 8; i++) {
			const struct uet_wl_flow *f = &wl->flows[t * 8 + i];

			assert_int_equal(f->src, i);
			assert_int_equal(f->dst, i ^ dist[t]);
			assert_int_equal(f->size_bytes, sizes[t]);
			assert_int_equal(f->step, t);
			if (t == 0) {
				assert_int_equal(f->ndeps, 0);
				continue;
			}
			assert_int_equal(f->ndeps, 1);
			assert_int_equal(dep_of(wl, f->id, 0)->on, UET_WL_ON_RECV_DONE);
			assert_int_equal(dep_of(wl, f->id, 0)->flow, (t - 1) * 8 + (i ^ dist[t - 1]));
		}
	}
	uet_wl_free(wl);

	/* S = 7 over 4: the halves differ by a byte, but the pair exchanged at
	 * each halving step covers the segment, and all-gather sends back
	 * exactly what reduce-scatter received. */
	s.hosts = 4;
	s.size_bytes = 7;
	wl = build(&s);
	for (i = 0; i < 4; i++) {
		const struct uet_wl_flow *f0 = &wl->flows[i], *p0 = &wl->flows[i ^ 1];

		assert_int_equal(f0->size_bytes + p0->size_bytes, 7);
		for (t = 0; t < 2; t++)
			assert_int_equal(wl->flows[(3 - t) * 4 + i].size_bytes,
					 wl->flows[t * 4 + (i ^ (1u << t))].size_bytes);
	}
	assert_int_equal(total_bytes(wl), 2 * (4 * 7 - 7)); /* sum of segments: 2(n-1)S */
	uet_wl_free(wl);

	s.hosts = 6;
	build_fails(&s, "power of two");
	s.hosts = 8;
	s.size_bytes = 5;
	build_fails(&s, "smaller than");
}

static void
test_websearch(void **state)
{
	const double load = 0.5, link = 100e9, dur_s = 5;
	struct uet_wl_spec s = { .pattern = UET_WL_WEBSEARCH, .hosts = 4, .seed = 7,
				 .load = load, .link_bps = (uint64_t)link,
				 .duration_ns = (uint64_t)(dur_s * 1e9), .streams = 4 };
	double mean = 1711250.0, rate = load * link / (8 * mean), bytes = 0, small = 0;
	double gap_sum = 0, gap_sq = 0;
	uint32_t i, per_src[4] = { 0 }, per_dst[4][4] = { { 0 } }, ngaps = 0;
	uint64_t last[4] = { 0 };
	struct uet_wl *wl;

	(void)state;
	assert_true(fabs(uet_wl_websearch_mean_bytes() - mean) < 1e-6);
	wl = build(&s);
	assert_int_equal(wl->ndeps, 0);
	for (i = 0; i < wl->nflows; i++) {
		const struct uet_wl_flow *f = &wl->flows[i];

		assert_true(f->src != f->dst);
		assert_true(f->start_ns < s.duration_ns);
		assert_true(f->size_bytes >= 1 && f->size_bytes <= 30000000);
		assert_int_equal(f->stream, per_src[f->src] % 4);
		bytes += (double)f->size_bytes;
		small += f->size_bytes <= 10000;
		if (per_src[f->src]++ > 0) {
			double gap = (double)(f->start_ns - last[f->src]);

			gap_sum += gap;
			gap_sq += gap * gap;
			ngaps++;
		}
		assert_true(f->start_ns >= last[f->src]);
		last[f->src] = f->start_ns;
		per_dst[f->src][f->dst]++;
	}
	/* ~73,000 flows: counts within 3% (8 sigma), the heavy-tailed mean
	 * size within 4% (about 4 sigma), 15% of flows <= 10 KB. */
	for (i = 0; i < 4; i++) {
		uint32_t d;

		assert_true(fabs(per_src[i] / (rate * dur_s) - 1) < 0.03);
		for (d = 0; d < 4; d++)
			if (d != i)
				assert_true(fabs(per_dst[i][d] / (per_src[i] / 3.0) - 1) < 0.05);
	}
	assert_true(fabs(bytes / wl->nflows / mean - 1) < 0.04);
	assert_true(fabs(small / wl->nflows - 0.15) < 0.01);
	/* Poisson: exponential gaps, mean 1/rate and coefficient of variation 1. */
	{
		double m = gap_sum / ngaps, sd = sqrt(gap_sq / ngaps - m * m);

		assert_true(fabs(m / (1e9 / rate) - 1) < 0.03);
		assert_true(fabs(sd / m - 1) < 0.03);
	}
	uet_wl_free(wl);

	s.iterations = 2;
	build_fails(&s, "iterations");
	s.iterations = 0;
	s.load = 1.5;
	build_fails(&s, "load");
	s.load = 0;
	build_fails(&s, "load");
	s.load = 0.5;
	s.link_bps = 0;
	build_fails(&s, "link_bps");
}

static void
test_iterations(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_PAIR, .hosts = 2, .size_bytes = 10,
				 .streams = 2, .iterations = 3 };
	struct uet_wl *wl;
	uint32_t i, q;

	(void)state;
	wl = build(&s);
	assert_int_equal(wl->nflows, 6);
	assert_observable(wl);
	for (i = 0; i < 6; i++) {
		assert_int_equal(wl->flows[i].iteration, i / 2);
		assert_int_equal(wl->flows[i].stream, i % 2);
		if (i < 2) {
			assert_int_equal(wl->flows[i].ndeps, 0);
			continue;
		}
		assert_int_equal(wl->flows[i].ndeps, 1);
		assert_int_equal(dep_of(wl, i, 0)->flow, i - 2);
		assert_int_equal(dep_of(wl, i, 0)->on, UET_WL_ON_SEND_DONE);
	}
	uet_wl_free(wl);

	/* parallel = 3 on a point-to-point pattern: iteration k of a stream
	 * waits for iteration k - 3, so three messages are in flight. */
	s = (struct uet_wl_spec){ .pattern = UET_WL_PERMUTATION, .hosts = 4, .size_bytes = 10,
				  .iterations = 7, .parallel = 3, .seed = 5 };
	wl = build(&s);
	assert_int_equal(wl->nflows, 28);
	assert_observable(wl);
	for (i = 0; i < 28; i++) {
		const struct uet_wl_flow *f = &wl->flows[i];

		assert_int_equal(f->iteration, i / 4);
		if (f->iteration < 3) {
			assert_int_equal(f->ndeps, 0);
			continue;
		}
		assert_int_equal(f->ndeps, 1);
		assert_int_equal(dep_of(wl, i, 0)->flow, i - 12);
		assert_int_equal(wl->flows[i - 12].src, f->src);
		assert_int_equal(wl->flows[i - 12].dst, f->dst);
	}
	uet_wl_free(wl);

	/* Ring, 2 iterations: rank i's first step of iteration 1 waits for
	 * its own last send and for the last chunk into it. */
	s = (struct uet_wl_spec){ .pattern = UET_WL_RING_ALLREDUCE, .hosts = 3,
				  .size_bytes = 300, .iterations = 2 };
	wl = build(&s);
	assert_int_equal(wl->nflows, 2 * 12);
	assert_observable(wl);
	for (i = 0; i < 3; i++) {
		const struct uet_wl_flow *f = &wl->flows[12 + i];

		assert_int_equal(f->step, 0);
		assert_int_equal(f->iteration, 1);
		assert_int_equal(f->ndeps, 2);
		assert_int_equal(dep_of(wl, f->id, 0)->flow, 3 * 3 + i);
		assert_int_equal(dep_of(wl, f->id, 0)->on, UET_WL_ON_SEND_DONE);
		assert_int_equal(dep_of(wl, f->id, 1)->flow, 3 * 3 + (i + 2) % 3);
		assert_int_equal(dep_of(wl, f->id, 1)->on, UET_WL_ON_RECV_DONE);
	}
	uet_wl_free(wl);

	/* Alltoall window of 2 continues across iterations: the k-th flow of
	 * a source (counting both iterations) waits for its (k-2)-th. */
	s = (struct uet_wl_spec){ .pattern = UET_WL_ALLTOALL, .hosts = 3, .size_bytes = 10,
				  .parallel = 2, .iterations = 2 };
	wl = build(&s);
	assert_int_equal(wl->nflows, 12);
	assert_observable(wl);
	for (i = 0; i < 3; i++) {
		uint32_t seq[4] = { 2 * i, 2 * i + 1, 6 + 2 * i, 6 + 2 * i + 1 };

		for (q = 0; q < 4; q++) {
			const struct uet_wl_flow *f = &wl->flows[seq[q]];
			uint32_t k, found = 0;

			assert_int_equal(f->src, i);
			for (k = 0; k < f->ndeps; k++)
				found += q >= 2 && dep_of(wl, f->id, k)->flow == seq[q - 2] &&
					 dep_of(wl, f->id, k)->on == UET_WL_ON_SEND_DONE;
			assert_int_equal(found, q >= 2);
			assert_int_equal(f->ndeps, q >= 2); /* same-pair dep is the same flow */
		}
	}
	uet_wl_free(wl);
}

/* A rate paces each stream: iteration k starts at k x size x 8 / rate
 * (rounded down), on top of its dependencies; patterns with their own
 * pace refuse one. */
static void
test_rate(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_PERMUTATION, .hosts = 4, .size_bytes = 1000,
				 .iterations = 3, .parallel = 2, .rate_bps = 3000000000ULL };
	enum uet_wl_pattern own[] = { UET_WL_RING_ALLREDUCE, UET_WL_BUTTERFLY_ALLREDUCE,
				      UET_WL_PINGPONG, UET_WL_WEBSEARCH };
	struct uet_wl *wl;
	uint32_t i;

	(void)state;
	wl = build(&s);
	assert_int_equal(wl->nflows, 12);
	assert_observable(wl);
	for (i = 0; i < 12; i++)
		/* 8000 bits at 3 Gb/s: 2666.67 ns apart. */
		assert_int_equal(wl->flows[i].start_ns, wl->flows[i].iteration == 0 ? 0
							 : wl->flows[i].iteration == 1 ? 2666
							 : 5333);
	/* iteration 2 still waits on iteration 0 (parallel 2). */
	assert_int_equal(wl->flows[8].ndeps, 1);
	uet_wl_free(wl);
	assert_int_equal(uet_wl_paced_ns(1000, 0, 5), 0);
	assert_int_equal(uet_wl_paced_ns(1 << 20, 1, 1ULL << 40), UINT64_MAX);
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		s.pattern = own[i];
		s.load = 0.5;
		s.link_bps = 100000000000ULL;
		s.duration_ns = 1000;
		s.iterations = 1;
		build_fails(&s, "a rate applies to the point-to-point patterns only");
	}
}

static void
test_invalid_specs(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_PAIR, .hosts = 4, .size_bytes = 10 };
	struct uet_wl *wl = NULL;

	(void)state;
	s.hosts = 1;
	build_fails(&s, "hosts 1");
	s.hosts = 0;
	build_fails(&s, "hosts 0");
	s.hosts = UET_WL_MAX_HOSTS + 1;
	build_fails(&s, "hosts");
	s.hosts = 4;
	s.size_bytes = 0;
	build_fails(&s, "size_bytes");
	s.size_bytes = UET_WL_MAX_SIZE_BYTES + 1;
	build_fails(&s, "size_bytes");
	s.size_bytes = 10;
	s.root = 4;
	build_fails(&s, "root 4");
	s.root = 0;
	s.streams = UET_WL_MAX_STREAMS + 1;
	build_fails(&s, "streams");
	s.streams = 0;
	s.pattern = (enum uet_wl_pattern)42;
	build_fails(&s, "unknown pattern");
	s.pattern = UET_WL_CM;
	build_fails(&s, "cm_path");
	s.pattern = UET_WL_WEBSEARCH;
	s.load = 0.5;
	s.link_bps = 1000000000;
	build_fails(&s, "duration_ns");
	assert_int_equal(uet_wl_build(NULL, &wl, NULL, 0), UET_ERR_INVAL);
	assert_int_equal(uet_wl_build(&s, NULL, NULL, 0), UET_ERR_INVAL);
	uet_wl_free(NULL);
}

static const struct uet_wl_spec all_specs[] = {
	{ .pattern = UET_WL_PAIR, .hosts = 4, .size_bytes = 10, .iterations = 2 },
	{ .pattern = UET_WL_PERMUTATION, .hosts = 9, .size_bytes = 10, .seed = 5,
	  .streams = 2, .iterations = 2 },
	{ .pattern = UET_WL_TORNADO, .hosts = 6, .size_bytes = 10, .iterations = 2 },
	{ .pattern = UET_WL_INCAST, .hosts = 6, .size_bytes = 10, .root = 4, .iterations = 2 },
	{ .pattern = UET_WL_OUTCAST, .hosts = 6, .size_bytes = 10, .fanin = 2, .iterations = 2 },
	{ .pattern = UET_WL_ALLTOALL, .hosts = 6, .size_bytes = 10, .parallel = 2,
	  .iterations = 3 },
	{ .pattern = UET_WL_BISECTION, .hosts = 6, .size_bytes = 10, .iterations = 2 },
	{ .pattern = UET_WL_RING_ALLREDUCE, .hosts = 5, .size_bytes = 1000, .streams = 3,
	  .iterations = 2 },
	{ .pattern = UET_WL_BUTTERFLY_ALLREDUCE, .hosts = 8, .size_bytes = 999, .streams = 2,
	  .iterations = 2 },
	{ .pattern = UET_WL_WEBSEARCH, .hosts = 5, .seed = 3, .load = 0.3,
	  .link_bps = 100000000000ull, .duration_ns = 20000000 },
	{ .pattern = UET_WL_PINGPONG, .hosts = 3, .size_bytes = 10, .root = 2, .streams = 2,
	  .iterations = 3 },
};

/* Every pattern: deps observable by the flow's source, and building the
 * same spec twice gives the same flows and deps, byte for byte. */
static void
test_all_observable_deterministic(void **state)
{
	uint32_t i;

	(void)state;
	for (i = 0; i < sizeof(all_specs) / sizeof(all_specs[0]); i++) {
		struct uet_wl *a = build(&all_specs[i]), *b = build(&all_specs[i]);

		assert_true(a->nflows > 0);
		assert_observable(a);
		assert_int_equal(uet_wl_validate(a, NULL, 0), 0);
		assert_int_equal(a->nflows, b->nflows);
		assert_int_equal(a->ndeps, b->ndeps);
		assert_memory_equal(a->flows, b->flows, a->nflows * sizeof(*a->flows));
		if (a->ndeps)
			assert_memory_equal(a->deps, b->deps, a->ndeps * sizeof(*a->deps));
		uet_wl_free(a);
		uet_wl_free(b);
	}
}

/* uet_wl_validate on hand-made workloads. */
static void
test_validate(void **state)
{
	struct uet_wl_flow flows[2] = {
		{ .id = 0, .src = 0, .dst = 1, .size_bytes = 1 },
		{ .id = 1, .src = 2, .dst = 0, .size_bytes = 1, .dep_first = 0, .ndeps = 1,
		  .deps_needed = 1 },
	};
	struct uet_wl_dep deps[2] = { { 0, UET_WL_ON_SEND_DONE }, { 1, UET_WL_ON_SEND_DONE } };
	struct uet_wl wl = { .flows = flows, .nflows = 2, .deps = deps, .ndeps = 2, .hosts = 3 };

	(void)state;
	/* Host 2 cannot see flow 0's send-done at host 0. */
	assert_int_equal(uet_wl_validate(&wl, errbuf, sizeof(errbuf)), UET_ERR_INVAL);
	assert_non_null(strstr(errbuf, "cannot observe"));
	/* Its recv-done neither (dst 1). */
	deps[0].on = UET_WL_ON_RECV_DONE;
	assert_int_equal(uet_wl_validate(&wl, errbuf, sizeof(errbuf)), UET_ERR_INVAL);
	/* From host 1 it can. */
	flows[1].src = 1;
	assert_int_equal(uet_wl_validate(&wl, errbuf, sizeof(errbuf)), 0);
	/* A cycle: 0 waits on 1's send-done at host 1... make both src 1. */
	flows[0].src = 1;
	flows[0].dst = 0;
	deps[0].on = UET_WL_ON_SEND_DONE;
	flows[0].dep_first = 1;
	flows[0].ndeps = 1;
	flows[0].deps_needed = 1;
	assert_int_equal(uet_wl_validate(&wl, errbuf, sizeof(errbuf)), UET_ERR_INVAL);
	assert_non_null(strstr(errbuf, "never start"));
	flows[0].deps_needed = 2; /* more than it has */
	assert_int_equal(uet_wl_validate(&wl, errbuf, sizeof(errbuf)), UET_ERR_INVAL);
	flows[0].ndeps = flows[0].deps_needed = 0;
	deps[0].flow = 7; /* out of range */
	assert_int_equal(uet_wl_validate(&wl, errbuf, sizeof(errbuf)), UET_ERR_INVAL);
	assert_int_equal(uet_wl_validate(NULL, NULL, 0), UET_ERR_INVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_pair),
		cmocka_unit_test(test_permutation),
		cmocka_unit_test(test_tornado_bisection),
		cmocka_unit_test(test_incast_outcast),
		cmocka_unit_test(test_alltoall),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_butterfly),
		cmocka_unit_test(test_websearch),
		cmocka_unit_test(test_iterations),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_pingpong),
		cmocka_unit_test(test_invalid_specs),
		cmocka_unit_test(test_all_observable_deterministic),
		cmocka_unit_test(test_validate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
