/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_UET_H_
#define UET_UET_H_

/*
 * libuet core: a sans-I/O UET 1.0 RUD-style reliable, out-of-order,
 * multipath transport endpoint.
 *
 * The endpoint never touches a socket, a NIC or a clock. The caller (the
 * DPDK data path, the simulator, a test) drives it:
 *
 *   uet_ep_send()          queue a message for a destination
 *   uet_ep_read_pkt()      feed a received UDP payload (+ what the IP/UDP
 *                          headers said: source, EV, CE, trimmed)
 *   uet_ep_write_pkt()     ask for the next packet to transmit; the endpoint
 *                          writes PDS/SES headers and payload into the
 *                          caller's buffer and says where it goes (dst, EV,
 *                          traffic class)
 *   uet_ep_next_deadline() earliest time the endpoint needs a call
 *   uet_ep_handle_timeout() run the timers that are due
 *
 * Every call takes the current time in nanoseconds; randomness comes from
 * cfg.seed. Completion events arrive through callbacks (struct
 * uet_callbacks), called synchronously from read_pkt/write_pkt/
 * handle_timeout/post_recv. Callbacks may call uet_ep_send(),
 * uet_ep_post_recv() and uet_ep_cancel_recv() but nothing else on the same
 * endpoint.
 *
 * Functions return 0 (or a length) on success and a negative UET_ERR_*
 * (uet/err.h) otherwise. A received packet that is dropped is always also
 * counted in struct uet_ep_stats.
 *
 * Memory: everything is allocated by uet_ep_create() from the config; no
 * call on the data path allocates. doc/architecture.md lists the bytes per
 * PDC and per message.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uet/cc.h"
#include "uet/err.h"
#include "uet/lb.h"
#include "uet/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Traffic classes of transmitted packets (mapped to DSCP by the frame
 * layer, see uet/frame.h). */
#define UET_TCLASS_DATA 0    /* first transmission of data: trimmable */
#define UET_TCLASS_RETX 1    /* retransmitted data: trimmable */
#define UET_TCLASS_CONTROL 2 /* ACK/NACK/probe/close: high priority */

/* Unit of the ACK_CC service_time field (time between the arrival of the
 * packet that triggered an ACK and the ACK's transmission). */
#define UET_SERVICE_TIME_UNIT_NS 16

struct uet_ep;

/*
 * How a sender finds losses that no NACK reports (doc/architecture.md,
 * "Loss detection").
 *
 * ADAPTIVE: RACK-style time-based detection with a reordering window that
 * adapts to proven spurious retransmissions, applied per path (a packet is
 * lost once a later packet on its own EV was delivered and the window has
 * passed) and, where the fabric is not known to trim, across paths; probes
 * for stalled flows; an RTO that tracks the RTT and is undone when it
 * proves spurious.
 * NACK_RTO: the UEC reference simulator's: trimmed packets are NACKed and
 * resent, everything else waits for a fixed retransmission timeout
 * (rto_ns, or rto_min_ns when 0); no reordering inference, no probes.
 */
enum uet_loss_detect {
	UET_LOSS_ADAPTIVE = 0,
	UET_LOSS_NACK_RTO = 1,
};

/* What the caller read from the IPv4/UDP headers of a received packet. */
struct uet_rx_meta {
	uint32_t src_ip;  /* host byte order */
	uint16_t ev;      /* UDP source port */
	bool ce;          /* IPv4 ECN field was CE */
	uint8_t trimmed;  /* 0 no, 1 trimmed in the fabric, 2 at the last hop */
};

enum uet_pkt_kind {
	UET_PKT_DATA = 0,
	UET_PKT_RETX,
	UET_PKT_ACK,
	UET_PKT_NACK,
	UET_PKT_PROBE,
	UET_PKT_CLOSE,
	UET_PKT_CREDIT,      /* receiver's grant (credit CCs) */
	UET_PKT_CREDIT_REQ,  /* sender's request */
};

/* Where and how to send the packet uet_ep_write_pkt() produced. */
struct uet_tx_meta {
	uint32_t dst_ip;
	uint16_t ev;           /* use as UDP source port */
	uint8_t tclass;        /* UET_TCLASS_* */
	bool ecn_capable;      /* send as ECT(0) */
	uint8_t kind;          /* enum uet_pkt_kind, for tracing */
	uint16_t hdr_len;      /* PDS + SES bytes at the start of buf */
	uint16_t payload_len;  /* data bytes after the headers */
	/* Data packets: which message bytes the payload holds. When the
	 * message was sent with buf == NULL the endpoint left the payload
	 * bytes untouched for the caller to fill. */
	bool payload_filled;
	void *msg_user;
	uint64_t msg_tag;
	uint32_t msg_offset;
	uint16_t pdc_id;
	uint32_t psn;
	/* With uet_ep_config.tx_sum, a data packet whose payload the endpoint
	 * copied from the message buffer carries the one's-complement sum
	 * (base/csum.h) of all hdr_len + payload_len bytes it wrote, taken as
	 * it copied: a UDP checksum in software then adds it instead of
	 * reading the payload again. sum_valid is false otherwise. */
	bool sum_valid;
	uint32_t sum;
};

/* A byte range of a message arrived for the first time. */
struct uet_rx_data {
	uint32_t src_ip;
	uint16_t pdc_id;
	uint16_t msg_id;
	uint64_t tag;           /* 0 when untagged */
	bool tagged;            /* UET_TAGGED_SEND (else UET_SEND) */
	uint32_t msg_len;
	uint32_t offset;
	const uint8_t *data;
	uint32_t len;
};

/* A message is complete at the receiver (every byte delivered once), or was
 * aborted (status != 0) because its PDC went away. */
struct uet_rx_msg {
	uint32_t src_ip;
	uint16_t pdc_id;
	uint16_t msg_id;
	uint64_t tag;           /* 0 when untagged */
	bool tagged;            /* UET_TAGGED_SEND (else UET_SEND) */
	uint32_t msg_len;
	uint64_t first_ns;
	uint64_t done_ns;
	int status;
};

/* A posted receive completed (uet_ep_post_recv). status: 0; or
 * UET_ERR_TRUNCATED, the message longer than the buffer (len bytes of it
 * placed); UET_ERR_CANCELED (uet_ep_cancel_recv); or the error of the PDC
 * that went away with the message half received. */
struct uet_recv_done {
	void *user;             /* the receive's */
	uint32_t src_ip;
	uint16_t pdc_id;
	uint16_t msg_id;
	bool tagged;            /* UET_TAGGED_SEND (else UET_SEND) */
	uint64_t tag;           /* the message's tag; 0 when untagged */
	uint32_t msg_len;       /* as sent */
	uint32_t len;           /* bytes placed in the buffer */
	bool has_data;          /* the sender's header data (HD) */
	uint64_t data;
	uint64_t done_ns;
	int status;
};

/* A sent message was acknowledged in full (status 0) or failed. */
struct uet_tx_done {
	void *user;
	uint32_t dst_ip;
	uint16_t pdc_id;
	uint16_t msg_id;
	uint64_t tag;
	uint32_t len;
	uint64_t submit_ns;
	uint64_t done_ns;
	uint32_t retx_pkts;
	int status;
};

enum uet_pdc_event_kind {
	UET_PDC_EV_OPEN = 0,     /* created (initiator) or accepted (target) */
	UET_PDC_EV_ESTABLISHED,  /* initiator got the target's PDC id */
	UET_PDC_EV_CLOSED,
	UET_PDC_EV_FAILED,       /* gave up; its messages failed with 'status' */
};

struct uet_pdc_event {
	enum uet_pdc_event_kind kind;
	uint16_t pdc_id;
	uint32_t peer_ip;
	bool initiator;
	int status;
};

struct uet_callbacks {
	void (*rx_data)(void *user, const struct uet_rx_data *d);
	void (*rx_msg)(void *user, const struct uet_rx_msg *m);
	void (*tx_done)(void *user, const struct uet_tx_done *d);
	void (*pdc_event)(void *user, const struct uet_pdc_event *e);
	/* With receive-side matching (uet_ep_config.max_posted_recvs): a
	 * posted receive completed; rx_data and rx_msg are then not called. */
	void (*recv_done)(void *user, const struct uet_recv_done *d);
	/* Optional: may a packet from ip open a target PDC here? false: it
	 * is dropped unanswered and counted (rx_foreign_addr) before any
	 * state is made, so that senders outside a run (another run on the
	 * same fabric, a stranger) cannot take PDCs or be counted as its
	 * traffic. Unset: every address may. */
	bool (*peer_ok)(void *user, uint32_t ip);
};

struct uet_ep_config {
	uint32_t local_ip;
	uint64_t seed;
	uint64_t start_nonce;     /* differs per start of a process (uet-perf
				   * draws it); mixed into PDC ids and start
				   * PSNs only, so that a process restarted with
				   * the same seed is a new peer to those who
				   * knew its predecessor, while every other
				   * draw still replays from seed; 0 in a
				   * simulation */

	/* Bounds (every pool is allocated at creation) */
	uint32_t max_pdcs;        /* initiator + target PDCs; default 256 */
	uint32_t max_tx_windows;  /* initiator PDCs with data in flight at once;
				   * 0 = max_pdcs */
	uint32_t max_rx_windows;  /* target PDCs holding out-of-order PSNs at
				   * once; 0 = max_pdcs */
	uint32_t window_psns;     /* send and receive PSN window, power of two,
				   * 64..16384; default 1024 */
	uint32_t mss_bytes;       /* data bytes per packet, 1..16383; default 4096 */
	uint32_t max_tx_msgs;     /* messages queued or in flight; default 4096 */
	uint32_t max_rx_msgs;     /* multi-packet messages in reassembly;
				   * default 1024 */
	uint32_t ctrl_queue_len;  /* pending ACK/NACK/probe items; default 4096 */

	/* Receiver ACK policy */
	uint32_t ack_every_bytes; /* coalesce: ACK once this many bytes arrived;
				   * 0 = ACK every packet; default 16384 */
	uint64_t ack_delay_ns;    /* longest an accepted packet waits for its
				   * ACK; default 5000 */
	bool ack_carry_evs;       /* a coalesced ACK carries the EVs of the
				   * unmarked packets it covers (REPS
				   * ACK+Carry; UET_ACK_CCF_EVS); default off */
	bool strict;              /* speak UET 1.0 only, for peers that are
				   * not libuet: no DUP flag in ACKs (a
				   * reserved bit; the peer's is ignored too),
				   * and ack_carry_evs and credit CCs (their
				   * EV trailer and CREDIT_REQ/CREDIT are
				   * libuet's) are refused. Spurious
				   * retransmissions are then seen only where
				   * an ACK's trigger, a PSN sent twice, does
				   * not echo RETX (the original arrived):
				   * spurious_retx is a lower bound */
	bool ack_sack_repeat;     /* an ACK's SACK window ends at its
				   * trigger (the UEC reference's rule) or
				   * else at the newest PSN received, where
				   * that still holds every PSN not yet
				   * reported, so each ACK repeats the news
				   * of the PSNs below it (RFC 2018's advice
				   * for TCP): a lost ACK costs no spurious
				   * resend; off: each PSN beyond the
				   * cumulative point is SACKed once;
				   * default off */
	bool ack_req_every_fill;  /* sender: every packet that fills the window
				   * asks for an ACK (AR), the UEC reference's
				   * rule (uet-htsim.md §2.2): a window-limited
				   * flow is then ACKed per packet, which hands
				   * REPS an EV per packet; off: one such
				   * request in flight at a time (fewer ACKs
				   * for a host's CPU); default off */

	/* Sender timing */
	uint64_t base_rtt_ns;     /* unloaded RTT; default 10000 */
	uint64_t link_bps;        /* line rate for CC/LB parameters; default 100e9 */
	uint64_t rto_ns;          /* fixed RTO; 0 = adaptive (srtt + 4 rttvar) */
	uint64_t rto_min_ns;      /* default 4 x base_rtt */
	uint64_t rto_max_ns;      /* cap of backoff; default 10 ms */
	bool rto_no_backoff;      /* an expiry does not double the timer:
				   * each waits rto again, as the UEC
				   * reference's per-packet timer; default
				   * off (doubles up to rto_max_ns) */
	uint32_t max_rto_retx;    /* recovery episodes (RTO expiries or probe
				   * loss declarations) in a row without
				   * progress before the PDC fails (expiries
				   * of packets sent before the last counted
				   * one are its episode); default 12
				   * (each resend takes a new EV: with a quarter
				   * of the paths dead, OPS loses one packet 6
				   * times in a row about once in 4000) */
	uint32_t max_nack_retx;   /* immediate resends of a PSN on trim NACKs;
				   * later trims wait for the RTO; default 5,
				   * at most 254 */
	uint32_t probe_rtts;      /* probe after this many smoothed RTTs (base
				   * RTTs before the first sample) without an
				   * ACK; 0 disables probes; default 3 */
	uint8_t loss_detect;      /* enum uet_loss_detect; default adaptive */
	uint64_t reorder_window_ns; /* adaptive loss detection: fixed reordering
				   * window; 0 = adaptive (below) */
	uint64_t reorder_seed_ns; /* adaptive loss detection: the least
				   * reordering window, what the fabric's
				   * queues can delay one path against another
				   * (its paths' queues full against empty);
				   * the endpoint raises the window above it to
				   * 1.25 x how late packets reported missing
				   * and then delivered were lately, and to
				   * 1.25 x what a loss proven spurious needed,
				   * for all its PDCs;
				   * 0 = 2 x base_rtt_ns (two fabric hops with
				   * one-BDP queues) */
	uint32_t ooo_min_pkts;    /* reordering-based loss detection runs only
				   * while the receiver reports at least this
				   * many PSNs held beyond a hole; default 3 */
	uint32_t failure_rtt_pct; /* a loss (RTO, OOO count or probe) whose
				   * recent max RTT (over ~2 RTOs) is below this
				   * percent of the base RTT is reported to the
				   * LB as a path failure; default 165 */
	bool assume_trimming;     /* treat every such loss as a path failure (a
				   * trimming fabric turns congestion into
				   * NACKs); otherwise on once a PDC sees a trim */
	uint64_t lb_idle_ns;      /* tell the LB when a PDC sends again after
				   * this long without sending; 0 = 4 base RTTs */

	/* PDC life cycle */
	uint64_t pdc_idle_close_ns;   /* initiator closes a PDC idle this long;
				       * 0 = never; default 0 */
	uint64_t pdc_quarantine_ns;   /* a closed target PDC rejects stale
				       * packets this long; default 10 ms */
	uint64_t pdc_target_idle_ns;  /* target drops a silent PDC (and its
				       * partial messages) after this; 0 = never;
				       * default 0 */
	bool psn_near_wrap;           /* a test of every peer's PSN arithmetic:
				       * each PDC starts within 16 PSNs below
				       * 2^32, so its PSNs wrap at once.
				       * Incarnations of a PDC are then no longer
				       * told apart by their PSNs: not with
				       * pdc_idle_close_ns; default off */

	/* Receive-side matching (uet_ep_post_recv), off by default: every
	 * message then goes to rx_data and rx_msg. With it, each message
	 * matches a posted receive (its opcode, tag under the ignore bits,
	 * source), in the order receives were posted, and lands in its
	 * buffer; one that matches none waits in a bounded unexpected queue
	 * until a receive takes it. */
	uint32_t max_posted_recvs; /* receives posted at once; 0 = no
				    * matching; default 0 */
	uint32_t max_unexp_msgs;  /* messages held that no receive took yet
				   * (or, in order, whose turn has not come);
				   * 0 = 64 */
	uint32_t unexp_msg_bytes; /* the longest message held unexpected; the
				   * packets of a longer one are refused
				   * (NO_SES_MSG_AVAIL: its sender retries on
				   * its timer) until a receive is posted for
				   * it; 0 = 65536. The queue's buffers,
				   * max_unexp_msgs x this, are allocated at
				   * creation */
	bool match_in_order;      /* MPI's rule: the messages of one PDC match
				   * in the order they were sent, whatever
				   * order their packets arrive in. Without
				   * it a later message can hold a receive
				   * while an earlier one of its PDC, that no
				   * receive or unexpected buffer can take,
				   * blocks it (doc/library.md) */

	/* I/O */
	bool tx_sum;              /* sum each data packet's bytes as the
				   * payload is copied in (uet_tx_meta.sum),
				   * for an I/O layer that computes UDP
				   * checksums in software; default off */

	/* SES fields stamped on every request */
	uint32_t job_id;          /* 24 bits; not 0: requests of other jobs
				   * are dropped (rx_foreign_job), as UET
				   * resolves a request's target within its
				   * job; 0: every job's accepted */
	uint32_t initiator_id;

	/* Load balancing and congestion control */
	const struct uet_lb_ops *lb;  /* default: OPS */
	const void *lb_cfg;
	uint16_t ev_base;             /* default 49152 */
	uint32_t ev_count;            /* default 256 */
	const struct uet_cc_ops *cc;  /* default: fixed */
	const void *cc_cfg;

	struct uet_callbacks cb;
	void *user;
};

void uet_ep_config_default(struct uet_ep_config *cfg);

/* Validate cfg and allocate everything. UET_ERR_INVAL names no key; use
 * uet_ep_config_check() for a message. */
int uet_ep_create(const struct uet_ep_config *cfg, struct uet_ep **out);
void uet_ep_destroy(struct uet_ep *ep);

/* 0, or UET_ERR_INVAL with a static description of the first bad field. */
int uet_ep_config_check(const struct uet_ep_config *cfg, const char **why);

struct uet_send_req {
	uint32_t dst_ip;
	uint16_t stream;        /* several PDCs to one peer: one per stream */
	const uint8_t *buf;     /* must stay valid until tx_done; NULL: the
				 * caller fills payloads at write time */
	uint32_t len;           /* bytes, 0 allowed */
	uint64_t tag;           /* delivered to the receiver (SES match bits) */
	void *user;             /* returned in tx_done */
	bool untagged;          /* send as UET_SEND, which has no match bits
				 * (tag is ignored, the receiver sees 0);
				 * default UET_TAGGED_SEND */
	bool has_data;          /* carry data as the SES header data of the
				 * first packet (flag HD): libfabric's
				 * remote CQ data, handed to the receiver's
				 * recv_done */
	uint64_t data;
};

/*
 * Queue a message. Returns 0, UET_ERR_NOBUFS (message or PDC pool full;
 * retry after a completion), UET_ERR_INVAL. The message travels on the
 * PDC for (dst_ip, stream), created on first use (0-RTT: SYN rides on the
 * first data packets).
 */
int uet_ep_send(struct uet_ep *ep, const struct uet_send_req *req, uint64_t now_ns);

/* A receive (with uet_ep_config.max_posted_recvs). */
struct uet_recv_req {
	void *buf;              /* where the message lands; must stay valid
				 * until recv_done */
	uint32_t len;           /* buffer bytes; a longer message is
				 * truncated (UET_ERR_TRUNCATED) */
	bool tagged;            /* take UET_TAGGED_SEND messages whose tag
				 * matches; false: UET_SEND messages */
	uint64_t tag, ignore;   /* tagged: matches when
				 * ((msg_tag ^ tag) & ~ignore) == 0 */
	uint32_t src_ip;        /* 0 = from any peer */
	void *user;             /* returned in recv_done */
	uint64_t claim;         /* nonzero: take the message claimed with
				 * this handle (uet_ep_claim); tagged, tag,
				 * ignore and src_ip are then not used */
};

/*
 * Post a receive. The oldest unexpected message it matches, if any, is
 * taken at once (recv_done may run inside this call when it had arrived
 * whole); with q->claim, the claimed message. *handle identifies it for
 * uet_ep_cancel_recv. Returns 0, UET_ERR_NOBUFS (max_posted_recvs
 * posted), UET_ERR_INVAL (no matching configured, a NULL buffer with
 * len > 0, or a claim handle that holds no claimed message).
 */
int uet_ep_post_recv(struct uet_ep *ep, const struct uet_recv_req *r, uint64_t *handle,
		     uint64_t now_ns);

/* What uet_ep_peek() found: a message no receive has taken yet. */
#define UET_PEEK_HEAD_BYTES 16
struct uet_peek {
	uint32_t src_ip;
	uint16_t pdc_id;
	uint16_t msg_id;
	bool tagged;
	uint64_t tag;
	uint32_t msg_len;
	bool has_data;          /* the sender's header data (HD) */
	uint64_t data;
	const uint8_t *bytes;   /* all msg_len bytes, when the message arrived
				 * whole and is held; else NULL. Valid until
				 * the next call on the endpoint */
	uint8_t head[UET_PEEK_HEAD_BYTES]; /* its first head_len bytes, as
				 * its first packet brought them (also of a
				 * message deferred without a buffer) */
	uint32_t head_len;
	uint64_t handle;        /* for uet_ep_claim(); valid as long as bytes */
};

/*
 * Peek: the message a receive q would take if it were posted now (q's
 * buffer, length, user and claim are not used), among those whose first
 * packet (SOM, with the header data) has arrived; nothing changes. Returns
 * 0 and fills *out, UET_ERR_NO_MSG, or UET_ERR_INVAL (no matching
 * configured). A message the receiver had no buffer for (deferred, under
 * match_in_order) is seen once its first packet has come.
 */
int uet_ep_peek(struct uet_ep *ep, const struct uet_recv_req *q, struct uet_peek *out);

/*
 * Claim the message uet_ep_peek() found (out->handle, before any other
 * call on the endpoint): no receive or peek takes it any more but a
 * receive posted with claim = handle. Returns 0 or UET_ERR_INVAL.
 */
int uet_ep_claim(struct uet_ep *ep, uint64_t handle);

/*
 * Cancel a posted receive that no message has matched yet: its recv_done
 * runs with UET_ERR_CANCELED. Returns 0, or UET_ERR_INVAL when the handle
 * is unknown or its receive already matched (it completes as it would).
 */
int uet_ep_cancel_recv(struct uet_ep *ep, uint64_t handle, uint64_t now_ns);

/*
 * Process one received UDP payload (PDS header onward). Returns 0 if the
 * packet was used, or a negative UET_ERR_* saying why it was dropped
 * (UET_ERR_DUPLICATE for a re-ACKed duplicate). Never crashes on any input.
 */
int uet_ep_read_pkt(struct uet_ep *ep, const struct uet_rx_meta *meta,
		    const uint8_t *pkt, size_t len, uint64_t now_ns);

/*
 * Write the next packet to send into buf (capacity cap; a data packet needs
 * UET_DATA_HDR_LEN + mss_bytes). Control packets go first, then
 * retransmissions, then new data round-robin over PDCs that their
 * congestion window allows. Returns the packet length, 0 when there is
 * nothing to send now, or UET_ERR_BUFSIZE.
 */
int uet_ep_write_pkt(struct uet_ep *ep, uint8_t *buf, size_t cap,
		     struct uet_tx_meta *meta, uint64_t now_ns);

/* false when uet_ep_write_pkt() would return 0 now (nothing in the control
 * queue, no PDC ready to send): lets an I/O loop skip the buffer it would
 * have handed over. true does not promise a packet. */
bool uet_ep_may_write(const struct uet_ep *ep);

/* Earliest time handle_timeout has work, UINT64_MAX if none. */
uint64_t uet_ep_next_deadline(const struct uet_ep *ep);

/* Run every timer due at now_ns. Returns the number of PDCs serviced. */
int uet_ep_handle_timeout(struct uet_ep *ep, uint64_t now_ns);

struct uet_ep_stats {
	/* transmitted */
	uint64_t tx_pkts;
	uint64_t tx_data_pkts;      /* first transmissions */
	uint64_t tx_data_bytes;     /* payload bytes of first transmissions */
	uint64_t tx_retx_pkts;
	uint64_t tx_ack_pkts;
	uint64_t tx_nack_pkts;
	uint64_t tx_probe_pkts;
	uint64_t tx_close_pkts;
	/* received and used */
	uint64_t rx_pkts;           /* every call to read_pkt */
	uint64_t rx_data_pkts;      /* accepted data packets */
	uint64_t rx_data_bytes;     /* accepted payload bytes */
	uint64_t rx_ooo_pkts;       /* accepted beyond a hole */
	uint64_t rx_ce_pkts;
	uint64_t rx_trimmed_pkts;
	uint64_t rx_ack_pkts;
	uint64_t rx_nack_pkts;
	uint64_t rx_probe_pkts;
	uint64_t rx_foreign_ev;     /* ACK/NACK whose EV is outside our EV set:
				     * processed, but not fed to the LB */
	/* received and dropped, by reason */
	uint64_t rx_dup_pkts;
	uint64_t rx_malformed;
	uint64_t rx_unsupported;
	uint64_t rx_unknown_pdc;
	uint64_t rx_psn_window;
	uint64_t rx_bad_ack;        /* ACK/SACK/NACK for PSNs never sent */
	uint64_t rx_stale;          /* older incarnation, stale NACK/ACK */
	uint64_t rx_no_resources;   /* no PDC slot, window or message slot */
	uint64_t rx_foreign_job;    /* requests of another job (cfg.job_id) */
	uint64_t rx_foreign_addr;   /* from an address cb.peer_ok refused */
	/* sender recovery */
	uint64_t nack_retx;         /* packets queued for retransmission by NACK */
	uint64_t nack_deferred;     /* trim NACKs past max_nack_retx: left to RTO */
	uint64_t loss_inferred;     /* by OOO count */
	uint64_t probe_losses;      /* by probe reply */
	uint64_t rto_events;        /* RTO expiries that declared losses */
	uint64_t rto_lost_pkts;
	uint64_t rto_deferred;      /* RTO expiries that ran late (the endpoint
				     * not polled meanwhile: its lcore
				     * descheduled or busy) and were put off */
	uint64_t spurious_retx;     /* retransmissions proven unnecessary: the
				     * receiver reported a copy of a PSN sent
				     * more than once as a duplicate */
	uint64_t spurious_losses;   /* losses declared (reordering, probe, RTO)
				     * and disproved before the resend left */
	uint64_t spurious_rto;      /* RTO expiries whose packet was delivered
				     * by its original copy: undone */
	uint64_t loss_undos;        /* congestion-window reductions taken back:
				     * every loss of the episode was spurious */
	uint64_t rtt_samples;
	/* messages and PDCs */
	uint64_t msgs_submitted;
	uint64_t msgs_acked;
	uint64_t msgs_failed;
	uint64_t msgs_delivered;
	uint64_t msgs_aborted;      /* partial messages dropped at the receiver */
	uint64_t pdcs_opened;
	uint64_t pdcs_closed;
	uint64_t pdcs_failed;
	uint64_t timewait_evictions; /* time-wait records out of quarantine taken
				     * for a new PDC before their timer reaped
				     * them */
	uint64_t path_failures;     /* losses (RTO, OOO count, probe) the
				     * transport classified as path failures
				     * (uet_lb_feedback FAILURE) */
	uint64_t lb_freezes;        /* LB entered a failure mode (REPS freezing) */
	uint64_t lb_thaws;
	uint64_t lb_repaths;        /* ECMP-like LBs moved a flow */
	uint64_t ctrl_queue_drops;
	uint64_t tx_window_waits;   /* PDC waited for a free send window */
	/* receiver-driven credit (cc eqds) */
	uint64_t tx_credit_pkts;    /* CREDITs our pull pacer sent */
	uint64_t tx_credit_req_pkts;
	uint64_t rx_credit_pkts;
	uint64_t rx_credit_req_pkts;
	uint64_t credit_granted_bytes; /* granted by our pull pacer */
	uint64_t credit_retries;    /* requests repeated by a blocked sender */
	uint64_t credit_idle_bytes; /* of credit_granted_bytes, granted ahead
				     * to idle senders ("slow pulls") */
	/* libuet's wire extensions, as this endpoint sent them (doc/wire.md;
	 * none under strict): ACKs with the DUP flag, ACKs with an EV
	 * trailer (ack_carry_evs); credit CCs count tx_credit_* above. */
	uint64_t tx_dup_acks;
	uint64_t tx_carry_acks;
};

const struct uet_ep_stats *uet_ep_stats(const struct uet_ep *ep);

struct uet_pdc_info {
	uint16_t pdc_id;
	uint16_t peer_pdc_id;
	uint32_t peer_ip;
	bool initiator;
	uint8_t state;           /* 1 SYN, 2 established, 3 closing, 4 time-wait */
	uint16_t stream;
	/* initiator */
	uint32_t snd_una, snd_nxt;
	uint32_t inflight_bytes;
	uint32_t cwnd_bytes;
	uint64_t srtt_ns, min_rtt_ns, rto_ns;
	uint32_t queued_msgs;
	uint32_t rtx_queued;
	bool in_recovery;
	bool lb_frozen;
	/* target */
	uint32_t cack;           /* next PSN expected (the ACKs' CACK_PSN + 1) */
	uint32_t ooo_count;
	uint64_t rcvd_bytes;
};

/* Fill info for the PDC in slot *cursor or later; advances *cursor.
 * Returns false when there are no more PDCs. Start with *cursor = 0. */
bool uet_ep_pdc_iter(const struct uet_ep *ep, uint32_t *cursor,
		     struct uet_pdc_info *info);

/* PDCs of either role currently held, time-wait records included. */
uint32_t uet_ep_pdc_count(const struct uet_ep *ep);

/* The job id (24 bits) stamped on requests from now on and required of
 * those that arrive (uet_ep_config.job_id), for a job agreed after the
 * endpoint was made (before its traffic). 0 or UET_ERR_INVAL. */
int uet_ep_set_job_id(struct uet_ep *ep, uint32_t job_id);

/* true when nothing is queued, in flight, in reassembly or pending. */
bool uet_ep_idle(const struct uet_ep *ep);
/* PDCs this endpoint opened (as initiator) and still holds: open, or
 * closing until the peer acknowledges the CLOSE. */
uint32_t uet_ep_open_initiators(const struct uet_ep *ep);

/* Bytes one PDC costs, and the whole endpoint, for a given config. */
size_t uet_ep_pdc_bytes(const struct uet_ep_config *cfg);
size_t uet_ep_mem_bytes(const struct uet_ep_config *cfg);

#ifdef __cplusplus
}
#endif

#endif /* UET_UET_H_ */
