/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EQDS-style receiver-driven credit, the sender's half (the receiver's pull
 * pacer is in the endpoint: lib/core/credit.c). The UEC reference
 * simulator's RCCC (uet-htsim.md §5.6) is the model: a speculative first
 * window sent at line rate, then only what the receiver grants.
 *
 * The counters are cumulative so that lost, duplicated or reordered
 * CREDIT and CREDIT_REQ packets cost nothing but time: the receiver grants
 * up to the largest need it has heard of, the sender takes the largest
 * grant it has heard of. A resend adds its bytes to the need, so every
 * byte on the wire beyond the speculative window was granted.
 */
#include "uet/cc.h"
#include "uet/err.h"

struct eqds_state {
	uint64_t queued;       /* bytes ever queued (messages and resends) */
	uint64_t sent;         /* bytes ever sent */
	uint64_t granted;      /* receiver's cumulative grant */
	uint32_t spec;         /* speculative credit; frozen at what was used */
	uint32_t maxwnd;
	uint32_t last_grant32; /* grant as last received, mod 2^32 */
	uint8_t frozen;        /* the receiver has spoken */
};

_Static_assert(sizeof(struct eqds_state) <= UET_CC_STATE_MAX, "eqds state too big");

/* The max window and the speculative credit of a config. */
static int
eqds_windows(const struct uet_cc_params *p, uint32_t *maxwnd, uint32_t *spec)
{
	const struct uet_cc_eqds_cfg *cfg = p->cfg;
	double w;

	if (p->mss_bytes == 0 || p->link_bps == 0)
		return UET_ERR_INVAL;
	w = cfg != NULL && cfg->max_cwnd_bytes ? cfg->max_cwnd_bytes
					       : 1.5 * (double)p->link_bps / 8e9 * (double)p->base_rtt_ns;
	if (w < 4.0 * p->mss_bytes)
		w = 4.0 * p->mss_bytes;
	if (w > UINT32_MAX / 2)
		w = UINT32_MAX / 2;
	*maxwnd = (uint32_t)w;
	*spec = cfg != NULL && cfg->spec_bytes ? cfg->spec_bytes : *maxwnd;
	return 0;
}

static int
eqds_init(void *stp, const struct uet_cc_params *p)
{
	struct eqds_state *st = stp;

	*st = (struct eqds_state){ 0 };
	return eqds_windows(p, &st->maxwnd, &st->spec);
}

/* An idle sender may start its next message as a new PDC would, on a
 * speculative window's worth; here the receiver grants it, at its pacer's
 * rate and only when it has nothing else to grant. */
static uint32_t
eqds_idle_credit(const struct uet_cc_params *p)
{
	const struct uet_cc_eqds_cfg *cfg = p->cfg;
	uint32_t maxwnd, spec;

	if ((cfg != NULL && cfg->no_slow_pulls) || eqds_windows(p, &maxwnd, &spec) < 0)
		return 0;
	return spec;
}

/* The first word from the receiver ends the speculative phase: what was
 * not used of the speculative credit is gone, and the need grows by it. */
static void
freeze(struct eqds_state *st)
{
	if (st->frozen)
		return;
	st->frozen = 1;
	if (st->sent < st->spec)
		st->spec = (uint32_t)st->sent;
}

static void
eqds_on_ack(void *stp, const struct uet_cc_ack *a)
{
	(void)a;
	freeze(stp);
}

static void
eqds_on_loss(void *stp, const struct uet_cc_loss *l)
{
	/* A trim NACK is the receiver's word too; a timeout is not. */
	if (l->kind == UET_CC_LOSS_TRIM || l->kind == UET_CC_LOSS_TRIM_LASTHOP)
		freeze(stp);
}

static uint32_t
eqds_cwnd(const void *stp)
{
	return ((const struct eqds_state *)stp)->maxwnd;
}

static void
eqds_on_queued(void *stp, uint64_t bytes)
{
	((struct eqds_state *)stp)->queued += bytes;
}

static bool
eqds_may_send(const void *stp, uint32_t bytes)
{
	const struct eqds_state *st = stp;

	return st->sent + bytes <= st->spec + st->granted;
}

static void
eqds_on_sent(void *stp, uint32_t bytes)
{
	((struct eqds_state *)stp)->sent += bytes;
}

static void
eqds_on_credit(void *stp, uint32_t granted_total, uint64_t now_ns)
{
	struct eqds_state *st = stp;
	uint32_t d = granted_total - st->last_grant32;

	(void)now_ns;
	freeze(st);
	/* Serial-number order: an older CREDIT overtaken by a newer one
	 * changes nothing. */
	if ((int32_t)d <= 0)
		return;
	st->granted += d;
	st->last_grant32 = granted_total;
}

static uint32_t
eqds_credit_need(const void *stp)
{
	const struct eqds_state *st = stp;
	uint64_t need = st->queued > st->spec ? st->queued - st->spec : 0;

	/* Asked in steps: the receiver grants up to it, and each grant
	 * raises the next step. */
	if (need > st->granted + UET_CREDIT_AHEAD_MAX)
		need = st->granted + UET_CREDIT_AHEAD_MAX;
	return (uint32_t)need;
}

const struct uet_cc_ops uet_cc_eqds = {
	.name = "eqds",
	.state_size = sizeof(struct eqds_state),
	.init = eqds_init,
	.on_ack = eqds_on_ack,
	.on_loss = eqds_on_loss,
	.cwnd = eqds_cwnd,
	.on_queued = eqds_on_queued,
	.may_send = eqds_may_send,
	.on_sent = eqds_on_sent,
	.on_credit = eqds_on_credit,
	.credit_need = eqds_credit_need,
	.idle_credit = eqds_idle_credit,
};
