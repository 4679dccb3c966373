/* SPDX-License-Identifier: Apache-2.0 */
/* Walking past BTF modifiers: the one helper the loader, the CO-RE code, the struct_ops
 * trampolines and the verifier's ld_imm64 checks share. */
#ifndef KBPF_BTF_MODS_H
#define KBPF_BTF_MODS_H

#include <stdint.h>
#include <bpf/btf.h>
#include <kbpf/btf.h>

/* kbpf_btf_skip_mods: <kbpf/btf.h> (public: the kbpf command uses it too). */

#endif
