/* SPDX-License-Identifier: Apache-2.0 */
/* A BPF program calling the application's functions: the price of a 20.00 item with 25%
 * off is rung up on the till the application passes as the context. */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

/* the application's struct (shop.h); only pointed to here, but libbpf's prototype check
 * wants a struct, not a forward declaration */
struct till {
	__u64 total_cents;
	__u32 sales;
};

extern __u32 shop_discount(__u32 price_cents, __u8 percent) __ksym;
extern __u64 shop_ring_up(struct till *till, __u32 price_cents) __ksym;

/* configuration, set before load (`kbpf run --set discount_percent=50`, or the
 * skeleton's skel->rodata->discount_percent), and a result read after the run
 * (`kbpf run --show-globals`, skel->bss->last_total) */
const volatile __u8 discount_percent = 25;
__u64 last_total;

SEC("checkout")
int sell(struct till *till)
{
	__u32 price = shop_discount(2000, discount_percent); /* 1500 */

	last_total = shop_ring_up(till, price);              /* 1000 + 1500 */
	return last_total;
}

char LICENSE[] SEC("license") = "GPL";
