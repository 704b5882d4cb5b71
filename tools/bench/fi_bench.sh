#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# fi_pingpong and Open MPI's NetPIPE over the uet provider beside
# libfabric's tcp and udp;ofi_rxd providers, as root:
#
#   tools/bench/fi_bench.sh [veth|memif|netpipe|all]
#
# veth:    two network namespaces joined by a veth pair (MTU 9000); uet
#          runs over DPDK's net_af_packet on it, tcp and udp;ofi_rxd over
#          the kernel's sockets on the same pair.
# memif:   uet between two processes joined by net_memif (8 KiB buffers).
# netpipe: NPopenmpi (pml cm, mtl ofi) between two ranks, one in each of
#          the two namespaces (each a "host" of mpirun, reached through an
#          rsh agent that enters it; mpirun's own traffic on a second
#          network), over the same veth pair and the same three providers;
#          and uet between two ranks on one host joined by net_memif:
#          NetPIPE's one-way time at LAT_BYTES and its rate at BW_BYTES.
#          Each rank runs on its own CPU (mpirun would bind both "hosts'"
#          ranks to the first; DPDK's EAL pins to it too: -l).
# Per provider and device, ROUNDS (default 3) runs of each: the latency of
# LAT_BYTES (default 64) messages (fi_pingpong's usec/xfer: half a round
# trip) and the bandwidth of BW_BYTES (default 1 MiB) messages (MB/s, one
# message in flight, so a ping-pong's rate). Printed: every round, then the
# median and range. Each process busy-polls (uet) or sleeps in the kernel
# (tcp, udp): on a machine with few cores the two compete for them.
# Environment: FI_MODULE_DIR (default build/lib/fi), LAT_ITERS (2000),
# BW_ITERS (200). Each pair of processes starts afresh: its first exchange
# waits for ARP (and memif's connection), which the iterations amortize.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/bench/common.sh

WHICH=${1:-all}
ROUNDS=${ROUNDS:-3}
LAT_BYTES=${LAT_BYTES:-64}
BW_BYTES=${BW_BYTES:-1048576}
LAT_ITERS=${LAT_ITERS:-2000}
BW_ITERS=${BW_ITERS:-200}
export FI_PROVIDER_PATH
FI_PROVIDER_PATH=$(readlink -f "${FI_MODULE_DIR:-build/lib/fi}")
[ "$(id -u)" -eq 0 ] || { echo "fi_bench.sh: needs root (namespaces, af_packet)" >&2; exit 2; }
[ -f "$FI_PROVIDER_PATH/libuet-fi.so" ] ||
	{ echo "fi_bench.sh: no libuet-fi.so in $FI_PROVIDER_PATH (build first)" >&2; exit 2; }
bench_scratch fib
NSA="${TAG}a"
NSB="${TAG}b"
trap 'pkill -f "fi_pingpong" 2>/dev/null || true; pkill -f "NPopenmpi" 2>/dev/null || true;
      ip netns del "$NSA" 2>/dev/null || true; ip netns del "$NSB" 2>/dev/null || true;
      ip link del "${TAG}br" 2>/dev/null || true; rm -rf /var/run/dpdk/uet-fi-* "$TMP"' EXIT INT TERM
EAL="--no-huge --no-pci -m 256 --log-level=error"
AFP="framesz=8192,blocksz=8192"

bench_header "fi_pingpong and NetPIPE: uet beside tcp and udp;ofi_rxd (fi_bench.sh $WHICH)"

ip netns add "$NSA"
ip netns add "$NSB"
ip link add "${TAG}x" type veth peer name "${TAG}y"
ip link set "${TAG}x" netns "$NSA"
ip link set "${TAG}y" netns "$NSB"
for ns in "$NSA" "$NSB"; do ip -n "$ns" link set lo up; done
ip -n "$NSA" addr add 192.168.83.1/24 dev "${TAG}x"
ip -n "$NSB" addr add 192.168.83.2/24 dev "${TAG}y"
ip -n "$NSA" link set "${TAG}x" mtu 9000 up
ip -n "$NSB" link set "${TAG}y" mtu 9000 up

# One fi_pingpong pair; prints "usec/xfer MB/s" of its result line. The
# uet settings (EAL arguments and address of each side) are ignored by the
# other providers.
# pp NS_SERVER NS_CLIENT SERVER_ADDR SERVER_EAL CLIENT_EAL ARGS...
pp() {
	local nss=$1 nsc=$2 addr=$3 seal=$4 ceal=$5 srv
	shift 5
	ip netns exec "$nss" env FI_UET_EAL="$seal" FI_UET_ADDR=10.83.0.1 timeout 120 \
		fi_pingpong "$@" >"$TMP/s.txt" 2>&1 &
	srv=$!
	sleep 0.5
	if ! ip netns exec "$nsc" env FI_UET_EAL="$ceal" FI_UET_ADDR=10.83.0.2 timeout 120 \
		fi_pingpong "$@" "$addr" >"$TMP/c.txt" 2>&1; then
		wait "$srv" || true
		run_failed "$TMP/c.txt" "fi_pingpong $*"
	fi
	wait "$srv" || run_failed "$TMP/s.txt" "fi_pingpong server $*"
	awk '$1 ~ /^[0-9.]+[kmg]?$/ && $3 ~ /^=/ { r = $7 " " $6 } END { print r }' "$TMP/c.txt"
}

# The median and range of each figure over the rounds.
summary() { # NAME "LATENCIES" "BANDWIDTHS"
	python3 - "$@" <<'PY'
import statistics, sys
name, lat, bw = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
print(f"RESULT {name}: latency {statistics.median(lat):.2f} us [{min(lat):.2f}-{max(lat):.2f}], "
      f"bandwidth {statistics.median(bw):.1f} MB/s [{min(bw):.1f}-{max(bw):.1f}]")
PY
}

# rounds NAME NS_SERVER NS_CLIENT ADDR SERVER_EAL CLIENT_EAL PROVIDER_ARGS...
rounds() {
	local name=$1 nss=$2 nsc=$3 addr=$4 senv=$5 cenv=$6 r lat=() bw=() out
	shift 6
	for r in $(seq "$ROUNDS"); do
		out=$(pp "$nss" "$nsc" "$addr" "$senv" "$cenv" "$@" -e rdm -S "$LAT_BYTES" -I "$LAT_ITERS")
		lat+=("${out% *}")
		out=$(pp "$nss" "$nsc" "$addr" "$senv" "$cenv" "$@" -e rdm -S "$BW_BYTES" -I "$BW_ITERS")
		bw+=("${out#* }")
		echo "$name round $r: ${lat[-1]} us at $LAT_BYTES B, ${bw[-1]} MB/s at $BW_BYTES B"
	done
	summary "$name" "${lat[*]}" "${bw[*]}"
}

if [ "$WHICH" = veth ] || [ "$WHICH" = all ]; then
	rounds "uet (af_packet on the veth)" "$NSA" "$NSB" 192.168.83.1 \
		"$EAL -l 0 --vdev=net_af_packet0,iface=${TAG}x,$AFP" \
		"$EAL -l 1 --vdev=net_af_packet0,iface=${TAG}y,$AFP" \
		-p uet
	rounds "tcp (kernel TCP on the veth)" "$NSA" "$NSB" 192.168.83.1 "" "" -p tcp
	rounds "udp;ofi_rxd (kernel UDP on the veth)" "$NSA" "$NSB" 192.168.83.1 "" "" -p "udp;ofi_rxd"
fi
if [ "$WHICH" = memif ] || [ "$WHICH" = all ]; then
	# Both processes in one namespace; fi_pingpong's own exchange over its
	# loopback. The memif server listens from the server's fi_enable(),
	# before the client (which waits for the server's address) starts.
	rounds "uet (memif)" "$NSA" "$NSA" 127.0.0.1 \
		"$EAL -l 0 --vdev=net_memif0,role=server,socket=$TMP/memif.sock,bsize=8192" \
		"$EAL -l 1 --vdev=net_memif0,role=client,socket=$TMP/memif.sock,bsize=8192" \
		-p uet
fi
if [ "$WHICH" = netpipe ] || [ "$WHICH" = all ]; then
	command -v NPopenmpi >/dev/null && command -v mpirun >/dev/null ||
		{ echo "fi_bench.sh: NPopenmpi or mpirun missing (tools/setup.sh)" >&2; exit 2; }
	# mpirun's network: a bridge here, a leg into each namespace.
	ip link add "${TAG}br" type bridge
	ip addr add 10.84.0.254/24 dev "${TAG}br"
	ip link set "${TAG}br" up
	i=1
	for ns in "$NSA" "$NSB"; do
		ip link add "${TAG}m$i" type veth peer name "${TAG}r$i"
		ip link set "${TAG}m$i" netns "$ns"
		ip link set "${TAG}r$i" master "${TAG}br" up
		ip -n "$ns" addr add "10.84.0.$i/24" dev "${TAG}m$i"
		ip -n "$ns" link set "${TAG}m$i" up
		i=$((i + 1))
	done
	cat >"$TMP/agent.sh" <<'AGENT'
#!/bin/sh
# mpirun's rsh agent: a host is a network namespace.
host=$1
shift
exec ip netns exec "$host" sh -c "$*"
AGENT
	# Each rank its side of the veth pair (or of a memif connection), its
	# uet address and its CPU.
	cat >"$TMP/rank.sh" <<RANK
#!/bin/sh
r=\$OMPI_COMM_WORLD_RANK
if [ "\$r" = 0 ]; then dev=${TAG}x role=server; else dev=${TAG}y role=client; fi
export FI_TCP_IFACE=\$dev FI_UDP_IFACE=\$dev FI_UET_ADDR=10.83.0.\$((r + 1))
if [ "\$NP_MEMIF" = 1 ]; then
	# One host: the address is the first plus the local rank. The
	# client connects once, when its port starts: after the server's.
	export FI_UET_ADDR=10.83.0.1
	export FI_UET_EAL="$EAL -l \$r --vdev=net_memif0,role=\$role,socket=$TMP/np-memif.sock,bsize=8192"
	for _ in \$(seq 200); do
		[ "\$role" = server ] || [ -S $TMP/np-memif.sock ] && break
		sleep 0.05
	done
else
	export FI_UET_EAL="$EAL -l \$r --vdev=net_af_packet0,iface=\$dev,$AFP"
fi
exec "\$@"
RANK
	chmod +x "$TMP/agent.sh" "$TMP/rank.sh"
	# np PROVIDER veth|memif: one NetPIPE run; prints "usec MB/s" at
	# LAT_BYTES and BW_BYTES. veth: a rank in each namespace; memif: both
	# in the first.
	np() {
		local where=(-H "$NSA,$NSB" --mca plm_rsh_agent "$TMP/agent.sh") memif=0

		if [ "$2" = memif ]; then
			where=(--host "localhost:2")
			memif=1
			rm -f "$TMP/np-memif.sock" # a server cannot listen where one did
		fi
		(cd "$TMP" && NP_MEMIF=$memif ip netns exec "$NSA" timeout 300 mpirun --allow-run-as-root \
			"${where[@]}" -np 2 --mca oob_tcp_if_include 10.84.0.0/24 \
			--bind-to none --mca mpi_yield_when_idle 1 \
			--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include "$1" \
			-x FI_PROVIDER_PATH -x NP_MEMIF "$TMP/rank.sh" NPopenmpi -p 0 -u "$BW_BYTES" \
			-o "$TMP/np.out") >"$TMP/np.txt" 2>&1 || run_failed "$TMP/np.txt" "NPopenmpi over $1 ($2)"
		awk -v l="$LAT_BYTES" -v b="$BW_BYTES" '$1 == l { u = $3 * 1e6 } $1 == b { m = $2 / 8 }
			END { if (u == "" || m == "") exit 1; printf "%.2f %.1f\n", u, m }' "$TMP/np.out" ||
			run_failed "$TMP/np.out" "NPopenmpi over $1: no $LAT_BYTES B or $BW_BYTES B row"
	}
	for run in uet:veth tcp:veth "udp;ofi_rxd:veth" uet:memif; do
		p=${run%:*}
		lat=()
		bw=()
		for r in $(seq "$ROUNDS"); do
			out=$(np "$p" "${run##*:}")
			lat+=("${out% *}")
			bw+=("${out#* }")
			echo "NetPIPE $run round $r: ${lat[-1]} us at $LAT_BYTES B, ${bw[-1]} MB/s at $BW_BYTES B"
		done
		summary "NetPIPE over $p (${run##*:})" "${lat[*]}" "${bw[*]}"
	done
fi
