/* MPI-3.1 datatype additions: subarray (C and Fortran order) and (h)indexed_block
 * types sent and received around a ring of ranks (one rank sends to itself); the
 * MPI_Count queries; MPI_Type_get_envelope and MPI_Type_get_contents for every
 * combiner, nested ones too, checked against the constructor's arguments and by
 * rebuilding each type from its contents alone; and the error class of every bad
 * argument under MPI_ERRORS_RETURN, a refused call leaving its outputs alone. */
#include <stdint.h>
#include <string.h>

#include "mpitest.h"

static int rank, size, left, right;

/* ------------------------------------------------------------------ communication */

static void subarray_exchange(void) {
  /* int grid[6][8]; the 3 x 4 block at [2][3]. */
  int sizes[2] = {6, 8}, subsizes[2] = {3, 4}, starts[2] = {2, 3};
  MPI_Datatype block;
  OK(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &block));
  OK(MPI_Type_commit(&block));

  MPI_Count count_size, lb, extent, true_lb, true_extent;
  OK(MPI_Type_size_x(block, &count_size));
  OK(MPI_Type_get_extent_x(block, &lb, &extent));
  OK(MPI_Type_get_true_extent_x(block, &true_lb, &true_extent));
  CHECK(count_size == 12 * 4 && lb == 0 && extent == 6 * 8 * 4, "size %lld lb %lld extent %lld", count_size, lb,
        extent);
  /* From [2][3] (element 19) to the end of [4][6] (element 38). */
  CHECK(true_lb == 19 * 4 && true_extent == (39 - 19) * 4, "true lb %lld extent %lld", true_lb, true_extent);
  MPI_Aint aint_lb, aint_extent;
  OK(MPI_Type_get_extent(block, &aint_lb, &aint_extent));
  CHECK(aint_lb == lb && aint_extent == extent, "MPI_Type_get_extent disagrees: %ld %ld", (long)aint_lb,
        (long)aint_extent);

  /* Two whole grids: count 2 steps by the extent, one grid. */
  int grids[2][6][8], flat[24];
  for (int g = 0; g < 2; ++g)
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 8; ++j) grids[g][i][j] = rank * 1000 + g * 100 + i * 8 + j;
  MPI_Status st;
  OK(MPI_Sendrecv(grids, 2, block, right, 1, flat, 24, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
  for (int k = 0; k < 24; ++k) {
    int g = k / 12, i = 2 + (k % 12) / 4, j = 3 + k % 4;
    CHECK(flat[k] == left * 1000 + g * 100 + i * 8 + j, "subarray element %d = %d", k, flat[k]);
  }

  /* Contiguous ints received into the block of a grid: only the block is written. */
  int values[12], target[6][8];
  for (int k = 0; k < 12; ++k) values[k] = rank * 100 + k;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 8; ++j) target[i][j] = -1;
  OK(MPI_Sendrecv(values, 12, MPI_INT, right, 2, target, 1, block, left, 2, MPI_COMM_WORLD, &st));
  int count;
  OK(MPI_Get_count(&st, block, &count));
  CHECK(count == 1, "MPI_Get_count in subarrays %d", count);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 8; ++j) {
      int inside = i >= 2 && i < 5 && j >= 3 && j < 7;
      int expect = inside ? left * 100 + (i - 2) * 4 + (j - 3) : -1;
      CHECK(target[i][j] == expect, "target[%d][%d] = %d, expected %d", i, j, target[i][j], expect);
    }
  OK(MPI_Type_free(&block));

  /* double cube[3][4][5] described in Fortran order (fastest dimension first: sizes
   * 5, 4, 3): the 2 x 3 x 2 block at (1, 0, 1), i.e. C indices [1..2][0..2][1..2]. */
  int f_sizes[3] = {5, 4, 3}, f_subsizes[3] = {2, 3, 2}, f_starts[3] = {1, 0, 1};
  MPI_Datatype fblock;
  OK(MPI_Type_create_subarray(3, f_sizes, f_subsizes, f_starts, MPI_ORDER_FORTRAN, MPI_DOUBLE, &fblock));
  OK(MPI_Type_commit(&fblock));
  double cube[3][4][5], got[12];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k) cube[i][j][k] = rank + 0.25 * (i * 20 + j * 5 + k);
  OK(MPI_Sendrecv(cube, 1, fblock, right, 3, got, 12, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &st));
  int n = 0;
  for (int i = 1; i <= 2; ++i)
    for (int j = 0; j <= 2; ++j)
      for (int k = 1; k <= 2; ++k, ++n)
        CHECK(got[n] == left + 0.25 * (i * 20 + j * 5 + k), "Fortran subarray element %d = %g", n, got[n]);
  OK(MPI_Type_free(&fblock));
}

static void indexed_block_exchange(void) {
  /* Blocks of 2 doubles at elements 7, 0 and 12, in that (type-map) order. */
  int displacements[3] = {7, 0, 12};
  MPI_Datatype picks;
  OK(MPI_Type_create_indexed_block(3, 2, displacements, MPI_DOUBLE, &picks));
  OK(MPI_Type_commit(&picks));
  double src[16], flat[6], dst[16];
  for (int k = 0; k < 16; ++k) src[k] = rank * 100 + k + 0.5, dst[k] = -1;
  MPI_Status st;
  OK(MPI_Sendrecv(src, 1, picks, right, 4, flat, 6, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &st));
  const int order[6] = {7, 8, 0, 1, 12, 13};
  for (int k = 0; k < 6; ++k)
    CHECK(flat[k] == left * 100 + order[k] + 0.5, "indexed_block element %d = %g", k, flat[k]);
  OK(MPI_Sendrecv(src, 1, picks, right, 5, dst, 1, picks, left, 5, MPI_COMM_WORLD, &st));
  for (int k = 0; k < 16; ++k) {
    int picked = k == 0 || k == 1 || k == 7 || k == 8 || k == 12 || k == 13;
    CHECK(dst[k] == (picked ? left * 100 + k + 0.5 : -1), "dst[%d] = %g", k, dst[k]);
  }
  OK(MPI_Type_free(&picks));

  /* Blocks of 3 ints at bytes 24 and 0. */
  MPI_Aint byte_displacements[2] = {24, 0};
  MPI_Datatype hpicks;
  OK(MPI_Type_create_hindexed_block(2, 3, byte_displacements, MPI_INT, &hpicks));
  OK(MPI_Type_commit(&hpicks));
  int isrc[10], iflat[6];
  for (int k = 0; k < 10; ++k) isrc[k] = rank * 100 + k;
  OK(MPI_Sendrecv(isrc, 1, hpicks, right, 6, iflat, 6, MPI_INT, left, 6, MPI_COMM_WORLD, &st));
  const int iorder[6] = {6, 7, 8, 0, 1, 2};
  for (int k = 0; k < 6; ++k)
    CHECK(iflat[k] == left * 100 + iorder[k], "hindexed_block element %d = %d", k, iflat[k]);
  int bytes;
  OK(MPI_Type_size(hpicks, &bytes));
  CHECK(bytes == 24, "hindexed_block size %d", bytes);
  OK(MPI_Type_free(&hpicks));
}

/* ------------------------------------------------------------------ envelope and contents */

static int combiner_of(MPI_Datatype type) {
  int ni, na, nd, combiner;
  OK(MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner));
  return combiner;
}

/* `type`'s envelope and contents are exactly these; a predefined input comes back as
 * itself, a derived one as a new handle to the same type (same envelope, size and
 * extent), which is freed here without harming `inputs[k]`. */
static void expect_contents(const char* what, MPI_Datatype type, int combiner, int ni, const int* ints, int na,
                            const MPI_Aint* addrs, int nd, const MPI_Datatype* inputs) {
  int got_ni, got_na, got_nd, got_combiner;
  OK(MPI_Type_get_envelope(type, &got_ni, &got_na, &got_nd, &got_combiner));
  CHECK(got_combiner == combiner && got_ni == ni && got_na == na && got_nd == nd,
        "%s: envelope (%d, %d, %d, combiner %d), expected (%d, %d, %d, combiner %d)", what, got_ni, got_na, got_nd,
        got_combiner, ni, na, nd, combiner);
  int got_ints[32];
  MPI_Aint got_addrs[8];
  MPI_Datatype got_types[8];
  OK(MPI_Type_get_contents(type, ni, na, nd, got_ints, got_addrs, got_types));
  for (int k = 0; k < ni; ++k)
    CHECK(got_ints[k] == ints[k], "%s: integer %d = %d, expected %d", what, k, got_ints[k], ints[k]);
  for (int k = 0; k < na; ++k)
    CHECK(got_addrs[k] == addrs[k], "%s: address %d = %ld, expected %ld", what, k, (long)got_addrs[k], (long)addrs[k]);
  for (int k = 0; k < nd; ++k) {
    if (combiner_of(inputs[k]) == MPI_COMBINER_NAMED) {
      CHECK(got_types[k] == inputs[k], "%s: predefined input %d came back as %#x, not %#x", what, k,
            (unsigned)got_types[k], (unsigned)inputs[k]);
      continue;
    }
    CHECK(got_types[k] != inputs[k], "%s: derived input %d came back as the caller's own handle", what, k);
    MPI_Count s1, s2, lb1, lb2, e1, e2;
    OK(MPI_Type_size_x(got_types[k], &s1));
    OK(MPI_Type_size_x(inputs[k], &s2));
    OK(MPI_Type_get_extent_x(got_types[k], &lb1, &e1));
    OK(MPI_Type_get_extent_x(inputs[k], &lb2, &e2));
    CHECK(s1 == s2 && lb1 == lb2 && e1 == e2 && combiner_of(got_types[k]) == combiner_of(inputs[k]),
          "%s: input %d is not the type it was made from", what, k);
    OK(MPI_Type_free(&got_types[k]));
    OK(MPI_Type_size_x(inputs[k], &s2)); /* the caller's handle still works */
  }
}

/* A type made anew from `type`'s envelope and contents alone, inputs rebuilt the same
 * way (recursively); a predefined type is itself. Frees every handle get_contents
 * returns and every rebuilt input. */
static MPI_Datatype rebuild(MPI_Datatype type) {
  int ni, na, nd, combiner;
  OK(MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner));
  if (combiner == MPI_COMBINER_NAMED) return type;
  int ints[64];
  MPI_Aint addrs[16];
  MPI_Datatype types[16], in[16], out = MPI_DATATYPE_NULL;
  CHECK(ni <= 64 && na <= 16 && nd <= 16, "envelope (%d, %d, %d) too big for this test", ni, na, nd);
  OK(MPI_Type_get_contents(type, ni, na, nd, ints, addrs, types));
  for (int k = 0; k < nd; ++k) {
    in[k] = rebuild(types[k]);
    if (combiner_of(types[k]) != MPI_COMBINER_NAMED) OK(MPI_Type_free(&types[k]));
  }
  const int n = ints[0];
  switch (combiner) {
    case MPI_COMBINER_DUP: OK(MPI_Type_dup(in[0], &out)); break;
    case MPI_COMBINER_CONTIGUOUS: OK(MPI_Type_contiguous(n, in[0], &out)); break;
    case MPI_COMBINER_VECTOR: OK(MPI_Type_vector(n, ints[1], ints[2], in[0], &out)); break;
    case MPI_COMBINER_HVECTOR: OK(MPI_Type_create_hvector(n, ints[1], addrs[0], in[0], &out)); break;
    case MPI_COMBINER_INDEXED: OK(MPI_Type_indexed(n, ints + 1, ints + 1 + n, in[0], &out)); break;
    case MPI_COMBINER_HINDEXED: OK(MPI_Type_create_hindexed(n, ints + 1, addrs, in[0], &out)); break;
    case MPI_COMBINER_INDEXED_BLOCK: OK(MPI_Type_create_indexed_block(n, ints[1], ints + 2, in[0], &out)); break;
    case MPI_COMBINER_HINDEXED_BLOCK: OK(MPI_Type_create_hindexed_block(n, ints[1], addrs, in[0], &out)); break;
    case MPI_COMBINER_STRUCT: OK(MPI_Type_create_struct(n, ints + 1, addrs, in, &out)); break;
    case MPI_COMBINER_SUBARRAY:
      OK(MPI_Type_create_subarray(n, ints + 1, ints + 1 + n, ints + 1 + 2 * n, ints[1 + 3 * n], in[0], &out));
      break;
    case MPI_COMBINER_RESIZED: OK(MPI_Type_create_resized(in[0], addrs[0], addrs[1], &out)); break;
    default: CHECK(0, "unexpected combiner %d", combiner);
  }
  for (int k = 0; k < nd; ++k)
    if (combiner_of(in[k]) != MPI_COMBINER_NAMED) OK(MPI_Type_free(&in[k]));
  return out;
}

/* Bytes the types' elements may touch around the buffer address: [-kBefore, kAfter). */
enum { kBefore = 4096, kAfter = 12288 };
static unsigned char source[kBefore + kAfter];

/* `a` and `b` have the same size, bounds and packed form of 2 elements. */
static void expect_same_type(const char* what, MPI_Datatype a, MPI_Datatype b) {
  MPI_Count sa, sb, la, lb, ea, eb, tla, tlb, tea, teb;
  OK(MPI_Type_size_x(a, &sa));
  OK(MPI_Type_size_x(b, &sb));
  OK(MPI_Type_get_extent_x(a, &la, &ea));
  OK(MPI_Type_get_extent_x(b, &lb, &eb));
  OK(MPI_Type_get_true_extent_x(a, &tla, &tea));
  OK(MPI_Type_get_true_extent_x(b, &tlb, &teb));
  CHECK(sa == sb && la == lb && ea == eb && tla == tlb && tea == teb,
        "%s: rebuilt type differs: size %lld/%lld lb %lld/%lld extent %lld/%lld true %lld+%lld/%lld+%lld", what, sa,
        sb, la, lb, ea, eb, tla, tea, tlb, teb);
  CHECK(tla >= -kBefore && tla + ea + tea <= kAfter, "%s: the test buffer is too small for this type", what);
  MPI_Datatype ca, cb;
  OK(MPI_Type_dup(a, &ca));
  OK(MPI_Type_dup(b, &cb));
  OK(MPI_Type_commit(&ca));
  OK(MPI_Type_commit(&cb));
  static unsigned char pa[8192], pb[8192];
  int pos_a = 0, pos_b = 0;
  CHECK(2 * sa <= (MPI_Count)sizeof pa, "%s: packed buffer too small", what);
  OK(MPI_Pack(source + kBefore, 2, ca, pa, sizeof pa, &pos_a, MPI_COMM_WORLD));
  OK(MPI_Pack(source + kBefore, 2, cb, pb, sizeof pb, &pos_b, MPI_COMM_WORLD));
  CHECK(pos_a == pos_b && memcmp(pa, pb, (size_t)pos_a) == 0, "%s: rebuilt type packs differently", what);
  OK(MPI_Type_free(&ca));
  OK(MPI_Type_free(&cb));
}

static void round_trip(const char* what, MPI_Datatype type) {
  MPI_Datatype copy = rebuild(type);
  expect_same_type(what, type, copy);
  OK(MPI_Type_free(&copy));
}

static void envelopes_and_contents(void) {
  for (size_t k = 0; k < sizeof source; ++k) source[k] = (unsigned char)(k * 13 + (k >> 8));
  int ni, na, nd, combiner;
  OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &combiner));
  CHECK(ni == 0 && na == 0 && nd == 0 && combiner == MPI_COMBINER_NAMED, "MPI_INT envelope (%d, %d, %d, %d)", ni, na,
        nd, combiner);
  OK(MPI_Type_get_envelope(MPI_2INT, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_NAMED, "MPI_2INT combiner %d", combiner);

  MPI_Datatype contig, vec, hvec, idx, hidx, iblock, hiblock, st, st1, sub, res, dup;
  OK(MPI_Type_contiguous(3, MPI_SHORT, &contig));
  expect_contents("contiguous", contig, MPI_COMBINER_CONTIGUOUS, 1, (int[]){3}, 0, NULL, 1,
                  (MPI_Datatype[]){MPI_SHORT});

  OK(MPI_Type_vector(2, 3, -4, MPI_FLOAT, &vec));
  expect_contents("vector", vec, MPI_COMBINER_VECTOR, 3, (int[]){2, 3, -4}, 0, NULL, 1, (MPI_Datatype[]){MPI_FLOAT});

  OK(MPI_Type_create_hvector(2, 1, 100, contig, &hvec)); /* derived input */
  expect_contents("hvector", hvec, MPI_COMBINER_HVECTOR, 2, (int[]){2, 1}, 1, (MPI_Aint[]){100}, 1,
                  (MPI_Datatype[]){contig});

  int lens[3] = {2, 1, 3}, disps[3] = {5, 0, 9};
  OK(MPI_Type_indexed(3, lens, disps, vec, &idx));
  expect_contents("indexed", idx, MPI_COMBINER_INDEXED, 7, (int[]){3, 2, 1, 3, 5, 0, 9}, 0, NULL, 1,
                  (MPI_Datatype[]){vec});

  MPI_Aint hdisps[3] = {40, 0, -16};
  OK(MPI_Type_create_hindexed(3, lens, hdisps, MPI_DOUBLE, &hidx));
  expect_contents("hindexed", hidx, MPI_COMBINER_HINDEXED, 4, (int[]){3, 2, 1, 3}, 3, hdisps, 1,
                  (MPI_Datatype[]){MPI_DOUBLE});

  OK(MPI_Type_create_indexed_block(3, 2, disps, MPI_INT, &iblock));
  expect_contents("indexed_block", iblock, MPI_COMBINER_INDEXED_BLOCK, 5, (int[]){3, 2, 5, 0, 9}, 0, NULL, 1,
                  (MPI_Datatype[]){MPI_INT});

  OK(MPI_Type_create_hindexed_block(3, 2, hdisps, hidx, &hiblock));
  expect_contents("hindexed_block", hiblock, MPI_COMBINER_HINDEXED_BLOCK, 2, (int[]){3, 2}, 3, hdisps, 1,
                  (MPI_Datatype[]){hidx});

  int sizes[2] = {4, 5}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
  OK(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, iblock, &sub));
  expect_contents("subarray", sub, MPI_COMBINER_SUBARRAY, 8, (int[]){2, 4, 5, 2, 3, 1, 2, MPI_ORDER_FORTRAN}, 0, NULL,
                  1, (MPI_Datatype[]){iblock});

  OK(MPI_Type_create_resized(vec, -8, 64, &res));
  expect_contents("resized", res, MPI_COMBINER_RESIZED, 0, NULL, 2, (MPI_Aint[]){-8, 64}, 1, (MPI_Datatype[]){vec});

  OK(MPI_Type_dup(res, &dup));
  expect_contents("dup", dup, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, (MPI_Datatype[]){res});

  int st_lens[3] = {1, 2, 1};
  MPI_Aint st_disps[3] = {0, 16, 2000};
  MPI_Datatype st_types[3] = {MPI_DOUBLE, res, MPI_2INT};
  OK(MPI_Type_create_struct(3, st_lens, st_disps, st_types, &st));
  expect_contents("struct", st, MPI_COMBINER_STRUCT, 4, (int[]){3, 1, 2, 1}, 3, st_disps, 3, st_types);
  /* MPI-1's MPI_Type_struct reports MPI_COMBINER_STRUCT, as in MPICH. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  OK(MPI_Type_struct(3, st_lens, st_disps, st_types, &st1));
#pragma GCC diagnostic pop
  expect_contents("MPI_Type_struct", st1, MPI_COMBINER_STRUCT, 4, (int[]){3, 1, 2, 1}, 3, st_disps, 3, st_types);

  /* Freeing an input leaves the types made from it, and their contents, intact. */
  OK(MPI_Type_free(&vec));
  MPI_Aint res_addrs[2];
  MPI_Datatype res_input;
  OK(MPI_Type_get_contents(res, 0, 2, 1, NULL, res_addrs, &res_input));
  int vec_ints[3];
  MPI_Datatype vec_input;
  OK(MPI_Type_get_contents(res_input, 3, 0, 1, vec_ints, NULL, &vec_input));
  CHECK(combiner_of(res_input) == MPI_COMBINER_VECTOR && vec_ints[0] == 2 && vec_ints[1] == 3 && vec_ints[2] == -4 &&
            vec_input == MPI_FLOAT,
        "the freed vector's contents, through the resized type, are gone");
  OK(MPI_Type_free(&res_input));

  /* Every type, nested ones included, rebuilt from its contents alone. */
  round_trip("contiguous", contig);
  round_trip("hvector", hvec);
  round_trip("indexed", idx);
  round_trip("hindexed", hidx);
  round_trip("indexed_block", iblock);
  round_trip("hindexed_block", hiblock);
  round_trip("subarray", sub);
  round_trip("resized", res);
  round_trip("dup", dup);
  round_trip("struct", st);
  MPI_Datatype nested;
  MPI_Datatype nested_types[2] = {sub, hiblock};
  int nested_lens[2] = {1, 2};
  MPI_Aint nested_disps[2] = {-300, 1000};
  OK(MPI_Type_create_struct(2, nested_lens, nested_disps, nested_types, &nested));
  MPI_Datatype deeper;
  OK(MPI_Type_create_hvector(2, 1, -1500, nested, &deeper));
  round_trip("hvector of struct of subarray of indexed_block, and of hindexed_block of hindexed", deeper);
  MPI_Datatype types[] = {contig, hvec, idx, hidx, iblock, hiblock, st, st1, sub, res, dup, nested, deeper};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; ++k) OK(MPI_Type_free(&types[k]));
}

/* ------------------------------------------------------------------ bad arguments */

static void bad_arguments(void) {
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const MPI_Datatype untouched = (MPI_Datatype)0x12345678;
  MPI_Datatype out = untouched;
  int disps[2] = {0, 4};
  MPI_Aint hdisps[2] = {0, 16};

  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Type_create_indexed_block(-1, 1, disps, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_indexed_block(2, -1, disps, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_indexed_block(2, 1, NULL, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_create_indexed_block(2, 1, disps, MPI_DATATYPE_NULL, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_indexed_block(2, 1, disps, MPI_INT, NULL));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Type_create_hindexed_block(-1, 1, hdisps, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_hindexed_block(2, -1, hdisps, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_hindexed_block(2, 1, NULL, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_create_hindexed_block(2, 1, hdisps, MPI_DATATYPE_NULL, &out));
  CHECK(out == untouched, "a refused block-indexed constructor wrote its output");
  OK(MPI_Type_create_indexed_block(0, 1, NULL, MPI_INT, &out)); /* no blocks: no array needed */
  OK(MPI_Type_free(&out));
  out = untouched;

  int sizes[2] = {6, 8}, subsizes[2] = {3, 4}, starts[2] = {2, 3};
  EXPECT_CLASS(MPI_ERR_DIMS, MPI_Type_create_subarray(0, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_DIMS, MPI_Type_create_subarray(-2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_subarray(2, NULL, subsizes, starts, MPI_ORDER_C, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_subarray(2, sizes, NULL, starts, MPI_ORDER_C, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_subarray(2, sizes, subsizes, NULL, MPI_ORDER_C, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_subarray(2, sizes, subsizes, starts, 3, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_DATATYPE_NULL,
                                                      &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, NULL));
  int zero_size[2] = {6, 0}, big_sub[2] = {3, 9}, zero_sub[2] = {0, 4}, neg_start[2] = {-1, 3}, far[2] = {2, 5};
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_subarray(2, zero_size, subsizes, starts, MPI_ORDER_C, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_subarray(2, sizes, big_sub, starts, MPI_ORDER_C, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_subarray(2, sizes, zero_sub, starts, MPI_ORDER_C, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_subarray(2, sizes, subsizes, neg_start, MPI_ORDER_C, MPI_INT, &out));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_subarray(2, sizes, subsizes, far, MPI_ORDER_FORTRAN, MPI_INT, &out));
  CHECK(out == untouched, "a refused MPI_Type_create_subarray wrote its output");

  MPI_Count count;
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_size_x(MPI_DATATYPE_NULL, &count));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_size_x(MPI_INT, NULL));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_get_extent_x(MPI_DATATYPE_NULL, &count, &count));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_extent_x(MPI_INT, NULL, &count));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_true_extent_x(MPI_INT, &count, NULL));

  int ni, na, nd, combiner;
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_get_envelope(MPI_DATATYPE_NULL, &ni, &na, &nd, &combiner));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_envelope(MPI_INT, &ni, &na, NULL, &combiner));

  MPI_Datatype vec;
  OK(MPI_Type_vector(2, 1, 3, MPI_INT, &vec)); /* 3 integers, 0 addresses, 1 type */
  int ints[4] = {-7, -7, -7, -7};
  MPI_Aint addrs[1] = {-7};
  MPI_Datatype types[1] = {untouched};
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_contents(MPI_INT, 4, 1, 1, ints, addrs, types)); /* predefined */
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_contents(MPI_2INT, 4, 1, 1, ints, addrs, types));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_get_contents(MPI_DATATYPE_NULL, 4, 1, 1, ints, addrs, types));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_contents(vec, 2, 1, 1, ints, addrs, types)); /* too few integers */
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_contents(vec, 3, 0, 0, ints, addrs, types)); /* too few types */
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_contents(vec, 3, -1, 1, ints, addrs, types));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_contents(vec, 3, 0, 1, NULL, addrs, types));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_contents(vec, 3, 0, 1, ints, addrs, NULL));
  CHECK(ints[0] == -7 && addrs[0] == -7 && types[0] == untouched, "a refused MPI_Type_get_contents wrote its output");
  OK(MPI_Type_get_contents(vec, 3, 0, 1, ints, NULL, types)); /* no addresses: none needed */
  CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 3 && ints[3] == -7 && types[0] == MPI_INT,
        "vector contents %d %d %d %d type %#x", ints[0], ints[1], ints[2], ints[3], (unsigned)types[0]);
  OK(MPI_Type_free(&vec));
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  subarray_exchange();
  indexed_block_exchange();
  envelopes_and_contents();
  bad_arguments();
  MPI_Finalize();
  return 0;
}
