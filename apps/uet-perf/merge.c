/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Results of a multi-process run: each process exports what it measured
 * (its local flows, timeline bins, intervals, totals, per-EV counters,
 * transport counters, events, verification), times relative to its own
 * start (the end of the start barrier), and process 0 replays all of them
 * into one measurement whose every rank is local, so the report covers
 * the whole run with the same code as a single-process one; that one's
 * export, replayed by every process, is what each reports. The bins,
 * intervals and totals go over as counted: the totals are not the bins'
 * sum (a warm-up's bytes are in the bins only), and a bin of a long run
 * may be wider than an interval.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "uet/err.h"

#define MAX_EXPORT_FCT (1u << 20)

/* -1: never. A time before the start (a completion that arrived while
 * this process waited at the start barrier) is the start: a negative one
 * would read as never, and the flow as pending. */
static json_int_t
rel_or_neg(uint64_t t, uint64_t start)
{
	if (t == UET_MEAS_NO_TIME)
		return -1;
	return t > start ? (json_int_t)(t - start) : 0;
}

/* Numbers as one JSON string, "5,,7": each in decimal, nothing for 0,
 * comma-separated. A long run has millions of timeline bins and up to a
 * million FCTs, which as JSON integers would cost tens of bytes of memory
 * each at both ends of the control channel. */
struct numtext {
	FILE *f;
	char *buf;
	size_t len, n;
};

static bool
numtext_open(struct numtext *t)
{
	memset(t, 0, sizeof(*t));
	t->f = open_memstream(&t->buf, &t->len);
	return t->f != NULL;
}

static void
numtext_put(struct numtext *t, uint64_t v)
{
	if (t->n++ > 0)
		fputc(',', t->f);
	if (v != 0)
		fprintf(t->f, "%" PRIu64, v);
}

/* The string, NULL when out of memory; t is closed. */
static json_t *
numtext_close(struct numtext *t)
{
	json_t *j = NULL;

	if (fclose(t->f) == 0)
		j = json_stringn_nocheck(t->buf, t->len);
	free(t->buf);
	return j;
}

/* Streams' FCTs or round trips (key): the kept samples, thinned to at
 * most MAX_EXPORT_FCT evenly, and how many (key_n). */
static void
export_samples(json_t *o, const char *key, const char *key_n, const uint64_t *v, size_t n)
{
	size_t i, step = n > MAX_EXPORT_FCT ? (n + MAX_EXPORT_FCT - 1) / MAX_EXPORT_FCT : 1;
	struct numtext t;

	if (!numtext_open(&t))
		return;
	for (i = 0; i < n; i += step)
		numtext_put(&t, v[i]);
	json_object_set_new(o, key_n, json_integer((json_int_t)t.n));
	json_object_set_new(o, key, numtext_close(&t));
}

/* One counter of every timeline bin (0 rx, 1 tx, 2 resends). */
static json_t *
bins_text(const struct uet_meas *m, size_t nb, int field)
{
	struct numtext t;
	size_t i;

	if (!numtext_open(&t))
		return NULL;
	for (i = 0; i < nb; i++) {
		uint64_t v[3];

		uet_meas_bin(m, i, &v[0], &v[1], &v[2]);
		numtext_put(&t, v[field]);
	}
	return numtext_close(&t);
}

/* The next number of a numtext string at *p (end: its end), 0 for an
 * empty one; -1 when it is not a number followed by ',' (or, the last, by
 * the end). */
static int
next_count(const char **p, const char *end, bool last, uint64_t *out)
{
	const char *s = *p;
	char *q;

	*out = 0;
	if (s < end && *s != ',') {
		if (*s < '0' || *s > '9')
			return -1;
		errno = 0;
		*out = strtoull(s, &q, 10);
		if (errno != 0 || q > end)
			return -1;
		s = q;
	}
	if (last ? s != end : s >= end || *s != ',')
		return -1;
	*p = last ? s : s + 1;
	return 0;
}

/* The samples export_samples wrote under key (key_n of them), each given
 * to add; how many of offered_key it did not carry go to *unkept. 0 or -1
 * (malformed). */
static int
import_samples(struct uet_meas *g, const json_t *o, const char *key, const char *key_n,
	       const char *offered_key, int (*add)(struct uet_meas *, uint64_t),
	       uint64_t *unkept)
{
	const json_t *t = json_object_get(o, key);
	json_int_t n = json_integer_value(json_object_get(o, key_n));
	json_int_t offered = json_integer_value(json_object_get(o, offered_key));
	const char *p, *end;
	json_int_t i;
	uint64_t v;

	*unkept = 0;
	if (t == NULL)
		return 0;
	if (!json_is_string(t) || n < 0 || n > MAX_EXPORT_FCT)
		return -1;
	p = json_string_value(t);
	end = p + json_string_length(t);
	for (i = 0; i < n; i++) {
		if (next_count(&p, end, i + 1 == n, &v) != 0)
			return -1;
		(void)add(g, v);
	}
	if (offered > n)
		*unkept = (uint64_t)(offered - n);
	return 0;
}

json_t *
perf_export(const struct uet_meas *m, uint64_t end_ns)
{
	const struct uet_meas_config *cfg = uet_meas_config(m);
	const struct uet_ep_stats *st = uet_meas_ep_stats(m);
	json_t *o = json_object(), *flows = json_array(), *ivs = json_array();
	json_t *evs = json_array(), *events = json_array(), *stats = json_array();
	uint64_t checked, bad, rxb, txb, tp, ce;
	uint64_t end_abs_ns = cfg->start_ns + end_ns;
	size_t i, nb = uet_meas_bin_count(m), niv = uet_meas_interval_count(m, end_abs_ns, true);
	uint32_t ev;

	for (i = 0; i < cfg->n_flows; i++) {
		struct uet_meas_flow_rec r;

		if (uet_meas_flow_get(m, (uint32_t)i, &r) != 0 || r.status == UET_MEAS_REMOTE)
			continue;
		json_array_append_new(flows, json_pack("[I,I,I,I,i,I,I,I]", (json_int_t)i,
						       rel_or_neg(r.submit_ns, cfg->start_ns),
						       rel_or_neg(r.send_done_ns, cfg->start_ns),
						       rel_or_neg(r.recv_done_ns, cfg->start_ns),
						       r.send_status, (json_int_t)r.msgs_acked,
						       (json_int_t)r.msgs_failed,
						       (json_int_t)r.msgs_received));
	}
	if (cfg->repeat) {
		uint64_t offered;
		size_t n;
		const uint64_t *v = uet_meas_fct_samples(m, &n, &offered);

		export_samples(o, "fct", "fct_n", v, n);
		json_object_set_new(o, "fct_offered", json_integer((json_int_t)offered));
		v = uet_meas_rtt_samples(m, &n, &offered);
		export_samples(o, "rtt", "rtt_n", v, n);
		json_object_set_new(o, "rtt_offered", json_integer((json_int_t)offered));
	}
	for (i = 0; i < niv; i++) {
		struct uet_meas_interval iv;

		uet_meas_interval_get(m, i, end_abs_ns, &iv);
		if (iv.rx_bytes == 0 && iv.tx_bytes == 0 && iv.retx_pkts == 0)
			continue;
		json_array_append_new(ivs, json_pack("[I,I,I,I]", (json_int_t)i,
						     (json_int_t)iv.rx_bytes, (json_int_t)iv.tx_bytes,
						     (json_int_t)iv.retx_pkts));
	}
	uet_meas_totals(m, &rxb, &txb);
	for (ev = 0; ev < cfg->ev_count; ev++) {
		if (uet_meas_ev_get(m, (uint16_t)(cfg->ev_base + ev), &tp, &ce) == 0 &&
		    (tp != 0 || ce != 0))
			json_array_append_new(evs, json_pack("[I,I,I]", (json_int_t)(cfg->ev_base + ev),
							     (json_int_t)tp, (json_int_t)ce));
	}
	for (i = 0; i < uet_meas_event_count(m); i++) {
		const struct uet_meas_event *e = uet_meas_event_get(m, i);

		json_array_append_new(events, json_pack("[I,s,s]",
							(json_int_t)(e->now_ns - cfg->start_ns),
							e->kind, e->detail));
	}
	/* The counters as a flat array, in struct order: every field is a
	 * uint64_t, so the layout is the schema. */
	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		json_array_append_new(stats, json_integer((json_int_t)((const uint64_t *)st)[i]));
	uet_meas_verify_get(m, &checked, &bad);
	json_object_set_new(o, "end_ns", json_integer((json_int_t)end_ns));
	json_object_set_new(o, "flows", flows);
	json_object_set_new(o, "bin_ns", json_integer((json_int_t)uet_meas_timeline_bin_ns(m)));
	json_object_set_new(o, "bins", json_integer((json_int_t)nb));
	json_object_set_new(o, "rx_bins", bins_text(m, nb, 0));
	json_object_set_new(o, "tx_bins", bins_text(m, nb, 1));
	json_object_set_new(o, "retx_bins", bins_text(m, nb, 2));
	json_object_set_new(o, "intervals", ivs);
	json_object_set_new(o, "totals", json_pack("[I,I]", (json_int_t)rxb, (json_int_t)txb));
	json_object_set_new(o, "evs", evs);
	json_object_set_new(o, "events", events);
	json_object_set_new(o, "stats", stats);
	{
		struct uet_meas_nic n;

		if (uet_meas_nic(m, &n)) {
			const uint64_t *v = (const uint64_t *)&n;
			json_t *a = json_array();
			size_t k;

			for (k = 0; k < sizeof(n) / sizeof(uint64_t); k++)
				json_array_append_new(a, json_integer((json_int_t)v[k]));
			json_object_set_new(o, "nic", a);
		}
	}
	json_object_set_new(o, "verify", json_pack("[I,I]", (json_int_t)checked, (json_int_t)bad));
	return o;
}

_Static_assert(sizeof(struct uet_ep_stats) % sizeof(uint64_t) == 0,
	       "uet_ep_stats must be all uint64_t for the export");

int
perf_import(struct uet_meas *g, struct uet_ep_stats *sum, const json_t *o, uint64_t *end_ns)
{
	const struct uet_meas_config *cfg = uet_meas_config(g);
	const json_t *flows = json_object_get(o, "flows"), *rx = json_object_get(o, "rx_bins");
	const json_t *tx = json_object_get(o, "tx_bins"), *rt = json_object_get(o, "retx_bins");
	const json_t *ivs = json_object_get(o, "intervals"), *evs = json_object_get(o, "evs");
	const json_t *events = json_object_get(o, "events"), *stats = json_object_get(o, "stats");
	const json_t *v;
	struct uet_ep_stats one;
	json_int_t e, a, b, c, bin_ns = json_integer_value(json_object_get(o, "bin_ns"));
	json_int_t nb = json_integer_value(json_object_get(o, "bins"));
	const char *p[3], *pend[3];
	uint64_t un_fct, un_rtt;
	size_t i;

	if (!json_is_array(flows) || !json_is_string(rx) || !json_is_string(tx) ||
	    !json_is_string(rt) || nb < 0 || (uint64_t)nb > cfg->max_bins || !json_is_array(ivs) ||
	    !json_is_array(evs) || !json_is_array(events) || !json_is_array(stats) ||
	    json_array_size(stats) != sizeof(one) / sizeof(uint64_t) || bin_ns <= 0 ||
	    json_unpack((json_t *)json_object_get(o, "totals"), "[I,I]", &a, &b) != 0 || a < 0 ||
	    b < 0)
		return UET_ERR_INVAL;
	uet_meas_totals_add(g, (uint64_t)a, (uint64_t)b);
	e = json_integer_value(json_object_get(o, "end_ns"));
	if (e > 0 && (uint64_t)e > *end_ns)
		*end_ns = (uint64_t)e;
	json_array_foreach(flows, i, v) {
		json_int_t id, sub, sd, rd, ma, mf, mr;
		int status;

		if (json_unpack((json_t *)v, "[I,I,I,I,i,I,I,I]", &id, &sub, &sd, &rd, &status, &ma,
				&mf, &mr) != 0 ||
		    id < 0 || (uint64_t)id >= cfg->n_flows || ma < 0 || mf < 0 || mr < 0)
			return UET_ERR_INVAL;
		if (cfg->repeat) {
			struct uet_meas_flow_rec r;

			memset(&r, 0, sizeof(r));
			r.submit_ns = sub >= 0 ? cfg->start_ns + (uint64_t)sub : UET_MEAS_NO_TIME;
			r.send_done_ns = sd >= 0 ? cfg->start_ns + (uint64_t)sd : UET_MEAS_NO_TIME;
			r.recv_done_ns = rd >= 0 ? cfg->start_ns + (uint64_t)rd : UET_MEAS_NO_TIME;
			r.send_status = status;
			r.msgs_acked = (uint64_t)ma;
			r.msgs_failed = (uint64_t)mf;
			r.msgs_received = (uint64_t)mr;
			(void)uet_meas_stream_import(g, (uint32_t)id, &r);
			continue;
		}
		if (sub >= 0)
			(void)uet_meas_submit(g, (uint32_t)id, cfg->start_ns + (uint64_t)sub);
		if (sd >= 0)
			(void)uet_meas_send_done(g, (uint32_t)id, cfg->start_ns + (uint64_t)sd, status);
		if (rd >= 0)
			(void)uet_meas_recv_done(g, (uint32_t)id, cfg->start_ns + (uint64_t)rd);
	}
	if (import_samples(g, o, "fct", "fct_n", "fct_offered", uet_meas_add_fct_sample,
			   &un_fct) != 0 ||
	    import_samples(g, o, "rtt", "rtt_n", "rtt_offered", uet_meas_add_rtt_sample,
			   &un_rtt) != 0)
		return UET_ERR_INVAL;
	uet_meas_samples_unkept(g, un_fct, un_rtt);
	p[0] = json_string_value(rx);
	p[1] = json_string_value(tx);
	p[2] = json_string_value(rt);
	pend[0] = p[0] + json_string_length(rx);
	pend[1] = p[1] + json_string_length(tx);
	pend[2] = p[2] + json_string_length(rt);
	for (i = 0; i < (size_t)nb; i++) {
		uint64_t n[3];
		int k;

		for (k = 0; k < 3; k++)
			if (next_count(&p[k], pend[k], i + 1 == (size_t)nb, &n[k]) != 0)
				return UET_ERR_INVAL;
		if ((n[0] || n[1] || n[2]) &&
		    uet_meas_timeline_add(g, cfg->start_ns + i * (uint64_t)bin_ns, (uint64_t)bin_ns,
					  n[0], n[1], n[2]) == UET_ERR_INVAL)
			return UET_ERR_INVAL;
	}
	json_array_foreach(ivs, i, v) {
		if (json_unpack((json_t *)v, "[I,I,I,I]", &e, &a, &b, &c) != 0 || e < 0 || a < 0 ||
		    b < 0 || c < 0)
			return UET_ERR_INVAL;
		(void)uet_meas_interval_add(g, (size_t)e, (uint64_t)a, (uint64_t)b, (uint64_t)c);
	}
	json_array_foreach(evs, i, v) {
		if (json_unpack((json_t *)v, "[I,I,I]", &e, &a, &b) != 0 || e < 0 || e > 65535 ||
		    a < 0 || b < 0)
			return UET_ERR_INVAL;
		(void)uet_meas_ev_add(g, (uint16_t)e, (uint64_t)a, (uint64_t)b);
	}
	json_array_foreach(events, i, v) {
		const char *kind, *detail;

		if (json_unpack((json_t *)v, "[I,s,s]", &e, &kind, &detail) == 0 && e >= 0)
			(void)uet_meas_event(g, cfg->start_ns + (uint64_t)e, kind, detail);
	}
	json_array_foreach(stats, i, v)
		((uint64_t *)&one)[i] = (uint64_t)json_integer_value(v);
	uet_meas_add_ep_stats(sum, &one);
	{
		/* The ports' drops add up over the processes. */
		const json_t *nj = json_object_get(o, "nic");
		struct uet_meas_nic n, add;

		if (json_is_array(nj) && json_array_size(nj) == sizeof(add) / sizeof(uint64_t)) {
			uint64_t *w = (uint64_t *)&add;
			size_t k;

			for (k = 0; k < json_array_size(nj); k++)
				w[k] = (uint64_t)json_integer_value(json_array_get(nj, k));
			memset(&n, 0, sizeof(n));
			(void)uet_meas_nic(g, &n);
			uet_meas_nic_add(&n, &add, 1);
			uet_meas_set_nic(g, &n);
		}
	}
	if (json_unpack((json_t *)json_object_get(o, "verify"), "[I,I]", &a, &b) == 0)
		uet_meas_verify(g, (uint64_t)a, (uint64_t)b);
	return 0;
}
