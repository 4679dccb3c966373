#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Unpack Linux 6.1's kfunc selftest programs from Debian's linux-source-6.1 into CACHE,
# make their vmlinux.h from the runner's own BTF (the host they run on), compile them with
# clang -target bpf unmodified, and run them (README.md).
# The kfunc cases of verifier/calls.c are compiled with CC into a table by
# tests/linux-selftests' gen-table.sh (its struct bpf_test and shims).
# usage: run.sh RUNNER KBPF CLANG CC CACHE [runner options…]
# Env: KBPF_LINUX_SOURCE (default /usr/src/linux-source-6.1.tar.xz).
set -euo pipefail
runner=$1 kbpf=$2 clang=$3 cc=$4 cache=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../..
tarball=${KBPF_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
if [ ! -r "$tarball" ]; then
	echo "SKIP: $tarball not found (Debian package linux-source-6.1: scripts/install-deps)"
	exit 77
fi
if [ ! -r /usr/include/bpf/bpf_helpers.h ]; then
	echo "SKIP: /usr/include/bpf/bpf_helpers.h not found (Debian package libbpf-dev)"
	exit 77
fi
if ! command -v "$clang" >/dev/null 2>&1; then
	echo "SKIP: clang not found (Debian package clang)"
	exit 77
fi
sel=linux-source-6.1/tools/testing/selftests/bpf
progs="kfunc_call_test kfunc_call_test_subprog kfunc_call_fail kfunc_call_destructive"
stamp=$cache/.unpacked
members=("$sel/bpf_tcp_helpers.h" "$sel/verifier/calls.c")
for p in $progs; do members+=("$sel/progs/$p.c"); done
missing=0
for m in "${members[@]}"; do [ -f "$cache/$m" ] || missing=1; done
if [ ! -f "$stamp" ] || [ "$tarball" -nt "$stamp" ] || [ $missing = 1 ]; then
	rm -rf "$cache/linux-source-6.1"
	mkdir -p "$cache"
	# only these files: nothing of Linux goes into the source tree
	tar -xJf "$tarball" -C "$cache" "${members[@]}"
	touch "$stamp"
fi
# vmlinux.h: the C header of the host the programs run on (the runner links the test kfuncs)
mkdir -p "$cache/include" "$cache/obj"
if [ ! -f "$cache/include/vmlinux.h" ] || [ "$runner" -nt "$cache/include/vmlinux.h" ]; then
	"$kbpf" btf dump --format c --host "$runner" > "$cache/include/vmlinux.h.tmp"
	mv "$cache/include/vmlinux.h.tmp" "$cache/include/vmlinux.h"
fi
# <linux/bpf.h> (kfunc_call_test_subprog.c) needs <asm/types.h>: Debian keeps it in the
# multiarch directory, which clang -target bpf does not search
multiarch=/usr/include/$(uname -m)-linux-gnu
for p in $progs; do
	obj=$cache/obj/$p.bpf.o
	if [ ! -f "$obj" ] || [ "$cache/include/vmlinux.h" -nt "$obj" ] || [ "$stamp" -nt "$obj" ]; then
		# as Linux's selftests Makefile builds them (its warnings are not ours to fix)
		"$clang" -O2 -g -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -w \
			-I"$cache/include" -I"$cache/$sel" -I"$cache/$sel/progs" -idirafter "$multiarch" \
			-c "$cache/$sel/progs/$p.c" -o "$obj.tmp"
		mv "$obj.tmp" "$obj"
	fi
done
# verifier/calls.c as a table of struct bpf_test (tests/linux-selftests/gen-table.sh)
sdir=$src/tests/linux-selftests
so=$cache/calls.so
if [ ! -f "$so" ] || [ "$stamp" -nt "$so" ] || [ "$sdir/shim.h" -nt "$so" ] || [ "$sdir/bpf_test.h" -nt "$so" ] ||
   [ "$src/include/kbpf/insn.h" -nt "$so" ]; then
	"$sdir/gen-table.sh" "$cache/$sel/verifier" > "$cache/calls-table.c"
	# Linux's file is compiled as it is: its own warnings are not ours to fix
	"$cc" -std=gnu11 -O0 -fPIC -shared -w -I"$src/include" -I"$sdir" "$cache/calls-table.c" -o "$so.tmp"
	mv "$so.tmp" "$so"
fi
exec "$runner" "$cache/obj" --calls-table "$so" "$@"
