/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two libuet endpoints over a DPDK port: loopback.c's exchange on a real
 * I/O path, with libuet's Ethernet/IPv4/UDP framing (uet/frame.h) and UDP
 * checksums, on DPDK's net_ring (a port whose transmit ring is its receive
 * ring) or any port wired back to itself. Endpoint B posts a tagged
 * receive per message; endpoint A sends them; frames are dispatched to the
 * endpoint their destination address names.
 *
 *   cc ring.c $(pkg-config --cflags --libs libuet libdpdk) -o ring
 *   ./ring --no-huge --no-shconf --no-pci --vdev=net_ring0 -m 256
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <uet/frame.h>
#include <uet/uet.h>

#define N_MSGS 8
#define MSG_LEN 50000
#define BURST 32

static const uint32_t ip_a = 0x0a000001, ip_b = 0x0a000002;
static uint8_t tx_buf[N_MSGS][MSG_LEN], rx_buf[N_MSGS][MSG_LEN];
static int received[N_MSGS], failed;
static struct uet_dscp_map dscp;

static void
on_recv(void *user, const struct uet_recv_done *d)
{
	uintptr_t i = (uintptr_t)d->user;

	(void)user;
	if (d->status != 0 || d->len != MSG_LEN || memcmp(rx_buf[i], tx_buf[i], MSG_LEN) != 0)
		failed++;
	received[i]++;
}

static struct uet_ep *
endpoint(uint32_t ip, uint64_t seed)
{
	struct uet_ep_config c;
	struct uet_ep *ep;

	uet_ep_config_default(&c);
	c.local_ip = ip;
	c.seed = seed;
	c.max_posted_recvs = N_MSGS;
	c.cb.recv_done = on_recv;
	return uet_ep_create(&c, &ep) == 0 ? ep : NULL;
}

static uint64_t
now_ns(void)
{
	return (uint64_t)((double)rte_get_tsc_cycles() * 1e9 / (double)rte_get_tsc_hz());
}

/* What ep has to send, framed, into the port. */
static void
send_all(uint16_t port, struct rte_mempool *pool, struct uet_ep *ep, uint32_t ip, uint64_t now)
{
	struct rte_mbuf *m;
	struct uet_tx_meta meta;
	int n;

	while ((m = rte_pktmbuf_alloc(pool)) != NULL) {
		uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
		size_t cap = rte_pktmbuf_tailroom(m);
		struct uet_frame_tx t;
		int len;

		n = uet_ep_write_pkt(ep, frame + UET_FRAME_HDR_LEN, cap - UET_FRAME_HDR_LEN, &meta,
				     now);
		if (n <= 0) {
			rte_pktmbuf_free(m);
			return;
		}
		memset(&t, 0, sizeof(t));
		t.src_ip = ip;
		t.dst_ip = meta.dst_ip;
		t.sport = meta.ev; /* the entropy value: the path */
		t.dport = UET_UDP_PORT;
		t.dscp = dscp.tc[meta.tclass];
		t.ecn = meta.ecn_capable ? UET_ECN_ECT0 : UET_ECN_NOT_ECT;
		len = uet_frame_encap(frame, cap, &t, (size_t)n, true);
		if (len < 0) {
			rte_pktmbuf_free(m);
			return;
		}
		m->data_len = m->pkt_len = (uint32_t)len;
		while (rte_eth_tx_burst(port, 0, &m, 1) == 0)
			;
	}
}

int
main(int argc, char **argv)
{
	struct rte_eth_conf conf;
	struct rte_mempool *pool;
	struct rte_mbuf *rx[BURST];
	struct uet_ep *a, *b;
	uint64_t start, now;
	uint32_t i, done = 0;
	uint16_t port = 0;

	if (rte_eal_init(argc, argv) < 0 || rte_eth_dev_count_avail() == 0) {
		fprintf(stderr, "EAL init failed or no port (e.g. --vdev=net_ring0)\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("uet", 4095, 256, 0, RTE_PKTMBUF_HEADROOM + 5000,
				       (int)rte_socket_id());
	memset(&conf, 0, sizeof(conf));
	if (pool == NULL || rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL) != 0 ||
	    rte_eth_dev_start(port) != 0) {
		fprintf(stderr, "port setup failed\n");
		return 1;
	}
	uet_dscp_map_default(&dscp);
	a = endpoint(ip_a, 1);
	b = endpoint(ip_b, 2);
	if (a == NULL || b == NULL)
		return 1;
	now = start = now_ns();
	for (i = 0; i < N_MSGS; i++) {
		struct uet_recv_req q = { .buf = rx_buf[i], .len = MSG_LEN, .tagged = true,
					  .tag = 100 + i, .user = (void *)(uintptr_t)i };
		struct uet_send_req r = { .dst_ip = ip_b, .buf = tx_buf[i], .len = MSG_LEN,
					  .tag = 100 + i };

		memset(tx_buf[i], (int)(i * 7 + 1), MSG_LEN);
		if (uet_ep_post_recv(b, &q, NULL, now) != 0 || uet_ep_send(a, &r, now) != 0)
			return 1;
	}
	/* The poll loop: send, receive (the frame names its endpoint), timers. */
	while (done < N_MSGS && now - start < 2000000000ull) {
		uint16_t n, k;

		send_all(port, pool, a, ip_a, now);
		send_all(port, pool, b, ip_b, now);
		n = rte_eth_rx_burst(port, 0, rx, BURST);
		now = now_ns();
		for (k = 0; k < n; k++) {
			const uint8_t *f = rte_pktmbuf_mtod(rx[k], const uint8_t *);
			struct uet_frame_rx r;

			if (uet_frame_decap(f, rx[k]->data_len, &r, UET_FRAME_VERIFY_CSUM) == 0 &&
			    r.dport == UET_UDP_PORT && (r.dst_ip == ip_a || r.dst_ip == ip_b)) {
				struct uet_rx_meta m = { .src_ip = r.src_ip, .ev = r.sport,
							 .ce = r.ecn == UET_ECN_CE };

				uet_ep_read_pkt(r.dst_ip == ip_a ? a : b, &m, f + r.payload_off,
						r.payload_len, now);
			}
			rte_pktmbuf_free(rx[k]);
		}
		if (uet_ep_next_deadline(a) <= now)
			uet_ep_handle_timeout(a, now);
		if (uet_ep_next_deadline(b) <= now)
			uet_ep_handle_timeout(b, now);
		for (done = 0, i = 0; i < N_MSGS; i++)
			done += received[i] > 0;
	}
	for (i = 0; i < N_MSGS; i++)
		failed += received[i] != 1;
	printf("%u messages of %u bytes over port %u in %.1f us: %s\n", N_MSGS, MSG_LEN, port,
	       (double)(now - start) / 1e3, failed ? "FAILED" : "each once, exact");
	uet_ep_destroy(a);
	uet_ep_destroy(b);
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	return failed ? 1 : 0;
}
