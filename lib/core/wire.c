/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UET PDS/SES codec. Offsets follow Wireshark's packet-uet.c (UE 1.0.1):
 * dissect_pds_rud_rod_req, dissect_pds_ack (+ ACK extension), dissect_pds_nack,
 * dissect_pds_ctl and dissect_ses_std_req. doc/wire.md draws the byte maps.
 */
#include "uet/wire.h"

size_t
uet_hdr_len(uint8_t type, uint8_t nh)
{
	switch (type) {
	case UET_PDS_RUD_REQ:
		if (nh == UET_NH_NONE)
			return UET_PDS_REQ_LEN;
		if (nh == UET_NH_REQ_STD)
			return UET_PDS_REQ_LEN + UET_SES_STD_LEN;
		return 0;
	case UET_PDS_ACK:
		return UET_PDS_ACK_LEN;
	case UET_PDS_ACK_CC:
		return UET_PDS_ACK_CC_LEN;
	case UET_PDS_NACK:
		return UET_PDS_NACK_LEN;
	case UET_PDS_CTRL:
		return UET_PDS_CTRL_LEN;
	default:
		return 0;
	}
}

static void
ses_decode(const uint8_t *b, struct uet_ses_std *s)
{
	s->opcode = b[0] & 0x3f;
	s->flags = b[1];
	s->msg_id = uet_get_be16(b + 2);
	s->idx_gen = b[4];
	s->job_id = uet_get_be24(b + 5);
	s->pid_on_fep = uet_get_be16(b + 8) & 0x0fff;
	s->resource_index = uet_get_be16(b + 10) & 0x0fff;
	s->buffer_offset = uet_get_be64(b + 12);
	s->initiator = uet_get_be32(b + 20);
	s->match_bits = uet_get_be64(b + 24);
	if (s->flags & UET_SES_F_SOM) {
		/* The first packet of a message starts at offset 0 by definition
		 * and carries header_data in the slot later packets use for
		 * payload_length + message_offset. */
		s->header_data = uet_get_be64(b + 32);
		s->payload_len = 0;
		s->msg_offset = 0;
	} else {
		s->header_data = 0;
		s->payload_len = uet_get_be32(b + 32) & 0x3fff;
		s->msg_offset = uet_get_be32(b + 36);
	}
	s->request_len = uet_get_be32(b + 40);
}

int
uet_hdr_decode(const uint8_t *b, size_t len, struct uet_hdr *h)
{
	uint16_t prlg;

	if (len < 2)
		return UET_ERR_MALFORMED;
	prlg = uet_get_be16(b);
	h->type = (uint8_t)(prlg >> 11);
	h->nh = (uint8_t)((prlg >> 7) & 0x0f);
	h->flags = (uint8_t)(prlg & 0x7f);

	switch (h->type) {
	case UET_PDS_RUD_REQ:
		if (h->nh != UET_NH_NONE && h->nh != UET_NH_REQ_STD)
			return h->nh <= UET_NH_RSP_DATA_SMALL ? UET_ERR_UNSUPPORTED
							      : UET_ERR_MALFORMED;
		if (len < UET_PDS_REQ_LEN)
			return UET_ERR_MALFORMED;
		h->off16 = (int16_t)uet_get_be16(b + 2);
		h->psn = uet_get_be32(b + 4);
		h->spdcid = uet_get_be16(b + 8);
		h->dpdcid = uet_get_be16(b + 10);
		if (h->nh == UET_NH_NONE) {
			h->hdr_len = UET_PDS_REQ_LEN;
			return h->hdr_len;
		}
		if (len < UET_PDS_REQ_LEN + UET_SES_STD_LEN)
			return UET_ERR_MALFORMED;
		ses_decode(b + UET_PDS_REQ_LEN, &h->ses);
		h->hdr_len = UET_PDS_REQ_LEN + UET_SES_STD_LEN;
		return h->hdr_len;
	case UET_PDS_ACK:
	case UET_PDS_ACK_CC:
		if (h->nh != UET_NH_NONE)
			return h->nh <= UET_NH_RSP_DATA_SMALL ? UET_ERR_UNSUPPORTED
							      : UET_ERR_MALFORMED;
		if (len < UET_PDS_ACK_LEN)
			return UET_ERR_MALFORMED;
		h->off16 = (int16_t)uet_get_be16(b + 2);
		h->psn = uet_get_be32(b + 4);
		h->spdcid = uet_get_be16(b + 8);
		h->dpdcid = uet_get_be16(b + 10);
		if (h->type == UET_PDS_ACK) {
			h->cc_type = h->cc_flags = h->mpr = 0;
			h->sack_psn_offset = 0;
			h->sack_bitmap = 0;
			h->cc_state = 0;
			h->hdr_len = UET_PDS_ACK_LEN;
			return h->hdr_len;
		}
		if (len < UET_PDS_ACK_CC_LEN)
			return UET_ERR_MALFORMED;
		h->cc_type = b[12] >> 4;
		h->cc_flags = b[12] & 0x0f;
		h->mpr = b[13];
		h->sack_psn_offset = (int16_t)uet_get_be16(b + 14);
		h->sack_bitmap = uet_get_be64(b + 16);
		h->cc_state = uet_get_be64(b + 24);
		h->hdr_len = UET_PDS_ACK_CC_LEN;
		return h->hdr_len;
	case UET_PDS_NACK:
		if (h->nh != UET_NH_NONE)
			return UET_ERR_MALFORMED;
		if (len < UET_PDS_NACK_LEN)
			return UET_ERR_MALFORMED;
		h->nack_code = b[2];
		h->nack_vendor = b[3];
		h->psn = uet_get_be32(b + 4);
		h->spdcid = uet_get_be16(b + 8);
		h->dpdcid = uet_get_be16(b + 10);
		h->payload32 = uet_get_be32(b + 12);
		h->off16 = 0;
		h->hdr_len = UET_PDS_NACK_LEN;
		return h->hdr_len;
	case UET_PDS_CTRL:
		if (len < UET_PDS_CTRL_LEN)
			return UET_ERR_MALFORMED;
		h->off16 = (int16_t)uet_get_be16(b + 2);
		h->psn = uet_get_be32(b + 4);
		h->spdcid = uet_get_be16(b + 8);
		h->dpdcid = uet_get_be16(b + 10);
		h->payload32 = uet_get_be32(b + 12);
		h->hdr_len = UET_PDS_CTRL_LEN;
		return h->hdr_len;
	case UET_PDS_TSS:
	case UET_PDS_ROD_REQ:
	case UET_PDS_RUDI_REQ:
	case UET_PDS_RUDI_RESP:
	case UET_PDS_UUD_REQ:
	case UET_PDS_ACK_CCX:
	case UET_PDS_NACK_CCX:
	case UET_PDS_RUD_CC_REQ:
	case UET_PDS_ROD_CC_REQ:
		return UET_ERR_UNSUPPORTED;
	default:
		return UET_ERR_MALFORMED;
	}
}

static int
ses_encode(const struct uet_ses_std *s, uint8_t *b)
{
	if (s->opcode > 0x3f || s->job_id > 0xffffff || s->pid_on_fep > 0x0fff ||
	    s->resource_index > 0x0fff || s->payload_len > 0x3fff)
		return UET_ERR_INVAL;
	b[0] = s->opcode;
	b[1] = s->flags;
	uet_put_be16(b + 2, s->msg_id);
	b[4] = s->idx_gen;
	uet_put_be24(b + 5, s->job_id);
	uet_put_be16(b + 8, s->pid_on_fep);
	uet_put_be16(b + 10, s->resource_index);
	uet_put_be64(b + 12, s->buffer_offset);
	uet_put_be32(b + 20, s->initiator);
	uet_put_be64(b + 24, s->match_bits);
	if (s->flags & UET_SES_F_SOM) {
		uet_put_be64(b + 32, s->header_data);
	} else {
		uet_put_be32(b + 32, s->payload_len);
		uet_put_be32(b + 36, s->msg_offset);
	}
	uet_put_be32(b + 40, s->request_len);
	return UET_SES_STD_LEN;
}

int
uet_hdr_encode(const struct uet_hdr *h, uint8_t *b, size_t cap)
{
	size_t need = uet_hdr_len(h->type, h->nh);
	int rc;

	if (need == 0 || h->flags > 0x7f)
		return UET_ERR_INVAL;
	if (h->type == UET_PDS_ACK_CC && (h->cc_type > 0x0f || h->cc_flags > 0x0f))
		return UET_ERR_INVAL;
	if (cap < need)
		return UET_ERR_BUFSIZE;
	uet_put_be16(b, (uint16_t)((h->type << 11) | (h->nh << 7) | h->flags));
	switch (h->type) {
	case UET_PDS_RUD_REQ:
		uet_put_be16(b + 2, (uint16_t)h->off16);
		uet_put_be32(b + 4, h->psn);
		uet_put_be16(b + 8, h->spdcid);
		uet_put_be16(b + 10, h->dpdcid);
		if (h->nh == UET_NH_REQ_STD) {
			rc = ses_encode(&h->ses, b + UET_PDS_REQ_LEN);
			if (rc < 0)
				return rc;
		}
		break;
	case UET_PDS_ACK:
	case UET_PDS_ACK_CC:
		uet_put_be16(b + 2, (uint16_t)h->off16);
		uet_put_be32(b + 4, h->psn);
		uet_put_be16(b + 8, h->spdcid);
		uet_put_be16(b + 10, h->dpdcid);
		if (h->type == UET_PDS_ACK_CC) {
			b[12] = (uint8_t)((h->cc_type << 4) | h->cc_flags);
			b[13] = h->mpr;
			uet_put_be16(b + 14, (uint16_t)h->sack_psn_offset);
			uet_put_be64(b + 16, h->sack_bitmap);
			uet_put_be64(b + 24, h->cc_state);
		}
		break;
	case UET_PDS_NACK:
		b[2] = h->nack_code;
		b[3] = h->nack_vendor;
		uet_put_be32(b + 4, h->psn);
		uet_put_be16(b + 8, h->spdcid);
		uet_put_be16(b + 10, h->dpdcid);
		uet_put_be32(b + 12, h->payload32);
		break;
	case UET_PDS_CTRL:
		uet_put_be16(b + 2, (uint16_t)h->off16);
		uet_put_be32(b + 4, h->psn);
		uet_put_be16(b + 8, h->spdcid);
		uet_put_be16(b + 10, h->dpdcid);
		uet_put_be32(b + 12, h->payload32);
		break;
	default:
		return UET_ERR_INVAL;
	}
	return (int)need;
}

void
uet_nscc_state_unpack(uint64_t raw, struct uet_nscc_state *s)
{
	s->service_time = (uint16_t)(raw >> 48);
	s->restore_cwnd = (uint8_t)((raw >> 47) & 1);
	s->rcv_cwnd_pend = (uint8_t)((raw >> 40) & 0x7f);
	s->rcvd_bytes = (uint32_t)((raw >> 16) & 0xffffff);
	s->ooo_count = (uint16_t)raw;
}

uint64_t
uet_nscc_state_pack(const struct uet_nscc_state *s)
{
	return ((uint64_t)s->service_time << 48) |
	       ((uint64_t)(s->restore_cwnd & 1) << 47) |
	       ((uint64_t)(s->rcv_cwnd_pend & 0x7f) << 40) |
	       ((uint64_t)(s->rcvd_bytes & 0xffffff) << 16) | s->ooo_count;
}
