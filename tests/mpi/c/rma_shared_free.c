/* Two windows alive at once, freed one after the other, with ranks sharing hosts:
 * a shared-memory window (MPI_Win_allocate_shared over each host's ranks), then a
 * window over MPI_COMM_WORLD made on the shared memory, used with passive-target
 * exclusive locks, puts, flushes and gets from one origin to two ranks of another
 * host. The pattern of MPICH's test/mpi/rma/win_shared_put_flush_get, where the
 * event-driven lock design (TWINFAB_RMA_LOCK=event) once crashed in MPI_Win_free.
 * Run with several ranks per host (testlist), or at least three on one host (hwlist);
 * with argument "idle" nobody locks (as in MPICH's test with consecutive placement,
 * where its origin does not exist). */
#include <string.h>

#include "mpitest.h"

#define COUNT 4
#define ROUNDS 50

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Comm host;
  OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host));
  int host_size;
  MPI_Comm_size(host, &host_size);
  /* The ranks of host 0 in MPI_COMM_WORLD (every rank learns them): the targets are
   * its first and last; the origin is the lowest rank of another host, or with every
   * rank on one host (hardware) one that is neither target. */
  int* host0 = calloc((size_t)size, sizeof(int));
  int host0_size = host_size;
  OK(MPI_Bcast(&host0_size, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    MPI_Group world_group, host_group;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    OK(MPI_Comm_group(host, &host_group));
    int* in_host = malloc((size_t)host_size * sizeof(int));
    for (int i = 0; i < host_size; ++i) in_host[i] = i;
    OK(MPI_Group_translate_ranks(host_group, host_size, in_host, world_group, host0));
    free(in_host);
    OK(MPI_Group_free(&host_group));
    OK(MPI_Group_free(&world_group));
  }
  OK(MPI_Bcast(host0, host0_size, MPI_INT, 0, MPI_COMM_WORLD));
  const int get_target = host0[0], put_target = host0[host0_size - 1];
  int origin = -1;
  for (int r = 0; r < size && origin < 0; ++r) {
    int on_host0 = 0;
    for (int i = 0; i < host0_size; ++i) on_host0 |= host0[i] == r;
    if (!on_host0) origin = r;
  }
  if (origin < 0 && host0_size >= 3) origin = host0[1];
  CHECK(host0_size >= 2 && origin >= 0, "needs two ranks on the first host and an origin (%d of %d ranks there)",
        host0_size, size);

  double* base;
  MPI_Win shared;
  const MPI_Aint bytes = COUNT * sizeof(double);
  OK(MPI_Win_allocate_shared(bytes, sizeof(double), MPI_INFO_NULL, host, &base, &shared));
  for (int i = 0; i < COUNT; ++i) base[i] = 0.0;
  /* The get target's window covers its host's whole segment, so it reads what the put
   * target's part holds. */
  const MPI_Aint size_here = rank == get_target ? bytes * host_size : bytes;
  MPI_Win win;
  OK(MPI_Win_create(base, size_here, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  OK(MPI_Barrier(MPI_COMM_WORLD));

  const int rounds = argc > 1 && strcmp(argv[1], "idle") == 0 ? 0 : ROUNDS;
  double put[COUNT], got[COUNT];
  for (int round = 0; round < rounds; ++round) {
    if (rank != origin) continue;
    for (int i = 0; i < COUNT; ++i) put[i] = round * 10.0 + i;
    memset(got, 0, sizeof got);
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, put_target, 0, win));
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, get_target, 0, win));
    for (int i = 0; i < COUNT; ++i) OK(MPI_Put(&put[i], 1, MPI_DOUBLE, put_target, i, 1, MPI_DOUBLE, win));
    OK(MPI_Win_flush(put_target, win));
    OK(MPI_Get(got, COUNT, MPI_DOUBLE, get_target, (MPI_Aint)(host0_size - 1) * COUNT, COUNT, MPI_DOUBLE, win));
    OK(MPI_Win_flush(get_target, win));
    for (int i = 0; i < COUNT; ++i)
      CHECK(got[i] == put[i], "round %d: got[%d] = %.1f, expected %.1f", round, i, got[i], put[i]);
    OK(MPI_Win_unlock(put_target, win));
    OK(MPI_Win_unlock(get_target, win));
  }
  OK(MPI_Barrier(MPI_COMM_WORLD));

  /* The order of MPICH's test: the shared window first, while the other is alive. */
  OK(MPI_Win_free(&shared));
  OK(MPI_Win_free(&win));
  OK(MPI_Comm_free(&host));
  free(host0);
  if (rank == 0) printf("rma_shared_free: %d ranks, %d on host 0: ok\n", size, host0_size);
  MPI_Finalize();
  return 0;
}
