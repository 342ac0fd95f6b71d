// A C++ program whose rank 1 leaves main() with an exception while rank 0 waits for
// it in a barrier: a process would die of std::terminate and mpirun would end the
// job; `twinfab sim` ends it too, naming the rank, the exception's type and message,
// instead of reporting a deadlock of rank 0 (the testlist checks the message).
#include <mpi.h>

#include <stdexcept>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) throw std::runtime_error("rank one gives up");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
