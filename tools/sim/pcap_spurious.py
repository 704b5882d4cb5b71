#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Why were packets delivered twice? Reads the captures uet-sim writes of
every host's NIC (--pcap DIR/h%e.pcap --pcap-hosts 0-N) and sorts each PSN
the receiver got more than once: either the copy it got first had already
arrived when the sender resent (were ACKs reporting it sent before the
resend, and were they lost, or still on their way?), or that copy was
still in flight (a late copy, with its one-way delay). A copy is told
from its resend by its EV (the UDP source port); where two copies
carried the same EV the PSN is counted as ambiguous.

usage: tools/sim/pcap_spurious.py [--json] CAPTURE...
"""
import argparse
import collections
import json
import statistics
import struct
import sys

PCAP_MAGIC_NS = 0xa1b23c4d
UET_UDP_PORT = 4793
PDS_REQ = (2, 13)       # RUD_REQ, RUD_CC_REQ
PDS_ACK = (7, 8)        # ACK, ACK_CC


def pcap_records(data):
    """A pcap's header (magic, version major, minor, snaplen, link type)
    and its frames: (ts_ns, captured length, wire length, bytes), the bytes
    shorter than the captured length if the file was cut short."""
    def it():
        off = 24
        while off + 16 <= len(data):
            sec, nsec, caplen, wirelen = struct.unpack_from("<IIII", data, off)
            yield sec * 10**9 + nsec, caplen, wirelen, data[off + 16:off + 16 + caplen]
            off += 16 + caplen
    magic, vmaj, vmin, _, _, snaplen, link = struct.unpack_from("<IHHiIII", data, 0)
    return (magic, vmaj, vmin, snaplen, link), it()


def udp4(b):
    """(source address, destination address, source port, destination
    port) of an Ethernet/IPv4/UDP frame, None for any other."""
    if len(b) < 42 or b[12:14] != b"\x08\x00" or b[23] != 17:
        return None
    return (b[26:30], b[30:34]) + struct.unpack_from(">HH", b, 34)


def frames(path):
    """(ts_ns, src, dst, sport, pds type, PDS bytes) of each UET frame."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        sys.exit("%s: not a pcap" % path)
    head, recs = pcap_records(data)
    if head[0] != PCAP_MAGIC_NS:
        sys.exit("%s: not a nanosecond pcap (uet-sim --pcap writes one)" % path)
    for ts, _, _, b in recs:
        u = udp4(b)
        if u is None or len(b) < 44 or UET_UDP_PORT not in u[2:]:
            continue
        pds = b[42:]
        yield ts, u[0], u[1], u[2], pds[0] >> 3, pds


def capture_host(frames):
    """The host whose NIC a capture is: the address in every frame
    (frames: tuples of ts, source, destination, ...); None if empty."""
    seen = collections.Counter()
    for f in frames:
        seen[f[1]] += 1
        seen[f[2]] += 1
    return seen.most_common(1)[0][0] if seen else None


def ack_covers(ack, psn):
    """Whether an ACK (CACK_PSN, sack base, bitmap) reports psn received:
    CACK_PSN and every PSN before it (UET's inclusive cumulative PSN), and
    the bitmap's."""
    cack, base, bm = ack
    if (cack - psn) % 2**32 < 2**31:
        return True
    i = (psn - base) % 2**32
    return i < 64 and (bm >> i) & 1 == 1


def read(paths):
    """Data copies sent and received, ACKs sent and received, per host."""
    tx, rx = collections.defaultdict(list), collections.defaultdict(list)
    acks_tx, acks_rx = collections.defaultdict(list), collections.defaultdict(list)
    for path in paths:
        fr = list(frames(path))
        me = capture_host(fr)
        if me is None:
            continue
        for t, src, dst, ev, typ, pds in fr:
            if typ in PDS_REQ and len(pds) >= 12:
                psn, spdcid = struct.unpack_from(">IH", pds, 4)
                (tx if src == me else rx)[(src, dst, spdcid, psn)].append((t, ev))
            elif typ in PDS_ACK and len(pds) >= 12:
                cack, _, dpdcid = struct.unpack_from(">IHH", pds, 4)
                base, bm = cack, 0
                if typ == 8 and len(pds) >= 24:
                    base = cack + struct.unpack_from(">h", pds, 14)[0]
                    bm = struct.unpack_from(">Q", pds, 16)[0]
                # Keyed by the data's direction: sender, receiver, sender's PDC.
                (acks_tx if src == me else acks_rx)[(dst, src, dpdcid)].append(
                    (t, (cack, base, bm), ev))
    return tx, rx, acks_tx, acks_rx


def classify(tx, rx, acks_tx, acks_rx):
    out = collections.Counter()
    late_us, wait_us, covering = [], [], []
    got_by_key = {}   # per PDC: when each ACK reached the sender
    for k, arr in rx.items():
        if len(arr) < 2:
            continue
        out["delivered_twice"] += 1
        sends = sorted(tx.get(k, []))
        copies = []   # (arrival, its send) of the first two arrivals
        for a, ev in sorted(arr)[:2]:
            s = [t for t, e in sends if e == ev and t <= a]
            copies.append((a, s[-1] if s else None))
        (a0, s0), (a1, s1) = copies
        if s0 is None or s1 is None or s0 == s1:
            out["ambiguous"] += 1
            continue
        if s1 <= a0:
            # Both copies were in flight at once: the one sent first was
            # late when the other left.
            out["late_copy"] += 1
            late_us.append(((a0 - s0) if s0 < s1 else (a1 - s1)) / 1e3)
            continue
        resent = s1
        out["arrived_before_resend"] += 1
        wait_us.append((resent - a0) / 1e3)
        key, psn = k[:3], k[3]
        sent = [(a, ev) for t, a, ev in acks_tx.get(key, [])
                if a0 <= t < resent and ack_covers(a, psn)]
        if key not in got_by_key:
            got_by_key[key] = {(a, ev): t for t, a, ev in acks_rx.get(key, [])}
        got = got_by_key[key]
        covering.append(len(sent))
        if not sent:
            out["no_covering_ack_sent"] += 1
        elif any(got.get(x, resent) < resent for x in sent):
            # The sender had the news and resent anyway.
            out["a_covering_ack_arrived_first"] += 1
        elif any(x in got for x in sent):
            out["covering_ack_arrived_after"] += 1
        else:
            out["every_covering_ack_lost"] += 1
    delays = []
    for k, arr in rx.items():
        for a, ev in arr:
            s = [t for t, e in tx.get(k, []) if e == ev and t <= a]
            if s:
                delays.append((a - max(s)) / 1e3)

    def stats(v):
        return {"n": len(v), "median": statistics.median(v), "max": max(v)} if v else None

    res = dict(out)
    res.update({"late_copy_delay_us": stats(late_us), "arrival_to_resend_us": stats(wait_us),
                "covering_acks_sent": stats(covering), "one_way_delay_us": stats(delays)})
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("captures", nargs="+", help="every host's capture")
    ap.add_argument("--json", action="store_true", help="one JSON object")
    a = ap.parse_args()
    res = classify(*read(a.captures))
    if a.json:
        print(json.dumps(res))
        return 0
    g = res.get
    print("PSNs delivered twice: %d" % g("delivered_twice", 0))
    print("  the first copy had arrived before the resend left: %d" %
          g("arrived_before_resend", 0))
    print("    every ACK covering it sent before the resend was lost: %d" %
          g("every_covering_ack_lost", 0))
    print("    such an ACK reached the sender, after the resend left: %d" %
          g("covering_ack_arrived_after", 0))
    print("    such an ACK reached the sender before the resend left: %d" %
          g("a_covering_ack_arrived_first", 0))
    print("    no ACK covering it was sent before the resend: %d" %
          g("no_covering_ack_sent", 0))
    print("  the first copy was still in flight (late): %d" % g("late_copy", 0))
    print("  ambiguous (the copy and its resend on one EV): %d" % g("ambiguous", 0))
    for name, key in (("late copies' one-way delay", "late_copy_delay_us"),
                      ("arrival to resend", "arrival_to_resend_us"),
                      ("every delivered copy's one-way delay", "one_way_delay_us")):
        if res[key]:
            print("%s: median %.1f us, max %.1f us (%d)" % (
                name, res[key]["median"], res[key]["max"], res[key]["n"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
