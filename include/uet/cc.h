/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CC_H_
#define UET_CC_H_

/*
 * Congestion-control contract: a const ops table with per-PDC state inline
 * in the PDC (at most UET_CC_STATE_MAX bytes). It turns ACK and loss samples
 * into a congestion window in bytes; the PDC never sends a packet that would
 * put more than cwnd bytes in flight (but always allows one packet).
 * Bytes are PDS wire bytes: headers plus payload.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UET_CC_STATE_MAX 192

struct uet_cc_params {
	uint32_t mss_bytes;    /* largest packet the PDC sends, headers included */
	uint64_t base_rtt_ns;  /* configured unloaded RTT */
	uint64_t link_bps;     /* sender's line rate */
	const void *cfg;       /* algorithm's typed config, NULL = defaults */
};

struct uet_cc_ack {
	uint64_t now_ns;
	uint32_t acked_bytes;  /* newly acknowledged by this ACK */
	uint64_t rtt_ns;       /* valid sample (retransmissions excluded), or 0 */
	uint64_t min_rtt_ns;   /* lowest RTT seen on the PDC, or the config value */
	bool ce;               /* the ACK echoes a CE mark */
	uint32_t inflight_bytes;
	uint16_t ev;
};

enum uet_cc_loss_kind {
	UET_CC_LOSS_TRIM = 0,      /* NACK: trimmed in the fabric */
	UET_CC_LOSS_TRIM_LASTHOP,  /* NACK: trimmed at the last hop (incast) */
	UET_CC_LOSS_INFERRED,      /* OOO-count or probe loss detection */
	UET_CC_LOSS_TIMEOUT,       /* retransmission timer */
};

struct uet_cc_loss {
	uint64_t now_ns;
	enum uet_cc_loss_kind kind;
	uint32_t lost_bytes;
	uint32_t inflight_bytes;
	/* TRIM: the NACK's round trip when unambiguous (the copy it answers
	 * was sent once, or resent once and echoed RETX), else 0. */
	uint64_t rtt_ns;
	/* INFERRED or TIMEOUT opening a loss episode the transport may later
	 * prove spurious: the window now is what undo() restores. */
	bool episode_start;
};

struct uet_cc_ops {
	const char *name;
	size_t state_size;
	int (*init)(void *st, const struct uet_cc_params *p);
	void (*on_ack)(void *st, const struct uet_cc_ack *a);
	void (*on_loss)(void *st, const struct uet_cc_loss *l);
	uint32_t (*cwnd)(const void *st);
	/* Optional: every loss of the episode opened by the last
	 * episode_start proved spurious (the original copies arrived): take
	 * back the reductions, cwnd = max(cwnd, the window saved then). */
	void (*undo)(void *st, uint64_t now_ns);

	/*
	 * Optional, all or none: a receiver-driven (credit) CC. The sender
	 * puts on the wire only what its receiver granted plus a speculative
	 * first window; the window (cwnd) still caps what is in flight.
	 * Counters are wire bytes of data packets (originals and resends).
	 */
	/* bytes newly queued for transmission: a message, or a resend */
	void (*on_queued)(void *st, uint64_t bytes);
	/* may a packet of this size go now? */
	bool (*may_send)(const void *st, uint32_t bytes);
	void (*on_sent)(void *st, uint32_t bytes);
	/* a CREDIT arrived: the receiver's cumulative grant, mod 2^32 */
	void (*on_credit)(void *st, uint32_t granted_total, uint64_t now_ns);
	/* the cumulative grant the sender needs, mod 2^32 (CREDIT_REQ): at
	 * most UET_CREDIT_AHEAD_MAX beyond what was granted, so that a need
	 * of 2^31 bytes or more (a large message) is asked for in steps that
	 * serial-number order can tell apart */
	uint32_t (*credit_need)(const void *st);
	/* Optional, credit CCs only: what a receiver configured with this CC
	 * grants ahead, when its pull pacer has no need to serve, to a sender
	 * that asked before and is now idle (the reference's "slow pulls"),
	 * so that the sender's next message goes without a round trip for
	 * credit, as its first did on its speculative window; 0 = nothing. */
	uint32_t (*idle_credit)(const struct uet_cc_params *p);
};

/* The most a credit CC asks for beyond its grant (credit_need); a
 * receiver drops a need 2^31 or more beyond its grant. */
#define UET_CREDIT_AHEAD_MAX (1u << 30)

const struct uet_cc_ops *uet_cc_find(const char *name);
const struct uet_cc_ops *const *uet_cc_all(void);

/* fixed: a constant window. */
struct uet_cc_fixed_cfg {
	/* Window in bytes; 0 = 1.5 x BDP (link_bps x base_rtt), at least
	 * 4 packets. */
	uint32_t cwnd_bytes;
};
extern const struct uet_cc_ops uet_cc_fixed;

/* nscc: UET's Network Signal-based CC as the UEC htsim implements it:
 * ECN x delay quadrants, quick adapt, fulfil adjustment. */
struct uet_cc_nscc_cfg {
	uint64_t target_qdelay_ns; /* 0 = base RTT (x 0.75 with trimming) */
	uint32_t max_cwnd_bytes;   /* 0 = 1.5 x BDP */
	uint32_t init_cwnd_bytes;  /* 0 = max_cwnd_bytes (line rate start) */
	uint8_t qa_gate;           /* quick adapt only below max >> qa_gate; 3 */
	bool trimming;             /* the fabric trims: lower delay target */
	/* Keep the max window where it starts: htsim lowers it to 1.5 x link
	 * x the smallest RTT sampled (NACK round trips included, by its
	 * default), which on hosts is a lucky sample of a few µs while host
	 * delays (polling, batching) make most RTTs larger and cap the flow
	 * far below line rate. A max_cwnd_bytes set here is always kept; NACK
	 * round trips lower the base RTT only without this flag. */
	bool fixed_max_cwnd;
};
extern const struct uet_cc_ops uet_cc_nscc;

/* dctcp: DCTCP (RFC 8257) per window: alpha <- (1 - g) alpha + g F once per
 * window of ACKed bytes; the first CE mark of a window cuts cwnd by
 * alpha / 2, a loss halves it, each at most once per window; a clean ACK
 * adds MSS x acked / cwnd. */
struct uet_cc_dctcp_cfg {
	uint8_t g_shift;           /* g = 1 / 2^g_shift; 4 (dctcp only) */
	uint32_t max_cwnd_bytes;   /* 0 = 1.5 x BDP */
	uint32_t init_cwnd_bytes;  /* 0 = max_cwnd_bytes */
	/* dctcp-mprdma only: from this time on (the CC's now_ns), the REPS
	 * artifact's fast increase as well (its -enable_fi; its micro failure
	 * benchmark switches it on at 650 us): once a window of clean ACKs has
	 * seen under 1 us of queueing, each adds half the bytes it acknowledges
	 * until one sees more. 0 = never. */
	uint64_t fast_increase_at_ns;
};
extern const struct uet_cc_ops uet_cc_dctcp;

/* dctcp-mprdma: the DCTCP variant of MPRDMA that the REPS paper runs every
 * load balancer under: per ACK +MSS x acked / cwnd clean, -acked / 4 on CE,
 * -lost bytes per loss; no alpha. Config: struct uet_cc_dctcp_cfg (its
 * windows and fast_increase_at_ns; g_shift unused). */
extern const struct uet_cc_ops uet_cc_dctcp_mprdma;

/* The max and initial window of both DCTCPs from their config. */
int uet_cc_dctcp_window(const struct uet_cc_params *p, double *maxwnd, double *cwnd);

/* strack: STrack's RTT + ECN window (Table 1 and Algorithm 4 of the paper,
 * with its inconsistencies settled as doc/algorithms.md says). */
struct uet_cc_strack_cfg {
	uint64_t target_qdelay_ns; /* 0 = base RTT */
	uint32_t max_cwnd_bytes;   /* 0 = 1.5 x BDP */
	uint32_t init_cwnd_bytes;  /* 0 = max_cwnd_bytes */
};
extern const struct uet_cc_ops uet_cc_strack;

/* eqds: EQDS-style receiver-driven credit (the UEC reference simulator's
 * RCCC, uet-htsim.md §5.6): a speculative first window at line rate, then
 * only what the receiver's pull pacer grants (CREDIT control packets, paced
 * at 0.99 x its line rate, round robin over its senders). The speculative
 * credit left unused at the first ACK, NACK or CREDIT is dropped. No
 * reaction to ECN or delay: the pacer keeps the last hop clean, and
 * trimming turns first-window collisions into NACKed resends, which need
 * credit like any data. */
struct uet_cc_eqds_cfg {
	uint32_t spec_bytes;       /* speculative credit; 0 = the max window */
	uint32_t max_cwnd_bytes;   /* in-flight cap; 0 = 1.5 x BDP */
	/* As a receiver, grant an idle sender no credit ahead: its next
	 * message asks and waits a round trip (idle_credit 0). By default it
	 * grants up to the speculative credit, as the reference does. */
	bool no_slow_pulls;
};
extern const struct uet_cc_ops uet_cc_eqds;

#ifdef __cplusplus
}
#endif

#endif /* UET_CC_H_ */
