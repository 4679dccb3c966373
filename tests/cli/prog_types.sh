#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `kbpf verify` / `kbpf run` with hosts/linux's further program types: an lwt_xmit
# program run on a packet as BPF_PROG_TEST_RUN runs it (from the network header), lwt_in
# refusing a packet write with Linux's message, fentry/fexit attached to a host function
# with --attach (the context is its arguments; fexit also sees its return value), and
# the attach-type types named as libbpf's sections (cgroup/connect4, cgroup/connect6).
# usage: prog_types.sh KBPF_BINARY
set -u
kbpf=$1
source "$(dirname "$0")/lib.sh"

# a 20-byte IPv4 frame: lwt programs see the 6 bytes after the Ethernet header
printf '\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x08\x00\x45\x00\x00\x14\xaa\xbb' > "$tmp/pkt.bin"

# r0 = the first packet byte (0x45) after a bounds check, then 0x77 written over it
cat > "$tmp/pkt.s" <<'ASM'
r2 = *(u32 *)(r1 + 76)
r3 = *(u32 *)(r1 + 80)
r4 = r2
r4 += 1
r0 = 0
if r4 > r3 goto +3
r0 = *(u8 *)(r2 + 0)
r5 = 119
*(u8 *)(r2 + 0) = r5
exit
ASM
expect 0 "retval: 0x45 \(69\)" -- run --type lwt_xmit --packet "$tmp/pkt.bin" "$tmp/pkt.s"
expect 0 "08 00 77 00" -- run --type lwt_xmit --packet "$tmp/pkt.bin" "$tmp/pkt.s"
expect 0 "retval: 0x45 \(69\)" -- run --jit --type lwt_xmit --packet "$tmp/pkt.bin" "$tmp/pkt.s"
expect 1 "cannot write into packet" -- verify --type lwt_in "$tmp/pkt.s"
expect 0 "safe as lwt_xmit" -- verify --type lwt_xmit "$tmp/pkt.s"
expect 1 "invalid bpf_context access off=76 size=4" -- verify --type sk_lookup "$tmp/pkt.s"

# fentry/fexit on the host's tcp_slow_start(struct tcp_sock *tp, u32 acked) -> u32
cat > "$tmp/ret.s" <<'ASM'
r2 = *(u64 *)(r1 + 0)
r3 = *(u8 *)(r2 + 0)
r0 = *(u64 *)(r1 + 16)
r0 = 0
exit
ASM
expect 0 "arg0 has btf_id [0-9]+ type STRUCT 'tcp_sock'" -- verify --log-level 2 --type fexit --attach tcp_slow_start "$tmp/ret.s"
expect 1 "func 'tcp_slow_start' doesn't have 3-th argument" -- verify --type fentry --attach tcp_slow_start "$tmp/ret.s"
expect 1 "not a function of the host's BTF" -- verify --type fentry --attach no_such_function "$tmp/ret.s"
cat > "$tmp/write.s" <<'ASM'
r2 = *(u64 *)(r1 + 0)
r3 = 1
lock *(u64 *)(r2 + 0) += r3
r0 = 0
exit
ASM
expect 1 "only read is supported" -- verify --type fentry --attach tcp_slow_start "$tmp/write.s"

# one type per attach type
cat > "$tmp/addr.s" <<'ASM'
r2 = *(u32 *)(r1 + 4)
r0 = 1
exit
ASM
expect 0 "safe as cgroup/connect4" -- verify --type cgroup/connect4 "$tmp/addr.s"
expect 1 "invalid bpf_context access off=4 size=4" -- verify --type cgroup/connect6 "$tmp/addr.s"
printf 'r0 = 0\nexit\n' > "$tmp/ret0.s"
expect 1 "should have been in \[1, 1\]" -- verify --type cgroup/recvmsg4 "$tmp/ret0.s"
expect 0 "safe as cgroup/connect4" -- verify --type cgroup/connect4 "$tmp/ret0.s"
expect 0 "^cgroup/getsockopt$" -- verify --type help

# objects: the section names the type and the attach target (when clang is there)
if command -v clang >/dev/null 2>&1; then
	cat > "$tmp/obj.bpf.c" <<'C'
typedef unsigned int __u32;
typedef unsigned long long __u64;
#define SEC(n) __attribute__((section(n), used))
struct bpf_sock_addr { __u32 user_family, user_ip4; };
SEC("fentry/tcp_slow_start") int on_entry(__u64 *ctx) { return 0; }
SEC("fexit/tcp_slow_start") int on_exit(__u64 *ctx) { return 0; }
SEC("cgroup/connect4") int c4(struct bpf_sock_addr *ctx) { return ctx->user_ip4 == 0x0100007f; }
SEC("cgroup/connect6") int c6(struct bpf_sock_addr *ctx) { return ctx->user_ip4 == 0x0100007f; }
SEC("fentry/no_such_function") int nowhere(__u64 *ctx) { return 0; }
char _license[] SEC("license") = "GPL";
C
	if clang -O2 -target bpf -c "$tmp/obj.bpf.c" -o "$tmp/obj.bpf.o" 2>/dev/null; then
		expect 0 "on_entry: safe as fentry" -- verify "$tmp/obj.bpf.o" on_entry
		expect 0 "on_exit: safe as fexit" -- verify "$tmp/obj.bpf.o" on_exit
		expect 0 "c4: safe as cgroup/connect4" -- verify "$tmp/obj.bpf.o" c4
		expect 1 "c6: rejected as cgroup/connect6" -- verify "$tmp/obj.bpf.o" c6
		expect 1 "failed to find host BTF type ID of 'no_such_function'" -- verify "$tmp/obj.bpf.o" nowhere
	fi
fi

finish
