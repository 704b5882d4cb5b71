#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The libfabric provider under real clients, each process with its own DPDK
# port (net_af_packet) in network namespaces created here:
#   1. fi_info: nothing offered unconfigured; configured, the provider and
#      its attributes; a bad setting named;
#   2. fi_pingpong between two namespaces over a veth pair, FI_MSG and
#      tagged, every size it has (0 B to 6 MiB) with its data checks, and
#      1 MiB tagged messages (by rendezvous) under every load balancer;
#   3. Open MPI (pml cm, mtl ofi, provider uet) on one machine, its ranks'
#      veths on a Linux bridge: NetPIPE from 1 B to 8 MiB, and mpi_check
#      (ring, probes, all-to-all, allreduce, every result checked) at -np 2 and
#      -np 4.
# Needs root (skipped, exit 77, otherwise); removes everything it created,
# also on error or Ctrl-C.
set -euo pipefail

MODULE=${1:?usage: fi_test.sh LIBUET_FI_SO [MPI_CHECK]}
MPI_CHECK=${2:-}
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: fi_test needs root (network namespaces, af_packet)"
	exit 77
fi
for t in ip fi_info fi_pingpong; do
	if ! command -v $t >/dev/null; then
		echo "SKIP: $t is not installed (tools/setup.sh installs it)"
		exit 77
	fi
done

TAG="uetfi$$"
NSA="${TAG}a"
NSB="${TAG}b"
NSM="${TAG}m"
NSS="${TAG}s"
TMP=$(mktemp -d)
PIDS=()

cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for ns in "$NSA" "$NSB" "$NSM" "$NSS"; do ip netns del "$ns" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

export FI_PROVIDER_PATH
FI_PROVIDER_PATH=$(dirname "$(readlink -f "$MODULE")")
# A provider built with sanitizers runs inside programs built without
# them: their runtimes go first (the programs' own leaks are not ours).
if [ -n "${UET_FI_SANITIZE:-}" ] && [ "$UET_FI_SANITIZE" != none ]; then
	export LD_PRELOAD ASAN_OPTIONS
	LD_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
	ASAN_OPTIONS=detect_leaks=0:${ASAN_OPTIONS:-}
fi
EAL="--no-huge --no-pci -m 256 --log-level=error"
AFP="framesz=8192,blocksz=8192"

fail() {
	echo "FAIL: $*"
	for f in "$TMP"/*.txt; do
		[ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }
	done
	exit 1
}

# 1. fi_info
if env -u FI_UET_EAL -u FI_UET_ADDR fi_info -p uet >"$TMP/info0.txt" 2>&1; then
	fail "fi_info offered uet without FI_UET_EAL and FI_UET_ADDR"
fi
FI_UET_EAL="$EAL --vdev=net_ring0" FI_UET_ADDR=10.80.0.1 fi_info -p uet -v >"$TMP/info.txt" 2>&1 ||
	fail "fi_info -p uet"
for want in "prov_name: uet" "type: FI_EP_RDM" "FI_TAGGED" "FI_DIRECTED_RECV" "FI_SOURCE" \
	"src_addr: fi_sockaddr_in://10.80.0.1:4793" "data_progress: FI_PROGRESS_MANUAL" \
	"threading: FI_THREAD_DOMAIN" "cq_data_size: 8" "mem_tag_format: 0x3fffffffffffffff"; do
	grep -q -- "$want" "$TMP/info.txt" || fail "fi_info -p uet -v has no '$want'"
done
# A bad transport setting: not offered, and the log names it.
if FI_LOG_LEVEL=info FI_UET_EAL="$EAL" FI_UET_ADDR=10.80.0.1 FI_UET_LB=nosuch \
	fi_info -p uet >"$TMP/info_bad.txt" 2>&1; then
	fail "fi_info offered uet with FI_UET_LB=nosuch"
fi
grep -q "not offered: .*lb.*nosuch\|not offered: .*nosuch" "$TMP/info_bad.txt" ||
	fail "FI_UET_LB=nosuch: the log does not name it"
# A list of addresses: local rank n takes the n-th; one too short is named.
OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_LOCAL_RANK=1 FI_UET_EAL="$EAL" \
	FI_UET_ADDR=10.80.0.1,10.80.0.7 fi_info -p uet -v >"$TMP/info_list.txt" 2>&1 ||
	fail "fi_info with an address list"
grep -q "src_addr: fi_sockaddr_in://10.80.0.7:4793" "$TMP/info_list.txt" ||
	fail "FI_UET_ADDR list: local rank 1 does not take the second address"
if FI_LOG_LEVEL=info OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_LOCAL_RANK=2 FI_UET_EAL="$EAL" \
	FI_UET_ADDR=10.80.0.1,10.80.0.7 fi_info -p uet >"$TMP/info_short.txt" 2>&1; then
	fail "fi_info offered uet to local rank 2 of a 2-address list"
fi
grep -q "FI_UET_ADDR lists 2 addresses, and this is local rank 2" "$TMP/info_short.txt" ||
	fail "a short FI_UET_ADDR list is not named"
echo "ok: fi_info"

# 2. fi_pingpong over a veth pair
ip netns add "$NSA"
ip netns add "$NSB"
ip link add "${TAG}x" type veth peer name "${TAG}y"
ip link set "${TAG}x" netns "$NSA"
ip link set "${TAG}y" netns "$NSB"
ip -n "$NSA" link set lo up
ip -n "$NSB" link set lo up
ip -n "$NSA" addr add 192.168.81.1/24 dev "${TAG}x"
ip -n "$NSB" addr add 192.168.81.2/24 dev "${TAG}y"
ip -n "$NSA" link set "${TAG}x" mtu 9000 up
ip -n "$NSB" link set "${TAG}y" mtu 9000 up

pingpong() {
	local name=$1 rc_s rc_c min_sizes=40
	shift
	[ -z "${ONE_SIZE:-}" ] || min_sizes=1
	ip netns exec "$NSA" env FI_UET_EAL="$EAL -l 0 --vdev=net_af_packet0,iface=${TAG}x,$AFP" \
		FI_UET_ADDR=10.81.0.1 FI_UET_REPORT="$TMP/${name}_server.json" \
		timeout 120 fi_pingpong -p uet -e rdm "$@" >"$TMP/${name}_server.txt" 2>&1 &
	local srv=$!
	PIDS+=("$srv")
	sleep 0.5
	rc_c=0
	ip netns exec "$NSB" env FI_UET_EAL="$EAL -l 1 --vdev=net_af_packet0,iface=${TAG}y,$AFP" \
		FI_UET_ADDR=10.81.0.2 timeout 120 fi_pingpong -p uet -e rdm "$@" 192.168.81.1 \
		>"$TMP/${name}_client.txt" 2>&1 || rc_c=$?
	rc_s=0
	wait "$srv" || rc_s=$?
	[ "$rc_c" -eq 0 ] && [ "$rc_s" -eq 0 ] || fail "fi_pingpong $name: client $rc_c, server $rc_s"
	# Every size from 0 B to 6 MiB, each line "=N" (as many acked as sent).
	local n
	n=$(grep -c "^[0-9.]*[kmg]\? *[0-9]* *=" "$TMP/${name}_client.txt" || true)
	[ "$n" -ge "$min_sizes" ] || fail "fi_pingpong $name: $n sizes completed, want $min_sizes+"
	if [ -n "${ONE_SIZE:-}" ]; then
		echo "ok: fi_pingpong $name"
		return
	fi
	grep -q "^6m " "$TMP/${name}_client.txt" || fail "fi_pingpong $name: no 6 MiB row"
	# The server's report (FI_UET_REPORT): uet-perf's schema, this run's
	# bytes: 5 ping-pongs of each size, so it received at least 5 x 6 MiB.
	python3 - "$TMP/${name}_server.json" <<'PY' || fail "fi_pingpong $name: the server's report"
import json, sys
r = json.load(open(sys.argv[1]))
ts, end = r["start"]["test_start"], r["end"]
assert ts["provider"] == "uet" and ts["ip"] == "10.81.0.1", ts
assert end["bytes_rx"] >= 5 * 6 * 1024 * 1024, end["bytes_rx"]
assert end["transport"]["tx_data_pkts"] > 0 and "retransmissions" in end["losses"], end["losses"]
PY
	echo "ok: fi_pingpong $name: $n sizes to 6 MiB, data checked; report written"
}
# What DPDK runtime directories exist before: the provider's processes
# must leave none of their own (uet-fi-PID) behind.
runtime_dirs() { ls -d /var/run/dpdk/uet-fi-* 2>/dev/null | sort || true; }
DIRS_BEFORE=$(runtime_dirs)
pingpong msg -S all -c -I 5
pingpong tagged -S all -c -I 5 -m tagged
for lb in ops reps ecmp bitmap flowlet plb strack mprdma mptcp; do
	FI_UET_LB=$lb ONE_SIZE=1 pingpong "lb-$lb" -S 1048576 -c -I 5 -m tagged
done
[ "$(runtime_dirs)" = "$DIRS_BEFORE" ] ||
	fail "DPDK runtime directories left behind: $(comm -13 <(echo "$DIRS_BEFORE") <(runtime_dirs))"

# 3. Open MPI on one machine: one namespace holds the ranks and a veth for
# each onto a bridge (DPDK's af_packet joins a fanout group numbered from
# the pid and the interface index; indexes that differ in high bits keep
# nearby pids from colliding).
if ! command -v mpirun >/dev/null || [ -z "$MPI_CHECK" ]; then
	echo "SKIP: MPI: mpirun or mpi_check missing (apt-get install openmpi-bin libopenmpi-dev)"
	exit 0
fi
ip netns add "$NSM"
ip netns add "$NSS"
ip -n "$NSM" link set lo up
ip -n "$NSS" link add br0 type bridge
ip -n "$NSS" link set br0 up
for i in 0 1 2 3; do
	ip link add "${TAG}m$i" index $(((i + 1) << 14 | $$ % 4096)) type veth peer name "${TAG}q$i"
	ip link set "${TAG}m$i" netns "$NSM"
	ip link set "${TAG}q$i" netns "$NSS"
	ip -n "$NSS" link set "${TAG}q$i" master br0 mtu 9000 up
	ip -n "$NSM" link set "${TAG}m$i" mtu 9000 up
done
mpi() {
	local np=$1 name=$2
	shift 2
	ip netns exec "$NSM" env FI_UET_EAL="$EAL --vdev=net_af_packet0,iface=${TAG}m%l,$AFP" \
		FI_UET_ADDR=10.82.0.1 timeout 300 mpirun --allow-run-as-root --oversubscribe \
		-np "$np" --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include uet \
		-x FI_PROVIDER_PATH -x FI_UET_EAL -x FI_UET_ADDR -x FI_UET_REPORT="$TMP/$name.r%r.json" \
		${LD_PRELOAD:+-x LD_PRELOAD -x ASAN_OPTIONS} \
		"$@" >"$TMP/$name.txt" 2>&1 ||
		fail "mpirun -np $np $*: exit $?"
}
if command -v NPopenmpi >/dev/null; then
	mpi 2 netpipe NPopenmpi -p 0 -o "$TMP/np.out"
	grep -q "8388608 bytes .* Mbps" "$TMP/netpipe.txt" || fail "NPopenmpi: no 8 MiB row"
	echo "ok: NetPIPE 1 B to 8 MiB over uet: $(grep "8388608 bytes" "$TMP/netpipe.txt")"
fi
for np in 2 4; do
	mpi $np "mpi$np" "$MPI_CHECK" 2
	grep -q "mpi_check: $np ranks, .*: 0 errors" "$TMP/mpi$np.txt" ||
		fail "mpi_check -np $np: $(tail -1 "$TMP/mpi$np.txt")"
	echo "ok: $(grep mpi_check: "$TMP/mpi$np.txt")"
	# Unbound ranks (mpirun binds none when oversubscribed) each on a CPU
	# of their own, as many as there are: not all on the first.
	cpus=$(python3 -c 'import json, sys; print(len({json.load(open(f))["start"]["test_start"]["cpu"] for f in sys.argv[1:]}))' "$TMP/mpi$np".r*.json)
	want=$((np < $(nproc) ? np : $(nproc)))
	[ "$cpus" -eq "$want" ] || fail "mpi_check -np $np: its ranks ran on $cpus CPUs, not $want"
done
