/* SPDX-License-Identifier: Apache-2.0 */
/* Loader edges on tests/bpf/loader_edges.bpf.c: an ld_imm64 left in the fd form with no
 * relocation names no map (an object has no fds; Linux refuses the fd as no map's), and
 * a level-1 verifier log longer than the object's log keeps its end, the reason. */
#include <errno.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "test_object_util.h"
#include "test_linux_util.h"

static struct kbpf_object *open_with(struct kbpf_host *host, unsigned log_level, const char *only)
{
	struct kbpf_object_open_opts opts = {
		.sz = sizeof(opts), .host = host, .log_buf = test_log, .log_size = sizeof(test_log),
		.log_level = log_level,
	};
	struct kbpf_object *obj = NULL;

	CHECK_EQ_U64(kbpf_object_open_file(bpf_obj("loader_edges"), &opts, &obj), 0);
	for (struct kbpf_program *p = obj ? kbpf_object_next_program(obj, NULL) : NULL; p;
	     p = kbpf_object_next_program(obj, p))
		kbpf_program_set_autoload(p, !strcmp(kbpf_program_name(p), only));
	return obj;
}

static void test_raw_map_fd(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_object *obj = open_with(host, 0, "raw_map_fd");
	if (obj) {
		CHECK_EQ_U64(kbpf_object_load(obj), (uint64_t)-EBADF);
		CHECK_CONTAINS(kbpf_object_log(obj), "fd 0 is not pointing to valid bpf_map");
		kbpf_object_close(obj);
	}
	/* the relocated reference to the same map loads */
	obj = open_with(host, 0, "uses_map");
	if (obj) {
		CHECK_EQ_U64(kbpf_object_load(obj), 0);
		kbpf_object_close(obj);
	}
	kbpf_host_free(host);
}

static void test_long_log_keeps_its_end(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_object *obj = open_with(host, 1, "too_large");
	if (obj) {
		CHECK_EQ_U64(kbpf_object_load(obj), (uint64_t)-E2BIG);
		const char *log = kbpf_object_log(obj);
		CHECK(strlen(log) > 512 * 1024); /* the walk's lines, as many as fit */
		CHECK_CONTAINS(log, "BPF program is too large. Processed 1000001 insn");
		CHECK_CONTAINS(log, "program 'too_large': Argument list too long");
		kbpf_object_close(obj);
	}
	kbpf_host_free(host);
}

int main(void)
{
	SKIP_WITHOUT_OBJECTS();
	RUN(test_raw_map_fd);
	RUN(test_long_log_keeps_its_end);
	return test_summary();
}
