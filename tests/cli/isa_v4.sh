#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cpu v4 objects: our own BPF programs (tests/bpf, examples/tcp) built with clang-19
# -mcpu=v4 (sign-extending loads and moves, sdiv/smod, bswap, gotol) verify exactly as
# their -mcpu=v3 builds do, and run with the same results on the interpreter, checked
# and on the JIT. Skips (77) without clang-19.
# usage: isa_v4.sh KBPF SOURCE_DIR V3_OBJECT_DIR
kbpf=$1
src=$2
v3=$3
clang=$(command -v clang-19 || true)
if [ -z "$clang" ]; then
  echo "SKIP: clang-19 not found (scripts/install-deps installs it)"
  exit 77
fi
. "$(dirname "$0")/lib.sh"
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

v4_insns=0
for c in "$src"/tests/bpf/*.bpf.c "$src"/examples/tcp/*.bpf.c; do
  n=$(basename "$c" .bpf.c)
  o="$tmp/$n.o"
  if ! "$clang" -O2 -g -target bpf -mcpu=v4 -Wall -I"/usr/include/$multiarch" -I"$src/examples/tcp" \
      -c "$c" -o "$o" 2>"$tmp/cc.err"; then
    bad "clang-19 -mcpu=v4 $n: $(head -c 300 "$tmp/cc.err")"
    continue
  fi
  "$kbpf" verify "$v3/$n.bpf.o" >"$tmp/v3.out" 2>&1
  want=$?
  "$kbpf" verify "$o" >"$tmp/v4.out" 2>&1
  got=$?
  if [ "$got" != "$want" ]; then
    bad "$n: kbpf verify of the v4 build exits $got, of the v3 build $want: $(grep -v '^[0-9]*:' "$tmp/v4.out" | head -c 400)"
  else
    ok
  fi
  # count the objects that really hold v4-only instructions, so the test cannot pass
  # on objects clang happened to build without them
  if "$kbpf" prog dump "$o" 2>/dev/null | grep -Eq '\((s8|s16|s32)\)|\*\(s(8|16|32) \*\)|s/=|s%=|bswap|gotol'; then
    v4_insns=$((v4_insns + 1))
  fi
done
if [ "$v4_insns" -ge 2 ]; then ok; else bad "only $v4_insns v4 objects hold v4-only instructions"; fi

# globals.bpf.o's v4 build reads str[1] with a sign-extending load: same result everywhere
expect 0 'retval: 0x98 \(152\)' -- run "$tmp/globals.o" globals
expect 0 'retval: 0x98 \(152\)' -- run --jit "$tmp/globals.o" globals
expect 0 'retval: 0x98 \(152\)' -- run --checked "$tmp/globals.o" globals

# sign-extending ctx loads: a narrow s8 load of __sk_buff.len (200 = 0xc8 -> -56), and
# a pointer field refused as Linux 6.12 refuses it
head -c 200 /dev/zero >"$tmp/pkt"
printf 'r0 = *(s8 *)(r1 +0)\nexit\n' >"$tmp/len.s"
for mode in "" --jit --checked; do
  expect 0 'retval: 0xffffffc8 \(-56\)' -- run $mode --type sched_cls --packet "$tmp/pkt" "$tmp/len.s"
done
printf 'r0 = *(s32 *)(r1 +76)\nexit\n' >"$tmp/data.s"
expect 1 'invalid bpf_context access off=76 size=4' -- verify --type sched_cls "$tmp/data.s"
finish
