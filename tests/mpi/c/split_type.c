/* MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): the ranks that share a host.
 *
 *   split_type K   under `twinfab sim --ranks-per-host K`: rank r is on simulated
 *                  host r / K, so the shared communicator must hold exactly the ranks
 *                  with the same r / K, ordered by key (here: reversed);
 *   split_type     on hardware (mpirun): the ranks whose MPI_Get_processor_name is
 *                  the same (one host in CI: everyone).
 *
 * MPI-4.0's MPI_COMM_TYPE_HW_GUIDED ("mpi_shared_memory" is the host; other resource
 * types, no key, MPI_INFO_NULL: MPI_COMM_NULL) and MPI_COMM_TYPE_HW_UNGUIDED (the host
 * when it is a strict subset, with the key set; else MPI_COMM_NULL).
 *
 * Also: MPI_UNDEFINED gives MPI_COMM_NULL (the others still get theirs), a split of a
 * split (a parity half) stays within the host, collectives inside, the inherited
 * error handler, and the errors: an unknown split type (MPI_ERR_ARG), an info handle
 * that is no info object (MPI_ERR_INFO; info.c passes real ones), null arguments. */
#include <string.h>

#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int per_host = argc > 1 ? atoi(argv[1]) : 0;
  CHECK(argc <= 1 || per_host >= 1, "usage: split_type [ranks-per-host]");

  /* Which world ranks share my host: by placement, or by processor name. */
  char* same = calloc((size_t)size, 1);
  if (per_host > 0) {
    for (int r = 0; r < size; ++r) same[r] = r / per_host == rank / per_host;
  } else {
    char* names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    char mine[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    OK(MPI_Get_processor_name(mine, &len));
    OK(MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) same[r] = strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, mine) == 0;
    free(names);
  }
  int expect_size = 0, expect_rank = 0;
  for (int r = 0; r < size; ++r) {
    expect_size += same[r];
    if (same[r] && r > rank) ++expect_rank; /* reversed by the key */
  }

  MPI_Comm host;
  OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &host));
  CHECK(host != MPI_COMM_NULL, "no shared communicator");
  int hsize, hrank;
  OK(MPI_Comm_size(host, &hsize));
  OK(MPI_Comm_rank(host, &hrank));
  CHECK(hsize == expect_size, "%d ranks share my host, expected %d", hsize, expect_size);
  CHECK(hrank == expect_rank, "rank %d on the host, expected %d", hrank, expect_rank);
  /* Each member's world rank, gathered inside the host communicator. */
  int* world_of = malloc(sizeof(int) * (size_t)hsize);
  OK(MPI_Allgather(&rank, 1, MPI_INT, world_of, 1, MPI_INT, host));
  for (int i = 0; i < hsize; ++i) {
    CHECK(same[world_of[i]], "world rank %d is in my host communicator but not on my host", world_of[i]);
    CHECK(i == 0 || world_of[i] < world_of[i - 1], "host ranks not ordered by the key");
  }
  MPI_Errhandler eh;
  OK(MPI_Comm_get_errhandler(host, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "the error handler was not inherited");
  OK(MPI_Errhandler_free(&eh));

  /* Rank 0 opts out; everyone else still gets a host communicator. */
  MPI_Comm some;
  OK(MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &some));
  if (rank == 0) {
    CHECK(some == MPI_COMM_NULL, "MPI_UNDEFINED gave 0x%x", some);
  } else {
    int ssize;
    OK(MPI_Comm_size(some, &ssize));
    CHECK(ssize == expect_size - (same[0] ? 1 : 0), "without rank 0: %d share my host", ssize);
    OK(MPI_Comm_free(&some));
  }

  /* Split a parity half by host: the members share both the parity and the host. */
  MPI_Comm half, half_host;
  OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  OK(MPI_Comm_split_type(half, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &half_host));
  int both = 0, got;
  for (int r = rank % 2; r < size; r += 2) both += same[r];
  OK(MPI_Comm_size(half_host, &got));
  CHECK(got == both, "%d of my parity share my host, expected %d", got, both);
  int sum = 0, want = 0;
  OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half_host));
  for (int r = rank % 2; r < size; r += 2)
    if (same[r]) want += r;
  CHECK(sum == want, "sum over my parity on my host %d, expected %d", sum, want);

  /* MPI-4.0's hardware split types; the one level is the host. */
  {
    MPI_Info info;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
    MPI_Comm guided;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &guided));
    CHECK(guided != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory gave MPI_COMM_NULL");
    int gsize, result;
    OK(MPI_Comm_size(guided, &gsize));
    CHECK(gsize == expect_size, "HW_GUIDED mpi_shared_memory: %d ranks, %d share my host", gsize, expect_size);
    OK(MPI_Comm_compare(guided, host, &result));
    CHECK(result == MPI_SIMILAR || result == MPI_CONGRUENT, "HW_GUIDED differs from the host communicator (%d)",
          result);
    OK(MPI_Comm_free(&guided));
    /* An unknown resource type, the wrong key, or no info: MPI_COMM_NULL everywhere. */
    OK(MPI_Info_set(info, "mpi_hw_resource_type", "l3cache"));
    guided = MPI_COMM_WORLD;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &guided));
    CHECK(guided == MPI_COMM_NULL, "HW_GUIDED l3cache gave a communicator");
    OK(MPI_Info_delete(info, "mpi_hw_resource_type"));
    OK(MPI_Info_set(info, "shmem_topo", "machine"));
    guided = MPI_COMM_WORLD;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &guided));
    CHECK(guided == MPI_COMM_NULL, "HW_GUIDED without mpi_hw_resource_type gave a communicator");
    guided = MPI_COMM_WORLD;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &guided));
    CHECK(guided == MPI_COMM_NULL, "HW_GUIDED with MPI_INFO_NULL gave a communicator");
    /* HW_UNGUIDED: the host when it is a strict subset (the key says so), else null. */
    MPI_Comm unguided;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, info, &unguided));
    char value[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    OK(MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag));
    if (expect_size < size) {
      CHECK(unguided != MPI_COMM_NULL, "HW_UNGUIDED gave MPI_COMM_NULL with %d of %d ranks on my host",
            expect_size, size);
      OK(MPI_Comm_size(unguided, &gsize));
      CHECK(gsize == expect_size, "HW_UNGUIDED: %d ranks, %d share my host", gsize, expect_size);
      CHECK(flag && strcmp(value, "mpi_shared_memory") == 0, "HW_UNGUIDED set mpi_hw_resource_type to '%s'",
            flag ? value : "(not set)");
      OK(MPI_Comm_free(&unguided));
    } else {
      CHECK(unguided == MPI_COMM_NULL, "HW_UNGUIDED gave a communicator with every rank on my host");
      CHECK(!flag, "HW_UNGUIDED set mpi_hw_resource_type to '%s' without a communicator", value);
    }
    OK(MPI_Info_free(&info));
  }

  /* Errors: nothing is made, nothing is sent. */
  MPI_Comm untouched = MPI_COMM_WORLD;
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_split_type(MPI_COMM_WORLD, 42, 0, MPI_INFO_NULL, &untouched));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_split_type(MPI_COMM_WORLD, -7, 0, MPI_INFO_NULL, &untouched));
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, (MPI_Info)5, &untouched));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, NULL));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_split_type(MPI_COMM_NULL, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &untouched));
  CHECK(untouched == MPI_COMM_WORLD, "a refused call wrote 0x%x", untouched);

  OK(MPI_Comm_free(&half_host));
  OK(MPI_Comm_free(&half));
  OK(MPI_Comm_free(&host));
  free(world_of);
  free(same);
  MPI_Finalize();
  if (rank == 0) printf("split_type: %d ranks, %d on rank 0's host: ok\n", size, expect_size);
  return 0;
}
