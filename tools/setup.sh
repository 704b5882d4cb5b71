#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install every Debian 12 package libuet needs, then build it in ./build.
# Safe to run again: it reconfigures and rebuilds.
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi

PACKAGES=(
	build-essential pkg-config meson ninja-build python3
	libcmocka-dev libpcap-dev
	clang libclang-rt-14-dev         # libFuzzer and sanitizers for tools/test.sh
	libdpdk-dev dpdk libnuma-dev     # the DPDK data path (lib/dpdk, uet-perf)
	dpdk-dev                         # dpdk-testpmd, dpdk-telemetry.py (tools/bench)
	libiniparser-dev libjansson-dev  # configuration and reports
	libssl-dev                       # OpenSSL: the control channel's key handshake
	iproute2                         # network namespaces for testbed tests
	gnuplot-nox                      # tools/demo.sh: the goodput plot (PNG)
	python3-matplotlib               # tools/sim/paper_figures.py: the PNGs
	tshark                           # the tests decode --pcap captures with it
	openmpi-bin                      # the tests start uet-perf with mpirun -np 3
	libfabric-dev libfabric-bin      # lib/fi: the libfabric provider; fi_info, fi_pingpong
	libopenmpi-dev netpipe-openmpi   # MPI programs over the provider (tests, tools/bench)
)

# Another apt (unattended-upgrades, a second shell) may hold the locks:
# wait for it, up to 10 minutes, instead of failing at once.
LOCK_WAIT=(-o DPkg::Lock::Timeout=600)
$SUDO apt-get "${LOCK_WAIT[@]}" update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get "${LOCK_WAIT[@]}" install -y \
	--no-install-recommends "${PACKAGES[@]}"

if [ -d build ]; then
	meson setup --reconfigure build
else
	meson setup build
fi
ninja -C build
