/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SIM_SIM_H_
#define UET_SIM_SIM_H_

/*
 * The one network model of libuet: a deterministic discrete-event simulator
 * of hosts and switches joined by links. Tests and uet-sim run the
 * unmodified lib/core endpoint on it.
 *
 * - Events are ordered by time, then by insertion sequence; time is in
 *   picoseconds (so 400 Gb/s serialization is exact); the endpoint sees ns.
 * - A link is a pair of ports; each port serializes at its rate, adds its
 *   latency, and owns an egress queue with two classes (control/trimmed
 *   headers first, then data), a byte limit, ECN marking between Kmin and
 *   Kmax (RED, on dequeue), and tail drop or packet trimming.
 * - Faults on a port's egress: random loss, duplication, corruption (bit
 *   flips in one byte, at most once per packet, which the IPv4/UDP checksums
 *   then always catch), extra random delay (jitter, so reordering),
 *   blackhole, link down.
 * - Switches hash the 5-tuple (so the EV, the UDP source port) with a
 *   per-switch seed over equal-cost ports.
 * - Frames are real Ethernet/IPv4/UDP (lib/net), so captures open in
 *   Wireshark and the host path checks checksums like a NIC.
 * Randomness comes from the seed in sim_config only.
 */

#include <stdbool.h>
#include <stdint.h>

#include "net/frame.h"
#include "uet/uet.h"

struct sim;
struct sim_port;
struct uet_pcap;

typedef void (*sim_fn)(struct sim *s, void *a, uint64_t b);

struct sim_config {
	uint64_t seed;
	uint32_t mtu_bytes;  /* largest frame (Ethernet header included); 0 = 9216 */
	struct uet_dscp_map dscp;
};

void sim_config_default(struct sim_config *c);
struct sim *sim_create(const struct sim_config *c);
void sim_destroy(struct sim *s);

/* --- engine --- */
uint64_t sim_now_ps(const struct sim *s);
static inline uint64_t
sim_ps(uint64_t ns)
{
	return ns * 1000;
}
uint64_t sim_now_ns(const struct sim *s);
/* Run fn(s, a, b) at time t_ps (>= now). */
void sim_at(struct sim *s, uint64_t t_ps, sim_fn fn, void *a, uint64_t b);
/* Run events up to and including t_ps; afterwards now == t_ps. Returns the
 * number of events run. */
uint64_t sim_run_until(struct sim *s, uint64_t t_ps);
/* Run events up to t_ps, or until none is left; unlike sim_run_until the
 * clock stays at the last event run. Returns true if the queue drained. */
bool sim_run_drain(struct sim *s, uint64_t t_ps);
uint64_t sim_events_run(const struct sim *s);
uint64_t sim_events_pending(const struct sim *s);

/* --- topology --- */
struct sim_link_cfg {
	uint64_t rate_bps;
	uint64_t lat_ns;
	uint64_t buf_bytes;       /* data-class limit per egress port */
	uint64_t ecn_kmin_bytes;  /* 0 with kmax 0: no marking */
	uint64_t ecn_kmax_bytes;
	bool trim;                /* trim instead of dropping data on overflow */
};

struct sim_leafspine_cfg {
	uint32_t leaves;
	uint32_t spines;
	uint32_t hosts_per_leaf;
	struct sim_link_cfg host_link;   /* host <-> leaf */
	struct sim_link_cfg fabric_link; /* leaf <-> spine */
	uint64_t switch_lat_ns;          /* added when entering a switch */
};

/* Build a two-tier leaf-spine; host i sits under leaf i / hosts_per_leaf.
 * With 2 leaves and k spines it is a k-path fabric between the two sides. */
int sim_build_leaf_spine(struct sim *s, const struct sim_leafspine_cfg *c);

uint32_t sim_num_hosts(const struct sim *s);
uint32_t sim_host_ip(const struct sim *s, uint32_t host);
/* Host index of an address, or UINT32_MAX. */
uint32_t sim_host_of_ip(const struct sim *s, uint32_t ip);
/* The egress port of leaf 'leaf' toward spine 'spine', and back. */
struct sim_port *sim_leaf_up(struct sim *s, uint32_t leaf, uint32_t spine);
struct sim_port *sim_spine_down(struct sim *s, uint32_t spine, uint32_t leaf);
/* Host NIC egress and the leaf port that feeds the host. */
struct sim_port *sim_host_port(struct sim *s, uint32_t host);
struct sim_port *sim_host_ingress(struct sim *s, uint32_t host);
/* Iterate all ports: index 0 .. sim_num_ports - 1. */
uint32_t sim_num_ports(const struct sim *s);
struct sim_port *sim_port_at(struct sim *s, uint32_t i);
bool sim_port_is_fabric(const struct sim_port *p); /* switch-to-switch */

/* --- hosts --- */
/* Create the host's endpoint from cfg (local_ip is filled in). */
int sim_host_attach(struct sim *s, uint32_t host, const struct uet_ep_config *cfg);
struct uet_ep *sim_host_ep(struct sim *s, uint32_t host);
/* Tell the host its endpoint has new work (after uet_ep_send). */
void sim_host_kick(struct sim *s, uint32_t host);
/* Fill the payload of messages sent with buf == NULL. */
typedef void (*sim_fill_fn)(void *ctx, const struct uet_tx_meta *m, uint8_t *payload);
void sim_set_fill(struct sim *s, sim_fill_fn fn, void *ctx);
/* Record every frame the host sends or receives (before the checksum test). */
void sim_host_capture(struct sim *s, uint32_t host, struct uet_pcap *pc);

struct sim_host_stats {
	uint64_t tx_frames, rx_frames;
	uint64_t rx_csum_drops;   /* checksum failed: corrupted in flight */
	uint64_t rx_other_drops;  /* not for us / not UET */
	uint64_t rx_ep_drops;     /* the endpoint refused it (any reason) */
};
const struct sim_host_stats *sim_host_stats(const struct sim *s, uint32_t host);

/* --- faults --- */
struct sim_fault {
	uint32_t loss_ppm;
	uint32_t dup_ppm;
	uint32_t corrupt_ppm;
	uint32_t ce_ppm;      /* CE-mark ECN-capable data packets (a path that
			       * is congested elsewhere) */
	uint64_t jitter_ns;   /* extra delay, uniform in [0, jitter_ns] */
	bool blackhole;       /* drop everything sent (a dead path) */
};

void sim_port_set_fault(struct sim_port *p, const struct sim_fault *f);
void sim_port_set_up(struct sim_port *p, bool up);
void sim_port_set_rate(struct sim_port *p, uint64_t rate_bps);
/* RED marking between kmin and kmax bytes of data queued (0, 0: off). */
void sim_port_set_ecn(struct sim_port *p, uint64_t kmin_bytes, uint64_t kmax_bytes);
void sim_port_set_trim(struct sim_port *p, bool trim);
void sim_port_set_buffer(struct sim_port *p, uint64_t buf_bytes);

struct sim_port_stats {
	uint64_t tx_pkts, tx_bytes;
	uint64_t ecn_marks;
	uint64_t trims;
	uint64_t drops_queue;     /* tail drop (data or control class full) */
	uint64_t drops_fault;     /* random loss */
	uint64_t drops_down;      /* blackholed or link down */
	uint64_t dups, corrupts;
	uint64_t max_queue_bytes;
	uint64_t last_tx_ns;      /* when the last packet left (or was
				   * blackholed) */
};
const struct sim_port_stats *sim_port_stats(const struct sim_port *p);
uint64_t sim_port_queue_bytes(const struct sim_port *p);

/* Sums over all ports. */
void sim_total_stats(const struct sim *s, struct sim_port_stats *out);
/* Frames dropped by switches (bad IPv4 checksum, no route). */
uint64_t sim_switch_drops(const struct sim *s);

#endif /* UET_SIM_SIM_H_ */
