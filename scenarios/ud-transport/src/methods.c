/* methods: seed 004's comparison of its reliability methods (TWINFAB_UD_RELIABILITY),
 * a sender streaming to a receiver that computes between its receives.
 *
 * Rank 0 sends ROUNDS bursts of MESSAGES messages of BYTES bytes to rank 1 and, after
 * each burst, waits for rank 1's one-byte answer. Rank 1 computes COMPUTE_MS (usleep:
 * simulated time under twinfab sim, no MPI call meanwhile) before it receives each
 * burst. The receiver's computation is when the methods differ: under progress nothing
 * acknowledges the burst until rank 1 is back in MPI (the sender's timeout re-sends
 * it: unnecessary re-sends, counted as duplicates at the receiver), under thread a
 * watchdog acknowledges at its next wake-up, under hybrid the first timeout's re-send
 * wakes the receiver's interrupt-driven agent. Rank 0 prints:
 *   result seconds=<completion time> retransmissions=<timeouts> nack_retransmissions=<...>
 *          duplicates=<unnecessary arrivals> agent_wakeups=<...> agent_packets=<...>
 * (counters summed over both ranks). Usage: methods ROUNDS MESSAGES BYTES COMPUTE_MS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NPVARS 5
static const char* names[NPVARS] = {"twinfab_channel_retransmissions", "twinfab_channel_nack_retransmissions",
                                    "twinfab_channel_duplicates_received", "twinfab_channel_agent_wakeups",
                                    "twinfab_channel_agent_packets"};

int main(int argc, char** argv) {
  int provided, rank;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int rounds = argc > 1 ? atoi(argv[1]) : 5;
  const int messages = argc > 2 ? atoi(argv[2]) : 16;
  const int bytes = argc > 3 ? atoi(argv[3]) : 1024;
  const int compute_ms = argc > 4 ? atoi(argv[4]) : 1000;
  if (rounds < 1 || messages < 1 || bytes < 0 || compute_ms < 0) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handles[NPVARS];
  MPI_T_pvar_session_create(&session);
  for (int i = 0; i < NPVARS; ++i) {
    int index, count;
    if (MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &index) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_T_pvar_handle_alloc(session, index, NULL, &handles[i], &count);
    MPI_T_pvar_start(session, handles[i]);
  }
  char* buf = calloc((size_t)messages, (size_t)bytes + 1);
  MPI_Request* req = malloc(sizeof(MPI_Request) * (size_t)messages);
  char answer = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int r = 0; r < rounds; ++r) {
    if (rank == 0) {
      for (int i = 0; i < messages; ++i)
        MPI_Isend(buf + (size_t)i * bytes, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[i]);
      MPI_Waitall(messages, req, MPI_STATUSES_IGNORE);
      MPI_Recv(&answer, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      if (compute_ms > 0) usleep((useconds_t)compute_ms * 1000u);
      for (int i = 0; i < messages; ++i)
        MPI_Irecv(buf + (size_t)i * bytes, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req[i]);
      MPI_Waitall(messages, req, MPI_STATUSES_IGNORE);
      MPI_Send(&answer, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
  }
  const double seconds = MPI_Wtime() - start;
  unsigned long long value[NPVARS], total[NPVARS];
  for (int i = 0; i < NPVARS; ++i) MPI_T_pvar_read(session, handles[i], &value[i]);
  MPI_Reduce(value, total, NPVARS, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("result seconds=%.6f retransmissions=%llu nack_retransmissions=%llu duplicates=%llu agent_wakeups=%llu "
           "agent_packets=%llu\n",
           seconds, total[0], total[1], total[2], total[3], total[4]);
  for (int i = 0; i < NPVARS; ++i) MPI_T_pvar_handle_free(session, &handles[i]);
  MPI_T_pvar_session_free(&session);
  free(req);
  free(buf);
  MPI_Finalize();
  MPI_T_finalize();
  return 0;
}
