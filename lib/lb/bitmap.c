/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UET "bitmap" load balancer as UEC htsim implements it (UecMpBitmap,
 * uet-htsim.md §4.2; Raiciu's slides): a small saturating penalty per EV,
 * raised by bad news about that EV (ECN +1, trim +4, loss or timeout +15),
 * and a walk over a per-round random permutation of the EVs that skips
 * penalised EVs, decrementing only the first one it skips per packet.
 * Unlike htsim, timeouts land on the EV that was actually used (the
 * transport remembers it per PSN), and the walk stops skipping while most
 * EVs carry a penalty (UET's path-aware spraying: "if most paths are
 * congested, stop skipping"), so an all-congested fabric degenerates to
 * plain spraying instead of burning every packet's walk on penalties. The
 * penalties still recover meanwhile: each use of a penalised EV costs it a
 * point, as each skip does, so the walk decays them at htsim's pace (one
 * point a packet) and skipping resumes once no more than stop_skip_pct of
 * the EVs are penalised.
 */
#include "uet/err.h"
#include "uet/lb.h"

#define MAX_EVS 256

struct bitmap_state {
	uint8_t pen[MAX_EVS / 2]; /* 4-bit penalties, two per byte */
	uint16_t nevs;            /* power of two <= 256 */
	uint16_t upper;           /* this PDC's offset of the EV window */
	uint16_t ctr;
	uint16_t xor_mask;
	uint16_t npen;            /* EVs with a non-zero penalty */
};

_Static_assert(sizeof(struct bitmap_state) <= UET_LB_STATE_MAX, "bitmap state too big");

static inline uint8_t
pen_get(const struct bitmap_state *st, uint32_t i)
{
	return (st->pen[i >> 1] >> ((i & 1) * 4)) & 0x0f;
}

static inline void
pen_set(struct bitmap_state *st, uint32_t i, uint8_t v)
{
	uint8_t sh = (uint8_t)((i & 1) * 4);

	st->pen[i >> 1] = (uint8_t)((st->pen[i >> 1] & ~(0x0f << sh)) | ((v & 0x0f) << sh));
}

/* The config with defaults filled in for fields left 0. */
static void
knobs(const struct uet_lb_params *p, struct uet_lb_bitmap_cfg *k)
{
	const struct uet_lb_bitmap_cfg *c = p->cfg;

	k->evs = c != NULL ? c->evs : 0;
	k->ecn_penalty = c != NULL && c->ecn_penalty ? c->ecn_penalty : 1;
	k->nack_penalty = c != NULL && c->nack_penalty ? c->nack_penalty : 4;
	k->timeout_penalty = c != NULL && c->timeout_penalty ? c->timeout_penalty : 15;
	k->max_penalty = c != NULL && c->max_penalty ? c->max_penalty : 15;
	k->stop_skip_pct = c != NULL && c->stop_skip_pct ? c->stop_skip_pct : 75;
}

static int
bitmap_init(void *stp, const struct uet_lb_params *p, struct uet_prng *rng)
{
	struct uet_lb_bitmap_cfg k;
	struct bitmap_state *st = stp;
	uint32_t n = 1, i;

	knobs(p, &k);
	if (p->ev_count == 0 || (uint32_t)p->ev_base + p->ev_count > 65536)
		return UET_ERR_INVAL;
	if (k.evs != 0) {
		if ((k.evs & (k.evs - 1)) != 0 || k.evs > MAX_EVS || k.evs > p->ev_count)
			return UET_ERR_INVAL;
		n = k.evs;
	} else {
		while (n * 2 <= MAX_EVS && n * 2 <= p->ev_count)
			n *= 2;
	}
	if (k.max_penalty > 15 || k.stop_skip_pct > 100)
		return UET_ERR_INVAL;
	for (i = 0; i < MAX_EVS / 2; i++)
		st->pen[i] = 0;
	st->nevs = (uint16_t)n;
	/* A larger EV set gives each PDC its own window of n EVs (htsim's
	 * random upper bits). */
	st->upper = (uint16_t)(n * uet_prng_below(rng, p->ev_count / n));
	st->ctr = 0;
	st->xor_mask = (uint16_t)uet_prng_below(rng, n);
	st->npen = 0;
	return 0;
}

static uint16_t
bitmap_next_ev(void *stp, struct uet_lb_send_ctx *c)
{
	struct bitmap_state *st = stp;
	uint32_t mask = st->nevs - 1, tries, v = 0;
	struct uet_lb_bitmap_cfg k;
	bool decremented = false, skip;

	knobs(c->p, &k);
	skip = (uint32_t)st->npen * 100 <= (uint32_t)st->nevs * k.stop_skip_pct;

	/* Two rounds: a walk that starts late in one round sees all of the
	 * next, so it finds a clean EV whenever skipping is on. */
	for (tries = 0; tries < 2u * st->nevs; tries++) {
		uint8_t pv;

		if (st->ctr == st->nevs) {
			st->ctr = 0;
			st->xor_mask = (uint16_t)uet_prng_below(c->rng, st->nevs);
		}
		v = (st->ctr++ ^ st->xor_mask) & mask;
		pv = pen_get(st, v);
		if (pv == 0)
			break;
		if (!skip) {
			/* Used despite its penalty: it decays all the same. */
			pen_set(st, v, (uint8_t)(pv - 1));
			if (pv == 1)
				st->npen--;
			break;
		}
		if (!decremented) {
			pen_set(st, v, (uint8_t)(pv - 1));
			if (pv == 1)
				st->npen--;
			decremented = true;
		}
	}
	return (uint16_t)(c->p->ev_base + st->upper + v);
}

static uint32_t
bitmap_feedback(void *stp, const struct uet_lb_feedback *fb)
{
	struct bitmap_state *st = stp;
	uint32_t idx = (uint32_t)fb->ev - fb->p->ev_base - st->upper, add = 0, v, max;
	struct uet_lb_bitmap_cfg k;

	knobs(fb->p, &k);
	switch (fb->kind) {
	case UET_LB_FB_ACK:
		add = fb->ce ? k.ecn_penalty : 0;
		break;
	case UET_LB_FB_NACK:
		add = k.nack_penalty;
		break;
	case UET_LB_FB_NACK_LASTHOP:
		/* Trimmed at the receiver's own port: incast, not this path. */
		add = fb->ce ? k.ecn_penalty : 0;
		break;
	case UET_LB_FB_LOSS:
	case UET_LB_FB_TIMEOUT:
		add = k.timeout_penalty;
		break;
	default:
		return 0;
	}
	if (add == 0 || idx >= st->nevs)
		return 0;
	max = k.max_penalty;
	v = pen_get(st, idx);
	if (v == 0)
		st->npen++;
	v += add;
	pen_set(st, idx, (uint8_t)(v > max ? max : v));
	return 0;
}

const struct uet_lb_ops uet_lb_bitmap = {
	.name = "bitmap",
	.state_size = sizeof(struct bitmap_state),
	.init = bitmap_init,
	.next_ev = bitmap_next_ev,
	.feedback = bitmap_feedback,
};
