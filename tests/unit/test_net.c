/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/net: Ethernet/IPv4/UDP framing, checksums, CE marking, trimming, pcap. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "base/csum.h"
#include "uet/frame.h"
#include "net/pcapw.h"
#include "uet/err.h"
#include "uet/wire.h"

static void
fill_tx(struct uet_frame_tx *t)
{
	static const uint8_t a[6] = { 2, 0, 0, 0, 0, 1 }, b[6] = { 2, 0, 0, 0, 0, 2 };

	memset(t, 0, sizeof(*t));
	memcpy(t->src_mac, a, 6);
	memcpy(t->dst_mac, b, 6);
	t->src_ip = 0x0a000001;
	t->dst_ip = 0x0a000002;
	t->sport = 50123;
	t->dport = UET_UDP_PORT;
	t->dscp = 10;
	t->ecn = UET_ECN_ECT0;
	t->ip_id = 77;
}

static void
test_encap_decap(void **state)
{
	uint8_t f[2048];
	struct uet_frame_tx t;
	struct uet_frame_rx r;
	size_t i, plen = 1001; /* odd, to exercise the checksum tail */
	int n;

	(void)state;
	fill_tx(&t);
	for (i = 0; i < plen; i++)
		f[UET_FRAME_HDR_LEN + i] = (uint8_t)(i * 31 + 7);
	n = uet_frame_encap(f, sizeof(f), &t, plen, true);
	assert_int_equal(n, UET_FRAME_HDR_LEN + plen);
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), 0);
	assert_int_equal(r.src_ip, t.src_ip);
	assert_int_equal(r.dst_ip, t.dst_ip);
	assert_int_equal(r.sport, 50123);
	assert_int_equal(r.dport, UET_UDP_PORT);
	assert_int_equal(r.dscp, 10);
	assert_int_equal(r.ecn, UET_ECN_ECT0);
	assert_int_equal(r.payload_off, UET_FRAME_HDR_LEN);
	assert_int_equal(r.payload_len, plen);
	assert_memory_equal(r.src_mac, t.src_mac, 6);

	/* Every single-bit flip in the IPv4+UDP part is caught by a checksum
	 * or a length check. */
	for (i = UET_ETH_HLEN; i < (size_t)n; i++) {
		int bit;

		for (bit = 0; bit < 8; bit++) {
			f[i] ^= (uint8_t)(1 << bit);
			assert_int_not_equal(uet_frame_decap(f, (size_t)n, &r,
							     UET_FRAME_VERIFY_CSUM), 0);
			f[i] ^= (uint8_t)(1 << bit);
		}
	}
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), 0);
	/* Without a UDP checksum the frame still parses. */
	n = uet_frame_encap(f, sizeof(f), &t, plen, false);
	assert_int_equal(f[UET_ETH_HLEN + 20 + 6], 0);
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), 0);
	assert_int_equal(uet_frame_encap(f, 100, &t, plen, true), UET_ERR_BUFSIZE);
	/* A zero tail the sum skips gives the same checksum: an even and an
	 * odd number of bytes summed, and a tail covering a zero payload. */
	{
		static const uint32_t tails[] = { 300, 301, 5000 };
		uint8_t want[2];
		size_t k;

		memset(f + UET_FRAME_HDR_LEN + 700, 0, plen - 700); /* the last 301 */
		for (k = 0; k < sizeof(tails) / sizeof(tails[0]); k++) {
			if (tails[k] > plen)
				memset(f + UET_FRAME_HDR_LEN, 0, plen);
			t.zero_tail = 0;
			(void)uet_frame_encap(f, sizeof(f), &t, plen, true);
			memcpy(want, f + UET_ETH_HLEN + 20 + 6, 2);
			t.zero_tail = tails[k];
			n = uet_frame_encap(f, sizeof(f), &t, plen, true);
			assert_memory_equal(f + UET_ETH_HLEN + 20 + 6, want, 2);
			assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), 0);
		}
		/* Skipping bytes that are not zero is caught by the receiver. */
		f[UET_FRAME_HDR_LEN + plen - 1] = 1;
		t.zero_tail = 1;
		n = uet_frame_encap(f, sizeof(f), &t, plen, true);
		assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM),
				 UET_ERR_CHECKSUM);
		t.zero_tail = 0;
	}
	/* A NACK (16 bytes of UDP payload) makes a 58-byte frame: padded with
	 * zeros to the Ethernet minimum, outside the IP length, and parsed
	 * back to its 16 bytes. */
	memset(f, 0xee, sizeof(f));
	memset(f + UET_FRAME_HDR_LEN, 0x5a, 16);
	n = uet_frame_encap(f, sizeof(f), &t, 16, true);
	assert_int_equal(n, UET_ETH_MIN_FRAME);
	assert_int_equal(f[UET_FRAME_HDR_LEN + 16], 0);
	assert_int_equal(f[UET_ETH_MIN_FRAME - 1], 0);
	assert_int_equal(uet_get_be16(f + UET_ETH_HLEN + 2), 20 + 8 + 16);
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), 0);
	assert_int_equal(r.payload_len, 16);
	/* No room for the padding: the bare frame. */
	assert_int_equal(uet_frame_encap(f, 58, &t, 16, true), 58);
	t.dscp = 64;
	assert_int_equal(uet_frame_encap(f, sizeof(f), &t, plen, true), UET_ERR_INVAL);
}

static void
test_decap_rejects(void **state)
{
	uint8_t f[256];
	struct uet_frame_tx t;
	struct uet_frame_rx r;
	size_t cut;
	int n;

	(void)state;
	fill_tx(&t);
	memset(f + UET_FRAME_HDR_LEN, 0xab, 64);
	n = uet_frame_encap(f, sizeof(f), &t, 64, true);
	for (cut = 0; cut < UET_FRAME_HDR_LEN; cut++)
		assert_int_equal(uet_frame_decap(f, cut, &r, 0), UET_ERR_MALFORMED);
	/* IP total length larger than the frame */
	assert_int_equal(uet_frame_decap(f, (size_t)n - 1, &r, 0), UET_ERR_MALFORMED);
	/* ARP is not UET */
	uet_put_be16(f + 12, UET_ETHERTYPE_ARP);
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, 0), UET_ERR_NOT_UET);
	uet_put_be16(f + 12, UET_ETHERTYPE_IPV4);
	/* TCP is not UET */
	f[UET_ETH_HLEN + 9] = 6;
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, 0), UET_ERR_NOT_UET);
	f[UET_ETH_HLEN + 9] = 17;
	/* A fragment */
	uet_put_be16(f + UET_ETH_HLEN + 6, 0x2000);
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, 0), UET_ERR_MALFORMED);
	uet_put_be16(f + UET_ETH_HLEN + 6, 0x4000);
	/* UDP length beyond the IP payload */
	uet_put_be16(f + UET_ETH_HLEN + 20 + 4, 200);
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, 0), UET_ERR_MALFORMED);
}

static void
test_vlan(void **state)
{
	uint8_t f[256], v[260];
	struct uet_frame_tx t;
	struct uet_frame_rx r;
	int n;

	(void)state;
	fill_tx(&t);
	memset(f + UET_FRAME_HDR_LEN, 1, 20);
	n = uet_frame_encap(f, sizeof(f), &t, 20, true);
	memcpy(v, f, 12);
	uet_put_be16(v + 12, UET_ETHERTYPE_VLAN);
	uet_put_be16(v + 14, 100);
	memcpy(v + 16, f + 12, (size_t)n - 12);
	assert_int_equal(uet_frame_decap(v, (size_t)n + 4, &r, UET_FRAME_VERIFY_CSUM), 0);
	assert_int_equal(r.l3_off, 18);
	assert_int_equal(r.payload_off, UET_FRAME_HDR_LEN + 4);
	assert_int_equal(r.payload_len, 20);
}

static void
test_mark_ce_and_trim(void **state)
{
	uint8_t f[2048];
	struct uet_frame_tx t;
	struct uet_frame_rx r;
	int n;

	(void)state;
	fill_tx(&t);
	memset(f + UET_FRAME_HDR_LEN, 0x5a, 1500);
	n = uet_frame_encap(f, sizeof(f), &t, 1500, true);
	assert_true(uet_frame_mark_ce(f, UET_ETH_HLEN));
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), 0);
	assert_int_equal(r.ecn, UET_ECN_CE);
	assert_int_equal(r.dscp, 10);
	assert_true(uet_frame_mark_ce(f, UET_ETH_HLEN)); /* already CE */

	n = uet_frame_trim(f, (size_t)n, UET_ETH_HLEN, UET_FRAME_HDR_LEN + UET_DATA_HDR_LEN, 18);
	assert_int_equal(n, UET_FRAME_HDR_LEN + UET_DATA_HDR_LEN);
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), 0);
	assert_int_equal(r.dscp, 18);
	assert_int_equal(r.ecn, UET_ECN_CE);
	assert_int_equal(r.payload_len, UET_DATA_HDR_LEN);
	assert_int_equal(uet_frame_trim(f, (size_t)n, UET_ETH_HLEN, 10, 18), UET_ERR_INVAL);

	/* A frame corrupted before it is trimmed stays detectably corrupted. */
	t.ecn = UET_ECN_ECT0;
	memset(f + UET_FRAME_HDR_LEN, 0x5a, 1500);
	n = uet_frame_encap(f, sizeof(f), &t, 1500, true);
	f[UET_FRAME_HDR_LEN + 3] ^= 0x10; /* in the part the trim keeps */
	n = uet_frame_trim(f, (size_t)n, UET_ETH_HLEN, UET_FRAME_HDR_LEN + UET_DATA_HDR_LEN, 18);
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), UET_ERR_CHECKSUM);
	memset(f + UET_FRAME_HDR_LEN, 0x5a, 1500);
	n = uet_frame_encap(f, sizeof(f), &t, 1500, true);
	f[UET_FRAME_HDR_LEN + 1400] ^= 0x10; /* in the part the trim drops */
	n = uet_frame_trim(f, (size_t)n, UET_ETH_HLEN, UET_FRAME_HDR_LEN + UET_DATA_HDR_LEN, 18);
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), UET_ERR_CHECKSUM);
	/* The UDP length itself, past the frame or short of its header:
	 * nothing to sum it over, and still wrong after the trim. */
	memset(f + UET_FRAME_HDR_LEN, 0x5a, 1500);
	n = uet_frame_encap(f, sizeof(f), &t, 1500, true);
	f[UET_ETH_HLEN + UET_IPV4_HLEN + 4] ^= 0x19;
	n = uet_frame_trim(f, (size_t)n, UET_ETH_HLEN, UET_FRAME_HDR_LEN + UET_DATA_HDR_LEN, 18);
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), UET_ERR_CHECKSUM);
	memset(f + UET_FRAME_HDR_LEN, 0x5a, 1500);
	n = uet_frame_encap(f, sizeof(f), &t, 1500, true);
	f[UET_ETH_HLEN + UET_IPV4_HLEN + 4] = 0;
	f[UET_ETH_HLEN + UET_IPV4_HLEN + 5] = 4;
	n = uet_frame_trim(f, (size_t)n, UET_ETH_HLEN, UET_FRAME_HDR_LEN + UET_DATA_HDR_LEN, 18);
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), UET_ERR_CHECKSUM);

	/* Not-ECT packets are never marked. */
	t.ecn = UET_ECN_NOT_ECT;
	n = uet_frame_encap(f, sizeof(f), &t, 10, true);
	assert_false(uet_frame_mark_ce(f, UET_ETH_HLEN));
	assert_int_equal(uet_frame_decap(f, (size_t)n, &r, UET_FRAME_VERIFY_CSUM), 0);
	assert_int_equal(r.ecn, UET_ECN_NOT_ECT);
}

/* The golden frames' checksums (computed by Python) verify with ours. */
static void
test_golden_checksums(void **state)
{
	char path[1024], err[PCAP_ERRBUF_SIZE];
	const char *dir = getenv("UET_TEST_DATA");
	struct pcap_pkthdr *h;
	struct uet_frame_rx r;
	const u_char *d;
	pcap_t *pc;
	int n = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/uet_test.pcap", dir ? dir : "tests/data");
	pc = pcap_open_offline(path, err);
	assert_non_null(pc);
	while (pcap_next_ex(pc, &h, &d) == 1) {
		assert_int_equal(uet_frame_decap(d, h->caplen, &r, UET_FRAME_VERIFY_CSUM), 0);
		assert_int_equal(r.dport, UET_UDP_PORT);
		assert_int_equal(r.sport, 50000 + n);
		n++;
	}
	pcap_close(pc);
	assert_int_equal(n, 6);
}

/* RFC 1071 the slow way: 16-bit big-endian words, odd byte padded. */
static uint16_t
ref_csum(const uint8_t *p, size_t len, uint32_t init)
{
	uint64_t s = init;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The sum may run a vector loop on some CPUs: every length around the
 * vector strides, every alignment, all-ones data (the carry-heavy case)
 * and a jumbo frame must fold to the byte-wise sum. */
/* Both the dispatched sum (AVX2 on most x86-64) and the portable loop. */
static void
test_csum_matches_reference(void **state)
{
	static uint8_t buf[9216 + 64];
	uint32_t (*const fn[2])(const void *, size_t, uint32_t) = {
		uet_csum_partial, uet_csum_partial_scalar,
	};
	size_t len, off, checked = 0;
	uint32_t seed = 12345;
	int pass, k;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		for (len = 0; len < sizeof(buf) - 64; len++)
			buf[len] = pass ? 0xff : (uint8_t)((seed = seed * 1103515245u + 12345u) >> 16);
		for (k = 0; k < 2; k++) {
			for (off = 0; off < 8; off++)
				for (len = 0; len <= 300; len++) {
					uint16_t got = ntohs(uet_csum_fold(fn[k](buf + off, len, 0)));

					assert_int_equal(got, ref_csum(buf + off, len, 0));
					checked++;
				}
			for (len = 4000; len <= 9216; len += 97) {
				uint16_t got = ntohs(uet_csum_fold(fn[k](buf + 3, len, 0)));

				assert_int_equal(got, ref_csum(buf + 3, len, 0));
				checked++;
			}
		}
	}
	assert_int_equal(checked, 2 * 2 * (8 * 301 + 54));
}

/* The fused copy-and-sum (dispatched and portable): the same sum as
 * uet_csum_partial over the source, the same bytes as memcpy, nothing
 * written past len, at every length around the vector strides and every
 * alignment of both buffers. */
static void
test_csum_copy(void **state)
{
	static uint8_t src[9216 + 64], dst[9216 + 128];
	uint32_t (*const fn[2])(void *, const void *, size_t, uint32_t) = {
		uet_csum_copy, uet_csum_copy_scalar,
	};
	size_t len, so, doff, checked = 0, i;
	uint32_t seed = 777;
	int pass, k;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < sizeof(src); i++)
			src[i] = pass ? 0xff : (uint8_t)((seed = seed * 1103515245u + 12345u) >> 16);
		for (k = 0; k < 2; k++)
			for (so = 0; so < 4; so++)
				for (doff = 0; doff < 4; doff++)
					for (len = 0; len <= 9216; len += len < 200 ? 1 : 509) {
						uint32_t want = uet_csum_partial_scalar(src + so, len, 99);

						memset(dst, 0xa5, sizeof(dst));
						assert_int_equal(fn[k](dst + doff, src + so, len, 99), want);
						assert_memory_equal(dst + doff, src + so, len);
						for (i = 0; i < doff; i++)
							assert_int_equal(dst[i], 0xa5);
						assert_int_equal(dst[doff + len], 0xa5);
						checked++;
					}
	}
	assert_int_equal(checked, 2 * 2 * 4 * 4 * (200 + 18));
}

/* A payload sum handed to uet_frame_encap (the endpoint's, taken as it
 * copied the data in) gives the very frame that summing it there gives. */
static void
test_encap_payload_sum(void **state)
{
	uint8_t f1[9216], f2[9216];
	struct uet_frame_tx t;
	struct uet_frame_rx r;
	size_t plen;
	int n1, n2;

	(void)state;
	for (plen = 1; plen <= 9000; plen = plen * 3 + 1) {
		size_t i;

		fill_tx(&t);
		for (i = 0; i < plen; i++)
			f1[UET_FRAME_HDR_LEN + i] = (uint8_t)(i * 7 + plen);
		memcpy(f2, f1, sizeof(f2));
		n1 = uet_frame_encap(f1, sizeof(f1), &t, plen, true);
		t.payload_sum_valid = true;
		t.payload_sum = uet_csum_partial(f2 + UET_FRAME_HDR_LEN, plen, 0);
		n2 = uet_frame_encap(f2, sizeof(f2), &t, plen, true);
		assert_int_equal(n1, n2);
		assert_memory_equal(f1, f2, (size_t)n1);
		assert_int_equal(uet_frame_decap(f2, (size_t)n2, &r, UET_FRAME_VERIFY_CSUM), 0);
		/* A wrong sum makes a frame the receiver drops. */
		t.payload_sum ^= 0x10;
		n2 = uet_frame_encap(f2, sizeof(f2), &t, plen, true);
		assert_int_equal(uet_frame_decap(f2, (size_t)n2, &r, UET_FRAME_VERIFY_CSUM),
				 UET_ERR_CHECKSUM);
	}
}

static void
test_pcap_roundtrip(void **state)
{
	char path[] = "/tmp/uet_test_pcap_XXXXXX", err[PCAP_ERRBUF_SIZE];
	struct uet_pcap *w;
	struct uet_frame_tx t;
	struct pcap_pkthdr *h;
	const u_char *d;
	uint8_t f[256];
	pcap_t *pc;
	int fd, n, i;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(uet_pcap_open(&w, path, 0), 0);
	fill_tx(&t);
	for (i = 0; i < 3; i++) {
		memset(f + UET_FRAME_HDR_LEN, i, 30);
		n = uet_frame_encap(f, sizeof(f), &t, 30, true);
		uet_pcap_write(w, 1000000000ULL * 5 + 123456789ULL + (uint64_t)i, f, (uint32_t)n);
	}
	assert_int_equal(uet_pcap_count(w), 3);
	uet_pcap_close(w);

	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	assert_non_null(pc);
	assert_int_equal(pcap_datalink(pc), DLT_EN10MB);
	for (i = 0; i < 3; i++) {
		assert_int_equal(pcap_next_ex(pc, &h, &d), 1);
		assert_int_equal(h->ts.tv_sec, 5);
		assert_int_equal(h->ts.tv_usec, 123456789 + i);
		assert_int_equal(h->caplen, UET_FRAME_HDR_LEN + 30);
		assert_int_equal(d[UET_FRAME_HDR_LEN], i);
	}
	pcap_close(pc);
	unlink(path);
	assert_int_equal(uet_pcap_open(&w, "/nonexistent-dir/x.pcap", 0), UET_ERR_INVAL);
}

static void
test_ip_parse(void **state)
{
	uint32_t ip;
	char buf[16];

	(void)state;
	assert_int_equal(uet_ip_parse("10.1.2.3", &ip), 0);
	assert_int_equal(ip, 0x0a010203);
	assert_string_equal(uet_ip_str(ip, buf), "10.1.2.3");
	assert_int_equal(uet_ip_parse("255.255.255.255", &ip), 0);
	assert_int_equal(uet_ip_parse("256.1.1.1", &ip), UET_ERR_INVAL);
	assert_int_equal(uet_ip_parse("1.2.3", &ip), UET_ERR_INVAL);
	assert_int_equal(uet_ip_parse("1.2.3.4.5", &ip), UET_ERR_INVAL);
	assert_int_equal(uet_ip_parse("a.b.c.d", &ip), UET_ERR_INVAL);
	assert_int_equal(uet_ip_parse("", &ip), UET_ERR_INVAL);
	assert_int_equal(uet_ip_parse("1..2.3", &ip), UET_ERR_INVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encap_decap),
		cmocka_unit_test(test_decap_rejects),
		cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_mark_ce_and_trim),
		cmocka_unit_test(test_golden_checksums),
		cmocka_unit_test(test_csum_matches_reference),
		cmocka_unit_test(test_csum_copy),
		cmocka_unit_test(test_encap_payload_sum),
		cmocka_unit_test(test_pcap_roundtrip),
		cmocka_unit_test(test_ip_parse),
	};

	return cmocka_run_group_tests_name("net", tests, NULL, NULL);
}
