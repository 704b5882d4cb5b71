/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Measurement for uet-perf and uet-sim (report.h). Everything is driven by
 * the caller's now_ns; nothing here reads a clock or prints.
 *
 * The hot calls (rx/tx bytes, per-EV counters) are an index and an add;
 * the timeline and the intervals grow by doubling, so a run allocates
 * O(log bins) times. A run longer than max_bins bins widens the timeline's
 * bins instead (pairs merged), so that it covers the whole run in bounded
 * memory; the intervals keep their own sums, which no widening blurs.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "uet/prng.h"
#include "report/report.h"
#include "uet/err.h"

#define X_COUNT(f) +1
static_assert(sizeof(struct uet_ep_stats) ==
		      sizeof(uint64_t) * (0 UET_EP_STATS_FIELDS(X_COUNT)),
	      "UET_EP_STATS_FIELDS misses a field of struct uet_ep_stats");
#undef X_COUNT

#define LOCAL_SRC 1u
#define LOCAL_DST 2u

struct flow_st {
	struct uet_meas_flow d;
	uint64_t submit_ns, send_done_ns, recv_done_ns;
	int send_status;
	uint8_t local;  /* LOCAL_SRC | LOCAL_DST */
	bool one_clock; /* src's and dst's times comparable (cfg.rank_clock) */
	/* Streams (cfg.repeat) */
	uint64_t msgs_acked, msgs_failed, msgs_received;
};

/* What one timeline bin or one interval counted. */
struct bin {
	uint64_t rx_bytes, tx_bytes, retx_pkts;
};

/* Bins (or intervals) 0..used-1 of cap allocated, zeroed past used. */
struct series {
	struct bin *v;
	size_t cap, used;
};

/* The slot of a series that a sample fell in last, from lo_ns (relative to
 * start_ns): the next sample most likely falls there too, and is counted
 * without a division (uet-perf's lcores count every packet). */
struct slot_hint {
	uint64_t lo_ns, idx;
	bool ok;
};

/* Samples of a duration run, a uniform reservoir once past the cap. */
struct samples {
	uint64_t *v;
	size_t n, cap;
	uint64_t offered;
};

struct uet_meas {
	struct uet_meas_config cfg; /* flows, rank_local and rank_clock cleared */
	struct flow_st *flows;
	uint64_t *ev_tx, *ev_ce;
	/* The timeline, bin_ns wide: cfg.bin_ns, doubled at each widening. */
	struct series bins;
	uint64_t bin_ns;
	struct series ivs; /* one per cfg.interval_ns, when set */
	struct slot_hint bin_hint, iv_hint;
	uint64_t rx_total, tx_total;
	struct uet_meas_event *events;
	size_t n_events, events_cap;
	struct uet_ep_stats stats;
	struct uet_meas_net net;
	bool net_known;
	struct uet_meas_nic nic;
	bool nic_known;
	/* The counters at the end of the warm-up (cfg.omit_ns), and the
	 * transport's as reported: stats less stats_base. */
	struct uet_ep_stats stats_base, stats_rep;
	struct uet_meas_nic nic_base;
	struct uet_meas_net net_base;
	bool omit_ended;
	uint64_t verify_checked, verify_bad;
	struct uet_meas_bad bad;
	/* Streams: messages' FCTs, and a ping-pong's round trips. */
	struct samples fct, rtt;
};

int
uet_meas_create(const struct uet_meas_config *cfg, struct uet_meas **out)
{
	struct uet_meas *m;
	uint32_t i;

	if (cfg == NULL || out == NULL || (cfg->n_flows > 0 && cfg->flows == NULL) ||
	    (uint32_t)cfg->ev_base + cfg->ev_count > 65536)
		return UET_ERR_INVAL;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return UET_ERR_NOMEM;
	m->cfg = *cfg;
	m->cfg.flows = NULL;
	m->cfg.rank_local = NULL;
	m->cfg.rank_clock = NULL;
	if (m->cfg.bin_ns == 0)
		m->cfg.bin_ns = UET_MEAS_DEFAULT_BIN_NS;
	if (m->cfg.max_bins == 0)
		m->cfg.max_bins = UET_MEAS_DEFAULT_MAX_BINS;
	m->bin_ns = m->cfg.bin_ns;
	if (m->cfg.max_events == 0)
		m->cfg.max_events = UET_MEAS_DEFAULT_MAX_EVENTS;
	if (m->cfg.max_fct_samples == 0)
		m->cfg.max_fct_samples = UET_MEAS_DEFAULT_MAX_FCT;
	if (m->cfg.interval_ns % m->cfg.bin_ns != 0 || m->cfg.omit_ns % m->cfg.bin_ns != 0 ||
	    (m->cfg.interval_ns != 0 && m->cfg.omit_ns % m->cfg.interval_ns != 0))
		goto inval;
	m->flows = calloc(cfg->n_flows ? cfg->n_flows : 1, sizeof(*m->flows));
	m->ev_tx = calloc(cfg->ev_count ? cfg->ev_count : 1, sizeof(uint64_t));
	m->ev_ce = calloc(cfg->ev_count ? cfg->ev_count : 1, sizeof(uint64_t));
	if (m->flows == NULL || m->ev_tx == NULL || m->ev_ce == NULL) {
		uet_meas_destroy(m);
		return UET_ERR_NOMEM;
	}
	for (i = 0; i < cfg->n_flows; i++) {
		struct flow_st *f = &m->flows[i];

		f->d = cfg->flows[i];
		f->submit_ns = f->send_done_ns = f->recv_done_ns = UET_MEAS_NO_TIME;
		f->one_clock = true;
		if (cfg->rank_clock != NULL) {
			if (f->d.src >= cfg->n_ranks || f->d.dst >= cfg->n_ranks)
				goto inval;
			f->one_clock = cfg->rank_clock[f->d.src] == cfg->rank_clock[f->d.dst] &&
				       cfg->rank_clock[f->d.src] != UINT32_MAX;
		}
		if (cfg->rank_local == NULL) {
			f->local = LOCAL_SRC | LOCAL_DST;
			continue;
		}
		if (f->d.src >= cfg->n_ranks || f->d.dst >= cfg->n_ranks)
			goto inval;
		f->local = (cfg->rank_local[f->d.src] ? LOCAL_SRC : 0) |
			   (cfg->rank_local[f->d.dst] ? LOCAL_DST : 0);
	}
	*out = m;
	return 0;
inval:
	uet_meas_destroy(m);
	return UET_ERR_INVAL;
}

void
uet_meas_destroy(struct uet_meas *m)
{
	if (m == NULL)
		return;
	free(m->flows);
	free(m->ev_tx);
	free(m->ev_ce);
	free(m->bins.v);
	free(m->ivs.v);
	free(m->events);
	free(m->fct.v);
	free(m->rtt.v);
	free(m);
}

/* Record now_ns in the time field at off of a flow, once. An id out of
 * range, an end that is not local or a repeat is counted and ignored. */
static int
set_time(struct uet_meas *m, uint32_t flow, uint8_t need, size_t off,
	 uint64_t now_ns)
{
	uint64_t *slot;

	if (flow >= m->cfg.n_flows || !(m->flows[flow].local & need)) {
		m->bad.flow++;
		return UET_ERR_INVAL;
	}
	slot = (uint64_t *)((char *)&m->flows[flow] + off);
	if (*slot != UET_MEAS_NO_TIME) {
		m->bad.flow++;
		return UET_ERR_INVAL;
	}
	*slot = now_ns;
	return 0;
}

int
uet_meas_submit(struct uet_meas *m, uint32_t flow, uint64_t now_ns)
{
	return set_time(m, flow, LOCAL_SRC, offsetof(struct flow_st, submit_ns),
			now_ns);
}

int
uet_meas_send_done(struct uet_meas *m, uint32_t flow, uint64_t now_ns,
		   int status)
{
	int rc = set_time(m, flow, LOCAL_SRC,
			  offsetof(struct flow_st, send_done_ns), now_ns);

	if (rc == 0)
		m->flows[flow].send_status = status;
	return rc;
}

int
uet_meas_recv_done(struct uet_meas *m, uint32_t flow, uint64_t now_ns)
{
	return set_time(m, flow, LOCAL_DST,
			offsetof(struct flow_st, recv_done_ns), now_ns);
}

static int
samples_add(struct samples *s, size_t max, uint64_t v)
{
	uint64_t j;

	s->offered++;
	if (s->n < max) {
		if (s->n == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 1024;
			uint64_t *n;

			if (cap > max)
				cap = max;
			n = realloc(s->v, cap * sizeof(*n));
			if (n == NULL)
				return UET_ERR_NOMEM;
			s->v = n;
			s->cap = cap;
		}
		s->v[s->n++] = v;
		return 0;
	}
	/* Reservoir sampling (Vitter's algorithm R) keeps every sample
	 * equally likely; the "random" index is a hash of the sample count,
	 * so the same run keeps the same samples. */
	j = uet_mix64(s->offered * 0x9e3779b97f4a7c15ULL) % s->offered;
	if (j < s->n)
		s->v[j] = v;
	return 0;
}

/* src's kept samples into dst; those src offered but did not keep still
 * count as offered. */
static int
samples_merge(struct samples *dst, size_t max, const struct samples *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		if (samples_add(dst, max, src->v[i]) != 0)
			return UET_ERR_NOMEM;
	dst->offered += src->offered - src->n;
	return 0;
}

int
uet_meas_add_fct_sample(struct uet_meas *m, uint64_t fct_ns)
{
	return samples_add(&m->fct, m->cfg.max_fct_samples, fct_ns);
}

/* The kept samples (unsorted), their count and how many were offered. */
static const uint64_t *
samples_view(const struct samples *s, size_t *n, uint64_t *offered)
{
	*n = s->n;
	if (offered != NULL)
		*offered = s->offered;
	return s->v;
}

/* The kept samples into v (room for s->n), their sum into *sum. */
static size_t
samples_copy(const struct samples *s, uint64_t *v, uint64_t *sum)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		v[i] = s->v[i];
		*sum += v[i];
	}
	return s->n;
}

const uint64_t *
uet_meas_fct_samples(const struct uet_meas *m, size_t *n, uint64_t *offered)
{
	return samples_view(&m->fct, n, offered);
}

void
uet_meas_samples_unkept(struct uet_meas *m, uint64_t fct, uint64_t rtt)
{
	m->fct.offered += fct;
	m->rtt.offered += rtt;
}

int
uet_meas_add_rtt_sample(struct uet_meas *m, uint64_t rtt_ns)
{
	return samples_add(&m->rtt, m->cfg.max_fct_samples, rtt_ns);
}

const uint64_t *
uet_meas_rtt_samples(const struct uet_meas *m, size_t *n, uint64_t *offered)
{
	return samples_view(&m->rtt, n, offered);
}

/* A stream's flow and the local end it needs, or NULL (counted). */
static struct flow_st *
stream_flow(struct uet_meas *m, uint32_t flow, uint8_t need)
{
	if (!m->cfg.repeat || flow >= m->cfg.n_flows || !(m->flows[flow].local & need)) {
		m->bad.flow++;
		return NULL;
	}
	return &m->flows[flow];
}

int
uet_meas_msg_acked(struct uet_meas *m, uint32_t flow, uint64_t submit_ns, uint64_t done_ns,
		   int status)
{
	struct flow_st *f = stream_flow(m, flow, LOCAL_SRC);

	if (f == NULL)
		return UET_ERR_INVAL;
	if (done_ns < submit_ns) {
		m->bad.time++;
		return UET_ERR_INVAL;
	}
	if (f->submit_ns == UET_MEAS_NO_TIME || submit_ns < f->submit_ns)
		f->submit_ns = submit_ns;
	if (f->send_done_ns == UET_MEAS_NO_TIME || done_ns > f->send_done_ns)
		f->send_done_ns = done_ns;
	/* A failure counts whenever it came: the warm-up hides no flaw. */
	if (status != 0) {
		if (f->msgs_failed++ == 0)
			f->send_status = status;
		return 0;
	}
	if (!uet_meas_measuring(m, done_ns))
		return 0;
	f->msgs_acked++;
	return uet_meas_add_fct_sample(m, done_ns - submit_ns);
}

int
uet_meas_msg_received(struct uet_meas *m, uint32_t flow, uint64_t now_ns)
{
	struct flow_st *f = stream_flow(m, flow, LOCAL_DST);

	if (f == NULL)
		return UET_ERR_INVAL;
	if (f->recv_done_ns == UET_MEAS_NO_TIME || now_ns > f->recv_done_ns)
		f->recv_done_ns = now_ns;
	if (uet_meas_measuring(m, now_ns))
		f->msgs_received++;
	return 0;
}

int
uet_meas_stream_import(struct uet_meas *m, uint32_t flow, const struct uet_meas_flow_rec *r)
{
	struct flow_st *f = stream_flow(m, flow, LOCAL_SRC | LOCAL_DST);

	if (f == NULL)
		return UET_ERR_INVAL;
	if (r->submit_ns != UET_MEAS_NO_TIME &&
	    (f->submit_ns == UET_MEAS_NO_TIME || r->submit_ns < f->submit_ns))
		f->submit_ns = r->submit_ns;
	if (r->send_done_ns != UET_MEAS_NO_TIME &&
	    (f->send_done_ns == UET_MEAS_NO_TIME || r->send_done_ns > f->send_done_ns))
		f->send_done_ns = r->send_done_ns;
	if (r->recv_done_ns != UET_MEAS_NO_TIME &&
	    (f->recv_done_ns == UET_MEAS_NO_TIME || r->recv_done_ns > f->recv_done_ns))
		f->recv_done_ns = r->recv_done_ns;
	if (r->msgs_failed > 0 && f->msgs_failed == 0)
		f->send_status = r->send_status;
	f->msgs_acked += r->msgs_acked;
	f->msgs_failed += r->msgs_failed;
	f->msgs_received += r->msgs_received;
	return 0;
}

/* Slot idx of a series, growing it by doubling up to max slots.
 * UET_ERR_NOBUFS past max or when realloc fails. */
static int
series_at(struct series *s, uint64_t idx, size_t max, struct bin **out)
{
	if (idx >= max)
		return UET_ERR_NOBUFS;
	if (idx >= s->cap) {
		size_t cap = s->cap ? s->cap : 64;
		struct bin *nv;

		while (cap <= idx)
			cap *= 2;
		if (cap > max)
			cap = max;
		nv = realloc(s->v, cap * sizeof(*nv));
		if (nv == NULL)
			return UET_ERR_NOBUFS;
		memset(nv + s->cap, 0, (cap - s->cap) * sizeof(*nv));
		s->v = nv;
		s->cap = cap;
	}
	if (idx >= s->used)
		s->used = idx + 1;
	*out = &s->v[idx];
	return 0;
}

static void
bin_add(struct bin *d, const struct bin *a)
{
	d->rx_bytes += a->rx_bytes;
	d->tx_bytes += a->tx_bytes;
	d->retx_pkts += a->retx_pkts;
}

/* Twice as wide timeline bins: bin i becomes old bins 2i and 2i + 1. */
static void
widen(struct uet_meas *m)
{
	struct series *s = &m->bins;
	size_t i;

	for (i = 0; i < s->used; i++) {
		struct bin b = s->v[i];

		memset(&s->v[i], 0, sizeof(s->v[i]));
		bin_add(&s->v[i / 2], &b);
	}
	s->used = (s->used + 1) / 2;
	m->bin_ns *= 2;
	m->bin_hint.ok = false;
}

/* The timeline bin of now_ns, widening the bins while now_ns lies past
 * max_bins of them. UET_ERR_INVAL before the start, UET_ERR_NOBUFS when
 * realloc fails. */
static int
bin_at(struct uet_meas *m, uint64_t now_ns, struct bin **out)
{
	uint64_t rel, idx;

	if (now_ns < m->cfg.start_ns)
		return UET_ERR_INVAL;
	rel = now_ns - m->cfg.start_ns;
	idx = rel / m->bin_ns;
	while (idx >= m->cfg.max_bins && m->bin_ns <= UINT64_MAX / 2) {
		widen(m);
		idx = rel / m->bin_ns;
	}
	return series_at(&m->bins, idx, m->cfg.max_bins, out);
}

/* Counts at now_ns into its timeline bin and its interval. UET_ERR_INVAL
 * before the start (ignored); UET_ERR_NOBUFS, counted, when the bin or the
 * interval had no room (realloc failed, or past max_bins intervals). */
static int
count_at(struct uet_meas *m, uint64_t now_ns, const struct bin *add)
{
	struct bin *b;
	uint64_t rel;
	int rc = 0;

	if (now_ns < m->cfg.start_ns)
		return UET_ERR_INVAL;
	rel = now_ns - m->cfg.start_ns;
	if (m->bin_hint.ok && rel - m->bin_hint.lo_ns < m->bin_ns) {
		bin_add(&m->bins.v[m->bin_hint.idx], add);
	} else if ((rc = bin_at(m, now_ns, &b)) == 0) {
		bin_add(b, add);
		m->bin_hint.idx = (uint64_t)(b - m->bins.v);
		m->bin_hint.lo_ns = m->bin_hint.idx * m->bin_ns;
		m->bin_hint.ok = true;
	}
	if (m->cfg.interval_ns == 0) {
		/* no intervals */
	} else if (m->iv_hint.ok && rel - m->iv_hint.lo_ns < m->cfg.interval_ns) {
		bin_add(&m->ivs.v[m->iv_hint.idx], add);
	} else if (series_at(&m->ivs, rel / m->cfg.interval_ns, m->cfg.max_bins, &b) == 0) {
		bin_add(b, add);
		m->iv_hint.idx = (uint64_t)(b - m->ivs.v);
		m->iv_hint.lo_ns = m->iv_hint.idx * m->cfg.interval_ns;
		m->iv_hint.ok = true;
	} else {
		rc = UET_ERR_NOBUFS;
	}
	if (rc != 0)
		m->bad.timeline_full++;
	return rc;
}

static int
add_bytes(struct uet_meas *m, uint64_t now_ns, uint64_t bytes, bool rx)
{
	struct bin add = { rx ? bytes : 0, rx ? 0 : bytes, 0 };
	int rc = count_at(m, now_ns, &add);

	if (rc == UET_ERR_INVAL) {
		m->bad.time++;
		return rc;
	}
	/* The warm-up's bytes are in the timeline only. */
	if (uet_meas_measuring(m, now_ns))
		*(rx ? &m->rx_total : &m->tx_total) += bytes;
	return rc;
}

int
uet_meas_rx_bytes(struct uet_meas *m, uint64_t now_ns, uint64_t bytes)
{
	return add_bytes(m, now_ns, bytes, true);
}

int
uet_meas_tx_bytes(struct uet_meas *m, uint64_t now_ns, uint64_t bytes)
{
	return add_bytes(m, now_ns, bytes, false);
}

uint64_t
uet_meas_timeline_bin_ns(const struct uet_meas *m)
{
	return m->bin_ns;
}

int
uet_meas_timeline_add(struct uet_meas *m, uint64_t t_ns, uint64_t width_ns, uint64_t rx_bytes,
		      uint64_t tx_bytes, uint64_t retx_pkts)
{
	struct bin add = { rx_bytes, tx_bytes, retx_pkts }, *b;
	uint64_t k = width_ns / m->cfg.bin_ns;

	if (t_ns < m->cfg.start_ns || width_ns % m->cfg.bin_ns != 0 || k == 0 ||
	    (k & (k - 1)) != 0 || (t_ns - m->cfg.start_ns) % width_ns != 0)
		return UET_ERR_INVAL;
	while (m->bin_ns < width_ns)
		widen(m);
	if (bin_at(m, t_ns, &b) != 0)
		return UET_ERR_NOBUFS;
	bin_add(b, &add);
	return 0;
}

int
uet_meas_interval_add(struct uet_meas *m, size_t i, uint64_t rx_bytes, uint64_t tx_bytes,
		      uint64_t retx_pkts)
{
	struct bin add = { rx_bytes, tx_bytes, retx_pkts }, *b;

	if (m->cfg.interval_ns == 0)
		return UET_ERR_INVAL;
	if (series_at(&m->ivs, i, m->cfg.max_bins, &b) != 0)
		return UET_ERR_NOBUFS;
	bin_add(b, &add);
	return 0;
}

void
uet_meas_totals_add(struct uet_meas *m, uint64_t rx_bytes, uint64_t tx_bytes)
{
	m->rx_total += rx_bytes;
	m->tx_total += tx_bytes;
}

static bool
ev_in_set(const struct uet_meas *m, uint16_t ev)
{
	return ev >= m->cfg.ev_base &&
	       (uint32_t)(ev - m->cfg.ev_base) < m->cfg.ev_count;
}

static int
ev_add(struct uet_meas *m, uint64_t *arr, uint16_t ev, uint64_t n)
{
	if (!ev_in_set(m, ev)) {
		m->bad.ev++;
		return UET_ERR_INVAL;
	}
	arr[ev - m->cfg.ev_base] += n;
	return 0;
}

int
uet_meas_ev_tx(struct uet_meas *m, uint16_t ev)
{
	return ev_add(m, m->ev_tx, ev, 1);
}

int
uet_meas_ev_ce(struct uet_meas *m, uint16_t ev)
{
	return ev_add(m, m->ev_ce, ev, 1);
}

int
uet_meas_ev_add(struct uet_meas *m, uint16_t ev, uint64_t tx_pkts, uint64_t ce_acks)
{
	int rc = ev_add(m, m->ev_tx, ev, tx_pkts);

	if (rc == 0)
		m->ev_ce[ev - m->cfg.ev_base] += ce_acks;
	return rc;
}

static void
copy_cut(char *dst, size_t cap, const char *src)
{
	size_t n = 0;

	if (src != NULL)
		while (n + 1 < cap && src[n] != '\0') {
			dst[n] = src[n];
			n++;
		}
	dst[n] = '\0';
}

int
uet_meas_event(struct uet_meas *m, uint64_t now_ns, const char *kind,
	       const char *detail)
{
	struct uet_meas_event *e;
	size_t i;

	if (kind == NULL)
		return UET_ERR_INVAL;
	if (m->n_events >= m->cfg.max_events) {
		m->bad.events_full++;
		return UET_ERR_NOBUFS;
	}
	if (m->n_events == m->events_cap) {
		size_t cap = m->events_cap ? m->events_cap * 2 : 16;
		struct uet_meas_event *ne;

		if (cap > m->cfg.max_events)
			cap = m->cfg.max_events;
		ne = realloc(m->events, cap * sizeof(*ne));
		if (ne == NULL) {
			m->bad.events_full++;
			return UET_ERR_NOBUFS;
		}
		m->events = ne;
		m->events_cap = cap;
	}
	/* In time order, ties in call order: events of several lcores or
	 * processes merged, or a simulation's failures added at its end,
	 * come late. Most come in order: look from the end. */
	for (i = m->n_events; i > 0 && m->events[i - 1].now_ns > now_ns; i--)
		;
	memmove(&m->events[i + 1], &m->events[i], (m->n_events - i) * sizeof(*m->events));
	m->n_events++;
	e = &m->events[i];
	e->now_ns = now_ns;
	copy_cut(e->kind, sizeof(e->kind), kind);
	copy_cut(e->detail, sizeof(e->detail), detail);
	return 0;
}

static void
stats_reported(struct uet_meas *m)
{
#define X_REP(f) m->stats_rep.f = m->stats.f - m->stats_base.f;
	UET_EP_STATS_FIELDS(X_REP)
#undef X_REP
}

int
uet_meas_set_ep_stats(struct uet_meas *m, uint64_t now_ns,
		      const struct uet_ep_stats *sum)
{
	bool back = false;

#define X_BACK(f) back |= sum->f < m->stats.f;
	UET_EP_STATS_FIELDS(X_BACK)
#undef X_BACK
	if (back) {
		m->bad.stats++;
		m->stats = *sum;
		stats_reported(m);
		return UET_ERR_INVAL;
	}
	/* Retransmissions before the start count in the first bin. */
	if (sum->tx_retx_pkts > m->stats.tx_retx_pkts && now_ns != UET_MEAS_NO_TIME) {
		struct bin add = { 0, 0, sum->tx_retx_pkts - m->stats.tx_retx_pkts };

		(void)count_at(m, now_ns < m->cfg.start_ns ? m->cfg.start_ns : now_ns, &add);
	}
	m->stats = *sum;
	stats_reported(m);
	return 0;
}

void
uet_meas_add_ep_stats(struct uet_ep_stats *sum, const struct uet_ep_stats *one)
{
#define X_ADD(f) sum->f += one->f;
	UET_EP_STATS_FIELDS(X_ADD)
#undef X_ADD
}

void
uet_meas_omit_end(struct uet_meas *m)
{
	if (m->omit_ended)
		return;
	m->omit_ended = true;
	m->stats_base = m->stats;
	m->nic_base = m->nic;
	m->net_base = m->net;
	memset(m->ev_tx, 0, (m->cfg.ev_count ? m->cfg.ev_count : 1) * sizeof(uint64_t));
	memset(m->ev_ce, 0, (m->cfg.ev_count ? m->cfg.ev_count : 1) * sizeof(uint64_t));
	stats_reported(m);
}

bool
uet_meas_measuring(const struct uet_meas *m, uint64_t now_ns)
{
	return now_ns >= m->cfg.start_ns + m->cfg.omit_ns;
}

void
uet_meas_verify(struct uet_meas *m, uint64_t checked_msgs, uint64_t bad_msgs)
{
	m->verify_checked += checked_msgs;
	m->verify_bad += bad_msgs;
}

/* ---- read back ---- */

const struct uet_meas_config *
uet_meas_config(const struct uet_meas *m)
{
	return &m->cfg;
}

const struct uet_meas_bad *
uet_meas_bad(const struct uet_meas *m)
{
	return &m->bad;
}

size_t
uet_meas_bin_count(const struct uet_meas *m)
{
	return m->bins.used;
}

void
uet_meas_bin(const struct uet_meas *m, size_t i, uint64_t *rx_bytes,
	     uint64_t *tx_bytes, uint64_t *retx_pkts)
{
	struct bin z = { 0, 0, 0 };
	const struct bin *b = i < m->bins.used ? &m->bins.v[i] : &z;

	if (rx_bytes != NULL)
		*rx_bytes = b->rx_bytes;
	if (tx_bytes != NULL)
		*tx_bytes = b->tx_bytes;
	if (retx_pkts != NULL)
		*retx_pkts = b->retx_pkts;
}

void
uet_meas_totals(const struct uet_meas *m, uint64_t *rx_bytes,
		uint64_t *tx_bytes)
{
	*rx_bytes = m->rx_total;
	*tx_bytes = m->tx_total;
}

int
uet_meas_ev_get(const struct uet_meas *m, uint16_t ev, uint64_t *tx_pkts,
		uint64_t *ce_acks)
{
	if (!ev_in_set(m, ev))
		return UET_ERR_INVAL;
	*tx_pkts = m->ev_tx[ev - m->cfg.ev_base];
	*ce_acks = m->ev_ce[ev - m->cfg.ev_base];
	return 0;
}

int
uet_meas_flow_get(const struct uet_meas *m, uint32_t flow,
		  struct uet_meas_flow_rec *r)
{
	const struct flow_st *f;
	bool src_done, dst_done;

	if (flow >= m->cfg.n_flows)
		return UET_ERR_INVAL;
	f = &m->flows[flow];
	r->flow = f->d;
	r->submit_ns = f->submit_ns;
	r->send_done_ns = f->send_done_ns;
	r->recv_done_ns = f->recv_done_ns;
	r->send_status = f->send_status;
	r->fct_ns = UET_MEAS_NO_TIME;
	r->fct_recv_ns = UET_MEAS_NO_TIME;
	r->msgs_acked = r->msgs_failed = r->msgs_received = 0;
	if (m->cfg.repeat) {
		r->msgs_acked = f->msgs_acked;
		r->msgs_failed = f->msgs_failed;
		r->msgs_received = f->msgs_received;
		r->bytes_acked = f->msgs_acked * f->d.size_bytes;
		r->bytes_received = f->msgs_received * f->d.size_bytes;
		/* A stream is ok when no message failed and each local end
		 * completed at least one. */
		if (f->local == 0)
			r->status = UET_MEAS_REMOTE;
		else if (f->msgs_failed > 0)
			r->status = UET_MEAS_FAILED;
		else if ((!(f->local & LOCAL_SRC) || f->msgs_acked > 0) &&
			 (!(f->local & LOCAL_DST) || f->msgs_received > 0))
			r->status = UET_MEAS_OK;
		else
			r->status = UET_MEAS_PENDING;
		return 0;
	}
	src_done = !(f->local & LOCAL_SRC) || f->send_done_ns != UET_MEAS_NO_TIME;
	dst_done = !(f->local & LOCAL_DST) || f->recv_done_ns != UET_MEAS_NO_TIME;
	if ((f->local & LOCAL_SRC) && f->send_done_ns != UET_MEAS_NO_TIME) {
		if (f->send_status == 0)
			r->msgs_acked = 1;
		else
			r->msgs_failed = 1;
	}
	if ((f->local & LOCAL_DST) && f->recv_done_ns != UET_MEAS_NO_TIME)
		r->msgs_received = 1;
	r->bytes_acked = r->msgs_acked * f->d.size_bytes;
	r->bytes_received = r->msgs_received * f->d.size_bytes;
	if (f->local == 0)
		r->status = UET_MEAS_REMOTE;
	else if (f->send_done_ns != UET_MEAS_NO_TIME && f->send_status != 0)
		r->status = UET_MEAS_FAILED;
	else if (src_done && dst_done)
		r->status = UET_MEAS_OK;
	else
		r->status = UET_MEAS_PENDING;
	if (r->status != UET_MEAS_OK || f->submit_ns == UET_MEAS_NO_TIME)
		return 0;
	if (f->send_done_ns != UET_MEAS_NO_TIME && f->send_done_ns >= f->submit_ns)
		r->fct_ns = f->send_done_ns - f->submit_ns;
	if (f->one_clock && f->recv_done_ns != UET_MEAS_NO_TIME && f->recv_done_ns >= f->submit_ns)
		r->fct_recv_ns = f->recv_done_ns - f->submit_ns;
	return 0;
}

size_t
uet_meas_event_count(const struct uet_meas *m)
{
	return m->n_events;
}

const struct uet_meas_event *
uet_meas_event_get(const struct uet_meas *m, size_t i)
{
	return i < m->n_events ? &m->events[i] : NULL;
}

const struct uet_ep_stats *
uet_meas_ep_stats(const struct uet_meas *m)
{
	return &m->stats_rep;
}

void
uet_meas_verify_get(const struct uet_meas *m, uint64_t *checked_msgs,
		    uint64_t *bad_msgs)
{
	*checked_msgs = m->verify_checked;
	*bad_msgs = m->verify_bad;
}

uint64_t
uet_meas_percentile(const uint64_t *sorted, size_t n, uint32_t p_milli)
{
	uint64_t rank;

	if (n == 0)
		return 0;
	if (p_milli > 100000)
		p_milli = 100000;
	/* Nearest rank: ceil(p/100 * n), in integers so that p99.9 of 1000
	 * samples is exactly rank 999. */
	rank = ((uint64_t)p_milli * n + 99999) / 100000;
	if (rank == 0)
		rank = 1;
	return sorted[rank - 1];
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

const uint32_t uet_meas_cdf_p_milli[UET_MEAS_CDF_POINTS] = {
	0,     1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,  9000,  10000, 11000,
	12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000, 20000, 21000, 22000, 23000,
	24000, 25000, 26000, 27000, 28000, 29000, 30000, 31000, 32000, 33000, 34000, 35000,
	36000, 37000, 38000, 39000, 40000, 41000, 42000, 43000, 44000, 45000, 46000, 47000,
	48000, 49000, 50000, 51000, 52000, 53000, 54000, 55000, 56000, 57000, 58000, 59000,
	60000, 61000, 62000, 63000, 64000, 65000, 66000, 67000, 68000, 69000, 70000, 71000,
	72000, 73000, 74000, 75000, 76000, 77000, 78000, 79000, 80000, 81000, 82000, 83000,
	84000, 85000, 86000, 87000, 88000, 89000, 90000, 91000, 92000, 93000, 94000, 95000,
	96000, 97000, 98000, 99000, 99500, 99900, 99990, 100000,
};

/* Sorts v[0..n-1] and fills *out (zeroed first). */
static void
summarize(uint64_t *v, size_t n, uint64_t sum, struct uet_meas_fct *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	qsort(v, n, sizeof(*v), cmp_u64);
	out->count = n;
	out->min_ns = v[0];
	out->max_ns = v[n - 1];
	out->mean_ns = sum / n;
	out->p50_ns = uet_meas_percentile(v, n, 50000);
	out->p99_ns = uet_meas_percentile(v, n, 99000);
	out->p999_ns = uet_meas_percentile(v, n, 99900);
	for (i = 0; i < UET_MEAS_CDF_POINTS; i++)
		out->cdf_ns[i] = uet_meas_percentile(v, n, uet_meas_cdf_p_milli[i]);
}

static int
fct_summary(const struct uet_meas *m, bool recv, struct uet_meas_fct *out)
{
	uint64_t *v, sum = 0;
	size_t n = 0;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	if (m->cfg.repeat && recv)
		return 0;
	if (m->cfg.repeat) {
		v = malloc((m->fct.n ? m->fct.n : 1) * sizeof(*v));
		if (v == NULL)
			return UET_ERR_NOMEM;
		n = samples_copy(&m->fct, v, &sum);
		goto summary;
	}
	v = malloc((m->cfg.n_flows ? m->cfg.n_flows : 1) * sizeof(*v));
	if (v == NULL)
		return UET_ERR_NOMEM;
	for (i = 0; i < m->cfg.n_flows; i++) {
		struct uet_meas_flow_rec r;

		uet_meas_flow_get(m, i, &r);
		if ((recv ? r.fct_recv_ns : r.fct_ns) != UET_MEAS_NO_TIME) {
			v[n] = recv ? r.fct_recv_ns : r.fct_ns;
			sum += v[n++];
		}
	}
summary:
	summarize(v, n, sum, out);
	free(v);
	return 0;
}

int
uet_meas_rtt(const struct uet_meas *m, const uint32_t *out_flow, const uint32_t *back_flow,
	     size_t n_pairs, struct uet_meas_rtt *out)
{
	uint64_t *v, sum = 0;
	double sq = 0, mean;
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	if (m == NULL || (n_pairs > 0 && (out_flow == NULL || back_flow == NULL)))
		return UET_ERR_INVAL;
	if (m->cfg.repeat)
		n_pairs = 0;
	v = malloc((m->cfg.repeat ? m->rtt.n + 1 : n_pairs + 1) * sizeof(*v));
	if (v == NULL)
		return UET_ERR_NOMEM;
	if (m->cfg.repeat)
		n = samples_copy(&m->rtt, v, &sum);
	for (i = 0; i < n_pairs; i++) {
		struct uet_meas_flow_rec o, b;

		if (uet_meas_flow_get(m, out_flow[i], &o) != 0 ||
		    uet_meas_flow_get(m, back_flow[i], &b) != 0 || o.status != UET_MEAS_OK ||
		    b.status != UET_MEAS_OK || o.submit_ns == UET_MEAS_NO_TIME ||
		    b.recv_done_ns == UET_MEAS_NO_TIME || b.recv_done_ns < o.submit_ns)
			continue;
		v[n] = b.recv_done_ns - o.submit_ns;
		sum += v[n++];
	}
	summarize(v, n, sum, &out->rtt);
	if (n > 1) {
		mean = (double)sum / (double)n;
		for (i = 0; i < n; i++)
			sq += ((double)v[i] - mean) * ((double)v[i] - mean);
		/* The sample's, as perftest's t_stdev. */
		out->stdev_ns = (uint64_t)(sqrt(sq / (double)(n - 1)) + 0.5);
	}
	/* Past the reservoir's cap the statistics are the kept sample's;
	 * the count is every round trip. */
	if (m->cfg.repeat)
		out->rtt.count = m->rtt.offered;
	free(v);
	return 0;
}

void
uet_meas_set_net(struct uet_meas *m, const struct uet_meas_net *n)
{
	m->net = *n;
	m->net_known = true;
}

bool
uet_meas_net(const struct uet_meas *m, struct uet_meas_net *out)
{
	memset(out, 0, sizeof(*out));
	if (m->net_known) {
		out->drops = m->net.drops - m->net_base.drops;
		out->trims = m->net.trims - m->net_base.trims;
		out->ecn_marks = m->net.ecn_marks - m->net_base.ecn_marks;
	}
	return m->net_known;
}

_Static_assert(sizeof(struct uet_meas_nic) % sizeof(uint64_t) == 0,
	       "uet_meas_nic must be all uint64_t");

void
uet_meas_nic_add(struct uet_meas_nic *dst, const struct uet_meas_nic *src, int sign)
{
	uint64_t *d = (uint64_t *)dst;
	const uint64_t *s = (const uint64_t *)src;
	size_t i;

	for (i = 0; i < sizeof(*dst) / sizeof(uint64_t); i++)
		d[i] += sign < 0 ? -s[i] : s[i];
}

void
uet_meas_set_nic(struct uet_meas *m, const struct uet_meas_nic *n)
{
	m->nic = *n;
	m->nic_known = true;
}

bool
uet_meas_nic(const struct uet_meas *m, struct uet_meas_nic *out)
{
	if (m->nic_known) {
		*out = m->nic;
		uet_meas_nic_add(out, &m->nic_base, -1);
	}
	return m->nic_known;
}

int
uet_meas_fct(const struct uet_meas *m, struct uet_meas_fct *out)
{
	return fct_summary(m, false, out);
}

int
uet_meas_fct_recv(const struct uet_meas *m, struct uet_meas_fct *out)
{
	return fct_summary(m, true, out);
}

bool
uet_meas_flows_ok(const struct uet_meas *m)
{
	uint32_t i;

	for (i = 0; i < m->cfg.n_flows; i++) {
		struct uet_meas_flow_rec r;

		(void)uet_meas_flow_get(m, i, &r);
		if (r.status == UET_MEAS_FAILED || (!m->cfg.repeat && r.status == UET_MEAS_PENDING))
			return false;
	}
	return true;
}

bool
uet_meas_completion_ns(const struct uet_meas *m, uint64_t *ns)
{
	uint64_t last = 0;
	bool any = false;
	uint32_t i;

	for (i = 0; i < m->cfg.n_flows; i++) {
		const struct flow_st *f = &m->flows[i];

		if (f->send_done_ns != UET_MEAS_NO_TIME &&
		    (!any || f->send_done_ns > last)) {
			last = f->send_done_ns;
			any = true;
		}
		if (f->recv_done_ns != UET_MEAS_NO_TIME &&
		    (!any || f->recv_done_ns > last)) {
			last = f->recv_done_ns;
			any = true;
		}
	}
	if (any)
		*ns = last > m->cfg.start_ns ? last - m->cfg.start_ns : 0;
	return any;
}

size_t
uet_meas_interval_count(const struct uet_meas *m, uint64_t now_ns, bool partial)
{
	uint64_t rel;

	if (m->cfg.interval_ns == 0 || now_ns <= m->cfg.start_ns)
		return 0;
	rel = now_ns - m->cfg.start_ns;
	return rel / m->cfg.interval_ns +
	       (partial && rel % m->cfg.interval_ns != 0);
}

bool
uet_meas_tail_shown(uint64_t len_ns, uint64_t interval_ns, bool counted)
{
	return counted || len_ns * 10 >= interval_ns;
}

void
uet_meas_interval_get(const struct uet_meas *m, size_t i, uint64_t now_ns,
		      struct uet_meas_interval *out)
{
	uint64_t rel = now_ns > m->cfg.start_ns ? now_ns - m->cfg.start_ns : 0;

	memset(out, 0, sizeof(*out));
	if (m->cfg.interval_ns == 0)
		return;
	out->start_ns = i * m->cfg.interval_ns;
	out->end_ns = out->start_ns + m->cfg.interval_ns;
	out->omitted = out->end_ns <= m->cfg.omit_ns;
	if (out->end_ns > rel && rel > out->start_ns)
		out->end_ns = rel;
	if (i < m->ivs.used) {
		out->rx_bytes = m->ivs.v[i].rx_bytes;
		out->tx_bytes = m->ivs.v[i].tx_bytes;
		out->retx_pkts = m->ivs.v[i].retx_pkts;
	}
}

static void
merge_time(uint64_t *dst, uint64_t src, bool later)
{
	if (src == UET_MEAS_NO_TIME)
		return;
	if (*dst == UET_MEAS_NO_TIME || (later ? src > *dst : src < *dst))
		*dst = src;
}

int
uet_meas_merge(struct uet_meas *dst, const struct uet_meas *src)
{
	const struct uet_meas_config *a = &dst->cfg, *b = &src->cfg;
	size_t i;
	uint32_t k;

	if (a->n_flows != b->n_flows || a->ev_base != b->ev_base || a->ev_count != b->ev_count ||
	    a->start_ns != b->start_ns || a->bin_ns != b->bin_ns || a->repeat != b->repeat ||
	    a->omit_ns != b->omit_ns || a->interval_ns != b->interval_ns)
		return UET_ERR_INVAL;
	for (k = 0; k < a->n_flows; k++) {
		struct flow_st *d = &dst->flows[k];
		const struct flow_st *s = &src->flows[k];

		if (s->submit_ns == UET_MEAS_NO_TIME && s->send_done_ns == UET_MEAS_NO_TIME &&
		    s->recv_done_ns == UET_MEAS_NO_TIME)
			continue;
		d->one_clock = d->one_clock && s->one_clock;
		merge_time(&d->submit_ns, s->submit_ns, false);
		if (s->send_done_ns != UET_MEAS_NO_TIME &&
		    (d->send_done_ns == UET_MEAS_NO_TIME || s->send_status != 0))
			d->send_status = s->send_status;
		merge_time(&d->send_done_ns, s->send_done_ns, true);
		merge_time(&d->recv_done_ns, s->recv_done_ns, true);
		d->msgs_acked += s->msgs_acked;
		d->msgs_failed += s->msgs_failed;
		d->msgs_received += s->msgs_received;
	}
	/* Both widths are cfg.bin_ns times a power of two: each of src's bins
	 * falls in one of dst's once dst is at least as wide. */
	while (dst->bin_ns < src->bin_ns)
		widen(dst);
	for (i = 0; i < src->bins.used; i++)
		if (uet_meas_timeline_add(dst, a->start_ns + i * src->bin_ns, src->bin_ns,
					  src->bins.v[i].rx_bytes, src->bins.v[i].tx_bytes,
					  src->bins.v[i].retx_pkts) != 0)
			dst->bad.timeline_full++;
	for (i = 0; i < src->ivs.used; i++)
		if (uet_meas_interval_add(dst, i, src->ivs.v[i].rx_bytes, src->ivs.v[i].tx_bytes,
					  src->ivs.v[i].retx_pkts) != 0)
			dst->bad.timeline_full++;
	dst->rx_total += src->rx_total;
	dst->tx_total += src->tx_total;
	for (k = 0; k < a->ev_count; k++) {
		dst->ev_tx[k] += src->ev_tx[k];
		dst->ev_ce[k] += src->ev_ce[k];
	}
	for (i = 0; i < src->n_events; i++)
		(void)uet_meas_event(dst, src->events[i].now_ns, src->events[i].kind,
				     src->events[i].detail);
	uet_meas_add_ep_stats(&dst->stats, &src->stats);
	uet_meas_add_ep_stats(&dst->stats_base, &src->stats_base);
	stats_reported(dst);
	dst->omit_ended = dst->omit_ended || src->omit_ended;
	if (src->nic_known) {
		uet_meas_nic_add(&dst->nic, &src->nic, 1);
		uet_meas_nic_add(&dst->nic_base, &src->nic_base, 1);
		dst->nic_known = true;
	}
	if (src->net_known) {
		dst->net.drops += src->net.drops;
		dst->net.trims += src->net.trims;
		dst->net.ecn_marks += src->net.ecn_marks;
		dst->net_base.drops += src->net_base.drops;
		dst->net_base.trims += src->net_base.trims;
		dst->net_base.ecn_marks += src->net_base.ecn_marks;
		dst->net_known = true;
	}
	dst->verify_checked += src->verify_checked;
	dst->verify_bad += src->verify_bad;
	dst->bad.flow += src->bad.flow;
	dst->bad.ev += src->bad.ev;
	dst->bad.time += src->bad.time;
	dst->bad.stats += src->bad.stats;
	dst->bad.timeline_full += src->bad.timeline_full;
	dst->bad.events_full += src->bad.events_full;
	if (samples_merge(&dst->fct, dst->cfg.max_fct_samples, &src->fct) != 0 ||
	    samples_merge(&dst->rtt, dst->cfg.max_fct_samples, &src->rtt) != 0)
		return UET_ERR_NOMEM;
	return 0;
}
