/* SPDX-License-Identifier: Apache-2.0 */
/* The record Linux's verifier selftests (tools/testing/selftests/bpf/verifier/NAME.c) are
 * written as: designated initialisers of a `struct bpf_test`. This is kbpf's own
 * declaration of it, with the fields and names the test files use (verifier-notes §10.2),
 * shared by the generated table (a shared object built at test time) and the runner. */
#ifndef KBPF_SELFTEST_BPF_TEST_H
#define KBPF_SELFTEST_BPF_TEST_H
#include <stdint.h>
#include <linux/bpf.h> /* enum bpf_prog_type, enum bpf_attach_type, struct bpf_func_info */
#include <kbpf/insn.h>

#define MAX_INSNS 4096 /* BPF_MAXINSNS: a test's insns[] */
#define MAX_EXPECTED_INSNS 32
#define MAX_UNEXPECTED_INSNS 32
#define MAX_FIXUPS 8
#define MAX_TEST_RUNS 8
#define TEST_DATA_LEN 64
#define MAX_FUNC_INFOS 8
#define MAX_BTF_STRINGS 256
#define MAX_BTF_TYPES 256
/* retval meaning "do not check" (a pointer value the test cannot know). */
#define POINTER_VALUE 0xcafe4all

#define F_NEEDS_EFFICIENT_UNALIGNED_ACCESS (1 << 0)
#define F_LOAD_WITH_STRICT_ALIGNMENT (1 << 1)
#define F_NEEDS_JIT_ENABLED (1 << 2) /* 6.12: skipped where the JIT is off (kbpf has one) */

struct kfunc_btf_id_pair {
	const char *kfunc;
	int insn_idx;
};

/* One test run: its input bytes and expected return. A macro, not a tag, because the
 * first run's fields are also members of struct bpf_test itself (an anonymous struct). */
#define BPF_TEST_RUN_DATA				\
	struct {					\
		uint32_t retval, retval_unpriv;		\
		union {					\
			uint8_t data[TEST_DATA_LEN];	\
			uint64_t data64[TEST_DATA_LEN / 8]; \
		};					\
	}

struct bpf_test {
	const char *descr;
	struct bpf_insn insns[MAX_INSNS];
	struct bpf_insn *fill_insns;
	struct bpf_insn expected_insns[MAX_EXPECTED_INSNS];
	struct bpf_insn unexpected_insns[MAX_UNEXPECTED_INSNS];
	int fixup_map_hash_8b[MAX_FIXUPS];
	int fixup_map_hash_48b[MAX_FIXUPS];
	int fixup_map_hash_16b[MAX_FIXUPS];
	int fixup_map_array_48b[MAX_FIXUPS];
	int fixup_map_sockmap[MAX_FIXUPS];
	int fixup_map_sockhash[MAX_FIXUPS];
	int fixup_map_xskmap[MAX_FIXUPS];
	int fixup_map_stacktrace[MAX_FIXUPS];
	int fixup_prog1[MAX_FIXUPS];
	int fixup_prog2[MAX_FIXUPS];
	int fixup_map_in_map[MAX_FIXUPS];
	int fixup_cgroup_storage[MAX_FIXUPS];
	int fixup_percpu_cgroup_storage[MAX_FIXUPS];
	int fixup_map_spin_lock[MAX_FIXUPS];
	int fixup_map_array_ro[MAX_FIXUPS];
	int fixup_map_array_wo[MAX_FIXUPS];
	int fixup_map_array_small[MAX_FIXUPS];
	int fixup_sk_storage_map[MAX_FIXUPS];
	int fixup_map_event_output[MAX_FIXUPS];
	int fixup_map_reuseport_array[MAX_FIXUPS];
	int fixup_map_ringbuf[MAX_FIXUPS];
	int fixup_map_timer[MAX_FIXUPS];
	int fixup_map_kptr[MAX_FIXUPS];
	struct kfunc_btf_id_pair fixup_kfunc_btf_id[MAX_FIXUPS];
	/* tab-separated substrings the log must hold in order; "" or NULL: no check */
	const char *errstr;
	const char *errstr_unpriv;
	uint32_t insn_processed;
	int prog_len;
	enum { UNDEF, ACCEPT, REJECT, VERBOSE_ACCEPT } result, result_unpriv;
	enum bpf_prog_type prog_type; /* 0: socket filter */
	uint8_t flags;
	/* a generator of long programs in Linux's test_verifier.c (not reimplemented here:
	 * such tests are skipped), so only its address matters */
	void (*fill_helper)(struct bpf_test *self);
	int runs; /* 0: one run; negative: none */
	union {
		BPF_TEST_RUN_DATA;
		BPF_TEST_RUN_DATA retvals[MAX_TEST_RUNS];
	};
	enum bpf_attach_type expected_attach_type;
	const char *kfunc;
	struct bpf_func_info func_info[MAX_FUNC_INFOS];
	int func_info_cnt;
	char btf_strings[MAX_BTF_STRINGS];
	uint32_t btf_types[MAX_BTF_TYPES];
};

/* One suite file's tests, as the generated table lists them. */
struct bpf_test_file {
	const char *name; /* "alu.c" */
	struct bpf_test *tests;
	int nr;
};
/* The generated table exports these two symbols. */
#define KBPF_SELFTEST_FILES_SYM "kbpf_selftest_files"
#define KBPF_SELFTEST_NR_FILES_SYM "kbpf_selftest_nr_files"
/* and the Linux version they come from ("6.12"; absent: "6.1") */
#define KBPF_SELFTEST_LINUX_SYM "kbpf_selftest_linux"

#endif /* KBPF_SELFTEST_BPF_TEST_H */
