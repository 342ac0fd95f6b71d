/* User error handlers (MPI_Comm_create_errhandler): called with the communicator and
 * the code of a real error (pt2pt, collective, request, no communicator), then the
 * call returns the code; inherited by MPI_Comm_dup and MPI_Comm_split; called by
 * MPI_Comm_call_errhandler; a freed handle keeps working on the communicators that
 * use it (MPI-3.1 §8.3.4) while the handle itself is invalid; a handler may call MPI
 * and replace itself; bad arguments give MPI_ERR_ARG / MPI_ERR_COMM. Then user error
 * classes, codes and texts (MPI_Add_error_*), MPI_LASTUSEDCODE. */
#include <string.h>

#include "mpitest.h"

static int calls; /* globals are per rank under twinfab sim */
static MPI_Comm last_comm = MPI_COMM_NULL;
static int last_code = MPI_SUCCESS;

static void record(MPI_Comm* comm, int* code, ...) {
  ++calls;
  last_comm = *comm;
  last_code = *code;
}

/* Calls MPI itself, then replaces the code with MPI_ERR_OTHER (returned by the call). */
static void rewrite(MPI_Comm* comm, int* code, ...) {
  int rank;
  MPI_Comm_rank(*comm, &rank);
  ++calls;
  last_comm = *comm;
  last_code = *code;
  *code = MPI_ERR_OTHER;
}

/* Sets its communicator's handler to MPI_ERRORS_RETURN: its own last use goes. */
static void once(MPI_Comm* comm, int* code, ...) {
  ++calls;
  last_comm = *comm;
  last_code = *code;
  MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN);
}

/* `call` must fail with class `cls`, having called the handler once with `comm`. */
#define EXPECT_HANDLED(comm, cls, call)                                                      \
  do {                                                                                       \
    int before_ = calls;                                                                     \
    EXPECT_CLASS(cls, call);                                                                 \
    CHECK(calls == before_ + 1, "%s: handler called %d times", #call, calls - before_);      \
    CHECK(last_comm == (comm), "%s: handler got comm 0x%x, expected 0x%x", #call,            \
          (unsigned)last_comm, (unsigned)(comm));                                            \
    int lc_;                                                                                 \
    MPI_Error_class(last_code, &lc_);                                                        \
    CHECK(lc_ == (cls), "%s: handler got code %d, expected class %d", #call, last_code, cls); \
  } while (0)

static int fail_with; /* what fail_delete returns */
static int fail_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  return fail_with;
}

/* MPI_Add_error_class / _code / _string, MPI_LASTUSEDCODE, and a user code reaching a
 * user handler from a real failure (an attribute delete callback returning it).
 * MPI_COMM_WORLD's handler is MPI_ERRORS_RETURN. */
static void user_codes(void) {
  int* last;
  int flag, cls, len;
  char text[MPI_MAX_ERROR_STRING];
  OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
  CHECK(flag && *last == MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d before any was added", flag ? *last : -1);
  int c1, e1, e2;
  OK(MPI_Add_error_class(&c1));
  CHECK(c1 > MPI_ERR_LASTCODE && *last == c1, "class %d, last used %d", c1, *last);
  OK(MPI_Add_error_code(c1, &e1));
  OK(MPI_Add_error_code(MPI_ERR_RANK, &e2));
  CHECK(e1 != c1 && e2 != e1 && e2 != MPI_ERR_RANK, "codes %d %d of classes %d %d", e1, e2, c1, MPI_ERR_RANK);
  int* again;
  OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &again, &flag));
  CHECK(*again == e2 && *last == e2 && e2 >= e1 && e1 >= c1, "last used %d, codes %d %d %d", *again, c1, e1, e2);
  OK(MPI_Error_class(c1, &cls));
  CHECK(cls == c1, "class of the added class: %d", cls);
  OK(MPI_Error_class(e1, &cls));
  CHECK(cls == c1, "class of the added code: %d, expected %d", cls, c1);
  OK(MPI_Error_class(e2, &cls));
  CHECK(cls == MPI_ERR_RANK, "class of a code of MPI_ERR_RANK: %d", cls);
  OK(MPI_Error_string(e1, text, &len));
  CHECK(len == 0 && text[0] == '\0', "text before MPI_Add_error_string: '%s'", text);
  OK(MPI_Add_error_string(e1, "first text"));
  OK(MPI_Add_error_string(e1, "the disk is on fire"));
  OK(MPI_Add_error_string(c1, "hardware trouble"));
  OK(MPI_Error_string(e1, text, &len));
  CHECK(strcmp(text, "the disk is on fire") == 0 && len == 19, "code text '%s' (%d)", text, len);
  OK(MPI_Error_string(c1, text, &len));
  CHECK(strcmp(text, "hardware trouble") == 0, "class text '%s'", text);
  OK(MPI_Error_string(MPI_ERR_RANK, text, &len));
  CHECK(strcmp(text, "Invalid rank") == 0, "predefined text changed: '%s'", text);

  EXPECT_CLASS(MPI_ERR_ARG, MPI_Add_error_class(NULL));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Add_error_code(c1, NULL));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Add_error_code(e1, &cls)); /* a code, not a class */
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Add_error_code(MPI_SUCCESS, &cls));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Add_error_code(MPI_ERR_LASTCODE, &cls));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Add_error_code(*last + 1, &cls));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Add_error_string(MPI_ERR_RANK, "mine now"));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Add_error_string(*last + 1, "nobody's"));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Add_error_string(e1, NULL));
  char longer[MPI_MAX_ERROR_STRING + 1];
  memset(longer, 'x', MPI_MAX_ERROR_STRING);
  longer[MPI_MAX_ERROR_STRING] = '\0';
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Add_error_string(e1, longer));
  longer[MPI_MAX_ERROR_STRING - 1] = '\0'; /* the longest that fits */
  OK(MPI_Add_error_string(e1, longer));
  OK(MPI_Error_string(e1, text, &len));
  CHECK(len == MPI_MAX_ERROR_STRING - 1, "longest text: %d characters", len);
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Error_class(*last + 1, &cls));
  CHECK(*last == e2, "failed calls changed MPI_LASTUSEDCODE to %d", *last);

  /* A user code through a user handler: a delete callback fails with it. */
  MPI_Errhandler eh;
  MPI_Comm d;
  int key;
  OK(MPI_Comm_create_errhandler(record, &eh));
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  OK(MPI_Comm_set_errhandler(d, eh));
  OK(MPI_Errhandler_free(&eh));
  OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, fail_delete, &key, NULL));
  OK(MPI_Comm_set_attr(d, key, NULL));
  fail_with = e1;
  int before = calls;
  int rc = MPI_Comm_delete_attr(d, key);
  CHECK(rc == e1 && calls == before + 1 && last_comm == d && last_code == e1,
        "delete callback's code: rc %d, %d calls, comm 0x%x, code %d, expected %d", rc, calls - before,
        (unsigned)last_comm, last_code, e1);
  OK(MPI_Comm_call_errhandler(d, e2));
  CHECK(last_comm == d && last_code == e2, "call_errhandler: comm 0x%x, code %d", (unsigned)last_comm, last_code);
  fail_with = MPI_SUCCESS;
  OK(MPI_Comm_free(&d));
  OK(MPI_Comm_free_keyval(&key));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int v[4] = {1, 2, 3, 4};
  MPI_Status st;

  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  OK(MPI_Comm_create_errhandler(record, &eh));
  CHECK(eh != MPI_ERRHANDLER_NULL && eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ARE_FATAL, "handle 0x%x",
        (unsigned)eh);
  MPI_Comm d;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  OK(MPI_Comm_set_errhandler(d, eh));
  MPI_Errhandler got;
  OK(MPI_Comm_get_errhandler(d, &got));
  CHECK(got == eh, "get gave 0x%x, set 0x%x", (unsigned)got, (unsigned)eh);
  OK(MPI_Errhandler_free(&got)); /* the reference get gave; eh stays valid */
  CHECK(got == MPI_ERRHANDLER_NULL, "freed handle not nulled");

  /* Real errors on d: the handler sees d and the code, the call returns the code. */
  EXPECT_HANDLED(d, MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, size, 0, d));
  EXPECT_HANDLED(d, MPI_ERR_TAG, MPI_Recv(v, 1, MPI_INT, 0, -4, d, &st));
  EXPECT_HANDLED(d, MPI_ERR_ROOT, MPI_Bcast(v, 1, MPI_INT, size, d));
  EXPECT_HANDLED(d, MPI_ERR_ARG, MPI_Comm_split(d, -3, 0, &(MPI_Comm){MPI_COMM_NULL}));
  /* MPI_COMM_WORLD keeps MPI_ERRORS_RETURN: its errors do not reach the handler. */
  int before = calls;
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, size, 0, MPI_COMM_WORLD));
  CHECK(calls == before, "world's error reached d's handler");

  /* A request on d reports to d's handler when it completes (truncation). */
  if (size >= 2 && rank < 2) {
    MPI_Request r;
    if (rank == 0) {
      OK(MPI_Send(v, 4, MPI_INT, 1, 5, d));
    } else {
      OK(MPI_Irecv(v, 2, MPI_INT, 0, 5, d, &r));
      EXPECT_HANDLED(d, MPI_ERR_TRUNCATE, MPI_Wait(&r, &st));
    }
  }

  /* Inherited by dup and split, each reporting its own handle. */
  MPI_Comm d2, s2;
  OK(MPI_Comm_dup(d, &d2));
  OK(MPI_Comm_get_errhandler(d2, &got));
  CHECK(got == eh, "dup's handler 0x%x, expected 0x%x", (unsigned)got, (unsigned)eh);
  OK(MPI_Errhandler_free(&got));
  EXPECT_HANDLED(d2, MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, -7, 0, d2));
  OK(MPI_Comm_split(d, rank % 2, 0, &s2));
  EXPECT_HANDLED(s2, MPI_ERR_COUNT, MPI_Send(v, -1, MPI_INT, 0, 0, s2));

  /* MPI_Comm_call_errhandler: the handler gets the code as given; the call succeeds. */
  before = calls;
  OK(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER));
  CHECK(calls == before + 1 && last_comm == d && last_code == MPI_ERR_OTHER,
        "call_errhandler: %d calls, comm 0x%x, code %d", calls - before, (unsigned)last_comm, last_code);
  before = calls;
  OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER)); /* MPI_ERRORS_RETURN: success */
  CHECK(calls == before, "call_errhandler on world called d's handler");

  /* The handle freed: d, d2 and s2 still use the handler; the handle is invalid. */
  MPI_Errhandler stale = eh;
  OK(MPI_Errhandler_free(&eh));
  CHECK(eh == MPI_ERRHANDLER_NULL, "freed handle not nulled");
  EXPECT_HANDLED(d, MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, size, 0, d));
  EXPECT_HANDLED(d2, MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, size, 0, d2));
  OK(MPI_Comm_call_errhandler(s2, MPI_ERR_INTERN));
  CHECK(last_comm == s2 && last_code == MPI_ERR_INTERN, "call_errhandler after free: comm 0x%x, code %d",
        (unsigned)last_comm, last_code);
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_set_errhandler(MPI_COMM_WORLD, stale));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Errhandler_free(&stale));
  /* get gives a new handle to the handler still in use; it works like the first. */
  OK(MPI_Comm_get_errhandler(d, &got));
  MPI_Comm d3;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &d3));
  OK(MPI_Comm_set_errhandler(d3, got));
  OK(MPI_Errhandler_free(&got));
  EXPECT_HANDLED(d3, MPI_ERR_TAG, MPI_Send(v, 1, MPI_INT, 0, -2, d3));
  /* Freeing the communicators lets go of the handler; those left keep it. */
  OK(MPI_Comm_free(&d));
  OK(MPI_Comm_free(&d2));
  EXPECT_HANDLED(s2, MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, size, 0, s2));
  OK(MPI_Comm_free(&s2));
  EXPECT_HANDLED(d3, MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, size, 0, d3));
  OK(MPI_Comm_set_errhandler(d3, MPI_ERRORS_RETURN)); /* the last use: the handler goes */
  before = calls;
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, size, 0, d3));
  CHECK(calls == before, "the handler replaced by MPI_ERRORS_RETURN was called");

  /* On MPI_COMM_WORLD: errors of calls without a (valid) communicator go there. */
  MPI_Errhandler w;
  OK(MPI_Comm_create_errhandler(rewrite, &w));
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, w));
  OK(MPI_Errhandler_free(&w));
  /* The handler's own MPI call worked, and its code is what the call returns. */
  before = calls;
  int rc = MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
  CHECK(rc == MPI_ERR_OTHER, "the code the handler left: %d", rc);
  CHECK(calls == before + 1 && last_comm == MPI_COMM_WORLD && last_code == MPI_ERR_COMM,
        "invalid comm: %d calls, comm 0x%x, code %d", calls - before, (unsigned)last_comm, last_code);
  rc = MPI_Type_commit(NULL);
  CHECK(rc == MPI_ERR_OTHER && last_comm == MPI_COMM_WORLD && last_code == MPI_ERR_ARG,
        "no comm: rc %d, comm 0x%x, code %d", rc, (unsigned)last_comm, last_code);
  /* Bad arguments (reported to world's handler, which rewrites them to MPI_ERR_OTHER:
   * what it was given is checked). */
#define EXPECT_WORLD(cls, call)                                                               \
  do {                                                                                        \
    int b_ = calls;                                                                           \
    int r_ = (call);                                                                          \
    CHECK(r_ == MPI_ERR_OTHER && calls == b_ + 1 && last_comm == MPI_COMM_WORLD &&            \
              last_code == (cls),                                                             \
          "%s: rc %d, %d calls, comm 0x%x, code %d, expected %d", #call, r_, calls - b_,       \
          (unsigned)last_comm, last_code, cls);                                               \
  } while (0)
  MPI_Errhandler bad;
  EXPECT_WORLD(MPI_ERR_ARG, MPI_Comm_create_errhandler(NULL, &bad));
  EXPECT_WORLD(MPI_ERR_ARG, MPI_Comm_create_errhandler(record, NULL));
  EXPECT_WORLD(MPI_ERR_ARG, MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL));
  EXPECT_WORLD(MPI_ERR_ARG, MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)12345));
  EXPECT_WORLD(MPI_ERR_ARG, MPI_Comm_set_errhandler(MPI_COMM_WORLD, stale));
  EXPECT_WORLD(MPI_ERR_COMM, MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN));
  EXPECT_WORLD(MPI_ERR_ARG, MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL));
  EXPECT_WORLD(MPI_ERR_COMM, MPI_Comm_get_errhandler(MPI_COMM_NULL, &bad));
  EXPECT_WORLD(MPI_ERR_COMM, MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER));
  EXPECT_WORLD(MPI_ERR_ARG, MPI_Errhandler_free(NULL));
  bad = MPI_ERRHANDLER_NULL;
  EXPECT_WORLD(MPI_ERR_ARG, MPI_Errhandler_free(&bad));
  bad = (MPI_Errhandler)0x94001234;
  EXPECT_WORLD(MPI_ERR_ARG, MPI_Errhandler_free(&bad));
  /* Freeing a predefined handler frees the handle only (MPICH). */
  bad = MPI_ERRORS_RETURN;
  OK(MPI_Errhandler_free(&bad));
  CHECK(bad == MPI_ERRHANDLER_NULL, "predefined handle not nulled");

  /* A handler may replace itself on its communicator while it runs. */
  MPI_Errhandler o;
  OK(MPI_Comm_create_errhandler(once, &o));
  OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, o));
  OK(MPI_Errhandler_free(&o));
  before = calls;
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, 1, 0, MPI_COMM_SELF));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Send(v, 1, MPI_INT, 1, 0, MPI_COMM_SELF));
  CHECK(calls == before + 1 && last_comm == MPI_COMM_SELF, "self-replacing handler: %d calls", calls - before);
  OK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got));
  CHECK(got == MPI_ERRORS_RETURN, "self's handler 0x%x after it replaced itself", (unsigned)got);

  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  user_codes();

  /* Nothing above sent anything but the truncated message: a real exchange pairs up. */
  if (size >= 2 && rank < 2) {
    int mine = 100 + rank, other = -1, flag;
    OK(MPI_Sendrecv(&mine, 1, MPI_INT, 1 - rank, 0, &other, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &st));
    CHECK(other == 101 - rank, "exchange got %d", other);
    OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a failed call left a message from %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
  }
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("errhandlers: %d handler calls on rank 0\n", calls);
  MPI_Finalize();
  return 0;
}
