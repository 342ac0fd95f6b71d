/* The shared-memory channel (issue 32; docs/shm.md): ranks of one host talk through
 * shared memory, the others through the network, and a program cannot tell but by
 * the time it takes.
 *
 *   shm on|off [latency]
 *
 * Every rank exchanges messages of every protocol's sizes (empty, tiny, eager in one
 * and in many packets, rendezvous) with every other rank, in both directions, and
 * checks their bytes; then every rank sends a numbered series to rank 0, which takes
 * them with MPI_ANY_SOURCE and checks each sender's order; then one-sided puts and gets
 * through a window. From the channel's MPI_T counters:
 *   on   a rank with another rank on its host sent and received packets through shared
 *        memory (and, with `latency`, in the simulator, moved its rendezvous and
 *        one-sided data by single copies, which hardware allows only with ptrace
 *        permission: docs/shm.md); a rank alone on its host sent none;
 *   off  nobody sent any (TWINFAB_SHM=0).
 * With `latency` (the simulator: its times are deterministic), rank 0 also times an
 * 8-byte ping-pong with rank 1 (same host) and with the first rank of another host, prints
 * "shm: latency local L us remote R us" and checks L < R / 2.
 * Prints "shm: OK" from rank 0.
 */
#include "mpitest.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPVARS 3
static const char* kPvarNames[NPVARS] = {"twinfab_channel_shm_packets_sent", "twinfab_channel_shm_packets_received",
                                         "twinfab_channel_shm_single_copies"};
static mpitest_counters counters;
static int rank, size;

static unsigned char byte_of(int from, int to, size_t i) { return (unsigned char)(from * 31 + to * 7 + i * 13); }

/* Every size class of the engine's protocols (tiny, short in one packet, short in
 * many, rendezvous) and the empty message. */
static const size_t kSizes[] = {0, 1, 8, 1000, 7000, 20000, 300000};
#define NSIZES (sizeof kSizes / sizeof kSizes[0])

static void exchange_all(void) {
  const size_t biggest = kSizes[NSIZES - 1];
  unsigned char* out = malloc(biggest);
  unsigned char* in = malloc(biggest);
  CHECK(out && in, "no memory");
  for (int step = 1; step < size; ++step) {
    const int to = (rank + step) % size, from = (rank - step + size) % size;
    for (size_t s = 0; s < NSIZES; ++s) {
      const size_t n = kSizes[s];
      for (size_t i = 0; i < n; ++i) out[i] = byte_of(rank, to, i);
      memset(in, 0xee, biggest);
      MPI_Status status;
      MPI_Sendrecv(out, (int)n, MPI_BYTE, to, (int)s, in, (int)biggest, MPI_BYTE, from, (int)s, MPI_COMM_WORLD,
                   &status);
      int got = -1;
      MPI_Get_count(&status, MPI_BYTE, &got);
      CHECK(got == (int)n, "%d bytes from rank %d, expected %zu", got, from, n);
      for (size_t i = 0; i < n; ++i)
        CHECK(in[i] == byte_of(from, rank, i), "byte %zu of %zu from rank %d is %d", i, n, from, in[i]);
      CHECK(n == biggest || in[n] == 0xee, "rank %d wrote past %zu bytes", from, n);
    }
  }
  free(out);
  free(in);
}

/* Per-sender order with MPI_ANY_SOURCE: senders of the host and of others mixed. */
static void ordered_to_root(void) {
  enum { kSeries = 40 };
  if (rank != 0) {
    for (int i = 0; i < kSeries; ++i) {
      int message[2] = {rank, i};
      MPI_Send(message, 2, MPI_INT, 0, 5, MPI_COMM_WORLD);
    }
    return;
  }
  int* next = calloc((size_t)size, sizeof(int));
  CHECK(next, "no memory");
  for (int k = 0; k < kSeries * (size - 1); ++k) {
    int message[2];
    MPI_Recv(message, 2, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(message[0] > 0 && message[0] < size, "sender %d", message[0]);
    CHECK(message[1] == next[message[0]], "rank %d's message %d came where %d was due", message[0], message[1],
          next[message[0]]);
    ++next[message[0]];
  }
  free(next);
}

static void one_sided(void) {
  enum { kWords = 4096 };
  long* base = NULL;
  MPI_Win win;
  MPI_Win_allocate(kWords * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < kWords; ++i) base[i] = -1;
  long* mine = malloc(kWords * sizeof(long));
  CHECK(mine, "no memory");
  for (int i = 0; i < kWords; ++i) mine[i] = (long)rank * 100000 + i;
  const int to = (rank + 1) % size, from = (rank - 1 + size) % size;
  MPI_Win_fence(0, win);
  MPI_Put(mine, kWords, MPI_LONG, to, 0, kWords, MPI_LONG, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < kWords; ++i) CHECK(base[i] == (long)from * 100000 + i, "word %d put by rank %d is %ld", i, from, base[i]);
  memset(mine, 0, kWords * sizeof(long));
  MPI_Get(mine, kWords, MPI_LONG, to, 0, kWords, MPI_LONG, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < kWords; ++i) CHECK(mine[i] == (long)rank * 100000 + i, "word %d got from rank %d is %ld", i, to, mine[i]);
  /* An atomic (through the network even to a rank of this host) then a put behind it. */
  long one = 1, old = -5;
  MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win);
  MPI_Fetch_and_op(&one, &old, MPI_LONG, to, 0, MPI_SUM, win);
  MPI_Win_unlock(to, win);
  CHECK(old == (long)rank * 100000, "fetch-and-add at rank %d read %ld", to, old);
  free(mine);
  MPI_Win_free(&win);
}

static double pingpong(int peer) {
  enum { kRounds = 200 };
  char buffer[8] = {0};
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0 && rank != peer) return 0;
  const double began = MPI_Wtime();
  for (int i = 0; i < kRounds; ++i) {
    if (rank == 0) {
      MPI_Send(buffer, 8, MPI_BYTE, peer, 9, MPI_COMM_WORLD);
      MPI_Recv(buffer, 8, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer, 8, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, 8, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - began) / kRounds / 2 * 1e6;
}

int main(int argc, char** argv) {
  int provided;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(argc > 1 && (!strcmp(argv[1], "on") || !strcmp(argv[1], "off")), "usage: shm on|off [latency]");
  const int on = !strcmp(argv[1], "on");
  const int latency = argc > 2 && !strcmp(argv[2], "latency");
  counters_start(&counters, kPvarNames, NPVARS);

  /* Who shares this rank's host. */
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  int host_size = 0;
  MPI_Comm_size(host, &host_size);

  exchange_all();
  ordered_to_root();
  one_sided();
  MPI_Barrier(MPI_COMM_WORLD);
  const unsigned long long sent = counter_read(&counters, 0), received = counter_read(&counters, 1),
                           copies = counter_read(&counters, 2);
  if (on && host_size > 1) {
    CHECK(sent > 0 && received > 0, "rank %d shares its host with %d ranks but sent %llu and received %llu packets "
          "through shared memory", rank, host_size - 1, sent, received);
    /* The simulator always allows single copies (hardware: docs/shm.md). */
    if (latency) CHECK(copies > 0, "rank %d moved no rendezvous or one-sided data by a single copy", rank);
  } else {
    CHECK(sent == 0 && received == 0 && copies == 0,
          "rank %d (shared memory %s, %d rank(s) on its host) sent %llu, received %llu packets and made %llu "
          "single copies through shared memory", rank, on ? "on" : "off", host_size, sent, received, copies);
  }

  if (latency) {
    /* Rank 1 on rank 0's host, `host_size` ranks per host: rank host_size is on another. */
    int first_host = 0;
    if (rank == 0) first_host = host_size;
    MPI_Bcast(&first_host, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(first_host > 1 && first_host < size, "the latency check needs 2+ ranks per host and 2+ hosts");
    const double local = pingpong(1);
    const double remote = pingpong(first_host);
    if (rank == 0) {
      printf("shm: latency local %.3f us remote %.3f us\n", local, remote);
      if (on) CHECK(local < remote / 2, "the local ping-pong (%.3f us) is not below half the remote one (%.3f us)", local, remote);
    }
  }
  MPI_Comm_free(&host);
  counters_free(&counters);
  MPI_Finalize();
  MPI_T_finalize();
  if (rank == 0) printf("shm: OK\n");
  return 0;
}
