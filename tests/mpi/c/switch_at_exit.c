/* A hybrid channel's switch from UD to RC just before MPI_Finalize (TWINFAB_TRANSPORT=hybrid,
 * a low TWINFAB_HYBRID_RC_THRESHOLD): rank 1 sends a long message (many UD packets, more
 * than the window) and enters a barrier, whose packet is the first over RC; the Switch
 * packet that releases it at rank 0 is still queued over UD when rank 1 reaches
 * MPI_Finalize. The shutdown must keep both channels going until everything arrived
 * (once rank 1 shut RC down first and never sent the Switch: rank 0 waited in the
 * barrier for ever). From MPICH's pt2pt/precv_anysrc, which found it.
 *
 *   switch_at_exit [rounds=1] [bytes=262144]
 * (one round: the switch then happens in the barrier just before MPI_Finalize; the old
 * shutdown failed so, with "rank 1 did not acknowledge a packet re-sent 25 times".) */
#include <stdlib.h>

#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 1;
  const int bytes = argc > 2 ? atoi(argv[2]) : 262144;
  char* buf = calloc((size_t)bytes, 1);
  for (int r = 0; r < rounds; ++r) {
    MPI_Request req;
    if (rank == 0) {
      OK(MPI_Irecv(buf, bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
      OK(MPI_Barrier(MPI_COMM_WORLD));
      OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
      for (int i = 0; i < bytes; i += 4096) CHECK(buf[i] == (char)(r + 1), "round %d: byte %d is %d", r, i, buf[i]);
    } else if (rank == 1) {
      for (int i = 0; i < bytes; ++i) buf[i] = (char)(r + 1);
      OK(MPI_Isend(buf, bytes, MPI_BYTE, 0, r, MPI_COMM_WORLD, &req));
      OK(MPI_Barrier(MPI_COMM_WORLD));
      OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      OK(MPI_Barrier(MPI_COMM_WORLD));
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
