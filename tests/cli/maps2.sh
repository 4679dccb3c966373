#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# LPM trie, queue, stack and bloom filter end to end (tests/bpf/maps2.bpf.c): `kbpf run`
# of programs pushing and popping (FIFO, LIFO), routing by longest prefix and testing a
# bloom filter, on the interpreter, the JIT and checked mode; `kbpf map dump` shows each
# map's definition and what a load leaves in it.
# usage: maps2.sh KBPF_BINARY BPF_OBJECT_DIR
set -u
kbpf=$1
objs=$2
. "$(dirname "$0")/lib.sh"

obj="$objs/maps2.bpf.o"
for mode in "" --jit --checked; do
  expect 0 "retval: 0x7b \(123\)" -- run $mode "$obj" queue_fifo
  expect 0 "retval: 0x141 \(321\)" -- run $mode "$obj" stack_lifo
  expect 0 "retval: 0x648 \(1608\)" -- run $mode "$obj" lpm_route
  expect 0 "retval: 0x3 \(3\)" -- run $mode "$obj" bloom
done

expect 0 "map 'queue': queue, key 0, value 4, max_entries 8, flags 0x0" -- map dump "$obj" queue
expect 0 "^  \(empty\)" -- map dump "$obj" stack
expect 0 "map 'routes': lpm_trie, key 8, value 4, max_entries 16, flags 0x1" -- map dump "$obj" routes
expect 0 "^  \(empty\)" -- map dump "$obj" routes
expect 0 "map 'seen': bloom_filter, key 0, value 8, max_entries 100" -- map dump "$obj" seen
expect 0 "a bloom filter: values can be tested, not listed" -- map dump "$obj" seen
expect 0 "an LPM trie" -- map --help

finish
