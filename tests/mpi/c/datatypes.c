/* Derived datatypes: contiguous, vector and indexed types sent and received (also a
 * vector received as contiguous doubles), pack/unpack, size, extent and name, and
 * freeing a type that a derived type still uses. */
#include <string.h>

#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  MPI_Datatype vec, col3, idx, cont;
  OK(MPI_Type_vector(5, 2, 4, MPI_DOUBLE, &vec)); /* 5 blocks of 2 doubles, stride 4 */
  OK(MPI_Type_commit(&vec));
  int size;
  MPI_Aint lb, extent;
  OK(MPI_Type_size(vec, &size));
  OK(MPI_Type_get_extent(vec, &lb, &extent));
  CHECK(size == 80 && lb == 0 && extent == (4 * 4 + 2) * 8, "vector size %d lb %ld extent %ld", size, (long)lb,
        (long)extent);
  OK(MPI_Type_contiguous(3, vec, &col3));
  OK(MPI_Type_commit(&col3));
  OK(MPI_Type_free(&vec)); /* col3 still uses it */
  CHECK(vec == MPI_DATATYPE_NULL, "freed handle not nulled");
  int lens[3] = {1, 3, 2}, disps[3] = {0, 5, 10};
  OK(MPI_Type_indexed(3, lens, disps, MPI_INT, &idx));
  OK(MPI_Type_commit(&idx));
  OK(MPI_Type_size(idx, &size));
  CHECK(size == 24, "indexed size %d", size);
  OK(MPI_Type_contiguous(4, MPI_INT, &cont));
  OK(MPI_Type_commit(&cont));

  char name[MPI_MAX_OBJECT_NAME];
  int len;
  OK(MPI_Type_get_name(MPI_DOUBLE_INT, name, &len));
  CHECK(strcmp(name, "MPI_DOUBLE_INT") == 0 && len == 14, "name '%s'", name);
  OK(MPI_Type_set_name(idx, "my_indexed"));
  OK(MPI_Type_get_name(idx, name, &len));
  CHECK(strcmp(name, "my_indexed") == 0, "name '%s'", name);

  /* col3 = 3 vectors back to back: elements of the vectors at extent 18 doubles. */
  double a[3 * 18 + 8];
  int ia[12 * 2];
  if (rank == 0) {
    for (int k = 0; k < 3 * 18 + 8; ++k) a[k] = k + 0.5;
    OK(MPI_Send(a, 1, col3, 1, 1, MPI_COMM_WORLD));
    OK(MPI_Send(a, 1, col3, 1, 2, MPI_COMM_WORLD));
    for (int k = 0; k < 24; ++k) ia[k] = 100 + k;
    OK(MPI_Send(ia, 2, idx, 1, 3, MPI_COMM_WORLD));
    OK(MPI_Send(ia, 3, cont, 1, 4, MPI_COMM_WORLD));
  } else if (rank == 1) {
    double b[3 * 18 + 8], flat[30];
    for (int k = 0; k < 3 * 18 + 8; ++k) b[k] = -1;
    OK(MPI_Recv(b, 1, col3, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int v = 0; v < 3; ++v)
      for (int blk = 0; blk < 5; ++blk)
        for (int e = 0; e < 2; ++e) {
          int at = v * 18 + blk * 4 + e;
          CHECK(b[at] == at + 0.5, "vector element %d = %g", at, b[at]);
        }
    CHECK(b[2] == -1 && b[3] == -1, "gap written");
    MPI_Status st;
    OK(MPI_Recv(flat, 30, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, &st));
    int count;
    OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK(count == 30, "flat count %d", count);
    for (int k = 0; k < 30; ++k) {
      int v = k / 10, blk = (k % 10) / 2, e = k % 2;
      CHECK(flat[k] == v * 18 + blk * 4 + e + 0.5, "flat[%d] = %g", k, flat[k]);
    }
    int got[12];
    OK(MPI_Recv(got, 12, MPI_INT, 0, 3, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, idx, &count));
    CHECK(count == 2, "count in indexed elements %d", count);
    OK(MPI_Get_count(&st, cont, &count));
    CHECK(count == 3, "count in 4-int elements %d", count);
    /* idx extent = 12 ints: elements at 0, 5..7, 10..11 and 12+ those. */
    const int expect[12] = {100, 105, 106, 107, 110, 111, 112, 117, 118, 119, 122, 123};
    for (int k = 0; k < 12; ++k) CHECK(got[k] == expect[k], "indexed[%d] = %d", k, got[k]);
    int ib[12];
    OK(MPI_Recv(ib, 12, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int k = 0; k < 12; ++k) CHECK(ib[k] == 100 + k, "contiguous[%d] = %d", k, ib[k]);
  }

  /* Pack an int, an indexed element and a double, then unpack them. */
  int pack_size, total = 0;
  OK(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &pack_size));
  total += pack_size;
  OK(MPI_Pack_size(1, idx, MPI_COMM_WORLD, &pack_size));
  CHECK(pack_size == 24, "pack size of idx %d", pack_size);
  total += pack_size;
  OK(MPI_Pack_size(1, MPI_DOUBLE, MPI_COMM_WORLD, &pack_size));
  total += pack_size;
  char packed[64];
  int pos = 0, x = 42, src[12], dst[12];
  double d = 2.25, e = 0;
  for (int k = 0; k < 12; ++k) src[k] = k * k, dst[k] = -1;
  OK(MPI_Pack(&x, 1, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  OK(MPI_Pack(src, 1, idx, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  OK(MPI_Pack(&d, 1, MPI_DOUBLE, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  CHECK(pos == total, "packed %d bytes, expected %d", pos, total);
  int y = 0;
  pos = 0;
  OK(MPI_Unpack(packed, total, &pos, &y, 1, MPI_INT, MPI_COMM_WORLD));
  OK(MPI_Unpack(packed, total, &pos, dst, 1, idx, MPI_COMM_WORLD));
  OK(MPI_Unpack(packed, total, &pos, &e, 1, MPI_DOUBLE, MPI_COMM_WORLD));
  CHECK(y == 42 && e == 2.25 && pos == total, "unpacked %d %g at %d", y, e, pos);
  for (int k = 0; k < 12; ++k) {
    int in_map = k == 0 || (k >= 5 && k <= 7) || k == 10 || k == 11;
    CHECK(dst[k] == (in_map ? k * k : -1), "unpacked idx[%d] = %d", k, dst[k]);
  }
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  pos = 60;
  EXPECT_CLASS(MPI_ERR_TRUNCATE, MPI_Pack(&d, 1, MPI_DOUBLE, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_free(&x)); /* not a handle */
  MPI_Datatype predefined = MPI_INT;
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_free(&predefined));

  OK(MPI_Type_free(&col3));
  OK(MPI_Type_free(&idx));
  OK(MPI_Type_free(&cont));
  MPI_Finalize();
  return 0;
}
