/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiver-driven credit (EQDS, UET's RCCC): the transport's half of a
 * credit congestion controller (lib/cc/eqds.c has the sender's counters).
 *
 * Sender: when what it needs granted grows (a message, a resend, the end of
 * the speculative phase), it sends a CREDIT_REQ control packet carrying its
 * cumulative need. Receiver: a pull pacer, one per endpoint (one NIC), grants
 * the needs of its senders in quanta, round robin, paced at 0.99 x its line
 * rate, each grant a CREDIT control packet carrying the cumulative grant of
 * that PDC. Both counters are cumulative (mod 2^32), so a lost, duplicated or
 * late control packet costs time, never correctness; a sender that stays
 * blocked repeats its request (the receiver answers a request it has
 * nothing new for with its last grant) and gives up like an RTO would.
 *
 * The request travels as its own control packet, not as a field of the data
 * header (UET's RUD_CC_REQ credit_target), so that data headers keep one
 * size; it may carry SYN and open the target's PDC, as a probe may.
 */
#include <assert.h>
#include <string.h>

#include "ep.h"

/* Credit granted per pull: 4 full packets, as the reference's pacer. */
#define PULL_QUANTUM_PKTS 4
/* The pacer's rate in percent of the link: the reference's 0.99. */
#define PULL_RATE_PCT 99
/* Repeated requests of a blocked sender back off to 2^this RTOs. */
#define CREDIT_RETRY_MAX_SHIFT 6

/* --- sender ---
 * Everything here but cr_tx_on_credit runs only where cr_tx_on(ep): the
 * callers check it inline, so that the hot path of a window CC pays one
 * test of a flag. */

/* Wire bytes of the packet the PDC would send next (0: none, or one that
 * needs no credit: a CLOSE). */
static uint32_t
next_pkt_bytes(const struct uet_ep *ep, const struct pdc *p)
{
	if (p->tx.rtxq_len > 0) {
		const struct tx_ent *e = ent_of(ep, p, p->tx.rtxq[p->tx.rtxq_head]);

		return (e->flags & TXF_CLOSE) ? 0 : ent_bytes(e);
	}
	if (p->tx.msg_seg != NONE16) {
		const struct tx_msg *m = &ep->txm[p->tx.msg_seg];
		uint32_t left = m->len - m->seg_off;

		return UET_DATA_HDR_LEN + (left < ep->mss ? left : ep->mss);
	}
	return 0;
}

bool
cr_tx_allows(const struct uet_ep *ep, const struct pdc *p)
{
	uint32_t b;

	/* An RTO's resend goes regardless, as it goes past the window: it
	 * is counted in the need, so later grants cover it. */
	if (p->tx.rto_resend && p->tx.rtxq_len > 0)
		return true;
	b = next_pkt_bytes(ep, p);
	return b == 0 || ep->cfg.cc->may_send(pdc_cc(ep, p), b);
}

uint64_t
cr_msg_bytes(const struct uet_ep *ep, uint32_t len)
{
	uint64_t pkts = len == 0 ? 1 : ((uint64_t)len + ep->mss - 1) / ep->mss;

	return len + pkts * UET_DATA_HDR_LEN;
}

void
cr_tx_queued(struct uet_ep *ep, struct pdc *p, uint64_t bytes)
{
	ep->cfg.cc->on_queued(pdc_cc(ep, p), bytes);
}

void
cr_tx_sent(struct uet_ep *ep, struct pdc *p, uint32_t bytes)
{
	ep->cfg.cc->on_sent(pdc_cc(ep, p), bytes);
}

static void
push_req(struct uet_ep *ep, struct pdc *p)
{
	struct ctrl_item *ci;

	if (pdc_credit(ep, p)->req_q)
		return;
	ci = ep_ctrl_push(ep);
	if (ci == NULL)
		return; /* the retry timer asks again */
	ci->kind = CI_CREDIT_REQ;
	ci->pdc_slot = p->slot;
	ci->pdc_gen = p->gen;
	pdc_credit(ep, p)->req_q = 1;
}

/* Called whenever the PDC's state moved (ep_timer_update): ask for what
 * the need grew by. */
void
cr_tx_update(struct uet_ep *ep, struct pdc *p)
{
	uint32_t need;

	if (p->state == PST_CLOSING)
		return;
	need = ep->cfg.cc->credit_need(pdc_cc(ep, p));
	if ((int32_t)(need - pdc_credit(ep, p)->asked) > 0)
		push_req(ep, p);
}

/* Asked for more than was granted. Whether the sender is blocked right
 * now would be the finer test, but that changes with state the timer is
 * not told about (a send window handed over); an answer that takes
 * longer than the retry interval costs one duplicate request. */
static bool
outstanding(const struct uet_ep *ep, const struct pdc *p)
{
	return (int32_t)(pdc_credit(ep, p)->asked - pdc_credit(ep, p)->got) > 0;
}

static uint64_t
retry_after(const struct uet_ep *ep, const struct pdc *p)
{
	uint32_t s = pdc_credit(ep, p)->fails < CREDIT_RETRY_MAX_SHIFT ? pdc_credit(ep, p)->fails
								 : CREDIT_RETRY_MAX_SHIFT;
	uint64_t t = tx_rto(ep, p) << s;

	return t < ep->rto_max_ns ? t : ep->rto_max_ns;
}

/* A need not yet announced: its request found the control queue full. */
static bool
unannounced(const struct uet_ep *ep, const struct pdc *p)
{
	return (int32_t)(ep->cfg.cc->credit_need(pdc_cc(ep, p)) - pdc_credit(ep, p)->asked) > 0;
}

uint64_t
cr_tx_deadline(const struct uet_ep *ep, const struct pdc *p)
{
	/* A closing PDC sends nothing that needs credit (CLOSE needs none),
	 * and its target may be gone already. */
	if (pdc_credit(ep, p)->req_q || p->state == PST_CLOSING ||
	    (!outstanding(ep, p) && !unannounced(ep, p)))
		return UINT64_MAX;
	return pdc_credit(ep, p)->req_ns + retry_after(ep, p);
}

/* A retry interval with no grant: the request or its answer was lost, the
 * receiver is gone, or the request never left (the control queue was
 * full). */
void
cr_tx_on_timer(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	uint64_t d = cr_tx_deadline(ep, p);

	if (d == UINT64_MAX || now < d)
		return;
	if (++pdc_credit(ep, p)->fails > ep->cfg.max_rto_retx) {
		tx_fail(ep, p, UET_ERR_TIMEOUT, now);
		return;
	}
	ep->st.credit_retries++;
	push_req(ep, p);
}

int
cr_tx_write_req(struct uet_ep *ep, const struct ctrl_item *ci, uint8_t *buf, size_t cap,
		struct uet_tx_meta *m, uint64_t now)
{
	struct pdc *p = &ep->pdcs[ci->pdc_slot];
	struct uet_hdr h;
	int n;

	if (p->role != ROLE_INIT || p->gen != ci->pdc_gen)
		return 0;
	if (cap < UET_PDS_CTRL_LEN)
		return UET_ERR_BUFSIZE;
	pdc_credit(ep, p)->req_q = 0;
	/* Control goes out ahead of data: the first request may reach the
	 * target before any data packet, and opens the PDC there. No PSN is
	 * consumed; the start PSN (SYN) or the next one says where we are. */
	tx_ctrl_hdr(p, UET_CTL_CREDIT_REQ, 0,
		    p->state == PST_SYN ? p->tx.start_psn : p->tx.snd_nxt, &h);
	/* The need as it is now, not as it was when queued. */
	h.payload32 = ep->cfg.cc->credit_need(pdc_cc(ep, p));
	n = uet_hdr_encode(&h, buf, cap);
	if (n < 0)
		return n;
	pdc_credit(ep, p)->asked = h.payload32;
	pdc_credit(ep, p)->req_ns = now;
	ep->st.tx_credit_req_pkts++;
	ep_timer_update(ep, p);
	return ctrl_meta(m, UET_PKT_CREDIT_REQ, p->peer_ip,
			 tx_ctrl_ev(ep, p, now), p->id, h.psn, n);
}

int
cr_tx_on_credit(struct uet_ep *ep, const struct uet_hdr *h, const struct uet_rx_meta *meta,
		uint64_t now)
{
	struct pdc *p = tx_lookup(ep, h, meta);

	ep->st.rx_credit_pkts++;
	if (p == NULL)
		return UET_ERR_NO_PDC;
	if (p->state != PST_SYN && h->spdcid != p->peer_id) {
		ep->st.rx_stale++;
		return UET_ERR_STALE;
	}
	if (!cr_tx_on(ep)) {
		/* Nobody asked: a confused or forged peer. */
		ep->st.rx_unsupported++;
		return UET_ERR_UNSUPPORTED;
	}
	ep->cfg.cc->on_credit(pdc_cc(ep, p), h->payload32, now);
	/* Only a grant that moves counts as an answer. A receiver that
	 * answers every request with the same grant (it disagrees about the
	 * need, or a forged request misled it) must not keep the sender
	 * waiting forever: its retries run out as an RTO's would. */
	if ((int32_t)(h->payload32 - pdc_credit(ep, p)->got) > 0) {
		pdc_credit(ep, p)->got = h->payload32;
		pdc_credit(ep, p)->fails = 0;
		pdc_credit(ep, p)->req_ns = now;
	}
	ep_rdy_kick(ep, p);
	ep_timer_update(ep, p);
	return 0;
}

/* --- receiver: the pull pacer --- */

static uint32_t
quantum(const struct uet_ep *ep)
{
	return PULL_QUANTUM_PKTS * (UET_DATA_HDR_LEN + ep->mss);
}

static uint64_t
pull_ns(const struct uet_ep *ep, uint32_t bytes)
{
	uint64_t rate = ep->cfg.link_bps / 100 * PULL_RATE_PCT;

	uint64_t t = rate ? (uint64_t)bytes * 8 * 1000000000ULL / rate : 0;

	/* At least 1 ns: the timer must move for handle_timeout to end. */
	return t > 0 ? t : 1;
}

static void
pull_arm(struct uet_ep *ep, uint64_t now)
{
	uint32_t id = ep->cfg.max_pdcs;

	if (ep->pull_len == 0 && ep->idle_len == 0) {
		uet_theap_del(&ep->timers, id);
		return;
	}
	uet_theap_set(&ep->timers, id, ep->pull_next_ns > now ? ep->pull_next_ns : now);
}

/* An idle pacer starts now: no catching up on its idle time. */
static void
pull_wake(struct uet_ep *ep, uint64_t now)
{
	if (ep->pull_len == 0 && ep->idle_len == 0 && ep->pull_next_ns < now)
		ep->pull_next_ns = now;
}

static void
pull_enqueue(struct uet_ep *ep, struct pdc *p)
{
	if (p->rx.in_pull)
		return;
	slot_fifo_push(ep->pull_q, ep->pull_head, &ep->pull_len, ep->cfg.max_pdcs, p->slot);
	p->rx.in_pull = 1;
}

static bool
pending(const struct pdc *p)
{
	return (int32_t)(p->rx.credit_need - p->rx.credit_granted) > 0;
}

/* Granted ahead of the need (0 while a need is pending). */
static uint32_t
ahead(const struct pdc *p)
{
	return pending(p) ? 0 : p->rx.credit_granted - p->rx.credit_need;
}

/* Nothing happens where idle_credit is 0 (no slow pulls, no idle_q). */
static void
idle_enqueue(struct uet_ep *ep, struct pdc *p)
{
	if (p->rx.in_idle || ahead(p) >= ep->idle_credit)
		return;
	slot_fifo_push(ep->idle_q, ep->idle_head, &ep->idle_len, ep->cfg.max_pdcs, p->slot);
	p->rx.in_idle = 1;
}

static void
push_credit(struct uet_ep *ep, struct pdc *p)
{
	struct ctrl_item *ci = ep_ctrl_push(ep);

	if (ci == NULL)
		return;
	ci->kind = CI_CREDIT;
	ci->pdc_slot = p->slot;
	ci->pdc_gen = p->gen;
	ci->ev = p->rx.last_ev;
}

void
cr_rx_on_req(struct uet_ep *ep, struct pdc *p, uint32_t need, uint16_t ev, uint64_t now)
{
	bool newer = (int32_t)(need - p->rx.credit_need) > 0;

	ep->st.rx_credit_req_pkts++;
	if (p->rx.last_ev == 0)
		p->rx.last_ev = ev;
	if (newer) {
		/* A sender never asks for 2^31 bytes beyond its grant (its own
		 * counters compare the same way); a need that far ahead would
		 * read as behind the grant, and the pacer would stop granting
		 * this PDC. A newer need lies at most idle_credit behind the
		 * grant (no more is granted ahead of a need), so one further
		 * behind is such a need. */
		if ((int32_t)(need - p->rx.credit_granted) < -(int32_t)ep->idle_credit) {
			ep->st.rx_malformed++;
			return;
		}
		p->rx.credit_need = need;
	}
	if (pending(p)) {
		pull_wake(ep, now);
		pull_enqueue(ep, p);
	} else if (newer && ep->idle_credit > 0) {
		/* The sender spent some of what we granted ahead and is not
		 * waiting for an answer; top it up again when the pacer has
		 * nothing else to grant. */
		pull_wake(ep, now);
		idle_enqueue(ep, p);
	} else {
		/* Nothing new to grant: the sender missed our last grant. */
		push_credit(ep, p);
	}
	pull_arm(ep, now);
}

/* A PDC going away leaves the pacer's queues (rare: a scan is fine). */
void
cr_rx_release(struct uet_ep *ep, struct pdc *p)
{
	uint32_t n = ep->cfg.max_pdcs;

	if (p->rx.in_pull) {
		ep->pull_len = slot_fifo_remove(ep->pull_q, ep->pull_head, ep->pull_len, n, p->slot);
		p->rx.in_pull = 0;
	}
	if (p->rx.in_idle) {
		ep->idle_len = slot_fifo_remove(ep->idle_q, ep->idle_head, ep->idle_len, n, p->slot);
		p->rx.in_idle = 0;
	}
	if (ep->pull_len == 0 && ep->idle_len == 0)
		uet_theap_del(&ep->timers, n);
}

/* The next PDC of one of the pacer's FIFOs, NULL when it is empty. */
static struct pdc *
fifo_pop(struct uet_ep *ep, const uint32_t *q, uint32_t *head, uint32_t *len)
{
	while (*len > 0) {
		struct pdc *p = &ep->pdcs[q[*head]];

		*head = (*head + 1) % ep->cfg.max_pdcs;
		(*len)--;
		/* A PDC leaves the queues when it is released (cr_rx_release),
		 * so this is a target; check before touching its rx half. */
		if (p->role == ROLE_TGT)
			return p;
	}
	return NULL;
}

static void
grant_credit(struct uet_ep *ep, struct pdc *p, uint32_t bytes)
{
	p->rx.credit_granted += bytes;
	ep->st.credit_granted_bytes += bytes;
	push_credit(ep, p);
}

/* Grant up to a quantum: a pending need first, round robin; with none, an
 * idle sender's credit ahead. Returns the bytes the pacer's time is
 * charged for, 0 when neither queue had anyone to grant. */
static uint32_t
pull_one(struct uet_ep *ep)
{
	uint32_t q = quantum(ep), grant;
	struct pdc *p;

	while ((p = fifo_pop(ep, ep->pull_q, &ep->pull_head, &ep->pull_len)) != NULL) {
		p->rx.in_pull = 0;
		if (p->state == PST_TIMEWAIT || !pending(p))
			continue;
		if (ep->cq_len == ep->cfg.ctrl_queue_len) {
			/* No room for the CREDIT: try again a quantum later. */
			pull_enqueue(ep, p);
			return q;
		}
		grant = p->rx.credit_need - p->rx.credit_granted;
		grant = grant < q ? grant : q;
		grant_credit(ep, p, grant);
		if (pending(p))
			pull_enqueue(ep, p);
		else
			idle_enqueue(ep, p);
		return grant;
	}
	while ((p = fifo_pop(ep, ep->idle_q, &ep->idle_head, &ep->idle_len)) != NULL) {
		p->rx.in_idle = 0;
		/* A pending need is in pull_q, which is empty: it cannot be
		 * pending; a full one may have been topped up meanwhile. */
		if (p->state == PST_TIMEWAIT || pending(p) || ahead(p) >= ep->idle_credit)
			continue;
		if (ep->cq_len == ep->cfg.ctrl_queue_len) {
			idle_enqueue(ep, p);
			return q;
		}
		grant = ep->idle_credit - ahead(p);
		grant = grant < q ? grant : q;
		grant_credit(ep, p, grant);
		ep->st.credit_idle_bytes += grant;
		idle_enqueue(ep, p);
		return grant;
	}
	return 0;
}

void
cr_pull_on_timer(struct uet_ep *ep, uint64_t now)
{
	uint64_t due = ep->pull_next_ns, q_ns = pull_ns(ep, quantum(ep));
	uint32_t paid;

	/* Served late (a busy poll loop), the pacer catches up on at most one
	 * pull's worth of time: the timer then fires again at once. */
	if (due + q_ns < now)
		due = now - q_ns;
	paid = pull_one(ep);
	if (paid > 0)
		ep->pull_next_ns = due + pull_ns(ep, paid);
	pull_arm(ep, now);
}

int
cr_rx_write_credit(struct uet_ep *ep, const struct ctrl_item *ci, uint8_t *buf, size_t cap,
		   struct uet_tx_meta *m)
{
	struct pdc *p = &ep->pdcs[ci->pdc_slot];
	struct uet_hdr h;
	int n;

	if (p->role != ROLE_TGT || p->gen != ci->pdc_gen || p->state == PST_TIMEWAIT)
		return 0;
	if (cap < UET_PDS_CTRL_LEN)
		return UET_ERR_BUFSIZE;
	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_CTRL;
	h.nh = UET_CTL_CREDIT;
	h.spdcid = p->id;
	h.dpdcid = p->peer_id;
	h.psn = p->rx.cack - 1; /* inclusive, as an ACK's CACK_PSN */
	/* The grant as it is now: a later pull may have raised it. */
	h.payload32 = p->rx.credit_granted;
	n = uet_hdr_encode(&h, buf, cap);
	if (n < 0)
		return n;
	ep->st.tx_credit_pkts++;
	return ctrl_meta(m, UET_PKT_CREDIT, p->peer_ip, ci->ev, p->id, h.psn, n);
}
