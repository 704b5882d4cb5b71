/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two libuet endpoints in one process, joined by an in-memory wire: the
 * smallest complete use of the library (doc/library.md). Endpoint B posts
 * a tagged receive per message and one untagged receive; endpoint A sends
 * the messages; the program drives both endpoints' I/O loops and timers
 * with a clock of its own and checks that every message landed once, in
 * its receive, byte for byte.
 *
 *   cc loopback.c $(pkg-config --cflags --libs libuet) -o loopback
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uet/uet.h>

#define N_MSGS 8
#define MSG_LEN 20000
#define WIRE_PKTS 4096

struct wire_pkt {
	uint32_t src_ip, dst_ip;
	uint16_t ev;
	uint32_t len;
	uint8_t buf[UET_DATA_HDR_LEN + 4096];
};

static struct wire_pkt wire[WIRE_PKTS];
static uint32_t wire_n;
static uint8_t tx_buf[N_MSGS + 1][MSG_LEN], rx_buf[N_MSGS + 1][MSG_LEN];
static int received[N_MSGS + 1], acked, failed;

static void
on_acked(void *user, const struct uet_tx_done *d)
{
	(void)user;
	if (d->status != 0)
		failed++;
	acked++;
}

static void
on_recv(void *user, const struct uet_recv_done *d)
{
	uintptr_t i = (uintptr_t)d->user;

	(void)user;
	if (d->status != 0 || d->len != MSG_LEN || memcmp(rx_buf[i], tx_buf[i], MSG_LEN) != 0) {
		fprintf(stderr, "receive %u: %s, %u bytes\n", (unsigned)i, uet_strerror(d->status),
			d->len);
		failed++;
	}
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
	c.lb = uet_lb_find("reps");
	c.cc = uet_cc_find("nscc");
	c.max_posted_recvs = N_MSGS + 1;
	c.cb.recv_done = on_recv;
	c.cb.tx_done = on_acked;
	if (uet_ep_create(&c, &ep) != 0) {
		fprintf(stderr, "uet_ep_create failed\n");
		exit(1);
	}
	return ep;
}

/* Everything an endpoint wants to send now, onto the wire. */
static void
write_all(struct uet_ep *ep, uint32_t ip, uint64_t now)
{
	struct uet_tx_meta m;
	int n;

	while (wire_n < WIRE_PKTS &&
	       (n = uet_ep_write_pkt(ep, wire[wire_n].buf, sizeof(wire[0].buf), &m, now)) > 0) {
		wire[wire_n].src_ip = ip;
		wire[wire_n].dst_ip = m.dst_ip;
		wire[wire_n].ev = m.ev;
		wire[wire_n].len = (uint32_t)n;
		wire_n++;
	}
}

int
main(void)
{
	const uint32_t ip_a = 0x0a000001, ip_b = 0x0a000002;
	struct uet_ep *a = endpoint(ip_a, 1), *b = endpoint(ip_b, 2);
	uint64_t now = 0;
	uint32_t i, done = 0;

	for (i = 0; i <= N_MSGS; i++) {
		struct uet_recv_req q = { .buf = rx_buf[i], .len = MSG_LEN, .tagged = i < N_MSGS,
					  .tag = 100 + i, .src_ip = ip_a,
					  .user = (void *)(uintptr_t)i };
		struct uet_send_req r = { .dst_ip = ip_b, .buf = tx_buf[i], .len = MSG_LEN,
					  .tag = 100 + i, .untagged = i == N_MSGS };

		memset(tx_buf[i], (int)(i * 7 + 1), MSG_LEN);
		tx_buf[i][i] = 0x5a;
		if (uet_ep_post_recv(b, &q, NULL, now) != 0 || uet_ep_send(a, &r, now) != 0) {
			fprintf(stderr, "post or send failed\n");
			return 1;
		}
	}
	/* The I/O loop: write what each endpoint has to send, deliver it,
	 * run the timers that are due; 1 us per round. */
	while ((done <= N_MSGS || acked <= N_MSGS) && now < 1000000000) {
		write_all(a, ip_a, now);
		write_all(b, ip_b, now);
		for (i = 0; i < wire_n; i++) {
			struct uet_rx_meta m = { .src_ip = wire[i].src_ip, .ev = wire[i].ev };

			uet_ep_read_pkt(wire[i].dst_ip == ip_a ? a : b, &m, wire[i].buf,
					wire[i].len, now);
		}
		wire_n = 0;
		now += 1000;
		if (uet_ep_next_deadline(a) <= now)
			uet_ep_handle_timeout(a, now);
		if (uet_ep_next_deadline(b) <= now)
			uet_ep_handle_timeout(b, now);
		for (done = 0, i = 0; i <= N_MSGS; i++)
			done += received[i] > 0;
	}
	for (i = 0; i <= N_MSGS; i++)
		if (received[i] != 1)
			failed++;
	printf("%u messages of %u bytes (%u tagged, 1 untagged), received and acknowledged "
	       "after %.1f us of the loop's clock: %s\n", N_MSGS + 1, MSG_LEN, N_MSGS,
	       (double)now / 1e3, failed ? "FAILED" : "each once, exact");
	uet_ep_destroy(a);
	uet_ep_destroy(b);
	return failed ? 1 : 0;
}
