/* SPDX-License-Identifier: BSD-3-Clause */
#include "base/hmap.h"

#include <assert.h>
#include <stdlib.h>

#include "uet/prng.h"
#include "uet/err.h"

int
uet_hmap_init(struct uet_hmap *m, uint32_t max_entries)
{
	uint32_t cap = 16, i;

	if (max_entries > (1u << 30))
		return UET_ERR_INVAL;
	while (cap < 2 * max_entries)
		cap <<= 1;
	m->keys = calloc(cap, sizeof(*m->keys));
	m->vals = malloc(cap * sizeof(*m->vals));
	if (m->keys == NULL || m->vals == NULL) {
		uet_hmap_fini(m);
		return UET_ERR_NOMEM;
	}
	for (i = 0; i < cap; i++)
		m->vals[i] = UINT32_MAX;
	m->mask = cap - 1;
	m->n = 0;
	m->max = max_entries;
	return 0;
}

void
uet_hmap_fini(struct uet_hmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->n = m->max = m->mask = 0;
}

static inline uint32_t
slot_of(const struct uet_hmap *m, uint64_t key)
{
	return (uint32_t)uet_mix64(key) & m->mask;
}

bool
uet_hmap_get(const struct uet_hmap *m, uint64_t key, uint32_t *val)
{
	uint32_t i;

	if (m->vals == NULL)
		return false;
	for (i = slot_of(m, key); m->vals[i] != UINT32_MAX; i = (i + 1) & m->mask) {
		if (m->keys[i] == key) {
			if (val != NULL)
				*val = m->vals[i];
			return true;
		}
	}
	return false;
}

int
uet_hmap_put(struct uet_hmap *m, uint64_t key, uint32_t val)
{
	uint32_t i;

	assert(val != UINT32_MAX);
	for (i = slot_of(m, key); m->vals[i] != UINT32_MAX; i = (i + 1) & m->mask) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	}
	if (m->n >= m->max)
		return UET_ERR_NOBUFS;
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return 0;
}

bool
uet_hmap_del(struct uet_hmap *m, uint64_t key)
{
	uint32_t i, j;

	for (i = slot_of(m, key); m->vals[i] != UINT32_MAX; i = (i + 1) & m->mask) {
		if (m->keys[i] == key)
			break;
	}
	if (m->vals[i] == UINT32_MAX)
		return false;
	/* Backward-shift: pull later members of the probe run into the hole
	 * so lookups never need tombstones. */
	for (j = (i + 1) & m->mask; m->vals[j] != UINT32_MAX; j = (j + 1) & m->mask) {
		uint32_t home = slot_of(m, m->keys[j]);

		/* j may move to i only if its home is not in (i, j]. */
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->vals[i] = UINT32_MAX;
	m->n--;
	return true;
}
