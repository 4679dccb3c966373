#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bpf_perf_event_output end to end: `kbpf run FILE.o PROG --packet` prints the samples
# the run wrote to the object's perf event array (tests/bpf/perf_event.bpf.c), and
# `kbpf map dump` says what the slots hold.
# usage: perf_event.sh KBPF_BINARY BPF_OBJECT_DIR
set -u
kbpf=$1
objs=$2
. "$(dirname "$0")/lib.sh"

obj="$objs/perf_event.bpf.o"
# 64 bytes: 01 02 03 04 05 06 then zeroes
printf '\x01\x02\x03\x04\x05\x06' > "$tmp/pkt.bin"
head -c 58 /dev/zero >> "$tmp/pkt.bin"

for mode in "" --jit --checked; do
  # struct event { kind 5, len 64 } to this CPU's slot (the command runs on cpu 0)
  expect 0 "perf event cpu 0: 8 bytes: 05 00 00 00 40 00 00 00$" -- run $mode "$obj" tc_event --packet "$tmp/pkt.bin"
  # BPF_F_CTXLEN_MASK: the packet's first 4 bytes after the event
  expect 0 "perf event cpu 0: 12 bytes: 06 00 00 00 40 00 00 00 01 02 03 04$" -- \
    run $mode "$obj" with_packet --packet "$tmp/pkt.bin"
  expect 0 "perf event cpu 0: 10 bytes: 07 00 00 00 40 00 00 00 01 02$" -- \
    run $mode "$obj" xdp_event --packet "$tmp/pkt.bin"
  # Linux's errnos, and no sample
  expect 0 "retval: 0xffffffea \(-22\)" -- run $mode "$obj" bad_flags --packet "$tmp/pkt.bin"
  expect 0 "retval: 0xfffffff9 \(-7\)" -- run $mode "$obj" bad_index --packet "$tmp/pkt.bin"
done
if "$kbpf" run "$obj" bad_flags --packet "$tmp/pkt.bin" | grep -q "perf event"; then
  bad "bad_flags printed a sample"
else
  ok
fi
# one sample per run; an 8-page ring per slot holds them all
expect 0 "duration: .*\(3 runs" -- run "$obj" tc_event --packet "$tmp/pkt.bin" --repeat 3
n=$("$kbpf" run "$obj" tc_event --packet "$tmp/pkt.bin" --repeat 3 | grep -c "^perf event cpu 0: 8 bytes")
if [ "$n" = 3 ]; then ok; else bad "--repeat 3 printed $n samples"; fi

# the map: no max_entries in the object, so one slot per CPU; no perf buffer after a load
expect 0 "map 'events': perf_event_array, key 4, value 4, max_entries $(getconf _NPROCESSORS_CONF)," -- \
  map dump "$obj" events
expect 0 "no perf buffer" -- map dump "$obj" events
expect 0 "A perf event array" -- map --help
expect 0 "perf event cpu N" -- run --help

finish
