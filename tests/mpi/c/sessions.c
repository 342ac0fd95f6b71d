/* The Sessions model (MPI-4.0 §11.3). Without an argument, one run goes through:
 *  - sessions only (no MPI_Init): MPI_Initialized says 0; process sets listed
 *    ("mpi://WORLD", "mpi://SELF", with "mpi_size"), the session's info
 *    ("thread_level"); a communicator from mpi://WORLD with point-to-point, a ring and
 *    collectives; one from mpi://SELF; two sessions at once, each with its
 *    communicators; two MPI_Comm_create_from_group calls with different stringtags
 *    over the same group (distinct communicators: one tag on both does not mix), and
 *    over overlapping groups that start at different times on different ranks (the
 *    ranks in one group only start theirs while the others are still in the first);
 *    error handlers of sessions (a user one gets the session's handle and decides the
 *    code; MPI_Session_call_errhandler; get/set; a communicator's handler refused);
 *  - MPI_Init after a session: the World model shares the sessions' resources;
 *    MPI_COMM_WORLD works, and a session made now too; traffic with the same tag on
 *    MPI_COMM_WORLD, a dup of it and a session's communicator does not mix;
 *  - every error path (MPI_COMM_WORLD's handler returns them meanwhile): null,
 *    finalized and invalid sessions, unknown and too long process set names, n out of
 *    range, null outputs, a too long stringtag, a group without the caller, the wrong
 *    kind of error handler, a bad thread_level; after each the objects still work;
 *  - MPI_Finalize with sessions open: MPI_Finalized says 1, the sessions' communicators
 *    still work; then the last MPI_Session_finalize ends MPI (collective).
 * Other runs (argv[1]), each a program of its own:
 *   world-first        MPI_Init, a session, MPI_Session_finalize, then MPI_Finalize;
 *   crossed            rank 0 makes "alpha" then "beta" over the same two ranks, rank 1
 *                      "beta" then "alpha": the stringtags keep the calls apart, so
 *                      the job deadlocks (the simulator reports it); were the tag
 *                      ignored, each rank would pair its "alpha" with the other's
 *                      "beta" and the job would end (exit 0, "MIXED" printed);
 *   world-without-init MPI_COMM_WORLD in a sessions-only program: MPI_ERR_COMM, fatal;
 *   world-after-finalize MPI_COMM_WORLD after MPI_Finalize (a session still open);
 *   unfinalized        a rank returns with a session open: the launcher reports it;
 *   reinit             MPI_Session_init after the last MPI_Session_finalize:
 *                      MPI_ERR_UNSUPPORTED_OPERATION to its handler, and the job ends
 *                      cleanly;
 *   null-session       an invalid session in a sessions-only program: no World model,
 *                      so the initial handler (fatal) takes it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank = -1;

/* mpitest.h's CHECK asks MPI_COMM_WORLD for the rank, which a sessions-only program
 * has not: these use the rank found through the session. */
#define SCHECK(cond, ...)                                                                      \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", g_rank, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                            \
      fprintf(stderr, "\n");                                                                   \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                            \
    }                                                                                          \
  } while (0)
#define SOK(call)                                                    \
  do {                                                               \
    int ok_rc_ = (call);                                             \
    SCHECK(ok_rc_ == MPI_SUCCESS, "%s returned %d", #call, ok_rc_);  \
  } while (0)
#define SEXPECT(expected, call)                                                                       \
  do {                                                                                                \
    int ec_rc_ = (call), ec_class_ = -1;                                                              \
    MPI_Error_class(ec_rc_, &ec_class_);                                                              \
    SCHECK(ec_class_ == (expected), "%s gave class %d, expected %s (%d)", #call, ec_class_, #expected, \
           (int)(expected));                                                                          \
  } while (0)

/* A communicator of a process set of `session`. */
static MPI_Comm comm_of_pset(MPI_Session session, const char* pset, const char* tag) {
  MPI_Group group;
  SOK(MPI_Group_from_session_pset(session, pset, &group));
  MPI_Comm comm = MPI_COMM_NULL;
  SOK(MPI_Comm_create_from_group(group, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
  SOK(MPI_Group_free(&group));
  SCHECK(comm != MPI_COMM_NULL, "no communicator for %s", pset);
  return comm;
}

/* Point-to-point around the ring of `comm`, and a few collectives. */
static void exercise(MPI_Comm comm, int seq) {
  int rank, size;
  SOK(MPI_Comm_rank(comm, &rank));
  SOK(MPI_Comm_size(comm, &size));
  int token = rank * 100 + seq, got = -1;
  SOK(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 9, &got, 1, MPI_INT, (rank + size - 1) % size, 9, comm,
                   MPI_STATUS_IGNORE));
  SCHECK(got == ((rank + size - 1) % size) * 100 + seq, "ring got %d", got);
  int sum = -1;
  SOK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
  SCHECK(sum == size * (size - 1) / 2, "allreduce gave %d", sum);
  int root_value = rank == 0 ? 4242 + seq : -1;
  SOK(MPI_Bcast(&root_value, 1, MPI_INT, 0, comm));
  SCHECK(root_value == 4242 + seq, "bcast gave %d", root_value);
  SOK(MPI_Barrier(comm));
}

/* Two communicators over the same ranks are distinct matching spaces: rank r sends
 * tag 5 on `a` then on `b` to r + 1, which receives on `b` first. */
static void check_distinct(MPI_Comm a, MPI_Comm b) {
  int rank, size;
  SOK(MPI_Comm_rank(a, &rank));
  SOK(MPI_Comm_size(a, &size));
  if (size < 2) return;
  const int va = 1000 + rank, vb = 2000 + rank;
  MPI_Request reqs[2];
  SOK(MPI_Isend(&va, 1, MPI_INT, (rank + 1) % size, 5, a, &reqs[0]));
  SOK(MPI_Isend(&vb, 1, MPI_INT, (rank + 1) % size, 5, b, &reqs[1]));
  int gb = -1, ga = -1;
  const int from = (rank + size - 1) % size;
  SOK(MPI_Recv(&gb, 1, MPI_INT, from, 5, b, MPI_STATUS_IGNORE));
  SOK(MPI_Recv(&ga, 1, MPI_INT, from, 5, a, MPI_STATUS_IGNORE));
  SOK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  SCHECK(ga == 1000 + from && gb == 2000 + from, "messages mixed: got %d on the first, %d on the second", ga, gb);
}

static int user_calls = 0;
static MPI_Session user_session = MPI_SESSION_NULL;
static int user_code = 0;
static void session_handler(MPI_Session* session, int* code, ...) {
  ++user_calls;
  user_session = *session;
  user_code = *code;
  *code = MPI_ERR_OTHER;  /* what the failed call returns */
}
static void comm_handler(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  (void)code;
}

static void list_psets(MPI_Session session, int world_size) {
  int n = -1;
  SOK(MPI_Session_get_num_psets(session, MPI_INFO_NULL, &n));
  SCHECK(n == 2, "%d process sets", n);
  int seen_world = 0, seen_self = 0;
  for (int i = 0; i < n; ++i) {
    int len = 0;
    SOK(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, &len, NULL));  /* the size needed */
    SCHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d: length %d", i, len);
    char name[MPI_MAX_PSET_NAME_LEN];
    memset(name, 'x', sizeof name);
    int got = len;
    SOK(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, &got, name));
    SCHECK(got == len && (int)strlen(name) + 1 == len, "pset %d: \"%s\", length %d then %d", i, name, len, got);
    char small[5];
    got = (int)sizeof small;
    SOK(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, &got, small));  /* truncated, terminated */
    SCHECK(got == len && strlen(small) == 4 && strncmp(small, name, 4) == 0, "truncated to \"%s\" (%d)", small, got);
    MPI_Info info;
    SOK(MPI_Session_get_pset_info(session, name, &info));
    char value[32];
    int flag = 0;
    SOK(MPI_Info_get(info, "mpi_size", (int)sizeof value - 1, value, &flag));
    SCHECK(flag, "%s: no mpi_size", name);
    SOK(MPI_Info_free(&info));
    MPI_Group group;
    SOK(MPI_Group_from_session_pset(session, name, &group));
    int gsize = -1, grank = -1;
    SOK(MPI_Group_size(group, &gsize));
    SOK(MPI_Group_rank(group, &grank));
    SCHECK(atoi(value) == gsize, "%s: mpi_size %s, group of %d", name, value, gsize);
    if (strcmp(name, "mpi://WORLD") == 0) {
      seen_world = 1;
      SCHECK(gsize == world_size && grank == g_rank, "mpi://WORLD: size %d rank %d", gsize, grank);
    } else if (strcmp(name, "mpi://SELF") == 0) {
      seen_self = 1;
      SCHECK(gsize == 1 && grank == 0, "mpi://SELF: size %d rank %d", gsize, grank);
    }
    SOK(MPI_Group_free(&group));
  }
  SCHECK(seen_world && seen_self, "mpi://WORLD or mpi://SELF missing");
  /* Names compare without regard to case, as in MPICH. */
  MPI_Group lower;
  SOK(MPI_Group_from_session_pset(session, "mpi://self", &lower));
  SOK(MPI_Group_free(&lower));
}

/* The World model's rank and size, through a session (no MPI_COMM_WORLD needed). */
static int world_size_of(MPI_Session session) {
  MPI_Group group;
  SOK(MPI_Group_from_session_pset(session, "mpi://WORLD", &group));
  int size = -1;
  SOK(MPI_Group_rank(group, &g_rank));
  SOK(MPI_Group_size(group, &size));
  SOK(MPI_Group_free(&group));
  return size;
}

/* Overlapping groups, different interleavings: A = ranks 0 .. size-2, B = 1 .. size-1.
 * The ranks in both make A then B; the last rank makes B at once, while they are
 * still in A. */
static void overlapping(MPI_Session session, int size) {
  if (size < 3) return;
  MPI_Group world, a, b;
  SOK(MPI_Group_from_session_pset(session, "mpi://WORLD", &world));
  int range_a[1][3] = {{0, size - 2, 1}}, range_b[1][3] = {{1, size - 1, 1}};
  SOK(MPI_Group_range_incl(world, 1, range_a, &a));
  SOK(MPI_Group_range_incl(world, 1, range_b, &b));
  MPI_Comm ca = MPI_COMM_NULL, cb = MPI_COMM_NULL;
  if (g_rank <= size - 2) SOK(MPI_Comm_create_from_group(a, "overlap.a", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ca));
  if (g_rank >= 1) SOK(MPI_Comm_create_from_group(b, "overlap.b", MPI_INFO_NULL, MPI_ERRORS_RETURN, &cb));
  if (ca != MPI_COMM_NULL) {
    int r = -1;
    SOK(MPI_Comm_rank(ca, &r));
    SCHECK(r == g_rank, "rank %d in A", r);
    exercise(ca, 3);
    SOK(MPI_Comm_free(&ca));
  }
  if (cb != MPI_COMM_NULL) {
    int r = -1;
    SOK(MPI_Comm_rank(cb, &r));
    SCHECK(r == g_rank - 1, "rank %d in B", r);
    exercise(cb, 4);
    SOK(MPI_Comm_free(&cb));
  }
  SOK(MPI_Group_free(&a));
  SOK(MPI_Group_free(&b));
  SOK(MPI_Group_free(&world));
}

static void session_errhandlers(MPI_Session session) {
  MPI_Errhandler mine, got;
  SOK(MPI_Session_create_errhandler(session_handler, &mine));
  SOK(MPI_Session_set_errhandler(session, mine));
  SOK(MPI_Session_get_errhandler(session, &got));
  SCHECK(got == mine, "MPI_Session_get_errhandler gave another handler");
  SOK(MPI_Errhandler_free(&got));
  SOK(MPI_Errhandler_free(&mine));  /* the session keeps using it */
  int len = 0;
  const int rc = MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 99, &len, NULL);
  SCHECK(rc == MPI_ERR_OTHER && user_calls == 1 && user_session == session && user_code == MPI_ERR_ARG,
         "user handler: rc %d, %d calls, session 0x%x, code %d", rc, user_calls, (unsigned)user_session, user_code);
  SOK(MPI_Session_call_errhandler(session, MPI_ERR_INFO));
  SCHECK(user_calls == 2 && user_code == MPI_ERR_INFO, "MPI_Session_call_errhandler: %d calls, code %d", user_calls,
         user_code);
  /* A communicator's handler is no session's. */
  MPI_Errhandler for_comms;
  SOK(MPI_Comm_create_errhandler(comm_handler, &for_comms));
  SCHECK(MPI_Session_set_errhandler(session, for_comms) == MPI_ERR_OTHER && user_calls == 3 && user_code == MPI_ERR_ARG,
         "a communicator's handler was set on a session");
  SOK(MPI_Errhandler_free(&for_comms));
  SOK(MPI_Session_set_errhandler(session, MPI_ERRORS_RETURN));
  SOK(MPI_Session_call_errhandler(session, MPI_ERR_INFO));  /* returns: success */
  SOK(MPI_Session_get_errhandler(session, &got));
  SCHECK(got == MPI_ERRORS_RETURN, "the handler was not set");
}

/* Every error path; MPI_COMM_WORLD's handler and the session's are MPI_ERRORS_RETURN. */
static void error_paths(MPI_Session session, int size) {
  MPI_Session none = MPI_SESSION_NULL;
  int n = -1;
  SEXPECT(MPI_ERR_SESSION, MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n));
  SEXPECT(MPI_ERR_SESSION, MPI_Session_get_num_psets((MPI_Session)0x12345, MPI_INFO_NULL, &n));
  SEXPECT(MPI_ERR_SESSION, MPI_Session_finalize(&none));
  SEXPECT(MPI_ERR_ARG, MPI_Session_finalize(NULL));
  MPI_Info info;
  SEXPECT(MPI_ERR_SESSION, MPI_Session_get_info(MPI_COMM_WORLD, &info));  /* a communicator, no session */

  /* A finalized session's handle stays invalid. */
  MPI_Session gone;
  SOK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &gone));
  const MPI_Session stale = gone;
  SOK(MPI_Session_finalize(&gone));
  SCHECK(gone == MPI_SESSION_NULL, "MPI_Session_finalize did not null the handle");
  SEXPECT(MPI_ERR_SESSION, MPI_Session_get_num_psets(stale, MPI_INFO_NULL, &n));

  /* MPI_Session_init: its errors go to its handler (here MPI_ERRORS_RETURN). */
  MPI_Session s2;
  SEXPECT(MPI_ERR_ARG, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL));
  SOK(MPI_Info_create(&info));
  SOK(MPI_Info_set(info, "thread_level", "MPI_THREAD_LOTS"));
  SEXPECT(MPI_ERR_INFO_VALUE, MPI_Session_init(info, MPI_ERRORS_RETURN, &s2));
  const MPI_Info freed = info;  /* MPI_Info_free nulls the handle */
  SOK(MPI_Info_free(&info));
  SEXPECT(MPI_ERR_INFO, MPI_Session_init(freed, MPI_ERRORS_RETURN, &s2));
  MPI_Errhandler for_comms;
  SOK(MPI_Comm_create_errhandler(comm_handler, &for_comms));
  SEXPECT(MPI_ERR_ARG, MPI_Session_init(MPI_INFO_NULL, for_comms, &s2));  /* to MPI_COMM_WORLD's */
  SEXPECT(MPI_ERR_ARG, MPI_Session_init(MPI_INFO_NULL, MPI_ERRHANDLER_NULL, &s2));

  /* Process sets. */
  char name[MPI_MAX_PSET_NAME_LEN];
  int len = (int)sizeof name;
  SEXPECT(MPI_ERR_ARG, MPI_Session_get_nth_pset(session, MPI_INFO_NULL, -1, &len, name));
  SEXPECT(MPI_ERR_ARG, MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 2, &len, name));
  SEXPECT(MPI_ERR_ARG, MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 0, NULL, name));
  SEXPECT(MPI_ERR_ARG, MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 0, &len, NULL));
  len = -1;
  SEXPECT(MPI_ERR_ARG, MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 0, &len, name));
  SEXPECT(MPI_ERR_INFO, MPI_Session_get_nth_pset(session, freed, 0, &len, name));
  SEXPECT(MPI_ERR_ARG, MPI_Session_get_num_psets(session, MPI_INFO_NULL, NULL));
  MPI_Group group = MPI_GROUP_NULL;
  SEXPECT(MPI_ERR_ARG, MPI_Group_from_session_pset(session, "mpi://NOWHERE", &group));
  SEXPECT(MPI_ERR_ARG, MPI_Group_from_session_pset(session, NULL, &group));
  SEXPECT(MPI_ERR_ARG, MPI_Group_from_session_pset(session, "mpi://WORLD", NULL));
  char long_name[MPI_MAX_PSET_NAME_LEN + 10];
  memset(long_name, 'w', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  SEXPECT(MPI_ERR_ARG, MPI_Group_from_session_pset(session, long_name, &group));
  SCHECK(group == MPI_GROUP_NULL, "a failed call set the group");
  SEXPECT(MPI_ERR_ARG, MPI_Session_get_pset_info(session, "mpi://NOWHERE", &info));
  SEXPECT(MPI_ERR_ARG, MPI_Session_get_pset_info(session, "mpi://SELF", NULL));
  SEXPECT(MPI_ERR_ARG, MPI_Session_get_info(session, NULL));

  /* MPI_Comm_create_from_group: errors to its errhandler argument (MPI_ERRORS_RETURN),
   * all found before any message leaves, so no other rank waits. */
  SOK(MPI_Group_from_session_pset(session, "mpi://SELF", &group));
  MPI_Comm comm = MPI_COMM_NULL;
  char long_tag[MPI_MAX_STRINGTAG_LEN + 1];
  memset(long_tag, 't', sizeof long_tag - 1);
  long_tag[sizeof long_tag - 1] = '\0';
  SEXPECT(MPI_ERR_ARG, MPI_Comm_create_from_group(group, long_tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
  SEXPECT(MPI_ERR_ARG, MPI_Comm_create_from_group(group, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
  SEXPECT(MPI_ERR_ARG, MPI_Comm_create_from_group(group, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL));
  SEXPECT(MPI_ERR_INFO, MPI_Comm_create_from_group(group, "t", freed, MPI_ERRORS_RETURN, &comm));
  SEXPECT(MPI_ERR_GROUP, MPI_Comm_create_from_group(MPI_GROUP_NULL, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
  MPI_Errhandler for_sessions;
  SOK(MPI_Session_create_errhandler(session_handler, &for_sessions));
  SEXPECT(MPI_ERR_ARG, MPI_Comm_create_from_group(group, "t", MPI_INFO_NULL, for_sessions, &comm));
  SEXPECT(MPI_ERR_ARG, MPI_Comm_set_errhandler(MPI_COMM_WORLD, for_sessions));
  SCHECK(comm == MPI_COMM_NULL, "a failed call set the communicator");
  SOK(MPI_Group_free(&group));
  if (size >= 2) {  /* a group without the caller */
    MPI_Group world, other;
    SOK(MPI_Group_from_session_pset(session, "mpi://WORLD", &world));
    const int next = (g_rank + 1) % size;
    SOK(MPI_Group_incl(world, 1, &next, &other));
    SEXPECT(MPI_ERR_GROUP, MPI_Comm_create_from_group(other, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
    SOK(MPI_Group_free(&other));
    SOK(MPI_Group_free(&world));
  }
  /* The empty group: a local call, MPI_COMM_NULL. */
  comm = MPI_COMM_WORLD;
  SOK(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
  SCHECK(comm == MPI_COMM_NULL, "MPI_GROUP_EMPTY gave a communicator");

  /* Error handlers of the wrong kind or gone. */
  SEXPECT(MPI_ERR_ARG, MPI_Session_set_errhandler(session, MPI_ERRHANDLER_NULL));
  SOK(MPI_Errhandler_free(&for_comms));
  SOK(MPI_Errhandler_free(&for_sessions));
  SEXPECT(MPI_ERR_ARG, MPI_Errhandler_free(&for_sessions));
  SEXPECT(MPI_ERR_ARG, MPI_Session_create_errhandler(NULL, &for_sessions));
  SEXPECT(MPI_ERR_ARG, MPI_Session_create_errhandler(session_handler, NULL));
  SEXPECT(MPI_ERR_ARG, MPI_Session_get_errhandler(session, NULL));

  /* Nothing broke: the session still lists its sets and makes communicators. */
  SOK(MPI_Session_get_num_psets(session, MPI_INFO_NULL, &n));
  SCHECK(n == 2, "%d process sets after the errors", n);
  MPI_Comm after = comm_of_pset(session, "mpi://WORLD", "after.errors");
  exercise(after, 7);
  SOK(MPI_Comm_free(&after));
}

static int run_main(int argc, char** argv) {
  /* Info objects and session handlers may be made before any initialization. */
  MPI_Info sinfo;
  SOK(MPI_Info_create(&sinfo));
  SOK(MPI_Info_set(sinfo, "thread_level", "MPI_THREAD_MULTIPLE"));
  MPI_Session session;
  SOK(MPI_Session_init(sinfo, MPI_ERRORS_RETURN, &session));
  SOK(MPI_Info_free(&sinfo));
  const int size = world_size_of(session);
  int flag = -1;
  SOK(MPI_Initialized(&flag));
  SCHECK(flag == 0, "MPI_Initialized says %d in a sessions-only program", flag);
  SOK(MPI_Finalized(&flag));
  SCHECK(flag == 0, "MPI_Finalized says %d", flag);

  MPI_Info used;
  SOK(MPI_Session_get_info(session, &used));
  char level[64];
  SOK(MPI_Info_get(used, "thread_level", (int)sizeof level - 1, level, &flag));
  SCHECK(flag && strcmp(level, "MPI_THREAD_FUNNELED") == 0, "thread_level \"%s\"", flag ? level : "");
  SOK(MPI_Info_free(&used));
  list_psets(session, size);

  /* A communicator of mpi://WORLD: point-to-point and collectives. */
  MPI_Comm world = comm_of_pset(session, "mpi://WORLD", "twinfab.test.world");
  int crank = -1, csize = -1;
  SOK(MPI_Comm_rank(world, &crank));
  SOK(MPI_Comm_size(world, &csize));
  SCHECK(crank == g_rank && csize == size, "rank %d of %d", crank, csize);
  MPI_Errhandler eh;
  SOK(MPI_Comm_get_errhandler(world, &eh));
  SCHECK(eh == MPI_ERRORS_RETURN, "the errhandler argument was not used");
  SOK(MPI_Errhandler_free(&eh));
  exercise(world, 1);
  /* mpi://SELF */
  MPI_Comm self = comm_of_pset(session, "mpi://SELF", "twinfab.test.self");
  SOK(MPI_Comm_size(self, &csize));
  SCHECK(csize == 1, "mpi://SELF communicator of %d", csize);
  int mine = 17, back = -1;
  SOK(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 1, &back, 1, MPI_INT, 0, 1, self, MPI_STATUS_IGNORE));
  SCHECK(back == 17, "self message %d", back);

  /* Same group, two stringtags: two communicators. */
  MPI_Comm world2 = comm_of_pset(session, "mpi://WORLD", "twinfab.test.world.2");
  check_distinct(world, world2);
  overlapping(session, size);

  /* A second session at once, with communicators of its own. */
  MPI_Session other;
  SOK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &other));
  SCHECK(other != session, "two sessions with one handle");
  MPI_Comm other_world = comm_of_pset(other, "mpi://WORLD", "twinfab.test.world");  /* same stringtag, later */
  check_distinct(world, other_world);
  exercise(other_world, 2);
  SOK(MPI_Session_get_info(other, &used));
  SOK(MPI_Info_get(used, "thread_level", (int)sizeof level - 1, level, &flag));
  SCHECK(flag && strcmp(level, "MPI_THREAD_SINGLE") == 0, "default thread_level \"%s\"", level);
  SOK(MPI_Info_free(&used));
  session_errhandlers(other);

  /* MPI_Init after the sessions: the World model joins them. */
  MPI_Init(&argc, &argv);
  SOK(MPI_Initialized(&flag));
  SCHECK(flag == 1, "MPI_Initialized says %d after MPI_Init", flag);
  int wrank = -1;
  SOK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  SCHECK(wrank == g_rank, "MPI_COMM_WORLD rank %d", wrank);
  SOK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  exercise(MPI_COMM_WORLD, 5);
  MPI_Comm dup;
  SOK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  check_distinct(MPI_COMM_WORLD, world);
  check_distinct(dup, world);
  check_distinct(world, dup);
  /* A session made in the World model. */
  MPI_Session late;
  SOK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &late));
  MPI_Comm late_world = comm_of_pset(late, "mpi://WORLD", "twinfab.test.late");
  check_distinct(late_world, MPI_COMM_WORLD);
  /* MPI_Comm_create_from_group in the World model, from MPI_COMM_WORLD's group. */
  MPI_Group wgroup;
  SOK(MPI_Comm_group(MPI_COMM_WORLD, &wgroup));
  MPI_Comm from_world;
  SOK(MPI_Comm_create_from_group(wgroup, "twinfab.test.from.world", MPI_INFO_NULL, MPI_ERRORS_RETURN, &from_world));
  SOK(MPI_Group_free(&wgroup));
  exercise(from_world, 6);
  SOK(MPI_Comm_free(&from_world));

  error_paths(other, size);

  /* MPI_Finalize with sessions open: the World model ends, the sessions go on. */
  SOK(MPI_Comm_free(&dup));
  SOK(MPI_Finalize());
  SOK(MPI_Finalized(&flag));
  SCHECK(flag == 1, "MPI_Finalized says %d after MPI_Finalize", flag);
  SOK(MPI_Initialized(&flag));
  SCHECK(flag == 1, "MPI_Initialized says %d after MPI_Finalize", flag);
  exercise(world, 8);
  exercise(late_world, 9);

  SOK(MPI_Comm_free(&late_world));
  SOK(MPI_Session_finalize(&late));
  SOK(MPI_Comm_free(&other_world));
  SOK(MPI_Session_finalize(&other));
  SOK(MPI_Comm_free(&world2));
  SOK(MPI_Comm_free(&self));
  SOK(MPI_Comm_free(&world));
  const int rank = g_rank;
  SOK(MPI_Session_finalize(&session));  /* the last: collective, MPI ends */
  /* Info calls still work after everything is finalized. */
  SOK(MPI_Info_create(&sinfo));
  SOK(MPI_Info_free(&sinfo));
  if (rank == 0) printf("sessions: %d ranks ok\n", size);
  return 0;
}

/* MPI_Init first, then a session, finalized before MPI_Finalize. */
static int run_world_first(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Session session;
  SOK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
  MPI_Comm comm = comm_of_pset(session, "mpi://WORLD", "world.first");
  check_distinct(comm, MPI_COMM_WORLD);
  exercise(comm, 1);
  SOK(MPI_Comm_free(&comm));
  SOK(MPI_Session_finalize(&session));  /* local: the World model keeps MPI */
  exercise(MPI_COMM_WORLD, 2);
  int flag = -1;
  SOK(MPI_Initialized(&flag));
  SCHECK(flag == 1, "MPI_Initialized says %d", flag);
  MPI_Finalize();
  if (g_rank == 0) printf("sessions world-first: ok\n");
  return 0;
}

/* Two ranks order two calls differently: they must not pair up. */
static int run_crossed(void) {
  MPI_Session session;
  SOK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
  world_size_of(session);
  MPI_Group group;
  SOK(MPI_Group_from_session_pset(session, "mpi://WORLD", &group));
  MPI_Comm alpha = MPI_COMM_NULL, beta = MPI_COMM_NULL;
  if (g_rank == 0) {
    SOK(MPI_Comm_create_from_group(group, "alpha", MPI_INFO_NULL, MPI_ERRORS_RETURN, &alpha));
    SOK(MPI_Comm_create_from_group(group, "beta", MPI_INFO_NULL, MPI_ERRORS_RETURN, &beta));
  } else {
    SOK(MPI_Comm_create_from_group(group, "beta", MPI_INFO_NULL, MPI_ERRORS_RETURN, &beta));
    SOK(MPI_Comm_create_from_group(group, "alpha", MPI_INFO_NULL, MPI_ERRORS_RETURN, &alpha));
  }
  /* Only reached if the stringtags were ignored: say so, and end cleanly (exit 0),
   * which the test's expected deadlock refuses. */
  printf("MIXED: rank %d paired its calls with another rank's different stringtag\n", g_rank);
  SOK(MPI_Comm_free(&alpha));
  SOK(MPI_Comm_free(&beta));
  SOK(MPI_Group_free(&group));
  SOK(MPI_Session_finalize(&session));
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "") == 0) return run_main(argc, argv);
  if (strcmp(mode, "world-first") == 0) return run_world_first(argc, argv);
  if (strcmp(mode, "crossed") == 0) return run_crossed();
  MPI_Session session;
  SOK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
  world_size_of(session);
  if (strcmp(mode, "world-without-init") == 0) {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);  /* MPI_ERR_COMM: no World model; fatal */
    printf("MPI_COMM_WORLD worked without MPI_Init\n");
  } else if (strcmp(mode, "world-after-finalize") == 0) {
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);  /* MPI_ERR_COMM: the World model ended; fatal */
    printf("MPI_COMM_WORLD worked after MPI_Finalize\n");
  } else if (strcmp(mode, "unfinalized") == 0) {
    if (g_rank == 1) return 0;  /* a session left open */
    SOK(MPI_Session_finalize(&session));
  } else if (strcmp(mode, "reinit") == 0) {
    SOK(MPI_Session_finalize(&session));  /* the last: MPI ends */
    SEXPECT(MPI_ERR_UNSUPPORTED_OPERATION, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
    if (g_rank == 0) printf("sessions reinit: refused\n");
  } else if (strcmp(mode, "null-session") == 0) {
    int n;
    MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n);  /* no object, no World model: fatal */
    printf("an invalid session was not fatal\n");
  } else {
    fprintf(stderr, "sessions: unknown mode '%s'\n", mode);
    return 2;
  }
  return 0;
}
