#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The socket maps end to end (tests/bpf/sock_maps.bpf.c): the object loads (sockmap,
# sockhash, xskmap, reuseport array; tc, xdp and sk_reuseport programs), `kbpf map dump`
# says what the slots hold (nothing: kbpf has no socket fds), `kbpf run` finds no socket.
# usage: sock_maps.sh KBPF_BINARY BPF_OBJECT_DIR
set -u
kbpf=$1
objs=$2
. "$(dirname "$0")/lib.sh"

obj="$objs/sock_maps.bpf.o"
head -c 64 /dev/zero > "$tmp/pkt.bin"

expect 0 "map 'sock_map': sockmap, key 4, value 8, max_entries 4," -- map dump "$obj" sock_map
expect 0 "map 'sock_hash': sockhash, key 8, value 8, max_entries 4," -- map dump "$obj" sock_hash
expect 0 "map 'xsks': xskmap, key 4, value 4, max_entries 2," -- map dump "$obj" xsks
expect 0 "map 'reuse': reuseport_sockarray, key 4, value 8, max_entries 8," -- map dump "$obj" reuse
for m in sock_map sock_hash xsks reuse; do
  expect 0 "\(empty: kbpf has no socket fds; a host puts its own sockets in with kbpf_linux_sock_map_update\)" -- \
    map dump "$obj" $m
done
# no slot lines for an empty array: its indexes are keys, but no socket is there
if "$kbpf" map dump "$obj" sock_map | grep -q "slot"; then bad "an empty sockmap printed a slot"; else ok; fi
expect 0 "socket map \(sockmap" -- map --help

# the programs verify and run: an empty slot is no socket
for mode in "" --jit --checked; do
  expect 0 "retval: 0x7 \(7\)" -- run $mode "$obj" sock_type --packet "$tmp/pkt.bin"
  expect 0 "retval: 0x2 \(2\)" -- run $mode "$obj" xsk_queue --packet "$tmp/pkt.bin"
done
expect 0 "select_sock.*sk_reuseport" -- prog list "$obj"
# sk_reuseport's test run: the packet from its TCP header (destination port 80)
printf '\x30\x39\x00\x50' > "$tmp/l4.bin"
head -c 16 /dev/zero >> "$tmp/l4.bin"
for mode in "" --jit --checked; do
  expect 0 "selected: none, connection refused \(SK_DROP\)" -- run $mode "$obj" select_sock --packet "$tmp/l4.bin"
  expect 0 "retval: 0x14 \(20\)" -- run $mode "$obj" l4_len --packet "$tmp/l4.bin"
done
expect 0 "retval: 0x0 \(0\)" -- run "$obj" l4_len --packet "$tmp/pkt.bin" # port 0

finish
