/* SPDX-License-Identifier: BSD-3-Clause */
#include "uet/err.h"

const char *
uet_strerror(int err)
{
	switch (err) {
	case UET_OK: return "success";
	case UET_ERR_INVAL: return "invalid argument";
	case UET_ERR_NOMEM: return "out of memory";
	case UET_ERR_NOBUFS: return "no buffer space (bounded pool full)";
	case UET_ERR_MALFORMED: return "malformed packet";
	case UET_ERR_UNSUPPORTED: return "unsupported packet type";
	case UET_ERR_NO_PDC: return "unknown PDC";
	case UET_ERR_PSN_WINDOW: return "PSN outside window";
	case UET_ERR_DUPLICATE: return "duplicate packet";
	case UET_ERR_BAD_ACK: return "ACK covers unsent PSNs";
	case UET_ERR_TIMEOUT: return "retry limit reached";
	case UET_ERR_PEER_RESET: return "peer reset the PDC";
	case UET_ERR_CLOSED: return "closed";
	case UET_ERR_BUFSIZE: return "buffer too small";
	case UET_ERR_STALE: return "stale packet from an older PDC";
	case UET_ERR_CHECKSUM: return "checksum mismatch";
	case UET_ERR_NOT_UET: return "not a UET frame";
	case UET_ERR_CANCELED: return "receive canceled";
	case UET_ERR_TRUNCATED: return "message truncated";
	case UET_ERR_NO_MSG: return "no matching message";
	case UET_ERR_FOREIGN: return "packet of another job or peer";
	default: return "unknown error";
	}
}
