/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Simulator benchmark (not a test): a permutation of one message per host
 * on a fat tree with the default fabric (400 Gb/s, 500 ns links and
 * switches, 1 BDP queues, ECN 20/80%), the real endpoint on every host
 * (OPS and NSCC by default). Prints simulated completion time, wall time,
 * events per second and peak RSS; doc/sim.md records the figures.
 *
 *   bench_sim [--hosts N] [--tiers 2|3] [--oversub O] [--msg BYTES]
 *             [--lb NAME] [--cc NAME] [--seed S] [--limit-us US]
 *             [--ack-every BYTES] [--udp-csum]
 *
 * --udp-csum checksums every payload at both ends (sim_config.no_udp_csum
 * off), as the small simulator tests do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "uet/prng.h"
#include "sim/sim.h"
#include "uet/cc.h"
#include "uet/lb.h"

struct bench {
	struct sim *s;
	uint32_t hosts;
	uint64_t rx_bytes, rx_msgs, tx_msgs, tx_fail;
	uint64_t last_rx_ns;
};

static void
on_rx_data(void *user, const struct uet_rx_data *d)
{
	struct bench *b = user;

	b->rx_bytes += d->len;
}

static void
on_rx_msg(void *user, const struct uet_rx_msg *m)
{
	struct bench *b = user;

	if (m->status == 0) {
		b->rx_msgs++;
		if (m->done_ns > b->last_rx_ns)
			b->last_rx_ns = m->done_ns;
	}
}

static void
on_tx_done(void *user, const struct uet_tx_done *t)
{
	struct bench *b = user;

	b->tx_msgs++;
	if (t->status != 0)
		b->tx_fail++;
}

static double
wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t
arg_u64(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s needs a value\n", argv[*i]);
		exit(2);
	}
	return strtoull(argv[++*i], NULL, 0);
}

int
main(int argc, char **argv)
{
	uint32_t hosts = 1024, tiers = 2, oversub = 1, i;
	uint64_t msg = 8 << 20, seed = 42, limit_us = 20000, ack_every = 16384;
	const char *lb = "ops", *cc = "nscc";
	bool udp_csum = false;
	struct sim_fattree_cfg fc;
	struct sim_fattree_shape sh;
	struct sim_config sc;
	struct sim_port_stats t;
	struct uet_ep_config ec;
	struct uet_prng r;
	struct bench b;
	struct rusage ru;
	uint32_t *perm;
	double w0, w1;
	uint64_t ev0, ev, step_ps;
	int a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--hosts") == 0)
			hosts = (uint32_t)arg_u64(argc, argv, &a);
		else if (strcmp(argv[a], "--tiers") == 0)
			tiers = (uint32_t)arg_u64(argc, argv, &a);
		else if (strcmp(argv[a], "--oversub") == 0)
			oversub = (uint32_t)arg_u64(argc, argv, &a);
		else if (strcmp(argv[a], "--msg") == 0)
			msg = arg_u64(argc, argv, &a);
		else if (strcmp(argv[a], "--seed") == 0)
			seed = arg_u64(argc, argv, &a);
		else if (strcmp(argv[a], "--limit-us") == 0)
			limit_us = arg_u64(argc, argv, &a);
		else if (strcmp(argv[a], "--ack-every") == 0)
			ack_every = arg_u64(argc, argv, &a);
		else if (strcmp(argv[a], "--udp-csum") == 0)
			udp_csum = true;
		else if (strcmp(argv[a], "--lb") == 0 && a + 1 < argc)
			lb = argv[++a];
		else if (strcmp(argv[a], "--cc") == 0 && a + 1 < argc)
			cc = argv[++a];
		else {
			fprintf(stderr, "usage: %s [--hosts N] [--tiers 2|3] [--oversub O] "
					"[--msg BYTES] [--lb NAME] [--cc NAME] [--seed S] "
					"[--limit-us US] [--ack-every BYTES] [--udp-csum]\n",
				argv[0]);
			return 2;
		}
	}
	if (hosts < 2 || msg > 0xffffffffULL) {
		fprintf(stderr, "need at least 2 hosts and a message below 4 GiB\n");
		return 2;
	}
	sim_fattree_cfg_default(&fc, hosts, tiers);
	fc.oversub = oversub;
	if (sim_fattree_shape(&fc, &sh) != 0) {
		fprintf(stderr, "bad fat tree: %u hosts, %u tiers, %u:1\n", hosts, tiers, oversub);
		return 2;
	}
	sim_config_default(&sc);
	sc.seed = seed;
	sc.mtu_bytes = sim_frame_bytes(fc.mss_bytes);
	sc.no_udp_csum = !udp_csum;
	memset(&b, 0, sizeof(b));
	b.s = sim_create(&sc);
	b.hosts = hosts;
	if (b.s == NULL || sim_build_fat_tree(b.s, &fc) != 0) {
		fprintf(stderr, "cannot build the fabric\n");
		return 1;
	}

	uet_ep_config_default(&ec);
	ec.link_bps = fc.host_link.rate_bps;
	ec.base_rtt_ns = sim_fattree_rtt_ps(&fc) / 1000;
	ec.mss_bytes = fc.mss_bytes;
	ec.ack_every_bytes = (uint32_t)ack_every;
	/* A permutation needs one initiator and one target PDC per host:
	 * small pools keep 1024 endpoints within memory. */
	ec.max_pdcs = 4;
	ec.max_tx_msgs = 4;
	ec.max_rx_msgs = 4;
	ec.ctrl_queue_len = 256;
	ec.lb = uet_lb_find(lb);
	ec.cc = uet_cc_find(cc);
	if (ec.lb == NULL || ec.cc == NULL) {
		fprintf(stderr, "unknown lb %s or cc %s\n", lb, cc);
		return 2;
	}
	ec.cb.rx_data = on_rx_data;
	ec.cb.rx_msg = on_rx_msg;
	ec.cb.tx_done = on_tx_done;
	ec.user = &b;
	for (i = 0; i < hosts; i++) {
		struct uet_ep_config c = ec;

		c.seed = seed * 1000003 + i;
		if (sim_host_attach(b.s, i, &c) != 0) {
			fprintf(stderr, "endpoint config rejected\n");
			return 1;
		}
	}
	/* Sattolo's shuffle: one cycle, so nobody sends to itself. */
	perm = malloc(hosts * sizeof(*perm));
	for (i = 0; i < hosts; i++)
		perm[i] = i;
	uet_prng_seed(&r, seed ^ 0x9e3779b9ULL);
	for (i = hosts - 1; i > 0; i--) {
		uint32_t j = (uint32_t)uet_prng_below(&r, i), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	for (i = 0; i < hosts; i++) {
		struct uet_send_req q = { .dst_ip = sim_host_ip(b.s, perm[i]), .len = (uint32_t)msg,
					  .tag = i };

		if (uet_ep_send(sim_host_ep(b.s, i), &q, 0) != 0) {
			fprintf(stderr, "send refused\n");
			return 1;
		}
		sim_host_kick(b.s, i);
	}
	printf("fabric: %u hosts, %u tiers, %u ToRs x %u hosts, %u uplinks each (%u:%u), "
	       "%u tier-1, %u tier-2 switches, %u ports\n",
	       sh.hosts, sh.tiers, sh.tors, sh.hosts_per_tor, sh.tor_uplinks, sh.hosts_per_tor,
	       sh.tor_uplinks, sh.t1_switches, sh.t2_switches, sh.ports);
	printf("links: %llu Gb/s, %llu ns, switch %llu ns, queue %llu B (Kmin %llu, Kmax %llu), "
	       "RTT %.3f us; lb %s, cc %s, ack every %llu B; %llu B per host\n",
	       (unsigned long long)(fc.host_link.rate_bps / 1000000000ULL),
	       (unsigned long long)fc.host_link.lat_ns, (unsigned long long)fc.switch_lat_ns,
	       (unsigned long long)fc.host_link.buf_bytes,
	       (unsigned long long)fc.host_link.ecn_kmin_bytes,
	       (unsigned long long)fc.host_link.ecn_kmax_bytes,
	       (double)sim_fattree_rtt_ps(&fc) / 1e6, lb, cc, (unsigned long long)ack_every,
	       (unsigned long long)msg);
	fflush(stdout);

	w0 = wall_s();
	ev0 = sim_events_run(b.s);
	step_ps = sim_ps(10000); /* report every 10 us of simulated time */
	while (b.rx_msgs < hosts || b.tx_msgs < hosts) {
		if (sim_now_ns(b.s) >= limit_us * 1000 || sim_events_pending(b.s) == 0)
			break;
		sim_run_until(b.s, sim_now_ps(b.s) + step_ps);
	}
	w1 = wall_s();
	ev = sim_events_run(b.s) - ev0;
	getrusage(RUSAGE_SELF, &ru);
	sim_total_stats(b.s, &t);

	printf("%s: %llu/%u messages delivered, %llu sender completions (%llu failed), "
	       "%llu of %llu bytes\n",
	       b.rx_msgs == hosts && b.tx_msgs == hosts && b.tx_fail == 0 ? "complete"
									 : "INCOMPLETE",
	       (unsigned long long)b.rx_msgs, hosts, (unsigned long long)b.tx_msgs,
	       (unsigned long long)b.tx_fail, (unsigned long long)b.rx_bytes,
	       (unsigned long long)msg * hosts);
	printf("simulated: last delivery at %.1f us (ideal %.1f us at line rate)\n",
	       (double)b.last_rx_ns / 1000.0,
	       (double)msg * 8 * sim_frame_bytes(fc.mss_bytes) / fc.mss_bytes /
		       ((double)fc.host_link.rate_bps / 1e9) / 1000.0);
	printf("fabric: %llu packets sent by ports, %llu ECN marks, drops queue %llu, "
	       "down %llu, noroute %llu; max queue %llu B\n",
	       (unsigned long long)t.tx_pkts, (unsigned long long)t.ecn_marks,
	       (unsigned long long)t.drops_queue, (unsigned long long)t.drops_down,
	       (unsigned long long)t.drops_noroute, (unsigned long long)t.max_queue_bytes);
	printf("wall %.2f s (cpu %.2f s for the whole program), %llu events, %.2f M events/s, "
	       "%.0f ns per event\n",
	       w1 - w0,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6,
	       (unsigned long long)ev, (double)ev / (w1 - w0) / 1e6,
	       (w1 - w0) * 1e9 / (double)(ev ? ev : 1));
	printf("memory: peak RSS %.1f MiB; simulator %.1f MiB (pooled packets: %llu of headers "
	       "only, %llu whole of %u B); endpoints %.1f MiB (%zu B each)\n",
	       (double)ru.ru_maxrss / 1024.0, (double)sim_mem_bytes(b.s) / 1048576.0,
	       (unsigned long long)sim_pool_pkts(b.s, false),
	       (unsigned long long)sim_pool_pkts(b.s, true), sim_frame_bytes(fc.mss_bytes),
	       (double)uet_ep_mem_bytes(&ec) * hosts / 1048576.0, uet_ep_mem_bytes(&ec));
	sim_destroy(b.s);
	free(perm);
	return b.rx_msgs == hosts && b.tx_fail == 0 ? 0 : 1;
}
