/* SPDX-License-Identifier: Apache-2.0 */
/* .BTF.ext parsing: a valid blob, each bad field with its message, truncations, and
 * random corruption (run under ASan in the sanitizer build). */
#include <errno.h>
#include <stdlib.h>
#include <bpf/btf.h>
#include "btf/btf_ext.h"
#include "test.h"

/* Layout of the blob built by make_blob() (hdr_len 32, then three blocks of 28 bytes):
 * func_info: rec 8,  ".text" x2; line_info: rec 16, ".text" x1; core_relo: rec 16, "tp/x" x1 */
enum {
	HDR_LEN = 4, FUNC_OFF = 8, FUNC_LEN = 12, LINE_OFF = 16, LINE_LEN = 20, CORE_OFF = 24, CORE_LEN = 28,
	F_REC = 32, F_NAME = 36, F_NUM = 40, F_INSN0 = 44, F_TYPE0 = 48, F_INSN1 = 52, F_TYPE1 = 56,
	L_REC = 60, L_NAME = 64, L_NUM = 68, L_INSN = 72, L_FILE = 76, L_LINE = 80, L_COL = 84,
	C_REC = 88, C_NAME = 92, C_NUM = 96, C_INSN = 100, C_TYPE = 104, C_ACCESS = 108, C_KIND = 112,
	BLOB_LEN = 116,
};

struct fixture {
	struct btf *btf;
	int int_id, func_id, struct_id;
	int s_text, s_tp, s_file, s_line, s_access;
};

static struct fixture fx;

static void fixture_init(void)
{
	fx.btf = btf__new_empty();
	fx.int_id = btf__add_int(fx.btf, "int", 4, BTF_INT_SIGNED);
	int proto = btf__add_func_proto(fx.btf, fx.int_id);
	fx.func_id = btf__add_func(fx.btf, "f", BTF_FUNC_GLOBAL, proto);
	fx.struct_id = btf__add_struct(fx.btf, "s", 4);
	btf__add_field(fx.btf, "a", fx.int_id, 0, 0);
	fx.s_text = btf__add_str(fx.btf, ".text");
	fx.s_tp = btf__add_str(fx.btf, "tp/x");
	fx.s_file = btf__add_str(fx.btf, "/src/prog.c");
	fx.s_line = btf__add_str(fx.btf, "int f(void) { return 0; }");
	fx.s_access = btf__add_str(fx.btf, "0:0");
}

static void put32(uint8_t *b, size_t at, uint32_t v)
{
	memcpy(b + at, &v, 4);
}

static void make_blob(uint8_t *b)
{
	uint16_t magic = 0xeB9F;

	memset(b, 0, BLOB_LEN);
	memcpy(b, &magic, 2);
	b[2] = 1; /* version */
	put32(b, HDR_LEN, 32);
	put32(b, FUNC_OFF, 0), put32(b, FUNC_LEN, 28);
	put32(b, LINE_OFF, 28), put32(b, LINE_LEN, 28);
	put32(b, CORE_OFF, 56), put32(b, CORE_LEN, 28);
	put32(b, F_REC, 8), put32(b, F_NAME, fx.s_text), put32(b, F_NUM, 2);
	put32(b, F_INSN0, 0), put32(b, F_TYPE0, fx.func_id), put32(b, F_INSN1, 16), put32(b, F_TYPE1, fx.func_id);
	put32(b, L_REC, 16), put32(b, L_NAME, fx.s_text), put32(b, L_NUM, 1);
	put32(b, L_INSN, 8), put32(b, L_FILE, fx.s_file), put32(b, L_LINE, fx.s_line), put32(b, L_COL, 3 << 10 | 5);
	put32(b, C_REC, 16), put32(b, C_NAME, fx.s_tp), put32(b, C_NUM, 1);
	put32(b, C_INSN, 24), put32(b, C_TYPE, fx.struct_id), put32(b, C_ACCESS, fx.s_access);
	put32(b, C_KIND, BPF_CORE_FIELD_BYTE_OFFSET);
}

static int parse(const uint8_t *b, size_t len, struct kbpf_btf_ext **ext, char *err)
{
	return kbpf_btf_ext_parse(b, len, fx.btf, ext, err, 256);
}

static void test_valid(void)
{
	uint8_t b[BLOB_LEN];
	struct kbpf_btf_ext *ext = NULL;
	char err[256] = "x";
	const struct kbpf_btf_ext_sec *s;

	make_blob(b);
	CHECK_EQ_U64(parse(b, sizeof(b), &ext, err), 0);
	CHECK_STR(err, "");
	CHECK(ext != NULL);
	if (!ext)
		return;
	CHECK_EQ_U64(ext->nr_secs, 2);
	s = kbpf_btf_ext_find(ext, ".text");
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_U64(s->nr_func_info, 2);
		CHECK_EQ_U64(s->func_info[1].insn_off, 16);
		CHECK_EQ_U64(s->func_info[1].type_id, fx.func_id);
		CHECK_EQ_U64(s->nr_line_info, 1);
		CHECK_EQ_U64(s->line_info[0].insn_off, 8);
		CHECK_STR(btf__str_by_offset(fx.btf, s->line_info[0].line_off), "int f(void) { return 0; }");
		CHECK_EQ_U64(BPF_LINE_INFO_LINE_NUM(s->line_info[0].line_col), 3);
		CHECK_EQ_U64(BPF_LINE_INFO_LINE_COL(s->line_info[0].line_col), 5);
		CHECK_EQ_U64(s->nr_core_relo, 0);
	}
	s = kbpf_btf_ext_find(ext, "tp/x");
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_U64(s->nr_core_relo, 1);
		CHECK_EQ_U64(s->core_relo[0].insn_off, 24);
		CHECK_EQ_U64(s->core_relo[0].type_id, fx.struct_id);
		CHECK_STR(btf__str_by_offset(fx.btf, s->core_relo[0].access_str_off), "0:0");
		CHECK_EQ_U64(s->nr_func_info, 0);
	}
	CHECK(kbpf_btf_ext_find(ext, "nope") == NULL);
	CHECK(kbpf_btf_ext_find(NULL, ".text") == NULL);
	kbpf_btf_ext_free(ext);
	kbpf_btf_ext_free(NULL);

	/* a 24-byte header (before CO-RE existed): core_relo_* are not read */
	make_blob(b);
	put32(b, HDR_LEN, 24);
	/* blocks are relative to the header's end: shift them down by 8 */
	memmove(b + 24, b + 32, BLOB_LEN - 32);
	CHECK_EQ_U64(parse(b, BLOB_LEN - 8 - 28, &ext, err), 0);
	CHECK_EQ_U64(ext ? ext->nr_secs : 0, 1);
	kbpf_btf_ext_free(ext);

	/* empty blocks are fine */
	make_blob(b);
	put32(b, FUNC_LEN, 0), put32(b, LINE_LEN, 0), put32(b, CORE_LEN, 0);
	CHECK_EQ_U64(parse(b, 32, &ext, err), 0);
	CHECK_EQ_U64(ext ? ext->nr_secs : 1, 0);
	kbpf_btf_ext_free(ext);
}

/* Larger records and a longer header (a newer producer): known prefixes are kept. */
static void test_larger_records(void)
{
	uint8_t b[256] = { 0 };
	uint16_t magic = 0xeB9F;
	struct kbpf_btf_ext *ext = NULL;
	char err[256];
	size_t at = 40;

	memcpy(b, &magic, 2);
	b[2] = 1;
	put32(b, HDR_LEN, 40); /* 8 unknown header bytes, zero */
	put32(b, FUNC_OFF, 0), put32(b, FUNC_LEN, 4 + 8 + 2 * 12);
	put32(b, at, 12), at += 4;
	put32(b, at, fx.s_text), put32(b, at + 4, 2), at += 8;
	put32(b, at, 0), put32(b, at + 4, fx.func_id), put32(b, at + 8, 0xdeadbeef), at += 12;
	put32(b, at, 32), put32(b, at + 4, fx.func_id), put32(b, at + 8, 0xdeadbeef), at += 12;
	CHECK_EQ_U64(parse(b, at, &ext, err), 0);
	if (ext) {
		const struct kbpf_btf_ext_sec *s = kbpf_btf_ext_find(ext, ".text");
		CHECK(s && s->nr_func_info == 2 && s->func_info[1].insn_off == 32 &&
		      s->func_info[1].type_id == (uint32_t)fx.func_id);
	}
	kbpf_btf_ext_free(ext);
}

/* The same ELF section in two groups of one block: records are appended in order. */
static void test_merge(void)
{
	uint8_t b[256] = { 0 };
	uint16_t magic = 0xeB9F;
	struct kbpf_btf_ext *ext = NULL;
	char err[256];
	size_t at = 32;

	memcpy(b, &magic, 2);
	b[2] = 1;
	put32(b, HDR_LEN, 32);
	put32(b, FUNC_OFF, 0), put32(b, FUNC_LEN, 4 + 3 * (8 + 8));
	put32(b, at, 8), at += 4;
	for (int i = 0; i < 3; i++) {
		put32(b, at, i == 1 ? fx.s_tp : fx.s_text), put32(b, at + 4, 1);
		put32(b, at + 8, 8 * i), put32(b, at + 12, fx.func_id);
		at += 16;
	}
	CHECK_EQ_U64(parse(b, at, &ext, err), 0);
	if (ext) {
		const struct kbpf_btf_ext_sec *s = kbpf_btf_ext_find(ext, ".text");
		CHECK_EQ_U64(ext->nr_secs, 2);
		CHECK(s && s->nr_func_info == 2 && s->func_info[0].insn_off == 0 && s->func_info[1].insn_off == 16);
	}
	kbpf_btf_ext_free(ext);
}

/* Set field at to v, parse, expect -EINVAL with msg in the error text. */
static void expect_bad(size_t at, uint32_t v, size_t len, const char *msg)
{
	uint8_t b[BLOB_LEN];
	struct kbpf_btf_ext *ext = (void *)1;
	char err[256] = "";
	int ret;

	make_blob(b);
	if (at != (size_t)-1)
		put32(b, at, v);
	ret = parse(b, len, &ext, err);
	if (ret != -EINVAL || ext != NULL || !strstr(err, msg)) {
		fprintf(stderr, "field @%zu = %u: got %d \"%s\", want \"%s\"\n", at, v, ret, err, msg);
		test_failed_now = 1;
	}
}

static void test_bad_header(void)
{
	uint8_t b[BLOB_LEN];
	struct kbpf_btf_ext *ext = (void *)1;
	char err[256];

	make_blob(b);
	CHECK_EQ_U64(parse(b, 7, &ext, err), (uint64_t)-EINVAL);
	CHECK_CONTAINS(err, "BTF.ext header not found");
	CHECK(ext == NULL);
	CHECK_EQ_U64(parse(NULL, 0, &ext, err), (uint64_t)-EINVAL);
	CHECK_CONTAINS(err, "header not found");
	CHECK_EQ_U64(kbpf_btf_ext_parse(b, sizeof(b), NULL, &ext, err, sizeof(err)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(err, "needs the object's BTF");
	CHECK_EQ_U64(kbpf_btf_ext_parse(b, sizeof(b), fx.btf, NULL, err, sizeof(err)), (uint64_t)-EINVAL);
	/* NULL error buffer is fine */
	CHECK_EQ_U64(kbpf_btf_ext_parse(b, 3, fx.btf, &ext, NULL, 0), (uint64_t)-EINVAL);

	b[0] = 0xeb, b[1] = 0x9f; /* big-endian magic */
	CHECK_EQ_U64(parse(b, sizeof(b), &ext, err), (uint64_t)-EINVAL);
	CHECK_STR(err, "BTF.ext is in the other byte order, not supported");

	expect_bad(0, 0x1234, BLOB_LEN, "magic 0x1234 is not 0xeb9f");
	make_blob(b);
	b[2] = 2;
	CHECK_EQ_U64(parse(b, sizeof(b), &ext, err), (uint64_t)-EINVAL);
	CHECK_CONTAINS(err, "version 2 is not supported");
	make_blob(b);
	b[3] = 0x80;
	CHECK_EQ_U64(parse(b, sizeof(b), &ext, err), (uint64_t)-EINVAL);
	CHECK_CONTAINS(err, "flags 0x80 are not supported");
	expect_bad(HDR_LEN, 20, BLOB_LEN, "hdr_len 20 is shorter than the 24-byte header");
	expect_bad(HDR_LEN, 1000, BLOB_LEN, "hdr_len 1000 is beyond the end of .BTF.ext (116 bytes)");
	expect_bad(HDR_LEN, 0xffffffff, BLOB_LEN, "hdr_len 4294967295 is beyond");
}

static void test_bad_blocks(void)
{
	expect_bad(FUNC_OFF, 2, BLOB_LEN, "func_info_off 2 is not aligned to 4 bytes");
	expect_bad(LINE_OFF, 1, BLOB_LEN, "line_info_off 1 is not aligned");
	expect_bad(CORE_OFF, 0xfffffffc, BLOB_LEN, "core_relo (off 4294967292, len 28) is beyond the end");
	expect_bad(CORE_LEN, 0xffffffff, BLOB_LEN, "core_relo (off 56, len 4294967295) is beyond the end");
	expect_bad(FUNC_LEN, 2, BLOB_LEN, "func_info_len 2 leaves no room for the record size");
	expect_bad(FUNC_LEN, 4, BLOB_LEN, "func_info has no records");
	expect_bad(F_REC, 4, BLOB_LEN, "func_info record size 4 is invalid (at least 8");
	expect_bad(L_REC, 18, BLOB_LEN, "line_info record size 18 is invalid");
	expect_bad(C_REC, 12, BLOB_LEN, "core_relo record size 12 is invalid (at least 16");
	expect_bad(C_REC, 0xfffffffc, BLOB_LEN, "core_relo of section 'tp/x': num_info 1 records of 4294967292 bytes overrun");
	expect_bad(FUNC_LEN, 32, BLOB_LEN, "func_info section header #1 is truncated (4 bytes left, need 8)");
	expect_bad(F_NAME, 0x7fffffff, BLOB_LEN, "func_info section #0: sec_name_off 2147483647 is not in the BTF string table");
	expect_bad(L_NAME, 0, BLOB_LEN, "line_info section #0: sec_name_off 0 names the empty string");
	expect_bad(C_NUM, 0, BLOB_LEN, "core_relo of section 'tp/x': num_info is 0");
	expect_bad(F_NUM, 3, BLOB_LEN, "func_info of section '.text': num_info 3 records of 8 bytes overrun the block (16 bytes left)");
	expect_bad(F_NUM, 0x20000000, BLOB_LEN, "num_info 536870912 records of 8 bytes overrun");
}

static void test_bad_records(void)
{
	expect_bad(F_INSN1, 12, BLOB_LEN, "func_info of section '.text' record #1: insn_off 12 is not a multiple of 8");
	expect_bad(L_INSN, 1, BLOB_LEN, "line_info of section '.text' record #0: insn_off 1 is not a multiple of 8");
	expect_bad(C_INSN, 4, BLOB_LEN, "core_relo of section 'tp/x' record #0: insn_off 4 is not a multiple of 8");
	expect_bad(F_TYPE0, fx.int_id, BLOB_LEN, "func_info of section '.text' record #0: type_id 1 is not a FUNC");
	expect_bad(F_TYPE0, 0, BLOB_LEN, "record #0: type_id 0 is not in the BTF");
	expect_bad(F_TYPE1, 999, BLOB_LEN, "record #1: type_id 999 is not in the BTF (4 types)");
	expect_bad(L_FILE, 99999, BLOB_LEN, "line_info of section '.text' record #0: file_name_off 99999 is not in the BTF string table");
	expect_bad(L_LINE, 99999, BLOB_LEN, "record #0: line_off 99999 is not in the BTF string table");
	expect_bad(C_TYPE, 5, BLOB_LEN, "core_relo of section 'tp/x' record #0: type_id 5 is not in the BTF (4 types)");
	expect_bad(C_ACCESS, 0x10000, BLOB_LEN, "access_str_off 65536 is not in the BTF string table");
}

/* Every prefix of a valid blob: an error (or success when whole), never a crash. */
static void test_truncations(void)
{
	uint8_t full[BLOB_LEN];

	make_blob(full);
	for (size_t len = 0; len <= BLOB_LEN; len++) {
		uint8_t *b = malloc(len ? len : 1); /* exact size: ASan sees any overread */
		struct kbpf_btf_ext *ext = NULL;
		char err[256] = "";
		int ret;

		memcpy(b, full, len);
		ret = parse(b, len, &ext, err);
		if (len == BLOB_LEN)
			CHECK_EQ_U64(ret, 0);
		else if (ret != -EINVAL || !err[0]) {
			fprintf(stderr, "prefix %zu: %d \"%s\"\n", len, ret, err);
			test_failed_now = 1;
		}
		kbpf_btf_ext_free(ext);
		free(b);
	}
}

/* Random corruption of the valid blob, and pure noise: no crash, no leak, and every
 * failure says something. */
static void test_garbage(void)
{
	uint8_t full[BLOB_LEN];
	unsigned seed = 12345;

	make_blob(full);
	for (int iter = 0; iter < 20000; iter++) {
		size_t len = iter % 2 ? BLOB_LEN : (size_t)(rand_r(&seed) % (BLOB_LEN + 1));
		uint8_t *b = malloc(len ? len : 1);
		struct kbpf_btf_ext *ext = NULL;
		char err[256] = "";
		int flips = 1 + rand_r(&seed) % 4;

		memcpy(b, full, len);
		for (int f = 0; f < flips && len; f++) {
			size_t at = (size_t)rand_r(&seed) % len;
			if (iter % 3 == 0)
				b[at] = (uint8_t)rand_r(&seed);
			else
				b[at] ^= (uint8_t)(1u << (rand_r(&seed) % 8));
		}
		if (iter % 97 == 0)
			for (size_t i = 8; i < len; i++)
				b[i] = (uint8_t)rand_r(&seed);
		int ret = parse(b, len, &ext, err);
		if (ret) {
			CHECK(ret == -EINVAL && err[0] && !ext);
		} else {
			CHECK(ext != NULL);
		}
		kbpf_btf_ext_free(ext);
		free(b);
	}
}

int main(void)
{
	fixture_init();
	RUN(test_valid);
	RUN(test_larger_records);
	RUN(test_merge);
	RUN(test_bad_header);
	RUN(test_bad_blocks);
	RUN(test_bad_records);
	RUN(test_truncations);
	RUN(test_garbage);
	btf__free(fx.btf);
	return test_summary();
}
