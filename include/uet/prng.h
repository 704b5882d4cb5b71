/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PRNG_H_
#define UET_PRNG_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * xoshiro256** seeded through splitmix64. The only source of randomness in
 * the sans-I/O layers: each owner (endpoint, simulator) seeds its own from
 * the caller, so a run is a pure function of its seeds.
 */
struct uet_prng {
	uint64_t s[4];
};

void uet_prng_seed(struct uet_prng *r, uint64_t seed);
uint64_t uet_prng_next(struct uet_prng *r);

/* Uniform integer in [0, n); n == 0 returns 0. Lemire's multiply-shift with
 * rejection, so there is no modulo bias. */
uint64_t uet_prng_below(struct uet_prng *r, uint64_t n);

/* Uniform double in [0, 1). */
double uet_prng_unit(struct uet_prng *r);

/* true with probability ppm / 1e6. */
int uet_prng_chance_ppm(struct uet_prng *r, uint32_t ppm);

/* splitmix64 step, also a good 64-bit mixer for hashing. */
static inline uint64_t
uet_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#ifdef __cplusplus
}
#endif

#endif /* UET_PRNG_H_ */
