/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SIM_SIM_INT_H_
#define UET_SIM_SIM_INT_H_

/*
 * Internals shared by the simulator's files: sim.c (engine, ports, queues,
 * switching, hosts), topo.c (builders, routing, enumeration) and fail.c
 * (scheduled failures, random selection). Not a public header.
 */

#include "uet/prng.h"
#include "sim/sim.h"

enum node_kind { NODE_HOST = 0, NODE_SWITCH = 1 };

/*
 * A packet is a small descriptor and a frame buffer apart from it. Switches
 * route on the descriptor alone (dst_host, key), so a packet's 4 KiB frame
 * is not pulled into the cache at every hop, only where it is written
 * (the sending host) and read (the receiving host, a trim, a CE mark).
 */
struct sim_pkt {
	struct sim_pkt *next;
	uint8_t *data;
	uint64_t key;       /* 5-tuple hash input, without the switch seed */
	uint32_t len;
	uint32_t stored;    /* bytes held in data; the frame's bytes from here
			     * to len are zero (a payload nobody filled) */
	uint8_t big;        /* its pool: 0 header frames, 1 full frames */
	uint32_t dst_host;  /* UINT32_MAX: not known, parse the headers */
	uint8_t cls;        /* 0: control and trimmed headers, 1: data */
	uint8_t dcls;       /* the class its DSCP says (cls is 1 for
			     * everything a host NIC sends, as it always was) */
	uint8_t corrupted;
};

struct sim_pool {
	uint32_t data_bytes;  /* frame buffer stride */
	struct sim_pkt **free_pkts; /* a stack: popping touches no packet */
	uint32_t n_free;
	void **chunks;        /* descriptors and frames, PKTS_PER_CHUNK each */
	uint32_t n_chunks, cap_chunks;
};

struct sim_zview {
	uint8_t *buf;         /* frame_cap bytes */
	uint32_t dirty;       /* bytes past this are zero */
};

struct pktq {
	struct sim_pkt *head, *tail;
	uint64_t bytes;
};

struct sim_node {
	uint8_t kind;
	uint8_t tier;         /* switch: 0 ToR, 1, 2 */
	bool down;            /* switch failed: drops what arrives */
	uint32_t idx;         /* host or switch index */
	uint32_t first_port;  /* its ports are contiguous in s->ports */
	uint32_t nports;
	uint32_t first_up;    /* ports [first_up, nports) go up a tier */
	uint64_t seed;        /* switch ECMP hash seed */
};

/* Hot fields first: a port is touched on every enqueue, dequeue and
 * transmission. */
struct sim_port {
	struct sim_node *node;
	struct sim_port *peer;
	uint64_t rate_bps;
	uint64_t lat_ps;      /* link latency + switch latency at the far end */
	uint64_t buf_bytes, kmin, kmax;
	struct pktq q[2];
	uint32_t tx_len;      /* the frame on the wire, 0 when idle (its buffer
			       * is held until it has left) */
	bool trim;
	bool up;              /* legacy per-port switch (sim_port_set_up) */
	bool failed;          /* link or an end switch down: carries nothing */
	bool link_down;       /* the cable itself (sim_link_down_at) */
	bool routed;          /* routing uses the link (both ends agree) */
	uint8_t role;         /* enum sim_port_role */
	uint32_t gidx;
	uint32_t link_gen;    /* bumped on every state change of the link */
	double ber_keep8;     /* (1 - ber)^8: a byte survives bit errors */
	struct sim *s;
	struct sim_fault fault;
	struct sim_port_stats st;
	uint64_t win_max_queue; /* the most queued since series.c last looked */
};

struct sim_host {
	struct sim_node *node;
	struct sim_port *port;
	struct uet_ep *ep;
	uint32_t ip;
	uint8_t mac[6];
	uint16_t ip_id;
	bool timer_armed;
	uint64_t timer_at;
	uint64_t timer_gen;
	struct uet_pcap *pcap;
	struct sim_host_stats st;
};

/*
 * The event queue: a 4-ary min-heap of 16-byte keys, (time, then
 * sequence << EV_SLOT_BITS | slot), so that the four children of a node
 * share one cache line; what to run sits in a slot of a separate array.
 * The sequence number makes the order total and equal to insertion order
 * among events at one time, so a seed replays exactly. With
 * cfg.shuffle_ties a draw from tie_rng takes the sequence number's place:
 * still a total order that a seed replays, but a random one among ties.
 */
#define EV_SLOT_BITS 24
#ifndef EV_SEQ_LIMIT /* a test build sets it low to exercise renumbering */
#define EV_SEQ_LIMIT (1ULL << (64 - EV_SLOT_BITS))
#endif

struct sim_evkey {
	uint64_t t;
	uint64_t k;   /* seq << EV_SLOT_BITS | slot */
};

struct sim_ev {
	sim_fn fn;
	void *a;
	uint64_t b;
};

/* An ECMP group: cnt ports at grp_ports[first..]. */
struct sim_grp {
	uint32_t first, cnt;
};

/* A scheduled sim_link_fault_at: its fault must outlive the caller's. */
struct sim_fault_rec {
	struct sim_fault_rec *next;
	struct sim_port *p;
	struct sim_fault f;
	bool shape;               /* a sim_port_shape_at instead */
	bool one_way;             /* f on p only, not its peer */
	struct sim_port_shape sh;
};

struct sim {
	struct sim_config cfg;
	struct uet_prng rng;
	struct uet_prng tie_rng; /* its own stream: shuffling moves no other draw */
	uint64_t now;
	uint64_t seq;
	struct sim_evkey *heap;  /* heap[i] is node i; heap + 1 is 64 B aligned */
	void *heap_mem;
	uint64_t heap_n, heap_cap;
	struct sim_ev *slots;
	uint32_t *free_slots;
	uint32_t n_free_slots, cap_slots;
	uint64_t events_run;

	uint32_t frame_cap;
	/* pool[0]: frames of headers only (control packets, trimmed ones,
	 * data whose payload nobody filled: its zeros are not stored);
	 * pool[1]: whole frames. */
	struct sim_pool pool[2];
	/* A whole frame rebuilt from a header frame for the code that reads
	 * every byte (decap and its checksum, the endpoint, captures, a
	 * trim); zero from dirty on. */
	struct sim_zview zv_rx, zv_aux;

	struct sim_node *nodes;
	uint32_t n_nodes;
	struct sim_port *ports;
	uint32_t n_ports;
	struct sim_host *hosts;
	uint32_t n_hosts;
	uint32_t ip_base;

	/* shape */
	uint32_t tiers;
	uint32_t n_sw;
	uint32_t tier_first[3], tier_n[3]; /* switch indices per tier */
	uint32_t hpt;                      /* hosts per ToR */
	uint32_t n_tors;
	uint32_t tors_per_pod;             /* 3 tiers */
	uint32_t tor_up;                   /* uplinks per ToR */

	/* routing: per (switch, destination ToR) a group */
	uint32_t *rt;         /* n_sw x n_tors group indices */
	struct sim_grp *grp;
	uint32_t n_grp;
	uint32_t *grp_ports;
	uint32_t n_grp_ports;
	bool rt_pending;      /* a recompute is scheduled */

	struct sim_fault_rec *fault_recs;
	uint64_t switch_drops;
	sim_fill_fn fill;
	void *fill_ctx;
	sim_drop_fn drop_hook;
	void *drop_ctx;
};

/* sim.c */
void sim_port_init(struct sim *s, struct sim_port *p, struct sim_node *n,
		   const struct sim_link_cfg *l, enum sim_port_role role);
void sim_link_ports(struct sim_port *a, struct sim_port *b, uint64_t lat_ns, uint64_t sw_lat_ns);
void sim_mac_of(uint32_t ip, uint8_t *mac);
/* Drop everything queued on p (counted as drops_down). */
void sim_port_flush(struct sim *s, struct sim_port *p);

/* topo.c */
int sim_routes_compute(struct sim *s);
void sim_topo_free(struct sim *s);

/* fail.c */
void sim_fail_free(struct sim *s);

#endif /* UET_SIM_SIM_INT_H_ */
