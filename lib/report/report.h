/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_REPORT_H_
#define UET_REPORT_H_

/*
 * lib/report: measurement and reports shared by uet-perf (DPDK) and uet-sim,
 * so both produce the same JSON schema (doc/report.md).
 *
 * struct uet_meas collects, for one process:
 *   - per flow: submit, send completion (+ status), receive completion;
 *   - a goodput timeline: received and sent bytes per bin of bin_ns, and the
 *     retransmissions per bin (from the transport counters);
 *   - per EV: packets sent and CE-marked ACKs;
 *   - timeline events ("fail-ev", "exec", "sigint", ...);
 *   - the transport counters (struct uet_ep_stats summed over endpoints);
 *   - payload verification results.
 * The report functions turn it into iperf3-like JSON, a JSON stream (one
 * object per line), CSV and perftest / nccl-tests style tables.
 *
 * No call reads a clock: every time is the caller's now_ns (any nanosecond
 * clock, the same for every call of one struct uet_meas). Output goes only
 * to the FILE * passed in. Not thread-safe: one struct uet_meas per process
 * (or per thread, reported separately).
 *
 * Bad input (a flow id out of range, an EV outside the set, a time before
 * the run start, ...) is never fatal: the call returns UET_ERR_INVAL, the
 * input is ignored and counted in struct uet_meas_bad (reported as
 * end.bad_input).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "uet/uet.h"

/* Bumped when a field of the JSON changes meaning or is removed. */
#define UET_REPORT_SCHEMA_VERSION 1

#define UET_MEAS_DEFAULT_BIN_NS 100000ULL    /* 100 us */
/* Timeline bins, and intervals, kept: past it the timeline's bins widen. */
#define UET_MEAS_DEFAULT_MAX_BINS (1U << 20)  /* 105 s at 100 us, <= 24 MiB */
#define UET_MEAS_DEFAULT_MAX_EVENTS 65536U
#define UET_MEAS_DEFAULT_MAX_FCT (1U << 22)   /* 32 MiB of samples */
#define UET_MEAS_EVENT_KIND_MAX 32   /* bytes with the NUL; longer is cut */
#define UET_MEAS_EVENT_DETAIL_MAX 128

/* One flow (message) of the workload, known to every process. */
struct uet_meas_flow {
	uint32_t src;        /* rank */
	uint32_t dst;        /* rank */
	uint64_t size_bytes;
	uint32_t stream;
	uint32_t step;
};

struct uet_meas_config {
	/* Flows 0..n_flows-1 (copied). n_flows may be 0. */
	const struct uet_meas_flow *flows;
	uint32_t n_flows;
	/* rank_local[r] says whether rank r lives in this process; every flow's
	 * src and dst must be < n_ranks. NULL: every rank is local (the
	 * simulator). A flow is local when its src or its dst is local;
	 * the others are "remote": ignored, never reported as missing. */
	const bool *rank_local;
	uint32_t n_ranks;
	/* The clock each rank's times were taken on (n_ranks entries; e.g.
	 * the process that measured it, when one process merges the others'
	 * results), UINT32_MAX for a clock of its own; NULL: one clock for
	 * all; read by uet_meas_create() only. The receiver's FCT
	 * (recv_done - submit) is known only where src and dst share a
	 * clock: across hosts it would hold the offset between their
	 * clocks. */
	const uint32_t *rank_clock;
	/* EVs ev_base .. ev_base + ev_count - 1 (ev_base + ev_count <= 65536). */
	uint16_t ev_base;
	uint32_t ev_count;
	uint64_t start_ns;      /* run start: time 0 of timeline, FCT, events */
	/* Timeline bin; 0: UET_MEAS_DEFAULT_BIN_NS. A run longer than
	 * max_bins bins doubles their width, merging pairs, as often as it
	 * needs to (uet_meas_timeline_bin_ns() gives the width now). */
	uint64_t bin_ns;
	/* Interval reports (iperf3 -i); a multiple of bin_ns; 0: none. The
	 * intervals keep their own sums (no widening blurs them), up to
	 * max_bins intervals. */
	uint64_t interval_ns;
	uint32_t max_bins;      /* 0: UET_MEAS_DEFAULT_MAX_BINS */
	uint32_t max_events;    /* 0: UET_MEAS_DEFAULT_MAX_EVENTS */
	/* Streams (duration runs): each flow is a stream of messages of
	 * size_bytes sent back to back until the run ends; completions are
	 * reported per message with uet_meas_msg_acked() /
	 * uet_meas_msg_received(), and the FCT summary is over messages. */
	bool repeat;
	uint32_t max_fct_samples; /* repeat: FCTs kept; past it a uniform
				   * reservoir sample; 0: UET_MEAS_DEFAULT_MAX_FCT */
	/* iperf3 -O: the first omit_ns after start_ns are a warm-up, not
	 * measured (a multiple of bin_ns, and of interval_ns when set). Byte
	 * samples then go to the timeline only, completions, FCTs and
	 * round trips are not counted, and the intervals are flagged
	 * omitted; the counters without a time (transport, NIC, network,
	 * EVs) count from uet_meas_omit_end(), which the caller calls at
	 * start_ns + omit_ns (or at the end of a run that stops sooner). */
	uint64_t omit_ns;
	/* The endpoints spoke UET 1.0 only (uet_ep_config.strict): the
	 * reports say so, and that their spurious-retransmission counts are
	 * what the RETX echo alone could show. */
	bool uet_strict;
};

/* Ignored input, by kind. */
struct uet_meas_bad {
	uint64_t flow;          /* id out of range, remote flow, repeated call */
	uint64_t ev;            /* EV outside ev_base .. ev_base + ev_count - 1 */
	uint64_t time;          /* byte sample before start_ns */
	uint64_t stats;         /* a transport counter went backwards */
	uint64_t timeline_full; /* samples no bin or interval took (out of
				 * memory, past max_bins intervals); still
				 * in the totals */
	uint64_t events_full;   /* events past max_events */
};

/* FCT summary over the completed (status ok) local flows with a known FCT.
 * Percentiles are nearest-rank: the value of rank ceil(p/100 * count) in
 * ascending order (p50 of 1..1000 is 500, p99 990, p99.9 999). */
/* The points of a summary's CDF, in thousandths of a percent (p50 is
 * 50000): every whole percent from 0 (the minimum) to 100 (the maximum),
 * and 99.5, 99.9 and 99.99 among them, ascending. */
#define UET_MEAS_CDF_POINTS 104
extern const uint32_t uet_meas_cdf_p_milli[UET_MEAS_CDF_POINTS];

struct uet_meas_fct {
	uint64_t count;
	uint64_t min_ns, mean_ns, p50_ns, p99_ns, p999_ns, max_ns; /* mean floored */
	uint64_t cdf_ns[UET_MEAS_CDF_POINTS]; /* the percentile at each point */
};

/* Flow status at report time. */
enum uet_meas_flow_status {
	UET_MEAS_REMOTE = 0,  /* neither src nor dst is local */
	UET_MEAS_PENDING,     /* local, not complete yet (missing at the end) */
	UET_MEAS_OK,          /* every local end completed */
	UET_MEAS_FAILED,      /* send completion with status != 0 */
};

#define UET_MEAS_NO_TIME UINT64_MAX

/* What is known about one flow. Times are the caller's now_ns, or
 * UET_MEAS_NO_TIME. */
struct uet_meas_flow_rec {
	struct uet_meas_flow flow;
	uint64_t submit_ns, send_done_ns, recv_done_ns;
	int send_status;
	enum uet_meas_flow_status status;
	/* Flow completion times, UET_MEAS_NO_TIME unless the status is ok and
	 * both ends of the interval are known here. fct_ns is the sender's,
	 * send_done - submit: the message is acknowledged (the UEC reference
	 * simulator's "finished at"); fct_recv_ns the receiver's,
	 * recv_done - submit: its last byte arrived (src and dst local, on
	 * one clock). */
	uint64_t fct_ns;
	uint64_t fct_recv_ns;
	/* Streams (cfg.repeat): messages and bytes completed at each local
	 * end; submit_ns is the first message's, send_done_ns / recv_done_ns
	 * the last completion's; fct_ns stays UET_MEAS_NO_TIME. One-shot
	 * flows: 1 / size_bytes once the end completed. */
	uint64_t msgs_acked, msgs_failed, msgs_received;
	uint64_t bytes_acked, bytes_received;
};

/* One timeline event (uet_meas_event()). */
struct uet_meas_event {
	uint64_t now_ns;
	char kind[UET_MEAS_EVENT_KIND_MAX];
	char detail[UET_MEAS_EVENT_DETAIL_MAX];
};

/* One interval report, times relative to start_ns. */
struct uet_meas_interval {
	uint64_t start_ns, end_ns;
	uint64_t rx_bytes, tx_bytes, retx_pkts;
	bool omitted;        /* inside cfg.omit_ns: not in the totals */
};

struct uet_meas;

/* Create. Returns 0, UET_ERR_INVAL (interval_ns not a multiple of bin_ns, EV
 * range past 65535, a rank >= n_ranks, NULL flows with n_flows > 0) or
 * UET_ERR_NOMEM. */
int uet_meas_create(const struct uet_meas_config *cfg, struct uet_meas **out);
void uet_meas_destroy(struct uet_meas *m);

/* Flow life cycle. submit and send_done need a local src, recv_done a local
 * dst; each is recorded once (a repeat is bad input). status: 0 or the
 * UET_ERR_* of the transport's tx_done. The FCT is send_done - submit (the
 * sender's view, the ACK's return included); the receiver's FCT,
 * recv_done - submit, is known where src and dst are local; a receiver
 * alone has neither. Return 0 or UET_ERR_INVAL. */
int uet_meas_submit(struct uet_meas *m, uint32_t flow, uint64_t now_ns);
int uet_meas_send_done(struct uet_meas *m, uint32_t flow, uint64_t now_ns,
		       int status);
int uet_meas_recv_done(struct uet_meas *m, uint32_t flow, uint64_t now_ns);

/* Streams (cfg.repeat): one message of the flow was acknowledged (status
 * 0) or failed, at its local src; FCT = done_ns - submit_ns (the sender's
 * view). / One message of the flow arrived whole at its local dst. Return 0
 * or UET_ERR_INVAL (not a repeat measurement, id out of range, end not
 * local, done before submit). */
int uet_meas_msg_acked(struct uet_meas *m, uint32_t flow, uint64_t submit_ns,
		       uint64_t done_ns, int status);
int uet_meas_msg_received(struct uet_meas *m, uint32_t flow, uint64_t now_ns);

/*
 * Add everything src measured to dst: two measurements of one workload in
 * one process (one per lcore, say), with the same flows, EV set, start and
 * bins; each flow end recorded in at most one of them. Flow times, bins,
 * totals, EV counters, events (appended), transport counters (summed),
 * verification, bad-input counters, FCT and RTT samples. 0 or UET_ERR_INVAL
 * (mismatched configurations; dst unchanged) or UET_ERR_NOMEM.
 */
int uet_meas_merge(struct uet_meas *dst, const struct uet_meas *src);

/* Streams: the FCT samples kept (unsorted) and how many were offered.
 * Adding samples that another process kept (merging across processes). */
const uint64_t *uet_meas_fct_samples(const struct uet_meas *m, size_t *n,
				     uint64_t *offered);
int uet_meas_add_fct_sample(struct uet_meas *m, uint64_t fct_ns);
/* Streams of a ping-pong: its round trips, each taken by the driver at
 * the pinger (from the ping handed to the transport to the pong's last
 * byte back); kept as the FCT samples are, up to max_fct_samples. */
const uint64_t *uet_meas_rtt_samples(const struct uet_meas *m, size_t *n,
				     uint64_t *offered);
int uet_meas_add_rtt_sample(struct uet_meas *m, uint64_t rtt_ns);
/* FCTs and round trips another process offered but did not send (past
 * its cap, or thinned for the control channel): they still count. */
void uet_meas_samples_unkept(struct uet_meas *m, uint64_t fct, uint64_t rtt);
/* Streams: restore a flow's counters exported by another process (its
 * local end(s) only; times as in struct uet_meas_flow_rec). 0 or
 * UET_ERR_INVAL. */
int uet_meas_stream_import(struct uet_meas *m, uint32_t flow,
			   const struct uet_meas_flow_rec *r);

/* Bytes received by / sent from local ranks at now_ns, into the timeline
 * bin and the interval of now_ns (each array doubles as needed) and the
 * totals. Return 0, UET_ERR_INVAL (now_ns < start_ns: ignored) or
 * UET_ERR_NOBUFS (no bin or interval took them, bad.timeline_full: in the
 * totals only). */
int uet_meas_rx_bytes(struct uet_meas *m, uint64_t now_ns, uint64_t bytes);
int uet_meas_tx_bytes(struct uet_meas *m, uint64_t now_ns, uint64_t bytes);

/* What another process measured, added as it counted it (merging across
 * processes): a timeline bin of width_ns (cfg.bin_ns times a power of two)
 * from t_ns, widening this timeline's bins to it first; an interval; the
 * totals; an EV's counters. The bin and the interval do not add to the
 * totals. Return 0, UET_ERR_INVAL (t_ns before start_ns or not a whole
 * number of width_ns from it, such a width; no intervals; an EV outside
 * the set) or UET_ERR_NOBUFS (no room). */
int uet_meas_timeline_add(struct uet_meas *m, uint64_t t_ns, uint64_t width_ns,
			  uint64_t rx_bytes, uint64_t tx_bytes, uint64_t retx_pkts);
int uet_meas_interval_add(struct uet_meas *m, size_t i, uint64_t rx_bytes, uint64_t tx_bytes,
			  uint64_t retx_pkts);
void uet_meas_totals_add(struct uet_meas *m, uint64_t rx_bytes, uint64_t tx_bytes);
int uet_meas_ev_add(struct uet_meas *m, uint16_t ev, uint64_t tx_pkts, uint64_t ce_acks);

/* One packet sent on ev / one ACK with CE for a packet sent on ev. Return 0
 * or UET_ERR_INVAL (ev outside the set). */
int uet_meas_ev_tx(struct uet_meas *m, uint16_t ev);
int uet_meas_ev_ce(struct uet_meas *m, uint16_t ev);

/* A timeline event; kind and detail (may be NULL) are copied, cut to
 * UET_MEAS_EVENT_*_MAX - 1 bytes, and kept in time order (ties in call
 * order). Returns 0, UET_ERR_INVAL (kind NULL) or UET_ERR_NOBUFS
 * (max_events reached; counted). */
int uet_meas_event(struct uet_meas *m, uint64_t now_ns, const char *kind,
		   const char *detail);

/* The current transport counters, summed over the process's endpoints
 * (cumulative, as uet_ep_stats() gives them). The increase of tx_retx_pkts
 * since the previous call goes to the bin and the interval of now_ns;
 * now_ns UET_MEAS_NO_TIME: to neither (the sum of processes whose bins and
 * intervals came with uet_meas_timeline_add() and uet_meas_interval_add()).
 * Returns 0 or UET_ERR_INVAL (a counter went backwards: taken as the new
 * baseline). */
int uet_meas_set_ep_stats(struct uet_meas *m, uint64_t now_ns,
			  const struct uet_ep_stats *sum);

/* What the network did, where the run sees it (uet-sim: the fabric's
 * ports); never set means unknown (uet-perf on a real fabric), and the
 * reports say so rather than print zeros. */
struct uet_meas_net {
	uint64_t drops;       /* packets the network dropped, any cause */
	uint64_t trims;       /* data packets cut to their headers */
	uint64_t ecn_marks;
};
void uet_meas_set_net(struct uet_meas *m, const struct uet_meas_net *n);
/* false: never set. */
bool uet_meas_net(const struct uet_meas *m, struct uet_meas_net *out);

/* What the hosts' ports dropped, by cause (uet-perf's DPDK glue; uet-sim's
 * fabric counts its own in uet_meas_net). */
struct uet_meas_nic {
	uint64_t tx_full;         /* sends that waited for room in a TX queue */
	uint64_t tx_fail_ev;      /* blackholed by the fail-EV hook */
	uint64_t tx_no_neigh;     /* no MAC for the next hop yet */
	uint64_t tx_no_mbuf;      /* mbuf pool empty: the send waited */
	uint64_t rx_csum_drops;   /* bad IPv4/UDP checksum */
	uint64_t rx_other_drops;  /* not UET for this host */
	/* The lcores not keeping up: */
	uint64_t rx_missed;       /* the ports' RX rings overflowed (imissed) */
	uint64_t rx_no_mbuf;      /* the ports found no mbuf to receive into */
	uint64_t steer_drops;     /* another lcore's inbox was full */
	uint64_t late_polls;      /* polls after the lcore had been away (descheduled) */
	/* Where the UDP checksums were made (uet-perf's hosts): */
	uint64_t tx_csum_offloaded; /* frames whose checksums the port filled */
	uint64_t rx_csum_offloaded; /* frames whose checksums the port verified */
	uint64_t tx_csum_fused;     /* software checksums that took the sum made
				     * as the payload was copied in */
};
/* The fields of struct uet_meas_nic, in order (the JSON's names). */
#define UET_MEAS_NIC_FIELDS(X) \
	X(tx_full) X(tx_fail_ev) X(tx_no_neigh) X(tx_no_mbuf) X(rx_csum_drops) \
	X(rx_other_drops) X(rx_missed) X(rx_no_mbuf) X(steer_drops) X(late_polls) \
	X(tx_csum_offloaded) X(rx_csum_offloaded) X(tx_csum_fused)
void uet_meas_set_nic(struct uet_meas *m, const struct uet_meas_nic *n);
/* dst += sign x src, field by field (sign 1 or -1). */
void uet_meas_nic_add(struct uet_meas_nic *dst, const struct uet_meas_nic *src, int sign);
/* false: never set. */
bool uet_meas_nic(const struct uet_meas *m, struct uet_meas_nic *out);

/* X(field) for every field of struct uet_ep_stats, in declaration order
 * (measure.c checks at compile time that none is missing). */
#define UET_EP_STATS_FIELDS(X) \
	X(tx_pkts) X(tx_data_pkts) X(tx_data_bytes) X(tx_retx_pkts) \
	X(tx_ack_pkts) X(tx_nack_pkts) X(tx_probe_pkts) X(tx_close_pkts) \
	X(rx_pkts) X(rx_data_pkts) X(rx_data_bytes) X(rx_ooo_pkts) \
	X(rx_ce_pkts) X(rx_trimmed_pkts) X(rx_ack_pkts) X(rx_nack_pkts) \
	X(rx_probe_pkts) X(rx_foreign_ev) X(rx_dup_pkts) X(rx_malformed) \
	X(rx_unsupported) X(rx_unknown_pdc) X(rx_psn_window) X(rx_bad_ack) \
	X(rx_stale) X(rx_no_resources) X(rx_foreign_job) X(rx_foreign_addr) \
	X(nack_retx) X(nack_deferred) \
	X(loss_inferred) X(probe_losses) X(rto_events) X(rto_lost_pkts) \
	X(rto_deferred) X(spurious_retx) X(spurious_losses) X(spurious_rto) X(loss_undos) \
	X(rtt_samples) X(msgs_submitted) X(msgs_acked) X(msgs_failed) \
	X(msgs_delivered) X(msgs_aborted) X(pdcs_opened) X(pdcs_closed) \
	X(pdcs_failed) X(timewait_evictions) X(path_failures) X(lb_freezes) \
	X(lb_thaws) X(lb_repaths) X(ctrl_queue_drops) X(tx_window_waits) \
	X(tx_credit_pkts) X(tx_credit_req_pkts) X(rx_credit_pkts) X(rx_credit_req_pkts) \
	X(credit_granted_bytes) X(credit_retries) X(credit_idle_bytes) \
	X(tx_dup_acks) X(tx_carry_acks)

/* The received packets the endpoint discarded for a reason other than
 * being a duplicate (rx_dup_pkts, counted apart: a duplicate is a
 * spurious or network-made copy, not a problem of the packet). */
#define UET_EP_STATS_DISCARD_FIELDS(X) \
	X(rx_malformed) X(rx_unsupported) X(rx_unknown_pdc) \
	X(rx_psn_window) X(rx_bad_ack) X(rx_stale) X(rx_no_resources) \
	X(rx_foreign_job) X(rx_foreign_addr)

/* sum->x += one->x for every field of struct uet_ep_stats. */
void uet_meas_add_ep_stats(struct uet_ep_stats *sum,
			   const struct uet_ep_stats *one);

/* The end of the warm-up (cfg.omit_ns): the transport, NIC and network
 * counters as last set, and the EV counters, become the zero of what the
 * reports count. Call it after setting those counters at that time;
 * once (later calls do nothing). */
void uet_meas_omit_end(struct uet_meas *m);
/* Whether now_ns is past the warm-up: what the caller counts itself (a
 * ping-pong's round trips, packets per EV) only then. */
bool uet_meas_measuring(const struct uet_meas *m, uint64_t now_ns);

/* Payload verification results to add (messages checked, mismatches). */
void uet_meas_verify(struct uet_meas *m, uint64_t checked_msgs,
		     uint64_t bad_msgs);

/* ---- read back (tests, apps) ---- */

const struct uet_meas_config *uet_meas_config(const struct uet_meas *m);
const struct uet_meas_bad *uet_meas_bad(const struct uet_meas *m);
/* The timeline's bin width now: cfg.bin_ns, doubled at each widening. */
uint64_t uet_meas_timeline_bin_ns(const struct uet_meas *m);
/* Bins in use (index of the last bin with a sample, plus one). */
size_t uet_meas_bin_count(const struct uet_meas *m);
/* Bin i's counters (zero past the bins in use): from i x
 * uet_meas_timeline_bin_ns() after start_ns. */
void uet_meas_bin(const struct uet_meas *m, size_t i, uint64_t *rx_bytes,
		  uint64_t *tx_bytes, uint64_t *retx_pkts);
void uet_meas_totals(const struct uet_meas *m, uint64_t *rx_bytes,
		     uint64_t *tx_bytes);
/* Counters of ev; UET_ERR_INVAL outside the set. */
int uet_meas_ev_get(const struct uet_meas *m, uint16_t ev, uint64_t *tx_pkts,
		    uint64_t *ce_acks);
/* A flow's record; UET_ERR_INVAL for an id out of range. */
int uet_meas_flow_get(const struct uet_meas *m, uint32_t flow,
		      struct uet_meas_flow_rec *out);
size_t uet_meas_event_count(const struct uet_meas *m);
const struct uet_meas_event *uet_meas_event_get(const struct uet_meas *m,
						size_t i);
/* The counters of the last uet_meas_set_ep_stats() (zero before), less
 * those at uet_meas_omit_end(). */
const struct uet_ep_stats *uet_meas_ep_stats(const struct uet_meas *m);
void uet_meas_verify_get(const struct uet_meas *m, uint64_t *checked_msgs,
			 uint64_t *bad_msgs);
/* FCT summary (allocates a temporary array). 0 or UET_ERR_NOMEM.
 * uet_meas_fct: the senders' view (fct_ns; streams: every message's);
 * uet_meas_fct_recv: the receivers' (fct_recv_ns; none for streams). */
int uet_meas_fct(const struct uet_meas *m, struct uet_meas_fct *out);
int uet_meas_fct_recv(const struct uet_meas *m, struct uet_meas_fct *out);
/* Round trips of a ping-pong: for each pair i whose two flows are ok and
 * whose times are known here, rtt = recv_done(back_flow[i]) -
 * submit(out_flow[i]) (the answer back at the first message's sender,
 * since it was handed to the transport). The summary (nearest-rank
 * percentiles, as struct uet_meas_fct) and the sample standard deviation
 * (n - 1; 0 below two round trips). Streams (cfg.repeat): the pairs are
 * ignored, and the summary is over the round-trip samples (count: every
 * one offered). 0, UET_ERR_INVAL (NULL arrays) or UET_ERR_NOMEM. */
struct uet_meas_rtt {
	struct uet_meas_fct rtt;
	uint64_t stdev_ns;
};
int uet_meas_rtt(const struct uet_meas *m, const uint32_t *out_flow, const uint32_t *back_flow,
		 size_t n_pairs, struct uet_meas_rtt *out);
/* The run succeeded at this process's flows: none failed and, unless the
 * flows are streams (which end with the run), none is still pending. */
bool uet_meas_flows_ok(const struct uet_meas *m);
/* Last local completion (send_done or recv_done, ok or failed) minus
 * start_ns; false when no local flow completed. */
bool uet_meas_completion_ns(const struct uet_meas *m, uint64_t *ns);
/* Nearest-rank percentile of sorted[0..n-1]; p_milli in thousandths of a
 * percent (99900 = p99.9), 1..100000. 0 when n == 0. */
uint64_t uet_meas_percentile(const uint64_t *sorted, size_t n,
			     uint32_t p_milli);

/* Intervals up to now_ns: the full ones ending at or before now_ns, plus,
 * when partial, the one now_ns falls in (cut at now_ns). 0 without
 * interval_ns. */
size_t uet_meas_interval_count(const struct uet_meas *m, uint64_t now_ns,
			       bool partial);
void uet_meas_interval_get(const struct uet_meas *m, size_t i, uint64_t now_ns,
			   struct uet_meas_interval *out);
/* A run's last, partial interval, len_ns long, is shown (text, JSON and
 * JSON stream alike) unless, as iperf3 has it, it is shorter than a tenth
 * of interval_ns and nothing was counted in it. */
bool uet_meas_tail_shown(uint64_t len_ns, uint64_t interval_ns, bool counted);

/* ---- reports (report.c) ---- */

/* nccl-tests bus bandwidth factor (doc/PERFORMANCE.md): allreduce
 * 2(n-1)/n; reducescatter, allgather, alltoall (n-1)/n; broadcast, reduce,
 * sendrecv 1. Negative for an unknown op or n_ranks == 0. */
double uet_report_busbw_factor(const char *op, uint32_t n_ranks);

/* A collective's result, nccl-tests style: size_bytes is nccl-tests' S (the
 * whole array for allgather/reducescatter/alltoall), time_ns the time of
 * one iteration. algbw = S / time, busbw = algbw x factor, in GB/s = 1e9
 * bytes/s. */
struct uet_report_coll {
	const char *op;
	uint32_t n_ranks;
	uint64_t size_bytes;
	uint64_t time_ns;
};

/* What the report says beyond the measurement. Every pointer may be NULL. */
struct uet_report_info {
	const char *version;     /* start.version, e.g. "uet-perf 0.1.0" */
	const char *timestamp;   /* start.timestamp.time, caller-formatted */
	uint64_t timestamp_s;    /* start.timestamp.timesecs (epoch) */
	/* start.test_start: deep-copied; report adds n_flows, n_ranks, ev_base,
	 * ev_count, bin_ns, interval_ns (replacing keys of the same name). */
	const json_t *test_start;
	const struct uet_report_coll *coll; /* end.collective */
	const struct uet_meas_rtt *rtt;     /* end.latency (a ping-pong) */
	const char *error;       /* top-level "error" */
	/* end.<extra_key>: a caller's object, deep-copied (uet-sim's fabric
	 * counters). */
	const char *extra_key;
	const json_t *extra;
	bool no_flows;           /* omit end.flows (large runs) */
	bool no_timeline;        /* omit end.timeline arrays */
};

/* The whole report {start, intervals, end[, error]} for a run that ended at
 * end_ns (intervals include the partial last one). New reference, NULL when
 * out of memory. */
json_t *uet_report_json(const struct uet_meas *m,
			const struct uet_report_info *info, uint64_t end_ns);
/* uet_report_json() written to f, indented, then a newline. 0,
 * UET_ERR_NOMEM, or UET_ERR_INVAL (NULL argument or write error). */
int uet_report_write_json(FILE *f, const struct uet_meas *m,
			  const struct uet_report_info *info, uint64_t end_ns);

/* --json-stream: one compact object per line. The caller zeroes a
 * struct uet_report_stream and sets f. start: {"event":"start",
 * "data":start}. intervals: an {"event":"interval","data":interval} line
 * for each full interval ended by now_ns not yet written; returns how many
 * or a negative error. end: the remaining intervals (the partial one
 * included), then {"event":"end","data":end}. error: {"event":"error",
 * "data":msg}. The others return 0, UET_ERR_NOMEM or UET_ERR_INVAL (NULL
 * argument or write error). */
struct uet_report_stream {
	FILE *f;
	size_t intervals_done;
};

int uet_report_stream_start(struct uet_report_stream *s,
			    const struct uet_meas *m,
			    const struct uet_report_info *info);
int uet_report_stream_intervals(struct uet_report_stream *s,
				const struct uet_meas *m, uint64_t now_ns);
int uet_report_stream_end(struct uet_report_stream *s, const struct uet_meas *m,
			  const struct uet_report_info *info, uint64_t end_ns);
int uet_report_stream_error(struct uet_report_stream *s, const char *msg);
/* One interval measured live (by counters rather than a uet_meas: several
 * lcores), as an {"event":"interval"} line; counts in intervals_done so
 * that uet_report_stream_end() does not repeat it. */
int uet_report_stream_interval(struct uet_report_stream *s,
			       const struct uet_meas_interval *iv);

/* CSV with a header line. Timeline: a row per bin up to end_ns (at least
 * the bins in use): bin_start_us,rx_bytes,tx_bytes,rx_gbps,tx_gbps,event
 * (the kinds of the bin's events joined by ';'). Flows: a row per local
 * flow: id,src,dst,stream,step,size_bytes,submit_us,send_done_us,
 * recv_done_us,fct_us,fct_recv_us,status (times relative to start, empty if
 * unknown).
 * 0 or UET_ERR_INVAL (write error). */
int uet_report_csv_timeline(FILE *f, const struct uet_meas *m, uint64_t end_ns);
int uet_report_csv_flows(FILE *f, const struct uet_meas *m);

/* Human tables. perftest: " #bytes  #iterations  BW peak[Gb/sec]  BW
 * average[Gb/sec]  MsgRate[Mpps]" plus FCT p50/p99/p99.9/max [usec] over
 * the completed local flows. coll: nccl-tests header and one row per call
 * (#wrong = bad verified messages). summary: flows, completion time,
 * goodput, FCT, transport counters. 0, UET_ERR_NOMEM or UET_ERR_INVAL. */
int uet_report_perftest(FILE *f, const struct uet_meas *m);
/* The same table in parts, for a size sweep: the header once, a row per
 * size, the closing line at the end. */
int uet_report_perftest_header(FILE *f);
int uet_report_perftest_row(FILE *f, const struct uet_meas *m);
int uet_report_perftest_footer(FILE *f);
/* perftest's latency tests (ib_send_lat): " #bytes #iterations t_min
 * t_max t_typical t_avg t_stdev 99% 99.9% percentile" in usec, each half
 * the round trip (t_typical the median); the closing line is
 * uet_report_perftest_footer()'s. */
int uet_report_lat_header(FILE *f);
int uet_report_lat_row(FILE *f, uint64_t size_bytes, const struct uet_meas_rtt *r);
int uet_report_coll_header(FILE *f);
int uet_report_coll_row(FILE *f, const struct uet_report_coll *c,
			uint64_t wrong);
int uet_report_summary(FILE *f, const struct uet_meas *m, uint64_t end_ns);

#endif /* UET_REPORT_H_ */
