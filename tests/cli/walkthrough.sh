#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# docs/loader.md's "From the shell" walkthrough (plugin -> compile -> verify -> run ->
# globals) runs as written: the block is extracted and each command run with `kbpf` on
# PATH, $B the build directory and $KBPF the source tree; then what it produced is checked.
# usage: walkthrough.sh KBPF_BINARY SOURCE_DIR BUILD_DIR
set -u
kbpf=$1 src=$2 build=$3
source "$(dirname "$0")/lib.sh"
docs_workdir
awk '/^### From the shell: plugin/{on=1} on && /^```sh/{inb=1; next} inb && /^```/{exit} inb' \
  "$src/docs/loader.md" | grep -v '^#' >"$tmp/cmds"
[ "$(wc -l <"$tmp/cmds")" -ge 6 ] && ok || bad "walkthrough block: $(cat "$tmp/cmds")"
i=0
while IFS= read -r cmd; do
  i=$((i + 1))
  if PATH="$tmp/bin:$PATH" B=$build KBPF=$src bash -c "$cmd" >"$tmp/out.$i" 2>&1; then ok
  else bad "walkthrough: '$cmd' failed: $(head -c 400 "$tmp/out.$i")"; fi
done <"$tmp/cmds"
cat "$tmp"/out.* >"$tmp/all"
grep -q 'uint64_t shop_ring_up(struct till \*till, uint32_t price_cents);' "$tmp/all" && ok || bad "no kfunc listing"
grep -q '^sell: safe as checkout$' "$tmp/all" && ok || bad "not verified: $(cat "$tmp/all")"
grep -q 'retval: 0x9c4 (2500)' "$tmp/all" && ok || bad "run: $(cat "$tmp/all")"
[ "$(od -An -tu4 -N12 till.out | tr -s ' ')" = " 2500 0 1" ] && ok || bad "till.out: $(od -An -tx1 till.out)"
grep -q '^\.rodata discount_percent = 50$' "$tmp/all" && grep -q '^\.bss last_total = 1000$' "$tmp/all" && ok \
  || bad "checkout globals: $(cat "$tmp/all")"
grep -q '^\.rodata mode = "MODE_SLOW"$' "$tmp/all" && grep -q '^\.rodata name = "xyz"$' "$tmp/all" && ok \
  || bad "globals: $(cat "$tmp/all")"

finish
