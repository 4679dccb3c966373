/* SPDX-License-Identifier: Apache-2.0 */
/* Name lists of the Linux selftest harnesses: expected-pass.txt (one case name a line,
 * '#' lines are comments) and changed-in-6.12.txt (the same, each name followed by " # "
 * and the reason: only the name is kept). */
#ifndef KBPF_TESTS_NAME_LIST_H
#define KBPF_TESTS_NAME_LIST_H

#include <stdbool.h>
#include <stddef.h>

/* The names of path, malloc'ed (*nr of them); NULL with *nr 0 if it cannot be read. */
char **name_list_read(const char *path, size_t *nr);
bool name_list_has(char *const *names, size_t nr, const char *name);
void name_list_free(char **names, size_t nr);

#endif
