/* The environment calls: Init_thread's level, Initialized/Finalized, version
 * queries, processor name, MPI_TAG_UB, MPI_Wtime (simulated: starts near 0 and
 * advances while messages travel), and the program's arguments as given to
 * twinfab sim (the testlist passes "alpha" and "beta"). */
#include <string.h>

#include "mpitest.h"

int main(int argc, char** argv) {
  int flag = -1, provided = -1;
  MPI_Initialized(&flag);
  if (flag != 0) return 10;
  MPI_Finalized(&flag);
  if (flag != 0) return 11;
  int version, subversion;
  MPI_Get_version(&version, &subversion); /* allowed before MPI_Init */
  if (version != MPI_VERSION || subversion != MPI_SUBVERSION || version != 3 || subversion != 1) return 12;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(provided == MPI_THREAD_FUNNELED, "provided %d", provided);
  OK(MPI_Initialized(&flag));
  CHECK(flag == 1, "initialized %d", flag);
  CHECK(argc == 3 && strcmp(argv[1], "alpha") == 0 && strcmp(argv[2], "beta") == 0, "argc %d", argc);
  CHECK(strstr(argv[0], "environment") != NULL, "argv[0] '%s'", argv[0]);

  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  OK(MPI_Get_library_version(text, &len));
  CHECK(strstr(text, "twinfab") != NULL && (int)strlen(text) == len, "library version '%s'", text);
  char name[MPI_MAX_PROCESSOR_NAME];
  OK(MPI_Get_processor_name(name, &len));
  CHECK(len > 0 && (int)strlen(name) == len, "processor name '%s'", name);

  CHECK(MPI_Wtick() > 0 && MPI_Wtick() <= 1e-6, "tick %g", MPI_Wtick());
  double t0 = MPI_Wtime();
  CHECK(t0 >= 0 && t0 < 1.0, "simulated time starts near 0, got %g s", t0);
  char big[1 << 16];
  memset(big, rank, sizeof big);
  for (int i = 0; i < 10; ++i) OK(MPI_Bcast(big, sizeof big, MPI_CHAR, 0, MPI_COMM_WORLD));
  double t1 = MPI_Wtime();
  CHECK(t1 > t0 + 1e-6, "MPI_Wtime did not advance across 10 broadcasts of 64 KiB: %g -> %g", t0, t1);
  for (size_t k = 0; k < sizeof big; ++k) CHECK(big[k] == 0, "bcast byte %zu", k);

  MPI_Finalize();
  MPI_Finalized(&flag);
  if (flag != 1) return 13;
  MPI_Initialized(&flag);
  if (flag != 1) return 14; /* still true after MPI_Finalize */
  return 0;
}
