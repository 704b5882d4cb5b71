/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Setting an option from a source (default, profile, INI, command line),
 * naming where it was set in messages, and the checks across options once
 * all sources are read.
 */
#include "conf/conf_int.h"

/* ------------------------------------------------------------------ */
/* Setting one option                                                  */

static void
set_default(struct uet_perf_opts *o, int i)
{
	const struct opt *p = &opt_table[i];
	void *f = conf_field(o, p);

	switch (p->type) {
	case T_BOOL:
		*(bool *)f = conf_app == UET_CONF_APP_SIM && p->has_simdef ? p->simdef != 0
									   : p->def != 0;
		break;
	case T_COUNT:
	case T_UINT:
	case T_BYTES:
		assert(p->size == 8 || p->max < (1ULL << (8 * p->size)));
		conf_put_uint(f, p->size, conf_app == UET_CONF_APP_SIM && p->has_simdef ? p->simdef
										   : p->def);
		break;
	case T_DOUBLE:
		*(double *)f = conf_app == UET_CONF_APP_SIM && p->has_simdef ? p->dsimdef : p->ddef;
		break;
	case T_STR:
	case T_PATH_IN:
	case T_NAME:
	case T_CONFIG:
		snprintf(f, p->size, "%s", p->sdef != NULL ? p->sdef : "");
		break;
	case T_SET:
		memset(f, 0, p->size);
		break;
	case T_ENDPOINT:
	case T_NEIGHBOR:
	case T_FAIL_EV:
	case T_EXEC:
	case T_FAILURE:
		*conf_count_of(o, p) = 0;
		memset(f, 0, p->size * p->cap);
		break;
	default:
		break;
	}
	o->src[i] = UET_CONF_SRC_DEFAULT;
	o->src_line[i] = 0;
}

void
uet_perf_opts_default(struct uet_perf_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < N_OPTS; i++)
		set_default(o, i);
}

/* Prefix base_dir to a relative path read from a file. */
static int
resolve_path(const char *v, const char *base_dir, char *out, size_t n, char *err,
	     size_t errlen)
{
	int len;

	if (base_dir == NULL || base_dir[0] == '\0' || v[0] == '/')
		len = snprintf(out, n, "%s", v);
	else
		len = snprintf(out, n, "%s/%s", base_dir, v);
	if (len < 0 || (size_t)len >= n)
		return fail(err, errlen, "path longer than %zu bytes", n - 1);
	return 0;
}

static int
parse_string(const struct opt *p, const char *v, const char *base_dir, void *f,
	     char *err, size_t n)
{
	const char *c;

	if (*v == '\0')
		return fail(err, n, "missing value");
	for (c = v; *c != '\0'; c++)
		if (iscntrl((unsigned char)*c))
			return fail(err, n, "'%s' contains a control character", SHOWN(v));
	if (p->type == T_NAME && conf_check_name(p->names, v, err, n) < 0)
		return UET_CONF_EBAD;
	if (p->type == T_PATH_IN)
		return resolve_path(v, base_dir, f, p->size, err, n);
	if (strlen(v) >= p->size)
		return fail(err, n, "longer than %zu bytes", p->size - 1);
	if (p->type == T_STR && p->meta != NULL && strcmp(p->meta, "HOST") == 0 &&
	    strpbrk(v, " \t") != NULL)
		return fail(err, n, "'%s' is not a host name or address", SHOWN(v));
	snprintf(f, p->size, "%s", v);
	return 0;
}

/* Append one element of a repeatable option. */
static int
parse_item(const struct opt *p, const char *v, void *elem, char *err, size_t n)
{
	switch (p->type) {
	case T_ENDPOINT:
		return uet_perf_parse_endpoint(v, false, elem, err, n);
	case T_NEIGHBOR:
		return uet_perf_parse_neighbor(v, elem, err, n);
	case T_FAIL_EV:
		return uet_perf_parse_fail_ev(v, elem, err, n);
	case T_FAILURE:
		return uet_conf_parse_failure(v, elem, err, n);
	default:
		return uet_perf_parse_exec(v, elem, err, n);
	}
}

/*
 * Parse v (NULL: a flag without a value on the command line) into option
 * i from source src. err gets what is wrong, without naming the option.
 */
int
conf_apply(struct uet_perf_opts *o, int i, const char *v, int src, uint32_t line,
      const char *base_dir, char *err, size_t n)
{
	const struct opt *p = &opt_table[i];
	void *f = conf_field(o, p);
	uint64_t u;
	double d = 0;
	bool b = false;

	switch (p->type) {
	case T_BOOL:
		if (v == NULL)
			b = true;
		else if (conf_parse_bool(v, &b, err, n) < 0)
			return UET_CONF_EBAD;
		*(bool *)f = b;
		break;
	case T_COUNT:
		if (v == NULL) {
			u = (o->src[i] == src ? conf_get_uint(f, p->size) : 0) + 1;
			if (u > p->max)
				return fail(err, n, "given more than %llu times",
					    (unsigned long long)p->max);
			conf_put_uint(f, p->size, u);
			break;
		}
		/* fall through */
	case T_UINT:
	case T_BYTES:
		if (conf_parse_uint(v, p->type == T_BYTES, &u, err, n) < 0)
			return UET_CONF_EBAD;
		if ((u < p->min || u > p->max) && !(u == 0 && (p->flags & F_AUTO0)))
			return fail(err, n, "%llu is out of range %llu..%llu%s",
				    (unsigned long long)u, (unsigned long long)p->min,
				    (unsigned long long)p->max,
				    p->flags & F_AUTO0 ? " (or 0, automatic)" : "");
		if ((p->flags & F_POW2) && (u & (u - 1)) != 0)
			return fail(err, n, "%llu is not a power of two",
				    (unsigned long long)u);
		conf_put_uint(f, p->size, u);
		break;
	case T_DOUBLE:
		if (p->meta != NULL && strcmp(p->meta, "SEC") == 0 && *v != '\0' &&
		    isalpha((unsigned char)v[strlen(v) - 1])) {
			/* A time with its unit (100us, 2ms), as --fail-ev-at takes. */
			uint64_t ns;

			if (uet_text_parse_time_ns(v, &ns, err, n) < 0)
				return UET_CONF_EBAD;
			d = (double)ns / 1e9;
		} else if (uet_text_parse_double(v, &d, err, n) < 0) {
			return UET_CONF_EBAD;
		}
		if (d < p->dmin || d > p->dmax)
			return fail(err, n, "%g is out of range %g..%g", d, p->dmin, p->dmax);
		*(double *)f = d;
		break;
	case T_STR:
	case T_PATH_IN:
	case T_NAME:
	case T_CONFIG:
		if (parse_string(p, v, base_dir, f, err, n) < 0)
			return UET_CONF_EBAD;
		break;
	case T_SET:
		if (uet_perf_parse_set(v, (uint32_t)p->min, (uint32_t)p->max, f, err, n) < 0)
			return UET_CONF_EBAD;
		break;
	case T_ENDPOINT:
	case T_NEIGHBOR:
	case T_FAIL_EV:
	case T_EXEC:
	case T_FAILURE: {
		uint32_t *cnt = conf_count_of(o, p);

		/* A new source replaces the list of a weaker one. */
		if (o->src[i] != src)
			*cnt = 0;
		if (*cnt == p->cap)
			return fail(err, n, "more than %u given", p->cap);
		if (parse_item(p, v, (char *)f + *cnt * p->size, err, n) < 0)
			return UET_CONF_EBAD;
		(*cnt)++;
		break;
	}
	default:
		return fail(err, n, "not an option of this kind of source");
	}
	o->src[i] = (uint8_t)src;
	o->src_line[i] = line;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Naming an option in a message by where it was set                   */

const char *
conf_where(const struct uet_perf_opts *o, int i, char *buf, size_t n)
{
	const struct opt *p = &opt_table[i];

	if (o->src[i] == UET_CONF_SRC_INI)
		snprintf(buf, n, "%s:%u: key '%s.%s'", o->src_file, o->src_line[i], p->sec,
			 p->key);
	else if (o->src[i] == UET_CONF_SRC_PROFILE)
		snprintf(buf, n, "option '--%s' (set by --profile %s)", p->lname, o->profile);
	else
		snprintf(buf, n, "option '--%s'", p->lname);
	return buf;
}

/* The other option of a message, shorter. */
const char *
conf_other(const struct uet_perf_opts *o, int i, char *buf, size_t n)
{
	const struct opt *p = &opt_table[i];

	if (o->src[i] == UET_CONF_SRC_INI)
		snprintf(buf, n, "'%s.%s' (line %u)", p->sec, p->key, o->src_line[i]);
	else
		snprintf(buf, n, "'--%s'", p->lname);
	return buf;
}


/* ------------------------------------------------------------------ */
/* Cross-option validation                                             */

static bool
active(const struct uet_perf_opts *o, int i)
{
	const struct opt *p = &opt_table[i];

	if (p->type == T_BOOL)
		return *(const bool *)conf_cfield(o, p);
	if (p->type == T_STR || p->type == T_PATH_IN)
		return *(const char *)conf_cfield(o, p) != '\0';
	return o->src[i] != UET_CONF_SRC_DEFAULT;
}

static const char *const exclusive[][2] = {
	{ "server", "client" },
	{ "server", "hosts" },
	{ "client", "hosts" },
	{ "iters", "duration" },
	{ "uet-strict", "ack-carry-evs" },
	{ "psn-near-wrap", "pdc-idle-close-ns" },
};

int
conf_finalize(struct uet_perf_opts *o, char *err, size_t n)
{
	int a, b, i;
	uint32_t k, j;

	/* Exclusive pairs: an error within one source; across sources the
	 * command line wins. */
	for (k = 0; k < sizeof(exclusive) / sizeof(exclusive[0]); k++) {
		a = conf_row(exclusive[k][0]);
		b = conf_row(exclusive[k][1]);
		if (!active(o, a) || !active(o, b))
			continue;
		if (o->src[a] == o->src[b])
			return fail(err, n, "%s: excludes %s", WHERE(b), OTHER(a));
		set_default(o, o->src[a] < o->src[b] ? a : b);
	}
	if (o->server)
		o->mode = UET_PERF_MODE_SERVER;
	else if (o->client[0] != '\0')
		o->mode = UET_PERF_MODE_CLIENT;
	else if (o->hosts[0] != '\0')
		o->mode = UET_PERF_MODE_HOSTS;
	else if (o->n_endpoints >= 2)
		o->mode = UET_PERF_MODE_LOCAL;
	else
		o->mode = UET_PERF_MODE_NONE;

	if (o->uet_strict && strcmp(o->cc, "eqds") == 0)
		return fail(err, n, "%s: excludes --cc eqds (its CREDIT_REQ/CREDIT are a libuet "
			    "extension)", WHERE(conf_row("uet-strict")));
	if (o->mode != UET_PERF_MODE_SERVER && conf_is_set(o, "clients"))
		return fail(err, n, "%s: needs --server", WHERE(conf_row("clients")));
	if (o->bind[0] != '\0') {
		struct in_addr ip;

		if (o->mode != UET_PERF_MODE_SERVER)
			return fail(err, n, "%s: needs --server (a hosts run listens on rank 0's "
				    "control address)", WHERE(conf_row("bind")));
		if (inet_pton(AF_INET, o->bind, &ip) != 1)
			return fail(err, n, "%s: '%s' is not an IPv4 address", WHERE(conf_row("bind")),
				    SHOWN(o->bind));
	}
	if (o->ecn_kmax_pct != 0 && o->ecn_kmin_pct > o->ecn_kmax_pct)
		return fail(err, n, "%s: %u%% is above --ecn-kmax-pct %u%% (marking would start "
			    "after every packet is marked; --ecn-kmax-pct 0 marks none)", WHERE(conf_row("ecn-kmin-pct")),
			    o->ecn_kmin_pct, o->ecn_kmax_pct);
	if (conf_app == UET_CONF_APP_SIM && o->pcap[0] == '\0' && conf_is_set(o, "pcap-hosts"))
		return fail(err, n, "%s: needs --pcap FILE (what to capture into)",
			    WHERE(conf_row("pcap-hosts")));
	if (o->mode == UET_PERF_MODE_SERVER && o->clients > 1 && strcmp(o->pattern, "pingpong") == 0)
		return fail(err, n, "%s: a ping-pong runs between the server and one client, "
			    "not %u", WHERE(conf_row("clients")), o->clients);
	if (o->port_series[0] != '\0') {
		struct sim_series_sel *sel = malloc(sizeof(*sel));
		char why[256];
		int bad;

		if (sel == NULL)
			return fail(err, n, "out of memory");
		bad = sim_series_parse(o->port_series, sel, why, sizeof(why));
		free(sel);
		if (bad)
			return fail(err, n, "%s: %s", WHERE(conf_row("port-series")), why);
	}
	if (conf_app == UET_CONF_APP_PERF && strcmp(o->lb, "ar") == 0)
		return fail(err, n, "%s: 'ar' is adaptive routing in the switches, which uet-sim "
			    "models; on a testbed configure it in the switches and spray with "
			    "--lb ops", WHERE(conf_row("lb")));
	if (o->duration_s > 0 &&
	    (strcmp(o->pattern, "ring-allreduce") == 0 ||
	     strcmp(o->pattern, "butterfly-allreduce") == 0 || strcmp(o->pattern, "cm") == 0))
		return fail(err, n, "%s: pattern '%s' runs a fixed number of iterations "
			    "(--iters), not a duration", WHERE(conf_row("duration")), o->pattern);
	if (o->omit_s > 0) {
		uint64_t bin_ns, interval_ns, omit_ns;

		uet_perf_opts_times_ns(o, &bin_ns, &interval_ns, &omit_ns);
		if (o->duration_s <= 0)
			return fail(err, n, "%s: a warm-up comes before a run of a set length: "
				    "needs --duration", WHERE(conf_row("omit")));
		if (strcmp(o->pattern, "websearch") == 0)
			return fail(err, n, "%s: pattern 'websearch' draws its flows over the "
				    "duration; a warm-up applies to streams", WHERE(conf_row("omit")));
		if (interval_ns > 0 && omit_ns % interval_ns != 0)
			return fail(err, n, "%s: %.9g s is not a whole number of intervals "
				    "(--interval %.9g s)", WHERE(conf_row("omit")), o->omit_s,
				    (double)interval_ns / 1e9);
		if (omit_ns % bin_ns != 0)
			return fail(err, n, "%s: %.9g s is not a whole number of timeline bins "
				    "(--bin-us %u)", WHERE(conf_row("omit")), o->omit_s, o->bin_us);
	}
	if (o->rate_gbps > 0 &&
	    (strcmp(o->pattern, "ring-allreduce") == 0 ||
	     strcmp(o->pattern, "butterfly-allreduce") == 0 || strcmp(o->pattern, "cm") == 0 ||
	     strcmp(o->pattern, "pingpong") == 0 || strcmp(o->pattern, "websearch") == 0))
		return fail(err, n, "%s: pattern '%s' sets its own pace; a rate applies to the "
			    "point-to-point patterns", WHERE(conf_row("rate-gbps")), o->pattern);

	a = conf_row("rank");
	b = conf_row("local");
	if (o->mode != UET_PERF_MODE_HOSTS && conf_is_set(o, "rank"))
		return fail(err, n, "%s: needs --hosts", WHERE(a));
	if (o->mode != UET_PERF_MODE_HOSTS && conf_is_set(o, "local"))
		return fail(err, n, "%s: needs --hosts", WHERE(b));
	if (conf_is_set(o, "rank") && conf_is_set(o, "local"))
		return fail(err, n, "%s: excludes %s (the ranks of this process)",
			    WHERE(a), OTHER(b));
	if (o->mode == UET_PERF_MODE_HOSTS && o->n_endpoints > 0)
		return fail(err, n, "%s: the hosts list gives the endpoints of a "
			    "--hosts run", WHERE(conf_row("endpoint")));
	for (k = 0; k < o->n_endpoints; k++)
		for (j = 0; j < k; j++)
			if (o->endpoints[k].ip == o->endpoints[j].ip)
				return fail(err, n, "%s: endpoints %u and %u have the "
					    "same ip", WHERE(conf_row("endpoint")), j + 1, k + 1);

	/* Size sweep: an unset end is --size (nccl-tests: -b and -e default
	 * to one size). */
	if (!conf_is_set(o, "min-bytes"))
		o->min_bytes = o->all_sizes ? 2 : o->size_bytes;
	if (!conf_is_set(o, "max-bytes"))
		o->max_bytes = o->all_sizes ? 8u << 20 : o->size_bytes;
	if (o->min_bytes > o->max_bytes) {
		i = conf_is_set(o, "min-bytes") ? conf_row("min-bytes") : conf_row("max-bytes");
		return fail(err, n, "%s: the sweep goes from %llu down to %llu bytes; "
			    "--min-bytes must not exceed --max-bytes", WHERE(i),
			    (unsigned long long)o->min_bytes,
			    (unsigned long long)o->max_bytes);
	}

	if (strcmp(o->pattern, "cm") == 0 && o->cm[0] == '\0')
		return fail(err, n, "%s: pattern 'cm' needs --cm FILE", WHERE(conf_row("pattern")));
	if (strcmp(o->pattern, "cm") != 0 && o->cm[0] != '\0')
		return fail(err, n, "%s: a connection matrix needs --pattern cm (the "
			    "pattern is '%s')", WHERE(conf_row("cm")), o->pattern);

	if ((uint32_t)o->ev_base + o->ev_count > 65536) {
		i = conf_is_set(o, "ev-count") ? conf_row("ev-count") : conf_row("ev-base");
		return fail(err, n, "%s: EVs %u..%u go past 65535", WHERE(i), o->ev_base,
			    o->ev_base + o->ev_count - 1);
	}
	for (k = 0; k < o->n_fail_ev; k++) {
		const struct uet_perf_set *s = &o->fail_ev[k].evs;

		for (j = 0; j < s->n; j++)
			if (s->r[j].lo < o->ev_base ||
			    s->r[j].hi >= (uint32_t)o->ev_base + o->ev_count)
				return fail(err, n, "%s: EVs %u-%u of entry %u are outside "
					    "the EV set %u..%u (--ev-base, --ev-count)",
					    WHERE(conf_row("fail-ev-at")), s->r[j].lo, s->r[j].hi,
					    k + 1, o->ev_base, o->ev_base + o->ev_count - 1);
	}
	return 0;
}
