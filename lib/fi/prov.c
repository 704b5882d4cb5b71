/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's entry point, parameters, fi_getinfo() and fabric.
 *
 * The provider offers itself only where it is configured (FI_UET_EAL and
 * FI_UET_ADDR set): a machine where libuet-fi.so is installed but not set
 * up must not have MPI pick it over a working provider.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fi/uet_fi.h"

static int ufi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
		       const struct fi_info *hints, struct fi_info **info);
static void ufi_cleanup(void);

struct fi_provider ufi_prov = {
	.name = UFI_PROV_NAME,
	.version = UFI_PROV_VERSION,
	.fi_version = UFI_FI_VERSION,
	.getinfo = ufi_getinfo,
	.fabric = ufi_fabric_open,
	.cleanup = ufi_cleanup,
};

static const struct {
	const char *name;
	enum fi_param_type type;
	const char *help;
} params[] = {
	{ "eal", FI_PARAM_STRING,
	  "DPDK EAL arguments, e.g. \"--no-huge -m 512 --no-pci "
	  "--vdev=net_af_packet0,iface=eth1\"; %l becomes the launcher's local rank and %r "
	  "the rank (one setting for several processes on a machine). Required" },
	{ "addr", FI_PARAM_STRING,
	  "IPv4 address of the endpoint of local rank 0, each further local rank taking the "
	  "next; or a comma-separated list, local rank n taking the n-th. Required" },
	{ "prefix", FI_PARAM_INT, "on-link prefix length of addr (default 0: every peer on-link)" },
	{ "gateway", FI_PARAM_STRING,
	  "next hop for peers off-link; a comma-separated list: local rank n takes the n-th" },
	{ "config", FI_PARAM_STRING, "uet-perf INI file whose [transport] settings apply" },
	{ "opts", FI_PARAM_STRING,
	  "more uet-perf transport options, e.g. \"--base-rtt-ns 20000 --link-gbps 25\"" },
	{ "lb", FI_PARAM_STRING, "load balancer: ops, reps, ecmp, bitmap, ... (uet-perf --lb)" },
	{ "cc", FI_PARAM_STRING, "congestion control: fixed, nscc, dctcp, ... (uet-perf --cc)" },
	{ "loss_detect", FI_PARAM_STRING, "adaptive or nack-rto (uet-perf --loss-detect)" },
	{ "ev_count", FI_PARAM_INT, "entropy values (UDP source ports) a PDC sprays over" },
	{ "mtu", FI_PARAM_INT, "UET payload bytes per packet (uet-perf --mtu)" },
	{ "dscp", FI_PARAM_STRING, "DSCP of data[,control[,retransmissions]]" },
	{ "seed", FI_PARAM_STRING, "seed of the endpoint's random draws (default: the rank)" },
	{ "report", FI_PARAM_STRING,
	  "write uet-perf's JSON report of this process to this file when its endpoint closes; "
	  "%r becomes the rank, %l the local rank" },
};

/* Appends "--name value" to an argument vector. */
static int
push_arg(char **argv, int *argc, int max, const char *a, const char *b)
{
	if (*argc + 2 >= max)
		return -1;
	argv[(*argc)++] = (char *)a;
	if (b != NULL)
		argv[(*argc)++] = (char *)b;
	return 0;
}

static const char *
param_str(const char *name)
{
	char *v = NULL;

	if (fi_param_get_str(&ufi_prov, name, &v) != FI_SUCCESS || v == NULL || *v == '\0')
		return NULL;
	return v;
}

/* The IPv4 address of a parameter's value for local rank lr: the one
 * address (plus lr where step), or the lr-th of a comma-separated list. */
static int
rank_addr(const char *name, const char *v, uint32_t lr, bool step, uint32_t *ip, char *why,
	  size_t whylen)
{
	char buf[64];
	const char *s = v, *e;
	uint32_t i = 0;
	struct in_addr a;
	bool list = strchr(v, ',') != NULL;

	for (;;) {
		e = strchr(s, ',');
		if (!list || i == lr)
			break;
		if (e == NULL) {
			snprintf(why, whylen, "FI_UET_%s lists %u addresses, and this is local rank %u",
				 name, i + 1, lr);
			return -1;
		}
		s = e + 1;
		i++;
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)(e != NULL ? (size_t)(e - s) : strlen(s)), s);
	if (inet_pton(AF_INET, buf, &a) != 1) {
		snprintf(why, whylen, "FI_UET_%s: '%.40s' is not an IPv4 address", name, buf);
		return -1;
	}
	*ip = ntohl(a.s_addr) + (step && !list ? lr : 0);
	return 0;
}

/* %l and %r of s replaced by the local rank and the rank (lib/conf's
 * expansion, as uet-perf's EAL arguments have it). */
static int
expand_ranks(const char *name, const char *s, const struct ufi_params *p, bool have_local,
	     char *out, size_t n, char *why, size_t whylen)
{
	int rc = uet_perf_expand_ranks(s, p->rank, have_local ? p->local_rank : UINT32_MAX, out,
				       n);

	if (rc == UET_CONF_EBAD)
		snprintf(why, whylen, "FI_UET_%s: %%l: no launcher says the local rank "
			 "(OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, ...)", name);
	else if (rc != 0)
		snprintf(why, whylen, "FI_UET_%s: '%.60s...' is too long", name, s);
	return rc;
}

int
ufi_params_read(struct ufi_params *p, char *why, size_t whylen)
{
	struct uet_perf_launcher l;
	const char *eal = param_str("eal"), *addr = param_str("addr"), *v;
	char *argv[96], *opts_copy = NULL, *tok, *save = NULL;
	char ev_buf[16], mtu_buf[16], dscp_buf[3][8], seed_buf[24];
	int argc = 0, iv, rc;
	bool have_local;

	memset(p, 0, sizeof(*p));
	if (eal == NULL || addr == NULL) {
		snprintf(why, whylen, "FI_UET_EAL and FI_UET_ADDR must be set");
		return -FI_ENODATA;
	}
	if (uet_perf_launcher_from_env(getenv, &l, why, whylen) < 0)
		return -FI_ENODATA;
	p->rank = l.present ? l.rank : 0;
	have_local = l.present && l.local_rank != UINT32_MAX;
	p->local_rank = have_local ? l.local_rank : 0;
	if (expand_ranks("EAL", eal, p, have_local, p->eal, sizeof(p->eal), why, whylen) != 0)
		return -FI_ENODATA;
	if (rank_addr("ADDR", addr, p->local_rank, true, &p->ip, why, whylen) != 0)
		return -FI_ENODATA;
	if ((v = param_str("report")) != NULL &&
	    expand_ranks("REPORT", v, p, have_local, p->report, sizeof(p->report), why,
			 whylen) != 0)
		return -FI_ENODATA;
	if (fi_param_get_int(&ufi_prov, "prefix", &iv) == FI_SUCCESS) {
		if (iv < 0 || iv > 32) {
			snprintf(why, whylen, "FI_UET_PREFIX %d is not a prefix length (0-32)", iv);
			return -FI_ENODATA;
		}
		p->prefix_len = (uint8_t)iv;
	}
	if ((v = param_str("gateway")) != NULL &&
	    rank_addr("GATEWAY", v, p->local_rank, false, &p->gateway, why, whylen) != 0)
		return -FI_ENODATA;

	/* The transport's settings go through uet-perf's option parser: the
	 * same names, values, checks and messages as the tools'. */
	argv[argc++] = (char *)"FI_UET";
	if ((v = param_str("config")) != NULL)
		push_arg(argv, &argc, 96, "--config", v);
	if ((v = param_str("lb")) != NULL)
		push_arg(argv, &argc, 96, "--lb", v);
	if ((v = param_str("cc")) != NULL)
		push_arg(argv, &argc, 96, "--cc", v);
	if ((v = param_str("loss_detect")) != NULL)
		push_arg(argv, &argc, 96, "--loss-detect", v);
	if (fi_param_get_int(&ufi_prov, "ev_count", &iv) == FI_SUCCESS) {
		snprintf(ev_buf, sizeof(ev_buf), "%d", iv);
		push_arg(argv, &argc, 96, "--ev-count", ev_buf);
	}
	if (fi_param_get_int(&ufi_prov, "mtu", &iv) == FI_SUCCESS) {
		snprintf(mtu_buf, sizeof(mtu_buf), "%d", iv);
		push_arg(argv, &argc, 96, "--mtu", mtu_buf);
	}
	if ((v = param_str("dscp")) != NULL) {
		static const char *const names[3] = { "--dscp-data", "--dscp-ctrl", "--dscp-retx" };
		unsigned d[3];
		int k = sscanf(v, "%u,%u,%u", &d[0], &d[1], &d[2]);

		for (int i = 0; i < k && i < 3; i++) {
			snprintf(dscp_buf[i], sizeof(dscp_buf[i]), "%u", d[i]);
			push_arg(argv, &argc, 96, names[i], dscp_buf[i]);
		}
		if (k < 1) {
			snprintf(why, whylen, "FI_UET_DSCP '%.40s': DATA[,CONTROL[,RETX]]", v);
			return -FI_ENODATA;
		}
	}
	snprintf(seed_buf, sizeof(seed_buf), "%u", p->rank + 1);
	if ((v = param_str("seed")) == NULL)
		v = seed_buf;
	push_arg(argv, &argc, 96, "--seed", v);
	if ((v = param_str("opts")) != NULL) {
		opts_copy = strdup(v);
		if (opts_copy == NULL)
			return -FI_ENOMEM;
		for (tok = strtok_r(opts_copy, " \t", &save); tok != NULL;
		     tok = strtok_r(NULL, " \t", &save)) {
			if (push_arg(argv, &argc, 96, tok, NULL) != 0) {
				snprintf(why, whylen, "FI_UET_OPTS has too many words");
				free(opts_copy);
				return -FI_ENODATA;
			}
		}
	}
	argv[argc] = NULL;
	rc = uet_perf_opts_parse(&p->opts, argc, argv, why, whylen);
	free(opts_copy);
	if (rc != UET_CONF_OK) {
		if (rc != UET_CONF_EBAD)
			snprintf(why, whylen, "FI_UET_OPTS: --help, --version and --print-config "
				 "are the tools'");
		return -FI_ENODATA;
	}
	return 0;
}

/* What the provider offers, for the parameters p. */
void
ufi_fill_info(struct fi_info *fi, const struct ufi_params *p)
{
	struct sockaddr_in *sin = calloc(1, sizeof(*sin));
	char buf[INET_ADDRSTRLEN + 8];
	struct in_addr a = { .s_addr = htonl(p->ip) };

	fi->caps = UFI_CAPS;
	fi->mode = 0;
	fi->addr_format = FI_SOCKADDR_IN;
	if (sin != NULL) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(UET_UDP_PORT);
		sin->sin_addr = a;
		fi->src_addr = sin;
		fi->src_addrlen = sizeof(*sin);
	}

	fi->tx_attr->caps = UFI_CAPS & ~(FI_RECV | FI_DIRECTED_RECV | FI_SOURCE);
	fi->tx_attr->op_flags = FI_TRANSMIT_COMPLETE;
	fi->tx_attr->msg_order = FI_ORDER_SAS;
	fi->tx_attr->comp_order = FI_ORDER_NONE;
	fi->tx_attr->inject_size = UFI_INJECT_BYTES;
	fi->tx_attr->size = UFI_DEF_QUEUE;
	fi->tx_attr->iov_limit = 1;
	fi->tx_attr->rma_iov_limit = 0;

	fi->rx_attr->caps = UFI_CAPS & ~FI_SEND;
	fi->rx_attr->op_flags = 0;
	fi->rx_attr->msg_order = FI_ORDER_SAS;
	fi->rx_attr->comp_order = FI_ORDER_NONE;
	fi->rx_attr->total_buffered_recv = 0;
	fi->rx_attr->size = UFI_DEF_QUEUE;
	fi->rx_attr->iov_limit = 1;

	fi->ep_attr->type = FI_EP_RDM;
	fi->ep_attr->protocol = FI_PROTO_UNSPEC;
	fi->ep_attr->protocol_version = 1;
	fi->ep_attr->max_msg_size = UINT32_MAX;
	fi->ep_attr->msg_prefix_size = 0;
	fi->ep_attr->max_order_raw_size = 0;
	fi->ep_attr->max_order_war_size = 0;
	fi->ep_attr->max_order_waw_size = 0;
	fi->ep_attr->mem_tag_format = UFI_TAG_USER; /* the top two bits are ours */
	fi->ep_attr->tx_ctx_cnt = 1;
	fi->ep_attr->rx_ctx_cnt = 1;

	fi->domain_attr->name = strdup("uet");
	fi->domain_attr->threading = FI_THREAD_DOMAIN;
	fi->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	fi->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	fi->domain_attr->resource_mgmt = FI_RM_ENABLED;
	fi->domain_attr->av_type = FI_AV_UNSPEC;
	fi->domain_attr->mr_mode = 0;
	fi->domain_attr->mr_key_size = sizeof(uint64_t);
	fi->domain_attr->cq_data_size = UFI_CQ_DATA_BYTES;
	fi->domain_attr->cq_cnt = 64;
	fi->domain_attr->ep_cnt = 1;
	fi->domain_attr->tx_ctx_cnt = 1;
	fi->domain_attr->rx_ctx_cnt = 1;
	fi->domain_attr->max_ep_tx_ctx = 1;
	fi->domain_attr->max_ep_rx_ctx = 1;
	fi->domain_attr->mr_cnt = 1 << 16;
	fi->domain_attr->caps = FI_LOCAL_COMM | FI_REMOTE_COMM;

	snprintf(buf, sizeof(buf), "%s/%u", inet_ntoa(a), p->prefix_len);
	fi->fabric_attr->name = strdup(buf);
	fi->fabric_attr->prov_version = UFI_PROV_VERSION;
	fi->fabric_attr->api_version = UFI_FI_VERSION;
}

/* Whether the hints ask for nothing the provider lacks; why says what. */
static bool
hints_ok(const struct fi_info *h, const struct fi_info *fi, const char **why)
{
	if (h == NULL)
		return true;
	if ((h->caps & ~fi->caps) != 0) {
		UFI_INFO(FI_LOG_CORE, "capabilities asked for and missing: %s\n",
			 fi_tostr(&(uint64_t){ h->caps & ~fi->caps }, FI_TYPE_CAPS));
		*why = "capabilities";
		return false;
	}
	if (h->addr_format != FI_FORMAT_UNSPEC && h->addr_format != FI_SOCKADDR_IN &&
	    h->addr_format != FI_SOCKADDR) {
		*why = "address format";
		return false;
	}
	if (h->ep_attr != NULL) {
		if (h->ep_attr->type != FI_EP_UNSPEC && h->ep_attr->type != FI_EP_RDM) {
			*why = "endpoint type (FI_EP_RDM only)";
			return false;
		}
		if (h->ep_attr->protocol != FI_PROTO_UNSPEC) {
			*why = "protocol";
			return false;
		}
		if (h->ep_attr->max_msg_size > fi->ep_attr->max_msg_size) {
			*why = "max_msg_size";
			return false;
		}
		if (h->ep_attr->tx_ctx_cnt > 1 || h->ep_attr->rx_ctx_cnt > 1) {
			*why = "several contexts";
			return false;
		}
	}
	if (h->tx_attr != NULL) {
		if ((h->tx_attr->caps & ~fi->tx_attr->caps) != 0 ||
		    (h->tx_attr->msg_order & ~fi->tx_attr->msg_order) != 0 ||
		    h->tx_attr->inject_size > fi->tx_attr->inject_size ||
		    h->tx_attr->iov_limit > 1 ||
		    (h->tx_attr->comp_order & ~(uint64_t)FI_ORDER_NONE) != 0) {
			*why = "transmit attributes";
			return false;
		}
	}
	if (h->rx_attr != NULL) {
		if ((h->rx_attr->caps & ~fi->rx_attr->caps) != 0 ||
		    (h->rx_attr->msg_order & ~fi->rx_attr->msg_order) != 0 ||
		    h->rx_attr->iov_limit > 1 || h->rx_attr->total_buffered_recv > 0 ||
		    (h->rx_attr->comp_order & ~(uint64_t)FI_ORDER_NONE) != 0) {
			*why = "receive attributes";
			return false;
		}
	}
	if (h->domain_attr != NULL) {
		const struct fi_domain_attr *d = h->domain_attr;

		if (d->name != NULL && strcmp(d->name, fi->domain_attr->name) != 0) {
			*why = "domain name";
			return false;
		}
		if (d->threading == FI_THREAD_COMPLETION || d->threading == FI_THREAD_ENDPOINT) {
			*why = "threading (FI_THREAD_DOMAIN or FI_THREAD_SAFE)";
			return false;
		}
		if (d->control_progress == FI_PROGRESS_AUTO || d->data_progress == FI_PROGRESS_AUTO) {
			*why = "progress (manual only)";
			return false;
		}
		/* FI_MR_LOCAL and friends are permissions to require them;
		 * registration is never needed here. FI_MR_BASIC/SCALABLE are
		 * the old modes' names for RMA keys. */
		if (d->mr_mode == FI_MR_BASIC || d->mr_mode == FI_MR_SCALABLE) {
			*why = "memory registration mode";
			return false;
		}
		if (d->cq_data_size > UFI_CQ_DATA_BYTES) {
			*why = "remote CQ data size";
			return false;
		}
		if ((d->caps & ~fi->domain_attr->caps) != 0) {
			*why = "domain capabilities";
			return false;
		}
	}
	if (h->fabric_attr != NULL) {
		if (h->fabric_attr->prov_name != NULL &&
		    strcmp(h->fabric_attr->prov_name, UFI_PROV_NAME) != 0) {
			*why = "provider name";
			return false;
		}
		if (h->fabric_attr->name != NULL &&
		    strcmp(h->fabric_attr->name, fi->fabric_attr->name) != 0) {
			*why = "fabric name";
			return false;
		}
	}
	return true;
}

static int
ufi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
	    const struct fi_info *hints, struct fi_info **info)
{
	struct ufi_params *p;
	struct fi_info *fi;
	const char *hw = "";
	char why[256];
	int rc;

	(void)service;
	(void)version; /* nothing here differs by API version but readerr's */
	*info = NULL;
	p = malloc(sizeof(*p));
	if (p == NULL)
		return -FI_ENOMEM;
	rc = ufi_params_read(p, why, sizeof(why));
	if (rc != 0) {
		UFI_INFO(FI_LOG_CORE, "not offered: %s\n", why);
		free(p);
		return rc;
	}
	fi = fi_allocinfo();
	if (fi == NULL) {
		free(p);
		return -FI_ENOMEM;
	}
	ufi_fill_info(fi, p);
	if (node != NULL && !(flags & FI_SOURCE)) {
		/* A destination: take it as the peer's address. */
		struct sockaddr_in *d = calloc(1, sizeof(*d));

		if (d == NULL || inet_pton(AF_INET, node, &d->sin_addr) != 1) {
			free(d);
			fi_freeinfo(fi);
			free(p);
			return -FI_ENODATA;
		}
		d->sin_family = AF_INET;
		d->sin_port = htons(UET_UDP_PORT);
		fi->dest_addr = d;
		fi->dest_addrlen = sizeof(*d);
	}
	free(p);
	if (!hints_ok(hints, fi, &hw)) {
		UFI_INFO(FI_LOG_CORE, "not offered: the hints ask for other %s\n", hw);
		FI_DBG(&ufi_prov, FI_LOG_CORE, "the hints: %s\n", fi_tostr(hints, FI_TYPE_INFO));
		fi_freeinfo(fi);
		return -FI_ENODATA;
	}
	if (hints != NULL) {
		/* What was asked for, within what the provider has. */
		if (hints->caps != 0)
			fi->caps = hints->caps | (fi->caps & (FI_LOCAL_COMM | FI_REMOTE_COMM));
		if (hints->domain_attr != NULL) {
			if (hints->domain_attr->threading == FI_THREAD_SAFE)
				fi->domain_attr->threading = FI_THREAD_SAFE;
			if (hints->domain_attr->av_type != FI_AV_UNSPEC)
				fi->domain_attr->av_type = hints->domain_attr->av_type;
		}
		if (hints->tx_attr != NULL && hints->tx_attr->op_flags != 0)
			fi->tx_attr->op_flags = hints->tx_attr->op_flags;
		if (hints->rx_attr != NULL && hints->rx_attr->op_flags != 0)
			fi->rx_attr->op_flags = hints->rx_attr->op_flags;
		if (hints->mode & FI_CONTEXT)
			fi->mode = 0; /* needs none of the application's memory */
	}
	*info = fi;
	return 0;
}

static int
fabric_close(struct fid *fid)
{
	free(container_of(fid, struct ufi_fabric, fid.fid));
	return 0;
}

static int
ufi_fabric_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	(void)fabric;
	(void)fids;
	(void)count;
	return -FI_ENOSYS;
}

static struct fi_ops fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fabric_close,
	.bind = ufi_no_bind,
	.control = ufi_no_control,
	.ops_open = ufi_no_ops_open,
};

static int
no_pep(struct fid_fabric *f, struct fi_info *i, struct fid_pep **pep, void *c)
{
	(void)f;
	(void)i;
	(void)pep;
	(void)c;
	return -FI_ENOSYS;
}

static int
no_wait(struct fid_fabric *f, struct fi_wait_attr *a, struct fid_wait **w)
{
	(void)f;
	(void)a;
	(void)w;
	return -FI_ENOSYS;
}

static int
domain2(struct fid_fabric *f, struct fi_info *i, struct fid_domain **d, uint64_t flags, void *c)
{
	if (flags != 0)
		return -FI_EINVAL;
	return ufi_domain_open(f, i, d, c);
}

static struct fi_ops_fabric fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = ufi_domain_open,
	.passive_ep = no_pep,
	.eq_open = ufi_eq_open,
	.wait_open = no_wait,
	.trywait = ufi_fabric_trywait,
	.domain2 = domain2,
};

int
ufi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
	struct ufi_fabric *f;

	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return -FI_ENOMEM;
	f->api_version = attr != NULL && attr->api_version ? attr->api_version : UFI_FI_VERSION;
	f->fid.fid.fclass = FI_CLASS_FABRIC;
	f->fid.fid.context = context;
	f->fid.fid.ops = &fabric_fi_ops;
	f->fid.ops = &fabric_ops;
	*fabric = &f->fid;
	return 0;
}

static void
ufi_cleanup(void)
{
	ufi_io_cleanup();
}

FI_EXT_INI
{
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		fi_param_define(&ufi_prov, params[i].name, params[i].type, "%s", params[i].help);
	return &ufi_prov;
}
