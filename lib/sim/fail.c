/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scheduled failures: links and switches going down and up, with a
 * routing convergence delay; degraded rates and faults at a time; random
 * selections of ports and switches deterministic from a seed. Each call
 * schedules an event (sim_at), so failures interleave with traffic in the
 * one deterministic event order.
 *
 * Two views of a link: its physical state (port->failed: it carries
 * nothing) and the routing view (port->routed: switches put it in their
 * ECMP groups). A failure changes the first at once and the second only
 * when "routing converges": the REPS paper's point is that the interval
 * between the two, milliseconds to seconds on real fabrics, is a
 * blackhole the load balancer must steer around (REPS section 2, the
 * 10 ms / 120,000 packets example).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"

/* The port of the link that holds its generation: the lower index. */
static struct sim_port *
link_of(struct sim_port *p)
{
	return p->peer->gidx < p->gidx ? p->peer : p;
}

/* Recompute the physical state of both ports of p's link (each direction
 * fails on its own: sim_port_down_at); a port that just failed drops what
 * it had queued. */
static void
link_refresh(struct sim *s, struct sim_port *p)
{
	struct sim_port *e[2] = { p, p->peer };
	bool sw_down = p->node->down || p->peer->node->down;
	int i;

	for (i = 0; i < 2; i++) {
		bool was = e[i]->failed, failed = e[i]->link_down || sw_down;

		e[i]->failed = failed;
		if (failed && !was)
			sim_port_flush(s, e[i]);
	}
}

/* A link half dead is withdrawn as a dead one (BFD on the routers). */
static bool
link_failed(const struct sim_port *l)
{
	return l->failed || l->peer->failed;
}

static void
reroute_ev(struct sim *s, void *a, uint64_t b)
{
	(void)a;
	(void)b;
	s->rt_pending = false;
	/* Out of memory here leaves the old routes in place. */
	(void)sim_routes_compute(s);
}

/* Routing learns the link's state, if it has not changed since. Several
 * links converging at one time share one recompute, which runs after
 * them (it is queued behind them, same time, later sequence). */
static void
converge_ev(struct sim *s, void *a, uint64_t gen)
{
	struct sim_port *p = a;
	bool want = !link_failed(p);

	if (gen != p->link_gen || p->routed == want)
		return;
	p->routed = want;
	p->peer->routed = want;
	if (!s->rt_pending) {
		s->rt_pending = true;
		sim_at(s, s->now, reroute_ev, NULL, 0);
	}
}

/* After a change of p's link: schedule routing to follow after delay
 * (down: 0 means never; up: 0 means now). */
static void
link_changed(struct sim *s, struct sim_port *p, uint64_t converge_ns)
{
	struct sim_port *l = link_of(p);

	l->link_gen++;
	if (link_failed(l) && converge_ns == 0)
		return;
	sim_at(s, s->now + sim_ps(converge_ns), converge_ev, l, l->link_gen);
}

/* One direction: what p sends stops (or goes again). */
static void
port_set(struct sim *s, struct sim_port *p, bool down, uint64_t converge_ns)
{
	p->link_down = down;
	link_refresh(s, p);
	link_changed(s, p, converge_ns);
}

static void
port_down_ev(struct sim *s, void *a, uint64_t converge_ns)
{
	port_set(s, a, true, converge_ns);
}

static void
port_up_ev(struct sim *s, void *a, uint64_t converge_ns)
{
	port_set(s, a, false, converge_ns);
}

/* The cable: both directions. */
static void
link_down_ev(struct sim *s, void *a, uint64_t converge_ns)
{
	struct sim_port *p = a;

	p->peer->link_down = true;
	port_set(s, p, true, converge_ns);
}

static void
link_up_ev(struct sim *s, void *a, uint64_t converge_ns)
{
	struct sim_port *p = a;

	p->peer->link_down = false;
	port_set(s, p, false, converge_ns);
}

static void
switch_set(struct sim *s, struct sim_node *n, bool down, uint64_t converge_ns)
{
	uint32_t i;

	n->down = down;
	for (i = 0; i < n->nports; i++) {
		struct sim_port *p = &s->ports[n->first_port + i];

		link_refresh(s, p);
		link_changed(s, p, converge_ns);
	}
}

static void
switch_down_ev(struct sim *s, void *a, uint64_t converge_ns)
{
	switch_set(s, a, true, converge_ns);
}

static void
switch_up_ev(struct sim *s, void *a, uint64_t converge_ns)
{
	switch_set(s, a, false, converge_ns);
}

static void
link_rate_ev(struct sim *s, void *a, uint64_t rate_bps)
{
	struct sim_port *p = a;

	(void)s;
	sim_port_set_rate(p, rate_bps);
	sim_port_set_rate(p->peer, rate_bps);
}

static void
link_fault_ev(struct sim *s, void *a, uint64_t b)
{
	const struct sim_fault_rec *r = a;

	(void)s;
	(void)b;
	if (r->shape) {
		sim_port_set_rate(r->p, r->sh.rate_bps);
		sim_port_set_buffer(r->p, r->sh.buf_bytes);
		sim_port_set_ecn(r->p, r->sh.kmin_bytes, r->sh.kmax_bytes);
		return;
	}
	sim_port_set_fault(r->p, &r->f);
	if (!r->one_way)
		sim_port_set_fault(r->p->peer, &r->f);
}

/* Scheduling is set-up work, not the data path: one small record per
 * call, freed with the simulator. */
static struct sim_fault_rec *
rec_new(struct sim *s, struct sim_port *p)
{
	struct sim_fault_rec *r = calloc(1, sizeof(*r));

	if (r == NULL)
		abort();
	r->p = p;
	r->next = s->fault_recs;
	s->fault_recs = r;
	return r;
}

void
sim_port_shape_get(const struct sim_port *p, struct sim_port_shape *out)
{
	out->rate_bps = p->rate_bps;
	out->buf_bytes = p->buf_bytes;
	out->kmin_bytes = p->kmin;
	out->kmax_bytes = p->kmax;
}

void
sim_port_shape_at(struct sim *s, struct sim_port *p, uint64_t t_ps,
		  const struct sim_port_shape *sh)
{
	struct sim_fault_rec *r;

	if (p == NULL || sh->rate_bps == 0)
		return;
	r = rec_new(s, p);
	r->shape = true;
	r->sh = *sh;
	sim_at(s, t_ps, link_fault_ev, r, 0);
}

void
sim_link_down_at(struct sim *s, struct sim_port *p, uint64_t t_ps, uint64_t converge_ns)
{
	if (p != NULL && p->peer != NULL)
		sim_at(s, t_ps, link_down_ev, p, converge_ns);
}

void
sim_link_up_at(struct sim *s, struct sim_port *p, uint64_t t_ps, uint64_t converge_ns)
{
	if (p != NULL && p->peer != NULL)
		sim_at(s, t_ps, link_up_ev, p, converge_ns);
}

void
sim_port_down_at(struct sim *s, struct sim_port *p, uint64_t t_ps, uint64_t converge_ns)
{
	if (p != NULL && p->peer != NULL)
		sim_at(s, t_ps, port_down_ev, p, converge_ns);
}

void
sim_port_up_at(struct sim *s, struct sim_port *p, uint64_t t_ps, uint64_t converge_ns)
{
	if (p != NULL && p->peer != NULL)
		sim_at(s, t_ps, port_up_ev, p, converge_ns);
}

void
sim_switch_down_at(struct sim *s, uint32_t sw, uint64_t t_ps, uint64_t converge_ns)
{
	if (sw < s->n_sw)
		sim_at(s, t_ps, switch_down_ev, &s->nodes[s->n_hosts + sw], converge_ns);
}

void
sim_switch_up_at(struct sim *s, uint32_t sw, uint64_t t_ps, uint64_t converge_ns)
{
	if (sw < s->n_sw)
		sim_at(s, t_ps, switch_up_ev, &s->nodes[s->n_hosts + sw], converge_ns);
}

void
sim_link_rate_at(struct sim *s, struct sim_port *p, uint64_t t_ps, uint64_t rate_bps)
{
	if (p != NULL && p->peer != NULL && rate_bps > 0)
		sim_at(s, t_ps, link_rate_ev, p, rate_bps);
}

static void
fault_at(struct sim *s, struct sim_port *p, uint64_t t_ps, const struct sim_fault *f,
	 bool one_way)
{
	struct sim_fault_rec *r;

	if (p == NULL || p->peer == NULL)
		return;
	r = rec_new(s, p);
	r->f = *f;
	r->one_way = one_way;
	sim_at(s, t_ps, link_fault_ev, r, 0);
}

void
sim_link_fault_at(struct sim *s, struct sim_port *p, uint64_t t_ps, const struct sim_fault *f)
{
	fault_at(s, p, t_ps, f, false);
}

void
sim_port_fault_at(struct sim *s, struct sim_port *p, uint64_t t_ps, const struct sim_fault *f)
{
	fault_at(s, p, t_ps, f, true);
}

bool
sim_link_is_up(const struct sim_port *p)
{
	return !p->failed;
}

bool
sim_link_is_routed(const struct sim_port *p)
{
	return p->routed;
}

bool
sim_switch_is_up(const struct sim *s, uint32_t sw)
{
	return sw < s->n_sw && !s->nodes[s->n_hosts + sw].down;
}

void
sim_fail_free(struct sim *s)
{
	while (s->fault_recs != NULL) {
		struct sim_fault_rec *r = s->fault_recs;

		s->fault_recs = r->next;
		free(r);
	}
}

/* ------------------------------------------------------------------ */
/* random selection                                                    */

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Choose round(pct / 100 * n) of v[0..n) (partial Fisher-Yates from a
 * PRNG of its own, so the choice depends on the seed and the fabric only,
 * not on the simulation's random stream); they end up sorted in v[0..k). */
static uint32_t
pick(uint32_t *v, uint32_t n, double pct, uint64_t seed)
{
	struct uet_prng r;
	double want = pct / 100.0 * n + 0.5;
	uint32_t k, i;

	k = !(want >= 1.0) ? 0 : want >= (double)n ? n : (uint32_t)want;
	uet_prng_seed(&r, seed);
	for (i = 0; i < k; i++) {
		uint32_t j = i + (uint32_t)uet_prng_below(&r, n - i), t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
	qsort(v, k, sizeof(*v), cmp_u32);
	return k;
}

uint32_t
sim_pick_ports(struct sim *s, enum sim_port_role role, double pct, uint64_t seed,
	       struct sim_port **out, uint32_t cap)
{
	uint32_t *v = malloc((size_t)(s->n_ports ? s->n_ports : 1) * sizeof(*v));
	uint32_t i, n = 0, k;

	if (v == NULL)
		return 0;
	for (i = 0; i < s->n_ports; i++)
		if (s->ports[i].role == (uint8_t)role)
			v[n++] = i;
	k = pick(v, n, pct, seed);
	for (i = 0; i < k && i < cap; i++)
		out[i] = &s->ports[v[i]];
	free(v);
	return k;
}

uint32_t
sim_pick_switches(struct sim *s, uint32_t tier, double pct, uint64_t seed, uint32_t *out,
		  uint32_t cap)
{
	uint32_t n = tier < 3 ? s->tier_n[tier] : 0, i, k;
	uint32_t *v = malloc((size_t)(n ? n : 1) * sizeof(*v));

	if (v == NULL)
		return 0;
	for (i = 0; i < n; i++)
		v[i] = s->tier_first[tier] + i;
	k = pick(v, n, pct, seed);
	for (i = 0; i < k && i < cap; i++)
		out[i] = v[i];
	free(v);
	return k;
}
