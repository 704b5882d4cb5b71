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

# A scratch directory ($TMP) and a tag for the --file-prefix of every
# uet-perf the script starts ($TAG); at exit both go, with any uet-perf
# still running (KEEP=1 keeps the directory).
bench_scratch() { # TAG_PREFIX
	TMP=$(mktemp -d)
	TAG="$1$$"
	trap 'pkill -f "file-prefix ${TAG}" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT INT TERM
}
