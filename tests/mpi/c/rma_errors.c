/* One-sided communication's bad input: each call fails with its error class under
 * MPI_ERRORS_RETURN, and the window stays usable afterwards. With argument "locks", the
 * window creation is expected to fail (a lock design the device cannot run, or one that
 * is not implemented): testlist sets TWINFAB_RMA_LOCK. */
#include <string.h>

#include "mpitest.h"

static void user_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)in;
  (void)inout;
  (void)len;
  (void)type;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int mem[8] = {0};
  MPI_Win win;
  if (argc > 1 && strcmp(argv[1], "locks") == 0) {
    EXPECT_CLASS(MPI_ERR_UNSUPPORTED_OPERATION,
                 MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    if (rank == 0) printf("rma_errors: lock design refused\n");
    MPI_Finalize();
    return 0;
  }
  OK(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  const int peer = (rank + 1) % size;
  int v = 1, got;

  /* outside any epoch */
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Put(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Get(&got, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_unlock(peer, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_complete(win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_wait(win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_flush(peer, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_unlock_all(win));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win));
  EXPECT_CLASS(MPI_ERR_LOCKTYPE, MPI_Win_lock(7, peer, 0, win));
  EXPECT_CLASS(MPI_ERR_ASSERT, MPI_Win_fence(1, win));

  OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
  /* out of range, checked at the origin: nothing reaches the target */
  EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Put(&v, 1, MPI_INT, peer, 8, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Get(mem, 2, MPI_INT, peer, 7, 2, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_DISP, MPI_Put(&v, 1, MPI_INT, peer, -1, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win));
  /* accumulates: user-defined op, mismatched types, MPI_NO_OP in MPI_Accumulate */
  MPI_Op op;
  OK(MPI_Op_create(user_sum, 1, &op));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Accumulate(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, op, win));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Accumulate(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_NO_OP, win));
  float f = 1;
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Accumulate(&f, 1, MPI_FLOAT, peer, 0, 1, MPI_INT, MPI_SUM, win));
  EXPECT_CLASS(MPI_ERR_OP, MPI_Accumulate(&f, 1, MPI_FLOAT, peer, 0, 1, MPI_FLOAT, MPI_BAND, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_lock_all(0, win));
  /* an epoch still open */
  EXPECT_CLASS(MPI_ERR_RMA_SYNC, MPI_Win_free(&win));
  CHECK(win != MPI_WIN_NULL, "a refused MPI_Win_free cleared the handle");
  /* and the window still works */
  OK(MPI_Accumulate(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_SUM, win));
  OK(MPI_Win_unlock(peer, win));
  OK(MPI_Op_free(&op));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(mem[0] == 1, "the accumulate after the errors: %d", mem[0]);
  OK(MPI_Win_free(&win));
  EXPECT_CLASS(MPI_ERR_WIN, MPI_Win_fence(0, win));

  /* dynamic windows: overlapping attach, detach of what is not attached, and an
   * address not attached at the target (reported at the next synchronization) */
  OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  OK(MPI_Win_attach(win, mem, sizeof mem));
  EXPECT_CLASS(MPI_ERR_RMA_ATTACH, MPI_Win_attach(win, mem + 2, sizeof(int)));
  EXPECT_CLASS(MPI_ERR_RMA_ATTACH, MPI_Win_detach(win, mem + 1));
  MPI_Aint address;
  OK(MPI_Get_address(mem, &address));
  MPI_Aint peer_address;
  OK(MPI_Sendrecv(&address, 1, MPI_AINT, (rank + size - 1) % size, 0, &peer_address, 1, MPI_AINT, peer, 0,
                  MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
  OK(MPI_Put(&v, 1, MPI_INT, peer, peer_address + 64, 1, MPI_INT, win));
  EXPECT_CLASS(MPI_ERR_RMA_RANGE, MPI_Win_flush(peer, win));
  OK(MPI_Put(&v, 1, MPI_INT, peer, peer_address + 4, 1, MPI_INT, win));
  OK(MPI_Win_unlock(peer, win));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(mem[1] == 1, "dynamic put after the error: %d", mem[1]);
  OK(MPI_Win_detach(win, mem));
  OK(MPI_Win_free(&win));
  if (rank == 0) printf("rma_errors: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
