/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STrack's adaptive spraying (Le et al., Algorithm 3; strack_slides.md
 * §3.1): a bit per EV records an ECN mark (or a loss) on it; the EV of a
 * clean ACK is used again right away ("ACK-clocked recycling" with a
 * one-entry cache); otherwise a round robin over clamp(2 x cwnd, 8,
 * max_paths) EVs skips marked EVs, clearing only the first one it skips per
 * packet (the aging). The printed algorithm's bugs are fixed as the slides
 * note: bit set = avoid, EV 0 recyclable (a valid flag, not a sign), and
 * recycled EVs outside the current round-robin range are still used.
 */
#include "uet/err.h"
#include "uet/lb.h"

#define MAX_PATHS 256

struct strack_state {
	uint64_t marked[MAX_PATHS / 64];
	uint16_t max_paths;
	uint16_t rr;
	uint16_t next;
	uint8_t next_valid;
};

_Static_assert(sizeof(struct strack_state) <= UET_LB_STATE_MAX, "STrack LB state too big");

static int
strack_init(void *stp, const struct uet_lb_params *p, struct uet_prng *rng)
{
	const struct uet_lb_strack_cfg *cfg = p->cfg;
	struct strack_state *st = stp;
	uint32_t n = cfg != NULL && cfg->max_paths ? cfg->max_paths : MAX_PATHS;
	uint32_t i;

	(void)rng;
	if (p->ev_count == 0 || (uint32_t)p->ev_base + p->ev_count > 65536 || n > MAX_PATHS)
		return UET_ERR_INVAL;
	if (n > p->ev_count)
		n = p->ev_count;
	for (i = 0; i < MAX_PATHS / 64; i++)
		st->marked[i] = 0;
	st->max_paths = (uint16_t)n;
	st->rr = 0;
	st->next = 0;
	st->next_valid = 0;
	return 0;
}

static inline bool
is_marked(const struct strack_state *st, uint32_t i)
{
	return (st->marked[i >> 6] >> (i & 63)) & 1;
}

static uint16_t
strack_next_ev(void *stp, struct uet_lb_send_ctx *c)
{
	struct strack_state *st = stp;
	uint32_t cw = c->cwnd_bytes / c->p->mss_bytes, paths, tries;
	bool cleared = false;

	if (st->next_valid) {
		st->next_valid = 0;
		return (uint16_t)(c->p->ev_base + st->next);
	}
	/* The active range follows the window, so the marks stay fresh
	 * (a 256-EV bitmap would take 256 RTTs to refresh at cwnd 1). */
	paths = 2 * cw;
	if (paths > st->max_paths)
		paths = st->max_paths;
	if (paths < 8)
		paths = 8 < st->max_paths ? 8 : st->max_paths;
	st->rr = (uint16_t)((st->rr + 1) % paths);
	for (tries = 0; tries < paths && is_marked(st, st->rr); tries++) {
		if (!cleared) {
			st->marked[st->rr >> 6] &= ~(1ULL << (st->rr & 63));
			cleared = true;
		}
		st->rr = (uint16_t)((st->rr + 1) % paths);
	}
	return (uint16_t)(c->p->ev_base + st->rr);
}

static uint32_t
strack_feedback(void *stp, const struct uet_lb_feedback *fb)
{
	struct strack_state *st = stp;
	uint32_t idx = (uint32_t)fb->ev - fb->p->ev_base;
	bool bad;

	switch (fb->kind) {
	case UET_LB_FB_ACK:
		bad = fb->ce;
		break;
	case UET_LB_FB_NACK:
	case UET_LB_FB_LOSS:
	case UET_LB_FB_TIMEOUT:
		bad = true;
		break;
	default:
		return 0;
	}
	if (idx >= st->max_paths)
		return 0;
	if (bad) {
		st->marked[idx >> 6] |= 1ULL << (idx & 63);
		if (st->next_valid && st->next == idx)
			st->next_valid = 0;
	} else {
		st->marked[idx >> 6] &= ~(1ULL << (idx & 63));
		st->next = (uint16_t)idx;
		st->next_valid = 1;
	}
	return 0;
}

const struct uet_lb_ops uet_lb_strack = {
	.name = "strack",
	.state_size = sizeof(struct strack_state),
	.init = strack_init,
	.next_ev = strack_next_ev,
	.feedback = strack_feedback,
};
