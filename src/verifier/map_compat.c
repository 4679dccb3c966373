/* SPDX-License-Identifier: Apache-2.0 */
/* Which maps a program may refer to (Linux 6.12's check_map_prog_compatibility), decided
 * when a program's ld_imm64 names a map: the special fields of its values (spin locks and
 * timers refused by socket filters and tracing programs), the map types a sleepable
 * program may use, and the host-only kptr rules (kptr.c). */
#include <errno.h>
#include "verifier/env.h"
#include "verifier/kptr.h"
#include "verifier/map_compat.h"

/* Linux's is_tracing_prog_type. */
static bool is_tracing(uint32_t linux_type)
{
	return linux_type == BPF_PROG_TYPE_KPROBE || linux_type == BPF_PROG_TYPE_TRACEPOINT ||
	       linux_type == BPF_PROG_TYPE_PERF_EVENT || linux_type == BPF_PROG_TYPE_RAW_TRACEPOINT ||
	       linux_type == BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE;
}

/* The map types a sleepable program may use (6.12's check_map_prog_compatibility): those
 * whose elements outlive an RCU-tasks-trace reader; prog arrays, socket maps, perf event
 * arrays, LPM tries, bloom filters… are refused. */
static bool sleepable_map(uint32_t type)
{
	switch (type) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_ARRAY_OF_MAPS:
	case BPF_MAP_TYPE_HASH_OF_MAPS:
	case BPF_MAP_TYPE_RINGBUF:
	case BPF_MAP_TYPE_USER_RINGBUF:
	case BPF_MAP_TYPE_INODE_STORAGE:
	case BPF_MAP_TYPE_SK_STORAGE:
	case BPF_MAP_TYPE_TASK_STORAGE: /* and 6.2's CGRP_STORAGE, 6.9's ARENA: kbpf has neither */
	case BPF_MAP_TYPE_QUEUE:
	case BPF_MAP_TYPE_STACK:
		return true;
	default:
		return false;
	}
}

int check_map_prog_fields(struct env *env, const struct kbpf_map *map)
{
	uint32_t t = env->type->linux_type;

	/* Linux 6.12's check_map_prog_compatibility; 6.1's "sleepable progs cannot use
	 * bpf_spin_lock yet" is gone since 6.3 (a held lock still allows no calls) */
	if (kbpf_map_spin_lock_off(map) >= 0) {
		if (t == BPF_PROG_TYPE_SOCKET_FILTER) {
			vlog(env, "socket filter progs cannot use bpf_spin_lock yet\n");
			return -EINVAL;
		}
		if (is_tracing(t)) {
			vlog(env, "tracing progs cannot use bpf_spin_lock yet\n");
			return -EINVAL;
		}
	}
	if (kbpf_map_timer_off(map) >= 0 && is_tracing(t)) {
		vlog(env, "tracing progs cannot use bpf_timer yet\n");
		return -EINVAL;
	}
	if (env->sleepable && !sleepable_map(kbpf_map_type(map))) {
		vlog(env, "Sleepable programs can only use array, hash, ringbuf and local storage maps\n");
		return -EINVAL;
	}
	return check_map_kptr_host(env, map);
}
