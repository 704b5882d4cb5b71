#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# uet-sim's wall time and peak memory on the scenario of the reference
# comparison (issue 15): a 2 MiB permutation on a 3-tier fat tree, OPS
# with an ACK per 16 KiB and REPS with an ACK per packet, at 1,024 hosts
# (k = 16) and 8,192 hosts (k = 32). Prints one line per run: hosts, lb,
# ACK spacing, wall seconds, peak RSS (MiB, from /usr/bin/time), the
# simulated max FCT, the retransmissions and the spurious ones, and
# whether every message arrived.
#
#   tools/bench/sim_scale.sh [HOSTS...]      (default: 1024 8192)
#
# Environment: UET_SIM (default build/apps/uet-sim/uet-sim), SEEDS (default
# "1"), SIZE (default 2M). One run at a time: each uses one core, and two
# at once would share the memory bandwidth they measure.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

SIM=${UET_SIM:-build/apps/uet-sim/uet-sim}
SEEDS=${SEEDS:-1}
SIZE=${SIZE:-2M}
HOSTS=("$@")
[ ${#HOSTS[@]} -gt 0 ] || HOSTS=(1024 8192)
[ -x "$SIM" ] || { echo "no $SIM: build first (tools/setup.sh)"; exit 2; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time (Debian: apt-get install time)"; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

bench_header "uet-sim wall time and peak memory: 2 MiB permutation, 3-tier fat tree"
printf "%-6s %-5s %-9s %-5s %8s %9s %12s %8s %9s %s\n" hosts lb ack_every seed wall_s rss_mib max_fct_us retx spur_retx complete
for n in "${HOSTS[@]}"; do
	for cfg in "ops 16384" "reps 0"; do
		read -r lb ack <<<"$cfg"
		for seed in $SEEDS; do
			/usr/bin/time -f "%e %M" -o "$TMP/time" "$SIM" --nodes "$n" --tiers 3 \
				--pattern permutation --size "$SIZE" -n 1 --lb "$lb" --ack-every "$ack" \
				--seed "$seed" --json "$TMP/r.json" >"$TMP/out.txt" 2>&1 ||
				run_failed "$TMP/out.txt" "uet-sim at $n hosts ($lb, seed $seed)"
			read -r wall rss_kib <"$TMP/time"
			python3 - "$TMP/r.json" "$n" "$lb" "$ack" "$seed" "$wall" "$rss_kib" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["end"]
fct = e["fct"]["max_ns"] / 1000.0
c = e["flow_counts"]
ok = c["failed"] == 0 and c["pending"] == 0 and c["ok"] == int(sys.argv[2])
l = e["losses"]
print("%-6s %-5s %-9s %-5s %8.1f %9.0f %12.1f %8d %9d %s" % (sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5],
      float(sys.argv[6]), int(sys.argv[7]) / 1024.0, fct, l["retransmissions"], l["spurious_retx"],
      "yes" if ok else "NO"))
PY
		done
	done
done
