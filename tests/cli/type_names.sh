#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Program types in every --type by Linux's name and by libbpf's SEC() names (issue 19,
# item 2): verify, run --packet, kfuncs; `kbpf verify --type help` lists both.
# usage: type_names.sh KBPF_BINARY
set -u
kbpf=$1
source "$(dirname "$0")/lib.sh"

printf 'r0 = 0\nexit\n' >"$tmp/r0.s"
for pair in tc:sched_cls classifier:sched_cls tc/ingress:sched_cls tcx/egress:sched_cls action:sched_act \
            socket:socket_filter tp:tracepoint tp/sched/sched_switch:tracepoint tracepoint/x/y:tracepoint \
            raw_tp:raw_tracepoint raw_tp/sys_enter:raw_tracepoint raw_tp.w:raw_tracepoint.w \
            kprobe/foo:kprobe uprobe:kprobe xdp:xdp xdp.frags:xdp xdp/devmap:xdp cgroup/skb:cgroup_skb \
            cgroup_skb/ingress:cgroup_skb cgroup/sock:cgroup_sock cgroup/dev:cgroup_device \
            cgroup/sysctl:cgroup_sysctl sockops:sock_ops sk_skb/stream_verdict:sk_skb perf_event:perf_event \
            sched_cls:sched_cls socket_filter:socket_filter cgroup/connect4:cgroup/connect4; do
  expect 0 "safe as ${pair#*:}\$" -- verify --type "${pair%%:*}" "$tmp/r0.s"
done
# fentry/FUNC: the type by prefix, FUNC the attach target (as --attach FUNC)
cat >"$tmp/arg.s" <<'ASM'
r2 = *(u64 *)(r1 + 8)
r0 = 0
exit
ASM
expect 0 'safe as fentry$' -- verify --type fentry/tcp_slow_start "$tmp/arg.s"
expect 0 'safe as fexit$' -- verify --type fexit/tcp_slow_start "$tmp/arg.s"
expect 1 "not a function of the host's BTF" -- verify --type fentry/no_such_function "$tmp/arg.s"
# a section of an attach type the host has no rules for, and a typo: usage errors
expect_error 2 "unknown program type 'lsm_cgroup/bpf'" -- verify --type lsm_cgroup/bpf "$tmp/r0.s"
# the AF_UNIX sock_addr attach types have their own (6.12's return ranges)
expect 0 'safe as cgroup/connect_unix$' -- verify --type cgroup/connect_unix "$tmp/r0.s"
expect_error 2 "unknown program type 'bogus'" -- verify --type bogus "$tmp/r0.s"
# --type help: each type with the SEC() names meaning it
expect 0 '^sched_cls +.*\btc\b' -- verify --type help
expect 0 'classifier' -- verify --type help
expect 0 '^socket_filter +socket$' -- verify --type help
expect 0 '^sock_ops +sockops$' -- verify --type help
# run --packet --type by SEC() name
printf '\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x08\x00\x45\x00' >"$tmp/pkt.bin"
printf 'r0 = 7\nexit\n' >"$tmp/r7.s"
expect 0 'retval: 0x7 \(7\)' -- run --type tc --packet "$tmp/pkt.bin" "$tmp/r7.s"
expect 0 'retval: 0x7 \(7\)' -- run --type socket --packet "$tmp/pkt.bin" "$tmp/r7.s"
expect 0 'retval: 0x7 \(7\)' -- run --type classifier --packet "$tmp/pkt.bin" "$tmp/r7.s"
expect_error 2 "has no packet" -- run --type tp --packet "$tmp/pkt.bin" "$tmp/r7.s"
# kfuncs: the README's example
expect 0 '^/\* program type sched_cls \*/$' -- kfuncs --type tc
expect 0 '^/\* program type socket_filter \*/$' -- kfuncs --type socket
expect_error 2 "'bogus' is no program type" -- kfuncs --type bogus

finish
