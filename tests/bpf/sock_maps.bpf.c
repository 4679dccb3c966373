// SPDX-License-Identifier: Apache-2.0
/* The socket maps as libbpf's examples declare them, and programs that use them: tc
 * looks a socket up in a sockmap and releases it, xdp reads an xdp socket's queue, an
 * sk_reuseport program selects from a reuseport array by the flow hash and falls back to
 * a sockhash, another reads the packet. kbpf's CLI has no sockets to put in them: `kbpf map dump` shows them empty,
 * `kbpf run` finds nothing. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} sock_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKHASH);
	__uint(max_entries, 4);
	__uint(key_size, 8);
	__uint(value_size, 8);
} sock_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 2);
	__uint(key_size, 4);
	__uint(value_size, 4);
} xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_REUSEPORT_SOCKARRAY);
	__uint(max_entries, 8);
	__uint(key_size, 4);
	__uint(value_size, 8);
} reuse SEC(".maps");

SEC("tc")
int sock_type(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct bpf_sock *sk = bpf_map_lookup_elem(&sock_map, &key);
	int type;

	if (!sk)
		return 7; /* no socket there */
	type = sk->type;
	bpf_sk_release(sk);
	return type;
}

SEC("xdp")
int xsk_queue(struct xdp_md *ctx)
{
	__u32 key = 0;
	struct bpf_xdp_sock *xs = bpf_map_lookup_elem(&xsks, &key);

	return xs ? xs->queue_id : XDP_PASS;
}

SEC("sk_reuseport")
int select_sock(struct sk_reuseport_md *md)
{
	__u32 key = md->hash % 8;
	__u64 hkey = md->hash;

	if (!bpf_sk_select_reuseport(md, &reuse, &key, 0))
		return SK_PASS;
	return bpf_sk_select_reuseport(md, &sock_hash, &hkey, 0) ? SK_DROP : SK_PASS;
}

/* The destination port read directly and with bpf_skb_load_bytes; md->len if both agree,
 * else 0 (a verdict other than SK_PASS: the connection is refused). */
SEC("sk_reuseport")
int l4_len(struct sk_reuseport_md *md)
{
	__u8 *data = md->data, *end = md->data_end;
	__u8 port[2];

	if (data + 4 > end || bpf_skb_load_bytes(md, 2, port, 2))
		return 0;
	return port[0] == data[2] && port[1] == data[3] && data[3] == 0x50 ? md->len : 0;
}

char LICENSE[] SEC("license") = "GPL";
