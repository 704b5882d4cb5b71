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
/* At most max_frames frames are written (0 = no limit); later ones are
 * counted, not written: a capture on a long run stays bounded. */
void uet_pcap_set_limit(struct uet_pcap *p, uint64_t max_frames);
/* Added to every timestamp: a clock that starts at 0 (the simulator's, a
 * TSC's) becomes wall-clock time in the capture. */
void uet_pcap_set_time_base(struct uet_pcap *p, uint64_t base_ns);
void uet_pcap_write(struct uet_pcap *p, uint64_t ts_ns, const uint8_t *frame,
		    uint32_t len);
/* Number of frames written so far, and past the limit (not written). */
uint64_t uet_pcap_count(const struct uet_pcap *p);
uint64_t uet_pcap_skipped(const struct uet_pcap *p);
void uet_pcap_close(struct uet_pcap *p);

#endif /* UET_NET_PCAPW_H_ */
