/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_FRAME_H_
#define UET_FRAME_H_

/*
 * Ethernet/IPv4/UDP framing for UET packets, without DPDK: the simulator,
 * the pcap writer and the DPDK data path all build and parse frames here, so
 * a frame means the same thing everywhere. The entropy value (EV) is the
 * UDP source port; ECN lives in the low two bits of the IPv4 TOS byte, the
 * traffic class (and "this packet was trimmed") in its DSCP.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif


#define UET_ETH_HLEN 14
#define UET_VLAN_HLEN 4
#define UET_IPV4_HLEN 20
#define UET_UDP_HLEN 8
/* Bytes in front of the UDP payload in the frames this layer builds. */
#define UET_FRAME_HDR_LEN (UET_ETH_HLEN + UET_IPV4_HLEN + UET_UDP_HLEN)
/* The shortest Ethernet frame without its FCS: shorter ones are padded. */
#define UET_ETH_MIN_FRAME 60
#define UET_ETHERTYPE_IPV4 0x0800
#define UET_ETHERTYPE_ARP 0x0806
#define UET_ETHERTYPE_VLAN 0x8100
#define UET_IPPROTO_UDP 17

enum uet_ecn {
	UET_ECN_NOT_ECT = 0,
	UET_ECN_ECT1 = 1,
	UET_ECN_ECT0 = 2,
	UET_ECN_CE = 3,
};

/* Traffic classes the core asks for; the frame layer maps them to DSCP. */
enum uet_tclass {
	UET_TC_DATA = 0,    /* first transmission, trimmable */
	UET_TC_RETX = 1,    /* retransmission, trimmable */
	UET_TC_CONTROL = 2, /* ACK, NACK, probe: never trimmed, high priority */
	UET_TC_COUNT
};

/*
 * DSCP code points (0..63). UET leaves the values to the operator; only
 * distinctness matters. Switches that trim rewrite the DSCP of a trimmed
 * header to 'trimmed' (or 'trimmed_lasthop' at the last hop).
 */
struct uet_dscp_map {
	uint8_t tc[UET_TC_COUNT];
	uint8_t trimmed;
	uint8_t trimmed_lasthop;
};

/* Defaults: data AF11 (10), retransmit AF12 (12), control CS6 (48),
 * trimmed AF21 (18), trimmed at the last hop AF22 (20). */
void uet_dscp_map_default(struct uet_dscp_map *m);

struct uet_frame_tx {
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	uint32_t src_ip; /* host byte order */
	uint32_t dst_ip;
	uint16_t sport;  /* the EV */
	uint16_t dport;
	uint8_t dscp;
	uint8_t ecn;     /* enum uet_ecn */
	uint8_t ttl;     /* 0 means 64 */
	uint16_t ip_id;
	/* The last zero_tail bytes of the UDP payload are known to be zero
	 * (a buffer nobody wrote since it was cleared): the UDP checksum
	 * skips them. 0 = sum everything. */
	uint32_t zero_tail;
	/* The UDP payload's one's-complement sum is already known (the
	 * endpoint summed it as it copied the data in, uet_tx_meta.sum):
	 * the UDP checksum adds it instead of reading the payload again. */
	bool payload_sum_valid;
	uint32_t payload_sum;
};

struct uet_frame_rx {
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	uint32_t src_ip;
	uint32_t dst_ip;
	uint16_t sport;
	uint16_t dport;
	uint8_t dscp;
	uint8_t ecn;
	uint8_t ttl;
	uint16_t l3_off;      /* offset of the IPv4 header */
	uint16_t payload_off; /* offset of the UDP payload (the PDS header) */
	uint16_t payload_len;
};

/* Verify the IPv4 header checksum and, when present (non-zero), the UDP
 * checksum. Callers whose NIC verified them in hardware skip this. */
#define UET_FRAME_VERIFY_CSUM 0x1

/*
 * Write Ethernet/IPv4/UDP headers into frame[0, UET_FRAME_HDR_LEN); the UDP
 * payload of payload_len bytes must already be at frame + UET_FRAME_HDR_LEN.
 * With udp_csum the UDP checksum covers the payload, otherwise it is 0 (no
 * checksum, legal on IPv4; for NICs that fill it in). A frame shorter than
 * UET_ETH_MIN_FRAME (a NACK or CONTROL packet) is padded with zeros to it,
 * outside the IP length, as a NIC does. Returns the frame length or
 * UET_ERR_BUFSIZE / UET_ERR_INVAL.
 */
int uet_frame_encap(uint8_t *frame, size_t cap, const struct uet_frame_tx *t,
		    size_t payload_len, bool udp_csum);

/*
 * Parse an Ethernet (optionally one 802.1Q tag) / IPv4 / UDP frame. Returns 0,
 * UET_ERR_MALFORMED (truncated, bad lengths, fragments), UET_ERR_NOT_UET
 * (not IPv4/UDP) or UET_ERR_CHECKSUM. Does not check ports or addresses.
 */
int uet_frame_decap(const uint8_t *frame, size_t len, struct uet_frame_rx *r,
		    unsigned flags);

/* Set CE in the IPv4 header at frame + l3_off if it is ECN-capable, updating
 * the header checksum incrementally (RFC 1624). Returns true if marked. */
bool uet_frame_mark_ce(uint8_t *frame, uint16_t l3_off);

/*
 * Cut a frame to new_len bytes (it must keep at least the UDP header), set
 * its DSCP and fix the IPv4/UDP lengths and checksums: what a trimming
 * switch does. Like a switch's incremental update, a UDP checksum that was
 * wrong before stays wrong. Returns the new length or UET_ERR_INVAL.
 */
int uet_frame_trim(uint8_t *frame, size_t len, uint16_t l3_off, size_t new_len,
		   uint8_t dscp);

/* "10.0.0.1" style formatting; buf needs 16 bytes. */
const char *uet_ip_str(uint32_t ip, char *buf);
/* Parse dotted-quad IPv4; 0 on success, UET_ERR_INVAL otherwise. */
int uet_ip_parse(const char *s, uint32_t *ip);

#ifdef __cplusplus
}
#endif

#endif /* UET_FRAME_H_ */
