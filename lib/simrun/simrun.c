/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "uet/frame.h"
#include "net/pcapw.h"
#include "report/output.h"
#include "simrun/simrun.h"
#include "sim/failure.h"
#include "sim/series.h"
#include "sim/sim.h"
#include "uet/err.h"

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
	uint64_t omit_ns;        /* --omit: a warm-up before duration_ns */
	bool omit_ended;
	uint64_t wake_ns;        /* the pending step event, UINT64_MAX if none */
	uint64_t wake_gen;
	bool done;
	uint64_t end_ns;
	uint64_t last_tx_bytes;
	size_t intervals_done;
	/* what the failures did, for the report */
	struct fail_rec *fails;
	uint32_t nfails;
	struct sim_failure *cm_fails; /* from the .cm file's failure lines */
	struct sim_series *series;    /* --port-series, or NULL */
	uint64_t burst_gap_ns;        /* a sender's drops further apart: a new burst */
	struct capture *caps;         /* --pcap */
	uint32_t ncaps;
};

/* One host's --pcap file. */
struct capture {
	uint32_t host;
	struct uet_pcap *pc;
	char path[256];
};

/* The ports (a cable, or a degraded direction) and switches a failure spec
 * touched. */
struct fail_rec {
	const struct sim_failure *spec;
	struct sim_failure_hit hit;
	/* Per sending host: when this failure first and last cost it a
	 * packet (0: never). How long a sender kept losing packets there is
	 * how long its load balancer took to route around the failure.
	 * burst_ns: the end of its first burst of losses there (0 while it
	 * lasts), a burst ending when no loss follows within an RTO: REPS
	 * leaves a dead link, then may come back after its freeze and lose a
	 * few more, which is the freeze's length, not its reaction time. */
	uint64_t *first_ns, *last_ns, *burst_ns;
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
	/* Streams are done early only when every one of them failed. */
	if (!r->done && uet_drv_done(r->drv)) {
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
	if (o->fabric_gbps > 0)
		fc->fabric_link.rate_bps = (uint64_t)(o->fabric_gbps * 1e9);
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

/* A mixed deployment: these hosts stay on ECMP (background traffic that
 * does not spray), by --ecmp-every's stride or --ecmp-hosts' list. */
static bool
on_ecmp(const struct uet_perf_opts *o, uint32_t h)
{
	return (o->ecmp_every != 0 && h % o->ecmp_every == 0) ||
	       uet_perf_set_has(&o->ecmp_hosts, h);
}

/* A host list option (--pcap-hosts, --ecmp-hosts) names hosts of this
 * fabric only. */
static int
check_hosts(const struct run *r, const struct uet_perf_set *set, const char *opt, char *err,
	    size_t n)
{
	uint32_t i;

	for (i = 0; i < set->n; i++)
		if (set->r[i].hi >= r->nhosts) {
			snprintf(err, n, "option '--%s': host %u, but the fabric has %u hosts "
				 "(0-%u)", opt, set->r[i].hi, r->nhosts, r->nhosts - 1);
			return -1;
		}
	return 0;
}

static int
attach_hosts(struct run *r, const struct uet_ep_config *tmpl, uint64_t *mem, char *err,
	     size_t n)
{
	uint32_t *cnt = calloc(4 * (size_t)r->nhosts, sizeof(uint32_t)), h;
	int rc = 0;

	if (cnt == NULL || uet_wl_count_pdcs(r->wl, cnt, cnt + r->nhosts, cnt + 2 * r->nhosts,
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
		if (on_ecmp(r->o, h)) {
			c.lb = &uet_lb_ecmp;
			c.lb_cfg = NULL;
		}
		*mem += uet_ep_mem_bytes(&c);
		rc = sim_host_attach(r->s, h, &c);
		if (rc != 0) {
			const char *why = NULL;

			(void)uet_ep_config_check(&c, &why);
			if (rc == UET_ERR_NOMEM || why == NULL)
				snprintf(err, n, "host %u: out of memory for its endpoint: %zu bytes "
					 "for %u PDCs of a %u-PSN window (--window-psns and the "
					 "workload size it)", h, uet_ep_mem_bytes(&c), c.max_pdcs,
					 c.window_psns);
			else
				snprintf(err, n, "host %u: endpoint configuration rejected: %s", h,
					 why);
		}
	}
	free(cnt);
	return rc == 0 ? 0 : -1;
}

/* --- captures --- */

/* --pcap for the hosts of --pcap-hosts (host 0 when empty). */
static int
open_captures(struct run *r, char *err, size_t n)
{
	const struct uet_perf_set *set = &r->o->pcap_hosts;
	uint32_t i, h, k = 0, total;

	if (r->o->pcap[0] == '\0')
		return 0;
	if (check_hosts(r, set, "pcap-hosts", err, n) != 0)
		return -1;
	total = (uint32_t)uet_perf_set_count(set);
	r->caps = calloc(total ? total : 1, sizeof(*r->caps));
	if (r->caps == NULL) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	for (i = 0; i < (set->n ? set->n : 1); i++)
		for (h = set->n ? set->r[i].lo : 0; h <= (set->n ? set->r[i].hi : 0); h++) {
			struct capture *c = &r->caps[k];

			c->host = h;
			uet_out_expand(r->o->pcap, h, UINT32_MAX, c->path, sizeof(c->path));
			if (uet_pcap_open(&c->pc, c->path, r->o->pcap_snaplen) != 0) {
				snprintf(err, n, "option '--pcap': cannot write %.200s", c->path);
				return -1;
			}
			r->ncaps = ++k;
			uet_pcap_set_limit(c->pc, r->o->pcap_count);
			sim_host_capture(r->s, h, c->pc);
		}
	return 0;
}

/* What each capture holds, for end.fabric.captures. */
static json_t *
captures_json(const struct run *r)
{
	json_t *a = json_array();
	uint32_t i;

	for (i = 0; i < r->ncaps; i++)
		json_array_append_new(a, json_pack("{s:i,s:s,s:I,s:I}", "host", (int)r->caps[i].host,
						   "path", r->caps[i].path, "frames",
						   (json_int_t)uet_pcap_count(r->caps[i].pc),
						   "not_written",
						   (json_int_t)uet_pcap_skipped(r->caps[i].pc)));
	return a;
}

/* --- failures: lib/sim/failure.h parses and applies them --- */

static bool
is_degradation(const struct sim_failure *f)
{
	return f->kind == SIM_FAIL_LINK_RATE || f->kind == SIM_FAIL_DEGRADE ||
	       f->kind == SIM_FAIL_HTSIM_FAILED;
}

/* Did failure fr's cables or switches cost a packet at port p? A failed
 * switch's drops count at the ports that feed it. */
static bool
fail_has_port(const struct fail_rec *fr, struct sim_port *p)
{
	struct sim_port_info pi;
	uint32_t k;

	for (k = 0; k < fr->hit.nports; k++)
		if (fr->hit.ports[k] == p || sim_port_peer(fr->hit.ports[k]) == p)
			return true;
	if (fr->hit.nswitches == 0)
		return false;
	sim_port_info(p, &pi);
	for (k = 0; k < fr->hit.nswitches; k++)
		if ((!pi.peer_is_host && pi.peer_node == fr->hit.switches[k]) ||
		    (!pi.is_host && pi.node == fr->hit.switches[k]))
			return true;
	return false;
}

/* sim drop hook: charge a lost data packet to the latest failure started
 * that owns the port, and to its sending host. ACKs lost there are left
 * out: their path follows the data's EV back from the receiver, and the
 * senders' record is about each data sender's load balancer. Failure
 * drops are few (each costs a sender a timeout or a NACK), so a scan of
 * the failures is fine. */
static void
on_fail_drop(void *ctx, struct sim_port *p, const uint8_t *frame, uint32_t len, bool data,
	     uint64_t now_ns)
{
	struct run *r = ctx;
	uint32_t i, host;

	if (!data || len < UET_ETH_HLEN + 20)
		return;
	host = sim_host_of_ip(r->s, uet_get_be32(frame + UET_ETH_HLEN + 12));
	if (host == UINT32_MAX)
		return;
	for (i = r->nfails; i-- > 0;) {
		struct fail_rec *fr = &r->fails[i];

		if (fr->first_ns == NULL || fr->spec->at_ns > now_ns || !fail_has_port(fr, p))
			continue;
		if (fr->first_ns[host] == 0)
			fr->first_ns[host] = now_ns;
		else if (fr->burst_ns[host] == 0 && now_ns - fr->last_ns[host] > r->burst_gap_ns)
			fr->burst_ns[host] = fr->last_ns[host];
		fr->last_ns[host] = now_ns;
		return;
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The senders a failure cost packets: how many, how long after the
 * failure the last of them lost its first, how long each kept losing
 * packets there, and how long its first burst of losses lasted (median
 * and longest of each). */
static json_t *
senders_json(const struct run *r, const struct fail_rec *fr)
{
	uint64_t *span, *burst, first_max = 0;
	uint32_t i, n = 0;
	json_t *o;

	span = calloc(r->nhosts ? r->nhosts : 1, sizeof(*span));
	burst = calloc(r->nhosts ? r->nhosts : 1, sizeof(*burst));
	if (span == NULL || burst == NULL) {
		free(span);
		free(burst);
		return json_null();
	}
	for (i = 0; i < r->nhosts; i++) {
		if (fr->first_ns[i] == 0)
			continue;
		span[n] = fr->last_ns[i] - fr->first_ns[i];
		burst[n++] = (fr->burst_ns[i] ? fr->burst_ns[i] : fr->last_ns[i]) - fr->first_ns[i];
		if (fr->first_ns[i] - fr->spec->at_ns > first_max)
			first_max = fr->first_ns[i] - fr->spec->at_ns;
	}
	qsort(span, n, sizeof(*span), cmp_u64);
	qsort(burst, n, sizeof(*burst), cmp_u64);
	o = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "n", (json_int_t)n, "first_drop_max_ns",
		      (json_int_t)first_max, "span_p50_ns", (json_int_t)(n ? span[n / 2] : 0),
		      "span_max_ns", (json_int_t)(n ? span[n - 1] : 0), "burst_p50_ns",
		      (json_int_t)(n ? burst[n / 2] : 0), "burst_max_ns",
		      (json_int_t)(n ? burst[n - 1] : 0), "burst_gap_ns",
		      (json_int_t)r->burst_gap_ns);
	free(span);
	free(burst);
	return o;
}


static int
apply_failures(struct run *r, char *err, size_t n)
{
	uint32_t i, from_opts = r->o->n_failures;
	uint64_t conv = (uint64_t)(r->o->converge_us * 1000);
	char why[256];

	r->nfails = from_opts + r->wl->unsupported;
	r->fails = calloc(r->nfails ? r->nfails : 1, sizeof(*r->fails));
	r->cm_fails = calloc(r->wl->unsupported ? r->wl->unsupported : 1, sizeof(*r->cm_fails));
	if (r->fails == NULL || r->cm_fails == NULL)
		return -1;
	for (i = 0; i < r->nfails; i++) {
		struct fail_rec *fr = &r->fails[i];
		const struct sim_failure *f;

		fr->hit.ports_cap = sim_num_ports(r->s);
		fr->hit.switches_cap = sim_num_switches(r->s);
		fr->hit.ports = calloc(fr->hit.ports_cap + 1, sizeof(struct sim_port *));
		fr->hit.switches = calloc(fr->hit.switches_cap + 1, sizeof(uint32_t));
		if (fr->hit.ports == NULL || fr->hit.switches == NULL) {
			snprintf(err, n, "out of memory");
			return -1;
		}
		if (i < from_opts) {
			f = &r->o->failures[i];
			if (sim_failure_apply(r->s, f, conv, r->o->seed * 7919 + i, &fr->hit, why,
					      sizeof(why)) != 0) {
				snprintf(err, n, "option '--failure': %.200s", why);
				return -1;
			}
		} else {
			/* "path:line: failure ...": errors keep the place. */
			const char *text = r->wl->unsupported_text[i - from_opts];
			const char *body = strstr(text, ": failure");

			f = &r->cm_fails[i - from_opts];
			if (body == NULL ||
			    sim_failure_parse_cm(body + 2, &r->cm_fails[i - from_opts], why,
						 sizeof(why)) != 0 ||
			    sim_failure_apply(r->s, f, conv, r->o->seed * 7919 + i, &fr->hit, why,
					      sizeof(why)) != 0) {
				snprintf(err, n, "%.*s: %.200s",
					 body != NULL ? (int)(body - text) : 0, text, why);
				return -1;
			}
		}
		fr->spec = f;
		if (!is_degradation(f)) {
			fr->first_ns = calloc(r->nhosts ? r->nhosts : 1, sizeof(uint64_t));
			fr->last_ns = calloc(r->nhosts ? r->nhosts : 1, sizeof(uint64_t));
			fr->burst_ns = calloc(r->nhosts ? r->nhosts : 1, sizeof(uint64_t));
			if (fr->first_ns == NULL || fr->last_ns == NULL || fr->burst_ns == NULL) {
				snprintf(err, n, "out of memory");
				return -1;
			}
		}
	}
	if (r->nfails > 0)
		sim_set_drop_hook(r->s, on_fail_drop, r);
	return 0;
}

/* --- measurement --- */

/* Events between two looks at progress and the stop flag inside a bin:
 * tens of milliseconds of wall time at the simulator's pace. */
#define POLL_EVENTS 65536

static uet_simrun_progress_fn progress_fn;
static void *progress_ctx;

void
uet_simrun_set_progress(uet_simrun_progress_fn fn, void *ctx)
{
	progress_fn = fn;
	progress_ctx = ctx;
}

static void
report_progress(struct run *r)
{
	struct uet_simrun_progress pr;

	if (progress_fn == NULL)
		return;
	memset(&pr, 0, sizeof(pr));
	pr.sim_ns = sim_now_ns(r->s);
	pr.events = sim_events_run(r->s);
	pr.rx_bytes = uet_drv_stats(r->drv)->rx_bytes;
	pr.flows = r->wl->nflows;
	pr.meas = r->meas;
	progress_fn(progress_ctx, &pr);
}

static void
sample(struct run *r)
{
	struct uet_ep_stats sum;
	uint64_t now = sim_now_ns(r->s);
	/* What was sent up to now, into the bin that ends at now when it is
	 * a boundary (an event due there, the run's end): the bin after it
	 * saw none of it, and past the run's end no interval shows it. */
	uint64_t sent_ns = now > 0 ? now - 1 : 0;
	uint32_t h;

	memset(&sum, 0, sizeof(sum));
	for (h = 0; h < r->nhosts; h++)
		uet_meas_add_ep_stats(&sum, uet_ep_stats(sim_host_ep(r->s, h)));
	if (sum.tx_data_bytes > r->last_tx_bytes)
		(void)uet_meas_tx_bytes(r->meas, sent_ns, sum.tx_data_bytes - r->last_tx_bytes);
	r->last_tx_bytes = sum.tx_data_bytes;
	(void)uet_meas_set_ep_stats(r->meas, sent_ns, &sum);
	if (r->out != NULL) {
		size_t k = uet_meas_interval_count(r->meas, now, false);

		for (; r->intervals_done < k; r->intervals_done++) {
			struct uet_meas_interval iv;

			uet_meas_interval_get(r->meas, r->intervals_done, now, &iv);
			uet_out_interval(r->out, &iv);
		}
	}
}

/* What the fabric did so far, for the report's losses. */
static void
fabric_net(struct run *r)
{
	struct sim_port_stats t;
	struct uet_meas_net net;

	sim_total_stats(r->s, &t);
	/* drops_noroute are among the switch drops (sim.h). */
	net.drops = t.drops_queue + t.drops_fault + t.drops_down + t.drops_ber +
		    sim_switch_drops(r->s);
	net.trims = t.trims;
	net.ecn_marks = t.ecn_marks;
	uet_meas_set_net(r->meas, &net);
}

/* The end of the warm-up (--omit): the counters as they stand are the
 * zero of what the report counts; at the mark, or at the end of a run
 * that stopped sooner (nothing was measured then). */
static void
omit_end(struct run *r)
{
	if (r->omit_ns == 0 || r->omit_ended)
		return;
	sample(r);
	fabric_net(r);
	uet_meas_omit_end(r->meas);
	r->omit_ended = true;
}

/* What the fabric did, for the report's losses; the failures as timeline
 * events (when they struck, and came back), and those timed after the end
 * of the run, which never struck (a time unit mistaken, most likely: a
 * bare number is seconds). */
static void
fabric_to_meas(struct run *r, struct uet_simrun_result *res)
{
	uint32_t i;

	fabric_net(r);
	omit_end(r);
	for (i = 0; i < r->nfails; i++) {
		const struct sim_failure *f = r->fails[i].spec;

		if (f->at_ns > r->end_ns) {
			if (res->late_failures++ == 0)
				snprintf(res->note, sizeof(res->note),
					 "failure '%.64s' is timed after the run ended (%.3f us)",
					 f->text, (double)r->end_ns / 1e3);
			continue;
		}
		(void)uet_meas_event(r->meas, f->at_ns, "failure", f->text);
		if (f->for_ns != 0 && f->at_ns + f->for_ns <= r->end_ns)
			(void)uet_meas_event(r->meas, f->at_ns + f->for_ns, "restored", f->text);
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

/* What each failure did: the packets its links or switches dropped, and
 * for a degradation what crossed the degraded directions. */
static json_t *
failures_json(struct run *r)
{
	json_t *a = json_array();
	uint32_t i, k;

	for (i = 0; i < r->nfails; i++) {
		const struct fail_rec *fr = &r->fails[i];
		bool deg = is_degradation(fr->spec);
		uint64_t down = 0, last = 0, tx = 0, marks = 0, trims = 0, qdrops = 0;
		json_t *o;

		for (k = 0; k < fr->hit.nports; k++) {
			struct sim_port *p[2] = { fr->hit.ports[k], sim_port_peer(fr->hit.ports[k]) };
			int d;

			for (d = 0; d < (deg ? 1 : 2); d++) {
				const struct sim_port_stats *st = sim_port_stats(p[d]);

				down += st->drops_down;
				tx += st->tx_pkts;
				marks += st->ecn_marks;
				trims += st->trims;
				qdrops += st->drops_queue;
				if (st->last_drop_ns > last)
					last = st->last_drop_ns;
			}
		}
		for (k = 0; k < fr->hit.nswitches; k++) {
			uint32_t j;

			for (j = 0; j < sim_switch_num_ports(r->s, fr->hit.switches[k]); j++) {
				struct sim_port *p = sim_switch_port(r->s, fr->hit.switches[k], j);
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
		o = json_pack("{s:s,s:I,s:I,s:I,s:I,s:o}", "spec", fr->spec->text, "at_ns",
			      (json_int_t)fr->spec->at_ns, deg ? "ports" : "links",
			      (json_int_t)fr->hit.nports, "switches", (json_int_t)fr->hit.nswitches,
			      "drops_down", (json_int_t)down, "last_drop_ns",
			      last ? json_integer((json_int_t)last) : json_null());
		if (fr->first_ns != NULL)
			json_object_set_new(o, "senders", senders_json(r, fr));
		if (deg)
			json_object_update_new(o, json_pack("{s:I,s:I,s:I,s:I}", "tx_pkts",
							    (json_int_t)tx, "ecn_marks",
							    (json_int_t)marks, "trims", (json_int_t)trims,
							    "drops_queue", (json_int_t)qdrops));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
test_start(const struct uet_perf_opts *o, const struct sim_fattree_cfg *fc,
	   const struct sim_fattree_shape *sh, const struct uet_ep_config *ep, bool repeat,
	   uint64_t size_bytes)
{
	json_t *ts = json_object(), *fails = json_array();
	char buf[UET_PERF_SET_MAX * 24];
	uint32_t i;

	for (i = 0; i < o->n_failures; i++)
		json_array_append_new(fails, json_string(o->failures[i].text));
	json_object_set_new(ts, "pattern", json_string(o->pattern));
	{
		/* What reruns it: uet-sim --config FILE with this text. */
		char *cfg = uet_perf_opts_effective_text(o);

		if (cfg != NULL)
			json_object_set_new(ts, "config", json_string(cfg));
		free(cfg);
	}
	json_object_set_new(ts, "hosts", json_integer(sh->hosts));
	json_object_set_new(ts, "size_bytes", json_integer((json_int_t)size_bytes));
	json_object_set_new(ts, "streams", json_integer(o->streams));
	json_object_set_new(ts, "iterations", json_integer(repeat ? 0 : (json_int_t)o->iters));
	json_object_set_new(ts, "duration_ns",
			    json_integer((json_int_t)(repeat ? o->duration_s * 1e9 : 0)));
	json_object_set_new(ts, "omit_ns", json_integer((json_int_t)(o->omit_s * 1e9 + 0.5)));
	json_object_set_new(ts, "parallel", json_integer(o->parallel));
	json_object_set_new(ts, "rate_bps", json_integer((json_int_t)(o->rate_gbps * 1e9 + 0.5)));
	json_object_set_new(ts, "seed", json_integer((json_int_t)o->seed));
	json_object_set_new(ts, "lb", json_string(o->lb));
	json_object_set_new(ts, "ecmp_every", json_integer(o->ecmp_every));
	uet_perf_set_str(&o->ecmp_hosts, buf, sizeof(buf));
	json_object_set_new(ts, "ecmp_hosts", json_string(buf));
	json_object_set_new(ts, "cc", json_string(o->cc));
	json_object_set_new(ts, "mtu_bytes", json_integer(o->mtu_bytes));
	json_object_set_new(ts, "ack_every_bytes", json_integer(o->ack_every_bytes));
	json_object_set_new(ts, "base_rtt_ns", json_integer((json_int_t)ep->base_rtt_ns));
	json_object_set_new(ts, "loss_detect", json_string(o->loss_detect));
	json_object_set_new(ts, "rto_min_ns", json_integer((json_int_t)ep->rto_min_ns));
	json_object_set_new(ts, "rto_ns", json_integer((json_int_t)ep->rto_ns));
	json_object_set_new(ts, "reorder_seed_ns", json_integer((json_int_t)ep->reorder_seed_ns));
	json_object_set_new(ts, "link_bps", json_integer((json_int_t)ep->link_bps));
	json_object_set_new(ts, "verify", json_boolean(o->verify));
	json_object_set_new(ts, "fabric", json_pack(
		"{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:b,s:b,s:b}",
		"tiers", (int)sh->tiers, "oversub", (int)fc->oversub,
		"hosts_per_tor", (int)sh->hosts_per_tor, "tor_uplinks", (int)sh->tor_uplinks,
		"tors", (int)sh->tors, "pods", (int)sh->pods, "t1_switches", (int)sh->t1_switches,
		"t2_switches", (int)sh->t2_switches,
		"fabric_bps", (json_int_t)fc->fabric_link.rate_bps,
		"link_latency_ns", (json_int_t)fc->host_link.lat_ns,
		"switch_latency_ns", (json_int_t)fc->switch_lat_ns,
		"buffer_bytes", (json_int_t)fc->fabric_link.buf_bytes,
		"ecn_kmin_bytes", (json_int_t)fc->fabric_link.ecn_kmin_bytes,
		"ecn_kmax_bytes", (json_int_t)fc->fabric_link.ecn_kmax_bytes,
		"trim", fc->fabric_link.trim, "adaptive_routing", strcmp(o->lb, "ar") == 0,
		"ar_tie_first", strcmp(o->lb, "ar") == 0 && o->ar_tie_first,
		"shuffle_ties", o->shuffle_ties));
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
		free(r->fails[i].hit.ports);
		free(r->fails[i].hit.switches);
		free(r->fails[i].first_ns);
		free(r->fails[i].last_ns);
		free(r->fails[i].burst_ns);
	}
	free(r->fails);
	free(r->cm_fails);
	for (i = 0; i < r->ncaps; i++)
		uet_pcap_close(r->caps[i].pc);
	free(r->caps);
	sim_series_free(r->series);
	uet_drv_destroy(r->drv);
	sim_destroy(r->s);
	free(r->h);
}

/* --port-series from t = 0. */
static int
start_series(struct run *r, char *err, size_t n)
{
	struct sim_series_sel *sel;
	char why[256];

	if (r->o->port_series[0] == '\0')
		return 0;
	sel = malloc(sizeof(*sel));
	if (sel == NULL) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	if (sim_series_parse(r->o->port_series, sel, why, sizeof(why)) == 0)
		r->series = sim_series_start(r->s, sel, (uint64_t)(r->o->series_us * 1000 + 0.5),
					     why, sizeof(why));
	free(sel);
	if (r->series == NULL) {
		snprintf(err, n, "option '--port-series': %.200s", why);
		return -1;
	}
	return 0;
}

/* end.fabric.series: per port, arrays over the samples. */
static json_t *
series_json(const struct sim_series *ser)
{
	json_t *ports = json_array();
	uint32_t k, i, ns = sim_series_samples(ser);
	double ival_s = (double)sim_series_interval_ns(ser) * 1e-9;

	for (k = 0; k < sim_series_ports(ser); k++) {
		json_t *util = json_array(), *q = json_array(), *qmax = json_array();
		double rate = (double)sim_series_rate_bps(ser, k);

		for (i = 0; i < ns; i++) {
			const struct sim_series_sample *v = sim_series_get(ser, i, k);

			json_array_append_new(util, json_real(v->tx_bytes * 8.0 / (rate * ival_s)));
			json_array_append_new(q, json_integer(v->queue_bytes));
			json_array_append_new(qmax, json_integer(v->queue_max_bytes));
		}
		json_array_append_new(ports, json_pack("{s:s,s:I,s:o,s:o,s:o}", "port",
						       sim_series_name(ser, k), "rate_bps",
						       (json_int_t)sim_series_rate_bps(ser, k),
						       "util", util, "queue_bytes", q,
						       "queue_max_bytes", qmax));
	}
	return json_pack("{s:I,s:I,s:i,s:b,s:o}", "start_ns",
			 (json_int_t)sim_series_start_ns(ser), "interval_ns",
			 (json_int_t)sim_series_interval_ns(ser), "samples", (int)ns, "truncated",
			 sim_series_truncated(ser), "ports", ports);
}

/* PREFIX-ports.csv (PREFIX-SIZE-ports.csv in a size sweep), one row per
 * port and sample: t_us is the end of the sample's interval. */
static int
series_csv(const struct run *r, uint64_t size_bytes, char *err, size_t n)
{
	const struct sim_series *ser = r->series;
	const struct uet_perf_opts *o = r->o;
	double ival_s = (double)sim_series_interval_ns(ser) * 1e-9;
	char path[UET_PERF_PATH_MAX + 32];
	uint32_t i, k;
	FILE *f;
	int bad;

	if (o->min_bytes != o->max_bytes)
		snprintf(path, sizeof(path), "%s-%" PRIu64 "-ports.csv", o->csv, size_bytes);
	else
		snprintf(path, sizeof(path), "%s-ports.csv", o->csv);
	f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, n, "cannot write %.160s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "t_us,port,util,queue_bytes,queue_max_bytes\n");
	for (i = 0; i < sim_series_samples(ser); i++)
		for (k = 0; k < sim_series_ports(ser); k++) {
			const struct sim_series_sample *v = sim_series_get(ser, i, k);

			fprintf(f, "%.3f,%s,%.4f,%u,%u\n",
				(double)(sim_series_start_ns(ser) +
					 (i + 1) * sim_series_interval_ns(ser)) / 1e3,
				sim_series_name(ser, k),
				v->tx_bytes * 8.0 / ((double)sim_series_rate_bps(ser, k) * ival_s),
				v->queue_bytes, v->queue_max_bytes);
		}
	bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		snprintf(err, n, "cannot write %.200s", path);
		return -1;
	}
	return 0;
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
	/* The RTO floor is what the fabric can delay a packet it neither
	 * drops nor trims: full queues on the whole path, the ACK's
	 * coalescing delay, the RTT itself. Below it a healthy, loaded fabric
	 * fires timers (htsim's rule is alike: 15 us + 6 queue drains). */
	if (t->rto_min_ns == 0)
		t->rto_min_ns = t->base_rtt_ns + (sim_fattree_queue_ps(fc) + 999) / 1000 +
				t->ack_delay_ns;
	/* Loss detection across paths waits out what the fabric's queues can
	 * delay one path against another: below it a loss-free fabric's
	 * reordering is taken for loss. Where one path leads between ToRs
	 * nothing reorders, and RFC 8985's quarter RTT is enough. */
	if (t->reorder_seed_ns == 0) {
		t->reorder_seed_ns = (sim_fattree_reorder_ps(fc, sh) + 999) / 1000;
		if (t->reorder_seed_ns == 0)
			t->reorder_seed_ns = t->base_rtt_ns / 4 ? t->base_rtt_ns / 4 : 1;
		/* Huge buffers on slow links: the option's own bound. */
		if (t->reorder_seed_ns > 1000000000)
			t->reorder_seed_ns = 1000000000;
	}
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
	/* --lb ar: OPS at the hosts, the choice in the switches. */
	sc.adaptive_routing = strcmp(o->lb, "ar") == 0;
	sc.ar_tie_first = o->ar_tie_first;
	sc.shuffle_ties = o->shuffle_ties;
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
	dc.rate_bps = spec.rate_bps;
	dc.verify = o->verify;
	dc.send = drv_send;
	dc.ctx = &r;
	if (check_hosts(&r, &o->ecmp_hosts, "ecmp-hosts", err, n) != 0) {
		rc = UET_SIMRUN_EBAD;
		goto out;
	}
	if (uet_drv_create(&dc, &r.drv) != 0 ||
	    attach_hosts(&r, &ep, &res->ep_mem_bytes, err, n) != 0)
		goto out;
	if (o->verify)
		sim_set_fill(r.s, uet_drv_fill, NULL);
	/* The senders' RTO: what a burst of failure losses is measured by. */
	r.burst_gap_ns = ep.rto_ns ? ep.rto_ns : ep.rto_min_ns;
	if (apply_failures(&r, err, n) != 0 || start_series(&r, err, n) != 0 ||
	    open_captures(&r, err, n) != 0) {
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
	mc.uet_strict = ep.strict;
	mc.ev_count = ep.ev_count;
	mc.start_ns = 0;
	uet_perf_opts_times_ns(o, &mc.bin_ns, &mc.interval_ns, &mc.omit_ns);
	mc.repeat = r.repeat;
	r.omit_ns = mc.omit_ns;
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
		sim_at(r.s, ps(r.omit_ns + r.duration_ns), duration_end, &r, 0);
	after_event(&r);
	/* Run bin by bin: each boundary samples the counters into the
	 * timeline (and the interval lines); the boundaries are fixed times,
	 * so the run replays exactly. */
	step_ns = mc.bin_ns;
	for (t = step_ns; !r.done; t += step_ns) {
		bool drained;

		/* A bin of a large fabric can take many seconds of wall time:
		 * progress and a stop are looked at every POLL_EVENTS events
		 * within it as well (the events run as they would at once). */
		while (!sim_run_drain_max(r.s, ps(t), POLL_EVENTS)) {
			report_progress(&r);
			if (stop != NULL && *stop)
				break;
		}
		drained = sim_events_pending(r.s) == 0;

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
		if (r.omit_ns > 0 && t >= r.omit_ns)
			omit_end(&r);
		report_progress(&r);
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
	fabric_to_meas(&r, res);
	res->events = sim_events_run(r.s);
	res->sim_mem_bytes = sim_mem_bytes(r.s);
	res->fabric = json_pack("{s:I,s:I,s:I,s:I,s:o,s:o}", "events", (json_int_t)res->events,
				"sim_ns", (json_int_t)sim_now_ns(r.s),
				"sim_mem_bytes", (json_int_t)res->sim_mem_bytes,
				"ep_mem_bytes", (json_int_t)res->ep_mem_bytes,
				"ports", port_totals(r.s), "failures", failures_json(&r));
	if (r.ncaps > 0)
		json_object_set_new(res->fabric, "captures", captures_json(&r));
	if (r.series != NULL) {
		json_object_set_new(res->fabric, "series", series_json(r.series));
		if (o->csv[0] != '\0' && err[0] == '\0')
			(void)series_csv(&r, size_bytes, err, n);
	}
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
