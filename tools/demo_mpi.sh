#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The demo's story told by a real application: an MPI job over the
# libfabric provider (Open MPI, pml cm, mtl ofi, provider uet) on the
# one-box leaf-spine fabric, once per load balancer, while a link fails:
#
#   sudo tools/demo_mpi.sh        # after tools/setup.sh; about a minute
#
# tools/fabric builds 2 leaves x 4 spines x 2 hosts per leaf (one MPI rank
# per host, each on its own DPDK af_packet port); the job
# (tools/demo/mpi_alltoall.c) runs ITERS all-to-alls of SIZE bytes per
# pair, every byte checked. Leaf0-spine1 goes down (its spine end: a
# blackhole until routing converges, CONVERGE_MS later) at DOWN_AT seconds
# of the job and comes back at UP_AT. tools/demo/analyze_mpi.py prints per
# load balancer the job's completion time, its goodput before, during and
# after the failure, its longest all-to-all and the packets that went into
# the dead link, and writes summary.json and mpi_alltoall.png into the
# output directory, beside each run's timeline (LB.json), each rank's
# transport report (LB.rankR.report.json, FI_UET_REPORT), mpirun's output
# (LB.txt) and the routers' counters. Needs root; removes everything it
# created, also on error and Ctrl-C.
#
# Options: -o DIR (default ./demo-mpi-out), --lb LIST (default
# ecmp,ops,bitmap,reps), --iters N (default 1000), --size BYTES (default
# 262144), --down-at S (2), --up-at S (5), --converge-ms MS (1000; 0:
# never), --opts 'OPTIONS' (more uet-perf transport options for every
# rank, after the script's own). Environment: FI_MODULE_DIR (default
# build/lib/fi).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FABRIC=$ROOT/tools/fabric
OUT=./demo-mpi-out
LBS=ecmp,ops,bitmap,reps
ITERS=1000
SIZE=262144
DOWN_AT=2
UP_AT=5
CONVERGE_MS=1000
LEAVES=2
SPINES=4
HPL=2
LINK=leaf0:spine1
EXTRA_OPTS=

die() {
	echo "demo_mpi: $*" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	-o | --out) OUT=$2; shift 2 ;;
	--lb) LBS=$2; shift 2 ;;
	--iters) ITERS=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--down-at) DOWN_AT=$2; shift 2 ;;
	--up-at) UP_AT=$2; shift 2 ;;
	--converge-ms) CONVERGE_MS=$2; shift 2 ;;
	--opts) EXTRA_OPTS=$2; shift 2 ;;
	-h | --help) sed -n '3,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (--help)" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
for t in mpirun mpicc python3; do
	command -v $t >/dev/null || die "$t is missing (tools/setup.sh installs it)"
done
export FI_PROVIDER_PATH
FI_PROVIDER_PATH=$(readlink -f "${FI_MODULE_DIR:-$ROOT/build/lib/fi}")
[ -f "$FI_PROVIDER_PATH/libuet-fi.so" ] || die "no libuet-fi.so in $FI_PROVIDER_PATH (ninja -C build)"

mkdir -p "$OUT"
OUT=$(readlink -f "$OUT")
NAME="dmpi$$"
STATE=$OUT/fabric.json
MPI_PID=""
cleanup() {
	[ -n "$MPI_PID" ] && kill "$MPI_PID" 2>/dev/null || true
	"$FABRIC" down --state "$STATE" >/dev/null 2>&1 || true
	rm -rf /var/run/dpdk/uet-fi-* 2>/dev/null || true
}
trap cleanup EXIT INT TERM

mpicc -O2 -o "$OUT/mpi_alltoall" "$ROOT/tools/demo/mpi_alltoall.c" || die "mpicc failed"
HASH_SEED=()
[ -e /proc/sys/net/ipv4/fib_multipath_hash_seed ] && HASH_SEED=(--hash-seed 1)
"$FABRIC" up --name "$NAME" --state "$STATE" --leaves "$LEAVES" --spines "$SPINES" \
	--hosts-per-leaf "$HPL" --converge-ms "$CONVERGE_MS" "${HASH_SEED[@]}" >"$OUT/fabric-up.txt" 2>&1 ||
	{ cat "$OUT/fabric-up.txt" >&2; die "tools/fabric up failed"; }
HOSTS_NS=$("$FABRIC" args netns --state "$STATE")
APP=$("$FABRIC" args app --state "$STATE")
NP=$((LEAVES * HPL))

# Each rank its host: the host's interface (%l), address and gateway (the
# n-th of each list for local rank n).
export FI_UET_EAL="--no-huge --no-pci -m 256 --log-level=error --vdev=net_af_packet0,iface=$NAME-h%l,qpairs=1,framesz=8192,blocksz=8192"
export FI_UET_ADDR FI_UET_GATEWAY FI_UET_PREFIX=24
FI_UET_ADDR=$(grep -o 'ip=[0-9.]*' <<<"$APP" | cut -d= -f2 | paste -sd,)
FI_UET_GATEWAY=$(grep -o 'gw=[0-9.]*' <<<"$APP" | cut -d= -f2 | paste -sd,)
# As tools/demo.sh: about this fabric's unloaded RTT, its links' rate and
# an ACK per packet; and a patience for timeouts (MAX_RTO_RETX, default
# 200: about 2 s at the 10 ms ceiling) that outlasts the 1 s blackhole, so
# a load balancer that cannot leave the dead path stalls rather than has
# MPI abort the job (with 40, ECMP's connections give up).
export FI_UET_OPTS="--base-rtt-ns 80000 --link-gbps 2 --max-rto-retx ${MAX_RTO_RETX:-200} --ack-every 0 $EXTRA_OPTS"
# The provider's warnings (a connection that gives up) go to LB.txt.
export FI_LOG_LEVEL=${FI_LOG_LEVEL:-warn} FI_LOG_PROV=uet

snmp() { # FILE
	local ns
	for ns in $(ip netns list | awk -v p="^$NAME-(leaf|spine)[0-9]+\$" '$1 ~ p {print $1}'); do
		echo "== $ns"
		ip netns exec "$ns" grep -h -E '^(Icmp|IpExt):' /proc/net/snmp /proc/net/netstat
	done >"$1"
}

run_one() { # LB
	local lb=$1 start rc=0
	"$FABRIC" converge --state "$STATE" >/dev/null
	"$FABRIC" counters --state "$STATE" -o "$OUT/$lb.counters-before.json"
	snmp "$OUT/$lb.snmp-before.txt"
	rm -f "$OUT/$lb.start" "$OUT/$lb.json" "$OUT/$lb.json.steps" "$OUT/$lb".rank*.report.json
	FI_UET_LB=$lb ip netns exec "$HOSTS_NS" timeout 300 mpirun --allow-run-as-root \
		--oversubscribe -np "$NP" --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include uet \
		-x FI_PROVIDER_PATH -x FI_UET_EAL -x FI_UET_ADDR -x FI_UET_GATEWAY -x FI_UET_PREFIX \
		-x FI_UET_OPTS -x FI_UET_LB -x FI_LOG_LEVEL -x FI_LOG_PROV \
		-x FI_UET_REPORT="$OUT/$lb.rank%r.report.json" "$OUT/mpi_alltoall" "$ITERS" "$SIZE" "$OUT/$lb.start" \
		"$OUT/$lb.json" >"$OUT/$lb.txt" 2>&1 &
	MPI_PID=$!
	for _ in $(seq 600); do
		[ -s "$OUT/$lb.start" ] && break
		kill -0 "$MPI_PID" 2>/dev/null || break
		sleep 0.05
	done
	[ -s "$OUT/$lb.start" ] || { tail -20 "$OUT/$lb.txt" >&2; die "$lb: the MPI job did not start"; }
	start=$(cat "$OUT/$lb.start")
	"$FABRIC" schedule --state "$STATE" --t0 "$start" --ends spine \
		--at "$DOWN_AT:down:${LINK%:*}:${LINK#*:}" --at "$UP_AT:up:${LINK%:*}:${LINK#*:}" \
		>"$OUT/$lb.schedule.jsonl" || die "$lb: tools/fabric schedule failed"
	wait "$MPI_PID" || rc=$?
	MPI_PID=""
	"$FABRIC" counters --state "$STATE" -o "$OUT/$lb.counters-after.json"
	snmp "$OUT/$lb.snmp-after.txt"
	if [ "$rc" -ne 0 ]; then
		[ -s "$OUT/$lb.json.steps" ] || { tail -20 "$OUT/$lb.txt" >&2; die "$lb: the MPI job failed (exit $rc)"; }
		echo "demo_mpi: $lb: the MPI job ended with exit $rc (the table says why)"
		return
	fi
	echo "demo_mpi: $lb: $(grep -m1 '^mpi_alltoall:' "$OUT/$lb.txt")"
}

echo "demo_mpi: $NP ranks, $ITERS all-to-alls of $SIZE B per pair per load balancer;" \
	"$LINK down at $DOWN_AT s (spine end, routes converge after $CONVERGE_MS ms), up at $UP_AT s"
IFS=, read -r -a LB_LIST <<<"$LBS"
for lb in "${LB_LIST[@]}"; do
	run_one "$lb"
done
python3 "$ROOT/tools/demo/analyze_mpi.py" --out "$OUT" --lb "$LBS" --link "${LINK/:/-}" \
	--down "$DOWN_AT" --up "$UP_AT" | tee "$OUT/summary.txt"
