#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The numbers of tools/demo.sh: one row per load balancer.

Reads, for each load balancer LB, what tools/demo.sh left in the output
directory (LB.json: uet-perf's report; LB.anchor: wall-clock times of
uet-perf --exec-at hooks; LB.schedule.jsonl: the link changes;
LB.counters-{before,after}.json: tools/fabric counters around the failure;
LB.snmp-{before,after}.txt: the routers' ICMP counters) and the fabric's
event log (the convergence times), and prints the comparison table. Writes
summary.json, goodput.csv and (with gnuplot) goodput.png.

Times: uet-perf's timeline starts at its run start (its own clock); the
fabric logs CLOCK_REALTIME. Each anchor is `date +%s%N` run by an --exec-at
hook that uet-perf marks on its timeline (end.events[].t_ns), so
t0 = date - t_ns, late by the hook's start-up; the smallest over the anchors
is the best estimate (a few ms at most).

Phases (seconds of the run): before = [max(0.5, down - 1.5), down); blackhole
= [down, routes converged) (until up when routing never converges); rerouted
= [converged, up); after = [up, end of the run). Goodput = bytes received by
the hosts in the phase x 8 / its length.

Packets lost into the dead link: a router forwards every packet it receives
unless it drops it, so over the window between the two counter snapshots,
drops(router) = sum over its interfaces of (rx - tx) + ICMP it generated
(the "unreachable" messages it sends for some of the dropped packets are in
tx). Each namespace's counters are one netlink dump, so this is exact up to
ARP exchanges (a request and its reply cancel out). With no rate limits the
fabric drops nothing else (checked: 0 without a failure), so the sum over
all routers is the number of packets, data and ACKs, that went into the
failed link: at its leaf (hashed onto the dead next hop) and at its spine
(no route back to the leaf). The link counters cannot show it directly: a
veth whose peer is down drops in the no-carrier qdisc and counts nothing.
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys


def load_json(path):
    with open(path) as f:
        return json.load(f)


def load_jsonl(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    return out


def run_t0(report, anchor_path):
    """CLOCK_REALTIME ns of the run's t = 0 (see the module comment)."""
    wall = {}
    with open(anchor_path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                wall[parts[0]] = int(parts[1])
    best = None
    for ev in report["end"].get("events", []):
        if ev.get("kind") != "exec":
            continue
        for tag, w in wall.items():
            if tag in ev.get("detail", ""):
                cand = w - ev["t_ns"]
                best = cand if best is None else min(best, cand)
    if best is None:
        raise SystemExit("analyze: %s: no anchor matches an exec event of the report"
                         % anchor_path)
    return best


def window_bytes(rx, bin_ns, a_s, b_s):
    """Bytes in [a_s, b_s) seconds, bins split pro rata at the edges."""
    if b_s <= a_s:
        return 0.0
    a, b = a_s * 1e9, b_s * 1e9
    i0 = max(0, int(a // bin_ns))
    i1 = min(len(rx), int(b // bin_ns) + 1)
    tot = 0.0
    for i in range(i0, i1):
        lo, hi = i * bin_ns, (i + 1) * bin_ns
        ov = min(hi, b) - max(lo, a)
        if ov > 0:
            tot += rx[i] * ov / bin_ns
    return tot


def gbps(rx, bin_ns, a, b):
    if b <= a:
        return None
    return window_bytes(rx, bin_ns, a, b) * 8 / ((b - a) * 1e9)


def parse_snmp(path):
    """{namespace: {"Icmp:OutMsgs": n, "IpExt:InNoRoutes": n, ...}}"""
    res = {}
    ns = None
    hdr = {}
    if not os.path.exists(path):
        return res
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "==":
                ns = w[1]
                res[ns] = {}
                hdr = {}
                continue
            key = w[0]
            if ns is None:
                continue
            if key not in hdr or not w[1].lstrip("-").isdigit():
                hdr[key] = w[1:]
                continue
            for name, val in zip(hdr[key], w[1:]):
                res[ns][key + name] = int(val)
            del hdr[key]
    return res


def router_drops(before, after, snmp_b, snmp_a):
    """{node: packets it dropped between the snapshots} for every router."""
    flow = {}
    ns_of = {}

    def add(snap, sign):
        for link in snap["links"]:
            for e in link["ends"]:
                if e.get("missing"):
                    continue
                node = e["node"]
                if not (node.startswith("leaf") or node.startswith("spine")):
                    continue
                ns_of[node] = e["ns"]
                flow[node] = flow.get(node, 0) + sign * (e["rx_packets"] - e["tx_packets"])

    add(after, 1)
    add(before, -1)
    out = {}
    for node, v in flow.items():
        ns = ns_of[node]
        icmp = (snmp_a.get(ns, {}).get("Icmp:OutMsgs", 0)
                - snmp_b.get(ns, {}).get("Icmp:OutMsgs", 0))
        out[node] = v + icmp
    return out


def host_loss(before, after):
    """Packets the hosts sent minus packets they received (host ends)."""
    tot = 0
    for snap, sign in ((after, 1), (before, -1)):
        for link in snap["links"]:
            if link["kind"] != "host":
                continue
            e = link["ends"][1]
            if not e.get("missing"):
                tot += sign * (e["tx_packets"] - e["rx_packets"])
    return tot


def analyze_lb(out, lb, link, conv_events):
    rep = load_json(os.path.join(out, lb + ".json"))
    end = rep["end"]
    t0 = run_t0(rep, os.path.join(out, lb + ".anchor"))
    rel = lambda t_ns: (t_ns - t0) / 1e9
    sched = load_jsonl(os.path.join(out, lb + ".schedule.jsonl"))
    down = next((e for e in sched if e.get("event") == "link_down"), None)
    up = next((e for e in sched if e.get("event") == "link_up"), None)
    if down is None or up is None:
        raise SystemExit("analyze: %s: the schedule did not take %s down and up" % (lb, link))
    conv = {e.get("seq"): e for e in conv_events}
    c_down = conv.get(down.get("seq"))
    c_up = conv.get(up.get("seq"))
    tl = end["timeline"]
    bin_ns = tl["bin_ns"]
    rx = tl["rx_bytes"]
    retx = tl["retx_pkts"]
    dur = end["duration_ns"] / 1e9
    t_end = min(dur, len(rx) * bin_ns / 1e9)
    t_down = rel(down["t_ns"])
    t_up = rel(up["t_ns"])
    t_conv = rel(c_down["done_ns"]) if c_down and rel(c_down["done_ns"]) < t_up else None
    t_reconv = rel(c_up["done_ns"]) if c_up else None
    before_a = max(0.5, t_down - 1.5)
    if before_a >= t_down:
        before_a = t_down / 2
    hole_end = t_conv if t_conv is not None else t_up
    phases = {
        "before": [before_a, t_down],
        "blackhole": [t_down, hole_end],
        "rerouted": [t_conv, t_up] if t_conv is not None else None,
        "after": [t_up, t_end],
    }
    gp = {k: (gbps(rx, bin_ns, *v) if v else None) for k, v in phases.items()}
    # retransmissions in the failure (down .. up) and after it
    ib = lambda t: max(0, min(len(retx), int(t * 1e9 // bin_ns)))
    retx_fail = sum(retx[ib(t_down):ib(t_up)])
    before = load_json(os.path.join(out, lb + ".counters-before.json"))
    after = load_json(os.path.join(out, lb + ".counters-after.json"))
    snmp_b = parse_snmp(os.path.join(out, lb + ".snmp-before.txt"))
    snmp_a = parse_snmp(os.path.join(out, lb + ".snmp-after.txt"))
    drops = router_drops(before, after, snmp_b, snmp_a)
    leaf, spine = link.split("-")
    tr = end["transport"]
    fct = end.get("fct") or {}
    fc = end["flow_counts"]
    return {
        "lb": lb,
        "exit_ok": fc.get("ok") == fc.get("total") and fc.get("failed", 0) == 0,
        "flows": fc,
        "messages": fc.get("messages"),
        "bytes_rx": end["bytes_rx"],
        "duration_s": dur,
        "completion_s": (end["completion_ns"] / 1e9) if end.get("completion_ns") else None,
        "goodput_gbps": end["goodput_bps"] / 1e9,
        "phase_s": phases,
        "phase_gbps": gp,
        "events_s": {"down": t_down, "converged": t_conv, "up": t_up, "reconverged": t_reconv},
        "fct_p50_ms": fct.get("p50_ns") / 1e6 if fct.get("p50_ns") is not None else None,
        "fct_p99_ms": fct.get("p99_ns") / 1e6 if fct.get("p99_ns") is not None else None,
        "fct_max_ms": fct.get("max_ns") / 1e6 if fct.get("max_ns") is not None else None,
        "retx_pkts": tr["tx_retx_pkts"],
        "retx_pkts_failure": retx_fail,
        "rto_events": tr["rto_events"],
        "lb_freezes": tr.get("lb_freezes", 0),
        "path_failures": tr.get("path_failures", 0),
        "tx_data_pkts": tr.get("tx_data_pkts"),
        "dead_link_pkts": sum(drops.values()),
        "dead_link_at_leaf": drops.get(leaf, 0),
        "dead_link_at_spine": drops.get(spine, 0),
        "router_drops": drops,
        "failed_flows": [{"src": f["src"], "dst": f["dst"], "send_status": f["send_status"],
                          "msgs_acked": f.get("msgs_acked"), "msgs_failed": f.get("msgs_failed")}
                         for f in end.get("flows", []) if f.get("status") == "failed"],
        "host_sent_minus_received": host_loss(before, after),
        "counters_window_s": [rel(before["t_ns"]), rel(after["t_ns"])],
        "timeline": {"bin_ns": bin_ns, "rx_bytes": rx, "retx_pkts": retx},
    }


def fmt(v, spec="%.2f", none="-"):
    return none if v is None else spec % v


def table(rows, link, ends, conv_ms):
    r0 = rows[0]
    ev = r0["events_s"]
    ph = r0["phase_s"]
    lines = []
    lines.append("%s down at %.2f s (--ends %s), %s, up at %.2f s; "
                 "run %.1f s (times of the %s run)"
                 % (link, ev["down"], ends,
                    ("routes converged at %.2f s" % ev["converged"])
                    if ev["converged"] is not None else "routes never converged",
                    ev["up"], r0["duration_s"], r0["lb"]))
    lines.append("goodput in Gb/s: before [%.1f, %.2f) s, blackhole [%.2f, %.2f) s%s, "
                 "after [%.2f, %.1f) s"
                 % (ph["before"][0], ph["before"][1], ph["blackhole"][0], ph["blackhole"][1],
                    (", rerouted [%.2f, %.2f) s" % tuple(ph["rerouted"]))
                    if ph["rerouted"] else "", ph["after"][0], ph["after"][1]))
    lines.append("")
    hdr = ("%-7s %5s %9s %7s %7s %9s %8s %7s %9s %9s %8s %6s %7s %11s"
           % ("lb", "flows", "messages", "goodput", "before", "blackhole", "rerouted", "after",
              "FCT p99", "FCT max", "retx", "RTOs", "freezes", "dead-link"))
    lines.append(hdr)
    lines.append("%-7s %5s %9s %7s %7s %9s %8s %7s %9s %9s %8s %6s %7s %11s"
                 % ("", "ok", "", "Gb/s", "Gb/s", "Gb/s", "Gb/s", "Gb/s", "ms", "ms", "pkts",
                    "", "", "pkts"))
    lines.append("-" * len(hdr))
    for r in rows:
        g = r["phase_gbps"]
        lines.append("%-7s %5s %9d %7.2f %7s %9s %8s %7s %9s %9s %8d %6d %7d %11d"
                     % (r["lb"], "%d/%d" % (r["flows"].get("ok", 0), r["flows"].get("total", 0)),
                        r["messages"] or 0,
                        r["goodput_gbps"], fmt(g["before"]), fmt(g["blackhole"]),
                        fmt(g["rerouted"]), fmt(g["after"]), fmt(r["fct_p99_ms"], "%.1f"),
                        fmt(r["fct_max_ms"], "%.1f"), r["retx_pkts"], r["rto_events"],
                        r["lb_freezes"], r["dead_link_pkts"]))
    lines.append("")
    lines.append("dead-link: packets (data, ACKs, probes) that went into the failed link "
                 "during the run, from the")
    lines.append("fabric's counters (exact to +-2 per router: ARP); at %s / at %s: %s"
                 % (link.split("-")[0], link.split("-")[1],
                    ", ".join("%s %d / %d" % (r["lb"], r["dead_link_at_leaf"],
                                             r["dead_link_at_spine"]) for r in rows)))
    for r in rows:
        for f in r["failed_flows"]:
            lines.append("%s: flow h%d -> h%d: %s messages failed (status %d%s), %s done"
                         % (r["lb"], f["src"], f["dst"], f["msgs_failed"], f["send_status"],
                            ", UET_ERR_TIMEOUT: the PDC gave up after its retry limit of RTOs"
                            if f["send_status"] == -210 else "", f["msgs_acked"]))
    lines.append("The 2-core box, not the links, limits goodput: flows that stall or fail leave "
                 "their share to the others.")
    return "\n".join(lines)


def write_csv(path, rows, step_ms):
    step_ns = int(step_ms * 1e6)
    n = max(len(r["timeline"]["rx_bytes"]) * r["timeline"]["bin_ns"] for r in rows) // step_ns
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t_s"] + ["%s_gbps" % r["lb"] for r in rows]
                   + ["%s_retx" % r["lb"] for r in rows])
        for k in range(int(n)):
            a, b = k * step_ms / 1e3, (k + 1) * step_ms / 1e3
            row = ["%.3f" % ((a + b) / 2)]
            for r in rows:
                tl = r["timeline"]
                row.append("%.4f" % gbps(tl["rx_bytes"], tl["bin_ns"], a, b))
            for r in rows:
                tl = r["timeline"]
                i0, i1 = int(a * 1e9 // tl["bin_ns"]), int(b * 1e9 // tl["bin_ns"])
                row.append(str(sum(tl["retx_pkts"][i0:i1])))
            w.writerow(row)


def plot(out, rows, link, ends, step_ms):
    """goodput.png: one panel per load balancer, the failure shaded."""
    csv_path = os.path.join(out, "goodput.csv")
    png = os.path.join(out, "goodput.png")
    n = len(rows)
    ymax = max(max(r["phase_gbps"]["before"] or 0, r["goodput_gbps"]) for r in rows) * 1.45
    rmax = max(max(sum(r["timeline"]["retx_pkts"][i:i + int(step_ms * 1e6
                                                           // r["timeline"]["bin_ns"])])
                   for i in range(0, len(r["timeline"]["retx_pkts"]),
                                  max(1, int(step_ms * 1e6 // r["timeline"]["bin_ns"]))))
               for r in rows) or 1
    dur = max(r["duration_s"] for r in rows)
    g = []
    height = 215 * n + 140
    title_frac = 80.0 / height
    g.append("set terminal pngcairo size 1200,%d font 'DejaVu Sans,11'" % height)
    g.append("set output '%s'" % png)
    g.append("set datafile separator ','")
    g.append("set multiplot layout %d,1 margins 0.07,0.91,%.3f,%.3f spacing 0,%.3f"
             % (n, 45.0 / height, 1 - title_frac, 62.0 / height))
    g.append("set label 100 \"Goodput over time: permutation, %s fails (--ends %s); "
             "%d ms bins\" at screen 0.5, screen %.4f center font ',13'"
             % (link, ends, step_ms, 1 - 18.0 / height))
    g.append("set xrange [0:%g]" % dur)
    g.append("set yrange [0:%g]" % ymax)
    g.append("set y2range [0:%g]" % (rmax * 3))
    g.append("set ytics nomirror")
    g.append("set y2tics nomirror textcolor rgb '#b2182b'")
    g.append("set grid xtics ytics lc rgb '#dddddd'")
    g.append("set key at screen 0.5, screen %.4f center top horizontal samplen 2 "
             "width 2" % (1 - 30.0 / height))
    for k, r in enumerate(rows):
        ev = r["events_s"]
        ph = r["phase_s"]
        g.append("unset object")
        for lab in (1, 2, 3, 4):
            g.append("unset label %d" % lab)
        if k > 0:
            g.append("unset key")
        g.append("set object 1 rect from %g,graph 0 to %g,graph 1 fc rgb '#f4a6a6' "
                 "fs solid 0.45 noborder behind" % tuple(ph["blackhole"]))
        if ph["rerouted"]:
            g.append("set object 2 rect from %g,graph 0 to %g,graph 1 fc rgb '#fde3a7' "
                     "fs solid 0.6 noborder behind" % tuple(ph["rerouted"]))
        ypos = "graph 0.92"
        g.append("set label 1 'link down' at %g,%s offset 0.4,0 font ',9'" % (ev["down"], ypos))
        if ev["converged"] is not None:
            g.append("set label 2 'rerouted' at %g,%s offset 0.4,0 font ',9'"
                     % (ev["converged"], ypos))
        g.append("set label 3 'link up' at %g,%s offset 0.4,0 font ',9'" % (ev["up"], ypos))
        if ev["reconverged"] is not None and ev["reconverged"] < dur:
            g.append("set arrow 1 from %g,graph 0 to %g,graph 1 nohead dt 2 lc rgb '#777777'"
                     % (ev["reconverged"], ev["reconverged"]))
            g.append("set label 4 'back in the routes' at %g,graph 0.80 %s font ',9'"
                     % (ev["reconverged"], "offset 0.4,0" if ev["reconverged"] < dur * 0.85
                        else "right offset -0.4,0"))
        else:
            g.append("unset arrow 1")
        g.append("set ylabel 'Gb/s'")
        g.append("set y2label 'retx pkts' textcolor rgb '#b2182b'")
        g.append("set xlabel %s" % ("'time [s]'" if k == n - 1 else "''"))
        g.append("set title \"{/:Bold %s}: %s Gb/s before, %s in the blackhole, %s after; "
                 "%d retx, %d RTOs, %d pkts into the dead link%s\" offset 0,-0.3 font ',11'"
                 % (r["lb"], fmt(r["phase_gbps"]["before"]),
                    fmt(r["phase_gbps"]["blackhole"]), fmt(r["phase_gbps"]["after"]),
                    r["retx_pkts"], r["rto_events"], r["dead_link_pkts"],
                    "" if r["exit_ok"] else "; %d of %d flows FAILED (timed out)"
                    % (r["flows"].get("failed", 0), r["flows"].get("total", 0))))
        g.append("plot '%s' every ::1 using 1:%d axes x1y2 with impulses lw 2 "
                 "lc rgb '#d6604d' title 'retransmitted packets per bin (right axis)', "
                 "'' every ::1 using 1:%d with lines lw 2 lc rgb '#2166ac' "
                 "title 'goodput, Gb/s (left axis)'"
                 % (csv_path, 2 + n + k, 2 + k))
    g.append("unset multiplot")
    gp_path = os.path.join(out, "goodput.gp")
    with open(gp_path, "w") as f:
        f.write("\n".join(g) + "\n")
    p = subprocess.run(["gnuplot", gp_path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode != 0:
        sys.stderr.write("analyze: gnuplot failed:\n%s" % p.stderr)
        return None
    return png


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--lb", required=True, help="comma-separated load balancers")
    ap.add_argument("--link", required=True, help="LEAF-SPINE")
    ap.add_argument("--events", required=True, help="the fabric's event log")
    ap.add_argument("--ends", default="spine")
    ap.add_argument("--converge-ms", default="")
    ap.add_argument("--step-ms", type=float, default=20)
    ap.add_argument("--no-plot", action="store_true")
    a = ap.parse_args()
    conv = [e for e in load_jsonl(a.events) if e.get("event") == "converge"]
    rows = [analyze_lb(a.out, lb, a.link, conv) for lb in a.lb.split(",")]
    print(table(rows, a.link, a.ends, a.converge_ms))
    summ = [{k: v for k, v in r.items() if k != "timeline"} for r in rows]
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump({"link": a.link, "ends": a.ends, "runs": summ}, f, indent=1)
    write_csv(os.path.join(a.out, "goodput.csv"), rows, a.step_ms)
    if not a.no_plot and shutil.which("gnuplot"):
        png = plot(a.out, rows, a.link, a.ends, int(a.step_ms))
        if png:
            print("plot: %s" % png)
    print("files: %s (summary.json, goodput.csv, LB.json per load balancer)" % a.out)


if __name__ == "__main__":
    main()
