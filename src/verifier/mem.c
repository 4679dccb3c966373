/* SPDX-License-Identifier: Apache-2.0 */
/* Memory access through pointers (Linux 6.1 check_mem_access and its callers LDX,
 * STX, ST and atomics): alignment, then per pointer type — stack, map key/value,
 * ctx via the program type's is_valid_access, packet, mem. */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/host.h>
#include "maps/map_rdonly.h"
#include "verifier/env.h"
#include "verifier/kfunc.h"
#include "verifier/kptr.h"
#include "verifier/spin_lock.h"
#include "verifier/stack.h"

static int bpf_size_to_bytes(int sz)
{
	return sz == BPF_B ? 1 : sz == BPF_H ? 2 : sz == BPF_W ? 4 : 8;
}

static bool is_pointer_value(struct env *env, int regno)
{
	return reg_is_pointer(&cur_regs(env)[regno]) && !env->perfmon;
}

int check_ptr_off_reg_fixed(struct env *env, const struct reg *r, int regno, bool fixed_off_ok)
{
	char tn[TNUM_STR_MAX];
	if (r->off < 0) {
		vlog(env, "negative offset %s ptr R%d off=%d disallowed\n", reg_type_str(env, r->type), regno, r->off);
		return -EACCES;
	}
	if (r->off && !fixed_off_ok) {
		vlog(env, "dereference of modified %s ptr R%d off=%d disallowed\n", reg_type_str(env, r->type), regno,
		     r->off);
		return -EACCES;
	}
	if (!kbpf_tnum_is_const(r->s.var_off) || r->s.var_off.value) {
		kbpf_tnum_strn(tn, sizeof(tn), r->s.var_off);
		vlog(env, "variable %s access var_off=%s disallowed\n", reg_type_str(env, r->type), tn);
		return -EACCES;
	}
	return 0;
}

int check_ptr_off_reg(struct env *env, const struct reg *r, int regno)
{
	return check_ptr_off_reg_fixed(env, r, regno, false);
}

static int mem_access_fits(struct env *env, int regno, int64_t off, int size, uint32_t mem_size, bool zero_ok)
{
	const struct reg *r = &cur_regs(env)[regno];
	bool size_ok = size > 0 || (size == 0 && zero_ok);
	if (off >= 0 && size_ok && (uint64_t)off + size <= mem_size)
		return 0;
	switch (KBPF_REG_BASE(r->type)) {
	case KBPF_PTR_TO_MAP_KEY:
		vlog(env, "invalid access to map key, key_size=%d off=%d size=%d\n", mem_size, (int)off, size);
		break;
	case KBPF_PTR_TO_MAP_VALUE:
		vlog(env, "invalid access to map value, value_size=%d off=%d size=%d\n", mem_size, (int)off, size);
		break;
	case KBPF_PTR_TO_PACKET:
	case KBPF_PTR_TO_PACKET_META:
	case KBPF_PTR_TO_PACKET_END:
		vlog(env, "invalid access to packet, off=%d size=%d, R%d(id=%u,off=%d,r=%d)\n", (int)off, size, regno,
		     r->id, (int)off, r->range);
		break;
	default:
		vlog(env, "invalid access to memory, mem_size=%u off=%d size=%d\n", mem_size, (int)off, size);
	}
	return -EACCES;
}

/* check_mem_region_access: [smin+off, umax+off+size) inside [0, mem_size). */
int check_mem_region(struct env *env, int regno, int off, int size, uint32_t mem_size, bool zero_ok)
{
	const struct reg *r = &cur_regs(env)[regno];
	int64_t smin = r->s.smin_value;
	if (smin < 0 && (smin == INT64_MIN || (int64_t)off + smin != (int64_t)(int32_t)(off + smin) || smin + off < 0)) {
		vlog(env, "R%d min value is negative, either use unsigned index or do a if (index >=0) check.\n", regno);
		return -EACCES;
	}
	int err = mem_access_fits(env, regno, smin + off, size, mem_size, zero_ok);
	if (err) {
		vlog(env, "R%d min value is outside of the allowed memory range\n", regno);
		return err;
	}
	if (r->s.umax_value >= MAX_VAR_OFF) {
		vlog(env, "R%d unbounded memory access, make sure to bounds check any such access\n", regno);
		return -EACCES;
	}
	err = mem_access_fits(env, regno, (int64_t)r->s.umax_value + off, size, mem_size, zero_ok);
	if (err) {
		vlog(env, "R%d max value is outside of the allowed memory range\n", regno);
		return err;
	}
	return 0;
}

int check_packet_access(struct env *env, int regno, int off, int size, bool zero_ok)
{
	const struct reg *r = &cur_regs(env)[regno];
	if (r->s.smin_value < 0) {
		vlog(env, "R%d min value is negative, either use unsigned index or do a if (index >=0) check.\n", regno);
		return -EACCES;
	}
	int err = r->range < 0 ? -EINVAL : mem_access_fits(env, regno, off, size, (uint32_t)r->range, zero_ok);
	if (err) {
		vlog(env, "R%d offset is outside of the packet\n", regno);
		return err;
	}
	return 0;
}

static int check_map_access_type(struct env *env, const struct reg *r, int off, int size, bool write)
{
	uint32_t flags = kbpf_map_flags(r->map);
	if (write && (flags & BPF_F_RDONLY_PROG)) {
		vlog(env, "write into map forbidden, value_size=%d off=%d size=%d\n", kbpf_map_value_size(r->map),
		     off + r->off, size);
		return -EACCES;
	}
	if (!write && (flags & BPF_F_WRONLY_PROG)) {
		vlog(env, "read from map forbidden, value_size=%d off=%d size=%d\n", kbpf_map_value_size(r->map),
		     off + r->off, size);
		return -EACCES;
	}
	return 0;
}

/* Linux 6.12's check_mem_access reading a map value (since 5.2, 6.6 for ldsx): from a
 * read-only map (frozen, BPF_F_RDONLY_PROG, its values write-protected: maps/map_rdonly.h)
 * at a constant offset the loaded scalar is the value itself, a known constant, else
 * unknown. The size-extension at the end of check_mem_access keeps the constant. */
static int load_map_value(struct env *env, int regno, int off, int size, bool ldsx, struct reg *dst)
{
	const struct reg *r = &cur_regs(env)[regno];
	uint64_t val;
	int err;

	if (!kbpf_tnum_is_const(r->s.var_off) || !kbpf_map_is_rdonly(r->map)) {
		reg_mark_unknown(env, dst);
		return 0;
	}
	err = kbpf_map_direct_read(r->map, (uint32_t)((int64_t)off + (int64_t)r->s.var_off.value), size, ldsx, &val);
	if (err) {
		/* Linux fails the load with bpf_map_direct_read's ENOTSUPP, saying nothing */
		vlog(env, "R%d constant read from frozen read-only map '%s' of %u elements not supported\n", regno,
		     kbpf_map_name(r->map), kbpf_map_max_entries(r->map));
		return err;
	}
	reg_mark_unknown(env, dst);
	kbpf_scalar_mark_known(&dst->s, val);
	return 0;
}

static const char *align_prefix(uint32_t type)
{
	switch (type) {
	case KBPF_PTR_TO_FLOW_KEYS: return "flow keys ";
	case KBPF_PTR_TO_MAP_KEY: return "key ";
	case KBPF_PTR_TO_MAP_VALUE: return "value ";
	case KBPF_PTR_TO_CTX: return "context ";
	case KBPF_PTR_TO_STACK: return "stack ";
	case KBPF_PTR_TO_SOCKET: return "sock ";
	case KBPF_PTR_TO_SOCK_COMMON: return "sock_common ";
	case KBPF_PTR_TO_TCP_SOCK: return "tcp_sock ";
	case KBPF_PTR_TO_XDP_SOCK: return "xdp_sock ";
	default: return "";
	}
}

int check_ptr_alignment(struct env *env, const struct reg *r, int off, int size, bool strict)
{
	char tn[TNUM_STR_MAX];
	strict = strict || env->strict_alignment;
	if (size == 1)
		return 0;
	if (reg_is_pkt(r)) {
		if (!strict)
			return 0;
		struct tnum t = kbpf_tnum_add(r->s.var_off, kbpf_tnum_const((uint64_t)(int64_t)(2 + r->off + off)));
		if (!kbpf_tnum_is_aligned(t, size)) {
			kbpf_tnum_strn(tn, sizeof(tn), r->s.var_off);
			vlog(env, "misaligned packet access off %d+%s+%d+%d size %d\n", 2, tn, r->off, off, size);
			return -EACCES;
		}
		return 0;
	}
	if (r->type == KBPF_PTR_TO_STACK)
		strict = true;
	if (!strict)
		return 0;
	struct tnum t = kbpf_tnum_add(r->s.var_off, kbpf_tnum_const((uint64_t)(int64_t)(r->off + off)));
	if (!kbpf_tnum_is_aligned(t, size)) {
		kbpf_tnum_strn(tn, sizeof(tn), r->s.var_off);
		vlog(env, "misaligned %saccess off %s+%d+%d size %d\n", align_prefix(r->type), tn, r->off, off, size);
		return -EACCES;
	}
	return 0;
}

/* struct bpf_sock (80 bytes) and struct bpf_tcp_sock (112 bytes) reads, after Linux's
 * bpf_sock_is_valid_access / bpf_sock_common_is_valid_access / bpf_tcp_sock_is_valid_access. */
static bool sock_access_ok(uint32_t type, int off, int size)
{
	if (off < 0 || size <= 0 || off % size)
		return false;
	if (type == KBPF_PTR_TO_TCP_SOCK) /* bytes_received and bytes_acked are u64 */
		return off + size <= 112 && (off == 80 || off == 88 ? size == 8 : size == 4);
	if (type == KBPF_PTR_TO_XDP_SOCK)
		return off == 0 && size == 4; /* queue_id */
	if (off + size > 80)
		return false;
	if (type == KBPF_PTR_TO_SOCK_COMMON && off >= 8 && off < 24) /* type .. priority */
		return false;
	switch (off & ~3) {
	case 72: /* state */
	case 4:  /* family */
	case 8:  /* type */
	case 12: /* protocol */
	case 44: /* src_port */
	case 76: /* rx_queue_mapping */
	case 24: /* src_ip4 */
	case 28: case 32: case 36: case 40: /* src_ip6 */
	case 52: /* dst_ip4 */
	case 56: case 60: case 64: case 68: /* dst_ip6 */
		return size <= 4 && (off & ~3) + 4 >= off + size;
	case 48: /* dst_port (be16) + padding */
		return size == 4 ? off == 48 : off + size <= 50;
	}
	return size == 4;
}

static int check_ctx_access(struct env *env, int off, int size, bool write, struct kbpf_ctx_access_info *info)
{
	const struct kbpf_prog_type *t = env->type;
	memset(info, 0, sizeof(*info));
	info->reg_type = KBPF_SCALAR_VALUE;
	bool ok;
	if (env->attach_proto_id) /* the argument array of a function (btf_ctx.c) */
		ok = btf_ctx_access(env, off, size, write, info);
	else if (t->is_valid_access)
		ok = off >= 0 && t->is_valid_access(t, off, size, write ? KBPF_ACCESS_WRITE : KBPF_ACCESS_READ, info);
	else
		ok = !write && off >= 0 && size > 0 && (uint64_t)off + size <= t->ctx_size;
	/* A field the type allows only to some loaders (Linux's bpf_capable() checks in
	 * is_valid_access: cgroup_skb's data, tstamp writes…). */
	if (ok && (info->caps & ~env->caps))
		ok = false;
	/* Never trust a callback to keep an access inside the context. */
	if (ok && !env->attach_proto_id && t->ctx_size && (off < 0 || (uint64_t)off + size > t->ctx_size))
		ok = false;
	if (ok && KBPF_REG_BASE(info->reg_type) == KBPF_PTR_TO_BTF_ID && !info->btf_id && info->btf_name) {
		int32_t id = env->host ? kbpf_host_btf_find(env->host, info->btf_name, BTF_KIND_STRUCT) : -1;
		if (id > 0)
			info->btf_id = (uint32_t)id;
		else
			ok = false;
	}
	if (!ok) {
		vlog(env, "invalid bpf_context access off=%d size=%d\n", off, size);
		return -EACCES;
	}
	/* Linux's max_ctx_offset: the end of the furthest ctx byte the program touches
	 * (a syscall program's test run refuses a shorter ctx) */
	if ((uint32_t)(off + size) > env->max_ctx_offset)
		env->max_ctx_offset = (uint32_t)(off + size);
	return 0;
}

/* Linux's map_btf_id: the struct a map pointer reads as, by map type (map_prog_view.h in
 * src/maps gives the host's BTF these names). */
static const char *map_btf_name(uint32_t map_type)
{
	switch (map_type) {
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_PROG_ARRAY:
	case BPF_MAP_TYPE_ARRAY_OF_MAPS:
		return "bpf_array";
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_HASH_OF_MAPS:
		return "bpf_htab";
	case BPF_MAP_TYPE_RINGBUF:
		return "bpf_ringbuf_map";
	case BPF_MAP_TYPE_SK_STORAGE:
		return "bpf_local_storage_map";
	default:
		return NULL;
	}
}

/* Linux's check_ptr_to_map_access: a CONST_PTR_TO_MAP read as the map type's struct of
 * the host BTF. At run time the load reads the map object itself, whose leading fields
 * are what that struct describes (src/maps/map_prog_view.h), nothing beyond. */
static int check_ptr_to_map_access(struct env *env, int regno, int off, int size, bool write, int value_regno)
{
	struct reg *regs = cur_regs(env), *r = &regs[regno];
	const struct btf *btf = env->host ? kbpf_host_btf(env->host) : NULL;
	const char *tname = map_btf_name(kbpf_map_type(r->map));
	int id;

	if (!btf) {
		vlog(env, "map_ptr access not supported without CONFIG_DEBUG_INFO_BTF\n");
		return -EOPNOTSUPP;
	}
	id = tname ? kbpf_host_btf_find(env->host, tname, BTF_KIND_STRUCT) : -ENOENT;
	if (id <= 0) {
		vlog(env, "map_ptr access not supported for map type %d\n", (int)kbpf_map_type(r->map));
		return -EOPNOTSUPP;
	}
	if (!(env->caps & KBPF_CAP_PERFMON)) {
		vlog(env, "%s access is allowed only to CAP_PERFMON and CAP_SYS_ADMIN\n", tname);
		return -EPERM;
	}
	if (off < 0) {
		vlog(env, "R%d is %s invalid negative access: off=%d\n", regno, tname, off);
		return -EACCES;
	}
	if (write) {
		vlog(env, "only read from %s is supported\n", tname);
		return -EACCES;
	}
	/* map pointer arithmetic is refused (alu.c): never a variable offset here */
	if (!kbpf_tnum_is_const(r->s.var_off) || r->s.var_off.value) {
		vlog(env, "R%d invalid mem access '%s'\n", regno, reg_type_str(env, r->type));
		return -EACCES;
	}
	uint32_t ptr_id;
	int err = btf_struct_read(env, btf, (uint32_t)id, (uint32_t)off, (uint32_t)size, &ptr_id);
	if (err)
		return err;
	/* a host BTF with a bigger struct (Linux's own, say) must not open the rest of
	 * kbpf's map object */
	if ((uint64_t)off + (uint64_t)size > KBPF_MAP_PROG_VIEW_SIZE) {
		vlog(env, "access beyond struct %s at off %d size %d\n", tname, off, size);
		return -EACCES;
	}
	if (value_regno >= 0) {
		reg_mark_unknown(env, &regs[value_regno]);
		if (ptr_id) { /* Linux's mark_btf_ld_reg; maybe NULL, as kbpf's BTF reads are */
			reg_mark_known(&regs[value_regno], 0);
			regs[value_regno].type = KBPF_PTR_TO_BTF_ID | KBPF_PTR_MAYBE_NULL;
			regs[value_regno].btf_id = ptr_id;
			regs[value_regno].id = ++env->id_gen;
			regs[value_regno].btf_walked = true;
		}
	}
	return 0;
}

/* Linux's __check_buffer_access for the "tracepoint" buffer of raw_tp_writable. */
static int check_tp_buffer_access(struct env *env, const struct reg *r, int regno, int off, int size)
{
	if (off < 0) {
		vlog(env, "R%d invalid tracepoint buffer access: off=%d, size=%d\n", regno, off, size);
		return -EACCES;
	}
	if (!kbpf_tnum_is_const(r->s.var_off) || r->s.var_off.value) {
		char tn[48];
		kbpf_tnum_strn(tn, sizeof(tn), r->s.var_off);
		vlog(env, "R%d invalid variable buffer offset: off=%d, var_off=%s\n", regno, off, tn);
		return -EACCES;
	}
	if ((uint32_t)(off + size) > env->max_tp_access)
		env->max_tp_access = (uint32_t)(off + size);
	return 0;
}

int check_mem_access(struct env *env, int insn_idx, int regno, int off, int size, bool write, int value_regno,
		     bool strict_align)
{
	struct reg *regs = cur_regs(env);
	struct reg *r = &regs[regno];
	const struct bpf_insn *insn = &env->insns[insn_idx];
	/* cpu v4's LDX | MEMSX: the loaded scalar is sign-extended (6.12's is_ldsx) */
	bool ldsx = !write && BPF_CLASS(insn->code) == BPF_LDX && BPF_MODE(insn->code) == BPF_MEMSX;
	int err;

	if ((err = check_ptr_alignment(env, r, off, size, strict_align)))
		return err;
	off += r->off;

	switch (r->type) {
	case KBPF_PTR_TO_MAP_KEY:
		if (write) {
			vlog(env, "write to change key R%d not allowed\n", regno);
			return -EACCES;
		}
		if ((err = check_mem_region(env, regno, off, size, kbpf_map_key_size(r->map), false)))
			return err;
		if (value_regno >= 0)
			reg_mark_unknown(env, &regs[value_regno]);
		break;
	case KBPF_PTR_TO_MAP_VALUE:
		if (write && value_regno >= 0 && is_pointer_value(env, value_regno)) {
			vlog(env, "R%d leaks addr into map\n", value_regno);
			return -EACCES;
		}
		if ((err = check_map_access_type(env, r, off - r->off, size, write)))
			return err;
		if ((err = check_mem_region(env, regno, off, size, kbpf_map_value_size(r->map), false)))
			return err;
		if ((err = check_map_value_fields(env, regno, off, size, false)))
			return err;
		if (kbpf_tnum_is_const(r->s.var_off) && kbpf_map_kptr_cnt(r->map)) {
			const struct kbpf_map_kptr *k =
				kbpf_map_kptr_at(r->map, (uint32_t)((int64_t)off + (int64_t)r->s.var_off.value));
			if (k)
				return check_map_kptr_access(env, regno, value_regno, insn_idx, k);
		}
		if (!write && value_regno >= 0 && (err = load_map_value(env, regno, off, size, ldsx, &regs[value_regno])))
			return err;
		break;
	case KBPF_PTR_TO_MEM:
	case KBPF_PTR_TO_MEM | KBPF_MEM_RDONLY:
	case KBPF_PTR_TO_MEM | KBPF_MEM_ALLOC:
		if (write && (r->type & KBPF_MEM_RDONLY)) {
			vlog(env, "R%d cannot write into %s\n", regno, reg_type_str(env, r->type));
			return -EACCES;
		}
		if (write && value_regno >= 0 && is_pointer_value(env, value_regno)) {
			vlog(env, "R%d leaks addr into mem\n", value_regno);
			return -EACCES;
		}
		if ((err = check_mem_region(env, regno, off, size, r->mem_size, false)))
			return err;
		if (!write && value_regno >= 0)
			reg_mark_unknown(env, &regs[value_regno]);
		break;
	case KBPF_PTR_TO_CTX: {
		struct kbpf_ctx_access_info info;
		if (write && value_regno >= 0 && is_pointer_value(env, value_regno)) {
			vlog(env, "R%d leaks addr into ctx\n", value_regno);
			return -EACCES;
		}
		if ((err = check_ptr_off_reg(env, r, regno)))
			return err;
		if ((err = check_ctx_access(env, off, size, write, &info)))
			return err;
		if (ldsx && KBPF_REG_BASE(info.reg_type) != KBPF_SCALAR_VALUE) {
			/* a pointer field cannot be read sign-extended (6.12's is_valid_access
			 * refuses is_ldsx on skb/xdp data, data_meta, data_end) */
			vlog(env, "invalid bpf_context access off=%d size=%d\n", off, size);
			return -EACCES;
		}
		if ((err = fixup_note_ctx(env, insn_idx, off, size, &info)))
			return err;
		if (!write && value_regno >= 0) {
			struct reg *d = &regs[value_regno];
			uint32_t base = KBPF_REG_BASE(info.reg_type);
			if (base == KBPF_SCALAR_VALUE) {
				reg_mark_unknown(env, d);
			} else if (base == KBPF_PTR_TO_PACKET || base == KBPF_PTR_TO_PACKET_META ||
				   base == KBPF_PTR_TO_PACKET_END) {
				reg_mark_unknown(env, d);
				reg_mark_known(d, 0);
				d->type = info.reg_type;
				return 0;
			} else {
				reg_mark_unknown(env, d);
				reg_mark_known(d, 0);
				/* KBPF_PTR_TRUSTED is kept beside the type (reg.btf_trusted), on a
				 * BTF pointer only, never with KBPF_PTR_UNTRUSTED */
				d->type = info.reg_type & ~KBPF_PTR_TRUSTED;
				d->btf_trusted = base == KBPF_PTR_TO_BTF_ID && (info.reg_type & KBPF_PTR_TRUSTED) &&
						 !(info.reg_type & KBPF_PTR_UNTRUSTED);
				d->btf_id = info.btf_id;
				if (info.reg_type & KBPF_PTR_MAYBE_NULL)
					d->id = ++env->id_gen;
				return 0;
			}
		}
		break;
	}
	case KBPF_PTR_TO_STACK:
		if ((err = stack_bounds(env, regno, off, size, write ? STACK_WRITE : STACK_READ)))
			return err;
		if (write)
			err = stack_write(env, regno, off, size, value_regno, insn, insn_idx);
		else
			err = stack_read(env, regno, off, size, value_regno);
		if (err)
			return err;
		break;
	case KBPF_PTR_TO_PACKET:
	case KBPF_PTR_TO_PACKET_META:
		/* cgroup_skb, lwt_in/out…: read-only (may_access_direct_pkt_data) */
		if (write && env->type->direct_packet_access != KBPF_PKT_ACCESS_RW) {
			vlog(env, "cannot write into packet\n");
			return -EACCES;
		}
		if (write && value_regno >= 0 && is_pointer_value(env, value_regno)) {
			vlog(env, "R%d leaks addr into packet\n", value_regno);
			return -EACCES;
		}
		if ((err = check_packet_access(env, regno, off, size, false)))
			return err;
		if (!write && value_regno >= 0)
			reg_mark_unknown(env, &regs[value_regno]);
		break;
	case KBPF_PTR_TO_FLOW_KEYS:
		/* flow_dissector's struct bpf_flow_keys (6.12 check_flow_keys_access): any
		 * access inside it, read or write, no pointer stored into it */
		if (write && value_regno >= 0 && is_pointer_value(env, value_regno)) {
			vlog(env, "R%d leaks addr into flow keys\n", value_regno);
			return -EACCES;
		}
		if (size < 0 || off < 0 || (uint64_t)off + size > sizeof(struct bpf_flow_keys)) {
			vlog(env, "invalid access to flow keys off=%d size=%d\n", off, size);
			return -EACCES;
		}
		if (!write && value_regno >= 0)
			reg_mark_unknown(env, &regs[value_regno]);
		break;
	case KBPF_PTR_TO_SOCKET:
	case KBPF_PTR_TO_SOCK_COMMON:
	case KBPF_PTR_TO_TCP_SOCK:
	case KBPF_PTR_TO_XDP_SOCK:
		if (write) {
			vlog(env, "R%d cannot write into %s\n", regno, reg_type_str(env, r->type));
			return -EACCES;
		}
		if (r->s.smin_value < 0) {
			vlog(env, "R%d min value is negative, either use unsigned index or do a if (index >=0) check.\n",
			     regno);
			return -EACCES;
		}
		if (!kbpf_tnum_is_const(r->s.var_off) || !sock_access_ok(r->type, off + (int)r->s.var_off.value, size)) {
			vlog(env, "R%d invalid %s access off=%d size=%d\n", regno, reg_type_str(env, r->type), off, size);
			return -EACCES;
		}
		if (value_regno >= 0)
			reg_mark_unknown(env, &regs[value_regno]);
		break;
	case KBPF_PTR_TO_BTF_ID:
	case KBPF_PTR_TO_BTF_ID | KBPF_PTR_UNTRUSTED:
		if ((err = check_btf_access(env, regno, off, size, write, value_regno)))
			return err;
		break;
	case KBPF_PTR_TO_TP_BUFFER:
		/* 6.1 check_tp_buffer_access: a constant, non-negative offset; the furthest
		 * byte is what the host's buffer must hold (max_tp_access, checked at run) */
		if ((err = check_tp_buffer_access(env, r, regno, off, size)))
			return err;
		if (!write && value_regno >= 0)
			reg_mark_unknown(env, &regs[value_regno]);
		break;
	case KBPF_CONST_PTR_TO_MAP:
		if ((err = check_ptr_to_map_access(env, regno, off, size, write, value_regno)))
			return err;
		break;
	default:
		vlog(env, "R%d invalid mem access '%s'\n", regno, reg_type_str(env, r->type));
		return -EACCES;
	}
	if (!write && size < 8 && value_regno >= 0 && regs[value_regno].type == KBPF_SCALAR_VALUE) {
		if (ldsx)
			kbpf_scalar_coerce_to_size_sx(&regs[value_regno].s, size);
		else
			kbpf_scalar_coerce_to_size(&regs[value_regno].s, size);
	}
	return 0;
}

static bool mismatch_ok(uint32_t t)
{
	switch (KBPF_REG_BASE(t)) {
	case KBPF_PTR_TO_CTX:
	case KBPF_PTR_TO_SOCKET:
	case KBPF_PTR_TO_SOCK_COMMON:
	case KBPF_PTR_TO_TCP_SOCK:
	case KBPF_PTR_TO_XDP_SOCK:
	case KBPF_PTR_TO_BTF_ID:
		return false;
	default:
		return true;
	}
}

static int same_insn_ptr(struct env *env, int idx, uint32_t type)
{
	struct insn_aux *a = &env->aux[idx];
	if (!a->ptr_type) {
		a->ptr_type = type;
	} else if (type != a->ptr_type && (!mismatch_ok(type) || !mismatch_ok(a->ptr_type))) {
		vlog(env, "same insn cannot be used with different pointers\n");
		return -EINVAL;
	}
	return 0;
}

static bool is_ctx_pkt_sk(uint32_t t)
{
	switch (KBPF_REG_BASE(t)) {
	case KBPF_PTR_TO_CTX:
	case KBPF_PTR_TO_PACKET:
	case KBPF_PTR_TO_PACKET_META:
	case KBPF_PTR_TO_FLOW_KEYS:
	case KBPF_PTR_TO_SOCKET:
	case KBPF_PTR_TO_SOCK_COMMON:
	case KBPF_PTR_TO_TCP_SOCK:
	case KBPF_PTR_TO_XDP_SOCK:
		return true;
	default:
		return false;
	}
}

static int check_atomic(struct env *env, const struct bpf_insn *insn, int idx)
{
	int err, load_reg = -1;
	switch (insn->imm) {
	case BPF_ADD: case BPF_ADD | BPF_FETCH:
	case BPF_AND: case BPF_AND | BPF_FETCH:
	case BPF_OR: case BPF_OR | BPF_FETCH:
	case BPF_XOR: case BPF_XOR | BPF_FETCH:
	case BPF_XCHG: case BPF_CMPXCHG:
		break;
	default:
		vlog(env, "BPF_ATOMIC uses invalid atomic opcode %02x\n", insn->imm);
		return -EINVAL;
	}
	if (BPF_SIZE(insn->code) != BPF_W && BPF_SIZE(insn->code) != BPF_DW) {
		vlog(env, "invalid atomic operand size\n");
		return -EINVAL;
	}
	if ((err = check_reg_read(env, insn->src_reg)) || (err = check_reg_read(env, insn->dst_reg)))
		return err;
	if (insn->imm == BPF_CMPXCHG) {
		if ((err = check_reg_read(env, 0)))
			return err;
		if (is_pointer_value(env, 0)) {
			vlog(env, "R%d leaks addr into mem\n", 0);
			return -EACCES;
		}
	}
	if (is_pointer_value(env, insn->src_reg)) {
		vlog(env, "R%d leaks addr into mem\n", insn->src_reg);
		return -EACCES;
	}
	uint32_t dt = cur_regs(env)[insn->dst_reg].type;
	if (is_ctx_pkt_sk(dt)) {
		vlog(env, "BPF_ATOMIC stores into R%d %s is not allowed\n", insn->dst_reg, reg_type_str(env, dt));
		return -EACCES;
	}
	if (insn->imm & BPF_FETCH) {
		load_reg = insn->imm == BPF_CMPXCHG ? 0 : insn->src_reg;
		if ((err = check_reg_write(env, load_reg)))
			return err;
	}
	int size = bpf_size_to_bytes(BPF_SIZE(insn->code));
	err = check_mem_access(env, idx, insn->dst_reg, insn->off, size, false, -1, true);
	if (!err && load_reg >= 0)
		err = check_mem_access(env, idx, insn->dst_reg, insn->off, size, false, load_reg, true);
	if (!err)
		err = check_mem_access(env, idx, insn->dst_reg, insn->off, size, true, -1, true);
	return err;
}

int check_ldx_stx(struct env *env, const struct bpf_insn *insn, int idx)
{
	uint8_t cls = BPF_CLASS(insn->code);
	int size = bpf_size_to_bytes(BPF_SIZE(insn->code));
	int err;

	if (cls == BPF_LDX) {
		if ((err = check_reg_read(env, insn->src_reg)))
			return err;
		if ((err = check_reg_write_mark(env, insn->dst_reg, false)))
			return err;
		uint32_t st = cur_regs(env)[insn->src_reg].type;
		if ((err = check_mem_access(env, idx, insn->src_reg, insn->off, size, false, insn->dst_reg, false)) ||
		    (err = same_insn_ptr(env, idx, st)))
			return err;
		/* 6.12 check_load_mem: the loaded register's bounds checked */
		return reg_bounds_sanity_check(env, &cur_regs(env)[insn->dst_reg], "ldx");
	}
	if (cls == BPF_STX) {
		if (BPF_MODE(insn->code) == BPF_ATOMIC)
			return check_atomic(env, insn, idx);
		if (BPF_MODE(insn->code) != BPF_MEM || insn->imm) {
			vlog(env, "BPF_STX uses reserved fields\n");
			return -EINVAL;
		}
		if ((err = check_reg_read(env, insn->src_reg)) || (err = check_reg_read(env, insn->dst_reg)))
			return err;
		uint32_t dt = cur_regs(env)[insn->dst_reg].type;
		if ((err = check_mem_access(env, idx, insn->dst_reg, insn->off, size, true, insn->src_reg, false)))
			return err;
		return same_insn_ptr(env, idx, dt);
	}
	if (BPF_MODE(insn->code) != BPF_MEM || insn->src_reg) {
		vlog(env, "BPF_ST uses reserved fields\n");
		return -EINVAL;
	}
	if ((err = check_reg_read(env, insn->dst_reg)))
		return err;
	/* Linux 6.3+: BPF_ST may store into the context as BPF_STX does (6.1 refused it);
	 * the store is rewritten for the run-time context like the others, so one insn
	 * must see one pointer type on every path */
	uint32_t dt = cur_regs(env)[insn->dst_reg].type;
	if ((err = check_mem_access(env, idx, insn->dst_reg, insn->off, size, true, -1, false)))
		return err;
	return same_insn_ptr(env, idx, dt);
}
