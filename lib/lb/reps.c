/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * REPS, Recycled Entropy Packet Spraying (Bonato et al., EuroSys'26,
 * Algorithms 1 and 2; reps.md §1). The EVs of ACKs without ECN are kept in
 * an 8-entry ring and each is used again once, oldest first; when none is
 * cached a random EV explores. A path failure (the transport's RTO
 * classification, uet_lb_feedback UET_LB_FB_FAILURE) freezes the ring:
 * cached EVs are recycled round robin, valid or not, and nothing random is
 * tried until freeze_ns has passed; then one cwnd of packets explores.
 *
 * Gaps in the paper's pseudo-code, settled here (doc/algorithms.md):
 * 1. The exploration window after freezing assigns no EV on 7 of 8 packets:
 *    those fall through to the normal choice (UET_REPS_EXPLORE_PAPER); the
 *    artifact's "clear the ring, a cwnd of random EVs" is
 *    UET_REPS_EXPLORE_RESET.
 * 2. "isEmpty()" has no field in Table 1: nfilled counts slots ever written.
 * 3. Frozen with a partly filled ring, round robin runs over the filled
 *    slots only, with its own pointer (the artifact's head_frozen), so no
 *    never-written EV is sent.
 * 4. (head - nvalid) % N is negative in C: (head + N - nvalid) % N.
 * 5. The freeze exit is checked on every ACK, before the ECN test (as the
 *    artifact), so a frozen PDC whose ACKs are all marked still thaws.
 * 6. Idle: the pseudo-code keeps the ring through a pause, and so does
 *    the default. A cached EV that went stale during the pause is on a
 *    dead or congested path with the same odds as a random one, so
 *    forgetting it gains nothing, while a PDC that talks in bursts (an
 *    MPI collective) would explore one window of random EVs per burst:
 *    through a failure that sent 7x the packets into the dead link.
 *    idle_ns > 0 clears the ring after that long without sending; a
 *    frozen ring is then only marked invalid, since an empty one would
 *    send every packet to a random EV, into the failure it froze for.
 * 7. EVs NACKed in the fabric, lost or timed out are never cached; a NACK
 *    for a trim at the receiver's own port (incast) is good news about the
 *    path, cached unless CE marked, as the UEC reference simulator does
 *    (uet-htsim.md §2). Retransmissions take their EV from the same rule
 *    as new packets.
 * Forced freezing (App. A): force_freeze_at_ns freezes every PDC once, at
 * its first send past that time, failure or not.
 * Variants for coalesced ACKs (§4.5.1): reuse = n makes each cached EV
 * serve n packets (ACK+Reuse EVs); only the oldest valid entry is ever
 * being reused, so one counter suffices. ACK+Carry EVs is the transport's
 * (uet_ep_config.ack_carry_evs): each EV a coalesced ACK carries arrives
 * as UET_LB_FB_CARRIED and is cached like an unmarked ACK's.
 *
 * Per-PDC state: 24 bytes, within Table 1's 25 (the 32-bit freeze exit is kept in
 * units of 1.024 us).
 */
#include "uet/err.h"
#include "uet/lb.h"

#define REPS_N 8

struct __attribute__((packed)) reps_state {
	uint16_t ev[REPS_N];   /* cachedEV */
	uint32_t exit_us;      /* exitFreezingMode, units of 1024 ns */
	uint8_t valid;         /* isValid, one bit per entry; their count is
				* numberOfValidEVs (nvalid()) */
	uint8_t head : 3;      /* next slot to write */
	uint8_t frozen : 1;    /* isFreezingMode */
	uint8_t uses : 4;      /* packets sent on the oldest valid entry (reuse
				* is at most 15) */
	uint8_t nfilled : 4;   /* slots ever written (isEmpty) */
	uint8_t frz_rr : 3;    /* round robin while frozen */
	uint8_t forced : 1;    /* the forced freeze (App. A) happened */
	uint8_t explore;       /* exploreCounter */
};

_Static_assert(sizeof(struct reps_state) <= 24, "REPS state must stay within 24 bytes");

static inline uint32_t
nvalid(const struct reps_state *st)
{
	return (uint32_t)__builtin_popcount(st->valid);
}
_Static_assert(sizeof(struct reps_state) <= UET_LB_STATE_MAX, "REPS state too big");

static inline uint32_t
us_of(uint64_t ns)
{
	return (uint32_t)(ns >> 10);
}

static void
reps_clear(struct reps_state *st)
{
	st->valid = 0;
	st->head = 0;
	st->nfilled = 0;
	st->frz_rr = 0;
	st->uses = 0;
}

static int
reps_init(void *stp, const struct uet_lb_params *p, struct uet_prng *rng)
{
	const struct uet_lb_reps_cfg *cfg = p->cfg;
	struct reps_state *st = stp;
	int i;

	(void)rng;
	if (p->ev_count == 0 || (uint32_t)p->ev_base + p->ev_count > 65536)
		return UET_ERR_INVAL;
	if (cfg != NULL && (cfg->reuse > 15 || cfg->explore > UET_REPS_EXPLORE_RESET))
		return UET_ERR_INVAL;
	for (i = 0; i < REPS_N; i++)
		st->ev[i] = 0;
	reps_clear(st);
	st->exit_us = 0;
	st->frozen = 0;
	st->forced = 0;
	st->explore = 0;
	return 0;
}

static uint32_t
freeze(struct reps_state *st, const struct uet_lb_reps_cfg *cfg, uint64_t now_ns)
{
	st->frozen = 1;
	st->exit_us = us_of(now_ns + (cfg != NULL && cfg->freeze_ns ? cfg->freeze_ns : 1000000));
	return UET_LB_EV_FREEZE;
}

static uint16_t
reps_next_ev(void *stp, struct uet_lb_send_ctx *c)
{
	const struct uet_lb_reps_cfg *cfg = c->p->cfg;
	struct reps_state *st = stp;
	uint32_t reuse = cfg != NULL && cfg->reuse > 1 ? cfg->reuse : 1;
	uint32_t off;
	uint16_t ev;

	if (cfg != NULL && cfg->force_freeze_at_ns != 0 && !st->forced &&
	    c->now_ns >= cfg->force_freeze_at_ns) {
		st->forced = 1;
		if (!st->frozen)
			c->events |= freeze(st, cfg, c->now_ns);
	}
	/* Algorithm 2, ONSEND */
	if (st->explore > 0) {
		st->explore--;
		if ((cfg != NULL && cfg->explore == UET_REPS_EXPLORE_RESET) ||
		    st->explore % REPS_N == 0)
			return uet_lb_random_ev(c->p, c->rng);
	}
	if (st->nfilled == 0 || (nvalid(st) == 0 && !st->frozen))
		return uet_lb_random_ev(c->p, c->rng);
	/* GETNEXTEV */
	if (nvalid(st) > 0) {
		off = (st->head + REPS_N - nvalid(st)) % REPS_N;
		ev = st->ev[off];
		if (++st->uses >= reuse) {
			st->valid &= (uint8_t)~(1u << off);
			st->uses = 0;
		}
		return ev;
	}
	/* Frozen with nothing valid: recycle the cached EVs round robin. */
	off = st->frz_rr % st->nfilled;
	st->frz_rr = (uint8_t)((off + 1) % st->nfilled);
	return st->ev[off];
}

static uint32_t
reps_feedback(void *stp, const struct uet_lb_feedback *fb)
{
	const struct uet_lb_reps_cfg *cfg = fb->p->cfg;
	struct reps_state *st = stp;
	uint32_t events = 0, cw;
	uint64_t idle;

	switch (fb->kind) {
	case UET_LB_FB_ACK:
	case UET_LB_FB_CARRIED: /* ACK+Carry: an unmarked EV the ACK covered */
	case UET_LB_FB_NACK_LASTHOP: /* trimmed at the receiver's own port:
				      * incast, the path delivered it (the
				      * UEC reference's PATH_GOOD) */
		/* Algorithm 1, ONACK; the freeze exit first (note 5). */
		if (st->frozen && (int32_t)(us_of(fb->now_ns) - st->exit_us) > 0) {
			st->frozen = 0;
			cw = fb->cwnd_bytes / fb->p->mss_bytes;
			st->explore = (uint8_t)(cw > 255 ? 255 : cw < 1 ? 1 : cw);
			if (cfg != NULL && cfg->explore == UET_REPS_EXPLORE_RESET)
				reps_clear(st);
			events |= UET_LB_EV_THAW;
		}
		if (fb->ce)
			return events;
		if (st->valid & (1u << st->head))
			st->uses = 0; /* full ring: the oldest is overwritten */
		st->ev[st->head] = fb->ev;
		st->valid |= (uint8_t)(1u << st->head);
		st->head = (st->head + 1) % REPS_N;
		if (st->nfilled < REPS_N)
			st->nfilled++;
		return events;
	case UET_LB_FB_FAILURE:
		/* ONFAILUREDETECTION: not while exploring right after a thaw. */
		if ((cfg == NULL || !cfg->no_freezing) && !st->frozen && st->explore == 0)
			events |= freeze(st, cfg, fb->now_ns);
		return events;
	case UET_LB_FB_IDLE:
		idle = cfg != NULL ? cfg->idle_ns : 0;
		if (idle == 0 || fb->idle_ns <= idle)
			return events;
		if (st->frozen) {
			st->valid = 0;
			st->uses = 0;
		} else {
			reps_clear(st);
		}
		return events;
	default:
		/* ECN-marked, trimmed, lost or timed-out EVs are not cached. */
		return events;
	}
}

static bool
reps_frozen(const void *stp)
{
	return ((const struct reps_state *)stp)->frozen;
}

const struct uet_lb_ops uet_lb_reps = {
	.name = "reps",
	.state_size = sizeof(struct reps_state),
	.init = reps_init,
	.next_ev = reps_next_ev,
	.feedback = reps_feedback,
	.frozen = reps_frozen,
};
