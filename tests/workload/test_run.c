/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/workload: the per-process tracker (ready, next_ns, done, events). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "uet/err.h"
#include "workload/workload.h"

static struct uet_wl *
build(const struct uet_wl_spec *s)
{
	struct uet_wl *wl = NULL;
	char err[256];

	assert_int_equal(uet_wl_build(s, &wl, err, sizeof(err)), 0);
	return wl;
}

static struct uet_wl_run *
tracker(const struct uet_wl *wl, const bool *local)
{
	struct uet_wl_run *r = NULL;

	assert_int_equal(uet_wl_run_create(wl, local, &r), 0);
	assert_non_null(r);
	return r;
}

/* Ready ids at now, exactly `want` (n of them), in order. */
static void
expect_ready(struct uet_wl_run *r, uint64_t now, const uint32_t *want, uint32_t n)
{
	uint32_t ids[64], got, i;

	got = uet_wl_run_ready(r, now, ids, 64);
	assert_int_equal(got, n);
	for (i = 0; i < n; i++)
		assert_int_equal(ids[i], want[i]);
}

/* Ring allreduce over 4 ranks, this process runs ranks 1 and 3; every
 * event is driven by hand. */
static void
test_ring_local_subset(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_RING_ALLREDUCE, .hosts = 4,
				 .size_bytes = 4000 };
	bool local[4] = { false, true, false, true };
	struct uet_wl *wl = build(&s);
	struct uet_wl_run *r = tracker(wl, local);
	uint32_t st, i;

	(void)state;
	/* Flow of step st from rank i is st * 4 + i. */
	expect_ready(r, 0, (uint32_t[]){ 1, 3 }, 2);
	expect_ready(r, 0, NULL, 0);
	assert_int_equal(uet_wl_run_next_ns(r), UINT64_MAX);
	assert_false(uet_wl_run_done(r));

	/* Our own send-done releases nothing in a ring ... */
	assert_int_equal(uet_wl_run_send_done(r, 1, 10), 0);
	assert_int_equal(uet_wl_run_send_done(r, 3, 10), 0);
	expect_ready(r, 10, NULL, 0);
	/* ... the chunk from the left neighbour does: 0 -> 1 at step 0 frees
	 * rank 1's step 1 (flow 5), 2 -> 3 frees rank 3's (flow 7). */
	assert_int_equal(uet_wl_run_recv_done(r, 0, 20), 0);
	assert_int_equal(uet_wl_run_next_ns(r), 0);
	expect_ready(r, 20, (uint32_t[]){ 5 }, 1);
	assert_int_equal(uet_wl_run_recv_done(r, 2, 21), 0);
	expect_ready(r, 21, (uint32_t[]){ 7 }, 1);

	/* Events for ranks this process does not run are refused. */
	assert_int_equal(uet_wl_run_recv_done(r, 1, 22), UET_ERR_INVAL); /* 1 -> 2 */
	assert_int_equal(uet_wl_run_send_done(r, 0, 22), UET_ERR_INVAL); /* src 0 */
	assert_int_equal(uet_wl_run_recv_done(r, 0, 22), UET_ERR_DUPLICATE);
	assert_int_equal(uet_wl_run_send_done(r, 1, 22), UET_ERR_DUPLICATE);
	assert_int_equal(uet_wl_run_send_done(r, 9, 22), UET_ERR_INVAL); /* not started */
	assert_int_equal(uet_wl_run_send_done(r, 5000, 22), UET_ERR_INVAL);

	/* Drive the rest: steps 1..5. */
	for (st = 1; st < 6; st++) {
		assert_int_equal(uet_wl_run_send_done(r, st * 4 + 1, 100 * st), 0);
		assert_int_equal(uet_wl_run_send_done(r, st * 4 + 3, 100 * st), 0);
		assert_false(uet_wl_run_done(r));
		assert_int_equal(uet_wl_run_recv_done(r, st * 4 + 0, 100 * st + 1), 0);
		assert_int_equal(uet_wl_run_recv_done(r, st * 4 + 2, 100 * st + 1), 0);
		if (st < 5)
			expect_ready(r, 100 * st + 1,
				     (uint32_t[]){ (st + 1) * 4 + 1, (st + 1) * 4 + 3 }, 2);
	}
	expect_ready(r, 1000, NULL, 0);
	assert_true(uet_wl_run_done(r));
	for (i = 0; i < wl->nflows; i++) {
		struct uet_wl_times t;

		assert_int_equal(uet_wl_run_times(r, i, &t), 0);
		assert_int_equal(t.start_ns != UINT64_MAX, local[wl->flows[i].src]);
		assert_int_equal(t.send_done_ns != UINT64_MAX, local[wl->flows[i].src]);
		assert_int_equal(t.recv_done_ns != UINT64_MAX, local[wl->flows[i].dst]);
	}
	{
		struct uet_wl_times t;

		assert_int_equal(uet_wl_run_times(r, 5, &t), 0);
		assert_int_equal(t.start_ns, 20);
		assert_int_equal(t.send_done_ns, 100);
		assert_int_equal(uet_wl_run_times(r, 0, &t), 0);
		assert_int_equal(t.recv_done_ns, 20);
		assert_int_equal(uet_wl_run_times(r, 999, &t), UET_ERR_INVAL);
	}
	uet_wl_run_free(r);
	uet_wl_free(wl);
}

/* Start times: ready() honours start_ns, returns in (start, id) order and
 * at most max at a time; next_ns() names the earliest pending start. */
static void
test_start_times(void **state)
{
	struct uet_wl_flow flows[4] = {
		{ .id = 0, .src = 0, .dst = 1, .size_bytes = 1, .start_ns = 100 },
		{ .id = 1, .src = 0, .dst = 1, .size_bytes = 1, .start_ns = 50 },
		{ .id = 2, .src = 0, .dst = 1, .size_bytes = 1, .start_ns = 100 },
		{ .id = 3, .src = 1, .dst = 0, .size_bytes = 1, .start_ns = 0 },
	};
	struct uet_wl wl = { .flows = flows, .nflows = 4, .hosts = 2 };
	bool local[2] = { true, false };
	struct uet_wl_run *r = tracker(&wl, local);
	uint32_t ids[4];

	(void)state;
	assert_int_equal(uet_wl_run_next_ns(r), 50);
	expect_ready(r, 49, NULL, 0);
	expect_ready(r, 50, (uint32_t[]){ 1 }, 1);
	assert_int_equal(uet_wl_run_next_ns(r), 100);
	assert_int_equal(uet_wl_run_ready(r, 500, ids, 1), 1);
	assert_int_equal(ids[0], 0);
	assert_int_equal(uet_wl_run_next_ns(r), 100); /* due, call again */
	expect_ready(r, 500, (uint32_t[]){ 2 }, 1);
	assert_int_equal(uet_wl_run_next_ns(r), UINT64_MAX);
	assert_false(uet_wl_run_done(r));
	assert_int_equal(uet_wl_run_send_done(r, 0, 600), 0);
	assert_int_equal(uet_wl_run_send_done(r, 1, 600), 0);
	assert_int_equal(uet_wl_run_send_done(r, 2, 600), 0);
	assert_false(uet_wl_run_done(r)); /* flow 3 still due into rank 0 */
	assert_int_equal(uet_wl_run_recv_done(r, 3, 700), 0);
	assert_true(uet_wl_run_done(r));
	uet_wl_run_free(r);
}

/* All-to-all with at most 2 flows in flight per source. */
static void
test_alltoall_window(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_ALLTOALL, .hosts = 4, .size_bytes = 10,
				 .parallel = 2 };
	bool local[4] = { true, false, false, false };
	struct uet_wl *wl = build(&s);
	struct uet_wl_run *r = tracker(wl, local);

	(void)state;
	/* Rank 0 sends flows 0 (->1), 1 (->2), 2 (->3). */
	expect_ready(r, 0, (uint32_t[]){ 0, 1 }, 2);
	assert_int_equal(uet_wl_run_recv_done(r, 5, 1), 0); /* 1 -> 0 arrives: irrelevant */
	expect_ready(r, 1, NULL, 0);
	assert_int_equal(uet_wl_run_send_done(r, 1, 2), 0); /* not the one flow 2 waits on */
	expect_ready(r, 2, NULL, 0);
	assert_int_equal(uet_wl_run_send_done(r, 0, 3), 0);
	expect_ready(r, 3, (uint32_t[]){ 2 }, 1);
	uet_wl_run_free(r);
	uet_wl_free(wl);
}

/* A ping-pong seen by two processes, one rank each: each message starts
 * only once the other's has arrived. */
static void
test_pingpong_turns(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_PINGPONG, .hosts = 2, .size_bytes = 10,
				 .iterations = 2 };
	bool at_root[2] = { true, false }, at_peer[2] = { false, true };
	struct uet_wl *wl = build(&s);
	struct uet_wl_run *root = tracker(wl, at_root), *peer = tracker(wl, at_peer);

	(void)state;
	expect_ready(root, 0, (uint32_t[]){ 0 }, 1);
	expect_ready(peer, 0, NULL, 0);
	/* The ping's acknowledgment lets nothing start. */
	assert_int_equal(uet_wl_run_send_done(root, 0, 5), 0);
	expect_ready(root, 5, NULL, 0);
	assert_int_equal(uet_wl_run_recv_done(peer, 0, 10), 0);
	expect_ready(peer, 10, (uint32_t[]){ 1 }, 1);
	expect_ready(root, 10, NULL, 0);
	assert_int_equal(uet_wl_run_recv_done(root, 1, 20), 0);
	expect_ready(root, 20, (uint32_t[]){ 2 }, 1);
	assert_int_equal(uet_wl_run_send_done(peer, 1, 21), 0);
	assert_int_equal(uet_wl_run_recv_done(peer, 2, 30), 0);
	expect_ready(peer, 30, (uint32_t[]){ 3 }, 1);
	assert_int_equal(uet_wl_run_send_done(root, 2, 31), 0);
	assert_false(uet_wl_run_done(root)); /* the last pong is due */
	assert_int_equal(uet_wl_run_send_done(peer, 3, 39), 0);
	assert_true(uet_wl_run_done(peer));
	assert_int_equal(uet_wl_run_recv_done(root, 3, 40), 0);
	assert_true(uet_wl_run_done(root));
	uet_wl_run_free(root);
	uet_wl_run_free(peer);
	uet_wl_free(wl);
}

/* Incast seen from the root: nothing to send, done once all arrived. */
static void
test_receiver_only(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_INCAST, .hosts = 4, .size_bytes = 10 };
	bool local[4] = { true, false, false, false };
	struct uet_wl *wl = build(&s);
	struct uet_wl_run *r = tracker(wl, local);
	uint32_t i;

	(void)state;
	expect_ready(r, 0, NULL, 0);
	assert_int_equal(uet_wl_run_next_ns(r), UINT64_MAX);
	for (i = 0; i < 3; i++) {
		assert_false(uet_wl_run_done(r));
		assert_int_equal(uet_wl_run_recv_done(r, i, 10 + i), 0);
	}
	assert_true(uet_wl_run_done(r));
	uet_wl_run_free(r);
	uet_wl_free(wl);
}

/* deps_needed < ndeps (how .cm multishot triggers map): the first target
 * starts on either activation, the second on both. */
static void
test_partial_deps(void **state)
{
	struct uet_wl_flow flows[4] = {
		{ .id = 0, .src = 0, .dst = 1, .size_bytes = 1 },
		{ .id = 1, .src = 2, .dst = 0, .size_bytes = 1 },
		{ .id = 2, .src = 0, .dst = 3, .size_bytes = 1, .dep_first = 0, .ndeps = 2,
		  .deps_needed = 1 },
		{ .id = 3, .src = 0, .dst = 3, .size_bytes = 1, .dep_first = 0, .ndeps = 2,
		  .deps_needed = 2 },
	};
	struct uet_wl_dep deps[2] = { { 0, UET_WL_ON_SEND_DONE }, { 1, UET_WL_ON_RECV_DONE } };
	struct uet_wl wl = { .flows = flows, .nflows = 4, .deps = deps, .ndeps = 2, .hosts = 4 };
	bool local[4] = { true, false, false, false };
	struct uet_wl_run *r = tracker(&wl, local);

	(void)state;
	expect_ready(r, 0, (uint32_t[]){ 0 }, 1);
	assert_int_equal(uet_wl_run_recv_done(r, 1, 5), 0);
	expect_ready(r, 5, (uint32_t[]){ 2 }, 1);
	assert_int_equal(uet_wl_run_send_done(r, 0, 6), 0);
	expect_ready(r, 6, (uint32_t[]){ 3 }, 1);
	uet_wl_run_free(r);
}

static void
test_create_errors(void **state)
{
	struct uet_wl_flow flows[2] = {
		{ .id = 0, .src = 0, .dst = 1, .size_bytes = 1 },
		{ .id = 1, .src = 2, .dst = 0, .size_bytes = 1, .ndeps = 1, .deps_needed = 1 },
	};
	struct uet_wl_dep deps[1] = { { 0, UET_WL_ON_SEND_DONE } };
	struct uet_wl wl = { .flows = flows, .nflows = 2, .deps = deps, .ndeps = 1, .hosts = 3 };
	bool local[3] = { true, true, true };
	struct uet_wl_run *r = (struct uet_wl_run *)1;

	(void)state;
	/* Flow 1 at host 2 waits on a send-done at host 0: not observable. */
	assert_int_equal(uet_wl_run_create(&wl, local, &r), UET_ERR_INVAL);
	assert_null(r);
	deps[0].on = UET_WL_ON_RECV_DONE; /* dst 1, still not host 2 */
	assert_int_equal(uet_wl_run_create(&wl, local, &r), UET_ERR_INVAL);
	flows[0].dst = 2; /* now host 2 receives it */
	assert_int_equal(uet_wl_run_create(&wl, local, &r), 0);
	uet_wl_run_free(r);
	assert_int_equal(uet_wl_run_create(&wl, NULL, &r), UET_ERR_INVAL);
	assert_int_equal(uet_wl_run_create(NULL, local, &r), UET_ERR_INVAL);
	assert_int_equal(uet_wl_run_create(&wl, local, NULL), UET_ERR_INVAL);
	uet_wl_run_free(NULL);
}

/*
 * Multi-process run: ranks spread over `nproc` trackers (rank % nproc),
 * each seeing only its own events. A started flow is received at start +
 * size + 3 and send-done at start + size + 7 (the ACK comes back later).
 * Checks that every flow starts exactly once, after its start time and its
 * deps, with at most `window` flows in flight per source, and that every
 * tracker ends done. Returns the makespan.
 */
struct ev {
	uint64_t t;
	uint32_t flow;
	bool recv;
};

static uint64_t
simulate(const struct uet_wl *wl, uint32_t nproc, uint32_t window)
{
	struct uet_wl_run *r[8];
	bool local[8][64];
	struct ev *evs = calloc(2 * wl->nflows + 1, sizeof(*evs));
	uint64_t *start = malloc(wl->nflows * sizeof(*start)), now = 0, end = 0;
	uint64_t *sdone = malloc(wl->nflows * sizeof(*sdone));
	uint64_t *rdone = malloc(wl->nflows * sizeof(*rdone));
	uint32_t nev = 0, p, i, k, ids[16], started = 0;

	assert_true(nproc <= 8 && wl->hosts <= 64);
	for (i = 0; i < wl->nflows; i++)
		start[i] = sdone[i] = rdone[i] = UINT64_MAX;
	for (p = 0; p < nproc; p++) {
		for (i = 0; i < wl->hosts; i++)
			local[p][i] = i % nproc == p;
		r[p] = tracker(wl, local[p]);
	}
	for (;;) {
		uint64_t next = UINT64_MAX;

		for (p = 0; p < nproc; p++) {
			uint32_t n;

			while ((n = uet_wl_run_ready(r[p], now, ids, 16)) > 0) {
				for (k = 0; k < n; k++) {
					const struct uet_wl_flow *f = &wl->flows[ids[k]];

					assert_int_equal(f->src % nproc, p);
					assert_int_equal(start[f->id], UINT64_MAX);
					start[f->id] = now;
					started++;
					evs[nev++] = (struct ev){ now + f->size_bytes + 3, f->id, true };
					evs[nev++] = (struct ev){ now + f->size_bytes + 7, f->id, false };
				}
			}
			if (uet_wl_run_next_ns(r[p]) < next)
				next = uet_wl_run_next_ns(r[p]);
		}
		for (k = 0; k < nev; k++)
			if (evs[k].t < next)
				next = evs[k].t;
		if (next == UINT64_MAX)
			break;
		assert_true(next >= now);
		now = next;
		for (k = 0; k < nev;) {
			if (evs[k].t != now) {
				k++;
				continue;
			}
			i = evs[k].flow;
			if (evs[k].recv) {
				rdone[i] = now;
				assert_int_equal(uet_wl_run_recv_done(r[wl->flows[i].dst % nproc], i,
								      now), 0);
			} else {
				sdone[i] = now;
				assert_int_equal(uet_wl_run_send_done(r[wl->flows[i].src % nproc], i,
								      now), 0);
			}
			end = now;
			evs[k] = evs[--nev];
		}
	}
	assert_int_equal(started, wl->nflows);
	for (p = 0; p < nproc; p++) {
		assert_true(uet_wl_run_done(r[p]));
		uet_wl_run_free(r[p]);
	}
	for (i = 0; i < wl->nflows; i++) {
		const struct uet_wl_flow *f = &wl->flows[i];
		uint32_t inflight = 0;

		assert_true(start[i] >= f->start_ns);
		for (k = 0; k < f->ndeps; k++) {
			const struct uet_wl_dep *d = &wl->deps[f->dep_first + k];

			assert_true(start[i] >= (d->on == UET_WL_ON_SEND_DONE ? sdone[d->flow]
									      : rdone[d->flow]));
		}
		for (k = 0; window && k < wl->nflows; k++)
			inflight += wl->flows[k].src == f->src && start[k] <= start[i] &&
				    sdone[k] > start[i];
		assert_true(window == 0 || inflight <= window);
	}
	free(evs);
	free(start);
	free(sdone);
	free(rdone);
	return end;
}

static void
test_multiprocess(void **state)
{
	struct uet_wl_spec ring = { .pattern = UET_WL_RING_ALLREDUCE, .hosts = 4,
				    .size_bytes = 4000, .iterations = 2 };
	struct uet_wl_spec bfly = { .pattern = UET_WL_BUTTERFLY_ALLREDUCE, .hosts = 8,
				    .size_bytes = 8000, .streams = 2 };
	struct uet_wl_spec a2a = { .pattern = UET_WL_ALLTOALL, .hosts = 5, .size_bytes = 100,
				   .parallel = 2, .iterations = 2 };
	struct uet_wl_spec perm = { .pattern = UET_WL_PERMUTATION, .hosts = 6,
				    .size_bytes = 100, .iterations = 3, .seed = 9 };
	struct uet_wl *wl;

	(void)state;
	/* Ring: each step takes 1000 + 3 ns (the recv-done gates the next);
	 * iteration 1 starts at the last send-done (5 x 1003 + 1007) of
	 * iteration 0 and ends with one. */
	wl = build(&ring);
	assert_int_equal(simulate(wl, 2, 0), 2 * (5 * 1003 + 1007));
	uet_wl_free(wl);
	/* Butterfly, 2 streams of 4000: steps 2000, 1000, 500, 500, 1000, 2000. */
	wl = build(&bfly);
	assert_int_equal(simulate(wl, 3, 0), (2000 + 1000 + 500 + 500 + 1000 + 3 * 5) + 2007);
	uet_wl_free(wl);
	/* Alltoall, window 2 per source across iterations: 8 flows per source
	 * in 4 waves of 107 ns. */
	wl = build(&a2a);
	assert_int_equal(simulate(wl, 4, 2), 4 * 107);
	uet_wl_free(wl);
	/* Permutation, 3 iterations gated by the sender's send-done. */
	wl = build(&perm);
	assert_int_equal(simulate(wl, 5, 1), 3 * 107);
	uet_wl_free(wl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_local_subset),
		cmocka_unit_test(test_start_times),
		cmocka_unit_test(test_alltoall_window),
		cmocka_unit_test(test_receiver_only),
		cmocka_unit_test(test_pingpong_turns),
		cmocka_unit_test(test_partial_deps),
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test(test_multiprocess),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
