#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `kbpf btf dump --format c` output is a usable vmlinux.h: dump the test host's types and
# the kbpf command's own, as a user would, and compile BPF programs that include them
# together with libbpf's headers.
# usage: dump_compiles.sh KBPF TEST_HOST CLANG TESTS_HOST_DIR
set -u
kbpf=$1 host=$2 clang=$3 src=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

bpf_cc() { # the flags a libbpf user compiles with, warnings as errors
  "$clang" -O2 -g -target bpf -D__TARGET_ARCH_x86 -Wall -Werror -I"$tmp" -c "$@"
}

"$kbpf" btf dump --host "$host" --format c >"$tmp/host.h" || bad "kbpf btf dump --host $host --format c"
bpf_cc "$src/uses_host_h.bpf.c" -o "$tmp/uses_host_h.bpf.o" || bad "uses_host_h.bpf.c does not compile against the dump"
# CO-RE relocations were recorded against the dumped types (preserve_access_index)
if command -v llvm-readelf >/dev/null; then
  llvm-readelf -S "$tmp/uses_host_h.bpf.o" | grep -q '\.BTF\.ext' || bad "uses_host_h.bpf.o has no .BTF.ext"
fi

# The kbpf command's own types (the host of `kbpf run`), as vmlinux.h.
"$kbpf" btf dump --format c >"$tmp/vmlinux.h" || bad "kbpf btf dump --format c"
cat >"$tmp/uses_kbpf.bpf.c" <<'PROG'
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
SEC("tc") int prog(void *ctx) { return bpf_core_type_exists(struct kbpf_host); }
char _license[] SEC("license") = "GPL";
PROG
bpf_cc "$tmp/uses_kbpf.bpf.c" -o "$tmp/uses_kbpf.bpf.o" || bad "a program including kbpf's own dump does not compile"

# Without CO-RE attributes (BPF_NO_PRESERVE_ACCESS_INDEX) the header is still valid C.
bpf_cc -DBPF_NO_PRESERVE_ACCESS_INDEX "$src/uses_host_h.bpf.c" -o "$tmp/plain.bpf.o" ||
  bad "uses_host_h.bpf.c with BPF_NO_PRESERVE_ACCESS_INDEX"

if [ "$failed" -ne 0 ]; then
  echo "$failed failed"
  exit 1
fi
echo "dump output compiles"
