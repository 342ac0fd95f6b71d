/* MPI_BOTTOM with types built from absolute addresses (MPI_Get_address): a struct's
 * fields sent and received in place, a 1 MiB block past the eager threshold (the
 * rendezvous registers the absolute address range), MPI_Bcast, MPI_Pack/MPI_Unpack,
 * and the null-buffer errors that remain (a predefined type, a type whose data starts
 * at offset 0). Any number of ranks >= 2. */
#include <string.h>

#include "mpitest.h"

struct record {
  int id;
  double weight;
  char tag[3];
};

/* The struct's fields at their absolute addresses. */
static MPI_Datatype absolute_record(struct record* r) {
  int lengths[3] = {1, 1, 3};
  MPI_Aint addresses[3];
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  OK(MPI_Get_address(&r->id, &addresses[0]));
  OK(MPI_Get_address(&r->weight, &addresses[1]));
  OK(MPI_Get_address(r->tag, &addresses[2]));
  MPI_Datatype t;
  OK(MPI_Type_create_struct(3, lengths, addresses, types, &t));
  OK(MPI_Type_commit(&t));
  return t;
}

/* `n` bytes at `p`'s absolute address. */
static MPI_Datatype absolute_block(void* p, int n) {
  MPI_Aint address;
  OK(MPI_Get_address(p, &address));
  int length = n;
  MPI_Datatype t;
  OK(MPI_Type_create_hindexed(1, &length, &address, MPI_BYTE, &t));
  OK(MPI_Type_commit(&t));
  return t;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs at least 2 ranks");
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  /* 1. A struct, field by field, between ranks 0 and 1. */
  struct record r;
  memset(&r, 0, sizeof r);
  MPI_Datatype rt = absolute_record(&r);
  if (rank == 0) {
    r.id = 42, r.weight = 2.5, memcpy(r.tag, "abc", 3);
    OK(MPI_Send(MPI_BOTTOM, 1, rt, 1, 1, MPI_COMM_WORLD));
  } else if (rank == 1) {
    MPI_Status st;
    OK(MPI_Recv(MPI_BOTTOM, 1, rt, 0, 1, MPI_COMM_WORLD, &st));
    CHECK(r.id == 42 && r.weight == 2.5 && memcmp(r.tag, "abc", 3) == 0, "received %d %g %.3s", r.id, r.weight,
          r.tag);
    int count = -1;
    OK(MPI_Get_count(&st, rt, &count));
    CHECK(count == 1, "MPI_Get_count gave %d", count);
  }

  /* 2. 1 MiB through the rendezvous, both ends at absolute addresses. */
  enum { kBig = 1 << 20 };
  unsigned char* big = malloc(kBig);
  CHECK(big != NULL, "malloc");
  for (size_t i = 0; i < kBig; ++i) big[i] = rank == 0 ? pattern(0, 2, i) : 0;
  MPI_Datatype bt = absolute_block(big, kBig);
  if (rank == 0) {
    OK(MPI_Send(MPI_BOTTOM, 1, bt, 1, 2, MPI_COMM_WORLD));
  } else if (rank == 1) {
    OK(MPI_Recv(MPI_BOTTOM, 1, bt, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (size_t i = 0; i < kBig; ++i) CHECK(big[i] == pattern(0, 2, i), "big[%zu] = %d", i, big[i]);
  }

  /* 3. A collective: every rank's own struct, as rank 0's. */
  if (rank == 0) r.id = 7, r.weight = -1.0, memcpy(r.tag, "xyz", 3);
  OK(MPI_Bcast(MPI_BOTTOM, 1, rt, 0, MPI_COMM_WORLD));
  CHECK(r.id == 7 && r.weight == -1.0 && memcmp(r.tag, "xyz", 3) == 0, "after MPI_Bcast: %d %g %.3s", r.id,
        r.weight, r.tag);

  /* 4. MPI_Pack from and MPI_Unpack to MPI_BOTTOM. */
  char packed[64];
  int position = 0;
  OK(MPI_Pack(MPI_BOTTOM, 1, rt, packed, sizeof packed, &position, MPI_COMM_WORLD));
  CHECK(position == (int)(sizeof(int) + sizeof(double) + 3), "packed %d bytes", position);
  memset(&r, 0, sizeof r);
  position = 0;
  OK(MPI_Unpack(packed, sizeof packed, &position, MPI_BOTTOM, 1, rt, MPI_COMM_WORLD));
  CHECK(r.id == 7 && r.weight == -1.0 && memcmp(r.tag, "xyz", 3) == 0, "after MPI_Unpack: %d %g %.3s", r.id,
        r.weight, r.tag);

  /* 5. Still errors: a predefined type, or one whose data starts at offset 0, cannot
   * hold absolute addresses (MPICH's rule). */
  MPI_Datatype contiguous;
  OK(MPI_Type_contiguous(4, MPI_INT, &contiguous));
  OK(MPI_Type_commit(&contiguous));
  int peer = rank == 0 ? 1 : 0;
  MPI_Request req;
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Send(MPI_BOTTOM, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Send(MPI_BOTTOM, 1, contiguous, peer, 3, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Irecv(MPI_BOTTOM, 1, contiguous, peer, 3, MPI_COMM_WORLD, &req));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Bcast(MPI_BOTTOM, 1, MPI_INT, 0, MPI_COMM_WORLD));
  position = 0;
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Pack(MPI_BOTTOM, 1, contiguous, packed, sizeof packed, &position, MPI_COMM_WORLD));
  OK(MPI_Send(MPI_BOTTOM, 0, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD)); /* no data: no buffer needed */

  OK(MPI_Type_free(&contiguous));
  OK(MPI_Type_free(&bt));
  OK(MPI_Type_free(&rt));
  free(big);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("bottom: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
