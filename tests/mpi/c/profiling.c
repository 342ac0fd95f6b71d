/* The profiling interface (MPI-3.1 §14.2): this program is its own tool. It defines
 * MPI_Init, MPI_Send, MPI_Recv, MPI_Allreduce and MPI_Finalize, counts the calls and
 * passes them on to PMPI_Init, PMPI_Send, ...; its main() calls the MPI_ names, which
 * must reach the definitions here (under `twinfab sim` each rank's private copy of
 * the program, on hardware the executable), and the PMPI_ names must do the work.
 * Also: a PMPI_ function called directly gives what its MPI_ one does. */
#include <string.h>

#include "mpitest.h"

static int inits, sends, recvs, allreduces, finalizes, pcontrol_level = -1;
static long long bytes_sent;

int MPI_Init(int* argc, char*** argv) {
  ++inits;
  return PMPI_Init(argc, argv);
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  int size = 0;
  PMPI_Type_size(type, &size);
  ++sends;
  bytes_sent += (long long)size * count;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  ++recvs;
  return PMPI_Recv(buf, count, type, source, tag, comm, status);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  ++allreduces;
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Pcontrol(const int level, ...) {
  pcontrol_level = level;
  return PMPI_Pcontrol(level);
}

int MPI_Finalize(void) {
  ++finalizes;
  /* The tool's summary, reduced before the library goes. */
  int rank, total = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Allreduce(&sends, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("profiling: %d sends in all\n", total);
  return PMPI_Finalize();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, prank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(inits == 1, "MPI_Init reached the program's definition %d times", inits);
  OK(PMPI_Comm_rank(MPI_COMM_WORLD, &prank));
  CHECK(prank == rank, "PMPI_Comm_rank gave %d, MPI_Comm_rank %d", prank, rank);

  /* A ring: one send and one receive per rank and round. */
  const int rounds = 3;
  for (int i = 0; i < rounds; ++i) {
    int token[4] = {rank, i, 0, 0}, got[4];
    if (rank % 2 == 0) {
      OK(MPI_Send(token, 4, MPI_INT, (rank + 1) % size, i, MPI_COMM_WORLD));
      OK(MPI_Recv(got, 4, MPI_INT, (rank + size - 1) % size, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
      OK(MPI_Recv(got, 4, MPI_INT, (rank + size - 1) % size, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      OK(MPI_Send(token, 4, MPI_INT, (rank + 1) % size, i, MPI_COMM_WORLD));
    }
    CHECK(got[0] == (rank + size - 1) % size && got[1] == i, "ring round %d got %d/%d", i, got[0], got[1]);
  }
  CHECK(sends == rounds && recvs == rounds, "counted %d sends and %d receives, expected %d each", sends, recvs,
        rounds);
  CHECK(bytes_sent == (long long)rounds * 4 * (long long)sizeof(int), "counted %lld bytes", bytes_sent);

  /* A PMPI_ call is not counted, and does the same work. */
  int one = 1, sum = 0, psum = 0;
  OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  OK(PMPI_Allreduce(&one, &psum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size && psum == size, "allreduce %d, PMPI_Allreduce %d", sum, psum);
  CHECK(allreduces == 1, "counted %d allreduces, expected 1", allreduces);
  CHECK(PMPI_Wtime() >= 0.0, "PMPI_Wtime is negative");
  OK(MPI_Pcontrol(2));
  CHECK(pcontrol_level == 2, "MPI_Pcontrol reached the tool with level %d", pcontrol_level);
  OK(PMPI_Pcontrol(0));  /* the library's: does nothing */

  MPI_Finalize();
  if (rank == 0) printf(" No Errors\n");
  return 0;
}
