/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_ERR_H_
#define UET_ERR_H_

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Negative error codes returned by every libuet function that can fail.
 * Operating errors (a malformed or unexpected packet, a full pool) are
 * returned and counted; they never abort. assert() is only for our own bugs.
 */
enum uet_err {
	UET_OK = 0,
	UET_ERR_INVAL = -201,       /* invalid argument or configuration */
	UET_ERR_NOMEM = -202,       /* allocation at creation time failed */
	UET_ERR_NOBUFS = -203,      /* a bounded pool or queue is full; retry later */
	UET_ERR_MALFORMED = -204,   /* packet truncated or a field is invalid */
	UET_ERR_UNSUPPORTED = -205, /* valid UET packet of a kind we do not handle */
	UET_ERR_NO_PDC = -206,      /* packet names a PDC we do not have */
	UET_ERR_PSN_WINDOW = -207,  /* PSN outside the receive/send window */
	UET_ERR_DUPLICATE = -208,   /* packet already received (it was re-ACKed) */
	UET_ERR_BAD_ACK = -209,     /* ACK/SACK/NACK covers PSNs never sent */
	UET_ERR_TIMEOUT = -210,     /* PDC gave up after its retry limit */
	UET_ERR_PEER_RESET = -211,  /* peer lost the PDC state (NACK INV_DPDCID) */
	UET_ERR_CLOSED = -212,      /* PDC or endpoint is closing */
	UET_ERR_BUFSIZE = -213,     /* caller's output buffer too small */
	UET_ERR_STALE = -214,       /* packet belongs to an older PDC incarnation */
	UET_ERR_CHECKSUM = -215,    /* IPv4 or UDP checksum mismatch */
	UET_ERR_NOT_UET = -216,     /* frame is not IPv4/UDP to the UET port */
	UET_ERR_CANCELED = -217,    /* a posted receive was canceled */
	UET_ERR_TRUNCATED = -218,   /* the message was longer than the receive's
				     * buffer: what fitted was placed */
	UET_ERR_NO_MSG = -219,      /* uet_ep_peek(): no message matches */
	UET_ERR_FOREIGN = -220,     /* packet of another job, or from an
				     * address the endpoint does not take */
};

/* Short, static, human-readable name of an error code. */
const char *uet_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* UET_ERR_H_ */
