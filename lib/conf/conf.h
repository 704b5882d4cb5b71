/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CONF_H_
#define UET_CONF_H_

/*
 * uet-perf options: one typed struct filled from defaults, then an INI file
 * (--config FILE, read with iniparser), then the command line (getopt_long)
 * on top. One table in table.c lists every option once (long and short name,
 * INI section.key, type, default, bounds, help); the parsers, --help,
 * doc/options.md and the config hash all come from it.
 *
 * Errors name their source precisely:
 *   INI: "FILE:LINE: key 'section.key': <what is wrong>"
 *   CLI: "option '--size': <what is wrong>"
 * and every parser returns UET_CONF_EBAD for them; uet-perf then exits with
 * UET_CONF_EXIT_USAGE (2). No input crashes a parser.
 *
 * INI format: "[section]" lines and "key = value" lines (';' or '#' start a
 * comment; quote values that contain them). A key may appear once; the
 * repeatable options (endpoint, neighbor, fail_ev_at, exec_at) repeat with a
 * suffix: "fail_ev_at.1 = ...", "fail_ev_at.spine = ...", in file order.
 * A "[hosts]" section in a --config file is a hosts list (see
 * uet_perf_hosts_load) and implies --hosts FILE. Relative input paths in a
 * file (hosts, cm) are relative to that file's directory.
 *
 * Precedence: the command line beats the file. A repeatable option given on
 * the command line replaces the file's list. Options that exclude each other
 * (--server/--client/--hosts, --iters/--duration) are an error when one
 * source sets both; when the file sets one and the command line the other,
 * the command line's wins and the other goes back to its default.
 *
 * Not thread-safe (getopt and iniparser have global state).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "uet/uet.h"
#include "text/failure.h"

/* The program whose options parse (uet_conf_set_app): uet-perf, the
 * default, or uet-sim. Each sees its own options (a row of the table may
 * belong to one of them or both) and defaults. */
#define UET_CONF_APP_PERF 1
#define UET_CONF_APP_SIM 2
void uet_conf_set_app(int app);
int uet_conf_app(void);

/* Return codes */
#define UET_CONF_OK 0
#define UET_CONF_HELP 1      /* -h/--help seen: print usage, exit 0 */
#define UET_CONF_VERSION 2   /* -V/--version seen: print version, exit 0 */
#define UET_CONF_PRINT 3     /* --print-config seen and every source read:
			      * uet_perf_opts_write_effective(), exit 0 */
#define UET_CONF_EBAD (-1)   /* bad option, value or file; err says which */
#define UET_CONF_EXIT_USAGE 2 /* exit status of uet-perf after UET_CONF_EBAD */

/* Limits */
#define UET_PERF_MAX_HOSTS 1024      /* ranks in a hosts list */
#define UET_PERF_MAX_ENDPOINTS 64    /* --endpoint */
#define UET_PERF_MAX_NEIGHBORS 256   /* --neighbor */
#define UET_PERF_MAX_FAIL_EV 32      /* --fail-ev-at */
#define UET_PERF_MAX_EXEC 16         /* --exec-at */
#define UET_PERF_SET_MAX 32          /* ranges in one set list "a-b,c" */
#define UET_PERF_PATH_MAX 512        /* file names, with the NUL */
#define UET_PERF_NAME_MAX 32         /* pattern, lb, cc names */
#define UET_PERF_HOST_MAX 256        /* --client host name */
#define UET_PERF_CMD_MAX 256         /* --exec-at command */
#define UET_PERF_OPTS_MAX 120        /* rows of the option table */
#define UET_SIM_MAX_FAILURES 64      /* --failure */
/* --mtu bound: payload + IPv4 (20) + UDP (8) + UET data headers must fit a
 * 9000 B jumbo IP MTU. */
#define UET_PERF_JUMBO_IP_MTU 9000
#define UET_PERF_RANK_UNSET UINT32_MAX

/* Where an option's value came from. */
enum uet_conf_src {
	UET_CONF_SRC_DEFAULT = 0,
	UET_CONF_SRC_INI = 1,
	UET_CONF_SRC_CLI = 2,
	UET_CONF_SRC_PROFILE = 3, /* --profile: above the defaults, below INI and CLI */
};

enum uet_perf_mode {
	UET_PERF_MODE_NONE = 0, /* nothing chosen: uet-perf shows usage */
	UET_PERF_MODE_SERVER,   /* --server: pairwise, waits for a client */
	UET_PERF_MODE_CLIENT,   /* --client HOST: pairwise, connects to HOST */
	UET_PERF_MODE_HOSTS,    /* --hosts FILE: multi-host, rank 0 coordinates */
	UET_PERF_MODE_LOCAL,    /* no mode option, >= 2 --endpoint: every
				 * endpoint is a rank of this one process */
};

/* Inclusive range and a list of them ("49152-49183,49200"). */
struct uet_perf_range {
	uint32_t lo, hi;
};
struct uet_perf_set {
	uint32_t n;
	struct uet_perf_range r[UET_PERF_SET_MAX];
};

/* One endpoint: "port=0,queue=0,ip=10.0.0.1,mac=02:00:00:00:00:01", or
 * behind a router "port=0,ip=10.1.0.2/24,gw=10.1.0.1"; in a hosts list also
 * "control=192.168.0.1". Addresses in host byte order. */
struct uet_perf_endpoint {
	uint32_t ip;          /* data IPv4 address (required) */
	uint32_t control_ip;  /* hosts list only: TCP control address */
	uint16_t port;        /* DPDK port id; default 0 */
	uint16_t queue;       /* RX/TX queue; default 0 */
	uint8_t prefix_len;   /* ip=A.B.C.D/LEN: on-link subnet; 0 = every
			       * address on-link (no gateway) */
	uint32_t gateway;     /* gw=: next hop for off-link addresses */
	uint8_t mac[6];
	bool has_mac;         /* false: resolve through --neighbor entries */
};

/* Static ARP entry: "ip=10.0.0.2,mac=02:00:00:00:00:02". */
struct uet_perf_neighbor {
	uint32_t ip;
	uint8_t mac[6];
};

/* --fail-ev-at T:SET: at T seconds after the start, the EVs of SET stop
 * working (the data path drops what it sends on them). */
struct uet_perf_fail_ev {
	uint64_t at_ns;
	struct uet_perf_set evs;
};

/* uet-sim --failure SPEC: lib/text/failure.h owns the vocabulary. This
 * parses one for the options (err without the option's name). */
int uet_conf_parse_failure(const char *s, struct sim_failure *out, char *err,
			   size_t errlen);

/* --exec-at T:CMD: run CMD with /bin/sh at T seconds after the start. */
struct uet_perf_exec {
	uint64_t at_ns;
	char cmd[UET_PERF_CMD_MAX];
};

/* What a launcher (mpirun, srun, mpiexec) tells each process it starts. */
struct uet_perf_launcher {
	bool present;                        /* the rank came from the environment */
	const char *rank_var;                /* the variable it came from */
	uint32_t rank;
	uint32_t size;                       /* processes started; 0 unknown */
	uint32_t local_rank;                 /* on this machine; UINT32_MAX unknown */
	uint32_t local_size;                 /* on this machine; 0 unknown */
};

struct uet_perf_opts {
	/* Mode [mode] */
	bool server;
	char client[UET_PERF_HOST_MAX];      /* server's control IP or name */
	char hosts[UET_PERF_PATH_MAX];       /* hosts list file */
	uint32_t rank;                       /* UET_PERF_RANK_UNSET: env */
	uint16_t control_port;
	char auth_key[UET_PERF_PATH_MAX];    /* the control channel's key file */
	char bind[UET_PERF_HOST_MAX];        /* --server's listening address */
	uint32_t clients;                    /* --server: clients to wait for */
	struct uet_perf_set local;           /* ranks run by this process */
	uint32_t n_endpoints;
	struct uet_perf_endpoint endpoints[UET_PERF_MAX_ENDPOINTS];
	uint32_t n_neighbors;
	struct uet_perf_neighbor neighbors[UET_PERF_MAX_NEIGHBORS];
	enum uet_perf_mode mode;             /* derived by the parsers */
	bool print_config;                   /* --print-config */
	struct uet_perf_launcher launcher;   /* uet_perf_opts_resolve_rank: what
					      * mpirun/srun said, if the rank
					      * came from it */

	/* Workload [workload] */
	char pattern[UET_PERF_NAME_MAX];
	uint64_t size_bytes;
	uint64_t min_bytes;                  /* sweep; unset = size_bytes */
	uint64_t max_bytes;
	uint32_t step_factor;
	bool all_sizes;                      /* -a: 2 B .. 8 MiB */
	uint64_t iters;
	double duration_s;                   /* 0: run iters */
	double omit_s;                       /* warm-up before duration_s */
	double stall_timeout_s;              /* 0: no stall detection */
	double barrier_timeout_s;            /* the other processes, at a run's end */
	uint32_t streams;
	uint64_t seed;
	uint32_t fanin;                      /* 0: every other rank */
	uint32_t root;
	uint32_t parallel;
	double rate_gbps;                    /* per stream; 0: unpaced */
	double load;
	char cm[UET_PERF_PATH_MAX];
	bool verify;

	/* Transport [transport] */
	char lb[UET_PERF_NAME_MAX];
	char cc[UET_PERF_NAME_MAX];
	uint32_t mtu_bytes;                  /* UET payload per packet (mss) */
	uint16_t ev_base;
	uint32_t ev_count;
	uint32_t ack_every_bytes;
	uint64_t ack_delay_ns;
	bool ack_carry_evs;
	bool uet_strict;
	bool psn_near_wrap;
	bool sack_repeat;
	bool ar_every_fill;
	uint64_t pdc_idle_close_ns;
	uint64_t pdc_target_idle_ns;
	uint64_t rto_ns;
	uint64_t rto_min_ns;
	uint64_t rto_max_ns;                 /* 0: the endpoint's (10 ms) */
	bool rto_backoff;
	uint32_t max_rto_retx;               /* 0: the endpoint's (12) */
	char loss_detect[UET_PERF_NAME_MAX]; /* uet_perf_loss_detect[] */
	char profile[UET_PERF_NAME_MAX];     /* uet_perf_profiles[] */
	uint64_t reorder_window_ns;          /* 0: adaptive */
	uint64_t reorder_seed_ns;            /* 0: the fabric's (uet-sim) or 2 base RTTs */
	uint32_t ooo_min_pkts;
	uint32_t probe_rtts;                 /* 0: no probes */
	uint64_t base_rtt_ns;
	double link_gbps;
	uint32_t window_psns;
	uint8_t dscp_data, dscp_ctrl, dscp_retx;
	bool zero_udp_csum;
	uint32_t mbufs;                      /* per port and pool; 0: sized by lib/dpdk */
	uint32_t rxd, txd;                   /* descriptors per queue; 0: 1024 */

	/* Algorithm knobs [lb] [cc]: used when the matching lb/cc runs */
	uint64_t reps_freeze_ns;
	bool reps_no_freeze;
	uint8_t reps_reuse;
	uint64_t reps_idle_ns;
	uint32_t ecmp_every;
	struct uet_perf_set ecmp_hosts;      /* uet-sim: these too on ecmp */
	bool ar_tie_first;
	bool reps_explore_reset;
	uint64_t reps_force_freeze_ns;
	bool ops_permute;
	uint64_t flowlet_gap_ns;
	bool flowlet_ack_clock;
	uint8_t mptcp_subflows;
	uint8_t plb_ce_pct;
	uint8_t plb_rounds;
	uint64_t nscc_target_ns;
	bool nscc_min_rtt_cap;
	uint8_t dctcp_g_shift;
	uint64_t mprdma_fast_increase_ns;    /* 0: never */
	uint32_t eqds_spec_bytes;            /* 0: the max window */
	bool eqds_slow_pulls;

	/* Output [output] */
	double interval_s;                   /* 0: no interval reports */
	uint32_t bin_us;
	char json[UET_PERF_PATH_MAX];        /* "" none, "-" stdout */
	bool json_stream;
	char csv[UET_PERF_PATH_MAX];         /* prefix; "" none */
	char pcap[UET_PERF_PATH_MAX];        /* capture path pattern; "" none */
	uint64_t pcap_count;                 /* frames per capture file at most */
	uint32_t pcap_snaplen;               /* bytes kept of a frame; 0 all */
	struct uet_perf_set pcap_hosts;      /* uet-sim: hosts captured; empty: 0 */
	char port_series[512];               /* uet-sim: sim_series_parse list */
	double series_us;
	uint32_t verbose;

	/* Scheduled events [schedule] */
	uint32_t n_fail_ev;
	struct uet_perf_fail_ev fail_ev[UET_PERF_MAX_FAIL_EV];
	uint32_t n_exec;
	struct uet_perf_exec exec[UET_PERF_MAX_EXEC];

	/* uet-sim: topology [topology] */
	uint32_t nodes;
	uint32_t tiers;
	uint32_t oversub;
	uint32_t hosts_per_tor;              /* 0: derived */
	double fabric_gbps;                  /* 0: link_gbps */
	uint64_t link_latency_ns;
	uint64_t switch_latency_ns;
	uint64_t buffer_bytes;               /* 0: one BDP */
	uint8_t ecn_kmin_pct, ecn_kmax_pct;
	bool trim;
	bool shuffle_ties;                   /* same-ps events in a seeded random order */

	/* uet-sim: failures [failures] */
	uint32_t n_failures;
	struct sim_failure failures[UET_SIM_MAX_FAILURES];
	double converge_us;

	/* Command line only */
	char config[UET_PERF_PATH_MAX];

	/* Provenance, per row of the option table (see uet_perf_opts_source) */
	uint8_t src[UET_PERF_OPTS_MAX];      /* enum uet_conf_src */
	uint32_t src_line[UET_PERF_OPTS_MAX];
	char src_file[UET_PERF_PATH_MAX];    /* the INI file read last */
};

/* Loss-detection names accepted by --loss-detect, NULL-terminated, in
 * enum uet_loss_detect order. */
extern const char *const uet_perf_loss_detect[];

/* Named option sets for --profile: each a name, what it reproduces and
 * its "lname=value" settings (NULL-terminated); the list ends with a NULL
 * name. "none" sets nothing. */
struct uet_perf_profile {
	const char *name;
	const char *what;
	const char *const *settings;
};
extern const struct uet_perf_profile uet_perf_profiles[];

/* Pattern names accepted by --pattern, NULL-terminated. */
extern const char *const uet_perf_patterns[];

/* "0.1.0": the project version. */
const char *uet_perf_version(void);

/* Every option to its default; provenance cleared. */
void uet_perf_opts_default(struct uet_perf_opts *o);

/*
 * Parse uet-perf's arguments: argv[0] is the program name (as after
 * rte_eal_init: argc -= ret, argv += ret), the options follow; no positional
 * arguments. Resets o to the defaults, reads --config FILE if given
 * (wherever it stands), applies the rest of the command line on top and
 * validates the combination. argv is not modified; the function can be
 * called any number of times.
 * Returns UET_CONF_OK, UET_CONF_HELP, UET_CONF_VERSION or UET_CONF_EBAD
 * with a message in err (err may be NULL).
 */
int uet_perf_opts_parse(struct uet_perf_opts *o, int argc, char **argv, char *err,
			size_t errlen);

/*
 * Apply the INI file at path on top of o (start from uet_perf_opts_default)
 * and validate the result. 0 or UET_CONF_EBAD.
 */
int uet_perf_opts_load_ini(struct uet_perf_opts *o, const char *path, char *err,
			   size_t errlen);

/* --help text, generated from the option table. */
void uet_perf_opts_usage(FILE *f);

/* The option reference (the generated part of doc/options.md). */
void uet_perf_opts_doc_md(FILE *f);

/* Write the options that a file or the command line set as an INI file that
 * loads back to the same options. */
void uet_perf_opts_write_ini(const struct uet_perf_opts *o, FILE *f);
/* Every option's value as an INI file (--print-config), headed by the tool
 * and its version: the options a source set, and the defaults as comments,
 * so that --config reads it back to the same options. */
void uet_perf_opts_write_effective(const struct uet_perf_opts *o, FILE *f);
/* The same as text for a report (malloc'd; NULL when out of memory),
 * without the output destinations (json, csv, pcap): they say where the
 * results went, not what ran, and differ from run to run. */
char *uet_perf_opts_effective_text(const struct uet_perf_opts *o);

/* Where the option with this long name got its value (enum uet_conf_src),
 * or -1 if there is no such option. */
int uet_perf_opts_source(const struct uet_perf_opts *o, const char *long_name);

/*
 * FNV-1a 64 over the SYMMETRIC options (workload and transport: what every
 * host must agree on; not mode, output paths or scheduled events), in a
 * canonical text form, independent of host byte order. The --cm file's
 * name is not hashed (hosts may keep it elsewhere), nor its content.
 */
uint64_t uet_perf_opts_hash(const struct uet_perf_opts *o);
/* The options every host must agree on, one "long-name=value" line each,
 * the same values the hash covers (to name a mismatch). Returns the length
 * it needs (writes at most n - 1 bytes and a NUL). */
size_t uet_perf_opts_sym_text(const struct uet_perf_opts *o, char *out, size_t n);

/* IP packet size of a full data packet: 20 + 8 + UET_DATA_HDR_LEN +
 * mtu_bytes; compare it with the port's MTU. */
uint32_t uet_perf_ip_mtu_bytes(const struct uet_perf_opts *o);

/* Storage for the typed algorithm configs that a uet_ep_config points to. */
struct uet_perf_algo_cfg {
	struct uet_lb_ops_cfg ops;
	struct uet_lb_reps_cfg reps;
	struct uet_lb_flowlet_cfg flowlet;
	struct uet_lb_plb_cfg plb;
	struct uet_lb_mptcp_cfg mptcp;
	struct uet_cc_nscc_cfg nscc;
	struct uet_cc_dctcp_cfg dctcp;
	struct uet_cc_eqds_cfg eqds;
};

/*
 * uet_ep_config_default(c), then the transport options: seed, mss_bytes,
 * ev_base/count, ACK policy, timers, link_bps, window_psns, lb/cc ops and
 * lb_cfg/cc_cfg pointing into storage (NULL for algorithms without knobs
 * here). local_ip, callbacks and pool sizes stay the caller's. Checks the
 * result with uet_ep_config_check(). 0 or UET_CONF_EBAD.
 */
int uet_perf_opts_to_ep_config(const struct uet_perf_opts *o, struct uet_ep_config *c,
			       struct uet_perf_algo_cfg *storage, char *err,
			       size_t errlen);

/* The measurement's times of o in ns: the timeline's bin, the interval
 * (--interval, rounded down to whole bins; 0 = none) and the warm-up
 * (--omit). Seconds are rounded to the nearest ns (0.3 s is 300000000). */
void uet_perf_opts_times_ns(const struct uet_perf_opts *o, uint64_t *bin_ns,
			    uint64_t *interval_ns, uint64_t *omit_ns);

/*
 * Rank from the launcher's environment: OMPI_COMM_WORLD_RANK, PMI_RANK,
 * PMIX_RANK, SLURM_PROCID, first set wins. getenv_fn is getenv or a test's
 * stand-in. Returns 1 (found, *rank set), 0 (none set) or UET_CONF_EBAD
 * (set but not a rank below UET_PERF_MAX_HOSTS; err names the variable).
 */
int uet_perf_rank_from_env(char *(*getenv_fn)(const char *name), uint32_t *rank,
			   char *err, size_t errlen);

/*
 * The launcher's whole story: the rank as above, and where known the
 * number of processes (OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS), this
 * process's rank among those on its machine (OMPI_COMM_WORLD_LOCAL_RANK,
 * MPI_LOCALRANKID, PMI_LOCAL_RANK, SLURM_LOCALID) and their number
 * (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS, PMI_LOCAL_SIZE). Returns 1
 * (a rank found; l filled), 0 (none) or UET_CONF_EBAD naming the variable.
 */
int uet_perf_launcher_from_env(char *(*getenv_fn)(const char *name),
			       struct uet_perf_launcher *l, char *err, size_t errlen);

/* s with "%l" replaced by local_rank and "%r" by rank (one setting naming
 * each process's own device or file), into out (n bytes). Returns 0,
 * UET_CONF_EBAD where s names one given as UINT32_MAX (unknown), or
 * UET_CONF_ETOOLONG where out is too short. */
#define UET_CONF_ETOOLONG (-3)
int uet_perf_expand_ranks(const char *s, uint32_t rank, uint32_t local_rank, char *out,
			  size_t n);

/* Hosts mode without --rank or --local: take the rank from the environment
 * (o->launcher says what the launcher told); an error if there is none.
 * Other modes: nothing. 0 or UET_CONF_EBAD. */
int uet_perf_opts_resolve_rank(struct uet_perf_opts *o,
			       char *(*getenv_fn)(const char *name), char *err,
			       size_t errlen);

/*
 * Hosts list: the "[hosts]" section of an INI file, one key per rank,
 * ranks 0..n-1 each once, data IPs distinct:
 *   [hosts]
 *   0 = control=192.168.0.1, ip=10.0.0.1, mac=02:00:00:00:00:01, port=0
 * control and ip are required; other sections of the file are not read.
 */
struct uet_perf_hosts {
	uint32_t n;
	struct uet_perf_endpoint h[UET_PERF_MAX_HOSTS];
};

int uet_perf_hosts_load(struct uet_perf_hosts *h, const char *path, char *err,
			size_t errlen);

/* The options against a loaded hosts list: --rank, --local, --root and
 * --fanin within its ranks. 0 or UET_CONF_EBAD. */
int uet_perf_opts_check_hosts(const struct uet_perf_opts *o,
			      const struct uet_perf_hosts *h, char *err, size_t errlen);

/*
 * Value parsers. On error they return UET_CONF_EBAD and write what is wrong
 * (without naming an option) to err.
 */
/* "a-b,c,..." of integers in min..max; ranges ascending-free, no overlap. */
int uet_perf_parse_set(const char *s, uint32_t min, uint32_t max,
		       struct uet_perf_set *out, char *err, size_t errlen);
bool uet_perf_set_has(const struct uet_perf_set *s, uint32_t v);
/* The set as it is written: "a-b,c" (empty: ""). */
void uet_perf_set_str(const struct uet_perf_set *s, char *buf, size_t n);
uint64_t uet_perf_set_count(const struct uet_perf_set *s);
/* A time as every tool writes it (uet_text_parse_time_ns, text/text.h):
 * "2.5" (seconds), "250ms", "10us", "500ns"; at most 1e6 s, exactly in ns. */
int uet_perf_parse_time_ns(const char *s, uint64_t *ns, char *err, size_t errlen);
/* "T:SET" with SET in 1..65535. */
int uet_perf_parse_fail_ev(const char *s, struct uet_perf_fail_ev *out, char *err,
			   size_t errlen);
/* "T:CMD", CMD not empty. */
int uet_perf_parse_exec(const char *s, struct uet_perf_exec *out, char *err,
			size_t errlen);
/* Endpoint spec; with hosts_entry, "control=" is allowed and required. */
int uet_perf_parse_endpoint(const char *s, bool hosts_entry,
			    struct uet_perf_endpoint *out, char *err, size_t errlen);
int uet_perf_parse_neighbor(const char *s, struct uet_perf_neighbor *out, char *err,
			    size_t errlen);

#endif /* UET_CONF_H_ */
