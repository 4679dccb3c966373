/* SPDX-License-Identifier: Apache-2.0 */
/* Skeleton-like access to an object's globals (objutil.h). */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include "objutil.h"

int ca_read_file(const char *path, void **buf, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n;
	void *b;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -EIO;
	}
	b = malloc(n ? (size_t)n : 1);
	if (!b) {
		fclose(f);
		return -ENOMEM;
	}
	if (fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*buf = b;
	*size = (size_t)n;
	return 0;
}

int ca_elf_set_global(void *buf, size_t size, const char *sym, const void *val, size_t len)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	int ret = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_memory(buf, size);
	if (!elf)
		return -EINVAL;
	while (ret == -ENOENT && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
			GElf_Sym s;
			GElf_Shdr target;
			const char *name;
			Elf_Scn *tscn;

			if (!gelf_getsym(data, (int)i, &s))
				break;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || strcmp(name, sym) || GELF_ST_TYPE(s.st_info) != STT_OBJECT)
				continue;
			if (len > s.st_size) {
				ret = -E2BIG;
				break;
			}
			tscn = elf_getscn(elf, s.st_shndx);
			if (!tscn || !gelf_getshdr(tscn, &target) || target.sh_type != SHT_PROGBITS ||
			    s.st_value + s.st_size > target.sh_size || target.sh_offset + target.sh_size > size) {
				ret = -EINVAL;
				break;
			}
			/* elf_memory works on buf itself: write the bytes in place */
			memset((char *)buf + target.sh_offset + s.st_value, 0, s.st_size);
			memcpy((char *)buf + target.sh_offset + s.st_value, val, len);
			ret = 0;
			break;
		}
	}
	elf_end(elf);
	return ret;
}

void *ca_object_global(struct kbpf_object *obj, const char *name, size_t *size)
{
	const struct btf *btf = kbpf_object_btf(obj);
	uint32_t n;

	if (!btf)
		return NULL;
	n = btf__type_cnt(btf);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_var_secinfo *vs;

		if (!btf_is_datasec(t))
			continue;
		vs = btf_var_secinfos(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++, vs++) {
			const struct btf_type *v = btf__type_by_id(btf, vs->type);
			struct kbpf_map *map;
			void *addr;

			if (!v || strcmp(btf__name_by_offset(btf, v->name_off), name))
				continue;
			map = kbpf_object_find_map(obj, btf__name_by_offset(btf, t->name_off));
			if (!map || kbpf_map_direct_value_addr(map, vs->offset, &addr))
				return NULL;
			if (size)
				*size = vs->size;
			return addr;
		}
	}
	return NULL;
}
