/* SPDX-License-Identifier: Apache-2.0 */
/* The object API (include/kbpf/object.h): open, load, close, and the accessors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btf/btf_ext.h"
#include "btf/core.h"
#include <kbpf/prog_type.h>
#include "loader/loader_internal.h"
#include "opts.h"


/* Objects bigger than this are not BPF objects anyone compiled. */
#define OBJ_MAX_FILE_SIZE (1ull << 30)

const char *obj_sec_name(const struct kbpf_object *obj, size_t sec_idx)
{
	return sec_idx < obj->nr_secs && obj->sec_names[sec_idx] ? obj->sec_names[sec_idx] : "?";
}

static void programs_unload(struct kbpf_object *obj)
{
	for (size_t i = 0; i < obj->nr_progs; i++) {
		kbpf_prog_free(obj->progs[i].prog);
		obj->progs[i].prog = NULL;
	}
}

void kbpf_object_close(struct kbpf_object *obj)
{
	if (!obj)
		return;
	programs_unload(obj);
	obj_maps_free(obj);
	for (size_t i = 0; i < obj->nr_progs; i++) {
		struct kbpf_program *p = &obj->progs[i];
		free(p->name);
		free(p->sec_name);
		free(p->insns);
		free(p->func_info);
		free(p->line_info);
		obj_core_poisons_free(p);
	}
	free(obj->progs);
	for (size_t i = 0; i < obj->nr_funcs; i++)
		free(obj->funcs[i].name);
	free(obj->funcs);
	for (size_t i = 0; i < obj->nr_code; i++) {
		free(obj->code[i].sec_name);
		free(obj->code[i].insns);
	}
	free(obj->code);
	for (size_t i = 0; i < obj->nr_relos; i++)
		free(obj->relos[i].sym_name);
	free(obj->relos);
	for (size_t i = 0; i < obj->nr_maps; i++) {
		free(obj->maps[i].name);
		free(obj->maps[i].init_data);
		free(obj->maps[i].inits);
		if (obj->maps[i].inner)
			free(obj->maps[i].inner->name);
		free(obj->maps[i].inner);
	}
	free(obj->maps);
	for (size_t i = 0; i < obj->nr_externs; i++)
		free(obj->externs[i].name);
	free(obj->externs);
	for (size_t i = 0; i < obj->nr_struct_ops; i++) {
		struct obj_struct_ops *so = &obj->struct_ops[i];
		free(so->name);
		free(so->sec_name);
		free(so->type_name);
		free(so->data);
		free(so->members);
	}
	free(obj->struct_ops);
	for (size_t i = 0; i < obj->nr_secs; i++)
		free(obj->sec_names[i]);
	free(obj->sec_names);
	kbpf_core_ctx_free(obj->core_ctx);
	btf__free(obj->core_btf);
	kbpf_btf_ext_free(obj->btf_ext);
	btf__free(obj->btf);
	if (obj->own_host)
		kbpf_host_free(obj->host);
	obj_log_free(&obj->log);
	free(obj->name);
	free(obj);
}

/* "dir/prog.bpf.o" -> "prog" (libbpf cuts the file name at its first '.'). */
static char *default_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name = strdup(base ? base + 1 : path);
	if (name) {
		char *dot = strchr(name, '.');
		if (dot && dot != name)
			*dot = 0;
	}
	return name;
}

/* btf_custom_path: the CO-RE target, read at open as libbpf reads it. */
static int obj_core_btf_open(struct kbpf_object *obj, const char *path)
{
	long err;

	if (!path)
		return 0;
	obj->core_btf = btf__parse(path, NULL);
	err = libbpf_get_error(obj->core_btf);
	if (!err)
		return 0;
	obj->core_btf = NULL;
	obj_log(&obj->log, "btf_custom_path '%s': cannot read BTF: %s", path,
		err == -ENOENT && access(path, F_OK) == 0 ? "no .BTF section" : strerror((int)-err));
	return err == -ENOENT || err == -ENOMEM ? (int)err : -EINVAL;
}

static int open_image(char *image, size_t size, const char *name, const struct kbpf_object_open_opts *opts,
		      struct kbpf_object **out)
{
	struct obj_elf e = { .image = image, .image_size = size };
	struct kbpf_object *obj;
	int ret;

	obj = calloc(1, sizeof(*obj));
	if (!obj) {
		free(image);
		return -ENOMEM;
	}
	obj->kconfig_map = -1;
	obj_log_init(&obj->log, OPTS_GET(opts, log_buf, NULL), OPTS_GET(opts, log_size, 0));
	obj->name = strdup(name);
	obj->host = OPTS_GET(opts, host, NULL);
	obj->jit = OPTS_GET(opts, jit, 0) != 0;
	obj->harden = OPTS_GET(opts, harden, 0);
	obj->run_budget = OPTS_GET(opts, run_budget, 0);
	obj->trusted_unverified = OPTS_GET(opts, trusted_unverified, 0) != 0;
	obj->log_level = OPTS_GET(opts, log_level, 0);
	obj->caps = OPTS_GET(opts, caps, 0);
	if (!obj->host) {
		obj->host = kbpf_host_new();
		obj->own_host = true;
		if (obj->host && kbpf_host_add_map_helpers(obj->host)) {
			kbpf_host_free(obj->host);
			obj->host = NULL;
		}
	}
	if (!obj->name || !obj->host) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = obj_core_btf_open(obj, OPTS_GET(opts, btf_custom_path, NULL));
	if (!ret)
		ret = obj_elf_open(obj, &e);
	if (!ret) {
		obj->text_sec = e.text_idx;
		ret = obj_btf_init(obj, &e);
	}
	if (!ret)
		ret = obj_programs_collect(obj, &e);
	if (!ret)
		ret = obj_maps_collect(obj, &e);
	if (!ret)
		ret = obj_externs_collect(obj, &e);
	if (!ret)
		ret = obj_relos_collect(obj, &e);
	if (!ret)
		ret = obj_maps_collect_inits(obj, &e);
	if (!ret)
		ret = obj_struct_ops_collect(obj, &e);
	if (ret)
		goto fail;
	obj_elf_close(&e);
	*out = obj;
	return 0;
fail:
	if (ret == -ENOMEM)
		obj_log(&obj->log, "out of memory");
	obj_elf_close(&e);
	kbpf_object_close(obj);
	return ret;
}

static bool opts_ok(const struct kbpf_object_open_opts *opts)
{
	return OPTS_VALID(opts, OPTS_MIN_SZ);
}

int kbpf_object_open_mem(const void *buf, size_t size, const struct kbpf_object_open_opts *opts,
			 struct kbpf_object **obj)
{
	const char *name = OPTS_GET(opts, name, NULL);
	char *image;

	if (!obj)
		return -EINVAL;
	*obj = NULL;
	if (!opts_ok(opts) || (!buf && size) || size > OBJ_MAX_FILE_SIZE)
		return -EINVAL;
	image = malloc(size ? size : 1);
	if (!image)
		return -ENOMEM;
	if (size)
		memcpy(image, buf, size);
	return open_image(image, size, name ? name : "object", opts, obj);
}

static int report(const struct kbpf_object_open_opts *opts, int err, const char *fmt, const char *a, const char *b)
{
	char *log = OPTS_GET(opts, log_buf, NULL);
	size_t size = OPTS_GET(opts, log_size, 0);
	if (log && size)
		snprintf(log, size, fmt, a, b);
	return err;
}

int kbpf_object_open_file(const char *path, const struct kbpf_object_open_opts *opts, struct kbpf_object **obj)
{
	const char *name = OPTS_GET(opts, name, NULL);
	char *image = NULL, *dflt;
	size_t size = 0, cap = 0;
	FILE *f;
	int ret;

	if (!obj)
		return -EINVAL;
	*obj = NULL;
	if (!path || !opts_ok(opts))
		return -EINVAL;
	f = fopen(path, "rb");
	if (!f) {
		ret = -errno;
		return report(opts, ret, "cannot open %s: %s\n", path, strerror(-ret));
	}
	for (;;) {
		if (size == cap) {
			cap = cap ? cap * 2 : 65536;
			char *bigger = cap > OBJ_MAX_FILE_SIZE * 2 ? NULL : realloc(image, cap);
			if (!bigger) {
				free(image);
				fclose(f);
				return report(opts, -ENOMEM, "%s: %s\n", path, "too big or out of memory");
			}
			image = bigger;
		}
		size_t n = fread(image + size, 1, cap - size, f);
		size += n;
		if (n == 0)
			break;
	}
	ret = ferror(f);
	fclose(f);
	if (ret || size > OBJ_MAX_FILE_SIZE) {
		free(image);
		return report(opts, ret ? -EIO : -E2BIG, "%s: %s\n", path, ret ? "read error" : "too big");
	}
	dflt = name ? NULL : default_name(path);
	if (!name && !dflt) {
		free(image);
		return -ENOMEM;
	}
	ret = open_image(image, size, name ? name : dflt, opts, obj);
	free(dflt);
	return ret;
}

/* The registered program type mirroring Linux type t (from the SEC() name, or
 * kbpf_program_set_type): programs of it are verified at load. NULL (no such type, or
 * BPF_PROG_TYPE_UNSPEC): the program loads unverified, as before the verifier. */
struct type_lookup {
	uint32_t linux_type;
	const char *name;
};

static void type_lookup_fn(const struct kbpf_prog_type *type, void *arg)
{
	struct type_lookup *l = arg;
	if (!l->name && type->linux_type == l->linux_type)
		l->name = type->name;
}

static const char *verify_type_name(struct kbpf_host *host, uint32_t linux_type)
{
	struct type_lookup l = { linux_type, NULL };
	if (!host || !linux_type)
		return NULL;
	kbpf_host_prog_type_foreach(host, type_lookup_fn, &l);
	return l.name;
}


/* An object has no file descriptors: libbpf turns each map reference into the map's fd
 * through a relocation (kbpf: into BPF_PSEUDO_MAP_IDX*, link.c). An ld_imm64 still in
 * the fd forms names an fd the object cannot know; Linux refuses it as no map's fd
 * (resolve_pseudo_ldimm64), and kbpf's tables have no fds to match it against. */
static int obj_check_map_fds(struct kbpf_object *obj, const struct kbpf_program *p)
{
	for (size_t i = 0; i + 1 < p->insn_cnt; i++) {
		const struct bpf_insn *in = &p->insns[i];
		if (in->code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (in->src_reg == BPF_PSEUDO_MAP_FD || in->src_reg == BPF_PSEUDO_MAP_VALUE) {
			obj_log(&obj->log, "program '%s': insn %zu: fd %d is not pointing to valid bpf_map", p->name, i,
				in->imm);
			return -EBADF;
		}
		i++;
	}
	return 0;
}

int kbpf_object_load(struct kbpf_object *obj)
{
	int ret;

	if (!obj)
		return -EINVAL;
	if (obj->load_tried) {
		obj_log(&obj->log, "object '%s': load can't be attempted twice", obj->name);
		return -EINVAL;
	}
	obj->load_tried = true;
	ret = obj_externs_resolve(obj);
	if (!ret)
		ret = obj_maps_create(obj);
	for (size_t i = 0; !ret && i < obj->nr_progs; i++) {
		struct kbpf_program *p = &obj->progs[i];
		/* a verifier log at a level asked for can be long; the error line alone is short */
		size_t log_size = obj->log_level ? 1u << 20 : 512;
		char *log = calloc(1, log_size);

		if (!log) {
			ret = -ENOMEM;
			break;
		}

		if (!p->autoload) {
			free(log);
			continue;
		}
		ret = obj_program_link(obj, p);
		/* struct_ops: typed by the host member it fills, if the host has rules for
		 * its struct; never by a program type matched on BPF_PROG_TYPE_STRUCT_OPS */
		struct obj_sops_attach sa = { 0 };
		bool sops = p->type == BPF_PROG_TYPE_STRUCT_OPS;
		if (!ret && sops)
			ret = obj_struct_ops_attach(obj, p, &sa);
		/* fentry/FUNC…: the host type of the section's attach type, FUNC's BTF id */
		bool tracing = p->type == BPF_PROG_TYPE_TRACING || p->type == BPF_PROG_TYPE_LSM;
		if (!ret && tracing)
			ret = obj_tracing_attach(obj, p, &sa);
		if (ret) {
			free(log);
			break;
		}
		if (sa.unused) {
			free(log);
			continue;
		}
		ret = obj_check_map_fds(obj, p);
		if (ret) {
			free(log);
			break;
		}
		const char *vtype = sops || tracing ? sa.prog_type : verify_type_name(obj->host, p->type);
		/* a host type named as the section wins: "cgroup/connect4" (a Linux attach
		 * type whose rules differ from its program type's other attach types), or a
		 * type of the host's own ("checkout": libbpf's table has none; not when the type
		 * was set to UNSPEC on purpose, kbpf_program_set_type) */
		const char *sec = p->sec_name[0] == '?' ? p->sec_name + 1 : p->sec_name;
		if (!sops && !tracing && (p->type || !p->type_set) && kbpf_host_prog_type_find(obj->host, sec))
			vtype = sec;
		if (!vtype && !obj->trusted_unverified) {
			obj_log(&obj->log,
				"program '%s': section '%s' has no program type on this host: not verified, so not "
				"loaded (kbpf_object_open_opts.trusted_unverified loads it for trusted code)",
				p->name, p->sec_name);
			free(log);
			ret = -EPERM;
			break;
		}
		struct kbpf_prog_opts po = {
			.sz = sizeof(po), .host = obj->host, .name = p->name, .log_buf = log, .log_size = log_size,
			.trusted_unverified = obj->trusted_unverified,
			.log_level = obj->log_level,
			.maps = obj->map_table, .nr_maps = obj->nr_maps, .jit = obj->jit,
			.harden = obj->harden, .run_budget = obj->run_budget,
			/* verified when the host knows the section's program type */
			.prog_type = vtype,
			.license = obj->license,
			.attach_btf_id = sa.attach_btf_id, .attach_member = sa.member,
			.caps = obj->caps, .prog_flags = p->prog_flags,
		};
		/* libbpf_prepare_prog_load: a sleepable section's program (of the section's
		 * own type) loads with BPF_F_SLEEPABLE */
		if (obj_sec_sleepable(p->sec_name) && p->type == obj_prog_type_from_sec(sec))
			po.prog_flags |= BPF_F_SLEEPABLE;
		/* BTF func_info: global functions verified on their own, callbacks allowed */
		if (obj->btf && p->nr_func_info) {
			po.prog_btf = obj->btf;
			po.func_info = p->func_info;
			po.nr_func_info = (uint32_t)p->nr_func_info;
		}
		ret = kbpf_prog_create(p->insns, p->insn_cnt, &po, &p->prog);
		if (ret)
			obj_core_fixup_log(p, &po, log, log_size); /* CO-RE failures as libbpf words them */
		if (ret && obj->log_level && strchr(log, '\n')) {
			/* the whole verifier log, then the usual one-line summary */
			p->prog = NULL;
			obj_log(&obj->log, "program '%s': verifier log:", p->name);
			obj_log_text(&obj->log, log);
			obj_log(&obj->log, "program '%s': %s", p->name, strerror(-ret));
		} else if (ret) {
			p->prog = NULL;
			obj_log(&obj->log, "program '%s': %s", p->name, log[0] ? log : strerror(-ret));
		} else if (obj->jit && !kbpf_prog_is_jited(p->prog)) {
			/* not an error: the program runs, on the interpreter */
			obj_log(&obj->log, "program '%s': %s", p->name, log[0] ? log : "JIT: not compiled");
		} else if (obj->log_level && log[0]) {
			/* as libbpf with a log level: an accepted program's log is kept too
			 * (level 2's walk, level 4's statistics) */
			obj_log(&obj->log, "program '%s': verifier log:", p->name);
			obj_log_text(&obj->log, log);
		}
		free(log);
	}
	if (!ret)
		ret = obj_maps_init_prog_arrays(obj);
	kbpf_core_ctx_free(obj->core_ctx); /* it points at the host's BTF: not kept */
	obj->core_ctx = NULL;
	if (ret) {
		if (ret == -ENOMEM)
			obj_log(&obj->log, "out of memory");
		programs_unload(obj);
		obj_maps_free(obj);
		return ret;
	}
	obj->loaded = true;
	return 0;
}

const char *kbpf_object_name(const struct kbpf_object *obj)
{
	return obj ? obj->name : NULL;
}

const char *kbpf_object_license(const struct kbpf_object *obj)
{
	return obj ? obj->license : NULL;
}

struct kbpf_host *kbpf_object_host(const struct kbpf_object *obj)
{
	return obj ? obj->host : NULL;
}

const struct btf *kbpf_object_btf(const struct kbpf_object *obj)
{
	return obj ? obj->btf : NULL;
}

const char *kbpf_object_log(const struct kbpf_object *obj)
{
	return obj && obj->log.buf ? obj->log.buf : "";
}

/* --- programs --- */

struct kbpf_program *kbpf_object_next_program(const struct kbpf_object *obj, const struct kbpf_program *prev)
{
	size_t i;

	if (!obj || !obj->nr_progs)
		return NULL;
	if (!prev)
		return &obj->progs[0];
	if (prev < obj->progs || prev >= obj->progs + obj->nr_progs)
		return NULL;
	i = (size_t)(prev - obj->progs) + 1;
	return i < obj->nr_progs ? &obj->progs[i] : NULL;
}

struct kbpf_program *kbpf_object_find_program(const struct kbpf_object *obj, const char *name)
{
	for (size_t i = 0; obj && name && i < obj->nr_progs; i++)
		if (!strcmp(obj->progs[i].name, name))
			return &obj->progs[i];
	return NULL;
}

const char *kbpf_program_name(const struct kbpf_program *prog)
{
	return prog ? prog->name : NULL;
}

const char *kbpf_program_section_name(const struct kbpf_program *prog)
{
	return prog ? prog->sec_name : NULL;
}

bool kbpf_program_autoload(const struct kbpf_program *prog)
{
	return prog && prog->autoload;
}

int kbpf_program_set_autoload(struct kbpf_program *prog, bool autoload)
{
	if (!prog)
		return -EINVAL;
	if (prog->obj->load_tried)
		return -EBUSY;
	prog->autoload = autoload;
	return 0;
}

uint32_t kbpf_program_type(const struct kbpf_program *prog)
{
	return prog ? prog->type : BPF_PROG_TYPE_UNSPEC;
}

int kbpf_program_set_type(struct kbpf_program *prog, uint32_t type)
{
	if (!prog)
		return -EINVAL;
	if (prog->obj->load_tried)
		return -EBUSY;
	prog->type = type;
	prog->type_set = true;
	return 0;
}

uint32_t kbpf_program_flags(const struct kbpf_program *prog)
{
	return prog ? prog->prog_flags : 0;
}

int kbpf_program_set_flags(struct kbpf_program *prog, uint32_t flags)
{
	if (!prog)
		return -EINVAL;
	if (prog->obj->load_tried)
		return -EBUSY;
	prog->prog_flags = flags;
	return 0;
}

const struct bpf_insn *kbpf_program_insns(const struct kbpf_program *prog, size_t *cnt)
{
	if (!prog) {
		if (cnt)
			*cnt = 0;
		return NULL;
	}
	if (prog->insns) {
		if (cnt)
			*cnt = prog->insn_cnt;
		return prog->insns;
	}
	const struct obj_func *f = &prog->obj->funcs[prog->func_idx];
	if (cnt)
		*cnt = f->insn_cnt;
	return f->insns;
}

struct kbpf_prog *kbpf_program_prog(const struct kbpf_program *prog)
{
	return prog ? prog->prog : NULL;
}

int kbpf_program_run(const struct kbpf_program *prog, void *ctx, uint64_t *retval)
{
	if (!prog)
		return -EINVAL;
	if (!prog->prog)
		return -ENOENT;
	return kbpf_prog_run(prog->prog, ctx, retval);
}

const struct bpf_func_info *kbpf_program_func_info(const struct kbpf_program *prog, size_t *cnt)
{
	if (cnt)
		*cnt = prog ? prog->nr_func_info : 0;
	return prog && prog->nr_func_info ? prog->func_info : NULL;
}

const struct bpf_line_info *kbpf_program_line_info(const struct kbpf_program *prog, size_t *cnt)
{
	if (cnt)
		*cnt = prog ? prog->nr_line_info : 0;
	return prog && prog->nr_line_info ? prog->line_info : NULL;
}

int kbpf_program_source_line(const struct kbpf_program *prog, size_t insn_idx, struct kbpf_source_line *out)
{
	const struct bpf_line_info *best = NULL;

	if (!prog || !out)
		return -EINVAL;
	/* line_info is sorted by insn_off within each placed function; functions are
	 * placed in increasing order, so the whole array is sorted */
	size_t lo = 0, hi = prog->nr_line_info;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (prog->line_info[mid].insn_off <= insn_idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -ENOENT;
	best = &prog->line_info[lo - 1];
	/* several records may start at the same insn: take the first of them */
	while (best > prog->line_info && best[-1].insn_off == best->insn_off)
		best--;
	const struct btf *btf = prog->obj->btf;
	const char *file = btf ? btf__name_by_offset(btf, best->file_name_off) : NULL;
	const char *text = btf ? btf__name_by_offset(btf, best->line_off) : NULL;
	out->file = file ? file : "";
	out->text = text ? text : "";
	out->line = BPF_LINE_INFO_LINE_NUM(best->line_col);
	out->col = BPF_LINE_INFO_LINE_COL(best->line_col);
	out->insn = best->insn_off;
	return 0;
}

/* --- maps --- */

static const struct obj_map *obj_map_of(const struct kbpf_object *obj, const struct kbpf_map *map)
{
	for (size_t i = 0; obj && map && i < obj->nr_maps; i++)
		if (obj->maps[i].map == map)
			return &obj->maps[i];
	return NULL;
}

struct kbpf_map *kbpf_object_next_map(const struct kbpf_object *obj, const struct kbpf_map *prev)
{
	if (!obj || !obj->loaded || !obj->nr_maps)
		return NULL;
	size_t i = 0;
	if (prev) {
		const struct obj_map *m = obj_map_of(obj, prev);
		if (!m)
			return NULL;
		i = (size_t)(m - obj->maps) + 1;
	}
	while (i < obj->nr_maps && !obj->maps[i].map) /* not created: autocreate off */
		i++;
	return i < obj->nr_maps ? obj->maps[i].map : NULL;
}

int kbpf_object_set_map_autocreate(struct kbpf_object *obj, const char *name, bool autocreate)
{
	if (!obj || !name)
		return -EINVAL;
	if (obj->loaded || obj->load_tried)
		return -EBUSY;
	for (size_t i = 0; i < obj->nr_maps; i++) {
		if (strcmp(obj->maps[i].name, name))
			continue;
		if (obj->maps[i].kind == MAP_KIND_KCONFIG && !autocreate)
			return -EINVAL; /* the host fills it; externs read it */
		obj->maps[i].no_create = !autocreate;
		return 0;
	}
	return -ENOENT;
}

struct kbpf_map *const *kbpf_object_map_table(const struct kbpf_object *obj, size_t *nr)
{
	if (nr)
		*nr = obj && obj->loaded ? obj->nr_maps : 0;
	return obj && obj->loaded ? obj->map_table : NULL;
}

struct kbpf_map *kbpf_object_find_map(const struct kbpf_object *obj, const char *name)
{
	if (!obj || !obj->loaded || !name)
		return NULL;
	for (size_t i = 0; i < obj->nr_maps; i++)
		if (!strcmp(obj->maps[i].name, name))
			return obj->maps[i].map;
	return NULL;
}

uint32_t kbpf_object_map_btf_key_type_id(const struct kbpf_object *obj, const struct kbpf_map *map)
{
	const struct obj_map *m = obj_map_of(obj, map);
	return m ? m->btf_key_type_id : 0;
}

uint32_t kbpf_object_map_btf_value_type_id(const struct kbpf_object *obj, const struct kbpf_map *map)
{
	const struct obj_map *m = obj_map_of(obj, map);
	return m ? m->btf_value_type_id : 0;
}

void *kbpf_object_global_data(struct kbpf_object *obj, const char *sec_name, size_t *size, uint32_t *datasec_id)
{
	for (size_t i = 0; obj && sec_name && !obj->loaded && !obj->load_tried && i < obj->nr_maps; i++) {
		struct obj_map *m = &obj->maps[i];
		if ((m->kind != MAP_KIND_DATA && m->kind != MAP_KIND_RODATA && m->kind != MAP_KIND_BSS) ||
		    strcmp(m->name, sec_name))
			continue;
		if (!m->init_data) /* .bss: zeroes unless asked for an image */
			m->init_data = calloc(1, m->value_size ? m->value_size : 1);
		if (!m->init_data)
			return NULL;
		if (size)
			*size = m->value_size;
		if (datasec_id)
			*datasec_id = m->btf_value_type_id;
		return m->init_data;
	}
	return NULL;
}

/* --- struct_ops --- */

const struct kbpf_struct_ops *kbpf_object_next_struct_ops(const struct kbpf_object *obj,
							  const struct kbpf_struct_ops *prev)
{
	if (!obj || !obj->nr_struct_ops)
		return NULL;
	if (!prev)
		return &obj->struct_ops[0].desc;
	for (size_t i = 0; i + 1 < obj->nr_struct_ops; i++)
		if (&obj->struct_ops[i].desc == prev)
			return &obj->struct_ops[i + 1].desc;
	return NULL;
}

const struct kbpf_struct_ops *kbpf_object_find_struct_ops(const struct kbpf_object *obj, const char *name)
{
	for (size_t i = 0; obj && name && i < obj->nr_struct_ops; i++)
		if (!strcmp(obj->struct_ops[i].name, name))
			return &obj->struct_ops[i].desc;
	return NULL;
}
