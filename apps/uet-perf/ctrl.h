/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PERF_CTRL_H_
#define UET_PERF_CTRL_H_

/*
 * The out-of-band control channel of a multi-process uet-perf run (as
 * perftest's TCP exchange, generalised to N ranks): rank 0 listens, every
 * other rank connects to it. Messages are JSON objects (jansson), each sent
 * as a 4-byte big-endian length and the compact text. The one collective
 * operation is an all-gather: every rank contributes an object and gets
 * back the array of all of them in rank order. Everything else (version and
 * config-hash check, address exchange, barrier, start, result gather) is
 * built from it. Every wait has a deadline; a peer that vanishes is an
 * error, never a hang.
 */

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

struct ctrl;

#define CTRL_RANK_ANY UINT32_MAX
#define CTRL_KEY_MIN_BYTES 16
#define CTRL_KEY_MAX_BYTES 64
/* A connection that has not proven itself within this long is dropped:
 * joining takes one round trip, and a slow or idle stranger must not hold
 * up the run (or fill the listen backlog) for the whole barrier. */
#define CTRL_HANDSHAKE_MS 3000
/* Connections in their handshake at once; a newer one pushes out the
 * oldest (a real peer finishes its handshake in a round trip). */
#define CTRL_MAX_PENDING 64

/* Who may join (all optional: NULL for ctrl_open means none of it). */
struct ctrl_opts {
	/* The run's secret: a peer proves it holds it (HMAC-SHA256 over both
	 * sides' fresh nonces, its rank and the run's size) before rank 0
	 * tells it anything about the run, and rank 0 proves it back. 0
	 * bytes: no key, anyone who reaches the port may join. */
	uint8_t key[CTRL_KEY_MAX_BYTES];
	size_t key_len;
	/* rank 0: the address to listen on (network order); 0 = every one. */
	uint32_t bind_ip;
	/* other ranks: the address to connect from (network order): the one
	 * rank 0 expects (allow_ip there); 0 = the kernel's choice. */
	uint32_t src_ip;
	/* rank 0: connections only from these addresses (network order);
	 * none: from anywhere. */
	const uint32_t *allow_ip;
	uint32_t n_allow;
};

/* Connections rank 0 turned away while the ranks joined, by reason. */
struct ctrl_refused {
	uint32_t address;   /* from an address outside allow_ip */
	uint32_t key;       /* no key, or a wrong one */
	uint32_t malformed; /* not the join message */
	uint32_t rank;      /* a rank taken, out of range, or another run size */
	uint32_t timeout;   /* no handshake within CTRL_HANDSHAKE_MS */
	uint32_t evicted;   /* pushed out by newer connections */
	uint32_t closed;    /* closed during the handshake */
	uint32_t unfinished; /* still in it when the last rank joined */
};

/* rank 0 listens on port and waits for nranks - 1 peers, handshaking with
 * every connection at once; other ranks connect to coord_ip:port,
 * retrying until timeout_ms, and rank 0 welcomes each with its rank and
 * nranks. A peer with rank CTRL_RANK_ANY (and nranks 0) takes the next
 * free rank, in the order peers finish their handshakes (a pairwise
 * client). Rank 0 stops listening once every rank joined. 0 or -1 with a
 * reason in err. */
int ctrl_open(uint32_t rank, uint32_t nranks, const char *coord_ip, uint16_t port,
	      uint32_t timeout_ms, const struct ctrl_opts *o, struct ctrl **out, char *err,
	      size_t errlen);
void ctrl_close(struct ctrl *c);
/* rank 0: what ctrl_open turned away; total in *n. */
const struct ctrl_refused *ctrl_refused(const struct ctrl *c, uint32_t *n);

/* The key in a file: hex, CTRL_KEY_MIN_BYTES to CTRL_KEY_MAX_BYTES of it,
 * the file readable by its owner only. With create, a missing file is
 * made (32 random bytes, mode 0600, written whole or not at all) and
 * *created set. 0, or -1 with a reason in err. */
int ctrl_key_file(const char *path, bool create, struct ctrl_opts *o, bool *created, char *err,
		  size_t errlen);
/* The key from hex text (an environment variable's); 0 or -1. */
int ctrl_key_hex(const char *hex, struct ctrl_opts *o, char *err, size_t errlen);
/* Every wait of the channel gives up within 0.1 s once *stop reaches the
 * stop level (1 unless set; *stop counts the signals: SIGINT, SIGTERM);
 * ctrl_interrupted() then says so. A run that one signal ended raises the
 * level to 2 for its end-of-run gather, which a second signal cuts off. */
void ctrl_set_stop(const volatile int *stop);
void ctrl_set_stop_level(int level);
bool ctrl_interrupted(void);

/* Stop notices, during a run: a process interrupted tells the others, so
 * that every process ends its run and the gather gets every result (as
 * iperf3's client tells its server). ctrl_send_stop: to rank 0, which
 * passes it on, or from rank 0 to every peer; 0 or -1 (some peer not
 * told). ctrl_watch: waits up to wait_ms for a stop notice and returns the
 * process that was interrupted (rank 0 passes the notice on), or -1;
 * anything else that arrives (a result sent by a process that ended its
 * run first) is left for the gather (ctrl_gather_each, ctrl_bcast), which
 * skips stop notices that come late. ctrl_watch_reset before each run.
 * Not thread-safe against other calls on c: one thread watches while the
 * run goes, none after. */
int ctrl_send_stop(struct ctrl *c);
void ctrl_watch_reset(struct ctrl *c);
/* ... and a process lost: its control connection closed (it exited or
 * was killed), *lost set; rank 0 tells the others (their watch returns
 * the same process, *lost set), so every process ends its run. */
int ctrl_watch(struct ctrl *c, uint32_t wait_ms, bool *lost);
uint32_t ctrl_rank(const struct ctrl *c);
uint32_t ctrl_nranks(const struct ctrl *c);

/* Gather at rank 0, one message at a time: there, take(ctx, r, msg) for
 * each rank r in order (its own mine first; msg is borrowed for the call);
 * elsewhere, mine is sent. 0, or -1 with a reason in err. mine is not
 * stolen. */
int ctrl_gather_each(struct ctrl *c, json_t *mine, uint32_t timeout_ms,
		     void (*take)(void *ctx, uint32_t rank, json_t *msg), void *ctx, char *err,
		     size_t errlen);
/* Broadcast from rank 0: returns (new reference) msg at rank 0, once sent to
 * every peer, and what rank 0 sent elsewhere; NULL with a reason in err.
 * msg (rank 0 only; not stolen). */
json_t *ctrl_bcast(struct ctrl *c, json_t *msg, uint32_t timeout_ms, char *err,
		   size_t errlen);
/* All-gather: returns (new reference) a JSON array of nranks objects, the
 * one of rank r at index r, or NULL with a reason in err. mine is not
 * stolen. */
json_t *ctrl_allgather(struct ctrl *c, json_t *mine, uint32_t timeout_ms, char *err,
		       size_t errlen);

#endif /* UET_PERF_CTRL_H_ */
