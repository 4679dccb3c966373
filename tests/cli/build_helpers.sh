#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cmake/KbpfBpfObject.cmake's kbpf_add_bpf_object in a project of its own (issue 19,
# item 5): BPF C including <stdint.h> and <linux/bpf.h> builds on Debian (multiarch
# headers), at the CPU level asked for, and loads; bad arguments are configure errors.
# usage: build_helpers.sh KBPF_BINARY SOURCE_DIR
set -u
kbpf=$1 src=$2
source "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { echo "clang not found: skipped"; exit 0; }

mkdir -p "$tmp/proj"
cat >"$tmp/proj/prog.bpf.c" <<'C'
#include <stdint.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
_Static_assert(sizeof(intptr_t) == 8, "BPF is LP64");
SEC("socket")
int handler(struct __sk_buff *skb)
{
	uint32_t len = skb->len;
	return len > 100 ? 2 : 1; /* a 32-bit compare: JMP32 from -mcpu=v3 on */
}
char LICENSE[] SEC("license") = "GPL";
C
cat >"$tmp/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(bpf_helpers_test C)
include($src/cmake/KbpfBpfObject.cmake)
kbpf_add_bpf_object(prog_v2 SOURCES prog.bpf.c CPU v2 ALL)
kbpf_add_bpf_object(prog_v3 SOURCES prog.bpf.c ALL)
file(WRITE \${CMAKE_BINARY_DIR}/paths.txt "\${prog_v2_BPF_OBJECT}\n\${prog_v3_BPF_OBJECT}\n")
CM
if cmake -S "$tmp/proj" -B "$tmp/proj/build" >"$tmp/cfg.log" 2>&1 && cmake --build "$tmp/proj/build" >"$tmp/build.log" 2>&1; then
  ok
else
  bad "the project did not build: $(tail -c 800 "$tmp/cfg.log" "$tmp/build.log")"
fi
v2=$tmp/proj/build/prog_v2.bpf.o v3=$tmp/proj/build/prog_v3.bpf.o
grep -qx "$v2" "$tmp/proj/build/paths.txt" && ok || bad "prog_v2_BPF_OBJECT: $(cat "$tmp/proj/build/paths.txt")"
expect 0 '^handler: safe as socket_filter$' -- verify "$v2"
expect 0 '^handler: safe as socket_filter$' -- verify "$v3"
expect 0 'if w[0-9]+ ' -- prog dump "$v3" handler
out=$("$kbpf" prog dump "$v2" handler 2>&1)
if grep -Eq 'if w[0-9]+ ' <<<"$out"; then bad "CPU v2 has JMP32: $out"; else ok; fi
expect 0 'retval: 0x1 \(1\)' -- run "$v3" handler

# bad arguments: configure errors that say what is wrong
cat >"$tmp/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(bpf_helpers_bad C)
include($src/cmake/KbpfBpfObject.cmake)
kbpf_add_bpf_object(bad SOURCES prog.bpf.c CPU v9)
CM
if cmake -S "$tmp/proj" -B "$tmp/proj/build-bad" >"$tmp/bad.log" 2>&1; then bad "CPU v9 configured"
elif grep -q "CPU v9: expected v1, v2, v3 or v4" "$tmp/bad.log"; then ok
else bad "CPU v9: $(cat "$tmp/bad.log")"; fi

finish
