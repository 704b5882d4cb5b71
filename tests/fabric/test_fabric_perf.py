#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-perf over the one-box fabric (tools/fabric) through a link failure.

Builds a 2-leaf, 2-spine fabric with 2 DPDK hosts per leaf and runs, once
per load balancer (ecmp, ops, bitmap, reps, flowlet, plb, strack), a
permutation in which every flow crosses the spines (4 flows x 2000 x 64 KiB,
--verify, per-packet ACKs), while leaf0-spine1 fails: at 0.3 s of the run
only the spine's end goes down (--ends spine: leaf0 keeps hashing onto the
dead next hop and spine1 has no route back to leaf0, a blackhole both ways)
until the routes converge 300 ms later (20 ms for ecmp, whose flows can only
wait for the routes); the link comes back at 0.9 s. Checks for every load
balancer: exit 0; all 8000 messages ok (sent, acknowledged, received); bytes
received = messages x size; every message verified, none bad; the link went
down and up before the run completed. Then, from the routers' counters (the
packets each router dropped: rx - tx + ICMP it sent, tools/demo/analyze.py),
that REPS sent fewer packets into the failed link than one RTO's worth of
its traffic towards it (peak rate x 1/spines x RTO; the derivation and the
numbers are printed), while OPS kept spraying 1/spines of its packets into it
for the whole blackhole (at least half the expected count, and 2.5 x REPS).

Usage: test_fabric_perf.py [TOOLS_FABRIC [UET_PERF]]. Needs root; prints SKIP
and exits 77 otherwise, or when `ip netns` does not work or uet-perf is not
built. The last line is "N passed, M failed" (exit 1 if any failed). Removes
everything it created (namespaces, veths, processes, files), also on failure
or Ctrl-C. 30-45 s on a 2-core VM.
"""

import importlib.util
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FABRIC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tools", "fabric")
PERF = (sys.argv[2] if len(sys.argv) > 2
        else os.path.join(ROOT, "build", "apps", "uet-perf", "uet-perf"))
ANALYZE = os.path.join(ROOT, "tools", "demo", "analyze.py")

LBS = ["ecmp", "ops", "bitmap", "reps", "flowlet", "plb", "strack"]
SPINES = 2
SEED = 2              # the permutation 0->3, 1->2, 2->0, 3->1: every flow crosses
SIZE = 64 * 1024      # message size
ITERS = 2000          # messages per flow: 4 x 2000 x 64 KiB, 1-3 s here
DOWN_AT, UP_AT = 0.3, 0.9
# Routing reacts this long (plus 10-100 ms of its own: installing routes in
# every router namespace) after each change. The spraying load balancers get
# a long blackhole, which they must route around themselves; ECMP a short
# one, since an ECMP flow on the dead path can only wait for the routes: its
# PDC gives up after 13 RTOs in a row (5-10 ms each here), about 125 ms.
CONVERGE_MS = {"ecmp": 20}
CONVERGE_MS_SPRAY = 300
RTO_MIN_NS = 5000000  # uet-perf --rto-min-ns: the RTO floor (CPU stalls here are ms)
# uet-perf --max-rto-retx: a PDC gives up after this many recovery episodes in
# a row without progress. The default 12 (5-10 ms each here, ~110 ms) is
# shorter than the sprayers' 355 ms blackhole: OPS, which cannot avoid the
# dead link, resends its window into it with data and ACKs hashed at
# random, and in one CI-sized run here a PDC gave up 119 ms into its
# stretch of bad luck (8 messages failed with UET_ERR_TIMEOUT). The ECMP
# checks keep the default (its blackhole is 20 ms).
MAX_RTO_RETX = 40
# --base-rtt-ns 80000 --link-gbps 2: NSCC's window is at most 1.5 x 2 Gb/s x
# 80 us = 30 KB, 7 packets: about what this CPU-bound box carries per flow
# (doc/testbed.md).
BASE_RTT_NS = 80000
LINK_GBPS = "2"
MSS = 4096
LINK = ("leaf0", "spine1")

PASSED = []
FAILED = []


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def check(cond, what, detail=""):
    if cond:
        PASSED.append(what)
        print("ok: " + what, flush=True)
    else:
        FAILED.append(what)
        print("FAIL: " + what + (("\n  " + detail) if detail else ""), flush=True)
    return cond


def run(cmd, timeout=60, ok=(0,)):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    if ok is not None and p.returncode not in ok:
        raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout,
                                                  p.stderr))
    return p


def load_analyze():
    sys.dont_write_bytecode = True  # no __pycache__ left in tools/demo
    spec = importlib.util.spec_from_file_location("demo_analyze", ANALYZE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Fabric:
    def __init__(self, tmp, name):
        self.tmp = tmp
        self.name = name
        self.state = os.path.join(tmp, name + ".json")
        self.children = []

    def fab(self, *args, timeout=60):
        return run([FABRIC] + [str(a) for a in args] + ["--state", self.state],
                   timeout=timeout)

    def up(self):
        extra = []
        if os.path.exists("/proc/sys/net/ipv4/fib_multipath_hash_seed"):
            extra = ["--hash-seed", "1"]
        run([FABRIC, "up", "--name", self.name, "--state", self.state, "--leaves", "2",
             "--spines", str(SPINES), "--hosts-per-leaf", "2", "--converge-ms",
             str(CONVERGE_MS_SPRAY)] + extra, timeout=120)
        self.netns = self.fab("args", "netns").stdout.strip()
        self.eal = self.fab("args", "eal").stdout.split()
        self.app = self.fab("args", "app").stdout.split()
        self.routers = [n["name"] for n in json.load(open(self.state))["namespaces"]
                        if n["role"] in ("leaf", "spine")]

    def snmp(self, path):
        with open(path, "w") as f:
            for ns in self.routers:
                p = run(["ip", "netns", "exec", ns, "grep", "-h", "-E", "^(Icmp|IpExt):",
                         "/proc/net/snmp", "/proc/net/netstat"])
                f.write("== %s\n%s" % (ns, p.stdout))

    def spawn(self, cmd, **kw):
        p = subprocess.Popen(cmd, **kw)
        self.children.append(p)
        return p

    @staticmethod
    def stop(p):
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def reap(self, p, timeout):
        try:
            rc = p.wait(timeout=timeout)
        finally:
            self.stop(p)
            self.children.remove(p)
        return rc

    def cleanup(self):
        for p in list(self.children):
            self.stop(p)
        self.children = []
        if os.path.exists(self.state):
            subprocess.run([FABRIC, "down", "--state", self.state], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)


def one_run(fb, an, lb, tmp):
    """Runs lb through the failure; returns the numbers the checks need."""
    pre = os.path.join(tmp, lb)
    fb.fab("converge")
    fb.fab("counters", "-o", pre + ".counters-before.json")
    fb.snmp(pre + ".snmp-before.txt")
    anchor = pre + ".anchor"
    open(anchor, "w").close()
    cmd = (["ip", "netns", "exec", fb.netns, "timeout", "-s", "TERM", "60", PERF,
            "--no-huge", "--no-shconf", "--no-pci", "-m", "1024", "-l", "0",
            "--log-level=error"] + fb.eal + ["--"] + fb.app +
           ["--pattern", "permutation", "-n", str(ITERS), "--size", str(SIZE),
            "--seed", str(SEED), "--lb", lb, "--verify", "--ack-every", "0",
            "--base-rtt-ns", str(BASE_RTT_NS), "--link-gbps", LINK_GBPS,
            "--rto-min-ns", str(RTO_MIN_NS),
            "--max-rto-retx", str(12 if lb == "ecmp" else MAX_RTO_RETX),
            "--bin-us", "1000", "-i", "0", "--stall-timeout", "5", "-J", pre + ".json"])
    for k, t in enumerate((0.05, 0.1, 0.15)):
        cmd += ["--exec-at", "%g:echo test-anchor-%d $(date +%%s%%N) >>%s" % (t, k, anchor)]
    with open(pre + ".txt", "w") as out:
        perf = fb.spawn(cmd, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while os.path.getsize(anchor) == 0 and perf.poll() is None and time.time() < deadline:
            time.sleep(0.02)
        if os.path.getsize(anchor) == 0:
            fb.reap(perf, 5)
            raise RuntimeError("%s: uet-perf did not start:\n%s" % (lb, open(pre + ".txt").read()))
        t0 = int(open(anchor).readline().split()[1]) - 50000000
        pin = ["taskset", "-c", "1-%d" % (os.cpu_count() - 1)] if os.cpu_count() > 1 else []
        with open(pre + ".schedule.jsonl", "w") as so:
            sched = fb.spawn(pin + [FABRIC, "schedule", "--state", fb.state, "--t0", str(t0),
                                    "--ends", "spine", "--converge-ms",
                                    str(CONVERGE_MS.get(lb, CONVERGE_MS_SPRAY)),
                                    "--at", "%g:down:%s:%s" % ((DOWN_AT,) + LINK),
                                    "--at", "%g:up:%s:%s" % ((UP_AT,) + LINK)],
                             stdout=so, stderr=subprocess.PIPE)
            src = fb.reap(sched, 30)
        rc = fb.reap(perf, 60)
    if src != 0:
        raise RuntimeError("%s: tools/fabric schedule exited %d" % (lb, src))
    fb.fab("counters", "-o", pre + ".counters-after.json")
    fb.snmp(pre + ".snmp-after.txt")
    rep = json.load(open(pre + ".json"))
    events = an.load_jsonl(fb.state[:-len(".json")] + ".events.jsonl")
    conv = [e for e in events if e.get("event") == "converge"]
    t0 = an.run_t0(rep, anchor)
    sch = an.load_jsonl(pre + ".schedule.jsonl")
    down = next(e for e in sch if e.get("event") == "link_down")
    up = next(e for e in sch if e.get("event") == "link_up")
    cdown = next((e for e in conv if e.get("seq") == down.get("seq")), None)
    drops = an.router_drops(json.load(open(pre + ".counters-before.json")),
                            json.load(open(pre + ".counters-after.json")),
                            an.parse_snmp(pre + ".snmp-before.txt"),
                            an.parse_snmp(pre + ".snmp-after.txt"))
    return {
        "rc": rc, "rep": rep, "out": pre + ".txt",
        "t_down": (down["t_ns"] - t0) / 1e9, "t_up": (up["t_ns"] - t0) / 1e9,
        "t_conv": (cdown["done_ns"] - t0) / 1e9 if cdown else None,
        "dead": sum(drops.values()), "drops": drops,
    }


def check_run(lb, r):
    rep = r["rep"]
    end = rep["end"]
    fc = end["flow_counts"]
    flows = end["flows"]
    n = 4 * ITERS
    done = (end["completion_ns"] or 0) / 1e9
    tail = ""
    if r["rc"] != 0:
        tail = "".join(open(r["out"]).readlines()[-15:])
    check(r["rc"] == 0, "%s: uet-perf exit 0 through the failure" % lb, tail)
    bad = [f for f in flows if f["status"] != "ok" or f["send_status"] != 0
           or f["recv_done_ns"] is None]
    check(fc["total"] == n and fc["ok"] == n and fc["failed"] == 0 and fc["pending"] == 0
          and len(flows) == n and not bad,
          "%s: all %d messages (4 flows x %d) ok: sent, acknowledged and received"
          % (lb, n, ITERS), json.dumps(fc) + " " + json.dumps(bad[:3]))
    check(end["bytes_rx"] == n * SIZE,
          "%s: %d bytes received = %d x %d B" % (lb, end["bytes_rx"], n, SIZE),
          "expected %d" % (n * SIZE))
    check(end["verify"]["checked_msgs"] == n and end["verify"]["bad_msgs"] == 0,
          "%s: %d messages verified byte for byte, 0 bad" % (lb, end["verify"]["checked_msgs"]),
          json.dumps(end["verify"]))
    check(0 < r["t_down"] < r["t_up"] < done,
          "%s: %s-%s went down at %.3f s and up at %.3f s, before the run completed at "
          "%.2f s (routes converged at %s s)"
          % (lb, LINK[0], LINK[1], r["t_down"], r["t_up"], done,
             "%.3f" % r["t_conv"] if r["t_conv"] else "-"))


def sent_in(rep, a, b):
    """Data packets sent in [a, b) s of the run: payload bytes / MSS (the
    timeline's tx bytes) plus retransmitted packets."""
    tl = rep["end"]["timeline"]
    bn = tl["bin_ns"]
    i0, i1 = int(a * 1e9 // bn), int(math.ceil(b * 1e9 / bn))
    return (sum(tl["tx_bytes"][i0:i1]) / MSS + sum(tl["retx_pkts"][i0:i1]))


def main():
    if os.geteuid() != 0:
        skip("needs root (network namespaces, veths, af_packet)")
    for tool in ("ip", "taskset", "timeout"):
        if shutil.which(tool) is None:
            skip("'%s' is not installed" % tool)
    if not os.access(PERF, os.X_OK):
        skip("%s is not built" % PERF)
    probe = "ftpprobe%d" % os.getpid()
    if subprocess.run(["ip", "netns", "add", probe], stderr=subprocess.DEVNULL).returncode != 0:
        skip("ip netns add does not work here")
    subprocess.run(["ip", "netns", "del", probe], stderr=subprocess.DEVNULL)

    an = load_analyze()
    tmp = tempfile.mkdtemp(prefix="uet-fabric-perf-")
    fb = Fabric(tmp, "ftp%d" % (os.getpid() % 100000))

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    results = {}
    t_start = time.time()
    try:
        fb.up()
        print("fabric %s: 2 leaves x %d spines x 2 hosts; %s fails (--ends spine) at %.1f s, "
              "back at %.1f s of each run (permutation, 4 flows x %d x %d KiB, --verify); "
              "routing converges %d ms after a change (ecmp: %d ms)"
              % (fb.name, SPINES, "-".join(LINK), DOWN_AT, UP_AT, ITERS, SIZE // 1024,
                 CONVERGE_MS_SPRAY, CONVERGE_MS["ecmp"]),
              flush=True)
        for lb in LBS:
            t = time.time()
            r = one_run(fb, an, lb, tmp)
            results[lb] = r
            tr = r["rep"]["end"]["transport"]
            print("%s: %.2f Gb/s, %d retx, %d RTOs, %d freezes, %d path failures, %d packets "
                  "into the dead link in %.0f ms of blackhole (%.1f s)"
                  % (lb, r["rep"]["end"]["goodput_bps"] / 1e9, tr["tx_retx_pkts"],
                     tr["rto_events"], tr["lb_freezes"], tr["path_failures"], r["dead"],
                     ((r["t_conv"] or r["t_up"]) - r["t_down"]) * 1e3, time.time() - t),
                  flush=True)
            check_run(lb, r)
            flows = r["rep"]["end"]["flows"]
            check(all((f["src"] // 2) != (f["dst"] // 2) for f in flows),
                  "%s: every flow of the permutation crosses the spines" % lb,
                  str([(f["src"], f["dst"]) for f in flows]))

        # REPS against OPS: packets into the failed link, from the routers'
        # counters (tools/demo/analyze.py: per router, rx - tx + ICMP sent).
        reps, ops = results["reps"], results["ops"]
        share = 1.0 / SPINES       # every flow crosses the spines: 1/S of its EVs die
        rto = RTO_MIN_NS / 1e9
        end = reps["rep"]["end"]
        dur = end["completion_ns"] / 1e9
        hole = (reps["t_conv"] or reps["t_up"]) - reps["t_down"]
        rate = end["transport"]["tx_data_pkts"] / dur
        # The fastest 10 ms of the run, for the worst case before detection.
        tl = end["timeline"]
        k = max(1, int(10e6 // tl["bin_ns"]))
        peak = max(sent_in(reps["rep"], i * tl["bin_ns"] / 1e9, (i + k) * tl["bin_ns"] / 1e9)
                   for i in range(0, max(1, len(tl["tx_bytes"]) - k))) / (k * tl["bin_ns"] / 1e9)
        before_detect = peak * share * rto
        bound = int(math.ceil(before_detect))
        print("REPS bound on the packets it sends into the failed link: until it learns "
              "of the failure, REPS reuses the EVs of ACKs that came back before it, "
              "1/%d of which lead into the dead link; it learns within one RTO (the OOO "
              "count finds a loss within about an RTT, the RTO at the latest); afterwards "
              "it caches only EVs whose ACKs come back, and explores (a random EV) only "
              "when its ring of 8 holds no valid EV, which sending after each ACK it "
              "reads (the window here: 1.5 x %s Gb/s x %d us) keeps rare:"
              % (SPINES, LINK_GBPS, BASE_RTT_NS // 1000))
        print("  bound = peak rate x 1/%d x RTO = %.0f pkt/s (its fastest 10 ms) x 1/%d x "
              "%.0f ms (--rto-min-ns, the RTO floor) = %d"
              % (SPINES, peak, SPINES, rto * 1e3, bound))
        print("  REPS sent %d into it in the %.0f ms blackhole (%d dropped at leaf0, %d at "
              "spine1; %d freezes); average rate %.0f pkt/s"
              % (reps["dead"], hole * 1e3, reps["drops"].get("leaf0", 0),
                 reps["drops"].get("spine1", 0), end["transport"]["lb_freezes"], rate))
        ops_hole = (ops["t_conv"] or ops["t_up"]) - ops["t_down"]
        p_ops = sent_in(ops["rep"], ops["t_down"], ops["t_down"] + ops_hole)
        print("  OPS sprays 1/%d of what it sends into the dead link for the whole "
              "blackhole: %.0f packets in %.0f ms x 1/%d = %.0f expected; it sent %d "
              "(%d at leaf0, %d at spine1)"
              % (SPINES, p_ops, ops_hole * 1e3, SPINES, p_ops * share, ops["dead"],
                 ops["drops"].get("leaf0", 0), ops["drops"].get("spine1", 0)))
        check(0 < reps["dead"] < bound,
              "reps: %d packets into the dead link < bound %d" % (reps["dead"], bound))
        check(ops["dead"] >= 0.5 * p_ops * share,
              "ops kept spraying into the dead link for the whole blackhole: %d >= half of "
              "the %.0f expected" % (ops["dead"], p_ops * share))
        check(ops["dead"] >= 2.5 * reps["dead"],
              "ops: %d packets into the dead link >= 2.5 x reps (%d)"
              % (ops["dead"], reps["dead"]))
        e = results["ecmp"]
        print("ecmp: %d packets into the dead link: %s" % (
            e["dead"], "its flows' paths crossed the failed link and recovered after the "
            "routes converged" if e["dead"] > 0 else
            "none of its flows' paths crossed spine1 (each ECMP flow keeps one EV; `tools/"
            "fabric paths` maps EVs to spines), so this run checks delivery through the "
            "link change only"))
    except KeyboardInterrupt:
        FAILED.append("interrupted")
        print("interrupted", flush=True)
    except Exception as e:  # a setup step failed: report it as a failure
        FAILED.append("setup")
        print("FAIL: %s" % e, flush=True)
    finally:
        fb.cleanup()
        left = [n for n in subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE,
                                          text=True).stdout.split()
                if n.startswith(fb.name + "-")]
        shutil.rmtree(tmp, ignore_errors=True)
        if left:
            FAILED.append("cleanup")
            print("FAIL: namespaces left behind: %s" % " ".join(left))
    print("(%.0f s)" % (time.time() - t_start))
    print("%d passed, %d failed" % (len(PASSED), len(FAILED)))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
