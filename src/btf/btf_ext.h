/* SPDX-License-Identifier: Apache-2.0 */
/* .BTF.ext of an object: func_info, line_info and CO-RE relocation records, grouped by
 * the ELF section they describe (src/btf/btf_ext.c). The format is the one documented
 * in Linux's Documentation/bpf/btf.rst; records are copied out at their own size. */
#ifndef KBPF_SRC_BTF_BTF_EXT_H
#define KBPF_SRC_BTF_BTF_EXT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h> /* struct bpf_func_info, bpf_line_info, bpf_core_relo */

struct btf;

/* One ELF section's records. insn_off fields are BYTE offsets from the section start,
 * as stored in the file (divide by 8 for an instruction index). */
struct kbpf_btf_ext_sec {
	const char *sec_name; /* copied from the object's BTF string table; owned by ext */
	struct bpf_func_info *func_info;
	size_t nr_func_info;
	struct bpf_line_info *line_info;
	size_t nr_line_info;
	struct bpf_core_relo *core_relo;
	size_t nr_core_relo;
};

struct kbpf_btf_ext {
	struct kbpf_btf_ext_sec *secs;
	size_t nr_secs;
};

/* Parse raw .BTF.ext bytes (host byte order; any alignment). Strings (section names,
 * line_info file/line text, CO-RE access strings) are offsets into btf's string table
 * and are checked against it; func_info type ids must name FUNCs, CO-RE type ids must be
 * in range, every insn_off must be a multiple of 8. Records of one ELF section from all
 * three blocks land in one kbpf_btf_ext_sec, in file order. Records larger than the
 * known struct keep their known prefix. Returns 0, or -EINVAL with a message naming the
 * bad field in err, or -ENOMEM. */
int kbpf_btf_ext_parse(const void *data, size_t size, const struct btf *btf, struct kbpf_btf_ext **ext,
		       char *err, size_t err_size);
void kbpf_btf_ext_free(struct kbpf_btf_ext *ext);
/* The records of section sec_name, or NULL. */
const struct kbpf_btf_ext_sec *kbpf_btf_ext_find(const struct kbpf_btf_ext *ext, const char *sec_name);

#endif
