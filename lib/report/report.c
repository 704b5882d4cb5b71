/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reports of a struct uet_meas (report.h; the schema is doc/report.md):
 * iperf3-like JSON and JSON stream, CSV, perftest and nccl-tests tables.
 *
 * Determinism: objects are built in a fixed insertion order, times are
 * relative to the run start, integers stay integers, and reals are printed
 * with a fixed precision, so the same measurement gives the same bytes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "uet/err.h"

#define REAL_FLAGS JSON_REAL_PRECISION(12)
#define JSON_FULL_FLAGS (JSON_INDENT(2) | REAL_FLAGS)
#define JSON_LINE_FLAGS (JSON_COMPACT | REAL_FLAGS)

static const char *const status_name[] = {
	[UET_MEAS_REMOTE] = "remote",
	[UET_MEAS_PENDING] = "pending",
	[UET_MEAS_OK] = "ok",
	[UET_MEAS_FAILED] = "failed",
};

static json_t *
jint(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* A time relative to the run start (may be negative), null if unknown. */
static json_t *
jrel(const struct uet_meas *m, uint64_t ns)
{
	if (ns == UET_MEAS_NO_TIME)
		return json_null();
	return json_integer((json_int_t)(ns - uet_meas_config(m)->start_ns));
}

/* bytes over ns, as bits per second; 0 for an empty period. */
static double
bps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8e9 / (double)ns : 0.0;
}

static int
put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v);
}

static json_t *
start_json(const struct uet_meas *m, const struct uet_report_info *info)
{
	const struct uet_meas_config *c = uet_meas_config(m);
	json_t *ts, *st;
	int err = 0;

	st = info && info->test_start ? json_deep_copy(info->test_start)
				      : json_object();
	if (st == NULL || !json_is_object(st)) {
		json_decref(st);
		return NULL;
	}
	err |= put(st, "n_flows", jint(c->n_flows));
	err |= put(st, "n_ranks", jint(c->n_ranks));
	err |= put(st, "ev_base", jint(c->ev_base));
	err |= put(st, "ev_count", jint(c->ev_count));
	err |= put(st, "bin_ns", jint(c->bin_ns));
	err |= put(st, "interval_ns", jint(c->interval_ns));
	ts = json_pack("{s:s?,s:I}", "time", info ? info->timestamp : NULL,
		       "timesecs", (json_int_t)(info ? info->timestamp_s : 0));
	if (err) {
		json_decref(st);
		json_decref(ts);
		return NULL;
	}
	return json_pack("{s:s,s:i,s:o,s:o}", "version",
			 info && info->version ? info->version : "libuet",
			 "schema_version", UET_REPORT_SCHEMA_VERSION,
			 "timestamp", ts, "test_start", st);
}

static json_t *
interval_obj(const struct uet_meas_interval *ivp)
{
	struct uet_meas_interval iv = *ivp;
	uint64_t ns = iv.end_ns - iv.start_ns;

	return json_pack("{s:f,s:f,s:f,s:I,s:I,s:f,s:f,s:I,s:b}",
			 "start_s", (double)iv.start_ns / 1e9,
			 "end_s", (double)iv.end_ns / 1e9,
			 "seconds", (double)ns / 1e9,
			 "bytes_rx", (json_int_t)iv.rx_bytes,
			 "bytes_tx", (json_int_t)iv.tx_bytes,
			 "bits_per_second", bps(iv.rx_bytes, ns),
			 "tx_bits_per_second", bps(iv.tx_bytes, ns),
			 "retransmits", (json_int_t)iv.retx_pkts,
			 "omitted", iv.omitted);
}

static json_t *
interval_json(const struct uet_meas *m, size_t i, uint64_t now_ns)
{
	struct uet_meas_interval iv;

	uet_meas_interval_get(m, i, now_ns, &iv);
	return interval_obj(&iv);
}

/* [[percent, ns], ...] at every point of uet_meas_cdf_p_milli; empty
 * with no sample. */
static json_t *
cdf_json(const struct uet_meas_fct *f)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; f->count > 0 && i < UET_MEAS_CDF_POINTS; i++)
		if (json_array_append_new(a, json_pack("[f,I]",
						       uet_meas_cdf_p_milli[i] / 1000.0,
						       (json_int_t)f->cdf_ns[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *
fct_json(const struct uet_meas_fct *f)
{
	if (f->count == 0)
		return json_pack("{s:i,s:n,s:n,s:n,s:n,s:n,s:n,s:o}", "count", 0,
				 "min_ns", "mean_ns", "p50_ns", "p99_ns",
				 "p999_ns", "max_ns", "cdf", json_array());
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			 "count", jint(f->count), "min_ns", jint(f->min_ns),
			 "mean_ns", jint(f->mean_ns), "p50_ns", jint(f->p50_ns),
			 "p99_ns", jint(f->p99_ns), "p999_ns", jint(f->p999_ns),
			 "max_ns", jint(f->max_ns), "cdf", cdf_json(f));
}

static json_t *flow_json_one(const struct uet_meas *m, uint32_t id,
			     const struct uet_meas_flow_rec *r);

static json_t *
flow_json(const struct uet_meas *m, uint32_t id,
	  const struct uet_meas_flow_rec *r)
{
	json_t *o;

	if (uet_meas_config(m)->repeat) {
		o = flow_json_one(m, id, r);
		if (o != NULL &&
		    (put(o, "msgs_acked", jint(r->msgs_acked)) != 0 ||
		     put(o, "msgs_failed", jint(r->msgs_failed)) != 0 ||
		     put(o, "msgs_received", jint(r->msgs_received)) != 0 ||
		     put(o, "bytes_acked", jint(r->bytes_acked)) != 0 ||
		     put(o, "bytes_received", jint(r->bytes_received)) != 0)) {
			json_decref(o);
			return NULL;
		}
		return o;
	}
	return flow_json_one(m, id, r);
}

static json_t *
ns_or_null(uint64_t ns)
{
	return ns == UET_MEAS_NO_TIME ? json_null() : jint(ns);
}

static json_t *
flow_json_one(const struct uet_meas *m, uint32_t id, const struct uet_meas_flow_rec *r)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:o,s:s,s:i,s:o,s:o,s:o,s:o,s:o}",
			 "id", (json_int_t)id, "src", (json_int_t)r->flow.src,
			 "dst", (json_int_t)r->flow.dst,
			 "stream", (json_int_t)r->flow.stream,
			 "step", (json_int_t)r->flow.step,
			 "size_bytes", jint(r->flow.size_bytes),
			 "status", status_name[r->status],
			 "send_status", r->send_status,
			 "submit_ns", jrel(m, r->submit_ns),
			 "send_done_ns", jrel(m, r->send_done_ns),
			 "recv_done_ns", jrel(m, r->recv_done_ns),
			 "fct_ns", ns_or_null(r->fct_ns),
			 "fct_recv_ns", ns_or_null(r->fct_recv_ns));
}

/* Flows by status (n[enum uet_meas_flow_status]) and the bytes of the ok
 * ones. */
static void
count_flows(const struct uet_meas *m, uint64_t n[4], uint64_t *ok_bytes)
{
	uint32_t i;

	memset(n, 0, 4 * sizeof(n[0]));
	*ok_bytes = 0;
	for (i = 0; i < uet_meas_config(m)->n_flows; i++) {
		struct uet_meas_flow_rec r;

		uet_meas_flow_get(m, i, &r);
		n[r.status]++;
		if (uet_meas_config(m)->repeat)
			/* Streams: the bytes delivered, seen from the end
			 * that is here (the sender's when both are). */
			*ok_bytes += r.msgs_acked || r.msgs_failed ? r.bytes_acked
								  : r.bytes_received;
		else if (r.status == UET_MEAS_OK)
			*ok_bytes += r.flow.size_bytes;
	}
}

/* Messages completed: ok flows (one each), or streams' messages. */
static uint64_t
count_msgs(const struct uet_meas *m)
{
	uint64_t msgs = 0;
	uint32_t i;

	for (i = 0; i < uet_meas_config(m)->n_flows; i++) {
		struct uet_meas_flow_rec r;

		uet_meas_flow_get(m, i, &r);
		if (uet_meas_config(m)->repeat)
			msgs += r.msgs_acked || r.msgs_failed ? r.msgs_acked : r.msgs_received;
		else
			msgs += r.status == UET_MEAS_OK;
	}
	return msgs;
}

static uint64_t count_msgs(const struct uet_meas *m);

/* end.flows: the local flows. */
static json_t *
flows_json(const struct uet_meas *m)
{
	json_t *a = json_array();
	uint32_t i;

	for (i = 0; a != NULL && i < uet_meas_config(m)->n_flows; i++) {
		struct uet_meas_flow_rec r;

		uet_meas_flow_get(m, i, &r);
		if (r.status != UET_MEAS_REMOTE &&
		    json_array_append_new(a, flow_json(m, i, &r)) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *
flow_counts_json(const struct uet_meas *m)
{
	uint64_t n[4], ok_bytes;

	count_flows(m, n, &ok_bytes);
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			 "total", jint(uet_meas_config(m)->n_flows),
			 "messages", jint(count_msgs(m)),
			 "local", jint(n[1] + n[2] + n[3]),
			 "ok", jint(n[UET_MEAS_OK]),
			 "failed", jint(n[UET_MEAS_FAILED]),
			 "pending", jint(n[UET_MEAS_PENDING]),
			 "remote", jint(n[UET_MEAS_REMOTE]));
}

static json_t *
timeline_json(const struct uet_meas *m, bool arrays)
{
	json_t *rx = json_array(), *tx = json_array(), *re = json_array();
	size_t i, n = arrays ? uet_meas_bin_count(m) : 0;
	int err = 0;

	for (i = 0; i < n; i++) {
		uint64_t r, t, x;

		uet_meas_bin(m, i, &r, &t, &x);
		err |= json_array_append_new(rx, jint(r));
		err |= json_array_append_new(tx, jint(t));
		err |= json_array_append_new(re, jint(x));
	}
	if (err) {
		json_decref(rx);
		json_decref(tx);
		json_decref(re);
		return NULL;
	}
	return json_pack("{s:o,s:o,s:o,s:o}", "bin_ns",
			 jint(uet_meas_timeline_bin_ns(m)), "rx_bytes", rx,
			 "tx_bytes", tx, "retx_pkts", re);
}

static json_t *
evs_json(const struct uet_meas *m)
{
	const struct uet_meas_config *c = uet_meas_config(m);
	json_t *a = json_array();
	uint32_t i;

	for (i = 0; a != NULL && i < c->ev_count; i++) {
		uint16_t ev = (uint16_t)(c->ev_base + i);
		uint64_t tx, ce;

		uet_meas_ev_get(m, ev, &tx, &ce);
		if (tx == 0 && ce == 0)
			continue;
		if (json_array_append_new(a, json_pack(
			    "{s:i,s:o,s:o,s:f}", "ev", (int)ev, "tx_pkts", jint(tx),
			    "ce_acks", jint(ce), "ce_fraction",
			    tx ? (double)ce / (double)tx : 0.0)) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static uint64_t
discard_pkts(const struct uet_ep_stats *s)
{
	uint64_t n = 0;

#define X_DISCARD(f) n += s->f;
	UET_EP_STATS_DISCARD_FIELDS(X_DISCARD)
#undef X_DISCARD
	return n;
}

static json_t *
known_or_null(bool known, uint64_t v)
{
	return known ? jint(v) : json_null();
}

/* The ports' own drops, by cause (null where there are no NICs: uet-sim). */
static json_t *
nic_json(const struct uet_meas *m)
{
	struct uet_meas_nic n;

	json_t *o;

	if (!uet_meas_nic(m, &n))
		return json_null();
	o = json_object();
#define NIC_FIELD(f) json_object_set_new(o, #f, jint(n.f));
	UET_MEAS_NIC_FIELDS(NIC_FIELD)
#undef NIC_FIELD
	return o;
}

/* Losses, each cause counted apart: what the network did (null where the
 * run cannot see it), what the senders declared lost and how, which of
 * their resends proved spurious, what the receivers discarded. */
static json_t *
losses_json(const struct uet_meas *m)
{
	const struct uet_ep_stats *s = uet_meas_ep_stats(m);
	struct uet_meas_net n;
	bool known = uet_meas_net(m, &n);

	return json_pack("{s:o,s:o,s:o,s:{s:o,s:o,s:o,s:o},s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			 "network_drops", known_or_null(known, n.drops),
			 "trims", known_or_null(known, n.trims),
			 "ecn_marks", known_or_null(known, n.ecn_marks),
			 "declared", "nack", jint(s->nack_retx), "reordering",
			 jint(s->loss_inferred), "probe", jint(s->probe_losses), "timeout",
			 jint(s->rto_lost_pkts),
			 "retransmissions", jint(s->tx_retx_pkts),
			 "spurious_retx", jint(s->spurious_retx),
			 "spurious_losses", jint(s->spurious_losses),
			 "spurious_rto", jint(s->spurious_rto),
			 "loss_undos", jint(s->loss_undos),
			 "duplicates_discarded", jint(s->rx_dup_pkts),
			 "other_discarded", jint(discard_pkts(s)));
}

/* What of libuet's own wire extensions the run sent (doc/wire.md), or
 * that it spoke UET 1.0 only. */
static json_t *
wire_json(const struct uet_meas *m)
{
	const struct uet_ep_stats *s = uet_meas_ep_stats(m);

	return json_pack("{s:b,s:{s:o,s:o,s:o}}", "uet_strict", uet_meas_config(m)->uet_strict,
			 "extensions", "dup_acks", jint(s->tx_dup_acks), "carry_ev_acks",
			 jint(s->tx_carry_acks), "credit_pkts",
			 jint(s->tx_credit_pkts + s->tx_credit_req_pkts));
}

static json_t *
transport_json(const struct uet_ep_stats *s)
{
	json_t *o = json_object();
	int err = 0;

#define X_PUT(f) err |= put(o, #f, jint(s->f));
	UET_EP_STATS_FIELDS(X_PUT)
#undef X_PUT
	err |= put(o, "rx_discard_pkts", jint(discard_pkts(s)));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *
events_json(const struct uet_meas *m)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < uet_meas_event_count(m); i++) {
		const struct uet_meas_event *e = uet_meas_event_get(m, i);

		if (json_array_append_new(a, json_pack(
			    "{s:o,s:s,s:s}", "t_ns", jrel(m, e->now_ns),
			    "kind", e->kind, "detail", e->detail)) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *
coll_json(const struct uet_report_coll *c, uint64_t wrong)
{
	double algbw = c->time_ns ? (double)c->size_bytes / (double)c->time_ns : 0;
	double f = uet_report_busbw_factor(c->op, c->n_ranks);

	return json_pack("{s:s?,s:o,s:o,s:f,s:f,s:f,s:f,s:o}", "op", c->op,
			 "n_ranks", jint(c->n_ranks),
			 "size_bytes", jint(c->size_bytes),
			 "time_us", (double)c->time_ns / 1e3,
			 "algbw_GBps", algbw,
			 "busbw_GBps", f > 0 ? algbw * f : 0.0,
			 "busbw_factor", f > 0 ? f : 0.0,
			 "wrong", jint(wrong));
}

/* end.latency: the round trips (ns) and, as perftest's latency tests
 * print, the one-way latency taken as half of each. */
static json_t *
latency_json(const struct uet_meas_rtt *r)
{
	json_t *rtt = fct_json(&r->rtt);

	if (rtt == NULL || put(rtt, "stdev_ns", r->rtt.count ? jint(r->stdev_ns) : json_null()) != 0) {
		json_decref(rtt);
		return NULL;
	}
	return json_pack("{s:o,s:o,s:o,s:o}", "round_trips", jint(r->rtt.count), "rtt", rtt,
			 "one_way_p50_ns", r->rtt.count ? jint(r->rtt.p50_ns / 2) : json_null(),
			 "one_way_mean_ns", r->rtt.count ? jint(r->rtt.mean_ns / 2) : json_null());
}

/* The part of a span from the start (ns) past the warm-up (omit_ns). */
static uint64_t
measured_ns(const struct uet_meas *m, uint64_t span_ns)
{
	uint64_t omit = uet_meas_config(m)->omit_ns;

	return span_ns > omit ? span_ns - omit : 0;
}

static json_t *
end_json(const struct uet_meas *m, const struct uet_report_info *info,
	 uint64_t end_ns)
{
	const struct uet_meas_config *c = uet_meas_config(m);
	const struct uet_meas_bad *b = uet_meas_bad(m);
	uint64_t dur = end_ns > c->start_ns ? end_ns - c->start_ns : 0;
	uint64_t compl_ns = 0, rx, tx, checked, bad;
	bool have_compl = uet_meas_completion_ns(m, &compl_ns);
	uint64_t active_ns = measured_ns(m, have_compl && compl_ns ? compl_ns : dur);
	struct uet_meas_fct fct, fct_recv;
	json_t *end;

	if (uet_meas_fct(m, &fct) != 0 || uet_meas_fct_recv(m, &fct_recv) != 0)
		return NULL;
	uet_meas_totals(m, &rx, &tx);
	uet_meas_verify_get(m, &checked, &bad);
	end = json_pack(
		"{s:o,s:o,s:o,s:o,s:f,s:f,s:o,s:o,s:o,s:o*,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
		"duration_ns", jint(measured_ns(m, dur)),
		"completion_ns", have_compl ? jint(compl_ns) : json_null(),
		"bytes_rx", jint(rx), "bytes_tx", jint(tx),
		"goodput_bps", bps(rx, active_ns), "tx_bps", bps(tx, active_ns),
		"fct", fct_json(&fct), "fct_recv", fct_json(&fct_recv),
		"flow_counts", flow_counts_json(m),
		"flows", info && info->no_flows ? NULL : flows_json(m),
		"timeline", timeline_json(m, !(info && info->no_timeline)),
		"evs", evs_json(m),
		"transport", transport_json(uet_meas_ep_stats(m)),
		"wire", wire_json(m),
		"losses", losses_json(m),
		"nic", nic_json(m),
		"events", events_json(m),
		"verify", json_pack("{s:o,s:o}", "checked_msgs", jint(checked),
				    "bad_msgs", jint(bad)),
		"bad_input", json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}",
				       "flow", jint(b->flow), "ev", jint(b->ev),
				       "time", jint(b->time),
				       "stats", jint(b->stats),
				       "timeline_full", jint(b->timeline_full),
				       "events_full", jint(b->events_full)));
	if (end != NULL && put(end, "omitted_ns", jint(c->omit_ns)) != 0) {
		json_decref(end);
		return NULL;
	}
	if (end != NULL && info && info->coll &&
	    put(end, "collective", coll_json(info->coll, bad)) != 0) {
		json_decref(end);
		return NULL;
	}
	if (end != NULL && info && info->rtt && put(end, "latency", latency_json(info->rtt)) != 0) {
		json_decref(end);
		return NULL;
	}
	if (end != NULL && info && info->extra_key != NULL && info->extra != NULL &&
	    put(end, info->extra_key, json_deep_copy(info->extra)) != 0) {
		json_decref(end);
		return NULL;
	}
	return end;
}

/* The intervals a report shows up to end_ns: the last, partial one too
 * when uet_meas_tail_shown() says so (the microseconds between a run's end
 * and its report are not). */
static size_t
shown_intervals(const struct uet_meas *m, uint64_t end_ns)
{
	size_t n = uet_meas_interval_count(m, end_ns, true);
	struct uet_meas_interval iv;

	if (n == 0 || n == uet_meas_interval_count(m, end_ns, false))
		return n;
	uet_meas_interval_get(m, n - 1, end_ns, &iv);
	if (!uet_meas_tail_shown(iv.end_ns - iv.start_ns, uet_meas_config(m)->interval_ns,
				 iv.rx_bytes || iv.tx_bytes || iv.retx_pkts))
		n--;
	return n;
}

static json_t *
intervals_json(const struct uet_meas *m, size_t from, size_t to,
	       uint64_t now_ns)
{
	json_t *a = json_array();
	size_t i;

	for (i = from; a != NULL && i < to; i++)
		if (json_array_append_new(a, interval_json(m, i, now_ns)) != 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

json_t *
uet_report_json(const struct uet_meas *m, const struct uet_report_info *info,
		uint64_t end_ns)
{
	json_t *r;

	if (m == NULL)
		return NULL;
	r = json_pack("{s:o,s:o,s:o}", "start", start_json(m, info),
		      "intervals",
		      intervals_json(m, 0, shown_intervals(m, end_ns), end_ns),
		      "end", end_json(m, info, end_ns));
	if (r != NULL && info && info->error &&
	    put(r, "error", json_string(info->error)) != 0) {
		json_decref(r);
		return NULL;
	}
	return r;
}

/* Dump j (stolen) then a newline. */
static int
dump(FILE *f, json_t *j, size_t flags)
{
	int rc = 0;

	if (j == NULL)
		return UET_ERR_NOMEM;
	if (json_dumpf(j, f, flags) != 0 || fputc('\n', f) == EOF || ferror(f))
		rc = UET_ERR_INVAL;
	json_decref(j);
	return rc;
}

int
uet_report_write_json(FILE *f, const struct uet_meas *m,
		      const struct uet_report_info *info, uint64_t end_ns)
{
	if (f == NULL || m == NULL)
		return UET_ERR_INVAL;
	return dump(f, uet_report_json(m, info, end_ns), JSON_FULL_FLAGS);
}

/* ---- JSON stream ---- */

static int
stream_line(struct uet_report_stream *s, const char *event, json_t *data)
{
	if (data == NULL)
		return UET_ERR_NOMEM;
	return dump(s->f, json_pack("{s:s,s:o}", "event", event, "data", data),
		    JSON_LINE_FLAGS);
}

int
uet_report_stream_start(struct uet_report_stream *s, const struct uet_meas *m,
			const struct uet_report_info *info)
{
	if (s == NULL || s->f == NULL || m == NULL)
		return UET_ERR_INVAL;
	return stream_line(s, "start", start_json(m, info));
}

static int
stream_upto(struct uet_report_stream *s, const struct uet_meas *m,
	    uint64_t now_ns, bool partial)
{
	size_t n = partial ? shown_intervals(m, now_ns) : uet_meas_interval_count(m, now_ns, false);
	int done = 0, rc;

	for (; s->intervals_done < n; s->intervals_done++, done++) {
		rc = stream_line(s, "interval",
				 interval_json(m, s->intervals_done, now_ns));
		if (rc != 0)
			return rc;
	}
	return done;
}

int
uet_report_stream_intervals(struct uet_report_stream *s,
			    const struct uet_meas *m, uint64_t now_ns)
{
	if (s == NULL || s->f == NULL || m == NULL)
		return UET_ERR_INVAL;
	return stream_upto(s, m, now_ns, false);
}

int
uet_report_stream_end(struct uet_report_stream *s, const struct uet_meas *m,
		      const struct uet_report_info *info, uint64_t end_ns)
{
	int rc;

	if (s == NULL || s->f == NULL || m == NULL)
		return UET_ERR_INVAL;
	rc = stream_upto(s, m, end_ns, true);
	if (rc < 0)
		return rc;
	return stream_line(s, "end", end_json(m, info, end_ns));
}

int
uet_report_stream_interval(struct uet_report_stream *s, const struct uet_meas_interval *iv)
{
	int rc;

	if (s == NULL || s->f == NULL || iv == NULL || iv->end_ns < iv->start_ns)
		return UET_ERR_INVAL;
	rc = stream_line(s, "interval", interval_obj(iv));
	if (rc == 0)
		s->intervals_done++;
	return rc;
}

int
uet_report_stream_error(struct uet_report_stream *s, const char *msg)
{
	if (s == NULL || s->f == NULL)
		return UET_ERR_INVAL;
	return stream_line(s, "error", json_string(msg ? msg : ""));
}

/* ---- CSV ---- */

/* ns as microseconds with three decimals, from integers only. */
static void
put_us(FILE *f, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	fprintf(f, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000,
		a % 1000);
}

static void
put_rel_us(FILE *f, const struct uet_meas *m, uint64_t ns)
{
	if (ns != UET_MEAS_NO_TIME)
		put_us(f, (int64_t)(ns - uet_meas_config(m)->start_ns));
}

/* A CSV text field: quoted (RFC 4180) when it holds , " or a line break. */
static void
put_csv_str(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

struct ev_at {
	size_t bin, idx;
};

static int
cmp_ev_at(const void *a, const void *b)
{
	const struct ev_at *x = a, *y = b;

	if (x->bin != y->bin)
		return (x->bin > y->bin) - (x->bin < y->bin);
	return (x->idx > y->idx) - (x->idx < y->idx);
}

int
uet_report_csv_timeline(FILE *f, const struct uet_meas *m, uint64_t end_ns)
{
	const struct uet_meas_config *c;
	size_t n, i, k = 0, ne;
	uint64_t bin_ns;
	struct ev_at *ev;

	if (f == NULL || m == NULL)
		return UET_ERR_INVAL;
	c = uet_meas_config(m);
	bin_ns = uet_meas_timeline_bin_ns(m);
	n = uet_meas_bin_count(m);
	if (end_ns > c->start_ns) {
		uint64_t want = (end_ns - c->start_ns + bin_ns - 1) / bin_ns;

		if (want > c->max_bins)
			want = c->max_bins;
		if (want > n)
			n = want;
	}
	/* Events by bin (clamped into the table), in recording order. */
	ne = uet_meas_event_count(m);
	ev = malloc((ne ? ne : 1) * sizeof(*ev));
	if (ev == NULL)
		return UET_ERR_NOMEM;
	for (i = 0; i < ne; i++) {
		uint64_t t = uet_meas_event_get(m, i)->now_ns;
		uint64_t b = t > c->start_ns ? (t - c->start_ns) / bin_ns : 0;

		ev[i].bin = n && b >= n ? n - 1 : b;
		ev[i].idx = i;
	}
	qsort(ev, ne, sizeof(*ev), cmp_ev_at);
	fputs("bin_start_us,rx_bytes,tx_bytes,rx_gbps,tx_gbps,event\n", f);
	for (i = 0; i < n; i++) {
		uint64_t rx, tx;
		bool first = true;

		uet_meas_bin(m, i, &rx, &tx, NULL);
		put_us(f, (int64_t)(i * bin_ns));
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,", rx, tx,
			(double)rx * 8 / (double)bin_ns,
			(double)tx * 8 / (double)bin_ns);
		for (; k < ne && ev[k].bin == i; k++) {
			if (!first)
				fputc(';', f);
			put_csv_str(f, uet_meas_event_get(m, ev[k].idx)->kind);
			first = false;
		}
		fputc('\n', f);
	}
	free(ev);
	return ferror(f) ? UET_ERR_INVAL : 0;
}

int
uet_report_csv_flows(FILE *f, const struct uet_meas *m)
{
	uint32_t i;

	if (f == NULL || m == NULL)
		return UET_ERR_INVAL;
	fputs("id,src,dst,stream,step,size_bytes,submit_us,send_done_us,"
	      "recv_done_us,fct_us,fct_recv_us,status,msgs_acked,msgs_received\n", f);
	for (i = 0; i < uet_meas_config(m)->n_flows; i++) {
		struct uet_meas_flow_rec r;

		uet_meas_flow_get(m, i, &r);
		if (r.status == UET_MEAS_REMOTE)
			continue;
		fprintf(f, "%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32
			   ",%" PRIu32 ",%" PRIu64 ",",
			i, r.flow.src, r.flow.dst, r.flow.stream, r.flow.step,
			r.flow.size_bytes);
		put_rel_us(f, m, r.submit_ns);
		fputc(',', f);
		put_rel_us(f, m, r.send_done_ns);
		fputc(',', f);
		put_rel_us(f, m, r.recv_done_ns);
		fputc(',', f);
		if (r.fct_ns != UET_MEAS_NO_TIME)
			put_us(f, (int64_t)r.fct_ns);
		fputc(',', f);
		if (r.fct_recv_ns != UET_MEAS_NO_TIME)
			put_us(f, (int64_t)r.fct_recv_ns);
		fprintf(f, ",%s,%" PRIu64 ",%" PRIu64 "\n", status_name[r.status],
			r.msgs_acked, r.msgs_received);
	}
	return ferror(f) ? UET_ERR_INVAL : 0;
}

/* ---- human tables ---- */

double
uet_report_busbw_factor(const char *op, uint32_t n_ranks)
{
	double n = n_ranks;

	if (op == NULL || n_ranks == 0)
		return -1;
	if (strcmp(op, "allreduce") == 0)
		return 2 * (n - 1) / n;
	if (strcmp(op, "reducescatter") == 0 || strcmp(op, "allgather") == 0 ||
	    strcmp(op, "alltoall") == 0)
		return (n - 1) / n;
	if (strcmp(op, "broadcast") == 0 || strcmp(op, "reduce") == 0 ||
	    strcmp(op, "sendrecv") == 0)
		return 1;
	return -1;
}

static double
us(uint64_t ns)
{
	return (double)ns / 1e3;
}

#define RESULT_LINE \
	"-----------------------------------------------------------------" \
	"-----------------------------------------------------------------\n"

/* perftest's opening: the result line, then the column names. */
static int
perftest_header(FILE *f, const char *columns)
{
	if (f == NULL)
		return UET_ERR_INVAL;
	fputs(RESULT_LINE, f);
	fputs(columns, f);
	return ferror(f) ? UET_ERR_INVAL : 0;
}

int
uet_report_perftest_header(FILE *f)
{
	return perftest_header(f, " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]"
				  "   MsgRate[Mpps]   FCT p50[usec]   p99[usec]   p99.9[usec]"
				  "   max[usec]\n");
}

int
uet_report_perftest_footer(FILE *f)
{
	if (f == NULL)
		return UET_ERR_INVAL;
	fputs(RESULT_LINE, f);
	return ferror(f) ? UET_ERR_INVAL : 0;
}

int
uet_report_perftest(FILE *f, const struct uet_meas *m)
{
	int rc;

	if (f == NULL || m == NULL)
		return UET_ERR_INVAL;
	rc = uet_report_perftest_header(f);
	if (rc == 0)
		rc = uet_report_perftest_row(f, m);
	if (rc == 0)
		rc = uet_report_perftest_footer(f);
	return rc;
}

int
uet_report_perftest_row(FILE *f, const struct uet_meas *m)
{
	const struct uet_meas_config *c;
	struct uet_meas_fct fct;
	uint64_t n[4], bytes, ok, compl_ns = 0, rx, tx, peak_bytes = 0, bin_ns;
	double avg_gbps, peak_gbps, mpps;
	size_t b;

	if (f == NULL || m == NULL)
		return UET_ERR_INVAL;
	if (uet_meas_fct(m, &fct) != 0)
		return UET_ERR_NOMEM;
	c = uet_meas_config(m);
	count_flows(m, n, &bytes);
	ok = count_msgs(m);
	uet_meas_completion_ns(m, &compl_ns);
	compl_ns = measured_ns(m, compl_ns);
	/* Peak: the busiest bin of the direction this process measured
	 * (received bytes, or sent bytes on a sender) past the warm-up,
	 * never below the average (a run shorter than a bin). */
	uet_meas_totals(m, &rx, &tx);
	/* A bin that the warm-up's end cuts (widened bins) is not past it. */
	bin_ns = uet_meas_timeline_bin_ns(m);
	for (b = (c->omit_ns + bin_ns - 1) / bin_ns; b < uet_meas_bin_count(m); b++) {
		uint64_t r, t;

		uet_meas_bin(m, b, &r, &t, NULL);
		if ((rx ? r : t) > peak_bytes)
			peak_bytes = rx ? r : t;
	}
	avg_gbps = compl_ns ? (double)bytes * 8 / (double)compl_ns : 0;
	peak_gbps = (double)peak_bytes * 8 / (double)bin_ns;
	if (peak_gbps < avg_gbps)
		peak_gbps = avg_gbps;
	mpps = compl_ns ? (double)ok * 1e3 / (double)compl_ns : 0;
	fprintf(f, " %-10" PRIu64 " %-14" PRIu64 " %-18.2f %-20.2f %-15.6f"
		   " %-15.3f %-11.3f %-13.3f %.3f\n",
		ok ? bytes / ok : 0, ok, peak_gbps, avg_gbps, mpps,
		us(fct.p50_ns), us(fct.p99_ns), us(fct.p999_ns), us(fct.max_ns));
	return ferror(f) ? UET_ERR_INVAL : 0;
}

int
uet_report_lat_header(FILE *f)
{
	return perftest_header(f, " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
				  "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]"
				  "   99.9% percentile[usec]\n");
}

int
uet_report_lat_row(FILE *f, uint64_t size_bytes, const struct uet_meas_rtt *r)
{
	const struct uet_meas_fct *t;

	if (f == NULL || r == NULL)
		return UET_ERR_INVAL;
	t = &r->rtt;
	/* Half of each round trip: perftest's one-way convention. */
	fprintf(f, " %-6" PRIu64 " %-10" PRIu64 "  %-13.3f  %-12.3f %-18.3f %-16.3f %-15.3f"
		   " %-22.3f %.3f\n",
		size_bytes, t->count, us(t->min_ns) / 2, us(t->max_ns) / 2, us(t->p50_ns) / 2,
		us(t->mean_ns) / 2, us(r->stdev_ns) / 2, us(t->p99_ns) / 2, us(t->p999_ns) / 2);
	return ferror(f) ? UET_ERR_INVAL : 0;
}

int
uet_report_coll_header(FILE *f)
{
	if (f == NULL)
		return UET_ERR_INVAL;
	fputs("#       size      time     algbw     busbw  #wrong\n"
	      "#        (B)      (us)    (GB/s)    (GB/s)\n", f);
	return ferror(f) ? UET_ERR_INVAL : 0;
}

int
uet_report_coll_row(FILE *f, const struct uet_report_coll *c, uint64_t wrong)
{
	double algbw, factor;

	if (f == NULL || c == NULL)
		return UET_ERR_INVAL;
	algbw = c->time_ns ? (double)c->size_bytes / (double)c->time_ns : 0;
	factor = uet_report_busbw_factor(c->op, c->n_ranks);
	fprintf(f, " %12" PRIu64 " %9.2f %9.2f %9.2f %7" PRIu64 "\n",
		c->size_bytes, us(c->time_ns), algbw,
		factor > 0 ? algbw * factor : 0.0, wrong);
	return ferror(f) ? UET_ERR_INVAL : 0;
}

static void
fct_line(FILE *f, const char *label, const struct uet_meas_fct *fct, const char *what)
{
	fprintf(f, "%-17sn %" PRIu64 "  min %.3f  mean %.3f  p50 %.3f  p99 %.3f  p99.9 %.3f"
		   "  max %.3f  (%s)\n",
		label, fct->count, us(fct->min_ns), us(fct->mean_ns), us(fct->p50_ns),
		us(fct->p99_ns), us(fct->p999_ns), us(fct->max_ns), what);
}

int
uet_report_summary(FILE *f, const struct uet_meas *m, uint64_t end_ns)
{
	const struct uet_ep_stats *s;
	struct uet_meas_fct fct, fct_recv;
	struct uet_meas_net net;
	struct uet_meas_nic nic;
	uint64_t n[4], ok_bytes, compl_ns = 0, rx, tx, checked, bad;
	bool have_compl;

	if (f == NULL || m == NULL)
		return UET_ERR_INVAL;
	if (uet_meas_fct(m, &fct) != 0 || uet_meas_fct_recv(m, &fct_recv) != 0)
		return UET_ERR_NOMEM;
	count_flows(m, n, &ok_bytes);
	s = uet_meas_ep_stats(m);
	have_compl = uet_meas_completion_ns(m, &compl_ns);
	if (!have_compl && end_ns > uet_meas_config(m)->start_ns)
		compl_ns = end_ns - uet_meas_config(m)->start_ns;
	uet_meas_totals(m, &rx, &tx);
	uet_meas_verify_get(m, &checked, &bad);
	if (uet_meas_config(m)->repeat)
		fprintf(f, "streams          %" PRIu64 " local: %" PRIu64 " ok, %" PRIu64
			   " failed, %" PRIu64 " idle; %" PRIu64 " messages (%" PRIu64
			   " B) done\n",
			n[1] + n[2] + n[3], n[UET_MEAS_OK], n[UET_MEAS_FAILED],
			n[UET_MEAS_PENDING], count_msgs(m), ok_bytes);
	else
		fprintf(f, "flows            %" PRIu64 " local: %" PRIu64 " ok (%" PRIu64
			   " B), %" PRIu64 " failed, %" PRIu64 " pending\n",
			n[1] + n[2] + n[3], n[UET_MEAS_OK], ok_bytes,
			n[UET_MEAS_FAILED], n[UET_MEAS_PENDING]);
	fprintf(f, "completion       %.3f us%s\n", us(compl_ns),
		have_compl ? "" : " (no flow completed: run duration)");
	if (uet_meas_config(m)->omit_ns > 0)
		fprintf(f, "omitted          %.3f us of warm-up first: the lines below count "
			   "the %.3f us after it\n",
			us(uet_meas_config(m)->omit_ns), us(measured_ns(m, compl_ns)));
	fprintf(f, "goodput          %.3f Gb/s rx, %.3f Gb/s tx (%" PRIu64
		   " B rx, %" PRIu64 " B tx)\n",
		bps(rx, measured_ns(m, compl_ns)) / 1e9, bps(tx, measured_ns(m, compl_ns)) / 1e9,
		rx, tx);
	fct_line(f, "FCT [usec]", &fct, "sender: submit to fully acknowledged");
	if (fct_recv.count > 0)
		fct_line(f, "FCT recv [usec]", &fct_recv, "receiver: submit to last byte");
	fprintf(f, "retransmits      %" PRIu64 " pkts; lost: %" PRIu64 " by NACK, %" PRIu64
		   " by reordering, %" PRIu64 " by probe, %" PRIu64 " by timeout\n"
		   "spurious         %" PRIu64 " retransmissions, %" PRIu64 " losses caught "
		   "before the resend, %" PRIu64 " RTOs; %" PRIu64 " window cuts undone\n"
		   "timeouts         %" PRIu64 " RTO events, %" PRIu64 " put off after a stall "
		   "of the poller\n"
		   "NACKs            %" PRIu64 " received\n"
		   "probes           %" PRIu64 " sent\n"
		   "PDCs             %" PRIu64 " opened, %" PRIu64 " closed, %" PRIu64 " failed\n"
		   "freezes          %" PRIu64 " (thaws %" PRIu64
		   ", path failures %" PRIu64 ")\n",
		s->tx_retx_pkts, s->nack_retx, s->loss_inferred, s->probe_losses,
		s->rto_lost_pkts, s->spurious_retx, s->spurious_losses, s->spurious_rto,
		s->loss_undos, s->rto_events, s->rto_deferred, s->rx_nack_pkts, s->tx_probe_pkts, s->pdcs_opened,
		s->pdcs_closed, s->pdcs_failed, s->lb_freezes,
		s->lb_thaws, s->path_failures);
	/* Only where a credit CC ran: every other run would print zeros. */
	if (s->tx_credit_req_pkts > 0 || s->tx_credit_pkts > 0)
		fprintf(f, "credit           %" PRIu64 " CREDITs granting %" PRIu64
			   " B sent (%" PRIu64 " B ahead to idle senders), %" PRIu64
			   " received; %" PRIu64 " requests sent (%" PRIu64 " repeated), %" PRIu64
			   " received\n",
			s->tx_credit_pkts, s->credit_granted_bytes, s->credit_idle_bytes,
			s->rx_credit_pkts, s->tx_credit_req_pkts, s->credit_retries,
			s->rx_credit_req_pkts);
	if (uet_meas_config(m)->uet_strict)
		fprintf(f, "wire             UET 1.0 only (--uet-strict): no libuet extension sent; "
			   "spurious resends seen by the RETX echo alone (a lower bound)\n");
	else if (s->tx_dup_acks + s->tx_carry_acks + s->tx_credit_pkts + s->tx_credit_req_pkts > 0)
		fprintf(f, "wire             libuet extensions: DUP flag in %" PRIu64
			   " ACKs, EV trailer in %" PRIu64 " ACKs, %" PRIu64
			   " CREDIT_REQ/CREDIT\n",
			s->tx_dup_acks, s->tx_carry_acks, s->tx_credit_pkts + s->tx_credit_req_pkts);
	else
		fprintf(f, "wire             no libuet extension sent\n");
	if (uet_meas_net(m, &net))
		fprintf(f, "network          %" PRIu64 " drops, %" PRIu64 " trims, %" PRIu64
			   " ECN marks\n", net.drops, net.trims, net.ecn_marks);
	else
		fprintf(f, "network          drops and trims not visible here (the receivers' "
			   "CE marks: %" PRIu64 ")\n", s->rx_ce_pkts);
	if (uet_meas_nic(m, &nic)) {
		fprintf(f, "NICs             %" PRIu64 " waits for a full TX queue, %" PRIu64 " fail-EV hook, %"
			   PRIu64 " no neighbour, %" PRIu64 " waits for mbufs; %" PRIu64
			   " bad checksums, %" PRIu64 " not ours received\n", nic.tx_full,
			nic.tx_fail_ev, nic.tx_no_neigh, nic.tx_no_mbuf, nic.rx_csum_drops,
			nic.rx_other_drops);
		fprintf(f, "lcores           %s: %" PRIu64 " RX ring overflows, %" PRIu64
			   " receives without an mbuf, %" PRIu64 " frames dropped at a full inbox, %"
			   PRIu64 " polls late\n",
			nic.rx_missed || nic.rx_no_mbuf || nic.steer_drops
				? "COULD NOT KEEP UP (more lcores, -l, or fewer endpoints each)"
				: "kept up",
			nic.rx_missed, nic.rx_no_mbuf, nic.steer_drops, nic.late_polls);
		fprintf(f, "checksums        %" PRIu64 " frames filled and %" PRIu64
			   " verified by the ports (offload); %" PRIu64
			   " summed as their payload was copied in\n",
			nic.tx_csum_offloaded, nic.rx_csum_offloaded, nic.tx_csum_fused);
	}
	fprintf(f, "receivers        %" PRIu64 " duplicates discarded, %" PRIu64
		   " other packets discarded (stale, malformed, no resources)\n"
		   "events           %zu on the timeline\n"
		   "verify           %" PRIu64 " checked, %" PRIu64 " bad\n",
		s->rx_dup_pkts, discard_pkts(s), uet_meas_event_count(m), checked, bad);
	return ferror(f) ? UET_ERR_INVAL : 0;
}
