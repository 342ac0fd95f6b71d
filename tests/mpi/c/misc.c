/* Small calls.
 *  - MPI_Query_thread: MPI_THREAD_SINGLE after MPI_Init; with the argument `thread`
 *    the program starts with MPI_Init_thread(MPI_THREAD_MULTIPLE) and must be told
 *    MPI_THREAD_FUNNELED, the most this library provides, by both calls;
 *    MPI_Is_thread_main says yes to main.
 *  - The calls that complete one request leave a status' MPI_ERROR as it was
 *    (MPI-3.1 §3.2.5); MPI_Waitall sets it.
 *  - The handle conversions (MPI_<Handle>_c2f / _f2c) give the handle back, and
 *    MPI_Status_c2f / _f2c carry a status whole.
 *  - MPI_Get_elements / MPI_Get_elements_x against MPI_Get_count on real messages:
 *    the MPI standard's example (3 doubles received as pairs of doubles: count
 *    MPI_UNDEFINED, 3 elements), a struct {int; double[2]; char} received whole and
 *    cut short, MPI_2INT and MPI_DOUBLE_INT pairs, a message that ends inside a basic
 *    element (MPI_UNDEFINED), an empty message, MPI_PROC_NULL.
 *  - MPI_Alloc_mem / MPI_Free_mem: alignment, a block of size 0, blocks used as the
 *    buffers of a rendezvous-sized message both ways, and the errors (negative size,
 *    an info handle that is no info object (info.c passes real ones), null baseptr,
 *    freeing what MPI_Alloc_mem did not give or gave already).
 * Needs 2 ranks (more just wait at the final barrier). */
#include <stdint.h>
#include <string.h>

#include "mpitest.h"

struct item {
  int a;
  double b[2];
  char c;
};

int main(int argc, char** argv) {
  const int threaded = argc > 1 && strcmp(argv[1], "thread") == 0;
  if (threaded) {
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_FUNNELED, "MPI_Init_thread provided %d", provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(size >= 2, "needs 2 ranks");
  int level = -1;
  OK(MPI_Query_thread(&level));
  CHECK(level == (threaded ? MPI_THREAD_FUNNELED : MPI_THREAD_SINGLE), "MPI_Query_thread gave %d", level);
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Query_thread(NULL));
  int is_main = 0;
  OK(MPI_Is_thread_main(&is_main));
  CHECK(is_main == 1, "MPI_Is_thread_main gave %d in main", is_main);
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Is_thread_main(NULL));

  /* ---- MPI_ERROR is the program's, but for the calls that complete several requests */
  {
    int out = 5, in = 0;
    MPI_Status st;
    MPI_Request r;
    OK(MPI_Send(&out, 1, MPI_INT, 0, 1, MPI_COMM_SELF));
    st.MPI_ERROR = MPI_ERR_DIMS;
    OK(MPI_Probe(0, 1, MPI_COMM_SELF, &st));
    CHECK(st.MPI_ERROR == MPI_ERR_DIMS && st.MPI_TAG == 1, "MPI_Probe: MPI_ERROR %d, tag %d", st.MPI_ERROR, st.MPI_TAG);
    OK(MPI_Recv(&in, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &st));
    CHECK(st.MPI_ERROR == MPI_ERR_DIMS && in == 5, "MPI_Recv: MPI_ERROR %d", st.MPI_ERROR);
    OK(MPI_Isend(&out, 1, MPI_INT, 0, 2, MPI_COMM_SELF, &r));
    st.MPI_ERROR = MPI_ERR_TOPOLOGY;
    OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_ERROR == MPI_ERR_TOPOLOGY, "MPI_Wait: MPI_ERROR %d", st.MPI_ERROR);
    OK(MPI_Irecv(&in, 1, MPI_INT, 0, 2, MPI_COMM_SELF, &r));
    st.MPI_ERROR = MPI_ERR_TOPOLOGY;
    OK(MPI_Waitall(1, &r, &st));
    CHECK(st.MPI_ERROR == MPI_SUCCESS, "MPI_Waitall: MPI_ERROR %d", st.MPI_ERROR);
  }

  /* ---- handle conversions */
  {
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(dup)) == dup && MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD,
          "MPI_Comm_c2f/f2c did not give the handle back");
    int size = -1;
    OK(MPI_Comm_size(MPI_Comm_f2c(MPI_Comm_c2f(dup)), &size));
    OK(MPI_Comm_free(&dup));
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE && MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM &&
              MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL &&
              MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL &&
              MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY &&
              MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL &&
              MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN,
          "a c2f/f2c round trip changed a handle");
    MPI_Status c, back;
    memset(&c, 0, sizeof c);
    c.MPI_SOURCE = 3;
    c.MPI_TAG = 7;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    OK(MPI_Status_c2f(&c, f));
    OK(MPI_Status_f2c(f, &back));
    CHECK(back.MPI_SOURCE == 3 && back.MPI_TAG == 7 && memcmp(&c, &back, sizeof c) == 0,
          "MPI_Status_c2f/f2c changed the status");
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Status_c2f(MPI_STATUS_IGNORE, f));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Status_f2c(f, NULL));
  }

  /* ---- MPI_Get_elements */
  MPI_Datatype two_doubles, item_type;
  OK(MPI_Type_contiguous(2, MPI_DOUBLE, &two_doubles));
  OK(MPI_Type_commit(&two_doubles));
  {
    const int lengths[3] = {1, 2, 1};
    const MPI_Aint displs[3] = {offsetof(struct item, a), offsetof(struct item, b), offsetof(struct item, c)};
    const MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    OK(MPI_Type_create_struct(3, lengths, displs, types, &item_type));
    OK(MPI_Type_commit(&item_type));
  }
  if (rank == 0) {
    const double d[3] = {1, 2, 3};
    struct item items[3];
    memset(items, 0, sizeof items);
    OK(MPI_Send(d, 3, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD));
    OK(MPI_Send(items, 2, item_type, 1, 2, MPI_COMM_WORLD));
    OK(MPI_Send(items, 1, MPI_INT, 1, 3, MPI_COMM_WORLD)); /* the first int of an item */
    OK(MPI_Send(d, 2, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD)); /* a double and a half of ints */
    const int pairs[4] = {1, 2, 3, 4};
    OK(MPI_Send(pairs, 3, MPI_INT, 1, 5, MPI_COMM_WORLD));
    OK(MPI_Send(d, 1, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD));
    OK(MPI_Send(d, 0, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD));
    OK(MPI_Send(d, 3, MPI_BYTE, 1, 8, MPI_COMM_WORLD));
  } else if (rank == 1) {
    MPI_Status st;
    int count, elements;
    MPI_Count elements_x;
    double d[4];
    /* MPI-3.1 §4.1.11 Example 4.12: 3 doubles into pairs of doubles. */
    OK(MPI_Recv(d, 2, two_doubles, 0, 1, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, two_doubles, &count));
    OK(MPI_Get_elements(&st, two_doubles, &elements));
    OK(MPI_Get_elements_x(&st, two_doubles, &elements_x));
    CHECK(count == MPI_UNDEFINED && elements == 3 && elements_x == 3, "3 doubles as pairs: count %d, elements %d/%lld",
          count, elements, (long long)elements_x);
    struct item items[3];
    OK(MPI_Recv(items, 3, item_type, 0, 2, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, item_type, &count));
    OK(MPI_Get_elements(&st, item_type, &elements));
    CHECK(count == 2 && elements == 8, "2 items: count %d, elements %d", count, elements);
    OK(MPI_Recv(items, 3, item_type, 0, 3, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, item_type, &count));
    OK(MPI_Get_elements(&st, item_type, &elements));
    CHECK(count == MPI_UNDEFINED && elements == 1, "an int as items: count %d, elements %d", count, elements);
    OK(MPI_Recv(items, 3, item_type, 0, 4, MPI_COMM_WORLD, &st)); /* 16 bytes: the int, then half a double */
    OK(MPI_Get_elements(&st, item_type, &elements));
    CHECK(elements == MPI_UNDEFINED, "16 bytes as items: elements %d", elements);
    int pairs[4];
    OK(MPI_Recv(pairs, 2, MPI_2INT, 0, 5, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, MPI_2INT, &count));
    OK(MPI_Get_elements(&st, MPI_2INT, &elements));
    CHECK(count == MPI_UNDEFINED && elements == 3, "3 ints as MPI_2INT: count %d, elements %d", count, elements);
    struct {
      double value;
      int index;
    } di[2];
    OK(MPI_Recv(di, 2, MPI_DOUBLE_INT, 0, 6, MPI_COMM_WORLD, &st));
    OK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &elements));
    CHECK(elements == 1, "a double as MPI_DOUBLE_INT: elements %d", elements);
    OK(MPI_Recv(d, 2, two_doubles, 0, 7, MPI_COMM_WORLD, &st));
    OK(MPI_Get_elements(&st, two_doubles, &elements));
    CHECK(elements == 0, "empty message: elements %d", elements);
    OK(MPI_Recv(d, 3, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &st));
    OK(MPI_Get_elements(&st, MPI_DOUBLE, &elements));
    CHECK(elements == MPI_UNDEFINED, "3 bytes as doubles: elements %d", elements);
    OK(MPI_Get_elements(&st, MPI_BYTE, &elements));
    CHECK(elements == 3, "3 bytes as bytes: elements %d", elements);
    OK(MPI_Recv(d, 2, two_doubles, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    OK(MPI_Get_elements(&st, two_doubles, &elements));
    CHECK(elements == 0, "MPI_PROC_NULL: elements %d", elements);
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Get_elements(MPI_STATUS_IGNORE, MPI_INT, &elements));
    EXPECT_CLASS(MPI_ERR_TYPE, MPI_Get_elements(&st, MPI_DATATYPE_NULL, &elements));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Get_elements_x(&st, MPI_INT, NULL));
  }

  /* ---- MPI_Alloc_mem / MPI_Free_mem */
  const int n = 1 << 18; /* 1 MiB of ints: a rendezvous message */
  int *out = NULL, *in = NULL;
  char* small = NULL;
  void* empty = NULL;
  OK(MPI_Alloc_mem((MPI_Aint)n * (MPI_Aint)sizeof(int), MPI_INFO_NULL, &out));
  OK(MPI_Alloc_mem((MPI_Aint)n * (MPI_Aint)sizeof(int), MPI_INFO_NULL, &in));
  OK(MPI_Alloc_mem(10, MPI_INFO_NULL, &small));
  OK(MPI_Alloc_mem(0, MPI_INFO_NULL, &empty));
  CHECK(out != NULL && in != NULL && small != NULL && empty != NULL, "MPI_Alloc_mem gave a null block");
  CHECK((uintptr_t)out % 4096 == 0 && (uintptr_t)in % 4096 == 0, "large blocks not page-aligned");
  CHECK((uintptr_t)small % 64 == 0, "small block not aligned to 64 bytes");
  memset(small, 7, 10);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < n; ++i) out[i] = rank * 1000003 + i + round;
    memset(in, 0, (size_t)n * sizeof(int));
    if (rank < 2) {
      const int peer = 1 - rank;
      OK(MPI_Sendrecv(out, n, MPI_INT, peer, 20 + round, in, n, MPI_INT, peer, 20 + round, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
      for (int i = 0; i < n; ++i)
        if (in[i] != peer * 1000003 + i + round) CHECK(0, "round %d: in[%d] = %d", round, i, in[i]);
    }
  }
  int on_stack = 0;
  void* untouched = &on_stack;
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Alloc_mem(-1, MPI_INFO_NULL, &untouched));
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Alloc_mem(16, (MPI_Info)3, &untouched));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Alloc_mem(16, MPI_INFO_NULL, NULL));
  CHECK(untouched == &on_stack, "a refused MPI_Alloc_mem wrote its baseptr");
  EXPECT_CLASS(MPI_ERR_BASE, MPI_Free_mem(&on_stack));
  EXPECT_CLASS(MPI_ERR_BASE, MPI_Free_mem(small + 1));
  OK(MPI_Free_mem(small));
  EXPECT_CLASS(MPI_ERR_BASE, MPI_Free_mem(small)); /* twice */
  OK(MPI_Free_mem(NULL));
  OK(MPI_Free_mem(empty));
  OK(MPI_Free_mem(in));
  OK(MPI_Free_mem(out));

  OK(MPI_Type_free(&item_type));
  OK(MPI_Type_free(&two_doubles));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  if (rank == 0) printf("misc: %d ranks ok\n", size);
  return 0;
}
