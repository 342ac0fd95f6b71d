/* One-sided communication in every synchronization mode: fence, post/start/complete/
 * wait, lock (shared and exclusive), lock_all with flushes, with contiguous and derived
 * datatypes, the request forms, and accumulates from every rank at once. Run with
 * TWINFAB_RMA=rdma|sendrecv and TWINFAB_RMA_LOCK=ts|mcs|thread|event|progress (testlist).
 * With argument "skip-unsupported", a lock design the device cannot run (mcs or ts
 * without remote atomics, on siw) makes the program print why and end successfully
 * (hwlist runs one list on rxe and siw). */
#include <string.h>

#include "mpitest.h"

#define N 64

static int rank, size;

/* Fence: each rank puts its row into its right neighbour's window and gets its left
 * neighbour's, with a contiguous and a strided (vector) target layout. */
static void fence_put_get(void) {
  int* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  for (int i = 0; i < 2 * N; ++i) mem[i] = -1;
  int row[N], got[N];
  for (int i = 0; i < N; ++i) row[i] = rank * 1000 + i;
  MPI_Datatype every_other;
  OK(MPI_Type_vector(N, 1, 2, MPI_INT, &every_other));
  OK(MPI_Type_commit(&every_other));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  OK(MPI_Put(row, N, MPI_INT, right, 0, 1, every_other, win));
  OK(MPI_Win_fence(0, win));
  for (int i = 0; i < N; ++i) CHECK(mem[2 * i] == left * 1000 + i, "fence put: mem[%d] = %d", 2 * i, mem[2 * i]);
  for (int i = 0; i < N; ++i) CHECK(mem[2 * i + 1] == -1, "fence put wrote a gap: mem[%d] = %d", 2 * i + 1, mem[2 * i + 1]);
  OK(MPI_Get(got, N, MPI_INT, left, 0, 1, every_other, win));
  OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  /* left's window holds the row of left's left neighbour */
  const int left2 = (left + size - 1) % size;
  for (int i = 0; i < N; ++i) CHECK(got[i] == left2 * 1000 + i, "fence get: got[%d] = %d", i, got[i]);
  OK(MPI_Type_free(&every_other));
  OK(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
}

/* Accumulates from every rank into rank 0 under fence, and MPI_Get_accumulate. */
static void fence_accumulate(void) {
  long long counters[4] = {0, 0, 0, 0};
  MPI_Win win;
  OK(MPI_Win_create(counters, sizeof counters, sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  OK(MPI_Win_fence(0, win));
  long long one[4] = {1, 2, 3, 4};
  for (int rep = 0; rep < 10; ++rep) OK(MPI_Accumulate(one, 4, MPI_LONG_LONG, 0, 0, 4, MPI_LONG_LONG, MPI_SUM, win));
  double d = rank;
  (void)d;
  OK(MPI_Win_fence(0, win));
  if (rank == 0)
    for (int i = 0; i < 4; ++i)
      CHECK(counters[i] == 10LL * size * (i + 1), "accumulate: counters[%d] = %lld", i, counters[i]);
  long long old[4], max_in[4] = {rank, rank, rank, rank};
  OK(MPI_Get_accumulate(max_in, 4, MPI_LONG_LONG, old, 4, MPI_LONG_LONG, 0, 0, 4, MPI_LONG_LONG, MPI_MAX, win));
  OK(MPI_Win_fence(0, win));
  if (rank == 0)
    for (int i = 0; i < 4; ++i) CHECK(counters[i] == 10LL * size * (i + 1), "max kept the sum: %lld", counters[i]);
  OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  OK(MPI_Win_free(&win));
}

/* PSCW: the even ranks expose, the odd ones access their lower neighbour. */
static void pscw(void) {
  int mem[N];
  for (int i = 0; i < N; ++i) mem[i] = 0;
  MPI_Win win;
  OK(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Group world, peer;
  OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  for (int round = 0; round < 3; ++round) {
    if (rank % 2 == 0 && rank + 1 < size) {
      int origin = rank + 1;
      OK(MPI_Group_incl(world, 1, &origin, &peer));
      OK(MPI_Win_post(peer, 0, win));
      OK(MPI_Win_wait(win));
      for (int i = 0; i < N; ++i) CHECK(mem[i] == origin * 100 + round, "pscw round %d: mem[%d] = %d", round, i, mem[i]);
      OK(MPI_Group_free(&peer));
    } else if (rank % 2 == 1) {
      int target = rank - 1;
      OK(MPI_Group_incl(world, 1, &target, &peer));
      OK(MPI_Win_start(peer, 0, win));
      int data[N];
      for (int i = 0; i < N; ++i) data[i] = rank * 100 + round;
      OK(MPI_Put(data, N, MPI_INT, target, 0, N, MPI_INT, win));
      OK(MPI_Win_complete(win));
      OK(MPI_Group_free(&peer));
    }
  }
  OK(MPI_Group_free(&world));
  OK(MPI_Win_free(&win));
}

/* Exclusive locks: every rank increments rank 0's counter with get + put under the
 * lock, which only mutual exclusion keeps exact; then fetch-and-op under shared locks. */
static void locks(void) {
  long long* counter;
  MPI_Win win;
  OK(MPI_Win_allocate(2 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win));
  counter[0] = counter[1] = 0;
  OK(MPI_Barrier(MPI_COMM_WORLD));
  for (int rep = 0; rep < 5; ++rep) {
    long long value;
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    OK(MPI_Get(&value, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
    OK(MPI_Win_flush(0, win));
    value += 1;
    OK(MPI_Put(&value, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win));
    OK(MPI_Win_unlock(0, win));
  }
  for (int rep = 0; rep < 5; ++rep) {
    long long one = 1, old = -1;
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    OK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, 1, MPI_SUM, win));
    OK(MPI_Win_unlock(0, win));
    CHECK(old >= 0 && old < 5LL * size, "fetch_and_op returned %lld", old);
  }
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(counter[0] == 5LL * size, "exclusive increments: %lld, expected %lld", counter[0], 5LL * size);
    CHECK(counter[1] == 5LL * size, "fetch_and_op increments: %lld", counter[1]);
    OK(MPI_Win_unlock(0, win));
  }
  /* compare-and-swap: exactly one rank wins */
  OK(MPI_Barrier(MPI_COMM_WORLD));
  long long mine = rank + 1, expected = 5LL * size, was = 0;
  OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  OK(MPI_Compare_and_swap(&mine, &expected, &was, MPI_LONG_LONG, 0, 0, win));
  OK(MPI_Win_unlock(0, win));
  int won = was == expected, winners = 0;
  OK(MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(winners == 1, "%d ranks won the compare-and-swap", winners);
  OK(MPI_Win_free(&win));
}

/* Contention: every rank, the target included, takes the last rank's lock exclusively
 * 20 times and moves a pair of counters one after the other (a flush between the two
 * puts); every fourth time it also reads them under a shared lock. A lock that let two
 * writers in, or a reader in with a writer, shows as unequal counters or a lost
 * increment. Then every rank holds lock_all's shared locks at once across a barrier,
 * which a design that serialized shared holders would never finish. */
static void contention(void) {
  long long* pair;
  MPI_Win win;
  const int target = size - 1;
  const int reps = 20;
  OK(MPI_Win_allocate(2 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &pair, &win));
  pair[0] = pair[1] = 0;
  OK(MPI_Barrier(MPI_COMM_WORLD));
  for (int rep = 0; rep < reps; ++rep) {
    long long v[2];
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
    OK(MPI_Get(v, 2, MPI_LONG_LONG, target, 0, 2, MPI_LONG_LONG, win));
    OK(MPI_Win_flush(target, win));
    CHECK(v[0] == v[1], "contention: the exclusive holder saw %lld and %lld", v[0], v[1]);
    v[0] += 1;
    OK(MPI_Put(&v[0], 1, MPI_LONG_LONG, target, 0, 1, MPI_LONG_LONG, win));
    OK(MPI_Win_flush(target, win));
    v[1] += 1;
    OK(MPI_Put(&v[1], 1, MPI_LONG_LONG, target, 1, 1, MPI_LONG_LONG, win));
    OK(MPI_Win_unlock(target, win));
    if (rep % 4 == 0) {
      OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
      OK(MPI_Get(v, 2, MPI_LONG_LONG, target, 0, 2, MPI_LONG_LONG, win));
      OK(MPI_Win_unlock(target, win));
      CHECK(v[0] == v[1], "contention: a shared holder saw %lld and %lld", v[0], v[1]);
    }
  }
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == target)
    CHECK(pair[0] == (long long)reps * size && pair[1] == (long long)reps * size,
          "contention: counters %lld and %lld, expected %lld", pair[0], pair[1], (long long)reps * size);
  OK(MPI_Win_lock_all(0, win));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_Win_flush_all(win));
  OK(MPI_Win_unlock_all(win));
  OK(MPI_Win_free(&win));
}

/* lock_all, request forms and flushes: every rank writes its slot in every window. */
static void lock_all(void) {
  int* mem;
  MPI_Win win;
  OK(MPI_Win_allocate(size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  for (int i = 0; i < size; ++i) mem[i] = -1;
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_Win_lock_all(0, win));
  MPI_Request requests[64];
  int count = 0;
  for (int t = 0; t < size && count < 64; ++t) OK(MPI_Rput(&rank, 1, MPI_INT, t, rank, 1, MPI_INT, win, &requests[count++]));
  OK(MPI_Waitall(count, requests, MPI_STATUSES_IGNORE));
  OK(MPI_Win_flush_all(win));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  int got = -2;
  MPI_Request r;
  OK(MPI_Rget(&got, 1, MPI_INT, (rank + 1) % size, (rank + 2) % size, 1, MPI_INT, win, &r));
  OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(got == (rank + 2) % size, "rget after flush_all: %d", got);
  OK(MPI_Win_flush_local_all(win));
  OK(MPI_Win_unlock_all(win));
  OK(MPI_Win_sync(win));
  for (int i = 0; i < size; ++i) CHECK(mem[i] == i, "lock_all: mem[%d] = %d", i, mem[i]);
  OK(MPI_Win_free(&win));
}

/* A dynamic window: rank 0 attaches a buffer and publishes its address. */
static void dynamic_window(void) {
  MPI_Win win;
  OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int buffer[8] = {0};
  MPI_Aint address = 0;
  if (rank == 0) {
    OK(MPI_Win_attach(win, buffer, sizeof buffer));
    OK(MPI_Get_address(buffer, &address));
  }
  OK(MPI_Bcast(&address, 1, MPI_AINT, 0, MPI_COMM_WORLD));
  OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  int one = 1;
  OK(MPI_Accumulate(&one, 1, MPI_INT, 0, address + (MPI_Aint)sizeof(int) * (rank % 8), 1, MPI_INT, MPI_SUM, win));
  OK(MPI_Win_unlock(0, win));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    int total = 0;
    for (int i = 0; i < 8; ++i) total += buffer[i];
    CHECK(total == size, "dynamic window accumulates: %d", total);
    OK(MPI_Win_detach(win, buffer));
  }
  OK(MPI_Win_free(&win));
}

static int deleted = 0;
static int count_delete(MPI_Win win, int keyval, void* value, void* extra) {
  (void)win;
  (void)keyval;
  (void)extra;
  deleted += *(int*)value;
  return MPI_SUCCESS;
}

static void attributes(void) {
  char mem[16];
  MPI_Win win;
  OK(MPI_Win_create(mem, sizeof mem, 2, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  void* base;
  MPI_Aint* wsize;
  int *flavor, *model, flag;
  OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
  CHECK(flag && base == mem, "MPI_WIN_BASE");
  OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag));
  CHECK(flag && *wsize == 16, "MPI_WIN_SIZE %ld", (long)*wsize);
  OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "MPI_WIN_CREATE_FLAVOR");
  OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
  CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL");
  OK(MPI_Win_set_name(win, "twinfab window"));
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  OK(MPI_Win_get_name(win, name, &len));
  CHECK(strcmp(name, "twinfab window") == 0 && len == 14, "name '%s'", name);
  MPI_Group group;
  int gsize;
  OK(MPI_Win_get_group(win, &group));
  OK(MPI_Group_size(group, &gsize));
  CHECK(gsize == size, "group size %d", gsize);
  OK(MPI_Group_free(&group));
  /* a user keyval: set, read back, and its delete callback runs at MPI_Win_free */
  int keyval, value = 7, *got;
  OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &keyval, NULL));
  OK(MPI_Win_set_attr(win, keyval, &value));
  OK(MPI_Win_get_attr(win, keyval, &got, &flag));
  CHECK(flag && got == &value, "user attribute");
  OK(MPI_Win_free_keyval(&keyval));
  CHECK(keyval == MPI_KEYVAL_INVALID, "MPI_Win_free_keyval left the handle");
  OK(MPI_Win_free(&win));
  CHECK(deleted == 7, "the delete callback ran %d", deleted);
  /* zero-byte operations move nothing and complete at once */
  OK(MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  OK(MPI_Win_lock_all(0, win));
  MPI_Request r;
  OK(MPI_Rput(mem, 0, MPI_BYTE, (rank + 1) % size, 0, 0, MPI_BYTE, win, &r));
  OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  OK(MPI_Get(mem, 0, MPI_BYTE, (rank + 1) % size, 16, 0, MPI_BYTE, win));
  OK(MPI_Win_unlock_all(win));
  OK(MPI_Win_free(&win));
}

/* MPI_T: the one-sided counters (continuous: a handle counts from its allocation) count
 * what this rank did. The lock designs with agents (thread, event) send 3 messages per
 * lock of a remote window (request, grant, unlock): every rank locks its right
 * neighbour's window LOCKS times, so the ranks together count 3 * LOCKS * size of them
 * (none with the other designs, or alone). */
#define LOCKS 3
static void counters(void) {
  int provided, count = 0, index[3];
  OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  MPI_T_pvar_session session;
  OK(MPI_T_pvar_session_create(&session));
  const char* names[3] = {"twinfab_rma_puts", "twinfab_rma_fences", "twinfab_rma_lock_messages"};
  MPI_T_pvar_handle handles[3];
  for (int i = 0; i < 3; ++i) {
    OK(MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &index[i]));
    OK(MPI_T_pvar_handle_alloc(session, index[i], NULL, &handles[i], &count));
  }
  int mem = 0, one = 1;
  MPI_Win win;
  OK(MPI_Win_create(&mem, sizeof mem, sizeof mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  OK(MPI_Win_fence(0, win));
  OK(MPI_Put(&one, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win));
  OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  unsigned long long before = 0, after = 0;
  OK(MPI_T_pvar_read(session, handles[2], &before));
  OK(MPI_Barrier(MPI_COMM_WORLD));  /* no grant is counted before every rank read its start */
  for (int i = 0; i < LOCKS; ++i) {
    OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % size, 0, win));
    OK(MPI_Win_unlock((rank + 1) % size, win));
  }
  OK(MPI_Barrier(MPI_COMM_WORLD));  /* every grant was written before its origin went on */
  OK(MPI_T_pvar_read(session, handles[2], &after));
  OK(MPI_Win_free(&win));
  unsigned long long mine = after - before, all = 0;
  OK(MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  const char* design = getenv("TWINFAB_RMA_LOCK");
  const int agents = design != NULL && (strcmp(design, "thread") == 0 || strcmp(design, "event") == 0);
  const unsigned long long expected = agents && size > 1 ? 3ull * LOCKS * (unsigned long long)size : 0;
  CHECK(all == expected, "MPI_T counted %llu lock messages in all (%llu here), expected %llu", all, mine, expected);
  unsigned long long puts = 0, fences = 0;
  OK(MPI_T_pvar_read(session, handles[0], &puts));
  OK(MPI_T_pvar_read(session, handles[1], &fences));
  CHECK(puts == 1 && fences == 2, "MPI_T counted %llu puts and %llu fences (1 and 2 made)", puts, fences);
  for (int i = 0; i < 3; ++i) OK(MPI_T_pvar_handle_free(session, &handles[i]));
  OK(MPI_T_pvar_session_free(&session));
  OK(MPI_T_finalize());
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "skip-unsupported") == 0) {
    int probe = 0, code;
    MPI_Win win;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    code = MPI_Win_create(&probe, sizeof probe, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (code != MPI_SUCCESS) {
      int cls;
      MPI_Error_class(code, &cls);
      CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Win_create failed with class %d", cls);
      if (rank == 0) printf("rma_sync: skipped: the device cannot run this lock design\n");
      MPI_Finalize();
      return 0;
    }
    OK(MPI_Win_free(&win));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
  fence_put_get();
  fence_accumulate();
  pscw();
  locks();
  contention();
  lock_all();
  dynamic_window();
  attributes();
  counters();
  if (rank == 0) printf("rma_sync: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
