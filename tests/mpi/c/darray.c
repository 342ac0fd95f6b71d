/* MPI_Type_create_darray (MPI-3.1 §4.1.4): for every pair of distributions among
 * BLOCK (default and explicit block size), CYCLIC (default, 2 and 3) and NONE, in both
 * storage orders, on a process grid of MPI_Dims_create's shape, each rank packs a
 * global array whose elements hold their own index and checks that it gets exactly
 * the elements the standard's definition gives it, in local storage order; also the
 * type's size, bounds (0 and the global array's extent), envelope and contents, and
 * the argument errors (MPI_ERR_ARG naming the argument, MPI_ERR_RANK, MPI_ERR_DIMS,
 * MPI_ERR_TYPE) under MPI_ERRORS_RETURN. */
#include <string.h>

#include "mpitest.h"

#define MAXG 512

/* Whether index i of a dimension of g elements belongs to coordinate c of p. */
static int owns(int distrib, int darg, int g, int p, int c, int i) {
  if (distrib == MPI_DISTRIBUTE_NONE) return 1;
  if (distrib == MPI_DISTRIBUTE_BLOCK) {
    int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
    return i / b == c;
  }
  int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
  return (i / b) % p == c;
}

/* The global indices rank holds, in local storage order (2 or 3 dimensions). */
static int expected(int ndims, const int* g, const int* d, const int* a, const int* p, int order, int rank,
                    int* out) {
  int coords[3], procs = 1, n = 0;
  for (int i = 0; i < ndims; ++i) procs *= p[i];
  for (int i = 0, r = rank; i < ndims; ++i) {
    procs /= p[i];
    coords[i] = r / procs;
    r %= procs;
  }
  /* iterate slowest dimension outermost: C: 0 slowest; Fortran: ndims-1 slowest */
  int idx[3] = {0, 0, 0}, dims[3];
  for (int k = 0; k < ndims; ++k) dims[k] = order == MPI_ORDER_C ? k : ndims - 1 - k;
  int total = 1;
  for (int i = 0; i < ndims; ++i) total *= g[i];
  for (int t = 0; t < total; ++t) {
    /* t enumerates the global array with dims[0] slowest */
    int rest = t;
    for (int k = ndims - 1; k >= 0; --k) {
      idx[dims[k]] = rest % g[dims[k]];
      rest /= g[dims[k]];
    }
    int mine = 1;
    for (int i = 0; i < ndims; ++i) mine = mine && owns(d[i], a[i], g[i], p[i], coords[i], idx[i]);
    if (!mine) continue;
    /* linear index in the global array's storage order */
    int lin = 0;
    for (int k = 0; k < ndims; ++k) lin = lin * g[dims[k]] + idx[dims[k]];
    out[n++] = lin;
  }
  return n;
}

static int global[MAXG];

static void check(int ndims, const int* g, const int* d, const int* a, const int* p, int order, int size,
                  int rank) {
  MPI_Datatype t;
  OK(MPI_Type_create_darray(size, rank, ndims, g, d, a, p, order, MPI_INT, &t));
  OK(MPI_Type_commit(&t));
  int want[MAXG], got[MAXG];
  int n = expected(ndims, g, d, a, p, order, rank, want);
  int total = 1;
  for (int i = 0; i < ndims; ++i) total *= g[i];
  int tsize;
  MPI_Aint lb, extent;
  OK(MPI_Type_size(t, &tsize));
  OK(MPI_Type_get_extent(t, &lb, &extent));
  CHECK(tsize == n * (int)sizeof(int), "order %d dists %d/%d dargs %d/%d: size %d, expected %d elements", order,
        d[0], d[1], a[0], a[1], tsize, n);
  CHECK(lb == 0 && extent == (MPI_Aint)(total * sizeof(int)), "bounds %ld %ld", (long)lb, (long)extent);
  int position = 0;
  OK(MPI_Pack(global, 1, t, got, sizeof got, &position, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i)
    CHECK(got[i] == want[i], "order %d dists %d/%d dargs %d/%d psizes %d/%d: local element %d is %d, expected %d",
          order, d[0], d[1], a[0], a[1], p[0], p[1], i, got[i], want[i]);

  int ni, na, nd, combiner;
  OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_DARRAY && ni == 4 * ndims + 4 && na == 0 && nd == 1, "envelope %d %d %d %d",
        combiner, ni, na, nd);
  int ints[16];
  MPI_Datatype old;
  OK(MPI_Type_get_contents(t, 16, 0, 1, ints, NULL, &old));
  CHECK(ints[0] == size && ints[1] == rank && ints[2] == ndims && old == MPI_INT, "contents head");
  for (int i = 0; i < ndims; ++i)
    CHECK(ints[3 + i] == g[i] && ints[3 + ndims + i] == d[i] && ints[3 + 2 * ndims + i] == a[i] &&
              ints[3 + 3 * ndims + i] == p[i],
          "contents of dimension %d", i);
  CHECK(ints[3 + 4 * ndims] == order, "contents order %d", ints[3 + 4 * ndims]);
  OK(MPI_Type_free(&t));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < MAXG; ++i) global[i] = i;

  /* ---- 2-D, every pair of distributions, both orders */
  int p[3] = {0, 0, 0};
  OK(MPI_Dims_create(size, 2, p));
  const int g[2] = {7, 10};
  const int dist[5] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC,
                       MPI_DISTRIBUTE_CYCLIC};
  const int orders[2] = {MPI_ORDER_C, MPI_ORDER_FORTRAN};
  for (int o = 0; o < 2; ++o)
    for (int x = 0; x < 5; ++x)
      for (int y = 0; y < 5; ++y) {
        int d[2] = {dist[x], dist[y]}, a[2];
        const int which[2] = {x, y};
        for (int k = 0; k < 2; ++k) {
          switch (which[k]) {
            case 0: a[k] = MPI_DISTRIBUTE_DFLT_DARG; break;
            case 1: a[k] = (g[k] + p[k] - 1) / p[k] + 1; break;
            case 2: a[k] = MPI_DISTRIBUTE_DFLT_DARG; break;
            default: a[k] = which[k] - 1; break; /* cyclic(2), cyclic(3) */
          }
        }
        check(2, g, d, a, p, orders[o], size, rank);
      }

  /* ---- 3-D with an undistributed middle dimension */
  {
    int p3[3] = {p[0], 1, p[1]};
    const int g3[3] = {5, 3, 6};
    const int d3[3] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
    const int a3[3] = {2, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    check(3, g3, d3, a3, p3, MPI_ORDER_C, size, rank);
    check(3, g3, d3, a3, p3, MPI_ORDER_FORTRAN, size, rank);
  }

  /* ---- bad arguments (size and rank need not be the communicator's) */
  {
    MPI_Datatype t;
    int g1[1] = {8}, block[1] = {MPI_DISTRIBUTE_BLOCK}, none[1] = {MPI_DISTRIBUTE_NONE};
    int dflt[1] = {MPI_DISTRIBUTE_DFLT_DARG}, four[1] = {4}, p2[1] = {2}, p4[1] = {4};
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(2, 0, 1, g1, block, dflt, p4, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(4, 0, 1, g1, block, (int[]){1}, p4, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(2, 0, 1, g1, none, dflt, p2, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(2, 0, 1, g1, (int[]){99}, dflt, p2, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(2, 0, 1, g1, block, (int[]){0}, p2, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_ARG,
                 MPI_Type_create_darray(2, 0, 1, g1, (int[]){MPI_DISTRIBUTE_CYCLIC}, (int[]){-3}, p2, MPI_ORDER_C,
                                        MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(2, 0, 1, (int[]){0}, block, dflt, p2, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(2, 0, 1, g1, block, dflt, (int[]){0}, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(2, 0, 1, g1, block, dflt, p2, 3, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(0, 0, 1, g1, block, dflt, p2, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(2, 0, 1, NULL, block, dflt, p2, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_darray(2, 0, 1, g1, block, dflt, p2, MPI_ORDER_C, MPI_INT, NULL));
    EXPECT_CLASS(MPI_ERR_RANK, MPI_Type_create_darray(2, 2, 1, g1, block, dflt, p2, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_RANK, MPI_Type_create_darray(2, -1, 1, g1, block, dflt, p2, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_DIMS, MPI_Type_create_darray(2, 0, 0, g1, block, dflt, p2, MPI_ORDER_C, MPI_INT, &t));
    EXPECT_CLASS(MPI_ERR_TYPE,
                 MPI_Type_create_darray(2, 0, 1, g1, block, dflt, p2, MPI_ORDER_C, MPI_DATATYPE_NULL, &t));
    /* a good one with the same arrays */
    OK(MPI_Type_create_darray(2, 1, 1, g1, block, four, p2, MPI_ORDER_C, MPI_INT, &t));
    OK(MPI_Type_free(&t));
  }

  if (rank == 0) printf("darray: ok\n");
  MPI_Finalize();
  return 0;
}
