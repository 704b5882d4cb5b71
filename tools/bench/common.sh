# SPDX-License-Identifier: BSD-3-Clause
# Shared by the uet-perf benchmark scripts (source it).

# uet-perf's delivered data packets per second from its JSON report:
# goodput / 8 / payload bytes per packet.
json_pps() { # JSON MTU
	python3 -c 'import json, sys; print(int(json.load(open(sys.argv[1]))["end"]["goodput_bps"] / 8 / int(sys.argv[2])))' "$1" "$2"
}

# What the transport did in a uet-perf run, from its JSON report:
# "retransmissions spurious_retransmissions RTO_expiries".
json_retx() { # JSON
	python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["end"]["losses"]; print(l["retransmissions"], l["spurious_retx"], l["declared"]["timeout"])' "$1"
}

# The median of the integer arguments (the upper one of an even count).
median() {
	printf "%s\n" "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# uet-perf on one lcore (CPU $CORE) for $T s, a sender and a receiver
# endpoint on a net_ring port looped to itself, 1 MiB messages of 4 KiB
# packets; the JSON report to FILE, the output to $TMP/p.txt. Needs $PERF,
# $TAG, $TMP. EAL_MEM: EAL's memory options (default --no-huge -m 1024;
# "--in-memory -m 1024" for hugepages, which must be reserved).
perf_loop() { # FILE [uet-perf options]
	local json=$1 mem
	shift
	read -r -a mem <<<"${EAL_MEM:---no-huge -m 1024}"
	timeout $((T + 30)) "$PERF" "${mem[@]}" --no-pci --log-level=error -l "$CORE" \
		--file-prefix "${TAG}" --vdev=net_ring0 -- \
		--endpoint port=0,ip=10.99.1.1,mac=02:00:00:00:01:01 \
		--endpoint port=0,ip=10.99.1.2,mac=02:00:00:00:01:02 \
		--size 1M --duration "$T" --mtu 4096 -i 0 --json "$json" "$@" >"$TMP/p.txt" 2>&1 ||
		run_failed "$TMP/p.txt" "uet-perf over net_ring${*:+ ($*)}"
}

# Remove the runtime directories EAL leaves for --file-prefix TAG and
# TAG<letter>... (it does not remove them at exit; DPDK's rule for where).
dpdk_runtime_rm() { # TAG
	local base=/var/run/dpdk
	[ "$(id -u)" -eq 0 ] || base="${XDG_RUNTIME_DIR:-/tmp}/dpdk"
	rm -rf "${base:?}/$1" "$base/$1"[!0-9]* 2>/dev/null || true
}

# A scratch directory ($TMP) and a tag for the --file-prefix of every
# uet-perf the script starts ($TAG); at exit both go, with any uet-perf
# still running and EAL's runtime directories (KEEP=1 keeps the scratch
# directory).
bench_scratch() { # TAG_PREFIX
	TMP=$(mktemp -d)
	TAG="$1$$"
	trap 'pkill -f "file-prefix ${TAG}" 2>/dev/null || true; dpdk_runtime_rm "$TAG"; [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT INT TERM
}

# net_memif's client side connects once, when its port starts: the server
# must be listening by then (on an abstract socket: no file to wait for).
wait_memif() { # SOCKET
	for _ in $(seq 100); do
		ss -xl 2>/dev/null | grep -qF "@$1" && return 0
		sleep 0.2
	done
}

# What a figure was measured on, printed first by every benchmark (and kept
# with every table in doc/performance.md): the title, then the CPU (model,
# vendor, family/model numbers, CPUs), the kernel, the build and the time.
bench_header() { # TITLE
	local info
	info=$(awk -F': *' '
		/^model name/ && !m { m = $2 } /^vendor_id/ && !v { v = $2 }
		/^cpu family/ && f == "" { f = $2 } /^model\t/ && o == "" { o = $2 }
		END { printf "%s (%s, family %s model %s)", m ? m : "unknown", v ? v : "unknown vendor", f, o }' \
		/proc/cpuinfo)
	echo "# $1"
	echo "# cpu: $info, $(nproc) CPUs; $(uname -sr)"
	echo "# build: $(git describe --always --dirty 2>/dev/null || echo "not a git checkout")," \
		"$(date -u +'%Y-%m-%d %H:%M UTC')${UET_PERF:+; uet-perf: $UET_PERF}"
}

# A benchmark run failed: stop the whole script and show the end of the
# run's log. No figure is printed from a run that did not finish. (From a
# command substitution it ends that subshell; the assignment's failure
# then ends the script under set -e.)
run_failed() { # LOG WHAT
	{
		echo "!! $(basename "$0"): $2 failed; the end of its log ($1):"
		tail -n 25 "$1" 2>/dev/null || echo "!! (no log)"
	} >&2
	exit 1
}

# Per-round figures, summed up as the median and the range over the rounds
# (the range shows a round that a busy moment of the machine skewed; a
# ratio of medians would hide it). stdin: "LABEL VALUE" lines, in any
# order; prints "LABEL median min max rounds" per label, in first-seen
# order, with FORMAT for the three figures (default %.2f).
rounds_summary() { # [FORMAT]
	python3 -c '
import statistics, sys
fmt = sys.argv[1]
rows = {}
for line in sys.stdin:
    f = line.split()
    if len(f) == 2:
        rows.setdefault(f[0], []).append(float(f[1]))
w = max([len(k) for k in rows] + [5])
print("%-*s %10s %10s %10s %7s" % (w, "", "median", "min", "max", "rounds"))
for k, v in rows.items():
    print("%-*s %10s %10s %10s %7d" % (w, k, fmt % statistics.median(v), fmt % min(v), fmt % max(v), len(v)))
' "${1:-%.2f}"
}
