/* SPDX-License-Identifier: Apache-2.0 */
/* The application's functions, and the one place that exports them to BPF: the kfunc set
 * registered by kbpf_host_init. The application calls kbpf_host_init itself (host.c); the
 * same file built as a shared object lets `kbpf kfuncs --host` audit what it exports. */
#include <kbpf/kbpf.h>
#include "shop.h"

/* noinline: a kfunc needs an out-of-line copy, which is what the BTF describes */
__attribute__((noinline)) uint32_t shop_discount(uint32_t price_cents, uint8_t percent)
{
	return percent >= 100 ? 0 : price_cents - price_cents * percent / 100;
}

__attribute__((noinline)) uint64_t shop_ring_up(struct till *till, uint32_t price_cents)
{
	till->sales++;
	return till->total_cents += price_cents;
}

static const struct kbpf_kfunc shop_kfuncs[] = {
	KBPF_KFUNC(shop_discount, 0),
	KBPF_KFUNC(shop_ring_up, 0),
};

/* The programs the shop runs: SEC("checkout"), with the till as their context. Verified
 * against these rules; a program may read the till (not write it) and pass it on. */
static const struct kbpf_prog_type checkout_type = {
	.sz = sizeof(checkout_type),
	.name = "checkout",
	.ctx_size = sizeof(struct till),
	.ctx_btf_name = "till",
};

/* Registering SEC("checkout")'s program type is what gets the program verified at load:
 * kbpf does not load a program of no known type unless told it is trusted. */
int kbpf_host_init(struct kbpf_host *host)
{
	int ret = kbpf_host_prog_type_register(host, &checkout_type);
	if (ret)
		return ret;
	struct kbpf_kfunc_set_opts opts = {
		.sz = sizeof(opts),
		.name = "shop",
		.funcs = shop_kfuncs,
		.nr_funcs = sizeof(shop_kfuncs) / sizeof(shop_kfuncs[0]),
		.prog_types = (const char *const[]){ "checkout", NULL }, /* only these programs */
	};
	return kbpf_host_kfunc_set_register(host, &opts, NULL);
}
