#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The REPS paper's scenarios at full size on uet-sim, as markdown tables.

usage: tools/sim/paper_trends.py [--uet-sim PATH] [--quick] [--only N,...]
                                 [--s3-seeds 1,2,...] [--out FILE] [--keep DIR]

Scenarios (the CI-sized versions are tests/sim/test_trends.c):
  1  symmetric: 1024 hosts, 8 MiB permutation and tornado, ECMP / OPS / REPS
  2  asymmetric: one of 8 uplinks at 200 Gb/s (16 hosts, 32 MiB tornado);
     3% of ToR uplinks at half rate (128 hosts, 8 MiB permutation)
  3  transient failures: 128 hosts, 64 MiB permutation, a ToR uplink down
     100 us at 100 us and another 200 us at 350 us; OPS, REPS and REPS with
     the paper's 100 us freeze and without one, over --s3-seeds (default
     1-5: one failure's timing against the flows' makes a single run noisy)
  4  incast 8:1, 32 MiB, NSCC, DCTCP and EQDS, trimming
  5  EV-set size: 1024 hosts, 8 MiB permutation, 32 / 256 / 65535 EVs
--quick runs them at 128 hosts where the paper uses 1024 (minutes, not tens).
Every run is printed as its uet-sim command line; the JSON reports stay in
a temporary directory (--keep DIR keeps them).
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


# Every run's losses, for the closing table: (tag, network drops,
# retransmissions, spurious ones, RTO-declared losses).
RUNS = []


def sim(args, exe, tmp, tag, record=True):
    path = os.path.join(tmp, tag + ".json")
    cmd = [exe] + args + ["-J", path]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    print("  %s  (%.1f s)" % (" ".join(cmd[1:]), wall), file=sys.stderr)
    if p.returncode not in (0, 1):
        sys.exit("uet-sim failed: %s\n%s" % (" ".join(cmd), p.stderr))
    rep = json.load(open(path))
    end = rep["end"]
    losses = end["losses"]
    row = (tag, losses["network_drops"], losses["retransmissions"],
           losses["spurious_retx"], losses["declared"]["timeout"])
    if record:
        RUNS.append(row)
    return {
        "losses": row[1:],
        "compl_us": end["completion_ns"] / 1e3 if end["completion_ns"] else float("nan"),
        "fct_max_us": (end["fct"]["max_ns"] or 0) / 1e3,
        "fct_p99_us": (end["fct"]["p99_ns"] or 0) / 1e3,
        "ok": end["flow_counts"]["ok"],
        "flows": end["flow_counts"]["total"],
        "drops": end["fabric"]["ports"]["drops_queue"] + end["fabric"]["ports"]["drops_down"],
        "drops_down": end["fabric"]["ports"]["drops_down"],
        "trims": end["fabric"]["ports"]["trims"],
        "failures": end["fabric"]["failures"],
        "flows_rec": end.get("flows", []),
        "wall_s": wall,
    }


def common(lb, cc="nscc"):
    return ["--lb", lb, "--cc", cc, "--ack-every", "0", "--iters", "1"]


def s1(a, exe, tmp, out):
    n = "128" if a.quick else "1024"
    out.append("### 1. Healthy symmetric (%s hosts, 8 MiB)\n" % n)
    out.append("| pattern | ECMP max FCT (us) | OPS | REPS | REPS vs OPS | REPS vs ECMP |")
    out.append("|---|---|---|---|---|---|")
    for pat in ("permutation", "tornado"):
        r = {lb: sim(["--nodes", n, "--pattern", pat, "--size", "8M"] + common(lb), exe, tmp,
                     "s1-%s-%s" % (pat, lb)) for lb in ("ecmp", "ops", "reps")}
        out.append("| %s | %.1f | %.1f | %.1f | %.2fx | %.2fx |" % (
            pat, r["ecmp"]["fct_max_us"], r["ops"]["fct_max_us"], r["reps"]["fct_max_us"],
            r["ops"]["fct_max_us"] / r["reps"]["fct_max_us"],
            r["ecmp"]["fct_max_us"] / r["reps"]["fct_max_us"]))
    out.append("")


def s2(a, exe, tmp, out):
    out.append("### 2. Asymmetric\n")
    out.append("| setup | ECMP (us) | OPS (us) | REPS (us) | OPS / REPS |")
    out.append("|---|---|---|---|---|")
    r = {lb: sim(["--nodes", "16", "--hosts-per-tor", "8", "--pattern", "tornado", "--size", "32M",
                  "--failure", "link-rate:0:tor0.up0:200:buffer=keep"] + common(lb), exe, tmp,
                 "s2a-" + lb) for lb in ("ecmp", "ops", "reps")}
    out.append("| one of 8 uplinks at 200G, 32 MiB tornado, completion | %.1f | %.1f | %.1f | "
               "%.2fx |" % (r["ecmp"]["compl_us"], r["ops"]["compl_us"], r["reps"]["compl_us"],
                             r["ops"]["compl_us"] / r["reps"]["compl_us"]))
    r = {lb: sim(["--nodes", "128", "--pattern", "permutation", "--size", "8M",
                  "--failure", "degrade:0:3%:tor-up:0.5:buffer=keep"] + common(lb), exe, tmp,
                 "s2b-" + lb) for lb in ("ecmp", "ops", "reps")}
    out.append("| 3%% of ToR uplinks at half rate, 128 hosts, 8 MiB permutation, max FCT | %.1f | "
               "%.1f | %.1f | %.2fx |" % (r["ecmp"]["fct_max_us"], r["ops"]["fct_max_us"],
                                          r["reps"]["fct_max_us"],
                                          r["ops"]["fct_max_us"] / r["reps"]["fct_max_us"]))
    out.append("")


def s3(a, exe, tmp, out):
    seeds = [x.strip() for x in a.s3_seeds.split(",")]
    out.append("### 3. Transient ToR-uplink failures (128 hosts, 64 MiB permutation, "
               "seeds %s)\n" % ",".join(seeds))
    out.append("Median over the seeds [min-max]; a sender's span is from its first to "
               "its last drop at the failed link.\n")
    out.append("| LB | completion (us) | packets dropped at the failed links | last drop "
               "after failure 1 / 2 (us) | senders' span at failure 2, median / max (us) |")
    out.append("|---|---|---|---|---|")
    setups = (("OPS", "ops", [], "ops"), ("REPS", "reps", [], "reps"),
              ("REPS, --reps-freeze-ns 100000", "reps", ["--reps-freeze-ns", "100000"],
               "reps-freeze100us"),
              ("REPS, --reps-no-freeze", "reps", ["--reps-no-freeze"], "reps-nofreeze"))
    med = {}
    for name, lb, extra, tag in setups:
        rs = []
        for sd in seeds:
            rs.append(sim(["--nodes", "128", "--pattern", "permutation", "--size", "64M",
                           "--failure", "link-down:100us:tor0.up0:for=100us",
                           "--failure", "link-down:350us:tor1.up3:for=200us"] +
                          common(lb) + extra + ["--seed", sd], exe, tmp,
                          "s3-%s-s%s" % (tag, sd), record=False))
        RUNS.append(("s3-%s (%d seeds)" % (tag, len(rs)),) +
                    tuple(sum(r["losses"][i] for r in rs) for i in range(4)))

        def span(vals, fmt="%.1f"):
            return (fmt + " [" + fmt + "-" + fmt + "]") % (
                statistics.median(vals), min(vals), max(vals))
        after = []
        for k in range(2):
            v = [(r["failures"][k]["last_drop_ns"] - r["failures"][k]["at_ns"]) / 1e3
                 for r in rs if r["failures"][k]["last_drop_ns"]]
            after.append("%.1f" % statistics.median(v) if v else "-")
        sp50 = [r["failures"][1]["senders"]["span_p50_ns"] / 1e3 for r in rs]
        spmax = [r["failures"][1]["senders"]["span_max_ns"] / 1e3 for r in rs]
        med[name] = (statistics.median(r["compl_us"] for r in rs),
                     statistics.median(r["drops_down"] for r in rs))
        out.append("| %s | %s | %s | %s | %.1f / %.1f |" % (
            name, span([r["compl_us"] for r in rs]),
            span([r["drops_down"] for r in rs], "%d"), " / ".join(after),
            statistics.median(sp50), statistics.median(spmax)))
    out.append("\nMedian completion OPS / REPS: %.2fx (above 1: REPS faster); REPS drops "
               "%.1fx fewer.\n" % (med["OPS"][0] / med["REPS"][0],
                                    med["OPS"][1] / max(1, med["REPS"][1])))


def s4(a, exe, tmp, out):
    out.append("### 4. Incast 8:1 (32 MiB each, trimming)\n")
    out.append("| CC | completion (us) | of line rate | trims | drops | FCT spread (min/max) |")
    out.append("|---|---|---|---|---|---|")
    ideal = 8 * 32 * 1048576 * 8 / 400e3
    for cc in ("nscc", "dctcp-mprdma", "dctcp", "eqds"):
        r = sim(["--nodes", "16", "--hosts-per-tor", "8", "--pattern", "incast", "--fanin", "8",
                 "--root", "0", "--size", "32M", "--trim"] + common("reps", cc), exe, tmp,
                "s4-" + cc)
        fct = [x["fct_ns"] for x in r["flows_rec"] if x["fct_ns"]]
        out.append("| %s | %.1f | %.0f%% | %d | %d | %.2f |" % (
            cc.upper(), r["compl_us"], 100 * ideal / r["compl_us"], r["trims"], r["drops"],
            min(fct) / max(fct)))
    out.append("")


def s5(a, exe, tmp, out):
    n = "128" if a.quick else "1024"
    out.append("### 5. EV-set size (%s hosts, 8 MiB permutation), max FCT vs 65535 EVs\n" % n)
    out.append("| LB | 32 EVs | 256 EVs | 65535 EVs (us) |")
    out.append("|---|---|---|---|")
    for lb in ("ops", "reps"):
        fct = []
        for base, cnt in (("49152", "32"), ("49152", "256"), ("1", "65535")):
            fct.append(sim(["--nodes", n, "--pattern", "permutation", "--size", "8M",
                            "--ev-base", base, "--ev-count", cnt] + common(lb), exe, tmp,
                           "s5-%s-%s" % (lb, cnt))["fct_max_us"])
        out.append("| %s | %+.0f%% | %+.0f%% | %.1f |" % (
            lb.upper(), 100 * fct[0] / fct[2] - 100, 100 * fct[1] / fct[2] - 100, fct[2]))
    out.append("")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--uet-sim", default="build/apps/uet-sim/uet-sim")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="1,2,3,4,5")
    ap.add_argument("--out")
    ap.add_argument("--s3-seeds", default="1,2,3,4,5")
    ap.add_argument("--keep")
    a = ap.parse_args()
    tmp = a.keep or tempfile.mkdtemp(prefix="uet-trends-")
    os.makedirs(tmp, exist_ok=True)
    try:
        run_all(a, tmp)
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def run_all(a, tmp):
    out = []
    t0 = time.time()
    for k in a.only.split(","):
        {"1": s1, "2": s2, "3": s3, "4": s4, "5": s5}[k.strip()](a, a.uet_sim, tmp, out)
    out.append("### Retransmissions per run\n")
    out.append("| run | network drops | retransmissions | spurious (receiver saw a duplicate) "
               "| losses declared by RTO |")
    out.append("|---|---|---|---|---|")
    for tag, drops, retx, spur, rto in RUNS:
        out.append("| %s | %d | %d | %d (%.0f%%) | %d |" % (
            tag, drops, retx, spur, 100.0 * spur / retx if retx else 0.0, rto))
    out.append("")
    out.append("(%.0f s of wall time on this machine)" % (time.time() - t0))
    text = "\n".join(out) + "\n"
    if a.out:
        open(a.out, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
