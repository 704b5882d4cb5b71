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

struct uet_prng;

#define UET_LB_STATE_MAX 192

struct uet_lb_params {
	uint16_t ev_base;      /* lowest EV */
	uint32_t ev_count;     /* EVs are ev_base .. ev_base + ev_count - 1 */
	uint32_t mss_bytes;
	uint64_t base_rtt_ns;
	uint64_t link_bps;
	const void *cfg;       /* algorithm's typed config, NULL = its defaults */
};

enum uet_lb_fb_kind {
	UET_LB_FB_ACK = 0,      /* a data packet (or probe) sent on ev arrived */
	UET_LB_FB_NACK,         /* trimmed in the fabric (not at the last hop) */
	UET_LB_FB_NACK_LASTHOP, /* trimmed at the destination's last hop */
	UET_LB_FB_LOSS,         /* inferred lost (OOO count or probe) */
	UET_LB_FB_TIMEOUT,      /* declared lost by the retransmission timer */
};

struct uet_lb_feedback {
	uint64_t now_ns;
	enum uet_lb_fb_kind kind;
	uint16_t ev;
	bool ce;               /* ACK: the acked packet was CE marked */
	bool retx;             /* the packet was a retransmission */
	uint64_t rtt_ns;       /* valid RTT sample, 0 if none */
	uint32_t cwnd_bytes;
};

struct uet_lb_send_ctx {
	uint64_t now_ns;
	bool retx;             /* choosing the EV of a retransmission */
	bool probe;            /* choosing the EV of a probe */
	uint32_t cwnd_bytes;
	uint32_t inflight_bytes;
	uint32_t mss_bytes;
	struct uet_prng *rng;  /* the endpoint's seeded PRNG */
};

struct uet_lb_ops {
	const char *name;
	size_t state_size;
	/* 0 or a negative UET_ERR_* (bad cfg). */
	int (*init)(void *st, const struct uet_lb_params *p, struct uet_prng *rng);
	uint16_t (*next_ev)(void *st, const struct uet_lb_send_ctx *c);
	void (*feedback)(void *st, const struct uet_lb_feedback *fb);
};

/* Registry: the algorithms built in, looked up by name ("ops", ...). */
const struct uet_lb_ops *uet_lb_find(const char *name);
/* NULL-terminated list of all registered load balancers. */
const struct uet_lb_ops *const *uet_lb_all(void);

/* OPS (oblivious packet spraying). */
struct uet_lb_ops_cfg {
	/* false: uniform random EV per packet. true: a random permutation of
	 * the EV set per round, so every EV is used once per ev_count packets
	 * (the UEC htsim "oblivious" mode). */
	bool permute;
};
extern const struct uet_lb_ops uet_lb_ops_spray;

#endif /* UET_LB_H_ */
