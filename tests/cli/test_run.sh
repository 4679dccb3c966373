#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `kbpf run --packet` as Linux's BPF_PROG_TEST_RUN: return value, output packet, duration.
# usage: test_run.sh KBPF_BINARY
set -u
kbpf=$1
. "$(dirname "$0")/lib.sh"

# an IPv4 Ethernet frame of 20 bytes
printf '\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x08\x00\x45\x00\x00\x14\xaa\xbb' > "$tmp/pkt.bin"

# XDP: bump the first byte when 14 bytes are there, return XDP_PASS (2)
cat > "$tmp/xdp.s" <<'ASM'
r2 = *(u32 *)(r1 + 0)
r3 = *(u32 *)(r1 + 4)
r4 = r2
r4 += 14
if r4 > r3 goto drop
r5 = *(u8 *)(r2 + 0)
r5 += 1
*(u8 *)(r2 + 0) = r5
r0 = 2
exit
drop:
r0 = 1
exit
ASM
for mode in "" --checked --jit; do
	expect 0 "retval: 0x2 \(2\)" -- run $mode --packet "$tmp/pkt.bin" --type xdp "$tmp/xdp.s"
	expect 0 "0000: 02 02 03 04 05 06 07 08 09 0a 0b 0c 08 00 45 00" -- \
		run $mode --packet "$tmp/pkt.bin" --type xdp "$tmp/xdp.s"
	expect 0 "duration: [0-9.]+ ns/run \(1 run" -- run $mode --packet "$tmp/pkt.bin" --type xdp "$tmp/xdp.s"
done
expect 0 "duration: [0-9.]+ ns/run \(50 runs" -- run --repeat 50 --packet "$tmp/pkt.bin" --type xdp "$tmp/xdp.s"
# --repeat runs on the same packet, as test_run: the byte went up 50 times
expect 0 "0000: 33 02" -- run --repeat 50 --packet "$tmp/pkt.bin" --type xdp "$tmp/xdp.s"
expect 0 "written to" -- run --packet "$tmp/pkt.bin" --type xdp --packet-out "$tmp/out.bin" "$tmp/xdp.s"
if [ "$(od -An -tx1 -N2 "$tmp/out.bin" | tr -d ' \n')" = 0202 ] && [ "$(wc -c < "$tmp/out.bin")" -eq 20 ]; then
	passed=$((passed + 1))
else
	bad "--packet-out wrote $(od -An -tx1 "$tmp/out.bin")"
fi

# skb: return __sk_buff.len (offset 0): tc sees the whole frame, a socket filter the
# packet after the Ethernet header; protocol (offset 16) is the EtherType as stored
printf 'r0 = *(u32 *)(r1 + 0)\nexit\n' > "$tmp/len.s"
printf 'r0 = *(u32 *)(r1 + 16)\nexit\n' > "$tmp/proto.s"
printf 'r0 = *(u32 *)(r1 + 8)\nexit\n' > "$tmp/mark.s"
expect 0 "retval: 0x14 \(20\)" -- run --packet "$tmp/pkt.bin" --type sched_cls "$tmp/len.s"
expect 0 "retval: 0x6 \(6\)" -- run --packet "$tmp/pkt.bin" --type socket_filter "$tmp/len.s"
expect 0 "packet out: 20 bytes" -- run --packet "$tmp/pkt.bin" --type socket_filter "$tmp/len.s"
expect 0 "retval: 0x8 \(8\)" -- run --packet "$tmp/pkt.bin" --type sched_cls "$tmp/proto.s"
# --ctx with --packet: the context's initial fields (mark at offset 8)
printf '\0\0\0\0\0\0\0\0\x2a\0\0\0' > "$tmp/ctx.bin"
expect 0 "retval: 0x2a \(42\)" -- run --packet "$tmp/pkt.bin" --ctx "$tmp/ctx.bin" --type sched_cls "$tmp/mark.s"

# a BPF object as clang builds it: the program type comes from its section (xdp)
if command -v clang >/dev/null && [ -f /usr/include/bpf/bpf_helpers.h ]; then
	cat > "$tmp/xdp_obj.bpf.c" <<'C'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp")
int swap_macs(struct xdp_md *ctx)
{
	unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;

	if (data + 12 > end)
		return XDP_DROP;
	for (int i = 0; i < 6; i++) {
		unsigned char t = data[i];

		data[i] = data[i + 6];
		data[i + 6] = t;
	}
	return XDP_TX;
}
char LICENSE[] SEC("license") = "GPL";
C
	if clang -O2 -g -target bpf -I/usr/include/$(gcc -dumpmachine 2>/dev/null) -c "$tmp/xdp_obj.bpf.c" -o "$tmp/xdp_obj.bpf.o" 2>"$tmp/clang.err"; then
		for mode in "" --checked --jit; do
			expect 0 "retval: 0x3 \(3\)" -- run $mode --packet "$tmp/pkt.bin" "$tmp/xdp_obj.bpf.o" swap_macs
			expect 0 "0000: 07 08 09 0a 0b 0c 01 02 03 04 05 06 08 00" -- \
				run $mode --packet "$tmp/pkt.bin" "$tmp/xdp_obj.bpf.o" swap_macs
		done
	else
		bad "clang could not build the XDP object: $(cat "$tmp/clang.err")"
	fi
fi

# errors
printf 'x' > "$tmp/short.bin"
expect 1 "shorter than an Ethernet header" -- run --packet "$tmp/short.bin" --type socket_filter "$tmp/len.s"
expect 2 "--packet needs a networking program type" -- run --packet "$tmp/pkt.bin" "$tmp/len.s"
expect 2 "--type: 'kprobe' has no packet" -- run --packet "$tmp/pkt.bin" --type kprobe "$tmp/len.s"
expect 2 "need --packet" -- run --type xdp "$tmp/len.s"
expect 2 "excludes --mem" -- run --packet "$tmp/pkt.bin" --mem "$tmp/pkt.bin" --type xdp "$tmp/len.s"
expect 1 "kbpf run: " -- run --packet "$tmp/nonexistent" --type xdp "$tmp/len.s"
# a program the verifier refuses: its message, one line (the log's newline made two)
printf 'r0 = *(u64 *)(r1 + 0)\nexit\n' >"$tmp/ctx8.s"
expect_error 1 "ctx8.s: invalid bpf_context access off=0 size=8$" -- run --packet "$tmp/pkt.bin" --type xdp "$tmp/ctx8.s"

finish
