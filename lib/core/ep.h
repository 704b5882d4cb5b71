/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CORE_EP_H_
#define UET_CORE_EP_H_

/*
 * Endpoint internals shared by endpoint.c (tables, timers, scheduling),
 * sender.c (initiator side of a PDC) and receiver.c (target side).
 * Nothing here is public API.
 */

#include <assert.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/hmap.h"
#include "uet/prng.h"
#include "base/theap.h"
#include "uet/uet.h"

#define NONE32 UINT32_MAX
#define NONE16 UINT16_MAX

/* Serial-number comparison of 32-bit PSNs. */
static inline bool
psn_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool
psn_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

enum pdc_role { ROLE_NONE = 0, ROLE_INIT = 1, ROLE_TGT = 2 };

enum pdc_state {
	PST_FREE = 0,
	PST_SYN = 1,      /* initiator: target's PDC id not known yet */
	PST_EST = 2,
	PST_CLOSING = 3,  /* initiator: CLOSE queued or in flight */
	PST_TIMEWAIT = 4, /* target: closed, rejects stale packets */
};

/* Per-PSN send record flags */
#define TXF_ACKED 0x01
#define TXF_LOST 0x02  /* waiting in the retransmit queue, not in flight */
#define TXF_CLOSE 0x04 /* the PSN carries CLOSE, not data */
#define TXF_SYN 0x08   /* last sent with SYN */
#define TXF_HELD 0x10  /* declared lost without a NACK (reordering, probe,
			* RTO): the verdict is pending, and so is the load
			* balancer's feedback about lost_ev */
#define TXF_HELD_RTO 0x20 /* ... by the retransmission timer; without
			   * TXF_HELD, a suspect: aged like the packet an RTO
			   * fired for, in flight until that one's verdict */
#define TXF_PASSED 0x40 /* reported missing by an ACK that delivered a
			 * later packet sent on the same EV */
#define TXF_BEHIND 0x80 /* ... a later packet sent on any EV */

/* More per-PSN flags (tx_ent.xflags) */
#define TXX_REFUSED 0x01 /* the target refused it for want of room, and has
			  * acknowledged nothing new since */
#define TXX_BY_WND 0x02  /* last declared lost behind a later delivery or by
			  * a probe's reply (not by the timer or a NACK):
			  * a duplicate of its resend says the window was
			  * short */
#define TXX_SAME_EV 0x04 /* ... behind a later packet on its own EV */

/* One PSN in [snd_una, snd_nxt): 24 bytes. */
struct tx_ent {
	uint64_t sent_ns;   /* last (re)transmission */
	uint32_t msg_off;
	uint16_t msg;       /* tx message slot */
	uint16_t len;       /* payload bytes */
	uint16_t ev;        /* EV of the last transmission */
	uint16_t lost_ev;   /* TXF_HELD: EV of the copy declared lost */
	uint8_t tx_count;
	uint8_t flags;
	uint8_t nacks;      /* trim NACKs received for this PSN */
	uint8_t xflags;     /* TXX_* */
};

_Static_assert(sizeof(struct tx_ent) == 24, "a send record is 24 bytes");

struct tx_msg {
	const uint8_t *buf;
	void *user;
	uint64_t tag;
	uint64_t submit_ns;
	uint32_t len;
	uint32_t seg_off;     /* bytes handed to PSNs so far */
	uint32_t unacked_pkts;
	uint32_t retx_pkts;
	uint32_t pdc_slot;
	uint16_t msg_id;
	uint16_t prev, next;  /* PDC's message list */
	uint8_t used;
	uint8_t segmented;    /* every byte has a PSN */
	uint8_t untagged;     /* UET_SEND, not UET_TAGGED_SEND */
	uint8_t has_data;     /* header_data goes out with flag HD */
	uint64_t header_data;
};

struct rx_msg {
	uint64_t tag;
	uint64_t first_ns;
	uint32_t len;
	uint32_t rcvd;
	uint32_t pdc_slot;
	uint16_t pdc_gen;
	uint16_t msg_id;
	uint8_t used;
	uint8_t tagged;       /* UET_TAGGED_SEND; tag is 0 otherwise */
};

struct pdc_tx {
	struct tx_ent *ent;  /* window_psns records, or NULL when idle */
	uint32_t *rtxq;      /* ring of PSNs to retransmit */
	uint32_t win_idx;
	uint32_t win_start;  /* snd_nxt when the records were attached: older
			      * slots hold another PDC's leftovers */
	uint32_t rtxq_head, rtxq_len;
	uint32_t start_psn;
	uint32_t snd_una;    /* lowest PSN not known to be received */
	uint32_t snd_nxt;    /* next new PSN */
	uint32_t peer_win;   /* receiver's window from MPR */
	uint32_t inflight_bytes;
	uint32_t inflight_pkts;
	uint32_t n_msgs;
	uint16_t msg_head, msg_tail; /* messages not yet acknowledged */
	uint16_t msg_seg;    /* first message with bytes left to send */
	uint16_t next_msg_id;
	uint16_t stream;
	uint8_t in_recovery;
	uint8_t close_queued; /* CLOSE needs a PSN */
	uint8_t waiting_win;  /* in the send-window wait queue */
	uint8_t probe_out;
	uint8_t ar_out;       /* ar_psn asked for an ACK */
	uint32_t recovery_psn;
	uint32_t ar_psn;      /* latest packet sent with ACK-request */
	uint32_t close_psn;
	uint64_t rack_sent_ns;     /* send time of the latest-sent delivered
				    * packet (first transmissions only) */
	uint32_t rack_rtt_ns;      /* its RTT */
	uint32_t rack_psn;         /* its PSN: packets written in one burst share
				    * a send time, and PSN order breaks the tie */
	uint64_t reo_deadline;     /* reordering timer: a passed packet's window
				    * runs out */
	uint64_t suspect_deadline; /* an RTO's suspects go if its verdict has
				    * not come by then */
	uint16_t last_ooo;         /* receiver's OOO count in the latest ACK */
	uint8_t rack_on;           /* rack_* hold a delivery */
	uint8_t undo_spur;         /* the open loss episode saw a spurious loss */
	uint8_t undo_real;         /* ... and one confirmed (or a trim) */
	uint8_t undo_cc;           /* ... and the congestion controller cut */
	uint8_t fail_held;         /* a path-failure report waits for a confirmed
				    * loss */
	uint8_t rto_undo;          /* the last RTO's verdict is pending */
	uint8_t rto_counted;       /* ... and it counted in rto_fails */
	uint8_t rto_late;          /* ... proven spurious by a duplicate: the
				    * original's own ACK will tell how late */
	uint8_t rto_resend;        /* the RTO's resend goes whatever the
				    * window: its verdict is what frees it */
	uint8_t rto_blind;         /* an expiry ran late before the first
				    * round trip: silence judges nothing */
	uint8_t rto_deferred;      /* a late expiry gave the flight one RTO
				    * more (on_rto) */
	uint8_t rto_open;          /* RTO_OPEN_*: the last RTO's verdict
				    * outlived its flight (tx_release) */
	uint16_t n_held;           /* PSNs with TXF_HELD */
	uint16_t n_refused;        /* PSNs with refused set */
	uint32_t rto_psn;          /* the PSN the last RTO fired for */
	uint64_t rto_first_sent_ns; /* its send time before the RTO */
	uint64_t rto_age_ns;       /* how long it had waited when the RTO fired */
	uint64_t rto_learned_ns;   /* RTO floor learned from spurious RTOs, */
	uint64_t rto_learned_at;   /* ... halving every UET_RTO_LEARN_HALF_NS */
	uint64_t srtt_ns, rttvar_ns, min_rtt_ns;
	uint64_t rto_deadline, probe_deadline, idle_deadline;
	uint32_t rto_backoff;
	uint32_t rto_fails;        /* timeout episodes in a row without progress */
	uint64_t rto_count_ns;     /* when the last counted episode began */
	uint64_t last_ack_ns;
	uint64_t probe_sent_ns;
	uint64_t acked_at_probe;
	uint64_t acked_pkts;       /* PSNs acknowledged over the PDC's life */
	uint32_t rcvd_units;       /* receiver's rcvd_bytes (256 B) last seen */
	uint64_t last_tx_ns;       /* last transmission, for the LB's idle hint */
	uint64_t max_rtt_ns;       /* largest RTT sample in the current window */
	uint64_t win_min_rtt_ns;   /* smallest one */
	uint16_t rtt_win_n;        /* samples in it (saturating) */
	uint64_t rtt_win_end;      /* the window restarts after this time */
	uint8_t trim_seen;         /* the fabric trims: any RTO is a failure */
	uint32_t rcvd_at_probe;
	uint16_t probe_opaque;
	/* The load balancer's and congestion controller's state are not here
	 * but in ep->algo, sized by the algorithms chosen (pdc_lb, pdc_cc):
	 * REPS needs 24 B, not the 192 every algorithm may have. */
};

struct pdc_rx {
	uint64_t *bm;        /* received beyond cack, window bits */
	uint64_t *unrep;     /* received beyond cack, not yet in a SACK */
	uint32_t win_idx;
	uint32_t start_psn;
	uint32_t cack;       /* next expected PSN */
	uint32_t max_psn1;   /* highest PSN received + 1 */
	uint32_t ooo;        /* PSNs held beyond cack */
	uint32_t unacked_bytes;
	uint32_t n_msgs;     /* messages in reassembly */
	uint32_t last_msg;   /* rx message slot used last: consecutive
			      * packets usually belong to one message */
	uint32_t close_psn;
	uint8_t close_seen;
	uint8_t aborted;     /* quarantined after the initiator went silent:
			      * what it had half sent was dropped */
	uint8_t ar_pending;  /* an AR arrived while PSNs were missing: ACK when
			      * the last hole closes */
	uint8_t last_flags;  /* last accepted packet: trigger of a delayed ACK */
	uint16_t last_ev;
	uint8_t carry_n;     /* ack_carry_evs: EVs waiting for the next ACK */
	uint16_t carry_ev[UET_ACK_CARRY_MAX];
	uint32_t last_psn;
	uint64_t last_arrival_ns;
	uint64_t rcvd_bytes;
	uint64_t ack_due_ns;
	uint64_t last_rx_ns;
	uint64_t timewait_until;
	/* Credit (credit.c): the sender's cumulative need and our grant,
	 * mod 2^32; in the pull pacer's queue of needs, in its queue of idle
	 * senders (granted ahead of their need). */
	uint32_t credit_need;
	uint32_t credit_granted;
	uint8_t in_pull;
	uint8_t in_idle;
	/* match_in_order (match.c): the message id whose turn it is, once the
	 * PDC's first message (at its start PSN) said where turns start. */
	uint8_t match_known;
	uint16_t match_next;
};

/* A sender's side of receiver-driven credit (credit.c), in ep->algo after
 * the CC's state, only when the CC takes credit: the need last sent in a
 * CREDIT_REQ and the largest grant heard of (mod 2^32), when the last
 * request left or grant arrived, requests in a row that brought nothing. */
struct pdc_credit {
	uint64_t req_ns;
	uint32_t asked;
	uint32_t got;
	uint8_t req_q;       /* a CREDIT_REQ waits in the control queue */
	uint16_t fails;      /* compared with max_rto_retx (up to 1000) */
};

struct pdc {
	uint8_t role;
	uint8_t state;
	uint8_t in_rdy;
	uint16_t gen;
	uint16_t id;
	uint16_t peer_id;
	uint32_t peer_ip;
	uint32_t slot;
	uint32_t rdy_prev, rdy_next;
	uint64_t hkey;       /* key in ep->pdc_map, 0 if not mapped */
	uint64_t deadline;   /* as registered in ep->timers */
	union {
		struct pdc_tx tx;
		struct pdc_rx rx;
	};
};

enum ctrl_kind { CI_ACK = 1, CI_NACK, CI_PROBE, CI_CREDIT, CI_CREDIT_REQ };

struct ctrl_item {
	uint64_t t_ns;       /* ACK: trigger arrival */
	uint32_t peer_ip;
	uint32_t psn;        /* ACK: trigger PSN; NACK: nacked PSN */
	uint32_t aux;        /* ACK to probe: requested SACK base; NACK: payload */
	uint32_t pdc_slot;
	uint16_t pdc_gen;
	uint16_t spdcid, dpdcid;
	uint16_t ev;
	uint16_t opaque;     /* probe opaque */
	uint8_t kind;
	uint8_t flags;       /* ACK/NACK flags */
	uint8_t code;        /* NACK code */
	uint8_t has_base;    /* ACK: aux is a requested SACK base */
};

struct uet_ep {
	struct uet_ep_config cfg;
	uint8_t *algo;       /* per PDC slot: LB state, then CC state */
	uint32_t algo_stride, algo_cc_off, algo_cr_off;
	bool credit_on;      /* the CC takes credit (credit.c); checked inline
			      * on the hot path, which pays nothing else */
	struct uet_prng rng;
	uint32_t psn_salt;   /* from cfg.start_nonce: 0 when it is 0 */
	struct uet_ep_stats st;
	uint32_t win;        /* window_psns */
	uint32_t win_mask;
	uint32_t slot_bits;
	uint32_t slot_mask;
	uint32_t mss;
	uint64_t rto_min_ns, rto_max_ns;
	uint64_t lb_idle_ns;
	struct uet_lb_params lb_params;

	struct pdc *pdcs;
	uint32_t *pdc_free;
	uint32_t n_pdc_free;
	struct uet_hmap pdc_map;
	struct uet_theap timers;
	uint32_t rdy_head;

	struct tx_ent *txw_ent;
	uint32_t *txw_rtxq;
	uint32_t *txw_free;
	uint32_t n_txw_free;
	uint32_t n_txw;
	uint32_t *txw_wait;   /* FIFO of PDC slots waiting for a window */
	uint32_t txw_wait_head, txw_wait_len;

	uint64_t *rxw_bits;
	uint32_t *rxw_free;
	uint32_t n_rxw_free;
	uint32_t n_rxw;

	struct tx_msg *txm;
	uint16_t *txm_free;
	uint32_t n_txm_free;

	struct rx_msg *rxm;
	uint32_t *rxm_free;
	uint32_t n_rxm_free;
	struct uet_hmap rxm_map;
	struct match *match;  /* receive-side matching (match.c), or NULL */

	struct ctrl_item *cq;
	uint32_t cq_head, cq_len;

	/* The reordering window of adaptive loss detection, learned by the
	 * endpoint for all its PDCs and paths (sender.c, reo_wnd): how late,
	 * at most, packets reported missing and then delivered were in the
	 * current and the last epoch, and a floor that a loss proven
	 * spurious raises at once and that fades over seconds. */
	struct {
		uint64_t q_cur_ns, q_prev_ns;
		uint64_t epoch_end_ns;
		uint64_t floor_ns, floor_at_ns;
	} reo;

	/* Per ACK being processed: the latest send time delivered on each EV
	 * (direct-mapped by EV, tagged with evt_stamp so nothing needs
	 * clearing between ACKs). */
	struct {
		uint64_t sent_ns;
		uint32_t psn;
		uint32_t stamp;
		uint16_t ev;
	} evt[256];
	uint32_t evt_stamp;

	/* Pull pacer (credit.c): target PDC slots with credit to grant, round
	 * robin; its timer is id max_pdcs in ep->timers. */
	uint32_t *pull_q;
	uint32_t pull_head, pull_len;
	uint64_t pull_next_ns;
	/* Senders whose need is granted, to be granted up to idle_credit
	 * bytes ahead of it when pull_q is empty ("slow pulls"; idle_q is
	 * NULL where idle_credit is 0). */
	uint32_t *idle_q;
	uint32_t idle_head, idle_len;
	uint32_t idle_credit;
};

/* Describe a control packet (ACK, NACK, probe, close) for the caller:
 * control class, not ECN-capable. write_pkt zeroed the rest. */
static inline int
ctrl_meta(struct uet_tx_meta *m, enum uet_pkt_kind kind, uint32_t dst_ip, uint16_t ev,
	  uint16_t pdc_id, uint32_t psn, int len)
{
	m->dst_ip = dst_ip;
	m->ev = ev;
	m->tclass = UET_TCLASS_CONTROL;
	m->ecn_capable = false;
	m->kind = (uint8_t)kind;
	m->hdr_len = (uint16_t)len;
	m->pdc_id = pdc_id;
	m->psn = psn;
	return len;
}

/* endpoint.c */
struct pdc *ep_pdc_alloc(struct uet_ep *ep, uint8_t role, uint32_t peer_ip,
			 uint64_t hkey, uint64_t now);
void ep_pdc_free(struct uet_ep *ep, struct pdc *p);
struct pdc *ep_pdc_by_id(struct uet_ep *ep, uint16_t id);
void ep_pdc_unmap(struct uet_ep *ep, struct pdc *p);
void ep_timer_update(struct uet_ep *ep, struct pdc *p);
void ep_rdy_kick(struct uet_ep *ep, struct pdc *p);
void ep_rdy_remove(struct uet_ep *ep, struct pdc *p);
struct ctrl_item *ep_ctrl_push(struct uet_ep *ep);
void ep_pdc_event(struct uet_ep *ep, const struct pdc *p, enum uet_pdc_event_kind k,
		  int status);
uint64_t ep_key_init(uint32_t dst_ip, uint16_t stream);
uint64_t ep_key_tgt(uint32_t src_ip, uint16_t spdcid);

/* sender.c */
int tx_send(struct uet_ep *ep, const struct uet_send_req *r, uint64_t now);
bool tx_can_send(struct uet_ep *ep, struct pdc *p);
int tx_write(struct uet_ep *ep, struct pdc *p, uint8_t *buf, size_t cap,
	     struct uet_tx_meta *m, uint64_t now);
int tx_write_probe(struct uet_ep *ep, const struct ctrl_item *ci, uint8_t *buf,
		   size_t cap, struct uet_tx_meta *m, uint64_t now);
int tx_on_ack(struct uet_ep *ep, const struct uet_hdr *h, const uint8_t *tail, size_t tail_len,
	      const struct uet_rx_meta *meta, uint64_t now);
int tx_on_nack(struct uet_ep *ep, const struct uet_hdr *h,
	       const struct uet_rx_meta *meta, uint64_t now);
void tx_on_timer(struct uet_ep *ep, struct pdc *p, uint64_t now);
uint64_t tx_deadline(const struct uet_ep *ep, const struct pdc *p);
void tx_release(struct uet_ep *ep, struct pdc *p);
void tx_fail(struct uet_ep *ep, struct pdc *p, int status, uint64_t now);
struct pdc *tx_lookup(struct uet_ep *ep, const struct uet_hdr *h,
		      const struct uet_rx_meta *meta);
uint16_t tx_ctrl_ev(struct uet_ep *ep, struct pdc *p, uint64_t now);
void tx_ctrl_hdr(const struct pdc *p, uint8_t nh, uint8_t flags, uint32_t psn,
		 struct uet_hdr *h);
uint32_t tx_cwnd(const struct uet_ep *ep, const struct pdc *p);
uint64_t tx_rto(const struct uet_ep *ep, const struct pdc *p);

/* receiver.c */
int rx_on_request(struct uet_ep *ep, const struct uet_hdr *h, const uint8_t *payload,
		  size_t plen, const struct uet_rx_meta *meta, uint64_t now);
int rx_write_ack(struct uet_ep *ep, const struct ctrl_item *ci, uint8_t *buf,
		 size_t cap, struct uet_tx_meta *m, uint64_t now);
int rx_write_nack(struct uet_ep *ep, const struct ctrl_item *ci, uint8_t *buf,
		  size_t cap, struct uet_tx_meta *m);
void rx_on_timer(struct uet_ep *ep, struct pdc *p, uint64_t now);
uint64_t rx_deadline(const struct uet_ep *ep, const struct pdc *p);
void rx_release(struct uet_ep *ep, struct pdc *p, int status, uint64_t now);

/* match.c: receive-side matching, when cfg.max_posted_recvs > 0. A data
 * packet is checked (no side effect; a NACK code when it must be refused;
 * *rec its message's record, or NONE32) before it is accepted, admitted
 * when it is (the record it goes to), its bytes placed there as they are
 * delivered, its message ended when whole or aborted. */
int match_config_check(const struct uet_ep_config *c, const char **why);
size_t match_mem_bytes(const struct uet_ep_config *c);
int match_create(struct uet_ep *ep);
void match_destroy(struct uet_ep *ep);
#define MATCH_MALFORMED (-1) /* match_check: disagrees with its message */
#define MATCH_DEFER (-2)     /* match_check: its turn, and nowhere to put it:
			      * refused, after match_defer() matched it */
int match_check(const struct uet_ep *ep, const struct pdc *p, const struct uet_hdr *h,
		uint32_t *rec);
void match_defer(struct uet_ep *ep, struct pdc *p, const struct uet_hdr *h, const uint8_t *data,
		 uint32_t len, uint64_t now);
/* match_check() refused a packet of a known message (rec): its header
 * and first bytes. */
void match_refused(struct uet_ep *ep, uint32_t rec, const struct uet_hdr *h, const uint8_t *data,
		   uint32_t len);
uint32_t match_admit(struct uet_ep *ep, struct pdc *p, const struct uet_hdr *h, uint32_t rec,
		     uint64_t now);
void match_data(struct uet_ep *ep, uint32_t rec, const struct uet_hdr *h, const uint8_t *data,
		uint32_t len);
void match_end(struct uet_ep *ep, const struct pdc *p, uint16_t msg_id, int status,
	       uint64_t now);
void match_pdc_gone(struct uet_ep *ep, struct pdc *p, int status, uint64_t now);
void rx_push_nack(struct uet_ep *ep, uint32_t peer_ip, uint16_t spdcid, uint16_t dpdcid,
		  uint32_t psn, uint8_t code, uint8_t flags, uint16_t ev, uint32_t payload);

/* credit.c */
static inline bool
cr_tx_on(const struct uet_ep *ep)
{
	return ep->credit_on;
}
bool cr_tx_allows(const struct uet_ep *ep, const struct pdc *p);
uint64_t cr_msg_bytes(const struct uet_ep *ep, uint32_t len);
void cr_tx_queued(struct uet_ep *ep, struct pdc *p, uint64_t bytes);
void cr_tx_sent(struct uet_ep *ep, struct pdc *p, uint32_t bytes);
void cr_tx_update(struct uet_ep *ep, struct pdc *p);
uint64_t cr_tx_deadline(const struct uet_ep *ep, const struct pdc *p);
void cr_tx_on_timer(struct uet_ep *ep, struct pdc *p, uint64_t now);
int cr_tx_write_req(struct uet_ep *ep, const struct ctrl_item *ci, uint8_t *buf, size_t cap,
		    struct uet_tx_meta *m, uint64_t now);
int cr_tx_on_credit(struct uet_ep *ep, const struct uet_hdr *h,
		    const struct uet_rx_meta *meta, uint64_t now);
void cr_rx_on_req(struct uet_ep *ep, struct pdc *p, uint32_t need, uint16_t ev, uint64_t now);
void cr_rx_release(struct uet_ep *ep, struct pdc *p);
void cr_pull_on_timer(struct uet_ep *ep, uint64_t now);
int cr_rx_write_credit(struct uet_ep *ep, const struct ctrl_item *ci, uint8_t *buf,
		       size_t cap, struct uet_tx_meta *m);

/* psn's send record (the PDC holds a window). */
static inline struct tx_ent *
ent_of(const struct uet_ep *ep, const struct pdc *p, uint32_t psn)
{
	return &p->tx.ent[psn & ep->win_mask];
}

/* PDS wire bytes of a send record: what cwnd, inflight and credit count. */
static inline uint32_t
ent_bytes(const struct tx_ent *e)
{
	return (e->flags & TXF_CLOSE) ? UET_PDS_CTRL_LEN : UET_DATA_HDR_LEN + e->len;
}

/* The parameters every PDC's congestion controller starts from; also what
 * a receiver's pull pacer asks its CC (idle_credit). */
static inline void
ep_cc_params(const struct uet_ep *ep, struct uet_cc_params *cp)
{
	cp->mss_bytes = UET_DATA_HDR_LEN + ep->mss;
	cp->base_rtt_ns = ep->cfg.base_rtt_ns;
	cp->link_bps = ep->cfg.link_bps;
	cp->cfg = ep->cfg.cc_cfg;
}

/* Append slot to a FIFO ring of PDC slots (cap entries, len from head;
 * a PDC is in a ring at most once, by its own flag, so it never fills). */
static inline void
slot_fifo_push(uint32_t *q, uint32_t head, uint32_t *len, uint32_t cap, uint32_t slot)
{
	assert(*len < cap);
	q[(head + *len) % cap] = slot;
	(*len)++;
}

/* Drop slot from a FIFO ring of PDC slots (cap entries, len from head),
 * the others' order kept; returns the new length. Rare events only: a
 * scan. */
static inline uint32_t
slot_fifo_remove(uint32_t *q, uint32_t head, uint32_t len, uint32_t cap, uint32_t slot)
{
	uint32_t i, k = 0;

	for (i = 0; i < len; i++) {
		uint32_t s = q[(head + i) % cap];

		if (s != slot)
			q[(head + k++) % cap] = s;
	}
	return k;
}

/* A PDC's load-balancer and congestion-control state (ep->algo). */
static inline void *
pdc_lb(const struct uet_ep *ep, const struct pdc *p)
{
	return ep->algo + (size_t)p->slot * ep->algo_stride;
}

static inline void *
pdc_cc(const struct uet_ep *ep, const struct pdc *p)
{
	return ep->algo + (size_t)p->slot * ep->algo_stride + ep->algo_cc_off;
}

/* Only with a credit CC (cr_tx_on). */
static inline struct pdc_credit *
pdc_credit(const struct uet_ep *ep, const struct pdc *p)
{
	return (struct pdc_credit *)(ep->algo + (size_t)p->slot * ep->algo_stride +
				     ep->algo_cr_off);
}

#endif /* UET_CORE_EP_H_ */
