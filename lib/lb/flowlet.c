/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flowlet switching at the host, after LetFlow (Vanini et al., NSDI'17): a
 * PDC keeps its EV while its packets come back to back and takes a new
 * random EV when the gap since its previous packet exceeds gap_ns. LetFlow
 * chooses at random and relies on flowlets shrinking on congested paths;
 * the REPS evaluation sets the gap aggressively to half the RTT (reps.md
 * §2.6), our default. Congestion feedback is ignored. With ack_clock, the
 * artifact's version (reps.md §2.6): the gap runs from the last ACK, so a
 * flow whose ACKs stop (a dead path) moves, and a PDC repaths at most once
 * per RTO.
 */
#include "uet/err.h"
#include "uet/lb.h"

struct flowlet_state {
	uint64_t last_tx_ns;
	uint64_t last_ack_ns;
	uint64_t last_repath_ns;
	uint16_t ev;
	uint8_t started;
};

_Static_assert(sizeof(struct flowlet_state) <= UET_LB_STATE_MAX, "flowlet state too big");

static int
flowlet_init(void *stp, const struct uet_lb_params *p, struct uet_prng *rng)
{
	struct flowlet_state *st = stp;

	(void)rng;
	if (p->ev_count == 0 || (uint32_t)p->ev_base + p->ev_count > 65536)
		return UET_ERR_INVAL;
	st->last_tx_ns = 0;
	st->last_ack_ns = 0;
	st->last_repath_ns = 0;
	st->ev = 0;
	st->started = 0;
	return 0;
}

static uint16_t
flowlet_next_ev(void *stp, struct uet_lb_send_ctx *c)
{
	const struct uet_lb_flowlet_cfg *cfg = c->p->cfg;
	struct flowlet_state *st = stp;
	uint64_t gap = cfg != NULL && cfg->gap_ns ? cfg->gap_ns : c->p->base_rtt_ns / 2;

	bool ack_clock = cfg != NULL && cfg->ack_clock;
	bool move;

	if (!st->started) {
		/* The first packet; with ack_clock the gap starts here too. */
		st->last_ack_ns = st->last_repath_ns = c->now_ns;
		move = true;
	} else if (ack_clock) {
		move = c->now_ns - st->last_ack_ns > gap &&
		       c->now_ns - st->last_repath_ns > c->rto_ns;
	} else {
		move = c->now_ns - st->last_tx_ns > gap;
	}
	if (move) {
		if (st->started)
			c->events |= UET_LB_EV_REPATH;
		st->ev = uet_lb_random_ev(c->p, c->rng);
		st->started = 1;
		st->last_repath_ns = c->now_ns;
	}
	st->last_tx_ns = c->now_ns;
	return st->ev;
}

static uint32_t
flowlet_feedback(void *stp, const struct uet_lb_feedback *fb)
{
	struct flowlet_state *st = stp;

	if (fb->kind == UET_LB_FB_ACK)
		st->last_ack_ns = fb->now_ns;
	return 0;
}

const struct uet_lb_ops uet_lb_flowlet = {
	.name = "flowlet",
	.state_size = sizeof(struct flowlet_state),
	.init = flowlet_init,
	.next_ev = flowlet_next_ev,
	.feedback = flowlet_feedback,
};
