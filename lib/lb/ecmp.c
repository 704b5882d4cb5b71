/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECMP: one EV for the PDC's whole life, retransmissions included, so the
 * flow hashes onto one path like RoCEv2 traffic does (REPS §2.1, the
 * baseline that collides). The EV is drawn at random from the set.
 */
#include "uet/err.h"
#include "uet/lb.h"

struct ecmp_state {
	uint16_t ev;
};

_Static_assert(sizeof(struct ecmp_state) <= UET_LB_STATE_MAX, "ECMP state too big");

static int
ecmp_init(void *stp, const struct uet_lb_params *p, struct uet_prng *rng)
{
	struct ecmp_state *st = stp;

	if (p->ev_count == 0 || (uint32_t)p->ev_base + p->ev_count > 65536)
		return UET_ERR_INVAL;
	st->ev = uet_lb_random_ev(p, rng);
	return 0;
}

static uint16_t
ecmp_next_ev(void *stp, struct uet_lb_send_ctx *c)
{
	(void)c;
	return ((struct ecmp_state *)stp)->ev;
}

static uint32_t
ecmp_feedback(void *st, const struct uet_lb_feedback *fb)
{
	(void)st;
	(void)fb;
	return 0;
}

const struct uet_lb_ops uet_lb_ecmp = {
	.name = "ecmp",
	.state_size = sizeof(struct ecmp_state),
	.init = ecmp_init,
	.next_ev = ecmp_next_ev,
	.feedback = ecmp_feedback,
};
