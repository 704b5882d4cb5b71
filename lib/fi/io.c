/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's I/O: the EAL, one DPDK port and one libuet host (endpoint,
 * framing, ARP) in the application's process, polled from the
 * application's thread (lib/dpdk's lcore loop with one host). No DPDK
 * header here: lib/dpdk is the only DPDK code of the library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "dpdk/dpdk.h"
#include "fi/uet_fi.h"

#define EAL_ARGS_MAX 64

struct ufi_io {
	struct uet_dpdk_port port;
	struct uet_dpdk_host *host;
	struct uet_dpdk_lcore *lc;
	struct uet_dpdk_clock clock;
	struct uet_perf_algo_cfg algo;
};

/* The EAL starts once per process and cannot start again after
 * rte_eal_cleanup(): it stays up until the provider is unloaded. */
static bool eal_up;
static char eal_buf[1100];
static char prefix_arg[64];

static int
eal_start(const struct ufi_params *p, char *err, size_t errlen)
{
	char *argv[EAL_ARGS_MAX + 2], *save = NULL, *tok;
	bool own_dir = false;
	int argc = 0;

	if (eal_up)
		return 0;
	snprintf(eal_buf, sizeof(eal_buf), "%s", p->eal);
	argv[argc++] = (char *)"libuet-fi";
	for (tok = strtok_r(eal_buf, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		if (argc == EAL_ARGS_MAX) {
			snprintf(err, errlen, "FI_UET_EAL: more than %d arguments", EAL_ARGS_MAX - 1);
			return -FI_EINVAL;
		}
		if (strncmp(tok, "--file-prefix", 13) == 0 || strcmp(tok, "--in-memory") == 0 ||
		    strcmp(tok, "--no-shconf") == 0)
			own_dir = true;
		argv[argc++] = tok;
	}
	/* Every process its own runtime directory: ranks on one machine
	 * are separate DPDK primaries. lib/dpdk removes it at exit. */
	if (!own_dir) {
		snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=uet-fi-%ld", (long)getpid());
		argv[argc++] = prefix_arg;
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
	uet_dpdk_clock_init(&io->clock);
	*ep = uet_dpdk_host_ep(io->host);
	*out = io;
	return 0;

fail_port:
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
	uet_dpdk_lcore_poll(io->lc, uet_dpdk_now_ns(&io->clock));
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
