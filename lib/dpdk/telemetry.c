/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_telemetry commands /uet/stats, /uet/pdc and /uet/paths. Telemetry
 * handlers run on DPDK's telemetry thread while the lcores keep polling,
 * so no lcore shares live state with them: every lcore owns a slot, and
 * every millisecond it copies what the commands report about its hosts
 * into the slot's snapshot, guarded by a sequence counter (the reader
 * waits while a copy is in progress; the writer never waits). Per-EV
 * counters are per slot too, written by their lcore only and summed by
 * the reader. Slots are allocated when lcores are created and kept until
 * the process ends (a detached slot is only marked unused), so a reader
 * never sees freed memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_pause.h>
#include <rte_telemetry.h>

#include "dpdk/dpdk.h"
#include "dpdk/internal.h"
#include "uet/frame.h"
#include "uet/err.h"

#define TEL_SLOTS 64
#define TEL_PDCS 16        /* per host in /uet/pdc */
#define PUBLISH_NS 1000000ULL
#define READ_SPINS 1000
#define READ_NAP_NS 20000
#define READ_WAIT_NS 200000000ULL  /* 200 publish periods */

struct tel_host {
	uint32_t ip;
	struct uet_ep_stats ep;
	struct uet_dpdk_host_stats hs;
	uint32_t npdc;
	struct uet_pdc_info pdc[TEL_PDCS];
};

struct uet_dpdk_tel {
	bool used;
	uint32_t seq;          /* odd while the lcore writes */
	uint64_t now_ns, last_ns;
	uint32_t cap, nhosts;
	struct tel_host *h;    /* cap */
	uint64_t *ev_tx, *ev_ce;
};

static struct {
	bool on;
	uint16_t ev_base;
	uint32_t ev_count;
	uint32_t nslots;       /* slots handed out so far */
	struct uet_dpdk_tel slot[TEL_SLOTS];
} tel;

struct uet_dpdk_tel *
uet_dpdk_tel_attach(struct uet_dpdk_host *const *hosts, uint32_t n)
{
	struct uet_dpdk_tel *t = NULL;
	uint32_t i;

	(void)hosts;
	if (!tel.on)
		return NULL;
	for (i = 0; i < tel.nslots; i++)
		if (!tel.slot[i].used && tel.slot[i].cap >= n)
			t = &tel.slot[i];
	if (t == NULL) {
		if (tel.nslots == TEL_SLOTS)
			return NULL;
		t = &tel.slot[tel.nslots];
		t->h = calloc(n, sizeof(*t->h));
		t->ev_tx = calloc(tel.ev_count ? tel.ev_count : 1, sizeof(uint64_t));
		t->ev_ce = calloc(tel.ev_count ? tel.ev_count : 1, sizeof(uint64_t));
		if (t->h == NULL || t->ev_tx == NULL || t->ev_ce == NULL) {
			free(t->h);
			free(t->ev_tx);
			free(t->ev_ce);
			memset(t, 0, sizeof(*t));
			return NULL;
		}
		t->cap = n;
		/* Published last: the reader walks slots below nslots. */
		__atomic_store_n(&tel.nslots, tel.nslots + 1, __ATOMIC_RELEASE);
	}
	t->last_ns = 0;
	__atomic_store_n(&t->used, true, __ATOMIC_RELEASE);
	return t;
}

void
uet_dpdk_tel_detach(struct uet_dpdk_tel *t)
{
	if (t == NULL)
		return;
	/* Its last snapshot and counters stay readable: a run that ended
	 * still shows what it did. A new lcore may take the slot over. */
	__atomic_store_n(&t->used, false, __ATOMIC_RELEASE);
}

void
uet_dpdk_tel_ev(struct uet_dpdk_tel *t, uint16_t ev, bool ce)
{
	uint32_t i = (uint16_t)(ev - tel.ev_base);

	if (t == NULL || i >= tel.ev_count)
		return;
	/* One writer per slot; relaxed atomics keep the reader's view
	 * untorn. */
	if (ce)
		__atomic_store_n(&t->ev_ce[i], t->ev_ce[i] + 1, __ATOMIC_RELAXED);
	else
		__atomic_store_n(&t->ev_tx[i], t->ev_tx[i] + 1, __ATOMIC_RELAXED);
}

void
uet_dpdk_tel_publish(struct uet_dpdk_tel *t, struct uet_dpdk_host *const *hosts, uint32_t n,
		     uint64_t now_ns)
{
	uint32_t i;

	if (t == NULL || (t->last_ns != 0 && now_ns - t->last_ns < PUBLISH_NS))
		return;
	t->last_ns = now_ns ? now_ns : 1;
	__atomic_add_fetch(&t->seq, 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	t->now_ns = now_ns;
	t->nhosts = n < t->cap ? n : t->cap;
	for (i = 0; i < t->nhosts; i++) {
		struct tel_host *th = &t->h[i];
		struct uet_ep *ep = uet_dpdk_host_ep(hosts[i]);
		uint32_t cur = 0;

		th->ip = uet_dpdk_host_ip(hosts[i]);
		th->ep = *uet_ep_stats(ep);
		th->hs = *uet_dpdk_host_stats(hosts[i]);
		th->npdc = 0;
		while (th->npdc < TEL_PDCS && uet_ep_pdc_iter(ep, &cur, &th->pdc[th->npdc]))
			th->npdc++;
	}
	__atomic_add_fetch(&t->seq, 1, __ATOMIC_RELEASE);
}

/* A consistent copy of every host of slot t; false if the lcore kept
 * writing for READ_WAIT_NS. A copy takes the lcore microseconds (tens
 * under a sanitizer), and on a loaded host the lcore can be descheduled
 * in the middle of one: a reader that gave up after a burst of spins
 * answered null now and then. This one spins briefly, then sleeps between
 * tries (it runs on the telemetry thread, never on an lcore). */
static bool
read_slot(const struct uet_dpdk_tel *t, struct tel_host *copy, uint32_t *n, uint64_t *now_ns)
{
	const struct timespec nap = { 0, READ_NAP_NS };
	struct uet_dpdk_clock waited;
	unsigned int tries;

	for (tries = 0;; tries++) {
		uint32_t s0 = __atomic_load_n(&t->seq, __ATOMIC_ACQUIRE);

		if (!(s0 & 1)) {
			*n = t->nhosts;
			*now_ns = t->now_ns;
			memcpy(copy, t->h, *n * sizeof(*copy));
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&t->seq, __ATOMIC_ACQUIRE) == s0)
				return true;
		}
		if (tries < READ_SPINS) {
			rte_pause();
			continue;
		}
		if (tries == READ_SPINS)
			uet_dpdk_clock_init(&waited);
		else if (uet_dpdk_now_ns(&waited) > READ_WAIT_NS)
			return false;
		nanosleep(&nap, NULL);
	}
}

/* The host selected by params ("" = all, else its IPv4 address). */
static bool
selected(const char *params, uint32_t ip)
{
	uint32_t want;

	return params == NULL || params[0] == '\0' ||
	       (uet_ip_parse(params, &want) == 0 && want == ip);
}

/* Every published host of every slot, in slot order, into a new array
 * (*n entries); NULL when out of memory or a slot stays busy. */
static struct tel_host *
read_all(uint32_t *n, uint64_t *now_ns, int *err)
{
	uint32_t ns = __atomic_load_n(&tel.nslots, __ATOMIC_ACQUIRE), i, total = 0, k;
	struct tel_host *all;
	uint64_t t;

	for (i = 0; i < ns; i++)
		total += tel.slot[i].cap;
	all = calloc(total ? total : 1, sizeof(*all));
	if (all == NULL) {
		*err = -ENOMEM;
		return NULL;
	}
	*n = 0;
	*now_ns = 0;
	for (i = 0; i < ns; i++) {
		if (!read_slot(&tel.slot[i], all + *n, &k, &t)) {
			free(all);
			*err = -EBUSY;
			return NULL;
		}
		*n += k;
		if (t > *now_ns)
			*now_ns = t;
	}
	return all;
}

/* DPDK 22.11 nests only arrays in a dict, so /uet/stats is one flat dict:
 * the counters summed over the endpoints the parameter selects (all when
 * empty), and the list of their addresses. */
static int
cmd_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct uet_ep_stats e;
	struct uet_dpdk_host_stats h;
	struct rte_tel_data *eps;
	struct tel_host *all;
	uint32_t i, n = 0, nh;
	uint64_t now_ns;
	int err = 0;

	(void)cmd;
	all = read_all(&nh, &now_ns, &err);
	if (all == NULL)
		return err;
	memset(&e, 0, sizeof(e));
	memset(&h, 0, sizeof(h));
	eps = rte_tel_data_alloc();
	if (eps == NULL) {
		free(all);
		return -ENOMEM;
	}
	rte_tel_data_start_array(eps, RTE_TEL_STRING_VAL);
	for (i = 0; i < nh; i++) {
		const struct tel_host *t = &all[i];
		const uint64_t *a = (const uint64_t *)&t->ep;
		uint64_t *b = (uint64_t *)&e;
		size_t k;
		char ip[16];

		if (!selected(params, t->ip))
			continue;
		for (k = 0; k < sizeof(e) / sizeof(uint64_t); k++)
			b[k] += a[k];
		a = (const uint64_t *)&t->hs;
		b = (uint64_t *)&h;
		for (k = 0; k < sizeof(h) / sizeof(uint64_t); k++)
			b[k] += a[k];
		rte_tel_data_add_array_string(eps, uet_ip_str(t->ip, ip));
		n++;
	}
	free(all);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "now_ns", now_ns);
	rte_tel_data_add_dict_u64(d, "n_endpoints", n);
	rte_tel_data_add_dict_container(d, "endpoints", eps, 0);
#define U(f) rte_tel_data_add_dict_u64(d, #f, e.f)
	U(tx_data_pkts); U(tx_data_bytes); U(tx_retx_pkts); U(tx_ack_pkts); U(tx_nack_pkts);
	U(tx_probe_pkts); U(rx_data_pkts); U(rx_data_bytes); U(rx_ack_pkts); U(rx_nack_pkts);
	U(rx_ce_pkts); U(rx_dup_pkts); U(rto_events); U(loss_inferred); U(probe_losses);
	U(msgs_acked); U(msgs_delivered); U(msgs_failed); U(pdcs_opened); U(pdcs_failed);
	U(path_failures); U(lb_freezes); U(lb_thaws); U(lb_repaths);
	U(nack_retx); U(spurious_retx); U(spurious_losses); U(spurious_rto); U(loss_undos);
#undef U
	rte_tel_data_add_dict_u64(d, "nic_tx_frames", h.tx_frames);
	rte_tel_data_add_dict_u64(d, "nic_rx_frames", h.rx_frames);
	rte_tel_data_add_dict_u64(d, "rx_csum_drops", h.rx_csum_drops);
	rte_tel_data_add_dict_u64(d, "tx_full", h.tx_full);
	rte_tel_data_add_dict_u64(d, "tx_no_neigh", h.tx_no_neigh);
	rte_tel_data_add_dict_u64(d, "tx_fail_ev", h.tx_fail_ev);
	rte_tel_data_add_dict_u64(d, "tx_no_mbuf", h.tx_no_mbuf);
	rte_tel_data_add_dict_u64(d, "tx_csum_skipped_bytes", h.tx_csum_skipped_bytes);
	rte_tel_data_add_dict_u64(d, "tx_csum_fused", h.tx_csum_fused);
	rte_tel_data_add_dict_u64(d, "tx_csum_offloaded", h.tx_csum_offloaded);
	rte_tel_data_add_dict_u64(d, "rx_csum_offloaded", h.rx_csum_offloaded);
	return 0;
}

_Static_assert(sizeof(struct uet_dpdk_host_stats) % sizeof(uint64_t) == 0,
	       "host stats must be all uint64_t");

/* /uet/pdc,IP: the endpoint's PDCs, "pdc_<id>" -> [peer IPv4 (host order),
 * initiator, state, inflight_bytes, cwnd_bytes, srtt_ns, rto_ns,
 * lb_frozen, rcvd_bytes] (the order of "fields"). */
static int
cmd_pdc(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const char *const fields[] = { "peer_ip", "initiator", "state", "inflight_bytes",
					      "cwnd_bytes", "srtt_ns", "rto_ns", "lb_frozen",
					      "rcvd_bytes" };
	struct rte_tel_data *f;
	struct tel_host *all;
	uint32_t i, k, nh;
	uint64_t now_ns;
	int err = 0;

	(void)cmd;
	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	all = read_all(&nh, &now_ns, &err);
	if (all == NULL)
		return err;
	rte_tel_data_start_dict(d);
	f = rte_tel_data_alloc();
	if (f == NULL) {
		free(all);
		return -ENOMEM;
	}
	rte_tel_data_start_array(f, RTE_TEL_STRING_VAL);
	for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
		rte_tel_data_add_array_string(f, fields[k]);
	rte_tel_data_add_dict_container(d, "fields", f, 0);
	for (i = 0; i < nh; i++) {
		const struct tel_host *t = &all[i];

		if (!selected(params, t->ip))
			continue;
		for (k = 0; k < t->npdc; k++) {
			const struct uet_pdc_info *p = &t->pdc[k];
			struct rte_tel_data *a = rte_tel_data_alloc();
			char name[16];

			if (a == NULL) {
				free(all);
				return -ENOMEM;
			}
			rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
			rte_tel_data_add_array_u64(a, p->peer_ip);
			rte_tel_data_add_array_u64(a, p->initiator);
			rte_tel_data_add_array_u64(a, p->state);
			rte_tel_data_add_array_u64(a, p->inflight_bytes);
			rte_tel_data_add_array_u64(a, p->cwnd_bytes);
			rte_tel_data_add_array_u64(a, p->srtt_ns);
			rte_tel_data_add_array_u64(a, p->rto_ns);
			rte_tel_data_add_array_u64(a, p->lb_frozen);
			rte_tel_data_add_array_u64(a, p->rcvd_bytes);
			snprintf(name, sizeof(name), "pdc_%u", p->pdc_id);
			rte_tel_data_add_dict_container(d, name, a, 0);
		}
	}
	free(all);
	return 0;
}

static int
cmd_paths(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint32_t ns = __atomic_load_n(&tel.nslots, __ATOMIC_ACQUIRE), i, s, n = 0;

	(void)cmd;
	(void)params;
	/* EVs that carried traffic: ev -> [packets sent, CE-marked ACKs],
	 * summed over the lcores. DPDK caps a dict at 256 entries: the
	 * first 250 EVs in use are listed. */
	rte_tel_data_start_dict(d);
	for (i = 0; i < tel.ev_count && n < 250; i++) {
		uint64_t tx = 0, ce = 0;
		struct rte_tel_data *a;
		char name[8];

		for (s = 0; s < ns; s++) {
			tx += __atomic_load_n(&tel.slot[s].ev_tx[i], __ATOMIC_RELAXED);
			ce += __atomic_load_n(&tel.slot[s].ev_ce[i], __ATOMIC_RELAXED);
		}
		if (tx == 0 && ce == 0)
			continue;
		a = rte_tel_data_alloc();
		if (a == NULL)
			return -ENOMEM;
		rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
		rte_tel_data_add_array_u64(a, tx);
		rte_tel_data_add_array_u64(a, ce);
		snprintf(name, sizeof(name), "%u", (unsigned)(tel.ev_base + i));
		rte_tel_data_add_dict_container(d, name, a, 0);
		n++;
	}
	return 0;
}

int
uet_dpdk_telemetry_init(uint16_t ev_base, uint32_t ev_count)
{
	if (tel.on)
		return 0;
	tel.ev_base = ev_base;
	tel.ev_count = ev_count;
	/* Registration fails only for duplicates or bad names: ours are
	 * fixed, and a second init returns above. */
	(void)rte_telemetry_register_cmd("/uet/stats", cmd_stats,
		"Transport and NIC counters per endpoint. Parameter: endpoint IPv4 (optional)");
	(void)rte_telemetry_register_cmd("/uet/pdc", cmd_pdc,
		"PDCs per endpoint (state, window, RTT, REPS freezing). Parameter: endpoint IPv4");
	(void)rte_telemetry_register_cmd("/uet/paths", cmd_paths,
		"Per EV (UDP source port): [packets sent, CE-marked ACKs], EVs in use");
	tel.on = true;
	return 0;
}
