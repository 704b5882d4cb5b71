/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * INI files: scanned with iniparser's own line rules first (for file:line
 * in every message and what iniparser would reject or merge silently),
 * then read with iniparser; options files and hosts lists.
 */
#include "conf/conf_int.h"

/* ------------------------------------------------------------------ */
/* INI files                                                           */

static char ini_errmsg[256];

static int
ini_errback(const char *fmt, ...)
{
	va_list ap;

	if (ini_errmsg[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(ini_errmsg, sizeof(ini_errmsg), fmt, ap);
		va_end(ap);
	}
	return 0;
}

struct ini_key {
	uint32_t line;
	uint32_t seclen;  /* full = "section:key", iniparser's name */
	char *full;
};

struct ini {
	const char *path;
	char *text;
	struct ini_key *keys;
	uint32_t n_keys;
	dictionary *d;
};

static void
ini_free(struct ini *f)
{
	uint32_t i;

	for (i = 0; i < f->n_keys; i++)
		free(f->keys[i].full);
	free(f->keys);
	free(f->text);
	if (f->d != NULL)
		iniparser_freedict(f->d);
}

static int
read_file(struct ini *f, char *err, size_t n)
{
	FILE *fp = fopen(f->path, "rb");
	size_t len;

	if (fp == NULL)
		return fail(err, n, "%s: cannot open: %s", f->path, strerror(errno));
	f->text = malloc(INI_FILE_MAX + 2);
	if (f->text == NULL) {
		fclose(fp);
		return fail(err, n, "%s: out of memory", f->path);
	}
	len = fread(f->text, 1, INI_FILE_MAX + 1, fp);
	if (ferror(fp)) {
		fclose(fp);
		return fail(err, n, "%s: cannot read: %s", f->path, strerror(errno));
	}
	fclose(fp);
	if (len > INI_FILE_MAX)
		return fail(err, n, "%s: larger than %u bytes", f->path, INI_FILE_MAX);
	f->text[len] = '\0';
	if (memchr(f->text, '\0', len) != NULL) {
		uint32_t line = 1;
		const char *c;

		for (c = f->text; *c != '\0'; c++)
			line += *c == '\n';
		return fail(err, n, "%s:%u: binary data (a NUL byte)", f->path, line);
	}
	return 0;
}

static bool
name_ok(const char *s)
{
	return *s != '\0' && s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_.-")] == '\0';
}

static int
cmp_keys(const void *a, const void *b)
{
	const struct ini_key *x = a, *y = b;
	int c = strcmp(x->full, y->full);

	return c != 0 ? c : (x->line > y->line) - (x->line < y->line);
}

/*
 * Syntax pass over the file with iniparser's rules (a line ending in '\'
 * continues on the next; '#' or ';' start a comment line; "[name]";
 * "key = value"), keeping each key and its line. Rejects what iniparser
 * would reject, keys outside a section and duplicate keys (iniparser keeps
 * the last silently).
 */
static int
ini_scan(struct ini *f, char *err, size_t n)
{
	char logical[INI_LINE_MAX + 2], sec[INI_LINE_MAX + 2] = "";
	char *p = f->text, *nl = NULL, *s;
	uint32_t line = 0, start = 0, cap = 0, i;
	size_t used = 0, raw = 0;
	bool cont = false;

	for (; *p != '\0' || cont; p = nl != NULL ? nl + 1 : p + strlen(p)) {
		size_t len;

		if (*p == '\0')
			return fail(err, n, "%s:%u: the last line ends with '\\' "
				    "(continues past the end of the file)", f->path, line);
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		line++;
		if (!cont) {
			start = line;
			used = raw = 0;
		}
		raw += len + 1;
		if (raw > INI_LINE_MAX)
			return fail(err, n, "%s:%u: line longer than %d bytes", f->path, start,
				    INI_LINE_MAX);
		memcpy(logical + used, p, len);
		used += len;
		while (used > 0 && isspace((unsigned char)logical[used - 1]))
			used--;
		cont = used > 0 && logical[used - 1] == '\\';
		if (cont) {
			used--;
			continue;
		}
		logical[used] = '\0';
		s = uet_text_strip(logical);
		if (*s == '\0' || *s == '#' || *s == ';')
			continue;
		len = strlen(s);
		if (s[0] == '[' && s[len - 1] == ']') {
			s[len - 1] = '\0';
			s = uet_text_strip(s + 1);
			for (i = 0; s[i] != '\0'; i++)
				s[i] = (char)tolower((unsigned char)s[i]);
			if (!name_ok(s))
				return fail(err, n, "%s:%u: bad section name '[%s]' (letters, "
					    "digits, '_', '.', '-')", f->path, start, SHOWN(s));
			snprintf(sec, sizeof(sec), "%s", s);
			continue;
		}
		if (strchr(s, '=') == NULL || s[0] == '=')
			return fail(err, n, "%s:%u: syntax error: '%s' is neither "
				    "'[section]' nor 'key = value'", f->path, start, SHOWN(s));
		*strchr(s, '=') = '\0';
		s = uet_text_strip(s);
		for (i = 0; s[i] != '\0'; i++)
			s[i] = (char)tolower((unsigned char)s[i]);
		if (sec[0] == '\0')
			return fail(err, n, "%s:%u: key '%s': outside any [section]", f->path,
				    start, SHOWN(s));
		if (f->n_keys == cap) {
			struct ini_key *k;

			cap = cap ? 2 * cap : 64;
			k = realloc(f->keys, cap * sizeof(*k));
			if (k == NULL)
				return fail(err, n, "%s: out of memory", f->path);
			f->keys = k;
		}
		f->keys[f->n_keys].line = start;
		f->keys[f->n_keys].seclen = (uint32_t)strlen(sec);
		f->keys[f->n_keys].full = malloc(strlen(sec) + strlen(s) + 2);
		if (f->keys[f->n_keys].full == NULL)
			return fail(err, n, "%s: out of memory", f->path);
		sprintf(f->keys[f->n_keys].full, "%s:%s", sec, s);
		f->n_keys++;
	}

	/* Duplicates: report the earliest second occurrence. */
	if (f->n_keys > 1) {
		struct ini_key *sorted = malloc(f->n_keys * sizeof(*sorted));
		const struct ini_key *dup = NULL, *first = NULL;

		if (sorted == NULL)
			return fail(err, n, "%s: out of memory", f->path);
		memcpy(sorted, f->keys, f->n_keys * sizeof(*sorted));
		qsort(sorted, f->n_keys, sizeof(*sorted), cmp_keys);
		for (i = 1; i < f->n_keys; i++)
			if (strcmp(sorted[i].full, sorted[i - 1].full) == 0 &&
			    (dup == NULL || sorted[i].line < dup->line) &&
			    (i < 2 || strcmp(sorted[i].full, sorted[i - 2].full) != 0)) {
				dup = &sorted[i];
				first = &sorted[i - 1];
			}
		if (dup != NULL) {
			char name[INI_LINE_MAX + 2];

			snprintf(name, sizeof(name), "%.*s.%s", (int)dup->seclen, dup->full,
				 dup->full + dup->seclen + 1);
			fail(err, n, "%s:%u: key '%s': duplicate (first at line %u); "
			     "repeat an option as key.1, key.2, ...", f->path, dup->line,
			     SHOWN(name), first->line);
		}
		free(sorted);
		if (dup != NULL)
			return UET_CONF_EBAD;
	}
	return 0;
}

typedef int (*ini_key_fn)(void *ctx, const char *sec, const char *key, const char *val,
			  uint32_t line, char *err, size_t n);

/* Scan, load with iniparser, then call fn for each key in file order; an
 * error of fn gets the "FILE:LINE: key 'sec.key': " prefix. */
static int
ini_read(const char *path, ini_key_fn fn, void *ctx, char *err, size_t n)
{
	struct ini f = { .path = path };
	char why[UET_PERF_PATH_MAX + 128];
	uint32_t i;
	int rc;

	rc = read_file(&f, err, n);
	if (rc == 0)
		rc = ini_scan(&f, err, n);
	if (rc == 0) {
		ini_errmsg[0] = '\0';
		iniparser_set_error_callback(ini_errback);
		f.d = iniparser_load(path);
		iniparser_set_error_callback(NULL);
		if (f.d == NULL) {
			ini_errmsg[strcspn(ini_errmsg, "\n")] = '\0';
			rc = fail(err, n, "%s: iniparser cannot read it: %s", path, ini_errmsg);
		}
	}
	for (i = 0; rc == 0 && i < f.n_keys; i++) {
		struct ini_key *k = &f.keys[i];
		const char *val = iniparser_getstring(f.d, k->full, NULL);

		k->full[k->seclen] = '\0';
		if (val == NULL) {
			rc = fail(err, n, "%s:%u: key '%s.%s': iniparser lost it", path,
				  k->line, k->full, k->full + k->seclen + 1);
			break;
		}
		rc = fn(ctx, k->full, k->full + k->seclen + 1, val, k->line, why, sizeof(why));
		if (rc < 0)
			fail(err, n, "%s:%u: key '%s.%s': %s", path, k->line, k->full,
			     SHOWN(k->full + k->seclen + 1), why);
	}
	ini_free(&f);
	return rc;
}

/* Hosts lists */

struct hosts_ctx {
	struct uet_perf_hosts *h;
	uint32_t line[UET_PERF_MAX_HOSTS];  /* 0: rank not seen */
	uint32_t first_line;
};

static int
hosts_key(struct hosts_ctx *c, const char *key, const char *val, uint32_t line,
	  char *err, size_t n)
{
	uint64_t r;

	if (conf_parse_dec(key, UET_PERF_MAX_HOSTS - 1, &r) < 0)
		return fail(err, n, "not a rank (0..%d)", UET_PERF_MAX_HOSTS - 1);
	if (c->line[r] != 0)
		return fail(err, n, "rank %llu given twice (first at line %u)",
			    (unsigned long long)r, c->line[r]);
	if (uet_perf_parse_endpoint(val, true, &c->h->h[r], err, n) < 0)
		return UET_CONF_EBAD;
	c->line[r] = line;
	if (c->first_line == 0)
		c->first_line = line;
	if (r + 1 > c->h->n)
		c->h->n = (uint32_t)r + 1;
	return 0;
}

static int
hosts_finish(struct hosts_ctx *c, const char *path, char *err, size_t n)
{
	char a[16];
	uint32_t r, q;

	if (c->h->n == 0)
		return fail(err, n, "%s: no [hosts] section (one key per rank: "
			    "0 = control=IP, ip=IP, mac=MAC, port=P, queue=Q)", path);
	for (r = 0; r < c->h->n; r++)
		if (c->line[r] == 0)
			return fail(err, n, "%s: [hosts]: rank %u is missing (ranks are "
				    "0..%u, each once)", path, r, c->h->n - 1);
	for (r = 0; r < c->h->n; r++)
		for (q = 0; q < r; q++)
			if (c->h->h[r].ip == c->h->h[q].ip)
				return fail(err, n, "%s:%u: key 'hosts.%u': ip %s is also "
					    "rank %u's (line %u)", path, c->line[r], r,
					    conf_ip_str(c->h->h[r].ip, a, sizeof(a)), q, c->line[q]);
	return 0;
}

static int
hosts_cb(void *ctx, const char *sec, const char *key, const char *val, uint32_t line,
	 char *err, size_t n)
{
	if (strcmp(sec, "hosts") != 0)
		return 0;
	return hosts_key(ctx, key, val, line, err, n);
}

int
uet_perf_hosts_load(struct uet_perf_hosts *h, const char *path, char *err,
		    size_t errlen)
{
	struct hosts_ctx *c = calloc(1, sizeof(*c));
	int rc;

	if (c == NULL)
		return fail(err, errlen, "%s: out of memory", path);
	memset(h, 0, sizeof(*h));
	c->h = h;
	rc = ini_read(path, hosts_cb, c, err, errlen);
	if (rc == 0)
		rc = hosts_finish(c, path, err, errlen);
	free(c);
	return rc;
}

/* Options files */

struct opts_ctx {
	struct uet_perf_opts *o;
	char dir[UET_PERF_PATH_MAX];
	struct hosts_ctx *hosts;  /* a [hosts] section, when there is one */
};

static bool
known_section(const char *sec)
{
	int i;

	for (i = 0; i < N_OPTS; i++)
		if (conf_for_app(&opt_table[i]) && opt_table[i].sec != NULL &&
		    strcmp(opt_table[i].sec, sec) == 0)
			return true;
	return false;
}

/* "base" or "base.suffix" for repeatable options. */
static bool
key_matches(const struct opt *p, const char *key)
{
	size_t l = strlen(p->key);

	if (strcmp(p->key, key) == 0)
		return true;
	return IS_REPEATABLE(p->type) && strncmp(p->key, key, l) == 0 && key[l] == '.' &&
	       name_ok(key + l + 1) && strchr(key + l + 1, '.') == NULL;
}

static int
unknown_key(const char *sec, const char *key, char *err, size_t n)
{
	char lkey[64];
	size_t j;
	int i;

	if (!known_section(sec) && (strcmp(sec, "hosts") != 0 || conf_app != UET_CONF_APP_PERF))
		return fail(err, n, "unknown section [%s] (sections: %s)", SHOWN(sec),
			    conf_app == UET_CONF_APP_SIM
				    ? "workload, transport, lb, cc, output, topology, failures"
				    : "mode, workload, transport, lb, cc, output, schedule, "
				      "hosts");
	for (i = 0; i < N_OPTS; i++) {
		const struct opt *p = &opt_table[i];

		if (p->sec == NULL || !conf_for_app(p))
			continue;
		snprintf(lkey, sizeof(lkey), "%s", p->lname);
		for (j = 0; lkey[j] != '\0'; j++)
			lkey[j] = lkey[j] == '-' ? '_' : lkey[j];
		if (key_matches(p, key) || strcmp(lkey, key) == 0)
			return fail(err, n, "unknown key (did you mean '%s.%s'?)", p->sec,
				    p->key);
	}
	return fail(err, n, "unknown key");
}

static int
opts_cb(void *vctx, const char *sec, const char *key, const char *val, uint32_t line,
	char *err, size_t n)
{
	struct opts_ctx *c = vctx;
	int i;

	if (strcmp(sec, "hosts") == 0 && conf_app == UET_CONF_APP_PERF) {
		if (c->hosts == NULL) {
			c->hosts = calloc(1, sizeof(*c->hosts) + sizeof(struct uet_perf_hosts));
			if (c->hosts == NULL)
				return fail(err, n, "out of memory");
			c->hosts->h = (struct uet_perf_hosts *)(void *)(c->hosts + 1);
		}
		return hosts_key(c->hosts, key, val, line, err, n);
	}
	for (i = 0; i < N_OPTS; i++)
		if (conf_for_app(&opt_table[i]) && opt_table[i].sec != NULL &&
		    strcmp(opt_table[i].sec, sec) == 0 && key_matches(&opt_table[i], key))
			return conf_apply(c->o, i, val, UET_CONF_SRC_INI, line, c->dir, err, n);
	/* One file can serve both tools: a key only the other tool has
	 * (uet-sim's fabric, uet-perf's mode, hosts and schedule) is left to
	 * it. A key neither knows is still an error. */
	if (strcmp(sec, "hosts") == 0)
		return 0;
	for (i = 0; i < N_OPTS; i++)
		if (opt_table[i].sec != NULL && strcmp(opt_table[i].sec, sec) == 0 &&
		    key_matches(&opt_table[i], key))
			return 0;
	return unknown_key(sec, key, err, n);
}

/* INI file on top of o, without the cross-option checks. */
int
conf_load_ini(struct uet_perf_opts *o, const char *path, char *err, size_t n)
{
	struct opts_ctx c = { .o = o };
	const char *slash = strrchr(path, '/');
	int rc, h = conf_row("hosts");

	if (strlen(path) >= sizeof(o->src_file))
		return fail(err, n, "%s: path too long", SHOWN(path));
	snprintf(o->src_file, sizeof(o->src_file), "%s", path);
	if (slash != NULL)
		snprintf(c.dir, sizeof(c.dir), "%.*s", (int)(slash - path + (slash == path)),
			 path);
	rc = ini_read(path, opts_cb, &c, err, n);
	if (rc == 0 && c.hosts != NULL) {
		rc = hosts_finish(c.hosts, path, err, n);
		if (rc == 0 && o->src[h] == UET_CONF_SRC_INI)
			rc = fail(err, n, "%s: excludes the file's own [hosts] section "
				  "(line %u)", WHERE(h), c.hosts->first_line);
		if (rc == 0) {
			snprintf(o->hosts, sizeof(o->hosts), "%s", path);
			o->src[h] = UET_CONF_SRC_INI;
			o->src_line[h] = c.hosts->first_line;
		}
	}
	free(c.hosts);
	return rc;
}

int
uet_perf_opts_load_ini(struct uet_perf_opts *o, const char *path, char *err,
		       size_t errlen)
{
	int rc = conf_load_ini(o, path, err, errlen);

	return rc < 0 ? rc : conf_finalize(o, err, errlen);
}
