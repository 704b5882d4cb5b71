/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NSCC, UET's Network Signal-based Congestion Control, as the UEC's htsim
 * implements it (uet-htsim.md §5; UecSrc::updateCwndOnAck_NSCC):
 *
 * - four ECN x delay quadrants: no ECN and delay under target:
 *   proportional increase (or fast increase after a whole window with
 *   delay under 1 us); no ECN and delay over target: fair increase; ECN and
 *   delay over target: multiplicative decrease by the averaged delay, at
 *   most once per base RTT; ECN and delay under target: no change (the load
 *   balancer moves away);
 * - increases accumulate and are applied at most every 8 packets or every
 *   network RTT ("fulfil adjustment"), plus eta once per network RTT;
 * - quick adapt: once per (base RTT + target), after a loss, a NACK or a
 *   delay above 4 x target, a window that achieved less than max >> qa_gate
 *   is cut to what it achieved, and ECN-marked ACKs of the packets then in
 *   flight are ignored;
 * - NACK: a network-RTT delay sample, quick adapt, else minus the bytes;
 *   RTO: minus one packet;
 * - parameters scale with BDP / (100 Gb/s x 12 us) and target / 12 us;
 *   max window 1.5 BDP, recomputed when the base RTT drops (unless the
 *   configuration fixes it: hosts' RTT samples include host delays); the
 *   transport gives RTT samples only for unambiguous (not retransmitted)
 *   packets.
 * Inferred losses (reordering, probe) trigger quick adapt and cost one
 * packet, like an RTO (htsim's SLEEK leaves cwnd alone; a cut is the safer
 * side); when the transport proves every loss of the episode spurious, undo
 * restores the window saved when the episode began.
 */
#include "uet/cc.h"
#include "uet/err.h"

struct nscc_state {
	double cwnd, maxwnd, inc_bytes, avg_delay;
	double undo_cwnd;          /* window before a loss episode began */
	double alpha, fi, eta, fi_scale, bytes_per_ns;
	uint64_t base_rtt, net_rtt, target;
	uint64_t fi_count, received, achieved, to_ignore, ignored;
	uint64_t qa_end, last_adjust, last_eta, last_dec;
	uint32_t mss;
	uint8_t qa_gate;
	uint8_t fast;
	uint8_t fixed_max;
	uint8_t trigger_qa;
};

_Static_assert(sizeof(struct nscc_state) <= UET_CC_STATE_MAX, "NSCC state too big");

#define REF_BDP_BYTES 150000.0 /* 100 Gb/s x 12 us */
#define REF_RTT_NS 12000.0
#define GAMMA 0.8
#define DELAY_GAIN 0.0125
#define FAST_DELAY_NS 1000

static int
nscc_init(void *stp, const struct uet_cc_params *p)
{
	const struct uet_cc_nscc_cfg *cfg = p->cfg;
	struct nscc_state *st = stp;
	double bdp, a, b;

	if (p->mss_bytes == 0 || p->base_rtt_ns == 0 || p->link_bps == 0)
		return UET_ERR_INVAL;
	*st = (struct nscc_state){ 0 };
	st->mss = p->mss_bytes;
	st->net_rtt = p->base_rtt_ns;
	st->base_rtt = p->base_rtt_ns;
	st->bytes_per_ns = (double)p->link_bps / 8e9;
	bdp = st->bytes_per_ns * (double)st->net_rtt;
	if (cfg != NULL && cfg->target_qdelay_ns != 0)
		st->target = cfg->target_qdelay_ns;
	else
		st->target = cfg != NULL && cfg->trimming ? st->net_rtt * 3 / 4 : st->net_rtt;
	a = bdp / REF_BDP_BYTES;
	b = (double)st->target / REF_RTT_NS;
	st->alpha = 4.0 * st->mss * a * b / (double)st->target;
	st->fi = 5.0 * st->mss * a;
	st->eta = 0.15 * st->mss * a;
	st->fi_scale = 0.25 * a;
	st->qa_gate = cfg != NULL && cfg->qa_gate ? cfg->qa_gate : 3;
	st->maxwnd = cfg != NULL && cfg->max_cwnd_bytes ? cfg->max_cwnd_bytes : 1.5 * bdp;
	st->fixed_max = cfg != NULL && (cfg->max_cwnd_bytes != 0 || cfg->fixed_max_cwnd);
	if (st->maxwnd < st->mss)
		st->maxwnd = st->mss;
	st->cwnd = cfg != NULL && cfg->init_cwnd_bytes ? cfg->init_cwnd_bytes : st->maxwnd;
	if (st->cwnd > st->maxwnd)
		st->cwnd = st->maxwnd;
	return 0;
}

static void
clamp(struct nscc_state *st)
{
	if (st->cwnd < st->mss)
		st->cwnd = st->mss;
	if (st->cwnd > st->maxwnd)
		st->cwnd = st->maxwnd;
}

/* The base RTT only falls; unless the max window is fixed, it follows. */
static void
lower_base_rtt(struct nscc_state *st, uint64_t rtt)
{
	if (rtt >= st->base_rtt)
		return;
	st->base_rtt = rtt;
	if (!st->fixed_max) {
		st->maxwnd = 1.5 * st->bytes_per_ns * (double)st->base_rtt;
		if (st->maxwnd < st->mss)
			st->maxwnd = st->mss;
	}
}

/* Delay EWMA: a high delay without a mark is not trusted (base RTT / 4). */
static void
update_delay(struct nscc_state *st, bool ce, double delay)
{
	double sample = (!ce && delay > (double)st->target) ? (double)st->base_rtt / 4 : delay;

	st->avg_delay = DELAY_GAIN * sample + (1 - DELAY_GAIN) * st->avg_delay;
}

/* Returns true if quick adapt cut the window. */
static bool
quick_adapt(struct nscc_state *st, bool is_loss, double delay, uint64_t now,
	    uint32_t inflight)
{
	bool fired = false;

	if (now < st->qa_end)
		return false;
	if (st->qa_end != 0 &&
	    (st->trigger_qa || is_loss || delay > 4.0 * (double)st->target) &&
	    st->achieved < ((uint64_t)st->maxwnd >> st->qa_gate)) {
		st->cwnd = st->achieved > st->mss ? (double)st->achieved : st->mss;
		st->to_ignore = inflight;
		st->ignored = 0;
		st->trigger_qa = 0;
		fired = true;
	}
	st->achieved = 0;
	st->qa_end = now + st->base_rtt + st->target;
	if (fired) {
		st->inc_bytes = 0;
		st->received = 0;
	}
	return fired;
}

static void
nscc_on_ack(void *stp, const struct uet_cc_ack *a)
{
	struct nscc_state *st = stp;
	double delay;

	if (a->rtt_ns != 0) {
		lower_base_rtt(st, a->rtt_ns);
		delay = (double)(a->rtt_ns - st->base_rtt);
		update_delay(st, a->ce, delay);
	} else {
		delay = st->avg_delay;
	}
	st->achieved += a->acked_bytes;
	st->received += a->acked_bytes;
	st->ignored += a->acked_bytes;

	if (quick_adapt(st, false, delay, a->now_ns, a->inflight_bytes))
		goto out;
	if (a->ce && st->ignored < st->to_ignore) {
		/* Marks of packets sent before quick adapt fired. */
		st->inc_bytes = 0;
		st->received = 0;
		goto out;
	}
	if (!a->ce && delay >= (double)st->target) {
		st->inc_bytes += st->fi * a->acked_bytes;
		st->fi_count = 0;
		st->fast = 0;
	} else if (!a->ce) {
		if (delay < FAST_DELAY_NS) {
			st->fi_count += a->acked_bytes;
			if (st->fi_count > st->cwnd || st->fast) {
				st->cwnd += a->acked_bytes * st->fi_scale;
				st->fast = 1;
			}
		} else {
			st->fi_count = 0;
			st->fast = 0;
		}
		if (!st->fast)
			st->inc_bytes += st->alpha * a->acked_bytes * ((double)st->target - delay);
	} else if (delay >= (double)st->target) {
		st->fi_count = 0;
		st->fast = 0;
		if (st->avg_delay > (double)st->target &&
		    a->now_ns - st->last_dec > st->base_rtt) {
			double f = 1 - GAMMA * (st->avg_delay - (double)st->target) / st->avg_delay;

			st->cwnd *= f < 0.5 ? 0.5 : f;
			st->last_dec = a->now_ns;
		}
	}
	clamp(st);
	if (st->received > 8ULL * st->mss || a->now_ns - st->last_adjust > st->net_rtt) {
		st->cwnd += st->inc_bytes / st->cwnd;
		if (a->now_ns - st->last_eta > st->net_rtt) {
			st->cwnd += st->eta;
			st->last_eta = a->now_ns;
			st->last_adjust = a->now_ns;
		}
		st->inc_bytes = 0;
		st->received = 0;
	}
out:
	clamp(st);
}

static void
nscc_on_loss(void *stp, const struct uet_cc_loss *l)
{
	struct nscc_state *st = stp;

	switch (l->kind) {
	case UET_CC_LOSS_TRIM:
	case UET_CC_LOSS_TRIM_LASTHOP:
		/* htsim's default (update_base_rtt_on_nack), with unambiguous
		 * samples only (uet-htsim.md §9). */
		if (l->rtt_ns != 0 && !st->fixed_max)
			lower_base_rtt(st, l->rtt_ns);
		st->ignored += l->lost_bytes;
		update_delay(st, true, (double)st->net_rtt);
		st->trigger_qa = 1;
		if (!quick_adapt(st, true, (double)st->net_rtt, l->now_ns, l->inflight_bytes))
			st->cwnd -= l->lost_bytes;
		break;
	case UET_CC_LOSS_INFERRED:
		if (l->episode_start)
			st->undo_cwnd = st->cwnd;
		st->trigger_qa = 1;
		if (!quick_adapt(st, true, st->avg_delay, l->now_ns, l->inflight_bytes))
			st->cwnd -= st->mss;
		break;
	case UET_CC_LOSS_TIMEOUT:
		if (l->episode_start)
			st->undo_cwnd = st->cwnd;
		st->cwnd -= st->mss;
		break;
	}
	clamp(st);
}

/* The episode's losses were reordering or delay, not drops: restore the
 * window and forget the quick-adapt trigger they armed. Marks of packets
 * sent meanwhile still count. */
static void
nscc_undo(void *stp, uint64_t now_ns)
{
	struct nscc_state *st = stp;

	(void)now_ns;
	st->trigger_qa = 0;
	if (st->cwnd < st->undo_cwnd)
		st->cwnd = st->undo_cwnd;
	clamp(st);
}

static uint32_t
nscc_cwnd(const void *stp)
{
	return (uint32_t)((const struct nscc_state *)stp)->cwnd;
}

const struct uet_cc_ops uet_cc_nscc = {
	.name = "nscc",
	.state_size = sizeof(struct nscc_state),
	.init = nscc_init,
	.on_ack = nscc_on_ack,
	.on_loss = nscc_on_loss,
	.cwnd = nscc_cwnd,
	.undo = nscc_undo,
};
