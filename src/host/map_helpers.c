/* SPDX-License-Identifier: Apache-2.0 */
/* Linux's map helpers, by their Linux ids and names, on top of the program side of
 * <kbpf/map.h>. A map argument is what an LDDW of the map loads: its address. */
#include <errno.h>
#include <kbpf/map.h>
#include "host/host_internal.h"

#define MAP(r) ((struct kbpf_map *)(uintptr_t)(r))
#define PTR(r) ((void *)(uintptr_t)(r))
#define RET_PTR(p) ((uint64_t)(uintptr_t)(p))
#define RET_LONG(v) ((uint64_t)(int64_t)(v))

static uint64_t h_map_lookup_elem(uint64_t map, uint64_t key, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r3, (void)r4, (void)r5;
	return RET_PTR(kbpf_map_lookup_elem(MAP(map), PTR(key)));
}

static uint64_t h_map_update_elem(uint64_t map, uint64_t key, uint64_t value, uint64_t flags, uint64_t r5)
{
	(void)r5;
	return RET_LONG(kbpf_map_update_elem(MAP(map), PTR(key), PTR(value), flags));
}

static uint64_t h_map_delete_elem(uint64_t map, uint64_t key, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r3, (void)r4, (void)r5;
	return RET_LONG(kbpf_map_delete_elem(MAP(map), PTR(key)));
}

static uint64_t h_map_push_elem(uint64_t map, uint64_t value, uint64_t flags, uint64_t r4, uint64_t r5)
{
	(void)r4, (void)r5;
	return RET_LONG(kbpf_map_push_elem(MAP(map), PTR(value), flags));
}

static uint64_t h_map_pop_elem(uint64_t map, uint64_t value, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r3, (void)r4, (void)r5;
	return RET_LONG(kbpf_map_pop_elem(MAP(map), PTR(value)));
}

static uint64_t h_map_peek_elem(uint64_t map, uint64_t value, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r3, (void)r4, (void)r5;
	return RET_LONG(kbpf_map_peek_elem(MAP(map), PTR(value)));
}

uint64_t kbpf_helper_get_smp_processor_id(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	return kbpf_cpu_id();
}

static uint64_t h_ringbuf_output(uint64_t map, uint64_t data, uint64_t size, uint64_t flags, uint64_t r5)
{
	(void)r5;
	return RET_LONG(kbpf_ringbuf_output(MAP(map), PTR(data), size, flags));
}

static uint64_t h_ringbuf_reserve(uint64_t map, uint64_t size, uint64_t flags, uint64_t r4, uint64_t r5)
{
	(void)r4, (void)r5;
	return RET_PTR(kbpf_ringbuf_reserve(MAP(map), size, flags));
}

static uint64_t h_ringbuf_submit(uint64_t sample, uint64_t flags, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r3, (void)r4, (void)r5;
	kbpf_ringbuf_submit(PTR(sample), flags);
	return 0;
}

static uint64_t h_ringbuf_discard(uint64_t sample, uint64_t flags, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r3, (void)r4, (void)r5;
	kbpf_ringbuf_discard(PTR(sample), flags);
	return 0;
}

static uint64_t h_ringbuf_query(uint64_t map, uint64_t flags, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r3, (void)r4, (void)r5;
	return kbpf_ringbuf_query(MAP(map), flags);
}

static uint64_t h_map_lookup_percpu_elem(uint64_t map, uint64_t key, uint64_t cpu, uint64_t r4, uint64_t r5)
{
	(void)r4, (void)r5;
	if (cpu > UINT32_MAX)
		return 0;
	return RET_PTR(kbpf_map_lookup_percpu_elem(MAP(map), PTR(key), (uint32_t)cpu));
}
static uint64_t h_get_local_storage(uint64_t map, uint64_t flags, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)flags, (void)r3, (void)r4, (void)r5; /* the verifier made flags 0 */
	return RET_PTR(kbpf_map_get_local_storage(MAP(map)));
}

/* Linux 6.1's prototypes (kernel/bpf/helpers.c, kernel/bpf/ringbuf.c), so the verifier
 * checks these calls exactly as Linux does. pkt_access is Linux's: the map ops take keys
 * and values straight from packet memory; ringbuf_output copies from any memory but only
 * reads it, and does not say pkt_access, so packet data must be copied first there too. */
#define ARGS(...) .arg_type = { __VA_ARGS__ }
static const struct kbpf_helper_proto map_helpers[] = {
	{ .name = "bpf_map_lookup_elem", .fn = h_map_lookup_elem, .flags = KBPF_HELPER_PKT_ACCESS,
	  .ret_type = KBPF_RET_PTR_TO_MAP_VALUE | KBPF_RET_MAYBE_NULL,
	  ARGS(KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_PTR_TO_MAP_KEY) },
	{ .name = "bpf_map_update_elem", .fn = h_map_update_elem, .flags = KBPF_HELPER_PKT_ACCESS,
	  .ret_type = KBPF_RET_INTEGER,
	  ARGS(KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_PTR_TO_MAP_KEY, KBPF_ARG_PTR_TO_MAP_VALUE, KBPF_ARG_ANYTHING) },
	{ .name = "bpf_map_delete_elem", .fn = h_map_delete_elem, .flags = KBPF_HELPER_PKT_ACCESS,
	  .ret_type = KBPF_RET_INTEGER,
	  ARGS(KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_PTR_TO_MAP_KEY) },
	{ .name = "bpf_get_smp_processor_id", .fn = kbpf_helper_get_smp_processor_id, .ret_type = KBPF_RET_INTEGER },
	{ .name = "bpf_ringbuf_output", .fn = h_ringbuf_output, .ret_type = KBPF_RET_INTEGER,
	  ARGS(KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_RDONLY, KBPF_ARG_CONST_SIZE_OR_ZERO,
	       KBPF_ARG_ANYTHING) },
	/* Linux makes the reserved record a reference (is_acquire_function) that submit or
	 * discard must release. */
	{ .name = "bpf_ringbuf_reserve", .fn = h_ringbuf_reserve, .flags = KBPF_HELPER_ACQUIRE,
	  .ret_type = KBPF_RET_PTR_TO_ALLOC_MEM | KBPF_RET_MAYBE_NULL,
	  ARGS(KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_CONST_ALLOC_SIZE_OR_ZERO, KBPF_ARG_ANYTHING) },
	{ .name = "bpf_ringbuf_submit", .fn = h_ringbuf_submit, .ret_type = KBPF_RET_VOID,
	  ARGS(KBPF_ARG_PTR_TO_ALLOC_MEM | KBPF_ARG_OBJ_RELEASE, KBPF_ARG_ANYTHING) },
	{ .name = "bpf_ringbuf_discard", .fn = h_ringbuf_discard, .ret_type = KBPF_RET_VOID,
	  ARGS(KBPF_ARG_PTR_TO_ALLOC_MEM | KBPF_ARG_OBJ_RELEASE, KBPF_ARG_ANYTHING) },
	{ .name = "bpf_ringbuf_query", .fn = h_ringbuf_query, .ret_type = KBPF_RET_INTEGER,
	  ARGS(KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_ANYTHING) },
	{ .name = "bpf_map_lookup_percpu_elem", .fn = h_map_lookup_percpu_elem, .flags = KBPF_HELPER_PKT_ACCESS,
	  .ret_type = KBPF_RET_PTR_TO_MAP_VALUE | KBPF_RET_MAYBE_NULL,
	  ARGS(KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_PTR_TO_MAP_KEY, KBPF_ARG_ANYTHING) },
	/* never NULL: the verifier requires a cgroup storage map and flags 0 */
	{ .name = "bpf_get_local_storage", .fn = h_get_local_storage, .ret_type = KBPF_RET_PTR_TO_MAP_VALUE,
	  ARGS(KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_ANYTHING) },
	/* QUEUE / STACK / BLOOM_FILTER; pop and peek write the whole value (a bloom
	 * filter's peek reads it instead: the verifier turns its argument around) */
	{ .name = "bpf_map_push_elem", .fn = h_map_push_elem, .flags = KBPF_HELPER_PKT_ACCESS,
	  .ret_type = KBPF_RET_INTEGER, ARGS(KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_PTR_TO_MAP_VALUE, KBPF_ARG_ANYTHING) },
	{ .name = "bpf_map_pop_elem", .fn = h_map_pop_elem, .ret_type = KBPF_RET_INTEGER,
	  ARGS(KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_PTR_TO_MAP_VALUE | KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE) },
	{ .name = "bpf_map_peek_elem", .fn = h_map_peek_elem, .ret_type = KBPF_RET_INTEGER,
	  ARGS(KBPF_ARG_CONST_MAP_PTR, KBPF_ARG_PTR_TO_MAP_VALUE | KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE) },
};
/* Their Linux ids, index for index. */
static const int32_t map_helper_ids[] = { 1, 2, 3, 8, 130, 131, 132, 133, 134, 195, 81, 87, 88, 89 };
_Static_assert(sizeof(map_helper_ids) / sizeof(map_helper_ids[0]) == sizeof(map_helpers) / sizeof(map_helpers[0]),
	       "one id per map helper");

int kbpf_host_add_map_helpers(struct kbpf_host *host)
{
	if (!host)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(map_helpers) / sizeof(map_helpers[0]); i++) {
		int ret = kbpf_host_helper_register_proto(host, map_helper_ids[i], &map_helpers[i]);
		if (ret)
			return ret;
	}
	return 0;
}
