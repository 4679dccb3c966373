/* SPDX-License-Identifier: Apache-2.0 */
/* Helper calls through the host's prototypes (Linux 6.1 check_helper_call,
 * check_func_arg, check_helper_mem_access, check_mem_size_reg). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/btf.h>
#include <kbpf/isa.h>
#include "verifier/env.h"
#include "verifier/kfunc.h"
#include "verifier/kptr.h"
#include "verifier/spin_lock.h"
#include "verifier/stack.h"
#include "verifier/vbtf.h"
#include "opts.h"
#include "maps/map_rdonly.h"

int check_mem_region(struct env *env, int regno, int off, int size, uint32_t mem_size, bool zero_ok);
int check_packet_access(struct env *env, int regno, int off, int size, bool zero_ok);

struct call_meta {
	struct kbpf_map *map;
	/* raw_mode: the memory argument may be uninitialised stack (MEM_UNINIT); write: the
	 * helper writes it (6.12's access type, MEM_WRITE; MEM_UNINIT implies it), which
	 * read-only memory refuses whatever the size argument is */
	bool raw_mode, write, pkt_access;
	int regno; /* the memory argument a size refers to */
	uint32_t mem_size;
	uint32_t ref_obj_id;
	int release_regno;
	uint64_t msize_max;
	uint32_t subprogno; /* ARG_PTR_TO_FUNC: the callback */
	bool has_func;
	uint32_t ret_btf_id; /* ARG_PTR_TO_PERCPU_BTF_ID: the variable's type (host BTF) */
	int32_t func_id;
	const struct kbpf_map_kptr *kptr; /* ARG_PTR_TO_KPTR: the referenced kptr (kptr.c) */
};

static const uint32_t map_kv_types[] = { KBPF_PTR_TO_STACK, KBPF_PTR_TO_PACKET, KBPF_PTR_TO_PACKET_META,
					 KBPF_PTR_TO_MAP_KEY, KBPF_PTR_TO_MAP_VALUE, 0 };
static const uint32_t scalar_types[] = { KBPF_SCALAR_VALUE, 0 };
static const uint32_t map_ptr_types[] = { KBPF_CONST_PTR_TO_MAP, 0 };
static const uint32_t ctx_types[] = { KBPF_PTR_TO_CTX, 0 };
static const uint32_t sock_types[] = { KBPF_PTR_TO_SOCK_COMMON, KBPF_PTR_TO_SOCKET, KBPF_PTR_TO_TCP_SOCK,
				       KBPF_PTR_TO_XDP_SOCK, 0 };
static const uint32_t fullsock_types[] = { KBPF_PTR_TO_SOCKET, 0 };
static const uint32_t btf_types[] = { KBPF_PTR_TO_BTF_ID, 0 };
static const uint32_t percpu_btf_types[] = { KBPF_PTR_TO_BTF_ID | KBPF_MEM_PERCPU, 0 };
static const uint32_t btf_sock_common_types[] = { KBPF_PTR_TO_SOCK_COMMON, KBPF_PTR_TO_SOCKET, KBPF_PTR_TO_TCP_SOCK,
						  KBPF_PTR_TO_XDP_SOCK, KBPF_PTR_TO_BTF_ID, 0 };
static const uint32_t map_value_types[] = { KBPF_PTR_TO_MAP_VALUE, 0 };
static const uint32_t mem_types[] = { KBPF_PTR_TO_STACK, KBPF_PTR_TO_PACKET, KBPF_PTR_TO_PACKET_META,
				      KBPF_PTR_TO_MAP_KEY, KBPF_PTR_TO_MAP_VALUE, KBPF_PTR_TO_MEM,
				      KBPF_PTR_TO_MEM | KBPF_MEM_ALLOC, KBPF_PTR_TO_BUF,
				      KBPF_PTR_TO_BTF_ID | KBPF_PTR_TRUSTED, 0 };
static const uint32_t alloc_mem_types[] = { KBPF_PTR_TO_MEM | KBPF_MEM_ALLOC, 0 };
static const uint32_t func_types[] = { KBPF_PTR_TO_FUNC, 0 };
static const uint32_t stack_types[] = { KBPF_PTR_TO_STACK, 0 };
static const uint32_t dynptr_types[] = { KBPF_PTR_TO_STACK, KBPF_PTR_TO_DYNPTR, 0 };

static const uint32_t *compatible(uint32_t arg)
{
	switch (KBPF_ARG_BASE(arg)) {
	case KBPF_ARG_PTR_TO_MAP_KEY:
	case KBPF_ARG_PTR_TO_MAP_VALUE:
	case KBPF_ARG_PTR_TO_INT:
	case KBPF_ARG_PTR_TO_LONG:
		return map_kv_types;
	case KBPF_ARG_CONST_SIZE:
	case KBPF_ARG_CONST_SIZE_OR_ZERO:
	case KBPF_ARG_CONST_ALLOC_SIZE_OR_ZERO:
		return scalar_types;
	case KBPF_ARG_CONST_MAP_PTR:
		return map_ptr_types;
	case KBPF_ARG_PTR_TO_CTX:
		return ctx_types;
	case KBPF_ARG_PTR_TO_SOCK_COMMON:
		return sock_types;
	case KBPF_ARG_PTR_TO_SOCKET:
		return fullsock_types;
	case KBPF_ARG_PTR_TO_BTF_ID_SOCK_COMMON:
		return btf_sock_common_types;
	case KBPF_ARG_PTR_TO_BTF_ID:
		return btf_types;
	case KBPF_ARG_PTR_TO_PERCPU_BTF_ID:
		return percpu_btf_types;
	case KBPF_ARG_PTR_TO_SPIN_LOCK:
	case KBPF_ARG_PTR_TO_CONST_STR:
	case KBPF_ARG_PTR_TO_TIMER:
	case KBPF_ARG_PTR_TO_KPTR:
		return map_value_types;
	case KBPF_ARG_PTR_TO_MEM:
		return mem_types;
	case KBPF_ARG_PTR_TO_ALLOC_MEM:
		return alloc_mem_types;
	case KBPF_ARG_PTR_TO_FUNC:
		return func_types;
	case KBPF_ARG_PTR_TO_STACK:
		return stack_types;
	case KBPF_ARG_PTR_TO_DYNPTR:
		return dynptr_types;
	default:
		return NULL;
	}
}

static bool reg_is_null(const struct reg *r)
{
	return r->type == KBPF_SCALAR_VALUE && kbpf_tnum_equals_const(r->s.var_off, 0);
}

/* 6.12's trusted_ptr_ (PTR_TO_BTF_ID | PTR_TRUSTED exactly, compared as a type: a
 * referenced plain ptr_ is not one): a struct_ops, tp_btf or LSM argument, the kern ctx
 * cast; never a fentry/fexit argument nor a pointer walked from an object. */
static bool btf_trusted(const struct reg *r)
{
	return r->type == KBPF_PTR_TO_BTF_ID && r->btf_trusted;
}

static int check_reg_type(struct env *env, int regno, uint32_t arg, const struct kbpf_helper_proto *fn)
{
	const struct reg *r = &cur_regs(env)[regno];
	const uint32_t *c = compatible(arg);
	uint32_t type = r->type;
	if (!c) {
		vlog(env, "unsupported arg type %u\n", arg);
		return -EINVAL;
	}
	if (arg & KBPF_ARG_MEM_RDONLY)
		type &= ~KBPF_MEM_RDONLY;
	if (arg & KBPF_ARG_MAYBE_NULL)
		type &= ~KBPF_PTR_MAYBE_NULL;
	/* a pointer read from a host struct is Linux's plain ptr_ (kbpf adds maybe-NULL):
	 * accepted where Linux accepts it; such helpers tolerate NULL (prog_type.h) */
	if (KBPF_ARG_BASE(arg) == KBPF_ARG_PTR_TO_BTF_ID && r->btf_walked &&
	    type == (KBPF_PTR_TO_BTF_ID | KBPF_PTR_MAYBE_NULL))
		type = KBPF_PTR_TO_BTF_ID;
	/* 6.12: memory may be a trusted BTF pointer (btf_trusted) */
	if (KBPF_ARG_BASE(arg) == KBPF_ARG_PTR_TO_MEM && btf_trusted(r)) {
		/* ... that the helper only reads (6.12's check_reg_type) */
		if (!(arg & KBPF_ARG_MEM_RDONLY)) {
			vlog(env, "%s() may write into memory pointed by R%d type=%s\n", fn->name ? fn->name : "unknown",
			     regno, reg_type_str(env, r->type));
			return -EACCES;
		}
		type = KBPF_PTR_TO_BTF_ID | KBPF_PTR_TRUSTED;
	}
	for (int i = 0; c[i]; i++)
		if (type == c[i])
			return 0;
	vlog(env, "R%d type=%s expected=", regno, reg_type_str(env, r->type));
	for (int i = 0; c[i]; i++)
		vlog(env, "%s%s", i ? ", " : "", reg_type_str(env, c[i]));
	vlog(env, "\n");
	return -EACCES;
}

static int arg_reg_off(struct env *env, const struct reg *r, int regno, uint32_t arg)
{
	/* 6.12's check_func_arg_reg_off: a released object must be passed as it was
	 * acquired, said before the generic offset checks (a dynptr on the stack
	 * excepted) */
	if ((arg & KBPF_ARG_OBJ_RELEASE) &&
	    !(KBPF_ARG_BASE(arg) == KBPF_ARG_PTR_TO_DYNPTR && r->type == KBPF_PTR_TO_STACK)) {
		if (r->off) {
			vlog(env, "R%d must have zero offset when passed to release func or trusted arg to kfunc\n",
			     regno);
			return -EINVAL;
		}
		return check_ptr_off_reg(env, r, regno);
	}
	switch (r->type) {
	case KBPF_PTR_TO_STACK:
	case KBPF_PTR_TO_PACKET:
	case KBPF_PTR_TO_PACKET_META:
	case KBPF_PTR_TO_MAP_KEY:
	case KBPF_PTR_TO_MAP_VALUE:
	case KBPF_PTR_TO_MEM:
	case KBPF_PTR_TO_MEM | KBPF_MEM_RDONLY:
	case KBPF_PTR_TO_MEM | KBPF_MEM_ALLOC:
	case KBPF_PTR_TO_BUF:
	case KBPF_PTR_TO_BUF | KBPF_MEM_RDONLY:
	case KBPF_SCALAR_VALUE:
		if (KBPF_ARG_BASE(arg) != KBPF_ARG_PTR_TO_ALLOC_MEM)
			return 0;
		break;
	case KBPF_PTR_TO_BTF_ID:
		/* memory at a fixed offset in the struct: checked with the bytes (helper_mem) */
		if (KBPF_ARG_BASE(arg) == KBPF_ARG_PTR_TO_MEM)
			return 0;
		break;
	default:
		break;
	}
	return check_ptr_off_reg(env, r, regno);
}

/* 6.12's check_helper_mem_access: size bytes at regno, read, or written (write); meta's
 * raw mode lets a write-only argument be uninitialised stack. */
static int helper_mem(struct env *env, int regno, int size, bool zero_ok, bool write, struct call_meta *meta)
{
	const struct reg *r = &cur_regs(env)[regno];
	bool raw = meta && meta->raw_mode;
	switch (KBPF_REG_BASE(r->type)) {
	case KBPF_PTR_TO_PACKET:
	case KBPF_PTR_TO_PACKET_META:
		return check_packet_access(env, regno, r->off, size, zero_ok);
	case KBPF_PTR_TO_MAP_KEY:
		if (write) {
			vlog(env, "R%d cannot write into %s\n", regno, reg_type_str(env, r->type));
			return -EACCES;
		}
		return check_mem_region(env, regno, r->off, size, kbpf_map_key_size(r->map), false);
	case KBPF_PTR_TO_MAP_VALUE: {
		uint32_t flags = kbpf_map_flags(r->map);
		if (write && (flags & BPF_F_RDONLY_PROG)) {
			vlog(env, "write into map forbidden, value_size=%d off=%d size=%d\n",
			     kbpf_map_value_size(r->map), r->off, size);
			return -EACCES;
		}
		if (!write && (flags & BPF_F_WRONLY_PROG)) {
			vlog(env, "read from map forbidden, value_size=%d off=%d size=%d\n",
			     kbpf_map_value_size(r->map), r->off, size);
			return -EACCES;
		}
		int err = check_mem_region(env, regno, r->off, size, kbpf_map_value_size(r->map), zero_ok);
		return err ? err : check_map_value_fields(env, regno, r->off, size, true);
	}
	case KBPF_PTR_TO_MEM:
		if ((r->type & KBPF_MEM_RDONLY) && write) {
			vlog(env, "R%d cannot write into %s\n", regno, reg_type_str(env, r->type));
			return -EACCES;
		}
		return check_mem_region(env, regno, r->off, size, r->mem_size, zero_ok);
	case KBPF_PTR_TO_STACK: {
		bool rawm = raw;
		int err = stack_range_init(env, regno, r->off, size, zero_ok, STACK_HELPER, &rawm, true);
		return err;
	}
	case KBPF_PTR_TO_BTF_ID:
		/* 6.12: the bytes must lie in the struct (check_ptr_to_btf_access); a helper
		 * that writes them needs the type's btf_struct_access. Trusted ones only (a
		 * kfunc's NULL-tolerant memory argument comes here without its maybe-NULL) */
		if (KBPF_REG_BASE(r->type) == r->type && !r->btf_walked)
			return check_btf_access(env, regno, r->off, size, raw, -1);
		goto bad;
	case KBPF_PTR_TO_CTX:
		/* 6.1: a type without ctx conversion (syscall: the ctx is the caller's
		 * buffer) checks the last byte touched like a program's own access */
		if (env->type->linux_type == BPF_PROG_TYPE_SYSCALL) {
			if (size == 0)
				return zero_ok ? 0 : -EACCES;
			return check_mem_access(env, env->insn_idx, regno, size - 1, 1, write, -1, false);
		}
		/* fall through */
	default:
	bad:
		if (zero_ok && size == 0 && reg_is_null(r))
			return 0;
		vlog(env, "R%d type=%s ", regno, reg_type_str(env, r->type));
		vlog(env, "expected=%s\n", reg_type_str(env, KBPF_PTR_TO_STACK));
		return -EACCES;
	}
}

static int check_mem_size(struct env *env, int regno, bool zero_ok, struct call_meta *meta)
{
	struct reg *r = &cur_regs(env)[regno];
	bool write = meta->write;
	int err;
	meta->msize_max = r->s.umax_value;
	if (!kbpf_tnum_is_const(r->s.var_off))
		meta = NULL; /* no raw mode: all the memory must be initialised (still written) */
	if (r->s.smin_value < 0) {
		vlog(env, "R%d min value is negative, either use unsigned or 'var &= const'\n", regno);
		return -EACCES;
	}
	/* 6.12: a size that may be 0 is refused here when 0 is not allowed (6.1 let the
	 * memory check of 0 bytes say so); the umax check below covers the rest */
	if (r->s.umin_value == 0 && !zero_ok) {
		vlog(env, "R%d invalid zero-sized read: u64=[%lld,%lld]\n", regno, (long long)r->s.umin_value,
		     (long long)r->s.umax_value);
		return -EACCES;
	}
	if (r->s.umax_value >= MAX_VAR_OFF) {
		vlog(env, "R%d unbounded memory access, use 'var &= const' or 'if (var < const)'\n", regno);
		return -EACCES;
	}
	err = helper_mem(env, regno - 1, (int)r->s.umax_value, zero_ok, write, meta);
	if (!err)
		err = mark_precise(env, regno);
	return err;
}

/* For kfunc.c (Linux's check_mem_reg and check_kfunc_mem_size_reg): the memory must
 * allow a read, then a write, of size bytes (or of the size register's range). */
int kfunc_check_mem(struct env *env, int regno, int size_regno, int size)
{
	struct call_meta meta;
	int err;
	for (int pass = 0; pass < 2; pass++) {
		memset(&meta, 0, sizeof(meta));
		meta.raw_mode = meta.write = pass == 1;
		if (size_regno >= 0)
			err = check_mem_size(env, size_regno, true, &meta);
		else
			err = helper_mem(env, regno, size, true, meta.write, &meta);
		if (err)
			return err;
	}
	return 0;
}

/* 6.12's check_reg_const_str for a kfunc's __str argument: a map value of a read-only
 * map (maps/map_rdonly.h: frozen BPF_F_RDONLY_PROG, its values sealed) at a constant
 * offset, with a NUL between there and the value's end; the kfunc reads it as a C
 * string. */
int check_const_str(struct env *env, int regno, int argno)
{
	const struct reg *r = &cur_regs(env)[regno];
	if (r->type != KBPF_PTR_TO_MAP_VALUE) {
		vlog(env, "arg#%d doesn't point to a const string\n", argno);
		return -EINVAL;
	}
	if (!kbpf_map_is_rdonly(r->map)) {
		vlog(env, "R%d does not point to a readonly map'\n", regno); /* sic, 6.12's text */
		return -EACCES;
	}
	if (!kbpf_tnum_is_const(r->s.var_off)) {
		vlog(env, "R%d is not a constant address'\n", regno);
		return -EACCES;
	}
	uint32_t vsize = kbpf_map_value_size(r->map);
	int64_t off = (int64_t)r->off + (int64_t)r->s.var_off.value;
	int size = (int64_t)vsize > r->off ? (int)((int64_t)vsize - r->off) : 1; /* past the value: refused */
	int err = helper_mem(env, regno, size, false, false, NULL);
	if (err)
		return err;
	for (int64_t i = off; i < vsize; i++) {
		uint64_t c = 1;
		if (kbpf_map_direct_read(r->map, (uint32_t)i, 1, false, &c)) {
			vlog(env, "direct value access on string failed\n");
			return -EACCES;
		}
		if (!c)
			return 0;
	}
	vlog(env, "string is not zero-terminated\n");
	return -EINVAL;
}

/* 6.1 check_reg_type for ARG_PTR_TO_BTF_ID: the pointer's struct must be the one the
 * helper expects (arg_btf_id, or arg_btf_name in the host BTF). */
static int check_arg_btf_id(struct env *env, int regno, const struct kbpf_helper_proto *fn, int arg)
{
	const struct reg *r = &cur_regs(env)[regno];
	const struct btf *btf = kbpf_host_btf(env->host);
	uint32_t want = fn->arg_btf_id[arg];

	if (!want && fn->arg_btf_name[arg] && btf) {
		int id = kbpf_host_btf_find(env->host, fn->arg_btf_name[arg], BTF_KIND_STRUCT);
		if (id <= 0) {
			/* the host has no such struct: no pointer can be one */
			const struct btf_type *a = btf__type_by_id(btf, r->btf_id);
			vlog(env, "R%d is of type %s but %s is expected\n", regno,
			     a ? btf__name_by_offset(btf, a->name_off) : "?", fn->arg_btf_name[arg]);
			return -EACCES;
		}
		want = (uint32_t)id;
	}
	if (!want || !btf)
		return 0;
	if (!kfunc_struct_ids_match(btf, r->btf_id, r->off, want, false)) {
		const struct btf_type *a = btf__type_by_id(btf, r->btf_id), *b = btf__type_by_id(btf, want);
		vlog(env, "R%d is of type %s but %s is expected\n", regno,
		     a ? btf__name_by_offset(btf, a->name_off) : "?", b ? btf__name_by_offset(btf, b->name_off) : "?");
		return -EACCES;
	}
	return 0;
}

/* 6.1 check_reg_type for ARG_PTR_TO_BTF_ID_SOCK_COMMON given a BTF pointer: Linux's
 * btf_struct_ids_match with sock_common; kbpf also takes the struct the proto names
 * (arg_btf_id / arg_btf_name: hosts/linux's sockets are struct kbpf_linux_sock). The
 * helper treats the object as a socket, so nothing else may pass: a rate_sample given
 * to the TCP host's bpf_setsockopt would be written as a struct sock. A socket map's
 * value (sock_map) takes no BTF pointer at all: kbpf cannot tell which host struct is
 * the socket object that map lookups hand out as PTR_TO_SOCKET. */
static int check_arg_btf_sock(struct env *env, int regno, const struct kbpf_helper_proto *fn, int arg, bool sock_map)
{
	const struct reg *r = &cur_regs(env)[regno];
	const struct btf *btf = kbpf_host_btf(env->host);
	int sc = btf && !sock_map ? kbpf_host_btf_find(env->host, "sock_common", BTF_KIND_STRUCT) : -ENOENT;

	if (sc > 0 && kfunc_struct_ids_match(btf, r->btf_id, r->off, (uint32_t)sc, false))
		return 0;
	if (!sock_map && btf && (fn->arg_btf_id[arg] || fn->arg_btf_name[arg])) {
		int id = fn->arg_btf_id[arg] ? (int)fn->arg_btf_id[arg]
					     : kbpf_host_btf_find(env->host, fn->arg_btf_name[arg], BTF_KIND_STRUCT);
		if (id > 0 && kfunc_struct_ids_match(btf, r->btf_id, r->off, (uint32_t)id, false))
			return 0;
	}
	const struct btf_type *a = btf ? btf__type_by_id(btf, r->btf_id) : NULL;
	vlog(env, "R%d is of type %s but sock_common is expected\n", regno,
	     a ? btf__name_by_offset(btf, a->name_off) : "?");
	return -EACCES;
}

/* SOCKMAP / SOCKHASH: slots hold sockets a program looks up as references. */
static bool map_holds_socks(const struct kbpf_map *map)
{
	uint32_t mt = map ? kbpf_map_type(map) : 0;
	return mt == BPF_MAP_TYPE_SOCKMAP || mt == BPF_MAP_TYPE_SOCKHASH;
}

static int check_func_arg(struct env *env, int arg, struct call_meta *meta, const struct kbpf_helper_proto *fn)
{
	int regno = arg + 1, err;
	struct reg *r = &cur_regs(env)[regno];
	uint32_t at = fn->arg_type[arg], base = KBPF_ARG_BASE(at);

	if (base == KBPF_ARG_DONTCARE)
		return 0;
	if ((err = check_reg_read(env, regno)))
		return err;
	if (base == KBPF_ARG_ANYTHING) {
		if (reg_is_pointer(r) && !env->perfmon) {
			vlog(env, "R%d leaks addr into helper function\n", regno);
			return -EACCES;
		}
		return 0;
	}
	if (reg_is_pkt(r) && !(meta->pkt_access && env->type->direct_packet_access)) {
		vlog(env, "helper access to the packet is not allowed\n");
		return -EACCES;
	}
	/* 6.1 resolve_map_arg_type: a socket map's value is a socket */
	bool sock_map = false;
	if (base == KBPF_ARG_PTR_TO_MAP_VALUE) {
		if (!meta->map) {
			vlog(env, "invalid map_ptr to access map->type\n");
			return -EACCES;
		}
		if (map_holds_socks(meta->map)) {
			at = KBPF_ARG_PTR_TO_BTF_ID_SOCK_COMMON;
			base = at;
			sock_map = true;
		}
		/* a bloom filter's peek reads the value it tests: initialized memory */
		if (kbpf_map_type(meta->map) == BPF_MAP_TYPE_BLOOM_FILTER && meta->func_id == BPF_FUNC_map_peek_elem)
			at = KBPF_ARG_PTR_TO_MAP_VALUE;
	}
	if (reg_is_null(r) && (at & KBPF_ARG_MAYBE_NULL)) {
		/* 6.12: a NULL for a may-be-NULL argument, no type check: the verdict rests
		 * on its value */
		if ((err = mark_precise(env, regno)))
			return err;
	} else {
		if ((err = check_reg_type(env, regno, at, fn)))
			return err;
		/* the object bpf_kptr_xchg stores must be the kptr's type (Linux matches only a
		 * non-NULL register; kbpf a maybe-NULL one too: the destructor gets it) */
		if (meta->func_id == BPF_FUNC_kptr_xchg && base == KBPF_ARG_PTR_TO_BTF_ID && meta->kptr &&
		    KBPF_REG_BASE(r->type) == KBPF_PTR_TO_BTF_ID && map_kptr_match_type(env, meta->kptr, r, regno))
			return -EACCES;
		if ((err = arg_reg_off(env, r, regno, at)))
			return err;
	}
	if (at & KBPF_ARG_OBJ_RELEASE) {
		if (!r->ref_obj_id && !reg_is_null(r)) {
			vlog(env, "R%d must be referenced when passed to release function\n", regno);
			return -EINVAL;
		}
		meta->release_regno = regno;
	}
	if (r->ref_obj_id) {
		if (meta->ref_obj_id) {
			vlog(env, "verifier internal error: more than one arg with ref_obj_id R%d %u %u\n", regno,
			     r->ref_obj_id, meta->ref_obj_id);
			return -EFAULT;
		}
		meta->ref_obj_id = r->ref_obj_id;
	}
	if (base == KBPF_ARG_PTR_TO_BTF_ID && KBPF_REG_BASE(r->type) == KBPF_PTR_TO_BTF_ID &&
	    (err = check_arg_btf_id(env, regno, fn, arg)))
		return err;
	if (base == KBPF_ARG_PTR_TO_BTF_ID_SOCK_COMMON && KBPF_REG_BASE(r->type) == KBPF_PTR_TO_BTF_ID &&
	    (err = check_arg_btf_sock(env, regno, fn, arg, sock_map)))
		return err;
	switch (base) {
	case KBPF_ARG_CONST_MAP_PTR:
		/* a timer helper: the map must be the timer's (Linux compares the map_uid of
		 * inner maps too; kbpf refuses inner-map templates with a timer, src/maps) */
		if (meta->map && meta->map != r->map) {
			vlog(env, "timer pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0\n");
			return -EINVAL;
		}
		meta->map = r->map;
		break;
	case KBPF_ARG_PTR_TO_MAP_KEY:
		if (!meta->map) {
			vlog(env, "invalid map_ptr to access map->key\n");
			return -EACCES;
		}
		return helper_mem(env, regno, (int)kbpf_map_key_size(meta->map), false, false, NULL);
	case KBPF_ARG_PTR_TO_MAP_VALUE:
		if ((at & KBPF_ARG_MAYBE_NULL) && reg_is_null(r))
			return 0;
		if (!meta->map) {
			vlog(env, "invalid map_ptr to access map->value\n");
			return -EACCES;
		}
		meta->raw_mode = at & KBPF_ARG_MEM_UNINIT;
		meta->write = at & (KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE);
		return helper_mem(env, regno, (int)kbpf_map_value_size(meta->map), false, meta->write, meta);
	case KBPF_ARG_PTR_TO_MEM:
		meta->raw_mode = at & KBPF_ARG_MEM_UNINIT;
		meta->write = at & (KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE);
		meta->regno = regno;
		if (at & KBPF_ARG_MEM_FIXED_SIZE) {
			/* no size argument follows: the proto gives the size (strtol's long) */
			int size = (int)fn->arg_size[arg];
			if ((err = helper_mem(env, regno, size, false, meta->write, meta)))
				return err;
			if (at & KBPF_ARG_MEM_ALIGNED)
				return check_ptr_alignment(env, r, 0, size, true);
		}
		break;
	case KBPF_ARG_CONST_SIZE:
		return check_mem_size(env, regno, false, meta);
	case KBPF_ARG_CONST_SIZE_OR_ZERO:
		return check_mem_size(env, regno, true, meta);
	case KBPF_ARG_CONST_ALLOC_SIZE_OR_ZERO:
		if (!kbpf_tnum_is_const(r->s.var_off)) {
			vlog(env, "R%d is not a known constant'\n", regno);
			return -EACCES;
		}
		meta->mem_size = (uint32_t)r->s.var_off.value;
		if ((err = mark_precise(env, regno)))
			return err;
		break;
	case KBPF_ARG_PTR_TO_INT:
	case KBPF_ARG_PTR_TO_LONG: {
		/* 6.1: initialised memory, aligned, which the helper writes (never raw mode:
		 * a raw-mode memory argument before it must not make this one a write-only
		 * one; 6.12 made these fixed-size MEM_WRITE memory) */
		int size = base == KBPF_ARG_PTR_TO_INT ? 4 : 8;
		meta->raw_mode = false;
		if ((err = helper_mem(env, regno, size, false, true, meta)))
			return err;
		return check_ptr_alignment(env, r, 0, size, true);
	}
	case KBPF_ARG_PTR_TO_SPIN_LOCK:
		if (meta->func_id != BPF_FUNC_spin_lock && meta->func_id != BPF_FUNC_spin_unlock) {
			vlog(env, "verifier internal error\n");
			return -EFAULT;
		}
		if (process_spin_lock(env, regno, meta->func_id == BPF_FUNC_spin_lock))
			return -EACCES;
		break;
	case KBPF_ARG_PTR_TO_TIMER:
		if (process_timer_func(env, regno, &meta->map))
			return -EACCES;
		break;
	case KBPF_ARG_PTR_TO_KPTR:
		if ((err = process_kptr_func(env, regno, &meta->kptr)))
			return err;
		meta->map = r->map;
		break;
	case KBPF_ARG_PTR_TO_CONST_STR:
		vlog(env, "R%d does not point to a readonly map'\n", regno);
		return -EACCES;
	case KBPF_ARG_PTR_TO_DYNPTR:
		vlog(env, "Expected an initialized dynptr as arg #%d\n", arg + 1);
		return -EINVAL;
	case KBPF_ARG_PTR_TO_FUNC:
		/* a PTR_TO_FUNC: ld_imm64 checked the callback is a static subprog */
		meta->subprogno = r->subprogno;
		meta->has_func = true;
		break;
	case KBPF_ARG_PTR_TO_STACK:
		/* the callback's context: a stack pointer (or NULL), checked as it is used */
		break;
	case KBPF_ARG_PTR_TO_PERCPU_BTF_ID:
		/* a per-CPU host variable (typed __ksym): R0 gets its type */
		if (!r->btf_id) {
			vlog(env, "Helper has invalid btf_id in R%d\n", regno);
			return -EACCES;
		}
		meta->ret_btf_id = r->btf_id;
		break;
	default:
		break;
	}
	return 0;
}

/* 6.1 may_update_sockmap: the program types that cannot hold a locked socket. */
static bool may_update_sockmap(struct env *env, int32_t id)
{
	if (id != BPF_FUNC_map_update_elem && id != BPF_FUNC_map_delete_elem)
		return false;
	switch (env->type->linux_type) {
	case BPF_PROG_TYPE_SOCK_OPS: /* updates only through bpf_sock_map_update */
		if (id == BPF_FUNC_map_delete_elem)
			return true;
		break;
	case BPF_PROG_TYPE_SOCKET_FILTER:
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
	case BPF_PROG_TYPE_XDP:
	case BPF_PROG_TYPE_SK_REUSEPORT:
	case BPF_PROG_TYPE_FLOW_DISSECTOR:
	case BPF_PROG_TYPE_SK_LOOKUP:
		return true;
	default: /* kbpf has no BPF_TRACE_ITER programs, Linux's other case */
		break;
	}
	vlog(env, "cannot update sockmap in this context\n");
	return false;
}

/* Linux's check_map_func_compatibility for the map types kbpf has. */
static int map_func_compat(struct env *env, struct kbpf_map *map, int32_t id, const char *name)
{
	if (!map)
		return 0;
	uint32_t mt = kbpf_map_type(map);
	bool bad = false;
	switch (mt) {
	case BPF_MAP_TYPE_PROG_ARRAY:
		bad = id != BPF_FUNC_tail_call;
		break;
	case BPF_MAP_TYPE_RINGBUF:
		bad = id != BPF_FUNC_ringbuf_output && id != BPF_FUNC_ringbuf_reserve && id != BPF_FUNC_ringbuf_query;
		break;
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY:
		bad = id != BPF_FUNC_perf_event_read && id != BPF_FUNC_perf_event_output &&
		      id != BPF_FUNC_skb_output && id != BPF_FUNC_perf_event_read_value && id != BPF_FUNC_xdp_output;
		break;
	case BPF_MAP_TYPE_SK_STORAGE:
		bad = id != BPF_FUNC_sk_storage_get && id != BPF_FUNC_sk_storage_delete;
		break;
	case BPF_MAP_TYPE_ARRAY_OF_MAPS:
	case BPF_MAP_TYPE_HASH_OF_MAPS:
		bad = id != BPF_FUNC_map_lookup_elem; /* programs only read the slots */
		break;
	case BPF_MAP_TYPE_CGROUP_STORAGE:
	case BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE:
		bad = id != BPF_FUNC_get_local_storage;
		break;
	case BPF_MAP_TYPE_STACK_TRACE:
		bad = id != BPF_FUNC_get_stackid;
		break;
	case BPF_MAP_TYPE_XSKMAP:
		bad = id != BPF_FUNC_redirect_map && id != BPF_FUNC_map_lookup_elem;
		break;
	case BPF_MAP_TYPE_SOCKMAP:
	case BPF_MAP_TYPE_SOCKHASH: {
		bool hash = mt == BPF_MAP_TYPE_SOCKHASH;
		bad = id != (hash ? BPF_FUNC_sk_redirect_hash : BPF_FUNC_sk_redirect_map) &&
		      id != (hash ? BPF_FUNC_sock_hash_update : BPF_FUNC_sock_map_update) &&
		      id != (hash ? BPF_FUNC_msg_redirect_hash : BPF_FUNC_msg_redirect_map) &&
		      id != BPF_FUNC_sk_select_reuseport && id != BPF_FUNC_map_lookup_elem && !may_update_sockmap(env, id);
		break;
	}
	case BPF_MAP_TYPE_REUSEPORT_SOCKARRAY:
		bad = id != BPF_FUNC_sk_select_reuseport;
		break;
	case BPF_MAP_TYPE_QUEUE:
	case BPF_MAP_TYPE_STACK:
		bad = id != BPF_FUNC_map_peek_elem && id != BPF_FUNC_map_pop_elem && id != BPF_FUNC_map_push_elem;
		break;
	case BPF_MAP_TYPE_BLOOM_FILTER:
		bad = id != BPF_FUNC_map_peek_elem && id != BPF_FUNC_map_push_elem;
		break;
	default:
		break;
	}
	switch (id) {
	case BPF_FUNC_get_stackid:
		bad |= mt != BPF_MAP_TYPE_STACK_TRACE;
		break;
	case BPF_FUNC_tail_call:
		bad |= mt != BPF_MAP_TYPE_PROG_ARRAY;
		break;
	case BPF_FUNC_ringbuf_output:
	case BPF_FUNC_ringbuf_reserve:
	case BPF_FUNC_ringbuf_query:
		bad |= mt != BPF_MAP_TYPE_RINGBUF;
		break;
	case BPF_FUNC_sk_storage_get:
	case BPF_FUNC_sk_storage_delete:
		bad |= mt != BPF_MAP_TYPE_SK_STORAGE;
		break;
	case BPF_FUNC_get_local_storage:
		bad |= mt != BPF_MAP_TYPE_CGROUP_STORAGE && mt != BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE;
		break;
	case BPF_FUNC_redirect_map: /* DEVMAP, DEVMAP_HASH, CPUMAP: not in kbpf */
		bad |= mt != BPF_MAP_TYPE_XSKMAP;
		break;
	case BPF_FUNC_sk_redirect_map:
	case BPF_FUNC_msg_redirect_map:
	case BPF_FUNC_sock_map_update:
		bad |= mt != BPF_MAP_TYPE_SOCKMAP;
		break;
	case BPF_FUNC_sk_redirect_hash:
	case BPF_FUNC_msg_redirect_hash:
	case BPF_FUNC_sock_hash_update:
		bad |= mt != BPF_MAP_TYPE_SOCKHASH;
		break;
	case BPF_FUNC_sk_select_reuseport:
		bad |= mt != BPF_MAP_TYPE_REUSEPORT_SOCKARRAY && mt != BPF_MAP_TYPE_SOCKMAP && mt != BPF_MAP_TYPE_SOCKHASH;
		break;
	case BPF_FUNC_perf_event_read:
	case BPF_FUNC_perf_event_output:
	case BPF_FUNC_perf_event_read_value:
	case BPF_FUNC_skb_output:
	case BPF_FUNC_xdp_output:
		bad |= mt != BPF_MAP_TYPE_PERF_EVENT_ARRAY;
		break;
	case BPF_FUNC_map_pop_elem:
		bad |= mt != BPF_MAP_TYPE_QUEUE && mt != BPF_MAP_TYPE_STACK;
		break;
	case BPF_FUNC_map_peek_elem:
	case BPF_FUNC_map_push_elem:
		bad |= mt != BPF_MAP_TYPE_QUEUE && mt != BPF_MAP_TYPE_STACK && mt != BPF_MAP_TYPE_BLOOM_FILTER;
		break;
	default:
		break;
	}
	if (bad) {
		vlog(env, "cannot pass map_type %u into func %s#%d\n", mt, name, id);
		return -EINVAL;
	}
	return 0;
}

#define LINUX_FUNC_MAX_ID 212 /* __BPF_FUNC_MAX_ID in Linux 6.12 (6.1: 211) */

/* Linux's bpf_helper_changes_pkt_data (6.12, with 6.13's tail call): after such a call no
 * packet pointer of any frame may be trusted. A tail call counts for the functions that
 * call it: the program it runs may change the packet and return to their caller. */
static bool proto_changes_pkt_data(const struct kbpf_helper_proto *fn, int32_t id)
{
	return id == BPF_FUNC_tail_call || (fn && (fn->flags & KBPF_HELPER_CHANGES_PKT));
}

static bool helper_changes_pkt_data(struct env *env, int32_t id)
{
	if (id == BPF_FUNC_tail_call)
		return true;
	if (id < 0 || (env->type->linux_type && id >= LINUX_FUNC_MAX_ID))
		return false;
	return proto_changes_pkt_data(helper_proto(env, id), id);
}

/* Linux 6.13's changes_pkt_data of each function (computed in check_cfg there): a
 * function changes packet data if it calls a helper that does, or calls (or passes
 * as a callback) a function that does. A global function is verified on its own, so
 * its callers learn it from this. */
static void compute_changes_pkt_data(struct env *env)
{
	const struct bpf_insn *insn = env->insns;
	bool changed = true;

	env->pkt_data_known = true;
	for (int s = 0; s < env->nr_sub; s++)
		for (int i = env->sub[s].start; i < env->sub[s + 1].start; i++)
			if (insn[i].code == (BPF_JMP | BPF_CALL) && insn[i].src_reg == 0 &&
			    helper_changes_pkt_data(env, insn[i].imm))
				env->sub[s].changes_pkt_data = true;
	while (changed) {
		changed = false;
		for (int s = 0; s < env->nr_sub; s++) {
			if (env->sub[s].changes_pkt_data)
				continue;
			for (int i = env->sub[s].start; i < env->sub[s + 1].start; i++) {
				bool call = insn[i].code == (BPF_JMP | BPF_CALL) && insn[i].src_reg == BPF_PSEUDO_CALL;
				bool func = insn[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
					    insn[i].src_reg == BPF_PSEUDO_FUNC;
				int callee = call || func ? find_subprog(env, insn_target(i, insn[i].imm)) : -1;
				if (callee >= 0 && env->sub[callee].changes_pkt_data) {
					env->sub[s].changes_pkt_data = true;
					changed = true;
					break;
				}
			}
		}
	}
}

static void clear_pkt_pointers(struct env *env)
{
	struct vstate *st = env->cur;
	for (int f = 0; f <= st->curframe; f++) {
		struct frame *fr = st->frame[f];
		for (int i = 0; i < MAX_REG; i++)
			if (reg_is_pkt(&fr->regs[i]) || fr->regs[i].type == KBPF_PTR_TO_PACKET_END)
				reg_mark_unknown(env, &fr->regs[i]);
		for (int s = 0; s < fr->allocated / 8; s++) {
			struct reg *r = &fr->stack[s].spilled;
			if (fr->stack[s].type[7] == STACK_SPILL && (reg_is_pkt(r) || r->type == KBPF_PTR_TO_PACKET_END))
				reg_mark_unknown(env, r);
		}
	}
}

/* 6.1 is_ptr_cast_function: R0 carries the argument's reference. */
static bool is_ptr_cast(int32_t id)
{
	return id == BPF_FUNC_tcp_sock || id == BPF_FUNC_sk_fullsock || id == BPF_FUNC_skc_to_tcp_sock ||
	       id == BPF_FUNC_skc_to_tcp6_sock || id == BPF_FUNC_skc_to_udp6_sock || id == BPF_FUNC_skc_to_mptcp_sock ||
	       id == BPF_FUNC_skc_to_tcp_timewait_sock || id == BPF_FUNC_skc_to_tcp_request_sock;
}


/* Helpers bpf_base_func_proto hides from loads without CAP_BPF / CAP_PERFMON. */
static bool needs_capability(int32_t id)
{
	switch (id) {
	case BPF_FUNC_spin_lock: case BPF_FUNC_spin_unlock: case BPF_FUNC_jiffies64:
	case BPF_FUNC_per_cpu_ptr: case BPF_FUNC_this_cpu_ptr: case BPF_FUNC_timer_init:
	case BPF_FUNC_timer_set_callback: case BPF_FUNC_timer_start: case BPF_FUNC_timer_cancel:
	case BPF_FUNC_kptr_xchg: case BPF_FUNC_for_each_map_elem: case BPF_FUNC_loop:
	case BPF_FUNC_user_ringbuf_drain: case BPF_FUNC_ringbuf_reserve_dynptr:
	case BPF_FUNC_ringbuf_submit_dynptr: case BPF_FUNC_ringbuf_discard_dynptr:
	case BPF_FUNC_dynptr_from_mem: case BPF_FUNC_dynptr_read: case BPF_FUNC_dynptr_write:
	case BPF_FUNC_dynptr_data:
	case BPF_FUNC_trace_printk: case BPF_FUNC_get_current_task: case BPF_FUNC_get_current_task_btf:
	case BPF_FUNC_probe_read_user: case BPF_FUNC_probe_read_kernel: case BPF_FUNC_probe_read_user_str:
	case BPF_FUNC_probe_read_kernel_str: case BPF_FUNC_snprintf_btf: case BPF_FUNC_snprintf:
	case BPF_FUNC_task_pt_regs: case BPF_FUNC_trace_vprintk:
		return true;
	default:
		return false;
	}
}

const struct kbpf_helper_proto *helper_proto(const struct env *env, int32_t id)
{
	if (env->type->get_func_proto_member) /* knows the struct_ops member (btf_ctx.c) */
		return env->type->get_func_proto_member(env->type, env->host, id, env->attach_member);
	if (env->type->get_func_proto)
		return env->type->get_func_proto(env->type, env->host, id);
	return kbpf_host_helper_proto(env->host, id);
}

int check_helper_call(struct env *env, const struct bpf_insn *insn, int insn_idx)
{
	int32_t id = insn->imm;
	struct reg *regs = cur_regs(env);
	int err;

	if (id < 0 || (env->type->linux_type && id >= LINUX_FUNC_MAX_ID)) {
		const char *n = kbpf_helper_linux_name(id);
		vlog(env, "invalid func %s#%d\n", n ? n : "unknown", id);
		return -EINVAL;
	}
	const struct kbpf_helper_proto *fn = helper_proto(env, id);
	if (fn && !env->priv && env->type->linux_type && needs_capability(id))
		fn = NULL;
	/* the proto's own tier (kbpf_helper_proto.caps): unknown to a loader without it */
	if (fn && (fn->caps & ~env->caps))
		fn = NULL;
	if (!fn) {
		const char *n = kbpf_helper_linux_name(id);
		vlog(env, "program of this type cannot use helper %s#%d\n", n ? n : "unknown", id);
		return -EINVAL;
	}
	const char *name = fn->name ? fn->name : "unknown";
	const char *lic = env->opts->license;
	bool gpl = lic && (!strcmp(lic, "GPL") || !strcmp(lic, "GPL v2") || !strcmp(lic, "GPL and additional rights") ||
			   !strcmp(lic, "Dual BSD/GPL") || !strcmp(lic, "Dual MIT/GPL") || !strcmp(lic, "Dual MPL/GPL"));
	if ((fn->flags & KBPF_HELPER_GPL_ONLY) && !gpl) {
		vlog(env, "cannot call GPL-restricted function from non-GPL compatible program\n");
		return -EINVAL;
	}
	if (fn->allowed) {
		const struct kbpf_verify_opts *o = env->opts;
		uint32_t attach = OPTS_HAS(o, attach_btf_id)
					  ? o->attach_btf_id : 0;
		if (!fn->allowed(env->host, env->type, attach)) {
			vlog(env, "helper call is not allowed in probe\n");
			return -EINVAL;
		}
	}
	if ((fn->flags & KBPF_HELPER_SLEEPABLE) && !env->sleepable) {
		vlog(env, "helper call might sleep in a non-sleepable prog\n");
		return -EINVAL;
	}
	struct call_meta meta;
	memset(&meta, 0, sizeof(meta));
	meta.pkt_access = fn->flags & KBPF_HELPER_PKT_ACCESS;
	meta.func_id = id;
	for (int i = 0; i < 5; i++)
		if ((err = check_func_arg(env, i, &meta, fn)))
			return err;

	if (id == BPF_FUNC_tail_call && (!meta.map || kbpf_map_type(meta.map) != BPF_MAP_TYPE_PROG_ARRAY)) {
		vlog(env, "kernel subsystem misconfigured verifier\n");
		return -EINVAL;
	}
	if (meta.map && (kbpf_map_flags(meta.map) & BPF_F_RDONLY_PROG) &&
	    (id == BPF_FUNC_map_update_elem || id == BPF_FUNC_map_delete_elem || id == BPF_FUNC_map_push_elem ||
	     id == BPF_FUNC_map_pop_elem)) {
		vlog(env, "write into map forbidden\n");
		return -EACCES;
	}
	if (meta.release_regno) {
		if (reg_is_null(&regs[meta.release_regno])) {
			/* releasing NULL is a no-op */
		} else if (release_ref(env, meta.ref_obj_id)) {
			vlog(env, "func %s#%d reference has not been acquired before\n", name, id);
			return -EINVAL;
		}
	}
	if (id == BPF_FUNC_tail_call) {
		struct frame *f = cur_frame(env);
		if (f->nr_refs) {
			for (int i = 0; i < f->nr_refs; i++)
				vlog(env, "Unreleased reference id=%u alloc_insn=%d\n", f->refs[i].id, f->refs[i].insn);
			vlog(env, "tail_call would lead to reference leak\n");
			return -EINVAL;
		}
	}
	/* its result cannot be an error, so nothing may make it one */
	if (id == BPF_FUNC_get_local_storage && !reg_is_null(&regs[BPF_REG_2])) {
		vlog(env, "get_local_storage() doesn't support non-zero flags\n");
		return -EINVAL;
	}
	bool callback = meta.has_func && is_callback_helper(id);
	if (meta.has_func && !callback) {
		/* a host's helper that takes a function kbpf does not know how it calls: the
		 * function would run unverified (6.12's message) */
		vlog(env, "verifier bug: helper %s#%d not marked as callback-calling\n", name, id);
		return -EFAULT;
	}
	/* Linux's do_misc_fixups looks the helper up again; the proto is the same every visit */
	env->aux[insn_idx].inline_load = fn->inline_load;
	env->aux[insn_idx].run_id = fn->run_id;
	/* 6.1 update_loop_inline_state: reads (and may make precise) R4 before the clobber */
	if (callback && id == BPF_FUNC_loop && (err = loop_inline_note(env, insn_idx, meta.subprogno)))
		return err;
	/* 6.12 push_callback_call: the callback's visit starts from the caller's registers
	 * before the call (they are its arguments, and its exit comes back to this call) */
	if (callback && (err = push_callback(env, id, insn_idx, meta.subprogno)))
		return err;
	cur_frame(env)->cb_returning = false;
	clobber_caller_saved(env, cur_frame(env), true);

	uint32_t rt = KBPF_RET_BASE(fn->ret_type);
	uint32_t null_flag = (fn->ret_type & KBPF_RET_MAYBE_NULL) ? KBPF_PTR_MAYBE_NULL : 0;
	struct reg *r0 = &regs[0];
	switch (rt) {
	case KBPF_RET_INTEGER:
		reg_mark_unknown(env, r0);
		break;
	case KBPF_RET_VOID:
		r0->type = KBPF_NOT_INIT;
		break;
	case KBPF_RET_PTR_TO_MAP_VALUE:
		reg_mark_unknown(env, r0);
		reg_mark_known(r0, 0);
		if (!meta.map) {
			vlog(env, "kernel subsystem misconfigured verifier\n");
			return -EINVAL;
		}
		if (kbpf_map_inner_meta(meta.map)) {
			/* An outer map's value is an inner map, typed by the template from the
			 * call on: map_ptr_or_null, the live 6.18 kernel's rule (attack6). 6.12
			 * keeps it the outer map's 4-byte value until the NULL check, which a
			 * helper, global function or kfunc taking maybe-NULL memory then reads or
			 * writes: the first bytes of the inner map object (its ops pointer). The
			 * log still names it map_value_or_null, as 6.12 does (log.c). */
			r0->map = kbpf_map_inner_meta(meta.map);
			r0->type = KBPF_CONST_PTR_TO_MAP | null_flag;
			break;
		}
		uint32_t mt = kbpf_map_type(meta.map);
		if (mt == BPF_MAP_TYPE_XSKMAP || mt == BPF_MAP_TYPE_SOCKMAP || mt == BPF_MAP_TYPE_SOCKHASH) {
			/* a socket map's value is the socket itself, from the call on (6.18's
			 * sock_or_null; 6.12's map value of 4 or 8 bytes until the NULL check
			 * was memory a global function could write: the socket object) */
			r0->type = (mt == BPF_MAP_TYPE_XSKMAP ? KBPF_PTR_TO_XDP_SOCK : KBPF_PTR_TO_SOCKET) | null_flag;
			break;
		}
		r0->map = meta.map;
		r0->type = KBPF_PTR_TO_MAP_VALUE | null_flag;
		/* a non-NULL value names its lock by id too (may-NULL ones get theirs below) */
		if (!null_flag && reg_may_point_to_spin_lock(r0))
			r0->id = ++env->id_gen;
		break;
	case KBPF_RET_PTR_TO_SOCKET:
	case KBPF_RET_PTR_TO_TCP_SOCK:
	case KBPF_RET_PTR_TO_SOCK_COMMON:
		reg_mark_unknown(env, r0);
		reg_mark_known(r0, 0);
		r0->type = (rt == KBPF_RET_PTR_TO_SOCKET	  ? KBPF_PTR_TO_SOCKET
			    : rt == KBPF_RET_PTR_TO_TCP_SOCK ? KBPF_PTR_TO_TCP_SOCK
							      : KBPF_PTR_TO_SOCK_COMMON) |
			   null_flag;
		break;
	case KBPF_RET_PTR_TO_ALLOC_MEM:
		reg_mark_unknown(env, r0);
		reg_mark_known(r0, 0);
		r0->type = KBPF_PTR_TO_MEM | KBPF_MEM_ALLOC | null_flag;
		r0->mem_size = meta.mem_size;
		break;
	case KBPF_RET_PTR_TO_BTF_ID: {
		/* bpf_kptr_xchg returns what the slot held: the kptr's type */
		uint32_t tid = id == BPF_FUNC_kptr_xchg && meta.kptr ? meta.kptr->btf_id : fn->ret_btf_id;
		if (!tid && fn->ret_btf_name) { /* named: resolved in the host BTF now */
			int found = kbpf_host_btf_find(env->host, fn->ret_btf_name, BTF_KIND_STRUCT);
			tid = found > 0 ? (uint32_t)found : 0;
		}
		if (!tid) {
			vlog(env, "invalid return type %u of func %s#%d\n", rt, name, id);
			return -EINVAL;
		}
		reg_mark_unknown(env, r0);
		reg_mark_known(r0, 0);
		r0->type = KBPF_PTR_TO_BTF_ID | null_flag;
		r0->btf_id = tid;
		break;
	}
	case KBPF_RET_PTR_TO_MEM_OR_BTF_ID: {
		/* 6.1: the per-CPU variable's copy, typed from the variable's type: a struct as a
		 * BTF pointer, anything else as memory of its size */
		const struct btf *btf = kbpf_host_btf(env->host);
		uint32_t tid = meta.ret_btf_id;
		const struct btf_type *t = btf && tid ? kbpf_btf_skip_mods(btf, tid, NULL) : NULL;
		reg_mark_unknown(env, r0);
		reg_mark_known(r0, 0);
		if (!t) {
			vlog(env, "verifier internal error: no btf_id for func %s#%d\n", name, id);
			return -EFAULT;
		}
		if (!btf_is_composite(t)) {
			long long size = btf__resolve_size(btf, tid);
			if (size < 0 || size > UINT32_MAX) {
				const char *tname = btf__name_by_offset(btf, t->name_off);
				vlog(env, "unable to resolve the size of type '%s': %lld\n", tname ? tname : "",
				     size < 0 ? size : -E2BIG);
				return -EINVAL;
			}
			r0->type = KBPF_PTR_TO_MEM | null_flag |
				   ((fn->ret_type & KBPF_RET_MEM_RDONLY) ? KBPF_MEM_RDONLY : 0);
			r0->mem_size = (uint32_t)size;
		} else {
			/* rdonly does not apply to a BTF pointer (Linux folds it away) */
			r0->type = KBPF_PTR_TO_BTF_ID | null_flag;
			r0->btf_id = tid;
		}
		break;
	}
	default:
		vlog(env, "unknown return type %u of func %s#%d\n", fn->ret_type, name, id);
		return -EINVAL;
	}
	if (r0->type & KBPF_PTR_MAYBE_NULL)
		r0->id = ++env->id_gen;
	/* 6.1 is_acquire_function: a socket map's lookup takes a socket reference */
	if ((fn->flags & KBPF_HELPER_ACQUIRE) || (id == BPF_FUNC_map_lookup_elem && map_holds_socks(meta.map))) {
		int rid = acquire_ref(env, insn_idx);
		if (rid < 0)
			return rid;
		r0->id = (uint32_t)rid;
		r0->ref_obj_id = (uint32_t)rid;
	} else if (is_ptr_cast(id)) {
		/* cast helpers (tcp_sock, sk_fullsock, skc_to_*) keep the reference */
		r0->ref_obj_id = meta.ref_obj_id;
	}
	if (id == BPF_FUNC_get_stack || id == BPF_FUNC_get_task_stack || id == BPF_FUNC_probe_read_str ||
	    id == BPF_FUNC_probe_read_kernel_str || id == BPF_FUNC_probe_read_user_str) {
		/* 6.1 do_refine_retval_range: at most the size argument, or -errno */
		r0->s.smax_value = (int64_t)meta.msize_max;
		r0->s.s32_max_value = (int32_t)meta.msize_max;
		r0->s.smin_value = -4095;
		r0->s.s32_min_value = -4095;
		kbpf_scalar_bounds_sync(&r0->s);
		if ((err = reg_bounds_sanity_check(env, r0, "retval")))
			return err;
	}
	if (id == BPF_FUNC_tail_call && meta.map) {
		/* 6.1 record_func_map: one insn, one prog array, for unprivileged loads */
		struct insn_aux *a = &env->aux[insn_idx];
		if (!a->tail_map)
			a->tail_map = meta.map;
		else if (a->tail_map != meta.map)
			a->tail_map_poison = true;
	}
	/* A tail call from the main frame either never comes back or fell through with the
	 * packet untouched; from a called function, its target returns to the caller. */
	if (proto_changes_pkt_data(fn, id) && (id != BPF_FUNC_tail_call || env->cur->curframe > 0))
		clear_pkt_pointers(env);
	return map_func_compat(env, meta.map, id, name);
}

void clobber_caller_saved(struct env *env, struct frame *f, bool scratch)
{
	for (int i = 0; i <= 5; i++) {
		reg_mark_not_init(env, &f->regs[i]);
		if (scratch)
			scratch_reg(env, i);
	}
	f->written |= 0x3f;
}

int check_func_call(struct env *env, const struct bpf_insn *insn, int *insn_idx)
{
	struct vstate *st = env->cur;
	int target = insn_target(*insn_idx, insn->imm);
	int sub = find_subprog(env, target);
	if (sub < 0) {
		vlog(env, "verifier bug. No program starts at insn %d\n", target);
		return -EFAULT;
	}
	if (st->curframe + 1 >= KBPF_MAX_CALL_FRAMES) {
		vlog(env, "the call stack of %d frames is too deep\n", st->curframe + 2);
		return -E2BIG;
	}
	struct frame *caller = st->frame[st->curframe];
	if (subprog_is_global(env, sub)) {
		/* verified on its own (do_check_subprogs): the arguments must match its
		 * prototype; it returns an unknown scalar */
		for (int i = 1; i <= 5; i++)
			if (caller->regs[i].type != KBPF_NOT_INIT)
				mark_reg_read(env, st, st->curframe, i);
		if (!env->pkt_data_known) /* check_global_call and the clobber below ask for it */
			compute_changes_pkt_data(env);
		int err = check_global_call(env, sub, caller->regs);
		if (err == -EFAULT)
			return err;
		env->sub[sub].called = true; /* verified after main (6.12): reached, so it runs */
		if (err) {
			vlog(env, "Caller passes invalid args into func#%d ('%s')\n", sub, subprog_name(env, sub));
			return err;
		}
		if (env->level & (KBPF_LOG_LEVEL1 | KBPF_LOG_LEVEL2))
			vlog(env, "Func#%d ('%s') is global and assumed valid.\n", sub, subprog_name(env, sub));
		clobber_caller_saved(env, caller, true);
		reg_mark_unknown(env, &caller->regs[0]);
		if (env->sub[sub].changes_pkt_data)
			clear_pkt_pointers(env);
		env->insn_idx = *insn_idx;
		*insn_idx += 1;
		return 0;
	}
	struct frame *callee = frame_new(*insn_idx, st->curframe + 1, sub);
	if (!callee)
		return -ENOMEM;
	callee->invocation = ++env->invocations;
	callee->nr_refs = caller->nr_refs;
	memcpy(callee->refs, caller->refs, sizeof(callee->refs));
	for (int i = 1; i <= 5; i++) {
		/* liveness: the callee's frame has no parents, so its arguments count as
		 * read here (Linux follows each one; kbpf marks all five, never fewer) */
		if (caller->regs[i].type != KBPF_NOT_INIT)
			mark_reg_read(env, st, st->curframe, i);
		callee->regs[i] = caller->regs[i];
	}
	clobber_caller_saved(env, caller, false);
	frame_free(st->frame[st->curframe + 1]);
	st->frame[++st->curframe] = callee;
	if (env->level & (KBPF_LOG_LEVEL1 | KBPF_LOG_LEVEL2)) {
		vlog(env, "caller:\n");
		vlog_state(env, caller, true);
		vlog(env, "callee:\n");
		vlog_state(env, callee, true);
	}
	env->insn_idx = *insn_idx;
	*insn_idx = env->sub[sub].start;
	return 0;
}

int prepare_func_exit(struct env *env, int *insn_idx)
{
	struct vstate *st = env->cur;
	struct frame *callee = st->frame[st->curframe];
	struct reg *r0 = &callee->regs[0];
	if (r0->type == KBPF_PTR_TO_STACK) {
		vlog(env, "cannot return stack pointer to the caller\n");
		return -EINVAL;
	}
	if (callee->in_callback)
		return callback_exit(env, insn_idx);
	struct frame *caller = st->frame[st->curframe - 1];
	/* liveness: R0 goes on in the caller's frame, which has other parents */
	mark_reg_read(env, st, st->curframe, 0);
	caller->regs[0] = *r0;
	caller->written |= 1;
	caller->nr_refs = callee->nr_refs;
	memcpy(caller->refs, callee->refs, sizeof(caller->refs));
	*insn_idx = callee->callsite + 1;
	if (env->level & (KBPF_LOG_LEVEL1 | KBPF_LOG_LEVEL2)) {
		vlog(env, "returning from callee:\n");
		vlog_state(env, callee, true);
		vlog(env, "to caller at %d:\n", *insn_idx);
		vlog_state(env, caller, true);
	}
	frame_free(callee);
	st->frame[st->curframe--] = NULL;
	return 0;
}

static void r0_range_refused(struct env *env, const struct reg *r0, int min, int max, const char *where);

int check_return_code(struct env *env)
{
	struct reg *r0 = &cur_regs(env)[0];
	if (!cur_frame(env)->in_async_callback && btf_ctx_void_return(env))
		return 0;
	int err = check_reg_read(env, 0);
	if (err)
		return err;
	if (reg_is_pointer(r0) && !env->perfmon) {
		vlog(env, "R0 leaks addr as return value\n");
		return -EACCES;
	}
	if (cur_frame(env)->in_async_callback) {
		/* 6.1: an async callback (a timer's) returns 0 */
		if (r0->type != KBPF_SCALAR_VALUE) {
			vlog(env, "At async callback return the register R0 is not a known value (%s)\n",
			     reg_type_str(env, r0->type));
			return -EINVAL;
		}
		if ((err = mark_precise(env, 0)))
			return err;
		return check_r0_range(env, r0, 0, 0, "async callback return");
	}
	if (cur_frame(env)->subprogno) {
		/* a global function verified on its own returns a scalar to any caller */
		if (r0->type != KBPF_SCALAR_VALUE) {
			vlog(env, "At subprogram exit the register R0 is not a scalar value (%s)\n",
			     reg_type_str(env, r0->type));
			return -EINVAL;
		}
		return 0;
	}
	if (!env->ret.has_range)
		return 0;
	/* The value decides the verdict: it must not be pruned away (stricter than 6.1). */
	if (r0->type == KBPF_SCALAR_VALUE && (err = mark_precise(env, 0)))
		return err;
	if (r0->type != KBPF_SCALAR_VALUE) {
		vlog(env, "At program exit the register R0 is not a known value (%s)\n", reg_type_str(env, r0->type));
		return -EINVAL;
	}
	if (env->ret.is_32bit) {
		/* 6.12's retval_range_within with return_32bit: R0's s32 bounds */
		if (r0->s.s32_min_value >= env->ret.min && r0->s.s32_max_value <= env->ret.max)
			return 0;
		r0_range_refused(env, r0, env->ret.min, env->ret.max, "program exit");
		return -EINVAL;
	}
	return check_r0_range(env, r0, env->ret.min, env->ret.max, "program exit");
}

/* Linux's check_return_code message: R0 (a scalar) must lie within range at `where`
 * ("program exit", "callback return"). */
int check_r0_range(struct env *env, const struct reg *r0, int min, int max, const char *where)
{
	struct tnum range = kbpf_tnum_range((uint64_t)(int64_t)min, (uint64_t)(int64_t)max);

	if (kbpf_tnum_in(range, r0->s.var_off))
		return 0;
	r0_range_refused(env, r0, min, max, where);
	return -EINVAL;
}

/* 6.12's verbose_invalid_scalar: the signed bounds that are known and the range */
static void r0_range_refused(struct env *env, const struct reg *r0, int min, int max, const char *where)
{
	const struct scalar *s = &r0->s;
	vlog(env, "At %s the register R0 has", where);
	if (s->smin_value > INT64_MIN)
		vlog(env, " smin=%lld", (long long)s->smin_value);
	if (s->smax_value < INT64_MAX)
		vlog(env, " smax=%lld", (long long)s->smax_value);
	if (s->smin_value == INT64_MIN && s->smax_value == INT64_MAX)
		vlog(env, " unknown scalar value");
	vlog(env, " should have been in [%d, %d]\n", min, max);
}
