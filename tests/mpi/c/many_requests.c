/* Many outstanding requests: every rank posts REQS receives and REQS sends to every
 * other rank at once, completed with Waitall, Waitany, Testall and Test in turn;
 * sends released early with MPI_Request_free; a posted receive cancelled. */
#include <string.h>

#include "mpitest.h"

#define REQS 64

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int peers = size - 1, total = peers * REQS;
  int* in = malloc(sizeof(int) * (size_t)total * 4);
  int* out = malloc(sizeof(int) * (size_t)total * 4);
  MPI_Request* rr = malloc(sizeof(MPI_Request) * (size_t)total);
  MPI_Request* sr = malloc(sizeof(MPI_Request) * (size_t)total);
  for (int round = 0; round < 4; ++round) {
    int n = 0;
    for (int p = 0; p < size; ++p) {
      if (p == rank) continue;
      for (int i = 0; i < REQS; ++i, ++n) {
        OK(MPI_Irecv(&in[n * 4], 4, MPI_INT, p, i, MPI_COMM_WORLD, &rr[n]));
        out[n * 4] = rank;
        out[n * 4 + 1] = i;
        out[n * 4 + 2] = round;
        out[n * 4 + 3] = rank * i + round;
      }
    }
    n = 0;
    for (int p = 0; p < size; ++p) {
      if (p == rank) continue;
      for (int i = 0; i < REQS; ++i, ++n) OK(MPI_Isend(&out[n * 4], 4, MPI_INT, p, i, MPI_COMM_WORLD, &sr[n]));
    }
    if (round == 0) {
      OK(MPI_Waitall(total, rr, MPI_STATUSES_IGNORE));
    } else if (round == 1) {
      for (int done = 0; done < total; ++done) {
        int index;
        MPI_Status st;
        OK(MPI_Waitany(total, rr, &index, &st));
        CHECK(index >= 0 && index < total && rr[index] == MPI_REQUEST_NULL, "waitany index %d", index);
        CHECK(st.MPI_TAG == index % REQS, "waitany tag %d for index %d", st.MPI_TAG, index);
      }
      int index;
      OK(MPI_Waitany(total, rr, &index, MPI_STATUS_IGNORE));
      CHECK(index == MPI_UNDEFINED, "waitany on all-null gave %d", index);
    } else if (round == 2) {
      int flag = 0;
      while (!flag) OK(MPI_Testall(total, rr, &flag, MPI_STATUSES_IGNORE));
      for (int k = 0; k < total; ++k) CHECK(rr[k] == MPI_REQUEST_NULL, "testall released %d", k);
    } else {
      for (int k = 0; k < total; ++k) {
        int flag = 0;
        MPI_Status st;
        while (!flag) OK(MPI_Test(&rr[k], &flag, &st));
        CHECK(st.MPI_SOURCE == (k / REQS < rank ? k / REQS : k / REQS + 1), "test source %d", st.MPI_SOURCE);
      }
    }
    /* Sends: freed in odd rounds (complete on their own), waited in even ones. */
    if (round % 2) {
      for (int k = 0; k < total; ++k) OK(MPI_Request_free(&sr[k]));
    } else {
      OK(MPI_Waitall(total, sr, MPI_STATUSES_IGNORE));
    }
    n = 0;
    for (int p = 0; p < size; ++p) {
      if (p == rank) continue;
      for (int i = 0; i < REQS; ++i, ++n)
        CHECK(in[n * 4] == p && in[n * 4 + 1] == i && in[n * 4 + 2] == round && in[n * 4 + 3] == p * i + round,
              "round %d: message %d from %d holds %d %d %d %d", round, i, p, in[n * 4], in[n * 4 + 1],
              in[n * 4 + 2], in[n * 4 + 3]);
    /* The freed sends' buffers are reused next round: make sure peers got them. */
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  /* Cancel: a receive nobody sends to. */
  MPI_Request r;
  MPI_Status st;
  int flag;
  OK(MPI_Irecv(in, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &r));
  OK(MPI_Cancel(&r));
  OK(MPI_Wait(&r, &st));
  OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag, "receive was not cancelled");
  free(in);
  free(out);
  free(rr);
  free(sr);
  MPI_Finalize();
  return 0;
}
