/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_LB_H_
#define UET_LB_H_

/*
 * Load-balancer contract. A load balancer chooses the entropy value (EV,
 * the UDP source port) of every packet a PDC sends, retransmissions and
 * probes included, and learns from per-EV feedback. It is a const ops table;
 * its per-PDC state lives inline in the PDC (at most UET_LB_STATE_MAX bytes,
 * checked at compile time by each algorithm). It sees samples, never the PDC.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uet/prng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UET_LB_STATE_MAX 192

struct uet_lb_params {
	uint16_t ev_base;      /* lowest EV */
	uint32_t ev_count;     /* EVs are ev_base .. ev_base + ev_count - 1 */
	uint32_t mss_bytes;    /* a full packet, headers included */
	uint64_t base_rtt_ns;  /* configured unloaded RTT */
	uint64_t link_bps;
	const void *cfg;       /* algorithm's typed config, NULL = its defaults */
};

enum uet_lb_fb_kind {
	UET_LB_FB_ACK = 0,      /* a data packet (or probe) sent on ev arrived */
	UET_LB_FB_NACK,         /* trimmed in the fabric (not at the last hop) */
	UET_LB_FB_NACK_LASTHOP, /* trimmed at the destination's last hop */
	UET_LB_FB_LOSS,         /* inferred lost (OOO count or probe) */
	UET_LB_FB_TIMEOUT,      /* declared lost by the retransmission timer */
	UET_LB_FB_FAILURE,      /* the transport suspects a failed path: an RTO
				 * while recent RTTs were low, or any RTO when
				 * the fabric trims (no ev) */
	UET_LB_FB_IDLE,         /* the PDC sends again after idle_ns without
				 * sending: cached path state is stale (no ev) */
	UET_LB_FB_CARRIED,      /* an unmarked packet sent on ev arrived; its
				 * EV came carried in a coalesced ACK
				 * (ack_carry_evs), after that ACK's own ACK
				 * feedback. Only REPS uses it. */
};

/* What the load balancer did; returned by feedback and next_ev, counted by
 * the endpoint (uet_ep_stats.lb_*). */
#define UET_LB_EV_FREEZE 0x1 /* entered a failure mode (REPS freezing) */
#define UET_LB_EV_THAW 0x2   /* left it */
#define UET_LB_EV_REPATH 0x4 /* moved the flow to a new EV (ECMP-like LBs) */

struct uet_lb_feedback {
	uint64_t now_ns;
	enum uet_lb_fb_kind kind;
	uint16_t ev;
	bool ce;               /* ACK: the acked packet was CE marked */
	bool retx;             /* the packet was a retransmission */
	uint64_t rtt_ns;       /* valid RTT sample, 0 if none */
	uint64_t idle_ns;      /* IDLE: how long the PDC did not send */
	uint32_t cwnd_bytes;
	uint32_t inflight_bytes; /* after this feedback's ACK or loss is counted */
	uint64_t rto_ns;       /* current retransmission timeout */
	uint64_t base_rtt_ns;  /* lowest RTT measured (config value until then) */
	const struct uet_lb_params *p;
};

struct uet_lb_send_ctx {
	uint64_t now_ns;
	bool retx;             /* choosing the EV of a retransmission */
	bool probe;            /* choosing the EV of a probe */
	uint32_t cwnd_bytes;
	uint32_t inflight_bytes;
	uint64_t rto_ns;
	uint64_t base_rtt_ns;
	struct uet_prng *rng;  /* the endpoint's seeded PRNG */
	const struct uet_lb_params *p;
	uint32_t events;       /* out: UET_LB_EV_* */
};

struct uet_lb_ops {
	const char *name;
	size_t state_size;
	/* 0 or a negative UET_ERR_* (bad cfg). */
	int (*init)(void *st, const struct uet_lb_params *p, struct uet_prng *rng);
	uint16_t (*next_ev)(void *st, struct uet_lb_send_ctx *c);
	/* Returns UET_LB_EV_* flags. */
	uint32_t (*feedback)(void *st, const struct uet_lb_feedback *fb);
	/* Optional: true while in a failure mode (REPS freezing). */
	bool (*frozen)(const void *st);
};

/* Uniform EV from the configured set. */
static inline uint16_t
uet_lb_random_ev(const struct uet_lb_params *p, struct uet_prng *rng)
{
	return (uint16_t)(p->ev_base + uet_prng_below(rng, p->ev_count));
}

/* Registry: the algorithms built in, looked up by name ("ops", ...). */
const struct uet_lb_ops *uet_lb_find(const char *name);
/* NULL-terminated list of all registered load balancers. */
const struct uet_lb_ops *const *uet_lb_all(void);

/*
 * The algorithms. Each has a typed config (NULL = the defaults in its
 * comment); doc/algorithms.md gives the rules and the sources.
 */

/* ecmp: one EV per PDC for its life (RoCEv2-like). No config. */
extern const struct uet_lb_ops uet_lb_ecmp;

/* OPS (oblivious packet spraying). */
struct uet_lb_ops_cfg {
	/* false: uniform random EV per packet. true: a random permutation of
	 * the EV set per round, so every EV is used once per ev_count packets
	 * (the UEC htsim "oblivious" mode). */
	bool permute;
};
extern const struct uet_lb_ops uet_lb_ops_spray;
/* ar: OPS at the host for a fabric whose switches route adaptively (the
 * simulator's adaptive routing; see ops.c). Config: uet_lb_ops_cfg. */
extern const struct uet_lb_ops uet_lb_ar;

/* bitmap: the UET/STrack-style penalty walk over a permuted EV sequence. */
struct uet_lb_bitmap_cfg {
	uint16_t evs;             /* EVs with a penalty counter, a power of two
				   * <= 256; 0 = the largest that fits ev_count */
	uint8_t ecn_penalty;      /* 1 */
	uint8_t nack_penalty;     /* 4 */
	uint8_t timeout_penalty;  /* 15 (also for inferred losses) */
	uint8_t max_penalty;      /* 15 */
	uint8_t stop_skip_pct;    /* stop skipping while more than this percent
				   * of the EVs carry a penalty (each use still
				   * costs an EV a point of it); 75 */
};
extern const struct uet_lb_ops uet_lb_bitmap;

/* reps: Recycled Entropy Packet Spraying (Bonato et al., EuroSys'26). */
enum uet_reps_explore {
	/* After freezing, one cwnd of packets in which every 8th takes a
	 * random EV and the rest use the cache (the paper's text). */
	UET_REPS_EXPLORE_PAPER = 0,
	/* After freezing, clear the cache and take random EVs for one cwnd
	 * of packets (the paper's artifact). */
	UET_REPS_EXPLORE_RESET = 1,
};
struct uet_lb_reps_cfg {
	bool no_freezing;         /* freezing is on unless set */
	uint64_t freeze_ns;       /* FREEZING_TIMEOUT; 0 = 1 ms */
	uint8_t explore;          /* enum uet_reps_explore */
	uint8_t reuse;            /* ACK+Reuse variant: each cached EV serves this
				   * many packets (1..15); 0 or 1 = standard */
	uint64_t idle_ns;         /* forget the cache after this long without
				   * sending; 0 = never (the paper's) */
	/* Forced freezing (the paper's App. A): once the clock passes this
	 * time, a PDC freezes once as if a failure had been seen; 0 = never. */
	uint64_t force_freeze_at_ns;
};
extern const struct uet_lb_ops uet_lb_reps;

/* mprdma: MPRDMA's ACK-clocked path choice (Lu et al., NSDI'18, as the REPS
 * artifact runs it): an ACK after which the window lets a packet out hands
 * its EV to the next send; otherwise, and at start, a random EV. No config. */
extern const struct uet_lb_ops uet_lb_mprdma;

/* mptcp: the REPS paper's MPTCP-like baseline: the PDC's packets round-robin
 * over a few static EVs (subflows) drawn at start, with one CC. */
struct uet_lb_mptcp_cfg {
	uint8_t subflows;         /* 1..64; 0 = 8 */
};
extern const struct uet_lb_ops uet_lb_mptcp;

/* flowlet: LetFlow at the host: a new random EV when the gap since the
 * PDC's previous packet exceeds gap_ns. */
struct uet_lb_flowlet_cfg {
	uint64_t gap_ns;          /* 0 = half the base RTT */
	/* The REPS artifact's flowlets: the gap runs from the last ACK, not
	 * the last send, and a PDC repaths at most once per RTO. */
	bool ack_clock;
};
extern const struct uet_lb_ops uet_lb_flowlet;

/* plb: Protective Load Balancing (Qureshi et al., SIGCOMM'22). */
struct uet_lb_plb_cfg {
	uint8_t ce_pct;           /* a round is congested if more than this
				   * percent of its ACKed packets carry CE; 50 */
	uint8_t rounds;           /* repath after this many congested rounds in
				   * a row; 3 */
	bool no_rto_repath;       /* repath on a timeout unless set */
};
extern const struct uet_lb_ops uet_lb_plb;

/* strack: STrack's adaptive spraying (Le et al.): an ECN bitmap over the EVs,
 * the EV of a clean ACK reused at once, round robin over
 * clamp(2 x cwnd, 8, max_paths) EVs skipping marked ones. */
struct uet_lb_strack_cfg {
	uint16_t max_paths;       /* 256 (at most 256) */
};
extern const struct uet_lb_ops uet_lb_strack;

#ifdef __cplusplus
}
#endif

#endif /* UET_LB_H_ */
