/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uet/prng.h"
#include "driver/driver.h"
#include "uet/err.h"

#define READY_BATCH 64

/* A FIFO of flow ids, growing by doubling (only when a send is refused,
 * or at set-up: never per packet). */
struct fifo {
	uint32_t *v;
	uint32_t head, n, cap;
};

struct uet_drv {
	struct uet_drv_cfg cfg;
	const struct uet_wl *wl;
	struct uet_wl_run *wr;       /* iterations */
	struct uet_meas *meas;
	uint64_t t0_ns;
	bool running;
	uint8_t *flow_bad;           /* verify: a byte of the flow differed */
	uint32_t *seq;               /* streams: next message of each flow */
	uint8_t *ended;              /* streams: a message failed, the stream
				      * stopped */
	uint32_t live;               /* streams: local ones not ended */
	uint32_t remote_in;          /* streams: into a local rank from a rank
				      * driven elsewhere (only the duration
				      * ends those) */
	struct fifo *pend;           /* iterations: per source rank */
	struct fifo needy;           /* streams: flows owed a message */
	uint64_t paced_ns;           /* streams, paced: the earliest time a
				      * message owed may go (UINT64_MAX: none
				      * owed waits for its time) */
	bool pingpong;               /* streams of a ping-pong: each message
				      * answers the one before it */
	uint64_t *ping_ns;           /* ... when each local ping left */
	uint32_t npend;              /* flows waiting in pend queues */
	uint8_t *dead;               /* fail_dead_peers: per rank, a PDC to it
				      * gave up */
	struct uet_drv_stats st;
};

static int
fifo_push(struct fifo *f, uint32_t v)
{
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? 2 * f->cap : 64, i;
		uint32_t *n = malloc(cap * sizeof(uint32_t));

		if (n == NULL)
			return UET_ERR_NOMEM;
		for (i = 0; i < f->n; i++)
			n[i] = f->v[(f->head + i) % f->cap];
		free(f->v);
		f->v = n;
		f->head = 0;
		f->cap = cap;
	}
	f->v[(f->head + f->n) % f->cap] = v;
	f->n++;
	return 0;
}

static uint32_t
fifo_peek(const struct fifo *f)
{
	return f->v[f->head];
}

static void
fifo_pop(struct fifo *f)
{
	f->head = (f->head + 1) % f->cap;
	f->n--;
}

int
uet_drv_create(const struct uet_drv_cfg *c, struct uet_drv **out)
{
	struct uet_drv *d;
	uint32_t n;

	if (c == NULL || out == NULL || c->wl == NULL || c->local == NULL || c->send == NULL)
		return UET_ERR_INVAL;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return UET_ERR_NOMEM;
	d->cfg = *c;
	d->wl = c->wl;
	n = c->wl->nflows ? c->wl->nflows : 1;
	d->flow_bad = calloc(n, 1);
	d->pend = calloc(c->wl->hosts ? c->wl->hosts : 1, sizeof(*d->pend));
	if (c->fail_dead_peers)
		d->dead = calloc(c->wl->hosts ? c->wl->hosts : 1, 1);
	if (d->flow_bad == NULL || d->pend == NULL || (c->fail_dead_peers && d->dead == NULL))
		goto oom;
	if (c->repeat) {
		d->seq = calloc(n, sizeof(uint32_t));
		d->ended = calloc(n, 1);
		d->pingpong = c->wl->pattern == UET_WL_PINGPONG;
		if (d->pingpong)
			d->ping_ns = calloc(n, sizeof(uint64_t));
		if (d->seq == NULL || d->ended == NULL || (d->pingpong && d->ping_ns == NULL))
			goto oom;
		for (n = 0; n < c->wl->nflows; n++) {
			const struct uet_wl_flow *f = &c->wl->flows[n];

			d->remote_in += !c->local[f->src] && c->local[f->dst];
		}
	} else {
		int rc = uet_wl_run_create(c->wl, c->local, &d->wr);

		if (rc != 0) {
			uet_drv_destroy(d);
			return rc;
		}
	}
	*out = d;
	return 0;
oom:
	uet_drv_destroy(d);
	return UET_ERR_NOMEM;
}

void
uet_drv_destroy(struct uet_drv *d)
{
	uint32_t i;

	if (d == NULL)
		return;
	uet_wl_run_free(d->wr);
	for (i = 0; d->pend != NULL && i < d->wl->hosts; i++)
		free(d->pend[i].v);
	free(d->pend);
	free(d->needy.v);
	free(d->flow_bad);
	free(d->seq);
	free(d->ended);
	free(d->ping_ns);
	free(d->dead);
	free(d);
}

void
uet_drv_begin(struct uet_drv *d, struct uet_meas *m, uint64_t t0_ns)
{
	uint32_t i, k, par = d->cfg.parallel ? d->cfg.parallel : 1;

	d->meas = m;
	d->t0_ns = t0_ns;
	d->running = true;
	d->paced_ns = 0;
	if (!d->cfg.repeat)
		return;
	/* Every local stream starts with `parallel` messages owed; a
	 * ping-pong's pings with one, its pongs with none (each answers a
	 * ping). */
	d->live = 0;
	for (i = 0; i < d->wl->nflows; i++) {
		if (!d->cfg.local[d->wl->flows[i].src])
			continue;
		d->live++;
		if (d->pingpong && d->wl->flows[i].step != 0)
			continue;
		for (k = 0; k < (d->pingpong ? 1 : par); k++)
			(void)fifo_push(&d->needy, i);
	}
}

void
uet_drv_stop(struct uet_drv *d)
{
	d->running = false;
}

bool
uet_drv_running(const struct uet_drv *d)
{
	return d->running;
}

static uint64_t
rel(const struct uet_drv *d, uint64_t now_ns)
{
	return now_ns > d->t0_ns ? now_ns - d->t0_ns : 0;
}

/* Hand one message to the caller. */
static int
send_msg(struct uet_drv *d, uint32_t flow, uint64_t tag, uint64_t now_ns)
{
	const struct uet_wl_flow *f = &d->wl->flows[flow];
	struct uet_send_req r;
	int rc;

	if (d->dead != NULL && d->dead[f->dst]) {
		d->st.dead_peer_msgs++;
		return UET_ERR_TIMEOUT;
	}
	memset(&r, 0, sizeof(r));
	r.stream = f->stream;
	r.buf = NULL; /* filled per packet (uet_drv_fill), or left as is */
	r.len = (uint32_t)f->size_bytes;
	r.tag = tag;
	rc = d->cfg.send(d->cfg.ctx, f, &r, now_ns);
	if (rc == 0 && !d->cfg.repeat)
		(void)uet_meas_submit(d->meas, flow, now_ns);
	return rc;
}

/* Iterations: flow failed at its sender; a receiver that will never see it
 * complete must not wait. */
static void
tell_receiver(struct uet_drv *d, uint32_t flow, uint64_t now_ns)
{
	if (d->cfg.local[d->wl->flows[flow].dst])
		uet_drv_peer_gave_up(d, flow, now_ns);
	else if (d->cfg.gave_up != NULL)
		d->cfg.gave_up(d->cfg.ctx, flow, now_ns);
}

/* Iterations: 0 sent or dropped for good, 1 to retry later. */
static int
try_flow(struct uet_drv *d, uint32_t flow, uint64_t now_ns)
{
	int rc = send_msg(d, flow, flow, now_ns);

	if (rc == UET_ERR_NOBUFS)
		return 1;
	if (rc != 0) {
		/* A message the endpoint refuses outright (or one to a dead
		 * peer) would never complete: record it failed so the run
		 * goes on. */
		if (rc != UET_ERR_TIMEOUT)
			d->st.send_errors++;
		(void)uet_meas_submit(d->meas, flow, now_ns);
		(void)uet_meas_send_done(d->meas, flow, now_ns, rc);
		(void)uet_wl_run_send_done(d->wr, flow, rel(d, now_ns));
		tell_receiver(d, flow, now_ns);
	}
	return 0;
}

static void
start_flows(struct uet_drv *d, uint64_t now_ns)
{
	uint32_t ids[READY_BATCH], n, i, r;

	/* Flows refused for lack of message slots go first, in order. */
	for (r = 0; d->npend > 0 && r < d->wl->hosts; r++) {
		struct fifo *q = &d->pend[r];

		while (q->n > 0 && try_flow(d, fifo_peek(q), now_ns) == 0) {
			fifo_pop(q);
			d->npend--;
		}
	}
	do {
		n = uet_wl_run_ready(d->wr, rel(d, now_ns), ids, READY_BATCH);
		for (i = 0; i < n; i++) {
			struct fifo *q = &d->pend[d->wl->flows[ids[i]].src];

			if (q->n > 0 || try_flow(d, ids[i], now_ns) != 0) {
				if (fifo_push(q, ids[i]) == 0)
					d->npend++;
			}
		}
		/* a flow failed at once may have made others ready */
	} while (n > 0);
}

/* Streams: flow is owed a message, which may be due at once. */
static int
owe(struct uet_drv *d, uint32_t flow)
{
	d->paced_ns = 0;
	return fifo_push(&d->needy, flow);
}

/* A stream ends: a message failed. */
static void
end_stream(struct uet_drv *d, uint32_t flow)
{
	if (d->ended[flow] || !d->cfg.local[d->wl->flows[flow].src])
		return;
	d->ended[flow] = 1;
	d->live--;
	d->st.streams_ended++;
}

/* A ping-pong's chain ends with either of its messages: the other side
 * waits for an answer that will not come. */
static void
end_chain(struct uet_drv *d, uint32_t flow)
{
	end_stream(d, flow);
	end_stream(d, d->wl->flows[flow].step == 0 ? flow + 1 : flow - 1);
}

/* Paced streams: when flow f's next message may go. */
static uint64_t
due_ns(const struct uet_drv *d, uint32_t f)
{
	uint64_t t = uet_wl_paced_ns(d->wl->flows[f].size_bytes, d->cfg.rate_bps, d->seq[f]);

	return t > UINT64_MAX - d->t0_ns ? UINT64_MAX : d->t0_ns + t;
}

static void
feed_streams(struct uet_drv *d, uint64_t now_ns)
{
	/* Paced: one pass over what is owed, the messages not due yet going
	 * round to the back; nothing to do before the earliest is due. */
	uint32_t left = d->needy.n;

	if (d->cfg.rate_bps > 0) {
		if (now_ns < d->paced_ns)
			return;
		d->paced_ns = UINT64_MAX;
	}
	while (d->needy.n > 0 && (d->cfg.rate_bps == 0 || left-- > 0)) {
		uint32_t f = fifo_peek(&d->needy);
		uint64_t due;
		int rc;

		if (d->ended[f]) {
			fifo_pop(&d->needy);
			continue;
		}
		if (d->cfg.rate_bps > 0 && (due = due_ns(d, f)) > now_ns) {
			fifo_pop(&d->needy);
			(void)fifo_push(&d->needy, f);
			if (due < d->paced_ns)
				d->paced_ns = due;
			continue;
		}
		rc = send_msg(d, f, (uint64_t)d->seq[f] << 32 | f, now_ns);

		if (rc == UET_ERR_NOBUFS)
			break; /* no message slot: after the next completion */
		if (rc == UET_ERR_TIMEOUT) {
			/* its peer is dead: the stream ends */
			if (d->pingpong)
				end_chain(d, f);
			else
				end_stream(d, f);
		} else if (rc != 0) {
			d->st.send_errors++;
			if (d->pingpong)
				end_chain(d, f);
		} else {
			if (d->pingpong && d->wl->flows[f].step == 0)
				d->ping_ns[f] = now_ns;
			d->seq[f]++;
		}
		fifo_pop(&d->needy);
	}
}

void
uet_drv_step(struct uet_drv *d, uint64_t now_ns)
{
	if (!d->running)
		return;
	if (d->cfg.repeat)
		feed_streams(d, now_ns);
	else
		start_flows(d, now_ns);
}

uint64_t
uet_drv_next_ns(const struct uet_drv *d)
{
	uint64_t t;

	if (!d->running)
		return UINT64_MAX;
	if (d->cfg.repeat)
		return d->cfg.rate_bps > 0 && d->needy.n > 0 ? d->paced_ns : UINT64_MAX;
	t = uet_wl_run_next_ns(d->wr);
	return t == UINT64_MAX ? t : d->t0_ns + t;
}

bool
uet_drv_done(const struct uet_drv *d)
{
	if (d->cfg.repeat)
		return d->running && d->live == 0 && d->remote_in == 0 && d->ended != NULL &&
		       d->st.streams_ended > 0;
	return d->wr != NULL && uet_wl_run_done(d->wr);
}

const struct uet_drv_stats *
uet_drv_stats(const struct uet_drv *d)
{
	return &d->st;
}

/* A received message is flow's: its tag names it, and (with rank_ip) it
 * came from the flow's source. */
static bool
from_flow_src(const struct uet_drv *d, uint64_t flow, uint32_t src_ip)
{
	return flow < d->wl->nflows &&
	       (d->cfg.rank_ip == NULL || d->cfg.rank_ip[d->wl->flows[flow].src] == src_ip);
}

void
uet_drv_rx_data(struct uet_drv *d, const struct uet_rx_data *x, uint64_t now_ns)
{
	uint64_t flow = x->tag & UET_DRV_FLOW_MASK;

	if (!from_flow_src(d, flow, x->src_ip))
		return;
	if (d->running) {
		(void)uet_meas_rx_bytes(d->meas, now_ns, x->len);
		d->st.rx_bytes += x->len;
		d->st.progress += x->len;
	}
	if (d->cfg.verify && !uet_drv_payload_ok(x->tag, x->offset, x->data, x->len))
		d->flow_bad[flow] = 1;
}

/* A ping-pong message arrived whole: the peer answers a ping with its
 * pong; the pinger takes the round trip off a pong and pings again. */
static void
pingpong_turn(struct uet_drv *d, uint32_t flow, uint64_t done_ns)
{
	uint32_t next = d->wl->flows[flow].step == 0 ? flow + 1 : flow - 1;

	if (!d->cfg.local[d->wl->flows[next].src] || d->ended[next])
		return;
	if (d->wl->flows[flow].step == 1 && done_ns >= d->ping_ns[next] &&
	    uet_meas_measuring(d->meas, done_ns))
		(void)uet_meas_add_rtt_sample(d->meas, done_ns - d->ping_ns[next]);
	if (owe(d, next) != 0)
		d->st.send_errors++;
}

void
uet_drv_rx_msg(struct uet_drv *d, const struct uet_rx_msg *x)
{
	uint64_t flow = x->tag & UET_DRV_FLOW_MASK;

	if (!from_flow_src(d, flow, x->src_ip)) {
		d->st.foreign_msgs++;
		return;
	}
	if (x->status != 0 || !d->running)
		return;
	if (d->cfg.verify) {
		d->st.verify_checked++;
		if (d->flow_bad[flow] || x->msg_len != d->wl->flows[flow].size_bytes)
			d->st.verify_bad++;
		d->flow_bad[flow] = 0;
	}
	if (d->cfg.repeat) {
		(void)uet_meas_msg_received(d->meas, (uint32_t)flow, x->done_ns);
		if (d->pingpong)
			pingpong_turn(d, (uint32_t)flow, x->done_ns);
	} else {
		(void)uet_meas_recv_done(d->meas, (uint32_t)flow, x->done_ns);
		(void)uet_wl_run_recv_done(d->wr, (uint32_t)flow, rel(d, x->done_ns));
	}
	d->st.progress++;
}

void
uet_drv_peer_gave_up(struct uet_drv *d, uint32_t flow, uint64_t now_ns)
{
	/* Flows that wait for this one start, as they do at the sender; the
	 * measurement keeps it unreceived. */
	if (d->wr != NULL && flow < d->wl->nflows)
		(void)uet_wl_run_recv_done(d->wr, flow, rel(d, now_ns));
}

/* fail_dead_peers: a PDC to rank gave up; what waits for it fails at the
 * next step. */
static void
mark_dead(struct uet_drv *d, uint32_t rank, uint64_t now_ns)
{
	char why[48];

	d->dead[rank] = 1;
	d->st.dead_peers++;
	snprintf(why, sizeof(why), "rank %u: a PDC gave up", rank);
	(void)uet_meas_event(d->meas, now_ns, "peer-dead", why);
}

void
uet_drv_tx_done(struct uet_drv *d, const struct uet_tx_done *x, uint64_t now_ns)
{
	uint64_t flow = x->tag & UET_DRV_FLOW_MASK;

	if (flow >= d->wl->nflows || !d->running)
		return;
	if (x->status == 0) {
		d->st.progress++;
		/* An answer from a rank marked dead (a message on another
		 * PDC, or one that outlived the outage): it is back. */
		if (d->dead != NULL && d->dead[d->wl->flows[flow].dst]) {
			d->dead[d->wl->flows[flow].dst] = 0;
			d->st.dead_peers--;
		}
	} else if (x->status == UET_ERR_TIMEOUT && d->dead != NULL &&
		 !d->dead[d->wl->flows[flow].dst])
		mark_dead(d, d->wl->flows[flow].dst, x->done_ns);
	if (d->cfg.repeat) {
		(void)uet_meas_msg_acked(d->meas, (uint32_t)flow, x->submit_ns, x->done_ns,
					 x->status);
		if (d->ended[flow])
			return;
		if (x->status != 0) {
			/* The PDC gave up on its peer (retry limit) or the
			 * endpoint refused: the stream ends there, as a
			 * connection in error does, instead of opening PDC
			 * after PDC into a peer that is gone until the
			 * duration runs out. */
			if (d->pingpong)
				end_chain(d, (uint32_t)flow);
			else
				end_stream(d, (uint32_t)flow);
			return;
		}
		/* A ping-pong's next message waits for the answer. */
		if (d->pingpong)
			return;
		if (owe(d, (uint32_t)flow) != 0)
			d->st.send_errors++;
		return;
	}
	(void)uet_meas_send_done(d->meas, (uint32_t)flow, x->done_ns, x->status);
	(void)uet_wl_run_send_done(d->wr, (uint32_t)flow, rel(d, x->done_ns));
	if (x->status != 0)
		tell_receiver(d, (uint32_t)flow, now_ns);
}

/* --- payload pattern --- */

static inline uint64_t
pattern_word(uint64_t tag, uint64_t word)
{
	return uet_mix64(tag * 0x100000001b3ULL + word);
}

/* Byte b of a word, as the word's little-endian bytes: the same on every
 * host, so the checker needs no agreement on byte order. */
static inline uint8_t
word_byte(uint64_t w, uint32_t b)
{
	return (uint8_t)(w >> (b * 8));
}

void
uet_drv_fill(void *ctx, const struct uet_tx_meta *m, uint8_t *payload)
{
	uint64_t off = m->msg_offset;
	uint32_t i = 0, n = m->payload_len;

	(void)ctx;
	/* Up to the next word boundary of the message, then whole words. */
	for (; i < n && ((off + i) & 7) != 0; i++)
		payload[i] = word_byte(pattern_word(m->msg_tag, (off + i) >> 3), (off + i) & 7);
	for (; i + 8 <= n; i += 8) {
		uint64_t w = pattern_word(m->msg_tag, (off + i) >> 3);
		uint32_t b;

		for (b = 0; b < 8; b++)
			payload[i + b] = word_byte(w, b);
	}
	for (; i < n; i++)
		payload[i] = word_byte(pattern_word(m->msg_tag, (off + i) >> 3), (off + i) & 7);
}

bool
uet_drv_payload_ok(uint64_t tag, uint64_t off, const uint8_t *data, uint32_t len)
{
	uint64_t w = pattern_word(tag, off >> 3);
	uint32_t i;

	for (i = 0; i < len; i++) {
		if (i > 0 && ((off + i) & 7) == 0)
			w = pattern_word(tag, (off + i) >> 3);
		if (data[i] != word_byte(w, (off + i) & 7))
			return false;
	}
	return true;
}
