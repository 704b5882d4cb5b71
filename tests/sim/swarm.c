/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Seeded fault swarm (in the manner of TigerBeetle's VOPR). Each seed draws
 * its own fabric, endpoint configuration, workload and faults (loss,
 * duplication, reordering, corruption, blackholed paths; and, unless
 * --classic, injected ECN marks, uplink flaps with routing convergence, a
 * host link or a spine down for a while, a host cut off for good, PDC
 * tables of a few slots; requests from strangers: another job, an address
 * outside the run), runs a fault phase, heals the network and runs
 * until everything completes. It then requires that every message arrived
 * exactly once and byte-exact, every sender completion succeeded exactly
 * once, and every endpoint is idle (no PDC stuck). A message that may
 * rightly fail (the cut host's; any, with the tiny tables) must still end
 * once at its sender, succeed only if delivered, and arrive at most once.
 * A failing seed is printed with a one-line replay command; the same seed
 * replays the run exactly.
 *
 *   swarm [--seeds N] [--first S]    run seeds S .. S+N-1
 *   swarm --seed S [-v]              replay one seed, -v prints its draw
 *   swarm --list S1,S2,...           run these seeds (regressions)
 *   --lb NAME, --cc NAME             pin the load balancer / congestion
 *                                    control (default: each seed draws one
 *                                    of the registered ones, and its config)
 *   --loss-detect MODE               pin adaptive or nack-rto loss detection
 *                                    with an adaptive reordering window
 *   --sack-repeat yes|no             pin the receiver's SACK window rule
 *                                    (default: half the seeds repeat,
 *                                    none with --classic)
 *   --strict yes|no                  pin UET 1.0 only (no libuet wire
 *                                    extension; default: a quarter of
 *                                    the seeds, none with --classic or
 *                                    --list)
 *   --as-drawn                       --list seeds draw strict, PSNs
 *                                    across 2^32 and matching as a run
 *                                    of --seeds does (regressions found
 *                                    since those draws)
 *   --classic                        only the first swarm's fault kinds
 *                                    and congestion controllers
 *   --shuffle-ties                   the simulator runs events due at the
 *                                    same picosecond in a seeded random
 *                                    order (other interleavings of the
 *                                    same draws)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simwork.h"
#include "uet/frame.h"
#include "uet/wire.h"

struct draw {
	uint32_t spines, hpl;
	uint64_t rate_gbps, lat_ns, buf_bytes;
	bool ecn, trim;
	struct sim_fault fault;
	uint32_t blackholes;      /* fabric ports blackholed in the fault phase */
	uint32_t downs;           /* fabric links down in the fault phase */
	uint32_t slow;            /* fabric links at a quarter rate (stays) */
	uint64_t fault_ns;        /* length of the fault phase */
	/* The extra kinds (draw_extra; none with --classic): */
	uint32_t flaps;           /* a healthy uplink of leaf 0 down and up */
	uint64_t flap_conv_ns;    /* ... with routing convergence (0: blackhole) */
	int32_t host_down;        /* a host's link down for a while; -1 none */
	int32_t spine_down;       /* a spine switch down for a while; -1 none */
	int32_t cut_host;         /* a host cut off for good; -1 none */
	uint64_t cut_at_ns;
	int32_t crash_host;       /* a host whose process dies; -1 none */
	uint64_t crash_at_ns, restart_at_ns; /* ... and comes back */
	bool squeeze;             /* PDC tables far smaller than the peers */
	uint32_t strangers;       /* requests from outside the run during the
				   * fault phase (draw_strangers) */
	uint32_t msgs;
	struct uet_ep_config ep;
	struct uet_cc_fixed_cfg cc;
	struct uet_lb_ops_cfg lb;
	struct uet_lb_reps_cfg reps;
	struct uet_lb_bitmap_cfg bitmap;
	struct uet_lb_flowlet_cfg flowlet;
	struct uet_lb_plb_cfg plb;
	struct uet_cc_nscc_cfg nscc;
};

/* --lb / --cc; NULL = drawn per seed. */
static const struct uet_lb_ops *pin_lb;
static const struct uet_cc_ops *pin_cc;
/* --loss-detect: every seed with that mode and an adaptive window. */
static int pin_loss = -1;
/* --sack-repeat: 1 or 0 for every seed; -1 drawn. */
static int pin_sack = -1;
/* --strict: 1 or 0 for every seed; -1 drawn. */
static int pin_strict = -1;
/* --list: seeds replay as they were found, without the later draws
 * (strict, PSNs across 2^32, matching), unless --as-drawn. */
static bool listed, as_drawn;
/* --classic: only the fault kinds and congestion controllers of the first
 * swarms (regression seeds replay as they were found). */
static bool classic;
/* --shuffle-ties: sim_config.shuffle_ties for every seed. */
static bool shuffle_ties;
/* The pins above as options, for a failing seed's replay line. */
static char pins[256];

static uint32_t
count_lbs(void)
{
	const struct uet_lb_ops *const *l = uet_lb_all();
	uint32_t n = 0;

	while (l[n] != NULL)
		n++;
	return n;
}

static uint32_t
count_ccs(void)
{
	const struct uet_cc_ops *const *c = uet_cc_all();
	uint32_t n = 0;

	/* --classic draws among the controllers registered before eqds, so
	 * a regression seed's draw is the one it was found with. */
	while (c[n] != NULL && !(classic && c[n] == &uet_cc_eqds))
		n++;
	return n;
}

static uint32_t
pick(struct uet_prng *r, const uint32_t *v, uint32_t n)
{
	return v[uet_prng_below(r, n)];
}

#define PICK(r, ...) \
	pick(r, (const uint32_t[]){ __VA_ARGS__ }, \
	     sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

/*
 * The load balancer, the congestion controller and their configs come from
 * a stream of their own, so the draw above (and so what each regression
 * seed replays) stays the same; OPS and the fixed window keep their
 * configs from it.
 */
static void
draw_algorithms(uint64_t seed, struct draw *d)
{
	struct uet_ep_config *c = &d->ep;
	struct uet_prng r;

	uet_prng_seed(&r, seed ^ 0x1b2c3d4e5f60718ULL);
	c->lb = pin_lb ? pin_lb : uet_lb_all()[uet_prng_below(&r, count_lbs())];
	c->cc = pin_cc ? pin_cc : uet_cc_all()[uet_prng_below(&r, count_ccs())];
	if (c->lb == &uet_lb_reps) {
		d->reps.no_freezing = uet_prng_below(&r, 4) == 0;
		d->reps.freeze_ns = PICK(&r, 0, 20000, 100000, 10000000);
		d->reps.explore = (uint8_t)uet_prng_below(&r, 2);
		d->reps.reuse = (uint8_t)PICK(&r, 0, 1, 2, 4, 15);
		d->reps.idle_ns = PICK(&r, 0, 1000, 100000);
		c->lb_cfg = &d->reps;
	} else if (c->lb == &uet_lb_bitmap) {
		d->bitmap.evs = (uint16_t)(c->ev_count >= 16 ? PICK(&r, 0, 16) : 0);
		d->bitmap.stop_skip_pct = (uint8_t)PICK(&r, 0, 50, 100);
		c->lb_cfg = &d->bitmap;
	} else if (c->lb == &uet_lb_flowlet) {
		d->flowlet.gap_ns = PICK(&r, 0, 100, 50000);
		d->flowlet.ack_clock = uet_prng_below(&r, 2);
		c->lb_cfg = &d->flowlet;
	} else if (c->lb == &uet_lb_plb) {
		d->plb.ce_pct = (uint8_t)PICK(&r, 0, 1, 25);
		d->plb.rounds = (uint8_t)PICK(&r, 0, 1);
		c->lb_cfg = &d->plb;
	} else if (c->lb != &uet_lb_ops_spray) {
		c->lb_cfg = NULL;
	}
	if (c->cc == &uet_cc_nscc) {
		d->nscc.trimming = d->trim;
		d->nscc.qa_gate = (uint8_t)PICK(&r, 0, 1, 3);
		c->cc_cfg = &d->nscc;
	} else if (c->cc != &uet_cc_fixed) {
		c->cc_cfg = NULL;
	}
	c->assume_trimming = d->trim && uet_prng_below(&r, 2);
	c->ack_carry_evs = uet_prng_below(&r, 3) == 0;
	c->ack_req_every_fill = uet_prng_below(&r, 2) == 0;
}

/*
 * Loss detection from a third stream, for the same reason: a quarter of
 * the seeds run the reference's NACK + fixed RTO, the rest the adaptive
 * default, a third of those with a fixed reordering window. (probe_rtts,
 * ooo_min_pkts and rto_ns come from the first stream.)
 */
static void
draw_loss_detect(uint64_t seed, struct draw *d)
{
	struct uet_ep_config *c = &d->ep;
	struct uet_prng r;

	uet_prng_seed(&r, seed ^ 0x5e7a9c1d3b2f4e60ULL);
	c->loss_detect = uet_prng_below(&r, 4) == 0 ? UET_LOSS_NACK_RTO : UET_LOSS_ADAPTIVE;
	c->reorder_window_ns = uet_prng_below(&r, 3) == 0 ? 500 + uet_prng_below(&r, 50000) : 0;
	/* The window's seed: 1 ns (nothing but what the endpoint learns) up
	 * to well past the scenario's RTTs, a third of the time. */
	c->reorder_seed_ns = uet_prng_below(&r, 3) == 0 ? 1 + uet_prng_below(&r, 50000) : 0;
	if (pin_loss >= 0) {
		c->loss_detect = (uint8_t)pin_loss;
		c->reorder_window_ns = 0;
	}
}

/*
 * The timer without backoff (the REPS profile's: a fixed RTO under
 * nack-rto, as the UEC reference simulator), half the time where the
 * draws above give that setting, from its own stream so that every other
 * draw, and with them every regression seed's scenario, stays as it was.
 * Without backoff a fixed timer of 20 us would exhaust the 200 retries in
 * a 5 ms fault: 5 ms worth more outlast it, and keep the give-ups (a host
 * cut off) about as quick as the backed-off timer's.
 */
static void
draw_timer(uint64_t seed, struct draw *d)
{
	struct uet_ep_config *c = &d->ep;
	struct uet_prng r;

	uet_prng_seed(&r, seed ^ 0x7f4a7c159e3779b9ULL);
	if (c->loss_detect != UET_LOSS_NACK_RTO || c->rto_ns == 0 || uet_prng_below(&r, 2) != 0)
		return;
	c->rto_no_backoff = true;
	c->max_rto_retx = 200 + (uint32_t)(5000000 / c->rto_ns);
}

/*
 * The receiver's SACK window that repeats recent news (sack_repeat), for
 * half the seeds, from its own stream for the same reason; not with
 * --classic, whose seeds replay as they were found.
 */
static void
draw_sack(uint64_t seed, struct draw *d)
{
	struct uet_prng r;

	uet_prng_seed(&r, seed ^ 0x3c6ef372fe94f82bULL);
	d->ep.ack_sack_repeat = pin_sack >= 0 ? pin_sack == 1
					      : !classic && uet_prng_below(&r, 2) == 0;
}

/*
 * UET 1.0 only (uet_ep_config.strict: no DUP flag, no EV trailer, no
 * credit CC), a quarter of the seeds, from its own stream: loss detection
 * and recovery must not lean on libuet's extensions. Seeds drawn with a
 * credit CC, which strict refuses, stay as they were.
 */
static void
draw_strict(uint64_t seed, struct draw *d)
{
	struct uet_prng r;

	uet_prng_seed(&r, seed ^ 0x7d2c9a4b1e8f6035ULL);
	if (pin_strict >= 0)
		d->ep.strict = pin_strict == 1;
	else
		d->ep.strict = !classic && uet_prng_below(&r, 4) == 0;
	if (d->ep.cc->on_credit != NULL)
		d->ep.strict = false;
	if (d->ep.strict)
		d->ep.ack_carry_evs = false;
}

/*
 * PSNs that cross 2^32 at once (uet_ep_config.psn_near_wrap), a quarter of
 * the seeds, from its own stream, after the draws it must agree with: not
 * where PDCs close and reopen or a process restarts (their incarnations'
 * PSNs would no longer differ), not with --classic or --list.
 */
static void
draw_psn_wrap(uint64_t seed, struct draw *d)
{
	struct uet_prng r;

	uet_prng_seed(&r, seed ^ 0x2b8e4f1a9c3d5e77ULL);
	d->ep.psn_near_wrap = !classic && !listed && uet_prng_below(&r, 4) == 0 &&
			      d->ep.pdc_idle_close_ns == 0 && d->crash_host < 0;
}

/*
 * Receive-side matching, a quarter of the seeds, from its own stream,
 * where every message must arrive (no host cut off, crashed or starved of
 * PDCs: a receive that took a message whose sender gave up would wait for
 * its PDC to go): 1-8 receives posted per host, each taking any message
 * and reposted when it lands; an unexpected queue of 1-8 messages of up to
 * 1 KiB-256 KiB (longer ones are refused until a receive is free), in
 * send order (match_in_order): without it a receive taken by a later
 * message of a PDC can wait on an earlier one that nothing can take or
 * hold (doc/library.md), which a workload of receives that take any
 * message runs into. Not with --classic or --list.
 */
static void
draw_matching(uint64_t seed, struct draw *d)
{
	struct uet_prng r;
	struct uet_ep_config *c = &d->ep;

	uet_prng_seed(&r, seed ^ 0x4f1bbcdcbfa53e0bULL);
	if (classic || listed || uet_prng_below(&r, 4) != 0 || d->cut_host >= 0 ||
	    d->crash_host >= 0 || d->squeeze)
		return;
	c->max_posted_recvs = 1 + (uint32_t)uet_prng_below(&r, 8);
	c->max_unexp_msgs = 1 + (uint32_t)uet_prng_below(&r, 8);
	c->unexp_msg_bytes = (uint32_t)PICK(&r, 1024, 16384, 65536, 262144);
	c->match_in_order = true;
}

/*
 * Strangers, a quarter of the seeds, from their own stream: the run's
 * endpoints get a job id and take PDCs only from the fabric's hosts, and
 * 10-200 requests that opened PDCs if let in arrive during the fault
 * phase, half of another job from a host of the run, half of the run's job
 * from an address outside it. None may change anything the run checks.
 * Not with --classic or --list.
 */
static void
draw_strangers(uint64_t seed, struct draw *d)
{
	struct uet_prng r;

	uet_prng_seed(&r, seed ^ 0x6a09e667bb67ae85ULL);
	if (classic || listed || uet_prng_below(&r, 4) != 0)
		return;
	d->ep.job_id = 1 + (uint32_t)uet_prng_below(&r, 0xfffffe);
	d->strangers = 10 + (uint32_t)uet_prng_below(&r, 191);
}

/* One stranger's request (b: its number), from a host's NIC. */
struct stranger_ctx {
	const struct draw *d;
	uint64_t seed;
	uint32_t sent;
};

static void
stranger_ev(struct sim *s, void *a, uint64_t b)
{
	struct stranger_ctx *x = a;
	uint32_t nh = sim_num_hosts(s), from, to, job = x->d->ep.job_id, src_ip;
	uint8_t frame[UET_FRAME_HDR_LEN + UET_DATA_HDR_LEN + 64];
	struct uet_frame_tx tx;
	struct uet_dscp_map m;
	struct uet_prng r;
	struct uet_hdr h;
	int n;

	uet_prng_seed(&r, x->seed ^ 0x510e527fade682d1ULL ^ (b * 0x9e3779b97f4a7c15ULL));
	from = (uint32_t)uet_prng_below(&r, nh);
	to = (from + 1 + (uint32_t)uet_prng_below(&r, nh - 1)) % nh;
	src_ip = sim_host_ip(s, from);
	if (b % 2 == 0) {
		/* another job, from a host of the run */
		job = (job + 1 + (uint32_t)uet_prng_below(&r, 0xfffffe)) & 0xffffff;
		if (job == 0 || job == x->d->ep.job_id)
			job = x->d->ep.job_id ^ 0x800000;
	} else {
		/* the run's job, from an address outside it */
		do
			src_ip = 0xc6120000u | (uint32_t)uet_prng_below(&r, 0x10000);
		while (sim_host_of_ip(s, src_ip) != UINT32_MAX);
	}
	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_RUD_REQ;
	h.nh = UET_NH_REQ_STD;
	h.flags = UET_REQ_F_SYN | UET_REQ_F_AR;
	h.psn = (uint32_t)uet_prng_next(&r);
	h.spdcid = (uint16_t)uet_prng_next(&r);
	h.dpdcid = (uint16_t)uet_prng_below(&r, 64);
	h.ses.opcode = UET_SES_TAGGED_SEND;
	h.ses.flags = UET_SES_F_SOM | UET_SES_F_EOM;
	h.ses.job_id = job;
	h.ses.msg_id = (uint16_t)uet_prng_next(&r);
	h.ses.match_bits = uet_prng_next(&r);
	h.ses.request_len = 64;
	n = uet_hdr_encode(&h, frame + UET_FRAME_HDR_LEN, UET_DATA_HDR_LEN + 64);
	if (n < 0)
		return;
	memset(frame + UET_FRAME_HDR_LEN + n, 0xa5, 64);
	uet_dscp_map_default(&m);
	memset(&tx, 0, sizeof(tx));
	tx.src_ip = src_ip;
	tx.dst_ip = sim_host_ip(s, to);
	tx.sport = (uint16_t)(49152 + uet_prng_below(&r, 256));
	tx.dport = UET_UDP_PORT;
	tx.dscp = m.tc[UET_TC_DATA];
	n = uet_frame_encap(frame, sizeof(frame), &tx, (size_t)n + 64, true);
	if (n > 0 && sim_host_send_raw(s, from, frame, (uint32_t)n) == 0)
		x->sent++;
}

/*
 * The fault kinds added later, from a fourth stream (the draws above stay
 * what they were): ECN marks injected on every port, flaps of a healthy
 * uplink with or without routing convergence, a host's link or a spine
 * switch down for a while, a host cut off for good (its messages must fail
 * at their senders, none may hang), PDC tables much smaller than the
 * number of peers (messages wait for a PDC to close, or are refused and
 * retried).
 */
static void
draw_extra(uint64_t seed, struct draw *d, uint32_t hosts)
{
	struct uet_ep_config *c = &d->ep;
	struct uet_prng r;

	d->host_down = d->spine_down = d->cut_host = d->crash_host = -1;
	if (classic)
		return;
	uet_prng_seed(&r, seed ^ 0x3c6ef372fe94f82bULL);
	if (uet_prng_below(&r, 3) == 0)
		d->fault.ce_ppm = (uint32_t)uet_prng_below(&r, 300001);
	if (uet_prng_below(&r, 3) == 0 && d->blackholes + d->downs < d->spines) {
		d->flaps = 1 + (uint32_t)uet_prng_below(&r, 4);
		d->flap_conv_ns = uet_prng_below(&r, 2) ? 1000 + uet_prng_below(&r, 100000) : 0;
	}
	if (uet_prng_below(&r, 5) == 0)
		d->host_down = (int32_t)uet_prng_below(&r, hosts);
	if (uet_prng_below(&r, 5) == 0)
		d->spine_down = (int32_t)uet_prng_below(&r, d->spines);
	if (uet_prng_below(&r, 8) == 0) {
		d->cut_host = (int32_t)uet_prng_below(&r, hosts);
		d->cut_at_ns = uet_prng_below(&r, d->fault_ns);
		/* The cut host's peers drop what it left half sent; a host
		 * only cut off for the fault phase must not look gone. */
		c->pdc_target_idle_ns = d->fault_ns + 20000000 + uet_prng_below(&r, 3000000);
		/* Initiators close an idle PDC before its target forgets it
		 * (a target that dropped it answers the next message with
		 * "no such PDC", which fails it). */
		if (c->pdc_idle_close_ns == 0)
			c->pdc_idle_close_ns = 20000 + uet_prng_below(&r, 200000);
		/* Nor may an open PDC fall silent waiting for a send window
		 * while others retry towards the cut host for 0.2 s. */
		c->max_tx_windows = 0;
		/* Its peers give up on it after the generous retry limit of
		 * the fault phase (200 backed-off timeouts, about 0.2 s). */
	}
	if (uet_prng_below(&r, 8) == 0) {
		/* Its peers drop the dead process's half of their PDCs, and
		 * close theirs before that (as for the cut host). */
		d->crash_host = (int32_t)uet_prng_below(&r, hosts);
		d->crash_at_ns = uet_prng_below(&r, d->fault_ns);
		d->restart_at_ns = d->crash_at_ns + uet_prng_below(&r, d->fault_ns);
		if (c->pdc_target_idle_ns == 0)
			c->pdc_target_idle_ns = d->fault_ns + 20000000 +
						uet_prng_below(&r, 3000000);
		if (c->pdc_idle_close_ns == 0)
			c->pdc_idle_close_ns = 20000 + uet_prng_below(&r, 200000);
		c->max_tx_windows = 0;
	}
	if (uet_prng_below(&r, 6) == 0) {
		d->squeeze = true;
		c->max_pdcs = 2 + (uint32_t)uet_prng_below(&r, 6);
		c->max_tx_windows = 0;
		c->max_rx_windows = 0;
		if (c->pdc_idle_close_ns == 0)
			c->pdc_idle_close_ns = 20000 + uet_prng_below(&r, 200000);
		/* PDCs that give up for want of a peer's slot leave their
		 * target's half behind: reclaimed by its idle timeout. */
		if (c->pdc_target_idle_ns == 0)
			c->pdc_target_idle_ns = d->fault_ns + 20000000 +
						uet_prng_below(&r, 3000000);
	}
}

/*
 * A cut-off or crashed host leaves its half-sent messages in its peers
 * until their pdc_target_idle_ns, and a receiver whose message slots they
 * fill refuses every other sender until then. Without backoff those
 * senders' 200 timeouts and 5 ms may run out first, and they fail while
 * the receiver is alive (seeds 802586, 817293, 1102732 with the REPS
 * profile's transport pinned): they get that idle time's worth of
 * timeouts more, or, past the limit of 1000, the backed-off timer. Only
 * runs with such a host change.
 */
static void
draw_timer_outlast(struct draw *d)
{
	struct uet_ep_config *c = &d->ep;
	uint64_t n;

	if (!c->rto_no_backoff || (d->cut_host < 0 && d->crash_host < 0))
		return;
	n = c->max_rto_retx + (d->fault_ns + c->pdc_target_idle_ns) / c->rto_ns;
	if (n <= 1000) {
		c->max_rto_retx = (uint32_t)n;
	} else {
		c->rto_no_backoff = false;
		c->max_rto_retx = 200;
	}
}

static void
draw_settings(uint64_t seed, struct draw *d)
{
	struct uet_prng r;
	struct uet_ep_config *c = &d->ep;

	uet_prng_seed(&r, seed);
	memset(d, 0, sizeof(*d));
	d->spines = 2 + (uint32_t)uet_prng_below(&r, 7);
	d->hpl = 1 + (uint32_t)uet_prng_below(&r, 4);
	d->rate_gbps = PICK(&r, 10, 25, 100);
	d->lat_ns = 200 + uet_prng_below(&r, 1800);
	d->buf_bytes = PICK(&r, 16, 32, 64, 256) * 1024;
	d->ecn = uet_prng_below(&r, 2);
	d->trim = uet_prng_below(&r, 3) == 0;
	/* A few seeds run clean, the rest with a random mix of faults. */
	if (uet_prng_below(&r, 10) != 0) {
		d->fault.loss_ppm = (uint32_t)uet_prng_below(&r, 100001);
		d->fault.dup_ppm = (uint32_t)uet_prng_below(&r, 50001);
		d->fault.corrupt_ppm = (uint32_t)uet_prng_below(&r, 50001);
		d->fault.jitter_ns = uet_prng_below(&r, 3) ? uet_prng_below(&r, 50001) : 0;
		/* Blackhole or take down up to all but one spine path. */
		d->blackholes = (uint32_t)uet_prng_below(&r, d->spines);
		d->downs = (uint32_t)uet_prng_below(&r, d->spines - d->blackholes);
		d->slow = (uint32_t)uet_prng_below(&r, d->spines);
	}
	d->fault_ns = 200000 + uet_prng_below(&r, 4800001);
	d->msgs = 4 + (uint32_t)uet_prng_below(&r, 60);

	uet_ep_config_default(c);
	c->link_bps = d->rate_gbps * 1000000000ULL;
	c->base_rtt_ns = 4 * d->lat_ns + 2000;
	c->window_psns = PICK(&r, 64, 128, 256, 1024);
	c->mss_bytes = PICK(&r, 512, 1024, 2048, 4096);
	c->ack_every_bytes = PICK(&r, 0, 4096, 16384, 65536);
	c->ack_delay_ns = 1000 + uet_prng_below(&r, 20000);
	c->probe_rtts = PICK(&r, 0, 1, 3, 5);
	c->ooo_min_pkts = 1 + (uint32_t)uet_prng_below(&r, 8);
	c->rto_ns = uet_prng_below(&r, 4) == 0 ? 20000 + uet_prng_below(&r, 200000) : 0;
	c->rto_max_ns = 1000000;
	/* Generous: the fault phase must not exhaust retries (a separate
	 * test checks that a PDC does give up). */
	c->max_rto_retx = 200;
	/* Up to 8 hosts x 3 streams, initiator and target: 42 PDCs can be
	 * needed at once, since PDCs close only when idle-close is on. */
	c->max_pdcs = 42 + (uint32_t)uet_prng_below(&r, 16);
	c->max_tx_windows = 1 + (uint32_t)uet_prng_below(&r, c->max_pdcs);
	c->max_rx_windows = 1 + (uint32_t)uet_prng_below(&r, c->max_pdcs);
	c->max_tx_msgs = PICK(&r, 4, 16, 256);
	c->max_rx_msgs = PICK(&r, 2, 8, 64);
	c->ctrl_queue_len = PICK(&r, 16, 64, 4096);
	c->pdc_idle_close_ns = uet_prng_below(&r, 2) ? 20000 + uet_prng_below(&r, 200000) : 0;
	/* Longer than any packet can live in this fabric (jitter <= 50 us,
	 * queues of at most a few hundred us). */
	c->pdc_quarantine_ns = 5000000;
	c->ev_count = PICK(&r, 1, 4, 16, 256);
	d->lb.permute = uet_prng_below(&r, 2);
	c->lb_cfg = &d->lb;
	d->cc.cwnd_bytes = (uint32_t)(1 + uet_prng_below(&r, 64)) * (UET_DATA_HDR_LEN + c->mss_bytes);
	c->cc_cfg = &d->cc;
	draw_algorithms(seed, d);
	draw_loss_detect(seed, d);
	draw_timer(seed, d);
	draw_sack(seed, d);
	draw_strict(seed, d);
	draw_extra(seed, d, 2 * d->hpl);
	draw_psn_wrap(seed, d);
	draw_matching(seed, d);
	draw_strangers(seed, d);
	draw_timer_outlast(d);
}

static void
print_draw(uint64_t seed, const struct draw *d)
{
	const struct uet_ep_config *c = &d->ep;

	printf("seed %llu: 2 leaves x %u spines x %u hosts, %llu Gb/s, %llu ns links, "
	       "buf %llu B%s%s\n",
	       (unsigned long long)seed, d->spines, d->hpl, (unsigned long long)d->rate_gbps,
	       (unsigned long long)d->lat_ns, (unsigned long long)d->buf_bytes,
	       d->ecn ? ", ECN" : "", d->trim ? ", trimming" : "");
	printf("  faults for %llu us: loss %u ppm, dup %u ppm, corrupt %u ppm, jitter %llu ns, "
	       "%u blackholed and %u down uplinks per leaf; %u slow uplinks\n",
	       (unsigned long long)d->fault_ns / 1000, d->fault.loss_ppm, d->fault.dup_ppm,
	       d->fault.corrupt_ppm, (unsigned long long)d->fault.jitter_ns, d->blackholes,
	       d->downs, d->slow);
	if (d->crash_host >= 0)
		printf("  crash: host %d's process dies at %llu us, restarts at %llu us\n",
		       d->crash_host, (unsigned long long)d->crash_at_ns / 1000,
		       (unsigned long long)d->restart_at_ns / 1000);
	if (d->strangers)
		printf("  strangers: job %u; %u requests from another job or from outside the "
		       "run\n", c->job_id, d->strangers);
	if (c->max_posted_recvs)
		printf("  matching: %u receives per host, unexpected %u x %u B%s\n",
		       c->max_posted_recvs, c->max_unexp_msgs, c->unexp_msg_bytes,
		       c->match_in_order ? ", in send order" : "");
	if (d->fault.ce_ppm || d->flaps || d->host_down >= 0 || d->spine_down >= 0 ||
	    d->cut_host >= 0 || d->squeeze)
		printf("  extra: ECN marks %u ppm, %u flaps of leaf 0's uplink %u (converge %llu ns), "
		       "host %d down a while, spine %d down a while, host %d cut off at %llu us, "
		       "PDC tables %s\n",
		       d->fault.ce_ppm, d->flaps, d->spines - 1, (unsigned long long)d->flap_conv_ns,
		       d->host_down, d->spine_down, d->cut_host,
		       (unsigned long long)d->cut_at_ns / 1000, d->squeeze ? "squeezed" : "sized");
	printf("  lb %s, cc %s%s%s%s%s; loss detection %s, reordering window %llu ns (seed %llu ns); "
	       "SACK %s\n",
	       c->lb->name, c->cc->name, c->assume_trimming ? ", assume trimming" : "",
	       c->strict ? ", UET 1.0 only" : c->ack_carry_evs ? ", ACK+Carry EVs" : "",
	       c->psn_near_wrap ? ", PSNs across 2^32" : "",
	       c->max_posted_recvs ? (c->match_in_order ? ", matching in send order"
							: ", matching") : "",
	       c->loss_detect == UET_LOSS_NACK_RTO ? "nack-rto" : "adaptive",
	       (unsigned long long)c->reorder_window_ns, (unsigned long long)c->reorder_seed_ns,
	       c->ack_sack_repeat ? "repeats recent PSNs" : "once per PSN");
	printf("  %u messages; window %u, mss %u, ack every %u B, probe %u RTTs, ooo %u, "
	       "rto %llu ns%s, pdcs %u (tx win %u, rx win %u), msgs %u/%u, ctrl %u, "
	       "idle close %llu ns, %u EVs%s, cwnd %u B\n",
	       d->msgs, c->window_psns, c->mss_bytes, c->ack_every_bytes, c->probe_rtts,
	       c->ooo_min_pkts, (unsigned long long)c->rto_ns,
	       c->rto_no_backoff ? " (no backoff)" : "", c->max_pdcs, c->max_tx_windows,
	       c->max_rx_windows, c->max_tx_msgs, c->max_rx_msgs, c->ctrl_queue_len,
	       (unsigned long long)c->pdc_idle_close_ns, c->ev_count,
	       d->lb.permute ? " (permuted)" : "", d->cc.cwnd_bytes);
}

static void
set_faults(struct sim *s, const struct draw *d, bool on)
{
	struct sim_fault none = { 0 }, bh = d->fault;
	uint32_t i, l, k;

	for (i = 0; i < sim_num_ports(s); i++)
		sim_port_set_fault(sim_port_at(s, i), on ? &d->fault : &none);
	/* The first 'blackholes' uplinks of each leaf drop everything; the
	 * next 'downs' links are down both ways (a dead cable). */
	bh.blackhole = true;
	for (l = 0; l < 2; l++) {
		for (k = 0; k < d->blackholes && on; k++)
			sim_port_set_fault(sim_leaf_up(s, l, k), &bh);
		for (k = d->blackholes; k < d->blackholes + d->downs; k++) {
			sim_port_set_up(sim_leaf_up(s, l, k), !on);
			sim_port_set_up(sim_spine_down(s, k, l), !on);
		}
	}
}

/* A process crash and its restart: what run_seed's events need. */
struct crash_ctx {
	struct sw *w;
	const struct draw *d;
	uint64_t seed;
};

static void
crash_ev(struct sim *s, void *a, uint64_t b)
{
	struct crash_ctx *x = a;

	(void)b;
	sim_host_crash(s, (uint32_t)x->d->crash_host);
	sw_crashed(x->w, (uint32_t)x->d->crash_host);
}

static void
restart_ev(struct sim *s, void *a, uint64_t b)
{
	struct crash_ctx *x = a;
	struct uet_ep_config c = x->d->ep;
	uint32_t h = (uint32_t)x->d->crash_host;

	(void)b;
	/* A new process with the same configuration, as uet-perf is
	 * restarted: the seed of its first life, another start nonce. */
	c.seed = x->seed * 7919 + h;
	c.start_nonce = x->seed * 7919 + h + 0x5151;
	sw_ep_config(x->w, h, &c);
	if (sim_host_attach(s, h, &c) != 0)
		abort();
	sw_post_all(x->w, h, &c);
}

/* The extra kinds' events, all within the fault phase but the cut. */
static void
schedule_extra(struct sim *s, const struct draw *d, uint64_t seed)
{
	struct uet_prng r;
	uint64_t t, len;
	uint32_t k;

	uet_prng_seed(&r, seed ^ 0x9b05688c2b3e6c1fULL);
	for (k = 0; k < d->flaps; k++) {
		struct sim_port *p = sim_leaf_up(s, 0, d->spines - 1);

		t = uet_prng_below(&r, d->fault_ns);
		len = 1 + uet_prng_below(&r, d->fault_ns - t);
		sim_link_down_at(s, p, sim_ps(t), d->flap_conv_ns);
		sim_link_up_at(s, p, sim_ps(t + len), d->flap_conv_ns);
	}
	if (d->host_down >= 0) {
		t = uet_prng_below(&r, d->fault_ns);
		len = 1 + uet_prng_below(&r, d->fault_ns - t);
		sim_link_down_at(s, sim_host_port(s, (uint32_t)d->host_down), sim_ps(t), 0);
		sim_link_up_at(s, sim_host_port(s, (uint32_t)d->host_down), sim_ps(t + len), 0);
	}
	if (d->spine_down >= 0) {
		uint32_t sw = sim_switch_id(s, 1, (uint32_t)d->spine_down);
		uint64_t conv = uet_prng_below(&r, 2) ? 1000 + uet_prng_below(&r, 100000) : 0;

		t = uet_prng_below(&r, d->fault_ns);
		len = 1 + uet_prng_below(&r, d->fault_ns - t);
		sim_switch_down_at(s, sw, sim_ps(t), conv);
		sim_switch_up_at(s, sw, sim_ps(t + len), conv);
	}
	if (d->cut_host >= 0)
		sim_link_down_at(s, sim_host_port(s, (uint32_t)d->cut_host), sim_ps(d->cut_at_ns),
				 0);
}

static void
heal_ev(struct sim *s, void *a, uint64_t b)
{
	(void)b;
	set_faults(s, (const struct draw *)a, false);
}

/* Returns 0 on success; on failure prints why. */
static int
run_seed(uint64_t seed, bool verbose)
{
	struct sim_leafspine_cfg lc;
	struct sim_config sc;
	struct crash_ctx crash;
	struct stranger_ctx strange;
	struct draw d;
	struct sw w;
	struct uet_prng r;
	struct sim *s;
	char why[256] = "";
	uint32_t i, nh;
	int rc = 0;

	draw_settings(seed, &d);
	if (verbose)
		print_draw(seed, &d);
	sim_config_default(&sc);
	sc.seed = seed;
	sc.shuffle_ties = shuffle_ties;
	s = sim_create(&sc);
	memset(&lc, 0, sizeof(lc));
	lc.leaves = 2;
	lc.spines = d.spines;
	lc.hosts_per_leaf = d.hpl;
	lc.host_link.rate_bps = d.rate_gbps * 1000000000ULL;
	lc.host_link.lat_ns = d.lat_ns;
	lc.host_link.buf_bytes = d.buf_bytes;
	if (d.ecn) {
		lc.host_link.ecn_kmin_bytes = d.buf_bytes / 5;
		lc.host_link.ecn_kmax_bytes = d.buf_bytes * 4 / 5;
	}
	lc.host_link.trim = d.trim;
	lc.fabric_link = lc.host_link;
	if (s == NULL || sim_build_leaf_spine(s, &lc) != 0) {
		printf("seed %llu: cannot build the fabric\n", (unsigned long long)seed);
		sim_destroy(s);
		return 1;
	}
	sw_init(&w, s);
	/* A third of the scenarios send payloads nobody fills, which the
	 * simulator carries as headers and rebuilds (zeros) where read: from
	 * the seed, not the draw, so every seed keeps its scenario. */
	w.zero_payload = seed % 3 == 2;
	nh = sim_num_hosts(s);
	for (i = 0; i < nh; i++) {
		struct uet_ep_config c = d.ep;

		c.seed = seed * 7919 + i;
		sw_ep_config(&w, i, &c);
		if (sim_host_attach(s, i, &c) != 0) {
			printf("seed %llu: endpoint config rejected\n", (unsigned long long)seed);
			sw_fini(&w);
			sim_destroy(s);
			return 1;
		}
		sw_post_all(&w, i, &c);
	}
	/* Workload: random pairs, sizes from empty to many packets, sent at
	 * random times during the fault phase. */
	uet_prng_seed(&r, seed ^ 0xabcdef);
	for (i = 0; i < d.msgs; i++) {
		uint32_t src = (uint32_t)uet_prng_below(&r, nh);
		uint32_t dst = (src + 1 + (uint32_t)uet_prng_below(&r, nh - 1)) % nh;
		uint32_t kind = (uint32_t)uet_prng_below(&r, 10), len;
		uint32_t idx;

		len = kind < 3 ? (uint32_t)uet_prng_below(&r, 65)
		      : kind < 7 ? (uint32_t)uet_prng_below(&r, 16385)
				 : (uint32_t)uet_prng_below(&r, 262145);
		idx = sw_add(&w, src, dst, len, (uint16_t)uet_prng_below(&r, 3));
		sw_send_at(&w, idx, uet_prng_below(&r, d.fault_ns));
	}
	set_faults(s, &d, true);
	sim_at(s, sim_ps(d.fault_ns), heal_ev, &d, 0);
	schedule_extra(s, &d, seed);
	w.cut_host = d.cut_host;
	w.crash_host = d.crash_host;
	w.may_fail = d.squeeze;
	crash.w = &w;
	crash.d = &d;
	crash.seed = seed;
	if (d.crash_host >= 0) {
		sim_at(s, sim_ps(d.crash_at_ns), crash_ev, &crash, 0);
		sim_at(s, sim_ps(d.restart_at_ns), restart_ev, &crash, 0);
	}
	strange.d = &d;
	strange.seed = seed;
	strange.sent = 0;
	uet_prng_seed(&r, seed ^ 0x9b05688c2b3e6c1fULL);
	for (i = 0; i < d.strangers; i++)
		sim_at(s, sim_ps(uet_prng_below(&r, d.fault_ns)), stranger_ev, &strange, i);
	/* Asymmetry that outlives the fault phase: the last uplinks of leaf
	 * 0 run at a quarter of the rate. */
	for (i = 0; i < d.slow; i++)
		sim_port_set_rate(sim_leaf_up(s, 0, d.spines - 1 - i), lc.fabric_link.rate_bps / 4);

	/* Messages to a host cut off give up one pool's worth at a time (PDC
	 * slots, message slots), each after the retry limit (~0.2 s). */
	if (!sw_run(&w, d.fault_ns + 2000000000ULL +
			    (d.cut_host >= 0 || d.crash_host >= 0 ? d.msgs * 250000000ULL
								   : 0))) {
		snprintf(why, sizeof(why), "stuck: %u/%u sender and %u/%u receiver completions",
			 w.tx_finished, w.n, w.rx_finished, w.n);
		rc = 1;
	} else if (!sw_check(&w, why, sizeof(why))) {
		rc = 1;
	}
	if (rc == 0) {
		/* Let idle PDCs close and time-wait expire, then nothing may
		 * be left pending anywhere. */
		sim_run_drain(s, sim_now_ps(s) + sim_ps(d.ep.pdc_idle_close_ns +
							d.ep.pdc_quarantine_ns +
							d.ep.pdc_target_idle_ns + 50000000 +
							/* a close to a cut-off peer
							 * gives up at the retry limit */
							(d.cut_host >= 0 || d.squeeze ||
							 d.crash_host >= 0
								 ? (uint64_t)d.ep.max_rto_retx *
									   d.ep.rto_max_ns
								 : 0)));
		for (i = 0; i < nh && rc == 0; i++) {
			struct uet_ep *ep = sim_host_ep(s, i);

			/* Cut off: what it holds for its peers can never end. */
			if ((int32_t)i == d.cut_host)
				continue;

			if (!uet_ep_idle(ep)) {
				snprintf(why, sizeof(why), "host %u not idle after heal", i);
				rc = 1;
			} else if (d.ep.pdc_idle_close_ns != 0 && uet_ep_pdc_count(ep) != 0) {
				snprintf(why, sizeof(why), "host %u still holds %u PDCs", i,
					 uet_ep_pdc_count(ep));
				rc = 1;
			} else if (d.ep.strict &&
				   uet_ep_stats(ep)->tx_dup_acks + uet_ep_stats(ep)->tx_carry_acks +
						   uet_ep_stats(ep)->tx_credit_pkts +
						   uet_ep_stats(ep)->tx_credit_req_pkts !=
					   0) {
				snprintf(why, sizeof(why), "host %u sent a libuet extension under "
					 "strict", i);
				rc = 1;
			}
		}
	}
	if (rc == 0 && d.strangers > 0) {
		/* Every stranger that arrived was dropped as one: all of
		 * them where the fabric lost nothing, no more than were sent
		 * and duplicated. */
		struct sim_port_stats t;
		uint64_t foreign = 0;
		bool lossless;

		sim_total_stats(s, &t);
		lossless = t.drops_fault + t.drops_down + t.drops_queue + t.corrupts == 0 &&
			   d.cut_host < 0 && d.crash_host < 0;
		for (i = 0; i < nh; i++)
			foreign += uet_ep_stats(sim_host_ep(s, i))->rx_foreign_job +
				   uet_ep_stats(sim_host_ep(s, i))->rx_foreign_addr;
		if (foreign > strange.sent + t.dups || (lossless && foreign < strange.sent)) {
			snprintf(why, sizeof(why), "%llu requests from strangers counted as "
				 "such, %u sent", (unsigned long long)foreign, strange.sent);
			rc = 1;
		} else if (verbose) {
			printf("  strangers: %u sent, %llu dropped as such\n", strange.sent,
			       (unsigned long long)foreign);
		}
	}
	if (verbose || rc != 0) {
		struct sim_port_stats t;
		uint64_t retx = 0, rto = 0, nack = 0, dup = 0, csum = 0;

		sim_total_stats(s, &t);
		for (i = 0; i < nh; i++) {
			const struct uet_ep_stats *e = uet_ep_stats(sim_host_ep(s, i));

			retx += e->tx_retx_pkts;
			rto += e->rto_events;
			nack += e->nack_retx;
			dup += e->rx_dup_pkts;
			csum += sim_host_stats(s, i)->rx_csum_drops;
		}
		printf("  %s at %llu us: pkts %llu, fault drops %llu, blackholed %llu, queue drops "
		       "%llu, trims %llu, corrupt %llu (csum drops %llu), dups %llu; retx %llu, "
		       "rto %llu, nack retx %llu, dup rx %llu\n",
		       rc ? "FAILED" : "ok", (unsigned long long)sim_now_ns(s) / 1000,
		       (unsigned long long)t.tx_pkts, (unsigned long long)t.drops_fault,
		       (unsigned long long)t.drops_down, (unsigned long long)t.drops_queue,
		       (unsigned long long)t.trims, (unsigned long long)t.corrupts,
		       (unsigned long long)csum, (unsigned long long)t.dups,
		       (unsigned long long)retx, (unsigned long long)rto,
		       (unsigned long long)nack, (unsigned long long)dup);
	}
	if (rc != 0) {
		for (i = 0; i < w.n; i++) {
			const struct sw_msg *m = &w.m[i];

			if (m->tx_done != 1 || m->tx_status != 0 || m->rx_done != 1)
				printf("  msg %u: %u -> %u, %u B, stream %u, sent at %llu ns: "
				       "%d sender completions (status %d), %d deliveries\n",
				       i, m->src, m->dst, m->len, m->stream,
				       (unsigned long long)m->submit_ns, m->tx_done, m->tx_status,
				       m->rx_done);
		}
		for (i = 0; i < nh; i++) {
			const struct uet_ep_stats *e = uet_ep_stats(sim_host_ep(s, i));

			printf("  host %u: rx data %llu dup %llu no-resources %llu window %llu trimmed "
			       "%llu; tx data %llu retx %llu nack-retx %llu rto %llu probe-loss %llu "
			       "ooo-loss %llu; pdcs failed %llu\n", i,
			       (unsigned long long)e->rx_data_pkts, (unsigned long long)e->rx_dup_pkts,
			       (unsigned long long)e->rx_no_resources,
			       (unsigned long long)e->rx_psn_window,
			       (unsigned long long)e->rx_trimmed_pkts,
			       (unsigned long long)e->tx_data_pkts, (unsigned long long)e->tx_retx_pkts,
			       (unsigned long long)e->nack_retx, (unsigned long long)e->rto_events,
			       (unsigned long long)e->probe_losses,
			       (unsigned long long)e->loss_inferred,
			       (unsigned long long)e->pdcs_failed);
		}
		if (!verbose)
			print_draw(seed, &d);
		printf("  seed %llu FAILED: %s\n  replay: swarm --seed %llu -v%s\n",
		       (unsigned long long)seed, why, (unsigned long long)seed, pins);
	}
	sw_fini(&w);
	sim_destroy(s);
	return rc;
}

static void
add_pin(const char *opt, const char *val)
{
	size_t n = strlen(pins);

	snprintf(pins + n, sizeof(pins) - n, " %s%s%s", opt, val ? " " : "", val ? val : "");
}

int
main(int argc, char **argv)
{
	uint64_t first = 1, n = 1000, one = 0;
	bool single = false, verbose = false;
	uint64_t i, failed = 0;
	const char *list = NULL;
	int a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--seeds") == 0 && a + 1 < argc) {
			n = strtoull(argv[++a], NULL, 0);
		} else if (strcmp(argv[a], "--first") == 0 && a + 1 < argc) {
			first = strtoull(argv[++a], NULL, 0);
		} else if (strcmp(argv[a], "--seed") == 0 && a + 1 < argc) {
			one = strtoull(argv[++a], NULL, 0);
			single = true;
		} else if (strcmp(argv[a], "--list") == 0 && a + 1 < argc) {
			list = argv[++a];
		} else if (strcmp(argv[a], "--lb") == 0 && a + 1 < argc) {
			pin_lb = uet_lb_find(argv[++a]);
			if (pin_lb == NULL) {
				fprintf(stderr, "--lb: unknown load balancer '%s'\n", argv[a]);
				return 2;
			}
			add_pin("--lb", argv[a]);
		} else if (strcmp(argv[a], "--cc") == 0 && a + 1 < argc) {
			pin_cc = uet_cc_find(argv[++a]);
			if (pin_cc == NULL) {
				fprintf(stderr, "--cc: unknown congestion control '%s'\n", argv[a]);
				return 2;
			}
			add_pin("--cc", argv[a]);
		} else if (strcmp(argv[a], "--loss-detect") == 0 && a + 1 < argc) {
			a++;
			if (strcmp(argv[a], "adaptive") == 0) {
				pin_loss = UET_LOSS_ADAPTIVE;
			} else if (strcmp(argv[a], "nack-rto") == 0) {
				pin_loss = UET_LOSS_NACK_RTO;
			} else {
				fprintf(stderr, "--loss-detect: adaptive or nack-rto, not '%s'\n",
					argv[a]);
				return 2;
			}
			add_pin("--loss-detect", argv[a]);
		} else if (strcmp(argv[a], "--sack-repeat") == 0 && a + 1 < argc) {
			a++;
			if (strcmp(argv[a], "yes") != 0 && strcmp(argv[a], "no") != 0) {
				fprintf(stderr, "--sack-repeat: yes or no, not '%s'\n", argv[a]);
				return 2;
			}
			pin_sack = strcmp(argv[a], "yes") == 0;
			add_pin("--sack-repeat", argv[a]);
		} else if (strcmp(argv[a], "--strict") == 0 && a + 1 < argc) {
			a++;
			if (strcmp(argv[a], "yes") != 0 && strcmp(argv[a], "no") != 0) {
				fprintf(stderr, "--strict: yes or no, not '%s'\n", argv[a]);
				return 2;
			}
			pin_strict = strcmp(argv[a], "yes") == 0;
			add_pin("--strict", argv[a]);
		} else if (strcmp(argv[a], "--as-drawn") == 0) {
			as_drawn = true;
		} else if (strcmp(argv[a], "--classic") == 0) {
			classic = true;
			add_pin("--classic", NULL);
		} else if (strcmp(argv[a], "--shuffle-ties") == 0) {
			shuffle_ties = true;
			add_pin("--shuffle-ties", NULL);
		} else if (strcmp(argv[a], "-v") == 0) {
			verbose = true;
		} else {
			fprintf(stderr, "usage: %s [--seeds N] [--first S] | --seed S [-v] | "
				"--list S1,S2,... [--lb NAME] [--cc NAME] [--loss-detect MODE] [--sack-repeat yes|no] [--classic] [--shuffle-ties]\n", argv[0]);
			return 2;
		}
	}
	if (single)
		return run_seed(one, verbose) ? 1 : 0;
	if (list != NULL) {
		char *end;

		/* The listed regressions were found before strict was drawn:
		 * they replay as they were found (a strict one is listed
		 * with --strict yes). */
		if (!as_drawn) {
			if (pin_strict < 0)
				pin_strict = 0;
			listed = true;
		}

		for (n = 0; *list != '\0'; n++) {
			one = strtoull(list, &end, 10);
			if (end == list || (*end != ',' && *end != '\0')) {
				fprintf(stderr, "bad --list near '%s'\n", list);
				return 2;
			}
			failed += run_seed(one, verbose) != 0;
			list = *end == ',' ? end + 1 : end;
		}
		printf("swarm: %llu listed seeds: %llu passed, %llu failed\n",
		       (unsigned long long)n, (unsigned long long)(n - failed),
		       (unsigned long long)failed);
		return failed ? 1 : 0;
	}
	for (i = 0; i < n; i++)
		failed += run_seed(first + i, verbose) != 0;
	printf("swarm: seeds %llu..%llu: %llu passed, %llu failed\n", (unsigned long long)first,
	       (unsigned long long)(first + n - 1), (unsigned long long)(n - failed),
	       (unsigned long long)failed);
	return failed ? 1 : 0;
}
