/* SPDX-License-Identifier: Apache-2.0 */
/* The object API on our own clang-compiled programs (tests/bpf): programs and sections,
 * program types, autoload, subprogram linking, line info, global data, kconfig, weak
 * kfuncs, struct_ops descriptions, subprogram addresses, open from memory, bad calls. */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include "test_object_util.h"

/* A program whose section names no program type on the host is not verified, so it
 * does not load unless the opener says the object is trusted (issue 16, class 8:
 * SEC("whatever") used to load unverified and run). Turning its autoload off loads the
 * rest. */
static void test_unverified_refused(void)
{
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .log_buf = test_log, .log_size = sizeof(test_log) };
	struct kbpf_object *obj = NULL;

	CHECK_EQ_U64(kbpf_object_open_file(bpf_obj("subprogs"), &opts, &obj), 0);
	if (!obj)
		return;
	CHECK_EQ_U64(kbpf_object_load(obj), (uint64_t)-EPERM);
	CHECK_CONTAINS(kbpf_object_log(obj), "has no program type on this host: not verified, so not loaded");
	CHECK(kbpf_program_prog(kbpf_object_find_program(obj, "unknown_type")) == NULL);
	kbpf_object_close(obj);

	/* opted in: the same object loads, the program runs */
	opts.trusted_unverified = 1;
	CHECK_EQ_U64(kbpf_object_open_file(bpf_obj("subprogs"), &opts, &obj), 0);
	if (!obj)
		return;
	CHECK_EQ_U64(kbpf_object_load(obj), 0);
	CHECK(kbpf_program_prog(kbpf_object_find_program(obj, "unknown_type")) != NULL);
	kbpf_object_close(obj);
}

static void test_programs_listing(void)
{
	struct kbpf_host *host = test_host_new();
	struct kbpf_object *obj = open_obj("subprogs", host);
	static const struct {
		const char *name, *sec;
		uint32_t type;
		bool autoload;
		size_t insns;
	} want[] = {
		{ "calls_static", "tc", BPF_PROG_TYPE_SCHED_CLS, true, 4 },
		{ "calls_global", "tc", BPF_PROG_TYPE_SCHED_CLS, true, 4 },
		{ "calls_nested", "xdp", BPF_PROG_TYPE_XDP, true, 8 },
		{ "not_autoloaded", "?socket", BPF_PROG_TYPE_SOCKET_FILTER, false, 2 },
		{ "probe", "kprobe/do_sys_open", BPF_PROG_TYPE_KPROBE, true, 8 },
		{ "unknown_type", "my_custom_section", BPF_PROG_TYPE_UNSPEC, true, 2 },
	};
	struct kbpf_program *p = NULL;
	size_t i = 0, cnt;

	if (!obj)
		goto out;
	CHECK_STR(kbpf_object_name(obj), "subprogs");
	CHECK_STR(kbpf_object_license(obj), "Dual BSD/GPL");
	CHECK(kbpf_object_btf(obj) != NULL);
	CHECK(kbpf_object_host(obj) == host);
	while ((p = kbpf_object_next_program(obj, p))) {
		if (i >= sizeof(want) / sizeof(want[0])) {
			CHECK(!"more programs than expected");
			break;
		}
		CHECK_STR(kbpf_program_name(p), want[i].name);
		CHECK_STR(kbpf_program_section_name(p), want[i].sec);
		CHECK_EQ_U64(kbpf_program_type(p), want[i].type);
		CHECK_EQ_U64(kbpf_program_autoload(p), want[i].autoload);
		CHECK(kbpf_program_insns(p, &cnt) != NULL);
		CHECK_EQ_U64(cnt, want[i].insns);
		CHECK(kbpf_program_prog(p) == NULL);
		CHECK(kbpf_object_find_program(obj, want[i].name) == p);
		i++;
	}
	CHECK_EQ_U64(i, sizeof(want) / sizeof(want[0]));
	CHECK(kbpf_object_find_program(obj, "static_add") == NULL); /* a subprogram */
	CHECK(kbpf_object_find_program(obj, "nope") == NULL);
	CHECK(kbpf_object_next_map(obj, NULL) == NULL);             /* maps come with load */
out:
	kbpf_object_close(obj);
	kbpf_host_free(host);
}

static void test_subprogram_calls(void)
{
	struct kbpf_object *obj = load_obj("subprogs", NULL);
	struct kbpf_program *p;
	uint64_t r0 = 0;
	size_t cnt;

	if (!obj)
		return;
	for (int checked = 0; checked < 2; checked++) {
		CHECK_EQ_U64(run_prog(obj, "calls_static", NULL, checked), 42);
		CHECK_EQ_U64(run_prog(obj, "calls_global", NULL, checked), 42);
		CHECK_EQ_U64(run_prog(obj, "calls_nested", NULL, checked), 42);
		CHECK_EQ_U64(run_prog(obj, "probe", NULL, checked), 5);
		CHECK_EQ_U64(run_prog(obj, "unknown_type", NULL, checked), 1);
	}
	/* calls_nested: its 8 instructions, then nested (4), global_mul (3), static_add (3) */
	p = kbpf_object_find_program(obj, "calls_nested");
	const struct bpf_insn *insns = kbpf_program_insns(p, &cnt);
	CHECK_EQ_U64(cnt, 18);
	CHECK(insns[1].code == (BPF_JMP | BPF_CALL) && insns[1].src_reg == BPF_PSEUDO_CALL);
	CHECK_EQ_U64(1 + 1 + insns[1].imm, 8);
	/* not loaded: no kbpf_prog, instructions as in the ELF */
	p = kbpf_object_find_program(obj, "not_autoloaded");
	CHECK(kbpf_program_prog(p) == NULL);
	CHECK_EQ_U64(kbpf_program_run(p, NULL, &r0), -ENOENT);
	CHECK_EQ_U64(kbpf_program_set_autoload(p, true), -EBUSY);
	CHECK_EQ_U64(kbpf_program_set_type(p, BPF_PROG_TYPE_XDP), -EBUSY);
	CHECK_EQ_U64(kbpf_program_run(kbpf_object_find_program(obj, "calls_static"), NULL, &r0), 0);
	CHECK_EQ_U64(r0, 42);
	CHECK_EQ_U64(kbpf_object_load(obj), -EINVAL);
	CHECK_CONTAINS(kbpf_object_log(obj), "load can't be attempted twice");
	kbpf_object_close(obj);
}

static void test_autoload_and_type(void)
{
	struct kbpf_object *obj = open_obj("subprogs", NULL);
	struct kbpf_program *p;

	if (!obj)
		return;
	p = kbpf_object_find_program(obj, "not_autoloaded");
	CHECK_EQ_U64(kbpf_program_set_autoload(p, true), 0);
	CHECK_EQ_U64(kbpf_program_set_type(p, BPF_PROG_TYPE_XDP), 0);
	CHECK_EQ_U64(kbpf_program_set_autoload(kbpf_object_find_program(obj, "probe"), false), 0);
	CHECK_EQ_U64(kbpf_object_load(obj), 0);
	CHECK_EQ_U64(kbpf_program_type(p), BPF_PROG_TYPE_XDP);
	CHECK_EQ_U64(run_prog(obj, "not_autoloaded", NULL, 0), 7);
	CHECK(kbpf_program_prog(kbpf_object_find_program(obj, "probe")) == NULL);
	kbpf_object_close(obj);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static void test_line_and_func_info(void)
{
	struct kbpf_object *obj = load_obj("subprogs", NULL);
	struct kbpf_source_line sl;
	struct kbpf_program *p;
	const struct bpf_func_info *fi;
	const struct bpf_line_info *li;
	size_t nfi, nli;

	if (!obj)
		return;
	p = kbpf_object_find_program(obj, "calls_static");
	CHECK_EQ_U64(kbpf_program_source_line(p, 0, &sl), 0);
	CHECK(ends_with(sl.file, "subprogs.bpf.c"));
	CHECK_CONTAINS(sl.text, "static_add(40, 2)");
	CHECK(sl.line > 0 && sl.col > 0);
	CHECK_EQ_U64(sl.insn, 0);
	/* the appended subprogram (at insn 4) keeps its own lines */
	CHECK_EQ_U64(kbpf_program_source_line(p, 5, &sl), 0);
	CHECK_CONTAINS(sl.text, "return a + b");
	CHECK(sl.insn >= 4);
	fi = kbpf_program_func_info(p, &nfi);
	CHECK_EQ_U64(nfi, 2);
	if (fi && nfi == 2) {
		const struct btf *btf = kbpf_object_btf(obj);
		CHECK_EQ_U64(fi[0].insn_off, 0);
		CHECK_EQ_U64(fi[1].insn_off, 4);
		CHECK_STR(btf__name_by_offset(btf, btf__type_by_id(btf, fi[0].type_id)->name_off), "calls_static");
		CHECK_STR(btf__name_by_offset(btf, btf__type_by_id(btf, fi[1].type_id)->name_off), "static_add");
	}
	li = kbpf_program_line_info(p, &nli);
	CHECK(li && nli >= 2);
	for (size_t i = 1; li && i < nli; i++)
		CHECK(li[i - 1].insn_off <= li[i].insn_off);
	CHECK_EQ_U64(kbpf_program_source_line(p, 1000, &sl), 0); /* the last record rules on */
	CHECK_EQ_U64(kbpf_program_source_line(NULL, 0, &sl), -EINVAL);
	kbpf_object_close(obj);
}

static uint32_t map_u32(struct kbpf_map *map, uint32_t off)
{
	void *addr;
	uint32_t v = 0;
	if (map && !kbpf_map_direct_value_addr(map, off, &addr))
		memcpy(&v, addr, 4);
	return v;
}

static void test_global_data(void)
{
	struct kbpf_object *obj = load_obj("globals", NULL);
	struct kbpf_map *m, *data, *rodata, *bss;
	const char *names[] = { ".data", ".rodata", ".data.foo", ".rodata.bar", ".bss" };
	size_t n = 0;
	uint32_t key = 0;
	char value[64];

	if (!obj)
		return;
	for (m = kbpf_object_next_map(obj, NULL); m; m = kbpf_object_next_map(obj, m)) {
		CHECK(n < 5);
		if (n < 5)
			CHECK_STR(kbpf_map_name(m), names[n]);
		CHECK_EQ_U64(kbpf_map_type(m), BPF_MAP_TYPE_ARRAY);
		CHECK_EQ_U64(kbpf_map_max_entries(m), 1);
		CHECK(kbpf_object_map_btf_value_type_id(obj, m) > 0); /* the DATASEC */
		n++;
	}
	CHECK_EQ_U64(n, 5);
	data = kbpf_object_find_map(obj, ".data");
	rodata = kbpf_object_find_map(obj, ".rodata");
	bss = kbpf_object_find_map(obj, ".bss");
	CHECK(data && rodata && bss);
	CHECK_EQ_U64(kbpf_map_flags(rodata), BPF_F_RDONLY_PROG);
	CHECK_EQ_U64(kbpf_map_flags(kbpf_object_find_map(obj, ".rodata.bar")), BPF_F_RDONLY_PROG);
	CHECK_EQ_U64(kbpf_map_flags(data), 0);
	CHECK(kbpf_map_is_frozen(rodata));
	CHECK(!kbpf_map_is_frozen(data));
	CHECK_EQ_U64(map_u32(rodata, 0), 20);
	CHECK_EQ_U64(map_u32(bss, 0), 0);

	CHECK_EQ_U64(run_prog(obj, "globals", NULL, 0), 152);
	CHECK_EQ_U64(run_prog(obj, "globals", NULL, 1), 166); /* checked: map memory allowed */
	CHECK_EQ_U64(map_u32(bss, 0), 2);
	CHECK_EQ_U64(map_u32(kbpf_object_find_map(obj, ".data.foo"), 0), 20);
	CHECK_EQ_U64(kbpf_map_lookup(bss, &key, value), 0);
	CHECK_EQ_U64(*(uint32_t *)value, 2);
	CHECK_EQ_U64(kbpf_map_update(rodata, &key, value, BPF_ANY), -EPERM); /* frozen */
	CHECK_EQ_U64(run_prog(obj, "sum_big", NULL, 0), 10);
	CHECK_EQ_U64(run_prog(obj, "sum_big", NULL, 1), 10);
	kbpf_object_close(obj);
}

/* The host may change global data between runs: a program sees the new value. */
static void test_global_data_host_update(void)
{
	struct kbpf_object *obj = load_obj("globals", NULL);
	struct kbpf_map *data;
	uint32_t key = 0;
	char value[56];

	if (!obj)
		return;
	data = kbpf_object_find_map(obj, ".data");
	CHECK_EQ_U64(kbpf_map_value_size(data), sizeof(value));
	CHECK_EQ_U64(kbpf_map_lookup(data, &key, value), 0);
	uint32_t v = 100;
	memcpy(value, &v, 4); /* data_var is first */
	CHECK_EQ_U64(kbpf_map_update(data, &key, value, BPF_ANY), 0);
	CHECK_EQ_U64(run_prog(obj, "globals", NULL, 0), 103 + 20 + 1 + 10 + 7 + 'e');
	kbpf_object_close(obj);
}

static void test_rodata_write_stopped(void)
{
	struct kbpf_object *obj = open_obj("globals", NULL);
	char err[256] = "";
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .err = err, .err_size = sizeof(err) };

	if (!obj)
		return;
	CHECK_EQ_U64(kbpf_program_set_autoload(kbpf_object_find_program(obj, "write_rodata"), true), 0);
	CHECK_EQ_U64(kbpf_object_load(obj), 0);
	CHECK_EQ_U64(kbpf_prog_run_opts(kbpf_program_prog(kbpf_object_find_program(obj, "write_rodata")), &ro, NULL),
		     -EFAULT);
	CHECK_CONTAINS(err, "region .rodata is not writable");
	CHECK_EQ_U64(map_u32(kbpf_object_find_map(obj, ".rodata"), 0), 20);
	kbpf_object_close(obj);
}

static void test_legacy_maps(void)
{
	struct kbpf_object *obj = load_obj("legacy_maps", NULL);
	struct kbpf_map *counts, *hash;
	uint32_t key = 1, v32 = 0;
	uint64_t v = 0;

	if (!obj)
		return;
	counts = kbpf_object_find_map(obj, "legacy_counts");
	hash = kbpf_object_find_map(obj, "legacy_hash");
	CHECK(counts && hash);
	CHECK_EQ_U64(kbpf_map_type(counts), BPF_MAP_TYPE_ARRAY);
	CHECK_EQ_U64(kbpf_map_value_size(counts), 8);
	CHECK_EQ_U64(kbpf_map_max_entries(counts), 2);
	CHECK_EQ_U64(kbpf_map_type(hash), BPF_MAP_TYPE_HASH);
	CHECK_EQ_U64(run_prog(obj, "legacy", NULL, 0), 5);
	CHECK_EQ_U64(run_prog(obj, "legacy", NULL, 1), 10);
	CHECK_EQ_U64(kbpf_map_lookup(counts, &key, &v), 0);
	CHECK_EQ_U64(v, 10);
	CHECK_EQ_U64(kbpf_map_lookup(hash, &key, &v32), 0);
	CHECK_EQ_U64(v32, 1);
	CHECK_EQ_U64(kbpf_object_map_btf_value_type_id(obj, counts), 0);
	kbpf_object_close(obj);
}

static void test_kconfig(void)
{
	struct kbpf_host *host = test_host_new();
	struct kbpf_object *obj;

	kbpf_host_kconfig_set(host, "LINUX_KERNEL_VERSION", 0x060100);
	obj = load_obj("kconfig", host);
	if (obj) {
		for (int checked = 0; checked < 2; checked++) {
			CHECK_EQ_U64(run_prog(obj, "hz", NULL, checked), 250);
			CHECK_EQ_U64(run_prog(obj, "kernel_version", NULL, checked), 0x060100);
			CHECK_EQ_U64(run_prog(obj, "weak_missing", NULL, checked), 1);
			CHECK_EQ_U64(run_prog(obj, "others", NULL, checked), 0);
		}
		struct kbpf_map *k = kbpf_object_find_map(obj, ".kconfig");
		CHECK(k != NULL);
		CHECK_EQ_U64(kbpf_map_flags(k), BPF_F_RDONLY_PROG);
		CHECK(kbpf_map_is_frozen(k));
		kbpf_object_close(obj);
	}
	/* weak ones the host does set */
	kbpf_host_kconfig_set(host, "CONFIG_KBPF_BOOL", 1);
	kbpf_host_kconfig_set(host, "CONFIG_KBPF_TRI", 2);
	kbpf_host_kconfig_set(host, "CONFIG_KBPF_U8", 7);
	kbpf_host_kconfig_set(host, "CONFIG_KBPF_NOT_SET", (uint64_t)-5);
	obj = load_obj("kconfig", host);
	if (obj) {
		CHECK_EQ_U64(run_prog(obj, "others", NULL, 0), 1207);
		CHECK_EQ_U64(run_prog(obj, "weak_missing", NULL, 0), (uint32_t)-4);
		kbpf_object_close(obj);
	}
	/* values that do not fit their extern */
	static const struct {
		const char *name;
		uint64_t value;
		const char *msg;
	} bad[] = {
		{ "CONFIG_KBPF_U8", 300, "doesn't fit in 1 bytes" },
		{ "CONFIG_KBPF_BOOL", 2, "is not a bool" },
		{ "CONFIG_KBPF_TRI", 3, "is not a tristate" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kbpf_host *h = test_host_new();
		kbpf_host_kconfig_set(h, bad[i].name, bad[i].value);
		obj = open_obj("kconfig", h);
		if (obj) {
			CHECK_EQ_U64(kbpf_object_load(obj), -ERANGE);
			CHECK_CONTAINS(kbpf_object_log(obj), bad[i].name);
			CHECK_CONTAINS(kbpf_object_log(obj), bad[i].msg);
			kbpf_object_close(obj);
		}
		kbpf_host_free(h);
	}
	/* without LINUX_KERNEL_VERSION from the host: the running kernel's, as libbpf */
	struct kbpf_host *plain = test_host_new();
	obj = load_obj("kconfig", plain);
	if (obj) {
		struct utsname u;
		unsigned a = 0, b = 0, c = 0;
		CHECK(uname(&u) == 0 && sscanf(u.release, "%u.%u.%u", &a, &b, &c) >= 2);
		CHECK_EQ_U64(run_prog(obj, "kernel_version", NULL, 0), (a << 16) + (b << 8) + (c > 255 ? 255 : c));
		kbpf_object_close(obj);
	}
	kbpf_host_free(plain);
	/* the private host has no CONFIG_HZ */
	obj = open_obj("kconfig", NULL);
	if (obj) {
		CHECK_EQ_U64(kbpf_object_load(obj), -ESRCH);
		CHECK_CONTAINS(kbpf_object_log(obj), "extern (kconfig) 'CONFIG_HZ'");
		kbpf_object_close(obj);
	}
	kbpf_host_free(host);
}

static void test_kconfig_strong_missing(void)
{
	struct kbpf_object *obj = open_obj("kconfig_strong", NULL);

	if (!obj)
		return;
	CHECK_EQ_U64(kbpf_object_load(obj), -ESRCH);
	CHECK_CONTAINS(kbpf_object_log(obj), "extern (kconfig) 'CONFIG_KBPF_STRONG_MISSING'");
	CHECK(kbpf_program_prog(kbpf_object_find_program(obj, "strong")) == NULL);
	CHECK(kbpf_object_next_map(obj, NULL) == NULL);
	kbpf_object_close(obj);
}

static void test_kfunc_weak(void)
{
	struct kbpf_object *obj = load_obj("kfunc_weak", NULL);
	const struct bpf_insn *insns;
	size_t cnt, calls = 0;

	if (!obj)
		return;
	CHECK_EQ_U64(run_prog(obj, "weak_kfunc", NULL, 0), 42);
	CHECK_EQ_U64(run_prog(obj, "weak_kfunc", NULL, 1), 42);
	insns = kbpf_program_insns(kbpf_object_find_program(obj, "weak_kfunc"), &cnt);
	for (size_t i = 0; i < cnt; i++) {
		if (insns[i].code == (BPF_JMP | BPF_CALL)) {
			CHECK_EQ_U64(insns[i].src_reg, BPF_PSEUDO_KFUNC_CALL);
			CHECK_EQ_U64(insns[i].imm, 0);
			calls++;
		}
		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			CHECK_EQ_U64(insns[i].src_reg, 0);
			CHECK_EQ_U64(insns[i].imm, 0);
			CHECK_EQ_U64(insns[i + 1].imm, 0);
			i++;
		}
	}
	CHECK_EQ_U64(calls, 1);
	kbpf_object_close(obj);

	/* the strong one fails the load once its program is loaded */
	obj = open_obj("kfunc_weak", NULL);
	if (!obj)
		return;
	kbpf_program_set_autoload(kbpf_object_find_program(obj, "strong_kfunc"), true);
	CHECK_EQ_U64(kbpf_object_load(obj), -ESRCH);
	CHECK_CONTAINS(kbpf_object_log(obj), "extern (func ksym) 'kbpf_test_strong_kfunc': not found in the host's BTF");
	kbpf_object_close(obj);
}

static void test_struct_ops(void)
{
	struct kbpf_object *obj = open_obj("struct_ops", NULL);
	const struct kbpf_struct_ops *so;
	struct kbpf_program *init, *calc;

	if (!obj)
		return;
	init = kbpf_object_find_program(obj, "test_init");
	calc = kbpf_object_find_program(obj, "test_calc");
	CHECK(init && calc);
	CHECK_EQ_U64(kbpf_program_type(init), BPF_PROG_TYPE_STRUCT_OPS);

	so = kbpf_object_next_struct_ops(obj, NULL);
	CHECK(so != NULL);
	if (!so)
		goto out;
	CHECK_STR(so->name, "first_ops");
	CHECK_STR(so->sec_name, ".struct_ops");
	CHECK_STR(so->type_name, "kbpf_test_ops");
	const struct btf_type *t = btf__type_by_id(kbpf_object_btf(obj), so->type_id);
	CHECK(t && btf_is_struct(t));
	CHECK_EQ_U64(so->data_size, 48);
	CHECK_EQ_U64(so->nr_members, 3);
	if (so->nr_members == 3) {
		CHECK_STR(so->members[0].name, "init");
		CHECK_EQ_U64(so->members[0].offset, 0);
		CHECK(so->members[0].prog == init);
		CHECK_STR(so->members[1].name, "calc");
		CHECK_EQ_U64(so->members[1].offset, 8);
		CHECK(so->members[1].prog == calc);
		CHECK_STR(so->members[2].name, "release");
		CHECK(so->members[2].prog == NULL);
	}
	if (so->data_size == 48) {
		int flags;
		memcpy(&flags, (const char *)so->data + 24, 4);
		CHECK_EQ_U64(flags, 3);
		CHECK_STR((const char *)so->data + 28, "first");
		for (int i = 0; i < 24; i++)
			CHECK(((const unsigned char *)so->data)[i] == 0); /* no pointers in the data */
	}

	so = kbpf_object_next_struct_ops(obj, so);
	CHECK(so != NULL);
	if (so) {
		CHECK_STR(so->name, "second_ops");
		CHECK_STR(so->sec_name, ".struct_ops.link");
		CHECK(so->nr_members == 3 && so->members[0].prog == NULL && so->members[1].prog == calc);
		CHECK(kbpf_object_next_struct_ops(obj, so) == NULL);
	}
	CHECK(kbpf_object_find_struct_ops(obj, "second_ops") == so);
	CHECK(kbpf_object_find_struct_ops(obj, "nope") == NULL);
	/* the programs load like any other */
	CHECK_EQ_U64(kbpf_object_load(obj), 0);
	unsigned long long args[2] = { 40, 2 };
	CHECK_EQ_U64(run_prog(obj, "test_calc", args, 0), 42);
out:
	kbpf_object_close(obj);
}

/* bpf_loop(…, callback, …): the callback's address becomes BPF_PSEUDO_FUNC pointing at
 * the appended subprogram; the linked instructions are kept even though creating the
 * program fails. */
static void test_subprogram_address(void)
{
	struct kbpf_object *obj = open_obj("callback", NULL);
	const struct bpf_insn *insns;
	size_t cnt, nfi, found = 0;

	if (!obj)
		return;
	/* the default host has the map helpers only: no bpf_loop to run it with (it
	 * loads and runs on Linux's host: test_object_callbacks) */
	CHECK(kbpf_object_load(obj) < 0);
	insns = kbpf_program_insns(kbpf_object_find_program(obj, "loop"), &cnt);
	CHECK_EQ_U64(cnt, 17);
	for (size_t i = 0; i + 1 < cnt; i++) {
		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) && insns[i].src_reg == BPF_PSEUDO_FUNC) {
			CHECK_EQ_U64(i + 1 + insns[i].imm, 11);
			found++;
		}
	}
	CHECK_EQ_U64(found, 1);
	const struct bpf_func_info *fi = kbpf_program_func_info(kbpf_object_find_program(obj, "loop"), &nfi);
	CHECK(nfi == 2 && fi && fi[1].insn_off == 11);
	kbpf_object_close(obj);
}

static void test_open_mem(void)
{
	FILE *f = fopen(bpf_obj("subprogs"), "rb");
	char *buf = malloc(1 << 20);
	size_t n = f && buf ? fread(buf, 1, 1 << 20, f) : 0;
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .name = "mine" };
	struct kbpf_object *obj = NULL;

	if (f)
		fclose(f);
	CHECK(n > 0);
	CHECK_EQ_U64(kbpf_object_open_mem(buf, n, &opts, &obj), 0);
	memset(buf, 0, n); /* the object has its own copy */
	free(buf);
	if (!obj)
		return;
	CHECK_STR(kbpf_object_name(obj), "mine");
	CHECK_EQ_U64(kbpf_object_load(obj), 0);
	CHECK_EQ_U64(run_prog(obj, "calls_nested", NULL, 0), 42);
	kbpf_object_close(obj);
}

static void test_bad_calls(void)
{
	struct kbpf_object *obj = (void *)1;
	char log[256] = "";
	struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .log_buf = log, .log_size = sizeof(log) };

	CHECK_EQ_U64(kbpf_object_open_file("/nonexistent/x.o", &opts, &obj), -ENOENT);
	CHECK(obj == NULL);
	CHECK_CONTAINS(log, "cannot open /nonexistent/x.o");
	CHECK_EQ_U64(kbpf_object_open_mem("", 0, &opts, &obj), -EINVAL);
	CHECK_CONTAINS(log, "not an ELF object");
	CHECK_EQ_U64(kbpf_object_open_mem("hello world, not ELF", 20, &opts, &obj), -EINVAL);
	CHECK_EQ_U64(kbpf_object_open_mem(NULL, 10, NULL, &obj), -EINVAL);
	CHECK_EQ_U64(kbpf_object_open_file(NULL, NULL, &obj), -EINVAL);
	CHECK_EQ_U64(kbpf_object_open_file("x", NULL, NULL), -EINVAL);
	struct kbpf_object_open_opts tiny = { .trusted_unverified = 1,  .sz = 1 };
	CHECK_EQ_U64(kbpf_object_open_file(bpf_obj("subprogs"), &tiny, &obj), -EINVAL);
	/* an ELF that is not BPF: this test binary */
	CHECK_EQ_U64(kbpf_object_open_file("/proc/self/exe", &opts, &obj), -EINVAL);
	CHECK_CONTAINS(log, "not a BPF object");
	CHECK_EQ_U64(kbpf_object_load(NULL), -EINVAL);
	kbpf_object_close(NULL);
	CHECK(kbpf_object_next_program(NULL, NULL) == NULL);
	CHECK(kbpf_program_name(NULL) == NULL);
	CHECK_EQ_U64(kbpf_program_run(NULL, NULL, NULL), -EINVAL);
	/* a small log buffer gets the start of the log, terminated */
	char small[8];
	struct kbpf_object_open_opts so = { .sz = sizeof(so), .trusted_unverified = 1, .log_buf = small, .log_size = sizeof(small) };
	CHECK_EQ_U64(kbpf_object_open_mem("x", 1, &so, &obj), -EINVAL);
	CHECK_EQ_U64(strlen(small), 7);
}

int main(void)
{
	SKIP_WITHOUT_OBJECTS();
	RUN(test_unverified_refused);
	RUN(test_programs_listing);
	RUN(test_subprogram_calls);
	RUN(test_autoload_and_type);
	RUN(test_line_and_func_info);
	RUN(test_global_data);
	RUN(test_global_data_host_update);
	RUN(test_rodata_write_stopped);
	RUN(test_legacy_maps);
	RUN(test_kconfig);
	RUN(test_kconfig_strong_missing);
	RUN(test_kfunc_weak);
	RUN(test_struct_ops);
	RUN(test_subprogram_address);
	RUN(test_open_mem);
	RUN(test_bad_calls);
	return test_summary();
}
