#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""No AVX-to-SSE transition leaves our code: every way out of a function
that dirtied the upper halves of ymm0-15/zmm0-15 (a ret, a jump to another
function, a call, an indirect jump) must come after a vzeroupper or
vzeroall on every path that reaches it. On Intel cores a dirty upper state
makes every later non-VEX SSE instruction (memcpy's, the frame code's)
pay a state transition of some 100 ns.

    check_avx_sse.py [--objdump PATH] ELF...
    check_avx_sse.py --expect-bad NAME[,NAME...] ELF...

Reads the disassembly of linked executables or shared objects (objdump -d;
their jumps and calls name their targets). Per function that touches
ymm0-15 or zmm0-15, a forward data flow over its instructions: the state
is clean at entry and after a call (the callee returns clean), dirty after
any instruction naming those registers, clean after vzeroupper or
vzeroall. ymm16-31 and zmm16-31 (EVEX only) do not dirty it: SSE cannot
reach them, which is why glibc's EVEX string functions skip vzeroupper.

Prints each violation and exits 1, or a summary and 0. With --expect-bad
it exits 0 only if exactly the named functions (and no others) are
flagged: the check's own test, on a fixture with known good and bad
functions. Exit 77 (skipped) on a machine that is not x86-64.
"""
import argparse
import bisect
import os
import platform
import re
import shutil
import subprocess
import sys

FUNC_RE = re.compile(r"^([0-9a-f]+) <(.+)>:$")
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
TARGET_RE = re.compile(r"^([0-9a-f]+) <([^>]+?)(\+0x[0-9a-f]+)?>")
COMMENT_RE = re.compile(r"#\s*([0-9a-f]+) <")
UPPER_RE = re.compile(r"%[yz]mm(\d+)\b")
PREFIXES = {"bnd", "notrack", "rep", "repz", "repe", "repnz", "repne", "lock", "data16",
            "cs", "ds", "addr32"}


def parse(text):
    """The file's symbols [(addr, name)] and instructions
    [(addr, mnemonic, operands, rip-relative address or None)]."""
    syms, insns = [], []
    for line in text.splitlines():
        m = FUNC_RE.match(line)
        if m:
            syms.append((int(m.group(1), 16), m.group(2)))
            continue
        m = INSN_RE.match(line)
        if m is None:
            continue
        body = m.group(2)
        c = COMMENT_RE.search(body)
        parts = body.split("#")[0].split()
        while parts and parts[0] in PREFIXES:
            parts = parts[1:]
        if not parts or parts[0].startswith("(bad)"):
            continue
        insns.append((int(m.group(1), 16), parts[0], " ".join(parts[1:]),
                      int(c.group(1), 16) if c else None))
    insns.sort()
    return syms, insns


def debug_symbols(path, objdump):
    """Function symbols of a stripped file from its separate debug file
    (/usr/lib/debug/.build-id, Debian's -dbg/-dbgsym packages), so that
    findings in a library name their function: [(addr, name)]."""
    nm = objdump[:-len("objdump")] + "nm" if objdump.endswith("objdump") else "nm"
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True)
    m = re.search(r"Build ID: ([0-9a-f]{2})([0-9a-f]+)", out.stdout)
    if m is None:
        return []
    dbg = "/usr/lib/debug/.build-id/%s/%s.debug" % (m.group(1), m.group(2))
    if not os.path.exists(dbg):
        return []
    out = subprocess.run([nm, "-n", "--defined-only", dbg], capture_output=True, text=True)
    syms = []
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TtWwi":
            syms.append((int(f[0], 16), f[2]))
    return syms


def dirties(mnem, ops):
    if mnem in ("vzeroupper", "vzeroall"):
        return False
    return any(int(r) < 16 for r in UPPER_RE.findall(ops))


def target_of(ops):
    m = TARGET_RE.match(ops)
    if m is None:
        return None, None
    return int(m.group(1), 16), m.group(2)


def analyse(syms, insns):
    """Violations in one file: [(addr, what, dirtied_at)].

    One data flow over the whole file, so that stripped objects (whose
    symbols do not bound their functions) are read as well as ours. Entries,
    each clean: symbols, direct call targets, code addresses taken
    rip-relative (function pointers), then whatever no entry reached (a
    jump table's cases). A direct jump to another entry is a tail call
    (a function's .cold part is not an entry)."""
    index = {a: i for i, (a, _, _, _) in enumerate(insns)}
    n = len(insns)
    cold = set(a for a, name in syms if ".cold" in name)
    entries = set(a for a, _ in syms if a in index)
    for a, mnem, ops, rip in insns:
        if mnem.startswith("call"):
            t, _ = target_of(ops)
            if t in index:
                entries.add(t)
        elif rip in index and not mnem.startswith("j"):
            entries.add(rip)
    entries -= cold
    starts = sorted(entries)

    def own_start(t, addr):
        """A jump from addr back to the entry its own code starts at (a
        loop whose head is the function's first instruction)."""
        k = bisect.bisect_right(starts, addr) - 1
        return k >= 0 and starts[k] == t
    # Per instruction: an address that dirtied the state on some path
    # reaching it, or None (clean on every path); reached or not.
    state = [None] * n
    seen = [False] * n
    bad = {}

    def run(work):
        while work:
            i, st = work.pop()
            if i >= n or (seen[i] and (state[i] is not None or st is None)):
                continue
            seen[i] = True
            if st is not None:
                state[i] = st
            addr, mnem, ops, _ = insns[i]
            after = st
            if mnem in ("vzeroupper", "vzeroall"):
                after = None
            elif dirties(mnem, ops):
                after = addr
            if mnem.startswith("ret"):
                if st is not None:
                    bad[addr] = ("ret", st)
            elif mnem.startswith("call"):
                if st is not None:
                    bad[addr] = ("call " + ops, st)
                work.append((i + 1, None))
            elif mnem.startswith("jmp") and ops.startswith("*"):
                if st is not None:
                    bad[addr] = ("indirect jmp " + ops, st)
            elif mnem.startswith("j") or mnem.startswith("loop"):
                t, sym = target_of(ops)
                if t in index and (t not in entries or own_start(t, addr)):
                    work.append((index[t], after))
                elif st is not None:
                    bad[addr] = ("jump to " + (sym or ops), st)
                if not mnem.startswith("jmp"):
                    work.append((i + 1, after))
            elif mnem not in ("ud2", "hlt"):
                work.append((i + 1, after))

    run([(index[a], None) for a in sorted(entries)])
    for i in range(n):
        if not seen[i]:
            run([(i, None)])
    return [(a, w, s) for a, (w, s) in sorted(bad.items())]


def where(syms, addr):
    """The symbol at or before addr, as name or name+0xoff."""
    best = None
    for a, name in syms:
        if a <= addr and (best is None or a >= best[0]):
            best = (a, name)
    if best is None:
        return "?"
    return best[1] if best[0] == addr else "%s+0x%x" % (best[1], addr - best[0])


def func_of(syms, addr):
    w = where(syms, addr)
    return w.split("+0x")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--objdump", default="objdump")
    ap.add_argument("--expect-bad", default=None,
                    help="comma-separated functions that must be flagged, and only they")
    ap.add_argument("elf", nargs="+")
    a = ap.parse_args()
    if platform.machine() not in ("x86_64", "AMD64"):
        print("not an x86-64 machine: skipped")
        return 77
    if shutil.which(a.objdump) is None:
        print("%s not found (Debian: binutils)" % a.objdump)
        return 2
    flagged = {}
    dirty = vz = 0
    for path in a.elf:
        out = subprocess.run([a.objdump, "-d", "-w", "--no-show-raw-insn", path],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print("%s: objdump failed: %s" % (path, out.stderr.strip()))
            return 2
        syms, insns = parse(out.stdout)
        syms += debug_symbols(path, a.objdump)
        dirty += sum(1 for _, m, o, _ in insns if dirties(m, o))
        vz += sum(1 for _, m, _, _ in insns if m in ("vzeroupper", "vzeroall"))
        for addr, what, at in analyse(syms, insns):
            flagged.setdefault(func_of(syms, at), []).append(
                "%s: %s at %s with the upper vector state dirty (set at %s)"
                % (path, what, where(syms, addr), where(syms, at)))
    for name in sorted(flagged):
        for line in flagged[name]:
            print(line)
    if a.expect_bad is not None:
        want = set(x for x in a.expect_bad.split(",") if x)
        got = set(flagged)
        if got != want:
            print("self-check: expected %s flagged, got %s" % (sorted(want), sorted(got)))
            return 1
        print("self-check: exactly %s flagged" % ", ".join(sorted(want)))
        return 0
    if flagged:
        return 1
    print("%d files, %d instructions on ymm0-15/zmm0-15, %d vzeroupper: every way out "
          "clears the upper state" % (len(a.elf), dirty, vz))
    return 0


if __name__ == "__main__":
    sys.exit(main())
