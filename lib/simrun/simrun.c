/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "simrun/simrun.h"
#include "sim/sim.h"
#include "uet/err.h"

#define MAX_PICKED 65536  /* ports or switches one random failure may pick */

struct run;

struct hctx {
	struct run *r;
	uint32_t host;
};

struct run {
	const struct uet_perf_opts *o;
	struct sim *s;
	struct uet_wl *wl;
	struct uet_drv *drv;
	struct uet_meas *meas;
	struct uet_out *out;
	struct hctx *h;
	uint32_t nhosts;
	bool repeat;
	uint64_t duration_ns;
	uint64_t wake_ns;        /* the pending step event, UINT64_MAX if none */
	uint64_t wake_gen;
	bool done;
	uint64_t end_ns;
	uint64_t last_tx_bytes;
	size_t intervals_done;
	/* what the failures did, for the report */
	struct fail_rec *fails;
	uint32_t nfails;
	struct uet_sim_failure *cm_fails; /* from the .cm file's failure lines */
};

/* The ports (one per cable) a failure spec touched. */
struct fail_rec {
	const struct uet_sim_failure *spec;
	struct sim_port **ports;
	uint32_t nports;
	uint32_t *switches;
	uint32_t nswitches;
};

static uint64_t
ps(uint64_t ns)
{
	return ns * 1000;
}

/* --- the driver's hooks --- */

static void schedule_wake(struct run *r);

static int
drv_send(void *ctx, const struct uet_wl_flow *f, struct uet_send_req *req, uint64_t now_ns)
{
	struct run *r = ctx;
	int rc;

	req->dst_ip = sim_host_ip(r->s, f->dst);
	rc = uet_ep_send(sim_host_ep(r->s, f->src), req, now_ns);
	if (rc == 0)
		sim_host_kick(r->s, f->src);
	return rc;
}

/* After a completion: what it released starts, and the run may be over. */
static void
after_event(struct run *r)
{
	uint64_t now = sim_now_ns(r->s);

	uet_drv_step(r->drv, now);
	if (!r->repeat && !r->done && uet_drv_done(r->drv)) {
		r->done = true;
		r->end_ns = now;
		uet_drv_stop(r->drv);
		return;
	}
	schedule_wake(r);
}

static void
on_rx_data(void *user, const struct uet_rx_data *d)
{
	struct hctx *h = user;

	uet_drv_rx_data(h->r->drv, d, sim_now_ns(h->r->s));
}

static void
on_rx_msg(void *user, const struct uet_rx_msg *x)
{
	struct hctx *h = user;

	uet_drv_rx_msg(h->r->drv, x);
	after_event(h->r);
}

static void
on_tx_done(void *user, const struct uet_tx_done *x)
{
	struct hctx *h = user;

	uet_drv_tx_done(h->r->drv, x, sim_now_ns(h->r->s));
	after_event(h->r);
}

/* Flows that start later (web search, .cm start times) wake the driver. */
static void
wake_fire(struct sim *s, void *a, uint64_t gen)
{
	struct run *r = a;

	(void)s;
	if (gen != r->wake_gen)
		return;
	r->wake_ns = UINT64_MAX;
	after_event(r);
}

static void
schedule_wake(struct run *r)
{
	uint64_t next = uet_drv_next_ns(r->drv), now = sim_now_ns(r->s);

	if (next == UINT64_MAX || r->done)
		return;
	if (next <= now)
		next = now + 1;
	if (r->wake_ns <= next)
		return;
	r->wake_ns = next;
	sim_at(r->s, ps(next), wake_fire, r, ++r->wake_gen);
}

static void
duration_end(struct sim *s, void *a, uint64_t b)
{
	struct run *r = a;

	(void)b;
	r->done = true;
	r->end_ns = sim_now_ns(s);
	uet_drv_stop(r->drv);
}

/* --- the fabric --- */

static int
fabric_cfg(const struct uet_perf_opts *o, struct sim_fattree_cfg *fc,
	   struct sim_fattree_shape *shape, char *err, size_t n)
{
	uint64_t buf;

	sim_fattree_cfg_default(fc, o->nodes, o->tiers);
	fc->oversub = o->oversub;
	fc->hosts_per_tor = o->hosts_per_tor;
	fc->mss_bytes = o->mtu_bytes;
	fc->host_link.rate_bps = fc->fabric_link.rate_bps = (uint64_t)(o->link_gbps * 1e9);
	fc->host_link.lat_ns = fc->fabric_link.lat_ns = o->link_latency_ns;
	fc->switch_lat_ns = o->switch_latency_ns;
	if (sim_fattree_shape(fc, shape) != 0) {
		snprintf(err, n, "option '--nodes': %u hosts do not make a %u-tier fat tree with "
			 "%u hosts per ToR at %u:1 (the hosts must fill whole ToRs%s)", o->nodes,
			 o->tiers, o->hosts_per_tor, o->oversub,
			 o->tiers == 3 ? " and whole pods" : "");
		return -1;
	}
	buf = o->buffer_bytes ? o->buffer_bytes : sim_fattree_bdp_bytes(fc);
	sim_link_cfg_queue(&fc->host_link, buf);
	sim_link_cfg_queue(&fc->fabric_link, buf);
	fc->host_link.ecn_kmin_bytes = fc->fabric_link.ecn_kmin_bytes = buf * o->ecn_kmin_pct / 100;
	fc->host_link.ecn_kmax_bytes = fc->fabric_link.ecn_kmax_bytes = buf * o->ecn_kmax_pct / 100;
	fc->host_link.trim = fc->fabric_link.trim = o->trim;
	return 0;
}

/* --- endpoints sized for their share of the workload --- */

struct pair {
	uint32_t a, b;
	uint16_t stream;
};

static int
cmp_pair(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return (p->stream > q->stream) - (p->stream < q->stream);
}

/* Per host: distinct (peer, stream) PDCs it opens (out[h]) or accepts
 * (in[h]), and its flows out and in. */
static int
count_pdcs(const struct uet_wl *wl, uint32_t *pdc_out, uint32_t *pdc_in, uint32_t *flows_out,
	   uint32_t *flows_in)
{
	struct pair *p = malloc((wl->nflows ? wl->nflows : 1) * sizeof(*p));
	uint32_t i, pass;

	if (p == NULL)
		return UET_ERR_NOMEM;
	for (pass = 0; pass < 2; pass++) {
		uint32_t *cnt = pass == 0 ? pdc_out : pdc_in;

		for (i = 0; i < wl->nflows; i++) {
			const struct uet_wl_flow *f = &wl->flows[i];

			p[i].a = pass == 0 ? f->src : f->dst;
			p[i].b = pass == 0 ? f->dst : f->src;
			p[i].stream = f->stream;
			if (pass == 0)
				flows_out[f->src]++;
			else
				flows_in[f->dst]++;
		}
		qsort(p, wl->nflows, sizeof(*p), cmp_pair);
		for (i = 0; i < wl->nflows; i++)
			if (i == 0 || cmp_pair(&p[i], &p[i - 1]) != 0)
				cnt[p[i].a]++;
	}
	free(p);
	return 0;
}

static uint32_t
clamp(uint64_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (uint32_t)v;
}

/* The endpoint of host h: every pool sized from its PDCs and flows, so a
 * 1024-host fabric costs tens of KiB per host, not the default 8 MB. */
static void
size_endpoint(struct uet_ep_config *c, uint32_t pdc_out, uint32_t pdc_in, uint32_t f_out,
	      uint32_t f_in, bool repeat, uint32_t parallel)
{
	uint32_t par = parallel ? parallel : 1;

	c->max_pdcs = clamp((uint64_t)pdc_out + pdc_in + 2, 4, 65535);
	c->max_tx_windows = clamp(pdc_out, 1, 65535);
	c->max_rx_windows = clamp(pdc_in, 1, 65535);
	c->max_tx_msgs = clamp(repeat ? (uint64_t)pdc_out * par + 1 : f_out, 16, 4096);
	c->max_rx_msgs = clamp(repeat ? (uint64_t)pdc_in * par + 1 : f_in, 16, 1024);
	c->ctrl_queue_len = clamp(512 + 64ULL * pdc_in, 512, 4096);
}

static int
attach_hosts(struct run *r, const struct uet_ep_config *tmpl, uint64_t *mem, char *err,
	     size_t n)
{
	uint32_t *cnt = calloc(4 * (size_t)r->nhosts, sizeof(uint32_t)), h;
	int rc = 0;

	if (cnt == NULL || count_pdcs(r->wl, cnt, cnt + r->nhosts, cnt + 2 * r->nhosts,
				      cnt + 3 * r->nhosts) != 0) {
		free(cnt);
		snprintf(err, n, "out of memory");
		return -1;
	}
	*mem = 0;
	for (h = 0; h < r->nhosts && rc == 0; h++) {
		struct uet_ep_config c = *tmpl;

		size_endpoint(&c, cnt[h], cnt[r->nhosts + h], cnt[2 * r->nhosts + h],
			      cnt[3 * r->nhosts + h], r->repeat, r->o->parallel);
		r->h[h].r = r;
		r->h[h].host = h;
		c.cb.rx_data = on_rx_data;
		c.cb.rx_msg = on_rx_msg;
		c.cb.tx_done = on_tx_done;
		c.user = &r->h[h];
		c.seed = tmpl->seed * 1000003 + h;
		*mem += uet_ep_mem_bytes(&c);
		rc = sim_host_attach(r->s, h, &c);
		if (rc != 0) {
			const char *why = "invalid";

			(void)uet_ep_config_check(&c, &why);
			snprintf(err, n, "host %u: endpoint configuration rejected: %s", h, why);
		}
	}
	free(cnt);
	return rc == 0 ? 0 : -1;
}

/* --- failures --- */

static int
bad_fail(char *err, size_t n, const struct uet_sim_failure *f, const char *what)
{
	snprintf(err, n, "option '--failure': '%s': %s", f->text, what);
	return -1;
}

static uint64_t
converge_of(const struct uet_perf_opts *o, const struct uet_sim_failure *f)
{
	if (f->converge_ns == UET_SIM_CONVERGE_DEFAULT)
		return (uint64_t)(o->converge_us * 1000);
	return f->converge_ns; /* UET_SIM_CONVERGE_NEVER is 0, the sim's never */
}

static struct sim_port *
link_of(struct sim *s, const struct uet_sim_failure *f, char *err, size_t n)
{
	char why[128];
	uint32_t tier = f->node_kind == UET_NODE_TOR ? 0 : 1, sw;

	if (f->node_kind == UET_NODE_T2) /* a .cm line's core port (checked there) */
		return sim_switch_port(s, sim_switch_id(s, 2, f->node), f->uplink);

	if (f->node_kind == UET_NODE_HOST) {
		if (f->node >= sim_num_hosts(s)) {
			snprintf(why, sizeof(why), "host %u does not exist (%u hosts)", f->node,
				 sim_num_hosts(s));
			bad_fail(err, n, f, why);
			return NULL;
		}
		return sim_host_port(s, f->node);
	}
	if (f->node_kind == UET_NODE_T1 && sim_num_tiers(s) < 3) {
		bad_fail(err, n, f, "tier-1 switches have no uplinks in 2 tiers (a ToR-spine "
			 "cable is torN.upM)");
		return NULL;
	}
	if (f->node >= sim_tier_switches(s, tier)) {
		snprintf(why, sizeof(why), "switch %u of tier %u does not exist (%u there)",
			 f->node, tier, sim_tier_switches(s, tier));
		bad_fail(err, n, f, why);
		return NULL;
	}
	sw = sim_switch_id(s, tier, f->node);
	if (f->uplink >= sim_switch_num_uplinks(s, sw)) {
		snprintf(why, sizeof(why), "uplink %u does not exist (%u uplinks)", f->uplink,
			 sim_switch_num_uplinks(s, sw));
		bad_fail(err, n, f, why);
		return NULL;
	}
	return sim_switch_uplink(s, sw, f->uplink);
}

static int
switch_of(struct sim *s, const struct uet_sim_failure *f, uint32_t *sw, char *err, size_t n)
{
	uint32_t tier = f->node_kind == UET_NODE_TOR ? 0 : f->node_kind == UET_NODE_T1 ? 1 : 2;
	char why[128];

	if (tier >= sim_num_tiers(s) || f->node >= sim_tier_switches(s, tier)) {
		snprintf(why, sizeof(why), "no such switch (tier %u has %u)", tier,
			 tier < sim_num_tiers(s) ? sim_tier_switches(s, tier) : 0);
		return bad_fail(err, n, f, why);
	}
	*sw = sim_switch_id(s, tier, f->node);
	return 0;
}

static void
link_down(struct sim *s, struct sim_port *p, const struct uet_sim_failure *f, uint64_t conv)
{
	sim_link_down_at(s, p, ps(f->at_ns), conv);
	if (f->for_ns)
		sim_link_up_at(s, p, ps(f->at_ns + f->for_ns), conv);
}

static int
apply_failure(struct run *r, const struct uet_sim_failure *f, uint32_t idx, struct fail_rec *fr,
	      char *err, size_t n)
{
	struct sim *s = r->s;
	uint64_t conv = converge_of(r->o, f), seed = r->o->seed * 7919 + idx;
	struct sim_port *p;
	uint32_t i, sw;

	fr->spec = f;
	switch (f->kind) {
	case UET_FAIL_LINK_DOWN:
	case UET_FAIL_LINK_UP:
	case UET_FAIL_LINK_RATE:
		p = link_of(s, f, err, n);
		if (p == NULL)
			return -1;
		fr->ports[fr->nports++] = p;
		if (f->kind == UET_FAIL_LINK_DOWN) {
			link_down(s, p, f, conv);
		} else if (f->kind == UET_FAIL_LINK_UP) {
			sim_link_up_at(s, p, ps(f->at_ns), conv);
		} else {
			uint64_t was = sim_port_rate_bps(p);

			sim_link_rate_at(s, p, ps(f->at_ns), (uint64_t)(f->value * 1e9));
			if (f->for_ns)
				sim_link_rate_at(s, p, ps(f->at_ns + f->for_ns), was);
		}
		return 0;
	case UET_FAIL_SWITCH_DOWN:
	case UET_FAIL_SWITCH_UP:
		if (switch_of(s, f, &sw, err, n) != 0)
			return -1;
		fr->switches[fr->nswitches++] = sw;
		if (f->kind == UET_FAIL_SWITCH_UP) {
			sim_switch_up_at(s, sw, ps(f->at_ns), conv);
			return 0;
		}
		sim_switch_down_at(s, sw, ps(f->at_ns), conv);
		if (f->for_ns)
			sim_switch_up_at(s, sw, ps(f->at_ns + f->for_ns), conv);
		return 0;
	default:
		break;
	}
	if (f->cls >= UET_CLASS_TOR) {
		uint32_t tier = f->cls - UET_CLASS_TOR;

		if (tier >= sim_num_tiers(s))
			return bad_fail(err, n, f, "no core switches in 2 tiers");
		fr->nswitches = sim_pick_switches(s, tier, f->pct, seed, fr->switches, MAX_PICKED);
		for (i = 0; i < fr->nswitches; i++) {
			sim_switch_down_at(s, fr->switches[i], ps(f->at_ns), conv);
			if (f->for_ns)
				sim_switch_up_at(s, fr->switches[i], ps(f->at_ns + f->for_ns), conv);
		}
		return 0;
	}
	{
		static const enum sim_port_role role[] = {
			[UET_CLASS_HOST] = SIM_PORT_HOST_NIC,
			[UET_CLASS_TOR_UP] = SIM_PORT_TOR_UP,
			[UET_CLASS_T1_UP] = SIM_PORT_T1_UP,
		};

		if (f->cls == UET_CLASS_T1_UP && sim_num_tiers(s) < 3)
			return bad_fail(err, n, f, "no agg-up cables in 2 tiers");
		fr->nports = sim_pick_ports(s, role[f->cls], f->pct, seed, fr->ports, MAX_PICKED);
	}
	for (i = 0; i < fr->nports; i++) {
		p = fr->ports[i];
		if (f->kind == UET_FAIL_RANDOM_DOWN) {
			link_down(s, p, f, conv);
		} else if (f->kind == UET_FAIL_DEGRADE) {
			uint64_t was = sim_port_rate_bps(p);

			sim_link_rate_at(s, p, ps(f->at_ns), (uint64_t)((double)was * f->value));
			if (f->for_ns)
				sim_link_rate_at(s, p, ps(f->at_ns + f->for_ns), was);
		} else {
			struct sim_fault ft;

			memset(&ft, 0, sizeof(ft));
			ft.ber = f->value;
			sim_link_fault_at(s, p, ps(f->at_ns), &ft);
			if (f->for_ns) {
				memset(&ft, 0, sizeof(ft));
				sim_link_fault_at(s, p, ps(f->at_ns + f->for_ns), &ft);
			}
		}
	}
	return 0;
}

/*
 * An htsim connection matrix's failure line, "failure switch_type AGG
 * switch_id X link_id Y": the cable on uplink Y of switch X (TOR, AGG) or
 * on port Y of core X (CORE) is down for the whole run (htsim has no
 * time). Two optional words of ours, "start T" and "duration D" (us),
 * make it a timed failure. text is "path:line: failure ...".
 */
static int
cm_failure(struct run *r, const char *text, struct uet_sim_failure *f, char *err, size_t n)
{
	const char *body = strstr(text, ": failure");
	char buf[512], *tok[16], *save = NULL, *t, kind[16] = "";
	uint32_t nt = 0, i;
	long long id = -1, link = -1;
	double start = 0, dur = 0;

	if (body == NULL || strlen(body) >= sizeof(buf))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", body + 2);
	for (t = strtok_r(buf, " \t", &save); t != NULL && nt < 16; t = strtok_r(NULL, " \t", &save))
		tok[nt++] = t;
	for (i = 1; i + 1 < nt; i += 2) {
		if (strcmp(tok[i], "switch_type") == 0)
			snprintf(kind, sizeof(kind), "%s", tok[i + 1]);
		else if (strcmp(tok[i], "switch_id") == 0)
			id = strtoll(tok[i + 1], NULL, 10);
		else if (strcmp(tok[i], "link_id") == 0)
			link = strtoll(tok[i + 1], NULL, 10);
		else if (strcmp(tok[i], "start") == 0)
			start = strtod(tok[i + 1], NULL);
		else if (strcmp(tok[i], "duration") == 0)
			dur = strtod(tok[i + 1], NULL);
		else
			goto bad;
	}
	if (i != nt || id < 0 || id > UINT32_MAX || link < 0 || link > 65535 || start < 0 ||
	    dur < 0 || start > 1e9 || dur > 1e9)
		goto bad;
	memset(f, 0, sizeof(*f));
	f->kind = UET_FAIL_LINK_DOWN;
	f->at_ns = (uint64_t)(start * 1e3);
	f->for_ns = (uint64_t)(dur * 1e3);
	f->converge_ns = UET_SIM_CONVERGE_DEFAULT;
	f->node = (uint32_t)id;
	f->uplink = (uint32_t)link;
	snprintf(f->text, sizeof(f->text), "%s", body + 2);
	if (strcmp(kind, "TOR") == 0) {
		f->node_kind = UET_NODE_TOR;
	} else if (strcmp(kind, "AGG") == 0) {
		f->node_kind = UET_NODE_T1;
	} else if (strcmp(kind, "CORE") == 0) {
		/* A core's cable: its port link_id (cores have no uplinks). */
		if (sim_num_tiers(r->s) < 3 || id >= sim_tier_switches(r->s, 2) ||
		    link >= sim_switch_num_ports(r->s, sim_switch_id(r->s, 2, (uint32_t)id)))
			goto bad;
		f->node_kind = UET_NODE_T2;
	} else {
		goto bad;
	}
	return 0;
bad:
	snprintf(err, n, "%s: expected 'failure switch_type TOR|AGG|CORE switch_id X link_id Y "
		 "[start US] [duration US]'", text);
	return -1;
}

static int
apply_failures(struct run *r, char *err, size_t n)
{
	uint32_t i, from_opts = r->o->n_failures;

	r->nfails = from_opts + r->wl->unsupported;
	r->fails = calloc(r->nfails ? r->nfails : 1, sizeof(*r->fails));
	r->cm_fails = calloc(r->wl->unsupported ? r->wl->unsupported : 1, sizeof(*r->cm_fails));
	if (r->fails == NULL || r->cm_fails == NULL)
		return -1;
	for (i = 0; i < r->nfails; i++) {
		const struct uet_sim_failure *f;

		r->fails[i].ports = calloc(MAX_PICKED, sizeof(struct sim_port *));
		r->fails[i].switches = calloc(MAX_PICKED, sizeof(uint32_t));
		if (r->fails[i].ports == NULL || r->fails[i].switches == NULL) {
			snprintf(err, n, "out of memory");
			return -1;
		}
		if (i < from_opts) {
			f = &r->o->failures[i];
		} else {
			if (cm_failure(r, r->wl->unsupported_text[i - from_opts],
				       &r->cm_fails[i - from_opts], err, n) != 0)
				return -1;
			f = &r->cm_fails[i - from_opts];
		}
		if (apply_failure(r, f, i, &r->fails[i], err, n) != 0)
			return -1;
	}
	return 0;
}

/* --- measurement --- */

static void
sample(struct run *r)
{
	struct uet_ep_stats sum;
	uint64_t now = sim_now_ns(r->s);
	uint32_t h;

	memset(&sum, 0, sizeof(sum));
	for (h = 0; h < r->nhosts; h++)
		uet_meas_add_ep_stats(&sum, uet_ep_stats(sim_host_ep(r->s, h)));
	if (sum.tx_data_bytes > r->last_tx_bytes)
		(void)uet_meas_tx_bytes(r->meas, now, sum.tx_data_bytes - r->last_tx_bytes);
	r->last_tx_bytes = sum.tx_data_bytes;
	(void)uet_meas_set_ep_stats(r->meas, now, &sum);
	if (r->out != NULL) {
		size_t k = uet_meas_interval_count(r->meas, now, false);

		for (; r->intervals_done < k; r->intervals_done++) {
			struct uet_meas_interval iv;

			uet_meas_interval_get(r->meas, r->intervals_done, now, &iv);
			uet_out_interval(r->out, &iv);
		}
	}
}

static json_t *
port_totals(struct sim *s)
{
	struct sim_port_stats t;
	uint64_t maxq = 0;
	uint32_t i;

	sim_total_stats(s, &t);
	for (i = 0; i < sim_num_ports(s); i++) {
		const struct sim_port_stats *ps_ = sim_port_stats(sim_port_at(s, i));

		if (sim_port_is_fabric(sim_port_at(s, i)) && ps_->max_queue_bytes > maxq)
			maxq = ps_->max_queue_bytes;
	}
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
			 "tx_pkts", (json_int_t)t.tx_pkts, "ecn_marks", (json_int_t)t.ecn_marks,
			 "trims", (json_int_t)t.trims, "drops_queue", (json_int_t)t.drops_queue,
			 "drops_fault", (json_int_t)t.drops_fault,
			 "drops_down", (json_int_t)t.drops_down,
			 "drops_ber", (json_int_t)t.drops_ber,
			 "drops_noroute", (json_int_t)t.drops_noroute,
			 "switch_drops", (json_int_t)sim_switch_drops(s),
			 "max_fabric_queue_bytes", (json_int_t)maxq);
}

/* What each failure did: the packets its links or switches dropped. */
static json_t *
failures_json(struct run *r)
{
	json_t *a = json_array();
	uint32_t i, k;

	for (i = 0; i < r->nfails; i++) {
		const struct fail_rec *fr = &r->fails[i];
		uint64_t down = 0, last = 0;

		for (k = 0; k < fr->nports; k++) {
			struct sim_port *p[2] = { fr->ports[k], sim_port_peer(fr->ports[k]) };
			int d;

			for (d = 0; d < 2; d++) {
				const struct sim_port_stats *st = sim_port_stats(p[d]);

				down += st->drops_down;
				if (st->last_drop_ns > last)
					last = st->last_drop_ns;
			}
		}
		for (k = 0; k < fr->nswitches; k++) {
			uint32_t j;

			for (j = 0; j < sim_switch_num_ports(r->s, fr->switches[k]); j++) {
				struct sim_port *p = sim_switch_port(r->s, fr->switches[k], j);
				struct sim_port *q[2] = { p, sim_port_peer(p) };
				int d;

				for (d = 0; d < 2; d++) {
					const struct sim_port_stats *st = sim_port_stats(q[d]);

					down += st->drops_down;
					if (st->last_drop_ns > last)
						last = st->last_drop_ns;
				}
			}
		}
		json_array_append_new(a, json_pack("{s:s,s:I,s:I,s:I,s:I,s:o}", "spec",
			fr->spec->text, "at_ns", (json_int_t)fr->spec->at_ns, "links",
			(json_int_t)fr->nports, "switches", (json_int_t)fr->nswitches,
			"drops_down", (json_int_t)down,
			"last_drop_ns", last ? json_integer((json_int_t)last) : json_null()));
	}
	return a;
}

static json_t *
test_start(const struct uet_perf_opts *o, const struct sim_fattree_cfg *fc,
	   const struct sim_fattree_shape *sh, const struct uet_ep_config *ep, bool repeat,
	   uint64_t size_bytes)
{
	json_t *ts = json_object(), *fails = json_array();
	uint32_t i;

	for (i = 0; i < o->n_failures; i++)
		json_array_append_new(fails, json_string(o->failures[i].text));
	json_object_set_new(ts, "pattern", json_string(o->pattern));
	json_object_set_new(ts, "hosts", json_integer(sh->hosts));
	json_object_set_new(ts, "size_bytes", json_integer((json_int_t)size_bytes));
	json_object_set_new(ts, "streams", json_integer(o->streams));
	json_object_set_new(ts, "iterations", json_integer(repeat ? 0 : (json_int_t)o->iters));
	json_object_set_new(ts, "duration_ns",
			    json_integer((json_int_t)(repeat ? o->duration_s * 1e9 : 0)));
	json_object_set_new(ts, "parallel", json_integer(o->parallel));
	json_object_set_new(ts, "seed", json_integer((json_int_t)o->seed));
	json_object_set_new(ts, "lb", json_string(o->lb));
	json_object_set_new(ts, "cc", json_string(o->cc));
	json_object_set_new(ts, "mtu_bytes", json_integer(o->mtu_bytes));
	json_object_set_new(ts, "ack_every_bytes", json_integer(o->ack_every_bytes));
	json_object_set_new(ts, "base_rtt_ns", json_integer((json_int_t)ep->base_rtt_ns));
	json_object_set_new(ts, "link_bps", json_integer((json_int_t)ep->link_bps));
	json_object_set_new(ts, "verify", json_boolean(o->verify));
	json_object_set_new(ts, "fabric", json_pack(
		"{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:I,s:I,s:I,s:I,s:I,s:b}",
		"tiers", (int)sh->tiers, "oversub", (int)fc->oversub,
		"hosts_per_tor", (int)sh->hosts_per_tor, "tor_uplinks", (int)sh->tor_uplinks,
		"tors", (int)sh->tors, "pods", (int)sh->pods, "t1_switches", (int)sh->t1_switches,
		"t2_switches", (int)sh->t2_switches,
		"link_latency_ns", (json_int_t)fc->host_link.lat_ns,
		"switch_latency_ns", (json_int_t)fc->switch_lat_ns,
		"buffer_bytes", (json_int_t)fc->fabric_link.buf_bytes,
		"ecn_kmin_bytes", (json_int_t)fc->fabric_link.ecn_kmin_bytes,
		"ecn_kmax_bytes", (json_int_t)fc->fabric_link.ecn_kmax_bytes,
		"trim", fc->fabric_link.trim));
	json_object_set_new(ts, "failures", fails);
	json_object_set_new(ts, "converge_us", json_real(o->converge_us));
	return ts;
}

/* --- the run --- */

static void
run_free(struct run *r)
{
	uint32_t i;

	for (i = 0; r->fails != NULL && i < r->nfails; i++) {
		free(r->fails[i].ports);
		free(r->fails[i].switches);
	}
	free(r->fails);
	free(r->cm_fails);
	uet_drv_destroy(r->drv);
	sim_destroy(r->s);
	free(r->h);
}

/* The fabric and the endpoints' template, from the options. */
static int
prepare(const struct uet_perf_opts *o, struct sim_fattree_cfg *fc, struct sim_fattree_shape *sh,
	struct uet_ep_config *ep, struct uet_perf_algo_cfg *algo, char *err, size_t n)
{
	struct uet_perf_opts *t;
	int rc;

	if (fabric_cfg(o, fc, sh, err, n) != 0)
		return UET_SIMRUN_EBAD;
	/* The transport derives its timers from the fabric's own RTT unless
	 * the options say otherwise. */
	t = malloc(sizeof(*t));
	if (t == NULL)
		return -1;
	*t = *o;
	if (t->base_rtt_ns == 0)
		t->base_rtt_ns = (sim_fattree_rtt_ps(fc) + 999) / 1000;
	rc = uet_perf_opts_to_ep_config(t, ep, algo, err, n);
	free(t);
	if (rc != 0)
		return UET_SIMRUN_EBAD;
	ep->link_bps = fc->host_link.rate_bps;
	ep->assume_trimming = o->trim;
	return 0;
}

json_t *
uet_simrun_describe(const struct uet_perf_opts *o, uint64_t size_bytes, char *err, size_t n)
{
	struct sim_fattree_cfg fc;
	struct sim_fattree_shape sh;
	struct uet_ep_config ep;
	struct uet_perf_algo_cfg algo;
	bool repeat = o->duration_s > 0 && strcmp(o->pattern, "websearch") != 0;

	if (prepare(o, &fc, &sh, &ep, &algo, err, n) != 0)
		return NULL;
	return test_start(o, &fc, &sh, &ep, repeat, size_bytes);
}

void
uet_simrun_result_free(struct uet_simrun_result *res)
{
	uet_meas_destroy(res->meas);
	uet_wl_free(res->wl);
	json_decref(res->fabric);
	json_decref(res->test_start);
	memset(res, 0, sizeof(*res));
}

int
uet_simrun(const struct uet_perf_opts *o, uint64_t size_bytes, struct uet_out *out,
	   const volatile int *stop, struct uet_simrun_result *res)
{
	struct sim_fattree_cfg fc;
	struct sim_fattree_shape sh;
	struct sim_config sc;
	struct uet_ep_config ep;
	struct uet_perf_algo_cfg algo;
	struct uet_wl_spec spec;
	struct uet_drv_cfg dc;
	struct uet_meas_config mc;
	struct uet_meas_flow *mf = NULL;
	bool *local = NULL;
	struct run r;
	uint64_t step_ns, t;
	uint32_t i;
	char *err = res->error;
	size_t n = sizeof(res->error);
	int rc = -1;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.o = o;
	r.out = out;
	r.wake_ns = UINT64_MAX;
	if (prepare(o, &fc, &sh, &ep, &algo, err, n) != 0)
		return UET_SIMRUN_EBAD;
	if (uet_drv_spec_from_opts(o, sh.hosts, ep.link_bps, &spec, &r.repeat, err, n) != 0)
		return UET_SIMRUN_EBAD;
	spec.size_bytes = size_bytes;
	r.duration_ns = (uint64_t)(o->duration_s * 1e9);
	if (uet_wl_build(&spec, &r.wl, err, n) != 0)
		return UET_SIMRUN_EBAD;
	for (i = 0; i < r.wl->nflows; i++)
		if (r.wl->flows[i].size_bytes > UINT32_MAX) {
			snprintf(err, n, "flow %u: %llu bytes; messages are at most 4 GiB - 1", i,
				 (unsigned long long)r.wl->flows[i].size_bytes);
			goto out;
		}

	sim_config_default(&sc);
	sc.seed = o->seed;
	sc.mtu_bytes = sim_frame_bytes(o->mtu_bytes);
	/* Checksums are for real networks: corruption is flagged instead, the
	 * same outcome without two passes over every payload. */
	sc.no_udp_csum = true;
	r.s = sim_create(&sc);
	r.nhosts = sh.hosts;
	r.h = calloc(r.nhosts, sizeof(*r.h));
	local = malloc(r.nhosts * sizeof(bool));
	mf = calloc(r.wl->nflows ? r.wl->nflows : 1, sizeof(*mf));
	if (r.s == NULL || r.h == NULL || local == NULL || mf == NULL) {
		snprintf(err, n, "out of memory");
		goto out;
	}
	if (sim_build_fat_tree(r.s, &fc) != 0) {
		snprintf(err, n, "cannot build the fabric");
		goto out;
	}
	for (i = 0; i < r.nhosts; i++)
		local[i] = true;
	memset(&dc, 0, sizeof(dc));
	dc.wl = r.wl;
	dc.local = local;
	dc.repeat = r.repeat;
	dc.parallel = o->parallel;
	dc.verify = o->verify;
	dc.send = drv_send;
	dc.ctx = &r;
	if (uet_drv_create(&dc, &r.drv) != 0 ||
	    attach_hosts(&r, &ep, &res->ep_mem_bytes, err, n) != 0)
		goto out;
	if (o->verify)
		sim_set_fill(r.s, uet_drv_fill, NULL);
	if (apply_failures(&r, err, n) != 0) {
		rc = UET_SIMRUN_EBAD;
		goto out;
	}
	for (i = 0; i < r.wl->nflows; i++) {
		mf[i].src = r.wl->flows[i].src;
		mf[i].dst = r.wl->flows[i].dst;
		mf[i].size_bytes = r.wl->flows[i].size_bytes;
		mf[i].stream = r.wl->flows[i].stream;
		mf[i].step = r.wl->flows[i].step;
	}
	memset(&mc, 0, sizeof(mc));
	mc.flows = mf;
	mc.n_flows = r.wl->nflows;
	mc.ev_base = ep.ev_base;
	mc.ev_count = ep.ev_count;
	mc.start_ns = 0;
	mc.bin_ns = (uint64_t)o->bin_us * 1000;
	mc.interval_ns = (uint64_t)(o->interval_s * 1e9);
	mc.interval_ns -= mc.interval_ns % mc.bin_ns;
	mc.repeat = r.repeat;
	if (uet_meas_create(&mc, &r.meas) != 0) {
		snprintf(err, n, "out of memory for the measurement");
		goto out;
	}
	res->test_start = test_start(o, &fc, &sh, &ep, r.repeat, size_bytes);
	if (out != NULL)
		uet_out_started(out, r.meas, size_bytes);

	/* t = 0 */
	uet_drv_begin(r.drv, r.meas, 0);
	if (r.repeat)
		sim_at(r.s, ps(r.duration_ns), duration_end, &r, 0);
	after_event(&r);
	/* Run bin by bin: each boundary samples the counters into the
	 * timeline (and the interval lines); the boundaries are fixed times,
	 * so the run replays exactly. */
	step_ns = mc.bin_ns;
	for (t = step_ns; !r.done; t += step_ns) {
		bool drained = sim_run_drain(r.s, ps(t));

		if (sim_now_ns(r.s) < t && !r.done) {
			/* No event left before t: either the run is over or it
			 * is stuck (nothing in flight, flows not complete). */
			if (drained) {
				snprintf(err, n, "the fabric went idle at %.3f us with flows "
					 "incomplete", (double)sim_now_ns(r.s) / 1e3);
				r.end_ns = sim_now_ns(r.s);
				break;
			}
		}
		sample(&r);
		if (stop != NULL && *stop) {
			res->interrupted = true;
			r.end_ns = sim_now_ns(r.s);
			(void)uet_meas_event(r.meas, r.end_ns, "interrupt", "SIGINT/SIGTERM");
			break;
		}
	}
	sample(&r);
	res->complete = r.done && !r.repeat;
	res->end_ns = r.end_ns;
	res->events = sim_events_run(r.s);
	res->sim_mem_bytes = sim_mem_bytes(r.s);
	res->fabric = json_pack("{s:I,s:I,s:I,s:I,s:o,s:o}", "events", (json_int_t)res->events,
				"sim_ns", (json_int_t)sim_now_ns(r.s),
				"sim_mem_bytes", (json_int_t)res->sim_mem_bytes,
				"ep_mem_bytes", (json_int_t)res->ep_mem_bytes,
				"ports", port_totals(r.s), "failures", failures_json(&r));
	if (o->verify) {
		const struct uet_drv_stats *ds = uet_drv_stats(r.drv);

		uet_meas_verify(r.meas, ds->verify_checked, ds->verify_bad);
	}
	rc = err[0] != '\0' ? -1 : 0;
	res->meas = r.meas;
	res->wl = r.wl;
	r.meas = NULL;
	r.wl = NULL;
out:
	/* The driver reads the workload to the end: it goes first. */
	run_free(&r);
	uet_meas_destroy(r.meas);
	uet_wl_free(r.wl);
	free(local);
	free(mf);
	return rc;
}
