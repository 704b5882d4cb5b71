/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Initiator side of a PDC: segmentation, the per-PSN send records, SACK
 * processing, loss detection and retransmission.
 *
 * Loss detection (doc/architecture.md, "Loss detection") runs on three time
 * scales, as STrack does (strack_slides.md §1.7): (1) RACK (RFC 8985) per
 * path: a packet is lost once a later packet on its own EV was delivered
 * and a short window has passed, because one path does not reorder while
 * spraying reorders across paths all the time; across paths too where the
 * fabric is not known to trim, with a window as long as the fabric's
 * queues can make one path later than another (reo_wnd); (2) a probe after
 * probe_rtts smoothed RTTs without an ACK, whose quick reply with no
 * progress means the data was lost once that window has passed too; (3)
 * the retransmission timer. A trimmed
 * packet's NACK retransmits at once. With UET_LOSS_NACK_RTO only NACKs and
 * a fixed timer remain, as in the UEC reference simulator.
 *
 * A loss found without a NACK is a guess. Its load-balancer feedback is
 * held until the retransmission's ACK confirms it (the retransmitted copy
 * arrived first) or a second loss of the same PSN does; an ACK echoing the
 * original copy, or one the receiver flags as answering a duplicate, proves
 * it spurious: the feedback is dropped, the reordering window learns, a
 * spurious RTO is undone, and when every loss of an episode was spurious the
 * congestion controller restores its window. Every transmission,
 * retransmissions and probes included, asks the load balancer for its EV.
 */
#include <assert.h>
#include <string.h>

#include "base/csum.h"
#include "core/ep.h"

/* pdc_tx.rto_open */
#define RTO_OPEN 1u
#define RTO_OPEN_CC 2u /* ... and the congestion controller's cut may go */

/* psn's send record while this PDC still holds it: NULL when it is not
 * in [win_start, snd_nxt) or a window back (the slot serves a newer PSN). */
static inline struct tx_ent *
rec_of(const struct uet_ep *ep, const struct pdc *p, uint32_t psn)
{
	if (p->tx.ent == NULL || !psn_lt(psn, p->tx.snd_nxt) || p->tx.snd_nxt - psn > ep->win ||
	    !psn_le(p->tx.win_start, psn))
		return NULL;
	return ent_of(ep, p, psn);
}

static inline uint32_t
full_pkt_bytes(const struct uet_ep *ep)
{
	return UET_DATA_HDR_LEN + ep->mss;
}

uint32_t
tx_cwnd(const struct uet_ep *ep, const struct pdc *p)
{
	uint32_t w = ep->cfg.cc->cwnd(pdc_cc(ep, p));

	return w < full_pkt_bytes(ep) ? full_pkt_bytes(ep) : w;
}

static uint64_t
base_rtt_est(const struct uet_ep *ep, const struct pdc *p)
{
	return p->tx.min_rtt_ns ? p->tx.min_rtt_ns : ep->cfg.base_rtt_ns;
}

static bool
adaptive(const struct uet_ep *ep)
{
	return ep->cfg.loss_detect == UET_LOSS_ADAPTIVE;
}

static bool
probes_on(const struct uet_ep *ep)
{
	return adaptive(ep) && ep->cfg.probe_rtts != 0;
}

/* How long a floor learned from a spurious RTO takes to halve. Long next
 * to RTTs: the delays it learned (a poller descheduled for a scheduler
 * slice, an ACK path's burst of queueing) recur, and each spurious RTO
 * costs a window cut and resends; short next to a run, so that a floor
 * learned from a one-off forgets it. */
#define RTO_LEARN_HALF_NS 4000000000ULL

/* The learned floor as of the PDC's latest transmission or ACK (tx_rto
 * has no clock of its own). */
static uint64_t
rto_learned(const struct pdc *p)
{
	uint64_t halves, t = p->tx.last_ack_ns > p->tx.last_tx_ns ? p->tx.last_ack_ns
								  : p->tx.last_tx_ns;

	if (p->tx.rto_learned_ns == 0)
		return 0;
	halves = t > p->tx.rto_learned_at ? (t - p->tx.rto_learned_at) / RTO_LEARN_HALF_NS : 0;
	return halves >= 63 ? 0 : p->tx.rto_learned_ns >> halves;
}

uint64_t
tx_rto(const struct uet_ep *ep, const struct pdc *p)
{
	uint64_t r;

	if (ep->cfg.rto_ns != 0) {
		r = ep->cfg.rto_ns;
	} else if (!adaptive(ep)) {
		r = ep->rto_min_ns;
	} else if (p->tx.srtt_ns != 0) {
		/* RFC 6298 without its 1 s floor: datacenter RTTs are µs. */
		r = p->tx.srtt_ns + 4 * p->tx.rttvar_ns;
		if (r < ep->rto_min_ns)
			r = ep->rto_min_ns;
	} else {
		r = ep->rto_min_ns;
	}
	/* A timer proved too short keeps the round trip that beat it. */
	if (adaptive(ep) && ep->cfg.rto_ns == 0 && r < rto_learned(p))
		r = rto_learned(p);
	if (r > ep->rto_max_ns)
		r = ep->rto_max_ns;
	if (p->tx.rto_backoff > 0 && !ep->cfg.rto_no_backoff) {
		uint32_t b = p->tx.rto_backoff > 20 ? 20 : p->tx.rto_backoff;

		r <<= b;
		if (r > ep->rto_max_ns)
			r = ep->rto_max_ns;
	}
	return r;
}

/* Probes back off with the retransmission timer. Their RTT unit is the
 * smoothed RTT, not the minimum: ACKs that arrive later than a few minimum
 * RTTs are normal behind a queue (incast, a NIC ring), and a path whose
 * minimum is a few µs (shared memory) sent a probe every ~20 µs whenever
 * coalesced ACKs spaced out. */
static uint64_t
probe_interval(const struct uet_ep *ep, const struct pdc *p)
{
	uint64_t rtt = p->tx.srtt_ns ? p->tx.srtt_ns : base_rtt_est(ep, p);
	uint64_t t;
	uint32_t b = p->tx.rto_backoff > 20 ? 20 : p->tx.rto_backoff;

	t = (uint64_t)ep->cfg.probe_rtts * rtt;
	t <<= b;
	return t > ep->rto_max_ns ? ep->rto_max_ns : t;
}

static bool
tx_quiescent(const struct pdc *p)
{
	return p->tx.snd_una == p->tx.snd_nxt && p->tx.msg_head == NONE16 &&
	       !p->tx.close_queued;
}

static void
lb_events(struct uet_ep *ep, uint32_t ev)
{
	ep->st.lb_freezes += !!(ev & UET_LB_EV_FREEZE);
	ep->st.lb_thaws += !!(ev & UET_LB_EV_THAW);
	ep->st.lb_repaths += !!(ev & UET_LB_EV_REPATH);
}

static uint16_t
lb_next(struct uet_ep *ep, struct pdc *p, uint32_t cwnd, bool retx, bool probe, uint64_t now)
{
	struct uet_lb_send_ctx c = {
		.now_ns = now,
		.retx = retx,
		.probe = probe,
		.cwnd_bytes = cwnd,
		.inflight_bytes = p->tx.inflight_bytes,
		.rto_ns = tx_rto(ep, p),
		.base_rtt_ns = base_rtt_est(ep, p),
		.rng = &ep->rng,
		.p = &ep->lb_params,
		.events = 0,
	};
	uint16_t ev = ep->cfg.lb->next_ev(pdc_lb(ep, p), &c);

	lb_events(ep, c.events);
	return ev;
}

/* The EV of a control packet of the sender's own (CREDIT_REQ), chosen as
 * a probe's is. */
uint16_t
tx_ctrl_ev(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	return lb_next(ep, p, tx_cwnd(ep, p), false, true, now);
}

static void
lb_feedback_full(struct uet_ep *ep, struct pdc *p, enum uet_lb_fb_kind k, uint16_t ev,
		 bool ce, bool retx, uint64_t rtt, uint64_t idle, uint64_t now)
{
	struct uet_lb_feedback fb = {
		.now_ns = now,
		.kind = k,
		.ev = ev,
		.ce = ce,
		.retx = retx,
		.rtt_ns = rtt,
		.idle_ns = idle,
		.cwnd_bytes = tx_cwnd(ep, p),
		.inflight_bytes = p->tx.inflight_bytes,
		.rto_ns = tx_rto(ep, p),
		.base_rtt_ns = base_rtt_est(ep, p),
		.p = &ep->lb_params,
	};

	/* ACKs and NACKs carry the EV of the packet that triggered them in
	 * their UDP source port: one outside our EV set was not sent by us,
	 * and a load balancer that caches EVs must never learn it. */
	if ((k == UET_LB_FB_ACK || k == UET_LB_FB_NACK || k == UET_LB_FB_NACK_LASTHOP ||
	     k == UET_LB_FB_CARRIED) &&
	    (uint32_t)(uint16_t)(ev - ep->lb_params.ev_base) >= ep->lb_params.ev_count) {
		ep->st.rx_foreign_ev++;
		return;
	}
	lb_events(ep, ep->cfg.lb->feedback(pdc_lb(ep, p), &fb));
}

static void
lb_feedback(struct uet_ep *ep, struct pdc *p, enum uet_lb_fb_kind k, uint16_t ev,
	    bool ce, bool retx, uint64_t rtt, uint64_t now)
{
	lb_feedback_full(ep, p, k, ev, ce, retx, rtt, 0, now);
}

static void
cc_loss_rtt(struct uet_ep *ep, struct pdc *p, enum uet_cc_loss_kind k, uint32_t bytes,
	    uint64_t rtt, uint64_t now)
{
	struct uet_cc_loss l = {
		.now_ns = now,
		.kind = k,
		.lost_bytes = bytes,
		.inflight_bytes = p->tx.inflight_bytes,
		.rtt_ns = rtt,
	};

	/* News of congestion: a timer's late verdict would undo the wrong
	 * cut. */
	p->tx.rto_open = 0;
	/* The first reduction of a loss episode saves what an undo restores. */
	if ((k == UET_CC_LOSS_INFERRED || k == UET_CC_LOSS_TIMEOUT) && !p->tx.undo_cc) {
		l.episode_start = true;
		p->tx.undo_cc = 1;
	}
	ep->cfg.cc->on_loss(pdc_cc(ep, p), &l);
}

static void
cc_loss(struct uet_ep *ep, struct pdc *p, enum uet_cc_loss_kind k, uint32_t bytes,
	uint64_t now)
{
	cc_loss_rtt(ep, p, k, bytes, 0, now);
}

/* --- send windows: the per-PSN records are pooled and held only while a
 * PDC has something queued or in flight --- */

static void
win_attach(struct uet_ep *ep, struct pdc *p, uint32_t idx)
{
	p->tx.win_idx = idx;
	p->tx.win_start = p->tx.snd_nxt;
	p->tx.ent = &ep->txw_ent[(size_t)idx * ep->win];
	p->tx.rtxq = &ep->txw_rtxq[(size_t)idx * ep->win];
	p->tx.rtxq_head = p->tx.rtxq_len = 0;
}

static bool
win_acquire(struct uet_ep *ep, struct pdc *p)
{
	if (p->tx.ent != NULL)
		return true;
	if (ep->n_txw_free > 0) {
		win_attach(ep, p, ep->txw_free[--ep->n_txw_free]);
		return true;
	}
	if (!p->tx.waiting_win) {
		uint32_t n = ep->cfg.max_pdcs;

		p->tx.waiting_win = 1;
		slot_fifo_push(ep->txw_wait, ep->txw_wait_head, &ep->txw_wait_len, n, p->slot);
		ep->st.tx_window_waits++;
	}
	return false;
}

static void loss_episode_end(struct uet_ep *ep, struct pdc *p, uint64_t now);

void
tx_release(struct uet_ep *ep, struct pdc *p)
{
	uint32_t n = ep->cfg.max_pdcs;

	if (p->tx.waiting_win) {
		ep->txw_wait_len = slot_fifo_remove(ep->txw_wait, ep->txw_wait_head,
						    ep->txw_wait_len, n, p->slot);
		p->tx.waiting_win = 0;
	}
	if (p->tx.ent == NULL)
		return;
	/* Everything was acknowledged: holds still waiting for their own
	 * retransmission's ACK will never be judged here. The timer's own
	 * resend may still come back as a duplicate (its original arrived
	 * first), which proves the timeout spurious: tx_on_ack keeps that
	 * verdict open while no other loss news comes. */
	p->tx.rto_open = p->tx.rto_undo && !p->tx.undo_real
				 ? (uint8_t)(RTO_OPEN | (p->tx.undo_cc ? RTO_OPEN_CC : 0))
				 : 0;
	if (p->tx.n_held != 0) {
		p->tx.n_held = 0;
		loss_episode_end(ep, p, p->tx.last_ack_ns);
	}
	p->tx.rto_undo = 0;
	p->tx.reo_deadline = 0;
	p->tx.suspect_deadline = 0;
	p->tx.n_refused = 0;
	ep->txw_free[ep->n_txw_free++] = p->tx.win_idx;
	p->tx.ent = NULL;
	p->tx.rtxq = NULL;
	p->tx.rtxq_len = 0;
	while (ep->txw_wait_len > 0 && ep->n_txw_free > 0) {
		struct pdc *w = &ep->pdcs[ep->txw_wait[ep->txw_wait_head]];

		ep->txw_wait_head = (ep->txw_wait_head + 1) % n;
		ep->txw_wait_len--;
		w->tx.waiting_win = 0;
		win_attach(ep, w, ep->txw_free[--ep->n_txw_free]);
		ep_rdy_kick(ep, w);
	}
}

/* --- messages --- */

static void
msg_unlink(struct uet_ep *ep, struct pdc *p, struct tx_msg *m)
{
	uint16_t slot = (uint16_t)(m - ep->txm);

	if (m->prev != NONE16)
		ep->txm[m->prev].next = m->next;
	else
		p->tx.msg_head = m->next;
	if (m->next != NONE16)
		ep->txm[m->next].prev = m->prev;
	else
		p->tx.msg_tail = m->prev;
	if (p->tx.msg_seg == slot)
		p->tx.msg_seg = m->next;
	p->tx.n_msgs--;
}

static void
msg_finish(struct uet_ep *ep, struct pdc *p, struct tx_msg *m, int status, uint64_t now)
{
	struct uet_tx_done d;
	uint16_t slot = (uint16_t)(m - ep->txm);

	msg_unlink(ep, p, m);
	d.user = m->user;
	d.dst_ip = p->peer_ip;
	d.pdc_id = p->id;
	d.msg_id = m->msg_id;
	d.tag = m->tag;
	d.len = m->len;
	d.submit_ns = m->submit_ns;
	d.done_ns = now;
	d.retx_pkts = m->retx_pkts;
	d.status = status;
	m->used = 0;
	ep->txm_free[ep->n_txm_free++] = slot;
	if (status == 0)
		ep->st.msgs_acked++;
	else
		ep->st.msgs_failed++;
	if (ep->cfg.cb.tx_done != NULL)
		ep->cfg.cb.tx_done(ep->cfg.user, &d);
}

/* Fail every message of the PDC and free it. Nothing stays pending. */
void
tx_fail(struct uet_ep *ep, struct pdc *p, int status, uint64_t now)
{
	/* Unmap first: completion callbacks may send to the same peer, which
	 * must open a fresh PDC rather than queue on this dying one. */
	ep_pdc_unmap(ep, p);
	ep_rdy_remove(ep, p);
	ep->st.pdcs_failed++;
	ep_pdc_event(ep, p, UET_PDC_EV_FAILED, status);
	while (p->tx.msg_head != NONE16)
		msg_finish(ep, p, &ep->txm[p->tx.msg_head], status, now);
	ep_pdc_free(ep, p);
}

static struct pdc *
tx_open(struct uet_ep *ep, uint32_t dst_ip, uint16_t stream, uint64_t now, int *err)
{
	uint64_t key = ep_key_init(dst_ip, stream);
	struct uet_lb_params lp;
	struct uet_cc_params cp;
	struct pdc *p;
	int rc;

	p = ep_pdc_alloc(ep, ROLE_INIT, dst_ip, key, now);
	if (p == NULL) {
		*err = UET_ERR_NOBUFS;
		return NULL;
	}
	p->state = PST_SYN;
	p->tx.stream = stream;
	p->tx.win_idx = NONE32;
	/* A random start PSN tells incarnations of a PDC apart at the target
	 * (stale packets of an older one fall outside the window), and the
	 * salt those of a process restarted with the same seed. */
	p->tx.start_psn = (uint32_t)uet_prng_next(&ep->rng) ^ ep->psn_salt;
	if (ep->cfg.psn_near_wrap)
		p->tx.start_psn = UINT32_MAX - (p->tx.start_psn & 15);
	p->tx.snd_una = p->tx.snd_nxt = p->tx.start_psn;
	p->tx.peer_win = ep->win;
	p->tx.msg_head = p->tx.msg_tail = p->tx.msg_seg = NONE16;
	p->tx.next_msg_id = (uint16_t)uet_prng_next(&ep->rng);

	/* The slot's state is the last PDC's: every algorithm starts from
	 * zeros, as it did when its state lived inside the PDC. */
	memset(pdc_lb(ep, p), 0, ep->algo_stride);
	lp.ev_base = ep->cfg.ev_base;
	lp.ev_count = ep->cfg.ev_count;
	lp.mss_bytes = full_pkt_bytes(ep);
	lp.base_rtt_ns = ep->cfg.base_rtt_ns;
	lp.link_bps = ep->cfg.link_bps;
	lp.cfg = ep->cfg.lb_cfg;
	rc = ep->cfg.lb->init(pdc_lb(ep, p), &lp, &ep->rng);
	if (rc == 0) {
		ep_cc_params(ep, &cp);
		rc = ep->cfg.cc->init(pdc_cc(ep, p), &cp);
	}
	if (rc < 0) {
		ep->st.pdcs_opened--;
		ep_pdc_free(ep, p);
		*err = rc;
		return NULL;
	}
	ep_pdc_event(ep, p, UET_PDC_EV_OPEN, 0);
	return p;
}

int
tx_send(struct uet_ep *ep, const struct uet_send_req *r, uint64_t now)
{
	struct tx_msg *m;
	struct pdc *p = NULL;
	uint32_t slot;
	uint16_t ms;
	int rc = 0;

	if (ep->n_txm_free == 0)
		return UET_ERR_NOBUFS;
	if (uet_hmap_get(&ep->pdc_map, ep_key_init(r->dst_ip, r->stream), &slot))
		p = &ep->pdcs[slot];
	else
		p = tx_open(ep, r->dst_ip, r->stream, now, &rc);
	if (p == NULL)
		return rc;

	ms = ep->txm_free[--ep->n_txm_free];
	m = &ep->txm[ms];
	memset(m, 0, sizeof(*m));
	m->buf = r->buf;
	m->user = r->user;
	m->untagged = r->untagged;
	m->tag = r->untagged ? 0 : r->tag;
	m->has_data = r->has_data;
	m->header_data = r->has_data ? r->data : 0;
	m->submit_ns = now;
	m->len = r->len;
	m->pdc_slot = p->slot;
	m->msg_id = p->tx.next_msg_id++;
	m->used = 1;
	m->next = NONE16;
	m->prev = p->tx.msg_tail;
	if (p->tx.msg_tail != NONE16)
		ep->txm[p->tx.msg_tail].next = ms;
	else
		p->tx.msg_head = ms;
	p->tx.msg_tail = ms;
	if (p->tx.msg_seg == NONE16)
		p->tx.msg_seg = ms;
	p->tx.n_msgs++;
	p->tx.idle_deadline = 0;
	ep->st.msgs_submitted++;
	if (cr_tx_on(ep))
		cr_tx_queued(ep, p, cr_msg_bytes(ep, m->len));

	win_acquire(ep, p);
	ep_rdy_kick(ep, p);
	ep_timer_update(ep, p);
	return 0;
}

/* --- transmit --- */

static bool
cwnd_allows(const struct uet_ep *ep, const struct pdc *p, uint32_t cwnd)
{
	/* One packet may always be in flight, or a window smaller than a
	 * packet would stall the PDC forever. So may an RTO's resend (as
	 * TCP's RTO always sends one segment): the rest of the aged flight
	 * stays in flight as suspects until its verdict, and a window cut
	 * below that flight (dctcp-mprdma takes the aged bytes off) would
	 * otherwise hold the resend back until the suspects drain, one
	 * backed-off timeout each. */
	return p->tx.inflight_pkts == 0 || (p->tx.rto_resend && p->tx.rtxq_len > 0) ||
	       (uint64_t)p->tx.inflight_bytes + full_pkt_bytes(ep) <= cwnd;
}

static bool
psn_window_allows(const struct uet_ep *ep, const struct pdc *p)
{
	uint32_t win = p->tx.peer_win < ep->win ? p->tx.peer_win : ep->win;

	if (p->tx.snd_nxt - p->tx.snd_una >= win)
		return false;
	/* While SYN rides on the data, the 12-bit psn_offset bounds how far
	 * past the start PSN we may go before the target answers. */
	if (p->state == PST_SYN && p->tx.snd_nxt - p->tx.start_psn > UET_SYN_MAX_PSN_OFFSET)
		return false;
	return true;
}

/* Drop queue entries that an ACK made moot, so the head is live. */
static void
rtxq_purge(const struct uet_ep *ep, struct pdc *p)
{
	while (p->tx.rtxq_len > 0) {
		uint32_t psn = p->tx.rtxq[p->tx.rtxq_head];

		if (psn_le(p->tx.snd_una, psn) && psn_lt(psn, p->tx.snd_nxt) &&
		    (ent_of(ep, p, psn)->flags & (TXF_LOST | TXF_ACKED)) == TXF_LOST)
			return;
		p->tx.rtxq_head = (p->tx.rtxq_head + 1) & ep->win_mask;
		p->tx.rtxq_len--;
	}
}

/*
 * The cumulative point goes first: everything the receiver holds waits on
 * it, and its last free reassembly slot is kept for it (receiver.c), so
 * with a window of one packet and a queue in the order losses were
 * declared (an RTO sends its resend to the back), a receiver out of slots
 * would refuse every other PSN while this one waited its turn, one
 * backed-off timeout per packet. Rare (it was declared lost first in most
 * episodes), so a scan is fine.
 */
static void
rtxq_una_first(const struct uet_ep *ep, struct pdc *p)
{
	uint32_t i, h = p->tx.rtxq_head, una = p->tx.snd_una;

	if (p->tx.rtxq_len < 2 || p->tx.rtxq[h] == una ||
	    (ent_of(ep, p, una)->flags & (TXF_LOST | TXF_ACKED)) != TXF_LOST)
		return;
	for (i = 1; i < p->tx.rtxq_len; i++) {
		if (p->tx.rtxq[(h + i) & ep->win_mask] != una)
			continue;
		for (; i > 0; i--)
			p->tx.rtxq[(h + i) & ep->win_mask] = p->tx.rtxq[(h + i - 1) & ep->win_mask];
		p->tx.rtxq[h] = una;
		return;
	}
}

/* Keep only the live entries (lost, not acknowledged): each PSN is in the
 * queue at most once as long as nothing leaves the lost state but by
 * being resent, acknowledged, or passing through here. */
static void
rtxq_compact(const struct uet_ep *ep, struct pdc *p)
{
	uint32_t i, k = 0, h = p->tx.rtxq_head;

	for (i = 0; i < p->tx.rtxq_len; i++) {
		uint32_t q = p->tx.rtxq[(h + i) & ep->win_mask];

		if (psn_le(p->tx.snd_una, q) && psn_lt(q, p->tx.snd_nxt) &&
		    (ent_of(ep, p, q)->flags & (TXF_LOST | TXF_ACKED)) == TXF_LOST)
			p->tx.rtxq[(h + k++) & ep->win_mask] = q;
	}
	p->tx.rtxq_len = k;
}

static void
rtxq_push(const struct uet_ep *ep, struct pdc *p, uint32_t psn)
{
	if (p->tx.rtxq_len == ep->win) {
		/* Full of entries some of which ACKs made moot: compact. Live
		 * entries are distinct PSNs of the window, so room appears. */
		rtxq_compact(ep, p);
		assert(p->tx.rtxq_len < ep->win);
	}
	p->tx.rtxq[(p->tx.rtxq_head + p->tx.rtxq_len) & ep->win_mask] = psn;
	p->tx.rtxq_len++;
}

static bool
mark_lost(const struct uet_ep *ep, struct pdc *p, uint32_t psn)
{
	struct tx_ent *e = ent_of(ep, p, psn);

	if (e->flags & (TXF_ACKED | TXF_LOST))
		return false;
	e->flags |= TXF_LOST;
	e->xflags &= (uint8_t)~(TXX_BY_WND | TXX_SAME_EV);
	p->tx.inflight_bytes -= ent_bytes(e);
	p->tx.inflight_pkts--;
	rtxq_push(ep, p, psn);
	if (cr_tx_on(ep) && !(e->flags & TXF_CLOSE))
		cr_tx_queued((struct uet_ep *)ep, p, ent_bytes(e));
	return true;
}

/* Send order: by time, and by PSN among packets written at the same
 * time (one burst of an I/O loop shares its clock reading). */
static inline bool
sent_before(uint64_t a_ns, uint32_t a_psn, uint64_t b_ns, uint32_t b_psn)
{
	return a_ns < b_ns || (a_ns == b_ns && psn_lt(a_psn, b_psn));
}

/* --- losses found without a NACK, and their verdicts --- */

static void release_suspects(struct uet_ep *ep, struct pdc *p, uint64_t now);

enum verdict { V_UNKNOWN = 0, V_CONFIRMED, V_SPURIOUS };

/*
 * The reordering window across paths. Sprayed packets overtake each other
 * by as much as their paths' queues differ, so the window is what the
 * fabric's queues can do (reorder_seed_ns: one path's queues full,
 * another's empty), not RFC 8985's quarter of the minimum RTT, which a
 * spraying flow outgrows at every start; bounded by what the PDC's round
 * trips show the queues doing now (reo_wnd). Above that, what the endpoint
 * learned, for all its PDCs and paths, so a new PDC starts with what the
 * others saw: how late a packet reported missing then arrived (the
 * largest in the current and the last epoch of REO_EPOCH_RTTS base RTTs,
 * plus a quarter), and a floor that a loss proven spurious raises at once
 * to what that loss needed, fading by half every RTO_LEARN_HALF_NS.
 */
#define REO_EPOCH_RTTS 16
#define REO_CAP_SAMPLES 16

static uint64_t
reo_epoch_ns(const struct uet_ep *ep)
{
	return REO_EPOCH_RTTS * ep->cfg.base_rtt_ns;
}

/* A packet reported missing behind a later one arrived after all, this
 * much later than RACK's clock said it would (its round trip over that of
 * the latest-sent packet delivered): into the endpoint's current epoch. */
static void
reo_note_late(struct uet_ep *ep, uint64_t q, uint64_t now)
{
	if (now >= ep->reo.epoch_end_ns) {
		ep->reo.q_prev_ns =
			now < ep->reo.epoch_end_ns + reo_epoch_ns(ep) ? ep->reo.q_cur_ns : 0;
		ep->reo.q_cur_ns = 0;
		ep->reo.epoch_end_ns = now + reo_epoch_ns(ep);
	}
	if (q > ep->reo.q_cur_ns)
		ep->reo.q_cur_ns = q;
}

static uint64_t
reo_floor(const struct uet_ep *ep, uint64_t now)
{
	uint64_t halves = now > ep->reo.floor_at_ns
				  ? (now - ep->reo.floor_at_ns) / RTO_LEARN_HALF_NS
				  : 0;

	return halves >= 64 ? 0 : ep->reo.floor_ns >> halves;
}

/* Which window: behind a later packet on the packet's own EV, or behind
 * one on another (and for a probe's reply, which shows nothing arrived). */
enum reo_kind { REO_SAME_PATH, REO_CROSS };

/* The window for a packet reported missing behind a later one on its own
 * EV (REO_SAME_PATH) or on any other (REO_CROSS). Packets on one EV keep
 * their order (ECMP hashes an EV to one path), so the first waits only
 * RFC 8985's quarter of the minimum RTT (and the learned floor, where the
 * fabric reorders one path after all: adaptive routing, a path that
 * moved). */
static uint64_t
reo_wnd(const struct uet_ep *ep, const struct pdc *p, enum reo_kind kind, uint64_t now)
{
	uint64_t w, q = 0, f;

	if (ep->cfg.reorder_window_ns != 0)
		return ep->cfg.reorder_window_ns;
	f = reo_floor(ep, now);
	if (kind == REO_SAME_PATH) {
		w = base_rtt_est(ep, p) / 4;
		return f > w ? f : w;
	}
	w = ep->cfg.reorder_seed_ns ? ep->cfg.reorder_seed_ns : 2 * ep->cfg.base_rtt_ns;
	/* The queues can do that; what they are doing bounds it: one path is
	 * later than another by at most how far apart the PDC's round trips
	 * lately were (its largest and smallest RTT of about two RTOs), here
	 * with a margin of as much again and half the minimum RTT for queues
	 * that grew since, once REO_CAP_SAMPLES round trips sampled the
	 * paths, and while that window lasts (a PDC that has heard nothing
	 * for longer knows nothing of its queues now). Quiet paths then find
	 * a loss (a failed link, say) in a fraction of what full queues would
	 * need, and so do paths that all wait in one queue (an incast's last
	 * hop), which reorders nothing. */
	if (p->tx.rtt_win_n >= REO_CAP_SAMPLES && now < p->tx.rtt_win_end) {
		uint64_t min = base_rtt_est(ep, p), lo = p->tx.win_min_rtt_ns;
		uint64_t cap = 2 * (p->tx.max_rtt_ns > lo ? p->tx.max_rtt_ns - lo : 0) + min / 2;

		if (cap < w)
			w = cap;
	}
	if (w < base_rtt_est(ep, p) / 4)
		w = base_rtt_est(ep, p) / 4;
	/* The epochs' delays, while they are recent. */
	if (now < ep->reo.epoch_end_ns)
		q = ep->reo.q_cur_ns > ep->reo.q_prev_ns ? ep->reo.q_cur_ns : ep->reo.q_prev_ns;
	else if (now < ep->reo.epoch_end_ns + reo_epoch_ns(ep))
		q = ep->reo.q_cur_ns;
	if (q + q / 4 > w)
		w = q + q / 4;
	if (w > ep->rto_max_ns) /* one stalled packet must not outwait the timer */
		w = ep->rto_max_ns;
	return f > w ? f : w;
}

/* Raise the floor at once to need, and a quarter more. */
static void
reo_raise(struct uet_ep *ep, uint64_t need, uint64_t now)
{
	need += need / 4;
	if (need > ep->rto_max_ns)
		need = ep->rto_max_ns;
	if (need > reo_floor(ep, now)) {
		ep->reo.floor_ns = need;
		ep->reo.floor_at_ns = now;
	}
}

/* A loss that a window declared (TXX_BY_WND), proved spurious. Caught
 * before the resend, the original's own delivery says how late it was:
 * its round trip over the minimum. Resent, the original came after the
 * resend left (at e->sent_ns): the window that declared it (on its own
 * EV or across paths) fell short by less than the time since, once per
 * raise (a resend that left before the last raise was judged with the
 * window that raise replaced, and must not raise it again). */
static void
reo_spurious(struct uet_ep *ep, const struct pdc *p, const struct tx_ent *e, bool resent,
	     uint64_t now)
{
	uint64_t min = base_rtt_est(ep, p);

	if (!resent)
		reo_raise(ep, now > e->sent_ns + min ? now - e->sent_ns - min : 0, now);
	else if (e->sent_ns > ep->reo.floor_at_ns)
		reo_raise(ep,
			  reo_wnd(ep, p, (e->xflags & TXX_SAME_EV) ? REO_SAME_PATH : REO_CROSS, now) +
				  (now > e->sent_ns ? now - e->sent_ns : 0),
			  now);
}

/*
 * A loss that congestion does not explain is a failed path: REPS' rule
 * (reps.md 1.5) for an RTO, applied here to every loss detection (RTO,
 * reordering, probe), because this transport finds most losses before the
 * RTO. Losses after low RTTs died on a path, not in a queue; with trimming,
 * congestion shows as NACKs, so every silent loss does. The report waits,
 * like the losses' own feedback, for a loss of the episode to be confirmed.
 */
static void
classify_loss(struct uet_ep *ep, struct pdc *p)
{
	if (ep->cfg.assume_trimming || p->tx.trim_seen ||
	    p->tx.max_rtt_ns * 100 < (uint64_t)ep->cfg.failure_rtt_pct * base_rtt_est(ep, p))
		p->tx.fail_held = 1;
}

/* Every hold of the episode is judged: take the congestion controller's
 * reductions back if nothing but spurious losses was seen. */
static void
loss_episode_end(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	if (p->tx.undo_spur && !p->tx.undo_real && p->tx.undo_cc && ep->cfg.cc->undo != NULL) {
		ep->cfg.cc->undo(pdc_cc(ep, p), now);
		ep->st.loss_undos++;
	}
	if (!p->tx.undo_real)
		p->tx.fail_held = 0;
	p->tx.undo_spur = p->tx.undo_real = p->tx.undo_cc = 0;
}

/* A round trip that beat the timer (Eifel, RFC 4015): into the estimate,
 * and, since the smoothed estimate forgets it within a few dozen samples,
 * long before such a delay recurs, twice it as a floor that fades over
 * seconds. */
static void
rto_learn(struct uet_ep *ep, struct pdc *p, uint64_t rtt, uint64_t now)
{
	uint64_t floor = rto_learned(p);

	if (p->tx.srtt_ns < rtt)
		p->tx.srtt_ns = rtt;
	if (p->tx.rttvar_ns < rtt / 2)
		p->tx.rttvar_ns = rtt / 2;
	if (floor < 2 * rtt)
		floor = 2 * rtt;
	p->tx.rto_learned_ns = floor > ep->rto_max_ns ? ep->rto_max_ns : floor;
	p->tx.rto_learned_at = now;
}

/* The RTO p->tx.rto_psn fired for was spurious: its packet was delivered
 * by the copy the timer gave up on. Undo the timer's effects (RFC 4015's
 * response): the backoff step, the retry, the losses it declared that
 * have not been resent yet, and let the late RTT raise the estimate. */
static void
rto_spurious(struct uet_ep *ep, struct pdc *p, bool rtt_known, uint64_t now)
{
	uint32_t psn;

	p->tx.rto_undo = 0;
	p->tx.suspect_deadline = 0;
	ep->st.spurious_rto++;
	if (p->tx.rto_backoff > 0)
		p->tx.rto_backoff--;
	if (p->tx.rto_fails > 0 && p->tx.rto_counted)
		p->tx.rto_fails--;
	/* The original's round trip: measured when its own ACK decided it,
	 * else at least what it had waited when the timer gave up on it (and
	 * its own ACK, when it comes, says more). */
	rto_learn(ep, p, rtt_known && now > p->tx.rto_first_sent_ns
				 ? now - p->tx.rto_first_sent_ns
				 : p->tx.rto_age_ns, now);
	p->tx.rto_late = !rtt_known;
	for (psn = p->tx.snd_una; psn != p->tx.snd_nxt; psn++) {
		struct tx_ent *e = ent_of(ep, p, psn);

		/* A suspect is cleared; it never left the flight. */
		if ((e->flags & (TXF_HELD_RTO | TXF_HELD)) == TXF_HELD_RTO) {
			e->flags &= (uint8_t)~TXF_HELD_RTO;
			continue;
		}
		if ((e->flags & (TXF_LOST | TXF_HELD_RTO | TXF_ACKED)) !=
		    (TXF_LOST | TXF_HELD_RTO))
			continue;
		/* Back in flight; its retransmit-queue entry goes moot. */
		e->flags &= (uint8_t)~(TXF_LOST | TXF_HELD | TXF_HELD_RTO);
		p->tx.inflight_bytes += ent_bytes(e);
		p->tx.inflight_pkts++;
		p->tx.n_held--;
	}
	/* Their queue entries go now: declared lost again later, they would
	 * be queued twice. */
	rtxq_compact(ep, p);
	/* Only a resend re-arms the timer, and these will not be resent. */
	if (p->tx.rto_deadline == 0 && p->tx.inflight_pkts > 0)
		p->tx.rto_deadline = now + tx_rto(ep, p);
}

/* The episode's path-failure report, once classify_loss() held one. */
static void
report_failure(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	if (!p->tx.fail_held)
		return;
	p->tx.fail_held = 0;
	ep->st.path_failures++;
	lb_feedback(ep, p, UET_LB_FB_FAILURE, 0, false, false, 0, now);
}

/* Judge a held loss. A confirmed one reaches the load balancer now (with
 * the EV of the copy that was lost) and so does the episode's path-failure
 * report; a spurious one never does (nack-rto: see declare_lost()). */
static void
judge(struct uet_ep *ep, struct pdc *p, uint32_t psn, enum verdict v, bool rtt_known,
      uint64_t now)
{
	struct tx_ent *e = ent_of(ep, p, psn);
	bool resent = !(e->flags & TXF_LOST), by_rto = e->flags & TXF_HELD_RTO;

	assert(e->flags & TXF_HELD);
	assert(p->tx.n_held > 0);
	e->flags &= (uint8_t)~(TXF_HELD | TXF_HELD_RTO);
	p->tx.n_held--;
	if (v == V_CONFIRMED) {
		p->tx.undo_real = 1;
		/* nack-rto told the load balancer when it declared the loss. */
		if (adaptive(ep))
			lb_feedback(ep, p, by_rto ? UET_LB_FB_TIMEOUT : UET_LB_FB_LOSS, e->lost_ev,
				    false, e->tx_count > (resent ? 2 : 1), 0, now);
		report_failure(ep, p, now);
		if (by_rto && p->tx.rto_undo && psn == p->tx.rto_psn) {
			p->tx.rto_undo = 0;
			release_suspects(ep, p, now);
		}
	} else if (v == V_SPURIOUS) {
		p->tx.undo_spur = 1;
		/* A resend is counted when the receiver reports it as a
		 * duplicate (tx_on_ack), as every redundant copy is. */
		if (!resent)
			ep->st.spurious_losses++;
		if (by_rto) {
			if (p->tx.rto_undo && psn == p->tx.rto_psn)
				rto_spurious(ep, p, rtt_known, now);
		} else if (adaptive(ep) && ep->cfg.reorder_window_ns == 0) {
			reo_spurious(ep, p, e, resent, now);
		}
	}
	if (p->tx.n_held == 0)
		loss_episode_end(ep, p, now);
}

/*
 * Declare psn lost without a NACK (kind: UET_LB_FB_LOSS or _TIMEOUT). Its
 * feedback is held for the verdict, except under nack-rto: the UEC
 * reference simulator, and the REPS paper's artifact with it, penalise the
 * EV and freeze REPS when the timer fires, and waiting a round trip for
 * the resend's verdict would let a sender keep spraying into a dead link
 * that much longer than theirs (the verdict still undoes a spurious
 * timer's window and backoff). A PSN already held and lost again (its
 * retransmission was not acknowledged in time either) confirms the first
 * loss.
 */
static void
declare_lost(struct uet_ep *ep, struct pdc *p, uint32_t psn, enum uet_lb_fb_kind kind,
	     uint64_t now)
{
	struct tx_ent *e = ent_of(ep, p, psn);

	if (e->flags & TXF_HELD)
		judge(ep, p, psn, V_CONFIRMED, false, now);
	mark_lost(ep, p, psn);
	e->flags = (uint8_t)((e->flags & ~TXF_HELD_RTO) | TXF_HELD |
			     (kind == UET_LB_FB_TIMEOUT ? TXF_HELD_RTO : 0));
	if (kind == UET_LB_FB_LOSS)
		e->xflags |= (uint8_t)(TXX_BY_WND | ((e->flags & TXF_PASSED) ? TXX_SAME_EV : 0));
	e->lost_ev = e->ev;
	p->tx.n_held++;
	if (!adaptive(ep))
		lb_feedback(ep, p, kind, e->lost_ev, false, e->tx_count > 1, 0, now);
}

/* The RTO's own packet was lost for real: its suspects (aged as long,
 * TXF_HELD_RTO without TXF_HELD) are declared lost too. */
static void
release_suspects(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	uint32_t psn;

	p->tx.suspect_deadline = 0;
	for (psn = p->tx.snd_una; psn != p->tx.snd_nxt; psn++) {
		struct tx_ent *e = ent_of(ep, p, psn);

		if ((e->flags & (TXF_HELD_RTO | TXF_HELD | TXF_ACKED | TXF_LOST)) != TXF_HELD_RTO)
			continue;
		declare_lost(ep, p, psn, UET_LB_FB_TIMEOUT, now);
		ep->st.rto_lost_pkts++;
	}
	ep_rdy_kick(ep, p);
}

bool
tx_can_send(struct uet_ep *ep, struct pdc *p)
{
	bool has_new;

	if (p->role != ROLE_INIT || p->tx.ent == NULL)
		return false;
	rtxq_purge(ep, p);
	has_new = p->tx.msg_seg != NONE16 || p->tx.close_queued;
	if (p->tx.rtxq_len == 0 && !(has_new && psn_window_allows(ep, p)))
		return false;
	return cwnd_allows(ep, p, tx_cwnd(ep, p)) && (!cr_tx_on(ep) || cr_tx_allows(ep, p));
}

static int
build_close(struct uet_ep *ep, struct pdc *p, uint32_t psn, bool retx, uint8_t *buf,
	    size_t cap, struct uet_tx_meta *m)
{
	struct uet_hdr h;
	int n;

	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_CTRL;
	h.nh = UET_CTL_CLOSE;
	h.flags = UET_REQ_F_AR | (retx ? UET_REQ_F_RETX : 0);
	h.psn = psn;
	h.spdcid = p->id;
	h.dpdcid = p->peer_id;
	n = uet_hdr_encode(&h, buf, cap);
	if (n < 0)
		return n;
	ep->st.tx_close_pkts++;
	/* tx_write fills in where it goes and its EV. */
	return ctrl_meta(m, UET_PKT_CLOSE, p->peer_ip, 0, p->id, psn, n);
}

/*
 * Data packets are the hot path: write the RUD request and the SES standard
 * header straight into the buffer instead of filling a struct uet_hdr for
 * uet_hdr_encode (test_data_header_matches_codec holds them equal).
 */
static int
build_data(struct uet_ep *ep, struct pdc *p, uint32_t psn, const struct tx_ent *e,
	   bool retx, uint32_t cwnd, uint8_t *b, struct uet_tx_meta *m)
{
	const struct tx_msg *msg = &ep->txm[e->msg];
	bool som = e->msg_off == 0, eom = e->msg_off + e->len == msg->len;
	uint8_t flags = 0, *ses = b + UET_PDS_REQ_LEN;
	int32_t clear;
	uint16_t dpdcid;

	if (p->state == PST_SYN) {
		flags |= UET_REQ_F_SYN;
		dpdcid = uet_syn_slot((uint16_t)(psn - p->tx.start_psn));
	} else {
		dpdcid = p->peer_id;
	}
	if (retx)
		flags |= UET_REQ_F_RETX | UET_REQ_F_AR;
	/* Ask for an ACK at the end of a message and when this packet fills
	 * the window, so the ACK clock never waits on the delayed-ACK timer.
	 * A window-limited flow fills its window again after every ACK, so
	 * asking each time makes the receiver ACK every packet instead of
	 * every ack_every_bytes: the reference's rule, which feeds REPS an EV
	 * per packet exactly when the flow is held back (on a degraded
	 * fabric this alone moved REPS's max FCT by 8%, doc/results.md §6).
	 * Otherwise one such request in flight is enough to keep the clock. */
	if (eom || ((uint64_t)p->tx.inflight_bytes + ent_bytes(e) + full_pkt_bytes(ep) > cwnd &&
		    (ep->cfg.ack_req_every_fill || !p->tx.ar_out ||
		     psn_lt(p->tx.ar_psn, p->tx.snd_una))))
		flags |= UET_REQ_F_AR;
	if (flags & UET_REQ_F_AR) {
		p->tx.ar_psn = psn;
		p->tx.ar_out = 1;
	}
	/* CLEAR_PSN (psn + clear_psn_offset) is the highest PSN cleared,
	 * inclusive as the cumulative ACK PSN is: everything below snd_una
	 * is acknowledged. Clamped, it claims less, never more. */
	clear = (int32_t)(p->tx.snd_una - 1 - psn);
	if (clear < INT16_MIN)
		clear = INT16_MIN;

	uet_put_be16(b, (uint16_t)((UET_PDS_RUD_REQ << 11) | (UET_NH_REQ_STD << 7) | flags));
	uet_put_be16(b + 2, (uint16_t)(int16_t)clear);
	uet_put_be32(b + 4, psn);
	uet_put_be16(b + 8, p->id);
	uet_put_be16(b + 10, dpdcid);

	/* As UET's reference sends: relative addressing (REL) with buffer
	 * offset 0, the message's placement given by its offset below. */
	ses[0] = msg->untagged ? UET_SES_SEND : UET_SES_TAGGED_SEND;
	ses[1] = (uint8_t)(UET_SES_F_REL | (som ? UET_SES_F_SOM : 0) | (eom ? UET_SES_F_EOM : 0) |
			   (som && msg->has_data ? UET_SES_F_HD : 0));
	uet_put_be16(ses + 2, msg->msg_id);
	ses[4] = 0;
	uet_put_be24(ses + 5, ep->cfg.job_id);
	memset(ses + 8, 0, 12); /* pid_on_fep, resource index, buffer offset */
	uet_put_be32(ses + 20, ep->cfg.initiator_id);
	uet_put_be64(ses + 24, msg->tag);
	if (som) {
		uet_put_be64(ses + 32, msg->header_data);
	} else {
		uet_put_be32(ses + 32, e->len);
		uet_put_be32(ses + 36, e->msg_off);
	}
	uet_put_be32(ses + 40, msg->len);

	if (msg->buf != NULL && e->len > 0) {
		if (ep->cfg.tx_sum) {
			/* One pass over the payload for the copy and the
			 * checksum's sum; the headers are in cache. */
			m->sum = uet_csum_copy(b + UET_DATA_HDR_LEN, msg->buf + e->msg_off, e->len,
					       uet_csum_partial(b, UET_DATA_HDR_LEN, 0));
			m->sum_valid = true;
		} else {
			memcpy(b + UET_DATA_HDR_LEN, msg->buf + e->msg_off, e->len);
		}
	}
	m->kind = retx ? UET_PKT_RETX : UET_PKT_DATA;
	m->tclass = retx ? UET_TCLASS_RETX : UET_TCLASS_DATA;
	m->ecn_capable = true;
	m->hdr_len = UET_DATA_HDR_LEN;
	m->payload_len = e->len;
	m->payload_filled = msg->buf != NULL;
	m->msg_user = msg->user;
	m->msg_tag = msg->tag;
	m->msg_offset = e->msg_off;
	return UET_DATA_HDR_LEN + e->len;
}

int
tx_write(struct uet_ep *ep, struct pdc *p, uint8_t *buf, size_t cap,
	 struct uet_tx_meta *m, uint64_t now)
{
	struct tx_ent *e;
	uint32_t psn, cwnd;
	bool retx;
	int n;

	if (cap < full_pkt_bytes(ep))
		return UET_ERR_BUFSIZE;
	if (p->tx.ent == NULL)
		return 0;
	cwnd = tx_cwnd(ep, p);
	if (!cwnd_allows(ep, p, cwnd))
		return 0;
	rtxq_purge(ep, p);
	rtxq_una_first(ep, p);
	if (cr_tx_on(ep) && !cr_tx_allows(ep, p))
		return 0;
	if (p->tx.rtxq_len > 0) {
		psn = p->tx.rtxq[p->tx.rtxq_head];
		p->tx.rtxq_head = (p->tx.rtxq_head + 1) & ep->win_mask;
		p->tx.rtxq_len--;
		e = ent_of(ep, p, psn);
		e->flags &= (uint8_t)~(TXF_LOST | TXF_PASSED | TXF_BEHIND);
		if (e->tx_count < UINT8_MAX)
			e->tx_count++;
		retx = true;
		p->tx.rto_resend = 0;
		ep->st.tx_retx_pkts++;
		if (!(e->flags & TXF_CLOSE))
			ep->txm[e->msg].retx_pkts++;
	} else if ((p->tx.msg_seg != NONE16 || p->tx.close_queued) &&
		   psn_window_allows(ep, p)) {
		psn = p->tx.snd_nxt++;
		e = ent_of(ep, p, psn);
		/* The slot's previous PSN, a window back, was acknowledged;
		 * a hold on it still waiting for its retransmission's ACK
		 * will not be judged. */
		if ((e->flags & TXF_HELD) && psn_le(p->tx.win_start, psn - ep->win))
			judge(ep, p, psn - ep->win, V_UNKNOWN, false, now);
		memset(e, 0, sizeof(*e));
		e->tx_count = 1;
		retx = false;
		if (p->tx.msg_seg != NONE16) {
			struct tx_msg *msg = &ep->txm[p->tx.msg_seg];
			uint32_t left = msg->len - msg->seg_off;

			e->msg = p->tx.msg_seg;
			e->msg_off = msg->seg_off;
			e->len = (uint16_t)(left < ep->mss ? left : ep->mss);
			msg->seg_off += e->len;
			msg->unacked_pkts++;
			if (msg->seg_off == msg->len) {
				msg->segmented = 1;
				p->tx.msg_seg = msg->next;
			}
			ep->st.tx_data_pkts++;
			ep->st.tx_data_bytes += e->len;
		} else {
			e->flags |= TXF_CLOSE;
			e->msg = NONE16;
			p->tx.close_queued = 0;
			p->tx.close_psn = psn;
		}
	} else {
		return 0;
	}
	e->sent_ns = now;
	if (p->state == PST_SYN)
		e->flags |= TXF_SYN;
	else
		e->flags &= (uint8_t)~TXF_SYN;
	/* Path state learned before a pause may be stale (REPS invalidates
	 * its cache): say how long the PDC was quiet. Only a pause with
	 * everything acknowledged counts; a PDC stalled on lost packets is
	 * not idle, and clearing a frozen REPS cache then would send it
	 * exploring into the failure it froze for. */
	if (!retx && p->tx.snd_una == psn && p->tx.last_tx_ns != 0) {
		uint64_t quiet = p->tx.last_tx_ns > p->tx.last_ack_ns ? p->tx.last_tx_ns
								       : p->tx.last_ack_ns;

		if (now - quiet > ep->lb_idle_ns)
			lb_feedback_full(ep, p, UET_LB_FB_IDLE, 0, false, false, 0, now - quiet,
					 now);
	}
	p->tx.last_tx_ns = now;
	e->ev = lb_next(ep, p, cwnd, retx, false, now);
	if (e->flags & TXF_CLOSE)
		n = build_close(ep, p, psn, retx, buf, cap, m);
	else
		n = build_data(ep, p, psn, e, retx, cwnd, buf, m);
	assert(n > 0);
	if (cr_tx_on(ep) && !(e->flags & TXF_CLOSE))
		cr_tx_sent(ep, p, ent_bytes(e));
	p->tx.inflight_bytes += ent_bytes(e);
	p->tx.inflight_pkts++;
	m->dst_ip = p->peer_ip;
	m->ev = e->ev;
	m->pdc_id = p->id;
	m->psn = psn;
	if (p->tx.rto_deadline == 0)
		p->tx.rto_deadline = now + tx_rto(ep, p);
	if (p->tx.probe_deadline == 0 && probes_on(ep))
		p->tx.probe_deadline = now + probe_interval(ep, p);
	return n;
}

/* A CONTROL header of the initiator's own (probe, CREDIT_REQ): in SYN form
 * until the target has answered, so that it opens the PDC there if it
 * arrives before every data packet (or they were all lost). */
void
tx_ctrl_hdr(const struct pdc *p, uint8_t nh, uint8_t flags, uint32_t psn, struct uet_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->type = UET_PDS_CTRL;
	h->nh = nh;
	h->flags = flags;
	h->psn = psn;
	h->spdcid = p->id;
	if (p->state == PST_SYN) {
		h->flags |= UET_REQ_F_SYN;
		h->dpdcid = uet_syn_slot((uint16_t)(psn - p->tx.start_psn));
	} else {
		h->dpdcid = p->peer_id;
	}
}

int
tx_write_probe(struct uet_ep *ep, const struct ctrl_item *ci, uint8_t *buf, size_t cap,
	       struct uet_tx_meta *m, uint64_t now)
{
	struct pdc *p = &ep->pdcs[ci->pdc_slot];
	struct uet_hdr h;
	int n;

	if (p->role != ROLE_INIT || p->gen != ci->pdc_gen || p->tx.ent == NULL ||
	    p->tx.snd_una == p->tx.snd_nxt)
		return 0;
	if (cap < UET_PDS_CTRL_LEN)
		return UET_ERR_BUFSIZE;
	tx_ctrl_hdr(p, UET_CTL_PROBE, UET_REQ_F_AR, p->tx.snd_una, &h);
	h.off16 = (int16_t)p->tx.probe_opaque;
	/* Ask for the SACK window starting at the oldest hole. */
	h.payload32 = p->tx.snd_una;
	n = uet_hdr_encode(&h, buf, cap);
	if (n < 0)
		return n;
	p->tx.probe_sent_ns = now;
	ep->st.tx_probe_pkts++;
	return ctrl_meta(m, UET_PKT_PROBE, p->peer_ip,
			 lb_next(ep, p, tx_cwnd(ep, p), false, true, now), p->id, h.psn, n);
}

/* --- receive: ACK, SACK, NACK --- */


struct ack_ctx {
	uint32_t acked_bytes;
	uint32_t trigger;    /* PSN whose own ACK this is; judged by the caller */
	bool has_trigger;
	bool delivered;      /* a first transmission was newly delivered */
};

static void
ack_one(struct uet_ep *ep, struct pdc *p, uint32_t psn, struct ack_ctx *ac, uint64_t now)
{
	struct tx_ent *e = ent_of(ep, p, psn);
	struct tx_msg *m;

	if (e->flags & TXF_ACKED)
		return;
	/* Delivered while still waiting to be resent: the original arrived,
	 * the loss was reordering. A held PSN already resent waits for its
	 * retransmission's own ACK, which says which copy came first. */
	if ((e->flags & (TXF_HELD | TXF_LOST)) == (TXF_HELD | TXF_LOST) &&
	    !(ac->has_trigger && ac->trigger == psn))
		judge(ep, p, psn, V_SPURIOUS, false, now);
	if (!(e->flags & TXF_LOST)) {
		p->tx.inflight_bytes -= ent_bytes(e);
		p->tx.inflight_pkts--;
	}
	if (e->xflags & TXX_REFUSED) {
		e->xflags &= (uint8_t)~TXX_REFUSED;
		p->tx.n_refused--;
	}
	e->flags = (uint8_t)((e->flags | TXF_ACKED) & ~TXF_LOST);
	if (!(e->flags & TXF_HELD))
		e->flags &= (uint8_t)~TXF_HELD_RTO; /* a suspect, delivered */
	p->tx.acked_pkts++;
	ac->acked_bytes += ent_bytes(e);
	/* RACK's clock: only first transmissions say when the path delivered
	 * what was sent when (a retransmission's send time may belong to a
	 * copy that never arrived). */
	if (e->tx_count == 1) {
		uint32_t k = e->ev & 255;

		/* Reported missing and then delivered: reordering, and by how
		 * much, for the window across paths. */
		if ((e->flags & (TXF_BEHIND | TXF_HELD)) == TXF_BEHIND && p->tx.rack_on &&
		    now > e->sent_ns + p->tx.rack_rtt_ns)
			reo_note_late(ep, now - e->sent_ns - p->tx.rack_rtt_ns, now);
		if (!p->tx.rack_on ||
		    sent_before(p->tx.rack_sent_ns, p->tx.rack_psn, e->sent_ns, psn)) {
			uint64_t rtt = now > e->sent_ns ? now - e->sent_ns : 0;

			p->tx.rack_on = 1;
			p->tx.rack_sent_ns = e->sent_ns;
			p->tx.rack_psn = psn;
			p->tx.rack_rtt_ns = (uint32_t)(rtt > UINT32_MAX ? UINT32_MAX : rtt);
		}
		if (ep->evt[k].stamp != ep->evt_stamp || ep->evt[k].ev != e->ev ||
		    sent_before(ep->evt[k].sent_ns, ep->evt[k].psn, e->sent_ns, psn)) {
			ep->evt[k].stamp = ep->evt_stamp;
			ep->evt[k].ev = e->ev;
			ep->evt[k].sent_ns = e->sent_ns;
			ep->evt[k].psn = psn;
		}
		ac->delivered = true;
	}
	if (e->flags & TXF_CLOSE)
		return;
	m = &ep->txm[e->msg];
	assert(m->used && m->unacked_pkts > 0);
	m->unacked_pkts--;
	if (m->segmented && m->unacked_pkts == 0)
		msg_finish(ep, p, m, 0, now);
}

static void
rtt_sample(struct uet_ep *ep, struct pdc *p, uint64_t rtt, uint64_t now)
{
	uint64_t err;

	/* Largest RTT over a window of about two RTOs, for telling a failed
	 * path (an RTO after low RTTs) from congestion (an RTO after high
	 * ones): REPS' rule (reps.md 1.5). */
	if (now >= p->tx.rtt_win_end) {
		p->tx.max_rtt_ns = 0;
		p->tx.win_min_rtt_ns = UINT64_MAX;
		p->tx.rtt_win_n = 0;
		p->tx.rtt_win_end = now + 2 * tx_rto(ep, p);
	}
	if (rtt > p->tx.max_rtt_ns)
		p->tx.max_rtt_ns = rtt;
	if (rtt < p->tx.win_min_rtt_ns)
		p->tx.win_min_rtt_ns = rtt;
	if (p->tx.rtt_win_n < UINT16_MAX)
		p->tx.rtt_win_n++;
	if (p->tx.min_rtt_ns == 0 || rtt < p->tx.min_rtt_ns)
		p->tx.min_rtt_ns = rtt;
	if (p->tx.srtt_ns == 0) {
		p->tx.srtt_ns = rtt;
		p->tx.rttvar_ns = rtt / 2;
		return;
	}
	err = rtt > p->tx.srtt_ns ? rtt - p->tx.srtt_ns : p->tx.srtt_ns - rtt;
	p->tx.rttvar_ns = (3 * p->tx.rttvar_ns + err) / 4;
	p->tx.srtt_ns = (7 * p->tx.srtt_ns + rtt) / 8;
}

static void
enter_recovery(struct uet_ep *ep, struct pdc *p, uint32_t lost_bytes, uint64_t now)
{
	if (p->tx.in_recovery)
		return;
	/* One congestion response per recovery episode, like a TCP RTT. */
	p->tx.in_recovery = 1;
	p->tx.recovery_psn = p->tx.snd_nxt;
	cc_loss(ep, p, UET_CC_LOSS_INFERRED, lost_bytes, now);
}

/* The target acknowledged something new, so it may have room again (a
 * message completed and gave its reassembly slot back, a receive window
 * emptied): what it refused goes again at the next timeout like any
 * other loss, not one packet per timeout. */
static void
unpark_refused(struct uet_ep *ep, struct pdc *p)
{
	uint32_t psn;

	for (psn = p->tx.snd_una; p->tx.n_refused > 0 && psn != p->tx.snd_nxt; psn++) {
		struct tx_ent *e = ent_of(ep, p, psn);

		if (e->xflags & TXX_REFUSED) {
			e->xflags &= (uint8_t)~TXX_REFUSED;
			p->tx.n_refused--;
		}
	}
	p->tx.n_refused = 0;
}

/* Declare lost every outstanding PSN last sent before 'before_ns' whose
 * time is up as RACK across paths reckons it (sent + the latest delivery's
 * RTT + the window across paths), but none the target refused for want
 * of room: its silence about them is not their loss, and the timer
 * resends them (on_rto). The probe's reply overtakes data queued behind
 * it (control goes first), so a packet the receiver has not counted yet
 * may only be waiting in a queue, as long as the queues can hold it. */
static uint32_t
mark_lost_before(struct uet_ep *ep, struct pdc *p, uint64_t before_ns, uint32_t *bytes,
		 uint64_t now)
{
	uint64_t wait = (p->tx.rack_on ? p->tx.rack_rtt_ns : base_rtt_est(ep, p)) +
			reo_wnd(ep, p, REO_CROSS, now);
	uint32_t psn, n = 0;

	for (psn = p->tx.snd_una; psn != p->tx.snd_nxt; psn++) {
		struct tx_ent *e = ent_of(ep, p, psn);

		if ((e->flags & (TXF_ACKED | TXF_LOST)) || e->sent_ns >= before_ns ||
		    e->sent_ns + wait > now || (e->xflags & TXX_REFUSED))
			continue;
		*bytes += ent_bytes(e);
		declare_lost(ep, p, psn, UET_LB_FB_LOSS, now);
		e->xflags &= (uint8_t)~TXX_SAME_EV; /* the probe waited the cross window */
		n++;
	}
	return n;
}

/* What one ACK said: what it delivered (ep->evt), and which PSNs it
 * reported missing: its cumulative PSN and the clear bits of its SACK
 * window. A PSN outside both was not reported either way (the SACK window
 * is 64 PSNs), so nothing is concluded about it. */
struct ack_report {
	uint32_t cack;
	uint32_t base;
	uint64_t bits;
	bool sack;
};

static bool
reported_missing(const struct ack_report *r, uint32_t psn)
{
	uint32_t i = psn - r->base;

	if (psn == r->cack)
		return true;
	return r->sack && psn_lt(r->cack, psn) && i < 64 && !(r->bits & (1ULL << i));
}

/*
 * RACK (RFC 8985 §6.2) on a sprayed PDC. Send order means something only
 * within one path: packets on one EV stay in order, while packets on
 * different EVs overtake each other by as much as the queues differ. So a
 * packet is lost when an ACK reports it missing while delivering a packet
 * sent after it on its own EV (TXF_PASSED), and the reordering window has
 * passed since it would have arrived: sent + the RTT of the latest
 * delivery + window. Across paths (TXF_BEHIND: any later packet delivered)
 * the same rule applies only where the fabric is not known to trim: a
 * trimming fabric NACKs what congestion cuts, and what it loses silently
 * (a failure) shows on the path itself or to the probe and the RTO. The
 * windows are reo_wnd()'s: a quarter of the minimum RTT on the packet's
 * own EV, what the fabric's queues can do across paths. A packet whose
 * window has not passed yet arms the reordering timer. r: this ACK's
 * report (NULL from the timer).
 */
static void
rack_detect(struct uet_ep *ep, struct pdc *p, const struct ack_report *r, uint64_t now)
{
	bool cross = !(ep->cfg.assume_trimming || p->tx.trim_seen);
	uint32_t psn, n = 0, lost_bytes = 0, gate = ep->cfg.ooo_min_pkts;
	uint64_t wnd_path, wnd_cross, due, next = UINT64_MAX;

	p->tx.reo_deadline = 0;
	if (!adaptive(ep) || p->tx.ent == NULL || !p->tx.rack_on ||
	    p->tx.last_ooo < (gate > 0 ? gate : 1))
		return;
	wnd_path = reo_wnd(ep, p, REO_SAME_PATH, now);
	wnd_cross = reo_wnd(ep, p, REO_CROSS, now);
	for (psn = p->tx.snd_una; psn != p->tx.snd_nxt; psn++) {
		struct tx_ent *e = ent_of(ep, p, psn);

		if ((e->flags & (TXF_ACKED | TXF_LOST)) ||
		    !sent_before(e->sent_ns, psn, p->tx.rack_sent_ns, p->tx.rack_psn))
			continue;
		if (r != NULL && reported_missing(r, psn)) {
			uint32_t k = e->ev & 255;

			e->flags |= TXF_BEHIND;
			if (ep->evt[k].stamp == ep->evt_stamp && ep->evt[k].ev == e->ev &&
			    sent_before(e->sent_ns, psn, ep->evt[k].sent_ns, ep->evt[k].psn))
				e->flags |= TXF_PASSED;
		}
		if (!(e->flags & (cross ? TXF_BEHIND : TXF_PASSED)))
			continue;
		due = e->sent_ns + p->tx.rack_rtt_ns +
		      ((e->flags & TXF_PASSED) ? wnd_path : wnd_cross);
		if (due <= now) {
			lost_bytes += ent_bytes(e);
			declare_lost(ep, p, psn, UET_LB_FB_LOSS, now);
			n++;
		} else if (due < next) {
			next = due;
		}
	}
	if (next != UINT64_MAX)
		p->tx.reo_deadline = next;
	if (n > 0) {
		ep->st.loss_inferred += n;
		classify_loss(ep, p);
		enter_recovery(ep, p, lost_bytes, now);
		ep_rdy_kick(ep, p);
	}
}

static void
tx_after_progress(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	if (p->tx.in_recovery && !psn_lt(p->tx.snd_una, p->tx.recovery_psn)) {
		p->tx.in_recovery = 0;
	}
	if (p->state == PST_CLOSING && !p->tx.close_queued &&
	    p->tx.snd_una == p->tx.snd_nxt) {
		ep->st.pdcs_closed++;
		ep_pdc_event(ep, p, UET_PDC_EV_CLOSED, 0);
		ep_pdc_free(ep, p);
		return;
	}
	if (p->tx.snd_una == p->tx.snd_nxt) {
		p->tx.rto_deadline = 0;
		p->tx.probe_deadline = 0;
		p->tx.reo_deadline = 0;
		p->tx.suspect_deadline = 0;
		p->tx.probe_out = 0;
	}
	if (tx_quiescent(p)) {
		tx_release(ep, p);
		if (ep->cfg.pdc_idle_close_ns != 0 && p->tx.idle_deadline == 0)
			p->tx.idle_deadline = now + ep->cfg.pdc_idle_close_ns;
	}
	ep_rdy_kick(ep, p);
	ep_timer_update(ep, p);
}

struct pdc *
tx_lookup(struct uet_ep *ep, const struct uet_hdr *h, const struct uet_rx_meta *meta)
{
	struct pdc *p = ep_pdc_by_id(ep, h->dpdcid);

	if (p == NULL || p->role != ROLE_INIT || p->peer_ip != meta->src_ip) {
		ep->st.rx_unknown_pdc++;
		return NULL;
	}
	return p;
}

/*
 * The ACK's own trigger settles a held loss of that PSN exactly: a
 * duplicate (the receiver had it already), the original copy, or a copy
 * that arrived while the resend was still queued prove it spurious; the
 * retransmission arriving first, not as a duplicate, confirms it.
 */
static void
judge_trigger(struct uet_ep *ep, struct pdc *p, uint32_t psn, bool retx_echo, bool dup,
	      uint64_t now)
{
	struct tx_ent *e = rec_of(ep, p, psn);

	if (e == NULL || !(e->flags & TXF_HELD))
		return;
	if (dup || (e->flags & TXF_LOST) || !retx_echo)
		judge(ep, p, psn, V_SPURIOUS, !dup && !retx_echo, now);
	else
		judge(ep, p, psn, V_CONFIRMED, false, now);
}

int
tx_on_ack(struct uet_ep *ep, const struct uet_hdr *h, const uint8_t *tail, size_t tail_len,
	  const struct uet_rx_meta *meta, uint64_t now)
{
	struct ack_ctx ac = { 0, 0, false, false };
	struct uet_nscc_state ns = { 0, 0, 0, 0, 0 };
	bool probe = h->flags & UET_ACK_F_P, ce = h->flags & UET_ACK_F_M;
	bool retx_echo = h->flags & UET_ACK_F_RETX;
	/* Under strict the bit is UET's reserved one: not ours to read. */
	bool dup = (h->flags & UET_ACK_F_DUP) && !ep->cfg.strict;
	/* CACK_PSN on the wire is inclusive (it and every PSN before it
	 * arrived); the sender reasons with the next PSN the receiver
	 * expects. ack_psn_offset and the SACK base are relative to the
	 * wire's value. */
	uint32_t cack = h->psn + 1, ack_psn = 0, base = 0, psn;
	uint64_t bm = h->sack_bitmap, rtt = 0, acked_before;
	uint32_t carried = 0, ci;
	struct pdc *p;

	ep->st.rx_ack_pkts++;
	if (h->type == UET_PDS_ACK_CC && (h->cc_flags & UET_ACK_CCF_EVS)) {
		if (tail_len < 2 || tail[0] > UET_ACK_CARRY_MAX || tail_len < 2 + 2u * tail[0]) {
			ep->st.rx_malformed++;
			return UET_ERR_MALFORMED;
		}
		carried = tail[0];
	}
	p = tx_lookup(ep, h, meta);
	if (p == NULL)
		return UET_ERR_NO_PDC;
	if (p->state != PST_SYN && h->spdcid != p->peer_id) {
		ep->st.rx_stale++;
		return UET_ERR_STALE;
	}
	/* Validate everything before changing anything: an ACK that
	 * acknowledges a PSN we never sent is dropped whole. */
	if (psn_lt(p->tx.snd_nxt, cack)) {
		ep->st.rx_bad_ack++;
		return UET_ERR_BAD_ACK;
	}
	if (psn_lt(cack, p->tx.snd_una) && p->tx.snd_una - cack > ep->win) {
		ep->st.rx_stale++;
		return UET_ERR_STALE;
	}
	if (!probe) {
		ack_psn = uet_ack_psn(h);
		if (!psn_lt(ack_psn, p->tx.snd_nxt)) {
			ep->st.rx_bad_ack++;
			return UET_ERR_BAD_ACK;
		}
	}
	if (bm != 0) {
		base = uet_ack_sack_base(h);
		psn = base + (uint32_t)(63 - __builtin_clzll(bm));
		if (!psn_lt(psn, p->tx.snd_nxt)) {
			ep->st.rx_bad_ack++;
			return UET_ERR_BAD_ACK;
		}
	}
	/* A duplicate of a PSN we sent more than once: one copy was not
	 * needed. With its record gone (all acknowledged, the window given
	 * back) the late copy is still ours to count: the network duplicates
	 * far more rarely than a resend races a late original. */
	if (dup && !probe) {
		const struct tx_ent *e = rec_of(ep, p, ack_psn);

		if (e == NULL || e->tx_count > 1)
			ep->st.spurious_retx++;
		/* Where a window's resend overtook a late original, the
		 * loss was confirmed (the resend's ACK came first); this
		 * duplicate says it was not one, and the window learns from
		 * it too. Not a timer's resend: its duplicate says an ACK
		 * died or the timer was early, nothing of the window. */
		if (e != NULL && e->tx_count > 1 && (e->xflags & TXX_BY_WND) && adaptive(ep) &&
		    ep->cfg.reorder_window_ns == 0)
			reo_spurious(ep, p, e, true, now);
	} else if (ep->cfg.strict && !probe && !retx_echo) {
		/* No DUP from a UET peer: a trigger that is a PSN sent more
		 * than once and echoes no RETX was its original copy, so the
		 * resend was not needed. What stays unseen: a resend that
		 * arrived as a duplicate after its original's ACK had been
		 * coalesced into another's. */
		const struct tx_ent *e = rec_of(ep, p, ack_psn);

		if (e != NULL && e->tx_count > 1)
			ep->st.spurious_retx++;
	}
	/* The late original of a spurious RTO's packet: how late it was (its
	 * record may be gone, the PDC idle: the RTO's own notes suffice). */
	if (p->tx.rto_late && !probe && !retx_echo && ack_psn == p->tx.rto_psn) {
		p->tx.rto_late = 0;
		if (now > p->tx.rto_first_sent_ns)
			rto_learn(ep, p, now - p->tx.rto_first_sent_ns, now);
	}
	/* The timer's resend, a duplicate after its flight was all
	 * acknowledged: the timeout was spurious after all (rto_spurious()'s
	 * work, what is left of it: the backoff and retry count went with the
	 * ACKs' progress). */
	if (p->tx.rto_open && dup && !probe && ack_psn == p->tx.rto_psn) {
		if ((p->tx.rto_open & RTO_OPEN_CC) && ep->cfg.cc->undo != NULL) {
			ep->cfg.cc->undo(pdc_cc(ep, p), now);
			ep->st.loss_undos++;
		}
		p->tx.rto_open = 0;
		ep->st.spurious_rto++;
		rto_learn(ep, p, p->tx.rto_age_ns, now);
	}
	if (p->tx.ent == NULL) {
		/* Nothing outstanding: a late duplicate. */
		ep->st.rx_stale++;
		return UET_ERR_STALE;
	}

	if (p->state == PST_SYN) {
		p->state = PST_EST;
		p->peer_id = h->spdcid;
		ep_pdc_event(ep, p, UET_PDC_EV_ESTABLISHED, 0);
	}
	if (h->type == UET_PDS_ACK_CC) {
		if (h->mpr != 0) {
			uint32_t w = (uint32_t)h->mpr * UET_MPR_UNIT_PSNS;

			p->tx.peer_win = w < ep->win ? w : ep->win;
		}
		if (h->cc_type == UET_CC_TYPE_NSCC) {
			uet_nscc_state_unpack(h->cc_state, &ns);
			p->tx.last_ooo = ns.ooo_count;
		}
	}

	/* RTT from the PSN that triggered the ACK, only when unambiguous:
	 * sent once and echoed as such, or resent once and echoed RETX. */
	if (!probe && psn_le(p->tx.snd_una, ack_psn) && psn_lt(ack_psn, p->tx.snd_nxt)) {
		struct tx_ent *e = ent_of(ep, p, ack_psn);
		uint64_t svc = (uint64_t)ns.service_time * UET_SERVICE_TIME_UNIT_NS;

		if (!(e->flags & TXF_ACKED) && !dup &&
		    ((e->tx_count == 1 && !retx_echo) || (e->tx_count == 2 && retx_echo)) &&
		    now > e->sent_ns + svc) {
			rtt = now - e->sent_ns - svc;
			rtt_sample(ep, p, rtt, now);
			ep->st.rtt_samples++;
		}
	}

	/* The trigger's verdict first: ack_one below would take a held PSN
	 * still waiting to be resent for reordering. */
	if (!probe) {
		ac.trigger = ack_psn;
		ac.has_trigger = true;
		judge_trigger(ep, p, ack_psn, retx_echo, dup, now);
	}
	ep->evt_stamp++;
	acked_before = p->tx.acked_pkts;
	for (psn = p->tx.snd_una; psn_lt(psn, cack); psn++)
		ack_one(ep, p, psn, &ac, now);
	while (bm != 0) {
		uint32_t i = (uint32_t)__builtin_ctzll(bm);

		bm &= bm - 1;
		psn = base + i;
		if (psn_le(p->tx.snd_una, psn))
			ack_one(ep, p, psn, &ac, now);
	}
	/* The triggering PSN was received even if outside the SACK window. */
	if (!probe && psn_le(p->tx.snd_una, ack_psn))
		ack_one(ep, p, ack_psn, &ac, now);
	/* Completion callbacks above may have failed or freed nothing of
	 * ours, but they may have queued more messages on this PDC. */
	while (p->tx.snd_una != p->tx.snd_nxt &&
	       (ent_of(ep, p, p->tx.snd_una)->flags & TXF_ACKED))
		p->tx.snd_una++;

	if (p->tx.acked_pkts != acked_before) {
		p->tx.rto_fails = 0;
		p->tx.rto_count_ns = 0;
		p->tx.rto_backoff = 0;
		p->tx.rto_deferred = 0;
		if (p->tx.n_refused != 0)
			unpark_refused(ep, p);
	}
	p->tx.last_ack_ns = now;
	if (probes_on(ep) && p->tx.snd_una != p->tx.snd_nxt)
		p->tx.probe_deadline = now + probe_interval(ep, p);

	{
		struct uet_cc_ack ca = {
			.now_ns = now,
			.acked_bytes = ac.acked_bytes,
			.rtt_ns = rtt,
			.min_rtt_ns = base_rtt_est(ep, p),
			.ce = ce,
			.inflight_bytes = p->tx.inflight_bytes,
			.ev = meta->ev,
		};

		ep->cfg.cc->on_ack(pdc_cc(ep, p), &ca);
	}
	lb_feedback(ep, p, UET_LB_FB_ACK, meta->ev, ce, retx_echo, rtt, now);
	/* ACK+Carry: the other unmarked paths this ACK covers. */
	for (ci = 0; ci < carried; ci++)
		lb_feedback(ep, p, UET_LB_FB_CARRIED, uet_get_be16(tail + 2 + 2 * ci), false, false,
			    0, now);

	/* Probe reply: fast, acknowledging nothing new, and with the
	 * receiver's byte count unchanged since the probe left: the path is
	 * clear and the data is gone (STrack §3.3.2). The byte count tells a
	 * stalled flow from one whose ACKs are merely coalesced. */
	if (probe && p->tx.probe_out && (uint16_t)h->off16 == p->tx.probe_opaque) {
		uint64_t prtt = now - p->tx.probe_sent_ns;
		uint32_t lost_bytes = 0, n;

		p->tx.probe_out = 0;
		if (p->tx.acked_at_probe == p->tx.acked_pkts &&
		    (h->type != UET_PDS_ACK_CC || ns.rcvd_bytes == p->tx.rcvd_at_probe) &&
		    prtt < 2 * base_rtt_est(ep, p) + ep->cfg.ack_delay_ns) {
			n = mark_lost_before(ep, p, p->tx.probe_sent_ns, &lost_bytes, now);
			if (n > 0) {
				ep->st.probe_losses += n;
				classify_loss(ep, p);
				enter_recovery(ep, p, lost_bytes, now);
				/* A retry like an RTO expiry: without this, a peer
				 * that never accepts the data would be probed and
				 * fed retransmissions forever. */
				p->tx.rto_fails++;
				p->tx.rto_backoff++;
				if (p->tx.rto_fails > ep->cfg.max_rto_retx) {
					tx_fail(ep, p, UET_ERR_TIMEOUT, now);
					return 0;
				}
			}
		}
	}

	if (ac.delivered || p->tx.reo_deadline != 0) {
		struct ack_report rep = {
			.cack = cack,
			.base = base,
			.bits = h->sack_bitmap,
			.sack = h->sack_bitmap != 0,
		};

		rack_detect(ep, p, ac.delivered ? &rep : NULL, now);
	}
	if (h->type == UET_PDS_ACK_CC && h->cc_type == UET_CC_TYPE_NSCC)
		p->tx.rcvd_units = ns.rcvd_bytes;
	tx_after_progress(ep, p, now);
	return 0;
}

/* NACK codes by which a target refuses a packet of a PDC it holds for
 * want of room that other PDCs' progress frees: a receive window
 * (NO_BITMAP) or a reassembly slot (NO_SES_MSG_AVAIL; the last is kept for
 * a message at a cumulative point, so the slots cannot deadlock). Not
 * NO_PDC_AVAIL: PDC slots are shared by initiators and targets, so hosts
 * whose tables are full of initiators waiting on each other's targets
 * wait forever unless one gives up (the fault swarm's squeezed tables). */
static bool
target_busy(uint8_t code)
{
	return code == UET_NACK_NO_BITMAP || code == UET_NACK_NO_SES_MSG_AVAIL;
}

int
tx_on_nack(struct uet_ep *ep, const struct uet_hdr *h, const struct uet_rx_meta *meta,
	   uint64_t now)
{
	bool trimmed = h->nack_code == UET_NACK_TRIMMED ||
		       h->nack_code == UET_NACK_TRIMMED_LASTHOP;
	uint32_t psn = h->psn;
	uint64_t nack_rtt;
	struct tx_ent *e;
	struct pdc *p;

	ep->st.rx_nack_pkts++;
	p = tx_lookup(ep, h, meta);
	if (p == NULL)
		return UET_ERR_NO_PDC;
	if (h->spdcid != 0 && p->state != PST_SYN && h->spdcid != p->peer_id) {
		ep->st.rx_stale++;
		return UET_ERR_STALE;
	}
	if (p->tx.ent == NULL || !psn_le(p->tx.snd_una, psn) || !psn_lt(psn, p->tx.snd_nxt)) {
		/* Acknowledged already, or never sent: a NACK to ignore. */
		if (p->tx.ent != NULL && !psn_lt(psn, p->tx.snd_nxt)) {
			ep->st.rx_bad_ack++;
			return UET_ERR_BAD_ACK;
		}
		ep->st.rx_stale++;
		return UET_ERR_STALE;
	}
	e = ent_of(ep, p, psn);
	if (h->nack_code == UET_NACK_INV_DPDCID) {
		if (p->state == PST_CLOSING) {
			/* The target already forgot the PDC: closed. */
			ep->st.pdcs_closed++;
			ep_pdc_event(ep, p, UET_PDC_EV_CLOSED, 0);
			ep_pdc_free(ep, p);
			return 0;
		}
		/* The target lost our PDC (restart or idle timeout); data it
		 * may have delivered cannot be told apart from data it did
		 * not, so resending could duplicate: fail instead. */
		tx_fail(ep, p, UET_ERR_PEER_RESET, now);
		return 0;
	}
	if (!trimmed) {
		/* Resource shortage or window NACKs: let the RTO (with its
		 * backoff) resend rather than hammer a full target. A target
		 * short of room is alive: its refusals are not the silence
		 * that max_rto_retx counts (as RDMA's receiver-not-ready is
		 * not a transport error), so the count starts again. */
		if (target_busy(h->nack_code)) {
			p->tx.rto_fails = 0;
			if (!(e->flags & TXF_ACKED) && !(e->xflags & TXX_REFUSED)) {
				e->xflags |= TXX_REFUSED;
				p->tx.n_refused++;
			}
		}
		return 0;
	}
	if (e->flags & (TXF_ACKED | TXF_LOST))
		return 0;
	if (e->tx_count > 1 && !(h->flags & UET_NACK_F_RETX)) {
		/* The NACK is for an older copy; a newer one is in flight. */
		ep->st.rx_stale++;
		return UET_ERR_STALE;
	}
	/* Resend at once, up to max_nack_retx times per PSN (UET's
	 * MAX_NACK_RETX_CNT). After that the PSN waits for the retransmission
	 * timer and its backoff: with a window that does not shrink on trims,
	 * immediate resends of packets that keep being trimmed can fill a link
	 * with trimmed headers and starve every data packet. */
	p->tx.trim_seen = 1;
	/* A trim is congestion for certain: the open loss episode was not
	 * all reordering. */
	if (p->tx.n_held > 0)
		p->tx.undo_real = 1;
	if (e->nacks < UINT8_MAX)
		e->nacks++;
	if (e->nacks <= ep->cfg.max_nack_retx) {
		mark_lost(ep, p, psn);
		ep->st.nack_retx++;
	} else {
		ep->st.nack_deferred++;
	}
	/* The trimmed copy's round trip, when the NACK says which copy it
	 * answers: the reference samples base RTTs from NACKs too. */
	nack_rtt = ((e->tx_count == 1 && !(h->flags & UET_NACK_F_RETX)) ||
		    (e->tx_count == 2 && (h->flags & UET_NACK_F_RETX))) && now > e->sent_ns
			   ? now - e->sent_ns
			   : 0;
	cc_loss_rtt(ep, p, h->nack_code == UET_NACK_TRIMMED_LASTHOP ? UET_CC_LOSS_TRIM_LASTHOP
								      : UET_CC_LOSS_TRIM,
		    ent_bytes(e), nack_rtt, now);
	lb_feedback(ep, p,
		    h->nack_code == UET_NACK_TRIMMED_LASTHOP ? UET_LB_FB_NACK_LASTHOP
							     : UET_LB_FB_NACK,
		    meta->ev, h->flags & UET_NACK_F_M, e->tx_count > 1, 0, now);
	ep_rdy_kick(ep, p);
	ep_timer_update(ep, p);
	return 0;
}

/* --- timers --- */

/*
 * The timer fires when the oldest outstanding packet has waited an RTO. One
 * expiry is one timeout episode: it declares lost every packet that has
 * waited most of an RTO (the rest of the flight sent back to back with it),
 * not just the oldest, so a window of N packets costs one retry and one
 * backoff step, not N.
 */
static void
on_rto(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	uint64_t rto = tx_rto(ep, p), earliest = UINT64_MAX, age = rto - rto / 4;
	uint64_t oldest = UINT64_MAX, silence = 0;
	uint32_t psn, naged = 0, aged_bytes = 0, first = 0, refused_probe = 0;
	bool refused_seen = false;
	/* Before any round trip was measured the RTO is a guess from the
	 * configured base RTT, and an expiry that ran well past it (its
	 * sender busy: one lcore writing several endpoints' first windows
	 * into a queue they share with the ACKs) found only that nothing
	 * came back for that long. Until a round trip is measured the PDC
	 * then judges nothing by silence: each expiry resends its oldest
	 * packet and waits that silence again, its suspects wait for a
	 * verdict, where the guess would resend the whole flight before its
	 * first ACK could come (and leave no unambiguous copy to measure a
	 * round trip on), as TCP's timer resends one segment per doubled
	 * timeout. The simulator's timers run on time: it keeps the guess. */
	bool blind = adaptive(ep) && p->tx.srtt_ns == 0 &&
		     (p->tx.rto_blind || now > p->tx.rto_deadline + rto / 4);
	struct tx_ent *e;

	for (psn = p->tx.snd_una; psn != p->tx.snd_nxt; psn++) {
		e = ent_of(ep, p, psn);
		if (e->flags & (TXF_ACKED | TXF_LOST))
			continue;
		/* What the target refused for want of room, with nothing
		 * acknowledged since, goes one packet per timeout: its oldest,
		 * which asks whether room came back (RDMA's receiver-not-ready
		 * retry). Resending it all would spend the fabric on packets
		 * the target drops: with a fixed timeout, three PDCs' refused
		 * windows resent in lockstep into a trimming queue got the one
		 * packet their targets' messages waited on trimmed every time
		 * (the fault swarm, seed 1705223). */
		if ((e->xflags & TXX_REFUSED) && e->sent_ns + age <= now) {
			if (refused_seen)
				continue;
			refused_seen = true;
			refused_probe = psn;
		}
		if (e->sent_ns + age <= now) {
			if (naged == 0 || sent_before(e->sent_ns, psn, oldest, first)) {
				oldest = e->sent_ns;
				first = psn;
			}
			aged_bytes += ent_bytes(e);
			naged++;
		} else if (e->sent_ns < earliest) {
			earliest = e->sent_ns;
		}
	}
	/* After a round trip was measured, an expiry with something to
	 * declare lost that ran past its deadline by more than a sixteenth
	 * of the RTO says the endpoint was not polled meanwhile (its lcore
	 * descheduled or busy): what came back is still unread in its
	 * queues, and the silence the timer counted was partly its own. It
	 * is put off by the time the poller was away (a quarter to a whole
	 * RTO), once until an expiry or progress, so a poller that is
	 * always late still times out, at worst after twice the RTO. On the 2-core VM, one lcore sharing its
	 * core with a busy process, a 4:1 incast had 0.5-1.0 spurious RTOs
	 * per second per PDC without this and 0.25-0.28 with it; with two
	 * busy processes 74 and 0.23-0.30 (doc/performance.md). The
	 * simulator's timers run on time: never there. */
	if (naged > 0 && adaptive(ep) && p->tx.srtt_ns != 0 && !p->tx.rto_deferred &&
	    now > p->tx.rto_deadline + rto / 16) {
		uint64_t late = now - p->tx.rto_deadline;

		p->tx.rto_deferred = 1;
		p->tx.rto_deadline = now + (late < rto / 4 ? rto / 4 : late < rto ? late : rto);
		ep->st.rto_deferred++;
		return;
	}
	if (naged > 0) {
		p->tx.rto_deferred = 0;
		/* F-RTO (RFC 5682), asked of the packet the timer fired for:
		 * only it is resent; the rest of the flight that waited as
		 * long stays in flight as suspects until its verdict. Lost,
		 * they follow (one round trip later); delivered by the
		 * original, the timer was too short, and what it did is
		 * undone, at the cost of one resend, not a window's. */
		silence = now - oldest < ep->rto_max_ns ? now - oldest : ep->rto_max_ns;
		p->tx.rto_blind = blind;
		if (blind)
			p->tx.suspect_deadline = 0;
		declare_lost(ep, p, first, UET_LB_FB_TIMEOUT, now);
		ep->st.rto_lost_pkts++;
		p->tx.rto_resend = 1;
		for (psn = p->tx.snd_una; naged > 1 && psn != p->tx.snd_nxt; psn++) {
			e = ent_of(ep, p, psn);
			if ((e->flags & (TXF_ACKED | TXF_LOST)) || e->sent_ns + age > now)
				continue;
			if ((e->xflags & TXX_REFUSED) && psn != refused_probe)
				continue;
			if ((e->flags & (TXF_HELD | TXF_HELD_RTO)) && blind)
				continue;
			if (e->flags & (TXF_HELD | TXF_HELD_RTO)) {
				/* Declared before, resent, and that copy waited
				 * a timeout too: the loss stands (confirmed by
				 * silence) and it goes again. Or a suspect of an
				 * earlier expiry, unacknowledged a whole timeout
				 * later: lost too, whatever became of that
				 * expiry's verdict (its resend can wait in the
				 * queue behind the cumulative point while the
				 * suspects fill the window). */
				declare_lost(ep, p, psn, UET_LB_FB_TIMEOUT, now);
				ep->st.rto_lost_pkts++;
			} else {
				e->flags |= TXF_HELD_RTO;
				/* The verdict is the resend's ACK, a round
				 * trip away; a resend lost too (a dead path)
				 * must not hold the rest for a whole timeout. */
				if (!blind)
					p->tx.suspect_deadline =
						now + 2 * (p->tx.srtt_ns > base_rtt_est(ep, p)
								   ? p->tx.srtt_ns
								   : base_rtt_est(ep, p));
			}
		}
		ep->st.rto_events++;
		p->tx.rto_undo = 1;
		p->tx.rto_late = 0;
		p->tx.rto_psn = first;
		p->tx.rto_first_sent_ns = oldest;
		p->tx.rto_age_ns = now - oldest;
		classify_loss(ep, p);
		if (!adaptive(ep))
			report_failure(ep, p, now);
		/* One retry per timeout episode: a packet sent before the last
		 * counted expiry belongs to that episode. Without backoff a
		 * flight sent over time expires packet by packet, and counting
		 * each would spend max_rto_retx in a fraction of max_rto_retx
		 * timeouts' time. A blind expiry is a retry of its own: it
		 * resends one packet of a flight that keeps its oldest. */
		p->tx.rto_counted = blind || oldest >= p->tx.rto_count_ns;
		if (p->tx.rto_counted) {
			p->tx.rto_count_ns = now;
			p->tx.rto_fails++;
		}
		p->tx.rto_backoff++;
		cc_loss(ep, p, UET_CC_LOSS_TIMEOUT, aged_bytes, now);
		if (p->tx.rto_fails > ep->cfg.max_rto_retx) {
			tx_fail(ep, p, UET_ERR_TIMEOUT, now);
			return;
		}
	}
	/* Suspects wait one (backed off) timeout more; otherwise the timer is
	 * re-armed lazily: retransmissions re-arm it when it is 0. */
	if (naged > 1)
		p->tx.rto_deadline = now + tx_rto(ep, p);
	else
		p->tx.rto_deadline = earliest == UINT64_MAX ? 0 : earliest + tx_rto(ep, p);
	if (blind && naged > 0 && p->tx.rto_deadline != 0 && p->tx.rto_deadline < now + silence)
		p->tx.rto_deadline = now + silence;
	ep_rdy_kick(ep, p);
}

static void
on_probe_timer(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	struct ctrl_item *ci;

	if (p->tx.snd_una == p->tx.snd_nxt) {
		p->tx.probe_deadline = 0;
		return;
	}
	p->tx.probe_deadline = now + 2 * probe_interval(ep, p);
	ci = ep_ctrl_push(ep);
	if (ci == NULL)
		return;
	ci->kind = CI_PROBE;
	ci->pdc_slot = p->slot;
	ci->pdc_gen = p->gen;
	p->tx.probe_opaque++;
	p->tx.probe_out = 1;
	p->tx.probe_sent_ns = now;
	p->tx.acked_at_probe = p->tx.acked_pkts;
	p->tx.rcvd_at_probe = p->tx.rcvd_units;
}

static void
on_idle(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	(void)now;
	p->tx.idle_deadline = 0;
	if (!tx_quiescent(p))
		return;
	if (p->state == PST_SYN) {
		/* Never heard from the target, nothing outstanding: the
		 * target holds no state worth a CLOSE. */
		ep->st.pdcs_closed++;
		ep_pdc_event(ep, p, UET_PDC_EV_CLOSED, 0);
		ep_pdc_free(ep, p);
		return;
	}
	/* CLOSE is sequenced: it takes the next PSN, so the target sees it
	 * only after everything before it, and it is retransmitted like data.
	 * New messages to this peer open a new PDC meanwhile. */
	ep_pdc_unmap(ep, p);
	p->state = PST_CLOSING;
	p->tx.close_queued = 1;
	win_acquire(ep, p);
	ep_rdy_kick(ep, p);
}

void
tx_on_timer(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	uint16_t gen = p->gen;

	if (p->tx.rto_deadline != 0 && now >= p->tx.rto_deadline) {
		on_rto(ep, p, now);
		if (p->role != ROLE_INIT || p->gen != gen)
			return;
	}
	if (p->tx.reo_deadline != 0 && now >= p->tx.reo_deadline)
		rack_detect(ep, p, NULL, now);
	if (p->tx.suspect_deadline != 0 && now >= p->tx.suspect_deadline)
		release_suspects(ep, p, now);
	if (p->tx.probe_deadline != 0 && now >= p->tx.probe_deadline)
		on_probe_timer(ep, p, now);
	if (p->tx.idle_deadline != 0 && now >= p->tx.idle_deadline) {
		on_idle(ep, p, now);
	}
	if (cr_tx_on(ep) && p->role == ROLE_INIT && p->gen == gen)
		cr_tx_on_timer(ep, p, now);
}

uint64_t
tx_deadline(const struct uet_ep *ep, const struct pdc *p)
{
	uint64_t d = UINT64_MAX;

	if (p->tx.rto_deadline != 0 && p->tx.rto_deadline < d)
		d = p->tx.rto_deadline;
	if (p->tx.probe_deadline != 0 && p->tx.probe_deadline < d)
		d = p->tx.probe_deadline;
	if (p->tx.reo_deadline != 0 && p->tx.reo_deadline < d)
		d = p->tx.reo_deadline;
	if (p->tx.suspect_deadline != 0 && p->tx.suspect_deadline < d)
		d = p->tx.suspect_deadline;
	if (p->tx.idle_deadline != 0 && p->tx.idle_deadline < d)
		d = p->tx.idle_deadline;
	if (cr_tx_on(ep)) {
		uint64_t c = cr_tx_deadline(ep, p);

		if (c < d)
			d = c;
	}
	return d;
}

