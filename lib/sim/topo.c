/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Topologies (leaf-spine, 2- and 3-tier fat trees), up-down routing and
 * the enumeration calls of sim.h.
 *
 * Every topology is laid out the same way, which is what keeps a seed's
 * results stable: nodes are the hosts, then the switches tier by tier; a
 * switch's ports are contiguous, its downlinks first (in the order of the
 * nodes below), then its uplinks (in the order of the nodes above); a
 * switch's ECMP hash seed depends on its node index only. The leaf-spine
 * builder is the 2-tier case of the same code.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"
#include "uet/wire.h"

#define DIST_INF 0xff
/* Frame sizes for the unloaded RTT: a full data packet and an ACK with
 * its CC extension. */
#define ACK_FRAME_BYTES (UET_FRAME_HDR_LEN + UET_PDS_ACK_CC_LEN)
#define WIRE_OVERHEAD 24

/* ------------------------------------------------------------------ */
/* shapes                                                              */

struct shape {
	uint32_t tiers;
	uint32_t hosts, hpt, tor_up, tors, tpp, pods;
	uint32_t t1, t1_down, t1_up, t2;
};

static uint32_t
isqrt_floor(uint32_t n)
{
	uint64_t r = 0;

	while ((r + 1) * (r + 1) <= n)
		r++;
	return (uint32_t)r;
}

static int
shape_of(const struct sim_fattree_cfg *c, struct shape *sh)
{
	uint32_t n = c->hosts, d;

	memset(sh, 0, sizeof(*sh));
	if (n == 0 || n > 0xffffff || (c->tiers != 2 && c->tiers != 3) || c->oversub < 1 ||
	    c->oversub > 8)
		return UET_ERR_INVAL;
	sh->tiers = c->tiers;
	sh->hosts = n;
	if (c->tiers == 2) {
		sh->hpt = c->hosts_per_tor;
		if (sh->hpt == 0) {
			/* The paper's 2-tier setups: 1024 = 32 x 32, 128 =
			 * 16 ToRs x 8. */
			for (d = isqrt_floor(n); d > 1 && n % d != 0; d--)
				;
			sh->hpt = d;
		}
		if (n % sh->hpt != 0)
			return UET_ERR_INVAL;
		sh->tors = n / sh->hpt;
		sh->tpp = sh->tors;
		sh->pods = 1;
	} else {
		/* k-ary: hosts = k^3 / 4 = 2 d^3 with d = k / 2. */
		for (d = 1; 2ULL * (d + 1) * (d + 1) * (d + 1) <= n; d++)
			;
		while (d > 1 && n % (d * d) != 0)
			d--;
		sh->hpt = c->hosts_per_tor ? c->hosts_per_tor : d;
		sh->tpp = c->tors_per_pod ? c->tors_per_pod : sh->hpt;
		if ((uint64_t)sh->hpt * sh->tpp > n || n % (sh->hpt * sh->tpp) != 0)
			return UET_ERR_INVAL;
		sh->tors = n / sh->hpt;
		sh->pods = sh->tors / sh->tpp;
	}
	sh->tor_up = (sh->hpt + c->oversub / 2) / c->oversub;
	if (sh->tor_up == 0)
		sh->tor_up = 1;
	if (c->tiers == 2) {
		sh->t1 = sh->tor_up;
		sh->t1_down = sh->tors;
	} else {
		sh->t1 = sh->pods * sh->tor_up;
		sh->t1_down = sh->tpp;
		sh->t1_up = sh->tpp;
		sh->t2 = sh->tor_up * sh->t1_up;
	}
	if (sh->hpt + sh->tor_up > 0xffff || sh->t1_down + sh->t1_up > 0xffff ||
	    sh->pods > 0xffff ||
	    (uint64_t)(sh->tors + sh->t1 + sh->t2) * sh->tors > (1u << 28))
		return UET_ERR_INVAL;
	return 0;
}

int
sim_fattree_shape(const struct sim_fattree_cfg *c, struct sim_fattree_shape *o)
{
	struct shape sh;
	int rc = shape_of(c, &sh);

	memset(o, 0, sizeof(*o));
	if (rc != 0)
		return rc;
	o->hosts = sh.hosts;
	o->tiers = sh.tiers;
	o->hosts_per_tor = sh.hpt;
	o->tor_uplinks = sh.tor_up;
	o->tors = sh.tors;
	o->tors_per_pod = sh.tpp;
	o->pods = sh.pods;
	o->t1_switches = sh.t1;
	o->t1_uplinks = sh.t1_up;
	o->t2_switches = sh.t2;
	o->switches = sh.tors + sh.t1 + sh.t2;
	o->ports = sh.hosts + sh.tors * (sh.hpt + sh.tor_up) + sh.t1 * (sh.t1_down + sh.t1_up) +
		   sh.t2 * sh.pods;
	return 0;
}

static uint64_t
ser_ps(uint64_t frame_bytes, uint64_t rate_bps)
{
	return ((frame_bytes + WIRE_OVERHEAD) * 8 * 1000000000000ULL + rate_bps - 1) / rate_bps;
}

uint64_t
sim_fattree_rtt_ps(const struct sim_fattree_cfg *c)
{
	uint64_t hops = 2ULL * (c->tiers == 3 ? 3 : 2), way_ps, data, ack;
	const struct sim_link_cfg *h = &c->host_link, *f = &c->fabric_link;

	if (h->rate_bps == 0 || f->rate_bps == 0)
		return 0;
	/* Two host links and hops - 2 fabric links each way, a switch
	 * traversal at every hop but the last. */
	way_ps = sim_ps(2 * h->lat_ns + (hops - 2) * f->lat_ns + (hops - 1) * c->switch_lat_ns);
	data = sim_frame_bytes(c->mss_bytes);
	ack = ACK_FRAME_BYTES;
	return 2 * way_ps + 2 * (ser_ps(data, h->rate_bps) + ser_ps(ack, h->rate_bps)) +
	       (hops - 2) * (ser_ps(data, f->rate_bps) + ser_ps(ack, f->rate_bps));
}

uint64_t
sim_fattree_bdp_bytes(const struct sim_fattree_cfg *c)
{
	return (uint64_t)((unsigned __int128)c->host_link.rate_bps * sim_fattree_rtt_ps(c) /
			  8000000000000ULL);
}

uint64_t
sim_fattree_queue_ps(const struct sim_fattree_cfg *c)
{
	uint64_t hops = 2ULL * (c->tiers == 3 ? 3 : 2);
	const struct sim_link_cfg *h = &c->host_link, *f = &c->fabric_link;

	if (h->rate_bps == 0 || f->rate_bps == 0)
		return 0;
	/* The ToR's downlink to the host, and hops - 2 fabric egresses. */
	return ser_ps(h->buf_bytes, h->rate_bps) + (hops - 2) * ser_ps(f->buf_bytes, f->rate_bps);
}

uint64_t
sim_fattree_reorder_ps(const struct sim_fattree_cfg *c, const struct sim_fattree_shape *s)
{
	uint64_t hops = 2ULL * (c->tiers == 3 ? 3 : 2);
	const struct sim_link_cfg *f = &c->fabric_link;

	if (f->rate_bps == 0 ||
	    (s->tor_uplinks <= 1 && (c->tiers != 3 || s->t1_uplinks <= 1)))
		return 0;
	return (hops - 2) * ser_ps(f->buf_bytes, f->rate_bps);
}

void
sim_link_cfg_queue(struct sim_link_cfg *l, uint64_t buf_bytes)
{
	/* The REPS paper's RED thresholds: 20% and 80% of the queue. */
	l->buf_bytes = buf_bytes;
	l->ecn_kmin_bytes = buf_bytes / 5;
	l->ecn_kmax_bytes = buf_bytes * 4 / 5;
}

uint32_t
sim_frame_bytes(uint32_t mss_bytes)
{
	return mss_bytes + UET_FRAME_HDR_LEN + UET_DATA_HDR_LEN;
}

void
sim_fattree_cfg_default(struct sim_fattree_cfg *c, uint32_t hosts, uint32_t tiers)
{
	uint64_t bdp;

	memset(c, 0, sizeof(*c));
	c->hosts = hosts;
	c->tiers = tiers;
	c->oversub = 1;
	c->mss_bytes = 4096;
	c->host_link.rate_bps = 400000000000ULL;
	c->host_link.lat_ns = 500;
	c->switch_lat_ns = 500;
	c->fabric_link = c->host_link;
	bdp = sim_fattree_bdp_bytes(c);
	sim_link_cfg_queue(&c->host_link, bdp);
	sim_link_cfg_queue(&c->fabric_link, bdp);
}

/* ------------------------------------------------------------------ */
/* building                                                            */

static struct sim_port *
node_port(struct sim *s, uint32_t node, uint32_t i)
{
	return &s->ports[s->nodes[node].first_port + i];
}

static int
build(struct sim *s, const struct shape *sh, const struct sim_link_cfg *hl,
      const struct sim_link_cfg *fl, uint64_t sw_lat_ns)
{
	uint32_t nh = sh->hosts, n_sw = sh->tors + sh->t1 + sh->t2;
	uint32_t t1_node = nh + sh->tors, t2_node = t1_node + sh->t1;
	uint32_t i, pi = 0, t, j, m;

	if (s->n_nodes != 0 || hl->rate_bps == 0 || fl->rate_bps == 0)
		return UET_ERR_INVAL;
	s->tiers = sh->tiers;
	s->n_hosts = nh;
	s->n_sw = n_sw;
	s->n_nodes = nh + n_sw;
	s->hpt = sh->hpt;
	s->n_tors = sh->tors;
	s->tors_per_pod = sh->tpp;
	s->tor_up = sh->tor_up;
	s->tier_first[0] = 0;
	s->tier_n[0] = sh->tors;
	s->tier_first[1] = sh->tors;
	s->tier_n[1] = sh->t1;
	s->tier_first[2] = sh->tors + sh->t1;
	s->tier_n[2] = sh->t2;
	s->n_ports = nh + sh->tors * (sh->hpt + sh->tor_up) + sh->t1 * (sh->t1_down + sh->t1_up) +
		     sh->t2 * sh->pods;
	s->nodes = calloc(s->n_nodes, sizeof(*s->nodes));
	s->ports = calloc(s->n_ports, sizeof(*s->ports));
	s->hosts = calloc(nh, sizeof(*s->hosts));
	s->rt = calloc((size_t)n_sw * sh->tors, sizeof(uint32_t));
	if (s->nodes == NULL || s->ports == NULL || s->hosts == NULL || s->rt == NULL) {
		s->n_hosts = 0; /* sim_destroy walks the hosts */
		return UET_ERR_NOMEM;
	}

	for (i = 0; i < s->n_nodes; i++) {
		struct sim_node *n = &s->nodes[i];

		n->kind = i < nh ? NODE_HOST : NODE_SWITCH;
		n->idx = i < nh ? i : i - nh;
		if (i < nh) {
			n->nports = 1;
			n->first_up = 1;
		} else if (i < t1_node) {
			n->tier = 0;
			n->nports = sh->hpt + sh->tor_up;
			n->first_up = sh->hpt;
		} else if (i < t2_node) {
			n->tier = 1;
			n->nports = sh->t1_down + sh->t1_up;
			n->first_up = sh->t1_down;
		} else {
			n->tier = 2;
			n->nports = sh->pods;
			n->first_up = sh->pods;
		}
		n->first_port = pi;
		pi += n->nports;
		if (n->kind == NODE_SWITCH)
			n->seed = uet_mix64(s->cfg.seed * 0x9e3779b97f4a7c15ULL + i);
	}
	for (i = 0; i < nh; i++) {
		struct sim_host *h = &s->hosts[i];

		h->node = &s->nodes[i];
		h->port = node_port(s, i, 0);
		h->ip = s->ip_base + i;
		sim_mac_of(h->ip, h->mac);
		sim_port_init(s, h->port, h->node, hl, SIM_PORT_HOST_NIC);
	}
	for (t = 0; t < sh->tors; t++) {
		uint32_t tor = nh + t;

		for (j = 0; j < sh->hpt; j++) {
			struct sim_port *down = node_port(s, tor, j);

			sim_port_init(s, down, &s->nodes[tor], hl, SIM_PORT_TOR_DOWN);
			sim_link_ports(s->hosts[t * sh->hpt + j].port, down, hl->lat_ns, sw_lat_ns);
		}
		for (j = 0; j < sh->tor_up; j++)
			sim_port_init(s, node_port(s, tor, sh->hpt + j), &s->nodes[tor], fl,
				      SIM_PORT_TOR_UP);
	}
	/* Tier 1: 2 tiers, spine j has a port to every ToR (ToR t's uplink j
	 * is port t); 3 tiers, aggregation switch j of pod p (node t1_node +
	 * p * tor_up + j) has a port to each ToR of its pod and tpp uplinks. */
	for (i = 0; i < sh->t1; i++) {
		uint32_t a = t1_node + i, pod = i / sh->tor_up, jj = i % sh->tor_up;

		if (sh->tiers == 2)
			jj = i;
		for (t = 0; t < sh->t1_down; t++) {
			uint32_t tor = sh->tiers == 2 ? t : pod * sh->tpp + t;
			struct sim_port *down = node_port(s, a, t);

			sim_port_init(s, down, &s->nodes[a], fl, SIM_PORT_T1_DOWN);
			sim_link_ports(node_port(s, nh + tor, sh->hpt + jj), down, fl->lat_ns,
				       sw_lat_ns);
		}
		for (m = 0; m < sh->t1_up; m++)
			sim_port_init(s, node_port(s, a, sh->t1_down + m), &s->nodes[a], fl,
				      SIM_PORT_T1_UP);
	}
	/* Cores: core j * t1_up + m has port p to aggregation switch j of
	 * pod p (its uplink m). */
	for (i = 0; i < sh->t2; i++) {
		uint32_t core = t2_node + i;

		j = i / sh->t1_up;
		m = i % sh->t1_up;
		for (t = 0; t < sh->pods; t++) {
			struct sim_port *down = node_port(s, core, t);
			uint32_t a = t1_node + t * sh->tor_up + j;

			sim_port_init(s, down, &s->nodes[core], fl, SIM_PORT_T2_DOWN);
			sim_link_ports(node_port(s, a, sh->t1_down + m), down, fl->lat_ns,
				       sw_lat_ns);
		}
	}
	return sim_routes_compute(s);
}

int
sim_build_leaf_spine(struct sim *s, const struct sim_leafspine_cfg *c)
{
	struct shape sh;

	if (c->leaves == 0 || c->spines == 0 || c->hosts_per_leaf == 0 ||
	    (uint64_t)c->leaves * c->hosts_per_leaf > 0xffffff || c->spines > 0xffff ||
	    c->leaves > 0xffff || c->hosts_per_leaf + c->spines > 0xffff)
		return UET_ERR_INVAL;
	memset(&sh, 0, sizeof(sh));
	sh.tiers = 2;
	sh.hosts = c->leaves * c->hosts_per_leaf;
	sh.hpt = c->hosts_per_leaf;
	sh.tor_up = c->spines;
	sh.tors = c->leaves;
	sh.tpp = c->leaves;
	sh.pods = 1;
	sh.t1 = c->spines;
	sh.t1_down = c->leaves;
	return build(s, &sh, &c->host_link, &c->fabric_link, c->switch_lat_ns);
}

int
sim_build_fat_tree(struct sim *s, const struct sim_fattree_cfg *c)
{
	struct shape sh;
	int rc = shape_of(c, &sh);

	if (rc != 0)
		return rc;
	return build(s, &sh, &c->host_link, &c->fabric_link, c->switch_lat_ns);
}

void
sim_topo_free(struct sim *s)
{
	free(s->nodes);
	free(s->ports);
	free(s->hosts);
	free(s->rt);
	free(s->grp);
	free(s->grp_ports);
}

/* ------------------------------------------------------------------ */
/* routing                                                             */

/*
 * Up-down (valley-free) shortest paths over the links routing believes
 * in (port->routed), per destination ToR d, as BGP in a Clos fabric
 * converges to (RFC 7938; a path never goes down and up again, which
 * the AS-path rule forbids):
 *   down[x]: hops from x to d going only down (tier 1 first, then 2);
 *   best[x]: min(down[x], 1 + min best[parent]) (from the top down).
 * A switch with a way down takes the downlinks on shortest ways down
 * (deterministic in a healthy fat tree: one port); otherwise ECMP over
 * the uplinks whose parent is closest. No way at all: the empty group.
 * Groups are shared: group 0 is empty, each port has at most one
 * single-port group, and a switch reuses its multi-port groups.
 */

struct grp_build {
	struct sim_grp *grp;
	uint32_t n_grp, cap_grp;
	uint32_t *ports;
	uint32_t n_ports, cap_ports;
};

static int
grp_add(struct grp_build *b, const uint32_t *ports, uint32_t cnt, uint32_t *gid)
{
	if (b->n_grp == b->cap_grp) {
		uint32_t nc = b->cap_grp ? 2 * b->cap_grp : 256;
		struct sim_grp *g = realloc(b->grp, nc * sizeof(*g));

		if (g == NULL)
			return UET_ERR_NOMEM;
		b->grp = g;
		b->cap_grp = nc;
	}
	while (b->n_ports + cnt > b->cap_ports) {
		uint32_t nc = b->cap_ports ? 2 * b->cap_ports : 1024;
		uint32_t *p = realloc(b->ports, nc * sizeof(*p));

		if (p == NULL)
			return UET_ERR_NOMEM;
		b->ports = p;
		b->cap_ports = nc;
	}
	if (cnt > 0)
		memcpy(b->ports + b->n_ports, ports, cnt * sizeof(*ports));
	b->grp[b->n_grp].first = b->n_ports;
	b->grp[b->n_grp].cnt = cnt;
	b->n_ports += cnt;
	*gid = b->n_grp++;
	return 0;
}

static uint32_t
peer_sw(const struct sim_port *p)
{
	return p->peer->node->idx;
}

int
sim_routes_compute(struct sim *s)
{
	uint32_t T = s->n_tors, W = s->n_sw, d, x, k, i, gid;
	uint8_t *down = malloc((size_t)T * W), *best = malloc((size_t)T * W);
	uint32_t *single = malloc((size_t)s->n_ports * sizeof(uint32_t));
	uint32_t *scratch = NULL, *multi = NULL, n_multi, max_ports = 1;
	struct grp_build b = { 0 };
	int rc = UET_ERR_NOMEM;

	for (x = 0; x < W; x++)
		if (s->nodes[s->n_hosts + x].nports > max_ports)
			max_ports = s->nodes[s->n_hosts + x].nports;
	scratch = malloc(max_ports * sizeof(uint32_t));
	multi = malloc((size_t)T * sizeof(uint32_t));
	if (down == NULL || best == NULL || single == NULL || scratch == NULL || multi == NULL)
		goto out;
	memset(down, DIST_INF, (size_t)T * W);
	memset(single, 0xff, (size_t)s->n_ports * sizeof(uint32_t));
	for (d = 0; d < T; d++) {
		uint8_t *dn = down + (size_t)d * W, *bt = best + (size_t)d * W;
		int tier;

		dn[d] = 0;
		for (tier = 1; tier < (int)s->tiers; tier++) {
			for (x = s->tier_first[tier]; x < s->tier_first[tier] + s->tier_n[tier]; x++) {
				const struct sim_node *n = &s->nodes[s->n_hosts + x];

				for (k = 0; k < n->first_up; k++) {
					const struct sim_port *p = &s->ports[n->first_port + k];
					uint8_t v = dn[peer_sw(p)];

					if (p->routed && v != DIST_INF && v + 1 < dn[x])
						dn[x] = (uint8_t)(v + 1);
				}
			}
		}
		for (tier = (int)s->tiers - 1; tier >= 0; tier--) {
			for (x = s->tier_first[tier]; x < s->tier_first[tier] + s->tier_n[tier]; x++) {
				const struct sim_node *n = &s->nodes[s->n_hosts + x];
				uint8_t v = dn[x];

				for (k = n->first_up; k < n->nports; k++) {
					const struct sim_port *p = &s->ports[n->first_port + k];
					uint8_t u = bt[peer_sw(p)];

					if (p->routed && u != DIST_INF && u + 1 < v)
						v = (uint8_t)(u + 1);
				}
				bt[x] = v;
			}
		}
	}
	if (grp_add(&b, NULL, 0, &gid) != 0)  /* group 0: no route */
		goto out;
	for (x = 0; x < W; x++) {
		const struct sim_node *n = &s->nodes[s->n_hosts + x];

		n_multi = 0;
		for (d = 0; d < T; d++) {
			const uint8_t *dn = down + (size_t)d * W, *bt = best + (size_t)d * W;
			uint32_t cnt = 0, lo, hi;
			bool via_down = dn[x] != DIST_INF;

			if (x == d || bt[x] == DIST_INF) {
				/* A ToR reaches its own hosts directly. */
				s->rt[(size_t)x * T + d] = 0;
				continue;
			}
			lo = via_down ? 0 : n->first_up;
			hi = via_down ? n->first_up : n->nports;
			for (k = lo; k < hi; k++) {
				const struct sim_port *p = &s->ports[n->first_port + k];
				uint32_t y = peer_sw(p);

				if (p->routed && (via_down ? dn[y] + 1 == dn[x] : bt[y] + 1 == bt[x]))
					scratch[cnt++] = n->first_port + k;
			}
			if (cnt == 1) {
				if (single[scratch[0]] == UINT32_MAX &&
				    grp_add(&b, scratch, 1, &single[scratch[0]]) != 0)
					goto out;
				gid = single[scratch[0]];
			} else {
				for (i = 0; i < n_multi; i++) {
					const struct sim_grp *g = &b.grp[multi[i]];

					if (g->cnt == cnt &&
					    memcmp(b.ports + g->first, scratch, cnt * sizeof(uint32_t)) == 0)
						break;
				}
				if (i < n_multi) {
					gid = multi[i];
				} else {
					if (grp_add(&b, scratch, cnt, &gid) != 0)
						goto out;
					multi[n_multi++] = gid;
				}
			}
			s->rt[(size_t)x * T + d] = gid;
		}
	}
	free(s->grp);
	free(s->grp_ports);
	s->grp = b.grp;
	s->n_grp = b.n_grp;
	s->grp_ports = b.ports;
	s->n_grp_ports = b.n_ports;
	b.grp = NULL;
	b.ports = NULL;
	rc = 0;
out:
	free(b.grp);
	free(b.ports);
	free(down);
	free(best);
	free(single);
	free(scratch);
	free(multi);
	return rc;
}

/* ------------------------------------------------------------------ */
/* enumeration                                                         */

uint32_t
sim_num_hosts(const struct sim *s)
{
	return s->n_hosts;
}

uint32_t
sim_host_ip(const struct sim *s, uint32_t host)
{
	return s->ip_base + host;
}

uint32_t
sim_host_of_ip(const struct sim *s, uint32_t ip)
{
	uint32_t h = ip - s->ip_base;

	return h < s->n_hosts ? h : UINT32_MAX;
}

struct sim_port *
sim_leaf_up(struct sim *s, uint32_t leaf, uint32_t spine)
{
	return sim_tor_uplink(s, leaf, spine);
}

struct sim_port *
sim_spine_down(struct sim *s, uint32_t spine, uint32_t leaf)
{
	const struct sim_node *n;

	if (s->tiers < 2 || spine >= s->tier_n[1] || leaf >= s->n_tors)
		return NULL;
	n = &s->nodes[s->n_hosts + s->tier_first[1] + spine];
	if (s->tiers == 2)
		return &s->ports[n->first_port + leaf];
	/* Aggregation switch spine serves pod spine / tor_up. */
	if (leaf / s->tors_per_pod != spine / s->tor_up)
		return NULL;
	return &s->ports[n->first_port + leaf % s->tors_per_pod];
}

struct sim_port *
sim_host_port(struct sim *s, uint32_t host)
{
	return host < s->n_hosts ? s->hosts[host].port : NULL;
}

struct sim_port *
sim_host_ingress(struct sim *s, uint32_t host)
{
	return host < s->n_hosts ? s->hosts[host].port->peer : NULL;
}

uint32_t
sim_num_ports(const struct sim *s)
{
	return s->n_ports;
}

struct sim_port *
sim_port_at(struct sim *s, uint32_t i)
{
	return i < s->n_ports ? &s->ports[i] : NULL;
}

bool
sim_port_is_fabric(const struct sim_port *p)
{
	return p->node->kind == NODE_SWITCH && p->peer != NULL &&
	       p->peer->node->kind == NODE_SWITCH;
}

uint32_t
sim_num_tiers(const struct sim *s)
{
	return s->tiers;
}

uint32_t
sim_num_switches(const struct sim *s)
{
	return s->n_sw;
}

uint32_t
sim_hosts_per_tor(const struct sim *s)
{
	return s->hpt;
}

uint32_t
sim_tier_switches(const struct sim *s, uint32_t tier)
{
	return tier < 3 ? s->tier_n[tier] : 0;
}

uint32_t
sim_switch_id(const struct sim *s, uint32_t tier, uint32_t i)
{
	return tier < 3 && i < s->tier_n[tier] ? s->tier_first[tier] + i : UINT32_MAX;
}

uint32_t
sim_switch_tier(const struct sim *s, uint32_t sw)
{
	return sw < s->n_sw ? s->nodes[s->n_hosts + sw].tier : UINT32_MAX;
}

uint32_t
sim_switch_num_ports(const struct sim *s, uint32_t sw)
{
	return sw < s->n_sw ? s->nodes[s->n_hosts + sw].nports : 0;
}

struct sim_port *
sim_switch_port(struct sim *s, uint32_t sw, uint32_t i)
{
	const struct sim_node *n;

	if (sw >= s->n_sw)
		return NULL;
	n = &s->nodes[s->n_hosts + sw];
	return i < n->nports ? &s->ports[n->first_port + i] : NULL;
}

uint32_t
sim_switch_num_uplinks(const struct sim *s, uint32_t sw)
{
	const struct sim_node *n;

	if (sw >= s->n_sw)
		return 0;
	n = &s->nodes[s->n_hosts + sw];
	return n->nports - n->first_up;
}

struct sim_port *
sim_switch_uplink(struct sim *s, uint32_t sw, uint32_t i)
{
	const struct sim_node *n;

	if (sw >= s->n_sw)
		return NULL;
	n = &s->nodes[s->n_hosts + sw];
	return i < n->nports - n->first_up ? &s->ports[n->first_port + n->first_up + i] : NULL;
}

struct sim_port *
sim_tor_uplink(struct sim *s, uint32_t tor, uint32_t i)
{
	return tor < s->n_tors ? sim_switch_uplink(s, tor, i) : NULL;
}

uint32_t
sim_tor_of_host(const struct sim *s, uint32_t host)
{
	return host < s->n_hosts ? host / s->hpt : UINT32_MAX;
}

enum sim_port_role
sim_port_role(const struct sim_port *p)
{
	return (enum sim_port_role)p->role;
}

struct sim_port *
sim_port_peer(struct sim_port *p)
{
	return p->peer;
}

void
sim_port_info(const struct sim_port *p, struct sim_port_info *o)
{
	o->role = (enum sim_port_role)p->role;
	o->index = p->gidx;
	o->is_host = p->node->kind == NODE_HOST;
	o->node = p->node->idx;
	o->peer_is_host = p->peer->node->kind == NODE_HOST;
	o->peer_node = p->peer->node->idx;
	o->peer_index = p->peer->gidx;
}

uint32_t
sim_num_ports_role(const struct sim *s, enum sim_port_role role)
{
	uint32_t i, n = 0;

	for (i = 0; i < s->n_ports; i++)
		n += s->ports[i].role == (uint8_t)role;
	return n;
}
