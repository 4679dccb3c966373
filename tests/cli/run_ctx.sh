#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `kbpf run FILE.o PROG` hands an object's program a context it may read
# (tests/bpf/run_ctx.bpf.c): a zeroed one of the type's size when none is given, the
# --ctx bytes padded to that size, a networking program without --packet a packet of
# 14 zero bytes (its context is made from a packet; raw --mem is refused). Before, R1
# was NULL and a program reading its context crashed the command.
# usage: run_ctx.sh KBPF_BINARY BPF_OBJECT_DIR
set -u
kbpf=$1
objs=$2
. "$(dirname "$0")/lib.sh"

obj="$objs/run_ctx.bpf.o"
printf '\x29\x00\x00\x00\x00\x00\x00\x00' > "$tmp/ctx8.bin" # ctx[0] = 41, ctx[1] beyond the file
printf '\x29\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00' > "$tmp/ctx16.bin"
for mode in "" --jit; do
  expect 0 "retval: 0x1 \(1\)" -- run $mode "$obj" args_sum
  expect 0 "retval: 0x2a \(42\)" -- run $mode --ctx "$tmp/ctx8.bin" "$obj" args_sum
  # raw_tp.w: slot 0 is a buffer kbpf run makes (a zeroed or given slot 0 crashed it)
  expect 0 "retval: 0x7 \(7\)" -- run $mode "$obj" tp_buf
  expect 0 "retval: 0x8 \(8\)" -- run $mode --ctx "$tmp/ctx16.bin" "$obj" tp_buf
  # a networking program without --packet: an Ethernet header of zeroes, as a packet
  expect 0 "retval: 0xe \(14\)" -- run $mode "$obj" skb_len
  expect 2 "skb_len is a sched_cls program: its context is made from a packet; give --packet FILE" -- \
    run $mode --mem "$tmp/ctx8.bin" "$obj" skb_len
  # --arg: R1 stays the context (R1 = 1 crashed the command), the value goes to R2
  expect 0 "retval: 0x1 \(1\)" -- run $mode --arg 1 "$obj" args_sum
  expect 0 "retval: 0x2a \(42\)" -- run $mode --arg 1 --ctx "$tmp/ctx8.bin" "$obj" args_sum
  # a syscall program's context is what --ctx gives; with --arg a zeroed one
  expect 0 "retval: 0x2a \(42\)" -- run $mode --ctx "$tmp/ctx8.bin" "$obj" sys_first
  expect 1 "the context has 0 bytes, the program touches 4" -- run $mode "$obj" sys_first
  expect 0 "retval: 0x1 \(1\)" -- run $mode --arg 5 "$obj" sys_first
  # --repeat follows the same rule (it ran on a zeroed context without --ctx)
  expect 1 "the context has 0 bytes, the program touches 4" -- run $mode --repeat 3 "$obj" sys_first
  expect 0 "retval: 0x2a \(42\)" -- run $mode --repeat 3 --ctx "$tmp/ctx8.bin" "$obj" sys_first
  expect 0 "duration: .* ns/run \(3 runs" -- run $mode --repeat 3 --ctx "$tmp/ctx8.bin" "$obj" sys_first
done
# checked mode takes the memory as given and stops a bad access itself
expect 1 "invalid read of 8 bytes .* \(r1 \+8\)" -- run --checked --ctx "$tmp/ctx8.bin" "$obj" args_sum
expect 0 "retval: 0x2b \(43\)" -- run --checked --ctx "$tmp/ctx16.bin" "$obj" args_sum
expect 1 "program stopped" -- run --checked "$obj" skb_len
# a context holding a host object's pointer (fentry on a function of the kbpf binary's BTF):
# refused unchecked (a zeroed slot was dereferenced: SIGSEGV), stopped when checked
btf_obj="$objs/run_btf_ctx.bpf.o"
expect 2 "path_fd: its context holds pointers to host objects" -- run --host "$kbpf" "$btf_obj" path_fd
expect 2 "its context holds pointers to host objects" -- run --jit --host "$kbpf" --ctx "$tmp/ctx8.bin" "$btf_obj"
expect 1 "invalid read of 4 bytes at 0x29 \(r1 \+0\)" -- run --checked --host "$kbpf" --ctx "$tmp/ctx8.bin" "$btf_obj"
# with a packet it runs as BPF_PROG_TEST_RUN (20 bytes)
head -c 20 /dev/zero > "$tmp/pkt.bin"
expect 0 "retval: 0x14 \(20\)" -- run --packet "$tmp/pkt.bin" "$obj" skb_len

# sock_ops' bpf_getsockopt takes its context; the TCP host's (which the kbpf command's
# host also has) takes a simulated socket and must never run on it: the program verifies
# but does not run. Before, a context whose bytes at icsk_ca_ops pointed anywhere made
# the TCP host's getsockopt dereference it (SIGSEGV).
head -c 48 /dev/zero > "$tmp/skops.bin"
printf '\x41\x41\x41\x41\x41\x41\x41\x41' >> "$tmp/skops.bin"
head -c 200 /dev/zero >> "$tmp/skops.bin"
for mode in "" --jit; do
  expect 1 "call to unknown helper" -- run $mode --ctx "$tmp/skops.bin" "$objs/sockops_getsockopt.bpf.o"
done
# (it verifies: the same call as assembly)
printf 'r2 = 6\nr3 = 13\nr4 = r10\nr4 += -16\nr5 = 16\ncall 57\nr0 = 1\nexit\n' > "$tmp/skops.s"
expect 0 "safe as sock_ops" -- verify --type sock_ops "$tmp/skops.s"

finish
