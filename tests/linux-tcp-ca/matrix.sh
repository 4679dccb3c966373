#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Linux 6.1's bpf_cubic.c and bpf_dctcp.c as today's toolchains build them: clang 14 and
# clang 19, -O1 and -O2, -mcpu=v1..v3 (and v4 with clang 19). Every build must verify
# (`kbpf verify`) and carry a flow in `kbpf tcp-sim` on both engines, delivering data.
# usage: matrix.sh KBPF CACHE_DIR
# Skips (77) without linux-source-6.1 or clang; a missing clang-19 only drops its column.
kbpf=$1
cache=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/cli/lib.sh"
compilers=()
for c in clang-14 clang clang-19; do
  command -v "$c" >/dev/null 2>&1 || continue
  v=$("$c" --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
  case " ${compilers[*]} " in *" $c:$v "*|*":$v "*) continue ;; esac
  compilers+=("$c:$v")
done
if [ ${#compilers[@]} -eq 0 ]; then
  echo "SKIP: no clang"
  exit 77
fi
built=0
for cv in "${compilers[@]}"; do
  cc=${cv%%:*} ver=${cv##*:}
  cpus="v1 v2 v3"
  [ "$ver" -ge 18 ] && cpus="v1 v2 v3 v4"
  for opt in 1 2; do
    for cpu in $cpus; do
      out=$cache/clang$ver-O$opt-$cpu
      # Linux's sources are unpacked once, into the first build's directory
      if [ -n "${shared_src:-}" ] && [ ! -e "$out/src" ]; then
        mkdir -p "$out"
        ln -s "$shared_src" "$out/src"
      fi
      "$root/scripts/linux-tcp-objects" --quiet --clang "$cc" --cpu "$cpu" --opt "$opt" \
        --only bpf_cubic,bpf_dctcp --kbpf "$kbpf" "$out" >"$tmp/build.out" 2>&1
      rc=$?
      if [ $rc = 77 ]; then
        cat "$tmp/build.out"
        exit 77
      fi
      shared_src=${shared_src:-$out/src}
      for p in bpf_cubic bpf_dctcp; do
        cc_arg=$out/$p.o
        [ $p = bpf_dctcp ] && cc_arg=$cc_arg:dctcp # its other struct_ops map is dctcp_nouse
        what="$p clang $ver -O$opt -mcpu=$cpu"
        if [ ! -f "$out/$p.o" ]; then
          bad "$what: not built: $(head -c 300 "$out/$p.err" 2>/dev/null)"
          continue
        fi
        built=$((built + 1))
        if ! "$kbpf" verify "$out/$p.o" >"$tmp/verify.out" 2>&1; then
          bad "$what: kbpf verify refuses it: $(grep -Ev '^[0-9]+: |^(last_idx|regs=|parent|func#)' "$tmp/verify.out" | head -3 | tr '\n' ' ')"
          continue
        fi
        ok
        for engine in --jit --no-jit; do
          if "$kbpf" tcp-sim --cc "$cc_arg" $engine --duration 2s >"$tmp/sim.out" 2>&1 &&
             grep -Eq '[1-9][0-9.]* ?[kMG]?b/s' "$tmp/sim.out"; then
            ok
          else
            bad "$what: kbpf tcp-sim $engine: $(tail -3 "$tmp/sim.out" | tr '\n' ' ')"
          fi
        done
      done
    done
  done
done
[ $built -gt 0 ] || bad "no object was built"
finish
