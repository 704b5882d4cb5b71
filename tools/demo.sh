#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main-job demo on the one-box fabric (doc/testbed.md):
#
#   sudo tools/demo.sh            # after tools/setup.sh; about 1 minute
#
# Builds a leaf-spine fabric of Linux routers in network namespaces
# (tools/fabric: 2 leaves x 4 spines x 4 hosts per leaf by default), then
# runs the same uet-perf permutation (same seed) once per load balancer
# (ecmp, ops, bitmap, reps) while one leaf-spine link fails: down at 2 s of
# a 7 s run, back up at 5 s. The failure is a blackhole: only the spine's
# end goes down (--ends spine), so the leaf keeps hashing packets onto the
# dead next hop, and the spine has no route back to the leaf, until the
# modelled routing protocol converges 1 s later (--converge-ms 1000); the
# link's return is also picked up 1 s after it comes back. It prints a
# table (goodput before / during / after, retransmissions, timeouts, packets
# lost into the dead link) and writes into the output directory:
#   summary.txt, summary.json   the table and its numbers
#   goodput.png, goodput.csv    goodput over time per load balancer
#   runs.png                    tools/plot.py over every run's report
#   LB.json, LB.txt             each run's uet-perf JSON report and output
#   LB.counters-{before,after}.json, LB.snmp-{before,after}.txt, LB.anchor,
#   LB.schedule.jsonl, fabric/*.events.jsonl   the raw material of the table
# Everything it creates (namespaces, veths, processes) is removed at the
# end, on error and on Ctrl-C. Needs root. --help lists the options.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FABRIC=$ROOT/tools/fabric
ANALYZE=$ROOT/tools/demo/analyze.py
PERF=${UET_PERF:-$ROOT/build/apps/uet-perf/uet-perf}

OUT=./demo-out
LEAVES=2
SPINES=4
HPL=4
DURATION=7
DOWN_AT=2
UP_AT=5
CONVERGE_MS=1000
ENDS=spine
LINK=leaf0:spine1
LBS=ecmp,ops,bitmap,reps
SEED=8
SIZE=256K
BASE_RTT_NS=80000
LINK_GBPS=2
RTO_MIN_NS=0
MAX_RTO_RETX=40
ACK_EVERY=0
NAME=""
PLOT=1
EXTRA=()

usage() {
	cat <<EOF
usage: tools/demo.sh [options] [-- extra uet-perf options]

Runs a uet-perf permutation over the one-box leaf-spine fabric once per
load balancer while one leaf-spine link fails, and compares them.

  -o, --out DIR           output directory (default $OUT)
  --leaves N              leaves (default $LEAVES)
  --spines N              spines (default $SPINES)
  --hosts-per-leaf N      hosts per leaf (default $HPL)
  -D, --duration SEC      length of each run (default $DURATION)
  --down-at SEC           the link goes down at SEC of the run (default $DOWN_AT)
  --up-at SEC             and comes back at SEC (default $UP_AT)
  --converge-ms MS        routing reacts MS after each link change; 0 = never,
                          the blackhole lasts until the link is back (default $CONVERGE_MS)
  --ends spine|both|leaf  which end of the link goes down (tools/fabric link
                          --ends; default $ENDS: the leaf does not notice)
  --link LEAF:SPINE       the link that fails (default $LINK)
  --lb LIST               load balancers, comma-separated (default $LBS;
                          also flowlet, plb, strack, mprdma, mptcp)
  --seed N                uet-perf --seed: the permutation and every random
                          choice, the same for every load balancer (default $SEED)
  -s, --size BYTES        message size of the flows' streams (default $SIZE)
  --base-rtt-ns NS        uet-perf --base-rtt-ns (default $BASE_RTT_NS: about the
                          unloaded RTT here; NSCC lowers its base RTT, and its
                          window cap, to the lowest RTT it measures anyway)
  --link-gbps G           uet-perf --link-gbps (default $LINK_GBPS: with the base RTT
                          a window of at most 1.5 x 2 Gb/s x 80 us = 7 packets,
                          about what this box carries per flow; doc/testbed.md)
  --rto-min-ns NS         uet-perf --rto-min-ns (default $RTO_MIN_NS: uet-perf's own,
                          4 base RTTs; a stall that fires a spurious RTO
                          is undone and raises the floor it learns)
  --max-rto-retx N        uet-perf --max-rto-retx (default $MAX_RTO_RETX: a PDC gives up
                          after N recovery episodes without progress; the
                          transport's 12, ~110 ms here, is shorter than the
                          blackhole, and OPS cannot steer around it)
  --ack-every BYTES       uet-perf --ack-every (default $ACK_EVERY: per-packet ACKs)
  --name PREFIX           fabric name prefix (default dm<pid>)
  --no-plot               skip the PNG
  -h, --help              this help

Environment: UET_PERF (default build/apps/uet-perf/uet-perf).
EOF
}

die() {
	echo "demo: $*" >&2
	exit 2
}

need_arg() {
	[ $# -ge 2 ] || die "option $1 needs a value (--help)"
}

while [ $# -gt 0 ]; do
	case $1 in
	-o | --out) need_arg "$@"; OUT=$2; shift ;;
	--leaves) need_arg "$@"; LEAVES=$2; shift ;;
	--spines) need_arg "$@"; SPINES=$2; shift ;;
	--hosts-per-leaf) need_arg "$@"; HPL=$2; shift ;;
	-D | --duration) need_arg "$@"; DURATION=$2; shift ;;
	--down-at) need_arg "$@"; DOWN_AT=$2; shift ;;
	--up-at) need_arg "$@"; UP_AT=$2; shift ;;
	--converge-ms) need_arg "$@"; CONVERGE_MS=$2; shift ;;
	--ends) need_arg "$@"; ENDS=$2; shift ;;
	--link) need_arg "$@"; LINK=$2; shift ;;
	--lb) need_arg "$@"; LBS=$2; shift ;;
	--seed) need_arg "$@"; SEED=$2; shift ;;
	-s | --size) need_arg "$@"; SIZE=$2; shift ;;
	--base-rtt-ns) need_arg "$@"; BASE_RTT_NS=$2; shift ;;
	--link-gbps) need_arg "$@"; LINK_GBPS=$2; shift ;;
	--ack-every) need_arg "$@"; ACK_EVERY=$2; shift ;;
	--rto-min-ns) need_arg "$@"; RTO_MIN_NS=$2; shift ;;
	--max-rto-retx) need_arg "$@"; MAX_RTO_RETX=$2; shift ;;
	--name) need_arg "$@"; NAME=$2; shift ;;
	--no-plot) PLOT=0 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; EXTRA=("$@"); break ;;
	*) die "unknown option '$1' (--help)" ;;
	esac
	shift
done

# ---------------------------------------------------------------- checks

isnum() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]; }
isint() { [[ $1 =~ ^[0-9]+$ ]]; }
for v in LEAVES SPINES HPL SEED BASE_RTT_NS ACK_EVERY RTO_MIN_NS MAX_RTO_RETX; do
	isint "${!v}" || die "--$(echo "$v" | tr 'A-Z_' 'a-z-'): '${!v}' is not a whole number"
done
isint "$CONVERGE_MS" || die "--converge-ms: '$CONVERGE_MS' is not a whole number of ms"
for v in DURATION DOWN_AT UP_AT LINK_GBPS; do
	isnum "${!v}" || die "--$(echo "$v" | tr 'A-Z_' 'a-z-'): '${!v}' is not a number"
done
[ "$LEAVES" -ge 2 ] || die "--leaves: at least 2 (the failure is on a path between leaves)"
python3 -c "import sys; d,a,u=map(float,sys.argv[1:]); sys.exit(0 if 0<a<u<d else 1)" \
	"$DURATION" "$DOWN_AT" "$UP_AT" ||
	die "need 0 < --down-at ($DOWN_AT) < --up-at ($UP_AT) < --duration ($DURATION)"
case $ENDS in spine | both | leaf) ;; *) die "--ends: spine, both or leaf, not '$ENDS'" ;; esac
[[ $LINK =~ ^(leaf[0-9]+):(spine[0-9]+)$ ]] || die "--link: LEAF:SPINE, e.g. leaf0:spine1, not '$LINK'"
FAIL_LEAF=${BASH_REMATCH[1]}
FAIL_SPINE=${BASH_REMATCH[2]}
[ "${FAIL_LEAF#leaf}" -lt "$LEAVES" ] || die "--link: $FAIL_LEAF: the fabric has leaf0..leaf$((LEAVES - 1))"
[ "${FAIL_SPINE#spine}" -lt "$SPINES" ] || die "--link: $FAIL_SPINE: the fabric has spine0..spine$((SPINES - 1))"
IFS=, read -r -a LB_LIST <<<"$LBS"
[ ${#LB_LIST[@]} -ge 1 ] || die "--lb: no load balancer"
for lb in "${LB_LIST[@]}"; do
	case $lb in ecmp | ops | bitmap | reps | flowlet | plb | strack | mprdma | mptcp) ;;
	*) die "--lb: unknown load balancer '$lb' (ecmp, ops, bitmap, reps, flowlet, plb, strack, mprdma, mptcp)" ;;
	esac
done

if [ "$(id -u)" -ne 0 ]; then
	die "needs root (network namespaces, veths, af_packet): sudo $0 $*"
fi
for t in ip python3 taskset timeout; do
	command -v "$t" >/dev/null || die "'$t' is missing: run tools/setup.sh"
done
if [ ! -x "$PERF" ]; then
	echo "demo: $PERF is missing; building it (ninja -C build)"
	[ -d "$ROOT/build" ] || die "no build directory: run tools/setup.sh first"
	ninja -C "$ROOT/build" apps/uet-perf/uet-perf >/dev/null || die "the build failed"
fi
if [ "$PLOT" = 1 ] && ! command -v gnuplot >/dev/null; then
	echo "demo: gnuplot is missing (tools/setup.sh installs gnuplot-nox): no PNG" >&2
	PLOT=0
fi

[ -n "$NAME" ] || NAME="dm$(($$ % 100000))"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
mkdir -p "$OUT/fabric"
rm -f "$OUT"/fabric/*.events.jsonl "$OUT/fabric/up.txt"
STATE=$OUT/fabric/$NAME.json
for lb in "${LB_LIST[@]}"; do
	rm -f "$OUT/$lb".{json,txt,anchor,schedule.jsonl} "$OUT/$lb".counters-{before,after}.json \
		"$OUT/$lb".snmp-{before,after}.txt
done
rm -f "$OUT"/summary.{txt,json} "$OUT"/goodput.{png,csv}

# uet-perf busy-polls lcore 0; the helpers (fabric changes, counters) run on
# the other cores, so they neither slow the data path nor wait for it.
NCPU=$(nproc)
if [ "$NCPU" -ge 2 ]; then
	PIN=(taskset -c "1-$((NCPU - 1))")
else
	PIN=()
fi

# ---------------------------------------------------------------- clean-up

PERF_PID=""
SCHED_PID=""

stop_pid() { # PID: TERM, wait up to 5 s, then KILL
	local pid=$1
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM HUP
	stop_pid "$SCHED_PID"
	stop_pid "$PERF_PID"
	if [ -e "$STATE" ]; then # up wrote it before creating anything
		"$FABRIC" down --state "$STATE" >/dev/null 2>&1 ||
			echo "demo: 'tools/fabric down --state $STATE' failed: check 'ip netns'" >&2
	fi
	rm -f "$STATE" "$STATE.lock"
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "demo: interrupted" >&2; exit 130' INT
trap 'exit 143' TERM HUP

# ---------------------------------------------------------------- fabric

HASH_SEED=()
if [ -e /proc/sys/net/ipv4/fib_multipath_hash_seed ]; then
	HASH_SEED=(--hash-seed 1) # the same EV -> spine mapping on every boot
fi
echo "demo: fabric $NAME: $LEAVES leaves x $SPINES spines x $HPL hosts per leaf," \
	"routing converges ${CONVERGE_MS} ms after a change"
"$FABRIC" up --name "$NAME" --state "$STATE" --leaves "$LEAVES" --spines "$SPINES" \
	--hosts-per-leaf "$HPL" --converge-ms "$CONVERGE_MS" "${HASH_SEED[@]}" \
	>"$OUT/fabric/up.txt" 2>&1 || { cat "$OUT/fabric/up.txt" >&2; die "tools/fabric up failed"; }
HOSTS_NS=$("$FABRIC" args netns --state "$STATE")
read -r -a EAL_VDEV <<<"$("$FABRIC" args eal --state "$STATE")"
read -r -a APP_EP <<<"$("$FABRIC" args app --state "$STATE")"

snmp() { # FILE: the ICMP and IpExt lines of /proc/net/snmp and netstat of
	# every router namespace (routers send "unreachable" for some packets
	# they drop, which the link counters see as traffic)
	local ns
	for ns in $(ip netns list | awk -v p="^$NAME-(leaf|spine)[0-9]+\$" '$1 ~ p {print $1}'); do
		echo "== $ns"
		ip netns exec "$ns" grep -h -E '^(Icmp|IpExt):' /proc/net/snmp /proc/net/netstat
	done >"$1"
}

# ---------------------------------------------------------------- runs

EAL=(--no-huge --no-shconf --no-pci -m 1024 -l 0 --log-level=error "${EAL_VDEV[@]}")
APP=("${APP_EP[@]}" --pattern permutation -D "$DURATION" --size "$SIZE" --seed "$SEED"
	--ack-every "$ACK_EVERY" --base-rtt-ns "$BASE_RTT_NS" --link-gbps "$LINK_GBPS"
	--max-rto-retx "$MAX_RTO_RETX" --bin-us 1000 -i 1 --stall-timeout 5)
[ "$RTO_MIN_NS" = 0 ] || APP+=(--rto-min-ns "$RTO_MIN_NS")

run_one() {
	local lb=$1 anchor=$OUT/$1.anchor rc t0
	# Routes for the links as they are (all up): nothing left over from the
	# previous run. The counters are read before uet-perf starts and after it
	# ends, so reading them (several `ip netns exec`) never disturbs a run.
	"$FABRIC" converge --state "$STATE" >/dev/null
	"$FABRIC" counters --state "$STATE" -o "$OUT/$lb.counters-before.json"
	snmp "$OUT/$lb.snmp-before.txt"
	: >"$anchor"
	# The anchors tie uet-perf's clock (its timeline) to CLOCK_REALTIME (the
	# fabric's event log): each records the wall time of an --exec-at that
	# uet-perf marks on its timeline.
	ip netns exec "$HOSTS_NS" timeout -s TERM "$(python3 -c "print(int($DURATION) + 40)")" \
		"$PERF" "${EAL[@]}" -- "${APP[@]}" --lb "$lb" -J "$OUT/$lb.json" \
		--exec-at "0.05:echo demo-anchor-1 \$(date +%s%N) >>$anchor" \
		--exec-at "0.1:echo demo-anchor-2 \$(date +%s%N) >>$anchor" \
		--exec-at "0.15:echo demo-anchor-3 \$(date +%s%N) >>$anchor" \
		"${EXTRA[@]}" >"$OUT/$lb.txt" 2>&1 &
	PERF_PID=$!
	for _ in $(seq 300); do
		[ -s "$anchor" ] && break
		kill -0 "$PERF_PID" 2>/dev/null || break
		sleep 0.05
	done
	if [ ! -s "$anchor" ]; then
		wait "$PERF_PID" || true
		PERF_PID=""
		tail -20 "$OUT/$lb.txt" >&2
		die "$lb: uet-perf did not start (output above, all of it in $OUT/$lb.txt)"
	fi
	t0=$(($(awk 'NR == 1 {print $2}' "$anchor") - 50000000))
	# The link changes at t0 + T: one process that sleeps until each time.
	"${PIN[@]}" "$FABRIC" schedule --state "$STATE" --t0 "$t0" --ends "$ENDS" \
		--at "$DOWN_AT:down:$FAIL_LEAF:$FAIL_SPINE" --at "$UP_AT:up:$FAIL_LEAF:$FAIL_SPINE" \
		>"$OUT/$lb.schedule.jsonl" &
	SCHED_PID=$!
	wait "$SCHED_PID" || die "$lb: tools/fabric schedule failed"
	SCHED_PID=""
	rc=0
	wait "$PERF_PID" || rc=$?
	PERF_PID=""
	"$FABRIC" counters --state "$STATE" -o "$OUT/$lb.counters-after.json"
	snmp "$OUT/$lb.snmp-after.txt"
	if [ "$rc" -ne 0 ]; then
		echo "demo: $lb: uet-perf exited $rc (see $OUT/$lb.txt)" >&2
	fi
	printf '%-7s exit %d  %s\n' "$lb" "$rc" "$(grep -m1 '^goodput' "$OUT/$lb.txt" || echo 'no report')"
}

echo "demo: permutation of $((LEAVES * HPL)) hosts, ${DURATION} s per load balancer;" \
	"$FAIL_LEAF-$FAIL_SPINE down (--ends $ENDS) at ${DOWN_AT} s, up at ${UP_AT} s"
for lb in "${LB_LIST[@]}"; do
	run_one "$lb"
done

# ---------------------------------------------------------------- report

PLOT_ARGS=()
[ "$PLOT" = 1 ] || PLOT_ARGS=(--no-plot)
python3 "$ANALYZE" --out "$OUT" --lb "$LBS" --link "$FAIL_LEAF-$FAIL_SPINE" \
	--events "$OUT/fabric/$NAME.events.jsonl" --ends "$ENDS" --converge-ms "$CONVERGE_MS" \
	"${PLOT_ARGS[@]}" | tee "$OUT/summary.txt"
# Every run's report side by side: goodput, FCT CDF, per-EV use and CE.
if [ "$PLOT" = 1 ]; then
	RUN_JSONS=()
	for lb in "${LB_LIST[@]}"; do RUN_JSONS+=("$OUT/$lb.json"); done
	python3 "$ROOT/tools/plot.py" "${RUN_JSONS[@]}" --labels "$LBS" -o "$OUT/runs.png" ||
		echo "demo: runs.png not drawn (tools/plot.py said why, above)" >&2
fi
