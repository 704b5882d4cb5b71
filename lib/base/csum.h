/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_BASE_CSUM_H_
#define UET_BASE_CSUM_H_

#include <stddef.h>
#include <stdint.h>

/*
 * One's-complement sums (RFC 1071) in native byte order: fold the result
 * with uet_csum_fold and store it in native order, and it is the Internet
 * checksum's. Partial sums of pieces that start at even offsets of the
 * summed region add up (with the carries folded) to the sum of the whole.
 *
 * uet_csum_partial and uet_csum_copy use the CPU's vector unit where there
 * is one (AVX2 on x86-64, chosen once when the program loads); the _scalar
 * forms are the portable loops, for tests and benchmarks to compare with.
 * The vector code leaves the upper halves of the vector registers clear
 * (vzeroupper) on every way out, which tests/check_avx_sse.py checks in the
 * built objects: Intel cores charge every later SSE instruction otherwise.
 */
uint32_t uet_csum_partial(const void *buf, size_t len, uint32_t sum);
uint32_t uet_csum_partial_scalar(const void *buf, size_t len, uint32_t sum);

/* Copy len bytes from src to dst (they must not overlap) and return
 * uet_csum_partial(src, len, sum): one pass over the bytes instead of a
 * copy and then a sum. */
uint32_t uet_csum_copy(void *dst, const void *src, size_t len, uint32_t sum);
uint32_t uet_csum_copy_scalar(void *dst, const void *src, size_t len, uint32_t sum);

/* Fold a 32-bit sum to 16 bits (not inverted). Inline: every frame folds
 * two or three sums. */
static inline uint16_t
uet_csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Add two 32-bit partial sums with the carry folded back in. */
static inline uint32_t
uet_csum_add(uint32_t a, uint32_t b)
{
	uint64_t s = (uint64_t)a + b;

	return (uint32_t)((s & 0xffffffffULL) + (s >> 32));
}

#endif
