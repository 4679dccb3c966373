#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Unpack Linux's verifier selftests (test_verifier's verifier/*.c) from Debian's
# linux-source-VERSION into CACHE (once), compile them into a table against kbpf's
# headers, and run them.
# usage: run.sh [--linux VERSION] RUNNER CC CACHE [runner options…]
# VERSION: 6.1 (default) or 6.12. Env: KBPF_LINUX_SOURCE (default
# /usr/src/linux-source-VERSION.tar.xz).
set -euo pipefail
ver=6.1
if [ "${1:-}" = --linux ]; then
	ver=$2
	shift 2
fi
runner=$1 cc=$2 cache=$(realpath -m "$3")
shift 3
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../..
top=linux-source-$ver
tarball=${KBPF_LINUX_SOURCE:-/usr/src/$top.tar.xz}
if [ ! -r "$tarball" ]; then
	echo "SKIP: $tarball not found (Debian package $top: scripts/install-deps)"
	exit 77
fi
vdir=$cache/$top/tools/testing/selftests/bpf/verifier
stamp=$cache/.unpacked
if [ ! -f "$stamp" ] || [ "$tarball" -nt "$stamp" ] || [ ! -d "$vdir" ]; then
	rm -rf "${cache:?}/$top"
	mkdir -p "$cache"
	# only the test files: nothing of Linux goes into the source tree
	tar -xJf "$tarball" -C "$cache" --wildcards "$top/tools/testing/selftests/bpf/verifier/*.c"
	touch "$stamp"
fi
table=$cache/table.c
so=$cache/table.so
if [ ! -f "$so" ] || [ "$stamp" -nt "$so" ] || [ "$here/shim.h" -nt "$so" ] ||
   [ "$here/bpf_test.h" -nt "$so" ] || [ "$here/gen-table.sh" -nt "$so" ] ||
   [ "$src/include/kbpf/insn.h" -nt "$so" ]; then
	"$here/gen-table.sh" "$vdir" "$ver" > "$table"
	# Linux's files are compiled as they are: their own warnings are not ours to fix
	"$cc" -std=gnu11 -O0 -fPIC -shared -w -I"$src/include" -I"$here" "$table" -o "$so.tmp"
	mv "$so.tmp" "$so"
fi
exec "$runner" --table "$so" "$@"
