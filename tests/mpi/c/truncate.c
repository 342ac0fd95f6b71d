/* Truncation under MPI_ERRORS_RETURN: a message longer than the receive gives
 * MPI_ERR_TRUNCATE (MPI_Recv, MPI_Wait) or MPI_ERR_IN_STATUS with MPI_ERROR set
 * (MPI_Waitall), for an eager and a rendezvous message; the bytes that fit arrive. */
#include <string.h>

#include "mpitest.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int sizes[] = {100, 300000};
  for (int i = 0; i < 2; ++i) {
    int n = sizes[i];
    unsigned char* buf = malloc((size_t)n);
    if (rank == 0) {
      for (int k = 0; k < n; ++k) buf[k] = pattern(0, i, (size_t)k);
      for (int rep = 0; rep < 3; ++rep) OK(MPI_Send(buf, n, MPI_BYTE, 1, 9, MPI_COMM_WORLD));
    } else if (rank == 1) {
      MPI_Status st;
      memset(buf, 0, (size_t)n);
      int rc = MPI_Recv(buf, n / 2, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &st);
      int cls;
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_TRUNCATE, "MPI_Recv of %d bytes into %d gave %d", n, n / 2, rc);
      char text[MPI_MAX_ERROR_STRING];
      int len;
      OK(MPI_Error_string(rc, text, &len));
      CHECK(strstr(text, "truncated") != NULL, "error string '%s'", text);
      CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 9, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
      for (int k = 0; k < n / 2; ++k) CHECK(buf[k] == pattern(0, i, (size_t)k), "byte %d kept", k);

      MPI_Request r;
      OK(MPI_Irecv(buf, n / 4, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &r));
      EXPECT_CLASS(MPI_ERR_TRUNCATE, MPI_Wait(&r, &st));
      CHECK(r == MPI_REQUEST_NULL, "request released");

      MPI_Request rs[2];
      MPI_Status sts[2];
      OK(MPI_Irecv(buf, n / 3, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &rs[0]));
      OK(MPI_Irecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rs[1]));
      EXPECT_CLASS(MPI_ERR_IN_STATUS, MPI_Waitall(2, rs, sts));
      CHECK(sts[0].MPI_ERROR == MPI_ERR_TRUNCATE, "MPI_ERROR %d", sts[0].MPI_ERROR);
      CHECK(sts[1].MPI_ERROR == MPI_SUCCESS, "MPI_ERROR %d", sts[1].MPI_ERROR);
      CHECK(sts[1].MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL source %d", sts[1].MPI_SOURCE);
    }
    free(buf);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
