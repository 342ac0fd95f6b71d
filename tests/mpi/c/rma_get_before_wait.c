/* A get's data is the window's as it was when the get was applied, even when the
 * target changes its window right after MPI_Win_wait (MPICH's rma/at_complete found
 * the send/receive design replying to a large get straight out of the window by
 * rendezvous: over the hybrid channel the reply read the window after the change).
 *
 *   rma_get_before_wait [elements=100000] [rounds=4]
 *
 * Rank 0 gets `elements` ints from rank 1 (all 1) and puts a block, in a PSCW epoch
 * and in a fence epoch; rank 1 writes 2 into its window as soon as its epoch ends.
 * Rank 0 checks every element it got is 1. */
#include "mpitest.h"
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  const int n = argc > 1 ? atoi(argv[1]) : 100000;
  const int rounds = argc > 2 ? atoi(argv[2]) : 4;
  const int put_n = 100;
  int* win_buf = malloc(sizeof(int) * (size_t)(n + put_n));
  int* got = malloc(sizeof(int) * (size_t)n);
  int* put = malloc(sizeof(int) * (size_t)put_n);
  for (int i = 0; i < put_n; ++i) put[i] = 1;
  MPI_Win win;
  MPI_Win_create(win_buf, sizeof(int) * (MPI_Aint)(n + put_n), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Group world, origin_group, target_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int zero = 0, one = 1;
  MPI_Group_incl(world, 1, &zero, &origin_group);
  MPI_Group_incl(world, 1, &one, &target_group);
  for (int r = 0; r < rounds; ++r) {
    for (int pscw = 0; pscw < 2; ++pscw) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
      for (int i = 0; i < n + put_n; ++i) win_buf[i] = 1;
      MPI_Win_unlock(rank, win);
      for (int i = 0; i < n; ++i) got[i] = 0;
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) {
        if (pscw) MPI_Win_start(target_group, 0, win); else MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        MPI_Get(got, n, MPI_INT, 1, put_n, n, MPI_INT, win);
        MPI_Put(put, put_n, MPI_INT, 1, 0, put_n, MPI_INT, win);
        if (pscw) MPI_Win_complete(win); else MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        for (int i = 0; i < n; ++i)
          CHECK(got[i] == 1, "round %d (%s): element %d is %d, expected 1 (the target's change after its epoch)", r,
                pscw ? "PSCW" : "fence", i, got[i]);
      } else if (rank == 1) {
        if (pscw) {
          MPI_Win_post(origin_group, 0, win);
          MPI_Win_wait(win);
        } else {
          MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
          MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        }
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        for (int i = 0; i < n + put_n; ++i) win_buf[i] = 2;
        MPI_Win_unlock(rank, win);
      } else if (!pscw) {
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  MPI_Group_free(&origin_group);
  MPI_Group_free(&target_group);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  free(put);
  free(got);
  free(win_buf);
  MPI_Finalize();
  return 0;
}
