/* SPDX-License-Identifier: Apache-2.0 */
/* A program configured the libbpf way, through its globals: `kbpf run --set NAME=VALUE`
 * writes them (typed by BTF) and --show-globals prints them after the run
 * (tests/cli/globals.sh). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

enum mode { MODE_OFF, MODE_FAST = 2, MODE_SLOW = 5 };

struct limits {
	__u16 lo, hi;
	__s8 bias;
};

const volatile enum mode mode = MODE_OFF;
const volatile _Bool verbose;
const volatile char name[8] = "none";
const volatile struct limits limits = { 1, 2, -3 };
__u64 hits;
int last = -1;

SEC("socket")
int config(struct __sk_buff *skb)
{
	if (mode == MODE_OFF)
		return 0;
	hits += limits.hi - limits.lo;
	last = name[0] + (verbose ? 1000 : 0) + limits.bias;
	return mode;
}

char LICENSE[] SEC("license") = "GPL";
