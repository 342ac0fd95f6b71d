/* Shared helpers of seed 001's micro-benchmarks (scenarios/seed001/README.md).
 *
 * Every program prints CSV rows `experiment,design,lock,param,value,unit` on stdout from
 * one rank; design and lock are the TWINFAB_RMA and TWINFAB_RMA_LOCK values the run used
 * (the library's defaults, rdma and auto, when unset). Under `twinfab sim` MPI_Wtime is
 * simulated time and a sleep spends simulated time as computation (docs/mpi.md), so
 * compute_us() is how these programs stand for the seed's computation loops: the rank
 * makes no MPI progress while it computes, its HCA keeps serving RDMA. */
#ifndef SEED001_COMMON_H
#define SEED001_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#define OK(call)                                                                       \
  do {                                                                                 \
    int rc_ = (call);                                                                  \
    if (rc_ != MPI_SUCCESS) {                                                          \
      char msg_[MPI_MAX_ERROR_STRING];                                                 \
      int len_ = 0;                                                                    \
      MPI_Error_string(rc_, msg_, &len_);                                              \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, msg_);      \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                    \
    }                                                                                  \
  } while (0)

static inline const char* env_or(const char* name, const char* fallback) {
  const char* v = getenv(name);
  return (v && *v) ? v : fallback;
}

/* One CSV row; `design` may be overridden (the two-sided baseline says "twosided"). */
static inline void row_as(const char* experiment, const char* design, const char* param, double value,
                          const char* unit) {
  printf("%s,%s,%s,%s,%.4f,%s\n", experiment, design, env_or("TWINFAB_RMA_LOCK", "auto"), param, value, unit);
  fflush(stdout);
}

static inline void row(const char* experiment, const char* param, double value, const char* unit) {
  row_as(experiment, env_or("TWINFAB_RMA", "rdma"), param, value, unit);
}

static inline void usage_exit(int rank, const char* usage) {
  if (rank == 0) fprintf(stderr, "usage: %s\n", usage);
  MPI_Finalize();
  exit(2);
}

/* A positive count from the command line, or exit with the usage. */
static inline long parse_count(const char* s, const char* what, int rank, const char* usage) {
  char* end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < 0) {
    if (rank == 0) fprintf(stderr, "%s '%s' is not a non-negative integer\n", what, s);
    usage_exit(rank, usage);
  }
  return v;
}

/* A count of at least 1 (iterations, burst sizes). */
static inline long parse_positive(const char* s, const char* what, int rank, const char* usage) {
  const long v = parse_count(s, what, rank, usage);
  if (v < 1) {
    if (rank == 0) fprintf(stderr, "%s '%s' must be at least 1\n", what, s);
    usage_exit(rank, usage);
  }
  return v;
}

static inline double parse_double(const char* s, const char* what, int rank, const char* usage) {
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno != 0 || end == s || *end != '\0' || v < 0) {
    if (rank == 0) fprintf(stderr, "%s '%s' is not a non-negative number\n", what, s);
    usage_exit(rank, usage);
  }
  return v;
}

/* A comma-separated list of non-negative integers ("1,8,64"); returns the count. */
static inline int parse_list(const char* s, long* out, int max, const char* what, int rank, const char* usage) {
  int n = 0;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", s);
  for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    if (n == max) {
      if (rank == 0) fprintf(stderr, "%s: more than %d values\n", what, max);
      usage_exit(rank, usage);
    }
    out[n++] = parse_count(tok, what, rank, usage);
  }
  if (n == 0) usage_exit(rank, usage);
  return n;
}

/* Computation the seed did with counter loops: simulated time under `twinfab sim`. */
static inline void compute_us(double us) {
  if (us <= 0) return;
  struct timespec ts;
  ts.tv_sec = (time_t)(us / 1e6);
  ts.tv_nsec = (long)((us - (double)ts.tv_sec * 1e6) * 1e3);
  nanosleep(&ts, NULL);
}

/* A group of one rank of MPI_COMM_WORLD, or of ranks [lo, hi]. */
static inline MPI_Group group_range(int lo, int hi) {
  MPI_Group world, g;
  OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int range[1][3] = {{lo, hi, 1}};
  OK(MPI_Group_range_incl(world, 1, range, &g));
  OK(MPI_Group_free(&world));
  return g;
}

/* MPI_T performance variables (the RC channel's counters) this rank reads. */
typedef struct {
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handle;
} counter_t;

static inline void counter_open(counter_t* c, const char* name) {
  int index = -1, count = 0, provided = 0;
  OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  OK(MPI_T_pvar_session_create(&c->session));
  if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index) != MPI_SUCCESS) {
    fprintf(stderr, "no MPI_T performance variable %s\n", name);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  OK(MPI_T_pvar_handle_alloc(c->session, index, NULL, &c->handle, &count));
}

static inline unsigned long long counter_read(counter_t* c) {
  unsigned long long v = 0;
  OK(MPI_T_pvar_read(c->session, c->handle, &v));
  return v;
}

static inline void counter_close(counter_t* c) {
  MPI_T_pvar_session_free(&c->session);
  MPI_T_finalize();
}

#endif
