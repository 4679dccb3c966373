/* SPDX-License-Identifier: Apache-2.0 */
/* The object side: BPF ELF objects as clang and libbpf users produce them
 * (`clang -O2 -g -target bpf -c prog.bpf.c`), with libbpf's conventions and meanings:
 * programs by SEC() name, .text subprograms, BTF-defined and legacy maps, global data,
 * __kconfig and __ksym externs, CO-RE relocations against the host's BTF, .struct_ops.
 *
 *   struct kbpf_object *obj;
 *   kbpf_object_open_file("prog.bpf.o", &opts, &obj);   // parse, check, describe
 *   kbpf_object_load(obj);                              // maps, link, relocate, programs
 *   kbpf_program_run(kbpf_object_find_program(obj, "handler"), ctx, &r0);
 *   kbpf_object_close(obj);
 *
 * Every function returns 0 or a negative errno; a failure leaves one line per problem
 * in the object's log naming what is wrong and where (section, symbol, relocation).
 *
 * Ownership: kbpf_object_open_* copy the file or buffer; the object belongs to the
 * caller (kbpf_object_close, once no thread runs its programs or uses its maps), and
 * owns its programs, maps and struct_ops descriptions: every pointer and string a
 * getter returns (kbpf_object_find_program, kbpf_program_prog, kbpf_object_find_map…)
 * is valid until kbpf_object_close. The host (opts->host) must outlive the object, and
 * opts->log_buf, which the object keeps writing its log to, must stay valid while the
 * object is opened and loaded.
 * Threads: one thread opens and loads an object (kbpf_object_open_*, the setters,
 * kbpf_object_load); once loaded, its programs may run (kbpf_program_run…) and its
 * maps be used on any number of threads at once. Different objects are independent,
 * on one host too. */
#ifndef KBPF_OBJECT_H
#define KBPF_OBJECT_H

#include <kbpf/export.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kbpf/insn.h>
#include <kbpf/host.h>
#include <kbpf/prog.h>
#include <kbpf/map.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kbpf_object;
struct kbpf_program;
struct btf; /* libbpf's */

struct kbpf_object_open_opts {
	size_t sz;              /* sizeof(struct kbpf_object_open_opts) */
	/* Helpers, kfuncs (host BTF), kconfig values. NULL: a private host owned by the
	 * object, with the map helpers (kbpf_host_add_map_helpers) and nothing else. The
	 * host must outlive the object. */
	struct kbpf_host *host;
	const char *name;       /* object name; default: the file name up to its first '.' */
	char *log_buf;          /* receives the object's log (open and load), NUL-terminated */
	size_t log_size;
	/* Nonzero: load compiles every program with the x86-64 JIT (kbpf_prog_opts.jit);
	 * a program the JIT does not take stays on the interpreter, with a line in the
	 * log saying why. Load fails with -EOPNOTSUPP on a host that is not x86-64. */
	int jit;
	/* Verifier log level for the programs load verifies (KBPF_LOG_* of
	 * <kbpf/verifier.h>: 1 the path to the error, 2 every insn, 4 statistics); 0 keeps
	 * only the error line. A failing program's log goes to log_buf, and at a non-zero
	 * level an accepted program's log too (as libbpf's kernel_log_level). */
	unsigned log_level;
	/* The loader's capabilities for the programs load verifies (kbpf_verify_opts.caps:
	 * KBPF_CAP_* of <kbpf/prog_type.h>; 0: every one; KBPF_CAP_NONE: none). Without
	 * KBPF_CAP_SYS_BOOT a program calling a KF_DESTRUCTIVE kfunc does not load (-EACCES,
	 * "destructive kfunc calls require CAP_SYS_BOOT capabilities"), as in Linux. */
	unsigned caps;
	/* Hardening of every program load creates (kbpf_prog_opts.harden and .run_budget:
	 * KBPF_HARDEN_* flags, the per-run budget of backward jumps and calls). */
	unsigned harden;
	uint64_t run_budget;
	/* Nonzero: load programs whose section has no program type on the host (an
	 * unknown SEC(), tp_btf/…, a struct_ops struct the host has no rules for)
	 * unverified (kbpf_prog_opts.trusted_unverified: they can touch any host memory).
	 * Only for objects as trusted as the host's own code. Default 0: load fails with
	 * -EPERM naming the first such program (set its autoload off to load the rest). */
	int trusted_unverified;
	/* A BTF file (an ELF with .BTF, or raw BTF) the object's CO-RE relocations are
	 * resolved against instead of the host's BTF (libbpf's btf_custom_path): the types
	 * the program's data will have. Kfunc externs, struct_ops and tracing targets still
	 * resolve against the host. Read at open: -ENOENT/-EINVAL with the reason logged. */
	const char *btf_custom_path;
};

/* Open an ELF object from a file or from memory (copied: buf may be freed after).
 * Parses and checks sections, symbols, relocations, BTF, maps and externs; creates
 * nothing yet. Returns 0 and *obj, or -EINVAL (bad object, the reason in the log),
 * -ENOENT (no such file), -ENOTSUP (a feature kbpf does not support), -ENOMEM. */
KBPF_API int kbpf_object_open_file(const char *path, const struct kbpf_object_open_opts *opts, struct kbpf_object **obj);
KBPF_API int kbpf_object_open_mem(const void *buf, size_t size, const struct kbpf_object_open_opts *opts,
			 struct kbpf_object **obj);

/* Load: resolve externs against the host (kconfig values, kfunc BTF ids and prototypes),
 * create the maps (global data initialised, .rodata and .kconfig frozen), link each
 * autoloaded program with the subprograms it calls, relocate (maps become
 * BPF_PSEUDO_MAP_IDX / _IDX_VALUE with imm = index in the object's map table,
 * kbpf_object_map_table: kbpf_object_next_map order when every map is created), apply
 * CO-RE relocations against kbpf_host_btf(host) (or btf_custom_path's), and
 * create a struct kbpf_prog per autoloaded program. Until the verifier exists, load does
 * the structural checks of kbpf_prog_create only: run only programs you trust.
 * Returns 0 or a negative errno (-EINVAL on a second call). */
KBPF_API int kbpf_object_load(struct kbpf_object *obj);
/* Free the object, its programs and maps. NULL is allowed. */
KBPF_API void kbpf_object_close(struct kbpf_object *obj);

KBPF_API const char *kbpf_object_name(const struct kbpf_object *obj);
/* The "license" section's text, or "" if there is none. */
KBPF_API const char *kbpf_object_license(const struct kbpf_object *obj);
/* The host programs resolve against (the private one if none was given). */
KBPF_API struct kbpf_host *kbpf_object_host(const struct kbpf_object *obj);
/* The object's own BTF (libbpf's struct btf, owned by the object), or NULL. */
KBPF_API const struct btf *kbpf_object_btf(const struct kbpf_object *obj);
/* Everything logged so far (open and load), "" if nothing. */
KBPF_API const char *kbpf_object_log(const struct kbpf_object *obj);

/* --- Programs ---------------------------------------------------------------------- */

/* Linux's enum bpf_prog_type for a SEC() name by libbpf's table and matching rules
 * ("tc", "classifier", "socket", "tp/…", "fentry/…", "cgroup/skb" …; a leading '?' is
 * ignored), BPF_PROG_TYPE_UNSPEC if none matches. */
KBPF_API uint32_t kbpf_section_prog_type(const char *sec_name);
/* Nonzero if libbpf loads the programs of a section of this name sleepable (its
 * SEC_SLEEPABLE sections: "fentry.s/…", "lsm.s/…", "iter.s/…", "syscall", …; a leading
 * '?' is ignored): kbpf_object_load then adds BPF_F_SLEEPABLE to such a program's flags
 * when its type is the section's. */
KBPF_API int kbpf_section_sleepable(const char *sec_name);
/* The idx-th pattern of that table (NULL past its end) and its type in *type: "socket",
 * "tc", "kprobe+" ("kprobe" or "kprobe/…"), "xdp/devmap" … */
KBPF_API const char *kbpf_section_pattern(size_t idx, uint32_t *type);

/* Programs in object order (section order, then offset); NULL prev gives the first,
 * NULL at the end. .text subprograms are not programs. */
KBPF_API struct kbpf_program *kbpf_object_next_program(const struct kbpf_object *obj, const struct kbpf_program *prev);
KBPF_API struct kbpf_program *kbpf_object_find_program(const struct kbpf_object *obj, const char *name);

KBPF_API const char *kbpf_program_name(const struct kbpf_program *prog);
/* The SEC() name as written, including a leading '?'. */
KBPF_API const char *kbpf_program_section_name(const struct kbpf_program *prog);
/* Whether load creates this program: true unless its section starts with '?'. */
KBPF_API bool kbpf_program_autoload(const struct kbpf_program *prog);
/* -EBUSY once the object is loaded. */
KBPF_API int kbpf_program_set_autoload(struct kbpf_program *prog, bool autoload);
/* Linux's enum bpf_prog_type, guessed from the section name with libbpf's table
 * ("socket", "kprobe/", "tc", "xdp", "struct_ops/", "fentry/" …), else
 * BPF_PROG_TYPE_UNSPEC. */
KBPF_API uint32_t kbpf_program_type(const struct kbpf_program *prog);
/* -EBUSY once the object is loaded. */
KBPF_API int kbpf_program_set_type(struct kbpf_program *prog, uint32_t type);
/* Linux's load flags for the program (libbpf's bpf_program__flags/__set_flags):
 * BPF_F_STRICT_ALIGNMENT, BPF_F_ANY_ALIGNMENT, BPF_F_TEST_STATE_FREQ, BPF_F_SLEEPABLE,
 * BPF_F_TEST_REG_INVARIANTS (kbpf_verify_opts.prog_flags). Default 0. Set: -EBUSY once the object is loaded; an
 * unknown bit fails the program's load with -EINVAL. */
KBPF_API uint32_t kbpf_program_flags(const struct kbpf_program *prog);
KBPF_API int kbpf_program_set_flags(struct kbpf_program *prog, uint32_t flags);
/* The program's instructions: as in the ELF section before load; after load the linked
 * and relocated ones (subprograms appended), also when the load failed after linking. */
KBPF_API const struct bpf_insn *kbpf_program_insns(const struct kbpf_program *prog, size_t *cnt);
/* The runnable program after a successful load, else NULL. */
KBPF_API struct kbpf_prog *kbpf_program_prog(const struct kbpf_program *prog);
/* kbpf_prog_run on kbpf_program_prog(prog): -ENOENT if it was not loaded. */
KBPF_API int kbpf_program_run(const struct kbpf_program *prog, void *ctx, uint64_t *retval);

/* BTF.ext func_info and line_info of the instructions kbpf_program_insns returns
 * (insn_off in instructions, as bpf(BPF_PROG_LOAD) takes them; type ids and strings
 * refer to kbpf_object_btf). NULL and *cnt = 0 if the object has none. */
KBPF_API const struct bpf_func_info *kbpf_program_func_info(const struct kbpf_program *prog, size_t *cnt);
/* How a struct_ops program is verified (kbpf_object_load does this for every one): the
 * loader's checks run (a program fills one member; GPL-compatible licence; the member is
 * a function pointer of the host struct; the host's check_member), each refusal logged
 * in the object log as Linux/libbpf word it. Then *prog_type is the program type the
 * host registered for the struct (kbpf_host_struct_ops_register), *attach_btf_id the
 * host member's type (kbpf_verify_opts.attach_btf_id) and *member its name; *prog_type
 * NULL: not verified (it fills no member, or the host has no rules for its struct).
 * The object must be open on a host with BTF. Returns 0 or a negative errno. */
KBPF_API int kbpf_program_struct_ops_attach(struct kbpf_object *obj, struct kbpf_program *prog, const char **prog_type,
				   uint32_t *attach_btf_id, const char **member);
/* How a BTF-attached tracing program is verified (kbpf_object_load does this for each):
 * its section ("fentry/FUNC", "fexit/FUNC", "fmod_ret/FUNC", or a sleepable ".s" form)
 * names the program type the host registered under that prefix (*prog_type) and FUNC,
 * a function of the host's BTF (*attach_btf_id: kbpf_verify_opts.attach_btf_id);
 * "lsm/HOOK" names type "lsm" and the function bpf_lsm_HOOK.
 * *prog_type NULL: the host has no such type (the program loads unverified). Returns 0,
 * or -ESRCH (no such function in the host BTF) / -EINVAL (no function named), logged
 * in the object log. */
KBPF_API int kbpf_program_tracing_attach(struct kbpf_object *obj, struct kbpf_program *prog, const char **prog_type,
				uint32_t *attach_btf_id);
/* A verifier log of prog's linked instructions (kbpf_program_insns) explained as libbpf
 * explains one: each instruction poisoned by a CO-RE relocation that could not be resolved
 * and that the verifier reached, "N: (85) call unknown#195896080" followed by "invalid
 * func unknown#195896080", becomes "N: <invalid CO-RE relocation>" and "failed to resolve
 * CO-RE relocation #R: WHY (SPEC)". A log of the error line alone (log level 0) is
 * rewritten when the program has a single poisoned instruction. In place, within size
 * bytes (cut to fit). Returns the number of lines rewritten (0: none). kbpf_object_load
 * does this for the logs it keeps. */
KBPF_API int kbpf_program_fixup_log(const struct kbpf_program *prog, char *log, size_t size);
KBPF_API const struct bpf_line_info *kbpf_program_line_info(const struct kbpf_program *prog, size_t *cnt);

/* Source position of instruction insn_idx: the line_info record in force there (the last
 * one at or before it). */
struct kbpf_source_line {
	const char *file;  /* source file name as compiled */
	const char *text;  /* the source line's text ("" if the object did not record it) */
	uint32_t line;
	uint32_t col;
	size_t insn;       /* the instruction the record starts at (== insn_idx: first of a line) */
};
/* Returns 0, or -ENOENT if no record covers insn_idx. */
KBPF_API int kbpf_program_source_line(const struct kbpf_program *prog, size_t insn_idx, struct kbpf_source_line *out);

/* --- Maps -------------------------------------------------------------------------- *
 * Maps exist once the object is loaded: before, these return NULL. Global data maps are
 * named after their section (".data", ".rodata", ".bss", ".data.foo", ".kconfig"). */
KBPF_API struct kbpf_map *kbpf_object_next_map(const struct kbpf_object *obj, const struct kbpf_map *prev);
KBPF_API struct kbpf_map *kbpf_object_find_map(const struct kbpf_object *obj, const char *name);
/* Whether load creates map name (libbpf's bpf_map__set_autocreate); default true. A map
 * left out is not in the map table (kbpf_object_next_map skips it) and a loaded program
 * that uses it fails to link ("uses map 'X', which is not created"). Before load:
 * -EBUSY after, -ENOENT for no such map (names as kbpf_object_find_map's). */
KBPF_API int kbpf_object_set_map_autocreate(struct kbpf_object *obj, const char *name, bool autocreate);
/* After load: the map table, *nr entries, by the index BPF_PSEUDO_MAP_IDX immediates
 * carry (NULL where a map was not created); NULL before load. */
KBPF_API struct kbpf_map *const *kbpf_object_map_table(const struct kbpf_object *obj, size_t *nr);
/* BTF type ids (in kbpf_object_btf) of a map's key and value, 0 if not known: __type()
 * of a BTF-defined map, the DATASEC of a global data map. */
KBPF_API uint32_t kbpf_object_map_btf_key_type_id(const struct kbpf_object *obj, const struct kbpf_map *map);
KBPF_API uint32_t kbpf_object_map_btf_value_type_id(const struct kbpf_object *obj, const struct kbpf_map *map);

/* Global data before load: the bytes load copies into the map of section sec_name
 * (".data", ".rodata", ".bss", ".data.foo" …), writable, *size of them; *datasec_id the
 * section's DATASEC in kbpf_object_btf (0: none), whose VARs give each variable's offset
 * and type. libbpf's bpf_map__initial_value, a skeleton's obj->rodata: how a host sets a
 * const volatile configuration before the verifier sees it. NULL: no such section, out
 * of memory, or load was already tried (then the map holds the data:
 * kbpf_map_direct_value_addr). */
KBPF_API void *kbpf_object_global_data(struct kbpf_object *obj, const char *sec_name, size_t *size, uint32_t *datasec_id);

/* --- struct_ops -------------------------------------------------------------------- *
 * What a `SEC(".struct_ops")` / `SEC(".struct_ops.link")` variable says: which struct,
 * its initial bytes, and which program fills each function-pointer member. Available
 * after open; kbpf does not register anything with the host here. */
struct kbpf_struct_ops_member {
	const char *name;             /* member name */
	uint32_t offset;              /* byte offset in the struct */
	struct kbpf_program *prog;    /* the program the object puts there, or NULL */
};

struct kbpf_struct_ops {
	const char *name;             /* the variable (libbpf: the map) name */
	const char *sec_name;         /* ".struct_ops" or ".struct_ops.link" */
	const char *type_name;        /* e.g. "tcp_congestion_ops" */
	uint32_t type_id;             /* the STRUCT's id in kbpf_object_btf */
	const void *data;             /* initial bytes of the struct (pointers zero) */
	size_t data_size;
	const struct kbpf_struct_ops_member *members; /* function-pointer members only */
	size_t nr_members;
};

KBPF_API const struct kbpf_struct_ops *kbpf_object_next_struct_ops(const struct kbpf_object *obj,
							  const struct kbpf_struct_ops *prev);
KBPF_API const struct kbpf_struct_ops *kbpf_object_find_struct_ops(const struct kbpf_object *obj, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* KBPF_OBJECT_H */
