#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every command of the README's "The `kbpf` command" block runs as written (issue 19):
# the block is extracted from README.md and each line run with `kbpf` on PATH, in a
# directory holding the files it names (prog.s, prog.bpf.o with a program 'handler'
# compiled with docs/loader.md's compile line, ctx.bin, pkt.bin, plugin.so).
# usage: readme.sh KBPF_BINARY SOURCE_DIR PLUGIN_SO
set -u
kbpf=$1 src=$2 plugin=$3
source "$(dirname "$0")/lib.sh"
docs_workdir
printf 'r0 = r1\nr0 += 1\nexit\n' > prog.s
cat > prog.bpf.c <<'C'
#include <stdint.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
const volatile uint32_t limit = 3;
uint64_t seen;
SEC("tc")
int handler(struct __sk_buff *skb)
{
	seen += skb->len;
	return skb->len > limit ? 1 : 0;
}
char LICENSE[] SEC("license") = "GPL";
C
head -c 256 /dev/zero > ctx.bin
head -c 64 /dev/zero > pkt.bin
cp "$plugin" plugin.so
# docs/loader.md's compile line, as written ($KBPF: the source tree)
line=$(grep -m1 '^clang .* -c prog.bpf.c -o prog.bpf.o$' "$src/docs/loader.md")
if [ -z "$line" ]; then bad "docs/loader.md has no compile line"; fi
if KBPF=$src bash -c "$line" 2>"$tmp/cc.err"; then ok; else bad "compile line failed: $line: $(cat "$tmp/cc.err")"; fi

# the README block
awk '/^## The `kbpf` command/{on=1} on && /^```sh/{inb=1; next} inb && /^```/{exit} inb' "$src/README.md" >"$tmp/cmds"
n=$(grep -c '^kbpf ' "$tmp/cmds")
[ "$n" -ge 15 ] && ok || bad "README block has $n commands"
while IFS= read -r cmd; do
  [ -z "$cmd" ] && continue
  if PATH="$tmp/bin:$PATH" bash -c "$cmd" >"$tmp/out" 2>&1; then ok; else bad "README: '$cmd' failed: $(head -c 400 "$tmp/out")"; fi
done <"$tmp/cmds"
# what two of them say
PATH="$tmp/bin:$PATH" kbpf run prog.bpf.o handler --set limit=7 --show-globals >"$tmp/out" 2>&1
grep -q '^\.rodata limit = 7$' "$tmp/out" && grep -q '^\.bss seen = 14$' "$tmp/out" && ok || bad "globals: $(cat "$tmp/out")"
PATH="$tmp/bin:$PATH" kbpf kfuncs --host plugin.so --type tc >"$tmp/out" 2>&1
grep -q 'program type sched_cls: no kfuncs' "$tmp/out" && ok || bad "kfuncs --type tc: $(cat "$tmp/out")"

finish
