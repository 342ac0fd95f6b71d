/* The libc calls twinfab-mpicc links through the library (docs/mpi.md, "The program's
 * clocks, sleeps and getopt"):
 *  - getopt and getopt_long: every rank parses its own arguments from the start, though
 *    under `twinfab sim` all ranks share libc's getopt position; a barrier between two
 *    getopt calls makes the ranks' scans interleave;
 *  - gettimeofday, clock_gettime, time: the clock MPI_Wtime reads, which moves when
 *    read in a loop;
 *  - usleep, nanosleep, sleep: they spend that clock's time.
 * Arguments (the testlists give them): -v -n 42 --name=twinfab rest
 * With "simulated" as the last argument the clocks must match MPI_Wtime and the sleeps
 * take exactly their time (the simulator); without it, only at least their time. */
#define _GNU_SOURCE
#include <getopt.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "mpitest.h"

static double timeval_seconds(const struct timeval* tv) { return (double)tv->tv_sec + tv->tv_usec * 1e-6; }
static double timespec_seconds(const struct timespec* ts) { return (double)ts->tv_sec + ts->tv_nsec * 1e-9; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int simulated = argc > 1 && strcmp(argv[argc - 1], "simulated") == 0;

  /* getopt: -v and -n 42, with a barrier between the two calls. */
  int verbose = 0, number = -1, c;
  opterr = 0;
  int calls = 0;
  while ((c = getopt(argc, argv, "vn:")) != -1) {
    if (c == 'v') verbose = 1;
    else if (c == 'n') number = atoi(optarg);
    else break; /* --name: getopt_long's turn */
    if (++calls == 1) OK(MPI_Barrier(MPI_COMM_WORLD));
  }
  CHECK(verbose == 1 && number == 42, "getopt saw -v %d -n %d (optind %d)", verbose, number, optind);

  /* getopt_long from the start again (optind = 0: glibc's new scan), every rank. */
  static const struct option longopts[] = {{"name", required_argument, NULL, 'N'}, {NULL, 0, NULL, 0}};
  char name[32] = "";
  optind = 0;
  while ((c = getopt_long(argc, argv, "vn:", longopts, NULL)) != -1) {
    if (c == 'N') snprintf(name, sizeof name, "%s", optarg);
  }
  CHECK(strcmp(name, "twinfab") == 0, "getopt_long saw --name='%s'", name);
  CHECK(optind < argc && strcmp(argv[optind], "rest") == 0, "optind %d points at '%s'", optind,
        optind < argc ? argv[optind] : "(end)");
  OK(MPI_Barrier(MPI_COMM_WORLD));

  /* The clocks. */
  struct timeval tv;
  struct timespec mono, real;
  const double wtime = MPI_Wtime();
  CHECK(gettimeofday(&tv, NULL) == 0, "gettimeofday failed");
  CHECK(clock_gettime(CLOCK_MONOTONIC, &mono) == 0 && clock_gettime(CLOCK_REALTIME, &real) == 0,
        "clock_gettime failed");
  const time_t seconds = time(NULL);
  CHECK(clock_gettime((clockid_t)12345, &mono) == -1, "clock_gettime accepted clock 12345");
  if (simulated) {
    CHECK(timeval_seconds(&tv) - wtime < 1e-6 && timeval_seconds(&tv) >= wtime - 1e-6,
          "gettimeofday %.9f against MPI_Wtime %.9f", timeval_seconds(&tv), wtime);
    /* Each clock read costs the rank 10 ns (SMPI's smpi/wtime): three reads later. */
    CHECK(timespec_seconds(&real) - wtime < 1e-7 && timespec_seconds(&real) > wtime,
          "CLOCK_REALTIME %.9f against MPI_Wtime %.9f", timespec_seconds(&real), wtime);
    CHECK(seconds == (time_t)wtime, "time() %ld against MPI_Wtime %.9f", (long)seconds, wtime);
  }

  /* A program that waits by reading the clock (STREAM's checktick does) sees it move. */
  const double t0 = MPI_Wtime();
  while (MPI_Wtime() < t0 + 1e-6) {
  }
  struct timeval first, now;
  gettimeofday(&first, NULL);
  do gettimeofday(&now, NULL);
  while (now.tv_usec == first.tv_usec && now.tv_sec == first.tv_sec);

  /* The sleeps: 1 ms, 2.5 ms and 1 s. */
  const double before = MPI_Wtime();
  CHECK(usleep(1000) == 0, "usleep failed");
  const double after_usleep = MPI_Wtime();
  const struct timespec request = {0, 2500000};
  CHECK(nanosleep(&request, NULL) == 0, "nanosleep failed");
  const double after_nanosleep = MPI_Wtime();
  CHECK(sleep(1) == 0, "sleep returned early");
  const double after_sleep = MPI_Wtime();
  const double slept[3] = {after_usleep - before, after_nanosleep - after_usleep, after_sleep - after_nanosleep};
  const double asked[3] = {1e-3, 2.5e-3, 1.0};
  for (int i = 0; i < 3; ++i) {
    CHECK(slept[i] >= asked[i] - 1e-9, "sleep %d took %.9f s, asked %.9f", i, slept[i], asked[i]);
    if (simulated) CHECK(slept[i] <= asked[i] + 1e-7, /* + reading the clock */ "sleep %d took %.9f s, asked %.9f", i, slept[i], asked[i]);
  }

  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("libc_calls: getopt, clocks and sleeps ok\n");
  MPI_Finalize();
  return 0;
}
