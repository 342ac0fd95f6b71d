/* MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size with "external32"
 * (MPI-3.1 §4.2, §13.5.2):
 *  - the exact bytes of known values of the predefined types: big-endian, the sizes of
 *    Table 13.2 (MPI_LONG 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE 16 as IEEE binary128,
 *    pairs as value then int), and back to the same values;
 *  - derived types (a padded struct, a strided vector of longs): the type map's
 *    elements only, each converted;
 *  - the sizes MPI_Pack_external_size reports;
 *  - a buffer packed on rank 0 and unpacked on the others;
 *  - values that do not fit (MPI_ERR_CONVERSION, position not advanced), other data
 *    representations (MPI_ERR_ARG), short buffers (MPI_ERR_TRUNCATE), bad types,
 *    counts and pointers, under MPI_ERRORS_RETURN. */
#include <stddef.h>
#include <string.h>
#include <wchar.h>

#include "mpitest.h"

static const char* ext = "external32";

/* Packs count elements of type from in, checks the bytes against `expected` (n bytes),
 * unpacks them into out and checks that with `same`, a memcmp of `size` bytes. */
static void round_trip(const char* what, const void* in, int count, MPI_Datatype type, const unsigned char* expected,
                       int n, void* out, size_t size) {
  unsigned char buf[256];
  MPI_Aint position = 0, bytes = -1;
  OK(MPI_Pack_external_size(ext, count, type, &bytes));
  CHECK(bytes == n, "%s: MPI_Pack_external_size %ld, expected %d", what, (long)bytes, n);
  memset(buf, 0xee, sizeof buf);
  OK(MPI_Pack_external(ext, in, count, type, buf, sizeof buf, &position));
  CHECK(position == n, "%s: position %ld after packing, expected %d", what, (long)position, n);
  for (int i = 0; i < n; ++i)
    CHECK(buf[i] == expected[i], "%s: byte %d is 0x%02x, expected 0x%02x", what, i, buf[i], expected[i]);
  CHECK(buf[n] == 0xee, "%s: packed beyond its %d bytes", what, n);
  position = 0;
  OK(MPI_Unpack_external(ext, buf, n, &position, out, count, type));
  CHECK(position == n, "%s: position %ld after unpacking", what, (long)position);
  CHECK(memcmp(in, out, size) == 0, "%s: unpacked value differs", what);
}

typedef struct {
  char c;
  long l;
  double d;
} record;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* ---- predefined types */
  {
    int i = 0x01020304, o;
    const unsigned char e[] = {1, 2, 3, 4};
    round_trip("MPI_INT", &i, 1, MPI_INT, e, 4, &o, sizeof i);
  }
  {
    long l[2] = {-2, 0x7fffffff}, o[2];
    const unsigned char e[] = {0xff, 0xff, 0xff, 0xfe, 0x7f, 0xff, 0xff, 0xff};
    round_trip("MPI_LONG", l, 2, MPI_LONG, e, 8, o, sizeof l);
  }
  {
    unsigned long u = 0xfffffffful, o;
    const unsigned char e[] = {0xff, 0xff, 0xff, 0xff};
    round_trip("MPI_UNSIGNED_LONG", &u, 1, MPI_UNSIGNED_LONG, e, 4, &o, sizeof u);
  }
  {
    long long l = 0x0102030405060708ll, o;
    const unsigned char e[] = {1, 2, 3, 4, 5, 6, 7, 8};
    round_trip("MPI_LONG_LONG", &l, 1, MPI_LONG_LONG, e, 8, &o, sizeof l);
  }
  {
    short s = -3, o;
    const unsigned char e[] = {0xff, 0xfd};
    round_trip("MPI_SHORT", &s, 1, MPI_SHORT, e, 2, &o, sizeof s);
  }
  {
    float f = 1.0f, o;
    const unsigned char e[] = {0x3f, 0x80, 0, 0};
    round_trip("MPI_FLOAT", &f, 1, MPI_FLOAT, e, 4, &o, sizeof f);
  }
  {
    double d = -2.5, o;
    const unsigned char e[] = {0xc0, 0x04, 0, 0, 0, 0, 0, 0};
    round_trip("MPI_DOUBLE", &d, 1, MPI_DOUBLE, e, 8, &o, sizeof d);
  }
  {
    long double d[2] = {1.0L, -2.5L}, o[2];
    unsigned char e[32] = {0x3f, 0xff};
    e[16] = 0xc0, e[17] = 0x00, e[18] = 0x40;
    memset(o, 0, sizeof o);
    OK(MPI_Pack_external_size(ext, 2, MPI_LONG_DOUBLE, &(MPI_Aint){0}));
    unsigned char buf[64];
    MPI_Aint position = 0;
    OK(MPI_Pack_external(ext, d, 2, MPI_LONG_DOUBLE, buf, sizeof buf, &position));
    CHECK(position == 32, "MPI_LONG_DOUBLE: %ld bytes", (long)position);
    for (int i = 0; i < 32; ++i)
      CHECK(buf[i] == e[i], "MPI_LONG_DOUBLE: byte %d is 0x%02x, expected 0x%02x", i, buf[i], e[i]);
    position = 0;
    OK(MPI_Unpack_external(ext, buf, 32, &position, o, 2, MPI_LONG_DOUBLE));
    CHECK(o[0] == 1.0L && o[1] == -2.5L, "MPI_LONG_DOUBLE back: %Lg %Lg", o[0], o[1]);
    long double third = 1.0L / 3.0L, back = 0;
    position = 0;
    OK(MPI_Pack_external(ext, &third, 1, MPI_LONG_DOUBLE, buf, sizeof buf, &position));
    position = 0;
    OK(MPI_Unpack_external(ext, buf, 16, &position, &back, 1, MPI_LONG_DOUBLE));
    CHECK(back == third, "1/3 as a long double does not survive external32");
  }
  {
    wchar_t w[2] = {L'A', 0x20ac}, o[2];
    const unsigned char e[] = {0x00, 0x41, 0x20, 0xac};
    round_trip("MPI_WCHAR", w, 2, MPI_WCHAR, e, 4, o, sizeof w);
  }
  {
    struct {
      double value;
      int index;
    } p = {1.0, 7}, o;
    memset(&o, 0, sizeof o);
    const unsigned char e[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
    round_trip("MPI_DOUBLE_INT", &p, 1, MPI_DOUBLE_INT, e, 12, &o, sizeof(double) + sizeof(int));
  }
  {
    int two[2] = {1, -1}, o[2];
    const unsigned char e[] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff};
    round_trip("MPI_2INT", two, 1, MPI_2INT, e, 8, o, sizeof two);
  }

  /* ---- sizes of Table 13.2 */
  struct {
    MPI_Datatype type;
    const char* name;
    MPI_Aint size;
  } sizes[] = {{MPI_CHAR, "MPI_CHAR", 1},         {MPI_WCHAR, "MPI_WCHAR", 2},
               {MPI_SHORT, "MPI_SHORT", 2},       {MPI_LONG, "MPI_LONG", 4},
               {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 4},
               {MPI_LONG_LONG, "MPI_LONG_LONG", 8}, {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", 16},
               {MPI_C_BOOL, "MPI_C_BOOL", 1},     {MPI_AINT, "MPI_AINT", 8},
               {MPI_OFFSET, "MPI_OFFSET", 8},     {MPI_COUNT, "MPI_COUNT", 8},
               {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16},
               {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", 32},
               {MPI_SHORT_INT, "MPI_SHORT_INT", 6}, {MPI_LONG_INT, "MPI_LONG_INT", 8},
               {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", 20}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    MPI_Aint n = -1;
    OK(MPI_Pack_external_size(ext, 3, sizes[i].type, &n));
    CHECK(n == 3 * sizes[i].size, "%s: external32 size of 3 is %ld, expected %ld", sizes[i].name, (long)n,
          (long)(3 * sizes[i].size));
  }

  /* ---- derived types: a padded struct, a strided vector */
  MPI_Datatype rec, vec;
  {
    int lengths[] = {1, 1, 1};
    MPI_Aint displs[] = {offsetof(record, c), offsetof(record, l), offsetof(record, d)};
    MPI_Datatype types[] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE};
    OK(MPI_Type_create_struct(3, lengths, displs, types, &rec));
    OK(MPI_Type_commit(&rec));
    record r[2] = {{'x', -5, 1.0}, {'y', 65536, -2.5}}, o[2];
    memset(o, 0, sizeof o);
    const unsigned char e[] = {'x', 0xff, 0xff, 0xff, 0xfb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0,
                               'y', 0, 1, 0, 0,             0xc0, 0x04, 0, 0, 0, 0, 0, 0};
    unsigned char buf[64];
    MPI_Aint position = 0, n = 0;
    OK(MPI_Pack_external_size(ext, 2, rec, &n));
    CHECK(n == 26, "struct: external32 size %ld, expected 26", (long)n);
    OK(MPI_Pack_external(ext, r, 2, rec, buf, sizeof buf, &position));
    CHECK(position == 26, "struct: packed %ld bytes", (long)position);
    for (int i = 0; i < 26; ++i)
      CHECK(buf[i] == e[i], "struct: byte %d is 0x%02x, expected 0x%02x", i, buf[i], e[i]);
    position = 0;
    OK(MPI_Unpack_external(ext, buf, 26, &position, o, 2, rec));
    CHECK(o[0].c == 'x' && o[0].l == -5 && o[0].d == 1.0 && o[1].c == 'y' && o[1].l == 65536 && o[1].d == -2.5,
          "struct: unpacked values differ");

    OK(MPI_Type_vector(2, 1, 2, MPI_LONG, &vec));
    OK(MPI_Type_commit(&vec));
    long l[4] = {1, 99, -1, 99}, lo[4] = {0, 0, 0, 0};
    const unsigned char ev[] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff};
    position = 0;
    OK(MPI_Pack_external(ext, l, 1, vec, buf, sizeof buf, &position));
    CHECK(position == 8, "vector: packed %ld bytes", (long)position);
    for (int i = 0; i < 8; ++i) CHECK(buf[i] == ev[i], "vector: byte %d is 0x%02x", i, buf[i]);
    position = 0;
    OK(MPI_Unpack_external(ext, buf, 8, &position, lo, 1, vec));
    CHECK(lo[0] == 1 && lo[1] == 0 && lo[2] == -1 && lo[3] == 0, "vector: unpacked %ld %ld %ld %ld", lo[0], lo[1],
          lo[2], lo[3]);
  }

  /* ---- across ranks: rank 0 packs, the others unpack */
  {
    record r[3] = {{'a', 1, 0.5}, {'b', -100000, 3.25}, {'c', 2147483647, -0.125}}, o[3];
    unsigned char buf[64];
    MPI_Aint position = 0;
    if (rank == 0) OK(MPI_Pack_external(ext, r, 3, rec, buf, sizeof buf, &position));
    OK(MPI_Bcast(buf, 39, MPI_BYTE, 0, MPI_COMM_WORLD));
    position = 0;
    memset(o, 0, sizeof o);
    OK(MPI_Unpack_external(ext, buf, 39, &position, o, 3, rec));
    for (int i = 0; i < 3; ++i)
      CHECK(o[i].c == r[i].c && o[i].l == r[i].l && o[i].d == r[i].d, "record %d from rank 0 differs", i);
  }

  /* ---- bad input */
  {
    unsigned char buf[64];
    MPI_Aint position = 0, n;
    long big[2] = {1, 5000000000l};
    int i = 1;
    EXPECT_CLASS(MPI_ERR_CONVERSION, MPI_Pack_external(ext, big, 2, MPI_LONG, buf, sizeof buf, &position));
    CHECK(position == 0, "a refused pack advanced the position to %ld", (long)position);
    unsigned long ubig = 0x100000000ul;
    EXPECT_CLASS(MPI_ERR_CONVERSION, MPI_Pack_external(ext, &ubig, 1, MPI_UNSIGNED_LONG, buf, sizeof buf, &position));
    wchar_t wbig = 0x10000;
    EXPECT_CLASS(MPI_ERR_CONVERSION, MPI_Pack_external(ext, &wbig, 1, MPI_WCHAR, buf, sizeof buf, &position));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Pack_external("native", &i, 1, MPI_INT, buf, sizeof buf, &position));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Unpack_external("internal", buf, 4, &position, &i, 1, MPI_INT));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Pack_external_size("external64", 1, MPI_INT, &n));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Pack_external_size(ext, 1, MPI_INT, NULL));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Pack_external(NULL, &i, 1, MPI_INT, buf, sizeof buf, &position));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Pack_external(ext, &i, 1, MPI_INT, buf, sizeof buf, NULL));
    EXPECT_CLASS(MPI_ERR_TRUNCATE, MPI_Pack_external(ext, &i, 1, MPI_INT, buf, 3, &position));
    position = 62;
    EXPECT_CLASS(MPI_ERR_TRUNCATE, MPI_Pack_external(ext, &i, 1, MPI_INT, buf, 64, &position));
    position = 0;
    EXPECT_CLASS(MPI_ERR_TRUNCATE, MPI_Unpack_external(ext, buf, 12, &position, big, 1, rec));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Pack_external(ext, &i, 1, MPI_INT, buf, -1, &position));
    EXPECT_CLASS(MPI_ERR_COUNT, MPI_Pack_external(ext, &i, -1, MPI_INT, buf, sizeof buf, &position));
    EXPECT_CLASS(MPI_ERR_COUNT, MPI_Pack_external_size(ext, -1, MPI_INT, &n));
    EXPECT_CLASS(MPI_ERR_TYPE, MPI_Pack_external(ext, &i, 1, MPI_DATATYPE_NULL, buf, sizeof buf, &position));
    EXPECT_CLASS(MPI_ERR_TYPE, MPI_Pack_external_size(ext, 1, MPI_DATATYPE_NULL, &n));
    MPI_Datatype uncommitted;
    OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
    EXPECT_CLASS(MPI_ERR_TYPE, MPI_Pack_external(ext, &i, 1, uncommitted, buf, sizeof buf, &position));
    OK(MPI_Type_free(&uncommitted));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Pack_external(ext, NULL, 1, MPI_INT, buf, sizeof buf, &position));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Unpack_external(ext, NULL, 4, &position, &i, 1, MPI_INT));
    CHECK(position == 0, "refused calls moved the position to %ld", (long)position);
    /* nothing to pack: no buffer needed */
    OK(MPI_Pack_external(ext, NULL, 0, MPI_INT, NULL, 0, &position));
    CHECK(position == 0, "empty pack moved the position");
  }

  OK(MPI_Type_free(&rec));
  OK(MPI_Type_free(&vec));
  if (rank == 0) printf("pack_external: ok\n");
  MPI_Finalize();
  return 0;
}
