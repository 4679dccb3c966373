/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the object tests: where the tests/bpf objects are (the build defines
 * KBPF_TEST_BPF_DIR, empty when clang is missing) and how to open one. */
#ifndef KBPF_TEST_OBJECT_UTIL_H
#define KBPF_TEST_OBJECT_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <kbpf/kbpf.h>
#include "test.h"

#ifndef KBPF_TEST_BPF_DIR
#define KBPF_TEST_BPF_DIR ""
#endif

static char test_log[16384];

static inline int have_bpf_objects(void)
{
	return KBPF_TEST_BPF_DIR[0] != 0;
}

/* tests/bpf/NAME.bpf.c, compiled */
static inline const char *bpf_obj(const char *name)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];
	snprintf(p, sizeof(path[0]), "%s/%s.bpf.o", KBPF_TEST_BPF_DIR, name);
	return p;
}

/* A host as the CLI makes it: map helpers, CONFIG_HZ=250. */
static inline struct kbpf_host *test_host_new(void)
{
	struct kbpf_host *host = kbpf_host_new();
	if (!host || kbpf_host_add_map_helpers(host) || kbpf_host_kconfig_set(host, "CONFIG_HZ", 250)) {
		kbpf_host_free(host);
		return NULL;
	}
	return host;
}

/* Open tests/bpf/NAME.bpf.o on host (NULL: the object's private host); NULL on failure
 * (the test is marked failed and the log printed). */
static inline struct kbpf_object *open_obj(const char *name, struct kbpf_host *host)
{
	struct kbpf_object_open_opts opts = {
		.sz = sizeof(opts), .trusted_unverified = 1, .host = host, .log_buf = test_log, .log_size = sizeof(test_log),
	};
	struct kbpf_object *obj = NULL;
	int ret = kbpf_object_open_file(bpf_obj(name), &opts, &obj);

	if (ret) {
		fprintf(stderr, "open %s: %d: %s\n", name, ret, test_log);
		test_failed_now = 1;
		return NULL;
	}
	return obj;
}

/* open_obj + load; NULL on failure. */
static inline struct kbpf_object *load_obj(const char *name, struct kbpf_host *host)
{
	struct kbpf_object *obj = open_obj(name, host);
	int ret;

	if (!obj)
		return NULL;
	ret = kbpf_object_load(obj);
	if (ret) {
		fprintf(stderr, "load %s: %d: %s\n", name, ret, kbpf_object_log(obj));
		test_failed_now = 1;
		kbpf_object_close(obj);
		return NULL;
	}
	return obj;
}

/* Run program NAME of obj with ctx; checked mode if checked. Returns R0, or marks the
 * test failed and returns UINT64_MAX. */
static inline uint64_t run_prog(struct kbpf_object *obj, const char *name, void *ctx, int checked)
{
	struct kbpf_program *p = kbpf_object_find_program(obj, name);
	char err[256] = "";
	struct kbpf_run_opts ro = {
		.sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)ctx }, .flags = checked ? KBPF_RUN_CHECKED : 0,
		.err = err, .err_size = sizeof(err),
	};
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	int ret;

	if (!p || !kbpf_program_prog(p)) {
		fprintf(stderr, "program %s: not found or not loaded\n", name);
		test_failed_now = 1;
		return UINT64_MAX;
	}
	ret = kbpf_prog_run_opts(kbpf_program_prog(p), &ro, &rr);
	if (ret) {
		fprintf(stderr, "run %s: %d: %s\n", name, ret, err);
		test_failed_now = 1;
		return UINT64_MAX;
	}
	return rr.retval;
}

#define SKIP_WITHOUT_OBJECTS()                                                              \
	do {                                                                                \
		if (!have_bpf_objects()) {                                                  \
			printf("skipped: tests/bpf objects were not built (no clang)\n");   \
			return 0;                                                           \
		}                                                                           \
	} while (0)

#endif
