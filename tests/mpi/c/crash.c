/* crash MODE: rank 1 crashes the process, and twinfab sim must say which rank, how and
 * where (tools/twinfab/crash_report.hpp).
 *   segv      a NULL store in the program's own code
 *   overflow  a recursion of 64 KiB frames that outgrows the rank's 1 MiB stack
 *   in-mpi    MPI_Send from an address that is not mapped: the fault is inside MPI_Send
 * Rank 0 waits in MPI_Recv for a message that never comes. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int deep(int n) {
  volatile char frame[65536];
  memset((char*)frame, n, sizeof frame);
  return n > 0 ? deep(n - 1) + frame[7] : 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* mode = argc > 1 ? argv[1] : "";
  if (rank == 1) {
    if (strcmp(mode, "segv") == 0) *(volatile int*)0 = 1;
    if (strcmp(mode, "overflow") == 0) printf("%d\n", deep(1 << 20));
    if (strcmp(mode, "in-mpi") == 0) MPI_Send((void*)16, 1024, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    fprintf(stderr, "crash: unknown mode '%s' (segv, overflow, in-mpi)\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  } else {
    char buf[1024];
    MPI_Recv(buf, sizeof buf, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
