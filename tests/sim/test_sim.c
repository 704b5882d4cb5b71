/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/sim: timing of store-and-forward hops, tail drop, ECN marking,
 * trimming, ECMP spreading on the EV, each fault kind, blackholed paths,
 * determinism and capture, with the real endpoint on every host.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "net/pcapw.h"
#include "simnet.h"

static void
base_ep(struct uet_ep_config *c)
{
	uet_ep_config_default(c);
	c->link_bps = 10000000000ULL;
	c->base_rtt_ns = 10000;
	c->mss_bytes = 4096;
}

static void
test_store_and_forward_timing(void **state)
{
	struct uet_ep_config c;
	struct net n;
	uint32_t idx;

	(void)state;
	base_ep(&c);
	net_up(&n, 1, 2, 2, 1, 1 << 20, &c);
	idx = sw_add(&n.w, 0, 1, 1000, 0);
	sw_send_now(&n.w, idx);
	assert_true(sw_run(&n.w, 1000000));
	check_ok(&n);
	/* Frame 42 + 56 + 1000 B, + 24 B wire overhead = 8976 bits: 897.6 ns
	 * per 10 Gb/s hop, 4 hops of 1 us: delivered at 7590.4 ns. */
	assert_int_equal(n.w.m[idx].rx_ns, 7590);
	/* The ACK (74 B frame with ACK_CC, 98 B on the wire: 78.4 ns a hop)
	 * comes back 4 x 1078.4 ns later. */
	assert_int_equal(n.w.m[idx].tx_ns, 7590 + 4314);
	net_down(&n);
}

static void
test_incast_tail_drop(void **state)
{
	struct sim_port_stats t;
	struct uet_ep_config c;
	struct net n;
	uint32_t i;

	(void)state;
	base_ep(&c);
	c.max_rto_retx = 50;
	/* Five senders, three of them across the fabric, into host 5. */
	net_up(&n, 2, 2, 2, 3, 32 * 1024, &c);
	for (i = 0; i < 5; i++)
		sw_send_now(&n.w, sw_add(&n.w, i, 5, 200 * 1024, 0));
	assert_true(sw_run(&n.w, 100000000));
	check_ok(&n);
	sim_total_stats(n.s, &t);
	assert_true(sim_port_stats(sim_host_ingress(n.s, 5))->drops_queue > 0);
	assert_true(t.max_queue_bytes <= 32 * 1024 + 2 * 32 * 1024 + 65536);
	net_down(&n);
}

static void
test_ecn_marking(void **state)
{
	struct uet_ep_config c;
	struct sim_port *in;
	struct net n;
	uint64_t ce = 0;
	uint32_t i;

	(void)state;
	base_ep(&c);
	net_up(&n, 3, 2, 2, 2, 1 << 20, &c);
	in = sim_host_ingress(n.s, 3);
	sim_port_set_ecn(in, 8192, 32768);
	for (i = 0; i < 3; i++)
		sw_send_now(&n.w, sw_add(&n.w, i, 3, 256 * 1024, 0));
	assert_true(sw_run(&n.w, 100000000));
	check_ok(&n);
	ce = uet_ep_stats(sim_host_ep(n.s, 3))->rx_ce_pkts;
	assert_true(sim_port_stats(in)->ecn_marks > 10);
	/* Every mark on the last hop reaches the receiver's endpoint. */
	assert_int_equal(ce, sim_port_stats(in)->ecn_marks);
	assert_int_equal(sim_port_stats(in)->drops_queue, 0);
	net_down(&n);
}

static void
test_trimming_nacks(void **state)
{
	struct uet_ep_config c;
	struct sim_port *in;
	const struct uet_ep_stats *rx;
	uint64_t nacks = 0;
	struct net n;
	uint32_t i;

	(void)state;
	base_ep(&c);
	net_up(&n, 4, 2, 2, 3, 32 * 1024, &c);
	for (i = 0; i < sim_num_ports(n.s); i++)
		sim_port_set_trim(sim_port_at(n.s, i), true);
	for (i = 0; i < 5; i++)
		sw_send_now(&n.w, sw_add(&n.w, i, 5, 200 * 1024, 0));
	assert_true(sw_run(&n.w, 100000000));
	check_ok(&n);
	in = sim_host_ingress(n.s, 5);
	rx = uet_ep_stats(sim_host_ep(n.s, 5));
	assert_true(sim_port_stats(in)->trims > 0);
	assert_int_equal(sim_port_stats(in)->drops_queue, 0);
	/* Each trimmed header reaches the receiver and is NACKed (last hop),
	 * unless it was a spurious retransmission of a PSN already there,
	 * which is re-ACKed instead. */
	assert_int_equal(rx->rx_trimmed_pkts, sim_port_stats(in)->trims);
	assert_true(rx->tx_nack_pkts <= rx->rx_trimmed_pkts);
	assert_true(rx->tx_nack_pkts * 10 >= rx->rx_trimmed_pkts * 9);
	for (i = 0; i < 5; i++)
		nacks += uet_ep_stats(sim_host_ep(n.s, i))->nack_retx;
	assert_true(nacks > 0);
	net_down(&n);
}

static void
spread(uint32_t ev_count, uint64_t *min, uint64_t *max)
{
	struct uet_ep_config c;
	struct net n;
	uint32_t sp;

	base_ep(&c);
	c.ev_count = ev_count;
	net_up(&n, 5, 2, 4, 1, 1 << 22, &c);
	sw_send_now(&n.w, sw_add(&n.w, 0, 1, 4000 * 1024, 0));
	assert_true(sw_run(&n.w, 1000000000));
	check_ok(&n);
	*min = UINT64_MAX;
	*max = 0;
	for (sp = 0; sp < 4; sp++) {
		uint64_t p = sim_port_stats(sim_leaf_up(n.s, 0, sp))->tx_pkts;

		if (p < *min)
			*min = p;
		if (p > *max)
			*max = p;
	}
	net_down(&n);
}

static void
test_ecmp_on_ev(void **state)
{
	uint64_t mn, mx;

	(void)state;
	/* ~1000 packets sprayed over 256 EVs land on 4 uplinks evenly. */
	spread(256, &mn, &mx);
	assert_true(mn > 200);
	assert_true(mx < 300);
	/* One EV: one path (the RoCE-like baseline). */
	spread(1, &mn, &mx);
	assert_int_equal(mn, 0);
	assert_true(mx >= 1000);
}

static bool
is_host_nic(struct net *n, struct sim_port *p)
{
	uint32_t h;

	for (h = 0; h < sim_num_hosts(n->s); h++)
		if (sim_host_port(n->s, h) == p)
			return true;
	return false;
}

/* 4 hosts exchange 64 KiB messages with fault f on every port (or only on
 * the hosts' NICs). */
static void
faulty_run(uint64_t seed, const struct sim_fault *f, struct net *n, bool hosts_only)
{
	struct uet_ep_config c;
	uint32_t i;

	base_ep(&c);
	c.max_rto_retx = 100;
	net_up(n, seed, 2, 2, 2, 1 << 20, &c);
	for (i = 0; i < sim_num_ports(n->s); i++) {
		struct sim_port *p = sim_port_at(n->s, i);

		if (!hosts_only || is_host_nic(n, p))
			sim_port_set_fault(p, f);
	}
	for (i = 0; i < 4; i++)
		sw_send_now(&n->w, sw_add(&n->w, i, (i + 2) % 4, 64 * 1024 + i, 0));
	assert_true(sw_run(&n->w, 1000000000));
	check_ok(n);
}

static void
test_fault_loss(void **state)
{
	struct sim_fault f = { .loss_ppm = 100000 };
	struct sim_port_stats t;
	struct net n;
	double rate;

	(void)state;
	faulty_run(6, &f, &n, false);
	sim_total_stats(n.s, &t);
	rate = (double)t.drops_fault / (double)t.tx_pkts;
	assert_true(rate > 0.08 && rate < 0.12);
	net_down(&n);
}

static void
test_fault_corruption(void **state)
{
	struct sim_fault f = { .corrupt_ppm = 150000 };
	struct sim_port_stats t;
	uint64_t csum = 0;
	struct net n;
	uint32_t i;

	(void)state;
	faulty_run(7, &f, &n, true);
	sim_total_stats(n.s, &t);
	for (i = 0; i < 4; i++)
		csum += sim_host_stats(n.s, i)->rx_csum_drops +
			sim_host_stats(n.s, i)->rx_other_drops;
	assert_true(t.corrupts >= 10);
	/* Corrupting only on host NICs, so no frame is hit twice: every
	 * corrupted frame is caught, by a switch (IPv4 header) or by the
	 * receiving host's checksum or length checks. None reaches an
	 * endpoint. */
	assert_int_equal(csum + sim_switch_drops(n.s), t.corrupts);
	for (i = 0; i < 4; i++)
		assert_int_equal(uet_ep_stats(sim_host_ep(n.s, i))->rx_malformed, 0);
	net_down(&n);
}

/*
 * Payloads nobody fills travel as header frames: an incast that trims,
 * duplicates and corrupts still delivers every byte once, as zeros (a
 * header frame rebuilt with stale bytes would fail sw_check), every
 * corruption is caught, and whole frames are only the few being written
 * or corrupted, however many packets are in flight.
 */
static void
test_unfilled_payloads_not_stored(void **state)
{
	struct net_shape sh = { .leaves = 2, .spines = 2, .hosts_per_leaf = 16, .gbps = 100,
				.lat_ns = 1000, .buf_bytes = 1 << 20, .trim = true };
	struct sim_fault f = { .dup_ppm = 20000, .corrupt_ppm = 20000 };
	struct sim_port_stats t;
	struct uet_ep_config c;
	uint64_t caught = 0;
	struct net n;
	uint32_t i;

	(void)state;
	base_ep(&c);
	c.max_rto_retx = 100;
	c.link_bps = 100000000000ULL;
	c.base_rtt_ns = 40000;
	net_up_shape(&n, 21, &sh, &c);
	n.w.zero_payload = true;
	for (i = 0; i < sim_num_ports(n.s); i++)
		if (is_host_nic(&n, sim_port_at(n.s, i)))
			sim_port_set_fault(sim_port_at(n.s, i), &f);
	for (i = 1; i < 32; i++)
		sw_send_now(&n.w, sw_add(&n.w, i, 0, 256 * 1024 + i, 0));
	assert_true(sw_run(&n.w, 1000000000));
	check_ok(&n);
	sim_total_stats(n.s, &t);
	for (i = 0; i < 32; i++)
		caught += sim_host_stats(n.s, i)->rx_csum_drops +
			  sim_host_stats(n.s, i)->rx_other_drops;
	assert_true(t.trims > 100);
	assert_true(t.dups > 20);
	assert_true(t.corrupts > 20);
	/* Every corrupted frame, and only those, is dropped before an
	 * endpoint (a duplicate is copied before either copy is corrupted),
	 * trimmed ones too (a trim keeps a corrupted frame's checksum wrong,
	 * a corrupted UDP length included). */
	assert_int_equal(caught + sim_switch_drops(n.s), t.corrupts);
	for (i = 0; i < 32; i++)
		assert_int_equal(uet_ep_stats(sim_host_ep(n.s, i))->rx_malformed, 0);
	/* More than a chunk of packets in flight, in header frames. */
	assert_true(sim_pool_pkts(n.s, false) >= 2048);
	assert_int_equal(sim_pool_pkts(n.s, true), 1024);
	net_down(&n);
}

static void
test_fault_dup_and_jitter(void **state)
{
	struct sim_fault f = { .dup_ppm = 100000, .jitter_ns = 20000 };
	struct sim_port_stats t;
	uint64_t dups = 0, ooo = 0;
	struct net n;
	uint32_t i;

	(void)state;
	faulty_run(8, &f, &n, false);
	sim_total_stats(n.s, &t);
	for (i = 0; i < 4; i++) {
		dups += uet_ep_stats(sim_host_ep(n.s, i))->rx_dup_pkts;
		ooo += uet_ep_stats(sim_host_ep(n.s, i))->rx_ooo_pkts;
	}
	assert_true(t.dups > 20);
	assert_true(dups > 0);
	assert_true(ooo > 0);
	net_down(&n);
}

static void
test_blackholed_path(void **state)
{
	struct sim_fault bh = { .blackhole = true };
	struct uet_ep_config c;
	struct net n;

	(void)state;
	base_ep(&c);
	c.max_rto_retx = 100;
	net_up(&n, 9, 2, 4, 1, 1 << 20, &c);
	sim_port_set_fault(sim_leaf_up(n.s, 0, 1), &bh);
	sw_send_now(&n.w, sw_add(&n.w, 0, 1, 1000 * 1024, 0));
	assert_true(sw_run(&n.w, 1000000000));
	check_ok(&n);
	assert_true(sim_port_stats(sim_leaf_up(n.s, 0, 1))->drops_down > 10);
	assert_int_equal(sim_port_stats(sim_spine_down(n.s, 1, 1))->tx_pkts, 0);
	net_down(&n);
}

static uint64_t
det_run(uint64_t seed)
{
	struct sim_fault f = { .loss_ppm = 30000, .dup_ppm = 10000, .jitter_ns = 3000 };
	struct sim_port_stats t;
	struct net n;
	uint64_t h;

	faulty_run(seed, &f, &n, false);
	sim_total_stats(n.s, &t);
	h = uet_mix64(t.tx_pkts ^ (t.drops_fault << 20) ^ (sim_now_ps(n.s) << 7));
	h ^= n.w.m[3].rx_ns * 31 + n.w.m[0].tx_ns;
	net_down(&n);
	return h;
}

static void
test_determinism(void **state)
{
	(void)state;
	assert_int_equal(det_run(11), det_run(11));
	assert_int_not_equal(det_run(11), det_run(12));
}

/*
 * Same-time events: in the order they were scheduled by default (htsim's),
 * across a renumbering of the sequence (the sim_renumber build runs out
 * every 4096 events); with shuffle_ties in a seeded random order that still
 * runs each event once and never before an earlier time.
 */
#define TIE_N 5000

struct tie_log {
	uint32_t n;
	uint64_t at[TIE_N + 2];
	uint32_t id[TIE_N + 2];
};

static void
tie_ev(struct sim *s, void *a, uint64_t b)
{
	struct tie_log *l = a;

	l->at[l->n] = sim_now_ps(s);
	l->id[l->n++] = (uint32_t)b;
}

static void
tie_run(uint64_t seed, bool shuffle, struct tie_log *l)
{
	struct sim_config c;
	struct sim *s;
	uint32_t i;

	sim_config_default(&c);
	c.seed = seed;
	c.shuffle_ties = shuffle;
	s = sim_create(&c);
	assert_non_null(s);
	memset(l, 0, sizeof(*l));
	sim_at(s, 2000, tie_ev, l, TIE_N + 1); /* after the ties, scheduled first */
	for (i = 0; i < TIE_N; i++)
		sim_at(s, 1000, tie_ev, l, i);
	sim_at(s, 999, tie_ev, l, TIE_N); /* before them, scheduled last */
	sim_run_until(s, 5000);
	sim_destroy(s);
	assert_int_equal(l->n, TIE_N + 2);
	assert_int_equal(l->id[0], TIE_N);
	assert_int_equal(l->id[TIE_N + 1], TIE_N + 1);
	assert_int_equal(l->at[TIE_N + 1], 2000);
}

static void
test_tie_order(void **state)
{
	static struct tie_log a, b, c;
	static uint8_t seen[TIE_N];
	uint32_t i, in_place = 0, ahead = 0;

	(void)state;
	tie_run(1, false, &a);
	for (i = 0; i < TIE_N; i++)
		assert_int_equal(a.id[1 + i], i);

	tie_run(1, true, &a);
	tie_run(1, true, &b);
	tie_run(2, true, &c);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < TIE_N; i++) {
		assert_int_equal(a.at[1 + i], 1000);
		assert_int_equal(a.id[1 + i], b.id[1 + i]);
		assert_true(a.id[1 + i] < TIE_N);
		seen[a.id[1 + i]]++;
		in_place += a.id[1 + i] == i;
		ahead += a.id[1 + i] < c.id[1 + i];
	}
	for (i = 0; i < TIE_N; i++)
		assert_int_equal(seen[i], 1);
	/* A uniform shuffle leaves about one event in place; two seeds put
	 * the one ahead of the other about half the time. */
	assert_true(in_place < 10);
	assert_in_range(ahead, TIE_N * 45 / 100, TIE_N * 55 / 100);
}

/* Two runs of one seed write byte-identical captures. */
static void
capture_run(uint64_t seed, const char *path)
{
	struct sim_fault f = { .loss_ppm = 30000, .dup_ppm = 20000, .corrupt_ppm = 20000,
			       .jitter_ns = 5000 };
	struct uet_ep_config c;
	struct uet_pcap *pc;
	struct net n;
	uint32_t i;

	base_ep(&c);
	c.max_rto_retx = 100;
	net_up(&n, seed, 2, 3, 2, 64 * 1024, &c);
	for (i = 0; i < sim_num_ports(n.s); i++)
		sim_port_set_fault(sim_port_at(n.s, i), &f);
	assert_int_equal(uet_pcap_open(&pc, path, 0), 0);
	sim_host_capture(n.s, 0, pc);
	sim_host_capture(n.s, 3, pc);
	for (i = 0; i < 4; i++)
		sw_send_now(&n.w, sw_add(&n.w, i, 3 - i, 100 * 1024 + i, (uint16_t)i));
	assert_true(sw_run(&n.w, 1000000000));
	check_ok(&n);
	uet_pcap_close(pc);
	net_down(&n);
}

static long
slurp(const char *path, uint8_t **out)
{
	FILE *f = fopen(path, "rb");
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	*out = malloc((size_t)n);
	assert_int_equal(fread(*out, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return n;
}

static void
test_byte_identical_replay(void **state)
{
	char p1[] = "/tmp/uet_det1_XXXXXX", p2[] = "/tmp/uet_det2_XXXXXX",
	     p3[] = "/tmp/uet_det3_XXXXXX";
	uint8_t *a, *b, *c;
	long na, nb, nc;

	(void)state;
	close(mkstemp(p1));
	close(mkstemp(p2));
	close(mkstemp(p3));
	capture_run(21, p1);
	capture_run(21, p2);
	capture_run(22, p3);
	na = slurp(p1, &a);
	nb = slurp(p2, &b);
	nc = slurp(p3, &c);
	assert_true(na > 100000);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, (size_t)na);
	assert_true(na != nc || memcmp(a, c, (size_t)na) != 0);
	free(a);
	free(b);
	free(c);
	unlink(p1);
	unlink(p2);
	unlink(p3);
}

static void
test_capture(void **state)
{
	char path[] = "/tmp/uet_sim_pcap_XXXXXX", err[PCAP_ERRBUF_SIZE];
	struct uet_ep_config c;
	struct uet_pcap *pc;
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *rd;
	struct net n;
	int fd, frames = 0;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	base_ep(&c);
	net_up(&n, 10, 2, 2, 1, 1 << 20, &c);
	assert_int_equal(uet_pcap_open(&pc, path, 0), 0);
	sim_host_capture(n.s, 1, pc);
	sw_send_now(&n.w, sw_add(&n.w, 0, 1, 3 * 4096, 0));
	assert_true(sw_run(&n.w, 10000000));
	check_ok(&n);
	uet_pcap_close(pc);
	rd = pcap_open_offline(path, err);
	assert_non_null(rd);
	while (pcap_next_ex(rd, &h, &d) == 1) {
		struct uet_frame_rx r;

		assert_int_equal(uet_frame_decap(d, h->caplen, &r, UET_FRAME_VERIFY_CSUM), 0);
		assert_int_equal(r.dport, UET_UDP_PORT);
		frames++;
	}
	pcap_close(rd);
	unlink(path);
	/* 3 data frames in, and their ACKs out */
	assert_int_equal(frames,
			 3 + (int)uet_ep_stats(sim_host_ep(n.s, 1))->tx_ack_pkts);
	net_down(&n);
}

/* A host's process dies in the middle of a transfer and comes back: the
 * sender hears that its PDC is gone (the new process answers "no such
 * PDC") and fails the message rather than delivering part of it twice;
 * the restarted host answers a new message on a new PDC, and its own sends
 * work. */
static void
test_crash_and_restart(void **state)
{
	struct uet_ep_config c, c1;
	struct net n;
	uint32_t m0, m1, m2;

	(void)state;
	base_ep(&c);
	net_up(&n, 11, 2, 2, 1, 1 << 20, &c);
	m0 = sw_add(&n.w, 0, 1, 256 * 4096, 0);
	sw_send_now(&n.w, m0);
	(void)sim_run_until(n.s, sim_ps(100000)); /* 100 us: under way */
	assert_int_equal(n.w.m[m0].tx_done, 0);
	assert_true(n.w.m[m0].got_bytes > 0);
	sim_host_crash(n.s, 1);
	assert_null(sim_host_ep(n.s, 1));
	sw_crashed(&n.w, 1);
	(void)sim_run_until(n.s, sim_ps(150000));
	c1 = c;
	c1.seed = 777;
	sw_ep_config(&n.w, 1, &c1);
	assert_int_equal(sim_host_attach(n.s, 1, &c1), 0);
	n.w.crash_host = 1;
	assert_true(sw_run(&n.w, 1000000000));
	assert_int_equal(n.w.m[m0].tx_done, 1);
	assert_int_equal(n.w.m[m0].tx_status, UET_ERR_PEER_RESET);
	assert_true(n.w.m[m0].rx_done == 0);
	assert_true(sim_host_stats(n.s, 1)->rx_other_drops > 0); /* while it was down */
	/* The restarted host, both ways. */
	m1 = sw_add(&n.w, 0, 1, 64 * 4096, 0);
	m2 = sw_add(&n.w, 1, 0, 64 * 4096, 1);
	sw_send_now(&n.w, m1);
	sw_send_now(&n.w, m2);
	assert_true(sw_run(&n.w, sim_now_ns(n.s) + 1000000000));
	assert_int_equal(n.w.m[m1].tx_status, 0);
	assert_int_equal(n.w.m[m1].rx_done, 1);
	assert_int_equal(n.w.m[m2].tx_status, 0);
	assert_int_equal(n.w.m[m2].rx_done, 1);
	net_down(&n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_and_forward_timing),
		cmocka_unit_test(test_incast_tail_drop),
		cmocka_unit_test(test_ecn_marking),
		cmocka_unit_test(test_trimming_nacks),
		cmocka_unit_test(test_ecmp_on_ev),
		cmocka_unit_test(test_fault_loss),
		cmocka_unit_test(test_fault_corruption),
		cmocka_unit_test(test_unfilled_payloads_not_stored),
		cmocka_unit_test(test_fault_dup_and_jitter),
		cmocka_unit_test(test_blackholed_path),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_tie_order),
		cmocka_unit_test(test_byte_identical_replay),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_crash_and_restart),
	};

	return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
