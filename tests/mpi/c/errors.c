/* Error returns under MPI_ERRORS_RETURN, with the class each argument error must
 * give: invalid rank, tag, count, datatype, communicator, root, op, request, buffer;
 * MPI_Error_string texts; nothing is sent by a failed call (the final exchange still
 * matches). */
#include <string.h>

#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Errhandler eh;
  OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "default error handler is not MPI_ERRORS_ARE_FATAL");
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int v[4] = {1, 2, 3, 4};
  MPI_Request req;
  MPI_Status st;

  EXPECT_CLASS(MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, size, 0, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Recv(v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Isend(v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req));
  EXPECT_CLASS(MPI_ERR_TAG, MPI_Send(v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_TAG, MPI_Irecv(v, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &req));
  int* tag_ub;
  int flag;
  OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  if (*tag_ub < 0x7fffffff) EXPECT_CLASS(MPI_ERR_TAG, MPI_Send(v, 1, MPI_INT, 0, *tag_ub + 1, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Send(v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Recv(v, -3, MPI_INT, 0, 0, MPI_COMM_WORLD, &st));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Send(v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Send(v, 1, (MPI_Datatype)12345, 0, 0, MPI_COMM_WORLD));
  MPI_Datatype uncommitted, freed;
  OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Send(v, 1, uncommitted, 0, 0, MPI_COMM_WORLD));
  OK(MPI_Type_contiguous(2, MPI_INT, &freed));
  OK(MPI_Type_commit(&freed));
  MPI_Datatype stale = freed;
  OK(MPI_Type_free(&freed));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Send(v, 1, stale, 0, 0, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Send(v, 1, MPI_INT, 0, 0, (MPI_Comm)777));
  MPI_Comm dup, stale_comm;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  stale_comm = dup;
  OK(MPI_Comm_free(&dup));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Send(v, 1, MPI_INT, 0, 0, stale_comm));
  MPI_Comm world = MPI_COMM_WORLD;
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_free(&world));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Send(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_ROOT, MPI_Bcast(v, 1, MPI_INT, size, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_ROOT, MPI_Bcast(v, 1, MPI_INT, MPI_ROOT, MPI_COMM_WORLD)); /* an intercommunicator root */
  EXPECT_CLASS(MPI_ERR_OP, MPI_Allreduce(v, v + 2, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
  float f = 1, g;
  EXPECT_CLASS(MPI_ERR_OP, MPI_Allreduce(&f, &g, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Wait((MPI_Request[]){(MPI_Request)4242}, &st));
  req = MPI_REQUEST_NULL;
  OK(MPI_Wait(&req, &st)); /* a null request completes at once */
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_split(MPI_COMM_WORLD, -3, 0, &dup));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)99));

  char text[MPI_MAX_ERROR_STRING];
  int len, cls;
  OK(MPI_Error_string(MPI_ERR_RANK, text, &len));
  CHECK(strcmp(text, "Invalid rank") == 0 && len == 12, "MPI_ERR_RANK text '%s'", text);
  OK(MPI_Error_class(MPI_ERR_TAG, &cls));
  CHECK(cls == MPI_ERR_TAG, "class of MPI_ERR_TAG %d", cls);
  /* Values that are no error code (Open MPI: MPI_ERR_ARG); MPI_ERR_LASTCODE is a bound. */
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Error_class(9999, &cls));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Error_class(-1, &cls));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Error_class(MPI_ERR_LASTCODE, &cls));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Error_string(9999, text, &len));
  OK(MPI_Error_class(MPI_ERR_UNKNOWN, &cls));
  CHECK(cls == MPI_ERR_UNKNOWN, "class of MPI_ERR_UNKNOWN %d", cls);

  /* Nothing above sent anything: a real exchange still pairs up. */
  if (size >= 2 && rank < 2) {
    int got = -1, mine = 100 + rank;
    OK(MPI_Sendrecv(&mine, 1, MPI_INT, 1 - rank, 0, &got, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &st));
    CHECK(got == 101 - rank && st.MPI_SOURCE == 1 - rank, "exchange got %d", got);
    int extra;
    OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a failed call left a message from %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    (void)extra;
  }
  OK(MPI_Type_free(&uncommitted));
  MPI_Finalize();
  return 0;
}
