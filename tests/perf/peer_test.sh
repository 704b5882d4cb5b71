#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Strangers and dead peers, between a uet-perf --server and --client in two
# network namespaces on a veth pair (pair_env.sh):
#   1. an -n run whose server is killed: the client ends within a second
#      or two, with the reason (its control connection closed), exit 1;
#   2. ... whose server is frozen (SIGSTOP): the client's first PDC to give
#      up fails every message still to go, and the end waits
#      --stall-timeout, not --barrier-timeout;
#   3. ... whose link goes down: both ends finish within the stall timeout;
#   4. --auth-key: the server makes the key file, a client holding it runs;
#      strangers that connect first (idle, garbage, a join without the key)
#      learn nothing of the run and change nothing of it, and are counted;
#      a client with another key is told so and the run goes on;
#   5. two runs at once on the same hosts, NIC and UDP port: each keeps
#      only its own;
#   6. a stranger replays an earlier run's requests (another job) at a
#      run, from its client's address and from outside the run: all
#      dropped before they reach a PDC, the run's results unchanged.
# Needs root (skipped, exit 77, otherwise); removes everything it made.
set -euo pipefail

. "$(dirname "$0")/pair_env.sh"

# Seconds since the epoch, with fractions.
now() { date +%s.%N; }
# elapsed T0 T1 MAX: T1 - T0 (printed), exit 1 unless it is below MAX.
within() {
	python3 -c "import sys; d = float(sys.argv[2]) - float(sys.argv[1]); print('%.1f' % d); \
sys.exit(0 if d < float(sys.argv[3]) else 1)" "$@"
}

NAPP=(--pattern pair --size 256K --iters 20000 --verify --base-rtt-ns 200000 --stall-timeout 2)

# 1. Killed: the watcher sees the control connection close.
start_pair k "${NAPP[@]}"
sleep 2
pkill -9 -f -- "--file-prefix ${TAG}a" || true
t_kill=$(now)
wait "$SRV_PID" 2>/dev/null || true
SRV_PID=""
rc=0
wait "$CLI_PID" || rc=$?
t_end=$(now)
if [ "$rc" -ne 1 ] || ! took=$(within "$t_kill" "$t_end" 2.5); then
	echo "FAIL: server killed: client exit $rc (want 1) after ${took:-?} s"
	cat "$TMP/kclient.txt"
	exit 1
fi
python3 - "$TMP/kclient.json" "$took" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert "rank 0 closed its connection" in r["error"], r["error"]
ev = [e for e in r["end"]["events"] if e["kind"] == "peer-lost"]
assert len(ev) == 1 and "process 0 closed its control connection" in ev[0]["detail"], ev
assert r["end"]["flow_counts"]["ok"] > 0, r["end"]["flow_counts"]
print("ok: the server killed during an -n run: the client ended %s s later, the lost "
      "connection named, exit 1" % sys.argv[2])
EOF

# 2. Frozen: the control connection stays open; the data path tells.
start_pair f "${NAPP[@]}"
sleep 2
pkill -STOP -f -- "--file-prefix ${TAG}a" || true
t_stop=$(now)
rc=0
wait "$CLI_PID" || rc=$?
t_end=$(now)
pkill -CONT -f -- "--file-prefix ${TAG}a" || true
pkill -TERM -f -- "--file-prefix ${TAG}a" || true
wait "$SRV_PID" 2>/dev/null || true
SRV_PID=""
# one retry limit (12 RTOs of at most 10 ms), then 2 s at the end
if [ "$rc" -ne 1 ] || ! took=$(within "$t_stop" "$t_end" 4.5) ||
	! grep -q "no answer from rank 0 within 2.0 s" "$TMP/fclient.txt"; then
	echo "FAIL: server frozen: client exit $rc (want 1) after ${took:-?} s"
	cat "$TMP/fclient.txt"
	exit 1
fi
python3 - "$TMP/fclient.json" "$took" <<'EOF'
import json, sys
end = json.load(open(sys.argv[1]))["end"]
fc = end["flow_counts"]
assert fc["failed"] > 1000 and fc["ok"] > 0, fc
# one PDC gave up; the messages after it failed unsent
assert end["transport"]["pdcs_failed"] == 1, end["transport"]
ev = [e for e in end["events"] if e["kind"] == "peer-dead"]
assert len(ev) == 1 and ev[0]["detail"].startswith("rank 0"), ev
print("ok: the server frozen during an -n run: one PDC gave up, %d messages failed unsent, "
      "the client ended %s s later (--stall-timeout 2), exit 1" % (fc["failed"] - 1, sys.argv[2]))
EOF

# 3. The link goes down under both.
ip -n "$NSA" link set "${TAG}x" up
start_pair l "${NAPP[@]}"
sleep 2
ip -n "$NSA" link set "${TAG}x" down
t_down=$(now)
wait_pair
t_end=$(now)
ip -n "$NSA" link set "${TAG}x" up
if [ "$rc" -ne 1 ] || [ "$src" -ne 1 ] || ! took=$(within "$t_down" "$t_end" 6); then
	echo "FAIL: link down: client exit $rc, server exit $src (want 1, 1) after ${took:-?} s"
	cat "$TMP/lclient.txt" "$TMP/lserver.txt"
	exit 1
fi
echo "ok: the link down during an -n run: client and server ended $took s later, exit 1"

# 4. A key. The server makes it; the client reads the same file.
KEY="$TMP/run.key"
CLIENT_ONLY=(--auth-key "$KEY")
APP=(--pattern pair --size 1M --iters 4 --verify --base-rtt-ns 200000)
ip netns exec "$NSA" timeout 60 "$PERF" "${EAL[@]}" -l 0 --file-prefix "${TAG}a" \
	--vdev="net_af_packet0,iface=${TAG}x,framesz=8192,blocksz=8192" -- \
	--server --endpoint port=0,ip=10.77.0.1 "${APP[@]}" --auth-key "$KEY" \
	--json "$TMP/aserver.json" >"$TMP/aserver.txt" 2>&1 &
SRV_PID=$!
for _ in $(seq 50); do [ -s "$KEY" ] && break; sleep 0.1; done
[ "$(stat -c %a "$KEY")" = 600 ] || { echo "FAIL: key file mode $(stat -c %a "$KEY")"; exit 1; }
# Strangers first: one idle, one sends garbage, one asks for a rank without
# the key; what each was sent is written down.
ip netns exec "$NSB" python3 - "$TMP" <<'EOF' &
import json, socket, struct, sys, time
tmp = sys.argv[1]
def conn():
    for _ in range(100):
        try:
            return socket.create_connection(("192.168.77.1", 18515), timeout=5)
        except OSError:
            time.sleep(0.05)
    raise SystemExit("no server")
def msg(s):
    n = struct.unpack(">I", s.recv(4))[0]
    return json.loads(s.recv(n))
idle, junk, join = conn(), conn(), conn()
junk.sendall(b"GET / HTTP/1.0\r\n\r\n")
got = [msg(idle), msg(join)]
body = json.dumps({"rank": -1, "nranks": 0, "nonce": "00" * 16}).encode()
join.sendall(struct.pack(">I", len(body)) + body)
try:
    got.append(msg(join))
except Exception as e:
    got.append({"closed": str(e)})
json.dump(got, open(tmp + "/stranger.json", "w"))
time.sleep(4)
EOF
STRANGER=$!
sleep 0.5
# A client with another key: told, and the server keeps waiting.
openssl rand -hex 32 >"$TMP/other.key"
chmod 600 "$TMP/other.key"
rc=0
ip netns exec "$NSB" timeout 60 "$PERF" "${EAL[@]}" -l 1 --file-prefix "${TAG}b" \
	--vdev="net_af_packet0,iface=${TAG}y,framesz=8192,blocksz=8192" -- \
	--client 192.168.77.1 --endpoint port=0,ip=10.77.0.2 "${APP[@]}" \
	--auth-key "$TMP/other.key" >"$TMP/wclient.txt" 2>&1 || rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "refused this process's key" "$TMP/wclient.txt"; then
	echo "FAIL: a client with another key: exit $rc"
	cat "$TMP/wclient.txt"
	exit 1
fi
rc=0
ip netns exec "$NSB" timeout 60 "$PERF" "${EAL[@]}" -l 1 --file-prefix "${TAG}b" \
	--vdev="net_af_packet0,iface=${TAG}y,framesz=8192,blocksz=8192" -- \
	--client 192.168.77.1 --endpoint port=0,ip=10.77.0.2 "${APP[@]}" "${CLIENT_ONLY[@]}" \
	--json "$TMP/aclient.json" >"$TMP/aclient.txt" 2>&1 || rc=$?
src=0
wait "$SRV_PID" || src=$?
SRV_PID=""
wait "$STRANGER" || true
if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ]; then
	echo "FAIL: keyed run with strangers: client exit $rc, server exit $src"
	cat "$TMP/aclient.txt" "$TMP/aserver.txt"
	exit 1
fi
python3 - "$TMP/aserver.json" "$TMP/aclient.json" "$TMP/stranger.json" <<'EOF'
import json, sys
srv, cli, got = (json.load(open(p)) for p in sys.argv[1:])
for r in (srv, cli):
    end = r["end"]
    assert end["flow_counts"]["ok"] == 4 and end["verify"]["bad_msgs"] == 0, end
ctl = srv["start"]["test_start"]["control"]
assert ctl["auth"] is True, ctl
by = ctl["refused_by"]
# the client with another key, the stranger's join; the garbage; the idle one
assert by["key"] == 2 and by["malformed"] == 1 and by["unfinished"] + by["timeout"] == 1, ctl
# all a stranger saw: a challenge, then a refusal
text = json.dumps(got)
for secret in ("hash", "options", "pattern", "nranks"):
    assert secret not in text, text
assert got[0]["auth"] is True and got[2] == {"refused": "key"}, got
print("ok: --auth-key: the server made the key, the client with it ran; %d connections "
      "turned away (%s: three strangers, a client with another key), none told anything of "
      "the run" %
      (ctl["refused"], ", ".join("%s %d" % kv for kv in sorted(by.items()) if kv[1])))
EOF
# 5. Two runs side by side on the same hosts, NIC and UDP port, each with
# its own data addresses (one UET endpoint per address) and control port:
# each port sees every frame of the other run (af_packet) and keeps only
# its own.
pids=()
for k in 1 2; do
	cp=$((18520 + k))
	ip netns exec "$NSA" timeout 60 "$PERF" "${EAL[@]}" -l $((k - 1)) \
		--file-prefix "${TAG}a$k" \
		--vdev="net_af_packet0,iface=${TAG}x,framesz=8192,blocksz=8192" -- \
		--server --endpoint port=0,ip=10.77.0.$((2 * k - 1)) --pattern pair --size 256K \
		--iters 40 --verify --base-rtt-ns 500000 --control-port "$cp" \
		--json "$TMP/s$k.json" >"$TMP/s$k.txt" 2>&1 &
	pids+=($!)
	ip netns exec "$NSB" timeout 60 "$PERF" "${EAL[@]}" -l $((2 - k)) \
		--file-prefix "${TAG}b$k" \
		--vdev="net_af_packet0,iface=${TAG}y,framesz=8192,blocksz=8192" -- \
		--client 192.168.77.1 --endpoint port=0,ip=10.77.0.$((2 * k)) --pattern pair \
		--size 256K --iters 40 --verify --base-rtt-ns 500000 --control-port "$cp" \
		--json "$TMP/c$k.json" >"$TMP/c$k.txt" 2>&1 &
	pids+=($!)
done
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
if [ "$fail" -ne 0 ]; then
	echo "FAIL: two runs side by side"
	cat "$TMP"/s?.txt "$TMP"/c?.txt
	exit 1
fi
python3 - "$TMP" <<'EOF'
import json, sys
tmp = sys.argv[1]
jobs, other = set(), 0
for k in (1, 2):
    srv, cli = (json.load(open("%s/%s%d.json" % (tmp, side, k))) for side in "sc")
    jobs.add(srv["start"]["test_start"]["job_id"])
    assert cli["start"]["test_start"]["job_id"] == srv["start"]["test_start"]["job_id"]
    for r in (srv, cli):
        fc = r["end"]["flow_counts"]
        assert fc["ok"] == 40 and fc["failed"] == 0, fc
    assert srv["end"]["verify"] == {"checked_msgs": 40, "bad_msgs": 0}, srv["end"]["verify"]
    assert srv["end"]["bytes_rx"] == 40 * 256 * 1024, srv["end"]["bytes_rx"]
    other += srv["end"]["nic"]["rx_other_drops"]
assert len(jobs) == 2, jobs
assert other > 0, other
print("ok: two runs side by side on one NIC and UDP port: each counted and verified its own "
      "40 messages; %d frames of the other run seen and left alone" % other)
EOF

# 6. A stranger replays the requests of an earlier run (another job) at a
# run, as they were and from an address outside the run: every one is
# dropped before it reaches a PDC, and the run's results are what they
# would have been.
CLIENT_ONLY=(--pcap "$TMP/rec-%e.pcap" --pcap-snaplen 0)
run_pair r --pattern pair --size 64K --iters 20 --base-rtt-ns 500000
CLIENT_ONLY=()
pair_ok r "a run to record"
start_pair j --pattern pair --size 64K --duration 3 --verify --base-rtt-ns 500000
sleep 1.5
ip netns exec "$NSB" python3 - "$TMP/rec-1.pcap" "${TAG}y" >"$TMP/inject.txt" <<'EOF'
import socket, struct, sys, time
data = open(sys.argv[1], "rb").read()
frames, off = [], 24
while off + 16 <= len(data):
    incl = struct.unpack("<I", data[off + 8:off + 12])[0]
    f = data[off + 16:off + 16 + incl]
    off += 16 + incl
    # the client's requests: IPv4 from 10.77.0.2, UDP to 4793, a data packet
    if len(f) > 42 and f[12:14] == b"\x08\x00" and f[26:30] == bytes([10, 77, 0, 2]) \
            and f[36:38] == struct.pack(">H", 4793) and len(f) > 200:
        frames.append(bytearray(f))
def ipsum(h):
    s = sum(struct.unpack(">10H", bytes(h)))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[2], 0))
sent = 0
for i, f in enumerate(frames):
    if i % 16 == 15:
        time.sleep(0.002)  # a burst past the veth's backlog would be lost
    s.send(bytes(f))
    g = bytearray(f)
    g[26:30] = bytes([10, 77, 0, 99])    # from outside the run
    g[24:26] = b"\0\0"
    g[24:26] = struct.pack(">H", ipsum(g[14:34]))
    g[40:42] = b"\0\0"                    # no UDP checksum
    s.send(bytes(g))
    sent += 2
print(sent)
EOF
wait_pair
pair_ok j "a run with a stranger's replay"
python3 - "$TMP/jserver.json" "$(cat "$TMP/inject.txt")" <<'EOF'
import json, sys
end = json.load(open(sys.argv[1]))["end"]
sent = int(sys.argv[2])
assert sent >= 20, sent
v = end["verify"]
assert v["bad_msgs"] == 0 and v["checked_msgs"] > 100, v
# every byte received is the run's: its whole messages, and the parts of
# those still arriving when the duration ended (8 in flight at most)
extra = end["bytes_rx"] - v["checked_msgs"] * 65536
assert 0 <= extra < 8 * 65536, (end["bytes_rx"], v)
t = end["transport"]
# (the veth may lose a few of a burst; none may count anywhere else)
assert 0.9 * sent <= t["rx_foreign_job"] <= sent, (t["rx_foreign_job"], sent)
assert t["rx_unknown_pdc"] == 0 and t["rx_malformed"] == 0, t
# the run's one PDC, opened at the client and accepted at the server
assert t["pdcs_opened"] == 2 and t["msgs_delivered"] == v["checked_msgs"], t
print("ok: %d requests of another job replayed at a run (half from outside it): %d arrived, "
      "all dropped unopened; the run's %d messages, each verified, are all it counted" %
      (sent, t["rx_foreign_job"], v["checked_msgs"]))
EOF
echo "6 passed, 0 failed"
