/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DCTCP variant of MPRDMA that the REPS evaluation runs under every load
 * balancer (reps.md §3.2, the artifact's updateCwndOnAck_MPRDMA): the window
 * moves on every ACK with no alpha: a clean ACK adds MSS x acked / cwnd (one
 * packet per window), a CE-marked ACK removes acked / 4, a loss removes the
 * lost bytes (one packet). Max and initial window 1.5 x BDP (the artifact's
 * -cwnd 151 packets at 400 Gb/s). Out-of-order ACKs are normal and change
 * nothing. Real DCTCP is dctcp.c.
 *
 * Optionally (cfg fast_increase_at_ns, the artifact's mprdma_fast_recovery)
 * a clean ACK also runs the artifact's fast increase, as its
 * updateCwndOnAck_MPRDMA does once its micro failure benchmark passes 650
 * us: after a window's worth of ACKs under 1 us of queueing, every such
 * ACK adds half what it acknowledged, so a window that timeouts cut to a
 * packet regrows by half each RTT instead of by one packet.
 */
#include "uet/cc.h"
#include "uet/err.h"

/* Fast increase: queueing under this counts as an empty path */
#define FAST_DELAY_NS 1000

struct mprdma_state {
	double cwnd, maxwnd;
	double undo_cwnd;          /* window before a loss episode began */
	uint64_t fi_at_ns;         /* 0: no fast increase */
	uint64_t fi_count;         /* bytes ACKed in a row under FAST_DELAY_NS */
	uint64_t last_delay_ns;    /* for ACKs without an RTT sample */
	uint32_t mss;
	bool fast;
};

_Static_assert(sizeof(struct mprdma_state) <= UET_CC_STATE_MAX, "dctcp-mprdma state too big");

static int
mprdma_init(void *stp, const struct uet_cc_params *p)
{
	const struct uet_cc_dctcp_cfg *cfg = p->cfg;
	struct mprdma_state *st = stp;

	*st = (struct mprdma_state){ 0 };
	st->mss = p->mss_bytes;
	if (cfg != NULL)
		st->fi_at_ns = cfg->fast_increase_at_ns;
	return uet_cc_dctcp_window(p, &st->maxwnd, &st->cwnd);
}

static void
clamp(struct mprdma_state *st)
{
	if (st->cwnd < st->mss)
		st->cwnd = st->mss;
	if (st->cwnd > st->maxwnd)
		st->cwnd = st->maxwnd;
}

/* The artifact's fast_increase() on a clean ACK (NSCC's, with a fixed
 * factor of 1/2; a mark only restarts the count, as there). */
static void
fast_increase(struct mprdma_state *st, const struct uet_cc_ack *a)
{
	if (a->rtt_ns != 0)
		st->last_delay_ns = a->rtt_ns > a->min_rtt_ns ? a->rtt_ns - a->min_rtt_ns : 0;
	if (st->last_delay_ns < FAST_DELAY_NS) {
		st->fi_count += a->acked_bytes;
		if ((double)st->fi_count > st->cwnd || st->fast) {
			st->cwnd += a->acked_bytes / 2.0;
			st->fast = true;
			return;
		}
	} else {
		st->fi_count = 0;
	}
	st->fast = false;
}

static void
mprdma_on_ack(void *stp, const struct uet_cc_ack *a)
{
	struct mprdma_state *st = stp;

	if (a->ce) {
		st->cwnd -= a->acked_bytes / 4.0;
		st->fi_count = 0;
	} else {
		if (st->fi_at_ns != 0 && a->now_ns >= st->fi_at_ns)
			fast_increase(st, a);
		st->cwnd += (double)st->mss * a->acked_bytes / st->cwnd;
	}
	clamp(st);
}

static void
mprdma_on_loss(void *stp, const struct uet_cc_loss *l)
{
	struct mprdma_state *st = stp;

	if (l->episode_start)
		st->undo_cwnd = st->cwnd;
	st->cwnd -= l->lost_bytes;
	clamp(st);
}

static void
mprdma_undo(void *stp, uint64_t now_ns)
{
	struct mprdma_state *st = stp;

	(void)now_ns;
	if (st->cwnd < st->undo_cwnd)
		st->cwnd = st->undo_cwnd;
	clamp(st);
}

static uint32_t
mprdma_cwnd(const void *stp)
{
	return (uint32_t)((const struct mprdma_state *)stp)->cwnd;
}

const struct uet_cc_ops uet_cc_dctcp_mprdma = {
	.name = "dctcp-mprdma",
	.state_size = sizeof(struct mprdma_state),
	.init = mprdma_init,
	.on_ack = mprdma_on_ack,
	.on_loss = mprdma_on_loss,
	.cwnd = mprdma_cwnd,
	.undo = mprdma_undo,
};
