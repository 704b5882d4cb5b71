/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/dpdk without a NIC: hosts on a net_ring port (its TX ring feeds its
 * own RX ring, a loopback "wire" that every host on the queue shares), so
 * ARP, framing, checksums, dispatch by address and the poll loop run for
 * real. EAL: --no-huge --in-memory, one lcore.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <unistd.h>

#include "dpdk/dpdk.h"
#include "uet/frame.h"
#include "uet/err.h"

static struct uet_dpdk_port port;
static struct uet_dpdk_port port2q; /* net_ring1 with two queues */
static struct uet_dpdk_clock clk;
static bool two_lcores;

struct rxs {
	uint64_t bytes, bad, msgs, acked;
	bool any_payload; /* messages sent without a buffer: no pattern */
};

static uint8_t
pat(uint64_t tag, uint32_t off)
{
	return (uint8_t)(tag * 131 + off * 7 + (off >> 8));
}

static void
on_data(void *user, const struct uet_rx_data *d)
{
	struct rxs *r = user;
	uint32_t i;

	r->bytes += d->len;
	if (r->any_payload)
		return;
	for (i = 0; i < d->len; i++)
		if (d->data[i] != pat(d->tag, d->offset + i))
			r->bad++;
}

static void
on_msg(void *user, const struct uet_rx_msg *m)
{
	struct rxs *r = user;

	r->msgs += m->status == 0;
}

static void
on_done(void *user, const struct uet_tx_done *x)
{
	struct rxs *r = user;

	r->acked += x->status == 0;
}

static int
group_setup(void **state)
{
	/* Two lcores; on a one-CPU machine both on CPU 0. */
	static char prefix[48];
	char *argv[] = { "test_dpdk", "--no-huge", "--no-shconf", "--no-pci", "--lcores",
			 sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? "0,1" : "0,1@0",
			 "--vdev=net_ring0", "--vdev=net_ring1", "--log-level=error", "-m", "256",
			 "--file-prefix", prefix, NULL };
	struct uet_dpdk_port_cfg pc = { .port_id = 0, .nb_queues = 1, .frame_mtu = 4608,
					.nb_mbufs = 8191 };
	char err[256];

	(void)state;
	/* A runtime directory of its own, removed at the end. */
	snprintf(prefix, sizeof(prefix), "uet-test-dpdk-%ld", (long)getpid());
	if (uet_dpdk_eal_init(13, argv, err, sizeof(err)) < 0) {
		print_error("%s\n", err);
		return -1;
	}
	if (uet_dpdk_port_setup(&pc, &port, err, sizeof(err)) != 0) {
		print_error("%s\n", err);
		return -1;
	}
	pc.port_id = 1;
	pc.nb_queues = 2;
	if (uet_dpdk_port_setup(&pc, &port2q, err, sizeof(err)) != 0) {
		print_error("%s\n", err);
		return -1;
	}
	two_lcores = rte_lcore_count() >= 2;
	uet_dpdk_clock_init(&clk);
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	uet_dpdk_port_close(&port2q);
	uet_dpdk_port_close(&port);
	uet_dpdk_eal_cleanup();
	return 0;
}

/* The tests share the ring ports and reuse the same addresses: what one
 * left in flight (its last ACKs, a slow run's retransmissions) must not
 * reach the next one's hosts or counters. */
static int
drain_rings(void **state)
{
	const struct uet_dpdk_port *ports[2] = { &port, &port2q };
	struct rte_mbuf *old[32];
	uint16_t q, k, n;
	int i;

	(void)state;
	for (i = 0; i < 2; i++)
		for (q = 0; q < ports[i]->nb_queues; q++)
			while ((n = rte_eth_rx_burst(ports[i]->port_id, q, old, 32)) > 0)
				for (k = 0; k < n; k++)
					rte_pktmbuf_free(old[k]);
	return 0;
}

static void
host_cfg(struct uet_dpdk_host_cfg *c, uint32_t ip, uint8_t last_mac, struct rxs *r)
{
	memset(c, 0, sizeof(*c));
	c->port = &port;
	c->queue = 0;
	c->ip = ip;
	c->mac[0] = 0x02;
	c->mac[5] = last_mac;
	uet_dscp_map_default(&c->dscp);
	uet_ep_config_default(&c->ep);
	c->ep.base_rtt_ns = 20000;
	c->ep.cb.rx_data = on_data;
	c->ep.cb.rx_msg = on_msg;
	c->ep.cb.tx_done = on_done;
	c->ep.user = r;
}

static uint64_t
poll_until(struct uet_dpdk_lcore *lc, bool (*done)(void *), void *ctx, uint64_t limit_ns)
{
	uint64_t t0 = uet_dpdk_now_ns(&clk), now = t0;

	while ((done == NULL || !done(ctx)) && now - t0 < limit_ns) {
		uet_dpdk_lcore_poll(lc, now);
		now = uet_dpdk_now_ns(&clk);
	}
	return now - t0;
}

struct two {
	struct uet_dpdk_host *a, *b;
	struct rxs ra, rb;
};

static void
two_destroy(struct two *t, struct uet_dpdk_lcore *lc)
{
	uet_dpdk_lcore_destroy(lc);
	uet_dpdk_host_destroy(t->a);
	uet_dpdk_host_destroy(t->b);
}

static bool
resolved(void *p)
{
	struct two *t = p;

	return uet_dpdk_host_has_neigh(t->a, uet_dpdk_host_ip(t->b));
}

/* A (10.0.0.1) and B (10.0.0.2) on one lcore, A having resolved B. */
static struct uet_dpdk_lcore *
two_resolved(struct two *t)
{
	struct uet_dpdk_host_cfg c;
	struct uet_dpdk_lcore *lc;
	struct uet_dpdk_host *hs[2];
	char err[256];

	memset(t, 0, sizeof(*t));
	host_cfg(&c, 0x0a000001, 1, &t->ra);
	assert_int_equal(uet_dpdk_host_create(&c, &t->a, err, sizeof(err)), 0);
	host_cfg(&c, 0x0a000002, 2, &t->rb);
	assert_int_equal(uet_dpdk_host_create(&c, &t->b, err, sizeof(err)), 0);
	hs[0] = t->a;
	hs[1] = t->b;
	assert_int_equal(uet_dpdk_lcore_create(hs, 2, &lc), 0);
	uet_dpdk_host_resolve(t->a, 0x0a000002);
	poll_until(lc, resolved, t, 1000000000ULL);
	assert_true(resolved(t));
	return lc;
}

static bool
delivered(void *p)
{
	struct two *t = p;

	return t->rb.msgs == 4 && t->ra.acked == 4;
}

static bool
both_delivered(void *p)
{
	struct two *t = p;

	return t->ra.msgs == 1 && t->rb.msgs == 1 && t->ra.acked == 1 && t->rb.acked == 1;
}

/* ARP resolves over the wire, then four messages arrive byte-exact and are
 * acknowledged. */
/* A sends B four messages of 25000, 50000, 75000 and 100000 B. */
static void
send_four(struct two *t)
{
	static uint8_t buf[4][100000];
	uint32_t i, j;

	for (i = 0; i < 4; i++) {
		struct uet_send_req r = { .dst_ip = 0x0a000002, .buf = buf[i],
					  .len = 25000 * (i + 1), .tag = i };

		for (j = 0; j < r.len; j++)
			buf[i][j] = pat(r.tag, j);
		assert_int_equal(uet_ep_send(uet_dpdk_host_ep(t->a), &r, uet_dpdk_now_ns(&clk)), 0);
	}
}

static void
assert_four_delivered(const struct two *t)
{
	assert_int_equal(t->rb.msgs, 4);
	assert_int_equal(t->ra.acked, 4);
	assert_int_equal(t->rb.bytes, 25000 * (1 + 2 + 3 + 4));
	assert_int_equal(t->rb.bad, 0);
}

static void
test_arp_and_messages(void **state)
{
	struct uet_dpdk_lcore *lc;
	struct two t;

	(void)state;
	lc = two_resolved(&t);
	/* One request, again every 100 us until the reply is in (a slow
	 * poll on a loaded machine may take a few); B answers each. */
	assert_in_range(uet_dpdk_host_stats(t.a)->tx_arp_requests, 1, 1000);
	assert_int_equal(uet_dpdk_host_stats(t.b)->tx_arp_replies,
			 uet_dpdk_host_stats(t.a)->tx_arp_requests);
	assert_int_equal(uet_dpdk_host_stats(t.b)->tx_arp_requests, 0);
	/* B learnt A from the request: no ARP needed back. */
	assert_true(uet_dpdk_host_has_neigh(t.b, 0x0a000001));
	send_four(&t);
	poll_until(lc, delivered, &t, 5000000000ULL);
	assert_four_delivered(&t);
	assert_int_equal(uet_dpdk_host_stats(t.b)->rx_csum_drops, 0);
	assert_int_equal(uet_dpdk_host_stats(t.a)->tx_no_neigh, 0);
	two_destroy(&t, lc);
}

/* UET frames seen on the wire, by sender: with a zero UDP checksum, or
 * with one that verifies. */
struct csum_seen {
	uint64_t zero[2], good[2], bad;
};

static uint16_t
peek_csum(uint16_t port_id, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	  uint16_t max, void *ctx)
{
	struct csum_seen *cs = ctx;
	uint16_t i;

	(void)port_id;
	(void)queue;
	(void)max;
	for (i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		struct uet_frame_rx r;
		size_t udp;
		int from;

		if (uet_frame_decap(f, pkts[i]->data_len, &r, 0) != 0 || r.dport != UET_UDP_PORT)
			continue;
		from = r.src_ip == 0x0a000001 ? 0 : 1;
		udp = r.payload_off - UET_UDP_HLEN;
		if (f[udp + 6] == 0 && f[udp + 7] == 0)
			cs->zero[from]++;
		else if (uet_frame_decap(f, pkts[i]->data_len, &r, UET_FRAME_VERIFY_CSUM) == 0)
			cs->good[from]++;
		else
			cs->bad++;
	}
	return n;
}

/* --zero-udp-csum: A's frames carry no UDP checksum and B takes them; B,
 * on a port without checksum offload, sums its own in software. */
static void
test_zero_udp_csum(void **state)
{
	static struct csum_seen cs;
	static uint8_t buf[2][200000];
	const struct rte_eth_rxtx_callback *cb;
	struct uet_dpdk_host_cfg c;
	struct uet_dpdk_lcore *lc;
	struct uet_dpdk_host *hs[2];
	struct two t;
	char err[256];
	int i;
	uint32_t j;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(&cs, 0, sizeof(cs));
	assert_false(port.tx_udp_csum);
	host_cfg(&c, 0x0a000001, 1, &t.ra);
	c.zero_udp_csum = true;
	assert_int_equal(uet_dpdk_host_create(&c, &t.a, err, sizeof(err)), 0);
	host_cfg(&c, 0x0a000002, 2, &t.rb);
	assert_int_equal(uet_dpdk_host_create(&c, &t.b, err, sizeof(err)), 0);
	hs[0] = t.a;
	hs[1] = t.b;
	assert_int_equal(uet_dpdk_lcore_create(hs, 2, &lc), 0);
	cb = rte_eth_add_rx_callback(port.port_id, 0, peek_csum, &cs);
	assert_non_null(cb);
	uet_dpdk_host_resolve(t.a, 0x0a000002);
	uet_dpdk_host_resolve(t.b, 0x0a000001);
	for (i = 0; i < 2; i++) {
		struct uet_send_req r = { .dst_ip = i ? 0x0a000001 : 0x0a000002, .buf = buf[i],
					  .len = sizeof(buf[i]), .tag = (uint64_t)i };

		for (j = 0; j < r.len; j++)
			buf[i][j] = pat(r.tag, j);
		assert_int_equal(uet_ep_send(uet_dpdk_host_ep(i ? t.b : t.a), &r,
					     uet_dpdk_now_ns(&clk)), 0);
	}
	poll_until(lc, both_delivered, &t, 5000000000ULL);
	assert_int_equal(rte_eth_remove_rx_callback(port.port_id, 0, cb), 0);
	assert_int_equal(t.ra.msgs, 1);
	assert_int_equal(t.rb.msgs, 1);
	assert_int_equal(t.ra.bytes + t.rb.bytes, 2 * sizeof(buf[0]));
	assert_int_equal(t.ra.bad + t.rb.bad, 0);
	/* 200000 B of 4 KiB-MTU data each way, plus ACKs. */
	assert_true(cs.zero[0] >= 49);
	assert_int_equal(cs.good[0], 0);
	assert_true(cs.good[1] >= 49);
	assert_int_equal(cs.zero[1], 0);
	assert_int_equal(cs.bad, 0);
	assert_int_equal(uet_dpdk_host_stats(t.a)->rx_csum_drops, 0);
	assert_int_equal(uet_dpdk_host_stats(t.b)->rx_csum_drops, 0);
	/* B's checksums took the sums its endpoint made as it copied each
	 * payload from the message buffer (every data frame, resends too);
	 * A sums nothing; the ring offloads nothing. */
	assert_true(uet_dpdk_host_stats(t.b)->tx_csum_fused >= 49);
	assert_int_equal(uet_dpdk_host_stats(t.a)->tx_csum_fused, 0);
	assert_int_equal(uet_dpdk_host_stats(t.a)->tx_csum_offloaded +
			 uet_dpdk_host_stats(t.b)->tx_csum_offloaded +
			 uet_dpdk_host_stats(t.a)->rx_csum_offloaded +
			 uet_dpdk_host_stats(t.b)->rx_csum_offloaded, 0);
	two_destroy(&t, lc);
}

static struct uet_dpdk_lcore *
one_lcore(struct uet_dpdk_host *a, struct uet_dpdk_host *b)
{
	struct uet_dpdk_host *hs[2] = { a, b };
	struct uet_dpdk_lcore *lc;

	assert_int_equal(uet_dpdk_lcore_create(hs, b != NULL ? 2 : 1, &lc), 0);
	return lc;
}

/* A poll long after the last one (the lcore was descheduled) handles
 * what arrived but leaves the timers for the next poll: B's ACK for data
 * it only read now goes out in this poll's writes and reaches A on the
 * next, before A's RTO is looked at. Timers wait one poll, never two. */
static void
test_late_poll_waits_timers(void **state)
{
	static uint8_t buf[1000];
	struct uet_dpdk_lcore *lc;
	struct uet_send_req r = { .dst_ip = 0x0a000002, .buf = buf, .len = sizeof(buf), .tag = 7 };
	struct two t;
	uint64_t now;
	uint32_t j;

	(void)state;
	lc = two_resolved(&t);
	for (j = 0; j < r.len; j++)
		buf[j] = pat(r.tag, j);
	now = uet_dpdk_now_ns(&clk);
	assert_int_equal(uet_ep_send(uet_dpdk_host_ep(t.a), &r, now), 0);
	uet_dpdk_lcore_poll(lc, now);    /* A's data onto the ring */
	now += 100000000ULL;             /* away 100 ms, far past any RTO */
	uet_dpdk_lcore_poll(lc, now);    /* B reads it and ACKs; timers wait */
	assert_int_equal(t.rb.msgs, 1);
	assert_int_equal(uet_dpdk_lcore_stats(lc)->late_polls, 1);
	assert_int_equal(uet_ep_stats(uet_dpdk_host_ep(t.a))->rto_events, 0);
	uet_dpdk_lcore_poll(lc, now + 1000);
	assert_int_equal(t.ra.acked, 1);
	assert_int_equal(uet_ep_stats(uet_dpdk_host_ep(t.a))->rto_events, 0);
	assert_int_equal(uet_ep_stats(uet_dpdk_host_ep(t.a))->tx_retx_pkts, 0);

	/* Late again right after a late poll: the timers run this time. The
	 * RTO, 300 ms late, is put off once (sender.c); the probe, due too,
	 * finds A's second message gone (B's ring was drained, it never read
	 * it): resent, it arrives and is acknowledged a few polls on. */
	r.tag = 8;
	assert_int_equal(uet_ep_send(uet_dpdk_host_ep(t.a), &r, now + 2000), 0);
	uet_dpdk_lcore_poll(lc, now + 2000);
	drain_rings(NULL);
	now += 100000000ULL;
	uet_dpdk_lcore_poll(lc, now);
	assert_int_equal(uet_ep_stats(uet_dpdk_host_ep(t.a))->rto_events, 0);
	assert_int_equal(uet_ep_stats(uet_dpdk_host_ep(t.a))->rto_deferred, 0);
	now += 300000000ULL;
	uet_dpdk_lcore_poll(lc, now);
	assert_int_equal(uet_dpdk_lcore_stats(lc)->late_polls, 2);
	assert_int_equal(uet_ep_stats(uet_dpdk_host_ep(t.a))->rto_events, 0);
	assert_int_equal(uet_ep_stats(uet_dpdk_host_ep(t.a))->rto_deferred, 1);
	for (j = 0; j < 10 && t.ra.acked < 2; j++) {
		now += 1000;
		uet_dpdk_lcore_poll(lc, now);
	}
	assert_int_equal(t.ra.acked, 2);
	assert_int_equal(uet_ep_stats(uet_dpdk_host_ep(t.a))->probe_losses, 1);
	assert_int_equal(uet_ep_stats(uet_dpdk_host_ep(t.a))->tx_retx_pkts, 1);
	assert_int_equal(uet_ep_stats(uet_dpdk_host_ep(t.a))->rto_events, 0);
	two_destroy(&t, lc);
}

struct gw {
	struct uet_dpdk_host *a;
	struct uet_dpdk_lcore *lc;
};

static bool
gw_resolved(void *p)
{
	struct gw *g = p;

	return uet_dpdk_host_has_neigh(g->a, 0x0a020005);
}

/* Off-link destinations go to the gateway's MAC: A (10.1.0.2/24 via
 * 10.1.0.1) resolves the gateway, not the peer, and its frames for
 * 10.2.0.5 reach the gateway's host, which is not their destination. */
static void
test_gateway_next_hop(void **state)
{
	struct uet_dpdk_host_cfg c;
	struct uet_dpdk_host *router;
	struct rxs ra, rr;
	struct gw g;
	char err[256];
	struct uet_send_req r = { .dst_ip = 0x0a020005, .len = 3000, .tag = 1 };
	static uint8_t buf[3000];

	(void)state;
	memset(&ra, 0, sizeof(ra));
	memset(&rr, 0, sizeof(rr));
	host_cfg(&c, 0x0a010002, 1, &ra);
	c.prefix_len = 24;
	c.gateway = 0x0a010001;
	assert_int_equal(uet_dpdk_host_create(&c, &g.a, err, sizeof(err)), 0);
	host_cfg(&c, 0x0a010001, 9, &rr);
	assert_int_equal(uet_dpdk_host_create(&c, &router, err, sizeof(err)), 0);
	g.lc = one_lcore(g.a, router);
	assert_false(uet_dpdk_host_has_neigh(g.a, 0x0a020005));
	r.buf = buf;
	assert_int_equal(uet_ep_send(uet_dpdk_host_ep(g.a), &r, uet_dpdk_now_ns(&clk)), 0);
	poll_until(g.lc, gw_resolved, &g, 1000000000ULL);
	assert_true(gw_resolved(&g));
	/* Resolving the gateway covers every off-link peer. */
	assert_true(uet_dpdk_host_has_neigh(g.a, 0x0a630001));
	assert_in_range(uet_dpdk_host_stats(g.a)->tx_arp_requests, 1, 1000);
	assert_int_equal(uet_dpdk_host_stats(router)->tx_arp_replies,
			 uet_dpdk_host_stats(g.a)->tx_arp_requests);
	/* On this wire A hears its own broadcasts too, then the replies. */
	assert_int_equal(uet_dpdk_host_stats(g.a)->rx_arp,
			 2 * uet_dpdk_host_stats(g.a)->tx_arp_requests);
	/* The first packet found no neighbour; the RTO resends it. */
	assert_true(uet_dpdk_host_stats(g.a)->tx_no_neigh >= 1);
	poll_until(g.lc, NULL, NULL, 3000000ULL);
	assert_true(uet_dpdk_host_stats(g.a)->tx_frames >= 2);
	assert_true(uet_dpdk_lcore_stats(g.lc)->rx_other_drops >= 1);
	assert_int_equal(uet_dpdk_host_stats(router)->rx_frames, 0);
	uet_dpdk_lcore_destroy(g.lc);
	uet_dpdk_host_destroy(g.a);
	uet_dpdk_host_destroy(router);
}

/* A neighbour that never answers is asked again with a backoff (100 us,
 * doubling to 100 ms), not flooded every poll. */
static void
test_arp_backoff(void **state)
{
	struct uet_dpdk_host_cfg c;
	struct uet_dpdk_host *a;
	struct uet_dpdk_lcore *lc;
	struct rxs ra;
	char err[256];
	uint64_t n;

	(void)state;
	memset(&ra, 0, sizeof(ra));
	host_cfg(&c, 0x0a000001, 1, &ra);
	assert_int_equal(uet_dpdk_host_create(&c, &a, err, sizeof(err)), 0);
	lc = one_lcore(a, NULL);
	uet_dpdk_host_resolve(a, 0x0a0000fe);
	poll_until(lc, NULL, NULL, 60000000ULL);
	n = uet_dpdk_host_stats(a)->tx_arp_requests;
	/* 60 ms: 100 us, 200 us, ... 51.2 ms after the first: about 10. */
	assert_in_range(n, 6, 12); /* without the backoff: 600 */
	assert_false(uet_dpdk_host_has_neigh(a, 0x0a0000fe));
	uet_dpdk_lcore_destroy(lc);
	uet_dpdk_host_destroy(a);
}

struct evcount {
	uint64_t tx[65536], ce[65536];
};

static void
count_ev(void *ctx, uint16_t ev, bool ce)
{
	struct evcount *e = ctx;

	if (ce)
		e->ce[ev]++;
	else
		e->tx[ev]++;
}

/* A (10.0.0.1, OPS over EVs 50000-50015, its EVs counted into evc) and B
 * (10.0.0.2 on port_b), each the other's static neighbour. */
static void
ev_pair(struct two *t, struct evcount *evc, struct uet_dpdk_port *port_b, uint64_t rto_min_ns)
{
	struct uet_dpdk_host_cfg c;
	char err[256];

	memset(t, 0, sizeof(*t));
	memset(evc, 0, sizeof(*evc));
	host_cfg(&c, 0x0a000001, 1, &t->ra);
	c.ep.ev_base = 50000;
	c.ep.ev_count = 16;
	c.ep.lb = uet_lb_find("ops");
	c.ep.rto_min_ns = rto_min_ns;
	c.on_ev = count_ev;
	c.on_ev_ctx = evc;
	assert_int_equal(uet_dpdk_host_create(&c, &t->a, err, sizeof(err)), 0);
	host_cfg(&c, 0x0a000002, 2, &t->rb);
	c.port = port_b;
	assert_int_equal(uet_dpdk_host_create(&c, &t->b, err, sizeof(err)), 0);
	uet_dpdk_host_add_neigh(t->a, 0x0a000002, (const uint8_t[6]){ 2, 0, 0, 0, 0, 2 });
	uet_dpdk_host_add_neigh(t->b, 0x0a000001, (const uint8_t[6]){ 2, 0, 0, 0, 0, 1 });
}

/* The fail-EV hook drops what the endpoint sends on the EVs in its set
 * (counted), the transport retransmits on others, and every byte still
 * arrives. */
static void
test_fail_ev_hook(void **state)
{
	static struct evcount evc;
	struct uet_dpdk_lcore *lc;
	static uint8_t buf[4][100000];
	struct two t;
	uint64_t dead = 0, live = 0;
	uint32_t i;
	int j;

	(void)state;
	ev_pair(&t, &evc, &port, 0);
	assert_int_equal(uet_dpdk_host_fail_evs(t.a, 0, 50000, 50003), 0);
	assert_int_equal(uet_dpdk_host_fail_evs(t.a, 0, 50010, 50009), UET_ERR_INVAL);
	/* A range that fails an hour from now stays alive in this test: each
	 * range keeps its own start. */
	assert_int_equal(uet_dpdk_host_fail_evs(t.a, uet_dpdk_now_ns(&clk) + 3600000000000ULL,
						50004, 50007), 0);
	lc = one_lcore(t.a, t.b);
	for (i = 0; i < 4; i++) {
		struct uet_send_req r = { .dst_ip = 0x0a000002, .buf = buf[i], .len = 100000,
					  .tag = i };

		for (j = 0; j < (int)r.len; j++)
			buf[i][j] = pat(r.tag, (uint32_t)j);
		assert_int_equal(uet_ep_send(uet_dpdk_host_ep(t.a), &r, uet_dpdk_now_ns(&clk)), 0);
	}
	poll_until(lc, delivered, &t, 10000000000ULL);
	assert_int_equal(t.rb.msgs, 4);
	assert_int_equal(t.rb.bad, 0);
	assert_int_equal(t.rb.bytes, 400000);
	for (i = 50000; i < 50016; i++) {
		if (i <= 50003)
			dead += evc.tx[i];
		else
			live += evc.tx[i];
	}
	assert_true(dead > 0);
	{
		/* Every data packet on a dead EV was dropped; so were the
		 * control packets (probes) that went there, not counted per
		 * EV. */
		const struct uet_ep_stats *es = uet_ep_stats(uet_dpdk_host_ep(t.a));
		uint64_t failed = uet_dpdk_host_stats(t.a)->tx_fail_ev;

		assert_true(failed >= dead);
		assert_true(failed <= dead + es->tx_probe_pkts + es->tx_ack_pkts +
					     es->tx_nack_pkts);
	}
	assert_true(live >= 4 * 25); /* 100 kB in 4 kB packets, four times */
	assert_true(evc.tx[50004] + evc.tx[50005] + evc.tx[50006] + evc.tx[50007] > 0);
	/* As many ranges as uet-perf's options can give, and no more. */
	for (i = 2; i < UET_DPDK_MAX_FAIL_RANGES; i++)
		assert_int_equal(uet_dpdk_host_fail_evs(t.a, UINT64_MAX, 1, 1), 0);
	assert_int_equal(uet_dpdk_host_fail_evs(t.a, UINT64_MAX, 1, 1), UET_ERR_INVAL);
	assert_true(uet_ep_stats(uet_dpdk_host_ep(t.a))->tx_retx_pkts >= dead);
	two_destroy(&t, lc);
}

/* Frames waiting on queue 0 of a net_ring port (its own TX). */
static uint32_t
ring_take(const struct uet_dpdk_port *p, struct rte_mbuf **m, uint32_t cap)
{
	uint32_t n = 0;
	uint16_t got;

	while (n + 32 <= cap && (got = rte_eth_rx_burst(p->port_id, 0, m + n, 32)) > 0)
		n += got;
	return n;
}

static void
ring_put(const struct uet_dpdk_port *p, struct rte_mbuf **m, uint32_t n)
{
	uint32_t sent = 0;

	while (sent < n)
		sent += rte_eth_tx_burst(p->port_id, 0, m + sent,
					 (uint16_t)(n - sent > 32 ? 32 : n - sent));
}

static uint32_t
dst_of(const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
							       UET_ETH_HLEN);

	return rte_be_to_cpu_32(ip->dst_addr);
}

/* A switch between A (on net_ring0) and B (on queue 0 of net_ring1): each
 * port's ring holds what its host sent and what the switch delivered there
 * earlier and the host has not read yet; the first kind goes to the other
 * port, ECN-capable frames towards B CE-marked (the IPv4 checksum redone;
 * the UDP checksum does not cover the TOS byte). Returns the frames it
 * marked. */
static uint32_t
ce_switch(uint32_t ip_a, uint32_t ip_b)
{
	static struct rte_mbuf *ra[1024], *rb[1024], *to_a[1024], *to_b[1024], *keep_a[1024],
		*keep_b[1024];
	uint32_t na = ring_take(&port, ra, RTE_DIM(ra));
	uint32_t nb = ring_take(&port2q, rb, RTE_DIM(rb));
	uint32_t marked = 0, k, nta = 0, ntb = 0, nka = 0, nkb = 0;

	for (k = 0; k < na; k++) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(ra[k], struct rte_ipv4_hdr *,
								 UET_ETH_HLEN);

		if (dst_of(ra[k]) != ip_b) {
			keep_a[nka++] = ra[k];
			continue;
		}
		to_b[ntb++] = ra[k];
		if ((ip->type_of_service & 3) != UET_ECN_ECT0)
			continue;
		ip->type_of_service |= UET_ECN_CE;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		marked++;
	}
	for (k = 0; k < nb; k++) {
		if (dst_of(rb[k]) == ip_a)
			to_a[nta++] = rb[k];
		else
			keep_b[nkb++] = rb[k];
	}
	ring_put(&port, keep_a, nka);
	ring_put(&port, to_a, nta);
	ring_put(&port2q, keep_b, nkb);
	ring_put(&port2q, to_b, ntb);
	return marked;
}

/* CE marks on the way to B come back in B's ACKs; A counts each echoing
 * ACK once, on the EV it came back on, which is an EV A sent data on. */
static void
test_ce_echo_per_ev(void **state)
{
	static struct evcount cc;
	struct uet_dpdk_lcore *la, *lb;
	struct two t;
	uint64_t ce = 0, marked = 0, t0;
	uint32_t i;

	(void)state;
	/* The loop below is slow: no spurious RTOs. */
	ev_pair(&t, &cc, &port2q, 5000000);
	/* One lcore object each, polled in turn with the switch between. */
	la = one_lcore(t.a, NULL);
	lb = one_lcore(t.b, NULL);
	send_four(&t);
	t0 = uet_dpdk_now_ns(&clk);
	while (!delivered(&t) && uet_dpdk_now_ns(&clk) - t0 < 10000000000ULL) {
		uet_dpdk_lcore_poll(la, uet_dpdk_now_ns(&clk));
		uet_dpdk_lcore_poll(lb, uet_dpdk_now_ns(&clk));
		marked += ce_switch(0x0a000001, 0x0a000002);
	}
	assert_four_delivered(&t);
	/* 25, 50, 75 and 100 kB in 4 KiB packets: 64. */
	assert_true(marked >= 64);
	assert_int_equal(uet_ep_stats(uet_dpdk_host_ep(t.b))->rx_ce_pkts, marked);
	for (i = 0; i < 65536; i++) {
		if (cc.ce[i] != 0)
			assert_true(cc.tx[i] > 0); /* echoed on an EV that carried data */
		ce += cc.ce[i];
	}
	/* Every marked packet is ACKed at once with the echo; A counts the
	 * ACKs it accepts (a late duplicate's would not be). */
	print_message("# %" PRIu64 " data packets marked, %" PRIu64 " CE echoes counted\n",
		      marked, ce);
	assert_true(ce >= 64);
	assert_true(ce <= uet_ep_stats(uet_dpdk_host_ep(t.a))->rx_ack_pkts);
	uet_dpdk_lcore_destroy(la);
	uet_dpdk_lcore_destroy(lb);
	uet_dpdk_host_destroy(t.a);
	uet_dpdk_host_destroy(t.b);
}

static bool
delivered_eight(void *p)
{
	struct two *t = p;

	return t->rb.msgs == 8 && t->ra.acked == 8;
}

/* Payloads the sender never wrote (messages without a buffer, no fill) are
 * zero in a fresh TX mbuf and the software checksum skips them; a TX mbuf
 * that carried a payload before must be summed whole when it comes back
 * unfilled. Filled messages first, then unfilled ones on the same mbufs:
 * every checksum verifies at B. */
static void
test_unfilled_payload_checksums(void **state)
{
	static struct evcount evc;
	struct uet_dpdk_lcore *lc;
	struct two t;
	uint32_t i;

	(void)state;
	ev_pair(&t, &evc, &port, 0);
	lc = one_lcore(t.a, t.b);
	send_four(&t);
	poll_until(lc, delivered, &t, 5000000000ULL);
	assert_four_delivered(&t);
	t.rb.any_payload = true;
	for (i = 0; i < 4; i++) {
		struct uet_send_req r = { .dst_ip = 0x0a000002, .buf = NULL, .len = 100000,
					  .tag = 10 + i };

		assert_int_equal(uet_ep_send(uet_dpdk_host_ep(t.a), &r, uet_dpdk_now_ns(&clk)), 0);
	}
	poll_until(lc, delivered_eight, &t, 5000000000ULL);
	assert_int_equal(t.rb.msgs, 8);
	assert_int_equal(t.rb.bytes, 25000 * (1 + 2 + 3 + 4) + 4 * 100000);
	assert_int_equal(uet_dpdk_host_stats(t.a)->rx_csum_drops, 0);
	assert_int_equal(uet_dpdk_host_stats(t.b)->rx_csum_drops, 0);
	two_destroy(&t, lc);
}

struct lc_run {
	struct uet_dpdk_lcore *lc;
	volatile int *stop;
};

static int
lcore_loop(void *arg)
{
	struct lc_run *r = arg;

	while (!*r->stop)
		uet_dpdk_lcore_poll(r->lc, uet_dpdk_now_ns(&clk));
	return 0;
}

/* Two lcores, each with one host on its own queue of a net_ring port
 * whose queue i loops to itself: every frame A sends lands on A's lcore
 * and must be steered to B's, ARP included. Share-nothing: each lcore
 * polls only its own queue and inbox. */
static void
test_two_lcores_steer(void **state)
{
	struct uet_dpdk_host_cfg c;
	struct uet_dpdk_lcore *la, *lb;
	struct uet_dpdk_group *g;
	struct lc_run rb;
	static volatile int stop;
	struct two t;
	char err[256];
	unsigned worker;

	(void)state;
	if (!two_lcores)
		skip();
	memset(&t, 0, sizeof(t));
	host_cfg(&c, 0x0a000001, 1, &t.ra);
	c.port = &port2q;
	c.queue = 0;
	assert_int_equal(uet_dpdk_host_create(&c, &t.a, err, sizeof(err)), 0);
	host_cfg(&c, 0x0a000002, 2, &t.rb);
	c.port = &port2q;
	c.queue = 1;
	assert_int_equal(uet_dpdk_host_create(&c, &t.b, err, sizeof(err)), 0);
	la = one_lcore(t.a, NULL);
	lb = one_lcore(t.b, NULL);
	{
		struct uet_dpdk_lcore *both[2] = { la, lb };
		struct uet_dpdk_lcore *dup[2] = { la, la };

		assert_int_equal(uet_dpdk_lcore_group(dup, 2, &g), UET_ERR_INVAL);
		assert_int_equal(uet_dpdk_lcore_group(both, 2, &g), 0);
	}
	stop = 0;
	rb.lc = lb;
	rb.stop = &stop;
	worker = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	assert_int_equal(rte_eal_remote_launch(lcore_loop, &rb, worker), 0);
	uet_dpdk_host_resolve(t.a, 0x0a000002);
	poll_until(la, resolved, &t, 2000000000ULL);
	assert_true(resolved(&t));
	send_four(&t);
	poll_until(la, delivered, &t, 10000000000ULL);
	stop = 1;
	rte_eal_wait_lcore(worker);
	assert_four_delivered(&t);
	/* A's data went A's lcore -> B's; B's ACKs came back the other way. */
	assert_true(uet_dpdk_lcore_stats(la)->steered_out >= 25);
	assert_true(uet_dpdk_lcore_stats(lb)->steered_in >= 25);
	assert_true(uet_dpdk_lcore_stats(lb)->steered_out >= 4);
	assert_true(uet_dpdk_lcore_stats(la)->steered_in >= 4);
	assert_int_equal(uet_dpdk_lcore_stats(la)->steer_drops, 0);
	uet_dpdk_group_destroy(g);
	uet_dpdk_lcore_destroy(la);
	uet_dpdk_lcore_destroy(lb);
	uet_dpdk_host_destroy(t.a);
	uet_dpdk_host_destroy(t.b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_arp_and_messages, drain_rings),
		cmocka_unit_test_setup(test_zero_udp_csum, drain_rings),
		cmocka_unit_test_setup(test_gateway_next_hop, drain_rings),
		cmocka_unit_test_setup(test_arp_backoff, drain_rings),
		cmocka_unit_test_setup(test_fail_ev_hook, drain_rings),
		cmocka_unit_test_setup(test_ce_echo_per_ev, drain_rings),
		cmocka_unit_test_setup(test_unfilled_payload_checksums, drain_rings),
		cmocka_unit_test_setup(test_two_lcores_steer, drain_rings),
		cmocka_unit_test_setup(test_late_poll_waits_timers, drain_rings),
	};

	return cmocka_run_group_tests_name("dpdk", tests, group_setup, group_teardown);
}
