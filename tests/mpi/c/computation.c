/* The program's computation between MPI calls as simulated time (`twinfab sim
 * --simulate-computation [--compute-scale F]`, docs/mpi.md): argument 1 is the scale
 * the run was given, 0 for a run without --simulate-computation (computation then
 * takes no simulated time); "threshold=1ms" as argument 2 for a run with
 * --cpu-threshold=1ms.
 *
 * The program measures its own CPU time with the raw clock_gettime system call (the
 * clock_gettime it links goes through the library and reads simulated time) and only
 * around pure computation: while a rank waits (in MPI, in a sleep) the other ranks run
 * on the same thread, whose CPU clock then counts their work too. What the simulator
 * spends for a burst is at least what the program measured inside it (the burst runs
 * from the end of one MPI call to the start of the next). */
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mpitest.h"

static double cpu_now(void) {
  struct timespec ts;
  if (syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Computes for about `seconds` of CPU time; returns the CPU time it took. */
static double compute(double seconds) {
  volatile double x = 0;
  const double start = cpu_now();
  while (cpu_now() - start < seconds)
    for (int i = 0; i < 1000; ++i) x += i * 0.5;
  return cpu_now() - start;
}

/* A user-defined reduction operation that computes, with MPI calls from inside the
 * MPI_Allreduce that applies it before and after. */
static double op_cpu = 0; /* what the operation computed, this rank */
static void computing_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* nested: must not end the outer call's accounting */
  op_cpu += compute(0.005);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* nested: must not spend what the line above computed */
  for (int i = 0; i < *len; ++i) ((double*)inout)[i] += ((double*)in)[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(argc == 2 || argc == 3, "usage: computation SCALE [threshold=1ms] (SCALE 0: computation is not simulated)");
  const double scale = atof(argv[1]);
  CHECK(cpu_now() >= 0, "the raw CPU clock is not readable");
  const double slack = 50e-6; /* the few calls around a measured segment, at any scale */

  /* 1. A burst between two clock reads. */
  OK(MPI_Barrier(MPI_COMM_WORLD));
  double t0 = MPI_Wtime();
  double cpu = compute(0.01);
  double elapsed = MPI_Wtime() - t0;
  if (scale == 0) {
    CHECK(elapsed < 1e-6, "%.9f s of simulated time passed over %.6f s of computation without "
          "--simulate-computation (only the clock read's 10 ns should)", elapsed, cpu);
  } else {
    CHECK(elapsed >= scale * cpu * 0.999 && elapsed <= scale * (cpu + slack) * 1.05,
          "%.6f s of simulated time over %.6f s of computation at scale %g", elapsed, cpu, scale);
  }

  /* 2. A sleep in the middle of a burst: the computation on either side is spent, the
   * sleep's time too, and nothing the other ranks computed while this one slept. */
  OK(MPI_Barrier(MPI_COMM_WORLD));
  t0 = MPI_Wtime();
  cpu = compute(0.004);
  usleep(1000);
  cpu += compute(0.004);
  elapsed = MPI_Wtime() - t0;
  const double expected = scale * cpu + 1e-3;
  CHECK(elapsed >= expected * 0.999 && elapsed <= (scale * (cpu + slack) + 1e-3) * 1.05,
        "%.6f s of simulated time over %.6f s of computation at scale %g and a 1 ms sleep", elapsed, cpu, scale);

  /* 3. A message sent after computing arrives that much later. */
  if (size >= 2) {
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
      double spent = compute(0.01);
      OK(MPI_Send(&spent, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD));
    } else if (rank == 0) {
      double spent = 0;
      t0 = MPI_Wtime();
      OK(MPI_Recv(&spent, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      elapsed = MPI_Wtime() - t0;
      if (scale == 0)
        CHECK(elapsed < 1e-3, "the message took %.6f s though rank 1's computation takes no time", elapsed);
      else
        CHECK(elapsed >= scale * spent - 1e-4, "the message took %.6f s after rank 1 computed %.6f s at scale %g",
              elapsed, spent, scale);
    }
  }

  /* 4. Bursts below the threshold are not spent: with a threshold of 1 ms (the second
   * argument says the run has --cpu-threshold=1ms) the few instructions between the
   * calls of a loop of clock reads leave only the reads' own cost, 10 ns each. (With
   * the default 1 us the odd burst an interrupt lengthened is spent, so the figure is
   * not exact; every burst spent would add ~0.5 us per read here, most of it the CPU
   * clock's own system call.) */
  const int threshold_1ms = argc > 2 && strcmp(argv[2], "threshold=1ms") == 0;
  OK(MPI_Barrier(MPI_COMM_WORLD));
  t0 = MPI_Wtime();
  for (int i = 0; i < 1000; ++i) (void)MPI_Wtime();
  elapsed = MPI_Wtime() - t0;
  if (scale == 0 || threshold_1ms)
    CHECK(elapsed < 1001 * 10e-9 * 1.01, "1000 clock reads took %.9f s of simulated time", elapsed);

  /* 5. Computation inside an MPI call (a user-defined operation, with MPI calls nested
   * in it) is not spent: only the outermost call starts and ends a burst. The burst
   * after the call is spent as in 1. */
  if (size >= 2) {
    MPI_Op op;
    OK(MPI_Op_create(computing_sum, 1, &op));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    double in = rank, out = 0;
    op_cpu = 0;
    t0 = MPI_Wtime();
    OK(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, op, MPI_COMM_WORLD));
    elapsed = MPI_Wtime() - t0;
    CHECK(out == size * (size - 1) / 2.0, "the reduction gave %g", out);
    /* op_cpu is this rank's own: an operation applied by another rank does not count */
    CHECK(elapsed < 1e-3, "MPI_Allreduce took %.6f s of simulated time; its operation computed %.6f s here, "
          "which is inside the call and must not be spent", elapsed, op_cpu);
    t0 = MPI_Wtime();
    cpu = compute(0.01);
    elapsed = MPI_Wtime() - t0;
    if (scale == 0)
      CHECK(elapsed < 1e-6, "%.9f s of simulated time after a nested call, without --simulate-computation", elapsed);
    else
      CHECK(elapsed >= scale * cpu * 0.999 && elapsed <= scale * (cpu + slack) * 1.05,
            "%.6f s of simulated time over %.6f s of computation after a nested call, at scale %g", elapsed, cpu,
            scale);
    OK(MPI_Op_free(&op));
  }

  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("computation: %d ranks, scale %g ok\n", size, scale);
  MPI_Finalize();
  return 0;
}
