/* SPDX-License-Identifier: Apache-2.0 */
/* The object model shared by the loader's parts:
 *   elf.c        sections, symbols, BTF fix-ups; drives open
 *   sec_def.c    program type from section name (libbpf's table)
 *   programs.c   programs and subprograms from executable sections
 *   maps.c       .maps, legacy maps, global data, .kconfig: definitions and creation
 *   externs.c    __kconfig and __ksym externs: collection and resolution
 *   relo.c       ELF relocations of program sections, recorded at open
 *   link.c       load: subprogram appending, relocation, CO-RE, func/line info
 *   struct_ops.c .struct_ops description
 *   object.c     the public API, open/load/close
 *   log.c        the object's log */
#ifndef KBPF_SRC_LOADER_LOADER_INTERNAL_H
#define KBPF_SRC_LOADER_LOADER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include <kbpf/object.h>

struct kbpf_btf_ext;
struct kbpf_core_ctx;

/* BPF relocation types (the ELF psABI of BPF, llvm's ELFRelocs/BPF.def). */
#define KBPF_R_BPF_NONE 0
#define KBPF_R_BPF_64_64 1       /* LDDW: 64-bit immediate */
#define KBPF_R_BPF_64_ABS64 2    /* data: 64-bit absolute */
#define KBPF_R_BPF_64_ABS32 3
#define KBPF_R_BPF_64_NODYLD32 4
#define KBPF_R_BPF_64_32 10      /* CALL: 32-bit pc-relative in insns */

/* Upper bounds that keep a hostile object from asking for absurd amounts of memory
 * beyond its own size (every count below is also bounded by the file size). */
#define KBPF_OBJ_MAX_NAME 256
/* The memory one map of an object may ask for: keys, values (per CPU for per-CPU maps)
 * and a hash map's element overhead (maps.c, docs/loader.md "Limits"). Linux bounds maps
 * by the memory cgroup and an array's size by 4 GiB; an embedded runtime has no cgroup to
 * stop a definition such as max_entries = 4294967295 from taking the process's memory. */
#define KBPF_OBJ_MAX_MAP_BYTES (1ull << 30)

/* --- log.c --- */
struct obj_log {
	char *buf;
	size_t len, cap;
	char *user;        /* the opts log_buf mirror */
	size_t user_size;
};
void obj_log_init(struct obj_log *log, char *user, size_t user_size);
void obj_log_free(struct obj_log *log);
/* Append one line (a '\n' is added). */
void obj_log(struct obj_log *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append text as is (several lines from another stage). */
void obj_log_text(struct obj_log *log, const char *text);

/* --- ELF sections --- */
enum obj_sec_kind {
	SEC_UNUSED = 0,
	SEC_PROG,        /* executable, not .text */
	SEC_TEXT,        /* .text: subprograms */
	SEC_DATA,        /* .data, .data.* */
	SEC_RODATA,      /* .rodata, .rodata.* */
	SEC_BSS,         /* .bss */
	SEC_MAPS,        /* .maps */
	SEC_LEGACY_MAPS, /* maps */
	SEC_STRUCT_OPS,  /* .struct_ops, .struct_ops.link */
	SEC_LICENSE,
	SEC_VERSION,
	SEC_BTF,
	SEC_BTF_EXT,
	SEC_SYMTAB,
	SEC_REL,
};

struct obj_sec {
	const char *name;      /* in the ELF image (valid during open only) */
	GElf_Shdr shdr;
	const void *data;      /* NULL for NOBITS or unread */
	size_t size;
	enum obj_sec_kind kind;
	int map_idx;           /* data sections, .maps, maps: -1 or the map (data) */
	long code_idx;         /* executable sections: the obj_code, else -1 */
};

/* What open works on; freed at the end of open. */
struct obj_elf {
	Elf *elf;
	char *image;           /* private copy of the bytes elf reads */
	size_t image_size;
	struct obj_sec *secs;
	size_t nr_secs;
	size_t symtab_idx;     /* 0: none */
	size_t strtab_idx;
	Elf_Data *symbols;
	size_t nr_syms;
	size_t text_idx;       /* 0: no .text */
	size_t maps_idx, legacy_maps_idx, kconfig_idx;
};

/* The symbol number idx (checked), its name (NULL if bad; "" allowed). Return 0 or -EINVAL. */
int obj_elf_sym(const struct obj_elf *e, size_t idx, GElf_Sym *sym, const char **name);

/* --- functions: programs and subprograms --- */
struct obj_func {
	char *name;
	size_t sec_idx;
	size_t code_idx;         /* its obj_code */
	size_t insn_off;         /* first instruction, in the section */
	size_t insn_cnt;
	const struct bpf_insn *insns; /* the object's copy of the section's instructions */
	struct kbpf_program *prog;    /* NULL for .text subprograms */
};

/* One executable section's instructions (copied at open). */
struct obj_code {
	size_t sec_idx;
	char *sec_name;
	struct bpf_insn *insns;
	size_t insn_cnt;
};

/* --- relocations of program sections, recorded at open --- */
enum obj_relo_kind {
	RELO_LD64_MAP,       /* LDDW of a map: BPF_PSEUDO_MAP_IDX */
	RELO_LD64_DATA,      /* LDDW into global data: BPF_PSEUDO_MAP_IDX_VALUE + offset */
	RELO_LD64_EXTERN,    /* LDDW of an extern (kconfig value or ksym address) */
	RELO_CALL,           /* BPF-to-BPF call into .text */
	RELO_SUBPROG_ADDR,   /* LDDW of a subprogram's address: BPF_PSEUDO_FUNC */
	RELO_EXTERN_CALL,    /* call of a __ksym function: kfunc */
};

struct obj_relo {
	size_t code_idx;     /* which obj_code */
	size_t insn_idx;     /* in the section */
	enum obj_relo_kind kind;
	size_t map_idx;      /* MAP, DATA */
	size_t ext_idx;      /* EXTERN, EXTERN_CALL */
	uint64_t sym_off;    /* DATA: symbol value; CALL/SUBPROG_ADDR: symbol value in .text */
	size_t rel_sec;      /* for messages: the REL section and entry number */
	size_t rel_entry;
	char *sym_name;
};

/* --- maps --- */
enum obj_map_kind {
	MAP_KIND_BTF,        /* .maps */
	MAP_KIND_LEGACY,     /* maps */
	MAP_KIND_DATA,
	MAP_KIND_RODATA,
	MAP_KIND_BSS,
	MAP_KIND_KCONFIG,
};

struct obj_map_init {        /* a static initial value of a PROG_ARRAY or map-of-maps slot */
	uint32_t slot;
	size_t func_idx;         /* PROG_ARRAY: the program's function */
	size_t map_idx;          /* ARRAY_OF_MAPS / HASH_OF_MAPS: the inner map, in obj->maps */
};

struct obj_map {
	char *name;
	enum obj_map_kind kind;
	size_t sec_idx;          /* BTF/LEGACY: where the definition is; data: the section */
	uint64_t sec_off;
	uint32_t def_size;       /* BTF: the definition's size in .maps */
	uint32_t values_off;     /* BTF: offset of `values` in the definition, or UINT32_MAX */
	uint32_t type, key_size, value_size, max_entries, map_flags;
	uint32_t map_extra;      /* BTF: BLOOM_FILTER's number of hash functions */
	uint32_t btf_key_type_id, btf_value_type_id;
	void *init_data;         /* DATA/RODATA/KCONFIG: value_size bytes to copy in */
	struct obj_map_init *inits;
	size_t nr_inits;
	struct kbpf_map *map;    /* after load */
	bool no_create;          /* kbpf_object_set_map_autocreate(false): load skips it */
	/* ARRAY_OF_MAPS / HASH_OF_MAPS: the template of `__array(values, struct inner)`
	 * (libbpf's map->inner_map, named "<outer>.inner"): created at load, held by the
	 * outer map only */
	struct obj_map *inner;
};

/* --- externs --- */
enum obj_ext_kind { EXT_KCONFIG, EXT_KFUNC, EXT_KSYM_VAR };
enum obj_kcfg_type { KCFG_INT, KCFG_BOOL, KCFG_CHAR, KCFG_TRISTATE, KCFG_CHAR_ARR, KCFG_UNKNOWN };

struct obj_extern {
	char *name;
	enum obj_ext_kind kind;
	bool weak;
	uint32_t btf_id;          /* the local VAR or FUNC */
	/* kconfig */
	enum obj_kcfg_type kcfg_type;
	uint32_t size, align;
	uint32_t data_off;        /* in the .kconfig map */
	bool is_signed;
	/* resolution (load); an error counts only if a loaded program uses the extern */
	int err;
	char err_msg[384];
	bool resolved;
	uint32_t host_btf_id;     /* kfunc; var ksym: the host VAR */
	void *var_addr;           /* var ksym: the host variable's address */
	bool typeless;            /* var ksym declared `const void` (libbpf's typeless ksym) */
};

/* --- the object --- */
struct kbpf_program {
	struct kbpf_object *obj;
	char *name;
	char *sec_name;
	size_t func_idx;
	uint32_t type;
	bool type_set;       /* type given by kbpf_program_set_type (0: unverified on purpose) */
	uint32_t prog_flags; /* kbpf_program_set_flags */
	bool autoload;
	/* after load (linking) */
	struct bpf_insn *insns;
	size_t insn_cnt;
	struct bpf_func_info *func_info;
	size_t nr_func_info;
	struct bpf_line_info *line_info;
	size_t nr_line_info;
	struct kbpf_prog *prog;
	/* CO-RE relocations that could not be resolved: the instructions poisoned (linked
	 * index), for the verifier log's "invalid func unknown#195896080" (core_log.c) */
	struct obj_core_poison {
		size_t insn;
		int relo;
		char *note; /* "no struct th_flow in the target BTF (<byte_off> [8] …)" */
	} *poisons;
	size_t nr_poisons;
};

/* Record that insn of prog was poisoned by relocation #relo (note: the reason). */
int obj_core_poison_add(struct kbpf_program *prog, size_t insn, int relo, const char *note);
void obj_core_poisons_free(struct kbpf_program *prog);
/* After kbpf_prog_create(prog's insns, po) failed with log: kbpf_program_fixup_log, and
 * for a one-line log of a program with several poisoned instructions, the line that
 * names the relocation reached (from a level-1 log made for it). */
void obj_core_fixup_log(const struct kbpf_program *prog, const struct kbpf_prog_opts *po, char *log, size_t size);

struct obj_struct_ops {
	struct kbpf_struct_ops desc;  /* what the API returns; strings owned below */
	char *name, *sec_name, *type_name;
	void *data;
	struct kbpf_struct_ops_member *members;
	size_t sec_idx;
	uint32_t var_off;             /* where the variable starts in its section */
};

struct kbpf_object {
	char *name;
	char license[64];
	struct kbpf_host *host;
	bool own_host;
	bool loaded, load_tried;
	bool trusted_unverified; /* kbpf_object_open_opts.trusted_unverified */
	bool jit;                 /* open opts: load JIT-compiles the programs */
	unsigned harden;          /* open opts: kbpf_prog_opts.harden of every program */
	uint64_t run_budget;      /* open opts: kbpf_prog_opts.run_budget of every program */
	unsigned log_level;       /* open opts: verifier log level */
	unsigned caps;            /* open opts: the loader's KBPF_CAP_* for verification */
	struct obj_log log;

	struct btf *btf;
	struct kbpf_btf_ext *btf_ext;
	struct kbpf_core_ctx *core_ctx; /* load: CO-RE candidate cache */
	struct btf *core_btf;     /* open opts btf_custom_path: the CO-RE target, else NULL */

	char **sec_names;         /* by ELF section index (for messages after open) */
	size_t text_sec;          /* .text's index, 0 if none */
	size_t nr_secs;

	struct obj_code *code;
	size_t nr_code;
	struct obj_func *funcs;
	size_t nr_funcs;
	struct kbpf_program *progs;
	size_t nr_progs;
	struct obj_relo *relos;   /* sorted by (code_idx, insn_idx) */
	size_t nr_relos;
	struct obj_map *maps;
	size_t nr_maps;
	struct kbpf_map **map_table; /* after load: maps[i].map, the table LDDW imm indexes */
	struct obj_extern *externs;
	size_t nr_externs;
	int kconfig_map;          /* -1: none */
	struct obj_struct_ops *struct_ops;
	size_t nr_struct_ops;
};

/* Grow *arr (of *nr elements of size elem) by one zeroed element; returns it or NULL. */
void *obj_array_add(void **arr, size_t *nr, size_t elem);
#define OBJ_ADD(arr, nr) ((typeof(arr))obj_array_add((void **)&(arr), &(nr), sizeof(*(arr))))

/* The section name for messages. */
const char *obj_sec_name(const struct kbpf_object *obj, size_t sec_idx);

/* --- open stages (each logs what is wrong and returns a negative errno) --- */
int obj_elf_open(struct kbpf_object *obj, struct obj_elf *e);       /* elf.c */
void obj_elf_close(struct obj_elf *e);
int obj_btf_init(struct kbpf_object *obj, struct obj_elf *e);       /* elf.c */
int obj_programs_collect(struct kbpf_object *obj, struct obj_elf *e); /* programs.c */
int obj_maps_collect(struct kbpf_object *obj, struct obj_elf *e);     /* maps.c */
int obj_externs_collect(struct kbpf_object *obj, struct obj_elf *e);  /* externs.c */
int obj_relos_collect(struct kbpf_object *obj, struct obj_elf *e);    /* relo.c */
int obj_maps_collect_inits(struct kbpf_object *obj, struct obj_elf *e); /* maps.c: .rel.maps */
int obj_struct_ops_collect(struct kbpf_object *obj, struct obj_elf *e); /* struct_ops.c */
/* How a struct_ops program is verified at load (struct_ops.c): prog_type NULL when its
 * struct has no registered struct_ops type with a program type (it loads unverified);
 * else that type, with the host member's prototype as the context. */
struct obj_sops_attach {
	bool unused; /* struct_ops: the program fills no member of any struct (not loaded) */
	const char *prog_type;
	uint32_t attach_btf_id;
	const char *member;
};
/* Linux's load-time checks (check_struct_ops_btf_id, libbpf's init_kern) with their
 * messages in the object log; 0 or a negative errno. */
int obj_struct_ops_attach(struct kbpf_object *obj, struct kbpf_program *p, struct obj_sops_attach *out);
/* A tracing program's type and attach target from its section (tracing_attach.c):
 * out->prog_type NULL when the host has no type for it; 0 or a negative errno (logged). */
int obj_tracing_attach(struct kbpf_object *obj, struct kbpf_program *p, struct obj_sops_attach *out);

/* --- load stages --- */
/* Resolve every extern; what cannot be resolved is recorded in ext->err/err_msg. */
int obj_externs_resolve(struct kbpf_object *obj);   /* externs.c */
int obj_maps_create(struct kbpf_object *obj);       /* maps.c */
int obj_maps_init_prog_arrays(struct kbpf_object *obj); /* maps.c, after programs */
void obj_maps_free(struct kbpf_object *obj);
int obj_program_link(struct kbpf_object *obj, struct kbpf_program *prog); /* link.c */

/* Function at instruction insn_off of section sec_idx (its first instruction), or -1. */
long obj_func_at(const struct kbpf_object *obj, size_t sec_idx, size_t insn_off);

/* sec_def.c: Linux's program type for a section name (without the '?'), or UNSPEC. */
uint32_t obj_prog_type_from_sec(const char *sec_name);
/* sec_def.c: whether libbpf loads a section's programs sleepable (SEC_SLEEPABLE). */
bool obj_sec_sleepable(const char *sec_name);

/* maps.c: the map defined at (sec_idx, off) of .maps/maps, or the data map of sec_idx. */
long obj_map_by_def(const struct kbpf_object *obj, size_t sec_idx, uint64_t off);
long obj_map_by_data_sec(const struct kbpf_object *obj, size_t sec_idx);

/* externs.c */
long obj_extern_by_name(const struct kbpf_object *obj, const char *name);

#endif
