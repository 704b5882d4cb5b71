/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PERF_CTRL_H_
#define UET_PERF_CTRL_H_

/*
 * The out-of-band control channel of a multi-process uet-perf run (as
 * perftest's TCP exchange, generalised to N ranks): rank 0 listens, every
 * other rank connects to it. Messages are JSON objects (jansson), each sent
 * as a 4-byte big-endian length and the compact text. The one collective
 * operation is an all-gather: every rank contributes an object and gets
 * back the array of all of them in rank order. Everything else (version and
 * config-hash check, address exchange, barrier, start, result gather) is
 * built from it. Every wait has a deadline; a peer that vanishes is an
 * error, never a hang.
 */

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

struct ctrl;

#define CTRL_RANK_ANY UINT32_MAX

/* rank 0 listens on port (all addresses) and waits for nranks - 1 peers;
 * other ranks connect to coord_ip:port, retrying until timeout_ms, and rank
 * 0 welcomes each with its rank and nranks. A peer with rank CTRL_RANK_ANY
 * (and nranks 0) takes the next free rank, in the order peers connect (a
 * pairwise client). 0 or -1 with a reason in err. */
int ctrl_open(uint32_t rank, uint32_t nranks, const char *coord_ip, uint16_t port,
	      uint32_t timeout_ms, struct ctrl **out, char *err, size_t errlen);
void ctrl_close(struct ctrl *c);
/* Every wait of the channel gives up within 0.1 s once *stop is non-zero
 * (set by a signal handler); ctrl_interrupted() then says so. */
void ctrl_set_stop(const volatile int *stop);
bool ctrl_interrupted(void);
uint32_t ctrl_rank(const struct ctrl *c);
uint32_t ctrl_nranks(const struct ctrl *c);

/* All-gather: returns (new reference) a JSON array of nranks objects, the
 * one of rank r at index r, or NULL with a reason in err. mine is not
 * stolen. */
json_t *ctrl_allgather(struct ctrl *c, json_t *mine, uint32_t timeout_ms, char *err,
		       size_t errlen);

#endif /* UET_PERF_CTRL_H_ */
