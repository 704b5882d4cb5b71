#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-sim from its command line: determinism, bad input, sweeps, a
3-tier fabric with a switch failure and convergence, .cm failure lines,
the JSON stream, failed runs, and per-port time series.

usage: sim_cli_test.py UET_SIM
"""
import argparse
import hashlib
import json
import random
import re
import os
import shlex
import shutil
import struct
import subprocess
import time
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import cases  # noqa: E402
import pcapcheck  # noqa: E402


# Debian's python3, which tools/setup.sh gives matplotlib; the project's
# plotting tools run again under it when theirs has none (tools/mplenv.py).
DEBIAN_PYTHON = "/usr/bin/python3"


def has_matplotlib(py):
    return os.access(py, os.X_OK) and subprocess.run(
        [py, "-c", "import matplotlib"], capture_output=True).returncode == 0


def png_std(png):
    # The spread of a PNG's pixels (0: a blank canvas), by a python that
    # can read it.
    py = sys.executable if has_matplotlib(sys.executable) else DEBIAN_PYTHON
    p = subprocess.run([py, "-c", "import matplotlib.image as i, sys; "
                        "print(i.imread(sys.argv[1]).std())", png],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return float(p.stdout)


def run(exe, args, expect_rc=0):
    p = subprocess.run([exe] + args, capture_output=True, text=True, timeout=300)
    if p.returncode != expect_rc:
        raise AssertionError("exit %d, expected %d: %s\n%s%s" % (
            p.returncode, expect_rc, " ".join(args), p.stdout[-2000:], p.stderr[-2000:]))
    return p


def case_determinism(exe, tmp):
    # The same options and seed give the same bytes; another seed does not.
    base = ["--nodes", "32", "--pattern", "permutation", "--size", "256K", "--iters", "2",
            "--lb", "reps", "--cc", "nscc", "--failure", "random-down:10us:10%:tor-up:for=20us",
            "--verify"]
    outs = []
    for i, seed in enumerate(("5", "5", "6")):
        path = os.path.join(tmp, "d%d.json" % i)
        run(exe, base + ["--seed", seed, "-J", path])
        outs.append(open(path, "rb").read())
    assert outs[0] == outs[1], "same seed, different JSON"
    assert outs[0] != outs[2], "another seed, same JSON"
    rep = json.loads(outs[0])
    assert rep["start"]["timestamp"]["timesecs"] == 0
    end = rep["end"]
    assert end["flow_counts"]["ok"] == 64 and end["verify"]["bad_msgs"] == 0, end["flow_counts"]
    assert end["fabric"]["failures"][0]["links"] == 3, end["fabric"]["failures"]  # 10% of 32


def case_bad_input(exe, tmp):
    bad = [
        (["--failure", "link-down:1us:tor99.up0"], "option '--failure': 'link-down:1us:tor99.up0'"),
        (["--failure", "link-down:1us:spine1.up0"], "no uplinks in 2 tiers"),
        (["--failure", "flood:1us:tor0.up0"], "unknown kind 'flood'"),
        (["--nodes", "10", "--hosts-per-tor", "3"], "option '--nodes'"),
        (["--tiers", "5"], "option '--tiers'"),
        (["--server"], "option '--server': unknown option"),
        (["--pattern", "ring-allreduce", "--duration", "0.001"], "option '--duration'"),
        (["--pattern", "ring-allreduce", "--rate-gbps", "10"], "option '--rate-gbps'"),
        (["--port-series", "tor0.up0:left"], "option '--port-series': 'left': the direction"),
        (["-J", "/nonexistent-dir/x.json"], "option '--json': cannot write /nonexistent-dir/x.json"),
        (["--csv", "/nonexistent-dir/p"], "option '--csv': cannot write /nonexistent-dir/p-timeline"),
        (["--port-series", "tor0"], "option '--port-series': 'tor0' is not a class"),
        (["--port-series", "tor99.up0"], "option '--port-series': 'tor99.up0': switch 99"),
    ]
    for args, want in bad:
        p = run(exe, args, expect_rc=2)
        assert want in p.stderr, (args, p.stderr)
    p = run(exe, ["--help"])
    assert "Usage: uet-sim" in p.stdout and "--failure=SPEC" in p.stdout


def case_sweep(exe, tmp):
    path = os.path.join(tmp, "sweep.json")
    p = run(exe, ["--nodes", "16", "--pattern", "pair", "-b", "64K", "-e", "256K", "-f", "2",
                  "--iters", "4", "-J", path])
    reps = json.load(open(path))
    assert [r["start"]["test_start"]["size_bytes"] for r in reps] == [65536, 131072, 262144]
    assert p.stdout.count("#bytes") == 1, p.stdout
    assert p.stdout.count("simulated") == 3, p.stdout


def loss_run(exe, tmp, tag, args):
    path = os.path.join(tmp, "loss-%s.json" % tag)
    run(exe, ["--nodes", "128", "--pattern", "permutation", "--size", "2M", "--iters", "1",
              "-J", path] + args)
    end = json.load(open(path))["end"]
    assert end["flow_counts"]["ok"] == 128, (tag, end["flow_counts"])
    return end["losses"], end["fabric"]["ports"]


def case_loss_free_no_retx(exe, tmp):
    # uet-sim's default fabric (2 tiers, 400 Gb/s, one-BDP queues) does
    # not trim and here drops nothing: a spraying sender must take none of
    # its reordering for loss, and resends nothing at all.
    for lb in ("ops", "reps", "bitmap"):
        for seed in ("1", "2"):
            l, ports = loss_run(exe, tmp, "free-%s-%s" % (lb, seed), ["--lb", lb, "--seed", seed])
            assert ports["drops_queue"] == 0 and ports["trims"] == 0, (lb, seed, ports)
            assert l["retransmissions"] == 0, (lb, seed, l)


def case_drops_few_spurious(exe, tmp):
    # The same at 100 Gb/s drops packets (tail drop, no trimming): the
    # real losses are found and resent, and at most 5% of the resends
    # (here: none) were taken for lost while only late.
    for lb in ("ops", "reps", "bitmap"):
        for seed in ("1", "2"):
            l, ports = loss_run(exe, tmp, "drop-%s-%s" % (lb, seed),
                                ["--link-gbps", "100", "--lb", lb, "--seed", seed])
            assert ports["drops_queue"] > 0, (lb, seed, ports)
            assert l["retransmissions"] >= ports["drops_queue"], (lb, seed, l, ports)
            assert l["spurious_retx"] * 20 <= l["retransmissions"], (lb, seed, l)


def case_fabric_rate(exe, tmp):
    # --oversub 8 with --fabric-gbps: 2 ToRs of 8 hosts at 100 Gb/s, one
    # uplink each; bisection sends all 8 hosts of a ToR through it. At
    # 100 Gb/s it carries 100 Gb/s each way; at 400 Gb/s four times that.
    got = {}
    for fabric in ("0", "400"):
        path = os.path.join(tmp, "rate-%s.json" % fabric)
        run(exe, ["--nodes", "16", "--hosts-per-tor", "8", "--oversub", "8", "--link-gbps",
                  "100", "--fabric-gbps", fabric, "--pattern", "bisection", "--size", "2M",
                  "--iters", "1", "--lb", "reps", "--verify", "-J", path])
        rep = json.load(open(path))
        fab = rep["start"]["test_start"]["fabric"]
        assert fab["tor_uplinks"] == 1 and fab["t1_switches"] == 1, fab
        assert fab["fabric_bps"] == (400 if fabric == "400" else 100) * 10**9, fab
        assert rep["start"]["test_start"]["link_bps"] == 100 * 10**9
        end = rep["end"]
        assert end["flow_counts"]["ok"] == 16 and end["verify"]["bad_msgs"] == 0, end
        got[fabric] = end["goodput_bps"] / 1e9
    # Each ToR's 8 senders share its one uplink: 2 x 100 Gb/s in all at
    # most when the fabric runs at the hosts' rate, 2 x 400 at 400 Gb/s.
    assert 100 < got["0"] <= 200, got
    assert 3 * got["0"] < got["400"] <= 800, got
    run(exe, ["--nodes", "16", "--oversub", "9"], expect_rc=2)


def case_fpga_failure(exe, tmp):
    # The REPS paper's FPGA link failure as paper_figures.py --figs 11
    # models it, 2 ms of it, switches trimming: OPS keeps spraying an
    # eighth of ToR 0's cross traffic into the dead cable; REPS freezes on
    # each sender's first timeout, so its losses stop within the RTO. The
    # runs are the figure's own (its seed 1).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "tools", "sim"))
    import paper_figures
    fig = paper_figures.FIGS["11"]
    runs = {r.id: r for r in fig.runs(argparse.Namespace(seeds=1))}
    drops = {}
    for lb in ("ops", "reps"):
        path = os.path.join(tmp, "fpga-%s.json" % lb)
        run(exe, runs[fig.rid(True, 2, lb, 1)].args + ["-J", path])
        f = json.load(open(path))["end"]["fabric"]["failures"][0]
        drops[lb] = f["drops_down"]
        if lb == "reps":
            assert f["senders"]["burst_max_ns"] <= 70000, f
            assert f["last_drop_ns"] - f["at_ns"] < 500000, f
    # 2 ms of an eighth of 3.2 Tb/s each way in 8 KiB packets: ~20,000.
    assert drops["ops"] > 10000 and drops["ops"] > 20 * drops["reps"] > 0, drops


def case_three_tier_switch_down(exe, tmp):
    # 128 hosts in a k=8 fat tree; an aggregation switch and a core fail;
    # routing converges after 5 us; REPS with verification.
    path = os.path.join(tmp, "t3.json")
    run(exe, ["--nodes", "128", "--tiers", "3", "--pattern", "permutation", "--size", "512K",
              "--iters", "1", "--lb", "reps", "--verify", "--converge-us", "5",
              "--failure", "switch-down:3us:agg2", "--failure", "switch-down:6us:core1:for=20us",
              "-J", path])
    rep = json.load(open(path))
    end = rep["end"]
    fab = rep["start"]["test_start"]["fabric"]
    assert fab["tiers"] == 3 and fab["tors"] == 32 and fab["t1_switches"] == 32, fab
    assert fab["t2_switches"] == 16, fab
    assert end["flow_counts"]["ok"] == 128 and end["verify"]["checked_msgs"] == 128
    f = end["fabric"]["failures"]
    assert f[0]["switches"] == 1 and f[1]["switches"] == 1, f
    # Convergence bounds the blackhole: nothing dropped there after it.
    assert f[0]["last_drop_ns"] is None or f[0]["last_drop_ns"] <= 3000 + 5000, f[0]


def case_cm_failures(exe, tmp):
    cm = os.path.join(tmp, "f.cm")
    with open(cm, "w") as fh:
        fh.write("Nodes 16\nConnections 4\nFailures 2\n"
                 "0->8 id 1 start 0 size 1000000\n1->9 id 2 start 0 size 1000000\n"
                 "2->10 id 3 start 5 size 1000000\n3->11 id 4 start 5 size 1000000\n"
                 "failure switch_type TOR switch_id 0 link_id 1\n"
                 "failure switch_type TOR switch_id 2 link_id 0 start 3 duration 10\n")
    path = os.path.join(tmp, "cm.json")
    run(exe, ["--nodes", "16", "--pattern", "cm", "--cm", cm, "--lb", "reps", "--verify",
              "-J", path])
    end = json.load(open(path))["end"]
    assert end["flow_counts"]["ok"] == 4, end["flow_counts"]
    f = end["fabric"]["failures"]
    assert len(f) == 2 and f[0]["at_ns"] == 0 and f[1]["at_ns"] == 3000, f
    assert f[0]["drops_down"] > 0, f
    bad = os.path.join(tmp, "bad.cm")
    with open(bad, "w") as fh:
        fh.write("Nodes 16\nConnections 1\nFailures 1\n0->8 id 1 start 0 size 1000\n"
                 "failure switch_type HUB switch_id 0 link_id 1\n")
    p = run(exe, ["--nodes", "16", "--pattern", "cm", "--cm", bad], expect_rc=2)
    assert "bad.cm:5:" in p.stderr and "switch_type TOR|AGG|CORE" in p.stderr, p.stderr


def case_rate(exe, tmp):
    # A permutation paced at 100 Gb/s per stream on 400 Gb/s hosts: the
    # k-th message of each flow is submitted at k x 65536 x 8 / 100 ns
    # (rounded down) exactly, and a duration run delivers the offered
    # 16 x 100 Gb/s.
    path = os.path.join(tmp, "rate.json")
    run(exe, ["--nodes", "16", "--pattern", "permutation", "--size", "64K", "-n", "20",
              "--rate-gbps", "100", "-J", path])
    rep = json.load(open(path))
    assert rep["start"]["test_start"]["rate_bps"] == 100000000000, rep["start"]["test_start"]
    end = rep["end"]
    flows = end["flows"]
    assert len(flows) == 320 and all(f["status"] == "ok" for f in flows), len(flows)
    for f in flows:
        assert f["submit_ns"] == f["id"] // 16 * 65536 * 8 // 100, f
    assert 19 * 5242 < end["completion_ns"] < 19 * 5242 + 10000, end["completion_ns"]
    path = os.path.join(tmp, "rate-d.json")
    run(exe, ["--nodes", "16", "--pattern", "permutation", "--size", "64K", "-D", "0.0005",
              "--rate-gbps", "100", "-J", path])
    end = json.load(open(path))["end"]
    assert abs(end["goodput_bps"] - 1.6e12) < 0.02 * 1.6e12, end["goodput_bps"]
    msgs = end["flow_counts"]["messages"]
    assert 16 * 94 <= msgs <= 16 * 96, msgs


def case_omit(exe, tmp):
    # iperf3 -O: 200 us of warm-up before 400 us measured is the same
    # simulation as a 600 us run (the same timeline, interval by
    # interval); only what the totals, counters and FCTs count differs.
    base = ["--nodes", "16", "--pattern", "permutation", "--size", "64K", "-i", "0.0001"]
    run(exe, base + ["-D", "0.0004", "-O", "0.0002", "-J", os.path.join(tmp, "omit.json")])
    run(exe, base + ["-D", "0.0006", "-J", os.path.join(tmp, "whole.json")])
    a = json.load(open(os.path.join(tmp, "omit.json")))
    b = json.load(open(os.path.join(tmp, "whole.json")))
    assert a["start"]["test_start"]["omit_ns"] == 200000, a["start"]["test_start"]
    assert a["end"]["timeline"] == b["end"]["timeline"], (a["end"]["timeline"], b["end"]["timeline"])
    assert [i["omitted"] for i in a["intervals"]] == [True] * 2 + [False] * 4, a["intervals"]
    assert not any(i["omitted"] for i in b["intervals"]), b["intervals"]
    for r in (a, b):
        end, kept = r["end"], [i for i in r["intervals"] if not i["omitted"]]
        # Every byte and resend is in exactly one interval, the last
        # bin's too (the sample at the run's end goes to the bin it ends).
        assert end["bytes_rx"] == sum(i["bytes_rx"] for i in kept), end["bytes_rx"]
        assert end["bytes_tx"] == sum(i["bytes_tx"] for i in kept), end["bytes_tx"]
        assert end["transport"]["tx_retx_pkts"] == sum(i["retransmits"] for i in kept), kept
        assert end["transport"]["tx_data_bytes"] == end["bytes_tx"], end["transport"]
        assert end["transport"]["rx_data_bytes"] == end["bytes_rx"], end["transport"]
        assert end["fct"]["count"] == end["flow_counts"]["messages"], end["fct"]
    ea, eb = a["end"], b["end"]
    assert (ea["duration_ns"], ea["omitted_ns"]) == (400000, 200000), ea["duration_ns"]
    assert (eb["duration_ns"], eb["omitted_ns"]) == (600000, 0), eb["duration_ns"]
    # Two thirds of the run measured: about two thirds of its messages.
    ratio = ea["fct"]["count"] / eb["fct"]["count"]
    assert 0.6 < ratio < 0.72, (ea["fct"]["count"], eb["fct"]["count"])
    assert (ea["transport"]["pdcs_opened"], eb["transport"]["pdcs_opened"]) == (0, 32)
    assert ea["losses"]["ecn_marks"] < eb["losses"]["ecn_marks"], (ea["losses"], eb["losses"])
    # Goodput over the measured time only.
    want = ea["bytes_rx"] * 8 / (ea["completion_ns"] - 200000) * 1e9
    assert abs(ea["goodput_bps"] / want - 1) < 1e-9, (ea["goodput_bps"], want)
    # A warm-up needs streams of a set length.
    p = run(exe, ["--nodes", "16", "-O", "0.0001"], expect_rc=2)
    assert "option '--omit'" in p.stderr and "needs --duration" in p.stderr, p.stderr
    p = run(exe, ["--nodes", "16", "--pattern", "websearch", "-D", "0.001", "-O", "0.0001"],
            expect_rc=2)
    assert "option '--omit'" in p.stderr, p.stderr


def case_stream_and_failure_exit(exe, tmp):
    p = run(exe, ["--nodes", "16", "--pattern", "permutation", "--size", "1M", "--duration",
                  "0.0002", "-i", "0.00005", "--bin-us", "10", "--json-stream"])
    ev = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    kinds = [e["event"] for e in ev]
    assert kinds[0] == "start" and kinds[-1] == "end", kinds
    assert kinds.count("interval") == 4, kinds
    assert ev[-1]["data"]["flow_counts"]["messages"] > 16, ev[-1]["data"]["flow_counts"]
    # Every host cable down for good: every flow fails, exit 1.
    p = run(exe, ["--nodes", "16", "--pattern", "pair", "--size", "64K", "--iters", "2",
                  "--failure", "random-down:0:100%:host"], expect_rc=1)
    assert "flows            2 local: 0 ok" in p.stdout, p.stdout


def case_eqds_large_message(exe, tmp):
    # Under a credit CC a message of 2^31 bytes or more is asked for in
    # steps (UET_CREDIT_AHEAD_MAX beyond the grant): before, its need read
    # as behind in serial-number order, no request went out and the run
    # stopped with the flow pending after the speculative window.
    size = (1 << 31) + (1 << 20)
    p = run(exe, ["--nodes", "2", "--pattern", "pair", "--size", str(size), "--iters", "1",
                  "--cc", "eqds", "-J", os.path.join(tmp, "big.json")])
    end = json.load(open(os.path.join(tmp, "big.json")))
    end = (end[-1] if isinstance(end, list) else end)["end"]
    assert end["flow_counts"]["ok"] == 1 and end["flow_counts"]["pending"] == 0, p.stdout
    assert "1 local: 1 ok (%d B)" % size in p.stdout, p.stdout
    # Paced by the grants near the line rate: 2 GiB at 400 Gb/s is 43 ms.
    assert 43e6 < end["completion_ns"] < 50e6, end["completion_ns"]


def case_eqds_slow_pulls(exe, tmp):
    # One 64 KiB message at a time on one PDC: without slow pulls each
    # after the first asks for credit and waits a round trip for it; with
    # them (the default) the receiver has granted the idle sender credit
    # ahead and the message goes at once, as fast as under a window CC.
    base = ["--nodes", "2", "--pattern", "pair", "--size", "64K", "--iters", "20",
            "--parallel", "1"]
    ends, out = {}, {}
    for name, extra in (("nscc", ["--cc", "nscc"]), ("slow", ["--cc", "eqds"]),
                        ("off", ["--cc", "eqds", "--eqds-slow-pulls=false"])):
        path = os.path.join(tmp, name + ".json")
        out[name] = run(exe, base + extra + ["-J", path]).stdout
        ends[name] = json.load(open(path))["end"]
        assert ends[name]["flow_counts"]["ok"] == 20, out[name]
    t = {k: e["transport"] for k, e in ends.items()}
    ns = {k: e["completion_ns"] for k, e in ends.items()}
    assert t["slow"]["credit_idle_bytes"] > 0 and t["off"]["credit_idle_bytes"] == 0, t
    assert " B ahead to idle senders)" in out["slow"], out["slow"]
    # 19 messages ask either way, none twice.
    for k in ("slow", "off"):
        assert t[k]["tx_credit_req_pkts"] == 19 and t[k]["credit_retries"] == 0, t[k]
    assert ns["slow"] < 0.7 * ns["off"], ns
    assert ns["slow"] < 1.05 * ns["nscc"], ns


def case_pingpong(exe, tmp):
    # On an idle fabric a round trip is two one-way trips and nothing else
    # (the simulated host answers at once): each the receiver's FCT of the
    # same message sent alone. 64 KiB take 15 more 4 KiB packets than 4
    # KiB, so their one-way time is longer by those bytes' serialisation.
    one_way, out = {}, ""
    for size in (4096, 65536):
        pp = os.path.join(tmp, "pp-%d.json" % size)
        pair = os.path.join(tmp, "pair-%d.json" % size)
        out = run(exe, ["--nodes", "16", "--pattern", "pingpong", "--size", str(size),
                        "--iters", "50", "--verify", "-J", pp]).stdout
        run(exe, ["--nodes", "16", "--pattern", "pair", "--size", str(size), "--iters", "1",
                  "-J", pair])
        rep = json.load(open(pp))
        end = rep["end"]
        lat = end["latency"]
        assert lat["round_trips"] == 50 and end["flow_counts"]["ok"] == 100, lat
        assert end["verify"] == {"checked_msgs": 100, "bad_msgs": 0}, end["verify"]
        alone = json.load(open(pair))["end"]["fct_recv"]["min_ns"]
        rtt = lat["rtt"]
        # (a few ns of integer rounding in the link model)
        assert abs(rtt["min_ns"] - 2 * alone) <= 4 and rtt["max_ns"] - rtt["min_ns"] <= 4, \
            (rtt, alone)
        assert lat["one_way_p50_ns"] == rtt["p50_ns"] // 2, lat
        one_way[size] = lat["one_way_p50_ns"]
        link_bps = rep["start"]["test_start"]["link_bps"]
        row = [l.split() for l in out.splitlines() if l.strip()[:1].isdigit()]
        assert out.count("t_typical[usec]") == 1 and len(row) == 1, out
        assert int(row[0][0]) == size and int(row[0][1]) == 50, row
        assert abs(float(row[0][4]) * 1000 - one_way[size]) <= 1, (row, lat)
    extra_ns = (65536 - 4096) * 8 / link_bps * 1e9
    assert extra_ns < one_way[65536] - one_way[4096] < 1.1 * extra_ns, (one_way, extra_ns)
    # For a duration (-D): the same round trip, and as many as fit.
    pp = os.path.join(tmp, "pp-dur.json")
    out = run(exe, ["--nodes", "16", "--pattern", "pingpong", "--size", "4096", "-D",
                    "0.0002", "--verify", "-J", pp]).stdout
    end = json.load(open(pp))["end"]
    lat = end["latency"]
    rtt_ns = 2 * one_way[4096]
    assert abs(lat["rtt"]["p50_ns"] - rtt_ns) <= 4 and lat["rtt"]["max_ns"] - \
        lat["rtt"]["min_ns"] <= 4, (lat, rtt_ns)
    assert abs(lat["round_trips"] - 200000 // lat["rtt"]["p50_ns"]) <= 1, lat
    assert end["verify"]["bad_msgs"] == 0, end["verify"]
    row = [l.split() for l in out.splitlines() if l.strip()[:1].isdigit()]
    assert int(row[0][1]) == lat["round_trips"], (row, lat)
    # A sweep: one latency table, a row per size, a report per size.
    path = os.path.join(tmp, "ppsweep.json")
    out = run(exe, ["--nodes", "2", "--pattern", "pingpong", "-a", "-e", "4K", "--iters",
                    "10", "-J", path]).stdout
    reps = json.load(open(path))
    assert [r["start"]["test_start"]["size_bytes"] for r in reps] == [2 << i for i in
                                                                      range(12)]
    assert all(r["end"]["latency"]["round_trips"] == 10 for r in reps)
    assert out.count("t_typical[usec]") == 1, out
    rows = [l.split() for l in out.splitlines() if l.strip()[:1].isdigit()]
    assert [int(r[0]) for r in rows] == [2 << i for i in range(12)], out
    # No other pattern reports a latency.
    path = os.path.join(tmp, "nolat.json")
    run(exe, ["--nodes", "2", "--pattern", "pair", "--iters", "2", "-J", path])
    assert "latency" not in json.load(open(path))["end"]


def case_port_series(exe, tmp):
    # 64 hosts (8 ToRs x 8 uplinks), a permutation; ToR 0's uplink 0 is
    # down from 20 to 60 us. The series change nothing in the run, their
    # bytes add up, utilisation stays within the line rate, and the dead
    # cable carries nothing while it is down.
    base = ["--nodes", "64", "--pattern", "permutation", "--size", "1M", "--iters", "1",
            "--lb", "reps", "--seed", "3", "--failure", "link-down:20us:tor0.up0:for=40us"]
    plain, ser = os.path.join(tmp, "p.json"), os.path.join(tmp, "s.json")
    run(exe, base + ["-J", plain])
    run(exe, base + ["-J", ser, "--csv", os.path.join(tmp, "s"), "--port-series",
                     "tor0.up0:both,tor-up,host3:down", "--series-us", "5"])
    a, b = json.load(open(plain))["end"], json.load(open(ser))["end"]
    assert a["completion_ns"] == b["completion_ns"]
    assert [f["fct_ns"] for f in a["flows"]] == [f["fct_ns"] for f in b["flows"]]
    series = b["fabric"]["series"]
    names = [p["port"] for p in series["ports"]]
    # tor0.up0 both ways, then the other 63 ToR uplinks (tor0.up0 once), host 3's
    # downlink: 8 ToRs x 8 uplinks + 1 + 1.
    assert names[:2] == ["tor0.up0", "tor0.up0:down"], names[:3]
    assert len(names) == 66 and names[-1] == "host3:down", (len(names), names[-1])
    assert series["interval_ns"] == 5000 and not series["truncated"]
    n = series["samples"]
    assert n * 5000 >= b["completion_ns"], (n, b["completion_ns"])
    busy = 0
    for p in series["ports"]:
        assert len(p["util"]) == n and len(p["queue_max_bytes"]) == n
        assert max(p["util"]) <= 1.0 + 1e-9, (p["port"], max(p["util"]))
        assert all(q <= m for q, m in zip(p["queue_bytes"], p["queue_max_bytes"]))
        busy += sum(p["util"]) > 0
    assert busy > 60, busy
    for p in series["ports"][:2]:
        # samples ending at 30..60 us lie inside the failure
        assert all(u == 0 for u in p["util"][5:12]), (p["port"], p["util"][:14])
        assert max(p["util"][:4]) > 0.3, (p["port"], p["util"][:4])
    rows = open(os.path.join(tmp, "s-ports.csv")).read().splitlines()
    assert rows[0] == "t_us,port,util,queue_bytes,queue_max_bytes"
    assert len(rows) == 1 + 66 * n
    assert rows[1].startswith("5.000,tor0.up0,"), rows[1]


def case_mixed_ecmp(exe, tmp):
    # Hosts 0, N, 2N, ... run ECMP whatever --lb says: with N = 1 every
    # host does, and the run is the ECMP run to the byte.
    base = ["--nodes", "32", "--pattern", "permutation", "--size", "256K", "--iters", "1",
            "--seed", "4"]
    outs = []
    for i, extra in enumerate((["--lb", "ecmp"], ["--lb", "reps", "--ecmp-every", "1"],
                               ["--lb", "reps", "--ecmp-every", "4"])):
        path = os.path.join(tmp, "m%d.json" % i)
        run(exe, base + extra + ["-J", path])
        outs.append(json.load(open(path)))
    assert outs[0]["end"]["flows"] == outs[1]["end"]["flows"]
    assert outs[2]["end"]["flows"] != outs[1]["end"]["flows"]
    assert outs[2]["start"]["test_start"]["ecmp_every"] == 4
    # --ecmp-hosts names them instead (the sources of a matrix's every
    # tenth line, as htsim picks them): the same hosts, the same run; one
    # more host, another run; a host past the fabric is refused.
    for i, (hosts, same) in enumerate((("0,4,8,12,16,20,24,28", True),
                                       ("0-3,4,8,12,16,20,24,28", False))):
        path = os.path.join(tmp, "h%d.json" % i)
        run(exe, base + ["--lb", "reps", "--ecmp-hosts", hosts, "-J", path])
        rep = json.load(open(path))
        assert (rep["end"]["flows"] == outs[2]["end"]["flows"]) is same, hosts
        assert rep["start"]["test_start"]["ecmp_hosts"] == hosts
    assert outs[2]["start"]["test_start"]["ecmp_hosts"] == ""
    p = subprocess.run([exe] + base + ["--lb", "reps", "--ecmp-hosts", "3,32"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "option '--ecmp-hosts': host 32, but the fabric has 32 " \
        "hosts (0-31)" in p.stderr, (p.returncode, p.stderr)
    # --ar-tie-first reaches the switches only under --lb ar.
    path = os.path.join(tmp, "ar.json")
    for lb, want in (("ar", True), ("reps", False)):
        run(exe, base + ["--lb", lb, "--ar-tie-first", "-J", path])
        fab = json.load(open(path))["start"]["test_start"]["fabric"]
        assert fab["ar_tie_first"] is want and fab["adaptive_routing"] is want, fab


def case_shuffle_ties(exe, tmp):
    # An incast 8:1 whose senders start together on a fabric where their
    # packets meet nowhere before the receiver's downlink (8 of a ToR's 32
    # uplinks): every packet of theirs reaches that queue in the same
    # picosecond. In scheduling order (htsim's) the first-created flow's
    # packet always gets in and the others' drop, so it finishes 3-4x
    # sooner than the rest; with --shuffle-ties a fair draw admits them,
    # and every flow ends within 25% of the last.
    base = ["--profile", "reps-paper", "--nodes", "1024", "--pattern", "incast",
            "--fanin", "8", "--root", "511", "--size", "4M", "--iters", "1", "--lb", "reps"]
    first_won = 0
    for seed in ("1", "2", "3"):
        for shuffle in (False, True):
            path = os.path.join(tmp, "t%s%d.json" % (seed, shuffle))
            run(exe, base + ["--seed", seed, "-J", path]
                + (["--shuffle-ties"] if shuffle else []))
            rep = json.load(open(path))
            assert rep["start"]["test_start"]["fabric"]["shuffle_ties"] is shuffle
            flows = rep["end"]["flows"]
            assert [f["src"] for f in flows] == list(range(512, 520)), flows
            fct = [f["fct_ns"] for f in flows]
            assert rep["end"]["flow_counts"]["ok"] == 8
            if not shuffle:
                assert fct[0] == min(fct) and fct[0] < 0.35 * max(fct), (seed, fct)
            else:
                assert min(fct) > 0.75 * max(fct), (seed, fct)
                first_won += fct[0] == min(fct)
    assert first_won < 3, first_won


def case_paper_figures(exe, tmp):
    # tools/sim/paper_figures.py: a figure run, its table from the cache,
    # the cluster job list and Slurm array over the same runs.
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "tools", "sim", "paper_figures.py")
    out = os.path.join(tmp, "pf")
    base = [sys.executable, script, "--figs", "4", "--seeds", "1", "--jobs", "2",
            "--out-dir", out, "--uet-sim", exe]
    p = subprocess.run(base, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    line = [x for x in p.stdout.splitlines() if x.startswith("OPS / REPS: ")]
    assert line and float(line[0].split()[3].rstrip("x")) >= 1.5, p.stdout
    assert "| REPS | " in p.stdout and "| 799 |" in p.stdout, p.stdout
    if has_matplotlib(sys.executable) or has_matplotlib(DEBIAN_PYTHON):
        png = os.path.join(out, "fig4.png")
        assert os.path.getsize(png) > 5000, png
    else:
        assert "tables only" in p.stderr, p.stderr
    rt = os.path.join(tmp, "retx.md")
    q = subprocess.run(base + ["--merge", "--retx", rt], capture_output=True, text=True,
                       timeout=60)
    assert q.returncode == 0 and q.stdout == p.stdout, q.stderr
    # --retx: one row per scenario, the report's own counts.
    rows = {x.split(" | ")[0].lstrip("| "): x.split(" | ")
            for x in open(rt).read().splitlines()[2:]}
    assert sorted(rows) == ["f4-%s" % lb for lb in sorted(("ecmp", "ops", "bitmap", "reps",
                                                             "mprdma"))], rows
    rep = json.load(open(os.path.join(out, "f4-ops-1.json")))
    rep = rep[-1] if isinstance(rep, list) else rep
    assert rows["f4-ops"][1] == "1", rows
    assert int(rows["f4-ops"][2]) == rep["end"]["losses"]["network_drops"] > 0, rows
    assert int(rows["f4-ops"][4]) == rep["end"]["losses"]["retransmissions"] > 0, rows
    # The cache holds a report only with the key it was made under: this
    # binary's hash and these arguments. Another build's report is stale:
    # --merge refuses it (unless --any-build, a cluster's), a run redoes it.
    key = os.path.join(out, "f4-ops-1.key")
    lines = open(key).read().splitlines()
    assert lines[0] == "uet-sim sha256 " + hashlib.sha256(open(exe, "rb").read()).hexdigest()
    assert lines[1].startswith("--profile reps-paper ") and " --lb ops " in lines[1], lines
    with open(key, "w") as f:
        f.write("uet-sim sha256 %s\n%s\n" % ("0" * 64, lines[1]))
    q = subprocess.run(base + ["--merge"], capture_output=True, text=True, timeout=60)
    assert q.returncode == 1 and "f4-ops-1: the report in" in q.stderr and \
        "another uet-sim build" in q.stderr, q.stderr
    q = subprocess.run(base + ["--merge", "--any-build"], capture_output=True, text=True,
                       timeout=60)
    assert q.returncode == 0 and q.stdout == p.stdout, q.stderr
    os.utime(os.path.join(out, "f4-ops-1.json"), (0, 0))
    q = subprocess.run(base, capture_output=True, text=True, timeout=120)
    assert q.returncode == 0 and q.stdout == p.stdout, q.stderr
    assert "5 runs, 4 cached" in q.stderr and "1 stale" in q.stderr, q.stderr
    assert os.stat(os.path.join(out, "f4-ops-1.json")).st_mtime > 0
    assert open(key).read().splitlines() == lines
    # Behind tools/bench/bundle.sh's wrapper script, the binary it runs
    # names the build: the same binary's reports are fresh.
    bundle = os.path.join(tmp, "bundle")
    os.makedirs(os.path.join(bundle, "bin"))
    os.makedirs(os.path.join(bundle, "libexec"))
    shutil.copy(exe, os.path.join(bundle, "libexec", "uet-sim"))
    wrapper = os.path.join(bundle, "bin", "uet-sim")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\nexec "$(dirname "$0")/../libexec/uet-sim" "$@"\n')
    os.chmod(wrapper, 0o755)
    q = subprocess.run(base + ["--merge", "--uet-sim", wrapper], capture_output=True,
                       text=True, timeout=60)
    assert q.returncode == 0 and q.stdout == p.stdout, q.stderr
    # ... and the arguments: a key for other ones is stale whatever the binary.
    with open(key, "w") as f:
        f.write("%s\n%s\n" % (lines[0], lines[1].replace("--lb ops", "--lb reps")))
    q = subprocess.run(base + ["--merge", "--any-build"], capture_output=True, text=True,
                       timeout=60)
    assert q.returncode == 1 and "f4-ops-1: the report in" in q.stderr, q.stderr
    jl, sl = os.path.join(tmp, "jobs.txt"), os.path.join(tmp, "figs.sbatch")
    r = subprocess.run(base + ["--joblist", jl], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert len(open(jl).read().splitlines()) == 5
    # A job line, as GNU parallel or the Slurm array runs it, writes the
    # report and then its key, which --merge takes.
    ops = [c for c in open(jl).read().splitlines() if "/f4-ops-1.json" in c]
    assert len(ops) == 1
    r = subprocess.run(["sh", "-c", ops[0]], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and open(key).read().splitlines() == lines, r.stderr
    q = subprocess.run(base + ["--merge"], capture_output=True, text=True, timeout=60)
    assert q.returncode == 0 and q.stdout == p.stdout, q.stderr
    r = subprocess.run(base + ["--slurm", sl], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "#SBATCH --array=0-4" in open(sl).read()
    # --sim-arg: one more uet-sim argument for every run, in its key, and
    # in the merge line the Slurm script suggests.
    r = subprocess.run(base + ["--sim-arg=--sack-repeat", "--slurm", sl],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cmds = open(sl + ".jobs").read().splitlines()
    assert len(cmds) == 5 and all(" --seed 1 --sack-repeat -J " in c and
                                  " --seed 1 --sack-repeat'; } > " in c for c in cmds), cmds
    assert "--setup paper --sim-arg=--sack-repeat --out-dir" in open(sl).read()
    r = subprocess.run(base + ["--figs", "9"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "unknown figure '9'" in r.stderr, r.stderr
    # --setup artifact: the artifact's RTO (without backoff, as its timer)
    # and trimming on the same figure, cached beside the profile's runs
    # under their own names.
    r = subprocess.run(base + ["--setup", "artifact", "--joblist", jl], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cmds = open(jl).read().splitlines()
    assert len(cmds) == 10 and all("--rto-ns 41500 --rto-backoff=no --trim" in c and
                                   "--link-latency-ns 1000 --switch-latency-ns 0" in c
                                   for c in cmds), cmds
    # ... the text's scenario, and the artifact's own (fig_3_asymmertic_micro.py:
    # 4 flows on its 3-tier fabric, -failed 1).
    assert sum("/art-f4-" in c for c in cmds) == 5, cmds
    assert sum("/art-f4m-" in c and "--tiers 3" in c and
               "link-rate:0:tor0.up0:200:dir=up" in c and
               "link-rate:0:agg0.up0:200:dir=down" in c and "art-symm32-" in c
               for c in cmds) == 5, cmds
    # Every figure draws its PNG (the paper's values marked beside ours).
    sys.path.insert(0, os.path.dirname(script))
    import paper_figures
    assert all(callable(f.plot) for f in paper_figures.FIGS.values()), [
        k for k, f in paper_figures.FIGS.items() if not callable(f.plot)]
    # Fig. 15's whiskers pair each seed with its own 65535-EV run: at 32
    # EVs seed 1 is +100% and seed 2 +0%, while the table's mean over mean
    # is (200 + 200) / (100 + 200) - 1 = +33.3%.
    f15 = paper_figures.FIGS["15"]
    fake = {"f15-ev%s-ops-%d" % (k, s): {"fct_max_us": v}
            for k, vals in (("32", (200.0, 200.0)), ("256", (150.0, 200.0)),
                            ("65535", (100.0, 200.0))) for s, v in zip((1, 2), vals)}
    st = f15.ev_stats(argparse.Namespace(seeds=2), fake, "ops")
    assert [tuple(round(x, 1) for x in m) for m in st] == [
        (33.3, 0.0, 100.0), (16.7, 0.0, 50.0), (0.0, 0.0, 0.0)], st
    # A ratio of means outside the per-seed range gets an empty whisker on
    # that side, never a negative one (which matplotlib rejects).
    assert paper_figures.range_err([(5.0, 1.0, 9.0), (3.0, 4.0, 6.0)]) == \
        [[4.0, 0.0], [4.0, 3.0]]
    r = subprocess.run(base + ["--setup", "artifact", "--figs", "A"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "figure A are not known" in r.stderr, r.stderr
    # Fig. 8 as run_all_failure.py runs run_failures.py: 8 failure modes
    # from the start, 6 load balancers, on its permutation matrix
    # (gen_permutation.py, seed 42, line for line), a 100% trace per seed
    # and its ring all-reduce, beside the text's 5 modes under the
    # artifact's settings.
    r = subprocess.run(base + ["--setup", "artifact", "--figs", "8", "--joblist", jl],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cmds = open(jl).read().splitlines()
    art = [c for c in cmds if "/art-f8a-" in c]
    assert len(cmds) == 30 + 3 * 48 and len(art) == 48, cmds
    dc = [c for c in cmds if "/art-f8d-" in c]
    ring = [c for c in cmds if "/art-f8r-" in c]
    assert len(dc) == len(ring) == 48 and all("/art-dc32-1.0-1.cm " in c for c in dc) and \
        all("/art-ring32-" in c for c in ring), (dc, ring)
    trace = open(dc[0].split(" --cm ")[1].split()[0]).read().splitlines()
    assert trace[0] == "Nodes 32" and int(trace[1].split()[1]) == len(trace) - 2 > 1000
    assert all(x.split()[0].split("->")[0] != x.split()[0].split("->")[1] for x in trace[2:])
    assert max(float(x.split()[2]) for x in trace[2:]) < 3500, trace[-1]
    assert all("--ecn-kmin-pct 25 --ecn-kmax-pct 75" in c and "--trim" not in c and
               "--rto-ns 41500" in c for c in cmds), cmds
    assert {c.split(" --lb ")[1].split()[0] for c in art} == {
        "ops", "plb", "mprdma", "bitmap", "reps", "flowlet"}, art
    one = [c for c in art if "/art-f8a-5-reps-1.json" in c]
    assert len(one) == 1 and "--failure random-down:0:25%:spine --failure " \
        "random-down:0:9.375%:tor-up:dir=up " in one[0], one
    ber = [c for c in art if "/art-f8a-7-ops-1.json" in c]
    assert len(ber) == 1 and "--failure ber:0:100%:tor-up:2.993e-07 --failure " \
        "ber:0:100%:host:2.993e-07:dir=down " in ber[0], ber
    cm = one[0].split(" --cm ")[1].split()[0]
    lines = open(cm).read().splitlines()
    assert lines[:4] == ["Nodes 32", "Connections 32", "26->23 id 1 start 0 size 8388608",
                         "5->25 id 2 start 0 size 8388608"], lines
    pairs = [x.split()[0].split("->") for x in lines[2:]]
    assert sorted(int(p[0]) for p in pairs) == list(range(32)) and \
        sorted(int(p[1]) for p in pairs) == list(range(32)) and \
        all(p[0] != p[1] for p in pairs), pairs
    # The paper's 8 modes run under the profile too, without the artifact's
    # settings.
    r = subprocess.run(base + ["--figs", "8", "--joblist", jl], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    cmds = open(jl).read().splitlines()
    assert len(cmds) == 30 + 3 * 48 and sum("/f8a-5-reps-1.json" in c for c in cmds) == 1 and \
        not any("--rto-ns 41500" in c or
                os.path.basename(c.split(" -J ")[1].split(";")[0]).startswith("art-")
                for c in cmds), cmds
    # Fig. 15's OPS cells over 20 of gen_permutation.py's matrices (its
    # seeds 42 and 1-19) on the 128-host fabric, under fig_12_evs_cc.py's
    # settings.
    r = subprocess.run(base + ["--setup", "artifact", "--figs", "15p", "--seeds", "2",
                               "--joblist", jl], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cmds = open(jl).read().splitlines()
    assert len(cmds) == 20 * 2 * 2 and all(
        "--nodes 128 --pattern cm --cm " in c and " --lb ops " in c and
        "--trim --ecn-kmin-pct 25 --ecn-kmax-pct 75" in c for c in cmds), cmds[:2]
    assert sum("--ev-base 49152 --ev-count 32 --seed" in c for c in cmds) == 40
    cms = {c.split(" --cm ")[1].split()[0] for c in cmds}
    assert len(cms) == 20, cms
    one = [c for c in cmds if "/art-f15p-r42-ev32-ops-1.json" in c]
    assert len(one) == 1
    lines = open(one[0].split(" --cm ")[1].split()[0]).read().splitlines()
    assert lines[:3] == ["Nodes 128", "Connections 128", "9->44 id 1 start 0 size 8388608"], \
        lines[:3]
    pairs = [x.split()[0].split("->") for x in lines[2:]]
    assert sorted(int(p[1]) for p in pairs) == list(range(128)) and \
        all(p[0] != p[1] for p in pairs), pairs
    # Fig. 15 itself runs that seed-42 matrix under the artifact's
    # settings (run_symmetric.py writes fig_12_evs_cc.py's
    # perm_n128_s8388608.cm so), uet-sim's permutation under the profile.
    art15 = [c for c in cmds if "/art-f15p-r42-" in c][0].split(" --cm ")[1].split()[0]
    for setup, want in (("artifact", "--pattern cm --cm %s --iters 1" % art15),
                        ("paper", "--pattern permutation --size 8M --iters 1")):
        r = subprocess.run(base + ["--setup", setup, "--figs", "15", "--joblist", jl],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        c15 = open(jl).read().splitlines()
        assert len(c15) == 14 and all(want in c for c in c15), (setup, c15[:2])
    # So does every other permutation the artifact ran (run_symmetric.py's
    # perm_n<hosts>_s<size>.cm): Figs. 3, 3s, 5 and 6 at 4, 8 and 16 MiB,
    # on 128 and 1024 hosts; the profile keeps a permutation per seed.
    for scale, hosts in (("quick", 128), ("paper", 1024)):
        r = subprocess.run(base + ["--setup", "artifact", "--figs", "3,3s,5,6", "--scale",
                                   scale, "--joblist", jl], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        cmds = open(jl).read().splitlines()
        assert not any("--pattern permutation" in c for c in cmds), cmds
        perm = [c for c in cmds if "-permutation-" in c.split(" -J ")[1].split(";")[0]]
        assert len(perm) == 9 + 6 + 27 + 27, len(perm)
        for c in perm:
            rid = os.path.basename(c.split(" -J ")[1].split(";")[0])
            size = 8 << 20
            for tag, val in (("-4M-", 4 << 20), ("-8M-", 8 << 20), ("-16M-", 16 << 20)):
                if tag in rid:
                    size = val
            n = hosts if rid.startswith(("art-f3-", "art-f3s-")) else 128
            lines = open(c.split(" --cm ")[1].split()[0]).read().splitlines()
            assert lines[:2] == ["Nodes %d" % n, "Connections %d" % n] and \
                len(lines) == n + 2 and all(x.endswith(" size %d" % size) for x in lines[2:]), \
                (rid, lines[:3])
            assert n != 128 or lines[2] == "9->44 id 1 start 0 size %d" % size, (rid, lines[2])
    r = subprocess.run(base + ["--figs", "3,3s,5,6", "--joblist", jl], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    cmds = open(jl).read().splitlines()
    assert sum("--pattern permutation --size 8M --iters 1" in c for c in cmds) == 9 + 2 + 9 + 2 \
        and not any("/art-perm" in c for c in cmds), cmds
    # Its table: each seed's slowdown paired with the same seed's 65535-EV
    # run; matrix 42 +80 / +90%, the others +60 / +70%.
    fa = argparse.Namespace(seeds=2, scale="quick")
    res = {}
    for m in paper_figures.ART15P_RSEEDS:
        for s in (1, 2):
            res["f15p-r%d-ev65535-ops-%d" % (m, s)] = {"fct_max_us": 100.0}
            res["f15p-r%d-ev32-ops-%d" % (m, s)] = {
                "fct_max_us": 150.0 + 10 * s + (20 if m == 42 else 0)}
    t = paper_figures.FIGS["15p"].table(fa, res)
    assert "| 42 | +85.0% | +80.0 to +90.0% |" in t and "| 7 | +65.0% | +60.0 to +70.0% |" in t
    assert any(x.startswith("\nAll 40 runs: mean +66.0%, 10th-90th percentile +60.0 to +70.0%; "
                            "21 of them (52%) at or above the paper's +64%") for x in t), t
    assert any(x.startswith("The matrices' means spread by 4.5 points (standard deviation); "
                            "the runs' own spread alone would give 5.0.") for x in t), t
    # Fig. 11b, the FPGA testbed's link failure as modelled: 2 ToRs of 64
    # hosts at 100 Gb/s under 8 spines at 400, 2, 5 and 10 ms of a dead
    # cable, switches dropping or trimming; the profile only.
    r = subprocess.run(base + ["--figs", "11", "--joblist", jl], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cmds = open(jl).read().splitlines()
    assert len(cmds) == 3 * 2 * 2 and all(
        "--nodes 128 --hosts-per-tor 64 --oversub 8 --link-gbps 100 --fabric-gbps 400 "
        "--mtu 8192 --pattern bisection --duration " in c and
        "--failure link-down:1ms:tor0.up0" in c for c in cmds), cmds[:2]
    assert sum(" --trim " in c for c in cmds) == 6 and \
        sum("--duration 0.011 --lb reps" in c for c in cmds) == 2, cmds
    r = subprocess.run(base + ["--setup", "artifact", "--figs", "11", "--joblist", jl],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "figure 11 are not known" in r.stderr, r.stderr
    # Its table: the failed link's drops per load balancer, their ratio.
    res = {}
    for trim in (False, True):
        for ms in paper_figures.FIG11_LENGTHS_MS:
            for lb in ("ops", "reps"):
                res[paper_figures.Fig11.rid(trim, ms, lb, 1)] = {"failures": [{
                    "at_ns": 1000000, "drops_down": 1000 * ms if lb == "ops" else 50,
                    "last_drop_ns": 1000000 + (70000 if trim else 1000 * ms * 1000),
                    "senders": {"n": 3 if lb == "reps" else 128}}]}
    t = paper_figures.FIGS["11"].table(argparse.Namespace(seeds=1, scale="quick"), res)
    assert "| drop | 10 ms | 10000 | 50 | 200.0x | 3.0 of 128 | 10000 |" in t, t
    assert "| trim | 2 ms | 2000 | 50 | 40.0x | 3.0 of 128 | 70 |" in t, t
    # Fig. 2 as fig_1_symmetric_micro.py: its connection matrix, written
    # beside the runs, ToR 0 to ToR 8 of 128 hosts.
    r = subprocess.run(base + ["--setup", "artifact", "--figs", "2", "--joblist", jl],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cmds = open(jl).read().splitlines()
    cm = os.path.join(out, "test_symm16.cm")
    assert len(cmds) == 2 and all("--pattern cm --cm %s" % cm in c and "--trim" in c
                                  for c in cmds), cmds
    lines = open(cm).read().splitlines()
    assert lines[:2] == ["Nodes 128", "Connections 8"] and lines[-1] == \
        "7->71 start 0 size 16777216", lines
    # Fig. 5 as run_all_asy.py: 128 hosts, the uplinks of ToRs 0, 4, 8, 12
    # to spine 0 at half rate one way, 9 workloads x 9 load balancers.
    r = subprocess.run(base + ["--setup", "artifact", "--figs", "5", "--joblist", jl],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cmds = open(jl).read().splitlines()
    ai = [c for c in cmds if any("/art-%s-" % k in c for k in ("alltoall4", "ring", "bfly"))]
    dc = [c for c in cmds if "/dc-32-" in c]
    synth = [c for c in cmds if c not in ai and c not in dc]
    assert len(synth) == 81 and all(
        "--nodes 128" in c and "--ar-tie-first" in c and
        all("link-rate:0:tor%d.up0:200:dir=up" % t in c for t in (0, 4, 8, 12))
        for c in synth), synth[:2]
    assert sum("--pattern incast --fanin 8 --root 63" in c for c in synth) == 27
    assert sum("--pattern cm --cm " in c and "/art-perm128-r42-" in c for c in synth) == 27
    assert len(cmds) == len(synth) + len(ai) + len(dc), cmds
    # ... the artifact's collective matrices, 3 x 9, under what its
    # run_collective.py degrades (-failed 4 without -skip_asy: ToR 0's
    # uplinks to spines 0-3), as run_dc.py's traces, 4 loads x 9 load
    # balancers.
    assert len(ai) == 27 and all(
        "--pattern cm" in c and "tor4." not in c and
        all("link-rate:0:tor0.up%d:200:dir=up" % u in c for u in range(4)) for c in ai), ai
    assert len(dc) == 36 and all(
        "/dc-32-" in c and all("link-rate:0:tor0.up%d:200:dir=up" % u in c for u in range(4))
        and "tor4." not in c for c in dc), dc[:2]
    # Fig. 6 as run_bg.py: the same set, healthy, trimming on, on ECMP the
    # sources of each matrix's lines 1, 11, 21, ... (htsim's
    # -mixed_lb_traffic): the permutation's, hosts 0, 10, ... of the
    # tornado, the incast's first sender.
    r = subprocess.run(base + ["--setup", "artifact", "--figs", "6", "--joblist", jl],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cmds = open(jl).read().splitlines()
    assert len(cmds) == 81 and all("--trim" in c and "link-rate" not in c and
                                   "--ecmp-every" not in c for c in cmds), cmds[:2]
    perm_cm = [c for c in cmds if "-permutation-" in c][0].split(" --cm ")[1].split()[0]
    srcs = [x.split("->")[0] for x in open(perm_cm).read().splitlines()[2:]]
    for pat, hosts in (("permutation", ",".join(sorted(srcs[::10], key=int))),
                       ("tornado", ",".join(str(h) for h in range(0, 128, 10))),
                       ("incast", "64")):
        assert sum("-%s-" % pat in c for c in cmds) == 27 and all(
            "--ecmp-hosts %s " % hosts in c for c in cmds if "-%s-" % pat in c), (pat, hosts)
    assert "--ecmp-hosts 9,10,12,14,26,47,52,61,74,83,99,125,126 " in cmds[0], cmds[0]
    # Its table splits each run's flows by the hosts its report put on ECMP.
    start = {"test_start": {"hosts": 128, "ecmp_every": 10, "ecmp_hosts": "3-5,64"}}
    assert paper_figures.ecmp_hosts(start) == set(range(0, 128, 10)) | {3, 4, 5, 64}
    rec = {"ecmp_hosts": {9, 12}, "flows_rec": [{"src": 9, "fct_ns": 5000},
                                                {"src": 12, "fct_ns": 7000},
                                                {"src": 10, "fct_ns": 9000}]}
    assert paper_figures.Fig6.group_max(rec, True) == 7.0 and \
        paper_figures.Fig6.group_max(rec, False) == 9.0
    # Fig. 7 as fig_6_failures_micro.py besides the text's permutation: 4
    # flows of 32 MiB on the 3-tier fabric, what ToR 0 sends up uplinks 1
    # and 3 lost in turn, the fast increase from 650 us (and once without).
    r = subprocess.run(base + ["--setup", "artifact", "--figs", "7", "--joblist", jl],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cmds = open(jl).read().splitlines()
    micro = [c for c in cmds if "/art-f7m-" in c]
    assert len(cmds) == 2 + len(micro) and len(micro) == 4 and all(
        "--tiers 3" in c and "--trim" in c and "--reps-freeze-ns 100000" in c and
        "link-down:100us:tor0.up1:for=100us:dir=up" in c and
        "link-down:350us:tor0.up3:for=250us:dir=up" in c for c in micro), micro
    assert sum("--mprdma-fast-increase-ns 650000" in c for c in micro) == 2
    cm = re.search(r"--cm (\S+art-symm32-\w+\.cm)", micro[0]).group(1)
    lines = open(cm).read().splitlines()
    assert lines[:2] == ["Nodes 128", "Connections 4"] and lines[3:] == [
        "%d->%d id %d start 0 size 33554432" % (i, 64 + i, i + 1) for i in range(4)], lines
    # Fig. 3's incast: one ToR's hosts to a host under another, 1024 hosts.
    r = subprocess.run(base + ["--figs", "3", "--joblist", jl], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cmds = open(jl).read().splitlines()
    assert sum("--nodes 1024 --pattern incast --fanin 8 --root 511" in c
               for c in cmds) == 27, cmds
    # Its data-center traces: every flow its own line; a partner per host
    # under another ToR, each receiver taken once, 5% of flows elsewhere;
    # each host's next flow starts when the last had its share of the link.
    dc = [c for c in cmds if " --pattern cm --cm " in c]
    assert len(dc) == 20 and all("/dc-128-" in c for c in dc), dc
    for load in (0.4, 1.0):
        lines = open(os.path.join(out, "dc-128-%s-1.cm" % load)).read().splitlines()
        assert lines[0] == "Nodes 128" and int(lines[1].split()[1]) == len(lines) - 2
        per = {}
        for ln in lines[2:]:
            pair, _, start, _, size = ln.split()
            src, dst = map(int, pair.split("->"))
            per.setdefault(src, []).append((float(start), dst, int(size)))
        assert sorted(per) == list(range(128)), sorted(per)
        partners, others, total = set(), 0, 0
        for src, fl in per.items():
            dsts = [d for _, d, _ in fl]
            partner = max(set(dsts), key=dsts.count)
            assert partner // 8 != src // 8 and src not in dsts, (src, partner)
            partners.add(partner)
            others += len(dsts) - dsts.count(partner)
            total += len(dsts)
            sent = 0
            for start, _, size in fl:
                assert abs(start - sent * 8 / (400e9 * load) * 1e6) < 1e-3, (src, start)
                sent += size
            assert (sent - fl[-1][2]) * 8 / (400e9 * load) < 0.005 <= sent * 8 / (400e9 * load)
        assert len(partners) == 128 and 0.02 < others / total < 0.08, (len(partners), others,
                                                                         total)
    r = subprocess.run(base + ["--setup", "artifact", "--figs", "3", "--joblist", jl],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # run_collective.py's set: its matrices under all 9 load balancers, the
    # all-to-all at 4, 8 and 16 in flight; 1 and 2 for OPS and REPS.
    coll = [c for c in open(jl).read().splitlines() if "/art-" in c and ".cm " in c]
    want = {"alltoall4": 9, "alltoall8": 9, "alltoall16": 9, "alltoall1": 2, "alltoall2": 2,
            "ring": 9, "bfly": 9}
    assert {k: sum("/art-%s-" % k in c for c in coll) for k in want} == want, coll
    # A job line: the old key's removal; uet-sim; its key.
    dc = [c.split("; ")[1].split(" -J ")[0] for c in open(jl).read().splitlines()
          if "/dc-32-1.0-1.cm" in c]
    assert len(dc) == 5, dc
    # Its key names the trace's contents: a regenerated trace is stale.
    cm = os.path.join(out, "dc-32-1.0-1.cm")
    want = "'cm %s sha256 %s'" % (cm, hashlib.sha256(open(cm, "rb").read()).hexdigest())
    assert all(want in c for c in open(jl).read().splitlines() if "/dc-32-1.0-1.cm" in c)
    lines = open(cm).read().splitlines()
    assert lines[0] == "Nodes 128" and all(int(ln.split("->")[0]) < 32 and
                                           int(ln.split("->")[1].split()[0]) < 32
                                           for ln in lines[2:]), lines[:4]
    # The paper's claim at full load, as the artifact ran it (seed 1: REPS
    # 2.2% sooner on average): every flow completes, every drop is resent
    # once, and REPS's mean FCT is at least 1% under OPS's.
    mean = {}
    for lb in ("ops", "reps"):
        rep = os.path.join(tmp, "dc-%s.json" % lb)
        run(exe, shlex.split(dc[0].split(None, 1)[1].replace("--lb ecmp", "--lb " + lb)) +
            ["-J", rep])
        end = json.load(open(rep))["end"]
        assert end["flow_counts"]["ok"] == len(lines) - 2, end["flow_counts"]
        assert end["losses"]["retransmissions"] == end["losses"]["network_drops"] > 0
        mean[lb] = end["fct"]["mean_ns"]
    assert mean["reps"] < 0.99 * mean["ops"], mean
    # --figs ties: Fig. 3's incast per sender, in scheduling order and with
    # --shuffle-ties (half its runs); the first flow always wins in order
    # (15 of 15 runs) and about 1 in 8 shuffled (seed 1: 4).
    jl = os.path.join(tmp, "ties.jobs")
    q = subprocess.run([sys.executable, script, "--figs", "ties", "--seeds", "1", "--out-dir",
                        os.path.join(tmp, "pft"), "--joblist", jl], capture_output=True,
                       text=True, timeout=60)
    assert q.returncode == 0, q.stderr
    jobs = open(jl).read().splitlines()
    assert len(jobs) == 30 and sum("--shuffle-ties" in j for j in jobs) == 15, jobs
    q = subprocess.run([sys.executable, script, "--figs", "ties", "--out-dir",
                        os.path.join(tmp, "pft"), "--joblist", jl, "--sim-arg=--shuffle-ties"],
                       capture_output=True, text=True, timeout=60)
    assert q.returncode == 2 and "drop --sim-arg=--shuffle-ties" in q.stderr, q.stderr
    assert all(" --nodes 1024 --pattern incast --fanin 8 --root 511 " in j for j in jobs)
    q = subprocess.run([sys.executable, script, "--figs", "ties", "--seeds", "1", "--jobs",
                        "2", "--out-dir", os.path.join(tmp, "pft"), "--uet-sim", exe],
                       capture_output=True, text=True, timeout=300)
    assert q.returncode == 0, q.stderr[-2000:]
    won = re.search(r"Host 512 finished first in (\d+) of (\d+) runs in scheduling order "
                    r"and in (\d+) shuffled", q.stdout)
    assert won and won.group(1) == won.group(2) == "15" and int(won.group(3)) <= 6, q.stdout


def case_art_collectives(exe, tmp):
    # The artifact's collective matrices (paper_figures.py, --setup
    # artifact) as its gen_files.py lays them out, and uet-sim runs each to
    # the end with every dependency kept.
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "tools", "sim"))
    import paper_figures as pf

    def parse(text):
        lines = text.splitlines()
        hdr = [ln.split() for ln in lines[:3]]
        flows = []
        for ln in lines[3:]:
            if ln.startswith("trigger id "):
                continue
            t = ln.split()
            src, dst = map(int, t[0].split("->"))
            kv = dict(zip(t[3::2], t[4::2]))
            flows.append((src, dst, int(t[2]), kv))
        trig = [ln.split()[3] for ln in lines[3:] if ln.startswith("trigger id ")]
        assert hdr[0] == ["Nodes", "128"] and int(hdr[1][1]) == len(flows) and \
            int(hdr[2][1]) == len(trig), hdr
        return flows, trig

    order = list(range(128))
    random.Random(42).shuffle(order)
    # All-to-all, 4 in flight: every ordered pair once; a host's first 4
    # start at 0, each later one on a multishot its previous batch fires.
    flows, trig = parse(pf.art_alltoall_cm(4))
    assert len(flows) == 128 * 127 and len(trig) == 128 * 31 and set(trig) == {"multishot"}
    assert sorted((f[0], f[1]) for f in flows) == sorted(
        (a, b) for a in range(128) for b in range(128) if a != b)
    assert sum(f[3].get("start") == "0" for f in flows) == 4 * 128
    assert flows[0][:2] == (order[0], order[1]) and flows[1][:2] == (order[0], order[32])
    assert all(f[3]["size"] == "2000000" for f in flows)
    # Ring: 64 chains of 127 hops of 4 MB over the first 64 of that order,
    # each hop started by the previous one's arrival at its source.
    flows, trig = parse(pf.art_ring_cm())
    assert len(flows) == 64 * 127 and len(trig) == 64 * 126
    assert {f[0] for f in flows} == set(order[:64]) and all(
        f[3]["size"] == "4000000" for f in flows)
    done = {f[3].get("recv_done_trigger"): f for f in flows}
    for f in flows:
        if "trigger" in f[3]:
            prev = done[f[3]["trigger"]]
            assert prev[1] == f[0], (prev, f)
    # Butterfly: 7 steps of 20 MB both ways between hosts 2^d apart, each
    # host's step started by the previous step's message into it.
    flows, trig = parse(pf.art_butterfly_cm())
    assert len(flows) == 7 * 128 and len(trig) == 6 * 128
    into = {f[3].get("recv_done_trigger"): f for f in flows}
    for k, f in enumerate(flows):
        d = k // 128
        assert f[0] ^ f[1] == 1 << d and f[3]["size"] == "20000000", (k, f)
        assert (d == 0) == ("start" in f[3]) and (d == 6) == ("recv_done_trigger" not in f[3])
        if d:
            assert into[f[3]["trigger"]][1] == f[0] and \
                into[f[3]["trigger"]][0] ^ f[0] == 1 << (d - 1), f
    # Small versions on 16 hosts run to the end, in order: the butterfly
    # takes at least its 4 steps' serialisation.
    for name, text in (("a2a", pf.art_alltoall_cm(2, hosts=16, size=100000)),
                       ("ring", pf.art_ring_cm(hosts=16, ranks=8, size=100000)),
                       ("bfly", pf.art_butterfly_cm(hosts=16, size=400000))):
        cm, rep = os.path.join(tmp, name + ".cm"), os.path.join(tmp, name + ".json")
        with open(cm, "w") as f:
            f.write(text)
        run(exe, ["--nodes", "16", "--pattern", "cm", "--cm", cm, "--lb", "reps", "-J", rep])
        end = json.load(open(rep))["end"]
        n = text.count("->")
        assert end["flow_counts"]["ok"] == n and end["bytes_rx"] == sum(
            int(ln.split(" size ")[1].split()[0]) for ln in text.splitlines() if "->" in ln), end
        if name == "bfly":
            assert end["completion_ns"] > 4 * 400000 * 8 / 400e9 * 1e9, end["completion_ns"]


def case_progress(exe, tmp):
    # A progress line a second on a terminal; none into a pipe.
    import pty
    import select
    # Long enough (several seconds here) for a line to come due.
    args = [exe, "--nodes", "128", "--pattern", "permutation", "--size", "64M", "--iters", "1"]
    p = run(exe, args[1:])
    assert "flows done" not in p.stderr, p.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        r, _, _ = select.select([master], [], [], 120)
        if not r:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.wait(timeout=120) == 0
    assert b"us simulated" in seen and b"of 128 flows done" in seen, seen[-500:]


def case_interrupt(exe, tmp):
    # SIGINT acts within a bin of a large fabric (one of the README's 1024
    # hosts takes seconds of wall time), and the report is still written.
    import signal
    out = os.path.join(tmp, "int.json")
    proc = subprocess.Popen([exe, "--nodes", "1024", "--pattern", "permutation", "--size",
                             "8M", "--iters", "1", "--lb", "reps", "--ack-every", "0",
                             "-J", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(3)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    took = time.monotonic() - t0
    assert took < 5, (took, err[-500:])
    end = json.load(open(out))["end"]
    ev = [e for e in end["events"] if e["kind"] == "interrupt"]
    assert len(ev) == 1, end["events"]
    # stopped inside a bin, not at its end
    assert ev[0]["t_ns"] % end["timeline"]["bin_ns"] != 0, ev


def case_plot(exe, tmp):
    # tools/plot.py draws a run with port series and a size sweep side by
    # side; a file that is not a report is bad input.
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "tools", "plot.py")
    one, sweep = os.path.join(tmp, "one.json"), os.path.join(tmp, "sweep.json")
    run(exe, ["--nodes", "16", "--pattern", "permutation", "--size", "1M", "--iters", "1",
              "--port-series", "tor-up", "--series-us", "5", "-J", one])
    run(exe, ["--nodes", "16", "--pattern", "pair", "-b", "64K", "-e", "128K", "--iters", "2",
              "-J", sweep])
    png = os.path.join(tmp, "plot.png")
    p = subprocess.run([sys.executable, script, one, sweep, "-o", png, "--labels", "perm,pair"],
                       capture_output=True, text=True, timeout=120)
    if not (has_matplotlib(sys.executable) or has_matplotlib(DEBIAN_PYTHON)):
        assert p.returncode == 1 and "has no matplotlib" in p.stderr, p.stderr
        return
    assert p.returncode == 0, p.stderr
    if not has_matplotlib(sys.executable):
        assert "running again under %s" % DEBIAN_PYTHON in p.stderr, p.stderr
    assert "timeline, fct, ports from 3 runs" in p.stdout, p.stdout
    assert os.path.getsize(png) > 10000, os.path.getsize(png)
    assert png_std(png) > 0.05  # not a blank canvas
    # Run by a python3 without matplotlib (here Debian's without its
    # site-packages, -S), plot.py draws all the same under Debian's; with
    # no python3 that has it, it says what it does not draw and why.
    if has_matplotlib(DEBIAN_PYTHON):
        png2 = os.path.join(tmp, "plot2.png")
        p = subprocess.run([DEBIAN_PYTHON, "-S", script, one, "-o", png2],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and "has no matplotlib: running again under" in p.stderr, \
            p.stderr
        assert png_std(png2) > 0.05
        p = subprocess.run([DEBIAN_PYTHON, "-S", script, one, "-o", png2],
                           capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, UET_PLOT_PYTHON="/nonexistent"))
        assert p.returncode == 1 and "%s not drawn" % png2 in p.stderr, p.stderr
    # A warm-up (-O) is shaded on the timeline.
    warm = os.path.join(tmp, "warm.json")
    run(exe, ["--nodes", "16", "--pattern", "permutation", "-D", "0.0003", "-O", "0.0001",
              "-J", warm])
    # A duration run's FCTs (messages) and round trips come from the
    # summaries' CDFs: no flow has an FCT of its own there.
    lat = os.path.join(tmp, "lat.json")
    run(exe, ["--nodes", "16", "--pattern", "pingpong", "--root", "7", "-D", "0.0002",
              "-J", lat])
    p = subprocess.run([sys.executable, script, warm, lat, "-o", png, "--what",
                        "timeline,fct,latency"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "timeline, fct, latency from 2 runs; the first 100.000 us shaded: warm-up" \
        in p.stdout, p.stdout
    sys.path.insert(0, os.path.dirname(script))
    import plot  # noqa: E402
    rep = json.load(open(lat))
    x, y = plot.latency_points(rep)
    rtt = rep["end"]["latency"]["rtt"]
    assert len(x) == len(rtt["cdf"]) and x[0] == rtt["min_ns"] / 2e3, x
    assert x[-1] == rtt["max_ns"] / 2e3 and (y[0], y[-1]) == (0, 1), (x, y)
    x, y = plot.fct_points(json.load(open(warm)))
    assert len(x) == 104 and x == sorted(x), x
    # A ping-pong sweep: a latency CDF per size, the other panels too.
    pp = os.path.join(tmp, "pp.json")
    run(exe, ["--nodes", "16", "--pattern", "pingpong", "--root", "7", "-b", "64", "-e", "64K",
              "-f", "1024", "--iters", "20", "-J", pp])
    p = subprocess.run([sys.executable, script, pp, "-o", png], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0 and "timeline, fct, latency from 2 runs" in p.stdout, p.stdout + p.stderr
    assert os.path.getsize(png) > 10000 and png_std(png) > 0.05
    p = subprocess.run([sys.executable, script, sweep, "-o", png, "--what", "latency"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "nothing to draw" in p.stderr, p.stderr
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"x": 1}')
    p = subprocess.run([sys.executable, script, bad, "-o", png], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2 and "not a uet-perf or uet-sim report" in p.stderr, p.stderr


def case_pcap(exe, tmp):
    # --pcap of chosen hosts: each host's NIC, both directions, in
    # simulated time; the report says what each file holds. A pair: what
    # host 0 sends, host 1 receives.
    pat = os.path.join(tmp, "h%e.pcap")
    path = os.path.join(tmp, "pcap.json")
    run(exe, ["--nodes", "16", "--pattern", "pair", "--size", "128K", "--iters", "1",
              "--pcap", pat, "--pcap-hosts", "0-1", "--pcap-snaplen", "0", "-J", path])
    end = json.load(open(path))["end"]
    caps = end["fabric"]["captures"]
    assert [c["host"] for c in caps] == [0, 1], caps
    f0, f1 = (pcapcheck.read(pat.replace("%e", str(h))) for h in (0, 1))
    assert len(f0) == caps[0]["frames"] and len(f1) == caps[1]["frames"], caps
    assert caps[0]["not_written"] == 0
    sent = [f for f in f0 if f["src"] == "10.0.0.1"]
    got = [f for f in f1 if f["dst"] == "10.0.0.2"]
    assert len(sent) == len(got) and len(sent) >= 32, (len(sent), len(got))
    assert all(f["dport"] == pcapcheck.UET_UDP_PORT for f in f0 + f1)
    # simulated nanoseconds: a 128 KiB message at 400 Gb/s is microseconds
    assert f0[0]["ts_ns"] < 1000 and f0[-1]["ts_ns"] < 100000, (f0[0], f0[-1])
    d = pcapcheck.tshark(pat.replace("%e", "0"), checksums=True)
    if d is None:
        print("# SKIP tshark decode: tshark is not installed (apt-get install tshark)")
    else:
        # uet-sim sends UDP checksum 0 (none): only the IPv4 one is checked
        n, uet, bad, _ = d
        assert n == len(f0) and uet == n and bad == 0, d
    run(exe, ["--nodes", "16", "--pattern", "pair", "--size", "128K", "--iters", "1",
              "--pcap", pat, "--pcap-count", "7", "-J", path])
    caps = json.load(open(path))["end"]["fabric"]["captures"]
    assert caps[0]["frames"] == 7 and caps[0]["not_written"] > 0, caps
    assert len(pcapcheck.read(pat.replace("%e", "0"))) == 7
    for args, want in (
            (["--pcap", os.path.join(tmp, "one.pcap"), "--pcap-hosts", "0,3"],
             "option '--pcap'"),
            (["--pcap", pat, "--pcap-hosts", "16"], "option '--pcap-hosts': host 16"),
            (["--pcap", "/nonexistent-dir/x.pcap"], "option '--pcap': cannot write")):
        p = run(exe, ["--nodes", "16"] + args, expect_rc=2)
        assert want in p.stderr, (args, p.stderr)


def case_pcap_spurious(exe, tmp):
    # tools/sim/pcap_spurious.py on every host's capture: why a PSN was
    # delivered twice. A cable down both ways: every first copy arrived
    # (no queue holds one 20 us), and each resend followed ACKs that all
    # died on the cable. A cable at 25 Gb/s with its full buffer and a 20
    # us timer: copies still queued when their resends left. In neither
    # does the sender resend a PSN an ACK it had received reported.
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "tools", "sim", "pcap_spurious.py")
    base = ["--profile", "reps-paper", "--nodes", "16", "--pattern", "permutation", "--size",
            "1M", "--iters", "1", "--lb", "ops", "--seed", "1", "--pcap-hosts", "0-15",
            "--pcap-count", "1000000"]
    out = {}
    for name, extra in (("down", ["--failure", "link-down:20us:tor0.up0"]),
                        ("slow", ["--failure", "link-rate:0:tor0.up0:25:buffer=keep",
                                  "--rto-ns", "20000"])):
        d = os.path.join(tmp, "spur-" + name)
        os.makedirs(d)
        run(exe, base + extra + ["--pcap", os.path.join(d, "h%e.pcap"), "-J",
                                 os.path.join(d, "r.json")])
        caps = [os.path.join(d, "h%d.pcap" % h) for h in range(16)]
        p = subprocess.run([sys.executable, script, "--json"] + caps, capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        out[name] = json.loads(p.stdout)
        assert out[name].get("a_covering_ack_arrived_first", 0) == 0, out[name]
        assert out[name].get("ambiguous", 0) == 0, out[name]
    down, slow = out["down"], out["slow"]
    assert down["delivered_twice"] > 0, down
    assert down["every_covering_ack_lost"] == down["delivered_twice"], down
    assert down.get("late_copy", 0) == 0 and down["one_way_delay_us"]["max"] < 20, down
    assert slow["late_copy"] > 0 and slow["late_copy_delay_us"]["median"] > 20, slow
    assert slow["one_way_delay_us"]["max"] > 50, slow
    p = subprocess.run([sys.executable, script] + caps, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0 and "the first copy was still in flight (late): %d" % (
        slow["late_copy"]) in p.stdout, p.stdout


def case_semcheck(exe, tmp):
    # tools/wire/semcheck.py on captures of every load balancer and
    # congestion controller, strict and not, on a fabric that loses and
    # reorders (an uplink down a while, OPS for the CCs; an incast that
    # trims), PSNs across 2^32: the fields mean what UET means. Then a capture with one ACK's
    # CACK_PSN off by one, as libuet's once was, must fail it.
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "tools", "wire", "semcheck.py")
    base = ["--nodes", "16", "--pattern", "permutation", "--size", "256K", "--iters", "1",
            "--seed", "3", "--psn-near-wrap", "--failure", "link-down:10us:tor0.up0:for=20us",
            "--pcap-hosts", "0-15", "--pcap-count", "1000000"]
    runs = [["--lb", lb, "--cc", "nscc"] for lb in
            ("ecmp", "ops", "bitmap", "reps", "flowlet", "plb", "strack", "mprdma", "mptcp",
             "ar")]
    runs += [["--lb", "ops", "--cc", cc] for cc in
             ("dctcp", "dctcp-mprdma", "strack", "fixed", "eqds")]
    runs += [["--lb", "reps", "--cc", "nscc", "--ack-carry-evs", "--ack-every", "16K"],
             ["--lb", "reps", "--cc", "nscc", "--trim", "--pattern", "incast"]]
    checked = 0
    for i, r in enumerate(runs):
        for strict in (False, True):
            if strict and ("eqds" in r or "--ack-carry-evs" in r):
                continue
            d = os.path.join(tmp, "sem%d%s" % (i, "s" if strict else ""))
            os.makedirs(d)
            run(exe, base + r + (["--uet-strict"] if strict else []) +
                ["--pcap", os.path.join(d, "h%e.pcap"), "-J", os.path.join(d, "r.json")])
            # Host h is 10.0.0.h+1 (named: in an incast a sender's
            # capture holds only it and the receiver).
            caps = [os.path.join(d, "h%d.pcap" % h) + "@10.0.0.%d" % (h + 1) for h in range(16)]
            p = subprocess.run([sys.executable, script, "--json"] +
                               (["--strict"] if strict else []) + caps,
                               capture_output=True, text=True, timeout=120)
            out = json.loads(p.stdout)
            assert p.returncode == 0 and out["ok"], (r, strict, out["failures"])
            assert out["pdcs_across_2^32"] >= 16 and out["in_order_acks"] > 0, (r, out)
            assert out["checks"]["ACK: CACK_PSN had arrived with every PSN before it"][
                "checked"] == out["acks"], (r, out)
            if "--trim" in r:
                assert out["checks"]["NACK: TRIMMED names a PSN whose trimmed copy arrived"][
                    "checked"] > 0, out
            rep = json.load(open(os.path.join(d, "r.json")))["end"]
            assert rep["wire"]["uet_strict"] == strict, rep["wire"]
            ext = rep["wire"]["extensions"]
            if strict:
                assert ext == {"dup_acks": 0, "carry_ev_acks": 0, "credit_pkts": 0}, ext
            elif "eqds" in r:
                assert ext["credit_pkts"] > 0, ext
            elif "--ack-carry-evs" in r:
                assert ext["carry_ev_acks"] > 0, ext
            checked += 1
    assert checked == 2 * len(runs) - 2
    # Host 1's first ACK_CC with its CACK_PSN one higher (the next expected
    # PSN): a PSN that had not arrived is claimed.
    cap = os.path.join(tmp, "sem0", "h1.pcap")
    data = bytearray(open(cap, "rb").read())
    off = 24
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        b = off + 16
        if (data[b + 12:b + 14] == b"\x08\x00" and data[b + 26:b + 30] == bytes([10, 0, 0, 2])
                and data[b + 42] >> 3 == 8):
            cack = struct.unpack_from(">I", data, b + 46)[0]
            struct.pack_into(">I", data, b + 46, (cack + 1) % 2**32)
            break
        off += 16 + caplen
    else:
        raise AssertionError("no ACK_CC sent by host 1")
    bad = os.path.join(tmp, "bad.pcap")
    open(bad, "wb").write(bytes(data))
    p = subprocess.run([sys.executable, script, bad + "@10.0.0.2"], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1 and "FAILED ACK: CACK_PSN had arrived" in p.stdout, p.stdout


CASES = {"determinism": case_determinism, "port_series": case_port_series,
         "pcap": case_pcap, "pcap_spurious": case_pcap_spurious,
         "plot": case_plot,
         "progress": case_progress, "interrupt": case_interrupt,
         "paper_figures": case_paper_figures, "art_collectives": case_art_collectives,
         "mixed_ecmp": case_mixed_ecmp, "shuffle_ties": case_shuffle_ties, "bad_input": case_bad_input, "sweep": case_sweep,
         "three_tier_switch_down": case_three_tier_switch_down, "fabric_rate": case_fabric_rate,
         "loss_free_no_retx": case_loss_free_no_retx, "drops_few_spurious": case_drops_few_spurious,
         "fpga_failure": case_fpga_failure, "eqds_large_message": case_eqds_large_message,
         "eqds_slow_pulls": case_eqds_slow_pulls, "rate": case_rate, "pingpong": case_pingpong,
         "cm_failures": case_cm_failures, "stream_and_failure_exit": case_stream_and_failure_exit,
         "omit": case_omit, "semcheck": case_semcheck}


if __name__ == "__main__":
    sys.exit(cases.run(CASES))
