/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_WIRE_H_
#define UET_WIRE_H_

/*
 * UET 1.0 PDS (+ SES standard request) header codec, laid out as Wireshark's
 * UET dissector (packet-uet.c, UE spec 1.0.1) decodes it. All multi-byte
 * fields are big endian. doc/wire.md has the byte maps and the table of
 * deviations from UET.
 *
 * The codec is pure: no allocation, no global state. Decoding validates
 * lengths and field ranges and returns a negative UET_ERR_* for anything it
 * cannot safely hand to the protocol.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uet/err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UET_UDP_PORT 4793

/* PDS prologue: type:5 | next_hdr (ctl_type for CONTROL):4 | flags:7 */
enum uet_pds_type {
	UET_PDS_TSS = 1,
	UET_PDS_RUD_REQ = 2,
	UET_PDS_ROD_REQ = 3,
	UET_PDS_RUDI_REQ = 4,
	UET_PDS_RUDI_RESP = 5,
	UET_PDS_UUD_REQ = 6,
	UET_PDS_ACK = 7,
	UET_PDS_ACK_CC = 8,
	UET_PDS_ACK_CCX = 9,
	UET_PDS_NACK = 10,
	UET_PDS_CTRL = 11,
	UET_PDS_NACK_CCX = 12,
	UET_PDS_RUD_CC_REQ = 13,
	UET_PDS_ROD_CC_REQ = 14,
};

enum uet_pds_nh {
	UET_NH_NONE = 0,
	UET_NH_REQ_SMALL = 1,
	UET_NH_REQ_MEDIUM = 2,
	UET_NH_REQ_STD = 3,
	UET_NH_RSP = 4,
	UET_NH_RSP_DATA = 5,
	UET_NH_RSP_DATA_SMALL = 6,
};

enum uet_ctl_type {
	UET_CTL_NOOP = 0,
	UET_CTL_REQ_ACK = 1,
	UET_CTL_CLEAR = 2,
	UET_CTL_REQ_CLEAR = 3,
	UET_CTL_CLOSE = 4,
	UET_CTL_REQ_CLOSE = 5,
	UET_CTL_PROBE = 6,
	UET_CTL_CREDIT = 7,
	UET_CTL_CREDIT_REQ = 8,
};

/* Request (RUD) and CONTROL flags */
#define UET_REQ_F_RETX 0x10
#define UET_REQ_F_AR 0x08
#define UET_REQ_F_SYN 0x04
/* ACK flags */
#define UET_ACK_F_M 0x20    /* triggering packet was CE marked */
#define UET_ACK_F_RETX 0x10 /* triggering packet was a retransmission */
#define UET_ACK_F_P 0x08    /* reply to a probe; ack_psn_offset is the opaque */
#define UET_ACK_F_REQ_MASK 0x06
/* libuet extension in the prologue's reserved ACK flag bit: the trigger
 * was a duplicate (its PSN had been received before). Like TCP's D-SACK
 * (RFC 2883), it proves a retransmission spurious; doc/wire.md. */
#define UET_ACK_F_DUP 0x01
/* libuet extension in ACK_CC's cc_flags (REPS ACK+Carry, doc/wire.md): the
 * 32 bytes are followed by count:8 | rsvd:8 | count x EV:16, the EVs of the
 * unmarked packets the ACK covers besides its trigger (whose EV is the
 * ACK's own source port), at most UET_ACK_CARRY_MAX. */
#define UET_ACK_CCF_EVS 0x1
#define UET_ACK_CARRY_MAX 15
/* NACK flags */
#define UET_NACK_F_M 0x20
#define UET_NACK_F_RETX 0x10
#define UET_NACK_F_NT 0x08

enum uet_nack_code {
	UET_NACK_TRIMMED = 0x01,
	UET_NACK_TRIMMED_LASTHOP = 0x02,
	UET_NACK_TRIMMED_ACK = 0x03,
	UET_NACK_NO_PDC_AVAIL = 0x04,
	UET_NACK_NO_CCC_AVAIL = 0x05,
	UET_NACK_NO_BITMAP = 0x06,
	UET_NACK_NO_PKT_BUFFER = 0x07,
	UET_NACK_NO_GTD_DEL_AVAIL = 0x08,
	UET_NACK_NO_SES_MSG_AVAIL = 0x09,
	UET_NACK_NO_RESOURCE = 0x0A,
	UET_NACK_PSN_OOR_WINDOW = 0x0B,
	UET_NACK_ROD_OOO = 0x0D,
	UET_NACK_INV_DPDCID = 0x0E,
	UET_NACK_PDC_HDR_MISMATCH = 0x0F,
	UET_NACK_CLOSING = 0x10,
	UET_NACK_CLOSING_IN_ERR = 0x11,
	UET_NACK_PKT_NOT_RCVD = 0x12,
	UET_NACK_INVALID_SYN = 0x15,
	UET_NACK_NEW_START_PSN = 0x17,
};

/* SES standard request */
enum uet_ses_opcode {
	UET_SES_NO_OP = 0x00,
	UET_SES_WRITE = 0x01,
	UET_SES_READ = 0x02,
	UET_SES_SEND = 0x05,        /* non-matching send: no match bits */
	UET_SES_TAGGED_SEND = 0x09, /* matched on its 64 match bits */
};
#define UET_SES_F_DC 0x20
#define UET_SES_F_IE 0x10
#define UET_SES_F_REL 0x08
#define UET_SES_F_HD 0x04
#define UET_SES_F_EOM 0x02
#define UET_SES_F_SOM 0x01

/* Header sizes in bytes */
#define UET_PDS_REQ_LEN 12
#define UET_PDS_ACK_LEN 12
#define UET_PDS_ACK_EXT_LEN 20
#define UET_PDS_ACK_CC_LEN (UET_PDS_ACK_LEN + UET_PDS_ACK_EXT_LEN)
#define UET_PDS_NACK_LEN 16
#define UET_PDS_CTRL_LEN 16
#define UET_SES_STD_LEN 44
/* A data packet's headers: RUD request + SES standard request. */
#define UET_DATA_HDR_LEN (UET_PDS_REQ_LEN + UET_SES_STD_LEN)
/* Largest header the codec produces; size scratch buffers with this. */
#define UET_MAX_HDR_LEN UET_DATA_HDR_LEN

/* ACK_CC cc_type */
#define UET_CC_TYPE_NSCC 0
#define UET_CC_TYPE_CREDIT 1

/* The MPR field advertises the receive window in units of this many PSNs. */
#define UET_MPR_UNIT_PSNS 128

/* SYN form of the dpdcid slot: use_rsv_pdc:1 | rsvd:3 | psn_offset:12 */
#define UET_SYN_PSN_OFFSET_MASK 0x0fff
#define UET_SYN_USE_RSV_PDC 0x8000
#define UET_SYN_MAX_PSN_OFFSET 0x0fff

struct uet_ses_std {
	uint8_t opcode;        /* 6 bits */
	uint8_t flags;         /* ver:2 | DC | IE | REL | HD | EOM | SOM */
	uint16_t msg_id;
	uint8_t idx_gen;
	uint32_t job_id;       /* 24 bits */
	uint16_t pid_on_fep;   /* 12 bits */
	uint16_t resource_index; /* 12 bits */
	uint64_t buffer_offset;
	uint32_t initiator;
	uint64_t match_bits;
	uint64_t header_data;  /* on the wire only when SOM */
	uint16_t payload_len;  /* 14 bits; on the wire only when !SOM */
	uint32_t msg_offset;   /* on the wire only when !SOM; 0 when SOM */
	uint32_t request_len;
};

/* NSCC form of the 64-bit ACK_CC state */
struct uet_nscc_state {
	uint16_t service_time;
	uint8_t restore_cwnd;  /* 1 bit */
	uint8_t rcv_cwnd_pend; /* 7 bits */
	uint32_t rcvd_bytes;   /* 24 bits, in 256-byte units */
	uint16_t ooo_count;
};

struct uet_hdr {
	uint8_t type;   /* enum uet_pds_type */
	uint8_t nh;     /* enum uet_pds_nh; ctl_type for CONTROL */
	uint8_t flags;  /* 7 bits */
	uint16_t spdcid;
	uint16_t dpdcid; /* raw slot; SYN form when a request/control has SYN */
	uint32_t psn;    /* REQ/CTRL: psn; ACK: CACK_PSN, the highest PSN
			  * that it and every PSN before arrived (the
			  * receiver's next expected PSN - 1); NACK: nack_psn */
	int16_t off16;   /* REQ: clear_psn_offset; ACK: ack_psn_offset or
			  * probe opaque (P); CTRL: probe opaque */
	/* NACK */
	uint8_t nack_code;
	uint8_t nack_vendor;
	uint32_t payload32; /* NACK: max recvd PSN + 1; CTRL: payload */
	/* ACK_CC extension */
	uint8_t cc_type;  /* 4 bits */
	uint8_t cc_flags; /* 4 bits */
	uint8_t mpr;
	int16_t sack_psn_offset;
	uint64_t sack_bitmap; /* bit i: PSN CACK_PSN + sack_psn_offset + i */
	uint64_t cc_state;    /* raw 64 bits, big-endian order */
	/* SES (RUD request with nh == UET_NH_REQ_STD) */
	struct uet_ses_std ses;
	uint16_t hdr_len; /* bytes of PDS + SES header; payload follows */
};

/* Header length a given type/nh needs, or 0 for a type we do not encode. */
size_t uet_hdr_len(uint8_t type, uint8_t nh);

/*
 * Decode the headers at the start of buf (a UDP payload). Returns the header
 * length (>= 12) on success; UET_ERR_MALFORMED when truncated or a field is
 * out of range; UET_ERR_UNSUPPORTED for valid UET types this codec does not
 * parse (TSS, ROD, RUDI, UUD, CCX variants, SES other than standard).
 */
int uet_hdr_decode(const uint8_t *buf, size_t len, struct uet_hdr *h);

/* Encode h into buf. Returns bytes written, UET_ERR_BUFSIZE or
 * UET_ERR_INVAL (unknown type or a field that does not fit). */
int uet_hdr_encode(const struct uet_hdr *h, uint8_t *buf, size_t cap);

void uet_nscc_state_unpack(uint64_t raw, struct uet_nscc_state *s);
uint64_t uet_nscc_state_pack(const struct uet_nscc_state *s);

/* An ACK's PSNs, as UET defines them: ACK_PSN (the trigger, unless P) and
 * the SACK bitmap's base are offsets from the inclusive CACK_PSN. */
static inline uint32_t
uet_ack_psn(const struct uet_hdr *h)
{
	return h->psn + (uint32_t)(int32_t)h->off16;
}

static inline uint32_t
uet_ack_sack_base(const struct uet_hdr *h)
{
	return h->psn + (uint32_t)(int32_t)h->sack_psn_offset;
}

/* SYN form of the dpdcid slot */
static inline uint16_t
uet_syn_slot(uint16_t psn_offset)
{
	return psn_offset & UET_SYN_PSN_OFFSET_MASK;
}

static inline uint16_t
uet_syn_psn_offset(uint16_t dpdcid_slot)
{
	return dpdcid_slot & UET_SYN_PSN_OFFSET_MASK;
}

/* Big-endian helpers shared by the codec, the frame layer and tests. */
static inline void
uet_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
uet_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void
uet_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
uet_put_be64(uint8_t *p, uint64_t v)
{
	uet_put_be32(p, (uint32_t)(v >> 32));
	uet_put_be32(p + 4, (uint32_t)v);
}

static inline uint16_t
uet_get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t
uet_get_be24(const uint8_t *p)
{
	return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

static inline uint32_t
uet_get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

static inline uint64_t
uet_get_be64(const uint8_t *p)
{
	return ((uint64_t)uet_get_be32(p) << 32) | uet_get_be32(p + 4);
}

#ifdef __cplusplus
}
#endif

#endif /* UET_WIRE_H_ */
