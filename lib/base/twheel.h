/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_BASE_TWHEEL_H_
#define UET_BASE_TWHEEL_H_

#include <stdbool.h>
#include <stdint.h>

/*
 * Hashed timing wheel (Varghese and Lauck, scheme 6) of deadlines in ns:
 * at most one entry per id in [0, cap), slots of tick_ns, a power-of-two
 * number of slots. Arming, moving and cancelling are O(1) (a doubly linked
 * list per slot, kept in index arrays: nothing allocates after init);
 * expiry walks the slots the clock passed, so a poll loop that runs every
 * few hundred ns visits about one slot per call. A deadline beyond one
 * revolution stays in its slot and is skipped until its round comes. The
 * DPDK lcore loop keeps one entry per endpoint (its next deadline).
 */
struct uet_twheel {
	uint64_t *deadline_ns;  /* per id */
	uint32_t *next, *prev;  /* per id: slot list links; UINT32_MAX ends */
	uint32_t *slot_of;      /* per id: its slot, UINT32_MAX if not armed */
	uint32_t *head;         /* per slot */
	uint32_t cap, mask, armed;
	uint64_t tick_ns;
	uint64_t cur_tick;      /* slots before this tick are expired */
};

/* cap ids, nslots (rounded up to a power of two) of tick_ns each. 0 or
 * UET_ERR_INVAL (zero sizes) or UET_ERR_NOMEM. start_ns: the clock now. */
int uet_twheel_init(struct uet_twheel *w, uint32_t cap, uint32_t nslots, uint64_t tick_ns,
		    uint64_t start_ns);
void uet_twheel_fini(struct uet_twheel *w);
/* Arm id at deadline_ns, or move it there. A deadline already past fires
 * at the next expiry call. */
void uet_twheel_set(struct uet_twheel *w, uint32_t id, uint64_t deadline_ns);
void uet_twheel_del(struct uet_twheel *w, uint32_t id);
bool uet_twheel_armed(const struct uet_twheel *w, uint32_t id);
uint32_t uet_twheel_count(const struct uet_twheel *w);
/* One id whose deadline is <= now_ns, disarmed; false when none is due.
 * Call until false to run everything due. Deadlines fire in slot order
 * (within tick_ns of their order), never early. */
bool uet_twheel_pop(struct uet_twheel *w, uint64_t now_ns, uint32_t *id);

#endif /* UET_BASE_TWHEEL_H_ */
