/* Every message exactly once, in order, bit-exact: the promise of a channel, checked
 * under loss (issue 31; run with TWINFAB_TRANSPORT=ud and `twinfab sim --loss P`).
 *
 *   reliable_stream [messages=40] [expect=any|ud|hybrid|hybrid-rdma]
 *
 * Every rank sends `messages` messages to every other rank (MPI_Isend, one tag), of
 * sizes cycling through 0 bytes, a few, one datagram, several datagrams and 20 KB, each
 * carrying its index and a pattern derived from (source, destination, index). Every
 * rank receives them with MPI_ANY_SOURCE receives and checks, per source, that the
 * indices come 0, 1, 2, ... (in order, none lost, none twice), that each has its
 * length, and that every byte is the pattern's (a checksum is compared too). Then, with MPI_T, the rank reads the channel's
 * reliability counters; with expect=ud it checks that they are there at all (the run is
 * over the UD channel: no RC connections), with expect=hybrid that RC connections were
 * made (TWINFAB_TRANSPORT=hybrid moved peers from UD to RC mid-stream), with
 * expect=hybrid-rdma also that messages went by RDMA rendezvous (to the peers on RC:
 * run with TWINFAB_EAGER_THRESHOLD below the 9000- and 20000-byte sizes), and prints them
 * summed over the job:
 *   reliable_stream: N ranks x M messages ok, retransmissions R, nack_retransmissions K, duplicates D, ...
 */
#include "mpitest.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int rank;

static const int kSizes[] = {0, 4, 8, 100, 1900, 2000, 4100, 9000, 20000};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))
#define HEADER 8 /* index (4 bytes) + checksum (4 bytes), when the message has room */

static int size_of(int src, int dst, int index) { return kSizes[(index + src * 3 + dst) % NSIZES]; }

static unsigned char stream_pattern(int src, int dst, int index, int at) {
  return (unsigned char)(src * 131 + dst * 31 + index * 7 + at * 13 + (at >> 8));
}

static uint32_t checksum(const unsigned char* p, int n) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < n; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void fill(unsigned char* buf, int src, int dst, int index) {
  const int n = size_of(src, dst, index);
  for (int i = 0; i < n; ++i) buf[i] = stream_pattern(src, dst, index, i);
  if (n >= HEADER) {
    uint32_t idx = (uint32_t)index;
    memcpy(buf, &idx, 4);
    uint32_t sum = checksum(buf + HEADER, n - HEADER);
    memcpy(buf + 4, &sum, 4);
  }
}

/* The channel counters read: handles made before the traffic (an MPI_T counter counts
 * from its handle's start), read after it, summed over the job. */
#define NPVARS 11
static const char* kPvarNames[NPVARS] = {"twinfab_channel_retransmissions",  "twinfab_channel_nack_retransmissions",
                                         "twinfab_channel_duplicates_received", "twinfab_channel_connections",
                                         "twinfab_channel_probes_sent",      "twinfab_channel_nacks_sent",
                                         "twinfab_channel_held_out_of_order", "twinfab_channel_datagrams_dropped",
                                         "twinfab_pt2pt_rendezvous_write_imm_messages",
                                         "twinfab_pt2pt_rendezvous_read_messages",
                                         "twinfab_pt2pt_rendezvous_write_fin_messages"};
static mpitest_counters counters;

static unsigned long long pvar_total(int i) {
  unsigned long long value = counter_read(&counters, i), sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

int main(int argc, char** argv) {
  int provided, size;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int messages = argc > 1 ? atoi(argv[1]) : 40;
  const int expect_ud = argc > 2 && strcmp(argv[2], "ud") == 0;
  const int expect_rdma = argc > 2 && strcmp(argv[2], "hybrid-rdma") == 0;
  const int expect_hybrid = expect_rdma || (argc > 2 && strcmp(argv[2], "hybrid") == 0);
  CHECK(messages > 0, "messages must be positive");
  counters_start(&counters, kPvarNames, NPVARS);

  const int peers = size - 1;
  const int max = 20000;
  unsigned char* out = malloc((size_t)peers * messages * max + 1);
  MPI_Request* sends = malloc(sizeof(MPI_Request) * (size_t)peers * messages + 1);
  int nsend = 0;
  for (int index = 0; index < messages; ++index) {
    for (int k = 1; k < size; ++k) {
      const int dst = (rank + k) % size;
      unsigned char* buf = out + (size_t)nsend * max;
      fill(buf, rank, dst, index);
      MPI_Isend(buf, size_of(rank, dst, index), MPI_BYTE, dst, 5, MPI_COMM_WORLD, &sends[nsend++]);
    }
  }

  /* Receive whatever comes first; per source, MPI's order is the order sent. */
  unsigned char* in = malloc(max);
  int* next = calloc((size_t)size, sizeof(int));
  for (int got = 0; got < peers * messages; ++got) {
    MPI_Status st;
    int n = 0;
    MPI_Recv(in, max, MPI_BYTE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_BYTE, &n);
    const int src = st.MPI_SOURCE;
    const int index = next[src]++;
    CHECK(index < messages, "message %d from rank %d: more than %d arrived", index, src, messages);
    const int want = size_of(src, rank, index);
    CHECK(n == want, "message %d from rank %d: %d bytes, expected %d (lost, doubled or reordered)", index, src, n,
          want);
    if (n >= HEADER) {
      uint32_t idx, sum;
      memcpy(&idx, in, 4);
      memcpy(&sum, in + 4, 4);
      CHECK(idx == (uint32_t)index, "from rank %d: message %u arrived where %d was expected (order)", src, idx, index);
      CHECK(sum == checksum(in + HEADER, n - HEADER), "message %d from rank %d: checksum mismatch", index, src);
    }
    for (int i = HEADER; i < n; ++i)
      CHECK(in[i] == stream_pattern(src, rank, index, i), "message %d from rank %d: byte %d is %d, expected %d", index, src,
            i, in[i], stream_pattern(src, rank, index, i));
  }
  for (int s = 0; s < size; ++s)
    CHECK(s == rank || next[s] == messages, "%d messages from rank %d, expected %d", next[s], s, messages);
  MPI_Waitall(nsend, sends, MPI_STATUSES_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);

  const unsigned long long retrans = pvar_total(0);
  const unsigned long long nack_retrans = pvar_total(1);
  const unsigned long long duplicates = pvar_total(2);
  const unsigned long long connections = pvar_total(3);
  const unsigned long long probes = pvar_total(4), nacks = pvar_total(5), held = pvar_total(6), dropped = pvar_total(7);
  const unsigned long long rendezvous = pvar_total(8) + pvar_total(9) + pvar_total(10);
  if (expect_ud) CHECK(connections == 0, "%llu RC connections: this run is not over the UD channel", connections);
  if (expect_ud) CHECK(rendezvous == 0, "%llu rendezvous messages over the UD channel, which has no RDMA", rendezvous);
  if (expect_rdma)
    CHECK(rendezvous > 0, "no message went by RDMA rendezvous to a peer on RC (TWINFAB_EAGER_THRESHOLD below "
          "20000 bytes?)");
  if (expect_hybrid)
    CHECK(connections > 0, "no RC connection: the hybrid channel never moved a peer from UD to RC "
          "(TWINFAB_TRANSPORT=hybrid, TWINFAB_HYBRID_RC_THRESHOLD below the packets sent?)");
  if (rank == 0)
    printf("reliable_stream: %d ranks x %d messages ok, retransmissions %llu, nack_retransmissions %llu, "
           "duplicates %llu, probes %llu, nacks %llu, held %llu, dropped %llu, connections %llu, rendezvous %llu\n",
           size, messages, retrans, nack_retrans, duplicates, probes, nacks, held, dropped, connections, rendezvous);
  free(next);
  free(in);
  free(sends);
  free(out);
  counters_free(&counters);
  MPI_Finalize();
  MPI_T_finalize();
  return 0;
}
