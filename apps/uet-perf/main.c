/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf: a perf tool for the UET-style transport over DPDK.
 *
 *   uet-perf <EAL args> -- <options>
 *
 * Modes (lib/conf): every --endpoint a rank of this one process (local);
 * --server [--clients N] / --client HOST (pairwise, like ib_write_bw, one
 * server for many clients); --hosts FILE with a rank (multi-host; the ranks
 * sharing a control address run in one process, the process of rank 0
 * coordinates over TCP). Exit status: 0 when every flow completed (and
 * verified), 1 when the run failed, 2 for bad input.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <rte_log.h>

#include "conf/conf.h"
#include "ctrl.h"
#include "dpdk/dpdk.h"
#include "driver/driver.h"
#include "merge.h"
#include "uet/frame.h"
#include "report/output.h"
#include "run.h"
#include "uet/err.h"


/* Signals counted: the first ends the run (its report still gathered),
 * a second cuts the end-of-run waits short. One Ctrl-C can arrive twice
 * (from the terminal and from a wrapper that forwards it, as timeout and
 * mpirun do): a repeat within STOP_REPEAT_MS counts once. */
#define STOP_REPEAT_MS 500
static volatile int stop_flag;
static volatile uint64_t stop_first_ms;
/* Why the run was stopped, for the timeline's "interrupt" event: a
 * signal here, or a peer's (its stop notice). */
static char stop_why[96] = "SIGINT/SIGTERM";
static char stop_kind[16] = "interrupt";
static volatile int stop_by_peer;

static void
on_signal(int sig)
{
	struct timespec ts;
	uint64_t now_ms;

	(void)sig;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
	now_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	if (stop_flag == 0) {
		stop_first_ms = now_ms;
		stop_flag = 1;
	} else if (now_ms - stop_first_ms >= STOP_REPEAT_MS) {
		stop_flag = 2;
	}
}

/* Everything main keeps across the run. */
#define EAL_ARGS_MAX 128
#define EAL_ARG_MAX 512

struct app {
	struct uet_perf_opts o;
	struct uet_perf_hosts hosts;
	struct uet_perf_algo_cfg algo;
	struct perf_plan plan;
	struct ctrl *ctrl;
	struct ctrl_opts copts;    /* the control channel's key, address, allow list */
	uint32_t *allow_ip;        /* hosts run: every process's control address */
	uint32_t job_id;           /* UET's SES job id: rank 0's draw */
	uint32_t proc, nprocs;
	uint64_t hash;
	struct uet_out *out;
	uint64_t size;            /* of the run in progress */
	enum uet_wl_pattern shown; /* the pattern asked for (pairwise pair
				    * runs as incast) */
	pthread_t watcher;         /* waits for peers' stop notices in a run */
	volatile int watch_done;
	bool watching;
	int eal_argc;              /* the EAL's arguments, launcher's ranks in */
	char *eal_argv[EAL_ARGS_MAX + 1];
	char eal_buf[EAL_ARGS_MAX][EAL_ARG_MAX];
};

/* Processes of a hosts list: ranks sharing a control address share a
 * process; processes are numbered in the order of their first rank. Fills
 * proc[] and returns how many there are. */
static uint32_t
procs_of(const struct uet_perf_hosts *h, uint32_t *proc)
{
	uint32_t n = 0, r, j;

	for (r = 0; r < h->n; r++) {
		for (j = 0; j < r && h->h[j].control_ip != h->h[r].control_ip; j++)
			;
		proc[r] = j == r ? n++ : proc[j];
	}
	return n;
}

/*
 * The EAL's arguments, for one of several processes a launcher starts on a
 * machine: "%l" becomes the launcher's local rank and "%r" the rank (so
 * one command line gives each process its own device and cores, e.g.
 * --vdev=net_af_packet0,iface=veth%l -l %l), and each gets its own DPDK
 * runtime directory (--file-prefix uet-perf-RANK) unless one was chosen or
 * none is used (--in-memory, --no-shconf): two primaries with one prefix
 * refuse to start.
 */
static int
eal_args(struct app *a, int argc, char **argv, char *err, size_t errlen)
{
	const struct uet_perf_launcher *l = &a->o.launcher;
	bool own_dir = false;
	int i;

	a->eal_argc = 0;
	for (i = 0; i < argc && a->eal_argc + 2 < EAL_ARGS_MAX; i++) {
		const char *s = argv[i];
		char *d = a->eal_buf[a->eal_argc];

		if (strstr(s, "--file-prefix") == s || strcmp(s, "--in-memory") == 0 ||
		    strcmp(s, "--no-shconf") == 0)
			own_dir = true;
		if (i > 0 && (strstr(s, "%l") != NULL || strstr(s, "%r") != NULL)) {
			int rc = uet_perf_expand_ranks(s, l->present ? l->rank : UINT32_MAX,
						       l->present ? l->local_rank : UINT32_MAX,
						       d, EAL_ARG_MAX);

			if (rc == UET_CONF_EBAD) {
				snprintf(err, errlen, "EAL argument '%.100s': %%l and %%r are the "
					 "launcher's local rank and rank, and no launcher gave "
					 "them (start under mpirun or srun with --hosts)", s);
				return -1;
			}
			if (rc != 0) {
				snprintf(err, errlen, "EAL argument '%.100s' is too long", argv[i]);
				return -1;
			}
			a->eal_argv[a->eal_argc++] = d;
			continue;
		}
		a->eal_argv[a->eal_argc++] = argv[i];
	}
	if (i < argc) {
		snprintf(err, errlen, "more than %d EAL arguments", EAL_ARGS_MAX - 2);
		return -1;
	}
	if (l->present && !own_dir) {
		snprintf(a->eal_buf[a->eal_argc], EAL_ARG_MAX, "--file-prefix=uet-perf-%u",
			 l->rank);
		a->eal_argv[a->eal_argc] = a->eal_buf[a->eal_argc];
		a->eal_argc++;
	}
	a->eal_argv[a->eal_argc] = NULL;
	return 0;
}

/*
 * Under mpirun/srun, how many processes the launcher started says how the
 * hosts list's ranks map to them: one process per rank (several on a
 * machine, each with its own DPDK device: the launcher's rank is the
 * hosts list's), or one per control address (each running the ranks
 * there: the launcher's rank numbers the addresses in the order they first
 * appear). Anything else would leave ranks without a process or two
 * processes believing they coordinate. proc: per rank, its process (by
 * control address, procs_of) on entry, as decided on return; *me: a rank
 * this process runs.
 */
static int
launcher_procs(struct app *a, uint32_t *proc, uint32_t *me, char *err, size_t errlen)
{
	const struct uet_perf_launcher *l = &a->o.launcher;
	uint32_t n = a->hosts.n, r;

	if (!l->present || l->size == 0 || a->nprocs == n)
		return 0;
	if (l->size == n) {
		for (r = 0; r < n; r++)
			proc[r] = r;
		a->nprocs = n;
		return 0;
	}
	if (l->size == a->nprocs) {
		for (r = 0; r < n && proc[r] != l->rank; r++)
			;
		*me = r;
		return 0;
	}
	snprintf(err, errlen, "the launcher started %u processes (%s is %u), but %.200s has %u ranks "
		 "on %u control addresses: start one process per rank (%u) or one per control "
		 "address (%u)", l->size, l->rank_var, l->rank, a->o.hosts, n, a->nprocs, n,
		 a->nprocs);
	return -1;
}

/* How long a run's barriers and its result gather wait for the others. */
static uint32_t
barrier_ms(const struct app *a)
{
	return (uint32_t)(a->o.barrier_timeout_s * 1000);
}

static int
allgather_ready(struct app *a, const char *what, uint32_t wait_ms, char *err, size_t errlen)
{
	json_t *mine = json_pack("{s:s}", "step", what), *all;

	all = ctrl_allgather(a->ctrl, mine, wait_ms, err, errlen);
	json_decref(mine);
	if (all == NULL)
		return -1;
	json_decref(all);
	return 0;
}

static int
hook_barrier(void *ctx, bool peer_dead, char *err, size_t errlen)
{
	(void)peer_dead;
	return allgather_ready(ctx, "start", barrier_ms(ctx), err, errlen);
}

/* While a run of several processes goes: a peer's stop notice (it was
 * interrupted) ends this process's run too, as a signal would. */
static void *
watch_main(void *arg)
{
	struct app *a = arg;

	perf_thread_off_lcores();
	while (!a->watch_done && !stop_flag) {
		bool lost;
		int from = ctrl_watch(a->ctrl, 100, &lost);

		if (from >= 0) {
			if (lost) {
				snprintf(stop_why, sizeof(stop_why), "process %d closed its control "
					 "connection (it exited or was killed)", from);
				snprintf(stop_kind, sizeof(stop_kind), "peer-lost");
			} else {
				snprintf(stop_why, sizeof(stop_why),
					 "process %d was interrupted (SIGINT/SIGTERM)", from);
			}
			stop_by_peer = 1;
			__atomic_store_n(&stop_flag, stop_flag ? stop_flag : 1, __ATOMIC_SEQ_CST);
		}
	}
	return NULL;
}

static void
watch_stop(struct app *a)
{
	if (!a->watching)
		return;
	a->watch_done = 1;
	pthread_join(a->watcher, NULL);
	a->watching = false;
}

static int
hook_finish(void *ctx, bool peer_dead, char *err, size_t errlen)
{
	struct app *a = ctx;
	uint32_t wait_ms = barrier_ms(a);

	watch_stop(a);
	if (stop_flag >= 1) {
		/* Interrupted here: the others end their runs too, and everyone's
		 * results are still gathered (a second signal cuts that short). */
		if (stop_flag == 1)
			ctrl_set_stop_level(2);
		if (!stop_by_peer && ctrl_send_stop(a->ctrl) != 0)
			fprintf(stderr, "uet-perf: could not tell every process to stop\n");
	}
	/* A peer this process's PDCs gave up on (frozen, cut off) or a run
	 * without progress: the end waits no longer than a stall would have. */
	if (peer_dead && a->o.stall_timeout_s > 0 && a->o.stall_timeout_s * 1000 < wait_ms)
		wait_ms = (uint32_t)(a->o.stall_timeout_s * 1000);
	return allgather_ready(a, "done", wait_ms, err, errlen);
}

static void
hook_started(void *ctx, const struct uet_meas *m)
{
	struct app *a = ctx;

	uet_out_started(a->out, m, a->size);
	if (a->ctrl != NULL && a->nprocs > 1 && !a->watching) {
		ctrl_watch_reset(a->ctrl);
		a->watch_done = 0;
		a->watching = pthread_create(&a->watcher, NULL, watch_main, a) == 0;
	}
}

static void
hook_interval(void *ctx, const struct uet_meas_interval *iv)
{
	struct app *a = ctx;

	uet_out_interval(a->out, iv);
}

/* The options whose values differ between two uet_perf_opts_sym_text()s,
 * as "--name (theirs there, ours here)", into err. */
static void
name_differences(const char *theirs, const char *ours, size_t proc, char *err, size_t errlen)
{
	const char *l = ours;
	size_t k;

	k = (size_t)snprintf(err, errlen, "process %zu was started with other options:", proc);
	while (*l != '\0') {
		const char *eol = strchr(l, '\n'), *eq = strchr(l, '=');
		size_t nlen = (size_t)(eq - l), llen = (size_t)(eol - l);
		const char *t = theirs, *found = NULL;

		if (eol == NULL || eq == NULL || eq > eol)
			break;
		/* the same option's line there */
		while (*t != '\0') {
			const char *te = strchr(t, '\n');

			if (te == NULL)
				break;
			if ((size_t)(te - t) > nlen && strncmp(t, l, nlen + 1) == 0) {
				found = t;
				break;
			}
			t = te + 1;
		}
		if (found == NULL || strncmp(found, l, llen + 1) != 0) {
			const char *fe = found ? strchr(found, '\n') : NULL;

			if (k < errlen)
				k += (size_t)snprintf(err + k, errlen - k, " --%.*s (%.*s there, %.*s "
						      "here)", (int)nlen, l,
						      found ? (int)(fe - found - nlen - 1) : 1,
						      found ? found + nlen + 1 : "?",
						      (int)(llen - nlen - 1), eq + 1);
		}
		l = eol + 1;
	}
}

/* Every local rank's DPDK port is one the EAL found: a wrong number is the
 * user's to fix (exit 2), named with where it came from. A pairwise client
 * learns its rank later; its endpoints are checked the same way. */
static int
ports_exist(const struct app *a, char *err, size_t errlen)
{
	uint32_t i;

	for (i = 0; i < a->o.n_endpoints; i++)
		if (!uet_dpdk_port_exists((uint16_t)a->o.endpoints[i].port)) {
			snprintf(err, errlen, "option '--endpoint': port %u: no such DPDK port (the EAL "
				 "found %u; give it the device with -a or --vdev)",
				 a->o.endpoints[i].port, uet_dpdk_port_count());
			return -1;
		}
	for (i = 0; a->o.mode == UET_PERF_MODE_HOSTS && i < a->plan.nranks; i++)
		if (a->plan.local[i] && !uet_dpdk_port_exists(a->plan.ranks[i].port_id)) {
			snprintf(err, errlen, "%.300s: rank %u: port %u: no such DPDK port (the EAL "
				 "found %u; give it the device with -a or --vdev)", a->o.hosts, i,
				 a->plan.ranks[i].port_id, uet_dpdk_port_count());
			return -1;
		}
	return 0;
}

/* The key file appears: rank 0 of a hosts run may be making it on a shared
 * filesystem. */
static int
key_wait(const struct app *a, char *err, size_t errlen)
{
	uint64_t waited_ms = 0;

	while (access(a->o.auth_key, F_OK) != 0 && errno == ENOENT &&
	       waited_ms < barrier_ms(a) && !stop_flag) {
		usleep(100000);
		waited_ms += 100;
	}
	if (access(a->o.auth_key, F_OK) != 0) {
		snprintf(err, errlen, "option '--auth-key': %.200s: %s (rank 0 makes it when missing: "
			 "give every process the same file)", a->o.auth_key, strerror(errno));
		return -1;
	}
	return 0;
}

/* Who may join the control channel: the key (--auth-key, or the launcher's
 * UET_PERF_AUTH_KEY), where rank 0 listens and, in a hosts run, from which
 * addresses. Rank 0's process makes a missing key file. */
static int
control_opts(struct app *a, char *err, size_t errlen)
{
	struct ctrl_opts *co = &a->copts;
	const char *env = getenv("UET_PERF_AUTH_KEY");
	bool rank0 = a->o.mode == UET_PERF_MODE_SERVER ||
		     (a->o.mode == UET_PERF_MODE_HOSTS && a->proc == 0);
	char why[400];

	memset(co, 0, sizeof(*co));
	/* One process alone has no control channel: nothing to guard. */
	if (a->o.mode == UET_PERF_MODE_LOCAL ||
	    (a->o.mode == UET_PERF_MODE_HOSTS && a->nprocs <= 1))
		return 0;
	if (a->o.mode == UET_PERF_MODE_SERVER && a->o.bind[0] != '\0')
		(void)inet_pton(AF_INET, a->o.bind, &co->bind_ip);
	if (a->o.mode == UET_PERF_MODE_HOSTS && a->nprocs > 1) {
		uint32_t r;

		co->bind_ip = htonl(a->hosts.h[0].control_ip);
		a->allow_ip = calloc(a->hosts.n, sizeof(uint32_t));
		if (a->allow_ip == NULL) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (r = 0; r < a->hosts.n; r++)
			a->allow_ip[r] = htonl(a->hosts.h[r].control_ip);
		co->allow_ip = a->allow_ip;
		co->n_allow = a->hosts.n;
		/* connect from this process's control address: rank 0 lets in
		 * no other */
		for (r = 0; r < a->plan.nranks; r++)
			if (a->plan.local[r]) {
				co->src_ip = htonl(a->hosts.h[r].control_ip);
				break;
			}
	}
	if (a->o.auth_key[0] != '\0') {
		bool made;

		if (a->o.mode == UET_PERF_MODE_HOSTS && !rank0 && key_wait(a, err, errlen) != 0)
			return -1;
		if (ctrl_key_file(a->o.auth_key, rank0, co, &made, why, sizeof(why)) != 0) {
			snprintf(err, errlen, "option '--auth-key': %s", why);
			return -1;
		}
		if (made)
			fprintf(stderr, "uet-perf: made a new key in %s: every other process of the "
				"run needs the same file (--auth-key)\n", a->o.auth_key);
	} else if (env != NULL && env[0] != '\0') {
		if (ctrl_key_hex(env, co, why, sizeof(why)) != 0) {
			snprintf(err, errlen, "UET_PERF_AUTH_KEY: %s", why);
			return -1;
		}
	}
	return 0;
}

/* Hello: versions and the configuration hash must agree; each process
 * tells the data addresses of its ranks (and their MACs when configured)
 * to the others, so a pairwise client and server learn each other's. */
static int
hello(struct app *a, char *err, size_t errlen)
{
	struct perf_plan *p = &a->plan;
	json_t *mine, *all, *ranks = json_array(), *o;
	char hash[32], *opts;
	size_t i, k, need;
	uint32_t r;

	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)a->hash);
	for (r = 0; r < p->nranks; r++) {
		const uint8_t *m = p->ranks[r].mac;

		if (!p->local[r])
			continue;
		json_array_append_new(ranks, json_pack("[i,I,b,[i,i,i,i,i,i]]", (int)r,
			(json_int_t)p->ranks[r].ip, p->ranks[r].has_mac, m[0], m[1], m[2], m[3],
			m[4], m[5]));
	}
	/* The agreed options by name, so a mismatch can say which. */
	need = uet_perf_opts_sym_text(&a->o, NULL, 0) + 1;
	opts = malloc(need);
	if (opts == NULL) {
		json_decref(ranks);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	(void)uet_perf_opts_sym_text(&a->o, opts, need);
	mine = json_pack("{s:s, s:s, s:i, s:o, s:s}", "version", uet_perf_version(), "hash",
			 hash, "proc", (int)a->proc, "ranks", ranks, "options", opts);
	json_object_set_new(mine, "job", json_integer(a->job_id));
	all = ctrl_allgather(a->ctrl, mine, barrier_ms(a), err, errlen);
	json_decref(mine);
	if (all == NULL) {
		free(opts);
		return -1;
	}
	json_array_foreach(all, i, o) {
		const char *v = json_string_value(json_object_get(o, "version"));
		const char *h = json_string_value(json_object_get(o, "hash"));
		json_t *e;

		if (v == NULL || strcmp(v, uet_perf_version()) != 0) {
			snprintf(err, errlen, "process %zu runs uet-perf %s, this one %s", i,
				 v ? v : "?", uet_perf_version());
			json_decref(all);
			free(opts);
			return -1;
		}
		if (h == NULL || strcmp(h, hash) != 0) {
			const char *theirs = json_string_value(json_object_get(o, "options"));

			if (theirs != NULL)
				name_differences(theirs, opts, i, err, errlen);
			else
				snprintf(err, errlen, "process %zu was started with other workload or "
					 "transport options (config hash %s, here %s)", i,
					 h ? h : "?", hash);
			json_decref(all);
			free(opts);
			return -1;
		}
		json_array_foreach(json_object_get(o, "ranks"), k, e) {
			int rr, b[6], j, has;
			json_int_t ip;

			if (json_unpack(e, "[i,I,b,[i,i,i,i,i,i]]", &rr, &ip, &has, &b[0], &b[1], &b[2],
					&b[3], &b[4], &b[5]) != 0 ||
			    rr < 0 || (uint32_t)rr >= p->nranks || p->local[rr])
				continue;
			if (p->ranks[rr].ip == 0)
				p->ranks[rr].ip = (uint32_t)ip;
			if (has && !p->ranks[rr].has_mac) {
				for (j = 0; j < 6; j++)
					p->ranks[rr].mac[j] = (uint8_t)b[j];
				p->ranks[rr].has_mac = true;
			}
		}
	}
	/* The run's job id is rank 0's (the versions agree by now). */
	{
		json_int_t job = json_integer_value(json_object_get(json_array_get(all, 0), "job"));

		json_decref(all);
		free(opts);
		if (job <= 0 || job > 0xffffff) {
			snprintf(err, errlen, "rank 0 sent no job id");
			return -1;
		}
		a->job_id = (uint32_t)job;
	}
	for (r = 0; r < p->nranks; r++) {
		if (p->ranks[r].ip == 0) {
			snprintf(err, errlen, "no process announced rank %u's data address", r);
			return -1;
		}
	}
	return 0;
}

static json_t *
test_start_json(const struct app *a)
{
	const struct uet_perf_opts *o = &a->o;
	const struct perf_plan *p = &a->plan;
	json_t *ts = json_object();

	json_object_set_new(ts, "pattern", json_string(o->pattern));
	json_object_set_new(ts, "hosts", json_integer(p->nranks));
	json_object_set_new(ts, "processes", json_integer(a->nprocs ? a->nprocs : 1));
	json_object_set_new(ts, "size_bytes", json_integer((json_int_t)p->wl.size_bytes));
	json_object_set_new(ts, "streams", json_integer(p->wl.streams));
	json_object_set_new(ts, "iterations", json_integer(p->repeat ? 0 : p->wl.iterations));
	json_object_set_new(ts, "duration_ns", json_integer((json_int_t)p->duration_ns));
	json_object_set_new(ts, "omit_ns", json_integer((json_int_t)p->omit_ns));
	json_object_set_new(ts, "parallel", json_integer(o->parallel));
	json_object_set_new(ts, "rate_bps", json_integer((json_int_t)p->wl.rate_bps));
	json_object_set_new(ts, "seed", json_integer((json_int_t)p->wl.seed));
	json_object_set_new(ts, "lb", json_string(o->lb));
	json_object_set_new(ts, "cc", json_string(o->cc));
	json_object_set_new(ts, "mtu_bytes", json_integer(o->mtu_bytes));
	json_object_set_new(ts, "ack_every_bytes", json_integer(o->ack_every_bytes));
	json_object_set_new(ts, "base_rtt_ns", json_integer((json_int_t)p->ep.base_rtt_ns));
	json_object_set_new(ts, "link_bps", json_integer((json_int_t)p->ep.link_bps));
	json_object_set_new(ts, "verify", json_boolean(p->verify));
	json_object_set_new(ts, "job_id", json_integer(a->job_id));
	{
		/* What reruns it: uet-perf --config FILE with this text. */
		char *cfg = uet_perf_opts_effective_text(o);

		if (cfg != NULL)
			json_object_set_new(ts, "config", json_string(cfg));
		free(cfg);
	}
	if (a->ctrl != NULL) {
		uint32_t n;
		const struct ctrl_refused *r = ctrl_refused(a->ctrl, &n);

		json_object_set_new(ts, "control", json_pack("{s:b, s:i, s:{s:i, s:i, s:i, s:i, "
			"s:i, s:i, s:i, s:i}}", "auth", a->copts.key_len > 0, "refused", (int)n,
			"refused_by", "address", (int)r->address, "key", (int)r->key, "malformed",
			(int)r->malformed, "rank", (int)r->rank, "timeout", (int)r->timeout, "evicted",
			(int)r->evicted, "closed", (int)r->closed, "unfinished", (int)r->unfinished));
	}
	return ts;
}

/* A measurement of the whole run (every rank local, time 0 = start) with
 * the same flows, EVs and bins as this process's. */
static int
global_meas(const struct uet_wl *wl, const struct uet_meas_config *lc, const uint32_t *rank_clock,
	    struct uet_meas **out)
{
	struct uet_meas_config gc = *lc;
	struct uet_meas_flow *mf = calloc(wl->nflows ? wl->nflows : 1, sizeof(*mf));
	uint32_t i;
	int rc;

	if (mf == NULL)
		return UET_ERR_NOMEM;
	for (i = 0; i < wl->nflows; i++) {
		mf[i].src = wl->flows[i].src;
		mf[i].dst = wl->flows[i].dst;
		mf[i].size_bytes = wl->flows[i].size_bytes;
		mf[i].stream = wl->flows[i].stream;
		mf[i].step = wl->flows[i].step;
	}
	gc.flows = mf;
	gc.n_flows = wl->nflows;
	gc.rank_local = NULL;
	gc.rank_clock = rank_clock;
	gc.n_ranks = wl->hosts;
	gc.start_ns = 0;
	rc = uet_meas_create(&gc, out);
	free(mf);
	return rc;
}

/* path with every "%r" replaced by rank. */
static void
expand_rank(const char *path, uint32_t rank, char *out, size_t n)
{
	uet_out_expand(path, UINT32_MAX, rank, out, n);
}

static int
bad(const char *msg)
{
	fprintf(stderr, "uet-perf: %s\n", msg);
	return UET_CONF_EXIT_USAGE;
}

/*
 * The run could not start (ports, the control channel, a peer that never
 * came, neighbours that never answered): say why, and where a JSON report
 * was asked for, write one that says it (iperf3's shape: start, empty
 * intervals and end, error) so that scripts reading it see the failure,
 * not a missing or stale file.
 */
static void
no_run(const struct app *a, const char *version, const char *why)
{
	char path[UET_PERF_PATH_MAX];
	json_t *rep;

	fprintf(stderr, "uet-perf: %s\n", why);
	expand_rank(a->o.json, a->proc, path, sizeof(path));
	if (path[0] == '\0' || (a->o.mode == UET_PERF_MODE_HOSTS && a->nprocs > 1 &&
				 a->proc != 0 && strstr(a->o.json, "%r") == NULL))
		return;
	rep = json_pack("{s:{s:s,s:i},s:[],s:{},s:s}", "start", "version", version, "rank",
			(int)a->proc, "intervals", "end", "error", why);
	if (rep == NULL)
		return;
	if (strcmp(path, "-") == 0) {
		json_dumpf(rep, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else if (json_dump_file(rep, path, JSON_INDENT(2)) != 0) {
		fprintf(stderr, "uet-perf: cannot write %s\n", path);
	}
	json_decref(rep);
}

/* Ranks, local set and endpoint addresses from the mode (for a pairwise
 * client: once the control channel told its rank and the size). */
static int
make_ranks(struct app *a, uint32_t my_rank, char *err, size_t errlen)
{
	const struct uet_perf_opts *o = &a->o;
	struct perf_plan *p = &a->plan;
	uint32_t r, i;

	switch (o->mode) {
	case UET_PERF_MODE_LOCAL:
		p->nranks = o->n_endpoints;
		break;
	case UET_PERF_MODE_HOSTS:
		p->nranks = a->hosts.n;
		break;
	case UET_PERF_MODE_SERVER:
		p->nranks = o->clients + 1;
		break;
	case UET_PERF_MODE_CLIENT:
		p->nranks = a->nprocs;
		break;
	default:
		snprintf(err, errlen, "choose a mode: --endpoint (two or more, one process), "
			 "--server, --client HOST or --hosts FILE (see --help)");
		return -1;
	}
	p->ranks = calloc(p->nranks, sizeof(*p->ranks));
	p->local = calloc(p->nranks, sizeof(bool));
	if (p->ranks == NULL || p->local == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (r = 0; r < p->nranks; r++) {
		const struct uet_perf_endpoint *e = NULL;

		if (o->mode == UET_PERF_MODE_LOCAL) {
			e = &o->endpoints[r];
			p->local[r] = true;
		} else if (o->mode == UET_PERF_MODE_HOSTS) {
			e = &a->hosts.h[r];
		} else if (r == my_rank) {
			/* Pairwise: the server is rank 0 (it listens), the
			 * clients 1..N; each knows only its own endpoint. */
			if (o->n_endpoints != 1) {
				snprintf(err, errlen, "--server and --client need exactly one "
					 "--endpoint (this side's data address)");
				return -1;
			}
			e = &o->endpoints[0];
			p->local[r] = true;
		}
		if (e == NULL)
			continue;
		p->ranks[r].ip = e->ip;
		p->ranks[r].port_id = e->port;
		p->ranks[r].queue = e->queue;
		p->ranks[r].prefix_len = e->prefix_len;
		p->ranks[r].gateway = e->gateway;
		memcpy(p->ranks[r].mac, e->mac, 6);
		p->ranks[r].has_mac = e->has_mac;
	}
	for (i = 0; i < o->n_neighbors; i++)
		for (r = 0; r < p->nranks; r++)
			if (p->ranks[r].ip == o->neighbors[i].ip) {
				memcpy(p->ranks[r].mac, o->neighbors[i].mac, 6);
				p->ranks[r].has_mac = true;
			}
	if (o->mode == UET_PERF_MODE_HOSTS) {
		uint32_t me = o->rank != UET_PERF_RANK_UNSET ? o->rank : o->local.r[0].lo;
		uint32_t *proc = calloc(a->hosts.n, sizeof(uint32_t));

		if (proc == NULL) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		a->nprocs = procs_of(&a->hosts, proc);
		if (launcher_procs(a, proc, &me, err, errlen) != 0) {
			free(proc);
			return -1;
		}
		a->proc = proc[me];
		for (r = 0; r < p->nranks; r++)
			p->local[r] = o->local.n > 0 ? uet_perf_set_has(&o->local, r)
						     : proc[r] == a->proc;
		free(proc);
	} else if (o->mode == UET_PERF_MODE_LOCAL) {
		a->nprocs = 1;
	}
	p->proc_rank = o->mode == UET_PERF_MODE_CLIENT ? my_rank : a->proc;
	for (i = 0, r = 0; r < p->nranks; r++)
		i += p->local[r];
	return uet_out_check_pcap(o->pcap, i, err, errlen);
}

static int
workload_spec(struct app *a, char *err, size_t errlen)
{
	const struct uet_perf_opts *o = &a->o;
	struct perf_plan *p = &a->plan;

	if (uet_drv_spec_from_opts(o, p->nranks, p->ep.link_bps, &p->wl, &p->repeat, err,
				   errlen) != 0)
		return -1;
	a->shown = p->wl.pattern;
	/* Pairwise: every client sends to the server (perftest's direction;
	 * with one client that is pair 1 -> 0). */
	if ((o->mode == UET_PERF_MODE_CLIENT || o->mode == UET_PERF_MODE_SERVER) &&
	    p->wl.pattern == UET_WL_PAIR) {
		p->wl.pattern = UET_WL_INCAST;
		p->wl.root = 0;
		p->wl.fanin = p->nranks - 1;
	}
	/* perftest's latency tests: the client sends the first ping (to the
	 * server, rank 0: conf_finalize allows one client). */
	if ((o->mode == UET_PERF_MODE_CLIENT || o->mode == UET_PERF_MODE_SERVER) &&
	    p->wl.pattern == UET_WL_PINGPONG)
		p->wl.root = 1;
	return 0;
}

/* A workload that cannot be built is bad input: say so before traffic. */
static int
probe_workload(struct app *a, char *err, size_t errlen)
{
	struct uet_wl_spec s = a->plan.wl;
	struct uet_wl *wl;
	uint32_t i, *cnt, need = 0;
	int rc = 0;

	s.size_bytes = a->o.min_bytes;
	if (uet_wl_build(&s, &wl, err, errlen) != 0)
		return -1;
	for (i = 0; i < wl->unsupported; i++)
		fprintf(stderr, "uet-perf: %s: not supported on NICs, ignored (a failure "
			"needs switch access: use --exec-at or --fail-ev-at)\n",
			wl->unsupported_text[i]);
	/* Each local rank's endpoint holds a PDC per (peer, stream) it opens
	 * or accepts: size the table from the workload, as uet-sim does, so
	 * many streams or ranks do not run out of PDCs mid-run. */
	cnt = calloc(4 * (size_t)(wl->hosts ? wl->hosts : 1), sizeof(*cnt));
	if (cnt == NULL || uet_wl_count_pdcs(wl, cnt, cnt + wl->hosts, cnt + 2 * wl->hosts,
					     cnt + 3 * wl->hosts) != 0) {
		snprintf(err, errlen, "out of memory sizing the endpoints");
		rc = -1;
	}
	for (i = 0; rc == 0 && i < wl->hosts && i < a->plan.nranks; i++)
		if (a->plan.local[i] && cnt[i] + cnt[wl->hosts + i] > need)
			need = cnt[i] + cnt[wl->hosts + i];
	if (rc == 0 && need + 2 > 65535) {
		snprintf(err, errlen, "a rank would need %u PDCs (one per peer and stream), more "
			 "than an endpoint holds (65533): fewer --streams or ranks", need);
		rc = -1;
	}
	if (rc == 0 && need + 2 > a->plan.ep.max_pdcs)
		a->plan.ep.max_pdcs = need + 2;
	free(cnt);
	uet_wl_free(wl);
	return rc;
}

/* --client HOST: its IPv4 address (a name is looked up). */
static int
coordinator_ip(const char *host, char *ip, size_t n, char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0 || res == NULL) {
		snprintf(err, errlen, "option '--client': cannot resolve '%s': %s", host,
			 gai_strerror(rc));
		return -1;
	}
	inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, ip, (socklen_t)n);
	freeaddrinfo(res);
	return 0;
}

static void
set_verbosity(uint32_t v)
{
	/* -v: what uet-perf and lib/dpdk set up; -vv: debug. */
	if (v >= 1)
		(void)rte_log_set_level_pattern("uet.*", v >= 2 ? RTE_LOG_DEBUG : RTE_LOG_INFO);
}

/* Rank 0 replays each process's export into the run's measurement as it
 * arrives, so that it holds one at a time. */
struct merging {
	struct uet_meas *g;
	struct uet_ep_stats sum;
	uint64_t end_ns;
};

static void
merge_one(void *ctx, uint32_t proc, json_t *msg)
{
	struct merging *mg = ctx;

	if (perf_import(mg->g, &mg->sum, msg, &mg->end_ns) != 0)
		fprintf(stderr, "uet-perf: process %u sent a malformed result\n", proc);
}

/* clock[r] (hosts entries): the process whose clock rank r's times are on,
 * UINT32_MAX for none, from every process's list of its ranks. Each
 * process's times are relative to its own start (the end of the start
 * barrier). NULL on error, with the reason in err. */
static uint32_t *
rank_clocks(struct app *a, uint32_t hosts, char *err, size_t errlen)
{
	uint32_t *clock = malloc(((size_t)hosts + 1) * sizeof(*clock)), r;
	json_t *mine = json_object(), *ranks = json_array(), *all, *e, *v;
	size_t j, i;

	for (r = 0; r < a->plan.nranks; r++)
		if (a->plan.local[r])
			json_array_append_new(ranks, json_integer(r));
	json_object_set_new(mine, "ranks", ranks);
	all = clock != NULL ? ctrl_allgather(a->ctrl, mine, barrier_ms(a), err, errlen) : NULL;
	json_decref(mine);
	if (all == NULL) {
		if (clock == NULL)
			snprintf(err, errlen, "out of memory for the run's measurement");
		free(clock);
		return NULL;
	}
	for (r = 0; r < hosts; r++)
		clock[r] = UINT32_MAX;
	json_array_foreach(all, j, e)
		json_array_foreach(json_object_get(e, "ranks"), i, v)
			if (json_integer_value(v) >= 0 && json_integer_value(v) < hosts)
				clock[json_integer_value(v)] = (uint32_t)j;
	json_decref(all);
	return clock;
}

/*
 * Gather every process's measurement into one of the whole run. Each
 * process sends its export to rank 0, which replays them into one as they
 * arrive and sends that one's export back to every process (itself
 * included, in effect): each replays it into the measurement it reports,
 * so every process prints the same report of the whole run, and what
 * crosses the control channel or sits in a process's memory is one or two
 * exports, not one per process (a long run's timeline has millions of
 * bins).
 */
static struct uet_meas *
gather(struct app *a, const struct perf_result *res, uint64_t *end_ns, char *err,
       size_t errlen)
{
	uint32_t hosts = res->wl->hosts, *clock = rank_clocks(a, hosts, err, errlen);
	const struct uet_meas_config *lc = uet_meas_config(res->meas);
	struct merging mg = { .g = NULL };
	json_t *mine, *merged = NULL, *got;
	struct uet_meas *g = NULL;
	struct uet_ep_stats sum;
	int rc;

	if (clock == NULL)
		return NULL;
	if (ctrl_rank(a->ctrl) == 0 && global_meas(res->wl, lc, clock, &mg.g) != 0) {
		free(clock);
		snprintf(err, errlen, "out of memory for the run's measurement");
		return NULL;
	}
	mine = perf_export(res->meas, res->end_ns);
	rc = ctrl_gather_each(a->ctrl, mine, barrier_ms(a), merge_one, &mg, err, errlen);
	json_decref(mine);
	if (rc == 0 && mg.g != NULL) {
		/* The processes' bins and intervals hold their resends. */
		(void)uet_meas_set_ep_stats(mg.g, UET_MEAS_NO_TIME, &mg.sum);
		merged = perf_export(mg.g, mg.end_ns);
		if (merged == NULL)
			merged = json_pack("{s:s}", "error", "out of memory for the run's measurement");
	}
	uet_meas_destroy(mg.g);
	got = rc == 0 ? ctrl_bcast(a->ctrl, merged, barrier_ms(a), err, errlen) : NULL;
	json_decref(merged);
	memset(&sum, 0, sizeof(sum));
	*end_ns = 0;
	if (got == NULL) {
		/* err says why */
	} else if (json_is_string(json_object_get(got, "error"))) {
		snprintf(err, errlen, "%s", json_string_value(json_object_get(got, "error")));
	} else if (global_meas(res->wl, lc, clock, &g) != 0) {
		snprintf(err, errlen, "out of memory for the run's measurement");
	} else if (perf_import(g, &sum, got, end_ns) != 0) {
		snprintf(err, errlen, "control channel: rank 0 sent a malformed result");
		uet_meas_destroy(g);
		g = NULL;
	} else {
		(void)uet_meas_set_ep_stats(g, UET_MEAS_NO_TIME, &sum);
	}
	json_decref(got);
	free(clock);
	return g;
}

static int
run_sizes(struct app *a, struct perf_ctx *ctx)
{
	const struct uet_perf_opts *o = &a->o;
	uint64_t size, last = o->max_bytes;
	int exit_code = 0;
	char err[512];

	for (size = o->min_bytes; size <= last && !stop_flag;
	     size = size * (o->step_factor > 1 ? o->step_factor : 2)) {
		struct uet_wl_spec spec = a->plan.wl;
		struct perf_result res;
		struct uet_meas *report_m;
		uint64_t end_ns;
		const char *run_err;
		int rc;

		spec.size_bytes = size;
		a->size = size;
		rc = perf_run_one(ctx, &spec, &res);
		watch_stop(a); /* a run that failed before its end-of-run barrier */
		run_err = rc != 0 ? res.error : NULL;
		if (rc != 0)
			fprintf(stderr, "uet-perf: %s\n", res.error);
		report_m = res.meas;
		end_ns = res.end_ns;
		if (a->nprocs > 1 && res.meas != NULL) {
			/* Peers that are gone cannot send their part: report what
			 * this process measured, and say so. */
			if (!res.peers_lost)
				report_m = gather(a, &res, &end_ns, err, sizeof(err));
			else
				snprintf(err, sizeof(err), "the other processes did not finish");
			if (report_m == NULL || res.peers_lost) {
				fprintf(stderr, "uet-perf: %s: the report below is this process's "
					"alone\n", err);
				report_m = res.meas;
				end_ns = res.end_ns;
				exit_code = 1;
			}
		}
		if (report_m != NULL &&
		    uet_out_result(a->out, report_m, res.wl, size, end_ns, run_err, err,
				    sizeof(err)) != 0) {
			fprintf(stderr, "uet-perf: %s\n", err);
			exit_code = 1;
		}
		if (rc != 0 || (!a->plan.repeat && !res.complete) || res.verify_bad_msgs != 0 ||
		    (report_m != NULL && !uet_meas_flows_ok(report_m)))
			exit_code = 1;
		if (report_m != NULL && report_m != res.meas) {
			uint64_t checked, badn;

			uet_meas_verify_get(report_m, &checked, &badn);
			if (badn != 0)
				exit_code = 1;
		}
		if (res.verify_bad_msgs != 0)
			fprintf(stderr, "uet-perf: %llu messages failed verification\n",
				(unsigned long long)res.verify_bad_msgs);
		if (report_m != res.meas)
			uet_meas_destroy(report_m);
		uet_meas_destroy(res.meas);
		uet_wl_free(res.wl);
		if (rc != 0 || size > last / (o->step_factor > 1 ? o->step_factor : 2))
			break;
	}
	return exit_code;
}

static int
app_args(int argc, char **argv, int *dd, struct app *a, char *err, size_t errlen)
{
	char **v;
	int n, i, rc;

	/* uet-perf <EAL args> -- <options>: parse ours first, so bad options
	 * fail fast (exit 2) without starting DPDK. */
	for (*dd = 1; *dd < argc && strcmp(argv[*dd], "--") != 0; (*dd)++)
		;
	n = *dd < argc ? argc - *dd : argc;
	v = calloc((size_t)n + 1, sizeof(char *));
	if (v == NULL)
		return UET_CONF_EBAD;
	v[0] = argv[0];
	for (i = 1; i < n; i++)
		v[i] = *dd < argc ? argv[*dd + i] : argv[i];
	rc = uet_perf_opts_parse(&a->o, n, v, err, errlen);
	free(v);
	return rc;
}

int
main(int argc, char **argv)
{
	static struct app a;
	struct perf_plan *plan = &a.plan;
	struct perf_fail_ev *fails = NULL;
	struct perf_exec *execs = NULL;
	struct perf_ctx *ctx = NULL;
	struct uet_out_cfg oc;
	char err[512] = "", version[64], coord[64] = "";
	int dd, rc, exit_code = 1;
	uint32_t k, my_rank = 0;
	json_t *ts = NULL;
	char json_path[UET_PERF_PATH_MAX], csv_prefix[UET_PERF_PATH_MAX];

	rc = app_args(argc, argv, &dd, &a, err, sizeof(err));
	if (rc == UET_CONF_HELP) {
		uet_perf_opts_usage(stdout);
		return 0;
	}
	if (rc == UET_CONF_VERSION) {
		printf("uet-perf %s\n", uet_perf_version());
		return 0;
	}
	if (rc == UET_CONF_PRINT) {
		uet_perf_opts_write_effective(&a.o, stdout);
		return 0;
	}
	if (rc != UET_CONF_OK)
		return bad(err);
	if (uet_perf_opts_resolve_rank(&a.o, getenv, err, sizeof(err)) != 0)
		return bad(err);
	{
		/* Output paths before anything runs (a %r checked as rank 0). */
		char jp[UET_PERF_PATH_MAX], cp[UET_PERF_PATH_MAX];

		expand_rank(a.o.json, 0, jp, sizeof(jp));
		expand_rank(a.o.csv, 0, cp, sizeof(cp));
		if (uet_out_check_paths(jp[0] ? jp : NULL, cp[0] ? cp : NULL, err,
					sizeof(err)) != 0)
			return bad(err);
	}
	if (a.o.mode == UET_PERF_MODE_HOSTS &&
	    (uet_perf_hosts_load(&a.hosts, a.o.hosts, err, sizeof(err)) != 0 ||
	     uet_perf_opts_check_hosts(&a.o, &a.hosts, err, sizeof(err)) != 0))
		return bad(err);
	if (uet_perf_opts_to_ep_config(&a.o, &plan->ep, &a.algo, err, sizeof(err)) != 0)
		return bad(err);
	if (a.o.mode == UET_PERF_MODE_CLIENT &&
	    coordinator_ip(a.o.client, coord, sizeof(coord), err, sizeof(err)) != 0)
		return bad(err);
	/* Everything that needs no peer is checked before DPDK starts. */
	if (a.o.mode != UET_PERF_MODE_CLIENT &&
	    (make_ranks(&a, 0, err, sizeof(err)) != 0 || workload_spec(&a, err, sizeof(err)) != 0 ||
	     probe_workload(&a, err, sizeof(err)) != 0)) {
		exit_code = bad(err);
		goto out;
	}
	if (a.o.mode == UET_PERF_MODE_NONE) {
		exit_code = bad("choose a mode: --endpoint (two or more, one process), --server, "
				"--client HOST or --hosts FILE (see --help)");
		goto out;
	}
	if (control_opts(&a, err, sizeof(err)) != 0) {
		exit_code = bad(err);
		goto out;
	}
	/* A job id for the run (a multi-process run takes rank 0's): another
	 * run on the same fabric and port has another one, and neither's
	 * packets count in the other. */
	do {
		uint8_t b[3];

		if (RAND_bytes(b, sizeof(b)) != 1) {
			exit_code = bad("no random bytes for the job id");
			goto out;
		}
		a.job_id = (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
	} while (a.job_id == 0);
	plan->duration_ns = (uint64_t)(a.o.duration_s * 1e9);
	plan->parallel = a.o.parallel;
	uet_perf_opts_times_ns(&a.o, &plan->bin_ns, &plan->interval_ns, &plan->omit_ns);
	plan->stall_ns = (uint64_t)(a.o.stall_timeout_s * 1e9);
	plan->verify = a.o.verify;
	plan->dscp_data = a.o.dscp_data;
	plan->dscp_ctrl = a.o.dscp_ctrl;
	plan->dscp_retx = a.o.dscp_retx;
	plan->zero_udp_csum = a.o.zero_udp_csum;
	plan->nb_mbufs = a.o.mbufs;
	plan->nb_rxd = (uint16_t)a.o.rxd;
	plan->nb_txd = (uint16_t)a.o.txd;
	plan->frame_mtu = (uint16_t)(UET_ETH_HLEN + uet_perf_ip_mtu_bytes(&a.o));
	plan->arp_timeout_ns = 5000000000ULL;
	plan->pcap = a.o.pcap[0] != '\0' ? a.o.pcap : NULL;
	plan->pcap_count = a.o.pcap_count;
	plan->pcap_snaplen = a.o.pcap_snaplen;
	plan->stop = &stop_flag;
	plan->stop_why = stop_why;
	plan->stop_kind = stop_kind;
	_Static_assert(UET_PERF_MAX_FAIL_EV * UET_PERF_SET_MAX <= UET_DPDK_MAX_FAIL_RANGES,
		       "the fail-EV hook must hold every range the options give");
	fails = calloc(UET_PERF_MAX_FAIL_EV * UET_PERF_SET_MAX, sizeof(*fails));
	execs = calloc(UET_PERF_MAX_EXEC, sizeof(*execs));
	if (fails == NULL || execs == NULL)
		goto out;
	for (k = 0; k < a.o.n_fail_ev; k++) {
		uint32_t j;

		for (j = 0; j < a.o.fail_ev[k].evs.n; j++) {
			fails[plan->nfail].at_ns = a.o.fail_ev[k].at_ns;
			fails[plan->nfail].lo = (uint16_t)a.o.fail_ev[k].evs.r[j].lo;
			fails[plan->nfail].hi = (uint16_t)a.o.fail_ev[k].evs.r[j].hi;
			plan->nfail++;
		}
	}
	for (k = 0; k < a.o.n_exec; k++) {
		execs[k].at_ns = a.o.exec[k].at_ns;
		execs[k].cmd = a.o.exec[k].cmd;
	}
	plan->fail = fails;
	plan->exec = execs;
	plan->nexec = a.o.n_exec;
	a.hash = uet_perf_opts_hash(&a.o);
	snprintf(version, sizeof(version), "uet-perf %s", uet_perf_version());

	perf_save_cpus();
	if (eal_args(&a, dd < argc ? dd : 1, argv, err, sizeof(err)) != 0) {
		exit_code = bad(err);
		goto out;
	}
	rc = uet_dpdk_eal_init(a.eal_argc, a.eal_argv, err, sizeof(err));
	if (rc < 0) {
		exit_code = bad(err);
		goto out;
	}
	if (ports_exist(&a, err, sizeof(err)) != 0) {
		exit_code = bad(err);
		goto eal;
	}
	set_verbosity(a.o.verbose);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ctrl_set_stop(&stop_flag);
	if (uet_dpdk_telemetry_init(plan->ep.ev_base, plan->ep.ev_count) != 0)
		fprintf(stderr, "uet-perf: telemetry disabled: out of memory\n");
	/* Ports start before the control channel opens, except on a pairwise
	 * client (its rank comes from the server): a peer that connects is
	 * then sure to find our ports up (net_memif's server side must start
	 * first). */
	if (a.o.mode != UET_PERF_MODE_CLIENT && perf_setup(plan, &ctx, err, sizeof(err)) != 0) {
		no_run(&a, version, err);
		goto eal;
	}
	/* The control channel: rank 0's process listens, the others join. */
	if (a.o.mode == UET_PERF_MODE_SERVER || a.o.mode == UET_PERF_MODE_CLIENT ||
	    a.nprocs > 1) {
		uint32_t me = 0, n = 0;

		if (a.o.mode == UET_PERF_MODE_SERVER) {
			n = a.o.clients + 1;
		} else if (a.o.mode == UET_PERF_MODE_CLIENT) {
			me = CTRL_RANK_ANY;
		} else {
			me = a.proc;
			n = a.nprocs;
			uet_ip_str(a.hosts.h[0].control_ip, coord);
		}
		/* What it waits for, as iperf3 says it (a wait may be long). */
		if (me == 0)
			fprintf(stderr, "uet-perf: listening on %s:%u for %u other process%s%s "
				"(up to %.0f s)\n", a.o.mode == UET_PERF_MODE_SERVER ?
				(a.o.bind[0] ? a.o.bind : "every address") : coord, a.o.control_port,
				n - 1, n - 1 == 1 ? "" : "es", a.copts.key_len ? ", with a key" : "",
				a.o.barrier_timeout_s);
		else
			fprintf(stderr, "uet-perf: joining rank 0 at %s:%u (up to %.0f s)\n", coord,
				a.o.control_port, a.o.barrier_timeout_s);
		if (ctrl_open(me, n, coord, a.o.control_port, barrier_ms(&a), &a.copts, &a.ctrl,
			      err, sizeof(err)) != 0) {
			no_run(&a, version, err);
			goto teardown;
		}
		if (ctrl_rank(a.ctrl) == 0) {
			uint32_t nref;
			const struct ctrl_refused *r = ctrl_refused(a.ctrl, &nref);

			if (nref > 0)
				fprintf(stderr, "uet-perf: control channel: turned away %u connections "
					"(wrong or no key %u, other addresses %u, malformed %u, rank "
					"taken or out of range %u, handshake too slow %u, pushed out %u, "
					"closed %u, unfinished %u)\n", nref, r->key, r->address,
					r->malformed, r->rank, r->timeout, r->evicted, r->closed,
					r->unfinished);
		}
		if (a.o.mode == UET_PERF_MODE_CLIENT || a.o.mode == UET_PERF_MODE_SERVER) {
			a.proc = ctrl_rank(a.ctrl);
			a.nprocs = ctrl_nranks(a.ctrl);
			my_rank = a.proc;
		}
		if (a.o.mode == UET_PERF_MODE_CLIENT &&
		    (make_ranks(&a, my_rank, err, sizeof(err)) != 0 ||
		     workload_spec(&a, err, sizeof(err)) != 0 ||
		     probe_workload(&a, err, sizeof(err)) != 0)) {
			exit_code = bad(err);
			goto teardown;
		}
		if (hello(&a, err, sizeof(err)) != 0) {
			no_run(&a, version, err);
			goto teardown;
		}
		plan->hooks.barrier = hook_barrier;
		plan->hooks.finish = hook_finish;
	}
	plan->hooks.ctx = &a;
	plan->hooks.started = hook_started;
	plan->hooks.interval = hook_interval;
	if (ctx == NULL && perf_setup(plan, &ctx, err, sizeof(err)) != 0) {
		no_run(&a, version, err);
		goto eal;
	}
	if (perf_connect(ctx, a.job_id, err, sizeof(err)) != 0) {
		no_run(&a, version, err);
		goto teardown;
	}
	ts = test_start_json(&a);
	json_object_set_new(ts, "lcores", json_integer(perf_lcores(ctx)));
	memset(&oc, 0, sizeof(oc));
	oc.version = version;
	oc.test_start = ts;
	/* In a multi-process hosts run every process has the whole run: rank
	 * 0 alone writes the JSON and CSV (one file on a shared filesystem,
	 * one JSON document on a launcher's merged stdout), other ranks only
	 * to paths with %r, which becomes the rank. */
	expand_rank(a.o.json, a.proc, json_path, sizeof(json_path));
	expand_rank(a.o.csv, a.proc, csv_prefix, sizeof(csv_prefix));
	if (a.o.mode == UET_PERF_MODE_HOSTS && a.nprocs > 1 && a.proc != 0) {
		if (strstr(a.o.json, "%r") == NULL)
			json_path[0] = '\0';
		if (strstr(a.o.csv, "%r") == NULL)
			csv_prefix[0] = '\0';
	}
	oc.json_path = json_path[0] ? json_path : NULL;
	oc.json_stream = a.o.json_stream &&
			 !(a.o.mode == UET_PERF_MODE_HOSTS && a.nprocs > 1 && a.proc != 0 &&
			   json_path[0] == '\0');
	oc.csv_prefix = csv_prefix[0] ? csv_prefix : NULL;
	/* A hosts run prints its tables once, at rank 0's process. */
	oc.tables = a.o.mode != UET_PERF_MODE_HOSTS || a.proc == 0;
	oc.sweep = a.o.min_bytes != a.o.max_bytes;
	oc.verify = a.o.verify;
	oc.pattern = a.shown;
	oc.iterations = plan->wl.iterations;
	if (uet_out_open(&oc, &a.out, err, sizeof(err)) != 0) {
		fprintf(stderr, "uet-perf: %s\n", err);
		goto teardown;
	}
	exit_code = run_sizes(&a, ctx);
	if (uet_out_close(a.out, err, sizeof(err)) != 0) {
		fprintf(stderr, "uet-perf: %s\n", err);
		exit_code = 1;
	}
teardown:
	json_decref(ts);
	perf_teardown(ctx);
eal:
	ctrl_close(a.ctrl);
	uet_dpdk_eal_cleanup();
out:
	free(fails);
	free(execs);
	free(plan->ranks);
	free(plan->local);
	free(a.allow_ip);
	OPENSSL_cleanse(a.copts.key, sizeof(a.copts.key));
	return exit_code;
}
