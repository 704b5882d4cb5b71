/* SPDX-License-Identifier: BSD-3-Clause */
/* uet-perf's control channel: three ranks over TCP loopback (two forked). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

	if (ctrl_open(rank, n, "127.0.0.1", PORT, 5000, &c, err, sizeof(err)) != 0)
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
	assert_int_equal(ctrl_open(0, 2, NULL, PORT + 1, 300, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "1 of 2 ranks joined"));
	/* Nobody listens: the peer gives up too. */
	assert_int_equal(ctrl_open(1, 2, "127.0.0.1", PORT + 2, 300, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot reach rank 0"));
	assert_int_equal(ctrl_open(1, 2, "not-an-ip", PORT + 2, 300, &c, err, sizeof(err)), -1);
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

	if (ctrl_open(CTRL_RANK_ANY, 0, "127.0.0.1", port, 5000, &c, err, sizeof(err)) != 0)
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
	assert_int_equal(ctrl_open(0, 4, NULL, PORT + 3, 5000, &c, err, sizeof(err)), 0);
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
		if (ctrl_open(1, 2, "127.0.0.1", PORT + 4, 5000, &c, err, sizeof(err)) != 0)
			_exit(10);
		sleep(3);
		ctrl_close(c);
		_exit(0);
	}
	assert_int_equal(ctrl_open(0, 2, NULL, PORT + 4, 5000, &c, err, sizeof(err)), 0);
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
	uint32_t r;

	if (ctrl_open(rank, 3, "127.0.0.1", PORT + 6, 5000, &c, err, sizeof(err)) != 0)
		return 10;
	if (rank == 2) {
		usleep(100000);
		if (ctrl_send_stop(c) != 0)
			return 11;
	} else {
		ctrl_watch_reset(c);
		for (tries = 0; tries < 50 && from < 0; tries++)
			from = ctrl_watch(c, 100);
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
	int st;

	(void)state;
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		if (ctrl_open(1, 2, "127.0.0.1", PORT + 7, 5000, &c, err, sizeof(err)) != 0)
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
	assert_int_equal(ctrl_open(0, 2, NULL, PORT + 7, 5000, &c, err, sizeof(err)), 0);
	ctrl_watch_reset(c);
	assert_int_equal(ctrl_watch(c, 2000), -1); /* the result: left alone */
	t0 = ms_now();
	assert_int_equal(ctrl_watch(c, 200), -1);
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

	if (ctrl_open(rank, 3, "127.0.0.1", PORT + 8, 5000, &c, err, sizeof(err)) != 0)
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
	};

	return cmocka_run_group_tests_name("ctrl", tests, NULL, NULL);
}
