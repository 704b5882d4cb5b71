/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL, TSC clock and port setup (DPDK's skeleton sequence, v22.11). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>

#ifdef UET_HAVE_NUMA
#include <numa.h>
#include <numaif.h>
#endif

#include "dpdk/dpdk.h"
#include "dpdk/internal.h"
#include "uet/err.h"

RTE_LOG_REGISTER(uet_dpdk_logtype, uet.dpdk, INFO);
#define RTE_LOGTYPE_UET_DPDK uet_dpdk_logtype

void
uet_dpdk_clock_init(struct uet_dpdk_clock *c)
{
	c->hz = rte_get_tsc_hz();
	/* 32.32 fixed point: exact to well under 1 ns per second of run. */
	c->mult = (uint64_t)(((unsigned __int128)1000000000ULL << 32) / c->hz);
	c->tsc0 = rte_rdtsc();
}

uint64_t
uet_dpdk_now_ns(const struct uet_dpdk_clock *c)
{
	return (uint64_t)(((unsigned __int128)(rte_rdtsc() - c->tsc0) * c->mult) >> 32);
}

static bool pdump_on; /* rte_pdump_init() succeeded */
static bool eal_up;   /* rte_eal_init() succeeded */
static bool own_runtime; /* the runtime directory's files are this
			  * primary's (a shared configuration: one
			  * primary per prefix) */

static bool
has_arg(int argc, char **argv, const char *name)
{
	int i;

	for (i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], name) == 0)
			return true;
	return false;
}

/* EAL leaves its runtime directory (/var/run/dpdk/PREFIX) behind, with
 * --no-shconf empty once the telemetry socket is gone, which DPDK unlinks
 * at exit: removed then, if empty (another process of the prefix may still
 * use it). Registered before rte_eal_init() so that it runs after DPDK's
 * own exit handlers. */
static void
remove_runtime_dir(void)
{
	const char *d = rte_eal_get_runtime_dir();

	if (d != NULL && d[0] != '\0')
		(void)rmdir(d);
}

int
uet_dpdk_eal_init(int argc, char **argv, char *err, size_t errlen)
{
	static bool at_exit;
	/* read before rte_eal_init, which may reorder argv */
	bool shared = has_arg(argc, argv, "--no-shconf") || has_arg(argc, argv, "--in-memory");
	int rc;

	if (!at_exit)
		at_exit = atexit(remove_runtime_dir) == 0;
	rc = rte_eal_init(argc, argv);

	if (rc < 0) {
		snprintf(err, errlen, "EAL initialisation failed: %s", rte_strerror(rte_errno));
		return UET_ERR_INVAL;
	}
	eal_up = true;
	/* Without a shared configuration several primaries may share the
	 * prefix's directory: its files are not this process's alone. */
	own_runtime = rte_eal_process_type() == RTE_PROC_PRIMARY && !shared;
	/* So that dpdk-pdump (a secondary process) can attach and capture
	 * our ports. It needs the multi-process channel, which --in-memory
	 * and --no-shconf turn off: then there is nothing to attach to, and
	 * --pcap is the capture. */
	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		pdump_on = rte_pdump_init() == 0;
		if (!pdump_on)
			RTE_LOG(INFO, EAL, "dpdk-pdump cannot attach (no multi-process channel: "
				"--in-memory or --no-shconf); use --pcap\n");
	}
	return rc;
}

uint16_t
uet_dpdk_port_count(void)
{
	return rte_eth_dev_count_avail();
}

bool
uet_dpdk_port_exists(uint16_t port_id)
{
	return rte_eth_dev_is_valid_port(port_id) != 0;
}

bool
uet_dpdk_pdump_ready(void)
{
	return pdump_on;
}

/* A primary's runtime files (config, memory maps, the multi-process
 * socket: 3-6 MB in /var/run/dpdk/PREFIX without --no-shconf) go with it:
 * nothing can attach to a process that has ended, and runs under new
 * prefixes would otherwise fill the directory. Only after an EAL of ours
 * started (a failed start may have found the prefix held by another
 * primary, whose files these are). The directory goes at exit. */
static void
runtime_files_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			(void)unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

void
uet_dpdk_eal_cleanup(void)
{
	char dir[PATH_MAX];
	bool primary = eal_up && own_runtime;

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	if (pdump_on)
		(void)rte_pdump_uninit();
	pdump_on = false;
	rte_eal_cleanup();
	if (primary && dir[0] != '\0')
		runtime_files_remove(dir);
	eal_up = false;
}

/* rte_mempool_obj_iter callback: a clean TX mbuf. */
static void
tx_mbuf_clear(struct rte_mempool *mp, void *arg, void *obj, unsigned idx)
{
	struct rte_mbuf *m = obj;

	(void)mp;
	(void)arg;
	(void)idx;
	memset(m->buf_addr, 0, m->buf_len);
	uet_dpdk_txpriv(m)->dirty_bytes = 0;
}

static void
pools_free(struct uet_dpdk_port *p)
{
	rte_mempool_free(p->tx_pool);
	rte_mempool_free(p->pool);
	p->tx_pool = NULL;
	p->pool = NULL;
}

/* The NUMA node that really backs the pool's memory, as the kernel sees
 * it (libnuma): with --no-huge or mixed hugepages DPDK's socket id is a
 * wish, not a fact. -1 when unknown. */
static int
pool_node(struct rte_mempool *mp)
{
#ifdef UET_HAVE_NUMA
	struct rte_mbuf *m;
	int node = -1;

	if (numa_available() < 0)
		return -1;
	m = rte_pktmbuf_alloc(mp);
	if (m == NULL)
		return -1;
	/* Touch it so the page exists before asking where it lives. */
	*rte_pktmbuf_mtod(m, volatile uint8_t *) = 0;
	if (get_mempolicy(&node, NULL, 0, rte_pktmbuf_mtod(m, void *),
			  MPOL_F_NODE | MPOL_F_ADDR) != 0)
		node = -1;
	rte_pktmbuf_free(m);
	return node;
#else
	(void)mp;
	return -1;
#endif
}

int
uet_dpdk_port_setup(const struct uet_dpdk_port_cfg *c, struct uet_dpdk_port *p, char *err,
		    size_t errlen)
{
	const uint64_t rx_csum = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_txconf txc;
	struct rte_ether_addr addr;
	uint16_t nq = c->nb_queues ? c->nb_queues : 1, q;
	uint16_t rxd = c->nb_rxd ? c->nb_rxd : 1024, txd = c->nb_txd ? c->nb_txd : 1024;
	uint32_t n_mbufs, n_tx, room;
	bool loopback;
	char name[RTE_MEMPOOL_NAMESIZE];
	int rc;

	memset(p, 0, sizeof(*p));
	if (!rte_eth_dev_is_valid_port(c->port_id)) {
		snprintf(err, errlen, "port %u: no such port (%u available)", c->port_id,
			 rte_eth_dev_count_avail());
		return UET_ERR_INVAL;
	}
	rc = rte_eth_dev_info_get(c->port_id, &info);
	if (rc != 0) {
		snprintf(err, errlen, "port %u: cannot read device info: %s", c->port_id,
			 rte_strerror(-rc));
		return UET_ERR_INVAL;
	}
	if (nq > UET_DPDK_MAX_QUEUES || nq > info.max_rx_queues || nq > info.max_tx_queues) {
		snprintf(err, errlen, "port %u (%s): %u queues asked, it has %u RX / %u TX",
			 c->port_id, info.driver_name, nq, info.max_rx_queues, info.max_tx_queues);
		return UET_ERR_INVAL;
	}
	p->port_id = c->port_id;
	p->nb_queues = nq;
	p->frame_mtu = c->frame_mtu ? c->frame_mtu : 9216;
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);

	memset(&conf, 0, sizeof(conf));
	if (nq > 1) {
		/* Spread flows over the lcores by their UDP 5-tuple. */
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP) & info.flow_type_rss_offloads;
	}
	if ((info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) != 0) {
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
		p->tx_ip_csum = true;
	}
	if ((info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) != 0) {
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
		p->tx_udp_csum = true;
	}
	if ((info.rx_offload_capa & rx_csum) == rx_csum) {
		conf.rxmode.offloads |= rx_csum;
		p->rx_csum = true;
	}
	rc = rte_eth_dev_configure(c->port_id, nq, nq, &conf);
	if (rc != 0) {
		snprintf(err, errlen, "port %u (%s): configure failed: %s", c->port_id,
			 info.driver_name, rte_strerror(-rc));
		return UET_ERR_INVAL;
	}
	if (p->frame_mtu > RTE_ETHER_HDR_LEN + RTE_ETHER_MTU) {
		/* Set after configure: some PMDs (af_packet) check jumbo
		 * sizes against their ring frames only in mtu_set. */
		uint16_t mtu = (uint16_t)(p->frame_mtu - RTE_ETHER_HDR_LEN);

		/* Virtual PMDs (af_packet in 22.11 reports a 1518-byte limit
		 * it does not enforce: its rings are framesz) carry larger
		 * frames anyway; a NIC that cannot would drop them, which the
		 * run then shows as losses. */
		rc = info.max_rx_pktlen >= p->frame_mtu ? rte_eth_dev_set_mtu(c->port_id, mtu)
							: -ENOTSUP;
		if (rc != 0 && strcmp(info.driver_name, "net_tap") == 0) {
			/* net_tap refuses a frame over its MTU at TX and
			 * every one behind it: the run would wait on a full
			 * queue forever. Say so now. */
			uint16_t cur = RTE_ETHER_MTU;

			(void)rte_eth_dev_get_mtu(c->port_id, &cur);
			snprintf(err, errlen, "port %u (%s): frames of %u bytes need an MTU of %u, "
				 "the port takes %u at most: lower --mtu by %u or more",
				 c->port_id, info.driver_name, p->frame_mtu, mtu, cur,
				 (unsigned)(mtu - cur));
			return UET_ERR_INVAL;
		}
		if (rc != 0)
			RTE_LOG(NOTICE, UET_DPDK, "port %u (%s): MTU %u not set (%s); frames of %u "
				"bytes may be dropped%s\n", c->port_id, info.driver_name, mtu,
				rte_strerror(-rc), p->frame_mtu,
				strcmp(info.driver_name, "net_af_packet") == 0
					? " unless framesz and the interface MTU allow them"
					: "");
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(c->port_id, &rxd, &txd);
	if (rc != 0) {
		snprintf(err, errlen, "port %u: descriptor counts refused: %s", c->port_id,
			 rte_strerror(-rc));
		return UET_ERR_INVAL;
	}
	p->nb_rxd = rxd;
	p->nb_txd = txd;
	p->socket = rte_eth_dev_socket_id(c->port_id);
	if (p->socket < 0)
		p->socket = (int)rte_socket_id();
	/* RX: the rings, a cache and a burst per lcore, frames steered
	 * between lcores. TX: the TX rings and the lcores' caches. net_ring
	 * receives the very mbufs sent (from the TX pool) into its RX rings
	 * and fills none of its own: ARP alone takes from the RX pool. */
	loopback = strcmp(info.driver_name, "net_ring") == 0;
	n_mbufs = c->nb_mbufs ? c->nb_mbufs
		  : loopback  ? 1024
			      : (uint32_t)nq * (rxd + 512) + 2048;
	n_tx = c->nb_mbufs ? c->nb_mbufs : (uint32_t)nq * (txd + 512 + (loopback ? rxd : 0)) + 512;
	room = c->data_room ? c->data_room : (uint32_t)RTE_PKTMBUF_HEADROOM + p->frame_mtu;
	/* net_af_packet copies whole ring frames (framesz, 8192 for jumbo
	 * use) into one mbuf. */
	if (c->data_room == 0 && strcmp(info.driver_name, "net_af_packet") == 0 &&
	    p->frame_mtu > 2048 && room < RTE_PKTMBUF_HEADROOM + 8192u)
		room = RTE_PKTMBUF_HEADROOM + 8192u;
	if (room > UINT16_MAX) {
		snprintf(err, errlen, "port %u: mbuf data room %u too large", c->port_id, room);
		return UET_ERR_INVAL;
	}
	snprintf(name, sizeof(name), "uet_pool_p%u", c->port_id);
	/* On the port's NUMA socket, so DMA and the polling lcore stay local. */
	p->pool = rte_pktmbuf_pool_create(name, n_mbufs, 256, 0, (uint16_t)room, p->socket);
	if (p->pool == NULL) {
		snprintf(err, errlen, "port %u: cannot allocate %u mbufs of %u bytes on socket "
			 "%d: %s (with --no-huge, raise -m)", c->port_id, n_mbufs, room, p->socket,
			 rte_strerror(rte_errno));
		return UET_ERR_NOMEM;
	}
	snprintf(name, sizeof(name), "uet_txpool_p%u", c->port_id);
	p->tx_pool = rte_pktmbuf_pool_create(name, n_tx, 256, sizeof(struct uet_dpdk_txpriv),
					     (uint16_t)room, p->socket);
	if (p->tx_pool == NULL) {
		snprintf(err, errlen, "port %u: cannot allocate %u TX mbufs of %u bytes on socket "
			 "%d: %s (with --no-huge, raise -m)", c->port_id, n_tx, room, p->socket,
			 rte_strerror(rte_errno));
		pools_free(p);
		return UET_ERR_NOMEM;
	}
	(void)rte_mempool_obj_iter(p->tx_pool, tx_mbuf_clear, NULL);
	p->pool_node = pool_node(p->pool);
	if (p->pool_node >= 0 && p->socket >= 0 && p->pool_node != p->socket)
		RTE_LOG(NOTICE, UET_DPDK, "port %u: its mbufs sit on NUMA node %d, the port on "
			"socket %d: every packet crosses the interconnect (hugepages on the "
			"port's node fix it)\n", c->port_id, p->pool_node, p->socket);
	txc = info.default_txconf;
	txc.offloads = conf.txmode.offloads;
	for (q = 0; q < nq; q++) {
		rc = rte_eth_rx_queue_setup(c->port_id, q, rxd, (unsigned)p->socket, NULL, p->pool);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(c->port_id, q, txd, (unsigned)p->socket, &txc);
		if (rc != 0) {
			snprintf(err, errlen, "port %u: queue %u setup failed: %s", c->port_id, q,
				 rte_strerror(-rc));
			goto fail;
		}
	}
	rc = rte_eth_dev_start(c->port_id);
	if (rc != 0) {
		snprintf(err, errlen, "port %u: start failed: %s", c->port_id, rte_strerror(-rc));
		goto fail;
	}
	if (c->promisc)
		(void)rte_eth_promiscuous_enable(c->port_id); /* not every PMD has it */
	rte_eth_macaddr_get(c->port_id, &addr);
	memcpy(p->mac, addr.addr_bytes, 6);
	return 0;
fail:
	pools_free(p);
	return UET_ERR_INVAL;
}

void
uet_dpdk_port_close(struct uet_dpdk_port *p)
{
	if (p->pool == NULL)
		return;
	(void)rte_eth_dev_stop(p->port_id);
	(void)rte_eth_dev_close(p->port_id);
	pools_free(p);
}

void
uet_dpdk_port_rx_losses(const struct uet_dpdk_port *p, uint64_t *rx_missed, uint64_t *rx_no_mbuf)
{
	struct rte_eth_stats st;

	*rx_missed = *rx_no_mbuf = 0;
	if (rte_eth_stats_get(p->port_id, &st) != 0)
		return;
	*rx_missed = st.imissed;
	*rx_no_mbuf = st.rx_nombuf;
}
