#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What the end of a multi-process run costs: a uet-perf server and client
# over net_memif (one lcore each, CPUs 0 and 1), paced, for SECONDS_RUN
# seconds; prints each process's peak RSS, how long it ran past the
# duration (the start, the end-of-run gather and the report), the
# gathered goodput, which must be the pace, and the transport's
# retransmissions (spurious ones, RTO expiries) with how many of them the
# gathered intervals hold, which must be all. A long run's timeline is
# millions of bins (BIN_US, default 100, makes it denser: 1 us bins give
# in 10 s what 100 us bins give in 1000 s).
#
#   tools/bench/gather.sh
#
# Environment: SECONDS_RUN (60), RATE_GBPS (2), BIN_US (100), UET_PERF.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

T=${SECONDS_RUN:-60}
RATE=${RATE_GBPS:-2}
BIN=${BIN_US:-100}
PERF=${UET_PERF:-build/apps/uet-perf/uet-perf}
bench_scratch uetgat
[ -x "$PERF" ] || { echo "build first (tools/setup.sh)"; exit 2; }

EAL=(--no-huge -m 1024 --no-pci --log-level=error)
APP=(--pattern pair --size 64K --rate-gbps "$RATE" -D "$T" -i 10 --bin-us "$BIN")
sock="$TMP/memif.sock"
/usr/bin/time -f "%M %e" -o "$TMP/srv.time" timeout $((T + 120)) "$PERF" "${EAL[@]}" -l 0 \
	--file-prefix "${TAG}s" --vdev="net_memif0,role=server,socket=$sock,bsize=8192" -- \
	--server --endpoint port=0,ip=10.97.0.1 "${APP[@]}" >"$TMP/srv.txt" 2>&1 &
srv=$!
wait_memif "$sock"
/usr/bin/time -f "%M %e" -o "$TMP/cli.time" timeout $((T + 120)) "$PERF" "${EAL[@]}" -l 1 \
	--file-prefix "${TAG}c" --vdev="net_memif0,role=client,socket=$sock,bsize=8192" -- \
	--client 127.0.0.1 --endpoint port=0,ip=10.97.0.2 "${APP[@]}" --json "$TMP/r.json" \
	>"$TMP/cli.txt" 2>&1 || run_failed "$TMP/cli.txt" "the memif client"
wait "$srv" || run_failed "$TMP/srv.txt" "the memif server"
bench_header "gather: a memif server and client, $T s at $RATE Gb/s, 64 KiB messages, ${BIN} us bins"
python3 - "$TMP" "$T" "$RATE" <<'EOF'
import json, sys
tmp, t, rate = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
end = json.load(open(tmp + "/r.json"))["end"]
for who in ("srv", "cli"):
    rss_kb, wall_s = open("%s/%s.time" % (tmp, who)).read().split()[-2:]
    print("%-6s peak RSS %7.1f MiB, ran %6.2f s past the duration" % (
        {"srv": "server", "cli": "client"}[who], int(rss_kb) / 1024, float(wall_s) - t))
tl, l = end["timeline"], end["losses"]
print("gathered goodput %.3f Gb/s (paced at %.3f), timeline %d bins of %d ns" % (
    end["goodput_bps"] / 1e9, rate, len(tl["rx_bytes"]), tl["bin_ns"]))
print("transport        %d retransmissions (%d spurious), %d RTO expiries; %d in the intervals" % (
    l["retransmissions"], l["spurious_retx"], l["declared"]["timeout"],
    sum(i["retransmits"] for i in json.load(open(tmp + "/r.json"))["intervals"])))
EOF
