/* Small gets, which the RDMA design reads into registered bounce slots and copies to
 * the origin buffer at completion (mpi/rma/bounce_slots.hpp, 16 slots of 256 bytes):
 * more gets in flight than there are slots (the rest take the registration path), gets
 * of the slot size and one byte more, gets into unaligned origin buffers, request-based
 * gets completed by MPI_Wait before any flush, a non-contiguous target layout (several
 * pieces: not a bounce get), and a rank's gets from itself. Every byte is checked, and
 * the bytes around each origin buffer must be untouched (a copy of the whole slot, or
 * of a wrong length, fails). Each rank reads from every rank, in lock_all epochs and
 * in fence epochs. */
#include <string.h>

#include "mpitest.h"

#define WINDOW 4096
#define MANY 40 /* gets in flight at once: more than the 16 slots */
#define GUARD 0x5a

static int rank, size;

static unsigned char expected(int owner, size_t offset) { return (unsigned char)(owner * 37 + offset * 11 + 1); }

/* (owner, offset, length) read into buf + 1 (unaligned), with a guard byte on each side. */
static void check_read(const unsigned char* buf, int owner, size_t offset, size_t length, const char* what) {
  CHECK(buf[0] == GUARD, "%s from %d at %zu: the byte before the buffer was written", what, owner, offset);
  for (size_t k = 0; k < length; ++k)
    CHECK(buf[1 + k] == expected(owner, offset + k), "%s from %d at %zu, %zu bytes: byte %zu is %u, not %u", what,
          owner, offset, length, k, buf[1 + k], expected(owner, offset + k));
  CHECK(buf[1 + length] == GUARD, "%s from %d at %zu, %zu bytes: the byte after the buffer was written", what, owner,
        offset, length);
}

static void many_gets(MPI_Win win, int owner, int with_requests) {
  static unsigned char bufs[MANY][24];
  MPI_Request requests[MANY];
  memset(bufs, GUARD, sizeof bufs);
  for (int i = 0; i < MANY; ++i) {
    const size_t length = (size_t)(1 + i % 16), offset = (size_t)(i * 13);
    if (with_requests)
      OK(MPI_Rget(bufs[i] + 1, (int)length, MPI_BYTE, owner, (MPI_Aint)offset, (int)length, MPI_BYTE, win,
                  &requests[i]));
    else
      OK(MPI_Get(bufs[i] + 1, (int)length, MPI_BYTE, owner, (MPI_Aint)offset, (int)length, MPI_BYTE, win));
  }
  if (with_requests)
    OK(MPI_Waitall(MANY, requests, MPI_STATUSES_IGNORE)); /* locally complete: the data is there */
  else
    OK(MPI_Win_flush(owner, win));
  for (int i = 0; i < MANY; ++i)
    check_read(bufs[i], owner, (size_t)(i * 13), (size_t)(1 + i % 16), with_requests ? "MPI_Rget" : "MPI_Get");
}

static void sized_gets(MPI_Win win, int owner) {
  static unsigned char a[258], b[259];
  memset(a, GUARD, sizeof a);
  memset(b, GUARD, sizeof b);
  OK(MPI_Get(a + 1, 256, MPI_BYTE, owner, 100, 256, MPI_BYTE, win));  /* a slot's size */
  OK(MPI_Get(b + 1, 257, MPI_BYTE, owner, 1000, 257, MPI_BYTE, win)); /* one byte more */
  OK(MPI_Win_flush_local(owner, win));
  check_read(a, owner, 100, 256, "256-byte get");
  check_read(b, owner, 1000, 257, "257-byte get");

  /* Every other long long of the target: pieces, into a contiguous origin. */
  MPI_Datatype strided;
  OK(MPI_Type_vector(4, 1, 2, MPI_LONG_LONG, &strided));
  OK(MPI_Type_commit(&strided));
  long long got[4];
  OK(MPI_Get(got, 4, MPI_LONG_LONG, owner, 2048, 1, strided, win));
  OK(MPI_Win_flush(owner, win));
  for (int i = 0; i < 4; ++i) {
    long long want;
    unsigned char bytes[8];
    for (int k = 0; k < 8; ++k) bytes[k] = expected(owner, (size_t)(2048 + 16 * i + k));
    memcpy(&want, bytes, 8);
    CHECK(got[i] == want, "strided get from %d: element %d", owner, i);
  }
  OK(MPI_Type_free(&strided));
}

int main(int argc, char** argv) {
  OK(MPI_Init(&argc, &argv));
  OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  unsigned char* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(WINDOW, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  for (size_t k = 0; k < WINDOW; ++k) mem[k] = expected(rank, k);
  OK(MPI_Barrier(MPI_COMM_WORLD));

  OK(MPI_Win_lock_all(0, win));
  for (int i = 1; i <= size; ++i) {
    const int owner = (rank + i) % size; /* the others first, then this rank itself */
    many_gets(win, owner, 0);
    many_gets(win, owner, 1);
  }
  OK(MPI_Win_unlock_all(win));

  /* The same memory as a window of MPI_Win_create (memory the program registered
   * nowhere), read in sizes around a slot's. */
  MPI_Win bytes_win;
  OK(MPI_Win_create(mem, WINDOW, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bytes_win));
  OK(MPI_Win_lock_all(0, bytes_win));
  for (int owner = 0; owner < size; ++owner) sized_gets(bytes_win, owner);
  OK(MPI_Win_unlock_all(bytes_win));

  /* A fence epoch: gets from the next rank, complete at the closing fence. */
  static unsigned char fenced[MANY][24];
  memset(fenced, GUARD, sizeof fenced);
  const int next = (rank + 1) % size;
  OK(MPI_Win_fence(0, bytes_win));
  for (int i = 0; i < MANY; ++i)
    OK(MPI_Get(fenced[i] + 1, 8, MPI_BYTE, next, (MPI_Aint)(i * 8 + 3), 8, MPI_BYTE, bytes_win));
  OK(MPI_Win_fence(0, bytes_win));
  for (int i = 0; i < MANY; ++i) check_read(fenced[i], next, (size_t)(i * 8 + 3), 8, "fenced get");

  OK(MPI_Win_free(&bytes_win));
  OK(MPI_Win_free(&win));
  if (rank == 0) printf(" No Errors\n");
  OK(MPI_Finalize());
  return 0;
}
