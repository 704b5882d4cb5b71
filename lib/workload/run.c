/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-process tracker. Only flows with a local source are ever started
 * here, and by the observability rule every event they wait on happens at
 * that source (its own send-done, or the recv-done of a flow into it), so
 * counting events seen locally is enough: no messages between processes.
 *
 * A flow whose deps are met sits in an indexed min-heap keyed by start_ns
 * (ties on id), so ready() pops in (start_ns, id) order and next_ns() is
 * the heap's top.
 */
#define UET_WORKLOAD_INTERNAL
#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

#include "base/theap.h"
#include "uet/err.h"

enum { ST_STARTED = 1, ST_SEND_DONE = 2, ST_RECV_DONE = 4 };

struct uet_wl_run {
	const struct uet_wl *wl;
	bool *local;           /* [hosts] */
	uint8_t *state;        /* [nflows] ST_* */
	uint32_t *met;         /* [nflows] deps met so far */
	uint32_t *rev_first;   /* reverse deps of local-src flows, see uet_wl_rev_index */
	uint32_t *rev;
	struct uet_wl_times *times;
	struct uet_theap eligible;
	uint32_t left_send, left_recv;
};

void
uet_wl_run_free(struct uet_wl_run *r)
{
	if (r == NULL)
		return;
	free(r->local);
	free(r->state);
	free(r->met);
	free(r->rev_first);
	free(r->rev);
	free(r->times);
	uet_theap_fini(&r->eligible);
	free(r);
}

int
uet_wl_run_create(const struct uet_wl *wl, const bool *local, struct uet_wl_run **out)
{
	struct uet_wl_run *r;
	uint32_t n, i;
	int rc;

	if (out == NULL)
		return UET_ERR_INVAL;
	*out = NULL;
	if (local == NULL || (rc = uet_wl_validate(wl, NULL, 0)) == UET_ERR_INVAL)
		return UET_ERR_INVAL;
	if (rc < 0)
		return rc;
	n = wl->nflows;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return UET_ERR_NOMEM;
	r->wl = wl;
	r->local = malloc(wl->hosts * sizeof(*r->local));
	r->state = calloc(n ? n : 1, sizeof(*r->state));
	r->met = calloc(n ? n : 1, sizeof(*r->met));
	r->times = malloc((n ? n : 1) * sizeof(*r->times));
	if (r->local == NULL || r->state == NULL || r->met == NULL || r->times == NULL ||
	    uet_theap_init(&r->eligible, n) < 0)
		goto nomem;
	memcpy(r->local, local, wl->hosts * sizeof(*r->local));
	if (uet_wl_rev_index(wl, r->local, &r->rev_first, &r->rev) < 0)
		goto nomem;
	for (i = 0; i < n; i++) {
		const struct uet_wl_flow *f = &wl->flows[i];

		r->times[i] = (struct uet_wl_times){ UINT64_MAX, UINT64_MAX, UINT64_MAX };
		if (r->local[f->src]) {
			r->left_send++;
			if (f->deps_needed == 0)
				uet_theap_set(&r->eligible, i, f->start_ns);
		}
		if (r->local[f->dst])
			r->left_recv++;
	}
	*out = r;
	return 0;
nomem:
	uet_wl_run_free(r);
	return UET_ERR_NOMEM;
}

uint32_t
uet_wl_run_ready(struct uet_wl_run *r, uint64_t now_ns, uint32_t *ids, uint32_t max)
{
	uint32_t n = 0, id;
	uint64_t start;

	while (n < max && uet_theap_top(&r->eligible, &id, &start) && start <= now_ns) {
		uet_theap_del(&r->eligible, id);
		r->state[id] |= ST_STARTED;
		r->times[id].start_ns = now_ns;
		ids[n++] = id;
	}
	return n;
}

uint64_t
uet_wl_run_next_ns(const struct uet_wl_run *r)
{
	uint64_t start;

	return uet_theap_top(&r->eligible, NULL, &start) ? start : UINT64_MAX;
}

/* Event e = 2 * id + on happened here: count it for the local flows
 * waiting on it. */
static void
release(struct uet_wl_run *r, uint64_t e)
{
	uint32_t k;

	for (k = r->rev_first[e]; k < r->rev_first[e + 1]; k++) {
		uint32_t f = r->rev[k];

		if (++r->met[f] == r->wl->flows[f].deps_needed && !(r->state[f] & ST_STARTED))
			uet_theap_set(&r->eligible, f, r->wl->flows[f].start_ns);
	}
}

/* A send-done at the (local) src of a started flow, or a recv-done at its
 * (local) dst. */
static int
event(struct uet_wl_run *r, uint32_t id, enum uet_wl_on on, uint64_t now_ns)
{
	bool send = on == UET_WL_ON_SEND_DONE;
	uint8_t bit = send ? ST_SEND_DONE : ST_RECV_DONE;

	if (id >= r->wl->nflows ||
	    !r->local[send ? r->wl->flows[id].src : r->wl->flows[id].dst] ||
	    (send && !(r->state[id] & ST_STARTED)))
		return UET_ERR_INVAL;
	if (r->state[id] & bit)
		return UET_ERR_DUPLICATE;
	r->state[id] |= bit;
	if (send) {
		r->times[id].send_done_ns = now_ns;
		r->left_send--;
	} else {
		r->times[id].recv_done_ns = now_ns;
		r->left_recv--;
	}
	release(r, 2 * (uint64_t)id + on);
	return 0;
}

int
uet_wl_run_send_done(struct uet_wl_run *r, uint32_t id, uint64_t now_ns)
{
	return event(r, id, UET_WL_ON_SEND_DONE, now_ns);
}

int
uet_wl_run_recv_done(struct uet_wl_run *r, uint32_t id, uint64_t now_ns)
{
	return event(r, id, UET_WL_ON_RECV_DONE, now_ns);
}

bool
uet_wl_run_done(const struct uet_wl_run *r)
{
	return r->left_send == 0 && r->left_recv == 0;
}

int
uet_wl_run_times(const struct uet_wl_run *r, uint32_t id, struct uet_wl_times *t)
{
	if (id >= r->wl->nflows || t == NULL)
		return UET_ERR_INVAL;
	*t = r->times[id];
	return 0;
}

/* --- how many PDCs each rank needs --- */

struct pair {
	uint32_t a, b;
	uint16_t stream;
};

static int
cmp_pair(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return (p->stream > q->stream) - (p->stream < q->stream);
}

int
uet_wl_count_pdcs(const struct uet_wl *wl, uint32_t *pdc_out, uint32_t *pdc_in,
		  uint32_t *flows_out, uint32_t *flows_in)
{
	struct pair *p = malloc((wl->nflows ? wl->nflows : 1) * sizeof(*p));
	uint32_t i, pass;

	if (p == NULL)
		return UET_ERR_NOMEM;
	for (pass = 0; pass < 2; pass++) {
		uint32_t *cnt = pass == 0 ? pdc_out : pdc_in;

		for (i = 0; i < wl->nflows; i++) {
			const struct uet_wl_flow *f = &wl->flows[i];

			p[i].a = pass == 0 ? f->src : f->dst;
			p[i].b = pass == 0 ? f->dst : f->src;
			p[i].stream = f->stream;
			if (pass == 0)
				flows_out[f->src]++;
			else
				flows_in[f->dst]++;
		}
		qsort(p, wl->nflows, sizeof(*p), cmp_pair);
		for (i = 0; i < wl->nflows; i++)
			if (i == 0 || cmp_pair(&p[i], &p[i - 1]) != 0)
				cnt[p[i].a]++;
	}
	free(p);
	return 0;
}
