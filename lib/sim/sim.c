/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Discrete-event network simulator: engine, ports and queues, switching,
 * faults, host glue around the sans-I/O endpoint, and topology builders.
 * See sim.h for the model.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/prng.h"
#include "net/pcapw.h"
#include "sim/sim.h"
#include "uet/wire.h"

/* Preamble + SFD (8), FCS (4) and inter-frame gap (12): bytes a frame
 * occupies on the wire beyond what we store. */
#define WIRE_OVERHEAD 24
#define PKTS_PER_CHUNK 1024
/* Bytes kept by a trimming switch: frame headers + PDS + SES, so the
 * receiver can still name the PSN (UET trims to at least MIN_TRIM_SIZE). */
#define TRIM_LEN (UET_FRAME_HDR_LEN + UET_DATA_HDR_LEN)

enum node_kind { NODE_HOST = 0, NODE_SWITCH = 1 };

struct sim_pkt {
	struct sim_pkt *next;
	uint32_t len;
	uint8_t cls; /* 0: control and trimmed headers, 1: data */
	uint8_t corrupted;
	uint8_t data[];
};

struct pktq {
	struct sim_pkt *head, *tail;
	uint64_t bytes;
};

struct sim_node {
	uint8_t kind;
	uint32_t idx;         /* host or switch index */
	uint32_t first_port;  /* its ports are contiguous in s->ports */
	uint32_t nports;
	uint64_t seed;        /* switch ECMP hash seed */
	uint32_t *rt_first;   /* switch: per destination host, into rt_ports */
	uint16_t *rt_cnt;
};

struct sim_port {
	struct sim *s;
	struct sim_node *node;
	struct sim_port *peer;
	uint32_t gidx;
	uint64_t rate_bps;
	uint64_t lat_ps;      /* link latency + switch latency at the far end */
	uint64_t buf_bytes, kmin, kmax;
	bool trim;
	bool busy;
	bool up;
	struct pktq q[2];
	struct sim_fault fault;
	struct sim_port_stats st;
};

struct sim_host {
	struct sim_node *node;
	struct sim_port *port;
	struct uet_ep *ep;
	uint32_t ip;
	uint8_t mac[6];
	uint16_t ip_id;
	bool timer_armed;
	uint64_t timer_at;
	uint64_t timer_gen;
	struct uet_pcap *pcap;
	struct sim_host_stats st;
};

struct sim_ev {
	uint64_t t;
	uint64_t seq;
	sim_fn fn;
	void *a;
	uint64_t b;
};

struct sim {
	struct sim_config cfg;
	struct uet_prng rng;
	uint64_t now;
	uint64_t seq;
	struct sim_ev *heap;
	uint64_t heap_n, heap_cap;
	uint64_t events_run;

	uint32_t frame_cap;
	struct sim_pkt *free_pkts;
	void **chunks;
	uint32_t n_chunks, cap_chunks;

	struct sim_node *nodes;
	uint32_t n_nodes;
	struct sim_port *ports;
	uint32_t n_ports;
	struct sim_host *hosts;
	uint32_t n_hosts;
	uint32_t *rt_ports;
	uint32_t leaves, spines, hpl;
	uint32_t ip_base;
	uint64_t switch_drops;
	sim_fill_fn fill;
	void *fill_ctx;
};

/* ------------------------------------------------------------------ */
/* engine                                                              */

static inline bool
ev_less(const struct sim_ev *x, const struct sim_ev *y)
{
	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

void
sim_at(struct sim *s, uint64_t t, sim_fn fn, void *a, uint64_t b)
{
	struct sim_ev e = { .t = t < s->now ? s->now : t, .seq = s->seq++, .fn = fn,
			    .a = a, .b = b };
	uint64_t i;

	if (s->heap_n == s->heap_cap) {
		uint64_t nc = s->heap_cap ? s->heap_cap * 2 : 4096;
		struct sim_ev *nh = realloc(s->heap, nc * sizeof(*nh));

		assert(nh != NULL);
		if (nh == NULL)
			abort();
		s->heap = nh;
		s->heap_cap = nc;
	}
	i = s->heap_n++;
	while (i > 0) {
		uint64_t p = (i - 1) / 2;

		if (!ev_less(&e, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
}

static struct sim_ev
ev_pop(struct sim *s)
{
	struct sim_ev top = s->heap[0], last = s->heap[--s->heap_n];
	uint64_t i = 0, n = s->heap_n;

	for (;;) {
		uint64_t l = 2 * i + 1, r = l + 1, m = i;
		const struct sim_ev *best = &last;

		if (l < n && ev_less(&s->heap[l], best)) {
			m = l;
			best = &s->heap[l];
		}
		if (r < n && ev_less(&s->heap[r], best))
			m = r;
		if (m == i)
			break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	if (n > 0)
		s->heap[i] = last;
	return top;
}

uint64_t
sim_run_until(struct sim *s, uint64_t t)
{
	uint64_t n = 0;

	while (s->heap_n > 0 && s->heap[0].t <= t) {
		struct sim_ev e = ev_pop(s);

		s->now = e.t;
		e.fn(s, e.a, e.b);
		n++;
	}
	if (t > s->now)
		s->now = t;
	s->events_run += n;
	return n;
}

bool
sim_run_drain(struct sim *s, uint64_t t)
{
	while (s->heap_n > 0 && s->heap[0].t <= t) {
		struct sim_ev e = ev_pop(s);

		s->now = e.t;
		e.fn(s, e.a, e.b);
		s->events_run++;
	}
	return s->heap_n == 0;
}

uint64_t
sim_now_ps(const struct sim *s)
{
	return s->now;
}

uint64_t
sim_now_ns(const struct sim *s)
{
	return s->now / 1000;
}

uint64_t
sim_events_run(const struct sim *s)
{
	return s->events_run;
}

uint64_t
sim_events_pending(const struct sim *s)
{
	return s->heap_n;
}

/* ------------------------------------------------------------------ */
/* packets                                                             */

static struct sim_pkt *
pkt_alloc(struct sim *s)
{
	struct sim_pkt *p;

	if (s->free_pkts == NULL) {
		size_t sz = sizeof(struct sim_pkt) + s->frame_cap;
		uint8_t *chunk;
		uint32_t i;

		sz = (sz + 63) & ~(size_t)63;
		if (s->n_chunks == s->cap_chunks) {
			uint32_t nc = s->cap_chunks ? s->cap_chunks * 2 : 16;
			void **n = realloc(s->chunks, nc * sizeof(*n));

			if (n == NULL)
				abort();
			s->chunks = n;
			s->cap_chunks = nc;
		}
		chunk = calloc(PKTS_PER_CHUNK, sz);
		if (chunk == NULL)
			abort();
		s->chunks[s->n_chunks++] = chunk;
		for (i = 0; i < PKTS_PER_CHUNK; i++) {
			p = (struct sim_pkt *)(chunk + i * sz);
			p->next = s->free_pkts;
			s->free_pkts = p;
		}
	}
	p = s->free_pkts;
	s->free_pkts = p->next;
	p->next = NULL;
	p->corrupted = 0;
	return p;
}

static void
pkt_free(struct sim *s, struct sim_pkt *p)
{
	p->next = s->free_pkts;
	s->free_pkts = p;
}

static void
q_push(struct pktq *q, struct sim_pkt *p)
{
	p->next = NULL;
	if (q->tail != NULL)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->bytes += p->len;
}

static struct sim_pkt *
q_pop(struct pktq *q)
{
	struct sim_pkt *p = q->head;

	if (p == NULL)
		return NULL;
	q->head = p->next;
	if (q->head == NULL)
		q->tail = NULL;
	q->bytes -= p->len;
	p->next = NULL;
	return p;
}

/* ------------------------------------------------------------------ */
/* ports                                                               */

static void port_try_send(struct sim *s, struct sim_port *p);
static struct sim_pkt *host_pull(struct sim *s, struct sim_host *h);
static void node_receive(struct sim *s, void *port, uint64_t pkt);

static uint8_t
pkt_dscp(const struct sim_pkt *p)
{
	return p->data[UET_ETH_HLEN + 1] >> 2;
}

static uint8_t
classify(const struct sim *s, const struct sim_pkt *p)
{
	uint8_t d = pkt_dscp(p);

	return d == s->cfg.dscp.tc[UET_TC_DATA] || d == s->cfg.dscp.tc[UET_TC_RETX];
}

static void
port_tx_done(struct sim *s, void *a, uint64_t b)
{
	struct sim_port *p = a;

	(void)b;
	p->busy = false;
	port_try_send(s, p);
}

static void
ecn_on_dequeue(struct sim *s, struct sim_port *p, struct sim_pkt *pkt)
{
	uint64_t occ = p->q[1].bytes;
	bool mark;

	if (pkt->cls != 1 || p->kmax == 0 || occ <= p->kmin)
		return;
	if (occ >= p->kmax || p->kmax == p->kmin)
		mark = true;
	else
		mark = uet_prng_below(&s->rng, p->kmax - p->kmin) < occ - p->kmin;
	if (mark && uet_frame_mark_ce(pkt->data, UET_ETH_HLEN))
		p->st.ecn_marks++;
}

/*
 * Corruption the link's FCS missed (or that happened inside a switch): rare
 * enough that a packet suffers it at most once, which the end-to-end IPv4
 * and UDP checksums then always detect. Two such hits on one packet could
 * cancel out in the 16-bit one's-complement sum; real networks avoid that by
 * checking the FCS at every hop.
 */
static void
corrupt(struct sim *s, struct sim_pkt *pkt)
{
	/* Flip a non-empty set of bits inside one byte past the Ethernet
	 * header: the IPv4 or UDP checksum is then always wrong (a change
	 * within one 16-bit word cannot be a multiple of 0xffff). */
	uint32_t off = UET_ETH_HLEN + (uint32_t)uet_prng_below(&s->rng, pkt->len - UET_ETH_HLEN);
	uint8_t mask = (uint8_t)(1 + uet_prng_below(&s->rng, 255));

	pkt->data[off] ^= mask;
	pkt->corrupted = 1;
}

static void
port_try_send(struct sim *s, struct sim_port *p)
{
	struct sim_pkt *pkt;
	uint64_t tx_ps, arrive;
	int copies = 1, i;

	if (p->busy)
		return;
	pkt = q_pop(&p->q[0]);
	if (pkt == NULL) {
		pkt = q_pop(&p->q[1]);
		if (pkt != NULL)
			ecn_on_dequeue(s, p, pkt);
	}
	if (pkt == NULL && p->node->kind == NODE_HOST)
		pkt = host_pull(s, &s->hosts[p->node->idx]);
	if (pkt == NULL)
		return;
	p->busy = true;
	tx_ps = ((uint64_t)(pkt->len + WIRE_OVERHEAD) * 8 * 1000000000000ULL + p->rate_bps - 1) /
		p->rate_bps;
	sim_at(s, s->now + tx_ps, port_tx_done, p, 0);
	p->st.tx_pkts++;
	p->st.tx_bytes += pkt->len;
	p->st.last_tx_ns = s->now / 1000;

	if (!p->up || p->fault.blackhole) {
		p->st.drops_down++;
		pkt_free(s, pkt);
		return;
	}
	if (uet_prng_chance_ppm(&s->rng, p->fault.loss_ppm)) {
		p->st.drops_fault++;
		pkt_free(s, pkt);
		return;
	}
	/* A path that marks most packets without building a queue here: the
	 * steady-state view of a congested path, for LB tests. */
	if (pkt->cls == 1 && p->fault.ce_ppm != 0 && uet_prng_chance_ppm(&s->rng, p->fault.ce_ppm) &&
	    uet_frame_mark_ce(pkt->data, UET_ETH_HLEN))
		p->st.ecn_marks++;
	if (uet_prng_chance_ppm(&s->rng, p->fault.dup_ppm)) {
		p->st.dups++;
		copies = 2;
	}
	for (i = 0; i < copies; i++) {
		struct sim_pkt *c = pkt;

		if (i > 0) {
			c = pkt_alloc(s);
			c->len = pkt->len;
			c->cls = pkt->cls;
			c->corrupted = pkt->corrupted;
			memcpy(c->data, pkt->data, pkt->len);
		}
		if (uet_prng_chance_ppm(&s->rng, p->fault.corrupt_ppm) && !c->corrupted) {
			p->st.corrupts++;
			corrupt(s, c);
		}
		arrive = s->now + tx_ps + p->lat_ps;
		if (p->fault.jitter_ns > 0)
			arrive += uet_prng_below(&s->rng, sim_ps(p->fault.jitter_ns) + 1);
		sim_at(s, arrive, node_receive, p->peer, (uint64_t)(uintptr_t)c);
	}
}

static void
port_enqueue(struct sim *s, struct sim_port *p, struct sim_pkt *pkt)
{
	pkt->cls = classify(s, pkt);
	if (pkt->cls == 1 && p->q[1].bytes + pkt->len > p->buf_bytes) {
		if (!p->trim || pkt->len <= TRIM_LEN) {
			p->st.drops_queue++;
			pkt_free(s, pkt);
			return;
		}
		/* Cut to the headers and forward on the control class; the
		 * last hop before a host marks it so (incast, not the path). */
		pkt->len = (uint32_t)uet_frame_trim(pkt->data, pkt->len, UET_ETH_HLEN, TRIM_LEN,
						    p->peer->node->kind == NODE_HOST
							    ? s->cfg.dscp.trimmed_lasthop
							    : s->cfg.dscp.trimmed);
		pkt->cls = 0;
		p->st.trims++;
	}
	/* Headers and control get twice the data buffer (htsim's composite
	 * queue) before they too are dropped. */
	if (pkt->cls == 0 && p->q[0].bytes + pkt->len > 2 * p->buf_bytes + 65536) {
		p->st.drops_queue++;
		pkt_free(s, pkt);
		return;
	}
	q_push(&p->q[pkt->cls], pkt);
	if (p->q[0].bytes + p->q[1].bytes > p->st.max_queue_bytes)
		p->st.max_queue_bytes = p->q[0].bytes + p->q[1].bytes;
	port_try_send(s, p);
}

/* ------------------------------------------------------------------ */
/* switching                                                           */

static void
switch_forward(struct sim *s, struct sim_node *n, struct sim_pkt *pkt)
{
	const uint8_t *ip = pkt->data + UET_ETH_HLEN;
	uint32_t dst, host, first, cnt, pi;

	if (pkt->len < UET_FRAME_HDR_LEN ||
	    uet_get_be16(pkt->data + 12) != UET_ETHERTYPE_IPV4 ||
	    uet_csum_fold(uet_csum_partial(ip, UET_IPV4_HLEN, 0)) != 0xffff) {
		s->switch_drops++;
		pkt_free(s, pkt);
		return;
	}
	dst = uet_get_be32(ip + 16);
	host = dst - s->ip_base;
	if (host >= s->n_hosts) {
		s->switch_drops++;
		pkt_free(s, pkt);
		return;
	}
	first = n->rt_first[host];
	cnt = n->rt_cnt[host];
	if (cnt == 1) {
		pi = s->rt_ports[first];
	} else {
		/* ECMP over the 5-tuple: a new UDP source port (EV) picks a
		 * new path, as on a real switch. */
		uint64_t k = n->seed ^ ((uint64_t)uet_get_be32(ip + 12) << 32) ^ dst;

		k = uet_mix64(k ^ ((uint64_t)uet_get_be32(ip + 20) << 17) ^ ip[9]);
		pi = s->rt_ports[first + (uint32_t)(k % cnt)];
	}
	port_enqueue(s, &s->ports[pi], pkt);
}

/* ------------------------------------------------------------------ */
/* hosts                                                               */

static void host_after(struct sim *s, struct sim_host *h);

static void
host_timer_fire(struct sim *s, void *a, uint64_t gen)
{
	struct sim_host *h = a;

	if (gen != h->timer_gen)
		return;
	h->timer_armed = false;
	uet_ep_handle_timeout(h->ep, sim_now_ns(s));
	host_after(s, h);
}

/* Make sure an event fires at the endpoint's next deadline. A later
 * deadline leaves the earlier event in place: it finds nothing due and
 * re-arms. */
static void
host_timer_arm(struct sim *s, struct sim_host *h)
{
	uint64_t d = uet_ep_next_deadline(h->ep), t;

	if (d == UINT64_MAX)
		return;
	t = sim_ps(d) < s->now ? s->now : sim_ps(d);
	if (h->timer_armed && h->timer_at <= t)
		return;
	h->timer_armed = true;
	h->timer_at = t;
	h->timer_gen++;
	sim_at(s, t, host_timer_fire, h, h->timer_gen);
}

static void
host_after(struct sim *s, struct sim_host *h)
{
	if (h->ep == NULL)
		return;
	port_try_send(s, h->port);
	host_timer_arm(s, h);
}

static void
mac_of(uint32_t ip, uint8_t *mac)
{
	mac[0] = 0x02;
	mac[1] = 0x00;
	uet_put_be32(mac + 2, ip);
}

static struct sim_pkt *
host_pull(struct sim *s, struct sim_host *h)
{
	struct uet_frame_tx tx;
	struct uet_tx_meta m;
	struct sim_pkt *pkt;
	int n;

	if (h->ep == NULL)
		return NULL;
	pkt = pkt_alloc(s);
	n = uet_ep_write_pkt(h->ep, pkt->data + UET_FRAME_HDR_LEN,
			     s->frame_cap - UET_FRAME_HDR_LEN, &m, sim_now_ns(s));
	if (n <= 0) {
		pkt_free(s, pkt);
		return NULL;
	}
	if (m.payload_len > 0 && !m.payload_filled && s->fill != NULL)
		s->fill(s->fill_ctx, &m, pkt->data + UET_FRAME_HDR_LEN + m.hdr_len);
	memcpy(tx.src_mac, h->mac, 6);
	mac_of(m.dst_ip, tx.dst_mac);
	tx.src_ip = h->ip;
	tx.dst_ip = m.dst_ip;
	tx.sport = m.ev;
	tx.dport = UET_UDP_PORT;
	tx.dscp = s->cfg.dscp.tc[m.tclass < UET_TC_COUNT ? m.tclass : UET_TC_CONTROL];
	tx.ecn = m.ecn_capable ? UET_ECN_ECT0 : UET_ECN_NOT_ECT;
	tx.ttl = 64;
	tx.ip_id = h->ip_id++;
	pkt->len = (uint32_t)uet_frame_encap(pkt->data, s->frame_cap, &tx, (size_t)n, true);
	pkt->cls = 1;
	h->st.tx_frames++;
	if (h->pcap != NULL)
		uet_pcap_write(h->pcap, sim_now_ns(s), pkt->data, pkt->len);
	/* Writing may have armed a retransmission timer. */
	host_timer_arm(s, h);
	return pkt;
}

static void
host_receive(struct sim *s, struct sim_host *h, struct sim_pkt *pkt)
{
	struct uet_frame_rx r;
	struct uet_rx_meta m;
	int rc;

	h->st.rx_frames++;
	if (h->pcap != NULL)
		uet_pcap_write(h->pcap, sim_now_ns(s), pkt->data, pkt->len);
	rc = uet_frame_decap(pkt->data, pkt->len, &r, UET_FRAME_VERIFY_CSUM);
	if (rc < 0) {
		if (rc == UET_ERR_CHECKSUM)
			h->st.rx_csum_drops++;
		else
			h->st.rx_other_drops++;
		pkt_free(s, pkt);
		return;
	}
	if (r.dst_ip != h->ip || r.dport != UET_UDP_PORT || h->ep == NULL) {
		h->st.rx_other_drops++;
		pkt_free(s, pkt);
		return;
	}
	m.src_ip = r.src_ip;
	m.ev = r.sport;
	m.ce = r.ecn == UET_ECN_CE;
	m.trimmed = r.dscp == s->cfg.dscp.trimmed ? 1
		    : r.dscp == s->cfg.dscp.trimmed_lasthop ? 2 : 0;
	rc = uet_ep_read_pkt(h->ep, &m, pkt->data + r.payload_off, r.payload_len,
			     sim_now_ns(s));
	if (rc < 0)
		h->st.rx_ep_drops++;
	pkt_free(s, pkt);
	host_after(s, h);
}

static void
node_receive(struct sim *s, void *a, uint64_t b)
{
	struct sim_port *in = a;
	struct sim_pkt *pkt = (struct sim_pkt *)(uintptr_t)b;

	if (in->node->kind == NODE_HOST)
		host_receive(s, &s->hosts[in->node->idx], pkt);
	else
		switch_forward(s, in->node, pkt);
}

int
sim_host_attach(struct sim *s, uint32_t host, const struct uet_ep_config *cfg)
{
	struct uet_ep_config c = *cfg;
	struct sim_host *h;

	if (host >= s->n_hosts)
		return UET_ERR_INVAL;
	h = &s->hosts[host];
	if (h->ep != NULL)
		return UET_ERR_INVAL;
	c.local_ip = h->ip;
	return uet_ep_create(&c, &h->ep);
}

struct uet_ep *
sim_host_ep(struct sim *s, uint32_t host)
{
	return host < s->n_hosts ? s->hosts[host].ep : NULL;
}

void
sim_host_kick(struct sim *s, uint32_t host)
{
	if (host < s->n_hosts)
		host_after(s, &s->hosts[host]);
}

void
sim_set_fill(struct sim *s, sim_fill_fn fn, void *ctx)
{
	s->fill = fn;
	s->fill_ctx = ctx;
}

void
sim_host_capture(struct sim *s, uint32_t host, struct uet_pcap *pc)
{
	if (host < s->n_hosts)
		s->hosts[host].pcap = pc;
}

const struct sim_host_stats *
sim_host_stats(const struct sim *s, uint32_t host)
{
	return &s->hosts[host].st;
}

/* ------------------------------------------------------------------ */
/* construction                                                        */

void
sim_config_default(struct sim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mtu_bytes = 9216;
	uet_dscp_map_default(&c->dscp);
}

struct sim *
sim_create(const struct sim_config *c)
{
	struct sim *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->cfg = *c;
	s->frame_cap = c->mtu_bytes ? c->mtu_bytes : 9216;
	if (s->frame_cap < TRIM_LEN + 64)
		s->frame_cap = TRIM_LEN + 64;
	uet_prng_seed(&s->rng, c->seed ^ 0x51e55eedULL);
	s->ip_base = 0x0a000001;
	return s;
}

void
sim_destroy(struct sim *s)
{
	uint32_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n_hosts; i++)
		uet_ep_destroy(s->hosts[i].ep);
	for (i = 0; i < s->n_nodes; i++) {
		free(s->nodes[i].rt_first);
		free(s->nodes[i].rt_cnt);
	}
	for (i = 0; i < s->n_chunks; i++)
		free(s->chunks[i]);
	free(s->chunks);
	free(s->rt_ports);
	free(s->nodes);
	free(s->ports);
	free(s->hosts);
	free(s->heap);
	free(s);
}

static void
port_init(struct sim *s, struct sim_port *p, struct sim_node *n, const struct sim_link_cfg *l)
{
	p->s = s;
	p->node = n;
	p->gidx = (uint32_t)(p - s->ports);
	p->rate_bps = l->rate_bps;
	p->buf_bytes = l->buf_bytes;
	p->kmin = l->ecn_kmin_bytes;
	p->kmax = l->ecn_kmax_bytes;
	p->trim = l->trim;
	p->up = true;
}

static void
link_ports(struct sim_port *a, struct sim_port *b, uint64_t lat_ns, uint64_t sw_lat_ns)
{
	a->peer = b;
	b->peer = a;
	a->lat_ps = sim_ps(lat_ns + (b->node->kind == NODE_SWITCH ? sw_lat_ns : 0));
	b->lat_ps = sim_ps(lat_ns + (a->node->kind == NODE_SWITCH ? sw_lat_ns : 0));
}

int
sim_build_leaf_spine(struct sim *s, const struct sim_leafspine_cfg *c)
{
	uint32_t L = c->leaves, S = c->spines, H = c->hosts_per_leaf;
	uint32_t nh = L * H, i, l, k, sp, pi = 0, rp = 0;

	if (s->n_nodes != 0 || L == 0 || S == 0 || H == 0 || c->host_link.rate_bps == 0 ||
	    c->fabric_link.rate_bps == 0 || nh > 0xffffff || S > 0xffff)
		return UET_ERR_INVAL;
	s->leaves = L;
	s->spines = S;
	s->hpl = H;
	s->n_hosts = nh;
	s->n_nodes = nh + L + S;
	/* hosts: 1 port; leaves: H down + S up; spines: L down */
	s->n_ports = nh + L * (H + S) + S * L;
	s->nodes = calloc(s->n_nodes, sizeof(*s->nodes));
	s->ports = calloc(s->n_ports, sizeof(*s->ports));
	s->hosts = calloc(nh, sizeof(*s->hosts));
	/* leaf routes: local hosts (1 each) + one uplink group; spines: L */
	s->rt_ports = calloc((size_t)L * (H + S) + (size_t)S * L, sizeof(uint32_t));
	if (s->nodes == NULL || s->ports == NULL || s->hosts == NULL || s->rt_ports == NULL)
		return UET_ERR_NOMEM;

	for (i = 0; i < s->n_nodes; i++) {
		struct sim_node *n = &s->nodes[i];

		n->kind = i < nh ? NODE_HOST : NODE_SWITCH;
		n->idx = i < nh ? i : i - nh;
		n->nports = i < nh ? 1 : i < nh + L ? H + S : L;
		n->first_port = pi;
		pi += n->nports;
		if (n->kind == NODE_SWITCH) {
			n->seed = uet_mix64(s->cfg.seed * 0x9e3779b97f4a7c15ULL + i);
			n->rt_first = calloc(nh, sizeof(uint32_t));
			n->rt_cnt = calloc(nh, sizeof(uint16_t));
			if (n->rt_first == NULL || n->rt_cnt == NULL)
				return UET_ERR_NOMEM;
		}
	}
	for (i = 0; i < nh; i++) {
		struct sim_host *h = &s->hosts[i];

		h->node = &s->nodes[i];
		h->port = &s->ports[s->nodes[i].first_port];
		h->ip = s->ip_base + i;
		mac_of(h->ip, h->mac);
		port_init(s, h->port, h->node, &c->host_link);
	}
	for (l = 0; l < L; l++) {
		struct sim_node *leaf = &s->nodes[nh + l];
		uint32_t up_first;

		for (k = 0; k < H; k++) {
			uint32_t host = l * H + k;
			struct sim_port *down = &s->ports[leaf->first_port + k];

			port_init(s, down, leaf, &c->host_link);
			link_ports(s->hosts[host].port, down, c->host_link.lat_ns, c->switch_lat_ns);
		}
		for (sp = 0; sp < S; sp++)
			port_init(s, &s->ports[leaf->first_port + H + sp], leaf, &c->fabric_link);
		/* routes */
		for (k = 0; k < H; k++)
			s->rt_ports[rp + k] = leaf->first_port + k;
		up_first = rp + H;
		for (sp = 0; sp < S; sp++)
			s->rt_ports[up_first + sp] = leaf->first_port + H + sp;
		for (i = 0; i < nh; i++) {
			if (i / H == l) {
				leaf->rt_first[i] = rp + i % H;
				leaf->rt_cnt[i] = 1;
			} else {
				leaf->rt_first[i] = up_first;
				leaf->rt_cnt[i] = (uint16_t)S;
			}
		}
		rp += H + S;
	}
	for (sp = 0; sp < S; sp++) {
		struct sim_node *spine = &s->nodes[nh + L + sp];

		for (l = 0; l < L; l++) {
			struct sim_port *down = &s->ports[spine->first_port + l];
			struct sim_port *up = &s->ports[s->nodes[nh + l].first_port + H + sp];

			port_init(s, down, spine, &c->fabric_link);
			link_ports(up, down, c->fabric_link.lat_ns, c->switch_lat_ns);
			s->rt_ports[rp + l] = spine->first_port + l;
		}
		for (i = 0; i < nh; i++) {
			spine->rt_first[i] = rp + i / H;
			spine->rt_cnt[i] = 1;
		}
		rp += L;
	}
	return 0;
}

uint32_t
sim_num_hosts(const struct sim *s)
{
	return s->n_hosts;
}

uint32_t
sim_host_ip(const struct sim *s, uint32_t host)
{
	return s->ip_base + host;
}

uint32_t
sim_host_of_ip(const struct sim *s, uint32_t ip)
{
	uint32_t h = ip - s->ip_base;

	return h < s->n_hosts ? h : UINT32_MAX;
}

struct sim_port *
sim_leaf_up(struct sim *s, uint32_t leaf, uint32_t spine)
{
	if (leaf >= s->leaves || spine >= s->spines)
		return NULL;
	return &s->ports[s->nodes[s->n_hosts + leaf].first_port + s->hpl + spine];
}

struct sim_port *
sim_spine_down(struct sim *s, uint32_t spine, uint32_t leaf)
{
	if (leaf >= s->leaves || spine >= s->spines)
		return NULL;
	return &s->ports[s->nodes[s->n_hosts + s->leaves + spine].first_port + leaf];
}

struct sim_port *
sim_host_port(struct sim *s, uint32_t host)
{
	return host < s->n_hosts ? s->hosts[host].port : NULL;
}

struct sim_port *
sim_host_ingress(struct sim *s, uint32_t host)
{
	return host < s->n_hosts ? s->hosts[host].port->peer : NULL;
}

uint32_t
sim_num_ports(const struct sim *s)
{
	return s->n_ports;
}

struct sim_port *
sim_port_at(struct sim *s, uint32_t i)
{
	return i < s->n_ports ? &s->ports[i] : NULL;
}

bool
sim_port_is_fabric(const struct sim_port *p)
{
	return p->node->kind == NODE_SWITCH && p->peer != NULL &&
	       p->peer->node->kind == NODE_SWITCH;
}

void
sim_port_set_fault(struct sim_port *p, const struct sim_fault *f)
{
	p->fault = *f;
}

void
sim_port_set_up(struct sim_port *p, bool up)
{
	p->up = up;
}

void
sim_port_set_rate(struct sim_port *p, uint64_t rate_bps)
{
	if (rate_bps > 0)
		p->rate_bps = rate_bps;
}

void
sim_port_set_ecn(struct sim_port *p, uint64_t kmin_bytes, uint64_t kmax_bytes)
{
	p->kmin = kmin_bytes;
	p->kmax = kmax_bytes < kmin_bytes ? kmin_bytes : kmax_bytes;
}

void
sim_port_set_trim(struct sim_port *p, bool trim)
{
	p->trim = trim;
}

void
sim_port_set_buffer(struct sim_port *p, uint64_t buf_bytes)
{
	p->buf_bytes = buf_bytes;
}

const struct sim_port_stats *
sim_port_stats(const struct sim_port *p)
{
	return &p->st;
}

uint64_t
sim_port_queue_bytes(const struct sim_port *p)
{
	return p->q[0].bytes + p->q[1].bytes;
}

void
sim_total_stats(const struct sim *s, struct sim_port_stats *o)
{
	uint32_t i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < s->n_ports; i++) {
		const struct sim_port_stats *p = &s->ports[i].st;

		o->tx_pkts += p->tx_pkts;
		o->tx_bytes += p->tx_bytes;
		o->ecn_marks += p->ecn_marks;
		o->trims += p->trims;
		o->drops_queue += p->drops_queue;
		o->drops_fault += p->drops_fault;
		o->drops_down += p->drops_down;
		o->dups += p->dups;
		o->corrupts += p->corrupts;
		if (p->max_queue_bytes > o->max_queue_bytes)
			o->max_queue_bytes = p->max_queue_bytes;
		if (p->last_tx_ns > o->last_tx_ns)
			o->last_tx_ns = p->last_tx_ns;
	}
}

uint64_t
sim_switch_drops(const struct sim *s)
{
	return s->switch_drops;
}
