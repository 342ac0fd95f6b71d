/* User-defined reduction operations (MPI_Op_create, MPI-3.1 §5.9.5) in every
 * reduction: MPI_Reduce (several roots, MPI_IN_PLACE at the root), MPI_Allreduce,
 * MPI_Reduce_scatter (uneven blocks, some empty), MPI_Reduce_scatter_block, MPI_Scan,
 * MPI_Exscan (each with and without MPI_IN_PLACE) and MPI_Reduce_local, with counts
 * 0, 1, 7 and one past the eager threshold (rendezvous messages):
 *  - a commutative op: a field-wise sum on a struct {int; double} datatype (a hole
 *    between the fields);
 *  - a non-commutative one: the product of 2x2 integer matrices mod 10007 (a
 *    contiguous datatype of 4 ints), whose result depends on operand order, so any
 *    algorithm that reordered ranks would be caught (the test checks that reversing
 *    the order does change the result);
 *  - a non-commutative op on MPI_INT: "the left operand", whose reduction is rank 0's
 *    value.
 * Each user function checks that it gets the datatype handle the call was given and
 * a positive count. Then: MPI_Op_commutative; MPI_Op_free (the handle becomes
 * MPI_OP_NULL and a stale copy is invalid); an op freed by its own function while a
 * reduction runs, which still completes correctly; and the error classes under
 * MPI_ERRORS_RETURN (MPI_ERR_OP for null, freed, invalid and predefined handles,
 * MPI_ERR_ARG for null pointers, MPI_ERR_BUFFER for MPI_Reduce_local's MPI_IN_PLACE
 * and aliased buffers). */
#include <stddef.h>
#include <string.h>

#include "mpitest.h"

#define P 10007 /* matrices are reduced mod P: entries stay below 2^14, products fit an int */

typedef struct {
  int m[4]; /* row-major [[m0, m1], [m2, m3]] */
} mat;

typedef struct {
  int count;
  double weight;
} tally;

static MPI_Datatype mat_type, tally_type;
/* What the user functions saw that they should not have; checked at the end. */
static int bad_calls;
static int calls;

/* inout = in * inout: `in` is the left operand (MPI-3.1 §5.9.5). */
static void mat_product(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype) {
  ++calls;
  if (*datatype != mat_type || *len <= 0) ++bad_calls;
  const mat* a = invec;
  mat* b = inoutvec;
  for (int i = 0; i < *len; ++i) {
    const int* x = a[i].m;
    int* y = b[i].m;
    int r0 = (x[0] * y[0] + x[1] * y[2]) % P, r1 = (x[0] * y[1] + x[1] * y[3]) % P;
    int r2 = (x[2] * y[0] + x[3] * y[2]) % P, r3 = (x[2] * y[1] + x[3] * y[3]) % P;
    y[0] = r0, y[1] = r1, y[2] = r2, y[3] = r3;
  }
}

static void tally_sum(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype) {
  ++calls;
  if (*datatype != tally_type || *len <= 0) ++bad_calls;
  const tally* a = invec;
  tally* b = inoutvec;
  for (int i = 0; i < *len; ++i) b[i].count += a[i].count, b[i].weight += a[i].weight;
}

static void left_operand(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype) {
  ++calls;
  if (*datatype != MPI_INT || *len <= 0) ++bad_calls;
  memcpy(inoutvec, invec, sizeof(int) * (size_t)*len);
}

/* An op that frees itself at its first call: reductions already running with it are
 * not affected (MPI-3.1 §5.9.5, MPI_Op_free). */
static MPI_Op self_freeing;
static int freed_itself;
static void sum_and_free(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype) {
  if (!freed_itself) {
    MPI_Op copy = self_freeing;
    if (MPI_Op_free(&copy) != MPI_SUCCESS || copy != MPI_OP_NULL) ++bad_calls;
    freed_itself = 1;
  }
  if (*datatype != MPI_INT) ++bad_calls;
  for (int i = 0; i < *len; ++i) ((int*)inoutvec)[i] += ((const int*)invec)[i];
}

/* Rank r's matrix k: entries below 16, varied enough that products do not commute. */
static mat mat_of(int r, int k) {
  mat x = {{(r * 3 + k) % 5 + 1, (r + 2 * k) % 7, (r * 5 + k * 3) % 4, (r + k) % 3 + 1}};
  return x;
}
static tally tally_of(int r, int k) {
  tally t = {r + k % 5, r * 0.5 + k % 3};
  return t;
}
static const mat identity = {{1, 0, 0, 1}};

static mat mul(mat a, mat b) {
  int one = 1;
  MPI_Datatype t = mat_type;
  int saved_calls = calls;
  mat_product(&a, &b, &one, &t);
  calls = saved_calls;
  return b;
}
static int same_mat(const mat* a, const mat* b) { return memcmp(a->m, b->m, sizeof a->m) == 0; }

/* The product of ranks [first, last)'s matrices k, in rank order. */
static mat fold_mats(int first, int last, int k) {
  mat acc = identity;
  for (int r = first; r < last; ++r) acc = mul(acc, mat_of(r, k));
  return acc;
}
static tally fold_tallies(int first, int last, int k) {
  tally acc = {0, 0};
  for (int r = first; r < last; ++r) acc.count += tally_of(r, k).count, acc.weight += tally_of(r, k).weight;
  return acc;
}

static int rank, size;

static void check_mats(const char* what, int count, const mat* got, int first_rank, int last_rank, int k0) {
  for (int k = 0; k < count; ++k) {
    mat want = fold_mats(first_rank, last_rank, k0 + k);
    CHECK(same_mat(&got[k], &want), "%s count %d: matrix %d is [%d %d; %d %d], expected [%d %d; %d %d]", what, count,
          k, got[k].m[0], got[k].m[1], got[k].m[2], got[k].m[3], want.m[0], want.m[1], want.m[2], want.m[3]);
  }
}
static void check_tallies(const char* what, int count, const tally* got, int first_rank, int last_rank, int k0) {
  for (int k = 0; k < count; ++k) {
    tally want = fold_tallies(first_rank, last_rank, k0 + k);
    CHECK(got[k].count == want.count && got[k].weight == want.weight, "%s count %d: tally %d is (%d, %g), expected (%d, %g)",
          what, count, k, got[k].count, got[k].weight, want.count, want.weight);
  }
}

/* Every reduction with both ops at `count` elements (the inputs: element k of rank r is
 * mat_of(r, k) / tally_of(r, k)). */
static void reductions(MPI_Op product, MPI_Op sum, int count) {
  const size_t n = (size_t)(count > 0 ? count : 1);
  mat* min = malloc(sizeof(mat) * n);
  mat* mout = malloc(sizeof(mat) * n);
  tally* tin = malloc(sizeof(tally) * n);
  tally* tout = malloc(sizeof(tally) * n);
  for (int k = 0; k < count; ++k) min[k] = mat_of(rank, k), tin[k] = tally_of(rank, k);

  int roots[4] = {0, size - 1, size / 2, 1 % size};
  for (int i = 0; i < 4; ++i) {
    const int root = roots[i];
    int seen = 0;
    for (int j = 0; j < i; ++j) seen |= roots[j] == root;
    if (seen) continue;
    for (int in_place = 0; in_place < 2; ++in_place) {
      const int here = in_place && rank == root;
      for (int k = 0; k < count; ++k) mout[k] = here ? min[k] : (mat){{-1, -1, -1, -1}};
      for (int k = 0; k < count; ++k) tout[k] = here ? tin[k] : (tally){-1, -1};
      OK(MPI_Reduce(here ? MPI_IN_PLACE : min, mout, count, mat_type, product, root, MPI_COMM_WORLD));
      OK(MPI_Reduce(here ? MPI_IN_PLACE : tin, tout, count, tally_type, sum, root, MPI_COMM_WORLD));
      if (rank == root) {
        check_mats(in_place ? "reduce in place (product)" : "reduce (product)", count, mout, 0, size, 0);
        check_tallies(in_place ? "reduce in place (sum)" : "reduce (sum)", count, tout, 0, size, 0);
      }
    }
  }

  for (int in_place = 0; in_place < 2; ++in_place) {
    for (int k = 0; k < count; ++k) mout[k] = in_place ? min[k] : (mat){{-1, -1, -1, -1}};
    for (int k = 0; k < count; ++k) tout[k] = in_place ? tin[k] : (tally){-1, -1};
    OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : min, mout, count, mat_type, product, MPI_COMM_WORLD));
    OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : tin, tout, count, tally_type, sum, MPI_COMM_WORLD));
    check_mats("allreduce (product)", count, mout, 0, size, 0);
    check_tallies("allreduce (sum)", count, tout, 0, size, 0);

    for (int k = 0; k < count; ++k) mout[k] = in_place ? min[k] : (mat){{-1, -1, -1, -1}};
    for (int k = 0; k < count; ++k) tout[k] = in_place ? tin[k] : (tally){-1, -1};
    OK(MPI_Scan(in_place ? MPI_IN_PLACE : min, mout, count, mat_type, product, MPI_COMM_WORLD));
    OK(MPI_Scan(in_place ? MPI_IN_PLACE : tin, tout, count, tally_type, sum, MPI_COMM_WORLD));
    check_mats("scan (product)", count, mout, 0, rank + 1, 0);
    check_tallies("scan (sum)", count, tout, 0, rank + 1, 0);

    for (int k = 0; k < count; ++k) mout[k] = in_place ? min[k] : (mat){{-1, -1, -1, -1}};
    for (int k = 0; k < count; ++k) tout[k] = in_place ? tin[k] : (tally){-1, -1};
    OK(MPI_Exscan(in_place ? MPI_IN_PLACE : min, mout, count, mat_type, product, MPI_COMM_WORLD));
    OK(MPI_Exscan(in_place ? MPI_IN_PLACE : tin, tout, count, tally_type, sum, MPI_COMM_WORLD));
    if (rank > 0) {
      check_mats("exscan (product)", count, mout, 0, rank, 0);
      check_tallies("exscan (sum)", count, tout, 0, rank, 0);
    }
  }

  /* MPI_Reduce_local: inout = in op inout, `in` on the left. */
  if (count > 0) {
    for (int k = 0; k < count; ++k) mout[k] = mat_of(rank + 1, k), tout[k] = tally_of(rank + 1, k);
    OK(MPI_Reduce_local(min, mout, count, mat_type, product));
    OK(MPI_Reduce_local(tin, tout, count, tally_type, sum));
    check_mats("reduce_local (product)", count, mout, rank, rank + 2, 0);
    check_tallies("reduce_local (sum)", count, tout, rank, rank + 2, 0);
  }
  free(min), free(mout), free(tin), free(tout);
}

/* MPI_Reduce_scatter with recvcounts[i] elements for rank i, and the _block variant
 * when every count is the same. */
static void reduce_scatters(MPI_Op product, MPI_Op sum, const int* counts, int block) {
  int total = 0, first = 0;
  for (int i = 0; i < size; ++i) total += counts[i];
  for (int i = 0; i < rank; ++i) first += counts[i];
  const int mine = counts[rank];
  mat* min = malloc(sizeof(mat) * (size_t)(total + 1));
  mat* mout = malloc(sizeof(mat) * (size_t)(total + 1));
  tally* tin = malloc(sizeof(tally) * (size_t)(total + 1));
  tally* tout = malloc(sizeof(tally) * (size_t)(total + 1));
  for (int in_place = 0; in_place < 2; ++in_place) {
    for (int k = 0; k < total; ++k) min[k] = mat_of(rank, k), tin[k] = tally_of(rank, k);
    for (int k = 0; k < mine; ++k) mout[k] = (mat){{-1, -1, -1, -1}}, tout[k] = (tally){-1, -1};
    mat* mresult = in_place ? min : mout;
    tally* tresult = in_place ? tin : tout;
    if (block) {
      OK(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : min, mresult, mine, mat_type, product, MPI_COMM_WORLD));
      OK(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : tin, tresult, mine, tally_type, sum, MPI_COMM_WORLD));
    } else {
      OK(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : min, mresult, counts, mat_type, product, MPI_COMM_WORLD));
      OK(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : tin, tresult, counts, tally_type, sum, MPI_COMM_WORLD));
    }
    check_mats(block ? "reduce_scatter_block (product)" : "reduce_scatter (product)", mine, mresult, 0, size, first);
    check_tallies(block ? "reduce_scatter_block (sum)" : "reduce_scatter (sum)", mine, tresult, 0, size, first);
  }
  free(min), free(mout), free(tin), free(tout);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  OK(MPI_Type_contiguous(4, MPI_INT, &mat_type));
  OK(MPI_Type_commit(&mat_type));
  int lengths[2] = {1, 1};
  MPI_Aint displs[2] = {offsetof(tally, count), offsetof(tally, weight)};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  OK(MPI_Type_create_struct(2, lengths, displs, types, &tally_type));
  OK(MPI_Type_commit(&tally_type));
  MPI_Aint lb, extent;
  OK(MPI_Type_get_extent(tally_type, &lb, &extent));
  CHECK(lb == 0 && extent == (MPI_Aint)sizeof(tally), "tally type: lb %ld extent %ld", (long)lb, (long)extent);

  MPI_Op product, sum, left;
  OK(MPI_Op_create(mat_product, 0, &product));
  OK(MPI_Op_create(tally_sum, 1, &sum));
  OK(MPI_Op_create(left_operand, 0, &left));
  int commute = -1;
  OK(MPI_Op_commutative(product, &commute));
  CHECK(commute == 0, "MPI_Op_commutative(product) = %d", commute);
  OK(MPI_Op_commutative(sum, &commute));
  CHECK(commute == 1, "MPI_Op_commutative(sum) = %d", commute);
  OK(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1, "MPI_Op_commutative(MPI_SUM) = %d", commute);

  /* The test's own power: the product of the ranks' matrices in reverse order differs. */
  if (size > 1) {
    int differs = 0;
    for (int k = 0; k < 8; ++k) {
      mat forward = fold_mats(0, size, k), backward = identity;
      for (int r = size - 1; r >= 0; --r) backward = mul(backward, mat_of(r, k));
      differs |= !same_mat(&forward, &backward);
    }
    CHECK(differs, "the matrices commute: the test could not see a reordering");
  }

  /* 3000 matrices or tallies are 48000 bytes: past the 32 KiB eager threshold. */
  const int counts[] = {0, 1, 7, 3000};
  for (int c = 0; c < 4; ++c) reductions(product, sum, counts[c]);

  /* Reduce-scatter: uneven blocks, some empty, one past the eager threshold at 8 ranks
   * or fewer (the reduce moves the whole vector, so the 64-rank run keeps it small). */
  const int big = size <= 8 ? 2500 : 40;
  int* rcounts = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) rcounts[i] = i % 4 == 1 ? big : i % 3;
  rcounts[size - 1] = 3;
  reduce_scatters(product, sum, rcounts, 0);
  for (int i = 0; i < size; ++i) rcounts[i] = 0;
  reduce_scatters(product, sum, rcounts, 0);
  reduce_scatters(product, sum, rcounts, 1);
  for (int i = 0; i < size; ++i) rcounts[i] = 2;
  reduce_scatters(product, sum, rcounts, 1);
  for (int i = 0; i < size; ++i) rcounts[i] = big;
  reduce_scatters(product, sum, rcounts, 1);
  free(rcounts);

  /* A user op on a predefined type: "the left operand" reduces to rank 0's value. */
  int v[3] = {100 + rank, 200 + rank, 300 + rank}, w[3] = {-1, -1, -1};
  for (int root = 0; root < size; root += size > 4 ? size / 4 : 1) {
    OK(MPI_Reduce(v, w, 3, MPI_INT, left, root, MPI_COMM_WORLD));
    if (rank == root) CHECK(w[0] == 100 && w[1] == 200 && w[2] == 300, "reduce left root %d: %d %d %d", root, w[0], w[1], w[2]);
  }
  OK(MPI_Allreduce(v, w, 3, MPI_INT, left, MPI_COMM_WORLD));
  CHECK(w[0] == 100 && w[2] == 300, "allreduce left: %d %d", w[0], w[2]);
  OK(MPI_Scan(v, w, 3, MPI_INT, left, MPI_COMM_WORLD));
  CHECK(w[0] == 100 && w[2] == 300, "scan left: %d %d", w[0], w[2]);

  CHECK(calls > 0, "no user function was called");
  CHECK(bad_calls == 0, "%d user function calls got a wrong datatype handle or count", bad_calls);

  /* Freeing: the handle becomes MPI_OP_NULL; a copy of it is no longer valid. */
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Op stale = left;
  OK(MPI_Op_free(&left));
  CHECK(left == MPI_OP_NULL, "MPI_Op_free left the handle at 0x%x", (unsigned)left);
  EXPECT_CLASS(MPI_ERR_OP, MPI_Allreduce(v, w, 3, MPI_INT, stale, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Reduce(v, w, 3, MPI_INT, stale, 0, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Scan(v, w, 3, MPI_INT, stale, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Reduce_local(v, w, 3, MPI_INT, stale));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Op_commutative(stale, &commute));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Op_free(&stale));

  /* An op freed by its own function while a reduction runs: the reduction completes. */
  OK(MPI_Op_create(sum_and_free, 1, &self_freeing));
  int x[2] = {rank, 1}, y[2] = {-1, -1};
  OK(MPI_Reduce_local(x, y, 2, MPI_INT, self_freeing));
  CHECK(freed_itself && y[0] == rank - 1 && y[1] == 0, "reduce_local with a self-freeing op: %d %d", y[0], y[1]);
  EXPECT_CLASS(MPI_ERR_OP, MPI_Reduce_local(x, y, 2, MPI_INT, self_freeing));
  OK(MPI_Op_create(sum_and_free, 1, &self_freeing));
  freed_itself = 0;
  OK(MPI_Allreduce(x, y, 2, MPI_INT, self_freeing, MPI_COMM_WORLD));
  CHECK(y[0] == size * (size - 1) / 2 && y[1] == size, "allreduce with a self-freeing op: %d %d", y[0], y[1]);
  /* Ranks whose function was never called (one rank; the ranks that sit out of
   * recursive doubling) free it here. */
  if (!freed_itself) OK(MPI_Op_free(&self_freeing));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Op_commutative(self_freeing, &commute));

  /* Error classes. */
  MPI_Op op;
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Op_create(NULL, 1, &op));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Op_create(tally_sum, 1, NULL));
  MPI_Op predefined = MPI_MAX;
  EXPECT_CLASS(MPI_ERR_OP, MPI_Op_free(&predefined));
  CHECK(predefined == MPI_MAX, "a refused MPI_Op_free changed the handle");
  MPI_Op null_op = MPI_OP_NULL;
  EXPECT_CLASS(MPI_ERR_OP, MPI_Op_free(&null_op));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Op_free(NULL));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Op_commutative(MPI_OP_NULL, &commute));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Op_commutative((MPI_Op)12345, &commute));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Op_commutative(sum, NULL));
  int a[4] = {1, 2, 3, 4};
  EXPECT_CLASS(MPI_ERR_OP, MPI_Reduce_local(a, a + 2, 2, MPI_INT, MPI_OP_NULL));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Reduce_local(a, a + 2, 2, MPI_INT, (MPI_Op)0x98abcdef));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Reduce_local(a, a + 2, 1, MPI_FLOAT, MPI_BAND));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Reduce_local(MPI_IN_PLACE, a, 2, MPI_INT, MPI_SUM));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Reduce_local(a, MPI_IN_PLACE, 2, MPI_INT, sum));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Reduce_local(a, a + 1, 2, MPI_INT, MPI_SUM));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Reduce_local(NULL, a, 2, MPI_INT, MPI_SUM));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Reduce_local(a, a + 2, -1, MPI_INT, MPI_SUM));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Reduce_local(a, a + 2, 1, MPI_DATATYPE_NULL, sum));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Allreduce(a, a + 2, 1, MPI_INT, (MPI_Op)0x98000fff, MPI_COMM_WORLD));
  /* A predefined op is still checked against the type; a user op takes any type. */
  OK(MPI_Reduce_local(a, a + 2, 2, MPI_INT, MPI_SUM));
  CHECK(a[2] == 4 && a[3] == 6, "reduce_local MPI_SUM: %d %d", a[2], a[3]);

  OK(MPI_Op_free(&product));
  OK(MPI_Op_free(&sum));
  CHECK(product == MPI_OP_NULL && sum == MPI_OP_NULL, "freed handles are not MPI_OP_NULL");
  OK(MPI_Type_free(&mat_type));
  OK(MPI_Type_free(&tally_type));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("user_ops: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
