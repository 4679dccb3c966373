/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE relocation, libbpf's algorithm (its bpf_core_calc_relo_insn):
 *  1. parse the access string against the local type;
 *  2. take the target types with the local type's essential name (cached per local
 *     type id in the ctx);
 *  3. match the local access against each candidate; every matching candidate must
 *     give the same bit offset and the same value, else the relocation is ambiguous
 *     and refused; candidates that did not match are dropped from the cache, so later
 *     relocations of the same type only consider the survivors;
 *  4. no match: *_EXISTS kinds and TYPE_ID_TARGET/TYPE_SIZE/TYPE_MATCHES become 0
 *     (a type that is absent), the others poison the instruction;
 *  5. patch the instruction (core_patch.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "btf/core_internal.h"

struct cache_entry {
	bool searched;
	struct kbpf_core_cands cands;
};

struct kbpf_core_ctx {
	const struct btf *local, *target;
	struct cache_entry *cache; /* by local type id, allocated on first use */
	uint32_t nr_cache;
	/* scratch specs: large, so kept off the stack */
	struct kbpf_core_spec local_spec, cand_spec, targ_spec;
};

struct kbpf_core_ctx *kbpf_core_ctx_new(const struct btf *local, const struct btf *target)
{
	struct kbpf_core_ctx *ctx;

	if (!local)
		return NULL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->local = local;
	ctx->target = target;
	return ctx;
}

void kbpf_core_ctx_free(struct kbpf_core_ctx *ctx)
{
	if (!ctx)
		return;
	for (uint32_t i = 0; i < ctx->nr_cache; i++)
		kbpf_core_cands_release(&ctx->cache[i].cands);
	free(ctx->cache);
	free(ctx);
}

/* The (cached) candidates of local type id. */
static int get_cands(struct kbpf_core_ctx *ctx, uint32_t id, struct kbpf_core_cands **out)
{
	struct cache_entry *e;
	int ret;

	if (!ctx->cache) {
		ctx->nr_cache = btf__type_cnt(ctx->local);
		ctx->cache = calloc(ctx->nr_cache, sizeof(*ctx->cache));
		if (!ctx->cache) {
			ctx->nr_cache = 0;
			return -ENOMEM;
		}
	}
	if (id >= ctx->nr_cache)
		return -EINVAL;
	e = &ctx->cache[id];
	if (!e->searched) {
		ret = kbpf_core_find_cands(ctx->local, id, ctx->target, &e->cands);
		if (ret)
			return ret;
		e->searched = true;
	}
	*out = &e->cands;
	return 0;
}

static void spec_note(const struct kbpf_core_spec *spec, const char *why, char *buf, size_t size)
{
	char sb[192];

	kbpf_core_format_spec(spec, sb, sizeof(sb));
	kbpf_core_msg(buf, size, "%s (%s)", why, sb);
}

/* Step 3 and 4 over the candidate list. */
static int resolve(struct kbpf_core_ctx *ctx, const struct bpf_core_relo *relo, int relo_idx,
		   struct kbpf_core_cands *cands, struct kbpf_core_res *res, char *log, size_t log_size)
{
	struct kbpf_core_spec *ls = &ctx->local_spec, *cs = &ctx->cand_spec, *ts = &ctx->targ_spec;
	struct kbpf_core_res cand_res;
	char why[256], miss[256] = "";
	size_t j = 0;
	int ret;

	for (size_t i = 0; i < cands->len; i++) {
		char sb[192];

		ret = kbpf_core_spec_match(ls, ctx->target, cands->ids[i], cs, why, sizeof(why));
		if (ret < 0) {
			kbpf_core_format_spec(cs, sb, sizeof(sb));
			kbpf_core_msg(log, log_size, "relo #%d: error matching candidate #%zu %s: %s", relo_idx, i, sb, why);
			return ret;
		}
		if (ret == 0) {
			if (!miss[0])
				memcpy(miss, why, sizeof(miss));
			continue;
		}
		ret = kbpf_core_calc_relo(relo, ls, cs, &cand_res, why, sizeof(why));
		if (ret) {
			kbpf_core_msg(log, log_size, "relo #%d: %s", relo_idx, why);
			return ret;
		}
		if (j == 0) {
			*res = cand_res;
			*ts = *cs;
		} else if (cs->bit_offset != ts->bit_offset) {
			kbpf_core_msg(log, log_size, "relo #%d: field offset ambiguity: %" PRIu64 " != %" PRIu64, relo_idx,
				      cs->bit_offset, ts->bit_offset);
			return -EINVAL;
		} else if (cand_res.poison != res->poison || cand_res.new_val != res->new_val) {
			kbpf_core_msg(log, log_size, "relo #%d: relocation decision ambiguity: %s %" PRIu64 " != %s %" PRIu64,
				      relo_idx, cand_res.poison ? "failure" : "success", cand_res.new_val,
				      res->poison ? "failure" : "success", res->new_val);
			return -EINVAL;
		}
		cands->ids[j++] = cands->ids[i];
	}
	if (j > 0) {
		cands->len = j; /* later relocations of this type see only the survivors */
		return 0;
	}
	/* nothing matched: the "not found" value, or poison */
	ret = kbpf_core_calc_relo(relo, ls, NULL, res, why, sizeof(why));
	if (ret) {
		kbpf_core_msg(log, log_size, "relo #%d: %s", relo_idx, why);
		return ret;
	}
	if (res->poison) {
		char tb[128];

		if (!miss[0])
			kbpf_core_msg(miss, sizeof(miss), "no %s in the target BTF",
				      kbpf_core_type_str(ctx->local, relo->type_id, tb, sizeof(tb)));
		spec_note(ls, miss, res->why, sizeof(res->why));
	}
	return 0;
}

int kbpf_core_ctx_calc(struct kbpf_core_ctx *ctx, const struct bpf_core_relo *relo, int relo_idx,
		       struct kbpf_core_res *res, char *log, size_t log_size)
{
	const struct btf_type *lt;
	struct kbpf_core_cands *cands = NULL;
	char why[256], tb[128];
	int ret;

	if (log && log_size)
		log[0] = 0;
	if (!ctx || !relo || !res) {
		kbpf_core_msg(log, log_size, "relo #%d: missing arguments", relo_idx);
		return -EINVAL;
	}
	memset(res, 0, sizeof(*res));
	lt = btf__type_by_id(ctx->local, relo->type_id);
	if (!lt) {
		kbpf_core_msg(log, log_size, "relo #%d: type_id %u is not in the object's BTF", relo_idx, relo->type_id);
		return -EINVAL;
	}
	if (relo->kind != BPF_CORE_TYPE_ID_LOCAL) {
		if (!ctx->target) {
			kbpf_core_msg(log, log_size, "relo #%d: <%s> of %s needs the host's BTF, and the host has none",
				      relo_idx, kbpf_core_relo_kind_str(relo->kind),
				      kbpf_core_type_str(ctx->local, relo->type_id, tb, sizeof(tb)));
			return -ENOENT;
		}
		ret = get_cands(ctx, relo->type_id, &cands);
		if (ret) {
			kbpf_core_msg(log, log_size, "relo #%d: target candidate search failed for [%u] %s%s: %d", relo_idx,
				      relo->type_id, kbpf_core_type_str(ctx->local, relo->type_id, tb, sizeof(tb)),
				      ret == -EINVAL ? " (anonymous types cannot be relocated)" : "", ret);
			return ret;
		}
	}
	ret = kbpf_core_parse_spec(ctx->local, relo, &ctx->local_spec, why, sizeof(why));
	if (ret) {
		const char *str = btf__name_by_offset(ctx->local, relo->access_str_off);
		kbpf_core_msg(log, log_size, "relo #%d: parsing [%u] %s + %s failed: %s", relo_idx, relo->type_id,
			      kbpf_core_type_str(ctx->local, relo->type_id, tb, sizeof(tb)), str ? str : "<?>", why);
		return ret == -E2BIG ? ret : -EINVAL;
	}
	if (relo->kind == BPF_CORE_TYPE_ID_LOCAL) {
		/* the object's own id; the compiler's value may be stale after linking */
		res->orig_val = res->new_val = relo->type_id;
		return 0;
	}
	return resolve(ctx, relo, relo_idx, cands, res, log, log_size);
}

int kbpf_core_ctx_apply(struct kbpf_core_ctx *ctx, const struct bpf_core_relo *relo, int relo_idx,
			struct bpf_insn *insns, size_t insn_cnt, size_t insn_idx, char *log, size_t log_size)
{
	struct kbpf_core_res res;
	int ret;

	if (!insns || insn_idx >= insn_cnt) {
		kbpf_core_msg(log, log_size, "relo #%d: insn #%zu is out of range (program has %zu insns)", relo_idx,
			      insn_idx, insns ? insn_cnt : 0);
		return -EINVAL;
	}
	ret = kbpf_core_ctx_calc(ctx, relo, relo_idx, &res, log, log_size);
	if (ret)
		return ret;
	return kbpf_core_patch(relo_idx, &res, insns, insn_cnt, insn_idx, log, log_size);
}

