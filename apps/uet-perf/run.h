/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PERF_RUN_H_
#define UET_PERF_RUN_H_

/*
 * One uet-perf run in this process: the local ranks' endpoints on their
 * DPDK ports, spread over the EAL lcores (each (port, queue) pair belongs
 * to one lcore; share-nothing, frames for another lcore's endpoint pass
 * through its inbox ring), the workload's flows sent as messages, the
 * measurement (one per lcore, merged at the end), and the failure hooks.
 * main.c turns options into a plan; run.c executes it, the main lcore
 * orchestrating.
 *
 * Two kinds of run:
 * - iterations: every flow of the workload is one message (tag = flow id);
 *   the run ends when every local flow completed;
 * - streams (a duration run): every flow of one iteration is a stream of
 *   messages (tag = sequence << 32 | flow id) with `parallel` in flight,
 *   sent back to back until the duration ends.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"
#include "uet/uet.h"
#include "workload/workload.h"

struct perf_rank {
	uint32_t ip;          /* data address, host byte order */
	uint8_t mac[6];
	bool has_mac;         /* known: no ARP needed for it */
	uint16_t port_id;     /* local ranks: DPDK port and queue */
	uint16_t queue;
	uint8_t prefix_len;   /* 0 = all on-link */
	uint32_t gateway;
};

struct perf_fail_ev {
	uint64_t at_ns;       /* since the run start */
	uint16_t lo, hi;
};

struct perf_exec {
	uint64_t at_ns;
	const char *cmd;
};

/*
 * What the caller hears during a run. barrier and finish are the
 * multi-process synchronisation (the control channel): each runs on a
 * helper thread while every lcore keeps polling, since peers may still
 * need this process's ARP replies and ACKs. started and interval run on
 * the main lcore: at t = 0, and as each interval ends (this process's
 * endpoints, from live counters). Any of them may be NULL.
 */
struct perf_hooks {
	void *ctx;
	int (*barrier)(void *ctx, bool peer_dead, char *err, size_t errlen);
	/* peer_dead: this process gave up on a peer during the run (a PDC
	 * reached its retry limit) or the run stalled */
	int (*finish)(void *ctx, bool peer_dead, char *err, size_t errlen);
	void (*started)(void *ctx, const struct uet_meas *m);
	void (*interval)(void *ctx, const struct uet_meas_interval *iv);
};

struct perf_plan {
	uint32_t nranks;
	struct perf_rank *ranks;     /* nranks */
	bool *local;                 /* nranks */
	struct uet_ep_config ep;     /* template; callbacks and local_ip set per rank */
	struct uet_wl_spec wl;
	bool repeat;                 /* streams until duration_ns */
	uint32_t parallel;           /* streams: messages in flight per stream */
	uint64_t duration_ns;        /* streams: the run's length, measured */
	uint64_t omit_ns;            /* streams: a warm-up before it (-O) */
	uint64_t interval_ns;        /* 0 = no interval reports */
	uint64_t bin_ns;
	uint64_t stall_ns;           /* no local progress this long: abort; 0 = never */
	bool verify;
	uint8_t dscp_data, dscp_ctrl, dscp_retx;
	bool zero_udp_csum;
	const struct perf_fail_ev *fail;
	uint32_t nfail;
	const struct perf_exec *exec;
	uint32_t nexec;
	uint16_t frame_mtu;
	uint32_t nb_mbufs;            /* per pool; 0 = lib/dpdk's */
	uint16_t nb_rxd, nb_txd;      /* 0 = lib/dpdk's */
	uint64_t arp_timeout_ns;
	const char *pcap;            /* capture path pattern (%e, %r); NULL none */
	uint64_t pcap_count;         /* frames per file at most */
	uint32_t pcap_snaplen;
	uint32_t proc_rank;          /* this process's rank, for %r */
	volatile int *stop;          /* set by SIGINT/SIGTERM */
	const char *stop_why;        /* the interrupt event's detail, once set */
	const char *stop_kind;       /* ... and its kind: "interrupt" (a signal,
				      * here or at a peer) or "peer-lost" */
	struct perf_hooks hooks;
};

struct perf_result {
	struct uet_meas *meas;       /* this process's, the caller's to free */
	struct uet_wl *wl;           /* the caller's to free */
	uint64_t end_ns;             /* the last lcore's end, relative to t = 0 */
	uint64_t verify_bad_msgs;
	bool complete;               /* every local flow finished (iterations) */
	bool interrupted;
	bool stalled;
	bool peers_lost;             /* the end-of-run barrier failed: meas is
				      * still this process's measurement */
	char error[256];
};

struct perf_ctx;

/* Remember the process's CPUs (before rte_eal_init pins the threads):
 * --exec-at commands and the control channel's watcher run there. */
void perf_save_cpus(void);
/* The calling helper thread onto those CPUs, off the polling cores. */
void perf_thread_off_lcores(void);

/* Ports (started), endpoints, lcores: 0 or -1 with a reason in err. The
 * plan's local ranks must be known; the others' addresses may come later
 * (the control channel's hello), before perf_connect. */
int perf_setup(const struct perf_plan *p, struct perf_ctx **out, char *err, size_t errlen);
/* The run's job id (UET's SES job id: requests of other jobs are dropped)
 * and its ranks' addresses (only they open PDCs here); neighbours: static
 * ones from the plan, the rest resolved with ARP (every local endpoint
 * must reach every rank, or its gateway). 0 or -1 with a reason in err. */
int perf_connect(struct perf_ctx *c, uint32_t job_id, char *err, size_t errlen);
/* Lcores that run endpoints (the main lcore first). */
uint32_t perf_lcores(const struct perf_ctx *c);
/* One run of the workload spec (the plan's, or a sweep's variant of it):
 * barrier, t = 0, flows, measurement, finish. 0, or -1 with result->error
 * set; result->meas and ->wl are the caller's to free either way. */
int perf_run_one(struct perf_ctx *c, const struct uet_wl_spec *spec, struct perf_result *result);
/* The local endpoints' transport counters, summed. */
void perf_ep_stats(struct perf_ctx *c, struct uet_ep_stats *sum);
void perf_teardown(struct perf_ctx *c);

#endif /* UET_PERF_RUN_H_ */
