/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PERF_MERGE_H_
#define UET_PERF_MERGE_H_

#include <jansson.h>

#include "report/report.h"

/* What this process measured, for process 0 (new reference). */
json_t *perf_export(const struct uet_meas *m, uint64_t end_ns);
/* Replay one process's export into g (every rank local, same flows, same
 * bin); its transport counters are added to *sum and its end time raises
 * *end_ns. 0 or UET_ERR_INVAL for a malformed export. */
int perf_import(struct uet_meas *g, struct uet_ep_stats *sum, const json_t *o, uint64_t *end_ns);

#endif /* UET_PERF_MERGE_H_ */
