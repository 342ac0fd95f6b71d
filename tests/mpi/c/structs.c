/* Derived datatypes built with the MPI-2 constructors of the C API:
 * MPI_Type_create_struct over a C struct (displacements from MPI_Get_address, extent
 * from the compiler's padding and, for a packed subset, MPI_Type_create_resized),
 * MPI_Type_create_hvector, MPI_Type_create_hindexed, MPI_Type_dup and
 * MPI_Type_get_true_extent; arrays of them sent between ranks 0 and 1 (eager and
 * rendezvous sizes) and checked field by field, padding untouched. And the MPI-1
 * MPI_Address and MPI_Type_struct, which MPI-3.0 removed. */
#include <stddef.h>
#include <string.h>

#include "mpitest.h"

struct particle {
  int id;
  double pos[3];
  char tag;
  /* padding here */
};

#define COUNT 3000 /* ~100 KB: the rendezvous path */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "run with at least 2 ranks");

  /* struct type from addresses */
  struct particle probe;
  MPI_Aint base, a_id, a_pos, a_tag;
  OK(MPI_Get_address(&probe, &base));
  OK(MPI_Get_address(&probe.id, &a_id));
  OK(MPI_Get_address(&probe.pos, &a_pos));
  OK(MPI_Get_address(&probe.tag, &a_tag));
  const int lengths[3] = {1, 3, 1};
  const MPI_Aint displs[3] = {a_id - base, a_pos - base, a_tag - base};
  const MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Datatype ptype, ptype_dup;
  OK(MPI_Type_create_struct(3, lengths, displs, types, &ptype));
  OK(MPI_Type_commit(&ptype));
  MPI_Aint lb, extent, tlb, textent;
  OK(MPI_Type_get_extent(ptype, &lb, &extent));
  CHECK(lb == 0 && extent == (MPI_Aint)sizeof(struct particle), "struct extent %ld, sizeof %zu", (long)extent,
        sizeof(struct particle));
  OK(MPI_Type_get_true_extent(ptype, &tlb, &textent));
  CHECK(tlb == 0 && textent == (MPI_Aint)(offsetof(struct particle, tag) + 1), "true extent %ld", (long)textent);
  int tsize;
  OK(MPI_Type_size(ptype, &tsize));
  CHECK(tsize == (int)(sizeof(int) + 3 * sizeof(double) + 1), "struct size %d", tsize);
  OK(MPI_Type_dup(ptype, &ptype_dup));
  OK(MPI_Type_commit(&ptype_dup));

  /* only the positions of each particle, as an array: resized to the struct's extent */
  MPI_Datatype pos_only, pos_array;
  const int one[1] = {3};
  const MPI_Aint at[1] = {a_pos - base};
  const MPI_Datatype dbl[1] = {MPI_DOUBLE};
  OK(MPI_Type_create_struct(1, one, at, dbl, &pos_only));
  OK(MPI_Type_create_resized(pos_only, 0, (MPI_Aint)sizeof(struct particle), &pos_array));
  OK(MPI_Type_commit(&pos_array));

  struct particle* p = malloc(sizeof(struct particle) * COUNT);
  for (int round = 0; round < 3; ++round) {
    const MPI_Datatype t = round == 0 ? ptype : round == 1 ? ptype_dup : pos_array;
    for (int n = 1; n <= COUNT; n *= 60) {
      if (rank == 0) {
        for (int i = 0; i < n; ++i) {
          memset(&p[i], 0, sizeof p[i]);
          p[i].id = i * 7 + round;
          for (int d = 0; d < 3; ++d) p[i].pos[d] = i + d * 0.25 + round;
          p[i].tag = (char)('a' + i % 26);
        }
        OK(MPI_Send(p, n, t, 1, round, MPI_COMM_WORLD));
      } else if (rank == 1) {
        memset(p, 0x5a, sizeof(struct particle) * (size_t)n);
        MPI_Status st;
        OK(MPI_Recv(p, n, t, 0, round, MPI_COMM_WORLD, &st));
        int got;
        OK(MPI_Get_count(&st, t, &got));
        CHECK(got == n, "round %d: count %d, expected %d", round, got, n);
        for (int i = 0; i < n; ++i) {
          for (int d = 0; d < 3; ++d)
            CHECK(p[i].pos[d] == i + d * 0.25 + round, "round %d: p[%d].pos[%d]=%g", round, i, d, p[i].pos[d]);
          if (round < 2) {
            CHECK(p[i].id == i * 7 + round && p[i].tag == (char)('a' + i % 26), "round %d: p[%d] id %d tag %c", round,
                  i, p[i].id, p[i].tag);
          } else {
            int untouched;
            memset(&untouched, 0x5a, sizeof untouched);
            CHECK(p[i].id == untouched && p[i].tag == 0x5a, "round 2: p[%d] fields outside the type written", i);
          }
        }
      }
    }
  }

  /* hvector: every other int of a row; hindexed: two runs at byte offsets */
  int row[16], out[16];
  MPI_Datatype hv, hi;
  OK(MPI_Type_create_hvector(8, 1, 2 * (MPI_Aint)sizeof(int), MPI_INT, &hv));
  const int hl[2] = {2, 3};
  const MPI_Aint hd[2] = {4 * (MPI_Aint)sizeof(int), 10 * (MPI_Aint)sizeof(int)};
  OK(MPI_Type_create_hindexed(2, hl, hd, MPI_INT, &hi));
  OK(MPI_Type_commit(&hv));
  OK(MPI_Type_commit(&hi));
  if (rank == 0) {
    for (int i = 0; i < 16; ++i) row[i] = 100 + i;
    OK(MPI_Send(row, 1, hv, 1, 7, MPI_COMM_WORLD));
    OK(MPI_Send(row, 1, hi, 1, 8, MPI_COMM_WORLD));
  } else if (rank == 1) {
    OK(MPI_Recv(out, 8, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; ++i) CHECK(out[i] == 100 + 2 * i, "hvector: out[%d]=%d", i, out[i]);
    OK(MPI_Recv(out, 5, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    const int expect[5] = {104, 105, 110, 111, 112};
    for (int i = 0; i < 5; ++i) CHECK(out[i] == expect[i], "hindexed: out[%d]=%d", i, out[i]);
  }

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype bad;
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Type_create_hvector(-1, 1, 8, MPI_INT, &bad));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_struct(2, lengths, NULL, types, &bad));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 8, &bad));

  /* The MPI-1 names MPI-3.0 removed (HPL calls them): the same type as the MPI-2 ones,
     and their errors name them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  MPI_Aint old_base, old_pos;
  OK(MPI_Address(&probe, &old_base));
  OK(MPI_Address(&probe.pos, &old_pos));
  CHECK(old_base == base && old_pos == a_pos, "MPI_Address %ld %ld, MPI_Get_address %ld %ld", (long)old_base,
        (long)old_pos, (long)base, (long)a_pos);
  int old_lengths[3] = {1, 3, 1};
  MPI_Aint old_displs[3] = {a_id - base, a_pos - base, a_tag - base};
  MPI_Datatype old_types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, old_ptype;
  OK(MPI_Type_struct(3, old_lengths, old_displs, old_types, &old_ptype));
  int old_size;
  MPI_Aint old_lb, old_extent;
  OK(MPI_Type_size(old_ptype, &old_size));
  OK(MPI_Type_get_extent(old_ptype, &old_lb, &old_extent));
  CHECK(old_size == tsize && old_lb == lb && old_extent == extent, "MPI_Type_struct: size %d extent %ld", old_size,
        (long)old_extent);
  OK(MPI_Type_free(&old_ptype));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Address(&probe, NULL));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Type_struct(-1, old_lengths, old_displs, old_types, &bad));
#pragma GCC diagnostic pop

  OK(MPI_Type_free(&ptype));
  OK(MPI_Type_free(&ptype_dup));
  OK(MPI_Type_free(&pos_only));
  OK(MPI_Type_free(&pos_array));
  OK(MPI_Type_free(&hv));
  OK(MPI_Type_free(&hi));
  free(p);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("structs: ok\n");
  MPI_Finalize();
  return 0;
}
