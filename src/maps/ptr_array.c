/* SPDX-License-Identifier: Apache-2.0 */
/* Arrays whose slots hold host objects, one atomic pointer each (PROG_ARRAY's programs,
 * the socket arrays' sockets): allocation, the host-side lookup, freeing. A reader
 * racing with an update sees the old or the new object, never a torn pointer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "maps/ptr_array.h"

int kbpf_ptr_array_alloc(const struct kbpf_map_attr *attr, const struct kbpf_map_ops *ops, struct kbpf_map **out)
{
	struct kbpf_ptr_array *array = calloc(1, sizeof(*array));

	if (!array)
		return -ENOMEM;
	array->slots = calloc(attr->max_entries, sizeof(*array->slots));
	if (!array->slots) {
		free(array);
		return -ENOMEM;
	}
	kbpf_map_init_from_attr(&array->map, attr);
	array->map.ops = ops;
	array->map.host_value_size = sizeof(void *); /* the host side's values are the pointers */
	*out = &array->map;
	return 0;
}

int kbpf_ptr_array_sys_lookup(struct kbpf_map *map, const void *key, void *value)
{
	void *obj = kbpf_ptr_array_get(map, kbpf_map_key_index(key));

	if (!obj)
		return -ENOENT;
	memcpy(value, &obj, sizeof(obj));
	return 0;
}

void kbpf_ptr_array_free(struct kbpf_map *map)
{
	struct kbpf_ptr_array *array = kbpf_to_ptr_array(map);

	free(array->slots);
	free(array);
}
