/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-port time series (series.h): an event every interval reads each
 * chosen port's byte counter and queue, so the fabric's random stream and
 * every packet's fate are those of a run without it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/text.h"
#include "sim/failure.h"
#include "sim/series.h"
#include "sim/sim.h"
#include "sim/sim_int.h"

#define fail uet_text_fail
#define SHOWN UET_SHOWN

struct sim_series {
	struct sim *s;
	uint64_t interval_ps, start_ps;
	uint32_t nports;
	struct sim_port **ports;
	char (*names)[48];
	uint64_t *rate_bps;
	uint64_t *last_tx;
	struct sim_series_sample *v; /* [sample][port] */
	uint32_t nsamples, cap_samples, max_samples;
	bool truncated;
};

/* The cable's name from its egress toward the cores. */
static void
cable_name(struct sim *s, struct sim_port *up, char *buf, size_t n)
{
	struct sim_port_info pi;
	uint32_t i, tier;

	sim_port_info(up, &pi);
	if (pi.role == SIM_PORT_HOST_NIC) {
		snprintf(buf, n, "host%u", pi.node);
		return;
	}
	tier = sim_switch_tier(s, pi.node);
	for (i = 0; i < sim_switch_num_uplinks(s, pi.node); i++)
		if (sim_switch_uplink(s, pi.node, i) == up)
			break;
	snprintf(buf, n, "%s%u.up%u", tier == 0 ? "tor" : sim_num_tiers(s) == 3 ? "agg" : "spine",
		 pi.node - sim_switch_id(s, tier, 0), i);
}

static bool
is_up(const struct sim_port *p)
{
	enum sim_port_role r = sim_port_role(p);

	return r == SIM_PORT_HOST_NIC || r == SIM_PORT_TOR_UP || r == SIM_PORT_T1_UP;
}

static int
add_cable(struct sim_series *ser, struct sim_port *up, uint8_t dir, char *err, size_t n)
{
	char cable[40];
	int d;

	cable_name(ser->s, up, cable, sizeof(cable));
	for (d = 0; d < 2; d++) {
		struct sim_port *p = d == 0 ? up : sim_port_peer(up);
		uint32_t k;

		if ((d == 0 && dir == SIM_DIR_DOWN) || (d == 1 && dir == SIM_DIR_UP))
			continue;
		for (k = 0; k < ser->nports; k++)
			if (ser->ports[k] == p)
				break;
		if (k < ser->nports)
			continue; /* named twice: one series */
		if (ser->nports == SIM_SERIES_MAX_PORTS)
			return fail(err, n, "more than %u ports", SIM_SERIES_MAX_PORTS);
		ser->ports[ser->nports] = p;
		snprintf(ser->names[ser->nports], sizeof(ser->names[0]), "%s%s", cable,
			 d == 0 ? "" : ":down");
		ser->rate_bps[ser->nports] = sim_port_rate_bps(p);
		ser->last_tx[ser->nports] = sim_port_stats(p)->tx_bytes;
		p->win_max_queue = sim_port_queue_bytes(p);
		ser->nports++;
	}
	return 0;
}

static void
sample_fire(struct sim *s, void *a, uint64_t b)
{
	struct sim_series *ser = a;
	struct sim_series_sample *row;
	uint32_t k;

	(void)b;
	if (ser->nsamples == ser->max_samples) {
		ser->truncated = true;
		return;
	}
	if (ser->nsamples == ser->cap_samples) {
		uint32_t cap = ser->cap_samples ? ser->cap_samples * 2 : 256;
		struct sim_series_sample *v;

		if (cap > ser->max_samples)
			cap = ser->max_samples;
		v = realloc(ser->v, (size_t)cap * ser->nports * sizeof(*v));
		if (v == NULL) {
			ser->truncated = true;
			return;
		}
		ser->v = v;
		ser->cap_samples = cap;
	}
	row = &ser->v[(size_t)ser->nsamples * ser->nports];
	for (k = 0; k < ser->nports; k++) {
		struct sim_port *p = ser->ports[k];
		uint64_t tx = p->st.tx_bytes, q = sim_port_queue_bytes(p);

		row[k].tx_bytes = (uint32_t)(tx - ser->last_tx[k]);
		row[k].queue_bytes = (uint32_t)(q > UINT32_MAX ? UINT32_MAX : q);
		row[k].queue_max_bytes = (uint32_t)(p->win_max_queue > UINT32_MAX ? UINT32_MAX
										 : p->win_max_queue);
		ser->last_tx[k] = tx;
		p->win_max_queue = q;
	}
	ser->nsamples++;
	/* Only while something else is still to happen: the sampler alone
	 * must not keep a finished run going. */
	if (sim_events_pending(s) > 0)
		sim_at(s, sim_now_ps(s) + ser->interval_ps, sample_fire, ser, 0);
}

struct sim_series *
sim_series_start(struct sim *s, const struct sim_series_sel *sel, uint64_t interval_ns,
		 char *err, size_t errlen)
{
	static const enum sim_port_role role[] = {
		[SIM_CLASS_HOST] = SIM_PORT_HOST_NIC,
		[SIM_CLASS_TOR_UP] = SIM_PORT_TOR_UP,
		[SIM_CLASS_T1_UP] = SIM_PORT_T1_UP,
	};
	struct sim_series *ser = calloc(1, sizeof(*ser));
	uint32_t i, k;

	if (ser == NULL)
		goto oom;
	ser->s = s;
	ser->interval_ps = sim_ps(interval_ns ? interval_ns : 1);
	ser->start_ps = sim_now_ps(s);
	ser->ports = calloc(SIM_SERIES_MAX_PORTS, sizeof(*ser->ports));
	ser->names = calloc(SIM_SERIES_MAX_PORTS, sizeof(*ser->names));
	ser->rate_bps = calloc(SIM_SERIES_MAX_PORTS, sizeof(*ser->rate_bps));
	ser->last_tx = calloc(SIM_SERIES_MAX_PORTS, sizeof(*ser->last_tx));
	if (ser->ports == NULL || ser->names == NULL || ser->rate_bps == NULL ||
	    ser->last_tx == NULL)
		goto oom;
	for (i = 0; i < sel->n; i++) {
		const struct sim_series_item *it = &sel->items[i];

		if (!it->is_class) {
			struct sim_failure f;
			struct sim_port *p;

			memset(&f, 0, sizeof(f));
			f.node_kind = it->node_kind;
			f.node = it->node;
			f.uplink = it->uplink;
			snprintf(f.text, sizeof(f.text), "%s", it->text);
			p = sim_failure_link(s, &f, err, errlen);
			if (p == NULL || add_cable(ser, p, it->dir, err, errlen) != 0)
				goto bad;
			continue;
		}
		if (it->cls == SIM_CLASS_T1_UP && sim_num_tiers(s) < 3) {
			fail(err, errlen, "'%s': no agg-up cables in 2 tiers", it->text);
			goto bad;
		}
		for (k = 0; k < sim_num_ports(s); k++) {
			struct sim_port *p = sim_port_at(s, k);

			if (sim_port_role(p) == role[it->cls] && is_up(p) &&
			    add_cable(ser, p, it->dir, err, errlen) != 0)
				goto bad;
		}
	}
	ser->max_samples = SIM_SERIES_MAX_SAMPLES / ser->nports;
	sim_at(s, ser->start_ps + ser->interval_ps, sample_fire, ser, 0);
	return ser;
oom:
	fail(err, errlen, "out of memory for the port series");
bad:
	sim_series_free(ser);
	return NULL;
}

void
sim_series_free(struct sim_series *ser)
{
	if (ser == NULL)
		return;
	free(ser->ports);
	free(ser->names);
	free(ser->rate_bps);
	free(ser->last_tx);
	free(ser->v);
	free(ser);
}

uint32_t
sim_series_ports(const struct sim_series *ser)
{
	return ser->nports;
}

const char *
sim_series_name(const struct sim_series *ser, uint32_t port)
{
	return ser->names[port];
}

uint64_t
sim_series_rate_bps(const struct sim_series *ser, uint32_t port)
{
	return ser->rate_bps[port];
}

uint32_t
sim_series_samples(const struct sim_series *ser)
{
	return ser->nsamples;
}

uint64_t
sim_series_interval_ns(const struct sim_series *ser)
{
	return ser->interval_ps / 1000;
}

bool
sim_series_truncated(const struct sim_series *ser)
{
	return ser->truncated;
}

uint64_t
sim_series_start_ns(const struct sim_series *ser)
{
	return ser->start_ps / 1000;
}

const struct sim_series_sample *
sim_series_get(const struct sim_series *ser, uint32_t sample, uint32_t port)
{
	return &ser->v[(size_t)sample * ser->nports + port];
}
