/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Step-by-step tests of the load balancers: a scripted sequence of sends
 * and feedback, with the exact EV asserted at every step. Random choices are
 * predicted with a shadow PRNG seeded like the one the LB draws from; a
 * draw the script does not expect desynchronises the two and fails a later
 * step (each test ends by comparing the generators).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "uet/prng.h"
#include "uet/err.h"
#include "uet/lb.h"
#include "uet/cc.h"
#include "uet/uet.h"

#define MSS 4096
#define BASE_RTT_NS 10000ULL

struct lbt {
	const struct uet_lb_ops *ops;
	struct uet_lb_params p;
	struct uet_prng rng, shadow;
	uint64_t st[UET_LB_STATE_MAX / 8];
	uint64_t now_ns;
	uint32_t cwnd_bytes;
	uint32_t inflight_bytes;
	uint32_t events; /* of the last send */
};

static void
lbt_init(struct lbt *t, const struct uet_lb_ops *ops, uint16_t base, uint32_t count,
	 const void *cfg, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	t->ops = ops;
	t->p.ev_base = base;
	t->p.ev_count = count;
	t->p.mss_bytes = MSS;
	t->p.base_rtt_ns = BASE_RTT_NS;
	t->p.link_bps = 100000000000ULL;
	t->p.cfg = cfg;
	uet_prng_seed(&t->rng, seed);
	uet_prng_seed(&t->shadow, seed);
	t->now_ns = 1000000;
	t->cwnd_bytes = 10 * MSS;
	assert_int_equal(ops->init(t->st, &t->p, &t->rng), 0);
}

static uint16_t
send(struct lbt *t)
{
	struct uet_lb_send_ctx c = {
		.now_ns = t->now_ns,
		.cwnd_bytes = t->cwnd_bytes,
		.rto_ns = 4 * BASE_RTT_NS,
		.base_rtt_ns = BASE_RTT_NS,
		.rng = &t->rng,
		.p = &t->p,
	};
	uint16_t ev = t->ops->next_ev(t->st, &c);

	t->events = c.events;
	return ev;
}

static uint32_t
fb_full(struct lbt *t, enum uet_lb_fb_kind kind, uint16_t ev, bool ce, uint64_t idle_ns)
{
	struct uet_lb_feedback fb = {
		.now_ns = t->now_ns,
		.kind = kind,
		.ev = ev,
		.ce = ce,
		.rtt_ns = BASE_RTT_NS,
		.idle_ns = idle_ns,
		.cwnd_bytes = t->cwnd_bytes,
		.inflight_bytes = t->inflight_bytes,
		.rto_ns = 4 * BASE_RTT_NS,
		.base_rtt_ns = BASE_RTT_NS,
		.p = &t->p,
	};

	return t->ops->feedback(t->st, &fb);
}

static uint32_t
ack(struct lbt *t, uint16_t ev, bool ce)
{
	return fb_full(t, UET_LB_FB_ACK, ev, ce, 0);
}

static uint32_t
fb(struct lbt *t, enum uet_lb_fb_kind kind, uint16_t ev)
{
	return fb_full(t, kind, ev, false, 0);
}

/* The EV the LB's own PRNG gives next. */
static uint16_t
rnd(struct lbt *t)
{
	return uet_lb_random_ev(&t->p, &t->shadow);
}

static void
expect_seq(struct lbt *t, const uint16_t *evs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		assert_int_equal(send(t), evs[i]);
}

static void
assert_no_hidden_draws(struct lbt *t)
{
	assert_true(uet_prng_next(&t->rng) == uet_prng_next(&t->shadow));
}

static bool
frozen(struct lbt *t)
{
	return t->ops->frozen(t->st);
}

/* ---- REPS ---- */

/* Table 1 of the paper: under 25 bytes per connection; the count of valid
 * entries is the popcount of their bits, not a field. A PDC holds what its
 * algorithms need, 24 B here, not the 192 any algorithm may. */
static void
test_reps_state_is_24_bytes(void **state)
{
	struct uet_ep_config c;

	(void)state;
	assert_int_equal(uet_lb_reps.state_size, 24);
	uet_ep_config_default(&c);
	c.lb = &uet_lb_reps;
	c.cc = &uet_cc_fixed;
	c.max_pdcs = 100;
	/* 24 B of REPS and the fixed window's 8: 32 B per PDC beside the
	 * PDC itself, not 2 x 192. */
	assert_int_equal(uet_ep_pdc_bytes(&c) - uet_ep_pdc_bytes(&(struct uet_ep_config){
		.lb = &uet_lb_ecmp, .cc = &uet_cc_fixed }),
		24 - ((uet_lb_ecmp.state_size + 7) & ~(size_t)7));
	assert_true(uet_ep_pdc_bytes(&c) < 450);
}

static void
test_reps_algorithms_1_2_step_by_step(void **state)
{
	struct lbt t;
	int i;

	(void)state;
	lbt_init(&t, &uet_lb_reps, 1000, 256, NULL, 11);
	/* Empty ring: explore (the first BDP of a new PDC). */
	for (i = 0; i < 3; i++)
		assert_int_equal(send(&t), rnd(&t));
	/* Unmarked ACKs are cached, a CE-marked one is not. */
	assert_int_equal(ack(&t, 1001, false), 0);
	assert_int_equal(ack(&t, 1002, true), 0);
	assert_int_equal(ack(&t, 1003, false), 0);
	/* NACKed, lost and timed-out EVs are never cached. */
	fb(&t, UET_LB_FB_NACK, 1004);
	fb(&t, UET_LB_FB_LOSS, 1005);
	fb(&t, UET_LB_FB_TIMEOUT, 1006);
	/* Each cached EV once, oldest first; then explore again. */
	assert_int_equal(send(&t), 1001);
	assert_int_equal(send(&t), 1003);
	assert_int_equal(send(&t), rnd(&t));
	/* Nine ACKs into eight slots: the ninth overwrites the oldest. Slots
	 * 2..7 = 1010..1015, 0 = 1016, 1 = 1017, 2 = 1018; head = 3. */
	for (i = 0; i < 9; i++)
		ack(&t, (uint16_t)(1010 + i), false);
	{
		const uint16_t want[] = { 1011, 1012, 1013, 1014, 1015, 1016, 1017, 1018 };

		expect_seq(&t, want, 8);
	}
	assert_int_equal(send(&t), rnd(&t));
	assert_false(frozen(&t));
	assert_no_hidden_draws(&t);
}

static void
test_reps_freezing_entry_recycle_exit_explore(void **state)
{
	struct lbt t;
	int i;

	(void)state;
	lbt_init(&t, &uet_lb_reps, 1000, 256, NULL, 12);
	for (i = 0; i < 9; i++)
		ack(&t, (uint16_t)(1010 + i), false);
	for (i = 0; i < 8; i++)
		assert_int_equal(send(&t), 1011 + i);
	/* Failure detection at t0 = 1 ms: freeze until t0 + 1 ms. */
	assert_int_equal(fb(&t, UET_LB_FB_FAILURE, 0), UET_LB_EV_FREEZE);
	assert_true(frozen(&t));
	/* Frozen, nothing valid: recycle the filled slots round robin from
	 * slot 0 (1018 overwrote 1010 there), never a random EV. */
	{
		const uint16_t want[] = { 1018, 1011, 1012, 1013, 1014, 1015, 1016, 1017, 1018 };

		expect_seq(&t, want, 9);
	}
	/* A second failure while frozen changes nothing. */
	assert_int_equal(fb(&t, UET_LB_FB_FAILURE, 0), 0);
	/* A good ACK while frozen is cached at head (slot 1) and used first;
	 * then the round robin goes on where it was (slot 1). */
	t.now_ns += 500000;
	assert_int_equal(ack(&t, 1020, false), 0);
	assert_int_equal(send(&t), 1020);
	assert_int_equal(send(&t), 1020);
	assert_int_equal(send(&t), 1012);
	assert_int_equal(send(&t), 1013);
	/* Before the freezing timeout, ACKs do not thaw. */
	assert_int_equal(ack(&t, 1021, true), 0);
	assert_true(frozen(&t));
	/* After it, any ACK thaws, a CE-marked one included (not cached). */
	t.now_ns = 1000000 + 1000000 + 2048;
	assert_int_equal(ack(&t, 1022, true), UET_LB_EV_THAW);
	assert_false(frozen(&t));
	ack(&t, 1023, false);
	ack(&t, 1024, false);
	/* Exploration window: one cwnd (10 packets); counter 9..0, the ones
	 * at a multiple of 8 (8 and 0) random, the others the normal rule. */
	assert_int_equal(send(&t), 1023);   /* 9 */
	assert_int_equal(send(&t), rnd(&t)); /* 8 */
	assert_int_equal(send(&t), 1024);   /* 7 */
	assert_int_equal(send(&t), rnd(&t)); /* 6: nothing valid, not frozen */
	/* No re-entry while exploring. */
	assert_int_equal(fb(&t, UET_LB_FB_FAILURE, 0), 0);
	assert_false(frozen(&t));
	for (i = 0; i < 6; i++)                /* 5..0 */
		assert_int_equal(send(&t), rnd(&t));
	/* Window over: a failure freezes again. */
	assert_int_equal(fb(&t, UET_LB_FB_FAILURE, 0), UET_LB_EV_FREEZE);
	assert_true(frozen(&t));
	assert_no_hidden_draws(&t);
}

static void
test_reps_frozen_partial_and_empty_ring(void **state)
{
	struct lbt t;
	int i;

	(void)state;
	lbt_init(&t, &uet_lb_reps, 1000, 256, NULL, 13);
	/* Frozen with an empty ring: still random (isEmpty() first). */
	assert_int_equal(fb(&t, UET_LB_FB_FAILURE, 0), UET_LB_EV_FREEZE);
	assert_int_equal(send(&t), rnd(&t));
	assert_int_equal(send(&t), rnd(&t));
	/* Three slots filled: the round robin stays on them. */
	ack(&t, 1100, false);
	ack(&t, 1101, false);
	ack(&t, 1102, false);
	for (i = 0; i < 3; i++)
		assert_int_equal(send(&t), 1100 + i);
	for (i = 0; i < 7; i++)
		assert_int_equal(send(&t), 1100 + i % 3);
	assert_no_hidden_draws(&t);
}

/* By default (the paper's pseudo-code) a pause changes nothing: the cached
 * EVs are used in order, however long the PDC was quiet. */
static void
test_reps_idle_keeps_cache_by_default(void **state)
{
	struct lbt t;

	(void)state;
	lbt_init(&t, &uet_lb_reps, 1000, 256, NULL, 13);
	ack(&t, 1200, false);
	ack(&t, 1201, false);
	fb_full(&t, UET_LB_FB_IDLE, 0, false, 1000000 * BASE_RTT_NS);
	assert_int_equal(send(&t), 1200);
	assert_int_equal(send(&t), 1201);
	assert_int_equal(send(&t), rnd(&t)); /* ring used up: explore */
	assert_no_hidden_draws(&t);
}

/* With idle_ns set, a longer pause clears the ring. */
static void
test_reps_idle_clears_cache(void **state)
{
	struct uet_lb_reps_cfg cfg = { .idle_ns = 4 * BASE_RTT_NS };
	struct lbt t;

	(void)state;
	lbt_init(&t, &uet_lb_reps, 1000, 256, &cfg, 14);
	ack(&t, 1200, false);
	ack(&t, 1201, false);
	/* Idle for idle_ns exactly: the cache stays. */
	fb_full(&t, UET_LB_FB_IDLE, 0, false, 4 * BASE_RTT_NS);
	assert_int_equal(send(&t), 1200);
	/* Longer: cleared, explore. */
	fb_full(&t, UET_LB_FB_IDLE, 0, false, 4 * BASE_RTT_NS + 1);
	assert_int_equal(send(&t), rnd(&t));
	assert_int_equal(send(&t), rnd(&t));
	assert_no_hidden_draws(&t);
}

/* A frozen PDC that goes idle keeps its frozen set: an empty ring would
 * send every packet to a random EV, into the failure it froze for (the
 * 10%-dead-uplink runs lost flows to this). */
static void
test_reps_frozen_idle_keeps_its_paths(void **state)
{
	struct uet_lb_reps_cfg cfg = { .idle_ns = 4 * BASE_RTT_NS };
	struct lbt t;
	int i;

	(void)state;
	lbt_init(&t, &uet_lb_reps, 1000, 256, &cfg, 18);
	ack(&t, 1300, false);
	ack(&t, 1301, false);
	ack(&t, 1302, false);
	assert_int_equal(fb(&t, UET_LB_FB_FAILURE, 0), UET_LB_EV_FREEZE);
	fb_full(&t, UET_LB_FB_IDLE, 0, false, 100 * BASE_RTT_NS);
	assert_true(frozen(&t));
	for (i = 0; i < 30; i++) {
		uint16_t ev = send(&t);

		assert_true(ev >= 1300 && ev <= 1302);
	}
	/* The thaw's exploration then finds the paths again. */
	t.now_ns += 2000000;
	assert_int_equal(ack(&t, 1303, true), UET_LB_EV_THAW);
	assert_false(frozen(&t));
	assert_no_hidden_draws(&t);
}

static void
test_reps_reuse_variant(void **state)
{
	struct uet_lb_reps_cfg cfg = { .reuse = 3 };
	struct lbt t;

	(void)state;
	lbt_init(&t, &uet_lb_reps, 1000, 256, &cfg, 15);
	ack(&t, 2001, false);
	ack(&t, 2002, false);
	{
		const uint16_t want[] = { 2001, 2001, 2001, 2002, 2002 };

		expect_seq(&t, want, 5);
	}
	/* A new ACK joins behind; the entry in use keeps its count. */
	ack(&t, 2003, false);
	assert_int_equal(send(&t), 2002);
	assert_int_equal(send(&t), 2003);
	assert_int_equal(send(&t), 2003);
	assert_int_equal(send(&t), 2003);
	assert_int_equal(send(&t), rnd(&t));
	assert_no_hidden_draws(&t);
}

static void
test_reps_reset_exploration_and_config(void **state)
{
	struct uet_lb_reps_cfg cfg = { .explore = UET_REPS_EXPLORE_RESET, .freeze_ns = 100000 };
	struct uet_lb_reps_cfg bad = { .reuse = 16 };
	struct uet_lb_reps_cfg off = { .no_freezing = true };
	struct lbt t;
	int i;

	(void)state;
	lbt_init(&t, &uet_lb_reps, 1000, 256, &cfg, 16);
	ack(&t, 3000, false);
	assert_int_equal(fb(&t, UET_LB_FB_FAILURE, 0), UET_LB_EV_FREEZE);
	t.now_ns += 100000 - 2048;
	assert_int_equal(ack(&t, 3001, false), 0);
	t.now_ns += 4096;
	assert_int_equal(ack(&t, 3002, false), UET_LB_EV_THAW);
	/* The artifact's variant: the cache is cleared (the thawing ACK's EV
	 * is cached after it) and a whole cwnd of packets is random, even
	 * with fresh EVs cached meanwhile. */
	ack(&t, 3003, false);
	for (i = 0; i < 10; i++)
		assert_int_equal(send(&t), rnd(&t));
	assert_int_equal(send(&t), 3002);
	assert_int_equal(send(&t), 3003);
	assert_no_hidden_draws(&t);

	lbt_init(&t, &uet_lb_reps, 1000, 256, &off, 17);
	assert_int_equal(fb(&t, UET_LB_FB_FAILURE, 0), 0);
	assert_false(frozen(&t));

	t.p.cfg = &bad;
	assert_int_equal(uet_lb_reps.init(t.st, &t.p, &t.rng), UET_ERR_INVAL);
	cfg.explore = 2;
	t.p.cfg = &cfg;
	assert_int_equal(uet_lb_reps.init(t.st, &t.p, &t.rng), UET_ERR_INVAL);
}

/* ---- bitmap ---- */

/* ACK+Carry: an EV carried in a coalesced ACK is cached like an unmarked
 * ACK's own, in arrival order. */
static void
test_reps_carried_evs(void **state)
{
	struct lbt t;

	(void)state;
	lbt_init(&t, &uet_lb_reps, 100, 1000, NULL, 92);
	ack(&t, 500, false);
	fb(&t, UET_LB_FB_CARRIED, 501);
	fb(&t, UET_LB_FB_CARRIED, 502);
	ack(&t, 503, true); /* the marked trigger is still not cached */
	expect_seq(&t, (const uint16_t[]){ 500, 501, 502 }, 3);
	assert_int_equal(send(&t), rnd(&t));
	/* A trim at the receiver's own port says the path delivered: cached
	 * unless CE marked; a trim in the fabric is not. */
	fb(&t, UET_LB_FB_NACK_LASTHOP, 600);
	fb(&t, UET_LB_FB_NACK, 601);
	fb_full(&t, UET_LB_FB_NACK_LASTHOP, 602, true, 0);
	assert_int_equal(send(&t), 600);
	assert_int_equal(send(&t), rnd(&t));
	assert_no_hidden_draws(&t);
}

static void
test_reps_forced_freeze(void **state)
{
	struct uet_lb_reps_cfg cfg = { .force_freeze_at_ns = 1005000, .freeze_ns = 20000 };
	struct lbt t;
	int i;

	(void)state;
	lbt_init(&t, &uet_lb_reps, 100, 1000, &cfg, 91);
	for (i = 0; i < 4; i++)
		ack(&t, (uint16_t)(200 + i), false);
	t.now_ns = 1004999;
	assert_int_equal(send(&t), 200);
	assert_false(frozen(&t));
	/* The first send past the time freezes, with no failure seen: the
	 * cached EVs, then round robin over them. */
	t.now_ns = 1005000;
	assert_int_equal(send(&t), 201);
	assert_int_equal(t.events, UET_LB_EV_FREEZE);
	assert_true(frozen(&t));
	expect_seq(&t, (const uint16_t[]){ 202, 203, 200, 201, 202 }, 5);
	/* Thawed after freeze_ns; it never forces again. */
	t.now_ns += 20000 + 1024;
	ack(&t, 300, false);
	assert_false(frozen(&t));
	t.now_ns += 1000000;
	send(&t);
	assert_int_equal(t.events, 0);
	assert_false(frozen(&t));
}

static void
test_bitmap_walk_skip_and_decrement(void **state)
{
	struct uet_lb_bitmap_cfg cfg = { .evs = 16 };
	uint16_t round2[16];
	struct lbt t;
	uint32_t upper, mask;
	int i, seen[16] = { 0 };

	(void)state;
	lbt_init(&t, &uet_lb_bitmap, 500, 64, &cfg, 21);
	/* init draws the PDC's window of 16 EVs, then the first xor mask. */
	upper = 16 * (uint32_t)uet_prng_below(&t.shadow, 4);
	mask = (uint32_t)uet_prng_below(&t.shadow, 16);
	for (i = 0; i < 16; i++)
		assert_int_equal(send(&t), 500 + upper + ((uint32_t)i ^ mask));
	/* Round 2's order is fixed by its mask: penalise its first two EVs by
	 * one ECN mark each. */
	mask = (uint32_t)uet_prng_below(&t.shadow, 16);
	for (i = 0; i < 16; i++)
		round2[i] = (uint16_t)(500 + upper + ((uint32_t)i ^ mask));
	assert_int_equal(ack(&t, round2[0], true), 0);
	assert_int_equal(ack(&t, round2[1], true), 0);
	/* Unmarked ACKs and last-hop trims without CE add nothing. */
	ack(&t, round2[2], false);
	fb(&t, UET_LB_FB_NACK_LASTHOP, round2[3]);
	/* The first send skips both, decrementing only the first. */
	for (i = 2; i < 16; i++)
		assert_int_equal(send(&t), round2[i]);
	/* Round 3: round2[1] still has its mark and is skipped once; [0] is
	 * back; all others once. */
	for (i = 0; i < 15; i++) {
		uint16_t ev = send(&t);

		assert_true(ev >= 500 + upper && ev < 500 + upper + 16);
		seen[ev - 500 - upper]++;
	}
	for (i = 0; i < 16; i++)
		assert_int_equal(seen[(round2[i] - 500 - upper)], round2[i] == round2[1] ? 0 : 1);
	/* Feedback for EVs outside the window is ignored. */
	assert_int_equal(fb(&t, UET_LB_FB_TIMEOUT, 499), 0);
	assert_int_equal(fb(&t, UET_LB_FB_TIMEOUT, (uint16_t)(500 + upper + 16)), 0);
}

/* Penalise one EV on a round boundary: it sits out exactly 'visits'
 * rounds of 15 packets, then comes back once per round. */
static void
bitmap_sits_out(enum uet_lb_fb_kind kind, int times, int visits)
{
	struct uet_lb_bitmap_cfg cfg = { .evs = 16 };
	const uint16_t x = 509;
	struct lbt t;
	int i, n = 0;

	lbt_init(&t, &uet_lb_bitmap, 500, 16, &cfg, 22);
	for (i = 0; i < 16; i++)
		send(&t);
	for (i = 0; i < times; i++)
		fb(&t, kind, x);
	for (i = 0; i < visits * 15; i++)
		assert_int_not_equal(send(&t), x);
	for (i = 0; i < 16; i++)
		n += send(&t) == x;
	assert_int_equal(n, 1);
}

static void
test_bitmap_nack_and_timeout_penalties(void **state)
{
	(void)state;
	bitmap_sits_out(UET_LB_FB_NACK, 1, 4);
	bitmap_sits_out(UET_LB_FB_ACK, 0, 0);
	bitmap_sits_out(UET_LB_FB_TIMEOUT, 1, 15);
	bitmap_sits_out(UET_LB_FB_LOSS, 1, 15);
	/* Saturates at 15 (4 bits: 30 must not wrap to 14). */
	bitmap_sits_out(UET_LB_FB_TIMEOUT, 2, 15);
	bitmap_sits_out(UET_LB_FB_NACK, 3, 12);
}

/* Most EVs penalised (a congested or failing fabric): plain spraying, and
 * the penalties recover as the walk uses them, so skipping comes back. */
static void
test_bitmap_stops_skipping_when_most_penalised(void **state)
{
	struct uet_lb_bitmap_cfg cfg = { .evs = 16 };
	struct lbt t;
	int i, round, seen[16] = { 0 };

	(void)state;
	lbt_init(&t, &uet_lb_bitmap, 500, 16, &cfg, 23);
	for (i = 0; i < 16; i++)
		send(&t);
	/* 13 of 16 (81 % > 75 %) carry the max penalty: plain spraying, every
	 * EV once per round; each use costs its EV one point. */
	for (i = 0; i < 13; i++)
		fb(&t, UET_LB_FB_TIMEOUT, (uint16_t)(500 + i));
	for (round = 0; round < 14; round++) {
		memset(seen, 0, sizeof(seen));
		for (i = 0; i < 16; i++)
			seen[send(&t) - 500]++;
		for (i = 0; i < 16; i++)
			assert_int_equal(seen[i], 1);
	}
	/* In the 15th round the last points go (skipping resumes as they do,
	 * for what is left of that round). Then every penalty is spent, and
	 * skipping works again: a NACK sits its EV out for 4 visits. */
	for (i = 0; i < 16; i++)
		send(&t);
	for (i = 0; i < 16; i++)
		send(&t);
	fb(&t, UET_LB_FB_NACK, 503);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < 4 * 15; i++)
		seen[send(&t) - 500]++;
	assert_int_equal(seen[3], 0);
	for (i = 0; i < 16; i++)
		if (i != 3)
			assert_true(seen[i] >= 3);
	memset(seen, 0, sizeof(seen));
	/* Clear one to 12 of 16 (75 %): skipping resumes. 500..511 would be
	 * skipped for 15 visits each, so a round is mostly 512..515. */
	memset(seen, 0, sizeof(seen));
	lbt_init(&t, &uet_lb_bitmap, 500, 16, &cfg, 23);
	for (i = 0; i < 16; i++)
		send(&t);
	for (i = 0; i < 12; i++)
		fb(&t, UET_LB_FB_TIMEOUT, (uint16_t)(500 + i));
	/* 32 sends = 8 rounds: at most 8 decrements per EV, none reaches 0. */
	for (i = 0; i < 32; i++)
		seen[send(&t) - 500]++;
	for (i = 12; i < 16; i++)
		assert_int_equal(seen[i], 8);
	/* Bad configs. */
	cfg.evs = 12;
	assert_int_equal(uet_lb_bitmap.init(t.st, &t.p, &t.rng), UET_ERR_INVAL);
	cfg.evs = 32; /* more than ev_count */
	assert_int_equal(uet_lb_bitmap.init(t.st, &t.p, &t.rng), UET_ERR_INVAL);
}

/* ---- STrack LB ---- */

static void
test_strack_lb_round_robin_recycle_marks(void **state)
{
	struct lbt t;
	int i;

	(void)state;
	lbt_init(&t, &uet_lb_strack, 7000, 256, NULL, 31);
	/* cwnd 2 packets: clamp(4, 8, 256) = 8 EVs, round robin from 1. */
	t.cwnd_bytes = 2 * MSS;
	{
		const uint16_t want[] = { 7001, 7002, 7003, 7004, 7005, 7006, 7007, 7000, 7001 };

		expect_seq(&t, want, 9);
	}
	/* A clean ACK's EV is used at once, then the round robin goes on. */
	ack(&t, 7005, false);
	assert_int_equal(send(&t), 7005);
	assert_int_equal(send(&t), 7002);
	/* Marked 3 and 4: the walk skips both, clearing only 3. */
	ack(&t, 7003, true);
	fb(&t, UET_LB_FB_TIMEOUT, 7004);
	assert_int_equal(send(&t), 7005);
	{
		const uint16_t want[] = { 7006, 7007, 7000, 7001, 7002, 7003, 7005 };

		expect_seq(&t, want, 7);
	}
	/* A clean EV later marked is not reused. */
	ack(&t, 7006, false);
	ack(&t, 7006, true);
	assert_int_equal(send(&t), 7007);
	/* A clean EV outside the current range is still recycled. */
	ack(&t, 7200, false);
	assert_int_equal(send(&t), 7200);
	/* A larger window widens the range: cwnd 100 -> 200 EVs. */
	t.cwnd_bytes = 100 * MSS;
	for (i = 0; i < 200; i++)
		send(&t);
	assert_int_equal(send(&t), 7000 + 8 + 0);
	/* EVs outside max_paths: feedback ignored. */
	assert_int_equal(ack(&t, 7000 + 300, false), 0);
	assert_int_not_equal(send(&t), 7300);
	assert_no_hidden_draws(&t);
}

/* ---- PLB ---- */

static void
plb_round(struct lbt *t, uint16_t ev, int acks, int marked)
{
	int i;

	for (i = 0; i < acks; i++) {
		ack(t, ev, i < marked);
		t->now_ns += BASE_RTT_NS / (uint64_t)acks + 1;
	}
}

static void
test_plb_repaths_after_congested_rounds(void **state)
{
	struct lbt t;
	uint16_t ev, ev2;
	int i;

	(void)state;
	lbt_init(&t, &uet_lb_plb, 100, 1000, NULL, 41);
	ev = rnd(&t);
	for (i = 0; i < 20; i++)
		assert_int_equal(send(&t), ev);
	assert_int_equal(t.events, 0);
	/* A round is judged on the first ACK after it ends. Two congested
	 * rounds (80 % CE), one clean (20 %): the counter restarts. */
	plb_round(&t, ev, 10, 8);
	plb_round(&t, ev, 10, 8);
	plb_round(&t, ev, 10, 2);
	plb_round(&t, ev, 10, 8);
	assert_int_equal(send(&t), ev);
	/* Marks on another EV do not count. */
	plb_round(&t, (uint16_t)(ev + 1), 10, 10);
	plb_round(&t, ev, 10, 8);
	assert_int_equal(send(&t), ev);
	/* The third congested round in a row moves the flow. */
	plb_round(&t, ev, 10, 8);
	ack(&t, ev, false);
	ev2 = rnd(&t);
	assert_int_equal(send(&t), ev2);
	assert_int_equal(t.events, UET_LB_EV_REPATH);
	assert_int_equal(send(&t), ev2);
	assert_int_equal(t.events, 0);
	/* A timeout repaths, but not twice within a base RTT. */
	t.now_ns += 2 * BASE_RTT_NS;
	fb(&t, UET_LB_FB_TIMEOUT, ev2);
	ev = rnd(&t);
	assert_int_equal(send(&t), ev);
	fb(&t, UET_LB_FB_TIMEOUT, ev);
	assert_int_equal(send(&t), ev);
	assert_no_hidden_draws(&t);
}

/* ---- flowlet, ECMP ---- */

static void
test_flowlet_gap(void **state)
{
	struct uet_lb_flowlet_cfg cfg = { .gap_ns = 3000 };
	struct lbt t;
	uint16_t ev;
	int i;

	(void)state;
	lbt_init(&t, &uet_lb_flowlet, 100, 1000, NULL, 51);
	ev = rnd(&t);
	/* Default gap: half the base RTT (5 us). Back to back: same EV. */
	for (i = 0; i < 10; i++) {
		assert_int_equal(send(&t), ev);
		t.now_ns += BASE_RTT_NS / 2;
	}
	assert_int_equal(t.events, 0);
	/* Feedback does not move it. */
	ack(&t, ev, true);
	fb(&t, UET_LB_FB_TIMEOUT, ev);
	t.now_ns += 1;
	ev = rnd(&t);
	assert_int_equal(send(&t), ev);
	assert_int_equal(t.events, UET_LB_EV_REPATH);

	lbt_init(&t, &uet_lb_flowlet, 100, 1000, &cfg, 52);
	ev = rnd(&t);
	assert_int_equal(send(&t), ev);
	t.now_ns += 3000;
	assert_int_equal(send(&t), ev);
	t.now_ns += 3001;
	assert_int_equal(send(&t), rnd(&t));
	assert_no_hidden_draws(&t);
}

static void
test_flowlet_ack_clock(void **state)
{
	struct uet_lb_flowlet_cfg cfg = { .gap_ns = 3000, .ack_clock = true };
	struct lbt t;
	uint16_t ev, ev2;

	(void)state;
	lbt_init(&t, &uet_lb_flowlet, 100, 1000, &cfg, 53);
	ev = rnd(&t);
	assert_int_equal(send(&t), ev);
	/* ACKs keep the flowlet alive however far apart the sends are. */
	t.now_ns += 2000;
	ack(&t, ev, false);
	t.now_ns += 2000;
	assert_int_equal(send(&t), ev);
	ack(&t, ev, false);
	t.now_ns += 2500;
	assert_int_equal(send(&t), ev);
	/* 6 us without an ACK, back-to-back sends: the gap is over, but the
	 * last repath (the start) is less than an RTO (40 us) ago. */
	t.now_ns += 3500;
	assert_int_equal(send(&t), ev);
	assert_int_equal(t.events, 0);
	/* An RTO after the start, still no ACK: a new EV, then none for an
	 * RTO however long the ACKs stay away. */
	t.now_ns = 1000000 + 4 * BASE_RTT_NS + 1;
	ev2 = rnd(&t);
	assert_int_equal(send(&t), ev2);
	assert_int_equal(t.events, UET_LB_EV_REPATH);
	t.now_ns += 4 * BASE_RTT_NS;
	assert_int_equal(send(&t), ev2);
	t.now_ns += 1;
	assert_int_equal(send(&t), rnd(&t));
	assert_no_hidden_draws(&t);
}

/* ---- MPRDMA, MPTCP-like ---- */

static void
test_mprdma_ack_clocking(void **state)
{
	struct lbt t;
	uint16_t ev;

	(void)state;
	lbt_init(&t, &uet_lb_mprdma, 100, 1000, NULL, 71);
	/* Nothing handed over yet: random EVs. */
	assert_int_equal(send(&t), rnd(&t));
	assert_int_equal(send(&t), rnd(&t));
	/* An ACK that leaves room for a packet hands its EV to the next send
	 * (CE marked or not), once. */
	t.inflight_bytes = 8 * MSS;
	ack(&t, 321, true);
	assert_int_equal(send(&t), 321);
	assert_int_equal(send(&t), rnd(&t));
	/* The latest such ACK wins. */
	ack(&t, 400, false);
	ack(&t, 401, false);
	assert_int_equal(send(&t), 401);
	/* An ACK after which the window is full hands nothing, and takes
	 * back what an earlier one handed over. */
	ack(&t, 500, false);
	t.inflight_bytes = 10 * MSS - 1;
	ack(&t, 501, false);
	ev = rnd(&t);
	assert_int_equal(send(&t), ev);
	/* NACKs and timeouts hand nothing over. */
	t.inflight_bytes = 0;
	fb(&t, UET_LB_FB_NACK, 600);
	fb(&t, UET_LB_FB_TIMEOUT, 601);
	assert_int_equal(send(&t), rnd(&t));
	assert_no_hidden_draws(&t);
}

static void
test_mptcp_round_robin(void **state)
{
	struct uet_lb_mptcp_cfg cfg = { .subflows = 3 }, big = { .subflows = 64 };
	struct lbt t;
	uint32_t first;
	int i;

	(void)state;
	lbt_init(&t, &uet_lb_mptcp, 100, 1000, NULL, 81);
	first = (uint32_t)uet_prng_below(&t.shadow, 1000);
	/* 8 subflows by default, consecutive EVs wrapping in the set, in
	 * turn; feedback of any kind changes nothing. */
	for (i = 0; i < 40; i++) {
		assert_int_equal(send(&t), 100 + (first + (uint32_t)i % 8) % 1000);
		fb(&t, (enum uet_lb_fb_kind)(i % 7), 100 + (first + (uint32_t)i % 8) % 1000);
	}
	assert_no_hidden_draws(&t);
	lbt_init(&t, &uet_lb_mptcp, 100, 1000, &cfg, 82);
	first = (uint32_t)uet_prng_below(&t.shadow, 1000);
	for (i = 0; i < 9; i++)
		assert_int_equal(send(&t), 100 + (first + (uint32_t)i % 3) % 1000);
	/* More subflows than EVs: one subflow per EV. */
	lbt_init(&t, &uet_lb_mptcp, 100, 5, &big, 83);
	first = (uint32_t)uet_prng_below(&t.shadow, 5);
	for (i = 0; i < 10; i++)
		assert_int_equal(send(&t), 100 + (first + (uint32_t)i % 5) % 5);
	assert_no_hidden_draws(&t);
	/* Over 64 subflows is a bad config. */
	big.subflows = 65;
	t.p.cfg = &big;
	assert_int_equal(uet_lb_mptcp.init(t.st, &t.p, &t.rng), UET_ERR_INVAL);
}

static void
test_ecmp_one_ev_for_life(void **state)
{
	struct lbt t;
	uint16_t ev;
	int i;

	(void)state;
	lbt_init(&t, &uet_lb_ecmp, 100, 1000, NULL, 61);
	ev = rnd(&t);
	for (i = 0; i < 1000; i++) {
		struct uet_lb_send_ctx c = { .now_ns = t.now_ns, .retx = i % 3 == 0,
					     .probe = i % 7 == 0, .rng = &t.rng, .p = &t.p };

		assert_int_equal(uet_lb_ecmp.next_ev(t.st, &c), ev);
		fb(&t, (enum uet_lb_fb_kind)(i % 5), ev);
		t.now_ns += 100000;
	}
	assert_no_hidden_draws(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reps_state_is_24_bytes),
		cmocka_unit_test(test_reps_algorithms_1_2_step_by_step),
		cmocka_unit_test(test_reps_freezing_entry_recycle_exit_explore),
		cmocka_unit_test(test_reps_frozen_partial_and_empty_ring),
		cmocka_unit_test(test_reps_idle_keeps_cache_by_default),
		cmocka_unit_test(test_reps_idle_clears_cache),
		cmocka_unit_test(test_reps_frozen_idle_keeps_its_paths),
		cmocka_unit_test(test_reps_reuse_variant),
		cmocka_unit_test(test_reps_reset_exploration_and_config),
		cmocka_unit_test(test_bitmap_walk_skip_and_decrement),
		cmocka_unit_test(test_bitmap_nack_and_timeout_penalties),
		cmocka_unit_test(test_bitmap_stops_skipping_when_most_penalised),
		cmocka_unit_test(test_strack_lb_round_robin_recycle_marks),
		cmocka_unit_test(test_plb_repaths_after_congested_rounds),
		cmocka_unit_test(test_flowlet_gap),
		cmocka_unit_test(test_flowlet_ack_clock),
		cmocka_unit_test(test_mprdma_ack_clocking),
		cmocka_unit_test(test_mptcp_round_robin),
		cmocka_unit_test(test_reps_forced_freeze),
		cmocka_unit_test(test_reps_carried_evs),
		cmocka_unit_test(test_ecmp_one_ev_for_life),
	};

	return cmocka_run_group_tests_name("lb_algos", tests, NULL, NULL);
}
