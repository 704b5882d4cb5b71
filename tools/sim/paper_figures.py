#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The REPS paper's figures redrawn with uet-sim under its setup
(--profile reps-paper): runs every scenario over several seeds, prints
markdown tables with the paper's numbers beside ours, and draws PNGs with
the paper's values marked (python3-matplotlib; tables only without it).

usage: tools/sim/paper_figures.py [--figs 2,3,4,...] [--scale quick|paper] [--seeds N]
           [--setup paper|artifact] [--jobs N] [--out-dir DIR] [--png-dir DIR] [--md FILE]
           [--uet-sim PATH]
       tools/sim/paper_figures.py ... --joblist FILE      # one uet-sim command per line
       tools/sim/paper_figures.py ... --slurm FILE        # a Slurm job array over them
       tools/sim/paper_figures.py ... --merge             # tables from DIR's JSON only

Figures (the paper's numbering, EuroSys'26; ../shared/reference/reps.md §4):
  2     symmetric micro: 16 MiB tornado, 2 ToRs x 8 hosts, utilisation of
        ToR 0's 8 uplinks in 20 us buckets, OPS and REPS (--setup
        artifact: its test_symm16.cm, ToR 0 to ToR 8 of 128 hosts)
  3     symmetric macro: permutation and tornado (8 MiB, every load balancer),
        incast 8:1 (4, 8, 16 MiB, every load balancer, 1024 hosts at any
        scale), the AI collectives by runtime (all-to-all with 1-16
        messages in flight, ring and butterfly all-reduce), the
        data-center traces (web-search sizes, a partner per host, 5 ms) at
        40-100 % load (--setup artifact: 32 hosts of 128 sending, as its
        matrices)
  3s    symmetric, OPS and REPS at the artifact's sizes (4, 8, 16 MiB)
  4     asymmetric micro: one of 8 uplinks at 200 Gb/s, 32 MiB tornado
        (--setup artifact: also the artifact's own run, 4 flows of 32 MiB
        on its 3-tier fabric, one of ToR 0's 4 uplinks at half rate)
  5     asymmetric macro: 3 % of ToR uplinks at 200 Gb/s, 8 MiB permutation
        (--setup artifact: 4 uplinks, permutation, tornado and incast at
        4, 8, 16 MiB, every load balancer), the traces and the AI
        collectives under the same asymmetry
  6     mixed deployment: 10 % of hosts on ECMP (--setup artifact: the
        set of 5 on a healthy fabric, every load balancer, trimming on)
  7     failure micro: 64 MiB permutation, two ToR-uplink failures, 100 us freeze
        (--setup artifact: also the artifact's own run, 4 flows of 32 MiB
        on its 3-tier fabric, one way of ToR 0's uplinks 1 and 3 dead, and
        its fast increase from 650 us)
  8     failure modes (the artifact's 32-host fabric): speedup over OPS,
        5 modes at 100 us, and the paper's 8 as the artifact made them
        (from the start; its permutation matrix, 100 % traces and ring
        all-reduce; 6 load balancers)
  11    the FPGA testbed's link failure (Fig. 11b, the abstract's "more
        than 70x fewer drops"), modelled: 2 ToRs of 64 hosts at 100 Gb/s,
        8 spines at 400, a ToR-spine link down for 2, 5, 10 ms, with and
        without trimming (the profile only: no artifact script runs it)
  15    EV-set size (32, 256, 65535) and congestion control
  15p   OPS at 32 and 65535 EVs over 20 permutation matrices as the
        artifact's gen_permutation.py writes them (its Fig. 15 ran one)
  A     forced freezing after 50 us, no failure (App. A)
  ties  not the paper's, so only when named: Fig. 3's incast with its
        simultaneous events in the order they were scheduled (htsim's,
        uet-sim's default) and with --shuffle-ties, each sender's FCT
Setup: --setup paper (default) runs the profile, the setup the paper's text
states; --setup artifact runs what the artifact's scripts passed to htsim
for the figures whose scripts were read (2, 3, 3s, 4, 5, 6, 7, 8, 15, 15p;
ties as 3): its topology files' latencies (1000 ns links, no switch latency), the RTO its
main_uec.cpp computes (41.5 us, not the 70 us the text gives), trimming
where the script left it on, its ECN thresholds (ARTIFACT below), and
every permutation is its one matrix (gen_permutation.py, seed 42, as its
run_symmetric.py writes it) where the profile draws one per seed. Their
JSON is cached as DIR/art-<run>.json, their PNGs as art-fig<N>.png.
Sizes: --scale paper runs the paper's host counts (1024 for the synthetic
macro figures: ~25 s and 0.5 GiB per run here); --scale quick (default)
runs them on 128 hosts, and says so in the tables. Micro-benchmarks always
run at the paper's size. Results are cached as DIR/<run>.json with
DIR/<run>.key (the uet-sim binary's SHA-256, the arguments, the traces'
hashes): a second call runs what is missing or stale (another build or
other arguments), and --merge reads what a cluster produced (its job
lines write the keys; --any-build takes another build's reports).
"""
import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import mplenv  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

LB_NAMES = {"ecmp": "ECMP", "ops": "OPS", "bitmap": "BitMap", "reps": "REPS",
            "mprdma": "MPRDMA", "mptcp": "MPTCP-like", "flowlet": "Flowlet", "plb": "PLB",
            "ar": "Adaptive RoCE", "strack": "STrack"}
ALL_LBS = ["ecmp", "ops", "bitmap", "reps", "mprdma", "mptcp", "flowlet", "plb", "ar"]


class Run:
    def __init__(self, rid, args, seed=None):
        self.id = rid
        # The cache file's name: the id, prefixed by the setup when it is
        # not the profile's own.
        self.file_id = rid
        # The seeds of one scenario, summed in --retx's table.
        self.group = rid[:-len("-%d" % seed)] if seed is not None else rid
        self.args = ["--profile", "reps-paper"] + args + (
            ["--seed", str(seed)] if seed is not None else [])
        self.result = None


# --setup artifact: what the artifact's scripts (REPS_EuroSys_Artifact,
# artifact_scripts/ and htsim/sim/datacenter/run_symmetric.py) pass to
# htsim where it differs from the paper's text, figure by figure; only the
# figures whose scripts were read are here. Every run gets the artifact's
# topology files' latencies (1000 ns on every link, no switch latency:
# an 8.3 us RTT and one-BDP queues of 417 KB, its 100-packet queues, where
# the text's 500 + 500 ns give 7.3 us and 365 KB) and the RTO its
# main_uec.cpp computes from them (the unloaded RTT, 8.3 us, plus four
# full queues, 33.2 us) instead of the 70 us the paper states. Like the
# profile's, that timer does not back off (its rtxTimerExpired re-arms each
# packet at its send time + RTO).
ARTIFACT_ALL = ["--link-latency-ns", "1000", "--switch-latency-ns", "0", "--rto-ns", "41500",
                "--rto-backoff=no"]
ARTIFACT = {
    # fig_1_symmetric_micro.py: no -disable_trim, -ecn 20 80, -q 100
    "2": ["--trim"],
    # run_symmetric.py, run_dc.py and run_collective.py: -disable_trim,
    # -ecn 25 76 of a 100-101-packet queue. Its Adaptive RoCE (fat_tree_switch.cpp's
    # adaptive_nvidia()) sends a tie between equally short queues to the
    # first port: --ar-tie-first
    "3": ["--ecn-kmin-pct", "25", "--ecn-kmax-pct", "75", "--ar-tie-first"],
    "3s": ["--ecn-kmin-pct", "25", "--ecn-kmax-pct", "75"],
    # fig_3_asymmertic_micro.py, fig_6_failures_micro.py: no -disable_trim
    # (trimming on; a timeout then always freezes REPS), -ecn 20 80
    "4": ["--trim"],
    # run_all_asy.py: run_symmetric.py --trim off (-ecn 25 76), -failed 4
    # -skip_asy on 128 hosts; the workloads and the degraded links are
    # Fig5's own (art_runs)
    "5": ["--ecn-kmin-pct", "25", "--ecn-kmax-pct", "75", "--ar-tie-first"],
    # run_bg.py: run_symmetric.py --enable_bg on (-mixed_lb_traffic: every
    # tenth connection on ECMP) without --trim off, so trimming on
    "6": ["--trim", "--ecn-kmin-pct", "25", "--ecn-kmax-pct", "75", "--ar-tie-first"],
    "7": ["--trim"],
    # run_failures.py: -disable_trim, -ecn of a quarter and three quarters
    # of its one-BDP queue
    "8": ["--ecn-kmin-pct", "25", "--ecn-kmax-pct", "75"],
    # fig_12_evs_cc.py: no -disable_trim, -ecn 25 76, fat_tree_128
    "15": ["--trim", "--ecn-kmin-pct", "25", "--ecn-kmax-pct", "75"],
    "15p": ["--trim", "--ecn-kmin-pct", "25", "--ecn-kmax-pct", "75"],
}
# Fig. 3's incast, so run_symmetric.py's settings
ARTIFACT["ties"] = ARTIFACT["3"]


def json_path(run, out_dir):
    return os.path.join(out_dir, run.file_id + ".json")


def cmdline(exe, run, out_dir):
    return [exe] + run.args + ["-J", json_path(run, out_dir)]


# A cached report is used only if its key file says it was made by this
# uet-sim binary (its SHA-256: any code change makes another) with these
# arguments and these connection matrices; anything else is stale: rerun,
# or refused by --merge. The name alone did not tell a report of the code
# before a fix from one after it.
def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build_file(exe):
    """The file whose hash names the build: the program itself, or behind
    tools/bench/bundle.sh's wrapper script (bin/X) the binary it runs
    (libexec/X)."""
    inner = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(exe))), "libexec",
                         os.path.basename(exe))
    try:
        with open(exe, "rb") as f:
            script = f.read(2) == b"#!"
    except OSError:  # a job list for a machine where it is
        return exe
    return inner if script and os.path.exists(inner) else exe


def key_args(run):
    """The key's lines after the binary's: the arguments, and the contents
    of the files they name (the traces are generated beside the runs)."""
    lines = [" ".join(shlex.quote(x) for x in run.args)]
    for opt, val in zip(run.args, run.args[1:]):
        if opt == "--cm":
            lines.append("cm %s sha256 %s" % (val, sha256_file(val)))
    return "\n".join(lines) + "\n"


def key_path(run, out_dir):
    return os.path.join(out_dir, run.file_id + ".key")


def build_line(build):
    return "uet-sim sha256 %s\n" % build


def fresh(run, a):
    """Whether the cached report was made by this binary (any binary with
    --any-build) from these arguments."""
    try:
        with open(key_path(run, a.out_dir)) as f:
            first, rest = f.readline(), f.read()
    except OSError:
        return False
    return rest == key_args(run) and (a.any_build or first == build_line(a.build))


def job_line(run, a):
    """One shell line for a cluster: the run, then its key (the binary's
    hash taken where it runs), written only once the report is."""
    k = shlex.quote(key_path(run, a.out_dir))
    return ("rm -f %s; %s; [ $? -le 1 ] && { printf 'uet-sim sha256 %%s\\n' "
            "\"$(sha256sum %s | cut -d' ' -f1)\"; printf '%%s\\n' %s; } > %s" % (
                k, " ".join(shlex.quote(x) for x in cmdline(a.uet_sim, run, a.out_dir)),
                shlex.quote(build_file(a.uet_sim)),
                " ".join(shlex.quote(x) for x in key_args(run).splitlines()), k))


def load(run, out_dir):
    path = json_path(run, out_dir)
    if not os.path.exists(path):
        return None
    rep = json.load(open(path))
    return rep[-1] if isinstance(rep, list) else rep


def summary(rep):
    end = rep["end"]
    fab = end["fabric"]
    return {
        "compl_us": (end["completion_ns"] or 0) / 1e3,
        "fct_max_us": (end["fct"]["max_ns"] or 0) / 1e3,
        "fct_mean_us": (end["fct"]["mean_ns"] or 0) / 1e3,
        "fct_p99_us": (end["fct"]["p99_ns"] or 0) / 1e3,
        "ok": end["flow_counts"]["ok"], "flows": end["flow_counts"]["total"],
        "drops": end["losses"]["network_drops"], "drops_down": fab["ports"]["drops_down"],
        "retx": end["losses"]["retransmissions"],
        "trims": end["losses"]["trims"], "spurious": end["losses"]["spurious_retx"],
        "rto_lost": end["losses"]["declared"]["timeout"],
        "spurious_rto": end["losses"]["spurious_rto"],
        "failures": fab["failures"], "series": fab.get("series"),
        "flows_rec": end.get("flows", []), "ecmp_hosts": ecmp_hosts(rep["start"]),
    }


def ecmp_hosts(start):
    """The hosts a report's run put on ECMP (--ecmp-every, --ecmp-hosts)."""
    ts = start["test_start"]
    every, out = ts.get("ecmp_every", 0), set()
    if every:
        out.update(range(0, ts["hosts"], every))
    for item in filter(None, ts.get("ecmp_hosts", "").split(",")):
        lo, _, hi = item.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def mean_range(vals):
    vals = [v for v in vals if v == v]
    if not vals:
        return float("nan"), float("nan"), float("nan")
    return statistics.mean(vals), min(vals), max(vals)


def fmt(vals, unit=""):
    m, lo, hi = mean_range(vals)
    if len(vals) == 1:
        return "%.1f%s" % (m, unit)
    return "%.1f%s (%.1f-%.1f)" % (m, unit, lo, hi)


# --- the figures ------------------------------------------------------------
# Each: runs(a) -> [Run], table(a, res) -> markdown lines, plot(a, res, plt, path).
# res maps a run id to its summary.


def n_macro(a):
    return "1024" if a.scale == "paper" else "128"


def scale_note(a, paper="1024"):
    return "" if a.scale == "paper" or paper == "128" else \
        " (scaled: 128 hosts; the paper: %s)" % paper


def seeds(a):
    return range(1, a.seeds + 1)


def range_err(stats):
    """matplotlib's yerr for bars of (value, min, max) tuples, as mean_range
    gives: the whisker spans the seeds' range. A bar that is a ratio of
    means can sit a hair outside its per-seed range; its whisker is then
    empty on that side instead of negative."""
    return [[max(0.0, m[0] - m[1]) for m in stats], [max(0.0, m[2] - m[0]) for m in stats]]


def paired_ratio(nums, dens):
    """(mean(nums) / mean(dens), and the lowest and highest of each seed's
    own nums[i] / dens[i]): a bar that is a ratio, as a table prints it,
    with the per-seed spread for its whisker. A seed whose denominator is
    0 (no flow finished) is left out of the spread."""
    return (mean_range(nums)[0] / mean_range(dens)[0],) + \
        mean_range([n / d if d else float("nan") for n, d in zip(nums, dens)])[1:]


def bars(ax, labels, stats, title, ylabel, color="#4a7"):
    """One bar per label: the mean, and the seeds' range as the error bar
    (stats: (mean, min, max) tuples, as mean_range gives)."""
    ax.bar(range(len(labels)), [m[0] for m in stats], yerr=range_err(stats), color=color)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=40, ha="right", fontsize=8)
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(ylabel)


# The artifact's run_symmetric.py set on its 128-host fabric (Figs. 5 and
# 6 under --setup artifact): permutation, tornado and incast 8:1 at 4, 8
# and 16 MiB, every load balancer. Its incast (gen_incast.py with
# prefer_remote) sends from hosts 64-71, one ToR, to host 0; uet-sim's
# from root+1 .. root+8 to root, here hosts 64-71 to host 63.
ART_PATS = ("permutation", "tornado", "incast")
ART_SIZES = ("4M", "8M", "16M")


# The paper's data-center traces (reps.md §4.1, "Datacenter traces"; the
# artifact's traffic_gen/traffic_gen.py): web-search flow sizes from the
# artifact's CDF (its cdf_files/WebSearch_distribution.txt, heavier above
# 2 MB than the pFabric/HPCC table behind uet-sim's --pattern websearch),
# "a random receiver per node": every host has one partner under another
# ToR, each receiver taken once, and a flow goes to a uniformly random other
# host instead 5% of the time; each host starts a flow at 0 and the next one
# when the last would have taken its share of the link (size / (rate x
# load)), for 5 ms. htsim runs every line as its own connection, and so
# does uet-sim's cm (lib/workload/cm.c).
DC_CDF = [(0, 0), (10000, 15), (20000, 20), (30000, 30), (50000, 40), (80000, 53),
          (200000, 60), (1000000, 70), (2000000, 80), (10000000, 90), (20000000, 97),
          (40000000, 100)]
DC_DURATION_S = 0.005


def dc_size(rng):
    pct = rng.random() * 100
    for (v0, c0), (v1, c1) in zip(DC_CDF, DC_CDF[1:]):
        if pct <= c1:
            return max(1, int(v0 + (pct - c0) * (v1 - v0) / (c1 - c0)))
    return DC_CDF[-1][0]


def dc_trace_cm(path, hosts, active, load, seed, per_tor=8, rate_bps=400e9, other_pct=5,
                duration_s=DC_DURATION_S):
    """Write the trace for hosts 0..active-1 of a `hosts`-host fabric as an
    htsim .cm (start in microseconds, uet-sim's unit); returns its flows."""
    rng = random.Random(seed)
    free, order, partner = set(range(active)), list(range(active)), {}
    rng.shuffle(order)
    for src in order:
        cand = (sorted(d for d in free if d // per_tor != src // per_tor)
                or sorted(d for d in free if d != src))
        if not cand:
            # Only src itself is left (a few hosts per ToR): it takes an
            # earlier sender's partner, which takes src instead.
            other = rng.choice(sorted(partner))
            partner[src], partner[other] = partner[other], src
            free.remove(src)
            continue
        partner[src] = rng.choice(cand)
        free.remove(partner[src])
    flows = []
    for src in range(active):
        t = 0.0
        while t < duration_s:
            if rng.random() * 100 < other_pct:
                dst = rng.randrange(active - 1)
                dst += dst >= src
            else:
                dst = partner[src]
            size = dc_size(rng)
            flows.append((t, src, dst, size))
            t += size * 8 / (rate_bps * load)
    flows.sort()
    with open(path, "w") as f:
        f.write("Nodes %d\nConnections %d\n" % (hosts, len(flows)))
        f.writelines("%d->%d start %.6f size %d\n" % (src, dst, t * 1e6, size)
                     for t, src, dst, size in flows)
    return len(flows)


def dc_hosts(a):
    """The hosts that send the traces: the text's 128, or the first 32 (ToRs
    0-3 of the 128-host fabric), whom the artifact's 32-node matrices use."""
    return 32 if a.setup == "artifact" else 128


def dc_trace_file(a, hosts, load, s):
    path = os.path.join(a.out_dir, "dc-%d-%s-%d.cm" % (hosts, load, s))
    dc_trace_cm(path, 128, hosts, float(load), s)
    return path


DC_LOADS = ("0.4", "0.6", "0.8", "1.0")

# The artifact's collectives (--setup artifact): its gen_files.py writes
# them as htsim connection matrices on the 128-host fabric, and they are not
# the textbook algorithms of uet-sim's patterns. Each generator below
# writes the same matrix from the same rules (hosts shuffled by Python's
# random with seed 42, as its scripts do), so the runs see the artifact's
# layout; lines are "S->D id I (start 0 | trigger T) size B
# [send_done_trigger T | recv_done_trigger T]", trigger lines after them.
# - all-to-all (gen_serialn_alltoall.py 128 128 128 n 2000000): host order
#   shuffled; each host sends in batches of n, the d-th batch to the hosts
#   d, d + h, d + 2h, ... places after it in that order (h = 127 // n),
#   then the 127 % n left over; each finished message starts one of the
#   next batch (a multishot trigger), so n are in flight. The script
#   writes "start 1000000" (its 1 us of start spread times 10^6, no
#   spread); every first batch starts at 0 here.
# - ring all-reduce (gen_allreduce.py 128 64 64 4000000, no locality): the
#   first 64 hosts of that order in a ring; each of 64 chains carries
#   4,000,000 B around the ring for 2 x 64 - 1 hops, each hop starting when
#   the previous one is done (a oneshot trigger): every hop moves the
#   whole 4 MB, not a 1/64 chunk.
# - butterfly all-reduce (gen_allreduce_butterfly.py 128 1 128 20000000,
#   locality: hosts in order): 7 steps, partners 1, 2, ..., 64 apart; each
#   exchanges the full 20,000,000 B both ways, and a host's step starts
#   when the previous step's message into it is done.
# In both the artifact's "done" is htsim's send_done, the sender's last
# ACK; here it is recv_done at the host that starts the next message, half
# an RTT sooner, since uet-sim starts a flow only on what its own host sees
# (lib/workload/cm.c).
ART_COLL_SEED = 42


def art_order(n):
    order = list(range(n))
    random.Random(ART_COLL_SEED).shuffle(order)
    return order


def cm_text(hosts, lines, ntrig, kind):
    return "".join(["Nodes %d\nConnections %d\nTriggers %d\n" % (hosts, len(lines), ntrig)] +
                   [x + "\n" for x in lines] +
                   ["trigger id %d %s\n" % (t, kind) for t in range(1, ntrig + 1)])


def flow_line(i, src, dst, size, after, done, on="send_done"):
    return "%d->%d id %d %s size %d%s" % (
        src, dst, i, "start 0" if after is None else "trigger %d" % after, size,
        "" if done is None else " %s_trigger %d" % (on, done))


def art_alltoall_cm(parallel, hosts=128, size=2000000):
    order, lines, trig = art_order(hosts), [], 0
    per, left = (hosts - 1) // parallel, (hosts - 1) % parallel
    for s in range(hosts):
        batches = [[(s + d + k * per) % hosts for k in range(parallel)]
                   for d in range(1, per + 1)]
        if left:
            batches.append([(s + parallel * per + k + 1) % hosts for k in range(left)])
        after = None
        for b, dsts in enumerate(batches):
            done = None
            if b + 1 < len(batches):
                trig += 1
                done = trig
            for d in dsts:
                lines.append(flow_line(len(lines) + 1, order[s], order[d], size, after, done))
            after = done
    return cm_text(hosts, lines, trig, "multishot")


def art_ring_cm(hosts=128, ranks=64, size=4000000):
    ring, lines, trig = art_order(hosts)[:ranks], [], 0
    for s in range(ranks):
        after = None
        for d in range(1, 2 * ranks):
            done = None
            if d < 2 * ranks - 1:
                trig += 1
                done = trig
            lines.append(flow_line(len(lines) + 1, ring[(s + d - 1) % ranks],
                                   ring[(s + d) % ranks], size, after, done, "recv_done"))
            after = done
    return cm_text(hosts, lines, trig, "oneshot")


def art_butterfly_cm(hosts=128, size=20000000):
    steps, lines, trig = hosts.bit_length() - 1, [], 0
    into = {}   # host -> trigger of the message into it at the last step
    for d in range(steps):
        last, now = d == steps - 1, {}
        for a in range(hosts):
            if (a >> d) & 1:
                continue
            for src, dst in ((a, a + (1 << d)), (a + (1 << d), a)):
                done = None
                if not last:
                    trig += 1
                    done = now[dst] = trig
                lines.append(flow_line(len(lines) + 1, src, dst, size, into.get(src), done,
                                       "recv_done"))
        into = now
    return cm_text(hosts, lines, trig, "oneshot")


ART_COLL_NOTE = ("; the artifact's matrices: all-to-all over its shuffled host order, the ring "
                 "over 64 of the hosts with 4 MB per hop, the butterfly 7 steps of 20 MB each")


def cm_file(a, stem, text):
    """Write a generated matrix into the out-dir under a name that carries a
    hash of its text: a changed generator writes a new file beside the one a
    sweep still running may read."""
    path = os.path.join(a.out_dir, "%s-%s.cm" % (stem, hashlib.sha256(
        text.encode()).hexdigest()[:12]))
    if not os.path.exists(path):
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    return path


# The AI collectives on the 128-host fabric at the artifact's sizes
# (reps.md §4.1): all-to-all of 2,000,000 B messages, 4 in flight per host
# (its n in {1, 2, 4, 8, 16}), ring all-reduce of 4,000,000 B, butterfly
# all-reduce of 20,000,000 B. The paper's text names the algorithms only,
# so the profile runs uet-sim's patterns (NCCL's ring and a recursive
# halving / doubling butterfly, each moving S per rank); --setup artifact
# runs the artifact's own matrices (above). Their metric is the runtime,
# when the last message is done: htsim's "finished at" times are absolute,
# and the slowest single message is not the collective's time.
def alltoall_args(parallel):
    return ["--pattern", "alltoall", "--size", "2000000", "--iters", "1", "--parallel",
            parallel]


COLLECTIVES = (("alltoall", "all-to-all", alltoall_args("4")),
               ("ring", "ring all-reduce", ["--pattern", "ring-allreduce", "--size", "4000000",
                                           "--iters", "1"]),
               ("bfly", "butterfly all-reduce", ["--pattern", "butterfly-allreduce", "--size",
                                                 "20000000", "--iters", "1"]))


def collective_args(a, key, parallel="4"):
    """uet-sim's arguments for one collective under the setup."""
    if a.setup != "artifact":
        return (alltoall_args(parallel) if key == "alltoall"
                else dict((k, x) for k, _, x in COLLECTIVES)[key])
    text = {"alltoall": lambda: art_alltoall_cm(int(parallel)), "ring": art_ring_cm,
            "bfly": art_butterfly_cm}[key]()
    stem = "art-alltoall%s" % parallel if key == "alltoall" else "art-" + key
    return ["--pattern", "cm", "--cm", cm_file(a, stem, text)]


def collective_runs(fig, lbs, a, extra=()):
    args = {key: collective_args(a, key) for key, _, _ in COLLECTIVES}
    return [Run("%s-%s-%s-%d" % (fig, key, lb, s),
                ["--nodes", "128"] + args[key] + ["--lb", lb] + list(extra), s)
            for key, _, _ in COLLECTIVES for lb in lbs for s in seeds(a)]


def collective_us(fig, key, lb, a, res):
    """A collective's runtime per seed."""
    return [res["%s-%s-%s-%d" % (fig, key, lb, s)]["compl_us"] for s in seeds(a)]


def collective_table(fig, lbs, a, res, caption, paper):
    """Runtime per collective and load balancer, REPS's as the reference,
    and each collective's second best."""
    out = [caption,
           "| LB | " + " | ".join("%s (us) | vs REPS" % name for _, name, _ in COLLECTIVES) +
           " |", "|---|" + "---|---|" * len(COLLECTIVES)]
    m = {(key, lb): collective_us(fig, key, lb, a, res) for key, _, _ in COLLECTIVES
         for lb in lbs}
    mean = {k: mean_range(v)[0] for k, v in m.items()}
    for lb in lbs:
        out.append("| %s | %s |" % (LB_NAMES[lb], " | ".join(
            "%s | %.2fx" % (fmt(m[(key, lb)]), mean[(key, lb)] / mean[(key, "reps")])
            for key, _, _ in COLLECTIVES)))
    notes = []
    for key, name, _ in COLLECTIVES:
        second = min((lb for lb in lbs if lb != "reps"), key=lambda lb: mean[(key, lb)])
        notes.append("%s %s %.2fx" % (name, LB_NAMES[second],
                                      mean[(key, second)] / mean[(key, "reps")]))
    out.append("\nThe second best over REPS: %s. %s\n" % ("; ".join(notes), paper))
    return out


def collective_plot(ax, fig, lbs, a, res, title, paper_y, paper_label):
    """All-to-all and butterfly all-reduce runtime over REPS's, side by
    side per load balancer (the ring is flat), seeds' range as error bars;
    the paper's claim as a dashed line."""
    width, top = 0.4, paper_y
    for k, (key, name) in enumerate((("alltoall", "all-to-all"),
                                     ("bfly", "butterfly all-reduce"))):
        ref = mean_range(collective_us(fig, key, "reps", a, res))[0]
        st = [tuple(x / ref for x in mean_range(collective_us(fig, key, lb, a, res)))
              for lb in lbs]
        xs = [i + (k - 0.5) * width for i in range(len(lbs))]
        ax.bar(xs, [m[0] for m in st], width,
               yerr=range_err(st),
               color=("#4a7", "#47a")[k], label=name)
        top = max([top] + [m[2] for m in st])
    ax.axhline(paper_y, color="r", ls="--", lw=0.8, label=paper_label)
    ax.set_ylim(0, 1.45 * top)
    ax.set_xticks(range(len(lbs)))
    ax.set_xticklabels([LB_NAMES[lb] for lb in lbs], rotation=40, ha="right", fontsize=8)
    ax.set_title(title, fontsize=10)
    ax.set_ylabel("runtime over REPS's")
    ax.legend(fontsize=7, loc="upper center", ncol=2)


def art_set_id(fig, pat, size, lb, s):
    return "%s-%s-%s-%s-%d" % (fig, pat, size, lb, s)


def art_set_runs(a, fig, extra):
    """extra: more arguments, or a function of the workload's sources in
    its connections' order (the matrix's lines) that gives them."""
    out = []
    for pat in ART_PATS:
        more = extra(art_set_srcs(pat)) if callable(extra) else extra
        for size in ART_SIZES:
            wl = (["--pattern", "incast", "--fanin", "8", "--root", "63", "--size", size]
                  if pat == "incast" else pat_args(a, "128", pat, size))
            out += [Run(art_set_id(fig, pat, size, lb, s),
                        ["--nodes", "128"] + wl + ["--iters", "1", "--lb", lb] + more, s)
                    for lb in ALL_LBS for s in seeds(a)]
    return out


def art_set_srcs(pat, hosts=128):
    """Each connection's source, in the order of the matrix run_symmetric.py
    writes: gen_permutation.py's lines, gen_tornado.py's host by host, and
    gen_incast.py's hosts N/2 .. N/2 + 7 (uet-sim's incast rooted at N/2 - 1
    sends from those)."""
    if pat == "permutation":
        return [int(x.split("->")[0]) for x in art_perm_cm(hosts, 1).splitlines()[2:]]
    if pat == "incast":
        return [hosts // 2 + i for i in range(8)]
    return list(range(hosts))


class Fig2:
    title = "Fig. 2: symmetric micro-benchmark, per-port utilisation"
    ports = ",".join("tor0.up%d" % i for i in range(8))

    def runs(self, a):
        series = ["--port-series", self.ports, "--series-us", "20"]
        if a.setup == "artifact":
            # fig_1_symmetric_micro.py: test_symm16.cm on the 128-host
            # fabric, hosts 0-7 (ToR 0) to 64-71 (ToR 8), 16 MiB each.
            cm = os.path.join(a.out_dir, "test_symm16.cm")
            with open(cm, "w") as f:
                f.write("Nodes 128\nConnections 8\n" + "".join(
                    "%d->%d start 0 size 16777216\n" % (i, 64 + i) for i in range(8)))
            return [Run("f2-%s" % lb, ["--nodes", "128", "--pattern", "cm", "--cm", cm, "--lb",
                                       lb] + series, 1) for lb in ("ops", "reps")]
        return [Run("f2-%s" % lb, ["--nodes", "16", "--hosts-per-tor", "8", "--pattern", "tornado",
                                   "--size", "16M", "--iters", "1", "--lb", lb] + series, 1)
                for lb in ("ops", "reps")]

    def table(self, a, res):
        out = []
        if a.setup == "artifact":
            out.append("The artifact's test_symm16.cm: 128 hosts, ToR 0's 8 hosts to ToR 8's, "
                       "16 MiB each, trimming on:\n")
        out += ["| LB | completion (us) | ToR 0 uplinks: utilisation mean, spread over ports "
                "and 20 us buckets (min-max) | deepest queue (KiB) |", "|---|---|---|---|"]
        for lb in ("ops", "reps"):
            r = res["f2-" + lb]
            us = [u for p in r["series"]["ports"] for u in p["util"][1:-3]]
            qmax = max(max(p["queue_max_bytes"]) for p in r["series"]["ports"])
            out.append("| %s | %.1f | %.3f (%.3f-%.3f) | %.0f |" % (
                LB_NAMES[lb], r["compl_us"], statistics.mean(us), min(us), max(us),
                qmax / 1024))
        gain = res["f2-ops"]["compl_us"] / res["f2-reps"]["compl_us"] - 1
        out.append("\nREPS completes %.1f%% sooner than OPS; paper: about 4%%, with OPS's port "
                   "rates deviating by +-15%% and REPS's queues below Kmin.\n" % (100 * gain))
        return out

    def plot(self, a, res, plt, path):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.5), sharey=True)
        for ax, lb in zip(axes, ("ops", "reps")):
            ser = res["f2-" + lb]["series"]
            for p in ser["ports"]:
                t = [(ser["start_ns"] + (i + 1) * ser["interval_ns"]) / 1e3
                     for i in range(len(p["util"]))]
                ax.plot(t, [u * 400 for u in p["util"]], lw=0.8)
            ax.set_title("%s: ToR 0 uplinks" % LB_NAMES[lb])
            ax.set_xlabel("time (us)")
            ax.axhline(400 * 1.15, color="r", ls=":", lw=0.8)
            ax.axhline(400 * 0.85, color="r", ls=":", lw=0.8, label="paper: OPS +-15%")
        axes[0].set_ylabel("Gb/s per 20 us")
        axes[0].legend(loc="lower left", fontsize=7)
        fig.tight_layout()
        fig.savefig(path, dpi=90)


class Fig3:
    title = "Fig. 3: symmetric macro-benchmarks (max FCT)"
    loads = DC_LOADS
    incast_sizes = ("4M", "8M", "16M")
    ai_lbs = ("ecmp", "ops", "bitmap", "reps", "mprdma")
    a2a_parallel = ("1", "2", "4", "8", "16")

    @staticmethod
    def a2a_id(n, lb, s):
        # 4 in flight is the collectives' own run.
        return "f3-alltoall-%s-%d" % (lb, s) if n == "4" else "f3-alltoall-n%s-%s-%d" % (
            n, lb, s)

    @staticmethod
    def incast_id(size, lb, s):
        return "f3-incast-%s-%s-%d" % (size, lb, s)

    def coll_lbs(self, a):
        # run_all_symm.py's collectives (run_collective.py) run every load
        # balancer of the artifact's.
        return ALL_LBS if a.setup == "artifact" else self.ai_lbs

    def a2a_lbs(self, a, n):
        # 4 in flight is the collectives' run; run_collective.py also runs
        # alltoall8 and 16 under each load balancer. The other n (and every
        # other n under the profile): OPS and REPS.
        if n == "4" or (a.setup == "artifact" and n in ("8", "16")):
            return self.coll_lbs(a)
        return ("ops", "reps")

    def runs(self, a):
        n = n_macro(a)
        out = []
        # Incast 8:1 as the artifact's run_symmetric.py makes it
        # (gen_incast.py with prefer_remote: hosts N/2 .. N/2+7, all under
        # one ToR, to host 0 under another) at 4, 8 and 16 MiB on its 1024
        # hosts. uet-sim's incast sends from root+1 .. root+8 to root, so
        # root N/2-1 is the same layout by symmetry. Eight flows: cheap at
        # the paper's size, which every scale runs.
        for size in self.incast_sizes:
            for lb in ALL_LBS:
                for s in seeds(a):
                    out.append(Run(self.incast_id(size, lb, s),
                                   ["--nodes", "1024", "--pattern", "incast", "--fanin", "8",
                                    "--root", "511", "--size", size, "--iters", "1", "--lb",
                                    lb], s))
        for pat in ("permutation", "tornado"):
            wl = pat_args(a, n, pat, "8M")
            for lb in ALL_LBS:
                for s in seeds(a):
                    out.append(Run("f3-%s-%s-%d" % (pat, lb, s),
                                   ["--nodes", n] + wl + ["--iters", "1", "--lb", lb], s))
        # The data-center traces on the 128-host fabric: every host under
        # the paper's text; under --setup artifact hosts 0-31 (ToRs 0-3),
        # as the 32-node matrices its run_dc.py reads.
        traces = {(load, s): dc_trace_file(a, dc_hosts(a), load, s)
                  for load in self.loads for s in seeds(a)}
        out += collective_runs("f3", self.coll_lbs(a), a)
        # The artifact's all-to-all also runs 1, 2, 8 and 16 messages in
        # flight per host; the paper's "up to 20%" may be over them.
        a2a = {n: collective_args(a, "alltoall", n) for n in self.a2a_parallel if n != "4"}
        out += [Run(self.a2a_id(n, lb, s), ["--nodes", "128"] + a2a[n] + ["--lb", lb], s)
                for n in a2a for lb in self.a2a_lbs(a, n) for s in seeds(a)]
        for lb in self.ai_lbs:
            for s in seeds(a):
                for load in self.loads:
                    out.append(Run("f3-dc%s-%s-%d" % (load, lb, s),
                                   ["--nodes", "128", "--pattern", "cm", "--cm",
                                    traces[(load, s)], "--lb", lb], s))
        return out

    def table(self, a, res):
        out = ["Permutation and tornado, 8 MiB per host%s%s; mean of %d seeds (range):\n" % (
            scale_note(a), perm_note(a), a.seeds),
            "| LB | permutation max FCT (us) | vs REPS | tornado max FCT (us) | vs REPS |",
            "|---|---|---|---|---|"]
        ref = {}
        for pat in ("permutation", "tornado"):
            ref[pat] = mean_range([res["f3-%s-reps-%d" % (pat, s)]["fct_max_us"]
                                   for s in seeds(a)])[0]
        for lb in ALL_LBS:
            cells = []
            for pat in ("permutation", "tornado"):
                v = [res["f3-%s-%s-%d" % (pat, lb, s)]["fct_max_us"] for s in seeds(a)]
                cells += [fmt(v), "%.2fx" % (mean_range(v)[0] / ref[pat])]
            out.append("| %s | %s |" % (LB_NAMES[lb], " | ".join(cells)))
        out.append("\nPaper: ECMP collapses (up to 6x), REPS up to 1.25x ahead of OPS, "
                   "Adaptive RoCE matches REPS on tornado and loses on permutation, per-packet "
                   "schemes (REPS, OPS, BitMap, MPRDMA) ahead of Flowlet and PLB.\n")
        out += ["Incast 8:1, 8 senders under one ToR to one host under another (the "
                "artifact's layout), 1024 hosts (the paper's size); max FCT (us), mean of %d "
                "seeds (range):\n" % a.seeds,
                "| LB | " + " | ".join("%s" % x.replace("M", " MiB") for x in
                                       self.incast_sizes) + " |",
                "|---|" + "---|" * len(self.incast_sizes)]
        means = {}
        for lb in ALL_LBS:
            cells = []
            for size in self.incast_sizes:
                v = [res[self.incast_id(size, lb, s)]["fct_max_us"] for s in seeds(a)]
                means[(lb, size)] = mean_range(v)[0]
                cells.append(fmt(v))
            out.append("| %s | %s |" % (LB_NAMES[lb], " | ".join(cells)))
        spread = []
        for size in self.incast_sizes:
            m = [means[(lb, size)] for lb in ALL_LBS]
            line_us = 8 * mib_bytes(size) * 8 / 400e3
            spread.append("%s %.2fx (fastest %.2fx line rate)" % (
                size.replace("M", " MiB"), max(m) / min(m), min(m) / line_us))
        drops = [res[self.incast_id(size, lb, s)]["drops"] for size in self.incast_sizes
                 for lb in ALL_LBS for s in seeds(a)]
        out.append("\nSlowest over fastest load balancer: %s; %d-%d packets dropped per run "
                   "(the receiver's downlink, the senders' first windows). Paper: incast is "
                   "bound by the congestion control, no difference between load balancers, "
                   "ECMP included.\n" % ("; ".join(spread), min(drops), max(drops)))
        out += collective_table(
            "f3", self.coll_lbs(a), a, res,
            "The AI collectives on 128 hosts (all-to-all: 2 MB messages, 4 in flight per host; "
            "ring all-reduce 4 MB; butterfly all-reduce 20 MB%s), runtime (the last message "
            "done), mean of %d seeds:\n" % (ART_COLL_NOTE if a.setup == "artifact" else "",
                                            a.seeds),
            "Paper: all-to-all up to 20% for REPS over the alternatives, ring all-reduce the "
            "same for most load balancers.")
        out += self.a2a_table(a, res)
        out += ["\nThe data-center traces (web-search sizes, %d ms, %d hosts sending on the "
                "128-host fabric, every flow its own connection), mean FCT as the paper plots "
                "them; mean of %d seeds:\n" % (DC_DURATION_S * 1e3, dc_hosts(a), a.seeds),
                "| LB | " + " | ".join("DC %d%%" % int(float(x) * 100) for x in self.loads) +
                " |", "|---|" + "---|" * len(self.loads)]
        for lb in self.ai_lbs:
            cells = [fmt([res["f3-dc%s-%s-%d" % (x, lb, s)]["fct_mean_us"] for s in seeds(a)])
                     for x in self.loads]
            out.append("| %s | %s |" % (LB_NAMES[lb], " | ".join(cells)))
        gain = []
        for x in self.loads:
            o = statistics.mean(res["f3-dc%s-ops-%d" % (x, s)]["fct_mean_us"] for s in seeds(a))
            r = statistics.mean(res["f3-dc%s-reps-%d" % (x, s)]["fct_mean_us"] for s in seeds(a))
            gain.append("%d%% %+.1f%%" % (int(float(x) * 100), 100 * (1 - r / o)))
        out.append("\nREPS's mean FCT against OPS's on the traces (positive: REPS sooner): %s. "
                   "Paper: the traces REPS 5%% ahead of OPS even at high load.\n"
                   % ", ".join(gain))
        return out

    def a2a_table(self, a, res):
        def us(n, lb):
            return [res[self.a2a_id(n, lb, s)]["compl_us"] for s in seeds(a)]
        if a.setup != "artifact":
            out = ["All-to-all runtime by messages in flight per host (the artifact's n), "
                   "mean of %d seeds:\n" % a.seeds,
                   "| in flight | OPS (us) | REPS (us) | OPS / REPS |", "|---|---|---|---|"]
            best = []
            for n in self.a2a_parallel:
                o, r = us(n, "ops"), us(n, "reps")
                best.append((mean_range(o)[0] / mean_range(r)[0], n))
                out.append("| %s | %s | %s | %.2fx |" % (n, fmt(o), fmt(r), best[-1][0]))
            out.append("\nREPS's largest lead over OPS: %.2fx at %s in flight (paper: up to 20%% "
                       "over the alternatives).\n" % max(best))
            return out
        others = [lb for lb in self.coll_lbs(a) if lb != "reps"]
        out = ["All-to-all runtime by messages in flight per host (the artifact's n; "
               "run_collective.py runs 4, 8 and 16 under every load balancer), each over "
               "REPS's, mean of %d seeds:\n" % a.seeds,
               "| in flight | REPS (us) | " + " | ".join(LB_NAMES[lb] for lb in others) + " |",
               "|---|---|" + "---|" * len(others)]
        lead = []
        for n in self.a2a_parallel:
            ref = mean_range(us(n, "reps"))[0]
            cells = []
            for lb in others:
                if lb in self.a2a_lbs(a, n):
                    x = mean_range(us(n, lb))[0] / ref
                    lead.append((x, n, LB_NAMES[lb]))
                    cells.append("%.2fx" % x)
                else:
                    cells.append("")
            out.append("| %s | %s | %s |" % (n, fmt(us(n, "reps")), " | ".join(cells)))
        near = min(lead)
        out.append("\nREPS's largest lead: %.2fx at %s in flight (%s); the closest load balancer: "
                   "%.2fx at %s in flight (%s). Paper: up to 20%% over the alternatives.\n"
                   % (max(lead) + near))
        return out

    def plot(self, a, res, plt, path):
        fig, axes = plt.subplots(1, 4, figsize=(20, 3.8))
        collective_plot(axes[3], "f3", self.coll_lbs(a), a, res,
                        "AI collectives, 128 hosts (4 in flight)", 1.2,
                        "paper: all-to-all, alternatives up to 1.2x REPS")
        ms = [mean_range([res[self.incast_id("8M", lb, s)]["fct_max_us"] for s in seeds(a)])
              for lb in ALL_LBS]
        ax = axes[2]
        ax.bar(range(len(ALL_LBS)), [m[0] for m in ms],
               yerr=range_err(ms), color="#4a7")
        ax.axhline(8 * 8 * 1048576 * 8 / 400e3, color="k", ls=":", lw=0.8,
                   label="8 x 8 MiB at line rate")
        ax.axhline(min(m[0] for m in ms), color="r", ls="--", lw=0.8,
                   label="paper: no difference between LBs")
        ax.set_xticks(range(len(ALL_LBS)))
        ax.set_xticklabels([LB_NAMES[lb] for lb in ALL_LBS], rotation=40, ha="right",
                           fontsize=8)
        ax.set_title("incast 8:1, 8 MiB, 1024 hosts")
        ax.set_ylabel("max FCT (us)")
        ax.legend(fontsize=7, loc="lower right")
        for ax, pat in zip(axes, ("permutation", "tornado")):
            ms = [mean_range([res["f3-%s-%s-%d" % (pat, lb, s)]["fct_max_us"]
                              for s in seeds(a)]) for lb in ALL_LBS]
            ax.bar(range(len(ALL_LBS)), [m[0] for m in ms],
                   yerr=range_err(ms), color="#4a7")
            reps = ms[ALL_LBS.index("reps")][0]
            ax.plot([ALL_LBS.index("ops")], [reps * 1.25], "rx", ms=9,
                    label="paper: OPS up to 1.25x REPS")
            ax.set_xticks(range(len(ALL_LBS)))
            ax.set_xticklabels([LB_NAMES[lb] for lb in ALL_LBS], rotation=40, ha="right",
                               fontsize=8)
            ax.set_title("%s, 8 MiB, %s hosts" % (pat, n_macro(a)))
            ax.set_ylabel("max FCT (us)")
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(path, dpi=90)


class Fig3Sizes:
    """The paper's "up to 1.25x over OPS" is its best case over the
    artifact's symmetric runs: permutation and tornado at 4, 8 and 16 MiB
    (reps.md §4.1); this sweeps the same sizes for OPS and REPS."""
    title = "Fig. 3, sizes: OPS over REPS at the artifact's message sizes"
    sizes = ("4M", "8M", "16M")

    def runs(self, a):
        n = n_macro(a)
        return [Run("f3s-%s-%s-%s-%d" % (pat, size, lb, s),
                    ["--nodes", n] + pat_args(a, n, pat, size) + ["--iters", "1",
                                                                 "--lb", lb], s)
                for pat in ("permutation", "tornado") for size in self.sizes
                for lb in ("ops", "reps") for s in seeds(a)]

    def table(self, a, res):
        out = ["Permutation and tornado%s%s; max FCT (us), mean of %d seeds (range):\n" % (
            scale_note(a), perm_note(a), a.seeds),
            "| pattern | size | OPS | REPS | OPS / REPS |", "|---|---|---|---|---|"]
        best = 0.0
        for pat in ("permutation", "tornado"):
            for size in self.sizes:
                o = [res["f3s-%s-%s-ops-%d" % (pat, size, s)]["fct_max_us"] for s in seeds(a)]
                r = [res["f3s-%s-%s-reps-%d" % (pat, size, s)]["fct_max_us"]
                     for s in seeds(a)]
                ratio = mean_range(o)[0] / mean_range(r)[0]
                best = max(best, ratio)
                out.append("| %s | %s | %s | %s | %.2fx |" % (pat, size.replace("M", " MiB"),
                                                            fmt(o), fmt(r), ratio))
        out.append("\nBest case %.2fx; paper: up to 1.25x (its best case over the same "
                   "runs).\n" % best)
        return out

    def plot(self, a, res, plt, path):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
        for ax, pat in zip(axes, ("permutation", "tornado")):
            for j, (lb, col) in enumerate((("ops", "#c84"), ("reps", "#4a7"))):
                ms = [mean_range([res["f3s-%s-%s-%s-%d" % (pat, size, lb, s)]["fct_max_us"]
                                  for s in seeds(a)]) for size in self.sizes]
                x = [i + (j - 0.5) * 0.38 for i in range(len(self.sizes))]
                ax.bar(x, [m[0] for m in ms], width=0.38, color=col, label=LB_NAMES[lb],
                       yerr=range_err(ms))
                if lb == "reps":
                    ax.plot([i - 0.19 for i in range(len(self.sizes))],
                            [m[0] * 1.25 for m in ms], "rx", ms=8,
                            label="paper: OPS up to 1.25x REPS")
            ax.set_xticks(range(len(self.sizes)))
            ax.set_xticklabels([x.replace("M", " MiB") for x in self.sizes])
            ax.set_title("%s, %s hosts" % (pat, n_macro(a)), fontsize=10)
            ax.set_ylabel("max FCT (us)")
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(path, dpi=90)


# The artifact's micro-benchmarks (fig_3_asymmertic_micro.py,
# fig_6_failures_micro.py) run test_symm32.cm: 4 flows of 32 MiB, hosts 0-3
# to 64-67, on its 3-tier 128-host fabric (k = 8: ToR 0 has 4 uplinks).
def art_symm32_cm():
    return cm_text(128, [flow_line(i + 1, i, 64 + i, 32 << 20, None, None) for i in range(4)],
                   0, "oneshot")


# -failed 1 on that fabric (its fat_tree_topology.cpp): ToR 0's uplink 0,
# that way, and core 0's link down to aggregation switch 0, that way (it
# carries only ACKs here), at half rate with half the buffer.
F4M_ARGS = ["--nodes", "128", "--tiers", "3", "--failure", "link-rate:0:tor0.up0:200:dir=up",
            "--failure", "link-rate:0:agg0.up0:200:dir=down"]


class Fig4:
    title = "Fig. 4: asymmetric micro-benchmark"
    paper = {"ops": 1400.0, "reps": 799.0}
    lbs = ("ecmp", "ops", "bitmap", "reps", "mprdma")

    def runs(self, a):
        out = [Run("f4-%s-%d" % (lb, s),
                   ["--nodes", "16", "--hosts-per-tor", "8", "--pattern", "tornado", "--size",
                    "32M", "--iters", "1", "--lb", lb, "--failure",
                    "link-rate:0:tor0.up0:200:buffer=keep"], s)
               for lb in self.lbs for s in seeds(a)]
        if a.setup == "artifact":
            cm = ["--pattern", "cm", "--cm", cm_file(a, "art-symm32", art_symm32_cm())]
            out += [Run("f4m-%s-%d" % (lb, s), F4M_ARGS + cm + ["--lb", lb], s)
                    for lb in self.lbs for s in seeds(a)]
        return out

    def one_table(self, a, res, rid):
        # The artifact ran these with trimming: what overflows is trimmed.
        trim = a.setup == "artifact"
        out = ["| LB | completion (us) | paper (us) | network drops |%s" % (
            " trims |" if trim else ""), "|---|---|---|---|%s" % ("---|" if trim else "")]
        for lb in self.lbs:
            rs = [res[rid % (lb, s)] for s in seeds(a)]
            out.append("| %s | %s | %s | %.0f |%s" % (
                LB_NAMES[lb], fmt([r["compl_us"] for r in rs]),
                "%.0f" % self.paper[lb] if lb in self.paper else "-",
                statistics.mean(r["drops"] for r in rs),
                " %.0f |" % statistics.mean(r["trims"] for r in rs) if trim else ""))
        o, r = [mean_range([res[rid % (lb, s)]["compl_us"] for s in seeds(a)])[0]
                for lb in ("ops", "reps")]
        out.append("\nOPS / REPS: %.2fx (paper 1.75x; target at least 1.5x).\n" % (o / r))
        return out

    def table(self, a, res):
        out = ["8 hosts under a ToR send 32 MiB each across 8 uplinks, one at 200 Gb/s (its "
               "queue kept); completion, mean of %d seeds:\n" % a.seeds]
        out += self.one_table(a, res, "f4-%s-%d")
        if a.setup == "artifact":
            out.append("The artifact's own run of this figure (`fig_3_asymmertic_micro.py`): "
                       "4 flows of 32 MiB, hosts 0-3 to 64-67, on its 3-tier 128-host fabric; "
                       "`-failed 1` halves what ToR 0 sends up its uplink 0 (of 4), and what "
                       "core 0 sends down to aggregation switch 0 (only ACKs here), buffer "
                       "and ECN thresholds alike; mean of %d seeds:\n" % a.seeds)
            out += self.one_table(a, res, "f4m-%s-%d")
        return out

    def plot(self, a, res, plt, path):
        rows = [("f4-%s-%d", "one uplink at 200 Gb/s, 32 MiB tornado")]
        if a.setup == "artifact":
            rows.append(("f4m-%s-%d", "the artifact's run: 4 flows, 3 tiers"))
        fig, axes = plt.subplots(1, len(rows), figsize=(6 * len(rows), 3.5), squeeze=False)
        for (rid, name), ax in zip(rows, axes[0]):
            ms = [mean_range([res[rid % (lb, s)]["compl_us"] for s in seeds(a)])
                  for lb in self.lbs]
            ax.bar(range(len(self.lbs)), [m[0] for m in ms], yerr=range_err(ms), color="#4a7",
                   label="uet-sim (seeds' range)")
            for i, lb in enumerate(self.lbs):
                if lb in self.paper:
                    ax.plot([i], [self.paper[lb]], "rx", ms=10,
                            label="paper" if lb == "ops" else None)
            ax.set_xticks(range(len(self.lbs)))
            ax.set_xticklabels([LB_NAMES[lb] for lb in self.lbs])
            ax.set_ylabel("completion (us)")
            ax.set_title(name)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=90)


class Fig5:
    title = "Fig. 5: asymmetric macro-benchmark"
    lbs = ALL_LBS
    # --setup artifact: run_all_asy.py runs run_symmetric.py's synthetic
    # set (permutation, tornado, incast 8:1 at 4, 8, 16 MiB, every load
    # balancer) on the 128-host fabric with -failed 4 -skip_asy, no
    # trimming. Its fat_tree_topology.cpp then degrades, on every fourth
    # ToR (NTOR / 4: ToRs 0, 4, 8, 12), the uplink to the first spine, in
    # that direction only, to half its rate with half its buffer and ECN
    # thresholds (uet-sim's link-rate default, dir=up).
    art_failures = [x for t in (0, 4, 8, 12)
                    for x in ("--failure", "link-rate:0:tor%d.up0:200:dir=up" % t)]
    # Its data-center and collective runs (run_dc.py and run_collective.py
    # with --asymmetry_links 4) pass -failed 4 without -skip_asy: the first
    # failing ToR, 0, then takes all four degraded cables, its uplinks to
    # spines 0-3; the 32-node matrices send from ToRs 0-3.
    art_dc_failures = [x for u in range(4)
                       for x in ("--failure", "link-rate:0:tor0.up%d:200:dir=up" % u)]
    profile_failure = ["--failure", "degrade:0:3%:tor-up:0.5:buffer=keep"]

    def dc_loads(self, a):
        # The paper's claim is at 100% load; the text's 128 sending hosts
        # take ~30 s a run here, so the profile runs that load alone.
        return DC_LOADS if a.setup == "artifact" else ("1.0",)

    def dc_runs(self, a):
        fail = self.art_dc_failures if a.setup == "artifact" else self.profile_failure
        return [Run("f5-dc%s-%s-%d" % (load, lb, s),
                    ["--nodes", "128", "--pattern", "cm", "--cm",
                     dc_trace_file(a, dc_hosts(a), load, s), "--lb", lb] + fail, s)
                for load in self.dc_loads(a) for lb in ALL_LBS for s in seeds(a)]

    def ai_runs(self, a):
        # The collectives on 128 hosts under the figure's asymmetry: the
        # profile's 3% of ToR uplinks, or the artifact's: run_all_asy.py
        # calls run_collective.py --trim off --asymmetry_links 4, which
        # passes -failed 4 -down_ratio 0.5 without -skip_asy, so ToR 0's
        # uplinks to spines 0-3 at half rate, as its data-center runs.
        return collective_runs("f5", ALL_LBS, a, self.art_dc_failures if a.setup == "artifact"
                               else self.profile_failure)

    def ai_table(self, a, res):
        where = ("ToR 0's uplinks to spines 0-3 at 200 Gb/s with half their buffer" if
                 a.setup == "artifact" else "3% of ToR uplinks at 200 Gb/s")
        return collective_table(
            "f5", ALL_LBS, a, res,
            "\nThe AI collectives (Fig. 3's) on 128 hosts, %s; runtime, mean of %d seeds:\n"
            % (where, a.seeds),
            "Paper: all-to-all a small but significant edge for REPS, all-reduce 30% over the "
            "second best (the arXiv version: 50%).")

    def runs(self, a):
        if a.setup == "artifact":
            return art_set_runs(a, "f5", self.art_failures) + self.dc_runs(a) + self.ai_runs(a)
        return [Run("f5-%s-%d" % (lb, s),
                    ["--nodes", n_macro(a), "--pattern", "permutation", "--size", "8M",
                     "--iters", "1", "--lb", lb] + self.profile_failure, s)
                for lb in self.lbs for s in seeds(a)] + self.dc_runs(a) + self.ai_runs(a)

    def dc_table(self, a, res):
        where = ("the artifact's: 32 hosts of 128 sending, ToR 0's uplinks to spines 0-3 at "
                 "200 Gb/s with half their buffer" if a.setup == "artifact" else
                 "128 hosts sending, 3% of ToR uplinks at 200 Gb/s")
        loads = self.dc_loads(a)
        out = ["\nThe data-center traces (Fig. 3's, %s); mean FCT (us), mean of %d seeds:\n"
               % (where, a.seeds),
               "| LB | " + " | ".join("DC %d%%" % int(float(x) * 100) for x in loads) + " |",
               "|---|" + "---|" * len(loads)]
        m = {}
        for lb in ALL_LBS:
            cells = []
            for x in loads:
                v = [res["f5-dc%s-%s-%d" % (x, lb, s)]["fct_mean_us"] for s in seeds(a)]
                m[(lb, x)] = mean_range(v)[0]
                cells.append(fmt(v))
            out.append("| %s | %s |" % (LB_NAMES[lb], " | ".join(cells)))
        others = [lb for lb in ALL_LBS if lb != "reps"]
        second = min(others, key=lambda lb: m[(lb, "1.0")])
        out.append("\nAt 100%% load the second best, %s, is %.2fx REPS's mean FCT, OPS %.2fx, "
                   "ECMP %.2fx. Paper: at 100%% load REPS 25%% ahead of the second best and "
                   "1000%% ahead of ECMP.\n" % (
                       LB_NAMES[second], m[(second, "1.0")] / m[("reps", "1.0")],
                       m[("ops", "1.0")] / m[("reps", "1.0")],
                       m[("ecmp", "1.0")] / m[("reps", "1.0")]))
        return out

    def art_table(self, a, res):
        others = [lb for lb in ALL_LBS if lb != "reps"]
        out = ["128 hosts (the artifact's run_all_asy.py), the uplinks of ToRs 0, 4, 8 and 12 "
               "to spine 0 at 200 Gb/s with half their buffer%s; max FCT over REPS's, mean of %d "
               "seeds:\n" % (perm_note(a), a.seeds),
               "| workload | REPS (us) | " + " | ".join(LB_NAMES[lb] for lb in others) +
               " | second best |",
               "|---|---|" + "---|" * len(others) + "---|"]
        seconds, ecmp = [], []
        for pat in ART_PATS:
            for size in ART_SIZES:
                m = {lb: mean_range([res[art_set_id("f5", pat, size, lb, s)]["fct_max_us"]
                                     for s in seeds(a)])[0] for lb in ALL_LBS}
                second = min(others, key=lambda lb: m[lb])
                seconds.append((m[second] / m["reps"], pat, size, second))
                ecmp.append(m["ecmp"] / m["reps"])
                out.append("| %s %s | %.1f | %s | %s %.2fx |" % (
                    pat, size.replace("M", " MiB"), m["reps"],
                    " | ".join("%.2fx" % (m[lb] / m["reps"]) for lb in others),
                    LB_NAMES[second], m[second] / m["reps"]))

        def span(pat):
            v = [x for x in seconds if x[1] == pat]
            lo, hi = min(v), max(v)
            return "%.2fx (%s %s) to %.2fx (%s %s)" % (
                lo[0], LB_NAMES[lo[3]], lo[2].replace("M", " MiB"),
                hi[0], LB_NAMES[hi[3]], hi[2].replace("M", " MiB"))

        out.append("\nThe second best over REPS: permutation %s; tornado %s; incast %s. ECMP "
                   "over REPS up to %.1fx. Paper: REPS about 10%% ahead of the second best "
                   "(usually BitMap), up to 5x (the artifact's version: 3.5x) ahead of "
                   "ECMP.\n" % (span("permutation"), span("tornado"), span("incast"),
                                 max(ecmp)))
        return out + self.dc_table(a, res) + self.ai_table(a, res)

    def table(self, a, res):
        if a.setup == "artifact":
            return self.art_table(a, res)
        # run_all_asy.py runs the artifact's version on 128 hosts.
        where = (" on 1024 hosts (the artifact's runs: 128)" if a.scale == "paper" else
                 " on 128 hosts, the artifact's size")
        out = ["3%% of ToR uplinks at 200 Gb/s, 8 MiB permutation%s; max FCT, mean of %d seeds:"
               "\n" % (where, a.seeds),
               "| LB | max FCT (us) | vs REPS |", "|---|---|---|"]
        ref = mean_range([res["f5-reps-%d" % s]["fct_max_us"] for s in seeds(a)])[0]
        for lb in self.lbs:
            v = [res["f5-%s-%d" % (lb, s)]["fct_max_us"] for s in seeds(a)]
            out.append("| %s | %s | %.2fx |" % (LB_NAMES[lb], fmt(v), mean_range(v)[0] / ref))
        out.append("\nPaper: REPS up to 5x ahead of ECMP and 10% ahead of the second best "
                   "(usually BitMap).\n")
        return out + self.dc_table(a, res) + self.ai_table(a, res)

    def plot(self, a, res, plt, path):
        names = [LB_NAMES[lb] for lb in ALL_LBS]
        if a.setup == "artifact":
            fig, axes = plt.subplots(1, 4, figsize=(20, 3.8))
            collective_plot(axes[3], "f5", ALL_LBS, a, res,
                            "AI collectives, 4 uplinks at 200 Gb/s", 1.3,
                            "paper: all-reduce, the second best 1.3x REPS")
            for ax, pat in zip(axes, ART_PATS):
                ref = mean_range([res[art_set_id("f5", pat, "8M", "reps", s)]["fct_max_us"]
                                  for s in seeds(a)])[0]
                st = [tuple(x / ref for x in mean_range(
                    [res[art_set_id("f5", pat, "8M", lb, s)]["fct_max_us"] for s in seeds(a)]))
                    for lb in ALL_LBS]
                bars(ax, names, st, "%s, 8 MiB, 4 uplinks at 200 Gb/s" % pat,
                     "max FCT over REPS's")
                ax.axhline(1.1, color="r", ls="--", lw=0.8,
                           label="paper: the second best ~1.1x REPS")
                ax.legend(fontsize=7)
        else:
            fig, (ax, ai) = plt.subplots(1, 2, figsize=(14, 3.8))
            collective_plot(ai, "f5", ALL_LBS, a, res,
                            "AI collectives, 3% of ToR uplinks at 200 Gb/s", 1.3,
                            "paper: all-reduce, the second best 1.3x REPS")
            st = [mean_range([res["f5-%s-%d" % (lb, s)]["fct_max_us"] for s in seeds(a)])
                  for lb in self.lbs]
            reps = st[list(self.lbs).index("reps")][0]
            bars(ax, [LB_NAMES[lb] for lb in self.lbs], st,
                 "3% of ToR uplinks at 200 Gb/s, 8 MiB permutation", "max FCT (us)")
            ax.axhline(reps * 1.1, color="r", ls="--", lw=0.8,
                       label="paper: the second best ~1.1x REPS")
            ax.axhline(reps * 5, color="r", ls=":", lw=0.8, label="paper: ECMP up to 5x REPS")
            ax.legend(fontsize=7, loc="upper center")
        fig.tight_layout()
        fig.savefig(path, dpi=90)


class Fig6:
    title = "Fig. 6: mixed deployment, 10 % of hosts on ECMP"

    def runs(self, a):
        if a.setup == "artifact":
            # run_bg.py's -mixed_lb_traffic puts on ECMP the sources htsim
            # made 1st, 11th, 21st, ...: the matrix's lines 1, 11, 21, ...
            return art_set_runs(a, "f6", lambda srcs: [
                "--ecmp-hosts", ",".join(str(h) for h in sorted(srcs[::10]))])
        return [Run("f6-%s-%d" % (lb, s),
                    ["--nodes", "128", "--pattern", "permutation", "--size", "8M", "--iters",
                     "1", "--lb", lb, "--ecmp-every", "10"], s)
                for lb in ("ops", "reps") for s in seeds(a)]

    @staticmethod
    def group_max(rec, bg):
        return max(f["fct_ns"] / 1e3 for f in rec["flows_rec"]
                   if (f["src"] in rec["ecmp_hosts"]) == bg)

    def art_table(self, a, res):
        # The artifact's plot (plot_symmetric.py --bg_mode): each group's
        # max FCT as a speedup over the same group in the ECMP run.
        others = [lb for lb in ALL_LBS if lb != "ecmp"]
        out = []
        spans = {}
        for bg, name in ((True, "the background (ECMP) flows"), (False, "the other flows")):
            out += ["%s128 hosts (run_bg.py), the sources of each matrix's lines 1, 11, 21, "
                    "... on ECMP whatever the others run (htsim's -mixed_lb_traffic), trimming "
                    "on%s; max FCT of %s, speedup over the all-ECMP run's, mean of "
                    "%d seeds:\n" % ("" if bg else "\n", perm_note(a), name, a.seeds),
                    "| workload | ECMP run (us) | " + " | ".join(LB_NAMES[lb] for lb in others)
                    + " |", "|---|---|" + "---|" * len(others)]
            for pat in ART_PATS:
                for size in ART_SIZES:
                    m = {lb: mean_range([self.group_max(res[art_set_id("f6", pat, size, lb, s)],
                                                        bg) for s in seeds(a)])[0]
                         for lb in ALL_LBS}
                    for lb in others:
                        spans.setdefault((bg, lb, pat == "incast"), []).append(
                            m["ecmp"] / m[lb])
                    out.append("| %s %s | %.1f | %s |" % (
                        pat, size.replace("M", " MiB"), m["ecmp"],
                        " | ".join("%.2fx" % (m["ecmp"] / m[lb]) for lb in others)))

        def rng(bg, lb):
            v = spans[(bg, lb, False)]
            return "%.2f-%.2fx" % (min(v), max(v))

        out.append("\nPermutation and tornado, speedup over the all-ECMP run: the ECMP flows "
                   "beside REPS %s, beside OPS %s; the other flows, REPS %s, OPS %s. Paper: REPS "
                   "moves its traffic off the ECMP flows' paths and does not slow them (no "
                   "numbers given).\n" % (rng(True, "reps"), rng(True, "ops"),
                                          rng(False, "reps"), rng(False, "ops")))
        return out

    def table(self, a, res):
        if a.setup == "artifact":
            return self.art_table(a, res)
        out = ["128 hosts, 8 MiB permutation, hosts 0, 10, ... on ECMP; mean FCT of each "
               "group, mean of %d seeds:\n" % a.seeds,
               "| sprayers | ECMP hosts' mean FCT (us) | sprayers' mean FCT (us) |",
               "|---|---|---|"]
        for lb in ("ops", "reps"):
            e, o = [], []
            for s in seeds(a):
                fl = res["f6-%s-%d" % (lb, s)]["flows_rec"]
                e.append(statistics.mean(f["fct_ns"] / 1e3 for f in fl if f["src"] % 10 == 0))
                o.append(statistics.mean(f["fct_ns"] / 1e3 for f in fl if f["src"] % 10 != 0))
            out.append("| %s | %s | %s |" % (LB_NAMES[lb], fmt(e), fmt(o)))
        out.append("\nPaper: REPS moves its traffic off the ECMP flows' paths and does not "
                   "slow them (no numbers given).\n")
        return out

    def plot(self, a, res, plt, path):
        if a.setup == "artifact":
            others = [lb for lb in ALL_LBS if lb != "ecmp"]
            fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
            for ax, pat in zip(axes, ("permutation", "tornado")):
                base = mean_range([self.group_max(res[art_set_id("f6", pat, "8M", "ecmp", s)],
                                                  True) for s in seeds(a)])[0]
                st = []
                for lb in others:
                    m, lo, hi = mean_range([self.group_max(
                        res[art_set_id("f6", pat, "8M", lb, s)], True) for s in seeds(a)])
                    st.append((base / m, base / hi, base / lo))
                bars(ax, [LB_NAMES[lb] for lb in others], st,
                     "%s, 8 MiB: the ECMP flows beside each" % pat,
                     "speedup over the all-ECMP run")
                ax.axhline(1.0, color="r", ls="--", lw=0.8,
                           label="paper: REPS does not slow them")
                ax.legend(fontsize=7)
        else:
            fig, ax = plt.subplots(1, 1, figsize=(6, 3.6))
            for j, (lb, col) in enumerate((("ops", "#c84"), ("reps", "#4a7"))):
                st = []
                for bg in (True, False):
                    st.append(mean_range([statistics.mean(
                        f["fct_ns"] / 1e3 for f in res["f6-%s-%d" % (lb, s)]["flows_rec"]
                        if (f["src"] % 10 == 0) == bg) for s in seeds(a)]))
                ax.bar([i + (j - 0.5) * 0.38 for i in range(2)], [m[0] for m in st],
                       width=0.38, color=col, label="sprayers: %s" % LB_NAMES[lb],
                       yerr=range_err(st))
            ax.set_xticks(range(2))
            ax.set_xticklabels(["ECMP hosts (0, 10, ...)", "the sprayers"])
            ax.set_ylabel("mean FCT (us)")
            ax.set_title("10% of hosts on ECMP, 8 MiB permutation (paper: REPS does not slow "
                         "the ECMP flows)", fontsize=8)
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(path, dpi=90)


# The artifact's own run of Fig. 7 (fig_6_failures_micro.py): 4 flows of
# 32 MiB, hosts 0-3 to 64-67 (test_symm32.cm), on its 3-tier 128-host
# fabric (k = 8: ToR 0 has 4 uplinks), -failed 42, which makes its
# compositequeue.cpp drop every data packet (over 100 B) that ToR 0 sends
# up its uplink 1 in 100-200 us and its uplink 3 in 350-600 us, and from
# 650 us on gives every sender's updateCwndOnAck_MPRDMA a fast increase
# (mprdma_fast_recovery). REPS freezes for 100 us (-exit_freeze).
F7M_ARGS = ["--nodes", "128", "--tiers", "3", "--reps-freeze-ns", "100000",
            "--failure", "link-down:100us:tor0.up1:for=100us:dir=up",
            "--failure", "link-down:350us:tor0.up3:for=250us:dir=up"]
F7M_FI = ["--mprdma-fast-increase-ns", "650000"]


class Fig7:
    title = "Fig. 7: two transient ToR-uplink failures"

    def runs(self, a):
        out = [Run("f7-%s-%d" % (lb, s),
                   ["--nodes", "128", "--pattern", "permutation", "--size", "64M", "--iters",
                    "1", "--lb", lb, "--reps-freeze-ns", "100000",
                    "--failure", "link-down:100us:tor0.up0:for=100us",
                    "--failure", "link-down:350us:tor1.up3:for=200us"], s)
               for lb in ("ops", "reps") for s in seeds(a)]
        if a.setup == "artifact":
            cm = ["--pattern", "cm", "--cm", cm_file(a, "art-symm32", art_symm32_cm())]
            out += [Run("f7m-%s-%s-%d" % (lb, v, s), F7M_ARGS + cm + ["--lb", lb] + fi, s)
                    for v, fi in (("fi", F7M_FI), ("nofi", [])) for lb in ("ops", "reps")
                    for s in seeds(a)]
        return out

    def micro_table(self, a, res):
        out = ["\nThe artifact's own run of this figure (`fig_6_failures_micro.py`): 4 flows "
               "of 32 MiB, hosts 0-3 to 64-67, on its 3-tier 128-host fabric (ToR 0 has 4 "
               "uplinks); what ToR 0 sends up its uplink 1 is lost in 100-200 us, up its "
               "uplink 3 in 350-600 us; REPS freezes for 100 us; from 650 us on, every "
               "sender's window gets the artifact's fast increase "
               "(`--mprdma-fast-increase-ns 650000`; the second row leaves it out); mean of "
               "%d seeds:\n" % a.seeds,
               "| run | OPS (us) | REPS (us) | REPS sooner | drops at the failed links, OPS "
               "/ REPS | fewer |", "|---|---|---|---|---|---|"]
        for v, name in (("fi", "as the artifact ran it"), ("nofi", "no fast increase")):
            c = {lb: [res["f7m-%s-%s-%d" % (lb, v, s)]["compl_us"] for s in seeds(a)]
                 for lb in ("ops", "reps")}
            d = {lb: statistics.mean(res["f7m-%s-%s-%d" % (lb, v, s)]["drops_down"]
                                     for s in seeds(a)) for lb in ("ops", "reps")}
            m = {lb: statistics.mean(c[lb]) for lb in c}
            out.append("| %s | %s | %s | %.1f%% | %.0f / %.0f | %.1fx |" % (
                name, fmt(c["ops"]), fmt(c["reps"]), 100 * (1 - m["reps"] / m["ops"]),
                d["ops"], d["reps"], d["ops"] / max(1, d["reps"])))
        out.append("\nPaper: more than 35% faster, 2.5x fewer drops.\n")
        return out

    def table(self, a, res):
        out = ["128 hosts, 64 MiB permutation, tor0.up0 down 100 us at 100 us, tor1.up3 down "
               "200 us at 350 us; REPS freezes for 100 us; mean of %d seeds:\n" % a.seeds,
               "| LB | completion (us) | packets dropped at the failed links | last drop after "
               "each failure (us) | each sender kept losing packets there for (us, median "
               "/ longest, per failure) | its first burst of losses there (us, median / "
               "longest) |", "|---|---|---|---|---|---|"]
        agg = {}
        gap_us = float("nan")
        for lb in ("ops", "reps"):
            rs = [res["f7-%s-%d" % (lb, s)] for s in seeds(a)]
            for r in rs:
                for f in r["failures"]:
                    if f.get("senders") and "burst_gap_ns" in f["senders"]:
                        gap_us = f["senders"]["burst_gap_ns"] / 1e3
            last = [[(f["last_drop_ns"] - f["at_ns"]) / 1e3 for f in r["failures"]
                     if f["last_drop_ns"]] for r in rs]
            # Per failure: the senders' median span (mean over seeds) and the
            # longest span of any seed.
            spans, bursts = [], []
            for k in range(len(rs[0]["failures"])):
                ss = [r["failures"][k].get("senders") for r in rs]
                if all(s and s["n"] for s in ss):
                    spans.append("%.1f / %.1f" % (
                        statistics.mean(s["span_p50_ns"] for s in ss) / 1e3,
                        max(s["span_max_ns"] for s in ss) / 1e3))
                if all(s and s["n"] and "burst_max_ns" in s for s in ss):
                    bursts.append("%.1f / %.1f" % (
                        statistics.mean(s["burst_p50_ns"] for s in ss) / 1e3,
                        max(s["burst_max_ns"] for s in ss) / 1e3))
            agg[lb] = (mean_range([r["compl_us"] for r in rs])[0],
                       statistics.mean(r["drops_down"] for r in rs))
            out.append("| %s | %s | %.0f | %s | %s | %s |" % (
                LB_NAMES[lb], fmt([r["compl_us"] for r in rs]), agg[lb][1],
                " / ".join("%.1f" % statistics.mean(x) for x in zip(*last)) if last[0] else "-",
                "; ".join(spans) or "-", "; ".join(bursts) or "-"))
        out.append("\nREPS completes %.1f%% sooner (OPS / REPS %.2fx) with %.1fx fewer drops; "
                   "paper: more than 35%% faster, 2.5x fewer drops, rerouted after one timeout "
                   "(70 us). A burst ends where a sender loses nothing there for an RTO "
                   "(%.1f us).\n" % (100 * (1 - agg["reps"][0] / agg["ops"][0]),
                                   agg["ops"][0] / agg["reps"][0],
                                   agg["ops"][1] / max(1, agg["reps"][1]), gap_us))
        if a.setup == "artifact":
            out += self.micro_table(a, res)
        return out

    def plot(self, a, res, plt, path):
        # Under --setup artifact a second row: the artifact's own run.
        rows = [("f7-%s-%d", "64 MiB permutation")]
        if a.setup == "artifact":
            rows.append(("f7m-%s-fi-%d", "the artifact's run: 4 flows, 3 tiers"))
        fig, axes = plt.subplots(len(rows), 2, figsize=(8, 3.3 * len(rows)), squeeze=False)
        lbs = ("ops", "reps")
        for (rid, name), ax in zip(rows, axes):
            c = [mean_range([res[rid % (lb, s)]["compl_us"] for s in seeds(a)])
                 for lb in lbs]
            d = [mean_range([res[rid % (lb, s)]["drops_down"] for s in seeds(a)])
                 for lb in lbs]
            ax[0].bar([0, 1], [m[0] for m in c], yerr=range_err(c), color="#4a7")
            ax[0].plot([1], [c[0][0] / 1.35], "rx", ms=10, label="paper: REPS >35% faster")
            ax[0].set_ylabel("completion (us; seeds' range)")
            ax[0].set_title(name, fontsize=8)
            ax[1].bar([0, 1], [m[0] for m in d], yerr=range_err(d), color="#c74")
            ax[1].plot([1], [d[0][0] / 2.5], "rx", ms=10, label="paper: 2.5x fewer")
            ax[1].set_ylabel("drops at failed links")
            for x in ax:
                x.set_xticks([0, 1])
                x.set_xticklabels(["OPS", "REPS"])
                x.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(path, dpi=90)


# The artifact's own Fig. 8 (run_all_failure.py's three panels, each
# run_failures.py): 32 hosts, 3 workloads (art8_workload), 6 load balancers
# (BitMap over 256 EVs, which uet-sim's BitMap uses anyway), no trimming,
# and 8 failure files through its failuregenerator.cpp. That generator fails, from the start and
# for good (durations in seconds; no routing convergence), the first
# switches or cables a packet reaches that leave every pair connected:
# a spine (a ToR would cut its hosts off), and one direction of a
# ToR-spine cable (an htsim pipe; host cables are needed). It counts 5% of
# switches as one of the 12 and 5% of cables as 3 (its saved selections),
# and picks from std::random_device, so here each seed picks its own,
# shared by the load balancers as the artifact's cache shares its pick.
# Its BER modes mark 1% of the packets each cable (switch) passes and drop
# the marked data packets at the receiver: here bit errors that lose a full
# data frame with probability 1% on each cable of the path, or on each
# switch's egress cable (ToR uplink, spine downlink, ToR downlink), which
# costs an ACK about 2% of that.
ART8_FRAME_BITS = 8 * (4096 + 42 + 56 + 4)   # sim_frame_bytes(4096) + FCS
ART8_BER = "%.4g" % (1 - 0.99 ** (1.0 / ART8_FRAME_BITS))
ART8_SPINE = ["--failure", "random-down:0:25%:spine"]


def art8_cables(n):
    return ["--failure", "random-down:0:%g%%:tor-up:dir=up" % (100.0 * n / 32)]


ART8_MODES = [
    ("One Failed Cable", "1 cable, one way", art8_cables(1)),
    ("One Failed Switch", "1 spine of 4", ART8_SPINE),
    ("One Failed Switch/Cable", "1 spine, 1 cable", ART8_SPINE + art8_cables(1)),
    ("5% Failed Cables", "3 cables, one way", art8_cables(3)),
    ("5% Failed Switches", "1 spine (1 of 12 switches)", ART8_SPINE),
    ("5% Failed Switches/Cables", "1 spine, 3 cables", ART8_SPINE + art8_cables(3)),
    ("BER Cable 1%", "1% per cable", ["--failure", "ber:0:100%:host:" + ART8_BER,
                                      "--failure", "ber:0:100%:tor-up:" + ART8_BER]),
    ("BER Switch 1%", "1% per switch", ["--failure", "ber:0:100%:tor-up:" + ART8_BER,
                                        "--failure", "ber:0:100%%:host:%s:dir=down" % ART8_BER]),
]
ART8_LBS = ("ops", "plb", "mprdma", "bitmap", "reps", "flowlet")
# htsim_uec -end 90000: the run stops at 90 ms, and plot_failures.py reads
# the "finished at" lines printed by then, absolute times: the permutation
# panel takes their max, the traces' their mean ("Avg FCT"), the ring
# all-reduce's the last one.
ART8_END_US = 90000.0
# run_all_failure.py's three panels: (key, run id prefix, caption).
ART8_PANELS = (("perm", "f8a", "8 MiB permutation, max finish time"),
               ("dc", "f8d", "web-search traces at 100% load, 3.5 ms, mean finish time"),
               ("ring", "f8r", "ring all-reduce of 4 MB over 16 hosts, runtime"))


def art8_metric(panel, r):
    """(the panel's metric in us over the flows done by the artifact's end,
    flows not done by then)."""
    done = [(f["submit_ns"] + f["fct_ns"]) / 1e3 for f in r["flows_rec"]
            if f["status"] == "ok" and (f["submit_ns"] + f["fct_ns"]) / 1e3 <= ART8_END_US]
    if not done:
        return float("nan"), r["flows"]
    v = statistics.mean(done) if panel == "dc" else max(done)
    return v, r["flows"] - len(done)


def art8_speedups(a, res, panel, i, lb):
    """OPS's metric over lb's (means over the seeds), lb's flows not done
    by the end (summed), and OPS's metric."""
    pre = dict((k, p) for k, p, _ in ART8_PANELS)[panel]
    ops = mean_range([art8_metric(panel, res["%s-%d-ops-%d" % (pre, i, s)])[0]
                      for s in seeds(a)])[0]
    got = [art8_metric(panel, res["%s-%d-%s-%d" % (pre, i, lb, s)]) for s in seeds(a)]
    return ops / mean_range([g[0] for g in got])[0], sum(g[1] for g in got), ops


def art8_workload(a, panel, s):
    """uet-sim's workload arguments for a panel and seed: gen_permutation.py's
    matrix; the traces (traffic_gen.py's rules, 32 hosts, 100% load, its 3.5
    ms, this seed); gen_allreduce.py's ring (32 16 16 4000000, seed 42)."""
    if panel == "perm":
        text = art_perm_cm(32, 8 << 20)
        return ["--pattern", "cm", "--cm", cm_file(a, "art-perm32", text)]
    if panel == "ring":
        return ["--pattern", "cm", "--cm", cm_file(a, "art-ring32", art_ring_cm(32, 16))]
    path = os.path.join(a.out_dir, "art-dc32-1.0-%d.cm" % s)
    dc_trace_cm(path, 32, 32, 1.0, s, per_tor=4, duration_s=0.0035)
    return ["--pattern", "cm", "--cm", path]


def art_perm_args(a, hosts, rseed=42, size="8M"):
    """uet-sim's workload arguments for gen_permutation.py's matrix of that
    many hosts, random seed and message size, written into the out-dir."""
    return ["--pattern", "cm", "--cm", cm_file(a, "art-perm%s-r%d" % (hosts, rseed),
                                              art_perm_cm(int(hosts), mib_bytes(size), rseed))]


def perm_args(a, hosts, size):
    """A permutation of that size per host: under --setup artifact the
    matrix its run_symmetric.py writes (gen_permutation.py, seed 42) and
    every figure it ran reads; under the profile uet-sim's own, drawn from
    each run's seed."""
    if a.setup == "artifact":
        return art_perm_args(a, hosts, size=size)
    return ["--pattern", "permutation", "--size", size]


def perm_note(a):
    return ("; the permutation: the artifact's matrix (gen_permutation.py, seed 42)"
            if a.setup == "artifact" else "")


def pat_args(a, hosts, pat, size):
    """Permutation (perm_args) or tornado: gen_tornado.py's matrix, host i
    to i + N/2, is uet-sim's tornado."""
    return perm_args(a, hosts, size) if pat == "permutation" else [
        "--pattern", pat, "--size", size]


def mib_bytes(size):
    assert size.endswith("M"), size
    return int(size[:-1]) << 20


def art_perm_cm(hosts, size, rseed=42):
    """gen_permutation.py <file> hosts hosts size 0 rseed, line for line:
    Python's random with that seed shuffles the sources and destinations,
    and a fixed point swaps with the next destination."""
    rng = random.Random(rseed)
    srcs, dsts = list(range(hosts)), list(range(hosts))
    rng.shuffle(srcs)
    rng.shuffle(dsts)
    for n in range(hosts):
        if srcs[n] == dsts[n]:
            i = (n + 1) % hosts
            dsts[n], dsts[i] = dsts[i], dsts[n]
    return "Nodes %d\nConnections %d\n" % (hosts, hosts) + "".join(
        "%d->%d id %d start 0 size %d\n" % (srcs[n], dsts[n], n + 1, size)
        for n in range(hosts))


class Fig8:
    title = "Fig. 8: failure modes, speedup over OPS"
    # Kinds after the artifact's run_failures.py on its 32-host fabric (8
    # ToRs of 4, 4 spines), struck at 100 us, sized before its generator
    # was read (a fraction of 4 spines would round to none); both setups
    # also run the paper's own 8 modes, its figure's rows, as the artifact
    # made them (ART8_MODES), under its three workloads.
    modes = [("2 of 32 ToR uplinks", ["--failure", "random-down:100us:6%:tor-up"]),
             ("4 of 32 ToR uplinks", ["--failure", "random-down:100us:12%:tor-up"]),
             ("one cable", ["--failure", "link-down:100us:tor0.up0"]),
             ("one spine of 4", ["--failure", "switch-down:100us:spine1"]),
             ("BER 1e-5 on 8 ToR uplinks", ["--failure", "ber:100us:25%:tor-up:1e-5"])]
    lbs = ("ecmp", "ops", "bitmap", "reps", "mprdma", "plb")

    def runs(self, a):
        out = [Run("f8-%d-%s-%d" % (i, lb, s),
                   ["--nodes", "32", "--pattern", "permutation", "--size", "8M", "--iters", "1",
                    "--lb", lb] + args, s)
               for i, (_, args) in enumerate(self.modes) for lb in self.lbs for s in seeds(a)]
        for panel, pre, _ in ART8_PANELS:
            for s in seeds(a):
                wl = art8_workload(a, panel, s)
                out += [Run("%s-%d-%s-%d" % (pre, i, lb, s),
                            ["--nodes", "32"] + wl + ["--lb", lb] + args, s)
                        for i, (_, _, args) in enumerate(ART8_MODES) for lb in ART8_LBS]
        return out

    def table(self, a, res):
        out = ["32 hosts (8 ToRs x 4, 4 spines), 8 MiB permutation, the failure at 100 us and "
               "left in place (no routing convergence); OPS's max FCT over each LB's, mean of "
               "%d seeds (above 1: faster than OPS; failed flows summed over the seeds):\n"
               % a.seeds,
               "| failure | " + " | ".join(LB_NAMES[lb] for lb in self.lbs) + " |",
               "|---|" + "---|" * len(self.lbs)]
        for i, (name, _) in enumerate(self.modes):
            hit = res["f8-%d-ops-1" % i]["failures"][0]
            if not hit["links"] and not hit["switches"]:
                sys.exit("Fig. 8: '%s' hit nothing on this fabric" % name)
            ops = mean_range([res["f8-%d-ops-%d" % (i, s)]["fct_max_us"] for s in seeds(a)])[0]
            cells = []
            for lb in self.lbs:
                rs = [res["f8-%d-%s-%d" % (i, lb, s)] for s in seeds(a)]
                failed = sum(r["flows"] - r["ok"] for r in rs)
                v = mean_range([r["fct_max_us"] for r in rs])[0]
                cells.append("%.2fx%s" % (ops / v, " (%d failed)" % failed if failed else ""))
            out.append("| %s | %s |" % (name, " | ".join(cells)))
        out.append("\nPaper: a dramatic speedup over OPS under total failures (freezing), "
                   "growing with the number of failures; random drops do not hurt REPS; "
                   "MPRDMA good on average.\n")
        return out + self.modes_table(a, res)

    def modes_table(self, a, res):
        out = ["The paper's 8 failure modes, as the artifact made them (run_all_failure.py, "
               "run_failures.py: 32 hosts, the failures from the start and for good, each "
               "seed its own pick, shared by the load balancers; BER %s, 1%% of data "
               "frames)%s: OPS's metric over each LB's, mean of %d seeds, over the flows done "
               "by the artifact's end at 90 ms (flows not done by then, summed, in brackets); "
               "network drops OPS / REPS, summed.\n"
               % (ART8_BER, " under its settings" if a.setup == "artifact" else
                  " under the profile", a.seeds)]
        for panel, pre, caption in ART8_PANELS:
            out += ["%s:\n" % (caption[0].upper() + caption[1:]),
                    "| failure | what fails | " + " | ".join(LB_NAMES[lb] for lb in ART8_LBS)
                    + " | OPS (us) | drops OPS / REPS |",
                    "|---|---|" + "---|" * (len(ART8_LBS) + 2)]
            for i, (name, what, _) in enumerate(ART8_MODES):
                cells = []
                for lb in ART8_LBS:
                    x, late, ops = art8_speedups(a, res, panel, i, lb)
                    cells.append("%.2fx%s" % (x, " (%d)" % late if late else ""))
                d = [sum(res["%s-%d-%s-%d" % (pre, i, lb, s)]["drops"] for s in seeds(a))
                     for lb in ("ops", "reps")]
                out.append("| %s | %s | %s | %.1f | %d / %d (%.1fx) |" % (
                    name, what, " | ".join(cells), ops, d[0], d[1], d[0] / max(d[1], 1)))
            out.append("")
        out.append("Paper (Fig. 8): no number per mode; REPS far ahead of OPS and the others "
                   "under total failures, BER does not hurt REPS, MPRDMA good on average.\n")
        return out

    def plot(self, a, res, plt, path):
        # The 5 modes' bars on top, the paper's 8 modes' three panels below.
        fig, ax = plt.subplots(1, 1, figsize=(13, 8.2))
        w = 0.8 / len(self.lbs)
        cols = ("#888", "#c84", "#77b", "#4a7", "#a73", "#6a2")
        for j, lb in enumerate(self.lbs):
            st = []
            for i in range(len(self.modes)):
                st.append(paired_ratio(
                    [res["f8-%d-ops-%d" % (i, s)]["fct_max_us"] for s in seeds(a)],
                    [res["f8-%d-%s-%d" % (i, lb, s)]["fct_max_us"] for s in seeds(a)]))
            ax.bar([i + (j - (len(self.lbs) - 1) / 2) * w for i in range(len(self.modes))],
                   [m[0] for m in st], yerr=range_err(st), width=w, color=cols[j % len(cols)],
                   label=LB_NAMES[lb])
        ax.set_yscale("log")
        ax.axhline(1.0, color="k", lw=0.6)
        ax.set_xticks(range(len(self.modes)))
        ax.set_xticklabels([m[0] for m in self.modes], fontsize=8)
        ax.set_ylabel("OPS's max FCT over each's (log; seeds' range)")
        ax.set_title("32 hosts, 8 MiB permutation, failure at 100 us (paper: REPS far ahead "
                     "under total failures, BER does not hurt it)", fontsize=9)
        ax.legend(fontsize=7, ncol=3)
        ax.set_position([0.06, 0.6, 0.92, 0.36])
        for k, (panel, _, caption) in enumerate(ART8_PANELS):
            self.modes_plot(a, res, panel, caption,
                            fig.add_axes([0.16 + k * 0.28, 0.07, 0.24, 0.42]), k == 0)
        fig.savefig(path, dpi=90)

    def modes_plot(self, a, res, panel, caption, ax, first):
        """The artifact's plot_failures.py view of one panel: a mode per
        row, each load balancer's speedup over OPS as a mark."""
        marks = ("s", "P", "D", "v", "X", "*")
        for j, lb in enumerate(ART8_LBS):
            xs = [art8_speedups(a, res, panel, i, lb)[0] for i in range(len(ART8_MODES))]
            ax.scatter(xs, range(len(ART8_MODES)), marker=marks[j], s=60, alpha=0.75,
                       label=LB_NAMES[lb])
        ax.set_xscale("log")
        ax.axvline(1.0, color="grey", ls="--", lw=1)
        ax.set_yticks(range(len(ART8_MODES)))
        ax.set_yticklabels([m[0] for m in ART8_MODES] if first else [], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("speedup over OPS", fontsize=8)
        ax.set_title("The paper's modes: " + caption if first else caption, fontsize=8,
                     loc="left")
        if first:
            ax.legend(fontsize=7, ncol=2, loc="upper left")


class Fig15:
    title = "Fig. 15: EV-set size and congestion control"
    sets = (("32", ["--ev-base", "49152", "--ev-count", "32"]),
            ("256", ["--ev-base", "49152", "--ev-count", "256"]),
            ("65535", []))
    paper = {"ops": {"32": 64, "256": 21}, "reps": {"32": 8, "256": 0}}
    # EQDS runs with trimming, as it is designed (its speculative first
    # windows collide; trimmed, they are NACKed and pulled again).
    ccs = (("dctcp-mprdma", []), ("dctcp", []), ("nscc", []), ("eqds", ["--trim"]))

    def runs(self, a):
        n = n_macro(a)
        # fig_12_evs_cc.py's -tm perm_n128_s8388608.cm is the matrix
        # run_symmetric.py writes with gen_permutation.py (seed 42); the
        # profile draws uet-sim's permutation from each seed.
        wl = perm_args(a, n, "8M")
        out = [Run("f15-ev%s-%s-%d" % (k, lb, s),
                   ["--nodes", n] + wl + ["--iters", "1", "--lb", lb] + args, s)
               for k, args in self.sets for lb in ("ops", "reps") for s in seeds(a)]
        out += [Run("f15-cc%s-%s-%d" % (cc, lb, s),
                    ["--nodes", n] + wl + ["--iters", "1", "--lb", lb, "--cc", cc] + extra, s)
                for cc, extra in self.ccs for lb in ("ops", "reps") for s in seeds(a)]
        return out

    def table(self, a, res):
        # The artifact's fig_12_evs_cc.py runs these on its 128-host fabric.
        where = (" on 1024 hosts (the paper's runs: 128)" if a.scale == "paper" else
                 " on 128 hosts, the paper's fabric")
        if a.setup == "artifact":
            where += " (the artifact's matrix, gen_permutation.py with seed 42)"
        out = ["8 MiB permutation%s; max FCT over the 65535-EV run's, mean of %d seeds:\n" % (
            where, a.seeds),
            "| LB | 32 EVs | paper | 256 EVs | paper | 65535 EVs (us) |",
            "|---|---|---|---|---|---|"]
        for lb in ("ops", "reps"):
            full = mean_range([res["f15-ev65535-%s-%d" % (lb, s)]["fct_max_us"]
                               for s in seeds(a)])[0]
            cells = []
            for k in ("32", "256"):
                v = mean_range([res["f15-ev%s-%s-%d" % (k, lb, s)]["fct_max_us"]
                                for s in seeds(a)])[0]
                cells += ["+%.0f%%" % (100 * (v / full - 1)), "+%d%%" % self.paper[lb][k]]
            out.append("| %s | %s | %.1f |" % (LB_NAMES[lb], " | ".join(cells), full))
        out += ["\nCongestion control, 65535 EVs; max FCT (us), OPS over REPS:\n",
                "| CC | OPS | REPS | OPS / REPS |", "|---|---|---|---|"]
        for cc, extra in self.ccs:
            o = [res["f15-cc%s-ops-%d" % (cc, s)]["fct_max_us"] for s in seeds(a)]
            r = [res["f15-cc%s-reps-%d" % (cc, s)]["fct_max_us"] for s in seeds(a)]
            out.append("| %s%s | %s | %s | %.2fx |" % (cc, " (trimming)" if extra else "",
                                                        fmt(o), fmt(r),
                                                        mean_range(o)[0] / mean_range(r)[0]))
        out.append("\nPaper: REPS ahead of OPS under every CC (DCTCP, EQDS, a proprietary one, "
                   "likely NSCC).\n")
        return out

    def ev_stats(self, a, res, lb):
        """Per EV set, the slowdown over 65535 EVs in %: the table's (mean
        over mean), and the lowest and highest of each seed's run over the
        same seed's 65535-EV run: the spread a single run such as the
        paper's is drawn from."""
        fct = {k: [res["f15-ev%s-%s-%d" % (k, lb, s)]["fct_max_us"] for s in seeds(a)]
               for k, _ in self.sets}
        return [tuple(100 * (r - 1) for r in paired_ratio(fct[k], fct["65535"]))
                for k, _ in self.sets]

    def plot(self, a, res, plt, path):
        fig, ax = plt.subplots(figsize=(6, 3.5))
        for j, lb in enumerate(("ops", "reps")):
            st = self.ev_stats(a, res, lb)
            xs = [i + 0.35 * j for i in range(3)]
            ax.bar(xs, [m[0] for m in st], width=0.35, yerr=range_err(st), capsize=3,
                   label=LB_NAMES[lb])
            ax.plot(xs[:2], [self.paper[lb]["32"], self.paper[lb]["256"]], "rx", ms=9,
                    label="paper" if lb == "ops" else None)
        ax.set_xticks([i + 0.17 for i in range(3)])
        ax.set_xticklabels(["32 EVs", "256 EVs", "65535 EVs"])
        ax.set_ylabel("max FCT over 65535 EVs' (%; seeds' range)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=90)


# The abstract's "more than 70x fewer packet drops" is the FPGA testbed's
# (§4.4.3, Fig. 11b): 128 endpoints on 2 T0s joined by 8 T1s, a T0-T1 link
# brought down abruptly while the network takes "100s of milliseconds" to
# recover, drops averaged over five runs. Modelled here: 2 ToRs of 64
# hosts at 100 Gb/s, 8 spines over 400 Gb/s cables (--oversub 8
# --fabric-gbps 400), 8 KiB packets, every host sending to its partner
# under the other ToR (bisection: 2:1 at the uplinks, as the testbed's
# 64 x 100 Gb/s over 8 x 400), ToR 0's cable to spine 0 down at 1 ms for
# the rest of the run. The paper gives neither the workload nor whether
# the FPGA trims, so both ways; the profile's transport otherwise.
FIG11_LENGTHS_MS = (2, 5, 10)


class Fig11:
    title = "Fig. 11b (FPGA testbed): drops while a ToR-spine link is down"

    @staticmethod
    def rid(trim, ms, lb, s):
        return "f11-%s-%dms-%s-%d" % ("trim" if trim else "drop", ms, lb, s)

    def runs(self, a):
        return [Run(self.rid(trim, ms, lb, s),
                    ["--nodes", "128", "--hosts-per-tor", "64", "--oversub", "8",
                     "--link-gbps", "100", "--fabric-gbps", "400", "--mtu", "8192",
                     "--pattern", "bisection", "--duration", "%g" % ((ms + 1) / 1e3),
                     "--lb", lb, "--failure", "link-down:1ms:tor0.up0"] +
                    (["--trim"] if trim else []), s)
                for trim in (False, True) for ms in FIG11_LENGTHS_MS
                for lb in ("ops", "reps") for s in seeds(a)]

    def drops(self, a, res, trim, ms, lb):
        """The failed link's drops, mean over the seeds, and per seed the
        REPS-side detail: senders that lost packets there, the last drop
        after the failure (us)."""
        fs = [res[self.rid(trim, ms, lb, s)]["failures"][0] for s in seeds(a)]
        return (statistics.mean(f["drops_down"] for f in fs),
                statistics.mean(f["senders"]["n"] for f in fs),
                max((f["last_drop_ns"] - f["at_ns"]) / 1e3 if f["drops_down"] else 0
                    for f in fs))

    def table(self, a, res):
        out = ["128 hosts at 100 Gb/s on 2 ToRs, 8 spines over 400 Gb/s cables, 8 KiB "
               "packets, bisection; ToR 0's cable to spine 0 down at 1 ms until the run "
               "ends; packets dropped there, mean of %d seeds:\n" % a.seeds,
               "| switches | link down for | OPS drops | REPS drops | OPS / REPS | REPS senders "
               "that lost packets there | REPS's last drop after the failure (us, longest) |",
               "|---|---|---|---|---|---|---|"]
        for trim in (False, True):
            for ms in FIG11_LENGTHS_MS:
                o = self.drops(a, res, trim, ms, "ops")
                r = self.drops(a, res, trim, ms, "reps")
                out.append("| %s | %d ms | %.0f | %.0f | %s | %.1f of 128 | %.0f |" % (
                    "trim" if trim else "drop", ms, o[0], r[0],
                    "%.1fx" % (o[0] / r[0]) if r[0] else "-", r[1], r[2]))
        out.append("\nPaper (FPGA, link down for the network's 100s of ms of recovery, 5 runs): "
                   "REPS more than 70x fewer drops than OPS.\n")
        return out

    def plot(self, a, res, plt, path):
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for trim, style in ((False, "o-"), (True, "s--")):
            ratios = []
            for ms in FIG11_LENGTHS_MS:
                r = self.drops(a, res, trim, ms, "reps")[0]
                ratios.append(self.drops(a, res, trim, ms, "ops")[0] / r if r else float("nan"))
            ax.plot(FIG11_LENGTHS_MS, ratios, style,
                    label="switches trim" if trim else "switches drop")
        ax.axhline(70, color="r", ls="--", label="paper: more than 70x")
        ax.set_xlabel("link down for (ms)")
        ax.set_ylabel("drops, OPS / REPS")
        ax.set_xticks(FIG11_LENGTHS_MS)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=90)


# fig_12_evs_cc.py runs htsim once per cell, on one matrix
# (perm_n128_s8388608.cm, which its repository does not hold) with one
# seed (20). Whether the matrix could carry the paper's +64% for OPS at 32
# EVs: the same two cells over 20 matrices as gen_permutation.py writes
# them (its random seeds 42 and 1-19), each over --seeds runs.
ART15P_RSEEDS = (42,) + tuple(range(1, 20))


class Fig15Perms:
    title = "Fig. 15, matrices: OPS at 32 EVs over 20 permutation matrices"

    def runs(self, a):
        n = n_macro(a)
        out = []
        for r in ART15P_RSEEDS:
            out += [Run("f15p-r%d-ev%s-ops-%d" % (r, k, s),
                        ["--nodes", n] + art_perm_args(a, n, r) + ["--iters", "1",
                                                                   "--lb", "ops"] + args, s)
                    for k, args in (Fig15.sets[0], Fig15.sets[2]) for s in seeds(a)]
        return out

    @staticmethod
    def slowdowns(a, res, r):
        """Each seed's max FCT at 32 EVs over the same seed's at 65535, in %."""
        return [100 * (res["f15p-r%d-ev32-ops-%d" % (r, s)]["fct_max_us"] /
                       res["f15p-r%d-ev65535-ops-%d" % (r, s)]["fct_max_us"] - 1)
                for s in seeds(a)]

    def table(self, a, res):
        paper = Fig15.paper["ops"]["32"]
        out = ["OPS, 8 MiB permutation on %s hosts, the matrix from gen_permutation.py "
               "(`<file> N N 8388608 0 R`), max FCT at 32 EVs over the same seed's at 65535; "
               "%d seeds per matrix:\n" % (n_macro(a), a.seeds),
               "| matrix (R) | mean of the seeds | seeds' range |", "|---|---|---|"]
        every, means, within = [], [], []
        for r in ART15P_RSEEDS:
            v = self.slowdowns(a, res, r)
            every += v
            means.append(statistics.mean(v))
            within.append(statistics.variance(v) if len(v) > 1 else 0.0)
            out.append("| %d | %+.1f%% | %+.1f to %+.1f%% |" % (r, means[-1], min(v), max(v)))
        q = sorted(every)
        out.append("\nAll %d runs: mean %+.1f%%, 10th-90th percentile %+.1f to %+.1f%%; %d of "
                   "them (%.0f%%) at or above the paper's +%d%% (one run)." % (
                       len(q), statistics.mean(q), q[len(q) // 10], q[(9 * len(q)) // 10],
                       sum(x >= paper for x in q), 100.0 * sum(x >= paper for x in q) / len(q),
                       paper))
        if a.seeds > 1:
            out.append("The matrices' means spread by %.1f points (standard deviation); the "
                       "runs' own spread alone would give %.1f.\n" % (
                           statistics.stdev(means),
                           (statistics.mean(within) / a.seeds) ** 0.5))
        return out

    def plot(self, a, res, plt, path):
        fig, ax = plt.subplots(figsize=(9, 3.6))
        for i, r in enumerate(ART15P_RSEEDS):
            v = self.slowdowns(a, res, r)
            ax.plot([i] * len(v), v, ".", color="#c84", alpha=0.6)
            ax.plot([i], [statistics.mean(v)], "_", color="k", ms=14, mew=2)
        ax.axhline(Fig15.paper["ops"]["32"], color="r", ls="--", label="paper (one run)")
        ax.set_xticks(range(len(ART15P_RSEEDS)))
        ax.set_xticklabels([str(r) for r in ART15P_RSEEDS], fontsize=8)
        ax.set_xlabel("gen_permutation.py's random seed (the matrix)")
        ax.set_ylabel("OPS max FCT, 32 over 65535 EVs (%)")
        ax.set_title("each dot a run, the bar the matrix's mean", fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=90)


class FigA:
    title = "App. A: forced freezing, no failure"

    def runs(self, a):
        base = ["--nodes", n_macro(a), "--pattern", "permutation", "--size", "16M", "--iters",
                "1"]
        return [r for s in seeds(a) for r in (
            Run("fA-ops-%d" % s, base + ["--lb", "ops"], s),
            Run("fA-reps-%d" % s, base + ["--lb", "reps"], s),
            Run("fA-forced-%d" % s, base + ["--lb", "reps", "--reps-force-freeze-ns", "50000",
                                            "--reps-freeze-ns", "10000000"], s))]

    def table(self, a, res):
        out = ["16 MiB permutation%s; every REPS PDC frozen at 50 us for the rest of the run "
               "(10 ms); mean of %d seeds:\n" % (scale_note(a), a.seeds),
               "| run | max FCT (us) |", "|---|---|"]
        v = {}
        for k, name in (("ops", "OPS"), ("reps", "REPS"), ("forced", "REPS, forced freeze")):
            vals = [res["fA-%s-%d" % (k, s)]["fct_max_us"] for s in seeds(a)]
            v[k] = mean_range(vals)[0]
            out.append("| %s | %s |" % (name, fmt(vals)))
        out.append("\nForced freezing costs %+.1f%% over REPS; paper: about 1%% (an earlier "
                   "version), both REPS variants slightly ahead of OPS.\n" % (
                       100 * (v["forced"] / v["reps"] - 1)))
        return out

    def plot(self, a, res, plt, path):
        keys = (("ops", "OPS"), ("reps", "REPS"), ("forced", "REPS, forced freeze"))
        st = [mean_range([res["fA-%s-%d" % (k, s)]["fct_max_us"] for s in seeds(a)])
              for k, _ in keys]
        fig, ax = plt.subplots(1, 1, figsize=(5, 3.6))
        bars(ax, [n for _, n in keys], st, "16 MiB permutation, %s hosts, frozen at 50 us"
             % n_macro(a), "max FCT (us)")
        ax.plot([2], [st[1][0] * 1.01], "rx", ms=9, label="paper: +1% over REPS")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(path, dpi=90)


class FigTies:
    title = "Simultaneous events: the incast's senders in scheduling order and shuffled"
    lbs = ("ecmp", "ops", "bitmap", "reps", "mprdma")
    orders = (("fifo", []), ("shuffled", ["--shuffle-ties"]))

    @staticmethod
    def rid(size, lb, order, s):
        return "ft-%s-%s-%s-%d" % (size, lb, order, s)

    def runs(self, a):
        # Fig. 3's incast (hosts 512-519 to 511 on 1024 hosts): the eight
        # senders start together and meet first at the receiver's downlink.
        return [Run(self.rid(size, lb, order, s),
                    ["--nodes", "1024", "--pattern", "incast", "--fanin", "8", "--root", "511",
                     "--size", size, "--iters", "1", "--lb", lb] + extra, s)
                for size in ART_SIZES for lb in self.lbs for order, extra in self.orders
                for s in seeds(a)]

    def per_sender(self, a, res, size, lb, order):
        """Each seed's FCTs (us) of hosts 512..519, in that order."""
        out = []
        for s in seeds(a):
            fl = {f["src"]: f["fct_ns"] / 1e3 for f in res[self.rid(size, lb, order, s)]
                  ["flows_rec"]}
            out.append([fl[512 + i] for i in range(8)])
        return out

    def table(self, a, res):
        out = ["Incast 8:1 on 1024 hosts (hosts 512-519 under one ToR, with 32 uplinks, to "
               "host 511 under another; Fig. 3's), each sender's FCT, in the order events "
               "were scheduled (the default, htsim's) / with `--shuffle-ties`; mean of %d "
               "seeds:\n" % a.seeds,
               "| LB | size | host 512, the first flow (us) | the other seven, fastest-slowest "
               "(us) | max FCT (us) | runs where host 512 finished first |",
               "|---|---|---|---|---|---|"]
        won = {o: 0 for o, _ in self.orders}
        total = 0
        for lb in self.lbs:
            for size in ART_SIZES:
                cells = {}
                for order, _ in self.orders:
                    v = self.per_sender(a, res, size, lb, order)
                    first = statistics.mean(x[0] for x in v)
                    lo = statistics.mean(min(x[1:]) for x in v)
                    hi = statistics.mean(max(x[1:]) for x in v)
                    mx = statistics.mean(max(x) for x in v)
                    w = sum(x[0] == min(x) for x in v)
                    won[order] += w
                    cells[order] = (first, lo, hi, mx, w)
                total += a.seeds
                f, sh = cells["fifo"], cells["shuffled"]
                out.append("| %s | %s MiB | %.1f / %.1f | %.1f-%.1f / %.1f-%.1f | %.1f / %.1f | "
                           "%d / %d of %d |" % (
                               LB_NAMES.get(lb, lb), size[:-1], f[0], sh[0], f[1], f[2], sh[1],
                               sh[2], f[3], sh[3], f[4], sh[4], a.seeds))
        out.append("\nHost 512 finished first in %d of %d runs in scheduling order and in %d "
                   "shuffled (1 in 8 would be a fair draw).\n" % (
                       won["fifo"], total, won["shuffled"]))
        return out

    def plot(self, a, res, plt, path):
        fig, axs = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
        for ax, (order, _) in zip(axs, self.orders):
            for lb in self.lbs:
                v = self.per_sender(a, res, "8M", lb, order)
                ax.plot(range(512, 520), [statistics.mean(x[i] for x in v) for i in range(8)],
                        "o-", ms=4, label=LB_NAMES.get(lb, lb))
            ax.set_title("8 MiB, %s" % ("scheduling order (htsim's)" if order == "fifo"
                                        else "--shuffle-ties"), fontsize=10)
            ax.set_xlabel("sender (host)")
        axs[0].set_ylabel("FCT (us), mean of the seeds")
        axs[0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(path, dpi=90)


FIGS = {"2": Fig2(), "3": Fig3(), "3s": Fig3Sizes(), "4": Fig4(), "5": Fig5(), "6": Fig6(), "7": Fig7(),
        "8": Fig8(), "11": Fig11(), "15": Fig15(), "15p": Fig15Perms(), "A": FigA(),
        "ties": FigTies()}


# --- running ------------------------------------------------------------------


def write_retx(path, runs, res):
    rows = {}
    for r in runs:
        g = rows.setdefault(r.group, [0] * 7)
        v = res[r.id]
        g[0] += 1
        for k, key in enumerate(("drops", "trims", "retx", "spurious", "rto_lost",
                                 "spurious_rto")):
            g[k + 1] += v[key]
    with open(path, "w") as f:
        f.write("| runs | seeds | network drops | trims | retransmissions | spurious "
                "(receiver saw a duplicate) | losses declared by RTO | spurious RTOs |\n"
                "|---|---|---|---|---|---|---|---|\n")
        for name, g in rows.items():
            f.write("| %s | %d | %d | %d | %d | %d (%.1f%%) | %d | %d |\n" % (
                name, g[0], g[1], g[2], g[3], g[4], 100.0 * g[4] / g[3] if g[3] else 0.0,
                g[5], g[6]))


def run_all(runs, a):
    todo = [r for r in runs if not (os.path.exists(json_path(r, a.out_dir)) and fresh(r, a))]
    stale = [r for r in todo if os.path.exists(json_path(r, a.out_dir))]
    print("%d runs, %d cached in %s%s" % (
        len(runs), len(runs) - len(todo), a.out_dir,
        ", %d stale (another uet-sim build or other arguments): rerun" % len(stale)
        if stale else ""), file=sys.stderr)

    def one(r):
        t0 = time.time()
        kp = key_path(r, a.out_dir)
        if os.path.exists(kp):
            os.remove(kp)
        p = subprocess.run(cmdline(a.uet_sim, r, a.out_dir), capture_output=True, text=True)
        if p.returncode not in (0, 1):
            return "%s: exit %d: %s" % (r.id, p.returncode, p.stderr.strip()[-300:])
        with open(kp, "w") as f:
            f.write(build_line(a.build) + key_args(r))
        print("  %-28s %6.1f s  %s" % (r.id, time.time() - t0, " ".join(r.args)),
              file=sys.stderr)
        return None

    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        errs = [e for e in ex.map(one, todo) if e]
    if errs:
        sys.exit("uet-sim failed:\n" + "\n".join(errs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    # ties is not the paper's: asked for by name only
    ap.add_argument("--figs", default=",".join(f for f in FIGS if f != "ties"))
    ap.add_argument("--scale", choices=("quick", "paper"), default="quick")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--setup", choices=("paper", "artifact"), default="paper",
                    help="paper: the profile as the paper states its setup; artifact: what "
                    "the artifact's scripts ran (its RTO; trimming and ECN per figure)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out-dir", default="paper-figures")
    ap.add_argument("--png-dir", help="default: --out-dir")
    ap.add_argument("--md", help="also write the tables to this file")
    ap.add_argument("--uet-sim", default=os.path.join(ROOT, "build", "apps", "uet-sim",
                                                      "uet-sim"))
    ap.add_argument("--joblist", help="write the uet-sim commands, one per line, and stop")
    ap.add_argument("--slurm", help="write a Slurm job-array script over --joblist and stop")
    ap.add_argument("--retx", metavar="FILE",
                    help="also write what the transport did (drops, trims, retransmissions, "
                    "spurious ones, RTO-declared losses), one row per scenario summed over "
                    "the seeds, to FILE")
    ap.add_argument("--merge", action="store_true",
                    help="run nothing: tables and plots from the JSON in --out-dir")
    ap.add_argument("--sim-arg", action="append", default=[], metavar="ARG",
                    help="one more uet-sim argument for every run, after the setup's "
                    "(repeat it; --sim-arg=--sack-repeat=no runs the receiver of before "
                    "2026-11-27); the cache keys hold it, so "
                    "give such runs their own --out-dir")
    ap.add_argument("--any-build", action="store_true",
                    help="take cached reports made by another uet-sim build (a cluster's); "
                    "their arguments must still match")
    a = ap.parse_args()
    figs = [f.strip() for f in a.figs.split(",") if f.strip()]
    for f in figs:
        if f not in FIGS:
            ap.error("--figs: unknown figure '%s' (%s)" % (f, ", ".join(FIGS)))
        if a.setup == "artifact" and f not in ARTIFACT:
            ap.error("--figs: the artifact's settings for figure %s are not known here; "
                     "--setup artifact runs %s" % (f, ", ".join(ARTIFACT)))
    if "ties" in figs and any(x.startswith("--shuffle-ties") for x in a.sim_arg):
        ap.error("--figs ties: it runs each incast with and without --shuffle-ties itself; "
                 "drop --sim-arg=--shuffle-ties")
    if not (a.joblist or a.slurm):
        mplenv.need_pyplot("paper_figures.py")
    os.makedirs(a.out_dir, exist_ok=True)
    if not (a.joblist or a.slurm or (a.merge and a.any_build)):
        if not os.access(a.uet_sim, os.X_OK):
            sys.exit("--uet-sim: %s is not an executable (build it: meson compile -C "
                     "build)" % a.uet_sim)
        a.build = sha256_file(build_file(a.uet_sim))
    else:
        a.build = None
    runs = []
    for f in figs:
        for r in FIGS[f].runs(a):
            if a.setup == "artifact":
                r.file_id = "art-" + r.id
                r.args += ARTIFACT_ALL + ARTIFACT[f]
            r.args += a.sim_arg
            runs.append(r)
    if a.joblist or a.slurm:
        jl = a.joblist or (a.slurm + ".jobs")
        with open(jl, "w") as f:
            for r in runs:
                f.write(job_line(r, a) + "\n")
        print("%s: %d commands (GNU parallel: parallel < %s)" % (jl, len(runs), jl))
        if a.slurm:
            with open(a.slurm, "w") as f:
                f.write("#!/bin/bash\n#SBATCH --job-name=reps-figures\n#SBATCH --array=0-%d\n"
                        "#SBATCH --cpus-per-task=1\n#SBATCH --mem=2G\n"
                        "# then: tools/sim/paper_figures.py --figs %s --scale %s --seeds %d "
                        "--setup %s%s --out-dir %s --merge\n"
                        "sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" %s | sh\n" % (
                            len(runs) - 1, ",".join(figs), a.scale, a.seeds, a.setup,
                            "".join(" --sim-arg=" + shlex.quote(x) for x in a.sim_arg),
                            a.out_dir, shlex.quote(os.path.abspath(jl))))
            print("%s: sbatch %s" % (a.slurm, a.slurm))
        return 0
    if not a.merge:
        run_all(runs, a)
    res = {}
    for r in runs:
        rep = load(r, a.out_dir)
        if rep is None:
            sys.exit("%s: no result in %s (run without --merge, or collect the cluster's)" % (
                r.id, a.out_dir))
        if not fresh(r, a):
            sys.exit("%s: the report in %s was made by another uet-sim build or with other "
                     "arguments (its %s.key): rerun without --merge%s" % (
                         r.id, a.out_dir, r.file_id,
                         "" if a.any_build else ", or --any-build for a cluster's"))
        res[r.id] = summary(rep)
    plt = mplenv.pyplot("paper_figures.py", "the PNGs (tables only)")
    md = []
    for f in figs:
        fig = FIGS[f]
        md.append("### %s\n" % fig.title)
        if a.setup == "artifact":
            md.append("Setup: the artifact's, `--profile reps-paper %s`.\n" % " ".join(
                ARTIFACT_ALL + ARTIFACT[f] + a.sim_arg))
        elif a.sim_arg:
            md.append("Setup: `--profile reps-paper %s`.\n" % " ".join(a.sim_arg))
        md += fig.table(a, res)
        if plt is not None and fig.plot is not None:
            png = os.path.join(a.png_dir or a.out_dir, "%sfig%s.png" % (
                "art-" if a.setup == "artifact" else "", f))
            os.makedirs(os.path.dirname(png) or ".", exist_ok=True)
            fig.plot(a, res, plt, png)
            plt.close("all")
            md.append("![%s](%s)\n" % (fig.title, png))
    text = "\n".join(md)
    print(text)
    if a.retx:
        write_retx(a.retx, runs, res)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
