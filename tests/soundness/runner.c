/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-soundness: generate programs from consecutive seeds (gen.h), check each one
 * (harness.h), and report programs/second, the acceptance rate and every violation,
 * with a reproducer written to the findings directory.
 *
 * usage: kbpf-soundness [-n COUNT] [-s FIRST_SEED] [-t SECONDS] [--findings DIR]
 *                       [--corpus DIR [--corpus-max N]] [--reasons] [--no-kfuncs]
 *                       [--templates all|NAME,...] [--kernel]
 *        kbpf-soundness --repro FILE...   (replay reproducers / fuzz_verify_exec inputs)
 * Exit status: 0 when no violation was found, 1 otherwise, 2 on a usage or setup error,
 * 3 when a program hung (its seed is printed). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "gen.h"
#include "harness.h"
#include "kernel.h"

#define HANG_SECONDS 300

/* A run that hangs (a program waiting for a bpf_spin_lock it left held itself, or
 * spinning where the JIT has no budget): say which seed, then stop. */
static volatile uint64_t cur_seed;
static void on_alarm(int sig)
{
	char msg[96];
	int n = snprintf(msg, sizeof(msg), "HANG seed %llu: no verdict within %d s\n", (unsigned long long)cur_seed,
			 HANG_SECONDS);
	(void)sig;
	if (n > 0)
		(void)!write(1, msg, (size_t)n);
	_exit(3);
}

static const char *kernel_release(void)
{
	static struct utsname u;
	return uname(&u) ? "?" : u.release;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Rejection reasons of unmutated programs (the generator's precision, for tuning). */
#define MAX_REASONS 256
struct reason { char text[96]; uint64_t n; uint64_t seed; };
struct reasons { struct reason r[MAX_REASONS]; int nr; };
static struct reasons rejections, kernel_refusals;

/* Count the log's error line (digits dropped) in t; returns how often it was seen. */
static uint64_t reason_add(struct reasons *t, const char *log, uint64_t seed)
{
	const char *end = log + strlen(log), *line;
	char key[96];
	size_t k = 0;

	while (end > log && end[-1] == '\n')
		end--;
	/* the last line before the statistics, if any */
	line = end;
	while (line > log && line[-1] != '\n')
		line--;
	if (end - line >= 10 && !memcmp(line, "processed ", 10) && line > log) {
		end = line - 1;
		line = end;
		while (line > log && line[-1] != '\n')
			line--;
	}
	for (const char *p = line; p < end && k < sizeof(key) - 1; p++)
		if (*p < '0' || *p > '9')
			key[k++] = *p;
	key[k] = 0;
	for (int i = 0; i < t->nr; i++)
		if (!strcmp(t->r[i].text, key))
			return ++t->r[i].n;
	if (t->nr < MAX_REASONS) {
		snprintf(t->r[t->nr].text, sizeof(t->r[0].text), "%s", key);
		t->r[t->nr].seed = seed;
		t->r[t->nr++].n = 1;
	}
	return 1;
}

static int reason_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct reason *)a)->n, y = ((const struct reason *)b)->n;
	return x < y ? 1 : x > y ? -1 : 0;
}

static void reasons_print(struct reasons *t, int max)
{
	qsort(t->r, (size_t)t->nr, sizeof(t->r[0]), reason_cmp);
	for (int r = 0; r < t->nr && r < max; r++)
		printf("  %8" PRIu64 "  %s  (e.g. seed %" PRIu64 ")\n", t->r[r].n, t->r[r].text, t->r[r].seed);
}

static void tmpl_names_print(uint32_t used)
{
	for (int t = 0; t < SND_NR_TMPL; t++)
		if ((used >> t) & 1)
			printf(", %s", snd_tmpl_names[t]);
}

/* --templates all, or a comma-separated list of template names (gen.h). */
static int templates_parse(const char *arg, uint32_t *mask)
{
	char buf[512];

	*mask = 0;
	if (!strcmp(arg, "all")) {
		*mask = SND_TMPL_ALL;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int t = 0;
		while (t < SND_NR_TMPL && strcmp(tok, snd_tmpl_names[t]))
			t++;
		if (t == SND_NR_TMPL) {
			fprintf(stderr, "unknown template '%s'; templates:", tok);
			for (t = 0; t < SND_NR_TMPL; t++)
				fprintf(stderr, " %s", snd_tmpl_names[t]);
			fprintf(stderr, "\n");
			return -1;
		}
		*mask |= 1u << t;
	}
	return 0;
}

static int repro(struct snd_env *env, int argc, char **argv, int verbose)
{
	int bad = 0;
	for (int i = 0; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		static uint8_t data[1 << 20];
		struct snd_case c;
		struct snd_result res;

		if (!f) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		size_t n = fread(data, 1, sizeof(data), f);
		fclose(f);
		if (snd_case_decode(&c, data, n)) {
			fprintf(stderr, "%s: too short for a case\n", argv[i]);
			return 2;
		}
		struct bpf_insn *insns = malloc(c.cnt * sizeof(*insns) + 1);
		if (!insns)
			return 2;
		memcpy(insns, c.insns, c.cnt * sizeof(*insns));
		c.insns = insns;
		snd_check(env, &c, &res);
		static const char *const names[] = { "rejected", "passed", "nondet", "budget", "VIOLATION", "error",
						     "unrunnable" };
		printf("%s: %s (%s, %zu insns)%s%s\n", argv[i], names[res.verdict], snd_type_names[c.type], c.cnt,
		       res.why[0] ? ": " : "", res.why);
		if (res.verdict == SND_REJECTED)
			printf("  verifier: %s", env->log[0] ? env->log : "(no log)\n");
		if (verbose)
			kbpf_prog_disasm(c.insns, c.cnt, NULL, stdout);
		bad |= res.verdict == SND_VIOLATION || res.verdict == SND_ERROR;
		free(insns);
	}
	return bad;
}

int main(int argc, char **argv)
{
	uint64_t count = 10000, first = 1, corpus_max = 2000;
	double seconds = 0;
	const char *findings = NULL, *corpus = NULL, *write_to = NULL;
	int show_reasons = 0, kfuncs = 1, quiet = 0, verbose = 0;
	uint32_t templates = 0;
	int kernel = 0;
	struct snd_kernel *kern = NULL;
	uint64_t kstat[4] = { 0 };
	struct snd_env env;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			count = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			first = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			seconds = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--findings") && i + 1 < argc)
			findings = argv[++i];
		else if (!strcmp(argv[i], "--corpus") && i + 1 < argc)
			corpus = argv[++i];
		else if (!strcmp(argv[i], "--corpus-max") && i + 1 < argc)
			corpus_max = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--reasons"))
			show_reasons = 1;
		else if (!strcmp(argv[i], "--no-kfuncs"))
			kfuncs = 0;
		else if (!strcmp(argv[i], "-q"))
			quiet = 1;
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "--write") && i + 1 < argc)
			write_to = argv[++i];
		else if (!strcmp(argv[i], "--kernel"))
			kernel = 1;
		else if (!strcmp(argv[i], "--templates") && i + 1 < argc) {
			if (templates_parse(argv[++i], &templates))
				return 2;
		} else if (!strcmp(argv[i], "--repro"))
			break;
		else {
			fprintf(stderr, "usage: %s [-n COUNT] [-s FIRST_SEED] [-t SECONDS] [--findings DIR] "
					"[--corpus DIR [--corpus-max N]] [--reasons] [--no-kfuncs] [-q] [-v]\n"
					"       [--templates all|NAME,...] [--kernel]\n"
					"       %s -s SEED --write FILE\n"
					"       %s --repro FILE...\n", argv[0], argv[0], argv[0]);
			return 2;
		}
	}
	if (snd_env_init(&env, kfuncs)) {
		fprintf(stderr, "soundness: cannot set up the environment\n");
		return 2;
	}
	if (verbose)
		env.log_level = KBPF_LOG_LEVEL1;
	if (i < argc) { /* --repro */
		int ret = repro(&env, argc - i - 1, argv + i + 1, verbose);
		snd_env_free(&env);
		return ret;
	}
	if (write_to) { /* --write FILE: the case of seed -s as a reproducer file, not checked */
		static struct snd_gen wg;
		snd_gen(&wg, &env, first, templates);
		int ret = snd_case_write(&wg.c, write_to, "written by kbpf-soundness --write");
		snd_env_free(&env);
		return ret ? 2 : 0;
	}
	if (kernel) {
		char why[256] = "";
		if (snd_kernel_open(&kern, &env, why, sizeof(why)))
			printf("soundness: --kernel skipped: %s\n", why); /* not an error: the rest runs */
	}
	if (findings)
		mkdir(findings, 0755);
	if (corpus)
		mkdir(corpus, 0755);

	signal(SIGALRM, on_alarm);
	static struct snd_gen g;
	uint64_t n = 0, accepted = 0, passed = 0, nondet = 0, budget = 0, violations = 0, errors = 0;
	uint64_t unrunnable = 0, mutated = 0, mutated_acc = 0, jited = 0, insns_gen = 0, insns_run = 0, written = 0;
	uint64_t by_type[SND_NR_TYPES][2] = { { 0 } };
	/* per template: programs that have it, accepted, violations; and per case flag */
	uint64_t by_tmpl[SND_NR_TMPL][4] = { { 0 } }, unpriv[2] = { 0 }, freq[2] = { 0 }, strict[2] = { 0 };
	double t0 = now(), last = t0;

	printf("soundness: seeds %" PRIu64 "..%" PRIu64 "%s, kfuncs %s, templates %s\n", first, first + count - 1,
	       seconds > 0 ? " (or until the time limit)" : "", env.has_kfuncs ? "on" : "off",
	       templates == SND_TMPL_ALL ? "all" : templates ? "some" : "off");
	for (n = 0; n < count; n++) {
		uint64_t seed = first + n;
		struct snd_result res;

		snd_gen(&g, &env, seed, templates);
		cur_seed = seed;
		alarm(HANG_SECONDS);
		snd_check(&env, &g.c, &res);
		alarm(0);
		if (verbose) { /* the program and the verifier's log: for tuning the generator */
			printf("=== seed %" PRIu64 " (%s%s): verdict %d %s\n", seed, snd_type_names[g.c.type],
			       g.mutated ? ", mutated" : "", res.verdict, res.why);
			kbpf_prog_disasm(g.c.insns, g.c.cnt, NULL, stdout);
			printf("--- log\n%s\n", env.log);
		}
		insns_gen += g.cnt;
		mutated += g.mutated;
		int acc = res.verdict != SND_REJECTED, bad = res.verdict == SND_VIOLATION;
		for (int t = 0; t < SND_NR_TMPL; t++)
			if ((g.tmpl_used >> t) & 1) {
				by_tmpl[t][0]++;
				by_tmpl[t][1] += acc;
				by_tmpl[t][2] += bad;
			}
		unpriv[0] += g.c.unprivileged;
		unpriv[1] += g.c.unprivileged && acc;
		freq[0] += g.c.state_freq;
		freq[1] += g.c.state_freq && acc;
		strict[0] += g.c.strict;
		strict[1] += g.c.strict && acc;
		by_type[g.c.type][0]++;
		if (res.verdict != SND_REJECTED) {
			accepted++;
			by_type[g.c.type][1]++;
			mutated_acc += g.mutated;
			jited += res.jited;
			insns_run += res.insns_executed;
			/* seeds for the fuzzers: programs that passed (a violation is a finding, and
			 * fuzz_verify_exec would abort on it at once) */
			if (corpus && written < corpus_max && (seed % 7) == 0 && res.verdict != SND_VIOLATION) {
				char path[4096];
				snprintf(path, sizeof(path), "%s/sound-%s%" PRIu64, corpus, templates ? "tmpl-" : "", seed);
				if (!snd_case_write(&g.c, path, NULL))
					written++;
			}
		} else if (show_reasons && !g.mutated) {
			reason_add(&rejections, env.log, seed);
		}
		if (kern && res.verdict != SND_REJECTED) {
			char kmsg[512];
			enum snd_kverdict kv = snd_kernel_load(kern, &env, &g.c, kmsg, sizeof(kmsg));
			kstat[kv]++;
			if (kv == SND_K_REFUSED) {
				for (int t = 0; t < SND_NR_TMPL; t++)
					by_tmpl[t][3] += (g.tmpl_used >> t) & 1;
				/* each reason's first few programs in full, then only counted */
				if (reason_add(&kernel_refusals, kmsg, seed) <= 3) {
					printf("KERNEL REFUSES seed %" PRIu64 " (%s%s%s", seed, snd_type_names[g.c.type],
					       g.mutated ? ", mutated" : "", g.c.state_freq ? ", state_freq" : "");
					tmpl_names_print(g.tmpl_used);
					printf("): %s\n", kmsg);
				}
			} else if (kv == SND_K_ERROR && kstat[kv] <= 3) {
				printf("kernel load error seed %" PRIu64 ": %s\n", seed, kmsg);
			} else if (kv == SND_K_SKIPPED && kstat[kv] == 1) {
				printf("kernel: not tried (first of them) seed %" PRIu64 ": %s\n", seed, kmsg);
			}
		}
		switch (res.verdict) {
		case SND_PASSED: passed++; break;
		case SND_NONDET: nondet++; break;
		case SND_BUDGET: budget++; break;
		case SND_ERROR: errors++; break;
		case SND_UNRUNNABLE:
			if (!unrunnable++)
				printf("unrunnable (first of its kind) seed %" PRIu64 ": %s\n", seed, res.why);
			break;
		case SND_VIOLATION: {
			violations++;
			printf("VIOLATION seed %" PRIu64 " (%s%s, %zu insns%s%s", seed, snd_type_names[g.c.type],
			       g.c.unprivileged ? ", unprivileged" : "", g.cnt, g.mutated ? ", mutated" : "",
			       g.c.state_freq ? ", state_freq" : "");
			tmpl_names_print(g.tmpl_used);
			printf("): %s\n", res.why);
			if (findings) {
				char path[4096];
				snprintf(path, sizeof(path), "%s/seed-%" PRIu64 ".bin", findings, seed);
				if (!snd_case_write(&g.c, path, res.why))
					printf("  reproducer: %s (kbpf-soundness --repro %s)\n", path, path);
			}
			break;
		}
		default: break;
		}
		double t = now();
		if (!quiet && t - last >= 10) {
			printf("  %" PRIu64 " programs, %.0f/s, %.1f%% accepted, %" PRIu64 " violations\n", n + 1,
			       (double)(n + 1) / (t - t0), 100.0 * (double)accepted / (double)(n + 1), violations);
			fflush(stdout);
			last = t;
		}
		if (seconds > 0 && t - t0 >= seconds) {
			n++;
			break;
		}
	}
	double dt = now() - t0;
	if (!n)
		n = 1;
	printf("soundness: %" PRIu64 " programs in %.1f s: %.0f programs/s, %.1f insns/program\n", n, dt,
	       (double)n / dt, (double)insns_gen / (double)n);
	printf("  accepted %" PRIu64 " (%.1f%%): passed %" PRIu64 " (JIT compared), nondet %" PRIu64
	       " (checked run only), budget %" PRIu64 ", unrunnable %" PRIu64 "; JIT-compiled %" PRIu64 "; %.1f insns executed/accepted\n",
	       accepted, 100.0 * (double)accepted / (double)n, passed, nondet, budget, unrunnable, jited,
	       accepted ? (double)insns_run / (double)accepted : 0.0);
	printf("  mutated %" PRIu64 " (%.1f%% of them accepted); unmutated %.1f%% accepted\n", mutated,
	       mutated ? 100.0 * (double)mutated_acc / (double)mutated : 0.0,
	       n - mutated ? 100.0 * (double)(accepted - mutated_acc) / (double)(n - mutated) : 0.0);
	printf("  by type:");
	for (int t = 0; t < SND_NR_TYPES; t++)
		printf(" %s %.1f%% of %" PRIu64 ";", snd_type_names[t],
		       by_type[t][0] ? 100.0 * (double)by_type[t][1] / (double)by_type[t][0] : 0.0, by_type[t][0]);
	printf("\n");
	if (templates) {
		printf("  unprivileged %" PRIu64 " (%" PRIu64 " accepted), state_freq %" PRIu64 " (%" PRIu64
		       " accepted), strict %" PRIu64 " (%" PRIu64 " accepted)\n", unpriv[0], unpriv[1], freq[0], freq[1],
		       strict[0], strict[1]);
		printf("  templates (programs with it: generated / accepted / violations%s):\n",
		       kern ? " / refused by Linux" : "");
		for (int t = 0; t < SND_NR_TMPL; t++) {
			if (!((templates >> t) & 1))
				continue;
			printf("    %-12s %8" PRIu64 " %8" PRIu64 " %8" PRIu64, snd_tmpl_names[t], by_tmpl[t][0],
			       by_tmpl[t][1], by_tmpl[t][2]);
			if (kern)
				printf(" %8" PRIu64, by_tmpl[t][3]);
			printf("\n");
		}
	}
	if (corpus)
		printf("  %" PRIu64 " accepted cases written to %s\n", written, corpus);
	if (show_reasons) {
		printf("  rejections of unmutated programs, by reason:\n");
		reasons_print(&rejections, 25);
	}
	if (kern) {
		printf("  kernel (%s): of %" PRIu64 " programs kbpf accepted, Linux accepted %" PRIu64 ", refused %" PRIu64
		       ", not tried %" PRIu64 ", load errors %" PRIu64 "\n", kernel_release(), kstat[SND_K_ACCEPTED] +
		       kstat[SND_K_REFUSED] + kstat[SND_K_SKIPPED] + kstat[SND_K_ERROR], kstat[SND_K_ACCEPTED],
		       kstat[SND_K_REFUSED], kstat[SND_K_SKIPPED], kstat[SND_K_ERROR]);
		if (kernel_refusals.nr)
			printf("  accepted by kbpf, refused by Linux, by the kernel's reason:\n");
		reasons_print(&kernel_refusals, 40);
		snd_kernel_close(kern);
	}
	printf("violations: %" PRIu64 ", harness errors: %" PRIu64 "\n", violations, errors);
	snd_env_free(&env);
	return violations || errors ? 1 : 0;
}
