/* SPDX-License-Identifier: BSD-3-Clause */
#include "base/csum.h"
#include "uet/frame.h"

#include <stdio.h>
#include <string.h>

#include "uet/err.h"
#include "uet/wire.h"

void
uet_dscp_map_default(struct uet_dscp_map *m)
{
	m->tc[UET_TC_DATA] = 10;
	m->tc[UET_TC_RETX] = 12;
	m->tc[UET_TC_CONTROL] = 48;
	m->trimmed = 18;
	m->trimmed_lasthop = 20;
}

/* The sum of n 32-bit native words at p, inline: headers of a few words
 * are summed on every packet, where a call through the ifunc and its
 * tail loop cost more than the words. Same result as uet_csum_partial. */
static inline uint32_t
sum_words(const uint8_t *p, unsigned n)
{
	uint64_t acc = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		uint32_t w;

		memcpy(&w, p + 4 * i, 4);
		acc += w;
	}
	acc = (acc & 0xffffffffULL) + (acc >> 32);
	acc = (acc & 0xffffffffULL) + (acc >> 32);
	return (uint32_t)acc;
}

/* The sum of the 12-byte pseudo-header as sum_words would read it from
 * memory (big-endian fields in native words), without building it: bytes
 * stored one by one and read back as words stall the load. */
static inline uint32_t
pseudo_sum(uint32_t src_ip, uint32_t dst_ip, uint16_t udp_len)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t acc = (uint64_t)__builtin_bswap32(src_ip) + __builtin_bswap32(dst_ip) +
		       ((uint32_t)UET_IPPROTO_UDP << 8) +
		       ((uint32_t)__builtin_bswap16(udp_len) << 16);
#else
	uint64_t acc = (uint64_t)src_ip + dst_ip + ((uint32_t)UET_IPPROTO_UDP << 16) + udp_len;
#endif

	acc = (acc & 0xffffffffULL) + (acc >> 32);
	acc = (acc & 0xffffffffULL) + (acc >> 32);
	return (uint32_t)acc;
}

/* The IPv4 header's sum: ihl is a multiple of 4 (IHL counts words). */
static inline uint32_t
ip_hdr_sum(const uint8_t *ip, size_t ihl)
{
	return sum_words(ip, (unsigned)(ihl / 4));
}

/* Store a folded checksum so that re-summing the header gives 0xffff. */
static inline void
store_csum(uint8_t *p, uint32_t sum)
{
	uint16_t c = (uint16_t)~uet_csum_fold(sum);

	memcpy(p, &c, 2);
}

/* sum_len: the bytes of the datagram that are summed; the rest is zero.
 * payload_sum: the UDP payload's sum when the caller has it (then only the
 * UDP header is read), else NULL. */
static void
udp_csum_fill(uint8_t *ip, uint8_t *udp, uint16_t udp_len, size_t sum_len,
	      const uint32_t *payload_sum)
{
	uint32_t s;
	uint16_t c;

	udp[6] = udp[7] = 0;
	s = pseudo_sum(uet_get_be32(ip + 12), uet_get_be32(ip + 16), udp_len);
	if (payload_sum != NULL)
		s = uet_csum_add(uet_csum_add(s, sum_words(udp, UET_UDP_HLEN / 4)), *payload_sum);
	else
		s = uet_csum_partial(udp, sum_len, s);
	c = (uint16_t)~uet_csum_fold(s);
	/* A computed 0 is sent as 0xffff: 0 means "no checksum" (RFC 768). */
	if (c == 0)
		c = 0xffff;
	memcpy(udp + 6, &c, 2);
}

int
uet_frame_encap(uint8_t *f, size_t cap, const struct uet_frame_tx *t,
		size_t payload_len, bool udp_csum)
{
	uint8_t *ip = f + UET_ETH_HLEN, *udp = ip + UET_IPV4_HLEN;
	size_t udp_len = UET_UDP_HLEN + payload_len;
	size_t ip_len = UET_IPV4_HLEN + udp_len;

	if (t->dscp > 63 || t->ecn > 3)
		return UET_ERR_INVAL;
	if (ip_len > 0xffff)
		return UET_ERR_INVAL;
	if (cap < UET_ETH_HLEN + ip_len)
		return UET_ERR_BUFSIZE;

	memcpy(f, t->dst_mac, 6);
	memcpy(f + 6, t->src_mac, 6);
	uet_put_be16(f + 12, UET_ETHERTYPE_IPV4);

	ip[0] = 0x45;
	ip[1] = (uint8_t)((t->dscp << 2) | t->ecn);
	uet_put_be16(ip + 2, (uint16_t)ip_len);
	uet_put_be16(ip + 4, t->ip_id);
	uet_put_be16(ip + 6, 0x4000); /* DF: UET packets are never fragmented */
	ip[8] = t->ttl ? t->ttl : 64;
	ip[9] = UET_IPPROTO_UDP;
	ip[10] = ip[11] = 0;
	uet_put_be32(ip + 12, t->src_ip);
	uet_put_be32(ip + 16, t->dst_ip);
	store_csum(ip + 10, ip_hdr_sum(ip, UET_IPV4_HLEN));

	uet_put_be16(udp, t->sport);
	uet_put_be16(udp + 2, t->dport);
	uet_put_be16(udp + 4, (uint16_t)udp_len);
	udp[6] = udp[7] = 0;
	if (udp_csum)
		/* Zero bytes add nothing to a ones'-complement sum, wherever
		 * they are. */
		udp_csum_fill(ip, udp, (uint16_t)udp_len,
			      t->zero_tail < payload_len ? udp_len - t->zero_tail : UET_UDP_HLEN,
			      t->payload_sum_valid ? &t->payload_sum : NULL);
	if (UET_ETH_HLEN + ip_len < UET_ETH_MIN_FRAME && cap >= UET_ETH_MIN_FRAME) {
		memset(f + UET_ETH_HLEN + ip_len, 0, UET_ETH_MIN_FRAME - UET_ETH_HLEN - ip_len);
		return UET_ETH_MIN_FRAME;
	}
	return (int)(UET_ETH_HLEN + ip_len);
}

int
uet_frame_decap(const uint8_t *f, size_t len, struct uet_frame_rx *r, unsigned flags)
{
	size_t l3 = UET_ETH_HLEN, ihl, ip_len, udp_len;
	uint16_t etype;
	const uint8_t *ip, *udp;

	if (len < UET_ETH_HLEN)
		return UET_ERR_MALFORMED;
	memcpy(r->dst_mac, f, 6);
	memcpy(r->src_mac, f + 6, 6);
	etype = uet_get_be16(f + 12);
	if (etype == UET_ETHERTYPE_VLAN) {
		if (len < UET_ETH_HLEN + UET_VLAN_HLEN)
			return UET_ERR_MALFORMED;
		etype = uet_get_be16(f + 16);
		l3 += UET_VLAN_HLEN;
	}
	if (etype != UET_ETHERTYPE_IPV4)
		return UET_ERR_NOT_UET;
	if (len < l3 + UET_IPV4_HLEN)
		return UET_ERR_MALFORMED;
	ip = f + l3;
	if ((ip[0] >> 4) != 4)
		return UET_ERR_MALFORMED;
	ihl = (size_t)(ip[0] & 0x0f) * 4;
	ip_len = uet_get_be16(ip + 2);
	if (ihl < UET_IPV4_HLEN || ip_len < ihl || l3 + ip_len > len)
		return UET_ERR_MALFORMED;
	if (ip[9] != UET_IPPROTO_UDP)
		return UET_ERR_NOT_UET;
	/* More-fragments or a fragment offset: UET never fragments. */
	if (uet_get_be16(ip + 6) & 0x3fff)
		return UET_ERR_MALFORMED;
	if (ip_len < ihl + UET_UDP_HLEN)
		return UET_ERR_MALFORMED;
	udp = ip + ihl;
	udp_len = uet_get_be16(udp + 4);
	if (udp_len < UET_UDP_HLEN || udp_len > ip_len - ihl)
		return UET_ERR_MALFORMED;
	if (flags & UET_FRAME_VERIFY_CSUM) {
		if (uet_csum_fold(ip_hdr_sum(ip, ihl)) != 0xffff)
			return UET_ERR_CHECKSUM;
		if (udp[6] != 0 || udp[7] != 0) {
			uint32_t s = pseudo_sum(uet_get_be32(ip + 12),
						uet_get_be32(ip + 16), (uint16_t)udp_len);

			s = uet_csum_partial(udp, udp_len, s);
			if (uet_csum_fold(s) != 0xffff)
				return UET_ERR_CHECKSUM;
		}
	}
	r->dscp = ip[1] >> 2;
	r->ecn = ip[1] & 3;
	r->ttl = ip[8];
	r->src_ip = uet_get_be32(ip + 12);
	r->dst_ip = uet_get_be32(ip + 16);
	r->sport = uet_get_be16(udp);
	r->dport = uet_get_be16(udp + 2);
	r->l3_off = (uint16_t)l3;
	r->payload_off = (uint16_t)(l3 + ihl + UET_UDP_HLEN);
	r->payload_len = (uint16_t)(udp_len - UET_UDP_HLEN);
	return 0;
}

bool
uet_frame_mark_ce(uint8_t *f, uint16_t l3_off)
{
	uint8_t *ip = f + l3_off;
	uint16_t old_w, new_w, c;
	uint32_t s;

	if ((ip[1] & 3) == UET_ECN_NOT_ECT)
		return false;
	if ((ip[1] & 3) == UET_ECN_CE)
		return true;
	old_w = uet_get_be16(ip);
	ip[1] |= UET_ECN_CE;
	new_w = uet_get_be16(ip);
	/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') */
	c = uet_get_be16(ip + 10);
	s = (uint16_t)~c;
	s += (uint16_t)~old_w;
	s += new_w;
	uet_put_be16(ip + 10, (uint16_t)~uet_csum_fold(s));
	return true;
}

int
uet_frame_trim(uint8_t *f, size_t len, uint16_t l3_off, size_t new_len, uint8_t dscp)
{
	uint8_t *ip = f + l3_off, *udp;
	size_t ihl, ip_len, udp_len;
	bool udp_bad = false;

	if (dscp > 63 || len < (size_t)l3_off + UET_IPV4_HLEN)
		return UET_ERR_INVAL;
	ihl = (size_t)(ip[0] & 0x0f) * 4;
	if (new_len > len || new_len < l3_off + ihl + UET_UDP_HLEN)
		return UET_ERR_INVAL;
	udp = ip + ihl;
	/* A real switch updates the UDP checksum incrementally, so a packet
	 * that arrived corrupted stays detectably corrupted: keep that. */
	if (udp[6] != 0 || udp[7] != 0) {
		size_t old_udp = uet_get_be16(udp + 4);

		/* A UDP length past the frame (or short of its header) is a
		 * corrupted one: it stays wrong too. */
		if (old_udp > len - l3_off - ihl || old_udp < UET_UDP_HLEN) {
			udp_bad = true;
		} else {
			uint32_t s = pseudo_sum(uet_get_be32(ip + 12), uet_get_be32(ip + 16),
						(uint16_t)old_udp);

			udp_bad = uet_csum_fold(uet_csum_partial(udp, old_udp, s)) != 0xffff;
		}
	}
	ip_len = new_len - l3_off;
	udp_len = ip_len - ihl;
	ip[1] = (uint8_t)((dscp << 2) | (ip[1] & 3));
	uet_put_be16(ip + 2, (uint16_t)ip_len);
	ip[10] = ip[11] = 0;
	store_csum(ip + 10, ip_hdr_sum(ip, ihl));
	uet_put_be16(udp + 4, (uint16_t)udp_len);
	if (udp[6] != 0 || udp[7] != 0) {
		udp_csum_fill(ip, udp, (uint16_t)udp_len, udp_len, NULL);
		if (udp_bad) {
			/* Any other value is wrong; 0 would mean "none". */
			udp[6] ^= 0x80;
			if (udp[6] == 0 && udp[7] == 0)
				udp[7] = 1;
		}
	}
	return (int)new_len;
}

const char *
uet_ip_str(uint32_t ip, char *buf)
{
	snprintf(buf, 16, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255,
		 ip & 255);
	return buf;
}

int
uet_ip_parse(const char *s, uint32_t *ip)
{
	unsigned a[4];
	int i;

	for (i = 0; i < 4; i++) {
		unsigned v = 0, digits = 0;

		while (*s >= '0' && *s <= '9' && digits < 4) {
			v = v * 10 + (unsigned)(*s - '0');
			s++;
			digits++;
		}
		if (digits == 0 || digits > 3 || v > 255)
			return UET_ERR_INVAL;
		a[i] = v;
		if (i < 3) {
			if (*s != '.')
				return UET_ERR_INVAL;
			s++;
		}
	}
	if (*s != '\0')
		return UET_ERR_INVAL;
	*ip = (a[0] << 24) | (a[1] << 16) | (a[2] << 8) | a[3];
	return 0;
}
