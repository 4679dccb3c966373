/* SPDX-License-Identifier: Apache-2.0 */
/* Cgroup storage from clang's object (tests/bpf/cgroup_storage.bpf.c): the loader creates
 * both storage maps from their BTF definitions (key struct bpf_cgroup_storage_key,
 * max_entries 0), the cgroup_skb program verifies on Linux's rules and counts packets
 * and bytes into them on the interpreter (fast and checked) and the JIT, and the host
 * reads the counts back with the storage's key. */
#include <errno.h>
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "test.h"
#include "test_object_util.h"

struct storage_key {
	uint64_t cgroup_inode_id;
	uint32_t attach_type, pad;
};

static void test_counts(void)
{
	struct kbpf_host *host = kbpf_host_new();
	CHECK(host && !kbpf_linux_host_add(host));
	uint64_t runs = 0, bytes = 0;
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_object_open_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .host = host, .jit = jit, .log_buf = test_log,
						      .log_size = sizeof(test_log) };
		struct kbpf_object *obj = NULL;
		if (kbpf_object_open_file(bpf_obj("cgroup_storage"), &opts, &obj) || kbpf_object_load(obj)) {
			fprintf(stderr, "load (jit %d): %s\n", jit, test_log);
			CHECK(0);
			kbpf_object_close(obj);
			continue;
		}
		struct kbpf_map *shared = kbpf_object_find_map(obj, "shared"), *percpu = kbpf_object_find_map(obj, "percpu");
		struct kbpf_program *p = kbpf_object_find_program(obj, "count_egress");
		CHECK(shared && percpu && p && kbpf_program_prog(p));
		CHECK_EQ_U64(kbpf_map_type(shared), BPF_MAP_TYPE_CGROUP_STORAGE);
		CHECK_EQ_U64(kbpf_map_key_size(shared), 16);
		CHECK_EQ_U64(kbpf_map_max_entries(shared), 0);
		CHECK(!jit || kbpf_prog_is_jited(kbpf_program_prog(p)));
		/* a fresh object: fresh storage */
		runs = bytes = 0;
		for (int i = 0; p && i < 4; i++) {
			struct __sk_buff skb = { .len = 100 + (uint32_t)i };
			struct kbpf_mem_region r = { &skb, sizeof(skb), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
			struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)&skb },
						    .flags = i == 3 ? KBPF_RUN_CHECKED : 0, .regions = &r, .nr_regions = 1 };
			struct kbpf_run_result rr = { .sz = sizeof(rr) };
			CHECK_EQ_U64(kbpf_prog_run_opts(kbpf_program_prog(p), &ro, &rr), 0);
			CHECK_EQ_U64(rr.retval, runs & 1 ? 0 : 1);
			runs++;
			bytes += skb.len;
		}
		struct storage_key k = { 0 };
		uint64_t c[2] = { 0 }, per[256] = { 0 }, sum = 0;
		CHECK_EQ_U64(shared ? kbpf_map_lookup(shared, &k, c) : -1, 0);
		CHECK_EQ_U64(c[0], runs);
		CHECK_EQ_U64(c[1], bytes);
		CHECK(kbpf_nr_cpus() <= 256);
		CHECK_EQ_U64(percpu ? kbpf_map_lookup(percpu, &k, per) : -1, 0);
		for (unsigned i = 0; i < kbpf_nr_cpus(); i++)
			sum += per[i];
		CHECK_EQ_U64(sum, runs);
		kbpf_object_close(obj);
	}
	kbpf_host_free(host);
}

int main(void)
{
	if (!have_bpf_objects()) {
		printf("SKIP: tests/bpf objects not built (clang or libbpf headers missing)\n");
		return 0;
	}
	RUN(test_counts);
	return test_summary();
}
