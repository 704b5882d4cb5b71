/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>

#include "base/twheel.h"
#include "uet/err.h"

#define NONE UINT32_MAX

int
uet_twheel_init(struct uet_twheel *w, uint32_t cap, uint32_t nslots, uint64_t tick_ns,
		uint64_t start_ns)
{
	uint32_t n = 1, i;

	if (cap == 0 || nslots == 0 || tick_ns == 0 || nslots > (1u << 30))
		return UET_ERR_INVAL;
	while (n < nslots)
		n <<= 1;
	w->deadline_ns = calloc(cap, sizeof(uint64_t));
	w->next = malloc(cap * sizeof(uint32_t));
	w->prev = malloc(cap * sizeof(uint32_t));
	w->slot_of = malloc(cap * sizeof(uint32_t));
	w->head = malloc(n * sizeof(uint32_t));
	if (w->deadline_ns == NULL || w->next == NULL || w->prev == NULL || w->slot_of == NULL ||
	    w->head == NULL) {
		uet_twheel_fini(w);
		return UET_ERR_NOMEM;
	}
	for (i = 0; i < cap; i++)
		w->slot_of[i] = NONE;
	for (i = 0; i < n; i++)
		w->head[i] = NONE;
	w->cap = cap;
	w->mask = n - 1;
	w->armed = 0;
	w->tick_ns = tick_ns;
	w->cur_tick = start_ns / tick_ns;
	return 0;
}

void
uet_twheel_fini(struct uet_twheel *w)
{
	free(w->deadline_ns);
	free(w->next);
	free(w->prev);
	free(w->slot_of);
	free(w->head);
	w->deadline_ns = NULL;
	w->next = w->prev = w->slot_of = w->head = NULL;
	w->cap = 0;
}

static void
unlink_id(struct uet_twheel *w, uint32_t id)
{
	uint32_t s = w->slot_of[id];

	if (w->prev[id] != NONE)
		w->next[w->prev[id]] = w->next[id];
	else
		w->head[s] = w->next[id];
	if (w->next[id] != NONE)
		w->prev[w->next[id]] = w->prev[id];
	w->slot_of[id] = NONE;
	w->armed--;
}

void
uet_twheel_set(struct uet_twheel *w, uint32_t id, uint64_t deadline_ns)
{
	uint64_t tick = deadline_ns / w->tick_ns;
	uint32_t s;

	if (id >= w->cap)
		return;
	if (w->slot_of[id] != NONE) {
		if (w->deadline_ns[id] == deadline_ns)
			return;
		unlink_id(w, id);
	}
	/* A deadline in a slot already passed goes in the current one, which
	 * the next expiry call scans. */
	if (tick < w->cur_tick)
		tick = w->cur_tick;
	s = (uint32_t)(tick & w->mask);
	w->deadline_ns[id] = deadline_ns;
	w->slot_of[id] = s;
	w->prev[id] = NONE;
	w->next[id] = w->head[s];
	if (w->head[s] != NONE)
		w->prev[w->head[s]] = id;
	w->head[s] = id;
	w->armed++;
}

void
uet_twheel_del(struct uet_twheel *w, uint32_t id)
{
	if (id < w->cap && w->slot_of[id] != NONE)
		unlink_id(w, id);
}

bool
uet_twheel_armed(const struct uet_twheel *w, uint32_t id)
{
	return id < w->cap && w->slot_of[id] != NONE;
}

uint32_t
uet_twheel_count(const struct uet_twheel *w)
{
	return w->armed;
}

/* The first id of slot s due by now_ns, or NONE. */
static uint32_t
due_in(const struct uet_twheel *w, uint32_t s, uint64_t now_ns)
{
	uint32_t id;

	for (id = w->head[s]; id != NONE; id = w->next[id])
		if (w->deadline_ns[id] <= now_ns)
			return id;
	return NONE;
}

bool
uet_twheel_pop(struct uet_twheel *w, uint64_t now_ns, uint32_t *id)
{
	uint64_t now_tick = now_ns / w->tick_ns;
	uint32_t visited = 0, found;

	if (w->armed == 0) {
		if (now_tick > w->cur_tick)
			w->cur_tick = now_tick;
		return false;
	}
	for (;;) {
		found = due_in(w, (uint32_t)(w->cur_tick & w->mask), now_ns);
		if (found != NONE) {
			unlink_id(w, found);
			*id = found;
			return true;
		}
		if (w->cur_tick >= now_tick)
			return false;
		/* After a long pause every slot has been looked at once:
		 * nothing armed is due. */
		if (++visited > w->mask) {
			w->cur_tick = now_tick;
			return false;
		}
		w->cur_tick++;
	}
}
