/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_FUZZ_EP_H_
#define UET_FUZZ_EP_H_

/* The two-endpoint scene shared by the endpoint fuzz target and the corpus
 * generator, so generated packets name the PDCs and PSNs the target has. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uet/uet.h"

#define FZ_A_IP 0x0a000001u
#define FZ_B_IP 0x0a000002u
/* An address outside the scene: packets from it may open no PDC. */
#define FZ_STRANGER_IP 0x0a0000eeu
/* The endpoint_job target: both endpoints in one job, so that requests of
 * other jobs (most fuzzed ones) are dropped at the door. */
#ifndef FZ_JOB_ID
#define FZ_JOB_ID 0
#endif
#define FZ_PKT_MAX (UET_DATA_HDR_LEN + 1024)

struct fz_side {
	struct uet_ep *ep;
	uint32_t ip;
	uint64_t delivered;
};

static uint8_t fz_msg_buf[8192];

static bool
fz_peer_ok(void *user, uint32_t ip)
{
	(void)user;
	return ip == FZ_A_IP || ip == FZ_B_IP;
}

static void
fz_on_rx_msg(void *user, const struct uet_rx_msg *m)
{
	struct fz_side *s = user;

	if (m->status == 0)
		s->delivered++;
}

/* Deliver everything each side wants to send, 'rounds' times; with rec
 * set, also hand each packet to rec(ctx, to_b, pkt, len). */
static inline void
fz_exchange(struct fz_side *a, struct fz_side *b, uint64_t now, int rounds,
	    void (*rec)(void *, int, const uint8_t *, size_t), void *ctx)
{
	uint8_t buf[FZ_PKT_MAX];
	struct uet_tx_meta m;
	int r, n, i;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 2; i++) {
			struct fz_side *from = i ? b : a, *to = i ? a : b;

			while ((n = uet_ep_write_pkt(from->ep, buf, sizeof(buf), &m, now)) > 0) {
				struct uet_rx_meta rm = { .src_ip = from->ip, .ev = m.ev };

				if (rec != NULL)
					rec(ctx, i == 0, buf, (size_t)n);
				uet_ep_read_pkt(to->ep, &rm, buf, (size_t)n, now);
			}
		}
		uet_ep_handle_timeout(a->ep, now);
		uet_ep_handle_timeout(b->ep, now);
	}
}

static inline int
fz_make(struct fz_side *s, uint32_t ip, uint64_t seed)
{
	struct uet_ep_config c;

	uet_ep_config_default(&c);
	c.local_ip = ip;
	c.seed = seed;
	c.max_pdcs = 8;
	c.window_psns = 64;
	c.mss_bytes = 1024;
	c.max_tx_msgs = 16;
	c.max_rx_msgs = 8;
	c.ctrl_queue_len = 64;
	c.base_rtt_ns = 2000;
	c.max_rto_retx = 3;
	c.pdc_idle_close_ns = 100000;
	c.pdc_quarantine_ns = 200000;
	/* Garbage SYNs open target PDCs; reclaim them so the end check can
	 * require idleness. */
	c.pdc_target_idle_ns = 500000;
	c.cb.rx_msg = fz_on_rx_msg;
	c.cb.peer_ok = fz_peer_ok;
	c.job_id = FZ_JOB_ID;
#ifdef FZ_CC_NAME
	/* The endpoint_credit target: the same scene under a credit CC, so
	 * CREDIT_REQ and CREDIT are part of it and the senders wait on
	 * grants. */
	c.cc = uet_cc_find(FZ_CC_NAME);
	if (c.cc == NULL)
		return -1;
#endif
	c.user = s;
	memset(s, 0, sizeof(*s));
	s->ip = ip;
	return uet_ep_create(&c, &s->ep);
}

static inline int
fz_send(struct fz_side *from, struct fz_side *to, uint32_t len, uint16_t stream,
	uint64_t now)
{
	struct uet_send_req r = { .dst_ip = to->ip, .stream = stream, .buf = fz_msg_buf,
				  .len = len, .tag = len };

	return uet_ep_send(from->ep, &r, now);
}

/* Open PDCs both ways, complete a little, and leave a message queued. */
static inline int
fz_scene(struct fz_side *a, struct fz_side *b, uint64_t now)
{
	if (fz_make(a, FZ_A_IP, 1) < 0 || fz_make(b, FZ_B_IP, 2) < 0)
		return -1;
	fz_send(a, b, 3000, 0, now);
	fz_send(b, a, 100, 1, now);
	fz_exchange(a, b, now, 3, NULL, NULL);
	fz_send(a, b, 5000, 0, now);
	return 0;
}

#endif /* UET_FUZZ_EP_H_ */
