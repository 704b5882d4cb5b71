/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The REPS paper's trends on uet-sim (lib/simrun, the code behind the
 * command line: each scenario is a uet-sim command line), sized for CI.
 * Every scenario prints its numbers; doc/results.md tables them beside the
 * paper's. tools/sim/paper_trends.sh runs the full-size versions.
 *
 * 1. Healthy symmetric permutation and tornado, 128 hosts: REPS max FCT
 *    <= OPS, both far better than ECMP.
 * 2. One ToR uplink at half rate: REPS completes faster than OPS.
 * 3. Two short ToR-uplink failures during a permutation: REPS stops using
 *    the failed links within about one RTO, completes faster and drops at
 *    least 2.5x fewer packets than OPS.
 * 4. Incast 8:1 with NSCC, DCTCP and EQDS (trimming): no drops, a bounded
 *    share of trimmed packets, near line-rate completion, fair shares.
 * 5. EV-set size 32, 256, 65535: OPS degrades at small sets much more
 *    than REPS.
 * 6. The paper's baselines under its setup (--profile reps-paper):
 *    permutation, where REPS leads, OPS, bitmap and MPRDMA's ACK clocking
 *    follow closely, and the MPTCP-like 8 subflows, flowlets and PLB fall
 *    far behind with ECMP (paper §4.2, Fig. 3); switch-side adaptive
 *    routing matches REPS on tornado and loses to it on permutation; an
 *    8:1 incast across the spines finishes within 10% for every load
 *    balancer, ECMP included (bound by the congestion control); a ring
 *    all-reduce builds no queue and finishes within 1% for every one; a
 *    butterfly all-reduce is the same for the per-packet schemes, and
 *    ECMP's exchanges collide.
 * 7. A mixed deployment (Fig. 6): 10% of the hosts on ECMP; their flows
 *    finish much sooner beside REPS than beside OPS, which sprays over
 *    their paths obliviously.
 * 8. The paper's setup, Fig. 4 (one of 8 uplinks at 200 Gb/s, 32 MiB
 *    tornado): OPS / REPS at least 1.5x (paper 1.75x); App. A: forcing
 *    every REPS PDC into freezing at 50 us costs at most 3%; Fig. 13:
 *    with an ACK per 16 packets and one uplink at half rate, ACK+Carry
 *    (--ack-carry-evs) beats standard REPS, which recycles one EV per
 *    ACK, by 10% or more.
 * 9. The paper's setup, Fig. 2 (16 MiB tornado between two ToRs of 8):
 *    REPS completes sooner than OPS, keeps every uplink busier and its
 *    queues shallower; Fig. 8 (32 hosts, failures left in place): with a
 *    spine dead REPS finishes every flow within 2.5x its healthy time
 *    while OPS limps 10x behind it, and bit errors slow OPS far more.
 * 10. The paper's setup, whose ACKs repeat the recent PSNs as htsim's
 *    (the profile sets --sack-repeat): with a cable or a spine dead, ACKs
 *    die with the data; each ACK repeats its predecessors' news, so REPS
 *    resends nothing that arrived, where ACKs that report each PSN once
 *    (--sack-repeat=no, the library's default) cost spurious timeouts.
 * 11. Figs. 4 and 7 as the REPS artifact ran them (under its settings): 4
 *    flows of 32 MiB across a 3-tier fabric. Fig. 4, ToR 0's uplink 0 at
 *    half rate one way: OPS / REPS at least 1.5x (the paper 1.75x). Fig. 7,
 *    one way of ToR 0's uplinks 1 and 3 dead in turn, its fast increase
 *    from 650 us: REPS completes at least 25% sooner with at least 1.5x
 *    fewer drops, and stops losing packets at the first failure within
 *    one RTO.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "simcli.h"

/* The figures, as TAP comments: a bare line would be unknown TAP. */
static void __attribute__((format(printf, 1, 2)))
note(const char *fmt, ...)
{
	char buf[1024], *line, *save = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
	fflush(stdout);
}

struct outcome {
	uint64_t completion_ns, fct_max_ns, fct_p50_ns;
	uint64_t ok, failed, pending;
	uint64_t drops_queue, drops_down, trims, ecn_marks;
	uint64_t retx, rto, spurious;
	double jain;             /* fairness of the flows' FCTs */
	double mean_fct_every10_ns; /* mean FCT of flows from hosts 0, 10, 20, ... */
	json_t *failures;        /* end.fabric.failures (owned) */
	json_t *series;          /* end.fabric.series with --port-series (owned) */
	uint64_t base_rtt_ns, rto_min_ns;
};

static uint64_t
jget(const json_t *o, const char *a, const char *b)
{
	return (uint64_t)json_integer_value(json_object_get(json_object_get(o, a), b));
}

/* Run uet-sim with these arguments (NULL-terminated). */
static void
simulate(struct outcome *out, ...)
{
	struct simcli c;
	struct uet_meas_fct fct;
	double sum = 0, sq = 0, sum10 = 0;
	uint32_t n10 = 0;
	va_list ap;
	uint32_t i;

	va_start(ap, out);
	simcli_run(&c, NULL, 0, ap);
	va_end(ap);
	memset(out, 0, sizeof(*out));
	assert_int_equal(uet_meas_fct(c.r.meas, &fct), 0);
	uet_meas_completion_ns(c.r.meas, &out->completion_ns);
	out->fct_max_ns = fct.max_ns;
	out->fct_p50_ns = fct.p50_ns;
	for (i = 0; i < uet_meas_config(c.r.meas)->n_flows; i++) {
		struct uet_meas_flow_rec fr;

		uet_meas_flow_get(c.r.meas, i, &fr);
		out->ok += fr.status == UET_MEAS_OK;
		out->failed += fr.status == UET_MEAS_FAILED;
		out->pending += fr.status == UET_MEAS_PENDING;
		if (fr.fct_ns != UET_MEAS_NO_TIME) {
			sum += (double)fr.fct_ns;
			sq += (double)fr.fct_ns * (double)fr.fct_ns;
			if (c.r.wl->flows[i].src % 10 == 0) {
				sum10 += (double)fr.fct_ns;
				n10++;
			}
		}
	}
	out->jain = sq > 0 ? sum * sum / (double)fct.count / sq : 0;
	out->mean_fct_every10_ns = n10 ? sum10 / n10 : 0;
	out->drops_queue = jget(c.r.fabric, "ports", "drops_queue");
	out->drops_down = jget(c.r.fabric, "ports", "drops_down");
	out->trims = jget(c.r.fabric, "ports", "trims");
	out->ecn_marks = jget(c.r.fabric, "ports", "ecn_marks");
	out->retx = uet_meas_ep_stats(c.r.meas)->tx_retx_pkts;
	out->rto = uet_meas_ep_stats(c.r.meas)->rto_events;
	out->spurious = uet_meas_ep_stats(c.r.meas)->spurious_retx;
	out->failures = json_incref(json_object_get(c.r.fabric, "failures"));
	out->series = json_incref(json_object_get(c.r.fabric, "series"));
	out->base_rtt_ns = (uint64_t)json_integer_value(json_object_get(c.r.test_start, "base_rtt_ns"));
	out->rto_min_ns = (uint64_t)json_integer_value(json_object_get(c.r.test_start, "rto_min_ns"));
	note("%s\n  -> completion %.1f us, FCT max %.1f us, p50 %.1f us, ok %llu, "
		      "failed %llu, drops queue %llu down %llu, trims %llu, marks %llu, retx "
		      "%llu, RTOs %llu, Jain %.3f\n", c.line, out->completion_ns / 1e3,
		      out->fct_max_ns / 1e3, out->fct_p50_ns / 1e3,
		      (unsigned long long)out->ok, (unsigned long long)out->failed,
		      (unsigned long long)out->drops_queue, (unsigned long long)out->drops_down,
		      (unsigned long long)out->trims, (unsigned long long)out->ecn_marks,
		      (unsigned long long)out->retx, (unsigned long long)out->rto, out->jain);
	simcli_done(&c);
}

static void
release(struct outcome *o)
{
	json_decref(o->failures);
	json_decref(o->series);
	o->failures = NULL;
	o->series = NULL;
}

/* The smallest and largest of v[0..n-1], n > 0. */
static void
min_max(const double *v, size_t n, double *lo, double *hi)
{
	size_t i;

	*lo = *hi = v[0];
	for (i = 1; i < n; i++) {
		if (v[i] < *lo)
			*lo = v[i];
		if (v[i] > *hi)
			*hi = v[i];
	}
}

/* 1. Symmetric, 128 hosts (16 ToRs of 8, 8 spines): every flow crosses
 * the spines; ECMP collides flows on uplinks, OPS sprays obliviously,
 * REPS recycles EVs that came back unmarked. */
static void
test_symmetric(void **state)
{
	static const char *const patterns[] = { "permutation", "tornado" };
	static const char *const lbs[] = { "ecmp", "ops", "reps" };
	struct outcome res[3];
	size_t p, l;

	(void)state;
	for (p = 0; p < 2; p++) {
		for (l = 0; l < 3; l++) {
			simulate(&res[l], "--nodes", "128", "--pattern", patterns[p], "--size", "2M",
				 "--iters", "1", "--lb", lbs[l], "--cc", "nscc", "--ack-every", "0",
				 "--seed", "3", NULL);
			assert_int_equal(res[l].ok, 128);
		}
		note("%s: max FCT ECMP %.1f, OPS %.1f, REPS %.1f us\n", patterns[p],
			      res[0].fct_max_ns / 1e3, res[1].fct_max_ns / 1e3,
			      res[2].fct_max_ns / 1e3);
		assert_true(res[2].fct_max_ns <= res[1].fct_max_ns);
		/* "much better": at least 1.5x (measured 2.3x to 6.8x) */
		assert_true(res[1].fct_max_ns * 3 < res[0].fct_max_ns * 2);
		assert_true(res[2].fct_max_ns * 3 < res[0].fct_max_ns);
		assert_int_equal(res[2].drops_queue, 0);
		for (l = 0; l < 3; l++)
			release(&res[l]);
	}
}

/* 2. Asymmetric: 2 ToRs of 8 hosts, 8 spines; ToR 0's uplink 0 runs at
 * 200 of 400 Gb/s; tornado: 8 flows over ToR 0's uplinks. OPS gives the
 * slow uplink an equal share and is held back by it; REPS sends less
 * there (its ACKs come back marked). Paper: 1400 vs 799 us. */
static void
test_asymmetric(void **state)
{
	struct outcome ops, reps;

	(void)state;
	simulate(&ops, "--nodes", "16", "--hosts-per-tor", "8", "--pattern", "tornado", "--size",
		 "8M", "--iters", "1", "--lb", "ops", "--cc", "nscc", "--ack-every", "0",
		 "--failure", "link-rate:0:tor0.up0:200:buffer=keep", NULL);
	simulate(&reps, "--nodes", "16", "--hosts-per-tor", "8", "--pattern", "tornado", "--size",
		 "8M", "--iters", "1", "--lb", "reps", "--cc", "nscc", "--ack-every", "0",
		 "--failure", "link-rate:0:tor0.up0:200:buffer=keep", NULL);
	note("half-rate uplink: completion OPS %.1f us, REPS %.1f us (%.2fx)\n",
		      ops.completion_ns / 1e3, reps.completion_ns / 1e3,
		      (double)ops.completion_ns / (double)reps.completion_ns);
	assert_int_equal(ops.ok, 16);
	assert_int_equal(reps.ok, 16);
	/* faster by a margin (measured 1.11x; 1.47x before the loss
	 * detection stopped taking the slow link's late packets for lost:
	 * OPS then resent 16,621 packets for 2,048 per flow, most of them
	 * spuriously). buffer=keep: the paper slows the link, not its queue
	 * (a reference-style degradation, buffer and ECN halved too, gives
	 * 0.98x at 32 MiB: doc/results.md). */
	assert_true(reps.completion_ns * 27 < ops.completion_ns * 25);
	release(&ops);
	release(&reps);
}

/* The failed link's record in end.fabric.failures. */
static void
failure_at(const struct outcome *o, size_t i, uint64_t *at, uint64_t *drops, uint64_t *last)
{
	const json_t *f = json_array_get(o->failures, i);

	assert_non_null(f);
	*at = (uint64_t)json_integer_value(json_object_get(f, "at_ns"));
	*drops = (uint64_t)json_integer_value(json_object_get(f, "drops_down"));
	*last = (uint64_t)json_integer_value(json_object_get(f, "last_drop_ns"));
}

/* Its senders: how many lost packets to it, and how long each kept losing
 * them there (median, longest). */
static void
failure_senders(const struct outcome *o, size_t i, uint64_t *n, uint64_t *p50, uint64_t *max)
{
	const json_t *s = json_object_get(json_array_get(o->failures, i), "senders");

	assert_non_null(s);
	*n = (uint64_t)json_integer_value(json_object_get(s, "n"));
	*p50 = (uint64_t)json_integer_value(json_object_get(s, "span_p50_ns"));
	*max = (uint64_t)json_integer_value(json_object_get(s, "span_max_ns"));
}

/* The longest first burst of losses of any of its senders (a burst ends
 * where no loss follows within the senders' RTO). */
static uint64_t
failure_burst_max(const struct outcome *o, size_t i)
{
	const json_t *s = json_object_get(json_array_get(o->failures, i), "senders");

	assert_non_null(s);
	return (uint64_t)json_integer_value(json_object_get(s, "burst_max_ns"));
}

/* 3. Transient failures: 64 hosts (8 ToRs of 8, 8 spines), a 32 MiB
 * permutation, ToR 0's uplink 0 down for 100 us at 100 us and ToR 1's
 * uplink 3 down for 200 us at 350 us; no routing convergence (the links
 * are blackholes while down, as in the paper). */
static void
test_failures(void **state)
{
	static const char *const lbs[] = { "ops", "reps" };
	struct outcome res[3];
	uint64_t at, drops, last, rto;
	size_t l, f;

	(void)state;
	for (l = 0; l < 2; l++) {
		simulate(&res[l], "--nodes", "64", "--hosts-per-tor", "8", "--pattern",
			 "permutation", "--size", "32M", "--iters", "1", "--lb", lbs[l], "--cc", "nscc",
			 "--ack-every", "0", "--failure", "link-down:100us:tor0.up0:for=100us",
			 "--failure", "link-down:350us:tor1.up3:for=200us", NULL);
		assert_int_equal(res[l].ok, 64);
	}
	/* The RTO floor: the fabric's (base RTT, full queues on the path, the
	 * ACK delay). */
	rto = res[1].rto_min_ns;
	assert_true(rto > res[1].base_rtt_ns);
	for (f = 0; f < 2; f++) {
		uint64_t o_at, o_drops, o_last;

		failure_at(&res[0], f, &o_at, &o_drops, &o_last);
		failure_at(&res[1], f, &at, &drops, &last);
		note("failure %zu at %.0f us: OPS dropped %llu, last at +%.1f us; REPS "
			      "dropped %llu, last at +%.1f us (RTO %.1f us)\n", f, at / 1e3,
			      (unsigned long long)o_drops, (o_last - o_at) / 1e3,
			      (unsigned long long)drops, (last - at) / 1e3, rto / 1e3);
		/* OPS keeps spraying into the link until it comes back; REPS
		 * sends it at least 5x fewer packets (measured 7x, 10x). */
		assert_true(o_last - o_at > 2 * rto);
		assert_true(drops * 5 <= o_drops);
		/* At both failures every REPS sender that lost packets to it
		 * froze on its first confirmed loss, within one RTO and a
		 * round trip: the loss is found across paths in a window that
		 * the PDC's recent round trips bound (doc/architecture.md),
		 * short on quiet paths. */
		assert_true(last - at <= rto + rto / 2);
		/* Per sender: the same hosts lose packets there under both,
		 * but each OPS sender keeps losing them for most of the
		 * failure, each REPS sender for about an RTO (at the first
		 * failure all of them, at the second the median one). */
		{
			uint64_t on, op50, omax, n, p50, max;

			failure_senders(&res[0], f, &on, &op50, &omax);
			failure_senders(&res[1], f, &n, &p50, &max);
			note("  senders losing packets there: OPS %llu, for %.1f us (median) "
			     "to %.1f us; REPS %llu, for %.1f to %.1f us\n", (unsigned long long)on,
			     op50 / 1e3, omax / 1e3, (unsigned long long)n, p50 / 1e3, max / 1e3);
			assert_true(n > 0 && n <= on);
			assert_true(op50 > 2 * rto);
			assert_true(p50 <= rto + rto / 2);
			assert_true(max <= rto + rto / 2);
		}
	}
	note("completion OPS %.1f us, REPS %.1f us; drops at failed links OPS %llu, "
		      "REPS %llu (%.1fx)\n", res[0].completion_ns / 1e3, res[1].completion_ns / 1e3,
		      (unsigned long long)res[0].drops_down, (unsigned long long)res[1].drops_down,
		      (double)res[0].drops_down / (double)(res[1].drops_down ? res[1].drops_down : 1));
	/* The paper's REPS finishes > 35% sooner; here OPS's losses cost it
	 * little since its resends are not spurious (REPS 937.4 vs OPS
	 * 996.7 us; doc/results.md; 720-1220 us over seeds 1-10 for
	 * both): no worse than 5% behind. */
	assert_true(res[1].completion_ns * 100 <= res[0].completion_ns * 105);
	assert_true(res[1].drops_down * 5 <= res[0].drops_down * 2); /* >= 2.5x fewer */
	/* A sender's first burst of losses there ends when REPS freezes
	 * (the freeze lasts 10 ms here, so no sender comes back): at both
	 * failures every sender's does within an RTO and a half. With
	 * trimming, as the artifact ran its failure micro-benchmark, every
	 * timeout is a failure (congestion would have been trimmed): every
	 * sender's first burst at both failures ends within three RTO floors
	 * (measured 40.7 and 59.7 us, the floor 34.4 us; the RTO itself is
	 * srtt + 4 rttvar, above the floor under load). */
	for (f = 0; f < 2; f++) {
		uint64_t burst = failure_burst_max(&res[1], f);

		note("failure %zu: the longest first burst of a REPS sender's losses %.1f us\n", f,
		     burst / 1e3);
		assert_true(burst <= rto + rto / 2);
	}
	simulate(&res[2], "--nodes", "64", "--hosts-per-tor", "8", "--pattern", "permutation",
		 "--size", "32M", "--iters", "1", "--lb", "reps", "--cc", "nscc", "--ack-every",
		 "0", "--trim", "--failure", "link-down:100us:tor0.up0:for=100us", "--failure",
		 "link-down:350us:tor1.up3:for=200us", NULL);
	assert_int_equal(res[2].ok, 64);
	for (f = 0; f < 2; f++) {
		uint64_t burst = failure_burst_max(&res[2], f);

		note("trimming, failure %zu: every REPS sender's first burst of losses within "
		     "%.1f us (RTO %.1f us)\n", f, burst / 1e3, res[2].rto_min_ns / 1e3);
		assert_true(burst > 0 && burst <= 3 * res[2].rto_min_ns);
	}
	for (l = 0; l < 3; l++)
		release(&res[l]);
}

/* 4. Incast 8:1 under one ToR (plus one sender from the other), 4 MiB
 * each, trimming on: the congestion control keeps the receiver's queue
 * in bounds after the first window (trims only at the start, no drops),
 * the link stays busy and the senders share it. NSCC and the REPS paper's
 * per-ACK DCTCP (dctcp-mprdma) do; real DCTCP, one halving per window
 * from a start of 8 x 1.5 BDP, trims more and shares less evenly (2,654
 * trims, 81% of line rate, Jain 0.981 when this was written): it is held
 * to completing every flow without a drop near line rate. EQDS's pull
 * pacer, granting 4 packets at a time round robin, shares the link
 * evenly (every flow ends within 2% of the others, Jain > 0.999): its
 * trims all come from the speculative first windows. */
static void
test_incast(void **state)
{
	static const char *const ccs[] = { "nscc", "dctcp-mprdma", "dctcp", "eqds" };
	/* 8 x 4 MiB at 400 Gb/s */
	const double ideal_ns = 8.0 * 4 * 1048576 * 8 / 400;
	struct outcome r;
	size_t c;

	(void)state;
	for (c = 0; c < 4; c++) {
		bool real_dctcp = c == 2, eqds = c == 3;

		simulate(&r, "--nodes", "16", "--hosts-per-tor", "8", "--pattern", "incast",
			 "--fanin", "8", "--root", "0", "--size", "4M", "--iters", "1", "--lb",
			 "reps", "--cc", ccs[c], "--ack-every", "0", "--trim", NULL);
		note("%s incast 8:1: completion %.1f us (%.0f%% of line rate), trims "
			      "%llu of %u packets, Jain %.3f\n", ccs[c], r.completion_ns / 1e3,
			      100 * ideal_ns / (double)r.completion_ns,
			      (unsigned long long)r.trims, 8 * 1024, r.jain);
		assert_int_equal(r.ok, 8);
		assert_int_equal(r.drops_queue, 0);
		assert_true(r.trims < 8 * 1024 * (real_dctcp ? 40 : 15) / 100);
		assert_true((double)r.completion_ns < (real_dctcp ? 1.35 : 1.1) * ideal_ns);
		assert_true(r.jain > (eqds ? 0.999 : 0.9));
		release(&r);
	}
}

/* 5. EV-set size: 128 hosts, 8 MiB permutation, 32 / 256 / 65535 EVs.
 * With few EVs, OPS's packets map to few (src, dst, EV) hashes: uneven
 * shares of the uplinks, which REPS steers around. Paper: OPS +64% at
 * 32, +21% at 256; REPS +8% at 32. */
static void
test_ev_set(void **state)
{
	static const char *const sets[][2] = { { "49152", "32" }, { "49152", "256" },
					       { "1", "65535" } };
	static const char *const lbs[] = { "ops", "reps" };
	struct outcome r;
	uint64_t fct[2][3];
	size_t l, k;

	(void)state;
	for (l = 0; l < 2; l++)
		for (k = 0; k < 3; k++) {
			simulate(&r, "--nodes", "128", "--pattern", "permutation", "--size", "8M",
				 "--iters", "1", "--lb", lbs[l], "--cc", "nscc", "--ack-every", "0",
				 "--seed", "3", "--ev-base", sets[k][0], "--ev-count", sets[k][1], NULL);
			assert_int_equal(r.ok, 128);
			fct[l][k] = r.fct_max_ns;
			release(&r);
		}
	note("max FCT vs 65535 EVs: OPS %+.0f%% at 32, %+.0f%% at 256; REPS %+.0f%% at "
		      "32, %+.0f%% at 256\n", 100.0 * fct[0][0] / fct[0][2] - 100,
		      100.0 * fct[0][1] / fct[0][2] - 100, 100.0 * fct[1][0] / fct[1][2] - 100,
		      100.0 * fct[1][1] / fct[1][2] - 100);
	/* OPS loses at least 20% at 32 EVs; REPS under 10%, and much less
	 * than OPS. */
	assert_true(fct[0][0] * 10 >= fct[0][2] * 12);
	assert_true(fct[1][0] * 10 <= fct[1][2] * 11);
	assert_true((double)fct[1][0] / fct[1][2] < (double)fct[0][0] / fct[0][2] - 0.1);
}

/* One figure per load balancer of test_paper_baselines' list, in its order. */
static void
note_lbs(const char *what, const double *us)
{
	note("%s: REPS %.1f, OPS %.1f, bitmap %.1f, MPRDMA %.1f, MPTCP-like %.1f, flowlet %.1f, "
	     "PLB %.1f, ECMP %.1f, adaptive routing %.1f us\n", what, us[0], us[1], us[2], us[3],
	     us[4], us[5], us[6], us[7], us[8]);
}

/* 6. The paper's baselines with its setup: 128 hosts, 4 MiB permutation. */
static void
test_paper_baselines(void **state)
{
	static const char *const lbs[] = { "reps", "ops", "bitmap", "mprdma", "mptcp",
					   "flowlet", "plb", "ecmp", "ar" };
	enum { N = sizeof(lbs) / sizeof(lbs[0]) };
	struct outcome r;
	double us[N];
	size_t l;

	(void)state;
	for (l = 0; l < N; l++) {
		simulate(&r, "--profile", "reps-paper", "--nodes", "128", "--pattern",
			 "permutation", "--size", "4M", "--iters", "1", "--seed", "2", "--lb",
			 lbs[l], NULL);
		assert_int_equal(r.ok, 128);
		assert_int_equal(r.trims, 0); /* the profile does not trim */
		us[l] = (double)r.completion_ns / 1e3;
		release(&r);
	}
	note_lbs("reps-paper permutation 128 x 4 MiB", us);
	/* REPS first; the per-packet schemes within 15% of OPS. */
	for (l = 1; l < N; l++)
		assert_true(us[0] <= us[l]);
	assert_true(us[2] < 1.15 * us[1] && us[3] < 1.15 * us[1]);
	/* 8 static subflows collide: well behind; per-flow schemes further. */
	assert_true(us[4] > 1.5 * us[1]);
	for (l = 5; l < 8; l++)
		assert_true(us[l] > 2.5 * us[1] && us[l] > us[4]);
	/* Adaptive routing: a locally best port is not globally best. */
	assert_true(us[8] > 1.2 * us[0]);
	/* Tornado, where every flow crosses the spines and the local choice is
	 * the right one: adaptive routing within 5% of REPS (or ahead). */
	{
		uint64_t t[2];

		for (l = 0; l < 2; l++) {
			simulate(&r, "--profile", "reps-paper", "--nodes", "128", "--pattern",
				 "tornado", "--size", "4M", "--iters", "1", "--seed", "2", "--lb",
				 l == 0 ? "reps" : "ar", NULL);
			assert_int_equal(r.ok, 128);
			t[l] = r.completion_ns;
			release(&r);
		}
		note("reps-paper tornado 128 x 4 MiB: REPS %.1f, adaptive routing %.1f us\n",
		     t[0] / 1e3, t[1] / 1e3);
		assert_true(t[1] * 100 <= t[0] * 105);
	}
	/* Incast 8:1 as the artifact lays it out: the 8 senders under one ToR
	 * (hosts 64-71), the receiver under another (63). The receiver's
	 * link is the bottleneck whatever the paths: every load balancer
	 * within 10% of the fastest, none more than 20% over line rate (the
	 * first windows overflow the receiver's downlink, and each such drop
	 * waits for the profile's 70 us timeout). */
	{
		const double line_us = 8.0 * 4 * 1048576 * 8 / 400e3;
		double lo, hi;

		for (l = 0; l < N; l++) {
			simulate(&r, "--profile", "reps-paper", "--nodes", "128", "--pattern",
				 "incast", "--fanin", "8", "--root", "63", "--size", "4M", "--iters",
				 "1", "--seed", "2", "--lb", lbs[l], NULL);
			assert_int_equal(r.ok, 8);
			us[l] = (double)r.fct_max_ns / 1e3;
			release(&r);
		}
		min_max(us, N, &lo, &hi);
		note("reps-paper incast 8:1 x 4 MiB: line rate %.1f us\n", line_us);
		note_lbs("reps-paper incast 8:1 x 4 MiB", us);
		assert_true(hi <= 1.1 * lo);
		assert_true(hi <= 1.2 * line_us);
	}
	/* Ring all-reduce (Fig. 3's AI panel): each step sends to the next
	 * rank, so at most one flow leaves a ToR and no queue builds: every
	 * load balancer finishes within 1% of the fastest, with no drop and
	 * no ECN mark (the paper: "the same for most load balancers"). */
	{
		double lo, hi;

		for (l = 0; l < N; l++) {
			simulate(&r, "--profile", "reps-paper", "--nodes", "128", "--pattern",
				 "ring-allreduce", "--size", "4000000", "--iters", "1", "--seed", "2",
				 "--lb", lbs[l], NULL);
			assert_int_equal(r.failed, 0);
			assert_int_equal(r.pending, 0);
			assert_true(r.ok > 0);
			assert_int_equal(r.drops_queue, 0);
			assert_int_equal(r.ecn_marks, 0);
			us[l] = (double)r.completion_ns / 1e3;
			release(&r);
		}
		min_max(us, N, &lo, &hi);
		note_lbs("reps-paper ring all-reduce 128 x 4 MB", us);
		assert_true(hi <= 1.01 * lo);
	}
	/* Butterfly all-reduce, the artifact's other one (4 MB here, 20 MB
	 * there): exchanges at distance 1, 2, ... 64 each way, four of them
	 * across the fabric. The per-packet schemes (lbs[0..3]) spread each
	 * exchange over every spine, drop nothing and finish within 1% of
	 * each other (212.3-212.8 us at seed 2); ECMP's flows collide on
	 * uplinks (894 drops, 394.6 us). */
	{
		static const size_t set[] = { 0, 1, 2, 3, 7 };
		uint64_t drops[5];
		double bf[5], lo, hi;
		size_t k;

		for (k = 0; k < 5; k++) {
			simulate(&r, "--profile", "reps-paper", "--nodes", "128", "--pattern",
				 "butterfly-allreduce", "--size", "4000000", "--iters", "1",
				 "--seed", "2", "--lb", lbs[set[k]], NULL);
			assert_int_equal(r.failed, 0);
			assert_int_equal(r.pending, 0);
			assert_true(r.ok > 0);
			drops[k] = r.drops_queue;
			bf[k] = (double)r.completion_ns / 1e3;
			release(&r);
		}
		note("reps-paper butterfly all-reduce 128 x 4 MB: REPS %.1f, OPS %.1f, BitMap "
		     "%.1f, MPRDMA %.1f, ECMP %.1f us (ECMP %" PRIu64 " drops)\n", bf[0], bf[1],
		     bf[2], bf[3], bf[4], drops[4]);
		min_max(bf, 4, &lo, &hi);
		assert_true(hi <= 1.01 * lo);
		for (k = 0; k < 4; k++)
			assert_int_equal(drops[k], 0);
		assert_true(bf[4] > 1.3 * hi);
		assert_true(drops[4] > 0);
	}
}

/* 7. Mixed deployment: hosts 0, 10, ... on ECMP, the rest spray. */
static void
test_mixed_ecmp(void **state)
{
	static const char *const lbs[] = { "reps", "ops" };
	double ecmp_us[2], rest_us[2];
	struct outcome r;
	size_t l;

	(void)state;
	for (l = 0; l < 2; l++) {
		simulate(&r, "--profile", "reps-paper", "--nodes", "128", "--pattern",
			 "permutation", "--size", "4M", "--iters", "1", "--seed", "2", "--lb",
			 lbs[l], "--ecmp-every", "10", NULL);
		assert_int_equal(r.ok, 128);
		ecmp_us[l] = r.mean_fct_every10_ns / 1e3;
		rest_us[l] = (double)r.completion_ns / 1e3;
		release(&r);
	}
	note("mixed, 10%% of hosts on ECMP: their mean FCT beside REPS %.1f us, beside OPS "
	     "%.1f us; completion %.1f / %.1f us\n", ecmp_us[0], ecmp_us[1], rest_us[0],
	     rest_us[1]);
	assert_true(ecmp_us[0] * 1.5 < ecmp_us[1]);
	assert_true(rest_us[0] < rest_us[1]);
}

/* 8. Fig. 4 and App. A with --profile reps-paper. */
static void
test_paper_setup_claims(void **state)
{
	static const char *const lbs[] = { "ops", "reps" };
	uint64_t c[2], f[2];
	struct outcome r;
	size_t l;

	(void)state;
	for (l = 0; l < 2; l++) {
		simulate(&r, "--profile", "reps-paper", "--nodes", "16", "--hosts-per-tor", "8",
			 "--pattern", "tornado", "--size", "32M", "--iters", "1", "--lb", lbs[l],
			 "--failure", "link-rate:0:tor0.up0:200:buffer=keep", NULL);
		assert_int_equal(r.ok, 16);
		c[l] = r.completion_ns;
		release(&r);
	}
	note("reps-paper Fig. 4: OPS %.1f us, REPS %.1f us (%.2fx; paper 1400 / 799, 1.75x)\n",
	     c[0] / 1e3, c[1] / 1e3, (double)c[0] / (double)c[1]);
	assert_true(c[0] * 2 >= c[1] * 3);
	for (l = 0; l < 2; l++) {
		simulate(&r, "--profile", "reps-paper", "--nodes", "128", "--pattern", "permutation",
			 "--size", "16M", "--iters", "1", "--seed", "1", "--lb", "reps",
			 "--reps-force-freeze-ns", l == 0 ? "0" : "50000", NULL);
		assert_int_equal(r.ok, 128);
		f[l] = r.fct_max_ns;
		release(&r);
	}
	note("reps-paper App. A: REPS %.1f us, forced to freeze at 50 us %.1f us (paper: +1%%)\n",
	     f[0] / 1e3, f[1] / 1e3);
	assert_true(f[1] * 100 <= f[0] * 103);
	/* Fig. 13 on the asymmetric fabric: in a symmetric permutation the
	 * sender's ACK request on every window fill (the reference's rule,
	 * --ar-every-fill) already returns an EV per packet whenever the
	 * window holds a flow back, and standard REPS keeps up with Carry
	 * (227.1 vs 227.8 us here); where one path is slow, the EVs a
	 * coalesced ACK drops are the good ones REPS needs. */
	for (l = 0; l < 2; l++) {
		simulate(&r, "--profile", "reps-paper", "--nodes", "128", "--pattern", "permutation",
			 "--size", "8M", "--iters", "1", "--seed", "1", "--lb", "reps", "--ack-every",
			 "65536", l == 0 ? "--ack-carry-evs=no" : "--ack-carry-evs", "--failure",
			 "link-rate:0:tor0.up0:200:buffer=keep", NULL);
		assert_int_equal(r.ok, 128);
		f[l] = r.fct_max_ns;
		release(&r);
	}
	note("reps-paper Fig. 13, an ACK per 16 packets, one uplink at half rate: REPS %.1f us, "
	     "ACK+Carry %.1f us\n",
	     f[0] / 1e3, f[1] / 1e3);
	assert_true(f[1] * 100 < f[0] * 90);
}

/* The least 20 us utilisation of any port of a series (the first bucket
 * and the last three, start-up and drain, left out as in Fig. 2) and the
 * deepest queue of any. */
static void
series_extremes(const json_t *series, double *util_min, uint64_t *queue_max)
{
	const json_t *p;
	size_t i, j;

	*util_min = 1e9;
	*queue_max = 0;
	assert_non_null(series);
	json_array_foreach(json_object_get(series, "ports"), i, p) {
		const json_t *u = json_object_get(p, "util"), *q = json_object_get(p, "queue_max_bytes");
		size_t n = json_array_size(u);

		assert_true(n > 6);
		for (j = 1; j + 3 < n; j++)
			if (json_real_value(json_array_get(u, j)) < *util_min)
				*util_min = json_real_value(json_array_get(u, j));
		for (j = 0; j < json_array_size(q); j++)
			if ((uint64_t)json_integer_value(json_array_get(q, j)) > *queue_max)
				*queue_max = (uint64_t)json_integer_value(json_array_get(q, j));
	}
}

/* 9. Fig. 2 and Fig. 8 under the paper's setup. */
static void
test_paper_micro_and_failures(void **state)
{
	static const char *const lbs[] = { "ops", "reps" };
	double done_us[2], util_min[2], fct[2][3];
	uint64_t queue_max[2];
	struct outcome r;
	size_t l, k;

	(void)state;
	/* Fig. 2: OPS's ports swing (the paper: +-15%), its queues reach past
	 * Kmax; REPS's stay busy and shallow, and it finishes sooner (the
	 * paper: about 4%). */
	for (l = 0; l < 2; l++) {
		simulate(&r, "--profile", "reps-paper", "--nodes", "16", "--hosts-per-tor", "8",
			 "--pattern", "tornado", "--size", "16M", "--iters", "1", "--seed", "1",
			 "--lb", lbs[l], "--port-series", "tor0.up0,tor0.up1,tor0.up2,tor0.up3,"
			 "tor0.up4,tor0.up5,tor0.up6,tor0.up7", "--series-us", "20", NULL);
		assert_int_equal(r.ok, 16);
		done_us[l] = (double)r.completion_ns / 1e3;
		series_extremes(r.series, &util_min[l], &queue_max[l]);
		release(&r);
	}
	note("reps-paper Fig. 2: OPS %.1f us, least 20 us utilisation %.3f, deepest uplink queue "
	     "%llu KiB; REPS %.1f us, %.3f, %llu KiB\n", done_us[0], util_min[0],
	     (unsigned long long)queue_max[0] / 1024, done_us[1], util_min[1],
	     (unsigned long long)queue_max[1] / 1024);
	assert_true(done_us[1] < 0.98 * done_us[0]);
	assert_true(util_min[0] < 0.85 && util_min[1] > 0.9);
	assert_true(queue_max[1] * 2 < queue_max[0]);
	/* Fig. 8: healthy, a spine of 4 dead from 100 us (routing never
	 * converges), bit errors on a quarter of the ToR uplinks. */
	for (l = 0; l < 2; l++)
		for (k = 0; k < 3; k++) {
			static const char *const fail[] = { NULL, "switch-down:100us:spine1",
							    "ber:100us:25%:tor-up:1e-5" };

			simulate(&r, "--profile", "reps-paper", "--nodes", "32", "--pattern",
				 "permutation", "--size", "8M", "--iters", "1", "--seed", "2", "--lb",
				 lbs[l], fail[k] ? "--failure" : NULL, fail[k], NULL);
			assert_int_equal(r.ok, 32);
			fct[l][k] = (double)r.fct_max_ns / 1e3;
			release(&r);
		}
	note("reps-paper Fig. 8, 32 hosts: OPS %.1f / %.1f / %.1f us, REPS %.1f / %.1f / %.1f us "
	     "(healthy / a spine down / bit errors)\n", fct[0][0], fct[0][1], fct[0][2], fct[1][0],
	     fct[1][1], fct[1][2]);
	assert_true(fct[1][1] < 2.5 * fct[1][0]);
	assert_true(fct[0][1] > 10 * fct[1][1]);
	assert_true(fct[0][2] > 2 * fct[1][2]);
}

/* 10. Lost ACKs under the profile, Fig. 8's cable and spine failures: the
 * profile as it is, and with each PSN reported once. */
static void
test_paper_lost_acks(void **state)
{
	static const char *const fail[] = { "link-down:100us:tor0.up0",
					    "switch-down:100us:spine1" };
	struct outcome r;
	uint64_t spur[2][2];
	double done_us[2][2];
	size_t k, rep;

	(void)state;
	for (k = 0; k < 2; k++)
		for (rep = 0; rep < 2; rep++) {
			simulate(&r, "--profile", "reps-paper", "--nodes", "32", "--pattern",
				 "permutation", "--size", "8M", "--iters", "1", "--seed", "1", "--lb",
				 "reps", "--failure", fail[k],
				 rep ? NULL : "--sack-repeat=no", NULL);
			assert_int_equal(r.ok, 32);
			spur[k][rep] = r.spurious;
			done_us[k][rep] = (double)r.completion_ns / 1e3;
			release(&r);
		}
	note("reps-paper, REPS, spurious resends once per PSN / repeated: a cable down %llu / "
	     "%llu (%.1f / %.1f us), a spine down %llu / %llu (%.1f / %.1f us)\n",
	     (unsigned long long)spur[0][0], (unsigned long long)spur[0][1], done_us[0][0],
	     done_us[0][1], (unsigned long long)spur[1][0], (unsigned long long)spur[1][1],
	     done_us[1][0], done_us[1][1]);
	for (k = 0; k < 2; k++) {
		assert_true(spur[k][0] >= 5);
		assert_true(spur[k][1] <= 1);
		assert_true(done_us[k][1] < 1.02 * done_us[k][0]);
	}
}

/* 11. The artifact's own micro-benchmark runs (tools/sim/paper_figures.py
 * --setup artifact, F4M_ARGS and F7M_ARGS there): hosts 0-3 send 32 MiB
 * each to 64-67 over the k = 8 fat tree, so ToR 0's 4 uplinks carry it
 * all. Fig. 4: one of them at half rate, which OPS fills as the others.
 * Fig. 7: what ToR 0 sends up uplink 1 (100-200 us) and uplink 3 (350-600
 * us) is lost. OPS keeps spraying a quarter of its packets into the dead
 * uplink and its window shrinks a packet per timeout; REPS stops after
 * one timeout. From 650 us the artifact regrows every window fast
 * (--mprdma-fast-increase-ns): without it OPS's window creeps back a
 * packet per RTT. */
static char artifact_cm[] = "/tmp/uet_trends_symm32_XXXXXX";

/* What the REPS artifact's scripts ran under the profile (paper_figures.py's
 * ARTIFACT_ALL): its topology files' latencies and its fixed 41.5 us RTO. */
#define ARTIFACT_SETTINGS "--profile", "reps-paper", "--link-latency-ns", "1000", \
	"--switch-latency-ns", "0", "--rto-ns", "41500"
static bool artifact_cm_made;

/* The matrix goes even when an assertion ends the test early. */
static int
artifact_cm_remove(void **state)
{
	(void)state;
	if (artifact_cm_made)
		unlink(artifact_cm);
	return 0;
}

static void
test_artifact_micro(void **state)
{
	static const char *const lbs[] = { "ops", "reps" };
	char *cm = artifact_cm;
	uint64_t f4[2], c[2][2], d[2] = { 0, 0 }, burst = 0;
	struct outcome r;
	FILE *f;
	int fd, fi, l;

	(void)state;
	fd = mkstemp(cm);
	assert_true(fd >= 0);
	artifact_cm_made = true;
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, "Nodes 128\nConnections 4\n");
	for (l = 0; l < 4; l++)
		fprintf(f, "%d->%d id %d start 0 size 33554432\n", l, 64 + l, l + 1);
	fclose(f);
	for (l = 0; l < 2; l++) {
		simulate(&r, ARTIFACT_SETTINGS, "--trim", "--nodes", "128", "--tiers", "3",
			 "--pattern", "cm", "--cm", cm, "--seed", "1", "--lb", lbs[l], "--failure",
			 "link-rate:0:tor0.up0:200:dir=up", "--failure",
			 "link-rate:0:agg0.up0:200:dir=down", NULL);
		assert_int_equal(r.ok, 4);
		f4[l] = r.completion_ns;
		release(&r);
	}
	note("artifact Fig. 4: OPS %.1f us, REPS %.1f us (%.2fx; paper 1400 / 799, 1.75x)\n",
	     f4[0] / 1e3, f4[1] / 1e3, (double)f4[0] / (double)f4[1]);
	assert_true(f4[0] * 2 >= f4[1] * 3);
	for (fi = 0; fi < 2; fi++)
		for (l = 0; l < 2; l++) {
			simulate(&r, ARTIFACT_SETTINGS, "--trim", "--nodes", "128", "--tiers", "3",
				 "--pattern", "cm", "--cm", cm, "--seed", "1", "--lb", lbs[l], "--reps-freeze-ns", "100000",
				 "--failure", "link-down:100us:tor0.up1:for=100us:dir=up",
				 "--failure", "link-down:350us:tor0.up3:for=250us:dir=up",
				 "--mprdma-fast-increase-ns", fi ? "650000" : "0", NULL);
			assert_int_equal(r.ok, 4);
			c[fi][l] = r.completion_ns;
			if (fi) {
				d[l] = r.drops_down;
				if (l == 1)
					burst = failure_burst_max(&r, 0);
			}
			release(&r);
		}
	note("artifact Fig. 7: OPS %.1f us, REPS %.1f us, %.1f%% sooner (paper: more than "
	     "35%%), drops %llu / %llu (%.1fx, paper 2.5x); REPS's longest first burst at the "
	     "first failure %.1f us; without the fast increase OPS %.1f us, REPS %.1f us\n",
	     c[1][0] / 1e3, c[1][1] / 1e3, 100.0 * (1 - (double)c[1][1] / (double)c[1][0]),
	     (unsigned long long)d[0], (unsigned long long)d[1], (double)d[0] / (double)d[1],
	     burst / 1e3, c[0][0] / 1e3, c[0][1] / 1e3);
	assert_true(c[1][1] * 4 <= c[1][0] * 3);
	assert_true(d[0] * 2 >= d[1] * 3);
	assert_true(burst <= 41500 * 11 / 10);
	assert_true(c[0][0] * 10 >= c[1][0] * 13);
}

/* The artifact's Fig. 8 (run_failures.py), at its size: 32 hosts, 8 MiB
 * permutation, the artifact's settings, no trimming. Its "5% failed
 * switches and cables" (a spine and 3 cables one way, from the start, for
 * good): REPS at least 20x sooner than OPS with at least 5x fewer drops,
 * and ahead of every other sender-side scheme; its 1% bit errors per cable
 * do not set REPS behind OPS by more than 15%. */
#define ART8_RUN "--ecn-kmin-pct", "25", "--ecn-kmax-pct", "75", "--nodes", "32", \
	"--pattern", "permutation", "--size", "8M", "--iters", "1", "--seed", "1"

static void
test_artifact_failure_modes(void **state)
{
	static const char *const lbs[] = { "ops", "plb", "mprdma", "bitmap", "flowlet", "reps" };
	uint64_t t[6], drops[6], ber[2];
	struct outcome r;
	int l;

	(void)state;
	for (l = 0; l < 6; l++) {
		simulate(&r, ARTIFACT_SETTINGS, ART8_RUN, "--lb", lbs[l], "--failure",
			 "random-down:0:25%:spine", "--failure", "random-down:0:9.375%:tor-up:dir=up",
			 NULL);
		assert_int_equal(r.ok, 32);
		t[l] = r.fct_max_ns;
		drops[l] = r.drops_down;
		release(&r);
	}
	for (l = 0; l < 2; l++) {
		simulate(&r, ARTIFACT_SETTINGS, ART8_RUN, "--lb", l ? "reps" : "ops", "--failure",
			 "ber:0:100%:host:2.993e-07", "--failure", "ber:0:100%:tor-up:2.993e-07", NULL);
		assert_int_equal(r.ok, 32);
		ber[l] = r.fct_max_ns;
		release(&r);
	}
	note("artifact Fig. 8, a spine and 3 cables: max FCT OPS %.1f, PLB %.1f, MPRDMA %.1f, "
	     "BitMap %.1f, Flowlet %.1f, REPS %.1f us (OPS / REPS %.0fx; drops at the failures "
	     "%llu / %llu); 1%% BER per cable: OPS %.1f, REPS %.1f us\n", t[0] / 1e3, t[1] / 1e3,
	     t[2] / 1e3, t[3] / 1e3, t[4] / 1e3, t[5] / 1e3, (double)t[0] / (double)t[5],
	     (unsigned long long)drops[0], (unsigned long long)drops[5], ber[0] / 1e3,
	     ber[1] / 1e3);
	assert_true(t[0] >= t[5] * 20);
	assert_true(drops[0] >= drops[5] * 5);
	for (l = 1; l < 5; l++)
		assert_true(t[l] > t[5]);
	assert_true(ber[1] * 100 <= ber[0] * 115);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symmetric),
		cmocka_unit_test(test_asymmetric),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_incast),
		cmocka_unit_test(test_ev_set),
		cmocka_unit_test(test_paper_baselines),
		cmocka_unit_test(test_mixed_ecmp),
		cmocka_unit_test(test_paper_setup_claims),
		cmocka_unit_test(test_paper_micro_and_failures),
		cmocka_unit_test(test_paper_lost_acks),
		cmocka_unit_test_teardown(test_artifact_micro, artifact_cm_remove),
		cmocka_unit_test(test_artifact_failure_modes),
	};

	return cmocka_run_group_tests_name("trends", tests, NULL, NULL);
}
