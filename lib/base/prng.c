/* SPDX-License-Identifier: BSD-3-Clause */
#include "uet/prng.h"

static inline uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void
uet_prng_seed(struct uet_prng *r, uint64_t seed)
{
	uint64_t x = seed;
	int i;

	for (i = 0; i < 4; i++) {
		x += 0x9e3779b97f4a7c15ULL;
		r->s[i] = uet_mix64(x);
	}
	/* xoshiro must not start from the all-zero state. */
	if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
		r->s[0] = 1;
}

uint64_t
uet_prng_next(struct uet_prng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t
uet_prng_below(struct uet_prng *r, uint64_t n)
{
	unsigned __int128 m;
	uint64_t lo, thresh;

	if (n == 0)
		return 0;
	m = (unsigned __int128)uet_prng_next(r) * n;
	lo = (uint64_t)m;
	if (lo < n) {
		thresh = -n % n;
		while (lo < thresh) {
			m = (unsigned __int128)uet_prng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double
uet_prng_unit(struct uet_prng *r)
{
	return (double)(uet_prng_next(r) >> 11) * 0x1.0p-53;
}

int
uet_prng_chance_ppm(struct uet_prng *r, uint32_t ppm)
{
	if (ppm == 0)
		return 0;
	return uet_prng_below(r, 1000000) < ppm;
}
