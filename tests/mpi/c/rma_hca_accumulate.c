/* Accumulates on 8-byte integers, from every rank at once, the target's own included:
 * run with TWINFAB_RMA_ACCUMULATE=atomics (the HCA's fetch-and-add and compare-and-swap
 * loops, accumulate_atomic.cpp) and with messages, the results must be MPI's.
 *
 *   rma_hca_accumulate [atomics|messages] [skip-unsupported]
 *
 * On rank 0's MPI_Win_allocate window of int64 words, in fence epochs: every rank adds
 * 1 to word 0 ROUNDS times with MPI_Fetch_and_op(MPI_SUM) and collects the old values
 * (all distinct: each increment is atomic), adds its rank to word 1 with a two-element
 * MPI_Accumulate(MPI_SUM) (word 1 and 2), takes MPI_MAX and MPI_MIN of word 3 and 4,
 * MPI_BXOR into word 5, MPI_PROD (by -1) into word 6, MPI_REPLACE into a word of its
 * own, and claims word 7 with MPI_Compare_and_swap (exactly one rank wins). A
 * misaligned target element is refused with MPI_ERR_RMA_RANGE under atomics. With
 * "atomics" the MPI_T counter twinfab_rma_remote_atomics must have counted the
 * operations (fence epochs take no lock), with "messages" none. With
 * "skip-unsupported", a device without remote atomics (siw) makes the program print
 * why and end successfully. */
#include <stdint.h>
#include <string.h>

#include "mpitest.h"

#define ROUNDS 20
#define WORDS 16

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int atomics = argc > 1 && strcmp(argv[1], "atomics") == 0;
  const int skip = argc > 2 && strcmp(argv[2], "skip-unsupported") == 0;
  CHECK(size <= WORDS - 8, "at most %d ranks", WORDS - 8);
  int64_t* base = NULL;
  MPI_Win win;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int code = MPI_Win_allocate(rank == 0 ? WORDS * (MPI_Aint)sizeof(int64_t) + 8 : 0, sizeof(int64_t),
                                    MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  if (code != MPI_SUCCESS) {
    int cls;
    MPI_Error_class(code, &cls);
    CHECK(skip && cls == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Win_allocate failed with class %d", cls);
    if (rank == 0) printf("rma_hca_accumulate: skipped: the device has no remote atomics\n");
    MPI_Finalize();
    return 0;
  }
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  static const char* const names[] = {"twinfab_rma_remote_atomics"};
  mpitest_counters counters;
  int provided;
  OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  counters_start(&counters, names, 1);

  MPI_Win_fence(0, win);
  if (rank == 0) {
    for (int i = 0; i < WORDS; ++i) base[i] = 0;
    base[3] = INT64_MIN;
    base[4] = INT64_MAX;
    base[6] = 3;
  }
  MPI_Win_fence(0, win);
  int64_t old[ROUNDS];
  const int64_t one = 1, mine = rank, minus_one = -1, pair[2] = {rank, 2 * rank}, xor_bits = (int64_t)1 << rank;
  for (int r = 0; r < ROUNDS; ++r) OK(MPI_Fetch_and_op(&one, &old[r], MPI_INT64_T, 0, 0, MPI_SUM, win));
  OK(MPI_Accumulate(pair, 2, MPI_INT64_T, 0, 1, 2, MPI_INT64_T, MPI_SUM, win));
  OK(MPI_Accumulate(&mine, 1, MPI_INT64_T, 0, 3, 1, MPI_INT64_T, MPI_MAX, win));
  OK(MPI_Accumulate(&mine, 1, MPI_INT64_T, 0, 4, 1, MPI_INT64_T, MPI_MIN, win));
  OK(MPI_Accumulate(&xor_bits, 1, MPI_INT64_T, 0, 5, 1, MPI_INT64_T, MPI_BXOR, win));
  OK(MPI_Accumulate(&minus_one, 1, MPI_INT64_T, 0, 6, 1, MPI_INT64_T, MPI_PROD, win));
  const int64_t tag = 1000 + rank;
  OK(MPI_Accumulate(&tag, 1, MPI_INT64_T, 0, 8 + rank, 1, MPI_INT64_T, MPI_REPLACE, win));
  const int64_t zero = 0;
  int64_t claimed = -1;
  OK(MPI_Compare_and_swap(&tag, &zero, &claimed, MPI_INT64_T, 0, 7, win));
  MPI_Win_fence(0, win);

  /* Every increment saw a distinct old value: 0 .. size * ROUNDS - 1 over the ranks. */
  for (int r = 1; r < ROUNDS; ++r) CHECK(old[r] > old[r - 1], "fetch-and-op %d returned %lld after %lld", r,
                                         (long long)old[r], (long long)old[r - 1]);
  int64_t all[ROUNDS * (WORDS - 8)];
  MPI_Allgather(old, ROUNDS, MPI_INT64_T, all, ROUNDS, MPI_INT64_T, MPI_COMM_WORLD);
  int winners = 0, seen = 0;
  MPI_Allreduce(&(int){claimed == 0}, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(winners == 1, "%d ranks won the compare-and-swap", winners);
  if (rank == 0) {
    char hit[ROUNDS * (WORDS - 8)] = {0};
    for (int i = 0; i < size * ROUNDS; ++i) {
      CHECK(all[i] >= 0 && all[i] < size * ROUNDS && !hit[all[i]], "old value %lld twice or out of range",
            (long long)all[i]);
      hit[all[i]] = 1;
      ++seen;
    }
    const int64_t ranks_sum = (int64_t)size * (size - 1) / 2;
    CHECK(base[0] == (int64_t)size * ROUNDS, "word 0 is %lld", (long long)base[0]);
    CHECK(base[1] == ranks_sum && base[2] == 2 * ranks_sum, "words 1, 2 are %lld, %lld", (long long)base[1],
          (long long)base[2]);
    CHECK(base[3] == size - 1 && base[4] == 0, "max %lld, min %lld", (long long)base[3], (long long)base[4]);
    CHECK(base[5] == ((int64_t)1 << size) - 1, "xor %lld", (long long)base[5]);
    CHECK(base[6] == (size % 2 ? -3 : 3), "product %lld", (long long)base[6]);
    CHECK(base[7] >= 1000 && base[7] < 1000 + size, "compare-and-swap left %lld", (long long)base[7]);
    for (int r = 0; r < size; ++r)
      CHECK(base[8 + r] == 1000 + r, "replace of rank %d: %lld", r, (long long)base[8 + r]);
  }
  /* A misaligned element: the HCA cannot apply it, and nothing is changed. */
  MPI_Win misaligned;
  char* bytes = NULL;
  OK(MPI_Win_allocate(rank == 0 ? 64 : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bytes, &misaligned));
  MPI_Win_set_errhandler(misaligned, MPI_ERRORS_RETURN);
  MPI_Win_fence(0, misaligned);
  if (rank == 0) memset(bytes, 0, 64);
  MPI_Win_fence(0, misaligned);
  const int rc = MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 3, 1, MPI_INT64_T, MPI_SUM, misaligned);
  if (atomics) {
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "a misaligned accumulate under atomics gave class %d", cls);
  } else {
    OK(rc);
  }
  MPI_Win_fence(0, misaligned);
  if (rank == 0) {
    int64_t at3;
    memcpy(&at3, bytes + 3, sizeof at3);
    CHECK(at3 == (atomics ? 0 : size), "the misaligned word holds %lld", (long long)at3);
  }
  OK(MPI_Win_free(&misaligned));

  const unsigned long long atomics_done = counter_read(&counters, 0);
  /* Per rank: ROUNDS fetch-and-adds, 2 for the pair, at least 1 each for MAX, MIN, BXOR,
   * PROD, REPLACE (compare-and-swap loops), 1 compare-and-swap. */
  if (atomics)
    CHECK(atomics_done >= ROUNDS + 8, "%llu remote atomics counted", atomics_done);
  else
    CHECK(atomics_done == 0, "%llu remote atomics counted with messages", atomics_done);
  counters_free(&counters);
  OK(MPI_T_finalize());
  OK(MPI_Win_free(&win));
  if (rank == 0) printf("rma_hca_accumulate: %s, %d ranks, %d increments: ok\n", atomics ? "atomics" : "messages",
                        size, seen);
  MPI_Finalize();
  return 0;
}
