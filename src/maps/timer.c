/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_timer at run time (Linux 6.1 kernel/bpf/helpers.c: bpf_timer_init, _set_callback,
 * _start, _cancel, bpf_timer_cb, bpf_timer_cancel_and_free), on a per-host engine.
 *
 * A value's 16-byte struct bpf_timer holds, like Linux's bpf_timer_kern, a pointer to the
 * timer's state (NULL: not initialised) and a spin lock that orders the helpers on that
 * field. The state (struct kbpf_timer) is on its engine's list; the engine's mutex guards
 * every state's mutable part and which callback runs. Lock order: field lock, then the
 * engine's mutex; nobody waits holding a field lock.
 *
 * Armed timers are also in a binary min-heap per clock id, ordered by (deadline, arm
 * sequence): equal deadlines fire in the order they were armed, as Linux's timerqueue
 * does. Each timer keeps its heap index, so arm, re-arm, cancel and "earliest deadline"
 * are O(log n) (or O(1)) in the armed timers; a clock's heap has room for every timer
 * of that clock from init on, so start never allocates.
 *
 * One runner at a time per engine (its thread, or the host thread in run_due/advance)
 * calls callbacks, so a callback never waits for another one: the only wait is for the
 * running callback, by whoever cancels or frees its timer from another thread (Linux's
 * hrtimer_cancel), and a callback touching its own timer gets -EDEADLK (cancel) or frees
 * it without waiting (delete of its element), as in Linux. The runner reads what it needs
 * from the state before the call and never touches it after, so a callback may free its
 * own timer. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <kbpf/host.h>
#include <kbpf/timer.h>
#include "maps/map_internal.h"
#include "maps/spinlock.h"
#include "maps/timer.h"

#define MAX_CLOCKS 16
#define RUN_MAX (1u << 20) /* callbacks per run_due / advance call: a timer re-armed at 0 ns
			    * forever must not keep the host's thread */

struct timer_field { /* the struct bpf_timer in a value: Linux's bpf_timer_kern */
	struct kbpf_timer *_Atomic t;
	struct kbpf_spinlock lock;
	uint32_t pad;
};
_Static_assert(sizeof(struct timer_field) == 16, "struct bpf_timer is 16 bytes");

struct kbpf_timer {
	struct kbpf_timers *eng;
	struct kbpf_map *map;
	char *value;
	void *key;      /* the callback's key: an array's index (below) or the hash element's */
	uint32_t index; /* an array's key */
	clockid_t clockid;
	/* under eng->mu */
	uint64_t fn; /* the callback (a closure of the program's), 0 none */
	uint64_t deadline;
	uint64_t seq;      /* arm order: breaks deadline ties */
	uint32_t heap_idx; /* in eng->heap[clock_slot(clockid)], NOT_ARMED if not armed */
	struct kbpf_timer *prev, *next;
};

#define NOT_ARMED UINT32_MAX
#define NR_SLOTS 3 /* the clocks init accepts: REALTIME, MONOTONIC, BOOTTIME */

struct timer_heap { /* a min-heap of armed timers of one clock */
	struct kbpf_timer **t;
	uint32_t len, cap;
	uint32_t nr_timers; /* initialised timers of this clock: cap >= nr_timers */
};

struct kbpf_timers {
	pthread_mutex_t mu;
	pthread_cond_t cond; /* running ended, a timer was armed, or stop */
	uint32_t refcnt;     /* the host's and each bound map's (under mu) */
	struct kbpf_timer *all;
	int nr_armed;
	struct timer_heap heap[NR_SLOTS];
	uint64_t arm_seq;
	struct kbpf_timer *running; /* whose callback runs now (never dereferenced) */
	uint64_t running_fn;
	pthread_t runner;
	bool manual, thread_on, stopping, dead;
	uint64_t vnow; /* the manual clock */
	pthread_t thread;
};

static struct timer_field *field_of(void *timer) { return timer; }

static uint64_t clock_now(const struct kbpf_timers *e, clockid_t id)
{
	struct timespec ts;

	if (e->manual)
		return e->vnow;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool runs_here(const struct kbpf_timers *e)
{
	return e->running && pthread_equal(e->runner, pthread_self());
}

/* Wait (e->mu held) while t's callback runs on another thread (Linux's hrtimer_cancel);
 * t is only compared, so it may be freed meanwhile. */
static void wait_running(struct kbpf_timers *e, const struct kbpf_timer *t)
{
	while (e->running && e->running == t && !pthread_equal(e->runner, pthread_self()))
		pthread_cond_wait(&e->cond, &e->mu);
}

static unsigned clock_slot(clockid_t id)
{
	return id == CLOCK_REALTIME ? 0 : id == CLOCK_MONOTONIC ? 1 : 2;
}

static bool is_armed(const struct kbpf_timer *t) { return t->heap_idx != NOT_ARMED; }

static bool before(const struct kbpf_timer *a, const struct kbpf_timer *b)
{
	return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

static void heap_put(struct timer_heap *h, uint32_t i, struct kbpf_timer *t)
{
	h->t[i] = t;
	t->heap_idx = i;
}

/* Move h->t[i] to where the heap order wants it. */
static void heap_fix(struct timer_heap *h, uint32_t i)
{
	struct kbpf_timer *t = h->t[i];

	while (i > 0 && before(t, h->t[(i - 1) / 2])) {
		heap_put(h, i, h->t[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= h->len)
			break;
		if (c + 1 < h->len && before(h->t[c + 1], h->t[c]))
			c++;
		if (!before(h->t[c], t))
			break;
		heap_put(h, i, h->t[c]);
		i = c;
	}
	heap_put(h, i, t);
}

/* Room for one more timer of this clock (init, e->mu held): start then never allocates. */
static int heap_reserve(struct timer_heap *h)
{
	if (h->nr_timers < h->cap)
		return 0;
	uint32_t cap = h->cap ? h->cap * 2 : 16;
	if (cap <= h->cap)
		return -ENOMEM;
	struct kbpf_timer **n = realloc(h->t, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	h->t = n;
	h->cap = cap;
	return 0;
}

/* Arm t at deadline (or move it there if armed). */
static void arm(struct kbpf_timers *e, struct kbpf_timer *t, uint64_t deadline)
{
	struct timer_heap *h = &e->heap[clock_slot(t->clockid)];

	t->deadline = deadline;
	t->seq = e->arm_seq++;
	if (!is_armed(t)) {
		e->nr_armed++;
		heap_put(h, h->len++, t); /* cap >= nr_timers > len: reserved at init */
	}
	heap_fix(h, t->heap_idx);
}

static void disarm(struct kbpf_timers *e, struct kbpf_timer *t)
{
	if (!is_armed(t))
		return;
	struct timer_heap *h = &e->heap[clock_slot(t->clockid)];
	uint32_t i = t->heap_idx;

	e->nr_armed--;
	t->heap_idx = NOT_ARMED;
	if (i != --h->len) {
		heap_put(h, i, h->t[h->len]);
		heap_fix(h, i);
	}
}

/* The clock's armed timer with the earliest deadline, or NULL. */
static struct kbpf_timer *heap_top(const struct kbpf_timers *e, unsigned slot)
{
	return e->heap[slot].len ? e->heap[slot].t[0] : NULL;
}

static void unlink_timer(struct kbpf_timers *e, struct kbpf_timer *t)
{
	disarm(e, t);
	e->heap[clock_slot(t->clockid)].nr_timers--;
	if (t->prev)
		t->prev->next = t->next;
	else
		e->all = t->next;
	if (t->next)
		t->next->prev = t->prev;
}

static void engine_put(struct kbpf_timers *e)
{
	pthread_mutex_lock(&e->mu);
	bool last = --e->refcnt == 0;
	pthread_mutex_unlock(&e->mu);
	if (!last)
		return;
	while (e->all) { /* none left: each map freed its own */
		struct kbpf_timer *t = e->all;
		e->all = t->next;
		free(t);
	}
	for (unsigned i = 0; i < NR_SLOTS; i++)
		free(e->heap[i].t);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->mu);
	free(e);
}

static struct kbpf_timers *engine_new(void)
{
	struct kbpf_timers *e = calloc(1, sizeof(*e));
	pthread_condattr_t ca;

	if (!e)
		return NULL;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_mutex_init(&e->mu, NULL) || pthread_cond_init(&e->cond, &ca)) {
		pthread_condattr_destroy(&ca);
		free(e);
		return NULL;
	}
	pthread_condattr_destroy(&ca);
	e->refcnt = 1; /* the host's */
	return e;
}

/* --- binding: a map's timers run on one host ------------------------------------ */

int kbpf_timers_ensure(struct kbpf_timers *_Atomic *host_slot)
{
	struct kbpf_timers *e = NULL;
	if (atomic_load(host_slot))
		return 0;
	struct kbpf_timers *n = engine_new();
	if (!n)
		return -ENOMEM;
	if (!atomic_compare_exchange_strong(host_slot, &e, n))
		engine_put(n); /* another thread made it first */
	return 0;
}

int kbpf_timers_bind(struct kbpf_timers *_Atomic *host_slot, struct kbpf_map *map)
{
	int err = kbpf_timers_ensure(host_slot);
	if (err)
		return err;
	struct kbpf_timers *e = atomic_load(host_slot);
	struct kbpf_timers *cur = NULL;
	pthread_mutex_lock(&e->mu);
	e->refcnt++; /* the map's, if it binds */
	pthread_mutex_unlock(&e->mu);
	if (atomic_compare_exchange_strong(&map->timer_engine, &cur, e))
		return 0;
	engine_put(e);
	return cur == e ? 0 : -EXDEV;
}

/* --- the helpers ---------------------------------------------------------------- */

/* The field's timer with the field's lock held, or NULL (not initialised: -EINVAL for
 * the helpers) with it released. */
static struct kbpf_timer *field_lock(struct timer_field *f)
{
	kbpf_spin_lock(&f->lock);
	struct kbpf_timer *t = atomic_load(&f->t);
	if (!t)
		kbpf_spin_unlock(&f->lock);
	return t;
}

int kbpf_timer_init(void *timer, struct kbpf_map *map, uint64_t flags)
{
	clockid_t clockid = (clockid_t)(flags & (MAX_CLOCKS - 1));
	struct timer_field *f = field_of(timer);
	int ret = 0;

	if (!timer || !map)
		return -EINVAL;
	if (flags >= MAX_CLOCKS ||
	    (clockid != CLOCK_MONOTONIC && clockid != CLOCK_REALTIME && clockid != CLOCK_BOOTTIME))
		return -EINVAL;
	struct kbpf_timers *e = atomic_load(&map->timer_engine);
	if (!e)
		return -EPERM; /* no host runs this map's timers */
	kbpf_spin_lock(&f->lock);
	if (atomic_load(&f->t)) {
		ret = -EBUSY;
		goto out;
	}
	struct kbpf_timer *t = calloc(1, sizeof(*t));
	if (!t) {
		ret = -ENOMEM;
		goto out;
	}
	t->eng = e;
	t->map = map;
	t->value = (char *)timer - map->timer_off;
	t->clockid = clockid;
	t->heap_idx = NOT_ARMED;
	if (map->type == BPF_MAP_TYPE_ARRAY) {
		t->index = kbpf_array_index_of(map, t->value);
		t->key = &t->index;
	} else { /* hash, LRU hash: the key precedes the value, 8-byte padded */
		t->key = t->value - ((map->key_size + 7u) & ~7u);
	}
	pthread_mutex_lock(&e->mu);
	if (e->dead) { /* the host is gone: Linux's "user refcount gone" */
		pthread_mutex_unlock(&e->mu);
		free(t);
		ret = -EPERM;
		goto out;
	}
	struct timer_heap *h = &e->heap[clock_slot(clockid)];
	if (heap_reserve(h)) {
		pthread_mutex_unlock(&e->mu);
		free(t);
		ret = -ENOMEM;
		goto out;
	}
	h->nr_timers++;
	t->next = e->all;
	if (e->all)
		e->all->prev = t;
	e->all = t;
	pthread_mutex_unlock(&e->mu);
	atomic_store(&f->t, t);
out:
	kbpf_spin_unlock(&f->lock);
	return ret;
}

int kbpf_timer_set_callback(void *timer, uint64_t callback_fn)
{
	struct timer_field *f = field_of(timer);
	struct kbpf_timer *t = timer ? field_lock(f) : NULL;
	int ret = 0;

	if (!t)
		return -EINVAL;
	pthread_mutex_lock(&t->eng->mu);
	if (t->eng->dead)
		ret = -EPERM;
	else
		t->fn = callback_fn;
	pthread_mutex_unlock(&t->eng->mu);
	kbpf_spin_unlock(&f->lock);
	return ret;
}

int kbpf_timer_start(void *timer, uint64_t nsecs, uint64_t flags)
{
	struct timer_field *f = field_of(timer);
	int ret = 0;

	if (!timer || flags) /* 6.1 has no flags (BPF_F_TIMER_ABS is 6.7's) */
		return -EINVAL;
	struct kbpf_timer *t = field_lock(f);
	if (!t)
		return -EINVAL;
	struct kbpf_timers *e = t->eng;
	pthread_mutex_lock(&e->mu);
	if (!t->fn) {
		ret = -EINVAL;
	} else {
		uint64_t now = clock_now(e, t->clockid);
		arm(e, t, now + nsecs < now ? UINT64_MAX : now + nsecs);
		pthread_cond_broadcast(&e->cond);
	}
	pthread_mutex_unlock(&e->mu);
	kbpf_spin_unlock(&f->lock);
	return ret;
}

int kbpf_timer_cancel(void *timer)
{
	struct timer_field *f = field_of(timer);
	struct kbpf_timer *t = timer ? field_lock(f) : NULL;
	int ret = 0;

	if (!t)
		return -EINVAL;
	struct kbpf_timers *e = t->eng;
	pthread_mutex_lock(&e->mu);
	if (e->running == t && runs_here(e)) {
		/* its own callback: Linux's hrtimer_cancel would wait for itself */
		ret = -EDEADLK;
	} else {
		/* Linux drops the callback (and its program) first: start needs a new one */
		t->fn = 0;
		ret = is_armed(t);
		disarm(e, t);
	}
	kbpf_spin_unlock(&f->lock);
	if (ret >= 0)
		wait_running(e, t); /* t may be freed meanwhile: only compared, not read */
	pthread_mutex_unlock(&e->mu);
	return ret;
}

/* --- lifetime --------------------------------------------------------------------- */

void kbpf_map_value_timer_free(struct kbpf_map *map, void *value)
{
	struct timer_field *f = (struct timer_field *)((char *)value + map->timer_off);

	if (!atomic_load(&f->t))
		return;
	kbpf_spin_lock(&f->lock);
	struct kbpf_timer *t = atomic_exchange(&f->t, NULL);
	kbpf_spin_unlock(&f->lock);
	if (!t)
		return;
	struct kbpf_timers *e = t->eng;
	pthread_mutex_lock(&e->mu);
	unlink_timer(e, t);
	t->fn = 0;
	/* from its own callback: the runner no longer reads t (Linux frees it too) */
	wait_running(e, t);
	pthread_mutex_unlock(&e->mu);
	free(t);
}

void kbpf_timers_map_release(struct kbpf_map *map)
{
	struct kbpf_timers *e = atomic_load(&map->timer_engine);

	if (!e)
		return;
	pthread_mutex_lock(&e->mu);
	for (struct kbpf_timer *t = e->all, *next; t; t = next) {
		next = t->next;
		if (t->map != map)
			continue;
		struct timer_field *f = (struct timer_field *)(t->value + map->timer_off);
		atomic_store(&f->t, NULL);
		unlink_timer(e, t);
		t->fn = 0;
		wait_running(e, t);
		free(t);
		next = e->all; /* the wait let others change the list: start over */
	}
	pthread_mutex_unlock(&e->mu);
	engine_put(e);
}

void kbpf_timers_prog_release(struct kbpf_timers *e, bool (*owns)(const void *prog, uint64_t fn),
			      const void *prog)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->mu);
	for (struct kbpf_timer *t = e->all; t; t = t->next) {
		if (!t->fn || !owns(prog, t->fn))
			continue;
		/* the program goes: its timers stay initialised, without a callback */
		t->fn = 0;
		disarm(e, t);
	}
	while (e->running && owns(prog, e->running_fn) && !runs_here(e))
		pthread_cond_wait(&e->cond, &e->mu);
	pthread_mutex_unlock(&e->mu);
}

/* --- running -------------------------------------------------------------------- */

/* The armed timer with the earliest deadline reached by `limit` (manual clock) or now
 * (real clocks), or NULL: a clock's heap top is its earliest, so only tops are looked at. */
static struct kbpf_timer *next_due(struct kbpf_timers *e, uint64_t limit)
{
	static const clockid_t ids[NR_SLOTS] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME };
	struct kbpf_timer *best = NULL;

	for (unsigned i = 0; i < NR_SLOTS; i++) {
		struct kbpf_timer *t = heap_top(e, i);
		if (!t)
			continue;
		uint64_t now = e->manual ? limit : clock_now(e, ids[i]);
		if (t->deadline <= now && (!best || before(t, best)))
			best = t;
	}
	return best;
}

/* Fire t (armed, due; e->mu held, released during the callback). */
static void fire(struct kbpf_timers *e, struct kbpf_timer *t)
{
	disarm(e, t);
	uint64_t fn = t->fn;
	uint64_t map = (uint64_t)(uintptr_t)t->map, key = (uint64_t)(uintptr_t)t->key,
		 value = (uint64_t)(uintptr_t)t->value;
	e->running = t;
	e->running_fn = fn;
	e->runner = pthread_self();
	pthread_mutex_unlock(&e->mu);
	((kbpf_helper_fn)(uintptr_t)fn)(map, key, value, 0, 0); /* the verifier checked R0 == 0 */
	pthread_mutex_lock(&e->mu);
	e->running = NULL;
	e->running_fn = 0;
	pthread_cond_broadcast(&e->cond);
}

static void *thread_main(void *arg)
{
	struct kbpf_timers *e = arg;

	pthread_mutex_lock(&e->mu);
	while (!e->stopping) {
		struct kbpf_timer *t = next_due(e, 0);
		if (t) {
			fire(e, t);
			continue;
		}
		/* sleep until the nearest deadline (each in its own clock) or a change */
		uint64_t wait = UINT64_MAX;
		for (unsigned i = 0; i < NR_SLOTS; i++) {
			struct kbpf_timer *a = heap_top(e, i);
			if (!a)
				continue;
			uint64_t now = clock_now(e, a->clockid);
			uint64_t left = a->deadline > now ? a->deadline - now : 0;
			wait = left < wait ? left : wait;
		}
		if (wait == UINT64_MAX) {
			pthread_cond_wait(&e->cond, &e->mu);
			continue;
		}
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (wait > 3600ull * 1000000000ull)
			wait = 3600ull * 1000000000ull; /* a realtime clock may jump: look again */
		uint64_t ns = (uint64_t)ts.tv_nsec + wait % 1000000000ull;
		ts.tv_sec += (time_t)(wait / 1000000000ull + ns / 1000000000ull);
		ts.tv_nsec = (long)(ns % 1000000000ull);
		pthread_cond_timedwait(&e->cond, &e->mu, &ts);
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

int kbpf_timers_start(struct kbpf_timers *e)
{
	int ret = 0;

	pthread_mutex_lock(&e->mu);
	if (e->thread_on || e->manual || e->dead || e->running) {
		ret = -EBUSY;
	} else {
		e->stopping = false;
		int err = pthread_create(&e->thread, NULL, thread_main, e);
		if (err)
			ret = -err;
		else
			e->thread_on = true;
	}
	pthread_mutex_unlock(&e->mu);
	return ret;
}

void kbpf_timers_stop(struct kbpf_timers *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->mu);
	if (!e->thread_on) {
		pthread_mutex_unlock(&e->mu);
		return;
	}
	e->stopping = true;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->mu);
	pthread_join(e->thread, NULL);
	pthread_mutex_lock(&e->mu);
	e->thread_on = false;
	e->stopping = false;
	pthread_mutex_unlock(&e->mu);
}

/* Fire due timers from this thread: real clocks (advance == false) or the manual clock
 * up to vnow + nsecs. */
int kbpf_timers_run(struct kbpf_timers *e, bool advance, uint64_t nsecs)
{
	int n = 0;

	pthread_mutex_lock(&e->mu);
	if (e->thread_on || e->running || advance != e->manual) {
		pthread_mutex_unlock(&e->mu);
		return advance && !e->manual ? -EINVAL : -EBUSY;
	}
	uint64_t target = e->vnow + nsecs < e->vnow ? UINT64_MAX : e->vnow + nsecs;
	struct kbpf_timer *t;
	while ((unsigned)n < RUN_MAX && (t = next_due(e, target))) {
		if (e->manual && t->deadline > e->vnow)
			e->vnow = t->deadline; /* the callback sees its own deadline as now */
		fire(e, t);
		n++;
	}
	if (e->manual && (unsigned)n < RUN_MAX)
		e->vnow = target;
	pthread_mutex_unlock(&e->mu);
	return n;
}

int kbpf_timers_manual_clock(struct kbpf_timers *e, bool on)
{
	int ret = 0;

	pthread_mutex_lock(&e->mu);
	if (e->thread_on || e->nr_armed || e->running)
		ret = -EBUSY;
	else if (e->manual != on) {
		e->manual = on;
		e->vnow = 0;
	}
	pthread_mutex_unlock(&e->mu);
	return ret;
}

int kbpf_timers_armed(struct kbpf_timers *e)
{
	pthread_mutex_lock(&e->mu);
	int n = e->nr_armed;
	pthread_mutex_unlock(&e->mu);
	return n;
}

void kbpf_timers_host_release(struct kbpf_timers *e)
{
	if (!e)
		return;
	kbpf_timers_stop(e);
	pthread_mutex_lock(&e->mu);
	e->dead = true;
	for (struct kbpf_timer *t = e->all; t; t = t->next) {
		t->fn = 0;
		t->heap_idx = NOT_ARMED;
	}
	for (unsigned i = 0; i < NR_SLOTS; i++)
		e->heap[i].len = 0;
	e->nr_armed = 0;
	while (e->running && !runs_here(e))
		pthread_cond_wait(&e->cond, &e->mu);
	pthread_mutex_unlock(&e->mu);
	engine_put(e);
}
