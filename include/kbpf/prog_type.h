/* SPDX-License-Identifier: Apache-2.0 */
/* Program types and helper prototypes: what the verifier needs to know about a host.
 *
 * A program type is a record the host registers (Linux's bpf_verifier_ops, as data):
 * the context's size and access rule, the helpers available with their prototypes,
 * the range of return values.  kbpf's Linux-compatible types (socket_filter, xdp, …)
 * live in hosts/linux and are built on this header only.  A helper prototype says,
 * per argument, what the verifier must prove before the call and how R0 is typed
 * after it — Linux's bpf_func_proto, with the same argument and return kinds.
 *
 * Ownership: registration copies the record and its strings (the type's name and
 * ctx_btf_name, a prototype's name and ret_btf_name); what other pointers in it point to
 * (tables, callbacks' data) must outlive the host. kbpf_host_prog_type_find and
 * kbpf_host_helper_proto return the host's copies: valid until kbpf_host_free.
 * Threads: program types may be registered, found and enumerated while other threads
 * create and run programs on the host (a lock; types are never removed). Helper
 * prototypes (kbpf_host_helper_register_proto) are set up with the helper table
 * (<kbpf/host.h>), before other threads use the host. */
#ifndef KBPF_PROG_TYPE_H
#define KBPF_PROG_TYPE_H

#include <kbpf/export.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kbpf/host.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Register types, Linux's enum bpf_reg_type base values (names in verifier logs:
 * "scalar", "ctx", "map_ptr", "map_value", "fp", "pkt", "pkt_end", "ptr_", "mem" …). */
enum kbpf_reg_type {
	KBPF_NOT_INIT = 0,
	KBPF_SCALAR_VALUE,
	KBPF_PTR_TO_CTX,
	KBPF_CONST_PTR_TO_MAP,
	KBPF_PTR_TO_MAP_VALUE,
	KBPF_PTR_TO_MAP_KEY,
	KBPF_PTR_TO_STACK,
	KBPF_PTR_TO_PACKET_META,
	KBPF_PTR_TO_PACKET,
	KBPF_PTR_TO_PACKET_END,
	KBPF_PTR_TO_FLOW_KEYS,
	KBPF_PTR_TO_SOCKET,
	KBPF_PTR_TO_SOCK_COMMON,
	KBPF_PTR_TO_TCP_SOCK,
	KBPF_PTR_TO_TP_BUFFER,
	KBPF_PTR_TO_XDP_SOCK,
	KBPF_PTR_TO_BTF_ID,
	KBPF_PTR_TO_MEM,
	KBPF_PTR_TO_BUF,
	KBPF_PTR_TO_FUNC,
	KBPF_PTR_TO_DYNPTR,
	KBPF_REG_TYPE_MAX,
};
/* Flags above the 8-bit base, as in Linux 6.1. */
#define KBPF_REG_BASE(t)     ((t) & 0xffu)
#define KBPF_PTR_MAYBE_NULL  (1u << 8)
#define KBPF_MEM_RDONLY      (1u << 9)
#define KBPF_MEM_ALLOC       (1u << 10)
#define KBPF_PTR_UNTRUSTED   (1u << 11)
#define KBPF_PTR_TRUSTED     (1u << 12) /* Linux 6.12's PTR_TRUSTED: in kbpf_ctx_access_info
					 * .reg_type, a KBPF_PTR_TO_BTF_ID the host vouches for
					 * (valid for the whole run: KF_TRUSTED_ARGS kfuncs and
					 * read-only helper memory take it); without it such a
					 * pointer is 6.12's plain ptr_ */
#define KBPF_MEM_PERCPU      (1u << 13) /* a per-CPU host variable (typed __ksym): only
					 * bpf_per_cpu_ptr / bpf_this_cpu_ptr take it */

/* Helper argument kinds, Linux's enum bpf_arg_type base values. */
enum kbpf_arg_type {
	KBPF_ARG_DONTCARE = 0,        /* unused argument */
	KBPF_ARG_CONST_MAP_PTR,       /* const argument used as pointer to bpf_map */
	KBPF_ARG_PTR_TO_MAP_KEY,      /* pointer to stack/map/packet memory used as map key */
	KBPF_ARG_PTR_TO_MAP_VALUE,    /* … used as map value (value_size bytes) */
	KBPF_ARG_PTR_TO_MEM,          /* pointer to valid memory; size in the next argument */
	KBPF_ARG_CONST_SIZE,          /* number of bytes accessed from memory, > 0 */
	KBPF_ARG_CONST_SIZE_OR_ZERO,  /* … >= 0 */
	KBPF_ARG_PTR_TO_CTX,          /* pointer to context */
	KBPF_ARG_ANYTHING,            /* any (initialized) argument is ok */
	KBPF_ARG_PTR_TO_SPIN_LOCK,
	KBPF_ARG_PTR_TO_SOCK_COMMON,
	KBPF_ARG_PTR_TO_INT,
	KBPF_ARG_PTR_TO_LONG,
	KBPF_ARG_PTR_TO_SOCKET,
	KBPF_ARG_PTR_TO_BTF_ID,       /* a host struct (arg_btf_id / arg_btf_name); also one read
				       * from another struct (Linux's ptr_, kbpf's maybe-NULL): the
				       * helper must tolerate NULL */
	KBPF_ARG_PTR_TO_ALLOC_MEM,    /* ringbuf record */
	KBPF_ARG_CONST_ALLOC_SIZE_OR_ZERO,
	KBPF_ARG_PTR_TO_BTF_ID_SOCK_COMMON,
	KBPF_ARG_PTR_TO_PERCPU_BTF_ID, /* a per-CPU host variable (KBPF_MEM_PERCPU, typed __ksym) */
	KBPF_ARG_PTR_TO_FUNC,
	KBPF_ARG_PTR_TO_STACK,
	KBPF_ARG_PTR_TO_CONST_STR,
	KBPF_ARG_PTR_TO_TIMER,
	KBPF_ARG_PTR_TO_KPTR,
	KBPF_ARG_PTR_TO_DYNPTR,
	KBPF_ARG_TYPE_MAX,
};
/* Argument flags (or-ed into an arg type). */
#define KBPF_ARG_BASE(t)        ((t) & 0xffu)
#define KBPF_ARG_MAYBE_NULL     (1u << 8)  /* NULL (scalar 0) accepted */
#define KBPF_ARG_MEM_RDONLY     (1u << 9)  /* helper only reads the memory */
#define KBPF_ARG_MEM_UNINIT     (1u << 13) /* helper writes it: may be uninitialised stack.
					    * The verifier takes every byte as written after
					    * the call, so the helper must write them all on
					    * every return path, errors included (zeroes):
					    * docs/program-types.md, "Helper output arguments" */
#define KBPF_ARG_OBJ_RELEASE    (1u << 14) /* releases the reference it is given */
#define KBPF_ARG_MEM_FIXED_SIZE (1u << 15) /* PTR_TO_MEM of arg_size[i] bytes, no size argument */
#define KBPF_ARG_MEM_ALIGNED    (1u << 16) /* … and aligned to that size (strtol's result) */
#define KBPF_ARG_MEM_WRITE      (1u << 17) /* helper writes the memory (Linux 6.12's MEM_WRITE:
					    * read-only memory is refused, whatever the size
					    * argument; without MEM_UNINIT it must also be
					    * initialised. MEM_UNINIT implies it: Linux's
					    * ARG_PTR_TO_UNINIT_MEM is PTR_TO_MEM | MEM_UNINIT |
					    * MEM_WRITE) */

/* Helper return kinds, Linux's enum bpf_return_type base values. */
enum kbpf_ret_type {
	KBPF_RET_INTEGER = 0,         /* R0 = unknown scalar */
	KBPF_RET_VOID,                /* R0 not readable */
	KBPF_RET_PTR_TO_MAP_VALUE,    /* map value of the map argument (+KBPF_RET_MAYBE_NULL) */
	KBPF_RET_PTR_TO_SOCKET,
	KBPF_RET_PTR_TO_TCP_SOCK,
	KBPF_RET_PTR_TO_SOCK_COMMON,
	KBPF_RET_PTR_TO_ALLOC_MEM,    /* mem of the CONST_ALLOC_SIZE argument's size (ringbuf) */
	KBPF_RET_PTR_TO_MEM_OR_BTF_ID, /* the host variable of the PERCPU_BTF_ID argument: memory
				       * of its type's size, or a BTF pointer to its struct */
	KBPF_RET_PTR_TO_BTF_ID,       /* ret_btf_id in the host BTF */
	KBPF_RET_TYPE_MAX,
};
#define KBPF_RET_BASE(t)        ((t) & 0xffu)
#define KBPF_RET_MAYBE_NULL     (1u << 8)
#define KBPF_RET_MEM_RDONLY     (1u << 9)  /* KBPF_RET_PTR_TO_MEM_OR_BTF_ID: memory read-only */

/* Capabilities of whoever loads a program (Linux's CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN,
 * CAP_SYS_ADMIN). The verifier is told which ones the loader holds; types, helpers and
 * ctx fields say which ones they need, so Linux's unprivileged rules can be expressed. */
#define KBPF_CAP_BPF            (1u << 0)
#define KBPF_CAP_PERFMON        (1u << 1)
#define KBPF_CAP_NET_ADMIN      (1u << 2)
#define KBPF_CAP_SYS_ADMIN      (1u << 3)  /* implies the three others, as in Linux */
#define KBPF_CAP_SYS_BOOT       (1u << 4)  /* destructive kfuncs (KF_DESTRUCTIVE); not implied */
#define KBPF_CAP_ALL            0x1fu
/* In a caps option (kbpf_verify_opts, kbpf_prog_opts, kbpf_object_open_opts.caps): the
 * loader holds exactly the other bits given, possibly none. A caps option of 0 is the
 * default: every capability (a privileged loader), or none when unprivileged is set. */
#define KBPF_CAP_NONE           (1u << 31)

/* Helper flags. */
#define KBPF_HELPER_GPL_ONLY    (1u << 0)  /* only from GPL-compatible programs */
#define KBPF_HELPER_PKT_ACCESS  (1u << 1)  /* may take packet pointers as memory arguments */
#define KBPF_HELPER_ACQUIRE     (1u << 2)  /* R0 carries a new reference to release */
#define KBPF_HELPER_CHANGES_PKT (1u << 3)  /* invalidates packet pointers */
#define KBPF_HELPER_SLEEPABLE   (1u << 4)  /* only from sleepable programs */

struct kbpf_prog_type;
/* A helper as the verifier and the runtime see it: Linux's bpf_func_proto + the function. */
struct kbpf_helper_proto {
	const char *name;          /* "bpf_map_lookup_elem": logs print it */
	kbpf_helper_fn fn;         /* called with R1..R5; R0 = its return */
	uint32_t ret_type;         /* enum kbpf_ret_type | KBPF_RET_* flags */
	uint32_t arg_type[5];      /* enum kbpf_arg_type | KBPF_ARG_* flags */
	unsigned flags;            /* KBPF_HELPER_* */
	uint32_t ret_btf_id;       /* KBPF_RET_PTR_TO_BTF_ID: type id in the host BTF */
	uint32_t arg_btf_id[5];    /* KBPF_ARG_PTR_TO_BTF_ID: type id in the host BTF */
	unsigned caps;             /* KBPF_CAP_*: the loader needs all of these to call it
				    * (Linux: bpf_base_func_proto's CAP_BPF / CAP_PERFMON split);
				    * without them the verifier treats it as unknown. 0: anyone. */
	uint32_t arg_size[5];      /* KBPF_ARG_MEM_FIXED_SIZE: bytes of the memory argument */
	/* If set, the helper only returns this 64-bit variable, which the host keeps
	 * current (8-byte aligned, never freed while programs use it): the verifier's
	 * rewrite replaces each call with R0 = *inline_load (ld_imm64 of the address, then
	 * a load), as Linux inlines bpf_jiffies64. fn still serves programs created
	 * without verification. Checked runs may read the variable. Registration refuses a
	 * misaligned address (-EINVAL). */
	const volatile uint64_t *inline_load;
	/* Nonzero: a verified call runs as helper run_id of the host (the verifier's rewrite
	 * puts it in the call's imm), the way Linux's per-type protos of one helper id carry
	 * different functions (bpf_perf_event_output is bpf_skb_event_output for the
	 * __sk_buff types). The host must have a run-time helper under run_id. 0: the id. */
	int32_t run_id;
	/* KBPF_ARG_PTR_TO_BTF_ID where arg_btf_id is 0: the name of the struct expected, looked
	 * up in the host BTF when a program is verified (a host may load its BTF after
	 * registering its helpers). A static string. NULL and arg_btf_id 0: any BTF pointer. */
	const char *arg_btf_name[5];
	/* Linux's bpf_func_proto.allowed: NULL, or whether a program of type, attached to
	 * the host BTF function attach_btf_id (0: none), may call the helper; false: "helper
	 * call is not allowed in probe" (bpf_d_path's allowlist of attach targets). */
	bool (*allowed)(const struct kbpf_host *host, const struct kbpf_prog_type *type, uint32_t attach_btf_id);
	/* KBPF_RET_PTR_TO_BTF_ID with ret_btf_id 0: the struct of this name in the host BTF,
	 * looked up when a program calls the helper (Linux fixes its ids at build time with
	 * BTF_ID; a kbpf host's BTF may be loaded after its helpers are registered). Copied
	 * at registration. No such struct: the call is refused as Linux refuses a return
	 * type without an id ("invalid return type"). */
	const char *ret_btf_name;
};

/* Register helper id with its prototype (the proto and its name are copied). If
 * proto->fn is set, the helper is also registered for running exactly as by
 * kbpf_host_helper_register (kbpf_host_helper_find returns it); with fn NULL it is known
 * to the verifier only (programs calling it verify but do not load for running).
 * A helper registered without a prototype (kbpf_host_helper_register) can run in
 * unverified programs but is "unknown func" to the verifier.
 * Returns 0, -EINVAL (bad id, no name, unknown arg/ret kind), -EEXIST (id has a proto, or
 * fn is set and id already has a run-time helper), -ENOMEM. */
KBPF_API int kbpf_host_helper_register_proto(struct kbpf_host *host, int32_t id,
				    const struct kbpf_helper_proto *proto);
/* The prototype registered for id, or NULL. */
KBPF_API const struct kbpf_helper_proto *kbpf_host_helper_proto(const struct kbpf_host *host, int32_t id);

/* --- Context access --- */
enum kbpf_access_type { KBPF_ACCESS_READ = 1, KBPF_ACCESS_WRITE = 2 };

/* Filled by is_valid_access for an allowed access. */
struct kbpf_ctx_access_info {
	uint32_t reg_type;        /* type of the loaded value: KBPF_SCALAR_VALUE (default), packet
				   * pointers, KBPF_PTR_TO_BTF_ID (+ btf_id), … with flags */
	uint32_t btf_id;          /* KBPF_PTR_TO_BTF_ID: type id in the host BTF */
	uint32_t ctx_field_size;  /* narrow loads: the whole field's size (0: size must match) */
	unsigned caps;            /* KBPF_CAP_*: the access is allowed only if the loader has
				   * these (Linux's bpf_capable() checks in is_valid_access) */
	/* Context conversion (Linux's convert_ctx_access, as data): when conv_size is
	 * nonzero the run-time context holds the field (the ctx_field_size-aligned field
	 * containing off, or the access itself if ctx_field_size is 0) at conv_off with
	 * conv_size bytes, and the access must be rewritten to it: a full-field access
	 * becomes a conv_size access at conv_off (e.g. __sk_buff.data, a u32 in the
	 * program's view, is a 64-bit pointer at run time); a narrow load keeps its size
	 * and its position inside the field. 0: the program's offset is the run-time one. */
	uint32_t conv_off;
	uint32_t conv_size;
	/* KBPF_PTR_TO_BTF_ID with btf_id 0: the name of the struct, looked up in the host BTF
	 * by the verifier (the callback has no host; Linux's netfilter context types its
	 * pointers so). A static string. No host BTF or no such struct: the access is
	 * refused ("invalid bpf_context access"), as Linux refuses it. */
	const char *btf_name;
};

struct kbpf_prog_type;
/* LD_ABS / LD_IND at run time (Linux's bpf_skb_load_helper_{8,16,32}): the address of
 * the size (1, 2 or 4) packet bytes at offset off of the packet whose context is ctx, or
 * NULL when they are not all inside it. off >= 0 counts from the packet's first byte
 * (Linux: skb->data); negative offsets are the type's to define (Linux: SKF_NET_OFF,
 * SKF_LL_OFF), NULL if it defines none. ctx is R6, which the verifier guarantees is the
 * context. The engines read the bytes as a big-endian value into R0; on NULL the
 * function executing the load returns 0 at once (its caller continues), as in Linux.
 * Called from the interpreter and from JIT code (a native call): it must not fail in
 * any other way, and it may be called with any offset. */
typedef const void *(*kbpf_ld_abs_fn)(const void *ctx, int32_t off, uint32_t size);

/* Returns 1 if a size-byte access of type at byte offset off of the context is allowed
 * (and fills *info, which the caller zeroes first), 0 if not (the verifier then reports
 * "invalid bpf_context access off=%d size=%d"). */
typedef int (*kbpf_ctx_access_fn)(const struct kbpf_prog_type *type, int off, int size,
				  enum kbpf_access_type access, struct kbpf_ctx_access_info *info);
/* The helper id as this program type sees it, or NULL: "unknown func %s#%d". */
typedef const struct kbpf_helper_proto *(*kbpf_func_proto_fn)(const struct kbpf_prog_type *type,
							      const struct kbpf_host *host, int32_t id);

/* The rule for R0 at a program's exit (kbpf_prog_type.attach_func). */
struct kbpf_attach_ret {
	int has_range;   /* nonzero: R0 must be a scalar within [min, max] */
	int32_t min, max;
	int is_32bit;    /* compare R0's lower 32 bits as an s32 (Linux's return_32bit) */
};

struct kbpf_prog_type {
	size_t sz;                  /* sizeof(struct kbpf_prog_type) */
	const char *name;           /* "socket_filter", "xdp", "tcp_congestion_ops" … */
	uint32_t linux_type;        /* enum bpf_prog_type it mirrors, 0 if none */
	uint32_t ctx_size;          /* bytes of the context struct programs see */
	const char *ctx_btf_name;   /* "__sk_buff", … in the host BTF, or NULL */
	kbpf_ctx_access_fn is_valid_access; /* NULL: any in-bounds read of ctx_size, no writes */
	kbpf_func_proto_fn get_func_proto;  /* NULL: every helper the host registered a proto for */
	int has_ret_range;          /* nonzero: R0 at exit must be within [ret_min, ret_max] */
	int32_t ret_min, ret_max;
	int direct_packet_access;   /* KBPF_PKT_ACCESS_*: packet pointers may be dereferenced
				     * after range checks (Linux's may_access_direct_pkt_data) */
	void *priv;                 /* for the callbacks */
	unsigned load_caps;         /* KBPF_CAP_*: needed to load a program of this type at all
				     * (Linux: all but socket_filter/cgroup_skb need CAP_BPF) */
	/* Writes through a PTR_TO_BTF_ID pointer to struct btf_id (host BTF) at byte off of
	 * size bytes (Linux's btf_struct_access op, for writes only: reads always walk the
	 * BTF). Return 0 to allow, or a negative errno with the reason in msg (one line, no
	 * newline; empty: "only read is supported"). NULL: every such write is refused. */
	int (*btf_struct_access)(const struct kbpf_prog_type *type, uint32_t btf_id, int off, int size,
				 char *msg, size_t msg_size);
	/* After the generic typing of argument arg of an attach_btf_id context (see
	 * kbpf_verify_opts.attach_btf_id): may change *info (e.g. promote struct sock to
	 * struct tcp_sock: Linux's bpf_tcp_ca_is_valid_access); return 1 to allow, 0 to refuse
	 * ("invalid bpf_context access off=%d size=%d"). NULL: the generic typing stands.
	 * reg_type comes without KBPF_PTR_TRUSTED, which the verifier adds afterwards by
	 * Linux 6.12's rule (expected_attach_type); the hook may set it to vouch for an
	 * argument the rule leaves plain. */
	int (*ctx_arg_access)(const struct kbpf_prog_type *type, const struct kbpf_host *host,
			      uint32_t arg, struct kbpf_ctx_access_info *info);
	/* Like get_func_proto, knowing the struct_ops member the program fills (NULL if none):
	 * used instead of get_func_proto when set (tcp: no bpf_setsockopt from `release`). */
	const struct kbpf_helper_proto *(*get_func_proto_member)(const struct kbpf_prog_type *type,
								 const struct kbpf_host *host, int32_t id,
								 const char *attach_member);
	/* The packet behind the context for LD_ABS / LD_IND (see kbpf_ld_abs_fn). The
	 * verifier allows those instructions by linux_type (Linux's socket_filter,
	 * sched_cls, sched_act); kbpf_prog_create then needs this hook to run them. NULL:
	 * such programs verify but are not created ("LD_ABS/LD_IND need …"). */
	kbpf_ld_abs_fn ld_abs;
	/* A BTF-attached context (kbpf_verify_opts.attach_btf_id) with the function's return
	 * value in the slot after its arguments (Linux's btf_ctx_access, arg == nr_args):
	 * KBPF_ATTACH_RET_ANY (fexit: typed like an argument), KBPF_ATTACH_RET_INT (fmod_ret:
	 * the function must return an integer of at most 8 bytes). 0: no such slot. */
	int attach_ret;
	/* A program attached to the host BTF function func (kbpf_verify_opts.attach_btf_id
	 * naming a FUNC, btf_id its id): whether this type may attach there, and the rule for
	 * R0 at exit there. *ret comes in as the type's own rule (has_ret_range, ret_min,
	 * ret_max); return 0 to allow it (*ret possibly changed: Linux 6.12's LSM hooks
	 * return [-MAX_ERRNO, 0] or [0, 1], checked on R0's lower 32 bits), or a negative
	 * errno with the reason in msg (one line, no newline). A function returning void
	 * needs no R0 for struct_ops and LSM types whatever *ret says. NULL: any function,
	 * the type's own rule. */
	int (*attach_func)(const struct kbpf_prog_type *type, const struct kbpf_host *host, uint32_t btf_id,
			   const char *func, struct kbpf_attach_ret *ret, char *msg, size_t msg_size);
	/* The struct (host BTF) the context is in memory at run time — Linux's kernel
	 * context, sk_buff for __sk_buff — which the kfunc bpf_cast_to_kern_ctx(ctx) returns
	 * a pointer to (docs/kfuncs.md): the program reads it through the BTF, so every
	 * pointer member must hold NULL or a valid object of its type, and the object must
	 * be at least that struct's size. Copied at registration. NULL: the cast is refused
	 * for this type ("kern ctx type ... is not a struct"). */
	const char *kern_ctx_btf_name;
	/* Linux's expected_attach_type (enum bpf_attach_type) this type mirrors, where a
	 * verifier rule depends on it. Read for linux_type BPF_PROG_TYPE_TRACING only: Linux
	 * 6.12's btf_ctx_access trusts (PTR_TRUSTED) the BTF context arguments of
	 * BPF_TRACE_RAW_TP (tp_btf) and BPF_TRACE_ITER programs, never those of fentry,
	 * fexit or fmod_ret (BPF_TRACE_FENTRY…), nor of a tracing type that leaves this 0;
	 * of BPF_TRACE_ITER, kbpf trusts meta only (it cannot tell a host's targets apart).
	 * STRUCT_OPS arguments are trusted, LSM ones but for 6.12's untrusted hooks; a
	 * ctx_arg_access hook may add KBPF_PTR_TRUSTED to an argument. */
	uint32_t expected_attach_type;
};
#define KBPF_ATTACH_RET_ANY 1
#define KBPF_ATTACH_RET_INT 2
/* direct_packet_access values. */
#define KBPF_PKT_ACCESS_NONE    0
#define KBPF_PKT_ACCESS_RW      1  /* read and write (tc, xdp) */
#define KBPF_PKT_ACCESS_RDONLY  2  /* read only (cgroup_skb, lwt_in/out …) */

/* Register a program type under type->name (the struct and its two strings are copied;
 * priv must outlive the host). type->sz may be smaller than today's struct (missing
 * fields read as zero) or larger if the extra bytes are zero. Returns 0, -EINVAL (no
 * name, bad sz, ret_min > ret_max), -EEXIST (name taken), -ENOMEM. */
KBPF_API int kbpf_host_prog_type_register(struct kbpf_host *host, const struct kbpf_prog_type *type);
/* The program type registered as name, or NULL. */
KBPF_API const struct kbpf_prog_type *kbpf_host_prog_type_find(const struct kbpf_host *host, const char *name);
/* Call fn for every registered type (for `kbpf verify --type help`). */
KBPF_API void kbpf_host_prog_type_foreach(const struct kbpf_host *host,
				 void (*fn)(const struct kbpf_prog_type *type, void *arg), void *arg);

#ifdef __cplusplus
}
#endif
#endif /* KBPF_PROG_TYPE_H */
