#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the whole test suite:
#   1. build/       the default build (-Wall -Wextra -Werror): unit, simulator,
#                   fault swarm, fuzz-corpus replay and sans-I/O checks
#   2. build-asan/  the same suite under AddressSanitizer + UBSan
#   3. build-fuzz/  clang + libFuzzer: replay the corpora, then fuzz each
#                   target for FUZZ_SECONDS (default 30)
# The last line reads "N passed, N failed" (cmocka cases count one each).
# Environment: FUZZ_SECONDS, SWARM_SEEDS (default 1000), SKIP_ASAN=1,
# SKIP_FUZZ=1.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -u
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-30}
SWARM_SEEDS=${SWARM_SEEDS:-1000}
PASSED=0
FAILED=0

count_log() {
	# Add the results in $1/meson-logs/testlog.json to the totals.
	local out
	out=$(python3 - "$1/meson-logs/testlog.json" <<'PY'
import json, re, sys
p = f = 0
for line in open(sys.argv[1]):
    t = json.loads(line)
    cases = re.findall(r'^(ok|not ok) \d+', t.get('stdout') or '', re.M)
    if cases:
        p += sum(1 for c in cases if c == 'ok')
        f += sum(1 for c in cases if c != 'ok')
        if t['result'] != 'OK' and not any(c != 'ok' for c in cases):
            f += 1  # crashed or timed out after its last case
    elif t['result'] in ('OK', 'EXPECTEDFAIL'):
        p += 1
    elif t['result'] != 'SKIP':
        f += 1
print(p, f)
PY
)
	PASSED=$((PASSED + ${out% *}))
	FAILED=$((FAILED + ${out#* }))
}

run_suite() {
	local dir=$1
	shift
	echo "== $dir: meson setup $*"
	if [ -d "$dir" ]; then
		meson setup --reconfigure "$dir" "$@" >/dev/null || { FAILED=$((FAILED + 1)); return; }
	else
		meson setup "$dir" "$@" >/dev/null || { FAILED=$((FAILED + 1)); return; }
	fi
	if ! ninja -C "$dir"; then
		echo "!! $dir: build failed"
		FAILED=$((FAILED + 1))
		return
	fi
	meson test -C "$dir" --print-errorlogs --num-processes 2 $SUITE_ARGS
	count_log "$dir"
}

SUITE_ARGS=""
run_suite build -Dswarm_seeds="$SWARM_SEEDS"
if [ "${SKIP_ASAN:-0}" != 1 ]; then
	# tools/fabric's tests drive the kernel's routers (Python and a
	# uet-perf built above): nothing for the sanitizers to see.
	SUITE_ARGS="--no-suite fabric"
	run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false \
		-Dswarm_seeds="$SWARM_SEEDS"
	SUITE_ARGS=""
fi

if [ "${SKIP_FUZZ:-0}" != 1 ]; then
	if command -v clang >/dev/null; then
		echo "== build-fuzz: libFuzzer, $FUZZ_SECONDS s per target"
		if [ ! -d build-fuzz ]; then
			CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=disabled \
				-Db_sanitize=address,undefined -Db_lundef=false >/dev/null
		fi
		if ninja -C build-fuzz; then
			mkdir -p build-fuzz/artifacts
			for t in wire endpoint endpoint_credit endpoint_job conf ctrl; do
				bin=build-fuzz/tests/fuzz/fuzz_$t
				corpus=tests/fuzz/corpus/$t
				work=build-fuzz/corpus-$t
				mkdir -p "$work"
				if "$bin" -runs=0 "$corpus" >"build-fuzz/replay-$t.log" 2>&1; then
					PASSED=$((PASSED + 1))
				else
					echo "!! fuzz_$t: corpus replay failed (build-fuzz/replay-$t.log)"
					FAILED=$((FAILED + 1))
				fi
				if "$bin" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
					-artifact_prefix=build-fuzz/artifacts/ "$work" "$corpus" \
					>"build-fuzz/fuzz-$t.log" 2>&1; then
					echo "fuzz_$t: $(grep -m1 -o 'number_of_executed_units: [0-9]*' "build-fuzz/fuzz-$t.log")"
					PASSED=$((PASSED + 1))
				else
					echo "!! fuzz_$t found a crash; see build-fuzz/fuzz-$t.log and build-fuzz/artifacts/"
					tail -30 "build-fuzz/fuzz-$t.log"
					FAILED=$((FAILED + 1))
				fi
			done
		else
			FAILED=$((FAILED + 1))
		fi
	else
		echo "!! clang not found: fuzzing skipped (tools/setup.sh installs it)"
		FAILED=$((FAILED + 1))
	fi
fi

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
