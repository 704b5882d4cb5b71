#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checksum offload, on by default: uet-perf on two net_tap ports (a PMD
# whose ports offer IPv4/UDP checksum offload on TX and RX, done by the
# PMD in software) joined by a Linux bridge in a network namespace made
# here.
#   1. defaults: every frame's checksums filled by the port and verified by
#      the port (the JSON's nic.tx_csum_offloaded / rx_csum_offloaded),
#      none summed by uet-perf, every byte verified;
#   2. --zero-udp-csum: nothing offloaded on TX, bytes still exact;
#   3. frames with a bad UDP checksum sent into the bridge during a run:
#      the port flags them and uet-perf drops and counts them
#      (nic.rx_csum_drops), the run unharmed;
#   4. frames larger than net_tap takes (it refuses them at TX, and every
#      frame behind them): uet-perf says so at start, not a hung run.
# net_tap's MTU stops at 1500 in DPDK 22.11: the runs use --mtu 1400.
# Needs root (skipped, exit 77, otherwise); removes what it made.
set -euo pipefail

PERF=${1:?usage: offload_test.sh UET_PERF}
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: offload_test needs root (a network namespace, tap devices)"
	exit 77
fi
if ! command -v ip >/dev/null || [ ! -e /dev/net/tun ]; then
	echo "SKIP: needs iproute2 and /dev/net/tun"
	exit 77
fi

TAG="ueto$$"
NS="${TAG}n"
TMP=$(mktemp -d)
cleanup() {
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

# Per run, a fresh namespace whose taps exist before uet-perf opens them
# (persistent, multi-queue as the PMD asks), already in the bridge and up,
# so the first frames pass (a tap a PMD has closed comes back up only
# when the next one starts, too late for its first frames).
fresh_ns() {
	ip netns del "$NS" 2>/dev/null || true
	ip netns add "$NS"
	ip -n "$NS" link add br0 type bridge
	ip -n "$NS" link set br0 up
	for d in "${TAG}0" "${TAG}1"; do
		ip netns exec "$NS" ip tuntap add dev "$d" mode tap multi_queue
		ip -n "$NS" link set "$d" master br0 up
	done
}

# The endpoints' MACs differ from the taps' own: the bridge keeps frames
# for its ports' addresses for itself.
run() { # NAME [uet-perf options]
	local name=$1
	shift
	ip netns exec "$NS" timeout 60 "$PERF" --no-huge --no-shconf --no-pci -m 512 \
		--log-level=error -l 0 --vdev="net_tap0,iface=${TAG}0" --vdev="net_tap1,iface=${TAG}1" -- \
		--endpoint port=0,ip=10.77.0.1/24,mac=02:00:00:00:77:01 \
		--endpoint port=1,ip=10.77.0.2/24,mac=02:00:00:00:77:02 \
		--verify -i 0 --mtu 1400 --json "$TMP/$name.json" "$@" >"$TMP/$name.txt" 2>&1
}
run_ok() { # NAME [uet-perf options]
	run "$@" || { echo "FAIL: $1: uet-perf exited $?"; tail -20 "$TMP/$1.txt"; exit 1; }
}

check() { # NAME PYTHON-CONDITIONS (over end, nic, t = end.transport)
	python3 - "$TMP/$1.json" "$1" "$2" <<'EOF' || { tail -8 "$TMP/$1.txt"; exit 1; }
import json, sys
end = json.load(open(sys.argv[1]))["end"]
nic, t = end["nic"], end["transport"]
ok = eval(" ".join(sys.argv[3].split()))
print("%s: %s; nic %s" % ("ok" if ok else "FAIL", sys.argv[2], nic))
sys.exit(0 if ok else 1)
EOF
}

fresh_ns
run_ok default --size 256K -n 40
check default 'end["verify"]["bad_msgs"] == 0 and end["verify"]["checked_msgs"] == 40 and
	nic["tx_csum_offloaded"] >= t["tx_data_pkts"] and
	nic["rx_csum_offloaded"] >= t["rx_data_pkts"] > 0 and
	nic["rx_csum_drops"] == 0 and nic["tx_csum_fused"] == 0'
grep -q "^checksums .* verified by the ports (offload)" "$TMP/default.txt"

fresh_ns
run_ok zero --size 256K -n 40 --zero-udp-csum
check zero 'end["verify"]["bad_msgs"] == 0 and end["verify"]["checked_msgs"] == 40 and
	nic["tx_csum_offloaded"] == 0 and nic["rx_csum_drops"] == 0'

# Bad frames from the bridge's own side (an AF_PACKET socket on br0), UDP
# to B's address and port 4793 with a checksum off by one, while A
# streams to B.
cat >"$TMP/inject.py" <<'EOF'
import socket, struct, sys, time
def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
time.sleep(1.0)
payload = bytes(64)
udp = struct.pack("!HHHH", 49999, 4793, 8 + len(payload), 0) + payload
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0x4000, 64, 17, 0,
                 socket.inet_aton("10.77.0.9"), socket.inet_aton("10.77.0.2"))
ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
pseudo = ip[12:20] + struct.pack("!BBH", 0, 17, len(udp))
good = csum(pseudo + udp)
udp = udp[:6] + struct.pack("!H", (good + 1) & 0xffff or 1) + udp[8:]
eth = bytes.fromhex("020000007702") + bytes.fromhex("020000007709") + b"\x08\x00"
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
for _ in range(int(sys.argv[2])):
    s.send(eth + ip + udp)
    time.sleep(0.01)
EOF
fresh_ns
ip netns exec "$NS" python3 "$TMP/inject.py" br0 20 &
inj=$!
run_ok bad --size 256K -D 3
wait "$inj"
check bad 'end["verify"]["bad_msgs"] == 0 and end["verify"]["checked_msgs"] > 0 and
	nic["rx_csum_drops"] == 20 and nic["rx_csum_offloaded"] > 0'
# The last --mtu wins: 4096 makes frames net_tap cannot take.
fresh_ns
if run big -n 1 --mtu 4096; then
	echo "FAIL: a 4096 B MTU over net_tap ran"
	exit 1
fi
grep -q "frames of 4194 bytes need an MTU of 4180, the port takes 1500 at most" "$TMP/big.txt" ||
	{ echo "FAIL: no MTU message"; cat "$TMP/big.txt"; exit 1; }
echo "ok: big: refused at start"
echo "offload_test: all passed"
