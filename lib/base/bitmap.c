/* SPDX-License-Identifier: BSD-3-Clause */
#include "base/bitmap.h"

uint32_t
uet_bit_ring_next_set(const uint64_t *w, uint32_t nbits, uint32_t from, uint32_t span)
{
	uint32_t done = 0;

	/* Walk word by word; the first word is masked below 'from'. */
	while (done < span) {
		uint32_t idx = (from + done) & (nbits - 1);
		uint32_t sh = idx & 63;
		uint64_t word = w[idx >> 6] >> sh;
		uint32_t avail = 64 - sh;

		if (avail > span - done)
			avail = span - done;
		if (avail < 64)
			word &= (1ULL << avail) - 1;
		if (word != 0)
			return done + (uint32_t)__builtin_ctzll(word);
		done += avail;
	}
	return UINT32_MAX;
}
