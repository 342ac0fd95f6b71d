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

/* The byte every test message holds at `index`, from `rank`, for `seq`. */
static inline unsigned char pattern(int rank, int seq, size_t index) {
  return (unsigned char)(rank * 31 + seq * 7 + index * 13 + (index >> 8));
}

#endif
