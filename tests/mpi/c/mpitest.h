/* Helpers shared by the MPI C test programs: a failed check prints where and why,
 * then aborts the whole job with status 1, so ctest sees the failure. */
#ifndef TWINFAB_MPITEST_H
#define TWINFAB_MPITEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                          \
  do {                                                                            \
    if (!(cond)) {                                                                \
      int check_rank_ = -1;                                                       \
      MPI_Comm_rank(MPI_COMM_WORLD, &check_rank_);                                \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", check_rank_, __FILE__, \
              __LINE__, #cond);                                                   \
      fprintf(stderr, __VA_ARGS__);                                               \
      fprintf(stderr, "\n");                                                      \
      MPI_Abort(MPI_COMM_WORLD, 1);                                               \
    }                                                                             \
  } while (0)

/* A call that must succeed (under MPI_ERRORS_RETURN too). */
#define OK(call)                                                          \
  do {                                                                    \
    int ok_rc_ = (call);                                                  \
    CHECK(ok_rc_ == MPI_SUCCESS, "%s returned %d", #call, ok_rc_);        \
  } while (0)

/* A call that must fail with this error class (the communicator's handler must be
 * MPI_ERRORS_RETURN). */
#define EXPECT_CLASS(expected, call)                                                   \
  do {                                                                                 \
    int ec_rc_ = (call), ec_class_ = -1;                                               \
    MPI_Error_class(ec_rc_, &ec_class_);                                               \
    CHECK(ec_class_ == (expected), "%s gave class %d, expected %s (%d)", #call,        \
          ec_class_, #expected, (int)(expected));                                      \
  } while (0)

/* MPI_T counters read by name (class COUNTER). counters_start() opens a session and
 * a handle per name, started unless the variable is continuous (MPI_T_pvar_start
 * refuses those); an MPI_T counter counts from its handle's start, so start before
 * the traffic. counter_read(c, i) reads the i-th name's; counters_free() ends it. */
#define MPITEST_MAX_COUNTERS 16
typedef struct {
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handles[MPITEST_MAX_COUNTERS];
  const char* const* names;
  int n;
} mpitest_counters;

static inline void counters_start(mpitest_counters* c, const char* const* names, int n) {
  CHECK(n <= MPITEST_MAX_COUNTERS, "%d counters, at most %d", n, MPITEST_MAX_COUNTERS);
  c->names = names;
  c->n = n;
  OK(MPI_T_pvar_session_create(&c->session));
  for (int i = 0; i < n; ++i) {
    int index = -1, count = 0, verbose, var_class, bind, readonly, continuous, atomic;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    CHECK(MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &index) == MPI_SUCCESS, "no pvar %s", names[i]);
    OK(MPI_T_pvar_get_info(index, NULL, NULL, &verbose, &var_class, &type, &enumtype, NULL, NULL, &bind, &readonly,
                           &continuous, &atomic));
    CHECK(MPI_T_pvar_handle_alloc(c->session, index, NULL, &c->handles[i], &count) == MPI_SUCCESS, "handle of %s",
          names[i]);
    if (!continuous) OK(MPI_T_pvar_start(c->session, c->handles[i]));
  }
}

static inline unsigned long long counter_read(const mpitest_counters* c, int i) {
  unsigned long long value = 0;
  CHECK(MPI_T_pvar_read(c->session, c->handles[i], &value) == MPI_SUCCESS, "reading %s", c->names[i]);
  return value;
}

static inline void counters_free(mpitest_counters* c) {
  for (int i = 0; i < c->n; ++i) OK(MPI_T_pvar_handle_free(c->session, &c->handles[i]));
  OK(MPI_T_pvar_session_free(&c->session));
}

/* The byte every test message holds at `index`, from `rank`, for `seq`. */
static inline unsigned char pattern(int rank, int seq, size_t index) {
  return (unsigned char)(rank * 31 + seq * 7 + index * 13 + (index >> 8));
}

#endif
