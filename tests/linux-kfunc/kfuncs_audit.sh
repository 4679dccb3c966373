#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `kbpf kfuncs --host linux-test-kfuncs.so`: the audit lists Linux's 25 test kfuncs (6.1's
# 24 and 6.12's bpf_testmod bpf_kfunc_call_test_offset) and kbpf's two for 6.12's __szk
# and __str (27) with their prototypes and flags for sched_cls and syscall, and none for xdp.
# usage: kfuncs_audit.sh KBPF PLUGIN
set -u
kbpf=$1 plugin=$2
failed=0
check() { # DESCRIPTION PATTERN OUTPUT
	if grep -Eq -- "$2" <<<"$3"; then echo "PASS $1"; else echo "FAIL $1: no /$2/ in:"; echo "$3"; failed=1; fi
}
out=$("$kbpf" kfuncs --host "$plugin" --type sched_cls 2>&1)
check "sched_cls heading" '^/\* program type sched_cls \*/$' "$out"
check "test1 prototype" '^uint64_t bpf_kfunc_call_test1\(struct sock \*sk, uint32_t a, uint64_t b, uint32_t c, uint64_t d\); /\* set bpf_prog_test_kfunc_set, btf_id [0-9]+ \*/$' "$out"
check "acquire flags" '^struct prog_test_ref_kfunc \*bpf_kfunc_call_test_acquire\(.*\); /\* KF_ACQUIRE \| KF_RET_NULL, ' "$out"
check "destructive flag" 'bpf_kfunc_call_test_destructive\(void\); /\* KF_DESTRUCTIVE, ' "$out"
n=$(grep -c '^[^/].*bpf_kfunc_call_' <<<"$out")
check "27 kfuncs for sched_cls (got $n)" '^27$' "$n"
out=$("$kbpf" kfuncs --host "$plugin" --type syscall 2>&1)
check "syscall has them" 'bpf_kfunc_call_test_mem_len_pass1\(void \*mem, int mem__sz\)' "$out"
out=$("$kbpf" kfuncs --host "$plugin" --type xdp 2>&1)
check "none for xdp" '^/\* program type xdp: no kfuncs' "$out"
[ $failed = 0 ] && echo "all passed"
exit $failed
