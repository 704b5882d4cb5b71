/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_REPORT_OUTPUT_H_
#define UET_REPORT_OUTPUT_H_

/*
 * The outputs of uet-perf and uet-sim over a session of one or more runs
 * (a size sweep):
 * human tables (perftest columns for pair runs, nccl-tests columns for
 * collectives, a summary otherwise), interval lines, the JSON report
 * (one object; an array of them for a sweep), the JSON stream and CSV.
 */

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "report/report.h"
#include "workload/workload.h"

struct uet_out_cfg {
	const char *version;
	const json_t *test_start;  /* the run's configuration (copied per run) */
	const char *json_path;     /* NULL: none; "-": stdout (no tables then) */
	bool json_stream;          /* events, one per line, to json_path or stdout */
	const char *csv_prefix;    /* PREFIX[-SIZE]-timeline.csv, -flows.csv */
	bool tables;               /* human tables and interval lines */
	bool sweep;                /* several sizes follow */
	bool verify;
	enum uet_wl_pattern pattern;
	uint32_t iterations;       /* collectives: time per iteration */
	bool no_timestamp;         /* start.timestamp empty: the same run gives
				    * the same bytes (simulations) */
	const char *extra_key;     /* end.<extra_key> = *extra (uet_out_result) */
};

struct uet_out;

/* 0 or -1 with a reason in err (a file that cannot be written). */
/* Before a run: can the JSON file (NULL or "-": stdout) and the CSV files
 * of prefix (NULL: none) be written? Their directory must exist and be
 * writable (and an existing file writable); nothing is created. 0, or -1
 * with err naming the option and the path. */
int uet_out_check_paths(const char *json_path, const char *csv_prefix, char *err,
			size_t errlen);

/* pattern with "%e" replaced by e (unless e is UINT32_MAX) and "%r" by r
 * (unless UINT32_MAX), into out (n bytes, truncated). The per-endpoint
 * and per-rank names of captures and reports. */
void uet_out_expand(const char *pattern, uint32_t e, uint32_t r, char *out, size_t n);
/* Before a run: --pcap's pattern for n_eps local endpoints (hosts) must
 * name each its own file (%e when n_eps > 1), and the first must be
 * writable. 0, or -1 with err naming the option. */
int uet_out_check_pcap(const char *pattern, uint32_t n_eps, char *err, size_t errlen);

int uet_out_open(const struct uet_out_cfg *cfg, struct uet_out **out, char *err,
		  size_t errlen);
/* t = 0 of a run (m: this process's measurement, for the stream's start). */
void uet_out_started(struct uet_out *o, const struct uet_meas *m, uint64_t size_bytes);
/* An interval of this process's traffic ended. */
void uet_out_interval(struct uet_out *o, const struct uet_meas_interval *iv);
/* A run's result (the whole run's measurement): a table row or summary,
 * the stream's end, CSV, the JSON report kept for close. error: the run
 * failed (said in the reports). 0 or -1 with a reason in err. */
int uet_out_result(struct uet_out *o, const struct uet_meas *m, const struct uet_wl *wl,
		    uint64_t size_bytes, uint64_t end_ns, const char *error, char *err,
		    size_t errlen);
/* The same with an object for end.<cfg.extra_key> (may be NULL). */
int uet_out_result_extra(struct uet_out *o, const struct uet_meas *m, const struct uet_wl *wl,
			 uint64_t size_bytes, uint64_t end_ns, const char *error,
			 const json_t *extra, char *err, size_t errlen);
/* Closing lines, the JSON file. 0 or -1 with a reason in err. Frees o. */
int uet_out_close(struct uet_out *o, char *err, size_t errlen);

#endif /* UET_REPORT_OUTPUT_H_ */
