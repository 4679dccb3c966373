#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The kbpf command's side of what Linux's kfunc selftests need: `kbpf verify --cap`
# (the loader's capabilities) and `kbpf run` of a syscall program refusing a context
# shorter than its max_ctx_offset (Linux's bpf_prog_test_run_syscall), and the loader's
# messages for typed __ksym host variables (HOST: a binary whose BTF has the VAR
# bpf_prog_active, which the kbpf command does not register).
# usage: cli_cap_ctx.sh KBPF CLANG WORKDIR HOST
set -u
kbpf=$1 clang=$2 work=$3 hostbin=$4
here=$(cd "$(dirname "$0")" && pwd)
failed=0
mkdir -p "$work"
check() { # DESCRIPTION PATTERN OUTPUT
	if grep -Eq -- "$2" <<<"$3"; then echo "PASS $1"; else echo "FAIL $1: no /$2/ in:"; echo "$3"; failed=1; fi
}
status() { # DESCRIPTION WANT GOT
	if [ "$2" = "$3" ]; then echo "PASS $1"; else echo "FAIL $1: exit status $3, want $2"; failed=1; fi
}

# --cap: without CAP_BPF Linux's unprivileged rules apply (a pointer may not leak)
printf 'r0 = r10\nexit\n' > "$work/leak.s"
out=$("$kbpf" verify --type socket_filter --cap all "$work/leak.s" 2>&1); rc=$?
status "--cap all: safe" 0 $rc
out=$("$kbpf" verify --type socket_filter --cap -sys_boot "$work/leak.s" 2>&1); rc=$?
status "--cap -sys_boot: safe" 0 $rc
out=$("$kbpf" verify --type socket_filter --cap none "$work/leak.s" 2>&1); rc=$?
status "--cap none: rejected" 1 $rc
check "--cap none: Linux's unprivileged message" 'R0 leaks addr as return value' "$out"
# Linux's two tiers: a pointer may leak with CAP_PERFMON (allow_ptr_leaks), with or
# without CAP_BPF; CAP_BPF alone keeps the unprivileged pointer rules
out=$("$kbpf" verify --type socket_filter --cap sys_boot,perfmon "$work/leak.s" 2>&1); rc=$?
status "--cap sys_boot,perfmon (no CAP_BPF): safe" 0 $rc
out=$("$kbpf" verify --type socket_filter --cap bpf "$work/leak.s" 2>&1); rc=$?
status "--cap bpf (no CAP_PERFMON): rejected" 1 $rc
check "--cap bpf: Linux's pointer-leak message" 'R0 leaks addr as return value' "$out"
out=$("$kbpf" verify --type socket_filter --cap cap_sys_admin "$work/leak.s" 2>&1); rc=$?
status "--cap cap_sys_admin: safe" 0 $rc
out=$("$kbpf" verify --cap bogus "$work/leak.s" 2>&1); rc=$?
status "--cap bogus: usage error" 2 $rc
check "--cap bogus: says why" "--cap: expected" "$out"

# kbpf run of a syscall program: BPF_PROG_TEST_RUN's max_ctx_offset rule
if command -v "$clang" >/dev/null 2>&1 && [ -r /usr/include/bpf/bpf_helpers.h ]; then
	obj=$work/syscall_ctx.bpf.o
	"$clang" -O2 -g -target bpf -idirafter "/usr/include/$(uname -m)-linux-gnu" \
		-c "$here/syscall_ctx.bpf.c" -o "$obj" || failed=1
	printf '\0\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0' > "$work/ctx16"
	printf '\0\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0\3\0\0\0\0\0\0\0' > "$work/ctx24"
	out=$("$kbpf" run "$obj" sum 2>&1); rc=$?
	status "syscall run, no ctx: refused" 1 $rc
	check "syscall run, no ctx: max_ctx_offset 24" 'the context has 0 bytes, the program touches 24' "$out"
	out=$("$kbpf" run "$obj" sum --ctx "$work/ctx16" 2>&1); rc=$?
	status "syscall run, 16-byte ctx: refused" 1 $rc
	check "syscall run, 16-byte ctx: -EINVAL" 'test run refused \(Invalid argument\)' "$out"
	out=$("$kbpf" run "$obj" sum --ctx "$work/ctx24" --mem-out "$work/ctx24.out" 2>&1); rc=$?
	status "syscall run, 24-byte ctx: runs" 0 $rc
	check "syscall run: retval 3" '^retval: 0x3 \(3\)$' "$out"
	check "syscall run: ctx written back (sum 5)" '^05 00 00 00 00 00 00 00 02' "$(od -An -tx1 -v "$work/ctx24.out" | tr -s ' \n' ' ' | sed 's/^ //')"

	# --cap on the object commands (run, prog dump, map dump): Linux refuses a syscall
	# program to a loader without CAP_BPF (bpf_prog_load's bpf_capable check)
	out=$("$kbpf" run "$obj" sum --ctx "$work/ctx24" --cap none 2>&1); rc=$?
	status "run --cap none, syscall program: refused" 1 $rc
	check "run --cap none: the capability is named as the reason" 'program type syscall needs a capability the loader lacks' "$out"
	out=$("$kbpf" run "$obj" sum --ctx "$work/ctx24" --cap bpf 2>&1); rc=$?
	status "run --cap bpf, syscall program: runs" 0 $rc
	out=$("$kbpf" prog dump "$obj" --cap perfmon 2>&1); rc=$?
	status "prog dump --cap perfmon (no CAP_BPF): refused" 1 $rc
	out=$("$kbpf" map dump "$obj" --cap none 2>&1); rc=$?
	status "map dump --cap none: refused" 1 $rc
	out=$("$kbpf" run --cap none "$work/ctx24" 2>&1); rc=$?
	status "run --cap with raw instructions: usage error" 2 $rc
	out=$("$kbpf" prog dump "$obj" --cap nonsense 2>&1); rc=$?
	status "prog dump --cap nonsense: usage error" 2 $rc

	# typed __ksym: the loader's three reasons, as libbpf's
	multiarch=/usr/include/$(uname -m)-linux-gnu
	"$clang" -O2 -g -target bpf -idirafter "$multiarch" -c "$here/ksym_var.bpf.c" -o "$work/ksym.o" || failed=1
	"$clang" -O2 -g -target bpf -idirafter "$multiarch" -DWRONG_TYPE -c "$here/ksym_var.bpf.c" \
		-o "$work/ksym_wrong.o" || failed=1
	out=$("$kbpf" run "$work/ksym.o" 2>&1); rc=$?
	status "typed ksym, no such VAR: load fails" 1 $rc
	check "typed ksym, no such VAR: says so" "extern \(var ksym\) 'bpf_prog_active': not found in the host's BTF" "$out"
	out=$("$kbpf" run --host "$hostbin" "$work/ksym.o" 2>&1); rc=$?
	status "typed ksym, VAR not registered: load fails" 1 $rc
	check "typed ksym, VAR not registered: says so" "the host did not register its address" "$out"
	out=$("$kbpf" run --host "$hostbin" "$work/ksym_wrong.o" 2>&1); rc=$?
	status "typed ksym, wrong type: load fails" 1 $rc
	check "typed ksym, wrong type: both types named" "incompatible types, expected \[[0-9]+\] struct not_an_int, but the host has \[[0-9]+\] int int" "$out"
else
	echo "SKIP syscall run, typed ksym: clang or libbpf-dev's bpf_helpers.h missing"
fi
[ $failed = 0 ] && echo "all passed"
exit $failed
