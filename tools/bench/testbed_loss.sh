#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Loss detection on the one-box testbed, a fabric that drops and does not
# trim: tools/fabric's leaf-spine (2 leaves x 4 spines x 4 hosts per leaf,
# kernel ECMP on the UDP source port) with its fabric links rate-limited
# (--rate-mbit, default 400) behind --queue-kb (default 256) KiB queues,
# no failure. Per load balancer (and loss-detection mode), the same
# uet-perf permutation as tools/demo.sh runs (16 endpoints in one process
# over af_packet, --size 256K --seed 8 --link-gbps 2 --base-rtt-ns 80000,
# per-packet ACKs) for SECONDS_RUN seconds, and one line of what the
# transport did:
#
#   data_pkts  first transmissions of data
#   retx       retransmissions, and their share of data_pkts
#   spurious   retransmissions the receiver got as duplicates (the loss was
#              a late packet), and their share of retx
#   rtos       losses declared by the retransmission timer
#   freezes    REPS freezes (path failures judged from losses)
#   ecn        CE marks the receivers saw (none where the kernel has no
#              qdisc that marks: this one loads neither red, pie nor codel)
#   Gb/s       goodput; fct_ms: mean flow completion time
#
#   sudo tools/bench/testbed_loss.sh [LB ...]     (default: ecmp ops bitmap reps)
#
# Environment: SECONDS_RUN (5), MODES ("adaptive"; e.g. "adaptive nack-rto"),
# RATE_MBIT (400), QUEUE_KB (256), ROUNDS (1), UET_PERF, EXTRA (more uet-perf
# options). Needs root; removes everything it made. A run that fails stops
# the script with its log.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

T=${SECONDS_RUN:-5}
MODES=${MODES:-adaptive}
RATE=${RATE_MBIT:-400}
QUEUE=${QUEUE_KB:-256}
ROUNDS=${ROUNDS:-1}
PERF=${UET_PERF:-build/apps/uet-perf/uet-perf}
read -r -a XTRA <<<"${EXTRA:-}"
LBS=("$@")
[ ${#LBS[@]} -gt 0 ] || LBS=(ecmp ops bitmap reps)
[ "$(id -u)" -eq 0 ] || { echo "testbed_loss.sh needs root (network namespaces)"; exit 2; }
[ -x "$PERF" ] || { echo "no $PERF: build first (tools/setup.sh)"; exit 2; }

TMP=$(mktemp -d)
NAME="tl$(($$ % 100000))"
STATE="$TMP/$NAME.json"
cleanup() {
	pkill -f -- "-J $TMP/" 2>/dev/null || true
	[ ! -e "$STATE" ] || tools/fabric down --state "$STATE" >/dev/null 2>&1 || true
	dpdk_runtime_rm "$NAME"
	if [ -n "${KEEP:-}" ]; then echo "reports in $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT INT TERM

HASH_SEED=()
[ ! -e /proc/sys/net/ipv4/fib_multipath_hash_seed ] || HASH_SEED=(--hash-seed 1)
tools/fabric up --name "$NAME" --state "$STATE" --leaves 2 --spines 4 --hosts-per-leaf 4 \
	--rate-mbit "$RATE" --queue-kb "$QUEUE" "${HASH_SEED[@]}" >"$TMP/up.txt" 2>&1 ||
	run_failed "$TMP/up.txt" "tools/fabric up"
HOSTS_NS=$(tools/fabric args netns --state "$STATE")
read -r -a VDEV <<<"$(tools/fabric args eal --state "$STATE")"
read -r -a EPS <<<"$(tools/fabric args app --state "$STATE")"
EAL=(--no-huge --no-shconf --no-pci -m 1024 -l 0 --file-prefix "$NAME" --log-level=error "${VDEV[@]}")
APP=("${EPS[@]}" --pattern permutation -D "$T" --size 256K --seed 8 --ack-every 0
	--base-rtt-ns 80000 --link-gbps 2 --max-rto-retx 40 --stall-timeout 10 -i 0)

bench_header "loss detection on tools/fabric: 2 x 4 x 4, fabric links at $RATE Mbit/s behind $QUEUE KiB queues, no trimming, $T s permutation, $ROUNDS rounds"
printf "%-7s %-9s %10s %8s %7s %8s %7s %6s %7s %7s %6s %8s\n" lb mode data_pkts retx "retx%" \
	spurious "spur%" rtos freezes ecn Gb/s fct_ms
for r in $(seq "$ROUNDS"); do
	for mode in $MODES; do
		for lb in "${LBS[@]}"; do
			tools/fabric converge --state "$STATE" >/dev/null
			json="$TMP/$lb-$mode-$r.json"
			ip netns exec "$HOSTS_NS" timeout $((T + 60)) "$PERF" "${EAL[@]}" -- "${APP[@]}" \
				--lb "$lb" --loss-detect "$mode" ${XTRA[@]+"${XTRA[@]}"} -J "$json" \
				>"$TMP/$lb-$mode-$r.txt" 2>&1 ||
				run_failed "$TMP/$lb-$mode-$r.txt" "uet-perf --lb $lb --loss-detect $mode"
			python3 - "$json" "$lb" "$mode" <<'EOF'
import json, sys
end = json.load(open(sys.argv[1]))["end"]
t, l = end["transport"], end["losses"]
data, retx, spur = t["tx_data_pkts"], l["retransmissions"], l["spurious_retx"]
fct = end["fct"]
print("%-7s %-9s %10d %8d %6.2f%% %8d %6.1f%% %6d %7d %7d %6.2f %8.1f" % (
    sys.argv[2], sys.argv[3], data, retx, 100.0 * retx / max(1, data), spur,
    100.0 * spur / max(1, retx), l["declared"]["timeout"], t["lb_freezes"], t["rx_ce_pkts"],
    end["goodput_bps"] / 1e9, (fct["mean_ns"] or 0) / 1e6))
EOF
		done
	done
done
