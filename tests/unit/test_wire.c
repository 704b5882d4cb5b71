/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire codec: the six golden frames of tests/data/uet_test.pcap (built by
 * shared/reference/uet-golden/make_uet_pcap.py and decoded by Wireshark's UET
 * dissector into tests/data/uet_test.tshark.txt) decode to the values
 * Wireshark printed and re-encode to the same bytes; every other type
 * round-trips; truncation and bad fields are rejected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "uet/wire.h"

#define MAX_FRAMES 8

struct golden {
	uint8_t data[MAX_FRAMES][256];
	uint32_t len[MAX_FRAMES];
	int n;
};

static struct golden g;

static int
load_golden(void **state)
{
	char path[1024], err[PCAP_ERRBUF_SIZE];
	const char *dir = getenv("UET_TEST_DATA");
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *pc;

	(void)state;
	snprintf(path, sizeof(path), "%s/uet_test.pcap", dir ? dir : "tests/data");
	pc = pcap_open_offline(path, err);
	if (pc == NULL) {
		fprintf(stderr, "cannot open %s: %s\n", path, err);
		return -1;
	}
	g.n = 0;
	while (g.n < MAX_FRAMES && pcap_next_ex(pc, &h, &d) == 1) {
		memcpy(g.data[g.n], d, h->caplen);
		g.len[g.n] = h->caplen;
		g.n++;
	}
	pcap_close(pc);
	return g.n == 6 ? 0 : -1;
}

/* Ethernet 14 + IPv4 20 + UDP 8: the PDS header of a golden frame. */
#define PDS_OFF 42

static void
expect_reencode(const struct uet_hdr *h, int frame)
{
	uint8_t out[128];
	int n = uet_hdr_encode(h, out, sizeof(out));

	assert_int_equal(n, h->hdr_len);
	assert_memory_equal(out, g.data[frame] + PDS_OFF, (size_t)n);
}

static void
test_golden_rud_request(void **state)
{
	struct uet_hdr h;
	const uint8_t *pds = g.data[0] + PDS_OFF;

	(void)state;
	assert_int_equal(uet_hdr_decode(pds, g.len[0] - PDS_OFF, &h), 12);
	assert_int_equal(h.type, UET_PDS_RUD_REQ);
	assert_int_equal(h.nh, UET_NH_NONE);
	assert_int_equal(h.flags, UET_REQ_F_AR);
	assert_int_equal(h.off16, -5);        /* Clear PSN: 995 (-5) */
	assert_int_equal(h.psn, 1000);
	assert_int_equal(h.spdcid, 257);
	assert_int_equal(h.dpdcid, 514);
	assert_memory_equal(pds + 12, "payload!", 8);
	expect_reencode(&h, 0);
}

static void
test_golden_ses_std(void **state)
{
	struct uet_hdr h;
	const uint8_t *pds = g.data[1] + PDS_OFF;

	(void)state;
	assert_int_equal(uet_hdr_decode(pds, g.len[1] - PDS_OFF, &h), 56);
	assert_int_equal(h.type, UET_PDS_RUD_REQ);
	assert_int_equal(h.nh, UET_NH_REQ_STD);
	assert_int_equal(h.off16, -6);
	assert_int_equal(h.psn, 1001);
	assert_int_equal(h.ses.opcode, UET_SES_WRITE);
	assert_int_equal(h.ses.flags, UET_SES_F_REL | UET_SES_F_EOM | UET_SES_F_SOM);
	assert_int_equal(h.ses.msg_id, 7);
	assert_int_equal(h.ses.idx_gen, 1);
	assert_int_equal(h.ses.job_id, 291);
	assert_int_equal(h.ses.pid_on_fep, 5);
	assert_int_equal(h.ses.resource_index, 9);
	assert_int_equal(h.ses.buffer_offset, 4096);
	assert_int_equal(h.ses.initiator, 0x11223344);
	assert_int_equal(h.ses.match_bits, 0xaabbccddeeff0011ULL);
	assert_int_equal(h.ses.header_data, 0);
	assert_int_equal(h.ses.msg_offset, 0);
	assert_int_equal(h.ses.request_len, 4096);
	expect_reencode(&h, 1);
}

static void
test_golden_ack_cc(void **state)
{
	struct uet_nscc_state ns;
	struct uet_hdr h;

	(void)state;
	assert_int_equal(uet_hdr_decode(g.data[2] + PDS_OFF, g.len[2] - PDS_OFF, &h), 32);
	assert_int_equal(h.type, UET_PDS_ACK_CC);
	assert_int_equal(h.flags, UET_ACK_F_M);
	assert_int_equal(h.off16, 3);         /* ACK PSN: 1003 (+3) */
	assert_int_equal(h.psn, 1000);        /* Cumulative ACK PSN */
	assert_int_equal(h.spdcid, 514);
	assert_int_equal(h.dpdcid, 257);
	assert_int_equal(h.cc_type, UET_CC_TYPE_NSCC);
	assert_int_equal(h.mpr, 8);
	assert_int_equal(h.sack_psn_offset, 992);
	assert_int_equal(h.sack_bitmap, 0xdeadbeef0000ffffULL);
	uet_nscc_state_unpack(h.cc_state, &ns);
	assert_int_equal(ns.service_time, 1234);
	assert_int_equal(ns.rcvd_bytes, 65536);
	assert_int_equal(ns.ooo_count, 2);
	assert_int_equal(ns.restore_cwnd, 0);
	assert_int_equal(uet_nscc_state_pack(&ns), h.cc_state);
	expect_reencode(&h, 2);
}

static void
test_golden_nack(void **state)
{
	struct uet_hdr h;

	(void)state;
	assert_int_equal(uet_hdr_decode(g.data[3] + PDS_OFF, g.len[3] - PDS_OFF, &h), 16);
	assert_int_equal(h.type, UET_PDS_NACK);
	assert_int_equal(h.nack_code, UET_NACK_TRIMMED);
	assert_int_equal(h.nack_vendor, 0);
	assert_int_equal(h.psn, 1001);
	assert_int_equal(h.spdcid, 514);
	assert_int_equal(h.dpdcid, 257);
	assert_int_equal(h.payload32, 1004);  /* Max Recvd PSN + 1 */
	expect_reencode(&h, 3);
}

static void
test_golden_probe(void **state)
{
	struct uet_hdr h;

	(void)state;
	assert_int_equal(uet_hdr_decode(g.data[4] + PDS_OFF, g.len[4] - PDS_OFF, &h), 16);
	assert_int_equal(h.type, UET_PDS_CTRL);
	assert_int_equal(h.nh, UET_CTL_PROBE);
	assert_int_equal(h.flags, UET_REQ_F_AR);
	assert_int_equal((uint16_t)h.off16, 0xbeef); /* Probe Opaque */
	assert_int_equal(h.psn, 1002);
	assert_int_equal(h.payload32, 992);          /* SACK bitmap base PSN */
	expect_reencode(&h, 4);
}

static void
test_golden_truncated_ack_cc(void **state)
{
	struct uet_hdr h;

	(void)state;
	/* Wireshark: "Available length 10 is less than PDS Ack Ext Hdr length (20)" */
	assert_int_equal(g.len[5] - PDS_OFF, 22);
	assert_int_equal(uet_hdr_decode(g.data[5] + PDS_OFF, g.len[5] - PDS_OFF, &h),
			 UET_ERR_MALFORMED);
}

/* Every prefix of every golden header is rejected, never over-read. */
static void
test_every_truncation_rejected(void **state)
{
	struct uet_hdr h;
	int f, rc;
	size_t cut;

	(void)state;
	for (f = 0; f < 5; f++) {
		size_t full = (size_t)uet_hdr_decode(g.data[f] + PDS_OFF, g.len[f] - PDS_OFF, &h);

		for (cut = 0; cut < full; cut++) {
			uint8_t *copy = malloc(cut ? cut : 1);

			memcpy(copy, g.data[f] + PDS_OFF, cut);
			rc = uet_hdr_decode(copy, cut, &h);
			assert_int_equal(rc, UET_ERR_MALFORMED);
			free(copy);
		}
	}
}

static void
test_roundtrip_all_types(void **state)
{
	static const struct {
		uint8_t type, nh;
		int len;
	} cases[] = {
		{ UET_PDS_RUD_REQ, UET_NH_NONE, 12 },
		{ UET_PDS_RUD_REQ, UET_NH_REQ_STD, 56 },
		{ UET_PDS_ACK, UET_NH_NONE, 12 },
		{ UET_PDS_ACK_CC, UET_NH_NONE, 32 },
		{ UET_PDS_NACK, UET_NH_NONE, 16 },
		{ UET_PDS_CTRL, UET_CTL_CLOSE, 16 },
		{ UET_PDS_CTRL, UET_CTL_PROBE, 16 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct uet_hdr a, b;
		uint8_t buf[64];

		memset(&a, 0, sizeof(a));
		a.type = cases[i].type;
		a.nh = cases[i].nh;
		a.flags = 0x55 & 0x7f;
		a.spdcid = 0xabcd;
		a.dpdcid = 0x1234;
		a.psn = 0xfffffff0u;
		if (a.type != UET_PDS_NACK)
			a.off16 = -1234;
		a.nack_code = UET_NACK_PSN_OOR_WINDOW;
		a.nack_vendor = 7;
		if (a.type == UET_PDS_NACK || a.type == UET_PDS_CTRL)
			a.payload32 = 0x01020304;
		if (a.type == UET_PDS_ACK_CC) {
			a.cc_type = 1;
			a.cc_flags = 0xa;
			a.mpr = 200;
			a.sack_psn_offset = -7;
			a.sack_bitmap = 0x8000000000000001ULL;
			a.cc_state = 0x0123456789abcdefULL;
		}
		if (a.nh == UET_NH_REQ_STD && a.type == UET_PDS_RUD_REQ) {
			a.ses.opcode = UET_SES_SEND;
			a.ses.flags = UET_SES_F_EOM; /* not SOM: offset form */
			a.ses.msg_id = 65535;
			a.ses.job_id = 0xffffff;
			a.ses.pid_on_fep = 0xfff;
			a.ses.resource_index = 0xabc;
			a.ses.buffer_offset = 1;
			a.ses.initiator = 2;
			a.ses.match_bits = 3;
			a.ses.payload_len = 0x3fff;
			a.ses.msg_offset = 0xfffffff0u;
			a.ses.request_len = 0xffffffffu;
		}
		assert_int_equal(uet_hdr_encode(&a, buf, sizeof(buf)), cases[i].len);
		assert_int_equal(uet_hdr_decode(buf, (size_t)cases[i].len, &b), cases[i].len);
		assert_int_equal(b.type, a.type);
		assert_int_equal(b.nh, a.nh);
		assert_int_equal(b.flags, a.flags);
		assert_int_equal(b.psn, a.psn);
		assert_int_equal(b.spdcid, a.spdcid);
		assert_int_equal(b.dpdcid, a.dpdcid);
		if (a.type == UET_PDS_NACK) {
			assert_int_equal(b.nack_code, a.nack_code);
			assert_int_equal(b.nack_vendor, a.nack_vendor);
		} else {
			assert_int_equal(b.off16, a.off16);
		}
		if (a.type == UET_PDS_NACK || a.type == UET_PDS_CTRL)
			assert_int_equal(b.payload32, a.payload32);
		if (a.type == UET_PDS_ACK_CC) {
			assert_int_equal(b.cc_type, 1);
			assert_int_equal(b.cc_flags, 0xa);
			assert_int_equal(b.mpr, 200);
			assert_int_equal(b.sack_psn_offset, -7);
			assert_int_equal(b.sack_bitmap, a.sack_bitmap);
			assert_int_equal(b.cc_state, a.cc_state);
		}
		if (a.nh == UET_NH_REQ_STD && a.type == UET_PDS_RUD_REQ) {
			assert_int_equal(b.ses.msg_id, 65535);
			assert_int_equal(b.ses.job_id, 0xffffff);
			assert_int_equal(b.ses.pid_on_fep, 0xfff);
			assert_int_equal(b.ses.resource_index, 0xabc);
			assert_int_equal(b.ses.payload_len, 0x3fff);
			assert_int_equal(b.ses.msg_offset, 0xfffffff0u);
			assert_int_equal(b.ses.request_len, 0xffffffffu);
			assert_int_equal(b.ses.match_bits, 3);
		}
		/* A buffer one byte short is refused. */
		assert_int_equal(uet_hdr_encode(&a, buf, (size_t)cases[i].len - 1),
				 UET_ERR_BUFSIZE);
	}
}

static void
test_encode_rejects_bad_fields(void **state)
{
	struct uet_hdr h;
	uint8_t buf[64];

	(void)state;
	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_RUD_REQ;
	h.nh = UET_NH_REQ_STD;
	h.ses.job_id = 0x1000000;
	assert_int_equal(uet_hdr_encode(&h, buf, sizeof(buf)), UET_ERR_INVAL);
	h.ses.job_id = 0;
	h.ses.payload_len = 0x4000;
	assert_int_equal(uet_hdr_encode(&h, buf, sizeof(buf)), UET_ERR_INVAL);
	h.ses.payload_len = 0;
	h.flags = 0x80;
	assert_int_equal(uet_hdr_encode(&h, buf, sizeof(buf)), UET_ERR_INVAL);
	h.flags = 0;
	h.type = UET_PDS_ROD_REQ;
	assert_int_equal(uet_hdr_encode(&h, buf, sizeof(buf)), UET_ERR_INVAL);
	h.type = UET_PDS_RUD_REQ;
	h.nh = UET_NH_REQ_SMALL;
	assert_int_equal(uet_hdr_encode(&h, buf, sizeof(buf)), UET_ERR_INVAL);
}

static void
test_decode_types(void **state)
{
	uint8_t buf[64];
	struct uet_hdr h;
	int t;

	(void)state;
	memset(buf, 0, sizeof(buf));
	for (t = 0; t < 32; t++) {
		int rc;

		uet_put_be16(buf, (uint16_t)(t << 11));
		rc = uet_hdr_decode(buf, sizeof(buf), &h);
		switch (t) {
		case UET_PDS_RUD_REQ:
			assert_int_equal(rc, 12);
			break;
		case UET_PDS_ACK:
			assert_int_equal(rc, 12);
			break;
		case UET_PDS_ACK_CC:
			assert_int_equal(rc, 32);
			break;
		case UET_PDS_NACK:
		case UET_PDS_CTRL:
			assert_int_equal(rc, 16);
			break;
		case 1: case 3: case 4: case 5: case 6: case 9: case 12: case 13: case 14:
			assert_int_equal(rc, UET_ERR_UNSUPPORTED);
			break;
		default:
			assert_int_equal(rc, UET_ERR_MALFORMED);
		}
	}
	/* RUD request with a next header we do not parse, or an invalid one. */
	uet_put_be16(buf, (uint16_t)((UET_PDS_RUD_REQ << 11) | (UET_NH_REQ_SMALL << 7)));
	assert_int_equal(uet_hdr_decode(buf, sizeof(buf), &h), UET_ERR_UNSUPPORTED);
	uet_put_be16(buf, (uint16_t)((UET_PDS_RUD_REQ << 11) | (9 << 7)));
	assert_int_equal(uet_hdr_decode(buf, sizeof(buf), &h), UET_ERR_MALFORMED);
	/* SYN slot helpers */
	assert_int_equal(uet_syn_psn_offset(uet_syn_slot(4095)), 4095);
	assert_int_equal(uet_syn_psn_offset(0x8000 | 17), 17);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_rud_request),
		cmocka_unit_test(test_golden_ses_std),
		cmocka_unit_test(test_golden_ack_cc),
		cmocka_unit_test(test_golden_nack),
		cmocka_unit_test(test_golden_probe),
		cmocka_unit_test(test_golden_truncated_ack_cc),
		cmocka_unit_test(test_every_truncation_rejected),
		cmocka_unit_test(test_roundtrip_all_types),
		cmocka_unit_test(test_encode_rejects_bad_fields),
		cmocka_unit_test(test_decode_types),
	};

	return cmocka_run_group_tests_name("wire", tests, load_golden, NULL);
}
