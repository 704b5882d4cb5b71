/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the PDS/SES decoder, and the frame parser in front of
 * it. Whatever decodes must re-encode to the same bytes (for the fields the
 * codec keeps), and nothing may read out of bounds.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uet/frame.h"
#include "uet/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uet_frame_rx fr;
	struct uet_hdr h, h2;
	uint8_t out[UET_MAX_HDR_LEN];
	uint8_t *copy;
	int n, m;

	/* An exact-size heap copy, so ASan sees any over-read. */
	copy = malloc(size ? size : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	n = uet_hdr_decode(copy, size, &h);
	if (n > 0) {
		assert((size_t)n <= size && n == h.hdr_len);
		m = uet_hdr_encode(&h, out, sizeof(out));
		if (m > 0) {
			assert(m == n);
			assert(uet_hdr_decode(out, (size_t)m, &h2) == m);
			assert(h2.type == h.type && h2.psn == h.psn && h2.spdcid == h.spdcid &&
			       h2.dpdcid == h.dpdcid && h2.flags == h.flags);
		}
	}
	(void)uet_frame_decap(copy, size, &fr, UET_FRAME_VERIFY_CSUM);
	free(copy);
	return 0;
}
