/* pingpong: MPI point-to-point latency and bandwidth between ranks 0 and 1, like
 * osu_latency and osu_bw combined, for 8 B ... 4 MiB.
 *
 *   twinfab-mpicc -O2 -o pingpong examples/pingpong.c
 *   twinfab sim -n 2 --platform connectx-ddr ./pingpong [MAX_BYTES [BW_WINDOWS [MIN_BYTES]]]
 *   mpirun -n 2 ./pingpong 1048576 2        (on an RDMA device)
 *
 * MAX_BYTES: the largest size (default 4 MiB); BW_WINDOWS: the bandwidth test's
 * number of windows per size (default up to 20; slow software devices want fewer);
 * MIN_BYTES: the smallest size (default 8; sizes double from it).
 *
 * latency: half the round-trip time of a blocking ping-pong, averaged over the
 * timed rounds (osu_latency), and its median over the rounds ("typical", the figure
 * perftest's ib_send_lat reports first): rank 0 reads the clock once per round.
 * bandwidth: rank 0 posts a window of WINDOW nonblocking sends, rank 1 as many
 * receives, then a zero-byte ack (osu_bw).
 * As in the OSU benchmarks, each size starts with untimed warm-up rounds: the first
 * rounds pay one-time costs (connections, first touch of buffers, and, in a TCG
 * virtual machine, translating the code path) that are not the latency of a message.
 * Times are MPI_Wtime: simulated time under twinfab sim. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE (4 * 1024 * 1024)
#define WINDOW 64

/* Timed and warm-up rounds per size (osu_latency: 10000 and 100 up to 8 KiB, 1000 and
 * 10 above; fewer here, for slow software devices). */
static int iterations(size_t size) { return size <= 8192 ? 1000 : size <= 262144 ? 40 : 10; }
static int warm_up(size_t size) { return size <= 8192 ? 100 : 2; }

/* `rounds` blocking round trips of `n` bytes between ranks 0 and 1. On rank 0, with
 * `stamps` (rounds + 1 entries), the clock before each round and after the last. */
static void ping_pong(char* buf, size_t n, int rank, int rounds, double* stamps) {
  const int peer = 1 - rank;
  for (int i = 0; i < rounds; ++i) {
    if (stamps) stamps[i] = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
    }
  }
  if (stamps) stamps[rounds] = MPI_Wtime();
}

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Median of the `rounds` round times between consecutive stamps (rounds + 1 entries;
 * overwritten). */
static double median_round(double* stamps, int rounds) {
  for (int i = 0; i < rounds; ++i) stamps[i] = stamps[i + 1] - stamps[i];
  qsort(stamps, (size_t)rounds, sizeof *stamps, compare_doubles);
  return rounds % 2 ? stamps[rounds / 2] : (stamps[rounds / 2 - 1] + stamps[rounds / 2]) / 2;
}

/* `count` windows of WINDOW nonblocking messages of `n` bytes from rank 0 to rank 1,
 * each acknowledged by a zero-byte message. */
static void windows_of(char* buf, size_t n, int rank, int count) {
  const int peer = 1 - rank;
  MPI_Request req[WINDOW];
  for (int w = 0; w < count; ++w) {
    if (rank == 0) {
      for (int k = 0; k < WINDOW; ++k) MPI_Isend(buf, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[k]);
      MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
      MPI_Recv(NULL, 0, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int k = 0; k < WINDOW; ++k) MPI_Irecv(buf, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[k]);
      MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
      MPI_Send(NULL, 0, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "pingpong: run with exactly 2 ranks (twinfab sim -n 2 ./pingpong)\n");
    MPI_Finalize();
    return 1;
  }
  const size_t max_size = argc > 1 ? strtoul(argv[1], NULL, 10) : MAX_SIZE;
  const int max_windows = argc > 2 ? atoi(argv[2]) : 20;
  const size_t min_size = argc > 3 ? strtoul(argv[3], NULL, 10) : 8;
  if (min_size < 1 || min_size > max_size || max_size > MAX_SIZE || max_windows < 1) {
    if (rank == 0)
      fprintf(stderr, "pingpong: need 1 <= MIN_BYTES <= MAX_BYTES <= %d and BW_WINDOWS >= 1\n", MAX_SIZE);
    MPI_Finalize();
    return 1;
  }
  char* buf = malloc(max_size);
  double* stamps = malloc((iterations(1) + 1) * sizeof *stamps); /* the most rounds of any size */
  if (!buf || !stamps) {
    fprintf(stderr, "pingpong: out of memory for %zu bytes\n", max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(buf, rank + 1, max_size);
  if (rank == 0)
    printf("# twinfab pingpong (osu_latency + osu_bw style)\n%10s %14s %14s %16s\n", "bytes", "latency[us]",
           "typical[us]", "bandwidth[MB/s]");
  for (size_t n = min_size; n <= max_size; n *= 2) {
    const int iters = iterations(n);
    /* latency */
    MPI_Barrier(MPI_COMM_WORLD);
    ping_pong(buf, n, rank, warm_up(n), NULL);
    ping_pong(buf, n, rank, iters, rank == 0 ? stamps : NULL);
    const double latency = rank == 0 ? (stamps[iters] - stamps[0]) / (2.0 * iters) : 0;
    const double typical = rank == 0 ? median_round(stamps, iters) / 2 : 0;
    /* bandwidth */
    const int windows = iters > max_windows ? max_windows : iters;
    MPI_Barrier(MPI_COMM_WORLD);
    windows_of(buf, n, rank, n <= 8192 ? 10 : 1);
    const double t0 = MPI_Wtime();
    windows_of(buf, n, rank, windows);
    const double elapsed = MPI_Wtime() - t0;
    if (rank == 0)
      printf("%10zu %14.2f %14.2f %16.2f\n", n, latency * 1e6, typical * 1e6,
             (double)n * WINDOW * windows / elapsed / 1e6);
  }
  free(stamps);
  free(buf);
  MPI_Finalize();
  return 0;
}
