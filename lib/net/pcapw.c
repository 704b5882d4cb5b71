/* SPDX-License-Identifier: BSD-3-Clause */
#include "net/pcapw.h"

#include <pcap/pcap.h>
#include <stdlib.h>

#include "uet/err.h"

struct uet_pcap {
	pcap_t *pd;
	pcap_dumper_t *dumper;
	uint32_t snaplen;
	uint64_t count, skipped, limit, base_ns;
};

int
uet_pcap_open(struct uet_pcap **out, const char *path, uint32_t snaplen)
{
	struct uet_pcap *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return UET_ERR_NOMEM;
	p->snaplen = snaplen ? snaplen : 65535;
	p->pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)p->snaplen,
						     PCAP_TSTAMP_PRECISION_NANO);
	if (p->pd == NULL) {
		free(p);
		return UET_ERR_NOMEM;
	}
	p->dumper = pcap_dump_open(p->pd, path);
	if (p->dumper == NULL) {
		pcap_close(p->pd);
		free(p);
		return UET_ERR_INVAL;
	}
	*out = p;
	return 0;
}

void
uet_pcap_set_limit(struct uet_pcap *p, uint64_t max_frames)
{
	p->limit = max_frames;
}

void
uet_pcap_set_time_base(struct uet_pcap *p, uint64_t base_ns)
{
	p->base_ns = base_ns;
}

void
uet_pcap_write(struct uet_pcap *p, uint64_t ts_ns, const uint8_t *frame, uint32_t len)
{
	struct pcap_pkthdr h;

	if (p->limit != 0 && p->count >= p->limit) {
		p->skipped++;
		return;
	}
	ts_ns += p->base_ns;
	/* With nanosecond precision libpcap stores tv_usec as nanoseconds. */
	h.ts.tv_sec = (time_t)(ts_ns / 1000000000ULL);
	h.ts.tv_usec = (suseconds_t)(ts_ns % 1000000000ULL);
	h.len = len;
	h.caplen = len < p->snaplen ? len : p->snaplen;
	pcap_dump((u_char *)p->dumper, &h, frame);
	p->count++;
}

uint64_t
uet_pcap_count(const struct uet_pcap *p)
{
	return p->count;
}

uint64_t
uet_pcap_skipped(const struct uet_pcap *p)
{
	return p->skipped;
}

void
uet_pcap_close(struct uet_pcap *p)
{
	if (p == NULL)
		return;
	pcap_dump_close(p->dumper);
	pcap_close(p->pd);
	free(p);
}
