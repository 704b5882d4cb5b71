/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bad input: truncated and malformed headers, unknown PDCs, PSNs outside the
 * window, ACKs/SACKs/NACKs for PSNs never sent, inconsistent semantic
 * headers. Each is dropped with the documented error, counted, and leaves
 * the PDC state exactly as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "duo.h"

struct fixture {
	struct duo d;
	struct uet_pdc_info ai, bi; /* A's initiator PDC, B's target PDC */
	uint8_t buf[256];
};

static struct fixture fx;

static bool
find_pdc(struct uet_ep *ep, bool initiator, struct uet_pdc_info *out)
{
	uint32_t cur = 0;

	while (uet_ep_pdc_iter(ep, &cur, out))
		if (out->initiator == initiator)
			return true;
	return false;
}

static int
setup(void **state)
{
	struct uet_ep_config c;
	struct uet_tx_meta m;
	uint8_t pkt[UET_DATA_HDR_LEN + 4096];
	int i;

	(void)state;
	duo_config(&c);
	if (duo_init(&fx.d, &c) < 0)
		return -1;
	/* Establish the PDC with one message, then leave 4 packets of a
	 * second message outstanding (written, never delivered). */
	duo_send(&fx.d, &fx.d.a, 1, 4096, 0);
	if (!duo_run(&fx.d, 1000000))
		return -1;
	duo_send(&fx.d, &fx.d.a, 2, 4 * 4096, 0);
	for (i = 0; i < 4; i++)
		if (uet_ep_write_pkt(fx.d.a.ep, pkt, sizeof(pkt), &m, fx.d.now) <= 0)
			return -1;
	if (!find_pdc(fx.d.a.ep, true, &fx.ai) || !find_pdc(fx.d.b.ep, false, &fx.bi))
		return -1;
	return fx.ai.snd_nxt - fx.ai.snd_una == 4 ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	duo_fini(&fx.d);
	return 0;
}

static int
to_b(const uint8_t *p, size_t len, uint32_t src)
{
	struct uet_rx_meta m = { .src_ip = src, .ev = 123, .ce = false, .trimmed = 0 };

	return uet_ep_read_pkt(fx.d.b.ep, &m, p, len, fx.d.now);
}

static int
to_a(const uint8_t *p, size_t len, uint32_t src)
{
	struct uet_rx_meta m = { .src_ip = src, .ev = 123, .ce = false, .trimmed = 0 };

	return uet_ep_read_pkt(fx.d.a.ep, &m, p, len, fx.d.now);
}

static void
expect_unchanged(void)
{
	struct uet_pdc_info a, b;

	assert_true(find_pdc(fx.d.a.ep, true, &a));
	assert_true(find_pdc(fx.d.b.ep, false, &b));
	assert_memory_equal(&a, &fx.ai, sizeof(a));
	assert_memory_equal(&b, &fx.bi, sizeof(b));
	assert_int_equal(uet_ep_pdc_count(fx.d.a.ep), 1);
	assert_int_equal(uet_ep_pdc_count(fx.d.b.ep), 1);
}

/* A well-formed single-packet data request from A to B's PDC. */
static void
data_hdr(struct uet_hdr *h, uint32_t psn, uint32_t len)
{
	memset(h, 0, sizeof(*h));
	h->type = UET_PDS_RUD_REQ;
	h->nh = UET_NH_REQ_STD;
	h->psn = psn;
	h->spdcid = fx.ai.pdc_id;
	h->dpdcid = fx.ai.peer_pdc_id;
	h->ses.opcode = UET_SES_SEND;
	h->ses.flags = UET_SES_F_SOM | UET_SES_F_EOM;
	h->ses.msg_id = 999;
	h->ses.request_len = len;
}

static int
enc(const struct uet_hdr *h, uint32_t payload)
{
	int n = uet_hdr_encode(h, fx.buf, sizeof(fx.buf));

	assert_true(n > 0);
	memset(fx.buf + n, 0, payload);
	return n + (int)payload;
}

/* Pull B's pending control packet and return its NACK code (or -1). */
static int
b_nack_code(void)
{
	struct uet_tx_meta m;
	struct uet_hdr h;
	uint8_t out[128];
	int n, code = -1;

	while ((n = uet_ep_write_pkt(fx.d.b.ep, out, sizeof(out), &m, fx.d.now)) > 0) {
		assert_int_equal(uet_hdr_decode(out, (size_t)n, &h), n);
		if (h.type == UET_PDS_NACK)
			code = h.nack_code;
	}
	return code;
}

static void
test_truncated_and_unsupported(void **state)
{
	const struct uet_ep_stats *s = uet_ep_stats(fx.d.b.ep);
	uint64_t mal = s->rx_malformed, uns = s->rx_unsupported;
	struct uet_hdr h;
	int n, cut;

	(void)state;
	data_hdr(&h, fx.bi.cack, 10);
	n = enc(&h, 10);
	for (cut = 0; cut < UET_DATA_HDR_LEN; cut++)
		assert_int_equal(to_b(fx.buf, (size_t)cut, fx.d.a.ip), UET_ERR_MALFORMED);
	assert_int_equal(s->rx_malformed, mal + UET_DATA_HDR_LEN);
	/* ROD request, RUDI, TSS: valid UET we do not speak */
	fx.buf[0] = (uint8_t)((UET_PDS_ROD_REQ << 3) | (fx.buf[0] & 7));
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_UNSUPPORTED);
	fx.buf[0] = (uint8_t)(UET_PDS_TSS << 3);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_UNSUPPORTED);
	/* Reserved type 0 and 31 */
	fx.buf[0] = 0;
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_MALFORMED);
	fx.buf[0] = 0xf8;
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_MALFORMED);
	/* RUD request without a semantic header */
	h.nh = UET_NH_NONE;
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_UNSUPPORTED);
	/* CONTROL kinds other than probe and close */
	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_CTRL;
	h.nh = UET_CTL_CLEAR;
	n = enc(&h, 0);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_UNSUPPORTED);
	assert_int_equal(s->rx_unsupported, uns + 4);
	assert_int_equal(s->rx_malformed, mal + UET_DATA_HDR_LEN + 2);
	expect_unchanged();
}

static void
test_unknown_pdc(void **state)
{
	const struct uet_ep_stats *s = uet_ep_stats(fx.d.b.ep);
	uint64_t unk = s->rx_unknown_pdc;
	struct uet_hdr h;
	int n;

	(void)state;
	data_hdr(&h, fx.bi.cack, 10);
	h.dpdcid = (uint16_t)(fx.ai.peer_pdc_id ^ 0x5555);
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_NO_PDC);
	/* The target answers "no such PDC" so a closing initiator can finish. */
	assert_int_equal(b_nack_code(), UET_NACK_INV_DPDCID);
	/* Right PDC id, wrong source address or wrong source PDC id */
	data_hdr(&h, fx.bi.cack, 10);
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, 0x0a0000ee), UET_ERR_NO_PDC);
	h.spdcid ^= 1;
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_NO_PDC);
	assert_int_equal(s->rx_unknown_pdc, unk + 3);
	b_nack_code();
	expect_unchanged();
}

static void
test_psn_outside_window(void **state)
{
	const struct uet_ep_stats *s = uet_ep_stats(fx.d.b.ep);
	uint64_t oow = s->rx_psn_window, dup = s->rx_dup_pkts;
	struct uet_hdr h;
	int n;

	(void)state;
	data_hdr(&h, fx.bi.cack + 1024 + 5, 10);
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_PSN_WINDOW);
	assert_int_equal(s->rx_psn_window, oow + 1);
	assert_int_equal(b_nack_code(), UET_NACK_PSN_OOR_WINDOW);
	data_hdr(&h, fx.bi.cack + 0x80000000u, 10);
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_PSN_WINDOW);
	b_nack_code();
	/* Below the cumulative point: a duplicate, re-ACKed, not delivered */
	data_hdr(&h, fx.bi.cack - 1, 10);
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_DUPLICATE);
	assert_int_equal(s->rx_dup_pkts, dup + 1);
	assert_int_equal(b_nack_code(), -1);
	assert_int_equal(fx.d.b.rx[0].got, 0);
	expect_unchanged();
}

static void
test_inconsistent_ses(void **state)
{
	const struct uet_ep_stats *s = uet_ep_stats(fx.d.b.ep);
	uint64_t mal = s->rx_malformed, deliv = s->msgs_delivered;
	struct uet_hdr h;
	int n;

	(void)state;
	/* EOM set but the payload does not reach request_len */
	data_hdr(&h, fx.bi.cack, 100);
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_MALFORMED);
	/* Payload past request_len */
	data_hdr(&h, fx.bi.cack, 5);
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_MALFORMED);
	/* Middle packet whose payload_len disagrees with its size */
	data_hdr(&h, fx.bi.cack, 100);
	h.ses.flags = 0;
	h.ses.msg_offset = 10;
	h.ses.payload_len = 11;
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_MALFORMED);
	/* Non-first packet at offset 0 */
	h.ses.msg_offset = 0;
	h.ses.payload_len = 10;
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_MALFORMED);
	/* Opcode we do not implement */
	data_hdr(&h, fx.bi.cack, 10);
	h.ses.opcode = UET_SES_READ;
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_MALFORMED);
	/* A SYN packet with a bad semantic header opens no PDC */
	data_hdr(&h, 5000, 100);
	h.flags = UET_REQ_F_SYN;
	h.spdcid = 4321;
	h.dpdcid = uet_syn_slot(0);
	n = enc(&h, 10);
	assert_int_equal(to_b(fx.buf, (size_t)n, fx.d.a.ip), UET_ERR_MALFORMED);
	assert_int_equal(s->rx_malformed, mal + 6);
	assert_int_equal(s->msgs_delivered, deliv);
	assert_int_equal(b_nack_code(), -1);
	expect_unchanged();
}

static void
ack_hdr(struct uet_hdr *h, uint32_t cack, int16_t ack_off)
{
	memset(h, 0, sizeof(*h));
	h->type = UET_PDS_ACK_CC;
	h->psn = cack;
	h->off16 = ack_off;
	h->spdcid = fx.bi.pdc_id;
	h->dpdcid = fx.ai.pdc_id;
	h->mpr = 8;
}

static void
test_bad_acks(void **state)
{
	const struct uet_ep_stats *s = uet_ep_stats(fx.d.a.ep);
	uint64_t bad = s->rx_bad_ack, unk = s->rx_unknown_pdc, stale = s->rx_stale;
	struct uet_hdr h;
	int n;

	(void)state;
	/* Cumulative ACK beyond anything sent */
	ack_hdr(&h, fx.ai.snd_nxt + 1, -1);
	n = enc(&h, 0);
	assert_int_equal(to_a(fx.buf, (size_t)n, fx.d.b.ip), UET_ERR_BAD_ACK);
	/* SACK bit for a PSN never sent (the 4 outstanding are una..una+3) */
	ack_hdr(&h, fx.ai.snd_una, 0);
	h.sack_psn_offset = 0;
	h.sack_bitmap = 1ULL << 4;
	n = enc(&h, 0);
	assert_int_equal(to_a(fx.buf, (size_t)n, fx.d.b.ip), UET_ERR_BAD_ACK);
	/* Triggering PSN never sent */
	ack_hdr(&h, fx.ai.snd_una, 4);
	n = enc(&h, 0);
	assert_int_equal(to_a(fx.buf, (size_t)n, fx.d.b.ip), UET_ERR_BAD_ACK);
	/* NACK for a PSN never sent */
	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_NACK;
	h.nack_code = UET_NACK_TRIMMED;
	h.psn = fx.ai.snd_nxt + 10;
	h.spdcid = fx.bi.pdc_id;
	h.dpdcid = fx.ai.pdc_id;
	n = enc(&h, 0);
	assert_int_equal(to_a(fx.buf, (size_t)n, fx.d.b.ip), UET_ERR_BAD_ACK);
	assert_int_equal(s->rx_bad_ack, bad + 4);
	/* NACK for a PSN acknowledged long ago: stale */
	h.psn = fx.ai.snd_una - 1;
	n = enc(&h, 0);
	assert_int_equal(to_a(fx.buf, (size_t)n, fx.d.b.ip), UET_ERR_STALE);
	/* ACK from the wrong target PDC id */
	ack_hdr(&h, fx.ai.snd_una + 1, -1);
	h.spdcid ^= 0x10;
	n = enc(&h, 0);
	assert_int_equal(to_a(fx.buf, (size_t)n, fx.d.b.ip), UET_ERR_STALE);
	assert_int_equal(s->rx_stale, stale + 2);
	/* ACK for an unknown PDC, or from the wrong address */
	ack_hdr(&h, fx.ai.snd_una + 1, -1);
	h.dpdcid ^= 0x4000;
	n = enc(&h, 0);
	assert_int_equal(to_a(fx.buf, (size_t)n, fx.d.b.ip), UET_ERR_NO_PDC);
	ack_hdr(&h, fx.ai.snd_una + 1, -1);
	n = enc(&h, 0);
	assert_int_equal(to_a(fx.buf, (size_t)n, 0x0a0000ee), UET_ERR_NO_PDC);
	assert_int_equal(s->rx_unknown_pdc, unk + 2);
	/* Truncated ACK_CC */
	ack_hdr(&h, fx.ai.snd_una, -1);
	n = enc(&h, 0);
	assert_int_equal(to_a(fx.buf, (size_t)n - 1, fx.d.b.ip), UET_ERR_MALFORMED);
	expect_unchanged();
	assert_int_equal(fx.d.a.tx_done_ok, 1);
}

/* A run's endpoints (job 7, peers 10.0.0.1-2): a request of another job,
 * or a new PDC from an address outside the run, is dropped before any
 * state is made, counted, and not answered; the run's own traffic flows. */
static bool
run_peer(void *user, uint32_t ip)
{
	(void)user;
	return ip == 0x0a000001 || ip == 0x0a000002;
}

static void
test_foreign_job_and_address(void **state)
{
	struct uet_ep_config c;
	struct uet_ep *stranger;
	struct uet_send_req r = { .dst_ip = 0x0a000002, .len = 1000, .tag = 5 };
	struct uet_tx_meta m;
	struct uet_rx_meta rm = { .src_ip = 0x0a000003, .ev = 1 };
	struct duo d;
	const struct uet_ep_stats *s;
	uint8_t pkt[UET_DATA_HDR_LEN + 4096];
	int n, job;

	(void)state;
	duo_config(&c);
	c.job_id = 7;
	c.cb.peer_ok = run_peer;
	assert_int_equal(duo_init(&d, &c), 0);
	s = uet_ep_stats(d.b.ep);
	duo_send(&d, &d.a, 1, 3000, 0);
	assert_true(duo_run(&d, 1000000));
	assert_int_equal(s->msgs_delivered, 1);
	/* strangers at 10.0.0.3 with the run's job, then another job */
	for (job = 7; job <= 8; job++) {
		c.local_ip = 0x0a000003;
		c.job_id = (uint32_t)job;
		c.user = NULL;
		memset(&c.cb, 0, sizeof(c.cb));
		assert_int_equal(uet_ep_create(&c, &stranger), 0);
		assert_int_equal(uet_ep_send(stranger, &r, d.now), 0);
		n = uet_ep_write_pkt(stranger, pkt, sizeof(pkt), &m, d.now);
		assert_true(n > 0);
		assert_int_equal(uet_ep_read_pkt(d.b.ep, &rm, pkt, (size_t)n, d.now),
				 UET_ERR_FOREIGN);
		uet_ep_destroy(stranger);
	}
	assert_int_equal(s->rx_foreign_addr, 1);
	assert_int_equal(s->rx_foreign_job, 1);
	assert_int_equal(uet_ep_pdc_count(d.b.ep), 1);
	assert_int_equal(uet_ep_write_pkt(d.b.ep, pkt, sizeof(pkt), &m, d.now), 0);
	/* A of the run, moved to another job: its requests are dropped */
	assert_int_equal(uet_ep_set_job_id(d.a.ep, 9), 0);
	assert_int_equal(uet_ep_set_job_id(d.a.ep, 1u << 24), UET_ERR_INVAL);
	duo_send(&d, &d.a, 2, 3000, 1);
	(void)duo_run(&d, d.now + 100000);
	assert_true(s->rx_foreign_job > 1);
	assert_int_equal(s->msgs_delivered, 1);
	/* back in the job: the message gets through */
	assert_int_equal(uet_ep_set_job_id(d.a.ep, 7), 0);
	assert_true(duo_run(&d, d.now + 100000000));
	assert_int_equal(s->msgs_delivered, 2);
	duo_fini(&d);
}

/* After all that, the outstanding message still completes normally. */
static void
test_still_works(void **state)
{
	(void)state;
	fx.d.filter = NULL;
	assert_true(duo_run(&fx.d, fx.d.now + 10000000));
	assert_true(duo_msg_exact(&fx.d.b, 2, 4 * 4096));
	assert_int_equal(fx.d.a.tx_done_ok, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncated_and_unsupported),
		cmocka_unit_test(test_unknown_pdc),
		cmocka_unit_test(test_psn_outside_window),
		cmocka_unit_test(test_inconsistent_ses),
		cmocka_unit_test(test_bad_acks),
		cmocka_unit_test(test_still_works),
		cmocka_unit_test(test_foreign_job_and_address),
	};

	return cmocka_run_group_tests_name("badinput", tests, setup, teardown);
}
