/* SPDX-License-Identifier: Apache-2.0 */
/* Read-only maps (docs/maps.md, "Frozen read-only arrays"): a BPF_F_RDONLY_PROG ARRAY's
 * values are write-protected when it is frozen, for the host as for programs, and only
 * then does the verifier take loads from them as constants (Linux 6.12's
 * bpf_map_is_rdonly). Writes after the freeze are refused (-EPERM) or fault; the freeze
 * waits for host writes in flight. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <kbpf/map.h>
#include "test.h"

static struct kbpf_map *mk(uint32_t type, uint32_t vs, uint32_t max, uint32_t flags)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = 4, .value_size = vs,
				    .max_entries = max, .map_flags = flags, .name = "ro" };
	struct kbpf_map *m = NULL;

	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	return m;
}

static void on_segv(int sig)
{
	(void)sig;
	_exit(42);
}

/* Write one byte at p in a child process: 42 if the write faulted, 0 if it went
 * through, else what went wrong. */
static int child_write(void *p)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		signal(SIGSEGV, on_segv);
		signal(SIGBUS, on_segv);
		*(volatile uint8_t *)p = 0x5a;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return WTERMSIG(status) == SIGSEGV ? 42 : -2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -3;
}

static void test_frozen_rdonly_prog_is_write_protected(void)
{
	struct kbpf_map *m = mk(BPF_MAP_TYPE_ARRAY, 16, 1, BPF_F_RDONLY_PROG);
	uint32_t key = 0;
	uint8_t v[16] = { 1, 2, 3, 4 }, out[16];
	void *p, *addr;

	CHECK_EQ_U64(kbpf_map_update(m, &key, v, BPF_ANY), 0);
	p = kbpf_map_lookup_elem(m, &key);
	CHECK(p != NULL);
	CHECK_EQ_U64(kbpf_map_direct_value_addr(m, 4, &addr), 0);
	CHECK(addr == (char *)p + 4);
	CHECK_EQ_U64(child_write(p), 0); /* writable until frozen */

	CHECK_EQ_U64(kbpf_map_freeze(m), 0);
	/* every kbpf path that writes values refuses */
	v[0] = 9;
	CHECK_EQ_U64(kbpf_map_update(m, &key, v, BPF_ANY), -EPERM);
	CHECK_EQ_U64(kbpf_map_update(m, &key, v, BPF_EXIST), -EPERM);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, v, BPF_ANY), -EPERM);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -EPERM);
	CHECK_EQ_U64(kbpf_map_delete_elem(m, &key), -EINVAL); /* arrays: never */
	/* the pointers stay valid for reading, the same as before */
	CHECK(kbpf_map_lookup_elem(m, &key) == p);
	CHECK_EQ_U64(kbpf_map_direct_value_addr(m, 4, &addr), 0);
	CHECK(addr == (char *)p + 4);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, out), 0);
	CHECK_EQ_U64(out[0], 1);
	CHECK_EQ_U64(((uint8_t *)p)[3], 4);
	/* ... and a write through them faults */
	CHECK_EQ_U64(child_write(p), 42);
	CHECK_EQ_U64(child_write(addr), 42);
	CHECK_EQ_U64(kbpf_map_freeze(m), -EBUSY);
	kbpf_map_free(m);
}

/* Linux reads constants only from what BPF_F_RDONLY_PROG arrays are: other maps keep
 * writable values when frozen (frozen means read-only for the host side's calls). */
static void test_other_frozen_maps_unchanged(void)
{
	uint32_t key = 0;
	struct kbpf_map *plain = mk(BPF_MAP_TYPE_ARRAY, 8, 1, 0);
	struct kbpf_map *pcpu = mk(BPF_MAP_TYPE_PERCPU_ARRAY, 8, 1, BPF_F_RDONLY_PROG);

	CHECK_EQ_U64(kbpf_map_freeze(plain), 0);
	CHECK_EQ_U64(kbpf_map_freeze(pcpu), 0);
	CHECK_EQ_U64(child_write(kbpf_map_lookup_elem(plain, &key)), 0);
	CHECK_EQ_U64(child_write(kbpf_map_lookup_elem(pcpu, &key)), 0);
	kbpf_map_free(plain);
	kbpf_map_free(pcpu);
}

struct writer {
	struct kbpf_map *map;
	uint64_t last_ok; /* the last value an update stored */
	int started;      /* __atomic */
	int refused;      /* the errno that ended the loop */
};

static void *write_until_refused(void *arg)
{
	struct writer *w = arg;
	uint32_t key = 0;

	for (uint64_t i = 1;; i++) {
		int err = kbpf_map_update(w->map, &key, &i, BPF_ANY);
		if (err) {
			w->refused = err;
			return NULL;
		}
		w->last_ok = i;
		__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	}
}

/* A freeze racing with host updates: each update either lands before the values are
 * protected or is refused; none faults, and the value is the last one stored. */
static void test_freeze_waits_for_host_writes(void)
{
	for (int round = 0; round < 50; round++) {
		struct writer w = { .map = mk(BPF_MAP_TYPE_ARRAY, 8, 1, BPF_F_RDONLY_PROG) };
		pthread_t t;
		uint32_t key = 0;
		uint64_t v = 0;

		CHECK_EQ_U64(pthread_create(&t, NULL, write_until_refused, &w), 0);
		while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE))
			sched_yield();
		CHECK_EQ_U64(kbpf_map_freeze(w.map), 0);
		pthread_join(t, NULL);
		CHECK_EQ_U64(w.refused, -EPERM);
		CHECK_EQ_U64(kbpf_map_lookup(w.map, &key, &v), 0);
		CHECK_EQ_U64(v, w.last_ok);
		kbpf_map_free(w.map);
	}
}

int main(void)
{
	RUN(test_frozen_rdonly_prog_is_write_protected);
	RUN(test_other_frozen_maps_unchanged);
	RUN(test_freeze_waits_for_host_writes);
	return test_summary();
}
