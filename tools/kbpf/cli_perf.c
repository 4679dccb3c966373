/* SPDX-License-Identifier: Apache-2.0 */
/* What `kbpf run` does with an object's perf event arrays: a perf buffer on each (as a
 * libbpf tool opens one with perf_buffer__new) before the run, then every sample the run
 * wrote, printed in the order of each CPU slot, and the samples lost to a full ring. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* Pages per slot, as the common perf_buffer__new(map, 8, ...) of libbpf tools. */
#define CLI_PERF_PAGES 8

struct cli_perf {
	size_t nr;
	struct kbpf_perf_buffer **pbs;
};

static void print_sample(void *ctx, int cpu, void *data, uint32_t size)
{
	const unsigned char *p = data;

	(void)ctx;
	printf("perf event cpu %d: %u bytes:", cpu, size);
	for (uint32_t i = 0; i < size; i++)
		printf(" %02x", p[i]);
	printf("\n");
}

static void print_lost(void *ctx, int cpu, uint64_t cnt)
{
	(void)ctx;
	printf("perf event cpu %d: %llu lost (ring full)\n", cpu, (unsigned long long)cnt);
}

struct cli_perf *cli_perf_open(const char *cmd, const struct kbpf_object *obj)
{
	struct cli_perf *p = calloc(1, sizeof(*p));
	struct kbpf_map *m = NULL;
	size_t n = 0;

	if (!p)
		return NULL;
	while ((m = kbpf_object_next_map(obj, m)))
		n += kbpf_map_type(m) == BPF_MAP_TYPE_PERF_EVENT_ARRAY;
	p->pbs = calloc(n ? n : 1, sizeof(*p->pbs));
	if (!p->pbs) {
		free(p);
		return NULL;
	}
	while ((m = kbpf_object_next_map(obj, m))) {
		if (kbpf_map_type(m) != BPF_MAP_TYPE_PERF_EVENT_ARRAY)
			continue;
		int ret = kbpf_perf_buffer_new(m, CLI_PERF_PAGES, print_sample, print_lost, NULL, &p->pbs[p->nr]);
		if (ret)
			fprintf(stderr, "kbpf %s: note: map '%s': no perf buffer: %s\n", cmd, kbpf_map_name(m),
				strerror(-ret));
		else
			p->nr++;
	}
	return p;
}

void cli_perf_print(struct cli_perf *p)
{
	for (size_t i = 0; p && i < p->nr; i++)
		kbpf_perf_buffer_consume(p->pbs[i]);
	fflush(stdout);
}

void cli_perf_close(struct cli_perf *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr; i++)
		kbpf_perf_buffer_free(p->pbs[i]);
	free(p->pbs);
	free(p);
}
