/* ud_stats: a 2-rank 8-byte ping-pong and a 64 KiB window bandwidth test (osu_bw style,
 * window 64), then the channel's reliability counters (MPI_T, summed over both ranks).
 * Rank 0 prints:
 *   result latency_us=<half round trip> bandwidth_MBps=<...> retransmissions=<timeouts>
 *          nack_retransmissions=<...> probes=<...> duplicates=<...> acks=<...>
 * Usage: ud_stats PINGPONG_ROUNDS BANDWIDTH_ROUNDS. Times: MPI_Wtime (simulated). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NPVARS 5
static const char* names[NPVARS] = {"twinfab_channel_retransmissions", "twinfab_channel_nack_retransmissions",
                                    "twinfab_channel_probes_sent", "twinfab_channel_duplicates_received",
                                    "twinfab_channel_acks_sent"};

int main(int argc, char** argv) {
  int provided, rank;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int rounds = argc > 1 ? atoi(argv[1]) : 100;
  const int bw_rounds = argc > 2 ? atoi(argv[2]) : 5;
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handles[NPVARS];
  MPI_T_pvar_session_create(&session);
  for (int i = 0; i < NPVARS; ++i) {
    int index, count;
    if (MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &index) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_T_pvar_handle_alloc(session, index, NULL, &handles[i], &count);
    MPI_T_pvar_start(session, handles[i]);
  }
  const int peer = 1 - rank;
  char small[8] = {0};
  double start = 0;
  for (int i = -10; i < rounds; ++i) {
    if (i == 0) start = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    }
  }
  const double latency = (MPI_Wtime() - start) / (2.0 * rounds) * 1e6;
  const int window = 64, size = 65536;
  char* buf = malloc((size_t)window * size);
  MPI_Request req[64];
  MPI_Barrier(MPI_COMM_WORLD);
  start = MPI_Wtime();
  for (int r = 0; r < bw_rounds; ++r) {
    for (int i = 0; i < window; ++i) {
      if (rank == 0) MPI_Isend(buf + (size_t)i * size, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[i]);
      else MPI_Irecv(buf + (size_t)i * size, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[i]);
    }
    MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
    if (rank == 0) MPI_Recv(small, 1, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else MPI_Send(small, 1, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
  }
  const double bandwidth = (double)size * window * bw_rounds / (MPI_Wtime() - start) / 1e6;
  unsigned long long value[NPVARS], total[NPVARS];
  for (int i = 0; i < NPVARS; ++i) MPI_T_pvar_read(session, handles[i], &value[i]);
  MPI_Reduce(value, total, NPVARS, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("result latency_us=%.3f bandwidth_MBps=%.1f retransmissions=%llu nack_retransmissions=%llu probes=%llu "
           "duplicates=%llu acks=%llu\n",
           latency, bandwidth, total[0], total[1], total[2], total[3], total[4]);
  for (int i = 0; i < NPVARS; ++i) MPI_T_pvar_handle_free(session, &handles[i]);
  MPI_T_pvar_session_free(&session);
  free(buf);
  MPI_Finalize();
  MPI_T_finalize();
  return 0;
}
