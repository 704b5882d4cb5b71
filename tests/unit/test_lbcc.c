/* SPDX-License-Identifier: BSD-3-Clause */
/* Load-balancer and congestion-control registries, OPS and the fixed window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "uet/prng.h"
#include "uet/cc.h"
#include "uet/err.h"
#include "uet/lb.h"

static uint64_t st_buf[UET_LB_STATE_MAX / 8];

static void
ops_params(struct uet_lb_params *p, uint16_t base, uint32_t count, const void *cfg)
{
	memset(p, 0, sizeof(*p));
	p->ev_base = base;
	p->ev_count = count;
	p->mss_bytes = 4152;
	p->base_rtt_ns = 10000;
	p->link_bps = 100000000000ULL;
	p->cfg = cfg;
}

static void
test_registries(void **state)
{
	const struct uet_lb_ops *const *l = uet_lb_all();
	const struct uet_cc_ops *const *c = uet_cc_all();

	(void)state;
	assert_ptr_equal(uet_lb_find("ops"), &uet_lb_ops_spray);
	assert_null(uet_lb_find("nope"));
	assert_ptr_equal(uet_cc_find("fixed"), &uet_cc_fixed);
	assert_null(uet_cc_find("reno"));
	for (; *l != NULL; l++)
		assert_true((*l)->state_size <= UET_LB_STATE_MAX);
	for (; *c != NULL; c++)
		assert_true((*c)->state_size <= UET_CC_STATE_MAX);
}

static void
test_ops_random(void **state)
{
	struct uet_lb_params p;
	struct uet_lb_send_ctx c;
	struct uet_prng r;
	uint32_t hist[16] = { 0 };
	int i;

	(void)state;
	uet_prng_seed(&r, 3);
	ops_params(&p, 50000, 16, NULL);
	assert_int_equal(uet_lb_ops_spray.init(st_buf, &p, &r), 0);
	memset(&c, 0, sizeof(c));
	c.rng = &r;
	for (i = 0; i < 16000; i++) {
		uint16_t ev = uet_lb_ops_spray.next_ev(st_buf, &c);

		assert_true(ev >= 50000 && ev < 50016);
		hist[ev - 50000]++;
	}
	/* 1000 expected per EV; 5 sigma ~ 150 */
	for (i = 0; i < 16; i++)
		assert_true(hist[i] > 850 && hist[i] < 1150);
}

static void
test_ops_permute_each_once_per_round(void **state)
{
	struct uet_lb_ops_cfg cfg = { .permute = true };
	struct uet_lb_params p;
	struct uet_lb_send_ctx c;
	struct uet_prng r;
	uint8_t seen[100];
	int round, i, same_order = 1;
	uint16_t first[100];

	(void)state;
	uet_prng_seed(&r, 4);
	/* 100 is not a power of two: values past it are skipped. */
	ops_params(&p, 1000, 100, &cfg);
	assert_int_equal(uet_lb_ops_spray.init(st_buf, &p, &r), 0);
	memset(&c, 0, sizeof(c));
	c.rng = &r;
	for (round = 0; round < 5; round++) {
		memset(seen, 0, sizeof(seen));
		for (i = 0; i < 100; i++) {
			uint16_t ev = uet_lb_ops_spray.next_ev(st_buf, &c);

			assert_true(ev >= 1000 && ev < 1100);
			seen[ev - 1000]++;
			if (round == 0)
				first[i] = ev;
			else if (round == 1 && first[i] != ev)
				same_order = 0;
		}
		for (i = 0; i < 100; i++)
			assert_int_equal(seen[i], 1);
	}
	/* A fresh permutation each round. */
	assert_int_equal(same_order, 0);
}

static void
test_ops_ignores_feedback_and_checks_range(void **state)
{
	struct uet_lb_params p;
	struct uet_lb_send_ctx c;
	struct uet_lb_feedback fb = { .kind = UET_LB_FB_TIMEOUT, .ev = 7 };
	struct uet_prng r1, r2;
	uint64_t other[UET_LB_STATE_MAX / 8];
	int i;

	(void)state;
	ops_params(&p, 0, 0, NULL);
	uet_prng_seed(&r1, 5);
	assert_int_equal(uet_lb_ops_spray.init(st_buf, &p, &r1), UET_ERR_INVAL);
	ops_params(&p, 65000, 1000, NULL);
	assert_int_equal(uet_lb_ops_spray.init(st_buf, &p, &r1), UET_ERR_INVAL);
	/* Same seed, one instance fed feedback: same EVs. */
	ops_params(&p, 100, 256, NULL);
	uet_prng_seed(&r1, 6);
	uet_prng_seed(&r2, 6);
	assert_int_equal(uet_lb_ops_spray.init(st_buf, &p, &r1), 0);
	assert_int_equal(uet_lb_ops_spray.init(other, &p, &r2), 0);
	memset(&c, 0, sizeof(c));
	for (i = 0; i < 200; i++) {
		uint16_t a, b;

		uet_lb_ops_spray.feedback(st_buf, &fb);
		c.rng = &r1;
		a = uet_lb_ops_spray.next_ev(st_buf, &c);
		c.rng = &r2;
		b = uet_lb_ops_spray.next_ev(other, &c);
		assert_int_equal(a, b);
	}
}

static void
test_fixed_cc(void **state)
{
	struct uet_cc_fixed_cfg cfg = { .cwnd_bytes = 123456 };
	struct uet_cc_params p = { .mss_bytes = 4152, .base_rtt_ns = 10000,
				   .link_bps = 100000000000ULL };
	struct uet_cc_ack a = { .acked_bytes = 4152, .rtt_ns = 50000, .ce = true };
	struct uet_cc_loss l = { .kind = UET_CC_LOSS_TIMEOUT, .lost_bytes = 4152 };
	uint64_t st[UET_CC_STATE_MAX / 8];

	(void)state;
	/* 100 Gb/s x 10 us = 125000 B; x 1.5 */
	assert_int_equal(uet_cc_fixed.init(st, &p), 0);
	assert_int_equal(uet_cc_fixed.cwnd(st), 187500);
	/* It never moves. */
	uet_cc_fixed.on_ack(st, &a);
	uet_cc_fixed.on_loss(st, &l);
	assert_int_equal(uet_cc_fixed.cwnd(st), 187500);
	/* Small BDP: at least 4 packets. */
	p.link_bps = 1000000000ULL;
	p.base_rtt_ns = 1000;
	assert_int_equal(uet_cc_fixed.init(st, &p), 0);
	assert_int_equal(uet_cc_fixed.cwnd(st), 4 * 4152);
	p.cfg = &cfg;
	assert_int_equal(uet_cc_fixed.init(st, &p), 0);
	assert_int_equal(uet_cc_fixed.cwnd(st), 123456);
	p.mss_bytes = 0;
	assert_int_equal(uet_cc_fixed.init(st, &p), UET_ERR_INVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registries),
		cmocka_unit_test(test_ops_random),
		cmocka_unit_test(test_ops_permute_each_once_per_round),
		cmocka_unit_test(test_ops_ignores_feedback_and_checks_range),
		cmocka_unit_test(test_fixed_cc),
	};

	return cmocka_run_group_tests_name("lbcc", tests, NULL, NULL);
}
