/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_BASE_BITMAP_H_
#define UET_BASE_BITMAP_H_

#include <stdbool.h>
#include <stdint.h>

/* Bit i of an array of 64-bit words: word i / 64, value bit i % 64. */
static inline void
uet_bit_set(uint64_t *w, uint32_t i)
{
	w[i >> 6] |= 1ULL << (i & 63);
}

static inline void
uet_bit_clear(uint64_t *w, uint32_t i)
{
	w[i >> 6] &= ~(1ULL << (i & 63));
}

static inline bool
uet_bit_test(const uint64_t *w, uint32_t i)
{
	return (w[i >> 6] >> (i & 63)) & 1;
}

/*
 * 64 bits of a ring of nbits (a multiple of 64, power of two) starting at
 * ring index start, which must be a multiple of 8: bit k of the result is
 * ring bit (start + k) mod nbits.
 */
static inline uint64_t
uet_bit_ring_get64(const uint64_t *w, uint32_t nbits, uint32_t start)
{
	uint32_t wi = (start & (nbits - 1)) >> 6, sh = start & 63;
	uint32_t nw = nbits >> 6;
	uint64_t lo = w[wi];

	if (sh == 0)
		return lo;
	return (lo >> sh) | (w[(wi + 1) % nw] << (64 - sh));
}

/* Scan span ring positions from 'from' (wrapping at nbits) and return the
 * offset k < span of the first set bit, i.e. bit (from + k) mod nbits is
 * set; UINT32_MAX if none is set. */
uint32_t uet_bit_ring_next_set(const uint64_t *w, uint32_t nbits, uint32_t from,
			       uint32_t span);

#endif /* UET_BASE_BITMAP_H_ */
