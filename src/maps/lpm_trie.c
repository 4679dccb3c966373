/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_LPM_TRIE (Linux 6.1's kernel/bpf/lpm_trie.c): longest-prefix match over
 * keys struct bpf_lpm_trie_key { u32 prefixlen; u8 data[]; }, data most significant
 * bit first. The trie is Linux's: a binary path-compressed trie whose nodes each hold a
 * prefix; a node's children hold longer prefixes that extend it, child[b] those whose
 * next bit (at the node's prefixlen) is b. Where two prefixes fork below any stored
 * one, an intermediate node (flag IM, no value of its own) holds their common prefix.
 * At most max_entries real nodes and, since every intermediate node has two children,
 * fewer intermediate ones.
 *
 * Where kbpf differs, and why:
 *  - Nodes come from a pool of 2 * max_entries, one calloc (zero pages, committed as it
 *    fills, as the hash maps' BPF_F_NO_PREALLOC pool), recycled through a free list and
 *    never given back to malloc: a value pointer a program got from a lookup stays valid
 *    memory after a delete (it may then belong to another prefix, as a hash element's
 *    may), which Linux gets from RCU.
 *  - One spin lock guards the trie for updates, deletes, lookups and walks alike. Linux
 *    walks lock-free under RCU; without RCU a lock-free reader could follow a node being
 *    recycled. A walk is at most prefix-length + 1 nodes, so the lock is held briefly.
 *  - Replacing an existing prefix copies the new value into its node (relaxed atomic
 *    copy, as the other maps' updates) where Linux swaps in a new node: a program holding
 *    the old pointer sees the new value. */
#include <errno.h>
#include <stdlib.h>
#include "maps/map_internal.h"
#include "maps/spinlock.h"

#define LPM_CREATE_FLAG_MASK (BPF_F_NO_PREALLOC | BPF_F_NUMA_NODE | KBPF_MAP_ACCESS_MASK)
#define LPM_KEY_HDR 4u /* offsetof(struct bpf_lpm_trie_key, data) */
#define LPM_DATA_SIZE_MIN 1u
#define LPM_DATA_SIZE_MAX 256u
/* Linux: KMALLOC_MAX_SIZE - LPM_DATA_SIZE_MAX - sizeof(struct lpm_trie_node) (40) */
#define LPM_VAL_SIZE_MAX (KBPF_KMALLOC_MAX_SIZE - LPM_DATA_SIZE_MAX - 40u)
#define LPM_FLAG_IM 1u

struct lpm_node {
	struct lpm_node *child[2]; /* child[0]: the free list's link while free */
	uint32_t prefixlen;
	uint32_t flags;
	uint8_t data[]; /* data_size bytes, then the value at value_off */
};

struct lpm_trie {
	struct kbpf_map map;
	struct kbpf_spinlock lock;
	struct lpm_node *root;
	uint32_t n_entries;
	uint32_t data_size, max_prefixlen;
	size_t value_off, node_size;
	/* the node pool: nr_nodes nodes, used from the front, then from the free list */
	char *pool;
	size_t nr_nodes, used;
	struct lpm_node *free_list;
};

static struct lpm_trie *trie_of(struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, struct lpm_trie, map);
}

static const struct lpm_trie *ctrie_of(const struct kbpf_map *map)
{
	return KBPF_CONTAINER_OF(map, const struct lpm_trie, map);
}

static void *node_value(const struct lpm_trie *t, struct lpm_node *n)
{
	return (char *)n + t->value_off;
}

/* A key on a program's stack may be unaligned. */
static uint32_t key_prefixlen(const void *key)
{
	uint32_t len;

	memcpy(&len, key, sizeof(len));
	return len;
}

static const uint8_t *key_data(const void *key)
{
	return (const uint8_t *)key + LPM_KEY_HDR;
}

static unsigned extract_bit(const uint8_t *data, uint32_t index)
{
	return (data[index / 8] >> (7 - index % 8)) & 1;
}

/* Linux's longest_prefix_match: how many leading bits of node and key agree, at most
 * min(node's prefixlen, key's prefixlen). */
static uint32_t longest_prefix_match(const struct lpm_trie *t, const struct lpm_node *n, const uint8_t *data,
				     uint32_t key_len)
{
	uint32_t limit = n->prefixlen < key_len ? n->prefixlen : key_len;
	uint32_t len = 0, i = 0;

	for (; i + 8 <= t->data_size && len < limit; i += 8) {
		uint64_t a, b;
		memcpy(&a, n->data + i, 8);
		memcpy(&b, data + i, 8);
		uint64_t diff = __builtin_bswap64(a ^ b); /* big-endian: first byte highest */
		if (diff) {
			len += (uint32_t)__builtin_clzll(diff);
			return len < limit ? len : limit;
		}
		len += 64;
	}
	for (; i < t->data_size && len < limit; i++) {
		unsigned diff = n->data[i] ^ data[i];
		if (diff) {
			len += (uint32_t)__builtin_clz(diff) - 24;
			return len < limit ? len : limit;
		}
		len += 8;
	}
	return len < limit ? len : limit;
}

static struct lpm_node *node_alloc(struct lpm_trie *t)
{
	struct lpm_node *n = t->free_list;

	if (n)
		t->free_list = n->child[0];
	else if (t->used < t->nr_nodes)
		n = (struct lpm_node *)(t->pool + t->used++ * t->node_size);
	else
		return NULL; /* cannot happen: 2 * max_entries bound every trie (see the top) */
	n->child[0] = n->child[1] = NULL;
	n->flags = 0;
	return n;
}

static void node_free(struct lpm_trie *t, struct lpm_node *n)
{
	if (!n)
		return;
	n->child[0] = t->free_list;
	n->child[1] = NULL;
	t->free_list = n;
}

/* Linux's trie_lookup_elem; call with the lock held. */
static struct lpm_node *trie_find(struct lpm_trie *t, const void *key)
{
	uint32_t key_len = key_prefixlen(key);
	const uint8_t *data = key_data(key);
	struct lpm_node *found = NULL;

	if (key_len > t->max_prefixlen)
		return NULL;
	for (struct lpm_node *n = t->root; n;) {
		uint32_t match = longest_prefix_match(t, n, data, key_len);
		if (match == t->max_prefixlen)
			return n; /* an exact match of a full-length prefix */
		if (match < n->prefixlen)
			break;
		if (!(n->flags & LPM_FLAG_IM))
			found = n;
		n = n->child[extract_bit(data, n->prefixlen)];
	}
	return found;
}

static void *trie_lookup_elem(struct kbpf_map *map, const void *key)
{
	struct lpm_trie *t = trie_of(map);

	kbpf_spin_lock(&t->lock);
	struct lpm_node *n = trie_find(t, key);
	kbpf_spin_unlock(&t->lock);
	return n ? node_value(t, n) : NULL;
}

static int trie_sys_lookup(struct kbpf_map *map, const void *key, void *value)
{
	struct lpm_trie *t = trie_of(map);
	int ret = -ENOENT;

	kbpf_spin_lock(&t->lock);
	struct lpm_node *n = trie_find(t, key);
	if (n) {
		kbpf_map_copy_value(value, node_value(t, n), map->value_size);
		ret = 0;
	}
	kbpf_spin_unlock(&t->lock);
	return ret;
}

/* Linux's trie_check_add_elem: one more real node. */
static int check_add(struct lpm_trie *t, uint64_t flags)
{
	if (flags == BPF_EXIST)
		return -ENOENT;
	if (t->n_entries == t->map.max_entries)
		return -ENOSPC;
	t->n_entries++;
	return 0;
}

/* Linux's trie_update_elem. */
static long trie_update_elem(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	struct lpm_trie *t = trie_of(map);
	uint32_t key_len = key_prefixlen(key), match = 0;
	const uint8_t *data = key_data(key);
	struct lpm_node **slot, *n, *nn, *im;
	long ret = 0;

	if (flags > BPF_EXIST)
		return -EINVAL;
	if (key_len > t->max_prefixlen)
		return -EINVAL;
	kbpf_spin_lock(&t->lock);
	/* find where the prefix goes: the first node that does not extend into it */
	for (slot = &t->root; (n = *slot); slot = &n->child[extract_bit(data, n->prefixlen)]) {
		match = longest_prefix_match(t, n, data, key_len);
		if (n->prefixlen != match || n->prefixlen == key_len || n->prefixlen == t->max_prefixlen)
			break;
	}
	if (n && n->prefixlen == match && n->prefixlen == key_len) {
		/* the very prefix: replace a real node's value, or make an IM node real */
		if (!(n->flags & LPM_FLAG_IM)) {
			if (flags == BPF_NOEXIST) {
				ret = -EEXIST;
				goto out;
			}
		} else if ((ret = check_add(t, flags))) {
			goto out;
		}
		kbpf_map_copy_value(node_value(t, n), value, map->value_size);
		n->flags &= ~LPM_FLAG_IM;
		goto out;
	}
	if ((ret = check_add(t, flags)))
		goto out;
	nn = node_alloc(t);
	if (!nn) {
		t->n_entries--;
		ret = -ENOMEM;
		goto out;
	}
	nn->prefixlen = key_len;
	memcpy(nn->data, data, t->data_size);
	kbpf_map_copy_value(node_value(t, nn), value, map->value_size);
	if (!n) { /* an empty slot */
		*slot = nn;
		goto out;
	}
	if (match == key_len) { /* the new prefix contains n's: n becomes its child */
		nn->child[extract_bit(n->data, match)] = n;
		*slot = nn;
		goto out;
	}
	/* they fork at bit match: an intermediate node holds the common part */
	im = node_alloc(t);
	if (!im) {
		node_free(t, nn);
		t->n_entries--;
		ret = -ENOMEM;
		goto out;
	}
	im->prefixlen = match;
	im->flags = LPM_FLAG_IM;
	memcpy(im->data, n->data, t->data_size);
	unsigned b = extract_bit(data, match);
	im->child[b] = nn;
	im->child[!b] = n;
	*slot = im;
out:
	kbpf_spin_unlock(&t->lock);
	return ret;
}

/* Linux's trie_delete_elem: an exact prefix. */
static long trie_delete_elem(struct kbpf_map *map, const void *key)
{
	struct lpm_trie *t = trie_of(map);
	uint32_t key_len = key_prefixlen(key), match = 0;
	const uint8_t *data = key_data(key);
	struct lpm_node **trim, **trim2, *n, *parent = NULL;
	long ret = 0;

	if (key_len > t->max_prefixlen)
		return -EINVAL;
	kbpf_spin_lock(&t->lock);
	trim = trim2 = &t->root;
	while ((n = *trim)) {
		match = longest_prefix_match(t, n, data, key_len);
		if (n->prefixlen != match || n->prefixlen == key_len)
			break;
		parent = n;
		trim2 = trim;
		trim = &n->child[extract_bit(data, n->prefixlen)];
	}
	if (!n || n->prefixlen != key_len || n->prefixlen != match || (n->flags & LPM_FLAG_IM)) {
		ret = -ENOENT;
		goto out;
	}
	t->n_entries--;
	if (n->child[0] && n->child[1]) { /* still forks: keep it as an intermediate node */
		n->flags |= LPM_FLAG_IM;
		goto out;
	}
	if (parent && (parent->flags & LPM_FLAG_IM) && !n->child[0] && !n->child[1]) {
		/* a leaf under an intermediate node: the sibling takes the parent's place */
		*trim2 = parent->child[parent->child[0] == n ? 1 : 0];
		node_free(t, parent);
		node_free(t, n);
		goto out;
	}
	*trim = n->child[0] ? n->child[0] : n->child[1];
	node_free(t, n);
out:
	kbpf_spin_unlock(&t->lock);
	return ret;
}

static int trie_sys_update(struct kbpf_map *map, const void *key, const void *value, uint64_t flags)
{
	return (int)trie_update_elem(map, key, value, flags);
}

static int trie_sys_delete(struct kbpf_map *map, const void *key)
{
	return (int)trie_delete_elem(map, key);
}

/* The first node of the post-order walk of the subtree at n (Linux's find_leftmost):
 * the leftmost real node, going right only where there is no left. */
static struct lpm_node *leftmost(struct lpm_node *n)
{
	struct lpm_node *next = NULL;

	while (n) {
		if (n->flags & LPM_FLAG_IM) {
			n = n->child[0];
		} else {
			next = n;
			n = n->child[0] ? n->child[0] : n->child[1];
		}
	}
	return next;
}

/* Linux's trie_get_next_key: post-order (children before their parent, child 0 first).
 * A NULL key, one with too long a prefix, or one not stored gives the first node. */
static int trie_get_next_key(struct kbpf_map *map, const void *key, void *next_key)
{
	struct lpm_trie *t = trie_of(map);
	struct lpm_node **stack = NULL, *n, *next = NULL;
	int sp = -1, ret = 0;

	if (key && key_prefixlen(key) <= t->max_prefixlen) {
		stack = malloc(sizeof(*stack) * (t->max_prefixlen + 1));
		if (!stack)
			return -ENOMEM;
	}
	kbpf_spin_lock(&t->lock);
	struct lpm_node *search_root = t->root;
	if (!search_root) {
		ret = -ENOENT;
		goto out;
	}
	if (!stack)
		goto find_leftmost;
	uint32_t key_len = key_prefixlen(key), match = 0;
	const uint8_t *data = key_data(key);
	for (n = search_root; n;) {
		stack[++sp] = n;
		match = longest_prefix_match(t, n, data, key_len);
		if (n->prefixlen != match || n->prefixlen == key_len)
			break;
		n = n->child[extract_bit(data, n->prefixlen)];
	}
	if (!n || n->prefixlen != match || (n->flags & LPM_FLAG_IM))
		goto find_leftmost;
	/* the key's node is stack[sp]: next is the leftmost of the right sibling's subtree,
	 * or the first real ancestor */
	n = stack[sp];
	for (; sp > 0; sp--) {
		struct lpm_node *parent = stack[sp - 1];
		if (parent->child[0] == n && parent->child[1]) {
			search_root = parent->child[1];
			goto find_leftmost;
		}
		if (!(parent->flags & LPM_FLAG_IM)) {
			next = parent;
			goto copy;
		}
		n = parent;
	}
	ret = -ENOENT;
	goto out;
find_leftmost:
	next = leftmost(search_root);
copy:
	if (!next) { /* only intermediate nodes: cannot be, every IM node has two children */
		ret = -ENOENT;
		goto out;
	}
	memcpy(next_key, &next->prefixlen, sizeof(next->prefixlen));
	memcpy((uint8_t *)next_key + LPM_KEY_HDR, next->data, t->data_size);
out:
	kbpf_spin_unlock(&t->lock);
	free(stack);
	return ret;
}

static size_t trie_mem_regions(const struct kbpf_map *map, struct kbpf_mem_region *out, size_t max)
{
	const struct lpm_trie *t = ctrie_of(map);

	return kbpf_map_one_region(map, t->pool, t->nr_nodes * t->node_size, out, max);
}

static void trie_free(struct kbpf_map *map)
{
	struct lpm_trie *t = trie_of(map);

	free(t->pool);
	free(t);
}

static const struct kbpf_map_ops lpm_trie_ops = {
	.lookup_elem = trie_lookup_elem,
	.update_elem = trie_update_elem,
	.delete_elem = trie_delete_elem,
	.sys_lookup = trie_sys_lookup,
	.sys_update = trie_sys_update,
	.sys_delete = trie_sys_delete,
	.get_next_key = trie_get_next_key,
	.mem_regions = trie_mem_regions,
	.free = trie_free,
};

int kbpf_lpm_trie_map_alloc(const struct kbpf_map_attr *attr, struct kbpf_map **out)
{
	struct lpm_trie *t;
	size_t bytes;

	/* Linux's trie_alloc */
	if (!attr->max_entries || !(attr->map_flags & BPF_F_NO_PREALLOC) ||
	    (attr->map_flags & ~(uint32_t)LPM_CREATE_FLAG_MASK) || !kbpf_map_flags_access_ok(attr->map_flags) ||
	    attr->key_size < LPM_KEY_HDR + LPM_DATA_SIZE_MIN || attr->key_size > LPM_KEY_HDR + LPM_DATA_SIZE_MAX ||
	    attr->value_size < 1 || attr->value_size > LPM_VAL_SIZE_MAX)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	kbpf_map_init_from_attr(&t->map, attr);
	t->map.ops = &lpm_trie_ops;
	t->data_size = attr->key_size - LPM_KEY_HDR;
	t->max_prefixlen = t->data_size * 8;
	t->value_off = KBPF_ROUND_UP(sizeof(struct lpm_node) + t->data_size, 8);
	t->node_size = t->value_off + KBPF_ROUND_UP((size_t)attr->value_size, 8);
	t->nr_nodes = 2 * (size_t)attr->max_entries;
	if (__builtin_mul_overflow(t->nr_nodes, t->node_size, &bytes) || !(t->pool = calloc(1, bytes))) {
		free(t);
		return -ENOMEM;
	}
	kbpf_spin_init(&t->lock);
	*out = &t->map;
	return 0;
}
