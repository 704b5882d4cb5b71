#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libuet.a as one relocatable object whose only global symbols are the
# uet_ ones, as libuet.so's version script leaves them: the library's
# internal functions (tx_*, rx_*, ep_*, cr_*) cannot collide with a
# program's own.
#   mkstatic.sh LD OBJCOPY AR OUT.a IN.a...
set -eu
ld=$1 objcopy=$2 ar=$3 out=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ld" -r -o "$tmp/libuet.o" --whole-archive "$@" --no-whole-archive
"$objcopy" --wildcard --keep-global-symbol='uet_*' "$tmp/libuet.o"
rm -f "$out"
"$ar" rcs "$out" "$tmp/libuet.o"
