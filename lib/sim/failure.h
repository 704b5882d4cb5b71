/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SIM_FAILURE_H_
#define UET_SIM_FAILURE_H_

/*
 * Failures applied to a built fabric. What can fail and how a failure is
 * written, and its parser, are text/failure.h's.
 */

#include "text/failure.h"

struct sim;
struct sim_port;

/* What a failure touched: the ports it degraded or took down (one entry
 * per port for a degradation, per cable otherwise) and the switches. */
struct sim_failure_hit {
	struct sim_port **ports;
	uint32_t nports, ports_cap;
	uint32_t *switches;
	uint32_t nswitches, switches_cap;
};

/*
 * Schedule f on the fabric: resolve its names (errors when the fabric has
 * no such link or switch), pick random selections deterministically from
 * seed, and schedule its events. converge_ns is the convergence of a spec
 * that names none (SIM_CONVERGE_NEVER: never). 0 or -1 with err.
 */
int sim_failure_apply(struct sim *s, const struct sim_failure *f, uint64_t converge_ns,
		      uint64_t seed, struct sim_failure_hit *hit, char *err, size_t errlen);

/* The port a LINK names on a built fabric (its egress toward the cores;
 * NULL with err naming f->text). */
struct sim_port *sim_failure_link(struct sim *s, const struct sim_failure *f, char *err,
				  size_t n);

#endif /* UET_SIM_FAILURE_H_ */
