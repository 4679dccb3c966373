/* SPDX-License-Identifier: Apache-2.0 */
/* A map type kbpf cannot create (DEVMAP), used by one program only: `kbpf verify/run
 * FILE.o plain` leaves it out (autocreate off, as libbpf can), `redirect` still says why
 * it cannot load (tests/cli/object_prog.sh). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 4);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} devmap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

SEC("xdp")
int redirect(struct xdp_md *ctx)
{
	return bpf_redirect_map(&devmap, 0, 0);
}

SEC("socket")
int plain(struct __sk_buff *skb)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&counts, &k);

	if (v)
		*v += 1;
	return 3;
}

char LICENSE[] SEC("license") = "GPL";
