/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI job of tools/demo_mpi.sh: ITERS all-to-alls of BYTES per pair,
 * every byte checked, rank 0 recording when each one ends. Rank 0 writes
 * the wall clock (CLOCK_REALTIME, ns) at which the job starts to START_FILE
 * (the demo schedules the link failure from it) and the timeline to
 * OUT_JSON:
 *   {"ranks", "bytes_per_pair", "bytes_per_iter", "start_realtime_ns",
 *    "iter_end_s": [...], "errors"}
 * and, as it goes, each all-to-all's end to OUT_JSON.steps (one line each,
 * flushed: what a job that MPI aborts got done).
 *   mpi_alltoall ITERS BYTES START_FILE OUT_JSON
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint8_t
pattern(int from, int to, int iter, size_t i)
{
	return (uint8_t)(from * 37 + to * 11 + iter * 7 + i * 131 + (i >> 9));
}

int
main(int argc, char **argv)
{
	int rank, size, iters;
	size_t per;
	long errors = 0, total = 0;
	double t0, *ends;
	uint8_t *s, *r;
	struct timespec ts;
	FILE *f, *steps = NULL;
	char path[4096];

	MPI_Init(&argc, &argv);
	if (argc != 5) {
		fprintf(stderr, "usage: mpi_alltoall ITERS BYTES START_FILE OUT_JSON\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	iters = atoi(argv[1]);
	per = (size_t)atol(argv[2]);
	s = malloc(per * size);
	r = malloc(per * size);
	ends = calloc((size_t)iters, sizeof(*ends));
	if (s == NULL || r == NULL || ends == NULL || iters <= 0)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	clock_gettime(CLOCK_REALTIME, &ts);
	if (rank == 0) {
		snprintf(path, sizeof(path), "%s.steps", argv[4]);
		steps = fopen(path, "w");
		if (steps != NULL)
			fprintf(steps, "%lld %zu\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec,
				per * (size_t)size * (size_t)(size - 1));
		if ((f = fopen(argv[3], "w")) != NULL) {
			fprintf(f, "%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
			fclose(f);
		}
	}
	for (int it = 0; it < iters; it++) {
		for (int to = 0; to < size; to++)
			for (size_t i = 0; i < per; i++)
				s[to * per + i] = pattern(rank, to, it, i);
		MPI_Alltoall(s, (int)per, MPI_BYTE, r, (int)per, MPI_BYTE, MPI_COMM_WORLD);
		for (int from = 0; from < size; from++)
			for (size_t i = 0; i < per; i++)
				if (r[from * per + i] != pattern(from, rank, it, i)) {
					errors++;
					break;
				}
		ends[it] = MPI_Wtime() - t0;
		if (steps != NULL) {
			fprintf(steps, "%.6f\n", ends[it]);
			fflush(steps);
		}
	}
	if (steps != NULL)
		fclose(steps);
	MPI_Reduce(&errors, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		f = fopen(argv[4], "w");
		if (f == NULL)
			MPI_Abort(MPI_COMM_WORLD, 1);
		fprintf(f, "{\"ranks\": %d, \"bytes_per_pair\": %zu, \"bytes_per_iter\": %zu, "
			   "\"start_realtime_ns\": %lld, \"errors\": %ld, \"iter_end_s\": [",
			size, per, per * (size_t)size * (size_t)(size - 1),
			(long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, total);
		for (int it = 0; it < iters; it++)
			fprintf(f, "%s%.6f", it ? ", " : "", ends[it]);
		fprintf(f, "]}\n");
		fclose(f);
		printf("mpi_alltoall: %d ranks, %d all-to-alls of %zu B per pair in %.3f s, %ld errors\n",
		       size, iters, per, ends[iters - 1], total);
	}
	MPI_Finalize();
	return total == 0 ? 0 : 1;
}
