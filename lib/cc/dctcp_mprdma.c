/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DCTCP variant of MPRDMA that the REPS evaluation runs under every load
 * balancer (reps.md §3.2, the artifact's updateCwndOnAck_MPRDMA): the window
 * moves on every ACK with no alpha: a clean ACK adds MSS x acked / cwnd (one
 * packet per window), a CE-marked ACK removes acked / 4, a loss removes the
 * lost bytes (one packet). Max and initial window 1.5 x BDP (the artifact's
 * -cwnd 151 packets at 400 Gb/s). Out-of-order ACKs are normal and change
 * nothing. Real DCTCP is dctcp.c.
 */
#include "uet/cc.h"
#include "uet/err.h"

struct mprdma_state {
	double cwnd, maxwnd;
	double undo_cwnd;          /* window before a loss episode began */
	uint32_t mss;
};

_Static_assert(sizeof(struct mprdma_state) <= UET_CC_STATE_MAX, "dctcp-mprdma state too big");

static int
mprdma_init(void *stp, const struct uet_cc_params *p)
{
	struct mprdma_state *st = stp;

	*st = (struct mprdma_state){ 0 };
	st->mss = p->mss_bytes;
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

static void
mprdma_on_ack(void *stp, const struct uet_cc_ack *a)
{
	struct mprdma_state *st = stp;

	if (a->ce)
		st->cwnd -= a->acked_bytes / 4.0;
	else
		st->cwnd += (double)st->mss * a->acked_bytes / st->cwnd;
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
