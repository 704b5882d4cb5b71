#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Draw uet-perf and uet-sim JSON reports (doc/report.md), one or several
side by side: the goodput timeline, the FCT CDF, per-EV use and CE
fraction, per-port utilisation where the report has it (uet-sim
--port-series), and a ping-pong's one-way latency CDF (--pattern
pingpong). The CDFs are exact over the flows of an -n run and drawn from
the summary's percentiles (every 1%, 99.5, 99.9, 99.99) for a -D run's
messages and round trips. Needs python3-matplotlib (Debian).

usage: tools/plot.py REPORT.json [REPORT.json ...] [-o OUT.png] [--labels A,B,...]
                     [--what timeline,fct,evs,ports,latency] [--ports N]

A report that is a size sweep (a JSON array) contributes each size as its
own run. Panels without data in any run are left out; exit 2 when none is
left, or for a file that is not a report.
"""
import argparse
import json
import os
import sys

import mplenv

PANELS = ("timeline", "fct", "evs", "ports", "latency")


def runs_of(path, label):
    try:
        rep = json.load(open(path))
    except (OSError, ValueError) as e:
        print("plot.py: %s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)
    reps = rep if isinstance(rep, list) else [rep]
    out = []
    for r in reps:
        if not isinstance(r, dict) or "end" not in r or "start" not in r:
            print("plot.py: %s: not a uet-perf or uet-sim report" % path, file=sys.stderr)
            sys.exit(2)
        name = label
        if len(reps) > 1:
            name = "%s %s B" % (label, r["start"]["test_start"].get("size_bytes"))
        out.append((name, r))
    return out


def has(panel, rep):
    end = rep["end"]
    if panel == "timeline":
        return bool((end.get("timeline") or {}).get("rx_bytes"))
    if panel == "fct":
        return bool(fct_points(rep)[0])
    if panel == "evs":
        return bool(end.get("evs"))
    if panel == "latency":
        return bool(latency_points(rep)[0])
    return bool(((end.get("fabric") or {}).get("series") or {}).get("ports"))


def one_way_us(rep):
    """A ping-pong's rounds, half of each round trip in us: a pong (step 1)
    arrives back at the pinger, whose ping is the flow before it. None for
    a duration run, whose flows are the two streams, not rounds."""
    if (not (rep["end"].get("latency") or {}).get("round_trips") or
            rep["start"]["test_start"].get("duration_ns")):
        return []
    flows = {f["id"]: f for f in rep["end"].get("flows") or []}
    v = []
    for f in flows.values():
        ping = flows.get(f["id"] - 1)
        if (f["step"] == 1 and ping is not None and f["status"] == "ok" and
                f["recv_done_ns"] is not None and ping["submit_ns"] is not None):
            v.append((f["recv_done_ns"] - ping["submit_ns"]) / 2e3)
    return sorted(v)


def draw_timeline(ax, runs):
    warm_ns = max(r["end"].get("omitted_ns") or 0 for _, r in runs)
    if warm_ns:
        # -O: the warm-up the report's totals leave out, shaded.
        ax.axvspan(0, warm_ns / 1e3, color="0.9", label="warm-up (-O), not counted")
    for name, r in runs:
        tl = r["end"]["timeline"]
        b = tl["bin_ns"]
        ax.plot([(i + 1) * b / 1e3 for i in range(len(tl["rx_bytes"]))],
                [x * 8 / b for x in tl["rx_bytes"]], label=name, lw=1)
    ax.set_xlabel("time (us)")
    ax.set_ylabel("goodput received (Gb/s)")
    ax.set_title("goodput timeline")


def cdf_points(summary, scale):
    """A summary's CDF (its "cdf": [percent, ns] pairs) as x (ns / scale)
    and y (fraction) lists."""
    cdf = (summary or {}).get("cdf") or []
    return [ns / scale for _, ns in cdf], [p / 100 for p, _ in cdf]


def exact_points(v):
    v = sorted(v)
    return v, [(i + 1) / len(v) for i in range(len(v))]


def fct_points(rep):
    """Each flow's FCT in us where the flows have one (-n runs); else the
    summary's CDF (duration runs: FCTs of messages)."""
    v = [f["fct_ns"] / 1e3 for f in rep["end"].get("flows") or [] if f.get("fct_ns")]
    return exact_points(v) if v else cdf_points(rep["end"].get("fct"), 1e3)


def latency_points(rep):
    """One-way latency in us: each round of a -n ping-pong, else the
    round trips' CDF (-D), halved."""
    v = one_way_us(rep)
    if v:
        return exact_points(v)
    if not (rep["end"].get("latency") or {}).get("round_trips"):
        return [], []
    return cdf_points(rep["end"]["latency"].get("rtt"), 2e3)


def draw_fct(ax, runs):
    for name, r in runs:
        x, y = fct_points(r)
        ax.step(x, y, where="post", label=name)
    ax.set_xlabel("FCT (us)")
    ax.set_ylabel("fraction of flows")
    ax.set_title("FCT CDF (sender: submit to acknowledged)")


def draw_evs(ax, runs):
    ax2 = ax.twinx()
    for name, r in runs:
        evs = sorted(r["end"]["evs"], key=lambda e: e["ev"])
        ax.plot([e["ev"] for e in evs], [e["tx_pkts"] for e in evs], ".", ms=3,
                label="%s packets" % name)
        ax2.plot([e["ev"] for e in evs], [e["ce_fraction"] for e in evs], "x", ms=3,
                 label="%s CE fraction" % name)
    ax.set_xlabel("EV (UDP source port)")
    ax.set_ylabel("data packets sent")
    ax2.set_ylabel("CE fraction of its ACKs")
    ax2.set_ylim(0, 1)
    ax.set_title("per-EV use")


def draw_latency(ax, runs):
    for name, r in runs:
        x, y = latency_points(r)
        ax.step(x, y, where="post", label=name)
    ax.set_xlabel("one-way latency (us, half the round trip)")
    ax.set_ylabel("fraction of round trips")
    ax.set_title("ping-pong latency CDF")


def draw_ports(ax, runs, max_ports):
    for name, r in runs:
        ser = r["end"]["fabric"]["series"]
        for p in ser["ports"][:max_ports]:
            t = [(ser["start_ns"] + (i + 1) * ser["interval_ns"]) / 1e3
                 for i in range(len(p["util"]))]
            ax.plot(t, p["util"], lw=0.8,
                    label=p["port"] if len(runs) == 1 else "%s %s" % (name, p["port"]))
    ax.set_xlabel("time (us)")
    ax.set_ylabel("utilisation")
    ax.set_ylim(0, 1.05)
    ax.set_title("per-port utilisation (first %d ports)" % max_ports)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("reports", nargs="+")
    ap.add_argument("-o", "--out", default="plot.png")
    ap.add_argument("--labels", help="comma-separated names of the reports (default: "
                    "their file names)")
    ap.add_argument("--what", default=",".join(PANELS),
                    help="panels: timeline, fct, evs, ports, latency")
    ap.add_argument("--ports", type=int, default=8, help="ports drawn per run (8)")
    a = ap.parse_args()
    mplenv.need_pyplot("plot.py")
    labels = a.labels.split(",") if a.labels else [os.path.basename(p) for p in a.reports]
    if len(labels) != len(a.reports):
        print("plot.py: --labels: %d names for %d reports" % (len(labels), len(a.reports)),
              file=sys.stderr)
        return 2
    want = [w.strip() for w in a.what.split(",") if w.strip()]
    for w in want:
        if w not in PANELS:
            print("plot.py: --what: unknown panel '%s' (%s)" % (w, ", ".join(PANELS)),
                  file=sys.stderr)
            return 2
    runs = [r for p, l in zip(a.reports, labels) for r in runs_of(p, l)]
    panels = [w for w in want if any(has(w, r) for _, r in runs)]
    if not panels:
        print("plot.py: nothing to draw: the reports have none of %s" % ", ".join(want),
              file=sys.stderr)
        return 2
    plt = mplenv.pyplot("plot.py", a.out)
    if plt is None:
        return 1
    cols = 2 if len(panels) > 1 else 1
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 3.8 * rows), squeeze=False)
    for ax, panel in zip(axes.flat, panels):
        sub = [(n, r) for n, r in runs if has(panel, r)]
        if panel == "timeline":
            draw_timeline(ax, sub)
        elif panel == "fct":
            draw_fct(ax, sub)
        elif panel == "evs":
            draw_evs(ax, sub)
        elif panel == "latency":
            draw_latency(ax, sub)
        else:
            draw_ports(ax, sub, a.ports)
        ax.legend(fontsize=7, loc="best")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(a.out, dpi=90)
    warm_ns = max(r["end"].get("omitted_ns") or 0 for _, r in runs)
    print("%s: %s from %d run%s%s" % (a.out, ", ".join(panels), len(runs),
                                      "" if len(runs) == 1 else "s",
                                      "; the first %.3f us shaded: warm-up" % (warm_ns / 1e3)
                                      if warm_ns and "timeline" in panels else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
