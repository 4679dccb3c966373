/* SPDX-License-Identifier: Apache-2.0 */
/* Kfuncs: the host's own C functions, callable from BPF programs by BTF id.
 *
 * A host registers *kfunc sets*: functions named with KBPF_KFUNC(fn, flags), which records
 * the function's name and its address from the same token, so the two cannot disagree
 * (kbpf never looks an address up by name). Registration resolves each name to its
 * BTF_KIND_FUNC in the host's BTF (load it first: kbpf_host_btf_load_self), computes the
 * function model (argument sizes and signedness) and refuses prototypes a call from BPF
 * cannot make: more than 5 arguments, a struct/union or float by value, variadic, wider
 * than 8 bytes. Nothing is callable by default: a kfunc is allowed for a program type
 * only when a set naming that type contains it (and the set's filter, if any, agrees),
 * or when the type's 5.13-style check callback says yes.
 *
 * Sets can come and go at run time (plugins). A program that calls a kfunc pins the set
 * it came from until the program is freed; a program created while its set is being
 * unregistered fails with -ENXIO. See docs/kfuncs.md.
 *
 * Ownership: a set's names and program types are copied at registration; the
 * functions' code, and the filter and its cookie, must stay until the set is
 * unregistered (then the code may go: dlclose). Host variables and kptr destructors are
 * kept until kbpf_host_free, and their storage and code must stay as long.
 * kbpf_host_kfunc_name's string is the set's copy (valid while the set is). Threads: sets, check callbacks, variables and destructors may be registered
 * (and sets unregistered) while other threads create and run programs on the host
 * (tests/concurrency/test_conc_churn.c); see kbpf_host_kfunc_set_unregister for the one
 * rule on the unregistering thread. */
#ifndef KBPF_KFUNC_H
#define KBPF_KFUNC_H

#include <kbpf/export.h>
#include <stddef.h>
#include <stdint.h>
#include <kbpf/host.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kfunc flags: Linux 6.1's KF_* values (include/linux/btf.h), so sets read as in Linux. */
#define KBPF_KF_ACQUIRE      (1u << 0) /* returns a reference the program must release */
#define KBPF_KF_RELEASE      (1u << 1) /* releases the reference it is given */
#define KBPF_KF_RET_NULL     (1u << 2) /* may return NULL: callers must check */
#define KBPF_KF_KPTR_GET     (1u << 3) /* arg#0 is a map's referenced kptr slot (Linux 6.1, removed in 6.4) */
#define KBPF_KF_TRUSTED_ARGS (1u << 4) /* pointer arguments must be referenced/trusted */
#define KBPF_KF_SLEEPABLE    (1u << 5) /* may block: only for sleepable programs */
#define KBPF_KF_DESTRUCTIVE  (1u << 6) /* needs the destructive capability */
#define KBPF_KF_ALL          0x7fu

/* Linux's names, unless the includer has its own (a vmlinux.h, say). */
#ifndef KF_ACQUIRE
#define KF_ACQUIRE      KBPF_KF_ACQUIRE
#define KF_RELEASE      KBPF_KF_RELEASE
#define KF_RET_NULL     KBPF_KF_RET_NULL
#define KF_KPTR_GET     KBPF_KF_KPTR_GET
#define KF_TRUSTED_ARGS KBPF_KF_TRUSTED_ARGS
#define KF_SLEEPABLE    KBPF_KF_SLEEPABLE
#define KF_DESTRUCTIVE  KBPF_KF_DESTRUCTIVE
#endif

/* Any function's address, as stored; calls go through the function model. */
typedef void (*kbpf_kfunc_addr)(void);

/* One function of a set. */
struct kbpf_kfunc {
	const char *name;     /* as in the host's BTF */
	kbpf_kfunc_addr addr; /* the function itself */
	uint32_t flags;       /* KBPF_KF_* */
};

/* { "fn", fn, flags }: name and address from the one identifier. */
#define KBPF_KFUNC(fn, fl) { #fn, (kbpf_kfunc_addr)(fn), (fl) }

/* The program a filter is asked about. Fields may grow (sz). */
struct kbpf_kfunc_prog_info {
	size_t sz;             /* sizeof(struct kbpf_kfunc_prog_info) */
	const char *prog_type; /* program type name ("tc", "tcp_congestion_ops", …) */
	const char *prog_name; /* may be NULL */
	const char *attach;    /* attach point (a struct_ops member such as "release"), or NULL */
	int sleepable;         /* nonzero for a sleepable program */
};

/* Per-set filter (Linux 6.5's btf_kfunc_id_set.filter): 0 allows the call, anything else
 * denies it. Called at load time (verification), never while a program runs. */
typedef int (*kbpf_kfunc_filter_fn)(const struct kbpf_kfunc_prog_info *prog, uint32_t btf_id, void *cookie);
/* Per-program-type check (Linux 5.13's check_kfunc_call): nonzero allows btf_id. */
typedef int (*kbpf_kfunc_check_fn)(uint32_t btf_id, void *cookie);

struct kbpf_kfunc_set_opts {
	size_t sz;                      /* sizeof(struct kbpf_kfunc_set_opts) */
	const char *name;               /* for messages and `kbpf kfuncs` (copied); NULL: "kfuncs" */
	const struct kbpf_kfunc *funcs; /* the functions (copied) */
	size_t nr_funcs;
	/* NULL-terminated program type names the set is for (copied). NULL or empty: for no
	 * type — the functions are then only reachable through a check callback. */
	const char *const *prog_types;
	kbpf_kfunc_filter_fn filter;    /* optional */
	void *filter_cookie;
	char *log_buf;                  /* receives why a registration fails */
	size_t log_size;
};

struct kbpf_kfunc_set;

/* Register a set. Every name must be a BTF FUNC of the host's BTF with a prototype a call
 * from BPF can make; a function may be in several sets (same address) but registered only
 * once per program type. Returns 0 and *set (may be NULL if not wanted), or -EINVAL (bad
 * options, no such function, unsupported prototype), -ENOENT (the host has no BTF),
 * -EEXIST (duplicate), -ENOMEM — with one line in log_buf naming the function. */
KBPF_API int kbpf_host_kfunc_set_register(struct kbpf_host *host, const struct kbpf_kfunc_set_opts *opts,
				 struct kbpf_kfunc_set **set);

/* Fail with -EBUSY instead of waiting for the programs that pin the set. */
#define KBPF_KFUNC_UNREG_NOWAIT 1u

/* Unregister and free a set. From the call on, creating a program that calls one of its
 * kfuncs fails with -ENXIO; then the call waits until every program pinning the set is
 * freed (so it must not be called by a thread that still holds such a program), removes
 * it and returns 0. With KBPF_KFUNC_UNREG_NOWAIT a pinned set stays registered and the
 * call returns -EBUSY. -ENOENT: not a set of this host; -EINPROGRESS: another thread is
 * unregistering it. After 0, the functions' code may go (dlclose). */
KBPF_API int kbpf_host_kfunc_set_unregister(struct kbpf_host *host, struct kbpf_kfunc_set *set, unsigned flags);

/* Give program type prog_type (a name) a 5.13-style check callback; cb NULL removes it.
 * The kfuncs it allows must still be registered in some set (that is where their addresses
 * come from), possibly a set for no program type. Returns 0, -EINVAL, -EEXIST, -ENOENT
 * (removing one that is not there), -ENOMEM. */
KBPF_API int kbpf_host_kfunc_check_register(struct kbpf_host *host, const char *prog_type, kbpf_kfunc_check_fn cb,
				   void *cookie);

/* Whether a program of prog->prog_type may call kfunc btf_id, as the verifier decides it:
 * returns 0 and the kfunc's flags (for that type) in *flags, -EACCES if it is not allowed
 * (deny by default), -ENOENT if btf_id is not a registered kfunc, -ENXIO if its set is
 * being unregistered. */
KBPF_API int kbpf_host_kfunc_allowed(struct kbpf_host *host, const struct kbpf_kfunc_prog_info *prog, uint32_t btf_id,
			    uint32_t *flags);

/* One (program type, kfunc) pair, for audits. */
struct kbpf_kfunc_entry {
	const char *prog_type; /* NULL for a kfunc of a set for no type (check callbacks) */
	const char *name;
	uint32_t btf_id;
	uint32_t flags;
	const char *set;       /* the set's name */
	const char *decl;      /* C declaration from the host BTF: "u32 th_mix(u8 a, s16 b, u32 c)" */
	int filtered;          /* the set has a filter: allowed subject to it */
	int by_check;          /* allowed through the type's check callback, not a set */
	kbpf_kfunc_addr addr;
};

/* Call fn for every kfunc callable by programs of prog_type (NULL: of every type, plus the
 * kfuncs of sets for no type), ordered by type then name; stop early when fn returns
 * nonzero and return that. The host's kfunc lock is held: fn must not register or
 * unregister. Returns 0 or fn's value. */
KBPF_API int kbpf_host_kfunc_foreach(struct kbpf_host *host, const char *prog_type,
			    int (*fn)(const struct kbpf_kfunc_entry *entry, void *arg), void *arg);

/* The name of a registered kfunc (for disassembly), or NULL. Valid while its set is. */
KBPF_API const char *kbpf_host_kfunc_name(struct kbpf_host *host, uint32_t btf_id);

/* --- Host variables: what typed `extern T name __ksym;` resolves to ----------------------
 * Linux lets a program take the address of a kernel variable: the loader puts the
 * variable's BTF VAR id in an ld_imm64 (BPF_PSEUDO_BTF_ID) and the verifier types the
 * register from the VAR (Linux 6.1 check_pseudo_btf_id): a per-CPU variable (its VAR in
 * the BTF's ".data..percpu" DATASEC) as a per-CPU BTF pointer, usable only through
 * bpf_per_cpu_ptr / bpf_this_cpu_ptr; a struct as PTR_TO_BTF_ID; anything else as
 * read-only memory of the type's size. A kbpf host exports its own globals the same way:
 * each must be a VAR of the host's BTF and is registered with its address, taken from the
 * same identifier as its name (KBPF_HOST_VAR), never looked up in a symbol table. pahole
 * 1.24 (Debian 12) encodes VARs only for the variables of a ".data..percpu" section, as
 * for vmlinux: define them with KBPF_HOST_PERCPU and keep that section in the executable
 * (cmake: kbpf_host_percpu_section(target)). kbpf has no per-CPU areas: a per-CPU host
 * variable has one copy, which bpf_per_cpu_ptr (for any cpu < kbpf_nr_cpus()) and
 * bpf_this_cpu_ptr return (docs/kfuncs.md, "Host variables"). */
struct kbpf_host_var {
	const char *name; /* a VAR of the host's BTF */
	void *addr;       /* the variable itself */
};
/* { "v", &v }: name and address from the one identifier. */
#define KBPF_HOST_VAR(v) { #v, (void *)&(v) }
/* Put a variable in the section pahole encodes VARs of (Linux's per-CPU section). */
#define KBPF_HOST_PERCPU __attribute__((section(".data..percpu"), used))

/* Register nr variables. Returns 0, or -EINVAL (no name or address, not a VAR of the
 * host's BTF), -ENOENT (the host has no BTF), -EEXIST (registered already, or twice in
 * vars), -ENOMEM — with one line in log_buf naming the variable; nothing is registered
 * then. Registered variables stay until the host is freed. */
KBPF_API int kbpf_host_var_register(struct kbpf_host *host, const struct kbpf_host_var *vars, size_t nr, char *log_buf,
			   size_t log_size);
/* The address registered for the VAR btf_id of the host's BTF, or NULL. */
KBPF_API void *kbpf_host_var_addr(const struct kbpf_host *host, uint32_t btf_id);

/* --- Destructors of referenced kptrs (Linux's register_btf_id_dtor_kfuncs) ---------------
 * A map value may hold host object pointers typed by BTF (`struct T __kptr *p`, btf type tag
 * "kptr", Linux 6.12's name; 6.1 called it "kptr_ref", which map creation refuses): programs move them in and out with bpf_kptr_xchg, which hands over a
 * reference. What a map still holds when an element is overwritten or deleted, or when the
 * map is freed, it gives to the destructor registered for T (Linux: the type's release
 * kfunc). Registering one is also what allows T in a referenced kptr field at all: a map
 * whose value names a type without one fails to be created (docs/maps.md). */
struct kbpf_kptr_dtor {
	const char *type;     /* the struct's name in the host's BTF (no "struct ") */
	const char *func;     /* the destructor: a FUNC of the host's BTF, `void func(T *)` */
	kbpf_kfunc_addr addr; /* the function itself */
};
/* { "T", "fn", fn }: the destructor's name and address from the one identifier. */
#define KBPF_KPTR_DTOR(type_, fn) { #type_, #fn, (kbpf_kfunc_addr)(fn) }

/* Register nr destructors. Each type must be a struct of the host's BTF, each func a FUNC
 * whose prototype is `void f(<any pointer>)` (Linux's btf_check_dtor_kfuncs). Returns 0,
 * or -EINVAL (missing name or address, no such struct/FUNC, a bad prototype), -ENOENT (the
 * host has no BTF), -EEXIST (a type has one already, or twice in dtors), -ENOMEM — with one
 * line in log_buf naming the culprit; nothing is registered then. Destructors stay until
 * the host is freed; maps created with the host keep using them (the code must stay). */
KBPF_API int kbpf_host_kptr_dtor_register(struct kbpf_host *host, const struct kbpf_kptr_dtor *dtors, size_t nr,
				 char *log_buf, size_t log_size);
/* The destructor registered for the struct btf_id of the host's BTF, or NULL. */
KBPF_API kbpf_kfunc_addr kbpf_host_kptr_dtor(const struct kbpf_host *host, uint32_t btf_id);

/* What a host plugin exports for `kbpf kfuncs --host plugin.so` (docs/kfuncs.md): called
 * with the plugin's own BTF already loaded into host, it registers the plugin's sets.
 * Returns 0 or a negative errno. */
typedef int (*kbpf_host_init_fn)(struct kbpf_host *host);
#define KBPF_HOST_INIT_SYMBOL "kbpf_host_init"

#ifdef __cplusplus
}
#endif
#endif /* KBPF_KFUNC_H */
