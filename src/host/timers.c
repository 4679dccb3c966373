/* SPDX-License-Identifier: Apache-2.0 */
/* A host's bpf_timer engine, from the host's side (<kbpf/timer.h>): binding the maps of
 * its programs, releasing a program's callbacks, and the run-time controls. The engine
 * itself is src/maps/timer.c. */
#include <errno.h>
#include <stdatomic.h>
#include <kbpf/timer.h>
#include "host/host_internal.h"
#include "maps/timer.h"

int kbpf_host_timers_bind(struct kbpf_host *host, struct kbpf_map *map)
{
	if (!host)
		return -EINVAL;
	return kbpf_timers_bind(&host->timers, map);
}

void kbpf_host_timers_prog_release(struct kbpf_host *host, bool (*owns)(const void *prog, uint64_t fn),
				   const void *prog)
{
	if (host)
		kbpf_timers_prog_release(atomic_load(&host->timers), owns, prog);
}

/* The engine, made on demand: controls may come before the first program. */
static struct kbpf_timers *engine(struct kbpf_host *host, int *err)
{
	struct kbpf_timers *e = host ? atomic_load(&host->timers) : NULL;
	*err = host ? 0 : -EINVAL;
	if (!e && host) {
		*err = kbpf_timers_ensure(&host->timers);
		e = atomic_load(&host->timers);
	}
	return e;
}

int kbpf_host_timers_start(struct kbpf_host *host)
{
	int err;
	struct kbpf_timers *e = engine(host, &err);
	return e ? kbpf_timers_start(e) : err;
}

void kbpf_host_timers_stop(struct kbpf_host *host)
{
	if (host)
		kbpf_timers_stop(atomic_load(&host->timers));
}

int kbpf_host_timers_run_due(struct kbpf_host *host)
{
	int err;
	struct kbpf_timers *e = engine(host, &err);
	return e ? kbpf_timers_run(e, false, 0) : err;
}

int kbpf_host_timers_manual_clock(struct kbpf_host *host, bool on)
{
	int err;
	struct kbpf_timers *e = engine(host, &err);
	return e ? kbpf_timers_manual_clock(e, on) : err;
}

int kbpf_host_timers_advance(struct kbpf_host *host, uint64_t nsecs)
{
	int err;
	struct kbpf_timers *e = engine(host, &err);
	return e ? kbpf_timers_run(e, true, nsecs) : err;
}

int kbpf_host_timers_armed(struct kbpf_host *host)
{
	struct kbpf_timers *e = host ? atomic_load(&host->timers) : NULL;
	return e ? kbpf_timers_armed(e) : 0;
}
