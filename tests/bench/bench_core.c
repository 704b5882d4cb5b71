/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Core micro-benchmark: two endpoints joined in memory, no network model.
 * Pushes messages A -> B and reports the sender + receiver core work per
 * data packet (write, read, ACK generation and ACK processing), and the
 * bytes of state per PDC. Not a timed test: run it on a quiet machine.
 *
 *   bench_core [--msgs N] [--msg-bytes B] [--mss B] [--ack-every B] [--no-copy]
 *              [--lb NAME] [--cc NAME]
 *
 * The defaults are the endpoint's (OPS, a fixed window); tools/bench/glue.sh
 * passes uet-perf's (REPS, NSCC) to compare like with like.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu.h"
#include "uet/cc.h"
#include "uet/lb.h"
#include "uet/uet.h"

static uint64_t delivered_bytes, acked_msgs;

static void
on_rx_data(void *u, const struct uet_rx_data *d)
{
	(void)u;
	delivered_bytes += d->len;
}

static void
on_tx_done(void *u, const struct uet_tx_done *d)
{
	(void)u;
	acked_msgs += d->status == 0;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	uint32_t msgs = 2000, msg_bytes = 1 << 20, mss = 4096, ack_every = 16384;
	const char *lb = NULL, *cc = NULL;
	int copy = 1, i;
	struct uet_ep_config c;
	struct uet_ep *a, *b;
	struct uet_tx_meta m;
	uint8_t *buf, *payload;
	uint64_t t0, t1, data_pkts, sim_ns = 0, submitted = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--msgs") && i + 1 < argc)
			msgs = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--msg-bytes") && i + 1 < argc)
			msg_bytes = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--mss") && i + 1 < argc)
			mss = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--ack-every") && i + 1 < argc)
			ack_every = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--no-copy"))
			copy = 0;
		else if (!strcmp(argv[i], "--lb") && i + 1 < argc)
			lb = argv[++i];
		else if (!strcmp(argv[i], "--cc") && i + 1 < argc)
			cc = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--msgs N] [--msg-bytes B] [--mss B] "
				"[--ack-every B] [--no-copy] [--lb NAME] [--cc NAME]\n", argv[0]);
			return 2;
		}
	}
	uet_ep_config_default(&c);
	c.mss_bytes = mss;
	c.ack_every_bytes = ack_every;
	if (lb != NULL)
		c.lb = uet_lb_find(lb);
	if (cc != NULL)
		c.cc = uet_cc_find(cc);
	if (c.lb == NULL || c.cc == NULL) {
		fprintf(stderr, "unknown --lb %s or --cc %s\n", lb ? lb : "", cc ? cc : "");
		return 2;
	}
	c.cb.rx_data = on_rx_data;
	c.cb.tx_done = on_tx_done;
	c.local_ip = 0x0a000001;
	c.seed = 1;
	if (uet_ep_create(&c, &a) < 0)
		return 1;
	c.local_ip = 0x0a000002;
	c.seed = 2;
	if (uet_ep_create(&c, &b) < 0)
		return 1;
	buf = malloc(UET_DATA_HDR_LEN + mss);
	payload = calloc(1, msg_bytes);

	t0 = now_ns();
	while (acked_msgs < msgs) {
		int n;

		/* Keep a few messages queued so the window stays full. */
		while (submitted < msgs && submitted - acked_msgs < 8) {
			struct uet_send_req r = { .dst_ip = 0x0a000002, .buf = copy ? payload : NULL,
						  .len = msg_bytes, .tag = submitted };

			if (uet_ep_send(a, &r, sim_ns) != 0)
				break;
			submitted++;
		}
		while ((n = uet_ep_write_pkt(a, buf, UET_DATA_HDR_LEN + mss, &m, sim_ns)) > 0) {
			struct uet_rx_meta rm = { .src_ip = 0x0a000001, .ev = m.ev };

			uet_ep_read_pkt(b, &rm, buf, (size_t)n, sim_ns);
			/* Drain B's ACKs as they come: the window stays open. */
			while ((n = uet_ep_write_pkt(b, buf, UET_DATA_HDR_LEN + mss, &m, sim_ns)) > 0) {
				struct uet_rx_meta am = { .src_ip = 0x0a000002, .ev = m.ev };

				uet_ep_read_pkt(a, &am, buf, (size_t)n, sim_ns);
			}
		}
		sim_ns += 1000;
		uet_ep_handle_timeout(a, sim_ns);
		uet_ep_handle_timeout(b, sim_ns);
	}
	t1 = now_ns();
	data_pkts = uet_ep_stats(a)->tx_data_pkts;
	bench_print_cpu();
	printf("bench_core: %u messages of %u B, mss %u, ACK every %u B, lb %s, cc %s, payload %s\n",
	       msgs, msg_bytes, mss, ack_every, c.lb->name, c.cc->name,
	       copy ? "copied" : "not copied (caller fills)");
	printf("  data packets %llu, ACKs %llu, retransmissions %llu, delivered %llu B\n",
	       (unsigned long long)data_pkts,
	       (unsigned long long)uet_ep_stats(b)->tx_ack_pkts,
	       (unsigned long long)uet_ep_stats(a)->tx_retx_pkts,
	       (unsigned long long)delivered_bytes);
	printf("  %.1f ns per data packet (sender + receiver core work), %.2f Gbit/s of "
	       "payload per core\n",
	       (double)(t1 - t0) / (double)data_pkts,
	       (double)delivered_bytes * 8.0 / (double)(t1 - t0));
	printf("  state: %zu B per PDC (+ %zu B send window and %u B receive bitmaps while "
	       "active at window %u), endpoint total %zu B\n",
	       uet_ep_pdc_bytes(&c), (size_t)c.window_psns * 28, c.window_psns / 4,
	       c.window_psns, uet_ep_mem_bytes(&c));
	uet_ep_destroy(a);
	uet_ep_destroy(b);
	free(buf);
	free(payload);
	return delivered_bytes == (uint64_t)msgs * msg_bytes ? 0 : 1;
}
