#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `kbpf verify` and `kbpf prog load` on clang-compiled programs with the mistakes users
# make (tests/bpf/unsafe.bpf.c): each is refused with Linux 6.1's message, exit 1; the
# corrected program is accepted, exit 0.
# usage: verify.sh KBPF_BINARY BPF_OBJECT_DIR
set -u
kbpf=$1
objs=$2
. "$(dirname "$0")/lib.sh"
obj=$objs/unsafe.bpf.o

expect 0 "usage: kbpf verify" -- verify --help
expect 1 "invalid access to map value, value_size=8 off=8 size=8" -- verify "$obj" oob_map_value
expect 1 "R0 invalid mem access 'map_value_or_null'" -- verify "$obj" null_deref
expect 1 "invalid read from stack R10 off=-8 size=8" -- verify --unpriv "$obj" uninit_stack
expect 1 "Unreleased reference id=[0-9]+ alloc_insn=[0-9]+" -- verify "$obj" leaked_ref
expect 0 "safe: safe as socket_filter" -- verify "$obj" safe
# callbacks are called 0..N times (Linux 6.7+, tests/bpf/callback_escape.bpf.c): each of
# these relied on exactly one call, was accepted, and escaped at run time (kbpf run
# --checked: an access outside the map value; unchecked: SIGSEGV; for_each_calls spun
# in code judged dead); now refused, and the run refuses to start
cb=$objs/callback_escape.bpf.o
expect 1 "invalid access to map value, value_size=8 off=16777216 size=1" -- verify "$cb" zero_calls
expect 1 "invalid access to map value, value_size=8 off=8 size=4" -- verify "$cb" n_calls
expect 1 "R1 invalid mem access 'scalar'" -- verify "$cb" second_call
expect 1 "invalid access to map value, value_size=8 off=16777216 size=1" -- verify "$cb" for_each_calls
expect 0 "safe_counter: safe as sched_cls" -- verify "$cb" safe_counter
expect 1 "R6 min value is outside of the allowed memory range" -- run --checked "$cb" zero_calls
expect 1 "R1 invalid mem access 'scalar'" -- run --jit "$cb" second_call
expect 0 "retval: 0x4 \(4\)" -- run --checked "$cb" safe_counter
expect 0 "retval: 0x4 \(4\)" -- run --jit "$cb" safe_counter
# Linux's statistics line, at every log level that asks for it
expect 0 "^processed [0-9]+ insns \(limit 1000000\) max_states_per_insn [0-9]+ total_states [0-9]+ peak_states [0-9]+ mark_read [0-9]+$" -- verify --log-level 4 "$obj" safe
# level 2: every instruction with its register state
expect 0 "R0_w=map_value_or_null\(id=[0-9]+,map=counters,ks=4,vs=8\)" -- verify --log-level 2 "$obj" safe
# without PROG: the programs libbpf would load ("?socket" ones are not autoloaded)
expect 0 "safe: safe as socket_filter" -- verify "$obj"
expect 2 "" -- verify --log-level x "$obj"
expect 1 "no program 'nope'" -- verify "$obj" nope
# an object that cannot be opened or loaded: exit 1 (was 0 when opening failed) and
# the one line that says why (the log's trailing newline made a second)
expect_error 1 "bad_map_field.bpf.o: map 'odd': unknown field 'frobnicate'$" -- verify "$objs/bad_map_field.bpf.o"
expect_error 1 "unsupported_map.bpf.o: map 'devmap': cannot create it" -- verify "$objs/unsupported_map.bpf.o"
# PROG of an object whose prog array's initial slots name another program: that one
# loads too (unverified, not reported); it was left out, and the load refused the slot
expect 0 "^use_maps: safe as sched_cls$" -- verify "$objs/maps.bpf.o" use_maps
if "$kbpf" verify "$objs/maps.bpf.o" use_maps 2>&1 | grep -q tail_target; then
  bad "verify maps.bpf.o use_maps reported tail_target too"
else
  ok
fi
# a FILE that cannot be read or assembled is a failed input: exit 1 (was 254 and 234,
# the negative errno)
expect_error 1 "cannot open $tmp/none.s" -- verify "$tmp/none.s"
printf 'r0 = \n' >"$tmp/bad.s"
expect 1 "bad.s" -- verify "$tmp/bad.s"
# --prog-flags: Linux's BPF_F_STRICT_ALIGNMENT makes a misaligned map value read an
# error (x86-64 allows it otherwise); BPF_F_ANY_ALIGNMENT cancels it; unknown bits refused
cat >"$tmp/misaligned.s" <<'EOF'
*(u64 *)(r10 -8) = 0
r2 = r10
r2 += -8
r1 = map[idx:0]
call bpf_map_lookup_elem#1
if r0 == 0 goto out
r0 = *(u32 *)(r0 +2)
out:
r0 = 0
exit
EOF
expect 0 "safe as socket_filter" -- verify --map array:4:8:1 "$tmp/misaligned.s"
# --map is strict: no trailing text, no negative or out-of-range sizes (sscanf took
# "1x", "-4" as 4294967292 and a fifth field); one line, exit 2
expect_error 2 "^kbpf verify: --map: ENTRIES '1x' is not a number 0\.\.4294967295" -- verify --map array:4:8:1x "$tmp/misaligned.s"
expect_error 2 "^kbpf verify: --map: KEY '-4' is not a number 0\.\.4294967295" -- verify --map array:-4:8:1 "$tmp/misaligned.s"
expect_error 2 "^kbpf verify: --map: VALUE '4294967296' is not a number 0\.\.4294967295" -- verify --map array:4:4294967296:1 "$tmp/misaligned.s"
expect_error 2 "^kbpf verify: --map: expected TYPE:KEY:VALUE:ENTRIES, got 'array:4:8:1:9'" -- verify --map array:4:8:1:9 "$tmp/misaligned.s"
expect_error 2 "^kbpf verify: --map: expected TYPE:KEY:VALUE:ENTRIES, got 'array:4:8'" -- verify --map array:4:8 "$tmp/misaligned.s"
expect_error 2 "^kbpf verify: --map: unknown map type 'arrray'" -- verify --map arrray:4:8:1 "$tmp/misaligned.s"
expect 0 "safe as socket_filter" -- verify --map array:0x4:8:1 "$tmp/misaligned.s"
# numbers take no leading whitespace: a space was refused, a tab accepted
expect_error 2 "^kbpf verify: --map: KEY '	4' is not a number" -- verify --map "array:	4:8:1" "$tmp/misaligned.s"
expect_error 2 "^kbpf verify: --log-level: expected 0\.\.7, got '	1'" -- verify --log-level "	1" "$tmp/misaligned.s"
expect_error 2 "^kbpf verify: --log-level: expected 0\.\.7, got ' 1'" -- verify --log-level " 1" "$tmp/misaligned.s"
expect_error 2 "^kbpf run: --arg: '	5' is not a number" -- run --arg "	5" "$tmp/misaligned.s"
expect 1 "misaligned value access off 0\+0\+2 size 4" -- verify --prog-flags strict_alignment --map array:4:8:1 "$tmp/misaligned.s"
expect 0 "safe as socket_filter" -- verify --prog-flags strict_align,any_align --map array:4:8:1 "$tmp/misaligned.s"
expect 0 "safe as socket_filter" -- verify --prog-flags 3 --map array:4:8:1 "$tmp/misaligned.s"
expect 1 "unknown prog_flags 0x100" -- verify --prog-flags 0x100 --map array:4:8:1 "$tmp/misaligned.s"
expect 2 "--prog-flags: expected strict_alignment" -- verify --prog-flags bogus "$tmp/misaligned.s"
# BPF_F_TEST_REG_INVARIANTS: bounds that contradict themselves (the taken side of
# "{0, 16} == [4, 11]") fail the load; without it the log (level 2) warns and goes on
cat >"$tmp/invariants.s" <<'EOF'
call bpf_get_prandom_u32#7
r6 = r0
r6 &= 16
call bpf_get_prandom_u32#7
r7 = r0
r7 &= 7
r7 += 4
if r6 == r7 goto +2
r0 = 0
exit
r0 = 1
exit
EOF
expect 1 "REG INVARIANTS VIOLATION \\(true_reg1\\): range bounds violation u64=\\[0x0, 0x0\\]" -- verify --prog-flags test_reg_invariants "$tmp/invariants.s"
expect 1 "rejected as socket_filter \\(Bad address\\)" -- verify --prog-flags 0x80 "$tmp/invariants.s"
expect 0 "REG INVARIANTS VIOLATION \\(true_reg2\\)" -- verify --log-level 2 "$tmp/invariants.s"
# kbpf prog load: the verifier's last lines and exit 1, or what was loaded
expect 1 "7: \(79\) r0 = \*\(u64 \*\)\(r0 \+0\)" -- prog load "$obj" null_deref
expect 1 "R0 invalid mem access 'map_value_or_null'" -- prog load "$obj" null_deref
expect 1 "load failed: Permission denied" -- prog load "$obj" null_deref
expect 0 "unsafe.bpf.o: 1 program loaded" -- prog load "$obj"
expect 0 "safe: section socket, type socket_filter" -- prog load "$obj" safe
# load flags reach every program of an object (kbpf_program_set_flags)
expect 1 "unknown prog_flags 0x100" -- prog load --prog-flags 0x100 "$obj" safe
expect 0 "1 program loaded" -- prog load --prog-flags strict_alignment "$obj" safe
expect 1 "unknown prog_flags 0x100" -- prog dump --prog-flags 0x100 "$obj" safe
finish
