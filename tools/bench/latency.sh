#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# uet-perf's ping-pong latency (--pattern pingpong, perftest's ib_send_lat)
# over a size sweep, on the virtual devices this machine has.
#
#   tools/bench/latency.sh [memif|ring|all]
#
# memif: two processes (--server and --client) joined by net_memif, one
#        busy-polling core each: a host-to-host path whose wire is shared
#        memory (one copy each way).
# ring:  one process, one lcore, both endpoints on a net_ring port that
#        loops to itself: the transport and the DPDK glue with no wire and
#        no second core.
# Printed per device and round: uet-perf's latency table (half round trips,
# usec) and the transport's retransmissions over the sweep; then, per
# size, the median and range over the rounds of t_typical (the median
# one-way latency) and the median of the 99th percentile. A run that
# fails stops the script with its log.
#
# Environment: MAX_BYTES (largest size, default 64K), ITERS (round trips per
# size, default 10000), ROUNDS (default 3), UET_PERF, LCORES ("0 1").
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

WHICH=${1:-all}
MAX=${MAX_BYTES:-64K}
ITERS=${ITERS:-10000}
ROUNDS=${ROUNDS:-3}
PERF=${UET_PERF:-build/apps/uet-perf/uet-perf}
read -r C0 C1 <<<"${LCORES:-0 1}"
bench_scratch uetl

[ -x "$PERF" ] || { echo "no $PERF: build first (tools/setup.sh)"; exit 2; }
EAL=(--no-huge -m 1024 --no-pci --log-level=error)
APP=(--pattern pingpong -a -e "$MAX" -n "$ITERS" -i 0)

# The rows of a latency table: "device size t_typical p99" into $TMP/rows.
keep_rows() { # DEVICE OUTPUT
	awk -v d="$1" '$1 ~ /^[0-9]+$/ && NF == 9 { print d, $1, $5, $8 }' "$2" >>"$TMP/rows"
}

# What the transport did over a sweep's reports (a JSON array).
sweep_retx() { # JSON
	python3 - "$1" <<'PY'
import json, sys
t = [r["end"]["losses"] for r in json.load(open(sys.argv[1]))]
print("# retransmissions %d (spurious %d), RTO expiries %d" % (
    sum(l["retransmissions"] for l in t), sum(l["spurious_retx"] for l in t),
    sum(l["declared"]["timeout"] for l in t)))
PY
}

bench_memif() {
	local sock="$TMP/memif.sock"
	rm -f "$sock"
	timeout 300 "$PERF" "${EAL[@]}" -l "$C0" --file-prefix "${TAG}a" \
		--vdev="net_memif0,role=server,socket=$sock,bsize=8192" -- \
		--server --endpoint port=0,ip=10.99.0.1 "${APP[@]}" >"$TMP/srv.txt" 2>&1 &
	local srv=$!
	wait_memif "$sock"
	timeout 300 "$PERF" "${EAL[@]}" -l "$C1" --file-prefix "${TAG}b" \
		--vdev="net_memif0,role=client,socket=$sock,bsize=8192" -- \
		--client 127.0.0.1 --endpoint port=0,ip=10.99.0.2 "${APP[@]}" \
		--json "$TMP/cli.json" >"$TMP/cli.txt" 2>&1 || run_failed "$TMP/cli.txt" "the memif client"
	wait "$srv" || run_failed "$TMP/srv.txt" "the memif server"
	echo "# round $ROUND, memif (client's report)"
	grep -v "^ *$" "$TMP/cli.txt" | sed -n '/#bytes/,/^---/p'
	sweep_retx "$TMP/cli.json"
	keep_rows memif "$TMP/cli.txt"
}

bench_ring() {
	timeout 300 "$PERF" "${EAL[@]}" -l "$C0" --file-prefix "${TAG}c" --vdev=net_ring0 -- \
		--endpoint port=0,ip=10.99.1.1,mac=02:00:00:00:01:01 \
		--endpoint port=0,ip=10.99.1.2,mac=02:00:00:00:01:02 "${APP[@]}" \
		--json "$TMP/ring.json" >"$TMP/ring.txt" 2>&1 || run_failed "$TMP/ring.txt" "uet-perf over net_ring"
	echo "# round $ROUND, ring"
	sed -n '/#bytes/,/^---/p' "$TMP/ring.txt"
	sweep_retx "$TMP/ring.json"
	keep_rows ring "$TMP/ring.txt"
}

case "$WHICH" in
memif | ring | all) ;;
*) echo "usage: $0 [memif|ring|all]"; exit 2 ;;
esac
bench_header "uet-perf ping-pong, 2 B to $MAX, $ITERS round trips per size, cores $C0 $C1, $ROUNDS rounds"
: >"$TMP/rows"
for ROUND in $(seq "$ROUNDS"); do
	[ "$WHICH" = ring ] || bench_memif
	[ "$WHICH" = memif ] || bench_ring
done
echo "# over the rounds, one-way usec (half the round trip): the median and the range of"
echo "# each round's t_typical (its median), and the median of each round's 99th percentile"
python3 - "$TMP/rows" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    dev, size, typ, p99 = line.split()
    rows.setdefault((dev, int(size)), ([], []))
    rows[(dev, int(size))][0].append(float(typ))
    rows[(dev, int(size))][1].append(float(p99))
print("%-6s %8s %10s %7s %7s %10s %7s" % ("device", "bytes", "t_typical", "min", "max",
                                          "p99", "rounds"))
for (dev, size), (typ, p99) in sorted(rows.items()):
    print("%-6s %8d %10.3f %7.3f %7.3f %10.3f %7d" % (dev, size, statistics.median(typ),
          min(typ), max(typ), statistics.median(p99), len(typ)))
PY
