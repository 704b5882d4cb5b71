#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The protocol layers are sans-I/O and sans-time (STYLE.md habit 1): no
# DPDK, no sockets or files, no clock, no hidden randomness, no printing.
root=${1:-.}
bad=$(grep -rnE '#include *<(rte_|sys/socket|netinet|stdio|time\.h|pthread)|clock_gettime|gettimeofday|rte_rdtsc|[^_a-z]rand\(|srand\(|time\(NULL|printf|getenv' \
	"$root/lib/core" "$root/lib/lb" "$root/lib/cc" "$root/lib/base")
if [ -n "$bad" ]; then
	echo "sans-I/O violations:"
	echo "$bad"
	exit 1
fi
echo "lib/core, lib/lb, lib/cc, lib/base: sans-I/O"
