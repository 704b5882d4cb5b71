/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SIM_SERIES_H_
#define UET_SIM_SERIES_H_

/*
 * Per-port time series of the simulated fabric: for the ports asked for,
 * every interval, the bytes a port sent (its utilisation), its queue at the
 * sample and the largest queue it held since the previous one. Sampling is
 * an event of the simulation that reads counters only: the run is the same
 * with or without it (apart from the sampler's own events). Memory is
 * bounded: at most SIM_SERIES_MAX_SAMPLES samples over all ports; past it
 * sampling stops and the series says it was truncated.
 *
 * A selection (uet-sim --port-series LIST, comma-separated items):
 *   LINK[:DIR]   hostN, torN.upM, aggN.upM (spineN.upM): one cable
 *   CLASS[:DIR]  host, tor-up, agg-up: every cable of the class
 * DIR: up (the egress toward the cores, the default), down, or both.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/series.h"

struct sim;
struct sim_port;
struct sim_series;

#define SIM_SERIES_MAX_PORTS 4096
#define SIM_SERIES_MAX_SAMPLES (1u << 22) /* 48 MiB of samples */

/* Resolve sel on a built fabric and sample every interval_ns from the
 * current time on. NULL with err when a name does not exist or memory is
 * short. */
struct sim_series *sim_series_start(struct sim *s, const struct sim_series_sel *sel,
				    uint64_t interval_ns, char *err, size_t errlen);
void sim_series_free(struct sim_series *ser);

uint32_t sim_series_ports(const struct sim_series *ser);
/* "tor3.up1" or "tor3.up1:down", and the port's rate at the end. */
const char *sim_series_name(const struct sim_series *ser, uint32_t port);
uint64_t sim_series_rate_bps(const struct sim_series *ser, uint32_t port);
uint32_t sim_series_samples(const struct sim_series *ser);
uint64_t sim_series_interval_ns(const struct sim_series *ser);
bool sim_series_truncated(const struct sim_series *ser);
/* Sample i covers (start + i x interval, start + (i + 1) x interval]. */
uint64_t sim_series_start_ns(const struct sim_series *ser);
struct sim_series_sample {
	uint32_t tx_bytes;         /* sent in the interval */
	uint32_t queue_bytes;      /* queued at its end */
	uint32_t queue_max_bytes;  /* the most queued during it */
};
const struct sim_series_sample *sim_series_get(const struct sim_series *ser, uint32_t sample,
					       uint32_t port);

#endif /* UET_SIM_SERIES_H_ */
