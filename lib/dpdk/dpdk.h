/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_DPDK_DPDK_H_
#define UET_DPDK_DPDK_H_

/*
 * The DPDK data path: the only code of libuet (with apps/) that includes
 * DPDK headers. It turns a port queue into the I/O of sans-I/O endpoints:
 *
 * - a port is set up with one RX and one TX queue per lcore that uses it
 *   (RSS on the UDP 5-tuple when there are several), mbuf pools for RX
 *   and TX on the port's NUMA socket, and checksum offload when the port
 *   has it;
 * - a host is one endpoint with its own IPv4 and MAC address on a
 *   (port, queue): it answers ARP for its address, resolves its peers (or
 *   uses static neighbours), frames what the endpoint writes as
 *   Ethernet/IPv4/UDP (EV = UDP source port, ECT(0) on data, DSCP per
 *   traffic class), and reads CE and trimmed DSCPs on receive;
 * - an lcore serves a set of hosts in a share-nothing poll loop: bursts of
 *   32, a TSC clock in ns fed to the endpoints, endpoint deadlines kept in
 *   a min-heap, no locks. Several hosts may share one queue (frames are
 *   dispatched by destination address), so one process can emulate many
 *   hosts on one machine.
 */

#include <stdbool.h>
#include <stdint.h>

#include "uet/frame.h"
#include "uet/uet.h"

struct rte_mempool;
struct uet_pcap;

#define UET_DPDK_BURST 32
#define UET_DPDK_MAX_QUEUES 16
#define UET_DPDK_MAX_HOSTS 256  /* per lcore */
#define UET_DPDK_MAX_NEIGH 1024 /* per host */
#define UET_DPDK_MAX_LCORE_QUEUES 64 /* (port, queue) pairs one lcore polls */
#define UET_DPDK_MAX_GROUP 64   /* lcores in a steering group */
#define UET_DPDK_INBOX 4096     /* frames waiting for an lcore from others */
#define UET_DPDK_RX_WRITE 4     /* packets a host may send right after each
				 * packet it reads (ACK clocking per packet) */

/* --- time --- */
struct uet_dpdk_clock {
	uint64_t tsc0;
	uint64_t hz;
	uint64_t mult;   /* ns = ((tsc - tsc0) * mult) >> 32 */
};
void uet_dpdk_clock_init(struct uet_dpdk_clock *c);
uint64_t uet_dpdk_now_ns(const struct uet_dpdk_clock *c);

/* --- EAL --- */
/* rte_eal_init() with the user's EAL arguments; returns how many arguments
 * it consumed (the app's own start after them and a "--") or a negative
 * UET_ERR_* with a reason in err. */
int uet_dpdk_eal_init(int argc, char **argv, char *err, size_t errlen);
void uet_dpdk_eal_cleanup(void);
/* The ports the EAL found (after uet_dpdk_eal_init), and whether port_id
 * is one of them. */
uint16_t uet_dpdk_port_count(void);
bool uet_dpdk_port_exists(uint16_t port_id);
/* Whether dpdk-pdump can attach: the primary process registered the
 * capture server (not with --in-memory or --no-shconf). */
bool uet_dpdk_pdump_ready(void);

/* --- ports --- */
struct uet_dpdk_port_cfg {
	uint16_t port_id;
	uint16_t nb_queues;     /* RX = TX queues: one per lcore using the port */
	uint32_t nb_mbufs;      /* per pool (RX and TX); 0 = enough for the
				 * rings and the lcores' caches */
	uint16_t data_room;     /* mbuf data room (bytes, headroom included);
				 * 0 = fits a frame of frame_mtu */
	uint16_t frame_mtu;     /* largest frame we send (Ethernet header
				 * included, no FCS); 0 = 9216 */
	uint16_t nb_rxd, nb_txd; /* 0 = 1024 */
	bool promisc;           /* several host MACs on one port need it when
				 * the PMD cannot add MAC addresses */
};

struct uet_dpdk_port {
	uint16_t port_id;
	uint16_t nb_queues;
	int socket;
	int pool_node;                 /* NUMA node backing the mbufs (libnuma), -1 unknown */
	uint16_t frame_mtu;
	uint16_t nb_rxd, nb_txd;       /* per queue, as the PMD took them */
	uint8_t mac[6];
	bool tx_ip_csum, tx_udp_csum;  /* offloads in use */
	bool rx_csum;                  /* the NIC reports checksum status */
	struct rte_mempool *pool;      /* receive, ARP */
	struct rte_mempool *tx_pool;   /* the hosts' UET packets (see internal.h) */
	char driver[32];
};

int uet_dpdk_port_setup(const struct uet_dpdk_port_cfg *c, struct uet_dpdk_port *p, char *err,
			size_t errlen);
/* The port's receive losses so far (rte_eth_stats): frames its RX rings
 * had no room for (imissed: the polling lcores fell behind) and receives
 * that found no mbuf. Zeros where the PMD keeps neither. */
void uet_dpdk_port_rx_losses(const struct uet_dpdk_port *p, uint64_t *rx_missed,
			     uint64_t *rx_no_mbuf);
void uet_dpdk_port_close(struct uet_dpdk_port *p);

/* --- hosts --- */
struct uet_dpdk_host_stats {
	uint64_t rx_frames, tx_frames;
	uint64_t rx_arp, tx_arp_replies, tx_arp_requests;
	uint64_t rx_csum_drops;     /* bad IPv4/UDP checksum */
	uint64_t rx_other_drops;    /* not IPv4/UDP to our address and port */
	uint64_t rx_ep_drops;       /* the endpoint refused it */
	uint64_t tx_no_neigh;       /* no MAC for the next hop yet: dropped,
				     * an ARP request sent instead */
	uint64_t tx_full;           /* TX queue full: the host waited for room
				     * (the NIC or link is the bottleneck;
				     * nothing is dropped) */
	uint64_t tx_fail_ev;        /* blackholed by the fail-EV hook */
	uint64_t tx_no_mbuf;        /* the mbuf pool was empty: sending waits */
	uint64_t tx_csum_skipped_bytes; /* payload bytes known to be zero that the
					 * software UDP checksum did not sum */
	uint64_t tx_csum_fused;     /* frames whose software UDP checksum took
				     * the sum the endpoint made as it copied
				     * the payload in (no second read) */
	uint64_t tx_csum_offloaded; /* frames whose checksums the port fills */
	uint64_t rx_csum_offloaded; /* frames whose checksums the port verified */
};

/* Per-EV observer: data packets sent, and ACKs echoing CE, by EV. */
typedef void (*uet_dpdk_ev_fn)(void *ctx, uint16_t ev, bool ce_ack);
/* Fill the payload of data packets of messages sent with buf == NULL. */
typedef void (*uet_dpdk_fill_fn)(void *ctx, const struct uet_tx_meta *m, uint8_t *payload);

struct uet_dpdk_host_cfg {
	struct uet_dpdk_port *port;
	uint16_t queue;
	uint32_t ip;              /* host byte order */
	uint8_t mac[6];           /* all zero: the port's MAC */
	uint8_t prefix_len;       /* on-link subnet; 0 = every address on-link */
	uint32_t gateway;         /* next hop for off-link addresses */
	struct uet_dscp_map dscp;
	bool zero_udp_csum;       /* send UDP checksum 0 (none) rather than
				   * summing the payload, in hardware or not */
	struct uet_ep_config ep;  /* local_ip is set from ip */
	uet_dpdk_ev_fn on_ev;     /* optional: data packets sent (ce_ack false;
				   * those the fail-EV hook drops included) and
				   * CE-marked ACKs */
	void *on_ev_ctx;
	uet_dpdk_fill_fn fill;    /* optional */
	void *fill_ctx;
	struct uet_pcap *pcap;    /* optional: every frame the host sends (as
				   * framed, before the NIC: an offloaded
				   * checksum is not filled in yet) and every
				   * IPv4 frame it receives; owned by the
				   * caller, written by the host's lcore only */
};

struct uet_dpdk_host;

int uet_dpdk_host_create(const struct uet_dpdk_host_cfg *c, struct uet_dpdk_host **out,
			 char *err, size_t errlen);
void uet_dpdk_host_destroy(struct uet_dpdk_host *h);
struct uet_ep *uet_dpdk_host_ep(struct uet_dpdk_host *h);
uint32_t uet_dpdk_host_ip(const struct uet_dpdk_host *h);
const uint8_t *uet_dpdk_host_mac(const struct uet_dpdk_host *h);
/* The context on_ev gets (set before the host's lcore polls). */
void uet_dpdk_host_set_ev_ctx(struct uet_dpdk_host *h, void *ctx);
const struct uet_dpdk_host_stats *uet_dpdk_host_stats(const struct uet_dpdk_host *h);
/* Static neighbour (no ARP for it). 0 or UET_ERR_NOMEM when full. */
int uet_dpdk_host_add_neigh(struct uet_dpdk_host *h, uint32_t ip, const uint8_t *mac);
bool uet_dpdk_host_has_neigh(const struct uet_dpdk_host *h, uint32_t ip);
/* Ask for ip's MAC (sent with the next poll). */
void uet_dpdk_host_resolve(struct uet_dpdk_host *h, uint32_t ip);
/* From from_ns on, drop outgoing packets whose EV is in [ev_lo, ev_hi]: a
 * failed path without access to the switch. Ranges add up, each with its own
 * start, at most UET_DPDK_MAX_FAIL_RANGES; UET_ERR_INVAL past that or for
 * ev_lo > ev_hi, UET_ERR_NOMEM. */
#define UET_DPDK_MAX_FAIL_RANGES 1024
int uet_dpdk_host_fail_evs(struct uet_dpdk_host *h, uint64_t from_ns, uint16_t ev_lo,
			   uint16_t ev_hi);

/* --- telemetry --- */
/* Register /uet/stats, /uet/pdc and /uet/paths with rte_telemetry (query
 * them with dpdk-telemetry.py). Per-EV counters cover ev_base ..
 * ev_base + ev_count - 1. Every lcore publishes its own hosts (a snapshot
 * each millisecond, per-EV counters of its own); the commands add them
 * up. 0 or UET_ERR_NOMEM. */
int uet_dpdk_telemetry_init(uint16_t ev_base, uint32_t ev_count);

/* --- the per-lcore loop --- */
struct uet_dpdk_lcore;
struct uet_dpdk_group;

struct uet_dpdk_lcore_stats {
	uint64_t rx_other_drops;    /* not ARP, not IPv4 for a host of ours */
	uint64_t steered_out;       /* frames handed to another lcore */
	uint64_t steered_in;        /* frames other lcores handed here */
	uint64_t steer_drops;       /* the other lcore's inbox was full */
	uint64_t late_polls;        /* polls after the lcore was away: timers waited a round */
};

/* An lcore's share of the hosts: it polls their (port, queue) pairs, keeps
 * their endpoints' deadlines in a timing wheel (1 us slots) and frames what
 * they send. Each host belongs to one lcore; (port, IPv4) pairs are unique.
 * Call uet_dpdk_telemetry_init() first for telemetry to see it. Created on
 * any thread, then polled by one lcore only. */
int uet_dpdk_lcore_create(struct uet_dpdk_host *const *hosts, uint32_t n,
			  struct uet_dpdk_lcore **out);
void uet_dpdk_lcore_destroy(struct uet_dpdk_lcore *lc);
const struct uet_dpdk_lcore_stats *uet_dpdk_lcore_stats(const struct uet_dpdk_lcore *lc);
/* One iteration: RX bursts from every queue the hosts use, frames steered
 * here by the group, endpoint timers due by now_ns, then TX. Returns
 * packets moved. */
uint32_t uet_dpdk_lcore_poll(struct uet_dpdk_lcore *lc, uint64_t now_ns);
/* Tell the loop a host's endpoint has new work (after uet_ep_send). */
void uet_dpdk_lcore_kick(struct uet_dpdk_lcore *lc, struct uet_dpdk_host *h);

/* Lcores sharing ports: a frame that one of them receives for a host of
 * another (hosts sharing a queue's wire, RSS spreading, a PMD without
 * flow rules) is passed to its owner through the owner's inbox ring (its
 * mbuf, no copy); ARP frames reach every lcore with hosts on the port. No
 * locks: one multi-producer ring per lcore. Before polling; destroy the
 * group after its lcores stop polling. 0, UET_ERR_INVAL (an lcore already
 * grouped, an address on two lcores, more than UET_DPDK_MAX_GROUP) or
 * UET_ERR_NOMEM. */
int uet_dpdk_lcore_group(struct uet_dpdk_lcore *const *lcs, uint32_t n,
			 struct uet_dpdk_group **out);
void uet_dpdk_group_destroy(struct uet_dpdk_group *g);

#endif /* UET_DPDK_DPDK_H_ */
