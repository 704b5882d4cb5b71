/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive-side matching (uet_ep_post_recv): tags under ignore bits, the
 * source, tagged against untagged, posting order, the unexpected queue and
 * its bounds (messages refused, then delivered once, when it is full or a
 * message is too long to hold), truncation, cancel, and MPI's rule that a
 * PDC's messages match in the order they were sent whatever order their
 * packets arrive in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "duo.h"

#define MAX_DONE 64

static struct uet_recv_done done[MAX_DONE];
static uint32_t n_done;

static void
on_recv_done(void *user, const struct uet_recv_done *d)
{
	(void)user;
	assert_true(n_done < MAX_DONE);
	done[n_done++] = *d;
}

static void
config(struct uet_ep_config *c)
{
	duo_config(c);
	c->max_posted_recvs = 16;
	c->max_unexp_msgs = 4;
	c->unexp_msg_bytes = 16384;
	c->cb.recv_done = on_recv_done;
	n_done = 0;
}

/* In send order, a sender that gives up after 3 timeouts and a target
 * that drops a PDC idle for 2 ms: PDCs that go away. */
static void
config_dying(struct uet_ep_config *c)
{
	config(c);
	c->match_in_order = true;
	c->rto_min_ns = 20000;
	c->max_rto_retx = 3;
	c->pdc_target_idle_ns = 2000000;
}

/* A message from a to b: the duo pattern of pat_tag, sent with tag (and as
 * UET_SEND when untagged). */
static void
send_msg(struct duo *d, uint64_t tag, uint64_t pat_tag, uint32_t len, bool untagged)
{
	assert_int_equal(duo_send_as(d, &d->a, tag, pat_tag, len, 0, untagged,
				     (void *)(uintptr_t)pat_tag), 0);
}

static uint64_t
post(struct duo *d, uint8_t *buf, uint32_t len, bool tagged, uint64_t tag, uint64_t ignore,
     uint32_t src, uintptr_t user)
{
	struct uet_recv_req q = { .buf = buf, .len = len, .tagged = tagged, .tag = tag,
				  .ignore = ignore, .src_ip = src, .user = (void *)user };
	uint64_t h;

	assert_int_equal(uet_ep_post_recv(d->b.ep, &q, &h, d->now), 0);
	return h;
}

static const struct uet_recv_done *
done_of(uintptr_t user)
{
	uint32_t i;

	for (i = 0; i < n_done; i++)
		if ((uintptr_t)done[i].user == user)
			return &done[i];
	return NULL;
}

static void
expect_bytes(const uint8_t *buf, uint64_t pat_tag, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		assert_int_equal(buf[i], duo_pattern(pat_tag, i));
}

/* The receive 'user' completed whole: len bytes of the pattern pat. */
static void
expect_recv(uintptr_t user, const uint8_t *buf, uint64_t pat, uint32_t len)
{
	const struct uet_recv_done *x = done_of(user);

	assert_non_null(x);
	assert_int_equal(x->status, 0);
	assert_int_equal(x->len, len);
	expect_bytes(buf, pat, len);
}

/* Tags under ignore bits, the source, tagged against untagged, and the
 * oldest matching receive first. */
static void
test_match_rules(void **state)
{
	static uint8_t b1[8192], b2[8192], b3[8192], b4[8192], b5[100];
	struct uet_ep_config c;
	struct duo d;
	const struct uet_recv_done *x;

	(void)state;
	config(&c);
	assert_int_equal(duo_init(&d, &c), 0);
	/* r1 wants another source; r2 tag 0x1200 ignoring the low byte; r3
	 * the same, posted later; r4 untagged; r5 an exact tag. */
	post(&d, b1, sizeof(b1), true, 0x1234, 0, 0x0a0000ee, 1);
	post(&d, b2, sizeof(b2), true, 0x1200, 0xff, 0, 2);
	post(&d, b3, sizeof(b3), true, 0x1200, 0xff, 0, 3);
	post(&d, b4, sizeof(b4), false, 0, 0, 0, 4);
	post(&d, b5, sizeof(b5), true, 0x77, 0, d.a.ip, 5);
	send_msg(&d, 0x1234, 11, 5000, false);   /* r2: r1's source differs */
	send_msg(&d, 0x12ab, 12, 6000, false);   /* r3 */
	send_msg(&d, 0x9999, 13, 3000, true);    /* untagged: r4, tag ignored */
	send_msg(&d, 0x77, 14, 100, false);      /* r5 */
	assert_true(duo_run(&d, 10000000));
	assert_int_equal(n_done, 4);
	x = done_of(2);
	assert_non_null(x);
	assert_int_equal(x->status, 0);
	assert_true(x->tagged);
	assert_int_equal(x->tag, 0x1234);
	assert_int_equal(x->len, 5000);
	assert_int_equal(x->src_ip, d.a.ip);
	expect_bytes(b2, 11, 5000);
	x = done_of(3);
	assert_non_null(x);
	assert_int_equal(x->tag, 0x12ab);
	expect_bytes(b3, 12, 6000);
	x = done_of(4);
	assert_non_null(x);
	assert_false(x->tagged);
	assert_int_equal(x->tag, 0);
	assert_int_equal(x->len, 3000);
	expect_bytes(b4, 13, 3000);
	x = done_of(5);
	assert_non_null(x);
	assert_int_equal(x->len, 100);
	expect_bytes(b5, 14, 100);
	assert_null(done_of(1));
	/* The sender's side is unchanged by matching. */
	assert_int_equal(d.a.tx_done_ok, 4);
	duo_fini(&d);
}

/* A message that arrives before its receive waits in the unexpected queue
 * and lands when the receive is posted (inside the post: it is whole);
 * the queue's bound and the longest message it holds refuse what does
 * not fit, which the senders retry and which arrives exactly once. */
static void
test_unexpected(void **state)
{
	static uint8_t b[8][65536];
	struct uet_ep_config c;
	struct duo d;
	uint32_t i;

	(void)state;
	config(&c);
	c.rto_min_ns = 20000;
	assert_int_equal(duo_init(&d, &c), 0);
	/* 6 messages of 8 KiB for 4 places, and one of 40 KiB, longer than
	 * a place (16 KiB). */
	for (i = 0; i < 6; i++)
		send_msg(&d, 100 + i, 100 + i, 8192, false);
	send_msg(&d, 200, 200, 40960, false);
	/* Not idle: the refused wait at their senders. */
	assert_false(duo_run(&d, d.now + 200000));
	assert_int_equal(n_done, 0);
	assert_true(uet_ep_stats(d.b.ep)->rx_no_resources > 0);
	/* The four held complete as their receives are posted. */
	for (i = 0; i < 6 && n_done < 4; i++)
		post(&d, b[i], 8192, true, 100 + i, 0, 0, 100 + i);
	assert_int_equal(n_done, 4);
	for (i = 0; i < 4; i++) {
		const struct uet_recv_done *x = done_of((uintptr_t)done[i].user);

		assert_int_equal(x->status, 0);
		expect_bytes(b[x->tag - 100], x->tag, 8192);
	}
	/* The rest: posted now, retried by their senders. */
	for (; i < 6; i++)
		post(&d, b[i], 8192, true, 100 + i, 0, 0, 100 + i);
	post(&d, b[6], 65536, true, 200, 0, 0, 200);
	assert_true(duo_run(&d, d.now + 100000000));
	assert_int_equal(n_done, 7);
	for (i = 0; i < 6; i++) {
		const struct uet_recv_done *x = done_of(100 + i);

		assert_non_null(x);
		assert_int_equal(x->status, 0);
		expect_bytes(b[i], 100 + i, 8192);
	}
	assert_int_equal(done_of(200)->len, 40960);
	expect_bytes(b[6], 200, 40960);
	assert_int_equal(d.a.tx_done_ok, 7);
	assert_int_equal(d.a.tx_done_err, 0);
	duo_fini(&d);
}

/* A buffer shorter than the message: what fits, UET_ERR_TRUNCATED; and
 * canceling a receive no message took. */
static void
test_truncate_and_cancel(void **state)
{
	static uint8_t b1[3000], b2[100], b3[100];
	struct uet_ep_config c;
	struct duo d;
	uint64_t h2, h3;

	(void)state;
	config(&c);
	assert_int_equal(duo_init(&d, &c), 0);
	post(&d, b1, sizeof(b1), true, 1, 0, 0, 1);
	h2 = post(&d, b2, sizeof(b2), true, 2, 0, 0, 2);
	send_msg(&d, 1, 1, 10000, false);
	assert_true(duo_run(&d, 10000000));
	assert_int_equal(n_done, 1);
	assert_int_equal(done[0].status, UET_ERR_TRUNCATED);
	assert_int_equal(done[0].len, 3000);
	assert_int_equal(done[0].msg_len, 10000);
	expect_bytes(b1, 1, 3000);
	assert_int_equal(uet_ep_cancel_recv(d.b.ep, h2, d.now), 0);
	assert_int_equal(n_done, 2);
	assert_int_equal(done[1].status, UET_ERR_CANCELED);
	assert_int_equal((uintptr_t)done[1].user, 2);
	/* Twice, or a handle reused by another receive: refused. */
	assert_int_equal(uet_ep_cancel_recv(d.b.ep, h2, d.now), UET_ERR_INVAL);
	h3 = post(&d, b3, sizeof(b3), true, 3, 0, 0, 3);
	assert_int_equal(uet_ep_cancel_recv(d.b.ep, h2, d.now), UET_ERR_INVAL);
	/* A receive that took a message that is still arriving completes as
	 * it would. */
	send_msg(&d, 3, 3, 50, false);
	assert_true(duo_run(&d, d.now + 10000000));
	assert_int_equal(uet_ep_cancel_recv(d.b.ep, h3, d.now), UET_ERR_INVAL);
	assert_int_equal(n_done, 3);
	assert_int_equal(done[2].status, 0);
	assert_string_equal(uet_strerror(UET_ERR_TRUNCATED), "message truncated");
	duo_fini(&d);
}

/* Two messages with one tag, the second's packets arriving first: under
 * match_in_order the first receive posted takes the first message sent;
 * without it, the first to arrive. */
static uint32_t delay_msg_pkts;

static bool
first_msg_late(struct duo *d, struct duo_pkt *p, bool a_to_b)
{
	(void)d;
	if (a_to_b && p->meta.kind == UET_PKT_DATA && (uintptr_t)p->meta.msg_user == 21) {
		p->deliver_ns += 50000;
		delay_msg_pkts++;
	}
	return true;
}

static void
run_order(bool in_order, uint64_t *first_got)
{
	static uint8_t b1[8192], b2[8192];
	struct uet_ep_config c;
	struct duo d;

	config(&c);
	c.match_in_order = in_order;
	assert_int_equal(duo_init(&d, &c), 0);
	d.filter = first_msg_late;
	delay_msg_pkts = 0;
	post(&d, b1, sizeof(b1), true, 7, 0, 0, 1);
	post(&d, b2, sizeof(b2), true, 7, 0, 0, 2);
	send_msg(&d, 7, 21, 8192, false);
	send_msg(&d, 7, 22, 8192, false);
	assert_true(duo_run(&d, 10000000));
	assert_int_equal(delay_msg_pkts, 2);
	assert_int_equal(n_done, 2);
	assert_int_equal(done_of(1)->status, 0);
	assert_int_equal(done_of(2)->status, 0);
	*first_got = b1[0] == duo_pattern(21, 0) ? 21 : b1[0] == duo_pattern(22, 0) ? 22 : 0;
	expect_bytes(b1, *first_got, 8192);
	expect_bytes(b2, *first_got == 21 ? 22 : 21, 8192);
	duo_fini(&d);
}

/* The PDC's first message with its first packet (the start PSN) late:
 * its other packet arrives first and is held aside, as no turn is known;
 * the start packet then says where turns start, and that message, already
 * known, takes its turn (the fault swarm, seed 2761963: it waited
 * forever, and every later message of the PDC with it). */
static uint32_t start_pkts_delayed;

static bool
start_pkt_late(struct duo *d, struct duo_pkt *p, bool a_to_b)
{
	(void)d;
	if (a_to_b && p->meta.kind == UET_PKT_DATA && p->meta.msg_offset == 0 &&
	    (uintptr_t)p->meta.msg_user == 51) {
		p->deliver_ns += 3000;
		start_pkts_delayed++;
	}
	return true;
}

static void
test_first_packet_late_in_order(void **state)
{
	static uint8_t b1[8192], b2[8192];
	struct uet_ep_config c;
	struct duo d;

	(void)state;
	config(&c);
	c.match_in_order = true;
	assert_int_equal(duo_init(&d, &c), 0);
	d.filter = start_pkt_late;
	start_pkts_delayed = 0;
	post(&d, b1, sizeof(b1), true, 5, 0, 0, 1);
	post(&d, b2, sizeof(b2), true, 5, 0, 0, 2);
	send_msg(&d, 5, 51, 8192, false);
	send_msg(&d, 5, 52, 8192, false);
	assert_true(duo_run(&d, 10000000));
	assert_int_equal(start_pkts_delayed, 1);
	assert_int_equal(n_done, 2);
	expect_bytes(b1, 51, 8192);
	expect_bytes(b2, 52, 8192);
	duo_fini(&d);
}

static void
test_send_order(void **state)
{
	uint64_t got;

	(void)state;
	run_order(true, &got);
	assert_int_equal(got, 21);
	run_order(false, &got);
	assert_int_equal(got, 22);
}

/* Under match_in_order, a message whose turn never comes (the one before
 * it is lost for good and its PDC goes away at the target) is matched
 * when the PDC goes: whole messages are not held forever. */
static bool
drop_first_msg(struct duo *d, struct duo_pkt *p, bool a_to_b)
{
	(void)d;
	return !(a_to_b && (p->meta.kind == UET_PKT_DATA || p->meta.kind == UET_PKT_RETX) &&
		 (uintptr_t)p->meta.msg_user == 31);
}

static void
test_pdc_gone_ends_the_wait(void **state)
{
	static uint8_t b[4096];
	struct uet_ep_config c;
	struct duo d;

	(void)state;
	config_dying(&c);
	assert_int_equal(duo_init(&d, &c), 0);
	d.filter = drop_first_msg;
	post(&d, b, sizeof(b), true, 32, 0, 0, 1);
	send_msg(&d, 31, 31, 1000, false);
	send_msg(&d, 32, 32, 1000, false);
	duo_run(&d, d.now + 1000000);
	/* 32 arrived and was acknowledged, but waits for 31's turn. */
	assert_int_equal(d.a.tx_done_ok, 1);
	assert_int_equal(n_done, 0);
	duo_run(&d, d.now + 100000000);
	assert_int_equal(d.a.tx_done_err, 1);
	assert_int_equal(n_done, 1);
	assert_int_equal(done[0].status, 0);
	assert_int_equal(done[0].tag, 32);
	expect_bytes(b, 32, 1000);
	duo_fini(&d);
}

/* A receive posted from recv_done (as an MPI library reposts): 12
 * messages of one tag through a single posted receive at a time, each
 * reposted when the last lands, the rest waiting unexpected or refused
 * meanwhile; each lands once, in send order under match_in_order. */
static struct duo *repost_d;
static uint8_t repost_buf[12][3000];
static uint32_t repost_n;

static void
on_done_repost(void *user, const struct uet_recv_done *x)
{
	struct uet_recv_req q = { .tagged = true, .tag = 9, .len = 3000 };

	(void)user;
	assert_int_equal(x->status, 0);
	done[n_done++] = *x;
	if (++repost_n < 12) {
		q.buf = repost_buf[repost_n];
		q.user = (void *)(uintptr_t)repost_n;
		assert_int_equal(uet_ep_post_recv(repost_d->b.ep, &q, NULL, repost_d->now), 0);
	}
}

static void
test_repost_from_callback(void **state)
{
	struct uet_ep_config c;
	struct duo d;
	uint32_t i;

	(void)state;
	config(&c);
	c.match_in_order = true;
	c.max_unexp_msgs = 3;
	c.rto_min_ns = 20000;
	c.cb.recv_done = on_done_repost;
	assert_int_equal(duo_init(&d, &c), 0);
	repost_d = &d;
	repost_n = 0;
	post(&d, repost_buf[0], 3000, true, 9, 0, 0, 0);
	for (i = 0; i < 12; i++)
		send_msg(&d, 9, 40 + i, 3000, false);
	assert_true(duo_run(&d, 100000000));
	assert_int_equal(n_done, 12);
	for (i = 0; i < 12; i++) {
		assert_int_equal((uintptr_t)done[i].user, i);
		expect_bytes(repost_buf[i], 40 + i, 3000);
	}
	assert_int_equal(d.a.tx_done_ok, 12);
	duo_fini(&d);
}

/* A callback cancels a receive (the libfabric provider does, when a
 * failure ends an operation that has one posted): the canceled one reports
 * UET_ERR_CANCELED at once, from inside, and the rest go on. */
static uint64_t cancel_h;

static void
on_done_cancel(void *user, const struct uet_recv_done *x)
{
	(void)user;
	done[n_done++] = *x;
	if ((uintptr_t)x->user == 50)
		assert_int_equal(uet_ep_cancel_recv(repost_d->b.ep, cancel_h, repost_d->now), 0);
}

static void
test_cancel_from_callback(void **state)
{
	static uint8_t b1[100], b2[100], b3[100];
	struct uet_ep_config c;
	struct duo d;

	(void)state;
	config(&c);
	c.cb.recv_done = on_done_cancel;
	assert_int_equal(duo_init(&d, &c), 0);
	repost_d = &d;
	post(&d, b1, sizeof(b1), true, 50, 0, 0, 50);
	cancel_h = post(&d, b2, sizeof(b2), true, 51, 0, 0, 51);
	post(&d, b3, sizeof(b3), true, 52, 0, 0, 52);
	send_msg(&d, 50, 50, 100, false);
	send_msg(&d, 52, 52, 100, false);
	assert_true(duo_run(&d, d.now + 10000000));
	assert_int_equal(n_done, 3);
	assert_int_equal(done_of(50)->status, 0);
	assert_int_equal(done_of(51)->status, UET_ERR_CANCELED);
	assert_int_equal(done_of(52)->status, 0);
	expect_bytes(b3, 52, 100);
	/* Canceled once: the handle is gone. */
	assert_int_equal(uet_ep_cancel_recv(d.b.ep, cancel_h, d.now), UET_ERR_INVAL);
	duo_fini(&d);
}

/* Header data (libfabric's remote CQ data): the first packet carries it,
 * whenever it arrives; a zero-length message carries it alone; a message
 * without it reports none; a message taken from the unexpected queue keeps
 * it. */
static bool
som_late(struct duo *d, struct duo_pkt *p, bool a_to_b)
{
	(void)d;
	if (a_to_b && p->meta.kind == UET_PKT_DATA && p->meta.msg_offset == 0 &&
	    (uintptr_t)p->meta.msg_user == 31)
		p->deliver_ns += 30000;
	return true;
}

static void
send_data(struct duo *d, uint64_t tag, uint32_t len, bool has_data, uint64_t data,
	  uintptr_t user)
{
	static uint8_t src[20000];
	struct uet_send_req r = { .dst_ip = d->b.ip, .buf = src, .len = len, .tag = tag,
				  .has_data = has_data, .data = data, .user = (void *)user };
	uint32_t i;

	for (i = 0; i < sizeof(src); i++)
		src[i] = duo_pattern(7, i);
	assert_int_equal(uet_ep_send(d->a.ep, &r, d->now), 0);
}

static void
test_header_data(void **state)
{
	static uint8_t b1[20000], b2[16], b3[100], b4[100];
	struct uet_ep_config c;
	struct duo d;

	(void)state;
	config(&c);
	assert_int_equal(duo_init(&d, &c), 0);
	d.filter = som_late;
	post(&d, b1, sizeof(b1), true, 31, 0, 0, 31);
	post(&d, b2, sizeof(b2), true, 32, 0, 0, 32);
	post(&d, b3, sizeof(b3), true, 33, 0, 0, 33);
	send_data(&d, 31, 12000, true, 0x1122334455667788ull, 31);
	send_data(&d, 32, 0, true, 0xfeedull, 32);
	send_data(&d, 33, 100, false, 0, 33);
	send_data(&d, 34, 50, true, 0x3434ull, 34); /* no receive yet: held */
	assert_true(duo_run(&d, d.now + 10000000));
	assert_int_equal(n_done, 3);
	assert_true(done_of(31)->has_data);
	assert_true(done_of(31)->data == 0x1122334455667788ull);
	assert_int_equal(done_of(31)->len, 12000);
	expect_bytes(b1, 7, 12000);
	assert_true(done_of(32)->has_data);
	assert_true(done_of(32)->data == 0xfeedull);
	assert_int_equal(done_of(32)->len, 0);
	assert_false(done_of(33)->has_data);
	assert_true(done_of(33)->data == 0);
	post(&d, b4, sizeof(b4), true, 34, 0, 0, 34);
	assert_int_equal(n_done, 4);
	assert_true(done_of(34)->has_data);
	assert_true(done_of(34)->data == 0x3434ull);
	expect_bytes(b4, 7, 50);
	duo_fini(&d);
}

/* In send order, a message that no receive takes and no buffer can hold
 * (longer than unexp_msg_bytes) still takes its turn, as a header: the
 * messages behind it match (MPI's isend of a long message, then a
 * barrier), a wildcard receive posted later takes it, not a later one,
 * and its bytes arrive exact once it has a receive. */
static void
test_deferred_long_message(void **state)
{
	static uint8_t big[65536], small[100], any[65536], late[100];
	struct uet_ep_config c;
	struct duo d;

	(void)state;
	config(&c);
	c.match_in_order = true;
	c.rto_min_ns = 20000;
	assert_int_equal(duo_init(&d, &c), 0);
	send_msg(&d, 300, 300, 40960, false); /* 2.5 x unexp_msg_bytes */
	send_msg(&d, 301, 301, 100, false);
	send_msg(&d, 302, 302, 40960, false);
	post(&d, small, sizeof(small), true, 301, 0, 0, 301);
	assert_false(duo_run(&d, d.now + 2000000));
	/* 301 matched behind 300, which is refused: not held, not lost. */
	assert_int_equal(n_done, 1);
	assert_int_equal(done_of(301)->status, 0);
	expect_bytes(small, 301, 100);
	assert_true(uet_ep_stats(d.b.ep)->rx_no_resources > 0);
	/* A receive for "any tag from 0x300 up" takes the oldest: 300. */
	post(&d, any, sizeof(any), true, 0x100, 0xff, 0, 1);
	post(&d, big, sizeof(big), true, 302, 0, 0, 302);
	assert_true(duo_run(&d, d.now + 100000000));
	assert_int_equal(n_done, 3);
	assert_int_equal(done_of(1)->tag, 300);
	expect_recv(1, any, 300, 40960);
	expect_recv(302, big, 302, 40960);
	assert_int_equal(d.a.tx_done_ok, 3);
	assert_int_equal(d.a.tx_done_err, 0);
	/* Nothing left behind: a later message matches at once. */
	send_msg(&d, 303, 303, 100, false);
	post(&d, late, sizeof(late), true, 303, 0, 0, 303);
	assert_true(duo_run(&d, d.now + 10000000));
	assert_int_equal(done_of(303)->status, 0);
	duo_fini(&d);
}

/* Peek and claim (libfabric's FI_PEEK and FI_CLAIM: MPI_Iprobe,
 * MPI_Improbe and MPI_Mrecv): a peek reports the message a receive would
 * take (oldest first, tag under ignore bits, source, tagged or not) with
 * its length, header data and, when held whole, its bytes, and changes
 * nothing; a claimed message is taken by no other receive or peek, only by
 * the receive that names it, also when it was deferred for want of a
 * buffer (its bytes arrive then). */
static struct uet_peek
peek(struct duo *d, bool tagged, uint64_t tag, uint64_t ignore, uint32_t src, int want)
{
	struct uet_recv_req q = { .tagged = tagged, .tag = tag, .ignore = ignore, .src_ip = src };
	struct uet_peek pk;

	memset(&pk, 0, sizeof(pk));
	assert_int_equal(uet_ep_peek(d->b.ep, &q, &pk), want);
	return pk;
}

static void
test_peek_and_claim(void **state)
{
	static uint8_t b41[3000], b43[65536], b44[16], b42[8192], other[8192];
	struct uet_ep_config c;
	struct uet_peek pk, pk43, pk44;
	struct uet_recv_req q = { 0 };
	struct duo d;
	uint64_t h;
	uint32_t i;

	(void)state;
	config(&c);
	c.match_in_order = true;
	c.rto_min_ns = 20000;
	assert_int_equal(duo_init(&d, &c), 0);
	(void)peek(&d, true, 0, ~0ull, 0, UET_ERR_NO_MSG);
	send_data(&d, 0x41, 3000, true, 0x4141ull, 41);
	send_msg(&d, 0x42, 0x42, 5000, false);
	send_msg(&d, 0x43, 0x43, 40960, false); /* longer than a buffer: deferred */
	send_data(&d, 0x44, 0, true, 0x4444ull, 44);
	send_msg(&d, 0x45, 0x45, 0, false); /* no bytes, no header data */
	assert_false(duo_run(&d, d.now + 2000000));
	assert_int_equal(n_done, 0);
	/* The oldest of any tag 0x4?, as a receive would take it. */
	pk = peek(&d, true, 0x40, 0x0f, 0, 0);
	assert_int_equal(pk.tag, 0x41);
	assert_true(pk.tagged);
	assert_int_equal(pk.msg_len, 3000);
	assert_int_equal(pk.src_ip, d.a.ip);
	assert_true(pk.has_data);
	assert_true(pk.data == 0x4141ull);
	assert_non_null(pk.bytes);
	expect_bytes(pk.bytes, 7, 3000);
	assert_int_equal(pk.head_len, UET_PEEK_HEAD_BYTES);
	expect_bytes(pk.head, 7, UET_PEEK_HEAD_BYTES);
	/* Peeking again finds it again; other sources, untagged receives and
	 * other tags find nothing. */
	assert_true(peek(&d, true, 0x41, 0, d.a.ip, 0).handle == pk.handle);
	(void)peek(&d, true, 0x41, 0, 0x0a0000ee, UET_ERR_NO_MSG);
	(void)peek(&d, false, 0, 0, 0, UET_ERR_NO_MSG);
	(void)peek(&d, true, 0x46, 0, 0, UET_ERR_NO_MSG);
	/* Claimed: the next peek skips it, a receive for its tag does not
	 * take it, a second claim is refused. */
	assert_int_equal(uet_ep_claim(d.b.ep, pk.handle), 0);
	assert_int_equal(uet_ep_claim(d.b.ep, pk.handle), UET_ERR_INVAL);
	assert_int_equal(peek(&d, true, 0x40, 0x0f, 0, 0).tag, 0x42);
	h = post(&d, other, sizeof(other), true, 0x41, 0, 0, 99);
	assert_int_equal(n_done, 0);
	assert_int_equal(uet_ep_cancel_recv(d.b.ep, h, d.now), 0);
	assert_int_equal(n_done, 1);
	assert_int_equal(done[0].status, UET_ERR_CANCELED);
	/* The receive that names it takes it, at once (it is whole). */
	q.buf = b41;
	q.len = sizeof(b41);
	q.user = (void *)41;
	q.claim = pk.handle;
	assert_int_equal(uet_ep_post_recv(d.b.ep, &q, &h, d.now), 0);
	assert_int_equal(n_done, 2);
	expect_recv(41, b41, 7, 3000);
	assert_int_equal(done_of(41)->tag, 0x41);
	assert_true(done_of(41)->data == 0x4141ull);
	assert_int_equal(uet_ep_post_recv(d.b.ep, &q, &h, d.now), UET_ERR_INVAL);
	/* The deferred one: seen with its length, no bytes held; claimed
	 * and then received whole as its sender resends it. */
	pk43 = peek(&d, true, 0x43, 0, 0, 0);
	assert_int_equal(pk43.msg_len, 40960);
	assert_null(pk43.bytes);
	assert_false(pk43.has_data);
	/* Its first bytes, from the refused first packet. */
	assert_int_equal(pk43.head_len, UET_PEEK_HEAD_BYTES);
	expect_bytes(pk43.head, 0x43, UET_PEEK_HEAD_BYTES);
	pk44 = peek(&d, true, 0x44, 0, 0, 0);
	assert_int_equal(pk44.msg_len, 0);
	assert_int_equal(pk44.head_len, 0);
	assert_true(pk44.has_data);
	assert_true(pk44.data == 0x4444ull);
	/* A message of no bytes and no header data is seen too. */
	pk = peek(&d, true, 0x45, 0, 0, 0);
	assert_int_equal(pk.msg_len, 0);
	assert_false(pk.has_data);
	assert_int_equal(uet_ep_claim(d.b.ep, pk43.handle), 0);
	assert_int_equal(uet_ep_claim(d.b.ep, pk44.handle), 0);
	(void)peek(&d, true, 0x43, 0, 0, UET_ERR_NO_MSG);
	q.buf = b43;
	q.len = sizeof(b43);
	q.user = (void *)43;
	q.claim = pk43.handle;
	assert_int_equal(uet_ep_post_recv(d.b.ep, &q, &h, d.now), 0);
	q.buf = b44;
	q.len = sizeof(b44);
	q.user = (void *)44;
	q.claim = pk44.handle;
	assert_int_equal(uet_ep_post_recv(d.b.ep, &q, &h, d.now), 0);
	post(&d, b42, sizeof(b42), true, 0x42, 0, 0, 42);
	post(&d, b44, sizeof(b44), true, 0x45, 0, 0, 45);
	assert_true(duo_run(&d, d.now + 100000000));
	assert_int_equal(n_done, 6);
	expect_recv(43, b43, 0x43, 40960);
	expect_recv(44, b44, 0x44, 0);
	assert_true(done_of(44)->data == 0x4444ull);
	expect_recv(42, b42, 0x42, 5000);
	expect_recv(45, b44, 0x45, 0);
	assert_int_equal(d.a.tx_done_ok, 5);
	/* Nothing is left: every record and buffer came back. */
	for (i = 0; i < 4; i++)
		send_msg(&d, 0x50 + i, 0x50 + i, 8192, false);
	assert_true(duo_run(&d, d.now + 10000000));
	for (i = 0; i < 4; i++)
		assert_int_equal(peek(&d, true, 0x50 + i, 0, 0, 0).msg_len, 8192);
	duo_fini(&d);
}

/* A claimed message whose PDC goes away half received: the receive that
 * names it fails with the PDC's error, at once. */
static bool
drop_rest_of_61(struct duo *d, struct duo_pkt *p, bool a_to_b)
{
	(void)d;
	return !(a_to_b && (p->meta.kind == UET_PKT_DATA || p->meta.kind == UET_PKT_RETX) &&
		 (uintptr_t)p->meta.msg_user == 0x61 && p->meta.msg_offset > 0);
}

static void
test_claimed_message_of_a_dead_pdc(void **state)
{
	static uint8_t b[16384];
	struct uet_ep_config c;
	struct uet_recv_req q = { .buf = b, .len = sizeof(b), .user = (void *)61 };
	struct uet_peek pk;
	struct duo d;
	uint64_t h;

	(void)state;
	config_dying(&c);
	assert_int_equal(duo_init(&d, &c), 0);
	d.filter = drop_rest_of_61;
	send_msg(&d, 0x61, 0x61, 12000, false);
	duo_run(&d, d.now + 200000);
	pk = peek(&d, true, 0x61, 0, 0, 0);
	assert_int_equal(pk.msg_len, 12000);
	assert_null(pk.bytes); /* not whole */
	assert_int_equal(uet_ep_claim(d.b.ep, pk.handle), 0);
	duo_run(&d, d.now + 100000000);
	assert_int_equal(d.a.tx_done_err, 1);
	assert_int_equal(n_done, 0);
	q.claim = pk.handle;
	assert_int_equal(uet_ep_post_recv(d.b.ep, &q, &h, d.now), 0);
	assert_int_equal(n_done, 1);
	assert_true(done[0].status != 0);
	assert_int_equal(done[0].tag, 0x61);
	duo_fini(&d);
}

/* Bad calls and bounds. */
static void
test_bad_calls(void **state)
{
	static uint8_t b[16];
	struct uet_ep_config c;
	struct uet_recv_req q = { .buf = b, .len = sizeof(b), .tagged = true };
	struct uet_peek pk;
	struct duo d;
	const char *why = NULL;
	uint64_t h;
	uint32_t i;

	(void)state;
	duo_config(&c);
	assert_int_equal(duo_init(&d, &c), 0);
	/* No matching configured. */
	assert_int_equal(uet_ep_post_recv(d.b.ep, &q, &h, 0), UET_ERR_INVAL);
	assert_int_equal(uet_ep_cancel_recv(d.b.ep, 0, 0), UET_ERR_INVAL);
	assert_int_equal(uet_ep_peek(d.b.ep, &q, &pk), UET_ERR_INVAL);
	assert_int_equal(uet_ep_claim(d.b.ep, 1), UET_ERR_INVAL);
	duo_fini(&d);
	config(&c);
	assert_int_equal(duo_init(&d, &c), 0);
	q.buf = NULL;
	assert_int_equal(uet_ep_post_recv(d.b.ep, &q, &h, 0), UET_ERR_INVAL);
	q.buf = b;
	for (i = 0; i < 16; i++)
		assert_int_equal(uet_ep_post_recv(d.b.ep, &q, &h, 0), 0);
	assert_int_equal(uet_ep_post_recv(d.b.ep, &q, &h, 0), UET_ERR_NOBUFS);
	assert_int_equal(uet_ep_cancel_recv(d.b.ep, 0xfffff, 0), UET_ERR_INVAL);
	/* Claim handles that name nothing. */
	assert_int_equal(uet_ep_claim(d.b.ep, 0), UET_ERR_INVAL);
	assert_int_equal(uet_ep_claim(d.b.ep, 0xffffffffull), UET_ERR_INVAL);
	assert_int_equal(uet_ep_claim(d.b.ep, 1), UET_ERR_INVAL);
	q.claim = 1;
	assert_int_equal(uet_ep_post_recv(d.b.ep, &q, &h, 0), UET_ERR_INVAL);
	duo_fini(&d);
	config(&c);
	c.max_posted_recvs = 1u << 20;
	assert_int_equal(uet_ep_config_check(&c, &why), UET_ERR_INVAL);
	assert_non_null(strstr(why, "max_posted_recvs"));
	config(&c);
	assert_true(uet_ep_mem_bytes(&c) > 4 * 16384);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_rules),
		cmocka_unit_test(test_unexpected),
		cmocka_unit_test(test_truncate_and_cancel),
		cmocka_unit_test(test_send_order),
		cmocka_unit_test(test_first_packet_late_in_order),
		cmocka_unit_test(test_pdc_gone_ends_the_wait),
		cmocka_unit_test(test_repost_from_callback),
		cmocka_unit_test(test_cancel_from_callback),
		cmocka_unit_test(test_header_data),
		cmocka_unit_test(test_deferred_long_message),
		cmocka_unit_test(test_peek_and_claim),
		cmocka_unit_test(test_claimed_message_of_a_dead_pdc),
		cmocka_unit_test(test_bad_calls),
	};

	return cmocka_run_group_tests_name("match", tests, NULL, NULL);
}
