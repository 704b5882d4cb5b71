#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Many emulated ranks in uet-perf: PROCS processes (default 4) of RANKS
# endpoints each (default 64: 256 ranks), in network namespaces on one
# Linux bridge, each process on one af_packet port; an all-to-all of SIZE
# (4K) with --verify, PARALLEL (2) flows in flight per rank. Prints what
# every process reported and the wall time; exit 0 when every flow
# completed byte-exact. Needs root; removes everything it made.
#
#   tools/bench/ranks.sh                 # 256 ranks, 4 x 64
#   PROCS=2 RANKS=32 tools/bench/ranks.sh
#
# Ranks of one process share its port: their frames to each other go out
# and come back, which a Linux bridge does only with hairpin on (a switch:
# reflective relay); the script turns it on.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh
PERF=${UET_PERF:-build/apps/uet-perf/uet-perf}
PROCS=${PROCS:-4}
RANKS=${RANKS:-64}
SIZE=${SIZE:-4K}
PARALLEL=${PARALLEL:-2}
[ "$(id -u)" -eq 0 ] || { echo "ranks.sh needs root (network namespaces)"; exit 2; }
[ -x "$PERF" ] || { echo "no $PERF: build first (tools/setup.sh)"; exit 2; }
T="rk$$"
TMP=$(mktemp -d)
cleanup() {
	pkill -f -- "--file-prefix ${T}h" 2>/dev/null || true
	dpdk_runtime_rm "${T}"
	for i in $(seq 1 "$PROCS"); do ip netns del "${T}h$i" 2>/dev/null || true; done
	ip netns del "${T}s" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

python3 - "$PROCS" "$RANKS" >"$TMP/hosts.ini" <<'PY'
import sys
procs, ranks = int(sys.argv[1]), int(sys.argv[2])
print("[hosts]")
for p in range(procs):
    for r in range(ranks):
        print("%d = control=192.168.91.%d, ip=10.91.%d.%d/16, port=0, mac=02:00:0a:5b:%02x:%02x"
              % (p * ranks + r, p + 1, p, r + 1, p, r + 1))
PY
ip netns add "${T}s"
ip -n "${T}s" link add br0 type bridge
ip -n "${T}s" link set br0 up
for i in $(seq 1 "$PROCS"); do
	ip netns add "${T}h$i"
	ip link add "${T}v$i" type veth peer name "${T}p$i"
	ip link set "${T}v$i" netns "${T}h$i"
	ip link set "${T}p$i" netns "${T}s"
	ip -n "${T}s" link set "${T}p$i" master br0 mtu 9000 up
	ip -n "${T}s" link set "${T}p$i" type bridge_slave hairpin on
	ip -n "${T}h$i" link set lo up
	ip -n "${T}h$i" addr add "192.168.91.$i/24" dev "${T}v$i"
	ip -n "${T}h$i" link set "${T}v$i" mtu 9000 up
done
bench_header "ranks.sh: $PROCS processes x $RANKS ranks, all-to-all of $SIZE, --parallel $PARALLEL, af_packet on a bridge"
t0=$(date +%s.%N)
pids=()
for i in $(seq 1 "$PROCS"); do
	ip netns exec "${T}h$i" timeout 600 "$PERF" --no-huge --no-pci -m 1024 --log-level=error \
		-l $(((i - 1) % $(nproc))) --file-prefix "${T}h$i" \
		--vdev="net_af_packet0,iface=${T}v$i,framesz=8192,blocksz=8192,framecnt=8192" -- \
		--hosts "$TMP/hosts.ini" --rank $(((i - 1) * RANKS)) --pattern alltoall --size "$SIZE" \
		--iters 1 --parallel "$PARALLEL" --verify --base-rtt-ns 1000000 --control-port 18811 \
		--barrier-timeout 120 -i 0 --json "$TMP/r%r.json" >"$TMP/out$i.txt" 2>&1 &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
t1=$(date +%s.%N)
grep -E '^(flows|completion|goodput|timeouts|spurious|lcores|verify)' "$TMP/out1.txt" || cat "$TMP/out1.txt"
echo "wall $(python3 -c "print('%.1f' % ($t1 - $t0))") s, exit $rc"
exit $rc
