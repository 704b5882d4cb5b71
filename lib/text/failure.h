/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TEXT_FAILURE_H_
#define UET_TEXT_FAILURE_H_

/*
 * The failure vocabulary of the simulated fabric: what can fail, how a
 * failure is written (uet-sim's --failure SPEC and an htsim connection
 * matrix's failure lines), text only: lib/sim's failure.h applies one to
 * a built fabric. The option parsers (lib/conf) call the parsers here, so their errors keep naming
 * the option and the file:line; lib/simrun only hands the parsed failures
 * to sim_failure_apply(). doc/uet-sim.md is the user's reference.
 *
 * --failure SPEC, KIND:T:...[:key=value]...:
 *   link-down:T:LINK[:for=DUR][:converge=DUR][:dir=D]   the cable stops,
 *       both ways or (dir=up, dir=down) one
 *   link-up:T:LINK
 *   link-rate:T:LINK:GBPS[:for=DUR][:dir=D][:buffer=B]
 *   switch-down:T:SWITCH[:for=DUR][:converge=DUR], switch-up:T:SWITCH
 *   random-down:T:PCT%:CLASS[:for=DUR][:converge=DUR][:dir=D]   dir: cables
 *   degrade:T:PCT%:CLASS:FACTOR[:for=DUR][:dir=D][:buffer=B]
 *   ber:T:PCT%:CLASS:BER[:for=DUR][:dir=D]
 *   htsim-failed:T:N[:FACTOR][:for=DUR]   what the UEC reference's
 *       "-failed N" degrades (uet-htsim.md §6.3): 3 tiers, the first N
 *       core-to-aggregation downlinks (aggregation switch 0's uplinks,
 *       then 1's, ...), one direction; 2 tiers, every ToR's links to
 *       spines 0..N-1, both ways; to FACTOR (default 0.25) of their rate
 *       with buffer and ECN thresholds scaled alike.
 * A degradation (link-rate, degrade) scales the port's rate and, unless
 * buffer=keep, its data buffer and ECN thresholds by the same factor, as
 * the reference does. dir: up (toward the cores), down, or both (default);
 * random-down's one-way cables are withdrawn by routing as dead ones.
 *
 * Times (T, DUR) are uet_text_parse_time_ns() (text/text.h): a number
 * with a unit, ns, us, ms or s; a bare number is seconds, as every time in
 * uet-perf and tools/fabric. LINK: hostN, torN.upM, aggN.upM (spineN.upM). SWITCH:
 * torN, spineN or aggN (tier 1), coreN. CLASS: host, tor-up, agg-up
 * (cables); tor, spine, agg, core (switches, random-down only).
 * converge: when the failed cable leaves the switches' ECMP groups
 * ("never": a blackhole for good); default: the caller's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sim_fail_kind {
	SIM_FAIL_LINK_DOWN = 0,
	SIM_FAIL_LINK_UP,
	SIM_FAIL_LINK_RATE,
	SIM_FAIL_SWITCH_DOWN,
	SIM_FAIL_SWITCH_UP,
	SIM_FAIL_RANDOM_DOWN,
	SIM_FAIL_DEGRADE,
	SIM_FAIL_BER,
	SIM_FAIL_HTSIM_FAILED,
	SIM_FAIL_KINDS
};

enum sim_node_kind {
	SIM_NODE_HOST = 0,
	SIM_NODE_TOR,
	SIM_NODE_T1,   /* spine (2 tiers) or aggregation switch (3 tiers) */
	SIM_NODE_T2,   /* core */
};

enum sim_class {
	SIM_CLASS_HOST = 0, /* host cables */
	SIM_CLASS_TOR_UP,   /* ToR - tier 1 cables */
	SIM_CLASS_T1_UP,    /* tier 1 - core cables */
	SIM_CLASS_TOR,      /* switches */
	SIM_CLASS_T1,
	SIM_CLASS_T2,
};

enum sim_dir {
	SIM_DIR_BOTH = 0,
	SIM_DIR_UP,         /* toward the cores (a host's or switch's uplink) */
	SIM_DIR_DOWN,
};

#define SIM_CONVERGE_DEFAULT UINT64_MAX /* the caller's default */
#define SIM_CONVERGE_NEVER 0

struct sim_failure {
	uint8_t kind;           /* enum sim_fail_kind */
	uint64_t at_ns;
	uint64_t for_ns;        /* back up (or restored) after this; 0: stays */
	uint64_t converge_ns;   /* SIM_CONVERGE_DEFAULT or _NEVER or a delay */
	uint8_t node_kind;      /* link or switch: enum sim_node_kind */
	uint32_t node;          /* its index within its kind */
	uint32_t uplink;        /* a switch's uplink M (a core's port for .cm
				 * CORE lines); UINT32_MAX: a host cable */
	uint8_t cls;            /* random selections: enum sim_class */
	double pct;             /* random selections: % of the class */
	double value;           /* link-rate Gbit/s, degrade factor, ber ratio,
				 * htsim-failed factor */
	uint32_t count;         /* htsim-failed N */
	uint8_t dir;            /* degradations, link-down, random-down
				 * (cables), ber: enum sim_dir */
	bool keep_buffer;       /* degradations: rate only */
	char text[96];          /* the spec as given (for reports) */
};

/* A --failure SPEC. 0, or -1 with a message in err (without the option's
 * name: the caller adds it, or the file:line). */
int sim_failure_parse(const char *spec, struct sim_failure *out, char *err, size_t errlen);

/* An htsim connection matrix's failure line, "failure switch_type
 * TOR|AGG|CORE switch_id X link_id Y": the cable on uplink Y of switch X
 * (TOR, AGG) or on port Y of core X (CORE) is down for the whole run (htsim
 * has no time). Two words of ours, "start T" and "duration D" in
 * microseconds (the file's unit, htsim's), time it. 0 or -1 with err. */
int sim_failure_parse_cm(const char *line, struct sim_failure *out, char *err,
			 size_t errlen);

/* The pieces of the vocabulary other selections reuse (series.h): a LINK
 * name into f (node_kind, node, uplink) and a cable CLASS (host, tor-up,
 * agg-up). */
int sim_failure_parse_link(const char *s, struct sim_failure *f, char *err, size_t n);
int sim_failure_parse_class(const char *s, uint8_t *cls, char *err, size_t n);

#endif /* UET_TEXT_FAILURE_H_ */
