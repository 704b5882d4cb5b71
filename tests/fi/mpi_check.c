/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An MPI program whose every result is checked: point-to-point (tagged
 * sends of several sizes in a ring, a wildcard-source receive, messages
 * that arrive before their receive is posted, zero bytes), probes
 * (MPI_Probe, MPI_Iprobe, MPI_Mprobe with MPI_Mrecv, MPI_Improbe: the
 * provider's FI_PEEK and FI_CLAIM), truncated receives, all-to-all and
 * allreduce, each repeated. Exits 0 only when every byte and sum is right;
 * rank 0 prints one summary line. Run it over the uet provider:
 *   mpirun -np 4 --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include uet ./mpi_check
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static long errors;

static uint8_t
pattern(int from, int to, int round, size_t i)
{
	return (uint8_t)(from * 31 + to * 7 + round * 13 + i * 131 + (i >> 8));
}

static void
check_bytes(const uint8_t *b, size_t n, int from, int to, int round, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		if (b[i] != pattern(from, to, round, i)) {
			if (errors++ < 5)
				fprintf(stderr, "rank %d: %s from %d, round %d: byte %zu is %u, not %u\n",
					rank, what, from, round, i, b[i], pattern(from, to, round, i));
			return;
		}
	}
}

/* Each rank sends to the next and receives from the one before, with
 * sizes from 0 to 4 MiB; half of the receives are posted late (the
 * message waits unexpected, or its sender retries) and one per round takes
 * MPI_ANY_SOURCE. */
static void
ring(int round, size_t n)
{
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	uint8_t *s = malloc(n + 1), *r = malloc(n + 1);
	MPI_Request q[2];
	MPI_Status st;
	int count;

	for (size_t i = 0; i < n; i++)
		s[i] = pattern(rank, next, round, i);
	memset(r, 0, n + 1);
	if (round % 2 == 0) {
		MPI_Irecv(r, (int)n, MPI_BYTE, round % 4 == 0 ? MPI_ANY_SOURCE : prev, 100 + round,
			  MPI_COMM_WORLD, &q[0]);
		MPI_Isend(s, (int)n, MPI_BYTE, next, 100 + round, MPI_COMM_WORLD, &q[1]);
		MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
	} else {
		MPI_Isend(s, (int)n, MPI_BYTE, next, 100 + round, MPI_COMM_WORLD, &q[1]);
		MPI_Barrier(MPI_COMM_WORLD); /* the message is on its way first */
		MPI_Recv(r, (int)n, MPI_BYTE, prev, 100 + round, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_BYTE, &count);
		if ((size_t)count != n || st.MPI_SOURCE != prev) {
			if (errors++ < 5)
				fprintf(stderr, "rank %d: round %d: %d bytes from %d, not %zu from %d\n",
					rank, round, count, st.MPI_SOURCE, n, prev);
		}
		MPI_Wait(&q[1], MPI_STATUS_IGNORE);
	}
	check_bytes(r, n, prev, rank, round, "ring");
	free(s);
	free(r);
}

static void
check_status(const MPI_Status *st, size_t n, int from, int tag, int round, const char *what)
{
	int count;

	MPI_Get_count(st, MPI_BYTE, &count);
	if (((size_t)count != n || st->MPI_SOURCE != from || st->MPI_TAG != tag) && errors++ < 5)
		fprintf(stderr, "rank %d: %s round %d: %d bytes from %d tag %d, not %zu from %d tag %d\n",
			rank, what, round, count, st->MPI_SOURCE, st->MPI_TAG, n, from, tag);
}

/* Each rank sends to the next; the receiver learns of the message by a
 * probe from any source (four kinds, by round), then takes it. A probe for
 * a tag nobody sends finds nothing. */
static void
probe(int round, size_t n)
{
	int next = (rank + 1) % size, prev = (rank + size - 1) % size, tag = 100 + round;
	uint8_t *s = malloc(n + 1), *r = malloc(n + 1);
	const char *what[] = { "MPI_Probe", "MPI_Iprobe", "MPI_Mprobe", "MPI_Improbe" };
	MPI_Message m;
	MPI_Request q;
	MPI_Status st;
	int flag = 0;

	for (size_t i = 0; i < n; i++)
		s[i] = pattern(rank, next, round, i);
	memset(r, 0, n + 1);
	MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &st);
	if (flag && errors++ < 5)
		fprintf(stderr, "rank %d: probe round %d found a message nobody sent\n", rank, round);
	MPI_Isend(s, (int)n, MPI_BYTE, next, tag, MPI_COMM_WORLD, &q);
	switch (round % 4) {
	case 0:
		MPI_Probe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
		check_status(&st, n, prev, tag, round, what[0]);
		MPI_Recv(r, (int)n, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD, &st);
		break;
	case 1:
		for (flag = 0; !flag;)
			MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
		check_status(&st, n, prev, tag, round, what[1]);
		MPI_Recv(r, (int)n, MPI_BYTE, prev, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		break;
	case 2:
		MPI_Mprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &m, &st);
		check_status(&st, n, prev, tag, round, what[2]);
		MPI_Mrecv(r, (int)n, MPI_BYTE, &m, &st);
		break;
	default:
		for (flag = 0; !flag;)
			MPI_Improbe(prev, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st);
		check_status(&st, n, prev, tag, round, what[3]);
		MPI_Mrecv(r, (int)n, MPI_BYTE, &m, &st);
		break;
	}
	check_status(&st, n, prev, tag, round, "receive after a probe");
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	check_bytes(r, n, prev, rank, round, what[round % 4]);
	free(s);
	free(r);
}

/* A receive shorter than its message: MPI_ERR_TRUNCATE, with what fits
 * (n bytes into a buffer of n / 2, below and above the 16 bytes a tagged
 * receive of the provider always has room for). */
static void
truncated(int round, size_t n)
{
	int next = (rank + 1) % size, prev = (rank + size - 1) % size, rc, cls;
	uint8_t s[64], r[64];
	MPI_Comm c;
	MPI_Request q;
	MPI_Status st;

	for (size_t i = 0; i < n; i++)
		s[i] = pattern(rank, next, round, i);
	memset(r, 0, sizeof(r));
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	MPI_Isend(s, (int)n, MPI_BYTE, next, 7, c, &q);
	rc = MPI_Recv(r, (int)(n / 2), MPI_BYTE, prev, 7, c, &st);
	MPI_Error_class(rc, &cls);
	if (cls != MPI_ERR_TRUNCATE && errors++ < 5)
		fprintf(stderr, "rank %d: %zu bytes into %zu: error class %d, not MPI_ERR_TRUNCATE\n",
			rank, n, n / 2, cls);
	check_bytes(r, n / 2, prev, rank, round, "truncated");
	if (r[n / 2] != 0 && errors++ < 5)
		fprintf(stderr, "rank %d: %zu bytes into %zu: written past the buffer\n", rank, n, n / 2);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Comm_free(&c);
}

static void
alltoall(int round, size_t per)
{
	uint8_t *s = malloc(per * size), *r = malloc(per * size);

	for (int to = 0; to < size; to++)
		for (size_t i = 0; i < per; i++)
			s[to * per + i] = pattern(rank, to, round, i);
	memset(r, 0, per * size);
	MPI_Alltoall(s, (int)per, MPI_BYTE, r, (int)per, MPI_BYTE, MPI_COMM_WORLD);
	for (int from = 0; from < size; from++)
		check_bytes(r + from * per, per, from, rank, round, "alltoall");
	free(s);
	free(r);
}

static void
allreduce(int round, int n)
{
	int64_t *v = malloc(sizeof(*v) * n), *sum = malloc(sizeof(*sum) * n);

	for (int i = 0; i < n; i++)
		v[i] = (int64_t)(rank + 1) * (i + round);
	MPI_Allreduce(v, sum, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	for (int i = 0; i < n; i++) {
		int64_t want = (int64_t)size * (size + 1) / 2 * (i + round);

		if (sum[i] != want && errors++ < 5)
			fprintf(stderr, "rank %d: allreduce round %d [%d] = %lld, not %lld\n", rank,
				round, i, (long long)sum[i], (long long)want);
	}
	free(v);
	free(sum);
}

int
main(int argc, char **argv)
{
	static const size_t sizes[] = { 0, 1, 100, 4096, 4097, 65536, 200000, 1 << 20, 4 << 20 };
	int rounds = argc > 1 ? atoi(argv[1]) : 3, round = 0;
	long total;
	double t0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	t0 = MPI_Wtime();
	for (int k = 0; k < rounds; k++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			ring(round++, sizes[i]);
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			probe(round++, sizes[i]);
		truncated(round++, 10);
		truncated(round++, 64);
		alltoall(round++, 1);
		alltoall(round++, 3000);
		alltoall(round++, 256 * 1024);
		allreduce(round++, 1);
		allreduce(round++, 100000);
	}
	MPI_Allreduce(&errors, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi_check: %d ranks, %d rounds of ring, probes, alltoall and allreduce in %.2f s: "
		       "%ld errors\n", size, rounds, MPI_Wtime() - t0, total);
	MPI_Finalize();
	return total == 0 ? 0 : 1;
}
