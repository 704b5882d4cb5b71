/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/base: PRNG, timer heap, hash map, bitmap helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/bitmap.h"
#include "base/hmap.h"
#include "uet/prng.h"
#include "base/theap.h"
#include "base/twheel.h"
#include "uet/err.h"

static void
test_prng_deterministic(void **state)
{
	struct uet_prng a, b, c;
	int i, same = 0;

	(void)state;
	uet_prng_seed(&a, 42);
	uet_prng_seed(&b, 42);
	uet_prng_seed(&c, 43);
	for (i = 0; i < 1000; i++) {
		uint64_t x = uet_prng_next(&a);

		assert_int_equal(x, uet_prng_next(&b));
		same += x == uet_prng_next(&c);
	}
	assert_int_equal(same, 0);
}

static void
test_prng_below_uniform(void **state)
{
	struct uet_prng r;
	uint32_t hist[10] = { 0 };
	int i;

	(void)state;
	uet_prng_seed(&r, 7);
	for (i = 0; i < 100000; i++) {
		uint64_t v = uet_prng_below(&r, 10);

		assert_true(v < 10);
		hist[v]++;
	}
	/* Each bucket expects 10000; 5 sigma is ~475. */
	for (i = 0; i < 10; i++) {
		assert_true(hist[i] > 9500);
		assert_true(hist[i] < 10500);
	}
	assert_int_equal(uet_prng_below(&r, 0), 0);
	assert_int_equal(uet_prng_below(&r, 1), 0);
	for (i = 0; i < 1000; i++) {
		double u = uet_prng_unit(&r);

		assert_true(u >= 0.0 && u < 1.0);
	}
	assert_int_equal(uet_prng_chance_ppm(&r, 0), 0);
	assert_int_equal(uet_prng_chance_ppm(&r, 1000000), 1);
}

static void
test_theap_order(void **state)
{
	struct uet_theap t;
	struct uet_prng r;
	uint64_t keys[64], k, last = 0;
	uint32_t id, i, n = 0;

	(void)state;
	assert_int_equal(uet_theap_init(&t, 64), 0);
	uet_prng_seed(&r, 1);
	for (i = 0; i < 64; i++) {
		keys[i] = uet_prng_below(&r, 1000);
		uet_theap_set(&t, i, keys[i]);
	}
	/* Move some, delete some. */
	for (i = 0; i < 64; i += 3) {
		keys[i] = uet_prng_below(&r, 1000);
		uet_theap_set(&t, i, keys[i]);
	}
	for (i = 1; i < 64; i += 5) {
		uet_theap_del(&t, i);
		keys[i] = UINT64_MAX;
	}
	assert_false(uet_theap_contains(&t, 1));
	assert_true(uet_theap_contains(&t, 0));
	while (uet_theap_top(&t, &id, &k)) {
		assert_int_equal(k, keys[id]);
		assert_true(k >= last);
		last = k;
		uet_theap_del(&t, id);
		n++;
	}
	assert_int_equal(n, 64 - 13);
	assert_false(uet_theap_top(&t, NULL, NULL));
	uet_theap_fini(&t);
}

static void
test_theap_ties_break_on_id(void **state)
{
	struct uet_theap t;
	uint32_t id;

	(void)state;
	assert_int_equal(uet_theap_init(&t, 8), 0);
	uet_theap_set(&t, 5, 100);
	uet_theap_set(&t, 2, 100);
	uet_theap_set(&t, 7, 100);
	assert_true(uet_theap_top(&t, &id, NULL));
	assert_int_equal(id, 2);
	uet_theap_set(&t, 2, 200);
	assert_true(uet_theap_top(&t, &id, NULL));
	assert_int_equal(id, 5);
	uet_theap_fini(&t);
}

static void
test_hmap_basic(void **state)
{
	struct uet_hmap m;
	uint32_t v, i;

	(void)state;
	assert_int_equal(uet_hmap_init(&m, 100), 0);
	for (i = 0; i < 100; i++)
		assert_int_equal(uet_hmap_put(&m, (uint64_t)i * 7919, i), 0);
	assert_int_equal(uet_hmap_put(&m, 999999, 1), UET_ERR_NOBUFS);
	/* Replacing an existing key never fails, even when full. */
	assert_int_equal(uet_hmap_put(&m, 7919, 555), 0);
	assert_true(uet_hmap_get(&m, 7919, &v));
	assert_int_equal(v, 555);
	for (i = 0; i < 100; i += 2)
		assert_true(uet_hmap_del(&m, (uint64_t)i * 7919));
	assert_false(uet_hmap_del(&m, 0));
	for (i = 0; i < 100; i++) {
		bool found = uet_hmap_get(&m, (uint64_t)i * 7919, &v);

		assert_int_equal(found, i % 2 == 1);
		if (found && i != 1)
			assert_int_equal(v, i);
	}
	assert_int_equal(m.n, 50);
	uet_hmap_fini(&m);
}

static void
test_hmap_churn_matches_model(void **state)
{
	struct uet_hmap m;
	struct uet_prng r;
	uint32_t model[64];
	int i;

	(void)state;
	/* Small key space forces long probe runs and many backward shifts. */
	assert_int_equal(uet_hmap_init(&m, 64), 0);
	for (i = 0; i < 64; i++)
		model[i] = UINT32_MAX;
	uet_prng_seed(&r, 99);
	for (i = 0; i < 20000; i++) {
		uint32_t k = (uint32_t)uet_prng_below(&r, 64), v;

		if (uet_prng_below(&r, 2)) {
			assert_int_equal(uet_hmap_put(&m, k, (uint32_t)i), 0);
			model[k] = (uint32_t)i;
		} else {
			assert_int_equal(uet_hmap_del(&m, k), model[k] != UINT32_MAX);
			model[k] = UINT32_MAX;
		}
		k = (uint32_t)uet_prng_below(&r, 64);
		if (model[k] == UINT32_MAX) {
			assert_false(uet_hmap_get(&m, k, &v));
		} else {
			assert_true(uet_hmap_get(&m, k, &v));
			assert_int_equal(v, model[k]);
		}
	}
	uet_hmap_fini(&m);
}

static void
test_bitmap_ring(void **state)
{
	uint64_t w[4] = { 0 }; /* 256-bit ring */

	(void)state;
	uet_bit_set(w, 3);
	uet_bit_set(w, 64);
	uet_bit_set(w, 255);
	assert_true(uet_bit_test(w, 64));
	assert_false(uet_bit_test(w, 65));
	/* 64 bits from ring index 248 wrap: bit 7 is index 255, bit 11 is 3. */
	assert_int_equal(uet_bit_ring_get64(w, 256, 248), (1ULL << 7) | (1ULL << 11));
	assert_int_equal(uet_bit_ring_get64(w, 256, 0), 1ULL << 3);
	assert_int_equal(uet_bit_ring_get64(w, 256, 8), 1ULL << 56);
	assert_int_equal(uet_bit_ring_next_set(w, 256, 4, 256), 60);
	assert_int_equal(uet_bit_ring_next_set(w, 256, 65, 191), 190);
	assert_int_equal(uet_bit_ring_next_set(w, 256, 65, 190), UINT32_MAX);
	assert_int_equal(uet_bit_ring_next_set(w, 256, 250, 20), 5);
	assert_int_equal(uet_bit_ring_next_set(w, 256, 250, 9), 5);
	assert_int_equal(uet_bit_ring_next_set(w, 256, 250, 5), UINT32_MAX);
	uet_bit_clear(w, 255);
	assert_int_equal(uet_bit_ring_next_set(w, 256, 250, 20), 9);
}

static void
test_strerror(void **state)
{
	(void)state;
	assert_string_equal(uet_strerror(UET_OK), "success");
	assert_string_equal(uet_strerror(UET_ERR_MALFORMED), "malformed packet");
	assert_string_equal(uet_strerror(-9999), "unknown error");
}

/* The timing wheel against a brute-force model: random arms, moves,
 * cancels and clock jumps (small steps, a pause longer than a revolution,
 * deadlines many revolutions out). Every id due fires exactly once, never
 * early, and at the first expiry call at or after its deadline. */
static void
test_twheel_matches_model(void **state)
{
	enum { N = 64 };
	uint64_t model[N]; /* UINT64_MAX = not armed */
	struct uet_twheel w;
	struct uet_prng r;
	uint64_t now = 12345, step;
	uint32_t i, id, fired = 0;

	(void)state;
	uet_prng_seed(&r, 77);
	assert_int_equal(uet_twheel_init(&w, N, 100, 1000, now), 0);
	assert_int_equal(w.mask, 127);
	for (i = 0; i < N; i++)
		model[i] = UINT64_MAX;
	for (step = 0; step < 20000; step++) {
		uint32_t op = (uint32_t)uet_prng_below(&r, 10), k;

		id = (uint32_t)uet_prng_below(&r, N);
		if (op < 5) {
			uint64_t far = uet_prng_below(&r, 8) == 0 ? 5000000 : 200000;
			uint64_t d = now - 3000 + uet_prng_below(&r, far);

			uet_twheel_set(&w, id, d);
			model[id] = d;
		} else if (op == 5) {
			uet_twheel_del(&w, id);
			model[id] = UINT64_MAX;
		} else {
			now += uet_prng_below(&r, 50) == 0 ? 400000 + uet_prng_below(&r, 300000)
							   : uet_prng_below(&r, 3000);
			while (uet_twheel_pop(&w, now, &k)) {
				assert_true(model[k] != UINT64_MAX);
				assert_true(model[k] <= now);
				model[k] = UINT64_MAX;
				fired++;
			}
			for (k = 0; k < N; k++)
				assert_true(model[k] == UINT64_MAX || model[k] > now);
		}
		for (k = 0, i = 0; k < N; k++)
			i += model[k] != UINT64_MAX;
		assert_int_equal(uet_twheel_count(&w), i);
		assert_true(uet_twheel_armed(&w, id) == (model[id] != UINT64_MAX));
	}
	assert_true(fired > 1000);
	uet_twheel_del(&w, N + 5); /* out of range: ignored */
	uet_twheel_set(&w, N + 5, 0);
	uet_twheel_fini(&w);
	assert_int_equal(uet_twheel_init(&w, 0, 8, 1, 0), UET_ERR_INVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prng_deterministic),
		cmocka_unit_test(test_prng_below_uniform),
		cmocka_unit_test(test_theap_order),
		cmocka_unit_test(test_theap_ties_break_on_id),
		cmocka_unit_test(test_hmap_basic),
		cmocka_unit_test(test_hmap_churn_matches_model),
		cmocka_unit_test(test_bitmap_ring),
		cmocka_unit_test(test_twheel_matches_model),
		cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests_name("base", tests, NULL, NULL);
}
