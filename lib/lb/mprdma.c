/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPRDMA's path choice (Lu et al., NSDI'18) as the REPS artifact runs it
 * (reps.md §2.4): ACK clocking. An ACK after which the window lets one
 * more packet out hands its EV (the path it came back on) to the next
 * send; an ACK that does not open the window hands nothing, and a send
 * with no EV handed to it (the first window, after losses) draws one at
 * random. No EV is cached beyond the next send, and a CE mark does not
 * stop the reuse: the CC's cut on that ACK usually closes the window, and
 * then no packet follows that path (MPRDMA's congestion-aware clocking).
 */
#include "uet/err.h"
#include "uet/lb.h"

struct mprdma_state {
	uint16_t ev;      /* handed over by the last window-opening ACK */
	uint8_t has_ev;
};

_Static_assert(sizeof(struct mprdma_state) <= UET_LB_STATE_MAX, "MPRDMA state too big");

static int
mprdma_init(void *stp, const struct uet_lb_params *p, struct uet_prng *rng)
{
	struct mprdma_state *st = stp;

	(void)rng;
	if (p->ev_count == 0 || (uint32_t)p->ev_base + p->ev_count > 65536)
		return UET_ERR_INVAL;
	st->ev = 0;
	st->has_ev = 0;
	return 0;
}

static uint16_t
mprdma_next_ev(void *stp, struct uet_lb_send_ctx *c)
{
	struct mprdma_state *st = stp;

	if (st->has_ev) {
		st->has_ev = 0;
		return st->ev;
	}
	return uet_lb_random_ev(c->p, c->rng);
}

static uint32_t
mprdma_feedback(void *stp, const struct uet_lb_feedback *fb)
{
	struct mprdma_state *st = stp;

	if (fb->kind != UET_LB_FB_ACK)
		return 0;
	if ((uint64_t)fb->cwnd_bytes >= (uint64_t)fb->inflight_bytes + fb->p->mss_bytes) {
		st->ev = fb->ev;
		st->has_ev = 1;
	} else {
		st->has_ev = 0;
	}
	return 0;
}

const struct uet_lb_ops uet_lb_mprdma = {
	.name = "mprdma",
	.state_size = sizeof(struct mprdma_state),
	.init = mprdma_init,
	.next_ev = mprdma_next_ev,
	.feedback = mprdma_feedback,
};
