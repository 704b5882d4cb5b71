#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""libuet's public surface: what an installed program sees.

  1. libuet.so exports only uet_ symbols (and its version node), libuet.a
     defines no other global symbol;
  2. every header of include/uet compiles alone, as C11 and as C++11, with
     -Wall -Wextra -Werror (-pedantic for C), and includes nothing but system
     headers and other include/uet headers;
  3. every name a header declares (functions, types, enumerators,
     variables, macros) starts with uet_ or UET_, read from clang's AST and
     the preprocessor.

usage: check_public.py SOURCE_ROOT LIBUET_SO LIBUET_A
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

PREFIX = re.compile(r"^(uet_|UET_)")


def nm(args, path):
    out = subprocess.run(["nm"] + args + [path], capture_output=True, text=True, check=True)
    syms = []
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) == 3:
            syms.append((f[1], f[2]))
    return syms


def check_symbols(so, a):
    bad = []
    for typ, name in nm(["-D", "--defined-only"], so):
        if typ == "A" and name.startswith("LIBUET_"):
            continue  # the version node
        if not PREFIX.match(name):
            bad.append("%s: %s exported" % (os.path.basename(so), name))
    n = 0
    for typ, name in nm(["-g", "--defined-only"], a):
        n += 1
        if not PREFIX.match(name):
            bad.append("%s: global %s" % (os.path.basename(a), name))
    if n < 50:
        bad.append("%s: only %d global symbols: not libuet?" % (os.path.basename(a), n))
    return bad


def check_header(root, h, tmp):
    bad = []
    inc = os.path.join(root, "include")
    rel = os.path.relpath(h, inc)
    for line in open(h):
        m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
        if m and not (m.group(1).startswith("uet/") and
                      os.path.exists(os.path.join(inc, m.group(1)))):
            bad.append("%s includes \"%s\", not a public header" % (rel, m.group(1)))
    for lang, cc, flags in (("c", "cc", ["-std=c11", "-pedantic"]),
                            ("c++", "c++", ["-std=c++11"])):
        src = os.path.join(tmp, "h." + ("c" if lang == "c" else "cpp"))
        open(src, "w").write('#include "%s"\n' % rel)
        p = subprocess.run([cc, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I", inc] +
                           flags + [src], capture_output=True, text=True)
        if p.returncode != 0:
            bad.append("%s does not compile alone as %s:\n%s" % (rel, lang, p.stderr[:2000]))
    # Names: declarations from clang's AST, located in this header.
    src = os.path.join(tmp, "h.c")
    open(src, "w").write('#include "%s"\n' % rel)
    p = subprocess.run(["clang", "-fsyntax-only", "-I", inc, "-Xclang", "-ast-dump=json", src],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return bad + ["%s: clang failed: %s" % (rel, p.stderr[:500])]
    ast = json.loads(p.stdout)
    cur = None
    names = []

    def walk(node, top):
        nonlocal cur
        loc = node.get("loc", {})
        f = loc.get("file") or (loc.get("spellingLoc") or {}).get("file")
        if f:
            cur = f
        kind = node.get("kind")
        if cur and os.path.abspath(cur) == os.path.abspath(h) and node.get("name") and (
                kind in ("FunctionDecl", "TypedefDecl", "VarDecl", "EnumConstantDecl") and top
                or kind in ("RecordDecl", "EnumDecl")):
            names.append((kind, node["name"]))
        for c in node.get("inner", []):
            walk(c, top and kind in ("TranslationUnitDecl", "EnumDecl", "LinkageSpecDecl"))

    walk(ast, True)
    for kind, name in names:
        if not PREFIX.match(name):
            bad.append("%s: %s %s lacks the uet_ prefix" % (rel, kind, name))
    # Macros this header defines.
    p = subprocess.run(["cc", "-E", "-dD", "-I", inc, src], capture_output=True, text=True,
                       check=True)
    cur = None
    for line in p.stdout.splitlines():
        m = re.match(r'# \d+ "([^"]+)"', line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r"#define (\w+)", line)
        if m and cur and os.path.abspath(cur) == os.path.abspath(h) and not PREFIX.match(
                m.group(1)):
            bad.append("%s: macro %s lacks the UET_ prefix" % (rel, m.group(1)))
    if not names:
        bad.append("%s: no declaration found (the AST walk is broken?)" % rel)
    return bad


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    root, so, a = sys.argv[1:]
    bad = check_symbols(so, a)
    headers = sorted(glob.glob(os.path.join(root, "include", "uet", "*.h")))
    with tempfile.TemporaryDirectory() as tmp:
        for h in headers:
            bad += check_header(root, h, tmp)
    for b in bad:
        print("FAIL " + b)
    print("%d headers, %d problems" % (len(headers), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
