/* SPDX-License-Identifier: Apache-2.0 */
/* The host's program types (by name) and helper prototypes (by id): the data the
 * verifier asks a host for. Everything is copied to the heap, one allocation per
 * record, so the pointers find() hands out stay valid while more are registered. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "host/host_internal.h"
#include "opts.h"

/* --- Helper prototypes --- */

static size_t proto_lower_bound(const struct kbpf_host *host, int32_t id)
{
	size_t lo = 0, hi = host->nr_protos;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (host->protos[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A proto stored with its name (and ret_btf_name) in the same block, so one free()
 * releases all. */
static struct kbpf_helper_proto *proto_copy(const struct kbpf_helper_proto *proto)
{
	size_t len = strlen(proto->name) + 1;
	size_t blen = proto->ret_btf_name ? strlen(proto->ret_btf_name) + 1 : 0;
	struct kbpf_helper_proto *p = malloc(sizeof(*p) + len + blen);
	if (!p)
		return NULL;
	*p = *proto;
	p->name = memcpy((char *)(p + 1), proto->name, len);
	if (blen)
		p->ret_btf_name = memcpy((char *)(p + 1) + len, proto->ret_btf_name, blen);
	return p;
}

int kbpf_host_helper_register_proto(struct kbpf_host *host, int32_t id,
				    const struct kbpf_helper_proto *proto)
{
	if (!host || id < 0 || !proto || !proto->name || !*proto->name)
		return -EINVAL;
	if (KBPF_RET_BASE(proto->ret_type) >= KBPF_RET_TYPE_MAX)
		return -EINVAL;
	for (int i = 0; i < 5; i++)
		if (KBPF_ARG_BASE(proto->arg_type[i]) >= KBPF_ARG_TYPE_MAX)
			return -EINVAL;
	if ((uintptr_t)proto->inline_load & 7)
		return -EINVAL; /* the JIT and the interpreter load it as one aligned u64 */
	size_t pos = proto_lower_bound(host, id);
	if (pos < host->nr_protos && host->protos[pos].id == id)
		return -EEXIST;
	/* With an implementation the id must also be free in the run-time table: checked
	 * before anything changes, so a failure leaves the host as it was. */
	if (proto->fn && kbpf_host_helper_find(host, id, NULL))
		return -EEXIST;
	if (host->nr_protos == host->cap_protos) {
		size_t cap = host->cap_protos ? host->cap_protos * 2 : 32;
		struct kbpf_proto_entry *t = realloc(host->protos, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		host->protos = t;
		host->cap_protos = cap;
	}
	struct kbpf_helper_proto *copy = proto_copy(proto);
	if (!copy)
		return -ENOMEM;
	/* The run-time side is an ordinary helper registration, so interpreter, JIT and
	 * kbpf_host_helper_find see no difference. A proto without fn is verifier-only. */
	if (proto->fn) {
		int ret = kbpf_host_helper_register(host, id, proto->name, proto->fn);
		if (ret) {
			free(copy);
			return ret;
		}
	}
	memmove(&host->protos[pos + 1], &host->protos[pos], (host->nr_protos - pos) * sizeof(host->protos[0]));
	host->protos[pos] = (struct kbpf_proto_entry){ .id = id, .proto = copy };
	host->nr_protos++;
	return 0;
}

const struct kbpf_helper_proto *kbpf_host_helper_proto(const struct kbpf_host *host, int32_t id)
{
	if (!host)
		return NULL;
	size_t pos = proto_lower_bound(host, id);
	if (pos == host->nr_protos || host->protos[pos].id != id)
		return NULL;
	return host->protos[pos].proto;
}

/* --- Program types --- */

/* Strings are duplicated into the same block as the struct (one free). */
static struct kbpf_prog_type *type_copy(const struct kbpf_prog_type *type, size_t sz)
{
	size_t name_len = strlen(type->name) + 1;
	size_t btf_len = type->ctx_btf_name ? strlen(type->ctx_btf_name) + 1 : 0;
	const char *kern = OPTS_HAS(type, kern_ctx_btf_name) ? type->kern_ctx_btf_name : NULL;
	size_t kern_len = kern ? strlen(kern) + 1 : 0;
	struct kbpf_prog_type *t = calloc(1, sizeof(*t) + name_len + btf_len + kern_len);
	if (!t)
		return NULL;
	memcpy(t, type, sz);
	t->sz = sizeof(*t);
	char *s = (char *)(t + 1);
	t->name = memcpy(s, type->name, name_len);
	if (btf_len)
		t->ctx_btf_name = memcpy(s + name_len, type->ctx_btf_name, btf_len);
	if (kern_len)
		t->kern_ctx_btf_name = memcpy(s + name_len + btf_len, kern, kern_len);
	return t;
}

/* Caller holds prog_types_lock. */
static const struct kbpf_prog_type *type_find_locked(const struct kbpf_host *host, const char *name)
{
	for (size_t i = 0; i < host->nr_prog_types; i++)
		if (!strcmp(host->prog_types[i]->name, name))
			return host->prog_types[i];
	return NULL;
}

int kbpf_host_prog_type_register(struct kbpf_host *host, const struct kbpf_prog_type *type)
{
	/* sz lets a caller built against an older, shorter struct register (the missing
	 * fields read as zero); a longer one is accepted only if what we do not know is
	 * zero, so a newer caller's request is never silently dropped (src/opts.h). */
	if (!host || !type || !OPTS_VALID(type, OPTS_END(struct kbpf_prog_type, name)))
		return -EINVAL;
	struct kbpf_prog_type tmp;
	OPTS_COPY(&tmp, type);
	if (!tmp.name || !*tmp.name)
		return -EINVAL;
	if (tmp.has_ret_range && tmp.ret_min > tmp.ret_max)
		return -EINVAL;
	struct kbpf_prog_type *copy = type_copy(&tmp, sizeof(tmp));
	if (!copy)
		return -ENOMEM;
	int ret = 0;
	pthread_rwlock_wrlock(&host->prog_types_lock);
	if (type_find_locked(host, tmp.name)) {
		ret = -EEXIST;
	} else {
		struct kbpf_prog_type **arr = realloc(host->prog_types, (host->nr_prog_types + 1) * sizeof(*arr));
		if (!arr) {
			ret = -ENOMEM;
		} else {
			host->prog_types = arr;
			host->prog_types[host->nr_prog_types++] = copy;
			copy = NULL;
		}
	}
	pthread_rwlock_unlock(&host->prog_types_lock);
	free(copy);
	return ret;
}

const struct kbpf_prog_type *kbpf_host_prog_type_find(const struct kbpf_host *host, const char *name)
{
	if (!host || !name)
		return NULL;
	/* the lock is the host's internal state, not part of what const promises */
	pthread_rwlock_t *lock = (pthread_rwlock_t *)&host->prog_types_lock;
	pthread_rwlock_rdlock(lock);
	const struct kbpf_prog_type *t = type_find_locked(host, name);
	pthread_rwlock_unlock(lock);
	return t; /* entries are never freed before the host: valid after unlocking */
}

/* fn must not register program types (it runs under the read lock). */
void kbpf_host_prog_type_foreach(const struct kbpf_host *host,
				 void (*fn)(const struct kbpf_prog_type *type, void *arg), void *arg)
{
	if (!host || !fn)
		return;
	pthread_rwlock_t *lock = (pthread_rwlock_t *)&host->prog_types_lock;
	pthread_rwlock_rdlock(lock);
	for (size_t i = 0; i < host->nr_prog_types; i++)
		fn(host->prog_types[i], arg);
	pthread_rwlock_unlock(lock);
}

void kbpf_host_prog_type_release(struct kbpf_host *host)
{
	for (size_t i = 0; i < host->nr_prog_types; i++)
		free(host->prog_types[i]);
	free(host->prog_types);
	host->prog_types = NULL;
	host->nr_prog_types = 0;
	for (size_t i = 0; i < host->nr_protos; i++)
		free(host->protos[i].proto);
	free(host->protos);
	host->protos = NULL;
	host->nr_protos = host->cap_protos = 0;
}
