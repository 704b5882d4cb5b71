/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints: fi_send/fi_tsend are uet_ep_send() (UET_SEND or
 * UET_TAGGED_SEND), fi_recv/fi_trecv are posted receives matched in the
 * core (tag, ignore bits, source; in send order per peer); libuet's
 * tx_done and recv_done callbacks become CQ entries.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fi/uet_fi.h"

/* How long fi_close() keeps an endpoint running for its peers: ACKs still
 * owed and sends not yet acknowledged (a peer that closed right after
 * its last receive would otherwise leave the sender resending). */
#define LINGER_NS 200000000ull

static uint8_t zero_len_buf[1];

/* --- operation contexts --- */

/* Which of an operation's libuet requests a callback is about: the low
 * bits of the user pointer (contexts are 8-byte aligned). */
#define SUB_MAIN 0u /* the message itself (eager, or rendezvous data) */
#define SUB_RTS 1u  /* sender: the request to send */
#define SUB_CTS 2u  /* sender: the clear-to-send receive; receiver: the
		     * clear-to-send it sends */
#define SUB_MASK 3u

/* Rendezvous stages. */
#define RV_NONE 0
#define RV_WAIT_CTS 1 /* sender: request sent, clear-to-send awaited */
#define RV_DATA 2     /* sender: data sent; receiver: data receive posted */

static void *
sub_ptr(struct ufi_op *op, unsigned sub)
{
	return (void *)((uintptr_t)op | sub);
}

static struct ufi_op *
sub_op(void *user, unsigned *sub)
{
	*sub = (unsigned)((uintptr_t)user & SUB_MASK);
	return (struct ufi_op *)((uintptr_t)user & ~(uintptr_t)SUB_MASK);
}

static struct ufi_op *
op_get(struct ufi_ep *ep)
{
	struct ufi_op *op = ep->free_ops;
	uint16_t gen;

	if (op == NULL)
		return NULL;
	ep->free_ops = op->next_free;
	gen = (uint16_t)(op->gen + 1);
	memset(op, 0, sizeof(*op));
	op->gen = gen;
	op->ep = ep;
	op->in_use = true;
	ep->ops_used++;
	return op;
}

static void
op_put(struct ufi_op *op)
{
	struct ufi_ep *ep = op->ep;

	free(op->copy);
	op->copy = NULL;
	op->in_use = false;
	op->next_free = ep->free_ops;
	ep->free_ops = op;
	ep->ops_used--;
}

/* Freed once its completion is written and libuet holds it no more. */
static void
op_release(struct ufi_op *op)
{
	if (op->reported && op->pending == 0 && op->retry == 0)
		op_put(op);
}

static int
fi_err_of(int status)
{
	switch (status) {
	case UET_ERR_TIMEOUT:
		return FI_ETIMEDOUT;
	case UET_ERR_PEER_RESET:
	case UET_ERR_STALE:
		return FI_ECONNRESET;
	case UET_ERR_CLOSED:
		return FI_ESHUTDOWN;
	case UET_ERR_CANCELED:
		return FI_ECANCELED;
	case UET_ERR_TRUNCATED:
		return FI_ETRUNC;
	case UET_ERR_NOBUFS:
		return FI_ENOBUFS;
	case UET_ERR_NO_MSG:
		return FI_ENOMSG;
	default:
		return FI_EIO;
	}
}

/* The operation's completion, once: an entry when it succeeded and one
 * was asked for, an error entry whenever it failed. */
static void
op_complete(struct ufi_op *op, int status, uint64_t len, uint64_t olen, uint64_t tag,
	    bool has_data, uint64_t data, uint32_t src_ip)
{
	struct ufi_ep *ep = op->ep;
	bool rx = (op->flags & FI_RECV) != 0;
	struct ufi_cq *cq = rx ? ep->rx_cq : ep->tx_cq;
	fi_addr_t src = rx ? ufi_av_reverse(ep->av, src_ip) : FI_ADDR_NOTAVAIL;
	uint64_t flags = op->flags & ~(uint64_t)FI_COMPLETION;

	if (op->reported)
		return;
	op->reported = true;
	if (rx && status == 0 && !op->peek)
		ufi_io_rx_bytes(ep->dom->io, len);
	if (cq == NULL)
		return;
	if (status != 0 && op->quiet) {
		/* fi_inject*(): no completion, not even an error (it would
		 * carry no context: Open MPI takes one from every entry). */
		ep->errors++;
		UFI_WARN(FI_LOG_EP_DATA, "an injected send failed: %s\n", uet_strerror(status));
		return;
	}
	if (status != 0) {
		/* A truncated receive still says what arrived: its tag and the
		 * sender's CQ data. */
		struct fi_cq_err_entry e = {
			.op_context = op->context,
			.flags = flags | (rx && has_data ? FI_REMOTE_CQ_DATA : 0),
			.len = len,
			.buf = rx && len > 0 ? op->buf : NULL,
			.data = rx ? data : 0,
			.tag = tag,
			.olen = olen,
			.err = fi_err_of(status),
			.prov_errno = -status,
		};

		if (status != UET_ERR_CANCELED && status != UET_ERR_NO_MSG)
			ep->errors++;
		if (ufi_cq_push_err(cq, &e, src) != 0)
			UFI_WARN(FI_LOG_CQ, "no memory for an error completion: lost\n");
	} else if (op->flags & FI_COMPLETION) {
		struct fi_cq_tagged_entry e = {
			.op_context = op->context,
			.flags = flags | (rx && has_data ? FI_REMOTE_CQ_DATA : 0),
			.len = rx ? len : 0,
			.buf = rx && len > 0 ? op->buf : NULL,
			.data = rx ? data : 0,
			.tag = rx ? tag : 0,
		};

		if (ufi_cq_push(cq, &e, src) != 0)
			UFI_WARN(FI_LOG_CQ, "no memory for a completion: lost\n");
	}
}

/* A failed operation: its error now, and a receive it still has posted
 * canceled. The cancel's callback runs at once; the reference held around
 * it leaves freeing the context to the caller (op_release), never to that
 * callback. */
static void
op_fail(struct ufi_op *op, int status)
{
	op_complete(op, status, 0, 0, op->tag & UFI_TAG_USER, false, 0, op->ip);
	if ((op->rv == RV_WAIT_CTS || (op->rv == RV_DATA && (op->flags & FI_RECV))) &&
	    op->pending > 0) {
		op->pending++;
		(void)uet_ep_cancel_recv(op->ep->uep, op->handle, ufi_io_now(op->ep->dom->io));
		op->pending--;
	}
}

/* --- the libuet requests an operation makes --- */

static int
issue(struct ufi_op *op, unsigned sub)
{
	struct ufi_ep *ep = op->ep;
	struct uet_send_req r = { .dst_ip = op->ip, .user = sub_ptr(op, sub) };
	int rc;

	if (sub == SUB_MAIN) {
		r.buf = op->len > 0 ? op->sbuf : zero_len_buf; /* NULL: we would fill */
		r.len = (uint32_t)op->len;
		r.untagged = !(op->flags & FI_TAGGED);
		r.tag = op->rv == RV_DATA ? UFI_TAG_CTRL | op->token : op->tag;
		r.has_data = op->has_data;
		r.data = op->data;
	} else if (sub == SUB_RTS) {
		/* The length and the token as its bytes (every tagged receive
		 * holds them: do_recv), the application's CQ data as its
		 * header data, so that a peek reports both. */
		uint64_t len = op->len;

		for (unsigned i = 0; i < 8; i++)
			op->rts[i] = (uint8_t)(len >> (8 * i));
		for (unsigned i = 0; i < 4; i++)
			op->rts[8 + i] = (uint8_t)(op->token >> (8 * i));
		r.buf = op->rts;
		r.len = UFI_RTS_BYTES;
		r.tag = op->tag | UFI_TAG_RTS;
		r.has_data = op->has_data;
		r.data = op->data;
	} else { /* receiver's clear-to-send */
		r.buf = zero_len_buf;
		r.tag = UFI_TAG_CTRL | UFI_TAG_CTS | op->token;
	}
	rc = uet_ep_send(ep->uep, &r, ufi_io_now(ep->dom->io));
	if (rc == 0)
		op->pending++;
	return rc;
}

/* issue(), or (pools full) again from the next progress. */
static void
issue_or_retry(struct ufi_op *op, unsigned sub)
{
	struct ufi_ep *ep = op->ep;
	int rc = issue(op, sub);

	if (rc == UET_ERR_NOBUFS) {
		op->retry = (uint8_t)(sub + 1);
		op->next_retry = NULL;
		if (ep->retry_tail != NULL)
			ep->retry_tail->next_retry = op;
		else
			ep->retry_head = op;
		ep->retry_tail = op;
	} else if (rc != 0) {
		op_fail(op, rc);
	}
}

void
ufi_ep_retry(struct ufi_ep *ep)
{
	struct ufi_op *op = ep->retry_head;

	ep->retry_head = ep->retry_tail = NULL;
	while (op != NULL) {
		struct ufi_op *next = op->next_retry;
		unsigned sub = op->retry - 1u;

		op->retry = 0;
		if (!op->reported)
			issue_or_retry(op, sub);
		op_release(op);
		op = next;
	}
}

/* A request to send's fields, from its bytes (issue() writes them). */
static uint64_t
rts_len(const uint8_t *b)
{
	uint64_t len = 0;

	for (unsigned i = 0; i < 8; i++)
		len |= (uint64_t)b[i] << (8 * i);
	return len;
}

static uint32_t
rts_token(const uint8_t *b)
{
	uint32_t token = 0;

	for (unsigned i = 0; i < 4; i++)
		token |= (uint32_t)b[8 + i] << (8 * i);
	return token;
}

/* The receive of a rendezvous's data, into the application's buffer,
 * then the clear-to-send that lets it come. */
static void
rendezvous_accept(struct ufi_op *op, const struct uet_recv_done *d)
{
	struct ufi_ep *ep = op->ep;
	struct uet_recv_req q = { 0 };
	int rc;

	op->rv = RV_DATA;
	op->tag = d->tag & ~(uint64_t)UFI_TAG_RTS;
	op->ip = d->src_ip;
	/* Only the token: the data message's own length is what counts. */
	op->token = rts_token(op->bounce ? op->rts : op->buf);
	op->bounce = false;
	q.buf = op->len > 0 ? op->buf : zero_len_buf;
	q.len = (uint32_t)op->len; /* the application's buffer */
	q.tagged = true;
	q.tag = UFI_TAG_CTRL | op->token;
	q.src_ip = op->ip;
	q.user = sub_ptr(op, SUB_MAIN);
	op->pending++; /* before: a data message already there completes inside */
	rc = uet_ep_post_recv(ep->uep, &q, &op->handle, ufi_io_now(ep->dom->io));
	if (rc != 0) {
		op->pending--;
		op_fail(op, rc);
		return;
	}
	issue_or_retry(op, SUB_CTS);
}

/* --- libuet's callbacks --- */

static void
on_tx_done(void *user, const struct uet_tx_done *d)
{
	unsigned sub;
	struct ufi_op *op = sub_op(d->user, &sub);

	(void)user;
	op->pending--;
	if (d->status != 0)
		op_fail(op, d->status);
	else if (sub == SUB_MAIN)
		op_complete(op, 0, 0, 0, 0, false, 0, 0);
	op_release(op);
}

static void
on_recv_done(void *user, const struct uet_recv_done *d)
{
	unsigned sub;
	struct ufi_op *op = sub_op(d->user, &sub);

	(void)user;
	op->pending--;
	if (sub == SUB_CTS) {
		/* Sender: clear to send; the data goes where the receiver
		 * posted for it. */
		if (d->status == 0 && !op->reported) {
			op->rv = RV_DATA;
			issue_or_retry(op, SUB_MAIN);
		} else if (d->status != 0) {
			op_fail(op, d->status);
		}
	} else if (op->rv == RV_NONE && (d->tag & UFI_TAG_RTS) && (op->flags & FI_TAGGED)) {
		/* A request to send (every tagged receive holds one whole). */
		if (d->status == 0 && d->msg_len == UFI_RTS_BYTES)
			rendezvous_accept(op, d);
		else
			op_complete(op, d->status != 0 ? d->status : UET_ERR_MALFORMED, 0, 0,
				    d->tag & UFI_TAG_USER, false, 0, d->src_ip);
	} else {
		uint64_t tag = op->rv == RV_DATA ? op->tag : d->tag;
		uint64_t len = d->len;
		int status = d->status;

		if (op->bounce) {
			/* Landed in rts[] (room for UFI_RTS_BYTES, more than
			 * the application's buffer): its part of it. */
			len = d->len < op->len ? d->len : op->len;
			if (len > 0)
				memcpy(op->buf, op->rts, len);
			if (status == 0 && d->msg_len > op->len)
				status = UET_ERR_TRUNCATED;
		}
		op_complete(op, status, len, d->msg_len > len ? d->msg_len - len : 0,
			    tag & UFI_TAG_USER, d->has_data, d->data, d->src_ip);
	}
	op_release(op);
}

static void
on_pdc_event(void *user, const struct uet_pdc_event *e)
{
	struct ufi_ep *ep = user;
	struct in_addr a = { .s_addr = htonl(e->peer_ip) };

	if (e->kind != UET_PDC_EV_FAILED)
		return;
	UFI_WARN(FI_LOG_EP_DATA, "connection to %s failed: %s\n", inet_ntoa(a),
		 uet_strerror(e->status));
	/* Rendezvous with that peer wait on a message that will not come
	 * (a clear-to-send, or the data): they fail with the connection. */
	for (uint32_t i = 0; i < ep->n_ops; i++) {
		struct ufi_op *op = &ep->ops[i];

		if (op->in_use && !op->reported && op->rv != RV_NONE && op->ip == e->peer_ip) {
			op->pending++; /* freed below, not inside the cancel */
			op_fail(op, e->status);
			op->pending--;
			op_release(op);
		}
	}
}

/* --- sends and receives --- */

static bool
wants_completion(bool selective, uint64_t flags)
{
	return !selective || (flags & FI_COMPLETION);
}

/* An fi_inject*() call: no completion, whatever the flags say. */
#define UFI_F_QUIET (1ULL << 63)

static ssize_t
do_send(struct ufi_ep *ep, const void *buf, size_t len, fi_addr_t dest, bool tagged,
	uint64_t tag, uint64_t data, void *context, uint64_t flags)
{
	struct ufi_op *op;
	uint32_t ip;
	ssize_t ret = 0;
	int rc;

	if (len > UINT32_MAX)
		return -FI_EMSGSIZE;
	if ((flags & FI_INJECT) && len > UFI_INJECT_BYTES)
		return -FI_EMSGSIZE;
	if (tagged && (tag & ~(uint64_t)UFI_TAG_USER))
		return -FI_EINVAL; /* outside mem_tag_format */
	ufi_lock(ep->dom);
	if (!ep->enabled) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	ip = ufi_av_ip(ep->av, dest);
	if (ip == 0) {
		ret = -FI_EINVAL;
		goto out;
	}
	op = op_get(ep);
	if (op == NULL) {
		ufi_progress(ep->dom);
		op = op_get(ep);
	}
	if (op == NULL) {
		ret = -FI_EAGAIN;
		goto out;
	}
	op->context = context;
	op->tag = tagged ? tag : 0;
	op->flags = FI_SEND | (tagged ? FI_TAGGED : FI_MSG);
	op->ip = ip;
	op->len = len;
	op->sbuf = buf;
	op->has_data = (flags & FI_REMOTE_CQ_DATA) != 0;
	op->data = data;
	if (flags & FI_INJECT) {
		op->copy = malloc(len > 0 ? len : 1);
		if (op->copy == NULL) {
			op_put(op);
			ret = -FI_ENOMEM;
			goto out;
		}
		memcpy(op->copy, buf, len);
		op->sbuf = op->copy;
	}
	op->quiet = (flags & UFI_F_QUIET) != 0;
	if (!op->quiet && wants_completion(ep->tx_selective, flags))
		op->flags |= FI_COMPLETION;
	if (tagged && len > UFI_EAGER_BYTES) {
		/* Rendezvous: the clear-to-send's receive first, then the
		 * request, matched at the receiver as the message itself. */
		struct uet_recv_req q = { .buf = zero_len_buf, .tagged = true, .src_ip = ip,
					  .user = sub_ptr(op, SUB_CTS) };

		op->token = (uint32_t)(op - ep->ops) | (uint32_t)op->gen << 16;
		q.tag = UFI_TAG_CTRL | UFI_TAG_CTS | op->token;
		op->pending++;
		op->rv = RV_WAIT_CTS;
		rc = uet_ep_post_recv(ep->uep, &q, &op->handle, ufi_io_now(ep->dom->io));
		if (rc != 0) {
			op->pending--;
			op->rv = RV_NONE;
		} else {
			rc = issue(op, SUB_RTS);
			if (rc != 0) {
				/* Nothing sent: take the receive back quietly. */
				op->reported = true;
				(void)uet_ep_cancel_recv(ep->uep, op->handle,
							 ufi_io_now(ep->dom->io));
				ret = rc == UET_ERR_NOBUFS ? -FI_EAGAIN : -FI_EINVAL;
				goto progress;
			}
		}
	} else {
		rc = issue(op, SUB_MAIN);
	}
	if (rc == UET_ERR_NOBUFS) {
		op_put(op);
		ufi_progress(ep->dom);
		ret = -FI_EAGAIN;
		goto out;
	}
	if (rc != 0) {
		op_put(op);
		ret = -FI_EINVAL;
		goto out;
	}
progress:
	/* Out at once what the window lets out: an application may send
	 * and then wait elsewhere (on its own socket, a barrier) for the
	 * reply, reading no CQ in the meantime. */
	ufi_io_kick(ep->dom->io);
	ufi_progress(ep->dom);
out:
	ufi_unlock(ep->dom);
	return ret;
}

/* The libuet receive for the application's: tags in its space, and
 * requests to send in them; never the provider's own messages. */
static void
recv_req(struct uet_recv_req *q, bool tagged, uint64_t tag, uint64_t ignore, uint32_t src_ip)
{
	memset(q, 0, sizeof(*q));
	q->tagged = tagged;
	q->tag = tagged ? tag & UFI_TAG_USER : 0;
	q->ignore = tagged ? (ignore & UFI_TAG_USER) | UFI_TAG_RTS : 0;
	q->src_ip = src_ip;
}

/* FI_PEEK: the message a receive would take now, reported at once in the
 * CQ (FI_ENOMSG when there is none); with FI_CLAIM it is set aside for the
 * receive that names the same context. */
static ssize_t
do_peek(struct ufi_ep *ep, struct uet_recv_req *q, void *context, uint64_t flags)
{
	struct fi_context *fc = context;
	struct uet_peek pk;
	struct ufi_op *op;
	uint64_t len, tag;
	int rc;

	if ((flags & FI_CLAIM) && context == NULL)
		return -FI_EINVAL; /* the claim lives in the application's fi_context */
	op = op_get(ep);
	if (op == NULL)
		return -FI_EAGAIN;
	op->context = context;
	op->flags = FI_RECV | (q->tagged ? FI_TAGGED : FI_MSG) | FI_COMPLETION;
	ufi_progress(ep->dom); /* what has arrived by now */
	memset(&pk, 0, sizeof(pk));
	rc = uet_ep_peek(ep->uep, q, &pk);
	len = pk.msg_len;
	tag = pk.tag & UFI_TAG_USER;
	if (rc == 0 && q->tagged && (pk.tag & UFI_TAG_RTS)) {
		/* A rendezvous: the length is in the request's bytes (its
		 * head, also when it waits without a buffer). */
		if (pk.msg_len == UFI_RTS_BYTES && pk.head_len == UFI_RTS_BYTES)
			len = rts_len(pk.head);
		else
			rc = UET_ERR_MALFORMED;
	}
	if (rc == 0 && (flags & FI_CLAIM))
		rc = uet_ep_claim(ep->uep, pk.handle);
	if (rc != 0) {
		op_complete(op, rc, 0, 0, q->tag, false, 0, 0); /* FI_ENOMSG */
		op_put(op);
		return 0;
	}
	if (flags & FI_CLAIM)
		fc->internal[0] = (void *)(uintptr_t)pk.handle;
	op->peek = true;
	op_complete(op, 0, len, 0, tag, pk.has_data, pk.data, pk.src_ip);
	op_put(op);
	return 0;
}

static ssize_t
do_recv(struct ufi_ep *ep, void *buf, size_t len, fi_addr_t src, bool tagged, uint64_t tag,
	uint64_t ignore, void *context, uint64_t flags)
{
	struct uet_recv_req q;
	struct ufi_op *op;
	uint32_t src_ip = 0;
	ssize_t ret = 0;
	int rc;

	ufi_lock(ep->dom);
	if (!ep->enabled) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	if (flags & (FI_MULTI_RECV | FI_DISCARD)) {
		ret = -FI_EOPNOTSUPP;
		goto out;
	}
	/* A claimed message is named by the context: the address is not
	 * used (Open MPI passes 0). */
	if (src != FI_ADDR_UNSPEC && (ep->info->caps & FI_DIRECTED_RECV) &&
	    (flags & (FI_CLAIM | FI_PEEK)) != FI_CLAIM) {
		src_ip = ufi_av_ip(ep->av, src);
		if (src_ip == 0) {
			ret = -FI_EINVAL;
			goto out;
		}
	}
	recv_req(&q, tagged, tag, ignore, src_ip);
	if (flags & FI_PEEK) {
		ret = do_peek(ep, &q, context, flags);
		goto out;
	}
	if (flags & FI_CLAIM) {
		/* The message a peek claimed with this context. */
		if (context == NULL || ((struct fi_context *)context)->internal[0] == NULL) {
			ret = -FI_EINVAL;
			goto out;
		}
		q.claim = (uint64_t)(uintptr_t)((struct fi_context *)context)->internal[0];
	}
	op = op_get(ep);
	if (op == NULL) {
		ret = -FI_EAGAIN;
		goto out;
	}
	op->context = context;
	op->buf = buf;
	op->flags = FI_RECV | (tagged ? FI_TAGGED : FI_MSG);
	if (wants_completion(ep->rx_selective, flags))
		op->flags |= FI_COMPLETION;
	q.buf = len > 0 ? buf : zero_len_buf;
	q.len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	op->len = q.len;
	if (tagged && q.len < UFI_RTS_BYTES) {
		/* Room for a request to send, which may be what it takes. */
		q.buf = op->rts;
		q.len = UFI_RTS_BYTES;
		op->bounce = true;
	}
	q.user = sub_ptr(op, SUB_MAIN);
	op->pending = 1;
	/* A message already waiting completes inside this call (op may be
	 * free when it returns); the handle is written before that. */
	rc = uet_ep_post_recv(ep->uep, &q, &op->handle, ufi_io_now(ep->dom->io));
	if (rc == UET_ERR_NOBUFS) {
		op_put(op);
		ret = -FI_EAGAIN;
	} else if (rc != 0) {
		op_put(op);
		ret = -FI_EINVAL;
	}
out:
	ufi_unlock(ep->dom);
	return ret;
}

static struct ufi_ep *
ep_of(struct fid_ep *fid)
{
	return container_of(fid, struct ufi_ep, fid);
}

static ssize_t
msg_recv(struct fid_ep *fid, void *buf, size_t len, void *desc, fi_addr_t src, void *context)
{
	struct ufi_ep *ep = ep_of(fid);

	(void)desc;
	return do_recv(ep, buf, len, src, false, 0, 0, context, ep->rx_op_flags);
}

static ssize_t
msg_recvv(struct fid_ep *fid, const struct iovec *iov, void **desc, size_t count,
	  fi_addr_t src, void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return msg_recv(fid, count ? iov[0].iov_base : NULL, count ? iov[0].iov_len : 0,
			desc, src, context);
}

static ssize_t
msg_recvmsg(struct fid_ep *fid, const struct fi_msg *m, uint64_t flags)
{
	if (m->iov_count > 1)
		return -FI_EINVAL;
	return do_recv(ep_of(fid), m->iov_count ? m->msg_iov[0].iov_base : NULL,
		       m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, false, 0, 0,
		       m->context, flags);
}

static ssize_t
msg_send(struct fid_ep *fid, const void *buf, size_t len, void *desc, fi_addr_t dest,
	 void *context)
{
	struct ufi_ep *ep = ep_of(fid);

	(void)desc;
	return do_send(ep, buf, len, dest, false, 0, 0, context, ep->tx_op_flags);
}

static ssize_t
msg_sendv(struct fid_ep *fid, const struct iovec *iov, void **desc, size_t count,
	  fi_addr_t dest, void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return msg_send(fid, count ? iov[0].iov_base : NULL, count ? iov[0].iov_len : 0, desc,
			dest, context);
}

static ssize_t
msg_sendmsg(struct fid_ep *fid, const struct fi_msg *m, uint64_t flags)
{
	if (m->iov_count > 1)
		return -FI_EINVAL;
	return do_send(ep_of(fid), m->iov_count ? m->msg_iov[0].iov_base : NULL,
		       m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, false, 0, m->data,
		       m->context, flags);
}

static ssize_t
msg_inject(struct fid_ep *fid, const void *buf, size_t len, fi_addr_t dest)
{
	return do_send(ep_of(fid), buf, len, dest, false, 0, 0, NULL, FI_INJECT | UFI_F_QUIET);
}

static ssize_t
msg_senddata(struct fid_ep *fid, const void *buf, size_t len, void *desc, uint64_t data,
	     fi_addr_t dest, void *context)
{
	struct ufi_ep *ep = ep_of(fid);

	(void)desc;
	return do_send(ep, buf, len, dest, false, 0, data, context,
		       ep->tx_op_flags | FI_REMOTE_CQ_DATA);
}

static ssize_t
msg_injectdata(struct fid_ep *fid, const void *buf, size_t len, uint64_t data, fi_addr_t dest)
{
	return do_send(ep_of(fid), buf, len, dest, false, 0, data, NULL,
		       FI_INJECT | FI_REMOTE_CQ_DATA | UFI_F_QUIET);
}

static struct fi_ops_msg msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = msg_recv,
	.recvv = msg_recvv,
	.recvmsg = msg_recvmsg,
	.send = msg_send,
	.sendv = msg_sendv,
	.sendmsg = msg_sendmsg,
	.inject = msg_inject,
	.senddata = msg_senddata,
	.injectdata = msg_injectdata,
};

static ssize_t
tag_recv(struct fid_ep *fid, void *buf, size_t len, void *desc, fi_addr_t src, uint64_t tag,
	 uint64_t ignore, void *context)
{
	struct ufi_ep *ep = ep_of(fid);

	(void)desc;
	return do_recv(ep, buf, len, src, true, tag, ignore, context, ep->rx_op_flags);
}

static ssize_t
tag_recvv(struct fid_ep *fid, const struct iovec *iov, void **desc, size_t count,
	  fi_addr_t src, uint64_t tag, uint64_t ignore, void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return tag_recv(fid, count ? iov[0].iov_base : NULL, count ? iov[0].iov_len : 0, desc,
			src, tag, ignore, context);
}

static ssize_t
tag_recvmsg(struct fid_ep *fid, const struct fi_msg_tagged *m, uint64_t flags)
{
	if (m->iov_count > 1)
		return -FI_EINVAL;
	return do_recv(ep_of(fid), m->iov_count ? m->msg_iov[0].iov_base : NULL,
		       m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, true, m->tag, m->ignore,
		       m->context, flags);
}

static ssize_t
tag_send(struct fid_ep *fid, const void *buf, size_t len, void *desc, fi_addr_t dest,
	 uint64_t tag, void *context)
{
	struct ufi_ep *ep = ep_of(fid);

	(void)desc;
	return do_send(ep, buf, len, dest, true, tag, 0, context, ep->tx_op_flags);
}

static ssize_t
tag_sendv(struct fid_ep *fid, const struct iovec *iov, void **desc, size_t count,
	  fi_addr_t dest, uint64_t tag, void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return tag_send(fid, count ? iov[0].iov_base : NULL, count ? iov[0].iov_len : 0, desc,
			dest, tag, context);
}

static ssize_t
tag_sendmsg(struct fid_ep *fid, const struct fi_msg_tagged *m, uint64_t flags)
{
	if (m->iov_count > 1)
		return -FI_EINVAL;
	return do_send(ep_of(fid), m->iov_count ? m->msg_iov[0].iov_base : NULL,
		       m->iov_count ? m->msg_iov[0].iov_len : 0, m->addr, true, m->tag, m->data,
		       m->context, flags);
}

static ssize_t
tag_inject(struct fid_ep *fid, const void *buf, size_t len, fi_addr_t dest, uint64_t tag)
{
	return do_send(ep_of(fid), buf, len, dest, true, tag, 0, NULL, FI_INJECT | UFI_F_QUIET);
}

static ssize_t
tag_senddata(struct fid_ep *fid, const void *buf, size_t len, void *desc, uint64_t data,
	     fi_addr_t dest, uint64_t tag, void *context)
{
	struct ufi_ep *ep = ep_of(fid);

	(void)desc;
	return do_send(ep, buf, len, dest, true, tag, data, context,
		       ep->tx_op_flags | FI_REMOTE_CQ_DATA);
}

static ssize_t
tag_injectdata(struct fid_ep *fid, const void *buf, size_t len, uint64_t data, fi_addr_t dest,
	       uint64_t tag)
{
	return do_send(ep_of(fid), buf, len, dest, true, tag, data, NULL,
		       FI_INJECT | FI_REMOTE_CQ_DATA | UFI_F_QUIET);
}

static struct fi_ops_tagged tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = tag_recv,
	.recvv = tag_recvv,
	.recvmsg = tag_recvmsg,
	.send = tag_send,
	.sendv = tag_sendv,
	.sendmsg = tag_sendmsg,
	.inject = tag_inject,
	.senddata = tag_senddata,
	.injectdata = tag_injectdata,
};

/* --- endpoint control --- */

static ssize_t
ep_cancel(fid_t fid, void *context)
{
	struct ufi_ep *ep = container_of(fid, struct ufi_ep, fid.fid);
	ssize_t ret = -FI_ENOENT;

	ufi_lock(ep->dom);
	for (uint32_t i = 0; ep->enabled && i < ep->n_ops; i++) {
		struct ufi_op *op = &ep->ops[i];

		if (op->in_use && (op->flags & FI_RECV) && op->context == context &&
		    op->rv == RV_NONE && !op->reported) {
			/* recv_done reports it (FI_ECANCELED) and frees op. A
			 * rendezvous under way is not taken back: its sender
			 * was told to send. */
			if (uet_ep_cancel_recv(ep->uep, op->handle, ufi_io_now(ep->dom->io)) == 0)
				ret = 0;
			break;
		}
	}
	ufi_unlock(ep->dom);
	return ret;
}

static int
ep_getopt(fid_t fid, int level, int optname, void *optval, size_t *optlen)
{
	(void)fid;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return -FI_ENOPROTOOPT;
}

static int
ep_setopt(fid_t fid, int level, int optname, const void *optval, size_t optlen)
{
	(void)fid;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return -FI_ENOPROTOOPT;
}

static int
ep_noctx(struct fid_ep *sep, int index, void *attr, struct fid_ep **out, void *context)
{
	(void)sep;
	(void)index;
	(void)attr;
	(void)out;
	(void)context;
	return -FI_ENOSYS;
}

static int
ep_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr, struct fid_ep **out,
	  void *context)
{
	return ep_noctx(sep, index, attr, out, context);
}

static int
ep_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr, struct fid_ep **out,
	  void *context)
{
	return ep_noctx(sep, index, attr, out, context);
}

static ssize_t
ep_size_left(struct fid_ep *fid)
{
	struct ufi_ep *ep = ep_of(fid);
	ssize_t n;

	ufi_lock(ep->dom);
	n = (ssize_t)(ep->n_ops - ep->ops_used);
	ufi_unlock(ep->dom);
	return n;
}

static struct fi_ops_ep ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = ep_cancel,
	.getopt = ep_getopt,
	.setopt = ep_setopt,
	.tx_ctx = ep_tx_ctx,
	.rx_ctx = ep_rx_ctx,
	.rx_size_left = ep_size_left,
	.tx_size_left = ep_size_left,
};

static int
cm_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct ufi_ep *ep = container_of(fid, struct ufi_ep, fid.fid);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(UET_UDP_PORT),
				   .sin_addr.s_addr = htonl(ep->dom->params.ip) };
	size_t have = *addrlen;

	*addrlen = sizeof(sin);
	if (have < sizeof(sin))
		return -FI_ETOOSMALL;
	memcpy(addr, &sin, sizeof(sin));
	return 0;
}

static int
cm_nosetname(fid_t fid, void *addr, size_t addrlen)
{
	(void)fid;
	(void)addr;
	(void)addrlen;
	return -FI_ENOSYS;
}

static int
cm_nogetpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	(void)ep;
	(void)addr;
	(void)addrlen;
	return -FI_ENOSYS;
}

static int
cm_noconnect(struct fid_ep *ep, const void *addr, const void *param, size_t paramlen)
{
	(void)ep;
	(void)addr;
	(void)param;
	(void)paramlen;
	return -FI_ENOSYS;
}

static int
cm_nolisten(struct fid_pep *pep)
{
	(void)pep;
	return -FI_ENOSYS;
}

static int
cm_noaccept(struct fid_ep *ep, const void *param, size_t paramlen)
{
	(void)ep;
	(void)param;
	(void)paramlen;
	return -FI_ENOSYS;
}

static int
cm_noreject(struct fid_pep *pep, fid_t handle, const void *param, size_t paramlen)
{
	(void)pep;
	(void)handle;
	(void)param;
	(void)paramlen;
	return -FI_ENOSYS;
}

static int
cm_noshutdown(struct fid_ep *ep, uint64_t flags)
{
	(void)ep;
	(void)flags;
	return -FI_ENOSYS;
}

static int
cm_nojoin(struct fid_ep *ep, const void *addr, uint64_t flags, struct fid_mc **mc, void *context)
{
	(void)ep;
	(void)addr;
	(void)flags;
	(void)mc;
	(void)context;
	return -FI_ENOSYS;
}

static struct fi_ops_cm cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = cm_nosetname,
	.getname = cm_getname,
	.getpeer = cm_nogetpeer,
	.connect = cm_noconnect,
	.listen = cm_nolisten,
	.accept = cm_noaccept,
	.reject = cm_noreject,
	.shutdown = cm_noshutdown,
	.join = cm_nojoin,
};

static int
ep_bind_locked(struct ufi_ep *ep, struct fid *bfid, uint64_t flags)
{

	if (ep->enabled)
		return -FI_EOPBADSTATE;
	switch (bfid->fclass) {
	case FI_CLASS_AV:
		if (ep->av != NULL)
			return -FI_EINVAL;
		ep->av = container_of(bfid, struct ufi_av, fid.fid);
		ep->av->refs++;
		return 0;
	case FI_CLASS_CQ: {
		struct ufi_cq *cq = container_of(bfid, struct ufi_cq, fid.fid);

		if (flags & ~(uint64_t)(FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION))
			return -FI_EBADFLAGS;
		if (flags & FI_TRANSMIT) {
			if (ep->tx_cq != NULL)
				return -FI_EINVAL;
			ep->tx_cq = cq;
			cq->refs++;
			ep->tx_selective = (flags & FI_SELECTIVE_COMPLETION) != 0;
		}
		if (flags & FI_RECV) {
			if (ep->rx_cq != NULL)
				return -FI_EINVAL;
			ep->rx_cq = cq;
			cq->refs++;
			ep->rx_selective = (flags & FI_SELECTIVE_COMPLETION) != 0;
		}
		return 0;
	}
	default:
		return -FI_ENOSYS; /* counters, event queues: none */
	}
}

static int
ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct ufi_ep *ep = container_of(fid, struct ufi_ep, fid.fid);
	int rc;

	ufi_lock(ep->dom);
	rc = ep_bind_locked(ep, bfid, flags);
	ufi_unlock(ep->dom);
	return rc;
}

static int
ep_enable(struct ufi_ep *ep)
{
	const struct uet_callbacks cb = {
		.tx_done = on_tx_done,
		.recv_done = on_recv_done,
		.pdc_event = on_pdc_event,
	};
	char err[256];
	int rc;

	if (ep->enabled)
		return 0;
	if (ep->av == NULL || ep->tx_cq == NULL || ep->rx_cq == NULL)
		return -FI_ENOCQ;
	/* A long send's clear-to-send takes a posted receive too. */
	rc = ufi_io_open(&ep->dom->params, &cb, ep, ep->n_ops, &ep->dom->io, &ep->uep, err,
			 sizeof(err));
	if (rc != 0) {
		UFI_WARN(FI_LOG_EP_CTRL, "%s\n", err);
		return rc;
	}
	ep->enabled = true;
	/* Peers inserted before the endpoint had a port: resolved now. */
	for (size_t i = 0; i < ep->av->n; i++)
		if (ep->av->ip[i] != 0)
			ufi_io_resolve(ep->dom->io, ep->av->ip[i]);
	return 0;
}

static int
ep_control(struct fid *fid, int command, void *arg)
{
	struct ufi_ep *ep = container_of(fid, struct ufi_ep, fid.fid);
	uint64_t *flags = arg;
	int rc = 0;

	ufi_lock(ep->dom);
	switch (command) {
	case FI_ENABLE:
		rc = ep_enable(ep);
		break;
	case FI_GETOPSFLAG:
		*flags = (*flags & FI_TRANSMIT) ? ep->tx_op_flags : ep->rx_op_flags;
		break;
	case FI_SETOPSFLAG:
		if (*flags & FI_TRANSMIT)
			ep->tx_op_flags = *flags & ~(uint64_t)FI_TRANSMIT;
		else
			ep->rx_op_flags = *flags & ~(uint64_t)FI_RECV;
		break;
	default:
		rc = -FI_ENOSYS;
	}
	ufi_unlock(ep->dom);
	return rc;
}

/* Whether peers still need us: ACKs owed, sends not yet acknowledged. */
static bool
busy(const struct ufi_ep *ep)
{
	const struct uet_ep_stats *s = uet_ep_stats(ep->uep);

	return uet_ep_may_write(ep->uep) || ep->retry_head != NULL ||
	       s->msgs_acked + s->msgs_failed < s->msgs_submitted;
}

static int
ep_close(struct fid *fid)
{
	struct ufi_ep *ep = container_of(fid, struct ufi_ep, fid.fid);
	struct ufi_domain *d = ep->dom;

	ufi_lock(d);
	if (ep->enabled) {
		uint64_t end = ufi_io_now(d->io) + LINGER_NS;

		do
			ufi_progress(d);
		while (busy(ep) && ufi_io_now(d->io) < end);
		ufi_io_close(d->io);
		d->io = NULL;
	}
	if (ep->av != NULL)
		ep->av->refs--;
	if (ep->tx_cq != NULL)
		ep->tx_cq->refs--;
	if (ep->rx_cq != NULL)
		ep->rx_cq->refs--;
	d->ep = NULL;
	d->refs--;
	ufi_unlock(d);
	for (uint32_t i = 0; i < ep->n_ops; i++)
		free(ep->ops[i].copy); /* injects the peer never acknowledged */
	fi_freeinfo(ep->info);
	free(ep->ops);
	free(ep);
	return 0;
}

static struct fi_ops ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = ep_close,
	.bind = ep_bind,
	.control = ep_control,
	.ops_open = ufi_no_ops_open,
};

int
ufi_endpoint_open(struct fid_domain *domain, struct fi_info *info, struct fid_ep **out,
		  void *context)
{
	struct ufi_domain *d = container_of(domain, struct ufi_domain, fid);
	struct ufi_ep *ep;
	size_t tx, rx;

	if (info == NULL || info->ep_attr == NULL || info->ep_attr->type != FI_EP_RDM)
		return -FI_EINVAL;
	ufi_lock(d);
	if (d->ep != NULL) {
		ufi_unlock(d);
		UFI_WARN(FI_LOG_EP_CTRL, "one endpoint per domain (an address per process)\n");
		return -FI_EBUSY;
	}
	ep = calloc(1, sizeof(*ep));
	if (ep == NULL)
		goto nomem;
	ep->info = fi_dupinfo(info);
	if (ep->info == NULL)
		goto nomem;
	tx = info->tx_attr != NULL && info->tx_attr->size ? info->tx_attr->size : UFI_DEF_QUEUE;
	rx = info->rx_attr != NULL && info->rx_attr->size ? info->rx_attr->size : UFI_DEF_QUEUE;
	if (ep->info->rx_attr != NULL)
		ep->info->rx_attr->size = rx;
	/* A rendezvous token holds the context's index in 16 bits (and its
	 * generation in the other 16). */
	if (tx + rx > (1u << 16))
		goto nomem;
	ep->n_ops = (uint32_t)(tx + rx);
	ep->ops = calloc(ep->n_ops, sizeof(*ep->ops));
	if (ep->ops == NULL)
		goto nomem;
	for (uint32_t i = 0; i < ep->n_ops; i++) {
		ep->ops[i].next_free = ep->free_ops;
		ep->free_ops = &ep->ops[i];
	}
	ep->dom = d;
	ep->tx_op_flags = info->tx_attr != NULL ? info->tx_attr->op_flags : 0;
	ep->rx_op_flags = info->rx_attr != NULL ? info->rx_attr->op_flags : 0;
	ep->fid.fid.fclass = FI_CLASS_EP;
	ep->fid.fid.context = context;
	ep->fid.fid.ops = &ep_fi_ops;
	ep->fid.ops = &ep_ops;
	ep->fid.cm = &cm_ops;
	ep->fid.msg = &msg_ops;
	ep->fid.tagged = &tagged_ops;
	d->ep = ep;
	d->refs++;
	ufi_unlock(d);
	*out = &ep->fid;
	return 0;
nomem:
	if (ep != NULL) {
		fi_freeinfo(ep->info);
		free(ep->ops);
		free(ep);
	}
	ufi_unlock(d);
	return -FI_ENOMEM;
}
