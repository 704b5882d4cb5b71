/* SPDX-License-Identifier: BSD-3-Clause */
#include "base/csum.h"

#include <stdbool.h>
#include <string.h>

/* 64-bit accumulator to 32 bits, carries folded back in. */
static inline uint32_t
fold64(uint64_t acc)
{
	acc = (acc & 0xffffffffULL) + (acc >> 32);
	acc = (acc & 0xffffffffULL) + (acc >> 32);
	return (uint32_t)acc;
}

/* Ones'-complement sum of 32-bit native words into 64 bits; folding at
 * the end gives the same sum as 16-bit big-endian words, byte-swapped on
 * little-endian hosts, which the native-order store undoes. With copy,
 * each piece also goes to d as it is read (copy is a constant wherever
 * this is inlined). Always inline: the vector functions sum their tails
 * with it, and a call out of them is a way out that must clear the vector
 * state first (see csum_avx2). */
static inline __attribute__((always_inline)) uint64_t
csum_words(uint8_t *d, const uint8_t *p, size_t len, uint64_t acc, bool copy)
{
	while (len >= 32) {
		uint32_t w[8];

		memcpy(w, p, sizeof(w));
		if (copy) {
			memcpy(d, w, sizeof(w));
			d += 32;
		}
		acc += (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4] + w[5] + w[6] + w[7];
		p += 32;
		len -= 32;
	}
	while (len >= 4) {
		uint32_t w;

		memcpy(&w, p, 4);
		if (copy) {
			memcpy(d, &w, 4);
			d += 4;
		}
		acc += w;
		p += 4;
		len -= 4;
	}
	if (len > 0) {
		uint8_t tail[4] = { 0, 0, 0, 0 };
		uint32_t w;

		memcpy(tail, p, len);
		if (copy)
			memcpy(d, tail, len);
		memcpy(&w, tail, 4);
		acc += w;
	}
	return acc;
}

uint32_t
uet_csum_partial_scalar(const void *buf, size_t len, uint32_t sum)
{
	return fold64(csum_words(NULL, buf, len, sum, false));
}

uint32_t
uet_csum_copy_scalar(void *dst, const void *src, size_t len, uint32_t sum)
{
	return fold64(csum_words(dst, src, len, sum, true));
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* Without a NIC's checksum offload (memif, af_packet, ring) both ends sum
 * every payload byte: at 4 KiB that was a fifth of a core's time per
 * packet. AVX2 sums four 32-bit halves of 64-bit lanes at a time, about
 * three times faster; the baseline build keeps the scalar loop, which beats
 * the same vector code lowered to SSE2.
 *
 * These functions leave only through their own ret, after the loop's
 * tail is summed inline: GCC 12 puts a vzeroupper before a ret, but not
 * before a tail call to a static function of the same file, and such a
 * jump out of the vector loop once left the upper halves of the ymm
 * registers dirty. On Intel cores every later non-VEX SSE instruction
 * (memcpy, the frame code, the endpoint's) then paid a state transition
 * of some 100 ns. tests/check_avx_sse.py fails the build's tests if a way
 * out without vzeroupper comes back. */
typedef uint64_t csum_v4 __attribute__((vector_size(32)));

/* Add a 64-byte block's four 32-bit halves per lane: a lane gains < 2^32
 * per 64 bytes, so no overflow below 2^38 B. */
#define CSUM_V4_ADD(x, y)                                                                  \
	do {                                                                               \
		a += (x) & lo32;                                                           \
		b += (x) >> 32;                                                            \
		c += (y) & lo32;                                                           \
		d += (y) >> 32;                                                            \
	} while (0)

static inline __attribute__((always_inline, target("avx2"))) uint64_t
csum_v4_total(csum_v4 a, csum_v4 b, csum_v4 c, csum_v4 d, uint64_t acc)
{
	int i;

	a += b + c + d;
	for (i = 0; i < 4; i++)
		acc += (a[i] & 0xffffffffULL) + (a[i] >> 32);
	return acc;
}

/* The vector loop; with copy (a constant wherever it is inlined) each
 * block also goes to q. */
static inline __attribute__((always_inline, target("avx2"))) uint32_t
csum_v4_run(uint8_t *q, const uint8_t *p, size_t len, uint32_t sum, bool copy)
{
	const csum_v4 lo32 = { 0xffffffffULL, 0xffffffffULL, 0xffffffffULL, 0xffffffffULL };
	csum_v4 a = { 0, 0, 0, 0 }, b = a, c = a, d = a;

	while (len >= 64) {
		csum_v4 x, y;

		memcpy(&x, p, sizeof(x));
		memcpy(&y, p + 32, sizeof(y));
		if (copy) {
			memcpy(q, &x, sizeof(x));
			memcpy(q + 32, &y, sizeof(y));
			q += 64;
		}
		CSUM_V4_ADD(x, y);
		p += 64;
		len -= 64;
	}
	return fold64(csum_words(q, p, len, csum_v4_total(a, b, c, d, sum), copy));
}

__attribute__((target("avx2"))) static uint32_t
csum_avx2(const void *buf, size_t len, uint32_t sum)
{
	return csum_v4_run(NULL, buf, len, sum, false);
}

__attribute__((target("avx2"))) static uint32_t
csum_copy_avx2(void *dst, const void *src, size_t len, uint32_t sum)
{
	return csum_v4_run(dst, src, len, sum, true);
}

typedef uint32_t csum_fn(const void *, size_t, uint32_t);
typedef uint32_t csum_copy_fn(void *, const void *, size_t, uint32_t);

/* Run at relocation time, before any sanitizer runtime is up. */
__attribute__((no_sanitize_address, no_sanitize_undefined)) static csum_fn *
csum_resolve(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") ? csum_avx2 : uet_csum_partial_scalar;
}

__attribute__((no_sanitize_address, no_sanitize_undefined)) static csum_copy_fn *
csum_copy_resolve(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") ? csum_copy_avx2 : uet_csum_copy_scalar;
}

uint32_t uet_csum_partial(const void *buf, size_t len, uint32_t sum)
	__attribute__((ifunc("csum_resolve")));
uint32_t uet_csum_copy(void *dst, const void *src, size_t len, uint32_t sum)
	__attribute__((ifunc("csum_copy_resolve")));
#else
uint32_t
uet_csum_partial(const void *buf, size_t len, uint32_t sum)
{
	return uet_csum_partial_scalar(buf, len, sum);
}

uint32_t
uet_csum_copy(void *dst, const void *src, size_t len, uint32_t sum)
{
	return uet_csum_copy_scalar(dst, src, len, sum);
}
#endif
