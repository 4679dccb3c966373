/* SPDX-License-Identifier: Apache-2.0 */
/* The timer engine's entry points for the rest of kbpf (src/maps/timer.c): a host owns
 * one engine (made when its first program binds a map with a bpf_timer), each bound map
 * holds a reference, programs and maps release their timers when they go. */
#ifndef KBPF_SRC_MAPS_TIMER_H
#define KBPF_SRC_MAPS_TIMER_H

#include <stdbool.h>
#include <stdint.h>

struct kbpf_map;
struct kbpf_timers;

/* Make the engine in *host_slot if there is none. 0 or -ENOMEM. */
int kbpf_timers_ensure(struct kbpf_timers *_Atomic *host_slot);
/* Bind map's timers to the engine in *host_slot (made there if NULL). 0, -ENOMEM, or
 * -EXDEV if the map's timers run on another host's engine. */
int kbpf_timers_bind(struct kbpf_timers *_Atomic *host_slot, struct kbpf_map *map);
/* The program is going: its callbacks leave every timer (disarmed, initialised), after
 * the one running now, if it is the program's, returns. owns(prog, fn): fn is prog's. */
void kbpf_timers_prog_release(struct kbpf_timers *e, bool (*owns)(const void *prog, uint64_t fn),
			      const void *prog);
/* The host is going: stop the thread, drop every callback, new timers get -EPERM; the
 * engine lives on while maps hold it. */
void kbpf_timers_host_release(struct kbpf_timers *e);
/* The map is going (before its memory): free its timers, after a running callback. */
void kbpf_timers_map_release(struct kbpf_map *map);
/* Linux's bpf_timer_cancel_and_free for the value's timer (element delete or update). */
void kbpf_map_value_timer_free(struct kbpf_map *map, void *value);

/* src/host/timers.c: the same for a host. Program creation (src/prog/create.c) binds a
 * verified program's maps, and at kbpf_prog_free releases its callbacks, handing down
 * owns (kbpf_prog_callback_owns: the engines know a program's callbacks). */
struct kbpf_host;
int kbpf_host_timers_bind(struct kbpf_host *host, struct kbpf_map *map);
void kbpf_host_timers_prog_release(struct kbpf_host *host, bool (*owns)(const void *prog, uint64_t fn),
				   const void *prog);

/* The host API's engine side (src/host/timers.c checks the host). */
int kbpf_timers_start(struct kbpf_timers *e);
void kbpf_timers_stop(struct kbpf_timers *e);
int kbpf_timers_run(struct kbpf_timers *e, bool advance, uint64_t nsecs);
int kbpf_timers_manual_clock(struct kbpf_timers *e, bool on);
int kbpf_timers_armed(struct kbpf_timers *e);

#endif
