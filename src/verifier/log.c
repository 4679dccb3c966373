/* SPDX-License-Identifier: Apache-2.0 */
/* The verifier log: Linux's message texts, instruction lines and register-state
 * syntax (print_verifier_state), kept in a growable buffer so that level-1 rewinds
 * and the final copy into the caller's buffer are simple. At level >= 1 the buffer
 * stops at the caller's log_size and formatting stops with it, as in Linux 6.1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/isa.h>
#include <bpf/btf.h>
#include "verifier/env.h"
#include "verifier/kfunc.h"

/* Bytes of log the caller's buffer holds at a non-zero level (SIZE_MAX: no bound: at
 * level 0, kbpf's own, the few error lines are kept whole and the caller gets their
 * tail). */
static size_t log_limit(const struct env *env)
{
	const struct kbpf_verify_opts *o = env->opts;
	if (!o || !env->level)
		return SIZE_MAX;
	return o->log_buf && o->log_size ? o->log_size - 1 : 0;
}

/* While the log is full: keep the last bytes of what the current insn logs (the
 * reason for a rejection, then the statistics). */
static void tail_add(struct env *env, const char *s, size_t n)
{
	const size_t cap = sizeof(env->log_tail);
	if (n >= cap) {
		s += n - cap;
		n = cap;
	}
	if (env->log_tail_len + n > cap) {
		size_t drop = env->log_tail_len + n - cap;
		memmove(env->log_tail, env->log_tail + drop, env->log_tail_len - drop);
		env->log_tail_len -= drop;
	}
	memcpy(env->log_tail + env->log_tail_len, s, n);
	env->log_tail_len += n;
}

void vlog(struct env *env, const char *fmt, ...)
{
	char buf[1024]; /* Linux formats each verbose() call through a 1 KiB buffer */
	va_list ap;
	size_t limit = log_limit(env);
	if (env->log_full && limit == SIZE_MAX)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (env->log_full) {
		tail_add(env, buf, (size_t)n);
		return;
	}
	if (limit != SIZE_MAX && env->log_len + n > limit) {
		/* Linux 6.1's bpf_verifier_vlog: what fits, then no more formatting */
		n = (int)(limit - env->log_len);
		env->log_full = true;
		env->log_tail_len = 0;
	}
	if (env->log_len + n + 1 > env->log_size) {
		size_t ns = env->log_size ? env->log_size * 2 : 4096;
		while (ns < env->log_len + n + 1)
			ns *= 2;
		if (limit != SIZE_MAX && ns > limit + 1)
			ns = limit + 1;
		/* A runaway level-0 log must not exhaust memory. */
		if (ns > (256u << 20)) {
			env->log_full = true;
			return;
		}
		char *p = realloc(env->log, ns);
		if (!p) {
			env->log_full = true;
			return;
		}
		env->log = p;
		env->log_size = ns;
	}
	memcpy(env->log + env->log_len, buf, n);
	env->log_len += n;
	env->log[env->log_len] = 0;
}

void vlog_rewind(struct env *env, size_t pos)
{
	if (env->log_full && log_limit(env) != SIZE_MAX) {
		/* a position recorded while full: drop what was kept since */
		env->log_tail_len = 0;
		if (pos >= env->log_len)
			return;
		env->log_full = false; /* Linux's bpf_vlog_reset: room again */
	}
	if (pos < env->log_len) {
		env->log_len = pos;
		if (env->log)
			env->log[pos] = 0;
	}
}

/* A level >= 1 log that filled the caller's buffer ends, like any other, with the reason
 * and the statistics: the lines kept since the last insn replace the buffer's end. */
void vlog_finish(struct env *env)
{
	if (!env->log_full || !env->log_tail_len || log_limit(env) == SIZE_MAX || !env->log)
		return;
	size_t n = env->log_tail_len < env->log_len ? env->log_tail_len : env->log_len;
	size_t start = env->log_len - n;
	memcpy(env->log + start, env->log_tail + env->log_tail_len - n, n);
	if (start)
		env->log[start - 1] = '\n';
	env->log[env->log_len] = 0;
}

static const char *const base_names[KBPF_REG_TYPE_MAX] = {
	[KBPF_NOT_INIT] = "?",
	[KBPF_SCALAR_VALUE] = "scalar",
	[KBPF_PTR_TO_CTX] = "ctx",
	[KBPF_CONST_PTR_TO_MAP] = "map_ptr",
	[KBPF_PTR_TO_MAP_VALUE] = "map_value",
	[KBPF_PTR_TO_MAP_KEY] = "map_key",
	[KBPF_PTR_TO_STACK] = "fp",
	[KBPF_PTR_TO_PACKET_META] = "pkt_meta",
	[KBPF_PTR_TO_PACKET] = "pkt",
	[KBPF_PTR_TO_PACKET_END] = "pkt_end",
	[KBPF_PTR_TO_FLOW_KEYS] = "flow_keys",
	[KBPF_PTR_TO_SOCKET] = "sock",
	[KBPF_PTR_TO_SOCK_COMMON] = "sock_common",
	[KBPF_PTR_TO_TCP_SOCK] = "tcp_sock",
	[KBPF_PTR_TO_TP_BUFFER] = "tp_buffer",
	[KBPF_PTR_TO_XDP_SOCK] = "xdp_sock",
	[KBPF_PTR_TO_BTF_ID] = "ptr_",
	[KBPF_PTR_TO_MEM] = "mem",
	[KBPF_PTR_TO_BUF] = "buf",
	[KBPF_PTR_TO_FUNC] = "func",
	[KBPF_PTR_TO_DYNPTR] = "dynptr_ptr",
};

/* Linux 6.12's reg_type_str: every prefix that applies, in its order (rdonly_,
 * ringbuf_, percpu_, untrusted_, trusted_), the base name, then "_or_null" (BTF
 * pointers: "or_null_", the struct name follows). The returned buffer is reused by the
 * next call (Linux keeps one per env too). */
const char *reg_type_str(struct env *env, uint32_t type)
{
	static __thread char buf[64];
	(void)env;
	uint32_t base = KBPF_REG_BASE(type);
	const char *postfix = "";
	if (base >= KBPF_REG_TYPE_MAX)
		return "?";
	/* an outer map's lookup result before its NULL check (helper.c): 6.12's name */
	if (type == (KBPF_CONST_PTR_TO_MAP | KBPF_PTR_MAYBE_NULL))
		return "map_value_or_null";
	if (type & KBPF_PTR_MAYBE_NULL)
		postfix = base == KBPF_PTR_TO_BTF_ID ? "or_null_" : "_or_null";
	snprintf(buf, sizeof(buf), "%s%s%s%s%s%s%s", (type & KBPF_MEM_RDONLY) ? "rdonly_" : "",
		 (type & KBPF_MEM_ALLOC) ? "ringbuf_" : "", (type & KBPF_MEM_PERCPU) ? "percpu_" : "",
		 (type & KBPF_PTR_UNTRUSTED) ? "untrusted_" : "", (type & KBPF_PTR_TRUSTED) ? "trusted_" : "",
		 base_names[base], postfix);
	return buf;
}

/* One register as 6.12's print_reg_state writes it: a constant scalar as its number;
 * otherwise the type name, a stack pointer's frame ("fp[0]") and constant offset
 * ("fp-8"), a BTF pointer's struct name, then "(" id, ref_obj_id, map=name,ks,vs,
 * off (non-zero), r (packet), sz (mem), and imm or the ranges ")". */
static void print_reg(struct env *env, const struct frame *f, const struct reg *r)
{
	char b[512];
	uint32_t base = KBPF_REG_BASE(r->type);
	if (r->type == KBPF_SCALAR_VALUE) {
		if (r->precise)
			vlog(env, "P");
		kbpf_scalar_snprint(b, sizeof(b), &r->s, r->id);
		vlog(env, "%s", b);
		return;
	}
	vlog(env, "%s", reg_type_str(env, r->type));
	if (r->type == KBPF_PTR_TO_STACK) {
		if (f && f->frameno != r->frameno)
			vlog(env, "[%u]", r->frameno);
		if (kbpf_tnum_is_const(r->s.var_off)) {
			kbpf_snum_snprint(b, sizeof(b), (int64_t)(r->s.var_off.value + (uint64_t)(int64_t)r->off));
			vlog(env, "%s", b);
			return;
		}
	}
	if (base == KBPF_PTR_TO_BTF_ID) { /* Linux: the struct's name, "ptr_tcp_sock(" */
		const struct btf *btf = env->host ? kbpf_host_btf(env->host) : NULL;
		const struct btf_type *bt =
			btf && r->btf_id && r->btf_id < btf__type_cnt(btf) ? btf__type_by_id(btf, r->btf_id) : NULL;
		const char *n = bt ? btf__name_by_offset(btf, bt->name_off) : NULL;
		vlog(env, "%s", n ? n : "");
	}
	vlog(env, "(");
	bool first = true;
#define SEP (first ? (first = false, "") : ",")
	if (r->id)
		vlog(env, "%sid=%u", SEP, r->id);
	if (r->ref_obj_id)
		vlog(env, "%sref_obj_id=%u", SEP, r->ref_obj_id);
	if ((base == KBPF_CONST_PTR_TO_MAP || base == KBPF_PTR_TO_MAP_KEY || base == KBPF_PTR_TO_MAP_VALUE) &&
	    r->map) {
		const char *name = kbpf_map_name(r->map);
		if (name && name[0])
			vlog(env, "%smap=%.15s", SEP, name); /* Linux keeps BPF_OBJ_NAME_LEN - 1 */
		vlog(env, "%sks=%u,vs=%u", SEP, kbpf_map_key_size(r->map), kbpf_map_value_size(r->map));
	}
	if (r->off) {
		kbpf_snum_snprint(b, sizeof(b), r->off);
		vlog(env, "%soff=%s", SEP, b);
	}
	if (base == KBPF_PTR_TO_PACKET || base == KBPF_PTR_TO_PACKET_META) {
		kbpf_unum_snprint(b, sizeof(b), (uint64_t)(int64_t)r->range);
		vlog(env, "%sr=%s", SEP, b);
	}
	if (base == KBPF_PTR_TO_MEM) {
		kbpf_unum_snprint(b, sizeof(b), r->mem_size);
		vlog(env, "%ssz=%s", SEP, b);
	}
#undef SEP
	kbpf_scalar_snprint_bounds(b, sizeof(b), &r->s, first);
	vlog(env, "%s)", b);
}

static const char stack_chars[] = { '?', 'r', 'm', '0' };

void mark_all_scratched(struct env *env)
{
	env->scratched_regs = ~0u;
	env->scratched_stack = ~0ull;
	env->scratched = true;
}

/* Linux's print_liveness: "_" then "r" (a path below this checkpoint read it) and
 * "w" (written since the last checkpoint). */
static const char *live_str(bool read, bool written)
{
	return read ? (written ? "_rw" : "_r") : (written ? "_w" : "");
}

void vlog_state(struct env *env, const struct frame *f, bool all)
{
	if (env->log_full && log_limit(env) != SIZE_MAX)
		goto out; /* nothing of it would reach the caller */
	if (f->frameno)
		vlog(env, " frame%u:", f->frameno);
	for (int i = 0; i < MAX_REG; i++) {
		const struct reg *r = &f->regs[i];
		if (r->type == KBPF_NOT_INIT || (!all && !(env->scratched_regs & (1u << i))))
			continue;
		vlog(env, " R%d%s=", i, live_str(f->live_read & (1u << i), f->written & (1u << i)));
		print_reg(env, f, r);
	}
	for (int i = 0; i < f->allocated / 8; i++) {
		const struct stack_slot *sl = &f->stack[i];
		char types[9];
		bool valid = false;
		for (int j = 0; j < 8; j++) {
			types[j] = stack_chars[sl->type[j] & 3];
			if (sl->type[j] != STACK_INVALID)
				valid = true;
		}
		types[8] = 0;
		if (!valid || (!all && !(env->scratched_stack & (1ull << i))))
			continue;
		vlog(env, " fp%d%s=", -8 * (i + 1),
		     live_str(f->stack_live_read & (1ull << i), f->stack_written & (1ull << i)));
		if (sl->type[7] == STACK_SPILL) {
			/* 6.12: the slot bytes above the spill, then the spilled register */
			int j = 0;
			while (j < 8 && sl->type[j] != STACK_SPILL)
				j++;
			types[j] = 0;
			vlog(env, "%s", types);
			print_reg(env, f, &sl->spilled);
		} else {
			vlog(env, "%s", types);
		}
	}
	if (f->nr_refs) {
		vlog(env, " refs=%u", f->refs[0].id);
		for (int i = 1; i < f->nr_refs; i++)
			vlog(env, ",%u", f->refs[i].id);
	}
	if (f->in_callback)
		vlog(env, " cb");
	if (f->in_async_callback)
		vlog(env, " async_cb");
	vlog(env, "\n");
out:
	/* 6.12's print_verifier_state: only a print of the scratched part cleans them
	 * (after "from A to B: <all>", "B: <scratched>" follows) */
	if (all)
		return;
	env->scratched_regs = 0;
	env->scratched_stack = 0;
	env->scratched = false;
}

static const char *helper_name_cb(void *cookie, int32_t id)
{
	struct env *env = cookie;
	const struct kbpf_helper_proto *p = env->host ? kbpf_host_helper_proto(env->host, id) : NULL;
	return p ? p->name : NULL;
}

/* Linux's disasm_kfunc_name: the BTF name ("call bpf_kfunc_call_test1#12345"). */
static const char *kfunc_name_cb(void *cookie, int32_t id)
{
	return kfunc_btf_name(cookie, id);
}

/* 6.12's fmt_reg_mask / fmt_stack_mask: "regs=r0,r6 stack=-8,-24" (empty lists
 * print nothing after the '='). */
void vlog_precise_masks(struct env *env, int frame, const char *what, uint32_t regs, uint64_t stack)
{
	char b[64 * 6 + 16];
	size_t n = 0;
	for (int i = 0; i < 32; i++)
		if (regs & (1u << i))
			n += (size_t)snprintf(b + n, sizeof(b) - n, "%sr%d", n ? "," : "", i);
	b[n] = 0;
	vlog(env, "mark_precise: frame%d: %sregs=%s ", frame, what, b);
	n = 0;
	for (int i = 0; i < 64; i++)
		if (stack & (1ull << i))
			n += (size_t)snprintf(b + n, sizeof(b) - n, "%s%d", n ? "," : "", -(i + 1) * 8);
	b[n] = 0;
	vlog(env, "stack=%s", b);
}

/* "%d: (%02x) " and the instruction text, as print_bpf_insn. */
void vlog_insn_text(struct env *env, int idx)
{
	char buf[256];
	struct kbpf_disasm_opts o = { .sz = sizeof(o), .helper_name = helper_name_cb, .kfunc_name = kfunc_name_cb,
				      .cookie = env };
	if (env->log_full && log_limit(env) != SIZE_MAX)
		return;
	if (kbpf_insn_disasm(env->insns, env->cnt, idx, &o, buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "?");
	vlog(env, "%d: (%02x) %s\n", idx, env->insns[idx].code, buf);
}

/* The instruction line of the walk: remembered so the state can join it. */
void vlog_insn(struct env *env, int idx)
{
	if (env->log_full && log_limit(env) != SIZE_MAX) {
		/* a new insn: what the last one logged was not its end; no line to join */
		env->log_tail_len = 0;
		env->last_insn_log_end = 0;
		return;
	}
	size_t start = env->log_len;
	vlog_insn_text(env, idx);
	env->last_insn_log_len = (int)(env->log_len - start);
	env->last_insn_log_end = env->log_len;
}
