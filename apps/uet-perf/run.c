/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Executes a plan (run.h). Every lcore that serves endpoints runs the same
 * loop over its own share (its lcore poll, its workload tracker, its
 * measurement); the main lcore also orchestrates: the control-plane steps
 * on a helper thread, t = 0, the timed hooks, interval lines, stall
 * detection, and the merge of the lcores' measurements at the end. The
 * lcores share nothing on the data path but the read-only workload and a
 * few counters each one publishes for the main lcore.
 */
#define _GNU_SOURCE /* sched_getaffinity, pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "uet/prng.h"
#include "dpdk/dpdk.h"
#include "driver/driver.h"
#include "net/pcapw.h"
#include "report/output.h"
#include "run.h"
#include "uet/err.h"

extern char **environ;

RTE_LOG_REGISTER(uet_perf_logtype, uet.perf, NOTICE);
#define RTE_LOGTYPE_UET_PERF uet_perf_logtype

#define MAX_PORTS 16
#define MAX_WORKERS UET_DPDK_MAX_GROUP
#define FOLD_EVERY_NS 10000ULL  /* fold transport counters into the timeline */
#define EARLY_MAX 4096          /* completions before t = 0, replayed at it */

enum phase { PH_IDLE, PH_RUN, PH_STOP };

struct worker;

struct lhost {
	struct worker *w;
	uint32_t rank;
	struct uet_dpdk_host *h;
	struct uet_pcap *pcap;   /* --pcap: written by w's lcore only */
	char pcap_path[256];
};

/* A completion seen before this lcore's t = 0 (a faster peer). */
struct early {
	bool tx;
	union {
		struct uet_rx_msg rx;
		struct uet_tx_done done;
	} u;
};

/* What a worker publishes for the main lcore (single writer each). */
struct live {
	uint64_t rx_bytes, tx_bytes, retx_pkts;
	uint64_t progress;    /* bytes moved plus completions: stall detection */
	uint64_t dead_peers;  /* ranks its driver gave up on */
	uint64_t end_ns;
	uint32_t done;        /* measuring ended */
} __rte_cache_aligned;

struct worker {
	struct perf_ctx *c;
	unsigned lcore_id;
	uint32_t idx;
	struct lhost **hosts;
	uint32_t nhosts;
	struct uet_dpdk_lcore *lc;
	bool *local;          /* nranks: the ranks this lcore runs */
	struct rte_ring *gave_up; /* flows into this lcore's ranks whose
				   * sender (another lcore) failed them */
	/* per run */
	struct uet_drv *drv;
	struct uet_meas *meas;
	uint64_t now;
	bool measuring;
	bool omit_ended;     /* past the warm-up (-O), counters rebased */
	struct uet_ep_stats base;
	uint64_t last_tx_bytes, last_fold_ns;
	uint64_t early_rx_bytes;
	struct early *early;
	uint32_t n_early;
	uint64_t early_lost;
	uint64_t close_until;  /* done sending: until then, let idle PDCs close */
	struct uet_meas_nic nic_base; /* the ports' drop counters at t = 0 */
	struct live live;
};

struct perf_ctx {
	const struct perf_plan *p;
	struct uet_dpdk_clock clk;
	struct uet_dpdk_port ports[MAX_PORTS];
	uint32_t nports;
	struct lhost *hosts;
	uint32_t nhosts;
	uint32_t *host_of_rank;  /* UINT32_MAX if not local */
	struct worker *w;        /* nw, w[0] on the main lcore */
	uint32_t nw;
	struct uet_dpdk_group *grp;
	/* per run */
	struct uet_wl *wl;
	struct uet_meas_flow *mflows;
	uint64_t t0;
	int phase;               /* enum phase, atomic */
	int abort;               /* stall: every lcore ends, atomic */
	uint32_t next_exec;
	bool *fail_marked;
	uint32_t *peer_ip;       /* every rank's data address, sorted: who may
				  * open a PDC here (NULL until perf_connect) */
	uint32_t npeer_ip;
	uint32_t *rank_ip;       /* ... by rank: whose messages count for a flow */
};

static uint64_t
ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void
st(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* --- endpoint callbacks (on the host's lcore) --- */

/* A PDC is opened only by a rank of the run (before perf_connect learns
 * them: by none). */
static bool
on_peer_ok(void *user, uint32_t ip)
{
	const struct perf_ctx *c = ((struct lhost *)user)->w->c;
	uint32_t n = __atomic_load_n(&c->npeer_ip, __ATOMIC_ACQUIRE);

	return n > 0 && bsearch(&ip, c->peer_ip, n, sizeof(uint32_t), cmp_u32) != NULL;
}

static uint64_t
rel(const struct perf_ctx *c, uint64_t now)
{
	return now - c->t0;
}

static bool
idle_phase(const struct perf_ctx *c)
{
	return __atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) == PH_IDLE;
}

static struct early *
early_slot(struct worker *w)
{
	if (w->n_early == EARLY_MAX) {
		w->early_lost++;
		return NULL;
	}
	return &w->early[w->n_early++];
}

/* A completion that arrived before this lcore's t = 0 is kept and replayed
 * at t = 0 (worker_begin); NULL when it is not to be kept. */
static struct early *
early_keep(struct worker *w, bool tx)
{
	struct early *e;

	if (!idle_phase(w->c) || (e = early_slot(w)) == NULL)
		return NULL;
	e->tx = tx;
	return e;
}

static void
on_rx_data(void *user, const struct uet_rx_data *d)
{
	struct lhost *lh = user;
	struct worker *w = lh->w;

	if (w->drv == NULL)
		return;
	/* Before t = 0 the driver still checks the bytes (--verify). */
	uet_drv_rx_data(w->drv, d, w->now);
	if (!w->measuring && idle_phase(w->c))
		w->early_rx_bytes += d->len;
}

static void
on_rx_msg(void *user, const struct uet_rx_msg *x)
{
	struct lhost *lh = user;
	struct worker *w = lh->w;
	struct early *e;

	if (w->drv == NULL)
		return;
	if (w->measuring)
		uet_drv_rx_msg(w->drv, x);
	else if ((e = early_keep(w, false)) != NULL)
		e->u.rx = *x;
}

static void
on_tx_done(void *user, const struct uet_tx_done *x)
{
	struct lhost *lh = user;
	struct worker *w = lh->w;
	struct early *e;

	if (w->drv == NULL)
		return;
	if (w->measuring)
		uet_drv_tx_done(w->drv, x, w->now);
	else if ((e = early_keep(w, true)) != NULL)
		e->u.done = *x;
}

/* The driver sends through the endpoint of the flow's source rank. */
static int
drv_send(void *ctx, const struct uet_wl_flow *f, struct uet_send_req *r, uint64_t now_ns)
{
	struct worker *w = ctx;
	struct perf_ctx *c = w->c;
	struct lhost *lh = &c->hosts[c->host_of_rank[f->src]];
	int rc;

	r->dst_ip = c->p->ranks[f->dst].ip;
	rc = uet_ep_send(uet_dpdk_host_ep(lh->h), r, now_ns);
	if (rc == 0)
		uet_dpdk_lcore_kick(w->lc, lh->h);
	return rc;
}

/* A flow this lcore sent failed; its receiver is on another lcore of the
 * process: tell it, lest it wait (a receiver in another process learns
 * nothing; the stall timeout ends that run). */
static void
drv_gave_up(void *ctx, uint32_t flow, uint64_t now_ns)
{
	struct worker *w = ctx;
	struct perf_ctx *c = w->c;
	uint32_t h = c->host_of_rank[c->wl->flows[flow].dst];

	(void)now_ns;
	if (h != UINT32_MAX &&
	    rte_ring_mp_enqueue(c->hosts[h].w->gave_up, (void *)(uintptr_t)flow) != 0)
		w->early_lost++; /* that lcore's stall timeout will tell */
}

static void
take_gave_up(struct worker *w)
{
	void *v;

	while (rte_ring_sc_dequeue(w->gave_up, &v) == 0)
		uet_drv_peer_gave_up(w->drv, (uint32_t)(uintptr_t)v, w->now);
}

static void
on_ev(void *ctx, uint16_t ev, bool ce_ack)
{
	struct worker *w = ctx;

	/* The warm-up's counts are zeroed at its end (uet_meas_omit_end). */
	if (!w->measuring)
		return;
	if (ce_ack)
		(void)uet_meas_ev_ce(w->meas, ev);
	else
		(void)uet_meas_ev_tx(w->meas, ev);
}

/* --- set-up --- */

static int
port_of(struct perf_ctx *c, uint16_t port_id, uint16_t nq, char *err, size_t errlen)
{
	struct uet_dpdk_port_cfg pc;
	struct uet_dpdk_port *pt;
	uint32_t i;

	for (i = 0; i < c->nports; i++)
		if (c->ports[i].port_id == port_id)
			return (int)i;
	if (c->nports == MAX_PORTS) {
		snprintf(err, errlen, "more than %u DPDK ports", MAX_PORTS);
		return -1;
	}
	memset(&pc, 0, sizeof(pc));
	pc.port_id = port_id;
	pc.nb_queues = nq;
	pc.frame_mtu = c->p->frame_mtu;
	pc.nb_mbufs = c->p->nb_mbufs;
	pc.nb_rxd = c->p->nb_rxd;
	pc.nb_txd = c->p->nb_txd;
	pc.promisc = true; /* hosts may use their own MACs */
	pt = &c->ports[c->nports];
	if (uet_dpdk_port_setup(&pc, pt, err, errlen) != 0)
		return -1;
	RTE_LOG(INFO, UET_PERF, "port %u (%s): %u queue(s) of %u RX / %u TX descriptors, "
		"%u + %u mbufs (RX + TX) on node %d, socket %d, checksums: tx %s, rx %s\n",
		port_id, pt->driver, nq, pt->nb_rxd, pt->nb_txd, pt->pool->size,
		pt->tx_pool->size, pt->pool_node, pt->socket,
		pt->tx_udp_csum ? "offload" : "software", pt->rx_csum ? "offload" : "software");
	return (int)c->nports++;
}

/* The lcores that serve endpoints: (port, queue) pairs in the order of
 * their first rank, dealt round robin over the EAL lcores, the main lcore
 * first. Fills lcore_of[host] with a worker index and returns how many
 * workers there are. */
static uint32_t
assign_lcores(struct perf_ctx *c, uint32_t *worker_of, unsigned *lcore_ids)
{
	const struct perf_plan *p = c->p;
	uint32_t ids = 0, i, j, ngroups = 0, nw;
	uint32_t *group = calloc(c->nhosts, sizeof(uint32_t));
	unsigned l;

	lcore_ids[ids++] = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(l) {
		if (ids < MAX_WORKERS)
			lcore_ids[ids++] = l;
	}
	for (i = 0; i < c->nhosts && group != NULL; i++) {
		const struct perf_rank *a = &p->ranks[c->hosts[i].rank];

		for (j = 0; j < i; j++) {
			const struct perf_rank *b = &p->ranks[c->hosts[j].rank];

			if (a->port_id == b->port_id && a->queue == b->queue)
				break;
		}
		group[i] = j < i ? group[j] : ngroups++;
	}
	nw = ngroups < ids ? ngroups : ids;
	if (nw == 0)
		nw = 1;
	for (i = 0; i < c->nhosts; i++)
		worker_of[i] = group != NULL ? group[i] % nw : 0;
	if (ids > nw)
		RTE_LOG(NOTICE, UET_PERF, "%u lcores given, %u used: the endpoints use %u "
			"(port, queue) pairs; give endpoints more queues to use more lcores\n",
			ids, nw, ngroups);
	free(group);
	return nw;
}

static int
setup_workers(struct perf_ctx *c, char *err, size_t errlen)
{
	const struct perf_plan *p = c->p;
	uint32_t *worker_of = calloc(c->nhosts, sizeof(uint32_t));
	unsigned lcore_ids[MAX_WORKERS];
	struct uet_dpdk_lcore *lcs[MAX_WORKERS];
	struct uet_dpdk_host **hs = calloc(c->nhosts, sizeof(*hs));
	uint32_t i, k;
	int rc = -1;

	if (worker_of == NULL || hs == NULL)
		goto oom;
	c->nw = assign_lcores(c, worker_of, lcore_ids);
	c->w = rte_zmalloc("uet_perf_workers", c->nw * sizeof(*c->w), RTE_CACHE_LINE_SIZE);
	if (c->w == NULL)
		goto oom;
	for (k = 0; k < c->nw; k++) {
		struct worker *w = &c->w[k];
		uint32_t n = 0;

		w->c = c;
		w->idx = k;
		w->lcore_id = lcore_ids[k];
		w->hosts = calloc(c->nhosts, sizeof(*w->hosts));
		w->local = calloc(p->nranks, sizeof(bool));
		w->early = calloc(EARLY_MAX, sizeof(*w->early));
		if (w->hosts == NULL || w->local == NULL || w->early == NULL)
			goto oom;
		{
			char name[RTE_RING_NAMESIZE];

			snprintf(name, sizeof(name), "uet_perf_gu%u", k);
			w->gave_up = rte_ring_create(name, 65536, SOCKET_ID_ANY, RING_F_SC_DEQ);
			if (w->gave_up == NULL)
				goto oom;
		}
		for (i = 0; i < c->nhosts; i++) {
			if (worker_of[i] != k)
				continue;
			c->hosts[i].w = w;
			w->hosts[w->nhosts++] = &c->hosts[i];
			w->local[c->hosts[i].rank] = true;
			hs[n++] = c->hosts[i].h;
		}
		if (uet_dpdk_lcore_create(hs, n, &w->lc) != 0) {
			snprintf(err, errlen, "lcore %u: cannot serve %u endpoints (at most %u "
				 "per lcore)", w->lcore_id, n, UET_DPDK_MAX_HOSTS);
			goto out;
		}
		lcs[k] = w->lc;
		for (i = 0; i < c->nports; i++) {
			bool uses = false;
			uint32_t j;

			for (j = 0; j < w->nhosts; j++)
				uses |= p->ranks[w->hosts[j]->rank].port_id == c->ports[i].port_id;
			if (uses && c->ports[i].socket >= 0 &&
			    (unsigned)c->ports[i].socket != rte_lcore_to_socket_id(w->lcore_id))
				RTE_LOG(NOTICE, UET_PERF, "lcore %u (socket %u) polls port %u on "
					"socket %d: pick lcores on the NIC's socket\n",
					w->lcore_id, rte_lcore_to_socket_id(w->lcore_id),
					c->ports[i].port_id, c->ports[i].socket);
		}
		RTE_LOG(INFO, UET_PERF, "lcore %u: %u endpoint(s)\n", w->lcore_id, w->nhosts);
	}
	if (c->nw > 1 && uet_dpdk_lcore_group(lcs, c->nw, &c->grp) != 0) {
		snprintf(err, errlen, "cannot join %u lcores for steering", c->nw);
		goto out;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	free(worker_of);
	free(hs);
	return rc;
}

/* --pcap for one endpoint: its own file, timestamps in wall-clock time
 * (the lcores' clock starts at 0). */
static int
open_pcap(struct perf_ctx *c, struct lhost *lh, char *err, size_t errlen)
{
	const struct perf_plan *p = c->p;
	struct timespec ts;

	uet_out_expand(p->pcap, lh->rank, p->proc_rank, lh->pcap_path, sizeof(lh->pcap_path));
	if (uet_pcap_open(&lh->pcap, lh->pcap_path, p->pcap_snaplen) != 0) {
		snprintf(err, errlen, "option '--pcap': cannot write %s", lh->pcap_path);
		return -1;
	}
	uet_pcap_set_limit(lh->pcap, p->pcap_count);
	clock_gettime(CLOCK_REALTIME, &ts);
	uet_pcap_set_time_base(lh->pcap, (uint64_t)ts.tv_sec * 1000000000ULL +
						 (uint64_t)ts.tv_nsec - uet_dpdk_now_ns(&c->clk));
	return 0;
}

/* One value per start of this process, for the endpoints' start nonce:
 * a process restarted with the same --seed must not reuse its
 * predecessor's PDC ids and start PSNs, which peers that outlived it
 * still hold (lib/core takes such packets for duplicates). */
static uint64_t
start_nonce(void)
{
	struct timespec ts;
	uint64_t n = 0;

	if (getrandom(&n, sizeof(n), GRND_NONBLOCK) != (ssize_t)sizeof(n)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		n = uet_mix64((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) ^
		    ((uint64_t)getpid() << 32);
	}
	return n != 0 ? n : 1;
}

static int
setup_hosts(struct perf_ctx *c, char *err, size_t errlen)
{
	const struct perf_plan *p = c->p;
	uint64_t nonce = start_nonce();
	uint32_t r, i, j;

	c->host_of_rank = malloc(p->nranks * sizeof(uint32_t));
	c->hosts = calloc(p->nranks, sizeof(*c->hosts));
	if (c->host_of_rank == NULL || c->hosts == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (r = 0; r < p->nranks; r++) {
		struct uet_dpdk_host_cfg hc;
		uint16_t nq = 1;
		int pi;

		c->host_of_rank[r] = UINT32_MAX;
		if (!p->local[r])
			continue;
		/* The port needs as many queues as its highest one in use. */
		for (j = 0; j < p->nranks; j++)
			if (p->local[j] && p->ranks[j].port_id == p->ranks[r].port_id &&
			    p->ranks[j].queue + 1 > nq)
				nq = (uint16_t)(p->ranks[j].queue + 1);
		pi = port_of(c, p->ranks[r].port_id, nq, err, errlen);
		if (pi < 0)
			return -1;
		memset(&hc, 0, sizeof(hc));
		hc.port = &c->ports[pi];
		hc.queue = p->ranks[r].queue;
		hc.ip = p->ranks[r].ip;
		if (p->ranks[r].has_mac)
			memcpy(hc.mac, p->ranks[r].mac, 6);
		hc.prefix_len = p->ranks[r].prefix_len;
		hc.gateway = p->ranks[r].gateway;
		uet_dscp_map_default(&hc.dscp);
		hc.dscp.tc[UET_TC_DATA] = p->dscp_data;
		hc.dscp.tc[UET_TC_CONTROL] = p->dscp_ctrl;
		hc.dscp.tc[UET_TC_RETX] = p->dscp_retx;
		hc.zero_udp_csum = p->zero_udp_csum;
		hc.ep = p->ep;
		hc.ep.seed = p->ep.seed * 1000003 + r;
		hc.ep.start_nonce = nonce;
		hc.ep.cb.rx_data = on_rx_data;
		hc.ep.cb.rx_msg = on_rx_msg;
		hc.ep.cb.tx_done = on_tx_done;
		hc.ep.cb.peer_ok = on_peer_ok;
		hc.ep.user = &c->hosts[c->nhosts];
		hc.on_ev = on_ev;
		hc.on_ev_ctx = NULL; /* its worker, once assigned */
		if (p->verify)
			hc.fill = uet_drv_fill;
		c->hosts[c->nhosts].rank = r;
		if (p->pcap != NULL &&
		    open_pcap(c, &c->hosts[c->nhosts], err, errlen) != 0)
			return -1;
		hc.pcap = c->hosts[c->nhosts].pcap;
		if (uet_dpdk_host_create(&hc, &c->hosts[c->nhosts].h, err, errlen) != 0)
			return -1;
		c->host_of_rank[r] = c->nhosts++;
	}
	if (c->nhosts == 0) {
		snprintf(err, errlen, "no local rank to run");
		return -1;
	}
	if (setup_workers(c, err, errlen) != 0)
		return -1;
	for (i = 0; i < c->nhosts; i++)
		uet_dpdk_host_set_ev_ctx(c->hosts[i].h, c->hosts[i].w);
	return 0;
}

/* Neighbours: a rank whose MAC was given is static, and so is a local rank
 * on the same port (the same wire); the rest are resolved with ARP
 * (through the gateway when off-link). */
static void
static_neighbours(struct perf_ctx *c)
{
	const struct perf_plan *p = c->p;
	uint32_t i, r;

	for (i = 0; i < c->nhosts; i++) {
		const struct perf_rank *me = &p->ranks[c->hosts[i].rank];

		for (r = 0; r < p->nranks; r++) {
			const uint8_t *mac = NULL;

			if (r == c->hosts[i].rank)
				continue;
			if (p->ranks[r].has_mac)
				mac = p->ranks[r].mac;
			else if (c->host_of_rank[r] != UINT32_MAX &&
				 p->ranks[r].port_id == me->port_id)
				mac = uet_dpdk_host_mac(c->hosts[c->host_of_rank[r]].h);
			if (mac != NULL)
				(void)uet_dpdk_host_add_neigh(c->hosts[i].h, p->ranks[r].ip, mac);
		}
	}
}

/* Before any worker runs: the main thread polls every lcore's share. */
static void
poll_all(struct perf_ctx *c, uint64_t now)
{
	uint32_t k;

	for (k = 0; k < c->nw; k++)
		uet_dpdk_lcore_poll(c->w[k].lc, now);
}

static int
resolve_all(struct perf_ctx *c, char *err, size_t errlen)
{
	uint64_t start = uet_dpdk_now_ns(&c->clk), now = start;
	uint32_t i, r;
	bool missing = true;

	while (missing) {
		missing = false;
		for (i = 0; i < c->nhosts; i++)
			for (r = 0; r < c->p->nranks; r++)
				if (r != c->hosts[i].rank &&
				    !uet_dpdk_host_has_neigh(c->hosts[i].h, c->p->ranks[r].ip)) {
					uet_dpdk_host_resolve(c->hosts[i].h, c->p->ranks[r].ip);
					missing = true;
				}
		if (!missing)
			break;
		if (now - start > c->p->arp_timeout_ns || (c->p->stop && *c->p->stop)) {
			for (i = 0; i < c->nhosts; i++)
				for (r = 0; r < c->p->nranks; r++)
					if (r != c->hosts[i].rank &&
					    !uet_dpdk_host_has_neigh(c->hosts[i].h, c->p->ranks[r].ip)) {
						char a[16], b[16];

						snprintf(err, errlen, "rank %u (%s) got no ARP reply for "
							 "rank %u (%s) in %.1f s",
							 c->hosts[i].rank,
							 uet_ip_str(c->p->ranks[c->hosts[i].rank].ip, a), r,
							 uet_ip_str(c->p->ranks[r].ip, b),
							 (double)c->p->arp_timeout_ns / 1e9);
						return -1;
					}
		}
		poll_all(c, now);
		now = uet_dpdk_now_ns(&c->clk);
	}
	return 0;
}

/* --- measurement --- */

static void
host_stats(struct worker *w, struct uet_ep_stats *sum)
{
	uint32_t i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < w->nhosts; i++)
		uet_meas_add_ep_stats(sum, uet_ep_stats(uet_dpdk_host_ep(w->hosts[i]->h)));
}

/* The ports' drops of this lcore's hosts (cumulative over a sweep). */
static void
nic_stats(struct worker *w, struct uet_meas_nic *n)
{
	uint32_t i;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < w->nhosts; i++) {
		const struct uet_dpdk_host_stats *s = uet_dpdk_host_stats(w->hosts[i]->h);

		n->tx_full += s->tx_full;
		n->tx_fail_ev += s->tx_fail_ev;
		n->tx_no_neigh += s->tx_no_neigh;
		n->tx_no_mbuf += s->tx_no_mbuf;
		n->rx_csum_drops += s->rx_csum_drops;
		n->rx_other_drops += s->rx_other_drops;
		n->tx_csum_offloaded += s->tx_csum_offloaded;
		n->rx_csum_offloaded += s->rx_csum_offloaded;
		n->tx_csum_fused += s->tx_csum_fused;
	}
	/* frames for no endpoint here (another address, not IPv4) */
	n->rx_other_drops += uet_dpdk_lcore_stats(w->lc)->rx_other_drops;
	n->steer_drops = uet_dpdk_lcore_stats(w->lc)->steer_drops;
	n->late_polls = uet_dpdk_lcore_stats(w->lc)->late_polls;
	/* The ports are the process's: counted once, by the main lcore. */
	if (w->idx == 0)
		for (i = 0; i < w->c->nports; i++) {
			uint64_t missed, nombuf;

			uet_dpdk_port_rx_losses(&w->c->ports[i], &missed, &nombuf);
			n->rx_missed += missed;
			n->rx_no_mbuf += nombuf;
		}
}

/* The transport's and ports' counters into the measurement, what was
 * sent since the last fold into the bin of at_ns. */
static void
fold_stats_at(struct worker *w, uint64_t at_ns)
{
	const struct uet_drv_stats *ds = uet_drv_stats(w->drv);
	struct uet_ep_stats sum;
	uint64_t *a = (uint64_t *)&sum;
	const uint64_t *b = (const uint64_t *)&w->base;
	size_t i;

	host_stats(w, &sum);
	if (sum.tx_data_bytes > w->last_tx_bytes) {
		uint64_t d = sum.tx_data_bytes - w->last_tx_bytes;

		(void)uet_meas_tx_bytes(w->meas, at_ns, d);
		st(&w->live.tx_bytes, w->live.tx_bytes + d);
	}
	w->last_tx_bytes = sum.tx_data_bytes;
	/* This run's share of counters that are cumulative over a sweep. */
	for (i = 0; i < sizeof(sum) / sizeof(uint64_t); i++)
		a[i] -= b[i];
	(void)uet_meas_set_ep_stats(w->meas, at_ns, &sum);
	{
		struct uet_meas_nic n;

		nic_stats(w, &n);
		uet_meas_nic_add(&n, &w->nic_base, -1);
		uet_meas_set_nic(w->meas, &n);
	}
	st(&w->live.retx_pkts, sum.tx_retx_pkts);
	st(&w->live.rx_bytes, ds->rx_bytes);
	st(&w->live.progress, ds->progress + w->live.tx_bytes);
	st(&w->live.dead_peers, ds->dead_peers);
}

static void
fold_stats(struct worker *w)
{
	fold_stats_at(w, w->now);
}

/* This lcore's t = 0: its measurement, what arrived early, its first
 * messages. */
static int
worker_begin(struct worker *w)
{
	struct perf_ctx *c = w->c;
	const struct perf_plan *p = c->p;
	struct uet_meas_config mc;
	uint32_t i;

	memset(&mc, 0, sizeof(mc));
	mc.flows = c->mflows;
	mc.n_flows = c->wl->nflows;
	mc.rank_local = w->local;
	mc.n_ranks = p->nranks;
	mc.ev_base = p->ep.ev_base;
	mc.ev_count = p->ep.ev_count;
	mc.start_ns = c->t0;
	mc.bin_ns = p->bin_ns;
	mc.interval_ns = p->interval_ns;
	mc.repeat = p->repeat;
	mc.omit_ns = p->omit_ns;
	mc.uet_strict = p->ep.strict;
	if (uet_meas_create(&mc, &w->meas) != 0)
		return -1;
	host_stats(w, &w->base);
	nic_stats(w, &w->nic_base);
	w->last_tx_bytes = w->base.tx_data_bytes;
	w->last_fold_ns = 0;
	w->now = c->t0;
	uet_drv_begin(w->drv, w->meas, c->t0);
	w->measuring = true;
	if (w->early_rx_bytes > 0)
		(void)uet_meas_rx_bytes(w->meas, c->t0, w->early_rx_bytes);
	/* They happened before this process's time 0: at it, as far as the
	 * measurement (and the merge, which drops negative times) goes. */
	for (i = 0; i < w->n_early; i++) {
		struct early *e = &w->early[i];

		if (e->tx) {
			e->u.done.submit_ns = RTE_MAX(e->u.done.submit_ns, c->t0);
			e->u.done.done_ns = RTE_MAX(e->u.done.done_ns, c->t0);
			uet_drv_tx_done(w->drv, &e->u.done, c->t0);
		} else {
			e->u.rx.done_ns = RTE_MAX(e->u.rx.done_ns, c->t0);
			uet_drv_rx_msg(w->drv, &e->u.rx);
		}
	}
	if (w->early_lost > 0)
		(void)uet_meas_event(w->meas, c->t0, "early-lost", "completions before t = 0");
	return 0;
}

/* With --pdc-idle-close-ns, a finished lcore keeps polling until its
 * hosts' PDCs have idled out and closed (CLOSE sent and acknowledged), or
 * for at most the idle time plus 10 ms; the run's end is when it finished
 * sending. True while it should wait. */
static bool
closing(struct worker *w)
{
	uint64_t idle = w->c->p->ep.pdc_idle_close_ns;
	uint32_t i, open = 0;

	if (idle == 0)
		return false;
	if (w->close_until == 0) {
		uet_drv_stop(w->drv); /* streams (-D): no new messages */
		st(&w->live.end_ns, w->now);
		w->close_until = w->now + idle + 10000000ULL;
	}
	for (i = 0; i < w->nhosts; i++)
		open += uet_ep_open_initiators(uet_dpdk_host_ep(w->hosts[i]->h));
	return open > 0 && w->now < w->close_until;
}

/* The end of the warm-up (-O): the counters as they stand are the zero
 * of what the report counts. At the mark, or at the end of a run that
 * stopped sooner (nothing was measured then). */
static void
omit_end(struct worker *w)
{
	uint64_t mark = w->c->t0 + w->c->p->omit_ns;

	if (w->omit_ended || w->c->p->omit_ns == 0)
		return;
	/* Everything the counters hold now is the warm-up's, what was sent
	 * since the last fold too: into the warm-up's last bin. */
	fold_stats_at(w, w->now < mark ? w->now : mark - 1);
	w->last_fold_ns = w->now;
	uet_meas_omit_end(w->meas);
	w->omit_ended = true;
}

static void
worker_end(struct worker *w)
{
	if (w->meas != NULL) {
		fold_stats(w);
		omit_end(w);
	}
	uet_drv_stop(w->drv);
	w->measuring = false;
	if (w->close_until == 0)
		st(&w->live.end_ns, w->now);
	__atomic_store_n(&w->live.done, 1, __ATOMIC_RELEASE);
}

/* One pass of an lcore's loop. */
static void
worker_step(struct worker *w)
{
	struct perf_ctx *c = w->c;
	const struct perf_plan *p = c->p;

	w->now = uet_dpdk_now_ns(&c->clk);
	if (w->measuring) {
		take_gave_up(w);
		uet_drv_step(w->drv, w->now);
	}
	uet_dpdk_lcore_poll(w->lc, w->now);
	if (!w->measuring)
		return;
	/* The warm-up's end first: what the counters hold is the warm-up's. */
	if (!w->omit_ended && p->omit_ns > 0 && rel(c, w->now) >= p->omit_ns)
		omit_end(w);
	if (w->now - w->last_fold_ns >= FOLD_EVERY_NS) {
		fold_stats(w);
		w->last_fold_ns = w->now;
	}
	if ((p->stop && *p->stop) || __atomic_load_n(&c->abort, __ATOMIC_ACQUIRE)) {
		worker_end(w);
		return;
	}
	if (uet_drv_done(w->drv) ||
	    (p->repeat && rel(c, w->now) >= p->omit_ns + p->duration_ns)) {
		if (closing(w))
			return;
		worker_end(w);
	}
}

static int
worker_main(void *arg)
{
	struct worker *w = arg;
	struct perf_ctx *c = w->c;
	int ph;

	while ((ph = __atomic_load_n(&c->phase, __ATOMIC_ACQUIRE)) != PH_STOP) {
		if (ph == PH_RUN && w->meas == NULL &&
		    !__atomic_load_n(&w->live.done, __ATOMIC_ACQUIRE) && worker_begin(w) != 0) {
			__atomic_store_n(&c->abort, 1, __ATOMIC_RELEASE);
			worker_end(w);
		}
		worker_step(w);
	}
	return 0;
}

/* --- the control plane on a helper thread --- */

struct async_op {
	int (*fn)(void *ctx, bool peer_dead, char *err, size_t errlen);
	void *ctx;
	bool peer_dead;
	pthread_t th;
	int rc;
	int done;
	char err[256];
};

static void *
async_main(void *arg)
{
	struct async_op *a = arg;
	sigset_t all;

	/* Signals go to the main thread (its handler sets the stop flag). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	a->rc = a->fn(a->ctx, a->peer_dead, a->err, sizeof(a->err));
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Run fn on a helper thread while the main lcore keeps polling its share
 * (the other lcores poll on their own). */
static int
sync_polling(struct perf_ctx *c, int (*fn)(void *, bool, char *, size_t), bool peer_dead,
	     char *err, size_t errlen)
{
	struct async_op a;

	if (fn == NULL)
		return 0;
	memset(&a, 0, sizeof(a));
	a.fn = fn;
	a.peer_dead = peer_dead;
	a.ctx = c->p->hooks.ctx;
	if (pthread_create(&a.th, NULL, async_main, &a) != 0) {
		snprintf(err, errlen, "cannot start the control thread");
		return -1;
	}
	while (!__atomic_load_n(&a.done, __ATOMIC_ACQUIRE))
		worker_step(&c->w[0]);
	pthread_join(a.th, NULL);
	if (a.rc != 0)
		snprintf(err, errlen, "%s", a.err);
	return a.rc;
}

/* --- the main lcore's duties --- */

/* The CPUs the process could use before EAL pinned its threads: hooks run
 * there, not on the polling core (where they would wait for the lcore's
 * time slices, and slow it down). */
static cpu_set_t exec_cpus;
static bool exec_cpus_saved;

void
perf_save_cpus(void)
{
	exec_cpus_saved = sched_getaffinity(0, sizeof(exec_cpus), &exec_cpus) == 0;
}

void
perf_thread_off_lcores(void)
{
	if (exec_cpus_saved)
		(void)pthread_setaffinity_np(pthread_self(), sizeof(exec_cpus), &exec_cpus);
}

static void *
spawn_main(void *arg)
{
	char *cmd = arg;
	char *argv[] = { "sh", "-c", cmd, NULL };
	pid_t pid;

	/* The child inherits this thread's affinity. */
	perf_thread_off_lcores();
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0)
		fprintf(stderr, "uet-perf: --exec-at: cannot run '%s'\n", cmd);
	free(cmd);
	return NULL;
}

static void
run_exec(struct perf_ctx *c, const struct perf_exec *e)
{
	struct uet_meas *m = c->w[0].meas;
	pthread_attr_t attr;
	pthread_t th;
	char *cmd = strdup(e->cmd);
	bool ok = false;

	/* Spawned from a helper thread, not waited for: the data path must
	 * not block. */
	if (cmd != NULL && pthread_attr_init(&attr) == 0) {
		(void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		ok = pthread_create(&th, &attr, spawn_main, cmd) == 0;
		pthread_attr_destroy(&attr);
	}
	if (!ok)
		free(cmd);
	(void)uet_meas_event(m, c->w[0].now, ok ? "exec" : "exec-failed", e->cmd);
}

static void
timed_hooks(struct perf_ctx *c)
{
	const struct perf_plan *p = c->p;
	struct worker *w0 = &c->w[0];
	uint64_t t = rel(c, w0->now);
	uint32_t i;

	for (i = 0; i < p->nfail; i++) {
		if (!c->fail_marked[i] && t >= p->fail[i].at_ns) {
			char d[64];

			snprintf(d, sizeof(d), "%u-%u", p->fail[i].lo, p->fail[i].hi);
			(void)uet_meas_event(w0->meas, c->t0 + p->fail[i].at_ns, "fail-ev", d);
			c->fail_marked[i] = true;
		}
	}
	while (c->next_exec < p->nexec && t >= p->exec[c->next_exec].at_ns)
		run_exec(c, &p->exec[c->next_exec++]);
}

struct watch {
	uint64_t iv_start_ns;        /* current interval, relative */
	uint64_t rx, tx, retx;       /* totals at its start */
	uint64_t progress, progress_ns;
};

static void
live_sum(struct perf_ctx *c, uint64_t *rx, uint64_t *tx, uint64_t *retx, uint64_t *prog)
{
	uint32_t k;

	*rx = *tx = *retx = *prog = 0;
	for (k = 0; k < c->nw; k++) {
		*rx += ld(&c->w[k].live.rx_bytes);
		*tx += ld(&c->w[k].live.tx_bytes);
		*retx += ld(&c->w[k].live.retx_pkts);
		*prog += ld(&c->w[k].live.progress);
	}
}

/* Ranks the lcores' drivers gave up on (each lcore counts its own). */
static uint64_t
dead_peers(struct perf_ctx *c)
{
	uint64_t n = 0;
	uint32_t k;

	for (k = 0; k < c->nw; k++)
		n += ld(&c->w[k].live.dead_peers);
	return n;
}

static void
emit_interval(struct perf_ctx *c, struct watch *wt, uint64_t end_rel)
{
	struct uet_meas_interval iv;
	uint64_t rx, tx, retx, prog;

	live_sum(c, &rx, &tx, &retx, &prog);
	iv.start_ns = wt->iv_start_ns;
	iv.end_ns = end_rel;
	iv.rx_bytes = rx - wt->rx;
	iv.tx_bytes = tx - wt->tx;
	iv.retx_pkts = retx - wt->retx;
	iv.omitted = end_rel <= c->p->omit_ns;
	c->p->hooks.interval(c->p->hooks.ctx, &iv);
	wt->iv_start_ns = end_rel;
	wt->rx = rx;
	wt->tx = tx;
	wt->retx = retx;
}

/* Intervals, stall detection: from the counters the lcores publish. */
static void
watch_step(struct perf_ctx *c, struct watch *wt)
{
	const struct perf_plan *p = c->p;
	uint64_t now = c->w[0].now, t = rel(c, now), rx, tx, retx, prog;

	if (p->interval_ns && p->hooks.interval != NULL &&
	    t >= wt->iv_start_ns + p->interval_ns)
		emit_interval(c, wt, wt->iv_start_ns + p->interval_ns);
	if (p->stall_ns == 0)
		return;
	live_sum(c, &rx, &tx, &retx, &prog);
	if (prog != wt->progress) {
		wt->progress = prog;
		wt->progress_ns = now;
	} else if (now - wt->progress_ns >= p->stall_ns) {
		__atomic_store_n(&c->abort, 1, __ATOMIC_RELEASE);
	}
}

static bool
all_done(struct perf_ctx *c)
{
	uint32_t k;

	for (k = 0; k < c->nw; k++)
		if (!__atomic_load_n(&c->w[k].live.done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/* --- one run --- */

static int
prepare_run(struct perf_ctx *c, const struct uet_wl_spec *spec, char *err, size_t errlen)
{
	const struct perf_plan *p = c->p;
	struct uet_drv_cfg dc;
	uint32_t i, k;

	if (uet_wl_build(spec, &c->wl, err, errlen) != 0)
		return -1;
	c->mflows = calloc(c->wl->nflows ? c->wl->nflows : 1, sizeof(*c->mflows));
	c->fail_marked = calloc(p->nfail ? p->nfail : 1, sizeof(bool));
	if (c->mflows == NULL || c->fail_marked == NULL)
		goto oom;
	for (i = 0; i < c->wl->nflows; i++) {
		const struct uet_wl_flow *f = &c->wl->flows[i];

		if (f->size_bytes > UINT32_MAX) {
			snprintf(err, errlen, "flow %u: %llu bytes; messages are at most 4 GiB - 1",
				 i, (unsigned long long)f->size_bytes);
			return -1;
		}
		c->mflows[i].src = f->src;
		c->mflows[i].dst = f->dst;
		c->mflows[i].size_bytes = f->size_bytes;
		c->mflows[i].stream = f->stream;
		c->mflows[i].step = f->step;
	}
	memset(&dc, 0, sizeof(dc));
	dc.wl = c->wl;
	dc.repeat = p->repeat;
	dc.parallel = p->parallel;
	dc.rate_bps = p->wl.rate_bps;
	dc.verify = p->verify;
	dc.fail_dead_peers = true;
	dc.rank_ip = c->rank_ip;
	dc.send = drv_send;
	dc.gave_up = drv_gave_up;
	for (k = 0; k < c->nw; k++) {
		dc.local = c->w[k].local;
		dc.ctx = &c->w[k];
		if (uet_drv_create(&dc, &c->w[k].drv) != 0)
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory for the workload");
	return -1;
}

/* What one run leaves behind that the next must not see. */
static void
run_reset(struct perf_ctx *c)
{
	uint32_t k;

	for (k = 0; c->w != NULL && k < c->nw; k++) {
		struct worker *w = &c->w[k];
		void *v;

		while (w->gave_up != NULL && rte_ring_sc_dequeue(w->gave_up, &v) == 0)
			;
		uet_drv_destroy(w->drv);
		uet_meas_destroy(w->meas);
		w->drv = NULL;
		w->meas = NULL;
		w->early_rx_bytes = w->early_lost = 0;
		w->close_until = 0;
		w->n_early = 0;
		w->measuring = false;
		w->omit_ended = false;
		memset(&w->live, 0, sizeof(w->live));
	}
	free(c->mflows);
	free(c->fail_marked);
	c->mflows = NULL;
	c->fail_marked = NULL;
	c->wl = NULL;
	c->next_exec = 0;
	c->abort = 0;
}

/* Fold the lcores' measurements into one for the process. */
static struct uet_meas *
merge_workers(struct perf_ctx *c, uint64_t *end_ns, uint64_t *verify_bad)
{
	const struct perf_plan *p = c->p;
	struct uet_meas_config mc = *uet_meas_config(c->w[0].meas);
	struct uet_meas *m;
	uint32_t k;

	mc.flows = c->mflows;
	mc.rank_local = p->local;
	if (uet_meas_create(&mc, &m) != 0)
		return NULL;
	*end_ns = 0;
	*verify_bad = 0;
	for (k = 0; k < c->nw; k++) {
		struct worker *w = &c->w[k];
		const struct uet_drv_stats *ds = uet_drv_stats(w->drv);
		uint64_t e = ld(&w->live.end_ns);

		if (w->meas == NULL)
			continue;
		if (p->verify)
			uet_meas_verify(w->meas, ds->verify_checked, ds->verify_bad);
		*verify_bad += ds->verify_bad;
		if (uet_meas_merge(m, w->meas) != 0) {
			uet_meas_destroy(m);
			return NULL;
		}
		if (e > c->t0 && e - c->t0 > *end_ns)
			*end_ns = e - c->t0;
	}
	return m;
}

int
perf_run_one(struct perf_ctx *c, const struct uet_wl_spec *spec, struct perf_result *res)
{
	const struct perf_plan *p = c->p;
	struct worker *w0 = &c->w[0];
	struct watch wt;
	uint32_t k;
	int rc = -1;
	bool finish_failed = false;

	memset(res, 0, sizeof(*res));
	if (prepare_run(c, spec, res->error, sizeof(res->error)) != 0)
		goto out;
	/* Every lcore polls from here on (ARP replies, ACKs for peers). */
	__atomic_store_n(&c->phase, PH_IDLE, __ATOMIC_RELEASE);
	for (k = 1; k < c->nw; k++)
		if (rte_eal_remote_launch(worker_main, &c->w[k], c->w[k].lcore_id) != 0) {
			snprintf(res->error, sizeof(res->error), "cannot launch lcore %u",
				 c->w[k].lcore_id);
			goto stop;
		}
	if (sync_polling(c, p->hooks.barrier, false, res->error, sizeof(res->error)) != 0)
		goto stop;
	c->t0 = uet_dpdk_now_ns(&c->clk);
	for (k = 0; k < p->nfail; k++) {
		uint32_t h;

		for (h = 0; h < c->nhosts; h++)
			if (uet_dpdk_host_fail_evs(c->hosts[h].h, c->t0 + p->fail[k].at_ns,
						   p->fail[k].lo, p->fail[k].hi) != 0) {
				snprintf(res->error, sizeof(res->error),
					 "--fail-ev-at: range %u of %u (EVs %u-%u) not accepted",
					 k + 1, p->nfail, p->fail[k].lo, p->fail[k].hi);
				goto stop;
			}
	}
	__atomic_store_n(&c->phase, PH_RUN, __ATOMIC_RELEASE);
	if (worker_begin(w0) != 0) {
		snprintf(res->error, sizeof(res->error), "out of memory for the measurement");
		goto stop;
	}
	if (p->hooks.started != NULL)
		p->hooks.started(p->hooks.ctx, w0->meas);
	memset(&wt, 0, sizeof(wt));
	wt.progress_ns = c->t0;
	while (!all_done(c)) {
		worker_step(w0);
		if (w0->measuring)
			timed_hooks(c);
		watch_step(c, &wt);
	}
	res->interrupted = p->stop && *p->stop;
	res->stalled = __atomic_load_n(&c->abort, __ATOMIC_ACQUIRE) && !res->interrupted;
	if (res->interrupted)
		(void)uet_meas_event(w0->meas, w0->now,
				     p->stop_kind != NULL ? p->stop_kind : "interrupt",
				     p->stop_why != NULL ? p->stop_why : "SIGINT/SIGTERM");
	if (res->stalled)
		(void)uet_meas_event(w0->meas, w0->now, "stalled", "no progress");
	/* The last, partial interval, when intervals were shown at all and
	 * the report's rule shows it. */
	if (p->interval_ns && p->hooks.interval != NULL && wt.iv_start_ns > 0) {
		uint64_t rx, tx, retx, prog, t = rel(c, w0->now);

		live_sum(c, &rx, &tx, &retx, &prog);
		if (uet_meas_tail_shown(t - wt.iv_start_ns, p->interval_ns,
					rx != wt.rx || tx != wt.tx || retx != wt.retx))
			emit_interval(c, &wt, t);
	}
	/* Peers may still need our ACKs until they are done too. A peer that
	 * is gone by now does not take this process's report with it: the
	 * run is measured, only not confirmed. */
	finish_failed = sync_polling(c, p->hooks.finish, res->stalled || dead_peers(c) > 0,
				     res->error, sizeof(res->error)) != 0;
	rc = 0;
stop:
	__atomic_store_n(&c->phase, PH_STOP, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	if (rc == 0) {
		res->meas = merge_workers(c, &res->end_ns, &res->verify_bad_msgs);
		if (res->meas == NULL) {
			snprintf(res->error, sizeof(res->error), "out of memory merging the lcores' "
				 "measurements");
			rc = -1;
		}
		if (res->stalled) {
			snprintf(res->error, sizeof(res->error), "no progress for %.1f s: a peer or "
				 "the fabric stopped answering (see --stall-timeout)",
				 (double)p->stall_ns / 1e9);
			rc = -1;
		}
		res->complete = !p->repeat && !res->interrupted && !res->stalled;
		if (finish_failed && res->meas != NULL) {
			res->peers_lost = true;
			rc = -1;
		}
	}
out:
	/* The workload goes to the caller; run_reset frees the rest. */
	res->wl = c->wl;
	run_reset(c);
	return rc;
}

/* --- life cycle --- */

void
perf_teardown(struct perf_ctx *c)
{
	uint32_t i, k;

	if (c == NULL)
		return;
	run_reset(c);
	for (k = 0; c->w != NULL && k < c->nw; k++)
		uet_dpdk_lcore_destroy(c->w[k].lc);
	uet_dpdk_group_destroy(c->grp);
	for (i = 0; i < c->nhosts; i++) {
		uet_dpdk_host_destroy(c->hosts[i].h);
		if (c->hosts[i].pcap == NULL)
			continue;
		/* tcpdump's habit: what the capture holds, on stderr. */
		fprintf(stderr, "uet-perf: %s: %" PRIu64 " frames captured", c->hosts[i].pcap_path,
			uet_pcap_count(c->hosts[i].pcap));
		if (uet_pcap_skipped(c->hosts[i].pcap) != 0)
			fprintf(stderr, ", %" PRIu64 " more past --pcap-count not written",
				uet_pcap_skipped(c->hosts[i].pcap));
		fputc('\n', stderr);
		uet_pcap_close(c->hosts[i].pcap);
	}
	for (i = 0; i < c->nports; i++)
		uet_dpdk_port_close(&c->ports[i]);
	for (k = 0; c->w != NULL && k < c->nw; k++) {
		free(c->w[k].hosts);
		free(c->w[k].local);
		free(c->w[k].early);
		rte_ring_free(c->w[k].gave_up);
	}
	rte_free(c->w);
	free(c->hosts);
	free(c->host_of_rank);
	free(c->peer_ip);
	free(c->rank_ip);
	free(c);
	/* Reap hooks that finished; the rest are the shell's business. */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int
perf_setup(const struct perf_plan *p, struct perf_ctx **out, char *err, size_t errlen)
{
	struct perf_ctx *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->p = p;
	uet_dpdk_clock_init(&c->clk);
	if (setup_hosts(c, err, errlen) != 0) {
		perf_teardown(c);
		return -1;
	}
	*out = c;
	return 0;
}

int
perf_connect(struct perf_ctx *c, uint32_t job_id, char *err, size_t errlen)
{
	const struct perf_plan *p = c->p;
	uint32_t i, r;

	/* The run's own: its job, and senders at its ranks' addresses. */
	for (i = 0; i < c->nhosts; i++)
		if (uet_ep_set_job_id(uet_dpdk_host_ep(c->hosts[i].h), job_id) != 0) {
			snprintf(err, errlen, "job id %u does not fit in 24 bits", job_id);
			return -1;
		}
	free(c->peer_ip);
	free(c->rank_ip);
	c->peer_ip = malloc((p->nranks ? p->nranks : 1) * sizeof(uint32_t));
	c->rank_ip = malloc((p->nranks ? p->nranks : 1) * sizeof(uint32_t));
	if (c->peer_ip == NULL || c->rank_ip == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (r = 0; r < p->nranks; r++)
		c->peer_ip[r] = c->rank_ip[r] = p->ranks[r].ip;
	qsort(c->peer_ip, p->nranks, sizeof(uint32_t), cmp_u32);
	__atomic_store_n(&c->npeer_ip, p->nranks, __ATOMIC_RELEASE);
	static_neighbours(c);
	return resolve_all(c, err, errlen);
}

uint32_t
perf_lcores(const struct perf_ctx *c)
{
	return c->nw;
}

void
perf_ep_stats(struct perf_ctx *c, struct uet_ep_stats *sum)
{
	uint32_t i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < c->nhosts; i++)
		uet_meas_add_ep_stats(sum, uet_ep_stats(uet_dpdk_host_ep(c->hosts[i].h)));
}
