/* SPDX-License-Identifier: Apache-2.0 */
/* Walking past BTF modifiers: the one helper the loader, the CO-RE code, the struct_ops
 * trampolines and the verifier's ld_imm64 checks share. */
#ifndef KBPF_BTF_MODS_H
#define KBPF_BTF_MODS_H

#include <stdint.h>
#include <bpf/btf.h>

/* The type id names once const/volatile/restrict/typedef (and type tags) are skipped:
 * NULL for a bad id or a chain longer than any real BTF has (a loop in hostile BTF);
 * else the type, with its id in *res_id (if res_id). */
const struct btf_type *kbpf_btf_skip_mods(const struct btf *btf, uint32_t id, uint32_t *res_id);

#endif
