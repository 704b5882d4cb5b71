# SPDX-License-Identifier: BSD-3-Clause
"""Runner shared by the end-to-end test scripts (tests/perf, tests/sim):
runs the named cases (all by default), one "ok - NAME" or "not ok - NAME:
why" line each, and the suite's "N passed, N failed" last line."""
import sys
import tempfile


def run(cases):
    """cases: name -> function(exe, tmpdir). argv: EXE [CASE...]."""
    exe = sys.argv[1]
    names = sys.argv[2:] or list(cases)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            try:
                cases[n](exe, tmp)
                print("ok - %s" % n)
            except Exception as e:  # report every case, fail at the end
                failed += 1
                print("not ok - %s: %s" % (n, e))
    print("%d passed, %d failed" % (len(names) - failed, failed))
    return 1 if failed else 0
