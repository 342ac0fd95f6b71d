/* Cartesian topologies.
 *  - MPI_Dims_create: the MPI standard's examples (6 -> 3x2, 7 -> 7x1, (0,3,0) of 6 ->
 *    2x3x1, (0,3,0) of 7 refused), balanced and non-increasing factors, kept entries.
 *  - 2-D grids, periodic in one dimension: MPI_Cart_get / MPI_Cartdim_get /
 *    MPI_Cart_coords / MPI_Cart_rank agree with row-major order; MPI_Cart_shift wraps
 *    in the periodic dimension and gives MPI_PROC_NULL at the non-periodic borders; a
 *    halo exchange with MPI_Sendrecv on those neighbours delivers the right values.
 *  - a 3-D fully periodic grid and a 3-D non-periodic one: shifts by 1 and by more
 *    than the extent; MPI_Cart_rank wraps periodic coordinates.
 *  - a grid smaller than the world: the ranks outside get MPI_COMM_NULL.
 *  - MPI_Cart_sub: rows and columns (sizes, ranks, 1-D topology, reductions inside),
 *    and no dimension kept (one rank each).
 *  - MPI_Topo_test (MPI_CART, MPI_UNDEFINED), MPI_Comm_dup keeps the grid.
 *  - MPI_Cart_map: the rank inside the grid, MPI_UNDEFINED outside; its errors.
 *  - errors under MPI_ERRORS_RETURN: not Cartesian (MPI_ERR_TOPOLOGY), bad dims and
 *    grids too large (MPI_ERR_DIMS), coordinates off a non-periodic border
 *    (MPI_ERR_ARG), ranks outside (MPI_ERR_RANK), bad direction (MPI_ERR_DIMS). */
#include "mpitest.h"

static void check_dims(int nnodes, int ndims, const int* in, const int* want) {
  int dims[8];
  for (int i = 0; i < ndims; ++i) dims[i] = in[i];
  OK(MPI_Dims_create(nnodes, ndims, dims));
  for (int i = 0; i < ndims; ++i)
    CHECK(dims[i] == want[i], "MPI_Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes, ndims, i, dims[i], want[i]);
}

/* Checks the grid `cart` (made from the world with these dims/periods) and returns my
 * coordinates in `coords`. */
static void check_grid(MPI_Comm cart, int ndims, const int* dims, const int* periods, int* coords) {
  int status, n, rank, size, d[3], p[3], c[3];
  OK(MPI_Topo_test(cart, &status));
  CHECK(status == MPI_CART, "Topo_test gave %d", status);
  OK(MPI_Cartdim_get(cart, &n));
  CHECK(n == ndims, "Cartdim_get gave %d", n);
  OK(MPI_Comm_rank(cart, &rank));
  OK(MPI_Comm_size(cart, &size));
  OK(MPI_Cart_get(cart, ndims, d, p, c));
  int expect = rank;
  for (int i = ndims - 1; i >= 0; --i) {
    CHECK(d[i] == dims[i] && p[i] == (periods[i] != 0), "Cart_get dim %d: %d/%d", i, d[i], p[i]);
    CHECK(c[i] == expect % dims[i], "rank %d: coords[%d] = %d, expected %d (row-major)", rank, i, c[i], expect % dims[i]);
    expect /= dims[i];
  }
  for (int r = 0; r < size; ++r) {
    int rc[3], back;
    OK(MPI_Cart_coords(cart, r, ndims, rc));
    OK(MPI_Cart_rank(cart, rc, &back));
    CHECK(back == r, "Cart_rank(Cart_coords(%d)) = %d", r, back);
  }
  for (int i = 0; i < ndims; ++i) coords[i] = c[i];
}

/* The rank at `coords` moved by `delta` along `dim`, or MPI_PROC_NULL. */
static int neighbour(MPI_Comm cart, int ndims, const int* dims, const int* periods, const int* coords, int dim,
                     int delta) {
  int moved[3];
  for (int i = 0; i < ndims; ++i) moved[i] = coords[i];
  long long c = (long long)coords[dim] + delta;
  if (periods[dim]) {
    c %= dims[dim];
    if (c < 0) c += dims[dim];
  } else if (c < 0 || c >= dims[dim]) {
    return MPI_PROC_NULL;
  }
  moved[dim] = (int)c;
  int r;
  OK(MPI_Cart_rank(cart, moved, &r));
  return r;
}

static void check_shifts(MPI_Comm cart, int ndims, const int* dims, const int* periods, const int* coords) {
  const int disps[] = {1, -1, 2, 0, 7};
  for (int dim = 0; dim < ndims; ++dim)
    for (size_t k = 0; k < sizeof disps / sizeof disps[0]; ++k) {
      int source, dest;
      OK(MPI_Cart_shift(cart, dim, disps[k], &source, &dest));
      const int want_source = neighbour(cart, ndims, dims, periods, coords, dim, -disps[k]);
      const int want_dest = neighbour(cart, ndims, dims, periods, coords, dim, disps[k]);
      CHECK(source == want_source && dest == want_dest, "Cart_shift(dim %d, disp %d) = (%d, %d), expected (%d, %d)",
            dim, disps[k], source, dest, want_source, want_dest);
    }
}

/* Each rank sends its rank to both neighbours along every dimension and checks what
 * arrives: MPI_PROC_NULL neighbours leave the value untouched. */
static void halo_exchange(MPI_Comm cart, int ndims) {
  int rank;
  OK(MPI_Comm_rank(cart, &rank));
  for (int dim = 0; dim < ndims; ++dim) {
    int source, dest, from_source = -5, from_dest = -5;
    OK(MPI_Cart_shift(cart, dim, 1, &source, &dest));
    OK(MPI_Sendrecv(&rank, 1, MPI_INT, dest, dim, &from_source, 1, MPI_INT, source, dim, cart, MPI_STATUS_IGNORE));
    OK(MPI_Sendrecv(&rank, 1, MPI_INT, source, 100 + dim, &from_dest, 1, MPI_INT, dest, 100 + dim, cart,
                    MPI_STATUS_IGNORE));
    CHECK(from_source == (source == MPI_PROC_NULL ? -5 : source), "dim %d: got %d from source %d", dim, from_source,
          source);
    CHECK(from_dest == (dest == MPI_PROC_NULL ? -5 : dest), "dim %d: got %d from dest %d", dim, from_dest, dest);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  /* MPI_Dims_create, MPI-3.1 Example 7.1 and more. */
  check_dims(6, 2, (const int[]){0, 0}, (const int[]){3, 2});
  check_dims(7, 2, (const int[]){0, 0}, (const int[]){7, 1});
  check_dims(6, 3, (const int[]){0, 3, 0}, (const int[]){2, 3, 1});
  {
    int dims[3] = {0, 3, 0};
    EXPECT_CLASS(MPI_ERR_DIMS, MPI_Dims_create(7, 3, dims));
    CHECK(dims[0] == 0 && dims[2] == 0, "a refused MPI_Dims_create changed dims");
  }
  check_dims(64, 3, (const int[]){0, 0, 0}, (const int[]){4, 4, 4});
  check_dims(72, 2, (const int[]){0, 0}, (const int[]){9, 8});
  check_dims(24, 3, (const int[]){0, 2, 0}, (const int[]){4, 2, 3});
  check_dims(1, 2, (const int[]){0, 0}, (const int[]){1, 1});
  check_dims(12, 2, (const int[]){3, 4}, (const int[]){3, 4});
  EXPECT_CLASS(MPI_ERR_DIMS, MPI_Dims_create(12, 2, (int[]){0, -1}));
  EXPECT_CLASS(MPI_ERR_DIMS, MPI_Dims_create(12, -1, (int[]){0}));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dims_create(0, 1, (int[]){0}));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Dims_create(4, 2, NULL));

  int status;
  OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK(status == MPI_UNDEFINED, "the world has topology %d", status);

  /* 2-D, periodic in the second dimension only, over the whole world. */
  int dims2[2] = {0, 0}, periods2[2] = {0, 1}, coords[3];
  OK(MPI_Dims_create(size, 2, dims2));
  MPI_Comm grid2;
  OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, periods2, 1, &grid2));
  CHECK(grid2 != MPI_COMM_NULL, "no 2-D grid");
  check_grid(grid2, 2, dims2, periods2, coords);
  check_shifts(grid2, 2, dims2, periods2, coords);
  halo_exchange(grid2, 2);
  /* At the top border of the non-periodic dimension there is nobody. */
  if (coords[0] == 0) {
    int source, dest;
    OK(MPI_Cart_shift(grid2, 0, 1, &source, &dest));
    CHECK(source == MPI_PROC_NULL, "top border: source %d", source);
  }
  if (coords[0] == dims2[0] - 1) {
    int source, dest;
    OK(MPI_Cart_shift(grid2, 0, 1, &source, &dest));
    CHECK(dest == MPI_PROC_NULL, "bottom border: dest %d", dest);
  }
  /* Periodic coordinates wrap in MPI_Cart_rank; non-periodic ones are refused. */
  {
    int r, c[2] = {coords[0], coords[1] - dims2[1]};
    OK(MPI_Cart_rank(grid2, c, &r));
    CHECK(r == rank, "wrapped coordinates gave %d", r);
    c[0] = dims2[0];
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Cart_rank(grid2, c, &r));
    c[0] = -1;
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Cart_rank(grid2, c, &r));
  }

  /* Rows (keep dimension 1) and columns (keep dimension 0). */
  MPI_Comm row, column, point;
  OK(MPI_Cart_sub(grid2, (const int[]){0, 1}, &row));
  OK(MPI_Cart_sub(grid2, (const int[]){1, 0}, &column));
  int n, r, s, ndims, d1[1], p1[1], c1[1];
  OK(MPI_Comm_size(row, &s));
  OK(MPI_Comm_rank(row, &r));
  CHECK(s == dims2[1] && r == coords[1], "row: rank %d of %d", r, s);
  OK(MPI_Cartdim_get(row, &ndims));
  OK(MPI_Cart_get(row, 1, d1, p1, c1));
  CHECK(ndims == 1 && d1[0] == dims2[1] && p1[0] == 1 && c1[0] == coords[1], "row grid %d: %d/%d/%d", ndims, d1[0],
        p1[0], c1[0]);
  OK(MPI_Comm_size(column, &s));
  OK(MPI_Comm_rank(column, &r));
  CHECK(s == dims2[0] && r == coords[0], "column: rank %d of %d", r, s);
  OK(MPI_Cart_get(column, 1, d1, p1, c1));
  CHECK(p1[0] == 0, "column is periodic");
  int sum = 0, want = 0;
  OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row));
  for (int j = 0; j < dims2[1]; ++j) want += coords[0] * dims2[1] + j;
  CHECK(sum == want, "sum over my row %d, expected %d", sum, want);
  OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, column));
  want = 0;
  for (int i = 0; i < dims2[0]; ++i) want += i * dims2[1] + coords[1];
  CHECK(sum == want, "sum over my column %d, expected %d", sum, want);
  OK(MPI_Cart_sub(grid2, (const int[]){0, 0}, &point));
  OK(MPI_Comm_size(point, &s));
  OK(MPI_Cartdim_get(point, &ndims));
  CHECK(s == 1 && ndims == 0, "no dimension kept: %d ranks, %d dimensions", s, ndims);

  /* A dup keeps the grid; a split does not. */
  MPI_Comm dup, split;
  OK(MPI_Comm_dup(grid2, &dup));
  OK(MPI_Topo_test(dup, &status));
  CHECK(status == MPI_CART, "dup of a grid: %d", status);
  check_grid(dup, 2, dims2, periods2, coords);
  OK(MPI_Comm_split(grid2, 0, 0, &split));
  OK(MPI_Topo_test(split, &status));
  CHECK(status == MPI_UNDEFINED, "split of a grid: %d", status);

  /* 3-D, all periodic, then none periodic. */
  for (int periodic = 1; periodic >= 0; --periodic) {
    int dims3[3] = {0, 0, 0}, periods3[3] = {periodic, periodic, periodic};
    OK(MPI_Dims_create(size, 3, dims3));
    MPI_Comm grid3;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 3, dims3, periods3, 0, &grid3));
    check_grid(grid3, 3, dims3, periods3, coords);
    check_shifts(grid3, 3, dims3, periods3, coords);
    halo_exchange(grid3, 3);
    OK(MPI_Comm_free(&grid3));
  }

  /* A grid of size - 1 ranks: the last rank is outside. */
  if (size >= 2) {
    int dims_small[2] = {0, 0}, periods_small[2] = {1, 1};
    OK(MPI_Dims_create(size - 1, 2, dims_small));
    MPI_Comm small;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims_small, periods_small, 0, &small));
    if (rank == size - 1) {
      CHECK(small == MPI_COMM_NULL, "the rank outside the grid got 0x%x", small);
    } else {
      CHECK(small != MPI_COMM_NULL, "rank %d inside the grid got MPI_COMM_NULL", rank);
      check_grid(small, 2, dims_small, periods_small, coords);
      halo_exchange(small, 2);
      OK(MPI_Comm_free(&small));
    }
  }

  /* MPI_Cart_map: the trivial mapping MPI_Cart_create uses, the rank inside the grid
   * and MPI_UNDEFINED outside, whatever the periods. */
  {
    int mapped = -2;
    OK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims2, periods2, &mapped));
    CHECK(mapped == rank, "MPI_Cart_map over the whole world gave %d to rank %d", mapped, rank);
    const int half[1] = {(size + 1) / 2};
    OK(MPI_Cart_map(MPI_COMM_WORLD, 1, half, (const int[]){1}, &mapped));
    CHECK(mapped == (rank < half[0] ? rank : MPI_UNDEFINED), "MPI_Cart_map onto %d of %d ranks gave %d to rank %d",
          half[0], size, mapped, rank);
    OK(MPI_Cart_map(MPI_COMM_WORLD, 0, NULL, NULL, &mapped)); /* zero dimensions: one process */
    CHECK(mapped == (rank == 0 ? 0 : MPI_UNDEFINED), "MPI_Cart_map with no dimension gave %d to rank %d", mapped,
          rank);
    mapped = -2;
    EXPECT_CLASS(MPI_ERR_DIMS, MPI_Cart_map(MPI_COMM_WORLD, 1, (const int[]){size + 1}, (const int[]){0}, &mapped));
    EXPECT_CLASS(MPI_ERR_DIMS, MPI_Cart_map(MPI_COMM_WORLD, 2, (const int[]){1, 0}, periods2, &mapped));
    EXPECT_CLASS(MPI_ERR_DIMS, MPI_Cart_map(MPI_COMM_WORLD, -1, dims2, periods2, &mapped));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Cart_map(MPI_COMM_WORLD, 2, dims2, periods2, NULL));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Cart_map(MPI_COMM_WORLD, 2, NULL, periods2, &mapped));
    EXPECT_CLASS(MPI_ERR_COMM, MPI_Cart_map(MPI_COMM_NULL, 2, dims2, periods2, &mapped));
    CHECK(mapped == -2, "a refused MPI_Cart_map wrote %d", mapped);
  }

  /* Errors. */
  MPI_Comm untouched = MPI_COMM_WORLD;
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &r, &s));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Cart_sub(MPI_COMM_WORLD, (const int[]){1}, &untouched));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Cartdim_get(split, &n));
  EXPECT_CLASS(MPI_ERR_TOPOLOGY, MPI_Cart_coords(split, 0, 1, c1));
  EXPECT_CLASS(MPI_ERR_DIMS, MPI_Cart_create(MPI_COMM_WORLD, 2, (const int[]){size + 1, 1}, periods2, 0, &untouched));
  EXPECT_CLASS(MPI_ERR_DIMS, MPI_Cart_create(MPI_COMM_WORLD, 2, (const int[]){1, 0}, periods2, 0, &untouched));
  EXPECT_CLASS(MPI_ERR_DIMS, MPI_Cart_create(MPI_COMM_WORLD, -1, dims2, periods2, 0, &untouched));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, NULL, 0, &untouched));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Cart_create(MPI_COMM_NULL, 2, dims2, periods2, 0, &untouched));
  CHECK(untouched == MPI_COMM_WORLD, "a refused call wrote 0x%x", untouched);
  EXPECT_CLASS(MPI_ERR_DIMS, MPI_Cart_shift(grid2, 2, 1, &r, &s));
  EXPECT_CLASS(MPI_ERR_DIMS, MPI_Cart_shift(grid2, -1, 1, &r, &s));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Cart_coords(grid2, size, 2, coords));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Cart_coords(grid2, -1, 2, coords));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Cart_coords(grid2, 0, 1, coords)); /* maxdims below ndims */
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Cart_get(grid2, 1, d1, p1, c1));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Cart_shift(grid2, 0, 1, NULL, &s));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Topo_test(grid2, NULL));

  OK(MPI_Comm_free(&split));
  OK(MPI_Comm_free(&dup));
  OK(MPI_Comm_free(&point));
  OK(MPI_Comm_free(&column));
  OK(MPI_Comm_free(&row));
  OK(MPI_Comm_free(&grid2));
  MPI_Finalize();
  if (rank == 0) printf("cart: %d ranks (%d x %d) ok\n", size, dims2[0], dims2[1]);
  return 0;
}
