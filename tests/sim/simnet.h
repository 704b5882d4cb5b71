/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TESTS_SIMNET_H_
#define UET_TESTS_SIMNET_H_

/*
 * A leaf-spine with the checking workload on every host, for the cmocka
 * simulator tests (include cmocka.h first).
 */

#include "simwork.h"

struct net {
	struct sim *s;
	struct sw w;
};

struct net_shape {
	uint32_t leaves, spines, hosts_per_leaf;
	uint64_t gbps;        /* every link */
	uint64_t lat_ns;      /* every link */
	uint64_t buf_bytes;   /* every egress queue */
	uint64_t kmin_bytes;  /* ECN on every switch port; 0, 0 = off */
	uint64_t kmax_bytes;
	bool trim;            /* switches trim instead of dropping data */
};

static inline void
net_link(struct sim_link_cfg *l, const struct net_shape *sh)
{
	memset(l, 0, sizeof(*l));
	l->rate_bps = sh->gbps * 1000000000ULL;
	l->lat_ns = sh->lat_ns;
	l->buf_bytes = sh->buf_bytes;
	l->ecn_kmin_bytes = sh->kmin_bytes;
	l->ecn_kmax_bytes = sh->kmax_bytes;
	l->trim = sh->trim;
}

/* Build the fabric and attach an endpoint configured as 'base' (seeded per
 * host) to every host. */
static inline void
net_up_shape(struct net *n, uint64_t seed, const struct net_shape *sh,
	     const struct uet_ep_config *base)
{
	struct sim_config sc;
	struct sim_leafspine_cfg lc;
	uint32_t i;

	sim_config_default(&sc);
	sc.seed = seed;
	n->s = sim_create(&sc);
	assert_non_null(n->s);
	memset(&lc, 0, sizeof(lc));
	lc.leaves = sh->leaves;
	lc.spines = sh->spines;
	lc.hosts_per_leaf = sh->hosts_per_leaf;
	net_link(&lc.host_link, sh);
	net_link(&lc.fabric_link, sh);
	assert_int_equal(sim_build_leaf_spine(n->s, &lc), 0);
	sw_init(&n->w, n->s);
	for (i = 0; i < sim_num_hosts(n->s); i++) {
		struct uet_ep_config c = *base;

		c.seed = seed * 1000 + i;
		sw_ep_config(&n->w, i, &c);
		assert_int_equal(sim_host_attach(n->s, i, &c), 0);
	}
}

/* leaves x spines x hosts, 10 Gb/s, 1 us links, no ECN. */
static inline void
net_up(struct net *n, uint64_t seed, uint32_t leaves, uint32_t spines, uint32_t hpl,
       uint64_t buf, const struct uet_ep_config *base)
{
	struct net_shape sh = { .leaves = leaves, .spines = spines, .hosts_per_leaf = hpl,
				.gbps = 10, .lat_ns = 1000, .buf_bytes = buf };

	net_up_shape(n, seed, &sh, base);
}

static inline void
net_down(struct net *n)
{
	sw_fini(&n->w);
	sim_destroy(n->s);
}

static inline void
check_ok(struct net *n)
{
	char why[256];

	if (!sw_check(&n->w, why, sizeof(why)))
		fail_msg("%s", why);
}

#endif /* UET_TESTS_SIMNET_H_ */
