/* SPDX-License-Identifier: Apache-2.0 */
/* Which maps a program may refer to (map_compat.c). */
#ifndef KBPF_VERIFIER_MAP_COMPAT_H
#define KBPF_VERIFIER_MAP_COMPAT_H

#include "verifier/env.h"

/* Linux 6.12's check_map_prog_compatibility, when a program loads map: 0 or a negative
 * errno with the reason in the log. */
int check_map_prog_fields(struct env *env, const struct kbpf_map *map);

#endif
