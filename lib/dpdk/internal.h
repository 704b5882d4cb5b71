/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_DPDK_INTERNAL_H_
#define UET_DPDK_INTERNAL_H_

/* Between the files of lib/dpdk; not part of its API. */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "dpdk/dpdk.h"

struct uet_dpdk_tel;

/* A port's TX pool: what the hosts send. No PMD receives into it, its data
 * rooms are zeroed when it is created, and each mbuf's private area says
 * how far from the start of its data anything but zeros may have been
 * written. Bytes beyond that are zero: a software UDP checksum skips them,
 * so a payload nobody filled (uet-perf without --verify) is not summed. */
struct uet_dpdk_txpriv {
	uint32_t dirty_bytes;
	uint32_t pad;
};

static inline struct uet_dpdk_txpriv *
uet_dpdk_txpriv(struct rte_mbuf *m)
{
	return rte_mbuf_to_priv(m);
}

/* telemetry.c: an lcore's slot (NULL when telemetry is off or full):
 * room for a snapshot of its hosts and its own per-EV counters. */
struct uet_dpdk_tel *uet_dpdk_tel_attach(struct uet_dpdk_host *const *hosts, uint32_t n);
void uet_dpdk_tel_detach(struct uet_dpdk_tel *t);
/* Count a packet sent on ev, or a CE-marked ACK for it. */
void uet_dpdk_tel_ev(struct uet_dpdk_tel *t, uint16_t ev, bool ce);
/* Refresh the snapshot the telemetry thread reads (at most once per
 * millisecond; cheap otherwise). */
void uet_dpdk_tel_publish(struct uet_dpdk_tel *t, struct uet_dpdk_host *const *hosts,
			  uint32_t n, uint64_t now_ns);

#endif /* UET_DPDK_INTERNAL_H_ */
