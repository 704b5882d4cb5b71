/* SPDX-License-Identifier: BSD-3-Clause */
/* Options (lib/conf) to a workload spec (lib/workload): the one mapping
 * uet-perf and uet-sim share. */
#include <stdio.h>
#include <string.h>

#include "driver/driver.h"

int
uet_drv_spec_from_opts(const struct uet_perf_opts *o, uint32_t nranks, uint64_t link_bps,
		       struct uet_wl_spec *s, bool *repeat, char *err, size_t errlen)
{
	char name[UET_PERF_NAME_MAX];
	size_t i;

	snprintf(name, sizeof(name), "%s", o->pattern);
	for (i = 0; name[i] != '\0'; i++)
		if (name[i] == '-')
			name[i] = '_';
	memset(s, 0, sizeof(*s));
	if (uet_wl_pattern_parse(name, &s->pattern) != 0) {
		snprintf(err, errlen, "option '--pattern': '%s' is not known", o->pattern);
		return -1;
	}
	/* The workload's own checks name no option: these two, ranks of the
	 * run, are the user's to fix. */
	if (nranks > 0 && o->root >= nranks) {
		snprintf(err, errlen, "option '--root': %u is not a rank of the run (ranks 0..%u)",
			 o->root, nranks - 1);
		return -1;
	}
	if (nranks > 0 && o->fanin > nranks - 1 &&
	    (s->pattern == UET_WL_INCAST || s->pattern == UET_WL_OUTCAST)) {
		snprintf(err, errlen, "option '--fanin': %u senders, but the run has %u other ranks",
			 o->fanin, nranks - 1);
		return -1;
	}
	s->hosts = nranks;
	s->size_bytes = o->size_bytes;
	s->streams = o->streams;
	s->iterations = (uint32_t)o->iters;
	s->seed = o->seed;
	s->fanin = o->fanin;
	s->root = o->root;
	s->parallel = o->parallel;
	s->rate_bps = (uint64_t)(o->rate_gbps * 1e9 + 0.5);
	s->load = o->load;
	s->link_bps = link_bps;
	s->duration_ns = (uint64_t)(o->duration_s * 1e9);
	s->cm_path = o->cm[0] ? o->cm : NULL;
	/* A duration makes every flow a stream of messages, except for the
	 * web-search trace, whose duration is its arrival window. */
	*repeat = o->duration_s > 0 && s->pattern != UET_WL_WEBSEARCH;
	if (*repeat || s->pattern == UET_WL_WEBSEARCH || s->pattern == UET_WL_CM)
		s->iterations = 1;
	return 0;
}
