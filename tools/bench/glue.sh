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
# Each round prints its rates and ratios; the summary gives each ratio's
# median and range over the rounds (the range shows a round a busy moment
# skewed). A uet-perf run that fails stops the script with its log.
# Targets: perf-0cs at least 0.8x core, perf at least 0.6x core.
# Environment: ROUNDS (3), SECONDS_RUN (5), CORE (1), UET_PERF, BENCH_CORE,
# EAL_MEM (tools/bench/common.sh).
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
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
	taskset -c "$CORE" "$CORE_BIN" --lb reps --cc nscc --msgs 4000 "$@" >"$TMP/core.txt" 2>&1 ||
		run_failed "$TMP/core.txt" "bench_core $*"
	awk '/ns per data packet/ { printf "%d\n", 1e9 / $1 }' "$TMP/core.txt"
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

bench_header "glue: one core (CPU $CORE), REPS + NSCC, 4 KiB payloads, $T s per uet-perf run, $ROUNDS rounds"
printf "%-6s %12s %12s %12s %12s %9s %9s %12s\n" round core_pps core0_pps perf_pps perf0cs_pps perf/core 0cs/core perf/core0
for r in $(seq 1 "$ROUNDS"); do
	a=$(core_pps)
	b=$(core_pps --no-copy)
	c=$(perf_pps perf)
	d=$(perf_pps perf0cs --zero-udp-csum)
	awk -v r="$r" -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN {
		printf "%-6s %12d %12d %12d %12d %9.2f %9.2f %12.2f\n", r, a, b, c, d, c / a, d / a, c / b }'
	awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN {
		printf "core_pps %d\ncore0_pps %d\nperf_pps %d\nperf0cs_pps %d\n", a, b, c, d
		printf "perf/core %.4f\n0cs/core %.4f\nperf/core0 %.4f\n", c / a, d / a, c / b }' >>"$TMP/rounds"
done
echo "# per-round figures: median and range over the rounds"
grep '_pps' "$TMP/rounds" | rounds_summary "%.0f"
grep -v '_pps' "$TMP/rounds" | rounds_summary
# A rate bought with losses would not be a glue figure: say what the
# transport did in the uet-perf runs.
for l in perf perf0cs; do
	awk -v l="$l" '{ r += $1; s += $2; t += $3 } END {
		printf "%s: %d retransmissions (%d spurious), %d RTO expiries over the %d runs\n", l, r, s, t, NR }' "$TMP/retx-$l"
done
