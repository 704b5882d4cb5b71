# SPDX-License-Identifier: BSD-3-Clause
"""Reading the captures of --pcap in the end-to-end tests (tests/perf,
tests/sim): the file format by hand, and a decode by tshark where it is
installed."""
import shutil
import struct
import subprocess

PCAP_MAGIC_NS = 0xa1b23c4d
UET_UDP_PORT = 4793


def read(path):
    """The frames of a nanosecond pcap: a list of dicts (ts_ns, caplen,
    len, src, dst, sport, dport) for Ethernet/IPv4/UDP frames."""
    with open(path, "rb") as f:
        data = f.read()
    magic, vmaj, vmin, _, _, snaplen, link = struct.unpack_from("<IHHiIII", data, 0)
    assert magic == PCAP_MAGIC_NS, "%s: magic %#x, not a nanosecond pcap" % (path, magic)
    assert (vmaj, vmin, link) == (2, 4, 1), (path, vmaj, vmin, link)
    off, frames = 24, []
    while off < len(data):
        sec, nsec, caplen, wirelen = struct.unpack_from("<IIII", data, off)
        off += 16
        b = data[off:off + caplen]
        off += caplen
        assert len(b) == caplen, "%s: a frame cut short" % path
        assert caplen <= snaplen and caplen <= wirelen, (path, caplen, snaplen, wirelen)
        fr = {"ts_ns": sec * 10**9 + nsec, "caplen": caplen, "len": wirelen}
        if caplen >= 42 and b[12:14] == b"\x08\x00" and b[23] == 17:
            fr["src"] = ".".join(str(x) for x in b[26:30])
            fr["dst"] = ".".join(str(x) for x in b[30:34])
            fr["sport"], fr["dport"] = struct.unpack_from(">HH", b, 34)
        frames.append(fr)
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
