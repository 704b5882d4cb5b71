/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the endpoint's packet input. Two endpoints first open
 * PDCs and move some data (fuzz_ep.h) so there is state to hit; then the
 * input is a sequence of records, each a packet handed to one of them:
 *
 *   byte 0: bit 0 picks the endpoint (1: B), bit 1 sets CE, bits 2-3 the
 *           trimmed mark, bits 4-7 advance the clock by that many us
 *   bytes 1-2: bit 15 set: the packet comes from an address outside the
 *           scene (which may open no PDC) instead of the other endpoint;
 *           bits 0-14 the length L (big endian), then L bytes of UDP
 *           payload
 *
 * After each record both endpoints send what they want to the other and run
 * their timers. Sanitizers and the core's assertions catch misbehaviour;
 * at the end a clean exchange must leave both endpoints idle, with a new
 * message delivered or cleanly failed: nothing hangs.
 */
#include <assert.h>

#include "fuzz_ep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_side a, b;
	uint64_t now = 1000, before;
	size_t off = 0;
	bool sent;
	int i;

	if (fz_scene(&a, &b, now) < 0)
		abort();
	while (off + 3 <= size) {
		uint8_t ctl = data[off];
		size_t len = ((size_t)(data[off + 1] & 0x7f) << 8) | data[off + 2];
		bool stranger = data[off + 1] & 0x80;
		struct fz_side *to = (ctl & 1) ? &b : &a, *from = (ctl & 1) ? &a : &b;
		struct uet_rx_meta rm = { .src_ip = stranger ? FZ_STRANGER_IP : from->ip,
					  .ev = (uint16_t)(off * 31), .ce = (ctl >> 1) & 1,
					  .trimmed = (ctl >> 2) & 3 };
		uint8_t *pkt;

		off += 3;
		if (len > size - off)
			len = size - off;
		/* An exact-size copy so ASan catches any over-read. */
		pkt = malloc(len ? len : 1);
		memcpy(pkt, data + off, len);
		off += len;
		now += (uint64_t)(ctl >> 4) * 1000;
		uet_ep_read_pkt(to->ep, &rm, pkt, len, now);
		free(pkt);
		fz_exchange(&a, &b, now, 1, NULL, NULL);
	}
	/* The send may be refused while fuzzed SYNs fill A's PDC table; they
	 * are reclaimed after the target idle timeout, so keep trying. */
	before = b.delivered;
	sent = fz_send(&a, &b, 2000, 2, now) == 0;
	for (i = 0; i < 100000 && !(sent && uet_ep_idle(a.ep) && uet_ep_idle(b.ep) &&
				     uet_ep_next_deadline(a.ep) == UINT64_MAX &&
				     uet_ep_next_deadline(b.ep) == UINT64_MAX); i++) {
		uint64_t d = uet_ep_next_deadline(a.ep), e = uet_ep_next_deadline(b.ep);

		if (e < d)
			d = e;
		now = d == UINT64_MAX ? now + 1000 : (d > now ? d : now);
		fz_exchange(&a, &b, now, 1, NULL, NULL);
		if (!sent)
			sent = fz_send(&a, &b, 2000, 2, now) == 0;
	}
	assert(sent);
	assert(uet_ep_idle(a.ep) && uet_ep_idle(b.ep));
	assert(b.delivered > before || uet_ep_stats(a.ep)->msgs_failed > 0);
	uet_ep_destroy(a.ep);
	uet_ep_destroy(b.ep);
	return 0;
}
