/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_BASE_THEAP_H_
#define UET_BASE_THEAP_H_

#include <stdbool.h>
#include <stdint.h>

/*
 * Indexed binary min-heap of deadlines: at most one entry per id in
 * [0, cap). The endpoint keeps one entry per PDC (its earliest timer), so
 * "next deadline" is O(1) and re-arming is O(log n). Ties break on id, so
 * the order is a pure function of the operations.
 */
struct uet_theap_ent {
	uint64_t key;
	uint32_t id;
};

struct uet_theap {
	struct uet_theap_ent *h;
	uint32_t *pos; /* pos[id] = index in h, or UINT32_MAX if absent */
	uint32_t n;
	uint32_t cap;
};

int uet_theap_init(struct uet_theap *t, uint32_t cap);
void uet_theap_fini(struct uet_theap *t);

/* Insert id with key, or move it to key if present. */
void uet_theap_set(struct uet_theap *t, uint32_t id, uint64_t key);
/* Remove id if present. */
void uet_theap_del(struct uet_theap *t, uint32_t id);
bool uet_theap_contains(const struct uet_theap *t, uint32_t id);
/* Smallest entry; false when empty. */
bool uet_theap_top(const struct uet_theap *t, uint32_t *id, uint64_t *key);

#endif /* UET_BASE_THEAP_H_ */
