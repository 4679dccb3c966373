/* SPDX-License-Identifier: Apache-2.0 */
/* Compiled with -g only for its BTF: the host types CO-RE relocates against. */
#include "core_host_types.h"

struct core_task core_task_instance;
enum core_state core_state_instance;
