/* Buffered and ready sends: MPI_Bsend returns before any receive is posted (the
 * peers only receive after a barrier), for tiny, eager and rendezvous sizes, with the
 * buffer space reused round after round once the messages were received; MPI_Buffer_detach waits for delivery and
 * gives the buffer back; MPI_Rsend and MPI_Irsend to posted receives; and the errors:
 * no buffer attached, a buffer too small, a second attach, a negative size. */
#include <string.h>

#include "mpitest.h"

enum { kMessages = 8, kBig = 200000 };
static const int kSizes[kMessages] = {0, 1, 8, 100, 4000, 20000, kBig, 64};

static void fill(unsigned char* p, int n, int rank, int seq) {
  for (int i = 0; i < n; ++i) p[i] = pattern(rank, seq, (size_t)i);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* Every message of a round in flight at once: the buffer holds them all. */
  int total = 0;
  for (int i = 0; i < kMessages; ++i) total += kSizes[i] + MPI_BSEND_OVERHEAD;
  unsigned char* attached = malloc((size_t)total);
  unsigned char* out = malloc(kBig);
  unsigned char* in = malloc(kBig);
  OK(MPI_Buffer_attach(attached, total));

  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kMessages; ++i) {
      fill(out, kSizes[i], rank, round * kMessages + i);
      OK(MPI_Bsend(out, kSizes[i], MPI_BYTE, right, i, MPI_COMM_WORLD));
      memset(out, 0, (size_t)kSizes[i]); /* the copy in the buffer is what goes */
    }
    /* Nobody has posted a receive yet: every Bsend returned anyway. */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < kMessages; ++i) {
      MPI_Status status;
      OK(MPI_Recv(in, kBig, MPI_BYTE, left, i, MPI_COMM_WORLD, &status));
      int count = -1;
      MPI_Get_count(&status, MPI_BYTE, &count);
      CHECK(count == kSizes[i], "round %d message %d: %d bytes, expected %d", round, i, count, kSizes[i]);
      for (int k = 0; k < count; ++k)
        CHECK(in[k] == pattern(left, round * kMessages + i, (size_t)k), "round %d message %d byte %d", round, i, k);
    }
    /* Every message of this round has been received: the next round may reuse the
     * space (the buffer is sized for one round; MPI only frees what was delivered). */
    MPI_Barrier(MPI_COMM_WORLD);
  }

  void* back = NULL;
  int back_size = -1;
  OK(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == attached && back_size == total, "detach gave %p/%d, expected %p/%d", back, back_size,
        (void*)attached, total);

  /* Ready mode: the receive is posted before the barrier, the send after it. */
  MPI_Request request;
  OK(MPI_Irecv(in, 16, MPI_BYTE, left, 50, MPI_COMM_WORLD, &request));
  MPI_Barrier(MPI_COMM_WORLD);
  fill(out, 16, rank, 50);
  OK(MPI_Rsend(out, 16, MPI_BYTE, right, 50, MPI_COMM_WORLD));
  OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
  for (int k = 0; k < 16; ++k) CHECK(in[k] == pattern(left, 50, (size_t)k), "rsend byte %d", k);
  MPI_Request requests[2];
  OK(MPI_Irecv(in, kBig, MPI_BYTE, left, 51, MPI_COMM_WORLD, &requests[0]));
  MPI_Barrier(MPI_COMM_WORLD);
  fill(out, kBig, rank, 51);
  OK(MPI_Irsend(out, kBig, MPI_BYTE, right, 51, MPI_COMM_WORLD, &requests[1]));
  OK(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE));
  for (int k = 0; k < kBig; ++k) CHECK(in[k] == pattern(left, 51, (size_t)k), "irsend byte %d", k);

  /* Errors, reported to the caller. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Bsend(out, 8, MPI_BYTE, right, 60, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Buffer_attach(attached, -1));
  OK(MPI_Buffer_attach(attached, 8 + MPI_BSEND_OVERHEAD));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Buffer_attach(attached, total));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Bsend(out, 9, MPI_BYTE, right, 61, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Bsend(out, 8, MPI_BYTE, size, 62, MPI_COMM_WORLD));
  OK(MPI_Bsend(out, 8, MPI_BYTE, right, 63, MPI_COMM_WORLD));
  OK(MPI_Recv(in, 8, MPI_BYTE, left, 63, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Buffer_detach(&back, &back_size));
  CHECK(back_size == 8 + MPI_BSEND_OVERHEAD, "second detach gave %d bytes", back_size);
  OK(MPI_Buffer_detach(&back, &back_size)); /* nothing attached: NULL and 0, as MPICH */
  CHECK(back == NULL && back_size == 0, "detach without a buffer gave %p/%d", back, back_size);

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("buffered: %d ranks ok\n", size);
  free(attached);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
