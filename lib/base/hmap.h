/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_BASE_HMAP_H_
#define UET_BASE_HMAP_H_

#include <stdbool.h>
#include <stdint.h>

/*
 * Fixed-capacity open-addressing map from a 64-bit key to a 32-bit value
 * (linear probing, backward-shift delete, no tombstones). Sized once at
 * creation for at most max_entries at a load factor <= 0.5, so lookups stay
 * short and nothing allocates on the data path.
 */
struct uet_hmap {
	uint64_t *keys;
	uint32_t *vals; /* UINT32_MAX marks an empty slot */
	uint32_t mask;
	uint32_t n;
	uint32_t max;
};

int uet_hmap_init(struct uet_hmap *m, uint32_t max_entries);
void uet_hmap_fini(struct uet_hmap *m);
bool uet_hmap_get(const struct uet_hmap *m, uint64_t key, uint32_t *val);
/* Insert or replace. UET_ERR_NOBUFS when full; val must not be UINT32_MAX. */
int uet_hmap_put(struct uet_hmap *m, uint64_t key, uint32_t val);
bool uet_hmap_del(struct uet_hmap *m, uint64_t key);

#endif /* UET_BASE_HMAP_H_ */
