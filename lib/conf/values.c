/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading one value: numbers and sizes with suffixes, booleans, addresses,
 * sets, times, the repeatable specs (endpoints, neighbours, fail-EV
 * ranges, hooks, failures) and the names of patterns, algorithms and
 * modes.
 */
#include "conf/conf_int.h"

/* ------------------------------------------------------------------ */
/* Value parsers                                                       */

int
conf_parse_uint(const char *s, bool bytes, uint64_t *out, char *err, size_t n)
{
	const char *p = s;
	uint64_t v = 0, base = 10;
	unsigned shift = 0;

	if (*s == '\0')
		return fail(err, n, "missing value");
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
		base = 16;
		p += 2;
	}
	if (*p == '-')
		return fail(err, n, "'%s' is negative", SHOWN(s));
	if (base == 10 && !isdigit((unsigned char)*p))
		return fail(err, n, "'%s' is not a number", SHOWN(s));
	for (; base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p); p++) {
		uint64_t d = isdigit((unsigned char)*p) ? (uint64_t)(*p - '0')
							: (uint64_t)(tolower((unsigned char)*p) - 'a' + 10);

		if (v > (UINT64_MAX - d) / base)
			return fail(err, n, "'%s' is too large", SHOWN(s));
		v = v * base + d;
	}
	if (*p != '\0') {
		const char *k = strchr("KMGT", toupper((unsigned char)*p));

		if (!bytes) {
			if (*p == '.')
				return fail(err, n, "'%s' is not an integer", SHOWN(s));
			return fail(err, n, "'%s' has a suffix '%s'; this option takes a "
				    "plain integer", SHOWN(s), SHOWN(p));
		}
		if (*p == '.')
			return fail(err, n, "'%s' is not an integer number of bytes", SHOWN(s));
		if (k == NULL || *p == '\0' || p[1] != '\0')
			return fail(err, n, "'%s' has a bad suffix '%s' (K, M, G or T = "
				    "2^10, 2^20, 2^30, 2^40)", SHOWN(s), SHOWN(p));
		shift = 10 * (unsigned)(k - "KMGT" + 1);
		if (v > (UINT64_MAX >> shift))
			return fail(err, n, "'%s' is too large", SHOWN(s));
		v <<= shift;
	}
	*out = v;
	return 0;
}

int
conf_parse_bool(const char *s, bool *out, char *err, size_t n)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };
	size_t i;

	if (*s == '\0')
		return fail(err, n, "missing value");
	for (i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return fail(err, n, "'%s' is not a boolean (true/false, yes/no, on/off, 1/0)",
		    SHOWN(s));
}

static int
parse_ip(const char *s, uint32_t *ip, char *err, size_t n)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return fail(err, n, "'%s' is not an IPv4 address", SHOWN(s));
	*ip = ntohl(a.s_addr);
	return 0;
}

static int
parse_mac(const char *s, uint8_t mac[6], char *err, size_t n)
{
	int i;

	for (i = 0; i < 6; i++) {
		const char *p = s + 3 * i;

		if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]) ||
		    p[2] != (i == 5 ? '\0' : ':'))
			return fail(err, n, "'%s' is not a MAC address (xx:xx:xx:xx:xx:xx)",
				    SHOWN(s));
		mac[i] = (uint8_t)strtoul((char[3]){ p[0], p[1], 0 }, NULL, 16);
	}
	return 0;
}

/* Decimal digits only, at most max. */
int
conf_parse_dec(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s) || v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

int
uet_perf_parse_set(const char *s, uint32_t min, uint32_t max, struct uet_perf_set *out,
		   char *err, size_t errlen)
{
	char buf[INI_LINE_MAX + 24], *b, *item, *save = NULL;
	struct uet_perf_set set = { 0 };
	uint32_t i;

	if (strlen(s) >= sizeof(buf))
		return fail(err, errlen, "list too long");
	snprintf(buf, sizeof(buf), "%s", s);
	b = uet_text_strip(buf);
	if (*b == '\0')
		return fail(err, errlen, "empty list");
	if (b[0] == ',' || b[strlen(b) - 1] == ',' || strstr(b, ",,") != NULL)
		return fail(err, errlen, "'%s' has an empty item", SHOWN(s));
	for (item = strtok_r(b, ",", &save); item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		char *it = uet_text_strip(item), *dash = strchr(it, '-');
		uint64_t lo, hi;

		if (*it == '\0')
			return fail(err, errlen, "'%s' has an empty item", SHOWN(s));
		if (dash != NULL)
			*dash = '\0';
		if (conf_parse_dec(uet_text_strip(it), UINT32_MAX, &lo) < 0 ||
		    (dash != NULL && conf_parse_dec(uet_text_strip(dash + 1), UINT32_MAX, &hi) < 0))
			return fail(err, errlen, "'%s' is not a number or a range a-b",
				    SHOWN(dash != NULL ? s : it));
		if (dash == NULL)
			hi = lo;
		if (lo > hi)
			return fail(err, errlen, "range %llu-%llu is backwards",
				    (unsigned long long)lo, (unsigned long long)hi);
		if (lo < min || hi > max)
			return fail(err, errlen, "%llu is outside %u..%u",
				    (unsigned long long)(lo < min ? lo : hi), min, max);
		for (i = 0; i < set.n; i++)
			if (lo <= set.r[i].hi && hi >= set.r[i].lo)
				return fail(err, errlen, "%llu-%llu overlaps %u-%u",
					    (unsigned long long)lo, (unsigned long long)hi,
					    set.r[i].lo, set.r[i].hi);
		if (set.n == UET_PERF_SET_MAX)
			return fail(err, errlen, "more than %d ranges", UET_PERF_SET_MAX);
		set.r[set.n].lo = (uint32_t)lo;
		set.r[set.n].hi = (uint32_t)hi;
		set.n++;
	}
	*out = set;
	return 0;
}

bool
uet_perf_set_has(const struct uet_perf_set *s, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		if (v >= s->r[i].lo && v <= s->r[i].hi)
			return true;
	return false;
}

uint64_t
uet_perf_set_count(const struct uet_perf_set *s)
{
	uint64_t c = 0;
	uint32_t i;

	for (i = 0; i < s->n; i++)
		c += (uint64_t)s->r[i].hi - s->r[i].lo + 1;
	return c;
}

int
uet_perf_parse_time_ns(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	return uet_text_parse_time_ns(s, ns, err, errlen) == 0 ? 0 : UET_CONF_EBAD;
}

/* Split "T:REST" and parse T. */
static int
split_time(const char *s, uint64_t *ns, const char **rest, const char *what,
	   char *err, size_t errlen)
{
	char t[32];
	const char *colon = strchr(s, ':');

	if (colon == NULL)
		return fail(err, errlen, "'%s' is not T:%s (e.g. 2.5:%s)", SHOWN(s), what,
			    strcmp(what, "SET") == 0 ? "49152-49183" : "echo hi");
	if ((size_t)(colon - s) >= sizeof(t))
		return fail(err, errlen, "time in '%s' is too long", SHOWN(s));
	memcpy(t, s, (size_t)(colon - s));
	t[colon - s] = '\0';
	if (uet_perf_parse_time_ns(uet_text_strip(t), ns, err, errlen) < 0)
		return UET_CONF_EBAD;
	*rest = colon + 1;
	if (**rest == '\0')
		return fail(err, errlen, "'%s' has no %s after the ':'", SHOWN(s), what);
	return 0;
}

int
uet_perf_parse_fail_ev(const char *s, struct uet_perf_fail_ev *out, char *err,
		       size_t errlen)
{
	struct uet_perf_fail_ev f;
	const char *rest;
	char why[160];

	if (split_time(s, &f.at_ns, &rest, "SET", err, errlen) < 0)
		return UET_CONF_EBAD;
	if (uet_perf_parse_set(rest, 1, 65535, &f.evs, why, sizeof(why)) < 0)
		return fail(err, errlen, "EV set: %s", why);
	*out = f;
	return 0;
}

/* ------------------------------------------------------------------ */
/* uet-sim failure specs (conf.h)                                      */

int
uet_conf_parse_failure(const char *spec, struct sim_failure *out, char *err, size_t errlen)
{
	return sim_failure_parse(spec, out, err, errlen) == 0 ? 0 : UET_CONF_EBAD;
}

int
uet_perf_parse_exec(const char *s, struct uet_perf_exec *out, char *err, size_t errlen)
{
	struct uet_perf_exec x;
	const char *rest;

	if (split_time(s, &x.at_ns, &rest, "CMD", err, errlen) < 0)
		return UET_CONF_EBAD;
	if (rest[strspn(rest, " \t")] == '\0')
		return fail(err, errlen, "'%s' has an empty command", SHOWN(s));
	if (strlen(rest) >= sizeof(x.cmd))
		return fail(err, errlen, "command longer than %d bytes",
			    UET_PERF_CMD_MAX - 1);
	snprintf(x.cmd, sizeof(x.cmd), "%s", rest);
	*out = x;
	return 0;
}

/* "k=v, k=v": calls fn for each pair; each key at most once (bit in seen). */
typedef int (*kv_fn)(void *ctx, int k, const char *v, char *err, size_t n);

static int
parse_kv(const char *s, const char *const *keys, kv_fn fn, void *ctx, uint32_t *seen,
	 char *err, size_t n)
{
	char buf[INI_LINE_MAX + 24], *item, *save = NULL;
	int k;

	*seen = 0;
	if (strlen(s) >= sizeof(buf))
		return fail(err, n, "spec too long");
	snprintf(buf, sizeof(buf), "%s", s);
	if (*uet_text_strip(buf) == '\0')
		return fail(err, n, "empty spec");
	for (item = strtok_r(buf, ",", &save); item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '='), *key;

		if (eq == NULL)
			return fail(err, n, "'%s' is not key=value", SHOWN(uet_text_strip(item)));
		*eq = '\0';
		key = uet_text_strip(item);
		for (k = 0; keys[k] != NULL && strcmp(keys[k], key) != 0; k++)
			;
		if (keys[k] == NULL) {
			char list[128] = "";

			for (k = 0; keys[k] != NULL; k++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list),
					 "%s%s", k ? ", " : "", keys[k]);
			return fail(err, n, "unknown field '%s' (one of: %s)", SHOWN(key),
				    list);
		}
		if (*seen & (1u << k))
			return fail(err, n, "field '%s' given twice", keys[k]);
		*seen |= 1u << k;
		if (fn(ctx, k, uet_text_strip(eq + 1), err, n) < 0)
			return UET_CONF_EBAD;
	}
	return 0;
}

enum { EP_IP, EP_MAC, EP_PORT, EP_QUEUE, EP_GW, EP_CONTROL };
static const char *const ep_keys[] = { "ip", "mac", "port", "queue", "gw", "control", NULL };
static const char *const ep_keys_local[] = { "ip", "mac", "port", "queue", "gw", NULL };

/* "A.B.C.D" or "A.B.C.D/LEN": the address and its on-link prefix. */
static int
parse_ip_prefix(const char *v, uint32_t *ip, uint8_t *prefix_len, char *err, size_t n)
{
	char buf[32], *slash;
	char *end;
	unsigned long len;

	if (strlen(v) >= sizeof(buf))
		return fail(err, n, "'%s' is not an IPv4 address", SHOWN(v));
	snprintf(buf, sizeof(buf), "%s", v);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash = '\0';
		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (slash[1] == '\0' || *end != '\0' || errno != 0 || len < 1 || len > 32)
			return fail(err, n, "prefix length '%s' is not in 1..32", SHOWN(slash + 1));
		*prefix_len = (uint8_t)len;
	}
	return parse_ip(buf, ip, err, n);
}

static int
ep_field(void *ctx, int k, const char *v, char *err, size_t n)
{
	struct uet_perf_endpoint *e = ctx;
	char why[128];
	uint64_t u;

	switch (k) {
	case EP_IP:
		return parse_ip_prefix(v, &e->ip, &e->prefix_len, err, n);
	case EP_GW:
		return parse_ip(v, &e->gateway, err, n);
	case EP_CONTROL:
		return parse_ip(v, &e->control_ip, err, n);
	case EP_MAC:
		e->has_mac = true;
		return parse_mac(v, e->mac, err, n);
	default:
		if (conf_parse_uint(v, false, &u, why, sizeof(why)) < 0)
			return fail(err, n, "%s: %s", ep_keys[k], why);
		if (u > 65535)
			return fail(err, n, "%s %llu is outside 0..65535", ep_keys[k],
				    (unsigned long long)u);
		if (k == EP_PORT)
			e->port = (uint16_t)u;
		else
			e->queue = (uint16_t)u;
		return 0;
	}
}

int
uet_perf_parse_endpoint(const char *s, bool hosts_entry, struct uet_perf_endpoint *out,
			char *err, size_t errlen)
{
	struct uet_perf_endpoint e;
	uint32_t seen;

	memset(&e, 0, sizeof(e));
	if (parse_kv(s, hosts_entry ? ep_keys : ep_keys_local, ep_field, &e, &seen, err,
		     errlen) < 0)
		return UET_CONF_EBAD;
	if (!(seen & (1u << EP_IP)))
		return fail(err, errlen, "missing field 'ip'");
	if (hosts_entry && !(seen & (1u << EP_CONTROL)))
		return fail(err, errlen, "missing field 'control'");
	if ((seen & (1u << EP_GW)) && e.prefix_len == 0)
		return fail(err, errlen, "field 'gw' needs the on-link prefix: ip=A.B.C.D/LEN");
	if ((seen & (1u << EP_GW)) && e.prefix_len < 32 &&
	    ((e.gateway ^ e.ip) >> (32 - e.prefix_len)) != 0)
		return fail(err, errlen, "gateway is not inside the endpoint's /%u", e.prefix_len);
	*out = e;
	return 0;
}

static int
nb_field(void *ctx, int k, const char *v, char *err, size_t n)
{
	struct uet_perf_neighbor *nb = ctx;

	return k == EP_IP ? parse_ip(v, &nb->ip, err, n) : parse_mac(v, nb->mac, err, n);
}

int
uet_perf_parse_neighbor(const char *s, struct uet_perf_neighbor *out, char *err,
			size_t errlen)
{
	static const char *const keys[] = { "ip", "mac", NULL };
	struct uet_perf_neighbor nb;
	uint32_t seen;

	memset(&nb, 0, sizeof(nb));
	if (parse_kv(s, keys, nb_field, &nb, &seen, err, errlen) < 0)
		return UET_CONF_EBAD;
	if (seen != 3)
		return fail(err, errlen, "missing field '%s'",
			    (seen & 1) ? "mac" : "ip");
	*out = nb;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

static const char *
name_at(int names, int i)
{
	if (names == NAMES_PATTERN)
		return uet_perf_patterns[i];
	if (names == NAMES_LB)
		return uet_lb_all()[i] != NULL ? uet_lb_all()[i]->name : NULL;
	if (names == NAMES_LOSS)
		return uet_perf_loss_detect[i];
	if (names == NAMES_PROFILE)
		return uet_perf_profiles[i].name;
	return uet_cc_all()[i] != NULL ? uet_cc_all()[i]->name : NULL;
}

void
conf_name_list(int names, char *buf, size_t n)
{
	const char *s;
	int i;

	buf[0] = '\0';
	for (i = 0; (s = name_at(names, i)) != NULL; i++)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? ", " : "", s);
}

int
conf_check_name(int names, const char *v, char *err, size_t n)
{
	static const char *const what[] = { "", "pattern", "load balancer",
					    "congestion controller", "loss detection", "profile" };
	char list[256];
	const char *s;
	int i;

	if (*v == '\0')
		return fail(err, n, "missing value");
	for (i = 0; (s = name_at(names, i)) != NULL; i++)
		if (strcmp(s, v) == 0)
			return 0;
	conf_name_list(names, list, sizeof(list));
	return fail(err, n, "unknown %s '%s' (one of: %s)", what[names], SHOWN(v), list);
}
