/* SPDX-License-Identifier: Apache-2.0 */
/* Bad objects: each a clear error naming what is wrong and where, never a crash or a
 * leak (this test also runs under ASan). Corruptions are made on the bytes of real
 * objects: truncation at every length, targeted edits of headers, symbols and
 * relocations, and a few thousand deterministic random byte flips. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <bpf/btf.h>
#include <gelf.h>
#include <libelf.h>
#include "test_object_util.h"

struct image {
	unsigned char *data;
	size_t size;
};

static struct image read_image(const char *name)
{
	struct image img = { 0 };
	FILE *f = fopen(bpf_obj(name), "rb");

	if (!f) {
		CHECK(!"cannot read the object");
		return img;
	}
	img.data = malloc(1 << 20);
	img.size = img.data ? fread(img.data, 1, 1 << 20, f) : 0;
	fclose(f);
	return img;
}

/* Open (and if load, load) a copy of data; returns the error, log in test_log. */
static int try_open(const void *data, size_t size, bool load)
{
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .log_buf = test_log, .log_size = sizeof(test_log) };
	struct kbpf_object *obj = NULL;
	int ret = kbpf_object_open_mem(data, size, &opts, &obj);

	if (!ret && load) {
		ret = kbpf_object_load(obj);
		snprintf(test_log, sizeof(test_log), "%s", kbpf_object_log(obj));
	}
	kbpf_object_close(obj);
	return ret;
}

/* Where section NAME's header and data are in the file. */
struct sec_loc {
	size_t idx;
	size_t hdr_off;
	size_t off, size;
	size_t entsize;
};

static bool find_sec(const struct image *img, const char *name, struct sec_loc *loc)
{
	Elf *elf = elf_memory((char *)img->data, img->size);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx;
	bool found = false;

	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx)) {
		if (elf)
			elf_end(elf);
		return false;
	}
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(n, name))
			continue;
		loc->idx = elf_ndxscn(scn);
		loc->hdr_off = eh.e_shoff + loc->idx * eh.e_shentsize;
		loc->off = sh.sh_offset;
		loc->size = sh.sh_size;
		loc->entsize = sh.sh_entsize;
		found = true;
	}
	elf_end(elf);
	return found;
}

static void expect_error(const struct image *img, bool load, int err, const char *msg)
{
	int ret = try_open(img->data, img->size, load);
	if (ret != err)
		fprintf(stderr, "expected %d, got %d: %s\n", err, ret, test_log);
	CHECK_EQ_U64(ret, err);
	CHECK_CONTAINS(test_log, msg);
}

static void test_truncated(void)
{
	struct image img = read_image("maps");

	CHECK_EQ_U64(try_open(img.data, img.size, true), 0);
	for (size_t len = 0; len < img.size; len += len < 512 ? 1 : 13) {
		int ret = try_open(img.data, len, false);
		CHECK(ret < 0);
		CHECK(test_log[0] != 0); /* every failure says why */
	}
	free(img.data);
}

static void test_targeted(void)
{
	struct image img = read_image("globals"), orig;
	struct sec_loc rel, sym, text, btf, ext;
	Elf64_Rel r;

	if (!img.data)
		return;
	orig.data = malloc(img.size);
	orig.size = img.size;
	memcpy(orig.data, img.data, img.size);
	elf_version(EV_CURRENT);
	CHECK(find_sec(&img, ".reltc", &rel) && find_sec(&img, ".symtab", &sym) && find_sec(&img, "tc", &text) &&
	      find_sec(&img, ".BTF", &btf) && find_sec(&img, ".BTF.ext", &ext));
#define RESET() memcpy(img.data, orig.data, img.size)

	/* a relocation past the end of its section */
	memcpy(&r, img.data + rel.off, sizeof(r));
	r.r_offset = text.size + 8;
	memcpy(img.data + rel.off, &r, sizeof(r));
	expect_error(&img, false, -EINVAL, "section 'tc': relocation #0: offset");
	RESET();
	/* ... misaligned */
	r.r_offset = 3;
	memcpy(img.data + rel.off, &r, sizeof(r));
	expect_error(&img, false, -EINVAL, "misaligned or outside the section");
	RESET();
	/* ... on an instruction that is not an ld_imm64 */
	memcpy(&r, img.data + rel.off, sizeof(r));
	r.r_offset += 16;
	memcpy(img.data + rel.off, &r, sizeof(r));
	expect_error(&img, false, -EINVAL, "is not ld_imm64");
	RESET();
	/* ... against a symbol that does not exist */
	memcpy(&r, img.data + rel.off, sizeof(r));
	r.r_info = ELF64_R_INFO(100000, ELF64_R_TYPE(r.r_info));
	memcpy(img.data + rel.off, &r, sizeof(r));
	expect_error(&img, false, -EINVAL, "bad symbol index 100000");
	RESET();
	/* ... of an unknown type */
	memcpy(&r, img.data + rel.off, sizeof(r));
	r.r_info = ELF64_R_INFO(ELF64_R_SYM(r.r_info), 77);
	memcpy(img.data + rel.off, &r, sizeof(r));
	expect_error(&img, false, -EINVAL, "unsupported type 77");
	RESET();

	/* the BTF's magic */
	img.data[btf.off] ^= 0xff;
	expect_error(&img, false, -EINVAL, "section .BTF: invalid BTF");
	RESET();
	/* .BTF.ext: a header length beyond the section */
	img.data[ext.off + 4] = 0xff;
	img.data[ext.off + 5] = 0xff;
	expect_error(&img, false, -EINVAL, "section .BTF.ext:");
	RESET();

	/* the machine */
	img.data[18] = 0x3e; /* EM_X86_64 */
	img.data[19] = 0;
	expect_error(&img, false, -EINVAL, "not a BPF object");
	RESET();
	/* a program section whose size is not whole instructions */
	{
		Elf64_Shdr sh;
		memcpy(&sh, img.data + text.hdr_off, sizeof(sh));
		sh.sh_size -= 3;
		memcpy(img.data + text.hdr_off, &sh, sizeof(sh));
		expect_error(&img, false, -EINVAL, "section 'tc': size");
		RESET();
		/* a section name outside the name table */
		memcpy(&sh, img.data + text.hdr_off, sizeof(sh));
		sh.sh_name = 0x7fffffff;
		memcpy(img.data + text.hdr_off, &sh, sizeof(sh));
		expect_error(&img, false, -EINVAL, "name offset");
		RESET();
	}
	/* function symbols: misaligned, or reaching past the section */
	for (size_t i = 1; i < sym.size / sizeof(Elf64_Sym); i++) {
		Elf64_Sym s;
		memcpy(&s, img.data + sym.off + i * sizeof(s), sizeof(s));
		if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx != text.idx)
			continue;
		Elf64_Sym bad = s;
		bad.st_size += 4;
		memcpy(img.data + sym.off + i * sizeof(s), &bad, sizeof(s));
		expect_error(&img, false, -EINVAL, "is misaligned or outside the section");
		RESET();
		bad = s;
		bad.st_size = 1ull << 62;
		memcpy(img.data + sym.off + i * sizeof(s), &bad, sizeof(s));
		expect_error(&img, false, -EINVAL, "is misaligned or outside the section");
		RESET();
		bad = s;
		bad.st_size -= 8; /* leaves an instruction without a function */
		memcpy(img.data + sym.off + i * sizeof(s), &bad, sizeof(s));
		expect_error(&img, false, -EINVAL, "section 'tc'");
		RESET();
		break;
	}
	/* function boundaries that split an ld_imm64: 'globals' keeps only the first half of
	 * its first instruction, 'sum_big' starts on the second */
	{
		size_t g = 0, sb = 0;
		for (size_t i = 1; i < sym.size / sizeof(Elf64_Sym); i++) {
			Elf64_Sym s;
			memcpy(&s, img.data + sym.off + i * sizeof(s), sizeof(s));
			if (ELF64_ST_TYPE(s.st_info) == STT_FUNC && s.st_shndx == text.idx && s.st_value == 0)
				g = i;
			else if (ELF64_ST_TYPE(s.st_info) == STT_FUNC && s.st_shndx == text.idx)
				sb = i;
		}
		CHECK(g && sb);
		if (g && sb) {
			Elf64_Sym a, b;
			memcpy(&a, img.data + sym.off + g * sizeof(a), sizeof(a));
			memcpy(&b, img.data + sym.off + sb * sizeof(b), sizeof(b));
			b.st_size += b.st_value - 8;
			b.st_value = 8;
			a.st_size = 8;
			memcpy(img.data + sym.off + g * sizeof(a), &a, sizeof(a));
			memcpy(img.data + sym.off + sb * sizeof(b), &b, sizeof(b));
			expect_error(&img, true, -EINVAL, "insn 0: ld_imm64 split by the end of function 'globals'");
			RESET();
		}
	}
	CHECK_EQ_U64(try_open(img.data, img.size, true), 0);
	free(orig.data);
	free(img.data);
#undef RESET
}

static void test_bad_definitions(void)
{
	struct image img = read_image("bad_map_field");
	expect_error(&img, false, -ENOTSUP, "map 'odd': unknown field 'frobnicate'");
	free(img.data);
	img = read_image("bad_inner_map");
	expect_error(&img, false, -ENOTSUP, "map 'outer.inner': multi-level inner maps not supported");
	free(img.data);
	img = read_image("unsupported_map");
	CHECK_EQ_U64(try_open(img.data, img.size, false), 0);
	expect_error(&img, true, -EOPNOTSUPP, "map 'devmap': cannot create it");
	CHECK_CONTAINS(test_log, "not implemented by kbpf");
	free(img.data);
}

/* The 32-bit field at field_off of the section header at hdr_off set to v. */
static void set_shdr_u32(struct image *img, size_t hdr_off, size_t field_off, uint32_t v)
{
	memcpy(img->data + hdr_off + field_off, &v, sizeof(v));
}

/* Fuzz finding (regressions/object/rel-info-section-0.o): a REL section whose sh_info
 * is 0 was taken for the relocations of code block 0 — section 0 was never given "no
 * code" — so debug relocations were applied to the first program section, or, in an
 * object without code, read through a NULL code table. Section 0 holds nothing: such
 * relocations are not ours, and the object opens and loads. */
static void test_rel_of_section_0(void)
{
	struct image img = read_image("globals");
	struct sec_loc rel;

	if (!img.data)
		return;
	elf_version(EV_CURRENT);
	CHECK(find_sec(&img, ".rel.debug_info", &rel));
	set_shdr_u32(&img, rel.hdr_off, offsetof(Elf64_Shdr, sh_info), 0);
	CHECK_EQ_U64(try_open(img.data, img.size, true), 0);
	free(img.data);
}

/* Map sizes come from the object: a definition beyond KBPF_OBJ_MAX_MAP_BYTES (1 GiB of
 * keys and values) is refused at load with -E2BIG naming the map, before anything is
 * allocated; at the limit's edge a map is still created. */
static void test_map_too_big(void)
{
	struct image img = read_image("legacy_maps");
	struct sec_loc maps;
	uint32_t def[5];

	if (!img.data)
		return;
	elf_version(EV_CURRENT);
	CHECK(find_sec(&img, "maps", &maps));
	memcpy(def, img.data + maps.off, sizeof(def)); /* legacy_counts: ARRAY of u64 */
	CHECK_EQ_U64(def[0], BPF_MAP_TYPE_ARRAY);
	def[3] = UINT32_MAX;
	memcpy(img.data + maps.off, def, sizeof(def));
	CHECK_EQ_U64(try_open(img.data, img.size, false), 0); /* open creates nothing */
	expect_error(&img, true, -E2BIG, "map 'legacy_counts': max_entries 4294967295 of key 4 and value 8 bytes");
	CHECK_CONTAINS(test_log, "over kbpf's limit of 1073741824 per map");
	/* the hash map's keys and element overhead count too: 2^27 entries of 8 + 8 + 64 bytes */
	memcpy(def, img.data + maps.off + maps.size / 2, sizeof(def));
	CHECK_EQ_U64(def[0], BPF_MAP_TYPE_HASH);
	def[3] = 1u << 27;
	memcpy(img.data + maps.off + maps.size / 2, def, sizeof(def));
	def[3] = 2;
	memcpy(img.data + maps.off, def, sizeof(def)); /* the array back to something small */
	def[0] = BPF_MAP_TYPE_ARRAY;
	def[2] = 8;
	memcpy(img.data + maps.off, def, sizeof(def));
	expect_error(&img, true, -E2BIG, "map 'legacy_hash'");
	/* 1 GiB exactly is allowed: 2^27 u64 values */
	def[3] = 1u << 27;
	memcpy(img.data + maps.off, def, sizeof(def));
	memcpy(def, img.data + maps.off + maps.size / 2, sizeof(def));
	def[3] = 4;
	memcpy(img.data + maps.off + maps.size / 2, def, sizeof(def));
	int ret = try_open(img.data, img.size, true);
	CHECK(ret == 0 || ret == -ENOMEM); /* address space only: the pages stay untouched */
	free(img.data);
}

/* The loader's BTF cycle check was quadratic in a struct's member count (each step
 * rescanned the members from the first): an object with a few structs of 65535 members
 * (what BTF's 16-bit vlen allows) took minutes to open. Now it is linear; this object
 * opens and loads in well under a second (the bound below leaves room for sanitizers
 * and a busy machine; the old code took over a minute here). */
static void test_btf_wide_structs(void)
{
	struct image img = read_image("globals");
	struct sec_loc btf_loc;
	struct btf *btf;
	char name[16];
	int t_int;

	if (!img.data)
		return;
	elf_version(EV_CURRENT);
	CHECK(find_sec(&img, ".BTF", &btf_loc));
	btf = btf__new(img.data + btf_loc.off, (uint32_t)btf_loc.size);
	CHECK(btf != NULL);
	if (!btf) {
		free(img.data);
		return;
	}
	t_int = btf__find_by_name_kind(btf, "int", BTF_KIND_INT);
	CHECK(t_int > 0);
	for (int s = 0; s < 8; s++) {
		int prev = t_int;
		snprintf(name, sizeof(name), "wide%d", s);
		/* members by value of the previous struct: the search goes through every one */
		if (s)
			prev = btf__find_by_name_kind(btf, "wide0", BTF_KIND_STRUCT);
		CHECK(btf__add_struct(btf, name, 65535 * 4) > 0);
		for (uint32_t m = 0; m < 65535; m++) {
			snprintf(name, sizeof(name), "m%u", m);
			if (btf__add_field(btf, name, m == 65534 ? prev : t_int, m * 32, 0)) {
				CHECK(!"btf__add_field");
				break;
			}
		}
	}
	uint32_t raw_size;
	const void *raw = btf__raw_data(btf, &raw_size);
	unsigned char *data = raw ? realloc(img.data, img.size + raw_size) : NULL;
	CHECK(data != NULL);
	if (data) {
		uint64_t off = img.size, size = raw_size;
		struct timespec t0, t1;

		img.data = data;
		memcpy(img.data + img.size, raw, raw_size);
		img.size += raw_size;
		memcpy(img.data + btf_loc.hdr_off + offsetof(Elf64_Shdr, sh_offset), &off, sizeof(off));
		memcpy(img.data + btf_loc.hdr_off + offsetof(Elf64_Shdr, sh_size), &size, sizeof(size));
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int ret = try_open(img.data, img.size, true);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (ret)
			fprintf(stderr, "wide structs: %d: %s\n", ret, test_log);
		CHECK_EQ_U64(ret, 0);
		double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		fprintf(stderr, "wide structs: opened and loaded in %.3f s\n", secs);
		CHECK(secs < 20);
	}
	btf__free(btf);
	free(img.data);
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Random byte flips anywhere: open must fail cleanly or succeed. Flips confined to the
 * code of a program section are also loaded (maps stay as defined: no huge maps). */
static void test_random_flips(void)
{
	static const char *const names[] = { "globals", "maps", "subprogs", "kconfig", "struct_ops", "legacy_maps" };
	int opened = 0, failed = 0;

	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		struct image img = read_image(names[n]);
		unsigned char *copy = malloc(img.size);
		struct sec_loc code;
		bool have_code = find_sec(&img, "tc", &code) || find_sec(&img, "socket", &code) ||
				 find_sec(&img, "xdp", &code) || find_sec(&img, "syscall", &code);

		for (int iter = 0; iter < 600; iter++) {
			bool code_only = have_code && iter % 3 == 0;
			memcpy(copy, img.data, img.size);
			int flips = 1 + (int)(rng() % 6);
			for (int f = 0; f < flips; f++) {
				size_t at = code_only ? code.off + rng() % code.size : rng() % img.size;
				copy[at] ^= (unsigned char)(1u << (rng() % 8));
			}
			int ret = try_open(copy, img.size, code_only);
			if (ret) {
				failed++;
				CHECK(test_log[0] != 0);
			} else {
				opened++;
			}
		}
		free(copy);
		free(img.data);
	}
	printf("random flips: %d opened, %d refused\n", opened, failed);
	CHECK(opened > 0 && failed > 0);
}

int main(void)
{
	SKIP_WITHOUT_OBJECTS();
	RUN(test_truncated);
	RUN(test_targeted);
	RUN(test_bad_definitions);
	RUN(test_rel_of_section_0);
	RUN(test_map_too_big);
	RUN(test_btf_wide_structs);
	RUN(test_random_flips);
	return test_summary();
}
