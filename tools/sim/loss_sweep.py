#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Loss detection across fabrics, load balancers and patterns, on uet-sim.

usage: tools/sim/loss_sweep.py [--plan oat|full|ci] [--modes adaptive,nack-rto]
           [--seeds 1,2] [--lbs ops,reps,...] [--patterns permutation,...]
           [--nodes 128] [-j N] [--uet-sim PATH] [--baseline PATH] [--out FILE]

Per cell (a fabric, a load balancer, a pattern) and loss-detection mode,
over the seeds: max FCT (median and range), retransmissions, the spurious
ones (the receiver got a duplicate), network drops and RTO-declared
losses. Then the targets, cell by cell:

  - no drop and no trim in any run of a cell (a loss-free fabric): no
    retransmission at all;
  - drops: spurious retransmissions at most 5% of retransmissions, and a
    max FCT no worse than the better of the --baseline build's adaptive
    mode and nack-rto (medians over the seeds, within their spread);
  - trimming fabrics: no more spurious retransmissions than the --baseline
    build's same mode (none without a baseline).

Only the modes of --judge (default: adaptive, the default) are judged;
the others are printed beside them.

Fabrics. --plan oat (default) varies one thing at a time around a base
(2 tiers, 100 Gb/s, 500 ns links, 1-BDP buffers, no trimming, ECN
marking at 20-80% of the buffer): 3 tiers; 400 and 800 Gb/s; 1 us links;
0.5, 2 and 4 BDP buffers; trimming; no ECN marking. --plan full crosses
every axis (tiers 2,3 x 100,400,800 Gb/s x 0.5,1 us x 0.5,1,4 BDP x trim
off,on x ECN on,off: 144 fabrics). --plan ci is the base fabric alone;
--plan focus the base fabric (it drops) and the same at 400 Gb/s
(uet-sim's default, which here drops nothing).
Patterns: permutation and tornado of 2 MiB per host, incast 8:1 of
2 MiB, all-to-all of 64 KiB per pair.

Every run is printed as its uet-sim command line on stderr; the JSON
reports stay in a temporary directory (--keep DIR keeps them).
"""
import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

BASE = {"tiers": 2, "gbps": 100, "lat_ns": 500, "buf_bdp": 1.0, "trim": False, "ecn": True}
OAT = [{}, {"tiers": 3}, {"gbps": 400}, {"gbps": 800}, {"lat_ns": 1000}, {"buf_bdp": 0.5},
       {"buf_bdp": 2.0}, {"buf_bdp": 4.0}, {"trim": True}, {"ecn": False}]
PATTERNS = {
    "permutation": ["--pattern", "permutation", "--size", "2M"],
    "tornado": ["--pattern", "tornado", "--size", "2M"],
    "incast": ["--pattern", "incast", "--fanin", "8", "--size", "2M"],
    "alltoall": ["--pattern", "alltoall", "--size", "64K"],
}


def fabrics(plan):
    if plan == "ci":
        return [dict(BASE)]
    if plan == "focus":
        return [dict(BASE), dict(BASE, gbps=400)]
    if plan == "oat":
        return [dict(BASE, **d) for d in OAT]
    keys = ["tiers", "gbps", "lat_ns", "buf_bdp", "trim", "ecn"]
    vals = [[2, 3], [100, 400, 800], [500, 1000], [0.5, 1.0, 4.0], [False, True], [True, False]]
    return [dict(zip(keys, v)) for v in itertools.product(*vals)]


def fabric_name(f):
    return "%dt %dG %.1fus %gBDP%s%s" % (f["tiers"], f["gbps"], f["lat_ns"] / 1000.0,
                                       f["buf_bdp"], " trim" if f["trim"] else "",
                                       " noECN" if not f["ecn"] else "")


def bdp_bytes(exe, f, nodes, cache={}):
    """One BDP of the fabric, as uet-sim sizes its default buffers: read
    from a dry run's report (the fabric's buffer at --buffer-bytes 0)."""
    key = (f["tiers"], f["gbps"], f["lat_ns"], nodes)
    if key not in cache:
        p = subprocess.run([exe] + fabric_args(f, nodes, None) +
                           ["--pattern", "pair", "--size", "4K", "-n", "1", "-J", "-"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("uet-sim failed on a dry run:\n" + p.stderr)
        fab = json.loads(p.stdout)["start"]["test_start"]["fabric"]
        cache[key] = int(fab["buffer_bytes"])
    return cache[key]


def fabric_args(f, nodes, buf):
    a = ["--nodes", str(nodes), "--tiers", str(f["tiers"]), "--link-gbps", str(f["gbps"]),
         "--link-latency-ns", str(f["lat_ns"])]
    if buf is not None:
        a += ["--buffer-bytes", str(buf)]
    if f["trim"]:
        a += ["--trim"]
    if not f["ecn"]:
        a += ["--ecn-kmin-pct", "0", "--ecn-kmax-pct", "0"]
    return a


def run(exe, args, path, reuse):
    cmd = [exe] + args + ["-J", path]
    if not (reuse and os.path.exists(path)):
        print("  " + " ".join(cmd[1:]), file=sys.stderr)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode not in (0, 1) or not os.path.exists(path):
            sys.exit("uet-sim failed: %s\n%s" % (" ".join(cmd), p.stderr))
    end = json.load(open(path))["end"]
    l, ports = end["losses"], end["fabric"]["ports"]
    return {
        "fct_us": (end["fct"]["max_ns"] or 0) / 1e3,
        "ok": end["flow_counts"]["ok"] == end["flow_counts"]["total"],
        "retx": l["retransmissions"],
        "spur": l["spurious_retx"],
        "drops": ports["drops_queue"] + ports["drops_down"],
        "trims": ports["trims"],
        "rtos": l["declared"]["timeout"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plan", choices=("oat", "full", "ci", "focus"), default="oat")
    ap.add_argument("--modes", default="adaptive,nack-rto")
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--lbs", default="ops,reps,bitmap,ecmp,plb,flowlet")
    ap.add_argument("--patterns", default="permutation,tornado,incast,alltoall")
    ap.add_argument("--nodes", type=int, default=128)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--uet-sim", default="build/apps/uet-sim/uet-sim")
    ap.add_argument("--baseline", default=None,
                    help="another uet-sim build whose adaptive and nack-rto set the FCT bar")
    ap.add_argument("--judge", default="adaptive", help="modes the targets apply to")
    ap.add_argument("--extra", default="", help="more uet-sim options for every run")
    ap.add_argument("--keep", default=None)
    ap.add_argument("--reuse-baseline", action="store_true",
                    help="take the baseline's reports already in --keep DIR")
    ap.add_argument("--reuse", action="store_true",
                    help="take every report already in --keep DIR (tabulate again)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    for exe in [a.uet_sim] + ([a.baseline] if a.baseline else []):
        if not os.access(exe, os.X_OK):
            sys.exit("no %s: build first (tools/setup.sh)" % exe)
    modes = a.modes.split(",")
    seeds = [int(s) for s in a.seeds.split(",")]
    lbs = a.lbs.split(",")
    pats = a.patterns.split(",")
    for p in pats:
        if p not in PATTERNS:
            sys.exit("unknown pattern %s (%s)" % (p, ", ".join(PATTERNS)))
    tmp = a.keep or tempfile.mkdtemp(prefix="loss_sweep")
    os.makedirs(tmp, exist_ok=True)
    fabs = fabrics(a.plan)
    jobs = []
    builds = [("new", a.uet_sim)] + ([("base", a.baseline)] if a.baseline else [])
    for fi, f in enumerate(fabs):
        buf = int(bdp_bytes(a.uet_sim, f, a.nodes) * f["buf_bdp"])
        for lb, pat, mode, seed, (bname, exe) in itertools.product(lbs, pats, modes, seeds,
                                                                    builds):
            if bname == "base" and mode not in ("adaptive", "nack-rto"):
                continue
            args = (fabric_args(f, a.nodes, buf) + PATTERNS[pat] +
                    ["-n", "1", "--lb", lb, "--loss-detect", mode, "--seed", str(seed)] +
                    a.extra.split())
            path = os.path.join(tmp, "%s-f%d-%s-%s-%s-s%d.json" % (bname, fi, lb, pat, mode,
                                                                 seed))
            jobs.append(((bname, fi, lb, pat, mode), seed, exe, args, path))
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(lambda j: (j[0], j[1], run(
            j[2], j[3], j[4], a.reuse or (a.reuse_baseline and j[0][0] == "base"))), jobs))
    cells = {}
    for key, seed, r in results:
        cells.setdefault(key, []).append(r)

    def med(key, field):
        v = [r[field] for r in cells.get(key, [])]
        return statistics.median(v) if v else float("nan")

    def rng(key, field):
        v = [r[field] for r in cells.get(key, [])]
        return (min(v), max(v)) if v else (float("nan"),) * 2

    out = []
    out.append("Loss detection sweep: %d hosts, seeds %s, plan %s%s" % (
        a.nodes, a.seeds, a.plan, (", options: " + a.extra) if a.extra else ""))
    out.append("")
    out.append("| fabric | lb | pattern | mode | max FCT us (range) | retx | spurious | drops"
               " | RTO losses | all ok |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    verdicts = []
    per_fab = {}
    for fi, f in enumerate(fabs):
        for lb, pat in itertools.product(lbs, pats):
            for bname, mode in [("new", m) for m in modes] + (
                    [("base", m) for m in ("adaptive", "nack-rto") if m in modes]
                    if a.baseline else []):
                k = (bname, fi, lb, pat, mode)
                if k not in cells:
                    continue
                lo, hi = rng(k, "fct_us")
                out.append("| %s | %s | %s | %s%s | %.1f (%.1f-%.1f) | %d | %d | %d | %d | %s |" % (
                    fabric_name(f), lb, pat, mode, " (baseline)" if bname == "base" else "",
                    med(k, "fct_us"), lo, hi, sum(r["retx"] for r in cells[k]),
                    sum(r["spur"] for r in cells[k]), sum(r["drops"] for r in cells[k]),
                    sum(r["rtos"] for r in cells[k]),
                    "yes" if all(r["ok"] for r in cells[k]) else "NO"))
            for mode in [m for m in modes if m in a.judge.split(",")]:
                k = ("new", fi, lb, pat, mode)
                rs = cells.get(k, [])
                if not rs:
                    continue
                retx = sum(r["retx"] for r in rs)
                spur = sum(r["spur"] for r in rs)
                drops = sum(r["drops"] for r in rs)
                trims = sum(r["trims"] for r in rs)
                why = []
                if not all(r["ok"] for r in rs):
                    why.append("flows did not complete")
                if drops == 0 and trims == 0 and retx > 0:
                    why.append("loss-free, %d retransmissions" % retx)
                bk = ("base", fi, lb, pat, mode)
                bspur = sum(r["spur"] for r in cells[bk]) if bk in cells else 0
                if f["trim"] and spur > bspur:
                    why.append("trimming, %d spurious (baseline %d)" % (spur, bspur))
                if drops > 0 and retx > 0 and spur > 0.05 * retx:
                    why.append("%d of %d retransmissions spurious" % (spur, retx))
                if a.baseline and drops > 0:
                    bars = [med(("base", fi, lb, pat, m), "fct_us") for m in ("adaptive", "nack-rto")
                            if ("base", fi, lb, pat, m) in cells]
                    if bars:
                        bar = min(bars)
                        bk = [("base", fi, lb, pat, m) for m in ("adaptive", "nack-rto")
                              if med(("base", fi, lb, pat, m), "fct_us") == bar][0]
                        spread = rng(bk, "fct_us")[1] - rng(bk, "fct_us")[0]
                        if med(k, "fct_us") > bar + spread:
                            why.append("max FCT %.1f us over %.1f (+%.1f spread)" % (
                                med(k, "fct_us"), bar, spread))
                verdicts.append((fabric_name(f), lb, pat, mode, why))
                ratio = float("nan")
                if a.baseline:
                    bars = [med(("base", fi, lb, pat, m), "fct_us") for m in ("adaptive", "nack-rto")
                            if ("base", fi, lb, pat, m) in cells]
                    if bars:
                        ratio = med(k, "fct_us") / min(bars)
                per_fab.setdefault((fi, mode), []).append((why, rs, ratio))
    out.append("")
    # Totals per build and mode: loss-free runs' retransmissions, and the
    # spurious share and median max FCT of the runs that dropped.
    out.append("| build | mode | loss-free runs | their retransmissions | runs with drops | "
               "their retransmissions | spurious | median of max FCT, us |")
    out.append("|---|---|---|---|---|---|---|---|")
    for bname in [b for b, _ in builds]:
        for mode in modes:
            rs = [r for k, v in cells.items() if k[0] == bname and k[4] == mode for r in v]
            free = [r for r in rs if r["drops"] == 0 and r["trims"] == 0]
            lossy = [r for r in rs if r["drops"] > 0]
            if not rs:
                continue
            out.append("| %s | %s | %d | %d | %d | %d | %d (%.1f%%) | %.1f |" % (
                "baseline" if bname == "base" else "this", mode, len(free),
                sum(r["retx"] for r in free), len(lossy), sum(r["retx"] for r in lossy),
                sum(r["spur"] for r in lossy),
                100.0 * sum(r["spur"] for r in lossy) / max(1, sum(r["retx"] for r in lossy)),
                statistics.median(r["fct_us"] for r in rs)))
    out.append("")
    # Per fabric and judged mode: cells met, what loss-free runs resent,
    # the spurious share of the lossy runs, and each cell's max FCT (median
    # over the seeds) against the better of the baseline's two modes.
    out.append("| fabric | mode | cells met | loss-free runs: retransmissions | runs with drops:"
               " spurious / retransmissions | max FCT ratio, median (range) over the cells |")
    out.append("|---|---|---|---|---|---|")
    for (fi, mode), cs in sorted(per_fab.items()):
        runs = [r for _, rs, _ in cs for r in rs]
        free = [r for r in runs if r["drops"] == 0 and r["trims"] == 0]
        lossy = [r for r in runs if r["drops"] > 0]
        ratios = [x for _, _, x in cs if x == x]
        out.append("| %s | %s | %d of %d | %d | %d / %d | %s |" % (
            fabric_name(fabs[fi]), mode, sum(1 for w, _, _ in cs if not w), len(cs),
            sum(r["retx"] for r in free), sum(r["spur"] for r in lossy),
            sum(r["retx"] for r in lossy),
            "%.2f (%.2f-%.2f)" % (statistics.median(ratios), min(ratios), max(ratios))
            if ratios else "-"))
    out.append("")
    bad = [v for v in verdicts if v[4]]
    out.append("Targets: %d of %d cells met" % (len(verdicts) - len(bad), len(verdicts)))
    for fab, lb, pat, mode, why in bad:
        out.append("- %s, %s, %s, %s: %s" % (fab, lb, pat, mode, "; ".join(why)))
    text = "\n".join(out) + "\n"
    if a.out:
        open(a.out, "w").write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
