#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# uet-perf's lcore scaling: N lcores, each polling its own net_ring port
# (looped to itself) with two endpoints on it that exchange 1 MiB messages
# both ways (--pattern bisection, endpoint i with i + N), so the lcores
# share nothing but the process. Each round runs every count in turn;
# prints per lcore count the median data packets delivered per second,
# per lcore, and the efficiency against N times the same round's
# one-lcore rate (1.00 = linear), its median and range over the rounds. A
# run that fails stops the script with its log.
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
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
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
		--json "$TMP/l.json" ${OPTS[@]+"${OPTS[@]}"} >"$TMP/l.txt" 2>&1 ||
		run_failed "$TMP/l.txt" "uet-perf on $n lcores"
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
	local pids=()
	for ((i = 0; i < n; i++)); do
		taskset -c $((FIRST + i)) "$CORE_BIN" --lb reps --cc nscc --no-copy --msgs 20000 \
			>"$TMP/core-$i.txt" 2>&1 &
		pids+=($!)
	done
	for ((i = 0; i < n; i++)); do
		wait "${pids[$i]}" || run_failed "$TMP/core-$i.txt" "bench_core copy $i of $n"
	done
	cat "$TMP"/core-[0-9]*.txt | awk '/ns per data packet/ { p += 1e9 / $1 } END { printf "%d\n", p }'
	rm -f "$TMP"/core-[0-9]*.txt
}

bench_header "lcore scaling over net_ring, $NCPU CPUs here (from CPU $FIRST), $T s runs, $ROUNDS rounds${PERF_OPTS:+, options: $PERF_OPTS}"
echo "# per round, every count in turn; efficiency: the round's pps / (n x the round's 1-lcore pps)"
echo "# machine: n bench_core copies at once against one, the same way; stolen: the lcores' CPU time the hypervisor took"
RUN=()
for n in "${COUNTS[@]}"; do
	if [ $((FIRST + n)) -gt "$NCPU" ]; then
		echo "# $n lcores: more than the CPUs here, not run"
		continue
	fi
	RUN+=("$n")
done
for ((r = 1; r <= ROUNDS; r++)); do
	for n in "${RUN[@]}"; do
		read -r s0 t0 < <(cpu_ticks "$n")
		p=$(run "$n")
		read -r s1 t1 < <(cpu_ticks "$n")
		m=$(machine_pps "$n")
		echo "$r $n $p $m $((s1 - s0)) $((t1 - t0))" >>"$TMP/rows"
	done
done
python3 - "$TMP" <<'PY'
import os, statistics, sys
tmp = sys.argv[1]
rows = [l.split() for l in open(tmp + "/rows")]
pps, mach, steal, total = {}, {}, {}, {}
for r, n, p, m, s, t in rows:
    pps[(int(r), int(n))] = int(p)
    mach[(int(r), int(n))] = int(m)
    steal[int(n)] = steal.get(int(n), 0) + int(s)
    total[int(n)] = total.get(int(n), 0) + int(t)
counts = sorted(set(n for _, n in pps))
rounds = sorted(set(r for r, _ in pps))
def eff(table, n):
    e = [table[(r, n)] / (n * table[(r, 1)]) for r in rounds if table.get((r, 1))]
    return e
print("%-7s %12s %12s %10s %6s %6s %9s %8s  %s" % ("lcores", "pps", "per_lcore", "efficiency",
      "min", "max", "machine", "stolen", "retx (spurious), RTOs"))
for n in counts:
    p = statistics.median(pps[(r, n)] for r in rounds)
    e, me = eff(pps, n), eff(mach, n)
    rt = [0, 0, 0]
    path = "%s/retx-%d" % (tmp, n)
    if os.path.exists(path):
        for line in open(path):
            for i, v in enumerate(line.split()):
                rt[i] += int(v)
    f = lambda v: "%.2f" % v
    print("%-7d %12d %12d %10s %6s %6s %9s %7.1f%%  %d (%d), %d" % (
        n, p, p / n, f(statistics.median(e)) if e else "-", f(min(e)) if e else "-",
        f(max(e)) if e else "-", f(statistics.median(me)) if me else "-",
        100.0 * steal[n] / total[n] if total[n] else 0, rt[0], rt[1], rt[2]))
PY
