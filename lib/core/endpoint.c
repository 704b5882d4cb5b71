/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoint: the PDC table, the pools, the timer heap, the control queue and
 * the transmit scheduler. The protocol itself lives in sender.c (initiator
 * side of a PDC) and receiver.c (target side).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/ep.h"

void
uet_ep_config_default(struct uet_ep_config *c)
{
	memset(c, 0, sizeof(*c));
	c->max_pdcs = 256;
	c->window_psns = 1024;
	c->mss_bytes = 4096;
	c->max_tx_msgs = 4096;
	c->max_rx_msgs = 1024;
	c->ctrl_queue_len = 4096;
	c->ack_every_bytes = 16384;
	c->ack_delay_ns = 5000;
	c->base_rtt_ns = 10000;
	c->link_bps = 100000000000ULL;
	c->rto_max_ns = 10000000;
	c->max_rto_retx = 12;
	c->max_nack_retx = 5;
	c->probe_rtts = 3;
	c->ooo_min_pkts = 3;
	c->failure_rtt_pct = 165;
	c->pdc_quarantine_ns = 10000000;
	c->lb = &uet_lb_ops_spray;
	c->ev_base = 49152;
	c->ev_count = 256;
	c->cc = &uet_cc_fixed;
}

int
uet_ep_config_check(const struct uet_ep_config *c, const char **why)
{
	const char *w = NULL;

	if (c->max_pdcs == 0 || c->max_pdcs > 65535)
		w = "max_pdcs must be 1..65535";
	else if (c->max_tx_windows > c->max_pdcs || c->max_rx_windows > c->max_pdcs)
		w = "max_tx_windows/max_rx_windows must not exceed max_pdcs";
	else if (c->window_psns < 64 || c->window_psns > 16384 ||
		 (c->window_psns & (c->window_psns - 1)) != 0)
		w = "window_psns must be a power of two in 64..16384";
	else if (c->mss_bytes == 0 || c->mss_bytes > 0x3fff)
		w = "mss_bytes must be 1..16383";
	else if (c->max_tx_msgs == 0 || c->max_tx_msgs >= NONE16)
		w = "max_tx_msgs must be 1..65534";
	else if (c->max_rx_msgs == 0 || c->max_rx_msgs > (1u << 24))
		w = "max_rx_msgs must be 1..16777216";
	else if (c->ctrl_queue_len < 16 || c->ctrl_queue_len > (1u << 24))
		w = "ctrl_queue_len must be 16..16777216";
	else if (c->ack_every_bytes > (1u << 24))
		w = "ack_every_bytes must be at most 16 MiB";
	else if (c->base_rtt_ns == 0 || c->base_rtt_ns > 1000000000ULL)
		w = "base_rtt_ns must be 1 ns..1 s";
	else if (c->link_bps == 0)
		w = "link_bps must be > 0";
	else if (c->rto_max_ns != 0 && c->rto_min_ns > c->rto_max_ns)
		w = "rto_min_ns must not exceed rto_max_ns";
	else if (c->max_rto_retx > 1000)
		w = "max_rto_retx must be at most 1000";
	else if (c->max_nack_retx >= UINT8_MAX)
		w = "max_nack_retx must be at most 254"; /* a PSN counts its NACKs in a byte */
	else if (c->loss_detect > UET_LOSS_NACK_RTO)
		w = "loss_detect must be adaptive or nack-rto";
	else if (c->reorder_window_ns > 1000000000ULL)
		w = "reorder_window_ns must be at most 1 s";
	else if (c->reorder_seed_ns > 1000000000ULL)
		w = "reorder_seed_ns must be at most 1 s";
	else if (c->lb == NULL || c->lb->state_size > UET_LB_STATE_MAX)
		w = "lb must be a registered load balancer";
	else if (c->cc == NULL || c->cc->state_size > UET_CC_STATE_MAX)
		w = "cc must be a registered congestion controller";
	else if (c->ev_count == 0 || (uint32_t)c->ev_base + c->ev_count > 65536)
		w = "ev_base + ev_count must be within 1..65536";
	else if (c->job_id > 0xffffff)
		w = "job_id must fit in 24 bits";
	else if (c->psn_near_wrap && c->pdc_idle_close_ns != 0)
		w = "psn_near_wrap cannot tell a reopened PDC's PSNs from its last's: not with "
		    "pdc_idle_close_ns";
	else if (match_config_check(c, &w) < 0)
		; /* w says why */
	else if (c->strict && c->ack_carry_evs)
		w = "ack_carry_evs is a libuet extension: not with strict";
	else if (c->strict && c->cc->on_credit != NULL)
		w = "a credit CC speaks libuet's CREDIT_REQ/CREDIT: not with strict";
	if (why != NULL)
		*why = w;
	return w == NULL ? 0 : UET_ERR_INVAL;
}

static uint32_t
ntx_windows(const struct uet_ep_config *c)
{
	return c->max_tx_windows ? c->max_tx_windows : c->max_pdcs;
}

static uint32_t
nrx_windows(const struct uet_ep_config *c)
{
	return c->max_rx_windows ? c->max_rx_windows : c->max_pdcs;
}

/* Bytes of LB then CC state per PDC slot, each 8-aligned, then the
 * sender's credit record when the CC takes credit; *cc_off, *cr_off: where
 * the CC's and the record start. */
static uint32_t
algo_stride(const struct uet_ep_config *c, uint32_t *cc_off, uint32_t *cr_off)
{
	uint32_t lb = (uint32_t)((c->lb->state_size + 7) & ~(size_t)7);
	uint32_t cc = (uint32_t)((c->cc->state_size + 7) & ~(size_t)7);
	uint32_t cr = c->cc->may_send != NULL ? (uint32_t)sizeof(struct pdc_credit) : 0;

	if (cc_off != NULL)
		*cc_off = lb;
	if (cr_off != NULL)
		*cr_off = lb + cc;
	return lb + cc + cr;
}

size_t
uet_ep_pdc_bytes(const struct uet_ep_config *c)
{
	return sizeof(struct pdc) + algo_stride(c, NULL, NULL);
}

size_t
uet_ep_mem_bytes(const struct uet_ep_config *c)
{
	size_t w = c->window_psns, n = c->max_pdcs;

	return sizeof(struct uet_ep) +
	       n * (sizeof(struct pdc) + algo_stride(c, NULL, NULL) + sizeof(uint32_t) * 3) +
	       /* PDC map and timer heap */
	       4 * n * (sizeof(uint64_t) + sizeof(uint32_t)) +
	       n * (sizeof(struct uet_theap_ent) + sizeof(uint32_t)) +
	       ntx_windows(c) * (w * (sizeof(struct tx_ent) + sizeof(uint32_t)) + 4) +
	       nrx_windows(c) * (w / 4 + 4) +
	       c->max_tx_msgs * (sizeof(struct tx_msg) + 2) +
	       c->max_rx_msgs * (sizeof(struct rx_msg) + 4 + 4 * 12) +
	       c->ctrl_queue_len * sizeof(struct ctrl_item) + match_mem_bytes(c);
}

int
uet_ep_create(const struct uet_ep_config *cfg, struct uet_ep **out)
{
	struct uet_prng idr;
	struct uet_ep *ep;
	uint32_t i, ntx, nrx;
	int rc;

	rc = uet_ep_config_check(cfg, NULL);
	if (rc < 0)
		return rc;
	ep = calloc(1, sizeof(*ep));
	if (ep == NULL)
		return UET_ERR_NOMEM;
	ep->cfg = *cfg;
	uet_prng_seed(&ep->rng, cfg->seed);
	ep->win = cfg->window_psns;
	ep->win_mask = ep->win - 1;
	ep->mss = cfg->mss_bytes;
	/* PDC ids carry slot + 1 in their low bits: id 0 is reserved (UET's
	 * reference never allocates it), so no slot may encode as 0. */
	ep->slot_bits = 1;
	while ((1u << ep->slot_bits) <= cfg->max_pdcs)
		ep->slot_bits++;
	ep->slot_mask = (1u << ep->slot_bits) - 1;
	ep->rto_min_ns = cfg->rto_min_ns ? cfg->rto_min_ns : 4 * cfg->base_rtt_ns;
	ep->rto_max_ns = cfg->rto_max_ns ? cfg->rto_max_ns : 10000000;
	if (ep->rto_max_ns < ep->rto_min_ns)
		ep->rto_max_ns = ep->rto_min_ns;
	ep->rdy_head = NONE32;
	ep->lb_idle_ns = cfg->lb_idle_ns ? cfg->lb_idle_ns : 4 * cfg->base_rtt_ns;
	/* One parameter block for all PDCs, so per-PDC LB state stays small. */
	ep->lb_params.ev_base = cfg->ev_base;
	ep->lb_params.ev_count = cfg->ev_count;
	ep->lb_params.mss_bytes = UET_DATA_HDR_LEN + cfg->mss_bytes;
	ep->lb_params.base_rtt_ns = cfg->base_rtt_ns;
	ep->lb_params.link_bps = cfg->link_bps;
	ep->lb_params.cfg = cfg->lb_cfg;

	ntx = ntx_windows(cfg);
	nrx = nrx_windows(cfg);
	ep->n_txw = ntx;
	ep->n_rxw = nrx;
	ep->pdcs = calloc(cfg->max_pdcs, sizeof(*ep->pdcs));
	ep->algo_stride = algo_stride(cfg, &ep->algo_cc_off, &ep->algo_cr_off);
	ep->credit_on = cfg->cc->may_send != NULL;
	ep->algo = calloc(cfg->max_pdcs, ep->algo_stride);
	ep->pdc_free = calloc(cfg->max_pdcs, sizeof(uint32_t));
	ep->txw_ent = calloc((size_t)ntx * ep->win, sizeof(struct tx_ent));
	ep->txw_rtxq = calloc((size_t)ntx * ep->win, sizeof(uint32_t));
	ep->txw_free = calloc(ntx, sizeof(uint32_t));
	ep->txw_wait = calloc(cfg->max_pdcs, sizeof(uint32_t));
	ep->rxw_bits = calloc((size_t)nrx * (ep->win / 64) * 2, sizeof(uint64_t));
	ep->rxw_free = calloc(nrx, sizeof(uint32_t));
	ep->txm = calloc(cfg->max_tx_msgs, sizeof(*ep->txm));
	ep->txm_free = calloc(cfg->max_tx_msgs, sizeof(uint16_t));
	ep->rxm = calloc(cfg->max_rx_msgs, sizeof(*ep->rxm));
	ep->rxm_free = calloc(cfg->max_rx_msgs, sizeof(uint32_t));
	ep->cq = calloc(cfg->ctrl_queue_len, sizeof(*ep->cq));
	ep->pull_q = calloc(cfg->max_pdcs, sizeof(uint32_t));
	if (cfg->cc->idle_credit != NULL) {
		/* As a receiver: what this endpoint's own CC would give a new
		 * PDC to start on (the senders are configured alike). */
		struct uet_cc_params cp;

		ep_cc_params(ep, &cp);
		ep->idle_credit = cfg->cc->idle_credit(&cp);
	}
	if (ep->idle_credit > 0)
		ep->idle_q = calloc(cfg->max_pdcs, sizeof(uint32_t));
	if (ep->pull_q == NULL || (ep->idle_credit > 0 && ep->idle_q == NULL) ||
	    ep->pdcs == NULL || ep->algo == NULL || ep->pdc_free == NULL || ep->txw_ent == NULL ||
	    ep->txw_rtxq == NULL || ep->txw_free == NULL || ep->txw_wait == NULL ||
	    ep->rxw_bits == NULL || ep->rxw_free == NULL || ep->txm == NULL ||
	    ep->txm_free == NULL || ep->rxm == NULL || ep->rxm_free == NULL ||
	    ep->cq == NULL)
		goto nomem;
	if (uet_hmap_init(&ep->pdc_map, cfg->max_pdcs) < 0 ||
	    uet_hmap_init(&ep->rxm_map, cfg->max_rx_msgs) < 0 ||
	    uet_theap_init(&ep->timers, cfg->max_pdcs + 1) < 0 || match_create(ep) < 0)
		goto nomem;

	/* Free lists are stacks; fill them so slot 0 comes out first. */
	for (i = 0; i < cfg->max_pdcs; i++)
		ep->pdc_free[i] = cfg->max_pdcs - 1 - i;
	ep->n_pdc_free = cfg->max_pdcs;
	for (i = 0; i < ntx; i++)
		ep->txw_free[i] = ntx - 1 - i;
	ep->n_txw_free = ntx;
	for (i = 0; i < nrx; i++)
		ep->rxw_free[i] = nrx - 1 - i;
	ep->n_rxw_free = nrx;
	for (i = 0; i < cfg->max_tx_msgs; i++)
		ep->txm_free[i] = (uint16_t)(cfg->max_tx_msgs - 1 - i);
	ep->n_txm_free = cfg->max_tx_msgs;
	for (i = 0; i < cfg->max_rx_msgs; i++)
		ep->rxm_free[i] = cfg->max_rx_msgs - 1 - i;
	ep->n_rxm_free = cfg->max_rx_msgs;
	/* PDC ids carry a generation above the slot bits. Each slot's first
	 * one is drawn from the seed, on a generator of its own (the
	 * endpoint's draws stay as they were), so a restarted process, with
	 * its own seed, does not hand its peers the ids it had before: an
	 * initiator still in SYN state took the ACKs of a target that
	 * crashed and of its successor for one PDC's, and completed a
	 * message that neither had whole (the fault swarm, seed 1845537).
	 * A process restarted with the same seed differs by its start
	 * nonce, in its ids and its start PSNs: otherwise a target still
	 * holding its predecessor's PDC took the new process's packets for
	 * duplicates, acknowledged them and delivered nothing. */
	uet_prng_seed(&idr, cfg->seed ^ 0x6a09e667f3bcc908ULL ^ cfg->start_nonce);
	ep->psn_salt = cfg->start_nonce != 0 ? (uint32_t)uet_mix64(cfg->start_nonce) : 0;
	for (i = 0; i < cfg->max_pdcs; i++) {
		ep->pdcs[i].slot = i;
		ep->pdcs[i].gen = (uint16_t)uet_prng_next(&idr);
	}
	*out = ep;
	return 0;

nomem:
	uet_ep_destroy(ep);
	return UET_ERR_NOMEM;
}

void
uet_ep_destroy(struct uet_ep *ep)
{
	if (ep == NULL)
		return;
	uet_hmap_fini(&ep->pdc_map);
	uet_hmap_fini(&ep->rxm_map);
	match_destroy(ep);
	uet_theap_fini(&ep->timers);
	free(ep->pdcs);
	free(ep->algo);
	free(ep->pdc_free);
	free(ep->txw_ent);
	free(ep->txw_rtxq);
	free(ep->txw_free);
	free(ep->txw_wait);
	free(ep->rxw_bits);
	free(ep->rxw_free);
	free(ep->txm);
	free(ep->txm_free);
	free(ep->rxm);
	free(ep->rxm_free);
	free(ep->cq);
	free(ep->pull_q);
	free(ep->idle_q);
	free(ep);
}

/* Keys of the PDC map. Bit 63 separates the target namespace
 * (peer address, peer's PDC id) from the initiator's (peer, stream). */
uint64_t
ep_key_init(uint32_t dst_ip, uint16_t stream)
{
	return ((uint64_t)dst_ip << 16) | stream | (1ULL << 62);
}

uint64_t
ep_key_tgt(uint32_t src_ip, uint16_t spdcid)
{
	return ((uint64_t)src_ip << 16) | spdcid | (1ULL << 63);
}

/*
 * The table is full: take a time-wait record whose quarantine has run out
 * but whose timer has not reaped it yet. One still in quarantine stays: a
 * late copy of a SYN packet to a forgotten key would open a new PDC and
 * deliver its message a second time (the fault swarm did it: a copy held
 * 730 us in a slow uplink's queue). The new PDC waits instead (NO_PDC_AVAIL;
 * the initiator retries on its timer), as TCP's TIME_WAIT makes a new
 * connection wait; pdc_quarantine_ns is what bounds that wait.
 */
static bool
evict_timewait(struct uet_ep *ep, uint64_t now)
{
	struct pdc *best = NULL;
	uint32_t i;

	for (i = 0; i < ep->cfg.max_pdcs; i++) {
		struct pdc *p = &ep->pdcs[i];

		if (p->role == ROLE_TGT && p->state == PST_TIMEWAIT &&
		    now >= p->rx.timewait_until &&
		    (best == NULL || p->rx.timewait_until < best->rx.timewait_until))
			best = p;
	}
	if (best == NULL)
		return false;
	ep->st.timewait_evictions++;
	ep_pdc_free(ep, best);
	return true;
}

struct pdc *
ep_pdc_alloc(struct uet_ep *ep, uint8_t role, uint32_t peer_ip, uint64_t hkey,
	     uint64_t now)
{
	struct pdc *p;
	uint32_t slot;
	uint16_t gen;

	if (ep->n_pdc_free == 0 && !evict_timewait(ep, now))
		return NULL;
	slot = ep->pdc_free[ep->n_pdc_free - 1];
	if (hkey != 0 && uet_hmap_put(&ep->pdc_map, hkey, slot) < 0)
		return NULL;
	ep->n_pdc_free--;
	p = &ep->pdcs[slot];
	gen = (uint16_t)(p->gen + 1);
	memset(p, 0, sizeof(*p));
	p->slot = slot;
	p->gen = gen;
	/* The id carries a generation above the slot bits so that a stale
	 * packet for a previous occupant of the slot rarely matches; its low
	 * bits are slot + 1, never 0, so no PDC is id 0. */
	p->id = (uint16_t)(((slot + 1) & ep->slot_mask) |
			   (ep->slot_bits < 16 ? (uint32_t)gen << ep->slot_bits : 0));
	p->role = role;
	p->peer_ip = peer_ip;
	p->hkey = hkey;
	p->rdy_prev = p->rdy_next = NONE32;
	p->deadline = UINT64_MAX;
	ep->st.pdcs_opened++;
	return p;
}

void
ep_pdc_unmap(struct uet_ep *ep, struct pdc *p)
{
	uint32_t v;

	if (p->hkey != 0 && uet_hmap_get(&ep->pdc_map, p->hkey, &v) && v == p->slot)
		uet_hmap_del(&ep->pdc_map, p->hkey);
	p->hkey = 0;
}

void
ep_pdc_free(struct uet_ep *ep, struct pdc *p)
{
	assert(p->role != ROLE_NONE);
	ep_pdc_unmap(ep, p);
	uet_theap_del(&ep->timers, p->slot);
	ep_rdy_remove(ep, p);
	if (p->role == ROLE_INIT)
		tx_release(ep, p);
	else
		rx_release(ep, p, UET_ERR_CLOSED, 0);
	p->role = ROLE_NONE;
	p->state = PST_FREE;
	ep->pdc_free[ep->n_pdc_free++] = p->slot;
}

struct pdc *
ep_pdc_by_id(struct uet_ep *ep, uint16_t id)
{
	uint32_t slot = (uint32_t)(id & ep->slot_mask) - 1; /* id 0's: UINT32_MAX */
	struct pdc *p;

	if (slot >= ep->cfg.max_pdcs)
		return NULL;
	p = &ep->pdcs[slot];
	if (p->role == ROLE_NONE || p->id != id)
		return NULL;
	return p;
}

void
ep_pdc_event(struct uet_ep *ep, const struct pdc *p, enum uet_pdc_event_kind k,
	     int status)
{
	struct uet_pdc_event e;

	if (ep->cfg.cb.pdc_event == NULL)
		return;
	e.kind = k;
	e.pdc_id = p->id;
	e.peer_ip = p->peer_ip;
	e.initiator = p->role == ROLE_INIT;
	e.status = status;
	ep->cfg.cb.pdc_event(ep->cfg.user, &e);
}

void
ep_timer_update(struct uet_ep *ep, struct pdc *p)
{
	uint64_t d;

	if (p->role == ROLE_NONE)
		return;
	if (p->role == ROLE_INIT && cr_tx_on(ep))
		cr_tx_update(ep, p);
	d = p->role == ROLE_INIT ? tx_deadline(ep, p) : rx_deadline(ep, p);
	if (d == p->deadline)
		return;
	p->deadline = d;
	if (d == UINT64_MAX)
		uet_theap_del(&ep->timers, p->slot);
	else
		uet_theap_set(&ep->timers, p->slot, d);
}

/* The ready list: a circular doubly-linked list of initiator PDCs that may
 * have a packet to send. The scheduler serves its head and rotates, which
 * is per-packet round robin between PDCs. */
void
ep_rdy_remove(struct uet_ep *ep, struct pdc *p)
{
	if (!p->in_rdy)
		return;
	if (p->rdy_next == p->slot) {
		ep->rdy_head = NONE32;
	} else {
		ep->pdcs[p->rdy_prev].rdy_next = p->rdy_next;
		ep->pdcs[p->rdy_next].rdy_prev = p->rdy_prev;
		if (ep->rdy_head == p->slot)
			ep->rdy_head = p->rdy_next;
	}
	p->rdy_prev = p->rdy_next = NONE32;
	p->in_rdy = 0;
}

void
ep_rdy_kick(struct uet_ep *ep, struct pdc *p)
{
	struct pdc *h;

	if (p->in_rdy || p->role != ROLE_INIT || !tx_can_send(ep, p))
		return;
	p->in_rdy = 1;
	if (ep->rdy_head == NONE32) {
		p->rdy_prev = p->rdy_next = p->slot;
		ep->rdy_head = p->slot;
		return;
	}
	/* Insert at the tail (just before the head). */
	h = &ep->pdcs[ep->rdy_head];
	p->rdy_next = h->slot;
	p->rdy_prev = h->rdy_prev;
	ep->pdcs[h->rdy_prev].rdy_next = p->slot;
	h->rdy_prev = p->slot;
}

struct ctrl_item *
ep_ctrl_push(struct uet_ep *ep)
{
	struct ctrl_item *ci;

	if (ep->cq_len == ep->cfg.ctrl_queue_len) {
		ep->st.ctrl_queue_drops++;
		return NULL;
	}
	ci = &ep->cq[(ep->cq_head + ep->cq_len) % ep->cfg.ctrl_queue_len];
	ep->cq_len++;
	memset(ci, 0, sizeof(*ci));
	return ci;
}

int
uet_ep_send(struct uet_ep *ep, const struct uet_send_req *r, uint64_t now_ns)
{
	if (ep == NULL || r == NULL)
		return UET_ERR_INVAL;
	return tx_send(ep, r, now_ns);
}

int
uet_ep_read_pkt(struct uet_ep *ep, const struct uet_rx_meta *meta, const uint8_t *pkt,
		size_t len, uint64_t now_ns)
{
	struct uet_hdr h;
	int rc;

	ep->st.rx_pkts++;
	rc = uet_hdr_decode(pkt, len, &h);
	if (rc < 0) {
		if (rc == UET_ERR_UNSUPPORTED)
			ep->st.rx_unsupported++;
		else
			ep->st.rx_malformed++;
		return rc;
	}
	switch (h.type) {
	case UET_PDS_RUD_REQ:
		if (h.nh != UET_NH_REQ_STD) {
			/* A RUD request without a semantic header has nothing
			 * we could deliver. */
			ep->st.rx_unsupported++;
			return UET_ERR_UNSUPPORTED;
		}
		return rx_on_request(ep, &h, pkt + h.hdr_len, len - h.hdr_len, meta, now_ns);
	case UET_PDS_CTRL:
		if (h.nh == UET_CTL_CREDIT)
			return cr_tx_on_credit(ep, &h, meta, now_ns);
		if (h.nh != UET_CTL_PROBE && h.nh != UET_CTL_CLOSE && h.nh != UET_CTL_CREDIT_REQ) {
			ep->st.rx_unsupported++;
			return UET_ERR_UNSUPPORTED;
		}
		return rx_on_request(ep, &h, NULL, 0, meta, now_ns);
	case UET_PDS_ACK:
	case UET_PDS_ACK_CC:
		return tx_on_ack(ep, &h, pkt + h.hdr_len, len - h.hdr_len, meta, now_ns);
	case UET_PDS_NACK:
		return tx_on_nack(ep, &h, meta, now_ns);
	default:
		ep->st.rx_unsupported++;
		return UET_ERR_UNSUPPORTED;
	}
}

int
uet_ep_write_pkt(struct uet_ep *ep, uint8_t *buf, size_t cap, struct uet_tx_meta *m,
		 uint64_t now_ns)
{
	int rc;

	memset(m, 0, sizeof(*m));
	/* Control first: ACKs and NACKs clock the peers' senders. */
	while (ep->cq_len > 0) {
		struct ctrl_item *ci = &ep->cq[ep->cq_head];

		switch (ci->kind) {
		case CI_ACK:
			rc = rx_write_ack(ep, ci, buf, cap, m, now_ns);
			break;
		case CI_NACK:
			rc = rx_write_nack(ep, ci, buf, cap, m);
			break;
		case CI_PROBE:
			rc = tx_write_probe(ep, ci, buf, cap, m, now_ns);
			break;
		case CI_CREDIT:
			rc = cr_rx_write_credit(ep, ci, buf, cap, m);
			break;
		case CI_CREDIT_REQ:
			rc = cr_tx_write_req(ep, ci, buf, cap, m, now_ns);
			break;
		default:
			rc = 0;
			break;
		}
		if (rc == UET_ERR_BUFSIZE)
			return rc;
		ep->cq_head = (ep->cq_head + 1) % ep->cfg.ctrl_queue_len;
		ep->cq_len--;
		if (rc > 0) {
			ep->st.tx_pkts++;
			return rc;
		}
	}
	while (ep->rdy_head != NONE32) {
		struct pdc *p = &ep->pdcs[ep->rdy_head];

		rc = tx_write(ep, p, buf, cap, m, now_ns);
		if (rc == UET_ERR_BUFSIZE)
			return rc;
		if (p->in_rdy)
			ep->rdy_head = p->rdy_next;
		ep_timer_update(ep, p);
		if (rc > 0) {
			ep->st.tx_pkts++;
			return rc;
		}
		ep_rdy_remove(ep, p);
	}
	return 0;
}

bool
uet_ep_may_write(const struct uet_ep *ep)
{
	return ep->cq_len > 0 || ep->rdy_head != NONE32;
}

uint64_t
uet_ep_next_deadline(const struct uet_ep *ep)
{
	uint64_t k;

	if (!uet_theap_top(&ep->timers, NULL, &k))
		return UINT64_MAX;
	return k;
}

int
uet_ep_handle_timeout(struct uet_ep *ep, uint64_t now_ns)
{
	uint32_t id;
	uint64_t k;
	int n = 0;

	while (uet_theap_top(&ep->timers, &id, &k) && k <= now_ns) {
		struct pdc *p;
		uint16_t gen;

		if (id == ep->cfg.max_pdcs) {
			/* cr_pull_on_timer always moves or removes it. */
			cr_pull_on_timer(ep, now_ns);
			n++;
			continue;
		}
		p = &ep->pdcs[id];
		gen = p->gen;

		if (p->role == ROLE_INIT)
			tx_on_timer(ep, p, now_ns);
		else if (p->role == ROLE_TGT)
			rx_on_timer(ep, p, now_ns);
		if (p->role != ROLE_NONE && p->gen == gen)
			ep_timer_update(ep, p);
		/* Every handler consumes what was due; a deadline that stays in
		 * the past would be our bug, and must not spin the caller. */
		if (uet_theap_top(&ep->timers, &id, &k) && id == p->slot && k <= now_ns) {
			assert(!"timer did not advance");
			uet_theap_del(&ep->timers, id);
			p->deadline = UINT64_MAX;
		}
		n++;
	}
	return n;
}

const struct uet_ep_stats *
uet_ep_stats(const struct uet_ep *ep)
{
	return &ep->st;
}

bool
uet_ep_pdc_iter(const struct uet_ep *ep, uint32_t *cursor, struct uet_pdc_info *info)
{
	while (*cursor < ep->cfg.max_pdcs) {
		const struct pdc *p = &ep->pdcs[(*cursor)++];

		if (p->role == ROLE_NONE)
			continue;
		memset(info, 0, sizeof(*info));
		info->pdc_id = p->id;
		info->peer_pdc_id = p->peer_id;
		info->peer_ip = p->peer_ip;
		info->initiator = p->role == ROLE_INIT;
		info->state = p->state;
		if (p->role == ROLE_INIT) {
			info->stream = p->tx.stream;
			info->snd_una = p->tx.snd_una;
			info->snd_nxt = p->tx.snd_nxt;
			info->inflight_bytes = p->tx.inflight_bytes;
			info->cwnd_bytes = tx_cwnd(ep, p);
			info->srtt_ns = p->tx.srtt_ns;
			info->min_rtt_ns = p->tx.min_rtt_ns;
			info->rto_ns = tx_rto(ep, p);
			info->queued_msgs = p->tx.n_msgs;
			info->rtx_queued = p->tx.rtxq_len;
			info->in_recovery = p->tx.in_recovery;
			info->lb_frozen = ep->cfg.lb->frozen != NULL && ep->cfg.lb->frozen(pdc_lb(ep, p));
		} else {
			info->cack = p->rx.cack;
			info->ooo_count = p->rx.ooo;
			info->rcvd_bytes = p->rx.rcvd_bytes;
		}
		return true;
	}
	return false;
}

uint32_t
uet_ep_pdc_count(const struct uet_ep *ep)
{
	return ep->cfg.max_pdcs - ep->n_pdc_free;
}

uint32_t
uet_ep_open_initiators(const struct uet_ep *ep)
{
	uint32_t i, n = 0;

	for (i = 0; i < ep->cfg.max_pdcs; i++)
		n += ep->pdcs[i].role == ROLE_INIT;
	return n;
}

int
uet_ep_set_job_id(struct uet_ep *ep, uint32_t job_id)
{
	if (ep == NULL || job_id > 0xffffff)
		return UET_ERR_INVAL;
	ep->cfg.job_id = job_id;
	return 0;
}

bool
uet_ep_idle(const struct uet_ep *ep)
{
	uint32_t i;

	if (ep->cq_len != 0 || ep->n_txm_free != ep->cfg.max_tx_msgs ||
	    ep->n_rxm_free != ep->cfg.max_rx_msgs)
		return false;
	for (i = 0; i < ep->cfg.max_pdcs; i++) {
		const struct pdc *p = &ep->pdcs[i];

		if (p->role == ROLE_INIT &&
		    (p->tx.snd_una != p->tx.snd_nxt || p->tx.close_queued))
			return false;
		if (p->role == ROLE_TGT && (p->rx.ooo != 0 || p->rx.ack_due_ns != 0))
			return false;
	}
	return true;
}
