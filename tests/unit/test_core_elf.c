/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE end to end on what clang emits: core/core_prog.bpf.c is compiled with
 * preserve_access_index types and libbpf's bpf_core_read.h macros, core/core_target.bpf.c
 * gives the host's BTF; the test takes .BTF.ext out of the program's ELF (libelf),
 * parses it, applies every relocation with one kbpf_core_ctx (as a loader would for an
 * object), then runs each program on the checked interpreter over a host struct and
 * checks what it read. The build defines KBPF_CORE_PROG_OBJ / KBPF_CORE_TARGET_OBJ
 * when clang is available; without them the test says it skipped. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include "btf/btf_ext.h"
#include "btf/core.h"
#include "core/core_host_types.h"
#include "test.h"

#ifdef KBPF_CORE_PROG_OBJ

#define MAX_PROGS 32

struct prog {
	char name[64];
	struct bpf_insn *insns;
	size_t cnt;
};

static struct prog progs[MAX_PROGS];
static size_t nr_progs;
static struct btf *local, *target;
static struct kbpf_btf_ext *ext;
static unsigned kinds_seen;
static struct core_task host_task;

/* Program sections ("core/...") and .BTF.ext out of the object. */
static int read_object(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	char err[256];
	int ret = -1;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			goto out;
		d = elf_getdata(scn, NULL);
		if (!strcmp(name, ".BTF.ext")) {
			if (!d || kbpf_btf_ext_parse(d->d_buf, d->d_size, local, &ext, err, sizeof(err))) {
				fprintf(stderr, "BTF.ext: %s\n", err);
				goto out;
			}
		} else if (!strncmp(name, "core/", 5) && d && nr_progs < MAX_PROGS) {
			struct prog *p = &progs[nr_progs++];

			snprintf(p->name, sizeof(p->name), "%s", name);
			p->cnt = d->d_size / sizeof(struct bpf_insn);
			p->insns = malloc(d->d_size);
			memcpy(p->insns, d->d_buf, d->d_size);
		}
	}
	ret = ext ? 0 : -1;
out:
	elf_end(elf);
	close(fd);
	return ret;
}

static struct prog *find_prog(const char *name)
{
	for (size_t i = 0; i < nr_progs; i++)
		if (!strcmp(progs[i].name, name))
			return &progs[i];
	return NULL;
}

static uint64_t poison_helper(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	(void)a, (void)b, (void)c, (void)d, (void)e;
	return 0xdead;
}

/* Relocate every program with one ctx, as a loader does for a whole object. */
static void test_relocate_all(void)
{
	struct kbpf_core_ctx *ctx = kbpf_core_ctx_new(local, target);
	size_t total = 0;

	CHECK(ctx != NULL);
	for (size_t i = 0; i < ext->nr_secs; i++) {
		const struct kbpf_btf_ext_sec *s = &ext->secs[i];
		struct prog *p = find_prog(s->sec_name);

		if (!s->nr_core_relo)
			continue;
		CHECK(p != NULL);
		if (!p)
			continue;
		for (size_t r = 0; r < s->nr_core_relo; r++) {
			char log[512] = "";
			int ret = kbpf_core_ctx_apply(ctx, &s->core_relo[r], (int)total, p->insns, p->cnt,
						      s->core_relo[r].insn_off / 8, log, sizeof(log));

			if (ret) {
				fprintf(stderr, "%s: %s\n", p->name, log);
				test_failed_now = 1;
			}
			/* only the two instructions meant to be poisoned say anything */
			if (log[0] && strcmp(p->name, "core/poison") && strcmp(p->name, "core/flavour")) {
				fprintf(stderr, "%s: unexpected note: %s\n", p->name, log);
				test_failed_now = 1;
			}
			if (log[0])
				CHECK_CONTAINS(log, "not found in struct core_task");
			kinds_seen |= 1u << s->core_relo[r].kind;
			total++;
		}
	}
	kbpf_core_ctx_free(ctx);
	CHECK(total >= 20);
	/* all kinds clang 14 can emit (TYPE_MATCHES needs clang 15) */
	for (unsigned k = BPF_CORE_FIELD_BYTE_OFFSET; k <= BPF_CORE_ENUMVAL_VALUE; k++)
		if (!(kinds_seen & (1u << k))) {
			fprintf(stderr, "relocation kind %s never seen\n", kbpf_core_relo_kind_str(k));
			test_failed_now = 1;
		}
}

/* Run program name with R1 = &host_task, checked: every load must stay inside it. */
static uint64_t run(const char *name)
{
	struct prog *p = find_prog(name);
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_prog *kp = NULL;
	char log[256] = "", err[256] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .host = host, .name = name, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_mem_region region = { &host_task, sizeof(host_task), KBPF_MEM_READ, "ctx" };
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)&host_task }, .flags = KBPF_RUN_CHECKED,
				    .regions = &region, .nr_regions = 1, .err = err, .err_size = sizeof(err) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	uint64_t r0 = 0xbadbadbad;

	if (!p) {
		fprintf(stderr, "no program %s\n", name);
		test_failed_now = 1;
		kbpf_host_free(host);
		return r0;
	}
	/* unreached poisoned instructions stay in the program: give them a helper */
	kbpf_host_helper_register(host, KBPF_CORE_POISON_HELPER, "core_poison", poison_helper);
	if (kbpf_prog_create(p->insns, p->cnt, &po, &kp)) {
		fprintf(stderr, "%s: %s\n", name, log);
		test_failed_now = 1;
	} else if (kbpf_prog_run_opts(kp, &ro, &rr)) {
		fprintf(stderr, "%s: %s\n", name, err);
		test_failed_now = 1;
	} else {
		r0 = rr.retval;
	}
	kbpf_prog_free(kp);
	kbpf_host_free(host);
	return r0;
}

static void test_run(void)
{
	memset(&host_task, 0x5a, sizeof(host_task));
	host_task.pid = 4242;
	host_task.prio = -7;
	host_task.cookie = 0x1122334455667788ULL;
	host_task.f_lo = 0xf;
	host_task.f_mid = 421;
	host_task.f_hi = 5;
	host_task.arr[3] = 333;
	host_task.sb = -19;
	host_task.wide = 123456;
	host_task.st = CS_SLEEP;

	CHECK_EQ_U64(run("core/pid"), 4242);
	CHECK_EQ_U64(run("core/prio"), (uint64_t)-7);
	CHECK_EQ_U64(run("core/cookie"), 0x1122334455667788ULL);
	CHECK_EQ_U64(run("core/arr"), 333);
	CHECK_EQ_U64(run("core/wide"), 123456);
	CHECK_EQ_U64(run("core/st"), CS_SLEEP);
	CHECK_EQ_U64(run("core/bitfield"), 421);
	CHECK_EQ_U64(run("core/sbitfield"), (uint64_t)-19);
	CHECK_EQ_U64(run("core/exists"), 1);
	CHECK_EQ_U64(run("core/flavour"), 993);
	CHECK_EQ_U64(run("core/sizes"), 8 * 1000 + sizeof(struct core_task));
	CHECK_EQ_U64(run("core/enum"), 42);
	CHECK_EQ_U64(run("core/enum_exists"), 1);
	CHECK_EQ_U64(run("core/type"), 1);
	CHECK_EQ_U64(run("core/type_id"), btf__find_by_name_kind(target, "core_task", BTF_KIND_STRUCT));
	CHECK_EQ_U64(run("core/type_id_local"), btf__find_by_name_kind(local, "core_task", BTF_KIND_STRUCT));
	CHECK_EQ_U64(run("core/poison"), 0xdead);
}

/* The relocated instructions themselves, where the test above cannot see them. */
static void test_patched_insns(void)
{
	struct prog *p = find_prog("core/wide");
	char err[128];

	/* the u32 load of a u64 field widened */
	CHECK(p && p->insns[0].code == (BPF_LDX | BPF_DW | BPF_MEM) &&
	      p->insns[0].off == (int16_t)__builtin_offsetof(struct core_task, wide));
	p = find_prog("core/poison");
	CHECK(p && p->insns[0].code == (BPF_JMP | BPF_CALL) && p->insns[0].imm == KBPF_CORE_POISON_HELPER);
	for (size_t i = 0; i < nr_progs; i++)
		if (kbpf_insns_validate(progs[i].insns, progs[i].cnt, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", progs[i].name, err);
			test_failed_now = 1;
		}
}

int main(void)
{
	local = btf__parse_elf(KBPF_CORE_PROG_OBJ, NULL);
	target = btf__parse_elf(KBPF_CORE_TARGET_OBJ, NULL);
	if (!local || !target || read_object(KBPF_CORE_PROG_OBJ)) {
		fprintf(stderr, "cannot read %s / %s\n", KBPF_CORE_PROG_OBJ, KBPF_CORE_TARGET_OBJ);
		return 1;
	}
	RUN(test_relocate_all);
	RUN(test_run);
	RUN(test_patched_insns);
	for (size_t i = 0; i < nr_progs; i++)
		free(progs[i].insns);
	kbpf_btf_ext_free(ext);
	btf__free(local);
	btf__free(target);
	return test_summary();
}

#else

int main(void)
{
	printf("skipped: clang was not found at configure time (see tests/unit/core/CMakeLists.txt)\n");
	return 0;
}

#endif
