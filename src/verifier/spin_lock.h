/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_spin_lock and the BTF-described fields of map values (spin_lock.c). */
#ifndef KBPF_VERIFIER_SPIN_LOCK_H
#define KBPF_VERIFIER_SPIN_LOCK_H

#include <stdbool.h>
#include "verifier/env.h"

/* A map value pointer of a map whose value has a bpf_spin_lock: it keeps its id after
 * a NULL check (and gets one from ld_imm64 / non-NULL returns), which names the lock. */
bool reg_may_point_to_spin_lock(const struct reg *r);
/* bpf_spin_lock (is_lock) or bpf_spin_unlock with R{regno} pointing at the lock. */
int process_spin_lock(struct env *env, int regno, bool is_lock);
/* A bpf_timer argument R{regno} (Linux's process_timer_func): it must point at the map
 * value's timer; *meta_map becomes its map (the helper's map argument must match). */
int process_timer_func(struct env *env, int regno, struct kbpf_map **meta_map);
/* A load/store/helper access of size bytes at off (the register's fixed offset
 * included) through map value pointer R{regno} must not touch the lock or the timer,
 * and may touch a kptr only as kptr.c allows (helper: an access by a helper). */
int check_map_value_fields(struct env *env, int regno, int off, int size, bool helper);

#endif
