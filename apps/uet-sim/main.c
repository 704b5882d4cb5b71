/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-sim: the unmodified transport and workloads on a simulated fat tree.
 *
 *   uet-sim [options]
 *
 * The same workload, transport and output options as uet-perf, and the
 * same reports, plus the fabric (--nodes, --tiers, --oversub, queues, ECN,
 * trimming) and scheduled failures (--failure). Everything but the wall
 * time is a function of the options: the same seed gives the same JSON.
 * Exit status: 0 when every flow completed (and verified), 1 when the run
 * failed, 2 for bad input.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "conf/conf.h"
#include "report/output.h"
#include "simrun/simrun.h"

static volatile int stop_flag;

static void
on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static uint64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One progress line a second on a terminal: simulated time, its pace,
 * flows done, bytes delivered. */
#define PROGRESS_EVERY_NS 1000000000ULL
static uint64_t progress_last_ns, progress_start_ns;
static bool progress_shown;

static void
show_progress(void *ctx, const struct uet_simrun_progress *p)
{
	uint64_t now = wall_ns(), done = 0;
	uint32_t i;

	(void)ctx;
	if (now - progress_last_ns < PROGRESS_EVERY_NS)
		return;
	progress_last_ns = now;
	for (i = 0; i < p->flows; i++) {
		struct uet_meas_flow_rec r;

		(void)uet_meas_flow_get(p->meas, i, &r);
		done += r.status == UET_MEAS_OK;
	}
	fprintf(stderr, "\r\033[Kuet-sim: %.1f us simulated, %.2f M events/s, %llu of %u flows "
		"done, %.1f MB delivered", (double)p->sim_ns / 1e3,
		(double)p->events / ((double)(now - progress_start_ns) / 1e9) / 1e6,
		(unsigned long long)done, p->flows, (double)p->rx_bytes / 1e6);
	fflush(stderr);
	progress_shown = true;
}

/* Simulated time, wall time, events per second, memory: not in the JSON
 * (the wall clock would make it differ run to run). */
static void
print_speed(FILE *f, const struct uet_simrun_result *r, uint64_t wall)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	/* The endpoints' tables are allocated for their bounds and touched
	 * as used: what they reserve can exceed what the process holds. */
	fprintf(f, "simulated        %.3f us in %.3f s wall: %llu events, %.3f M events/s; peak "
		   "RSS %.1f MiB; allocated: endpoints %.1f MiB (resident as used), fabric and "
		   "packets %.1f MiB\n",
		(double)r->end_ns / 1e3, (double)wall / 1e9, (unsigned long long)r->events,
		wall ? (double)r->events / ((double)wall / 1e9) / 1e6 : 0.0,
		(double)ru.ru_maxrss / 1024.0, (double)r->ep_mem_bytes / 1048576.0,
		(double)r->sim_mem_bytes / 1048576.0);
	fflush(f);
}

/* Members of --pcap-hosts (empty: host 0 alone). */
static uint32_t
set_size(const struct uet_perf_set *s)
{
	uint32_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->r[i].hi - s->r[i].lo + 1;
	return n ? n : 1;
}

int
main(int argc, char **argv)
{
	static struct uet_perf_opts o;
	struct uet_out_cfg oc;
	struct uet_out *out = NULL;
	char err[512] = "", version[64];
	enum uet_wl_pattern pattern = UET_WL_PAIR;
	uint64_t size;
	json_t *ts;
	int rc, exit_code = 0;

	uet_conf_set_app(UET_CONF_APP_SIM);
	rc = uet_perf_opts_parse(&o, argc, argv, err, sizeof(err));
	if (rc == UET_CONF_HELP) {
		uet_perf_opts_usage(stdout);
		return 0;
	}
	if (rc == UET_CONF_VERSION) {
		printf("uet-sim %s\n", uet_perf_version());
		return 0;
	}
	if (rc == UET_CONF_PRINT) {
		uet_perf_opts_write_effective(&o, stdout);
		return 0;
	}
	if (rc == UET_CONF_OK &&
	    (uet_out_check_paths(o.json[0] ? o.json : NULL, o.csv[0] ? o.csv : NULL, err,
				 sizeof(err)) != 0 ||
	     uet_out_check_pcap(o.pcap, set_size(&o.pcap_hosts), err, sizeof(err)) != 0))
		rc = UET_CONF_EBAD;
	if (rc != UET_CONF_OK) {
		fprintf(stderr, "uet-sim: %s\n", err);
		return UET_CONF_EXIT_USAGE;
	}
	ts = uet_simrun_describe(&o, o.min_bytes, err, sizeof(err));
	if (ts == NULL) {
		fprintf(stderr, "uet-sim: %s\n", err);
		return UET_CONF_EXIT_USAGE;
	}
	{
		char name[UET_PERF_NAME_MAX];
		size_t i;

		snprintf(name, sizeof(name), "%s", o.pattern);
		for (i = 0; name[i] != '\0'; i++)
			name[i] = name[i] == '-' ? '_' : name[i];
		(void)uet_wl_pattern_parse(name, &pattern);
	}
	snprintf(version, sizeof(version), "uet-sim %s", uet_perf_version());
	memset(&oc, 0, sizeof(oc));
	oc.version = version;
	oc.test_start = ts;
	oc.json_path = o.json[0] ? o.json : NULL;
	oc.json_stream = o.json_stream;
	oc.csv_prefix = o.csv[0] ? o.csv : NULL;
	oc.tables = true;
	oc.sweep = o.min_bytes != o.max_bytes;
	oc.verify = o.verify;
	oc.pattern = pattern;
	oc.iterations = o.duration_s > 0 ? 1 : (uint32_t)o.iters;
	oc.no_timestamp = true;
	oc.extra_key = "fabric";
	if (uet_out_open(&oc, &out, err, sizeof(err)) != 0) {
		fprintf(stderr, "uet-sim: %s\n", err);
		json_decref(ts);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* Progress on a terminal only: a pipe or a file gets the report alone. */
	if (isatty(STDERR_FILENO))
		uet_simrun_set_progress(show_progress, NULL);
	for (size = o.min_bytes; size <= o.max_bytes && !stop_flag;
	     size *= (o.step_factor > 1 ? o.step_factor : 2)) {
		struct uet_simrun_result res;
		uint64_t t0 = wall_ns();

		progress_last_ns = progress_start_ns = wall_ns();
		progress_shown = false;
		rc = uet_simrun(&o, size, out, &stop_flag, &res);
		if (progress_shown)
			fputs("\r\033[K", stderr); /* the line goes before the report */
		if (rc == UET_SIMRUN_EBAD) {
			fprintf(stderr, "uet-sim: %s\n", res.error);
			exit_code = UET_CONF_EXIT_USAGE;
			break;
		}
		if (rc != 0)
			fprintf(stderr, "uet-sim: %s\n", res.error);
		if (res.late_failures != 0)
			fprintf(stderr, "uet-sim: warning: %u failure%s never struck: %s (times take "
				"ns, us, ms or s; a bare number is seconds)\n",
				res.late_failures, res.late_failures > 1 ? "s" : "", res.note);
		if (res.meas != NULL &&
		    uet_out_result_extra(out, res.meas, res.wl, size, res.end_ns,
					 rc != 0 ? res.error : NULL, res.fabric, err,
					 sizeof(err)) != 0) {
			fprintf(stderr, "uet-sim: %s\n", err);
			exit_code = 1;
		}
		if (rc != 0 || res.meas == NULL || res.interrupted || !uet_meas_flows_ok(res.meas))
			exit_code = 1;
		if (res.meas != NULL) {
			uint64_t checked, bad;

			uet_meas_verify_get(res.meas, &checked, &bad);
			if (bad != 0) {
				fprintf(stderr, "uet-sim: %llu messages failed verification\n",
					(unsigned long long)bad);
				exit_code = 1;
			}
		}
		if (!o.json_stream && !(o.json[0] == '-' && o.json[1] == '\0'))
			print_speed(stdout, &res, wall_ns() - t0);
		uet_simrun_result_free(&res);
		if (size > o.max_bytes / (o.step_factor > 1 ? o.step_factor : 2))
			break;
	}
	if (uet_out_close(out, err, sizeof(err)) != 0) {
		fprintf(stderr, "uet-sim: %s\n", err);
		exit_code = 1;
	}
	json_decref(ts);
	return exit_code;
}
