#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The uet-perf benchmarks on a machine without DPDK, from a bundle
# that tools/bench/bundle.sh made here (the same binaries): what the
# machine is, then lcore scaling up to its CPUs (tools/bench/lcores.sh),
# with and without checksum work, the checksum loop's speed (bench_csum)
# and the glue ratio (tools/bench/glue.sh). Output also goes to
# $LOG_DIR/*.txt when LOG_DIR is set.
#
#   tools/bench/from_bundle.sh [BUNDLE]     (default build/bundle)
#
# Environment: PARTS (default "lcores lcores-0cs csum glue"; also pool:
# tools/bench/pool.sh, and huge: pool.sh and glue.sh on --no-huge memory
# and on 2 MiB hugepages, which it reserves for the time), COUNTS (lcore
# counts; default 1 2 4 8 12 16, those over the CPUs skipped),
# SECONDS_RUN, ROUNDS (passed on).
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -uo pipefail
cd "$(dirname "$0")/../.."

B=${1:-build/bundle}
[ -x "$B/bin/uet-perf" ] || { echo "no bundle at $B (tools/bench/bundle.sh)"; exit 2; }
export UET_PERF="$B/bin/uet-perf" BENCH_CORE="$B/bin/bench_core"
LOG=${LOG_DIR:-}

log() { # NAME: stdin to stdout, and to $LOG_DIR/NAME.txt
	if [ -n "$LOG" ]; then tee "$LOG/$1.txt"; else cat; fi
}

{
	date -u +"%Y-%m-%d %H:%M UTC"
	uname -srm
	ldd --version | head -1
	nproc
	lscpu | grep -E '^(Model name|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|NUMA node\(s\)|CPU MHz|L3 cache)' || true
	free -g | head -2
	# What the checksum loop dispatches on (uet_csum_partial: AVX2 or not).
	echo "x86 vector flags: $(grep -m1 -o -w -E 'sse4_2|avx|avx2|avx512f|avx512bw' /proc/cpuinfo | sort -u | tr '\n' ' ')"
} | log machine

huge() {
	local hp=/proc/sys/vm/nr_hugepages old
	old=$(cat $hp)
	echo 1024 >$hp 2>/dev/null || { echo "cannot reserve hugepages (not root?)"; return; }
	grep -E 'HugePages_Total|Hugepagesize' /proc/meminfo
	echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
	for m in "--no-huge -m 1024" "--in-memory -m 1024"; do
		echo "== EAL memory: $m"
		EAL_MEM="$m" tools/bench/pool.sh 4096 0
		EAL_MEM="$m" ROUNDS=2 SECONDS_RUN=3 tools/bench/glue.sh
	done
	echo "$old" >$hp
}

read -r -a counts <<<"${COUNTS:-1 2 4 8 12 16}"
for part in ${PARTS:-lcores lcores-0cs csum glue}; do
	case $part in
	lcores) tools/bench/lcores.sh "${counts[@]}" ;;
	# Without checksum work: what a NIC with offload leaves a core.
	lcores-0cs) PERF_OPTS=--zero-udp-csum tools/bench/lcores.sh "${counts[@]}" ;;
	csum) "$B/bin/bench_csum" && "$B/bin/bench_csum" --memory ;;
	glue) tools/bench/glue.sh ;;
	pool) tools/bench/pool.sh ;;
	# The checksum's cost and the glue on --no-huge memory and on 2 MiB
	# hugepages (reserved here for the part, then given back).
	huge) huge ;;
	*) echo "unknown part $part" ;;
	esac 2>&1 | log "$part"
done
