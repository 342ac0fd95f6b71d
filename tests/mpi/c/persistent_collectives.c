/* Persistent collectives (MPI-4.0 §6.13): MPI_X_init makes an inactive request, every
 * MPI_Start runs the collective again with the arguments of the init call on the
 * data the buffers hold then, MPI_Wait leaves the request inactive for the next start.
 * Checked over several rounds: every one of the 22 calls (the neighbourhood ones on a
 * periodic ring), several started together by MPI_Startall with a nonblocking
 * collective between them and completed in reverse order, two started in opposite
 * orders on rank 0 and the others (they match by init order), a persistent bcast on an
 * intercommunicator, and the errors: starting an active request, freeing or cancelling
 * an active one, a bad info, and a bad root (reported by MPI_Start, the request
 * staying inactive). */
#include <string.h>

#include "mpitest.h"

enum { kRounds = 4, kN = 3 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const size_t n = (size_t)size;

  /* Buffers the requests keep using. */
  int bc[kN], in[kN], red[kN], all[kN], scan[kN], exscan[kN], mine, block = -1;
  int *gath = malloc(sizeof(int) * n), *scat = malloc(sizeof(int) * n), *ag = malloc(sizeof(int) * n);
  int *a2a_out = malloc(sizeof(int) * n), *a2a_in = malloc(sizeof(int) * n), *ones = malloc(sizeof(int) * n);
  int *displs = malloc(sizeof(int) * n), *rs_in = malloc(sizeof(int) * n), *agv = malloc(sizeof(int) * n);
  int *gv = malloc(sizeof(int) * n), *sv = malloc(sizeof(int) * n), *a2av = malloc(sizeof(int) * n);
  int *a2aw = malloc(sizeof(int) * n), *bdispl = malloc(sizeof(int) * n);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * n);
  int got_scatter = -1, got_scatterv = -1;
  for (size_t i = 0; i < n; ++i)
    ones[i] = 1, displs[i] = (int)i, bdispl[i] = (int)(i * sizeof(int)), types[i] = MPI_INT;
  const int root = size - 1;

  enum { kCount = 17 };
  MPI_Request reqs[kCount];
  int k = 0;
  OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Bcast_init(bc, kN, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Reduce_init(in, red, kN, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Allreduce_init(in, all, kN, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Gather_init(&mine, 1, MPI_INT, gath, 1, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Scatter_init(scat, 1, MPI_INT, &got_scatter, 1, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Allgather_init(&mine, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Alltoall_init(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Gatherv_init(&mine, 1, MPI_INT, gv, ones, displs, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Scatterv_init(scat, ones, displs, MPI_INT, &got_scatterv, 1, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &reqs[k++]));
  OK(MPI_Allgatherv_init(&mine, 1, MPI_INT, agv, ones, displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Alltoallv_init(a2a_out, ones, displs, MPI_INT, a2av, ones, displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                        &reqs[k++]));
  OK(MPI_Alltoallw_init(a2a_out, ones, bdispl, types, a2aw, ones, bdispl, types, MPI_COMM_WORLD, MPI_INFO_NULL,
                        &reqs[k++]));
  OK(MPI_Reduce_scatter_block_init(rs_in, &block, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Scan_init(in, scan, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  OK(MPI_Exscan_init(in, exscan, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  int rs_block = -1;
  OK(MPI_Reduce_scatter_init(rs_in, &rs_block, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[k++]));
  CHECK(k == kCount, "made %d requests", k);
  /* A periodic ring for the neighbourhood calls. */
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  int nb_out[2], nb_one[2] = {1, 1}, nb_displ[2] = {0, 1};
  MPI_Aint nb_bdispl[2] = {0, sizeof(int)};
  MPI_Datatype nb_types[2] = {MPI_INT, MPI_INT};
  int nb_ag[2], nb_agv[2], nb_a2a[2], nb_a2av[2], nb_a2aw[2];
  MPI_Request nreq[5];
  OK(MPI_Neighbor_allgather_init(&mine, 1, MPI_INT, nb_ag, 1, MPI_INT, ring, MPI_INFO_NULL, &nreq[0]));
  OK(MPI_Neighbor_allgatherv_init(&mine, 1, MPI_INT, nb_agv, nb_one, nb_displ, MPI_INT, ring, MPI_INFO_NULL,
                                  &nreq[1]));
  OK(MPI_Neighbor_alltoall_init(nb_out, 1, MPI_INT, nb_a2a, 1, MPI_INT, ring, MPI_INFO_NULL, &nreq[2]));
  OK(MPI_Neighbor_alltoallv_init(nb_out, nb_one, nb_displ, MPI_INT, nb_a2av, nb_one, nb_displ, MPI_INT, ring,
                                 MPI_INFO_NULL, &nreq[3]));
  OK(MPI_Neighbor_alltoallw_init(nb_out, nb_one, nb_bdispl, nb_types, nb_a2aw, nb_one, nb_bdispl, nb_types, ring,
                                 MPI_INFO_NULL, &nreq[4]));
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;

  for (int round = 0; round < kRounds; ++round) {
    /* New data in the same buffers. */
    const int base = 100 * round;
    mine = base + rank;
    for (int i = 0; i < kN; ++i) in[i] = base + rank * kN + i, bc[i] = rank == root ? base + i : -1;
    for (size_t i = 0; i < n; ++i) {
      scat[i] = rank == root ? base + 7 * (int)i : -1;
      a2a_out[i] = base + 1000 * rank + (int)i;
      rs_in[i] = base + (int)i + rank;
      gath[i] = ag[i] = a2a_in[i] = gv[i] = agv[i] = a2av[i] = a2aw[i] = -1;
    }
    nb_out[0] = base + 10 * rank + 0;  /* to the left neighbour */
    nb_out[1] = base + 10 * rank + 1;  /* to the right one */
    /* All at once, with a nonblocking barrier between, completed in reverse order. */
    MPI_Request extra;
    OK(MPI_Startall(kCount - 1, reqs));
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &extra));
    OK(MPI_Start(&reqs[kCount - 1]));
    OK(MPI_Startall(5, nreq));
    for (int i = kCount - 1; i >= 0; --i) {
      OK(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
      CHECK(reqs[i] != MPI_REQUEST_NULL, "a persistent request was freed by MPI_Wait");
    }
    OK(MPI_Waitall(5, nreq, MPI_STATUSES_IGNORE));
    OK(MPI_Wait(&extra, MPI_STATUS_IGNORE));

    for (int i = 0; i < kN; ++i) {
      CHECK(bc[i] == base + i, "round %d: bcast[%d] = %d", round, i, bc[i]);
      int sum = 0, prefix = 0, before = 0;
      for (int r = 0; r < size; ++r) sum += base + r * kN + i;
      for (int r = 0; r <= rank; ++r) prefix += base + r * kN + i;
      for (int r = 0; r < rank; ++r) before += base + r * kN + i;
      if (rank == root) CHECK(red[i] == sum, "round %d: reduce[%d] = %d, expected %d", round, i, red[i], sum);
      CHECK(all[i] == base + (size - 1) * kN + i, "round %d: allreduce[%d] = %d", round, i, all[i]);
      CHECK(scan[i] == prefix, "round %d: scan[%d] = %d, expected %d", round, i, scan[i], prefix);
      if (rank > 0) CHECK(exscan[i] == before, "round %d: exscan[%d] = %d, expected %d", round, i, exscan[i], before);
    }
    for (int r = 0; r < size; ++r) {
      const size_t at = (size_t)r;
      if (rank == root) {
        CHECK(gath[at] == base + r, "round %d: gather[%d] = %d", round, r, gath[at]);
        CHECK(gv[at] == base + r, "round %d: gatherv[%d] = %d", round, r, gv[at]);
      }
      CHECK(ag[at] == base + r && agv[at] == base + r, "round %d: allgather(v)[%d] = %d/%d", round, r, ag[at],
            agv[at]);
      const int want = base + 1000 * r + rank;
      CHECK(a2a_in[at] == want && a2av[at] == want && a2aw[at] == want, "round %d: alltoall(v,w)[%d] = %d/%d/%d",
            round, r, a2a_in[at], a2av[at], a2aw[at]);
    }
    CHECK(got_scatter == base + 7 * rank && got_scatterv == base + 7 * rank, "round %d: scatter(v) gave %d/%d", round,
          got_scatter, got_scatterv);
    int want_block = 0;
    for (int r = 0; r < size; ++r) want_block += base + rank + r;
    CHECK(block == want_block && rs_block == want_block, "round %d: reduce_scatter(_block) %d/%d, expected %d", round,
          block, rs_block, want_block);
    /* The ring: source 0 is the left neighbour, 1 the right one; the left one sent
     * its element 1 to me (its right), the right one its element 0. */
    CHECK(nb_ag[0] == base + left && nb_ag[1] == base + right, "round %d: neighbor_allgather %d %d", round,
          nb_ag[0], nb_ag[1]);
    CHECK(nb_agv[0] == nb_ag[0] && nb_agv[1] == nb_ag[1], "round %d: neighbor_allgatherv", round);
    if (size > 2) {
      CHECK(nb_a2a[0] == base + 10 * left + 1 && nb_a2a[1] == base + 10 * right + 0,
            "round %d: neighbor_alltoall %d %d", round, nb_a2a[0], nb_a2a[1]);
      CHECK(nb_a2av[0] == nb_a2a[0] && nb_a2av[1] == nb_a2a[1] && nb_a2aw[0] == nb_a2a[0] && nb_a2aw[1] == nb_a2a[1],
            "round %d: neighbor_alltoall(v,w)", round);
    }
  }

  /* Started in different orders: rank 0 the bcast first, the others the barrier. */
  {
    int a = -1;
    MPI_Request two[2];
    OK(MPI_Bcast_init(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &two[0]));
    OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &two[1]));
    for (int round = 0; round < 2; ++round) {
      a = rank == 0 ? 42 + round : -1;
      OK(MPI_Start(&two[rank == 0 ? 0 : 1]));
      OK(MPI_Start(&two[rank == 0 ? 1 : 0]));
      OK(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
      CHECK(a == 42 + round, "round %d: out-of-order bcast gave %d", round, a);
    }
    OK(MPI_Request_free(&two[0]));
    OK(MPI_Request_free(&two[1]));
  }

  /* Errors. */
  OK(MPI_Start(&reqs[0]));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Start(&reqs[0]));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Request_free(&reqs[0]));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Cancel(&reqs[0]));
  OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
  MPI_Request bad;
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Barrier_init(MPI_COMM_WORLD, (MPI_Info)12345, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, NULL));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Barrier_init(MPI_COMM_NULL, MPI_INFO_NULL, &bad));
  OK(MPI_Bcast_init(bc, kN, MPI_INT, size, MPI_COMM_WORLD, MPI_INFO_NULL, &bad));  /* checked at the start */
  EXPECT_CLASS(MPI_ERR_ROOT, MPI_Start(&bad));
  CHECK(bad != MPI_REQUEST_NULL, "a refused start freed the request");
  OK(MPI_Wait(&bad, MPI_STATUS_IGNORE)); /* inactive: completes at once */
  OK(MPI_Request_free(&bad));
  CHECK(bad == MPI_REQUEST_NULL, "MPI_Request_free did not null the handle");

  /* On an intercommunicator: a bcast from the even ranks' rank 0 to the odd ranks. */
  if (size >= 2) {
    MPI_Comm half, inter;
    const int in_a = rank % 2 == 0;
    OK(MPI_Comm_split(MPI_COMM_WORLD, in_a, rank, &half));
    OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? 1 : 0, 5, &inter));
    int value = -1;
    MPI_Request r;
    OK(MPI_Bcast_init(&value, 1, MPI_INT, in_a ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter, MPI_INFO_NULL, &r));
    for (int round = 0; round < 3; ++round) {
      value = rank == 0 ? 50 + round : -1;
      OK(MPI_Start(&r));
      OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      if (!in_a) CHECK(value == 50 + round, "round %d: intercommunicator bcast gave %d", round, value);
    }
    OK(MPI_Request_free(&r));
    OK(MPI_Comm_free(&inter));
    OK(MPI_Comm_free(&half));
  }

  for (int i = 0; i < kCount; ++i) OK(MPI_Request_free(&reqs[i]));
  for (int i = 0; i < 5; ++i) OK(MPI_Request_free(&nreq[i]));
  OK(MPI_Comm_free(&ring));
  free(gath), free(scat), free(ag), free(a2a_out), free(a2a_in), free(ones), free(displs), free(rs_in), free(agv);
  free(gv), free(sv), free(a2av), free(a2aw), free(bdispl), free(types);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf(" No Errors\n");
  MPI_Finalize();
  return 0;
}
