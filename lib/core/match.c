/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive-side matching (uet_ep_post_recv), sans-I/O and bounded: every
 * pool is allocated at creation.
 *
 * A message is matched when its first packet (any of them: the SES header
 * of each carries its opcode, tag and length) is admitted: against the
 * posted receives, oldest first, or else it is held in the unexpected
 * queue, in a buffer of unexp_msg_bytes, until a receive takes it. Under
 * match_in_order a PDC's messages match in their message-id order, which is
 * the order they were sent: a message whose turn has not come is held
 * aside (not matchable) until every earlier one has matched or been
 * queued. A packet that cannot be admitted (no message record or buffer
 * free, a message too long to hold) is refused before it is accepted, so
 * its sender retries it: nothing accepted is ever dropped. Under
 * match_in_order a message whose turn it is and that no receive takes and
 * no buffer can hold is matched all the same, without its bytes
 * ("deferred"): it joins the unexpected queue as a header, later messages
 * take their turns behind it (MPI's isend-then-barrier must not wait for a
 * receive of the first), and its packets are refused until a receive
 * takes it, then land in that receive's buffer as its sender retries them.
 *
 * The receive's buffer gets each byte range as it arrives; a message that
 * was held first is copied over when a receive takes it. The receive
 * completes when the message is whole (recv_done), truncated to its
 * buffer if longer.
 *
 * uet_ep_peek() looks at the unexpected queue as a receive would take from
 * it (libfabric's FI_PEEK: MPI_Probe); uet_ep_claim() takes the message it
 * found out of the queue for a later receive that names it (FI_CLAIM:
 * MPI_Mprobe and MPI_Mrecv).
 */
#include <stdlib.h>
#include <string.h>

#include "core/ep.h"

struct m_recv {
	uint8_t *buf;
	void *user;
	uint64_t tag, ignore;
	uint32_t len;
	uint32_t src_ip;
	uint32_t prev, next;  /* the posted list, in post order */
	uint32_t msg;         /* the message it took, or NONE32 */
	uint32_t gen;         /* handles: index | gen << 32 */
	uint8_t used, tagged;
};

struct m_msg {
	uint64_t key;         /* msg_key() */
	uint64_t tag;
	uint32_t src_ip, msg_len;
	uint32_t recv;        /* the receive it matched, or NONE32 */
	uint32_t slot;        /* its unexpected buffer, or NONE32 */
	uint32_t placed;      /* bytes placed (buffer or receive) */
	uint32_t seq;         /* admission order */
	uint32_t prev, next;  /* the unexpected queue, oldest first */
	uint16_t pdc_id, msg_id;
	uint8_t used, tagged, done;
	uint8_t waiting;      /* match_in_order: its turn has not come */
	uint8_t has_data;     /* the first packet came with header data */
	uint8_t deferred;     /* matched without a buffer: its packets are
			       * refused until a receive takes it */
	uint8_t som;          /* its first packet came: the header data is
			       * known (uet_ep_peek) */
	uint8_t claimed;      /* uet_ep_claim(): out of the unexpected queue,
			       * only a receive with its handle takes it */
	uint8_t head_len;     /* head: the first bytes, for uet_ep_peek() */
	uint8_t head[UET_PEEK_HEAD_BYTES];
	int status;           /* claimed, and its PDC went away: the claim's
			       * receive fails with this */
	uint64_t data;
};

struct match {
	struct m_recv *recv;
	uint32_t *recv_free, n_recv_free, n_recv;
	uint32_t posted_head, posted_tail;
	struct m_msg *msg;
	uint32_t *msg_free, n_msg_free, n_msg;
	uint64_t *scratch;    /* n_msg: match_pdc_gone()'s sort */
	uint32_t unexp_head, unexp_tail;
	uint32_t next_seq;
	uint8_t *slots;
	uint32_t slot_bytes;
	uint32_t *slot_free, n_slot_free, n_slots;
	struct uet_hmap map;  /* msg_key() -> msg index */
};

#define MAX_POSTED (1u << 20)

static uint32_t
n_unexp(const struct uet_ep_config *c)
{
	return c->max_unexp_msgs ? c->max_unexp_msgs : 64;
}

static uint32_t
unexp_bytes(const struct uet_ep_config *c)
{
	return c->unexp_msg_bytes ? c->unexp_msg_bytes : 65536;
}

int
match_config_check(const struct uet_ep_config *c, const char **why)
{
	if (c->max_posted_recvs == 0)
		return 0;
	if (c->max_posted_recvs >= MAX_POSTED)
		*why = "max_posted_recvs must be below 2^20";
	else if (n_unexp(c) > (1u << 20))
		*why = "max_unexp_msgs must be at most 2^20";
	else if ((uint64_t)n_unexp(c) * unexp_bytes(c) > (1ull << 34))
		*why = "max_unexp_msgs x unexp_msg_bytes must be at most 16 GiB";
	else
		return 0;
	return UET_ERR_INVAL;
}

size_t
match_mem_bytes(const struct uet_ep_config *c)
{
	size_t nm = (size_t)c->max_posted_recvs + n_unexp(c);

	if (c->max_posted_recvs == 0)
		return 0;
	return sizeof(struct match) + c->max_posted_recvs * (sizeof(struct m_recv) + 4) +
	       nm * (sizeof(struct m_msg) + 4 + 8 + 2 * 12) +
	       (size_t)n_unexp(c) * (unexp_bytes(c) + 4);
}

int
match_create(struct uet_ep *ep)
{
	const struct uet_ep_config *c = &ep->cfg;
	struct match *m;
	uint32_t i;

	if (c->max_posted_recvs == 0)
		return 0;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return UET_ERR_NOMEM;
	ep->match = m;
	m->n_recv = c->max_posted_recvs;
	m->n_slots = n_unexp(c);
	m->n_msg = m->n_recv + m->n_slots;
	m->slot_bytes = unexp_bytes(c);
	m->recv = calloc(m->n_recv, sizeof(*m->recv));
	m->recv_free = calloc(m->n_recv, sizeof(uint32_t));
	m->msg = calloc(m->n_msg, sizeof(*m->msg));
	m->msg_free = calloc(m->n_msg, sizeof(uint32_t));
	m->scratch = calloc(m->n_msg, sizeof(uint64_t));
	m->slots = malloc((size_t)m->n_slots * m->slot_bytes);
	m->slot_free = calloc(m->n_slots, sizeof(uint32_t));
	if (m->recv == NULL || m->recv_free == NULL || m->msg == NULL || m->msg_free == NULL ||
	    m->scratch == NULL || m->slots == NULL || m->slot_free == NULL || uet_hmap_init(&m->map, m->n_msg) < 0)
		return UET_ERR_NOMEM;
	for (i = 0; i < m->n_recv; i++)
		m->recv_free[m->n_recv_free++] = m->n_recv - 1 - i;
	for (i = 0; i < m->n_msg; i++)
		m->msg_free[m->n_msg_free++] = m->n_msg - 1 - i;
	for (i = 0; i < m->n_slots; i++)
		m->slot_free[m->n_slot_free++] = m->n_slots - 1 - i;
	m->posted_head = m->posted_tail = m->unexp_head = m->unexp_tail = NONE32;
	return 0;
}

void
match_destroy(struct uet_ep *ep)
{
	struct match *m = ep->match;

	if (m == NULL)
		return;
	uet_hmap_fini(&m->map);
	free(m->recv);
	free(m->recv_free);
	free(m->msg);
	free(m->msg_free);
	free(m->scratch);
	free(m->slots);
	free(m->slot_free);
	free(m);
	ep->match = NULL;
}

static uint64_t
msg_key(const struct pdc *p, uint16_t msg_id)
{
	return ((uint64_t)p->slot << 32) | ((uint64_t)p->gen << 16) | msg_id;
}

static bool
recv_takes(const struct m_recv *r, const struct m_msg *g)
{
	if (r->tagged != g->tagged || (r->src_ip != 0 && r->src_ip != g->src_ip))
		return false;
	return !r->tagged || ((r->tag ^ g->tag) & ~r->ignore) == 0;
}

/* Doubly linked lists threaded through a pool by index. */
#define LIST_UNLINK(pool, head, tail, i)                                       \
	do {                                                                   \
		if ((pool)[i].prev != NONE32)                                  \
			(pool)[(pool)[i].prev].next = (pool)[i].next;          \
		else                                                           \
			(head) = (pool)[i].next;                               \
		if ((pool)[i].next != NONE32)                                  \
			(pool)[(pool)[i].next].prev = (pool)[i].prev;          \
		else                                                           \
			(tail) = (pool)[i].prev;                               \
		(pool)[i].prev = (pool)[i].next = NONE32;                      \
	} while (0)
#define LIST_APPEND(pool, head, tail, i)                                       \
	do {                                                                   \
		(pool)[i].next = NONE32;                                       \
		(pool)[i].prev = (tail);                                       \
		if ((tail) != NONE32)                                          \
			(pool)[tail].next = (i);                               \
		else                                                           \
			(head) = (i);                                          \
		(tail) = (i);                                                  \
	} while (0)

static void
slot_release(struct match *m, struct m_msg *g)
{
	if (g->slot != NONE32) {
		m->slot_free[m->n_slot_free++] = g->slot;
		g->slot = NONE32;
	}
}

static void
msg_release(struct match *m, struct m_msg *g)
{
	slot_release(m, g);
	uet_hmap_del(&m->map, g->key);
	g->used = 0;
	m->msg_free[m->n_msg_free++] = (uint32_t)(g - m->msg);
}

static void
recv_release(struct match *m, struct m_recv *r)
{
	r->used = 0;
	r->gen++;
	r->msg = NONE32;
	m->recv_free[m->n_recv_free++] = (uint32_t)(r - m->recv);
}

static void
recv_done(struct uet_ep *ep, struct m_recv *r, const struct m_msg *g, int status, uint64_t now)
{
	struct uet_recv_done d;

	memset(&d, 0, sizeof(d));
	d.user = r->user;
	d.done_ns = now;
	d.status = status;
	if (g != NULL) {
		d.src_ip = g->src_ip;
		d.pdc_id = g->pdc_id;
		d.msg_id = g->msg_id;
		d.tagged = g->tagged;
		d.tag = g->tag;
		d.msg_len = g->msg_len;
		d.has_data = g->has_data;
		d.data = g->data;
		d.len = g->msg_len < r->len ? g->msg_len : r->len;
		if (status == 0 && g->msg_len > r->len)
			d.status = UET_ERR_TRUNCATED;
		else if (status != 0)
			d.len = g->placed < r->len ? g->placed : r->len; /* half received */
	}
	recv_release(ep->match, r);
	if (ep->cfg.cb.recv_done != NULL)
		ep->cfg.cb.recv_done(ep->cfg.user, &d);
}

/* The message has all its bytes (or its PDC went away: status). */
static void
finish(struct uet_ep *ep, struct m_msg *g, int status, uint64_t now)
{
	struct match *m = ep->match;
	struct m_recv *r = &m->recv[g->recv];
	struct m_msg copy = *g;

	msg_release(m, g);
	recv_done(ep, r, &copy, status, now);
}

/* A receive takes a message: what was held of it moves to the buffer. */
static void
bind(struct uet_ep *ep, struct m_msg *g, struct m_recv *r, uint64_t now)
{
	struct match *m = ep->match;

	LIST_UNLINK(m->recv, m->posted_head, m->posted_tail, (uint32_t)(r - m->recv));
	r->msg = (uint32_t)(g - m->msg);
	g->recv = (uint32_t)(r - m->recv);
	if (g->slot != NONE32) {
		uint32_t n = g->msg_len < r->len ? g->msg_len : r->len;

		if (n > 0)
			memcpy(r->buf, m->slots + (size_t)g->slot * m->slot_bytes, n);
		slot_release(m, g);
	}
	if (g->done)
		finish(ep, g, g->status, now);
}

static struct m_recv *
find_recv(const struct match *m, const struct m_msg *g)
{
	uint32_t i;

	for (i = m->posted_head; i != NONE32; i = m->recv[i].next)
		if (recv_takes(&m->recv[i], g))
			return &m->recv[i];
	return NULL;
}

/* g's turn: a posted receive takes it, or it joins the unexpected queue
 * (its buffer taken at admission). */
static void
place(struct uet_ep *ep, struct m_msg *g, uint64_t now)
{
	struct match *m = ep->match;
	struct m_recv *r = find_recv(m, g);

	g->waiting = 0;
	if (r != NULL)
		bind(ep, g, r, now);
	else
		LIST_APPEND(m->msg, m->unexp_head, m->unexp_tail, (uint32_t)(g - m->msg));
}

/* Under match_in_order, after p's message at its turn was placed: the
 * next turn, and every message already waiting for it. */
static void
next_turns(struct uet_ep *ep, struct pdc *p, uint64_t now)
{
	struct match *m = ep->match;
	uint32_t i;

	for (;;) {
		p->rx.match_next++;
		if (!uet_hmap_get(&m->map, msg_key(p, p->rx.match_next), &i) ||
		    !m->msg[i].waiting)
			return;
		place(ep, &m->msg[i], now);
	}
}

/* Whether it is msg_id's turn on p; the PDC's first message (the one at
 * its start PSN) sets the first turn. */
static bool
turn(const struct uet_ep *ep, const struct pdc *p, const struct uet_hdr *h)
{
	if (!ep->cfg.match_in_order)
		return true;
	if (p->rx.match_known)
		return p->rx.match_next == h->ses.msg_id;
	return h->psn == p->rx.start_psn;
}

int
match_check(const struct uet_ep *ep, const struct pdc *p, const struct uet_hdr *h,
	    uint32_t *rec)
{
	const struct match *m = ep->match;
	struct m_msg probe;
	uint32_t i;
	bool tagged = h->ses.opcode == UET_SES_TAGGED_SEND;

	*rec = NONE32;
	if (uet_hmap_get(&m->map, msg_key(p, h->ses.msg_id), &i)) {
		const struct m_msg *g = &m->msg[i];

		/* The same message, or not: a packet whose header disagrees
		 * with it is malformed; a new message reusing the id of a
		 * whole one no receive took yet (its 16 bits wrapped) waits
		 * until that one is taken. */
		if (g->msg_len != h->ses.request_len || g->tagged != tagged ||
		    g->tag != (tagged ? h->ses.match_bits : 0))
			return MATCH_MALFORMED;
		*rec = i;
		if (g->done || (g->deferred && g->recv == NONE32))
			return UET_NACK_NO_SES_MSG_AVAIL; /* match_refused() */
		return 0;
	}
	memset(&probe, 0, sizeof(probe));
	probe.tagged = tagged;
	probe.tag = probe.tagged ? h->ses.match_bits : 0;
	probe.src_ip = p->peer_ip;
	if (turn(ep, p, h)) {
		if (m->n_msg_free == 0)
			return UET_NACK_NO_SES_MSG_AVAIL;
		if (find_recv(m, &probe) != NULL)
			return 0;
		if (h->ses.request_len <= m->slot_bytes && m->n_slot_free > 0)
			return 0;
		return ep->cfg.match_in_order ? MATCH_DEFER : UET_NACK_NO_SES_MSG_AVAIL;
	}
	/* Not its turn: held aside, but never in the last free record or
	 * buffer, which the message whose turn it is may need (or every
	 * record could wait on a message that can get none). */
	return h->ses.request_len <= m->slot_bytes && m->n_slot_free > 1 && m->n_msg_free > 1
		       ? 0
		       : UET_NACK_NO_SES_MSG_AVAIL;
}

static uint32_t new_record(struct uet_ep *ep, struct pdc *p, const struct uet_hdr *h,
			   bool deferred, uint64_t now);

uint32_t
match_admit(struct uet_ep *ep, struct pdc *p, const struct uet_hdr *h, uint32_t rec,
	    uint64_t now)
{
	struct match *m = ep->match;
	struct m_msg *g;
	uint32_t i = rec;

	if (rec != NONE32) {
		/* The PDC's first message, held aside because a later packet
		 * of it came first, says with its start PSN where turns
		 * start: its turn is now. */
		g = &m->msg[i];
		if (g->waiting && !p->rx.match_known && h->psn == p->rx.start_psn) {
			p->rx.match_known = 1;
			p->rx.match_next = h->ses.msg_id;
			place(ep, g, now);
			next_turns(ep, p, now);
		}
	} else {
		i = new_record(ep, p, h, false, now);
	}
	/* Not whole (match_check), so still there. The first packet of a
	 * message without bytes or header data never reaches match_data(). */
	if (h->ses.flags & UET_SES_F_SOM)
		m->msg[i].som = 1;
	return i;
}

/* A record for h's message, matched now if it is its turn (a receive, or
 * the unexpected queue: in a buffer, or deferred without one), else held
 * aside in a buffer. */
static uint32_t
new_record(struct uet_ep *ep, struct pdc *p, const struct uet_hdr *h, bool deferred,
	   uint64_t now)
{
	struct match *m = ep->match;
	bool now_turn = turn(ep, p, h);
	struct m_msg *g;
	uint32_t i;

	if (ep->cfg.match_in_order && !p->rx.match_known && now_turn) {
		p->rx.match_known = 1;
		p->rx.match_next = h->ses.msg_id;
	}
	i = m->msg_free[--m->n_msg_free];
	g = &m->msg[i];
	memset(g, 0, sizeof(*g));
	g->used = 1;
	g->key = msg_key(p, h->ses.msg_id);
	g->tagged = h->ses.opcode == UET_SES_TAGGED_SEND;
	g->tag = g->tagged ? h->ses.match_bits : 0;
	g->src_ip = p->peer_ip;
	g->msg_len = h->ses.request_len;
	g->pdc_id = p->id;
	g->msg_id = h->ses.msg_id;
	g->recv = g->slot = NONE32;
	g->prev = g->next = NONE32;
	g->seq = m->next_seq++;
	uet_hmap_put(&m->map, g->key, i);
	g->deferred = deferred;
	/* A buffer unless a receive takes it at once (match_check saw one
	 * free where it is needed) or it is deferred. */
	if (!deferred && (!now_turn || find_recv(m, g) == NULL))
		g->slot = m->slot_free[--m->n_slot_free];
	if (!now_turn) {
		g->waiting = 1;
		return i;
	}
	place(ep, g, now);
	if (ep->cfg.match_in_order)
		next_turns(ep, p, now);
	return i;
}

/* The first packet: the message's header data, if any, and its first
 * bytes. */
static void
som_seen(struct m_msg *g, const struct uet_hdr *h, const uint8_t *data, uint32_t len)
{
	g->som = 1;
	if (h->ses.flags & UET_SES_F_HD) {
		g->has_data = 1;
		g->data = h->ses.header_data;
	}
	if (h->ses.msg_offset == 0 && g->head_len == 0) {
		if (len > g->msg_len)
			len = g->msg_len;
		g->head_len = (uint8_t)(len < UET_PEEK_HEAD_BYTES ? len : UET_PEEK_HEAD_BYTES);
		memcpy(g->head, data, g->head_len);
	}
}

void
match_refused(struct uet_ep *ep, uint32_t rec, const struct uet_hdr *h, const uint8_t *data,
	      uint32_t len)
{
	struct m_msg *g = &ep->match->msg[rec];

	/* A deferred message's first packet, refused like the others: a
	 * peek sees the message from now on. */
	if (g->deferred && !g->som && (h->ses.flags & UET_SES_F_SOM))
		som_seen(g, h, data, len);
}

void
match_defer(struct uet_ep *ep, struct pdc *p, const struct uet_hdr *h, const uint8_t *data,
	    uint32_t len, uint64_t now)
{
	uint32_t i = new_record(ep, p, h, true, now);
	struct m_msg *g = &ep->match->msg[i];

	/* Refused, but its header and bytes are what its sender will
	 * resend: a peek may see the message before a receive lets its
	 * bytes in. */
	if (g->used && g->key == msg_key(p, h->ses.msg_id) && (h->ses.flags & UET_SES_F_SOM))
		som_seen(g, h, data, len);
}

void
match_data(struct uet_ep *ep, uint32_t rec, const struct uet_hdr *h, const uint8_t *data,
	   uint32_t len)
{
	struct match *m = ep->match;
	uint32_t off = h->ses.msg_offset;
	struct m_msg *g;

	if (rec == NONE32 || !m->msg[rec].used || m->msg[rec].msg_id != h->ses.msg_id)
		return;
	g = &m->msg[rec];
	if (h->ses.flags & UET_SES_F_SOM)
		som_seen(g, h, data, len);
	/* match_check saw this header agree with the record: within it. */
	if (off >= g->msg_len || len == 0)
		return;
	if (len > g->msg_len - off)
		len = g->msg_len - off;
	if (g->recv != NONE32) {
		struct m_recv *r = &m->recv[g->recv];

		if (off < r->len)
			memcpy(r->buf + off, data, r->len - off < len ? r->len - off : len);
	} else if (g->slot != NONE32 && off < m->slot_bytes) {
		memcpy(m->slots + (size_t)g->slot * m->slot_bytes + off, data,
		       m->slot_bytes - off < len ? m->slot_bytes - off : len);
	}
	g->placed += len;
}

void
match_end(struct uet_ep *ep, const struct pdc *p, uint16_t msg_id, int status, uint64_t now)
{
	struct match *m = ep->match;
	struct m_msg *g;
	uint32_t i;

	if (!uet_hmap_get(&m->map, msg_key(p, msg_id), &i))
		return;
	g = &m->msg[i];
	if (g->recv != NONE32) {
		finish(ep, g, status, now);
		return;
	}
	if (status == 0 || g->claimed) {
		/* A claimed message waits for the receive that names it,
		 * which then fails with the PDC. */
		g->done = 1;
		g->status = status;
		return;
	}
	/* Half received when its PDC went away: nothing to take. */
	if (!g->waiting)
		LIST_UNLINK(m->msg, m->unexp_head, m->unexp_tail, i);
	msg_release(m, g);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void
match_pdc_gone(struct uet_ep *ep, struct pdc *p, int status, uint64_t now)
{
	struct match *m = ep->match;
	uint64_t pre = msg_key(p, 0) >> 16;
	uint32_t i, n = 0;

	if (!ep->cfg.match_in_order)
		return;
	/* Deferred messages of which nothing arrived (the others ended with
	 * their partial bytes, match_end) will never come: a receive that
	 * took one fails with the PDC; the rest leave the queue. */
	for (i = 0; i < m->n_msg; i++) {
		struct m_msg *g = &m->msg[i];

		if (!g->used || !g->deferred || (g->key >> 16) != pre)
			continue;
		if (g->recv != NONE32) {
			finish(ep, g, status, now);
		} else if (g->claimed) {
			g->done = 1;
			g->status = status;
		} else {
			LIST_UNLINK(m->msg, m->unexp_head, m->unexp_tail, i);
			msg_release(m, g);
		}
	}
	/* Messages that arrived whole but wait for a turn that will not come
	 * (an earlier one went with the PDC) take their turns now, in order
	 * (partial ones were dropped before: match_end). */
	/* Their turns from the one that was due; where none was known (the
	 * first message never came), in the order they arrived. */
	for (i = 0; i < m->n_msg; i++)
		if (m->msg[i].used && m->msg[i].waiting && (m->msg[i].key >> 16) == pre)
			m->scratch[n++] =
				(p->rx.match_known
					 ? (uint64_t)(uint16_t)(m->msg[i].msg_id - p->rx.match_next)
					 : (uint64_t)(m->msg[i].seq - m->next_seq)) << 32 | i;
	qsort(m->scratch, n, sizeof(m->scratch[0]), cmp_u64);
	for (i = 0; i < n; i++)
		place(ep, &m->msg[(uint32_t)m->scratch[i]], now);
}

/* Peek and claim handles: (admission order << 32) | (record + 1), never 0. */
static uint64_t
msg_handle(const struct match *m, const struct m_msg *g)
{
	return (uint64_t)g->seq << 32 | ((uint32_t)(g - m->msg) + 1);
}

/* The record a peek's handle names, if it still holds that message. */
static struct m_msg *
handle_msg(struct match *m, uint64_t handle)
{
	uint32_t i = (uint32_t)handle - 1;

	if ((uint32_t)handle == 0 || i >= m->n_msg || !m->msg[i].used ||
	    m->msg[i].seq != (uint32_t)(handle >> 32))
		return NULL;
	return &m->msg[i];
}

int
uet_ep_peek(struct uet_ep *ep, const struct uet_recv_req *q, struct uet_peek *out)
{
	struct match *m;
	struct m_recv probe;
	uint32_t i;

	if (ep == NULL || q == NULL || out == NULL || ep->match == NULL)
		return UET_ERR_INVAL;
	m = ep->match;
	memset(&probe, 0, sizeof(probe));
	probe.tagged = q->tagged;
	probe.tag = q->tag;
	probe.ignore = q->ignore;
	probe.src_ip = q->src_ip;
	/* As uet_ep_post_recv() would: the oldest it takes. */
	for (i = m->unexp_head; i != NONE32; i = m->msg[i].next) {
		const struct m_msg *g = &m->msg[i];

		if (!recv_takes(&probe, g))
			continue;
		if (!g->som)
			return UET_ERR_NO_MSG; /* the one a receive takes, not yet seen */
		memset(out, 0, sizeof(*out));
		out->src_ip = g->src_ip;
		out->pdc_id = g->pdc_id;
		out->msg_id = g->msg_id;
		out->tagged = g->tagged;
		out->tag = g->tag;
		out->msg_len = g->msg_len;
		out->has_data = g->has_data;
		out->data = g->data;
		out->head_len = g->head_len;
		memcpy(out->head, g->head, g->head_len);
		if (g->done && g->slot != NONE32)
			out->bytes = m->slots + (size_t)g->slot * m->slot_bytes;
		out->handle = msg_handle(m, g);
		return 0;
	}
	return UET_ERR_NO_MSG;
}

int
uet_ep_claim(struct uet_ep *ep, uint64_t handle)
{
	struct m_msg *g;

	if (ep == NULL || ep->match == NULL)
		return UET_ERR_INVAL;
	g = handle_msg(ep->match, handle);
	/* In the unexpected queue: neither waiting its turn, taken nor
	 * claimed already. */
	if (g == NULL || g->claimed || g->waiting || g->recv != NONE32)
		return UET_ERR_INVAL;
	LIST_UNLINK(ep->match->msg, ep->match->unexp_head, ep->match->unexp_tail,
		    (uint32_t)(g - ep->match->msg));
	g->claimed = 1;
	return 0;
}

int
uet_ep_post_recv(struct uet_ep *ep, const struct uet_recv_req *q, uint64_t *handle,
		 uint64_t now_ns)
{
	struct match *m;
	struct m_recv *r;
	uint32_t i;

	struct m_msg *claimed = NULL;

	if (ep == NULL || q == NULL || ep->match == NULL || (q->buf == NULL && q->len > 0))
		return UET_ERR_INVAL;
	m = ep->match;
	if (q->claim != 0) {
		claimed = handle_msg(m, q->claim);
		if (claimed == NULL || !claimed->claimed || claimed->recv != NONE32)
			return UET_ERR_INVAL;
	}
	if (m->n_recv_free == 0)
		return UET_ERR_NOBUFS;
	i = m->recv_free[--m->n_recv_free];
	r = &m->recv[i];
	r->buf = q->buf;
	r->len = q->len;
	r->tagged = q->tagged;
	r->tag = q->tag;
	r->ignore = q->ignore;
	r->src_ip = q->src_ip;
	r->user = q->user;
	r->used = 1;
	r->msg = NONE32;
	if (handle != NULL)
		*handle = (uint64_t)r->gen << 32 | i;
	LIST_APPEND(m->recv, m->posted_head, m->posted_tail, i);
	if (claimed != NULL) {
		bind(ep, claimed, r, now_ns);
		return 0;
	}
	/* The oldest unexpected message it takes. */
	for (i = m->unexp_head; i != NONE32; i = m->msg[i].next) {
		if (recv_takes(r, &m->msg[i])) {
			LIST_UNLINK(m->msg, m->unexp_head, m->unexp_tail, i);
			bind(ep, &m->msg[i], r, now_ns);
			break;
		}
	}
	return 0;
}

int
uet_ep_cancel_recv(struct uet_ep *ep, uint64_t handle, uint64_t now_ns)
{
	struct match *m;
	struct m_recv *r;
	uint32_t i = (uint32_t)handle;

	if (ep == NULL || ep->match == NULL)
		return UET_ERR_INVAL;
	m = ep->match;
	if (i >= m->n_recv)
		return UET_ERR_INVAL;
	r = &m->recv[i];
	if (!r->used || r->msg != NONE32 || r->gen != (uint32_t)(handle >> 32))
		return UET_ERR_INVAL;
	LIST_UNLINK(m->recv, m->posted_head, m->posted_tail, i);
	recv_done(ep, r, NULL, UET_ERR_CANCELED, now_ns);
	return 0;
}
