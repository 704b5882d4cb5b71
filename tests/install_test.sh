#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libuet as an installed library, as a user builds on it: `meson install
# --destdir`, then the examples compiled with nothing but what pkg-config
# says (no path into the source tree), linked against libuet.so and
# against libuet.a, and run: loopback.c in memory, ring.c over DPDK's
# net_ring when DPDK is installed.
#   install_test.sh SOURCE_ROOT BUILD_ROOT
set -eu
src=$1
build=$2
tmp=$(mktemp -d)
prefix=uet-ex-$$
trap 'rm -rf "$tmp" "/var/run/dpdk/$prefix"' EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/root" >/dev/null
pc=$(find "$tmp/root" -name libuet.pc)
[ -n "$pc" ] || { echo "FAIL no libuet.pc installed"; exit 1; }
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
# The .pc says where it was installed to; under --destdir that is below root.
root_prefix=$tmp/root$(pkg-config --variable=prefix libuet)
pcf() { pkg-config --define-variable=prefix="$root_prefix" "$@"; }
libdir=$(pcf --variable=libdir libuet)
for f in libuet.so.0 libuet.a; do
	[ -e "$libdir/$f" ] || { echo "FAIL $f not installed in $libdir"; exit 1; }
done
cd "$tmp"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "$src/examples/loopback.c" $(pcf --cflags --libs libuet) \
	-o loopback
LD_LIBRARY_PATH=$libdir ldd ./loopback | grep -q "$libdir/libuet.so.0" ||
	{ echo "FAIL loopback does not load the installed libuet.so"; exit 1; }
LD_LIBRARY_PATH=$libdir ./loopback
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "$src/examples/loopback.c" $(pcf --cflags libuet) \
	"$libdir/libuet.a" $(pcf --libs-only-other --libs-only-l --static libuet | sed 's/-luet//') \
	-o loopback_static
if ldd ./loopback_static | grep -q libuet; then
	echo "FAIL loopback_static loads libuet.so"
	exit 1
fi
./loopback_static
if pkg-config --exists libdpdk; then
	# shellcheck disable=SC2046
	cc -std=gnu11 -Wall -Wextra -Werror "$src/examples/ring.c" \
		$(pcf --cflags libuet) $(pkg-config --cflags libdpdk) \
		$(pcf --libs libuet) $(pkg-config --libs libdpdk) -o ring
	LD_LIBRARY_PATH=$libdir timeout 60 ./ring --no-huge --no-shconf --no-pci \
		--vdev=net_ring0 -m 256 --log-level=error --file-prefix "$prefix"
else
	echo "ring.c: skipped, no libdpdk"
fi
echo "ok: the installed libuet builds and runs the examples"
