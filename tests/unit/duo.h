/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TESTS_DUO_H_
#define UET_TESTS_DUO_H_

/*
 * Two endpoints joined by an in-memory wire with a hook that can drop,
 * duplicate, delay or tamper with each packet. For unit tests that need to
 * script exactly what the network does; lib/sim is the model for anything
 * with queues, rates and paths.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uet/uet.h"

#define DUO_MAX_PKT (UET_DATA_HDR_LEN + 4096)
#define DUO_MAX_MSGS 256
#define DUO_QCAP 4096

struct duo_pkt {
	uint8_t buf[DUO_MAX_PKT];
	uint32_t len;
	uint32_t src_ip;
	struct uet_tx_meta meta;
	uint64_t deliver_ns;
	bool ce;
	uint8_t trimmed;
};

struct duo;
/* Return false to drop the packet; may edit it (and set p->deliver_ns). */
typedef bool (*duo_filter_fn)(struct duo *d, struct duo_pkt *p, bool a_to_b);

struct duo_rx_msg {
	uint32_t len;
	uint32_t got;
	uint8_t *seen;      /* per byte: times delivered */
	int done;           /* rx_msg callbacks with status 0 */
	int aborted;
	int bad_bytes;
};

struct duo_side {
	struct uet_ep *ep;
	uint32_t ip;
	struct duo_rx_msg rx[DUO_MAX_MSGS];
	int tx_done_ok, tx_done_err;
	int last_tx_status;
	int events[4];
	struct duo *d;
};

struct duo {
	struct duo_side a, b;
	uint64_t now;
	duo_filter_fn filter;
	void *filter_ctx;
	struct duo_pkt *q;   /* in flight, unordered; delivered by deliver_ns */
	uint32_t qn;
	uint64_t wire_ns;    /* one-way delay */
	bool write_each;     /* a side writes right after each packet it
	                      * reads, as the DPDK loop does */
	uint64_t a2b_pkts, b2a_pkts;
	uint64_t may_write_lies; /* uet_ep_may_write() said no, a packet came */
	uint8_t *bufs[1024]; /* message payloads, freed by duo_fini */
	uint32_t nbufs;
};

static inline uint8_t
duo_pattern(uint64_t tag, uint32_t off)
{
	return (uint8_t)((tag * 131 + off * 7 + (off >> 8)) ^ 0x5a);
}

static void
duo_rx_data(void *user, const struct uet_rx_data *x)
{
	struct duo_side *s = user;
	struct duo_rx_msg *m;
	uint32_t i;

	if (x->tag >= DUO_MAX_MSGS)
		return;
	m = &s->rx[x->tag];
	if (m->seen == NULL) {
		m->len = x->msg_len;
		m->seen = calloc(x->msg_len ? x->msg_len : 1, 1);
	}
	for (i = 0; i < x->len; i++) {
		if (x->offset + i >= m->len) {
			m->bad_bytes++;
			continue;
		}
		m->seen[x->offset + i]++;
		if (x->data[i] != duo_pattern(x->tag, x->offset + i))
			m->bad_bytes++;
	}
	m->got += x->len;
}

static void
duo_rx_msg(void *user, const struct uet_rx_msg *x)
{
	struct duo_side *s = user;

	if (x->tag >= DUO_MAX_MSGS)
		return;
	if (x->status == 0)
		s->rx[x->tag].done++;
	else
		s->rx[x->tag].aborted++;
	if (s->rx[x->tag].len == 0)
		s->rx[x->tag].len = x->msg_len;
}

static void
duo_tx_done(void *user, const struct uet_tx_done *x)
{
	struct duo_side *s = user;

	if (x->status == 0)
		s->tx_done_ok++;
	else
		s->tx_done_err++;
	s->last_tx_status = x->status;
}

static void
duo_pdc_event(void *user, const struct uet_pdc_event *e)
{
	struct duo_side *s = user;

	s->events[e->kind]++;
}

static inline void
duo_config(struct uet_ep_config *c)
{
	uet_ep_config_default(c);
	c->base_rtt_ns = 4000;
	c->link_bps = 100000000000ULL;
	c->cb.rx_data = duo_rx_data;
	c->cb.rx_msg = duo_rx_msg;
	c->cb.tx_done = duo_tx_done;
	c->cb.pdc_event = duo_pdc_event;
}

/* Create both endpoints from cfg (local_ip, seed and user are set here). */
static inline int
duo_init(struct duo *d, const struct uet_ep_config *cfg)
{
	struct uet_ep_config c = *cfg;
	int rc;

	memset(d, 0, sizeof(*d));
	d->q = calloc(DUO_QCAP, sizeof(*d->q));
	d->wire_ns = 1000;
	d->a.ip = 0x0a000001;
	d->b.ip = 0x0a000002;
	d->a.d = d->b.d = d;
	c.local_ip = d->a.ip;
	c.seed = cfg->seed;
	c.user = &d->a;
	rc = uet_ep_create(&c, &d->a.ep);
	if (rc < 0)
		return rc;
	c.local_ip = d->b.ip;
	c.seed = cfg->seed + 1;
	c.user = &d->b;
	return uet_ep_create(&c, &d->b.ep);
}

static inline void
duo_fini(struct duo *d)
{
	int i;

	/* Every test over the duo checks the I/O shortcut on the way. */
	assert_int_equal(d->may_write_lies, 0);
	uet_ep_destroy(d->a.ep);
	uet_ep_destroy(d->b.ep);
	for (i = 0; i < DUO_MAX_MSGS; i++) {
		free(d->a.rx[i].seen);
		free(d->b.rx[i].seen);
	}
	free(d->q);
	while (d->nbufs > 0)
		free(d->bufs[--d->nbufs]);
}

/* Queue a message of len bytes, the duo pattern of pat, with tag (as
 * UET_SEND when untagged) and user, from one side to the other. */
static inline int
duo_send_as(struct duo *d, struct duo_side *from, uint64_t tag, uint64_t pat, uint32_t len,
	    uint16_t stream, bool untagged, void *user)
{
	struct uet_send_req r;
	uint8_t *buf = malloc(len ? len : 1);
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = duo_pattern(pat, i);
	memset(&r, 0, sizeof(r));
	r.dst_ip = from == &d->a ? d->b.ip : d->a.ip;
	r.stream = stream;
	r.buf = buf;
	r.len = len;
	r.tag = tag;
	r.untagged = untagged;
	r.user = user;
	if (d->nbufs < sizeof(d->bufs) / sizeof(d->bufs[0]))
		d->bufs[d->nbufs++] = buf; /* kept until duo_fini: the endpoint
					    * reads it until tx_done */
	return uet_ep_send(from->ep, &r, d->now);
}

/* Queue message 'tag' of len bytes (the duo pattern) from one side to the other. */
static inline int
duo_send(struct duo *d, struct duo_side *from, uint64_t tag, uint32_t len, uint16_t stream)
{
	return duo_send_as(d, from, tag, tag, len, stream, false, NULL);
}

/* Pull every packet the side wants to send now onto the wire. */
static inline uint32_t
duo_drain(struct duo *d, struct duo_side *s)
{
	bool a_to_b = s == &d->a;
	uint32_t n = 0;

	while (d->qn < DUO_QCAP) {
		struct duo_pkt *p = &d->q[d->qn];
		bool may = uet_ep_may_write(s->ep);
		int len = uet_ep_write_pkt(s->ep, p->buf, sizeof(p->buf), &p->meta, d->now);

		/* The I/O loop's shortcut must never hide a packet. */
		if (!may && len > 0)
			d->may_write_lies++;
		if (len <= 0)
			break;
		p->len = (uint32_t)len;
		p->src_ip = s->ip;
		p->deliver_ns = d->now + d->wire_ns;
		p->ce = false;
		p->trimmed = 0;
		if (a_to_b)
			d->a2b_pkts++;
		else
			d->b2a_pkts++;
		if (d->filter == NULL || d->filter(d, p, a_to_b))
			d->qn++;
		n++;
	}
	return n;
}

static inline int
duo_deliver(struct duo *d, struct duo_pkt *p)
{
	struct duo_side *to = p->src_ip == d->a.ip ? &d->b : &d->a;
	struct uet_rx_meta m;

	m.src_ip = p->src_ip;
	m.ev = p->meta.ev;
	m.ce = p->ce;
	m.trimmed = p->trimmed;
	return uet_ep_read_pkt(to->ep, &m, p->buf, p->len, d->now);
}

/*
 * Run until nothing is on the wire and no timer is due before limit_ns.
 * Returns true if both endpoints are then idle (timers such as a closed
 * PDC's time-wait may still be pending).
 */
static inline bool
duo_run(struct duo *d, uint64_t limit_ns)
{
	for (;;) {
		uint64_t next = UINT64_MAX, t;
		uint32_t i;

		duo_drain(d, &d->a);
		duo_drain(d, &d->b);
		for (i = 0; i < d->qn; i++)
			if (d->q[i].deliver_ns < next)
				next = d->q[i].deliver_ns;
		t = uet_ep_next_deadline(d->a.ep);
		if (t < next)
			next = t;
		t = uet_ep_next_deadline(d->b.ep);
		if (t < next)
			next = t;
		if (next == UINT64_MAX)
			return uet_ep_idle(d->a.ep) && uet_ep_idle(d->b.ep);
		if (next > limit_ns)
			return d->qn == 0 && uet_ep_idle(d->a.ep) && uet_ep_idle(d->b.ep);
		if (next > d->now)
			d->now = next;
		/* Deliver everything due, oldest first (stable). */
		for (;;) {
			uint32_t best = UINT32_MAX;
			struct duo_pkt tmp;

			for (i = 0; i < d->qn; i++)
				if (d->q[i].deliver_ns <= d->now &&
				    (best == UINT32_MAX || d->q[i].deliver_ns < d->q[best].deliver_ns))
					best = i;
			if (best == UINT32_MAX)
				break;
			tmp = d->q[best];
			memmove(&d->q[best], &d->q[best + 1], (d->qn - best - 1) * sizeof(*d->q));
			d->qn--;
			duo_deliver(d, &tmp);
			if (d->write_each)
				duo_drain(d, tmp.src_ip == d->a.ip ? &d->b : &d->a);
		}
		uet_ep_handle_timeout(d->a.ep, d->now);
		uet_ep_handle_timeout(d->b.ep, d->now);
	}
}

/* A filter for a dead path: a's data never reaches b (its control
 * packets and b's answers do). */
static inline bool
duo_drop_data(struct duo *d, struct duo_pkt *p, bool a_to_b)
{
	(void)d;
	return !(a_to_b && (p->meta.kind == UET_PKT_DATA || p->meta.kind == UET_PKT_RETX));
}

/* Every byte of message tag delivered exactly once and intact. */
static inline bool
duo_msg_exact(const struct duo_side *s, uint64_t tag, uint32_t len)
{
	const struct duo_rx_msg *m = &s->rx[tag];
	uint32_t i;

	if (m->done != 1 || m->aborted != 0 || m->bad_bytes != 0 || m->len != len)
		return false;
	for (i = 0; i < len; i++)
		if (m->seen == NULL || m->seen[i] != 1)
			return false;
	return true;
}

#endif /* UET_TESTS_DUO_H_ */
