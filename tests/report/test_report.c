/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/report report.c: JSON round trip and determinism, JSON stream, CSV,
 * perftest / nccl-tests / summary tables, busbw factors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/report.h"
#include "uet/err.h"

#define START_NS 1000000000ULL
#define END_NS (START_NS + 250000) /* 2.5 bins of 100 us */

struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static void
mem_open(struct mem *mm)
{
	mm->buf = NULL;
	mm->len = 0;
	mm->f = open_memstream(&mm->buf, &mm->len);
	assert_non_null(mm->f);
}

static char *
mem_close(struct mem *mm)
{
	assert_int_equal(fclose(mm->f), 0);
	return mm->buf;
}

#define STARTS(s, lit) (strncmp((s), (lit), strlen(lit)) == 0)

/* Reals go through JSON with 12 significant digits. */
static void
assert_near(double got, double want)
{
	double d = got - want, tol = 1e-9 * (want < 0 ? -want : want);

	if (d < 0)
		d = -d;
	if (d > tol) {
		print_error("%.17g != %.17g\n", got, want);
		fail();
	}
}

static size_t
count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Pointer to the start of line i (0-based). */
static const char *
line_at(const char *s, size_t i)
{
	while (i-- > 0) {
		s = strchr(s, '\n');
		assert_non_null(s);
		s++;
	}
	return s;
}

/* The next scenario()'s endpoints spoke UET 1.0 only. */
static bool scenario_strict;

/* Ranks 0..3 all local (the simulator). Flows 0..3: 0->1 .. 3->0, 64 KiB,
 * FCT 10, 20, 30, 40 us (by receive); flow 4 pending. Bins of 100 us,
 * intervals of 100 us. retransmit seed varies one counter. */
static struct uet_meas *
scenario(uint64_t retx)
{
	static const struct uet_meas_flow flows[5] = {
		{ 0, 1, 65536, 0, 0 }, { 1, 2, 65536, 1, 0 },
		{ 2, 3, 65536, 0, 1 }, { 3, 0, 65536, 1, 1 },
		{ 0, 2, 65536, 2, 1 },
	};
	struct uet_meas_config c = {
		.flows = flows, .n_flows = 5, .n_ranks = 4, .ev_base = 49152,
		.ev_count = 8, .start_ns = START_NS, .interval_ns = 100000,
		.uet_strict = scenario_strict,
	};
	struct uet_ep_stats st;
	struct uet_meas *m;
	uint32_t i;

	assert_int_equal(uet_meas_create(&c, &m), 0);
	for (i = 0; i < 4; i++) {
		uint64_t t0 = START_NS + i * 1000;

		assert_int_equal(uet_meas_submit(m, i, t0), 0);
		assert_int_equal(uet_meas_recv_done(m, i, t0 + (i + 1) * 10000), 0);
		assert_int_equal(uet_meas_send_done(m, i, t0 + (i + 1) * 10000 + 500,
						    0), 0);
	}
	assert_int_equal(uet_meas_submit(m, 4, START_NS), 0);
	/* 1 MB received in bin 0, 0.5 MB in bin 1, 1000 B in bin 2. */
	assert_int_equal(uet_meas_rx_bytes(m, START_NS + 50000, 1000000), 0);
	assert_int_equal(uet_meas_rx_bytes(m, START_NS + 150000, 500000), 0);
	assert_int_equal(uet_meas_rx_bytes(m, START_NS + 210000, 1000), 0);
	assert_int_equal(uet_meas_tx_bytes(m, START_NS + 10, 2000000), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(uet_meas_ev_tx(m, 49152), 0);
	assert_int_equal(uet_meas_ev_ce(m, 49152), 0);
	assert_int_equal(uet_meas_ev_ce(m, 49152), 0);
	assert_int_equal(uet_meas_ev_tx(m, 49159), 0);
	assert_int_equal(uet_meas_ev_tx(m, 1), UET_ERR_INVAL);
	assert_int_equal(uet_meas_event(m, START_NS + 120000, "fail-ev",
					"ev 49153 blackholed"), 0);
	assert_int_equal(uet_meas_event(m, START_NS + 130000, "exec", "a,b"), 0);
	assert_int_equal(uet_meas_event(m, START_NS + 10, "x,\"y\"", NULL), 0);
	memset(&st, 0, sizeof(st));
	st.tx_retx_pkts = retx;
	st.rto_events = 2;
	st.rx_nack_pkts = 3;
	st.tx_probe_pkts = 4;
	st.pdcs_opened = 12;
	st.pdcs_closed = 11;
	st.pdcs_failed = 1;
	st.lb_freezes = 5;
	st.lb_thaws = 6;
	st.path_failures = 1;
	st.rx_dup_pkts = 10;
	st.rx_stale = 1;
	assert_int_equal(uet_meas_set_ep_stats(m, START_NS + 110000, &st), 0);
	uet_meas_verify(m, 4, 1);
	return m;
}

static json_t *
test_start_obj(void)
{
	json_t *t = json_pack("{s:s,s:i,s:s,s:s,s:i}", "pattern", "ring",
			      "hosts", 4, "lb", "reps", "cc", "nscc", "mtu", 4096);

	assert_non_null(t);
	return t;
}

static char *
full_json(uint64_t retx, const struct uet_report_info *info)
{
	struct uet_meas *m = scenario(retx);
	struct mem mm;

	mem_open(&mm);
	assert_int_equal(uet_report_write_json(mm.f, m, info, END_NS), 0);
	uet_meas_destroy(m);
	return mem_close(&mm);
}

/* The value at a dotted path ("end.flows.2.fct_ns"; numbers index arrays). */
static json_t *
jpath(json_t *root, const char *path)
{
	json_t *v = root;
	char buf[128], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		v = json_is_array(v) ? json_array_get(v, (size_t)atoi(tok))
				     : json_object_get(v, tok);
		assert_non_null(v);
	}
	return v;
}

static json_int_t
geti(json_t *root, const char *path)
{
	json_t *v = jpath(root, path);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

static double
getr(json_t *root, const char *path)
{
	json_t *v = jpath(root, path);

	assert_true(json_is_number(v));
	return json_number_value(v);
}

static const char *
getstr(json_t *root, const char *path)
{
	json_t *v = jpath(root, path);

	assert_true(json_is_string(v));
	return json_string_value(v);
}

static void
test_json_round_trip(void **state)
{
	struct uet_report_coll coll = { "allreduce", 4, 1 << 20, 100000 };
	json_t *ts = test_start_obj();
	struct uet_report_info info = {
		.version = "uet-sim 0.1.0", .timestamp = "2024-01-01T00:00:00Z",
		.timestamp_s = 1704067200, .test_start = ts, .coll = &coll,
	};
	json_error_t jerr;
	char *txt = full_json(7, &info);
	json_t *r = json_loads(txt, 0, &jerr), *a, *end;

	(void)state;
	assert_non_null(r);
	/* start */
	assert_string_equal(getstr(r, "start.version"), "uet-sim 0.1.0");
	assert_int_equal(geti(r, "start.schema_version"), UET_REPORT_SCHEMA_VERSION);
	assert_int_equal(geti(r, "start.timestamp.timesecs"), 1704067200);
	assert_int_equal(geti(r, "start.test_start.hosts"), 4);
	assert_int_equal(geti(r, "start.test_start.mtu"), 4096);
	assert_int_equal(geti(r, "start.test_start.bin_ns"), 100000);
	assert_int_equal(geti(r, "start.test_start.interval_ns"), 100000);
	assert_int_equal(geti(r, "start.test_start.ev_base"), 49152);
	assert_int_equal(geti(r, "start.test_start.ev_count"), 8);
	assert_int_equal(geti(r, "start.test_start.n_flows"), 5);
	assert_null(json_object_get(r, "error"));
	/* intervals: two full ones and a half one */
	a = json_object_get(r, "intervals");
	assert_int_equal(json_array_size(a), 3);
	assert_int_equal(geti(r, "intervals.0.bytes_rx"), 1000000);
	assert_int_equal(geti(r, "intervals.0.bytes_tx"), 2000000);
	assert_int_equal(geti(r, "intervals.1.bytes_rx"), 500000);
	assert_int_equal(geti(r, "intervals.1.retransmits"), 7);
	assert_int_equal(geti(r, "intervals.0.retransmits"), 0);
	assert_near(getr(r, "intervals.0.bits_per_second"), 8e10);
	assert_near(getr(r, "intervals.2.start_s"), 0.0002);
	assert_near(getr(r, "intervals.2.end_s"), 0.00025);
	assert_near(getr(r, "intervals.2.bits_per_second"), 1.6e8);
	/* end */
	end = json_object_get(r, "end");
	assert_int_equal(geti(end, "duration_ns"), 250000);
	assert_int_equal(geti(end, "completion_ns"), 3000 + 40000 + 500);
	assert_int_equal(geti(end, "bytes_rx"), 1501000);
	assert_int_equal(geti(end, "bytes_tx"), 2000000);
	assert_near(getr(end, "goodput_bps"), 1501000 * 8e9 / 43500);
	/* The senders' FCT (acknowledged, 500 ns after the last byte
	 * arrived) and the receivers', apart. */
	assert_int_equal(geti(end, "fct.count"), 4);
	assert_int_equal(geti(end, "fct.min_ns"), 10500);
	assert_int_equal(geti(end, "fct.mean_ns"), 25500);
	assert_int_equal(geti(end, "fct.p50_ns"), 20500);
	assert_int_equal(geti(end, "fct.p99_ns"), 40500);
	assert_int_equal(geti(end, "fct.p999_ns"), 40500);
	assert_int_equal(geti(end, "fct.max_ns"), 40500);
	assert_int_equal(geti(end, "fct_recv.count"), 4);
	assert_int_equal(geti(end, "fct_recv.min_ns"), 10000);
	assert_int_equal(geti(end, "fct_recv.p50_ns"), 20000);
	assert_int_equal(geti(end, "fct_recv.max_ns"), 40000);
	assert_int_equal(geti(end, "flow_counts.ok"), 4);
	assert_int_equal(geti(end, "flow_counts.pending"), 1);
	assert_int_equal(geti(end, "flow_counts.remote"), 0);
	assert_int_equal(json_array_size(json_object_get(end, "flows")), 5);
	assert_int_equal(geti(end, "flows.2.fct_ns"), 30500);
	assert_int_equal(geti(end, "flows.2.fct_recv_ns"), 30000);
	assert_int_equal(geti(end, "flows.2.submit_ns"), 2000);
	assert_int_equal(geti(end, "flows.2.recv_done_ns"), 32000);
	assert_int_equal(geti(end, "flows.2.step"), 1);
	assert_string_equal(getstr(end, "flows.4.status"), "pending");
	assert_true(json_is_null(jpath(end, "flows.4.fct_ns")));
	assert_true(json_is_null(jpath(end, "flows.4.fct_recv_ns")));
	assert_int_equal(geti(end, "timeline.bin_ns"), 100000);
	assert_int_equal(json_array_size(json_object_get(json_object_get(end,
		"timeline"), "rx_bytes")), 3);
	assert_int_equal(geti(end, "timeline.rx_bytes.1"), 500000);
	assert_int_equal(geti(end, "timeline.retx_pkts.1"), 7);
	/* evs: only the two EVs used */
	assert_int_equal(json_array_size(json_object_get(end, "evs")), 2);
	assert_int_equal(geti(end, "evs.0.ev"), 49152);
	assert_int_equal(geti(end, "evs.0.tx_pkts"), 8);
	assert_int_equal(geti(end, "evs.0.ce_acks"), 2);
	assert_near(getr(end, "evs.0.ce_fraction"), 0.25);
	assert_int_equal(geti(end, "evs.1.ev"), 49159);
	assert_near(getr(end, "evs.1.ce_fraction"), 0.0);
	assert_int_equal(geti(end, "transport.tx_retx_pkts"), 7);
	assert_int_equal(geti(end, "transport.rto_events"), 2);
	assert_int_equal(geti(end, "transport.lb_freezes"), 5);
	/* duplicates are not discards */
	assert_int_equal(geti(end, "transport.rx_discard_pkts"), 1);
	assert_int_equal(geti(end, "transport.rx_dup_pkts"), 10);
	assert_int_equal(geti(end, "transport.tx_window_waits"), 0);
	assert_int_equal(geti(end, "transport.credit_granted_bytes"), 0);
	assert_int_equal(geti(end, "transport.credit_idle_bytes"), 0);
	assert_int_equal(json_object_size(json_object_get(end, "transport")), 65);
	/* which of libuet's wire extensions were sent: none here */
	assert_true(json_is_false(jpath(end, "wire.uet_strict")));
	assert_int_equal(geti(end, "wire.extensions.dup_acks"), 0);
	assert_int_equal(geti(end, "wire.extensions.carry_ev_acks"), 0);
	assert_int_equal(geti(end, "wire.extensions.credit_pkts"), 0);
	/* losses: each cause apart; the network's unknown here */
	assert_true(json_is_null(jpath(end, "losses.network_drops")));
	/* no NICs here either (uet-perf sets them; test_summary_block) */
	assert_true(json_is_null(jpath(end, "nic")));
	assert_true(json_is_null(jpath(end, "losses.trims")));
	assert_int_equal(geti(end, "losses.retransmissions"), 7);
	assert_int_equal(geti(end, "losses.duplicates_discarded"), 10);
	assert_int_equal(geti(end, "losses.other_discarded"), 1);
	assert_int_equal(geti(end, "losses.spurious_retx"), 0);
	assert_int_equal(geti(end, "losses.declared.nack"), 0);
	assert_int_equal(json_array_size(json_object_get(end, "events")), 3);
	/* In time order: the last added is the earliest. */
	assert_string_equal(getstr(end, "events.0.kind"), "x,\"y\"");
	assert_int_equal(geti(end, "events.0.t_ns"), 10);
	assert_string_equal(getstr(end, "events.1.kind"), "fail-ev");
	assert_int_equal(geti(end, "events.1.t_ns"), 120000);
	assert_int_equal(geti(end, "verify.checked_msgs"), 4);
	assert_int_equal(geti(end, "verify.bad_msgs"), 1);
	assert_int_equal(geti(end, "bad_input.ev"), 1);
	assert_int_equal(geti(end, "bad_input.flow"), 0);
	/* 1 MiB in 100 us: 10.48576 GB/s, x 2*3/4 */
	assert_near(getr(end, "collective.algbw_GBps"), 1048576.0 / 100000);
	assert_near(getr(end, "collective.busbw_GBps"), 1048576.0 / 100000 * 1.5);
	assert_near(getr(end, "collective.time_us"), 100.0);
	assert_int_equal(geti(end, "collective.wrong"), 1);
	json_decref(r);
	free(txt);

	/* Options: no flows, no timeline arrays, an error. */
	info.no_flows = info.no_timeline = true;
	info.coll = NULL;
	info.error = "peer vanished";
	txt = full_json(7, &info);
	r = json_loads(txt, 0, &jerr);
	assert_non_null(r);
	end = json_object_get(r, "end");
	assert_null(json_object_get(end, "flows"));
	assert_null(json_object_get(end, "collective"));
	assert_int_equal(json_array_size(json_object_get(json_object_get(end,
		"timeline"), "rx_bytes")), 0);
	assert_string_equal(getstr(r, "error"), "peer vanished");
	json_decref(r);
	free(txt);
	json_decref(ts);
}

/* end.latency and perftest's latency table, from a ping-pong of two round
 * trips (1000 and 3000 ns). */
static void
test_latency(void **state)
{
	struct uet_meas_flow flows[4];
	struct uet_meas_config c = { .flows = flows, .n_flows = 4, .ev_base = 1, .ev_count = 1,
				     .start_ns = START_NS };
	uint32_t ping[2] = { 0, 2 }, pong[2] = { 1, 3 }, i;
	struct uet_report_info info = { .version = "v" };
	struct uet_meas_rtt rtt;
	struct uet_meas *m = NULL;
	json_t *r, *lat, *e;
	json_error_t jerr;
	struct mem mm;
	double v[9];
	char *txt;

	(void)state;
	for (i = 0; i < 4; i++)
		flows[i] = (struct uet_meas_flow){ .src = i % 2, .dst = 1 - i % 2,
						   .size_bytes = 64, .step = i % 2 };
	assert_int_equal(uet_meas_create(&c, &m), 0);
	for (i = 0; i < 4; i++) {
		uint64_t go = START_NS + 10000 * (i / 2), half = i < 2 ? 500 : 1500;

		assert_int_equal(uet_meas_submit(m, i, go + (i % 2) * half), 0);
		assert_int_equal(uet_meas_recv_done(m, i, go + (i % 2 + 1) * half), 0);
		assert_int_equal(uet_meas_send_done(m, i, go + 4000, 0), 0);
	}
	assert_int_equal(uet_meas_rtt(m, ping, pong, 2, &rtt), 0);
	info.rtt = &rtt;
	mem_open(&mm);
	assert_int_equal(uet_report_write_json(mm.f, m, &info, START_NS + 20000), 0);
	txt = mem_close(&mm);
	r = json_loads(txt, 0, &jerr);
	assert_non_null(r);
	lat = json_object_get(json_object_get(r, "end"), "latency");
	assert_int_equal(json_integer_value(json_object_get(lat, "round_trips")), 2);
	assert_int_equal(json_integer_value(json_object_get(lat, "one_way_p50_ns")), 500);
	assert_int_equal(json_integer_value(json_object_get(lat, "one_way_mean_ns")), 1000);
	e = json_object_get(lat, "rtt");
	assert_int_equal(json_object_size(e), 9);
	assert_int_equal(json_integer_value(json_object_get(e, "min_ns")), 1000);
	assert_int_equal(json_integer_value(json_object_get(e, "max_ns")), 3000);
	assert_int_equal(json_integer_value(json_object_get(e, "stdev_ns")), 1414);
	/* The CDF of the two round trips: [percent, ns] at each point. */
	e = json_object_get(e, "cdf");
	assert_int_equal(json_array_size(e), UET_MEAS_CDF_POINTS);
	assert_true(json_real_value(json_array_get(json_array_get(e, 50), 0)) == 50.0);
	assert_int_equal(json_integer_value(json_array_get(json_array_get(e, 50), 1)), 1000);
	assert_int_equal(json_integer_value(json_array_get(json_array_get(e, 51), 1)), 3000);
	assert_true(json_real_value(json_array_get(json_array_get(e, 102), 0)) == 99.99);
	assert_true(json_real_value(json_array_get(json_array_get(e, 103), 0)) == 100.0);
	assert_int_equal(json_integer_value(json_array_get(json_array_get(e, 103), 1)), 3000);
	json_decref(r);
	free(txt);
	/* Without a ping-pong there is no latency object. */
	info.rtt = NULL;
	mem_open(&mm);
	assert_int_equal(uet_report_write_json(mm.f, m, &info, START_NS + 20000), 0);
	txt = mem_close(&mm);
	assert_null(strstr(txt, "\"latency\""));
	free(txt);

	mem_open(&mm);
	assert_int_equal(uet_report_lat_header(mm.f), 0);
	assert_int_equal(uet_report_lat_row(mm.f, 64, &rtt), 0);
	assert_int_equal(uet_report_perftest_footer(mm.f), 0);
	txt = mem_close(&mm);
	assert_int_equal(count_lines(txt), 4);
	assert_non_null(strstr(line_at(txt, 1), " #bytes #iterations    t_min[usec]"));
	/* Half of each round trip, in us: min 0.5, max 1.5, typical (p50)
	 * 0.5, average 1.0, stdev 0.707, p99 and p99.9 1.5. */
	assert_int_equal(sscanf(line_at(txt, 2), "%lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0],
				&v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]), 9);
	assert_near(v[0], 64);
	assert_near(v[1], 2);
	assert_near(v[2], 0.5);
	assert_near(v[3], 1.5);
	assert_near(v[4], 0.5);
	assert_near(v[5], 1.0);
	assert_near(v[6], 0.707);
	assert_near(v[7], 1.5);
	assert_near(v[8], 1.5);
	free(txt);
	assert_int_equal(uet_report_lat_row(NULL, 64, &rtt), UET_ERR_INVAL);
	assert_int_equal(uet_report_lat_row(stdout, 64, NULL), UET_ERR_INVAL);
	uet_meas_destroy(m);
}

static void
test_json_deterministic(void **state)
{
	json_t *ts = test_start_obj();
	struct uet_report_info info = { .version = "v", .test_start = ts };
	char *a = full_json(7, &info), *b = full_json(7, &info);
	char *c = full_json(8, &info);

	(void)state;
	assert_true(strlen(a) > 1000);
	assert_string_equal(a, b);
	assert_true(strcmp(a, c) != 0); /* the comparison can fail */
	free(a);
	free(b);
	free(c);
	json_decref(ts);
}

static void
test_json_stream(void **state)
{
	struct uet_meas *m = scenario(7);
	struct uet_report_stream s = { 0 };
	const char *want[] = { "start", "interval", "interval", "interval",
			       "end", "error" };
	struct mem mm;
	char *txt, *line, *save = NULL;
	size_t n = 0;

	(void)state;
	mem_open(&mm);
	s.f = mm.f;
	assert_int_equal(uet_report_stream_start(&s, m, NULL), 0);
	assert_int_equal(uet_report_stream_intervals(&s, m, START_NS + 99999), 0);
	assert_int_equal(uet_report_stream_intervals(&s, m, START_NS + 100000), 1);
	assert_int_equal(uet_report_stream_intervals(&s, m, START_NS + 100000), 0);
	assert_int_equal(uet_report_stream_intervals(&s, m, START_NS + 200001), 1);
	assert_int_equal(uet_report_stream_end(&s, m, NULL, END_NS), 0);
	assert_int_equal(uet_report_stream_error(&s, "bye"), 0);
	assert_int_equal(uet_report_stream_intervals(NULL, m, 0), UET_ERR_INVAL);
	txt = mem_close(&mm);
	assert_int_equal(count_lines(txt), 6);
	for (line = strtok_r(txt, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++) {
		json_error_t jerr;
		json_t *o = json_loads(line, 0, &jerr);

		assert_non_null(o);
		assert_string_equal(getstr(o, "event"), want[n]);
		assert_non_null(json_object_get(o, "data"));
		if (n == 3) /* the partial interval, written by end */
			assert_int_equal(geti(o, "data.bytes_rx"), 1000);
		if (n == 4)
			assert_int_equal(geti(o, "data.fct.p50_ns"), 20500);
		if (n == 5)
			assert_string_equal(getstr(o, "data"), "bye");
		json_decref(o);
	}
	assert_int_equal(n, 6);
	free(txt);
	uet_meas_destroy(m);
}

/* How many intervals a report shows at end_ns. */
static size_t
shown(const struct uet_meas *m, uint64_t end_ns)
{
	json_t *r = uet_report_json(m, NULL, end_ns);
	size_t n;

	assert_non_null(r);
	n = json_array_size(json_object_get(r, "intervals"));
	json_decref(r);
	return n;
}

/* A report's last, partial interval is left out, as iperf3 does, when it
 * is shorter than a tenth of an interval (100 us here) and counted
 * nothing: the scenario's last bytes came at 210 us. */
static void
test_short_empty_tail_interval(void **state)
{
	struct uet_meas *m = scenario(7);

	(void)state;
	assert_int_equal(shown(m, START_NS + 300000), 3);
	assert_int_equal(shown(m, START_NS + 300029), 3);
	assert_int_equal(shown(m, START_NS + 309999), 3);
	assert_int_equal(shown(m, START_NS + 310000), 4);  /* a tenth: kept */
	assert_int_equal(shown(m, START_NS + 250000), 3);  /* cut, not empty */
	assert_int_equal(uet_meas_rx_bytes(m, START_NS + 300010, 1), 0);
	assert_int_equal(shown(m, START_NS + 300029), 4);  /* short, not empty */
	uet_meas_destroy(m);
}

static void
test_csv_timeline(void **state)
{
	struct uet_meas *m = scenario(7);
	unsigned long long rx, tx;
	double rxg, txg;
	char ev[64];
	struct mem mm;
	char *txt;

	(void)state;
	mem_open(&mm);
	/* The run lasted 4 bins (past the last sample). */
	assert_int_equal(uet_report_csv_timeline(mm.f, m, START_NS + 350000), 0);
	txt = mem_close(&mm);
	assert_int_equal(count_lines(txt), 1 + 4);
	assert_true(STARTS(txt, "bin_start_us,rx_bytes,tx_bytes,rx_gbps,tx_gbps,event\n"));
	/* Bin 0: the quoted kind with a comma and quotes. */
	assert_int_equal(sscanf(line_at(txt, 1), "0.000,%llu,%llu,%lf,%lf,",
				&rx, &tx, &rxg, &txg), 4);
	assert_int_equal(rx, 1000000);
	assert_int_equal(tx, 2000000);
	assert_true(rxg == 80.0);
	assert_true(txg == 160.0);
	assert_true(STARTS(strstr(line_at(txt, 1), "160.000000,"),
			   "160.000000,\"x,\"\"y\"\"\"\n"));
	/* Bin 1: two events in order. */
	assert_int_equal(sscanf(line_at(txt, 2), "100.000,%llu,%llu,%lf,%lf,%63s",
				&rx, &tx, &rxg, &txg, ev), 5);
	assert_int_equal(rx, 500000);
	assert_true(rxg == 40.0);
	assert_string_equal(ev, "fail-ev;exec");
	assert_true(STARTS(line_at(txt, 4), "300.000,0,0,0.000000,0.000000,\n"));
	free(txt);
	uet_meas_destroy(m);
}

static void
test_csv_flows(void **state)
{
	bool local[3] = { true, false, false };
	struct uet_meas_flow flows[3] = {
		{ 0, 1, 4096, 3, 9 }, { 1, 2, 1, 0, 0 }, { 2, 0, 2, 0, 0 },
	};
	struct uet_meas_config c = {
		.flows = flows, .n_flows = 3, .rank_local = local, .n_ranks = 3,
		.start_ns = 1000,
	};
	unsigned id, src, dst, stream, step;
	unsigned long long size;
	char rest[128];
	struct uet_meas *m;
	struct mem mm;
	char *txt;

	(void)state;
	assert_int_equal(uet_meas_create(&c, &m), 0);
	assert_int_equal(uet_meas_submit(m, 0, 1500), 0);
	assert_int_equal(uet_meas_send_done(m, 0, 13750, 0), 0);
	assert_int_equal(uet_meas_recv_done(m, 2, 900), 0);
	mem_open(&mm);
	assert_int_equal(uet_report_csv_flows(mm.f, m), 0);
	txt = mem_close(&mm);
	/* The remote flow 1 is not listed. */
	assert_int_equal(count_lines(txt), 1 + 2);
	assert_true(STARTS(txt, "id,src,dst,stream,step,size_bytes,submit_us,"
			   "send_done_us,recv_done_us,fct_us,fct_recv_us,status,msgs_acked,"
			   "msgs_received\n"));
	assert_int_equal(sscanf(line_at(txt, 1), "%u,%u,%u,%u,%u,%llu,%127s",
				&id, &src, &dst, &stream, &step, &size, rest), 7);
	assert_int_equal(id, 0);
	assert_int_equal(dst, 1);
	assert_int_equal(stream, 3);
	assert_int_equal(step, 9);
	assert_int_equal(size, 4096);
	assert_string_equal(rest, "0.500,12.750,,12.250,,ok,1,0");
	/* Received before the start: a negative relative time, no FCT. */
	assert_true(STARTS(line_at(txt, 2), "2,2,0,0,0,2,,,-0.100,,,ok,0,1\n"));
	free(txt);
	uet_meas_destroy(m);
}

static void
test_busbw_factor_and_coll_row(void **state)
{
	struct uet_report_coll c = { "allreduce", 4, 1073741824, 10000000 };
	unsigned long long size, wrong;
	double t, alg, bus;
	struct mem mm;
	char *txt;

	(void)state;
	assert_true(uet_report_busbw_factor("allreduce", 8) == 1.75);
	assert_true(uet_report_busbw_factor("allreduce", 1) == 0.0);
	assert_true(uet_report_busbw_factor("allgather", 4) == 0.75);
	assert_true(uet_report_busbw_factor("reducescatter", 4) == 0.75);
	assert_true(uet_report_busbw_factor("alltoall", 2) == 0.5);
	assert_true(uet_report_busbw_factor("broadcast", 16) == 1.0);
	assert_true(uet_report_busbw_factor("sendrecv", 16) == 1.0);
	assert_true(uet_report_busbw_factor("nonsense", 4) < 0);
	assert_true(uet_report_busbw_factor(NULL, 4) < 0);
	assert_true(uet_report_busbw_factor("allreduce", 0) < 0);

	mem_open(&mm);
	assert_int_equal(uet_report_coll_header(mm.f), 0);
	assert_int_equal(uet_report_coll_row(mm.f, &c, 3), 0);
	txt = mem_close(&mm);
	assert_int_equal(count_lines(txt), 3);
	assert_non_null(strstr(txt, "algbw"));
	assert_non_null(strstr(txt, "#wrong"));
	assert_int_equal(sscanf(line_at(txt, 2), "%llu %lf %lf %lf %llu", &size,
				&t, &alg, &bus, &wrong), 5);
	assert_int_equal(size, 1073741824);
	assert_true(t == 10000.0);
	assert_true(alg == 107.37);   /* 1073741824 B / 10 ms = 107.374 GB/s */
	assert_true(bus == 161.06);   /* x 2 * 3 / 4 */
	assert_int_equal(wrong, 3);
	free(txt);
}

static void
test_perftest_table(void **state)
{
	struct uet_meas *m = scenario(7);
	unsigned long long bytes, iters;
	double peak, avg, mpps, p50, p99, p999, max;
	struct mem mm;
	char *txt;

	(void)state;
	mem_open(&mm);
	assert_int_equal(uet_report_perftest(mm.f, m), 0);
	txt = mem_close(&mm);
	assert_int_equal(count_lines(txt), 4);
	assert_true(STARTS(line_at(txt, 1), " #bytes     #iterations    BW peak[Gb/sec]"
			   "    BW average[Gb/sec]   MsgRate[Mpps]"));
	assert_int_equal(sscanf(line_at(txt, 2), "%llu %llu %lf %lf %lf %lf %lf %lf %lf",
				&bytes, &iters, &peak, &avg, &mpps, &p50, &p99,
				&p999, &max), 9);
	assert_int_equal(bytes, 65536);
	assert_int_equal(iters, 4);
	assert_true(peak == 80.0);  /* 1 MB in a 100 us bin */
	assert_true(avg == 48.21);  /* 4 x 65536 B x 8 / 43.5 us */
	assert_true(mpps == 0.091954); /* 4 / 43.5 us */
	/* the senders' FCT */
	assert_true(p50 == 20.5);
	assert_true(p99 == 40.5);
	assert_true(p999 == 40.5);
	assert_true(max == 40.5);
	free(txt);
	uet_meas_destroy(m);
}

/* A duration run's streams: per-flow message counts in JSON, the perftest
 * row counts messages, the summary names streams. */
static void
test_stream_report(void **state)
{
	const struct uet_meas_flow flows[1] = { { .src = 0, .dst = 1, .size_bytes = 1000 } };
	const bool local[2] = { true, true };
	struct uet_meas_config c = {
		.flows = flows, .n_flows = 1, .rank_local = local, .n_ranks = 2,
		.ev_base = 1000, .ev_count = 4, .start_ns = 0, .bin_ns = 100000, .repeat = true,
	};
	unsigned long long bytes, iters;
	json_error_t jerr;
	struct uet_meas *m;
	struct mem mm;
	json_t *r, *f0;
	char *txt;
	int i;

	(void)state;
	assert_int_equal(uet_meas_create(&c, &m), 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(uet_meas_msg_acked(m, 0, (uint64_t)i * 1000,
						    (uint64_t)i * 1000 + 800, 0), 0);
		assert_int_equal(uet_meas_msg_received(m, 0, (uint64_t)i * 1000 + 700), 0);
	}
	mem_open(&mm);
	assert_int_equal(uet_report_write_json(mm.f, m, NULL, 10000), 0);
	txt = mem_close(&mm);
	r = json_loads(txt, 0, &jerr);
	assert_non_null(r);
	f0 = json_array_get(json_object_get(json_object_get(r, "end"), "flows"), 0);
	assert_int_equal(json_integer_value(json_object_get(f0, "msgs_acked")), 5);
	assert_int_equal(json_integer_value(json_object_get(f0, "msgs_received")), 5);
	assert_int_equal(json_integer_value(json_object_get(f0, "bytes_acked")), 5000);
	assert_string_equal(json_string_value(json_object_get(f0, "status")), "ok");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
				 json_object_get(r, "end"), "flow_counts"), "messages")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
				 json_object_get(r, "end"), "fct"), "p50_ns")), 800);
	json_decref(r);
	free(txt);

	mem_open(&mm);
	assert_int_equal(uet_report_perftest_header(mm.f), 0);
	assert_int_equal(uet_report_perftest_row(mm.f, m), 0);
	assert_int_equal(uet_report_perftest_row(mm.f, m), 0);
	assert_int_equal(uet_report_perftest_footer(mm.f), 0);
	txt = mem_close(&mm);
	assert_int_equal(count_lines(txt), 5); /* line, header, 2 rows, line */
	assert_int_equal(sscanf(line_at(txt, 3), "%llu %llu", &bytes, &iters), 2);
	assert_int_equal(bytes, 1000);
	assert_int_equal(iters, 5);
	free(txt);

	mem_open(&mm);
	assert_int_equal(uet_report_summary(mm.f, m, 10000), 0);
	txt = mem_close(&mm);
	assert_true(STARTS(txt, "streams          1 local: 1 ok, 0 failed, 0 idle; 5 messages "
			   "(5000 B) done\n"));
	free(txt);
	uet_meas_destroy(m);
}

static void
test_summary_block(void **state)
{
	struct uet_meas *m = scenario(7);
	struct uet_meas_nic nic = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 };
	struct mem mm;
	char *txt;

	(void)state;
	uet_meas_set_nic(m, &nic);
	mem_open(&mm);
	assert_int_equal(uet_report_summary(mm.f, m, END_NS), 0);
	txt = mem_close(&mm);
	assert_int_equal(count_lines(txt), 20);
	assert_non_null(strstr(txt, "wire             no libuet extension sent\n"));
	assert_non_null(strstr(txt, "checksums        11 frames filled and 12 verified by the "
				    "ports (offload); 13 summed as their payload was copied in\n"));
	assert_non_null(strstr(txt, "NICs             1 waits for a full TX queue, 2 fail-EV hook, 3 no "
				    "neighbour, 4 waits for mbufs; 5 bad checksums, 6 not ours "
				    "received\n"));
	/* The lcores fell behind: said so, with what showed it. */
	assert_non_null(strstr(txt, "lcores           COULD NOT KEEP UP (more lcores, -l, or "
				    "fewer endpoints each): 7 RX ring overflows, 8 receives "
				    "without an mbuf, 9 frames dropped at a full inbox, 10 polls "
				    "late\n"));
	assert_non_null(strstr(txt, "flows            5 local: 4 ok (262144 B), "
				    "0 failed, 1 pending\n"));
	assert_non_null(strstr(txt, "completion       43.500 us\n"));
	/* The sender's FCT, and the receiver's, each saying which it is. */
	assert_non_null(strstr(txt, "FCT [usec]       n 4  min 10.500  mean 25.500  "
				    "p50 20.500  p99 40.500  p99.9 40.500  max 40.500  "
				    "(sender: submit to fully acknowledged)\n"));
	assert_non_null(strstr(txt, "FCT recv [usec]  n 4  min 10.000  mean 25.000  "
				    "p50 20.000  p99 40.000  p99.9 40.000  max 40.000  "
				    "(receiver: submit to last byte)\n"));
	assert_non_null(strstr(txt, "retransmits      7 pkts; lost: 0 by NACK, 0 by "
				    "reordering, 0 by probe, 0 by timeout\n"));
	assert_non_null(strstr(txt, "spurious         0 retransmissions, 0 losses caught "
				    "before the resend, 0 RTOs; 0 window cuts undone\n"));
	assert_non_null(strstr(txt, "timeouts         2 RTO events, 0 put off after a stall of "
				    "the poller\n"));
	assert_non_null(strstr(txt, "NACKs            3 received\n"));
	assert_non_null(strstr(txt, "probes           4 sent\n"));
	assert_non_null(strstr(txt, "PDCs             12 opened, 11 closed, 1 failed\n"));
	assert_non_null(strstr(txt, "freezes          5 (thaws 6, path failures 1)\n"));
	/* Duplicates apart from other discards; the network is not seen. */
	assert_non_null(strstr(txt, "network          drops and trims not visible here"));
	assert_non_null(strstr(txt, "receivers        10 duplicates discarded, 1 other packets "
				    "discarded"));
	assert_non_null(strstr(txt, "events           3 on the timeline\n"));
	assert_non_null(strstr(txt, "verify           4 checked, 1 bad\n"));
	/* No credit CC ran: no credit line. */
	assert_null(strstr(txt, "credit "));
	free(txt);

	/* One did: its line, after the freezes. */
	{
		struct uet_ep_stats st = *uet_meas_ep_stats(m);

		st.tx_credit_pkts = 60;
		st.credit_granted_bytes = 988176;
		st.credit_idle_bytes = 75000;
		st.rx_credit_pkts = 58;
		st.tx_credit_req_pkts = 3;
		st.credit_retries = 1;
		st.rx_credit_req_pkts = 2;
		st.tx_dup_acks = 9;
		assert_int_equal(uet_meas_set_ep_stats(m, START_NS + 120000, &st), 0);
	}
	mem_open(&mm);
	assert_int_equal(uet_report_summary(mm.f, m, END_NS), 0);
	txt = mem_close(&mm);
	assert_int_equal(count_lines(txt), 21);
	assert_non_null(strstr(txt, "wire             libuet extensions: DUP flag in 9 ACKs, EV "
				    "trailer in 0 ACKs, 63 CREDIT_REQ/CREDIT\n"));
	assert_non_null(strstr(txt, "freezes          5 (thaws 6, path failures 1)\n"
				    "credit           60 CREDITs granting 988176 B sent (75000 B "
				    "ahead to idle senders), 58 received; 3 requests sent (1 "
				    "repeated), 2 received\n"));
	free(txt);
	uet_meas_destroy(m);

	/* A strict run says so, and what its spurious count can see. */
	scenario_strict = true;
	m = scenario(7);
	scenario_strict = false;
	mem_open(&mm);
	assert_int_equal(uet_report_summary(mm.f, m, END_NS), 0);
	txt = mem_close(&mm);
	assert_non_null(strstr(txt, "wire             UET 1.0 only (--uet-strict): no libuet "
				    "extension sent; spurious resends seen by the RETX echo "
				    "alone (a lower bound)\n"));
	free(txt);
	uet_meas_destroy(m);
}

static void
test_null_arguments(void **state)
{
	struct uet_meas *m = scenario(1);

	(void)state;
	assert_int_equal(uet_report_write_json(NULL, m, NULL, END_NS), UET_ERR_INVAL);
	assert_int_equal(uet_report_write_json(stdout, NULL, NULL, END_NS),
			 UET_ERR_INVAL);
	assert_null(uet_report_json(NULL, NULL, 0));
	assert_int_equal(uet_report_csv_flows(NULL, m), UET_ERR_INVAL);
	assert_int_equal(uet_report_csv_timeline(NULL, m, 0), UET_ERR_INVAL);
	assert_int_equal(uet_report_perftest(NULL, m), UET_ERR_INVAL);
	assert_int_equal(uet_report_summary(NULL, m, 0), UET_ERR_INVAL);
	assert_int_equal(uet_report_coll_row(NULL, NULL, 0), UET_ERR_INVAL);
	assert_int_equal(uet_report_stream_error(NULL, "x"), UET_ERR_INVAL);
	uet_meas_destroy(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_deterministic),
		cmocka_unit_test(test_json_stream),
		cmocka_unit_test(test_short_empty_tail_interval),
		cmocka_unit_test(test_csv_timeline),
		cmocka_unit_test(test_csv_flows),
		cmocka_unit_test(test_busbw_factor_and_coll_row),
		cmocka_unit_test(test_perftest_table),
		cmocka_unit_test(test_summary_block),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_stream_report),
		cmocka_unit_test(test_null_arguments),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
