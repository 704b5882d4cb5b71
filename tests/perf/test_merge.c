/* SPDX-License-Identifier: BSD-3-Clause */
/* uet-perf's result merge: two processes' exports replayed into the run's
 * measurement, including a message that arrived whole while its receiver
 * still waited at the start barrier (the CI regression: it read as never
 * received and the flow as pending). */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "merge.h"

#define START_A_NS 1000000000ULL
#define START_B_NS 7000000000ULL /* the other process's own clock */

static const struct uet_meas_flow flows[2] = {
	{ .src = 0, .dst = 1, .size_bytes = 262144 },
	{ .src = 1, .dst = 0, .size_bytes = 262144 },
};

static struct uet_meas *
make(const bool *local, uint64_t start_ns)
{
	struct uet_meas_config c = {
		.flows = flows, .n_flows = 2, .rank_local = local, .n_ranks = 2,
		.ev_base = 1000, .ev_count = 4, .start_ns = start_ns,
	};
	struct uet_meas *m = NULL;

	assert_int_equal(uet_meas_create(&c, &m), 0);
	return m;
}

/* Two processes' measurements of workload c on their own clocks, a
 * (rank 0, keeping at most a_max_fct FCT samples; 0: the default) and b
 * (rank 1), and the run's g, every rank local. */
static void
make_two(struct uet_meas_config c, uint32_t a_max_fct, struct uet_meas **a, struct uet_meas **b,
	 struct uet_meas **g)
{
	static const bool only0[2] = { true, false }, only1[2] = { false, true };
	static const bool both[2] = { true, true };

	c.rank_local = only0;
	c.start_ns = START_A_NS;
	c.max_fct_samples = a_max_fct;
	assert_int_equal(uet_meas_create(&c, a), 0);
	c.max_fct_samples = 0;
	c.rank_local = only1;
	c.start_ns = START_B_NS;
	assert_int_equal(uet_meas_create(&c, b), 0);
	c.rank_local = both;
	c.start_ns = 0;
	assert_int_equal(uet_meas_create(&c, g), 0);
}

/* Two processes' exports, their measurements and the merged one, freed. */
static void
free_two(json_t *ea, json_t *eb, struct uet_meas *a, struct uet_meas *b, struct uet_meas *g)
{
	json_decref(ea);
	json_decref(eb);
	uet_meas_destroy(a);
	uet_meas_destroy(b);
	uet_meas_destroy(g);
}

static void
test_early_receive_survives_merge(void **state)
{
	static const bool only0[2] = { true, false }, only1[2] = { false, true };
	static const bool both[2] = { true, true };
	struct uet_meas *a = make(only0, START_A_NS), *b = make(only1, START_B_NS);
	struct uet_meas *g = make(both, 0);
	struct uet_meas_flow_rec r;
	struct uet_ep_stats sum;
	struct uet_meas_fct fct;
	uint64_t end_ns = 0;
	json_t *ea, *eb;

	(void)state;
	/* Process A (rank 0): flow 0 out, flow 1 in. */
	assert_int_equal(uet_meas_submit(a, 0, START_A_NS + 10000), 0);
	assert_int_equal(uet_meas_send_done(a, 0, START_A_NS + 900000, 0), 0);
	assert_int_equal(uet_meas_recv_done(a, 1, START_A_NS + 700000), 0);
	/* Process B (rank 1): flow 0 arrived 300 us before B's time 0. */
	assert_int_equal(uet_meas_recv_done(b, 0, START_B_NS - 300000), 0);
	assert_int_equal(uet_meas_submit(b, 1, START_B_NS + 5000), 0);
	assert_int_equal(uet_meas_send_done(b, 1, START_B_NS + 800000, 0), 0);

	ea = perf_export(a, 950000);
	eb = perf_export(b, 850000);
	memset(&sum, 0, sizeof(sum));
	assert_int_equal(perf_import(g, &sum, ea, &end_ns), 0);
	assert_int_equal(perf_import(g, &sum, eb, &end_ns), 0);
	assert_int_equal(end_ns, 950000);

	assert_int_equal(uet_meas_flow_get(g, 0, &r), 0);
	assert_int_equal(r.status, UET_MEAS_OK);
	assert_int_equal(r.recv_done_ns, 0); /* at B's time 0 */
	assert_int_equal(r.fct_ns, 890000);  /* the sender's view */
	assert_true(r.fct_recv_ns == UET_MEAS_NO_TIME); /* recv precedes submit */
	assert_int_equal(uet_meas_flow_get(g, 1, &r), 0);
	assert_int_equal(r.status, UET_MEAS_OK);
	assert_int_equal(r.fct_recv_ns, 695000);
	assert_true(uet_meas_flows_ok(g));
	assert_int_equal(uet_meas_fct(g, &fct), 0);
	assert_int_equal(fct.count, 2);

	free_two(ea, eb, a, b, g);
}

/* A ping-pong for a duration: the pinger's process took the round trips
 * (the other process has none); they come through the merge, the FCT
 * samples apart from them, and those it took past its cap (2 here) still
 * count. */
static void
test_stream_rtts_survive_merge(void **state)
{
	const struct uet_meas_flow pp[2] = {
		{ .src = 0, .dst = 1, .size_bytes = 64 },
		{ .src = 1, .dst = 0, .size_bytes = 64, .step = 1 },
	};
	struct uet_meas_config c = { .flows = pp, .n_flows = 2, .n_ranks = 2, .ev_base = 1000,
				     .ev_count = 4, .repeat = true };
	struct uet_meas *a, *b, *g;
	struct uet_ep_stats sum;
	struct uet_meas_rtt r;
	struct uet_meas_fct f;
	uint64_t end_ns = 0;
	json_t *ea, *eb;

	(void)state;
	make_two(c, 2, &a, &b, &g);
	assert_int_equal(uet_meas_msg_acked(a, 0, START_A_NS + 10, START_A_NS + 900, 0), 0);
	assert_int_equal(uet_meas_add_rtt_sample(a, 2000), 0);
	assert_int_equal(uet_meas_add_rtt_sample(a, 4000), 0);
	assert_int_equal(uet_meas_add_rtt_sample(a, 3000), 0);
	assert_int_equal(uet_meas_msg_acked(b, 1, START_B_NS + 1000, START_B_NS + 1700, 0), 0);
	ea = perf_export(a, 5000);
	eb = perf_export(b, 5000);
	memset(&sum, 0, sizeof(sum));
	assert_int_equal(perf_import(g, &sum, ea, &end_ns), 0);
	assert_int_equal(perf_import(g, &sum, eb, &end_ns), 0);
	assert_int_equal(uet_meas_rtt(g, NULL, NULL, 0, &r), 0);
	assert_int_equal(r.rtt.count, 3);
	assert_in_range(r.rtt.min_ns, 2000, 3000);
	assert_in_range(r.rtt.max_ns, 3000, 4000);
	assert_int_equal(uet_meas_fct(g, &f), 0);
	assert_int_equal(f.count, 2);
	assert_int_equal(f.max_ns, 890);
	free_two(ea, eb, a, b, g);
}

static void
test_malformed_export_is_refused(void **state)
{
	static const bool both[2] = { true, true };
	struct uet_meas *g = make(both, 0);
	struct uet_ep_stats sum;
	uint64_t end_ns = 0;
	json_t *o = json_pack("{s:[[I,I,I,I,i,I,I,I]],s:s,s:s,s:s,s:I,s:[],s:[],s:[],s:[],s:I,"
			      "s:[I,I]}", "flows", (json_int_t)7, (json_int_t)0, (json_int_t)1,
			      (json_int_t)-1, 0, (json_int_t)1, (json_int_t)0, (json_int_t)0, "rx_bins",
			      "", "tx_bins", "", "retx_bins", "", "bins", (json_int_t)0, "intervals",
			      "evs", "events", "stats", "bin_ns", (json_int_t)100000, "totals",
			      (json_int_t)0, (json_int_t)0);
	json_t *ok = perf_export(g, 0), *bad;
	uint64_t rx, tx, retx;

	(void)state;
	memset(&sum, 0, sizeof(sum));
	/* Flow 7 of 2, and a stats array of the wrong length. */
	assert_int_equal(perf_import(g, &sum, o, &end_ns), UET_ERR_INVAL);
	assert_false(uet_meas_flows_ok(g));
	/* A bin at a width the timeline cannot hold; bins' counters as text
	 * ("5,,7", nothing for 0) that do not hold one number per bin; a
	 * negative total. */
	bad = json_deep_copy(ok);
	json_object_set_new(bad, "bin_ns", json_integer(150000));
	json_object_set_new(bad, "bins", json_integer(2));
	json_object_set_new(bad, "rx_bins", json_string("5,"));
	json_object_set_new(bad, "tx_bins", json_string(","));
	json_object_set_new(bad, "retx_bins", json_string(",1"));
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), UET_ERR_INVAL);
	json_object_set_new(bad, "bin_ns", json_integer(100000));
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), 0);
	uet_meas_bin(g, 0, &rx, &tx, &retx);
	assert_int_equal(rx, 5);
	uet_meas_bin(g, 1, &rx, &tx, &retx);
	assert_int_equal(retx, 1);
	json_object_set_new(bad, "retx_bins", json_string(",1,"));
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), UET_ERR_INVAL);
	json_object_set_new(bad, "retx_bins", json_string("1"));
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), UET_ERR_INVAL);
	json_object_set_new(bad, "retx_bins", json_string(",-1"));
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), UET_ERR_INVAL);
	json_object_set_new(bad, "retx_bins", json_string(",99999999999999999999"));
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), UET_ERR_INVAL);
	json_object_set_new(bad, "retx_bins", json_string(",1"));
	json_object_set_new(bad, "bins", json_integer(1 << 30));  /* past max_bins */
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), UET_ERR_INVAL);
	json_object_set_new(bad, "bins", json_integer(2));
	/* FCT samples as text: as many numbers as fct_n says. */
	json_object_set_new(bad, "fct_n", json_integer(3));
	json_object_set_new(bad, "fct", json_string("5,,7"));
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), 0);
	json_object_set_new(bad, "fct", json_string("5,7"));
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), UET_ERR_INVAL);
	json_object_set_new(bad, "fct", json_string("5,x,7"));
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), UET_ERR_INVAL);
	json_object_set_new(bad, "fct", json_pack("[I,I,I]", (json_int_t)5, (json_int_t)0,
						  (json_int_t)7));
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), UET_ERR_INVAL);
	json_object_del(bad, "fct");
	json_object_set_new(bad, "totals", json_pack("[I,I]", (json_int_t)-1, (json_int_t)0));
	assert_int_equal(perf_import(g, &sum, bad, &end_ns), UET_ERR_INVAL);
	json_decref(bad);
	json_decref(ok);
	json_decref(o);
	uet_meas_destroy(g);
}

/* A run longer than the timeline's bins (max_bins 64 here, 105 s at the
 * defaults), with a warm-up: the processes' timelines widened to
 * different widths, and the gathered one holds every byte and resend at
 * the widest; the intervals and the totals come over exactly as each
 * process counted them (before, the totals were the bins' sum, and lost
 * what the bins had no room for; the resends all went to the last bin). */
static void
test_long_run_survives_merge(void **state)
{
	struct uet_meas_config c = { .flows = flows, .n_flows = 2, .n_ranks = 2, .ev_base = 1000,
				     .ev_count = 4, .repeat = true, .bin_ns = 1000,
				     .interval_ns = 10000, .omit_ns = 10000, .max_bins = 64 };
	struct uet_meas *a, *b, *g;
	struct uet_meas_interval iv;
	struct uet_ep_stats st, sum;
	uint64_t end_ns = 0, rx, tx, retx, i, brx = 0, btx = 0, bretx = 0;
	json_t *ea, *eb;

	(void)state;
	make_two(c, 0, &a, &b, &g);
	for (i = 0; i < 200; i++)   /* A: 100 B every us for 200 us */
		assert_int_equal(uet_meas_rx_bytes(a, START_A_NS + i * 1000, 100), 0);
	for (i = 0; i < 50; i++)    /* B: 50 B every 2 us for 100 us */
		assert_int_equal(uet_meas_tx_bytes(b, START_B_NS + i * 2000, 50), 0);
	uet_meas_omit_end(a); /* at 10 us, before the resends */
	uet_meas_omit_end(b);
	memset(&st, 0, sizeof(st));
	st.tx_retx_pkts = 3;
	assert_int_equal(uet_meas_set_ep_stats(a, START_A_NS + 55000, &st), 0);
	assert_int_equal(uet_meas_timeline_bin_ns(a), 4000);
	assert_int_equal(uet_meas_timeline_bin_ns(b), 2000);
	ea = perf_export(a, 200000);
	eb = perf_export(b, 100000);
	memset(&sum, 0, sizeof(sum));
	assert_int_equal(perf_import(g, &sum, eb, &end_ns), 0);
	assert_int_equal(perf_import(g, &sum, ea, &end_ns), 0);
	assert_int_equal(sum.tx_retx_pkts, 3);
	assert_int_equal(uet_meas_set_ep_stats(g, UET_MEAS_NO_TIME, &sum), 0);

	/* Totals past the warm-up's 10 us: A's 190 samples, B's 45. */
	uet_meas_totals(g, &rx, &tx);
	assert_int_equal(rx, 19000);
	assert_int_equal(tx, 2250);
	assert_int_equal(uet_meas_timeline_bin_ns(g), 4000);
	for (i = 0; i < uet_meas_bin_count(g); i++) {
		uet_meas_bin(g, i, &rx, &tx, &retx);
		brx += rx;
		btx += tx;
		bretx += retx;
	}
	assert_int_equal(brx, 20000); /* the timeline keeps the warm-up */
	assert_int_equal(btx, 2500);
	assert_int_equal(bretx, 3);
	uet_meas_bin(g, 13, NULL, NULL, &retx);  /* 55 us */
	assert_int_equal(retx, 3);
	assert_int_equal(uet_meas_interval_count(g, end_ns, true), 20);
	for (i = 0; i < 20; i++) {
		uet_meas_interval_get(g, i, end_ns, &iv);
		assert_int_equal(iv.rx_bytes, 1000);
		assert_int_equal(iv.tx_bytes, i < 10 ? 250 : 0);
		assert_int_equal(iv.retx_pkts, i == 5 ? 3 : 0);
		assert_int_equal(iv.omitted, i == 0);
	}
	assert_int_equal(uet_meas_bad(g)->timeline_full, 0);
	free_two(ea, eb, a, b, g);
}

/* A long run's timeline crosses the control channel as text, a number per
 * bin and nothing for 0: 2^20 bins with 7-digit byte counts both ways and
 * a resend in one bin of 1,000 take 17 bytes a bin (as JSON integers they
 * took some 60 bytes of memory each at both ends), and come back exact. */
static void
test_bins_as_text(void **state)
{
	static const bool both[2] = { true, true };
	struct uet_meas_config c = { .flows = flows, .n_flows = 2, .rank_local = both, .n_ranks = 2,
				     .ev_base = 1000, .ev_count = 4, .bin_ns = 1000 };
	struct uet_meas *a, *g;
	struct uet_ep_stats sum;
	uint64_t end_ns = 0, i, rx, tx, retx;
	const size_t nb = 1u << 20;
	json_t *e;
	char *text;

	(void)state;
	assert_int_equal(uet_meas_create(&c, &a), 0);
	assert_int_equal(uet_meas_create(&c, &g), 0);
	for (i = 0; i < nb; i++) {
		assert_int_equal(uet_meas_rx_bytes(a, i * 1000, 1000000 + i), 0);
		assert_int_equal(uet_meas_tx_bytes(a, i * 1000, 9999999 - i), 0);
		if (i % 1000 == 7)
			assert_int_equal(uet_meas_timeline_add(a, i * 1000, 1000, 0, 0, 1), 0);
	}
	e = perf_export(a, nb * 1000);
	text = json_dumps(e, JSON_COMPACT);
	assert_non_null(text);
	assert_in_range(strlen(text), nb * 17, nb * 17 + 4096);
	free(text);
	memset(&sum, 0, sizeof(sum));
	assert_int_equal(perf_import(g, &sum, e, &end_ns), 0);
	assert_int_equal(uet_meas_bin_count(g), nb);
	for (i = 0; i < nb; i++) {
		uet_meas_bin(g, i, &rx, &tx, &retx);
		if (rx != 1000000 + i || tx != 9999999 - i || retx != (i % 1000 == 7))
			fail_msg("bin %" PRIu64 ": %" PRIu64 " %" PRIu64 " %" PRIu64, i, rx, tx, retx);
	}
	uet_meas_totals(g, &rx, &tx);
	assert_int_equal(rx, nb * 1000000 + nb * (nb - 1) / 2);
	json_decref(e);
	uet_meas_destroy(a);
	uet_meas_destroy(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_early_receive_survives_merge),
		cmocka_unit_test(test_malformed_export_is_refused),
		cmocka_unit_test(test_stream_rtts_survive_merge),
		cmocka_unit_test(test_long_run_survives_merge),
		cmocka_unit_test(test_bins_as_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
