/* Matched probe and receive (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv): tiny,
 * eager and rendezvous sizes; the message probed is the first sent and no other
 * probe or receive sees it afterwards; wildcards; MPI_Improbe with nothing there;
 * MPI_Imrecv + MPI_Wait; truncation; MPI_PROC_NULL; the errors, none of which
 * consumes a message. Every rank but 0 sends, rank 0 probes and receives; phases
 * use their own tags, and the last one (both wildcards) starts once rank 0 has
 * received everything else. */
#include <string.h>

#include "mpitest.h"

/* Tiny (one packet), a full packet's worth, short (several packets), rendezvous. */
static const int sizes[] = {8, 4096, 20000, 1 << 20};
#define NSIZES 4
#define TAG_ORDER 10   /* + size index */
#define TAG_ANY_SOURCE 50
#define TAG_ANY_TAG 55
#define TAG_IMPROBE 60
#define TAG_TRUNCATE 70 /* + size index */
#define TAG_ERRORS 80
#define TAG_LAST 90     /* + sender */

static void fill(unsigned char* buf, int n, int rank, int seq) {
  for (int k = 0; k < n; ++k) buf[k] = pattern(rank, seq, (size_t)k);
}

static void expect_data(const unsigned char* buf, int n, int rank, int seq, const char* what) {
  for (int k = 0; k < n; ++k)
    CHECK(buf[k] == pattern(rank, seq, (size_t)k), "%s: byte %d of %d from rank %d (message %d) wrong", what, k, n,
          rank, seq);
}

static void expect_status(const MPI_Status* st, int source, int tag, int bytes, const char* what) {
  int count = -1;
  OK(MPI_Get_count(st, MPI_BYTE, &count));
  CHECK(st->MPI_SOURCE == source && st->MPI_TAG == tag && count == bytes,
        "%s: status source %d tag %d count %d, expected %d %d %d", what, st->MPI_SOURCE, st->MPI_TAG, count, source,
        tag, bytes);
}

static void sender(int rank, unsigned char* buf, unsigned char* buf2) {
  /* Order: two messages of each size with the same envelope, both in flight (a
   * rendezvous send completes only when received). */
  for (int i = 0; i < NSIZES; ++i) {
    MPI_Request req[2];
    fill(buf, sizes[i], rank, 2 * i);
    fill(buf2, sizes[i], rank, 2 * i + 1);
    OK(MPI_Isend(buf, sizes[i], MPI_BYTE, 0, TAG_ORDER + i, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Isend(buf2, sizes[i], MPI_BYTE, 0, TAG_ORDER + i, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  }
  fill(buf, 100 * rank, rank, 20);
  OK(MPI_Send(buf, 100 * rank, MPI_BYTE, 0, TAG_ANY_SOURCE, MPI_COMM_WORLD));
  fill(buf, 1 << 20, rank, 21);
  OK(MPI_Send(buf, 1 << 20, MPI_BYTE, 0, TAG_ANY_TAG, MPI_COMM_WORLD));
  fill(buf, 1 << 20, rank, 22);
  OK(MPI_Send(buf, 1 << 20, MPI_BYTE, 0, TAG_IMPROBE, MPI_COMM_WORLD));
  for (int i = 0; i < NSIZES; ++i) {
    fill(buf, sizes[i], rank, 30 + i);
    OK(MPI_Send(buf, sizes[i], MPI_BYTE, 0, TAG_TRUNCATE + i, MPI_COMM_WORLD));
  }
  int v[2] = {1, 2};
  OK(MPI_Send(&v[0], 1, MPI_INT, 0, TAG_ERRORS, MPI_COMM_WORLD));
  OK(MPI_Send(&v[1], 1, MPI_INT, 0, TAG_ERRORS, MPI_COMM_WORLD));
  fill(buf, 4096 * rank, rank, 40);
  OK(MPI_Send(buf, 4096 * rank, MPI_BYTE, 0, TAG_LAST + rank, MPI_COMM_WORLD));
}

/* The first probed is the first sent; the second is what everybody else sees. */
static void order(int size, unsigned char* buf) {
  for (int i = 0; i < NSIZES; ++i) {
    const int n = sizes[i], tag = TAG_ORDER + i;
    for (int src = 1; src < size; ++src) {
      MPI_Message msg = MPI_MESSAGE_NULL;
      MPI_Status st;
      OK(MPI_Mprobe(src, tag, MPI_COMM_WORLD, &msg, &st));
      CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "Mprobe gave handle 0x%x", (unsigned)msg);
      expect_status(&st, src, tag, n, "Mprobe");
      OK(MPI_Probe(src, tag, MPI_COMM_WORLD, &st)); /* waits for the second message */
      expect_status(&st, src, tag, n, "Probe after Mprobe");
      OK(MPI_Recv(buf, n, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
      expect_status(&st, src, tag, n, "Recv after Mprobe");
      expect_data(buf, n, src, 2 * i + 1, "Recv after Mprobe (the second message)");
      int flag = 1;
      OK(MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, &st));
      CHECK(!flag, "Iprobe sees the message Mprobe matched (size %d)", n);
      memset(buf, 0, (size_t)n);
      OK(MPI_Mrecv(buf, n, MPI_BYTE, &msg, &st));
      CHECK(msg == MPI_MESSAGE_NULL, "Mrecv left handle 0x%x", (unsigned)msg);
      expect_status(&st, src, tag, n, "Mrecv");
      expect_data(buf, n, src, 2 * i, "Mrecv (the first message)");
    }
  }
}

static void wildcards(int size, unsigned char* buf) {
  int* seen = calloc((size_t)size, sizeof(int));
  for (int m = 1; m < size; ++m) {
    MPI_Message msg;
    MPI_Status st;
    OK(MPI_Mprobe(MPI_ANY_SOURCE, TAG_ANY_SOURCE, MPI_COMM_WORLD, &msg, &st));
    const int src = st.MPI_SOURCE;
    CHECK(src >= 1 && src < size && !seen[src], "MPI_ANY_SOURCE Mprobe: source %d", src);
    seen[src] = 1;
    expect_status(&st, src, TAG_ANY_SOURCE, 100 * src, "MPI_ANY_SOURCE Mprobe");
    OK(MPI_Mrecv(buf, 100 * src, MPI_BYTE, &msg, &st));
    expect_status(&st, src, TAG_ANY_SOURCE, 100 * src, "MPI_ANY_SOURCE Mrecv");
    expect_data(buf, 100 * src, src, 20, "MPI_ANY_SOURCE Mrecv");
  }
  free(seen);
  for (int src = 1; src < size; ++src) {
    MPI_Message msg;
    MPI_Status st;
    OK(MPI_Mprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
    expect_status(&st, src, TAG_ANY_TAG, 1 << 20, "MPI_ANY_TAG Mprobe");
    /* A larger buffer than the message: the count is the message's. */
    OK(MPI_Mrecv(buf, (1 << 20) + 64, MPI_BYTE, &msg, &st));
    expect_status(&st, src, TAG_ANY_TAG, 1 << 20, "MPI_ANY_TAG Mrecv");
    expect_data(buf, 1 << 20, src, 21, "MPI_ANY_TAG Mrecv");
  }
}

static void nonblocking(int size, unsigned char* buf) {
  int flag = 1;
  MPI_Message msg = MPI_MESSAGE_NO_PROC;
  MPI_Status st;
  OK(MPI_Improbe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, &msg, &st));
  CHECK(!flag, "Improbe found a message with tag 999");
  for (int src = 1; src < size; ++src) {
    flag = 0;
    while (!flag) OK(MPI_Improbe(src, TAG_IMPROBE, MPI_COMM_WORLD, &flag, &msg, &st));
    expect_status(&st, src, TAG_IMPROBE, 1 << 20, "Improbe");
    MPI_Request req = MPI_REQUEST_NULL;
    OK(MPI_Imrecv(buf, 1 << 20, MPI_BYTE, &msg, &req));
    CHECK(msg == MPI_MESSAGE_NULL, "Imrecv left handle 0x%x", (unsigned)msg);
    CHECK(req != MPI_REQUEST_NULL, "Imrecv gave MPI_REQUEST_NULL");
    OK(MPI_Wait(&req, &st));
    expect_status(&st, src, TAG_IMPROBE, 1 << 20, "Imrecv + Wait");
    expect_data(buf, 1 << 20, src, 22, "Imrecv + Wait");
  }
}

static void truncation(int size, unsigned char* buf) {
  for (int src = 1; src < size; ++src) {
    for (int i = 0; i < NSIZES; ++i) {
      const int n = sizes[i], tag = TAG_TRUNCATE + i;
      MPI_Message msg;
      MPI_Status st;
      OK(MPI_Mprobe(src, tag, MPI_COMM_WORLD, &msg, &st));
      expect_status(&st, src, tag, n, "Mprobe before truncation");
      if (i % 2 == 0) {
        EXPECT_CLASS(MPI_ERR_TRUNCATE, MPI_Mrecv(buf, n / 2, MPI_BYTE, &msg, &st));
        CHECK(msg == MPI_MESSAGE_NULL, "a truncating Mrecv left handle 0x%x", (unsigned)msg);
      } else {
        MPI_Request req;
        OK(MPI_Imrecv(buf, n / 2, MPI_BYTE, &msg, &req));
        EXPECT_CLASS(MPI_ERR_TRUNCATE, MPI_Wait(&req, &st));
      }
      expect_status(&st, src, tag, n / 2, "truncated matched receive");
      expect_data(buf, n / 2, src, 30 + i, "truncated matched receive");
    }
  }
}

static void proc_null(void) {
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_Status st;
  int v = 7, count = -1, flag = 0;
  OK(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(MPI_PROC_NULL) gave 0x%x", (unsigned)msg);
  expect_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Mprobe(MPI_PROC_NULL)");
  st.MPI_SOURCE = 12;
  OK(MPI_Mrecv(&v, 1, MPI_INT, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NULL, "Mrecv(MPI_MESSAGE_NO_PROC) left 0x%x", (unsigned)msg);
  expect_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Mrecv(MPI_MESSAGE_NO_PROC)");
  OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(v == 7 && count == 0, "Mrecv(MPI_MESSAGE_NO_PROC) wrote %d, count %d", v, count);
  OK(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
  CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(MPI_PROC_NULL): flag %d handle 0x%x", flag, (unsigned)msg);
  MPI_Request req;
  OK(MPI_Imrecv(&v, 1, MPI_INT, &msg, &req));
  OK(MPI_Wait(&req, &st));
  expect_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Imrecv(MPI_MESSAGE_NO_PROC)");
}

/* Every refused call leaves the messages and handles as they were. */
static void errors(int size) {
  MPI_Message msg = MPI_MESSAGE_NULL, bad;
  MPI_Status st;
  MPI_Request req;
  int v = 0, flag = 0;
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Mprobe(size, 0, MPI_COMM_WORLD, &msg, &st));
  EXPECT_CLASS(MPI_ERR_RANK, MPI_Improbe(-5, 0, MPI_COMM_WORLD, &flag, &msg, &st));
  EXPECT_CLASS(MPI_ERR_TAG, MPI_Mprobe(1, -3, MPI_COMM_WORLD, &msg, &st));
  EXPECT_CLASS(MPI_ERR_TAG, MPI_Improbe(MPI_ANY_SOURCE, -7, MPI_COMM_WORLD, &flag, &msg, &st));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Mprobe(1, 0, MPI_COMM_NULL, &msg, &st));
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Improbe(1, 0, (MPI_Comm)777, &flag, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NULL, "a refused probe changed the handle to 0x%x", (unsigned)msg);
  /* A message is waiting (first of two with tag TAG_ERRORS from rank 1): a probe
   * refused for its pointers must not take it. */
  OK(MPI_Probe(1, TAG_ERRORS, MPI_COMM_WORLD, &st));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Mprobe(1, TAG_ERRORS, MPI_COMM_WORLD, NULL, &st));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Improbe(1, TAG_ERRORS, MPI_COMM_WORLD, NULL, &msg, &st));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Improbe(1, TAG_ERRORS, MPI_COMM_WORLD, &flag, NULL, &st));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Mrecv(&v, 1, MPI_INT, &msg, &st)); /* MPI_MESSAGE_NULL */
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Imrecv(&v, 1, MPI_INT, &msg, &req));
  bad = (MPI_Message)0x12345;
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Mrecv(&v, 1, MPI_INT, &bad, &st));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Mrecv(&v, 1, MPI_INT, NULL, &st));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Imrecv(&v, 1, MPI_INT, NULL, &req));
  OK(MPI_Mprobe(1, TAG_ERRORS, MPI_COMM_WORLD, &msg, &st));
  const MPI_Message kept = msg;
  /* A request handle is not a message, and a message is not a request. */
  MPI_Request other;
  OK(MPI_Irecv(&v, 1, MPI_INT, 1, 12345, MPI_COMM_WORLD, &other));
  bad = (MPI_Message)other;
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Mrecv(&v, 1, MPI_INT, &bad, &st));
  MPI_Request as_request = (MPI_Request)msg;
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Wait(&as_request, &st));
  OK(MPI_Cancel(&other));
  OK(MPI_Wait(&other, &st));
  /* Refused receives of a matched message: it stays matched, the handle unchanged. */
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Mrecv(&v, 1, MPI_DATATYPE_NULL, &msg, &st));
  EXPECT_CLASS(MPI_ERR_COUNT, MPI_Mrecv(&v, -1, MPI_INT, &msg, &st));
  EXPECT_CLASS(MPI_ERR_BUFFER, MPI_Mrecv(NULL, 1, MPI_INT, &msg, &st));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Imrecv(&v, 1, MPI_INT, &msg, NULL));
  CHECK(msg == kept, "a refused Mrecv changed the handle");
  OK(MPI_Mrecv(&v, 1, MPI_INT, &msg, &st));
  CHECK(v == 1, "the matched message holds %d, expected the first (1)", v);
  bad = kept; /* received already */
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Mrecv(&v, 1, MPI_INT, &bad, &st));
  EXPECT_CLASS(MPI_ERR_REQUEST, MPI_Imrecv(&v, 1, MPI_INT, &bad, &req));
  OK(MPI_Recv(&v, 1, MPI_INT, 1, TAG_ERRORS, MPI_COMM_WORLD, &st));
  CHECK(v == 2, "the next receive got %d, expected the second message (2)", v);
  /* The other senders' two messages, by plain receives. */
  for (int src = 2; src < size; ++src) {
    OK(MPI_Recv(&v, 1, MPI_INT, src, TAG_ERRORS, MPI_COMM_WORLD, &st));
    OK(MPI_Recv(&v, 1, MPI_INT, src, TAG_ERRORS, MPI_COMM_WORLD, &st));
  }
}

/* Everything else is received: both wildcards take each sender's last message. */
static void last(int size, unsigned char* buf) {
  int* seen = calloc((size_t)size, sizeof(int));
  for (int m = 1; m < size; ++m) {
    MPI_Message msg;
    MPI_Status st;
    OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
    const int src = st.MPI_SOURCE;
    CHECK(src >= 1 && src < size && !seen[src], "wildcard Mprobe: source %d", src);
    seen[src] = 1;
    expect_status(&st, src, TAG_LAST + src, 4096 * src, "wildcard Mprobe");
    OK(MPI_Mrecv(buf, 4096 * src, MPI_BYTE, &msg, &st));
    expect_data(buf, 4096 * src, src, 40, "wildcard Mrecv");
  }
  free(seen);
  int flag = 1;
  MPI_Status st;
  OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
  CHECK(!flag, "a message from rank %d (tag %d) is left over", st.MPI_SOURCE, st.MPI_TAG);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  unsigned char* buf = malloc((1 << 20) + 64);
  unsigned char* buf2 = malloc(1 << 20);
  if (rank != 0) {
    sender(rank, buf, buf2);
  } else {
    proc_null();
    order(size, buf);
    wildcards(size, buf);
    nonblocking(size, buf);
    truncation(size, buf);
    errors(size);
    last(size, buf);
  }
  free(buf);
  free(buf2);
  MPI_Finalize();
  return 0;
}
