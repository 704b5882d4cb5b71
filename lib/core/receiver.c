/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Target side of a PDC: PDC creation from SYN, duplicate detection with an
 * out-of-order bitmap anchored at the cumulative ACK point, out-of-order
 * message reassembly, ACK/NACK generation and close.
 *
 * ACK policy (doc/architecture.md): an ACK goes out at once for a CE-marked
 * packet, a packet with AR, the first packet of a PDC, a packet that opens a
 * hole when there was none, the packet that closes the last hole after an
 * AR arrived, a duplicate, a CLOSE or a probe; otherwise once
 * ack_every_bytes have arrived since the last ACK, or ack_delay_ns after the
 * first unacknowledged packet. Each ACK echoes the EV, CE and RETX of the
 * packet that triggered it, and says (DUP) when that packet was a duplicate.
 */
#include <assert.h>
#include <string.h>

#include "base/bitmap.h"
#include "core/ep.h"

static inline uint32_t
ring_idx(const struct uet_ep *ep, uint32_t psn)
{
	return psn & ep->win_mask;
}

static bool
rx_window_acquire(struct uet_ep *ep, struct pdc *p)
{
	uint32_t words = ep->win / 64, idx;

	if (p->rx.bm != NULL)
		return true;
	if (ep->n_rxw_free == 0)
		return false;
	idx = ep->rxw_free[--ep->n_rxw_free];
	p->rx.win_idx = idx;
	p->rx.bm = &ep->rxw_bits[(size_t)idx * words * 2];
	p->rx.unrep = p->rx.bm + words;
	memset(p->rx.bm, 0, words * 2 * sizeof(uint64_t));
	return true;
}

static void
rx_window_release(struct uet_ep *ep, struct pdc *p)
{
	if (p->rx.bm == NULL)
		return;
	ep->rxw_free[ep->n_rxw_free++] = p->rx.win_idx;
	p->rx.bm = NULL;
	p->rx.unrep = NULL;
}

static inline uint64_t
rxm_key(const struct pdc *p, uint16_t msg_id)
{
	return ((uint64_t)p->slot << 32) | ((uint64_t)p->gen << 16) | msg_id;
}

static void
rxm_free(struct uet_ep *ep, struct pdc *p, struct rx_msg *m)
{
	uet_hmap_del(&ep->rxm_map, rxm_key(p, m->msg_id));
	m->used = 0;
	ep->rxm_free[ep->n_rxm_free++] = (uint32_t)(m - ep->rxm);
	p->rx.n_msgs--;
}

static void
rx_msg_event(struct uet_ep *ep, const struct pdc *p, uint16_t msg_id, bool tagged, uint64_t tag,
	     uint32_t len, uint64_t first_ns, uint64_t now, int status)
{
	struct uet_rx_msg e;

	if (status == 0)
		ep->st.msgs_delivered++;
	else
		ep->st.msgs_aborted++;
	if (ep->match != NULL) {
		match_end(ep, p, msg_id, status, now);
		return;
	}
	if (ep->cfg.cb.rx_msg == NULL)
		return;
	e.src_ip = p->peer_ip;
	e.pdc_id = p->id;
	e.msg_id = msg_id;
	e.tag = tag;
	e.tagged = tagged;
	e.msg_len = len;
	e.first_ns = first_ns;
	e.done_ns = now;
	e.status = status;
	ep->cfg.cb.rx_msg(ep->cfg.user, &e);
}

void
rx_release(struct uet_ep *ep, struct pdc *p, int status, uint64_t now)
{
	uint32_t i;

	/* Partial messages of a PDC that goes away are reported aborted, so
	 * the application never waits on them. */
	for (i = 0; p->rx.n_msgs > 0 && i < ep->cfg.max_rx_msgs; i++) {
		struct rx_msg *m = &ep->rxm[i];

		if (m->used && m->pdc_slot == p->slot && m->pdc_gen == p->gen) {
			uint16_t id = m->msg_id;
			uint64_t tag = m->tag, first = m->first_ns;
			uint32_t len = m->len;
			bool tagged = m->tagged;

			rxm_free(ep, p, m);
			rx_msg_event(ep, p, id, tagged, tag, len, first, now, status);
		}
	}
	if (ep->match != NULL)
		match_pdc_gone(ep, p, status, now);
	rx_window_release(ep, p);
	cr_rx_release(ep, p);
}

void
rx_push_nack(struct uet_ep *ep, uint32_t peer_ip, uint16_t spdcid, uint16_t dpdcid,
	     uint32_t psn, uint8_t code, uint8_t flags, uint16_t ev, uint32_t payload)
{
	struct ctrl_item *ci = ep_ctrl_push(ep);

	if (ci == NULL)
		return;
	ci->kind = CI_NACK;
	ci->peer_ip = peer_ip;
	ci->spdcid = spdcid;
	ci->dpdcid = dpdcid;
	ci->psn = psn;
	ci->code = code;
	ci->flags = flags;
	ci->ev = ev;
	ci->aux = payload;
}

static void
push_ack(struct uet_ep *ep, struct pdc *p, uint32_t psn, uint16_t ev, uint8_t flags,
	 uint64_t t_ns)
{
	struct ctrl_item *ci = ep_ctrl_push(ep);

	p->rx.unacked_bytes = 0;
	p->rx.ack_due_ns = 0;
	if (ci == NULL)
		return;
	ci->kind = CI_ACK;
	ci->pdc_slot = p->slot;
	ci->pdc_gen = p->gen;
	ci->psn = psn;
	ci->ev = ev;
	ci->flags = flags;
	ci->t_ns = t_ns;
}

/* ACK flags echoing a received request: CE -> M, RETX -> RETX. */
static inline uint8_t
echo_flags(const struct uet_hdr *h, const struct uet_rx_meta *meta)
{
	return (uint8_t)((meta->ce ? UET_ACK_F_M : 0) |
			 ((h->flags & UET_REQ_F_RETX) ? UET_ACK_F_RETX : 0));
}

/* Received before? Only the window behind cack can hold legitimate
 * retransmissions (the sender's snd_una is never more than a window behind
 * our cack); anything further away is outside the window, not a duplicate. */
static bool
rx_received(const struct uet_ep *ep, const struct pdc *p, uint32_t psn)
{
	if (psn_lt(psn, p->rx.cack))
		return p->rx.cack - psn <= ep->win;
	if (psn - p->rx.cack >= ep->win || p->rx.bm == NULL)
		return false;
	return uet_bit_test(p->rx.bm, ring_idx(ep, psn));
}

static void
rx_init(struct uet_ep *ep, struct pdc *p, uint32_t start, uint16_t peer_id, uint64_t now)
{
	(void)ep;
	p->state = PST_EST;
	p->peer_id = peer_id;
	p->rx.win_idx = NONE32;
	p->rx.last_msg = NONE32;
	p->rx.start_psn = start;
	p->rx.cack = start;
	p->rx.max_psn1 = start;
	p->rx.last_rx_ns = now;
}

static void
rx_close_done(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	rx_release(ep, p, UET_ERR_CLOSED, now);
	p->state = PST_TIMEWAIT;
	p->rx.timewait_until = now + ep->cfg.pdc_quarantine_ns;
	p->rx.ack_due_ns = 0;
	ep->st.pdcs_closed++;
	ep_pdc_event(ep, p, UET_PDC_EV_CLOSED, 0);
	if (ep->cfg.pdc_quarantine_ns == 0)
		ep_pdc_free(ep, p);
}

/*
 * A request for a PDC in quarantine delivers nothing. What it had received
 * in order is re-ACKed (a sender whose ACK was lost finishes); after a
 * close that is everything. A PDC dropped for its initiator's silence
 * dropped what came beyond: say the PDC is gone (the initiator fails those
 * messages) rather than let it resend them until its retry limit.
 */
static void
rx_quarantined(struct uet_ep *ep, struct pdc *p, const struct uet_hdr *h,
	       const struct uet_rx_meta *meta, uint64_t now)
{
	ep->st.rx_stale++;
	if (psn_lt(h->psn, p->rx.cack) || (!p->rx.aborted && (h->flags & UET_REQ_F_SYN)))
		push_ack(ep, p, h->psn, meta->ev, echo_flags(h, meta) | UET_ACK_F_DUP, now);
	else if (p->rx.aborted)
		rx_push_nack(ep, meta->src_ip, 0, h->spdcid, h->psn, UET_NACK_INV_DPDCID, 0,
			     meta->ev, 0);
}

/*
 * Find or create the target PDC for a request. Returns NULL (having counted
 * and, where useful, answered) when the packet must be dropped; *rc says
 * why. *created tells whether this packet opened the PDC.
 */
static struct pdc *
rx_lookup(struct uet_ep *ep, const struct uet_hdr *h, const struct uet_rx_meta *meta,
	  uint64_t now, bool *created, int *rc)
{
	struct pdc *p;
	uint32_t slot;

	*created = false;
	if (h->flags & UET_REQ_F_SYN) {
		uint32_t start = h->psn - uet_syn_psn_offset(h->dpdcid);
		uint64_t key = ep_key_tgt(meta->src_ip, h->spdcid);

		/* Before anything is made for it: a sender outside the run
		 * gets no PDC and no answer. */
		if (ep->cfg.cb.peer_ok != NULL && !ep->cfg.cb.peer_ok(ep->cfg.user, meta->src_ip)) {
			ep->st.rx_foreign_addr++;
			*rc = UET_ERR_FOREIGN;
			return NULL;
		}

		if (uet_hmap_get(&ep->pdc_map, key, &slot)) {
			p = &ep->pdcs[slot];
			if (p->rx.start_psn == start) {
				if (p->state == PST_TIMEWAIT) {
					/* A late copy from before the close: re-ACK
					 * so a sender whose close ACK was lost
					 * finishes, deliver nothing. */
					rx_quarantined(ep, p, h, meta, now);
					*rc = UET_ERR_STALE;
					return NULL;
				}
				return p;
			}
			/* A new incarnation of the peer's PDC id. Accept it only
			 * if the old one holds nothing undelivered. */
			if (p->state != PST_TIMEWAIT && (p->rx.ooo != 0 || p->rx.n_msgs != 0)) {
				ep->st.rx_stale++;
				*rc = UET_ERR_STALE;
				return NULL;
			}
			if (p->state != PST_TIMEWAIT) {
				ep->st.pdcs_closed++;
				ep_pdc_event(ep, p, UET_PDC_EV_CLOSED, 0);
			}
			ep_pdc_free(ep, p);
		}
		p = ep_pdc_alloc(ep, ROLE_TGT, meta->src_ip, key, now);
		if (p == NULL) {
			ep->st.rx_no_resources++;
			rx_push_nack(ep, meta->src_ip, 0, h->spdcid, h->psn,
				     UET_NACK_NO_PDC_AVAIL, 0, meta->ev, 0);
			*rc = UET_ERR_NOBUFS;
			return NULL;
		}
		rx_init(ep, p, start, h->spdcid, now);
		*created = true;
		return p;
	}
	p = ep_pdc_by_id(ep, h->dpdcid);
	if (p == NULL || p->role != ROLE_TGT || p->peer_ip != meta->src_ip ||
	    p->peer_id != h->spdcid) {
		ep->st.rx_unknown_pdc++;
		/* Tell the initiator we have no such PDC, so it stops (or, if
		 * it was closing, completes its close). */
		rx_push_nack(ep, meta->src_ip, 0, h->spdcid, h->psn, UET_NACK_INV_DPDCID,
			     0, meta->ev, 0);
		*rc = UET_ERR_NO_PDC;
		return NULL;
	}
	if (p->state == PST_TIMEWAIT) {
		rx_quarantined(ep, p, h, meta, now);
		*rc = UET_ERR_STALE;
		return NULL;
	}
	return p;
}

/* A packet that opened a PDC was dropped after all: forget the PDC so a
 * garbage SYN leaves no state behind. */
static int
drop_created(struct uet_ep *ep, struct pdc *p, bool created, int rc)
{
	if (created) {
		ep->st.pdcs_opened--;
		ep_pdc_free(ep, p);
	}
	return rc;
}

/* No room for the packet (a message slot, a receive window): drop it, and
 * say so with the NACK code that names what is short. The sender then
 * knows it is the target that is full, not the path that is dead, and
 * does not give the PDC up for the silence (the fault swarm, seed
 * 1416624: a message to a target whose two message slots stayed taken
 * for 9 ms failed after 425 timeouts without backoff). */
static int
refuse(struct uet_ep *ep, struct pdc *p, const struct uet_hdr *h,
       const struct uet_rx_meta *meta, bool created, uint8_t code)
{
	ep->st.rx_no_resources++;
	rx_push_nack(ep, meta->src_ip, created ? 0 : p->id, h->spdcid, h->psn, code, 0, meta->ev,
		     p->rx.max_psn1);
	return drop_created(ep, p, created, UET_ERR_NOBUFS);
}

/* Check a data packet's semantic header against its payload. */
static bool
ses_valid(const struct uet_ep *ep, const struct uet_hdr *h, size_t plen)
{
	const struct uet_ses_std *s = &h->ses;
	uint64_t end = (uint64_t)s->msg_offset + plen;

	if ((s->opcode != UET_SES_SEND && s->opcode != UET_SES_TAGGED_SEND) || plen > ep->mss)
		return false;
	if (!(s->flags & UET_SES_F_SOM) && (s->payload_len != plen || s->msg_offset == 0))
		return false;
	if (end > s->request_len)
		return false;
	if (!!(s->flags & UET_SES_F_EOM) != (end == s->request_len))
		return false;
	/* Only the last packet of a message may be short of data. */
	if (!(s->flags & UET_SES_F_EOM) && plen == 0)
		return false;
	return true;
}

int
rx_on_request(struct uet_ep *ep, const struct uet_hdr *h, const uint8_t *payload,
	      size_t plen, const struct uet_rx_meta *meta, uint64_t now)
{
	bool is_ctrl = h->type == UET_PDS_CTRL, created, new_hole = false, single;
	bool immediate, ar_now = false;
	struct rx_msg *m = NULL;
	uint32_t psn = h->psn, d, mslot, mrec = NONE32;
	uint8_t fl = echo_flags(h, meta);
	/* UET_SEND has no match bits: whatever a peer left there is not a
	 * tag. */
	bool tagged = h->ses.opcode == UET_SES_TAGGED_SEND;
	uint64_t tag = tagged ? h->ses.match_bits : 0;
	struct pdc *p;
	int rc = 0;

	/* Another job's request (another run on the same fabric and port)
	 * is not this endpoint's: dropped before it touches a PDC. Control
	 * packets carry no job; they open nothing without a sender that
	 * peer_ok admits. */
	if (!is_ctrl && ep->cfg.job_id != 0 && h->ses.job_id != ep->cfg.job_id) {
		ep->st.rx_foreign_job++;
		return UET_ERR_FOREIGN;
	}
	p = rx_lookup(ep, h, meta, now, &created, &rc);
	if (p == NULL)
		return rc;
	p->rx.last_rx_ns = now;
	if (meta->ce)
		ep->st.rx_ce_pkts++;

	if ((is_ctrl && (h->nh == UET_CTL_PROBE || h->nh == UET_CTL_CREDIT_REQ)) ||
	    meta->trimmed) {
		if (created)
			ep_pdc_event(ep, p, UET_PDC_EV_OPEN, 0);
	}
	if (is_ctrl && h->nh == UET_CTL_CREDIT_REQ) {
		cr_rx_on_req(ep, p, h->payload32, meta->ev, now);
		ep_timer_update(ep, p);
		return 0;
	}
	if (is_ctrl && h->nh == UET_CTL_PROBE) {
		struct ctrl_item *ci;

		ep->st.rx_probe_pkts++;
		ci = ep_ctrl_push(ep);
		if (ci != NULL) {
			ci->kind = CI_ACK;
			ci->pdc_slot = p->slot;
			ci->pdc_gen = p->gen;
			ci->psn = psn;
			ci->ev = meta->ev;
			ci->flags = UET_ACK_F_P | (meta->ce ? UET_ACK_F_M : 0);
			ci->opaque = (uint16_t)h->off16;
			ci->aux = h->payload32;
			ci->has_base = 1;
			ci->t_ns = now;
		}
		ep_timer_update(ep, p);
		return 0;
	}

	if (meta->trimmed) {
		ep->st.rx_trimmed_pkts++;
		if (rx_received(ep, p, psn)) {
			/* A copy trimmed after the PSN arrived: a duplicate. */
			push_ack(ep, p, psn, meta->ev, fl | UET_ACK_F_DUP, now);
		} else if (psn - p->rx.cack < ep->win) {
			rx_push_nack(ep, p->peer_ip, p->id, p->peer_id, psn,
				     meta->trimmed == 2 ? UET_NACK_TRIMMED_LASTHOP
							: UET_NACK_TRIMMED,
				     (uint8_t)((meta->ce ? UET_NACK_F_M : 0) |
					       ((h->flags & UET_REQ_F_RETX) ? UET_NACK_F_RETX : 0)),
				     meta->ev, p->rx.max_psn1);
		} else {
			ep->st.rx_psn_window++;
		}
		ep_timer_update(ep, p);
		return 0;
	}

	d = psn - p->rx.cack;
	if (rx_received(ep, p, psn)) {
		/* Re-ACK at once, flagged DUP: the sender is retransmitting
		 * something we have, so its view is stale, and the flag
		 * proves that retransmission spurious. */
		ep->st.rx_dup_pkts++;
		push_ack(ep, p, psn, meta->ev, fl | UET_ACK_F_DUP, now);
		ep_timer_update(ep, p);
		return UET_ERR_DUPLICATE;
	}
	if (d >= ep->win) {
		ep->st.rx_psn_window++;
		rx_push_nack(ep, p->peer_ip, p->id, p->peer_id, psn, UET_NACK_PSN_OOR_WINDOW,
			     0, meta->ev, p->rx.max_psn1);
		return drop_created(ep, p, created, UET_ERR_PSN_WINDOW);
	}
	if (!is_ctrl && !ses_valid(ep, h, plen)) {
		ep->st.rx_malformed++;
		return drop_created(ep, p, created, UET_ERR_MALFORMED);
	}
	single = !is_ctrl && (h->ses.flags & (UET_SES_F_SOM | UET_SES_F_EOM)) ==
				     (UET_SES_F_SOM | UET_SES_F_EOM);
	if (!is_ctrl && !single) {
		mslot = p->rx.last_msg;
		if ((mslot < ep->cfg.max_rx_msgs && ep->rxm[mslot].used &&
		     ep->rxm[mslot].pdc_slot == p->slot && ep->rxm[mslot].pdc_gen == p->gen &&
		     ep->rxm[mslot].msg_id == h->ses.msg_id) ||
		    uet_hmap_get(&ep->rxm_map, rxm_key(p, h->ses.msg_id), &mslot)) {
			p->rx.last_msg = mslot;
			m = &ep->rxm[mslot];
			if (m->len != h->ses.request_len || m->tagged != tagged ||
			    m->tag != tag) {
				ep->st.rx_malformed++;
				return UET_ERR_MALFORMED;
			}
		} else if (ep->n_rxm_free == 0 || (d > 0 && ep->n_rxm_free == 1)) {
			/* The last free slot is kept for a message at a PDC's
			 * cumulative point. Otherwise out-of-order packets of
			 * later messages could take every slot while the
			 * message at cack, which every PDC's window waits on,
			 * can get none: a deadlock. */
			return refuse(ep, p, h, meta, created, UET_NACK_NO_SES_MSG_AVAIL);
		}
	}
	/* A message no receive can take and none can hold is refused before
	 * anything of it is accepted: its sender retries. */
	if (!is_ctrl && ep->match != NULL) {
		int code = match_check(ep, p, h, &mrec);

		if (code == MATCH_MALFORMED) {
			ep->st.rx_malformed++;
			return drop_created(ep, p, created, UET_ERR_MALFORMED);
		}
		if (code == MATCH_DEFER) {
			/* Matched without its bytes, so that the PDC's later
			 * messages take their turns; the packet itself waits
			 * for a receive. A PDC this packet opens keeps no
			 * record: it is dropped with the refusal. */
			if (!created)
				match_defer(ep, p, h, payload, (uint32_t)plen, now);
			code = UET_NACK_NO_SES_MSG_AVAIL;
		} else if (code != 0 && mrec != NONE32) {
			match_refused(ep, mrec, h, payload, (uint32_t)plen);
		}
		if (code != 0)
			return refuse(ep, p, h, meta, created, (uint8_t)code);
	}
	if (d > 0 && !rx_window_acquire(ep, p))
		return refuse(ep, p, h, meta, created, UET_NACK_NO_BITMAP);
	/* Admitted before any callback runs, with the state it was checked
	 * against. */
	if (!is_ctrl && ep->match != NULL)
		mrec = match_admit(ep, p, h, mrec, now);
	if (created)
		ep_pdc_event(ep, p, UET_PDC_EV_OPEN, 0);
	if (!is_ctrl && !single && m == NULL) {
		mslot = ep->rxm_free[--ep->n_rxm_free];
		m = &ep->rxm[mslot];
		m->used = 1;
		m->tagged = tagged;
		m->tag = tag;
		m->len = h->ses.request_len;
		m->rcvd = 0;
		m->first_ns = now;
		m->pdc_slot = p->slot;
		m->pdc_gen = p->gen;
		m->msg_id = h->ses.msg_id;
		uet_hmap_put(&ep->rxm_map, rxm_key(p, m->msg_id), mslot);
		p->rx.n_msgs++;
		p->rx.last_msg = mslot;
	}

	/* Accept: the PSN is now received, exactly once. */
	if (d == 0) {
		bool had_holes = p->rx.ooo > 0;

		p->rx.cack++;
		while (p->rx.ooo > 0 && uet_bit_test(p->rx.bm, ring_idx(ep, p->rx.cack))) {
			uet_bit_clear(p->rx.bm, ring_idx(ep, p->rx.cack));
			uet_bit_clear(p->rx.unrep, ring_idx(ep, p->rx.cack));
			p->rx.cack++;
			p->rx.ooo--;
		}
		/* The sender asked for an ACK (a message's end, a full
		 * window) while earlier PSNs were still missing: the state it
		 * asked about is complete now, so it hears at once (the
		 * reference's rule, uet-htsim.md §3.2), not after the delayed
		 * ACK timer. */
		if (had_holes && p->rx.ooo == 0 && p->rx.ar_pending) {
			p->rx.ar_pending = 0;
			ar_now = true;
		}
	} else {
		uet_bit_set(p->rx.bm, ring_idx(ep, psn));
		uet_bit_set(p->rx.unrep, ring_idx(ep, psn));
		new_hole = p->rx.ooo == 0;
		p->rx.ooo++;
		ep->st.rx_ooo_pkts++;
	}
	if (psn_lt(p->rx.max_psn1, psn + 1))
		p->rx.max_psn1 = psn + 1;
	p->rx.rcvd_bytes += plen;
	p->rx.unacked_bytes += h->hdr_len + (uint32_t)plen;
	p->rx.last_psn = psn;
	p->rx.last_ev = meta->ev;
	p->rx.last_flags = fl;
	p->rx.last_arrival_ns = now;

	if (is_ctrl) {
		p->rx.close_seen = 1;
		p->rx.close_psn = psn;
	} else {
		struct uet_rx_data dd;

		ep->st.rx_data_pkts++;
		ep->st.rx_data_bytes += plen;
		dd.src_ip = p->peer_ip;
		dd.pdc_id = p->id;
		dd.msg_id = h->ses.msg_id;
		dd.tag = tag;
		dd.tagged = tagged;
		dd.msg_len = h->ses.request_len;
		dd.offset = h->ses.msg_offset;
		dd.data = payload;
		dd.len = (uint32_t)plen;
		if (ep->match != NULL && (plen > 0 || (h->ses.flags & UET_SES_F_HD)))
			match_data(ep, mrec, h, payload, (uint32_t)plen);
		else if (plen > 0 && ep->cfg.cb.rx_data != NULL)
			ep->cfg.cb.rx_data(ep->cfg.user, &dd);
		if (single) {
			rx_msg_event(ep, p, h->ses.msg_id, tagged, tag,
				     h->ses.request_len, now, now, 0);
		} else {
			m->rcvd += (uint32_t)plen;
			if (m->rcvd == m->len) {
				uint64_t first = m->first_ns;

				rxm_free(ep, p, m);
				rx_msg_event(ep, p, h->ses.msg_id, tagged, tag,
					     h->ses.request_len, first, now, 0);
			}
		}
	}

	if ((h->flags & UET_REQ_F_AR) && p->rx.ooo > 0)
		p->rx.ar_pending = 1;
	immediate = meta->ce || (h->flags & UET_REQ_F_AR) || created || new_hole ||
		    is_ctrl || ar_now || ep->cfg.ack_every_bytes == 0 ||
		    p->rx.unacked_bytes >= ep->cfg.ack_every_bytes;
	if (p->rx.close_seen && psn_lt(p->rx.close_psn, p->rx.cack))
		immediate = true;
	if (immediate) {
		push_ack(ep, p, psn, meta->ev, fl, now);
	} else {
		if (p->rx.ack_due_ns == 0)
			p->rx.ack_due_ns = now + ep->cfg.ack_delay_ns;
		/* ACK+Carry: an unmarked packet's path is good news the next
		 * ACK brings along (the trigger's EV is that ACK's own). */
		if (ep->cfg.ack_carry_evs && !meta->ce && p->rx.carry_n < UET_ACK_CARRY_MAX)
			p->rx.carry_ev[p->rx.carry_n++] = meta->ev;
	}
	if (p->rx.ooo == 0)
		rx_window_release(ep, p);
	if (p->rx.close_seen && psn_lt(p->rx.close_psn, p->rx.cack))
		rx_close_done(ep, p, now);
	ep_timer_update(ep, p);
	return 0;
}

/* A ring's 64 bits from PSN base, those at or past cack + win cleared:
 * those ring positions alias live PSNs at the window's other end. */
static uint64_t
window_word(const struct uet_ep *ep, const uint64_t *ring, uint32_t cack, uint32_t base)
{
	uint64_t w = uet_bit_ring_get64(ring, ep->win, ring_idx(ep, base));
	uint32_t span = cack + ep->win - base;

	return span < 64 ? w & ((1ULL << span) - 1) : w;
}

/* The start of a SACK window that ends at PSN a: 56 below it, not below
 * the cumulative point (aligned down to 8 it reaches 63 below). */
static uint32_t
sack_window_to(uint32_t cack, uint32_t a)
{
	return a - cack > 56 ? a - 56 : cack;
}

/*
 * sack_repeat: where the window starts instead of at the oldest unreported
 * PSN u_lo (if have_unrep; else at cack). It ends at the trigger, as the UEC
 * reference's ACKs do, or failing that at the newest PSN received, so its
 * bits below repeat what earlier ACKs said in case they were lost; either
 * is taken only if it holds every unreported PSN the window from u_lo
 * would hold, so this ACK reports all it would have.
 */
static uint32_t
sack_repeat_lo(const struct uet_ep *ep, const struct pdc *p, uint32_t trig, bool have_unrep,
	       uint32_t u_lo)
{
	uint32_t cack = p->rx.cack, hi = p->rx.max_psn1 - 1, cand[2], wb, u_hi;
	uint32_t n = 0, i;
	uint64_t u;

	/* (A probe's reply has no trigger.) */
	if (psn_lt(cack, trig) && psn_lt(trig, p->rx.max_psn1))
		cand[n++] = sack_window_to(cack, trig);
	cand[n++] = sack_window_to(cack, hi);
	if (!have_unrep)
		return cand[0];
	/* The newest unreported PSN the window from u_lo holds. Ring slots
	 * below cack alias PSNs at the window's other end too. */
	wb = u_lo & ~7u;
	u = window_word(ep, p->rx.unrep, cack, wb);
	if (psn_lt(wb, cack))
		u &= ~((1ULL << (cack - wb)) - 1);
	if (u == 0)
		return u_lo;
	u_hi = wb + (uint32_t)(63 - __builtin_clzll(u));
	for (i = 0; i < n; i++) {
		uint32_t cb = cand[i] & ~7u;

		if (!psn_lt(u_lo, cb) && u_hi - cb < 64)
			return cand[i];
	}
	return u_lo;
}

int
rx_write_ack(struct uet_ep *ep, const struct ctrl_item *ci, uint8_t *buf, size_t cap,
	     struct uet_tx_meta *m, uint64_t now)
{
	struct pdc *p = &ep->pdcs[ci->pdc_slot];
	struct uet_nscc_state ns;
	struct uet_hdr h;
	uint32_t cack, lo, base, below, k;
	uint64_t bits = 0, svc, v;
	int32_t off;
	int n;

	if (p->role != ROLE_TGT || p->gen != ci->pdc_gen)
		return 0;
	if (cap < UET_PDS_ACK_CC_LEN)
		return UET_ERR_BUFSIZE;
	cack = p->rx.cack;

	/* SACK window: from the oldest PSN we have not reported yet (or the
	 * base a probe asked for), aligned down to 8 as the spec wants, so
	 * successive ACKs walk over everything held out of order. */
	lo = cack;
	if (ci->has_base) {
		if (psn_lt(cack, ci->aux) && ci->aux - cack < ep->win)
			lo = ci->aux;
	} else if (p->rx.bm != NULL && p->rx.ooo > 0) {
		k = uet_bit_ring_next_set(p->rx.unrep, ep->win, ring_idx(ep, cack), ep->win);
		if (k != UINT32_MAX)
			lo = cack + k;
		if (ep->cfg.ack_sack_repeat)
			lo = sack_repeat_lo(ep, p, ci->flags & UET_ACK_F_P ? cack : ci->psn,
					    k != UINT32_MAX, lo);
	}
	base = lo & ~7u;
	/* base is at most 7 below cack, or above it when the oldest
	 * unreported PSN is. */
	below = psn_lt(base, cack) ? cack - base : 0;
	if (p->rx.bm != NULL)
		bits = window_word(ep, p->rx.bm, cack, base);
	/* PSNs in [base, cack) are received: the spec fills them with 1s. */
	if (below != 0)
		bits |= (1ULL << below) - 1;
	if (p->rx.bm != NULL) {
		v = bits >> below;
		for (k = below; v != 0; v >>= 1, k++)
			if (v & 1)
				uet_bit_clear(p->rx.unrep, ring_idx(ep, base + k));
	}

	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_ACK_CC;
	h.nh = UET_NH_NONE;
	/* DUP sits in a bit UET reserves: only for libuet peers. */
	h.flags = ep->cfg.strict ? (uint8_t)(ci->flags & ~UET_ACK_F_DUP) : ci->flags;
	h.psn = cack - 1; /* CACK_PSN: the last PSN received in order */
	h.spdcid = p->id;
	h.dpdcid = p->peer_id;
	if (ci->flags & UET_ACK_F_P) {
		h.off16 = (int16_t)ci->opaque;
	} else {
		off = (int32_t)(ci->psn - h.psn);
		h.off16 = (int16_t)(off < INT16_MIN ? INT16_MIN : off > INT16_MAX ? INT16_MAX : off);
	}
	h.cc_type = UET_CC_TYPE_NSCC;
	h.mpr = (uint8_t)(ep->win / UET_MPR_UNIT_PSNS > 255 ? 255
							    : ep->win / UET_MPR_UNIT_PSNS);
	h.sack_psn_offset = (int16_t)(int32_t)(base - h.psn);
	h.sack_bitmap = bits;
	svc = (now > ci->t_ns ? now - ci->t_ns : 0) / UET_SERVICE_TIME_UNIT_NS;
	ns.service_time = (uint16_t)(svc > 0xffff ? 0xffff : svc);
	ns.restore_cwnd = 0;
	ns.rcv_cwnd_pend = 0;
	ns.rcvd_bytes = (uint32_t)(((p->rx.rcvd_bytes + 255) >> 8) & 0xffffff);
	ns.ooo_count = (uint16_t)(p->rx.ooo > 0xffff ? 0xffff : p->rx.ooo);
	h.cc_state = uet_nscc_state_pack(&ns);
	if (ep->cfg.ack_carry_evs)
		h.cc_flags = UET_ACK_CCF_EVS;
	n = uet_hdr_encode(&h, buf, cap);
	if (n < 0)
		return n;
	if (ep->cfg.ack_carry_evs) {
		if ((size_t)n + 2 + 2u * p->rx.carry_n > cap)
			return UET_ERR_BUFSIZE;
		buf[n] = p->rx.carry_n;
		buf[n + 1] = 0;
		for (k = 0; k < p->rx.carry_n; k++)
			uet_put_be16(buf + n + 2 + 2 * k, p->rx.carry_ev[k]);
		n += 2 + 2 * (int)p->rx.carry_n;
		p->rx.carry_n = 0;
		ep->st.tx_carry_acks++;
	}
	if (h.flags & UET_ACK_F_DUP)
		ep->st.tx_dup_acks++;
	ep->st.tx_ack_pkts++;
	return ctrl_meta(m, UET_PKT_ACK, p->peer_ip, ci->ev, p->id, cack, n);
}

int
rx_write_nack(struct uet_ep *ep, const struct ctrl_item *ci, uint8_t *buf, size_t cap,
	      struct uet_tx_meta *m)
{
	struct uet_hdr h;
	int n;

	if (cap < UET_PDS_NACK_LEN)
		return UET_ERR_BUFSIZE;
	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_NACK;
	h.nh = UET_NH_NONE;
	h.flags = ci->flags;
	h.nack_code = ci->code;
	h.psn = ci->psn;
	h.spdcid = ci->spdcid;
	h.dpdcid = ci->dpdcid;
	h.payload32 = ci->aux;
	n = uet_hdr_encode(&h, buf, cap);
	if (n < 0)
		return n;
	ep->st.tx_nack_pkts++;
	return ctrl_meta(m, UET_PKT_NACK, ci->peer_ip, ci->ev, ci->spdcid, ci->psn, n);
}

void
rx_on_timer(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	if (p->state == PST_TIMEWAIT) {
		if (now >= p->rx.timewait_until)
			ep_pdc_free(ep, p);
		return;
	}
	if (p->rx.ack_due_ns != 0 && now >= p->rx.ack_due_ns) {
		/* The delayed ACK's trigger is the last packet: its EV goes as
		 * the ACK's source port, not in the carried list too. */
		if (p->rx.carry_n > 0 && p->rx.carry_ev[p->rx.carry_n - 1] == p->rx.last_ev)
			p->rx.carry_n--;
		push_ack(ep, p, p->rx.last_psn, p->rx.last_ev, p->rx.last_flags,
			 p->rx.last_arrival_ns);
	}
	if (ep->cfg.pdc_target_idle_ns != 0 &&
	    now >= p->rx.last_rx_ns + ep->cfg.pdc_target_idle_ns) {
		/* The initiator went silent without closing: reclaim, but keep
		 * its key in quarantine as a close does. An initiator that was
		 * only cut off (all its paths down for a while) still resends:
		 * as a new PDC that would deliver again what it delivered
		 * before (a message whose ACK was lost). Quarantined, its
		 * late packets are told the PDC is gone instead. */
		rx_release(ep, p, UET_ERR_TIMEOUT, now);
		ep->st.pdcs_closed++;
		ep_pdc_event(ep, p, UET_PDC_EV_CLOSED, UET_ERR_TIMEOUT);
		if (ep->cfg.pdc_quarantine_ns == 0) {
			ep_pdc_free(ep, p);
			return;
		}
		p->state = PST_TIMEWAIT;
		p->rx.aborted = 1;
		p->rx.ack_due_ns = 0;
		p->rx.timewait_until = now + ep->cfg.pdc_quarantine_ns;
	}
}

uint64_t
rx_deadline(const struct uet_ep *ep, const struct pdc *p)
{
	uint64_t d = UINT64_MAX;

	if (p->state == PST_TIMEWAIT)
		return p->rx.timewait_until;
	if (p->rx.ack_due_ns != 0)
		d = p->rx.ack_due_ns;
	if (ep->cfg.pdc_target_idle_ns != 0 &&
	    p->rx.last_rx_ns + ep->cfg.pdc_target_idle_ns < d)
		d = p->rx.last_rx_ns + ep->cfg.pdc_target_idle_ns;
	return d;
}
