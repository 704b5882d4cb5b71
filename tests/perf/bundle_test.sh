#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tools/bench/bundle.sh: the bundle it makes of this build runs on a
# machine without DPDK. Checked here by hiding Debian's DPDK driver
# directory in a private mount namespace: the bundled uet-perf must find
# every library and driver it needs in the bundle (ldd resolves nothing
# but the C library's own outside it) and complete a verified run over
# net_ring; bench_core and bench_csum must run too. Needs root (skipped,
# exit 77, otherwise).
set -euo pipefail

PERF=${1:?usage: bundle_test.sh UET_PERF}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$(dirname "$PERF")/../.." && pwd)
PMDS=/usr/lib/x86_64-linux-gnu/dpdk
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	echo "SKIP: bundle_test needs root and unshare (a private mount namespace)"
	exit 77
fi
[ -d "$PMDS" ] || { echo "SKIP: no $PMDS to hide"; exit 77; }
# EAL loads no driver from below a world-writable folder (/tmp, where a
# clone may sit): the build folder if it is not below one, else /run.
TMP=""
trap '[ -z "$TMP" ] || rm -rf "$TMP"' EXIT INT TERM
rc=2
for base in "$BUILD" /run; do
	mkdir -p "$base/bundle-test.$$" 2>/dev/null || continue
	TMP="$base/bundle-test.$$"
	rc=0
	BUILD="$BUILD" "$ROOT/tools/bench/bundle.sh" "$TMP/b" || rc=$?
	[ $rc -eq 2 ] || break
	rm -rf "$TMP"
	TMP=""
done
[ -n "$TMP" ] || { echo "SKIP: no folder here outside world-writable ones for the bundle"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: bundle.sh exited $rc"; exit 1; }
outside=$(LD_LIBRARY_PATH="$TMP/b/lib" ldd "$TMP/b/libexec/uet-perf" | awk '$2 == "=>" { print $1, $3 }' |
	grep -v -E "^(libc|libm|libpthread|libdl|librt)\.so|^ld-linux|^libasan|^libubsan| $TMP/b/lib/" || true)
[ -z "$outside" ] || { echo "FAIL: libraries from outside the bundle: $outside"; exit 1; }

unshare -m sh -c "mount -t tmpfs none '$PMDS' && '$TMP/b/bin/uet-perf' --no-huge --no-shconf --no-pci \
	-l 0 --vdev=net_ring0 --log-level=error -- \
	--endpoint port=0,ip=10.0.0.1,mac=02:00:00:00:00:01 \
	--endpoint port=0,ip=10.0.0.2,mac=02:00:00:00:00:02 \
	--size 256K --iters 4 --verify --json '$TMP/r.json' >'$TMP/out.txt' 2>&1 &&
	'$TMP/b/bin/bench_core' --msgs 20 >'$TMP/core.txt' && '$TMP/b/bin/bench_csum' 64 >'$TMP/csum.txt'" ||
	{ echo "FAIL: the bundle did not run without $PMDS"; cat "$TMP/out.txt"; exit 1; }
python3 - "$TMP/r.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["end"]
ok = [f for f in e["flows"] if f["status"] == "ok"]
assert len(ok) == 4 and sum(f["size_bytes"] for f in ok) == 4 * 262144, e["flows"]
assert e["verify"]["checked_msgs"] == 4 and e["verify"]["bad_msgs"] == 0, e["verify"]
PY
grep -q "ns per data packet" "$TMP/core.txt" || { echo "FAIL: bench_core"; cat "$TMP/core.txt"; exit 1; }
grep -q "^ *64 " "$TMP/csum.txt" || { echo "FAIL: bench_csum"; cat "$TMP/csum.txt"; exit 1; }
echo "ok: the bundle ran with $PMDS hidden"
