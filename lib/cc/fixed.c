/* SPDX-License-Identifier: BSD-3-Clause */
/* A constant congestion window: for tests, debugging and as the reference
 * "no congestion control" line in comparisons (htsim's "constant"). */
#include "uet/cc.h"
#include "uet/err.h"

struct fixed_state {
	uint32_t cwnd_bytes;
};

_Static_assert(sizeof(struct fixed_state) <= UET_CC_STATE_MAX, "fixed state too big");

static int
fixed_init(void *stp, const struct uet_cc_params *p)
{
	const struct uet_cc_fixed_cfg *cfg = p->cfg;
	struct fixed_state *st = stp;
	uint64_t w;

	if (p->mss_bytes == 0)
		return UET_ERR_INVAL;
	if (cfg != NULL && cfg->cwnd_bytes != 0) {
		w = cfg->cwnd_bytes;
	} else {
		/* 1.5 x BDP, as htsim's initial/max window (uet-htsim.md §2.2). */
		w = p->link_bps / 8 * p->base_rtt_ns / 1000000000ULL * 3 / 2;
		if (w < 4ULL * p->mss_bytes)
			w = 4ULL * p->mss_bytes;
	}
	if (w > UINT32_MAX / 2)
		w = UINT32_MAX / 2;
	st->cwnd_bytes = (uint32_t)w;
	return 0;
}

static void
fixed_on_ack(void *st, const struct uet_cc_ack *a)
{
	(void)st;
	(void)a;
}

static void
fixed_on_loss(void *st, const struct uet_cc_loss *l)
{
	(void)st;
	(void)l;
}

static uint32_t
fixed_cwnd(const void *stp)
{
	const struct fixed_state *st = stp;

	return st->cwnd_bytes;
}

const struct uet_cc_ops uet_cc_fixed = {
	.name = "fixed",
	.state_size = sizeof(struct fixed_state),
	.init = fixed_init,
	.on_ack = fixed_on_ack,
	.on_loss = fixed_on_loss,
	.cwnd = fixed_cwnd,
};
