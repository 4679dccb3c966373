// SPDX-License-Identifier: Apache-2.0
/* Programs a user might write by mistake; each must be refused by `kbpf verify` with
 * Linux's message (tests/cli/verify.sh). All are "?socket": not loaded by default. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* a hash lookup may miss whatever the key (an array lookup with a constant in-range key
 * cannot, and newer kernels than 6.1 use that) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

/* reads 8 bytes past the end of an 8-byte value */
SEC("?socket")
int oob_map_value(void *ctx)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&counters, &key);

	if (!v)
		return 0;
	return (int)v[1];
}

/* forgets the NULL check after a lookup */
SEC("?socket")
int null_deref(void *ctx)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&table, &key);

	return (int)*v;
}

/* reads a stack slot that was never written: refused without CAP_PERFMON (Linux 6.1
 * lets privileged programs read uninitialised stack) */
SEC("?socket")
int uninit_stack(void *ctx)
{
	__u64 slot;

	return (int)*(volatile __u64 *)&slot;
}

/* reserves a ring buffer record and never submits or discards it */
SEC("?socket")
int leaked_ref(void *ctx)
{
	__u64 *rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);

	if (!rec)
		return 0;
	*rec = 1;
	return 1;
}

/* the correct version of the above: accepted */
SEC("socket")
int safe(void *ctx)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&counters, &key);
	__u64 *rec;

	if (!v)
		return 0;
	rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);
	if (!rec)
		return 0;
	*rec = *v;
	bpf_ringbuf_submit(rec, 0);
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
