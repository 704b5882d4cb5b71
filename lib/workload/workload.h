/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WORKLOAD_WORKLOAD_H_
#define UET_WORKLOAD_WORKLOAD_H_

/*
 * Traffic patterns shared by uet-perf (many hosts, each process runs some
 * ranks) and uet-sim. uet_wl_build() turns a pattern description into a
 * list of flows (messages) with start times and dependencies; a
 * uet_wl_run tracks, for one process, which of its flows may start now.
 *
 * Pure C: no clock (every call takes now_ns), no global state, randomness
 * only from spec->seed, no I/O except reading a .cm file.
 *
 * Dependencies are observable by the flow's own source: a dependency of
 * flow f on flow g is either (UET_WL_ON_SEND_DONE and g.src == f.src) or
 * (UET_WL_ON_RECV_DONE and g.dst == f.src). uet_wl_build() guarantees it
 * for every pattern and rejects .cm input that breaks it, so a process
 * decides every start from the events of its own ranks.
 *
 * Errors are negative UET_ERR_* codes (uet/err.h). Functions that take
 * `err`/`errlen` write a one-line reason there on failure (either may be
 * NULL/0).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds; a spec that would exceed one is rejected with UET_ERR_INVAL. */
#define UET_WL_MAX_HOSTS (1u << 20)
#define UET_WL_MAX_FLOWS (1u << 24)
#define UET_WL_MAX_DEPS (1u << 26)
#define UET_WL_MAX_STREAMS 65536u        /* stream ids are 16 bits */
#define UET_WL_CM_MAX_LINE 4096u         /* longest .cm line, bytes */
#define UET_WL_MAX_SIZE_BYTES (1ull << 48) /* per flow / per-rank buffer */

enum uet_wl_pattern {
	UET_WL_PAIR,
	UET_WL_PERMUTATION,
	UET_WL_TORNADO,
	UET_WL_INCAST,
	UET_WL_OUTCAST,
	UET_WL_ALLTOALL,
	UET_WL_BISECTION,
	UET_WL_RING_ALLREDUCE,
	UET_WL_BUTTERFLY_ALLREDUCE,
	UET_WL_WEBSEARCH,
	UET_WL_CM,
	UET_WL_PINGPONG,
};

/* "pair", "permutation", "tornado", "incast", "outcast", "alltoall",
 * "bisection", "ring_allreduce", "butterfly_allreduce", "websearch", "cm",
 * "pingpong"; "?" for a value outside the enum. */
const char *uet_wl_pattern_name(enum uet_wl_pattern p);
/* Exact names above. 0, or UET_ERR_INVAL (unknown name or NULL). */
int uet_wl_pattern_parse(const char *name, enum uet_wl_pattern *out);

/*
 * What to build. Zero-initialise and fill what the pattern uses; fields a
 * pattern does not use are ignored.
 *
 * pair          root -> (root+1)%hosts, `streams` flows.
 * permutation   a seeded uniform random derangement: host i -> p(i) != i.
 * tornado       i -> (i + hosts/2) % hosts.
 * incast        the `fanin` ranks after root (wrapping) -> root.
 * outcast       root -> the `fanin` ranks after root.
 * alltoall      every host to every other; host i's flows are ordered
 *               i+1, i+2, ... (each with its streams), and with
 *               parallel = n the k-th flow of a source (counted across
 *               iterations) depends on SEND_DONE of its (k-n)-th.
 * bisection     hosts even; i <-> i + hosts/2 both ways.
 * ring_allreduce  NCCL's ring: reduce-scatter then all-gather, 2(n-1)
 *               steps; in step s rank i sends chunk (i-s) mod n
 *               (reduce-scatter) or (i+1-s') mod n (all-gather, s' =
 *               s-(n-1)) to (i+1)%n. Chunks are ceil(S/n) bytes, the last
 *               one the remainder (S > (n-1)*ceil(S/n) is required so none
 *               is empty). Step s > 0 of rank i depends on RECV_DONE of
 *               step s-1's flow from (i-1+n)%n to i.
 * butterfly_allreduce  hosts a power of two, n = 2^m: recursive halving
 *               reduce-scatter (steps 0..m-1, partner i XOR 2^k, each
 *               sends the half of its segment it gives up: S/2, S/4, ...)
 *               then recursive doubling all-gather (steps m..2m-1,
 *               partner i XOR 2^(m-1-k), S/n, ..., S/2). Step t > 0 of
 *               rank i depends on RECV_DONE of step t-1's flow into i.
 *               S >= n is required.
 *   Collectives: size_bytes is the per-rank buffer S; with streams = c
 *   the buffer is cut into c channel slices (ceil rule as above), each
 *   running its own ring/butterfly on its own stream id.
 * websearch     per source host, Poisson arrivals at rate
 *               load * link_bps / (8 * mean size) in [0, duration_ns),
 *               destination uniform over the other hosts, size from the
 *               DCTCP web-search CDF (uet_wl_websearch_mean_bytes()); the
 *               k-th arrival of a source uses stream k % streams.
 *               iterations must be 0 or 1.
 * cm            htsim connection matrix at cm_path (see cm.c for the
 *               format): `Nodes` gives hosts (spec->hosts must be 0 or
 *               equal), `start` is in microseconds, `size 0` means
 *               spec->size_bytes, triggers become dependencies, `failure`
 *               lines are counted in wl->unsupported. Every line is its
 *               own connection, as in htsim: the n-th line from S to D
 *               has stream n (n < UET_WL_MAX_STREAMS). streams and
 *               iterations must be 0 or 1.
 * pingpong      root -> peer = (root+1)%hosts, then peer -> root, K =
 *               iterations round trips, on each of `streams` streams
 *               independently (a chain per stream): the ping of round k
 *               depends on RECV_DONE of round k-1's pong at root, the pong
 *               on RECV_DONE of its ping at peer, so one message is in
 *               flight per chain (parallel is ignored). Flows are emitted
 *               per round, per stream, ping then pong: a pong's id is its
 *               ping's + 1; step is 0 for a ping, 1 for a pong. The round
 *               trip is the pong's RECV_DONE at root minus the ping's start.
 *
 * rate_bps > 0 paces the point-to-point patterns (pair, permutation,
 * tornado, incast, outcast, alltoall, bisection): iteration k starts not
 * before k x size_bytes x 8 / rate_bps ns (rounded down), so each
 * (src, dst, stream) runs at most at rate_bps; refused for the others.
 * A driver of streams (lib/driver) paces their messages the same way.
 *
 * iterations = K > 1 repeats the pattern back to back (pingpong: see
 * above): the first flow of a (src, dst, stream) in iteration k+1 depends
 * on SEND_DONE of its last flow in iteration k (pair, permutation,
 * tornado, incast, outcast, bisection: in iteration k+1-parallel when
 * parallel > 1, so a stream keeps `parallel` messages in flight); for
 * collectives the first step of rank i in iteration k+1 also depends on
 * RECV_DONE of the last step into i in iteration k.
 */
struct uet_wl_spec {
	enum uet_wl_pattern pattern;
	uint32_t hosts;       /* ranks 0..hosts-1; 2..UET_WL_MAX_HOSTS */
	uint64_t size_bytes;  /* bytes per flow; collectives: the buffer per rank */
	uint32_t streams;     /* flows per (src,dst) pair, each its own stream id; 0 = 1 */
	uint32_t iterations;  /* repeat back to back; 0 = 1 */
	uint64_t seed;        /* permutation and websearch draws */
	uint32_t fanin;       /* incast N:1 / outcast 1:N: N; 0 = hosts-1 */
	uint32_t root;        /* incast dst / outcast src / pair and pingpong src; < hosts */
	uint32_t parallel;    /* alltoall: flows in flight per source (0 =
			       * unlimited); point-to-point patterns: messages
			       * in flight per stream across iterations (0 = 1) */
	uint64_t rate_bps;    /* point-to-point patterns: each stream's target
			       * rate; 0 = unpaced (see above) */
	double load;          /* websearch: offered load per host, (0, 1] of link_bps */
	uint64_t link_bps;    /* websearch */
	uint64_t duration_ns; /* websearch: arrivals in [0, duration_ns) */
	const char *cm_path;  /* UET_WL_CM */
};

enum uet_wl_on { UET_WL_ON_SEND_DONE, UET_WL_ON_RECV_DONE };

struct uet_wl_dep {
	uint32_t flow; /* id of the flow waited on */
	enum uet_wl_on on;
};

struct uet_wl_flow {
	uint32_t id;          /* index in wl->flows */
	uint32_t src, dst;    /* ranks, src != dst */
	uint64_t size_bytes;  /* > 0 */
	uint64_t start_ns;    /* not before this, ns after the run's t = 0 */
	uint16_t stream;
	uint32_t dep_first;   /* its deps: wl->deps[dep_first .. dep_first + ndeps) */
	uint32_t ndeps;
	uint32_t deps_needed; /* how many of those must be met: ndeps, except for
	                       * .cm multishot triggers (the k-th target of a
	                       * trigger needs k of its activations) */
	uint32_t step;        /* collectives: the step; alltoall: position in
	                       * its source's order; else 0 */
	uint32_t iteration;
	uint32_t tag;         /* .cm: the connection's `id` (0 if none); else 0 */
};

struct uet_wl {
	struct uet_wl_flow *flows; /* owned; flows[i].id == i */
	uint32_t nflows;
	struct uet_wl_dep *deps;   /* owned; every dep names a flow < nflows */
	uint32_t ndeps;
	enum uet_wl_pattern pattern;
	uint32_t hosts;
	uint64_t coll_bytes;       /* collectives: the per-rank buffer S (for
	                            * algbw = S / time and busbw); 0 otherwise */
	uint32_t unsupported;      /* .cm lines recognised but not runnable here */
	char **unsupported_text;   /* owned; "path:line: text" of each of them */
};

/*
 * Build the flows of *s into a new *out (NULL on failure). 0, or
 * UET_ERR_INVAL (bad spec, malformed .cm: err names path:line and what was
 * expected; a file that cannot be read) or UET_ERR_NOMEM.
 */
int uet_wl_build(const struct uet_wl_spec *s, struct uet_wl **out, char *err, size_t errlen);
void uet_wl_free(struct uet_wl *wl);

/* When the k-th message of a stream paced at rate_bps may start, in ns
 * after the first's: k x size_bytes x 8 / rate_bps, rounded down (0 when
 * rate_bps is 0; UINT64_MAX past it). */
uint64_t uet_wl_paced_ns(uint64_t size_bytes, uint64_t rate_bps, uint64_t k);

/* Per rank (arrays of the workload's nranks, zeroed by the caller): the
 * distinct (peer, stream) PDCs it opens (pdc_out) and accepts (pdc_in),
 * and its flows out and in. 0 or UET_ERR_NOMEM. */
int uet_wl_count_pdcs(const struct uet_wl *wl, uint32_t *pdc_out, uint32_t *pdc_in,
		      uint32_t *flows_out, uint32_t *flows_in);

/*
 * Check a workload (built or hand-made): ids, ranks, sizes, deps in range,
 * the observability rule above and that every flow can eventually start
 * (no dependency cycle, enough trigger activations). 0 or UET_ERR_INVAL.
 */
int uet_wl_validate(const struct uet_wl *wl, char *err, size_t errlen);

/* Mean of the web-search size distribution used by UET_WL_WEBSEARCH. */
double uet_wl_websearch_mean_bytes(void);

/*
 * Per-process tracker. local[rank] (wl->hosts entries) says whether this
 * process runs that rank. All now_ns are nanoseconds since the run's t = 0,
 * the same origin as the flows' start_ns; the caller chooses it (e.g. the
 * end of a start barrier). The tracker keeps a pointer to wl: wl must
 * outlive it and not change.
 *
 * create: 0, UET_ERR_INVAL (NULL argument, invalid wl) or UET_ERR_NOMEM.
 */
struct uet_wl_run;
int uet_wl_run_create(const struct uet_wl *wl, const bool *local, struct uet_wl_run **out);
void uet_wl_run_free(struct uet_wl_run *r);

/*
 * Flows whose src is local, whose start_ns <= now_ns and whose deps are
 * met, not returned before: writes up to max ids, in (start_ns, id)
 * order, marks them started and returns how many.
 */
uint32_t uet_wl_run_ready(struct uet_wl_run *r, uint64_t now_ns, uint32_t *ids, uint32_t max);

/*
 * Smallest start_ns of a local flow whose deps are met and that has not
 * been returned yet, UINT64_MAX if none. A value <= now means
 * uet_wl_run_ready() has more to return now (it was called with a small
 * max); otherwise sleep/poll until then or until the next event.
 */
uint64_t uet_wl_run_next_ns(const struct uet_wl_run *r);

/*
 * The flow's message is completely sent (acknowledged) at its src, which
 * must be local and must have been returned by uet_wl_run_ready(). 0,
 * UET_ERR_INVAL (unknown id, src not local, never started) or
 * UET_ERR_DUPLICATE (reported before; nothing changes).
 */
int uet_wl_run_send_done(struct uet_wl_run *r, uint32_t id, uint64_t now_ns);
/* The flow's message is completely received at its dst, which must be
 * local. 0, UET_ERR_INVAL (unknown id, dst not local) or
 * UET_ERR_DUPLICATE. */
int uet_wl_run_recv_done(struct uet_wl_run *r, uint32_t id, uint64_t now_ns);

/* Every flow with a local src is send-done and every flow with a local dst
 * is recv-done. */
bool uet_wl_run_done(const struct uet_wl_run *r);

/* What this process saw of one flow; UINT64_MAX for what it has not seen
 * (or cannot: the start and send-done of a remote src, the recv-done of a
 * remote dst). */
struct uet_wl_times {
	uint64_t start_ns;     /* returned by uet_wl_run_ready() */
	uint64_t send_done_ns;
	uint64_t recv_done_ns;
};
/* 0, or UET_ERR_INVAL for an unknown id. */
int uet_wl_run_times(const struct uet_wl_run *r, uint32_t id, struct uet_wl_times *t);

#ifdef UET_WORKLOAD_INTERNAL
/* Shared by pattern.c, cm.c and run.c; not part of the API. */
struct uet_wl_bld {
	struct uet_wl *wl;
	uint32_t flow_cap, dep_cap;
};
/* Make *arr hold at least `need` elements of `elem` bytes (doubling). */
int uet_wl_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem);
/* Append *f (id, dep_first, ndeps and deps_needed are set here); 0,
 * UET_ERR_INVAL past UET_WL_MAX_FLOWS or UET_ERR_NOMEM. */
int uet_wl_bld_flow(struct uet_wl_bld *b, const struct uet_wl_flow *f, char *err, size_t errlen);
/* Add a dependency to the last flow appended (an exact duplicate is
 * dropped); deps_needed follows ndeps. */
int uet_wl_bld_dep(struct uet_wl_bld *b, uint32_t flow, enum uet_wl_on on, char *err,
		   size_t errlen);
int uet_wl_cm_load(const struct uet_wl_spec *s, struct uet_wl_bld *b, char *err, size_t errlen);
void uet_wl_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The first flow that can never start (its deps wait on events that never
 * come: a cycle, too few trigger activations), UINT32_MAX if none, or
 * UET_ERR_NOMEM as a negative int64. */
int64_t uet_wl_first_stuck(const struct uet_wl *wl);
/* Reverse dependency index over flows with keep[src] (all flows when keep
 * is NULL): the flows waiting on event e = 2 * g + on are
 * list[first[e] .. first[e + 1]). Arrays are malloc'ed; 0 or NOMEM. */
int uet_wl_rev_index(const struct uet_wl *wl, const bool *keep, uint32_t **first,
		     uint32_t **list);
#endif

#endif /* UET_WORKLOAD_WORKLOAD_H_ */
