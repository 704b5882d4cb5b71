/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The failure vocabulary (failure.h) applied to a fabric with the
 * scheduling calls of fail.c; text/failure.c parses it.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/text.h"
#include "sim/failure.h"
#include "sim/sim.h"

#define fail uet_text_fail
#define SHOWN UET_SHOWN

/* ------------------------------------------------------------------ */
/* applying                                                            */

static int
bad(char *err, size_t n, const struct sim_failure *f, const char *what)
{
	return fail(err, n, "'%s': %s", f->text, what);
}

static uint64_t
ps(uint64_t ns)
{
	return ns * 1000;
}

static void
hit_port(struct sim_failure_hit *h, struct sim_port *p)
{
	if (h != NULL && h->nports < h->ports_cap)
		h->ports[h->nports++] = p;
}

static struct sim_port *
link_of(struct sim *s, const struct sim_failure *f, char *err, size_t n)
{
	char why[128];
	uint32_t tier = f->node_kind == SIM_NODE_TOR ? 0 : 1, sw;

	if (f->node_kind == SIM_NODE_T2) {
		/* A .cm line's core port. */
		if (sim_num_tiers(s) < 3 || f->node >= sim_tier_switches(s, 2)) {
			bad(err, n, f, "no such core switch");
			return NULL;
		}
		sw = sim_switch_id(s, 2, f->node);
		if (f->uplink >= sim_switch_num_ports(s, sw)) {
			bad(err, n, f, "the core has no such port");
			return NULL;
		}
		return sim_switch_port(s, sw, f->uplink);
	}
	if (f->node_kind == SIM_NODE_HOST) {
		if (f->node >= sim_num_hosts(s)) {
			snprintf(why, sizeof(why), "host %u does not exist (%u hosts)", f->node,
				 sim_num_hosts(s));
			bad(err, n, f, why);
			return NULL;
		}
		return sim_host_port(s, f->node);
	}
	if (f->node_kind == SIM_NODE_T1 && sim_num_tiers(s) < 3) {
		bad(err, n, f, "tier-1 switches have no uplinks in 2 tiers (a ToR-spine cable is "
		    "torN.upM)");
		return NULL;
	}
	if (f->node >= sim_tier_switches(s, tier)) {
		snprintf(why, sizeof(why), "switch %u of tier %u does not exist (%u there)",
			 f->node, tier, sim_tier_switches(s, tier));
		bad(err, n, f, why);
		return NULL;
	}
	sw = sim_switch_id(s, tier, f->node);
	if (f->uplink >= sim_switch_num_uplinks(s, sw)) {
		snprintf(why, sizeof(why), "uplink %u does not exist (%u uplinks)", f->uplink,
			 sim_switch_num_uplinks(s, sw));
		bad(err, n, f, why);
		return NULL;
	}
	return sim_switch_uplink(s, sw, f->uplink);
}

static int
switch_of(struct sim *s, const struct sim_failure *f, uint32_t *sw, char *err, size_t n)
{
	uint32_t tier = f->node_kind == SIM_NODE_TOR ? 0 : f->node_kind == SIM_NODE_T1 ? 1 : 2;
	char why[128];

	if (tier >= sim_num_tiers(s) || f->node >= sim_tier_switches(s, tier)) {
		snprintf(why, sizeof(why), "no such switch (tier %u has %u)", tier,
			 tier < sim_num_tiers(s) ? sim_tier_switches(s, tier) : 0);
		return bad(err, n, f, why);
	}
	*sw = sim_switch_id(s, tier, f->node);
	return 0;
}

/* The egress port of one direction of p's cable: up is the one on the
 * lower tier's side (a host's NIC, a switch's uplink). */
static struct sim_port *
dir_port(struct sim_port *p, enum sim_dir d)
{
	enum sim_port_role r = sim_port_role(p);
	bool p_is_up = r == SIM_PORT_HOST_NIC || r == SIM_PORT_TOR_UP || r == SIM_PORT_T1_UP;

	return (d == SIM_DIR_UP) == p_is_up ? p : sim_port_peer(p);
}

static void
link_down(struct sim *s, struct sim_port *p, const struct sim_failure *f, uint64_t conv)
{
	if (f->dir != SIM_DIR_BOTH) {
		p = dir_port(p, f->dir);
		sim_port_down_at(s, p, ps(f->at_ns), conv);
		if (f->for_ns)
			sim_port_up_at(s, p, ps(f->at_ns + f->for_ns), conv);
		return;
	}
	sim_link_down_at(s, p, ps(f->at_ns), conv);
	if (f->for_ns)
		sim_link_up_at(s, p, ps(f->at_ns + f->for_ns), conv);
}

/* Bit errors on both directions of p's cable, or on one. */
static void
ber_at(struct sim *s, struct sim_port *p, uint8_t dir, uint64_t t_ps, const struct sim_fault *ft)
{
	if (dir == SIM_DIR_BOTH)
		sim_link_fault_at(s, p, t_ps, ft);
	else
		sim_port_fault_at(s, dir_port(p, dir), t_ps, ft);
}

/* Degrade one direction to factor x its current rate, with its buffer and
 * ECN thresholds (unless keep_buffer), and restore after for_ns. */
static void
degrade_port(struct sim *s, struct sim_port *p, double factor, bool keep_buffer,
	     const struct sim_failure *f, struct sim_failure_hit *hit)
{
	struct sim_port_shape was, now;

	sim_port_shape_get(p, &was);
	now = was;
	now.rate_bps = (uint64_t)((double)was.rate_bps * factor + 0.5);
	if (now.rate_bps == 0)
		now.rate_bps = 1;
	if (!keep_buffer) {
		now.buf_bytes = (uint64_t)((double)was.buf_bytes * factor + 0.5);
		now.kmin_bytes = (uint64_t)((double)was.kmin_bytes * factor + 0.5);
		now.kmax_bytes = (uint64_t)((double)was.kmax_bytes * factor + 0.5);
	}
	sim_port_shape_at(s, p, ps(f->at_ns), &now);
	if (f->for_ns)
		sim_port_shape_at(s, p, ps(f->at_ns + f->for_ns), &was);
	hit_port(hit, p);
}

static void
degrade_link(struct sim *s, struct sim_port *p, double factor, const struct sim_failure *f,
	     struct sim_failure_hit *hit)
{
	if (f->dir != SIM_DIR_DOWN)
		degrade_port(s, dir_port(p, SIM_DIR_UP), factor, f->keep_buffer, f, hit);
	if (f->dir != SIM_DIR_UP)
		degrade_port(s, dir_port(p, SIM_DIR_DOWN), factor, f->keep_buffer, f, hit);
}

/* The reference's -failed N (uet-htsim.md §6.3). */
static int
htsim_failed(struct sim *s, const struct sim_failure *f, struct sim_failure_hit *hit,
	     char *err, size_t n)
{
	struct sim_failure g = *f;
	uint32_t i, k, per, sw, total;

	g.keep_buffer = false;
	if (sim_num_tiers(s) == 3) {
		/* Aggregation switch i's uplink j, in that order, core to agg. */
		per = sim_switch_num_uplinks(s, sim_switch_id(s, 1, 0));
		total = per * sim_tier_switches(s, 1);
		if (f->count > total)
			return bad(err, n, f, "more links than the aggregation-core tier has");
		g.dir = SIM_DIR_DOWN;
		for (k = 0; k < f->count; k++) {
			sw = sim_switch_id(s, 1, k / per);
			degrade_link(s, sim_switch_uplink(s, sw, k % per), f->value, &g, hit);
		}
		return 0;
	}
	/* 2 tiers: spines 0..N-1, every ToR's cable to them, both ways. */
	per = sim_switch_num_uplinks(s, sim_switch_id(s, 0, 0));
	if (f->count > per)
		return bad(err, n, f, "more spines than the fabric has");
	g.dir = SIM_DIR_BOTH;
	for (i = 0; i < sim_tier_switches(s, 0); i++)
		for (k = 0; k < f->count; k++)
			degrade_link(s, sim_tor_uplink(s, i, k), f->value, &g, hit);
	return 0;
}

int
sim_failure_apply(struct sim *s, const struct sim_failure *f, uint64_t converge_ns,
		  uint64_t seed, struct sim_failure_hit *hit, char *err, size_t errlen)
{
	static const enum sim_port_role role[] = {
		[SIM_CLASS_HOST] = SIM_PORT_HOST_NIC,
		[SIM_CLASS_TOR_UP] = SIM_PORT_TOR_UP,
		[SIM_CLASS_T1_UP] = SIM_PORT_T1_UP,
	};
	uint64_t conv = f->converge_ns == SIM_CONVERGE_DEFAULT ? converge_ns : f->converge_ns;
	struct sim_port *p, **picked;
	uint32_t i, k, sw = 0, cap;

	switch (f->kind) {
	case SIM_FAIL_LINK_DOWN:
	case SIM_FAIL_LINK_UP:
	case SIM_FAIL_LINK_RATE:
		p = link_of(s, f, err, errlen);
		if (p == NULL)
			return -1;
		if (f->kind == SIM_FAIL_LINK_DOWN) {
			hit_port(hit, p);
			link_down(s, p, f, conv);
		} else if (f->kind == SIM_FAIL_LINK_UP) {
			hit_port(hit, p);
			sim_link_up_at(s, p, ps(f->at_ns), conv);
		} else {
			/* GBPS against the direction's own rate: the factor. */
			double factor = f->value * 1e9 /
					(double)sim_port_rate_bps(dir_port(p, f->dir == SIM_DIR_DOWN
										 ? SIM_DIR_DOWN
										 : SIM_DIR_UP));

			degrade_link(s, p, factor, f, hit);
		}
		return 0;
	case SIM_FAIL_SWITCH_DOWN:
	case SIM_FAIL_SWITCH_UP:
		if (switch_of(s, f, &sw, err, errlen) != 0)
			return -1;
		if (hit != NULL && hit->nswitches < hit->switches_cap)
			hit->switches[hit->nswitches++] = sw;
		if (f->kind == SIM_FAIL_SWITCH_UP) {
			sim_switch_up_at(s, sw, ps(f->at_ns), conv);
			return 0;
		}
		sim_switch_down_at(s, sw, ps(f->at_ns), conv);
		if (f->for_ns)
			sim_switch_up_at(s, sw, ps(f->at_ns + f->for_ns), conv);
		return 0;
	case SIM_FAIL_HTSIM_FAILED:
		return htsim_failed(s, f, hit, err, errlen);
	default:
		break;
	}
	if (f->cls >= SIM_CLASS_TOR) {
		uint32_t tier = f->cls - SIM_CLASS_TOR, *v;

		if (tier >= sim_num_tiers(s))
			return bad(err, errlen, f, "no core switches in 2 tiers");
		cap = sim_tier_switches(s, tier);
		v = malloc((cap ? cap : 1) * sizeof(*v));
		if (v == NULL)
			return fail(err, errlen, "out of memory");
		k = sim_pick_switches(s, tier, f->pct, seed, v, cap);
		for (i = 0; i < k; i++) {
			if (hit != NULL && hit->nswitches < hit->switches_cap)
				hit->switches[hit->nswitches++] = v[i];
			sim_switch_down_at(s, v[i], ps(f->at_ns), conv);
			if (f->for_ns)
				sim_switch_up_at(s, v[i], ps(f->at_ns + f->for_ns), conv);
		}
		free(v);
		return 0;
	}
	if (f->cls == SIM_CLASS_T1_UP && sim_num_tiers(s) < 3)
		return bad(err, errlen, f, "no agg-up cables in 2 tiers");
	cap = sim_num_ports_role(s, role[f->cls]);
	picked = malloc((cap ? cap : 1) * sizeof(*picked));
	if (picked == NULL)
		return fail(err, errlen, "out of memory");
	k = sim_pick_ports(s, role[f->cls], f->pct, seed, picked, cap);
	for (i = 0; i < k; i++) {
		p = picked[i];
		if (f->kind == SIM_FAIL_RANDOM_DOWN) {
			hit_port(hit, p);
			link_down(s, p, f, conv);
		} else if (f->kind == SIM_FAIL_DEGRADE) {
			degrade_link(s, p, f->value, f, hit);
		} else {
			struct sim_fault ft;

			hit_port(hit, p);
			memset(&ft, 0, sizeof(ft));
			ft.ber = f->value;
			ber_at(s, p, f->dir, ps(f->at_ns), &ft);
			if (f->for_ns) {
				memset(&ft, 0, sizeof(ft));
				ber_at(s, p, f->dir, ps(f->at_ns + f->for_ns), &ft);
			}
		}
	}
	free(picked);
	return 0;
}

struct sim_port *
sim_failure_link(struct sim *s, const struct sim_failure *f, char *err, size_t n)
{
	return link_of(s, f, err, n);
}
