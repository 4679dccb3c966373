/* SPDX-License-Identifier: Apache-2.0 */
/* Kfunc sets: registration against the host BTF, the per-program-type allowlist (sets,
 * filters, 5.13-style check callbacks), and the pins loaded programs hold.
 *
 * One mutex per host guards the registry; it is taken at registration, at program create
 * and free, and by audits — never while a program runs (a program calls through the
 * descriptors it pinned). A set being unregistered is marked `going` first, so that a
 * program create racing the unregister fails with -ENXIO (Linux's answer for a module
 * that is not live) instead of pinning a set about to disappear; the unregister then
 * waits on a condition variable until the last pin is dropped. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <bpf/btf.h>
#include "btf/func_compat.h"
#include "host/host_internal.h"
#include "host/kfunc_internal.h"
#include "opts.h"

struct kbpf_kfunc_set {
	char *name;
	char **prog_types; /* NULL-terminated */
	size_t nr_types;
	kbpf_kfunc_filter_fn filter;
	void *filter_cookie;
	struct kbpf_kfunc_desc *descs; /* sorted by btf_id */
	size_t nr_descs;
	unsigned long pins;
	bool going;
};

struct kfunc_check {
	char *prog_type;
	kbpf_kfunc_check_fn cb;
	void *cookie;
};

struct kbpf_kfunc_registry {
	pthread_mutex_t lock;
	pthread_cond_t unpinned;
	struct kbpf_kfunc_set **sets;
	size_t nr_sets;
	struct kfunc_check *checks;
	size_t nr_checks;
};


int kbpf_host_kfunc_init(struct kbpf_host *host)
{
	struct kbpf_kfunc_registry *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	if (pthread_mutex_init(&r->lock, NULL)) {
		free(r);
		return -ENOMEM;
	}
	if (pthread_cond_init(&r->unpinned, NULL)) {
		pthread_mutex_destroy(&r->lock);
		free(r);
		return -ENOMEM;
	}
	host->kfuncs = r;
	return 0;
}

static void set_free(struct kbpf_kfunc_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->nr_descs; i++) {
		free((char *)set->descs[i].name);
		free((char *)set->descs[i].decl);
	}
	free(set->descs);
	for (size_t i = 0; i < set->nr_types; i++)
		free(set->prog_types[i]);
	free(set->prog_types);
	free(set->name);
	free(set);
}

void kbpf_host_kfunc_release(struct kbpf_host *host)
{
	struct kbpf_kfunc_registry *r = host->kfuncs;

	if (!r)
		return;
	for (size_t i = 0; i < r->nr_sets; i++)
		set_free(r->sets[i]);
	free(r->sets);
	for (size_t i = 0; i < r->nr_checks; i++)
		free(r->checks[i].prog_type);
	free(r->checks);
	pthread_cond_destroy(&r->unpinned);
	pthread_mutex_destroy(&r->lock);
	free(r);
	host->kfuncs = NULL;
}

static void log_line(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void log_line(char *buf, size_t size, const char *fmt, ...)
{
	va_list args;

	if (!buf || !size)
		return;
	va_start(args, fmt);
	vsnprintf(buf, size, fmt, args);
	va_end(args);
}

static const struct kbpf_kfunc_desc *set_find(const struct kbpf_kfunc_set *set, uint32_t btf_id)
{
	size_t lo = 0, hi = set->nr_descs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (set->descs[mid].btf_id < btf_id)
			lo = mid + 1;
		else if (set->descs[mid].btf_id > btf_id)
			hi = mid;
		else
			return &set->descs[mid];
	}
	return NULL;
}

static bool set_has_type(const struct kbpf_kfunc_set *set, const char *type)
{
	for (size_t i = 0; i < set->nr_types; i++)
		if (!strcmp(set->prog_types[i], type))
			return true;
	return false;
}

static int desc_cmp(const void *a, const void *b)
{
	const struct kbpf_kfunc_desc *x = a, *y = b;
	return x->btf_id < y->btf_id ? -1 : x->btf_id > y->btf_id;
}

/* Resolve one function of a set against the host BTF into *d. */
/* The size of the struct or union kfunc func_id returns a pointer to, 0 if it does not. */
static uint32_t ret_obj_size(const struct btf *btf, uint32_t func_id)
{
	const struct btf_type *t = btf__type_by_id(btf, func_id);
	int id;

	if (!t || !btf_is_func(t) || !(t = btf__type_by_id(btf, t->type)) || !btf_is_func_proto(t))
		return 0;
	id = btf__resolve_type(btf, t->type);
	t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	if (!t || !btf_is_ptr(t))
		return 0;
	id = btf__resolve_type(btf, t->type);
	t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	return t && btf_is_composite(t) ? t->size : 0;
}

static int resolve_func(const struct btf *btf, const struct kbpf_kfunc *f, struct kbpf_kfunc_desc *d,
			const char *set_name, char *log, size_t log_size)
{
	char msg[256] = "", decl[512];
	int id, ret;

	if (!f->name || !f->name[0] || !f->addr) {
		log_line(log, log_size, "kfunc set '%s': a function without %s", set_name, f->name ? "an address" : "a name");
		return -EINVAL;
	}
	if (f->flags & ~KBPF_KF_ALL) {
		log_line(log, log_size, "kfunc '%s' (set '%s'): unknown flags 0x%x", f->name, set_name,
			 f->flags & ~KBPF_KF_ALL);
		return -EINVAL;
	}
	id = btf__find_by_name_kind(btf, f->name, BTF_KIND_FUNC);
	if (id <= 0) {
		log_line(log, log_size,
			 "kfunc '%s' (set '%s'): no BTF FUNC of that name in the host's BTF (is the host built "
			 "with kbpf_add_host_btf, and the function not inlined away?)", f->name, set_name);
		return -EINVAL;
	}
	ret = kbpf_btf_func_model(btf, (uint32_t)id, &d->model, msg, sizeof(msg));
	if (ret) {
		log_line(log, log_size, "kfunc '%s' (set '%s'): %s", f->name, set_name, msg);
		return ret;
	}
	ret = kbpf_btf_func_decl(btf, (uint32_t)id, decl, sizeof(decl));
	if (ret && ret != -ENOSPC)
		snprintf(decl, sizeof(decl), "%s(...)", f->name);
	d->btf_id = (uint32_t)id;
	d->ret_obj_size = ret_obj_size(btf, (uint32_t)id);
	d->addr = f->addr;
	d->flags = f->flags;
	d->name = strdup(f->name);
	d->decl = strdup(decl);
	if (!d->name || !d->decl)
		return -ENOMEM;
	return 0;
}

/* Whether the new set clashes with a registered one (the registry lock is held). */
static int check_duplicates(const struct kbpf_kfunc_registry *r, const struct kbpf_kfunc_set *set, char *log,
			    size_t log_size)
{
	for (size_t s = 0; s < r->nr_sets; s++) {
		const struct kbpf_kfunc_set *old = r->sets[s];
		if (old->going)
			continue;
		for (size_t i = 0; i < set->nr_descs; i++) {
			const struct kbpf_kfunc_desc *d = &set->descs[i], *o = set_find(old, d->btf_id);
			if (!o)
				continue;
			if (o->addr != d->addr) {
				log_line(log, log_size,
					 "kfunc '%s' (set '%s'): already registered by set '%s' at another address",
					 d->name, set->name, old->name);
				return -EEXIST;
			}
			for (size_t t = 0; t < set->nr_types; t++) {
				if (set_has_type(old, set->prog_types[t])) {
					log_line(log, log_size,
						 "kfunc '%s' (set '%s'): already registered for program type '%s' by "
						 "set '%s'", d->name, set->name, set->prog_types[t], old->name);
					return -EEXIST;
				}
			}
		}
	}
	return 0;
}

int kbpf_host_kfunc_set_register(struct kbpf_host *host, const struct kbpf_kfunc_set_opts *opts,
				 struct kbpf_kfunc_set **out)
{
	char *log = OPTS_GET(opts, log_buf, NULL);
	size_t log_size = log ? OPTS_GET(opts, log_size, 0) : 0;
	const struct kbpf_kfunc *funcs = OPTS_GET(opts, funcs, NULL);
	size_t nr = OPTS_GET(opts, nr_funcs, 0);
	const char *const *types = OPTS_GET(opts, prog_types, NULL);
	const struct btf *btf;
	struct kbpf_kfunc_set *set;
	struct kbpf_kfunc_registry *r;
	int ret;

	if (out)
		*out = NULL;
	if (log_size)
		log[0] = 0;
	if (!host || !host->kfuncs || !opts || !OPTS_VALID(opts, OPTS_MIN_SZ) || (nr && !funcs)) {
		log_line(log, log_size, "kfunc set: invalid arguments");
		return -EINVAL;
	}
	r = host->kfuncs;
	btf = kbpf_host_btf(host);
	const char *set_name = OPTS_GET(opts, name, NULL) ? opts->name : "kfuncs";
	if (!btf) {
		log_line(log, log_size,
			 "kfunc set '%s': the host has no BTF to find its functions in (kbpf_host_btf_load_self "
			 "after building with kbpf_add_host_btf, see docs/host-btf.md)", set_name);
		return -ENOENT;
	}

	set = calloc(1, sizeof(*set));
	if (!set) {
		log_line(log, log_size, "kfunc set '%s': out of memory", set_name);
		return -ENOMEM;
	}
	ret = -ENOMEM;
	set->filter = OPTS_GET(opts, filter, NULL);
	set->filter_cookie = OPTS_GET(opts, filter_cookie, NULL);
	set->name = strdup(set_name);
	for (size_t i = 0; types && types[i]; i++)
		set->nr_types++;
	set->prog_types = calloc(set->nr_types + 1, sizeof(char *));
	set->descs = calloc(nr ? nr : 1, sizeof(*set->descs));
	if (!set->name || !set->prog_types || !set->descs)
		goto fail;
	for (size_t i = 0; i < set->nr_types; i++) {
		if (!types[i][0]) {
			log_line(log, log_size, "kfunc set '%s': an empty program type name", set_name);
			ret = -EINVAL;
			goto fail;
		}
		set->prog_types[i] = strdup(types[i]);
		if (!set->prog_types[i])
			goto fail;
		for (size_t k = 0; k < i; k++) {
			if (!strcmp(set->prog_types[k], types[i])) {
				log_line(log, log_size, "kfunc set '%s': program type '%s' named twice", set_name,
					 types[i]);
				ret = -EINVAL;
				goto fail;
			}
		}
	}
	/* Resolving reads only the host BTF: no lock needed until the set goes in. */
	for (size_t i = 0; i < nr; i++) {
		ret = resolve_func(btf, &funcs[i], &set->descs[i], set_name, log, log_size);
		set->nr_descs = i + 1; /* what set_free must release, even on failure */
		if (ret)
			goto fail;
	}
	qsort(set->descs, set->nr_descs, sizeof(*set->descs), desc_cmp);
	for (size_t i = 0; i + 1 < set->nr_descs; i++) {
		if (set->descs[i].btf_id == set->descs[i + 1].btf_id) {
			log_line(log, log_size, "kfunc '%s' (set '%s'): listed twice", set->descs[i].name, set_name);
			ret = -EEXIST;
			goto fail;
		}
	}
	for (size_t i = 0; i < set->nr_descs; i++)
		set->descs[i].set = set;

	pthread_mutex_lock(&r->lock);
	ret = check_duplicates(r, set, log, log_size);
	if (!ret) {
		struct kbpf_kfunc_set **sets = realloc(r->sets, (r->nr_sets + 1) * sizeof(*sets));
		if (!sets) {
			ret = -ENOMEM;
		} else {
			r->sets = sets;
			r->sets[r->nr_sets++] = set;
		}
	}
	pthread_mutex_unlock(&r->lock);
	if (ret)
		goto fail;
	if (out)
		*out = set;
	return 0;
fail:
	if (ret == -ENOMEM && log_size && !log[0])
		log_line(log, log_size, "kfunc set '%s': out of memory", set_name);
	set_free(set);
	return ret;
}

/* The registry slot of set, or -1 (lock held). */
static ssize_t set_index(const struct kbpf_kfunc_registry *r, const struct kbpf_kfunc_set *set)
{
	for (size_t i = 0; i < r->nr_sets; i++)
		if (r->sets[i] == set)
			return (ssize_t)i;
	return -1;
}

int kbpf_host_kfunc_set_unregister(struct kbpf_host *host, struct kbpf_kfunc_set *set, unsigned flags)
{
	struct kbpf_kfunc_registry *r;
	ssize_t idx;

	if (!host || !host->kfuncs || !set || (flags & ~KBPF_KFUNC_UNREG_NOWAIT))
		return -EINVAL;
	r = host->kfuncs;
	pthread_mutex_lock(&r->lock);
	idx = set_index(r, set);
	if (idx < 0) {
		pthread_mutex_unlock(&r->lock);
		return -ENOENT;
	}
	if (set->going) {
		pthread_mutex_unlock(&r->lock);
		return -EINPROGRESS;
	}
	if (set->pins && (flags & KBPF_KFUNC_UNREG_NOWAIT)) {
		pthread_mutex_unlock(&r->lock);
		return -EBUSY;
	}
	set->going = true;
	while (set->pins)
		pthread_cond_wait(&r->unpinned, &r->lock);
	/* other sets may have come or gone while we waited */
	idx = set_index(r, set);
	memmove(&r->sets[idx], &r->sets[idx + 1], (r->nr_sets - (size_t)idx - 1) * sizeof(r->sets[0]));
	r->nr_sets--;
	pthread_mutex_unlock(&r->lock);
	set_free(set);
	return 0;
}

int kbpf_host_kfunc_check_register(struct kbpf_host *host, const char *prog_type, kbpf_kfunc_check_fn cb,
				   void *cookie)
{
	struct kbpf_kfunc_registry *r;
	int ret = 0;

	if (!host || !host->kfuncs || !prog_type || !prog_type[0])
		return -EINVAL;
	r = host->kfuncs;
	pthread_mutex_lock(&r->lock);
	size_t i = 0;
	while (i < r->nr_checks && strcmp(r->checks[i].prog_type, prog_type))
		i++;
	if (!cb) {
		if (i == r->nr_checks) {
			ret = -ENOENT;
		} else {
			free(r->checks[i].prog_type);
			r->checks[i] = r->checks[--r->nr_checks];
		}
	} else if (i < r->nr_checks) {
		ret = -EEXIST;
	} else {
		struct kfunc_check *c = realloc(r->checks, (r->nr_checks + 1) * sizeof(*c));
		char *name = strdup(prog_type);
		if (c)
			r->checks = c;
		if (!c || !name) {
			free(name);
			ret = -ENOMEM;
		} else {
			r->checks[r->nr_checks++] = (struct kfunc_check){ name, cb, cookie };
		}
	}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

/* The first desc of btf_id in a live set, and whether a going set has it (lock held). */
static const struct kbpf_kfunc_desc *lookup(const struct kbpf_kfunc_registry *r, uint32_t btf_id, bool *in_going)
{
	*in_going = false;
	for (size_t s = 0; s < r->nr_sets; s++) {
		const struct kbpf_kfunc_desc *d = set_find(r->sets[s], btf_id);
		if (!d)
			continue;
		if (!r->sets[s]->going)
			return d;
		*in_going = true;
	}
	return NULL;
}

int kbpf_host_kfunc_get(struct kbpf_host *host, uint32_t btf_id, const struct kbpf_kfunc_desc **desc)
{
	struct kbpf_kfunc_registry *r;
	const struct kbpf_kfunc_desc *d;
	bool going;

	*desc = NULL;
	if (!host || !host->kfuncs)
		return -ENOENT;
	r = host->kfuncs;
	pthread_mutex_lock(&r->lock);
	d = lookup(r, btf_id, &going);
	if (d)
		d->set->pins++;
	pthread_mutex_unlock(&r->lock);
	if (!d)
		return going ? -ENXIO : -ENOENT;
	*desc = d;
	return 0;
}

void kbpf_host_kfunc_put(struct kbpf_host *host, const struct kbpf_kfunc_desc *desc)
{
	struct kbpf_kfunc_registry *r;

	if (!host || !host->kfuncs || !desc)
		return;
	r = host->kfuncs;
	pthread_mutex_lock(&r->lock);
	if (desc->set->pins && !--desc->set->pins && desc->set->going)
		pthread_cond_broadcast(&r->unpinned);
	pthread_mutex_unlock(&r->lock);
}

unsigned long kbpf_kfunc_set_pins(struct kbpf_host *host, const struct kbpf_kfunc_set *set)
{
	unsigned long pins = 0;

	if (!host || !host->kfuncs || !set)
		return 0;
	pthread_mutex_lock(&host->kfuncs->lock);
	if (set_index(host->kfuncs, set) >= 0)
		pins = set->pins;
	pthread_mutex_unlock(&host->kfuncs->lock);
	return pins;
}

int kbpf_host_kfunc_allowed(struct kbpf_host *host, const struct kbpf_kfunc_prog_info *prog, uint32_t btf_id,
			    uint32_t *flags)
{
	struct kbpf_kfunc_registry *r;
	const struct kbpf_kfunc_desc *any;
	const char *type = OPTS_GET(prog, prog_type, NULL);
	bool going;
	int ret = -EACCES;

	if (flags)
		*flags = 0;
	if (!host || !host->kfuncs || !type)
		return -EINVAL;
	r = host->kfuncs;
	/* Filters and check callbacks are the host's code: they run under the lock, so a
	 * set cannot vanish under them; they must not call back into registration. */
	pthread_mutex_lock(&r->lock);
	any = lookup(r, btf_id, &going);
	if (!any) {
		ret = going ? -ENXIO : -ENOENT;
		goto out;
	}
	for (size_t s = 0; s < r->nr_sets && ret; s++) {
		const struct kbpf_kfunc_set *set = r->sets[s];
		const struct kbpf_kfunc_desc *d;
		if (set->going || !set_has_type(set, type) || !(d = set_find(set, btf_id)))
			continue;
		if (set->filter && set->filter(prog, btf_id, set->filter_cookie))
			continue;
		if (flags)
			*flags = d->flags;
		ret = 0;
	}
	for (size_t i = 0; i < r->nr_checks && ret; i++) {
		if (strcmp(r->checks[i].prog_type, type))
			continue;
		if (r->checks[i].cb(btf_id, r->checks[i].cookie)) {
			if (flags)
				*flags = any->flags;
			ret = 0;
		}
	}
out:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

const char *kbpf_host_kfunc_name(struct kbpf_host *host, uint32_t btf_id)
{
	const struct kbpf_kfunc_desc *d;
	bool going;

	if (!host || !host->kfuncs)
		return NULL;
	pthread_mutex_lock(&host->kfuncs->lock);
	d = lookup(host->kfuncs, btf_id, &going);
	pthread_mutex_unlock(&host->kfuncs->lock);
	return d ? d->name : NULL;
}

/* --- audit --- */

struct entry_list {
	struct kbpf_kfunc_entry *e;
	size_t nr, cap;
	int oom;
};

static void entry_add(struct entry_list *l, const struct kbpf_kfunc_entry *e)
{
	if (l->oom)
		return;
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct kbpf_kfunc_entry *n = realloc(l->e, cap * sizeof(*n));
		if (!n) {
			l->oom = 1;
			return;
		}
		l->e = n;
		l->cap = cap;
	}
	l->e[l->nr++] = *e;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct kbpf_kfunc_entry *x = a, *y = b;
	int c;

	if (!x->prog_type || !y->prog_type)
		c = !x->prog_type - !y->prog_type; /* sets for no type last */
	else
		c = strcmp(x->prog_type, y->prog_type);
	return c ? c : strcmp(x->name, y->name);
}

static bool entry_listed(const struct entry_list *l, const char *type, uint32_t btf_id)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->e[i].btf_id == btf_id && l->e[i].prog_type && !strcmp(l->e[i].prog_type, type))
			return true;
	return false;
}

static struct kbpf_kfunc_entry make_entry(const char *type, const struct kbpf_kfunc_desc *d,
					  const struct kbpf_kfunc_set *set)
{
	return (struct kbpf_kfunc_entry){
		.prog_type = type, .name = d->name, .btf_id = d->btf_id, .flags = d->flags,
		.set = set->name, .decl = d->decl, .filtered = set->filter != NULL, .addr = d->addr,
	};
}

int kbpf_host_kfunc_foreach(struct kbpf_host *host, const char *prog_type,
			    int (*fn)(const struct kbpf_kfunc_entry *entry, void *arg), void *arg)
{
	struct kbpf_kfunc_registry *r;
	struct entry_list l = { 0 };
	int ret = 0;

	if (!host || !host->kfuncs || !fn)
		return -EINVAL;
	r = host->kfuncs;
	pthread_mutex_lock(&r->lock);
	for (size_t s = 0; s < r->nr_sets; s++) {
		const struct kbpf_kfunc_set *set = r->sets[s];
		if (set->going)
			continue;
		for (size_t d = 0; d < set->nr_descs; d++) {
			struct kbpf_kfunc_entry e;
			for (size_t t = 0; t < set->nr_types; t++) {
				if (prog_type && strcmp(prog_type, set->prog_types[t]))
					continue;
				e = make_entry(set->prog_types[t], &set->descs[d], set);
				entry_add(&l, &e);
			}
			if (!set->nr_types && !prog_type) {
				e = make_entry(NULL, &set->descs[d], set);
				entry_add(&l, &e);
			}
		}
	}
	/* what the check callbacks let through, asked kfunc by kfunc */
	for (size_t c = 0; c < r->nr_checks; c++) {
		const struct kfunc_check *chk = &r->checks[c];
		if (prog_type && strcmp(prog_type, chk->prog_type))
			continue;
		for (size_t s = 0; s < r->nr_sets; s++) {
			const struct kbpf_kfunc_set *set = r->sets[s];
			if (set->going)
				continue;
			for (size_t d = 0; d < set->nr_descs; d++) {
				const struct kbpf_kfunc_desc *desc = &set->descs[d];
				if (entry_listed(&l, chk->prog_type, desc->btf_id) ||
				    !chk->cb(desc->btf_id, chk->cookie))
					continue;
				struct kbpf_kfunc_entry e = make_entry(chk->prog_type, desc, set);
				e.by_check = 1;
				e.filtered = 0;
				entry_add(&l, &e);
			}
		}
	}
	if (l.oom) {
		ret = -ENOMEM;
	} else {
		if (l.nr) /* qsort's base must not be NULL, even for 0 elements */
			qsort(l.e, l.nr, sizeof(*l.e), entry_cmp);
		for (size_t i = 0; i < l.nr && !ret; i++)
			ret = fn(&l.e[i], arg);
	}
	pthread_mutex_unlock(&r->lock);
	free(l.e);
	return ret;
}
