#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A sleepable section's program is loaded sleepable (libbpf's SEC_SLEEPABLE: BPF_F_SLEEPABLE
# added at load), so it may call bpf_copy_from_user; the same program in a plain section is
# refused with Linux's message (tests/bpf/sleepable.bpf.c). Before, ".s" sections loaded
# as their plain forms and both were refused.
# usage: sleepable.sh KBPF_BINARY BPF_OBJECT_DIR
set -u
kbpf=$1
objs=$2
. "$(dirname "$0")/lib.sh"

obj="$objs/sleepable.bpf.o"
expect 0 "sleepable_copy: safe" -- verify --host "$kbpf" "$obj" sleepable_copy
expect 1 "helper call might sleep in a non-sleepable prog" -- verify --host "$kbpf" "$obj" plain_copy
# --prog-flags sleepable makes the plain section's program sleepable too
expect 0 "plain_copy: safe" -- verify --host "$kbpf" --prog-flags sleepable "$obj" plain_copy
finish
