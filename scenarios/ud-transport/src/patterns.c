/* patterns: the communication patterns of seed 004's application study (section 6),
 * as MPI kernels without their computation, so that the transports (RC, UD) can be
 * compared on what each pattern asks of the network:
 *
 *   alltoall  every rank exchanges BYTES with every other (MPI_Alltoall): NAS IS / FT
 *   manypeer  every rank exchanges BYTES with the ranks at distances +-1, 2, 4, ...
 *             (2 log2 N peers): SMG2000's many communicating peers
 *   sweep     a wavefront over a 2-D process grid, from each of the 4 corners in turn:
 *             receive from the upstream neighbours, send downstream (Sweep3D)
 *   halo      nearest-neighbour exchange with the 6 neighbours of a 3-D process grid
 *             (periodic), large messages: sPPM
 *
 *   patterns PATTERN BYTES ROUNDS
 * Rank 0 prints: result pattern=<p> ranks=<n> bytes=<b> seconds=<simulated time per round>
 * peers=<distinct peers of rank 0>. Times: MPI_Wtime (simulated under twinfab sim). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void exchange(const int* peers, int npeers, char* out, char* in, int bytes) {
  MPI_Request req[64];
  for (int i = 0; i < npeers; ++i)
    MPI_Irecv(in + (size_t)i * bytes, bytes, MPI_BYTE, peers[i], 7, MPI_COMM_WORLD, &req[i]);
  for (int i = 0; i < npeers; ++i)
    MPI_Isend(out + (size_t)i * bytes, bytes, MPI_BYTE, peers[i], 7, MPI_COMM_WORLD, &req[npeers + i]);
  MPI_Waitall(2 * npeers, req, MPI_STATUSES_IGNORE);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: patterns alltoall|manypeer|sweep|halo BYTES ROUNDS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* pattern = argv[1];
  const int bytes = atoi(argv[2]);
  const int rounds = atoi(argv[3]);
  int npeers = 0;
  int peers[32];
  char *out = NULL, *in = NULL;
  int dims2[2] = {0, 0}, dims3[3] = {0, 0, 0};
  MPI_Comm grid = MPI_COMM_NULL;
  if (strcmp(pattern, "alltoall") == 0) {
    out = calloc((size_t)size, (size_t)bytes);
    in = calloc((size_t)size, (size_t)bytes);
    npeers = size - 1;
  } else if (strcmp(pattern, "manypeer") == 0) {
    for (int d = 1; d < size && npeers < 30; d *= 2) {
      peers[npeers++] = (rank + d) % size;
      if ((rank - d + size) % size != (rank + d) % size) peers[npeers++] = (rank - d + size) % size;
    }
    out = calloc((size_t)npeers, (size_t)bytes);
    in = calloc((size_t)npeers, (size_t)bytes);
  } else if (strcmp(pattern, "sweep") == 0) {
    MPI_Dims_create(size, 2, dims2);
    out = calloc(1, (size_t)bytes);
    in = calloc(1, (size_t)bytes);
    npeers = 4;
  } else if (strcmp(pattern, "halo") == 0) {
    int periods[3] = {1, 1, 1};
    MPI_Dims_create(size, 3, dims3);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims3, periods, 0, &grid);
    for (int d = 0; d < 3; ++d) {
      int lo, hi;
      MPI_Cart_shift(grid, d, 1, &lo, &hi);
      peers[npeers++] = lo;
      peers[npeers++] = hi;
    }
    out = calloc(6, (size_t)bytes);
    in = calloc(6, (size_t)bytes);
  } else {
    if (rank == 0) fprintf(stderr, "patterns: unknown pattern '%s'\n", pattern);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int r = 0; r < rounds; ++r) {
    if (strcmp(pattern, "alltoall") == 0) {
      MPI_Alltoall(out, bytes, MPI_BYTE, in, bytes, MPI_BYTE, MPI_COMM_WORLD);
    } else if (strcmp(pattern, "sweep") == 0) {
      const int x = rank % dims2[0], y = rank / dims2[0];
      for (int corner = 0; corner < 4; ++corner) {  /* from each corner: (-,-), (+,-), (-,+), (+,+) */
        const int dx = (corner & 1) ? -1 : 1, dy = (corner & 2) ? -1 : 1;
        const int ux = x - dx, uy = y - dy, wx = x + dx, wy = y + dy;
        if (ux >= 0 && ux < dims2[0]) MPI_Recv(in, bytes, MPI_BYTE, y * dims2[0] + ux, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (uy >= 0 && uy < dims2[1]) MPI_Recv(in, bytes, MPI_BYTE, uy * dims2[0] + x, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (wx >= 0 && wx < dims2[0]) MPI_Send(out, bytes, MPI_BYTE, y * dims2[0] + wx, 8, MPI_COMM_WORLD);
        if (wy >= 0 && wy < dims2[1]) MPI_Send(out, bytes, MPI_BYTE, wy * dims2[0] + x, 8, MPI_COMM_WORLD);
      }
    } else {
      exchange(peers, npeers, out, in, bytes);
    }
  }
  const double per_round = (MPI_Wtime() - start) / rounds;
  double slowest = 0;
  MPI_Reduce(&per_round, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("result pattern=%s ranks=%d bytes=%d seconds=%.9f peers=%d\n", pattern, size, bytes, slowest, npeers);
  if (grid != MPI_COMM_NULL) MPI_Comm_free(&grid);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
