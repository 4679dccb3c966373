#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checked mode and the host objects kfuncs return (issue 19, item 7): a program reads the
# struct bpf_kfunc_call_test_acquire returned (Linux's test kfuncs, loaded as a plugin
# with --host); checked mode knows the object from the kfunc's BTF return type and its
# size, so the read is no violation (before, checked mode stopped it: "outside the stack
# and the declared regions").
# usage: kfunc_object.sh KBPF_BINARY TEST_KFUNCS_PLUGIN TEST_BPF_DIR
set -u
kbpf=$1 plugin=$2 objs=$3
source "$(dirname "$0")/lib.sh"
obj=$objs/kfunc_object.bpf.o
head -c 256 /dev/zero >"$tmp/ctx.bin"

# a = 43, b = 8 in the test object (hosts/linux/test_kfuncs.c)
expect 0 'retval: 0x10d4 \(4308\)' -- run --checked "$obj" read_obj --host "$plugin" --ctx "$tmp/ctx.bin"
expect 0 'retval: 0x10d4 \(4308\)' -- run "$obj" read_obj --host "$plugin"
expect 0 'retval: 0x10d4 \(4308\)' -- run --jit "$obj" read_obj --host "$plugin"
expect 0 'read_obj: safe as sched_cls' -- verify "$obj" read_obj --host "$plugin"
# the plugin registers Linux's program types itself: --host works all the same
expect 0 'bpf_kfunc_call_test_acquire' -- kfuncs --host "$plugin" --type tc

finish
