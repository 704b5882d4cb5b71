/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The option table: one row per option (name, INI section and key, field,
 * type, default, range, help), the profiles, and the lookups on it.
 */
#include "conf/conf_int.h"

const char *const uet_perf_patterns[] = {
	"pair", "permutation", "tornado", "incast", "outcast", "alltoall",
	"bisection", "ring-allreduce", "butterfly-allreduce", "websearch", "cm",
	"pingpong", NULL,
};

const char *const uet_perf_loss_detect[] = { "adaptive", "nack-rto", NULL };

/*
 * The REPS paper's simulation setup (reps.md §3.2-3.3, with the artifact's
 * values where the text gives none): every load balancer under the MPRDMA
 * DCTCP variant, 2^16 EVs (the artifact's -paths 65535), a fixed 70 us RTO
 * that does not back off (htsim's per-packet timer; 1000 expiries without
 * progress before a flow fails, where htsim never gives up) and no
 * trimming, per-packet ACKs whose SACK window ends at their trigger as
 * htsim's (so the next ACKs repeat a lost one's news; without it a lost
 * ACK made the timer resend what had arrived), 400 Gb/s two-tier fat trees
 * with 500 ns links and switches, one-BDP queues marking ECN from 20% to
 * 80%, 4 KiB packets; REPS with the artifact's 10 ms freeze and its reset
 * exploration; flowlets timed from the last ACK; PLB at 25% for 2 rounds.
 * Sizes, node counts and per-figure freezes are the scenario's
 * (tools/sim/paper_figures.py).
 */
static const char *const profile_reps_paper[] = {
	"link-gbps=400", "tiers=2", "link-latency-ns=500", "switch-latency-ns=500",
	"buffer-bytes=0", "ecn-kmin-pct=20", "ecn-kmax-pct=80", "trim=no", "mtu=4096",
	"ev-base=1", "ev-count=65535", "cc=dctcp-mprdma", "loss-detect=nack-rto",
	"rto-ns=70000", "rto-backoff=no", "max-rto-retx=1000", "ack-every=0",
	"sack-repeat=yes",
	"reps-freeze-ns=10000000", "reps-explore-reset=yes",
	"flowlet-ack-clock=yes", "plb-ce-pct=25", "plb-rounds=2", "mptcp-subflows=8",
	NULL,
};

static const char *const profile_none[] = { NULL };

const struct uet_perf_profile uet_perf_profiles[] = {
	{ "none", "the defaults", profile_none },
	{ "reps-paper", "the REPS paper's simulations (EuroSys'26, section 4)",
	  profile_reps_paper },
	{ NULL, NULL, NULL },
};


#define O struct uet_perf_opts
#define MSIZE(m) sizeof(((O *)0)->m)
#define FLD(m) .off = offsetof(O, m), .size = MSIZE(m)
#define ARR(m, cnt)                                                         \
	.off = offsetof(O, m), .size = MSIZE(m[0]), .n_off = offsetof(O, cnt), \
	.cap = MSIZE(m) / MSIZE(m[0])
#define UINT(m, d, lo, hi) .type = T_UINT, FLD(m), .def = (d), .min = (lo), .max = (hi)
#define BYTES(m, d, lo, hi) .type = T_BYTES, FLD(m), .def = (d), .min = (lo), .max = (hi)
#define DBL(m, d, lo, hi) .type = T_DOUBLE, FLD(m), .ddef = (d), .dmin = (lo), .dmax = (hi)
#define NS_MAX 10000000000ULL /* 10 s */
#define PERF .app = UET_CONF_APP_PERF
#define SIM .app = UET_CONF_APP_SIM
#define MTU_MAX (UET_PERF_JUMBO_IP_MTU - IP_UDP_HDR_BYTES - UET_DATA_HDR_LEN)

const struct opt opt_table[] = {
	/* Mode */
	{ PERF, .lname = "server", .sname = 'S', .sec = "mode", .key = "server",
	  .type = T_BOOL, FLD(server),
	  .help = "pairwise server: wait for a client on the control port" },
	{ PERF, .lname = "client", .sname = 'c', .sec = "mode", .key = "client",
	  .type = T_STR, FLD(client), .meta = "HOST",
	  .help = "pairwise client of the server at HOST (control IP or name)" },
	{ PERF, .lname = "hosts", .sec = "mode", .key = "hosts", .type = T_PATH_IN,
	  FLD(hosts), .meta = "FILE",
	  .help = "multi-host run over the [hosts] list in FILE; rank 0 coordinates" },
	{ PERF, .lname = "rank", .sec = "mode", .key = "rank",
	  UINT(rank, UET_PERF_RANK_UNSET, 0, UET_PERF_MAX_HOSTS - 1), .meta = "N",
	  .defdoc = "from the environment: OMPI_COMM_WORLD_RANK, PMI_RANK, "
		    "PMIX_RANK or SLURM_PROCID",
	  .help = "this process's rank in the hosts list" },
	{ PERF, .lname = "clients", .sec = "mode", .key = "clients",
	  UINT(clients, 1, 1, UET_PERF_MAX_HOSTS - 1), .meta = "N",
	  .help = "server: wait for N clients (ranks 1..N in the order they connect); "
		  "with --pattern pair every client sends to the server (N:1 incast)" },
	{ PERF, .lname = "control-port", .sname = 'p', .sec = "mode", .key = "control_port",
	  UINT(control_port, 18515, 1, 65535), .flags = F_SYM, .meta = "PORT",
	  .help = "TCP port of the control channel (perftest's default)" },
	{ PERF, .lname = "auth-key", .sec = "mode", .key = "auth_key", .type = T_PATH_IN,
	  FLD(auth_key), .meta = "FILE",
	  .defdoc = "UET_PERF_AUTH_KEY from the environment (hex), else none",
	  .help = "the run's secret, in hex: a process joins only by proving it holds "
		  "it; rank 0 creates a missing FILE (32 random bytes, mode 0600); every "
		  "process of a run needs the same key (doc/testbed.md)" },
	{ PERF, .lname = "bind", .sec = "mode", .key = "bind", .type = T_STR, FLD(bind),
	  .meta = "IP", .defdoc = "every address (a hosts run: rank 0's control address)",
	  .help = "server: listen for clients on this address only" },
	{ PERF, .lname = "local", .sec = "mode", .key = "local", .type = T_SET, FLD(local),
	  .min = 0, .max = UET_PERF_MAX_HOSTS - 1, .meta = "LIST",
	  .help = "run these ranks of the hosts list as endpoints of this "
		  "process, e.g. 0-3,7" },
	{ PERF, .lname = "endpoint", .sec = "mode", .key = "endpoint", .type = T_ENDPOINT,
	  ARR(endpoints, n_endpoints), .meta = "SPEC",
	  .help = "local endpoint port=P,queue=Q,ip=IP[/LEN][,gw=IP][,mac=MAC], "
		  "each acting as one host; off-link peers go through gw "
		  "(repeatable)" },
	{ PERF, .lname = "neighbor", .sec = "mode", .key = "neighbor", .type = T_NEIGHBOR,
	  ARR(neighbors, n_neighbors), .meta = "SPEC",
	  .help = "static ARP entry ip=IP,mac=MAC (repeatable)" },

	/* Workload */
	{ .lname = "pattern", .sec = "workload", .key = "pattern", .type = T_NAME,
	  .names = NAMES_PATTERN, FLD(pattern), .sdef = "pair", .flags = F_SYM,
	  .meta = "NAME", .help = "traffic pattern" },
	{ .lname = "size", .sname = 's', .sec = "workload", .key = "size_bytes",
	  BYTES(size_bytes, 65536, 0, UINT32_MAX), .flags = F_SYM, .meta = "BYTES",
	  .help = "message size; suffixes K, M, G, T = 2^10, 2^20, 2^30, 2^40" },
	{ .lname = "min-bytes", .sname = 'b', .sec = "workload", .key = "min_bytes",
	  BYTES(min_bytes, 65536, 0, UINT32_MAX), .flags = F_SYM, .meta = "BYTES",
	  .defdoc = "--size", .help = "size sweep: smallest message (nccl-tests -b)" },
	{ .lname = "max-bytes", .sname = 'e', .sec = "workload", .key = "max_bytes",
	  BYTES(max_bytes, 65536, 0, UINT32_MAX), .flags = F_SYM, .meta = "BYTES",
	  .defdoc = "--size", .help = "size sweep: largest message (nccl-tests -e)" },
	{ .lname = "all-sizes", .sname = 'a', .sec = "workload", .key = "all_sizes",
	  .type = T_BOOL, FLD(all_sizes),
	  .help = "size sweep over every power of two from 2 B to 8 MiB (perftest -a); "
		  "--min-bytes and --max-bytes narrow it" },
	{ .lname = "step-factor", .sname = 'f', .sec = "workload", .key = "step_factor",
	  UINT(step_factor, 2, 2, 1024), .flags = F_SYM, .meta = "N",
	  .help = "size sweep: multiply the size by N each step" },
	{ .lname = "iters", .sname = 'n', .sec = "workload", .key = "iters",
	  UINT(iters, 10, 1, UINT32_MAX), .flags = F_SYM, .meta = "N",
	  .help = "messages per stream and size; excludes --duration" },
	{ PERF, .lname = "stall-timeout", .sec = "workload", .key = "stall_timeout_s",
	  DBL(stall_timeout_s, 10, 0, 3600), .meta = "SEC",
	  .help = "end the run with an error when no local endpoint moved data or "
		  "completed a message for SEC seconds (a peer gone, a dead fabric); 0 = "
		  "wait forever" },
	{ PERF, .lname = "barrier-timeout", .sec = "workload", .key = "barrier_timeout_s",
	  DBL(barrier_timeout_s, 60, 1, 86400), .meta = "SEC",
	  .help = "in a run of several processes, wait at most SEC for the others: to join "
		  "at the start, and when a run ends (a peer frozen or cut off: then report "
		  "this process's own measurement and exit 1); raise it for workloads whose "
		  "processes finish far apart" },
	{ .lname = "duration", .sname = 'D', .sec = "workload", .key = "duration_s",
	  DBL(duration_s, 0, 0.000001, 604800), .flags = F_SYM, .meta = "SEC",
	  .defdoc = "0 (use --iters)",
	  .help = "run for SEC seconds instead of --iters" },
	{ .lname = "omit", .sname = 'O', .sec = "workload", .key = "omit_s",
	  DBL(omit_s, 0, 0, 604800), .flags = F_SYM, .meta = "SEC",
	  .defdoc = "0 (none)",
	  .help = "a duration run: first a warm-up of SEC seconds, left out of the totals, "
		  "counts, FCTs and round trips, its intervals marked omitted (iperf3 -O); "
		  "a whole number of --interval" },
	{ .lname = "streams", .sname = 'q', .sec = "workload", .key = "streams",
	  UINT(streams, 1, 1, 1024), .flags = F_SYM, .meta = "N",
	  .help = "streams (PDCs) per pair of ranks" },
	{ .lname = "seed", .sec = "workload", .key = "seed",
	  UINT(seed, 1, 0, UINT64_MAX), .flags = F_SYM, .meta = "N",
	  .help = "seed of every random choice (pattern, EVs)" },
	{ .lname = "fanin", .sec = "workload", .key = "fanin",
	  UINT(fanin, 0, 0, UET_PERF_MAX_HOSTS - 1), .flags = F_SYM, .meta = "N",
	  .defdoc = "0 (all)",
	  .help = "incast/outcast: senders per receiver; 0 = every other rank" },
	{ .lname = "root", .sec = "workload", .key = "root",
	  UINT(root, 0, 0, UET_PERF_MAX_HOSTS - 1), .flags = F_SYM, .meta = "N",
	  .help = "incast/outcast: the root rank" },
	{ .lname = "parallel", .sec = "workload", .key = "parallel",
	  UINT(parallel, 8, 1, 4096), .flags = F_SYM, .meta = "N",
	  .help = "messages each stream keeps in flight" },
	{ .lname = "rate-gbps", .sec = "workload", .key = "rate_gbps",
	  DBL(rate_gbps, 0, 0, 100000), .flags = F_SYM, .meta = "GBPS",
	  .defdoc = "0 (as fast as the transport goes)",
	  .help = "each stream's target rate: its messages start --size x 8 / rate "
		  "apart, --parallel at most in flight (iperf3 -b, perftest "
		  "--rate_limit); point-to-point patterns" },
	{ .lname = "load", .sec = "workload", .key = "load", DBL(load, 0.5, 0, 1),
	  .flags = F_SYM, .meta = "FRAC",
	  .help = "websearch: offered load as a fraction of the link rate" },
	{ .lname = "cm", .sec = "workload", .key = "cm", .type = T_PATH_IN, FLD(cm),
	  .meta = "FILE", .help = "connection matrix of --pattern cm" },
	{ .lname = "verify", .sec = "workload", .key = "verify", .type = T_BOOL,
	  FLD(verify), .flags = F_SYM,
	  .help = "fill payloads with a pattern and check every received byte" },

	/* Transport */
	{ .lname = "lb", .sec = "transport", .key = "lb", .type = T_NAME,
	  .names = NAMES_LB, FLD(lb), .sdef = "reps", .flags = F_SYM, .meta = "NAME",
	  .help = "load balancer" },
	{ .lname = "cc", .sec = "transport", .key = "cc", .type = T_NAME,
	  .names = NAMES_CC, FLD(cc), .sdef = "nscc", .flags = F_SYM, .meta = "NAME",
	  .help = "congestion controller" },
	{ .lname = "mtu", .sec = "transport", .key = "mtu_bytes",
	  BYTES(mtu_bytes, 4096, 1, MTU_MAX), .flags = F_SYM, .meta = "BYTES",
	  .help = "UET payload per packet (mss); a full packet is 84 B more at "
		  "the IP layer and must fit a 9000 B jumbo MTU" },
	{ .lname = "ev-base", .sec = "transport", .key = "ev_base",
	  UINT(ev_base, 49152, 1, 65535), .flags = F_SYM, .meta = "EV",
	  .help = "lowest entropy value (UDP source port)" },
	{ .lname = "ev-count", .sec = "transport", .key = "ev_count",
	  UINT(ev_count, 256, 1, 65535), .flags = F_SYM, .meta = "N",
	  .help = "EVs in use: ev-base .. ev-base + ev-count - 1" },
	{ .lname = "ack-every", .sec = "transport", .key = "ack_every_bytes",
	  BYTES(ack_every_bytes, 16384, 0, 1u << 24), .flags = F_SYM, .meta = "BYTES",
	  .help = "the receiver ACKs once this many bytes arrived; 0 = every packet" },
	{ .lname = "ack-delay-ns", .sec = "transport", .key = "ack_delay_ns",
	  UINT(ack_delay_ns, 5000, 0, 1000000000), .flags = F_SYM, .meta = "NS",
	  .help = "longest an accepted packet waits for its ACK" },
	{ .lname = "pdc-idle-close-ns", .sec = "transport", .key = "pdc_idle_close_ns",
	  UINT(pdc_idle_close_ns, 0, 0, NS_MAX), .meta = "NS", .defdoc = "0 (never)",
	  .help = "an initiator closes a PDC (a CLOSE on the wire, acknowledged) that has "
		  "been idle this long; its next message opens a new one" },
	{ .lname = "pdc-target-idle-ns", .sec = "transport", .key = "pdc_target_idle_ns",
	  UINT(pdc_target_idle_ns, 0, 0, NS_MAX), .meta = "NS", .defdoc = "0 (never)",
	  .help = "a target drops a PDC whose initiator went silent this long without "
		  "closing it, with its partial messages (then keeps it in quarantine: "
		  "what it had received is re-ACKed, the rest refused); longer than the "
		  "initiators' --pdc-idle-close-ns and than their retries through a "
		  "failure, or a live initiator's messages fail" },
	{ .lname = "ack-carry-evs", .sec = "transport", .key = "ack_carry_evs",
	  .type = T_BOOL, FLD(ack_carry_evs), .flags = F_SYM,
	  .help = "a coalesced ACK carries the EVs of the unmarked packets it covers, which "
		  "REPS caches (the paper's ACK+Carry EVs; a libuet wire extension)" },
	{ .lname = "uet-strict", .sec = "transport", .key = "uet_strict",
	  .type = T_BOOL, FLD(uet_strict), .flags = F_SYM,
	  .help = "speak UET 1.0 only, for peers that are not libuet: no libuet wire "
		  "extension (the DUP flag in ACKs, --ack-carry-evs, --cc eqds's "
		  "CREDIT_REQ/CREDIT); spurious retransmissions are then seen only by "
		  "the RETX echo, so their count is a lower bound" },
	{ .lname = "psn-near-wrap", .sec = "transport", .key = "psn_near_wrap",
	  .type = T_BOOL, FLD(psn_near_wrap),
	  .help = "a test of the peers' PSN arithmetic: every PDC starts its PSNs within "
		  "16 below 2^32, so they wrap at once (a reopened PDC's PSNs are then "
		  "no longer told from its last's: not with --pdc-idle-close-ns)" },
	{ .lname = "sack-repeat", .sec = "transport", .key = "sack_repeat",
	  .type = T_BOOL, FLD(sack_repeat), .flags = F_SYM,
	  .help = "an ACK's 64-PSN SACK window ends at its trigger (the UEC reference's "
		  "rule) or at the newest PSN received, where that still holds every PSN not "
		  "yet reported, so the next ACKs repeat a lost ACK's news; off: each PSN "
		  "past the cumulative point is SACKed once, and a lost ACK can cost a "
		  "spurious resend" },
	{ .lname = "ar-every-fill", .sec = "transport", .key = "ar_every_fill",
	  .type = T_BOOL, FLD(ar_every_fill), .has_simdef = true, .simdef = 1,
	  .help = "every packet that fills the window asks for an ACK, as the UEC "
		  "reference does: a window-limited flow is ACKed per packet and REPS "
		  "gets an EV per packet; off: one such request in flight (fewer ACKs "
		  "for a host's CPU)" },
	{ .lname = "rto-ns", .sec = "transport", .key = "rto_ns",
	  UINT(rto_ns, 0, 0, NS_MAX), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (adaptive)",
	  .help = "fixed retransmission timeout; 0 = adaptive (srtt + 4 rttvar)" },
	{ .lname = "rto-min-ns", .sec = "transport", .key = "rto_min_ns",
	  UINT(rto_min_ns, 0, 0, NS_MAX), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (4 x base RTT)",
	  .simdefdoc = "0 (base RTT + the fabric's full queues on the longest path + "
		       "--ack-delay-ns)",
	  .help = "lower bound of the adaptive RTO (the RTO of --loss-detect nack-rto "
		  "without --rto-ns)" },
	{ .lname = "rto-max-ns", .sec = "transport", .key = "rto_max_ns",
	  UINT(rto_max_ns, 0, 0, 60000000000ULL), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (10 ms)", .help = "cap of the RTO's exponential backoff" },
	{ .lname = "rto-backoff", .sec = "transport", .key = "rto_backoff", .type = T_BOOL,
	  FLD(rto_backoff), .def = 1, .flags = F_SYM,
	  .help = "the RTO doubles after each expiry until an ACK makes progress (up to "
		  "--rto-max-ns); no: every expiry waits the same RTO again, as the UEC "
		  "reference simulator's timer" },
	{ .lname = "max-rto-retx", .sec = "transport", .key = "max_rto_retx",
	  UINT(max_rto_retx, 0, 0, 1000), .flags = F_SYM, .meta = "N",
	  .defdoc = "0 (12)",
	  .help = "recovery episodes in a row without progress before a PDC gives up "
		  "and fails its messages (with the RTO cap, how long a flow survives a "
		  "dead path; a target's NACK refusing a packet for want of a receive "
		  "window or reassembly slot restarts the count)" },
	{ .lname = "loss-detect", .sec = "transport", .key = "loss_detect", .type = T_NAME,
	  .names = NAMES_LOSS, FLD(loss_detect), .sdef = "adaptive", .flags = F_SYM,
	  .meta = "MODE",
	  .help = "how losses no NACK reports are found: adaptive (RACK per path, and "
		  "across paths with a reordering window from what the fabric's queues can "
		  "do that the endpoint learns, probes, an RTO undone when spurious) or "
		  "nack-rto (the UEC reference simulator's: NACKs and a "
		  "fixed RTO, --rto-ns or --rto-min-ns, whose expiry the load balancer hears "
		  "of at once)" },
	{ .lname = "reorder-window-ns", .sec = "transport", .key = "reorder_window_ns",
	  UINT(reorder_window_ns, 0, 0, 1000000000), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (adaptive: from --reorder-seed-ns up, as the endpoint learns)",
	  .help = "adaptive loss detection: fixed reordering window" },
	{ .lname = "reorder-seed-ns", .sec = "transport", .key = "reorder_seed_ns",
	  UINT(reorder_seed_ns, 0, 0, 1000000000), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (uet-sim: the fabric's, its paths' queues full against empty; "
		    "uet-perf: 2 x --base-rtt-ns)",
	  .help = "adaptive loss detection: the least reordering window across paths, "
		  "what the fabric's queues can delay one path against another; the "
		  "endpoint raises it with the reordering it sees and the losses that "
		  "prove spurious" },
	{ .lname = "ooo-min-pkts", .sec = "transport", .key = "ooo_min_pkts",
	  UINT(ooo_min_pkts, 3, 1, 65535), .flags = F_SYM, .meta = "N",
	  .help = "adaptive loss detection: infer losses from reordering only while the "
		  "receiver holds at least N PSNs beyond a hole" },
	{ .lname = "probe-rtts", .sec = "transport", .key = "probe_rtts",
	  UINT(probe_rtts, 3, 0, 1000), .flags = F_SYM, .meta = "N",
	  .help = "adaptive loss detection: probe a PDC after N smoothed RTTs without an "
		  "ACK; 0 = no probes" },
	{ .lname = "base-rtt-ns", .sec = "transport", .key = "base_rtt_ns",
	  UINT(base_rtt_ns, 10000, 0, 1000000000), .flags = F_SYM, .meta = "NS",
	  .has_simdef = true, .simdef = 0, .simdefdoc = "0 (the fabric's, computed)",
	  .help = "unloaded RTT of the fabric; uet-sim: 0 = the simulated fabric's" },
	{ .lname = "link-gbps", .sec = "transport", .key = "link_gbps",
	  DBL(link_gbps, 100, 0.001, 100000), .flags = F_SYM, .meta = "GBPS",
	  .has_simdef = true, .dsimdef = 400,
	  .help = "line rate the CC and LB parameters derive from; uet-sim: the "
		  "links' rate (the hosts' only, with --fabric-gbps)" },
	{ .lname = "window-psns", .sec = "transport", .key = "window_psns",
	  UINT(window_psns, 1024, 64, 16384), .flags = F_SYM | F_POW2, .meta = "N",
	  .help = "send and receive PSN window per PDC, a power of two" },
	{ .lname = "dscp-data", .sec = "transport", .key = "dscp_data",
	  UINT(dscp_data, 10, 0, 63), .flags = F_SYM, .meta = "DSCP",
	  .help = "DSCP of first transmissions of data" },
	{ .lname = "dscp-ctrl", .sec = "transport", .key = "dscp_ctrl",
	  UINT(dscp_ctrl, 48, 0, 63), .flags = F_SYM, .meta = "DSCP",
	  .help = "DSCP of ACK, NACK, probe and close packets" },
	{ .lname = "dscp-retx", .sec = "transport", .key = "dscp_retx",
	  UINT(dscp_retx, 12, 0, 63), .flags = F_SYM, .meta = "DSCP",
	  .help = "DSCP of retransmitted data" },
	{ PERF, .lname = "zero-udp-csum", .sec = "transport", .key = "zero_udp_csum",
	  .type = T_BOOL, FLD(zero_udp_csum),
	  .help = "send UDP checksum 0 (none, legal on IPv4, as RoCEv2 does) instead "
		  "of summing each payload, which costs CPU on ports without "
		  "checksum offload; non-zero checksums are still checked on receive" },
	/* testpmd's --total-num-mbufs, --rxd and --txd: a NIC at line rate may
	 * want deeper rings than the default sizing, and more mbufs with them;
	 * a benchmark may want fewer (tools/bench/pool.sh). */
	{ PERF, .lname = "mbufs", .sec = "transport", .key = "mbufs",
	  UINT(mbufs, 0, 512, 1u << 24), .flags = F_AUTO0, .meta = "N",
	  .defdoc = "0 (enough for the rings and the lcores' caches)",
	  .help = "mbufs in each of a port's two pools (RX, and TX frames); at least 512, "
		  "since every lcore caches up to 384 of them" },
	{ PERF, .lname = "rxd", .sec = "transport", .key = "rxd",
	  UINT(rxd, 0, 32, 32768), .flags = F_AUTO0, .meta = "N", .defdoc = "0 (1024)",
	  .help = "RX descriptors per queue (the PMD may round it to what it supports)" },
	{ PERF, .lname = "txd", .sec = "transport", .key = "txd",
	  UINT(txd, 0, 32, 32768), .flags = F_AUTO0, .meta = "N", .defdoc = "0 (1024)",
	  .help = "TX descriptors per queue (the PMD may round it to what it supports)" },

	/* Load-balancer knobs */
	{ .lname = "reps-freeze-ns", .sec = "lb", .key = "reps_freeze_ns",
	  UINT(reps_freeze_ns, 0, 0, NS_MAX), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (1 ms)", .help = "reps: freezing timeout after a path failure" },
	{ .lname = "reps-no-freeze", .sec = "lb", .key = "reps_no_freeze",
	  .type = T_BOOL, FLD(reps_no_freeze), .flags = F_SYM,
	  .help = "reps: never freeze" },
	{ .lname = "reps-idle-ns", .sec = "lb", .key = "reps_idle_ns",
	  UINT(reps_idle_ns, 0, 0, NS_MAX), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (never)",
	  .help = "reps: a PDC that sent nothing this long, everything acknowledged, "
		  "forgets its cached EVs" },
	{ .lname = "reps-reuse", .sec = "lb", .key = "reps_reuse",
	  UINT(reps_reuse, 0, 0, 15), .flags = F_SYM, .meta = "N",
	  .help = "reps ACK+Reuse: packets each cached EV serves; 0 or 1 = standard" },
	{ SIM, .lname = "ecmp-every", .sec = "lb", .key = "ecmp_every",
	  UINT(ecmp_every, 0, 0, 1u << 24), .meta = "N", .defdoc = "0 (none)",
	  .help = "a mixed deployment: hosts 0, N, 2N, ... use ecmp whatever --lb says "
		  "(the REPS paper's 10% of background ECMP traffic: 10)" },
	{ SIM, .lname = "ecmp-hosts", .sec = "lb", .key = "ecmp_hosts", .type = T_SET,
	  FLD(ecmp_hosts), .min = 0, .max = (1u << 20) - 1, .meta = "LIST", .defdoc = "none",
	  .help = "a mixed deployment: these hosts use ecmp whatever --lb says, e.g. "
		  "9,92,103 (the sources of a matrix's lines 1, 11, 21, ..., as htsim's "
		  "-mixed_lb_traffic takes them), beside --ecmp-every's" },
	{ SIM, .lname = "ar-tie-first", .sec = "lb", .key = "ar_tie_first", .type = T_BOOL,
	  FLD(ar_tie_first),
	  .help = "ar: equally short queues go to the first ECMP member (the REPS artifact's "
		  "htsim: spine 0 on an idle fabric), not to the EV's hash" },
	{ .lname = "reps-explore-reset", .sec = "lb", .key = "reps_explore_reset",
	  .type = T_BOOL, FLD(reps_explore_reset), .flags = F_SYM,
	  .help = "reps: after freezing, clear the cache and send a cwnd of random EVs (the "
		  "paper's artifact) instead of one random EV in 8 (the paper's text)" },
	{ .lname = "reps-force-freeze-ns", .sec = "lb", .key = "reps_force_freeze_ns",
	  UINT(reps_force_freeze_ns, 0, 0, NS_MAX), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (never)",
	  .help = "reps: every PDC freezes once at its first send past this time, failure "
		  "or not (the paper's forced freezing, App. A)" },
	{ .lname = "ops-permute", .sec = "lb", .key = "ops_permute", .type = T_BOOL,
	  FLD(ops_permute), .flags = F_SYM,
	  .help = "ops: a random permutation of the EVs per round, not uniform EVs" },
	{ .lname = "flowlet-gap-ns", .sec = "lb", .key = "flowlet_gap_ns",
	  UINT(flowlet_gap_ns, 0, 0, NS_MAX), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (base RTT / 2)",
	  .help = "flowlet: a gap longer than this takes a new EV" },
	{ .lname = "flowlet-ack-clock", .sec = "lb", .key = "flowlet_ack_clock",
	  .type = T_BOOL, FLD(flowlet_ack_clock), .flags = F_SYM,
	  .help = "flowlet: measure the gap from the last ACK and repath at most once per "
		  "RTO (the REPS artifact's flowlets), not from the last send" },
	{ .lname = "plb-ce-pct", .sec = "lb", .key = "plb_ce_pct",
	  UINT(plb_ce_pct, 50, 0, 100), .flags = F_SYM, .meta = "PCT",
	  .help = "plb: a round is congested above this share of CE-marked ACKs" },
	{ .lname = "plb-rounds", .sec = "lb", .key = "plb_rounds",
	  UINT(plb_rounds, 3, 1, 255), .flags = F_SYM, .meta = "N",
	  .help = "plb: repath after this many congested rounds in a row" },
	{ .lname = "mptcp-subflows", .sec = "lb", .key = "mptcp_subflows",
	  UINT(mptcp_subflows, 8, 1, 64), .flags = F_SYM, .meta = "N",
	  .help = "mptcp: static EVs a PDC's packets round-robin over" },

	/* Congestion-control knobs */
	{ .lname = "nscc-target-ns", .sec = "cc", .key = "nscc_target_ns",
	  UINT(nscc_target_ns, 0, 0, 1000000000), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (base RTT; 0.75 x base RTT with --trim)",
	  .help = "nscc: target queueing delay" },
	{ .lname = "nscc-min-rtt-cap", .sec = "cc", .key = "nscc_min_rtt_cap", .type = T_BOOL,
	  FLD(nscc_min_rtt_cap), .flags = F_SYM, .has_simdef = true, .simdef = 1,
	  .help = "nscc: lower the window cap to 1.5 x link rate x the smallest RTT "
		  "sampled, as htsim does; off: 1.5 x link rate x base RTT (a host's "
		  "smallest RTT sample is a lucky one, most include host delays)" },
	{ .lname = "dctcp-g-shift", .sec = "cc", .key = "dctcp_g_shift",
	  UINT(dctcp_g_shift, 4, 1, 16), .flags = F_SYM, .meta = "N",
	  .help = "dctcp: alpha gain g = 1 / 2^N" },
	{ .lname = "mprdma-fast-increase-ns", .sec = "cc", .key = "mprdma_fast_increase_ns",
	  UINT(mprdma_fast_increase_ns, 0, 0, NS_MAX), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (never)",
	  .help = "dctcp-mprdma: from this time on, a window of clean ACKs under 1 us of "
		  "queueing starts a fast increase, half of what each such ACK acknowledges "
		  "(the REPS artifact's -enable_fi; its micro failure benchmark switches it on "
		  "at 650 us)" },
	{ .lname = "eqds-spec-bytes", .sec = "cc", .key = "eqds_spec_bytes",
	  BYTES(eqds_spec_bytes, 0, 0, UINT32_MAX / 2), .flags = F_SYM, .meta = "BYTES",
	  .defdoc = "0 (the max window, 1.5 x BDP)",
	  .help = "eqds: speculative credit a sender spends before its receiver's "
		  "first grant; the rest of what it sends, resends included, waits "
		  "for the pull pacer's grants" },
	{ .lname = "eqds-slow-pulls", .sec = "cc", .key = "eqds_slow_pulls", .type = T_BOOL,
	  FLD(eqds_slow_pulls), .def = 1, .flags = F_SYM,
	  .help = "eqds: a receiver whose pull pacer has no need to grant grants an idle "
		  "sender up to the speculative credit ahead, so that its next message "
		  "goes at once (the UEC reference's slow pulls); off: the next message "
		  "asks and waits a round trip" },

	/* Output and measurement */
	{ .lname = "interval", .sname = 'i', .sec = "output", .key = "interval_s",
	  DBL(interval_s, 1, 0, 3600), .meta = "SEC", .has_simdef = true, .dsimdef = 0,
	  .help = "interval reports every SEC seconds; 0 = none" },
	{ .lname = "bin-us", .sec = "output", .key = "bin_us",
	  UINT(bin_us, 100, 1, 1000000), .meta = "US",
	  .help = "bin width of the throughput timeline" },
	{ .lname = "json", .sname = 'J', .sec = "output", .key = "json", .type = T_STR,
	  FLD(json), .meta = "FILE", .help = "write the JSON report to FILE, '-' = stdout" },
	{ .lname = "json-stream", .sec = "output", .key = "json_stream", .type = T_BOOL,
	  FLD(json_stream),
	  .help = "line-delimited JSON events (start, interval, end) to the "
		  "--json target, stdout without one" },
	{ .lname = "csv", .sec = "output", .key = "csv", .type = T_STR, FLD(csv),
	  .meta = "PREFIX", .help = "write PREFIX-timeline.csv and PREFIX-flows.csv" },
	{ .lname = "pcap", .sec = "output", .key = "pcap", .type = T_STR, FLD(pcap),
	  .meta = "FILE",
	  .help = "write the frames each endpoint sends and receives to FILE (pcap, "
		  "nanosecond timestamps, for Wireshark or tshark); uet-perf: %e becomes "
		  "the endpoint's rank (needed with several endpoints in a process), %r the "
		  "process's; uet-sim: the hosts of --pcap-hosts, %e the host" },
	{ .lname = "pcap-count", .sec = "output", .key = "pcap_count",
	  UINT(pcap_count, 100000, 1, 1ULL << 40), .meta = "N",
	  .help = "frames written to each capture file at most (the rest are counted)" },
	{ .lname = "pcap-snaplen", .sec = "output", .key = "pcap_snaplen",
	  BYTES(pcap_snaplen, 128, 0, 65535), .meta = "BYTES",
	  .help = "bytes kept of each captured frame; 128 holds every UET header, 0 = whole "
		  "frames" },
	{ SIM, .lname = "pcap-hosts", .sec = "output", .key = "pcap_hosts", .type = T_SET,
	  FLD(pcap_hosts), .min = 0, .max = (1u << 20) - 1, .meta = "LIST", .defdoc = "0",
	  .help = "hosts whose NIC --pcap captures, e.g. 0-3,17; FILE needs %e for more "
		  "than one" },
	{ SIM, .lname = "port-series", .sec = "output", .key = "port_series", .type = T_STR,
	  FLD(port_series), .meta = "LIST",
	  .help = "per-port time series of these cables (utilisation, queue, queue peak), in "
		  "the JSON (end.fabric.series) and PREFIX-ports.csv: comma-separated "
		  "hostN, torN.upM, aggN.upM or a class host, tor-up, agg-up, each with "
		  ":up (default), :down or :both, e.g. tor0.up1:both,agg-up" },
	{ SIM, .lname = "series-us", .sec = "output", .key = "series_us",
	  DBL(series_us, 10, 0.001, 1e6), .meta = "US",
	  .help = "sampling interval of --port-series (simulated)" },
	{ .lname = "verbose", .sname = 'v', .sec = "output", .key = "verbose",
	  .type = T_COUNT, FLD(verbose), .def = 0, .min = 0, .max = 9, .meta = "N",
	  .help = "more log output: -v, -vv, ... or --verbose=N" },

	/* Scheduled events */
	{ PERF, .lname = "fail-ev-at", .sec = "schedule", .key = "fail_ev_at",
	  .type = T_FAIL_EV, ARR(fail_ev, n_fail_ev), .meta = "T:SET",
	  .help = "at T seconds, the EVs of SET fail, e.g. 2.5:49152-49183,49200 "
		  "(repeatable)" },
	{ PERF, .lname = "exec-at", .sec = "schedule", .key = "exec_at", .type = T_EXEC,
	  ARR(exec, n_exec), .meta = "T:CMD",
	  .help = "at T seconds, run CMD with /bin/sh (repeatable)" },

	/* Command line only */
	/* Topology (uet-sim) */
	{ SIM, .lname = "nodes", .sec = "topology", .key = "nodes",
	  UINT(nodes, 128, 2, 1u << 20), .meta = "N", .help = "hosts of the fat tree" },
	{ SIM, .lname = "tiers", .sec = "topology", .key = "tiers", UINT(tiers, 2, 2, 3),
	  .meta = "N", .help = "2 (ToRs and spines) or 3 (ToRs, aggregation, cores)" },
	{ SIM, .lname = "oversub", .sec = "topology", .key = "oversub", UINT(oversub, 1, 1, 8),
	  .meta = "N", .help = "ToR oversubscription N:1 (host ports : uplinks)" },
	{ SIM, .lname = "hosts-per-tor", .sec = "topology", .key = "hosts_per_tor",
	  UINT(hosts_per_tor, 0, 0, 65535), .meta = "N",
	  .defdoc = "0 (the largest divisor of --nodes up to its square root; 3 tiers: "
		    "the k-ary fat tree)",
	  .help = "hosts under each ToR" },
	{ SIM, .lname = "fabric-gbps", .sec = "topology", .key = "fabric_gbps",
	  DBL(fabric_gbps, 0, 0, 100000), .meta = "GBPS", .defdoc = "0 (--link-gbps)",
	  .help = "rate of the switch-to-switch cables; the hosts' cables run at --link-gbps" },
	{ SIM, .lname = "link-latency-ns", .sec = "topology", .key = "link_latency_ns",
	  UINT(link_latency_ns, 500, 0, NS_MAX), .meta = "NS",
	  .help = "propagation delay of every link" },
	{ SIM, .lname = "switch-latency-ns", .sec = "topology", .key = "switch_latency_ns",
	  UINT(switch_latency_ns, 500, 0, NS_MAX), .meta = "NS",
	  .help = "added at each switch traversal" },
	{ SIM, .lname = "buffer-bytes", .sec = "topology", .key = "buffer_bytes",
	  BYTES(buffer_bytes, 0, 0, 1ULL << 40), .meta = "BYTES",
	  .defdoc = "0 (one BDP of the fabric)",
	  .help = "data queue of every switch egress port; overflow drops, or trims with "
		  "--trim" },
	{ SIM, .lname = "ecn-kmin-pct", .sec = "topology", .key = "ecn_kmin_pct",
	  UINT(ecn_kmin_pct, 20, 0, 100), .meta = "PCT",
	  .help = "RED/ECN marking starts at this share of the buffer (0 with "
		  "--ecn-kmax-pct 0: no marking)" },
	{ SIM, .lname = "ecn-kmax-pct", .sec = "topology", .key = "ecn_kmax_pct",
	  UINT(ecn_kmax_pct, 80, 0, 100), .meta = "PCT",
	  .help = "every ECN-capable packet is marked from this share of the buffer" },
	{ SIM, .lname = "trim", .sec = "topology", .key = "trim", .type = T_BOOL, FLD(trim),
	  .help = "a full queue trims data packets to their headers (forwarded at high "
		  "priority; the receiver NACKs them) instead of dropping them" },
	{ SIM, .lname = "shuffle-ties", .sec = "topology", .key = "shuffle_ties",
	  .type = T_BOOL, FLD(shuffle_ties), .defdoc = "false (scheduling order, as htsim)",
	  .help = "events due at the same picosecond run in a random order drawn from --seed: "
		  "packets that meet at a full queue at once are admitted by a fair draw, not "
		  "by which flow was created first (doc/uet-sim.md)" },

	/* Failures (uet-sim) */
	{ SIM, .lname = "failure", .sec = "failures", .key = "failure", .type = T_FAILURE,
	  ARR(failures, n_failures), .meta = "SPEC",
	  .help = "KIND:T:WHAT[:VALUE][:for=DUR][:converge=DUR], e.g. "
		  "link-down:100us:tor0.up1:for=100us, switch-down:1ms:spine2, "
		  "random-down:0:3%:tor-up, degrade:0:3%:tor-up:0.5, "
		  "link-rate:0:tor0.up1:100, ber:0:1%:tor-up:1e-6 (doc/uet-sim.md; "
		  "repeatable)" },
	{ SIM, .lname = "converge-us", .sec = "failures", .key = "converge_us",
	  DBL(converge_us, 0, 0, 1e9), .meta = "US", .defdoc = "0 (never: a blackhole)",
	  .help = "routing convergence: a failed link or switch leaves the switches' ECMP "
		  "groups this long after it fails, unless its spec says" },

	{ .lname = "profile", .sec = "transport", .key = "profile", .type = T_NAME,
	  .names = NAMES_PROFILE, FLD(profile), .sdef = "none", .meta = "NAME",
	  .help = "start from a named set of options, which the INI file and the command line "
		  "override: reps-paper (the REPS paper's simulation setup: dctcp-mprdma, 2^16 "
		  "EVs, a fixed 70 us RTO without backoff, no trimming, per-packet ACKs "
		  "repeating recent SACKs, 400 Gb/s, one-BDP queues, ECN 20-80%; "
		  "doc/uet-sim.md)" },
	{ .lname = "config", .type = T_CONFIG, FLD(config), .meta = "FILE",
	  .help = "read options from the INI FILE first; the command line overrides it" },
	{ .lname = "help", .sname = 'h', .type = T_HELP, .help = "show this help" },
	{ .lname = "version", .sname = 'V', .type = T_VERSION, .help = "show the version" },
	{ .lname = "print-config", .type = T_PRINT,
	  .help = "print every option's value (defaults, profile, files and command line "
		  "applied) as an INI file that --config reads back, and exit" },
};

const int conf_n_opts = (int)(sizeof(opt_table) / sizeof(opt_table[0]));
_Static_assert(sizeof(opt_table) / sizeof(opt_table[0]) <= UET_PERF_OPTS_MAX,
	       "raise UET_PERF_OPTS_MAX");

const struct conf_section conf_sections[] = {
	{ "mode", "Mode (uet-perf)" },
	{ "workload", "Workload" },
	{ "transport", "Transport" },
	{ "lb", "Load-balancer knobs (used when --lb selects that algorithm)" },
	{ "cc", "Congestion-control knobs (used when --cc selects that algorithm)" },
	{ "output", "Output and measurement" },
	{ "schedule", "Scheduled events (uet-perf)" },
	{ "topology", "Topology (uet-sim)" },
	{ "failures", "Failures (uet-sim)" },
	{ NULL, "Command line only" },
};
const size_t conf_n_sections = sizeof(conf_sections) / sizeof(conf_sections[0]);

int conf_app = UET_CONF_APP_PERF;

void
uet_conf_set_app(int app)
{
	conf_app = app == UET_CONF_APP_SIM ? UET_CONF_APP_SIM : UET_CONF_APP_PERF;
}

int
uet_conf_app(void)
{
	return conf_app;
}

const char *
conf_app_name(void)
{
	return conf_app == UET_CONF_APP_SIM ? "uet-sim" : "uet-perf";
}

/* Whether option row p exists for the program parsing now. */
bool
conf_for_app(const struct opt *p)
{
	return p->app == 0 || p->app == conf_app;
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */


_Static_assert(UET_CONF_EBAD == -1, "uet_text_fail() returns -1");

void *
conf_field(struct uet_perf_opts *o, const struct opt *p)
{
	return (char *)o + p->off;
}

const void *
conf_cfield(const struct uet_perf_opts *o, const struct opt *p)
{
	return (const char *)o + p->off;
}

uint32_t *
conf_count_of(struct uet_perf_opts *o, const struct opt *p)
{
	return (uint32_t *)(void *)((char *)o + p->n_off);
}

uint32_t
conf_ccount_of(const struct uet_perf_opts *o, const struct opt *p)
{
	return *(const uint32_t *)(const void *)((const char *)o + p->n_off);
}

void
conf_put_uint(void *f, size_t size, uint64_t v)
{
	switch (size) {
	case 1: *(uint8_t *)f = (uint8_t)v; break;
	case 2: *(uint16_t *)f = (uint16_t)v; break;
	case 4: *(uint32_t *)f = (uint32_t)v; break;
	default: *(uint64_t *)f = v; break;
	}
}

uint64_t
conf_get_uint(const void *f, size_t size)
{
	switch (size) {
	case 1: return *(const uint8_t *)f;
	case 2: return *(const uint16_t *)f;
	case 4: return *(const uint32_t *)f;
	default: return *(const uint64_t *)f;
	}
}

int
conf_find_long(const char *lname)
{
	int i;

	for (i = 0; i < N_OPTS; i++)
		if (strcmp(opt_table[i].lname, lname) == 0)
			return i;
	return -1;
}

int
conf_row(const char *lname)
{
	int i = conf_find_long(lname);

	assert(i >= 0);
	return i;
}

bool
conf_is_set(const struct uet_perf_opts *o, const char *lname)
{
	return o->src[conf_row(lname)] != UET_CONF_SRC_DEFAULT;
}

const char *
conf_mac_str(const uint8_t *m, char *buf, size_t n)
{
	snprintf(buf, n, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
		 m[5]);
	return buf;
}

const char *
conf_ip_str(uint32_t ip, char *buf, size_t n)
{
	snprintf(buf, n, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255,
		 ip & 255);
	return buf;
}
