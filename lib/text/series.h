/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TEXT_SERIES_H_
#define UET_TEXT_SERIES_H_

/*
 * A selection of the simulated fabric's ports for time series (uet-sim
 * --port-series LIST, comma-separated items), text only; lib/sim's
 * series.h samples them:
 *   LINK[:DIR]   hostN, torN.upM, aggN.upM (spineN.upM): one cable
 *   CLASS[:DIR]  host, tor-up, agg-up: every cable of the class
 * DIR: up (the egress toward the cores, the default), down, or both.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_SERIES_MAX_ITEMS 64

struct sim_series_item {
	bool is_class;
	uint8_t cls;            /* enum sim_class (failure.h), links only */
	uint8_t node_kind;      /* a link: enum sim_node_kind */
	uint32_t node, uplink;
	uint8_t dir;            /* enum sim_dir: SIM_DIR_BOTH = both */
	char text[40];
};

struct sim_series_sel {
	struct sim_series_item items[SIM_SERIES_MAX_ITEMS];
	uint32_t n;
};

/* Parse LIST into sel. 0, or -1 with a message (without the option name). */
int sim_series_parse(const char *list, struct sim_series_sel *sel, char *err, size_t errlen);

#endif /* UET_TEXT_SERIES_H_ */
