/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_FI_UET_FI_H_
#define UET_FI_UET_FI_H_

/*
 * The libfabric provider "uet" (libuet-fi.so): FI_EP_RDM endpoints whose
 * messages are libuet's, over a DPDK port in the application's process.
 *
 * - prov.c: fi_prov_ini(), the provider's parameters, fi_getinfo() and the
 *   fabric;
 * - domain.c: the domain (one DPDK port and one libuet host per process,
 *   io.c), address vectors, memory registration, completion queues;
 * - ep.c: endpoints: sends and receives, tagged or not, as libuet sends and
 *   posted receives; completions from libuet's callbacks;
 * - io.c: the EAL, the port and the host from the parameters.
 *
 * Progress is manual: reading a CQ (or sending when the endpoint has no
 * room) polls the port, runs the endpoint's timers and transmits. Every
 * call takes the domain's lock when the application asked for
 * FI_THREAD_SAFE; otherwise the application serializes them, as
 * FI_THREAD_DOMAIN says.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include "conf/conf.h"
#include "uet/uet.h"

#define UFI_PROV_NAME "uet"
#define UFI_PROV_VERSION FI_VERSION(0, 1)
#define UFI_FI_VERSION FI_VERSION(1, 17)

#define UFI_CAPS (FI_MSG | FI_TAGGED | FI_SEND | FI_RECV | FI_DIRECTED_RECV | FI_SOURCE | \
		  FI_LOCAL_COMM | FI_REMOTE_COMM)
/* Remote CQ data travels as UET's SES header data (flag HD). */
#define UFI_CQ_DATA_BYTES 8
#define UFI_DEF_QUEUE 1024   /* tx and rx operations outstanding */
#define UFI_DEF_CQ 4096
#define UFI_INJECT_BYTES 4096

extern struct fi_provider ufi_prov;

#define UFI_WARN(subsys, ...) FI_WARN(&ufi_prov, subsys, __VA_ARGS__)
#define UFI_INFO(subsys, ...) FI_INFO(&ufi_prov, subsys, __VA_ARGS__)

/* The provider's parameters as read at fi_getinfo()/fi_domain() time. */
struct ufi_params {
	char eal[1024];       /* FI_UET_EAL, %l and %r expanded */
	uint32_t ip;          /* FI_UET_ADDR + the local rank, host order */
	uint8_t prefix_len;   /* FI_UET_PREFIX */
	uint32_t gateway;     /* FI_UET_GATEWAY */
	struct uet_perf_opts opts; /* FI_UET_CONFIG, FI_UET_OPTS, FI_UET_LB, ... */
	char report[1024];    /* FI_UET_REPORT, %r and %l expanded; "" none */
	uint32_t rank, local_rank;
};

/* Reads and checks every parameter; 0, or -FI_ENODATA with the reason
 * logged (a parameter missing or wrong: the provider offers nothing). */
int ufi_params_read(struct ufi_params *p, char *why, size_t whylen);

struct ufi_io;  /* io.c: the DPDK side */

struct ufi_fabric {
	struct fid_fabric fid;
	uint32_t api_version;   /* the application's (fi_getinfo's version) */
};

struct ufi_ep;

struct ufi_domain {
	struct fid_domain fid;
	struct ufi_fabric *fab;
	struct ufi_params params;
	bool thread_safe;
	pthread_mutex_t lock;
	uint32_t refs;          /* AVs, CQs, MRs, endpoints open on it */
	struct ufi_ep *ep;      /* the one endpoint (one address per process) */
	struct ufi_io *io;      /* opened with the endpoint */
	uint64_t mr_next_key;
};

struct ufi_av {
	struct fid_av fid;
	struct ufi_domain *dom;
	enum fi_av_type type;
	uint32_t *ip;           /* table: index -> IPv4 (0 = removed) */
	size_t n, cap;
	uint32_t refs;
};

struct ufi_cqe {
	struct fi_cq_tagged_entry e;
	fi_addr_t src;
};

struct ufi_cq_err {
	struct fi_cq_err_entry e;
	fi_addr_t src;
};

struct ufi_cq {
	struct fid_cq fid;
	struct ufi_domain *dom;
	enum fi_cq_format format;
	struct ufi_cqe *q;      /* ring, grows: a completion is never lost */
	size_t head, count, cap;
	struct ufi_cq_err *err; /* ring of error completions */
	size_t ehead, ecount, ecap;
	uint32_t refs;
};

struct ufi_mr {
	struct fid_mr mr;
	struct ufi_domain *dom;
};

/*
 * Tags. The application's tags are the low 62 bits (mem_tag_format): the
 * top two are the provider's, for the rendezvous of long tagged messages
 * (ep.c): a request to send rides in the application's tag space with
 * UFI_TAG_RTS set, the clear-to-send and the data that follows it carry
 * UFI_TAG_CTRL and the sender's token, out of the application's reach.
 */
#define UFI_TAG_CTRL (1ull << 63)
#define UFI_TAG_RTS (1ull << 62)
#define UFI_TAG_USER (UFI_TAG_RTS - 1)
#define UFI_TAG_CTS (1ull << 61) /* within UFI_TAG_CTRL */
/* Tagged messages longer than this go by rendezvous: no receiver then
 * holds them unexpected (libuet's unexpected buffers are this long). */
#define UFI_EAGER_BYTES 65536u
/* A request to send: the message's length (8 bytes, little-endian) and the
 * sender's token (4), padded; its header data is the application's. */
#define UFI_RTS_BYTES 16u
_Static_assert(UFI_RTS_BYTES <= UET_PEEK_HEAD_BYTES, "a peek must see a whole request to send");

/* One send or receive in flight, returned in libuet's callbacks: its
 * address, with the low bits telling which of the operation's libuet
 * requests completed (ep.c, SUB_*). */
struct ufi_op {
	struct ufi_op *next_free;
	struct ufi_op *next_retry; /* a send libuet had no room for */
	struct ufi_ep *ep;
	void *context;
	uint64_t flags;         /* FI_SEND/FI_RECV | FI_MSG/FI_TAGGED, and
				 * FI_COMPLETION when a CQ entry is wanted */
	void *buf;
	const void *sbuf;       /* what a send sends */
	uint8_t *copy;          /* inject's own copy of the data */
	uint64_t tag;
	uint64_t data;          /* remote CQ data (FI_REMOTE_CQ_DATA) */
	uint64_t len;
	uint64_t handle;        /* its posted receive, for fi_cancel */
	uint32_t ip;            /* the peer of a send, or of a rendezvous */
	uint32_t token;         /* rendezvous: the sender's */
	uint8_t rts[UFI_RTS_BYTES]; /* sender: the request to send; receiver:
				 * where a tagged receive shorter than a
				 * request lands (copied out at completion) */
	bool bounce;            /* a receive that landed in rts[] */
	bool peek;              /* FI_PEEK's report: no bytes were received */
	bool quiet;             /* fi_inject*(): no completion at all */
	uint16_t gen;           /* reuses of this context */
	uint8_t rv;             /* rendezvous stage (ep.c, RV_*) */
	uint8_t pending;        /* libuet requests still holding it */
	uint8_t retry;          /* the request to send again (SUB_*) */
	bool has_data;
	bool reported;          /* its completion (or error) is written */
	bool in_use;
};

struct ufi_ep {
	struct fid_ep fid;
	struct ufi_domain *dom;
	struct fi_info *info;
	struct ufi_av *av;
	struct ufi_cq *tx_cq, *rx_cq;
	uint64_t tx_op_flags, rx_op_flags;
	bool tx_selective, rx_selective; /* FI_SELECTIVE_COMPLETION */
	bool enabled;
	struct uet_ep *uep;     /* the libuet endpoint (io.c's host owns it) */
	struct ufi_op *ops;     /* tx_size + rx_size of them */
	struct ufi_op *free_ops;
	struct ufi_op *retry_head, *retry_tail;
	uint32_t n_ops, ops_used;
	uint64_t errors;        /* completions that failed */
};

/* prov.c */
int ufi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
void ufi_fill_info(struct fi_info *fi, const struct ufi_params *p);

/* eq.c */
int ufi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr, struct fid_eq **eq,
		void *context);

/* domain.c */
/* Whether timeout_ms (negative: never) has passed since t0 (CLOCK_MONOTONIC). */
bool ufi_timed_out(const struct timespec *t0, int timeout_ms);
int ufi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int ufi_no_control(struct fid *fid, int command, void *arg);
int ufi_no_wait_control(struct fid *fid, int command, void *arg);
int ufi_no_ops_open(struct fid *fid, const char *name, uint64_t flags, void **ops,
		    void *context);
int ufi_domain_open(struct fid_fabric *fabric, struct fi_info *info, struct fid_domain **dom,
		    void *context);
void ufi_lock(struct ufi_domain *d);
void ufi_unlock(struct ufi_domain *d);
/* Polls the port, runs timers and transmits (the domain's lock held). */
void ufi_progress(struct ufi_domain *d);
int ufi_cq_push(struct ufi_cq *cq, const struct fi_cq_tagged_entry *e, fi_addr_t src);
int ufi_cq_push_err(struct ufi_cq *cq, const struct fi_cq_err_entry *e, fi_addr_t src);
/* The AV's address for ip (FI_ADDR_NOTAVAIL if none); ip for an fi_addr
 * (0 if none). */
fi_addr_t ufi_av_reverse(const struct ufi_av *av, uint32_t ip);
uint32_t ufi_av_ip(const struct ufi_av *av, fi_addr_t a);

/* ep.c */
/* Sends that found libuet's pools full, again (the domain's lock held). */
void ufi_ep_retry(struct ufi_ep *ep);
int ufi_endpoint_open(struct fid_domain *domain, struct fi_info *info, struct fid_ep **ep,
		      void *context);

/* io.c: the process's DPDK port and libuet host. Opened once per process
 * (the EAL cannot start twice); ufi_io_close() keeps the EAL. */
int ufi_io_open(const struct ufi_params *p, const struct uet_callbacks *cb, void *user,
		uint32_t max_recvs, struct ufi_io **out, struct uet_ep **ep, char *err,
		size_t errlen);
void ufi_io_close(struct ufi_io *io);
uint64_t ufi_io_now(const struct ufi_io *io);
void ufi_io_poll(struct ufi_io *io);
/* After uet_ep_send(): the send may have armed a timer. */
void ufi_io_kick(struct ufi_io *io);
/* Ask for a peer's MAC (ARP, sent with the next poll) when it enters the
 * AV rather than when the first message to it finds none. */
void ufi_io_resolve(struct ufi_io *io, uint32_t ip);
/* Bytes of a message received, for FI_UET_REPORT's timeline. */
void ufi_io_rx_bytes(struct ufi_io *io, uint64_t bytes);
/* At unload: rte_eal_cleanup(). */
void ufi_io_cleanup(void);

#endif /* UET_FI_UET_FI_H_ */
