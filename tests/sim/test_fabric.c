/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/sim fabrics: fat-tree shapes and oversubscription, ECMP path
 * diversity, exact unloaded latencies, and scheduled failures (link down
 * with and without routing convergence, empty groups, degraded rates,
 * switch down, bit errors, random selections), adaptive routing's ties,
 * mostly with raw frames so
 * that every packet is accounted for; one run with the real endpoint on a
 * failing 3-tier fabric.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "simwork.h"

#define GBPS 1000000000ULL
#define US (1000ULL * 1000) /* ps */

static struct sim *
fabric(uint32_t hosts, uint32_t tiers, uint32_t oversub, uint64_t seed,
       struct sim_fattree_cfg *out)
{
	struct sim_fattree_cfg c;
	struct sim_config sc;
	struct sim *s;

	sim_fattree_cfg_default(&c, hosts, tiers);
	c.oversub = oversub;
	sim_config_default(&sc);
	sc.seed = seed;
	sc.mtu_bytes = sim_frame_bytes(c.mss_bytes);
	s = sim_create(&sc);
	assert_non_null(s);
	assert_int_equal(sim_build_fat_tree(s, &c), 0);
	if (out != NULL)
		*out = c;
	return s;
}

/* A UDP frame from host src to host dst with source port ev, DSCP data. */
static uint32_t
frame(struct sim *s, uint8_t *buf, uint32_t src, uint32_t dst, uint16_t ev, uint32_t payload)
{
	struct uet_frame_tx tx;
	struct uet_dscp_map m;
	int n;

	uet_dscp_map_default(&m);
	memset(&tx, 0, sizeof(tx));
	memset(buf + UET_FRAME_HDR_LEN, 0x5a, payload);
	tx.src_ip = sim_host_ip(s, src);
	tx.dst_ip = sim_host_ip(s, dst);
	tx.sport = ev;
	tx.dport = UET_UDP_PORT;
	tx.dscp = m.tc[UET_TC_DATA];
	tx.ttl = 64;
	n = uet_frame_encap(buf, 16384, &tx, payload, true);
	assert_true(n > 0);
	return (uint32_t)n;
}

static void
send_raw(struct sim *s, uint32_t src, uint32_t dst, uint16_t ev, uint32_t payload)
{
	uint8_t buf[16384];
	uint32_t n = frame(s, buf, src, dst, ev, payload);

	assert_int_equal(sim_host_send_raw(s, src, buf, n), 0);
}

/* Serialization of a frame of len bytes (+24 B on the wire), in ps. */
static uint64_t
ser(uint32_t len, uint64_t rate_bps)
{
	return ((uint64_t)(len + 24) * 8 * 1000000000000ULL + rate_bps - 1) / rate_bps;
}

static uint32_t
pidx(const struct sim_port *p)
{
	struct sim_port_info i;

	sim_port_info(p, &i);
	return i.index;
}

static uint64_t
rx_frames(struct sim *s)
{
	uint64_t n = 0;
	uint32_t h;

	for (h = 0; h < sim_num_hosts(s); h++)
		n += sim_host_stats(s, h)->rx_frames;
	return n;
}

/* ------------------------------------------------------------------ */

static void
check_shape(uint32_t hosts, uint32_t tiers, uint32_t hpt, uint32_t up, uint32_t t1,
	    uint32_t t2, uint32_t pods)
{
	struct sim_fattree_shape sh;
	struct sim_fattree_cfg c;
	struct sim *s = fabric(hosts, tiers, 1, 1, &c);
	uint32_t t, sw, ports;

	assert_int_equal(sim_fattree_shape(&c, &sh), 0);
	assert_int_equal(sh.hosts_per_tor, hpt);
	assert_int_equal(sh.tor_uplinks, up);
	assert_int_equal(sh.tors, hosts / hpt);
	assert_int_equal(sh.t1_switches, t1);
	assert_int_equal(sh.t2_switches, t2);
	assert_int_equal(sh.pods, pods);
	assert_int_equal(sim_num_hosts(s), hosts);
	assert_int_equal(sim_num_tiers(s), tiers);
	assert_int_equal(sim_hosts_per_tor(s), hpt);
	assert_int_equal(sim_tier_switches(s, 0), hosts / hpt);
	assert_int_equal(sim_tier_switches(s, 1), t1);
	assert_int_equal(sim_tier_switches(s, 2), t2);
	assert_int_equal(sim_num_switches(s), hosts / hpt + t1 + t2);
	ports = hosts * 2 + 2 * (hosts / hpt) * up + (tiers == 3 ? 2 * t1 * (hosts / hpt / pods) : 0);
	assert_int_equal(sim_num_ports(s), ports);
	assert_int_equal(sh.ports, ports);
	assert_int_equal(sim_num_ports_role(s, SIM_PORT_HOST_NIC), hosts);
	assert_int_equal(sim_num_ports_role(s, SIM_PORT_TOR_DOWN), hosts);
	assert_int_equal(sim_num_ports_role(s, SIM_PORT_TOR_UP), hosts / hpt * up);
	assert_int_equal(sim_num_ports_role(s, SIM_PORT_T1_DOWN), hosts / hpt * up);
	assert_int_equal(sim_num_ports_role(s, SIM_PORT_T1_UP), tiers == 3 ? t2 * pods : 0);
	assert_int_equal(sim_num_ports_role(s, SIM_PORT_T2_DOWN), tiers == 3 ? t2 * pods : 0);
	/* Host i under ToR i / hpt; ToR t is switch t. */
	for (t = 0; t < hosts; t += hpt + 1) {
		struct sim_port_info pi;

		assert_int_equal(sim_tor_of_host(s, t), t / hpt);
		sim_port_info(sim_host_port(s, t), &pi);
		assert_int_equal(pi.role, SIM_PORT_HOST_NIC);
		assert_true(pi.is_host && !pi.peer_is_host);
		assert_int_equal(pi.node, t);
		assert_int_equal(pi.peer_node, t / hpt);
	}
	for (sw = 0; sw < sim_num_switches(s); sw++) {
		uint32_t tier = sim_switch_tier(s, sw);

		assert_int_equal(sim_switch_num_uplinks(s, sw),
				 tier == 0 ? up : tier + 1 < tiers ? hosts / hpt / pods : 0);
		if (sim_switch_num_uplinks(s, sw) > 0)
			assert_int_equal(sim_port_role(sim_switch_uplink(s, sw, 0)),
					 tier == 0 ? SIM_PORT_TOR_UP : SIM_PORT_T1_UP);
	}
	assert_int_equal(sim_switch_id(s, 1, 0), hosts / hpt);
	sim_destroy(s);
}

static void
test_fattree_shape(void **state)
{
	struct sim_fattree_cfg c;
	struct sim_fattree_shape sh;

	(void)state;
	/* The REPS paper's fabrics: 2 tiers, 1024 = 32 x 32 with 32 spines,
	 * 128 = 16 ToRs x 8 with 8 spines; 3 tiers, k-ary with k = 8 (128
	 * hosts, pods of 16) and k = 16 (1024 hosts). */
	check_shape(1024, 2, 32, 32, 32, 0, 1);
	check_shape(128, 2, 8, 8, 8, 0, 1);
	check_shape(128, 3, 4, 4, 32, 16, 8);
	check_shape(1024, 3, 8, 8, 128, 64, 16);
	check_shape(16, 3, 2, 2, 8, 4, 4);
	sim_fattree_cfg_default(&c, 1024, 4);
	assert_int_equal(sim_fattree_shape(&c, &sh), UET_ERR_INVAL);
	sim_fattree_cfg_default(&c, 1024, 2);
	c.oversub = 9;
	assert_int_equal(sim_fattree_shape(&c, &sh), UET_ERR_INVAL);
	sim_fattree_cfg_default(&c, 1000, 3);
	c.hosts_per_tor = 8;
	assert_int_equal(sim_fattree_shape(&c, &sh), UET_ERR_INVAL);
	/* Defaults: 400 Gb/s, 500 ns, queue = 1 BDP, ECN at 20% / 80%. */
	sim_fattree_cfg_default(&c, 1024, 2);
	assert_int_equal(c.host_link.rate_bps, 400 * GBPS);
	assert_int_equal(c.fabric_link.lat_ns, 500);
	assert_int_equal(c.switch_lat_ns, 500);
	assert_int_equal(c.host_link.buf_bytes, sim_fattree_bdp_bytes(&c));
	assert_int_equal(c.host_link.buf_bytes, 367264);
	assert_int_equal(c.host_link.ecn_kmin_bytes, 367264 / 5);
	assert_int_equal(c.host_link.ecn_kmax_bytes, 367264 * 4 / 5);
}

static void
test_oversubscription(void **state)
{
	/* 32 downlinks per ToR: 1:1 .. 4:1 and 8:1 leave 32, 16, 11 (32 / 3
	 * = 10.7 rounded), 8 and 4 uplinks, as many spines; 3 tiers: as many
	 * aggregation switches per pod, and cores with them. */
	static const uint32_t up2[9] = { 0, 32, 16, 11, 8, 0, 0, 0, 4 },
			      up3[9] = { 0, 8, 4, 3, 2, 0, 0, 0, 1 };
	uint32_t o;

	(void)state;
	for (o = 1; o <= 8; o++) {
		if (up2[o] == 0)
			continue;
		struct sim *s = fabric(1024, 2, o, 1, NULL);
		uint32_t t;

		assert_int_equal(sim_tier_switches(s, 1), up2[o]);
		for (t = 0; t < 32; t++) {
			assert_int_equal(sim_switch_num_uplinks(s, t), up2[o]);
			assert_int_equal(sim_switch_num_ports(s, t), 32 + up2[o]);
		}
		/* Every spine has a port per ToR. */
		assert_int_equal(sim_switch_num_ports(s, sim_switch_id(s, 1, 0)), 32);
		assert_int_equal(sim_num_ports_role(s, SIM_PORT_TOR_UP), 32 * up2[o]);
		sim_destroy(s);

		s = fabric(1024, 3, o, 1, NULL);
		assert_int_equal(sim_switch_num_uplinks(s, 0), up3[o]);
		assert_int_equal(sim_tier_switches(s, 1), 16 * up3[o]);
		assert_int_equal(sim_tier_switches(s, 2), 8 * up3[o]);
		/* Tier 1 stays 1:1: 8 ToRs below, 8 cores above. */
		assert_int_equal(sim_switch_num_uplinks(s, sim_switch_id(s, 1, 0)), 8);
		assert_int_equal(sim_switch_num_ports(s, sim_switch_id(s, 1, 0)), 16);
		assert_int_equal(sim_switch_num_ports(s, sim_switch_id(s, 2, 0)), 16);
		sim_destroy(s);
	}
}

/* Distinct paths host a -> host b over 4096 EVs; every path has hops
 * ports. */
static uint32_t
paths(struct sim *s, uint32_t a, uint32_t b, uint32_t hops)
{
	static uint32_t seen[4096][8];
	uint32_t n = 0, ev, i, k;

	for (ev = 0; ev < 4096; ev++) {
		struct sim_port *p[8];
		uint32_t id[8] = { 0 };

		assert_int_equal(sim_trace(s, a, b, (uint16_t)(49152 + ev), p, 8), hops);
		for (k = 0; k < hops; k++)
			id[k] = pidx(p[k]);
		for (i = 0; i < n; i++)
			if (memcmp(seen[i], id, sizeof(id)) == 0)
				break;
		if (i == n)
			memcpy(seen[n++], id, sizeof(id));
	}
	return n;
}

static void
test_ecmp_paths(void **state)
{
	struct sim *s;
	uint8_t buf[16384];
	uint32_t ev, i;

	(void)state;
	/* 2 tiers, 16 ToRs x 8 hosts, 8 spines: one path under a ToR, 8
	 * between ToRs. */
	s = fabric(128, 2, 1, 3, NULL);
	assert_int_equal(paths(s, 0, 1, 2), 1);
	assert_int_equal(paths(s, 0, 127, 4), 8);
	assert_int_equal(paths(s, 9, 64, 4), 8);
	sim_destroy(s);
	s = fabric(128, 2, 4, 3, NULL);
	assert_int_equal(paths(s, 0, 127, 4), 2);
	sim_destroy(s);
	/* 3 tiers, k = 8: 4 paths within a pod, (k/2)^2 = 16 across. */
	s = fabric(128, 3, 1, 3, NULL);
	assert_int_equal(paths(s, 0, 1, 2), 1);
	assert_int_equal(paths(s, 0, 4, 4), 4);
	assert_int_equal(paths(s, 0, 127, 6), 16);
	assert_int_equal(paths(s, 17, 100, 6), 16);

	/* Frames take the paths sim_trace predicts: count per port. */
	{
		uint64_t want[1024] = { 0 };

		assert_true(sim_num_ports(s) <= 1024);
		for (ev = 0; ev < 200; ev++) {
			struct sim_port *p[8];
			uint32_t n = sim_trace(s, 0, 127, (uint16_t)(1000 + ev), p, 8);

			for (i = 0; i < n; i++)
				want[pidx(p[i])]++;
			n = frame(s, buf, 0, 127, (uint16_t)(1000 + ev), 100);
			assert_int_equal(sim_host_send_raw(s, 0, buf, n), 0);
		}
		sim_run_until(s, 100 * US);
		assert_int_equal(sim_host_stats(s, 127)->rx_frames, 200);
		for (i = 0; i < sim_num_ports(s); i++)
			assert_int_equal(sim_port_stats(sim_port_at(s, i))->tx_pkts, want[i]);
	}
	sim_destroy(s);
	/* Per-switch seeds: another seed, other paths for the same EVs. */
	{
		struct sim *a = fabric(128, 3, 1, 3, NULL), *b = fabric(128, 3, 1, 4, NULL);
		uint32_t diff = 0;

		for (ev = 0; ev < 64; ev++) {
			struct sim_port *pa[8], *pb[8];

			sim_trace(a, 0, 127, (uint16_t)ev, pa, 8);
			sim_trace(b, 0, 127, (uint16_t)ev, pb, 8);
			for (i = 0; i < 6; i++)
				if (pidx(pa[i]) != pidx(pb[i])) {
					diff++;
					break;
				}
		}
		assert_true(diff > 32);
		sim_destroy(a);
		sim_destroy(b);
	}
}

static void
test_unloaded_latency(void **state)
{
	struct uet_ep_config ec;
	struct sim_fattree_cfg c;
	struct uet_send_req r = { 0 };
	struct sim *s;
	uint64_t d = ser(4194, 400 * GBPS), a = ser(74, 400 * GBPS);

	(void)state;
	/* 4194 B data frame: 84.36 ns per 400 Gb/s hop; 74 B ACK: 1.96 ns. */
	assert_int_equal(d, 84360);
	assert_int_equal(a, 1960);
	/* 2 tiers: host -> ToR -> spine -> ToR -> host, 4 links and 3
	 * switches of 500 ns each way. */
	s = fabric(1024, 2, 1, 5, &c);
	send_raw(s, 0, 1023, 7, 4096 + 56);
	send_raw(s, 32, 33, 7, 4096 + 56);
	sim_run_until(s, 50 * US);
	assert_int_equal(sim_host_stats(s, 1023)->last_rx_ps, 4 * 500000 + 3 * 500000 + 4 * d);
	assert_int_equal(sim_host_stats(s, 33)->last_rx_ps, 2 * 500000 + 500000 + 2 * d);
	sim_destroy(s);
	/* The real endpoint: one 4 KiB message, its ACK back; the sender
	 * hears the ACK one unloaded RTT after sending. */
	s = fabric(1024, 2, 1, 5, &c);
	uet_ep_config_default(&ec);
	ec.link_bps = 400 * GBPS;
	ec.mss_bytes = 4096;
	assert_int_equal(sim_host_attach(s, 0, &ec), 0);
	assert_int_equal(sim_host_attach(s, 1023, &ec), 0);
	r.dst_ip = sim_host_ip(s, 1023);
	r.len = 4096;
	assert_int_equal(uet_ep_send(sim_host_ep(s, 0), &r, 0), 0);
	sim_host_kick(s, 0);
	sim_run_until(s, 50 * US);
	assert_int_equal(sim_host_stats(s, 1023)->last_rx_ps, 3500000 + 4 * d);
	assert_int_equal(sim_host_stats(s, 0)->last_rx_ps, sim_fattree_rtt_ps(&c));
	assert_int_equal(sim_fattree_rtt_ps(&c), 7000000 + 4 * d + 4 * a);
	sim_destroy(s);
	/* 3 tiers across pods: 6 links, 5 switches. */
	s = fabric(128, 3, 1, 5, &c);
	send_raw(s, 0, 127, 7, 4096 + 56);
	send_raw(s, 1, 4, 7, 4096 + 56);
	sim_run_until(s, 50 * US);
	assert_int_equal(sim_host_stats(s, 127)->last_rx_ps, 6 * 500000 + 5 * 500000 + 6 * d);
	assert_int_equal(sim_host_stats(s, 4)->last_rx_ps, 4 * 500000 + 3 * 500000 + 4 * d);
	assert_int_equal(sim_fattree_rtt_ps(&c), 11000000 + 6 * d + 6 * a);
	sim_destroy(s);
}

/* ------------------------------------------------------------------ */
/* failures                                                            */

struct burst {
	struct sim *s;
	uint32_t src_lo, src_hi, dst_lo, dst_hi;
	uint16_t ev;
	uint32_t n;     /* frames per host */
	uint32_t payload;
};

static void
burst_ev(struct sim *s, void *a, uint64_t b)
{
	struct burst *x = a;
	uint32_t h, i;

	(void)b;
	for (h = x->src_lo; h < x->src_hi; h++) {
		for (i = 0; i < x->n; i++) {
			uint32_t dst = x->dst_lo + (h + i) % (x->dst_hi - x->dst_lo);

			send_raw(s, h, dst, x->ev++, x->payload);
		}
	}
}

/* How many of a burst's frames cross port p, by the routes now. */
static uint32_t
burst_via(struct sim *s, const struct burst *x, struct sim_port *p)
{
	uint16_t ev = x->ev;
	uint32_t h, i, k, n = 0;

	for (h = x->src_lo; h < x->src_hi; h++) {
		for (i = 0; i < x->n; i++) {
			struct sim_port *pp[8];
			uint32_t dst = x->dst_lo + (h + i) % (x->dst_hi - x->dst_lo);
			uint32_t hops = sim_trace(s, h, dst, ev++, pp, 8);

			for (k = 0; k < hops; k++)
				n += pp[k] == p;
		}
	}
	return n;
}

/* 2 tiers, 16 ToRs x 8 hosts, 8 spines. ToR 0 - spine 3 dies at 10 us
 * and routing never learns: what hashes there is lost, exactly; both ways,
 * or with one_way only what ToR 0 sends up (sim_port_down_at), and what
 * spine 3 sends down to ToR 0 all arrives. */
static void
link_down_bursts(bool one_way)
{
	struct sim *s = fabric(128, 2, 1, 6, NULL);
	struct sim_port *up = sim_tor_uplink(s, 0, 3), *dn = sim_spine_down(s, 3, 0);
	struct burst out = { .s = s, .src_lo = 0, .src_hi = 8, .dst_lo = 8, .dst_hi = 128,
			     .ev = 100, .n = 40, .payload = 200 };
	struct burst in = { .s = s, .src_lo = 8, .src_hi = 128, .dst_lo = 0, .dst_hi = 8,
			    .ev = 5000, .n = 4, .payload = 200 };
	uint32_t via_up, via_dn, lost_dn;

	assert_ptr_equal(sim_port_peer(up), dn);
	if (one_way)
		sim_port_down_at(s, up, 10 * US, 0);
	else
		sim_link_down_at(s, up, 10 * US, 0);
	/* Before: everything arrives. */
	burst_ev(s, &out, 0);
	sim_run_until(s, 9 * US);
	assert_int_equal(rx_frames(s), 320);
	assert_true(sim_link_is_up(up));
	sim_run_until(s, 20 * US);
	assert_false(sim_link_is_up(up));
	assert_true(sim_link_is_up(dn) == one_way);
	assert_true(sim_link_is_routed(up));
	via_up = burst_via(s, &out, up);
	via_dn = burst_via(s, &in, dn);
	assert_true(via_up > 20 && via_up < 60);   /* ~1/8 of 320 */
	assert_true(via_dn > 40 && via_dn < 80);   /* ~1/8 of 480 */
	burst_ev(s, &out, 0);
	burst_ev(s, &in, 0);
	sim_run_until(s, 60 * US);
	lost_dn = one_way ? 0 : via_dn;
	assert_int_equal(sim_port_stats(up)->drops_down, via_up);
	assert_int_equal(sim_port_stats(dn)->drops_down, lost_dn);
	assert_int_equal(sim_port_stats(dn)->tx_pkts, via_dn - lost_dn);
	assert_int_equal(rx_frames(s), 320 + 320 + 480 - via_up - lost_dn);
	if (one_way) {
		/* back up: nothing lost any more */
		sim_port_up_at(s, up, 70 * US, 0);
		sim_run_until(s, 71 * US);
		assert_true(sim_link_is_up(up));
		burst_ev(s, &out, 0);
		sim_run_until(s, 120 * US);
		assert_int_equal(sim_port_stats(up)->drops_down, via_up);
		assert_int_equal(rx_frames(s), 3 * 320 + 480 - via_up);
	}
	sim_destroy(s);
}

static void
test_link_down_blackhole(void **state)
{
	(void)state;
	link_down_bursts(false);
}

static void
test_port_down_one_way(void **state)
{
	(void)state;
	link_down_bursts(true);
}

struct snap {
	struct sim_port *p;
	struct sim_port_stats st;
};

static void
snap_ev(struct sim *s, void *a, uint64_t b)
{
	struct snap *x = a;

	(void)s;
	(void)b;
	x->st = *sim_port_stats(x->p);
}

/* Host src sends one frame every gap ps, from t0 to t1, EV += 1 each. */
struct stream {
	uint32_t src, dst_lo, dst_n;
	uint16_t ev;
	uint64_t gap_ps, end_ps;
	uint64_t sent;
};

static void
stream_ev(struct sim *s, void *a, uint64_t b)
{
	struct stream *x = a;

	(void)b;
	send_raw(s, x->src, x->dst_lo + (uint32_t)(x->sent % x->dst_n), x->ev++, 200);
	x->sent++;
	if (sim_now_ps(s) + x->gap_ps <= x->end_ps)
		sim_at(s, sim_now_ps(s) + x->gap_ps, stream_ev, x, 0);
}

static void
test_link_down_converge(void **state)
{
	/* ToR 0 - spine 3 dies at 10 us; routing converges 5 us later. From
	 * then on nothing is routed to the dead link: its counters freeze,
	 * and the other ToRs stop using spine 3 toward ToR 0. At 30 us the
	 * link comes back, and routing takes it back at 32 us. */
	struct sim *s = fabric(128, 2, 1, 7, NULL);
	struct sim_port *up = sim_tor_uplink(s, 0, 3), *dn = sim_spine_down(s, 3, 0);
	struct stream a = { .src = 0, .dst_lo = 8, .dst_n = 120, .ev = 1, .gap_ps = 50000,
			    .end_ps = 40 * US };
	struct stream b = { .src = 100, .dst_lo = 0, .dst_n = 8, .ev = 7, .gap_ps = 50000,
			    .end_ps = 40 * US };
	struct snap su = { .p = up }, sd = { .p = dn }, su2 = { .p = up };
	struct sim_port_stats t;
	uint32_t ev, k;

	(void)state;
	sim_at(s, 0, stream_ev, &a, 0);
	sim_at(s, 0, stream_ev, &b, 0);
	sim_link_down_at(s, up, 10 * US, 5000);
	sim_link_up_at(s, dn, 30 * US, 2000);
	sim_at(s, 15 * US + 1, snap_ev, &su, 0);
	sim_at(s, 15 * US + 1, snap_ev, &sd, 0);
	sim_run_until(s, 12 * US);
	assert_true(sim_link_is_routed(up));
	sim_run_until(s, 15 * US);
	assert_false(sim_link_is_routed(up));
	assert_false(sim_link_is_routed(dn));
	for (ev = 0; ev < 4096; ev++) {
		struct sim_port *p[8];

		assert_int_equal(sim_trace(s, 0, 127, (uint16_t)ev, p, 8), 4);
		assert_ptr_not_equal(p[1], up);
		assert_int_equal(sim_trace(s, 127, 0, (uint16_t)ev, p, 8), 4);
		assert_ptr_not_equal(p[2], dn);
		for (k = 0; k < 4; k++)
			assert_ptr_not_equal(sim_port_peer(p[k]), sim_port_peer(dn));
	}
	sim_run_until(s, 29 * US);
	/* Blackholed between 10 and 15 us, ~1/8 of 100 frames each way. */
	assert_true(su.st.drops_down > 3 && su.st.drops_down < 30);
	assert_true(sd.st.drops_down > 3 && sd.st.drops_down < 30);
	assert_int_equal(sim_port_stats(up)->drops_down, su.st.drops_down);
	assert_int_equal(sim_port_stats(dn)->drops_down, sd.st.drops_down);
	assert_int_equal(sim_port_stats(up)->tx_pkts, su.st.tx_pkts);
	assert_int_equal(sim_port_stats(dn)->tx_pkts, sd.st.tx_pkts);
	/* The failure's last victim fell inside the blackhole window. */
	assert_true(sim_port_stats(up)->last_drop_ns >= 10000);
	assert_true(sim_port_stats(up)->last_drop_ns <= 15000);
	/* Back up at 30 us, routed again from 32 us. */
	sim_at(s, 32 * US, snap_ev, &su2, 0);
	sim_run_until(s, 31 * US);
	assert_true(sim_link_is_up(up));
	assert_false(sim_link_is_routed(up));
	sim_run_until(s, 60 * US);
	assert_true(sim_link_is_routed(up));
	assert_int_equal(su2.st.tx_pkts, su.st.tx_pkts);
	assert_true(sim_port_stats(up)->tx_pkts > su.st.tx_pkts + 3);
	assert_true(sim_port_stats(dn)->tx_pkts > sd.st.tx_pkts + 3);
	/* Everything else arrived: the only losses are the blackholed
	 * frames and those already past ToR 12 toward spine 3 when it lost
	 * its way down (no route there). */
	sim_total_stats(s, &t);
	assert_int_equal(a.sent + b.sent, 2 * 801);
	assert_int_equal(t.drops_down, su.st.drops_down + sd.st.drops_down);
	assert_true(t.drops_noroute < 10);
	assert_int_equal(rx_frames(s), a.sent + b.sent - t.drops_down - t.drops_noroute);
	sim_destroy(s);
}

static void
test_empty_group_noroute(void **state)
{
	/* All 8 uplinks of ToR 0 die; after convergence its hosts reach only
	 * each other. Packets for other ToRs are dropped at ToR 0 as "no
	 * route", and packets toward ToR 0 at their own ToR (no spine has a
	 * way down to it any more). */
	struct sim *s = fabric(128, 2, 1, 8, NULL);
	struct sim_port_stats t;
	uint32_t i;

	(void)state;
	for (i = 0; i < 8; i++)
		sim_link_down_at(s, sim_tor_uplink(s, 0, i), 1 * US, 1000);
	sim_run_until(s, 3 * US);
	for (i = 0; i < 10; i++) {
		send_raw(s, 0, 64, (uint16_t)i, 100);
		send_raw(s, 64, 0, (uint16_t)i, 100);
		send_raw(s, 0, 1, (uint16_t)i, 100);
	}
	sim_run_until(s, 30 * US);
	assert_int_equal(sim_host_stats(s, 1)->rx_frames, 10);
	assert_int_equal(sim_host_stats(s, 0)->rx_frames, 0);
	assert_int_equal(sim_host_stats(s, 64)->rx_frames, 0);
	assert_int_equal(sim_port_stats(sim_host_ingress(s, 0))->drops_noroute, 10);
	assert_int_equal(sim_port_stats(sim_host_ingress(s, 64))->drops_noroute, 10);
	assert_int_equal(sim_switch_drops(s), 20);
	sim_total_stats(s, &t);
	assert_int_equal(t.drops_noroute, 20);
	assert_int_equal(t.drops_down, 0);
	assert_null(sim_route(s, 0, sim_host_ip(s, 0), sim_host_ip(s, 64), 1, UET_UDP_PORT));
	sim_destroy(s);
}

static void
test_degraded_rate(void **state)
{
	/* ToR 0's uplink to spine 2 runs at 100 Gb/s from 10 us on, both
	 * ways. A 1 KiB frame across it takes 3 x (400 G serialization) +
	 * 1 x (100 G serialization) longer than the wire alone, exactly. */
	struct sim *s = fabric(128, 2, 1, 9, NULL);
	struct sim_port *up = sim_tor_uplink(s, 0, 2), *dn = sim_spine_down(s, 2, 0), *p[8];
	uint64_t base = 4 * 500000 + 3 * 500000, fast = ser(1066, 400 * GBPS),
		 slow = ser(1066, 100 * GBPS);
	uint16_t ev_out = 0, ev_in = 0;

	(void)state;
	/* EVs that cross the link each way. */
	while (sim_trace(s, 0, 127, ev_out, p, 8) != 4 || p[1] != up)
		ev_out++;
	while (sim_trace(s, 127, 0, ev_in, p, 8) != 4 || p[2] != dn)
		ev_in++;
	sim_link_rate_at(s, up, 10 * US, 100 * GBPS);
	send_raw(s, 0, 127, ev_out, 1024);
	sim_run_until(s, 5 * US);
	assert_int_equal(sim_host_stats(s, 127)->last_rx_ps, base + 4 * fast);
	assert_int_equal(sim_port_rate_bps(up), 400 * GBPS);
	sim_run_until(s, 20 * US);
	assert_int_equal(sim_port_rate_bps(up), 100 * GBPS);
	assert_int_equal(sim_port_rate_bps(dn), 100 * GBPS);
	send_raw(s, 0, 127, ev_out, 1024);
	send_raw(s, 127, 0, ev_in, 1024);
	sim_run_until(s, 30 * US);
	assert_int_equal(sim_host_stats(s, 127)->last_rx_ps, 20 * US + base + 3 * fast + slow);
	assert_int_equal(sim_host_stats(s, 0)->last_rx_ps, 20 * US + base + 3 * fast + slow);
	assert_int_equal(slow - fast, 3 * 21800);
	sim_destroy(s);
}

static void
test_switch_down(void **state)
{
	/* Spine 2 fails at 10 us, routing converges at 14 us: ToRs
	 * blackhole what they hash to it in between, nothing after; it
	 * returns at 30 us (routes at 30 us). */
	struct sim *s = fabric(128, 2, 1, 10, NULL);
	uint32_t sp = sim_switch_id(s, 1, 2), t, ev;
	struct stream a = { .src = 0, .dst_lo = 8, .dst_n = 120, .ev = 1, .gap_ps = 50000,
			    .end_ps = 40 * US };
	struct snap sn[16];
	struct sim_port_stats tot;
	uint64_t drops = 0, after = 0;

	(void)state;
	sim_at(s, 0, stream_ev, &a, 0);
	sim_switch_down_at(s, sp, 10 * US, 4000);
	sim_switch_up_at(s, sp, 30 * US, 0);
	for (t = 0; t < 16; t++) {
		sn[t].p = sim_tor_uplink(s, t, 2);
		sim_at(s, 14 * US + 1, snap_ev, &sn[t], 0);
	}
	sim_run_until(s, 20 * US);
	assert_false(sim_switch_is_up(s, sp));
	for (ev = 0; ev < 1024; ev++) {
		struct sim_port *p[8];

		struct sim_port_info pi;

		assert_int_equal(sim_trace(s, 0, 127, (uint16_t)ev, p, 8), 4);
		sim_port_info(p[1], &pi);
		assert_int_not_equal(pi.peer_node, sp);
	}
	for (t = 0; t < 16; t++) {
		drops += sn[t].st.drops_down;
		after += sim_port_stats(sn[t].p)->drops_down - sn[t].st.drops_down;
	}
	assert_true(drops > 3 && drops < 25); /* ~1/8 of 80 frames */
	assert_int_equal(after, 0);
	sim_run_until(s, 60 * US);
	assert_true(sim_switch_is_up(s, sp));
	assert_true(sim_link_is_routed(sim_tor_uplink(s, 0, 2)));
	assert_true(sim_port_stats(sim_tor_uplink(s, 0, 2))->tx_pkts >
		    sn[0].st.tx_pkts + 3);
	/* All losses: ToR uplinks to the dead spine, and what the spine had
	 * queued toward the ToRs when it died. */
	sim_total_stats(s, &tot);
	assert_true(tot.drops_down >= drops);
	assert_int_equal(tot.drops_noroute, 0);
	assert_int_equal(rx_frames(s), a.sent - tot.drops_down);
	sim_destroy(s);
}

static void
test_pick_deterministic(void **state)
{
	struct sim *s = fabric(1024, 2, 1, 11, NULL);
	struct sim_port *a[1024], *b[1024], *c[1024];
	uint32_t sw[64], i, na, nb, nc, same = 0;

	(void)state;
	/* 3% of 1024 ToR uplinks = 30.72: 31, the same for a seed. */
	na = sim_pick_ports(s, SIM_PORT_TOR_UP, 3.0, 42, a, 1024);
	nb = sim_pick_ports(s, SIM_PORT_TOR_UP, 3.0, 42, b, 1024);
	nc = sim_pick_ports(s, SIM_PORT_TOR_UP, 3.0, 43, c, 1024);
	assert_int_equal(na, 31);
	assert_int_equal(nb, 31);
	assert_int_equal(nc, 31);
	assert_memory_equal(a, b, sizeof(a[0]) * 31);
	for (i = 0; i < 31; i++) {
		assert_int_equal(sim_port_role(a[i]), SIM_PORT_TOR_UP);
		if (i > 0)
			assert_true(a[i - 1] < a[i]);
		same += a[i] == c[i];
	}
	assert_true(same < 5);
	/* Independent of the simulation's own random stream. */
	sim_run_until(s, 1 * US);
	assert_int_equal(sim_pick_ports(s, SIM_PORT_TOR_UP, 3.0, 42, b, 1024), 31);
	assert_memory_equal(a, b, sizeof(a[0]) * 31);
	assert_int_equal(sim_pick_ports(s, SIM_PORT_TOR_UP, 50.0, 1, b, 1024), 512);
	assert_int_equal(sim_pick_ports(s, SIM_PORT_T1_DOWN, 0.0, 1, b, 1024), 0);
	assert_int_equal(sim_pick_ports(s, SIM_PORT_HOST_NIC, 100.0, 1, b, 1024), 1024);
	assert_int_equal(sim_pick_ports(s, SIM_PORT_TOR_UP, 0.05, 1, b, 1024), 1);
	assert_int_equal(sim_pick_switches(s, 1, 25.0, 5, sw, 64), 8);
	for (i = 0; i < 8; i++)
		assert_int_equal(sim_switch_tier(s, sw[i]), 1);
	/* The paper's asymmetry: those 3% at half rate. */
	for (i = 0; i < na; i++)
		sim_link_rate_at(s, a[i], 0, 200 * GBPS);
	sim_run_until(s, 2 * US);
	nb = 0;
	for (i = 0; i < sim_num_ports(s); i++)
		nb += sim_port_rate_bps(sim_port_at(s, i)) == 200 * GBPS;
	assert_int_equal(nb, 62); /* both directions */
	sim_destroy(s);
}

/* Uplinks of ToR 0 (128 hosts, 8 spines) that frames 0 -> 127 used. */
static uint32_t
ar_uplinks_used(bool tie_first, bool burst, uint32_t *on_up0)
{
	struct sim_fattree_cfg c;
	struct sim_config sc;
	struct sim *s;
	uint32_t i, used = 0;

	sim_fattree_cfg_default(&c, 128, 2);
	sim_config_default(&sc);
	sc.seed = 5;
	sc.mtu_bytes = sim_frame_bytes(c.mss_bytes);
	sc.adaptive_routing = true;
	sc.ar_tie_first = tie_first;
	s = sim_create(&sc);
	assert_non_null(s);
	assert_int_equal(sim_build_fat_tree(s, &c), 0);
	if (burst) {
		/* ToR 0's 8 hosts at once: each arrival sees the queues the
		 * earlier ones left. */
		for (i = 0; i < 8; i++)
			send_raw(s, i, 127, (uint16_t)(1000 + i), 1000);
		sim_run_until(s, 50 * US);
	} else {
		/* One at a time: every queue empty, every choice a tie. */
		for (i = 0; i < 40; i++) {
			send_raw(s, 0, 127, (uint16_t)(1000 + i), 1000);
			sim_run_until(s, (i + 1) * 10 * US);
		}
	}
	for (i = 0; i < 8; i++)
		used += sim_port_stats(sim_switch_uplink(s, 0, i))->tx_pkts > 0;
	*on_up0 = (uint32_t)sim_port_stats(sim_switch_uplink(s, 0, 0))->tx_pkts;
	assert_int_equal(sim_host_stats(s, 127)->rx_frames, burst ? 8 : 40);
	sim_destroy(s);
	return used;
}

/* Adaptive routing breaks ties between equally short queues by the EV's
 * hash, or (ar_tie_first, the REPS artifact's htsim) by taking the first
 * member: on an idle fabric every packet then leaves by uplink 0, and a
 * burst spreads only as queues build. */
static void
test_adaptive_ties(void **state)
{
	uint32_t up0;

	(void)state;
	assert_true(ar_uplinks_used(false, false, &up0) >= 6);
	assert_true(up0 < 20);
	assert_int_equal(ar_uplinks_used(true, false, &up0), 1);
	assert_int_equal(up0, 40);
	/* A burst: the frame on the wire counts as its port's load, so the
	 * 8 arrivals take the 8 uplinks in turn. */
	assert_int_equal(ar_uplinks_used(true, true, &up0), 8);
	assert_int_equal(up0, 1);
}

struct pacer {
	uint32_t left;
};

static void
pace_ev(struct sim *s, void *a, uint64_t b)
{
	struct pacer *x = a;
	uint32_t i;

	(void)b;
	for (i = 0; i < 100 && x->left > 0; i++, x->left--)
		send_raw(s, 0, 127, (uint16_t)x->left, 1000);
	if (x->left > 0)
		sim_at(s, sim_now_ps(s) + 5 * US, pace_ev, x, 0);
}

/* 20000 frames of 1042 B from host 0 to host 127, paced so that no queue
 * drops one, from now on. */
static void
pace_20000(struct sim *s)
{
	struct pacer p = { .left = 20000 };
	uint64_t t0 = sim_now_ps(s);

	sim_at(s, t0 + 1, pace_ev, &p, 0);
	sim_run_until(s, t0 + 2000 * US);
	assert_int_equal(p.left, 0);
}

/* BER 1e-6: a 1042 B frame + 4 B FCS is lost with probability
 * 1 - (1 - 1e-6)^8368 = 0.833%; 20000 frames lose ~167 (sd 12.9). */
static void
assert_ber_losses(const struct sim_port *p)
{
	assert_true(sim_port_stats(p)->drops_ber > 167 - 40);
	assert_true(sim_port_stats(p)->drops_ber < 167 + 40);
}

static void
test_bit_errors(void **state)
{
	/* BER 1e-6 on host 0's cable; nothing else is lost. */
	struct sim_fault f = { .ber = 1e-6 };
	struct sim *s = fabric(128, 2, 1, 12, NULL);
	struct sim_port *nic = sim_host_port(s, 0);
	struct sim_port_stats t;

	(void)state;
	sim_link_fault_at(s, nic, 0, &f);
	pace_20000(s);
	sim_total_stats(s, &t);
	assert_int_equal(sim_port_stats(nic)->tx_pkts, 20000);
	assert_ber_losses(nic);
	assert_int_equal(t.drops_ber, sim_port_stats(nic)->drops_ber);
	assert_int_equal(t.drops_queue + t.drops_fault + t.drops_down, 0);
	assert_int_equal(sim_host_stats(s, 127)->rx_frames, 20000 - t.drops_ber);
	sim_destroy(s);
}

/* sim_port_fault_at: bit errors on one direction of a cable. Host 127's
 * own NIC (its uplink) erring costs frames sent to it nothing; the ToR's
 * port toward it (the downlink) costs the same ~167 of 20000 as above. */
static void
test_bit_errors_one_way(void **state)
{
	struct sim_fault f = { .ber = 1e-6 };
	struct sim *s = fabric(128, 2, 1, 12, NULL);
	struct sim_port *nic = sim_host_port(s, 127);
	struct sim_port_stats t;

	(void)state;
	sim_port_fault_at(s, nic, 0, &f);
	pace_20000(s);
	sim_total_stats(s, &t);
	assert_int_equal(t.drops_ber, 0);
	assert_int_equal(sim_host_stats(s, 127)->rx_frames, 20000);
	sim_port_fault_at(s, sim_port_peer(nic), sim_now_ps(s), &f);
	pace_20000(s);
	sim_total_stats(s, &t);
	assert_int_equal(sim_port_stats(nic)->drops_ber, 0);
	assert_ber_losses(sim_port_peer(nic));
	assert_int_equal(sim_host_stats(s, 127)->rx_frames, 40000 - t.drops_ber);
	sim_destroy(s);
}

/* The real endpoint through failures: a 3-tier fabric (k = 4: 8 ToRs of
 * 2 hosts, pods of 2 ToRs and 2 aggregation switches j = 0, 1, each
 * joined to its own 2 cores) loses pod 0's aggregation switch 1, the
 * plane-1 uplinks of ToRs 3 and 5 and a plane-0 core link at 5 us, so
 * every pair keeps a valley-free path (up-down routing has no other);
 * routing converges 50 us later. Every message still arrives exactly
 * once, and a seed replays exactly. */
static uint64_t
endpoint_run(uint64_t seed, bool check)
{
	struct sim_fattree_cfg c;
	struct uet_ep_config ec;
	struct sim_port_stats t;
	struct sw w;
	struct sim *s = fabric(16, 3, 1, seed, &c);
	uint32_t i;
	uint64_t h;

	uet_ep_config_default(&ec);
	ec.link_bps = 400 * GBPS;
	ec.base_rtt_ns = sim_fattree_rtt_ps(&c) / 1000;
	ec.mss_bytes = 4096;
	ec.lb = uet_lb_find("reps");
	ec.cc = uet_cc_find("nscc");
	ec.max_rto_retx = 50;
	sw_init(&w, s);
	for (i = 0; i < 16; i++) {
		struct uet_ep_config e = ec;

		e.seed = seed * 100 + i;
		sw_ep_config(&w, i, &e);
		assert_int_equal(sim_host_attach(s, i, &e), 0);
	}
	for (i = 0; i < 16; i++)
		sw_send_now(&w, sw_add(&w, i, (i + 5) % 16, 2 << 20, 0));
	sim_switch_down_at(s, sim_switch_id(s, 1, 1), 5 * US, 50000);
	sim_link_down_at(s, sim_tor_uplink(s, 3, 1), 5 * US, 50000);
	sim_link_down_at(s, sim_tor_uplink(s, 5, 1), 5 * US, 50000);
	sim_link_down_at(s, sim_switch_uplink(s, sim_switch_id(s, 1, 4), 1), 5 * US, 50000);
	assert_true(sw_run(&w, 100000000));
	if (check) {
		char why[256];

		if (!sw_check(&w, why, sizeof(why)))
			fail_msg("%s", why);
	}
	sim_total_stats(s, &t);
	if (check)
		assert_true(t.drops_down > 0);
	h = uet_mix64(t.tx_pkts ^ (t.drops_down << 20) ^ sim_now_ps(s));
	for (i = 0; i < w.n; i++)
		h = uet_mix64(h ^ w.m[i].rx_ns ^ (w.m[i].tx_ns << 1));
	sw_fini(&w);
	sim_destroy(s);
	return h;
}

static void
test_endpoint_through_failures(void **state)
{
	(void)state;
	assert_int_equal(endpoint_run(13, true), endpoint_run(13, false));
	assert_int_not_equal(endpoint_run(13, false), endpoint_run(14, false));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fattree_shape),
		cmocka_unit_test(test_oversubscription),
		cmocka_unit_test(test_ecmp_paths),
		cmocka_unit_test(test_unloaded_latency),
		cmocka_unit_test(test_link_down_blackhole),
		cmocka_unit_test(test_link_down_converge),
		cmocka_unit_test(test_port_down_one_way),
		cmocka_unit_test(test_empty_group_noroute),
		cmocka_unit_test(test_degraded_rate),
		cmocka_unit_test(test_switch_down),
		cmocka_unit_test(test_pick_deterministic),
		cmocka_unit_test(test_adaptive_ties),
		cmocka_unit_test(test_bit_errors),
		cmocka_unit_test(test_bit_errors_one_way),
		cmocka_unit_test(test_endpoint_through_failures),
	};

	return cmocka_run_group_tests_name("fabric", tests, NULL, NULL);
}
