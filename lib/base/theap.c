/* SPDX-License-Identifier: BSD-3-Clause */
#include "base/theap.h"

#include <assert.h>
#include <stdlib.h>

#include "uet/err.h"

int
uet_theap_init(struct uet_theap *t, uint32_t cap)
{
	uint32_t i;

	t->n = 0;
	t->cap = cap;
	t->h = calloc(cap ? cap : 1, sizeof(*t->h));
	t->pos = calloc(cap ? cap : 1, sizeof(*t->pos));
	if (t->h == NULL || t->pos == NULL) {
		uet_theap_fini(t);
		return UET_ERR_NOMEM;
	}
	for (i = 0; i < cap; i++)
		t->pos[i] = UINT32_MAX;
	return 0;
}

void
uet_theap_fini(struct uet_theap *t)
{
	free(t->h);
	free(t->pos);
	t->h = NULL;
	t->pos = NULL;
	t->n = t->cap = 0;
}

static inline bool
less(const struct uet_theap_ent *a, const struct uet_theap_ent *b)
{
	return a->key < b->key || (a->key == b->key && a->id < b->id);
}

static inline void
place(struct uet_theap *t, uint32_t i, struct uet_theap_ent e)
{
	t->h[i] = e;
	t->pos[e.id] = i;
}

static void
sift_up(struct uet_theap *t, uint32_t i)
{
	struct uet_theap_ent e = t->h[i];

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!less(&e, &t->h[p]))
			break;
		place(t, i, t->h[p]);
		i = p;
	}
	place(t, i, e);
}

static void
sift_down(struct uet_theap *t, uint32_t i)
{
	struct uet_theap_ent e = t->h[i];

	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		const struct uet_theap_ent *best = &e;

		if (l < t->n && less(&t->h[l], best)) {
			m = l;
			best = &t->h[l];
		}
		if (r < t->n && less(&t->h[r], best))
			m = r;
		if (m == i)
			break;
		place(t, i, t->h[m]);
		i = m;
	}
	place(t, i, e);
}

void
uet_theap_set(struct uet_theap *t, uint32_t id, uint64_t key)
{
	uint32_t i;

	assert(id < t->cap);
	i = t->pos[id];
	if (i == UINT32_MAX) {
		assert(t->n < t->cap);
		i = t->n++;
		place(t, i, (struct uet_theap_ent){ .key = key, .id = id });
		sift_up(t, i);
		return;
	}
	if (key < t->h[i].key) {
		t->h[i].key = key;
		sift_up(t, i);
	} else if (key > t->h[i].key) {
		t->h[i].key = key;
		sift_down(t, i);
	}
}

void
uet_theap_del(struct uet_theap *t, uint32_t id)
{
	uint32_t i;

	assert(id < t->cap);
	i = t->pos[id];
	if (i == UINT32_MAX)
		return;
	t->pos[id] = UINT32_MAX;
	t->n--;
	if (i == t->n)
		return;
	place(t, i, t->h[t->n]);
	if (i > 0 && less(&t->h[i], &t->h[(i - 1) / 2]))
		sift_up(t, i);
	else
		sift_down(t, i);
}

bool
uet_theap_contains(const struct uet_theap *t, uint32_t id)
{
	return id < t->cap && t->pos[id] != UINT32_MAX;
}

bool
uet_theap_top(const struct uet_theap *t, uint32_t *id, uint64_t *key)
{
	if (t->n == 0)
		return false;
	if (id != NULL)
		*id = t->h[0].id;
	if (key != NULL)
		*key = t->h[0].key;
	return true;
}
