#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Stack traces end to end (tests/bpf/stack_trace.bpf.c): `kbpf run FILE.o PROG` of a
# program that calls bpf_get_stackid returns the id and prints the map's stacks, the
# frames innermost first and symbolized (the command's own cmd_run is one of them; the
# JIT's frame is the program's); bpf_get_stack's depth agrees; Linux's -EFAULT for a
# skip past the stack; `kbpf map dump` shows the map, empty after a load.
# usage: stack_trace.sh KBPF_BINARY BPF_OBJECT_DIR
set -u
kbpf=$1
objs=$2
. "$(dirname "$0")/lib.sh"

obj="$objs/stack_trace.bpf.o"
for mode in "" --jit --checked; do
  expect 0 "stack trace map 'stacks':" -- run $mode "$obj" stackid
  expect 0 "cmd_run\+0x[0-9a-f]+ \(kbpf\)" -- run $mode "$obj" stackid
  out=$("$kbpf" run $mode "$obj" stackid)
  id=$(sed -n 's/^retval: 0x[0-9a-f]* (\([0-9]*\))$/\1/p' <<<"$out")
  if grep -q "^  stack id $id: [0-9]* frames$" <<<"$out"; then ok; else bad "$mode: id $id not printed: $out"; fi
  # the same frames, as many as bpf_get_stack sees from the same place
  frames=$(sed -n 's/^  stack id [0-9]*: \([0-9]*\) frames$/\1/p' <<<"$out")
  expect 0 "retval: 0x[0-9a-f]+ \($frames\)" -- run $mode "$obj" depth
  expect 0 "retval: 0xfffffffffffffff2 \(-14\)" -- run $mode "$obj" skip_all
done
expect 0 "bpf_prog 'stackid'\+0x[0-9a-f]+ \(jit\)" -- run --jit "$obj" stackid
if "$kbpf" run "$obj" skip_all | grep -q "stack trace map"; then bad "skip_all stored a stack"; else ok; fi

expect 0 "map 'stacks': stack_trace, key 4, value 256, max_entries 64, flags 0x0" -- map dump "$obj" stacks
expect 0 "^  \(empty\)" -- map dump "$obj" stacks
expect 0 "A stack trace map" -- map --help
expect 0 "stack id N" -- run --help

finish
