#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# uet-perf with its default options on a loaded box: another process keeps
# a core busy, so the pollers are descheduled for scheduler slices (ACKs a
# few milliseconds late, now and then). Prints, per device, the data
# packets sent, the retransmissions (and their share), the RTOs and the
# spurious ones per second per PDC, and how much of it was spurious.
#
#   tools/bench/loaded_box.sh [ring|memif|incast|all]
#
# ring:  one process, both endpoints on one lcore on core HOG_CORE, which
#        the busy process shares.
# incast: the same with five endpoints, four streaming into the fifth
#        (--pattern incast): every sender's first window lands at once in
#        the ring the receiver's ACKs share.
# memif: a server and a client, one lcore each on cores 0 and 1; the busy
#        process shares the server's.
# Targets: retransmissions at most 1% of the data packets, spurious RTOs
# at most 1 per second per PDC. Each round prints a row per device; the
# summary gives each figure's median and range over the rounds. A run
# that fails stops the script with its log.
#
# Environment: SECONDS_RUN (default 10), ROUNDS (default 3), HOG_CORE
# (default 1), UET_PERF (default build/apps/uet-perf/uet-perf), KEEP=1 keeps
# the reports in the printed directory.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

WHICH=${1:-all}
T=${SECONDS_RUN:-10}
ROUNDS=${ROUNDS:-3}
HOG_CORE=${HOG_CORE:-1}
PERF=${UET_PERF:-build/apps/uet-perf/uet-perf}
TMP=$(mktemp -d)
TAG="uetl$$"
HOG=""
cleanup() {
	[ -z "$HOG" ] || kill "$HOG" 2>/dev/null || true
	pkill -f "file-prefix ${TAG}" 2>/dev/null || true
	dpdk_runtime_rm "${TAG}"
	if [ -n "${KEEP:-}" ]; then echo "reports in $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT INT TERM

[ -x "$PERF" ] || { echo "no $PERF: build first (tools/setup.sh)"; exit 2; }
case "$WHICH" in ring | memif | incast | all) ;; *) echo "usage: $0 [ring|memif|incast|all]"; exit 2 ;; esac

EAL=(--no-huge -m 1024 --no-pci --log-level=error)
APP=(--size 1M --duration "$T" -i 0)

# The load: a shell spinning on HOG_CORE for the whole run.
taskset -c "$HOG_CORE" sh -c 'while :; do :; done' &
HOG=$!

row() { # device, JSON report
	python3 - "$@" "$T" <<'EOF'
import json, sys
dev, path, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
end = json.load(open(path))["end"]
t = end["transport"]
pdcs = max(1, len(end.get("flows") or []))
data, retx = t["tx_data_pkts"], t["tx_retx_pkts"]
with open(path.rsplit("/", 1)[0] + "/summary", "a") as f:
    f.write("%s:retx%% %f\n%s:spur/s/PDC %f\n%s:Gb/s %f\n" % (dev, 100.0 * retx / max(1, data), dev,
            t["spurious_rto"] / secs / pdcs, dev, end["goodput_bps"] / 1e9))
print("%-6s %12d %8d %7.3f%% %6d %8d %10.2f %10d %8.1f" % (
    dev, data, retx, 100.0 * retx / max(1, data), t["rto_events"], t["spurious_rto"],
    t["spurious_rto"] / secs / pdcs, t["spurious_retx"], end["goodput_bps"] / 1e9))
EOF
}

ring() {
	timeout $((T + 30)) "$PERF" "${EAL[@]}" -l "$HOG_CORE" --file-prefix "${TAG}r" \
		--vdev=net_ring0 -- \
		--endpoint port=0,ip=10.98.1.1,mac=02:00:00:00:02:01 \
		--endpoint port=0,ip=10.98.1.2,mac=02:00:00:00:02:02 \
		"${APP[@]}" --json "$TMP/ring-$1.json" >"$TMP/ring-$1.txt" 2>&1 ||
		run_failed "$TMP/ring-$1.txt" "uet-perf over net_ring (round $1)"
	row ring "$TMP/ring-$1.json"
}

incast() {
	local eps=() i
	for i in 1 2 3 4 5; do
		eps+=(--endpoint "port=0,ip=10.98.2.$i,mac=02:00:00:00:03:0$i")
	done
	timeout $((T + 30)) "$PERF" "${EAL[@]}" -l "$HOG_CORE" --file-prefix "${TAG}i" \
		--vdev=net_ring0 -- "${eps[@]}" --pattern incast "${APP[@]}" \
		--json "$TMP/incast-$1.json" >"$TMP/incast-$1.txt" 2>&1 ||
		run_failed "$TMP/incast-$1.txt" "the incast over net_ring (round $1)"
	row incast "$TMP/incast-$1.json"
}

memif() {
	local sock="$TMP/memif.sock" other=$((1 - HOG_CORE))
	rm -f "$sock"
	timeout $((T + 30)) "$PERF" "${EAL[@]}" -l "$HOG_CORE" --file-prefix "${TAG}s" \
		--vdev="net_memif0,role=server,socket=$sock,bsize=8192" -- \
		--server --endpoint port=0,ip=10.98.0.1 "${APP[@]}" >"$TMP/memif-srv-$1.txt" 2>&1 &
	local srv=$!
	wait_memif "$sock"
	timeout $((T + 30)) "$PERF" "${EAL[@]}" -l "$other" --file-prefix "${TAG}c" \
		--vdev="net_memif0,role=client,socket=$sock,bsize=8192" -- \
		--client 127.0.0.1 --endpoint port=0,ip=10.98.0.2 "${APP[@]}" \
		--json "$TMP/memif-$1.json" >"$TMP/memif-cli-$1.txt" 2>&1 ||
		run_failed "$TMP/memif-cli-$1.txt" "the memif client (round $1)"
	wait "$srv" || run_failed "$TMP/memif-srv-$1.txt" "the memif server (round $1)"
	row memif "$TMP/memif-$1.json"
}

bench_header "uet-perf, default options, ${T} s runs, a busy process on core $HOG_CORE, $ROUNDS rounds"
printf "%-6s %12s %8s %8s %6s %8s %10s %10s %8s\n" device data_pkts retx "retx%" rtos \
	spur_rto spur/s/PDC spur_retx Gb/s
for r in $(seq "$ROUNDS"); do
	case "$WHICH" in ring | all) ring "$r" ;; esac
	case "$WHICH" in memif | all) memif "$r" ;; esac
	case "$WHICH" in incast | all) incast "$r" ;; esac
done
echo "# per device over the rounds: retransmitted share of data packets, spurious RTOs per"
echo "# second per PDC, goodput"
rounds_summary "%.3f" <"$TMP/summary"
