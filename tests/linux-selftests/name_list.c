/* SPDX-License-Identifier: Apache-2.0 */
/* Name lists of the Linux selftest harnesses (name_list.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "name_list.h"

char **name_list_read(const char *path, size_t *nr)
{
	FILE *f = fopen(path, "r");
	char line[1024], **names = NULL;
	size_t cap = 0;

	*nr = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		char *why = strstr(line, " # ");
		if (why)
			*why = 0;
		if (*nr == cap) {
			char **n = realloc(names, (cap = cap ? cap * 2 : 1024) * sizeof(*names));

			if (!n)
				break;
			names = n;
		}
		names[(*nr)++] = strdup(line);
	}
	fclose(f);
	return names;
}

bool name_list_has(char *const *names, size_t nr, const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (names[i] && !strcmp(names[i], name))
			return true;
	return false;
}

void name_list_free(char **names, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}
