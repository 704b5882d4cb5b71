/* SPDX-License-Identifier: BSD-3-Clause */
/* uet-perf's control channel: three ranks over TCP loopback (two forked). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctrl.h"

#define PORT 18577

/* A rank's life: join, all-gather its number twice (the second time
 * rank-dependent), check what came back. Returns 0 if all was right. */
static int
rank_main(uint32_t rank, uint32_t n)
{
	char err[256];
	struct ctrl *c;
	json_t *mine, *all;
	uint32_t r;
	int bad = 0, round;

	if (ctrl_open(rank, n, "127.0.0.1", PORT, 5000, NULL, &c, err, sizeof(err)) != 0)
		return 10;
	for (round = 0; round < 2; round++) {
		mine = json_pack("{s:I}", "v", (json_int_t)(rank * 10 + round));
		all = ctrl_allgather(c, mine, 5000, err, sizeof(err));
		json_decref(mine);
		if (all == NULL)
			return 20;
		for (r = 0; r < n; r++)
			bad += json_integer_value(json_object_get(json_array_get(all, r), "v")) !=
			       (json_int_t)(r * 10 + round);
		json_decref(all);
	}
	ctrl_close(c);
	return bad;
}

/* Ranks 1 and 2 forked, rank 0 here, each a fn(rank) that returns 0 when
 * all was right. */
static void
run_three(int (*fn)(uint32_t rank))
{
	pid_t kids[2];
	int i, st;

	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		assert_true(kids[i] >= 0);
		if (kids[i] == 0)
			_exit(fn((uint32_t)i + 1));
	}
	assert_int_equal(fn(0), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
}

static int
gather_rank(uint32_t rank)
{
	return rank_main(rank, 3);
}

static void
test_allgather_three_ranks(void **state)
{
	(void)state;
	run_three(gather_rank);
}

static void
test_missing_rank_times_out(void **state)
{
	char err[256];
	struct ctrl *c;

	(void)state;
	/* Rank 1 of 2 never comes: a clear error, no hang. */
	assert_int_equal(ctrl_open(0, 2, NULL, PORT + 1, 300, NULL, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "1 of 2 ranks joined"));
	/* Nobody listens: the peer gives up too. */
	assert_int_equal(ctrl_open(1, 2, "127.0.0.1", PORT + 2, 300, NULL, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot reach rank 0"));
	assert_int_equal(ctrl_open(1, 2, "not-an-ip", PORT + 2, 300, NULL, &c, err, sizeof(err)), -1);
}

/* Pairwise clients without ranks: rank 0 numbers them 1..3 as they come,
 * each learns its rank and the size; the all-gather then has every rank
 * once. */
static int
client_main(uint16_t port)
{
	char err[256];
	struct ctrl *c;
	json_t *mine, *all;
	uint32_t r, seen = 0;

	if (ctrl_open(CTRL_RANK_ANY, 0, "127.0.0.1", port, 5000, NULL, &c, err, sizeof(err)) != 0)
		return 10;
	if (ctrl_nranks(c) != 4 || ctrl_rank(c) < 1 || ctrl_rank(c) > 3)
		return 11;
	mine = json_pack("{s:I}", "r", (json_int_t)ctrl_rank(c));
	all = ctrl_allgather(c, mine, 5000, err, sizeof(err));
	json_decref(mine);
	if (all == NULL)
		return 20;
	for (r = 0; r < 4; r++)
		seen |= 1u << json_integer_value(json_object_get(json_array_get(all, r), "r"));
	json_decref(all);
	ctrl_close(c);
	return seen == 0xf ? 0 : 30;
}

static void
test_clients_get_ranks(void **state)
{
	char err[256];
	struct ctrl *c;
	pid_t kids[3];
	json_t *mine, *all;
	int i, st;

	(void)state;
	for (i = 0; i < 3; i++) {
		kids[i] = fork();
		assert_true(kids[i] >= 0);
		if (kids[i] == 0)
			_exit(client_main(PORT + 3));
	}
	assert_int_equal(ctrl_open(0, 4, NULL, PORT + 3, 5000, NULL, &c, err, sizeof(err)), 0);
	assert_int_equal(ctrl_rank(c), 0);
	mine = json_pack("{s:I}", "r", (json_int_t)0);
	all = ctrl_allgather(c, mine, 5000, err, sizeof(err));
	json_decref(mine);
	assert_non_null(all);
	for (i = 0; i < 4; i++)
		assert_int_equal(json_integer_value(json_object_get(json_array_get(all, (size_t)i),
								    "r")), i);
	json_decref(all);
	ctrl_close(c);
	for (i = 0; i < 3; i++) {
		assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
}

/* A raised stop flag (a SIGTERM in another thread) ends a wait that would
 * last a minute within a fraction of a second, and says why. */
static volatile int stop_now;

static void *
raise_stop(void *arg)
{
	(void)arg;
	usleep(200000);
	stop_now = 1;
	return NULL;
}

static void
test_stop_interrupts_wait(void **state)
{
	char err[256];
	struct ctrl *c;
	struct timespec t0, t1;
	pthread_t th;
	pid_t kid;
	json_t *mine;
	int st;

	(void)state;
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		/* A rank that joins and then freezes: never all-gathers. */
		if (ctrl_open(1, 2, "127.0.0.1", PORT + 4, 5000, NULL, &c, err, sizeof(err)) != 0)
			_exit(10);
		sleep(3);
		ctrl_close(c);
		_exit(0);
	}
	assert_int_equal(ctrl_open(0, 2, NULL, PORT + 4, 5000, NULL, &c, err, sizeof(err)), 0);
	stop_now = 0;
	ctrl_set_stop(&stop_now);
	assert_false(ctrl_interrupted());
	assert_int_equal(pthread_create(&th, NULL, raise_stop, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	mine = json_pack("{s:i}", "r", 0);
	assert_null(ctrl_allgather(c, mine, 60000, err, sizeof(err)));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	json_decref(mine);
	pthread_join(th, NULL);
	assert_true(ctrl_interrupted());
	assert_non_null(strstr(err, "interrupted (SIGINT/SIGTERM) waiting for rank 1"));
	/* 0.2 s until the flag, at most 0.1 s more to see it. */
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 1000);
	ctrl_set_stop(NULL);
	ctrl_close(c);
	assert_int_equal(waitpid(kid, &st, 0), kid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Stop notices (a process interrupted tells the others): rank 2 is
 * interrupted and sends its result right after its notice; rank 0 takes
 * the notice alone, passes it on and still gathers rank 2's result; rank
 * 1 hears of it from rank 0, then sends a late notice of its own that the
 * gather skips (and passes on to rank 2, whose gather skips it too). */
static int
stop_rank(uint32_t rank)
{
	char err[256];
	struct ctrl *c;
	json_t *mine, *all;
	int from = -1, tries, bad = 0;
	bool lost = false;
	uint32_t r;

	if (ctrl_open(rank, 3, "127.0.0.1", PORT + 6, 5000, NULL, &c, err, sizeof(err)) != 0)
		return 10;
	if (rank == 2) {
		usleep(100000);
		if (ctrl_send_stop(c) != 0)
			return 11;
	} else {
		ctrl_watch_reset(c);
		for (tries = 0; tries < 50 && from < 0; tries++)
			from = ctrl_watch(c, 100, &lost);
		if (lost)
			return 14;
		if (from != 2)
			return 12;
		if (rank == 1 && ctrl_send_stop(c) != 0)
			return 13;
	}
	mine = json_pack("{s:I,s:s}", "v", (json_int_t)rank, "pad",
			 "a result is longer than a stop notice");
	all = ctrl_allgather(c, mine, 5000, err, sizeof(err));
	json_decref(mine);
	if (all == NULL)
		return 20;
	for (r = 0; r < 3; r++)
		bad += json_integer_value(json_object_get(json_array_get(all, r), "v")) !=
		       (json_int_t)r;
	json_decref(all);
	ctrl_close(c);
	return bad;
}

static void
test_stop_notice_three_ranks(void **state)
{
	(void)state;
	run_three(stop_rank);
}

static uint64_t
ms_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* A result that comes while rank 0 still watches (its peer ended its run
 * first) stays for the gather, and a watch with nothing left to look at
 * still waits its time (the watcher thread loops on it). */
static void
test_watch_leaves_results(void **state)
{
	char err[256];
	struct ctrl *c;
	json_t *mine, *all;
	uint64_t t0;
	pid_t kid;
	bool lost;
	int st;

	(void)state;
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		if (ctrl_open(1, 2, "127.0.0.1", PORT + 7, 5000, NULL, &c, err, sizeof(err)) != 0)
			_exit(10);
		mine = json_pack("{s:i,s:s}", "v", 1, "step", "done");
		all = ctrl_allgather(c, mine, 5000, err, sizeof(err));
		json_decref(mine);
		if (all == NULL || json_array_size(all) != 2)
			_exit(20);
		json_decref(all);
		ctrl_close(c);
		_exit(0);
	}
	assert_int_equal(ctrl_open(0, 2, NULL, PORT + 7, 5000, NULL, &c, err, sizeof(err)), 0);
	ctrl_watch_reset(c);
	assert_int_equal(ctrl_watch(c, 2000, &lost), -1); /* the result: left alone */
	t0 = ms_now();
	assert_int_equal(ctrl_watch(c, 200, &lost), -1);
	assert_true(ms_now() - t0 >= 150);
	mine = json_pack("{s:i}", "v", 0);
	all = ctrl_allgather(c, mine, 5000, err, sizeof(err));
	json_decref(mine);
	assert_non_null(all);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(all, 1), "v")), 1);
	json_decref(all);
	ctrl_close(c);
	assert_int_equal(waitpid(kid, &st, 0), kid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* The run's results: each rank sends its number to rank 0 alone, which
 * takes them one at a time in rank order (ctrl_gather_each), and sends
 * back one message it made of them (ctrl_bcast): here their sum and a
 * string past the 64 MiB that messages were once held to (a long run's
 * merged measurement can be that long). */
#define BIG_BYTES ((64u << 20) + 1)

struct summing {
	json_int_t sum;
	uint32_t next; /* the rank expected next */
	int bad;
};

static void
take_sum(void *ctx, uint32_t rank, json_t *msg)
{
	struct summing *sm = ctx;

	sm->bad += rank != sm->next++;
	sm->sum += json_integer_value(json_object_get(msg, "v"));
}

static int
reduce_rank(uint32_t rank)
{
	char err[256], *big = NULL;
	struct summing sm = { 0, 0, 0 };
	struct ctrl *c;
	json_t *mine, *sum = NULL, *got;
	int bad = 0, rc;

	if (ctrl_open(rank, 3, "127.0.0.1", PORT + 8, 5000, NULL, &c, err, sizeof(err)) != 0)
		return 10;
	mine = json_pack("{s:I}", "v", (json_int_t)(rank + 1) * 100);
	rc = ctrl_gather_each(c, mine, 5000, take_sum, &sm, err, sizeof(err));
	json_decref(mine);
	if (rc != 0)
		return 20;
	/* Only rank 0 takes anything, every rank once, in order. */
	bad += sm.bad + (sm.next != (rank == 0 ? 3u : 0u));
	if (rank == 0) {
		big = malloc(BIG_BYTES + 1);
		if (big == NULL)
			return 30;
		memset(big, 'x', BIG_BYTES);
		sum = json_pack("{s:I,s:s%}", "sum", sm.sum, "big", big, (size_t)BIG_BYTES);
		free(big);
	}
	got = ctrl_bcast(c, sum, 10000, err, sizeof(err));
	json_decref(sum);
	if (got == NULL)
		return 40;
	bad += json_integer_value(json_object_get(got, "sum")) != 600;
	bad += json_string_length(json_object_get(got, "big")) != BIG_BYTES;
	json_decref(got);
	ctrl_close(c);
	return bad;
}

static void
test_gather_then_bcast_three_ranks(void **state)
{
	(void)state;
	run_three(reduce_rank);
}


/* --- who may join --- */

static const char KEY_HEX[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
static const char OTHER_HEX[] = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";

static struct ctrl_opts
keyed_opts(const char *hex)
{
	struct ctrl_opts o;
	char err[256];

	memset(&o, 0, sizeof(o));
	if (hex != NULL)
		assert_int_equal(ctrl_key_hex(hex, &o, err, sizeof(err)), 0);
	return o;
}

/* A raw TCP connection to the port on loopback, or -1. */
static int
raw_connect(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), i;

	for (i = 0; i < 100 && fd >= 0; i++) {
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
		close(fd);
		usleep(20000);
		fd = socket(AF_INET, SOCK_STREAM, 0);
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* A forked peer: join as rank 1 of 2 with the key hex (NULL: none) after
 * wait_ms (and a byte from go, if not -1), then all-gather once. Exit 0
 * when it joined and gathered, 10 when the join failed (its reason on
 * stderr). */
static pid_t
fork_peer_after(uint16_t port, const char *hex, uint32_t wait_ms, int go)
{
	pid_t kid = fork();

	assert_true(kid >= 0);
	if (kid == 0) {
		struct ctrl_opts o = keyed_opts(hex);
		char err[256], b;
		struct ctrl *c;
		json_t *mine, *all;

		usleep(wait_ms * 1000);
		if (go >= 0 && read(go, &b, 1) != 1)
			_exit(30);
		if (ctrl_open(1, 2, "127.0.0.1", port, 3000, &o, &c, err, sizeof(err)) != 0) {
			fprintf(stderr, "peer: %s\n", err);
			_exit(10);
		}
		mine = json_pack("{s:i}", "v", 1);
		all = ctrl_allgather(c, mine, 3000, err, sizeof(err));
		json_decref(mine);
		_exit(all != NULL && json_array_size(all) == 2 ? 0 : 20);
	}
	return kid;
}

static pid_t
fork_peer(uint16_t port, const char *hex, uint32_t wait_ms)
{
	return fork_peer_after(port, hex, wait_ms, -1);
}

static int
exit_of(pid_t kid)
{
	int st;

	assert_int_equal(waitpid(kid, &st, 0), kid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* rank 0 of 2 with opts: joins, then the all-gather; the refusals. */
static uint32_t
coordinate(uint16_t port, const struct ctrl_opts *o, uint32_t timeout_ms,
	   struct ctrl_refused *refused)
{
	char err[256];
	struct ctrl *c;
	json_t *mine, *all;
	uint32_t n;

	if (ctrl_open(0, 2, NULL, port, timeout_ms, o, &c, err, sizeof(err)) != 0) {
		fprintf(stderr, "rank 0: %s\n", err);
		return UINT32_MAX;
	}
	*refused = *ctrl_refused(c, &n);
	mine = json_pack("{s:i}", "v", 0);
	all = ctrl_allgather(c, mine, 3000, err, sizeof(err));
	json_decref(mine);
	assert_non_null(all);
	json_decref(all);
	ctrl_close(c);
	return n;
}

/* With a key: a peer holding it joins; one with another key, or none, is
 * refused and told so, and rank 0 keeps waiting for the real one. A
 * coordinator without a key is refused by a keyed peer (the settings must
 * agree), and a keyed coordinator by a peer without one. */
static void
test_key_decides_who_joins(void **state)
{
	struct ctrl_opts k = keyed_opts(KEY_HEX);
	struct ctrl_refused r;
	pid_t wrong, none, real;

	(void)state;
	wrong = fork_peer(PORT + 10, OTHER_HEX, 0);
	none = fork_peer(PORT + 10, NULL, 0);
	real = fork_peer(PORT + 10, KEY_HEX, 300);
	assert_int_equal(coordinate(PORT + 10, &k, 5000, &r), 2);
	assert_int_equal(r.key, 1);
	assert_int_equal(exit_of(wrong), 10);
	assert_int_equal(exit_of(none), 10);
	assert_int_equal(exit_of(real), 0);

	/* keyed peer, coordinator without a key: the peer refuses */
	{
		struct ctrl_opts plain = keyed_opts(NULL);
		struct ctrl *c;
		char err[256];

		real = fork_peer(PORT + 11, KEY_HEX, 0);
		assert_int_equal(ctrl_open(0, 2, NULL, PORT + 11, 1000, &plain, &c, err,
					   sizeof(err)), -1);
		assert_int_equal(exit_of(real), 10);
	}
}

/* Strangers that connect and say nothing, or send a byte a second, or a
 * flood of more connections than the listen backlog: the real peer still
 * joins at once; the idle ones are dropped after CTRL_HANDSHAKE_MS, the
 * flood's oldest pushed out. Garbage and oversized lengths are refused. */
static void
test_strangers_do_not_hold_up_the_join(void **state)
{
	struct ctrl_opts k = keyed_opts(KEY_HEX);
	struct ctrl_refused r;
	int idle[CTRL_MAX_PENDING + 6], junk, big, n = CTRL_MAX_PENDING + 6, i;
	uint32_t len = htonl(1u << 30);
	uint64_t t0;
	pid_t kid, real;
	int go[2];

	(void)state;
	assert_int_equal(pipe(go), 0);
	/* the strangers connect first, from a child (this process runs the
	 * accept loop); the real peer starts when they are all in */
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		for (i = 0; i < n; i++)
			if ((idle[i] = raw_connect(PORT + 12)) < 0)
				_exit(11);
		junk = raw_connect(PORT + 12);
		big = raw_connect(PORT + 12);
		if (junk < 0 || big < 0 || send(junk, "\0\0\0\5hello", 9, 0) != 9 ||
		    send(big, &len, 4, 0) != 4)
			_exit(10);
		usleep(300000); /* for rank 0 to read them */
		if (write(go[1], "g", 1) != 1)
			_exit(12);
		sleep(3);
		_exit(0);
	}
	real = fork_peer_after(PORT + 12, KEY_HEX, 0, go[0]);
	t0 = ms_now();
	assert_true(coordinate(PORT + 12, &k, 10000, &r) >= 2);
	/* not held until the idle ones time out */
	assert_true(ms_now() - t0 < CTRL_HANDSHAKE_MS);
	assert_int_equal(r.malformed, 2);
	assert_true(r.evicted >= 6);
	assert_int_equal(r.key, 0);
	assert_int_equal(exit_of(real), 0);
	assert_int_equal(exit_of(kid), 0);
}

/* An idle stranger alone: dropped at CTRL_HANDSHAKE_MS, counted. */
static void
test_idle_connection_times_out(void **state)
{
	struct ctrl_opts k = keyed_opts(KEY_HEX);
	struct ctrl_refused r;
	pid_t kid, real;

	(void)state;
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		int fd = raw_connect(PORT + 13);

		if (fd < 0)
			_exit(10);
		sleep(5);
		_exit(0);
	}
	real = fork_peer(PORT + 13, KEY_HEX, CTRL_HANDSHAKE_MS + 700);
	assert_int_equal(coordinate(PORT + 13, &k, 10000, &r), 1);
	assert_int_equal(r.timeout, 1);
	assert_int_equal(exit_of(real), 0);
	kill(kid, SIGKILL);
	assert_int_equal(waitpid(kid, NULL, 0), kid);
}

/* In a hosts run rank 0 lets in only the hosts file's control addresses,
 * and a peer connects from its own: one from 127.0.0.2 joins a rank 0 that
 * allows it; one from another address is closed before its challenge,
 * tries again until its deadline, and says so. */
static void
test_allowed_addresses(void **state)
{
	uint32_t allow = htonl(0x7f000002), n; /* 127.0.0.2 */
	struct ctrl_opts k = keyed_opts(KEY_HEX);
	struct ctrl_refused r;
	pid_t kid, real;

	(void)state;
	k.allow_ip = &allow;
	k.n_allow = 1;
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		struct ctrl_opts o = keyed_opts(KEY_HEX);
		char err[256];
		struct ctrl *c;

		/* from 127.0.0.1: refused every time */
		if (ctrl_open(1, 2, "127.0.0.1", PORT + 15, 1000, &o, &c, err, sizeof(err)) == 0 ||
		    strstr(err, "closed every connection before its challenge") == NULL) {
			fprintf(stderr, "stranger: %s\n", err);
			_exit(10);
		}
		_exit(0);
	}
	real = fork();
	assert_true(real >= 0);
	if (real == 0) {
		struct ctrl_opts o = keyed_opts(KEY_HEX);
		char err[256];
		struct ctrl *c;
		json_t *mine, *all;

		usleep(1500000);
		o.src_ip = htonl(0x7f000002);
		if (ctrl_open(1, 2, "127.0.0.1", PORT + 15, 3000, &o, &c, err, sizeof(err)) != 0) {
			fprintf(stderr, "peer: %s\n", err);
			_exit(10);
		}
		mine = json_pack("{s:i}", "v", 1);
		all = ctrl_allgather(c, mine, 3000, err, sizeof(err));
		_exit(all != NULL ? 0 : 20);
	}
	n = coordinate(PORT + 15, &k, 10000, &r);
	assert_true(r.address >= 2);
	assert_int_equal(n, r.address); /* nothing else turned away */
	assert_int_equal(exit_of(kid), 0);
	assert_int_equal(exit_of(real), 0);
}

/* A process that exits while the others watch: rank 0 sees its connection
 * close and returns it as lost, and tells rank 2, whose watch returns the
 * same process, lost. */
static int
lose_rank(uint32_t rank)
{
	char err[256];
	struct ctrl *c;
	bool lost = false;
	int from = -1, tries;

	if (ctrl_open(rank, 3, "127.0.0.1", PORT + 14, 5000, NULL, &c, err, sizeof(err)) != 0)
		return 10;
	if (rank == 1) {
		usleep(100000);
		_exit(0); /* as a killed process: the kernel closes its socket */
	}
	ctrl_watch_reset(c);
	for (tries = 0; tries < 50 && from < 0; tries++)
		from = ctrl_watch(c, 100, &lost);
	if (from != 1 || !lost)
		return 12;
	ctrl_close(c);
	return 0;
}

static void
test_lost_process(void **state)
{
	(void)state;
	run_three(lose_rank);
}

/* Key files: rank 0 makes a missing one (0600, 32 bytes of hex) and reads
 * it back; a file others may read is refused, and so are short keys and
 * non-hex. */
static void
test_key_files(void **state)
{
	char path[] = "/tmp/uet_ctrl_keyXXXXXX", file[64], err[256];
	struct ctrl_opts a, b;
	struct stat st;
	bool made;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(path));
	snprintf(file, sizeof(file), "%s/key", path);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	assert_int_equal(ctrl_key_file(file, false, &a, &made, err, sizeof(err)), -1);
	assert_int_equal(ctrl_key_file(file, true, &a, &made, err, sizeof(err)), 0);
	assert_true(made);
	assert_int_equal(a.key_len, 32);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(ctrl_key_file(file, true, &b, &made, err, sizeof(err)), 0);
	assert_false(made);
	assert_memory_equal(a.key, b.key, 32);
	chmod(file, 0644);
	assert_int_equal(ctrl_key_file(file, false, &b, &made, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "chmod 600"));
	unlink(file);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("0011\n", f);
	fclose(f);
	chmod(file, 0600);
	assert_int_equal(ctrl_key_file(file, false, &b, &made, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "16 to 64 bytes"));
	assert_int_equal(ctrl_key_hex("zz112233445566778899aabbccddeeff", &b, err, sizeof(err)), -1);
	unlink(file);
	rmdir(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allgather_three_ranks),
		cmocka_unit_test(test_missing_rank_times_out),
		cmocka_unit_test(test_clients_get_ranks),
		cmocka_unit_test(test_stop_interrupts_wait),
		cmocka_unit_test(test_stop_notice_three_ranks),
		cmocka_unit_test(test_watch_leaves_results),
		cmocka_unit_test(test_gather_then_bcast_three_ranks),
		cmocka_unit_test(test_key_decides_who_joins),
		cmocka_unit_test(test_strangers_do_not_hold_up_the_join),
		cmocka_unit_test(test_idle_connection_times_out),
		cmocka_unit_test(test_allowed_addresses),
		cmocka_unit_test(test_lost_process),
		cmocka_unit_test(test_key_files),
	};

	return cmocka_run_group_tests_name("ctrl", tests, NULL, NULL);
}
