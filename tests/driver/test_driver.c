/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/driver: flows to messages, refused sends retried in order,
 * completions to the tracker and the measurement, streams, failures
 * handed to the receiver, the --verify pattern. A fake "send" records
 * what the driver asks for; the test plays the endpoints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "driver/driver.h"
#include "uet/err.h"

#define T0 1000000ULL

struct fake {
	uint32_t n;               /* sends accepted */
	uint64_t tag[256];
	uint32_t src[256], dst[256], len[256];
	int refuse;               /* refuse the next N sends with NOBUFS */
	int fail_with;            /* refuse every send with this error */
	uint32_t gave_up[16], n_gave_up;
};

static int
fake_send(void *ctx, const struct uet_wl_flow *f, struct uet_send_req *r, uint64_t now_ns)
{
	struct fake *k = ctx;

	(void)now_ns;
	if (k->fail_with)
		return k->fail_with;
	if (k->refuse > 0) {
		k->refuse--;
		return UET_ERR_NOBUFS;
	}
	assert_true(k->n < 256);
	k->tag[k->n] = r->tag;
	k->src[k->n] = f->src;
	k->dst[k->n] = f->dst;
	k->len[k->n] = r->len;
	k->n++;
	return 0;
}

static void
fake_gave_up(void *ctx, uint32_t flow, uint64_t now_ns)
{
	struct fake *k = ctx;

	(void)now_ns;
	k->gave_up[k->n_gave_up++] = flow;
}

static struct uet_wl *
build(enum uet_wl_pattern p, uint32_t hosts, uint64_t size, uint32_t iters, uint32_t par)
{
	struct uet_wl_spec s = { .pattern = p, .hosts = hosts, .size_bytes = size,
				 .iterations = iters, .parallel = par, .seed = 1 };
	struct uet_wl *wl;

	assert_int_equal(uet_wl_build(&s, &wl, NULL, 0), 0);
	return wl;
}

static struct uet_meas *
meas_of(const struct uet_wl *wl, const bool *local, bool repeat)
{
	struct uet_meas_flow mf[64];
	struct uet_meas_config c = { .flows = mf, .n_flows = wl->nflows, .rank_local = local,
				     .n_ranks = wl->hosts, .ev_base = 1000, .ev_count = 4,
				     .start_ns = T0, .repeat = repeat };
	struct uet_meas *m;
	uint32_t i;

	assert_true(wl->nflows <= 64);
	for (i = 0; i < wl->nflows; i++) {
		mf[i].src = wl->flows[i].src;
		mf[i].dst = wl->flows[i].dst;
		mf[i].size_bytes = wl->flows[i].size_bytes;
	}
	assert_int_equal(uet_meas_create(&c, &m), 0);
	return m;
}

/* A driver of c (its ctx the fake k, cleared) begun at T0 into m. */
static struct uet_drv *
start_drv(struct uet_drv_cfg *c, struct fake *k, struct uet_meas *m)
{
	struct uet_drv *d;

	memset(k, 0, sizeof(*k));
	c->ctx = k;
	assert_int_equal(uet_drv_create(c, &d), 0);
	uet_drv_begin(d, m, T0);
	return d;
}

static void
ack(struct uet_drv *d, uint64_t tag, uint64_t now, int status)
{
	struct uet_tx_done x = { .tag = tag, .submit_ns = T0, .done_ns = now, .status = status };

	uet_drv_tx_done(d, &x, now);
}

static void
deliver(struct uet_drv *d, uint64_t tag, uint32_t len, uint64_t now)
{
	struct uet_rx_msg x = { .tag = tag, .msg_len = len, .done_ns = now };

	uet_drv_rx_msg(d, &x);
}

/* Iterations of a pair with parallel 2: two messages out at t = 0, the
 * third only after the first is acknowledged; a refused send is retried
 * first, in order; done when all three are sent and received. */
static void
test_iterations_and_retry(void **state)
{
	struct uet_wl *wl = build(UET_WL_PAIR, 2, 1000, 3, 2);
	const bool local[2] = { true, true };
	struct uet_meas *m = meas_of(wl, local, false);
	struct uet_drv_cfg c = { .wl = wl, .local = local, .send = fake_send };
	struct fake k;
	struct uet_drv *d;
	struct uet_meas_flow_rec r;
	uint32_t i;

	(void)state;
	memset(&k, 0, sizeof(k));
	c.ctx = &k;
	assert_int_equal(uet_drv_create(&c, &d), 0);
	uet_drv_step(d, T0); /* not begun: nothing */
	assert_int_equal(k.n, 0);
	uet_drv_begin(d, m, T0);
	k.refuse = 1;
	uet_drv_step(d, T0);
	assert_int_equal(k.n, 0);      /* flow 0 refused: flow 1 waits behind it */
	uet_drv_step(d, T0 + 10);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.tag[0], 0);
	assert_int_equal(k.tag[1], 1);
	assert_int_equal(k.src[0], 0);
	assert_int_equal(k.dst[0], 1);
	assert_int_equal(k.len[0], 1000);
	uet_drv_step(d, T0 + 20);
	assert_int_equal(k.n, 2);      /* iteration 2 waits for iteration 0 */
	ack(d, 0, T0 + 100, 0);
	uet_drv_step(d, T0 + 110);
	assert_int_equal(k.n, 3);
	assert_int_equal(k.tag[2], 2);
	for (i = 0; i < 3; i++)
		deliver(d, i, 1000, T0 + 200 + i);
	assert_false(uet_drv_done(d));
	ack(d, 1, T0 + 300, 0);
	ack(d, 2, T0 + 301, 0);
	assert_true(uet_drv_done(d));
	assert_int_equal(uet_meas_flow_get(m, 2, &r), 0);
	assert_int_equal(r.status, UET_MEAS_OK);
	assert_int_equal(r.submit_ns, T0 + 110);
	assert_int_equal(uet_drv_stats(d)->progress, 6);
	uet_drv_destroy(d);
	uet_meas_destroy(m);
	uet_wl_free(wl);
}

/* Streams: `parallel` messages per stream, another after each
 * completion, tags numbered per stream; stop ends sending and recording. */
static void
test_streams(void **state)
{
	struct uet_wl *wl = build(UET_WL_PAIR, 2, 500, 1, 0);
	const bool local[2] = { true, true };
	struct uet_meas *m = meas_of(wl, local, true);
	struct uet_drv_cfg c = { .wl = wl, .local = local, .send = fake_send, .repeat = true,
				 .parallel = 3 };
	struct uet_meas_flow_rec r;
	struct uet_meas_fct f;
	struct fake k;
	struct uet_drv *d;

	(void)state;
	d = start_drv(&c, &k, m);
	uet_drv_step(d, T0);
	assert_int_equal(k.n, 3);
	assert_int_equal(k.tag[2], (2ULL << 32) | 0);
	assert_int_equal(uet_drv_next_ns(d), UINT64_MAX);
	ack(d, k.tag[0], T0 + 700, 0);
	deliver(d, k.tag[0], 500, T0 + 650);
	uet_drv_step(d, T0 + 701);
	assert_int_equal(k.n, 4);
	assert_int_equal(k.tag[3], 3ULL << 32);
	uet_drv_stop(d);
	ack(d, k.tag[1], T0 + 800, 0);  /* after the end: not counted, not refilled */
	uet_drv_step(d, T0 + 801);
	assert_int_equal(k.n, 4);
	assert_int_equal(uet_meas_flow_get(m, 0, &r), 0);
	assert_int_equal(r.msgs_acked, 1);
	assert_int_equal(r.msgs_received, 1);
	assert_int_equal(uet_meas_fct(m, &f), 0);
	assert_int_equal(f.count, 1);
	assert_int_equal(f.max_ns, 700);
	assert_false(uet_drv_done(d));
	uet_drv_destroy(d);
	uet_meas_destroy(m);
	uet_wl_free(wl);
}

/* A stream whose message fails (its PDC gave up) ends: nothing more is
 * sent for it, its other messages' failures change nothing, and once
 * every local stream ended the driver is done; a stream coming in from a
 * rank driven elsewhere keeps it running (only the duration ends it). */
static void
test_stream_ends_on_failure(void **state)
{
	struct uet_wl *wl = build(UET_WL_PERMUTATION, 4, 500, 1, 0);
	bool local[4] = { true, true, true, true };
	struct uet_drv_cfg c = { .wl = wl, .local = local, .send = fake_send, .repeat = true,
				 .parallel = 2 };
	struct uet_meas *m = meas_of(wl, local, true);
	uint32_t i, n0, failed_flow;
	struct fake k;
	struct uet_drv *d;

	(void)state;
	d = start_drv(&c, &k, m);
	uet_drv_step(d, T0);
	assert_int_equal(k.n, 8);
	/* Stream of the first message fails: one failure, then its second
	 * message fails too (the same PDC); neither is replaced. */
	failed_flow = (uint32_t)(k.tag[0] & UET_DRV_FLOW_MASK);
	for (i = 0; i < 8; i++)
		if ((k.tag[i] & UET_DRV_FLOW_MASK) == failed_flow)
			ack(d, k.tag[i], T0 + 100, UET_ERR_TIMEOUT);
	n0 = k.n;
	uet_drv_step(d, T0 + 101);
	assert_int_equal(k.n, n0);
	assert_int_equal(uet_drv_stats(d)->streams_ended, 1);
	assert_false(uet_drv_done(d));
	/* The others: one succeeds (refilled), then all fail. */
	for (i = 0; i < 8; i++)
		if ((k.tag[i] & UET_DRV_FLOW_MASK) != failed_flow) {
			ack(d, k.tag[i], T0 + 200, 0);
			break;
		}
	uet_drv_step(d, T0 + 201);
	assert_int_equal(k.n, n0 + 1);
	for (i = 0; i < k.n; i++)
		if ((k.tag[i] & UET_DRV_FLOW_MASK) != failed_flow)
			ack(d, k.tag[i], T0 + 300, UET_ERR_TIMEOUT);
	uet_drv_step(d, T0 + 301);
	assert_int_equal(k.n, n0 + 1);
	assert_int_equal(uet_drv_stats(d)->streams_ended, 4);
	assert_true(uet_drv_done(d));
	uet_drv_destroy(d);
	uet_meas_destroy(m);

	/* Rank 3 driven elsewhere: its stream into a local rank may still
	 * come when every local one has ended. */
	local[3] = false;
	m = meas_of(wl, local, true);
	memset(&k, 0, sizeof(k));
	assert_int_equal(uet_drv_create(&c, &d), 0);
	uet_drv_begin(d, m, T0);
	uet_drv_step(d, T0);
	assert_int_equal(k.n, 6);
	for (i = 0; i < k.n; i++)
		ack(d, k.tag[i], T0 + 100, UET_ERR_TIMEOUT);
	assert_int_equal(uet_drv_stats(d)->streams_ended, 3);
	assert_false(uet_drv_done(d));
	uet_drv_destroy(d);
	uet_meas_destroy(m);
	uet_wl_free(wl);
}

/* Streams at a rate: the k-th message of a stream goes at k x size x 8 /
 * rate after the start at the earliest (500 B at 4 Gb/s: 1000 ns apart),
 * with `parallel` in flight at most; the driver says when the next is
 * due, and a message owed past its time goes at once. */
static void
test_paced_streams(void **state)
{
	struct uet_wl *wl = build(UET_WL_PAIR, 2, 500, 1, 0);
	const bool local[2] = { true, true };
	struct uet_meas *m = meas_of(wl, local, true);
	struct uet_drv_cfg c = { .wl = wl, .local = local, .send = fake_send, .repeat = true,
				 .parallel = 2, .rate_bps = 4000000000ULL };
	struct fake k;
	struct uet_drv *d;

	(void)state;
	d = start_drv(&c, &k, m);
	assert_int_equal(uet_drv_next_ns(d), 0);
	uet_drv_step(d, T0);
	assert_int_equal(k.n, 1);
	assert_int_equal(uet_drv_next_ns(d), T0 + 1000);
	uet_drv_step(d, T0 + 999);
	assert_int_equal(k.n, 1);
	uet_drv_step(d, T0 + 1000);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.tag[1], 1ULL << 32);
	/* Two in flight: nothing owed. */
	assert_int_equal(uet_drv_next_ns(d), UINT64_MAX);
	/* A completion early: the third waits for 2000. */
	ack(d, k.tag[0], T0 + 1500, 0);
	assert_int_equal(uet_drv_next_ns(d), 0);
	uet_drv_step(d, T0 + 1500);
	assert_int_equal(k.n, 2);
	assert_int_equal(uet_drv_next_ns(d), T0 + 2000);
	uet_drv_step(d, T0 + 2000);
	assert_int_equal(k.n, 3);
	/* Two in flight again: nothing goes, however late. */
	uet_drv_step(d, T0 + 5000);
	assert_int_equal(k.n, 3);
	/* A completion late: the fourth was due at 3000, goes at once. */
	ack(d, k.tag[1], T0 + 5100, 0);
	uet_drv_step(d, T0 + 5100);
	assert_int_equal(k.n, 4);
	assert_int_equal(k.tag[3], 3ULL << 32);
	uet_drv_destroy(d);
	uet_meas_destroy(m);
	uet_wl_free(wl);
}

/* A ping-pong for a duration: one ping out at the start whatever
 * `parallel` says; the peer answers each ping it receives with its pong,
 * the pinger takes the round trip (from the ping handed over to the pong
 * back) and pings again; acknowledgments start nothing. A failed message
 * ends both streams of its chain. */
static void
test_pingpong_streams(void **state)
{
	struct uet_wl *wl = build(UET_WL_PINGPONG, 2, 64, 1, 0);
	bool local[2] = { true, true };
	struct uet_meas *m = meas_of(wl, local, true);
	struct uet_drv_cfg c = { .wl = wl, .local = local, .send = fake_send, .repeat = true,
				 .parallel = 4 };
	struct uet_meas_rtt r;
	struct fake k;
	struct uet_drv *d;

	(void)state;
	assert_int_equal(wl->nflows, 2);
	d = start_drv(&c, &k, m);
	uet_drv_step(d, T0 + 100);
	assert_int_equal(k.n, 1);
	assert_int_equal(k.tag[0], 0);
	assert_int_equal(k.src[0], 0);
	ack(d, k.tag[0], T0 + 300, 0);
	uet_drv_step(d, T0 + 301);
	assert_int_equal(k.n, 1);
	deliver(d, k.tag[0], 64, T0 + 250);
	uet_drv_step(d, T0 + 260);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.tag[1], 1);
	assert_int_equal(k.src[1], 1);
	deliver(d, k.tag[1], 64, T0 + 600);
	uet_drv_step(d, T0 + 610);
	assert_int_equal(k.n, 3);
	assert_int_equal(k.tag[2], 1ULL << 32);
	deliver(d, k.tag[2], 64, T0 + 800);
	uet_drv_step(d, T0 + 810);
	assert_int_equal(k.tag[3], (1ULL << 32) | 1);
	deliver(d, k.tag[3], 64, T0 + 1500);
	assert_int_equal(uet_meas_rtt(m, NULL, NULL, 0, &r), 0);
	assert_int_equal(r.rtt.count, 2);
	assert_int_equal(r.rtt.min_ns, 500);
	assert_int_equal(r.rtt.max_ns, 890);
	/* The third ping fails: the peer's stream ends with it. */
	uet_drv_step(d, T0 + 1510);
	assert_int_equal(k.n, 5);
	assert_false(uet_drv_done(d));
	ack(d, k.tag[4], T0 + 2000, UET_ERR_TIMEOUT);
	assert_int_equal(uet_drv_stats(d)->streams_ended, 2);
	assert_true(uet_drv_done(d));
	uet_drv_destroy(d);
	uet_meas_destroy(m);

	/* The peer driven elsewhere: its pongs come in, pings go out. */
	local[1] = false;
	m = meas_of(wl, local, true);
	memset(&k, 0, sizeof(k));
	assert_int_equal(uet_drv_create(&c, &d), 0);
	uet_drv_begin(d, m, T0);
	uet_drv_step(d, T0);
	assert_int_equal(k.n, 1);
	deliver(d, 1, 64, T0 + 700);
	uet_drv_step(d, T0 + 700);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.tag[1], 1ULL << 32);
	assert_int_equal(uet_meas_rtt(m, NULL, NULL, 0, &r), 0);
	assert_int_equal(r.rtt.count, 1);
	assert_int_equal(r.rtt.p50_ns, 700);
	uet_drv_destroy(d);
	uet_meas_destroy(m);
	uet_wl_free(wl);
}

/* A failed send completes the flow as failed; a receiver driven here is
 * released at once, one driven elsewhere is handed to gave_up; a send the
 * endpoint refuses outright fails the flow without waiting. */
static void
test_failures(void **state)
{
	struct uet_wl *wl = build(UET_WL_PAIR, 2, 100, 1, 0);
	const bool both[2] = { true, true }, src_only[2] = { true, false };
	struct uet_meas *m = meas_of(wl, both, false);
	struct uet_drv_cfg c = { .wl = wl, .local = both, .send = fake_send,
				 .gave_up = fake_gave_up };
	struct uet_meas_flow_rec r;
	struct fake k;
	struct uet_drv *d;

	(void)state;
	d = start_drv(&c, &k, m);
	uet_drv_step(d, T0);
	ack(d, 0, T0 + 50, UET_ERR_TIMEOUT);
	assert_true(uet_drv_done(d)); /* the receiver is here: released */
	assert_int_equal(k.n_gave_up, 0);
	assert_int_equal(uet_meas_flow_get(m, 0, &r), 0);
	assert_int_equal(r.status, UET_MEAS_FAILED);
	assert_int_equal(r.recv_done_ns, UET_MEAS_NO_TIME);
	uet_drv_destroy(d);
	uet_meas_destroy(m);

	m = meas_of(wl, src_only, false);
	c.local = src_only;
	assert_int_equal(uet_drv_create(&c, &d), 0);
	uet_drv_begin(d, m, T0);
	uet_drv_step(d, T0);
	ack(d, 0, T0 + 50, UET_ERR_TIMEOUT);
	assert_int_equal(k.n_gave_up, 1);
	assert_int_equal(k.gave_up[0], 0);
	assert_true(uet_drv_done(d));
	uet_drv_destroy(d);
	uet_meas_destroy(m);

	/* Refused outright. */
	m = meas_of(wl, both, false);
	c.local = both;
	k.fail_with = UET_ERR_INVAL;
	assert_int_equal(uet_drv_create(&c, &d), 0);
	uet_drv_begin(d, m, T0);
	uet_drv_step(d, T0);
	assert_int_equal(uet_drv_stats(d)->send_errors, 1);
	assert_int_equal(uet_meas_flow_get(m, 0, &r), 0);
	assert_int_equal(r.status, UET_MEAS_FAILED);
	assert_int_equal(r.send_status, UET_ERR_INVAL);
	uet_drv_peer_gave_up(d, 0, T0 + 1);
	assert_true(uet_drv_done(d));
	uet_drv_destroy(d);
	uet_meas_destroy(m);
	uet_wl_free(wl);
}

/* fail_dead_peers: the first message whose PDC gave up (UET_ERR_TIMEOUT)
 * marks its destination dead; every later message to it fails unsent, at
 * once, and a failure is no progress. Without the flag each message tries
 * again. Streams into a dead rank end at their next message. */
static void
test_dead_peers(void **state)
{
	struct uet_wl *wl = build(UET_WL_PAIR, 2, 100, 5, 1), *wl2;
	const bool src_only[2] = { true, false };
	struct uet_meas *m = meas_of(wl, src_only, false), *m2;
	struct uet_drv_cfg c = { .wl = wl, .local = src_only, .send = fake_send,
				 .gave_up = fake_gave_up, .fail_dead_peers = true };
	struct uet_meas_flow_rec r;
	struct fake k;
	struct uet_drv *d;
	uint32_t i;

	(void)state;
	d = start_drv(&c, &k, m);
	uet_drv_step(d, T0);
	assert_int_equal(k.n, 1);
	ack(d, 0, T0 + 100, UET_ERR_TIMEOUT);
	assert_false(uet_drv_done(d));
	uet_drv_step(d, T0 + 101);
	assert_int_equal(k.n, 1); /* nothing more sent to the dead rank */
	assert_true(uet_drv_done(d));
	assert_int_equal(uet_drv_stats(d)->dead_peers, 1);
	assert_int_equal(uet_drv_stats(d)->dead_peer_msgs, 4);
	assert_int_equal(uet_drv_stats(d)->send_errors, 0);
	assert_int_equal(uet_drv_stats(d)->progress, 0);
	assert_int_equal(k.n_gave_up, 5); /* each receiver released */
	for (i = 1; i < 5; i++) {
		assert_int_equal(uet_meas_flow_get(m, i, &r), 0);
		assert_int_equal(r.status, UET_MEAS_FAILED);
		assert_int_equal(r.send_status, UET_ERR_TIMEOUT);
	}
	assert_int_equal(uet_meas_event_count(m), 1);
	assert_string_equal(uet_meas_event_get(m, 0)->kind, "peer-dead");
	uet_drv_destroy(d);
	uet_meas_destroy(m);

	/* A message to the rank acknowledged after all clears the mark. */
	wl2 = build(UET_WL_PAIR, 2, 100, 5, 2);
	m2 = meas_of(wl2, src_only, false);
	c.wl = wl2;
	d = start_drv(&c, &k, m2);
	uet_drv_step(d, T0);
	assert_int_equal(k.n, 2);
	ack(d, k.tag[0], T0 + 100, UET_ERR_TIMEOUT);
	assert_int_equal(uet_drv_stats(d)->dead_peers, 1);
	ack(d, k.tag[1], T0 + 110, 0);
	assert_int_equal(uet_drv_stats(d)->dead_peers, 0);
	uet_drv_step(d, T0 + 111);
	assert_true(k.n > 2);
	uet_drv_destroy(d);
	uet_meas_destroy(m2);
	uet_wl_free(wl2);
	c.wl = wl;

	/* Without the flag: the next message is sent. */
	m = meas_of(wl, src_only, false);
	c.fail_dead_peers = false;
	d = start_drv(&c, &k, m);
	uet_drv_step(d, T0);
	ack(d, 0, T0 + 100, UET_ERR_TIMEOUT);
	uet_drv_step(d, T0 + 101);
	assert_int_equal(k.n, 2);
	assert_int_equal(uet_drv_stats(d)->dead_peers, 0);
	uet_drv_destroy(d);
	uet_meas_destroy(m);
	uet_wl_free(wl);

	/* Streams: an incast into rank 0; rank 2's message succeeds, then
	 * rank 1's gives up, and rank 2's next message is not sent: its
	 * stream ends. */
	{
		const bool senders[3] = { false, true, true };

		wl = build(UET_WL_INCAST, 3, 100, 1, 1);
		m = meas_of(wl, senders, true);
		c = (struct uet_drv_cfg){ .wl = wl, .local = senders, .send = fake_send,
					  .repeat = true, .fail_dead_peers = true };
		d = start_drv(&c, &k, m);
		uet_drv_step(d, T0);
		assert_int_equal(k.n, 2);
		assert_int_equal(k.dst[0], 0);
		assert_int_equal(k.dst[1], 0);
		ack(d, k.tag[1], T0 + 100, 0);
		ack(d, k.tag[0], T0 + 100, UET_ERR_TIMEOUT);
		uet_drv_step(d, T0 + 101);
		assert_int_equal(k.n, 2);
		assert_int_equal(uet_drv_stats(d)->streams_ended, 2);
		assert_true(uet_drv_done(d));
		uet_drv_destroy(d);
		uet_meas_destroy(m);
		uet_wl_free(wl);
	}
}

/* rank_ip: a message counts for its flow only from the flow's source; one
 * with the right tag from another address (a stranger, another run) is
 * counted apart and changes nothing. */
static void
test_sender_must_match(void **state)
{
	struct uet_wl *wl = build(UET_WL_PAIR, 2, 100, 1, 0);
	const bool dst_only[2] = { false, true };
	const uint32_t ips[2] = { 0x0a000001, 0x0a000002 };
	struct uet_meas *m = meas_of(wl, dst_only, false);
	struct uet_drv_cfg c = { .wl = wl, .local = dst_only, .send = fake_send,
				 .rank_ip = ips };
	struct uet_rx_data dx = { .src_ip = 0x0b000001, .tag = 0, .msg_len = 100, .len = 100 };
	struct uet_rx_msg mx = { .src_ip = 0x0b000001, .tag = 0, .msg_len = 100,
				 .done_ns = T0 + 10 };
	struct fake k;
	struct uet_drv *d;

	(void)state;
	d = start_drv(&c, &k, m);
	uet_drv_rx_data(d, &dx, T0 + 5);
	uet_drv_rx_msg(d, &mx);
	assert_int_equal(uet_drv_stats(d)->foreign_msgs, 1);
	assert_int_equal(uet_drv_stats(d)->rx_bytes, 0);
	assert_int_equal(uet_drv_stats(d)->progress, 0);
	assert_false(uet_drv_done(d));
	dx.src_ip = mx.src_ip = ips[0];
	uet_drv_rx_data(d, &dx, T0 + 15);
	uet_drv_rx_msg(d, &mx);
	assert_int_equal(uet_drv_stats(d)->rx_bytes, 100);
	assert_true(uet_drv_done(d));
	uet_drv_destroy(d);
	uet_meas_destroy(m);
	uet_wl_free(wl);
}

/* --verify: the fill pattern checks out at any offset and split; one
 * wrong byte, or a short message, makes the message bad. */
static void
test_verify(void **state)
{
	struct uet_wl *wl = build(UET_WL_PAIR, 2, 1000, 2, 0);
	const bool local[2] = { true, true };
	struct uet_meas *m = meas_of(wl, local, false);
	struct uet_drv_cfg c = { .wl = wl, .local = local, .send = fake_send, .verify = true };
	uint8_t buf[1000];
	struct uet_tx_meta tm;
	struct uet_rx_data x;
	struct fake k;
	struct uet_drv *d;

	(void)state;
	memset(&k, 0, sizeof(k));
	c.ctx = &k;
	memset(&tm, 0, sizeof(tm));
	tm.msg_tag = 0;
	tm.msg_offset = 0;
	tm.payload_len = 333;
	uet_drv_fill(NULL, &tm, buf);
	tm.msg_offset = 333;
	tm.payload_len = 667;
	uet_drv_fill(NULL, &tm, buf + 333);
	assert_true(uet_drv_payload_ok(0, 0, buf, 1000));
	assert_true(uet_drv_payload_ok(0, 5, buf + 5, 17));
	assert_false(uet_drv_payload_ok(1, 0, buf, 1000)); /* another message */
	assert_int_equal(uet_drv_create(&c, &d), 0);
	uet_drv_begin(d, m, T0);
	memset(&x, 0, sizeof(x));
	x.tag = 0;
	x.data = buf;
	x.len = 1000;
	uet_drv_rx_data(d, &x, T0 + 5);
	deliver(d, 0, 1000, T0 + 6);
	assert_int_equal(uet_drv_stats(d)->verify_bad, 0);
	/* Message 1 with its own pattern but one flipped bit. */
	tm.msg_tag = 1;
	tm.msg_offset = 0;
	tm.payload_len = 1000;
	uet_drv_fill(NULL, &tm, buf);
	buf[700] ^= 1;
	x.tag = 1;
	uet_drv_rx_data(d, &x, T0 + 7);
	deliver(d, 1, 1000, T0 + 8);
	assert_int_equal(uet_drv_stats(d)->verify_checked, 2);
	assert_int_equal(uet_drv_stats(d)->verify_bad, 1);
	assert_int_equal(uet_drv_stats(d)->rx_bytes, 2000);
	/* A message shorter than its flow is bad too, even with good bytes. */
	uet_drv_stop(d);
	uet_drv_begin(d, m, T0);
	buf[700] ^= 1;
	x.len = 400;
	uet_drv_rx_data(d, &x, T0 + 9);
	deliver(d, 1, 400, T0 + 10);
	assert_int_equal(uet_drv_stats(d)->verify_checked, 3);
	assert_int_equal(uet_drv_stats(d)->verify_bad, 2);
	uet_drv_destroy(d);
	uet_meas_destroy(m);
	uet_wl_free(wl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iterations_and_retry),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_stream_ends_on_failure),
		cmocka_unit_test(test_pingpong_streams),
		cmocka_unit_test(test_paced_streams),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_dead_peers),
		cmocka_unit_test(test_sender_must_match),
		cmocka_unit_test(test_verify),
	};

	return cmocka_run_group_tests_name("driver", tests, NULL, NULL);
}
