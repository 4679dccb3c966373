/* SPDX-License-Identifier: Apache-2.0 */
/* What the parts of the kfunc selftest runner share (kfunc_selftests.c). */
#ifndef KBPF_KFUNC_SELFTESTS_H
#define KBPF_KFUNC_SELFTESTS_H
#include <stddef.h>

struct kbpf_host;

/* Record one outcome: its name (stable: the expected-pass list holds it), whether kbpf
 * did as Linux does, and why. */
__attribute__((format(printf, 3, 4))) void kfunc_record(const char *name, int pass, const char *fmt, ...);
/* The last non-empty line of log, into out. */
const char *kfunc_last_line(const char *log, char *out, size_t size);
/* The kfunc cases of verifier/calls.c from the table TABLE (a shared object made by
 * tests/linux-selftests/gen-table.sh), on host. */
int kfunc_verifier_calls(struct kbpf_host *host, const char *table);

#endif
