#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# uet-perf single-flow goodput on one core per process against
# dpdk-testpmd's raw packet rate on the same virtual device and frame size.
#
#   tools/bench/perf_vs_testpmd.sh [memif|ring|all]
#
# memif: two processes (a --server and a --client for uet-perf; rxonly and
#        txonly for testpmd) joined by net_memif, one forwarding core each.
# ring:  one process, one core, on a net_ring port that loops to itself
#        (uet-perf: sender and receiver endpoints on that core; testpmd:
#        flowgen, which allocates, transmits, receives and frees).
# Printed per device: testpmd's receive rate, uet-perf's delivered data
# packets (goodput / MTU) and the ratio of the two packet rates. Neither
# testpmd mode touches the payload; memif copies it into shared memory, so
# memif is the like-for-like comparison. Its row memif-0cs runs uet-perf
# with --zero-udp-csum: testpmd's txonly sends UDP checksum 0, and memif
# has no checksum offload, so plain uet-perf also sums every payload byte
# on both ends. net_ring passes pointers: its raw rate is a bound on
# per-packet overhead, not a data rate.
#
# memif buffers (bsize) are 8 KiB, so frames up to 8 KiB.
# Environment: MTU (uet-perf payload, default 4096), SECONDS_RUN (default 5),
# ROUNDS (default 3; the last lines: per device, the median rates and the
# per-round ratio's median and range),
# UET_PERF (default build/apps/uet-perf/uet-perf), TESTPMD (dpdk-testpmd),
# LCORES ("0 1": the two cores used).
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

WHICH=${1:-all}
MTU=${MTU:-4096}
T=${SECONDS_RUN:-5}
ROUNDS=${ROUNDS:-3}
PERF=${UET_PERF:-build/apps/uet-perf/uet-perf}
TESTPMD=${TESTPMD:-dpdk-testpmd}
read -r C0 C1 <<<"${LCORES:-0 1}"
FRAME=$((MTU + 84 + 14))          # payload + UET/UDP/IPv4 headers + Ethernet
bench_scratch uetb

command -v "$TESTPMD" >/dev/null || { echo "no $TESTPMD (Debian: apt-get install dpdk-dev)"; exit 2; }
[ -x "$PERF" ] || { echo "no $PERF: build first (tools/setup.sh)"; exit 2; }

EAL=(--no-huge -m 1024 --no-pci --log-level=error)
# testpmd's mbufs hold a frame and the default headroom, as uet-perf's do
# (mbufs twice that size cost testpmd cache and TLB reach).
TPMD_APP=(--mbuf-size=$((FRAME + 128)) --total-num-mbufs=16384 --stats-period 1 -a)
# uet-perf's defaults: the RTO learns the round trips a preempted poller
# shows (doc/architecture.md), so no floor needs tuning here. -i 0: no
# interval lines.
APP_COMMON=(-i 0)

# Median receive rate (pps) of testpmd's per-second samples while packets
# flowed, the first (a partial second) left out.
tpmd_pps() {
	python3 - "$1" <<'EOF'
import re, statistics, sys
v = [int(x) for x in re.findall(r"Rx-pps:\s+(\d+)", open(sys.argv[1]).read())]
v = [x for x in v if x > 0][1:]
print(int(statistics.median(v)) if v else 0)
EOF
}

# uet-perf's delivered data packets per second: goodput / 8 / MTU.
perf_pps() { json_pps "$1" "$MTU"; }

# One line of the table: device, testpmd pps, uet-perf pps (also kept in
# $TMP/rows for the summary).
row() {
	echo "$1 $2 $3" >>"$TMP/rows"
	python3 - "$ROUND" "$@" "$FRAME" "$MTU" <<'EOF'
import sys
rnd, dev = sys.argv[1], sys.argv[2]
tp, up, frame, mtu = (int(x) for x in sys.argv[3:7])
print("%-5s %-9s %7d %13.3f %13.2f %14.3f %15.2f %7.2f" % (
    rnd, dev, frame, tp / 1e6, tp * frame * 8 / 1e9, up / 1e6, up * mtu * 8 / 1e9,
    up / tp if tp else 0))
EOF
}

# Per device, over the rounds: the median rates, and the median and the
# range of the per-round ratios (each round's two tools ran minutes apart
# at most; a ratio of medians would pair one round's testpmd with
# another's uet-perf and hide a round that a busy moment skewed).
summary() {
	python3 - "$TMP/rows" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    dev, tp, up = line.split()
    rows.setdefault(dev, []).append((int(tp), int(up)))
print("%-9s %13s %14s %13s %7s %7s %7s" % ("device", "testpmd_Mpps", "uetperf_Mpps",
      "ratio_median", "min", "max", "rounds"))
for dev, v in rows.items():
    r = [up / tp for tp, up in v if tp > 0]
    print("%-9s %13.3f %14.3f %13.2f %7.2f %7.2f %7d" % (
        dev, statistics.median(tp for tp, _ in v) / 1e6,
        statistics.median(up for _, up in v) / 1e6,
        statistics.median(r) if r else 0, min(r) if r else 0, max(r) if r else 0, len(r)))
EOF
}

# testpmd over memif, once: prints the receive rate (0: nothing moved).
tpmd_memif() {
	local sock="$TMP/memif.sock"
	rm -f "$sock"
	# testpmd: rxonly server, txonly client, each process confined to its own
	# CPU (main lcore and forwarding lcore share it) like the two uet-perf
	# processes below: two busy-polling processes on two CPUs in all.
	timeout $((T + 26)) "$TESTPMD" "${EAL[@]}" --lcores "0@$C0,1@$C0" --main-lcore 0 --file-prefix "${TAG}a" \
		--vdev="net_memif0,role=server,socket=$sock,bsize=8192" -- \
		"${TPMD_APP[@]}" --forward-mode=rxonly >"$TMP/tp-rx.txt" 2>&1 &
	local srv=$!
	wait_memif "$sock"
	timeout $((T + 2)) "$TESTPMD" "${EAL[@]}" --lcores "0@$C1,1@$C1" --main-lcore 0 --file-prefix "${TAG}b" \
		--vdev="net_memif0,role=client,socket=$sock,bsize=8192" -- \
		"${TPMD_APP[@]}" --forward-mode=txonly --txpkts="$FRAME" >"$TMP/tp-tx.txt" 2>&1 || true
	kill -INT "$srv" 2>/dev/null || true
	wait "$srv" || true
	rm -f "$sock"
	tpmd_pps "$TMP/tp-rx.txt"
}

bench_memif() {
	local tp try
	# Now and then the memif pair never connects: one more try.
	for try in 1 2; do
		tp=$(tpmd_memif)
		[ "$tp" != 0 ] && break
		{ echo "testpmd over memif moved nothing (try $try):"
		  tail -n 5 "$TMP/tp-rx.txt" "$TMP/tp-tx.txt" || true; } >&2
	done
	[ "$tp" != 0 ] || run_failed "$TMP/tp-rx.txt" "testpmd over memif (twice)"
	perf_memif "$tp" memif
	perf_memif "$tp" memif-0cs --zero-udp-csum
}

# uet-perf over memif: a server and a client, one lcore each, control over
# loopback. $1: testpmd's rate, $2: row label, then extra options.
perf_memif() {
	local tp=$1 label=$2 sock="$TMP/memif.sock"
	shift 2
	local app=(--size 1M --duration "$T" --mtu "$MTU" "${APP_COMMON[@]}" "$@")
	rm -f "$sock"
	timeout $((T + 30)) "$PERF" "${EAL[@]}" -l "$C0" --file-prefix "${TAG}c" \
		--vdev="net_memif0,role=server,socket=$sock,bsize=8192" -- \
		--server --endpoint port=0,ip=10.99.0.1 "${app[@]}" >"$TMP/up-srv-$label.txt" 2>&1 &
	local srv=$!
	wait_memif "$sock"
	timeout $((T + 30)) "$PERF" "${EAL[@]}" -l "$C1" --file-prefix "${TAG}d" \
		--vdev="net_memif0,role=client,socket=$sock,bsize=8192" -- \
		--client 127.0.0.1 --endpoint port=0,ip=10.99.0.2 "${app[@]}" \
		--json "$TMP/up-$label.json" >"$TMP/up-cli-$label.txt" 2>&1 ||
		run_failed "$TMP/up-cli-$label.txt" "the uet-perf client over memif ($label)"
	wait "$srv" || run_failed "$TMP/up-srv-$label.txt" "the uet-perf server over memif ($label)"
	row "$label" "$tp" "$(perf_pps "$TMP/up-$label.json")"
}

bench_ring() {
	timeout $((T + 3)) "$TESTPMD" "${EAL[@]}" -l "$C0,$C1" --file-prefix "${TAG}e" \
		--vdev=net_ring0 -- "${TPMD_APP[@]}" --forward-mode=flowgen \
		--txpkts="$FRAME" >"$TMP/tp-ring.txt" 2>&1 || true
	timeout $((T + 30)) "$PERF" "${EAL[@]}" -l "$C0" --file-prefix "${TAG}f" --vdev=net_ring0 -- \
		--endpoint port=0,ip=10.99.1.1,mac=02:00:00:00:01:01 \
		--endpoint port=0,ip=10.99.1.2,mac=02:00:00:00:01:02 \
		--size 1M --duration "$T" --mtu "$MTU" "${APP_COMMON[@]}" \
		--json "$TMP/up-ring.json" >"$TMP/up-ring.txt" 2>&1 ||
		run_failed "$TMP/up-ring.txt" "uet-perf over net_ring"
	local tp
	tp=$(tpmd_pps "$TMP/tp-ring.txt")
	[ "$tp" != 0 ] || run_failed "$TMP/tp-ring.txt" "testpmd over net_ring (no receive rate)"
	row ring "$tp" "$(perf_pps "$TMP/up-ring.json")"
}

case "$WHICH" in
memif | ring | all) ;;
*) echo "usage: $0 [memif|ring|all]"; exit 2 ;;
esac
bench_header "uet-perf vs dpdk-testpmd, ${MTU} B payload, ${FRAME} B frames, ${T} s, cores $C0 $C1, $ROUNDS rounds"
printf "%-5s %-9s %7s %13s %13s %14s %15s %7s\n" round device frame_B testpmd_Mpps \
	testpmd_Gbps uetperf_Mpps goodput_Gbps ratio
# The tools take turns within each round: this machine's speed drifts by
# 2x over minutes, and back-to-back runs see the same weather.
for ROUND in $(seq "$ROUNDS"); do
	[ "$WHICH" = ring ] || bench_memif
	[ "$WHICH" = memif ] || bench_ring
done
echo "# over the rounds: median rates, and the per-round ratio's median and range"
summary
