/* Reproducer (library bug, mpi/rma, found by scenarios/seed001): with TWINFAB_RMA=rdma
 * (the default) a zero-count MPI_Put or MPI_Get -- legal, a no-op (MPI-3.1 sec. 11.3) --
 * fails with MPI_ERR_INTERN "registration cache: cannot register a zero-length buffer".
 * TWINFAB_RMA=sendrecv completes it. Any epoch kind; fence shown here.
 *
 *   build/bin/twinfab-mpicc -o zero_count_put zero_count_put.c
 *   build/tools/twinfab/twinfab sim -n 2 --platform infinihost-sdr ./zero_count_put
 *   expected: "zero_count_put: ok"; got: MPI_ERR_INTERN from MPI_Put (exit 16) */
#include <stdio.h>

#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char* mem;
  char buf[8] = {0};
  MPI_Win win;
  MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_fence(0, win);
  int rc_put = MPI_Put(buf, 0, MPI_BYTE, 1 - rank, 0, 0, MPI_BYTE, win);
  int rc_get = MPI_Get(buf, 0, MPI_BYTE, 1 - rank, 0, 0, MPI_BYTE, win);
  MPI_Win_fence(0, win);
  if (rc_put != MPI_SUCCESS || rc_get != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc_put != MPI_SUCCESS ? rc_put : rc_get, msg, &len);
    printf("zero_count_put: rank %d: MPI_Put -> %d, MPI_Get -> %d: %s\n", rank, rc_put, rc_get, msg);
  } else if (rank == 0) {
    printf("zero_count_put: ok\n");
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
