/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/output.h"

struct uet_out {
	struct uet_out_cfg cfg;
	FILE *stream_f;            /* the JSON stream's file */
	struct uet_report_stream stream;
	json_t *reports;           /* one per run */
	json_t *ts;                /* test_start of the current run */
	bool header_done;
	uint32_t runs;
	char stamp[64];
	uint64_t stamp_s;
};

static const char *
coll_op(enum uet_wl_pattern p)
{
	return p == UET_WL_RING_ALLREDUCE || p == UET_WL_BUTTERFLY_ALLREDUCE ? "allreduce" : NULL;
}

static bool
json_to_stdout(const struct uet_out *o)
{
	return o->cfg.json_path != NULL && strcmp(o->cfg.json_path, "-") == 0;
}

static int
check_path(const char *opt, const char *path, char *err, size_t errlen)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');

	if (access(path, F_OK) == 0) {
		if (access(path, W_OK) != 0)
			goto bad;
		return 0;
	}
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (access(dir, W_OK | X_OK) == 0)
		return 0;
bad:
	snprintf(err, errlen, "option '%s': cannot write %.300s: %s (checked before the run)",
		 opt, path, strerror(errno));
	return -1;
}

int
uet_out_check_paths(const char *json_path, const char *csv_prefix, char *err, size_t errlen)
{
	char p[4096];

	if (json_path != NULL && json_path[0] != '\0' && strcmp(json_path, "-") != 0 &&
	    check_path("--json", json_path, err, errlen) != 0)
		return -1;
	if (csv_prefix != NULL && csv_prefix[0] != '\0') {
		snprintf(p, sizeof(p), "%s-timeline.csv", csv_prefix);
		if (check_path("--csv", p, err, errlen) != 0)
			return -1;
	}
	return 0;
}

void
uet_out_expand(const char *pattern, uint32_t e, uint32_t r, char *out, size_t n)
{
	size_t k = 0;

	if (n == 0)
		return;
	for (; *pattern != '\0' && k + 1 < n; pattern++) {
		uint32_t v = pattern[0] != '%' ? UINT32_MAX : pattern[1] == 'e' ? e
							 : pattern[1] == 'r' ? r
									     : UINT32_MAX;

		if (v != UINT32_MAX) {
			k += (size_t)snprintf(out + k, n - k, "%u", v);
			if (k >= n)
				k = n - 1;
			pattern++;
			continue;
		}
		out[k++] = *pattern;
	}
	out[k] = '\0';
}

int
uet_out_check_pcap(const char *pattern, uint32_t n_eps, char *err, size_t errlen)
{
	char p[4096];

	if (pattern == NULL || pattern[0] == '\0')
		return 0;
	if (n_eps > 1 && strstr(pattern, "%e") == NULL) {
		snprintf(err, errlen,
			 "option '--pcap': %.300s would hold %u endpoints' frames; put %%e in it "
			 "(one file each, %%e = the endpoint)",
			 pattern, n_eps);
		return -1;
	}
	uet_out_expand(pattern, 0, 0, p, sizeof(p));
	return check_path("--pcap", p, err, errlen);
}

int
uet_out_open(const struct uet_out_cfg *cfg, struct uet_out **out, char *err, size_t errlen)
{
	struct uet_out *o = calloc(1, sizeof(*o));
	time_t now = time(NULL);
	struct tm tmv;

	if (o == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	o->cfg = *cfg;
	if (!cfg->no_timestamp) {
		gmtime_r(&now, &tmv);
		strftime(o->stamp, sizeof(o->stamp), "%a, %d %b %Y %H:%M:%S GMT", &tmv);
		o->stamp_s = (uint64_t)now;
	}
	o->reports = json_array();
	if (cfg->json_stream) {
		/* The stream replaces the report in the --json target. */
		o->stream_f = cfg->json_path == NULL || json_to_stdout(o)
				      ? stdout : fopen(cfg->json_path, "w");
		if (o->stream_f == NULL) {
			snprintf(err, errlen, "cannot write %s: %s", cfg->json_path,
				 strerror(errno));
			json_decref(o->reports);
			free(o);
			return -1;
		}
		o->stream.f = o->stream_f;
		o->cfg.tables = false;
	}
	if (json_to_stdout(o))
		o->cfg.tables = false;
	*out = o;
	return 0;
}

/* A connection matrix brings its own sizes and runs once: say what they
 * are instead of the unused --size and --iters. */
static json_t *
cm_sizes(const struct uet_wl *wl)
{
	uint64_t total = 0, lo = UINT64_MAX, hi = 0;
	uint32_t i;

	for (i = 0; i < wl->nflows; i++) {
		uint64_t b = wl->flows[i].size_bytes;

		total += b;
		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	return json_pack("{s:I,s:I,s:I,s:I}", "flows", (json_int_t)wl->nflows, "total_bytes",
			 (json_int_t)total, "min_bytes", (json_int_t)(wl->nflows ? lo : 0),
			 "max_bytes", (json_int_t)hi);
}

static void
info_of(struct uet_out *o, struct uet_report_info *info, uint64_t size_bytes,
	const struct uet_wl *wl)
{
	memset(info, 0, sizeof(*info));
	json_decref(o->ts);
	o->ts = json_deep_copy(o->cfg.test_start);
	if (o->ts != NULL && o->cfg.pattern == UET_WL_CM) {
		json_object_set_new(o->ts, "size_bytes", json_null());
		json_object_set_new(o->ts, "iterations", json_null());
		if (wl != NULL)
			json_object_set_new(o->ts, "cm_sizes", cm_sizes(wl));
	} else if (o->ts != NULL) {
		json_object_set_new(o->ts, "size_bytes", json_integer((json_int_t)size_bytes));
	}
	info->version = o->cfg.version;
	info->timestamp = o->stamp[0] != '\0' ? o->stamp : NULL;
	info->timestamp_s = o->stamp_s;
	info->test_start = o->ts;
}

void
uet_out_started(struct uet_out *o, const struct uet_meas *m, uint64_t size_bytes)
{
	struct uet_report_info info;

	if (o->stream_f == NULL)
		return;
	info_of(o, &info, size_bytes, NULL);
	o->stream.intervals_done = 0;
	(void)uet_report_stream_start(&o->stream, m, &info);
	fflush(o->stream_f);
}

void
uet_out_interval(struct uet_out *o, const struct uet_meas_interval *iv)
{
	double s = (double)(iv->end_ns - iv->start_ns) / 1e9;

	if (o->stream_f != NULL) {
		(void)uet_report_stream_interval(&o->stream, iv);
		fflush(o->stream_f);
		return;
	}
	if (!o->cfg.tables)
		return;
	printf("[SUM] %6.2f-%6.2f sec  %10.3f MB  %9.3f Gb/s rx  %9.3f Gb/s tx  %8" PRIu64
	       " retx%s\n", (double)iv->start_ns / 1e9, (double)iv->end_ns / 1e9,
	       (double)iv->rx_bytes / 1e6, s > 0 ? (double)iv->rx_bytes * 8 / s / 1e9 : 0.0,
	       s > 0 ? (double)iv->tx_bytes * 8 / s / 1e9 : 0.0, iv->retx_pkts,
	       iv->omitted ? "  (omitted)" : "");
	fflush(stdout);
}

static int
write_csv(const struct uet_out *o, const char *what, const struct uet_meas *m,
	  uint64_t size_bytes, uint64_t end_ns, char *err, size_t errlen)
{
	char path[4096];
	FILE *f;
	int rc;

	if (o->cfg.sweep)
		snprintf(path, sizeof(path), "%s-%" PRIu64 "-%s.csv", o->cfg.csv_prefix,
			 size_bytes, what);
	else
		snprintf(path, sizeof(path), "%s-%s.csv", o->cfg.csv_prefix, what);
	f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	rc = strcmp(what, "timeline") == 0 ? uet_report_csv_timeline(f, m, end_ns)
					   : uet_report_csv_flows(f, m);
	if (fclose(f) != 0 || rc != 0) {
		snprintf(err, errlen, "cannot write %s", path);
		return -1;
	}
	return 0;
}

/* Patterns whose runs make a perftest table row each (a sweep: one table). */
static bool
perftest_rows(enum uet_wl_pattern p)
{
	return p == UET_WL_PAIR || p == UET_WL_PINGPONG;
}

/* A ping-pong's round trips: each pong (step 1) answers the flow before it
 * (workload.h). 0 or UET_ERR_NOMEM. */
static int
pingpong_rtt(const struct uet_meas *m, const struct uet_wl *wl, struct uet_meas_rtt *out)
{
	uint32_t *ping = malloc((wl->nflows / 2 + 1) * sizeof(*ping));
	uint32_t *pong = malloc((wl->nflows / 2 + 1) * sizeof(*pong));
	size_t n = 0;
	uint32_t i;
	int rc;

	if (ping == NULL || pong == NULL) {
		free(ping);
		free(pong);
		return UET_ERR_NOMEM;
	}
	for (i = 1; i < wl->nflows; i++) {
		if (wl->flows[i].step != 1)
			continue;
		ping[n] = i - 1;
		pong[n++] = i;
	}
	rc = uet_meas_rtt(m, ping, pong, n, out);
	free(ping);
	free(pong);
	return rc;
}

static void
tables(struct uet_out *o, const struct uet_meas *m, const struct uet_report_info *info,
       uint64_t size_bytes, uint64_t end_ns)
{
	const struct uet_report_coll *coll = info->coll;
	uint64_t checked, bad;

	uet_meas_verify_get(m, &checked, &bad);
	if (coll != NULL) {
		if (!o->header_done)
			uet_report_coll_header(stdout);
		uet_report_coll_row(stdout, coll, bad);
	} else if (o->cfg.pattern == UET_WL_PINGPONG && info->rtt != NULL) {
		if (!o->header_done)
			uet_report_lat_header(stdout);
		uet_report_lat_row(stdout, size_bytes, info->rtt);
		if (!o->cfg.sweep)
			uet_report_perftest_footer(stdout);
	} else if (o->cfg.pattern == UET_WL_PAIR) {
		if (!o->header_done)
			uet_report_perftest_header(stdout);
		uet_report_perftest_row(stdout, m);
		if (!o->cfg.sweep)
			uet_report_perftest_footer(stdout);
	} else if (o->cfg.sweep) {
		printf("# size %" PRIu64 " B\n", size_bytes);
	}
	o->header_done = true;
	/* A sweep's rows stay a table; a single run gets the details. */
	if (!o->cfg.sweep || (coll == NULL && !perftest_rows(o->cfg.pattern)))
		uet_report_summary(stdout, m, end_ns);
	fflush(stdout);
}

int
uet_out_result(struct uet_out *o, const struct uet_meas *m, const struct uet_wl *wl,
		uint64_t size_bytes, uint64_t end_ns, const char *error, char *err, size_t errlen)
{
	return uet_out_result_extra(o, m, wl, size_bytes, end_ns, error, NULL, err, errlen);
}

int
uet_out_result_extra(struct uet_out *o, const struct uet_meas *m, const struct uet_wl *wl,
		     uint64_t size_bytes, uint64_t end_ns, const char *error, const json_t *extra,
		     char *err, size_t errlen)
{
	struct uet_report_info info;
	struct uet_report_coll coll;
	struct uet_meas_rtt rtt;
	json_t *rep;

	/* end_ns is relative to the run's start; the reports take times on
	 * the measurement's clock. */
	end_ns += uet_meas_config(m)->start_ns;
	info_of(o, &info, size_bytes, wl);
	info.error = error;
	info.extra_key = o->cfg.extra_key;
	info.extra = extra;
	if (coll_op(wl->pattern) != NULL) {
		/* One iteration's time: the run's completion over iterations. */
		coll.op = coll_op(wl->pattern);
		coll.n_ranks = wl->hosts;
		coll.size_bytes = wl->coll_bytes;
		coll.time_ns = (end_ns - uet_meas_config(m)->start_ns) /
			       (o->cfg.iterations ? o->cfg.iterations : 1);
		info.coll = &coll;
	}
	if (wl->pattern == UET_WL_PINGPONG) {
		if (pingpong_rtt(m, wl, &rtt) != 0) {
			snprintf(err, errlen, "out of memory for the round trips");
			return -1;
		}
		info.rtt = &rtt;
	}
	o->runs++;
	if (o->cfg.tables)
		tables(o, m, &info, size_bytes, end_ns);
	if (o->stream_f != NULL) {
		if (uet_report_stream_end(&o->stream, m, &info, end_ns) != 0 ||
		    (error != NULL && uet_report_stream_error(&o->stream, error) != 0)) {
			snprintf(err, errlen, "cannot write the JSON stream");
			return -1;
		}
		fflush(o->stream_f);
	} else if (o->cfg.json_path != NULL) {
		rep = uet_report_json(m, &info, end_ns);
		if (rep == NULL || json_array_append_new(o->reports, rep) != 0) {
			snprintf(err, errlen, "out of memory for the JSON report");
			return -1;
		}
	}
	if (o->cfg.csv_prefix != NULL &&
	    (write_csv(o, "timeline", m, size_bytes, end_ns, err, errlen) != 0 ||
	     write_csv(o, "flows", m, size_bytes, end_ns, err, errlen) != 0))
		return -1;
	return 0;
}

int
uet_out_close(struct uet_out *o, char *err, size_t errlen)
{
	int rc = 0;

	if (o->cfg.tables && o->header_done && o->cfg.sweep && perftest_rows(o->cfg.pattern))
		uet_report_perftest_footer(stdout);
	if (o->stream_f == NULL && o->cfg.json_path != NULL && o->runs > 0) {
		/* One run: its report; a sweep: the array of them. */
		json_t *doc = o->cfg.sweep ? o->reports : json_array_get(o->reports, 0);
		FILE *f = json_to_stdout(o) ? stdout : fopen(o->cfg.json_path, "w");

		if (f == NULL) {
			snprintf(err, errlen, "cannot write %s: %s", o->cfg.json_path,
				 strerror(errno));
			rc = -1;
		} else {
			if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) != 0 ||
			    fputc('\n', f) == EOF)
				rc = -1;
			if (f != stdout && fclose(f) != 0)
				rc = -1;
			if (rc != 0)
				snprintf(err, errlen, "cannot write the JSON report to %s",
					 o->cfg.json_path);
		}
	}
	if (o->stream_f != NULL && o->stream_f != stdout && fclose(o->stream_f) != 0 && rc == 0) {
		snprintf(err, errlen, "cannot write the JSON stream to %s", o->cfg.json_path);
		rc = -1;
	}
	fflush(stdout);
	json_decref(o->reports);
	json_decref(o->ts);
	free(o);
	return rc;
}
