/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The REPS paper's MPTCP-like baseline (reps.md §2.7): a message split over
 * 8 subflows, each routed on its own static EV, "similarly to using
 * multiple QPs", under one CC (not MPTCP's coupled one). As in the
 * artifact, packets round-robin over the subflows, whose EVs are
 * consecutive from a random start in the EV set (consecutive EVs hash to
 * independent paths). Feedback is ignored: a congested or dead subflow
 * keeps its share.
 */
#include "uet/err.h"
#include "uet/lb.h"

#define MPTCP_DEFAULT_SUBFLOWS 8
#define MPTCP_MAX_SUBFLOWS 64

struct mptcp_state {
	uint32_t first;  /* index of subflow 0's EV in the set */
	uint8_t n;       /* subflows */
	uint8_t next;    /* the subflow of the next packet */
};

_Static_assert(sizeof(struct mptcp_state) <= UET_LB_STATE_MAX, "MPTCP state too big");

static int
mptcp_init(void *stp, const struct uet_lb_params *p, struct uet_prng *rng)
{
	const struct uet_lb_mptcp_cfg *cfg = p->cfg;
	struct mptcp_state *st = stp;
	uint32_t n = cfg != NULL && cfg->subflows ? cfg->subflows : MPTCP_DEFAULT_SUBFLOWS;

	if (p->ev_count == 0 || (uint32_t)p->ev_base + p->ev_count > 65536 ||
	    n > MPTCP_MAX_SUBFLOWS)
		return UET_ERR_INVAL;
	/* Fewer EVs than subflows: each EV is one subflow. */
	st->n = (uint8_t)(n < p->ev_count ? n : p->ev_count);
	st->first = (uint32_t)uet_prng_below(rng, p->ev_count);
	st->next = 0;
	return 0;
}

static uint16_t
mptcp_next_ev(void *stp, struct uet_lb_send_ctx *c)
{
	struct mptcp_state *st = stp;
	uint32_t i = (st->first + st->next) % c->p->ev_count;

	st->next = (uint8_t)((st->next + 1) % st->n);
	return (uint16_t)(c->p->ev_base + i);
}

static uint32_t
mptcp_feedback(void *st, const struct uet_lb_feedback *fb)
{
	(void)st;
	(void)fb;
	return 0;
}

const struct uet_lb_ops uet_lb_mptcp = {
	.name = "mptcp",
	.state_size = sizeof(struct mptcp_state),
	.init = mptcp_init,
	.next_ev = mptcp_next_ev,
	.feedback = mptcp_feedback,
};
