/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiver-driven credit (cc eqds, lib/core/credit.c) between two
 * endpoints: the sender puts on the wire no more than its speculative
 * window plus what the receiver granted, the receiver's pull pacer grants
 * at 0.99 x its line rate, round robin, and lost requests and grants cost
 * time only.
 *
 * Figures for a 100 Gb/s link, base RTT 4 us, 4 KiB packets (4152 wire
 * bytes): the speculative window is 1.5 BDP = 75,000 B (18 packets), one
 * pull grants 4 packets, 16,608 B, every 1,342 ns.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "duo.h"

#define PKT_WIRE (UET_DATA_HDR_LEN + 4096)
#define SPEC_BYTES 75000u
#define QUANTUM (4 * PKT_WIRE)

static const struct uet_ep_stats *
st(const struct duo_side *s)
{
	return uet_ep_stats(s->ep);
}

static void
eqds_duo(struct duo *d)
{
	struct uet_ep_config c;

	duo_config(&c);
	c.cc = uet_cc_find("eqds");
	assert_non_null(c.cc);
	assert_int_equal(duo_init(d, &c), 0);
}

/* Wire bytes of a message of len bytes in 4 KiB packets. */
static uint64_t
wire_bytes(uint32_t len)
{
	uint32_t pkts = (len + 4095) / 4096;

	return len + (uint64_t)pkts * UET_DATA_HDR_LEN;
}

static uint64_t
data_wire_sent(const struct duo_side *s)
{
	return st(s)->tx_data_bytes + (st(s)->tx_data_pkts + st(s)->tx_retx_pkts) *
					      UET_DATA_HDR_LEN +
	       st(s)->tx_retx_pkts * 4096;
}

/* 1 MiB: the speculative window goes at once, the rest at the pacer's
 * rate, and every byte beyond the window was granted, none twice. */
static void
test_sender_sends_what_was_granted(void **state)
{
	const uint32_t len = 1 << 20;
	uint64_t granted, idle, pace_ns;
	struct duo d;

	(void)state;
	eqds_duo(&d);
	assert_int_equal(duo_send(&d, &d.a, 1, len, 0), 0);
	assert_true(duo_run(&d, 10000000));
	assert_true(duo_msg_exact(&d.b, 1, len));
	assert_int_equal(d.a.tx_done_ok, 1);
	assert_int_equal(st(&d.a)->tx_retx_pkts, 0);

	/* What was granted for the need; then, the sender idle, the rest of
	 * the speculative window ahead ("slow pulls"), unused. */
	idle = st(&d.b)->credit_idle_bytes;
	granted = st(&d.b)->credit_granted_bytes - idle;
	print_message("# granted %" PRIu64 " B (and %" PRIu64 " B ahead) in %" PRIu64
		      " CREDITs after %" PRIu64 " requests; done at %" PRIu64 " ns\n", granted,
		      idle, st(&d.b)->tx_credit_pkts, st(&d.a)->tx_credit_req_pkts, d.now);
	/* What was not granted went speculatively: at most the window. */
	assert_true(granted <= wire_bytes(len));
	assert_true(wire_bytes(len) - granted <= SPEC_BYTES);
	assert_true(data_wire_sent(&d.a) <= SPEC_BYTES + granted);
	assert_int_equal(idle, SPEC_BYTES);
	assert_int_equal(st(&d.a)->rx_credit_pkts, st(&d.b)->tx_credit_pkts);
	assert_int_equal(st(&d.b)->tx_credit_pkts,
			 (granted + QUANTUM - 1) / QUANTUM + (idle + QUANTUM - 1) / QUANTUM);
	/* One request at the start, one when the first ACK ended the
	 * speculative phase (and so raised the need). */
	assert_true(st(&d.a)->tx_credit_req_pkts >= 1 && st(&d.a)->tx_credit_req_pkts <= 3);
	assert_int_equal(st(&d.a)->credit_retries, 0);
	/* Paced: no sooner than the grants take at 99 Gb/s, and not much
	 * later (the last grant's trip and ACK). */
	pace_ns = granted * 8 * 1000 / 99000;
	assert_true(d.now >= pace_ns);
	assert_true(d.now <= pace_ns + 20000);
	duo_fini(&d);
}

/* Lose the first two requests and every other grant: the blocked sender
 * asks again, grants are cumulative, nothing is granted twice. */
static uint32_t n_req, n_credit;

static bool
lose_credit_ctrl(struct duo *d, struct duo_pkt *p, bool a_to_b)
{
	(void)d;
	(void)a_to_b;
	if (p->meta.kind == UET_PKT_CREDIT_REQ)
		return ++n_req > 2;
	if (p->meta.kind == UET_PKT_CREDIT)
		return ++n_credit % 2 == 0;
	return true;
}

static void
test_lost_requests_and_grants(void **state)
{
	const uint32_t len = 1 << 20;
	struct duo d;

	(void)state;
	eqds_duo(&d);
	n_req = n_credit = 0;
	d.filter = lose_credit_ctrl;
	assert_int_equal(duo_send(&d, &d.a, 2, len, 0), 0);
	assert_true(duo_run(&d, 100000000));
	assert_true(duo_msg_exact(&d.b, 2, len));
	assert_int_equal(d.a.tx_done_ok, 1);
	print_message("# requests %" PRIu64 " (%" PRIu64 " retries), grants %" PRIu64
		      " (%" PRIu64 " arrived), done at %" PRIu64 " ns\n",
		      st(&d.a)->tx_credit_req_pkts, st(&d.a)->credit_retries,
		      st(&d.b)->tx_credit_pkts, st(&d.a)->rx_credit_pkts, d.now);
	assert_true(st(&d.a)->credit_retries >= 1);
	assert_true(st(&d.a)->rx_credit_pkts < st(&d.b)->tx_credit_pkts);
	assert_true(st(&d.b)->credit_granted_bytes - st(&d.b)->credit_idle_bytes <=
		    wire_bytes(len));
	assert_true(st(&d.b)->credit_idle_bytes <= SPEC_BYTES);
	assert_true(data_wire_sent(&d.a) <= SPEC_BYTES + st(&d.b)->credit_granted_bytes);
	duo_fini(&d);
}

/* Two PDCs to one receiver share its pacer round robin: when one message
 * is complete, the other is nearly so. */
static void
test_pacer_round_robin(void **state)
{
	const uint32_t len = 512 << 10;
	struct duo d;
	uint64_t t;

	(void)state;
	eqds_duo(&d);
	assert_int_equal(duo_send(&d, &d.a, 3, len, 0), 0);
	assert_int_equal(duo_send(&d, &d.a, 4, len, 1), 0);
	for (t = 1000; d.b.rx[3].done == 0 && d.b.rx[4].done == 0; t += 1000)
		(void)duo_run(&d, t);
	print_message("# first done at %" PRIu64 " ns: %u and %u of %u B\n", d.now,
		      d.b.rx[3].got, d.b.rx[4].got, len);
	assert_true(d.b.rx[3].got >= len - 3 * QUANTUM && d.b.rx[4].got >= len - 3 * QUANTUM);
	assert_true(duo_run(&d, 10000000));
	assert_true(duo_msg_exact(&d.b, 3, len));
	assert_true(duo_msg_exact(&d.b, 4, len));
	duo_fini(&d);
}

/* No grant ever arrives (the receiver ACKs, its CREDITs are lost): the
 * sender, blocked on credit with nothing in flight and no timeout of its
 * packets to wait for, asks again with backoff, then gives up instead of
 * waiting forever: after max_rto_retx retries, also past 255 (the count
 * was a byte once, and wrapped: swarm seeds 709123, 711828, 719214). */
static bool
no_grants(struct duo *d, struct duo_pkt *p, bool a_to_b)
{
	(void)d;
	(void)a_to_b;
	return p->meta.kind != UET_PKT_CREDIT;
}

static void
test_no_grants_gives_up(void **state)
{
	static const uint32_t retries[] = { 3, 300 };

	(void)state;
	for (size_t i = 0; i < sizeof(retries) / sizeof(retries[0]); i++) {
		struct uet_ep_config c;
		struct duo d;

		duo_config(&c);
		c.cc = uet_cc_find("eqds");
		c.max_rto_retx = retries[i];
		c.rto_max_ns = 1000000;
		assert_int_equal(duo_init(&d, &c), 0);
		d.filter = no_grants;
		assert_int_equal(duo_send(&d, &d.a, 5, 1 << 20, 0), 0);
		/* The receiver keeps its half-filled PDC: only the sender is
		 * idle. At most 1 ms a retry (rto_max_ns). */
		(void)duo_run(&d, (uint64_t)(retries[i] + 10) * 1000000);
		assert_true(uet_ep_idle(d.a.ep));
		assert_int_equal(d.a.tx_done_err, 1);
		assert_int_equal(d.a.last_tx_status, UET_ERR_TIMEOUT);
		assert_int_equal(st(&d.a)->credit_retries, retries[i]);
		assert_int_equal(st(&d.a)->rto_events, 0);
		assert_true(d.b.rx[5].got <= SPEC_BYTES);
		print_message("# failed at %" PRIu64 " ns after %" PRIu64 " retries\n", d.now,
			      st(&d.a)->credit_retries);
		duo_fini(&d);
	}
}

/* A receiver that answers every request with a grant that never moves
 * (here: each CREDIT's grant rewritten to 0) must not keep the sender
 * waiting forever: only a grant that moves resets its retries, so it gives
 * up after max_rto_retx of them, as with no answer at all. */
static bool
grant_never_moves(struct duo *d, struct duo_pkt *p, bool a_to_b)
{
	struct uet_hdr h;

	(void)d;
	if (a_to_b || p->meta.kind != UET_PKT_CREDIT)
		return true;
	assert_true(uet_hdr_decode(p->buf, p->len, &h) > 0);
	h.payload32 = 0;
	assert_int_equal(uet_hdr_encode(&h, p->buf, sizeof(p->buf)), (int)p->len);
	return true;
}

static void
test_unmoving_grant_gives_up(void **state)
{
	struct uet_ep_config c;
	struct duo d;

	(void)state;
	duo_config(&c);
	c.cc = uet_cc_find("eqds");
	c.max_rto_retx = 3;
	c.rto_max_ns = 1000000;
	assert_int_equal(duo_init(&d, &c), 0);
	d.filter = grant_never_moves;
	assert_int_equal(duo_send(&d, &d.a, 5, 1 << 20, 0), 0);
	(void)duo_run(&d, 50000000);
	assert_true(uet_ep_idle(d.a.ep));
	assert_int_equal(d.a.tx_done_err, 1);
	assert_int_equal(d.a.last_tx_status, UET_ERR_TIMEOUT);
	assert_int_equal(st(&d.a)->credit_retries, 3);
	/* The receiver did answer: every retry got its unmoving grant. */
	assert_true(st(&d.a)->rx_credit_pkts > 3);
	assert_true(d.b.rx[5].got <= SPEC_BYTES);
	print_message("# failed at %" PRIu64 " ns after %" PRIu64 " CREDITs\n", d.now,
		      st(&d.a)->rx_credit_pkts);
	duo_fini(&d);
}

/* Count the CREDITs the endpoint writes now. */
static uint32_t
credits_out(struct uet_ep *ep, uint64_t now)
{
	uint8_t buf[DUO_MAX_PKT];
	struct uet_tx_meta m;
	uint32_t n = 0;

	while (uet_ep_write_pkt(ep, buf, sizeof(buf), &m, now) > 0)
		n += m.kind == UET_PKT_CREDIT;
	return n;
}

/* Hand B a SYN CREDIT_REQ for the given need, as A's PDC 5 would send it. */
static void
req_to_b(struct duo *d, uint32_t need, uint64_t now)
{
	struct uet_rx_meta m = { .src_ip = 0x0a000001, .ev = 49152 };
	uint8_t pkt[UET_PDS_CTRL_LEN];
	struct uet_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_CTRL;
	h.nh = UET_CTL_CREDIT_REQ;
	h.flags = UET_REQ_F_SYN;
	h.psn = 77;
	h.spdcid = 5;
	h.dpdcid = uet_syn_slot(0);
	h.payload32 = need;
	assert_int_equal(uet_hdr_encode(&h, pkt, sizeof(pkt)), UET_PDS_CTRL_LEN);
	assert_int_equal(uet_ep_read_pkt(d->b.ep, &m, pkt, sizeof(pkt), now), 0);
}

/* The pacer: one pull per quantum's time at 99 Gb/s; an idle pacer starts
 * when asked, with no burst for its idle time; served late, it catches up
 * one pull at most. A SYN CREDIT_REQ opens the target PDC. */
static void
test_pacer_timing(void **state)
{
	struct uet_ep_config c;
	const uint64_t q_ns = (uint64_t)QUANTUM * 8 * 1000 / 99000; /* 1342 */
	struct duo d;
	uint64_t t0 = 1000000;

	(void)state;
	duo_config(&c);
	assert_int_equal(duo_init(&d, &c), 0);
	req_to_b(&d, 10 * QUANTUM, t0);
	assert_int_equal(d.b.events[UET_PDC_EV_OPEN], 1);
	/* The first pull at once, the next a quantum later. */
	assert_int_equal(uet_ep_next_deadline(d.b.ep), t0);
	uet_ep_handle_timeout(d.b.ep, t0);
	assert_int_equal(credits_out(d.b.ep, t0), 1);
	assert_int_equal(uet_ep_next_deadline(d.b.ep), t0 + q_ns);
	uet_ep_handle_timeout(d.b.ep, t0 + q_ns);
	assert_int_equal(credits_out(d.b.ep, t0 + q_ns), 1);
	/* Served 4 pulls late: two now (one caught up), the next a quantum
	 * after this call. */
	uet_ep_handle_timeout(d.b.ep, t0 + 5 * q_ns);
	assert_int_equal(credits_out(d.b.ep, t0 + 5 * q_ns), 2);
	assert_int_equal(uet_ep_next_deadline(d.b.ep), t0 + 6 * q_ns);
	/* The rest, one per quantum, then the pacer stops. */
	uet_ep_handle_timeout(d.b.ep, t0 + 11 * q_ns);
	assert_int_equal(credits_out(d.b.ep, t0 + 11 * q_ns), 2);
	assert_int_equal(st(&d.b)->credit_granted_bytes, 6 * QUANTUM);
	for (int i = 0; i < 4; i++) {
		uint64_t t = uet_ep_next_deadline(d.b.ep);

		uet_ep_handle_timeout(d.b.ep, t);
		assert_int_equal(credits_out(d.b.ep, t), 1);
	}
	assert_int_equal(st(&d.b)->credit_granted_bytes, 10 * QUANTUM);
	assert_int_equal(st(&d.b)->tx_credit_pkts, 10);
	assert_int_equal(uet_ep_next_deadline(d.b.ep), UINT64_MAX);
	/* Asked again with nothing new: the last grant, at once. */
	req_to_b(&d, 10 * QUANTUM, t0 + 20 * q_ns);
	assert_int_equal(credits_out(d.b.ep, t0 + 20 * q_ns), 1);
	duo_fini(&d);
}

/* A request for 2^31 bytes or more beyond the grant (no sender asks that:
 * its own counters compare mod 2^32 the same way) would read as behind the
 * grant and stop the pacer for that PDC; it is dropped and counted, and the
 * real need is granted in full. Also where the receiver grants idle
 * senders ahead (eqds): a newer need may then lie behind the grant, by at
 * most what was granted ahead. */
static void
pump_b(struct duo *d, uint64_t *t)
{
	while (uet_ep_next_deadline(d->b.ep) != UINT64_MAX) {
		*t = uet_ep_next_deadline(d->b.ep);
		uet_ep_handle_timeout(d->b.ep, *t);
		(void)credits_out(d->b.ep, *t);
	}
}

static void
test_need_far_ahead_dropped(void **state)
{
	(void)state;
	for (int eqds = 0; eqds <= 1; eqds++) {
		const uint64_t ahead = eqds ? SPEC_BYTES : 0;
		struct uet_ep_config c;
		struct duo d;
		uint64_t t = 1000000;
		uint32_t granted, need;

		duo_config(&c);
		if (eqds)
			c.cc = uet_cc_find("eqds");
		assert_int_equal(duo_init(&d, &c), 0);
		req_to_b(&d, 10 * QUANTUM, t);
		pump_b(&d, &t);
		granted = (uint32_t)st(&d.b)->credit_granted_bytes;
		assert_int_equal(granted, 10 * QUANTUM + ahead);
		/* The need grows past the grant; before the pacer grants it, a
		 * newer need (by less than 2^31) 2^31 + 100 B beyond the grant. */
		need = granted + 2 * QUANTUM;
		req_to_b(&d, need, t);
		req_to_b(&d, granted + (1u << 31) + 100, t);
		assert_int_equal(st(&d.b)->rx_malformed, 1);
		/* The real need is granted in full, then the window ahead again. */
		pump_b(&d, &t);
		assert_int_equal(st(&d.b)->credit_granted_bytes, need + ahead);
		assert_int_equal(st(&d.b)->credit_idle_bytes, 2 * ahead);
		assert_int_equal(st(&d.b)->rx_malformed, 1);
		duo_fini(&d);
	}
}

/* Send message tag (len bytes) from A after an idle gap; the time from
 * the send to its delivery at B. */
static uint64_t
msg_latency(struct duo *d, uint64_t tag, uint32_t len)
{
	uint64_t t0;

	/* The duo's clock stops at the last event: move it on by hand, as
	 * nothing is due before the limit asked for. */
	(void)duo_run(d, d->now + 1000000);
	d->now += 100000;
	t0 = d->now;
	assert_int_equal(duo_send(d, &d->a, tag, len, 0), 0);
	while (d->b.rx[tag].done == 0) {
		uint64_t until = d->now + 50;

		assert_true(d->now < t0 + 1000000);
		(void)duo_run(d, until);
		if (d->b.rx[tag].done == 0 && d->now < until)
			d->now = until;
	}
	assert_true(duo_msg_exact(&d->b, tag, len));
	return d->now - t0;
}

/* Messages one at a time on one PDC, each after an idle gap. The first
 * goes on the speculative window, the second asks for credit and waits a
 * round trip for it. With slow pulls the receiver then grants the idle
 * sender the speculative credit ahead, so the third and later go at once,
 * as the first did; without, each waits a round trip like the second. */
static void
test_idle_sender_goes_at_once(void **state)
{
	const uint32_t len = 32 << 10;
	const uint64_t rtt_ns = 2000; /* the duo's wire, both ways */

	(void)state;
	for (int slow = 1; slow >= 0; slow--) {
		struct uet_cc_eqds_cfg e = { .no_slow_pulls = !slow };
		struct uet_ep_config c;
		uint64_t lat[5];
		struct duo d;

		duo_config(&c);
		c.cc = uet_cc_find("eqds");
		c.cc_cfg = &e;
		assert_int_equal(duo_init(&d, &c), 0);
		for (int i = 0; i < 5; i++)
			lat[i] = msg_latency(&d, 10 + i, len);
		assert_true(duo_run(&d, d.now + 1000000));
		print_message("# slow pulls %s: %" PRIu64 " / %" PRIu64 " / %" PRIu64 " / %" PRIu64
			      " / %" PRIu64 " ns; %" PRIu64 " B ahead, %" PRIu64 " CREDITs\n",
			      slow ? "on" : "off", lat[0], lat[1], lat[2], lat[3], lat[4],
			      st(&d.b)->credit_idle_bytes, st(&d.b)->tx_credit_pkts);
		assert_true(lat[1] >= lat[0] + rtt_ns);
		for (int i = 2; i < 5; i++)
			assert_int_equal(lat[i], slow ? lat[0] : lat[1]);
		/* Every message past the first asked (its need grew), none
		 * had to ask twice, and the idle grants stop at the window. */
		assert_int_equal(st(&d.a)->tx_credit_req_pkts, 4);
		assert_int_equal(st(&d.a)->credit_retries, 0);
		assert_int_equal(st(&d.b)->rx_malformed, 0);
		assert_true(data_wire_sent(&d.a) <= SPEC_BYTES + st(&d.b)->credit_granted_bytes);
		if (slow) {
			/* Ahead: the window after the second message, and each
			 * of the three later ones topped up again. */
			assert_int_equal(st(&d.b)->credit_idle_bytes, SPEC_BYTES + 3 * wire_bytes(len));
		} else {
			assert_int_equal(st(&d.b)->credit_idle_bytes, 0);
		}
		duo_fini(&d);
	}
}

/* A CREDIT nobody asked for, or for no PDC, is dropped and counted. */
static void
test_unasked_credit_dropped(void **state)
{
	struct uet_ep_config c;
	struct uet_rx_meta m = { .src_ip = 0x0a000002, .ev = 49152 };
	struct uet_hdr h;
	uint8_t pkt[UET_PDS_CTRL_LEN];
	struct duo d;
	int n;

	(void)state;
	duo_config(&c); /* fixed window: no credit */
	assert_int_equal(duo_init(&d, &c), 0);
	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_CTRL;
	h.nh = UET_CTL_CREDIT;
	h.spdcid = 7;
	h.dpdcid = 3;
	h.payload32 = 1 << 20;
	n = uet_hdr_encode(&h, pkt, sizeof(pkt));
	assert_int_equal(n, UET_PDS_CTRL_LEN);
	assert_int_equal(uet_ep_read_pkt(d.a.ep, &m, pkt, (size_t)n, 0), UET_ERR_NO_PDC);
	assert_int_equal(st(&d.a)->rx_unknown_pdc, 1);

	/* A live PDC whose CC takes no credit. */
	assert_int_equal(duo_send(&d, &d.a, 6, 4096, 0), 0);
	assert_true(duo_run(&d, 1000000));
	{
		uint32_t cur = 0;
		struct uet_pdc_info info;

		assert_true(uet_ep_pdc_iter(d.a.ep, &cur, &info));
		h.dpdcid = info.pdc_id;
		h.spdcid = info.peer_pdc_id;
	}
	n = uet_hdr_encode(&h, pkt, sizeof(pkt));
	assert_int_equal(uet_ep_read_pkt(d.a.ep, &m, pkt, (size_t)n, d.now),
			 UET_ERR_UNSUPPORTED);
	assert_int_equal(st(&d.a)->rx_unsupported, 1);
	assert_true(duo_msg_exact(&d.b, 6, 4096));
	duo_fini(&d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sender_sends_what_was_granted),
		cmocka_unit_test(test_lost_requests_and_grants),
		cmocka_unit_test(test_pacer_round_robin),
		cmocka_unit_test(test_pacer_timing),
		cmocka_unit_test(test_no_grants_gives_up),
		cmocka_unit_test(test_unasked_credit_dropped),
		cmocka_unit_test(test_unmoving_grant_gives_up),
		cmocka_unit_test(test_need_far_ahead_dropped),
		cmocka_unit_test(test_idle_sender_goes_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
