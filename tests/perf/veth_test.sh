#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# uet-perf between processes over net_af_packet, in network namespaces
# created here (the control channel over the kernel's TCP on the same
# veths, ARP between the DPDK endpoints):
#   1. a --server and a --client on a veth pair, bulk, ping-pong, a run
#      after a warm-up (-O) and a run longer than the timeline's bins;
#   2. one --server with --clients 2 on a Linux bridge (incast 2:1);
#   3. a --hosts run of three processes, ranks from OMPI_COMM_WORLD_RANK;
#   4. Ctrl-C on the client, then on the server: both end at once and
#      print the gathered report; the server killed mid-run: the client
#      still reports, exit 1; the server frozen: the same within
#      --barrier-timeout;
#   5. options that differ between the hosts, named;
#   6. three ranks on one machine as a launcher starts them (environment,
#      then a real mpirun -np 3 where OpenMPI is installed), and a process
#      count that fits the hosts list neither way.
# Checks every exit code and the JSON reports. Needs root (skipped, exit
# 77, otherwise); removes everything it created, also on error or Ctrl-C.
set -euo pipefail

. "$(dirname "$0")/pair_env.sh"

run_pair "" "${APP[@]}"
pair_ok "" "bulk"
python3 - "$TMP/client.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
end = r["end"]
flows = end["flows"]
assert len(flows) == 4, len(flows)
assert all(f["status"] == "ok" and f["src"] == 1 and f["dst"] == 0 for f in flows), flows
assert end["bytes_rx"] == 4 << 20, end["bytes_rx"]
assert end["verify"] == {"checked_msgs": 4, "bad_msgs": 0}, end["verify"]
assert end["fct"]["count"] == 4
# Submit and arrival are on two processes' clocks: no receiver's FCT.
assert end["fct_recv"]["count"] == 0 and all(f["fct_recv_ns"] is None for f in flows), \
    end["fct_recv"]
print("ok: 4 x 1 MiB client -> server over af_packet/veth, goodput %.2f Gb/s"
      % (end["goodput_bps"] / 1e9))
EOF
# A ping-pong between the two processes (perftest's ib_send_lat): the client
# sends first, the server answers each ping; the client's report holds the
# round trips, the latency table half of each.
run_pair p --pattern pingpong --size 64 --iters 200 --verify
if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ] || ! grep -q "t_typical" "$TMP/pclient.txt"; then
	echo "FAIL: ping-pong: client exit $rc, server exit $src"
	cat "$TMP/pclient.txt" "$TMP/pserver.txt"
	exit 1
fi
python3 - "$TMP/pclient.json" <<'EOF'
import json, sys
end = json.load(open(sys.argv[1]))["end"]
flows = end["flows"]
assert len(flows) == 400 and all(f["status"] == "ok" for f in flows), len(flows)
assert all((f["src"], f["dst"]) == ((1, 0) if i % 2 == 0 else (0, 1))
           for i, f in enumerate(flows)), flows[:2]
assert end["verify"] == {"checked_msgs": 400, "bad_msgs": 0}, end["verify"]
lat = end["latency"]
assert lat["round_trips"] == 200, lat
# Both ends of a round trip are on the client's clock; a receiver's FCT
# would mix two processes' clocks, and there is none.
assert end["fct_recv"]["count"] == 0, end["fct_recv"]
rtt = lat["rtt"]
assert 0 < rtt["min_ns"] <= rtt["p50_ns"] <= rtt["p99_ns"] <= rtt["max_ns"], lat
assert lat["one_way_p50_ns"] == rtt["p50_ns"] // 2, lat
print("ok: ping-pong of 64 B between two processes over af_packet/veth, 200 round trips, "
      "one way %.2f us (median)" % (lat["one_way_p50_ns"] / 1e3))
EOF
# The same for a duration (-D): the round trips are the client's, and come
# through the end-of-run gather with the server's (none).
run_pair l --pattern pingpong --size 64 -D 1 --verify
if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ] || ! grep -q "t_typical" "$TMP/lclient.txt"; then
	echo "FAIL: ping-pong for 1 s: client exit $rc, server exit $src"
	cat "$TMP/lclient.txt" "$TMP/lserver.txt"
	exit 1
fi
python3 - "$TMP/lclient.json" "$TMP/lclient.txt" <<'EOF'
import json, sys
end = json.load(open(sys.argv[1]))["end"]
lat = end["latency"]
n = lat["round_trips"]
# Each ping waits for its pong: two messages acknowledged per round trip,
# give or take the last ping and pong, which the end cuts off.
assert n >= 100 and lat["rtt"]["count"] == n, lat
assert 2 * n - 1 <= end["fct"]["count"] <= 2 * n + 1, (n, end["fct"])
assert end["verify"]["bad_msgs"] == 0 and end["verify"]["checked_msgs"] >= 2 * n, end["verify"]
rtt = lat["rtt"]
assert 0 < rtt["min_ns"] <= rtt["p50_ns"] <= rtt["max_ns"], lat
row = [l.split() for l in open(sys.argv[2]) if l.strip()[:1].isdigit()][0]
assert int(row[0]) == 64 and int(row[1]) == n, row
print("ok: ping-pong of 64 B between two processes for 1 s, %d round trips, one way %.2f us"
      % (n, lat["one_way_p50_ns"] / 1e3))
EOF
# A warm-up (-O) between two processes: each leaves the first half second
# out of what it exports, and the gathered report counts the measured
# second alone (paced at 0.5 Gb/s: 954 message starts in it).
run_pair o --pattern pair --size 64K --rate-gbps 0.5 -D 1 -O 0.5 -i 0.5 --verify
pair_ok o "warm-up"
python3 - "$TMP/oclient.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
end, ivs = r["end"], r["intervals"]
assert end["omitted_ns"] == 500000000 and 1e9 <= end["duration_ns"] < 1.5e9, end["duration_ns"]
assert [i["omitted"] for i in ivs[:3]] == [True, False, False], ivs
assert end["bytes_rx"] == sum(i["bytes_rx"] for i in ivs if not i["omitted"]), (end, ivs)
f = end["flows"][0]
assert f["status"] == "ok" and 940 <= f["msgs_acked"] <= 962, f
assert end["fct"]["count"] == f["msgs_acked"], end["fct"]
assert abs(end["transport"]["msgs_acked"] - f["msgs_acked"]) <= 16, end["transport"]
assert end["verify"]["bad_msgs"] == 0, end["verify"]
print("ok: 1 s measured after 0.5 s of warm-up between two processes: %d messages, "
      "%.3f Gb/s" % (f["msgs_acked"], end["goodput_bps"] / 1e9))
EOF
# A run longer than the timeline holds at its bin width (2^20 bins: 1.05 s
# of 1 us bins, 105 s at the default 100 us): the timeline's bins widen,
# and the gathered report still counts every byte and resend, in the
# totals, the intervals and the timeline alike. Before, the gather summed
# the bins, which stopped at their cap (then 2^22: 4.2 s, 0.4 Gb/s here),
# and every resend went to the last interval.
run_pair l --pattern pair --size 64K --rate-gbps 0.5 -D 5 -O 1 -i 1 --bin-us 1
pair_ok l "run past the timeline's bins"
python3 - "$TMP/lclient.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
end, ivs = r["end"], r["intervals"]
tl, retx = end["timeline"], end["transport"]["tx_retx_pkts"]
assert tl["bin_ns"] == 8000 and 0.6e6 < len(tl["rx_bytes"]) <= 2**20, (tl["bin_ns"], len(tl["rx_bytes"]))
assert end["bad_input"]["timeline_full"] == 0, end["bad_input"]
assert end["bytes_rx"] == sum(i["bytes_rx"] for i in ivs if not i["omitted"]), (end, ivs)
assert [i["omitted"] for i in ivs[:2]] == [True, False], ivs
assert sum(tl["rx_bytes"]) == sum(i["bytes_rx"] for i in ivs), ivs
assert retx == sum(i["retransmits"] for i in ivs if not i["omitted"]), (retx, ivs)
assert 0.48e9 <= end["goodput_bps"] <= 0.52e9, end["goodput_bps"]
assert all(0.45e9 <= i["bits_per_second"] <= 0.55e9 for i in ivs[1:5]), ivs
print("ok: 4 s measured past 1.05 s of 1 us bins between two processes: %.3f Gb/s, "
      "bins widened to %d ns, %d resends all in the intervals" % (end["goodput_bps"] / 1e9,
                                                                 tl["bin_ns"], retx))
EOF
# Ctrl-C on one side (iperf3's client interrupted): that process tells the
# other, both end their runs at once, gather, and each prints the report of
# the whole run so far, exit 0. The signal reaches uet-perf twice (pkill
# hits the timeout wrapper too, which forwards it, as a terminal's Ctrl-C
# through a launcher does): a repeat that close counts once.
for who in client server; do
	start_pair i --pattern pair --size 64K --duration 30 --base-rtt-ns 200000
	sleep 2
	t0=$(date +%s)
	if [ "$who" = client ]; then
		pkill -INT -f -- "--file-prefix ${TAG}b" || true
	else
		pkill -INT -f -- "--file-prefix ${TAG}a" || true
	fi
	wait_pair
	took=$(($(date +%s) - t0))
	if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ] || [ "$took" -gt 5 ]; then
		echo "FAIL: $who interrupted: client exit $rc, server exit $src after $took s"
		cat "$TMP/iclient.txt" "$TMP/iserver.txt"
		exit 1
	fi
	python3 - "$TMP/iclient.json" "$TMP/iserver.json" "$who" <<'EOF2'
import json, sys
c, s = (json.load(open(p)) for p in sys.argv[1:3])
who = sys.argv[3]
for r in (c, s):
    assert "error" not in r, r.get("error")
    end = r["end"]
    assert end["bytes_rx"] > 0 and end["bytes_rx"] == c["end"]["bytes_rx"], end["bytes_rx"]
    assert end["duration_ns"] < 10e9, end["duration_ns"]
    why = sorted(e["detail"] for e in end["events"] if e["kind"] == "interrupt")
    other = 1 if who == "client" else 0
    assert why == ["SIGINT/SIGTERM", "process %d was interrupted (SIGINT/SIGTERM)" % other], why
print("ok: the %s interrupted: both processes ended at once and printed the gathered "
      "report, %.2f Gb/s over %.1f s" % (who, c["end"]["goodput_bps"] / 1e9,
                                          c["end"]["duration_ns"] / 1e9))
EOF2
done

# Peer death: the server is killed in the middle of a 3 s streaming run. The
# client must still end (its duration, then the end-of-run barrier finds
# rank 0 gone), print its tables, write its JSON with the reason, exit 1.
t0=$(date +%s)
start_pair d --pattern pair --size 64K --duration 3 --base-rtt-ns 200000
sleep 1.5
pkill -9 -f -- "--file-prefix ${TAG}a" || true
wait "$SRV_PID" 2>/dev/null || true
SRV_PID=""
rc=0
wait "$CLI_PID" || rc=$?
took=$(($(date +%s) - t0))
if [ "$rc" -ne 1 ] || [ "$took" -gt 20 ]; then
	echo "FAIL: peer death: client exit $rc (want 1) after $took s"
	cat "$TMP/dclient.txt"
	exit 1
fi
grep -q "the report below is this process's alone" "$TMP/dclient.txt" ||
	{ echo "FAIL: peer death: no word on the lost peer"; cat "$TMP/dclient.txt"; exit 1; }
python3 - "$TMP/dclient.json" <<'EOF2'
import json, sys
r = json.load(open(sys.argv[1]))
assert "control channel" in r["error"], r.get("error")
end = r["end"]
assert end["bytes_tx"] > 0 and end["flows"], end
print("ok: the server killed mid-run: the client reported what it measured and exited 1")
EOF2

# A frozen peer (SIGSTOP: its sockets stay open, nothing answers): the
# client's stream ends when its PDC gives up, which ends its run, and the
# end-of-run barrier waits only --barrier-timeout for the server before
# the client reports alone and exits 1.
t0=$(date +%s)
CLIENT_ONLY=(--barrier-timeout 3)
start_pair f --pattern pair --size 64K --duration 30 --base-rtt-ns 200000
CLIENT_ONLY=()
sleep 1.5
pkill -STOP -f -- "--file-prefix ${TAG}a" || true
rc=0
wait "$CLI_PID" || rc=$?
took=$(($(date +%s) - t0))
pkill -CONT -f -- "--file-prefix ${TAG}a" || true
pkill -TERM -f -- "--file-prefix ${TAG}a" || true
wait "$SRV_PID" 2>/dev/null || true
SRV_PID=""
if [ "$rc" -ne 1 ] || [ "$took" -gt 15 ] ||
	! grep -q "no answer from rank 0 within 3.0 s" "$TMP/fclient.txt"; then
	echo "FAIL: frozen peer: client exit $rc (want 1) after $took s"
	cat "$TMP/fclient.txt"
	exit 1
fi
python3 - "$TMP/fclient.json" <<'EOF2'
import json, sys
r = json.load(open(sys.argv[1]))
end = r["end"]
assert end["flow_counts"]["failed"] == 1, end["flow_counts"]
assert end["transport"]["pdcs_failed"] == 1 and end["transport"]["pdcs_opened"] == 1, \
    end["transport"]
assert end["duration_ns"] < 10e9, end["duration_ns"]
print("ok: a frozen server: the client's stream ended at its PDC's retry limit, it waited "
      "--barrier-timeout 3 s at the end, reported alone and exited 1")
EOF2

# Options that differ between the hosts: named, not hashed.
APP=(--pattern pair --size 1M --iters 2 --base-rtt-ns 200000)
CLIENT_ONLY=(--size 2M --lb ops)
run_pair m "${APP[@]}"
CLIENT_ONLY=()
if [ "$rc" -eq 0 ] || ! grep -q -- "--size (1048576 there, 2097152 here)" "$TMP/mclient.txt" ||
	! grep -q -- "--lb (reps there, ops here)" "$TMP/mclient.txt"; then
	echo "FAIL: option mismatch: client exit $rc"
	cat "$TMP/mclient.txt" "$TMP/mserver.txt"
	exit 1
fi
echo "ok: options that differ between the hosts are named: $(grep -o 'process 0 .*' "$TMP/mclient.txt")"

# Three hosts on a Linux bridge (namespace S): the kernel's TCP carries the
# control channel, DPDK's af_packet ports the data, on the same veths.
NSS="${TAG}s"
cleanup_bridge() {
	for i in 1 2 3; do ip netns del "${TAG}h$i" 2>/dev/null || true; done
	ip netns del "$NSS" 2>/dev/null || true
}
trap 'cleanup_bridge; cleanup' EXIT INT TERM
ip netns add "$NSS"
ip -n "$NSS" link add br0 type bridge
ip -n "$NSS" link set br0 up
for i in 1 2 3; do
	ns="${TAG}h$i"
	ip netns add "$ns"
	ip link add "${TAG}v$i" type veth peer name "${TAG}p$i"
	ip link set "${TAG}v$i" netns "$ns"
	ip link set "${TAG}p$i" netns "$NSS"
	ip -n "$NSS" link set "${TAG}p$i" master br0 mtu 9000 up
	ip -n "$ns" link set lo up
	ip -n "$ns" addr add "192.168.78.$i/24" dev "${TAG}v$i"
	ip -n "$ns" link set "${TAG}v$i" mtu 9000 up
done

# host i: uet-perf in its namespace on its af_packet port, on lcore i % 2
perf_at() {
	local i=$1
	shift
	ip netns exec "${TAG}h$i" timeout 90 "$PERF" "${EAL[@]}" -l $((i % 2)) \
		--file-prefix "${TAG}h$i" \
		--vdev="net_af_packet0,iface=${TAG}v$i,framesz=8192,blocksz=8192" -- "$@"
}

# Incast N:1 in pairwise mode: one server, two clients (ranks by arrival).
APP=(--pattern pair --size 512K --iters 4 --verify --base-rtt-ns 500000)
perf_at 1 --server --clients 2 --endpoint port=0,ip=10.78.0.1 "${APP[@]}" \
	--json "$TMP/srv.json" >"$TMP/srv.txt" 2>&1 &
SRV_PID=$!
perf_at 2 --client 192.168.78.1 --endpoint port=0,ip=10.78.0.2 "${APP[@]}" \
	>"$TMP/c2.txt" 2>&1 &
C2=$!
rc=0
perf_at 3 --client 192.168.78.1 --endpoint port=0,ip=10.78.0.3 "${APP[@]}" \
	>"$TMP/c3.txt" 2>&1 || rc=$?
c2=0
wait "$C2" || c2=$?
src=0
wait "$SRV_PID" || src=$?
SRV_PID=""
if [ "$rc" -ne 0 ] || [ "$c2" -ne 0 ] || [ "$src" -ne 0 ]; then
	echo "FAIL: incast: server exit $src, clients $c2 $rc"
	cat "$TMP/srv.txt" "$TMP/c2.txt" "$TMP/c3.txt"
	exit 1
fi
python3 - "$TMP/srv.json" <<'EOF'
import json, sys
end = json.load(open(sys.argv[1]))["end"]
flows = end["flows"]
assert len(flows) == 8, len(flows)
assert sorted({f["src"] for f in flows}) == [1, 2] and {f["dst"] for f in flows} == {0}, flows
assert all(f["status"] == "ok" for f in flows), flows
assert end["bytes_rx"] == 8 * (512 << 10), end["bytes_rx"]
assert end["verify"]["bad_msgs"] == 0 and end["verify"]["checked_msgs"] == 8, end["verify"]
print("ok: incast 2:1, one server, two clients, %.2f Gb/s into the server"
      % (end["goodput_bps"] / 1e9))
EOF

# A hosts-list run: three processes, ranks from the launcher's environment
# (as mpirun sets them), rank 0 coordinating; every process reports the
# whole run, into its own file with --json PATH-%r.
cat >"$TMP/hosts.ini" <<EOF
[hosts]
0 = control=192.168.78.1, ip=10.78.0.1, port=0
1 = control=192.168.78.2, ip=10.78.0.2, port=0
2 = control=192.168.78.3, ip=10.78.0.3, port=0
EOF
APP=(--hosts "$TMP/hosts.ini" --pattern permutation --seed 4 --size 256K --iters 3 --verify
	--base-rtt-ns 500000)
pids=()
for i in 1 2 3; do
	OMPI_COMM_WORLD_RANK=$((i - 1)) perf_at "$i" "${APP[@]}" --json "$TMP/r%r.json" \
		--csv "$TMP/one" >"$TMP/r$i.txt" 2>&1 &
	pids+=($!)
done
fail=0
for i in 1 2 3; do
	wait "${pids[$((i - 1))]}" || { echo "FAIL: rank $((i - 1)) exit $?"; fail=1; }
done
if [ "$fail" -ne 0 ]; then
	cat "$TMP"/r?.txt
	exit 1
fi
# %r names each rank's own report; a path without it is rank 0's alone.
[ "$(ls "$TMP"/one-*.csv | wc -l)" -eq 2 ] || { echo "FAIL: CSV files: $(ls "$TMP")"; exit 1; }
python3 - "$TMP"/r0.json "$TMP"/r1.json "$TMP"/r2.json <<'EOF'
import json, sys
reps = [json.load(open(p)) for p in sys.argv[1:]]
for r in reps:
    end = r["end"]
    flows = end["flows"]
    assert r["start"]["test_start"]["processes"] == 3, r["start"]["test_start"]
    assert len(flows) == 9 and all(f["status"] == "ok" for f in flows), flows
    assert sorted(f["src"] for f in flows) == [0, 0, 0, 1, 1, 1, 2, 2, 2], flows
    assert all(f["src"] != f["dst"] for f in flows), flows
    assert end["verify"] == {"checked_msgs": 9, "bad_msgs": 0}, end["verify"]
    assert end["bytes_rx"] == 9 * (256 << 10), end["bytes_rx"]
# The same run, seen from every process.
assert reps[0]["end"]["flows"] == reps[1]["end"]["flows"] == reps[2]["end"]["flows"]
print("ok: 3-process permutation from a hosts list, ranks from OMPI_COMM_WORLD_RANK")
EOF
# Ctrl-C on the third process: rank 0 passes its stop notice on to the
# second, all three end at once and print the whole run's report.
APP=(--hosts "$TMP/hosts.ini" --pattern permutation --seed 4 --size 64K --duration 30
	--base-rtt-ns 500000)
pids=()
for i in 1 2 3; do
	OMPI_COMM_WORLD_RANK=$((i - 1)) perf_at "$i" "${APP[@]}" --json "$TMP/q%r.json" \
		>"$TMP/q$i.txt" 2>&1 &
	pids+=($!)
done
sleep 2.5
t0=$(date +%s)
pkill -INT -f -- "--file-prefix ${TAG}h3" || true
fail=0
for i in 1 2 3; do
	wait "${pids[$((i - 1))]}" || { echo "FAIL: interrupted rank $((i - 1)) exit $?"; fail=1; }
done
took=$(($(date +%s) - t0))
if [ "$fail" -ne 0 ] || [ "$took" -gt 5 ]; then
	echo "FAIL: the third process interrupted: the others took $took s"
	cat "$TMP"/q?.txt
	exit 1
fi
python3 - "$TMP"/q0.json "$TMP"/q1.json "$TMP"/q2.json <<'EOF'
import json, sys
reps = [json.load(open(p)) for p in sys.argv[1:]]
for r in reps:
    assert "error" not in r, r.get("error")
    end = r["end"]
    assert end["bytes_rx"] > 0 and end["bytes_rx"] == reps[0]["end"]["bytes_rx"], end["bytes_rx"]
    why = sorted(e["detail"] for e in end["events"] if e["kind"] == "interrupt")
    assert why == ["SIGINT/SIGTERM"] + ["process 2 was interrupted (SIGINT/SIGTERM)"] * 2, why
print("ok: the third of three processes interrupted: rank 0 told the second, all three "
      "reported the whole run")
EOF

# Several ranks on one machine, as mpirun starts them: one namespace M
# holds three veths onto the bridge and all three ranks, which share its
# control address (127.0.0.1). The launcher's environment says three
# processes for three ranks, so each runs its own rank (not the three a
# shared control address would put in one process); one command line for
# all, %l in the EAL arguments picks each one's veth and its own DPDK
# runtime directory (two primaries with one --file-prefix refuse to start;
# this test's prefixes, not uet-perf's defaults, which real runs on the
# machine may hold). Then the same under a real mpirun where OpenMPI is
# installed; no process leaves its runtime directory behind.
NSM="${TAG}m"
cleanup_m() {
	ip netns del "$NSM" 2>/dev/null || true
}
trap 'cleanup_m; cleanup_bridge; cleanup' EXIT INT TERM
ip netns add "$NSM"
ip -n "$NSM" link set lo up
# DPDK's af_packet joins a fanout group numbered (pid ^ ifindex) & 0xffff,
# and one number taken for another interface fails its start: processes
# started together have nearby pids, so the interfaces get indexes that
# differ only in bits 14-15.
for i in 0 1 2; do
	ip link add "${TAG}m$i" index $(((i + 1) << 14)) type veth peer name "${TAG}q$i"
	ip link set "${TAG}m$i" netns "$NSM"
	ip link set "${TAG}q$i" netns "$NSS"
	ip -n "$NSS" link set "${TAG}q$i" master br0 mtu 9000 up
	ip -n "$NSM" link set "${TAG}m$i" mtu 9000 up
done
cat >"$TMP/local.ini" <<EOF
[hosts]
0 = control=127.0.0.1, ip=10.79.0.1, port=0
1 = control=127.0.0.1, ip=10.79.0.2, port=0
2 = control=127.0.0.1, ip=10.79.0.3, port=0
EOF
MEAL=(--no-huge --no-pci -m 512 --log-level=error -l 0 --file-prefix "${TAG}m%l"
      "--vdev=net_af_packet0,iface=${TAG}m%l,framesz=8192,blocksz=8192")
MAPP=(--hosts "$TMP/local.ini" --pattern permutation --seed 4 --size 256K --iters 2
      --verify --base-rtt-ns 500000 --control-port 18790)
pids=()
for i in 0 1 2; do
	ip netns exec "$NSM" env OMPI_COMM_WORLD_RANK=$i OMPI_COMM_WORLD_SIZE=3 \
		OMPI_COMM_WORLD_LOCAL_RANK=$i OMPI_COMM_WORLD_LOCAL_SIZE=3 \
		timeout 90 "$PERF" "${MEAL[@]}" -- "${MAPP[@]}" --json "$TMP/l%r.json" \
		>"$TMP/l$i.txt" 2>&1 &
	pids+=($!)
done
fail=0
for i in 0 1 2; do
	wait "${pids[$i]}" || { echo "FAIL: local rank $i exit $?"; fail=1; }
done
if [ "$fail" -ne 0 ]; then
	cat "$TMP"/l?.txt
	exit 1
fi
check_local() {
	python3 - "$1" "$TMP/${2}0.json" "$TMP/${2}1.json" "$TMP/${2}2.json" <<'EOF'
import json, sys
reps = [json.load(open(p)) for p in sys.argv[2:]]
for r in reps:
    assert r["start"]["test_start"]["processes"] == 3, r["start"]["test_start"]
    end = r["end"]
    flows = end["flows"]
    assert len(flows) == 6 and all(f["status"] == "ok" for f in flows), flows
    assert end["verify"] == {"checked_msgs": 6, "bad_msgs": 0}, end["verify"]
assert reps[0]["end"]["flows"] == reps[1]["end"]["flows"] == reps[2]["end"]["flows"]
print("ok: three ranks on one machine, one process each (%s)" % sys.argv[1])
EOF
}
check_local "launcher environment, %l in the EAL arguments" l
# Two processes for three ranks on two control addresses... fits; three
# ranks on two addresses started as two processes of the wrong count does
# not: named before anything starts, exit 2.
sed -i 's/^2 = control=127.0.0.1/2 = control=127.0.0.2/' "$TMP/local.ini"
rc=0
env OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=4 "$PERF" --no-huge -- "${MAPP[@]}" \
	>"$TMP/lbad.txt" 2>&1 || rc=$?
if [ "$rc" -ne 2 ] || ! grep -q "the launcher started 4 processes" "$TMP/lbad.txt"; then
	echo "FAIL: a launcher size that fits no grouping: exit $rc"
	cat "$TMP/lbad.txt"
	exit 1
fi
echo "ok: a launcher's process count that fits the hosts list neither way is named"
sed -i 's/^2 = control=127.0.0.2/2 = control=127.0.0.1/' "$TMP/local.ini"
n=8
if command -v mpirun >/dev/null; then
	mpirun --allow-run-as-root --oversubscribe -np 3 \
		ip netns exec "$NSM" timeout 90 "$PERF" "${MEAL[@]}" -- "${MAPP[@]}" \
		--json "$TMP/m%r.json" >"$TMP/mpi.txt" 2>&1 ||
		{ echo "FAIL: mpirun -np 3: exit $?"; cat "$TMP/mpi.txt"; exit 1; }
	check_local "mpirun -np 3" m
	if ls -d /var/run/dpdk/"${TAG}"m* 2>/dev/null; then
		echo "FAIL: runtime directories left behind"
		exit 1
	fi
	n=9
else
	echo "SKIP: mpirun -np 3: OpenMPI is not installed (apt-get install openmpi-bin)"
fi
echo "$n passed, 0 failed"
