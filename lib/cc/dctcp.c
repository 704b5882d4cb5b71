/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCTCP (Alizadeh et al., SIGCOMM'10; RFC 8257) on a window of bytes:
 * alpha is the EWMA (gain g) of the fraction of ACKed bytes that were CE
 * marked, updated once per window of ACKed bytes; the first mark of a
 * window cuts cwnd to cwnd x (1 - alpha / 2), and no further cut follows
 * until one more window has been ACKed (TCP's CWR, one reaction per RTT).
 * A loss halves the window, also at most once per window. Clean ACKs add
 * MSS x acked / cwnd (one packet per window). There is no slow start: the
 * window starts at the max, 1.5 x BDP, as every CC here does (the fabric
 * simulator's convention). The REPS paper's per-ACK variant is
 * dctcp-mprdma (dctcp_mprdma.c).
 */
#include "uet/cc.h"
#include "uet/err.h"

struct dctcp_state {
	double cwnd, maxwnd, alpha;
	double undo_cwnd;          /* window before a loss episode began */
	double win_bytes;          /* length of the alpha observation window */
	double hold_bytes;         /* ACKed bytes still to come before a cut */
	uint64_t win_acked, win_marked;
	uint32_t mss;
	uint8_t g_shift;
};

_Static_assert(sizeof(struct dctcp_state) <= UET_CC_STATE_MAX, "DCTCP state too big");

int
uet_cc_dctcp_window(const struct uet_cc_params *p, double *maxwnd, double *cwnd)
{
	const struct uet_cc_dctcp_cfg *cfg = p->cfg;

	if (p->mss_bytes == 0 || p->link_bps == 0)
		return UET_ERR_INVAL;
	*maxwnd = cfg != NULL && cfg->max_cwnd_bytes
			  ? cfg->max_cwnd_bytes
			  : 1.5 * (double)p->link_bps / 8e9 * (double)p->base_rtt_ns;
	if (*maxwnd < 4.0 * p->mss_bytes)
		*maxwnd = 4.0 * p->mss_bytes;
	*cwnd = cfg != NULL && cfg->init_cwnd_bytes ? cfg->init_cwnd_bytes : *maxwnd;
	if (*cwnd > *maxwnd)
		*cwnd = *maxwnd;
	return 0;
}

static int
dctcp_init(void *stp, const struct uet_cc_params *p)
{
	const struct uet_cc_dctcp_cfg *cfg = p->cfg;
	struct dctcp_state *st = stp;
	int rc;

	*st = (struct dctcp_state){ 0 };
	rc = uet_cc_dctcp_window(p, &st->maxwnd, &st->cwnd);
	if (rc < 0)
		return rc;
	st->mss = p->mss_bytes;
	st->g_shift = cfg != NULL && cfg->g_shift ? cfg->g_shift : 4;
	if (st->g_shift > 16)
		return UET_ERR_INVAL;
	st->alpha = 1.0; /* RFC 8257 §3.3: start pessimistic */
	st->win_bytes = st->cwnd;
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

/* One reaction per window: cut now unless a cut happened less than a
 * window of ACKs ago. */
static void
cut(struct dctcp_state *st, double factor)
{
	if (st->hold_bytes > 0)
		return;
	st->cwnd *= factor;
	clamp(st);
	st->hold_bytes = st->cwnd;
}

static void
dctcp_on_ack(void *stp, const struct uet_cc_ack *a)
{
	struct dctcp_state *st = stp;
	double g = 1.0 / (double)(1u << st->g_shift);

	st->win_acked += a->acked_bytes;
	st->hold_bytes -= st->hold_bytes < a->acked_bytes ? st->hold_bytes : a->acked_bytes;
	if (a->ce) {
		st->win_marked += a->acked_bytes;
		cut(st, 1.0 - st->alpha / 2);
	} else {
		st->cwnd += (double)st->mss * a->acked_bytes / st->cwnd;
		clamp(st);
	}
	/* Once per window of ACKed bytes: alpha <- (1 - g) alpha + g F. */
	if ((double)st->win_acked >= st->win_bytes) {
		st->alpha = (1 - g) * st->alpha +
			    g * (double)st->win_marked / (double)st->win_acked;
		st->win_acked = st->win_marked = 0;
		st->win_bytes = st->cwnd;
	}
}

static void
dctcp_on_loss(void *stp, const struct uet_cc_loss *l)
{
	struct dctcp_state *st = stp;

	if (l->episode_start)
		st->undo_cwnd = st->cwnd;
	cut(st, 0.5);
}

static void
dctcp_undo(void *stp, uint64_t now_ns)
{
	struct dctcp_state *st = stp;

	(void)now_ns;
	if (st->cwnd < st->undo_cwnd)
		st->cwnd = st->undo_cwnd;
	st->hold_bytes = 0;
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
