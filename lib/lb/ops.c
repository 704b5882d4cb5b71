/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OPS, oblivious packet spraying: every packet (retransmissions included)
 * takes an EV drawn independently of any feedback. The REPS paper's baseline
 * (§4) and UEC htsim's "oblivious" load balancer (uet-htsim.md §4.1).
 */
#include <assert.h>

#include "uet/prng.h"
#include "uet/err.h"
#include "uet/lb.h"

struct ops_state {
	uint32_t ev_base;
	uint32_t ev_count;
	uint32_t pow2_mask; /* permute: smallest 2^k - 1 >= ev_count - 1 */
	uint32_t ctr;       /* permute: position in the current round */
	uint32_t xor_mask;  /* permute: this round's permutation */
	uint8_t permute;
};

_Static_assert(sizeof(struct ops_state) <= UET_LB_STATE_MAX, "OPS state too big");

static int
ops_init(void *stp, const struct uet_lb_params *p, struct uet_prng *rng)
{
	const struct uet_lb_ops_cfg *cfg = p->cfg;
	struct ops_state *st = stp;

	if (p->ev_count == 0 || (uint32_t)p->ev_base + p->ev_count > 65536)
		return UET_ERR_INVAL;
	st->ev_base = p->ev_base;
	st->ev_count = p->ev_count;
	st->permute = cfg != NULL && cfg->permute;
	st->pow2_mask = 0;
	while (st->pow2_mask < p->ev_count - 1)
		st->pow2_mask = (st->pow2_mask << 1) | 1;
	st->ctr = 0;
	st->xor_mask = (uint32_t)uet_prng_below(rng, (uint64_t)st->pow2_mask + 1);
	return 0;
}

static uint16_t
ops_next_ev(void *stp, struct uet_lb_send_ctx *c)
{
	struct ops_state *st = stp;
	uint32_t v;

	if (!st->permute)
		return (uint16_t)(st->ev_base + uet_prng_below(c->rng, st->ev_count));
	/* Walk c ^ x over [0, 2^k); values >= ev_count are skipped, so every
	 * round yields each EV exactly once in a fresh pseudo-random order. */
	for (;;) {
		if (st->ctr > st->pow2_mask) {
			st->ctr = 0;
			st->xor_mask = (uint32_t)uet_prng_below(c->rng,
							       (uint64_t)st->pow2_mask + 1);
		}
		v = (st->ctr++ ^ st->xor_mask) & st->pow2_mask;
		if (v < st->ev_count)
			return (uint16_t)(st->ev_base + v);
	}
}

static uint32_t
ops_feedback(void *st, const struct uet_lb_feedback *fb)
{
	(void)st;
	(void)fb;
	return 0;
}

const struct uet_lb_ops uet_lb_ops_spray = {
	.name = "ops",
	.state_size = sizeof(struct ops_state),
	.init = ops_init,
	.next_ev = ops_next_ev,
	.feedback = ops_feedback,
};

/* ar: switch-side adaptive routing (NVIDIA Adaptive RoCE, the REPS paper's
 * §4.1 baseline). The hosts spray as OPS does; the switches pick each
 * packet's port (uet-sim turns its adaptive routing on for this name;
 * uet-perf refuses it: on a testbed it is the switches' setting). */
const struct uet_lb_ops uet_lb_ar = {
	.name = "ar",
	.state_size = sizeof(struct ops_state),
	.init = ops_init,
	.next_ev = ops_next_ev,
	.feedback = ops_feedback,
};
