#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The DPDK glue's cost per packet: uet-perf over a net_ring port looped to
# itself (a sender and a receiver endpoint on one lcore) against
# bench_core (the same two endpoints joined in memory, no DPDK), both on
# one core, same build, same transport settings (REPS, NSCC, 4 KiB
# payloads, an ACK per 16 KiB). Prints, in turns within each round (this
# VM's speed drifts), data packets per second of each and their ratio:
#
#   core        bench_core, the sender copies each payload (its default)
#   core-0copy  bench_core --no-copy: the sender fills nothing, as uet-perf
#               without --verify
#   perf        uet-perf, its defaults: net_ring has no checksum offload,
#               so the UDP checksum of every received byte is computed
#   perf-0cs    uet-perf --zero-udp-csum: no checksum work (what a NIC
#               with offload leaves the core)
#
#   tools/bench/glue.sh
#
# Target (issue 15): perf at least 0.8x core on the same core.
# Environment: ROUNDS (3), SECONDS_RUN (5), CORE (1), UET_PERF, BENCH_CORE,
# EAL_MEM (tools/bench/common.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

ROUNDS=${ROUNDS:-3}
T=${SECONDS_RUN:-5}
CORE=${CORE:-1}
PERF=${UET_PERF:-build/apps/uet-perf/uet-perf}
CORE_BIN=${BENCH_CORE:-build/tests/bench/bench_core}
bench_scratch uetg
[ -x "$PERF" ] && [ -x "$CORE_BIN" ] || { echo "build first (tools/setup.sh)"; exit 2; }

# bench_core's rate: 1e9 / (ns per data packet).
core_pps() {
	taskset -c "$CORE" "$CORE_BIN" --lb reps --cc nscc --msgs 4000 "$@" |
		awk '/ns per data packet/ { printf "%d\n", 1e9 / $1 }'
}

# uet-perf's delivered data packets per second: goodput / 8 / 4096; what
# its transport retransmitted goes to $TMP/retx-LABEL.
perf_pps() { # LABEL [uet-perf options]
	local label=$1
	shift
	perf_loop "$TMP/p.json" "$@"
	json_pps "$TMP/p.json" 4096
	json_retx "$TMP/p.json" >>"$TMP/retx-$label"
}

echo "glue benchmark: one core (CPU $CORE), REPS + NSCC, 4 KiB payloads, $T s per uet-perf run, $ROUNDS rounds"
printf "%-6s %12s %12s %12s %12s %9s %9s %12s\n" round core_pps core0_pps perf_pps perf0cs_pps perf/core 0cs/core perf/core0
declare -a A B C D
for r in $(seq 1 "$ROUNDS"); do
	a=$(core_pps)
	b=$(core_pps --no-copy)
	c=$(perf_pps perf)
	d=$(perf_pps perf0cs --zero-udp-csum)
	A+=("$a"); B+=("$b"); C+=("$c"); D+=("$d")
	awk -v r="$r" -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN {
		printf "%-6s %12d %12d %12d %12d %9.2f %9.2f %12.2f\n", r, a, b, c, d, c / a, d / a, c / b }'
done
a=$(median "${A[@]}"); b=$(median "${B[@]}"); c=$(median "${C[@]}"); d=$(median "${D[@]}")
awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN {
	printf "%-6s %12d %12d %12d %12d %9.2f %9.2f %12.2f\n", "median", a, b, c, d, c / a, d / a, c / b }'
# A rate bought with losses would not be a glue figure: say what the
# transport did in the uet-perf runs.
for l in perf perf0cs; do
	awk -v l="$l" '{ r += $1; s += $2; t += $3 } END {
		printf "%s: %d retransmissions (%d spurious), %d RTO expiries over the %d runs\n", l, r, s, t, NR }' "$TMP/retx-$l"
done
