# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the tests of two uet-perf processes on a veth pair: $1 is
# uet-perf; two network namespaces ${TAG}a (192.168.77.1) and ${TAG}b
# (192.168.77.2) joined by the veth ${TAG}x/${TAG}y, removed with
# everything else the test made on exit; start_pair and friends. Skips
# (exit 77) without root or iproute2.
PERF=${1:?usage: $0 UET_PERF}
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: $(basename "$0") needs root (network namespaces, af_packet)"
	exit 77
fi
if ! command -v ip >/dev/null; then
	echo "SKIP: iproute2 is not installed"
	exit 77
fi

TAG="uetp$$"
NSA="${TAG}a"
NSB="${TAG}b"
TMP=$(mktemp -d)
SRV_PID=""

cleanup() {
	[ -n "$SRV_PID" ] && kill "$SRV_PID" 2>/dev/null || true
	ip netns del "$NSA" 2>/dev/null || true
	ip netns del "$NSB" 2>/dev/null || true
	# EAL's runtime directories, should a process have died: ${TAG}a, b,
	# h1-3, m0-2.
	rm -rf "$TMP" /var/run/dpdk/"${TAG}"[abhm]*
}
trap cleanup EXIT INT TERM

ip netns add "$NSA"
ip netns add "$NSB"
ip link add "${TAG}x" type veth peer name "${TAG}y"
ip link set "${TAG}x" netns "$NSA"
ip link set "${TAG}y" netns "$NSB"
for ns in "$NSA" "$NSB"; do
	ip -n "$ns" link set lo up
done
ip -n "$NSA" addr add 192.168.77.1/24 dev "${TAG}x"
ip -n "$NSB" addr add 192.168.77.2/24 dev "${TAG}y"
ip -n "$NSA" link set "${TAG}x" mtu 9000 up
ip -n "$NSB" link set "${TAG}y" mtu 9000 up

EAL=(--no-huge --no-shconf --no-pci -m 512 --log-level=error)
APP=(--pattern pair --size 1M --iters 4 --verify --base-rtt-ns 200000)

# start_pair NAME ARGS...: a --server in $NSA and a --client in $NSB, in
# the background (SRV_PID, CLI_PID), both with the arguments given (the
# client's followed by those in CLIENT_ONLY); their output in
# $TMP/NAMEserver.txt and NAMEclient.txt, their JSON in NAMEserver.json
# and NAMEclient.json. wait_pair: rc and src, their exit codes. run_pair:
# both.
CLIENT_ONLY=()
start_pair() {
	local name=$1
	shift
	ip netns exec "$NSA" timeout 60 "$PERF" "${EAL[@]}" -l 0 --file-prefix "${TAG}a" \
		--vdev="net_af_packet0,iface=${TAG}x,framesz=8192,blocksz=8192" -- \
		--server --endpoint port=0,ip=10.77.0.1 "$@" --json "$TMP/${name}server.json" \
		>"$TMP/${name}server.txt" 2>&1 &
	SRV_PID=$!
	ip netns exec "$NSB" timeout 60 "$PERF" "${EAL[@]}" -l 1 --file-prefix "${TAG}b" \
		--vdev="net_af_packet0,iface=${TAG}y,framesz=8192,blocksz=8192" -- \
		--client 192.168.77.1 --endpoint port=0,ip=10.77.0.2 "$@" "${CLIENT_ONLY[@]}" \
		--json "$TMP/${name}client.json" >"$TMP/${name}client.txt" 2>&1 &
	CLI_PID=$!
}
wait_pair() {
	rc=0
	wait "$CLI_PID" || rc=$?
	src=0
	wait "$SRV_PID" || src=$?
	SRV_PID=""
}
run_pair() {
	start_pair "$@"
	wait_pair
}
# pair_ok NAME WHAT: both exited 0, or the test fails with their output.
pair_ok() {
	if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ]; then
		echo "FAIL: $2: client exit $rc, server exit $src"
		cat "$TMP/$1client.txt" "$TMP/$1server.txt"
		exit 1
	fi
}

