#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of `kbpf btf dump`, run as a user would run it.
# usage: btf.sh KBPF_BINARY TEST_HOST_BINARY
set -u
kbpf=$1
host=$2
. "$(dirname "$0")/lib.sh"

# --- help and usage ---
expect 0 "usage: kbpf btf dump" -- btf --help
expect 0 "usage: kbpf btf dump" -- help btf
expect 0 "usage: kbpf btf dump" -- btf dump --help
expect 0 "btf +print a host's BTF" -- --help
expect_error 2 "kbpf btf: expected a subcommand" -- btf
expect_error 2 "kbpf btf: unknown subcommand 'frob'" -- btf frob
expect_error 2 "kbpf btf: unknown format 'xml': expected c or raw" -- btf dump --format xml
expect_error 2 "kbpf btf: unexpected argument 'extra'" -- btf dump extra
# (getopt names the bad option on a line of its own, as for the other commands)
expect_error 2 "kbpf btf: unknown option '--no-such-option' \(see 'kbpf btf --help'\)" -- btf dump --no-such-option
expect_error 2 "kbpf btf: option '--host' needs a value" -- btf dump --host

# --- the test host: raw, as bpftool prints it ---
expect 0 "^\[1\] [A-Z]" -- btf dump --host "$host"
expect 0 "STRUCT 'th_flow' size=[0-9]+ vlen=1[0-9]" -- btf dump --host "$host" --format raw
expect 0 $'\t'"'ecn' type_id=[0-9]+ bits_offset=[0-9]+ bitfield_size=2" -- btf dump --host "$host"
expect 0 $'\t'"'delta' type_id=[0-9]+ bits_offset=[0-9]+ bitfield_size=4" -- btf dump --host "$host"
expect 0 "ENUM 'th_state' encoding=UNSIGNED size=4 vlen=4" -- btf dump --host "$host"
expect 0 $'\t'"'TH_STATE_RECOVERY' val=5" -- btf dump --host "$host"
expect 0 "ENUM 'th_signed' encoding=SIGNED" -- btf dump --host "$host"
expect 0 $'\t'"'TH_NEG' val=-2" -- btf dump --host "$host"
expect 0 "ENUM64 'th_big' encoding=UNSIGNED size=8 vlen=2" -- btf dump --host "$host"
expect 0 $'\t'"'TH_BIG_LARGE' val=4294967296ULL" -- btf dump --host "$host"
expect 0 "FUNC 'th_mix' type_id=[0-9]+ linkage=static" -- btf dump --host "$host"
expect 0 "FUNC_PROTO '\(anon\)' ret_type_id=[0-9]+ vlen=3" -- btf dump --host "$host"
expect 0 "FLOAT 'double' size=8" -- btf dump --host "$host"
expect 0 "INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED" -- btf dump --host "$host"
expect 0 "UNION 'th_addr' size=16 vlen=2" -- btf dump --host "$host"
expect 0 "TYPEDEF 'th_stats_t' type_id=[0-9]+" -- btf dump --host "$host"
expect 0 "ARRAY '\(anon\)' type_id=[0-9]+ index_type_id=[0-9]+ nr_elems=12" -- btf dump --host "$host"

# --- the test host as C ---
expect 0 "^#ifndef __VMLINUX_H__" -- btf dump --host "$host" --format c
expect 0 "#pragma clang attribute push \(__attribute__\(\(preserve_access_index\)\), apply_to = record\)" -- \
  btf dump --host "$host" --format c
expect 0 "^struct th_flow \{" -- btf dump --host "$host" --format c
expect 0 "u8 ecn: 2;" -- btf dump --host "$host" --format c
expect 0 "TH_BIG_LARGE = 4294967296" -- btf dump --host "$host" --format c
expect 0 "#endif /\* __VMLINUX_H__ \*/" -- btf dump --host "$host" --format c
# -o writes the same as stdout
"$kbpf" btf dump --host "$host" --format c >"$tmp/stdout.h"
expect 0 "" -- btf dump --host "$host" --format c -o "$tmp/o.h"
if cmp -s "$tmp/stdout.h" "$tmp/o.h"; then ok; else bad "-o output differs from stdout"; fi
expect_error 1 "kbpf btf: cannot create $tmp/no/such/dir/x.h.tmp" -- btf dump --host "$host" -o "$tmp/no/such/dir/x.h"
# -o onto something that is not a regular file (a FIFO here, /dev/null for users) writes
# into it: the temporary-file-and-rename path would replace it with a regular file.
mkfifo "$tmp/fifo"
timeout 10 cat "$tmp/fifo" >"$tmp/fifo.out" &
expect 0 "" -- btf dump --host "$host" --format c -o "$tmp/fifo"
wait
if [ -p "$tmp/fifo" ] && cmp -s "$tmp/stdout.h" "$tmp/fifo.out"; then ok; else bad "-o FIFO: replaced or not written"; fi

# --- kbpf's own BTF (the default) ---
expect 0 "STRUCT 'kbpf_host' size=" -- btf dump
expect 0 "FUNC 'main' type_id=" -- btf dump --format raw
expect 0 "^struct kbpf_host \{" -- btf dump --format c

# --- a raw BTF file: the test host's .BTF section on its own ---
if objcopy --dump-section .BTF="$tmp/host.btf" "$host" "$tmp/host.copy" 2>/dev/null && [ -s "$tmp/host.btf" ]; then
  "$kbpf" btf dump --host "$host" >"$tmp/from-elf.txt"
  expect 0 "STRUCT 'th_flow'" -- btf dump --host "$tmp/host.btf"
  "$kbpf" btf dump --host "$tmp/host.btf" >"$tmp/from-raw.txt"
  if cmp -s "$tmp/from-elf.txt" "$tmp/from-raw.txt"; then ok; else bad "raw BTF file dumps differently"; fi
  # truncated raw BTF
  head -c 100 "$tmp/host.btf" >"$tmp/trunc.btf"
  expect_error 1 "kbpf btf: $tmp/trunc.btf: malformed BTF" -- btf dump --host "$tmp/trunc.btf"
else
  bad "objcopy could not extract .BTF from $host"
fi

# --- errors: one line, exit 1, never a crash ---
expect_error 1 "kbpf btf: cannot open $tmp/missing: No such file or directory" -- btf dump --host "$tmp/missing"
expect_error 1 "kbpf btf: $tmp: is a directory" -- btf dump --host "$tmp"
: >"$tmp/empty"
expect_error 1 "kbpf btf: $tmp/empty: empty file" -- btf dump --host "$tmp/empty"
echo "int x;" >"$tmp/text.h"
expect_error 1 "kbpf btf: $tmp/text.h: neither an ELF file nor raw BTF" -- btf dump --host "$tmp/text.h"
head -c 4096 /dev/urandom >"$tmp/random.bin"
expect_error 1 "kbpf btf: $tmp/random.bin: " -- btf dump --host "$tmp/random.bin"
# an ELF file without .BTF: the test host with the section removed
if objcopy --remove-section .BTF "$host" "$tmp/nobtf" 2>/dev/null; then
  expect_error 1 "^kbpf btf: $tmp/nobtf has no \.BTF section; build it with -g and run pahole -J, see docs/host-btf.md$" -- \
    btf dump --host "$tmp/nobtf"
  expect_error 1 "has no \.BTF section" -- btf dump --host "$tmp/nobtf" --format c
else
  bad "objcopy could not remove .BTF from $host"
fi
# a truncated ELF
head -c 2000 "$host" >"$tmp/trunc.elf"
expect_error 1 "kbpf btf: $tmp/trunc.elf: " -- btf dump --host "$tmp/trunc.elf"
# a corrupted .BTF section: magic kept, header lengths garbage
if [ -s "$tmp/host.btf" ]; then
  cp "$tmp/host.btf" "$tmp/bad.btf"
  printf '\xff\xff\xff\x7f' | dd of="$tmp/bad.btf" bs=1 seek=8 conv=notrunc 2>/dev/null
  expect_error 1 "kbpf btf: $tmp/bad.btf: " -- btf dump --host "$tmp/bad.btf"
fi
# BTF that libbpf accepts but that would make its btf_dump recurse forever: type 1 is a
# pointer to itself. The raw dump is fine; the C dump refuses it.
printf '\x9f\xeb\x01\x00\x18\x00\x00\x00\x00\x00\x00\x00\x0c\x00\x00\x00\x0c\x00\x00\x00\x01\x00\x00\x00''\x00\x00\x00\x00\x00\x00\x00\x02\x01\x00\x00\x00''\x00' >"$tmp/cycle.btf"
expect 0 "^\[1\] PTR '\(anon\)' type_id=1$" -- btf dump --host "$tmp/cycle.btf"
expect_error 1 "kbpf btf: $tmp/cycle.btf: malformed BTF: type \[1\] '\(anon\)' refers back to itself" -- \
  btf dump --host "$tmp/cycle.btf" --format c
# output that cannot be written
if [ -w /dev/full ]; then
  out=$("$kbpf" btf dump --host "$host" 2>&1 >/dev/full)
  rc=$?
  if [ "$rc" = 1 ] && grep -q "error writing the output" <<<"$out"; then ok; else bad "dump to /dev/full: $rc $out"; fi
fi

finish
