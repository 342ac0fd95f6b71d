/* Post/start/complete/wait epochs whose small puts may be held and whose last put may
 * carry the epoch's end (TWINFAB_RMA_PIGGYBACK, docs/rma.md): every mix that releases a
 * held put early (another put, an accumulate to the same element, which must see the
 * put first, a derived target layout, a request-based put, a put above the threshold),
 * epochs to several targets at once, and an epoch without operations. The data is
 * checked at the target after MPI_Win_wait, so a put applied late or an epoch counted
 * ended before its data fails. Runs with the variable unset too (nothing is held).
 * With argument "expect-held", an epoch of one 8-byte put must send exactly one
 * message (twinfab_rma_messages): the put with the epoch's end. */
#include <string.h>

#include "mpitest.h"

#define SLOTS 16
#define LARGE 4096 /* bytes, above any threshold the testlist sets */

static int rank, size;

/* Rank 0's window: per origin, SLOTS long longs, then LARGE bytes. */
static MPI_Aint slot(int origin, int i) { return (MPI_Aint)origin * (SLOTS * 8 + LARGE) + i * 8; }
static MPI_Aint large(int origin) { return (MPI_Aint)origin * (SLOTS * 8 + LARGE) + SLOTS * 8; }

static MPI_Group group_of(int first, int last) {
  MPI_Group world, g;
  int range[1][3] = {{first, last, 1}};
  OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  OK(MPI_Group_range_incl(world, 1, range, &g));
  OK(MPI_Group_free(&world));
  return g;
}

/* Origins 1..size-1 into rank 0, three rounds. */
static void many_origins(char* mem, MPI_Win win) {
  MPI_Datatype every_other;
  OK(MPI_Type_vector(2, 1, 2, MPI_LONG_LONG, &every_other));
  OK(MPI_Type_commit(&every_other));
  for (int round = 0; round < 3; ++round) {
    const long long base = 1000LL * rank + 100 * round;
    if (rank == 0) {
      MPI_Group origins = group_of(1, size - 1);
      OK(MPI_Win_post(origins, 0, win));
      OK(MPI_Win_wait(win));
      OK(MPI_Group_free(&origins));
      for (int o = 1; o < size; ++o) {
        const long long b = 1000LL * o + 100 * round;
        long long v[SLOTS];
        memcpy(v, mem + slot(o, 0), sizeof v);
        for (int i = 0; i < 3; ++i) CHECK(v[i] == b + i, "round %d origin %d: slot %d = %lld", round, o, i, v[i]);
        CHECK(v[3] == b + 3 + 5, "round %d origin %d: the accumulate did not follow the put: %lld", round, o, v[3]);
        CHECK(v[4] == b + 4 && v[6] == b + 6, "round %d origin %d: vector put: %lld %lld", round, o, v[4], v[6]);
        CHECK(v[7] == b + 7, "round %d origin %d: the request-based put: %lld", round, o, v[7]);
        CHECK(v[8] == b + 8, "round %d origin %d: the last put (the epoch's end): %lld", round, o, v[8]);
        for (int k = 0; k < LARGE; ++k)
          CHECK((unsigned char)mem[large(o) + k] == pattern(o, round, (size_t)k), "round %d origin %d: large byte %d",
                round, o, k);
      }
    } else {
      MPI_Group target = group_of(0, 0);
      long long v[SLOTS];
      for (int i = 0; i < SLOTS; ++i) v[i] = base + i;
      const long long five = 5, pair[2] = {base + 4, base + 6};
      unsigned char bytes[LARGE];
      for (int k = 0; k < LARGE; ++k) bytes[k] = pattern(rank, round, (size_t)k);
      OK(MPI_Win_start(target, 0, win));
      for (int i = 0; i < 3; ++i) OK(MPI_Put(&v[i], 1, MPI_LONG_LONG, 0, slot(rank, i), 1, MPI_LONG_LONG, win));
      OK(MPI_Put(&v[3], 1, MPI_LONG_LONG, 0, slot(rank, 3), 1, MPI_LONG_LONG, win));
      OK(MPI_Accumulate(&five, 1, MPI_LONG_LONG, 0, slot(rank, 3), 1, MPI_LONG_LONG, MPI_SUM, win));
      OK(MPI_Put(pair, 2, MPI_LONG_LONG, 0, slot(rank, 4), 1, every_other, win));
      MPI_Request request;
      OK(MPI_Rput(&v[7], 1, MPI_LONG_LONG, 0, slot(rank, 7), 1, MPI_LONG_LONG, win, &request));
      OK(MPI_Wait(&request, MPI_STATUS_IGNORE));
      OK(MPI_Put(bytes, LARGE, MPI_BYTE, 0, large(rank), LARGE, MPI_BYTE, win));
      OK(MPI_Put(&v[8], 1, MPI_LONG_LONG, 0, slot(rank, 8), 1, MPI_LONG_LONG, win));
      OK(MPI_Win_complete(win));
      OK(MPI_Group_free(&target));
    }
  }
  OK(MPI_Type_free(&every_other));
}

/* Rank 0 puts one element into each other rank in one epoch, twice; then an epoch
 * without operations. */
static void many_targets(char* mem, MPI_Win win) {
  for (int round = 0; round < 2; ++round) {
    if (rank == 0) {
      MPI_Group targets = group_of(1, size - 1);
      OK(MPI_Win_start(targets, 0, win));
      for (int t = 1; t < size; ++t) {
        const long long value = 7000LL + 10 * t + round;
        OK(MPI_Put(&value, 1, MPI_LONG_LONG, t, 0, 1, MPI_LONG_LONG, win));
      }
      OK(MPI_Win_complete(win));
      OK(MPI_Win_start(targets, 0, win));
      OK(MPI_Win_complete(win));
      OK(MPI_Group_free(&targets));
    } else {
      MPI_Group origin = group_of(0, 0);
      OK(MPI_Win_post(origin, 0, win));
      OK(MPI_Win_wait(win));
      long long got;
      memcpy(&got, mem, sizeof got);
      CHECK(got == 7000LL + 10 * rank + round, "round %d: rank %d holds %lld", round, rank, got);
      OK(MPI_Win_post(origin, 0, win));
      OK(MPI_Win_wait(win));
      OK(MPI_Group_free(&origin));
    }
  }
}

/* One 8-byte put per epoch from rank 1 to rank 0: one message when it is held. */
static void one_message(MPI_Win win) {
  static const char* const names[] = {"twinfab_rma_messages"};
  mpitest_counters counters;
  counters_start(&counters, names, 1);
  if (rank == 0) {
    MPI_Group origin = group_of(1, 1);
    OK(MPI_Win_post(origin, 0, win));
    OK(MPI_Win_wait(win));
    OK(MPI_Group_free(&origin));
  } else if (rank == 1) {
    MPI_Group target = group_of(0, 0);
    const long long value = 42;
    const unsigned long long before = counter_read(&counters, 0);
    OK(MPI_Win_start(target, 0, win));
    OK(MPI_Put(&value, 1, MPI_LONG_LONG, 0, slot(1, 9), 1, MPI_LONG_LONG, win));
    OK(MPI_Win_complete(win));
    const unsigned long long sent = counter_read(&counters, 0) - before;
    CHECK(sent == 1, "an epoch of one held put sent %llu messages, not 1 (the put with the epoch's end)", sent);
    OK(MPI_Group_free(&target));
  }
  counters_free(&counters);
}

int main(int argc, char** argv) {
  OK(MPI_Init(&argc, &argv));
  int provided;
  OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2, "needs 2 ranks or more, not %d", size);
  const int expect_held = argc > 1 && strcmp(argv[1], "expect-held") == 0;
  char* mem;
  MPI_Win win;
  const MPI_Aint bytes = rank == 0 ? (MPI_Aint)size * (SLOTS * 8 + LARGE) : 8;
  OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  memset(mem, 0, (size_t)bytes);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  many_origins(mem, win);
  many_targets(mem, win);
  if (expect_held) one_message(win);
  OK(MPI_Win_free(&win));
  OK(MPI_T_finalize());
  if (rank == 0) printf(" No Errors\n");
  OK(MPI_Finalize());
  return 0;
}
