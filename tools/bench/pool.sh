#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What the software UDP checksum costs uet-perf per packet as the mbuf
# pool grows: one lcore, a sender and a receiver on a net_ring port looped
# to itself (as tools/bench/glue.sh), with checksums (`perf`) and with
# --zero-udp-csum (`0cs`) at each --mbufs. The receiver sums each 4 KiB
# payload where its mbuf last left it: a pool the caches hold is summed
# from cache, a larger one from further out. Prints data packets per
# second of each and the difference in ns per packet (the checksum's
# cost).
#
#   tools/bench/pool.sh [MBUFS...]    (default: 512 1024 2048 4096 16384 0;
#                                      0 = uet-perf's own sizing)
#
# Environment: ROUNDS (3), SECONDS_RUN (3), CORE (1), UET_PERF, EAL_MEM
# (tools/bench/common.sh: hugepages or not).
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

ROUNDS=${ROUNDS:-3}
T=${SECONDS_RUN:-3}
CORE=${CORE:-1}
PERF=${UET_PERF:-build/apps/uet-perf/uet-perf}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(512 1024 2048 4096 16384 0)
bench_scratch uetp
[ -x "$PERF" ] || { echo "no $PERF: build first (tools/setup.sh)"; exit 2; }

perf_pps() { # MBUFS [uet-perf options]
	local mb=$1
	shift
	perf_loop "$TMP/p.json" --mbufs "$mb" "$@"
	json_pps "$TMP/p.json" 4096
}

bench_header "checksum cost against the mbuf pool: CPU $CORE, $T s runs, median of $ROUNDS"
printf "%-7s %12s %12s %16s\n" mbufs perf_pps 0cs_pps csum_ns_per_pkt
for mb in "${SIZES[@]}"; do
	a=() b=()
	for ((r = 0; r < ROUNDS; r++)); do
		a+=("$(perf_pps "$mb")")
		b+=("$(perf_pps "$mb" --zero-udp-csum)")
	done
	awk -v m="$mb" -v a="$(median "${a[@]}")" -v b="$(median "${b[@]}")" 'BEGIN {
		ns = (a > 0 && b > 0) ? sprintf("%.0f", 1e9 / a - 1e9 / b) : "-"
		printf("%-7s %12d %12d %16s\n", m == 0 ? "auto" : m, a, b, ns) }'
done
