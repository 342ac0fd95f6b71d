/* The vector collectives: MPI_Gatherv, MPI_Scatterv, MPI_Allgatherv, MPI_Alltoallv
 * with per-rank counts (some zero) and displacements that leave gaps, from every
 * root, with MPI_IN_PLACE, checked on every rank; and their argument errors
 * (negative count, null counts array) under MPI_ERRORS_RETURN. */
#include <string.h>

#include "mpitest.h"

static int count_of(int r) { return r % 3; } /* 0, 1, 2, 0, ... */
static int val(int r, int k) { return r * 100 + k; }

/* displs with a one-element gap after every block; returns the total span. */
static int layout(int size, int (*count)(int), int* counts, int* displs) {
  int at = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = count(i);
    displs[i] = at;
    at += counts[i] + 1;
  }
  return at;
}

static int a2a_count(int from, int to) { return (from + to) % 3 + 1; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  const int span = layout(size, count_of, counts, displs);
  int* buf = malloc(sizeof(int) * (size_t)(span + 1));
  int mine[2];
  for (int k = 0; k < 2; ++k) mine[k] = val(rank, k);

  for (int root = 0; root < size; ++root) {
    /* gatherv, then gatherv in place */
    for (int in_place = 0; in_place < 2; ++in_place) {
      for (int i = 0; i < span; ++i) buf[i] = -1;
      if (in_place && rank == root)
        for (int k = 0; k < counts[rank]; ++k) buf[displs[rank] + k] = val(rank, k);
      const void* send = in_place && rank == root ? MPI_IN_PLACE : (const void*)mine;
      OK(MPI_Gatherv(send, count_of(rank), MPI_INT, buf, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
      if (rank == root) {
        for (int i = 0; i < size; ++i) {
          for (int k = 0; k < counts[i]; ++k)
            CHECK(buf[displs[i] + k] == val(i, k), "gatherv root %d in_place %d: block %d[%d]=%d", root, in_place, i,
                  k, buf[displs[i] + k]);
          CHECK(buf[displs[i] + counts[i]] == -1, "gatherv root %d: gap after block %d written", root, i);
        }
      }
    }
    /* scatterv, then scatterv in place */
    for (int in_place = 0; in_place < 2; ++in_place) {
      if (rank == root)
        for (int i = 0; i < size; ++i)
          for (int k = 0; k < counts[i]; ++k) buf[displs[i] + k] = val(i, k) + root;
      int got[2] = {-7, -7};
      void* recv = in_place && rank == root ? MPI_IN_PLACE : (void*)got;
      OK(MPI_Scatterv(buf, counts, displs, MPI_INT, recv, count_of(rank), MPI_INT, root, MPI_COMM_WORLD));
      if (!(in_place && rank == root)) {
        for (int k = 0; k < count_of(rank); ++k)
          CHECK(got[k] == val(rank, k) + root, "scatterv root %d: got[%d]=%d", root, k, got[k]);
        for (int k = count_of(rank); k < 2; ++k) CHECK(got[k] == -7, "scatterv root %d wrote past its count", root);
      }
    }
  }

  /* allgatherv, then in place */
  for (int in_place = 0; in_place < 2; ++in_place) {
    for (int i = 0; i < span; ++i) buf[i] = -1;
    if (in_place)
      for (int k = 0; k < counts[rank]; ++k) buf[displs[rank] + k] = val(rank, k);
    OK(MPI_Allgatherv(in_place ? MPI_IN_PLACE : mine, count_of(rank), MPI_INT, buf, counts, displs, MPI_INT,
                      MPI_COMM_WORLD));
    for (int i = 0; i < size; ++i) {
      for (int k = 0; k < counts[i]; ++k)
        CHECK(buf[displs[i] + k] == val(i, k), "allgatherv in_place %d: block %d[%d]=%d", in_place, i, k,
              buf[displs[i] + k]);
      CHECK(buf[displs[i] + counts[i]] == -1, "allgatherv: gap after block %d written", i);
    }
  }

  /* alltoallv: rank r sends a2a_count(r, j) ints to j; then in place */
  int* scounts = malloc(sizeof(int) * (size_t)size);
  int* sdispls = malloc(sizeof(int) * (size_t)size);
  int* rcounts = malloc(sizeof(int) * (size_t)size);
  int* rdispls = malloc(sizeof(int) * (size_t)size);
  int sat = 0, rat = 0;
  for (int j = 0; j < size; ++j) {
    scounts[j] = a2a_count(rank, j);
    sdispls[j] = sat;
    sat += scounts[j] + 1;
    rcounts[j] = a2a_count(j, rank);
    rdispls[j] = rat;
    rat += rcounts[j] + 1;
  }
  int* sbuf = malloc(sizeof(int) * (size_t)sat);
  int* rbuf = malloc(sizeof(int) * (size_t)rat);
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < scounts[j]; ++k) sbuf[sdispls[j] + k] = rank * 1000 + j * 10 + k;
  for (int i = 0; i < rat; ++i) rbuf[i] = -1;
  OK(MPI_Alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD));
  for (int j = 0; j < size; ++j) {
    for (int k = 0; k < rcounts[j]; ++k)
      CHECK(rbuf[rdispls[j] + k] == j * 1000 + rank * 10 + k, "alltoallv: from %d [%d]=%d", j, k,
            rbuf[rdispls[j] + k]);
    CHECK(rbuf[rdispls[j] + rcounts[j]] == -1, "alltoallv: gap after block from %d written", j);
  }
  /* in place: symmetric counts (a2a_count is), the outgoing blocks are in rbuf */
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < rcounts[j]; ++k) rbuf[rdispls[j] + k] = rank * 1000 + j * 10 + k;
  OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD));
  for (int j = 0; j < size; ++j)
    for (int k = 0; k < rcounts[j]; ++k)
      CHECK(rbuf[rdispls[j] + k] == j * 1000 + rank * 10 + k, "alltoallv in place: from %d [%d]=%d", j, k,
            rbuf[rdispls[j] + k]);

  /* argument errors */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  counts[0] = -1;
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Allgatherv(mine, count_of(rank), MPI_INT, buf, counts, displs, MPI_INT,
                                             MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Allgatherv(mine, count_of(rank), MPI_INT, buf, NULL, displs, MPI_INT,
                                           MPI_COMM_WORLD));
  OK(MPI_Barrier(MPI_COMM_WORLD));

  free(sbuf), free(rbuf), free(scounts), free(sdispls), free(rcounts), free(rdispls);
  free(buf), free(counts), free(displs);
  if (rank == 0) printf("vcollectives: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
