/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE end-to-end test programs: each section is one program reading the host's
 * struct core_task through the program's own, differently laid out, view of it.
 * test_core_elf.c relocates them against core_target.bpf.o's BTF and runs them on a
 * host instance. Every relocation kind clang 14 emits appears at least once. */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

enum core_state { CS_RUN, CS_SLEEP, CS_GONE };

struct core_task {
	unsigned int pid;
	int prio;
	unsigned long long cookie;
	unsigned int f_mid : 9;
	int sb : 6;
	int arr[4];
	int missing_field;
	unsigned int wide;
	enum core_state st;
} __attribute__((preserve_access_index));

/* a flavour: another layout the program is prepared for */
struct core_task___new {
	int priority;
} __attribute__((preserve_access_index));

struct core_absent {
	int x;
} __attribute__((preserve_access_index));

SEC("core/pid") __u64 get_pid(struct core_task *t)
{
	return t->pid;
}

SEC("core/prio") __u64 get_prio(struct core_task *t)
{
	return t->prio;
}

SEC("core/cookie") __u64 get_cookie(struct core_task *t)
{
	return t->cookie;
}

SEC("core/arr") __u64 get_arr(struct core_task *t)
{
	return t->arr[3];
}

SEC("core/wide") __u64 get_wide(struct core_task *t)
{
	return t->wide;
}

SEC("core/st") __u64 get_st(struct core_task *t)
{
	return t->st;
}

SEC("core/bitfield") __u64 get_bitfield(struct core_task *t)
{
	return BPF_CORE_READ_BITFIELD(t, f_mid);
}

SEC("core/sbitfield") __s64 get_sbitfield(struct core_task *t)
{
	return BPF_CORE_READ_BITFIELD(t, sb);
}

SEC("core/exists") __u64 get_exists(struct core_task *t)
{
	return bpf_core_field_exists(t->missing_field) * 10 + bpf_core_field_exists(t->prio);
}

SEC("core/flavour") __u64 get_flavour(void *ctx)
{
	struct core_task___new *n = ctx;

	if (bpf_core_field_exists(n->priority))
		return n->priority; /* poisoned, never reached on this host */
	return ((struct core_task *)ctx)->prio + 1000;
}

SEC("core/sizes") __u64 get_sizes(struct core_task *t)
{
	return bpf_core_field_size(t->wide) * 1000 + bpf_core_type_size(struct core_task);
}

SEC("core/enum") __u64 get_enum(void *ctx)
{
	return bpf_core_enum_value(enum core_state, CS_SLEEP);
}

SEC("core/enum_exists") __u64 get_enum_exists(void *ctx)
{
	return bpf_core_enum_value_exists(enum core_state, CS_GONE) * 10 +
	       bpf_core_enum_value_exists(enum core_state, CS_RUN);
}

SEC("core/type") __u64 get_type(void *ctx)
{
	return bpf_core_type_exists(struct core_absent) * 10 + bpf_core_type_exists(struct core_task);
}

SEC("core/type_id") __u64 get_type_id(void *ctx)
{
	return bpf_core_type_id_kernel(struct core_task);
}

SEC("core/type_id_local") __u64 get_type_id_local(void *ctx)
{
	return bpf_core_type_id_local(struct core_task);
}

SEC("core/poison") __u64 get_poison(struct core_task *t)
{
	return t->missing_field; /* reached: the poison call runs */
}

char LICENSE[] SEC("license") = "GPL";
