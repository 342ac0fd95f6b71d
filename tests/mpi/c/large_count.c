/* The large-count functions of MPI-4.0 (MPI_X_c):
 *  - sizes beyond an int without the memory behind them: a contiguous type of 2^31 + 5
 *    bytes (MPI_Type_size_c, MPI_Type_get_extent_c; MPI_Type_size says MPI_UNDEFINED),
 *    a vector whose stride passes 2^31, MPI_Pack_size_c of 3 of them (MPI_Pack_size
 *    refuses: MPI_ERR_COUNT; MPI_Type_get_contents of the big type MPI_ERR_TYPE), a status of 2^31 + 3 ints (MPI_Status_set_elements_c,
 *    MPI_Get_count_c, MPI_Get_elements_c; MPI_Get_count says MPI_UNDEFINED);
 *  - every point-to-point _c call around a ring (standard, synchronous, buffered, ready,
 *    nonblocking, sendrecv, matched probe receives, persistent), checked by content;
 *  - every collective _c call (blocking, nonblocking, persistent, neighbourhood on a
 *    periodic ring) against the values the int forms give;
 *  - the datatype constructors' _c forms pack the same bytes as the int ones; MPI_Pack_c,
 *    MPI_Unpack_c, the external32 _c calls;
 *  - MPI_Type_get_envelope_c / MPI_Type_get_contents_c: large counts for the _c
 *    constructors' MPI_Count arguments, integers for the int constructors';
 *  - MPI_Op_create_c: the function gets the whole count as an MPI_Count, in one call;
 *  - errors: negative counts (MPI_ERR_COUNT), negative entries of a v-collective's counts;
 *  - with the argument "big" (2 ranks or more): one MPI_Send_c / MPI_Recv_c of 2^31 + 16
 *    bytes, whose every 4 KiB is checked, and MPI_Get_count_c of it. */
#include <stdint.h>
#include <string.h>

#include "mpitest.h"

static int rank, size;

/* MPI_Op_create_c's function: a sum of ints, counting its calls and the lengths. */
static int calls;
static MPI_Count last_len;
static void sum_c(void* in, void* inout, MPI_Count* len, MPI_Datatype* type) {
  (void)type;
  ++calls;
  last_len = *len;
  for (MPI_Count i = 0; i < *len; ++i) ((int*)inout)[i] += ((const int*)in)[i];
}

/* Packs one element of `a` and of `b` (types over the same buffer) and compares. */
static void same_bytes(MPI_Datatype a, MPI_Datatype b, const void* data, const char* what) {
  char pa[4096], pb[4096];
  int na = 0, nb = 0, sa, sb;
  OK(MPI_Type_commit(&a));
  OK(MPI_Type_commit(&b));
  OK(MPI_Pack_size(1, a, MPI_COMM_SELF, &sa));
  OK(MPI_Pack_size(1, b, MPI_COMM_SELF, &sb));
  CHECK(sa == sb && sa <= 4096, "%s: packed sizes %d and %d", what, sa, sb);
  OK(MPI_Pack(data, 1, a, pa, sizeof pa, &na, MPI_COMM_SELF));
  OK(MPI_Pack(data, 1, b, pb, sizeof pb, &nb, MPI_COMM_SELF));
  CHECK(na == nb && memcmp(pa, pb, (size_t)na) == 0, "%s: the _c type packs other bytes", what);
  OK(MPI_Type_free(&a));
  OK(MPI_Type_free(&b));
}

static void sizes(void) {
  const MPI_Count big = ((MPI_Count)1 << 31) + 5;
  MPI_Datatype t;
  OK(MPI_Type_contiguous_c(big, MPI_BYTE, &t));
  OK(MPI_Type_commit(&t));
  MPI_Count n, lb, extent;
  int small;
  OK(MPI_Type_size_c(t, &n));
  CHECK(n == big, "MPI_Type_size_c gave %lld", (long long)n);
  OK(MPI_Type_size(t, &small));
  CHECK(small == MPI_UNDEFINED, "MPI_Type_size of 2^31 + 5 bytes gave %d", small);
  OK(MPI_Type_get_extent_c(t, &lb, &extent));
  CHECK(lb == 0 && extent == big, "MPI_Type_get_extent_c: %lld, %lld", (long long)lb, (long long)extent);
  /* Its constructor's count does not fit MPI_Type_get_contents' ints: refused, nothing
   * written. */
  int ni, na, nd, combiner, ints[1] = {-7};
  MPI_Aint addrs[1];
  MPI_Datatype inner[1] = {MPI_DATATYPE_NULL};
  OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_CONTIGUOUS && ni == 1 && nd == 1, "envelope %d %d %d %d", ni, na, nd, combiner);
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_get_contents(t, 1, 0, 1, ints, addrs, inner));
  CHECK(ints[0] == -7 && inner[0] == MPI_DATATYPE_NULL, "a refused MPI_Type_get_contents wrote %d", ints[0]);
  OK(MPI_Pack_size_c(3, t, MPI_COMM_WORLD, &n));
  CHECK(n == 3 * big, "MPI_Pack_size_c gave %lld", (long long)n);
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Pack_size(3, t, MPI_COMM_WORLD, &small));
  OK(MPI_Type_free(&t));

  MPI_Datatype v;
  const MPI_Count stride = (MPI_Count)3 << 30;
  OK(MPI_Type_vector_c(2, 1, stride, MPI_CHAR, &v));
  OK(MPI_Type_get_extent_c(v, &lb, &extent));
  CHECK(extent == stride + 1, "vector extent %lld", (long long)extent);
  OK(MPI_Type_get_true_extent_c(v, &lb, &extent));
  CHECK(lb == 0 && extent == stride + 1, "vector true extent %lld", (long long)extent);
  OK(MPI_Type_free(&v));

  MPI_Status st;
  const MPI_Count elements = ((MPI_Count)1 << 31) + 3;
  OK(MPI_Status_set_elements_c(&st, MPI_INT, elements));
  OK(MPI_Get_count_c(&st, MPI_INT, &n));
  CHECK(n == elements, "MPI_Get_count_c gave %lld", (long long)n);
  OK(MPI_Get_elements_c(&st, MPI_INT, &n));
  CHECK(n == elements, "MPI_Get_elements_c gave %lld", (long long)n);
  OK(MPI_Get_count(&st, MPI_INT, &small));
  CHECK(small == MPI_UNDEFINED, "MPI_Get_count of 2^31 + 3 ints gave %d", small);
}

static void point_to_point(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  enum { N = 300 };
  int out[N], in[N];
  for (int i = 0; i < N; ++i) out[i] = rank * 1000 + i;
  const MPI_Count n = N;
#define EXPECT_FROM_PREV(what)                                                                    \
  for (int i = 0; i < N; ++i) CHECK(in[i] == prev * 1000 + i, "%s: in[%d] = %d", what, i, in[i])
  MPI_Request r[2];
  MPI_Status st;
  MPI_Count got;

  memset(in, 0, sizeof in);
  OK(MPI_Irecv_c(in, n, MPI_INT, prev, 1, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Send_c(out, n, MPI_INT, next, 1, MPI_COMM_WORLD));
  OK(MPI_Wait(&r[0], &st));
  OK(MPI_Get_count_c(&st, MPI_INT, &got));
  CHECK(got == n, "MPI_Get_count_c after MPI_Send_c: %lld", (long long)got);
  EXPECT_FROM_PREV("MPI_Send_c");

  memset(in, 0, sizeof in);
  OK(MPI_Irecv_c(in, n, MPI_INT, prev, 2, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Issend_c(out, n, MPI_INT, next, 2, MPI_COMM_WORLD, &r[1]));
  OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  EXPECT_FROM_PREV("MPI_Issend_c");

  memset(in, 0, sizeof in);
  OK(MPI_Isend_c(out, n, MPI_INT, next, 3, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Recv_c(in, n, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  EXPECT_FROM_PREV("MPI_Isend_c / MPI_Recv_c");

  memset(in, 0, sizeof in);
  OK(MPI_Sendrecv_c(out, n, MPI_INT, next, 4, in, n, MPI_INT, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  EXPECT_FROM_PREV("MPI_Sendrecv_c");

  memcpy(in, out, sizeof in);
  OK(MPI_Sendrecv_replace_c(in, n, MPI_INT, next, 5, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  EXPECT_FROM_PREV("MPI_Sendrecv_replace_c");

  memset(in, 0, sizeof in);
  OK(MPI_Isendrecv_c(out, n, MPI_INT, next, 6, in, n, MPI_INT, prev, 6, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  EXPECT_FROM_PREV("MPI_Isendrecv_c");

  memcpy(in, out, sizeof in);
  OK(MPI_Isendrecv_replace_c(in, n, MPI_INT, next, 7, prev, 7, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  EXPECT_FROM_PREV("MPI_Isendrecv_replace_c");

  /* Synchronous, ready (the receive is posted before a barrier) and buffered sends. */
  memset(in, 0, sizeof in);
  OK(MPI_Irecv_c(in, n, MPI_INT, prev, 8, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_Rsend_c(out, n, MPI_INT, next, 8, MPI_COMM_WORLD));
  OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  EXPECT_FROM_PREV("MPI_Rsend_c");
  memset(in, 0, sizeof in);
  OK(MPI_Irecv_c(in, n, MPI_INT, prev, 9, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_Irsend_c(out, n, MPI_INT, next, 9, MPI_COMM_WORLD, &r[1]));
  OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  EXPECT_FROM_PREV("MPI_Irsend_c");
  memset(in, 0, sizeof in);
  OK(MPI_Irecv_c(in, n, MPI_INT, prev, 10, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Ssend_c(out, n, MPI_INT, next, 10, MPI_COMM_WORLD));
  OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  EXPECT_FROM_PREV("MPI_Ssend_c");

  const MPI_Count room = 2 * (n * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD);
  char* attached = malloc((size_t)room);
  OK(MPI_Buffer_attach_c(attached, room));
  memset(in, 0, sizeof in);
  OK(MPI_Bsend_c(out, n, MPI_INT, next, 11, MPI_COMM_WORLD));
  OK(MPI_Recv_c(in, n, MPI_INT, prev, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  EXPECT_FROM_PREV("MPI_Bsend_c");
  memset(in, 0, sizeof in);
  OK(MPI_Ibsend_c(out, n, MPI_INT, next, 12, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Recv_c(in, n, MPI_INT, prev, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  EXPECT_FROM_PREV("MPI_Ibsend_c");
  void* back;
  MPI_Count back_size;
  OK(MPI_Buffer_detach_c(&back, &back_size));
  CHECK(back == attached && back_size == room, "MPI_Buffer_detach_c gave %p, %lld", back, (long long)back_size);
  free(attached);

  /* Matched probes. */
  MPI_Message m;
  memset(in, 0, sizeof in);
  OK(MPI_Isend_c(out, n, MPI_INT, next, 13, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Mprobe(prev, 13, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
  OK(MPI_Mrecv_c(in, n, MPI_INT, &m, MPI_STATUS_IGNORE));
  OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  EXPECT_FROM_PREV("MPI_Mrecv_c");
  memset(in, 0, sizeof in);
  OK(MPI_Isend_c(out, n, MPI_INT, next, 14, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Mprobe(prev, 14, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
  OK(MPI_Imrecv_c(in, n, MPI_INT, &m, &r[1]));
  OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  EXPECT_FROM_PREV("MPI_Imrecv_c");

  /* Persistent requests, each started twice. */
  MPI_Request p[2];
  int (*const sends[])(const void*, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Request*) = {
      MPI_Send_init_c, MPI_Ssend_init_c, MPI_Rsend_init_c};
  for (int k = 0; k < 3; ++k) {
    OK(MPI_Recv_init_c(in, n, MPI_INT, prev, 20 + k, MPI_COMM_WORLD, &p[0]));
    OK(sends[k](out, n, MPI_INT, next, 20 + k, MPI_COMM_WORLD, &p[1]));
    for (int round = 0; round < 2; ++round) {
      memset(in, 0, sizeof in);
      OK(MPI_Start(&p[0]));
      OK(MPI_Barrier(MPI_COMM_WORLD)); /* the ready send needs its receive posted */
      OK(MPI_Start(&p[1]));
      OK(MPI_Waitall(2, p, MPI_STATUSES_IGNORE));
      EXPECT_FROM_PREV("a persistent _c send");
    }
    OK(MPI_Request_free(&p[0]));
    OK(MPI_Request_free(&p[1]));
  }
  attached = malloc((size_t)room);
  OK(MPI_Buffer_attach(attached, (int)room));
  OK(MPI_Bsend_init_c(out, n, MPI_INT, next, 30, MPI_COMM_WORLD, &p[1]));
  memset(in, 0, sizeof in);
  OK(MPI_Start(&p[1]));
  OK(MPI_Recv_c(in, n, MPI_INT, prev, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Wait(&p[1], MPI_STATUS_IGNORE));
  EXPECT_FROM_PREV("MPI_Bsend_init_c");
  OK(MPI_Request_free(&p[1]));
  int detached_size;
  OK(MPI_Buffer_detach(&back, &detached_size));
  free(attached);
#undef EXPECT_FROM_PREV
}

static void collectives(void) {
  enum { K = 5 };
  /* K per rank, and at least 2 K for the two neighbours of a ring. */
  const int room = K * (size + 2);
  int* a = malloc(sizeof(int) * (size_t)room);
  int* c = malloc(sizeof(int) * (size_t)room);
  int* d = malloc(sizeof(int) * (size_t)room);
  MPI_Count* counts = malloc(sizeof(MPI_Count) * (size_t)size);
  MPI_Aint* displs = malloc(sizeof(MPI_Aint) * (size_t)size);
  int* icounts = malloc(sizeof(int) * (size_t)size);
  int* idispls = malloc(sizeof(int) * (size_t)size);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * (size_t)size);
  for (int r = 0; r < size; ++r) {
    counts[r] = icounts[r] = 1 + r % K;
    displs[r] = idispls[r] = K * r;
    types[r] = MPI_INT;
  }
  const int root = size - 1;
  for (int i = 0; i < room; ++i) a[i] = rank * 100 + i;
#define SAME(what, n)                                                                        \
  for (int i = 0; i < (n); ++i) CHECK(c[i] == d[i], "%s: [%d] = %d, the int form %d", what, i, c[i], d[i])
#define CLEAR() (memset(c, 0, sizeof(int) * (size_t)room), memset(d, 0, sizeof(int) * (size_t)room))

  CLEAR();
  memcpy(c, a, sizeof(int) * K);
  memcpy(d, a, sizeof(int) * K);
  OK(MPI_Bcast_c(c, K, MPI_INT, root, MPI_COMM_WORLD));
  OK(MPI_Bcast(d, K, MPI_INT, root, MPI_COMM_WORLD));
  SAME("MPI_Bcast_c", K);
  CLEAR();
  OK(MPI_Reduce_c(a, c, K, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
  OK(MPI_Reduce(a, d, K, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
  SAME("MPI_Reduce_c", K);
  CLEAR();
  OK(MPI_Allreduce_c(a, c, K, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  OK(MPI_Allreduce(a, d, K, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  SAME("MPI_Allreduce_c", K);
  CLEAR();
  OK(MPI_Gather_c(a, K, MPI_INT, c, K, MPI_INT, root, MPI_COMM_WORLD));
  OK(MPI_Gather(a, K, MPI_INT, d, K, MPI_INT, root, MPI_COMM_WORLD));
  SAME("MPI_Gather_c", K * size);
  CLEAR();
  OK(MPI_Scatter_c(a, K, MPI_INT, c, K, MPI_INT, root, MPI_COMM_WORLD));
  OK(MPI_Scatter(a, K, MPI_INT, d, K, MPI_INT, root, MPI_COMM_WORLD));
  SAME("MPI_Scatter_c", K);
  CLEAR();
  OK(MPI_Allgather_c(a, K, MPI_INT, c, K, MPI_INT, MPI_COMM_WORLD));
  OK(MPI_Allgather(a, K, MPI_INT, d, K, MPI_INT, MPI_COMM_WORLD));
  SAME("MPI_Allgather_c", K * size);
  CLEAR();
  OK(MPI_Alltoall_c(a, K, MPI_INT, c, K, MPI_INT, MPI_COMM_WORLD));
  OK(MPI_Alltoall(a, K, MPI_INT, d, K, MPI_INT, MPI_COMM_WORLD));
  SAME("MPI_Alltoall_c", K * size);
  const int mine = 1 + rank % K;
  CLEAR();
  OK(MPI_Gatherv_c(a, mine, MPI_INT, c, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
  OK(MPI_Gatherv(a, mine, MPI_INT, d, icounts, idispls, MPI_INT, root, MPI_COMM_WORLD));
  SAME("MPI_Gatherv_c", K * size);
  CLEAR();
  OK(MPI_Scatterv_c(a, counts, displs, MPI_INT, c, mine, MPI_INT, root, MPI_COMM_WORLD));
  OK(MPI_Scatterv(a, icounts, idispls, MPI_INT, d, mine, MPI_INT, root, MPI_COMM_WORLD));
  SAME("MPI_Scatterv_c", K);
  CLEAR();
  OK(MPI_Allgatherv_c(a, mine, MPI_INT, c, counts, displs, MPI_INT, MPI_COMM_WORLD));
  OK(MPI_Allgatherv(a, mine, MPI_INT, d, icounts, idispls, MPI_INT, MPI_COMM_WORLD));
  SAME("MPI_Allgatherv_c", K * size);
  CLEAR();
  /* Alltoallv: rank r sends counts[r] to everyone... the same counts both ways. */
  MPI_Count* same = malloc(sizeof(MPI_Count) * (size_t)size);
  int* isame = malloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; ++r) same[r] = isame[r] = 2;
  OK(MPI_Alltoallv_c(a, same, displs, MPI_INT, c, same, displs, MPI_INT, MPI_COMM_WORLD));
  OK(MPI_Alltoallv(a, isame, idispls, MPI_INT, d, isame, idispls, MPI_INT, MPI_COMM_WORLD));
  SAME("MPI_Alltoallv_c", K * size);
  CLEAR();
  MPI_Aint* bytes = malloc(sizeof(MPI_Aint) * (size_t)size);
  int* ibytes = malloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; ++r) bytes[r] = ibytes[r] = (int)sizeof(int) * K * r;
  OK(MPI_Alltoallw_c(a, same, bytes, types, c, same, bytes, types, MPI_COMM_WORLD));
  OK(MPI_Alltoallw(a, isame, ibytes, types, d, isame, ibytes, types, MPI_COMM_WORLD));
  SAME("MPI_Alltoallw_c", K * size);
  CLEAR();
  OK(MPI_Reduce_scatter_c(a, c, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  OK(MPI_Reduce_scatter(a, d, icounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  SAME("MPI_Reduce_scatter_c", mine);
  CLEAR();
  OK(MPI_Reduce_scatter_block_c(a, c, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  OK(MPI_Reduce_scatter_block(a, d, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  SAME("MPI_Reduce_scatter_block_c", 2);
  CLEAR();
  OK(MPI_Scan_c(a, c, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  OK(MPI_Scan(a, d, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  SAME("MPI_Scan_c", K);
  CLEAR();
  OK(MPI_Exscan_c(a, c, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  OK(MPI_Exscan(a, d, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (rank > 0) SAME("MPI_Exscan_c", K);

  /* Nonblocking and persistent forms. */
  MPI_Request r;
  CLEAR();
  OK(MPI_Iallreduce_c(a, c, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
  OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  OK(MPI_Allreduce(a, d, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  SAME("MPI_Iallreduce_c", K);
  CLEAR();
  OK(MPI_Ialltoallv_c(a, same, displs, MPI_INT, c, same, displs, MPI_INT, MPI_COMM_WORLD, &r));
  OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  OK(MPI_Alltoallv(a, isame, idispls, MPI_INT, d, isame, idispls, MPI_INT, MPI_COMM_WORLD));
  SAME("MPI_Ialltoallv_c", K * size);
  CLEAR();
  OK(MPI_Igatherv_c(a, mine, MPI_INT, c, counts, displs, MPI_INT, root, MPI_COMM_WORLD, &r));
  OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  OK(MPI_Gatherv(a, mine, MPI_INT, d, icounts, idispls, MPI_INT, root, MPI_COMM_WORLD));
  SAME("MPI_Igatherv_c", K * size);
  CLEAR();
  OK(MPI_Allgatherv_init_c(a, mine, MPI_INT, c, counts, displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  OK(MPI_Allgatherv(a, mine, MPI_INT, d, icounts, idispls, MPI_INT, MPI_COMM_WORLD));
  for (int round = 0; round < 2; ++round) {
    memset(c, 0, sizeof(int) * (size_t)room);
    OK(MPI_Start(&r));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    SAME("MPI_Allgatherv_init_c", K * size);
  }
  OK(MPI_Request_free(&r));
  CLEAR();
  OK(MPI_Bcast_init_c(c, K, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  if (rank == 0) memcpy(c, a, sizeof(int) * K);
  memcpy(d, a, sizeof(int) * K);
  OK(MPI_Bcast(d, K, MPI_INT, 0, MPI_COMM_WORLD));
  OK(MPI_Start(&r));
  OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  SAME("MPI_Bcast_init_c", K);
  OK(MPI_Request_free(&r));

  /* Neighbourhood collectives on a periodic ring. */
  MPI_Comm ring;
  const int periodic = 1;
  OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &ring));
  const MPI_Count two[2] = {K, K};
  const int itwo[2] = {K, K};
  const MPI_Aint at[2] = {0, K};
  const int iat[2] = {0, K};
  const MPI_Aint bat[2] = {0, (MPI_Aint)sizeof(int) * K};
  const MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
  CLEAR();
  OK(MPI_Neighbor_allgather_c(a, K, MPI_INT, c, K, MPI_INT, ring));
  OK(MPI_Neighbor_allgather(a, K, MPI_INT, d, K, MPI_INT, ring));
  SAME("MPI_Neighbor_allgather_c", 2 * K);
  CLEAR();
  OK(MPI_Neighbor_allgatherv_c(a, K, MPI_INT, c, two, at, MPI_INT, ring));
  OK(MPI_Neighbor_allgatherv(a, K, MPI_INT, d, itwo, iat, MPI_INT, ring));
  SAME("MPI_Neighbor_allgatherv_c", 2 * K);
  CLEAR();
  OK(MPI_Neighbor_alltoall_c(a, K, MPI_INT, c, K, MPI_INT, ring));
  OK(MPI_Neighbor_alltoall(a, K, MPI_INT, d, K, MPI_INT, ring));
  SAME("MPI_Neighbor_alltoall_c", 2 * K);
  CLEAR();
  OK(MPI_Neighbor_alltoallv_c(a, two, at, MPI_INT, c, two, at, MPI_INT, ring));
  OK(MPI_Neighbor_alltoallv(a, itwo, iat, MPI_INT, d, itwo, iat, MPI_INT, ring));
  SAME("MPI_Neighbor_alltoallv_c", 2 * K);
  CLEAR();
  OK(MPI_Neighbor_alltoallw_c(a, two, bat, ints, c, two, bat, ints, ring));
  OK(MPI_Neighbor_alltoallw(a, itwo, bat, ints, d, itwo, bat, ints, ring));
  SAME("MPI_Neighbor_alltoallw_c", 2 * K);
  CLEAR();
  OK(MPI_Ineighbor_alltoallv_c(a, two, at, MPI_INT, c, two, at, MPI_INT, ring, &r));
  OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  OK(MPI_Neighbor_alltoallv(a, itwo, iat, MPI_INT, d, itwo, iat, MPI_INT, ring));
  SAME("MPI_Ineighbor_alltoallv_c", 2 * K);
  OK(MPI_Comm_free(&ring));

  /* MPI_Op_create_c: one call with the whole count. */
  MPI_Op op;
  OK(MPI_Op_create_c(sum_c, 1, &op));
  CLEAR();
  calls = 0;
  OK(MPI_Allreduce_c(a, c, K * size, MPI_INT, op, MPI_COMM_WORLD));
  OK(MPI_Allreduce(a, d, K * size, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  SAME("MPI_Op_create_c's op", K * size);
  /* Not every rank reduces (recursive doubling folds the extra ranks in first), but
   * those that do get the whole vector at once. */
  CHECK(calls == 0 || last_len == K * size, "the _c op was called with %lld elements, not %d", (long long)last_len,
        K * size);
  int all_calls = 0;
  OK(MPI_Allreduce(&calls, &all_calls, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(size == 1 || all_calls >= 1, "the _c op was never called");
  memcpy(c, a, sizeof(int) * K);
  calls = 0;
  OK(MPI_Reduce_local_c(a, c, K, MPI_INT, op));
  for (int i = 0; i < K; ++i) CHECK(c[i] == 2 * a[i], "MPI_Reduce_local_c: [%d] = %d", i, c[i]);
  CHECK(calls == 1 && last_len == K, "MPI_Reduce_local_c: %d calls, last with %lld", calls, (long long)last_len);
  int commute;
  OK(MPI_Op_commutative(op, &commute));
  CHECK(commute == 1, "MPI_Op_create_c's op is not commutative");
  OK(MPI_Op_free(&op));

  /* Errors (MPI_COMM_WORLD's handler is MPI_ERRORS_RETURN). */
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Send_c(a, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Bcast_c(a, -2, MPI_INT, 0, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Type_contiguous_c(-1, MPI_INT, &types[0]));
  counts[0] = -1;
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Allgatherv_c(a, mine, MPI_INT, c, counts, displs, MPI_INT, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Allgatherv_c(a, mine, MPI_INT, c, NULL, displs, MPI_INT, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Op_create_c(NULL, 1, &op));
#undef SAME
#undef CLEAR
  free(a), free(c), free(d), free(counts), free(displs), free(icounts), free(idispls), free(types);
  free(same), free(isame), free(bytes), free(ibytes);
}

static void datatypes(void) {
  double data[64];
  for (int i = 0; i < 64; ++i) data[i] = i * 1.5;
  MPI_Datatype a, b;
  OK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &a));
  OK(MPI_Type_vector_c(3, 2, 5, MPI_DOUBLE, &b));
  same_bytes(a, b, data, "vector");
  OK(MPI_Type_create_hvector(3, 2, 40, MPI_DOUBLE, &a));
  OK(MPI_Type_create_hvector_c(3, 2, 40, MPI_DOUBLE, &b));
  same_bytes(a, b, data, "hvector");
  const int il[3] = {1, 3, 2}, id[3] = {0, 7, 20};
  const MPI_Count cl[3] = {1, 3, 2}, cd[3] = {0, 7, 20};
  const MPI_Aint ad[3] = {0, 56, 160};
  const MPI_Count cad[3] = {0, 56, 160};
  OK(MPI_Type_indexed(3, il, id, MPI_DOUBLE, &a));
  OK(MPI_Type_indexed_c(3, cl, cd, MPI_DOUBLE, &b));
  same_bytes(a, b, data, "indexed");
  OK(MPI_Type_create_hindexed(3, il, ad, MPI_DOUBLE, &a));
  OK(MPI_Type_create_hindexed_c(3, cl, cad, MPI_DOUBLE, &b));
  same_bytes(a, b, data, "hindexed");
  OK(MPI_Type_create_indexed_block(3, 2, id, MPI_DOUBLE, &a));
  OK(MPI_Type_create_indexed_block_c(3, 2, cd, MPI_DOUBLE, &b));
  same_bytes(a, b, data, "indexed_block");
  OK(MPI_Type_create_hindexed_block(3, 2, ad, MPI_DOUBLE, &a));
  OK(MPI_Type_create_hindexed_block_c(3, 2, cad, MPI_DOUBLE, &b));
  same_bytes(a, b, data, "hindexed_block");
  const MPI_Datatype st[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
  OK(MPI_Type_create_struct(3, il, ad, st, &a));
  OK(MPI_Type_create_struct_c(3, cl, cad, st, &b));
  same_bytes(a, b, data, "struct");
  const int isz[2] = {8, 8}, isub[2] = {3, 2}, istart[2] = {1, 4};
  const MPI_Count csz[2] = {8, 8}, csub[2] = {3, 2}, cstart[2] = {1, 4};
  OK(MPI_Type_create_subarray(2, isz, isub, istart, MPI_ORDER_C, MPI_DOUBLE, &a));
  OK(MPI_Type_create_subarray_c(2, csz, csub, cstart, MPI_ORDER_C, MPI_DOUBLE, &b));
  same_bytes(a, b, data, "subarray");
  const int dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
  const int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 2};
  OK(MPI_Type_create_darray(4, 3, 2, isz, dist, dargs, psizes, MPI_ORDER_C, MPI_DOUBLE, &a));
  OK(MPI_Type_create_darray_c(4, 3, 2, csz, dist, dargs, psizes, MPI_ORDER_C, MPI_DOUBLE, &b));
  same_bytes(a, b, data, "darray");
  MPI_Datatype base;
  OK(MPI_Type_contiguous(2, MPI_DOUBLE, &base));
  OK(MPI_Type_create_resized(base, 8, 40, &a));
  OK(MPI_Type_create_resized_c(base, 8, 40, &b));
  MPI_Count lb, extent;
  OK(MPI_Type_get_extent_c(b, &lb, &extent));
  CHECK(lb == 8 && extent == 40, "MPI_Type_create_resized_c: lb %lld, extent %lld", (long long)lb,
        (long long)extent);
  same_bytes(a, b, data, "resized");
  OK(MPI_Type_free(&base));
  OK(MPI_Type_contiguous(7, MPI_DOUBLE, &a));
  OK(MPI_Type_contiguous_c(7, MPI_DOUBLE, &b));
  same_bytes(a, b, data, "contiguous");

  /* MPI_Pack_c / MPI_Unpack_c and the external32 forms. */
  char packed[1024];
  double back[16];
  MPI_Count position = 0, needed;
  OK(MPI_Pack_c(data, 10, MPI_DOUBLE, packed, sizeof packed, &position, MPI_COMM_WORLD));
  CHECK(position == 80, "MPI_Pack_c position %lld", (long long)position);
  position = 0;
  OK(MPI_Unpack_c(packed, 80, &position, back, 10, MPI_DOUBLE, MPI_COMM_WORLD));
  CHECK(position == 80 && memcmp(back, data, 80) == 0, "MPI_Unpack_c position %lld", (long long)position);
  OK(MPI_Pack_external_size_c("external32", 10, MPI_DOUBLE, &needed));
  CHECK(needed == 80, "MPI_Pack_external_size_c gave %lld", (long long)needed);
  position = 0;
  OK(MPI_Pack_external_c("external32", data, 10, MPI_DOUBLE, packed, sizeof packed, &position));
  CHECK(position == 80, "MPI_Pack_external_c position %lld", (long long)position);
  memset(back, 0, sizeof back);
  position = 0;
  OK(MPI_Unpack_external_c("external32", packed, 80, &position, back, 10, MPI_DOUBLE));
  CHECK(position == 80 && memcmp(back, data, 80) == 0, "MPI_Unpack_external_c position %lld", (long long)position);
}

/* MPI_Type_get_envelope_c / MPI_Type_get_contents_c: a _c constructor's MPI_Count
 * arguments come back as large counts, an int constructor's as integers. */
static void expect_contents(MPI_Datatype t, int combiner, int ni, const int* ints, int nc, const MPI_Count* larges,
                            const char* what) {
  MPI_Count n_int, n_addr, n_large, n_type;
  int got_combiner, got_ints[16];
  MPI_Aint addrs[16];
  MPI_Count got_larges[16];
  MPI_Datatype inner[4];
  OK(MPI_Type_get_envelope_c(t, &n_int, &n_addr, &n_large, &n_type, &got_combiner));
  CHECK(got_combiner == combiner && n_int == ni && n_addr == 0 && n_large == nc && n_type == 1,
        "%s: envelope (%lld, %lld, %lld, %lld, combiner %d)", what, (long long)n_int, (long long)n_addr,
        (long long)n_large, (long long)n_type, got_combiner);
  if (nc > 0) EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_contents_c(t, 16, 16, nc - 1, 4, got_ints, addrs, got_larges,
                                                                 inner));
  OK(MPI_Type_get_contents_c(t, 16, 16, 16, 4, got_ints, addrs, got_larges, inner));
  for (int i = 0; i < ni; ++i) CHECK(got_ints[i] == ints[i], "%s: integer %d is %d", what, i, got_ints[i]);
  for (int i = 0; i < nc; ++i)
    CHECK(got_larges[i] == larges[i], "%s: large count %d is %lld", what, i, (long long)got_larges[i]);
  int a, b, c, inner_combiner; /* a derived input type's handle is the caller's to free */
  OK(MPI_Type_get_envelope(inner[0], &a, &b, &c, &inner_combiner));
  if (inner_combiner != MPI_COMBINER_NAMED) OK(MPI_Type_free(&inner[0]));
  OK(MPI_Type_free(&t));
}

static void envelopes(void) {
  MPI_Datatype t;
  OK(MPI_Type_vector_c(3, 2, 5, MPI_DOUBLE, &t));
  expect_contents(t, MPI_COMBINER_VECTOR, 0, NULL, 3, (const MPI_Count[]){3, 2, 5}, "vector_c");
  OK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &t));
  expect_contents(t, MPI_COMBINER_VECTOR, 3, (const int[]){3, 2, 5}, 0, NULL, "vector");
  OK(MPI_Type_create_hindexed_c(3, (const MPI_Count[]){1, 3, 2}, (const MPI_Count[]){0, 56, 160}, MPI_DOUBLE, &t));
  expect_contents(t, MPI_COMBINER_HINDEXED, 0, NULL, 7, (const MPI_Count[]){3, 1, 3, 2, 0, 56, 160}, "hindexed_c");
  OK(MPI_Type_create_subarray_c(2, (const MPI_Count[]){8, 8}, (const MPI_Count[]){3, 2}, (const MPI_Count[]){1, 4},
                                MPI_ORDER_C, MPI_DOUBLE, &t));
  expect_contents(t, MPI_COMBINER_SUBARRAY, 2, (const int[]){2, MPI_ORDER_C}, 6,
                  (const MPI_Count[]){8, 8, 3, 2, 1, 4}, "subarray_c");
  OK(MPI_Type_create_darray_c(4, 3, 2, (const MPI_Count[]){8, 8},
                              (const int[]){MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
                              (const int[]){MPI_DISTRIBUTE_DFLT_DARG, 2}, (const int[]){2, 2}, MPI_ORDER_C, MPI_DOUBLE,
                              &t));
  expect_contents(t, MPI_COMBINER_DARRAY, 10,
                  (const int[]){4, 3, 2, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 2, 2,
                                2, MPI_ORDER_C},
                  2, (const MPI_Count[]){8, 8}, "darray_c");
  OK(MPI_Type_create_resized_c(MPI_INT, 8, 40, &t));
  expect_contents(t, MPI_COMBINER_RESIZED, 0, NULL, 2, (const MPI_Count[]){8, 40}, "resized_c");
  const MPI_Count big = ((MPI_Count)1 << 31) + 5;
  OK(MPI_Type_contiguous_c(big, MPI_BYTE, &t));
  expect_contents(t, MPI_COMBINER_CONTIGUOUS, 0, NULL, 1, &big, "contiguous_c of 2^31 + 5");
}

/* 2^31 + 16 bytes in one message, rank 0 to rank 1. */
static void big_message(void) {
  const MPI_Count n = ((MPI_Count)1 << 31) + 16;
  if (rank > 1) return;
  unsigned char* buf = malloc((size_t)n);
  CHECK(buf != NULL, "no memory for %lld bytes", (long long)n);
  if (rank == 0) {
    for (MPI_Count i = 0; i < n; i += 4096) buf[i] = (unsigned char)(i >> 12);
    buf[n - 1] = 0x5a;
    OK(MPI_Send_c(buf, n, MPI_BYTE, 1, 99, MPI_COMM_WORLD));
  } else {
    memset(buf, 0, (size_t)n);
    MPI_Status st;
    OK(MPI_Recv_c(buf, n, MPI_BYTE, 0, 99, MPI_COMM_WORLD, &st));
    MPI_Count got;
    OK(MPI_Get_count_c(&st, MPI_BYTE, &got));
    CHECK(got == n, "MPI_Get_count_c of the big message: %lld", (long long)got);
    for (MPI_Count i = 0; i < n; i += 4096)
      CHECK(buf[i] == (unsigned char)(i >> 12), "big message: byte %lld is %d", (long long)i, buf[i]);
    CHECK(buf[n - 1] == 0x5a, "big message: the last byte is %d", buf[n - 1]);
  }
  free(buf);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int big = argc > 1 && strcmp(argv[1], "big") == 0;
  CHECK(!big || size >= 2, "the big message needs 2 ranks");
  sizes();
  point_to_point();
  collectives();
  datatypes();
  envelopes();
  if (big) big_message();
  MPI_Finalize();
  if (rank == 0) printf("large_count: %d ranks%s ok\n", size, big ? ", 2^31 + 16 bytes in one message," : "");
  return 0;
}
