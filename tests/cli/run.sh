#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of the kbpf command, run as a user would run it.
# usage: run.sh KBPF_BINARY TESTS_DIR
set -u
kbpf=$1
tests=$2
root=$(cd "$tests/.." && pwd)
. "$(dirname "$0")/lib.sh"

# --- help, usage and exit codes ---
expect 0 "usage: kbpf" -- --help
expect 0 "^kbpf [0-9]" -- --version
expect 2 "usage: kbpf" --
expect 2 "unknown command 'frobnicate'" -- frobnicate
for c in asm disasm run; do
  expect 0 "usage: kbpf $c" -- $c --help
  expect 0 "usage: kbpf $c" -- help $c
  expect 2 "kbpf $c: " -- $c
  expect 2 "kbpf $c: " -- $c --no-such-option x
done
# a bad option is one line on stderr, as README says of errors (getopt's own message
# came first: two lines, or one without 'kbpf')
for c in asm disasm run verify kfuncs "btf dump" "prog dump" "map dump"; do
  expect_error 2 "^kbpf ${c% *}: unknown option '--no-such-option'|^kbpf ${c% *}: bad option" -- $c --no-such-option x
done
for c in asm run verify; do
  expect_error 2 "^kbpf $c: option '--dialect' needs a value" -- $c x --dialect
done

# kbpf kfuncs --type: a name the host has neither as a program type nor in a kfunc set is
# a usage error (a typo printed "no kfuncs" and exit 0); every type has Linux's common kfuncs
expect_error 2 "^kbpf kfuncs: --type: 'nosuch' is no program type of this host and no kfunc set names it" -- kfuncs --type nosuch
expect 0 "^void \\*bpf_cast_to_kern_ctx\\(void \\*obj\\); /\\* set common_kfunc_set" -- kfuncs --type socket_filter
expect 0 "^void \\*bpf_rdonly_cast\\(" -- kfuncs --type xdp
expect 0 "program type tcp_congestion_ops" -- kfuncs --type tcp_congestion_ops
expect 0 "usage: kbpf kfuncs.*" -- kfuncs --help
if "$kbpf" kfuncs --help | grep -q "exit 2"; then ok; else bad "kfuncs --help does not document exit 2"; fi

# --- asm / disasm / run on the example ---
# unverified and unchecked: only with --trusted-unverified (--checked confines it)
expect 1 "not verified .*refusing to run it unchecked" -- run --arg 27 "$root/examples/asm/collatz.s"
expect 0 "retval: 0x6f \(111\)" -- run --trusted-unverified --arg 27 "$root/examples/asm/collatz.s"
expect 0 "insns executed: [0-9]+" -- run --checked --arg 27 "$root/examples/asm/collatz.s"
expect 0 "duration: .* ns/run" -- run --trusted-unverified --arg 27 --repeat 10 "$root/examples/asm/collatz.s"
expect 0 "" -- asm -o "$tmp/collatz.bin" "$root/examples/asm/collatz.s"
expect 0 "retval: 0x6f" -- run --trusted-unverified --arg 27 "$tmp/collatz.bin"
expect 0 "goto pc" -- disasm "$tmp/collatz.bin"
expect 0 "^0: \(b7\) r0 = 0" -- disasm --index "$tmp/collatz.bin"
expect 0 "^0x[0-9a-f]{16}$" -- asm --hex "$root/examples/asm/collatz.s"
# options after FILE, as README writes them ('kbpf asm prog.s -o prog.bin'): they were
# refused with "expected one input FILE"
expect 0 "" -- asm "$root/examples/asm/collatz.s" -o "$tmp/collatz2.bin"
cmp -s "$tmp/collatz.bin" "$tmp/collatz2.bin" && ok || bad "asm FILE -o OUT wrote other bytes than asm -o OUT FILE"
expect 0 "^0: \(b7\) r0 = 0" -- disasm "$tmp/collatz.bin" --index

# --- memory given to the program, and checked mode catching a stray access ---
printf 'r0 = *(u32 *)(r1 +4)\nexit\n' >"$tmp/load.s"
expect 0 "retval: 0x4030201" -- run --trusted-unverified --mem-hex "00 00 00 00 01 02 03 04" "$tmp/load.s"
expect 0 "retval: 0x4030201" -- run --checked --mem-hex "00 00 00 00 01 02 03 04" "$tmp/load.s"
expect 1 "insn 0: .*read" -- run --checked --mem-hex "00 00 00 00" "$tmp/load.s"
printf '*(u32 *)(r1 +0) = 0x11223344\nr0 = 0\nexit\n' >"$tmp/store.s"
expect 0 "" -- run --trusted-unverified --mem-hex "00 00 00 00" --mem-out "$tmp/out.bin" "$tmp/store.s"
if [ "$(od -An -tx1 "$tmp/out.bin" | tr -d ' \n')" = "44332211" ]; then ok; else bad "--mem-out content"; fi
expect 1 "budget" -- run --checked --max-insns 5 --arg 27 "$root/examples/asm/collatz.s"
# --stack-fill: a program reading stack it never wrote gives the fill byte
printf 'r0 = *(u64 *)(r10 -8)\nexit\n' >"$tmp/uninit.s"
expect 0 "retval: 0x0 " -- run --checked "$tmp/uninit.s"
expect 0 "retval: 0xa5a5a5a5a5a5a5a5 " -- run --checked --stack-fill 0xa5 "$tmp/uninit.s"
expect 0 "retval: 0x4030201 " -- run --checked --stack-fill 0xa5 --mem-hex "00 00 00 00 01 02 03 04" "$tmp/load.s"
expect 2 "--stack-fill needs --checked" -- run --stack-fill 1 "$tmp/uninit.s"
expect 2 "not a byte" -- run --checked --stack-fill 256 "$tmp/uninit.s"

# --- bad input: one clear line, exit 1 or 2, never a crash ---
expect 1 "cannot open" -- run --trusted-unverified "$tmp/does-not-exist"
expect 1 "empty file" -- run --trusted-unverified /dev/null
printf '\x95\x00\x00' >"$tmp/odd.bin"
expect 1 "not a whole number of 8-byte instructions" -- run --trusted-unverified "$tmp/odd.bin"
printf '\xff\x00\x00\x00\x00\x00\x00\x00' >"$tmp/badop.bin"
expect 1 "unknown opcode ff" -- run --trusted-unverified "$tmp/badop.bin"
printf '\x18\x01\x00\x00\x00\x00\x00\x00' >"$tmp/lddw.bin"
expect 1 "invalid bpf_ld_imm64 insn" -- run --trusted-unverified "$tmp/lddw.bin"
printf 'r0 = 1\n' >"$tmp/noexit.s"
expect 1 "last insn is not an exit or jmp" -- run --trusted-unverified "$tmp/noexit.s"
printf 'goto nowhere\nexit\n' >"$tmp/nolabel.s"
expect 1 "line 1:" -- asm --hex "$tmp/nolabel.s"
printf 'r11 = 1\nexit\n' >"$tmp/badreg.s"
expect 1 "line 1:" -- asm --hex "$tmp/badreg.s"
head -c 4096 /dev/urandom >"$tmp/random.bin"
"$kbpf" disasm "$tmp/random.bin" >/dev/null 2>&1
rc=$?
if [ $rc -le 2 ]; then ok; else bad "disasm of random bytes exited $rc"; fi
"$kbpf" run --checked "$tmp/random.bin" >/dev/null 2>&1
rc=$?
if [ $rc -le 2 ]; then ok; else bad "run of random bytes exited $rc"; fi
expect 2 "--repeat" -- run --trusted-unverified --repeat 0 "$tmp/load.s"
expect 2 "--arg" -- run --trusted-unverified --arg zz "$tmp/load.s"
expect 2 "exclude each other" -- run --trusted-unverified --mem-hex 00 --ctx /dev/null "$tmp/load.s"
expect 2 "unknown dialect" -- asm --dialect klingon "$tmp/load.s"

# --- asm -> disasm -> asm round trip over every conformance program ---
rt_fail=0
rt_count=0
for data in "$tests"/conformance/*.data; do
  name=$(basename "$data" .data)
  awk '/^-- /{s=($0=="-- asm")} s && !/^-- /' "$data" >"$tmp/$name.s"
  if ! "$kbpf" asm --dialect conformance -o "$tmp/a.bin" "$tmp/$name.s" 2>"$tmp/err"; then
    bad "round trip $name: conformance asm failed: $(cat "$tmp/err")"; rt_fail=1; continue
  fi
  for flags in "" "--labels" "--index"; do
    if ! "$kbpf" disasm $flags "$tmp/a.bin" >"$tmp/b.s" 2>"$tmp/err" ||
       ! "$kbpf" asm -o "$tmp/b.bin" "$tmp/b.s" 2>>"$tmp/err" || ! cmp -s "$tmp/a.bin" "$tmp/b.bin"; then
      bad "round trip $name (disasm $flags): $(cat "$tmp/err")"; rt_fail=1
    fi
  done
  rt_count=$((rt_count + 1))
done
[ $rt_fail = 0 ] && ok
echo "round trip: $rt_count conformance programs"

finish
