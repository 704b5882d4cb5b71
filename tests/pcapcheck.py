# SPDX-License-Identifier: BSD-3-Clause
"""Reading the captures of --pcap in the end-to-end tests (tests/perf,
tests/sim): the file by tools/sim/pcap_spurious.py's reader, checked
here, and a decode by tshark where it is installed."""
import os
import shutil
import subprocess
import sys

# The pcap reading is the tool's own (tools/sim/pcap_spurious.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools", "sim"))
import pcap_spurious  # noqa: E402

PCAP_MAGIC_NS = pcap_spurious.PCAP_MAGIC_NS
UET_UDP_PORT = pcap_spurious.UET_UDP_PORT


def read(path):
    """The frames of a nanosecond pcap: a list of dicts (ts_ns, caplen,
    len, src, dst, sport, dport) for Ethernet/IPv4/UDP frames."""
    with open(path, "rb") as f:
        data = f.read()
    (magic, vmaj, vmin, snaplen, link), recs = pcap_spurious.pcap_records(data)
    assert magic == PCAP_MAGIC_NS, "%s: magic %#x, not a nanosecond pcap" % (path, magic)
    assert (vmaj, vmin, link) == (2, 4, 1), (path, vmaj, vmin, link)
    frames, end = [], 24
    for ts_ns, caplen, wirelen, b in recs:
        end += 16 + caplen
        assert len(b) == caplen, "%s: a frame cut short" % path
        assert caplen <= snaplen and caplen <= wirelen, (path, caplen, snaplen, wirelen)
        fr = {"ts_ns": ts_ns, "caplen": caplen, "len": wirelen}
        u = pcap_spurious.udp4(b)
        if u is not None:
            fr["src"], fr["dst"] = (".".join(str(x) for x in a) for a in u[:2])
            fr["sport"], fr["dport"] = u[2:]
        frames.append(fr)
    assert end == len(data), "%s: a frame header cut short" % path
    return frames


def tshark(path, checksums):
    """tshark's reading of the capture: (frames, UDP to 4793, checksums it
    found bad) or None when tshark is not installed. checksums: verify the
    IPv4 and UDP checksums (needs whole frames)."""
    exe = shutil.which("tshark")
    if exe is None:
        return None
    cmd = [exe, "-r", path, "-T", "fields", "-e", "frame.number", "-e", "udp.dstport",
           "-e", "ip.checksum.status", "-e", "udp.checksum.status"]
    if checksums:
        cmd += ["-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, "tshark failed on %s: %s" % (path, p.stderr)
    rows = [r.split("\t") for r in p.stdout.splitlines() if r]
    uet = sum(1 for r in rows if len(r) > 1 and r[1] == str(UET_UDP_PORT))
    # checksum.status: 0 bad, 1 good, 2 not verified
    bad = sum(1 for r in rows if "0" in r[2:4])
    good = sum(1 for r in rows if len(r) > 3 and r[2] == "1" and r[3] == "1")
    return len(rows), uet, bad, good
