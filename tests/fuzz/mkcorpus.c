/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes the seed corpora of the fuzz targets:
 *   mkcorpus DIR_WIRE DIR_ENDPOINT
 * wire: one encoded header of every kind the codec speaks;
 * endpoint: records (fuzz_endpoint.c format) of the packets the fuzz
 * target's own scene exchanges next, so mutations start from valid PDCs,
 * and the same from a stranger's address.
 */
#include <stdio.h>

#include "fuzz_ep.h"
#include "uet/wire.h"

static int
write_file(const char *dir, const char *name, const uint8_t *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(p, 1, n, f) != n) {
		perror(path);
		if (f != NULL)
			fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

struct recbuf {
	uint8_t data[65536];
	size_t len;
	int only;      /* -1 all, 0 to A, 1 to B */
	bool stranger; /* as if sent from outside the scene */
};

static void
rec(void *ctx, int to_b, const uint8_t *pkt, size_t n)
{
	struct recbuf *r = ctx;

	if ((r->only >= 0 && r->only != to_b) || r->len + 3 + n > sizeof(r->data))
		return;
	r->data[r->len] = (uint8_t)(to_b ? 1 : 0);
	r->data[r->len + 1] = (uint8_t)((n >> 8) | (r->stranger ? 0x80 : 0));
	r->data[r->len + 2] = (uint8_t)n;
	memcpy(r->data + r->len + 3, pkt, n);
	r->len += 3 + n;
}

int
main(int argc, char **argv)
{
	static const struct { uint8_t type, nh; const char *name; } kinds[] = {
		{ UET_PDS_RUD_REQ, UET_NH_REQ_STD, "rud_ses" },
		{ UET_PDS_RUD_REQ, UET_NH_NONE, "rud" },
		{ UET_PDS_ACK, UET_NH_NONE, "ack" },
		{ UET_PDS_ACK_CC, UET_NH_NONE, "ack_cc" },
		{ UET_PDS_NACK, UET_NH_NONE, "nack" },
		{ UET_PDS_CTRL, UET_CTL_PROBE, "probe" },
		{ UET_PDS_CTRL, UET_CTL_CLOSE, "close" },
		{ UET_PDS_CTRL, UET_CTL_CREDIT, "credit" },
		{ UET_PDS_CTRL, UET_CTL_CREDIT_REQ, "credit_req" },
	};
	struct recbuf *r = calloc(1, sizeof(*r));
	struct fz_side a, b;
	size_t i;
	int j;

	if (argc != 3 || r == NULL) {
		fprintf(stderr, "usage: mkcorpus DIR_WIRE DIR_ENDPOINT\n");
		return 2;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct uet_hdr h;
		uint8_t buf[128];
		int n;

		memset(&h, 0, sizeof(h));
		h.type = kinds[i].type;
		h.nh = kinds[i].nh;
		h.flags = UET_REQ_F_AR;
		h.psn = 1000;
		h.spdcid = 1;
		h.dpdcid = 2;
		h.ses.opcode = UET_SES_SEND;
		h.ses.flags = UET_SES_F_SOM | UET_SES_F_EOM;
		h.ses.request_len = 8;
		h.mpr = 8;
		h.sack_bitmap = 0xf0f0;
		n = uet_hdr_encode(&h, buf, sizeof(buf));
		if (n < 0)
			return 1;
		memcpy(buf + n, "payload!", 8);
		if (write_file(argv[1], kinds[i].name, buf, (size_t)n + 8) < 0)
			return 1;
	}
	for (j = -1; j <= 2; j++) {
		static const char *names[] = { "all", "to_a", "to_b", "from_stranger" };

		if (fz_scene(&a, &b, 1000) < 0)
			return 1;
		r->len = 0;
		r->only = j == 2 ? -1 : j;
		r->stranger = j == 2;
		fz_exchange(&a, &b, 1000, 4, rec, r);
		if (write_file(argv[2], names[j + 1], r->data, r->len) < 0)
			return 1;
		uet_ep_destroy(a.ep);
		uet_ep_destroy(b.ep);
	}
	free(r);
	return 0;
}
