#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# uet-perf's lcore scaling: N lcores, each polling its own net_ring port
# (looped to itself) with two endpoints on it that exchange 1 MiB messages
# both ways (--pattern bisection, endpoint i with i + N), so the lcores
# share nothing but the process. Prints per lcore count the data packets
# delivered per second, per lcore, and the efficiency against N times the
# one-lcore rate (1.00 = linear).
#
#   tools/bench/lcores.sh [N...]   (default: 1 2 4 8 16, up to the CPUs here)
#
# Target (issue 15): at least 0.9x linear to the cores available. Lcores
# beyond the machine's CPUs would share them (not measured).
# Environment: SECONDS_RUN (5), ROUNDS (3), FIRST_CPU (0), UET_PERF, PERF_OPTS
# (more uet-perf options for every run, e.g. --zero-udp-csum).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

T=${SECONDS_RUN:-5}
ROUNDS=${ROUNDS:-3}
FIRST=${FIRST_CPU:-0}
PERF=${UET_PERF:-build/apps/uet-perf/uet-perf}
read -r -a OPTS <<<"${PERF_OPTS:-}"
NCPU=$(nproc)
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(1 2 4 8 16)
bench_scratch uetc
[ -x "$PERF" ] || { echo "no $PERF: build first (tools/setup.sh)"; exit 2; }

# Delivered data packets per second with n lcores (4 KiB payloads).
run() {
	local n=$1 i args=() vdevs=()
	for ((i = 0; i < n; i++)); do
		vdevs+=(--vdev="net_ring$i")
		args+=(--endpoint "port=$i,ip=10.98.$i.1,mac=02:00:00:00:$(printf %02x "$i"):01")
	done
	for ((i = 0; i < n; i++)); do
		args+=(--endpoint "port=$i,ip=10.98.$i.2,mac=02:00:00:00:$(printf %02x "$i"):02")
	done
	timeout $((T + 60)) "$PERF" --no-huge -m $((512 * n + 512)) --no-pci --log-level=error \
		-l "$FIRST-$((FIRST + n - 1))" --file-prefix "${TAG}" "${vdevs[@]}" -- "${args[@]}" \
		--pattern bisection --size 1M --duration "$T" --mtu 4096 -i 0 \
		--json "$TMP/l.json" ${OPTS[@]+"${OPTS[@]}"} >"$TMP/l.txt" 2>&1 || { tail -5 "$TMP/l.txt" >&2; echo 0; return; }
	json_pps "$TMP/l.json" 4096
	json_retx "$TMP/l.json" >>"$TMP/retx-$n"
}

echo "lcore scaling over net_ring, $NCPU CPUs here (from CPU $FIRST), $T s runs, median of $ROUNDS${PERF_OPTS:+, options: $PERF_OPTS}"
printf "%-7s %14s %14s %11s  %s\n" lcores pps pps_per_lcore efficiency "retx (spurious), RTOs"
base=0
for n in "${COUNTS[@]}"; do
	if [ $((FIRST + n)) -gt "$NCPU" ]; then
		echo "$n lcores: more than the CPUs here, not run"
		continue
	fi
	v=()
	for ((r = 0; r < ROUNDS; r++)); do v+=("$(run "$n")"); done
	pps=$(median "${v[@]}")
	[ "$n" != 1 ] || base=$pps
	awk -v n="$n" -v p="$pps" -v b="$base" '{ r += $1; s += $2; t += $3 } END {
		e = "-"
		if (b > 0)
			e = sprintf("%.2f", p / (n * b))
		printf "%-7d %14d %14d %11s  %d (%d), %d\n", n, p, p / n, e, r, s, t }' "$TMP/retx-$n"
done
