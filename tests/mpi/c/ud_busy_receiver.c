/* Seed 004's case for its three reliability methods: a receiver that computes outside
 * MPI while packets wait for it (issue 31; run with TWINFAB_TRANSPORT=ud, no loss).
 *
 *   ud_busy_receiver METHOD [messages=8] [compute_ms=1500]
 *
 * Rank 0 sends `messages` small messages to rank 1 and waits in MPI_Recv for its
 * answer. Rank 1 computes (usleep: simulated time under twinfab sim) for compute_ms
 * before receiving them, so nobody there runs the progress engine meanwhile. No packet
 * is lost; every re-send is an unnecessary one. What each method must give, from the
 * channel's MPI_T counters (rank 0's re-sends, rank 1's agent):
 *   progress  rank 0's timeouts re-send every message, and again at the next
 *             timeout: retransmissions >= 2 x messages (compute_ms > 2 timeouts)
 *   thread    rank 1's watchdog takes the packets in and ACKs them at its wake-up,
 *             before rank 0's timeout (run with a wake-up below the timeout, as the
 *             seed's 1 s and 2 s): no retransmission, agent_packets >= messages
 *   hybrid    the first timeout re-sends to rank 1's interrupt QP, whose agent wakes
 *             and ACKs everything: one round of re-sends at most (1 <= R <= messages
 *             + 1: the barrier's last packet may be in flight too)
 * Prints: ud_busy_receiver: METHOD retransmissions R duplicates D agent_wakeups W agent_packets P
 */
#include "mpitest.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank;

#define NPVARS 4
static const char* kPvarNames[NPVARS] = {"twinfab_channel_retransmissions", "twinfab_channel_duplicates_received",
                                         "twinfab_channel_agent_wakeups", "twinfab_channel_agent_packets"};
static mpitest_counters counters;

int main(int argc, char** argv) {
  int provided, size;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "run with 2 ranks, not %d", size);
  CHECK(argc > 1, "usage: ud_busy_receiver progress|thread|hybrid [messages] [compute_ms]");
  const char* method = argv[1];
  const int messages = argc > 2 ? atoi(argv[2]) : 8;
  const int compute_ms = argc > 3 ? atoi(argv[3]) : 1500;
  CHECK(messages > 0 && messages <= 1000 && compute_ms > 0, "bad arguments");
  counters_start(&counters, kPvarNames, NPVARS);
  MPI_Barrier(MPI_COMM_WORLD);

  int answer = 0;
  if (rank == 0) {
    for (int i = 0; i < messages; ++i) MPI_Send(&i, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    MPI_Recv(&answer, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(answer == messages, "answer %d, expected %d", answer, messages);
  } else {
    const double began = MPI_Wtime();
    usleep((useconds_t)compute_ms * 1000u); /* computing, outside MPI */
    /* The agents' wake-ups must not lengthen it (the simulator once restarted a
       computation each time a wake-up touched the rank). */
    const double computed = MPI_Wtime() - began;
    CHECK(computed < compute_ms * 1.05e-3 + 0.05, "computing %d ms took %.3f s", compute_ms, computed);
    for (int i = 0; i < messages; ++i) {
      int got = -1;
      MPI_Recv(&got, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(got == i, "message %d carried %d", i, got);
      ++answer;
    }
    MPI_Send(&answer, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
  }

  /* Rank 0's re-sends, rank 1's duplicates and agent. */
  unsigned long long mine[NPVARS], all[2 * NPVARS];
  for (int i = 0; i < NPVARS; ++i) mine[i] = counter_read(&counters, i);
  MPI_Gather(mine, NPVARS, MPI_UNSIGNED_LONG_LONG, all, NPVARS, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const unsigned long long resent = all[0], duplicates = all[NPVARS + 1], wakeups = all[NPVARS + 2],
                             taken = all[NPVARS + 3];
    const unsigned long long m = (unsigned long long)messages;
    printf("ud_busy_receiver: %s retransmissions %llu duplicates %llu agent_wakeups %llu agent_packets %llu\n", method,
           resent, duplicates, wakeups, taken);
    if (strcmp(method, "progress") == 0) {
      CHECK(resent >= 2 * m, "progress engine only: %llu re-sends, expected the unnecessary ones (>= %llu)", resent,
            2 * m);
      CHECK(wakeups == 0, "progress engine only, but an agent woke %llu times", wakeups);
    } else if (strcmp(method, "thread") == 0) {
      CHECK(resent == 0, "the watchdog should have acknowledged before the timeout: %llu re-sends", resent);
      CHECK(taken >= m && wakeups >= 1, "the watchdog took %llu packets in %llu wake-ups, expected >= %llu", taken,
            wakeups, m);
    } else if (strcmp(method, "hybrid") == 0) {
      /* One round at most: each packet in flight (the messages, and the barrier's last
         packet when its ACK was still owed) re-sent once at most, never a second time.
         In the simulator all of them time out at one date and go again (m + 1); on
         hardware the first re-send can wake the agent, whose ACK comes before the other
         packets' timeouts (1 re-send). */
      CHECK(resent >= 1 && resent <= m + 1,
            "hybrid: %llu re-sends, expected 1 to %llu (one round, to the interrupt QP)", resent, m + 1);
      CHECK(wakeups >= 1 && taken >= m, "hybrid: the interrupt agent woke %llu times and took %llu packets", wakeups,
            taken);
    } else {
      CHECK(0, "unknown method '%s'", method);
    }
  }
  counters_free(&counters);
  MPI_Finalize();
  MPI_T_finalize();
  return 0;
}
