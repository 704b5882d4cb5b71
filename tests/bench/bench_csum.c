/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ns per one's-complement sum of a payload (the UDP checksum of a frame on
 * a port without checksum offload), dispatched (AVX2 where the CPU has
 * it) against the portable loop. Prints one line per size:
 *   bench_csum [BYTES...]     (default 64 1500 4096 9000)
 * or, with --memory, ns per 4 KiB payload summed in turn from payloads
 * spread over a pool of 1 MiB to 1 GiB (an mbuf's stride apart), in
 * address order and shuffled, as a receiver sums them from wherever the
 * caches left them:
 *   bench_csum --memory
 * or, with --copy, ns per 4 KiB payload copied from a message buffer into
 * a packet and summed for its checksum, the buffers taken in a shuffled
 * order from 1 MiB (in cache) and 512 MiB (in memory): memcpy then
 * uet_csum_partial (two passes) against uet_csum_copy (one):
 *   bench_csum --copy
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/csum.h"
#include "cpu.h"
#include "uet/frame.h"

#define TARGET_NS 200000000ULL /* per size and variant */

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Best of 5 rounds: the machine is shared; the minimum is the code's cost. */
static double
ns_per_sum(uint32_t (*fn)(const void *, size_t, uint32_t), const uint8_t *buf, size_t len,
	   uint32_t *sink)
{
	double best = 1e18;
	int round;

	for (round = 0; round < 5; round++) {
		uint64_t n = 0, t0 = mono_ns(), t;

		do {
			uint32_t k;

			for (k = 0; k < 1024; k++)
				*sink += fn(buf + (k & 7), len, *sink);
			n += 1024;
			t = mono_ns() - t0;
		} while (t < TARGET_NS / 5);
		if ((double)t / (double)n < best)
			best = (double)t / (double)n;
	}
	return best;
}

/* ns per 4 KiB sum, walking payloads MBUF_STRIDE apart through pool_bytes
 * of memory, dispatched only: in address order, where the hardware
 * prefetchers run ahead from one payload into the next, and in a shuffled
 * order, as a mempool hands its mbufs out, where each payload starts
 * cold. */
#define MBUF_STRIDE 4480 /* a 4 KiB frame's mbuf: header, headroom, room */

/* Shuffled order over n payloads, Fisher-Yates with a fixed LCG. */
static void
shuffle(uint32_t *order, size_t n)
{
	uint32_t x = 1;
	size_t k;

	for (k = 0; k < n; k++)
		order[k] = (uint32_t)k;
	for (k = n - 1; k > 0; k--) {
		size_t r = (x = x * 1103515245u + 12345u) % (k + 1);
		uint32_t tmp = order[k];

		order[k] = order[r];
		order[r] = tmp;
	}
}

/* How a payload is summed: where it lies, or copied into a packet buffer
 * and summed there, or both in one pass. */
enum walk_how { SUM_IN_PLACE, COPY_THEN_SUM, COPY_SUM_FUSED };

/* ns per 4 KiB payload, the payloads taken in order[] from the pool. */
static double
walk_ns(const uint8_t *pool, const uint32_t *order, size_t n, enum walk_how how, uint32_t *sink)
{
	static uint8_t pkt[4096 + 64];
	double best = 1e18;
	int round;

	for (round = 0; round < 5; round++) {
		uint64_t t0 = mono_ns(), t;
		size_t done = 0, j;

		do {
			for (j = 0; j < n; j++) {
				const uint8_t *src = pool + (size_t)order[j] * MBUF_STRIDE + 212;

				if (how == COPY_SUM_FUSED) {
					*sink += uet_csum_copy(pkt, src, 4096, *sink);
				} else if (how == COPY_THEN_SUM) {
					memcpy(pkt, src, 4096);
					*sink += uet_csum_partial(pkt, 4096, *sink);
				} else {
					*sink += uet_csum_partial(src, 4096, *sink);
				}
			}
			done += n;
			t = mono_ns() - t0;
		} while (t < TARGET_NS / 5);
		if ((double)t / (double)done < best)
			best = (double)t / (double)done;
	}
	return best;
}

/* A pool of bytes MiB of payloads MBUF_STRIDE apart, resident and not
 * the zero page, and an order over its n payloads (address order). */
static int
pool_make(size_t mib, uint8_t **pool, uint32_t **order, size_t *n)
{
	size_t bytes = mib << 20, k;

	*n = bytes / MBUF_STRIDE;
	*pool = malloc(bytes);
	*order = malloc(*n * sizeof(**order));
	if (*pool == NULL || *order == NULL) {
		fprintf(stderr, "bench_csum: no memory for %zu MiB\n", mib);
		free(*pool);
		free(*order);
		return -1;
	}
	for (k = 0; k < bytes; k++)
		(*pool)[k] = (uint8_t)(k * 2654435761u >> 24);
	for (k = 0; k < *n; k++)
		(*order)[k] = (uint32_t)k;
	return 0;
}

static int
copy_table(void)
{
	static const size_t mib[] = { 1, 512 };
	uint32_t sink = 0;
	size_t i;

	printf("%10s %22s %22s\n", "pool_mib", "memcpy_then_sum_ns", "fused_copy_sum_ns");
	for (i = 0; i < sizeof(mib) / sizeof(mib[0]); i++) {
		uint8_t *pool;
		uint32_t *order;
		size_t n;
		double two, one;

		if (pool_make(mib[i], &pool, &order, &n) != 0)
			return 1;
		shuffle(order, n);
		two = walk_ns(pool, order, n, COPY_THEN_SUM, &sink);
		one = walk_ns(pool, order, n, COPY_SUM_FUSED, &sink);
		printf("%10zu %22.1f %22.1f\n", mib[i], two, one);
		free(order);
		free(pool);
	}
	return sink == 0x12345678u;
}

static int
memory_table(void)
{
	static const size_t mib[] = { 1, 8, 64, 512, 1024 };
	uint32_t sink = 0;
	size_t i;

	printf("%10s %18s %18s\n", "pool_mib", "in_order_ns_4KiB", "shuffled_ns_4KiB");
	for (i = 0; i < sizeof(mib) / sizeof(mib[0]); i++) {
		uint8_t *pool;
		uint32_t *order;
		size_t n;
		double seq, shuf;

		if (pool_make(mib[i], &pool, &order, &n) != 0)
			return 1;
		seq = walk_ns(pool, order, n, SUM_IN_PLACE, &sink);
		shuffle(order, n);
		shuf = walk_ns(pool, order, n, SUM_IN_PLACE, &sink);
		printf("%10zu %18.1f %18.1f\n", mib[i], seq, shuf);
		free(order);
		free(pool);
	}
	return sink == 0x12345678u; /* keeps the sums */
}

int
main(int argc, char **argv)
{
	static const size_t def[] = { 64, 1500, 4096, 9000 };
	static uint8_t buf[65536 + 8];
	uint32_t sink = 0, x = 1;
	size_t i, n = argc > 1 ? (size_t)(argc - 1) : sizeof(def) / sizeof(def[0]);

	bench_print_cpu();
	if (argc == 2 && strcmp(argv[1], "--memory") == 0)
		return memory_table();
	if (argc == 2 && strcmp(argv[1], "--copy") == 0)
		return copy_table();
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
	printf("%8s %14s %14s %8s\n", "bytes", "dispatched_ns", "portable_ns", "speedup");
	for (i = 0; i < n; i++) {
		size_t len = argc > 1 ? strtoul(argv[i + 1], NULL, 0) : def[i];
		double d, s;

		if (len == 0 || len > 65536) {
			fprintf(stderr, "bench_csum: size must be 1..65536 bytes\n");
			return 2;
		}
		d = ns_per_sum(uet_csum_partial, buf, len, &sink);
		s = ns_per_sum(uet_csum_partial_scalar, buf, len, &sink);
		printf("%8zu %14.1f %14.1f %7.2fx\n", len, d, s, s / d);
	}
	/* Keeps the sums from being optimized away. */
	return sink == 0x12345678u ? 1 : 0;
}
