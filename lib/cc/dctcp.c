/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCTCP as the REPS evaluation used it (the MPRDMA variant, reps.md §3.2):
 * the window moves on every ACK, the receiver ACKs out of order, a loss
 * costs one packet. Unlike the artifact's fixed cut (acked / 4 per marked
 * ACK), the cut is DCTCP's: alpha is the EWMA (gain g) of the fraction of
 * marked bytes per window, and each marked ACK removes acked x alpha / 2, so
 * a fully marked window is cut by alpha / 2 as in DCTCP (Alizadeh et al.).
 * Clean ACKs add MSS x acked / cwnd (one packet per window). Max window
 * 1.5 x BDP, initial window the max.
 */
#include "uet/cc.h"
#include "uet/err.h"

struct dctcp_state {
	double cwnd, maxwnd, alpha;
	double undo_cwnd;          /* window before a loss episode began */
	uint64_t win_acked, win_marked;
	uint32_t mss;
	uint8_t g_shift;
};

_Static_assert(sizeof(struct dctcp_state) <= UET_CC_STATE_MAX, "DCTCP state too big");

static int
dctcp_init(void *stp, const struct uet_cc_params *p)
{
	const struct uet_cc_dctcp_cfg *cfg = p->cfg;
	struct dctcp_state *st = stp;

	if (p->mss_bytes == 0 || p->link_bps == 0)
		return UET_ERR_INVAL;
	*st = (struct dctcp_state){ 0 };
	st->mss = p->mss_bytes;
	st->g_shift = cfg != NULL && cfg->g_shift ? cfg->g_shift : 4;
	if (st->g_shift > 16)
		return UET_ERR_INVAL;
	st->maxwnd = cfg != NULL && cfg->max_cwnd_bytes
			     ? cfg->max_cwnd_bytes
			     : 1.5 * (double)p->link_bps / 8e9 * (double)p->base_rtt_ns;
	if (st->maxwnd < 4.0 * st->mss)
		st->maxwnd = 4.0 * st->mss;
	st->cwnd = cfg != NULL && cfg->init_cwnd_bytes ? cfg->init_cwnd_bytes : st->maxwnd;
	if (st->cwnd > st->maxwnd)
		st->cwnd = st->maxwnd;
	st->alpha = 1.0; /* DCTCP starts pessimistic */
	return 0;
}

static void
clamp(struct dctcp_state *st)
{
	if (st->cwnd < st->mss)
		st->cwnd = st->mss;
	if (st->cwnd > st->maxwnd)
		st->cwnd = st->maxwnd;
}

static void
dctcp_on_ack(void *stp, const struct uet_cc_ack *a)
{
	struct dctcp_state *st = stp;
	double g = 1.0 / (double)(1u << st->g_shift);

	st->win_acked += a->acked_bytes;
	if (a->ce) {
		st->win_marked += a->acked_bytes;
		st->cwnd -= a->acked_bytes * st->alpha / 2;
	} else {
		st->cwnd += (double)st->mss * a->acked_bytes / st->cwnd;
	}
	clamp(st);
	/* Once per window of ACKed bytes: alpha <- (1 - g) alpha + g F. */
	if (st->win_acked >= st->cwnd) {
		st->alpha = (1 - g) * st->alpha +
			    g * (double)st->win_marked / (double)st->win_acked;
		st->win_acked = st->win_marked = 0;
	}
}

static void
dctcp_on_loss(void *stp, const struct uet_cc_loss *l)
{
	struct dctcp_state *st = stp;

	if (l->episode_start)
		st->undo_cwnd = st->cwnd;
	st->cwnd -= st->mss;
	clamp(st);
}

static void
dctcp_undo(void *stp, uint64_t now_ns)
{
	struct dctcp_state *st = stp;

	(void)now_ns;
	if (st->cwnd < st->undo_cwnd)
		st->cwnd = st->undo_cwnd;
	clamp(st);
}

static uint32_t
dctcp_cwnd(const void *stp)
{
	return (uint32_t)((const struct dctcp_state *)stp)->cwnd;
}

const struct uet_cc_ops uet_cc_dctcp = {
	.name = "dctcp",
	.state_size = sizeof(struct dctcp_state),
	.init = dctcp_init,
	.on_ack = dctcp_on_ack,
	.on_loss = dctcp_on_loss,
	.cwnd = dctcp_cwnd,
	.undo = dctcp_undo,
};
