/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_timer at run time (src/maps/timer.c): a map value's struct bpf_timer field armed
 * by a program fires its callback subprogram later with (map, key, value), as Linux
 * 6.1's kernel/bpf/helpers.c does with an hrtimer. See docs/program-types.md.
 *
 * Timers run on their host: a map whose value holds a bpf_timer is bound to the host of
 * the first program created with it (a program of another host is refused, -EXDEV), and
 * that host's timer engine keeps the armed timers. Nothing fires until the host asks:
 * kbpf_host_timers_start runs a thread that fires due timers as their clocks reach them;
 * kbpf_host_timers_run_due fires what is due now from the caller's thread; a manual
 * clock (kbpf_host_timers_manual_clock, kbpf_host_timers_advance) makes runs
 * deterministic. Callbacks of one host never run concurrently with each other. */
#ifndef KBPF_TIMER_H
#define KBPF_TIMER_H

#include <kbpf/export.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kbpf_host;
struct kbpf_map;

/* The helpers' semantics (Linux 6.1), for a host's helper table: timer points at the
 * bpf_timer field of a value of map (the verifier checked both). Return 0 or a negative
 * errno, as the helpers do; kbpf_timer_cancel returns 1 if the timer was armed. */
KBPF_API int kbpf_timer_init(void *timer, struct kbpf_map *map, uint64_t flags);
KBPF_API int kbpf_timer_set_callback(void *timer, uint64_t callback_fn);
KBPF_API int kbpf_timer_start(void *timer, uint64_t nsecs, uint64_t flags);
KBPF_API int kbpf_timer_cancel(void *timer);

/* Start the host's timer thread (real clocks). -EBUSY if it runs already or the clock
 * is manual; -ENOMEM / -EAGAIN if it cannot start. */
KBPF_API int kbpf_host_timers_start(struct kbpf_host *host);
/* Stop the thread, after the callback it is running (if any) returns. Armed timers stay
 * armed. No-op if it does not run. */
KBPF_API void kbpf_host_timers_stop(struct kbpf_host *host);
/* Run, from the calling thread, the callbacks of the timers due now (real clocks), in
 * deadline order, including timers they re-arm that are due already. Returns how many
 * ran, -EBUSY while the thread runs or the clock is manual. */
KBPF_API int kbpf_host_timers_run_due(struct kbpf_host *host);
/* Manual clock on (every clock id reads the host's virtual time, which starts at 0) or
 * off. -EBUSY while the thread runs or a timer is armed. */
KBPF_API int kbpf_host_timers_manual_clock(struct kbpf_host *host, bool on);
/* Manual clock: move the virtual time forward by nsecs, running each timer whose
 * deadline is reached, at its deadline, in deadline order (timers that callbacks arm
 * meanwhile included). Returns how many callbacks ran, -EINVAL without a manual clock. */
KBPF_API int kbpf_host_timers_advance(struct kbpf_host *host, uint64_t nsecs);
/* Timers armed on the host now (0 if it has no timer engine yet). */
KBPF_API int kbpf_host_timers_armed(struct kbpf_host *host);

#ifdef __cplusplus
}
#endif
#endif /* KBPF_TIMER_H */
