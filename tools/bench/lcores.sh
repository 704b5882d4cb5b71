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
#
# Beside each count, what the machine itself gives: N copies of bench_core
# (the transport without DPDK, sharing nothing, one per CPU) as the same
# efficiency against one copy, so a VM whose cores slow each other down
# (shared caches and memory, a busy host) is told from uet-perf's own
# scaling; and the CPU time the hypervisor stole from the lcores' CPUs
# during the uet-perf runs (/proc/stat), which also shows as spurious
# timeouts.
# Environment: SECONDS_RUN (5), ROUNDS (3), FIRST_CPU (0), UET_PERF, PERF_OPTS
# (more uet-perf options for every run, e.g. --zero-udp-csum), BENCH_CORE.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

T=${SECONDS_RUN:-5}
ROUNDS=${ROUNDS:-3}
FIRST=${FIRST_CPU:-0}
PERF=${UET_PERF:-build/apps/uet-perf/uet-perf}
CORE_BIN=${BENCH_CORE:-build/tests/bench/bench_core}
read -r -a OPTS <<<"${PERF_OPTS:-}"
NCPU=$(nproc)
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(1 2 4 8 16)
bench_scratch uetc
[ -x "$PERF" ] && [ -x "$CORE_BIN" ] || { echo "no $PERF or $CORE_BIN: build first (tools/setup.sh)"; exit 2; }

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

# "steal total" jiffies summed over CPUs FIRST .. FIRST+n-1 (/proc/stat's
# cpuN lines: user nice system idle iowait irq softirq steal ...).
cpu_ticks() {
	awk -v lo="$FIRST" -v hi=$((FIRST + $1 - 1)) '$1 ~ /^cpu[0-9]+$/ {
		c = substr($1, 4) + 0
		if (c >= lo && c <= hi) { s += $9; for (i = 2; i <= NF; i++) t += $i } }
		END { print s + 0, t + 0 }' /proc/stat
}

# Data packets per second of n bench_core copies at once, one per CPU.
machine_pps() {
	local n=$1 i
	for ((i = 0; i < n; i++)); do
		taskset -c $((FIRST + i)) "$CORE_BIN" --lb reps --cc nscc --no-copy --msgs 20000 \
			>"$TMP/core-$i.txt" &
	done
	wait
	cat "$TMP"/core-[0-9]*.txt | awk '/ns per data packet/ { p += 1e9 / $1 } END { printf "%d\n", p }'
	rm -f "$TMP"/core-[0-9]*.txt
}

echo "lcore scaling over net_ring, $NCPU CPUs here (from CPU $FIRST), $T s runs, median of $ROUNDS${PERF_OPTS:+, options: $PERF_OPTS}"
echo "machine: n bench_core copies at once against one (the same efficiency); stolen: the lcores' CPU time the hypervisor took"
printf "%-7s %14s %14s %11s %8s %8s  %s\n" lcores pps pps_per_lcore efficiency machine stolen "retx (spurious), RTOs"
base=0
mbase=0
for n in "${COUNTS[@]}"; do
	if [ $((FIRST + n)) -gt "$NCPU" ]; then
		echo "$n lcores: more than the CPUs here, not run"
		continue
	fi
	v=()
	m=()
	steal=0
	total=0
	for ((r = 0; r < ROUNDS; r++)); do
		read -r s0 t0 < <(cpu_ticks "$n")
		v+=("$(run "$n")")
		read -r s1 t1 < <(cpu_ticks "$n")
		steal=$((steal + s1 - s0))
		total=$((total + t1 - t0))
		m+=("$(machine_pps "$n")")
	done
	pps=$(median "${v[@]}")
	mpps=$(median "${m[@]}")
	[ "$n" != 1 ] || { base=$pps; mbase=$mpps; }
	awk -v n="$n" -v p="$pps" -v b="$base" -v m="$mpps" -v mb="$mbase" -v st="$steal" -v tt="$total" '
		{ r += $1; s += $2; t += $3 } END {
		e = me = "-"
		if (b > 0)
			e = sprintf("%.2f", p / (n * b))
		if (mb > 0)
			me = sprintf("%.2f", m / (n * mb))
		printf "%-7d %14d %14d %11s %8s %7.1f%%  %d (%d), %d\n", n, p, p / n, e, me,
			(tt > 0 ? 100 * st / tt : 0), r, s, t }' "$TMP/retx-$n"
done
