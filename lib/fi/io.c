/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's I/O: the EAL, one DPDK port and one libuet host (endpoint,
 * framing, ARP) in the application's process, polled from the
 * application's thread (lib/dpdk's lcore loop with one host). No DPDK
 * header here: lib/dpdk is the only DPDK code of the library.
 */
#define _GNU_SOURCE /* sched_getaffinity, sched_getcpu */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "dpdk/dpdk.h"
#include "fi/uet_fi.h"
#include "report/report.h"

#define EAL_ARGS_MAX 64

/* FI_UET_REPORT's timeline bin, and how often the transport's counters
 * are folded into it. */
#define REPORT_BIN_NS 1000000ull

struct ufi_io {
	struct uet_dpdk_port port;
	struct uet_dpdk_host *host;
	struct uet_dpdk_lcore *lc;
	struct uet_dpdk_clock clock;
	struct uet_perf_algo_cfg algo;
	/* FI_UET_REPORT: the process's measurement, as uet-perf keeps it. */
	struct uet_meas *meas;
	const struct ufi_params *params;
	uint64_t start_ns, next_fold_ns, last_tx_bytes, start_realtime_s;
	int cpu;                /* where the EAL pinned the thread */
};

static void
on_ev(void *ctx, uint16_t ev, bool ce_ack)
{
	if (ce_ack)
		(void)uet_meas_ev_ce(ctx, ev);
	else
		(void)uet_meas_ev_tx(ctx, ev);
}

/* The transport's counters into the measurement: what was sent since the
 * last fold goes into the bin of now_ns. */
static void
fold(struct ufi_io *io, uint64_t now_ns)
{
	const struct uet_ep_stats *s = uet_ep_stats(uet_dpdk_host_ep(io->host));

	if (s->tx_data_bytes > io->last_tx_bytes)
		(void)uet_meas_tx_bytes(io->meas, now_ns, s->tx_data_bytes - io->last_tx_bytes);
	io->last_tx_bytes = s->tx_data_bytes;
	(void)uet_meas_set_ep_stats(io->meas, now_ns, s);
	io->next_fold_ns = now_ns + REPORT_BIN_NS;
}

static int
report_open(struct ufi_io *io, const struct uet_ep_config *ep, char *err, size_t errlen)
{
	struct uet_meas_config mc = { 0 };
	struct timespec ts;

	mc.n_ranks = 1;
	mc.ev_base = ep->ev_base;
	mc.ev_count = ep->ev_count;
	mc.start_ns = io->start_ns;
	mc.bin_ns = REPORT_BIN_NS;
	mc.uet_strict = ep->strict;
	if (uet_meas_create(&mc, &io->meas) != 0) {
		snprintf(err, errlen, "FI_UET_REPORT: no memory for the measurement");
		return -FI_ENOMEM;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	io->start_realtime_s = (uint64_t)ts.tv_sec;
	io->next_fold_ns = io->start_ns + REPORT_BIN_NS;
	return 0;
}

/* uet-perf's JSON report of this process, to FI_UET_REPORT. */
static void
report_write(struct ufi_io *io)
{
	const struct ufi_params *p = io->params;
	uint64_t now = uet_dpdk_now_ns(&io->clock);
	struct uet_report_info info = { 0 };
	json_t *ts = json_object();
	char when[64], ip[16];
	struct tm tm;
	time_t t = (time_t)io->start_realtime_s;
	FILE *f;

	fold(io, now);
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", p->ip >> 24, (p->ip >> 16) & 255,
		 (p->ip >> 8) & 255, p->ip & 255);
	json_object_set_new(ts, "provider", json_string(UFI_PROV_NAME));
	json_object_set_new(ts, "rank", json_integer(p->rank));
	json_object_set_new(ts, "local_rank", json_integer(p->local_rank));
	json_object_set_new(ts, "cpu", json_integer(io->cpu));
	json_object_set_new(ts, "ip", json_string(ip));
	json_object_set_new(ts, "lb", json_string(p->opts.lb));
	json_object_set_new(ts, "cc", json_string(p->opts.cc));
	json_object_set_new(ts, "mtu_bytes", json_integer(p->opts.mtu_bytes));
	json_object_set_new(ts, "ack_every_bytes", json_integer(p->opts.ack_every_bytes));
	info.version = "libuet-fi " UFI_VERSION_STR;
	info.timestamp = when;
	info.timestamp_s = io->start_realtime_s;
	info.test_start = ts;
	f = fopen(p->report, "w");
	if (f == NULL || uet_report_write_json(f, io->meas, &info, now) != 0)
		UFI_WARN(FI_LOG_CORE, "FI_UET_REPORT: cannot write %s\n", p->report);
	if (f != NULL)
		fclose(f);
	json_decref(ts);
}

/* The EAL starts once per process and cannot start again after
 * rte_eal_cleanup(): it stays up until the provider is unloaded. */
static bool eal_up;
static char eal_buf[1100];
static char prefix_arg[64];
static char no_shconf_arg[] = "--no-shconf";
static char lcore_arg[32];

/* Whether an EAL argument chooses lcores or their CPUs (-l, -c, --lcores,
 * --main-lcore, -s). */
static bool
names_lcores(const char *tok)
{
	return strncmp(tok, "-l", 2) == 0 || strncmp(tok, "-c", 2) == 0 ||
	       strncmp(tok, "-s", 2) == 0 || strncmp(tok, "--lcores", 8) == 0 ||
	       strncmp(tok, "--main-lcore", 12) == 0 || strncmp(tok, "--master-lcore", 14) == 0;
}

/* The local rank's CPU: the n-th of those the process may run on (modulo
 * their count), or -1. EAL pins the thread to its main lcore, by default
 * the first of them: ranks that mpirun did not bind (oversubscribed, or
 * hosts that are namespaces of one machine) would all share one CPU. */
static int
rank_cpu(uint32_t local_rank)
{
	cpu_set_t set;
	int n, i;

	if (sched_getaffinity(0, sizeof(set), &set) != 0 || (n = CPU_COUNT(&set)) == 0)
		return -1;
	n = (int)(local_rank % (uint32_t)n);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set) && n-- == 0)
			return i;
	return -1;
}

static int
eal_start(const struct ufi_params *p, char *err, size_t errlen)
{
	char *argv[EAL_ARGS_MAX + 2], *save = NULL, *tok;
	bool own_dir = false, lcores = false;
	int argc = 0, cpu;

	if (eal_up)
		return 0;
	snprintf(eal_buf, sizeof(eal_buf), "%s", p->eal);
	argv[argc++] = (char *)"libuet-fi";
	for (tok = strtok_r(eal_buf, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		if (argc == EAL_ARGS_MAX - 3) {
			snprintf(err, errlen, "FI_UET_EAL: more than %d arguments", EAL_ARGS_MAX - 4);
			return -FI_EINVAL;
		}
		if (strncmp(tok, "--file-prefix", 13) == 0 || strcmp(tok, "--in-memory") == 0 ||
		    strcmp(tok, "--no-shconf") == 0)
			own_dir = true;
		lcores = lcores || names_lcores(tok);
		argv[argc++] = tok;
	}
	cpu = lcores ? -1 : rank_cpu(p->local_rank);
	if (cpu >= 0) {
		/* lcore 0 on that CPU: CPU numbers may pass RTE_MAX_LCORE. */
		snprintf(lcore_arg, sizeof(lcore_arg), "--lcores=0@%d", cpu);
		argv[argc++] = lcore_arg;
	}
	/* Every process its own runtime directory (ranks on one machine are
	 * separate DPDK primaries), and no shared configuration in it, so
	 * that it is empty at exit and lib/dpdk removes it. */
	if (!own_dir) {
		snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=uet-fi-%ld", (long)getpid());
		argv[argc++] = prefix_arg;
		argv[argc++] = no_shconf_arg;
	}
	argv[argc] = NULL;
	if (uet_dpdk_eal_init(argc, argv, err, errlen) < 0)
		return -FI_EINVAL;
	eal_up = true;
	return 0;
}

int
ufi_io_open(const struct ufi_params *p, const struct uet_callbacks *cb, void *user,
	    uint32_t max_recvs, struct ufi_io **out, struct uet_ep **ep, char *err, size_t errlen)
{
	struct uet_dpdk_port_cfg pc = { 0 };
	struct uet_dpdk_host_cfg hc;
	struct ufi_io *io;
	uint64_t nonce = 0;
	int rc;

	rc = eal_start(p, err, errlen);
	if (rc != 0)
		return rc;
	io = calloc(1, sizeof(*io));
	if (io == NULL)
		return -FI_ENOMEM;
	io->cpu = sched_getcpu(); /* the main lcore's, where EAL pinned us */
	pc.port_id = 0;
	pc.nb_queues = 1;
	pc.frame_mtu = (uint16_t)(uet_perf_ip_mtu_bytes(&p->opts) + 14);
	if (uet_dpdk_port_setup(&pc, &io->port, err, errlen) != 0) {
		free(io);
		return -FI_EINVAL;
	}

	memset(&hc, 0, sizeof(hc));
	hc.port = &io->port;
	hc.queue = 0;
	hc.ip = p->ip;
	hc.prefix_len = p->prefix_len;
	hc.gateway = p->gateway;
	uet_dscp_map_default(&hc.dscp);
	hc.dscp.tc[UET_TC_DATA] = p->opts.dscp_data;
	hc.dscp.tc[UET_TC_CONTROL] = p->opts.dscp_ctrl;
	hc.dscp.tc[UET_TC_RETX] = p->opts.dscp_retx;
	hc.zero_udp_csum = p->opts.zero_udp_csum;
	if (uet_perf_opts_to_ep_config(&p->opts, &hc.ep, &io->algo, err, errlen) != 0)
		goto fail_port;
	/* A restarted process is a new peer to those that knew the old one. */
	if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
		nonce = (uint64_t)getpid() << 32;
	hc.ep.start_nonce = nonce | 1;
	hc.ep.cb = *cb;
	hc.ep.user = user;
	io->params = p;
	uet_dpdk_clock_init(&io->clock);
	io->start_ns = uet_dpdk_now_ns(&io->clock);
	if (p->report[0] != '\0') {
		if (report_open(io, &hc.ep, err, errlen) != 0)
			goto fail_port;
		hc.on_ev = on_ev;
		hc.on_ev_ctx = io->meas;
	}
	hc.ep.max_posted_recvs = max_recvs;
	/* MPI's send-after-send rule (FI_ORDER_SAS). */
	hc.ep.match_in_order = true;
	if (uet_dpdk_host_create(&hc, &io->host, err, errlen) != 0)
		goto fail_port;
	if (uet_dpdk_lcore_create(&io->host, 1, &io->lc) != 0) {
		snprintf(err, errlen, "out of memory for the poll loop");
		uet_dpdk_host_destroy(io->host);
		goto fail_port;
	}
	*ep = uet_dpdk_host_ep(io->host);
	*out = io;
	return 0;

fail_port:
	uet_meas_destroy(io->meas);
	uet_dpdk_port_close(&io->port);
	free(io);
	return -FI_EINVAL;
}

uint64_t
ufi_io_now(const struct ufi_io *io)
{
	return uet_dpdk_now_ns(&io->clock);
}

void
ufi_io_poll(struct ufi_io *io)
{
	uint64_t now = uet_dpdk_now_ns(&io->clock);

	uet_dpdk_lcore_poll(io->lc, now);
	if (io->meas != NULL && now >= io->next_fold_ns)
		fold(io, now);
}

void
ufi_io_rx_bytes(struct ufi_io *io, uint64_t bytes)
{
	if (io->meas != NULL)
		(void)uet_meas_rx_bytes(io->meas, uet_dpdk_now_ns(&io->clock), bytes);
}

void
ufi_io_kick(struct ufi_io *io)
{
	uet_dpdk_lcore_kick(io->lc, io->host);
}

void
ufi_io_resolve(struct ufi_io *io, uint32_t ip)
{
	if (!uet_dpdk_host_has_neigh(io->host, ip))
		uet_dpdk_host_resolve(io->host, ip);
}

void
ufi_io_close(struct ufi_io *io)
{
	if (io == NULL)
		return;
	if (io->meas != NULL) {
		report_write(io);
		uet_meas_destroy(io->meas);
	}
	uet_dpdk_lcore_destroy(io->lc);
	uet_dpdk_host_destroy(io->host);
	uet_dpdk_port_close(&io->port);
	free(io);
}

void
ufi_io_cleanup(void)
{
	if (eal_up)
		uet_dpdk_eal_cleanup();
	eal_up = false;
}
