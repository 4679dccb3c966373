/* SPDX-License-Identifier: Apache-2.0 */
/* The example application's own API: a shop with a till. Two of its functions are
 * exported to BPF programs as kfuncs (kfuncs.c). */
#ifndef KBPF_EXAMPLE_SHOP_H
#define KBPF_EXAMPLE_SHOP_H

#include <stdint.h>

struct till {
	uint64_t total_cents;
	uint32_t sales;
};

/* price after a discount of `percent` (0..100) */
uint32_t shop_discount(uint32_t price_cents, uint8_t percent);
/* ring up a sale; returns the till's new total */
uint64_t shop_ring_up(struct till *till, uint32_t price_cents);

#endif
