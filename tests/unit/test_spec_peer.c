/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A peer that knows only the UET specification, scripted by hand against
 * one endpoint: it sends TAGGED_SEND and SEND messages whose PSNs cross
 * 2^32, acknowledges with the inclusive CACK_PSN (ACK and ACK_CC, no libuet
 * extension), and reads the endpoint's packets as the specification means
 * them. Each message is delivered exactly once, byte for byte, nothing is
 * resent that the peer acknowledged, and the endpoint's ACKs and requests
 * carry the values a specification-only peer expects.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "uet/uet.h"
#include "uet/wire.h"

#define EP_IP 0x0a000001u
#define PEER_IP 0x0a000009u
#define PEER_PDC 5
#define MAX_RX 8

struct rx_got {
	uint64_t tag;
	bool tagged;
	uint32_t len, bytes, done;
	uint8_t data[16384];
};

static struct {
	struct uet_ep *ep;
	uint64_t now;
	struct rx_got rx[MAX_RX];
	uint32_t n_rx;
	uint32_t tx_ok, tx_err;
	/* what the endpoint wrote, decoded */
	struct uet_hdr out[64];
	uint8_t out_buf[64][UET_DATA_HDR_LEN + 4096];
	uint32_t out_len[64];
	uint32_t n_out;
} t;

static uint8_t
pat(uint64_t tag, uint32_t off)
{
	return (uint8_t)(tag * 29 + off * 13 + (off >> 9));
}

static struct rx_got *
rx_slot(uint16_t msg_id)
{
	return &t.rx[msg_id % MAX_RX];
}

static void
on_data(void *user, const struct uet_rx_data *d)
{
	struct rx_got *g = rx_slot(d->msg_id);

	(void)user;
	assert_true(d->offset + d->len <= sizeof(g->data));
	memcpy(g->data + d->offset, d->data, d->len);
	g->bytes += d->len;
	g->tag = d->tag;
	g->tagged = d->tagged;
}

static void
on_msg(void *user, const struct uet_rx_msg *m)
{
	struct rx_got *g = rx_slot(m->msg_id);

	(void)user;
	assert_int_equal(m->status, 0);
	g->len = m->msg_len;
	g->done++;
	assert_int_equal(g->tag, m->tag);
	assert_int_equal(g->tagged, m->tagged);
}

static void
on_tx_done(void *user, const struct uet_tx_done *d)
{
	(void)user;
	if (d->status == 0)
		t.tx_ok++;
	else
		t.tx_err++;
}

static void
config(struct uet_ep_config *c, bool strict)
{
	uet_ep_config_default(c);
	c->local_ip = EP_IP;
	c->seed = 42;
	c->base_rtt_ns = 4000;
	c->link_bps = 100000000000ULL;
	c->ack_every_bytes = 0; /* an ACK per packet: each one checked */
	c->strict = strict;
	c->cb.rx_data = on_data;
	c->cb.rx_msg = on_msg;
	c->cb.tx_done = on_tx_done;
}

static int
setup_as(bool strict)
{
	struct uet_ep_config c;

	memset(&t, 0, sizeof(t));
	config(&c, strict);
	t.now = 1000000;
	return uet_ep_create(&c, &t.ep);
}

static int
setup_strict(void **state)
{
	(void)state;
	return setup_as(true);
}

static int
setup(void **state)
{
	(void)state;
	return setup_as(false);
}

static int
teardown(void **state)
{
	(void)state;
	uet_ep_destroy(t.ep);
	return 0;
}

/* Run the endpoint's due timers and collect everything it writes. */
static void
drain(void)
{
	struct uet_tx_meta m;
	int n;

	while (uet_ep_next_deadline(t.ep) <= t.now)
		uet_ep_handle_timeout(t.ep, t.now);
	t.n_out = 0;
	while (t.n_out < 64 &&
	       (n = uet_ep_write_pkt(t.ep, t.out_buf[t.n_out], sizeof(t.out_buf[0]), &m, t.now)) >
		       0) {
		assert_true(uet_hdr_decode(t.out_buf[t.n_out], (size_t)n, &t.out[t.n_out]) > 0);
		assert_int_equal(m.dst_ip, PEER_IP);
		t.out_len[t.n_out++] = (uint32_t)n;
	}
}

static int
peer_pkt(const struct uet_hdr *h, uint32_t payload_len, uint64_t tag, uint32_t off)
{
	static uint8_t buf[UET_DATA_HDR_LEN + 4096];
	struct uet_rx_meta m = { .src_ip = PEER_IP, .ev = 4242, .ce = false, .trimmed = 0 };
	int n = uet_hdr_encode(h, buf, sizeof(buf));
	uint32_t i;

	assert_true(n > 0);
	for (i = 0; i < payload_len; i++)
		buf[n + i] = pat(tag, off + i);
	return uet_ep_read_pkt(t.ep, &m, buf, (size_t)n + payload_len, t.now);
}

/* One packet of a message from the peer, as a specification-only sender
 * writes it: SYN until the endpoint's PDC id is known, CLEAR_PSN = start
 * PSN - 1 (nothing of ours to clear), REL with buffer offset 0. */
static int
peer_data(uint32_t start, uint32_t psn, uint8_t opcode, uint16_t msg_id, uint64_t match,
	  uint32_t off, uint32_t len, uint32_t total, uint16_t ep_pdc)
{
	struct uet_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_RUD_REQ;
	h.nh = UET_NH_REQ_STD;
	h.flags = UET_REQ_F_AR | (ep_pdc == 0 ? UET_REQ_F_SYN : 0);
	h.psn = psn;
	h.off16 = (int16_t)(int32_t)(start - 1 - psn);
	h.spdcid = PEER_PDC;
	h.dpdcid = ep_pdc == 0 ? uet_syn_slot((uint16_t)(psn - start)) : ep_pdc;
	h.ses.opcode = opcode;
	h.ses.flags = (uint8_t)(UET_SES_F_REL | (off == 0 ? UET_SES_F_SOM : 0) |
				(off + len == total ? UET_SES_F_EOM : 0));
	h.ses.msg_id = msg_id;
	h.ses.match_bits = match;
	h.ses.payload_len = off == 0 ? 0 : (uint16_t)len;
	h.ses.msg_offset = off;
	h.ses.request_len = total;
	return peer_pkt(&h, len, opcode == UET_SES_TAGGED_SEND ? match : 0, off);
}

/* The one ACK the endpoint wrote: its CACK_PSN, trigger and SACK. */
static const struct uet_hdr *
one_ack(void)
{
	drain();
	assert_int_equal(t.n_out, 1);
	assert_int_equal(t.out[0].type, UET_PDS_ACK_CC);
	assert_int_equal(t.out[0].dpdcid, PEER_PDC);
	assert_int_not_equal(t.out[0].spdcid, 0);
	/* No libuet extension in the answer to a fresh packet. */
	assert_int_equal(t.out[0].flags & UET_ACK_F_DUP, 0);
	assert_int_equal(t.out[0].cc_flags, 0);
	return &t.out[0];
}

static bool
sack_has(const struct uet_hdr *h, uint32_t psn)
{
	uint32_t i = psn - uet_ack_sack_base(h);

	return i < 64 && ((h->sack_bitmap >> i) & 1);
}

/* The peer sends: a tagged message of three packets in order, then an
 * untagged one of two whose last packet comes first, its PSNs across the
 * 2^32 wrap. In-order ACKs carry CACK_PSN = the packet's PSN and offset
 * 0; the out-of-order one CACK_PSN = the last in order, the trigger as
 * an offset and in the SACK. */
static void
test_peer_sends(void **state)
{
	const uint32_t start = 0xfffffffeu;
	const uint64_t tag = 0x1122334455667788ULL;
	const struct uet_hdr *a;
	uint16_t ep_pdc = 0;
	uint32_t i, psn;

	(void)state;
	for (i = 0; i < 3; i++) {
		psn = start + i;
		assert_int_equal(peer_data(start, psn, UET_SES_TAGGED_SEND, 7, tag, i * 4096,
					   i < 2 ? 4096 : 1000, 2 * 4096 + 1000, ep_pdc),
				 0);
		a = one_ack();
		ep_pdc = a->spdcid;
		assert_int_equal(a->psn, psn);          /* CACK_PSN, inclusive */
		assert_int_equal(a->off16, 0);          /* ACK_PSN = CACK_PSN */
		assert_int_equal(uet_ack_psn(a), psn);
		if ((int32_t)(psn - uet_ack_sack_base(a)) >= 0)
			assert_true(sack_has(a, psn)); /* bits up to CACK_PSN */
		t.now += 1000;
	}
	assert_int_equal(rx_slot(7)->done, 1);
	assert_int_equal(rx_slot(7)->len, 2 * 4096 + 1000);
	assert_int_equal(rx_slot(7)->bytes, 2 * 4096 + 1000);
	assert_true(rx_slot(7)->tagged);
	assert_int_equal(rx_slot(7)->tag, tag);
	for (i = 0; i < 2 * 4096 + 1000; i++)
		assert_int_equal(rx_slot(7)->data[i], pat(tag, i));

	/* Untagged: whatever sits in the match bits is not a tag. The
	 * second packet (PSN start + 4 = 2) arrives first. */
	assert_int_equal(peer_data(start, start + 4, UET_SES_SEND, 8, 0xdead, 4096, 500, 4596,
				   ep_pdc),
			 0);
	a = one_ack();
	assert_int_equal(a->psn, start + 2);
	assert_int_equal(a->off16, 2);
	assert_int_equal(uet_ack_psn(a), start + 4);
	assert_true(sack_has(a, start + 4));
	assert_false(sack_has(a, start + 3));
	if ((int32_t)(start + 2 - uet_ack_sack_base(a)) >= 0)
		assert_true(sack_has(a, start + 2)); /* at or below CACK_PSN */
	t.now += 1000;
	assert_int_equal(peer_data(start, start + 3, UET_SES_SEND, 8, 0xdead, 0, 4096, 4596,
				   ep_pdc),
			 0);
	a = one_ack();
	assert_int_equal(a->psn, start + 4);          /* 2 = 0xfffffffe + 4 */
	assert_int_equal(a->off16, -1);
	assert_int_equal(uet_ack_psn(a), start + 3);
	assert_int_equal(rx_slot(8)->done, 1);
	assert_int_equal(rx_slot(8)->bytes, 4596);
	assert_false(rx_slot(8)->tagged);
	assert_int_equal(rx_slot(8)->tag, 0);
	for (i = 0; i < 4596; i++)
		assert_int_equal(rx_slot(8)->data[i], pat(0, i));

	/* A copy of a delivered packet is acknowledged, not delivered again. */
	t.now += 1000;
	peer_data(start, start + 1, UET_SES_TAGGED_SEND, 7, tag, 4096, 4096, 2 * 4096 + 1000,
		  ep_pdc);
	drain();
	assert_int_equal(rx_slot(7)->done, 1);
	assert_int_equal(rx_slot(7)->bytes, 2 * 4096 + 1000);
	assert_int_equal(uet_ep_stats(t.ep)->rx_malformed, 0);
}

/* An ACK as a specification-only target writes it: plain ACK (type 7) or
 * ACK_CC with zero CC state, inclusive CACK_PSN, no extension. */
static void
peer_ack(uint16_t ep_pdc, uint32_t cack, uint32_t trigger, bool cc)
{
	struct uet_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = cc ? UET_PDS_ACK_CC : UET_PDS_ACK;
	h.nh = UET_NH_NONE;
	h.psn = cack;
	h.off16 = (int16_t)(int32_t)(trigger - cack);
	h.spdcid = PEER_PDC;
	h.dpdcid = ep_pdc;
	if (cc) {
		h.cc_type = UET_CC_TYPE_NSCC;
		h.mpr = 8;
		h.sack_psn_offset = 0;
		h.sack_bitmap = 1; /* CACK_PSN itself */
	}
	assert_int_equal(peer_pkt(&h, 0, 0, 0), 0);
}

/* The endpoint sends to the peer: its requests say what UET means, and
 * the peer's inclusive ACKs complete its messages with nothing resent. */
static void
test_peer_receives(void **state)
{
	static uint8_t msg[2 * 4096 + 1000], msg2[300];
	struct uet_send_req r;
	uint32_t i, start, psn;
	uint16_t ep_pdc;
	const struct uet_hdr *h;

	(void)state;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = pat(77, i);
	memset(&r, 0, sizeof(r));
	r.dst_ip = PEER_IP;
	r.buf = msg;
	r.len = sizeof(msg);
	r.tag = 77;
	assert_int_equal(uet_ep_send(t.ep, &r, t.now), 0);
	drain();
	assert_int_equal(t.n_out, 3);
	ep_pdc = t.out[0].spdcid;
	assert_int_not_equal(ep_pdc, 0);
	start = t.out[0].psn - uet_syn_psn_offset(t.out[0].dpdcid);
	for (i = 0; i < 3; i++) {
		h = &t.out[i];
		assert_int_equal(h->type, UET_PDS_RUD_REQ);
		assert_true(h->flags & UET_REQ_F_SYN);
		assert_int_equal(h->psn, start + i);
		assert_int_equal(h->spdcid, ep_pdc);
		/* CLEAR_PSN: nothing acknowledged yet, so start - 1. */
		assert_int_equal(h->psn + (uint32_t)(int32_t)h->off16, start - 1);
		assert_int_equal(h->ses.opcode, UET_SES_TAGGED_SEND);
		assert_int_equal(h->ses.flags & (UET_SES_F_REL | UET_SES_F_SOM | UET_SES_F_EOM),
				 UET_SES_F_REL | (i == 0 ? UET_SES_F_SOM : 0) |
					 (i == 2 ? UET_SES_F_EOM : 0));
		assert_int_equal(h->ses.buffer_offset, 0);
		assert_int_equal(h->ses.match_bits, 77);
		assert_int_equal(h->ses.request_len, sizeof(msg));
		assert_int_equal(h->ses.msg_offset, i * 4096);
		assert_int_equal(t.out_len[i] - h->hdr_len, i < 2 ? 4096 : 1000);
	}
	/* The peer got the first packet, then the third, then the second:
	 * an ACK_CC for the first, and a plain ACK for the second, which
	 * filled the hole, with CACK_PSN = the third. Read as the
	 * receiver's next expected PSN, that ACK would leave the third
	 * unacknowledged. */
	t.now += 5000;
	peer_ack(ep_pdc, start, start, true);
	assert_int_equal(t.tx_ok, 0);
	peer_ack(ep_pdc, start + 2, start + 1, false);
	assert_int_equal(t.tx_ok, 1);

	/* An untagged message next: no SYN, the peer's PDC id, CLEAR_PSN the
	 * last PSN acknowledged, match bits 0. */
	memset(&r, 0, sizeof(r));
	r.dst_ip = PEER_IP;
	r.buf = msg2;
	r.len = sizeof(msg2);
	r.tag = 99;
	r.untagged = true;
	assert_int_equal(uet_ep_send(t.ep, &r, t.now), 0);
	drain();
	assert_int_equal(t.n_out, 1);
	h = &t.out[0];
	psn = start + 3;
	assert_int_equal(h->psn, psn);
	assert_int_equal(h->flags & UET_REQ_F_SYN, 0);
	assert_int_equal(h->dpdcid, PEER_PDC);
	assert_int_equal(h->psn + (uint32_t)(int32_t)h->off16, start + 2);
	assert_int_equal(h->ses.opcode, UET_SES_SEND);
	assert_int_equal(h->ses.match_bits, 0);
	assert_int_equal(h->ses.flags & (UET_SES_F_SOM | UET_SES_F_EOM),
			 UET_SES_F_SOM | UET_SES_F_EOM);
	t.now += 5000;
	peer_ack(ep_pdc, psn, psn, true);
	assert_int_equal(t.tx_ok, 2);

	/* Then a long quiet: nothing the peer acknowledged is sent again. */
	for (i = 0; i < 100; i++) {
		t.now += 100000;
		drain();
		for (uint32_t k = 0; k < t.n_out; k++)
			assert_false(t.out[k].type == UET_PDS_RUD_REQ &&
				     t.out[k].nh == UET_NH_REQ_STD);
	}
	assert_int_equal(uet_ep_stats(t.ep)->tx_retx_pkts, 0);
	assert_int_equal(uet_ep_stats(t.ep)->rx_bad_ack, 0);
	assert_int_equal(t.tx_err, 0);
}

/* Under strict the endpoint sends no libuet extension and reads none: a
 * duplicate's ACK has the reserved bit clear, a peer's ACK with that bit
 * set proves nothing, and a spurious resend is still seen where the
 * original's ACK, echoing no RETX, shows it. Without strict the same
 * duplicate's ACK carries DUP. */
static void
run_duplicate(bool strict)
{
	const struct uet_hdr *a;
	uint16_t ep_pdc;

	assert_int_equal(setup_as(strict), 0);
	assert_int_equal(peer_data(100, 100, UET_SES_TAGGED_SEND, 1, 5, 0, 64, 64, 0), 0);
	a = one_ack();
	ep_pdc = a->spdcid;
	t.now += 1000;
	assert_int_equal(peer_data(100, 100, UET_SES_TAGGED_SEND, 1, 5, 0, 64, 64, ep_pdc),
			 UET_ERR_DUPLICATE);
	drain();
	assert_int_equal(t.n_out, 1);
	assert_int_equal(t.out[0].type, UET_PDS_ACK_CC);
	assert_int_equal(t.out[0].psn, 100);
	assert_int_equal(!!(t.out[0].flags & UET_ACK_F_DUP), !strict);
	assert_int_equal(uet_ep_stats(t.ep)->tx_dup_acks, strict ? 0 : 1);
	assert_int_equal(rx_slot(1)->done, 1);
	uet_ep_destroy(t.ep);
}

static void
test_strict_sends_no_dup(void **state)
{
	(void)state;
	run_duplicate(true);
	run_duplicate(false);
}

static void
strict_ack(uint16_t ep_pdc, uint32_t psn, uint8_t flags)
{
	struct uet_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_ACK_CC;
	h.flags = flags;
	h.psn = psn;
	h.spdcid = PEER_PDC;
	h.dpdcid = ep_pdc;
	h.mpr = 8;
	h.sack_bitmap = 1;
	assert_int_equal(peer_pkt(&h, 0, 0, 0), 0);
}

static void
test_strict_spurious_by_retx_echo(void **state)
{
	static uint8_t msg[4096 + 100];
	struct uet_send_req r;
	uint32_t psn, i, k, resent = 0;
	uint16_t ep_pdc;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.dst_ip = PEER_IP;
	r.buf = msg;
	r.len = sizeof(msg);
	assert_int_equal(uet_ep_send(t.ep, &r, t.now), 0);
	drain();
	assert_int_equal(t.n_out, 2);
	psn = t.out[0].psn;
	ep_pdc = t.out[0].spdcid;
	/* The peer's ACKs are late: the timer resends both packets. */
	for (i = 0; i < 1000 && resent != 3; i++) {
		t.now += 10000;
		drain();
		for (k = 0; k < t.n_out; k++)
			if (t.out[k].type == UET_PDS_RUD_REQ && (t.out[k].flags & UET_REQ_F_RETX) &&
			    t.out[k].psn - psn < 2)
				resent |= 1u << (t.out[k].psn - psn);
	}
	assert_int_equal(resent, 3);
	/* The first ACK's trigger is the first packet's resend (RETX
	 * echoed), with the reserved bit set: not a duplicate to a strict
	 * endpoint, which reads nothing there. The second's is the second
	 * packet's original (no RETX): its resend was not needed. */
	strict_ack(ep_pdc, psn, UET_ACK_F_RETX | UET_ACK_F_DUP);
	assert_int_equal(uet_ep_stats(t.ep)->spurious_retx, 0);
	strict_ack(ep_pdc, psn + 1, 0);
	assert_int_equal(t.tx_ok, 1);
	assert_int_equal(uet_ep_stats(t.ep)->spurious_retx, 1);
}

/* With receive-side matching: a packet whose header disagrees with the
 * message its id names is dropped as malformed, and a new message reusing
 * the id of a whole one that no receive took yet (the 16-bit id wrapped)
 * is refused until that one is taken, then lands in its own receive: no
 * byte of either goes to the other. */
static struct uet_recv_done got[4];
static uint32_t n_got;

static void
on_got(void *user, const struct uet_recv_done *d)
{
	(void)user;
	got[n_got++] = *d;
}

static int
peer_nack_code(void)
{
	uint32_t k;

	drain();
	for (k = 0; k < t.n_out; k++)
		if (t.out[k].type == UET_PDS_NACK)
			return t.out[k].nack_code;
	return -1;
}

static void
test_matching_msg_id_reused(void **state)
{
	static uint8_t b1[256], b2[256];
	struct uet_ep_config c;
	struct uet_recv_req q = { .len = 256, .tagged = true, .tag = 1 };
	const struct uet_hdr *a;
	uint64_t malformed;
	uint16_t ep_pdc;
	uint32_t i;

	(void)state;
	memset(&t, 0, sizeof(t));
	config(&c, false);
	c.max_posted_recvs = 2;
	c.max_unexp_msgs = 2;
	c.unexp_msg_bytes = 4096;
	c.cb.recv_done = on_got;
	n_got = 0;
	t.now = 1000000;
	assert_int_equal(uet_ep_create(&c, &t.ep), 0);
	/* Message 7 (100 B, tag 1) arrives whole with no receive: held. */
	assert_int_equal(peer_data(500, 500, UET_SES_TAGGED_SEND, 7, 1, 0, 100, 100, 0), 0);
	a = one_ack();
	ep_pdc = a->spdcid;
	/* Another message with id 7: held back, NO_SES_MSG_AVAIL. */
	t.now += 1000;
	assert_int_equal(peer_data(500, 501, UET_SES_TAGGED_SEND, 7, 1, 0, 100, 100, ep_pdc),
			 UET_ERR_NOBUFS);
	assert_int_equal(peer_nack_code(), UET_NACK_NO_SES_MSG_AVAIL);
	/* A packet of id 7 that disagrees with it (length, tag): malformed. */
	malformed = uet_ep_stats(t.ep)->rx_malformed;
	assert_int_equal(peer_data(500, 501, UET_SES_TAGGED_SEND, 7, 1, 0, 200, 200, ep_pdc),
			 UET_ERR_MALFORMED);
	assert_int_equal(peer_data(500, 501, UET_SES_TAGGED_SEND, 7, 2, 0, 100, 100, ep_pdc),
			 UET_ERR_MALFORMED);
	assert_int_equal(uet_ep_stats(t.ep)->rx_malformed, malformed + 2);
	/* A receive takes the first; the second, resent, lands in the next. */
	q.buf = b1;
	assert_int_equal(uet_ep_post_recv(t.ep, &q, NULL, t.now), 0);
	assert_int_equal(n_got, 1);
	assert_int_equal(got[0].len, 100);
	for (i = 0; i < 100; i++)
		assert_int_equal(b1[i], pat(1, i));
	q.buf = b2;
	assert_int_equal(uet_ep_post_recv(t.ep, &q, NULL, t.now), 0);
	t.now += 1000;
	assert_int_equal(peer_data(500, 501, UET_SES_TAGGED_SEND, 7, 1, 0, 100, 100, ep_pdc), 0);
	assert_int_equal(n_got, 2);
	assert_int_equal(got[1].status, 0);
	assert_int_equal(got[1].len, 100);
	for (i = 0; i < 100; i++)
		assert_int_equal(b2[i], pat(1, i));
	uet_ep_destroy(t.ep);
}

static void
test_strict_refuses_extensions(void **state)
{
	struct uet_ep_config c;
	const char *why = NULL;

	(void)state;
	config(&c, true);
	assert_int_equal(uet_ep_config_check(&c, &why), 0);
	c.ack_carry_evs = true;
	assert_int_equal(uet_ep_config_check(&c, &why), UET_ERR_INVAL);
	assert_non_null(strstr(why, "ack_carry_evs"));
	config(&c, true);
	c.cc = uet_cc_find("eqds");
	assert_non_null(c.cc);
	assert_int_equal(uet_ep_config_check(&c, &why), UET_ERR_INVAL);
	assert_non_null(strstr(why, "strict"));
	c.strict = false;
	assert_int_equal(uet_ep_config_check(&c, &why), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_peer_sends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_receives, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_sends, setup_strict, teardown),
		cmocka_unit_test_setup_teardown(test_peer_receives, setup_strict, teardown),
		cmocka_unit_test(test_strict_sends_no_dup),
		cmocka_unit_test_setup_teardown(test_strict_spurious_by_retx_echo, setup_strict,
						teardown),
		cmocka_unit_test(test_strict_refuses_extensions),
		cmocka_unit_test(test_matching_msg_id_reused),
	};

	return cmocka_run_group_tests_name("spec_peer", tests, NULL, NULL);
}
