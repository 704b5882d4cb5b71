/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Discrete-event network simulator: engine, ports and queues, switching,
 * faults, host glue around the sans-I/O endpoint. Topology builders and
 * routing are in topo.c, scheduled failures in fail.c. See sim.h for the
 * model, doc/sim.md for its figures.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/csum.h"
#include "net/pcapw.h"
#include "sim/sim_int.h"
#include "uet/wire.h"

/* Preamble + SFD (8), FCS (4) and inter-frame gap (12): bytes a frame
 * occupies on the wire beyond what we store. */
#define WIRE_OVERHEAD 24
#define PKTS_PER_CHUNK 1024
/* Bytes kept by a trimming switch: frame headers + PDS + SES, so the
 * receiver can still name the PSN (UET trims to at least MIN_TRIM_SIZE). */
#define TRIM_LEN (UET_FRAME_HDR_LEN + UET_DATA_HDR_LEN)
/* A header frame's buffer: a data packet's headers, every control packet
 * and a trimmed packet fit; in a permutation nearly every packet in
 * flight is one unless payloads are filled (--verify), a whole 4 KiB
 * frame costing as much as 17 of them. */
#define SMALL_FRAME 256
_Static_assert(TRIM_LEN <= SMALL_FRAME, "a trimmed packet fits a header frame");

/* ------------------------------------------------------------------ */
/* engine                                                              */

static inline bool
key_less(const struct sim_evkey *x, const struct sim_evkey *y)
{
	return x->t < y->t || (x->t == y->t && x->k < y->k);
}

static int
key_cmp(const void *a, const void *b)
{
	const struct sim_evkey *x = a, *y = b;

	return key_less(x, y) ? -1 : key_less(y, x);
}

/*
 * 2^40 events in one run (days of wall time) would run the sequence
 * numbers out: renumber the pending events in their order instead. A
 * sorted array is a heap, so sorting is all it takes.
 */
static void
ev_renumber(struct sim *s)
{
	uint64_t i;

	qsort(s->heap, s->heap_n, sizeof(*s->heap), key_cmp);
	for (i = 0; i < s->heap_n; i++)
		s->heap[i].k = i << EV_SLOT_BITS | (s->heap[i].k & ((1u << EV_SLOT_BITS) - 1));
	s->seq = s->heap_n;
}

static void
ev_grow(struct sim *s)
{
	uint64_t nc = s->heap_cap ? s->heap_cap * 2 : 4096, i;
	uint8_t *mem;
	struct sim_ev *ns;
	uint32_t *nf;

	/* Slots are indices in EV_SLOT_BITS: far more pending events than
	 * any fabric holds (each is a packet in flight, a busy port or a
	 * host timer). */
	if (nc > (1u << EV_SLOT_BITS))
		abort();
	mem = aligned_alloc(64, (size_t)(nc + 4) * sizeof(struct sim_evkey));
	ns = realloc(s->slots, nc * sizeof(*ns));
	if (ns != NULL)
		s->slots = ns;
	nf = realloc(s->free_slots, nc * sizeof(*nf));
	if (nf != NULL)
		s->free_slots = nf;
	if (mem == NULL || ns == NULL || nf == NULL)
		abort();
	/* Node 0 at mem + 3 keys: then the children of node i, 4i+1 ..
	 * 4i+4, start on a cache line. */
	if (s->heap_n > 0)
		memcpy(mem + 3 * sizeof(struct sim_evkey), s->heap, s->heap_n * sizeof(*s->heap));
	free(s->heap_mem);
	s->heap_mem = mem;
	s->heap = (struct sim_evkey *)(void *)mem + 3;
	for (i = nc; i > s->heap_cap; i--)
		s->free_slots[s->n_free_slots++] = (uint32_t)(i - 1);
	s->heap_cap = nc;
	s->cap_slots = (uint32_t)nc;
}

void
sim_at(struct sim *s, uint64_t t, sim_fn fn, void *a, uint64_t b)
{
	struct sim_evkey e;
	uint32_t slot;
	uint64_t i;

	if (s->heap_n == s->heap_cap)
		ev_grow(s);
	if (s->seq >= EV_SEQ_LIMIT)
		ev_renumber(s);
	slot = s->free_slots[--s->n_free_slots];
	s->slots[slot].fn = fn;
	s->slots[slot].a = a;
	s->slots[slot].b = b;
	e.t = t < s->now ? s->now : t;
	if (s->cfg.shuffle_ties)
		e.k = uet_prng_next(&s->tie_rng) << EV_SLOT_BITS | slot;
	else
		e.k = s->seq++ << EV_SLOT_BITS | slot;
	i = s->heap_n++;
	while (i > 0) {
		uint64_t p = (i - 1) / 4;

		if (!key_less(&e, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
}

/* Take the earliest event off the queue; the caller runs it. */
static struct sim_ev
ev_pop(struct sim *s, uint64_t *t)
{
	struct sim_evkey last = s->heap[--s->heap_n];
	uint32_t slot = (uint32_t)(s->heap[0].k & ((1u << EV_SLOT_BITS) - 1));
	uint64_t i = 0, n = s->heap_n;

	*t = s->heap[0].t;
	for (;;) {
		uint64_t c = 4 * i + 1, m = i, j, end = c + 4 < n ? c + 4 : n;
		const struct sim_evkey *best = &last;

		for (j = c; j < end; j++) {
			if (key_less(&s->heap[j], best)) {
				m = j;
				best = &s->heap[j];
			}
		}
		if (m == i)
			break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	if (n > 0) {
		s->heap[i] = last;
		/* The next event's payload was written long before it runs:
		 * fetch it while this one runs (12% faster in A/B runs of
		 * bench_sim, doc/sim.md). */
		__builtin_prefetch(&s->slots[s->heap[0].k & ((1u << EV_SLOT_BITS) - 1)]);
	}
	s->free_slots[s->n_free_slots++] = slot;
	return s->slots[slot];
}

uint64_t
sim_run_until(struct sim *s, uint64_t t)
{
	uint64_t n = 0;

	while (s->heap_n > 0 && s->heap[0].t <= t) {
		struct sim_ev e = ev_pop(s, &s->now);

		e.fn(s, e.a, e.b);
		n++;
	}
	if (t > s->now)
		s->now = t;
	s->events_run += n;
	return n;
}

bool
sim_run_drain(struct sim *s, uint64_t t)
{
	while (s->heap_n > 0 && s->heap[0].t <= t) {
		struct sim_ev e = ev_pop(s, &s->now);

		e.fn(s, e.a, e.b);
		s->events_run++;
	}
	return s->heap_n == 0;
}

bool
sim_run_drain_max(struct sim *s, uint64_t t, uint64_t max_events)
{
	uint64_t n = 0;

	while (s->heap_n > 0 && s->heap[0].t <= t) {
		struct sim_ev e;

		if (n++ == max_events)
			return false;
		e = ev_pop(s, &s->now);
		e.fn(s, e.a, e.b);
		s->events_run++;
	}
	return true;
}

uint64_t
sim_now_ps(const struct sim *s)
{
	return s->now;
}

uint64_t
sim_now_ns(const struct sim *s)
{
	return s->now / 1000;
}

uint64_t
sim_events_run(const struct sim *s)
{
	return s->events_run;
}

uint64_t
sim_events_pending(const struct sim *s)
{
	return s->heap_n;
}

/* ------------------------------------------------------------------ */
/* packets                                                             */

static size_t
chunk_bytes(const struct sim_pool *pl)
{
	size_t desc = (PKTS_PER_CHUNK * sizeof(struct sim_pkt) + 63) & ~(size_t)63;

	return desc + (size_t)PKTS_PER_CHUNK * pl->data_bytes;
}

/*
 * Grow a pool by one chunk: descriptors then frame buffers. Transparent
 * huge pages (where the kernel has them) cut the page faults and TLB
 * misses of a pool that reaches hundreds of MB.
 */
static void
pool_grow(struct sim_pool *pl, uint8_t big)
{
	size_t desc = (PKTS_PER_CHUNK * sizeof(struct sim_pkt) + 63) & ~(size_t)63;
	struct sim_pkt **fs;
	struct sim_pkt *d;
	uint8_t *chunk;
	uint32_t i;

	if (pl->n_chunks == pl->cap_chunks) {
		uint32_t nc = pl->cap_chunks ? pl->cap_chunks * 2 : 16;
		void **n = realloc(pl->chunks, nc * sizeof(*n));

		if (n == NULL)
			abort();
		pl->chunks = n;
		pl->cap_chunks = nc;
	}
	/* Room on the free stack for every packet of the pool. */
	fs = realloc(pl->free_pkts, (size_t)(pl->n_chunks + 1) * PKTS_PER_CHUNK * sizeof(*fs));
	if (fs == NULL)
		abort();
	chunk = mmap(NULL, chunk_bytes(pl), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (chunk == MAP_FAILED)
		abort();
#ifdef MADV_HUGEPAGE
	(void)madvise(chunk, chunk_bytes(pl), MADV_HUGEPAGE);
#endif
	pl->free_pkts = fs;
	pl->chunks[pl->n_chunks++] = chunk;
	d = (struct sim_pkt *)chunk;
	for (i = 0; i < PKTS_PER_CHUNK; i++) {
		struct sim_pkt *p = &d[PKTS_PER_CHUNK - 1 - i];

		p->data = chunk + desc + (size_t)(PKTS_PER_CHUNK - 1 - i) * pl->data_bytes;
		p->big = big;
		pl->free_pkts[pl->n_free++] = p;
	}
}

/* A packet whose frame holds at least bytes: a header frame where they
 * fit. */
static struct sim_pkt *
pkt_alloc(struct sim *s, uint32_t bytes)
{
	uint8_t big = bytes > s->pool[0].data_bytes;
	struct sim_pool *pl = &s->pool[big];
	struct sim_pkt *p;

	if (pl->n_free == 0)
		pool_grow(pl, big);
	p = pl->free_pkts[--pl->n_free];
	p->next = NULL;
	p->corrupted = 0;
	p->dst_host = UINT32_MAX;
	return p;
}

static void
pkt_free(struct sim *s, struct sim_pkt *p)
{
	struct sim_pool *pl = &s->pool[p->big];

	pl->free_pkts[pl->n_free++] = p;
}

/* A copy of p's descriptor and stored bytes in a frame of at least
 * bytes (>= p->stored). */
static struct sim_pkt *
pkt_clone(struct sim *s, const struct sim_pkt *p, uint32_t bytes)
{
	struct sim_pkt *c = pkt_alloc(s, bytes);

	c->len = p->len;
	c->stored = p->stored;
	c->cls = p->cls;
	c->dcls = p->dcls;
	c->corrupted = p->corrupted;
	c->dst_host = p->dst_host;
	c->key = p->key;
	memcpy(c->data, p->data, p->stored);
	return c;
}

/* p with every byte of its frame stored (its zero tail written out):
 * p itself, or a whole-frame copy that replaces it. */
static struct sim_pkt *
pkt_whole(struct sim *s, struct sim_pkt *p)
{
	struct sim_pkt *c;

	if (p->stored == p->len)
		return p;
	if (p->big) {
		memset(p->data + p->stored, 0, p->len - p->stored);
		p->stored = p->len;
		return p;
	}
	c = pkt_clone(s, p, p->len);
	memset(c->data + c->stored, 0, c->len - c->stored);
	c->stored = c->len;
	pkt_free(s, p);
	return c;
}

/* All len bytes of p's frame, contiguous: its own buffer when whole, else
 * v's, with the stored bytes and zeros after them. Valid until v is used
 * again. */
static const uint8_t *
pkt_view(struct sim_zview *v, const struct sim_pkt *p)
{
	if (p->stored == p->len)
		return p->data;
	memcpy(v->buf, p->data, p->stored);
	if (v->dirty > p->stored)
		memset(v->buf + p->stored, 0, v->dirty - p->stored);
	v->dirty = p->stored;
	return v->buf;
}

static void
q_push(struct pktq *q, struct sim_pkt *p)
{
	p->next = NULL;
	if (q->tail != NULL)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->bytes += p->len;
}

static struct sim_pkt *
q_pop(struct pktq *q)
{
	struct sim_pkt *p = q->head;

	if (p == NULL)
		return NULL;
	q->head = p->next;
	if (q->head == NULL)
		q->tail = NULL;
	q->bytes -= p->len;
	p->next = NULL;
	return p;
}

/* ------------------------------------------------------------------ */
/* ports                                                               */

static void port_try_send(struct sim *s, struct sim_port *p);

/* A packet lost to a failure (blackhole, link or switch down) at port p;
 * the caller frees it. */
static inline void
drop_down(struct sim *s, struct sim_port *p, const struct sim_pkt *pkt)
{
	p->st.drops_down++;
	p->st.last_drop_ns = s->now / 1000;
	if (s->drop_hook != NULL)
		s->drop_hook(s->drop_ctx, p, pkt->data, pkt->stored, pkt->dcls == 1, s->now / 1000);
}
static struct sim_pkt *host_pull(struct sim *s, struct sim_host *h);
static void node_receive(struct sim *s, void *port, uint64_t pkt);

static uint8_t
pkt_dscp(const struct sim_pkt *p)
{
	return p->data[UET_ETH_HLEN + 1] >> 2;
}

static uint8_t
classify(const struct sim *s, const struct sim_pkt *p)
{
	uint8_t d = pkt_dscp(p);

	return d == s->cfg.dscp.tc[UET_TC_DATA] || d == s->cfg.dscp.tc[UET_TC_RETX];
}

static void
port_tx_done(struct sim *s, void *a, uint64_t b)
{
	struct sim_port *p = a;

	(void)b;
	p->tx_len = 0;
	port_try_send(s, p);
}

static void
ecn_on_dequeue(struct sim *s, struct sim_port *p, struct sim_pkt *pkt)
{
	uint64_t occ = p->q[1].bytes;
	bool mark;

	if (pkt->cls != 1 || p->kmax == 0 || occ <= p->kmin)
		return;
	if (occ >= p->kmax || p->kmax == p->kmin)
		mark = true;
	else
		mark = uet_prng_below(&s->rng, p->kmax - p->kmin) < occ - p->kmin;
	if (mark && uet_frame_mark_ce(pkt->data, UET_ETH_HLEN))
		p->st.ecn_marks++;
}

/*
 * Corruption the link's FCS missed (or that happened inside a switch): rare
 * enough that a packet suffers it at most once, which the end-to-end IPv4
 * and UDP checksums then always detect. Two such hits on one packet could
 * cancel out in the 16-bit one's-complement sum; real networks avoid that by
 * checking the FCS at every hop.
 */
static struct sim_pkt *
corrupt(struct sim *s, struct sim_pkt *pkt)
{
	/* Flip a non-empty set of bits inside one byte of the IPv4 datagram:
	 * the IPv4 or UDP checksum is then always wrong (a change within one
	 * 16-bit word cannot be a multiple of 0xffff). Not in the padding of
	 * a short frame, which no checksum covers (the FCS, not modelled
	 * here, would drop it). */
	uint32_t end = pkt->len, off;
	uint8_t mask;

	if (pkt->stored >= UET_ETH_HLEN + 4 && uet_get_be16(pkt->data + 12) == UET_ETHERTYPE_IPV4) {
		uint32_t l = UET_ETH_HLEN + uet_get_be16(pkt->data + UET_ETH_HLEN + 2);

		if (l > UET_ETH_HLEN && l < end)
			end = l;
	}
	off = UET_ETH_HLEN + (uint32_t)uet_prng_below(&s->rng, end - UET_ETH_HLEN);
	mask = (uint8_t)(1 + uet_prng_below(&s->rng, 255));

	if (off >= pkt->stored)
		pkt = pkt_whole(s, pkt);
	pkt->data[off] ^= mask;
	pkt->corrupted = 1;
	return pkt;
}

/*
 * A frame of len bytes plus its 4 B FCS survives bit errors with
 * probability keep8^(len + 4), keep8 = (1 - ber)^8; a hit fails the FCS at
 * the next hop, which drops it. Square-and-multiply: no libm, ~15
 * multiplications, and only on ports with a bit error ratio.
 */
static bool
ber_hit(struct sim *s, const struct sim_port *p, uint32_t len)
{
	double keep = 1.0, b = p->ber_keep8;
	uint32_t n = len + 4;

	while (n != 0) {
		if (n & 1)
			keep *= b;
		b *= b;
		n >>= 1;
	}
	return uet_prng_unit(&s->rng) >= keep;
}

static void
port_try_send(struct sim *s, struct sim_port *p)
{
	struct sim_pkt *pkt;
	uint64_t tx_ps, arrive;
	struct sim_pkt *dup;
	int copies = 1, i;

	if (p->tx_len != 0)
		return;
	pkt = q_pop(&p->q[0]);
	if (pkt == NULL) {
		pkt = q_pop(&p->q[1]);
		if (pkt != NULL)
			ecn_on_dequeue(s, p, pkt);
	}
	if (pkt == NULL && p->node->kind == NODE_HOST)
		pkt = host_pull(s, &s->hosts[p->node->idx]);
	if (pkt == NULL)
		return;
	p->tx_len = pkt->len;
	tx_ps = ((uint64_t)(pkt->len + WIRE_OVERHEAD) * 8 * 1000000000000ULL + p->rate_bps - 1) /
		p->rate_bps;
	sim_at(s, s->now + tx_ps, port_tx_done, p, 0);
	p->st.tx_pkts++;
	p->st.tx_bytes += pkt->len;
	p->st.last_tx_ns = s->now / 1000;

	if (!p->up || p->failed || p->fault.blackhole) {
		drop_down(s, p, pkt);
		pkt_free(s, pkt);
		return;
	}
	if (uet_prng_chance_ppm(&s->rng, p->fault.loss_ppm)) {
		p->st.drops_fault++;
		pkt_free(s, pkt);
		return;
	}
	/* Drawn only when configured, so that fabrics without bit errors
	 * keep the random stream (and so the results) they always had. */
	if (p->fault.ber > 0 && ber_hit(s, p, pkt->len)) {
		p->st.drops_ber++;
		pkt_free(s, pkt);
		return;
	}
	/* A path that marks most packets without building a queue here: the
	 * steady-state view of a congested path, for LB tests. */
	if (pkt->cls == 1 && p->fault.ce_ppm != 0 && uet_prng_chance_ppm(&s->rng, p->fault.ce_ppm) &&
	    uet_frame_mark_ce(pkt->data, UET_ETH_HLEN))
		p->st.ecn_marks++;
	if (uet_prng_chance_ppm(&s->rng, p->fault.dup_ppm)) {
		p->st.dups++;
		copies = 2;
	}
	/* The copy is made before either is corrupted: each copy meets the
	 * wire's errors on its own (and corrupt() may replace the original). */
	dup = copies > 1 ? pkt_clone(s, pkt, pkt->stored) : NULL;
	for (i = 0; i < copies; i++) {
		struct sim_pkt *c = i == 0 ? pkt : dup;

		if (uet_prng_chance_ppm(&s->rng, p->fault.corrupt_ppm) && !c->corrupted) {
			p->st.corrupts++;
			c = corrupt(s, c);
		}
		arrive = s->now + tx_ps + p->lat_ps;
		if (p->fault.jitter_ns > 0)
			arrive += uet_prng_below(&s->rng, sim_ps(p->fault.jitter_ns) + 1);
		sim_at(s, arrive, node_receive, p->peer, (uint64_t)(uintptr_t)c);
	}
}

/* Cut pkt to TRIM_LEN bytes with the DSCP dscp. A header frame is cut in
 * a view: the trim checks the UDP checksum over the whole datagram. */
static void
pkt_trim(struct sim *s, struct sim_pkt *pkt, uint8_t dscp)
{
	uint8_t *f = (uint8_t *)pkt_view(&s->zv_aux, pkt);
	int n = uet_frame_trim(f, pkt->len, UET_ETH_HLEN, TRIM_LEN, dscp);

	if (n < 0)
		return; /* our own frames always trim; keep it as it was */
	if (f != pkt->data) {
		memcpy(pkt->data, f, (size_t)n);
		if (s->zv_aux.dirty < (uint32_t)n)
			s->zv_aux.dirty = (uint32_t)n;
	}
	pkt->len = pkt->stored = (uint32_t)n;
}

static void
port_enqueue(struct sim *s, struct sim_port *p, struct sim_pkt *pkt)
{
	/* A failed link is a blackhole for whatever is routed to it, at
	 * once: no queue builds in front of a dead port. */
	if (p->failed) {
		drop_down(s, p, pkt);
		pkt_free(s, pkt);
		return;
	}
	/* The class follows the DSCP, which only a trim changes (and sets
	 * dcls with it): intact packets from our hosts carry it, raw and
	 * corrupted frames are classified from their header as ever. */
	pkt->cls = pkt->dst_host == UINT32_MAX || pkt->corrupted ? classify(s, pkt) : pkt->dcls;
	if (pkt->cls == 1 && p->q[1].bytes + pkt->len > p->buf_bytes) {
		if (!p->trim || pkt->len <= TRIM_LEN) {
			p->st.drops_queue++;
			pkt_free(s, pkt);
			return;
		}
		/* Cut to the headers and forward on the control class; the
		 * last hop before a host marks it so (incast, not the path). */
		pkt_trim(s, pkt, p->peer->node->kind == NODE_HOST ? s->cfg.dscp.trimmed_lasthop
								      : s->cfg.dscp.trimmed);
		pkt->cls = 0;
		pkt->dcls = 0;
		p->st.trims++;
	}
	/* Headers and control get twice the data buffer (htsim's composite
	 * queue) before they too are dropped. */
	if (pkt->cls == 0 && p->q[0].bytes + pkt->len > 2 * p->buf_bytes + 65536) {
		p->st.drops_queue++;
		pkt_free(s, pkt);
		return;
	}
	q_push(&p->q[pkt->cls], pkt);
	if (p->q[0].bytes + p->q[1].bytes > p->win_max_queue) {
		p->win_max_queue = p->q[0].bytes + p->q[1].bytes;
		if (p->win_max_queue > p->st.max_queue_bytes)
			p->st.max_queue_bytes = p->win_max_queue;
	}
	port_try_send(s, p);
}

/* ------------------------------------------------------------------ */
/* switching                                                           */

static void
switch_drop(struct sim *s, struct sim_pkt *pkt)
{
	s->switch_drops++;
	pkt_free(s, pkt);
}

/* The 5-tuple hash of one switch: a new UDP source port (EV) picks a new
 * path, as on a real switch. */
static inline uint64_t
ecmp_key(uint32_t src_ip, uint32_t dst_ip, uint32_t ports, uint8_t proto)
{
	return ((uint64_t)src_ip << 32) ^ dst_ip ^ ((uint64_t)ports << 17) ^ proto;
}

/*
 * The egress port of switch n for destination host (UINT32_MAX: none).
 * A ToR reaches its own hosts directly; everything else goes by the
 * (switch, destination ToR) group that routing computed (topo.c).
 */
static inline uint32_t
route_port(const struct sim *s, const struct sim_node *n, uint32_t host, uint64_t key)
{
	uint32_t tor = host / s->hpt;
	const struct sim_grp *g;

	if (n->idx == tor) {
		uint32_t pi = n->first_port + (host - tor * s->hpt);

		return s->ports[pi].routed ? pi : UINT32_MAX;
	}
	g = &s->grp[s->rt[(size_t)n->idx * s->n_tors + tor]];
	if (g->cnt == 1)
		return s->grp_ports[g->first];
	if (g->cnt == 0)
		return UINT32_MAX;
	return s->grp_ports[g->first + (uint32_t)(uet_mix64(n->seed ^ key) % g->cnt)];
}

/*
 * Adaptive routing: the group member with the least queued bytes (the frame
 * on the wire included: its buffer is not free yet, and htsim's queues
 * count it too), scanning from the hashed member so that equal queues (an
 * idle fabric) fall back to ECMP on the EV, or from the first member
 * (ar_tie_first). Members down at this switch are skipped; one dead
 * further away is not known here, as on a real switch.
 */
static uint32_t
route_port_adaptive(const struct sim *s, const struct sim_node *n, uint32_t host, uint64_t key)
{
	uint32_t tor = host / s->hpt, i, best = UINT32_MAX, start;
	uint64_t best_bytes = UINT64_MAX;
	const struct sim_grp *g;

	if (n->idx == tor)
		return route_port(s, n, host, key);
	g = &s->grp[s->rt[(size_t)n->idx * s->n_tors + tor]];
	if (g->cnt <= 1)
		return route_port(s, n, host, key);
	start = s->cfg.ar_tie_first ? 0 : (uint32_t)(uet_mix64(n->seed ^ key) % g->cnt);
	for (i = 0; i < g->cnt; i++) {
		uint32_t pi = s->grp_ports[g->first + (start + i) % g->cnt];
		const struct sim_port *p = &s->ports[pi];
		uint64_t b = p->q[0].bytes + p->q[1].bytes + p->tx_len;

		if (p->failed || !p->up)
			continue;
		if (b < best_bytes) {
			best_bytes = b;
			best = pi;
		}
	}
	/* Every member down here: the hash's choice blackholes as ECMP's. */
	return best != UINT32_MAX ? best : s->grp_ports[g->first + start];
}

static void
switch_forward(struct sim *s, struct sim_port *in, struct sim_pkt *pkt)
{
	const struct sim_node *n = in->node;
	const uint8_t *ip = pkt->data + UET_ETH_HLEN;
	uint32_t dst, host, pi;
	uint64_t key;

	if (n->down) {
		drop_down(s, in->peer, pkt);
		pkt_free(s, pkt);
		return;
	}
	if (pkt->dst_host != UINT32_MAX && !pkt->corrupted) {
		/* Built by a host here and intact since: its header checksum
		 * is right and the descriptor says where it goes. */
		host = pkt->dst_host;
		key = pkt->key;
	} else {
		if (pkt->len < UET_FRAME_HDR_LEN ||
		    uet_get_be16(pkt->data + 12) != UET_ETHERTYPE_IPV4 ||
		    uet_csum_fold(uet_csum_partial(ip, UET_IPV4_HLEN, 0)) != 0xffff) {
			switch_drop(s, pkt);
			return;
		}
		dst = uet_get_be32(ip + 16);
		host = dst - s->ip_base;
		if (host >= s->n_hosts) {
			switch_drop(s, pkt);
			return;
		}
		key = ecmp_key(uet_get_be32(ip + 12), dst, uet_get_be32(ip + 20), ip[9]);
	}
	pi = s->cfg.adaptive_routing ? route_port_adaptive(s, n, host, key)
				     : route_port(s, n, host, key);
	if (pi == UINT32_MAX) {
		in->st.drops_noroute++;
		switch_drop(s, pkt);
		return;
	}
	port_enqueue(s, &s->ports[pi], pkt);
}

struct sim_port *
sim_route(struct sim *s, uint32_t sw, uint32_t src_ip, uint32_t dst_ip, uint16_t sport,
	  uint16_t dport)
{
	uint32_t host = dst_ip - s->ip_base, pi;

	if (sw >= s->n_sw || host >= s->n_hosts)
		return NULL;
	pi = route_port(s, &s->nodes[s->n_hosts + sw], host,
			ecmp_key(src_ip, dst_ip, ((uint32_t)sport << 16) | dport, UET_IPPROTO_UDP));
	return pi == UINT32_MAX ? NULL : &s->ports[pi];
}

uint32_t
sim_trace(struct sim *s, uint32_t src, uint32_t dst, uint16_t ev, struct sim_port **out,
	  uint32_t cap)
{
	struct sim_port *p;
	uint32_t hops = 0, limit = 2 * 3 + 2;

	if (src >= s->n_hosts || dst >= s->n_hosts)
		return 0;
	p = s->hosts[src].port;
	for (;;) {
		if (hops < cap)
			out[hops] = p;
		hops++;
		if (p->peer->node->kind == NODE_HOST)
			return p->peer->node->idx == dst ? hops : 0;
		if (hops >= limit)
			return 0;
		p = sim_route(s, p->peer->node->idx, s->hosts[src].ip, s->hosts[dst].ip, ev,
			      UET_UDP_PORT);
		if (p == NULL)
			return 0;
	}
}

/* ------------------------------------------------------------------ */
/* hosts                                                               */

static void host_after(struct sim *s, struct sim_host *h);

static void
host_timer_fire(struct sim *s, void *a, uint64_t gen)
{
	struct sim_host *h = a;

	if (gen != h->timer_gen || h->ep == NULL)
		return;
	h->timer_armed = false;
	uet_ep_handle_timeout(h->ep, sim_now_ns(s));
	host_after(s, h);
}

/* Make sure an event fires at the endpoint's next deadline. A later
 * deadline leaves the earlier event in place: it finds nothing due and
 * re-arms. */
static void
host_timer_arm(struct sim *s, struct sim_host *h)
{
	uint64_t d = uet_ep_next_deadline(h->ep), t;

	if (d == UINT64_MAX)
		return;
	t = sim_ps(d) < s->now ? s->now : sim_ps(d);
	if (h->timer_armed && h->timer_at <= t)
		return;
	h->timer_armed = true;
	h->timer_at = t;
	h->timer_gen++;
	sim_at(s, t, host_timer_fire, h, h->timer_gen);
}

static void
host_after(struct sim *s, struct sim_host *h)
{
	if (h->ep == NULL)
		return;
	port_try_send(s, h->port);
	host_timer_arm(s, h);
}

void
sim_mac_of(uint32_t ip, uint8_t *mac)
{
	mac[0] = 0x02;
	mac[1] = 0x00;
	uet_put_be32(mac + 2, ip);
}

static struct sim_pkt *
host_pull(struct sim *s, struct sim_host *h)
{
	struct uet_frame_tx tx;
	struct uet_tx_meta m;
	struct sim_pkt *pkt;
	uint32_t zero_tail = 0;
	int n;

	if (h->ep == NULL)
		return NULL;
	/* Written into a whole frame (the endpoint wants room for the
	 * payload); one that is only headers moves to a header frame below,
	 * so the whole frame is reused at once and stays in the cache. */
	pkt = pkt_alloc(s, s->frame_cap);
	n = uet_ep_write_pkt(h->ep, pkt->data + UET_FRAME_HDR_LEN,
			     s->frame_cap - UET_FRAME_HDR_LEN, &m, sim_now_ns(s));
	if (n <= 0) {
		pkt_free(s, pkt);
		return NULL;
	}
	if (m.payload_len > 0 && !m.payload_filled) {
		if (s->fill != NULL)
			s->fill(s->fill_ctx, &m, pkt->data + UET_FRAME_HDR_LEN + m.hdr_len);
		else
			/* Nobody fills it: its bytes are zero, and not kept. */
			zero_tail = m.payload_len;
	}
	memcpy(tx.src_mac, h->mac, 6);
	sim_mac_of(m.dst_ip, tx.dst_mac);
	tx.src_ip = h->ip;
	tx.dst_ip = m.dst_ip;
	tx.sport = m.ev;
	tx.dport = UET_UDP_PORT;
	tx.dscp = s->cfg.dscp.tc[m.tclass < UET_TC_COUNT ? m.tclass : UET_TC_CONTROL];
	tx.ecn = m.ecn_capable ? UET_ECN_ECT0 : UET_ECN_NOT_ECT;
	tx.ttl = 64;
	tx.ip_id = h->ip_id++;
	tx.zero_tail = zero_tail;
	tx.payload_sum_valid = m.sum_valid;
	tx.payload_sum = m.sum;
	pkt->len = (uint32_t)uet_frame_encap(pkt->data, s->frame_cap, &tx, (size_t)n,
					     !s->cfg.no_udp_csum);
	pkt->stored = pkt->len - zero_tail;
	if (pkt->stored <= s->pool[0].data_bytes) {
		struct sim_pkt *hdr = pkt_clone(s, pkt, pkt->stored);

		pkt_free(s, pkt);
		pkt = hdr;
	} else if (zero_tail > 0) {
		memset(pkt->data + pkt->stored, 0, zero_tail);
		pkt->stored = pkt->len;
	}
	pkt->cls = 1;
	pkt->dcls = classify(s, pkt);
	pkt->dst_host = m.dst_ip - s->ip_base;
	if (pkt->dst_host >= s->n_hosts)
		pkt->dst_host = UINT32_MAX; /* let the switch judge it */
	pkt->key = ecmp_key(tx.src_ip, tx.dst_ip, ((uint32_t)tx.sport << 16) | tx.dport,
			    UET_IPPROTO_UDP);
	h->st.tx_frames++;
	if (h->pcap != NULL)
		uet_pcap_write(h->pcap, sim_now_ns(s), pkt_view(&s->zv_aux, pkt), pkt->len);
	/* Writing may have armed a retransmission timer. */
	host_timer_arm(s, h);
	return pkt;
}

static void
host_receive(struct sim *s, struct sim_host *h, struct sim_pkt *pkt)
{
	const uint8_t *f = pkt_view(&s->zv_rx, pkt);
	struct uet_frame_rx r;
	struct uet_rx_meta m;
	int rc;

	h->st.rx_frames++;
	h->st.last_rx_ps = s->now;
	if (h->pcap != NULL)
		uet_pcap_write(h->pcap, sim_now_ns(s), f, pkt->len);
	rc = uet_frame_decap(f, pkt->len, &r, UET_FRAME_VERIFY_CSUM);
	if (rc < 0) {
		if (rc == UET_ERR_CHECKSUM)
			h->st.rx_csum_drops++;
		else
			h->st.rx_other_drops++;
		pkt_free(s, pkt);
		return;
	}
	if (s->cfg.no_udp_csum && pkt->corrupted) {
		/* What the UDP checksum would have caught (sim.h). */
		h->st.rx_csum_drops++;
		pkt_free(s, pkt);
		return;
	}
	if (r.dst_ip != h->ip || r.dport != UET_UDP_PORT || h->ep == NULL) {
		h->st.rx_other_drops++;
		pkt_free(s, pkt);
		return;
	}
	m.src_ip = r.src_ip;
	m.ev = r.sport;
	m.ce = r.ecn == UET_ECN_CE;
	m.trimmed = r.dscp == s->cfg.dscp.trimmed ? 1
		    : r.dscp == s->cfg.dscp.trimmed_lasthop ? 2 : 0;
	rc = uet_ep_read_pkt(h->ep, &m, f + r.payload_off, r.payload_len, sim_now_ns(s));
	if (rc < 0)
		h->st.rx_ep_drops++;
	pkt_free(s, pkt);
	host_after(s, h);
}

static void
node_receive(struct sim *s, void *a, uint64_t b)
{
	struct sim_port *in = a;
	struct sim_pkt *pkt = (struct sim_pkt *)(uintptr_t)b;

	if (in->node->kind == NODE_HOST)
		host_receive(s, &s->hosts[in->node->idx], pkt);
	else
		switch_forward(s, in, pkt);
}

int
sim_host_attach(struct sim *s, uint32_t host, const struct uet_ep_config *cfg)
{
	struct uet_ep_config c = *cfg;
	struct sim_host *h;
	int rc;

	if (host >= s->n_hosts)
		return UET_ERR_INVAL;
	h = &s->hosts[host];
	if (h->ep != NULL)
		return UET_ERR_INVAL;
	c.local_ip = h->ip;
	rc = uet_ep_create(&c, &h->ep);
	if (rc == 0)
		host_after(s, h);
	return rc;
}

void
sim_host_crash(struct sim *s, uint32_t host)
{
	struct sim_host *h;

	if (host >= s->n_hosts)
		return;
	h = &s->hosts[host];
	uet_ep_destroy(h->ep);
	h->ep = NULL;
	/* Its pending timer event finds a new generation and does nothing. */
	h->timer_gen++;
	h->timer_armed = false;
}

struct uet_ep *
sim_host_ep(struct sim *s, uint32_t host)
{
	return host < s->n_hosts ? s->hosts[host].ep : NULL;
}

void
sim_host_kick(struct sim *s, uint32_t host)
{
	if (host < s->n_hosts)
		host_after(s, &s->hosts[host]);
}

void
sim_set_fill(struct sim *s, sim_fill_fn fn, void *ctx)
{
	s->fill = fn;
	s->fill_ctx = ctx;
}

void
sim_set_drop_hook(struct sim *s, sim_drop_fn fn, void *ctx)
{
	s->drop_hook = fn;
	s->drop_ctx = ctx;
}

void
sim_host_capture(struct sim *s, uint32_t host, struct uet_pcap *pc)
{
	if (host < s->n_hosts)
		s->hosts[host].pcap = pc;
}

const struct sim_host_stats *
sim_host_stats(const struct sim *s, uint32_t host)
{
	return &s->hosts[host].st;
}

int
sim_host_send_raw(struct sim *s, uint32_t host, const uint8_t *frame, uint32_t len)
{
	struct sim_pkt *pkt;

	if (host >= s->n_hosts || len > s->frame_cap || len < UET_FRAME_HDR_LEN)
		return UET_ERR_INVAL;
	pkt = pkt_alloc(s, len);
	memcpy(pkt->data, frame, len);
	pkt->len = pkt->stored = len;
	port_enqueue(s, s->hosts[host].port, pkt);
	return 0;
}

/* ------------------------------------------------------------------ */
/* construction                                                        */

void
sim_config_default(struct sim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mtu_bytes = 9216;
	uet_dscp_map_default(&c->dscp);
}

struct sim *
sim_create(const struct sim_config *c)
{
	struct sim *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->cfg = *c;
	s->frame_cap = c->mtu_bytes ? c->mtu_bytes : 9216;
	if (s->frame_cap < TRIM_LEN + 64)
		s->frame_cap = TRIM_LEN + 64;
	s->pool[0].data_bytes = SMALL_FRAME;
	s->pool[1].data_bytes = (s->frame_cap + 63) & ~63u;
	s->zv_rx.buf = calloc(1, s->frame_cap);
	s->zv_aux.buf = calloc(1, s->frame_cap);
	if (s->zv_rx.buf == NULL || s->zv_aux.buf == NULL) {
		free(s->zv_rx.buf);
		free(s->zv_aux.buf);
		free(s);
		return NULL;
	}
	uet_prng_seed(&s->rng, c->seed ^ 0x51e55eedULL);
	uet_prng_seed(&s->tie_rng, c->seed ^ 0x7135ULL);
	s->ip_base = 0x0a000001;
	return s;
}

void
sim_destroy(struct sim *s)
{
	uint32_t i, k;

	if (s == NULL)
		return;
	for (i = 0; i < s->n_hosts; i++)
		uet_ep_destroy(s->hosts[i].ep);
	for (k = 0; k < 2; k++) {
		struct sim_pool *pl = &s->pool[k];

		for (i = 0; i < pl->n_chunks; i++)
			munmap(pl->chunks[i], chunk_bytes(pl));
		free(pl->chunks);
		free(pl->free_pkts);
	}
	free(s->zv_rx.buf);
	free(s->zv_aux.buf);
	sim_topo_free(s);
	sim_fail_free(s);
	free(s->heap_mem);
	free(s->slots);
	free(s->free_slots);
	free(s);
}

void
sim_port_init(struct sim *s, struct sim_port *p, struct sim_node *n, const struct sim_link_cfg *l,
	      enum sim_port_role role)
{
	p->s = s;
	p->node = n;
	p->gidx = (uint32_t)(p - s->ports);
	p->rate_bps = l->rate_bps;
	p->buf_bytes = l->buf_bytes;
	p->kmin = l->ecn_kmin_bytes;
	p->kmax = l->ecn_kmax_bytes;
	p->trim = l->trim;
	p->up = true;
	p->routed = true;
	p->role = (uint8_t)role;
}

void
sim_link_ports(struct sim_port *a, struct sim_port *b, uint64_t lat_ns, uint64_t sw_lat_ns)
{
	a->peer = b;
	b->peer = a;
	a->lat_ps = sim_ps(lat_ns + (b->node->kind == NODE_SWITCH ? sw_lat_ns : 0));
	b->lat_ps = sim_ps(lat_ns + (a->node->kind == NODE_SWITCH ? sw_lat_ns : 0));
}

void
sim_port_flush(struct sim *s, struct sim_port *p)
{
	struct sim_pkt *pkt;
	int c;

	for (c = 0; c < 2; c++) {
		while ((pkt = q_pop(&p->q[c])) != NULL) {
			drop_down(s, p, pkt);
			pkt_free(s, pkt);
		}
	}
}

void
sim_port_set_fault(struct sim_port *p, const struct sim_fault *f)
{
	double keep = 1.0 - f->ber;

	p->fault = *f;
	if (!(f->ber > 0))
		p->fault.ber = 0;
	keep = keep < 0 ? 0 : keep;
	keep *= keep;
	keep *= keep;
	p->ber_keep8 = keep * keep;
}

void
sim_port_set_up(struct sim_port *p, bool up)
{
	p->up = up;
}

void
sim_port_set_rate(struct sim_port *p, uint64_t rate_bps)
{
	if (rate_bps > 0)
		p->rate_bps = rate_bps;
}

uint64_t
sim_port_rate_bps(const struct sim_port *p)
{
	return p->rate_bps;
}

void
sim_port_set_ecn(struct sim_port *p, uint64_t kmin_bytes, uint64_t kmax_bytes)
{
	p->kmin = kmin_bytes;
	p->kmax = kmax_bytes < kmin_bytes ? kmin_bytes : kmax_bytes;
}

void
sim_port_set_trim(struct sim_port *p, bool trim)
{
	p->trim = trim;
}

void
sim_port_set_buffer(struct sim_port *p, uint64_t buf_bytes)
{
	p->buf_bytes = buf_bytes;
}

const struct sim_port_stats *
sim_port_stats(const struct sim_port *p)
{
	return &p->st;
}

uint64_t
sim_port_queue_bytes(const struct sim_port *p)
{
	return p->q[0].bytes + p->q[1].bytes;
}

void
sim_total_stats(const struct sim *s, struct sim_port_stats *o)
{
	uint32_t i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < s->n_ports; i++) {
		const struct sim_port_stats *p = &s->ports[i].st;

		o->tx_pkts += p->tx_pkts;
		o->tx_bytes += p->tx_bytes;
		o->ecn_marks += p->ecn_marks;
		o->trims += p->trims;
		o->drops_queue += p->drops_queue;
		o->drops_fault += p->drops_fault;
		o->drops_down += p->drops_down;
		o->drops_ber += p->drops_ber;
		o->drops_noroute += p->drops_noroute;
		o->dups += p->dups;
		o->corrupts += p->corrupts;
		if (p->max_queue_bytes > o->max_queue_bytes)
			o->max_queue_bytes = p->max_queue_bytes;
		if (p->last_tx_ns > o->last_tx_ns)
			o->last_tx_ns = p->last_tx_ns;
		if (p->last_drop_ns > o->last_drop_ns)
			o->last_drop_ns = p->last_drop_ns;
	}
}

uint64_t
sim_switch_drops(const struct sim *s)
{
	return s->switch_drops;
}

uint64_t
sim_pool_pkts(const struct sim *s, bool whole)
{
	return (uint64_t)s->pool[whole].n_chunks * PKTS_PER_CHUNK;
}

uint64_t
sim_mem_bytes(const struct sim *s)
{
	return sizeof(*s) + s->heap_cap * (sizeof(struct sim_evkey) + sizeof(struct sim_ev) + 4) +
	       sim_pool_pkts(s, false) *
		       (sizeof(struct sim_pkt) + s->pool[0].data_bytes + sizeof(void *)) +
	       sim_pool_pkts(s, true) *
		       (sizeof(struct sim_pkt) + s->pool[1].data_bytes + sizeof(void *)) +
	       (s->pool[0].cap_chunks + s->pool[1].cap_chunks) * sizeof(void *) +
	       2 * (uint64_t)s->frame_cap +
	       (uint64_t)s->n_nodes * sizeof(struct sim_node) +
	       (uint64_t)s->n_ports * sizeof(struct sim_port) +
	       (uint64_t)s->n_hosts * sizeof(struct sim_host) +
	       (uint64_t)s->n_sw * s->n_tors * sizeof(uint32_t) +
	       (uint64_t)s->n_grp * sizeof(struct sim_grp) +
	       (uint64_t)s->n_grp_ports * sizeof(uint32_t);
}
