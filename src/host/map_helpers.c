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

static uint64_t h_get_smp_processor_id(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
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

static const struct {
	int32_t id;
	const char *name;
	kbpf_helper_fn fn;
} map_helpers[] = {
	{ 1, "bpf_map_lookup_elem", h_map_lookup_elem },
	{ 2, "bpf_map_update_elem", h_map_update_elem },
	{ 3, "bpf_map_delete_elem", h_map_delete_elem },
	{ 8, "bpf_get_smp_processor_id", h_get_smp_processor_id },
	{ 130, "bpf_ringbuf_output", h_ringbuf_output },
	{ 131, "bpf_ringbuf_reserve", h_ringbuf_reserve },
	{ 132, "bpf_ringbuf_submit", h_ringbuf_submit },
	{ 133, "bpf_ringbuf_discard", h_ringbuf_discard },
	{ 134, "bpf_ringbuf_query", h_ringbuf_query },
	{ 195, "bpf_map_lookup_percpu_elem", h_map_lookup_percpu_elem },
};

int kbpf_host_add_map_helpers(struct kbpf_host *host)
{
	if (!host)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(map_helpers) / sizeof(map_helpers[0]); i++) {
		int ret = kbpf_host_helper_register(host, map_helpers[i].id, map_helpers[i].name, map_helpers[i].fn);
		if (ret)
			return ret;
	}
	return 0;
}
