/* SPDX-License-Identifier: Apache-2.0 */
/* .BTF.ext parsing (format: Linux's Documentation/bpf/btf.rst, "BTF.ext section").
 *
 * The input is untrusted (it comes straight out of an object file and is fuzzed), so
 * every length, offset, count and string reference is checked before use, all reads
 * go through memcpy (the section need not be aligned in memory), and the records are
 * copied into arrays of their known C struct so that nothing downstream ever looks at
 * the raw bytes again. Records larger than the known struct (a newer producer) are
 * accepted and their known prefix kept, as libbpf does. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf/btf_ext.h"

#define BTF_EXT_MAGIC 0xeB9F
#define BTF_EXT_VERSION 1
/* The header up to line_info_len is mandatory; core_relo_off/len were added later and
 * are present only when hdr_len covers them. */
#define BTF_EXT_HDR_MIN 24u
#define BTF_EXT_HDR_CORE 32u

/* The on-disk header (host byte order; byte-swapped files are refused). */
struct ext_hdr {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t func_info_off, func_info_len;
	uint32_t line_info_off, line_info_len;
	uint32_t core_relo_off, core_relo_len;
};

enum blk_kind { BLK_FUNC, BLK_LINE, BLK_CORE };

static const char *const blk_name[] = { "func_info", "line_info", "core_relo" };
static const uint32_t blk_min_rec[] = { sizeof(struct bpf_func_info), sizeof(struct bpf_line_info),
					sizeof(struct bpf_core_relo) };

/* Parsing state: the result being built plus a hash of section names -> index, so a
 * blob with many sections stays linear (the same ELF section appears once per block). */
struct parser {
	const uint8_t *data;
	size_t size;
	const struct btf *btf;
	uint32_t type_cnt;
	struct kbpf_btf_ext *ext;
	size_t cap_secs;
	uint32_t *slots; /* index + 1 into ext->secs, 0 = empty */
	size_t nr_slots; /* power of two */
	char *err;
	size_t err_size;
};

static int fail(struct parser *p, const char *fmt, ...)
{
	if (p->err && p->err_size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->err, p->err_size, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static uint32_t rd32(const uint8_t *at)
{
	uint32_t v;
	memcpy(&v, at, sizeof(v));
	return v;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static int grow_slots(struct parser *p)
{
	size_t n = p->nr_slots ? p->nr_slots * 2 : 16;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < p->ext->nr_secs; i++) {
		size_t h = name_hash(p->ext->secs[i].sec_name) & (n - 1);
		while (slots[h])
			h = (h + 1) & (n - 1);
		slots[h] = (uint32_t)i + 1;
	}
	free(p->slots);
	p->slots = slots;
	p->nr_slots = n;
	return 0;
}

/* The section named name, created empty if new (records of one ELF section may come
 * from all three blocks, and a producer may even split one block's records). */
static struct kbpf_btf_ext_sec *sec_get(struct parser *p, const char *name)
{
	struct kbpf_btf_ext *ext = p->ext;
	size_t h;

	/* keep the table at most half full */
	if ((ext->nr_secs + 1) * 2 > p->nr_slots && grow_slots(p))
		return NULL;
	for (h = name_hash(name) & (p->nr_slots - 1); p->slots[h]; h = (h + 1) & (p->nr_slots - 1)) {
		struct kbpf_btf_ext_sec *s = &ext->secs[p->slots[h] - 1];
		if (!strcmp(s->sec_name, name))
			return s;
	}
	if (ext->nr_secs == p->cap_secs) {
		size_t cap = p->cap_secs ? p->cap_secs * 2 : 4;
		struct kbpf_btf_ext_sec *secs = realloc(ext->secs, cap * sizeof(*secs));
		if (!secs)
			return NULL;
		ext->secs = secs;
		p->cap_secs = cap;
	}
	memset(&ext->secs[ext->nr_secs], 0, sizeof(ext->secs[0]));
	/* a copy: libbpf moves a BTF's strings when it is made writable */
	ext->secs[ext->nr_secs].sec_name = strdup(name);
	if (!ext->secs[ext->nr_secs].sec_name)
		return NULL;
	p->slots[h] = (uint32_t)++ext->nr_secs;
	return &ext->secs[ext->nr_secs - 1];
}

/* A string reference into the object's BTF string table, or NULL if out of range. */
static const char *btf_str(const struct parser *p, uint32_t off)
{
	return btf__str_by_offset(p->btf, off);
}

static int check_func_info(struct parser *p, const char *sec, uint32_t i, const struct bpf_func_info *fi)
{
	const struct btf_type *t;

	if (fi->type_id == 0 || fi->type_id >= p->type_cnt)
		return fail(p, "func_info of section '%s' record #%u: type_id %u is not in the BTF (%u types)", sec,
			    i, fi->type_id, p->type_cnt - 1);
	t = btf__type_by_id(p->btf, fi->type_id);
	if (!t || !btf_is_func(t))
		return fail(p, "func_info of section '%s' record #%u: type_id %u is not a FUNC", sec, i,
			    fi->type_id);
	return 0;
}

static int check_line_info(struct parser *p, const char *sec, uint32_t i, const struct bpf_line_info *li)
{
	if (!btf_str(p, li->file_name_off))
		return fail(p, "line_info of section '%s' record #%u: file_name_off %u is not in the BTF string table",
			    sec, i, li->file_name_off);
	if (!btf_str(p, li->line_off))
		return fail(p, "line_info of section '%s' record #%u: line_off %u is not in the BTF string table", sec,
			    i, li->line_off);
	return 0;
}

static int check_core_relo(struct parser *p, const char *sec, uint32_t i, const struct bpf_core_relo *r)
{
	/* type_id 0 (void) is left to CO-RE to judge: only range is structural */
	if (r->type_id >= p->type_cnt)
		return fail(p, "core_relo of section '%s' record #%u: type_id %u is not in the BTF (%u types)", sec, i,
			    r->type_id, p->type_cnt - 1);
	if (!btf_str(p, r->access_str_off))
		return fail(p, "core_relo of section '%s' record #%u: access_str_off %u is not in the BTF string table",
			    sec, i, r->access_str_off);
	return 0;
}

/* Append n records of rec_size bytes at src (already bounds-checked) to sec's array
 * for block kind, checking each one. */
static int add_records(struct parser *p, enum blk_kind kind, struct kbpf_btf_ext_sec *sec, const uint8_t *src,
		       uint32_t n, uint32_t rec_size)
{
	size_t known = blk_min_rec[kind];
	size_t *cnt = kind == BLK_FUNC ? &sec->nr_func_info : kind == BLK_LINE ? &sec->nr_line_info : &sec->nr_core_relo;
	void *old = kind == BLK_FUNC ? (void *)sec->func_info : kind == BLK_LINE ? (void *)sec->line_info
										 : (void *)sec->core_relo;
	/* cannot overflow: every record already fit in the input */
	uint8_t *grown = realloc(old, (*cnt + n) * known);

	if (!grown)
		return -ENOMEM;
	if (kind == BLK_FUNC)
		sec->func_info = (struct bpf_func_info *)grown;
	else if (kind == BLK_LINE)
		sec->line_info = (struct bpf_line_info *)grown;
	else
		sec->core_relo = (struct bpf_core_relo *)grown;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *dst = grown + (*cnt + i) * known;
		uint32_t insn_off;
		int ret;

		memcpy(dst, src + (size_t)i * rec_size, known);
		/* insn_off is the first field of all three records */
		memcpy(&insn_off, dst, sizeof(insn_off));
		if (insn_off % sizeof(struct bpf_insn))
			return fail(p, "%s of section '%s' record #%u: insn_off %u is not a multiple of 8",
				    blk_name[kind], sec->sec_name, i, insn_off);
		if (kind == BLK_FUNC)
			ret = check_func_info(p, sec->sec_name, i, (const struct bpf_func_info *)dst);
		else if (kind == BLK_LINE)
			ret = check_line_info(p, sec->sec_name, i, (const struct bpf_line_info *)dst);
		else
			ret = check_core_relo(p, sec->sec_name, i, (const struct bpf_core_relo *)dst);
		if (ret)
			return ret;
	}
	*cnt += n;
	return 0;
}

/* One block: u32 record size, then {u32 sec_name_off, u32 num_info, records[]}... */
static int parse_block(struct parser *p, enum blk_kind kind, uint32_t hdr_len, uint32_t off, uint32_t len)
{
	const char *what = blk_name[kind];
	const uint8_t *at;
	uint32_t rec_size, left;
	size_t nsec = 0;

	if (len == 0)
		return 0;
	if (off % 4)
		return fail(p, "%s_off %u is not aligned to 4 bytes", what, off);
	if ((uint64_t)hdr_len + off + len > p->size)
		return fail(p, "%s (off %u, len %u) is beyond the end of .BTF.ext (%zu bytes after the %u-byte header)",
			    what, off, len, p->size - hdr_len, hdr_len);
	if (len < sizeof(uint32_t))
		return fail(p, "%s_len %u leaves no room for the record size", what, len);
	at = p->data + hdr_len + off;
	rec_size = rd32(at);
	if (rec_size < blk_min_rec[kind] || rec_size % 4)
		return fail(p, "%s record size %u is invalid (at least %u, a multiple of 4)", what, rec_size,
			    blk_min_rec[kind]);
	at += 4;
	left = len - 4;
	if (!left)
		return fail(p, "%s has no records", what);

	while (left) {
		uint32_t name_off, num;
		const char *name;
		struct kbpf_btf_ext_sec *sec;
		uint64_t total;
		int ret;

		if (left < 8)
			return fail(p, "%s section header #%zu is truncated (%u bytes left, need 8)", what, nsec, left);
		name_off = rd32(at);
		num = rd32(at + 4);
		name = btf_str(p, name_off);
		if (!name)
			return fail(p, "%s section #%zu: sec_name_off %u is not in the BTF string table", what, nsec,
				    name_off);
		if (!name[0])
			return fail(p, "%s section #%zu: sec_name_off %u names the empty string", what, nsec, name_off);
		if (num == 0)
			return fail(p, "%s of section '%s': num_info is 0", what, name);
		total = 8 + (uint64_t)num * rec_size;
		if (total > left)
			return fail(p, "%s of section '%s': num_info %u records of %u bytes overrun the block (%u bytes left)",
				    what, name, num, rec_size, left - 8);
		sec = sec_get(p, name);
		if (!sec)
			return -ENOMEM;
		ret = add_records(p, kind, sec, at + 8, num, rec_size);
		if (ret)
			return ret;
		at += total;
		left -= (uint32_t)total;
		nsec++;
	}
	return 0;
}

static int parse_hdr(struct parser *p, struct ext_hdr *h)
{
	uint16_t magic;

	if (p->size < 8)
		return fail(p, "BTF.ext header not found: %zu bytes, the header needs at least %u", p->size,
			    BTF_EXT_HDR_MIN);
	memcpy(&magic, p->data, sizeof(magic));
	if (magic == __builtin_bswap16(BTF_EXT_MAGIC))
		return fail(p, "BTF.ext is in the other byte order, not supported");
	if (magic != BTF_EXT_MAGIC)
		return fail(p, "BTF.ext magic 0x%04x is not 0x%04x", magic, BTF_EXT_MAGIC);
	memset(h, 0, sizeof(*h));
	memcpy(h, p->data, 8);
	if (h->version != BTF_EXT_VERSION)
		return fail(p, "BTF.ext version %u is not supported (only %u)", h->version, BTF_EXT_VERSION);
	if (h->flags)
		return fail(p, "BTF.ext flags 0x%x are not supported (must be 0)", h->flags);
	if (h->hdr_len < BTF_EXT_HDR_MIN)
		return fail(p, "BTF.ext hdr_len %u is shorter than the %u-byte header", h->hdr_len, BTF_EXT_HDR_MIN);
	if (h->hdr_len > p->size)
		return fail(p, "BTF.ext hdr_len %u is beyond the end of .BTF.ext (%zu bytes)", h->hdr_len, p->size);
	/* A longer header (a newer producer) keeps its known prefix; the rest is ignored. */
	memcpy(h, p->data, h->hdr_len < sizeof(*h) ? h->hdr_len : sizeof(*h));
	if (h->hdr_len < BTF_EXT_HDR_CORE)
		h->core_relo_off = h->core_relo_len = 0;
	return 0;
}

int kbpf_btf_ext_parse(const void *data, size_t size, const struct btf *btf, struct kbpf_btf_ext **ext,
		       char *err, size_t err_size)
{
	struct parser p = { .data = data, .size = size, .btf = btf, .err = err, .err_size = err_size };
	struct ext_hdr h;
	int ret;

	if (err && err_size)
		err[0] = 0;
	if (!ext)
		return fail(&p, "no place for the result");
	*ext = NULL;
	if (!data && size)
		return fail(&p, "BTF.ext data is missing");
	if (!btf)
		return fail(&p, "BTF.ext needs the object's BTF for its strings, and there is none");
	ret = parse_hdr(&p, &h);
	if (ret)
		return ret;
	p.type_cnt = btf__type_cnt(btf);
	p.ext = calloc(1, sizeof(*p.ext));
	if (!p.ext)
		return -ENOMEM;
	ret = parse_block(&p, BLK_FUNC, h.hdr_len, h.func_info_off, h.func_info_len);
	if (!ret)
		ret = parse_block(&p, BLK_LINE, h.hdr_len, h.line_info_off, h.line_info_len);
	if (!ret)
		ret = parse_block(&p, BLK_CORE, h.hdr_len, h.core_relo_off, h.core_relo_len);
	free(p.slots);
	if (ret) {
		if (ret == -ENOMEM && err && err_size)
			snprintf(err, err_size, "out of memory parsing BTF.ext");
		kbpf_btf_ext_free(p.ext);
		return ret;
	}
	*ext = p.ext;
	return 0;
}

void kbpf_btf_ext_free(struct kbpf_btf_ext *ext)
{
	if (!ext)
		return;
	for (size_t i = 0; i < ext->nr_secs; i++) {
		free(ext->secs[i].func_info);
		free(ext->secs[i].line_info);
		free(ext->secs[i].core_relo);
		free((char *)ext->secs[i].sec_name);
	}
	free(ext->secs);
	free(ext);
}

const struct kbpf_btf_ext_sec *kbpf_btf_ext_find(const struct kbpf_btf_ext *ext, const char *sec_name)
{
	if (!ext || !sec_name)
		return NULL;
	for (size_t i = 0; i < ext->nr_secs; i++)
		if (!strcmp(ext->secs[i].sec_name, sec_name))
			return &ext->secs[i];
	return NULL;
}
