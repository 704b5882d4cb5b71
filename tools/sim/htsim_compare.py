#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""uet-sim beside the UEC reference simulator (uet-htsim) on its public
1024-host validation scenario, as a markdown table.

usage: tools/sim/htsim_compare.py [--uet-sim PATH] [--seeds N] [--jobs N]
                                  [--keep DIR] [--check] [--out FILE]

The scenario, as uet-htsim's validate_outputs runs it: a 3-tier k = 16 fat
tree (1024 hosts), 100 Gb/s links of 1 us, no switch latency, 4 KiB MTU,
a permutation of 2 MB (2,000,000 B) messages, 128 EVs, NSCC (sender
only), trimming, one-BDP queues, ECN between 20% and 80%. Load balancers:
the reference's "oblivious" (OPS with a permuted EV order), bitmap, REPS
with an ACK per 16 KiB (the reference's sack_threshold) and REPS with an
ACK per packet; each healthy and with "-failed 8" (--failure
htsim-failed:0:8: the core-to-aggregation direction of aggregation switch
0's 8 uplinks at 25% of their rate, buffer and ECN thresholds).

Each cell is the sender-side max FCT (a message is done when its ACKs
cover it: the reference's "finished at"), the mean over --seeds seeds
(default 3). The reference's figures are its committed outputs. --check
exits 1 if a cell is more than 10% off or the ordering differs.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

# uet-htsim validate_outputs: max FCT (us), healthy / -failed 8.
REFERENCE = {
    "ops": (212.79, 280.77),
    "bitmap": (200.51, 220.27),
    "reps16k": (208.24, 245.82),
    "reps1": (198.25, 206.68),
}

LBS = [
    ("ops", "OPS (permuted)", ["--lb", "ops", "--ops-permute", "--ack-every", "16384"]),
    ("bitmap", "bitmap", ["--lb", "bitmap", "--ack-every", "16384"]),
    ("reps16k", "REPS, an ACK per 16 KiB", ["--lb", "reps", "--ack-every", "16384"]),
    ("reps1", "REPS, an ACK per packet", ["--lb", "reps", "--ack-every", "0"]),
]

FABRIC = ["--nodes", "1024", "--tiers", "3", "--link-gbps", "100",
          "--link-latency-ns", "1000", "--switch-latency-ns", "0", "--mtu", "4096",
          "--trim", "--ev-count", "128", "--cc", "nscc", "--pattern", "permutation",
          "--size", "2000000", "--iters", "1"]

DEGRADED = ["--failure", "htsim-failed:0:8"]


def run_one(exe, tmp, key, args, degraded, seed):
    tag = "%s-%s-%d" % (key, "failed8" if degraded else "healthy", seed)
    path = os.path.join(tmp, tag + ".json")
    cmd = [exe] + FABRIC + args + (DEGRADED if degraded else []) + \
        ["--seed", str(seed), "-J", path]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("uet-sim failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
    end = json.load(open(path))["end"]
    flows = end["flows"]
    losses = end["losses"]
    tr = end["transport"]
    return {
        "key": key, "degraded": degraded, "seed": seed, "cmd": cmd[1:],
        "wall_s": time.time() - t0,
        "fct_max_us": max(f["fct_ns"] for f in flows) / 1e3,
        "fct_recv_max_us": max(f["fct_recv_ns"] for f in flows) / 1e3,
        "ok": end["flow_counts"]["ok"], "flows": end["flow_counts"]["total"],
        "retx": losses["retransmissions"], "nack": losses["declared"]["nack"],
        "spurious": losses["spurious_retx"], "dups": losses["duplicates_discarded"],
        "rto": tr["rto_events"], "spurious_rto": losses["spurious_rto"],
        "trims": losses["trims"], "drops": losses["network_drops"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--uet-sim", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "apps", "uet-sim",
        "uet-sim"))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", help="keep the JSON reports in this directory")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless every cell is within 10%% and the order holds")
    ap.add_argument("--out", help="also write the markdown to this file")
    a = ap.parse_args()
    if not os.access(a.uet_sim, os.X_OK):
        sys.exit("no uet-sim at %s (build first: tools/setup.sh)" % a.uet_sim)
    tmp = a.keep or tempfile.mkdtemp(prefix="htsim-compare-")
    os.makedirs(tmp, exist_ok=True)
    jobs = [(k, args, deg, s) for k, _, args in LBS for deg in (False, True)
            for s in range(1, a.seeds + 1)]
    t0 = time.time()
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        runs = list(pool.map(lambda j: run_one(a.uet_sim, tmp, *j), jobs))
    wall = time.time() - t0
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)

    cell = {}
    for k, _, _ in LBS:
        for deg in (False, True):
            rs = [r for r in runs if r["key"] == k and r["degraded"] == deg]
            cell[(k, deg)] = rs
    out = []
    out.append("| Load balancer | healthy: uet-sim | reference | diff | -failed 8: uet-sim "
               "| reference | diff |")
    out.append("|---|---|---|---|---|---|---|")
    worst = 0.0
    for k, name, _ in LBS:
        row = ["| %s" % name]
        for i, deg in enumerate((False, True)):
            v = [r["fct_max_us"] for r in cell[(k, deg)]]
            m = statistics.mean(v)
            ref = REFERENCE[k][i]
            d = (m - ref) / ref * 100
            worst = max(worst, abs(d))
            row.append("%.1f us (%.1f-%.1f)" % (m, min(v), max(v)))
            row.append("%.2f us" % ref)
            row.append("%+.1f%%" % d)
        out.append(" | ".join(row) + " |")
    order_ok = True
    for i, deg in enumerate((False, True)):
        ours = sorted(LBS, key=lambda l: statistics.mean(
            r["fct_max_us"] for r in cell[(l[0], deg)]))
        refs = sorted(LBS, key=lambda l: REFERENCE[l[0]][i])
        same = [l[0] for l in ours] == [l[0] for l in refs]
        order_ok &= same
        out.append("")
        out.append("Ordering, %s: uet-sim %s; reference %s%s" % (
            "-failed 8" if deg else "healthy", " < ".join(l[1] for l in ours),
            " < ".join(l[1] for l in refs), "" if same else " (differs)"))
    out.append("")
    out.append("| Load balancer | fabric | retransmissions (by NACK) | spurious "
               "retransmissions | duplicates discarded | RTOs (spurious) | trims "
               "| drops |")
    out.append("|---|---|---|---|---|---|---|---|")
    for k, name, _ in LBS:
        for deg in (False, True):
            rs = cell[(k, deg)]
            tot = lambda f: sum(r[f] for r in rs)
            out.append("| %s | %s | %d (%d) | %d (%.1f%%) | %d | %d (%d) | %d | %d |" % (
                name, "-failed 8" if deg else "healthy", tot("retx"), tot("nack"),
                tot("spurious"), 100.0 * tot("spurious") / max(1, tot("retx")),
                tot("dups"), tot("rto"), tot("spurious_rto"), tot("trims"), tot("drops")))
    bad = [r for r in runs if r["ok"] != r["flows"]]
    out.append("")
    out.append("Sums over %d seeds; %d runs in %.0f s on %d jobs; largest gap %.1f%%; "
               "every flow completed: %s." % (a.seeds, len(runs), wall, a.jobs, worst,
                                               "yes" if not bad else "NO"))
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    print("command (one run): uet-sim %s" % " ".join(runs[0]["cmd"][:-2]), file=sys.stderr)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if a.check and (worst > 10.0 or not order_ok or bad):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
