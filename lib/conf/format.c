/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Options as text: --help, doc/options.md, an INI file of the options, and
 * the text and hash of the options every host must agree on.
 */
#include "conf/conf_int.h"

/* ------------------------------------------------------------------ */
/* Formatting: --help, doc, INI output, hash                           */

static void
fmt_time(uint64_t ns, char *buf, size_t n)
{
	int l = snprintf(buf, n, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
			 (unsigned long long)(ns % 1000000000ULL));

	while (l > 0 && buf[l - 1] == '0')
		buf[--l] = '\0';
	if (l > 0 && buf[l - 1] == '.')
		buf[l - 1] = '\0';
}

void
uet_perf_set_str(const struct uet_perf_set *s, char *buf, size_t n)
{
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < s->n; i++) {
		size_t l = strlen(buf);

		if (s->r[i].lo == s->r[i].hi)
			snprintf(buf + l, n - l, "%s%u", i ? "," : "", s->r[i].lo);
		else
			snprintf(buf + l, n - l, "%s%u-%u", i ? "," : "", s->r[i].lo,
				 s->r[i].hi);
	}
}

/* Canonical text of element k of option i (k = 0 for scalars); what the
 * INI parser reads back. */
static void
fmt_value(const struct uet_perf_opts *o, int i, uint32_t k, bool exact, char *buf,
	  size_t n)
{
	const struct opt *p = &opt_table[i];
	const char *f = conf_cfield(o, p);
	char a[16], b[16], m[24], t[32];

	switch (p->type) {
	case T_BOOL:
		snprintf(buf, n, "%s", *(const bool *)f ? "true" : "false");
		break;
	case T_COUNT:
	case T_UINT:
	case T_BYTES:
		snprintf(buf, n, "%llu", (unsigned long long)conf_get_uint(f, p->size));
		break;
	case T_DOUBLE:
		snprintf(buf, n, exact ? "%.17g" : "%g", *(const double *)f);
		break;
	case T_SET:
		uet_perf_set_str((const struct uet_perf_set *)(const void *)f, buf, n);
		break;
	case T_ENDPOINT: {
		const struct uet_perf_endpoint *e =
			(const struct uet_perf_endpoint *)(const void *)f + k;

		char pre[8] = "", gw[24] = "";

		if (e->prefix_len != 0)
			snprintf(pre, sizeof(pre), "/%u", e->prefix_len);
		if (e->gateway != 0)
			snprintf(gw, sizeof(gw), ",gw=%s", conf_ip_str(e->gateway, b, sizeof(b)));
		snprintf(buf, n, "ip=%s%s%s,port=%u,queue=%u%s%s", conf_ip_str(e->ip, a, sizeof(a)),
			 pre, gw, e->port, e->queue, e->has_mac ? ",mac=" : "",
			 e->has_mac ? conf_mac_str(e->mac, m, sizeof(m)) : "");
		break;
	}
	case T_NEIGHBOR: {
		const struct uet_perf_neighbor *nb =
			(const struct uet_perf_neighbor *)(const void *)f + k;

		snprintf(buf, n, "ip=%s,mac=%s", conf_ip_str(nb->ip, b, sizeof(b)),
			 conf_mac_str(nb->mac, m, sizeof(m)));
		break;
	}
	case T_FAIL_EV: {
		const struct uet_perf_fail_ev *fe =
			(const struct uet_perf_fail_ev *)(const void *)f + k;
		char set[512];

		fmt_time(fe->at_ns, t, sizeof(t));
		uet_perf_set_str(&fe->evs, set, sizeof(set));
		snprintf(buf, n, "%s:%s", t, set);
		break;
	}
	case T_EXEC: {
		const struct uet_perf_exec *x =
			(const struct uet_perf_exec *)(const void *)f + k;

		fmt_time(x->at_ns, t, sizeof(t));
		snprintf(buf, n, "%s:%s", t, x->cmd);
		break;
	}
	case T_FAILURE:
		snprintf(buf, n, "%s", ((const struct sim_failure *)(const void *)f + k)->text);
		break;
	default:
		snprintf(buf, n, "%s", f);
		break;
	}
}

static const char *
default_text(int i, char *buf, size_t n)
{
	const struct opt *p = &opt_table[i];
	struct uet_perf_opts *d;

	if (conf_app == UET_CONF_APP_SIM && p->simdefdoc != NULL)
		return p->simdefdoc;
	if (p->defdoc != NULL)
		return p->defdoc;
	if (p->type >= T_CONFIG)
		return "";
	if (IS_REPEATABLE(p->type))
		return "none";
	d = malloc(sizeof(*d));
	if (d == NULL)
		return "?";
	uet_perf_opts_default(d);
	fmt_value(d, i, 0, false, buf, n);
	free(d);
	if (buf[0] == '\0')
		return "none";
	return buf;
}

static const char *
unit_of(const char *meta)
{
	static const char *const units[][2] = {
		{ "BYTES", "bytes" }, { "NS", "ns" }, { "SEC", "s" }, { "US", "µs" },
		{ "GBPS", "Gbit/s" }, { "PCT", "%" }, { "FRAC", "0..1" },
		{ "T:SET", "s : EVs" }, { "T:CMD", "s : command" },
	};
	size_t i;

	for (i = 0; meta != NULL && i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(units[i][0], meta) == 0)
			return units[i][1];
	return "";
}

/* "-s, --size=BYTES" */
static void
synopsis(const struct opt *p, char *buf, size_t n)
{
	const char *arg = conf_has_arg(p) == required_argument ? "=" : "";
	const char *meta = conf_has_arg(p) == required_argument ? p->meta : "";

	if (p->type == T_BOOL)
		arg = "[=BOOL]";
	if (p->type == T_COUNT)
		arg = "[=N]";
	if (p->sname != 0)
		snprintf(buf, n, "-%c, --%s%s%s", p->sname, p->lname, arg, meta);
	else
		snprintf(buf, n, "    --%s%s%s", p->lname, arg, meta);
}

static bool
in_section(const struct opt *p, const char *sec)
{
	return sec == NULL ? p->sec == NULL : p->sec != NULL && strcmp(p->sec, sec) == 0;
}

/* The section has an option of the program parsing now. */
static bool
section_used(const char *sec)
{
	int i;

	for (i = 0; i < N_OPTS; i++)
		if (in_section(&opt_table[i], sec) && conf_for_app(&opt_table[i]))
			return true;
	return false;
}

static void
help_text(const struct opt *p, char *buf, size_t n)
{
	char list[256];

	if (p->type == T_NAME) {
		conf_name_list(p->names, list, sizeof(list));
		snprintf(buf, n, "%s: %s", p->help, list);
	} else {
		snprintf(buf, n, "%s", p->help);
	}
}

/* Words of text after a column of width indent, wrapped at 100 columns. */
static void
wrap(FILE *f, const char *text, int indent)
{
	int col = indent;
	const char *w = text;

	while (*w != '\0') {
		int len = (int)strcspn(w, " ");

		if (col > indent && col + 1 + len > 100) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		}
		col += fprintf(f, "%s%.*s", col > indent ? " " : "", len, w);
		w += len;
		w += strspn(w, " ");
	}
	fprintf(f, "\n");
}

void
uet_perf_opts_usage(FILE *f)
{
	char syn[64], def[64], help[512], text[768];
	size_t s;
	int i;

	if (conf_app == UET_CONF_APP_SIM)
		fprintf(f, "Usage: uet-sim [options]\n"
			   "Every option is also an INI key [section.key], read with "
			   "--config FILE;\nthe command line overrides the file. "
			   "Sizes take K, M, G, T (2^10..); times are simulated.\n");
	else
		fprintf(f, "Usage: uet-perf [EAL options] -- [options]\n"
			   "Every option is also an INI key [section.key], read with "
			   "--config FILE;\nthe command line overrides the file. "
			   "* marks SYMMETRIC options: every host must\nuse the same. "
			   "Sizes take K, M, G, T (2^10..); times T are seconds.\n");
	for (s = 0; s < conf_n_sections; s++) {
		if (!section_used(conf_sections[s].sec))
			continue;
		fprintf(f, "\n%s:\n", conf_sections[s].title);
		for (i = 0; i < N_OPTS; i++) {
			const struct opt *p = &opt_table[i];
			const char *d = default_text(i, def, sizeof(def));
			int l;

			if (!in_section(p, conf_sections[s].sec) || !conf_for_app(p))
				continue;
			synopsis(p, syn, sizeof(syn));
			help_text(p, help, sizeof(help));
			l = snprintf(text, sizeof(text), "%s%s",
				     p->flags & F_SYM && conf_app == UET_CONF_APP_PERF ? "* " : "",
				     help);
			if (d[0] != '\0' && strcmp(d, "none") != 0 && p->type != T_BOOL)
				l += snprintf(text + l, sizeof(text) - (size_t)l,
					      "; default %s", d);
			if (p->sec != NULL)
				snprintf(text + l, sizeof(text) - (size_t)l, " [%s.%s%s]",
					 p->sec, p->key, IS_REPEATABLE(p->type) ? ".N" : "");
			fprintf(f, "  %-28s ", syn);
			wrap(f, text, 31);
		}
	}
}

void
uet_perf_opts_doc_md(FILE *f)
{
	char syn[64], def[64], sdef[64], defs[160], help[512], key[64];
	int app = conf_app;
	size_t s;
	int i;

	/* One reference for both programs: rows of one program only say so,
	 * and a default that differs in uet-sim is shown beside. */
	for (s = 0; s < conf_n_sections; s++) {
		fprintf(f, "### %s\n\n", conf_sections[s].title);
		if (conf_sections[s].sec != NULL)
			fprintf(f, "INI section `[%s]`.\n\n", conf_sections[s].sec);
		fprintf(f, "| Command line | INI key | Default | Units | Sym | Meaning |\n"
			   "|---|---|---|---|---|---|\n");
		for (i = 0; i < N_OPTS; i++) {
			const struct opt *p = &opt_table[i];
			char *c;

			if (!in_section(p, conf_sections[s].sec))
				continue;
			synopsis(p, syn, sizeof(syn));
			help_text(p, help, sizeof(help));
			for (c = help; *c != '\0'; c++)
				if (*c == '|')
					*c = '/';
			conf_app = p->app == UET_CONF_APP_SIM ? UET_CONF_APP_SIM : UET_CONF_APP_PERF;
			snprintf(defs, sizeof(defs), "%s", default_text(i, def, sizeof(def)));
			if (p->has_simdef) {
				conf_app = UET_CONF_APP_SIM;
				snprintf(defs + strlen(defs), sizeof(defs) - strlen(defs),
					 " (uet-sim: %s)", default_text(i, sdef, sizeof(sdef)));
			}
			conf_app = app;
			if (p->app != 0 && (p->sec == NULL || strchr(conf_sections[s].title, '(') == NULL)) {
				char tmp[600];

				snprintf(tmp, sizeof(tmp), "%s only: %s",
					 p->app == UET_CONF_APP_SIM ? "uet-sim" : "uet-perf", help);
				snprintf(help, sizeof(help), "%.*s", (int)sizeof(help) - 1, tmp);
			}
			if (p->sec == NULL)
				snprintf(key, sizeof(key), "-");
			else if (IS_REPEATABLE(p->type))
				snprintf(key, sizeof(key), "`%s`, `%s.N`", p->key, p->key);
			else
				snprintf(key, sizeof(key), "`%s`", p->key);
			fprintf(f, "| `%s` | %s | %s | %s | %s | %s |\n", uet_text_strip(syn), key,
				defs, unit_of(p->meta), p->flags & F_SYM ? "yes" : "", help);
		}
		fprintf(f, "\n");
	}
}

/*
 * iniparser 4.1 reads an unquoted value up to ';' or '#', strips its spaces
 * and takes a leading quote as the start of a quoted value; a quoted value
 * ends at the next quote of its kind (there are no escapes). Returns false
 * when v cannot be written (it needs quotes and holds both kinds).
 */
static bool
write_value(FILE *f, const char *key, const char *v)
{
	size_t l = strlen(v);
	bool plain = l > 0 && strpbrk(v, ";#") == NULL && v[0] != '"' && v[0] != '\'' &&
		     !isspace((unsigned char)v[0]) && !isspace((unsigned char)v[l - 1]) &&
		     v[l - 1] != '\\';

	if (plain)
		fprintf(f, "%s = %s\n", key, v);
	else if (strchr(v, '"') == NULL)
		fprintf(f, "%s = \"%s\"\n", key, v);
	else if (strchr(v, '\'') == NULL)
		fprintf(f, "%s = '%s'\n", key, v);
	else
		return false;
	return true;
}

static void write_ini(const struct uet_perf_opts *o, FILE *f, bool defaults, bool dests);

void
uet_perf_opts_write_ini(const struct uet_perf_opts *o, FILE *f)
{
	write_ini(o, f, false, true);
}

static void
write_effective(const struct uet_perf_opts *o, FILE *f, bool dests)
{
	fprintf(f, "; %s %s: every option's value; the defaults commented out%s\n",
		conf_app == UET_CONF_APP_SIM ? "uet-sim" : "uet-perf", uet_perf_version(),
		dests ? "" : "; where the\n; report and captures went (json, csv, pcap) left out");
	write_ini(o, f, true, dests);
}

void
uet_perf_opts_write_effective(const struct uet_perf_opts *o, FILE *f)
{
	write_effective(o, f, true);
}

char *
uet_perf_opts_effective_text(const struct uet_perf_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	write_effective(o, f, false);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* An output destination: where results go, not what runs. */
static bool
is_dest(const struct opt *p)
{
	return strcmp(p->key, "json") == 0 || strcmp(p->key, "csv") == 0 ||
	       strcmp(p->key, "pcap") == 0;
}

static void
write_ini(const struct uet_perf_opts *o, FILE *f, bool defaults, bool dests)
{
	char buf[2 * UET_PERF_PATH_MAX + 64], cwd[UET_PERF_PATH_MAX];
	bool any = false;
	size_t s;
	uint32_t k;
	int i;

	for (s = 0; conf_sections[s].sec != NULL; s++) {
		bool head = false;

		for (i = 0; i < N_OPTS; i++) {
			const struct opt *p = &opt_table[i];
			uint32_t cnt = IS_REPEATABLE(p->type) ? conf_ccount_of(o, p) : 1;

			if (!in_section(p, conf_sections[s].sec) ||
			    (o->src[i] == UET_CONF_SRC_DEFAULT && !defaults) || !conf_for_app(p) ||
			    p->type >= T_CONFIG || (!dests && is_dest(p)))
				continue;
			if (!head)
				fprintf(f, "%s[%s]\n", any ? "\n" : "", conf_sections[s].sec);
			head = any = true;
			for (k = 0; k < cnt; k++) {
				char key[48];

				fmt_value(o, i, k, true, buf, sizeof(buf));
				/* A default is shown, commented out: the file then
				 * reads back to the same options (defaults stay
				 * defaults, and some are no value at all). */
				if (o->src[i] == UET_CONF_SRC_DEFAULT) {
					fprintf(f, "; %s = %s  (default)\n", p->key,
						buf[0] != '\0' ? buf : "\"\"");
					continue;
				}
				/* The file may go elsewhere: relative input
				 * paths would then be relative to it. */
				if (p->type == T_PATH_IN && buf[0] != '/' &&
				    getcwd(cwd, sizeof(cwd)) != NULL)
					snprintf(buf, sizeof(buf), "%s/%s", cwd,
						 (const char *)conf_cfield(o, p));
				if (IS_REPEATABLE(p->type))
					snprintf(key, sizeof(key), "%s.%u", p->key, k + 1);
				else
					snprintf(key, sizeof(key), "%s", p->key);
				if (!write_value(f, key, buf))
					fprintf(f, "; %s: not written, the value needs "
						   "quotes and holds both ' and \"\n", key);
			}
		}
	}
}

static uint64_t
fnv1a(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

size_t
uet_perf_opts_sym_text(const struct uet_perf_opts *o, char *out, size_t n)
{
	char buf[UET_PERF_PATH_MAX + 64];
	size_t k = 0;
	int i;

	if (out != NULL && n > 0)
		out[0] = '\0';
	for (i = 0; i < N_OPTS; i++) {
		const struct opt *p = &opt_table[i];
		bool room = out != NULL && k < n;

		if (!(p->flags & F_SYM) || !conf_for_app(p))
			continue;
		fmt_value(o, i, 0, true, buf, sizeof(buf));
		k += (size_t)snprintf(room ? out + k : NULL, room ? n - k : 0, "%s=%s\n",
				      p->lname, buf);
	}
	return k;
}

uint64_t
uet_perf_opts_hash(const struct uet_perf_opts *o)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char buf[UET_PERF_PATH_MAX + 64];
	int i;

	for (i = 0; i < N_OPTS; i++) {
		const struct opt *p = &opt_table[i];

		if (!(p->flags & F_SYM) || !conf_for_app(p))
			continue;
		fmt_value(o, i, 0, true, buf, sizeof(buf));
		h = fnv1a(h, p->key);
		h = fnv1a(h, "=");
		h = fnv1a(h, buf);
		h = fnv1a(h, "\n");
	}
	return h;
}

uint32_t
uet_perf_ip_mtu_bytes(const struct uet_perf_opts *o)
{
	return IP_UDP_HDR_BYTES + UET_DATA_HDR_LEN + o->mtu_bytes;
}
