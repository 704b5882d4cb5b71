/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SIMRUN_SIMRUN_H_
#define UET_SIMRUN_SIMRUN_H_

/*
 * One uet-sim run: the options (lib/conf, uet-sim's set) become a fat tree
 * (lib/sim), an endpoint per host sized for its share of the workload, the
 * scheduled failures, and the workload driven by the same driver and
 * measured by the same measurement as uet-perf's (lib/driver,
 * lib/report). apps/uet-sim and the trend tests in tests/sim call it, so
 * the tests run exactly what the command line runs.
 *
 * Deterministic: the same options give the same measurement and counters
 * (no wall clock is read here).
 */

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "conf/conf.h"
#include "report/output.h"
#include "report/report.h"
#include "workload/workload.h"

struct uet_simrun_result {
	struct uet_meas *meas;   /* the caller's to free */
	struct uet_wl *wl;       /* the caller's to free */
	json_t *fabric;          /* end.fabric: counters, failures; the caller's */
	json_t *test_start;      /* the run's configuration; the caller's */
	uint64_t end_ns;         /* simulated ns from t = 0 to the end */
	uint64_t events;         /* simulator events run */
	uint64_t sim_mem_bytes;  /* fabric, events, packet pool at the end */
	uint64_t ep_mem_bytes;   /* every host's endpoint */
	bool complete;           /* iterations: every flow completed */
	bool interrupted;        /* *stop was set */
	uint32_t late_failures;  /* failures timed after the run ended: never
				  * happened (note[] names the first) */
	char note[160];
	char error[256];
};

#define UET_SIMRUN_EBAD (-2) /* a bad option value: error names it (exit 2) */

/*
 * Run the options' workload with messages of size_bytes (a sweep calls it
 * per size). out, when not NULL, hears t = 0 and every interval (in
 * simulated time) as the run goes. stop: checked every bin of simulated
 * time (SIGINT). Returns 0; UET_SIMRUN_EBAD for an option value that
 * does not fit the fabric (the error names the option; nothing ran); or
 * -1 with result->error when the run failed (its results are still
 * there: a stuck fabric, ...).
 */
int uet_simrun(const struct uet_perf_opts *o, uint64_t size_bytes, struct uet_out *out,
	       const volatile int *stop, struct uet_simrun_result *result);
void uet_simrun_result_free(struct uet_simrun_result *r);

/* Progress, for a terminal: fn hears the run after every bin of simulated
 * time (it decides when to show it; this module reads no clock). NULL
 * turns it off; one setting for the process. */
struct uet_simrun_progress {
	uint64_t sim_ns;      /* simulated time so far */
	uint64_t events;      /* events run so far */
	uint64_t rx_bytes;    /* payload delivered so far */
	uint32_t flows;       /* flows of the workload */
	const struct uet_meas *meas; /* the flows' state (uet_meas_flow_get):
				      * costs a pass over them, so only when
				      * shown */
};
typedef void (*uet_simrun_progress_fn)(void *ctx, const struct uet_simrun_progress *p);
void uet_simrun_set_progress(uet_simrun_progress_fn fn, void *ctx);

/* The run's configuration as the report's start.test_start shows it
 * (fabric shape and queues, transport, failures) without running: a new
 * object, or NULL with the reason (UET_SIMRUN_EBAD-worthy) in err. */
json_t *uet_simrun_describe(const struct uet_perf_opts *o, uint64_t size_bytes, char *err,
			    size_t errlen);

#endif /* UET_SIMRUN_SIMRUN_H_ */
