/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SIM_SIM_H_
#define UET_SIM_SIM_H_

/*
 * The one network model of libuet: a deterministic discrete-event simulator
 * of hosts and switches joined by links. Tests and uet-sim run the
 * unmodified lib/core endpoint on it. doc/sim.md describes the model, its
 * defaults, failure semantics and memory bounds.
 *
 * - Events are ordered by time, then by insertion sequence; time is in
 *   picoseconds (so 400 Gb/s serialization is exact); the endpoint sees ns.
 * - A link is a pair of ports; each port serializes at its rate, adds its
 *   latency, and owns an egress queue with two classes (control/trimmed
 *   headers first, then data), a byte limit, ECN marking between Kmin and
 *   Kmax (RED, on dequeue), and tail drop or packet trimming.
 * - Faults on a port's egress: random loss, bit errors, duplication,
 *   corruption (bit flips in one byte, at most once per packet, which the
 *   IPv4/UDP checksums then always catch), extra random delay (jitter, so
 *   reordering), blackhole, link down.
 * - Topologies: leaf-spine, and 2- or 3-tier fat trees with
 *   oversubscription at the ToR. Switches route up-down (valley-free)
 *   shortest paths: ECMP over all equal-cost ports up, one port down, with
 *   the 5-tuple (so the EV, the UDP source port) hashed with a per-switch
 *   seed. Links and switches fail at scheduled times; routing removes a
 *   failed link from the ECMP groups after a convergence delay.
 * - Frames are real Ethernet/IPv4/UDP (lib/net), so captures open in
 *   Wireshark and the host path checks checksums like a NIC.
 * Randomness comes from the seed in sim_config only (and the explicit seeds
 * of the random failure pickers).
 */

#include <stdbool.h>
#include <stdint.h>

#include "uet/frame.h"
#include "uet/uet.h"

struct sim;
struct sim_port;
struct uet_pcap;

typedef void (*sim_fn)(struct sim *s, void *a, uint64_t b);

struct sim_config {
	uint64_t seed;
	uint32_t mtu_bytes;  /* largest frame (Ethernet header included); 0 = 9216 */
	struct uet_dscp_map dscp;
	bool no_udp_csum;    /* hosts send UDP checksum 0 (legal on IPv4) and
			      * drop a frame corrupted in flight by its flag
			      * rather than by checksum: the same outcome
			      * without two passes over every payload (large
			      * runs); captures show no UDP checksum */
	/* Switch-side adaptive routing (NVIDIA Adaptive RoCE as the REPS
	 * paper models it): each packet leaves by the eligible ECMP member
	 * with the least queued bytes (the frame being sent counted), the
	 * EV's hash breaking ties; a member whose link is down locally is not
	 * eligible. */
	bool adaptive_routing;
	/* Ties go to the first member instead (the REPS artifact's htsim,
	 * adaptive_nvidia(): on an idle fabric every packet takes uplink 0). */
	bool ar_tie_first;
	/* Events due at the same picosecond run in a seeded random order
	 * instead of the order they were scheduled. Scheduling order is
	 * htsim's (its event list keeps insertion order among equal times),
	 * but on a fabric of equal links it is the same order every time:
	 * in an incast whose senders start together, packets meeting at a
	 * full queue always admit the first-created flow's and drop the
	 * others'. Shuffled, a tie is a fair coin, as skew of a few ps would
	 * make it on real hardware. */
	bool shuffle_ties;
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
/* sim_run_drain, max_events of it at most: false when events due by t_ps
 * remain (call again: the same events run in the same order as one call
 * would run them), true when none does. */
bool sim_run_drain_max(struct sim *s, uint64_t t_ps, uint64_t max_events);
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
 * With 2 leaves and k spines it is a k-path fabric between the two sides.
 * It is the 2-tier fat tree with leaves ToRs, each joined to every spine. */
int sim_build_leaf_spine(struct sim *s, const struct sim_leafspine_cfg *c);

/*
 * Fat trees (Al-Fares et al.; the REPS and UET htsim setups). Tier 0 are the
 * ToRs, tier 1 the spines (2 tiers) or aggregation switches (3 tiers), tier
 * 2 the cores. Oversubscription is at the ToR only: a ToR has hosts_per_tor
 * downlinks and tor_uplinks = max(1, round(hosts_per_tor / oversub))
 * uplinks; the higher tiers are 1:1.
 *
 * 2 tiers: hosts / hosts_per_tor ToRs, tor_uplinks spines; ToR uplink j
 *   goes to spine j, so a spine has one port per ToR. Derived
 *   hosts_per_tor: the largest divisor of hosts that is <= sqrt(hosts)
 *   (1024 hosts: 32 ToRs x 32 hosts, 32 uplinks; 128 hosts: 16 x 8, 8
 *   uplinks: the paper's setups).
 * 3 tiers: pods of tors_per_pod ToRs and tor_uplinks aggregation switches;
 *   ToR uplink j goes to aggregation switch j of its pod, which has one
 *   port per ToR of the pod and as many uplinks (tors_per_pod); its uplink
 *   m goes to core j * tors_per_pod + m, which has one port per pod.
 *   Derived: hosts_per_tor = tors_per_pod = the largest d with 2 d^3 <=
 *   hosts and d^2 dividing hosts: the k-ary fat tree, d = k/2, when hosts =
 *   k^3/4 (128 hosts: k = 8, 32 ToRs, 32 aggregation, 16 cores; 1024
 *   hosts: k = 16).
 * Host i sits under ToR i / hosts_per_tor; ToR t is in pod t / tors_per_pod.
 * Switch indices (sim_switch_*) count ToRs first, then tier 1, then tier 2,
 * so ToR t is switch t.
 */
struct sim_fattree_cfg {
	uint32_t hosts;
	uint32_t tiers;          /* 2 or 3 */
	uint32_t oversub;        /* ToR downlinks : uplinks, 1..8 */
	uint32_t hosts_per_tor;  /* 0: derived as above */
	uint32_t tors_per_pod;   /* 3 tiers; 0: derived as above */
	uint32_t mss_bytes;      /* payload of a full data packet; only used to
				  * size the BDP defaults */
	struct sim_link_cfg host_link;   /* host <-> ToR */
	struct sim_link_cfg fabric_link; /* switch <-> switch */
	uint64_t switch_lat_ns;          /* added when entering a switch */
};

/* The derived shape of a configuration. */
struct sim_fattree_shape {
	uint32_t hosts, tiers;
	uint32_t hosts_per_tor, tor_uplinks;
	uint32_t tors, tors_per_pod, pods;
	uint32_t t1_switches, t1_uplinks; /* uplinks of a tier-1 switch (0 in
					   * 2 tiers) */
	uint32_t t2_switches;
	uint32_t switches, ports;         /* all ports, host NICs included */
};

/*
 * Defaults, the REPS paper's fabric: 400 Gb/s links of 500 ns, 500 ns per
 * switch traversal, 4 KiB payloads, 1:1; every queue one BDP
 * (sim_fattree_bdp_bytes) with ECN between 20% and 80% of it, tail drop.
 * Call again (or sim_link_cfg_queue) after changing rates or latencies.
 */
void sim_fattree_cfg_default(struct sim_fattree_cfg *c, uint32_t hosts, uint32_t tiers);
/* Fill the shape; 0 or UET_ERR_INVAL (tiers not 2 or 3, oversub not
 * 1..8, hosts not a multiple of hosts_per_tor (x tors_per_pod), or too
 * large: 2^24 hosts, 65535 ports per switch). */
int sim_fattree_shape(const struct sim_fattree_cfg *c, struct sim_fattree_shape *out);
/* Unloaded round trip between the two farthest hosts, a full data packet
 * (mss_bytes + 98 B of headers) out and a 98 B ACK back, in ps. */
uint64_t sim_fattree_rtt_ps(const struct sim_fattree_cfg *c);
/* host_link rate x sim_fattree_rtt_ps, in bytes. */
uint64_t sim_fattree_bdp_bytes(const struct sim_fattree_cfg *c);
/* The longest a packet that is neither dropped nor trimmed can wait in
 * queues on its way between the two farthest hosts: a full data queue at
 * every switch egress of the path (2 x tiers - 1 of them). */
uint64_t sim_fattree_queue_ps(const struct sim_fattree_cfg *c);
/* The most two packets between the same hosts can overtake each other by
 * on their way out: the fabric egresses that differ between two paths
 * (2 x tiers - 2 of them: every hop but the host's own ToR downlink, which
 * all paths share) full on one path and empty on the other; 0 where only
 * one path leads between ToRs (one uplink per ToR, and per aggregation
 * switch in 3 tiers). In ps. */
uint64_t sim_fattree_reorder_ps(const struct sim_fattree_cfg *c,
				const struct sim_fattree_shape *s);
/* buf_bytes = buf, ECN Kmin/Kmax = 20% / 80% of it. */
void sim_link_cfg_queue(struct sim_link_cfg *l, uint64_t buf_bytes);
/* Frame bytes a data packet of mss_bytes needs (sim_config.mtu_bytes must
 * be at least this): mss + Ethernet/IPv4/UDP + PDS/SES headers. */
uint32_t sim_frame_bytes(uint32_t mss_bytes);
int sim_build_fat_tree(struct sim *s, const struct sim_fattree_cfg *c);

uint32_t sim_num_hosts(const struct sim *s);
uint32_t sim_host_ip(const struct sim *s, uint32_t host);
/* Host index of an address, or UINT32_MAX. */
uint32_t sim_host_of_ip(const struct sim *s, uint32_t ip);
/* The egress port of leaf (ToR) 'leaf' on its uplink 'spine' (the uplink
 * to spine 'spine' in 2 tiers, to aggregation switch 'spine' of its pod in
 * 3), and the port of tier-1 switch 'spine' toward ToR 'leaf' (NULL if
 * they are not joined). */
struct sim_port *sim_leaf_up(struct sim *s, uint32_t leaf, uint32_t spine);
struct sim_port *sim_spine_down(struct sim *s, uint32_t spine, uint32_t leaf);
/* Host NIC egress and the leaf port that feeds the host. */
struct sim_port *sim_host_port(struct sim *s, uint32_t host);
struct sim_port *sim_host_ingress(struct sim *s, uint32_t host);
/* Iterate all ports: index 0 .. sim_num_ports - 1. */
uint32_t sim_num_ports(const struct sim *s);
struct sim_port *sim_port_at(struct sim *s, uint32_t i);
bool sim_port_is_fabric(const struct sim_port *p); /* switch-to-switch */

/* --- enumeration (for failure selection and reports) --- */
uint32_t sim_num_tiers(const struct sim *s);
uint32_t sim_num_switches(const struct sim *s);
uint32_t sim_hosts_per_tor(const struct sim *s);
/* Switches of a tier, and the switch index of the i-th of them. */
uint32_t sim_tier_switches(const struct sim *s, uint32_t tier);
uint32_t sim_switch_id(const struct sim *s, uint32_t tier, uint32_t i);
uint32_t sim_switch_tier(const struct sim *s, uint32_t sw);
uint32_t sim_switch_num_ports(const struct sim *s, uint32_t sw);
struct sim_port *sim_switch_port(struct sim *s, uint32_t sw, uint32_t i);
/* Ports toward the next tier up, in order (0 for the top tier). */
uint32_t sim_switch_num_uplinks(const struct sim *s, uint32_t sw);
struct sim_port *sim_switch_uplink(struct sim *s, uint32_t sw, uint32_t i);
/* ToR t's uplink i (ToR t is switch t). */
struct sim_port *sim_tor_uplink(struct sim *s, uint32_t tor, uint32_t i);
uint32_t sim_tor_of_host(const struct sim *s, uint32_t host);

/* What a port is, named from its own (egress) side. A cable is two ports:
 * a ToR uplink and a tier-1 downlink name the same ToR-spine cable. */
enum sim_port_role {
	SIM_PORT_HOST_NIC = 0, /* host -> ToR */
	SIM_PORT_TOR_DOWN,     /* ToR -> host */
	SIM_PORT_TOR_UP,       /* ToR -> tier 1 */
	SIM_PORT_T1_DOWN,      /* tier 1 -> ToR */
	SIM_PORT_T1_UP,        /* tier 1 -> core (3 tiers) */
	SIM_PORT_T2_DOWN,      /* core -> tier 1 */
	SIM_PORT_ROLES
};

struct sim_port_info {
	enum sim_port_role role;
	uint32_t index;          /* sim_port_at index */
	bool is_host;            /* the port's node is a host (else a switch) */
	uint32_t node;           /* host or switch index */
	bool peer_is_host;
	uint32_t peer_node;
	uint32_t peer_index;     /* the other end of the cable */
};
void sim_port_info(const struct sim_port *p, struct sim_port_info *out);
enum sim_port_role sim_port_role(const struct sim_port *p);
struct sim_port *sim_port_peer(struct sim_port *p);
uint32_t sim_num_ports_role(const struct sim *s, enum sim_port_role role);

/*
 * The egress port a switch picks for a packet with this 5-tuple (UDP), by
 * its current routing table: NULL if it has no route. sim_trace follows
 * a packet from host src's NIC to host dst: writes the ports it leaves by
 * (the NIC first) into out (up to cap) and returns the hop count, or 0 if
 * some switch has no route. Neither looks at link state, only at routes.
 */
struct sim_port *sim_route(struct sim *s, uint32_t sw, uint32_t src_ip, uint32_t dst_ip,
			   uint16_t sport, uint16_t dport);
uint32_t sim_trace(struct sim *s, uint32_t src, uint32_t dst, uint16_t ev,
		   struct sim_port **out, uint32_t cap);

/* --- hosts --- */
/* Create the host's endpoint from cfg (local_ip is filled in). */
int sim_host_attach(struct sim *s, uint32_t host, const struct uet_ep_config *cfg);
struct uet_ep *sim_host_ep(struct sim *s, uint32_t host);
/* The host's process dies: its endpoint is destroyed at once, with every
 * PDC and message and no callback; frames for it are dropped
 * (rx_other_drops) and it sends nothing but what its NIC had queued,
 * until sim_host_attach gives it a new endpoint (a restart: empty tables,
 * new PDC ids from its own seed). */
void sim_host_crash(struct sim *s, uint32_t host);
/* Tell the host its endpoint has new work (after uet_ep_send). */
void sim_host_kick(struct sim *s, uint32_t host);
/* Fill the payload of messages sent with buf == NULL. */
typedef void (*sim_fill_fn)(void *ctx, const struct uet_tx_meta *m, uint8_t *payload);
void sim_set_fill(struct sim *s, sim_fill_fn fn, void *ctx);
/* Told of every packet a failure drops (counted as port p's drops_down):
 * its frame's stored bytes (headers at least), whether it was intact data
 * (its DSCP the data or retransmission class: not an ACK, other control
 * packet or trimmed header) and the simulated time. */
typedef void (*sim_drop_fn)(void *ctx, struct sim_port *p, const uint8_t *frame,
			    uint32_t len, bool data, uint64_t now_ns);
void sim_set_drop_hook(struct sim *s, sim_drop_fn fn, void *ctx);
/* Record every frame the host sends or receives (before the checksum test). */
void sim_host_capture(struct sim *s, uint32_t host, struct uet_pcap *pc);
/* Queue a ready-made frame on the host's NIC (ahead of its endpoint), for
 * tests and background traffic: 0, UET_ERR_INVAL (no such host, longer
 * than sim_config.mtu_bytes or shorter than Ethernet/IPv4/UDP headers).
 * The NIC's queue limits apply (a full queue counts drops_queue). */
int sim_host_send_raw(struct sim *s, uint32_t host, const uint8_t *frame, uint32_t len);

struct sim_host_stats {
	uint64_t tx_frames, rx_frames;
	uint64_t rx_csum_drops;   /* checksum failed: corrupted in flight */
	uint64_t rx_other_drops;  /* not for us / not UET */
	uint64_t rx_ep_drops;     /* the endpoint refused it (any reason) */
	uint64_t last_rx_ps;      /* when the last frame arrived */
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
	double ber;           /* bit error ratio: a frame of n bytes is lost
			       * (its FCS fails at the next hop) with
			       * probability 1 - (1 - ber)^(8 (n + 4)) */
};

void sim_port_set_fault(struct sim_port *p, const struct sim_fault *f);
/* One direction only, and legacy: a port set down still serializes what
 * it is given, into the void (drops_down). The link calls below model a
 * cable or switch failure. */
void sim_port_set_up(struct sim_port *p, bool up);
void sim_port_set_rate(struct sim_port *p, uint64_t rate_bps);
uint64_t sim_port_rate_bps(const struct sim_port *p);
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
	uint64_t drops_down;      /* blackholed, link down, or sent to a
				   * switch that is down */
	uint64_t drops_ber;       /* bit errors (sim_fault.ber) */
	uint64_t drops_noroute;   /* on a switch port: packets that arrived
				   * here and found no route (every link
				   * toward the destination removed) */
	uint64_t dups, corrupts;
	uint64_t max_queue_bytes;
	uint64_t last_tx_ns;      /* when the last packet left (or was
				   * blackholed) */
	uint64_t last_drop_ns;    /* when drops_down last counted: the last
				   * time a failure cost a packet here */
};
const struct sim_port_stats *sim_port_stats(const struct sim_port *p);
uint64_t sim_port_queue_bytes(const struct sim_port *p);

/*
 * Scheduled failures (run as events at t_ps; a time in the past means now).
 * A link is named by either of its ports and fails in both directions.
 *
 * - sim_link_down_at: from t the link carries nothing: a packet a switch
 *   routes to either port is dropped there (drops_down), what was queued
 *   is dropped, a host NIC's packets are dropped as sent; packets already
 *   on the wire arrive. Routing still hashes onto the link (a blackhole)
 *   until t + converge_ns, when every switch recomputes its routes without
 *   it; converge_ns 0: never. A group left empty (no path to a
 *   destination) drops packets as drops_noroute.
 * - sim_link_up_at: from t the link carries traffic; routing takes it back
 *   at t + converge_ns (0: at t) if it had removed it.
 * - sim_port_down_at / up_at: one direction of the link, what p sends (a
 *   laser or a receiver dying on one side); the other still carries
 *   traffic. Routing withdraws the link as when it is down both ways.
 * - sim_switch_down_at / up_at: all links of switch sw, as above; a down
 *   switch also drops what reaches it (drops_down of the sending port).
 * - sim_link_rate_at: both directions serialize at rate_bps from t (a
 *   packet being sent finishes at the old rate).
 * - sim_link_fault_at: both directions get fault f from t (bit errors,
 *   loss, ...; a zeroed f clears it); sim_port_fault_at: what p sends only.
 * A later event on the same link overrides an earlier one; a pending
 * convergence of a state the link has since left is ignored.
 */
void sim_link_down_at(struct sim *s, struct sim_port *p, uint64_t t_ps, uint64_t converge_ns);
void sim_link_up_at(struct sim *s, struct sim_port *p, uint64_t t_ps, uint64_t converge_ns);
void sim_port_down_at(struct sim *s, struct sim_port *p, uint64_t t_ps, uint64_t converge_ns);
void sim_port_up_at(struct sim *s, struct sim_port *p, uint64_t t_ps, uint64_t converge_ns);
void sim_switch_down_at(struct sim *s, uint32_t sw, uint64_t t_ps, uint64_t converge_ns);
void sim_switch_up_at(struct sim *s, uint32_t sw, uint64_t t_ps, uint64_t converge_ns);
void sim_link_rate_at(struct sim *s, struct sim_port *p, uint64_t t_ps, uint64_t rate_bps);
void sim_link_fault_at(struct sim *s, struct sim_port *p, uint64_t t_ps, const struct sim_fault *f);
void sim_port_fault_at(struct sim *s, struct sim_port *p, uint64_t t_ps, const struct sim_fault *f);
/* One direction of a link (the egress port p) from t: its rate, data
 * buffer and ECN thresholds (a degraded link of the UEC reference scales
 * all three; what is queued beyond a smaller buffer stays). */
struct sim_port_shape {
	uint64_t rate_bps, buf_bytes, kmin_bytes, kmax_bytes;
};
void sim_port_shape_get(const struct sim_port *p, struct sim_port_shape *out);
void sim_port_shape_at(struct sim *s, struct sim_port *p, uint64_t t_ps,
		       const struct sim_port_shape *sh);
/* Physical state, and whether routing uses the link. */
bool sim_link_is_up(const struct sim_port *p);
bool sim_link_is_routed(const struct sim_port *p);
bool sim_switch_is_up(const struct sim *s, uint32_t sw);

/*
 * Random selection, deterministic from seed alone: round(pct / 100 * n) of
 * the n ports with this role (e.g. 3% of ToR uplinks: SIM_PORT_TOR_UP, 3.0),
 * written to out in port order (at most cap). Returns how many were
 * picked. The same seed picks the same ports on the same fabric.
 */
uint32_t sim_pick_ports(struct sim *s, enum sim_port_role role, double pct, uint64_t seed,
			struct sim_port **out, uint32_t cap);
/* The same for switches of a tier; writes switch indices. */
uint32_t sim_pick_switches(struct sim *s, uint32_t tier, double pct, uint64_t seed,
			   uint32_t *out, uint32_t cap);

/* Sums over all ports. */
void sim_total_stats(const struct sim *s, struct sim_port_stats *out);
/* Frames dropped by switches (bad IPv4 checksum, unknown destination, no
 * route: drops_noroute counts those too). */
uint64_t sim_switch_drops(const struct sim *s);

/* Bytes allocated now: the fabric, event queue and packet pools (not the
 * endpoints: uet_ep_mem_bytes). Packets in a pool, in use or free: whole
 * frames, or frames of headers only (control, trimmed, and data whose
 * payload nobody filled: those zeros are not stored). */
uint64_t sim_mem_bytes(const struct sim *s);
uint64_t sim_pool_pkts(const struct sim *s, bool whole);

#endif /* UET_SIM_SIM_H_ */
