/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_DRIVER_DRIVER_H_
#define UET_DRIVER_DRIVER_H_

/*
 * The workload driver shared by uet-perf (one per lcore) and uet-sim (one
 * for the whole fabric): it turns a workload (lib/workload) into messages
 * on the endpoints of the local ranks, feeds their completions to the
 * flow tracker and the measurement (lib/report), and fills and checks
 * payloads for --verify. It owns no endpoint and reads no clock: the
 * caller forwards the endpoints' callbacks, calls uet_drv_step() when
 * flows may start, and sends through the callback it configured.
 *
 * Two kinds of run:
 * - iterations: every flow is one message, tag = flow id; done when every
 *   local flow completed (or failed);
 * - streams (repeat): every flow is a stream of messages of its size,
 *   tag = sequence << 32 | flow id, with `parallel` in flight, until the
 *   caller stops the driver; a message that fails (its PDC gave up after
 *   the retry limit) ends its stream, and when every local stream ended
 *   and no stream from elsewhere comes in, the driver is done. A
 *   ping-pong's two streams take turns instead: a ping goes at the start
 *   and after each pong's arrival (the round trip a sample of the
 *   measurement's), a pong after each ping's; a failure ends both.
 * A message refused for lack of endpoint resources (UET_ERR_NOBUFS) waits
 * in its source rank's queue and goes first at the next step.
 */

#include <stdbool.h>
#include <stdint.h>

#include "conf/conf.h"
#include "report/report.h"
#include "uet/uet.h"
#include "workload/workload.h"

#define UET_DRV_FLOW_MASK 0xffffffffULL

struct uet_drv_cfg {
	const struct uet_wl *wl;       /* must outlive the driver */
	const bool *local;             /* wl->hosts entries: the ranks driven here */
	bool repeat;                   /* streams */
	uint32_t parallel;             /* streams: messages in flight each; 0 = 1 */
	uint64_t rate_bps;             /* streams: the k-th message of each not
					* before uet_wl_paced_ns(size, rate, k)
					* after the start; 0: unpaced */
	bool verify;                   /* check every received byte */
	/* A message whose PDC gave up on its peer (UET_ERR_TIMEOUT: the
	 * retry limit passed without an answer) marks that rank dead: every
	 * message to it that waits here, or comes later, fails at once
	 * instead of spending the retry limit again (a killed or frozen
	 * peer ends an -n run in one retry limit, not one per message). A
	 * message to it that is acknowledged after all clears the mark.
	 * Off where a peer cut off for a while comes back (a simulated
	 * fabric's failure and repair). */
	bool fail_dead_peers;
	/* wl->hosts entries: each rank's address. A message counts for flow
	 * f only when it came from rank f->src's address (tag alone could be
	 * anyone's: a stranger's, another run's); others are counted
	 * (foreign_msgs) and ignored. NULL: the tag alone. */
	const uint32_t *rank_ip;
	/* Send r (stream, length, tag set) for flow f from the endpoint of
	 * rank f->src to rank f->dst's address, which the caller fills in,
	 * at now_ns: 0 (queued), UET_ERR_NOBUFS (try again after a
	 * completion) or another UET_ERR_* (the message fails at once). The
	 * caller wakes the endpoint up. */
	int (*send)(void *ctx, const struct uet_wl_flow *f, struct uet_send_req *r,
		    uint64_t now_ns);
	/* A flow sent from here failed and its receiver is not driven here
	 * (another lcore of the process): tell its driver with
	 * uet_drv_peer_gave_up(). Optional. */
	void (*gave_up)(void *ctx, uint32_t flow, uint64_t now_ns);
	void *ctx;
};

struct uet_drv_stats {
	uint64_t progress;             /* bytes received plus messages
					* delivered or acknowledged (not
					* failed ones: a dead peer is no
					* progress) */
	uint64_t rx_bytes;
	uint64_t verify_checked, verify_bad; /* messages */
	uint64_t send_errors;          /* sends refused for good */
	uint64_t streams_ended;        /* streams stopped by a failed message */
	uint64_t dead_peer_msgs;       /* messages failed unsent: their
					* destination was dead
					* (fail_dead_peers) */
	uint32_t dead_peers;           /* ranks marked dead (now) */
	uint64_t foreign_msgs;         /* messages whose sender is not their
					* flow's (rank_ip) */
};

struct uet_drv;

/* 0, UET_ERR_INVAL (NULL or inconsistent config) or UET_ERR_NOMEM. */
int uet_drv_create(const struct uet_drv_cfg *c, struct uet_drv **out);
void uet_drv_destroy(struct uet_drv *d);

/* t = 0: from now on completions are recorded in m (the caller's,
 * created with start_ns = t0_ns and these flows) and flows start. */
void uet_drv_begin(struct uet_drv *d, struct uet_meas *m, uint64_t t0_ns);
/* The end: nothing more is sent or recorded (late completions ignored). */
void uet_drv_stop(struct uet_drv *d);
bool uet_drv_running(const struct uet_drv *d);

/* Start what may start by now_ns (iterations: flows whose time and
 * dependencies came; streams: one message per free slot). */
void uet_drv_step(struct uet_drv *d, uint64_t now_ns);
/* When uet_drv_step has work next: now or earlier if something waits
 * (a refused send, a flow ready), a flow's start time or a paced
 * stream's next message, or UINT64_MAX until a completion. */
uint64_t uet_drv_next_ns(const struct uet_drv *d);
/* Iterations: every local flow completed at its local ends. Streams:
 * every local stream ended by a failure and none comes in from a rank
 * driven elsewhere (those end with the duration). */
bool uet_drv_done(const struct uet_drv *d);
const struct uet_drv_stats *uet_drv_stats(const struct uet_drv *d);

/* The endpoints' callbacks, forwarded (any endpoint of a local rank). */
void uet_drv_rx_data(struct uet_drv *d, const struct uet_rx_data *x, uint64_t now_ns);
void uet_drv_rx_msg(struct uet_drv *d, const struct uet_rx_msg *x);
void uet_drv_tx_done(struct uet_drv *d, const struct uet_tx_done *x, uint64_t now_ns);
/* The sender of flow (whose receiver is driven here) failed it. */
void uet_drv_peer_gave_up(struct uet_drv *d, uint32_t flow, uint64_t now_ns);

/* The workload options (pattern, sizes, iterations or duration, streams,
 * seed, ...) as a spec for nranks ranks; *repeat: a duration run of
 * streams. The caller sets size_bytes per sweep step. 0 or -1 with a
 * reason naming the option. */
int uet_drv_spec_from_opts(const struct uet_perf_opts *o, uint32_t nranks, uint64_t link_bps,
			   struct uet_wl_spec *s, bool *repeat, char *err, size_t errlen);

/* The --verify payload: a function of (tag, byte offset), different for
 * every message and every 8 bytes, the same on every host. fill has the
 * shape of the endpoints' fill callbacks (ctx unused). */
void uet_drv_fill(void *ctx, const struct uet_tx_meta *m, uint8_t *payload);
bool uet_drv_payload_ok(uint64_t tag, uint64_t off, const uint8_t *data, uint32_t len);

#endif /* UET_DRIVER_DRIVER_H_ */
