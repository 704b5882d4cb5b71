#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Where an lcore's time per data packet goes: uet-perf over a net_ring port
# looped to itself (a sender and a receiver endpoint on one lcore, REPS and
# NSCC, 4 KiB payloads, as tools/bench/glue.sh runs it), sampled by
# `perf record` (cpu-clock, the lcore's CPU only, the steady middle of the
# run), each sample put in a category by the source file of its function:
#
#   checksum     lib/base/csum.c and the frame code's checksum helpers
#   core         lib/core, lib/base (the endpoint: PDCs, ACKs, SACK, loss)
#   timers       the timer wheel and the endpoint's timer functions
#   lb+cc        lib/lb, lib/cc
#   framing      lib/net/frame.c (Ethernet/IPv4/UDP headers)
#   glue         lib/dpdk, apps/uet-perf (poll loop, dispatch, TX queues)
#   mbufs        DPDK's libraries and inline functions (mempool, mbuf,
#                the ring PMD) and libc's memset/memcpy
#   measurement  lib/report, lib/driver, telemetry
#   kernel       the guest kernel (timer interrupts, the hypervisor)
#   other        the rest
#
# Prints the share of the samples and ns per data packet of each (the
# run's rate, 1e9 / packets per second, split by the shares), then the
# heaviest functions. ROUNDS runs; figures are the median over them.
#
#   tools/bench/budget.sh [uet-perf options]   (e.g. --zero-udp-csum)
#
# Environment: ROUNDS (3), SECONDS_RUN (6; the middle 4 s are sampled),
# CORE (1), UET_PERF. Needs perf (Debian: linux-perf) and root or
# kernel.perf_event_paranoid <= 0 (a CPU-wide profile).
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

ROUNDS=${ROUNDS:-3}
T=${SECONDS_RUN:-6}
CORE=${CORE:-1}
PERF=${UET_PERF:-build/apps/uet-perf/uet-perf}
bench_scratch uetbud
[ -x "$PERF" ] || { echo "no $PERF: build first (tools/setup.sh)"; exit 2; }
command -v perf >/dev/null || { echo "no perf (Debian: apt-get install linux-perf)"; exit 2; }
[ "$T" -ge 4 ] || { echo "SECONDS_RUN must be 4 or more"; exit 2; }

# Function -> source file, from the binary's debug information.
nm -l --defined-only "$PERF" 2>/dev/null | awk 'NF >= 4 && $2 ~ /^[tTwW]$/ {
	sub(/:[0-9]+$/, "", $4); print $3, $4 }' >"$TMP/srcmap"

bench_header "per-packet budget: uet-perf over net_ring, one lcore (CPU $CORE), REPS + NSCC, 4 KiB payloads, $ROUNDS rounds${*:+, options: $*}"
for r in $(seq 1 "$ROUNDS"); do
	perf_loop "$TMP/p$r.json" --lb reps --cc nscc "$@" &
	run=$!
	sleep 1
	perf record -q -e cpu-clock -F 10000 -C "$CORE" -o "$TMP/p$r.data" -- sleep $((T - 2)) \
		>"$TMP/rec.txt" 2>&1 || run_failed "$TMP/rec.txt" "perf record"
	wait "$run"
	perf report -i "$TMP/p$r.data" --stdio --no-children --sort dso,sym -q \
		--percent-limit 0 2>/dev/null >"$TMP/r$r.txt"
done
python3 - "$TMP" "$ROUNDS" <<'EOF'
import json, re, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
src = {}
for line in open(tmp + "/srcmap"):
    f = line.split()
    if len(f) == 2:
        src[f[0]] = f[1]
TIMER = re.compile(r"timer|deadline|timeout|rearm|(^|_)rto|twheel")
def category(dso, sym):
    path = src.get(sym, "")
    if "csum" in sym or path.endswith("lib/base/csum.c"):
        return "checksum"
    if dso.startswith("[kernel"):
        return "kernel"
    if dso.startswith("librte_") or "/usr/include/dpdk" in path:
        return "mbufs"
    if dso.startswith("libc") and re.match(r"__mem(set|cpy|move)", sym):
        return "mbufs"
    if TIMER.search(sym) and ("/lib/core/" in path or "/lib/base/" in path):
        return "timers"
    for part, cat in (("/lib/lb/", "lb+cc"), ("/lib/cc/", "lb+cc"), ("/lib/core/", "core"),
                      ("/lib/base/", "core"), ("/lib/net/frame.c", "framing"),
                      ("/lib/dpdk/telemetry.c", "measurement"), ("/lib/dpdk/", "glue"),
                      ("/apps/uet-perf/", "glue"), ("/lib/report/", "measurement"),
                      ("/lib/driver/", "measurement")):
        if part in path:
            return cat
    return "other"
order = ["checksum", "core", "timers", "lb+cc", "framing", "glue", "mbufs", "measurement",
         "kernel", "other"]
shares = {c: [] for c in order}
nspp = {c: [] for c in order}
pkt_ns, syms = [], {}
for r in range(1, rounds + 1):
    end = json.load(open("%s/p%d.json" % (tmp, r)))["end"]
    pps = end["goodput_bps"] / 8 / 4096
    ns = 1e9 / pps
    pkt_ns.append(ns)
    got = {c: 0.0 for c in order}
    for line in open("%s/r%d.txt" % (tmp, r)):
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[.\]\s+(\S+)", line)
        if m is None:
            continue
        pct, dso, sym = float(m.group(1)), m.group(2), m.group(3)
        c = category(dso, sym)
        got[c] += pct
        syms.setdefault((c, sym), []).append(pct)
    total = sum(got.values()) or 1.0
    for c in order:
        shares[c].append(100.0 * got[c] / total)
        nspp[c].append(ns * got[c] / total)
print("%-12s %8s %10s %16s" % ("category", "share", "ns/packet", "ns range"))
for c in order:
    print("%-12s %7.1f%% %10.1f %7.1f - %6.1f" % (c, statistics.median(shares[c]),
          statistics.median(nspp[c]), min(nspp[c]), max(nspp[c])))
print("%-12s %8s %10.1f %7.1f - %6.1f   (%.2f M data packets/s)" % (
    "total", "", statistics.median(pkt_ns), min(pkt_ns), max(pkt_ns),
    1e3 / statistics.median(pkt_ns)))
print("# heaviest functions (median share over the rounds)")
top = sorted(syms.items(), key=lambda kv: -statistics.median(kv[1] + [0] * (rounds - len(kv[1]))))
for (c, sym), v in top[:15]:
    print("  %5.1f%%  %-12s %s" % (statistics.median(v + [0] * (rounds - len(v))), c, sym))
EOF
for r in $(seq 1 "$ROUNDS"); do json_retx "$TMP/p$r.json"; done | awk '{ r += $1; s += $2; t += $3 } END {
	printf "transport: %d retransmissions (%d spurious), %d RTO expiries over the %d runs\n", r, s, t, NR }'
