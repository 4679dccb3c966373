/* SPDX-License-Identifier: Apache-2.0 */
/* Options structs versioned by their size: every public options (and description) struct
 * starts with `size_t sz`, set by the caller to sizeof the struct it was compiled with
 * (libbpf's OPTS_VALID / OPTS_GET idea; our own code). The one mechanism all of src/ uses:
 *  - an older caller passes a shorter struct: a field it does not have reads as the
 *    default (OPTS_GET), and code asks with OPTS_HAS before reading one;
 *  - a newer caller passes a longer struct: valid only if every byte past what this
 *    build knows is zero (OPTS_VALID), so a request it cannot honour is never silently
 *    dropped;
 *  - OPTS_COPY makes a full-size private copy (missing fields zero) to keep.
 * Results come back in a struct of their own (struct kbpf_verify_result), never in the
 * options: the caller sets its sz, OPTS_RESULT_RESET zeroes all sz bytes after it, and
 * OPTS_SET writes a field only if the caller's struct has it.
 * Header-only, below every layer (docs/architecture.md). */
#ifndef KBPF_SRC_OPTS_H
#define KBPF_SRC_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The offset just past field in type. */
#define OPTS_END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
/* The caller's struct (opts may be NULL) is large enough to hold field. */
#define OPTS_HAS(opts, field) ((opts) && (opts)->sz >= OPTS_END(typeof(*(opts)), field))
/* field, or fallback if opts is NULL or too old to have it. */
#define OPTS_GET(opts, field, fallback) (OPTS_HAS(opts, field) ? (opts)->field : (fallback))

/* A caller's struct of sz bytes: at least min_sz, and zero past the known_sz we know. */
static inline bool opts_valid_sz(const void *opts, size_t sz, size_t min_sz, size_t known_sz)
{
	if (sz < min_sz)
		return false;
	for (size_t i = known_sz; i < sz; i++)
		if (((const unsigned char *)opts)[i])
			return false;
	return true;
}
/* opts is NULL, or its sz covers at least min_sz bytes and what we do not know is zero. */
#define OPTS_VALID(opts, min_sz) (!(opts) || opts_valid_sz((opts), (opts)->sz, (min_sz), sizeof(*(opts))))
/* The smallest struct anyone may pass: sz itself. */
#define OPTS_MIN_SZ sizeof(size_t)

/* *dst = the caller's *opts as this build's struct: the fields it lacks are zero, and
 * dst->sz is sizeof(*dst). opts may be NULL (all zero). Validate first. */
#define OPTS_COPY(dst, opts)                                                                        \
	do {                                                                                        \
		memset((dst), 0, sizeof(*(dst)));                                                   \
		if (opts)                                                                           \
			memcpy((dst), (opts), (opts)->sz < sizeof(*(dst)) ? (opts)->sz : sizeof(*(dst))); \
		(dst)->sz = sizeof(*(dst));                                                         \
	} while (0)

/* A result struct res (may be NULL): valid if NULL or at least sz itself. */
#define OPTS_RESULT_VALID(res) (!(res) || (res)->sz >= OPTS_MIN_SZ)
/* Zero every byte of the caller's result struct after sz (fields we do not know read 0). */
#define OPTS_RESULT_RESET(res)                                                                      \
	do {                                                                                        \
		if (res)                                                                            \
			memset((char *)(res) + sizeof(size_t), 0, (res)->sz - sizeof(size_t));     \
	} while (0)
/* res->field = value if res is not NULL and has the field. */
#define OPTS_SET(res, field, value)                                                                 \
	do {                                                                                        \
		if (OPTS_HAS(res, field))                                                           \
			(res)->field = (value);                                                     \
	} while (0)

#endif
