#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `kbpf run --packet` of programs using LD_ABS / LD_IND (Linux's legacy packet loads) on
# the interpreter (fast and checked) and the JIT: big-endian values, Linux's negative
# offsets (SKF_LL_OFF = -0x200000: the MAC header), an out-of-bounds load ending the
# program with 0, and a program type without them refused by the verifier.
# usage: ld_abs.sh KBPF_BINARY
set -u
kbpf=$1
. "$(dirname "$0")/lib.sh"

# an IPv4 Ethernet frame of 20 bytes: a socket filter sees the 6 bytes after the
# Ethernet header (45 00 00 14 aa bb), tc the whole frame
printf '\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x08\x00\x45\x00\x00\x14\xaa\xbb' > "$tmp/pkt.bin"

# the IP version byte and the total length: 0x45 << 16 | 0x0014
cat > "$tmp/ip.s" <<'ASM'
r6 = r1
r0 = *(u8 *)skb[0]
r7 = r0
r0 = *(u16 *)skb[2]
r7 <<= 16
r7 |= r0
r0 = r7
exit
ASM
# the EtherType through the MAC header (SKF_LL_OFF + 12), and a word through LD_IND
cat > "$tmp/ll.s" <<'ASM'
r6 = r1
r0 = *(u16 *)skb[-2097140]
exit
ASM
cat > "$tmp/ind.s" <<'ASM'
r6 = r1
r8 = 1
r0 = *(u32 *)skb[r8 + 1]
exit
ASM
# a word at offset 4 of 6 bytes: out of bounds, the program ends with 0 there
cat > "$tmp/oob.s" <<'ASM'
r6 = r1
r0 = *(u32 *)skb[4]
r0 = 9
exit
ASM
for mode in "" --checked --jit; do
	expect 0 "retval: 0x450014 \(4522004\)" -- run $mode --packet "$tmp/pkt.bin" --type socket_filter "$tmp/ip.s"
	expect 0 "retval: 0x800 \(2048\)" -- run $mode --packet "$tmp/pkt.bin" --type socket_filter "$tmp/ll.s"
	expect 0 "retval: 0x800 \(2048\)" -- run $mode --packet "$tmp/pkt.bin" --type sched_cls "$tmp/ll.s"
	expect 0 "retval: 0x14aabb \(1354427\)" -- run $mode --packet "$tmp/pkt.bin" --type socket_filter "$tmp/ind.s"
	expect 0 "retval: 0x3040506 \(50595078\)" -- run $mode --packet "$tmp/pkt.bin" --type sched_cls "$tmp/ind.s"
	expect 0 "retval: 0x0 \(0\)" -- run $mode --packet "$tmp/pkt.bin" --type socket_filter "$tmp/oob.s"
	expect 0 "retval: 0x9 \(9\)" -- run $mode --packet "$tmp/pkt.bin" --type sched_cls "$tmp/oob.s"
done
expect 0 "duration: [0-9.]+ ns/run \(1 run, JIT\)" -- run --jit --packet "$tmp/pkt.bin" --type socket_filter "$tmp/ip.s"
# a socket filter as clang builds it: __builtin_bpf_load_{byte,half,word} are LD_ABS/LD_IND
if command -v clang >/dev/null; then
	cat > "$tmp/filter.bpf.c" <<'C'
#include <linux/bpf.h>
unsigned long long load_byte(void *skb, unsigned long long off) asm("llvm.bpf.load.byte");
unsigned long long load_half(void *skb, unsigned long long off) asm("llvm.bpf.load.half");
unsigned long long load_word(void *skb, unsigned long long off) asm("llvm.bpf.load.word");
__attribute__((section("socket"), used))
int ipv4_len(struct __sk_buff *skb)
{
	/* keep the packet if it is IPv4 (version 4): its total length, else 0 */
	if (load_byte(skb, 0) >> 4 != 4)
		return 0;
	return load_half(skb, 2) + (load_word(skb, 2) & 0xff);
}
char LICENSE[] __attribute__((section("license"), used)) = "GPL";
C
	if clang -O2 -target bpf -I/usr/include/$(gcc -dumpmachine 2>/dev/null) -c "$tmp/filter.bpf.c" \
		-o "$tmp/filter.bpf.o" 2>"$tmp/clang.err"; then
		for mode in "" --checked --jit; do
			expect 0 "retval: 0xcf \(207\)" -- run $mode --packet "$tmp/pkt.bin" "$tmp/filter.bpf.o" ipv4_len
		done
	else
		bad "clang could not build the socket filter: $(cat "$tmp/clang.err")"
	fi
fi

# Linux allows them in socket filters and tc only
expect 1 "BPF_LD_\[ABS\|IND\] instructions not allowed for this program type" -- \
	run --packet "$tmp/pkt.bin" --type cgroup_skb "$tmp/ip.s"

finish
