/* MPI_Alltoallw: a datatype per peer and byte displacements, with MPI_IN_PLACE, and
 * its argument errors (every rank passes the same bad argument, so every rank
 * refuses the call before anything is sent). Any number of ranks. */
#include <string.h>

#include "mpitest.h"

/* What rank `from` sends rank `to`: to + 1 ints. */
static int value(int from, int to, int i) { return from * 10000 + to * 100 + i; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  /* Every other int of a strided buffer goes out (a vector type per block), and lands
   * contiguous (MPI_INT) at peers of even rank, strided at peers of odd rank. */
  int* sendcounts = malloc(sizeof(int) * size);
  int* sdispls = malloc(sizeof(int) * size);
  int* recvcounts = malloc(sizeof(int) * size);
  int* rdispls = malloc(sizeof(int) * size);
  MPI_Datatype* sendtypes = malloc(sizeof(MPI_Datatype) * size);
  MPI_Datatype* recvtypes = malloc(sizeof(MPI_Datatype) * size);
  MPI_Datatype* owned = malloc(sizeof(MPI_Datatype) * 2 * size);
  int nowned = 0, sendlen = 0, recvlen = 0;
  for (int j = 0; j < size; ++j) {
    MPI_Datatype strided;
    OK(MPI_Type_vector(j + 1, 1, 2, MPI_INT, &strided));
    OK(MPI_Type_commit(&strided));
    owned[nowned++] = strided;
    sendcounts[j] = 1;
    sendtypes[j] = strided;
    sdispls[j] = sendlen * (int)sizeof(int);
    sendlen += 2 * (j + 1);
    /* from rank j: rank + 1 ints */
    if (rank % 2 == 0) {
      recvcounts[j] = rank + 1;
      recvtypes[j] = MPI_INT;
      rdispls[j] = recvlen * (int)sizeof(int);
      recvlen += rank + 1;
    } else {
      MPI_Datatype r;
      OK(MPI_Type_vector(rank + 1, 1, 2, MPI_INT, &r));
      OK(MPI_Type_commit(&r));
      owned[nowned++] = r;
      recvcounts[j] = 1;
      recvtypes[j] = r;
      rdispls[j] = recvlen * (int)sizeof(int);
      recvlen += 2 * (rank + 1);
    }
  }
  int* sendbuf = malloc(sizeof(int) * sendlen);
  int* recvbuf = malloc(sizeof(int) * recvlen);
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < 2 * (j + 1); ++i)
      sendbuf[sdispls[j] / (int)sizeof(int) + i] = i % 2 == 0 ? value(rank, j, i / 2) : -2;
  for (int i = 0; i < recvlen; ++i) recvbuf[i] = -1;
  OK(MPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                   MPI_COMM_WORLD));
  for (int j = 0; j < size; ++j) {
    const int* block = recvbuf + rdispls[j] / (int)sizeof(int);
    for (int i = 0; i <= rank; ++i) {
      const int got = rank % 2 == 0 ? block[i] : block[2 * i];
      CHECK(got == value(j, rank, i), "from rank %d, element %d: %d, expected %d", j, i, got, value(j, rank, i));
      if (rank % 2 == 1) CHECK(block[2 * i + 1] == -1, "from rank %d: a gap was written", j);
    }
  }

  /* In place: the blocks of recvbuf go out and are replaced (same types both ways). */
  int* inplace = malloc(sizeof(int) * size * 3);
  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * size);
  for (int j = 0; j < size; ++j) {
    counts[j] = 3;
    displs[j] = 3 * j * (int)sizeof(int);
    types[j] = j % 2 == 0 ? MPI_INT : MPI_UNSIGNED;
    for (int i = 0; i < 3; ++i) inplace[3 * j + i] = value(rank, j, i);
  }
  OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, inplace, counts, displs, types, MPI_COMM_WORLD));
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < 3; ++i)
      CHECK(inplace[3 * j + i] == value(j, rank, i), "in place, from rank %d element %d: %d", j, i,
            inplace[3 * j + i]);

  /* Errors: the same at every rank; nothing is sent, so a later call still works. */
  MPI_Datatype saved = types[size - 1];
  types[size - 1] = MPI_DATATYPE_NULL;
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Alltoallw(inplace, counts, displs, types, recvbuf, counts, displs, types,
                                           MPI_COMM_WORLD));
  types[size - 1] = saved;
  counts[0] = -1;
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, inplace, counts, displs, types,
                                            MPI_COMM_WORLD));
  counts[0] = 3;
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, inplace, counts, displs, NULL,
                                          MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Alltoallw(inplace, counts, NULL, types, recvbuf, counts, displs, types,
                                          MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, inplace, counts, displs, types,
                                           MPI_COMM_NULL));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Alltoallw(inplace, counts, displs, types, inplace, counts, displs, types,
                                             MPI_COMM_WORLD));
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < 3; ++i) inplace[3 * j + i] = value(rank, j, i);
  OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, inplace, counts, displs, types, MPI_COMM_WORLD));
  CHECK(inplace[0] == value(0, rank, 0), "after the refused calls: %d", inplace[0]);

  for (int i = 0; i < nowned; ++i) OK(MPI_Type_free(&owned[i]));
  free(sendcounts), free(sdispls), free(recvcounts), free(rdispls), free(sendtypes), free(recvtypes), free(owned);
  free(sendbuf), free(recvbuf), free(inplace), free(counts), free(displs), free(types);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("alltoallw: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
