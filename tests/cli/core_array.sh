#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CO-RE's array-dimension rule as libbpf has it now (issue 19, item 7): a load from a
# field that is an array (int a[5] here, int a[7] in the target given as --btf) compares
# the element's size, not the array's; before, the load was poisoned ("its size
# changed"). The field after the array moves.
# usage: core_array.sh KBPF_BINARY TEST_BPF_DIR
set -u
kbpf=$1
objs=$2
source "$(dirname "$0")/lib.sh"
obj=$objs/core_array.bpf.o target=$objs/core_array_target.bpf.o

expect 0 '^read_arr: safe as socket_filter$' -- verify "$obj" --btf "$target"
expect 0 'r1 = \*\(u32 \*\)\(r0 \+0\)' -- prog dump "$obj" read_arr --btf "$target"
expect 0 'r6 = \*\(u32 \*\)\(r0 \+8\)' -- prog dump "$obj" read_arr --btf "$target"
expect 0 'r1 = \*\(u32 \*\)\(r0 \+28\)' -- prog dump "$obj" read_arr --btf "$target"   # b: 20 -> 28
out=$("$kbpf" verify "$obj" --btf "$target" 2>&1)
if grep -q "size changed\|CO-RE" <<<"$out"; then bad "a[] poisoned: $out"; else ok; fi
expect 0 'retval: 0x0 \(0\)' -- run --checked "$obj" --btf "$target" --ctx /dev/null
# against its own BTF nothing moves
expect 0 'r1 = \*\(u32 \*\)\(r0 \+20\)' -- prog dump "$obj" read_arr --btf "$obj"

finish
