#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Argument handling of scripts/tcp-kernel-compare (its runs need root, namespaces and TUN:
# not run here; --dry-run prints what both sides would be set up with).
# usage: tcp_kernel_compare_fq.sh SCRIPT
set -u
kbpf=$1 # lib.sh's expect runs "$kbpf" ARGS
. "$(dirname "$0")/lib.sh"

expect 0 "--fq \(sch_fq on the sender's side of both" -- --help
expect 2 "unknown option --frobnicate" -- --frobnicate cubic 20 20
expect 2 "usage|CC +reno, cubic or bbr" -- cubic 20
# --fq: fq on the kernel sender's TUN device, --fq for kbpf's senders
expect 0 "^ip netns exec kbpfA[0-9]+ tc qdisc replace dev kta[0-9]+ root fq$" -- --dry-run --fq cubic 100 2
expect 0 "^kbpf tcp-sim --cc cubic --rate 100M --delay 2ms .* --queue 33 --duration 20s --jitter 40us --fq --sack-compress --seed N" -- --dry-run --fq cubic 100 2
# without it: the device's default qdisc and no --fq
expect 0 "kernel sender qdisc: the device's default" -- --dry-run bbr 100 10
out=$("$kbpf" --dry-run --tso --secs 15 bbr 100 10 0.01 0 50)
if grep -q -- "--fq\|tc qdisc" <<<"$out"; then bad "--fq without being asked: $out"
elif grep -q -- "--queue 50 --duration 15s --jitter 40us --tso --sack-compress --trace-bbr --seed N" <<<"$out"; then ok
else bad "kbpf's arguments: $out"; fi
expect 0 "--ecn-threshold 10 .*--ecn " -- --dry-run --fq dctcp 100 2 0 10
# kbpf's path noise: the emulator's lateness by default, exact timing with --jitter 0
expect 0 "--jitter 0 " -- --dry-run --jitter 0 cubic 100 2
expect 2 "--jitter needs a value" -- --jitter

finish
