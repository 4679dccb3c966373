/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-sound-seeds: seed corpora for fuzz_verify and fuzz_verify_exec from the verifier
 * cases (the .case files of tests/verifier, assembled) and from BPF objects (each program's
 * instructions as the object holds them). Each program becomes one file in each format:
 * fuzz_verify's (8-byte header: type, flags; then instructions) and fuzz_verify_exec's
 * (a soundness case, harness.h).
 *
 * usage: kbpf-sound-seeds VERIFY_DIR EXEC_DIR FILE.case|FILE.bpf.o... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include "case.h"
#include "harness.h"

static int nr_written;

static int type_index(const char *name)
{
	for (int i = 0; i < SND_NR_TYPES; i++)
		if (!strcmp(name, snd_type_names[i]))
			return i;
	if (!strcmp(name, "sched_act") || !strcmp(name, "cgroup_skb") || !strcmp(name, "tc"))
		return SND_SCHED_CLS;
	return -1;
}

/* fuzz_verify's type list (tests/fuzz/fuzz_verify.c) */
static int verify_type_index(const char *name)
{
	static const char *const types[] = { "socket_filter", "sched_cls", "xdp", "syscall",
					     "cgroup_skb", "kprobe", "raw_tracepoint", "tracepoint" };
	for (int i = 0; i < 8; i++)
		if (!strcmp(name, types[i]))
			return i;
	return type_index(name) < 0 ? 0 : type_index(name);
}

static void write_both(const char *vdir, const char *edir, const char *tag, const char *type, int unpriv,
		       const struct bpf_insn *insns, size_t cnt)
{
	char path[4096];
	FILE *f;
	uint8_t hdr[8] = { (uint8_t)verify_type_index(type), (uint8_t)(unpriv ? 1 : 0) };

	snprintf(path, sizeof(path), "%s/%s", vdir, tag);
	f = fopen(path, "wb");
	if (f) {
		fwrite(hdr, 1, sizeof(hdr), f);
		fwrite(insns, sizeof(*insns), cnt, f);
		fclose(f);
	}
	struct snd_case c = { .type = (enum snd_type)(type_index(type) < 0 ? 0 : type_index(type)),
			      .unprivileged = unpriv, .insns = insns, .cnt = cnt, .pkt_len = 64 };
	for (int i = 0; i < SND_PKT_MAX; i++)
		c.pkt[i] = (uint8_t)(i * 7);
	snprintf(path, sizeof(path), "%s/%s", edir, tag);
	if (!snd_case_write(&c, path, NULL))
		nr_written++;
}

static void from_cases(const char *vdir, const char *edir, const char *file)
{
	struct vcase *cases = NULL;
	size_t nr = 0;
	char err[512];

	if (case_file_parse(file, &cases, &nr, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	for (size_t i = 0; i < nr; i++) {
		struct bpf_insn *insns = NULL;
		size_t cnt = 0;
		char tag[256];
		if (kbpf_asm(cases[i].text, KBPF_ASM_AUTO, &insns, &cnt, err, sizeof(err)) == 0 && cnt) {
			snprintf(tag, sizeof(tag), "case-%s", cases[i].name);
			write_both(vdir, edir, tag, cases[i].type, cases[i].unpriv, insns, cnt);
		}
		free(insns);
	}
	case_free_all(cases, nr);
}

static void from_object(const char *vdir, const char *edir, const char *file)
{
	struct kbpf_object *obj;
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;

	if (kbpf_object_open_file(file, NULL, &obj))
		return;
	for (struct kbpf_program *p = kbpf_object_next_program(obj, NULL); p; p = kbpf_object_next_program(obj, p)) {
		size_t cnt;
		const struct bpf_insn *insns = kbpf_program_insns(p, &cnt);
		const char *sec = kbpf_program_section_name(p);
		const char *type = !strncmp(sec, "xdp", 3) ? "xdp" : !strncmp(sec, "tc", 2) ? "sched_cls"
				 : !strncmp(sec, "syscall", 7) ? "syscall" : "socket_filter";
		char tag[512];
		if (!insns || !cnt)
			continue;
		snprintf(tag, sizeof(tag), "obj-%s-%s", base, kbpf_program_name(p));
		write_both(vdir, edir, tag, type, 0, insns, cnt);
	}
	kbpf_object_close(obj);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s VERIFY_DIR EXEC_DIR FILE.case|FILE.bpf.o...\n", argv[0]);
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (n > 5 && !strcmp(argv[i] + n - 5, ".case"))
			from_cases(argv[1], argv[2], argv[i]);
		else
			from_object(argv[1], argv[2], argv[i]);
	}
	printf("%d seeds written\n", nr_written);
	return 0;
}
