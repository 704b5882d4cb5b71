/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hosts (one endpoint each, with an IPv4 and MAC address on a port queue)
 * and the per-lcore poll loop that serves them. Mirrors the simulator's
 * host glue (lib/sim), with ARP instead of computed MACs and mbufs instead
 * of simulated packets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_flow.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "base/hmap.h"
#include "base/twheel.h"
#include "dpdk/dpdk.h"
#include "dpdk/internal.h"
#include "net/pcapw.h"
#include "uet/err.h"
#include "uet/wire.h"

/* As many as uet-perf's options can give: --fail-ev-at's entries times the
 * ranges of one set (conf.h), so none is dropped. */
#define MAX_FAIL_RANGES UET_DPDK_MAX_FAIL_RANGES
/* ARP retries back off from 100 us (a peer that is starting up) to 100 ms
 * (one that is not there: no flood). */
#define ARP_RETRY_NS 100000ULL
#define ARP_RETRY_MAX_NS 100000000ULL

struct neigh {
	uint32_t ip;
	uint8_t mac[6];
	bool valid;
	bool is_static;
	uint64_t asked_ns; /* last request sent, 0 = never */
	uint64_t retry_ns; /* wait before the next request */
};

struct fail_range {
	uint64_t from_ns;
	uint16_t lo, hi;
};

#define HOST_CACHE 16 /* a power of two */

struct uet_dpdk_host {
	struct uet_dpdk_host_cfg cfg;
	struct uet_ep *ep;
	struct uet_dpdk_port *port;
	uint16_t queue;
	uint32_t ip;
	uint8_t mac[6];
	uint32_t subnet_mask;
	uint16_t ip_id;
	bool hw_csum, sw_csum;    /* UDP checksums: offloaded, in software */
	struct uet_dpdk_host_stats st;
	/* Neighbours: ip -> index into neigh[]. */
	struct uet_hmap neigh_map;
	struct neigh *neigh;
	uint32_t n_neigh;
	uint32_t resolve_pending; /* requests waiting for the next poll */
	struct fail_range *fail;  /* allocated with the first range */
	uint32_t n_fail;
	uint64_t fail_from_ns;    /* the earliest range's start: a fast no */
	struct rte_flow *flow;    /* hardware steering of ip to queue, if any */
	uint32_t idx;             /* in its lcore */
	uint32_t txq;             /* its queue in its lcore's q[] */
	struct uet_dpdk_lcore *lc;
	/* The neighbour last sent to: most packets go where the one before
	 * went, and entries never move (neigh[] is allocated whole). */
	struct neigh *nb_last;
	uint32_t nb_last_ip;
	bool rearm_pending;       /* on its lcore's rearm list */
};

struct txq {
	uint16_t port_id, queue;
	uint16_t n;
	struct rte_mbuf *pkts[UET_DPDK_BURST];
};

struct uet_dpdk_group {
	uint32_t n;
	struct uet_dpdk_lcore *lcs[UET_DPDK_MAX_GROUP];
	struct uet_hmap owner;    /* (port, ip) -> lcore index */
	uint64_t port_lcores[RTE_MAX_ETHPORTS]; /* lcores with hosts on a port */
};

struct uet_dpdk_lcore {
	struct uet_dpdk_host **hosts;
	uint32_t n;
	struct uet_hmap by_ip;   /* (port, ip) -> index in hosts */
	struct txq q[UET_DPDK_MAX_LCORE_QUEUES];
	uint32_t nq;
	struct uet_twheel timers; /* per host: the endpoint's next deadline */
	uint32_t rr;             /* host to start writing from */
	struct rte_ring *inbox;  /* frames steered here by the group */
	struct uet_dpdk_group *grp;
	uint32_t grp_idx;
	struct uet_dpdk_tel *tel;
	struct uet_dpdk_lcore_stats st;
	uint64_t last_poll_ns;
	bool timers_waited;      /* the last poll was late and left the timers */
	/* (port, ip) -> host, direct mapped in front of by_ip: a burst
	 * alternates between a few hosts. */
	struct {
		uint64_t key;
		struct uet_dpdk_host *h;
	} hcache[HOST_CACHE];
	/* Hosts whose timer moved while receiving: set once, at the end of
	 * the poll, not after every packet. */
	uint32_t *rearm;
	uint32_t n_rearm;
	/* TX mbufs taken from one pool in bursts. */
	struct rte_mempool *stash_pool;
	struct rte_mbuf *stash[UET_DPDK_BURST];
	uint32_t n_stash;
};

/* A poll this long after the last one means the lcore was descheduled. */
#define LATE_POLL_NS 250000

/* --- neighbours --- */

static struct neigh *
neigh_get(const struct uet_dpdk_host *h, uint32_t ip)
{
	uint32_t i;

	return uet_hmap_get(&h->neigh_map, ip, &i) ? &h->neigh[i] : NULL;
}

/* neigh_get for the host's lcore alone (it keeps the last answer). */
static struct neigh *
neigh_get_tx(struct uet_dpdk_host *h, uint32_t ip)
{
	if (h->nb_last == NULL || h->nb_last_ip != ip) {
		struct neigh *n = neigh_get(h, ip);

		if (n == NULL)
			return NULL;
		h->nb_last = n;
		h->nb_last_ip = ip;
	}
	return h->nb_last;
}

static struct neigh *
neigh_add(struct uet_dpdk_host *h, uint32_t ip)
{
	struct neigh *n = neigh_get(h, ip);

	if (n != NULL)
		return n;
	if (h->n_neigh == UET_DPDK_MAX_NEIGH ||
	    uet_hmap_put(&h->neigh_map, ip, h->n_neigh) != 0)
		return NULL;
	n = &h->neigh[h->n_neigh++];
	memset(n, 0, sizeof(*n));
	n->ip = ip;
	return n;
}

int
uet_dpdk_host_add_neigh(struct uet_dpdk_host *h, uint32_t ip, const uint8_t *mac)
{
	struct neigh *n = neigh_add(h, ip);

	if (n == NULL)
		return UET_ERR_NOMEM;
	memcpy(n->mac, mac, 6);
	n->valid = true;
	n->is_static = true;
	return 0;
}

static uint32_t
next_hop(const struct uet_dpdk_host *h, uint32_t dst)
{
	if (h->subnet_mask == 0 || h->cfg.gateway == 0 ||
	    (dst & h->subnet_mask) == (h->ip & h->subnet_mask))
		return dst;
	return h->cfg.gateway;
}

bool
uet_dpdk_host_has_neigh(const struct uet_dpdk_host *h, uint32_t ip)
{
	const struct neigh *n = neigh_get(h, next_hop(h, ip));

	return n != NULL && n->valid;
}

void
uet_dpdk_host_resolve(struct uet_dpdk_host *h, uint32_t ip)
{
	struct neigh *n = neigh_add(h, next_hop(h, ip));

	if (n != NULL && !n->valid && n->asked_ns == 0) {
		n->asked_ns = UINT64_MAX; /* "send at the next poll" */
		h->resolve_pending++;
	}
}

int
uet_dpdk_host_fail_evs(struct uet_dpdk_host *h, uint64_t from_ns, uint16_t ev_lo, uint16_t ev_hi)
{
	if (h->n_fail == MAX_FAIL_RANGES || ev_lo > ev_hi)
		return UET_ERR_INVAL;
	if (h->fail == NULL) {
		h->fail = calloc(MAX_FAIL_RANGES, sizeof(*h->fail));
		if (h->fail == NULL)
			return UET_ERR_NOMEM;
	}
	if (h->n_fail == 0 || from_ns < h->fail_from_ns)
		h->fail_from_ns = from_ns;
	/* Each range fails from its own time: a later failure must not
	 * blackhole its EVs from the earliest one's. */
	h->fail[h->n_fail].from_ns = from_ns;
	h->fail[h->n_fail].lo = ev_lo;
	h->fail[h->n_fail].hi = ev_hi;
	h->n_fail++;
	return 0;
}

static bool
ev_failed(const struct uet_dpdk_host *h, uint16_t ev, uint64_t now_ns)
{
	uint32_t i;

	if (h->n_fail == 0 || now_ns < h->fail_from_ns)
		return false;
	for (i = 0; i < h->n_fail; i++)
		if (ev >= h->fail[i].lo && ev <= h->fail[i].hi && now_ns >= h->fail[i].from_ns)
			return true;
	return false;
}

/* --- hosts --- */

/* Ask the NIC to deliver ip's frames to queue (rte_flow: ETH / IPV4 dst ->
 * QUEUE), so the lcore polling that queue gets them without software
 * steering. Most virtual PMDs have no flow rules: then the group's rings
 * steer (uet_dpdk_lcore_group). */
static struct rte_flow *
steer_to_queue(uint16_t port_id, uint32_t ip, uint16_t queue)
{
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item_ipv4 spec, mask;
	struct rte_flow_action_queue q = { .index = queue };
	struct rte_flow_item pat[3];
	struct rte_flow_action act[2];
	struct rte_flow_error fe;
	struct rte_flow *f;

	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	memset(pat, 0, sizeof(pat));
	memset(act, 0, sizeof(act));
	spec.hdr.dst_addr = rte_cpu_to_be_32(ip);
	mask.hdr.dst_addr = RTE_BE32(0xffffffff);
	pat[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	pat[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	pat[1].spec = &spec;
	pat[1].mask = &mask;
	pat[2].type = RTE_FLOW_ITEM_TYPE_END;
	act[0].type = RTE_FLOW_ACTION_TYPE_QUEUE;
	act[0].conf = &q;
	act[1].type = RTE_FLOW_ACTION_TYPE_END;
	if (rte_flow_validate(port_id, &attr, pat, act, &fe) != 0)
		return NULL;
	f = rte_flow_create(port_id, &attr, pat, act, &fe);
	return f;
}

int
uet_dpdk_host_create(const struct uet_dpdk_host_cfg *c, struct uet_dpdk_host **out, char *err,
		     size_t errlen)
{
	static const uint8_t zero[6];
	struct uet_dpdk_host *h;
	struct uet_ep_config ec;
	int rc;

	if (c->port == NULL || c->port->pool == NULL || c->port->tx_pool == NULL ||
	    c->queue >= c->port->nb_queues || c->ip == 0 || c->prefix_len > 32) {
		snprintf(err, errlen, "host: needs a started port, a queue below %u, an IPv4 "
			 "address and a prefix length <= 32",
			 c->port != NULL ? c->port->nb_queues : 0);
		return UET_ERR_INVAL;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return UET_ERR_NOMEM;
	h->neigh = calloc(UET_DPDK_MAX_NEIGH, sizeof(*h->neigh));
	if (h->neigh == NULL || uet_hmap_init(&h->neigh_map, UET_DPDK_MAX_NEIGH) != 0) {
		free(h->neigh);
		free(h);
		return UET_ERR_NOMEM;
	}
	h->cfg = *c;
	h->port = c->port;
	h->queue = c->queue;
	h->ip = c->ip;
	memcpy(h->mac, memcmp(c->mac, zero, 6) != 0 ? c->mac : c->port->mac, 6);
	h->subnet_mask = c->prefix_len == 0 ? 0 : (uint32_t)(0xffffffffULL << (32 - c->prefix_len));
	h->hw_csum = c->port->tx_udp_csum && !c->zero_udp_csum;
	h->sw_csum = !c->port->tx_udp_csum && !c->zero_udp_csum;
	ec = c->ep;
	ec.local_ip = c->ip;
	/* Payloads the endpoint copies from a message buffer are summed as
	 * they are copied, when the checksum is ours to compute. */
	ec.tx_sum = h->sw_csum;
	rc = uet_ep_create(&ec, &h->ep);
	if (rc != 0) {
		const char *why = NULL;

		(void)uet_ep_config_check(&ec, &why);
		if (rc == UET_ERR_NOMEM || why == NULL)
			snprintf(err, errlen, "out of memory for the endpoint: %zu bytes for %u PDCs "
				 "of a %u-PSN window and %u messages (--window-psns and the "
				 "workload's streams size it)", uet_ep_mem_bytes(&ec), ec.max_pdcs,
				 ec.window_psns, ec.max_tx_msgs + ec.max_rx_msgs);
		else
			snprintf(err, errlen, "endpoint configuration rejected: %s", why);
		uet_hmap_fini(&h->neigh_map);
		free(h->neigh);
		free(h);
		return rc;
	}
	if (c->port->nb_queues > 1)
		h->flow = steer_to_queue(c->port->port_id, c->ip, c->queue);
	*out = h;
	return 0;
}

void
uet_dpdk_host_destroy(struct uet_dpdk_host *h)
{
	struct rte_flow_error fe;

	if (h == NULL)
		return;
	if (h->flow != NULL)
		(void)rte_flow_destroy(h->port->port_id, h->flow, &fe);
	uet_ep_destroy(h->ep);
	uet_hmap_fini(&h->neigh_map);
	free(h->neigh);
	free(h->fail);
	free(h);
}

struct uet_ep *
uet_dpdk_host_ep(struct uet_dpdk_host *h)
{
	return h->ep;
}

uint32_t
uet_dpdk_host_ip(const struct uet_dpdk_host *h)
{
	return h->ip;
}

const uint8_t *
uet_dpdk_host_mac(const struct uet_dpdk_host *h)
{
	return h->mac;
}

void
uet_dpdk_host_set_ev_ctx(struct uet_dpdk_host *h, void *ctx)
{
	h->cfg.on_ev_ctx = ctx;
}

const struct uet_dpdk_host_stats *
uet_dpdk_host_stats(const struct uet_dpdk_host *h)
{
	return &h->st;
}

/* --- TX --- */

static void
rearm(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h)
{
	uint64_t due = uet_ep_next_deadline(h->ep);

	if (due == UINT64_MAX)
		uet_twheel_del(&lc->timers, h->idx);
	else
		uet_twheel_set(&lc->timers, h->idx, due);
}

/* rearm once the poll has read its bursts (rearm_pending_hosts), before
 * it pops the timers. */
static void
rearm_later(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h)
{
	if (!h->rearm_pending) {
		h->rearm_pending = true;
		lc->rearm[lc->n_rearm++] = h->idx;
	}
}

static void
rearm_pending_hosts(struct uet_dpdk_lcore *lc)
{
	uint32_t i;

	for (i = 0; i < lc->n_rearm; i++) {
		struct uet_dpdk_host *h = lc->hosts[lc->rearm[i]];

		h->rearm_pending = false;
		rearm(lc, h);
	}
	lc->n_rearm = 0;
}

/* A TX mbuf from pool, taken from the lcore's stash, which is refilled a
 * burst at a time (the mempool's per-call overhead and the mbuf resets are
 * paid together, their cache misses overlapping). */
static struct rte_mbuf *
tx_mbuf(struct uet_dpdk_lcore *lc, struct rte_mempool *pool)
{
	if (lc->stash_pool != pool && lc->n_stash > 0) {
		rte_pktmbuf_free_bulk(lc->stash, lc->n_stash);
		lc->n_stash = 0;
	}
	lc->stash_pool = pool;
	if (lc->n_stash == 0) {
		if (rte_pktmbuf_alloc_bulk(pool, lc->stash, UET_DPDK_BURST) == 0)
			lc->n_stash = UET_DPDK_BURST;
		else
			return rte_pktmbuf_alloc(pool); /* nearly dry: one at a time */
	}
	if (lc->n_stash > 1)
		rte_prefetch0(rte_pktmbuf_mtod(lc->stash[lc->n_stash - 2], void *));
	return lc->stash[--lc->n_stash];
}


static struct txq *
txq_of(struct uet_dpdk_lcore *lc, const struct uet_dpdk_host *h)
{
	return &lc->q[h->txq];
}

/*
 * Hand the queued frames to the NIC. What it has no room for stays queued,
 * in order, for the next flush: a full TX ring is backpressure (the link
 * or the PMD is the bottleneck), and the endpoints wait (txq_room) instead
 * of losing packets to their own NIC.
 */
static uint32_t
txq_flush(struct txq *q)
{
	uint16_t sent = q->n ? rte_eth_tx_burst(q->port_id, q->queue, q->pkts, q->n) : 0;

	if (sent > 0 && sent < q->n)
		memmove(q->pkts, q->pkts + sent, (size_t)(q->n - sent) * sizeof(q->pkts[0]));
	q->n = (uint16_t)(q->n - sent);
	return sent;
}

/* Room for one more frame of h's queue (flushing if it is full); false
 * and counted when the NIC has none: the sender waits for a poll. */
static bool
txq_room(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h)
{
	struct txq *q = txq_of(lc, h);

	if (q->n == UET_DPDK_BURST)
		txq_flush(q);
	if (q->n < UET_DPDK_BURST)
		return true;
	h->st.tx_full++;
	return false;
}

static void
txq_put(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h, struct rte_mbuf *m)
{
	struct txq *q = txq_of(lc, h);

	q->pkts[q->n++] = m;
	if (q->n == UET_DPDK_BURST)
		txq_flush(q);
}

static void
send_arp(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h, uint16_t op, const uint8_t *dst_mac,
	 uint32_t target_ip, const uint8_t *target_mac)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(h->port->pool);
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *arp;

	if (m == NULL)
		return;
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	arp = (struct rte_arp_hdr *)(eth + 1);
	memcpy(eth->dst_addr.addr_bytes, dst_mac, 6);
	memcpy(eth->src_addr.addr_bytes, h->mac, 6);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = 6;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(op);
	memcpy(arp->arp_data.arp_sha.addr_bytes, h->mac, 6);
	arp->arp_data.arp_sip = rte_cpu_to_be_32(h->ip);
	memcpy(arp->arp_data.arp_tha.addr_bytes, target_mac, 6);
	arp->arp_data.arp_tip = rte_cpu_to_be_32(target_ip);
	/* Pad to the 60-byte Ethernet minimum. */
	m->data_len = m->pkt_len = RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN;
	memset((uint8_t *)(arp + 1), 0, m->data_len - sizeof(*eth) - sizeof(*arp));
	if (!txq_room(lc, h)) {
		rte_pktmbuf_free(m); /* asked again, or answered, later */
		return;
	}
	if (op == RTE_ARP_OP_REPLY)
		h->st.tx_arp_replies++;
	else
		h->st.tx_arp_requests++;
	txq_put(lc, h, m);
}

static void
ask_neighbours(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h, uint64_t now_ns)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	uint32_t i;

	if (h->resolve_pending == 0)
		return;
	h->resolve_pending = 0;
	for (i = 0; i < h->n_neigh; i++) {
		struct neigh *n = &h->neigh[i];

		if (n->valid || n->asked_ns == 0)
			continue;
		if (n->asked_ns == UINT64_MAX || now_ns - n->asked_ns >= n->retry_ns) {
			send_arp(lc, h, RTE_ARP_OP_REQUEST, bcast, n->ip, zero);
			n->retry_ns = n->asked_ns == UINT64_MAX ? ARP_RETRY_NS
				      : n->retry_ns * 2 < ARP_RETRY_MAX_NS ? n->retry_ns * 2
									  : ARP_RETRY_MAX_NS;
			n->asked_ns = now_ns ? now_ns : 1;
		}
		/* Until it answers, keep asking on later polls. */
		h->resolve_pending++;
	}
}

/* Frame one packet the endpoint wrote into m. Returns false (and frees m)
 * if it cannot be sent. */
static bool
frame_out(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h, struct rte_mbuf *m,
	  const struct uet_tx_meta *tm, int n, uint32_t zero_tail, uint64_t now_ns)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	struct uet_frame_tx tx;
	struct neigh *nb = neigh_get_tx(h, next_hop(h, tm->dst_ip));
	int len;

	if (nb == NULL || !nb->valid) {
		h->st.tx_no_neigh++;
		uet_dpdk_host_resolve(h, tm->dst_ip);
		rte_pktmbuf_free(m);
		return false;
	}
	/* Data counts as sent even into a failed EV: the fail-EV hook plays
	 * a path that dies past the NIC, and what went into it is what a
	 * user wants to see. Control packets are not counted per EV (an
	 * EV's CE fraction is over the data it carried). */
	if (tm->tclass != UET_TC_CONTROL) {
		if (h->cfg.on_ev != NULL)
			h->cfg.on_ev(h->cfg.on_ev_ctx, tm->ev, false);
		uet_dpdk_tel_ev(lc->tel, tm->ev, false);
	}
	if (ev_failed(h, tm->ev, now_ns)) {
		h->st.tx_fail_ev++;
		rte_pktmbuf_free(m);
		return false;
	}
	memcpy(tx.src_mac, h->mac, 6);
	memcpy(tx.dst_mac, nb->mac, 6);
	tx.src_ip = h->ip;
	tx.dst_ip = tm->dst_ip;
	tx.sport = tm->ev;
	tx.dport = UET_UDP_PORT;
	tx.dscp = h->cfg.dscp.tc[tm->tclass < UET_TC_COUNT ? tm->tclass : UET_TC_CONTROL];
	tx.ecn = tm->ecn_capable ? UET_ECN_ECT0 : UET_ECN_NOT_ECT;
	tx.ttl = 64;
	tx.ip_id = h->ip_id++;
	tx.zero_tail = zero_tail;
	tx.payload_sum_valid = tm->sum_valid;
	tx.payload_sum = tm->sum;
	len = uet_frame_encap(f, rte_pktmbuf_tailroom(m), &tx, (size_t)n, h->sw_csum);
	if (len < 0) {
		rte_pktmbuf_free(m);
		return false;
	}
	m->data_len = m->pkt_len = (uint32_t)len;
	if (h->sw_csum) {
		h->st.tx_csum_skipped_bytes += zero_tail;
		h->st.tx_csum_fused += tm->sum_valid;
	}
	if (h->hw_csum) {
		h->st.tx_csum_offloaded++;
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + UET_ETH_HLEN);
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(f + UET_ETH_HLEN + UET_IPV4_HLEN);

		m->l2_len = UET_ETH_HLEN;
		m->l3_len = UET_IPV4_HLEN;
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_UDP_CKSUM;
		if (h->port->tx_ip_csum) {
			m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
			ip->hdr_checksum = 0;
		}
		/* The NIC completes the pseudo-header sum. */
		udp->dgram_cksum = rte_ipv4_phdr_cksum(ip, m->ol_flags);
	}
	h->st.tx_frames++;
	if (h->cfg.pcap != NULL)
		uet_pcap_write(h->cfg.pcap, now_ns, f, (uint32_t)len);
	return true;
}

/* Write up to max packets from h's endpoint. */
static uint32_t
host_write(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h, uint64_t now_ns, uint32_t max)
{
	uint32_t n_out = 0;

	/* Most polls find most endpoints with nothing to send: ask before
	 * taking an mbuf. */
	while (n_out < max && uet_ep_may_write(h->ep) && txq_room(lc, h)) {
		struct rte_mbuf *m = tx_mbuf(lc, h->port->tx_pool);
		struct uet_dpdk_txpriv *tp;
		struct uet_tx_meta tm;
		uint32_t end, written_end;
		uint8_t *payload;
		uint16_t room;
		int n;

		if (m == NULL) {
			h->st.tx_no_mbuf++;
			break; /* pool dry: try again next poll */
		}
		payload = rte_pktmbuf_mtod(m, uint8_t *) + UET_FRAME_HDR_LEN;
		room = rte_pktmbuf_tailroom(m);
		n = uet_ep_write_pkt(h->ep, payload, room > UET_FRAME_HDR_LEN
					     ? room - UET_FRAME_HDR_LEN : 0, &tm, now_ns);
		if (n <= 0) {
			rte_pktmbuf_free(m);
			break;
		}
		if (tm.payload_len > 0 && !tm.payload_filled && h->cfg.fill != NULL)
			h->cfg.fill(h->cfg.fill_ctx, &tm, payload + tm.hdr_len);
		/* Past what this packet and earlier users wrote, the payload
		 * is still zero (internal.h). */
		end = UET_FRAME_HDR_LEN + (uint32_t)n;
		written_end = tm.payload_filled || h->cfg.fill != NULL ? end
									: end - tm.payload_len;
		tp = uet_dpdk_txpriv(m);
		if (tp->dirty_bytes < written_end)
			tp->dirty_bytes = written_end;
		if (frame_out(lc, h, m, &tm, n, end > tp->dirty_bytes ? end - tp->dirty_bytes : 0,
			      now_ns)) {
			txq_put(lc, h, m);
			n_out++;
		}
	}
	return n_out;
}

/* --- RX --- */

static void
rx_arp(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h, const struct rte_arp_hdr *arp)
{
	uint32_t sip = rte_be_to_cpu_32(arp->arp_data.arp_sip);
	struct neigh *n;

	h->st.rx_arp++;
	if (arp->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    arp->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) || arp->arp_hlen != 6 ||
	    arp->arp_plen != 4)
		return;
	/* Learn the sender (RFC 826), unless we pinned it. */
	n = sip != 0 ? neigh_add(h, sip) : NULL;
	if (n != NULL && !n->is_static) {
		memcpy(n->mac, arp->arp_data.arp_sha.addr_bytes, 6);
		n->valid = true;
	}
	if (arp->arp_opcode == rte_cpu_to_be_16(RTE_ARP_OP_REQUEST) &&
	    rte_be_to_cpu_32(arp->arp_data.arp_tip) == h->ip)
		send_arp(lc, h, RTE_ARP_OP_REPLY, arp->arp_data.arp_sha.addr_bytes, sip,
			 arp->arp_data.arp_sha.addr_bytes);
}

static uint64_t
host_key(uint16_t port_id, uint32_t ip)
{
	return (uint64_t)port_id << 32 | ip;
}

static struct uet_dpdk_host *
host_for_ip(struct uet_dpdk_lcore *lc, uint16_t port_id, uint32_t ip)
{
	uint64_t key = host_key(port_id, ip);
	uint32_t c = (ip ^ (ip >> 8) ^ port_id) & (HOST_CACHE - 1), i;

	if (lc->hcache[c].key == key)
		return lc->hcache[c].h;
	if (!uet_hmap_get(&lc->by_ip, key, &i))
		return NULL;
	lc->hcache[c].key = key;
	lc->hcache[c].h = lc->hosts[i];
	return lc->hosts[i];
}

/* Does this PDS packet echo a CE mark (an ACK with its M flag)? Only the
 * prologue's type and flags are read: the core decodes the rest, and the
 * echo is counted once it accepted the packet. */
static bool
ce_echo(const uint8_t *pds, uint16_t len)
{
	uint16_t prlg;
	uint8_t type;

	if (len < 2)
		return false;
	prlg = uet_get_be16(pds);
	type = (uint8_t)(prlg >> 11);
	return (type == UET_PDS_ACK || type == UET_PDS_ACK_CC || type == UET_PDS_ACK_CCX) &&
	       (prlg & UET_ACK_F_M) != 0;
}

/* Hand m to the lcore owning its destination (a reference each). */
static void
steer(struct uet_dpdk_lcore *lc, struct uet_dpdk_lcore *to, struct rte_mbuf *m)
{
	rte_mbuf_refcnt_update(m, 1);
	if (rte_ring_mp_enqueue(to->inbox, m) != 0) {
		rte_pktmbuf_free(m);
		lc->st.steer_drops++;
		return;
	}
	lc->st.steered_out++;
}

/* The lcore of the group that serves ip on port_id, NULL if none. */
static struct uet_dpdk_lcore *
owner_of(const struct uet_dpdk_lcore *lc, uint16_t port_id, uint32_t ip)
{
	uint32_t i;

	if (lc->grp == NULL || !uet_hmap_get(&lc->grp->owner, host_key(port_id, ip), &i))
		return NULL;
	return lc->grp->lcs[i];
}

static void
rx_ipv4(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h, struct rte_mbuf *m, uint64_t now_ns)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	unsigned flags = UET_FRAME_VERIFY_CSUM;
	struct uet_frame_rx r;
	struct uet_rx_meta rm;
	int rc;

	/* As it came: a capture should show the frames we then drop. */
	if (h->cfg.pcap != NULL)
		uet_pcap_write(h->cfg.pcap, now_ns, f, m->data_len);

	if (h->port->rx_csum) {
		uint64_t ip = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
		uint64_t l4 = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;

		if (ip == RTE_MBUF_F_RX_IP_CKSUM_BAD || l4 == RTE_MBUF_F_RX_L4_CKSUM_BAD) {
			h->st.rx_csum_drops++;
			return;
		}
		if (ip == RTE_MBUF_F_RX_IP_CKSUM_GOOD && l4 == RTE_MBUF_F_RX_L4_CKSUM_GOOD) {
			flags = 0;
			h->st.rx_csum_offloaded++;
		}
	}
	rc = uet_frame_decap(f, m->data_len, &r, flags);
	if (rc < 0) {
		if (rc == UET_ERR_CHECKSUM)
			h->st.rx_csum_drops++;
		else
			h->st.rx_other_drops++;
		return;
	}
	if (r.dport != UET_UDP_PORT) {
		h->st.rx_other_drops++;
		return;
	}
	h->st.rx_frames++;
	rm.src_ip = r.src_ip;
	rm.ev = r.sport;
	rm.ce = r.ecn == UET_ECN_CE;
	rm.trimmed = r.dscp == h->cfg.dscp.trimmed ? 1 : r.dscp == h->cfg.dscp.trimmed_lasthop ? 2 : 0;
	rc = uet_ep_read_pkt(h->ep, &rm, f + r.payload_off, r.payload_len, now_ns);
	if (rc < 0) {
		h->st.rx_ep_drops++;
	} else if (ce_echo(f + r.payload_off, r.payload_len)) {
		/* Per EV: the ACK travels back on the EV of the data it
		 * acknowledges. */
		if (h->cfg.on_ev != NULL)
			h->cfg.on_ev(h->cfg.on_ev_ctx, r.sport, true);
		uet_dpdk_tel_ev(lc->tel, r.sport, true);
	}
	/* Send what this packet released (an ACK opens the window, a data
	 * packet wants its ACK) before the next one of the burst is read, as
	 * a NIC pipeline would: load balancers that recycle the EV of each
	 * ACK (REPS keeps 8) would otherwise see a whole burst of ACKs
	 * overwrite one another and then explore on random EVs. */
	if (uet_ep_may_write(h->ep))
		(void)host_write(lc, h, now_ns, UET_DPDK_RX_WRITE);
	rearm_later(lc, h);
}

/* One received frame. from_inbox: another lcore of the group sent it here
 * (never steer it again). The caller frees m afterwards; steering takes a
 * reference of its own. */
static void
rx_one(struct uet_dpdk_lcore *lc, struct rte_mbuf *m, uint64_t now_ns, bool from_inbox)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)f;
	uint16_t port_id = m->port;
	struct uet_dpdk_lcore *to;
	struct uet_dpdk_host *h;
	uint32_t dst, i;

	if (m->nb_segs != 1 || m->data_len < sizeof(*eth)) {
		lc->st.rx_other_drops++;
		return;
	}
	if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP)) {
		const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)(eth + 1);

		if (m->data_len < sizeof(*eth) + sizeof(*arp)) {
			lc->st.rx_other_drops++;
			return;
		}
		/* Every host on the port learns from it; the target answers.
		 * The other lcores with hosts on the port see it too. */
		for (i = 0; i < lc->n; i++)
			if (lc->hosts[i]->port->port_id == port_id)
				rx_arp(lc, lc->hosts[i], arp);
		if (!from_inbox && lc->grp != NULL && port_id < RTE_MAX_ETHPORTS)
			for (i = 0; i < lc->grp->n; i++)
				if (lc->grp->lcs[i] != lc &&
				    (lc->grp->port_lcores[port_id] >> i & 1) != 0)
					steer(lc, lc->grp->lcs[i], m);
		return;
	}
	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    m->data_len < sizeof(*eth) + sizeof(struct rte_ipv4_hdr)) {
		lc->st.rx_other_drops++;
		return;
	}
	dst = rte_be_to_cpu_32(((const struct rte_ipv4_hdr *)(eth + 1))->dst_addr);
	h = host_for_ip(lc, port_id, dst);
	if (h != NULL) {
		rx_ipv4(lc, h, m, now_ns);
		return;
	}
	to = from_inbox ? NULL : owner_of(lc, port_id, dst);
	if (to != NULL && to != lc) {
		steer(lc, to, m);
		return;
	}
	lc->st.rx_other_drops++;
}

/* --- the loop --- */

static void
lcore_free(struct uet_dpdk_lcore *lc)
{
	uet_twheel_fini(&lc->timers);
	uet_hmap_fini(&lc->by_ip);
	rte_ring_free(lc->inbox);
	if (lc->n_stash > 0)
		rte_pktmbuf_free_bulk(lc->stash, lc->n_stash);
	free(lc->rearm);
	free(lc->hosts);
	free(lc);
}

int
uet_dpdk_lcore_create(struct uet_dpdk_host *const *hosts, uint32_t n, struct uet_dpdk_lcore **out)
{
	static uint32_t ring_seq;
	struct uet_dpdk_lcore *lc;
	char name[RTE_RING_NAMESIZE];
	uint32_t i, j;

	if (n == 0 || n > UET_DPDK_MAX_HOSTS)
		return UET_ERR_INVAL;
	lc = calloc(1, sizeof(*lc));
	if (lc == NULL)
		return UET_ERR_NOMEM;
	lc->hosts = calloc(n, sizeof(*lc->hosts));
	lc->rearm = calloc(n, sizeof(*lc->rearm));
	for (i = 0; i < HOST_CACHE; i++)
		lc->hcache[i].key = UINT64_MAX; /* no (port, ip) key */
	/* Ticks of 1 us over 1 ms: an endpoint's ACK delays and probes land
	 * in the next few slots; RTOs of milliseconds come round once per
	 * revolution until due. */
	if (lc->hosts == NULL || lc->rearm == NULL ||
	    uet_twheel_init(&lc->timers, n, 1024, 1000, 0) != 0 || uet_hmap_init(&lc->by_ip, n) != 0) {
		lcore_free(lc);
		return UET_ERR_NOMEM;
	}
	snprintf(name, sizeof(name), "uet_in_%u",
		 __atomic_fetch_add(&ring_seq, 1, __ATOMIC_RELAXED));
	/* Frames steered here by other lcores: many producers, this lcore
	 * alone consumes. */
	lc->inbox = rte_ring_create(name, UET_DPDK_INBOX, (int)rte_socket_id(), RING_F_SC_DEQ);
	if (lc->inbox == NULL) {
		lcore_free(lc);
		return UET_ERR_NOMEM;
	}
	lc->n = n;
	for (i = 0; i < n; i++) {
		struct uet_dpdk_host *h = hosts[i];

		if (h->lc != NULL || uet_hmap_get(&lc->by_ip, host_key(h->port->port_id, h->ip), &j))
			goto bad; /* a host belongs to one lcore, an address to one host */
		lc->hosts[i] = h;
		(void)uet_hmap_put(&lc->by_ip, host_key(h->port->port_id, h->ip), i);
		h->idx = i;
		for (j = 0; j < lc->nq; j++)
			if (lc->q[j].port_id == h->port->port_id && lc->q[j].queue == h->queue)
				break;
		if (j == lc->nq) {
			if (lc->nq == UET_DPDK_MAX_LCORE_QUEUES)
				goto bad;
			lc->q[lc->nq].port_id = h->port->port_id;
			lc->q[lc->nq].queue = h->queue;
			lc->nq++;
		}
		h->txq = j;
	}
	for (i = 0; i < n; i++)
		lc->hosts[i]->lc = lc;
	lc->tel = uet_dpdk_tel_attach(lc->hosts, n);
	*out = lc;
	return 0;
bad:
	lcore_free(lc);
	return UET_ERR_INVAL;
}

void
uet_dpdk_lcore_destroy(struct uet_dpdk_lcore *lc)
{
	struct rte_mbuf *m;
	uint32_t i;

	if (lc == NULL)
		return;
	for (i = 0; i < lc->nq; i++) {
		txq_flush(&lc->q[i]);
		rte_pktmbuf_free_bulk(lc->q[i].pkts, lc->q[i].n);
		lc->q[i].n = 0;
	}
	while (rte_ring_sc_dequeue(lc->inbox, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	for (i = 0; i < lc->n; i++)
		lc->hosts[i]->lc = NULL;
	uet_dpdk_tel_detach(lc->tel);
	if (lc->grp != NULL)
		lc->grp->lcs[lc->grp_idx] = NULL;
	lcore_free(lc);
}

const struct uet_dpdk_lcore_stats *
uet_dpdk_lcore_stats(const struct uet_dpdk_lcore *lc)
{
	return &lc->st;
}

int
uet_dpdk_lcore_group(struct uet_dpdk_lcore *const *lcs, uint32_t n, struct uet_dpdk_group **out)
{
	struct uet_dpdk_group *g;
	uint32_t i, k, hosts = 0;

	if (n == 0 || n > UET_DPDK_MAX_GROUP)
		return UET_ERR_INVAL;
	for (i = 0; i < n; i++) {
		if (lcs[i] == NULL || lcs[i]->grp != NULL)
			return UET_ERR_INVAL;
		hosts += lcs[i]->n;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return UET_ERR_NOMEM;
	if (uet_hmap_init(&g->owner, hosts) != 0) {
		free(g);
		return UET_ERR_NOMEM;
	}
	g->n = n;
	for (i = 0; i < n; i++) {
		g->lcs[i] = lcs[i];
		for (k = 0; k < lcs[i]->n; k++) {
			const struct uet_dpdk_host *h = lcs[i]->hosts[k];
			uint32_t other;

			if (uet_hmap_get(&g->owner, host_key(h->port->port_id, h->ip), &other)) {
				uet_hmap_fini(&g->owner);
				free(g);
				return UET_ERR_INVAL; /* one address, two lcores */
			}
			(void)uet_hmap_put(&g->owner, host_key(h->port->port_id, h->ip), i);
			g->port_lcores[h->port->port_id] |= 1ULL << i;
		}
	}
	for (i = 0; i < n; i++) {
		lcs[i]->grp = g;
		lcs[i]->grp_idx = i;
	}
	*out = g;
	return 0;
}

void
uet_dpdk_group_destroy(struct uet_dpdk_group *g)
{
	uint32_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->n; i++)
		if (g->lcs[i] != NULL)
			g->lcs[i]->grp = NULL;
	uet_hmap_fini(&g->owner);
	free(g);
}

uint32_t
uet_dpdk_lcore_poll(struct uet_dpdk_lcore *lc, uint64_t now_ns)
{
	struct rte_mbuf *pkts[UET_DPDK_BURST];
	uint32_t moved = 0, i, k, id;
	unsigned n;
	bool late;

	for (i = 0; i < lc->nq; i++) {
		struct txq *q = &lc->q[i];

		n = rte_eth_rx_burst(q->port_id, q->queue, pkts, UET_DPDK_BURST);
		for (k = 0; k < n; k++) {
			/* Not every PMD sets it (net_ring passes our own TX
			 * mbufs through); dispatch and steering need it. */
			pkts[k]->port = q->port_id;
			if (k + 1 < n)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[k + 1], void *));
			rx_one(lc, pkts[k], now_ns, false);
		}
		if (n > 0)
			rte_pktmbuf_free_bulk(pkts, n);
		moved += n;
	}
	n = rte_ring_sc_dequeue_burst(lc->inbox, (void **)pkts, UET_DPDK_BURST, NULL);
	for (k = 0; k < n; k++)
		rx_one(lc, pkts[k], now_ns, true);
	if (n > 0) {
		rte_pktmbuf_free_bulk(pkts, n);
		lc->st.steered_in += n;
		moved += n;
	}
	rearm_pending_hosts(lc);
	/*
	 * Endpoint timers due. After the lcore was away (descheduled on a
	 * shared core), its own hosts' replies are not out yet: what a host
	 * on this lcore received just now is answered in the write phase
	 * below and read back on the next poll. A timer handled now would
	 * take that answer for lost (a spurious RTO per scheduler slice), so
	 * the timers wait one round, never two in a row.
	 */
	late = lc->last_poll_ns != 0 && now_ns > lc->last_poll_ns + LATE_POLL_NS &&
	       !lc->timers_waited;
	lc->last_poll_ns = now_ns;
	lc->timers_waited = late;
	if (late)
		lc->st.late_polls++;
	while (!late && uet_twheel_pop(&lc->timers, now_ns, &id)) {
		struct uet_dpdk_host *h = lc->hosts[id];

		uet_ep_handle_timeout(h->ep, now_ns);
		rearm(lc, h);
	}
	/* Writes, round robin over the hosts so one cannot starve the rest of
	 * a shared queue. */
	for (k = 0; k < lc->n; k++) {
		struct uet_dpdk_host *h = lc->hosts[(lc->rr + k) % lc->n];

		ask_neighbours(lc, h, now_ns);
		if (uet_ep_may_write(h->ep)) {
			moved += host_write(lc, h, now_ns, UET_DPDK_BURST);
			rearm(lc, h);
		}
	}
	lc->rr = lc->rr + 1 < lc->n ? lc->rr + 1 : 0;
	for (i = 0; i < lc->nq; i++)
		if (lc->q[i].n > 0)
			txq_flush(&lc->q[i]);
	uet_dpdk_tel_publish(lc->tel, lc->hosts, lc->n, now_ns);
	return moved;
}

void
uet_dpdk_lcore_kick(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h)
{
	/* A send may have armed a timer (0-RTT SYN data starts the RTO). */
	rearm(lc, h);
}
