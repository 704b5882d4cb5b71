/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf options (lib/conf): defaults, every value type from the command
 * line and from INI files, precedence, precise error messages, the example
 * configs, the mapping to uet_ep_config, the hash, and junk input.
 *
 * test_conf --write-doc rewrites the generated part of doc/options.md;
 * UET_CONF_FUZZ_ITERS and UET_CONF_FUZZ_SEED set the junk-INI loop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "uet/prng.h"
#include "conf/conf.h"

#define DOC_BEGIN "<!-- BEGIN GENERATED: test_conf --write-doc -->\n"
#define DOC_END "<!-- END GENERATED -->\n"

static char err[1024];

static const char *
env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v != NULL ? v : def;
}

static const char *
data(const char *name)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", env_or("UET_TEST_DATA", "tests/conf/data"),
		 name);
	return buf[k];
}

static struct uet_perf_opts *
new_opts(void)
{
	struct uet_perf_opts *o = malloc(sizeof(*o));

	assert_non_null(o);
	uet_perf_opts_default(o);
	return o;
}

/* uet_perf_opts_parse with argv = { "uet-perf", args..., NULL }. */
static int
parse_v(struct uet_perf_opts *o, va_list ap)
{
	char *argv[128];
	int argc = 0;
	const char *a;

	argv[argc++] = "uet-perf";
	while ((a = va_arg(ap, const char *)) != NULL) {
		assert_true(argc < 127);
		argv[argc++] = (char *)a;
	}
	argv[argc] = NULL;
	err[0] = '\0';
	return uet_perf_opts_parse(o, argc, argv, err, sizeof(err));
}

static int
parse(struct uet_perf_opts *o, ...)
{
	va_list ap;
	int rc;

	va_start(ap, o);
	rc = parse_v(o, ap);
	va_end(ap);
	return rc;
}

/* The arguments must fail with a message that starts with want. */
static void
cli_fails(const char *want, ...)
{
	struct uet_perf_opts *o = new_opts();
	va_list ap;
	int rc;

	va_start(ap, want);
	rc = parse_v(o, ap);
	va_end(ap);
	if (rc != UET_CONF_EBAD || strncmp(err, want, strlen(want)) != 0)
		fail_msg("rc %d, message \"%s\", wanted \"%s...\"", rc, err, want);
	free(o);
}

static char tmp_path[256];

static const char *
write_tmp(const char *text, size_t len)
{
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "%s/uet-conf-XXXXXX", env_or("TMPDIR", "/tmp"));
	fd = mkstemp(tmp_path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return tmp_path;
}

static const char *
write_str(const char *text)
{
	return write_tmp(text, strlen(text));
}

/* text as an INI file must fail with "TMPFILE:" + want. */
static void
ini_fails(const char *text, const char *want)
{
	struct uet_perf_opts *o = new_opts();
	char full[1024];
	int rc;

	write_str(text);
	rc = uet_perf_opts_load_ini(o, tmp_path, err, sizeof(err));
	snprintf(full, sizeof(full), "%s:%s", tmp_path, want);
	if (rc != UET_CONF_EBAD || strncmp(err, full, strlen(full)) != 0)
		fail_msg("rc %d, message \"%s\", wanted \"%s...\"", rc, err, full);
	unlink(tmp_path);
	free(o);
}

/* ------------------------------------------------------------------ */

static void
test_defaults(void **state)
{
	struct uet_perf_opts *o = new_opts();

	(void)state;
	assert_int_equal(parse(o, NULL), 0);
	assert_int_equal(o->mode, UET_PERF_MODE_NONE);
	assert_false(o->server);
	assert_string_equal(o->client, "");
	assert_string_equal(o->hosts, "");
	assert_int_equal(o->rank, UET_PERF_RANK_UNSET);
	assert_int_equal(o->control_port, 18515);
	assert_int_equal(o->local.n, 0);
	assert_int_equal(o->n_endpoints, 0);
	assert_int_equal(o->n_neighbors, 0);
	assert_string_equal(o->pattern, "pair");
	assert_int_equal(o->size_bytes, 65536);
	assert_int_equal(o->min_bytes, 65536);
	assert_int_equal(o->max_bytes, 65536);
	assert_int_equal(o->step_factor, 2);
	assert_int_equal(o->iters, 10);
	assert_true(o->duration_s == 0);
	assert_int_equal(o->streams, 1);
	assert_int_equal(o->seed, 1);
	assert_int_equal(o->fanin, 0);
	assert_int_equal(o->root, 0);
	assert_int_equal(o->parallel, 8);
	assert_true(o->load == 0.5);
	assert_string_equal(o->cm, "");
	assert_false(o->verify);
	assert_string_equal(o->lb, "reps");
	assert_string_equal(o->cc, "nscc");
	assert_int_equal(o->mtu_bytes, 4096);
	assert_int_equal(o->ev_base, 49152);
	assert_int_equal(o->ev_count, 256);
	assert_int_equal(o->ack_every_bytes, 16384);
	assert_int_equal(o->ack_delay_ns, 5000);
	assert_int_equal(o->rto_ns, 0);
	assert_int_equal(o->rto_min_ns, 0);
	assert_int_equal(o->base_rtt_ns, 10000);
	assert_true(o->link_gbps == 100);
	assert_int_equal(o->window_psns, 1024);
	assert_int_equal(o->dscp_data, 10);
	assert_int_equal(o->dscp_ctrl, 48);
	assert_int_equal(o->dscp_retx, 12);
	assert_int_equal(o->reps_freeze_ns, 0);
	assert_false(o->reps_no_freeze);
	assert_int_equal(o->reps_reuse, 0);
	assert_false(o->ops_permute);
	assert_int_equal(o->flowlet_gap_ns, 0);
	assert_int_equal(o->plb_ce_pct, 50);
	assert_int_equal(o->plb_rounds, 3);
	assert_int_equal(o->nscc_target_ns, 0);
	assert_false(o->nscc_min_rtt_cap);
	assert_int_equal(o->dctcp_g_shift, 4);
	assert_int_equal(o->eqds_spec_bytes, 0);
	assert_true(o->eqds_slow_pulls);
	assert_true(o->interval_s == 1);
	assert_int_equal(o->bin_us, 100);
	assert_string_equal(o->json, "");
	assert_false(o->json_stream);
	assert_string_equal(o->csv, "");
	assert_int_equal(o->verbose, 0);
	assert_int_equal(o->n_fail_ev, 0);
	assert_int_equal(o->n_exec, 0);
	assert_int_equal(uet_perf_opts_source(o, "size"), UET_CONF_SRC_DEFAULT);
	assert_int_equal(uet_perf_opts_source(o, "no-such-option"), -1);
	assert_int_equal(uet_perf_ip_mtu_bytes(o), 4096 + 28 + 56);
	free(o);
}

static void
test_cli_types(void **state)
{
	struct uet_perf_opts *o = new_opts();

	(void)state;
	/* flags, counts, integers with suffixes and hex, doubles, names */
	assert_int_equal(parse(o, "-S", "--verify", "--reps-no-freeze=no", "-vvv", "-s",
			       "4K", "-b", "1k", "-e", "1G", "-f", "4", "-n", "7", "-q", "3",
			       "--seed", "0xff", "--ev-base", "0xC000", "--load", "0.25",
			       "--link-gbps", "12.5", "--lb", "plb", "--cc", "dctcp",
			       "--ack-every", "0", "-J", "-", "--csv", "out/run", NULL),
			 0);
	assert_string_equal(err, "");
	assert_int_equal(o->mode, UET_PERF_MODE_SERVER);
	assert_true(o->server);
	assert_true(o->verify);
	assert_false(o->reps_no_freeze);
	assert_int_equal(o->verbose, 3);
	assert_int_equal(o->size_bytes, 4096);
	assert_int_equal(o->min_bytes, 1024);
	assert_int_equal(o->max_bytes, 1ULL << 30);
	assert_int_equal(o->step_factor, 4);
	assert_int_equal(o->iters, 7);
	assert_int_equal(o->streams, 3);
	assert_int_equal(o->seed, 255);
	assert_int_equal(o->ev_base, 0xc000);
	assert_true(o->load == 0.25);
	assert_true(o->link_gbps == 12.5);
	assert_string_equal(o->lb, "plb");
	assert_string_equal(o->cc, "dctcp");
	assert_int_equal(o->ack_every_bytes, 0);
	assert_string_equal(o->json, "-");
	assert_string_equal(o->csv, "out/run");
	assert_int_equal(uet_perf_opts_source(o, "size"), UET_CONF_SRC_CLI);
	assert_int_equal(uet_perf_opts_source(o, "iters"), UET_CONF_SRC_CLI);
	assert_int_equal(uet_perf_opts_source(o, "streams"), UET_CONF_SRC_CLI);
	assert_int_equal(uet_perf_opts_source(o, "duration"), UET_CONF_SRC_DEFAULT);

	/* --name=value, abbreviations, --verbose=N, duration */
	assert_int_equal(parse(o, "--client=host-a.example", "--siz=2M", "--verbose=5",
			       "-D", "1.5", "--interval", "0", "--window-psns", "16384", NULL),
			 0);
	assert_int_equal(o->mode, UET_PERF_MODE_CLIENT);
	assert_string_equal(o->client, "host-a.example");
	assert_int_equal(o->size_bytes, 2 << 20);
	assert_int_equal(o->min_bytes, 2 << 20);
	assert_int_equal(o->verbose, 5);
	assert_true(o->duration_s == 1.5);
	assert_true(o->interval_s == 0);
	assert_int_equal(o->window_psns, 16384);

	/* hosts mode, sets, repeatables */
	assert_int_equal(parse(o, "--hosts", data("hosts4.ini"), "--local", "0-1,3",
			       "--neighbor", "ip=10.0.0.9,mac=AA:bb:cc:dd:ee:0f", "--neighbor",
			       "mac=02:00:00:00:00:02, ip=10.0.0.8", "--fail-ev-at",
			       "2.5:49152-49183,49200", "--fail-ev-at", "0.000000001:49153",
			       "--exec-at", "3:ip link set dev eth1 down; sleep 1", NULL),
			 0);
	assert_int_equal(o->mode, UET_PERF_MODE_HOSTS);
	assert_string_equal(o->hosts, data("hosts4.ini"));
	assert_int_equal(o->local.n, 2);
	assert_int_equal(o->local.r[0].lo, 0);
	assert_int_equal(o->local.r[0].hi, 1);
	assert_int_equal(o->local.r[1].lo, 3);
	assert_int_equal(uet_perf_set_count(&o->local), 3);
	assert_true(uet_perf_set_has(&o->local, 3));
	assert_false(uet_perf_set_has(&o->local, 2));
	assert_int_equal(o->n_neighbors, 2);
	assert_int_equal(o->neighbors[0].ip, 0x0a000009);
	assert_memory_equal(o->neighbors[0].mac, "\xaa\xbb\xcc\xdd\xee\x0f", 6);
	assert_int_equal(o->neighbors[1].ip, 0x0a000008);
	assert_int_equal(o->n_fail_ev, 2);
	assert_int_equal(o->fail_ev[0].at_ns, 2500000000ULL);
	assert_int_equal(o->fail_ev[0].evs.n, 2);
	assert_int_equal(o->fail_ev[0].evs.r[0].lo, 49152);
	assert_int_equal(o->fail_ev[0].evs.r[0].hi, 49183);
	assert_int_equal(o->fail_ev[0].evs.r[1].lo, 49200);
	assert_int_equal(o->fail_ev[0].evs.r[1].hi, 49200);
	assert_int_equal(o->fail_ev[1].at_ns, 1);
	assert_int_equal(o->n_exec, 1);
	assert_int_equal(o->exec[0].at_ns, 3000000000ULL);
	assert_string_equal(o->exec[0].cmd, "ip link set dev eth1 down; sleep 1");

	/* local mode: several endpoints in this process */
	assert_int_equal(parse(o, "--endpoint", "ip=10.0.0.1,port=1,queue=2,mac=02:00:00:00:00:01",
			       "--endpoint", "ip=10.0.0.2", "--rank", "0", NULL),
			 UET_CONF_EBAD);
	assert_string_equal(err, "option '--rank': needs --hosts");
	assert_int_equal(parse(o, "--endpoint", "ip=10.0.0.1,port=1,queue=2,mac=02:00:00:00:00:01",
			       "--endpoint", "ip=10.0.0.2", NULL),
			 0);
	assert_int_equal(o->mode, UET_PERF_MODE_LOCAL);
	assert_int_equal(o->n_endpoints, 2);
	assert_int_equal(o->endpoints[0].ip, 0x0a000001);
	assert_int_equal(o->endpoints[0].port, 1);
	assert_int_equal(o->endpoints[0].queue, 2);
	assert_true(o->endpoints[0].has_mac);
	assert_memory_equal(o->endpoints[0].mac, "\x02\0\0\0\0\x01", 6);
	assert_false(o->endpoints[1].has_mac);

	/* help and version win wherever they stand, before any file is read */
	assert_int_equal(parse(o, "-s", "1K", "--help", "--config", "/nonexistent", NULL),
			 UET_CONF_HELP);
	assert_int_equal(parse(o, "-V", NULL), UET_CONF_VERSION);
	/* the release and the commit built ('unknown' outside a git tree) */
	assert_int_equal(strncmp(uet_perf_version(), "0.1.0 (git ", 11), 0);
	assert_int_equal(uet_perf_version()[strlen(uet_perf_version()) - 1], ')');
	free(o);
}

/* --print-config: every source applied, then the whole configuration as
 * text (defaults commented out) that --config reads back to the same
 * options. */
static void
test_print_config(void **state)
{
	struct uet_perf_opts *o = new_opts(), *b = new_opts();
	char *text, ta[4096], tb[4096];
	const char *path;

	(void)state;
	assert_int_equal(parse(o, "--endpoint", "ip=1.2.3.4", "--endpoint", "ip=1.2.3.5", "--lb",
			       "reps", "-D", "2ms", "--print-config", NULL),
			 UET_CONF_PRINT);
	text = uet_perf_opts_effective_text(o);
	assert_non_null(text);
	assert_non_null(strstr(text, "\nlb = reps\n"));
	assert_non_null(strstr(text, "\n; cc = nscc  (default)\n"));
	assert_non_null(strstr(text, "\nduration_s = 0.002\n"));
	path = write_tmp(text, strlen(text));
	assert_int_equal(parse(b, "--config", path, NULL), 0);
	unlink(path);
	(void)uet_perf_opts_sym_text(o, ta, sizeof(ta));
	(void)uet_perf_opts_sym_text(b, tb, sizeof(tb));
	assert_string_equal(ta, tb);
	assert_int_equal(b->n_endpoints, 2);
	free(text);
	free(o);
	free(b);
}

static void
test_ini_types(void **state)
{
	struct uet_perf_opts *o = new_opts();

	(void)state;
	assert_int_equal(uet_perf_opts_load_ini(o, data("all.ini"), err, sizeof(err)), 0);
	assert_int_equal(o->mode, UET_PERF_MODE_HOSTS);
	/* relative input paths are relative to the INI file */
	assert_string_equal(o->hosts, data("hosts4.ini"));
	assert_int_equal(o->local.n, 2);
	assert_int_equal(o->local.r[1].lo, 3);
	assert_int_equal(o->control_port, 20000);
	assert_string_equal(o->pattern, "incast");
	assert_int_equal(o->size_bytes, 2 << 20);
	assert_int_equal(o->min_bytes, 2 << 20); /* unset: --size */
	assert_int_equal(o->max_bytes, 8 << 20);
	assert_int_equal(o->step_factor, 4);
	assert_true(o->duration_s == 2.5);
	assert_int_equal(o->iters, 10);
	assert_int_equal(o->streams, 3);
	assert_int_equal(o->seed, 16);
	assert_int_equal(o->fanin, 2);
	assert_int_equal(o->root, 1);
	assert_int_equal(o->parallel, 32);
	assert_true(o->load == 0.75);
	assert_true(o->verify);
	assert_string_equal(o->lb, "plb");
	assert_string_equal(o->cc, "dctcp");
	assert_int_equal(o->mtu_bytes, 8192);
	assert_int_equal(o->ev_base, 50000);
	assert_int_equal(o->ev_count, 64);
	assert_int_equal(o->ack_every_bytes, 0);
	assert_int_equal(o->ack_delay_ns, 1000);
	assert_int_equal(o->rto_ns, 200000);
	assert_int_equal(o->rto_min_ns, 50000);
	assert_int_equal(o->base_rtt_ns, 5000);
	assert_true(o->link_gbps == 400);
	assert_int_equal(o->window_psns, 2048);
	assert_int_equal(o->dscp_data, 1);
	assert_int_equal(o->dscp_ctrl, 2);
	assert_int_equal(o->dscp_retx, 3);
	assert_int_equal(o->reps_freeze_ns, 2000000);
	assert_true(o->reps_no_freeze);
	assert_int_equal(o->reps_reuse, 4);
	assert_true(o->ops_permute);
	assert_int_equal(o->flowlet_gap_ns, 3000);
	assert_int_equal(o->plb_ce_pct, 30);
	assert_int_equal(o->plb_rounds, 5);
	assert_int_equal(o->nscc_target_ns, 4000);
	assert_int_equal(o->dctcp_g_shift, 6);
	assert_int_equal(o->eqds_spec_bytes, 32768);
	assert_false(o->eqds_slow_pulls);
	assert_true(o->interval_s == 0.5);
	assert_int_equal(o->bin_us, 250);
	assert_string_equal(o->json, "out;1.json"); /* quoted: ';' is no comment */
	assert_true(o->json_stream);
	assert_string_equal(o->csv, "run1");
	assert_int_equal(o->verbose, 2);
	assert_int_equal(o->n_fail_ev, 2);
	assert_int_equal(o->fail_ev[0].at_ns, 1250000000ULL);
	assert_int_equal(o->fail_ev[0].evs.n, 2);
	assert_int_equal(o->fail_ev[1].evs.r[0].lo, 50020);
	assert_int_equal(o->n_exec, 1);
	assert_string_equal(o->exec[0].cmd, "echo \"hi\"");
	assert_int_equal(uet_perf_opts_source(o, "size"), UET_CONF_SRC_INI);
	free(o);

	/* endpoints, a continuation line, neighbor with a free suffix */
	o = new_opts();
	assert_int_equal(uet_perf_opts_load_ini(o, data("local.ini"), err, sizeof(err)), 0);
	assert_int_equal(o->mode, UET_PERF_MODE_LOCAL);
	assert_int_equal(o->n_endpoints, 3);
	assert_int_equal(o->endpoints[1].queue, 1);
	assert_int_equal(o->endpoints[2].port, 1);
	assert_int_equal(o->endpoints[2].ip, 0x0a000003);
	assert_int_equal(o->n_neighbors, 1);
	assert_int_equal(o->iters, 50);
	free(o);
}

static void
test_cli_overrides_ini(void **state)
{
	struct uet_perf_opts *o = new_opts();

	(void)state;
	/* --config wherever it stands; the command line wins */
	assert_int_equal(parse(o, "-s", "1K", "--lb", "ops", "--fail-ev-at", "1:50001",
			       "--config", data("all.ini"), "--verbose=0", NULL),
			 0);
	assert_int_equal(o->size_bytes, 1024);
	assert_int_equal(o->min_bytes, 1024);
	assert_int_equal(o->max_bytes, 8 << 20);   /* from the file */
	assert_string_equal(o->lb, "ops");
	assert_string_equal(o->cc, "dctcp");         /* from the file */
	assert_int_equal(o->verbose, 0);
	assert_int_equal(o->n_fail_ev, 1);           /* the list is replaced */
	assert_int_equal(o->fail_ev[0].evs.r[0].lo, 50001);
	assert_int_equal(o->n_exec, 1);              /* kept */
	assert_int_equal(uet_perf_opts_source(o, "size"), UET_CONF_SRC_CLI);
	assert_int_equal(uet_perf_opts_source(o, "cc"), UET_CONF_SRC_INI);
	assert_string_equal(o->config, data("all.ini"));

	/* exclusive options across sources: the command line's wins */
	assert_int_equal(parse(o, "--config", data("all.ini"), "-n", "99", NULL), 0);
	assert_int_equal(o->iters, 99);
	assert_true(o->duration_s == 0);
	assert_int_equal(uet_perf_opts_source(o, "duration"), UET_CONF_SRC_DEFAULT);
	assert_int_equal(parse(o, "--config", data("all.ini"), "--local", "2", NULL), 0);
	assert_int_equal(o->local.n, 1);
	assert_int_equal(parse(o, "--config", data("local.ini"), "-D", "3", NULL), 0);
	assert_int_equal(o->iters, 10);
	assert_true(o->duration_s == 3);
	/* an INI hosts run turned into a pairwise client: --local then has no
	 * --hosts */
	{
		char want[600];

		snprintf(want, sizeof(want), "%s:4: key 'mode.local': needs --hosts",
			 data("all.ini"));
		assert_int_equal(uet_perf_opts_parse(o, 5,
			(char *[]){ "uet-perf", "--config", (char *)data("all.ini"), "-S",
				    "--local=0", NULL }, err, sizeof(err)), UET_CONF_EBAD);
		assert_string_equal(err, "option '--local': needs --hosts");
		assert_int_equal(parse(o, "--config", data("all.ini"), "-S", NULL),
				 UET_CONF_EBAD);
		assert_string_equal(err, want);
		assert_int_equal(parse(o, "--config", data("all.ini"), "-c", "10.1.1.1", NULL),
				 UET_CONF_EBAD);
		assert_string_equal(err, want);
	}
	free(o);
}

static void
test_examples(void **state)
{
	static const char *const files[] = { "pair.ini", "permutation.ini", "incast.ini",
					     "allreduce.ini", "hosts.ini" };
	struct uet_perf_opts *o;
	struct uet_perf_hosts *h = malloc(sizeof(*h));
	struct uet_perf_algo_cfg algo;
	struct uet_ep_config c;
	char path[512];
	size_t i;

	(void)state;
	assert_non_null(h);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/config/%s", env_or("UET_SOURCE_ROOT", "."),
			 files[i]);
		o = new_opts();
		if (uet_perf_opts_load_ini(o, path, err, sizeof(err)) != 0)
			fail_msg("%s: %s", path, err);
		assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &algo, err, sizeof(err)), 0);
		if (o->mode == UET_PERF_MODE_HOSTS) {
			assert_int_equal(uet_perf_hosts_load(h, o->hosts, err, sizeof(err)), 0);
			assert_int_equal(h->n, 4);
			assert_int_equal(uet_perf_opts_check_hosts(o, h, err, sizeof(err)), 0);
		}
		/* and through --config */
		assert_int_equal(parse(o, "--config", path, NULL), 0);
		free(o);
	}
	o = new_opts();
	snprintf(path, sizeof(path), "%s/config/hosts.ini", env_or("UET_SOURCE_ROOT", "."));
	assert_int_equal(uet_perf_opts_load_ini(o, path, err, sizeof(err)), 0);
	assert_int_equal(o->mode, UET_PERF_MODE_HOSTS);  /* its own [hosts] */
	assert_string_equal(o->hosts, path);
	assert_string_equal(o->pattern, "alltoall");
	snprintf(path, sizeof(path), "%s/config/pair.ini", env_or("UET_SOURCE_ROOT", "."));
	assert_int_equal(parse(o, "--config", path, "--server", NULL), 0);
	assert_int_equal(o->mode, UET_PERF_MODE_SERVER);
	assert_true(o->verify);
	assert_int_equal(o->n_neighbors, 2);
	free(o);
	free(h);
}

static void
test_cli_errors(void **state)
{
	(void)state;
	/* unknown, ambiguous, positional */
	cli_fails("option '--bogus': unknown option", "--bogus", NULL);
	cli_fails("option '--bogus': unknown option", "--bogus=1", NULL);
	cli_fails("option '-x': unknown option", "-x", NULL);
	cli_fails("option '--re': ambiguous abbreviation", "--re", "1", NULL);
	cli_fails("option '--help': takes no value", "--help=yes", NULL);
	cli_fails("unexpected argument 'extra'", "-s", "1K", "extra", NULL);
	cli_fails("unexpected argument 'x'", "--", "x", NULL);
	/* missing values */
	cli_fails("option '--size': missing value (BYTES)", "--size", NULL);
	cli_fails("option '--size': missing value (BYTES)", "-s", NULL);
	cli_fails("option '--size': missing value", "--size=", NULL);
	cli_fails("option '--client': missing value ('--size' is an option)", "--client",
		  "--size", "1", NULL);
	cli_fails("option '--json': missing value ('-v' is an option)", "-J", "-v", NULL);
	/* bad numbers, suffixes, ranges */
	cli_fails("option '--iters': 'abc' is not a number", "-n", "abc", NULL);
	cli_fails("option '--iters': '-5' is negative", "-n", "-5", NULL);
	cli_fails("option '--iters': '10k' has a suffix 'k'; this option takes a plain integer",
		  "-n", "10k", NULL);
	cli_fails("option '--iters': '1.5' is not an integer", "-n", "1.5", NULL);
	cli_fails("option '--iters': 0 is out of range 1..4294967295", "-n", "0", NULL);
	cli_fails("option '--seed': '99999999999999999999' is too large", "--seed",
		  "99999999999999999999", NULL);
	cli_fails("option '--size': '4KB' has a bad suffix 'KB'", "-s", "4KB", NULL);
	cli_fails("option '--size': '4X' has a bad suffix 'X'", "-s", "4X", NULL);
	cli_fails("option '--size': '1.5M' is not an integer number of bytes", "-s", "1.5M",
		  NULL);
	cli_fails("option '--size': 4398046511104 is out of range 0..4294967295", "-s", "4T",
		  NULL);
	cli_fails("option '--size': '99999999T' is too large", "-s", "99999999T", NULL);
	cli_fails("option '--mtu': 8917 is out of range 1..8916", "--mtu", "8917", NULL);
	cli_fails("option '--window-psns': 1000 is not a power of two", "--window-psns",
		  "1000", NULL);
	cli_fails("option '--load': 1.5 is out of range 0..1", "--load", "1.5", NULL);
	/* 0 is "size it yourself", below the range of the sizes one may ask for */
	cli_fails("option '--mbufs': 100 is out of range 512..16777216 (or 0, automatic)",
		  "--mbufs", "100", NULL);
	cli_fails("option '--txd': 40000 is out of range 32..32768 (or 0, automatic)", "--txd",
		  "40000", NULL);
	{
		struct uet_perf_opts *a = new_opts();

		assert_int_equal(parse(a, "--mbufs", "0", "--rxd", "4096", "--txd", "32", NULL), 0);
		assert_int_equal(a->mbufs, 0);
		assert_int_equal(a->rxd, 4096);
		assert_int_equal(a->txd, 32);
		free(a);
		a = new_opts();
		assert_int_equal(parse(a, "--mbufs", "8192", NULL), 0);
		assert_int_equal(a->mbufs, 8192);
		assert_int_equal(a->rxd, 0);
		free(a);
	}
	cli_fails("option '--load': 'inf' is not a number", "--load", "inf", NULL);
	cli_fails("option '--load': '0x1p-2' is not a number", "--load", "0x1p-2", NULL);
	cli_fails("option '--duration': 0 is out of range 1e-06..604800", "-D", "0", NULL);
	cli_fails("option '--verify': 'maybe' is not a boolean", "--verify=maybe", NULL);
	cli_fails("option '--verbose': given more than 9 times", "-vvvvvvvvvv", NULL);
	cli_fails("option '--lb': unknown load balancer 'rr' (one of: ecmp, ops, bitmap, reps, "
		  "flowlet, plb, strack, mprdma, mptcp, ar)", "--lb", "rr", NULL);
	cli_fails("option '--cc': unknown congestion controller 'reno'", "--cc", "reno", NULL);
	cli_fails("option '--lb': 'ar' is adaptive routing in the switches", "--lb", "ar", NULL);
	{
		/* What every host must agree on, by name (uet-perf names a
		 * mismatch with it): the hashed options only. */
		struct uet_perf_opts *a = new_opts();
		char txt[8192];

		assert_int_equal(parse(a, "--lb", "ops", "-s", "8K", "-J", "x.json", NULL), 0);
		assert_true(uet_perf_opts_sym_text(a, txt, sizeof(txt)) < sizeof(txt));
		assert_non_null(strstr(txt, "lb=ops\n"));
		assert_non_null(strstr(txt, "size=8192\n"));
		assert_null(strstr(txt, "json="));
		/* A short buffer: the length it needs, the text cut to fit. */
		assert_int_equal(uet_perf_opts_sym_text(a, txt, 8),
				 uet_perf_opts_sym_text(a, NULL, 0));
		assert_int_equal(strlen(txt), 7);
		free(a);
	}
	/* iperf3 habits get a hint. */
	cli_fails("option '-t': unknown option (iperf3's -t is -D/--duration here)", "-t", "10",
		  NULL);
	cli_fails("option '-P': unknown option (iperf3's -P is -q/--streams here)", "-P", "4",
		  NULL);
	cli_fails("option '--size': missing value (BYTES) (-s is the message size, as in "
		  "perftest; iperf3's -s is -S/--server)", "-s", NULL);
	cli_fails("option '-R': unknown option (iperf3's -R: --pattern outcast, in which the "
		  "server sends)", "-R", NULL);
	cli_fails("option '--reverse': unknown option (iperf3's -R: --pattern outcast",
		  "--reverse", NULL);
	cli_fails("option '--bidir': unknown option (iperf3's --bidir: --pattern permutation, "
		  "which over a server and its client sends both ways)", "--bidir", NULL);
	cli_fails("option '-u': unknown option (iperf3's option has no meaning here", "-u", NULL);
	{
		struct uet_perf_opts *a = new_opts();

		/* perftest's -a: every power of two from 2 B to 8 MiB; -e narrows. */
		assert_int_equal(parse(a, "-a", NULL), 0);
		assert_int_equal(a->min_bytes, 2);
		assert_int_equal(a->max_bytes, 8 << 20);
		assert_int_equal(parse(a, "-a", "-e", "64K", NULL), 0);
		assert_int_equal(a->min_bytes, 2);
		assert_int_equal(a->max_bytes, 65536);
		free(a);
	}
	cli_fails("option '--pattern': unknown pattern 'ring'", "--pattern", "ring", NULL);
	cli_fails("option '--client': 'a b' is not a host name", "-c", "a b", NULL);
	cli_fails("option '--json': 'a\?b' contains a control character", "-J", "a\nb", NULL);
	/* sets and T:SET, T:CMD */
	cli_fails("option '--fail-ev-at': EV set: 0 is outside 1..65535", "--fail-ev-at",
		  "1:0-3", NULL);
	cli_fails("option '--fail-ev-at': EV set: 65536 is outside 1..65535", "--fail-ev-at",
		  "1:65530-65536", NULL);
	cli_fails("option '--fail-ev-at': EV set: range 49160-49152 is backwards",
		  "--fail-ev-at", "1:49160-49152", NULL);
	cli_fails("option '--fail-ev-at': EV set: 49155-49156 overlaps 49152-49160",
		  "--fail-ev-at", "1:49152-49160,49155-49156", NULL);
	cli_fails("option '--fail-ev-at': EV set: '49152,,49153' has an empty item",
		  "--fail-ev-at", "1:49152,,49153", NULL);
	cli_fails("option '--fail-ev-at': EV set: 'x' is not a number", "--fail-ev-at",
		  "1:49152,x", NULL);
	cli_fails("option '--fail-ev-at': '49152' is not T:SET", "--fail-ev-at", "49152",
		  NULL);
	cli_fails("option '--fail-ev-at': '1.x' is not a time (a number with ns, us, ms or s; bare: seconds)",
		  "--fail-ev-at", "1.x:49152", NULL);
	cli_fails("option '--fail-ev-at': '-1' is not a time", "--fail-ev-at=-1:49152",
		  NULL);
	cli_fails("option '--fail-ev-at': '2:' has no SET after the ':'", "--fail-ev-at",
		  "2:", NULL);
	cli_fails("option '--fail-ev-at': EVs 49152-49152 of entry 1 are outside the EV set "
		  "50000..50255", "--ev-base", "50000", "--fail-ev-at", "1:49152", NULL);
	cli_fails("option '--exec-at': time '1.0000000001' is finer than a nanosecond",
		  "--exec-at", "1.0000000001:ls", NULL);
	cli_fails("option '--exec-at': '3:  ' has an empty command", "--exec-at", "3:  ",
		  NULL);
	cli_fails("option '--local': 1024 is outside 0..1023", "--hosts", "h", "--local",
		  "0-1024", NULL);
	cli_fails("option '--clients': needs --server", "--client", "1.2.3.4", "--endpoint",
		  "ip=1.2.3.4", "--clients", "3", NULL);
	cli_fails("option '--bind': needs --server", "--client", "1.2.3.4", "--endpoint",
		  "ip=1.2.3.4", "--bind", "1.2.3.4", NULL);
	cli_fails("option '--bind': 'eth0' is not an IPv4 address", "--server", "--endpoint",
		  "ip=1.2.3.4", "--bind", "eth0", NULL);
	cli_fails("option '--duration': pattern 'ring-allreduce' runs a fixed number of "
		  "iterations", "--endpoint", "ip=1.2.3.4", "--endpoint", "ip=1.2.3.5",
		  "--pattern", "ring-allreduce", "--duration", "2", NULL);
	{
		/* A ping-pong for a duration (perftest's -D) is a run. */
		struct uet_perf_opts *o = new_opts();

		assert_int_equal(parse(o, "--endpoint", "ip=1.2.3.4", "--endpoint", "ip=1.2.3.5",
				       "--pattern", "pingpong", "-D", "1", NULL),
				 0);
		assert_true(o->duration_s == 1.0);
		free(o);
	}
	{
		/* iperf3 -O: a warm-up before a duration run, in whole intervals. */
		struct uet_perf_opts *o = new_opts();
		uint64_t bin_ns, interval_ns, omit_ns;

		assert_int_equal(parse(o, "--endpoint", "ip=1.2.3.4", "--endpoint", "ip=1.2.3.5",
				       "-D", "2", "-O", "0.6", "-i", "0.3", NULL),
				 0);
		uet_perf_opts_times_ns(o, &bin_ns, &interval_ns, &omit_ns);
		assert_int_equal(bin_ns, 100000);
		assert_int_equal(interval_ns, 300000000);
		assert_int_equal(omit_ns, 600000000);
		free(o);
	}
	cli_fails("option '--omit': a warm-up comes before a run of a set length: needs "
		  "--duration", "--endpoint", "ip=1.2.3.4", "--endpoint", "ip=1.2.3.5", "-O", "1",
		  NULL);
	cli_fails("option '--omit': pattern 'websearch' draws its flows over the duration",
		  "--endpoint", "ip=1.2.3.4", "--endpoint", "ip=1.2.3.5", "--pattern", "websearch",
		  "-D", "1", "-O", "1", NULL);
	cli_fails("option '--omit': 0.5 s is not a whole number of intervals (--interval 1 s)",
		  "--endpoint", "ip=1.2.3.4", "--endpoint", "ip=1.2.3.5", "-D", "1", "-O", "0.5",
		  NULL);
	cli_fails("option '--omit': 5e-05 s is not a whole number of timeline bins (--bin-us 100)",
		  "--endpoint", "ip=1.2.3.4", "--endpoint", "ip=1.2.3.5", "-D", "1", "-O",
		  "0.00005", "-i", "0", NULL);
	cli_fails("option '--rate-gbps': pattern 'ring-allreduce' sets its own pace",
		  "--endpoint", "ip=1.2.3.4", "--endpoint", "ip=1.2.3.5", "--pattern",
		  "ring-allreduce", "--rate-gbps", "10", NULL);
	cli_fails("option '--rate-gbps': pattern 'pingpong' sets its own pace", "--endpoint",
		  "ip=1.2.3.4", "--endpoint", "ip=1.2.3.5", "--pattern", "pingpong",
		  "--rate-gbps", "10", NULL);
	cli_fails("option '--rate-gbps': -2 is out of range", "--endpoint", "ip=1.2.3.4",
		  "--rate-gbps", "-2", NULL);
	cli_fails("option '--clients': a ping-pong runs between the server and one client, "
		  "not 2", "--server", "--endpoint", "ip=1.2.3.4", "--clients", "2", "--pattern",
		  "pingpong", NULL);
	/* endpoint and neighbor specs */
	cli_fails("option '--endpoint': missing field 'ip'", "--endpoint", "port=1", NULL);
	cli_fails("option '--endpoint': unknown field 'control' (one of: ip, mac, port, queue, gw)",
		  "--endpoint", "ip=1.2.3.4,control=1.2.3.5", NULL);
	cli_fails("option '--endpoint': field 'ip' given twice", "--endpoint",
		  "ip=1.2.3.4,ip=1.2.3.5", NULL);
	cli_fails("option '--endpoint': '1.2.3' is not an IPv4 address", "--endpoint",
		  "ip=1.2.3", NULL);
	cli_fails("option '--endpoint': port 70000 is outside 0..65535", "--endpoint",
		  "ip=1.2.3.4,port=70000", NULL);
	cli_fails("option '--endpoint': 'queue' is not key=value", "--endpoint",
		  "ip=1.2.3.4,queue", NULL);
	cli_fails("option '--neighbor': '02:00:00:00:00' is not a MAC address", "--neighbor",
		  "ip=1.2.3.4,mac=02:00:00:00:00", NULL);
	cli_fails("option '--neighbor': missing field 'mac'", "--neighbor", "ip=1.2.3.4",
		  NULL);
	cli_fails("option '--endpoint': endpoints 1 and 2 have the same ip", "--endpoint",
		  "ip=1.2.3.4", "--endpoint", "ip=1.2.3.4,port=1", NULL);
	/* conflicting and cross-option */
	cli_fails("option '--client': excludes '--server'", "-S", "-c", "h", NULL);
	cli_fails("option '--hosts': excludes '--server'", "--hosts", "h", "--server", NULL);
	cli_fails("option '--hosts': excludes '--client'", "--hosts", "h", "-c", "h", NULL);
	cli_fails("option '--duration': excludes '--iters'", "-D", "1", "-n", "5", NULL);
	cli_fails("option '--rank': needs --hosts", "--rank", "2", NULL);
	cli_fails("option '--rank': excludes '--local'", "--hosts", "h", "--rank", "1",
		  "--local", "1", NULL);
	cli_fails("option '--endpoint': the hosts list gives the endpoints", "--hosts", "h",
		  "--endpoint", "ip=1.1.1.1", NULL);
	cli_fails("option '--min-bytes': the sweep goes from 2048 down to 1024 bytes",
		  "-b", "2K", "-e", "1K", NULL);
	cli_fails("option '--min-bytes': the sweep goes from 131072 down to 65536", "-b",
		  "128K", NULL);
	cli_fails("option '--pattern': pattern 'cm' needs --cm FILE", "--pattern", "cm", NULL);
	cli_fails("option '--cm': a connection matrix needs --pattern cm", "--cm", "x.cm",
		  NULL);
	cli_fails("option '--ev-count': EVs 65000..65999 go past 65535", "--ev-base", "65000",
		  "--ev-count", "1000", NULL);
	/* a missing --config file */
	cli_fails("/nonexistent/x.ini: cannot open: No such file or directory", "--config",
		  "/nonexistent/x.ini", NULL);
}

/* One more than the limit of a repeatable option: an error. */
static void
too_many(const char *opt, const char *fmt, uint32_t limit)
{
	struct uet_perf_opts *o = new_opts();
	char **argv = calloc(2 * limit + 4, sizeof(char *));
	char (*vals)[64] = calloc(limit + 1, sizeof(*vals));
	char want[96];
	int argc = 0;
	uint32_t k;

	assert_non_null(argv);
	assert_non_null(vals);
	argv[argc++] = "uet-perf";
	for (k = 0; k <= limit; k++) {
		snprintf(vals[k], sizeof(vals[k]), fmt, (k + 1) / 256, (k + 1) % 256);
		argv[argc++] = (char *)opt;
		argv[argc++] = vals[k];
	}
	if (uet_perf_opts_parse(o, argc - 2, argv, err, sizeof(err)) != 0)
		fail_msg("%s: %s", opt, err);
	assert_int_equal(uet_perf_opts_parse(o, argc, argv, err, sizeof(err)), UET_CONF_EBAD);
	snprintf(want, sizeof(want), "option '%s': more than %u given", opt, limit);
	assert_string_equal(err, want);
	free(vals);
	free(argv);
	free(o);
}

static void
test_too_many(void **state)
{
	(void)state;
	too_many("--exec-at", "%u.%03u:true", UET_PERF_MAX_EXEC);
	too_many("--endpoint", "ip=10.0.%u.%u", UET_PERF_MAX_ENDPOINTS);
	too_many("--neighbor", "ip=10.0.%u.%u,mac=02:00:00:00:00:01", UET_PERF_MAX_NEIGHBORS);
	too_many("--fail-ev-at", "%u.%03u:49152", UET_PERF_MAX_FAIL_EV);
}

static void
test_ini_errors(void **state)
{
	char big[1200];

	(void)state;
	/* fixtures: the line and the key */
	{
		struct uet_perf_opts *o = new_opts();
		char want[700];

		assert_int_equal(uet_perf_opts_load_ini(o, data("unknown_key.ini"), err,
							sizeof(err)), UET_CONF_EBAD);
		snprintf(want, sizeof(want), "%s:7: key 'transport.mtu': unknown key (did you "
			 "mean 'transport.mtu_bytes'?)", data("unknown_key.ini"));
		assert_string_equal(err, want);
		assert_int_equal(uet_perf_opts_load_ini(o, data("bad_value.ini"), err,
							sizeof(err)), UET_CONF_EBAD);
		snprintf(want, sizeof(want), "%s:3: key 'workload.size_bytes': '12Q' has a bad "
			 "suffix 'Q' (K, M, G or T = 2^10, 2^20, 2^30, 2^40)", data("bad_value.ini"));
		assert_string_equal(err, want);
		/* through --config, with the same message */
		assert_int_equal(parse(o, "-s", "1K", "--config", data("bad_value.ini"), NULL),
				 UET_CONF_EBAD);
		assert_string_equal(err, want);
		free(o);
	}
	ini_fails("[workload]\n\n; c\n# c\nsize = 4\n",
		  "5: key 'workload.size': unknown key (did you mean 'workload.size_bytes'?)");
	ini_fails("[workload]\nlb = ops\n",
		  "2: key 'workload.lb': unknown key (did you mean 'transport.lb'?)");
	ini_fails("[workload]\nbogus = 1\n", "2: key 'workload.bogus': unknown key");
	ini_fails("[Workload]\n  ITERS = 0\n",
		  "2: key 'workload.iters': 0 is out of range 1..4294967295");
	ini_fails("[nope]\nx = 1\n", "2: key 'nope.x': unknown section [nope]");
	ini_fails("[transport]\nmbufs = 511\n",
		  "2: key 'transport.mbufs': 511 is out of range 512..16777216 (or 0, automatic)");
	ini_fails("[workload]\niters = abc\n", "2: key 'workload.iters': 'abc' is not a number");
	ini_fails("[workload]\niters =\n", "2: key 'workload.iters': missing value");
	ini_fails("[workload]\niters = ; comment\n", "2: key 'workload.iters': missing value");
	ini_fails("[transport]\nmtu_bytes = 4KiB\n",
		  "2: key 'transport.mtu_bytes': '4KiB' has a bad suffix 'KiB'");
	ini_fails("[transport]\nlb = rr\n", "2: key 'transport.lb': unknown load balancer 'rr'");
	ini_fails("[output]\njson_stream = 2\n",
		  "2: key 'output.json_stream': '2' is not a boolean");
	ini_fails("[schedule]\nfail_ev_at = 1:49152-49160,49150-49152\n",
		  "2: key 'schedule.fail_ev_at': EV set: 49150-49152 overlaps 49152-49160");
	ini_fails("[schedule]\nfail_ev_at.1 = 49152\n",
		  "2: key 'schedule.fail_ev_at.1': '49152' is not T:SET");
	ini_fails("[schedule]\nfail_ev_at.1 = x:1\n",
		  "2: key 'schedule.fail_ev_at.1': 'x' is not a time");
	ini_fails("[schedule]\nfail_ev_at. = 1:49152\n",
		  "2: key 'schedule.fail_ev_at.': unknown key");
	ini_fails("[mode]\nendpoint.1 = ip=10.0.0.1\nendpoint.2 = port=1\n",
		  "3: key 'mode.endpoint.2': missing field 'ip'");
	/* syntax, duplicates, continuation lines */
	ini_fails("[workload]\niters\n", "2: syntax error: 'iters' is neither '[section]' nor");
	ini_fails("[workload]\n= 5\n", "2: syntax error: '= 5' is neither");
	ini_fails("[workload\niters = 1\n", "1: syntax error: '[workload' is neither");
	ini_fails("iters = 1\n", "1: key 'iters': outside any [section]");
	ini_fails("[]\niters = 1\n", "1: bad section name '[]'");
	ini_fails("[a b]\n", "1: bad section name '[a b]'");
	ini_fails("[workload]\niters = 1\nseed = 2\n\n[workload]\nITERS = 3\n",
		  "6: key 'workload.iters': duplicate (first at line 2); repeat an option as "
		  "key.1, key.2, ...");
	ini_fails("[schedule]\nexec_at = 1:a\nexec_at = 2:b\n",
		  "3: key 'schedule.exec_at': duplicate (first at line 2)");
	ini_fails("[hosts]\n0 = control=1.1.1.1,ip=2.2.2.2\n00 = control=1.1.1.1,ip=2.2.2.3\n",
		  "3: key 'hosts.00': rank 0 given twice (first at line 2)");
	ini_fails("[workload]\nseed = 1\\\n2\niters = 1\\\n\\\n  x\n",
		  "4: key 'workload.iters': '1  x' has a suffix '  x'");
	ini_fails("[workload]\nseed = \\\n", "2: the last line ends with '\\'");
	memset(big, 'a', sizeof(big));
	memcpy(big, "[workload]\ncm = ", 16);
	big[sizeof(big) - 1] = '\0';
	ini_fails(big, "2: line longer than 1000 bytes");
	/* binary data, with the line of the NUL byte */
	{
		static const char bin[] = "[workload]\niters = 1\n\x01\x02\0\xff\n";
		struct uet_perf_opts *o = new_opts();
		char want[600];

		write_tmp(bin, sizeof(bin) - 1);
		assert_int_equal(uet_perf_opts_load_ini(o, tmp_path, err, sizeof(err)),
				 UET_CONF_EBAD);
		snprintf(want, sizeof(want), "%s:3: binary data (a NUL byte)", tmp_path);
		assert_string_equal(err, want);
		unlink(tmp_path);
		free(o);
	}
	/* cross-option errors name the file and line */
	ini_fails("[workload]\niters = 5\nduration_s = 1\n",
		  "3: key 'workload.duration_s': excludes 'workload.iters' (line 2)");
	ini_fails("[mode]\nserver = yes\nclients = 3\n[workload]\npattern = pingpong\n",
		  "3: key 'mode.clients': a ping-pong runs between the server and one client, not 3");
	ini_fails("[mode]\nserver = yes\nclient = 10.0.0.1\n",
		  "3: key 'mode.client': excludes 'mode.server' (line 2)");
	ini_fails("[workload]\npattern = cm\n", "2: key 'workload.pattern': pattern 'cm' needs");
	ini_fails("[mode]\nhosts = x.ini\n[hosts]\n0 = control=1.1.1.1, ip=2.2.2.2\n",
		  "2: key 'mode.hosts': excludes the file's own [hosts] section (line 4)");
	/* an empty file, comments only, CRLF: fine */
	{
		static const char *const ok[] = { "", "\n\n", "; only\n# comments\n",
						  "[workload]\r\niters = 3\r\n",
						  "[workload]\niters=3", "[output]\ncsv = 'x y'\n" };
		struct uet_perf_opts *o = new_opts();
		size_t i;

		for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
			uet_perf_opts_default(o);
			write_str(ok[i]);
			if (uet_perf_opts_load_ini(o, tmp_path, err, sizeof(err)) != 0)
				fail_msg("case %zu: %s", i, err);
			unlink(tmp_path);
		}
		assert_string_equal(o->csv, "x y");
		free(o);
	}
}

static void
test_parsers(void **state)
{
	struct uet_perf_set s;
	struct uet_perf_endpoint e;
	struct uet_perf_fail_ev f;
	struct uet_perf_exec x;
	uint64_t ns;

	(void)state;
	assert_int_equal(uet_perf_parse_set(" 7 , 1-3,10- 12", 0, 100, &s, err, sizeof(err)),
			 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(uet_perf_set_count(&s), 7);
	assert_int_equal(uet_perf_parse_set("", 0, 100, &s, err, sizeof(err)), UET_CONF_EBAD);
	assert_string_equal(err, "empty list");
	assert_int_equal(uet_perf_parse_set("1,", 0, 100, &s, err, sizeof(err)), UET_CONF_EBAD);
	assert_int_equal(uet_perf_parse_set(",1", 0, 100, &s, err, sizeof(err)), UET_CONF_EBAD);
	assert_int_equal(uet_perf_parse_set("1-2-3", 0, 100, &s, err, sizeof(err)),
			 UET_CONF_EBAD);
	assert_int_equal(uet_perf_parse_set("-", 0, 100, &s, err, sizeof(err)), UET_CONF_EBAD);
	assert_int_equal(uet_perf_parse_set("4294967296", 0, 100, &s, err, sizeof(err)),
			 UET_CONF_EBAD);
	assert_int_equal(uet_perf_parse_set("1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31,33,35,"
					    "37,39,41,43,45,47,49,51,53,55,57,59,61,63,65",
					    0, 100, &s, err, sizeof(err)), UET_CONF_EBAD);
	assert_string_equal(err, "more than 32 ranges");

	assert_int_equal(uet_perf_parse_time_ns("0", &ns, err, sizeof(err)), 0);
	assert_int_equal(ns, 0);
	assert_int_equal(uet_perf_parse_time_ns("0.1", &ns, err, sizeof(err)), 0);
	assert_int_equal(ns, 100000000);
	assert_int_equal(uet_perf_parse_time_ns("1000000.999999999", &ns, err, sizeof(err)), 0);
	assert_int_equal(ns, 1000000999999999ULL);
	assert_int_equal(uet_perf_parse_time_ns("1000001", &ns, err, sizeof(err)),
			 UET_CONF_EBAD);
	assert_int_equal(uet_perf_parse_time_ns("1.", &ns, err, sizeof(err)), UET_CONF_EBAD);
	assert_int_equal(uet_perf_parse_time_ns(".5", &ns, err, sizeof(err)), UET_CONF_EBAD);
	assert_int_equal(uet_perf_parse_time_ns("1e3", &ns, err, sizeof(err)), UET_CONF_EBAD);
	/* the one time syntax: units too */
	assert_int_equal(uet_perf_parse_time_ns("250ms", &ns, err, sizeof(err)), 0);
	assert_int_equal(ns, 250000000);

	assert_int_equal(uet_perf_parse_fail_ev("1.5 : 49152-49183, 49200", &f, err,
						sizeof(err)), 0);
	assert_int_equal(f.at_ns, 1500000000);
	assert_int_equal(uet_perf_set_count(&f.evs), 33);
	assert_int_equal(uet_perf_parse_exec("0.25:echo a:b", &x, err, sizeof(err)), 0);
	assert_int_equal(x.at_ns, 250000000);
	assert_string_equal(x.cmd, "echo a:b");

	assert_int_equal(uet_perf_parse_endpoint("control=1.2.3.4,ip=10.0.0.1,queue=3", true,
						 &e, err, sizeof(err)), 0);
	assert_int_equal(e.control_ip, 0x01020304);
	assert_int_equal(e.queue, 3);
	assert_int_equal(uet_perf_parse_endpoint("ip=10.0.0.1", true, &e, err, sizeof(err)),
			 UET_CONF_EBAD);
	assert_string_equal(err, "missing field 'control'");
	assert_int_equal(uet_perf_parse_endpoint("", false, &e, err, sizeof(err)),
			 UET_CONF_EBAD);
	assert_string_equal(err, "empty spec");
	/* Behind a router: prefix length and gateway. */
	assert_int_equal(uet_perf_parse_endpoint("port=2,ip=10.1.0.3/24,gw=10.1.0.1", false, &e,
						 err, sizeof(err)), 0);
	assert_int_equal(e.ip, 0x0a010003);
	assert_int_equal(e.prefix_len, 24);
	assert_int_equal(e.gateway, 0x0a010001);
	assert_int_equal(e.port, 2);
	assert_int_equal(uet_perf_parse_endpoint("ip=10.1.0.3,gw=10.1.0.1", false, &e, err,
						 sizeof(err)), UET_CONF_EBAD);
	assert_string_equal(err, "field 'gw' needs the on-link prefix: ip=A.B.C.D/LEN");
	assert_int_equal(uet_perf_parse_endpoint("ip=10.1.0.3/24,gw=10.2.0.1", false, &e, err,
						 sizeof(err)), UET_CONF_EBAD);
	assert_string_equal(err, "gateway is not inside the endpoint's /24");
	assert_int_equal(uet_perf_parse_endpoint("ip=10.1.0.3/33", false, &e, err, sizeof(err)),
			 UET_CONF_EBAD);
	assert_string_equal(err, "prefix length '33' is not in 1..32");
	assert_int_equal(uet_perf_parse_endpoint("ip=10.1.0.3/", false, &e, err, sizeof(err)),
			 UET_CONF_EBAD);
}

static const char *const *env_table;

static char *
table_env(const char *name)
{
	size_t i;

	for (i = 0; env_table[i] != NULL; i += 2)
		if (strcmp(env_table[i], name) == 0)
			return (char *)env_table[i + 1];
	return NULL;
}

static void
test_env_rank(void **state)
{
	static const char *const ompi[] = { "OMPI_COMM_WORLD_RANK", "3", "SLURM_PROCID", "5",
					    NULL };
	static const char *const slurm[] = { "SLURM_PROCID", "5", NULL };
	static const char *const pmix[] = { "PMIX_RANK", "6", "SLURM_PROCID", "5", NULL };
	static const char *const bad[] = { "PMI_RANK", "x1", "SLURM_PROCID", "5", NULL };
	static const char *const big[] = { "PMI_RANK", "1024", NULL };
	static const char *const empty[] = { NULL };
	struct uet_perf_opts *o = new_opts();
	uint32_t r = 0;

	(void)state;
	env_table = ompi;
	assert_int_equal(uet_perf_rank_from_env(table_env, &r, err, sizeof(err)), 1);
	assert_int_equal(r, 3);
	env_table = slurm;
	assert_int_equal(uet_perf_rank_from_env(table_env, &r, err, sizeof(err)), 1);
	assert_int_equal(r, 5);
	env_table = pmix;
	assert_int_equal(uet_perf_rank_from_env(table_env, &r, err, sizeof(err)), 1);
	assert_int_equal(r, 6);
	env_table = bad;
	assert_int_equal(uet_perf_rank_from_env(table_env, &r, err, sizeof(err)), UET_CONF_EBAD);
	assert_string_equal(err, "environment variable PMI_RANK='x1': not a rank (0..1023)");
	env_table = big;
	assert_int_equal(uet_perf_rank_from_env(table_env, &r, err, sizeof(err)), UET_CONF_EBAD);
	env_table = empty;
	r = 77;
	assert_int_equal(uet_perf_rank_from_env(table_env, &r, err, sizeof(err)), 0);
	assert_int_equal(r, 77);

	/* resolve: hosts mode without --rank takes the environment's */
	assert_int_equal(parse(o, "--hosts", data("hosts4.ini"), NULL), 0);
	assert_int_equal(uet_perf_opts_resolve_rank(o, table_env, err, sizeof(err)),
			 UET_CONF_EBAD);
	assert_true(strncmp(err, "option '--rank': no rank", 24) == 0);
	env_table = ompi;
	assert_int_equal(uet_perf_opts_resolve_rank(o, table_env, err, sizeof(err)), 0);
	assert_int_equal(o->rank, 3);
	/* --rank beats the environment; other modes need no rank */
	assert_int_equal(parse(o, "--hosts", data("hosts4.ini"), "--rank", "1", NULL), 0);
	assert_int_equal(uet_perf_opts_resolve_rank(o, table_env, err, sizeof(err)), 0);
	assert_int_equal(o->rank, 1);
	assert_int_equal(parse(o, "-S", NULL), 0);
	env_table = bad;
	assert_int_equal(uet_perf_opts_resolve_rank(o, table_env, err, sizeof(err)), 0);
	assert_int_equal(o->rank, UET_PERF_RANK_UNSET);
	free(o);
}

/* What a launcher says besides the rank: how many it started, and where
 * this one stands on its machine (several ranks per host). */
/* %l and %r, as uet-perf's EAL arguments and the provider's settings
 * expand them: values, unknown ranks, and an output too short. */
static void
test_expand_ranks(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(uet_perf_expand_ranks("iface=veth%l,q=%r%%", 7, 3, out, sizeof(out)), 0);
	assert_string_equal(out, "iface=veth3,q=7%%");
	assert_int_equal(uet_perf_expand_ranks("plain", UINT32_MAX, UINT32_MAX, out, sizeof(out)),
			 0);
	assert_string_equal(out, "plain");
	assert_int_equal(uet_perf_expand_ranks("r%r", 1, UINT32_MAX, out, sizeof(out)), 0);
	assert_string_equal(out, "r1");
	assert_int_equal(uet_perf_expand_ranks("l%l", 1, UINT32_MAX, out, sizeof(out)),
			 UET_CONF_EBAD);
	assert_int_equal(uet_perf_expand_ranks("x%r", UINT32_MAX, 0, out, sizeof(out)),
			 UET_CONF_EBAD);
	assert_int_equal(uet_perf_expand_ranks("abcd", 0, 0, out, 4), UET_CONF_ETOOLONG);
	assert_int_equal(uet_perf_expand_ranks("ab%r", 12345, 0, out, 5), UET_CONF_ETOOLONG);
	assert_int_equal(uet_perf_expand_ranks("abc", 0, 0, out, 4), 0);
	assert_string_equal(out, "abc");
}

static void
test_env_launcher(void **state)
{
	static const char *const ompi[] = { "OMPI_COMM_WORLD_RANK", "5",
					    "OMPI_COMM_WORLD_SIZE", "8",
					    "OMPI_COMM_WORLD_LOCAL_RANK", "1",
					    "OMPI_COMM_WORLD_LOCAL_SIZE", "4", NULL };
	static const char *const slurm[] = { "SLURM_PROCID", "2", "SLURM_NTASKS", "3",
					     "SLURM_LOCALID", "0", NULL };
	static const char *const hydra[] = { "PMI_RANK", "1", "PMI_SIZE", "2",
					     "MPI_LOCALRANKID", "1", "MPI_LOCALNRANKS", "2", NULL };
	static const char *const outside[] = { "OMPI_COMM_WORLD_RANK", "3",
					       "OMPI_COMM_WORLD_SIZE", "3", NULL };
	static const char *const badlocal[] = { "SLURM_PROCID", "0",
						"SLURM_LOCALID", "one", NULL };
	static const char *const none[] = { "OMPI_COMM_WORLD_LOCAL_RANK", "1", NULL };
	struct uet_perf_launcher l;
	struct uet_perf_opts *o = new_opts();

	(void)state;
	env_table = ompi;
	assert_int_equal(uet_perf_launcher_from_env(table_env, &l, err, sizeof(err)), 1);
	assert_true(l.present);
	assert_string_equal(l.rank_var, "OMPI_COMM_WORLD_RANK");
	assert_int_equal(l.rank, 5);
	assert_int_equal(l.size, 8);
	assert_int_equal(l.local_rank, 1);
	assert_int_equal(l.local_size, 4);
	env_table = slurm;
	assert_int_equal(uet_perf_launcher_from_env(table_env, &l, err, sizeof(err)), 1);
	assert_int_equal(l.rank, 2);
	assert_int_equal(l.size, 3);
	assert_int_equal(l.local_rank, 0);
	assert_int_equal(l.local_size, 0); /* srun says no local count here */
	env_table = hydra;
	assert_int_equal(uet_perf_launcher_from_env(table_env, &l, err, sizeof(err)), 1);
	assert_int_equal(l.local_rank, 1);
	assert_int_equal(l.local_size, 2);
	env_table = outside;
	assert_int_equal(uet_perf_launcher_from_env(table_env, &l, err, sizeof(err)),
			 UET_CONF_EBAD);
	assert_string_equal(err, "environment variable OMPI_COMM_WORLD_RANK=3, but the launcher "
				 "started 3 processes");
	env_table = badlocal;
	assert_int_equal(uet_perf_launcher_from_env(table_env, &l, err, sizeof(err)),
			 UET_CONF_EBAD);
	assert_string_equal(err, "environment variable SLURM_LOCALID='one': not a count "
				 "(0..1023)");
	/* a local rank without a rank is no launcher */
	env_table = none;
	assert_int_equal(uet_perf_launcher_from_env(table_env, &l, err, sizeof(err)), 0);
	assert_false(l.present);
	/* resolve keeps what the launcher said for the run to use */
	env_table = ompi;
	assert_int_equal(parse(o, "--hosts", data("hosts4.ini"), NULL), 0);
	assert_int_equal(uet_perf_opts_resolve_rank(o, table_env, err, sizeof(err)), 0);
	assert_int_equal(o->rank, 5);
	assert_true(o->launcher.present);
	assert_int_equal(o->launcher.local_size, 4);
	free(o);
}

static void
test_hosts(void **state)
{
	struct uet_perf_hosts *h = malloc(sizeof(*h));
	struct uet_perf_opts *o = new_opts();
	char want[700];

	(void)state;
	assert_non_null(h);
	assert_int_equal(uet_perf_hosts_load(h, data("hosts4.ini"), err, sizeof(err)), 0);
	assert_int_equal(h->n, 4);
	assert_int_equal(h->h[0].control_ip, 0xc0a80001);
	assert_int_equal(h->h[0].ip, 0x0a000001);
	assert_true(h->h[0].has_mac);
	assert_int_equal(h->h[1].port, 1);
	assert_int_equal(h->h[1].queue, 2);
	assert_false(h->h[2].has_mac);
	assert_int_equal(h->h[3].mac[5], 4);

	assert_int_equal(parse(o, "--hosts", data("hosts4.ini"), "--rank", "3", "--root", "2",
			       "--fanin", "3", NULL), 0);
	assert_int_equal(uet_perf_opts_check_hosts(o, h, err, sizeof(err)), 0);
	assert_int_equal(parse(o, "--hosts", data("hosts4.ini"), "--rank", "4", NULL), 0);
	assert_int_equal(uet_perf_opts_check_hosts(o, h, err, sizeof(err)), UET_CONF_EBAD);
	assert_string_equal(err, "option '--rank': rank 4, but the hosts list has ranks 0..3");
	assert_int_equal(parse(o, "--hosts", data("hosts4.ini"), "--local", "2-5", NULL), 0);
	assert_int_equal(uet_perf_opts_check_hosts(o, h, err, sizeof(err)), UET_CONF_EBAD);
	assert_string_equal(err, "option '--local': rank 5, but the hosts list has ranks 0..3");
	assert_int_equal(parse(o, "--hosts", data("hosts4.ini"), "--root", "4", NULL), 0);
	assert_int_equal(uet_perf_opts_check_hosts(o, h, err, sizeof(err)), UET_CONF_EBAD);
	assert_int_equal(parse(o, "--hosts", data("hosts4.ini"), "--fanin", "4", NULL), 0);
	assert_int_equal(uet_perf_opts_check_hosts(o, h, err, sizeof(err)), UET_CONF_EBAD);
	assert_string_equal(err, "option '--fanin': fan-in 4 needs more than 4 ranks");

	/* errors */
	write_str("[hosts]\n0 = control=1.1.1.1, ip=10.0.0.1\n"
		  "2 = control=1.1.1.1, ip=10.0.0.2\n");
	assert_int_equal(uet_perf_hosts_load(h, tmp_path, err, sizeof(err)), UET_CONF_EBAD);
	snprintf(want, sizeof(want), "%s: [hosts]: rank 1 is missing (ranks are 0..2, each "
		 "once)", tmp_path);
	assert_string_equal(err, want);
	unlink(tmp_path);
	write_str("[hosts]\n0 = control=1.1.1.1, ip=10.0.0.1\n"
		  "1 = control=1.1.1.2, ip=10.0.0.1\n");
	assert_int_equal(uet_perf_hosts_load(h, tmp_path, err, sizeof(err)), UET_CONF_EBAD);
	snprintf(want, sizeof(want), "%s:3: key 'hosts.1': ip 10.0.0.1 is also rank 0's "
		 "(line 2)", tmp_path);
	assert_string_equal(err, want);
	unlink(tmp_path);
	write_str("[hosts]\nx = control=1.1.1.1, ip=10.0.0.1\n");
	assert_int_equal(uet_perf_hosts_load(h, tmp_path, err, sizeof(err)), UET_CONF_EBAD);
	snprintf(want, sizeof(want), "%s:2: key 'hosts.x': not a rank (0..1023)", tmp_path);
	assert_string_equal(err, want);
	unlink(tmp_path);
	write_str("[hosts]\n1024 = control=1.1.1.1, ip=10.0.0.1\n");
	assert_int_equal(uet_perf_hosts_load(h, tmp_path, err, sizeof(err)), UET_CONF_EBAD);
	unlink(tmp_path);
	write_str("[hosts]\n0 = ip=10.0.0.1\n");
	assert_int_equal(uet_perf_hosts_load(h, tmp_path, err, sizeof(err)), UET_CONF_EBAD);
	snprintf(want, sizeof(want), "%s:2: key 'hosts.0': missing field 'control'", tmp_path);
	assert_string_equal(err, want);
	unlink(tmp_path);
	/* other sections are not the hosts loader's business */
	write_str("[workload]\nbogus = 1\n");
	assert_int_equal(uet_perf_hosts_load(h, tmp_path, err, sizeof(err)), UET_CONF_EBAD);
	snprintf(want, sizeof(want), "%s: no [hosts] section", tmp_path);
	assert_true(strncmp(err, want, strlen(want)) == 0);
	unlink(tmp_path);
	assert_int_equal(uet_perf_hosts_load(h, "/nonexistent", err, sizeof(err)),
			 UET_CONF_EBAD);
	free(o);
	free(h);
}

static void
test_to_ep_config(void **state)
{
	struct uet_perf_opts *o = new_opts();
	struct uet_perf_algo_cfg a;
	struct uet_ep_config c;

	(void)state;
	assert_int_equal(parse(o, NULL), 0);
	assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &a, err, sizeof(err)), 0);
	assert_ptr_equal(c.lb, &uet_lb_reps);
	assert_ptr_equal(c.lb_cfg, &a.reps);
	assert_ptr_equal(c.cc, &uet_cc_nscc);
	assert_ptr_equal(c.cc_cfg, &a.nscc);
	assert_true(a.nscc.fixed_max_cwnd);
	assert_int_equal(c.mss_bytes, 4096);
	assert_int_equal(c.ev_base, 49152);
	assert_int_equal(c.ev_count, 256);
	assert_int_equal(c.window_psns, 1024);
	assert_int_equal(c.link_bps, 100000000000ULL);
	assert_int_equal(c.max_pdcs, 256); /* untouched: uet_ep_config_default */
	assert_int_equal(c.seed, 1);
	assert_false(c.rto_no_backoff);

	assert_int_equal(parse(o, "--lb", "reps", "--reps-freeze-ns", "2000", "--reps-no-freeze",
			       "--reps-reuse", "3", "--cc", "dctcp", "--dctcp-g-shift", "7",
			       "--mtu", "1K", "--ev-base", "1000", "--ev-count", "16",
			       "--ack-every", "8K", "--ack-delay-ns", "700", "--rto-ns", "90000",
			       "--rto-min-ns", "30000", "--base-rtt-ns", "6000", "--link-gbps",
			       "25.5", "--window-psns", "256", "--seed", "99", "--rto-max-ns",
			       "50000000", "--max-rto-retx", "40", "--mprdma-fast-increase-ns",
			       "650000", NULL), 0);
	assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &a, err, sizeof(err)), 0);
	assert_int_equal(a.dctcp.fast_increase_at_ns, 650000);
	assert_ptr_equal(c.lb_cfg, &a.reps);
	assert_true(a.reps.no_freezing);
	assert_int_equal(a.reps.freeze_ns, 2000);
	assert_int_equal(a.reps.reuse, 3);
	assert_ptr_equal(c.cc, &uet_cc_dctcp);
	assert_ptr_equal(c.cc_cfg, &a.dctcp);
	assert_int_equal(a.dctcp.g_shift, 7);
	assert_int_equal(c.mss_bytes, 1024);
	assert_int_equal(c.ev_base, 1000);
	assert_int_equal(c.ev_count, 16);
	assert_int_equal(c.ack_every_bytes, 8192);
	assert_int_equal(c.ack_delay_ns, 700);
	assert_int_equal(c.rto_ns, 90000);
	assert_int_equal(c.rto_min_ns, 30000);
	assert_int_equal(c.rto_max_ns, 50000000);
	assert_int_equal(c.max_rto_retx, 40);
	assert_int_equal(c.base_rtt_ns, 6000);
	assert_int_equal(c.link_bps, 25500000000ULL);
	assert_int_equal(c.window_psns, 256);
	assert_int_equal(c.seed, 99);

	assert_int_equal(parse(o, "--lb", "ops", "--ops-permute", "--cc", "fixed", NULL), 0);
	assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &a, err, sizeof(err)), 0);
	assert_ptr_equal(c.lb, &uet_lb_ops_spray);
	assert_ptr_equal(c.lb_cfg, &a.ops);
	assert_true(a.ops.permute);
	assert_ptr_equal(c.cc, &uet_cc_fixed);
	assert_null(c.cc_cfg);
	assert_int_equal(parse(o, "--cc", "eqds", "--eqds-spec-bytes", "64K", NULL), 0);
	assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &a, err, sizeof(err)), 0);
	assert_ptr_equal(c.cc, &uet_cc_eqds);
	assert_ptr_equal(c.cc_cfg, &a.eqds);
	assert_int_equal(a.eqds.spec_bytes, 65536);
	assert_false(a.eqds.no_slow_pulls);
	assert_int_equal(parse(o, "--cc", "eqds", "--eqds-slow-pulls=false", NULL), 0);
	assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &a, err, sizeof(err)), 0);
	assert_true(a.eqds.no_slow_pulls);
	assert_int_equal(parse(o, "--lb", "flowlet", "--flowlet-gap-ns", "123", NULL), 0);
	assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &a, err, sizeof(err)), 0);
	assert_ptr_equal(c.lb_cfg, &a.flowlet);
	assert_int_equal(a.flowlet.gap_ns, 123);
	assert_int_equal(parse(o, "--lb", "plb", "--plb-ce-pct", "20", "--plb-rounds", "9",
			       "--cc", "nscc", "--nscc-target-ns", "777", NULL), 0);
	assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &a, err, sizeof(err)), 0);
	assert_ptr_equal(c.lb_cfg, &a.plb);
	assert_int_equal(a.plb.ce_pct, 20);
	assert_int_equal(a.plb.rounds, 9);
	assert_int_equal(a.nscc.target_qdelay_ns, 777);
	assert_int_equal(parse(o, "--lb", "ecmp", "--cc", "strack", NULL), 0);
	assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &a, err, sizeof(err)), 0);
	assert_ptr_equal(c.lb, &uet_lb_ecmp);
	assert_null(c.lb_cfg);
	assert_ptr_equal(c.cc, &uet_cc_strack);
	assert_null(c.cc_cfg);

	/* a struct filled by hand gets checked */
	snprintf(o->lb, sizeof(o->lb), "nope");
	assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &a, err, sizeof(err)), UET_CONF_EBAD);
	assert_string_equal(err, "option '--lb': unknown load balancer 'nope'");
	assert_int_equal(parse(o, NULL), 0);
	o->window_psns = 100;
	assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &a, err, sizeof(err)), UET_CONF_EBAD);
	assert_string_equal(err, "transport options: window_psns must be a power of two in "
			    "64..16384");
	free(o);
}

static void
test_hash(void **state)
{
	struct uet_perf_opts *a = new_opts(), *b = new_opts();
	uint64_t h;

	(void)state;
	assert_int_equal(parse(a, "-s", "1M", "--lb", "ops", NULL), 0);
	h = uet_perf_opts_hash(a);
	/* output, mode and scheduled events do not count */
	assert_int_equal(parse(b, "--size=1M", "--lb=ops", "-J", "x.json", "-i", "0", "-vv",
			       "-c", "server", "--csv", "p", "--bin-us", "5", "--exec-at", "1:x",
			       "--endpoint", "ip=1.1.1.1", "--fail-ev-at", "1:49152", NULL), 0);
	assert_int_equal(uet_perf_opts_hash(b), h);
	assert_int_equal(parse(b, "-s", "1M", "--lb", "ops", "--hosts", "h", "--local", "1",
			       NULL), 0);
	assert_int_equal(uet_perf_opts_hash(b), h);
	assert_int_equal(parse(b, "-s", "1M", "--lb", "ops", "-S", NULL), 0);
	assert_int_equal(uet_perf_opts_hash(b), h);
	/* every workload and transport option does */
	assert_int_equal(parse(b, "-s", "1M", "--lb", "ops", "--ops-permute", NULL), 0);
	assert_int_not_equal(uet_perf_opts_hash(b), h);
	assert_int_equal(parse(b, "-s", "512K", "--lb", "ops", NULL), 0);
	assert_int_not_equal(uet_perf_opts_hash(b), h);
	assert_int_equal(parse(b, "-s", "1M", "--lb", "ops", "--link-gbps", "100.000001", NULL),
			 0);
	assert_int_not_equal(uet_perf_opts_hash(b), h);
	assert_int_equal(parse(b, "-s", "1M", "--lb", "ops", "-p", "1", NULL), 0);
	assert_int_not_equal(uet_perf_opts_hash(b), h);
	assert_int_equal(parse(b, "-s", "1M", "--lb", "ops", "--verify", NULL), 0);
	assert_int_not_equal(uet_perf_opts_hash(b), h);
	/* same value from another source: same hash */
	write_str("[workload]\nsize_bytes = 1048576\n[transport]\nlb = ops\n");
	assert_int_equal(parse(b, "--config", tmp_path, NULL), 0);
	assert_int_equal(uet_perf_opts_hash(b), h);
	unlink(tmp_path);
	free(a);
	free(b);
}

static char *
file_text(FILE *f, size_t *len)
{
	long n;
	char *s;

	fflush(f);
	n = ftell(f);
	assert_true(n >= 0);
	s = malloc((size_t)n + 1);
	assert_non_null(s);
	rewind(f);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = '\0';
	if (len != NULL)
		*len = (size_t)n;
	return s;
}

static void
test_write_ini_roundtrip(void **state)
{
	struct uet_perf_opts *a = new_opts(), *b = new_opts();
	FILE *f1 = tmpfile(), *f2 = tmpfile();
	char *t1, *t2;
	size_t len;

	(void)state;
	assert_non_null(f1);
	assert_non_null(f2);
	assert_int_equal(parse(a, "--config", data("all.ini"), "-s", "3K", "--exec-at",
			       "1.5:echo 'a;b#c'", "--exec-at", "2:trailing\\", "--exec-at",
			       "3:echo \"x\"", "--neighbor",
			       "ip=1.2.3.4,mac=02:00:00:00:00:09", "-J", " spaced ", NULL), 0);
	uet_perf_opts_write_ini(a, f1);
	t1 = file_text(f1, &len);
	write_tmp(t1, len);
	if (uet_perf_opts_load_ini(b, tmp_path, err, sizeof(err)) != 0)
		fail_msg("%s\n---\n%s", err, t1);
	uet_perf_opts_write_ini(b, f2);
	t2 = file_text(f2, NULL);
	assert_string_equal(t1, t2);
	assert_int_equal(uet_perf_opts_hash(a), uet_perf_opts_hash(b));
	assert_string_equal(b->exec[0].cmd, "echo 'a;b#c'");
	assert_string_equal(b->exec[1].cmd, "trailing\\");
	assert_string_equal(b->exec[2].cmd, "echo \"x\"");
	assert_int_equal(b->n_exec, 3);
	assert_string_equal(b->json, " spaced ");
	assert_true(b->duration_s == 2.5);
	/* relative input paths are written absolute */
	assert_true(b->hosts[0] == '/');
	assert_string_equal(b->hosts + strlen(b->hosts) - strlen(a->hosts), a->hosts);
	unlink(tmp_path);
	free(t1);
	free(t2);
	fclose(f1);
	fclose(f2);

	/* iniparser 4.1 has no escapes: this value cannot be written */
	f1 = tmpfile();
	assert_non_null(f1);
	assert_int_equal(parse(a, "--exec-at", "4:echo \"x\" 'y;'", NULL), 0);
	uet_perf_opts_write_ini(a, f1);
	t1 = file_text(f1, NULL);
	assert_string_equal(t1, "[schedule]\n; exec_at.1: not written, the value needs "
			    "quotes and holds both ' and \"\n");
	free(t1);
	fclose(f1);
	free(a);
	free(b);
}

/* --profile reps-paper: the same options as config/reps-paper.ini; the INI
 * and the command line override it; uet-perf takes its transport part. */
static char *
written(const struct uet_perf_opts *o)
{
	FILE *f = tmpfile();
	char *t, *line;

	assert_non_null(f);
	uet_perf_opts_write_ini(o, f);
	t = file_text(f, NULL);
	fclose(f);
	/* The profile's own name is not one of its settings. */
	line = strstr(t, "profile = ");
	if (line != NULL)
		memmove(line, strchr(line, '\n') + 1, strlen(strchr(line, '\n') + 1) + 1);
	return t;
}

static void
test_profile(void **state)
{
	struct uet_perf_opts *a = new_opts(), *b = new_opts();
	struct uet_perf_algo_cfg algo;
	struct uet_ep_config c;
	char path[512], *t1, *t2;

	(void)state;
	uet_conf_set_app(UET_CONF_APP_SIM);
	/* uet-sim's checks across options */
	cli_fails("option '--ecn-kmin-pct': 90% is above --ecn-kmax-pct 80%", "--ecn-kmin-pct",
		  "90", NULL);
	cli_fails("option '--pcap-hosts': needs --pcap FILE", "--pcap-hosts", "1-3", NULL);
	/* seconds, or a time with its unit */
	assert_int_equal(parse(a, "-D", "100us", NULL), 0);
	assert_true(a->duration_s == 100e-6);
	cli_fails("option '--duration': time '3 lightyears'", "-D", "3 lightyears", NULL);
	assert_int_equal(parse(a, "--ecn-kmin-pct", "20", "--ecn-kmax-pct", "0", NULL), 0);
	snprintf(path, sizeof(path), "%s/config/reps-paper.ini", env_or("UET_SOURCE_ROOT", "."));
	assert_int_equal(parse(a, "--profile", "reps-paper", NULL), 0);
	assert_int_equal(parse(b, "--config", path, NULL), 0);
	t1 = written(a);
	t2 = written(b);
	assert_string_equal(t1, t2);
	free(t1);
	free(t2);
	assert_string_equal(a->cc, "dctcp-mprdma");
	assert_int_equal(a->ev_count, 65535);
	assert_int_equal(a->rto_ns, 70000);
	assert_false(a->rto_backoff);
	assert_int_equal(a->max_rto_retx, 1000);
	assert_int_equal(a->ack_every_bytes, 0);
	assert_false(a->trim);
	assert_int_equal(a->plb_ce_pct, 25);
	a->base_rtt_ns = 8000; /* uet-sim sets it from the fabric */
	if (uet_perf_opts_to_ep_config(a, &c, &algo, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_ptr_equal(c.cc, &uet_cc_dctcp_mprdma);
	assert_int_equal(c.loss_detect, 1); /* nack-rto */
	assert_true(c.rto_no_backoff);
	assert_int_equal(c.max_rto_retx, 1000);
	assert_int_equal(algo.reps.explore, UET_REPS_EXPLORE_RESET);
	assert_true(algo.flowlet.ack_clock);
	/* The file and the command line override the profile; a profile named
	 * in the file applies under the file's own keys. */
	assert_int_equal(parse(a, "--profile", "reps-paper", "--cc", "nscc", "--trim", NULL), 0);
	assert_string_equal(a->cc, "nscc");
	assert_true(a->trim);
	assert_int_equal(a->ev_count, 65535);
	assert_int_equal(uet_perf_opts_source(a, "ev-count"), UET_CONF_SRC_PROFILE);
	write_str("[transport]\nprofile = reps-paper\nev_count = 256\n");
	assert_int_equal(parse(a, "--config", tmp_path, NULL), 0);
	assert_int_equal(a->ev_count, 256);
	assert_string_equal(a->cc, "dctcp-mprdma");
	assert_int_equal(parse(a, "--config", tmp_path, "--profile", "none", NULL), 0);
	assert_int_equal(a->ev_count, 256);
	assert_string_equal(a->cc, "nscc");
	unlink(tmp_path);
	cli_fails("option '--profile': unknown profile 'htsim' (one of: none, reps-paper)",
		  "--profile", "htsim", NULL);
	/* uet-perf has no fabric: the transport part only. */
	uet_conf_set_app(UET_CONF_APP_PERF);
	assert_int_equal(parse(a, "--profile", "reps-paper", NULL), 0);
	assert_string_equal(a->cc, "dctcp-mprdma");
	assert_int_equal(a->rto_ns, 70000);
	assert_int_equal(uet_perf_opts_source(a, "cc"), UET_CONF_SRC_PROFILE);
	free(a);
	free(b);
}

/* Every call resets getopt: the same arguments give the same answer, also
 * after a parse that stopped in the middle of "-vx". */
static void
test_repeated_calls(void **state)
{
	struct uet_perf_opts *o = new_opts();
	int k;

	(void)state;
	for (k = 0; k < 200; k++) {
		assert_int_equal(parse(o, "-vx", NULL), UET_CONF_EBAD);
		assert_string_equal(err, "option '-x': unknown option");
		assert_int_equal(parse(o, "-vv", "-s", "2K", NULL), 0);
		assert_int_equal(o->verbose, 2);
		assert_int_equal(o->size_bytes, 2048);
		assert_int_equal(parse(o, "--size", NULL), UET_CONF_EBAD);
		assert_int_equal(parse(o, "-n", "3", NULL), 0);
		assert_int_equal(o->size_bytes, 65536);
		assert_int_equal(o->iters, 3);
		assert_int_equal(o->verbose, 0);
	}
	/* err may be NULL */
	assert_int_equal(uet_perf_opts_parse(o, 2, (char *[]){ "p", "--x", NULL }, NULL, 0),
			 UET_CONF_EBAD);
	free(o);
}

static void
test_usage_and_doc(void **state)
{
	FILE *f = tmpfile();
	char *usage, *doc, *want, *b, *e;
	char path[512];
	FILE *d;
	size_t len;

	(void)state;
	assert_non_null(f);
	uet_perf_opts_usage(f);
	usage = file_text(f, NULL);
	assert_non_null(strstr(usage, "Usage: uet-perf [EAL options] -- [options]"));
	assert_non_null(strstr(usage, "-s, --size=BYTES"));
	assert_non_null(strstr(usage, "-S, --server[=BOOL]"));
	assert_non_null(strstr(usage, "[workload.size_bytes]"));
	assert_non_null(strstr(usage, "[schedule.fail_ev_at.N]"));
	assert_non_null(strstr(usage, "ecmp, ops, bitmap, reps"));
	assert_non_null(strstr(usage, "--config=FILE"));
	free(usage);
	fclose(f);

	/* doc/options.md holds the generated reference */
	f = tmpfile();
	assert_non_null(f);
	uet_perf_opts_doc_md(f);
	want = file_text(f, NULL);
	fclose(f);
	snprintf(path, sizeof(path), "%s/doc/options.md", env_or("UET_SOURCE_ROOT", "."));
	d = fopen(path, "rb");
	assert_non_null(d);
	fseek(d, 0, SEEK_END);
	doc = file_text(d, &len);
	fclose(d);
	b = strstr(doc, DOC_BEGIN);
	e = strstr(doc, DOC_END);
	assert_non_null(b);
	assert_non_null(e);
	b += strlen(DOC_BEGIN);
	*e = '\0';
	if (strcmp(b, want) != 0)
		fail_msg("doc/options.md is stale: run build/tests/conf/test_conf --write-doc");
	free(doc);
	free(want);
}

/* ------------------------------------------------------------------ */
/* Junk                                                                */

/* Lines that are fine in their section, and lines that are not. */
static const char *const good[] = {
	"[workload]", "[transport]", "[lb]", "[output]", "[schedule]", "[mode]",
	"iters = 5", "size_bytes = 1K", "lb = ops", "cc = dctcp", "ops_permute = yes",
	"interval_s = 0.5", "fail_ev_at.1 = 1:49152-49160", "exec_at.x = 2:ls",
	"endpoint.1 = ip=1.1.1.1", "endpoint.2 = ip=1.1.1.2, port=1",
	"neighbor.1 = ip=1.1.1.1,mac=02:00:00:00:00:01", "server = yes", "verify = 1",
	"; comment", "# comment", "", "   ", "json = \"quoted ; value\"", "csv = 'p q'",
	"seed = 0x10", "dctcp_g_shift = 3", "ev_count = 512",
};
static const char *const bad[] = {
	"[", "]", "[]", "[x", "[ workload ]", "[hosts]", "iters = -1", "iters=", "iters",
	"= 3", "size_bytes = 9T", "size_bytes = 1Q", "duration_s = 1", "duration_s = nan",
	"lb = x", "mtu_bytes = 9000", "fail_ev_at = 1:", "exec_at.x = :",
	"endpoint = ip=1.1.1.1,ip=2.2.2.2", "0 = control=1.1.1.1,ip=2.2.2.2",
	"1 = control=1.1.1.1,ip=2.2.2.3", "5 = ip=1", "hosts = nofile", "client = h",
	"rank = 3", "local = 0-3", "pattern = cm", "cm = x.cm", "k = 'x", "\\", "a = b \\",
	"=", "==", "a=b=c", "json = -", "interval_s = 1e400", "seed = 0x", "ev_base = 65535",
	"window_psns = 3", "\xff\xfe", "\x01\x02\x03", "\t\t",
};

static size_t
add_lines(struct uet_prng *r, char *buf, size_t n, size_t cap, const char *const *w,
	  uint32_t nw, uint32_t lines)
{
	uint32_t i;

	for (i = 0; i < lines; i++) {
		const char *s = w[uet_prng_below(r, nw)];
		size_t l = strlen(s);

		if (n + l + 2 >= cap)
			break;
		memcpy(buf + n, s, l);
		n += l;
		buf[n++] = uet_prng_below(r, 16) ? '\n' : (uet_prng_below(r, 2) ? '\r' : ' ');
	}
	return n;
}

#define NW(a) (uint32_t)(sizeof(a) / sizeof(a[0]))

static size_t
junk(struct uet_prng *r, char *buf, size_t cap)
{
	size_t n = 0, i;

	switch (uet_prng_below(r, 5)) {
	case 0: /* random bytes */
		n = uet_prng_below(r, (uint32_t)cap);
		for (i = 0; i < n; i++)
			buf[i] = (char)uet_prng_below(r, 256);
		return n;
	case 1: /* one very long line */
		n = 900 + uet_prng_below(r, (uint32_t)(cap - 1000));
		memset(buf, 'a' + (int)uet_prng_below(r, 3), n);
		if (uet_prng_below(r, 2))
			memcpy(buf, "[workload]\ncm = ", 16);
		return n;
	case 2: /* good lines only */
		return add_lines(r, buf, 0, cap, good, NW(good), uet_prng_below(r, 12));
	default: /* good and bad lines, a byte flipped now and then */
		n = add_lines(r, buf, 0, cap, good, NW(good), uet_prng_below(r, 10));
		n = add_lines(r, buf, n, cap, bad, NW(bad), uet_prng_below(r, 3));
		n = add_lines(r, buf, n, cap, good, NW(good), uet_prng_below(r, 10));
		for (i = 0; n > 0 && i < uet_prng_below(r, 2); i++)
			buf[uet_prng_below(r, (uint32_t)n)] = (char)uet_prng_below(r, 256);
		return n;
	}
}

static void
test_fuzz_ini(void **state)
{
	struct uet_perf_opts *o = new_opts();
	struct uet_perf_hosts *h = malloc(sizeof(*h));
	struct uet_perf_algo_cfg a;
	struct uet_ep_config c;
	static char buf[4096];
	struct uet_prng r;
	int k, ok = 0, rc;
	size_t n;

	(void)state;
	assert_non_null(h);
	uet_prng_seed(&r, strtoull(env_or("UET_CONF_FUZZ_SEED", "12345"), NULL, 0));
	for (k = 0; k < atoi(env_or("UET_CONF_FUZZ_ITERS", "3000")); k++) {
		n = junk(&r, buf, sizeof(buf));
		write_tmp(buf, n);
		uet_perf_opts_default(o);
		err[0] = '\0';
		rc = uet_perf_opts_load_ini(o, tmp_path, err, sizeof(err));
		assert_true(rc == 0 || rc == UET_CONF_EBAD);
		if (rc == 0) {
			ok++;
			assert_int_equal(uet_perf_opts_to_ep_config(o, &c, &a, err, sizeof(err)), 0);
		} else {
			/* every error names the file; none is iniparser's own */
			assert_true(strncmp(err, tmp_path, strlen(tmp_path)) == 0);
			if (strstr(err, "iniparser") != NULL)
				fail_msg("case %d: %s", k, err);
		}
		rc = uet_perf_hosts_load(h, tmp_path, err, sizeof(err));
		assert_true(rc == 0 || rc == UET_CONF_EBAD);
		if (rc != 0 && strstr(err, "iniparser") != NULL)
			fail_msg("case %d: %s", k, err);
		unlink(tmp_path);
	}
	/* the junk is not all rejected */
	assert_true(ok > 30);
	free(h);
	free(o);
}

static void
test_fuzz_cli(void **state)
{
	static const char *const args[] = {
		"-s", "4K", "--size", "-S", "-c", "h", "--hosts", "x", "--rank", "1", "-vvv",
		"--local", "0-3", "--endpoint", "ip=1.1.1.1", "--fail-ev-at", "1:49152", "-D",
		"1", "-n", "5", "--", "-", "--verify=no", "--json", "--cm", "--pattern", "cm",
		"--lb", "--cc", "nscc", "--exec-at", "1:x", "-h", "-V", "--bogus", "=", "",
		"-b", "-e", "1M", "--config", "/nonexistent", "\xff", "--ev-base=0",
	};
	struct uet_perf_opts *o = new_opts();
	char *argv[16];
	struct uet_prng r;
	int k, i, argc, rc;

	(void)state;
	uet_prng_seed(&r, 777);
	for (k = 0; k < 3000; k++) {
		argc = 1 + (int)uet_prng_below(&r, 12);
		argv[0] = "uet-perf";
		for (i = 1; i < argc; i++)
			argv[i] = (char *)args[uet_prng_below(&r, sizeof(args) / sizeof(args[0]))];
		argv[argc] = NULL;
		rc = uet_perf_opts_parse(o, argc, argv, err, sizeof(err));
		assert_true(rc == 0 || rc == UET_CONF_EBAD || rc == UET_CONF_HELP ||
			    rc == UET_CONF_VERSION);
		assert_true(rc != UET_CONF_EBAD || err[0] != '\0');
	}
	free(o);
}

/* Rewrite the generated part of doc/options.md. */
static int
write_doc(void)
{
	char path[512], *doc, *b, *e;
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "%s/doc/options.md", env_or("UET_SOURCE_ROOT", "."));
	f = fopen(path, "rb");
	if (f == NULL) {
		perror(path);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	doc = file_text(f, &len);
	fclose(f);
	b = strstr(doc, DOC_BEGIN);
	e = b != NULL ? strstr(b, DOC_END) : NULL;
	if (e == NULL) {
		fprintf(stderr, "%s: no generated section\n", path);
		return 1;
	}
	f = fopen(path, "wb");
	if (f == NULL) {
		perror(path);
		return 1;
	}
	fwrite(doc, 1, (size_t)(b - doc) + strlen(DOC_BEGIN), f);
	uet_perf_opts_doc_md(f);
	fputs(e, f);
	fclose(f);
	free(doc);
	printf("wrote %s\n", path);
	return 0;
}

/* The program is global state: a failed test must not leave uet-sim's. */
static int
back_to_perf(void **state)
{
	(void)state;
	uet_conf_set_app(UET_CONF_APP_PERF);
	return 0;
}

/* uet-sim parses the same table: the shared options, its own (topology,
 * failures) with its defaults; uet-perf's mode and schedule options are
 * unknown to it. */
static void
test_sim_app(void **state)
{
	struct uet_perf_opts *o;
	const struct sim_failure *f;
	FILE *u;
	char *usage;

	(void)state;
	uet_conf_set_app(UET_CONF_APP_SIM);
	o = new_opts();
	assert_int_equal(parse(o, NULL), 0);
	assert_true(o->link_gbps == 400);
	assert_true(o->interval_s == 0);
	assert_int_equal(o->base_rtt_ns, 0);
	assert_true(o->nscc_min_rtt_cap); /* htsim's rule in the simulator */
	assert_int_equal(o->nodes, 128);
	assert_int_equal(o->tiers, 2);
	assert_int_equal(o->mode, UET_PERF_MODE_NONE);
	assert_false(o->ar_tie_first);
	assert_false(o->shuffle_ties);
	assert_int_equal(parse(o, "--nodes", "1024", "--tiers", "3", "--oversub", "2", "--trim",
			       "--buffer-bytes", "1M", "--pattern", "tornado", "--lb", "reps",
			       "--failure", "link-down:100us:tor0.up1:for=100us",
			       "--failure", "random-down:2ms:3%:tor-up:converge=50us",
			       "--converge-us", "20", "--ar-tie-first", "--shuffle-ties", NULL), 0);
	assert_true(o->ar_tie_first);
	assert_true(o->shuffle_ties);
	assert_int_equal(o->nodes, 1024);
	assert_int_equal(o->tiers, 3);
	assert_int_equal(o->oversub, 2);
	assert_true(o->trim);
	assert_int_equal(o->buffer_bytes, 1 << 20);
	assert_int_equal(o->n_failures, 2);
	f = &o->failures[0];
	assert_int_equal(f->kind, SIM_FAIL_LINK_DOWN);
	assert_int_equal(f->at_ns, 100000);
	assert_int_equal(f->for_ns, 100000);
	assert_int_equal(f->node_kind, SIM_NODE_TOR);
	assert_int_equal(f->node, 0);
	assert_int_equal(f->uplink, 1);
	assert_int_equal(f->converge_ns, SIM_CONVERGE_DEFAULT);
	f = &o->failures[1];
	assert_int_equal(f->kind, SIM_FAIL_RANDOM_DOWN);
	assert_int_equal(f->at_ns, 2000000);
	assert_true(f->pct == 3.0);
	assert_int_equal(f->cls, SIM_CLASS_TOR_UP);
	assert_int_equal(f->converge_ns, 50000);
	assert_true(o->converge_us == 20);
	cli_fails("option '--server': unknown option", "--server", NULL);
	cli_fails("option '--endpoint': unknown option", "--endpoint", "ip=1.2.3.4", NULL);
	cli_fails("option '--tiers': 4 is out of range 2..3", "--tiers", "4", NULL);
	cli_fails("option '--failure': unknown kind 'link-melt'", "--failure", "link-melt:1:tor0.up0",
		  NULL);
	ini_fails("[mode]\nserve = yes\n", "2: key 'mode.serve': unknown section [mode] "
		  "(sections: workload, transport, lb, cc, output, topology, failures)");
	ini_fails("[topology]\nnode = 4\n", "2: key 'topology.node': unknown key");
	ini_fails("[topology]\nshuffle_ties = often\n", "2: key 'topology.shuffle_ties'");
	/* One file for both tools: uet-perf's own keys are left to it. */
	write_str("[mode]\nserver = yes\n[workload]\nstall_timeout_s = 3\nsize_bytes = 8K\n"
		  "[hosts]\n0 = ip=10.0.0.1\n[schedule]\nexec_at = 1:true\n");
	assert_int_equal(uet_perf_opts_load_ini(o, tmp_path, err, sizeof(err)), 0);
	assert_int_equal(o->size_bytes, 8192);
	unlink(tmp_path);
	free(o);
	u = tmpfile();
	assert_non_null(u);
	uet_perf_opts_usage(u);
	usage = file_text(u, NULL);
	fclose(u);
	assert_non_null(strstr(usage, "Usage: uet-sim [options]"));
	assert_non_null(strstr(usage, "--failure=SPEC"));
	assert_null(strstr(usage, "--server"));
	assert_null(strstr(usage, "--exec-at"));
	free(usage);
	uet_conf_set_app(UET_CONF_APP_PERF);
	/* and uet-perf knows none of uet-sim's */
	cli_fails("option '--nodes': unknown option", "--nodes", "4", NULL);
	ini_fails("[topology]\nnode = 4\n", "2: key 'topology.node': unknown section");
	/* and leaves uet-sim's to it */
	o = new_opts();
	write_str("[topology]\nnodes = 4\ntiers = 3\n[failures]\nfailure = link-down:1:tor0.up0\n"
		  "[output]\nport_series = tor-up\n[workload]\nsize_bytes = 16K\n");
	assert_int_equal(uet_perf_opts_load_ini(o, tmp_path, err, sizeof(err)), 0);
	assert_int_equal(o->size_bytes, 16384);
	unlink(tmp_path);
	free(o);
}

/* The failure vocabulary is lib/sim's (tests/sim/test_failure.c); the
 * options name the option or the file:line around its messages. */
static void
test_failure_option_errors(void **state)
{
	(void)state;
	uet_conf_set_app(UET_CONF_APP_SIM);
	cli_fails("option '--failure': time '1h' has an unknown unit", "--failure",
		  "link-down:1h:host2", NULL);
	ini_fails("[failures]\nfailure.1 = degrade:0:3%:tor:0.5\n",
		  "2: key 'failures.failure.1': 'tor': only links here");
	uet_conf_set_app(UET_CONF_APP_PERF);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_cli_types),
		cmocka_unit_test(test_print_config),
		cmocka_unit_test(test_ini_types),
		cmocka_unit_test(test_cli_overrides_ini),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_cli_errors),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_ini_errors),
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_env_rank),
		cmocka_unit_test(test_env_launcher),
		cmocka_unit_test(test_expand_ranks),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_to_ep_config),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_write_ini_roundtrip),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_repeated_calls),
		cmocka_unit_test(test_usage_and_doc),
		cmocka_unit_test_teardown(test_sim_app, back_to_perf),
		cmocka_unit_test_teardown(test_failure_option_errors, back_to_perf),
		cmocka_unit_test(test_fuzz_ini),
		cmocka_unit_test(test_fuzz_cli),
	};

	if (argc == 2 && strcmp(argv[1], "--write-doc") == 0)
		return write_doc();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
