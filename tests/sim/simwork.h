/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TESTS_SIMWORK_H_
#define UET_TESTS_SIMWORK_H_

/*
 * A checking workload for simulator tests: messages with a known byte
 * pattern, sent between simulated hosts, each verified to arrive exactly
 * once and byte-exact, with exactly one successful sender completion.
 * The message tag is its index here, so any host can find it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uet/prng.h"
#include "sim/sim.h"

struct sw_msg {
	uint32_t src, dst;
	uint32_t len;
	uint16_t stream;
	uint8_t *buf;
	uint8_t *seen;     /* per byte: deliveries */
	uint64_t submit_ns, tx_ns, rx_ns;
	int tx_done, tx_status, rx_done, rx_aborted;
	bool lost;         /* its sender's process died before it completed:
			    * no completion will ever come */
	uint64_t bad_bytes;
	uint64_t got_bytes;  /* payload delivered so far (duplicates included) */
	bool submitted;
};

struct sw;

struct sw_host {
	struct sw *w;
	uint32_t idx;
	/* Receive-side matching (uet_ep_config.max_posted_recvs): one
	 * receive per buffer, each taking any message, reposted when done. */
	uint8_t *rbuf;
	uint32_t nrecv;
	uint32_t *pending;  /* message indices refused with NOBUFS, FIFO */
	uint32_t npend, pend_head;
};

struct sw {
	struct sim *s;
	struct sw_msg *m;
	uint32_t n, cap;
	struct sw_host *hosts;
	uint32_t nhosts;
	uint64_t unexpected;     /* callbacks for unknown tags */
	uint32_t tx_finished, rx_finished;
	bool retry_armed;        /* sw_retry_ev pending */
	int32_t cut_host;        /* a host cut off for good (-1: none): its
				  * messages must end at their senders, and
				  * may fail there */
	int32_t crash_host;      /* a host whose process dies and restarts
				  * (-1: none): its messages, either way,
				  * may fail */
	bool may_fail;           /* every message may fail at its sender (PDC
				  * tables too small for the peers): each must
				  * still end, and nothing arrive twice */
	bool zero_payload;       /* send without buffers: the payloads nobody
				  * fills must arrive as zeros (the simulator
				  * does not store them) */
};

static inline uint8_t
sw_pattern(uint64_t tag, uint32_t off)
{
	return (uint8_t)(uet_mix64(tag * 0x100000001b3ULL + (off >> 3)) >> ((off & 7) * 8));
}

static inline void
sw_rx_data(void *user, const struct uet_rx_data *d)
{
	struct sw_host *h = user;
	struct sw *w = h->w;
	struct sw_msg *m;
	uint32_t i;

	if (d->tag >= w->n || w->m[d->tag].dst != h->idx) {
		w->unexpected++;
		return;
	}
	m = &w->m[d->tag];
	m->got_bytes += d->len;
	for (i = 0; i < d->len; i++) {
		uint64_t off = (uint64_t)d->offset + i;

		if (off >= m->len) {
			m->bad_bytes++;
			continue;
		}
		m->seen[off]++;
		if (d->data[i] != (w->zero_payload ? 0 : sw_pattern(d->tag, (uint32_t)off)))
			m->bad_bytes++;
	}
}

static inline void
sw_rx_msg(void *user, const struct uet_rx_msg *x)
{
	struct sw_host *h = user;
	struct sw *w = h->w;
	struct sw_msg *m;

	if (x->tag >= w->n || w->m[x->tag].dst != h->idx) {
		w->unexpected++;
		return;
	}
	m = &w->m[x->tag];
	if (x->status != 0) {
		m->rx_aborted++;
		return;
	}
	if (m->rx_done++ == 0)
		w->rx_finished++;
	m->rx_ns = x->done_ns;
}

static void sw_retry(struct sw *w, struct sw_host *h);

/* The largest message the workloads send. */
#define SW_MAX_MSG 262144

static inline void
sw_post(struct sw *w, struct sw_host *h, uint32_t b)
{
	struct uet_recv_req q = { .buf = h->rbuf + (size_t)b * SW_MAX_MSG, .len = SW_MAX_MSG,
				  .tagged = true, .ignore = ~0ULL, .user = (void *)(uintptr_t)b };

	if (uet_ep_post_recv(sim_host_ep(w->s, h->idx), &q, NULL, sim_now_ns(w->s)) != 0)
		abort(); /* one receive per buffer: never more than the pool */
}

/* A receive completed: the message it took, checked whole. */
static inline void
sw_recv_done(void *user, const struct uet_recv_done *x)
{
	struct sw_host *h = user;
	struct sw *w = h->w;
	uint32_t b = (uint32_t)(uintptr_t)x->user, i;
	const uint8_t *data = h->rbuf + (size_t)b * SW_MAX_MSG;
	struct sw_msg *m;

	if (x->tag >= w->n || w->m[x->tag].dst != h->idx) {
		w->unexpected++;
	} else if (x->status != 0) {
		w->m[x->tag].rx_aborted++;
	} else {
		m = &w->m[x->tag];
		if (x->len != m->len || x->msg_len != m->len)
			m->bad_bytes++;
		m->got_bytes += x->len;
		for (i = 0; i < x->len && i < m->len; i++) {
			m->seen[i]++;
			if (data[i] != (w->zero_payload ? 0 : sw_pattern(x->tag, i)))
				m->bad_bytes++;
		}
		if (m->rx_done++ == 0)
			w->rx_finished++;
		m->rx_ns = x->done_ns;
	}
	sw_post(w, h, b);
}

/* After the host's endpoint is attached (again): its receives. */
static inline void
sw_post_all(struct sw *w, uint32_t host, const struct uet_ep_config *c)
{
	struct sw_host *h = &w->hosts[host];
	uint32_t b;

	if (c->max_posted_recvs == 0)
		return;
	if (h->rbuf == NULL) {
		h->nrecv = c->max_posted_recvs;
		h->rbuf = malloc((size_t)h->nrecv * SW_MAX_MSG);
		if (h->rbuf == NULL)
			abort();
	}
	for (b = 0; b < h->nrecv; b++)
		sw_post(w, h, b);
}

static inline void
sw_tx_done(void *user, const struct uet_tx_done *x)
{
	struct sw_host *h = user;
	struct sw *w = h->w;
	struct sw_msg *m;

	if (x->tag >= w->n || w->m[x->tag].src != h->idx) {
		w->unexpected++;
		return;
	}
	m = &w->m[x->tag];
	if (m->tx_done++ == 0)
		w->tx_finished++;
	m->tx_status = x->status;
	m->tx_ns = x->done_ns;
	free(m->buf);
	m->buf = NULL;
	sw_retry(w, h);
}

static inline void
sw_init(struct sw *w, struct sim *s)
{
	uint32_t i;

	memset(w, 0, sizeof(*w));
	w->s = s;
	w->cut_host = -1;
	w->crash_host = -1;
	w->nhosts = sim_num_hosts(s);
	w->hosts = calloc(w->nhosts, sizeof(*w->hosts));
	for (i = 0; i < w->nhosts; i++) {
		w->hosts[i].w = w;
		w->hosts[i].idx = i;
	}
}

static inline void
sw_fini(struct sw *w)
{
	uint32_t i;

	for (i = 0; i < w->n; i++) {
		free(w->m[i].buf);
		free(w->m[i].seen);
	}
	for (i = 0; i < w->nhosts; i++) {
		free(w->hosts[i].pending);
		free(w->hosts[i].rbuf);
	}
	free(w->m);
	free(w->hosts);
}

/* A PDC that closed or failed freed a slot: sends refused for want of
 * one go now (as an application waits for its endpoint's resources). */
static inline void
sw_pdc_event(void *user, const struct uet_pdc_event *e)
{
	struct sw_host *h = user;

	if (e->kind == UET_PDC_EV_CLOSED || e->kind == UET_PDC_EV_FAILED)
		sw_retry(h->w, h);
}

/* Point an endpoint config's callbacks at this workload. */
/* A run with a job id takes PDCs from the fabric's hosts only. */
static bool
sw_peer_ok(void *user, uint32_t ip)
{
	struct sw_host *h = user;

	return sim_host_of_ip(h->w->s, ip) != UINT32_MAX;
}

static inline void
sw_ep_config(struct sw *w, uint32_t host, struct uet_ep_config *c)
{
	if (c->job_id != 0)
		c->cb.peer_ok = sw_peer_ok;
	c->cb.rx_data = sw_rx_data;
	c->cb.rx_msg = sw_rx_msg;
	c->cb.tx_done = sw_tx_done;
	c->cb.pdc_event = sw_pdc_event;
	c->cb.recv_done = sw_recv_done;
	c->user = &w->hosts[host];
}

static inline int
sw_try_send(struct sw *w, uint32_t idx)
{
	struct sw_msg *m = &w->m[idx];
	struct uet_send_req r;
	int rc;

	if (sim_host_ep(w->s, m->src) == NULL) {
		/* Its process is dead: the message dies with it. */
		m->lost = true;
		return 0;
	}
	memset(&r, 0, sizeof(r));
	r.dst_ip = sim_host_ip(w->s, m->dst);
	r.stream = m->stream;
	r.buf = w->zero_payload ? NULL : m->buf;
	r.len = m->len;
	r.tag = idx;
	rc = uet_ep_send(sim_host_ep(w->s, m->src), &r, sim_now_ns(w->s));
	if (rc == 0) {
		m->submitted = true;
		m->submit_ns = sim_now_ns(w->s);
		sim_host_kick(w->s, m->src);
	}
	return rc;
}

static void
sw_retry(struct sw *w, struct sw_host *h)
{
	while (h->npend > h->pend_head) {
		if (sw_try_send(w, h->pending[h->pend_head]) != 0)
			return;
		h->pend_head++;
	}
}

/* Define message (src -> dst, len) and send it now (or when the sender's
 * pools free up). Returns its index. */
static inline uint32_t
sw_add(struct sw *w, uint32_t src, uint32_t dst, uint32_t len, uint16_t stream)
{
	struct sw_msg *m;
	uint32_t i, idx;

	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->m = realloc(w->m, w->cap * sizeof(*w->m));
	}
	idx = w->n++;
	m = &w->m[idx];
	memset(m, 0, sizeof(*m));
	m->src = src;
	m->dst = dst;
	m->len = len;
	m->stream = stream;
	m->buf = malloc(len ? len : 1);
	m->seen = calloc(len ? len : 1, 1);
	for (i = 0; i < len; i++)
		m->buf[i] = sw_pattern(idx, i);
	return idx;
}

/* Sends refused for want of endpoint resources are tried again on the
 * completions and PDC events that free them, and every 50 us besides, as
 * an application's loop would: a slot also frees silently (a closed PDC's
 * quarantine ending). */
static void
sw_retry_ev(struct sim *s, void *a, uint64_t b)
{
	struct sw *w = a;
	uint32_t i;
	bool left = false;

	(void)b;
	w->retry_armed = false;
	for (i = 0; i < w->nhosts; i++) {
		sw_retry(w, &w->hosts[i]);
		left |= w->hosts[i].npend > w->hosts[i].pend_head;
	}
	if (left) {
		w->retry_armed = true;
		sim_at(s, sim_now_ps(s) + sim_ps(50000), sw_retry_ev, w, 0);
	}
}

static inline void
sw_send_now(struct sw *w, uint32_t idx)
{
	struct sw_host *h = &w->hosts[w->m[idx].src];

	if (h->npend > h->pend_head || sw_try_send(w, idx) != 0) {
		h->pending = realloc(h->pending, (h->npend + 1) * sizeof(uint32_t));
		h->pending[h->npend++] = idx;
		if (!w->retry_armed) {
			w->retry_armed = true;
			sim_at(w->s, sim_now_ps(w->s) + sim_ps(50000), sw_retry_ev, w, 0);
		}
	}
}

static void
sw_send_ev(struct sim *s, void *a, uint64_t b)
{
	(void)s;
	sw_send_now((struct sw *)a, (uint32_t)b);
}

/* Send message idx at time t_ns. */
static inline void
sw_send_at(struct sw *w, uint32_t idx, uint64_t t_ns)
{
	sim_at(w->s, sim_ps(t_ns), sw_send_ev, w, idx);
}

static inline bool
sw_involves(const struct sw_msg *m, int32_t host)
{
	return host >= 0 && (m->src == (uint32_t)host || m->dst == (uint32_t)host);
}

static inline bool
sw_doomed(const struct sw *w, const struct sw_msg *m)
{
	return w->may_fail || sw_involves(m, w->cut_host) || sw_involves(m, w->crash_host);
}

/* The host's process died (sim_host_crash): what it was sending dies with
 * it, what it had received is gone (a restarted process may receive it
 * again, once), what it had not yet handed to its endpoint too. */
static inline void
sw_crashed(struct sw *w, uint32_t host)
{
	struct sw_host *h = &w->hosts[host];
	uint32_t i;

	for (i = 0; i < w->n; i++) {
		struct sw_msg *m = &w->m[i];

		if (m->src == host && m->submitted && m->tx_done == 0)
			m->lost = true;
		if (m->dst == host) {
			if (m->rx_done > 0)
				w->rx_finished--;
			m->rx_done = 0;
			m->rx_aborted = 0;
			m->got_bytes = 0;
			m->bad_bytes = 0;
			memset(m->seen, 0, m->len ? m->len : 1);
		}
	}
	for (; h->pend_head < h->npend; h->pend_head++)
		w->m[h->pending[h->pend_head]].lost = true;
}

static inline bool
sw_all_done(const struct sw *w)
{
	uint32_t i;

	if (w->cut_host < 0 && w->crash_host < 0 && !w->may_fail)
		return w->tx_finished == w->n && w->rx_finished == w->n;
	/* A message that may fail is done once its sender knows (and, if it
	 * succeeded, its receiver). */
	for (i = 0; i < w->n; i++) {
		const struct sw_msg *m = &w->m[i];

		if (m->lost)
			continue;
		/* Delivered, or failed where it may; a success whose delivery
		 * died with a crashed receiver is done too. */
		if (m->tx_done == 0 ||
		    (m->rx_done == 0 && (!sw_doomed(w, m) ||
					 (m->tx_status == 0 && !sw_involves(m, w->crash_host)))))
			return false;
	}
	return true;
}

/* Run until every message is done at both ends, or limit. */
static inline bool
sw_run(struct sw *w, uint64_t limit_ns)
{
	uint64_t step = 10000000; /* check every 10 ms of simulated time */

	while (!sw_all_done(w)) {
		uint64_t next = sim_now_ns(w->s) + step;

		if (sim_now_ns(w->s) >= limit_ns)
			return false;
		if (next > limit_ns)
			next = limit_ns;
		sim_run_until(w->s, sim_ps(next));
		if (sim_events_pending(w->s) == 0 && !sw_all_done(w))
			return false;
	}
	return true;
}

/* Every message delivered exactly once, byte-exact, acked once, status 0.
 * On failure writes a reason into why. */
static inline bool
sw_check(const struct sw *w, char *why, size_t n)
{
	uint32_t i, j;

	if (w->unexpected != 0) {
		snprintf(why, n, "%llu callbacks for unknown messages",
			 (unsigned long long)w->unexpected);
		return false;
	}
	for (i = 0; i < w->n; i++) {
		const struct sw_msg *m = &w->m[i];

		if (sw_doomed(w, m)) {
			/* Once each at the sender (none if it died with its
			 * process); a success only for what was delivered;
			 * never twice, never a wrong byte. */
			if (m->tx_done != (m->lost ? 0 : 1) ||
			    (m->tx_done && m->tx_status == 0 && m->rx_done != 1 &&
			     !sw_involves(m, w->crash_host)) ||
			    m->rx_done > 1 || m->bad_bytes != 0) {
				snprintf(why, n, "msg %u (%u->%u, %u B, may fail; host %d cut "
					 "off): %d sender completions, status %d, delivered %d "
					 "times, %llu bad bytes", i, m->src, m->dst, m->len,
					 w->cut_host,
					 m->tx_done, m->tx_status, m->rx_done,
					 (unsigned long long)m->bad_bytes);
				return false;
			}
			for (j = 0; j < m->len; j++)
				if (m->seen[j] > 1) {
					snprintf(why, n, "msg %u: byte %u delivered %u times", i, j,
						 m->seen[j]);
					return false;
				}
			continue;
		}
		if (m->tx_done != 1 || m->tx_status != 0) {
			snprintf(why, n, "msg %u (%u->%u, %u B): %d sender completions, status %d",
				 i, m->src, m->dst, m->len, m->tx_done, m->tx_status);
			return false;
		}
		if (m->rx_done != 1 || m->rx_aborted != 0) {
			snprintf(why, n, "msg %u (%u->%u, %u B): delivered %d times, aborted %d",
				 i, m->src, m->dst, m->len, m->rx_done, m->rx_aborted);
			return false;
		}
		if (m->bad_bytes != 0) {
			snprintf(why, n, "msg %u: %llu bytes differ from the pattern", i,
				 (unsigned long long)m->bad_bytes);
			return false;
		}
		for (j = 0; j < m->len; j++) {
			if (m->seen[j] != 1) {
				snprintf(why, n, "msg %u: byte %u delivered %u times", i, j,
					 m->seen[j]);
				return false;
			}
		}
	}
	return true;
}

#endif /* UET_TESTS_SIMWORK_H_ */
