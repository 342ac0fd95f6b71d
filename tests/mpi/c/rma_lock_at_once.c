/* Passive-target locks asked for right after the window's creation: every rank but 0
 * locks rank 0's window exclusively as soon as MPI_Win_create returns and adds one to
 * a counter there, several windows in a row. Where the device needs the active side of
 * a connection to send first (iWARP), the thread-based lock designs open their
 * connections with hellos from the lower rank; rank 0, still reaping its hellos'
 * completions, once took such an early request's completion for one of them: the
 * request was lost and its origin waited for ever (siw, TWINFAB_RMA_LOCK=event). */
#include "mpitest.h"

#define WINDOWS 4

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int w = 0; w < WINDOWS; ++w) {
    long long* counter = calloc(1, sizeof(long long));  /* zero before the window exists */
    MPI_Win win;
    OK(MPI_Win_create(counter, sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    if (rank != 0) {
      long long v;
      OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
      OK(MPI_Win_flush(0, win));
      v += 1;
      OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
      OK(MPI_Win_unlock(0, win));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
      OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
      CHECK(*counter == size - 1, "window %d: counter %lld, expected %d", w, *counter, size - 1);
      OK(MPI_Win_unlock(0, win));
    }
    OK(MPI_Win_free(&win));
    free(counter);
  }
  if (rank == 0) printf("rma_lock_at_once: %d ranks, %d windows: ok\n", size, WINDOWS);
  MPI_Finalize();
  return 0;
}
