#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Unpack Linux 6.1's verifier selftests from Debian's linux-source-6.1 into CACHE (once),
# compile them into a table against kbpf's headers, and run them.
# usage: run.sh RUNNER CC CACHE [runner options…]
# Env: KBPF_LINUX_SOURCE (default /usr/src/linux-source-6.1.tar.xz).
set -euo pipefail
runner=$1 cc=$2 cache=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../..
tarball=${KBPF_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
if [ ! -r "$tarball" ]; then
	echo "SKIP: $tarball not found (Debian package linux-source-6.1: scripts/install-deps)"
	exit 77
fi
vdir=$cache/linux-source-6.1/tools/testing/selftests/bpf/verifier
stamp=$cache/.unpacked
if [ ! -f "$stamp" ] || [ "$tarball" -nt "$stamp" ]; then
	rm -rf "$cache/linux-source-6.1"
	mkdir -p "$cache"
	# only the test files: nothing of Linux goes into the source tree
	tar -xJf "$tarball" -C "$cache" --wildcards 'linux-source-6.1/tools/testing/selftests/bpf/verifier/*.c'
	touch "$stamp"
fi
table=$cache/table.c
so=$cache/table.so
if [ ! -f "$so" ] || [ "$stamp" -nt "$so" ] || [ "$here/shim.h" -nt "$so" ] ||
   [ "$here/bpf_test.h" -nt "$so" ] || [ "$src/include/kbpf/insn.h" -nt "$so" ]; then
	"$here/gen-table.sh" "$vdir" > "$table"
	# Linux's files are compiled as they are: their own warnings are not ours to fix
	"$cc" -std=gnu11 -O0 -fPIC -shared -w -I"$src/include" -I"$here" "$table" -o "$so.tmp"
	mv "$so.tmp" "$so"
fi
exec "$runner" --table "$so" "$@"
