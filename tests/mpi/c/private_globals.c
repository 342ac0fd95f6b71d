/* Every rank has private globals and statics (twinfab sim loads one copy of the
 * program per rank): each rank writes its own values, lets every other rank run
 * (barriers), and must read back its own values. Each copy's constructor ran once,
 * on that copy's data, and a pointer initialised to a global points at the copy's
 * own (under --privatization arena the launcher, not ld.so, does both). A global with
 * a large alignment keeps it in every copy (the arena interleaves copies at a multiple
 * of the largest alignment of their sections). */
#include "mpitest.h"

int global_value = 7;
static double static_table[4];
_Alignas(256) static unsigned char aligned_block[300];

int* pointer_to_global = &global_value;
static int constructed = 0;

static int world_size = 0;

__attribute__((constructor)) static void construct(void) { ++constructed; }
/* At exit, the last rank's copy says its destructor ran on its own data (the testlist
 * checks the line under --privatization arena, where the launcher runs it). */
__attribute__((destructor)) static void destruct(void) {
  if (world_size > 1 && global_value == 1000 + world_size - 1)
    printf("the destructor of rank %d's copy ran\n", world_size - 1);
}

static int bump(void) {
  static int counter = 0;
  return ++counter;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  world_size = size;
  CHECK(global_value == 7, "global initialised to %d (another rank wrote it)", global_value);
  CHECK(constructed == 1, "this copy's constructor ran %d times", constructed);
  CHECK(pointer_to_global == &global_value, "a pointer to a global points at another copy's");
  CHECK((size_t)aligned_block % 256 == 0, "a global aligned to 256 bytes is at %p", (void*)aligned_block);
  global_value = 1000 + rank;
  for (int k = 0; k < 300; ++k) aligned_block[k] = (unsigned char)(rank + k);
  for (int k = 0; k < 4; ++k) static_table[k] = rank * 10 + k;
  for (int i = 0; i <= rank; ++i) bump();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(global_value == 1000 + rank, "global is %d, expected %d (shared between ranks)", global_value, 1000 + rank);
  for (int k = 0; k < 4; ++k) CHECK(static_table[k] == rank * 10 + k, "static_table[%d] = %g", k, static_table[k]);
  for (int k = 0; k < 300; ++k)
    CHECK(aligned_block[k] == (unsigned char)(rank + k), "aligned_block[%d] = %d (another copy wrote it)", k,
          aligned_block[k]);
  int count = bump() - 1;
  CHECK(count == rank + 1, "static counter %d, expected %d", count, rank + 1);
  /* And the addresses differ: gather them and compare. */
  long long addr = (long long)(size_t)&global_value, *all = malloc(sizeof(long long) * (size_t)size);
  MPI_Allgather(&addr, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r)
    for (int q = r + 1; q < size; ++q) CHECK(all[r] != all[q], "ranks %d and %d share &global_value", r, q);
  free(all);
  MPI_Finalize();
  return 0;
}
