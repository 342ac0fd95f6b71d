/* Every collective and every predefined op: barrier, bcast, reduce and allreduce
 * (SUM PROD MIN MAX LAND LOR LXOR BAND BOR BXOR MAXLOC MINLOC, on int, unsigned, double and
 * the pair types, MPI_IN_PLACE), gather, scatter, allgather, alltoall, from every
 * root, with results computed independently and checked on every rank. */
#include <string.h>

#include "mpitest.h"

#define N 37

static int ival(int r, int k) { return (r * 7 + k * 3) % 11 - 5; }
/* PROD inputs: +-1 (and a 2 from rank 0), so products never overflow. */
static int pval(int r, int k) { return r == 0 && k % 5 == 0 ? 2 : ((r + k) % 3 ? 1 : -1); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Barrier(MPI_COMM_WORLD));

  /* bcast: small and rendezvous-sized, from a few roots */
  int big = 40000;
  int* b = malloc(sizeof(int) * (size_t)big);
  for (int root = 0; root < size; root += (size > 8 ? size / 4 : 1)) {
    for (int k = 0; k < big; ++k) b[k] = rank == root ? k * 3 + root : -1;
    OK(MPI_Bcast(b, big, MPI_INT, root, MPI_COMM_WORLD));
    for (int k = 0; k < big; ++k) CHECK(b[k] == k * 3 + root, "bcast root %d: b[%d]=%d", root, k, b[k]);
    double d[3] = {0, 0, 0};
    if (rank == root) d[0] = 1.5, d[1] = -2, d[2] = root;
    OK(MPI_Bcast(d, 3, MPI_DOUBLE, root, MPI_COMM_WORLD));
    CHECK(d[0] == 1.5 && d[1] == -2 && d[2] == root, "bcast doubles");
  }
  free(b);

  /* reductions on int */
  const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND, MPI_LOR, MPI_BAND, MPI_BOR};
  const char* names[] = {"SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "BAND", "BOR"};
  for (int o = 0; o < 8; ++o) {
    int in[N], out[N], expect[N];
    for (int k = 0; k < N; ++k) {
      int acc = ival(0, k);
      if (o == 1) acc = pval(0, k);
      for (int r = 1; r < size; ++r) {
        int v = o == 1 ? pval(r, k) : ival(r, k);
        switch (o) {
          case 0: acc += v; break;
          case 1: acc *= v; break;
          case 2: acc = v < acc ? v : acc; break;
          case 3: acc = v > acc ? v : acc; break;
          case 4: acc = acc && v; break;
          case 5: acc = acc || v; break;
          case 6: acc &= v; break;
          case 7: acc |= v; break;
        }
      }
      if (o == 4 || o == 5) acc = acc ? 1 : 0;
      expect[k] = acc;
      in[k] = o == 1 ? pval(rank, k) : ival(rank, k);
    }
    const int root = (o * 3) % size;
    memset(out, 0x55, sizeof out);
    OK(MPI_Reduce(in, out, N, MPI_INT, ops[o], root, MPI_COMM_WORLD));
    if (rank == root)
      for (int k = 0; k < N; ++k)
        CHECK((o >= 4 && o <= 5 ? (out[k] != 0) : out[k]) == expect[k], "reduce %s [%d]: %d, expected %d", names[o], k,
              out[k], expect[k]);
    memset(out, 0x55, sizeof out);
    OK(MPI_Allreduce(in, out, N, MPI_INT, ops[o], MPI_COMM_WORLD));
    for (int k = 0; k < N; ++k)
      CHECK((o >= 4 && o <= 5 ? (out[k] != 0) : out[k]) == expect[k], "allreduce %s [%d]: %d, expected %d", names[o],
            k, out[k], expect[k]);
    /* in place */
    memcpy(out, in, sizeof in);
    OK(MPI_Allreduce(MPI_IN_PLACE, out, N, MPI_INT, ops[o], MPI_COMM_WORLD));
    for (int k = 0; k < N; ++k)
      CHECK((o >= 4 && o <= 5 ? (out[k] != 0) : out[k]) == expect[k], "allreduce in place %s [%d]", names[o], k);
    memcpy(out, in, sizeof in);
    OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : in, out, N, MPI_INT, ops[o], root, MPI_COMM_WORLD));
    if (rank == root)
      for (int k = 0; k < N; ++k)
        CHECK((o >= 4 && o <= 5 ? (out[k] != 0) : out[k]) == expect[k], "reduce in place %s [%d]", names[o], k);
  }
  /* unsigned BAND/BOR, double SUM/MAX/PROD */
  {
    unsigned u = 1u << (rank % 32), uo = 0;
    OK(MPI_Allreduce(&u, &uo, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD));
    unsigned ue = 0;
    for (int r = 0; r < size; ++r) ue |= 1u << (r % 32);
    CHECK(uo == ue, "unsigned BOR %x expected %x", uo, ue);
    unsigned ux = 0x5a5a0000u ^ (unsigned)rank * 2654435761u, uxo = 0, uxe = 0;
    OK(MPI_Allreduce(&ux, &uxo, 1, MPI_UNSIGNED, MPI_BXOR, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) uxe ^= 0x5a5a0000u ^ (unsigned)r * 2654435761u;
    CHECK(uxo == uxe, "unsigned BXOR %x expected %x", uxo, uxe);
    int lx = rank % 3 == 0, lxo = -1, lxe = 0;
    OK(MPI_Allreduce(&lx, &lxo, 1, MPI_INT, MPI_LXOR, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) lxe ^= r % 3 == 0;
    CHECK((lxo != 0) == lxe, "LXOR %d expected %d", lxo, lxe);
    double dv[2] = {rank + 0.5, 1.0 + (rank % 2) * 0.5}, dout[2];
    OK(MPI_Allreduce(dv, dout, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(dout[0] == size * (size - 1) / 2.0 + size * 0.5, "double sum %g", dout[0]);
    OK(MPI_Allreduce(&dv[1], &dout[1], 1, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD));
    double pe = 1;
    for (int r = 0; r < size; ++r) pe *= 1.0 + (r % 2) * 0.5;
    CHECK(dout[1] == pe, "double prod %g expected %g", dout[1], pe);
  }
  /* MAXLOC / MINLOC on MPI_DOUBLE_INT and MPI_2INT: ties go to the lower index. */
  {
    struct { double v; int i; } di = {(double)(rank % 3), rank}, dmax, dmin;
    OK(MPI_Allreduce(&di, &dmax, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    OK(MPI_Allreduce(&di, &dmin, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    double mx = size >= 3 ? 2 : size - 1;
    CHECK(dmax.v == mx && dmax.i == (int)mx, "maxloc %g@%d", dmax.v, dmax.i);
    CHECK(dmin.v == 0 && dmin.i == 0, "minloc %g@%d", dmin.v, dmin.i);
    int ti[2] = {-rank * rank, rank}, tmax[2], tmin[2];
    OK(MPI_Reduce(ti, tmax, 1, MPI_2INT, MPI_MAXLOC, 0, MPI_COMM_WORLD));
    OK(MPI_Reduce(ti, tmin, 1, MPI_2INT, MPI_MINLOC, 0, MPI_COMM_WORLD));
    if (rank == 0) {
      CHECK(tmax[0] == 0 && tmax[1] == 0, "2int maxloc %d@%d", tmax[0], tmax[1]);
      CHECK(tmin[0] == -(size - 1) * (size - 1) && tmin[1] == size - 1, "2int minloc %d@%d", tmin[0], tmin[1]);
    }
  }

  /* gather / scatter / allgather / alltoall */
  int* all = malloc(sizeof(int) * (size_t)size * 3);
  int mine[3] = {rank, rank * 2, -rank};
  for (int root = 0; root < size; root += (size > 8 ? size / 3 : 1)) {
    for (int k = 0; k < size * 3; ++k) all[k] = -99;
    OK(MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, root, MPI_COMM_WORLD));
    if (rank == root)
      for (int r = 0; r < size; ++r)
        CHECK(all[r * 3] == r && all[r * 3 + 1] == 2 * r && all[r * 3 + 2] == -r, "gather root %d block %d", root, r);
    if (rank == root)
      for (int r = 0; r < size; ++r) all[r * 3] = r + 1000 * root, all[r * 3 + 1] = r, all[r * 3 + 2] = root;
    int got[3] = {0, 0, 0};
    OK(MPI_Scatter(all, 3, MPI_INT, got, 3, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(got[0] == rank + 1000 * root && got[1] == rank && got[2] == root, "scatter root %d: %d %d %d", root, got[0],
          got[1], got[2]);
  }
  for (int k = 0; k < size * 3; ++k) all[k] = -99;
  OK(MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r) CHECK(all[r * 3] == r && all[r * 3 + 1] == 2 * r, "allgather block %d", r);
  for (int k = 0; k < size * 3; ++k) all[k] = k / 3 == rank ? mine[k % 3] : -99;
  OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 3, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r) CHECK(all[r * 3 + 2] == -r, "allgather in place block %d", r);
  int* sendv = malloc(sizeof(int) * (size_t)size * 2);
  int* recvv = malloc(sizeof(int) * (size_t)size * 2);
  for (int j = 0; j < size; ++j) sendv[2 * j] = rank * 1000 + j, sendv[2 * j + 1] = j - rank;
  OK(MPI_Alltoall(sendv, 2, MPI_INT, recvv, 2, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i)
    CHECK(recvv[2 * i] == i * 1000 + rank && recvv[2 * i + 1] == rank - i, "alltoall block %d: %d %d", i, recvv[2 * i],
          recvv[2 * i + 1]);
  free(sendv);
  free(recvv);
  free(all);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  return 0;
}
