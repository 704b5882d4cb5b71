#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A self-contained copy of this build's benchmark programs and uet-sim,
# to run the benchmark scripts or a figure sweep on a machine that has no
# DPDK installed (a many-core machine): the very binaries measured
# here, the shared libraries they load (all but the C library's own), and
# the few DPDK drivers the scripts use (net_ring, the vdev bus, the ring
# mempool), which the wrappers in DIR/bin load with EAL's -d.
#
#   tools/bench/bundle.sh [DIR]        (default build/bundle)
#   then, there:  tools/bench/from_bundle.sh DIR
#   or one script: UET_PERF=DIR/bin/uet-perf BENCH_CORE=DIR/bin/bench_core tools/bench/glue.sh
#   or a figure sweep: tools/sim/paper_figures.py --uet-sim DIR/bin/uet-sim --jobs N ...
#
# Keep DIR out of world-writable folders such as /tmp: EAL refuses to load
# drivers from below one. The target needs a glibc at least as new as the
# one here (Debian 12: 2.36). BUILD names the build directory (default
# build); PMD_DIR the DPDK driver folder (default Debian 12's,
# /usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0); DRIVERS the drivers copied
# (names as there, without .so).
case "${1:-}" in -h | --help) sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above
set -euo pipefail
cd "$(dirname "$0")/../.."

DIR=${1:-build/bundle}
PMD_DIR=${PMD_DIR:-/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0} # Debian 12's DPDK 22.11
DRIVERS=${DRIVERS:-"librte_net_ring librte_bus_vdev librte_mempool_ring"}
BUILD=${BUILD:-build}
PROGS=("$BUILD/apps/uet-perf/uet-perf" "$BUILD/apps/uet-sim/uet-sim" "$BUILD/tests/bench/bench_core"
	"$BUILD/tests/bench/bench_csum")
for p in "${PROGS[@]}"; do
	[ -x "$p" ] || { echo "no $p: build first (tools/setup.sh)"; exit 2; }
done

rm -rf "$DIR"
mkdir -p "$DIR/bin" "$DIR/libexec" "$DIR/lib" "$DIR/pmds"
# What EAL checks before it loads a driver folder: no folder on the way
# may be writable by all.
a=$(cd "$DIR" && pwd)
while :; do
	if [ -n "$(find "$a" -maxdepth 0 -perm -0002)" ]; then
		echo "bundle.sh: $a is world-writable: EAL would refuse the drivers below it; choose another DIR"
		rm -rf "$DIR"
		exit 2
	fi
	[ "$a" != / ] || break
	a=$(dirname "$a")
done

# The C library, its loader and its split-off parts stay the target's own:
# a copied libc would not match the target's loader.
own_lib() {
	case "$1" in
	libc.so.* | libm.so.* | ld-linux* | libpthread.so.* | libdl.so.* | librt.so.* | linux-vdso*) return 0 ;;
	esac
	return 1
}

# Every shared library a file needs, transitively (ldd resolves the whole
# tree), copied under its soname.
copy_deps() { # FILE
	local name path
	while read -r name _ path _; do
		own_lib "$name" && continue
		[ -f "$path" ] || { echo "unresolved: $name (needed by $1)"; exit 1; }
		[ -e "$DIR/lib/$name" ] || cp -L "$path" "$DIR/lib/$name"
	done < <(ldd "$1" | awk '$2 == "=>" && $3 != "" { print $1, $2, $3, $4 }')
}

for d in $DRIVERS; do
	f="$PMD_DIR/$d.so"
	[ -e "$f" ] || { echo "no driver $f"; exit 1; }
	# The driver sits in lib/ under its soname, where a driver that needs
	# it (net_ring needs the vdev bus) finds it, and pmds/ links to it
	# under the one name EAL's -d loads (NAME.so): one file, so the
	# loader maps it once, however it is reached first.
	soname=$(basename "$(readlink "$f")")
	cp -L "$f" "$DIR/lib/$soname"
	ln -s "../lib/$soname" "$DIR/pmds/$d.so"
	copy_deps "$f"
done
for p in "${PROGS[@]}"; do
	n=$(basename "$p")
	cp "$p" "$DIR/libexec/$n"
	copy_deps "$p"
	# The wrapper: the bundle's libraries first, and for a DPDK program
	# the bundle's drivers (an EAL option, so before the program's own).
	# Where this DPDK is installed (its driver folder exists), the
	# machine's own libraries and drivers instead: EAL loads that folder
	# whenever it exists, and a driver loaded twice from two files aborts.
	extra=""
	case "$(ldd "$p")" in
	*librte_eal*) extra="[ ! -d '$PMD_DIR' ] || exec \"\$d/libexec/$n\" \"\$@\"
set -- -d \"\$d/pmds\" \"\$@\"" ;;
	esac
	cat >"$DIR/bin/$n" <<EOF
#!/bin/sh
d=\$(cd "\$(dirname "\$0")/.." && pwd)
$extra
LD_LIBRARY_PATH="\$d/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$d/libexec/$n" "\$@"
EOF
	chmod +x "$DIR/bin/$n"
done
echo "$DIR: $(du -sh "$DIR" | cut -f1), $(ls "$DIR/lib" | wc -l) libraries, drivers: $(ls "$DIR/pmds" | tr '\n' ' ')"
