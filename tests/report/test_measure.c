/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/report measure.c: percentiles, FCT, flow status, timeline, intervals,
 * per-EV counters, transport counters, events and bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/report.h"
#include "uet/err.h"

#define START_NS 5000000ULL

static struct uet_meas *
make(uint32_t n_flows, const struct uet_meas_flow *flows, uint64_t bin_ns,
     uint64_t interval_ns)
{
	struct uet_meas_config c = {
		.flows = flows, .n_flows = n_flows, .ev_base = 1000,
		.ev_count = 4, .start_ns = START_NS, .bin_ns = bin_ns,
		.interval_ns = interval_ns,
	};
	struct uet_meas *m = NULL;

	assert_int_equal(uet_meas_create(&c, &m), 0);
	assert_non_null(m);
	return m;
}

/* Ping-pong round trips: the answer's arrival minus the first message's
 * submit; pairs with an end unknown or failed are left out. */
static void
test_rtt(void **state)
{
	struct uet_meas_flow flows[8];
	uint32_t out[4] = { 0, 2, 4, 6 }, back[4] = { 1, 3, 5, 7 }, i;
	struct uet_meas_rtt r;
	struct uet_meas *m;

	(void)state;
	for (i = 0; i < 8; i++)
		flows[i] = (struct uet_meas_flow){ .src = i % 2, .dst = 1 - i % 2,
						   .size_bytes = 64, .step = i % 2 };
	m = make(8, flows, 0, 0);
	assert_int_equal(uet_meas_rtt(m, out, back, 4, &r), 0);
	assert_int_equal(r.rtt.count, 0);
	assert_int_equal(r.stdev_ns, 0);
	uet_meas_destroy(m);
	/* Round trips of 1000 and 3000 ns; the third's answer never comes,
	 * the fourth's first message fails. */
	m = make(8, flows, 0, 0);
	for (i = 0; i < 8; i++) {
		uint64_t go = START_NS + 100000 * (i / 2);
		uint64_t rtt = i / 2 == 0 ? 1000 : 3000;

		assert_int_equal(uet_meas_submit(m, i, i % 2 ? go + rtt / 2 : go), 0);
		if (i == 5)
			continue;
		assert_int_equal(uet_meas_recv_done(m, i, i % 2 ? go + rtt : go + rtt / 2), 0);
		assert_int_equal(uet_meas_send_done(m, i, go + rtt + 100,
						    i == 6 ? UET_ERR_TIMEOUT : 0), 0);
	}
	assert_int_equal(uet_meas_rtt(m, out, back, 4, &r), 0);
	assert_int_equal(r.rtt.count, 2);
	assert_int_equal(r.rtt.min_ns, 1000);
	assert_int_equal(r.rtt.max_ns, 3000);
	assert_int_equal(r.rtt.mean_ns, 2000);
	assert_int_equal(r.rtt.p50_ns, 1000);
	assert_int_equal(r.rtt.p99_ns, 3000);
	/* sqrt((1000^2 + 1000^2) / (2 - 1)) */
	assert_int_equal(r.stdev_ns, 1414);
	/* One pair: no spread. */
	assert_int_equal(uet_meas_rtt(m, out + 1, back + 1, 1, &r), 0);
	assert_int_equal(r.rtt.count, 1);
	assert_int_equal(r.rtt.p50_ns, 3000);
	assert_int_equal(r.stdev_ns, 0);
	/* A flow id out of range is left out too. */
	back[0] = 99;
	assert_int_equal(uet_meas_rtt(m, out, back, 2, &r), 0);
	assert_int_equal(r.rtt.count, 1);
	assert_int_equal(uet_meas_rtt(m, NULL, back, 2, &r), UET_ERR_INVAL);
	assert_int_equal(uet_meas_rtt(m, NULL, NULL, 0, &r), 0);
	uet_meas_destroy(m);
}

/* Times from several clocks (one process merging the others'): the
 * receiver's FCT only where src and dst share one. */
static void
test_rank_clock(void **state)
{
	const struct uet_meas_flow flows[3] = {
		{ .src = 0, .dst = 1, .size_bytes = 10 },
		{ .src = 0, .dst = 2, .size_bytes = 10 },
		{ .src = 3, .dst = 2, .size_bytes = 10 },
	};
	uint32_t clock[4] = { 0, 0, 1, UINT32_MAX };
	struct uet_meas_config c = { .flows = flows, .n_flows = 3, .n_ranks = 4,
				     .rank_clock = clock, .ev_base = 1, .ev_count = 1,
				     .start_ns = START_NS };
	struct uet_meas_flow_rec r;
	struct uet_meas_fct f;
	struct uet_meas *m = NULL;
	uint32_t i;

	(void)state;
	assert_int_equal(uet_meas_create(&c, &m), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(uet_meas_submit(m, i, START_NS + 100), 0);
		assert_int_equal(uet_meas_recv_done(m, i, START_NS + 700), 0);
		assert_int_equal(uet_meas_send_done(m, i, START_NS + 900, 0), 0);
	}
	assert_int_equal(uet_meas_flow_get(m, 0, &r), 0);
	assert_int_equal(r.fct_recv_ns, 600);
	assert_int_equal(r.fct_ns, 800);
	for (i = 1; i < 3; i++) {
		assert_int_equal(uet_meas_flow_get(m, i, &r), 0);
		assert_int_equal(r.status, UET_MEAS_OK);
		assert_int_equal(r.fct_recv_ns, UET_MEAS_NO_TIME);
		assert_int_equal(r.fct_ns, 800);
	}
	assert_int_equal(uet_meas_fct_recv(m, &f), 0);
	assert_int_equal(f.count, 1);
	uet_meas_destroy(m);
	/* With clocks, every rank must be below n_ranks. */
	c.n_ranks = 3;
	assert_int_equal(uet_meas_create(&c, &m), UET_ERR_INVAL); /* rank 3 */
}

static void
test_percentile_nearest_rank(void **state)
{
	uint64_t v[1000], small[4] = { 10, 20, 30, 40 }, one = 7;
	int i;

	(void)state;
	for (i = 0; i < 1000; i++)
		v[i] = (uint64_t)i + 1;
	assert_int_equal(uet_meas_percentile(v, 1000, 50000), 500);
	assert_int_equal(uet_meas_percentile(v, 1000, 99000), 990);
	assert_int_equal(uet_meas_percentile(v, 1000, 99900), 999);
	assert_int_equal(uet_meas_percentile(v, 1000, 100000), 1000);
	assert_int_equal(uet_meas_percentile(v, 1000, 1), 1);
	assert_int_equal(uet_meas_percentile(v, 1000, 0), 1);
	assert_int_equal(uet_meas_percentile(v, 1000, 200000), 1000);
	/* ceil(0.5 * 4) = 2, ceil(0.99 * 4) = 4, ceil(0.25 * 4) = 1 */
	assert_int_equal(uet_meas_percentile(small, 4, 50000), 20);
	assert_int_equal(uet_meas_percentile(small, 4, 99000), 40);
	assert_int_equal(uet_meas_percentile(small, 4, 25000), 10);
	assert_int_equal(uet_meas_percentile(small, 4, 25001), 20);
	assert_int_equal(uet_meas_percentile(&one, 1, 99900), 7);
	assert_int_equal(uet_meas_percentile(NULL, 0, 50000), 0);
}

static void
test_fct_summary_1_to_1000(void **state)
{
	struct uet_meas_flow flows[1000];
	struct uet_meas_fct f;
	struct uet_meas *m;
	uint64_t compl_ns = 0;
	uint32_t i;

	(void)state;
	memset(flows, 0, sizeof(flows));
	for (i = 0; i < 1000; i++)
		flows[i] = (struct uet_meas_flow){ .src = 0, .dst = 1,
						   .size_bytes = 4096 };
	m = make(1000, flows, 0, 0);
	assert_int_equal(uet_meas_fct(m, &f), 0);
	assert_int_equal(f.count, 0);
	assert_false(uet_meas_completion_ns(m, &compl_ns));
	/* Flow i completes with FCT (perm(i) + 1) us, in a scrambled order
	 * (337 is coprime with 1000). */
	for (i = 0; i < 1000; i++) {
		uint32_t id = (i * 337) % 1000;

		assert_int_equal(uet_meas_submit(m, id, START_NS + 10), 0);
		assert_int_equal(uet_meas_recv_done(m, id,
						    START_NS + 10 + (i + 1) * 1000ULL), 0);
		assert_int_equal(uet_meas_send_done(m, id,
						    START_NS + 20 + (i + 1) * 1000ULL, 0), 0);
	}
	assert_int_equal(uet_meas_fct_recv(m, &f), 0);
	assert_int_equal(f.count, 1000);
	assert_int_equal(f.min_ns, 1000);
	assert_int_equal(f.max_ns, 1000000);
	assert_int_equal(f.mean_ns, 500500);
	assert_int_equal(f.p50_ns, 500000);
	assert_int_equal(f.p99_ns, 990000);
	assert_int_equal(f.p999_ns, 999000);
	/* The CDF: every percent, 99.5, 99.9 and 99.99, nearest rank. */
	assert_int_equal(uet_meas_cdf_p_milli[0], 0);
	assert_int_equal(f.cdf_ns[0], 1000);
	assert_int_equal(f.cdf_ns[1], 10000);
	assert_int_equal(f.cdf_ns[50], 500000);
	assert_int_equal(f.cdf_ns[99], 990000);
	assert_int_equal(uet_meas_cdf_p_milli[100], 99500);
	assert_int_equal(f.cdf_ns[100], 995000);
	assert_int_equal(f.cdf_ns[101], 999000);
	assert_int_equal(uet_meas_cdf_p_milli[102], 99990);
	assert_int_equal(f.cdf_ns[102], 1000000);
	assert_int_equal(uet_meas_cdf_p_milli[UET_MEAS_CDF_POINTS - 1], 100000);
	assert_int_equal(f.cdf_ns[UET_MEAS_CDF_POINTS - 1], 1000000);
	for (i = 1; i < UET_MEAS_CDF_POINTS; i++)
		assert_true(uet_meas_cdf_p_milli[i] > uet_meas_cdf_p_milli[i - 1]);
	/* The senders' view: 10 ns later each. */
	assert_int_equal(uet_meas_fct(m, &f), 0);
	assert_int_equal(f.count, 1000);
	assert_int_equal(f.min_ns, 1010);
	assert_int_equal(f.max_ns, 1000010);
	assert_int_equal(f.p50_ns, 500010);
	/* Last completion: the last send_done, 20 ns after the last recv. */
	assert_true(uet_meas_completion_ns(m, &compl_ns));
	assert_int_equal(compl_ns, 20 + 1000000);
	uet_meas_destroy(m);
}

static void
test_flow_status_and_fct_basis(void **state)
{
	/* Rank 0 is local; 1 and 2 are other processes. */
	bool local[3] = { true, false, false };
	struct uet_meas_flow flows[5] = {
		{ .src = 0, .dst = 1, .size_bytes = 100 }, /* sender side */
		{ .src = 1, .dst = 0, .size_bytes = 200 }, /* receiver side */
		{ .src = 1, .dst = 2, .size_bytes = 300 }, /* remote */
		{ .src = 0, .dst = 2, .size_bytes = 400 }, /* never completes */
		{ .src = 0, .dst = 1, .size_bytes = 500 }, /* fails */
	};
	struct uet_meas_config c = {
		.flows = flows, .n_flows = 5, .rank_local = local, .n_ranks = 3,
		.start_ns = START_NS,
	};
	struct uet_meas_flow_rec r;
	struct uet_meas_fct f;
	struct uet_meas *m;
	uint64_t compl_ns;

	(void)state;
	assert_int_equal(uet_meas_create(&c, &m), 0);
	assert_int_equal(uet_meas_submit(m, 0, START_NS + 100), 0);
	assert_int_equal(uet_meas_send_done(m, 0, START_NS + 900, 0), 0);
	assert_int_equal(uet_meas_recv_done(m, 1, START_NS + 700), 0);
	assert_int_equal(uet_meas_submit(m, 3, START_NS + 100), 0);
	assert_int_equal(uet_meas_submit(m, 4, START_NS + 100), 0);
	assert_int_equal(uet_meas_send_done(m, 4, START_NS + 5000,
					    UET_ERR_TIMEOUT), 0);
	/* The ends that are not ours: ignored and counted. */
	assert_int_equal(uet_meas_recv_done(m, 0, START_NS), UET_ERR_INVAL);
	assert_int_equal(uet_meas_submit(m, 1, START_NS), UET_ERR_INVAL);
	assert_int_equal(uet_meas_submit(m, 2, START_NS), UET_ERR_INVAL);
	assert_int_equal(uet_meas_bad(m)->flow, 3);

	assert_int_equal(uet_meas_flow_get(m, 0, &r), 0);
	assert_int_equal(r.status, UET_MEAS_OK);
	assert_int_equal(r.fct_ns, 800);
	assert_true(r.fct_recv_ns == UET_MEAS_NO_TIME); /* the receiver is remote */
	assert_int_equal(uet_meas_flow_get(m, 1, &r), 0);
	assert_int_equal(r.status, UET_MEAS_OK);
	assert_true(r.fct_ns == UET_MEAS_NO_TIME); /* receiver alone */
	assert_true(r.fct_recv_ns == UET_MEAS_NO_TIME);
	assert_int_equal(uet_meas_flow_get(m, 2, &r), 0);
	assert_int_equal(r.status, UET_MEAS_REMOTE);
	assert_int_equal(uet_meas_flow_get(m, 3, &r), 0);
	assert_int_equal(r.status, UET_MEAS_PENDING);
	assert_int_equal(uet_meas_flow_get(m, 4, &r), 0);
	assert_int_equal(r.status, UET_MEAS_FAILED);
	assert_int_equal(r.send_status, UET_ERR_TIMEOUT);
	assert_true(r.fct_ns == UET_MEAS_NO_TIME);
	assert_int_equal(r.flow.size_bytes, 500);
	assert_int_equal(uet_meas_flow_get(m, 5, &r), UET_ERR_INVAL);

	assert_int_equal(uet_meas_fct(m, &f), 0);
	assert_int_equal(f.count, 1);
	assert_int_equal(f.p999_ns, 800);
	assert_int_equal(uet_meas_fct_recv(m, &f), 0);
	assert_int_equal(f.count, 0);
	/* The failed flow's completion is the last one. */
	assert_true(uet_meas_completion_ns(m, &compl_ns));
	assert_int_equal(compl_ns, 5000);
	uet_meas_destroy(m);
}

/* Both ends here: the sender's FCT (acknowledged) and the receiver's (last
 * byte arrived), each summarised apart. */
static void
test_fct_both_views_when_both_local(void **state)
{
	struct uet_meas_flow fl = { .src = 3, .dst = 4, .size_bytes = 1 };
	struct uet_meas_flow_rec r;
	struct uet_meas_fct f;
	struct uet_meas *m = make(1, &fl, 0, 0);

	(void)state;
	assert_int_equal(uet_meas_submit(m, 0, START_NS + 50), 0);
	assert_int_equal(uet_meas_flow_get(m, 0, &r), 0);
	assert_int_equal(r.status, UET_MEAS_PENDING);
	assert_int_equal(uet_meas_recv_done(m, 0, START_NS + 450), 0);
	assert_int_equal(uet_meas_flow_get(m, 0, &r), 0);
	assert_int_equal(r.status, UET_MEAS_PENDING); /* sender not done */
	assert_int_equal(uet_meas_send_done(m, 0, START_NS + 650, 0), 0);
	assert_int_equal(uet_meas_flow_get(m, 0, &r), 0);
	assert_int_equal(r.status, UET_MEAS_OK);
	assert_int_equal(r.fct_ns, 600);
	assert_int_equal(r.fct_recv_ns, 400);
	assert_int_equal(uet_meas_fct(m, &f), 0);
	assert_int_equal(f.max_ns, 600);
	assert_int_equal(uet_meas_fct_recv(m, &f), 0);
	assert_int_equal(f.count, 1);
	assert_int_equal(f.max_ns, 400);
	uet_meas_destroy(m);
}

static void
test_bad_input_counted(void **state)
{
	struct uet_meas_flow fl = { .src = 0, .dst = 5 };
	bool local[2] = { true, true };
	struct uet_meas_config c = { .flows = &fl, .n_flows = 1, .start_ns = 0 };
	struct uet_meas *m = NULL;
	const struct uet_meas_bad *b;
	uint64_t tx, ce;

	(void)state;
	/* Invalid configurations. */
	assert_int_equal(uet_meas_create(NULL, &m), UET_ERR_INVAL);
	c.flows = NULL;
	assert_int_equal(uet_meas_create(&c, &m), UET_ERR_INVAL);
	c.flows = &fl;
	c.ev_base = 65000;
	c.ev_count = 537;
	assert_int_equal(uet_meas_create(&c, &m), UET_ERR_INVAL);
	c.ev_count = 536;
	c.bin_ns = 1000;
	c.interval_ns = 2500;
	assert_int_equal(uet_meas_create(&c, &m), UET_ERR_INVAL);
	c.interval_ns = 0;
	c.rank_local = local;
	c.n_ranks = 2; /* dst 5 is not a rank */
	assert_int_equal(uet_meas_create(&c, &m), UET_ERR_INVAL);
	assert_null(m);

	m = make(1, &fl, 1000, 0);
	assert_int_equal(uet_meas_submit(m, 1, START_NS), UET_ERR_INVAL);
	assert_int_equal(uet_meas_send_done(m, UINT32_MAX, START_NS, 0),
			 UET_ERR_INVAL);
	assert_int_equal(uet_meas_recv_done(m, 7, START_NS), UET_ERR_INVAL);
	assert_int_equal(uet_meas_submit(m, 0, START_NS + 1), 0);
	assert_int_equal(uet_meas_submit(m, 0, START_NS + 2), UET_ERR_INVAL);
	assert_int_equal(uet_meas_ev_tx(m, 999), UET_ERR_INVAL);
	assert_int_equal(uet_meas_ev_tx(m, 1004), UET_ERR_INVAL);
	assert_int_equal(uet_meas_ev_ce(m, 65535), UET_ERR_INVAL);
	assert_int_equal(uet_meas_ev_get(m, 1004, &tx, &ce), UET_ERR_INVAL);
	assert_int_equal(uet_meas_rx_bytes(m, START_NS - 1, 100), UET_ERR_INVAL);
	assert_int_equal(uet_meas_tx_bytes(m, 0, 100), UET_ERR_INVAL);
	assert_int_equal(uet_meas_event(m, START_NS, NULL, "x"), UET_ERR_INVAL);
	b = uet_meas_bad(m);
	assert_int_equal(b->flow, 4);
	assert_int_equal(b->ev, 3);
	assert_int_equal(b->time, 2);
	uet_meas_totals(m, &tx, &ce);
	assert_int_equal(tx, 0);
	assert_int_equal(ce, 0);
	assert_int_equal(uet_meas_bin_count(m), 0);
	/* The first submit stands. */
	{
		struct uet_meas_flow_rec r;

		assert_int_equal(uet_meas_flow_get(m, 0, &r), 0);
		assert_int_equal(r.submit_ns, START_NS + 1);
	}
	uet_meas_destroy(m);
	uet_meas_destroy(NULL);
}

static void
test_timeline_bins_and_growth(void **state)
{
	struct uet_meas *m = make(0, NULL, 1000, 0);
	uint64_t rx, tx, re;
	size_t i, nonzero = 0;

	(void)state;
	assert_int_equal(uet_meas_rx_bytes(m, START_NS, 100), 0);
	assert_int_equal(uet_meas_rx_bytes(m, START_NS + 999, 50), 0);
	assert_int_equal(uet_meas_rx_bytes(m, START_NS + 1000, 7), 0);
	assert_int_equal(uet_meas_tx_bytes(m, START_NS + 1999, 9), 0);
	assert_int_equal(uet_meas_bin_count(m), 2);
	/* Far past the first allocation: the array doubles up to it. */
	assert_int_equal(uet_meas_rx_bytes(m, START_NS + 10000 * 1000ULL + 5, 11), 0);
	assert_int_equal(uet_meas_tx_bytes(m, START_NS + 300 * 1000ULL, 13), 0);
	assert_int_equal(uet_meas_bin_count(m), 10001);
	uet_meas_bin(m, 0, &rx, &tx, &re);
	assert_int_equal(rx, 150);
	assert_int_equal(tx, 0);
	assert_int_equal(re, 0);
	uet_meas_bin(m, 1, &rx, &tx, NULL);
	assert_int_equal(rx, 7);
	assert_int_equal(tx, 9);
	uet_meas_bin(m, 300, &rx, &tx, NULL);
	assert_int_equal(rx, 0);
	assert_int_equal(tx, 13);
	uet_meas_bin(m, 10000, &rx, &tx, NULL);
	assert_int_equal(rx, 11);
	uet_meas_bin(m, 10001, &rx, &tx, &re); /* past the end: zero */
	assert_int_equal(rx + tx + re, 0);
	for (i = 0; i < uet_meas_bin_count(m); i++) {
		uet_meas_bin(m, i, &rx, &tx, NULL);
		nonzero += rx + tx != 0;
	}
	assert_int_equal(nonzero, 4);
	uet_meas_totals(m, &rx, &tx);
	assert_int_equal(rx, 168);
	assert_int_equal(tx, 22);
	uet_meas_destroy(m);
}

/* Sums of bins 0..n-1 of the timeline. */
static void
bin_sums(const struct uet_meas *m, uint64_t *rx, uint64_t *tx, uint64_t *retx)
{
	size_t i;

	*rx = *tx = *retx = 0;
	for (i = 0; i < uet_meas_bin_count(m); i++) {
		uint64_t r, t, x;

		uet_meas_bin(m, i, &r, &t, &x);
		*rx += r;
		*tx += t;
		*retx += x;
	}
}

/* A run longer than max_bins bins: the bins widen, merging pairs, so the
 * timeline covers the whole run; the intervals keep their own sums, up to
 * max_bins of them; the totals keep everything. */
static void
test_timeline_widens(void **state)
{
	struct uet_meas_config c = { .start_ns = 0, .bin_ns = 10, .max_bins = 100,
				     .interval_ns = 40 };
	struct uet_meas_interval iv;
	struct uet_ep_stats st;
	struct uet_meas *m;
	uint64_t rx, tx, retx;

	(void)state;
	assert_int_equal(uet_meas_create(&c, &m), 0);
	assert_int_equal(uet_meas_rx_bytes(m, 985, 8), 0);  /* bin 98 */
	assert_int_equal(uet_meas_rx_bytes(m, 999, 1), 0);  /* bin 99 */
	assert_int_equal(uet_meas_bin_count(m), 100);
	assert_int_equal(uet_meas_timeline_bin_ns(m), 10);
	assert_int_equal(uet_meas_rx_bytes(m, 1000, 2), 0); /* bin 100: widen */
	assert_int_equal(uet_meas_timeline_bin_ns(m), 20);
	assert_int_equal(uet_meas_bin_count(m), 51);
	uet_meas_bin(m, 49, &rx, NULL, NULL);
	assert_int_equal(rx, 9);   /* old bins 98 and 99 */
	uet_meas_bin(m, 50, &rx, NULL, NULL);
	assert_int_equal(rx, 2);
	memset(&st, 0, sizeof(st));
	st.tx_retx_pkts = 3;
	assert_int_equal(uet_meas_set_ep_stats(m, 3990, &st), 0);
	assert_int_equal(uet_meas_timeline_bin_ns(m), 40); /* 3990 / 20 >= 100 */
	uet_meas_bin(m, 99, NULL, NULL, &retx);
	assert_int_equal(retx, 3);
	/* Intervals as counted, whatever the bins' width: 985 and 999 in
	 * interval 24, 1000 in 25, the resends in 99. */
	uet_meas_interval_get(m, 24, 4000, &iv);
	assert_int_equal(iv.rx_bytes, 9);
	uet_meas_interval_get(m, 25, 4000, &iv);
	assert_int_equal(iv.rx_bytes, 2);
	uet_meas_interval_get(m, 99, 4000, &iv);
	assert_int_equal(iv.retx_pkts, 3);
	assert_int_equal(iv.rx_bytes, 0);
	/* Past max_bins intervals: the timeline and the totals only. */
	assert_int_equal(uet_meas_tx_bytes(m, 4000, 5), UET_ERR_NOBUFS);
	assert_int_equal(uet_meas_tx_bytes(m, UINT64_MAX, 4), UET_ERR_NOBUFS);
	assert_int_equal(uet_meas_bad(m)->timeline_full, 2);
	assert_true(uet_meas_timeline_bin_ns(m) > UINT64_MAX / 100);
	assert_in_range(uet_meas_bin_count(m), 1, 100);
	bin_sums(m, &rx, &tx, &retx);
	assert_int_equal(rx, 11);
	assert_int_equal(tx, 9);
	assert_int_equal(retx, 3);
	uet_meas_totals(m, &rx, &tx);
	assert_int_equal(rx, 11);
	assert_int_equal(tx, 9);
	uet_meas_destroy(m);
}

/* Two lcores' measurements whose timelines widened differently merge into
 * the wider width, bin by bin; their intervals add up exactly. Another
 * process's bins come in through uet_meas_timeline_add(), only at a width
 * and an offset the timeline can hold; resends summed at no time go to no
 * bin. */
static void
test_widened_merge(void **state)
{
	struct uet_meas_config c = { .start_ns = START_NS, .bin_ns = 10, .max_bins = 100,
				     .interval_ns = 100, .ev_base = 1000, .ev_count = 4 };
	struct uet_meas *a, *b, *g;
	struct uet_meas_interval iv;
	struct uet_ep_stats st;
	uint64_t rx, tx, retx, i;

	(void)state;
	assert_int_equal(uet_meas_create(&c, &a), 0);
	assert_int_equal(uet_meas_create(&c, &b), 0);
	assert_int_equal(uet_meas_create(&c, &g), 0);
	for (i = 0; i < 150; i++)   /* 1 B every 10 ns for 1.5 us: width 20 */
		assert_int_equal(uet_meas_rx_bytes(a, START_NS + i * 10, 1), 0);
	for (i = 0; i < 30; i++)    /* 2 B every 100 ns for 3 us: width 40 */
		assert_int_equal(uet_meas_tx_bytes(b, START_NS + i * 100 + 5, 2), 0);
	assert_int_equal(uet_meas_timeline_bin_ns(a), 20);
	assert_int_equal(uet_meas_timeline_bin_ns(b), 40);
	assert_int_equal(uet_meas_merge(g, a), 0);
	assert_int_equal(uet_meas_timeline_bin_ns(g), 20);
	assert_int_equal(uet_meas_merge(g, b), 0);
	assert_int_equal(uet_meas_timeline_bin_ns(g), 40);
	assert_int_equal(uet_meas_bin_count(g), 73); /* b's last, 2905 ns, in 72 */
	for (i = 0; i < 37; i++) {  /* a's 4 B and b's 2 B in each of 0..36 */
		uet_meas_bin(g, i, &rx, &tx, NULL);
		assert_int_equal(rx, 4);
		assert_int_equal(tx, i % 5 == 0 || i % 5 == 2 ? 2 : 0);
	}
	bin_sums(g, &rx, &tx, &retx);
	assert_int_equal(rx, 150);
	assert_int_equal(tx, 60);
	for (i = 0; i < 30; i++) {
		uet_meas_interval_get(g, i, START_NS + 3000, &iv);
		assert_int_equal(iv.rx_bytes, i < 15 ? 10 : 0);
		assert_int_equal(iv.tx_bytes, 2);
	}
	assert_int_equal(uet_meas_bad(g)->timeline_full, 0);

	/* Another process's bin: a width of cfg.bin_ns x 2^k at a whole
	 * number of widths from the start. */
	assert_int_equal(uet_meas_timeline_add(g, START_NS + 3200, 80, 7, 0, 1), 0);
	assert_int_equal(uet_meas_timeline_bin_ns(g), 80);
	uet_meas_bin(g, 40, &rx, NULL, &retx);
	assert_int_equal(rx, 7);
	assert_int_equal(retx, 1);
	assert_int_equal(uet_meas_timeline_add(g, START_NS + 30, 30, 1, 0, 0), UET_ERR_INVAL);
	assert_int_equal(uet_meas_timeline_add(g, START_NS + 30, 20, 1, 0, 0), UET_ERR_INVAL);
	assert_int_equal(uet_meas_timeline_add(g, START_NS - 80, 80, 1, 0, 0), UET_ERR_INVAL);
	assert_int_equal(uet_meas_timeline_add(g, START_NS, 0, 1, 0, 0), UET_ERR_INVAL);
	assert_int_equal(uet_meas_interval_add(g, 100, 1, 0, 0), UET_ERR_NOBUFS);
	assert_int_equal(uet_meas_interval_add(g, 3, 0, 0, 4), 0);
	uet_meas_interval_get(g, 3, START_NS + 3000, &iv);
	assert_int_equal(iv.retx_pkts, 4);
	uet_meas_totals(g, &rx, &tx);
	assert_int_equal(rx, 150); /* the adds above are not in the totals */
	uet_meas_totals_add(g, 7, 0);
	uet_meas_totals(g, &rx, &tx);
	assert_int_equal(rx, 157);
	memset(&st, 0, sizeof(st));
	st.tx_retx_pkts = 5;
	assert_int_equal(uet_meas_set_ep_stats(g, UET_MEAS_NO_TIME, &st), 0);
	assert_int_equal(uet_meas_ep_stats(g)->tx_retx_pkts, 5);
	bin_sums(g, &rx, &tx, &retx);
	assert_int_equal(retx, 1);
	assert_int_equal(uet_meas_ev_add(g, 1001, 6, 2), 0);
	assert_int_equal(uet_meas_ev_get(g, 1001, &tx, &retx), 0);
	assert_int_equal(tx, 6);
	assert_int_equal(retx, 2);
	assert_int_equal(uet_meas_ev_add(g, 999, 1, 0), UET_ERR_INVAL);
	assert_int_equal(uet_meas_bad(g)->ev, 1);
	uet_meas_destroy(a);
	uet_meas_destroy(b);
	uet_meas_destroy(g);
}

static void
test_intervals(void **state)
{
	struct uet_meas *m = make(0, NULL, 1000, 4000);
	struct uet_ep_stats st;
	struct uet_meas_interval iv;
	int i;

	(void)state;
	for (i = 0; i < 10; i++) {
		assert_int_equal(uet_meas_rx_bytes(m, START_NS + i * 1000ULL + 500,
						   100 + i), 0);
		assert_int_equal(uet_meas_tx_bytes(m, START_NS + i * 1000ULL, 10), 0);
	}
	memset(&st, 0, sizeof(st));
	st.tx_retx_pkts = 5;
	assert_int_equal(uet_meas_set_ep_stats(m, START_NS + 1500, &st), 0);
	st.tx_retx_pkts = 8;
	assert_int_equal(uet_meas_set_ep_stats(m, START_NS + 5000, &st), 0);
	assert_int_equal(uet_meas_set_ep_stats(m, START_NS + 6000, &st), 0);

	assert_int_equal(uet_meas_interval_count(m, START_NS, true), 0);
	assert_int_equal(uet_meas_interval_count(m, START_NS + 3999, false), 0);
	assert_int_equal(uet_meas_interval_count(m, START_NS + 3999, true), 1);
	assert_int_equal(uet_meas_interval_count(m, START_NS + 8000, true), 2);
	assert_int_equal(uet_meas_interval_count(m, START_NS + 10000, false), 2);
	assert_int_equal(uet_meas_interval_count(m, START_NS + 10000, true), 3);

	uet_meas_interval_get(m, 0, START_NS + 10000, &iv);
	assert_int_equal(iv.start_ns, 0);
	assert_int_equal(iv.end_ns, 4000);
	assert_int_equal(iv.rx_bytes, 100 + 101 + 102 + 103);
	assert_int_equal(iv.tx_bytes, 40);
	assert_int_equal(iv.retx_pkts, 5);
	uet_meas_interval_get(m, 1, START_NS + 10000, &iv);
	assert_int_equal(iv.rx_bytes, 104 + 105 + 106 + 107);
	assert_int_equal(iv.retx_pkts, 3);
	/* The partial last interval is cut at now. */
	uet_meas_interval_get(m, 2, START_NS + 10000, &iv);
	assert_int_equal(iv.start_ns, 8000);
	assert_int_equal(iv.end_ns, 10000);
	assert_int_equal(iv.rx_bytes, 108 + 109);
	assert_int_equal(iv.retx_pkts, 0);
	uet_meas_destroy(m);

	/* No intervals without interval_ns. */
	m = make(0, NULL, 1000, 0);
	assert_int_equal(uet_meas_interval_count(m, START_NS + 1000000, true), 0);
	uet_meas_destroy(m);
}

static void
test_ev_counters(void **state)
{
	struct uet_meas *m = make(0, NULL, 0, 0);
	uint64_t tx, ce;
	int i;

	(void)state;
	for (i = 0; i < 10; i++)
		assert_int_equal(uet_meas_ev_tx(m, 1000), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(uet_meas_ev_tx(m, 1003), 0);
	assert_int_equal(uet_meas_ev_ce(m, 1003), 0);
	assert_int_equal(uet_meas_ev_ce(m, 1001), 0);
	assert_int_equal(uet_meas_ev_get(m, 1000, &tx, &ce), 0);
	assert_int_equal(tx, 10);
	assert_int_equal(ce, 0);
	assert_int_equal(uet_meas_ev_get(m, 1001, &tx, &ce), 0);
	assert_int_equal(tx, 0);
	assert_int_equal(ce, 1);
	assert_int_equal(uet_meas_ev_get(m, 1003, &tx, &ce), 0);
	assert_int_equal(tx, 4);
	assert_int_equal(ce, 1);
	assert_int_equal(uet_meas_bad(m)->ev, 0);
	uet_meas_destroy(m);
}

static void
test_ep_stats_sum_and_backwards(void **state)
{
	struct uet_ep_stats one, sum;
	uint64_t v[sizeof(one) / sizeof(uint64_t)];
	struct uet_meas *m = make(0, NULL, 1000, 0);
	uint64_t re;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i] = i + 1;
	memcpy(&one, v, sizeof(one));
	memset(&sum, 0, sizeof(sum));
	uet_meas_add_ep_stats(&sum, &one);
	uet_meas_add_ep_stats(&sum, &one);
	memcpy(v, &sum, sizeof(sum));
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(v[i], 2 * (i + 1));
	assert_int_equal(sum.tx_carry_acks, 2 * (sizeof(v) / sizeof(v[0])));

	assert_int_equal(uet_meas_set_ep_stats(m, START_NS + 10, &sum), 0);
	assert_int_equal(uet_meas_ep_stats(m)->rto_events, sum.rto_events);
	uet_meas_bin(m, 0, NULL, NULL, &re);
	assert_int_equal(re, sum.tx_retx_pkts);
	/* A counter going backwards is bad input but becomes the baseline. */
	one.tx_retx_pkts = sum.tx_retx_pkts + 3;
	assert_int_equal(uet_meas_set_ep_stats(m, START_NS + 1500, &one),
			 UET_ERR_INVAL);
	assert_int_equal(uet_meas_bad(m)->stats, 1);
	assert_int_equal(uet_meas_ep_stats(m)->tx_pkts, one.tx_pkts);
	uet_meas_bin(m, 1, NULL, NULL, &re);
	assert_int_equal(re, 0);
	/* Stats before the start: retransmissions land in bin 0. */
	one.tx_retx_pkts += 2;
	assert_int_equal(uet_meas_set_ep_stats(m, 0, &one), 0);
	uet_meas_bin(m, 0, NULL, NULL, &re);
	assert_int_equal(re, sum.tx_retx_pkts + 2);
	uet_meas_destroy(m);
}

static void
test_events_kept_cut_and_bounded(void **state)
{
	struct uet_meas_config c = { .start_ns = 100, .max_events = 20 };
	char longs[300];
	struct uet_meas *m;
	int i;

	(void)state;
	memset(longs, 'x', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = '\0';
	assert_int_equal(uet_meas_create(&c, &m), 0);
	assert_int_equal(uet_meas_event(m, 50, "exec", "ls -l"), 0);
	assert_int_equal(uet_meas_event(m, 200, longs, longs), 0);
	assert_int_equal(uet_meas_event(m, 150, "fail-ev", NULL), 0);
	for (i = 3; i < 20; i++)
		assert_int_equal(uet_meas_event(m, 300, "k", i == 19 ? "last" : "d"), 0);
	assert_int_equal(uet_meas_event(m, 400, "sigint", ""), UET_ERR_NOBUFS);
	assert_int_equal(uet_meas_event_count(m), 20);
	assert_int_equal(uet_meas_bad(m)->events_full, 1);
	assert_string_equal(uet_meas_event_get(m, 0)->kind, "exec");
	assert_string_equal(uet_meas_event_get(m, 0)->detail, "ls -l");
	assert_int_equal(uet_meas_event_get(m, 0)->now_ns, 50);
	/* In time order: the event at 150, added after the one at 200,
	 * comes before it. */
	assert_string_equal(uet_meas_event_get(m, 1)->kind, "fail-ev");
	assert_string_equal(uet_meas_event_get(m, 1)->detail, "");
	assert_int_equal(strlen(uet_meas_event_get(m, 2)->kind),
			 UET_MEAS_EVENT_KIND_MAX - 1);
	assert_int_equal(strlen(uet_meas_event_get(m, 2)->detail),
			 UET_MEAS_EVENT_DETAIL_MAX - 1);
	assert_int_equal(uet_meas_event_get(m, 2)->now_ns, 200);
	/* Ties in call order. */
	assert_string_equal(uet_meas_event_get(m, 19)->detail, "last");
	assert_null(uet_meas_event_get(m, 20));
	uet_meas_verify(m, 10, 1);
	uet_meas_verify(m, 5, 2);
	{
		uint64_t ck, bad;

		uet_meas_verify_get(m, &ck, &bad);
		assert_int_equal(ck, 15);
		assert_int_equal(bad, 3);
	}
	uet_meas_destroy(m);
}

static struct uet_meas *
make_stream(uint32_t n_flows, const struct uet_meas_flow *flows, const bool *local,
	    uint32_t n_ranks, uint32_t max_fct)
{
	struct uet_meas_config c = {
		.flows = flows, .n_flows = n_flows, .rank_local = local, .n_ranks = n_ranks,
		.ev_base = 1000, .ev_count = 4, .start_ns = START_NS, .bin_ns = 1000,
		.repeat = true, .max_fct_samples = max_fct,
	};
	struct uet_meas *m = NULL;

	assert_int_equal(uet_meas_create(&c, &m), 0);
	return m;
}

/* Duration runs: a flow is a stream of messages; the FCT summary is over
 * messages, the flow's record counts them. */
static void
test_stream_messages(void **state)
{
	const struct uet_meas_flow flows[3] = {
		{ .src = 0, .dst = 1, .size_bytes = 100 },
		{ .src = 1, .dst = 2, .size_bytes = 10 },
		{ .src = 2, .dst = 0, .size_bytes = 7 },
	};
	const bool local[3] = { true, true, false };
	struct uet_meas_flow_rec r;
	struct uet_meas_fct f;
	struct uet_meas *m = make_stream(3, flows, local, 3, 0);
	uint64_t compl_ns, i;

	(void)state;
	for (i = 1; i <= 4; i++)
		assert_int_equal(uet_meas_msg_acked(m, 0, START_NS + i * 100,
						    START_NS + i * 100 + i * 1000, 0), 0);
	assert_int_equal(uet_meas_msg_acked(m, 1, START_NS, START_NS + 50, UET_ERR_TIMEOUT), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(uet_meas_msg_received(m, 0, START_NS + 9000 + i), 0);
	/* The wrong end, a flow with no local end, the one-shot calls, a
	 * completion before its submit: counted, ignored. */
	assert_int_equal(uet_meas_msg_acked(m, 2, START_NS, START_NS + 1, 0), UET_ERR_INVAL);
	assert_int_equal(uet_meas_msg_received(m, 2, START_NS), 0);
	assert_int_equal(uet_meas_msg_received(m, 1, START_NS), UET_ERR_INVAL);
	assert_int_equal(uet_meas_msg_acked(m, 0, START_NS + 10, START_NS + 5, 0),
			 UET_ERR_INVAL);
	assert_int_equal(uet_meas_bad(m)->flow, 2);
	assert_int_equal(uet_meas_bad(m)->time, 1);

	assert_int_equal(uet_meas_flow_get(m, 0, &r), 0);
	assert_int_equal(r.status, UET_MEAS_OK);
	assert_int_equal(r.msgs_acked, 4);
	assert_int_equal(r.msgs_received, 3);
	assert_int_equal(r.bytes_acked, 400);
	assert_int_equal(r.submit_ns, START_NS + 100);
	assert_int_equal(r.send_done_ns, START_NS + 400 + 4000);
	assert_int_equal(r.recv_done_ns, START_NS + 9002);
	assert_int_equal(r.fct_ns, UET_MEAS_NO_TIME);
	assert_int_equal(uet_meas_flow_get(m, 1, &r), 0);
	assert_int_equal(r.status, UET_MEAS_FAILED);
	assert_int_equal(r.msgs_failed, 1);
	assert_int_equal(r.send_status, UET_ERR_TIMEOUT);
	assert_int_equal(uet_meas_flow_get(m, 2, &r), 0);
	assert_int_equal(r.status, UET_MEAS_OK); /* dst 0 local, one message in */

	assert_int_equal(uet_meas_fct(m, &f), 0);
	assert_int_equal(f.count, 4);
	assert_int_equal(f.min_ns, 1000);
	assert_int_equal(f.max_ns, 4000);
	assert_int_equal(f.mean_ns, 2500);
	assert_int_equal(f.p50_ns, 2000);
	assert_true(uet_meas_completion_ns(m, &compl_ns));
	assert_int_equal(compl_ns, 9002);
	assert_false(uet_meas_flows_ok(m)); /* flow 1 failed a message */
	uet_meas_destroy(m);
	/* Streams: idle ones are fine (they end with the run), failed are not. */
	m = make_stream(3, flows, local, 3, 0);
	assert_true(uet_meas_flows_ok(m));
	uet_meas_destroy(m);

	/* The one-shot calls do not apply to streams, nor the stream calls
	 * to one-shot flows. One-shot flows still pending fail a run. */
	m = make(3, flows, 1000, 0);
	assert_false(uet_meas_flows_ok(m));
	assert_int_equal(uet_meas_msg_acked(m, 0, START_NS, START_NS + 1, 0), UET_ERR_INVAL);
	assert_int_equal(uet_meas_msg_received(m, 0, START_NS), UET_ERR_INVAL);
	uet_meas_destroy(m);
}

/* Past max_fct_samples the kept samples are a reservoir: bounded, the
 * same for the same input, and spread over the whole run. */
static void
test_stream_fct_reservoir(void **state)
{
	const struct uet_meas_flow flow = { .src = 0, .dst = 1, .size_bytes = 1 };
	const bool local[2] = { true, true };
	struct uet_meas *a = make_stream(1, &flow, local, 2, 100);
	struct uet_meas *b = make_stream(1, &flow, local, 2, 100);
	const uint64_t *sa, *sb;
	uint64_t offered, sum = 0, late = 0, i;
	size_t na, nb;

	(void)state;
	for (i = 1; i <= 10000; i++) {
		assert_int_equal(uet_meas_msg_acked(a, 0, START_NS, START_NS + i, 0), 0);
		assert_int_equal(uet_meas_msg_acked(b, 0, START_NS, START_NS + i, 0), 0);
	}
	sa = uet_meas_fct_samples(a, &na, &offered);
	sb = uet_meas_fct_samples(b, &nb, NULL);
	assert_int_equal(na, 100);
	assert_int_equal(nb, 100);
	assert_int_equal(offered, 10000);
	assert_memory_equal(sa, sb, 100 * sizeof(uint64_t));
	for (i = 0; i < na; i++) {
		sum += sa[i];
		late += sa[i] > 5000;
	}
	/* A uniform sample of 1..10000: mean near 5000, about half late. */
	assert_in_range(sum / na, 4000, 6000);
	assert_in_range(late, 35, 65);
	uet_meas_destroy(a);
	uet_meas_destroy(b);
}

/* A ping-pong run for a duration: its round trips are samples the driver
 * adds, summarised whatever pairs are named, kept as a reservoir past
 * max_fct_samples (the count still every one), and merged. */
static void
test_stream_rtt(void **state)
{
	const struct uet_meas_flow flows[2] = {
		{ .src = 0, .dst = 1, .size_bytes = 64 },
		{ .src = 1, .dst = 0, .size_bytes = 64, .step = 1 },
	};
	const bool local[2] = { true, true };
	uint32_t out = 0, back = 1;
	struct uet_meas *a = make_stream(2, flows, local, 2, 100);
	struct uet_meas *b = make_stream(2, flows, local, 2, 100);
	struct uet_meas_rtt r;
	uint64_t offered, i;
	size_t n;

	(void)state;
	assert_int_equal(uet_meas_rtt(a, &out, &back, 1, &r), 0);
	assert_int_equal(r.rtt.count, 0);
	assert_int_equal(uet_meas_add_rtt_sample(a, 1000), 0);
	assert_int_equal(uet_meas_add_rtt_sample(a, 3000), 0);
	assert_int_equal(uet_meas_rtt(a, &out, &back, 1, &r), 0);
	assert_int_equal(r.rtt.count, 2);
	assert_int_equal(r.rtt.min_ns, 1000);
	assert_int_equal(r.rtt.mean_ns, 2000);
	assert_int_equal(r.rtt.max_ns, 3000);
	assert_int_equal(r.stdev_ns, 1414);
	/* Not FCTs. */
	assert_null(uet_meas_fct_samples(a, &n, NULL));
	assert_int_equal(n, 0);
	for (i = 1; i <= 1000; i++)
		assert_int_equal(uet_meas_add_rtt_sample(b, 10000 + i), 0);
	assert_non_null(uet_meas_rtt_samples(b, &n, &offered));
	assert_int_equal(n, 100);
	assert_int_equal(offered, 1000);
	assert_int_equal(uet_meas_rtt(b, NULL, NULL, 0, &r), 0);
	assert_int_equal(r.rtt.count, 1000);
	assert_in_range(r.rtt.min_ns, 10001, 10100);
	assert_in_range(r.rtt.mean_ns, 10300, 10700);
	/* b into a: 102 offered, 100 kept. */
	assert_int_equal(uet_meas_merge(a, b), 0);
	uet_meas_rtt_samples(a, &n, &offered);
	assert_int_equal(n, 100);
	assert_int_equal(offered, 1002);
	uet_meas_destroy(a);
	uet_meas_destroy(b);
}

/* Two lcores' measurements of one process fold into one. */
/* iperf3 -O: a warm-up of 2 bins (2 intervals) before the measured time.
 * What has a time counts only past the mark; the counters without one
 * count from uet_meas_omit_end(); the timeline keeps everything. */
static void
test_omit_warm_up(void **state)
{
	const struct uet_meas_flow flows[1] = { { .src = 0, .dst = 1, .size_bytes = 100 } };
	const bool local[2] = { true, true };
	struct uet_meas_config c = {
		.flows = flows, .n_flows = 1, .rank_local = local, .n_ranks = 2,
		.ev_base = 1000, .ev_count = 4, .start_ns = START_NS, .bin_ns = 1000,
		.interval_ns = 1000, .repeat = true, .omit_ns = 2000,
	};
	const uint64_t mark = START_NS + 2000;
	struct uet_meas *m = NULL, *other = NULL;
	struct uet_ep_stats st;
	struct uet_meas_nic nic;
	struct uet_meas_net net;
	struct uet_meas_interval iv;
	struct uet_meas_flow_rec r;
	struct uet_meas_fct fct;
	uint64_t rx, tx, tp, ce;

	(void)state;
	assert_int_equal(uet_meas_create(&c, &m), 0);
	assert_false(uet_meas_measuring(m, mark - 1));
	assert_true(uet_meas_measuring(m, mark));
	/* Warm-up: bytes, two messages, a resend, packets on an EV. */
	assert_int_equal(uet_meas_rx_bytes(m, START_NS + 500, 100), 0);
	assert_int_equal(uet_meas_tx_bytes(m, mark - 1, 100), 0);
	assert_int_equal(uet_meas_msg_acked(m, 0, START_NS, START_NS + 900, 0), 0);
	assert_int_equal(uet_meas_msg_received(m, 0, START_NS + 800), 0);
	assert_int_equal(uet_meas_ev_tx(m, 1001), 0);
	memset(&st, 0, sizeof(st));
	st.tx_retx_pkts = 1;
	st.rto_events = 1;
	assert_int_equal(uet_meas_set_ep_stats(m, START_NS + 1500, &st), 0);
	memset(&nic, 0, sizeof(nic));
	nic.late_polls = 3;
	uet_meas_set_nic(m, &nic);
	memset(&net, 0, sizeof(net));
	net.ecn_marks = 5;
	uet_meas_set_net(m, &net);
	/* A failure counts whenever it came. */
	assert_int_equal(uet_meas_msg_acked(m, 0, START_NS, START_NS + 1000, UET_ERR_TIMEOUT), 0);
	uet_meas_omit_end(m);
	/* Measured: a message started in the warm-up and acknowledged past
	 * the mark counts (its whole FCT), one more after it. */
	assert_int_equal(uet_meas_msg_acked(m, 0, START_NS + 1900, mark + 100, 0), 0);
	assert_int_equal(uet_meas_msg_acked(m, 0, mark + 200, mark + 300, 0), 0);
	assert_int_equal(uet_meas_msg_received(m, 0, mark), 0);
	assert_int_equal(uet_meas_rx_bytes(m, mark, 40), 0);
	assert_int_equal(uet_meas_tx_bytes(m, mark + 1500, 60), 0);
	assert_int_equal(uet_meas_ev_tx(m, 1001), 0);
	assert_int_equal(uet_meas_ev_ce(m, 1002), 0);
	st.tx_retx_pkts = 4;
	assert_int_equal(uet_meas_set_ep_stats(m, mark + 1500, &st), 0);
	nic.late_polls = 7;
	uet_meas_set_nic(m, &nic);
	net.ecn_marks = 6;
	uet_meas_set_net(m, &net);
	uet_meas_omit_end(m); /* once */

	uet_meas_totals(m, &rx, &tx);
	assert_int_equal(rx, 40);
	assert_int_equal(tx, 60);
	assert_int_equal(uet_meas_ep_stats(m)->tx_retx_pkts, 3);
	assert_int_equal(uet_meas_ep_stats(m)->rto_events, 0);
	assert_true(uet_meas_nic(m, &nic));
	assert_int_equal(nic.late_polls, 4);
	assert_true(uet_meas_net(m, &net));
	assert_int_equal(net.ecn_marks, 1);
	assert_int_equal(uet_meas_ev_get(m, 1001, &tp, &ce), 0);
	assert_int_equal(tp, 1);
	assert_int_equal(uet_meas_ev_get(m, 1002, &tp, &ce), 0);
	assert_int_equal(ce, 1);
	assert_int_equal(uet_meas_flow_get(m, 0, &r), 0);
	assert_int_equal(r.msgs_acked, 2);
	assert_int_equal(r.msgs_failed, 1);
	assert_int_equal(r.msgs_received, 1);
	assert_int_equal(uet_meas_fct(m, &fct), 0);
	assert_int_equal(fct.count, 2);
	assert_int_equal(fct.max_ns, 200);
	/* The timeline keeps the warm-up; its intervals say so. */
	assert_int_equal(uet_meas_interval_count(m, mark + 2000, false), 4);
	uet_meas_interval_get(m, 0, mark + 2000, &iv);
	assert_true(iv.omitted);
	assert_int_equal(iv.rx_bytes, 100);
	uet_meas_interval_get(m, 1, mark + 2000, &iv);
	assert_true(iv.omitted);
	assert_int_equal(iv.tx_bytes, 100);
	assert_int_equal(iv.retx_pkts, 1);
	uet_meas_interval_get(m, 2, mark + 2000, &iv);
	assert_false(iv.omitted);
	assert_int_equal(iv.rx_bytes, 40);
	uet_meas_interval_get(m, 3, mark + 2000, &iv);
	assert_false(iv.omitted);
	assert_int_equal(iv.retx_pkts, 3);

	/* Two lcores' measurements add what each counted past its mark. */
	assert_int_equal(uet_meas_create(&c, &other), 0);
	memset(&st, 0, sizeof(st));
	st.tx_retx_pkts = 10;
	assert_int_equal(uet_meas_set_ep_stats(other, mark, &st), 0);
	uet_meas_omit_end(other);
	st.tx_retx_pkts = 12;
	assert_int_equal(uet_meas_set_ep_stats(other, mark + 10, &st), 0);
	assert_int_equal(uet_meas_merge(m, other), 0);
	assert_int_equal(uet_meas_ep_stats(m)->tx_retx_pkts, 5);
	uet_meas_destroy(other);
	/* Nor with another warm-up; nor one that is not whole intervals. */
	c.omit_ns = 3000;
	assert_int_equal(uet_meas_create(&c, &other), 0);
	assert_int_equal(uet_meas_merge(m, other), UET_ERR_INVAL);
	uet_meas_destroy(other);
	c.omit_ns = 2500;
	assert_int_equal(uet_meas_create(&c, &other), UET_ERR_INVAL);
	c.interval_ns = 0;
	assert_int_equal(uet_meas_create(&c, &other), UET_ERR_INVAL);
	uet_meas_destroy(m);
}

static void
test_merge(void **state)
{
	const struct uet_meas_flow flows[2] = {
		{ .src = 0, .dst = 1, .size_bytes = 100 },
		{ .src = 1, .dst = 0, .size_bytes = 200 },
	};
	const bool l0[2] = { true, false }, l1[2] = { false, true }, all[2] = { true, true };
	struct uet_meas_config c = {
		.flows = flows, .n_flows = 2, .n_ranks = 2, .ev_base = 1000, .ev_count = 4,
		.start_ns = START_NS, .bin_ns = 1000,
	};
	struct uet_meas *a, *b, *g, *bad;
	struct uet_ep_stats st;
	struct uet_meas_flow_rec r;
	uint64_t rx, tx, retx, tp, ce, ck, nb;

	(void)state;
	c.rank_local = l0;
	assert_int_equal(uet_meas_create(&c, &a), 0);
	c.rank_local = l1;
	assert_int_equal(uet_meas_create(&c, &b), 0);
	c.rank_local = all;
	assert_int_equal(uet_meas_create(&c, &g), 0);
	/* flow 0: 0 -> 1, submitted and acked on a, received on b */
	assert_int_equal(uet_meas_submit(a, 0, START_NS + 10), 0);
	assert_int_equal(uet_meas_send_done(a, 0, START_NS + 500, 0), 0);
	assert_int_equal(uet_meas_recv_done(b, 0, START_NS + 300), 0);
	/* flow 1: 1 -> 0, failed at b */
	assert_int_equal(uet_meas_submit(b, 1, START_NS + 20), 0);
	assert_int_equal(uet_meas_send_done(b, 1, START_NS + 2500, UET_ERR_TIMEOUT), 0);
	assert_int_equal(uet_meas_rx_bytes(a, START_NS + 1500, 7), 0);
	assert_int_equal(uet_meas_rx_bytes(b, START_NS + 1700, 5), 0);
	assert_int_equal(uet_meas_tx_bytes(b, START_NS + 3500, 9), 0);
	assert_int_equal(uet_meas_ev_tx(a, 1001), 0);
	assert_int_equal(uet_meas_ev_tx(b, 1001), 0);
	assert_int_equal(uet_meas_ev_ce(b, 1003), 0);
	assert_int_equal(uet_meas_event(b, START_NS + 40, "fail-ev", "1001"), 0);
	memset(&st, 0, sizeof(st));
	st.tx_retx_pkts = 3;
	st.rto_events = 1;
	assert_int_equal(uet_meas_set_ep_stats(a, START_NS + 100, &st), 0);
	assert_int_equal(uet_meas_set_ep_stats(b, START_NS + 3100, &st), 0);
	uet_meas_verify(a, 1, 0);
	uet_meas_verify(b, 2, 1);

	assert_int_equal(uet_meas_merge(g, a), 0);
	assert_int_equal(uet_meas_merge(g, b), 0);
	assert_int_equal(uet_meas_flow_get(g, 0, &r), 0);
	assert_int_equal(r.status, UET_MEAS_OK);
	assert_int_equal(r.fct_ns, 490);      /* both ends here now */
	assert_int_equal(r.fct_recv_ns, 290);
	assert_int_equal(uet_meas_flow_get(g, 1, &r), 0);
	assert_int_equal(r.status, UET_MEAS_FAILED);
	assert_int_equal(r.send_status, UET_ERR_TIMEOUT);
	uet_meas_totals(g, &rx, &tx);
	assert_int_equal(rx, 12);
	assert_int_equal(tx, 9);
	assert_int_equal(uet_meas_bin_count(g), 4);
	uet_meas_bin(g, 1, &rx, &tx, &retx);
	assert_int_equal(rx, 12);
	uet_meas_bin(g, 0, NULL, NULL, &retx);
	assert_int_equal(retx, 3);
	uet_meas_bin(g, 3, NULL, &tx, &retx);
	assert_int_equal(retx, 3);
	assert_int_equal(tx, 9);
	assert_int_equal(uet_meas_ev_get(g, 1001, &tp, &ce), 0);
	assert_int_equal(tp, 2);
	assert_int_equal(uet_meas_ev_get(g, 1003, &tp, &ce), 0);
	assert_int_equal(ce, 1);
	assert_int_equal(uet_meas_event_count(g), 1);
	assert_int_equal(uet_meas_ep_stats(g)->tx_retx_pkts, 6);
	assert_int_equal(uet_meas_ep_stats(g)->rto_events, 2);
	uet_meas_verify_get(g, &ck, &nb);
	assert_int_equal(ck, 3);
	assert_int_equal(nb, 1);

	/* Another workload or start does not merge, and changes nothing. */
	c.start_ns = START_NS + 1;
	assert_int_equal(uet_meas_create(&c, &bad), 0);
	assert_int_equal(uet_meas_merge(g, bad), UET_ERR_INVAL);
	uet_meas_verify_get(g, &ck, &nb);
	assert_int_equal(ck, 3);
	uet_meas_destroy(bad);
	uet_meas_destroy(a);
	uet_meas_destroy(b);
	uet_meas_destroy(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_nearest_rank),
		cmocka_unit_test(test_fct_summary_1_to_1000),
		cmocka_unit_test(test_flow_status_and_fct_basis),
		cmocka_unit_test(test_fct_both_views_when_both_local),
		cmocka_unit_test(test_bad_input_counted),
		cmocka_unit_test(test_timeline_bins_and_growth),
		cmocka_unit_test(test_timeline_widens),
		cmocka_unit_test(test_widened_merge),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_ev_counters),
		cmocka_unit_test(test_ep_stats_sum_and_backwards),
		cmocka_unit_test(test_events_kept_cut_and_bounded),
		cmocka_unit_test(test_stream_messages),
		cmocka_unit_test(test_rtt),
		cmocka_unit_test(test_rank_clock),
		cmocka_unit_test(test_stream_fct_reservoir),
		cmocka_unit_test(test_stream_rtt),
		cmocka_unit_test(test_omit_warm_up),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests_name("measure", tests, NULL, NULL);
}
