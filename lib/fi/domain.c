/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Domain, address vectors, memory registration and completion queues.
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fi/uet_fi.h"

void
ufi_lock(struct ufi_domain *d)
{
	if (d->thread_safe)
		pthread_mutex_lock(&d->lock);
}

void
ufi_unlock(struct ufi_domain *d)
{
	if (d->thread_safe)
		pthread_mutex_unlock(&d->lock);
}

void
ufi_progress(struct ufi_domain *d)
{
	if (d->io != NULL) {
		ufi_io_poll(d->io);
		if (d->ep != NULL && d->ep->retry_head != NULL)
			ufi_ep_retry(d->ep);
	}
}

/* --- the operations a class lacks (the fid's ops, shared by every class
 * here) --- */

int
ufi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid;
	(void)bfid;
	(void)flags;
	return -FI_ENOSYS;
}

int
ufi_no_control(struct fid *fid, int command, void *arg)
{
	(void)fid;
	(void)command;
	(void)arg;
	return -FI_ENOSYS;
}

int
ufi_no_ops_open(struct fid *fid, const char *name, uint64_t flags, void **ops, void *context)
{
	(void)fid;
	(void)name;
	(void)flags;
	(void)ops;
	(void)context;
	return -FI_ENOSYS;
}

/* --- address vectors --- */

uint32_t
ufi_av_ip(const struct ufi_av *av, fi_addr_t a)
{
	if (av->type == FI_AV_MAP)
		return a <= UINT32_MAX ? (uint32_t)a : 0;
	return a < av->n ? av->ip[a] : 0;
}

fi_addr_t
ufi_av_reverse(const struct ufi_av *av, uint32_t ip)
{
	if (av == NULL)
		return FI_ADDR_NOTAVAIL;
	/* Linear: a CQ entry's source is asked for by FI_SOURCE readers only,
	 * and MPI's tag carries the rank. */
	for (size_t i = 0; i < av->n; i++) {
		if (av->ip[i] == ip)
			return av->type == FI_AV_MAP ? (fi_addr_t)ip : (fi_addr_t)i;
	}
	return FI_ADDR_NOTAVAIL;
}

static int
av_insert(struct fid_av *fid, const void *addr, size_t count, fi_addr_t *fi_addr,
	  uint64_t flags, void *context)
{
	struct ufi_av *av = container_of(fid, struct ufi_av, fid);
	const struct sockaddr_in *sin = addr;
	int done = 0;

	(void)context;
	if (flags != 0)
		return -FI_EBADFLAGS;
	ufi_lock(av->dom);
	for (size_t i = 0; i < count; i++) {
		uint32_t ip = ntohl(sin[i].sin_addr.s_addr);

		if (sin[i].sin_family != AF_INET || ip == 0) {
			if (fi_addr != NULL)
				fi_addr[i] = FI_ADDR_NOTAVAIL;
			continue;
		}
		if (av->n == av->cap) {
			size_t cap = av->cap ? av->cap * 2 : 64;
			uint32_t *n = realloc(av->ip, cap * sizeof(*n));

			if (n == NULL) {
				if (fi_addr != NULL)
					fi_addr[i] = FI_ADDR_NOTAVAIL;
				continue;
			}
			av->ip = n;
			av->cap = cap;
		}
		av->ip[av->n] = ip;
		if (av->dom->io != NULL)
			ufi_io_resolve(av->dom->io, ip);
		if (fi_addr != NULL)
			fi_addr[i] = av->type == FI_AV_MAP ? (fi_addr_t)ip : (fi_addr_t)av->n;
		av->n++;
		done++;
	}
	ufi_unlock(av->dom);
	return done;
}

static int
av_insertsvc(struct fid_av *fid, const char *node, const char *service, fi_addr_t *fi_addr,
	     uint64_t flags, void *context)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(UET_UDP_PORT) };

	(void)service;
	if (inet_pton(AF_INET, node, &sin.sin_addr) != 1)
		return -FI_EINVAL;
	return av_insert(fid, &sin, 1, fi_addr, flags, context);
}

static int
av_insertsym(struct fid_av *fid, const char *node, size_t nodecnt, const char *service,
	     size_t svccnt, fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	(void)fid;
	(void)node;
	(void)nodecnt;
	(void)service;
	(void)svccnt;
	(void)fi_addr;
	(void)flags;
	(void)context;
	return -FI_ENOSYS;
}

static int
av_remove(struct fid_av *fid, fi_addr_t *fi_addr, size_t count, uint64_t flags)
{
	struct ufi_av *av = container_of(fid, struct ufi_av, fid);

	(void)flags;
	ufi_lock(av->dom);
	for (size_t i = 0; i < count; i++) {
		if (av->type == FI_AV_TABLE) {
			if (fi_addr[i] < av->n)
				av->ip[fi_addr[i]] = 0;
			continue;
		}
		for (size_t k = 0; k < av->n; k++) {
			if (av->ip[k] == ufi_av_ip(av, fi_addr[i])) {
				av->ip[k] = 0;
				break;
			}
		}
	}
	ufi_unlock(av->dom);
	return 0;
}

static int
av_lookup(struct fid_av *fid, fi_addr_t fi_addr, void *addr, size_t *addrlen)
{
	struct ufi_av *av = container_of(fid, struct ufi_av, fid);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(UET_UDP_PORT) };
	uint32_t ip = ufi_av_ip(av, fi_addr);

	if (ip == 0)
		return -FI_ENOENT;
	sin.sin_addr.s_addr = htonl(ip);
	memcpy(addr, &sin, *addrlen < sizeof(sin) ? *addrlen : sizeof(sin));
	*addrlen = sizeof(sin);
	return 0;
}

static const char *
av_straddr(struct fid_av *fid, const void *addr, char *buf, size_t *len)
{
	const struct sockaddr_in *sin = addr;
	char ip[INET_ADDRSTRLEN];
	int n;

	(void)fid;
	if (inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip)) == NULL)
		return NULL;
	n = snprintf(buf, *len, "fi_sockaddr_in://%s:%u", ip, ntohs(sin->sin_port));
	*len = (size_t)n + 1;
	return buf;
}

static int
av_set(struct fid_av *fid, struct fi_av_set_attr *attr, struct fid_av_set **s, void *context)
{
	(void)fid;
	(void)attr;
	(void)s;
	(void)context;
	return -FI_ENOSYS;
}

static int
av_close(struct fid *fid)
{
	struct ufi_av *av = container_of(fid, struct ufi_av, fid.fid);

	if (av->refs > 0)
		return -FI_EBUSY;
	ufi_lock(av->dom);
	av->dom->refs--;
	ufi_unlock(av->dom);
	free(av->ip);
	free(av);
	return 0;
}

static struct fi_ops av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = av_close,
	.bind = ufi_no_bind,
	.control = ufi_no_control,
	.ops_open = ufi_no_ops_open,
};

static struct fi_ops_av av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = av_insert,
	.insertsvc = av_insertsvc,
	.insertsym = av_insertsym,
	.remove = av_remove,
	.lookup = av_lookup,
	.straddr = av_straddr,
	.av_set = av_set,
};

static int
av_open(struct fid_domain *domain, struct fi_av_attr *attr, struct fid_av **out, void *context)
{
	struct ufi_domain *d = container_of(domain, struct ufi_domain, fid);
	struct ufi_av *av;

	if (attr != NULL && (attr->flags & ~(uint64_t)FI_SYMMETRIC) != 0)
		return -FI_EBADFLAGS; /* no event queue, no shared AVs */
	if (attr != NULL && attr->name != NULL)
		return -FI_ENOSYS; /* no shared AVs */
	av = calloc(1, sizeof(*av));
	if (av == NULL)
		return -FI_ENOMEM;
	av->dom = d;
	av->type = attr != NULL && attr->type == FI_AV_MAP ? FI_AV_MAP : FI_AV_TABLE;
	if (attr != NULL)
		attr->type = av->type;
	av->fid.fid.fclass = FI_CLASS_AV;
	av->fid.fid.context = context;
	av->fid.fid.ops = &av_fi_ops;
	av->fid.ops = &av_ops;
	ufi_lock(d);
	d->refs++;
	ufi_unlock(d);
	*out = &av->fid;
	return 0;
}

/* --- memory registration: never required (mr_mode 0); kept for clients
 * that register anyway --- */

static int
mr_close(struct fid *fid)
{
	struct ufi_mr *m = container_of(fid, struct ufi_mr, mr.fid);

	ufi_lock(m->dom);
	m->dom->refs--;
	ufi_unlock(m->dom);
	free(m);
	return 0;
}

static struct fi_ops mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mr_close,
	.bind = ufi_no_bind,
	.control = ufi_no_control,
	.ops_open = ufi_no_ops_open,
};

static int
mr_regattr(struct fid *fid, const struct fi_mr_attr *attr, uint64_t flags, struct fid_mr **out)
{
	struct ufi_domain *d = container_of(fid, struct ufi_domain, fid.fid);
	struct ufi_mr *m;

	(void)flags;
	if (fid->fclass != FI_CLASS_DOMAIN)
		return -FI_EINVAL;
	if (attr->access & (FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE))
		return -FI_EOPNOTSUPP; /* no RMA */
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -FI_ENOMEM;
	m->dom = d;
	m->mr.fid.fclass = FI_CLASS_MR;
	m->mr.fid.context = attr->context;
	m->mr.fid.ops = &mr_fi_ops;
	m->mr.mem_desc = NULL;
	ufi_lock(d);
	m->mr.key = d->mr_next_key++;
	d->refs++;
	ufi_unlock(d);
	*out = &m->mr;
	return 0;
}

static int
mr_regv(struct fid *fid, const struct iovec *iov, size_t count, uint64_t access,
	uint64_t offset, uint64_t requested_key, uint64_t flags, struct fid_mr **mr,
	void *context)
{
	struct fi_mr_attr a = { .mr_iov = iov, .iov_count = count, .access = access,
				.offset = offset, .requested_key = requested_key,
				.context = context };

	return mr_regattr(fid, &a, flags, mr);
}

static int
mr_reg(struct fid *fid, const void *buf, size_t len, uint64_t access, uint64_t offset,
       uint64_t requested_key, uint64_t flags, struct fid_mr **mr, void *context)
{
	struct iovec v = { .iov_base = (void *)buf, .iov_len = len };

	return mr_regv(fid, &v, 1, access, offset, requested_key, flags, mr, context);
}

static struct fi_ops_mr mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = mr_reg,
	.regv = mr_regv,
	.regattr = mr_regattr,
};

/* --- completion queues --- */

int
ufi_cq_push(struct ufi_cq *cq, const struct fi_cq_tagged_entry *e, fi_addr_t src)
{
	if (cq->count == cq->cap) {
		size_t cap = cq->cap * 2;
		struct ufi_cqe *n = malloc(cap * sizeof(*n));

		if (n == NULL)
			return -FI_ENOMEM;
		for (size_t i = 0; i < cq->count; i++)
			n[i] = cq->q[(cq->head + i) % cq->cap];
		free(cq->q);
		cq->q = n;
		cq->head = 0;
		cq->cap = cap;
	}
	cq->q[(cq->head + cq->count) % cq->cap] = (struct ufi_cqe){ .e = *e, .src = src };
	cq->count++;
	return 0;
}

int
ufi_cq_push_err(struct ufi_cq *cq, const struct fi_cq_err_entry *e, fi_addr_t src)
{
	if (cq->ecount == cq->ecap) {
		size_t cap = cq->ecap ? cq->ecap * 2 : 16;
		struct ufi_cq_err *n = malloc(cap * sizeof(*n));

		if (n == NULL)
			return -FI_ENOMEM;
		for (size_t i = 0; i < cq->ecount; i++)
			n[i] = cq->err[(cq->ehead + i) % cq->ecap];
		free(cq->err);
		cq->err = n;
		cq->ehead = 0;
		cq->ecap = cap;
	}
	cq->err[(cq->ehead + cq->ecount) % cq->ecap] = (struct ufi_cq_err){ .e = *e, .src = src };
	cq->ecount++;
	return 0;
}

static size_t
entry_size(enum fi_cq_format f)
{
	switch (f) {
	case FI_CQ_FORMAT_CONTEXT:
		return sizeof(struct fi_cq_entry);
	case FI_CQ_FORMAT_MSG:
		return sizeof(struct fi_cq_msg_entry);
	case FI_CQ_FORMAT_DATA:
		return sizeof(struct fi_cq_data_entry);
	default:
		return sizeof(struct fi_cq_tagged_entry);
	}
}

static ssize_t
cq_readfrom(struct fid_cq *fid, void *buf, size_t count, fi_addr_t *src_addr)
{
	struct ufi_cq *cq = container_of(fid, struct ufi_cq, fid);
	size_t sz = entry_size(cq->format), n = 0;
	ssize_t rc;

	ufi_lock(cq->dom);
	if (cq->count == 0 && cq->ecount == 0)
		ufi_progress(cq->dom);
	if (cq->ecount > 0) {
		rc = -FI_EAVAIL;
	} else {
		for (; n < count && cq->count > 0; n++) {
			const struct ufi_cqe *e = &cq->q[cq->head];

			/* Each format is a prefix of the tagged entry. */
			memcpy((uint8_t *)buf + n * sz, &e->e, sz);
			if (src_addr != NULL)
				src_addr[n] = e->src;
			cq->head = (cq->head + 1) % cq->cap;
			cq->count--;
		}
		rc = n > 0 ? (ssize_t)n : -FI_EAGAIN;
	}
	ufi_unlock(cq->dom);
	return rc;
}

static ssize_t
cq_read(struct fid_cq *fid, void *buf, size_t count)
{
	return cq_readfrom(fid, buf, count, NULL);
}

static ssize_t
cq_readerr(struct fid_cq *fid, struct fi_cq_err_entry *buf, uint64_t flags)
{
	struct ufi_cq *cq = container_of(fid, struct ufi_cq, fid);
	ssize_t rc = -FI_EAGAIN;

	(void)flags;
	ufi_lock(cq->dom);
	if (cq->ecount > 0) {
		const struct fi_cq_err_entry *e = &cq->err[cq->ehead].e;

		/* Before API 1.5 the entry ended at err_data (an application
		 * of then has the shorter struct); from 1.5 err_data is the
		 * caller's buffer, left alone: no provider data goes in it. */
		if (cq->dom->fab->api_version < FI_VERSION(1, 5)) {
			memcpy(buf, e, offsetof(struct fi_cq_err_entry, err_data));
			buf->err_data = NULL;
		} else {
			void *ed = buf->err_data;

			*buf = *e;
			buf->err_data = ed;
			buf->err_data_size = 0;
		}
		cq->ehead = (cq->ehead + 1) % cq->ecap;
		cq->ecount--;
		rc = 1;
	}
	ufi_unlock(cq->dom);
	return rc;
}

bool
ufi_timed_out(const struct timespec *t0, int timeout_ms)
{
	struct timespec t;

	if (timeout_ms < 0)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000 >= timeout_ms;
}

/* Blocking reads spin on progress: the endpoint has no file descriptor to
 * sleep on (a DPDK port is polled). */
static ssize_t
cq_sreadfrom(struct fid_cq *fid, void *buf, size_t count, fi_addr_t *src_addr,
	     const void *cond, int timeout)
{
	struct timespec t0;
	ssize_t rc;

	(void)cond;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((rc = cq_readfrom(fid, buf, count, src_addr)) == -FI_EAGAIN)
		if (ufi_timed_out(&t0, timeout))
			return -FI_EAGAIN;
	return rc;
}

static ssize_t
cq_sread(struct fid_cq *fid, void *buf, size_t count, const void *cond, int timeout)
{
	return cq_sreadfrom(fid, buf, count, NULL, cond, timeout);
}

static int
cq_signal(struct fid_cq *fid)
{
	(void)fid;
	return 0;
}

static const char *
cq_strerror(struct fid_cq *fid, int prov_errno, const void *err_data, char *buf, size_t len)
{
	(void)fid;
	(void)err_data;
	snprintf(buf, len, "%s", uet_strerror(-prov_errno));
	return buf;
}

static int
cq_close(struct fid *fid)
{
	struct ufi_cq *cq = container_of(fid, struct ufi_cq, fid.fid);

	if (cq->refs > 0)
		return -FI_EBUSY;
	ufi_lock(cq->dom);
	cq->dom->refs--;
	ufi_unlock(cq->dom);
	free(cq->q);
	free(cq->err);
	free(cq);
	return 0;
}

/* CQs and EQs: no wait object to give (FI_GETWAIT), nothing else. */
int
ufi_no_wait_control(struct fid *fid, int command, void *arg)
{
	(void)fid;
	(void)arg;
	return command == FI_GETWAIT ? -FI_ENODATA : -FI_ENOSYS;
}

static struct fi_ops cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = cq_close,
	.bind = ufi_no_bind,
	.control = ufi_no_wait_control,
	.ops_open = ufi_no_ops_open,
};

static struct fi_ops_cq cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = cq_read,
	.readfrom = cq_readfrom,
	.readerr = cq_readerr,
	.sread = cq_sread,
	.sreadfrom = cq_sreadfrom,
	.signal = cq_signal,
	.strerror = cq_strerror,
};

static int
cq_open(struct fid_domain *domain, struct fi_cq_attr *attr, struct fid_cq **out, void *context)
{
	struct ufi_domain *d = container_of(domain, struct ufi_domain, fid);
	struct ufi_cq *cq;

	if (attr->wait_obj != FI_WAIT_NONE && attr->wait_obj != FI_WAIT_UNSPEC)
		return -FI_ENOSYS;
	if (attr->format > FI_CQ_FORMAT_TAGGED)
		return -FI_ENOSYS;
	if (attr->flags & FI_AFFINITY)
		return -FI_ENOSYS;
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL)
		return -FI_ENOMEM;
	cq->dom = d;
	cq->format = attr->format == FI_CQ_FORMAT_UNSPEC ? FI_CQ_FORMAT_CONTEXT : attr->format;
	cq->cap = attr->size > 0 ? attr->size : UFI_DEF_CQ;
	cq->q = malloc(cq->cap * sizeof(*cq->q));
	if (cq->q == NULL) {
		free(cq);
		return -FI_ENOMEM;
	}
	cq->fid.fid.fclass = FI_CLASS_CQ;
	cq->fid.fid.context = context;
	cq->fid.fid.ops = &cq_fi_ops;
	cq->fid.ops = &cq_ops;
	ufi_lock(d);
	d->refs++;
	ufi_unlock(d);
	*out = &cq->fid;
	return 0;
}

/* --- the domain --- */

static int
domain_close(struct fid *fid)
{
	struct ufi_domain *d = container_of(fid, struct ufi_domain, fid.fid);

	if (d->refs > 0)
		return -FI_EBUSY;
	pthread_mutex_destroy(&d->lock);
	free(d);
	return 0;
}

static struct fi_ops domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = domain_close,
	.bind = ufi_no_bind,
	.control = ufi_no_control,
	.ops_open = ufi_no_ops_open,
};

static int
no_sep(struct fid_domain *d, struct fi_info *i, struct fid_ep **ep, void *c)
{
	(void)d;
	(void)i;
	(void)ep;
	(void)c;
	return -FI_ENOSYS;
}

static int
no_cntr(struct fid_domain *d, struct fi_cntr_attr *a, struct fid_cntr **c, void *ctx)
{
	(void)d;
	(void)a;
	(void)c;
	(void)ctx;
	return -FI_ENOSYS;
}

static int
no_poll(struct fid_domain *d, struct fi_poll_attr *a, struct fid_poll **p)
{
	(void)d;
	(void)a;
	(void)p;
	return -FI_ENOSYS;
}

static int
no_stx(struct fid_domain *d, struct fi_tx_attr *a, struct fid_stx **s, void *c)
{
	(void)d;
	(void)a;
	(void)s;
	(void)c;
	return -FI_ENOSYS;
}

static int
no_srx(struct fid_domain *d, struct fi_rx_attr *a, struct fid_ep **e, void *c)
{
	(void)d;
	(void)a;
	(void)e;
	(void)c;
	return -FI_ENOSYS;
}

static int
no_atomic(struct fid_domain *d, enum fi_datatype t, enum fi_op o, struct fi_atomic_attr *a,
	  uint64_t f)
{
	(void)d;
	(void)t;
	(void)o;
	(void)a;
	(void)f;
	return -FI_ENOSYS;
}

static int
no_coll(struct fid_domain *d, enum fi_collective_op c, struct fi_collective_attr *a, uint64_t f)
{
	(void)d;
	(void)c;
	(void)a;
	(void)f;
	return -FI_ENOSYS;
}

static int
endpoint2(struct fid_domain *d, struct fi_info *i, struct fid_ep **ep, uint64_t flags, void *c)
{
	if (flags != 0)
		return -FI_EINVAL;
	return ufi_endpoint_open(d, i, ep, c);
}

static struct fi_ops_domain domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = av_open,
	.cq_open = cq_open,
	.endpoint = ufi_endpoint_open,
	.scalable_ep = no_sep,
	.cntr_open = no_cntr,
	.poll_open = no_poll,
	.stx_ctx = no_stx,
	.srx_ctx = no_srx,
	.query_atomic = no_atomic,
	.query_collective = no_coll,
	.endpoint2 = endpoint2,
};

int
ufi_domain_open(struct fid_fabric *fabric, struct fi_info *info, struct fid_domain **out,
		void *context)
{
	struct ufi_domain *d;
	char why[256];
	int rc;

	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return -FI_ENOMEM;
	rc = ufi_params_read(&d->params, why, sizeof(why));
	if (rc != 0) {
		UFI_WARN(FI_LOG_DOMAIN, "%s\n", why);
		free(d);
		return -FI_EINVAL;
	}
	d->fab = container_of(fabric, struct ufi_fabric, fid);
	d->thread_safe = info != NULL && info->domain_attr != NULL &&
			 info->domain_attr->threading == FI_THREAD_SAFE;
	pthread_mutex_init(&d->lock, NULL);
	d->mr_next_key = 1;
	d->fid.fid.fclass = FI_CLASS_DOMAIN;
	d->fid.fid.context = context;
	d->fid.fid.ops = &domain_fi_ops;
	d->fid.ops = &domain_ops;
	d->fid.mr = &mr_ops;
	*out = &d->fid;
	return 0;
}
