/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz object loading: whatever the bytes, kbpf_object_open_mem and kbpf_object_load
 * return 0 or a negative errno with a log line, never crash, never leak, and what they
 * leave behind can be listed and dumped the way `kbpf prog list|dump` and `kbpf map dump`
 * do (instructions with source lines and function declarations, maps with their
 * elements shown through libbpf's btf_dump, struct_ops descriptions). Nothing runs.
 *
 * The host has the map helpers, CONFIG_HZ and, when the build names it
 * (KBPF_FUZZ_HOST_BTF), the test host's BTF, so that kfunc externs and CO-RE
 * relocations are resolved against real types instead of failing early.
 *
 * Map sizes come from the input: the loader refuses maps beyond its limits
 * (docs/loader.md, "Limits"), and below them an allocation that fails must be a clean
 * -ENOMEM. So ASan returns NULL instead of aborting on allocations over 64 MiB
 * (__asan_default_options below): well under libFuzzer's -rss_limit_mb=2048, and
 * small enough that inputs asking for big maps stay fast. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <kbpf/kbpf.h>
#include "btf/btf_check.h"
#include "btf/func_compat.h"

/* Elements shown per map: a huge array would otherwise make every input slow. */
#define MAX_ELEMS 8

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:max_allocation_size_mb=64";
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

/* Format what btf_dump prints (so its arguments are used), then drop it. */
static void discard(void *ctx, const char *fmt, va_list args)
{
	char buf[256];
	(void)ctx;
	vsnprintf(buf, sizeof(buf), fmt, args);
}

static struct kbpf_host *host_get(void)
{
	static struct kbpf_host *host;

	if (host)
		return host;
	libbpf_set_print(silent);
	host = kbpf_host_new();
	if (!host || kbpf_host_add_map_helpers(host) || kbpf_host_kconfig_set(host, "CONFIG_HZ", 250))
		abort(); /* the harness itself is broken: not a finding */
#ifdef KBPF_FUZZ_HOST_BTF
	if (kbpf_host_btf_load_file(host, KBPF_FUZZ_HOST_BTF))
		abort();
#endif
	return host;
}

/* What `kbpf prog dump` prints for one program, into a scratch buffer. */
static void dump_program(const struct kbpf_object *obj, const struct kbpf_program *p)
{
	const struct btf *btf = kbpf_object_btf(obj);
	struct kbpf_disasm_opts dopts = { .sz = sizeof(dopts), .with_index = 1 };
	size_t cnt, nfi, nli;
	const struct bpf_insn *insns = kbpf_program_insns(p, &cnt);
	const struct bpf_func_info *fi = kbpf_program_func_info(p, &nfi);
	const struct bpf_line_info *li = kbpf_program_line_info(p, &nli);
	char buf[256];

	(void)kbpf_program_name(p);
	(void)kbpf_program_section_name(p);
	(void)kbpf_program_type(p);
	(void)kbpf_program_autoload(p);
	for (size_t k = 0; btf && li && k < nli; k++)
		snprintf(buf, sizeof(buf), "%s %s", btf__name_by_offset(btf, li[k].file_name_off) ?: "",
			 btf__name_by_offset(btf, li[k].line_off) ?: "");
	for (size_t k = 0; btf && fi && k < nfi; k++)
		kbpf_btf_func_decl(btf, fi[k].type_id, buf, sizeof(buf));
	for (size_t i = 0; insns && i < cnt;) {
		struct kbpf_source_line sl;
		if (!kbpf_program_source_line(p, i, &sl))
			snprintf(buf, sizeof(buf), "%s %s %u %u", sl.file, sl.text, sl.line, sl.col);
		int n = kbpf_insn_disasm(insns, cnt, i, &dopts, buf, sizeof(buf));
		i += n > 0 ? (size_t)n : 1;
	}
}

/* One key or value through btf_dump, as `kbpf map dump` shows it. */
static void dump_value(struct btf_dump *d, const struct btf *btf, uint32_t type_id, const void *data, size_t size)
{
	struct btf_dump_type_data_opts opts = { .sz = sizeof(opts), .compact = true, .emit_zeroes = true };
	const struct btf_type *t;
	long long tsz;

	if (!d || !type_id)
		return;
	t = btf__type_by_id(btf, type_id);
	if (t && btf_is_datasec(t)) {
		const struct btf_var_secinfo *v = btf_var_secinfos(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++, v++) {
			const struct btf_type *var = btf__type_by_id(btf, v->type);
			if (!var || !btf_is_var(var) || v->offset > size || v->size > size - v->offset)
				continue;
			tsz = btf__resolve_size(btf, var->type);
			if (tsz > 0 && (size_t)tsz <= v->size)
				btf_dump__dump_type_data(d, var->type, (const char *)data + v->offset, (size_t)tsz, &opts);
		}
		return;
	}
	tsz = btf__resolve_size(btf, type_id);
	if (tsz > 0 && (size_t)tsz <= size)
		btf_dump__dump_type_data(d, type_id, data, (size_t)tsz, &opts);
}

static void dump_map(const struct kbpf_object *obj, struct kbpf_map *m)
{
	const struct btf *btf = kbpf_object_btf(obj);
	uint32_t key_id = kbpf_object_map_btf_key_type_id(obj, m), val_id = kbpf_object_map_btf_value_type_id(obj, m);
	uint32_t type = kbpf_map_type(m), ks = kbpf_map_key_size(m), vs = kbpf_map_value_size(m);
	size_t host_vs = kbpf_map_host_value_size(m);
	struct btf_dump *d = NULL;
	char msg[256];
	int n = 0;

	(void)kbpf_map_name(m);
	(void)kbpf_map_flags(m);
	(void)kbpf_map_is_frozen(m);
	if (type == BPF_MAP_TYPE_RINGBUF) {
		(void)kbpf_ringbuf_query(m, BPF_RB_AVAIL_DATA);
		return;
	}
	if (type == BPF_MAP_TYPE_PROG_ARRAY) {
		for (uint32_t i = 0; i < kbpf_map_max_entries(m) && i < MAX_ELEMS; i++)
			(void)kbpf_prog_array_get(m, i);
		return;
	}
	/* btf_dump recurses through types: only on BTF it can print, as the CLI does */
	if (btf && (key_id || val_id) && (!key_id || !kbpf_btf_check_printable(btf, key_id, msg, sizeof(msg))) &&
	    (!val_id || !kbpf_btf_check_printable(btf, val_id, msg, sizeof(msg))))
		d = btf_dump__new(btf, discard, NULL, NULL);
	void *key = calloc(1, ks ? ks : 1), *next = calloc(1, ks ? ks : 1), *value = calloc(1, host_vs ? host_vs : 1);
	if (key && next && value) {
		size_t stride = (vs + 7) / 8 * 8;
		for (int ret = kbpf_map_get_next_key(m, NULL, next); !ret && n < MAX_ELEMS;
		     ret = kbpf_map_get_next_key(m, key, next), n++) {
			memcpy(key, next, ks);
			if (kbpf_map_lookup(m, key, value))
				continue;
			dump_value(d, btf, key_id, key, ks);
			if (host_vs == vs)
				dump_value(d, btf, val_id, value, vs);
			else
				for (size_t cpu = 0; stride && cpu < host_vs / stride && cpu < 2; cpu++)
					dump_value(d, btf, val_id, (char *)value + cpu * stride, vs);
		}
	}
	btf_dump__free(d);
	free(key);
	free(next);
	free(value);
}

static void dump_struct_ops(const struct kbpf_object *obj)
{
	const struct kbpf_struct_ops *so = NULL;
	char buf[256];

	while ((so = kbpf_object_next_struct_ops(obj, so))) {
		snprintf(buf, sizeof(buf), "%s %s %s %u %zu", so->name, so->sec_name, so->type_name, so->type_id,
			 so->data_size);
		for (size_t i = 0; i < so->nr_members; i++)
			snprintf(buf, sizeof(buf), "%s %u %s", so->members[i].name, so->members[i].offset,
				 so->members[i].prog ? kbpf_program_name(so->members[i].prog) : "-");
		if (so->data_size)
			buf[0] = ((const char *)so->data)[so->data_size - 1];
		(void)kbpf_object_find_struct_ops(obj, so->name);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char log[4096];
	struct kbpf_object_open_opts opts = {
		.sz = sizeof(opts), .trusted_unverified = 1, .host = host_get(), .log_buf = log, .log_size = sizeof(log),
	};
	struct kbpf_object *obj = NULL;
	struct kbpf_program *p = NULL;
	struct kbpf_map *m = NULL;
	int ret;

	log[0] = 0;
	ret = kbpf_object_open_mem(data, size, &opts, &obj);
	if (ret) {
		/* every refusal says why (but running out of memory copying the input) */
		if ((!log[0] && ret != -ENOMEM) || obj)
			abort();
		return 0;
	}
	(void)kbpf_object_name(obj);
	(void)kbpf_object_license(obj);
	dump_struct_ops(obj);
	/* as `kbpf prog list`, then load every program, '?' ones included, as `kbpf prog
	 * dump PROG` loads the one it names */
	while ((p = kbpf_object_next_program(obj, p))) {
		dump_program(obj, p);
		kbpf_program_set_autoload(p, true);
		if (kbpf_object_find_program(obj, kbpf_program_name(p)) == NULL)
			abort();
	}
	ret = kbpf_object_load(obj);
	if (ret && !kbpf_object_log(obj)[0])
		abort();
	/* after a failed load the linked instructions stay visible: dump them too */
	while ((p = kbpf_object_next_program(obj, p)))
		dump_program(obj, p);
	while ((m = kbpf_object_next_map(obj, m)))
		dump_map(obj, m);
	kbpf_object_close(obj);
	return 0;
}
