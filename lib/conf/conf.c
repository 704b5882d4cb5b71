/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf options. Everything is driven by opt_table[]: one row per option.
 * The command line goes through getopt_long (long options built from the
 * table), INI files through iniparser for the values; iniparser gives no
 * line numbers and rejects some files with only a message on stderr, so
 * ini_read() scans the file itself first with iniparser's line rules
 * (continuations, comments, sections, key = value) and rejects whatever
 * iniparser would reject or silently merge (long lines, NUL bytes,
 * duplicate keys), with the line.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <iniparser.h>

#include "text/text.h"
#include "conf/conf.h"
#include "sim/series.h"
#include "uet/wire.h"

#ifndef UET_VERSION
#define UET_VERSION "unknown"
#endif

/* iniparser reads lines into 1024-byte buffers (continuations included);
 * stay well below. */
#define INI_LINE_MAX 1000
#define INI_FILE_MAX (1u << 20)
#define IP_UDP_HDR_BYTES 28u

const char *const uet_perf_patterns[] = {
	"pair", "permutation", "tornado", "incast", "outcast", "alltoall",
	"bisection", "ring-allreduce", "butterfly-allreduce", "websearch", "cm",
	NULL,
};

const char *const uet_perf_loss_detect[] = { "adaptive", "nack-rto", NULL };

/*
 * The REPS paper's simulation setup (reps.md §3.2-3.3, with the artifact's
 * values where the text gives none): every load balancer under the MPRDMA
 * DCTCP variant, 2^16 EVs (the artifact's -paths 65535), a fixed 70 us RTO
 * and no trimming, per-packet ACKs, 400 Gb/s two-tier fat trees with 500
 * ns links and switches, one-BDP queues marking ECN from 20% to 80%, 4 KiB
 * packets; REPS with the artifact's 10 ms freeze and its reset exploration;
 * flowlets timed from the last ACK; PLB at 25% for 2 rounds. Sizes, node
 * counts and per-figure freezes are the scenario's (tools/sim/paper_figures.py).
 */
static const char *const profile_reps_paper[] = {
	"link-gbps=400", "tiers=2", "link-latency-ns=500", "switch-latency-ns=500",
	"buffer-bytes=0", "ecn-kmin-pct=20", "ecn-kmax-pct=80", "trim=no", "mtu=4096",
	"ev-base=1", "ev-count=65535", "cc=dctcp-mprdma", "loss-detect=nack-rto",
	"rto-ns=70000", "ack-every=0", "reps-freeze-ns=10000000", "reps-explore-reset=yes",
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

enum opt_type {
	T_BOOL,     /* INI and --name=V: true/false/yes/no/on/off/1/0 */
	T_COUNT,    /* -v -v ...; --name=N */
	T_UINT,     /* decimal or 0x hex */
	T_BYTES,    /* integer with an optional K, M, G or T (2^10..) suffix */
	T_DOUBLE,
	T_STR,
	T_PATH_IN,  /* input file; in an INI file relative to its directory */
	T_NAME,     /* one of a list of names */
	T_SET,      /* "a-b,c" */
	T_ENDPOINT, /* repeatable types from here to T_EXEC */
	T_NEIGHBOR,
	T_FAIL_EV,
	T_EXEC,
	T_FAILURE,
	T_CONFIG,   /* command line only from here on */
	T_HELP,
	T_VERSION,
};
#define IS_REPEATABLE(t) ((t) >= T_ENDPOINT && (t) <= T_FAILURE)

#define F_SYM 0x1  /* every host must agree: in uet_perf_opts_hash */
#define F_POW2 0x2 /* power of two */

enum { NAMES_NONE = 0, NAMES_PATTERN, NAMES_LB, NAMES_CC, NAMES_LOSS, NAMES_PROFILE };

struct opt {
	const char *lname;   /* --lname */
	char sname;          /* -s, 0 if none */
	uint8_t type;        /* enum opt_type */
	uint8_t flags;       /* F_* */
	uint8_t names;       /* T_NAME: NAMES_* */
	const char *sec;     /* INI section, NULL: command line only */
	const char *key;     /* INI key */
	size_t off, size;    /* the field; repeatables: the array, one element */
	size_t n_off;        /* repeatables: the count */
	uint32_t cap;        /* repeatables: the array's length */
	uint64_t def, min, max;
	double ddef, dmin, dmax;
	const char *sdef;
	const char *meta;    /* value placeholder in --help */
	const char *defdoc;  /* default as the docs show it, when not the value */
	const char *help;
	uint8_t app;         /* UET_CONF_APP_* it belongs to; 0: both */
	bool has_simdef;     /* uet-sim's default differs: */
	uint64_t simdef;
	double dsimdef;
	const char *simdefdoc;
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

static const struct opt opt_table[] = {
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
	{ .lname = "load", .sec = "workload", .key = "load", DBL(load, 0.5, 0, 1),
	  .flags = F_SYM, .meta = "FRAC",
	  .help = "websearch, cm: offered load as a fraction of the link rate" },
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
	{ .lname = "max-rto-retx", .sec = "transport", .key = "max_rto_retx",
	  UINT(max_rto_retx, 0, 0, 1000), .flags = F_SYM, .meta = "N",
	  .defdoc = "0 (12)",
	  .help = "recovery episodes in a row without progress before a PDC gives up "
		  "and fails its messages (with the RTO cap, how long a flow survives a "
		  "dead path)" },
	{ .lname = "loss-detect", .sec = "transport", .key = "loss_detect", .type = T_NAME,
	  .names = NAMES_LOSS, FLD(loss_detect), .sdef = "adaptive", .flags = F_SYM,
	  .meta = "MODE",
	  .help = "how losses no NACK reports are found: adaptive (RACK with a reordering "
		  "window that adapts to spurious retransmissions, probes, an RTO undone "
		  "when spurious) or nack-rto (the UEC reference simulator's: NACKs and a "
		  "fixed RTO, --rto-ns or --rto-min-ns)" },
	{ .lname = "reorder-window-ns", .sec = "transport", .key = "reorder_window_ns",
	  UINT(reorder_window_ns, 0, 0, 1000000000), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (adaptive: min RTT / 4, up to the smoothed RTT)",
	  .help = "adaptive loss detection: fixed reordering window" },
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
		  "links' rate" },
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

	/* Load-balancer knobs */
	{ .lname = "reps-freeze-ns", .sec = "lb", .key = "reps_freeze_ns",
	  UINT(reps_freeze_ns, 0, 0, NS_MAX), .flags = F_SYM, .meta = "NS",
	  .defdoc = "0 (1 ms)", .help = "reps: freezing timeout after a path failure" },
	{ .lname = "reps-no-freeze", .sec = "lb", .key = "reps_no_freeze",
	  .type = T_BOOL, FLD(reps_no_freeze), .flags = F_SYM,
	  .help = "reps: never freeze" },
	{ .lname = "reps-reuse", .sec = "lb", .key = "reps_reuse",
	  UINT(reps_reuse, 0, 0, 15), .flags = F_SYM, .meta = "N",
	  .help = "reps ACK+Reuse: packets each cached EV serves; 0 or 1 = standard" },
	{ SIM, .lname = "ecmp-every", .sec = "lb", .key = "ecmp_every",
	  UINT(ecmp_every, 0, 0, 1u << 24), .meta = "N", .defdoc = "0 (none)",
	  .help = "a mixed deployment: hosts 0, N, 2N, ... use ecmp whatever --lb says "
		  "(the REPS paper's 10% of background ECMP traffic: 10)" },
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
	{ SIM, .lname = "oversub", .sec = "topology", .key = "oversub", UINT(oversub, 1, 1, 4),
	  .meta = "N", .help = "ToR oversubscription N:1 (host ports : uplinks)" },
	{ SIM, .lname = "hosts-per-tor", .sec = "topology", .key = "hosts_per_tor",
	  UINT(hosts_per_tor, 0, 0, 65535), .meta = "N",
	  .defdoc = "0 (the largest divisor of --nodes up to its square root; 3 tiers: "
		    "the k-ary fat tree)",
	  .help = "hosts under each ToR" },
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
		  "EVs, a fixed 70 us RTO, no trimming, per-packet ACKs, 400 Gb/s, one-BDP "
		  "queues, ECN 20-80%; doc/uet-sim.md)" },
	{ .lname = "config", .type = T_CONFIG, FLD(config), .meta = "FILE",
	  .help = "read options from the INI FILE first; the command line overrides it" },
	{ .lname = "help", .sname = 'h', .type = T_HELP, .help = "show this help" },
	{ .lname = "version", .sname = 'V', .type = T_VERSION, .help = "show the version" },
};

#define N_OPTS ((int)(sizeof(opt_table) / sizeof(opt_table[0])))
_Static_assert(sizeof(opt_table) / sizeof(opt_table[0]) <= UET_PERF_OPTS_MAX,
	       "raise UET_PERF_OPTS_MAX");

static const struct {
	const char *sec, *title;
} sections[] = {
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

static int conf_app = UET_CONF_APP_PERF;

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

static const char *
app_name(void)
{
	return conf_app == UET_CONF_APP_SIM ? "uet-sim" : "uet-perf";
}

/* Whether option row p exists for the program parsing now. */
static bool
for_app(const struct opt *p)
{
	return p->app == 0 || p->app == conf_app;
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

#define SHOWN UET_SHOWN /* user input quoted in a message */

/* Every parser's error: the message into err, UET_CONF_EBAD returned. */
#define fail uet_text_fail
_Static_assert(UET_CONF_EBAD == -1, "uet_text_fail() returns -1");

static void *
field(struct uet_perf_opts *o, const struct opt *p)
{
	return (char *)o + p->off;
}

static const void *
cfield(const struct uet_perf_opts *o, const struct opt *p)
{
	return (const char *)o + p->off;
}

static uint32_t *
count_of(struct uet_perf_opts *o, const struct opt *p)
{
	return (uint32_t *)(void *)((char *)o + p->n_off);
}

static uint32_t
ccount_of(const struct uet_perf_opts *o, const struct opt *p)
{
	return *(const uint32_t *)(const void *)((const char *)o + p->n_off);
}

static void
put_uint(void *f, size_t size, uint64_t v)
{
	switch (size) {
	case 1: *(uint8_t *)f = (uint8_t)v; break;
	case 2: *(uint16_t *)f = (uint16_t)v; break;
	case 4: *(uint32_t *)f = (uint32_t)v; break;
	default: *(uint64_t *)f = v; break;
	}
}

static uint64_t
get_uint(const void *f, size_t size)
{
	switch (size) {
	case 1: return *(const uint8_t *)f;
	case 2: return *(const uint16_t *)f;
	case 4: return *(const uint32_t *)f;
	default: return *(const uint64_t *)f;
	}
}

static int
find_long(const char *lname)
{
	int i;

	for (i = 0; i < N_OPTS; i++)
		if (strcmp(opt_table[i].lname, lname) == 0)
			return i;
	return -1;
}

static int
row(const char *lname)
{
	int i = find_long(lname);

	assert(i >= 0);
	return i;
}

static bool
is_set(const struct uet_perf_opts *o, const char *lname)
{
	return o->src[row(lname)] != UET_CONF_SRC_DEFAULT;
}

static const char *
mac_str(const uint8_t *m, char *buf, size_t n)
{
	snprintf(buf, n, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
		 m[5]);
	return buf;
}

static const char *
ip_str(uint32_t ip, char *buf, size_t n)
{
	snprintf(buf, n, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255,
		 ip & 255);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Value parsers                                                       */

static int
parse_uint(const char *s, bool bytes, uint64_t *out, char *err, size_t n)
{
	const char *p = s;
	uint64_t v = 0, base = 10;
	unsigned shift = 0;

	if (*s == '\0')
		return fail(err, n, "missing value");
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
		base = 16;
		p += 2;
	}
	if (*p == '-')
		return fail(err, n, "'%s' is negative", SHOWN(s));
	if (base == 10 && !isdigit((unsigned char)*p))
		return fail(err, n, "'%s' is not a number", SHOWN(s));
	for (; base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p); p++) {
		uint64_t d = isdigit((unsigned char)*p) ? (uint64_t)(*p - '0')
							: (uint64_t)(tolower((unsigned char)*p) - 'a' + 10);

		if (v > (UINT64_MAX - d) / base)
			return fail(err, n, "'%s' is too large", SHOWN(s));
		v = v * base + d;
	}
	if (*p != '\0') {
		const char *k = strchr("KMGT", toupper((unsigned char)*p));

		if (!bytes) {
			if (*p == '.')
				return fail(err, n, "'%s' is not an integer", SHOWN(s));
			return fail(err, n, "'%s' has a suffix '%s'; this option takes a "
				    "plain integer", SHOWN(s), SHOWN(p));
		}
		if (*p == '.')
			return fail(err, n, "'%s' is not an integer number of bytes", SHOWN(s));
		if (k == NULL || *p == '\0' || p[1] != '\0')
			return fail(err, n, "'%s' has a bad suffix '%s' (K, M, G or T = "
				    "2^10, 2^20, 2^30, 2^40)", SHOWN(s), SHOWN(p));
		shift = 10 * (unsigned)(k - "KMGT" + 1);
		if (v > (UINT64_MAX >> shift))
			return fail(err, n, "'%s' is too large", SHOWN(s));
		v <<= shift;
	}
	*out = v;
	return 0;
}

static int
parse_bool(const char *s, bool *out, char *err, size_t n)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };
	size_t i;

	if (*s == '\0')
		return fail(err, n, "missing value");
	for (i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return fail(err, n, "'%s' is not a boolean (true/false, yes/no, on/off, 1/0)",
		    SHOWN(s));
}

static int
parse_ip(const char *s, uint32_t *ip, char *err, size_t n)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return fail(err, n, "'%s' is not an IPv4 address", SHOWN(s));
	*ip = ntohl(a.s_addr);
	return 0;
}

static int
parse_mac(const char *s, uint8_t mac[6], char *err, size_t n)
{
	int i;

	for (i = 0; i < 6; i++) {
		const char *p = s + 3 * i;

		if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]) ||
		    p[2] != (i == 5 ? '\0' : ':'))
			return fail(err, n, "'%s' is not a MAC address (xx:xx:xx:xx:xx:xx)",
				    SHOWN(s));
		mac[i] = (uint8_t)strtoul((char[3]){ p[0], p[1], 0 }, NULL, 16);
	}
	return 0;
}

/* Decimal digits only, at most max. */
static int
parse_dec(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s) || v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

int
uet_perf_parse_set(const char *s, uint32_t min, uint32_t max, struct uet_perf_set *out,
		   char *err, size_t errlen)
{
	char buf[INI_LINE_MAX + 24], *b, *item, *save = NULL;
	struct uet_perf_set set = { 0 };
	uint32_t i;

	if (strlen(s) >= sizeof(buf))
		return fail(err, errlen, "list too long");
	snprintf(buf, sizeof(buf), "%s", s);
	b = uet_text_strip(buf);
	if (*b == '\0')
		return fail(err, errlen, "empty list");
	if (b[0] == ',' || b[strlen(b) - 1] == ',' || strstr(b, ",,") != NULL)
		return fail(err, errlen, "'%s' has an empty item", SHOWN(s));
	for (item = strtok_r(b, ",", &save); item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		char *it = uet_text_strip(item), *dash = strchr(it, '-');
		uint64_t lo, hi;

		if (*it == '\0')
			return fail(err, errlen, "'%s' has an empty item", SHOWN(s));
		if (dash != NULL)
			*dash = '\0';
		if (parse_dec(uet_text_strip(it), UINT32_MAX, &lo) < 0 ||
		    (dash != NULL && parse_dec(uet_text_strip(dash + 1), UINT32_MAX, &hi) < 0))
			return fail(err, errlen, "'%s' is not a number or a range a-b",
				    SHOWN(dash != NULL ? s : it));
		if (dash == NULL)
			hi = lo;
		if (lo > hi)
			return fail(err, errlen, "range %llu-%llu is backwards",
				    (unsigned long long)lo, (unsigned long long)hi);
		if (lo < min || hi > max)
			return fail(err, errlen, "%llu is outside %u..%u",
				    (unsigned long long)(lo < min ? lo : hi), min, max);
		for (i = 0; i < set.n; i++)
			if (lo <= set.r[i].hi && hi >= set.r[i].lo)
				return fail(err, errlen, "%llu-%llu overlaps %u-%u",
					    (unsigned long long)lo, (unsigned long long)hi,
					    set.r[i].lo, set.r[i].hi);
		if (set.n == UET_PERF_SET_MAX)
			return fail(err, errlen, "more than %d ranges", UET_PERF_SET_MAX);
		set.r[set.n].lo = (uint32_t)lo;
		set.r[set.n].hi = (uint32_t)hi;
		set.n++;
	}
	*out = set;
	return 0;
}

bool
uet_perf_set_has(const struct uet_perf_set *s, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		if (v >= s->r[i].lo && v <= s->r[i].hi)
			return true;
	return false;
}

uint64_t
uet_perf_set_count(const struct uet_perf_set *s)
{
	uint64_t c = 0;
	uint32_t i;

	for (i = 0; i < s->n; i++)
		c += (uint64_t)s->r[i].hi - s->r[i].lo + 1;
	return c;
}

int
uet_perf_parse_time_ns(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	return uet_text_parse_time_ns(s, ns, err, errlen) == 0 ? 0 : UET_CONF_EBAD;
}

/* Split "T:REST" and parse T. */
static int
split_time(const char *s, uint64_t *ns, const char **rest, const char *what,
	   char *err, size_t errlen)
{
	char t[32];
	const char *colon = strchr(s, ':');

	if (colon == NULL)
		return fail(err, errlen, "'%s' is not T:%s (e.g. 2.5:%s)", SHOWN(s), what,
			    strcmp(what, "SET") == 0 ? "49152-49183" : "echo hi");
	if ((size_t)(colon - s) >= sizeof(t))
		return fail(err, errlen, "time in '%s' is too long", SHOWN(s));
	memcpy(t, s, (size_t)(colon - s));
	t[colon - s] = '\0';
	if (uet_perf_parse_time_ns(uet_text_strip(t), ns, err, errlen) < 0)
		return UET_CONF_EBAD;
	*rest = colon + 1;
	if (**rest == '\0')
		return fail(err, errlen, "'%s' has no %s after the ':'", SHOWN(s), what);
	return 0;
}

int
uet_perf_parse_fail_ev(const char *s, struct uet_perf_fail_ev *out, char *err,
		       size_t errlen)
{
	struct uet_perf_fail_ev f;
	const char *rest;
	char why[160];

	if (split_time(s, &f.at_ns, &rest, "SET", err, errlen) < 0)
		return UET_CONF_EBAD;
	if (uet_perf_parse_set(rest, 1, 65535, &f.evs, why, sizeof(why)) < 0)
		return fail(err, errlen, "EV set: %s", why);
	*out = f;
	return 0;
}

/* ------------------------------------------------------------------ */
/* uet-sim failure specs (conf.h)                                      */

int
uet_conf_parse_failure(const char *spec, struct sim_failure *out, char *err, size_t errlen)
{
	return sim_failure_parse(spec, out, err, errlen) == 0 ? 0 : UET_CONF_EBAD;
}

int
uet_perf_parse_exec(const char *s, struct uet_perf_exec *out, char *err, size_t errlen)
{
	struct uet_perf_exec x;
	const char *rest;

	if (split_time(s, &x.at_ns, &rest, "CMD", err, errlen) < 0)
		return UET_CONF_EBAD;
	if (rest[strspn(rest, " \t")] == '\0')
		return fail(err, errlen, "'%s' has an empty command", SHOWN(s));
	if (strlen(rest) >= sizeof(x.cmd))
		return fail(err, errlen, "command longer than %d bytes",
			    UET_PERF_CMD_MAX - 1);
	snprintf(x.cmd, sizeof(x.cmd), "%s", rest);
	*out = x;
	return 0;
}

/* "k=v, k=v": calls fn for each pair; each key at most once (bit in seen). */
typedef int (*kv_fn)(void *ctx, int k, const char *v, char *err, size_t n);

static int
parse_kv(const char *s, const char *const *keys, kv_fn fn, void *ctx, uint32_t *seen,
	 char *err, size_t n)
{
	char buf[INI_LINE_MAX + 24], *item, *save = NULL;
	int k;

	*seen = 0;
	if (strlen(s) >= sizeof(buf))
		return fail(err, n, "spec too long");
	snprintf(buf, sizeof(buf), "%s", s);
	if (*uet_text_strip(buf) == '\0')
		return fail(err, n, "empty spec");
	for (item = strtok_r(buf, ",", &save); item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '='), *key;

		if (eq == NULL)
			return fail(err, n, "'%s' is not key=value", SHOWN(uet_text_strip(item)));
		*eq = '\0';
		key = uet_text_strip(item);
		for (k = 0; keys[k] != NULL && strcmp(keys[k], key) != 0; k++)
			;
		if (keys[k] == NULL) {
			char list[128] = "";

			for (k = 0; keys[k] != NULL; k++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list),
					 "%s%s", k ? ", " : "", keys[k]);
			return fail(err, n, "unknown field '%s' (one of: %s)", SHOWN(key),
				    list);
		}
		if (*seen & (1u << k))
			return fail(err, n, "field '%s' given twice", keys[k]);
		*seen |= 1u << k;
		if (fn(ctx, k, uet_text_strip(eq + 1), err, n) < 0)
			return UET_CONF_EBAD;
	}
	return 0;
}

enum { EP_IP, EP_MAC, EP_PORT, EP_QUEUE, EP_GW, EP_CONTROL };
static const char *const ep_keys[] = { "ip", "mac", "port", "queue", "gw", "control", NULL };
static const char *const ep_keys_local[] = { "ip", "mac", "port", "queue", "gw", NULL };

/* "A.B.C.D" or "A.B.C.D/LEN": the address and its on-link prefix. */
static int
parse_ip_prefix(const char *v, uint32_t *ip, uint8_t *prefix_len, char *err, size_t n)
{
	char buf[32], *slash;
	char *end;
	unsigned long len;

	if (strlen(v) >= sizeof(buf))
		return fail(err, n, "'%s' is not an IPv4 address", SHOWN(v));
	snprintf(buf, sizeof(buf), "%s", v);
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash = '\0';
		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (slash[1] == '\0' || *end != '\0' || errno != 0 || len < 1 || len > 32)
			return fail(err, n, "prefix length '%s' is not in 1..32", SHOWN(slash + 1));
		*prefix_len = (uint8_t)len;
	}
	return parse_ip(buf, ip, err, n);
}

static int
ep_field(void *ctx, int k, const char *v, char *err, size_t n)
{
	struct uet_perf_endpoint *e = ctx;
	char why[128];
	uint64_t u;

	switch (k) {
	case EP_IP:
		return parse_ip_prefix(v, &e->ip, &e->prefix_len, err, n);
	case EP_GW:
		return parse_ip(v, &e->gateway, err, n);
	case EP_CONTROL:
		return parse_ip(v, &e->control_ip, err, n);
	case EP_MAC:
		e->has_mac = true;
		return parse_mac(v, e->mac, err, n);
	default:
		if (parse_uint(v, false, &u, why, sizeof(why)) < 0)
			return fail(err, n, "%s: %s", ep_keys[k], why);
		if (u > 65535)
			return fail(err, n, "%s %llu is outside 0..65535", ep_keys[k],
				    (unsigned long long)u);
		if (k == EP_PORT)
			e->port = (uint16_t)u;
		else
			e->queue = (uint16_t)u;
		return 0;
	}
}

int
uet_perf_parse_endpoint(const char *s, bool hosts_entry, struct uet_perf_endpoint *out,
			char *err, size_t errlen)
{
	struct uet_perf_endpoint e;
	uint32_t seen;

	memset(&e, 0, sizeof(e));
	if (parse_kv(s, hosts_entry ? ep_keys : ep_keys_local, ep_field, &e, &seen, err,
		     errlen) < 0)
		return UET_CONF_EBAD;
	if (!(seen & (1u << EP_IP)))
		return fail(err, errlen, "missing field 'ip'");
	if (hosts_entry && !(seen & (1u << EP_CONTROL)))
		return fail(err, errlen, "missing field 'control'");
	if ((seen & (1u << EP_GW)) && e.prefix_len == 0)
		return fail(err, errlen, "field 'gw' needs the on-link prefix: ip=A.B.C.D/LEN");
	if ((seen & (1u << EP_GW)) && e.prefix_len < 32 &&
	    ((e.gateway ^ e.ip) >> (32 - e.prefix_len)) != 0)
		return fail(err, errlen, "gateway is not inside the endpoint's /%u", e.prefix_len);
	*out = e;
	return 0;
}

static int
nb_field(void *ctx, int k, const char *v, char *err, size_t n)
{
	struct uet_perf_neighbor *nb = ctx;

	return k == EP_IP ? parse_ip(v, &nb->ip, err, n) : parse_mac(v, nb->mac, err, n);
}

int
uet_perf_parse_neighbor(const char *s, struct uet_perf_neighbor *out, char *err,
			size_t errlen)
{
	static const char *const keys[] = { "ip", "mac", NULL };
	struct uet_perf_neighbor nb;
	uint32_t seen;

	memset(&nb, 0, sizeof(nb));
	if (parse_kv(s, keys, nb_field, &nb, &seen, err, errlen) < 0)
		return UET_CONF_EBAD;
	if (seen != 3)
		return fail(err, errlen, "missing field '%s'",
			    (seen & 1) ? "mac" : "ip");
	*out = nb;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

static const char *
name_at(int names, int i)
{
	if (names == NAMES_PATTERN)
		return uet_perf_patterns[i];
	if (names == NAMES_LB)
		return uet_lb_all()[i] != NULL ? uet_lb_all()[i]->name : NULL;
	if (names == NAMES_LOSS)
		return uet_perf_loss_detect[i];
	if (names == NAMES_PROFILE)
		return uet_perf_profiles[i].name;
	return uet_cc_all()[i] != NULL ? uet_cc_all()[i]->name : NULL;
}

static void
name_list(int names, char *buf, size_t n)
{
	const char *s;
	int i;

	buf[0] = '\0';
	for (i = 0; (s = name_at(names, i)) != NULL; i++)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? ", " : "", s);
}

static int
check_name(int names, const char *v, char *err, size_t n)
{
	static const char *const what[] = { "", "pattern", "load balancer",
					    "congestion controller", "loss detection", "profile" };
	char list[256];
	const char *s;
	int i;

	if (*v == '\0')
		return fail(err, n, "missing value");
	for (i = 0; (s = name_at(names, i)) != NULL; i++)
		if (strcmp(s, v) == 0)
			return 0;
	name_list(names, list, sizeof(list));
	return fail(err, n, "unknown %s '%s' (one of: %s)", what[names], SHOWN(v), list);
}

/* ------------------------------------------------------------------ */
/* Setting one option                                                  */

static void
set_default(struct uet_perf_opts *o, int i)
{
	const struct opt *p = &opt_table[i];
	void *f = field(o, p);

	switch (p->type) {
	case T_BOOL:
		*(bool *)f = conf_app == UET_CONF_APP_SIM && p->has_simdef ? p->simdef != 0
									   : p->def != 0;
		break;
	case T_COUNT:
	case T_UINT:
	case T_BYTES:
		assert(p->size == 8 || p->max < (1ULL << (8 * p->size)));
		put_uint(f, p->size, conf_app == UET_CONF_APP_SIM && p->has_simdef ? p->simdef
										   : p->def);
		break;
	case T_DOUBLE:
		*(double *)f = conf_app == UET_CONF_APP_SIM && p->has_simdef ? p->dsimdef : p->ddef;
		break;
	case T_STR:
	case T_PATH_IN:
	case T_NAME:
	case T_CONFIG:
		snprintf(f, p->size, "%s", p->sdef != NULL ? p->sdef : "");
		break;
	case T_SET:
		memset(f, 0, p->size);
		break;
	case T_ENDPOINT:
	case T_NEIGHBOR:
	case T_FAIL_EV:
	case T_EXEC:
	case T_FAILURE:
		*count_of(o, p) = 0;
		memset(f, 0, p->size * p->cap);
		break;
	default:
		break;
	}
	o->src[i] = UET_CONF_SRC_DEFAULT;
	o->src_line[i] = 0;
}

void
uet_perf_opts_default(struct uet_perf_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < N_OPTS; i++)
		set_default(o, i);
}

/* Prefix base_dir to a relative path read from a file. */
static int
resolve_path(const char *v, const char *base_dir, char *out, size_t n, char *err,
	     size_t errlen)
{
	int len;

	if (base_dir == NULL || base_dir[0] == '\0' || v[0] == '/')
		len = snprintf(out, n, "%s", v);
	else
		len = snprintf(out, n, "%s/%s", base_dir, v);
	if (len < 0 || (size_t)len >= n)
		return fail(err, errlen, "path longer than %zu bytes", n - 1);
	return 0;
}

static int
parse_string(const struct opt *p, const char *v, const char *base_dir, void *f,
	     char *err, size_t n)
{
	const char *c;

	if (*v == '\0')
		return fail(err, n, "missing value");
	for (c = v; *c != '\0'; c++)
		if (iscntrl((unsigned char)*c))
			return fail(err, n, "'%s' contains a control character", SHOWN(v));
	if (p->type == T_NAME && check_name(p->names, v, err, n) < 0)
		return UET_CONF_EBAD;
	if (p->type == T_PATH_IN)
		return resolve_path(v, base_dir, f, p->size, err, n);
	if (strlen(v) >= p->size)
		return fail(err, n, "longer than %zu bytes", p->size - 1);
	if (p->type == T_STR && p->meta != NULL && strcmp(p->meta, "HOST") == 0 &&
	    strpbrk(v, " \t") != NULL)
		return fail(err, n, "'%s' is not a host name or address", SHOWN(v));
	snprintf(f, p->size, "%s", v);
	return 0;
}

/* Append one element of a repeatable option. */
static int
parse_item(const struct opt *p, const char *v, void *elem, char *err, size_t n)
{
	switch (p->type) {
	case T_ENDPOINT:
		return uet_perf_parse_endpoint(v, false, elem, err, n);
	case T_NEIGHBOR:
		return uet_perf_parse_neighbor(v, elem, err, n);
	case T_FAIL_EV:
		return uet_perf_parse_fail_ev(v, elem, err, n);
	case T_FAILURE:
		return uet_conf_parse_failure(v, elem, err, n);
	default:
		return uet_perf_parse_exec(v, elem, err, n);
	}
}

/*
 * Parse v (NULL: a flag without a value on the command line) into option
 * i from source src. err gets what is wrong, without naming the option.
 */
static int
apply(struct uet_perf_opts *o, int i, const char *v, int src, uint32_t line,
      const char *base_dir, char *err, size_t n)
{
	const struct opt *p = &opt_table[i];
	void *f = field(o, p);
	uint64_t u;
	double d = 0;
	bool b = false;

	switch (p->type) {
	case T_BOOL:
		if (v == NULL)
			b = true;
		else if (parse_bool(v, &b, err, n) < 0)
			return UET_CONF_EBAD;
		*(bool *)f = b;
		break;
	case T_COUNT:
		if (v == NULL) {
			u = (o->src[i] == src ? get_uint(f, p->size) : 0) + 1;
			if (u > p->max)
				return fail(err, n, "given more than %llu times",
					    (unsigned long long)p->max);
			put_uint(f, p->size, u);
			break;
		}
		/* fall through */
	case T_UINT:
	case T_BYTES:
		if (parse_uint(v, p->type == T_BYTES, &u, err, n) < 0)
			return UET_CONF_EBAD;
		if (u < p->min || u > p->max)
			return fail(err, n, "%llu is out of range %llu..%llu",
				    (unsigned long long)u, (unsigned long long)p->min,
				    (unsigned long long)p->max);
		if ((p->flags & F_POW2) && (u & (u - 1)) != 0)
			return fail(err, n, "%llu is not a power of two",
				    (unsigned long long)u);
		put_uint(f, p->size, u);
		break;
	case T_DOUBLE:
		if (uet_text_parse_double(v, &d, err, n) < 0)
			return UET_CONF_EBAD;
		if (d < p->dmin || d > p->dmax)
			return fail(err, n, "%g is out of range %g..%g", d, p->dmin, p->dmax);
		*(double *)f = d;
		break;
	case T_STR:
	case T_PATH_IN:
	case T_NAME:
	case T_CONFIG:
		if (parse_string(p, v, base_dir, f, err, n) < 0)
			return UET_CONF_EBAD;
		break;
	case T_SET:
		if (uet_perf_parse_set(v, (uint32_t)p->min, (uint32_t)p->max, f, err, n) < 0)
			return UET_CONF_EBAD;
		break;
	case T_ENDPOINT:
	case T_NEIGHBOR:
	case T_FAIL_EV:
	case T_EXEC:
	case T_FAILURE: {
		uint32_t *cnt = count_of(o, p);

		/* A new source replaces the list of a weaker one. */
		if (o->src[i] != src)
			*cnt = 0;
		if (*cnt == p->cap)
			return fail(err, n, "more than %u given", p->cap);
		if (parse_item(p, v, (char *)f + *cnt * p->size, err, n) < 0)
			return UET_CONF_EBAD;
		(*cnt)++;
		break;
	}
	default:
		return fail(err, n, "not an option of this kind of source");
	}
	o->src[i] = (uint8_t)src;
	o->src_line[i] = line;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Naming an option in a message by where it was set                   */

static const char *
where(const struct uet_perf_opts *o, int i, char *buf, size_t n)
{
	const struct opt *p = &opt_table[i];

	if (o->src[i] == UET_CONF_SRC_INI)
		snprintf(buf, n, "%s:%u: key '%s.%s'", o->src_file, o->src_line[i], p->sec,
			 p->key);
	else if (o->src[i] == UET_CONF_SRC_PROFILE)
		snprintf(buf, n, "option '--%s' (set by --profile %s)", p->lname, o->profile);
	else
		snprintf(buf, n, "option '--%s'", p->lname);
	return buf;
}

/* The other option of a message, shorter. */
static const char *
other(const struct uet_perf_opts *o, int i, char *buf, size_t n)
{
	const struct opt *p = &opt_table[i];

	if (o->src[i] == UET_CONF_SRC_INI)
		snprintf(buf, n, "'%s.%s' (line %u)", p->sec, p->key, o->src_line[i]);
	else
		snprintf(buf, n, "'--%s'", p->lname);
	return buf;
}

#define WHERE(i) where(o, (i), (char[UET_PERF_PATH_MAX + 96]){ 0 }, UET_PERF_PATH_MAX + 96)
#define OTHER(i) other(o, (i), (char[96]){ 0 }, 96)

/* ------------------------------------------------------------------ */
/* Cross-option validation                                             */

static bool
active(const struct uet_perf_opts *o, int i)
{
	const struct opt *p = &opt_table[i];

	if (p->type == T_BOOL)
		return *(const bool *)cfield(o, p);
	if (p->type == T_STR || p->type == T_PATH_IN)
		return *(const char *)cfield(o, p) != '\0';
	return o->src[i] != UET_CONF_SRC_DEFAULT;
}

static const char *const exclusive[][2] = {
	{ "server", "client" },
	{ "server", "hosts" },
	{ "client", "hosts" },
	{ "iters", "duration" },
};

static int
finalize(struct uet_perf_opts *o, char *err, size_t n)
{
	int a, b, i;
	uint32_t k, j;

	/* Exclusive pairs: an error within one source; across sources the
	 * command line wins. */
	for (k = 0; k < sizeof(exclusive) / sizeof(exclusive[0]); k++) {
		a = row(exclusive[k][0]);
		b = row(exclusive[k][1]);
		if (!active(o, a) || !active(o, b))
			continue;
		if (o->src[a] == o->src[b])
			return fail(err, n, "%s: excludes %s", WHERE(b), OTHER(a));
		set_default(o, o->src[a] < o->src[b] ? a : b);
	}
	if (o->server)
		o->mode = UET_PERF_MODE_SERVER;
	else if (o->client[0] != '\0')
		o->mode = UET_PERF_MODE_CLIENT;
	else if (o->hosts[0] != '\0')
		o->mode = UET_PERF_MODE_HOSTS;
	else if (o->n_endpoints >= 2)
		o->mode = UET_PERF_MODE_LOCAL;
	else
		o->mode = UET_PERF_MODE_NONE;

	if (o->mode != UET_PERF_MODE_SERVER && is_set(o, "clients"))
		return fail(err, n, "%s: needs --server", WHERE(row("clients")));
	if (o->port_series[0] != '\0') {
		struct sim_series_sel *sel = malloc(sizeof(*sel));
		char why[256];
		int bad;

		if (sel == NULL)
			return fail(err, n, "out of memory");
		bad = sim_series_parse(o->port_series, sel, why, sizeof(why));
		free(sel);
		if (bad)
			return fail(err, n, "%s: %s", WHERE(row("port-series")), why);
	}
	if (conf_app == UET_CONF_APP_PERF && strcmp(o->lb, "ar") == 0)
		return fail(err, n, "%s: 'ar' is adaptive routing in the switches, which uet-sim "
			    "models; on a testbed configure it in the switches and spray with "
			    "--lb ops", WHERE(row("lb")));
	if (o->duration_s > 0 &&
	    (strcmp(o->pattern, "ring-allreduce") == 0 ||
	     strcmp(o->pattern, "butterfly-allreduce") == 0 || strcmp(o->pattern, "cm") == 0))
		return fail(err, n, "%s: pattern '%s' runs a fixed number of iterations "
			    "(--iters), not a duration", WHERE(row("duration")), o->pattern);

	a = row("rank");
	b = row("local");
	if (o->mode != UET_PERF_MODE_HOSTS && is_set(o, "rank"))
		return fail(err, n, "%s: needs --hosts", WHERE(a));
	if (o->mode != UET_PERF_MODE_HOSTS && is_set(o, "local"))
		return fail(err, n, "%s: needs --hosts", WHERE(b));
	if (is_set(o, "rank") && is_set(o, "local"))
		return fail(err, n, "%s: excludes %s (the ranks of this process)",
			    WHERE(a), OTHER(b));
	if (o->mode == UET_PERF_MODE_HOSTS && o->n_endpoints > 0)
		return fail(err, n, "%s: the hosts list gives the endpoints of a "
			    "--hosts run", WHERE(row("endpoint")));
	for (k = 0; k < o->n_endpoints; k++)
		for (j = 0; j < k; j++)
			if (o->endpoints[k].ip == o->endpoints[j].ip)
				return fail(err, n, "%s: endpoints %u and %u have the "
					    "same ip", WHERE(row("endpoint")), j + 1, k + 1);

	/* Size sweep: an unset end is --size (nccl-tests: -b and -e default
	 * to one size). */
	if (!is_set(o, "min-bytes"))
		o->min_bytes = o->all_sizes ? 2 : o->size_bytes;
	if (!is_set(o, "max-bytes"))
		o->max_bytes = o->all_sizes ? 8u << 20 : o->size_bytes;
	if (o->min_bytes > o->max_bytes) {
		i = is_set(o, "min-bytes") ? row("min-bytes") : row("max-bytes");
		return fail(err, n, "%s: the sweep goes from %llu down to %llu bytes; "
			    "--min-bytes must not exceed --max-bytes", WHERE(i),
			    (unsigned long long)o->min_bytes,
			    (unsigned long long)o->max_bytes);
	}

	if (strcmp(o->pattern, "cm") == 0 && o->cm[0] == '\0')
		return fail(err, n, "%s: pattern 'cm' needs --cm FILE", WHERE(row("pattern")));
	if (strcmp(o->pattern, "cm") != 0 && o->cm[0] != '\0')
		return fail(err, n, "%s: a connection matrix needs --pattern cm (the "
			    "pattern is '%s')", WHERE(row("cm")), o->pattern);

	if ((uint32_t)o->ev_base + o->ev_count > 65536) {
		i = is_set(o, "ev-count") ? row("ev-count") : row("ev-base");
		return fail(err, n, "%s: EVs %u..%u go past 65535", WHERE(i), o->ev_base,
			    o->ev_base + o->ev_count - 1);
	}
	for (k = 0; k < o->n_fail_ev; k++) {
		const struct uet_perf_set *s = &o->fail_ev[k].evs;

		for (j = 0; j < s->n; j++)
			if (s->r[j].lo < o->ev_base ||
			    s->r[j].hi >= (uint32_t)o->ev_base + o->ev_count)
				return fail(err, n, "%s: EVs %u-%u of entry %u are outside "
					    "the EV set %u..%u (--ev-base, --ev-count)",
					    WHERE(row("fail-ev-at")), s->r[j].lo, s->r[j].hi,
					    k + 1, o->ev_base, o->ev_base + o->ev_count - 1);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* INI files                                                           */

static char ini_errmsg[256];

static int
ini_errback(const char *fmt, ...)
{
	va_list ap;

	if (ini_errmsg[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(ini_errmsg, sizeof(ini_errmsg), fmt, ap);
		va_end(ap);
	}
	return 0;
}

struct ini_key {
	uint32_t line;
	uint32_t seclen;  /* full = "section:key", iniparser's name */
	char *full;
};

struct ini {
	const char *path;
	char *text;
	struct ini_key *keys;
	uint32_t n_keys;
	dictionary *d;
};

static void
ini_free(struct ini *f)
{
	uint32_t i;

	for (i = 0; i < f->n_keys; i++)
		free(f->keys[i].full);
	free(f->keys);
	free(f->text);
	if (f->d != NULL)
		iniparser_freedict(f->d);
}

static int
read_file(struct ini *f, char *err, size_t n)
{
	FILE *fp = fopen(f->path, "rb");
	size_t len;

	if (fp == NULL)
		return fail(err, n, "%s: cannot open: %s", f->path, strerror(errno));
	f->text = malloc(INI_FILE_MAX + 2);
	if (f->text == NULL) {
		fclose(fp);
		return fail(err, n, "%s: out of memory", f->path);
	}
	len = fread(f->text, 1, INI_FILE_MAX + 1, fp);
	if (ferror(fp)) {
		fclose(fp);
		return fail(err, n, "%s: cannot read: %s", f->path, strerror(errno));
	}
	fclose(fp);
	if (len > INI_FILE_MAX)
		return fail(err, n, "%s: larger than %u bytes", f->path, INI_FILE_MAX);
	f->text[len] = '\0';
	if (memchr(f->text, '\0', len) != NULL) {
		uint32_t line = 1;
		const char *c;

		for (c = f->text; *c != '\0'; c++)
			line += *c == '\n';
		return fail(err, n, "%s:%u: binary data (a NUL byte)", f->path, line);
	}
	return 0;
}

static bool
name_ok(const char *s)
{
	return *s != '\0' && s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_.-")] == '\0';
}

static int
cmp_keys(const void *a, const void *b)
{
	const struct ini_key *x = a, *y = b;
	int c = strcmp(x->full, y->full);

	return c != 0 ? c : (x->line > y->line) - (x->line < y->line);
}

/*
 * Syntax pass over the file with iniparser's rules (a line ending in '\'
 * continues on the next; '#' or ';' start a comment line; "[name]";
 * "key = value"), keeping each key and its line. Rejects what iniparser
 * would reject, keys outside a section and duplicate keys (iniparser keeps
 * the last silently).
 */
static int
ini_scan(struct ini *f, char *err, size_t n)
{
	char logical[INI_LINE_MAX + 2], sec[INI_LINE_MAX + 2] = "";
	char *p = f->text, *nl = NULL, *s;
	uint32_t line = 0, start = 0, cap = 0, i;
	size_t used = 0, raw = 0;
	bool cont = false;

	for (; *p != '\0' || cont; p = nl != NULL ? nl + 1 : p + strlen(p)) {
		size_t len;

		if (*p == '\0')
			return fail(err, n, "%s:%u: the last line ends with '\\' "
				    "(continues past the end of the file)", f->path, line);
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		line++;
		if (!cont) {
			start = line;
			used = raw = 0;
		}
		raw += len + 1;
		if (raw > INI_LINE_MAX)
			return fail(err, n, "%s:%u: line longer than %d bytes", f->path, start,
				    INI_LINE_MAX);
		memcpy(logical + used, p, len);
		used += len;
		while (used > 0 && isspace((unsigned char)logical[used - 1]))
			used--;
		cont = used > 0 && logical[used - 1] == '\\';
		if (cont) {
			used--;
			continue;
		}
		logical[used] = '\0';
		s = uet_text_strip(logical);
		if (*s == '\0' || *s == '#' || *s == ';')
			continue;
		len = strlen(s);
		if (s[0] == '[' && s[len - 1] == ']') {
			s[len - 1] = '\0';
			s = uet_text_strip(s + 1);
			for (i = 0; s[i] != '\0'; i++)
				s[i] = (char)tolower((unsigned char)s[i]);
			if (!name_ok(s))
				return fail(err, n, "%s:%u: bad section name '[%s]' (letters, "
					    "digits, '_', '.', '-')", f->path, start, SHOWN(s));
			snprintf(sec, sizeof(sec), "%s", s);
			continue;
		}
		if (strchr(s, '=') == NULL || s[0] == '=')
			return fail(err, n, "%s:%u: syntax error: '%s' is neither "
				    "'[section]' nor 'key = value'", f->path, start, SHOWN(s));
		*strchr(s, '=') = '\0';
		s = uet_text_strip(s);
		for (i = 0; s[i] != '\0'; i++)
			s[i] = (char)tolower((unsigned char)s[i]);
		if (sec[0] == '\0')
			return fail(err, n, "%s:%u: key '%s': outside any [section]", f->path,
				    start, SHOWN(s));
		if (f->n_keys == cap) {
			struct ini_key *k;

			cap = cap ? 2 * cap : 64;
			k = realloc(f->keys, cap * sizeof(*k));
			if (k == NULL)
				return fail(err, n, "%s: out of memory", f->path);
			f->keys = k;
		}
		f->keys[f->n_keys].line = start;
		f->keys[f->n_keys].seclen = (uint32_t)strlen(sec);
		f->keys[f->n_keys].full = malloc(strlen(sec) + strlen(s) + 2);
		if (f->keys[f->n_keys].full == NULL)
			return fail(err, n, "%s: out of memory", f->path);
		sprintf(f->keys[f->n_keys].full, "%s:%s", sec, s);
		f->n_keys++;
	}

	/* Duplicates: report the earliest second occurrence. */
	if (f->n_keys > 1) {
		struct ini_key *sorted = malloc(f->n_keys * sizeof(*sorted));
		const struct ini_key *dup = NULL, *first = NULL;

		if (sorted == NULL)
			return fail(err, n, "%s: out of memory", f->path);
		memcpy(sorted, f->keys, f->n_keys * sizeof(*sorted));
		qsort(sorted, f->n_keys, sizeof(*sorted), cmp_keys);
		for (i = 1; i < f->n_keys; i++)
			if (strcmp(sorted[i].full, sorted[i - 1].full) == 0 &&
			    (dup == NULL || sorted[i].line < dup->line) &&
			    (i < 2 || strcmp(sorted[i].full, sorted[i - 2].full) != 0)) {
				dup = &sorted[i];
				first = &sorted[i - 1];
			}
		if (dup != NULL) {
			char name[INI_LINE_MAX + 2];

			snprintf(name, sizeof(name), "%.*s.%s", (int)dup->seclen, dup->full,
				 dup->full + dup->seclen + 1);
			fail(err, n, "%s:%u: key '%s': duplicate (first at line %u); "
			     "repeat an option as key.1, key.2, ...", f->path, dup->line,
			     SHOWN(name), first->line);
		}
		free(sorted);
		if (dup != NULL)
			return UET_CONF_EBAD;
	}
	return 0;
}

typedef int (*ini_key_fn)(void *ctx, const char *sec, const char *key, const char *val,
			  uint32_t line, char *err, size_t n);

/* Scan, load with iniparser, then call fn for each key in file order; an
 * error of fn gets the "FILE:LINE: key 'sec.key': " prefix. */
static int
ini_read(const char *path, ini_key_fn fn, void *ctx, char *err, size_t n)
{
	struct ini f = { .path = path };
	char why[UET_PERF_PATH_MAX + 128];
	uint32_t i;
	int rc;

	rc = read_file(&f, err, n);
	if (rc == 0)
		rc = ini_scan(&f, err, n);
	if (rc == 0) {
		ini_errmsg[0] = '\0';
		iniparser_set_error_callback(ini_errback);
		f.d = iniparser_load(path);
		iniparser_set_error_callback(NULL);
		if (f.d == NULL) {
			ini_errmsg[strcspn(ini_errmsg, "\n")] = '\0';
			rc = fail(err, n, "%s: iniparser cannot read it: %s", path, ini_errmsg);
		}
	}
	for (i = 0; rc == 0 && i < f.n_keys; i++) {
		struct ini_key *k = &f.keys[i];
		const char *val = iniparser_getstring(f.d, k->full, NULL);

		k->full[k->seclen] = '\0';
		if (val == NULL) {
			rc = fail(err, n, "%s:%u: key '%s.%s': iniparser lost it", path,
				  k->line, k->full, k->full + k->seclen + 1);
			break;
		}
		rc = fn(ctx, k->full, k->full + k->seclen + 1, val, k->line, why, sizeof(why));
		if (rc < 0)
			fail(err, n, "%s:%u: key '%s.%s': %s", path, k->line, k->full,
			     SHOWN(k->full + k->seclen + 1), why);
	}
	ini_free(&f);
	return rc;
}

/* Hosts lists */

struct hosts_ctx {
	struct uet_perf_hosts *h;
	uint32_t line[UET_PERF_MAX_HOSTS];  /* 0: rank not seen */
	uint32_t first_line;
};

static int
hosts_key(struct hosts_ctx *c, const char *key, const char *val, uint32_t line,
	  char *err, size_t n)
{
	uint64_t r;

	if (parse_dec(key, UET_PERF_MAX_HOSTS - 1, &r) < 0)
		return fail(err, n, "not a rank (0..%d)", UET_PERF_MAX_HOSTS - 1);
	if (c->line[r] != 0)
		return fail(err, n, "rank %llu given twice (first at line %u)",
			    (unsigned long long)r, c->line[r]);
	if (uet_perf_parse_endpoint(val, true, &c->h->h[r], err, n) < 0)
		return UET_CONF_EBAD;
	c->line[r] = line;
	if (c->first_line == 0)
		c->first_line = line;
	if (r + 1 > c->h->n)
		c->h->n = (uint32_t)r + 1;
	return 0;
}

static int
hosts_finish(struct hosts_ctx *c, const char *path, char *err, size_t n)
{
	char a[16];
	uint32_t r, q;

	if (c->h->n == 0)
		return fail(err, n, "%s: no [hosts] section (one key per rank: "
			    "0 = control=IP, ip=IP, mac=MAC, port=P, queue=Q)", path);
	for (r = 0; r < c->h->n; r++)
		if (c->line[r] == 0)
			return fail(err, n, "%s: [hosts]: rank %u is missing (ranks are "
				    "0..%u, each once)", path, r, c->h->n - 1);
	for (r = 0; r < c->h->n; r++)
		for (q = 0; q < r; q++)
			if (c->h->h[r].ip == c->h->h[q].ip)
				return fail(err, n, "%s:%u: key 'hosts.%u': ip %s is also "
					    "rank %u's (line %u)", path, c->line[r], r,
					    ip_str(c->h->h[r].ip, a, sizeof(a)), q, c->line[q]);
	return 0;
}

static int
hosts_cb(void *ctx, const char *sec, const char *key, const char *val, uint32_t line,
	 char *err, size_t n)
{
	if (strcmp(sec, "hosts") != 0)
		return 0;
	return hosts_key(ctx, key, val, line, err, n);
}

int
uet_perf_hosts_load(struct uet_perf_hosts *h, const char *path, char *err,
		    size_t errlen)
{
	struct hosts_ctx *c = calloc(1, sizeof(*c));
	int rc;

	if (c == NULL)
		return fail(err, errlen, "%s: out of memory", path);
	memset(h, 0, sizeof(*h));
	c->h = h;
	rc = ini_read(path, hosts_cb, c, err, errlen);
	if (rc == 0)
		rc = hosts_finish(c, path, err, errlen);
	free(c);
	return rc;
}

/* Options files */

struct opts_ctx {
	struct uet_perf_opts *o;
	char dir[UET_PERF_PATH_MAX];
	struct hosts_ctx *hosts;  /* a [hosts] section, when there is one */
};

static bool
known_section(const char *sec)
{
	int i;

	for (i = 0; i < N_OPTS; i++)
		if (for_app(&opt_table[i]) && opt_table[i].sec != NULL &&
		    strcmp(opt_table[i].sec, sec) == 0)
			return true;
	return false;
}

/* "base" or "base.suffix" for repeatable options. */
static bool
key_matches(const struct opt *p, const char *key)
{
	size_t l = strlen(p->key);

	if (strcmp(p->key, key) == 0)
		return true;
	return IS_REPEATABLE(p->type) && strncmp(p->key, key, l) == 0 && key[l] == '.' &&
	       name_ok(key + l + 1) && strchr(key + l + 1, '.') == NULL;
}

static int
unknown_key(const char *sec, const char *key, char *err, size_t n)
{
	char lkey[64];
	size_t j;
	int i;

	if (!known_section(sec) && (strcmp(sec, "hosts") != 0 || conf_app != UET_CONF_APP_PERF))
		return fail(err, n, "unknown section [%s] (sections: %s)", SHOWN(sec),
			    conf_app == UET_CONF_APP_SIM
				    ? "workload, transport, lb, cc, output, topology, failures"
				    : "mode, workload, transport, lb, cc, output, schedule, "
				      "hosts");
	for (i = 0; i < N_OPTS; i++) {
		const struct opt *p = &opt_table[i];

		if (p->sec == NULL || !for_app(p))
			continue;
		snprintf(lkey, sizeof(lkey), "%s", p->lname);
		for (j = 0; lkey[j] != '\0'; j++)
			lkey[j] = lkey[j] == '-' ? '_' : lkey[j];
		if (key_matches(p, key) || strcmp(lkey, key) == 0)
			return fail(err, n, "unknown key (did you mean '%s.%s'?)", p->sec,
				    p->key);
	}
	return fail(err, n, "unknown key");
}

static int
opts_cb(void *vctx, const char *sec, const char *key, const char *val, uint32_t line,
	char *err, size_t n)
{
	struct opts_ctx *c = vctx;
	int i;

	if (strcmp(sec, "hosts") == 0 && conf_app == UET_CONF_APP_PERF) {
		if (c->hosts == NULL) {
			c->hosts = calloc(1, sizeof(*c->hosts) + sizeof(struct uet_perf_hosts));
			if (c->hosts == NULL)
				return fail(err, n, "out of memory");
			c->hosts->h = (struct uet_perf_hosts *)(void *)(c->hosts + 1);
		}
		return hosts_key(c->hosts, key, val, line, err, n);
	}
	for (i = 0; i < N_OPTS; i++)
		if (for_app(&opt_table[i]) && opt_table[i].sec != NULL &&
		    strcmp(opt_table[i].sec, sec) == 0 && key_matches(&opt_table[i], key))
			return apply(c->o, i, val, UET_CONF_SRC_INI, line, c->dir, err, n);
	/* One file can serve both tools: a key only the other tool has
	 * (uet-sim's fabric, uet-perf's mode, hosts and schedule) is left to
	 * it. A key neither knows is still an error. */
	if (strcmp(sec, "hosts") == 0)
		return 0;
	for (i = 0; i < N_OPTS; i++)
		if (opt_table[i].sec != NULL && strcmp(opt_table[i].sec, sec) == 0 &&
		    key_matches(&opt_table[i], key))
			return 0;
	return unknown_key(sec, key, err, n);
}

/* INI file on top of o, without the cross-option checks. */
static int
load_ini(struct uet_perf_opts *o, const char *path, char *err, size_t n)
{
	struct opts_ctx c = { .o = o };
	const char *slash = strrchr(path, '/');
	int rc, h = row("hosts");

	if (strlen(path) >= sizeof(o->src_file))
		return fail(err, n, "%s: path too long", SHOWN(path));
	snprintf(o->src_file, sizeof(o->src_file), "%s", path);
	if (slash != NULL)
		snprintf(c.dir, sizeof(c.dir), "%.*s", (int)(slash - path + (slash == path)),
			 path);
	rc = ini_read(path, opts_cb, &c, err, n);
	if (rc == 0 && c.hosts != NULL) {
		rc = hosts_finish(c.hosts, path, err, n);
		if (rc == 0 && o->src[h] == UET_CONF_SRC_INI)
			rc = fail(err, n, "%s: excludes the file's own [hosts] section "
				  "(line %u)", WHERE(h), c.hosts->first_line);
		if (rc == 0) {
			snprintf(o->hosts, sizeof(o->hosts), "%s", path);
			o->src[h] = UET_CONF_SRC_INI;
			o->src_line[h] = c.hosts->first_line;
		}
	}
	free(c.hosts);
	return rc;
}

int
uet_perf_opts_load_ini(struct uet_perf_opts *o, const char *path, char *err,
		       size_t errlen)
{
	int rc = load_ini(o, path, err, errlen);

	return rc < 0 ? rc : finalize(o, err, errlen);
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */

#define LONG_VAL 256 /* getopt value of row i: LONG_VAL + i */

static int
has_arg(const struct opt *p)
{
	if (p->type == T_HELP || p->type == T_VERSION)
		return no_argument;
	if (p->type == T_BOOL || p->type == T_COUNT)
		return optional_argument;
	return required_argument;
}

static void
build_getopt(struct option *lo, char *shorts)
{
	char *s = shorts;
	int i, k = 0;

	*s++ = '+'; /* stop at the first non-option, never permute argv */
	*s++ = ':'; /* report a missing value as ':' */
	for (i = 0; i < N_OPTS; i++) {
		const struct opt *p = &opt_table[i];

		if (!for_app(p))
			continue;
		lo[k++] = (struct option){ p->lname, has_arg(p), NULL, LONG_VAL + i };
		if (p->sname != 0) {
			*s++ = p->sname;
			if (has_arg(p) == required_argument)
				*s++ = ':';
		}
	}
	lo[k] = (struct option){ NULL, 0, NULL, 0 };
	*s = '\0';
}

static int
short_row(int c)
{
	int i;

	for (i = 0; i < N_OPTS; i++)
		if (opt_table[i].sname == c && for_app(&opt_table[i]))
			return i;
	return -1;
}

static int
unknown_long(const char *arg, char *err, size_t n)
{
	char name[64];
	int i, hits = 0;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	for (i = 0; i < N_OPTS; i++)
		hits += for_app(&opt_table[i]) &&
			strncmp(opt_table[i].lname, name, strlen(name)) == 0;
	return fail(err, n, "option '--%s': %s", SHOWN(name),
		    hits > 1 ? "ambiguous abbreviation" : "unknown option");
}

/* What an iperf3 or perftest habit means here, for an option that failed. */
static const char *
habit_hint(int c, bool missing_value)
{
	switch (c) {
	case 't':
		return " (iperf3's -t is -D/--duration here)";
	case 'P':
		return " (iperf3's -P is -q/--streams here)";
	case 'l':
		return " (iperf3's -l is -s/--size here)";
	case 'u':
	case 'R':
		return " (iperf3's option has no meaning here: UET is its own transport, "
		       "one direction per flow)";
	case 's':
		return missing_value ? " (-s is the message size, as in perftest; iperf3's -s "
				       "is -S/--server)"
				     : "";
	default:
		return "";
	}
}

static int
cli_apply(struct uet_perf_opts *o, int argc, char **argv, char *err, size_t n)
{
	struct option lo[N_OPTS + 1];
	char shorts[2 * N_OPTS + 4], why[UET_PERF_PATH_MAX + 128];
	int c, i;

	build_getopt(lo, shorts);
	optind = 0; /* glibc: full reinitialisation, so this can run again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == '?') {
			if (optopt >= LONG_VAL)
				return fail(err, n, "option '--%s': takes no value",
					    opt_table[optopt - LONG_VAL].lname);
			if (optopt != 0)
				return fail(err, n, "option '-%c': unknown option%s",
					    isprint(optopt) ? optopt : '?', habit_hint(optopt, false));
			return unknown_long(argv[optind - 1], err, n);
		}
		if (c == ':') {
			i = optopt >= LONG_VAL ? optopt - LONG_VAL : short_row(optopt);
			if (i < 0)
				return fail(err, n, "option '-%c': missing value", optopt);
			return fail(err, n, "option '--%s': missing value (%s)%s",
				    opt_table[i].lname, opt_table[i].meta,
				    optopt < LONG_VAL ? habit_hint(optopt, true) : "");
		}
		i = c >= LONG_VAL ? c - LONG_VAL : short_row(c);
		if (i < 0)
			return fail(err, n, "internal error: getopt returned %d", c);
		if (opt_table[i].type == T_HELP)
			return UET_CONF_HELP;
		if (opt_table[i].type == T_VERSION)
			return UET_CONF_VERSION;
		/* "--client --size 4" must not make "--size" the host. */
		if (optarg != NULL && has_arg(&opt_table[i]) == required_argument &&
		    optarg[0] == '-' && (optarg[1] == '-' || isalpha((unsigned char)optarg[1])))
			return fail(err, n, "option '--%s': missing value ('%s' is an option)",
				    opt_table[i].lname, SHOWN(optarg));
		if (apply(o, i, optarg, UET_CONF_SRC_CLI, 0, NULL, why, sizeof(why)) < 0)
			return fail(err, n, "option '--%s': %s", opt_table[i].lname, why);
	}
	if (optind < argc)
		return fail(err, n, "unexpected argument '%s' (%s takes no "
			    "positional arguments)", SHOWN(argv[optind]), app_name());
	return 0;
}

/* Apply profile settings under every other source; options the running
 * tool lacks (uet-perf has no fabric) are skipped. */
static int
apply_profile(struct uet_perf_opts *o, const char *name, char *err, size_t n)
{
	const struct uet_perf_profile *pr;
	char why[UET_PERF_PATH_MAX + 128], lname[64];
	const char *const *kv;
	int i;

	for (pr = uet_perf_profiles; pr->name != NULL; pr++)
		if (strcmp(pr->name, name) == 0)
			break;
	if (pr->name == NULL)
		return fail(err, n, "option '--profile': unknown profile '%s'", SHOWN(name));
	for (kv = pr->settings; *kv != NULL; kv++) {
		const char *eq = strchr(*kv, '=');

		snprintf(lname, sizeof(lname), "%.*s", (int)(eq - *kv), *kv);
		i = find_long(lname);
		if (i < 0)
			return fail(err, n, "internal error: profile '%s' sets unknown '%s'",
				    name, lname);
		if (!for_app(&opt_table[i]))
			continue;
		if (apply(o, i, eq + 1, UET_CONF_SRC_PROFILE, 0, NULL, why, sizeof(why)) < 0)
			return fail(err, n, "internal error: profile '%s': '--%s': %s", name,
				    lname, why);
	}
	return 0;
}

int
uet_perf_opts_parse(struct uet_perf_opts *o, int argc, char **argv, char *err,
		    size_t errlen)
{
	struct uet_perf_opts *first = malloc(sizeof(*first));
	char profile[UET_PERF_NAME_MAX], config[UET_PERF_PATH_MAX];
	int rc, pi;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (first == NULL)
		return fail(err, errlen, "out of memory");
	/* Pass 1 finds --config and --profile (and reports command-line
	 * errors first); a profile named only in the file is read from it.
	 * Pass 2 applies the profile, the file over it and the command line
	 * on top. */
	uet_perf_opts_default(first);
	rc = cli_apply(first, argc, argv, err, errlen);
	snprintf(config, sizeof(config), "%s", first->config);
	pi = find_long("profile");
	if (rc == 0 && config[0] != '\0' && first->src[pi] != UET_CONF_SRC_CLI) {
		uet_perf_opts_default(first);
		rc = load_ini(first, config, err, errlen);
	}
	snprintf(profile, sizeof(profile), "%s", first->profile);
	free(first);
	uet_perf_opts_default(o);
	if (rc == 0)
		rc = apply_profile(o, profile, err, errlen);
	if (rc == 0 && config[0] != '\0')
		rc = load_ini(o, config, err, errlen);
	if (rc == 0)
		rc = cli_apply(o, argc, argv, err, errlen);
	return rc == 0 ? finalize(o, err, errlen) : rc;
}

int
uet_perf_opts_source(const struct uet_perf_opts *o, const char *long_name)
{
	int i = find_long(long_name);

	return i < 0 ? -1 : o->src[i];
}

const char *
uet_perf_version(void)
{
	return UET_VERSION;
}

/* ------------------------------------------------------------------ */
/* Formatting: --help, doc, INI output, hash                           */

static void
fmt_time(uint64_t ns, char *buf, size_t n)
{
	int l = snprintf(buf, n, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
			 (unsigned long long)(ns % 1000000000ULL));

	while (l > 0 && buf[l - 1] == '0')
		buf[--l] = '\0';
	if (l > 0 && buf[l - 1] == '.')
		buf[l - 1] = '\0';
}

static void
fmt_set(const struct uet_perf_set *s, char *buf, size_t n)
{
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < s->n; i++) {
		size_t l = strlen(buf);

		if (s->r[i].lo == s->r[i].hi)
			snprintf(buf + l, n - l, "%s%u", i ? "," : "", s->r[i].lo);
		else
			snprintf(buf + l, n - l, "%s%u-%u", i ? "," : "", s->r[i].lo,
				 s->r[i].hi);
	}
}

/* Canonical text of element k of option i (k = 0 for scalars); what the
 * INI parser reads back. */
static void
fmt_value(const struct uet_perf_opts *o, int i, uint32_t k, bool exact, char *buf,
	  size_t n)
{
	const struct opt *p = &opt_table[i];
	const char *f = cfield(o, p);
	char a[16], b[16], m[24], t[32];

	switch (p->type) {
	case T_BOOL:
		snprintf(buf, n, "%s", *(const bool *)f ? "true" : "false");
		break;
	case T_COUNT:
	case T_UINT:
	case T_BYTES:
		snprintf(buf, n, "%llu", (unsigned long long)get_uint(f, p->size));
		break;
	case T_DOUBLE:
		snprintf(buf, n, exact ? "%.17g" : "%g", *(const double *)f);
		break;
	case T_SET:
		fmt_set((const struct uet_perf_set *)(const void *)f, buf, n);
		break;
	case T_ENDPOINT: {
		const struct uet_perf_endpoint *e =
			(const struct uet_perf_endpoint *)(const void *)f + k;

		char pre[8] = "", gw[24] = "";

		if (e->prefix_len != 0)
			snprintf(pre, sizeof(pre), "/%u", e->prefix_len);
		if (e->gateway != 0)
			snprintf(gw, sizeof(gw), ",gw=%s", ip_str(e->gateway, b, sizeof(b)));
		snprintf(buf, n, "ip=%s%s%s,port=%u,queue=%u%s%s", ip_str(e->ip, a, sizeof(a)),
			 pre, gw, e->port, e->queue, e->has_mac ? ",mac=" : "",
			 e->has_mac ? mac_str(e->mac, m, sizeof(m)) : "");
		break;
	}
	case T_NEIGHBOR: {
		const struct uet_perf_neighbor *nb =
			(const struct uet_perf_neighbor *)(const void *)f + k;

		snprintf(buf, n, "ip=%s,mac=%s", ip_str(nb->ip, b, sizeof(b)),
			 mac_str(nb->mac, m, sizeof(m)));
		break;
	}
	case T_FAIL_EV: {
		const struct uet_perf_fail_ev *fe =
			(const struct uet_perf_fail_ev *)(const void *)f + k;
		char set[512];

		fmt_time(fe->at_ns, t, sizeof(t));
		fmt_set(&fe->evs, set, sizeof(set));
		snprintf(buf, n, "%s:%s", t, set);
		break;
	}
	case T_EXEC: {
		const struct uet_perf_exec *x =
			(const struct uet_perf_exec *)(const void *)f + k;

		fmt_time(x->at_ns, t, sizeof(t));
		snprintf(buf, n, "%s:%s", t, x->cmd);
		break;
	}
	case T_FAILURE:
		snprintf(buf, n, "%s", ((const struct sim_failure *)(const void *)f + k)->text);
		break;
	default:
		snprintf(buf, n, "%s", f);
		break;
	}
}

static const char *
default_text(int i, char *buf, size_t n)
{
	const struct opt *p = &opt_table[i];
	struct uet_perf_opts *d;

	if (conf_app == UET_CONF_APP_SIM && p->simdefdoc != NULL)
		return p->simdefdoc;
	if (p->defdoc != NULL)
		return p->defdoc;
	if (p->type >= T_CONFIG)
		return "";
	if (IS_REPEATABLE(p->type))
		return "none";
	d = malloc(sizeof(*d));
	if (d == NULL)
		return "?";
	uet_perf_opts_default(d);
	fmt_value(d, i, 0, false, buf, n);
	free(d);
	if (buf[0] == '\0')
		return "none";
	return buf;
}

static const char *
unit_of(const char *meta)
{
	static const char *const units[][2] = {
		{ "BYTES", "bytes" }, { "NS", "ns" }, { "SEC", "s" }, { "US", "µs" },
		{ "GBPS", "Gbit/s" }, { "PCT", "%" }, { "FRAC", "0..1" },
		{ "T:SET", "s : EVs" }, { "T:CMD", "s : command" },
	};
	size_t i;

	for (i = 0; meta != NULL && i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(units[i][0], meta) == 0)
			return units[i][1];
	return "";
}

/* "-s, --size=BYTES" */
static void
synopsis(const struct opt *p, char *buf, size_t n)
{
	const char *arg = has_arg(p) == required_argument ? "=" : "";
	const char *meta = has_arg(p) == required_argument ? p->meta : "";

	if (p->type == T_BOOL)
		arg = "[=BOOL]";
	if (p->type == T_COUNT)
		arg = "[=N]";
	if (p->sname != 0)
		snprintf(buf, n, "-%c, --%s%s%s", p->sname, p->lname, arg, meta);
	else
		snprintf(buf, n, "    --%s%s%s", p->lname, arg, meta);
}

static bool
in_section(const struct opt *p, const char *sec)
{
	return sec == NULL ? p->sec == NULL : p->sec != NULL && strcmp(p->sec, sec) == 0;
}

/* The section has an option of the program parsing now. */
static bool
section_used(const char *sec)
{
	int i;

	for (i = 0; i < N_OPTS; i++)
		if (in_section(&opt_table[i], sec) && for_app(&opt_table[i]))
			return true;
	return false;
}

static void
help_text(const struct opt *p, char *buf, size_t n)
{
	char list[256];

	if (p->type == T_NAME) {
		name_list(p->names, list, sizeof(list));
		snprintf(buf, n, "%s: %s", p->help, list);
	} else {
		snprintf(buf, n, "%s", p->help);
	}
}

/* Words of text after a column of width indent, wrapped at 100 columns. */
static void
wrap(FILE *f, const char *text, int indent)
{
	int col = indent;
	const char *w = text;

	while (*w != '\0') {
		int len = (int)strcspn(w, " ");

		if (col > indent && col + 1 + len > 100) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		}
		col += fprintf(f, "%s%.*s", col > indent ? " " : "", len, w);
		w += len;
		w += strspn(w, " ");
	}
	fprintf(f, "\n");
}

void
uet_perf_opts_usage(FILE *f)
{
	char syn[64], def[64], help[512], text[768];
	size_t s;
	int i;

	if (conf_app == UET_CONF_APP_SIM)
		fprintf(f, "Usage: uet-sim [options]\n"
			   "Every option is also an INI key [section.key], read with "
			   "--config FILE;\nthe command line overrides the file. "
			   "Sizes take K, M, G, T (2^10..); times are simulated.\n");
	else
		fprintf(f, "Usage: uet-perf [EAL options] -- [options]\n"
			   "Every option is also an INI key [section.key], read with "
			   "--config FILE;\nthe command line overrides the file. "
			   "* marks SYMMETRIC options: every host must\nuse the same. "
			   "Sizes take K, M, G, T (2^10..); times T are seconds.\n");
	for (s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
		if (!section_used(sections[s].sec))
			continue;
		fprintf(f, "\n%s:\n", sections[s].title);
		for (i = 0; i < N_OPTS; i++) {
			const struct opt *p = &opt_table[i];
			const char *d = default_text(i, def, sizeof(def));
			int l;

			if (!in_section(p, sections[s].sec) || !for_app(p))
				continue;
			synopsis(p, syn, sizeof(syn));
			help_text(p, help, sizeof(help));
			l = snprintf(text, sizeof(text), "%s%s",
				     p->flags & F_SYM && conf_app == UET_CONF_APP_PERF ? "* " : "",
				     help);
			if (d[0] != '\0' && strcmp(d, "none") != 0 && p->type != T_BOOL)
				l += snprintf(text + l, sizeof(text) - (size_t)l,
					      "; default %s", d);
			if (p->sec != NULL)
				snprintf(text + l, sizeof(text) - (size_t)l, " [%s.%s%s]",
					 p->sec, p->key, IS_REPEATABLE(p->type) ? ".N" : "");
			fprintf(f, "  %-28s ", syn);
			wrap(f, text, 31);
		}
	}
}

void
uet_perf_opts_doc_md(FILE *f)
{
	char syn[64], def[64], sdef[64], defs[160], help[512], key[64];
	int app = conf_app;
	size_t s;
	int i;

	/* One reference for both programs: rows of one program only say so,
	 * and a default that differs in uet-sim is shown beside. */
	for (s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
		fprintf(f, "### %s\n\n", sections[s].title);
		if (sections[s].sec != NULL)
			fprintf(f, "INI section `[%s]`.\n\n", sections[s].sec);
		fprintf(f, "| Command line | INI key | Default | Units | Sym | Meaning |\n"
			   "|---|---|---|---|---|---|\n");
		for (i = 0; i < N_OPTS; i++) {
			const struct opt *p = &opt_table[i];
			char *c;

			if (!in_section(p, sections[s].sec))
				continue;
			synopsis(p, syn, sizeof(syn));
			help_text(p, help, sizeof(help));
			for (c = help; *c != '\0'; c++)
				if (*c == '|')
					*c = '/';
			conf_app = p->app == UET_CONF_APP_SIM ? UET_CONF_APP_SIM : UET_CONF_APP_PERF;
			snprintf(defs, sizeof(defs), "%s", default_text(i, def, sizeof(def)));
			if (p->has_simdef) {
				conf_app = UET_CONF_APP_SIM;
				snprintf(defs + strlen(defs), sizeof(defs) - strlen(defs),
					 " (uet-sim: %s)", default_text(i, sdef, sizeof(sdef)));
			}
			conf_app = app;
			if (p->app != 0 && (p->sec == NULL || strchr(sections[s].title, '(') == NULL)) {
				char tmp[600];

				snprintf(tmp, sizeof(tmp), "%s only: %s",
					 p->app == UET_CONF_APP_SIM ? "uet-sim" : "uet-perf", help);
				snprintf(help, sizeof(help), "%.*s", (int)sizeof(help) - 1, tmp);
			}
			if (p->sec == NULL)
				snprintf(key, sizeof(key), "-");
			else if (IS_REPEATABLE(p->type))
				snprintf(key, sizeof(key), "`%s`, `%s.N`", p->key, p->key);
			else
				snprintf(key, sizeof(key), "`%s`", p->key);
			fprintf(f, "| `%s` | %s | %s | %s | %s | %s |\n", uet_text_strip(syn), key,
				defs, unit_of(p->meta), p->flags & F_SYM ? "yes" : "", help);
		}
		fprintf(f, "\n");
	}
}

/*
 * iniparser 4.1 reads an unquoted value up to ';' or '#', strips its spaces
 * and takes a leading quote as the start of a quoted value; a quoted value
 * ends at the next quote of its kind (there are no escapes). Returns false
 * when v cannot be written (it needs quotes and holds both kinds).
 */
static bool
write_value(FILE *f, const char *key, const char *v)
{
	size_t l = strlen(v);
	bool plain = l > 0 && strpbrk(v, ";#") == NULL && v[0] != '"' && v[0] != '\'' &&
		     !isspace((unsigned char)v[0]) && !isspace((unsigned char)v[l - 1]) &&
		     v[l - 1] != '\\';

	if (plain)
		fprintf(f, "%s = %s\n", key, v);
	else if (strchr(v, '"') == NULL)
		fprintf(f, "%s = \"%s\"\n", key, v);
	else if (strchr(v, '\'') == NULL)
		fprintf(f, "%s = '%s'\n", key, v);
	else
		return false;
	return true;
}

void
uet_perf_opts_write_ini(const struct uet_perf_opts *o, FILE *f)
{
	char buf[2 * UET_PERF_PATH_MAX + 64], cwd[UET_PERF_PATH_MAX];
	bool any = false;
	size_t s;
	uint32_t k;
	int i;

	for (s = 0; sections[s].sec != NULL; s++) {
		bool head = false;

		for (i = 0; i < N_OPTS; i++) {
			const struct opt *p = &opt_table[i];
			uint32_t cnt = IS_REPEATABLE(p->type) ? ccount_of(o, p) : 1;

			if (!in_section(p, sections[s].sec) || o->src[i] == UET_CONF_SRC_DEFAULT ||
			    !for_app(p))
				continue;
			if (!head)
				fprintf(f, "%s[%s]\n", any ? "\n" : "", sections[s].sec);
			head = any = true;
			for (k = 0; k < cnt; k++) {
				char key[48];

				fmt_value(o, i, k, true, buf, sizeof(buf));
				/* The file may go elsewhere: relative input
				 * paths would then be relative to it. */
				if (p->type == T_PATH_IN && buf[0] != '/' &&
				    getcwd(cwd, sizeof(cwd)) != NULL)
					snprintf(buf, sizeof(buf), "%s/%s", cwd,
						 (const char *)cfield(o, p));
				if (IS_REPEATABLE(p->type))
					snprintf(key, sizeof(key), "%s.%u", p->key, k + 1);
				else
					snprintf(key, sizeof(key), "%s", p->key);
				if (!write_value(f, key, buf))
					fprintf(f, "; %s: not written, the value needs "
						   "quotes and holds both ' and \"\n", key);
			}
		}
	}
}

static uint64_t
fnv1a(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

size_t
uet_perf_opts_sym_text(const struct uet_perf_opts *o, char *out, size_t n)
{
	char buf[UET_PERF_PATH_MAX + 64];
	size_t k = 0;
	int i;

	if (out != NULL && n > 0)
		out[0] = '\0';
	for (i = 0; i < N_OPTS; i++) {
		const struct opt *p = &opt_table[i];
		bool room = out != NULL && k < n;

		if (!(p->flags & F_SYM) || !for_app(p))
			continue;
		fmt_value(o, i, 0, true, buf, sizeof(buf));
		k += (size_t)snprintf(room ? out + k : NULL, room ? n - k : 0, "%s=%s\n",
				      p->lname, buf);
	}
	return k;
}

uint64_t
uet_perf_opts_hash(const struct uet_perf_opts *o)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char buf[UET_PERF_PATH_MAX + 64];
	int i;

	for (i = 0; i < N_OPTS; i++) {
		const struct opt *p = &opt_table[i];

		if (!(p->flags & F_SYM) || !for_app(p))
			continue;
		fmt_value(o, i, 0, true, buf, sizeof(buf));
		h = fnv1a(h, p->key);
		h = fnv1a(h, "=");
		h = fnv1a(h, buf);
		h = fnv1a(h, "\n");
	}
	return h;
}

uint32_t
uet_perf_ip_mtu_bytes(const struct uet_perf_opts *o)
{
	return IP_UDP_HDR_BYTES + UET_DATA_HDR_LEN + o->mtu_bytes;
}

/* ------------------------------------------------------------------ */
/* Mapping to the endpoint                                             */

int
uet_perf_opts_to_ep_config(const struct uet_perf_opts *o, struct uet_ep_config *c,
			   struct uet_perf_algo_cfg *a, char *err, size_t errlen)
{
	const char *why = NULL;

	uet_ep_config_default(c);
	memset(a, 0, sizeof(*a));
	c->lb = uet_lb_find(o->lb);
	c->cc = uet_cc_find(o->cc);
	if (c->lb == NULL)
		return fail(err, errlen, "option '--lb': unknown load balancer '%s'",
			    SHOWN(o->lb));
	if (c->cc == NULL)
		return fail(err, errlen, "option '--cc': unknown congestion controller "
			    "'%s'", SHOWN(o->cc));
	c->seed = o->seed;
	c->mss_bytes = o->mtu_bytes;
	c->ev_base = o->ev_base;
	c->ev_count = o->ev_count;
	c->ack_every_bytes = o->ack_every_bytes;
	c->ack_delay_ns = o->ack_delay_ns;
	c->ack_carry_evs = o->ack_carry_evs;
	c->ack_req_every_fill = o->ar_every_fill;
	c->pdc_idle_close_ns = o->pdc_idle_close_ns;
	c->pdc_target_idle_ns = o->pdc_target_idle_ns;
	c->rto_ns = o->rto_ns;
	c->rto_min_ns = o->rto_min_ns;
	if (o->rto_max_ns != 0)
		c->rto_max_ns = o->rto_max_ns;
	if (o->max_rto_retx != 0)
		c->max_rto_retx = o->max_rto_retx;
	for (int i = 0; uet_perf_loss_detect[i] != NULL; i++)
		if (strcmp(o->loss_detect, uet_perf_loss_detect[i]) == 0)
			c->loss_detect = (uint8_t)i;
	c->reorder_window_ns = o->reorder_window_ns;
	c->ooo_min_pkts = o->ooo_min_pkts;
	c->probe_rtts = o->probe_rtts;
	c->base_rtt_ns = o->base_rtt_ns;
	c->link_bps = (uint64_t)(o->link_gbps * 1e9 + 0.5);
	c->window_psns = o->window_psns;

	a->ops.permute = o->ops_permute;
	a->reps.no_freezing = o->reps_no_freeze;
	a->reps.freeze_ns = o->reps_freeze_ns;
	a->reps.reuse = o->reps_reuse;
	a->reps.explore = o->reps_explore_reset ? UET_REPS_EXPLORE_RESET : UET_REPS_EXPLORE_PAPER;
	a->reps.force_freeze_at_ns = o->reps_force_freeze_ns;
	a->flowlet.gap_ns = o->flowlet_gap_ns;
	a->flowlet.ack_clock = o->flowlet_ack_clock;
	a->mptcp.subflows = o->mptcp_subflows;
	a->plb.ce_pct = o->plb_ce_pct;
	a->plb.rounds = o->plb_rounds;
	a->nscc.target_qdelay_ns = o->nscc_target_ns;
	a->nscc.fixed_max_cwnd = !o->nscc_min_rtt_cap;
	/* A trimming fabric (uet-sim --trim) gets NSCC's lower delay target,
	 * 0.75 x base RTT, as in the reference (uet-htsim.md §5.1). */
	a->nscc.trimming = o->trim;
	a->dctcp.g_shift = o->dctcp_g_shift;

	c->lb_cfg = c->lb == &uet_lb_ops_spray || c->lb == &uet_lb_ar ? (const void *)&a->ops
		  : c->lb == &uet_lb_reps      ? (const void *)&a->reps
		  : c->lb == &uet_lb_flowlet   ? (const void *)&a->flowlet
		  : c->lb == &uet_lb_plb       ? (const void *)&a->plb
		  : c->lb == &uet_lb_mptcp     ? (const void *)&a->mptcp
					       : NULL;
	c->cc_cfg = c->cc == &uet_cc_nscc    ? (const void *)&a->nscc
		  : c->cc == &uet_cc_dctcp || c->cc == &uet_cc_dctcp_mprdma
			  ? (const void *)&a->dctcp
					     : NULL;
	if (uet_ep_config_check(c, &why) < 0)
		return fail(err, errlen, "transport options: %s", why);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ranks                                                               */

int
uet_perf_rank_from_env(char *(*getenv_fn)(const char *name), uint32_t *rank,
		       char *err, size_t errlen)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK",
					    "PMIX_RANK", "SLURM_PROCID" };
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv_fn(vars[i]);
		uint64_t r;

		if (v == NULL)
			continue;
		if (parse_dec(v, UET_PERF_MAX_HOSTS - 1, &r) < 0)
			return fail(err, errlen, "environment variable %s='%s': not a rank "
				    "(0..%d)", vars[i], SHOWN(v), UET_PERF_MAX_HOSTS - 1);
		*rank = (uint32_t)r;
		return 1;
	}
	return 0;
}

/* The first of vars set: 1 (*v set), 0 (none) or UET_CONF_EBAD. */
static int
env_count(char *(*getenv_fn)(const char *name), const char *const *vars, uint32_t lo,
	  uint32_t hi, uint32_t *v, char *err, size_t errlen)
{
	for (; *vars != NULL; vars++) {
		const char *s = getenv_fn(*vars);
		uint64_t x;

		if (s == NULL)
			continue;
		if (parse_dec(s, hi, &x) < 0 || x < lo)
			return fail(err, errlen, "environment variable %s='%s': not a count "
				    "(%u..%u)", *vars, SHOWN(s), lo, hi);
		*v = (uint32_t)x;
		return 1;
	}
	return 0;
}

int
uet_perf_launcher_from_env(char *(*getenv_fn)(const char *name), struct uet_perf_launcher *l,
			   char *err, size_t errlen)
{
	static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK",
						 "PMIX_RANK", "SLURM_PROCID", NULL };
	static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
						 "SLURM_NTASKS", NULL };
	static const char *const lrank_vars[] = { "OMPI_COMM_WORLD_LOCAL_RANK",
						  "MPI_LOCALRANKID", "PMI_LOCAL_RANK",
						  "SLURM_LOCALID", NULL };
	static const char *const lsize_vars[] = { "OMPI_COMM_WORLD_LOCAL_SIZE",
						  "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE", NULL };
	int rc;
	size_t i;

	memset(l, 0, sizeof(*l));
	l->local_rank = UINT32_MAX;
	rc = uet_perf_rank_from_env(getenv_fn, &l->rank, err, errlen);
	if (rc <= 0)
		return rc;
	l->present = true;
	for (i = 0; rank_vars[i] != NULL && getenv_fn(rank_vars[i]) == NULL; i++)
		;
	l->rank_var = rank_vars[i];
	if (env_count(getenv_fn, size_vars, 1, UET_PERF_MAX_HOSTS, &l->size, err, errlen) < 0 ||
	    env_count(getenv_fn, lrank_vars, 0, UET_PERF_MAX_HOSTS - 1, &l->local_rank, err,
		      errlen) < 0 ||
	    env_count(getenv_fn, lsize_vars, 1, UET_PERF_MAX_HOSTS, &l->local_size, err,
		      errlen) < 0)
		return UET_CONF_EBAD;
	if (l->size != 0 && l->rank >= l->size)
		return fail(err, errlen, "environment variable %s=%u, but the launcher started %u "
			    "processes", l->rank_var, l->rank, l->size);
	return 1;
}

int
uet_perf_opts_resolve_rank(struct uet_perf_opts *o, char *(*getenv_fn)(const char *name),
			   char *err, size_t errlen)
{
	int rc;

	if (o->mode != UET_PERF_MODE_HOSTS || o->rank != UET_PERF_RANK_UNSET ||
	    o->local.n > 0)
		return 0;
	rc = uet_perf_launcher_from_env(getenv_fn, &o->launcher, err, errlen);
	if (rc == 1)
		o->rank = o->launcher.rank;
	if (rc == 0)
		return fail(err, errlen, "option '--rank': no rank: give --rank N or "
			    "--local LIST, or start under mpirun/srun "
			    "(OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID)");
	return rc < 0 ? rc : 0;
}

int
uet_perf_opts_check_hosts(const struct uet_perf_opts *o, const struct uet_perf_hosts *h,
			  char *err, size_t errlen)
{
	uint32_t k;

	if (o->rank != UET_PERF_RANK_UNSET && o->rank >= h->n)
		return fail(err, errlen, "%s: rank %u, but the hosts list has ranks "
			    "0..%u", WHERE(row("rank")), o->rank, h->n - 1);
	for (k = 0; k < o->local.n; k++)
		if (o->local.r[k].hi >= h->n)
			return fail(err, errlen, "%s: rank %u, but the hosts list has "
				    "ranks 0..%u", WHERE(row("local")), o->local.r[k].hi,
				    h->n - 1);
	if (o->root >= h->n)
		return fail(err, errlen, "%s: root %u, but the hosts list has ranks "
			    "0..%u", WHERE(row("root")), o->root, h->n - 1);
	if (o->fanin >= h->n)
		return fail(err, errlen, "%s: fan-in %u needs more than %u ranks",
			    WHERE(row("fanin")), o->fanin, h->n);
	return 0;
}
