/* MPI_Scan and MPI_Exscan: SUM, MIN, MAX, BOR on int, SUM on double, MAXLOC on
 * MPI_2INT, with MPI_IN_PLACE, against prefixes computed on every rank; Exscan leaves
 * rank 0's buffer alone. MPI_Reduce_scatter (uneven blocks, in place) and
 * MPI_Reduce_scatter_block. Any number of ranks (recursive doubling with partners that
 * do not exist when n is not a power of two). */
#include "mpitest.h"

#define N 23

static int ival(int r, int k) { return (r * 13 + k * 7) % 17 - 8; }

static int combine(MPI_Op op, int a, int b) {
  if (op == MPI_SUM) return a + b;
  if (op == MPI_MIN) return a < b ? a : b;
  if (op == MPI_MAX) return a > b ? a : b;
  return a | b; /* MPI_BOR */
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MPI_Op ops[] = {MPI_SUM, MPI_MIN, MPI_MAX, MPI_BOR};
  const char* names[] = {"SUM", "MIN", "MAX", "BOR"};
  for (int o = 0; o < 4; ++o) {
    for (int in_place = 0; in_place < 2; ++in_place) {
      int in[N], out[N], ex[N];
      for (int k = 0; k < N; ++k) in[k] = ival(rank, k) & (ops[o] == MPI_BOR ? 0xff : ~0);
      for (int k = 0; k < N; ++k) out[k] = in_place ? in[k] : -99;
      OK(MPI_Scan(in_place ? MPI_IN_PLACE : in, out, N, MPI_INT, ops[o], MPI_COMM_WORLD));
      for (int k = 0; k < N; ++k) ex[k] = in_place ? in[k] : -99;
      OK(MPI_Exscan(in_place ? MPI_IN_PLACE : in, ex, N, MPI_INT, ops[o], MPI_COMM_WORLD));
      for (int k = 0; k < N; ++k) {
        int prefix = ival(0, k) & (ops[o] == MPI_BOR ? 0xff : ~0);
        int below = prefix;
        for (int r = 1; r <= rank; ++r) {
          below = prefix;
          prefix = combine(ops[o], prefix, ival(r, k) & (ops[o] == MPI_BOR ? 0xff : ~0));
        }
        CHECK(out[k] == prefix, "scan %s in_place %d: out[%d]=%d, expected %d", names[o], in_place, k, out[k], prefix);
        if (rank > 0)
          CHECK(ex[k] == below, "exscan %s in_place %d: ex[%d]=%d, expected %d", names[o], in_place, k, ex[k], below);
        else
          CHECK(ex[k] == (in_place ? in[k] : -99), "exscan %s: rank 0's buffer was written", names[o]);
      }
    }
  }
  /* doubles: sums of small integers are exact in any order */
  double d = rank + 0.5, dsum = -1;
  OK(MPI_Scan(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  CHECK(dsum == rank * (rank + 1) / 2.0 + 0.5 * (rank + 1), "scan double: %g", dsum);
  /* MAXLOC: the largest value so far and the lowest rank holding it */
  struct { int value, index; } v = {(rank * 5) % 7, rank}, best;
  OK(MPI_Scan(&v, &best, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
  int bv = -1, bi = -1;
  for (int r = 0; r <= rank; ++r)
    if ((r * 5) % 7 > bv) bv = (r * 5) % 7, bi = r;
  CHECK(best.value == bv && best.index == bi, "scan MAXLOC: (%d, %d), expected (%d, %d)", best.value, best.index, bv, bi);

  /* reduce-scatter: block i (i % 3 + 1 ints) of the element-wise sum goes to rank i */
  int* counts = malloc(sizeof(int) * (size_t)size);
  int total = 0;
  for (int i = 0; i < size; ++i) counts[i] = i % 3 + 1, total += counts[i];
  int* vec = malloc(sizeof(int) * (size_t)total);
  int part[3];
  for (int in_place = 0; in_place < 2; ++in_place) {
    for (int k = 0; k < total; ++k) vec[k] = ival(rank, k);
    OK(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : vec, in_place ? vec : part, counts, MPI_INT, MPI_SUM,
                          MPI_COMM_WORLD));
    const int* mine = in_place ? vec : part;
    int first = 0;
    for (int i = 0; i < rank; ++i) first += counts[i];
    for (int k = 0; k < counts[rank]; ++k) {
      int sum = 0;
      for (int r = 0; r < size; ++r) sum += ival(r, first + k);
      CHECK(mine[k] == sum, "reduce_scatter in_place %d: [%d]=%d, expected %d", in_place, k, mine[k], sum);
    }
  }
  /* reduce_scatter_block: two ints each, MAX */
  int* blocks = malloc(sizeof(int) * 2 * (size_t)size);
  for (int k = 0; k < 2 * size; ++k) blocks[k] = ival(rank, k);
  int two[2];
  OK(MPI_Reduce_scatter_block(blocks, two, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  for (int k = 0; k < 2; ++k) {
    int max = ival(0, 2 * rank + k);
    for (int r = 1; r < size; ++r) max = ival(r, 2 * rank + k) > max ? ival(r, 2 * rank + k) : max;
    CHECK(two[k] == max, "reduce_scatter_block: [%d]=%d, expected %d", k, two[k], max);
  }
  free(blocks), free(vec);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  counts[0] = -2;
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Reduce_scatter(part, part, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  free(counts);
  int x = 1, y = 0;
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Scan(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Exscan(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("scans: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
