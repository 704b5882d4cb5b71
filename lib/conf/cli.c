/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command line (getopt_long over the table), profiles under every
 * other source, and uet_perf_opts_parse: the order of the sources.
 */
#include "conf/conf_int.h"
#include "uet_version.h"

/* ------------------------------------------------------------------ */
/* Command line                                                        */

#define LONG_VAL 256 /* getopt value of row i: LONG_VAL + i */

int
conf_has_arg(const struct opt *p)
{
	if (p->type == T_HELP || p->type == T_VERSION || p->type == T_PRINT)
		return no_argument;
	if (p->type == T_BOOL || p->type == T_COUNT)
		return optional_argument;
	return required_argument;
}

static void
build_getopt(struct option *lo, char *shorts)
{
	char *s = shorts;
	int i, k = 0;

	*s++ = '+'; /* stop at the first non-option, never permute argv */
	*s++ = ':'; /* report a missing value as ':' */
	for (i = 0; i < N_OPTS; i++) {
		const struct opt *p = &opt_table[i];

		if (!conf_for_app(p))
			continue;
		lo[k++] = (struct option){ p->lname, conf_has_arg(p), NULL, LONG_VAL + i };
		if (p->sname != 0) {
			*s++ = p->sname;
			if (conf_has_arg(p) == required_argument)
				*s++ = ':';
		}
	}
	lo[k] = (struct option){ NULL, 0, NULL, 0 };
	*s = '\0';
}

static int
short_row(int c)
{
	int i;

	for (i = 0; i < N_OPTS; i++)
		if (opt_table[i].sname == c && conf_for_app(&opt_table[i]))
			return i;
	return -1;
}

/* iperf3's directions, as patterns over the server (rank 0) and its
 * client (rank 1). */
#define REVERSE_HINT " (iperf3's -R: --pattern outcast, in which the server sends)"
#define BIDIR_HINT                                                              \
	" (iperf3's --bidir: --pattern permutation, which over a server and its " \
	"client sends both ways)"

static int
unknown_long(const char *arg, char *err, size_t n)
{
	char name[64];
	int i, hits = 0;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	for (i = 0; i < N_OPTS; i++)
		hits += conf_for_app(&opt_table[i]) &&
			strncmp(opt_table[i].lname, name, strlen(name)) == 0;
	return fail(err, n, "option '--%s': %s%s", SHOWN(name),
		    hits > 1 ? "ambiguous abbreviation" : "unknown option",
		    hits > 1                       ? ""
		    : strcmp(name, "reverse") == 0 ? REVERSE_HINT
		    : strcmp(name, "bidir") == 0   ? BIDIR_HINT
						   : "");
}

/* What an iperf3 or perftest habit means here, for an option that failed. */
static const char *
habit_hint(int c, bool missing_value)
{
	switch (c) {
	case 't':
		return " (iperf3's -t is -D/--duration here)";
	case 'P':
		return " (iperf3's -P is -q/--streams here)";
	case 'l':
		return " (iperf3's -l is -s/--size here)";
	case 'u':
		return " (iperf3's option has no meaning here: UET is its own transport)";
	case 'R':
		return REVERSE_HINT;
	case 's':
		return missing_value ? " (-s is the message size, as in perftest; iperf3's -s "
				       "is -S/--server)"
				     : "";
	default:
		return "";
	}
}

static int
cli_apply(struct uet_perf_opts *o, int argc, char **argv, char *err, size_t n)
{
	struct option lo[N_OPTS + 1];
	char shorts[2 * N_OPTS + 4], why[UET_PERF_PATH_MAX + 128];
	int c, i;

	build_getopt(lo, shorts);
	optind = 0; /* glibc: full reinitialisation, so this can run again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == '?') {
			if (optopt >= LONG_VAL)
				return fail(err, n, "option '--%s': takes no value",
					    opt_table[optopt - LONG_VAL].lname);
			if (optopt != 0)
				return fail(err, n, "option '-%c': unknown option%s",
					    isprint(optopt) ? optopt : '?', habit_hint(optopt, false));
			return unknown_long(argv[optind - 1], err, n);
		}
		if (c == ':') {
			i = optopt >= LONG_VAL ? optopt - LONG_VAL : short_row(optopt);
			if (i < 0)
				return fail(err, n, "option '-%c': missing value", optopt);
			return fail(err, n, "option '--%s': missing value (%s)%s",
				    opt_table[i].lname, opt_table[i].meta,
				    optopt < LONG_VAL ? habit_hint(optopt, true) : "");
		}
		i = c >= LONG_VAL ? c - LONG_VAL : short_row(c);
		if (i < 0)
			return fail(err, n, "internal error: getopt returned %d", c);
		if (opt_table[i].type == T_HELP)
			return UET_CONF_HELP;
		if (opt_table[i].type == T_VERSION)
			return UET_CONF_VERSION;
		if (opt_table[i].type == T_PRINT) {
			o->print_config = true;
			continue;
		}
		/* "--client --size 4" must not make "--size" the host. */
		if (optarg != NULL && conf_has_arg(&opt_table[i]) == required_argument &&
		    optarg[0] == '-' && (optarg[1] == '-' || isalpha((unsigned char)optarg[1])))
			return fail(err, n, "option '--%s': missing value ('%s' is an option)",
				    opt_table[i].lname, SHOWN(optarg));
		if (conf_apply(o, i, optarg, UET_CONF_SRC_CLI, 0, NULL, why, sizeof(why)) < 0)
			return fail(err, n, "option '--%s': %s", opt_table[i].lname, why);
	}
	if (optind < argc)
		return fail(err, n, "unexpected argument '%s' (%s takes no "
			    "positional arguments)", SHOWN(argv[optind]), conf_app_name());
	return 0;
}

/* Apply profile settings under every other source; options the running
 * tool lacks (uet-perf has no fabric) are skipped. */
static int
apply_profile(struct uet_perf_opts *o, const char *name, char *err, size_t n)
{
	const struct uet_perf_profile *pr;
	char why[UET_PERF_PATH_MAX + 128], lname[64];
	const char *const *kv;
	int i;

	for (pr = uet_perf_profiles; pr->name != NULL; pr++)
		if (strcmp(pr->name, name) == 0)
			break;
	if (pr->name == NULL)
		return fail(err, n, "option '--profile': unknown profile '%s'", SHOWN(name));
	for (kv = pr->settings; *kv != NULL; kv++) {
		const char *eq = strchr(*kv, '=');

		snprintf(lname, sizeof(lname), "%.*s", (int)(eq - *kv), *kv);
		i = conf_find_long(lname);
		if (i < 0)
			return fail(err, n, "internal error: profile '%s' sets unknown '%s'",
				    name, lname);
		if (!conf_for_app(&opt_table[i]))
			continue;
		if (conf_apply(o, i, eq + 1, UET_CONF_SRC_PROFILE, 0, NULL, why, sizeof(why)) < 0)
			return fail(err, n, "internal error: profile '%s': '--%s': %s", name,
				    lname, why);
	}
	return 0;
}

int
uet_perf_opts_parse(struct uet_perf_opts *o, int argc, char **argv, char *err,
		    size_t errlen)
{
	struct uet_perf_opts *first = malloc(sizeof(*first));
	char profile[UET_PERF_NAME_MAX], config[UET_PERF_PATH_MAX];
	int rc, pi;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (first == NULL)
		return fail(err, errlen, "out of memory");
	/* Pass 1 finds --config and --profile (and reports command-line
	 * errors first); a profile named only in the file is read from it.
	 * Pass 2 applies the profile, the file over it and the command line
	 * on top. */
	uet_perf_opts_default(first);
	rc = cli_apply(first, argc, argv, err, errlen);
	snprintf(config, sizeof(config), "%s", first->config);
	pi = conf_find_long("profile");
	if (rc == 0 && config[0] != '\0' && first->src[pi] != UET_CONF_SRC_CLI) {
		uet_perf_opts_default(first);
		rc = conf_load_ini(first, config, err, errlen);
	}
	snprintf(profile, sizeof(profile), "%s", first->profile);
	free(first);
	uet_perf_opts_default(o);
	if (rc == 0)
		rc = apply_profile(o, profile, err, errlen);
	if (rc == 0 && config[0] != '\0')
		rc = conf_load_ini(o, config, err, errlen);
	if (rc == 0)
		rc = cli_apply(o, argc, argv, err, errlen);
	if (rc == 0)
		rc = conf_finalize(o, err, errlen);
	return rc == 0 && o->print_config ? UET_CONF_PRINT : rc;
}

int
uet_perf_opts_source(const struct uet_perf_opts *o, const char *long_name)
{
	int i = conf_find_long(long_name);

	return i < 0 ? -1 : o->src[i];
}

/* The release and the commit it was built from (git describe, made at
 * build time): two builds of one release differ, and a report says which
 * made it. */
const char *
uet_perf_version(void)
{
	return UET_VERSION " (git " UET_GIT ")";
}
