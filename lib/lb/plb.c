/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protective Load Balancing (Qureshi et al., SIGCOMM'22): a flow stays on
 * one EV; each round (one base RTT) counts its ACKed packets and the CE
 * marked ones; after 'rounds' congested rounds in a row (CE fraction above
 * ce_pct) it moves to a new random EV. A timeout also moves it (once per
 * round). Defaults are PLB's (K = 0.5, M = 3); the REPS evaluation ran a
 * more aggressive setting (25 %, 1 round), reachable through the config.
 */
#include "uet/err.h"
#include "uet/lb.h"

struct plb_state {
	uint64_t round_end_ns;
	uint64_t last_repath_ns;
	uint32_t acked;
	uint32_t marked;
	uint16_t ev;
	uint8_t congested;   /* congested rounds in a row */
	uint8_t repath;      /* take a new EV at the next send */
};

_Static_assert(sizeof(struct plb_state) <= UET_LB_STATE_MAX, "PLB state too big");

static int
plb_init(void *stp, const struct uet_lb_params *p, struct uet_prng *rng)
{
	struct plb_state *st = stp;

	if (p->ev_count == 0 || (uint32_t)p->ev_base + p->ev_count > 65536)
		return UET_ERR_INVAL;
	st->round_end_ns = 0;
	st->last_repath_ns = 0;
	st->acked = st->marked = 0;
	st->ev = uet_lb_random_ev(p, rng);
	st->congested = 0;
	st->repath = 0;
	return 0;
}

static uint16_t
plb_next_ev(void *stp, struct uet_lb_send_ctx *c)
{
	struct plb_state *st = stp;

	if (st->repath) {
		st->repath = 0;
		st->ev = uet_lb_random_ev(c->p, c->rng);
		st->last_repath_ns = c->now_ns;
		c->events |= UET_LB_EV_REPATH;
	}
	return st->ev;
}

static uint32_t
plb_feedback(void *stp, const struct uet_lb_feedback *fb)
{
	const struct uet_lb_plb_cfg *cfg = fb->p->cfg;
	struct plb_state *st = stp;
	uint32_t pct = cfg != NULL && cfg->ce_pct ? cfg->ce_pct : 50;
	uint32_t rounds = cfg != NULL && cfg->rounds ? cfg->rounds : 3;

	switch (fb->kind) {
	case UET_LB_FB_ACK:
		/* Feedback about an EV we already left says nothing about
		 * the current path. */
		if (fb->ev != st->ev)
			return 0;
		if (st->round_end_ns == 0)
			st->round_end_ns = fb->now_ns + fb->base_rtt_ns;
		st->acked++;
		st->marked += fb->ce;
		if (fb->now_ns < st->round_end_ns)
			return 0;
		if ((uint64_t)st->marked * 100 > (uint64_t)st->acked * pct) {
			if (++st->congested >= rounds) {
				st->repath = 1;
				st->congested = 0;
			}
		} else {
			st->congested = 0;
		}
		st->acked = st->marked = 0;
		st->round_end_ns = fb->now_ns + fb->base_rtt_ns;
		return 0;
	case UET_LB_FB_TIMEOUT:
		if ((cfg == NULL || !cfg->no_rto_repath) &&
		    fb->now_ns - st->last_repath_ns > fb->base_rtt_ns) {
			st->repath = 1;
			st->congested = 0;
		}
		return 0;
	default:
		return 0;
	}
}

const struct uet_lb_ops uet_lb_plb = {
	.name = "plb",
	.state_size = sizeof(struct plb_state),
	.init = plb_init,
	.next_ev = plb_next_ev,
	.feedback = plb_feedback,
};
