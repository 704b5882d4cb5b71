#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The numbers of tools/demo_mpi.sh: one row per load balancer.

Reads, for each load balancer LB, what tools/demo_mpi.sh left in the
output directory (LB.json: mpi_alltoall's timeline, every all-to-all's end
in seconds from the job's start, and the job's start on CLOCK_REALTIME;
LB.counters-{before,after}.json and LB.snmp-{before,after}.txt: the
routers' counters around the run) and prints the comparison: the job's
completion time, the goodput of the all-to-alls that ended before the
failure, while the link was down, and after it came back (bytes moved
between hosts x 8 / the phase's length), the longest all-to-all, and the
packets that went into the dead link (router drops, as tools/demo/analyze.py
counts them). Writes summary.json and, with matplotlib, mpi_alltoall.png.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analyze import parse_snmp, router_drops  # noqa: E402
import mplenv  # noqa: E402


def phase_gbps(ends, per_iter, a, b):
    """Goodput of the all-to-alls that ended in [a, b) seconds, in Gb/s."""
    if b <= a:
        return None
    n = sum(1 for t in ends if a <= t < b)
    return n * per_iter * 8 / (b - a) / 1e9


def load_timeline(out, lb):
    """(ends, bytes per step, errors, aborted): the job's JSON, or where MPI
    aborted it, the steps it wrote as it went."""
    path = os.path.join(out, lb + ".json")
    if os.path.exists(path):
        tl = json.load(open(path))
        return tl["iter_end_s"], tl["bytes_per_iter"], tl["errors"], False
    with open(path + ".steps") as f:
        lines = f.read().split("\n")
    per = int(lines[0].split()[1])
    return [float(x) for x in lines[1:] if x.strip()], per, 0, True


def transport(out, lb):
    """The ranks' transport counters summed (FI_UET_REPORT's files)."""
    tot = {}
    n = 0
    for name in sorted(os.listdir(out)):
        if name.startswith(lb + ".rank") and name.endswith(".report.json"):
            t = json.load(open(os.path.join(out, name)))["end"]["transport"]
            for k, v in t.items():
                tot[k] = tot.get(k, 0) + v
            n += 1
    return tot if n else None


def analyze_lb(out, lb, down, up):
    ends, per, errors, aborted = load_timeline(out, lb)
    log = open(os.path.join(out, lb + ".txt"), errors="replace").read()
    failed = log.count("failed: retry limit reached")
    before = json.load(open(os.path.join(out, lb + ".counters-before.json")))
    after = json.load(open(os.path.join(out, lb + ".counters-after.json")))
    drops = router_drops(before, after, parse_snmp(os.path.join(out, lb + ".snmp-before.txt")),
                         parse_snmp(os.path.join(out, lb + ".snmp-after.txt")))
    tr = transport(out, lb) or {}
    gaps = [b - a for a, b in zip([0.0] + ends[:-1], ends)] or [0.0]
    worst = max(range(len(gaps)), key=lambda i: gaps[i])
    done = ends[-1] if ends else 0.0
    return {
        "lb": lb,
        "all_to_alls": len(ends),
        "aborted": aborted,
        "connections_failed": failed,
        "completion_s": None if aborted else done,
        "errors": errors,
        "gbps_before": phase_gbps(ends, per, 0, min(down, done)),
        "gbps_down": phase_gbps(ends, per, down, min(up, done)),
        "gbps_after": phase_gbps(ends, per, up, done) if done > up else None,
        "longest_s": gaps[worst],
        "longest_ends_s": ends[worst] if ends else 0.0,
        "dead_link_pkts": sum(drops.values()),
        "retx_pkts": tr.get("tx_retx_pkts"),
        "rto_events": tr.get("rto_events"),
        "lb_freezes": tr.get("lb_freezes"),
        "path_failures": tr.get("path_failures"),
        "timeline": ends,
        "bytes_per_iter": per,
    }


def fmt(v, spec="%.2f"):
    return "-" if v is None else spec % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--lb", required=True, help="comma-separated load balancers")
    ap.add_argument("--link", required=True)
    ap.add_argument("--down", type=float, required=True, help="the link went down (s)")
    ap.add_argument("--up", type=float, required=True, help="and came back (s)")
    ap.add_argument("--no-plot", action="store_true")
    a = ap.parse_args()
    if not a.no_plot:
        mplenv.need_pyplot("analyze_mpi.py")
    rows = [analyze_lb(a.out, lb, a.down, a.up) for lb in a.lb.split(",")]
    print("MPI all-to-all, steps of %d B between hosts each; %s down from %.1f s to %.1f s"
          % (rows[0]["bytes_per_iter"], a.link, a.down, a.up))
    hdr = ("%-8s %12s %12s %10s %11s %16s %10s %7s %5s %8s %6s"
           % ("LB", "completion", "Gb/s before", "Gb/s down", "Gb/s after", "longest step",
              "dead-link", "retx", "RTOs", "freezes", "errors"))
    print(hdr)
    for r in rows:
        done = ("%11.2fs" % r["completion_s"] if not r["aborted"]
                else "%12s" % ("aborted@%.1f" % r["timeline"][-1] if r["timeline"] else "aborted"))
        print("%-8s %s %12s %10s %11s %9.3fs@%5.2f %10d %7s %5s %8s %6d"
              % (r["lb"], done, fmt(r["gbps_before"]), fmt(r["gbps_down"]),
                 fmt(r["gbps_after"]), r["longest_s"], r["longest_ends_s"], r["dead_link_pkts"],
                 fmt(r["retx_pkts"], "%d"), fmt(r["rto_events"], "%d"),
                 fmt(r["lb_freezes"], "%d"), r["errors"]))
    for r in rows:
        if r["aborted"]:
            print("%s: MPI aborted the job after %d all-to-alls: %d connections gave up "
                  "(retry limit reached) while the link was dead" % (r["lb"], r["all_to_alls"],
                                                                    r["connections_failed"]))
    print("Gb/s: bytes of the all-to-alls that ended in the phase (between hosts) x 8 / its "
          "length; dead-link: packets (data, ACKs) that went into the failed link; retx, RTOs, "
          "freezes: the ranks' transport counters summed (FI_UET_REPORT)")
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump({"link": a.link, "down_s": a.down, "up_s": a.up,
                   "runs": [{k: v for k, v in r.items() if k != "timeline"} for r in rows]},
                  f, indent=1)
    if not a.no_plot:
        plt = mplenv.pyplot("analyze_mpi.py", "mpi_alltoall.png")
        if plt is None:
            return
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for r in rows:
            ax.step(r["timeline"], range(1, len(r["timeline"]) + 1), where="post", label=r["lb"])
        ax.axvspan(a.down, a.up, color="red", alpha=0.12, label="%s down" % a.link)
        ax.set_xlabel("seconds since the job started")
        ax.set_ylabel("all-to-alls completed")
        ax.set_title("MPI all-to-all over libuet (provider uet) through a link failure")
        ax.legend()
        fig.tight_layout()
        png = os.path.join(a.out, "mpi_alltoall.png")
        fig.savefig(png, dpi=100)
        print("plot: %s" % png)


if __name__ == "__main__":
    main()
