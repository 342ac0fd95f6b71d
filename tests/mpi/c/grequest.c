/* Generalized requests (MPI_Grequest_start, MPI_Grequest_complete) through every
 * wait, test, MPI_Request_get_status, MPI_Cancel and MPI_Request_free, with the
 * callbacks' calls logged and checked in order; callback errors; and the status
 * setters (MPI_Status_set_elements(_x), MPI_Status_set_cancelled) read back by
 * MPI_Get_elements(_x), MPI_Get_count and MPI_Test_cancelled. Each rank works alone;
 * any number of ranks. */
#include <string.h>

#include "mpitest.h"

/* What one generalized request's callbacks saw. */
struct state {
  char log[32]; /* 'q' query, 'f' free, 'c'/'C' cancel with complete 0/1 */
  int n;
  int elements;    /* what query_fn reports */
  int query_rc;    /* what each callback returns */
  int free_rc;
  int cancel_rc;
  int cancelled;   /* set by cancel_fn, reported by query_fn */
};

static void init(struct state* s, int elements) {
  memset(s, 0, sizeof *s);
  s->elements = elements;
}

static int query_fn(void* extra, MPI_Status* status) {
  struct state* s = extra;
  s->log[s->n++] = 'q';
  status->MPI_SOURCE = 1000 + s->elements;
  status->MPI_TAG = 77;
  OK(MPI_Status_set_elements(status, MPI_INT, s->elements));
  OK(MPI_Status_set_cancelled(status, s->cancelled));
  return s->query_rc;
}

static int free_fn(void* extra) {
  struct state* s = extra;
  s->log[s->n++] = 'f';
  return s->free_rc;
}

static int cancel_fn(void* extra, int complete) {
  struct state* s = extra;
  s->log[s->n++] = complete ? 'C' : 'c';
  if (!complete) s->cancelled = 1;
  return s->cancel_rc;
}

static void expect_log(const struct state* s, const char* expected, const char* what) {
  CHECK(s->n == (int)strlen(expected) && memcmp(s->log, expected, s->n) == 0, "%s: callbacks \"%.*s\", expected \"%s\"",
        what, s->n, s->log, expected);
}

static MPI_Request start(struct state* s) {
  MPI_Request r = MPI_REQUEST_NULL;
  OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &r));
  CHECK(r != MPI_REQUEST_NULL, "MPI_Grequest_start gave MPI_REQUEST_NULL");
  return r;
}

static void check_status(const MPI_Status* st, int elements, int cancelled) {
  CHECK(st->MPI_SOURCE == 1000 + elements && st->MPI_TAG == 77, "status source %d tag %d", st->MPI_SOURCE,
        st->MPI_TAG);
  int count = -1, flag = -1;
  OK(MPI_Get_count(st, MPI_INT, &count));
  CHECK(count == elements, "MPI_Get_count gave %d, expected %d", count, elements);
  OK(MPI_Get_elements(st, MPI_INT, &count));
  CHECK(count == elements, "MPI_Get_elements gave %d, expected %d", count, elements);
  OK(MPI_Test_cancelled(st, &flag));
  CHECK(flag == cancelled, "MPI_Test_cancelled gave %d, expected %d", flag, cancelled);
}

/* MPI_Wait and MPI_Test: nothing is called before MPI_Grequest_complete; then query_fn
 * and free_fn, once each, in that order. */
static void wait_and_test(void) {
  struct state s;
  init(&s, 5);
  MPI_Request r = start(&s);
  MPI_Status st;
  int flag = -1;
  for (int i = 0; i < 3; ++i) {
    OK(MPI_Test(&r, &flag, &st));
    CHECK(flag == 0, "MPI_Test of an incomplete generalized request gave flag %d", flag);
  }
  OK(MPI_Request_get_status(r, &flag, &st));
  CHECK(flag == 0, "MPI_Request_get_status gave flag %d before MPI_Grequest_complete", flag);
  expect_log(&s, "", "before MPI_Grequest_complete");
  OK(MPI_Grequest_complete(r));
  expect_log(&s, "", "MPI_Grequest_complete itself");
  OK(MPI_Test(&r, &flag, &st));
  CHECK(flag == 1 && r == MPI_REQUEST_NULL, "MPI_Test after complete: flag %d", flag);
  expect_log(&s, "qf", "MPI_Test");
  check_status(&st, 5, 0);

  init(&s, 6);
  r = start(&s);
  OK(MPI_Grequest_complete(r));
  /* MPI_Request_get_status: query_fn only, and the request stays. */
  OK(MPI_Request_get_status(r, &flag, &st));
  CHECK(flag == 1 && r != MPI_REQUEST_NULL, "MPI_Request_get_status: flag %d", flag);
  check_status(&st, 6, 0);
  expect_log(&s, "q", "MPI_Request_get_status");
  OK(MPI_Wait(&r, &st));
  CHECK(r == MPI_REQUEST_NULL, "MPI_Wait left the request");
  expect_log(&s, "qqf", "MPI_Wait");
  check_status(&st, 6, 0);

  /* MPI_STATUS_IGNORE: query_fn is still called, with a status of its own. */
  init(&s, 2);
  r = start(&s);
  OK(MPI_Grequest_complete(r));
  OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  expect_log(&s, "qf", "MPI_Wait with MPI_STATUS_IGNORE");
}

/* MPI_Cancel calls cancel_fn with whether it was completed; what query_fn then says
 * is what MPI_Test_cancelled reports. */
static void cancel(void) {
  struct state s;
  init(&s, 3);
  MPI_Request r = start(&s);
  OK(MPI_Cancel(&r));
  expect_log(&s, "c", "MPI_Cancel before complete");
  OK(MPI_Grequest_complete(r));
  MPI_Status st;
  OK(MPI_Wait(&r, &st));
  expect_log(&s, "cqf", "MPI_Wait after MPI_Cancel");
  check_status(&st, 3, 1);

  init(&s, 4);
  r = start(&s);
  OK(MPI_Grequest_complete(r));
  OK(MPI_Cancel(&r));
  expect_log(&s, "C", "MPI_Cancel after complete");
  OK(MPI_Wait(&r, &st));
  check_status(&st, 4, 0);
  expect_log(&s, "Cqf", "MPI_Wait after a late MPI_Cancel");
}

/* MPI_Request_free: free_fn once both it and MPI_Grequest_complete happened, and
 * query_fn never. */
static void request_free(void) {
  struct state s;
  init(&s, 1);
  MPI_Request r = start(&s), copy = r;
  OK(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
  expect_log(&s, "", "MPI_Request_free before complete");
  OK(MPI_Grequest_complete(copy));
  expect_log(&s, "f", "MPI_Grequest_complete after MPI_Request_free");

  init(&s, 1);
  r = start(&s);
  OK(MPI_Grequest_complete(r));
  OK(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
  expect_log(&s, "f", "MPI_Request_free after complete");
}

/* The calls that complete several requests, with an ordinary request among them. */
static void arrays(int rank) {
  struct state s[3];
  MPI_Request r[4];
  MPI_Status st[4];
  int index = -1, flag = -1, outcount = -1, indices[4];

  /* MPI_Waitany / MPI_Testany report the one completed. */
  for (int i = 0; i < 3; ++i) {
    init(&s[i], 10 + i);
    r[i] = start(&s[i]);
  }
  OK(MPI_Testany(3, r, &index, &flag, st));
  CHECK(flag == 0 && index == MPI_UNDEFINED, "MPI_Testany of incomplete requests: flag %d index %d", flag, index);
  OK(MPI_Grequest_complete(r[1]));
  OK(MPI_Waitany(3, r, &index, st));
  CHECK(index == 1 && r[1] == MPI_REQUEST_NULL, "MPI_Waitany gave index %d", index);
  check_status(&st[0], 11, 0);
  expect_log(&s[1], "qf", "MPI_Waitany");
  expect_log(&s[0], "", "MPI_Waitany's other request");
  OK(MPI_Grequest_complete(r[2]));
  OK(MPI_Testany(3, r, &index, &flag, st));
  CHECK(flag == 1 && index == 2, "MPI_Testany gave flag %d index %d", flag, index);
  check_status(&st[0], 12, 0);

  /* MPI_Testall: all or nothing. */
  for (int i = 1; i < 3; ++i) {
    init(&s[i], 20 + i);
    r[i] = start(&s[i]);
  }
  OK(MPI_Grequest_complete(r[0]));
  OK(MPI_Grequest_complete(r[2]));
  OK(MPI_Testall(3, r, &flag, st));
  CHECK(flag == 0, "MPI_Testall with one incomplete request gave flag %d", flag);
  for (int i = 0; i < 3; ++i) CHECK(s[i].n == 0, "MPI_Testall called request %d's callbacks", i);
  OK(MPI_Grequest_complete(r[1]));
  OK(MPI_Testall(3, r, &flag, st));
  CHECK(flag == 1, "MPI_Testall gave flag %d", flag);
  check_status(&st[0], 10, 0);
  check_status(&st[1], 21, 0);
  check_status(&st[2], 22, 0);
  for (int i = 0; i < 3; ++i) {
    expect_log(&s[i], "qf", "MPI_Testall");
    CHECK(r[i] == MPI_REQUEST_NULL, "MPI_Testall left request %d", i);
  }

  /* MPI_Waitsome / MPI_Testsome. */
  for (int i = 0; i < 3; ++i) {
    init(&s[i], 30 + i);
    r[i] = start(&s[i]);
  }
  OK(MPI_Testsome(3, r, &outcount, indices, st));
  CHECK(outcount == 0, "MPI_Testsome of incomplete requests gave %d", outcount);
  OK(MPI_Grequest_complete(r[2]));
  OK(MPI_Grequest_complete(r[0]));
  OK(MPI_Waitsome(3, r, &outcount, indices, st));
  CHECK(outcount == 2 && indices[0] == 0 && indices[1] == 2, "MPI_Waitsome gave %d: %d %d", outcount, indices[0],
        indices[1]);
  check_status(&st[0], 30, 0);
  check_status(&st[1], 32, 0);
  expect_log(&s[1], "", "MPI_Waitsome's incomplete request");
  OK(MPI_Grequest_complete(r[1]));
  OK(MPI_Testsome(3, r, &outcount, indices, st));
  CHECK(outcount == 1 && indices[0] == 1, "MPI_Testsome gave %d: %d", outcount, indices[0]);
  check_status(&st[0], 31, 0);

  /* MPI_Waitall with a message to self among them. */
  int out = 4242 + rank, in = -1;
  for (int i = 0; i < 2; ++i) {
    init(&s[i], 40 + i);
    r[i] = start(&s[i]);
  }
  OK(MPI_Irecv(&in, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &r[2]));
  OK(MPI_Isend(&out, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &r[3]));
  OK(MPI_Grequest_complete(r[1]));
  OK(MPI_Grequest_complete(r[0]));
  OK(MPI_Waitall(4, r, st));
  check_status(&st[0], 40, 0);
  check_status(&st[1], 41, 0);
  CHECK(in == out && st[2].MPI_SOURCE == rank && st[2].MPI_TAG == 9, "self message %d, source %d", in,
        st[2].MPI_SOURCE);
  for (int i = 0; i < 2; ++i) expect_log(&s[i], "qf", "MPI_Waitall");
}

/* A callback's error is the call's (MPI_ERR_IN_STATUS from the array calls, with the
 * code in MPI_ERROR); free_fn runs even when query_fn failed. */
static void callback_errors(void) {
  struct state s[2];
  MPI_Request r[2];
  MPI_Status st[2];
  int user_class = -1, cls = -1;
  OK(MPI_Add_error_class(&user_class));

  init(&s[0], 1);
  s[0].query_rc = MPI_ERR_OTHER;
  r[0] = start(&s[0]);
  OK(MPI_Grequest_complete(r[0]));
  EXPECT_CLASS(MPI_ERR_OTHER, MPI_Wait(&r[0], &st[0]));
  CHECK(r[0] == MPI_REQUEST_NULL, "a failed MPI_Wait left the request");
  expect_log(&s[0], "qf", "MPI_Wait with query_fn failing");

  init(&s[0], 1);
  s[0].free_rc = user_class;
  r[0] = start(&s[0]);
  OK(MPI_Grequest_complete(r[0]));
  const int rc = MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  OK(MPI_Error_class(rc, &cls));
  CHECK(cls == user_class, "free_fn's user-defined class %d came back as %d", user_class, cls);

  init(&s[0], 1);
  init(&s[1], 2);
  s[1].query_rc = MPI_ERR_OTHER;
  r[0] = start(&s[0]);
  r[1] = start(&s[1]);
  OK(MPI_Grequest_complete(r[0]));
  OK(MPI_Grequest_complete(r[1]));
  EXPECT_CLASS(MPI_ERR_IN_STATUS, MPI_Waitall(2, r, st));
  CHECK(st[0].MPI_ERROR == MPI_SUCCESS && st[1].MPI_ERROR == MPI_ERR_OTHER, "MPI_ERROR %d and %d", st[0].MPI_ERROR,
        st[1].MPI_ERROR);
  expect_log(&s[0], "qf", "MPI_Waitall");
  expect_log(&s[1], "qf", "MPI_Waitall, failing");

  init(&s[0], 1);
  s[0].cancel_rc = MPI_ERR_OTHER;
  r[0] = start(&s[0]);
  EXPECT_CLASS(MPI_ERR_OTHER, MPI_Cancel(&r[0]));
  expect_log(&s[0], "c", "a failing cancel_fn");
  /* The request is still there; freed before complete, free_fn's error is
   * MPI_Grequest_complete's. */
  s[0].free_rc = MPI_ERR_OTHER;
  const MPI_Request copy = r[0];
  OK(MPI_Request_free(&r[0]));
  EXPECT_CLASS(MPI_ERR_OTHER, MPI_Grequest_complete(copy));
  expect_log(&s[0], "cf", "MPI_Grequest_complete after MPI_Request_free, free_fn failing");
}

static void bad_input(int rank) {
  struct state s;
  init(&s, 1);
  MPI_Request r;
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, NULL));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Grequest_start(NULL, free_fn, cancel_fn, &s, &r));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Grequest_start(query_fn, NULL, cancel_fn, &s, &r));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Grequest_start(query_fn, free_fn, NULL, &s, &r));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Grequest_complete(MPI_REQUEST_NULL));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Grequest_complete((MPI_Request)12345));
  int in = 0;
  OK(MPI_Irecv(&in, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &r));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Grequest_complete(r));
  OK(MPI_Cancel(&r));
  MPI_Status st;
  OK(MPI_Wait(&r, &st));
  int flag = 0;
  OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 1, "the receive was not cancelled");

  r = start(&s);
  OK(MPI_Grequest_complete(r));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Grequest_complete(r));
  expect_log(&s, "", "a refused second MPI_Grequest_complete");
  OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  expect_log(&s, "qf", "MPI_Wait after a refused second complete");

  MPI_Status status;
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Status_set_elements(&status, MPI_DATATYPE_NULL, 1));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Status_set_elements_x(&status, (MPI_Datatype)7, 1));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Status_set_elements(&status, MPI_INT, -1));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Status_set_elements_x(&status, MPI_DOUBLE, (MPI_Count)1 << 62));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Status_set_elements(MPI_STATUS_IGNORE, MPI_INT, 1));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Status_set_elements(NULL, MPI_INT, 1));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Status_set_cancelled(NULL, 1));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Status_set_cancelled(MPI_STATUS_IGNORE, 1));
}

static void expect_elements(const MPI_Status* st, MPI_Datatype type, long long elements, int count, const char* what) {
  int n = -2;
  MPI_Count nx = -2;
  OK(MPI_Get_elements_x(st, type, &nx));
  CHECK(nx == elements, "%s: MPI_Get_elements_x gave %lld, expected %lld", what, (long long)nx, elements);
  OK(MPI_Get_elements(st, type, &n));
  CHECK(n == (elements > 0x7fffffff ? MPI_UNDEFINED : (int)elements), "%s: MPI_Get_elements gave %d", what, n);
  OK(MPI_Get_count(st, type, &n));
  CHECK(n == count, "%s: MPI_Get_count gave %d, expected %d", what, n, count);
}

/* What the setters store reads back consistently, for derived and pair types too. */
static void status_setters(void) {
  MPI_Status st;
  memset(&st, 0, sizeof st);
  OK(MPI_Status_set_elements(&st, MPI_INT, 6));
  expect_elements(&st, MPI_INT, 6, 6, "6 MPI_INT");
  expect_elements(&st, MPI_CHAR, 6 * sizeof(int), 6 * sizeof(int), "6 MPI_INT read as MPI_CHAR");
  OK(MPI_Status_set_elements(&st, MPI_INT, 0));
  expect_elements(&st, MPI_INT, 0, 0, "0 MPI_INT");

  /* {int, double}: 2 basic elements in 12 bytes. */
  MPI_Datatype pair;
  const int lengths[2] = {1, 1};
  const MPI_Aint displs[2] = {0, 8};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  OK(MPI_Type_create_struct(2, lengths, displs, types, &pair));
  OK(MPI_Type_commit(&pair));
  OK(MPI_Status_set_elements(&st, pair, 5));
  expect_elements(&st, pair, 5, MPI_UNDEFINED, "5 elements of {int, double}");
  OK(MPI_Status_set_elements(&st, pair, 4));
  expect_elements(&st, pair, 4, 2, "4 elements of {int, double}");
  OK(MPI_Type_free(&pair));

  OK(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 3));
  expect_elements(&st, MPI_DOUBLE_INT, 3, MPI_UNDEFINED, "3 elements of MPI_DOUBLE_INT");

  MPI_Datatype strided;
  OK(MPI_Type_vector(3, 2, 5, MPI_SHORT, &strided));
  OK(MPI_Type_commit(&strided));
  OK(MPI_Status_set_elements(&st, strided, 13));
  expect_elements(&st, strided, 13, MPI_UNDEFINED, "13 shorts of a vector");
  OK(MPI_Status_set_elements(&st, strided, 12));
  expect_elements(&st, strided, 12, 2, "12 shorts of a vector");
  OK(MPI_Type_free(&strided));

  /* More than an int holds. */
  const MPI_Count big = 3000000000LL;
  OK(MPI_Status_set_elements_x(&st, MPI_INT, big));
  expect_elements(&st, MPI_INT, big, MPI_UNDEFINED, "3e9 MPI_INT");

  int flag = -1;
  OK(MPI_Status_set_cancelled(&st, 5));
  OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 1, "MPI_Status_set_cancelled(5) read back as %d", flag);
  OK(MPI_Status_set_cancelled(&st, 0));
  OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 0, "MPI_Status_set_cancelled(0) read back as %d", flag);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  wait_and_test();
  cancel();
  request_free();
  arrays(rank);
  callback_errors();
  bad_input(rank);
  status_setters();
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("grequest: OK\n");
  MPI_Finalize();
  return 0;
}
