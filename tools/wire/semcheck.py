#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check what the UET fields in captures mean, not only their layout.

Reads nanosecond pcaps of hosts' NICs (uet-sim --pcap DIR/h%e.pcap
--pcap-hosts LIST, or uet-perf --pcap) and, replaying each host's frames in
time order, checks every packet against what UET 1.0 means by its fields
(doc/wire.md, "What the fields mean"):

  ACK   CACK_PSN is inclusive: every PSN up to it had arrived when the ACK
        left, and it is not behind what had (the receiver's cumulative
        point then); the trigger (CACK_PSN + ack_psn_offset) had arrived;
        an ACK whose trigger arrived in order, with nothing after it, has
        ack_psn_offset 0; every SACK bit set is a PSN that had arrived and
        every PSN at or below CACK_PSN in the window is set; RETX echoes the
        trigger's latest copy; DUP only for a trigger that had arrived
        before; the reserved bit 0x40 is clear
  NACK  a TRIMMED NACK names a PSN whose trimmed copy (headers only)
        arrived; its payload is the highest PSN whose payload had arrived
        + 1 (Wireshark's reading)
  data  spdcid is not 0; the opcode is UET_TAGGED_SEND or UET_SEND (whose
        match bits are 0), the same for every packet of a message with the
        same match bits and request length; SOM exactly on offset 0 and EOM
        on the last byte; a later packet's payload length field is its
        payload; CLEAR_PSN (PSN + clear_psn_offset) is at most the highest
        PSN up to which every PSN was acknowledged to the sender, and not
        below the start PSN - 1
  --strict  also: no ACK has a reserved flag (0x41) or cc_flags set or
        bytes past its 32, no CREDIT or CREDIT_REQ is sent

All PSN arithmetic is modulo 2^32; the summary says how many PDCs crossed
2^32 in the captures (uet-sim --psn-near-wrap makes every PDC do so).
Checks that need what a capture lacks (a PDC whose SYN it missed, a peer
not captured) are skipped and counted. Exit status 1 when any check fails.

usage: tools/wire/semcheck.py [--strict] [--json] [--max-report N] CAPTURE[@IP]...

Each capture is one host's NIC; the host is the address in every frame,
or, where two hosts only talk to each other, the one named after @.
"""
import argparse
import collections
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "sim"))
import pcap_spurious  # noqa: E402  (the pcap reader)

M32 = 1 << 32
UET_UDP_PORT = 4793
T_RUD_REQ, T_ACK, T_ACK_CC, T_NACK, T_CTRL = 2, 7, 8, 10, 11
NH_REQ_STD = 3
CTL_CREDIT, CTL_CREDIT_REQ = 7, 8
REQ_F_RETX, REQ_F_SYN = 0x10, 0x04
ACK_F_M, ACK_F_RETX, ACK_F_P, ACK_F_DUP, ACK_F_RSV = 0x20, 0x10, 0x08, 0x01, 0x40
SES_SEND, SES_TAGGED_SEND = 0x05, 0x09
SES_F_SOM, SES_F_EOM = 0x01, 0x02
DATA_HDR = 12 + 44
NACK_TRIMMED, NACK_TRIMMED_LASTHOP = 0x01, 0x02


def d32(a, b):
    """a - b as a signed 32-bit distance."""
    x = (a - b) % M32
    return x - M32 if x >= 1 << 31 else x


def uet_frames(path):
    """(ts_ns, src, dst, UDP payload, UDP payload length on the wire) of each
    Ethernet/IPv4/UDP frame to or from port 4793."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        sys.exit("%s: not a pcap" % path)
    head, recs = pcap_spurious.pcap_records(data)
    if head[0] != pcap_spurious.PCAP_MAGIC_NS:
        sys.exit("%s: not a nanosecond pcap" % path)
    for ts, _, _, b in recs:
        u = pcap_spurious.udp4(b)
        if u is None or UET_UDP_PORT not in u[2:]:
            continue
        ihl = (b[14] & 0x0f) * 4
        total = struct.unpack_from(">H", b, 16)[0]
        udp = 14 + ihl
        yield ts, u[0], u[1], b[udp + 8:], total - ihl - 8


def sack_bits(pds, typ, cack):
    """(PSN, bit) of an ACK_CC's 64-PSN SACK window (base CACK_PSN +
    sack_psn_offset); nothing for a plain ACK."""
    if typ != T_ACK_CC or len(pds) < 24:
        return []
    base = (cack + struct.unpack_from(">h", pds, 14)[0]) % M32
    bm = struct.unpack_from(">Q", pds, 16)[0]
    return [((base + i) % M32, bm >> i & 1) for i in range(64)]


def pdc_of(pdcs, key, psn, dpdcid, flags, kind):
    """A request's PDC: a SYN with another start PSN begins a new
    incarnation (start = PSN - the SYN's psn_offset)."""
    st = pdcs.get(key)
    if flags & REQ_F_SYN:
        start = (psn - (dpdcid & 0x0fff)) % M32
        if st is None or st.start != start:
            st = pdcs[key] = kind(start)
    return st


def trimmed(pds, plen):
    """A data packet a switch cut to its headers: no payload where its
    semantic header says there was some."""
    if plen != DATA_HDR or len(pds) < DATA_HDR:
        return False
    if pds[13] & SES_F_SOM:
        return struct.unpack_from(">I", pds, 52)[0] > 0
    return struct.unpack_from(">I", pds, 44)[0] & 0x3fff > 0


class Rx:
    """A data sender's PDC as its receiver saw it."""

    def __init__(self, start):
        self.start = start
        self.cum = None if start is None else (start - 1) % M32
        self.cum_before = self.cum   # as of the last earlier timestamp
        self.cum_ts = -1
        self.count = collections.Counter()
        self.retx = {}
        self.trimmed = collections.Counter()
        self.max_psn = None  # the highest PSN whose payload arrived
        self.in_order = {}   # PSN: its first copy arrived in order, after no later one
        self.last_psn = None
        self.wrapped = False


class Tx:
    """A sender's PDC as the sender saw it."""

    def __init__(self, start):
        self.start = start
        self.reported = set()
        self.rep_cum = (start - 1) % M32
        self.msgs = {}
        self.wrapped = False


class Checker:
    def __init__(self, strict, max_report):
        self.strict = strict
        self.max_report = max_report
        self.checked = collections.Counter()
        self.failed = collections.Counter()
        self.skipped = collections.Counter()
        self.reports = []
        self.wrapped = set()
        self.counts = collections.Counter()

    def check(self, name, ok, where):
        self.checked[name] += 1
        if not ok:
            self.failed[name] += 1
            if len(self.reports) < self.max_report:
                self.reports.append("%s: %s" % (name, where))

    # --- one host's capture -------------------------------------------
    def host(self, arg):
        path, _, ip = arg.partition("@")
        frames = list(uet_frames(path))
        if ip:
            me = bytes(int(x) for x in ip.split("."))
        else:
            seen = collections.Counter(a for f in frames for a in (f[1], f[2]))
            top = seen.most_common(2)
            if len(top) == 2 and top[0][1] == top[1][1]:
                sys.exit("%s: two hosts in every frame; say which one captured it: "
                         "%s@IP" % (path, path))
            me = pcap_spurious.capture_host(frames)
        if me is None:
            return
        # Arrivals before departures of the same nanosecond.
        frames.sort(key=lambda f: (f[0], f[1] == me))
        rx, tx = {}, {}
        for ts, src, dst, pds, plen in frames:
            if len(pds) < 12:
                continue
            w = struct.unpack_from(">H", pds, 0)[0]
            typ, nh, flags = w >> 11, (w >> 7) & 0xf, w & 0x7f
            where = "%s t=%d ns" % (os.path.basename(path), ts)
            if src == me:
                if typ == T_RUD_REQ and nh == NH_REQ_STD:
                    self.data_out(tx, dst, pds, plen, flags, where)
                elif typ in (T_ACK, T_ACK_CC):
                    self.ack_out(rx, ts, dst, pds, plen, typ, flags, where)
                elif typ == T_NACK:
                    self.nack_out(rx, dst, pds, where)
                elif typ == T_CTRL and self.strict:
                    self.check("strict: no CREDIT or CREDIT_REQ", nh not in
                               (CTL_CREDIT, CTL_CREDIT_REQ), where)
            else:
                if typ == T_RUD_REQ and nh == NH_REQ_STD:
                    self.data_in(rx, ts, src, pds, plen, flags)
                elif typ in (T_ACK, T_ACK_CC):
                    self.ack_in(tx, src, pds, typ, flags)

    # --- receiver side --------------------------------------------------
    def data_in(self, rx, ts, src, pds, plen, flags):
        psn, spdcid, dpdcid = struct.unpack_from(">IHH", pds, 4)
        key = (src, spdcid)
        st = pdc_of(rx, key, psn, dpdcid, flags, Rx)
        if st is None:
            st = rx[key] = Rx(None)
        if trimmed(pds, plen):
            st.trimmed[psn] += 1
            return
        if st.max_psn is None or d32(psn, st.max_psn) > 0:
            st.max_psn = psn
        if st.cum_ts != ts:
            st.cum_before, st.cum_ts = st.cum, ts
        first = st.count[psn] == 0
        st.count[psn] += 1
        st.retx[psn] = bool(flags & REQ_F_RETX)
        st.last_psn = psn
        if st.cum is not None:
            while st.count[(st.cum + 1) % M32] > 0:
                st.cum = (st.cum + 1) % M32
                if st.cum == 0:
                    st.wrapped = True
                    self.wrapped.add(("rx",) + key)
            if first:
                st.in_order[psn] = st.cum == psn

    def ack_out(self, rx, ts, dst, pds, plen, typ, flags, where):
        self.counts["acks"] += 1
        off, cack, spdcid, dpdcid = struct.unpack_from(">hIHH", pds, 2)
        st = rx.get((dst, dpdcid))
        self.check("ACK: reserved flag 0x40 clear", not flags & ACK_F_RSV, where)
        if self.strict:
            self.check("strict: ACK flags 0x41 clear", not flags & (ACK_F_RSV | ACK_F_DUP), where)
            if typ == T_ACK_CC and len(pds) >= 13:
                self.check("strict: ACK_CC cc_flags 0", pds[12] & 0x0f == 0, where)
                self.check("strict: nothing past the ACK_CC's 32 bytes", plen == 32, where)
        if st is None or st.cum is None:
            self.skipped["ACK of a PDC whose SYN the capture lacks"] += 1
            return
        if st.cum_ts != ts:
            st.cum_before = st.cum
        # CACK_PSN: inclusive, all arrived, not behind.
        self.check("ACK: CACK_PSN had arrived with every PSN before it",
                   d32(cack, st.cum) <= 0, "%s CACK_PSN %d, arrived up to %d" % (
                       where, cack, st.cum))
        self.check("ACK: CACK_PSN not behind the receiver's cumulative point",
                   d32(cack, st.cum_before) >= 0, "%s CACK_PSN %d, arrived up to %d" % (
                       where, cack, st.cum_before))
        if not flags & ACK_F_P:
            trig = (cack + off) % M32
            self.check("ACK: the trigger had arrived", st.count[trig] > 0,
                       "%s trigger %d" % (where, trig))
            if st.count[trig] > 0:
                self.check("ACK: RETX echoes the trigger's copy",
                           bool(flags & ACK_F_RETX) == st.retx[trig], where)
                if flags & ACK_F_DUP:
                    self.check("ACK: DUP only for a trigger that arrived before",
                               st.count[trig] >= 2, "%s trigger %d" % (where, trig))
                if (st.in_order.get(trig) and st.last_psn == trig and st.count[trig] == 1):
                    self.counts["in_order_acks"] += 1
                    self.check("ACK: in order, ack_psn_offset 0", off == 0,
                               "%s offset %d" % (where, off))
        for psn, bit in sack_bits(pds, typ, cack):
            if bit:
                # Below the start PSN nothing was ever sent: set, as
                # everything at or below CACK_PSN is.
                self.check("SACK: a set bit is a PSN that arrived",
                           st.count[psn] > 0 or d32(psn, st.start) < 0,
                           "%s PSN %d" % (where, psn))
            elif d32(psn, cack) <= 0 and d32(psn, st.start) >= 0:
                self.check("SACK: bits at and below CACK_PSN are set", False,
                           "%s PSN %d" % (where, psn))

    def nack_out(self, rx, dst, pds, where):
        self.counts["nacks"] += 1
        if len(pds) < 16:
            return
        code, psn, spdcid, dpdcid, payload = struct.unpack_from(">BxIHHI", pds, 2)
        st = rx.get((dst, dpdcid))
        if st is None or code not in (NACK_TRIMMED, NACK_TRIMMED_LASTHOP):
            return
        self.check("NACK: TRIMMED names a PSN whose trimmed copy arrived", st.trimmed[psn] > 0,
                   "%s PSN %d" % (where, psn))
        # Before any payload arrived: the start PSN (the start - 1, + 1).
        hi = st.max_psn if st.max_psn is not None else (
            None if st.start is None else (st.start - 1) % M32)
        if hi is not None:
            self.check("NACK: payload is the highest PSN arrived + 1",
                       payload == (hi + 1) % M32, "%s payload %d, highest %d" % (
                           where, payload, hi))

    # --- sender side ----------------------------------------------------
    def ack_in(self, tx, src, pds, typ, flags):
        off, cack, spdcid, dpdcid = struct.unpack_from(">hIHH", pds, 2)
        st = tx.get((src, dpdcid))
        if st is None:
            return
        rep = st.reported
        if d32(cack, st.start) >= 0:
            # Everything from the start up to CACK_PSN.
            p = (st.rep_cum + 1) % M32
            while d32(p, cack) <= 0:
                rep.add(p)
                p = (p + 1) % M32
        if not flags & ACK_F_P:
            rep.add((cack + off) % M32)
        rep.update(psn for psn, bit in sack_bits(pds, typ, cack) if bit)
        while (st.rep_cum + 1) % M32 in rep:
            st.rep_cum = (st.rep_cum + 1) % M32
            rep.discard(st.rep_cum)

    def data_out(self, tx, dst, pds, plen, flags, where):
        self.counts["data"] += 1
        clear_off, psn, spdcid, dpdcid = struct.unpack_from(">hIHH", pds, 2)
        self.check("data: spdcid not 0", spdcid != 0, where)
        st = pdc_of(tx, (dst, spdcid), psn, dpdcid, flags, Tx)
        if st is not None and not st.wrapped and d32(psn, st.start) > 0 and psn < st.start:
            st.wrapped = True
            self.wrapped.add(("tx", dst, spdcid))
        if len(pds) < DATA_HDR:
            return
        op, sflags, msg_id = pds[12] & 0x3f, pds[13], struct.unpack_from(">H", pds, 14)[0]
        self.check("data: SES rsv bits 0", pds[12] >> 6 == 0, where)
        match = struct.unpack_from(">Q", pds, 36)[0]
        req_len = struct.unpack_from(">I", pds, 52)[0]
        payload = plen - DATA_HDR
        self.check("data: opcode UET_TAGGED_SEND or UET_SEND", op in (SES_SEND, SES_TAGGED_SEND),
                   "%s opcode %#x" % (where, op))
        if op == SES_SEND:
            self.check("data: UET_SEND has no match bits", match == 0, where)
        if sflags & SES_F_SOM:
            moff = 0
        else:
            w = struct.unpack_from(">I", pds, 44)[0]
            moff = struct.unpack_from(">I", pds, 48)[0]
            self.check("data: a later packet's payload length is its payload",
                       w & 0x3fff == payload, "%s field %d, payload %d" % (
                           where, w & 0x3fff, payload))
            self.check("data: only the first packet is at offset 0", moff != 0, where)
        self.check("data: EOM exactly on the last byte",
                   bool(sflags & SES_F_EOM) == (moff + payload == req_len), where)
        if st is None:
            self.skipped["data of a PDC whose SYN the capture lacks"] += 1
            return
        m = st.msgs.setdefault(msg_id, (op, match, req_len))
        self.check("data: one opcode, tag and length per message", m == (op, match, req_len),
                   where)
        clear = (psn + clear_off) % M32
        self.check("data: CLEAR_PSN acknowledged to the sender",
                   d32(clear, st.rep_cum) <= 0, "%s CLEAR_PSN %d, acknowledged up to %d" % (
                       where, clear, st.rep_cum))
        self.check("data: CLEAR_PSN not below the start PSN - 1",
                   d32(clear, st.start) >= -1, where)

    def summary(self):
        return {
            "data_packets": self.counts["data"], "acks": self.counts["acks"],
            "in_order_acks": self.counts["in_order_acks"],
            "pdcs_across_2^32": len(self.wrapped),
            "checks": {k: {"checked": self.checked[k], "failed": self.failed[k]}
                       for k in sorted(self.checked)},
            "skipped": dict(self.skipped), "failures": self.reports,
            "ok": sum(self.failed.values()) == 0,
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--strict", action="store_true",
                    help="the run spoke UET 1.0 only (--uet-strict): no extension allowed")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--max-report", type=int, default=20)
    ap.add_argument("captures", nargs="+")
    a = ap.parse_args()
    c = Checker(a.strict, a.max_report)
    for path in a.captures:
        c.host(path)
    s = c.summary()
    if a.json:
        print(json.dumps(s, indent=1))
    else:
        print("%d data packets, %d ACKs (%d in order), %d PDCs across 2^32" % (
            s["data_packets"], s["acks"], s["in_order_acks"], s["pdcs_across_2^32"]))
        for k, v in s["checks"].items():
            print("  %-62s %8d checked, %d failed" % (k, v["checked"], v["failed"]))
        for k, v in s["skipped"].items():
            print("  skipped: %s: %d" % (k, v))
        for r in s["failures"]:
            print("FAILED " + r)
        print("semantic check: %s" % ("ok" if s["ok"] else "FAILED"))
    return 0 if s["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
