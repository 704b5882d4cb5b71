/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_NET_PCAPW_H_
#define UET_NET_PCAPW_H_

#include <stdint.h>

/*
 * Minimal capture writer on top of libpcap: Ethernet link type, nanosecond
 * timestamps, so Wireshark decodes the UET frames (UDP 4793) of a simulator
 * run or a test at the times the simulator saw them.
 */
struct uet_pcap;

/* Returns 0 or UET_ERR_INVAL (cannot open path). snaplen 0 = 65535. */
int uet_pcap_open(struct uet_pcap **out, const char *path, uint32_t snaplen);
void uet_pcap_write(struct uet_pcap *p, uint64_t ts_ns, const uint8_t *frame,
		    uint32_t len);
/* Number of frames written so far. */
uint64_t uet_pcap_count(const struct uet_pcap *p);
void uet_pcap_close(struct uet_pcap *p);

#endif /* UET_NET_PCAPW_H_ */
