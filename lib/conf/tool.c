/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Options to what the programs run: an endpoint configuration, and the
 * ranks of a hosts run (--rank, the launcher's environment).
 */
#include "conf/conf_int.h"

/* ------------------------------------------------------------------ */
/* Mapping to the measurement                                          */

void
uet_perf_opts_times_ns(const struct uet_perf_opts *o, uint64_t *bin_ns, uint64_t *interval_ns,
		       uint64_t *omit_ns)
{
	*bin_ns = (uint64_t)o->bin_us * 1000;
	/* Both are >= 0 (the table's bounds). */
	*interval_ns = (uint64_t)(o->interval_s * 1e9 + 0.5);
	if (*bin_ns > 0)
		*interval_ns -= *interval_ns % *bin_ns; /* whole bins */
	*omit_ns = (uint64_t)(o->omit_s * 1e9 + 0.5);
}

/* ------------------------------------------------------------------ */
/* Mapping to the endpoint                                             */

int
uet_perf_opts_to_ep_config(const struct uet_perf_opts *o, struct uet_ep_config *c,
			   struct uet_perf_algo_cfg *a, char *err, size_t errlen)
{
	const char *why = NULL;

	uet_ep_config_default(c);
	memset(a, 0, sizeof(*a));
	c->lb = uet_lb_find(o->lb);
	c->cc = uet_cc_find(o->cc);
	if (c->lb == NULL)
		return fail(err, errlen, "option '--lb': unknown load balancer '%s'",
			    SHOWN(o->lb));
	if (c->cc == NULL)
		return fail(err, errlen, "option '--cc': unknown congestion controller "
			    "'%s'", SHOWN(o->cc));
	c->seed = o->seed;
	c->mss_bytes = o->mtu_bytes;
	c->ev_base = o->ev_base;
	c->ev_count = o->ev_count;
	c->ack_every_bytes = o->ack_every_bytes;
	c->ack_delay_ns = o->ack_delay_ns;
	c->ack_carry_evs = o->ack_carry_evs;
	c->strict = o->uet_strict;
	c->psn_near_wrap = o->psn_near_wrap;
	c->ack_sack_repeat = o->sack_repeat;
	c->ack_req_every_fill = o->ar_every_fill;
	c->pdc_idle_close_ns = o->pdc_idle_close_ns;
	c->pdc_target_idle_ns = o->pdc_target_idle_ns;
	c->rto_ns = o->rto_ns;
	c->rto_min_ns = o->rto_min_ns;
	if (o->rto_max_ns != 0)
		c->rto_max_ns = o->rto_max_ns;
	c->rto_no_backoff = !o->rto_backoff;
	if (o->max_rto_retx != 0)
		c->max_rto_retx = o->max_rto_retx;
	for (int i = 0; uet_perf_loss_detect[i] != NULL; i++)
		if (strcmp(o->loss_detect, uet_perf_loss_detect[i]) == 0)
			c->loss_detect = (uint8_t)i;
	c->reorder_window_ns = o->reorder_window_ns;
	c->reorder_seed_ns = o->reorder_seed_ns;
	c->ooo_min_pkts = o->ooo_min_pkts;
	c->probe_rtts = o->probe_rtts;
	c->base_rtt_ns = o->base_rtt_ns;
	c->link_bps = (uint64_t)(o->link_gbps * 1e9 + 0.5);
	c->window_psns = o->window_psns;

	a->ops.permute = o->ops_permute;
	a->reps.no_freezing = o->reps_no_freeze;
	a->reps.freeze_ns = o->reps_freeze_ns;
	a->reps.reuse = o->reps_reuse;
	a->reps.idle_ns = o->reps_idle_ns;
	a->reps.explore = o->reps_explore_reset ? UET_REPS_EXPLORE_RESET : UET_REPS_EXPLORE_PAPER;
	a->reps.force_freeze_at_ns = o->reps_force_freeze_ns;
	a->flowlet.gap_ns = o->flowlet_gap_ns;
	a->flowlet.ack_clock = o->flowlet_ack_clock;
	a->mptcp.subflows = o->mptcp_subflows;
	a->plb.ce_pct = o->plb_ce_pct;
	a->plb.rounds = o->plb_rounds;
	a->nscc.target_qdelay_ns = o->nscc_target_ns;
	a->nscc.fixed_max_cwnd = !o->nscc_min_rtt_cap;
	/* A trimming fabric (uet-sim --trim) gets NSCC's lower delay target,
	 * 0.75 x base RTT, as in the reference (uet-htsim.md §5.1). */
	a->nscc.trimming = o->trim;
	a->dctcp.g_shift = o->dctcp_g_shift;
	a->dctcp.fast_increase_at_ns = o->mprdma_fast_increase_ns;
	a->eqds.spec_bytes = o->eqds_spec_bytes;
	a->eqds.no_slow_pulls = !o->eqds_slow_pulls;

	c->lb_cfg = c->lb == &uet_lb_ops_spray || c->lb == &uet_lb_ar ? (const void *)&a->ops
		  : c->lb == &uet_lb_reps      ? (const void *)&a->reps
		  : c->lb == &uet_lb_flowlet   ? (const void *)&a->flowlet
		  : c->lb == &uet_lb_plb       ? (const void *)&a->plb
		  : c->lb == &uet_lb_mptcp     ? (const void *)&a->mptcp
					       : NULL;
	c->cc_cfg = c->cc == &uet_cc_nscc    ? (const void *)&a->nscc
		  : c->cc == &uet_cc_dctcp || c->cc == &uet_cc_dctcp_mprdma
			  ? (const void *)&a->dctcp
		  : c->cc == &uet_cc_eqds ? (const void *)&a->eqds
					     : NULL;
	if (uet_ep_config_check(c, &why) < 0)
		return fail(err, errlen, "transport options: %s", why);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ranks                                                               */

int
uet_perf_rank_from_env(char *(*getenv_fn)(const char *name), uint32_t *rank,
		       char *err, size_t errlen)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK",
					    "PMIX_RANK", "SLURM_PROCID" };
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv_fn(vars[i]);
		uint64_t r;

		if (v == NULL)
			continue;
		if (conf_parse_dec(v, UET_PERF_MAX_HOSTS - 1, &r) < 0)
			return fail(err, errlen, "environment variable %s='%s': not a rank "
				    "(0..%d)", vars[i], SHOWN(v), UET_PERF_MAX_HOSTS - 1);
		*rank = (uint32_t)r;
		return 1;
	}
	return 0;
}

/* The first of vars set: 1 (*v set), 0 (none) or UET_CONF_EBAD. */
static int
env_count(char *(*getenv_fn)(const char *name), const char *const *vars, uint32_t lo,
	  uint32_t hi, uint32_t *v, char *err, size_t errlen)
{
	for (; *vars != NULL; vars++) {
		const char *s = getenv_fn(*vars);
		uint64_t x;

		if (s == NULL)
			continue;
		if (conf_parse_dec(s, hi, &x) < 0 || x < lo)
			return fail(err, errlen, "environment variable %s='%s': not a count "
				    "(%u..%u)", *vars, SHOWN(s), lo, hi);
		*v = (uint32_t)x;
		return 1;
	}
	return 0;
}

int
uet_perf_expand_ranks(const char *s, uint32_t rank, uint32_t local_rank, char *out, size_t n)
{
	size_t len = 0;

	for (; *s != '\0'; s++) {
		if (s[0] == '%' && (s[1] == 'l' || s[1] == 'r')) {
			uint32_t v = s[1] == 'l' ? local_rank : rank;
			int k;

			if (v == UINT32_MAX)
				return UET_CONF_EBAD;
			k = snprintf(out + len, n - len, "%u", v);
			if (k < 0 || (size_t)k >= n - len)
				return UET_CONF_ETOOLONG;
			len += (size_t)k;
			s++;
			continue;
		}
		if (len + 1 >= n)
			return UET_CONF_ETOOLONG;
		out[len++] = *s;
	}
	if (len >= n)
		return UET_CONF_ETOOLONG;
	out[len] = '\0';
	return 0;
}

int
uet_perf_launcher_from_env(char *(*getenv_fn)(const char *name), struct uet_perf_launcher *l,
			   char *err, size_t errlen)
{
	static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK",
						 "PMIX_RANK", "SLURM_PROCID", NULL };
	static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
						 "SLURM_NTASKS", NULL };
	static const char *const lrank_vars[] = { "OMPI_COMM_WORLD_LOCAL_RANK",
						  "MPI_LOCALRANKID", "PMI_LOCAL_RANK",
						  "SLURM_LOCALID", NULL };
	static const char *const lsize_vars[] = { "OMPI_COMM_WORLD_LOCAL_SIZE",
						  "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE", NULL };
	int rc;
	size_t i;

	memset(l, 0, sizeof(*l));
	l->local_rank = UINT32_MAX;
	rc = uet_perf_rank_from_env(getenv_fn, &l->rank, err, errlen);
	if (rc <= 0)
		return rc;
	l->present = true;
	for (i = 0; rank_vars[i] != NULL && getenv_fn(rank_vars[i]) == NULL; i++)
		;
	l->rank_var = rank_vars[i];
	if (env_count(getenv_fn, size_vars, 1, UET_PERF_MAX_HOSTS, &l->size, err, errlen) < 0 ||
	    env_count(getenv_fn, lrank_vars, 0, UET_PERF_MAX_HOSTS - 1, &l->local_rank, err,
		      errlen) < 0 ||
	    env_count(getenv_fn, lsize_vars, 1, UET_PERF_MAX_HOSTS, &l->local_size, err,
		      errlen) < 0)
		return UET_CONF_EBAD;
	if (l->size != 0 && l->rank >= l->size)
		return fail(err, errlen, "environment variable %s=%u, but the launcher started %u "
			    "processes", l->rank_var, l->rank, l->size);
	return 1;
}

int
uet_perf_opts_resolve_rank(struct uet_perf_opts *o, char *(*getenv_fn)(const char *name),
			   char *err, size_t errlen)
{
	int rc;

	if (o->mode != UET_PERF_MODE_HOSTS || o->rank != UET_PERF_RANK_UNSET ||
	    o->local.n > 0)
		return 0;
	rc = uet_perf_launcher_from_env(getenv_fn, &o->launcher, err, errlen);
	if (rc == 1)
		o->rank = o->launcher.rank;
	if (rc == 0)
		return fail(err, errlen, "option '--rank': no rank: give --rank N or "
			    "--local LIST, or start under mpirun/srun "
			    "(OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID)");
	return rc < 0 ? rc : 0;
}

int
uet_perf_opts_check_hosts(const struct uet_perf_opts *o, const struct uet_perf_hosts *h,
			  char *err, size_t errlen)
{
	uint32_t k;

	if (o->rank != UET_PERF_RANK_UNSET && o->rank >= h->n)
		return fail(err, errlen, "%s: rank %u, but the hosts list has ranks "
			    "0..%u", WHERE(conf_row("rank")), o->rank, h->n - 1);
	for (k = 0; k < o->local.n; k++)
		if (o->local.r[k].hi >= h->n)
			return fail(err, errlen, "%s: rank %u, but the hosts list has "
				    "ranks 0..%u", WHERE(conf_row("local")), o->local.r[k].hi,
				    h->n - 1);
	if (o->root >= h->n)
		return fail(err, errlen, "%s: root %u, but the hosts list has ranks "
			    "0..%u", WHERE(conf_row("root")), o->root, h->n - 1);
	if (o->fanin >= h->n)
		return fail(err, errlen, "%s: fan-in %u needs more than %u ranks",
			    WHERE(conf_row("fanin")), o->fanin, h->n);
	return 0;
}
