/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STrack's congestion window (Le et al., Table 1 and Algorithm 4;
 * strack_slides.md §2). ECN says where (the load balancer switches path),
 * RTT says how much:
 * - no ECN, delay < target: increase by alpha x (target - delay) per window;
 * - no ECN, delay >= target: additive increase by beta per window (the
 *   paper's prose; its pseudo-code reserves it for delay > 3 x target and
 *   lets unmarked mid-band packets cut: we follow the quadrant table, which
 *   never cuts on an unmarked packet);
 * - ECN, delay >= target: at most once per base RTT, if the averaged delay
 *   is over target, cut to the achieved BDP when delay > target_Qhigh and
 *   the achieved BDP is under max / 8, else multiply by
 *   max(1 - gamma (avg - target) / avg, 0.5);
 * - ECN, delay < target: keep the window;
 * - plus eta once per base RTT (fairness).
 * Constants from Table 1 in bytes: beta = 5 MSS x bdp_sf, eta = 0.15 MSS x
 * bdp_sf, alpha = 4 MSS x bdp_sf x delay_sf / base_rtt, gamma 0.8, EWMA
 * 0.125, target_Qhigh = 3 x target. max_cwnd (not given numerically) is
 * 1.5 x BDP; a loss costs one packet (the paper specifies no reaction).
 */
#include "uet/cc.h"
#include "uet/err.h"

struct strack_state {
	double cwnd, maxwnd, avg_delay, alpha, beta, eta;
	double undo_cwnd;          /* window before a loss episode began */
	uint64_t base_rtt, target, qhigh;
	uint64_t rx_count, achieved_bdp, clear_ts, last_dec, last_fair;
	uint32_t mss;
};

_Static_assert(sizeof(struct strack_state) <= UET_CC_STATE_MAX, "STrack CC state too big");

static int
strack_init(void *stp, const struct uet_cc_params *p)
{
	const struct uet_cc_strack_cfg *cfg = p->cfg;
	struct strack_state *st = stp;
	double bdp, bdp_sf, delay_sf;

	if (p->mss_bytes == 0 || p->base_rtt_ns == 0 || p->link_bps == 0)
		return UET_ERR_INVAL;
	*st = (struct strack_state){ 0 };
	st->mss = p->mss_bytes;
	st->base_rtt = p->base_rtt_ns;
	st->target = cfg != NULL && cfg->target_qdelay_ns ? cfg->target_qdelay_ns : p->base_rtt_ns;
	st->qhigh = 3 * st->target;
	bdp = (double)p->link_bps / 8e9 * (double)p->base_rtt_ns;
	bdp_sf = bdp / 150000.0;
	delay_sf = (double)p->base_rtt_ns / 12000.0;
	st->beta = 5.0 * st->mss * bdp_sf;
	st->eta = 0.15 * st->mss * bdp_sf;
	st->alpha = 4.0 * st->mss * bdp_sf * delay_sf / (double)p->base_rtt_ns;
	st->maxwnd = cfg != NULL && cfg->max_cwnd_bytes ? cfg->max_cwnd_bytes : 1.5 * bdp;
	if (st->maxwnd < st->mss)
		st->maxwnd = st->mss;
	st->cwnd = cfg != NULL && cfg->init_cwnd_bytes ? cfg->init_cwnd_bytes : st->maxwnd;
	if (st->cwnd > st->maxwnd)
		st->cwnd = st->maxwnd;
	return 0;
}

static void
clamp(struct strack_state *st)
{
	if (st->cwnd < st->mss)
		st->cwnd = st->mss;
	if (st->cwnd > st->maxwnd)
		st->cwnd = st->maxwnd;
}

static void
strack_on_ack(void *stp, const struct uet_cc_ack *a)
{
	struct strack_state *st = stp;
	double delay, target = (double)st->target;

	if (a->rtt_ns != 0) {
		if (a->rtt_ns < st->base_rtt)
			st->base_rtt = a->rtt_ns;
		delay = (double)(a->rtt_ns - st->base_rtt);
		st->avg_delay = 0.875 * st->avg_delay + 0.125 * delay;
	} else {
		delay = st->avg_delay;
	}
	/* Algorithm 2: bytes delivered per (base RTT + target). */
	st->rx_count += a->acked_bytes;
	if (a->now_ns - st->clear_ts > st->base_rtt + st->target) {
		st->achieved_bdp = st->rx_count;
		st->rx_count = 0;
		st->clear_ts = a->now_ns;
	}
	if (!a->ce && delay < target) {
		st->cwnd += st->alpha * (target - delay) * a->acked_bytes / st->cwnd;
	} else if (!a->ce) {
		st->cwnd += st->beta * a->acked_bytes / st->cwnd;
	} else if (delay >= target && st->avg_delay > target &&
		   a->now_ns - st->last_dec > st->base_rtt) {
		if (delay > (double)st->qhigh && st->achieved_bdp < st->maxwnd / 8) {
			st->cwnd = (double)st->achieved_bdp;
		} else {
			double f = 1 - 0.8 * (st->avg_delay - target) / st->avg_delay;

			st->cwnd *= f < 0.5 ? 0.5 : f;
		}
		st->last_dec = a->now_ns;
	}
	if (a->now_ns - st->last_fair > st->base_rtt) {
		st->cwnd += st->eta;
		st->last_fair = a->now_ns;
	}
	clamp(st);
}

static void
strack_on_loss(void *stp, const struct uet_cc_loss *l)
{
	struct strack_state *st = stp;

	if (l->episode_start)
		st->undo_cwnd = st->cwnd;
	st->cwnd -= st->mss;
	clamp(st);
}

static void
strack_undo(void *stp, uint64_t now_ns)
{
	struct strack_state *st = stp;

	(void)now_ns;
	if (st->cwnd < st->undo_cwnd)
		st->cwnd = st->undo_cwnd;
	clamp(st);
}

static uint32_t
strack_cwnd(const void *stp)
{
	return (uint32_t)((const struct strack_state *)stp)->cwnd;
}

const struct uet_cc_ops uet_cc_strack = {
	.name = "strack",
	.state_size = sizeof(struct strack_state),
	.init = strack_init,
	.on_ack = strack_on_ack,
	.on_loss = strack_on_loss,
	.cwnd = strack_cwnd,
	.undo = strack_undo,
};
