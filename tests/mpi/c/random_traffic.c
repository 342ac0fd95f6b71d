/* Randomized point-to-point traffic, seeded and deterministic: hunts for bugs in
 * matching, ordering and protocol switching (tiny / short / rendezvous, every
 * rendezvous variant, credits and send buffers under pressure).
 *
 *   random_traffic [seed=1] [rounds=20] [max_size=1048576] [verbose=0..3]
 *
 * Every rank derives the same schedule from the seed (splitmix64), so every rank knows
 * what every rank sends and receives in each round. A round is a random set of
 * messages (source, destination - itself now and then -, communicator among
 * MPI_COMM_WORLD, a dup of it and a split of it, tag 0..3, a size drawn around every
 * protocol boundary of the TWINFAB_* settings in the environment: 0, a few bytes, the
 * inline and head-slot limits, one packet, whole packets, the eager threshold, up to
 * max_size by rendezvous) and of exchanges (pairs of ranks that swap one message each
 * with MPI_Sendrecv, tag 9). Senders use MPI_Send, Isend, Ssend, Issend, Send_init /
 * Ssend_init + Start and Sendrecv; receivers Irecv, Recv_init + Start, Recv, Probe +
 * Recv, an Iprobe loop + Recv and Sendrecv, with specific and wildcard sources and
 * tags; requests complete by Wait, Waitall, Waitany, Waitsome and Test, Testall,
 * Testany, Testsome loops, and MPI_Test / Testsome on random requests in between.
 * Buffers are contiguous bytes or spread by a derived datatype (every 2nd or 3rd byte,
 * 3 of every 4), so packets and rendezvous data are also unpacked at every offset.
 *
 * Receive classes (why greedy matching never strands a receive). The messages of a
 * round to one destination on one communicator are split into classes, and every
 * receive of a class has the same (source, tag) specification, one of
 *   (s, t)        every message from s with tag t,
 *   (s, ANY_TAG)  every message from s,
 *   (ANY_SOURCE, t) every message with tag t,
 *   (ANY, ANY)    every message,
 * chosen per destination and communicator so that the classes are disjoint and each
 * specification matches exactly the messages of its own class (by source: each
 * source exact or (s, ANY_TAG); by tag: each tag exact or (ANY_SOURCE, t); or one
 * (ANY, ANY) class). A class has as many receives as messages, so whatever order
 * the messages arrive and receives are posted in, each receive gets one message of
 * its class and none is left over. The exchange messages (tag 9, at most one per
 * pair, communicator and round) are always received with an exact specification, so
 * each is a class of its own, received only by its MPI_Sendrecv.
 *
 * Rounds. A message of round k+1 can reach a rank still in round k. With exact and
 * (s, ANY_TAG) classes that is harmless: a class holds every round-k message of its
 * source(s) that it matches, those precede the round-k+1 ones from the same source,
 * and non-overtaking gives them to the round-k receives first. An ANY_SOURCE class
 * could take another source's round-k+1 message, so a round that has one ends with
 * MPI_Barrier.
 *
 * No deadlock. Each rank runs a round in four phases:
 *  A. posts its pre-posted receives (Irecv, Recv_init + Start);
 *  B. sends its messages in schedule order. A blocking send (Send, Ssend) is used only
 *     when every receive of the message's class at the destination is pre-posted, so
 *     it always finds a free matching receive and completes once the destination
 *     makes progress (every rank is always inside MPI until it finishes the round);
 *     every other send is nonblocking;
 *  C. runs its exchanges (MPI_Sendrecv) in the round's global exchange order: the
 *     lowest unfinished exchange always has both partners at it (phases A and B
 *     always complete), and its messages are classes of their own;
 *  D. posts its late receives (Recv, Probe + Recv, Iprobe loop + Recv, late Irecv):
 *     each waits only for a message that was already started in someone's phase B
 *     or C; only then waits on anything (Wait*, Test* loops), so a wait on a send
 *     never waits for a receive this rank has yet to post.
 *
 * After the exchanges, a few synchronous-send checks (on a communicator of their own,
 * in global order like the exchanges): a MPI_Issends to b, tests that it is not
 * complete, then sends b a go message; b receives the go and only then the message.
 *
 * Checks. At the end of a round each rank sorts its receives by the order it posted
 * them. MPI's non-overtaking rule says that, within a class (all its receives match
 * all its messages), the messages from one source go to the receives in the order
 * they were sent, so the j-th receive (in post order) that got a message from s must
 * have the j-th message s sent into that class. Each receive is checked against that
 * message: MPI_SOURCE, MPI_TAG, MPI_Get_count (in bytes and in the receive's type),
 * every byte (pattern of source, sequence number, offset), the receive buffer outside
 * the message untouched, a probe's status equal to the receive's; every send buffer
 * must be unchanged after its send completed; completed requests are MPI_REQUEST_NULL
 * (persistent ones inactive, then freed); Iprobe for a tag nobody sends finds nothing;
 * receives from MPI_PROC_NULL complete empty; an MPI_Issend is not complete before its
 * receive is posted. A failure prints the schedule entry expected and what came (and
 * which message the bytes belong to), then aborts with status 1.
 *
 * Polling loops (Test*, Iprobe) give up after POLL_LIMIT polls and block instead:
 * under packet loss a retransmission takes 67 ms of simulated time, 670,000 polls. */
#include <stdint.h>
#include <string.h>

#include "mpitest.h"

enum { NCOMMS = 3, NTAGS = 4, EXCH_TAG = 9, NOISE_TAG = 99, HEADER = 56, SYNC_COMM = 3 };
/* A polling loop gives up after this many unsuccessful polls and blocks instead: each
 * poll costs the simulator a timer and a context switch (100 ns simulated), and a
 * retransmission after packet loss can take milliseconds. */
enum { POLL_LIMIT = 2000 };
enum { S_SEND, S_ISEND, S_SSEND, S_ISSEND, S_PSEND, S_PSSEND, S_SENDRECV };
enum { R_PRE, R_PINIT, R_RECV, R_PROBE, R_IPROBE, R_LATE, R_SENDRECV };
static const char* const send_name[] = {"MPI_Send", "MPI_Isend", "MPI_Ssend", "MPI_Issend",
                                        "MPI_Send_init+Start", "MPI_Ssend_init+Start", "MPI_Sendrecv"};
static const char* const recv_name[] = {"pre-posted MPI_Irecv", "pre-posted MPI_Recv_init+Start", "MPI_Recv",
                                        "MPI_Probe+MPI_Recv", "MPI_Iprobe loop+MPI_Recv", "late MPI_Irecv",
                                        "MPI_Sendrecv"};
static const char* const comm_name[] = {"MPI_COMM_WORLD", "dup(WORLD)", "split(WORLD)"};

/* ---------------------------------------------------------------- random numbers */
typedef struct {
  uint64_t s;
} Rng;
static uint64_t rnext(Rng* r) { /* splitmix64 */
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int below(Rng* r, int n) { return n <= 1 ? 0 : (int)(rnext(r) % (uint64_t)n); }
static int chance(Rng* r, int percent) { return below(r, 100) < percent; }

/* ---------------------------------------------------------------- world layout */
static int g_rank, g_size, g_verbose;
static MPI_Comm g_comm[NCOMMS + 1]; /* + a dup of its own for the synchronous-send checks */
/* The split: color = rank % 2, key = size - rank (reversed order within a color). */
static int same_comm(int c, int a, int b) { return c < 2 || a % 2 == b % 2; }
static int comm_rank_of(int c, int r) {
  if (c < 2) return r;
  int k = 0;
  for (int j = r + 1; j < g_size; ++j) k += j % 2 == r % 2;
  return k;
}
static int comm_size_of(int c, int r) {
  if (c < 2) return g_size;
  int k = 0;
  for (int j = 0; j < g_size; ++j) k += j % 2 == r % 2;
  return k;
}
/* The world rank of comm rank `cr` in communicator c as seen by world rank `me`. */
static int world_of(int c, int me, int cr) {
  for (int j = 0; j < g_size; ++j)
    if (same_comm(c, me, j) && comm_rank_of(c, j) == cr) return j;
  return -1;
}

/* The byte at `index` of the message with sequence number `seq` from world rank
 * `src`: mpitest.h's pattern, with the sequence's high bits folded in so that two
 * messages of one stream never look alike. */
static unsigned char msg_byte(int src, int seq, size_t index) {
  return pattern(src, seq, index) ^ (unsigned char)((unsigned)(seq >> 8) * 151u);
}
static unsigned char canary(size_t index) { return (unsigned char)(0x5A + index * 3); }

/* Buffer layouts: a message's bytes in user memory, contiguous or spread by a derived
 * datatype (MPI_Type_create_resized of MPI_BYTE, or of 3 bytes), so that eager packets
 * and rendezvous transfers are also packed and unpacked at every offset. The type
 * signature is always bytes: any send layout matches any receive layout. */
enum { L_BYTES, L_STRIDE2, L_STRIDE3, L_3OF4, NLAYOUTS };
typedef struct {
  int block, extent;
  MPI_Datatype type;
  const char* name;
} Layout;
static Layout g_layout[NLAYOUTS] = {{1, 1, MPI_BYTE, "MPI_BYTE"},
                                    {1, 2, MPI_DATATYPE_NULL, "1 byte of every 2"},
                                    {1, 3, MPI_DATATYPE_NULL, "1 byte of every 3"},
                                    {3, 4, MPI_DATATYPE_NULL, "3 bytes of every 4"}};
static void make_layouts(void) {
  MPI_Datatype three;
  OK(MPI_Type_create_resized(MPI_BYTE, 0, 2, &g_layout[L_STRIDE2].type));
  OK(MPI_Type_create_resized(MPI_BYTE, 0, 3, &g_layout[L_STRIDE3].type));
  OK(MPI_Type_contiguous(3, MPI_BYTE, &three));
  OK(MPI_Type_create_resized(three, 0, 4, &g_layout[L_3OF4].type));
  OK(MPI_Type_free(&three));
  for (int l = 1; l < NLAYOUTS; ++l) OK(MPI_Type_commit(&g_layout[l].type));
}
static void free_layouts(void) {
  for (int l = 1; l < NLAYOUTS; ++l) OK(MPI_Type_free(&g_layout[l].type));
}
/* Where logical byte k lives; how many elements hold `bytes`; bytes of memory they span. */
static size_t lay_off(int l, size_t k) {
  return (k / (size_t)g_layout[l].block) * (size_t)g_layout[l].extent + k % (size_t)g_layout[l].block;
}
static int lay_count(int l, int bytes) { return (bytes + g_layout[l].block - 1) / g_layout[l].block; }
static size_t lay_span(int l, int elements) { return (size_t)elements * (size_t)g_layout[l].extent; }
/* Whether memory byte p of a buffer holds one of the first `bytes` logical bytes. */
static int lay_covers(int l, size_t p, int bytes) {
  const size_t e = p / (size_t)g_layout[l].extent, r = p % (size_t)g_layout[l].extent;
  return r < (size_t)g_layout[l].block && e * (size_t)g_layout[l].block + r < (size_t)bytes;
}

/* ---------------------------------------------------------------- sizes */
static int g_payload, g_tiny, g_eager, g_max_size;
static int env_int(const char* name, int fallback) {
  const char* text = getenv(name);
  return text != NULL && *text != '\0' ? atoi(text) : fallback;
}
static int clamp_size(int n) { return n < 0 ? 0 : n > g_max_size ? g_max_size : n; }
static int draw_size(Rng* r) {
  static const int edges[] = {1, 7, 8, 9, 15, 16, 17, 47, 48, 49, 63, 64, 65, 103, 104, 105, 119, 120, 121, 128};
  const int k = below(r, 100);
  if (k < 6) return 0;
  if (k < 14) return 1 + below(r, 16);
  if (k < 24) return edges[below(r, (int)(sizeof edges / sizeof edges[0]))];
  if (k < 36) return clamp_size(g_tiny - 3 + below(r, 7)); /* around tiny (one packet) */
  if (k < 46) {                                            /* whole packets of a short message */
    int packets = g_eager / g_payload;
    if (packets < 1) packets = 1;
    if (packets > 8) packets = 8;
    return clamp_size((1 + below(r, packets)) * g_payload - 1 + below(r, 3));
  }
  if (k < 56) return clamp_size(g_tiny + 1 + below(r, g_eager > g_tiny ? g_eager - g_tiny : 1)); /* short */
  if (k < 70) return clamp_size(g_eager - 3 + below(r, 7));                                      /* around eager */
  if (k < 97) { /* rendezvous, log-uniform (by bit length) up to max_size */
    const int lo = g_eager + 1, hi = g_max_size;
    if (hi <= lo) return clamp_size(lo);
    const int blo = 32 - __builtin_clz((unsigned)lo), bhi = 32 - __builtin_clz((unsigned)hi);
    const int bits = blo + below(r, bhi - blo + 1), base = 1 << (bits - 1);
    int x = base + below(r, base);
    if (x < lo) x = lo + below(r, 64);
    if (x > hi) x = hi - below(r, 64);
    return clamp_size(x);
  }
  return g_max_size - below(r, 3);
}
static const char* protocol_of(int size) {
  if (size == 0 || size <= g_tiny) return "tiny";
  return size <= g_eager ? "short" : "rendezvous";
}

/* ---------------------------------------------------------------- the schedule */
typedef struct {
  int src, dst, comm, tag, size, seq; /* src, dst: world ranks; seq: the sender's count */
  int exch;                           /* exchange index, or -1 */
  int method;                         /* S_* */
  int layout;                         /* L_*: the send buffer's datatype */
  int cls;                            /* receive class at dst */
} Msg;
typedef struct {
  int dst, comm, src_spec, tag_spec; /* src_spec: comm rank or MPI_ANY_SOURCE */
  int n, maxsize, preposted, exchange;
  int* members; /* message indices, in send order */
} Class;
typedef struct {
  int cls, method, slack, layout;
  uint64_t key; /* post order among the destination's pre-posted / late receives */
} RecvSpec;
typedef struct {
  int a, b, comm, m_ab, m_ba; /* m_ba = -1 for an exchange with itself */
} Exch;
typedef struct {
  int a, b, size, seq; /* a MPI_Issends `size` bytes to b, which only posts after a's go */
} SyncCheck;
typedef struct {
  SyncCheck* sc;
  int nsc;
  Msg* m;
  int nm, nb; /* messages; the first nb are plain sends, the rest exchange messages */
  Exch* x;
  int nx;
  Class* c;
  int nc;
  RecvSpec* r;
  int nr;
  int barrier;
} Round;

static int* g_seq; /* per world rank: messages sent so far */
static long g_stats[8];

static int add_msg(Round* R, int src, int dst, int comm, int tag, int size, int exch) {
  Msg* m = &R->m[R->nm];
  m->src = src, m->dst = dst, m->comm = comm, m->tag = tag, m->size = size;
  m->seq = g_seq[src]++;
  m->exch = exch, m->cls = -1, m->method = exch >= 0 ? S_SENDRECV : S_ISEND;
  return R->nm++;
}

static int find_class(Round* R, int dst, int comm, int src_spec, int tag_spec) {
  for (int i = 0; i < R->nc; ++i) {
    Class* c = &R->c[i];
    if (c->dst == dst && c->comm == comm && c->src_spec == src_spec && c->tag_spec == tag_spec) return i;
  }
  Class* c = &R->c[R->nc];
  memset(c, 0, sizeof *c);
  c->dst = dst, c->comm = comm, c->src_spec = src_spec, c->tag_spec = tag_spec;
  return R->nc++;
}

static void make_round(Rng* g, Round* R) {
  const int nb = below(g, 3 * g_size + 2);
  const int nxmax = below(g, g_size / 2 + 2);
  R->m = malloc(sizeof(Msg) * (size_t)(nb + 2 * nxmax + 1));
  R->x = malloc(sizeof(Exch) * (size_t)(nxmax + 1));
  R->nm = R->nx = R->nc = R->nr = 0;
  for (int i = 0; i < nb; ++i) {
    const int comm = below(g, NCOMMS), src = below(g, g_size);
    int dst = src;
    if (!chance(g, 8) && comm_size_of(comm, src) > 1) {
      do dst = below(g, g_size);
      while (dst == src || !same_comm(comm, src, dst));
    }
    add_msg(R, src, dst, comm, below(g, NTAGS), draw_size(g), -1);
  }
  R->nb = R->nm;
  for (int i = 0; i < nxmax; ++i) {
    const int comm = below(g, NCOMMS), a = below(g, g_size);
    int b = a;
    if (!chance(g, 10) && comm_size_of(comm, a) > 1) {
      do b = below(g, g_size);
      while (b == a || !same_comm(comm, a, b));
    }
    int dup = 0;
    for (int j = 0; j < R->nx; ++j)
      dup |= R->x[j].comm == comm && ((R->x[j].a == a && R->x[j].b == b) || (R->x[j].a == b && R->x[j].b == a));
    const int size_ab = draw_size(g), size_ba = draw_size(g);
    if (dup) continue;
    Exch* x = &R->x[R->nx];
    x->a = a, x->b = b, x->comm = comm;
    x->m_ab = add_msg(R, a, b, comm, EXCH_TAG, size_ab, R->nx);
    x->m_ba = a == b ? -1 : add_msg(R, b, a, comm, EXCH_TAG, size_ba, R->nx);
    R->nx++;
  }
  /* Synchronous-send checks. */
  R->nsc = g_size > 1 ? below(g, 3) : 0;
  R->sc = malloc(sizeof(SyncCheck) * 3);
  for (int i = 0; i < R->nsc; ++i) {
    SyncCheck* c = &R->sc[i];
    c->a = below(g, g_size);
    do c->b = below(g, g_size);
    while (c->b == c->a);
    c->size = draw_size(g);
    c->seq = g_seq[c->a]++;
  }
  /* Receive classes, per destination and communicator. */
  const int any_source_round = chance(g, 50);
  R->c = malloc(sizeof(Class) * (size_t)(R->nm + 1));
  R->barrier = 0;
  int* list = malloc(sizeof(int) * (size_t)(R->nm + 1));
  char* wild = malloc((size_t)(g_size > EXCH_TAG + 1 ? g_size : EXCH_TAG + 1));
  for (int dst = 0; dst < g_size; ++dst)
    for (int comm = 0; comm < NCOMMS; ++comm) {
      int n = 0, has_exch = 0;
      for (int i = 0; i < R->nm; ++i)
        if (R->m[i].dst == dst && R->m[i].comm == comm) list[n++] = i, has_exch |= R->m[i].exch >= 0;
      if (n == 0) continue;
      int mode = 0; /* 0 by source, 1 by tag, 2 all */
      if (any_source_round) {
        const int k = below(g, 100);
        mode = k < 35 ? 0 : k < 75 || has_exch ? 1 : 2;
      }
      if (mode == 0) {
        for (int s = 0; s < g_size; ++s) wild[s] = (char)chance(g, 40);
        for (int i = 0; i < n; ++i)
          if (R->m[list[i]].exch >= 0) wild[R->m[list[i]].src] = 0;
      } else if (mode == 1) {
        for (int t = 0; t <= EXCH_TAG; ++t) wild[t] = (char)(t != EXCH_TAG && chance(g, 55));
      }
      for (int i = 0; i < n; ++i) {
        Msg* m = &R->m[list[i]];
        const int cs = comm_rank_of(comm, m->src);
        int ss = cs, ts = m->tag;
        if (mode == 0 && wild[m->src]) ts = MPI_ANY_TAG;
        if (mode == 1 && wild[m->tag]) ss = MPI_ANY_SOURCE;
        if (mode == 2) ss = MPI_ANY_SOURCE, ts = MPI_ANY_TAG;
        m->cls = find_class(R, dst, comm, ss, ts);
        R->barrier |= ss == MPI_ANY_SOURCE;
      }
    }
  free(wild);
  free(list);
  /* Members, receives, send methods. */
  for (int i = 0; i < R->nm; ++i) R->c[R->m[i].cls].n++;
  R->r = malloc(sizeof(RecvSpec) * (size_t)(R->nm + 1));
  for (int ci = 0; ci < R->nc; ++ci) {
    Class* c = &R->c[ci];
    c->members = malloc(sizeof(int) * (size_t)c->n);
    int k = 0;
    for (int i = 0; i < R->nm; ++i)
      if (R->m[i].cls == ci) {
        c->members[k++] = i;
        if (R->m[i].size > c->maxsize) c->maxsize = R->m[i].size;
        c->exchange |= R->m[i].exch >= 0;
      }
    c->preposted = !c->exchange && chance(g, 45);
    for (int j = 0; j < c->n; ++j) {
      RecvSpec* r = &R->r[R->nr++];
      r->cls = ci;
      r->key = rnext(g);
      r->slack = chance(g, 30) ? 0 : below(g, 80);
      const int k = below(g, 100);
      r->layout = k < 70 ? L_BYTES : k < 85 ? L_STRIDE2 : L_3OF4;
      if (c->exchange) {
        r->method = R_SENDRECV;
      } else if (c->preposted) {
        r->method = chance(g, 20) ? R_PINIT : R_PRE;
      } else {
        static const int weights[] = {20, 8, 18, 18, 14, 22}; /* R_PRE .. R_LATE */
        int w = below(g, 100), m = 0;
        while (w >= weights[m]) w -= weights[m++];
        r->method = m;
      }
    }
  }
  for (int i = 0; i < R->nb; ++i) {
    Msg* m = &R->m[i];
    const int k = below(g, 100);
    if (R->c[m->cls].preposted)
      m->method = k < 22 ? S_SEND : k < 44 ? S_SSEND : k < 66 ? S_ISEND : k < 82 ? S_ISSEND : k < 92 ? S_PSEND : S_PSSEND;
    else
      m->method = k < 45 ? S_ISEND : k < 80 ? S_ISSEND : k < 90 ? S_PSEND : S_PSSEND;
  }
  for (int i = 0; i < R->nm; ++i) {
    const int k = below(g, 100);
    R->m[i].layout = k < 70 ? L_BYTES : k < 85 || R->m[i].size % 3 != 0 ? L_STRIDE3 : L_3OF4;
  }
  for (int i = 0; i < R->nm; ++i) {
    const int s = R->m[i].size;
    g_stats[s == 0 ? 0 : s <= g_tiny ? 1 : s <= g_eager ? 2 : 3]++;
  }
  g_stats[4] += R->nx;
  g_stats[5] += R->barrier;
  for (int ci = 0; ci < R->nc; ++ci) g_stats[6] += R->c[ci].src_spec == MPI_ANY_SOURCE || R->c[ci].tag_spec == MPI_ANY_TAG;
}

static void free_round(Round* R) {
  for (int ci = 0; ci < R->nc; ++ci) free(R->c[ci].members);
  free(R->m), free(R->x), free(R->c), free(R->r), free(R->sc);
}

/* ---------------------------------------------------------------- running a round */
typedef struct {
  int spec; /* index into Round.r */
  unsigned char* buf;
  int bufsize;        /* capacity in bytes (count elements of the layout's type) */
  int layout, count;  /* the receive's datatype and count */
  size_t span;        /* bytes of memory the buffer has */
  MPI_Request req;
  int persistent, pending, done, post;
  MPI_Status st;
  int probed, psrc, ptag, pcount;
} RecvRun;
typedef struct {
  int msg;
  unsigned char* buf;
  size_t span;
  MPI_Request req;
  int persistent, pending;
} SendRun;

static int g_round, g_seed;
static Round* g_R;

static void spec_str(char* out, size_t n, const Class* c) {
  char s[16], t[16];
  if (c->src_spec == MPI_ANY_SOURCE) snprintf(s, sizeof s, "ANY_SOURCE");
  else snprintf(s, sizeof s, "%d", c->src_spec);
  if (c->tag_spec == MPI_ANY_TAG) snprintf(t, sizeof t, "ANY_TAG");
  else snprintf(t, sizeof t, "%d", c->tag_spec);
  snprintf(out, n, "(source %s, tag %s, %s)", s, t, comm_name[c->comm]);
}
static void msg_str(char* out, size_t n, int i) {
  const Msg* m = &g_R->m[i];
  snprintf(out, n, "message #%d of round %d: world %d -> %d, %s (comm ranks %d -> %d), tag %d, %d bytes (%s), seq %d, %s of %s",
           i, g_round, m->src, m->dst, comm_name[m->comm], comm_rank_of(m->comm, m->src), comm_rank_of(m->comm, m->dst),
           m->tag, m->size, protocol_of(m->size), m->seq, send_name[m->method], g_layout[m->layout].name);
}

static int data_matches(const unsigned char* buf, int layout, int count, const Msg* m) {
  if (count != m->size) return 0;
  for (int k = 0; k < count; ++k)
    if (buf[lay_off(layout, (size_t)k)] != msg_byte(m->src, m->seq, (size_t)k)) return 0;
  return 1;
}

static void fail_recv(const RecvRun* rr, int expected, const char* what) {
  const RecvSpec* r = &g_R->r[rr->spec];
  const Class* c = &g_R->c[r->cls];
  char spec[96], exp[320];
  spec_str(spec, sizeof spec, c);
  if (expected >= 0) msg_str(exp, sizeof exp, expected);
  else snprintf(exp, sizeof exp, "(none: no message left from that source in this class)");
  int count = -1;
  MPI_Get_count(&rr->st, MPI_BYTE, &count);
  fprintf(stderr,
          "random_traffic FAILED (seed %d, %d ranks, round %d, rank %d): %s\n"
          "  receive: %s %s, buffer %d bytes as %d x %s, posted as receive #%d of this rank\n"
          "  expected: %s\n"
          "  got: MPI_SOURCE %d, MPI_TAG %d, count %d",
          g_seed, g_size, g_round, g_rank, what, recv_name[r->method], spec, rr->bufsize, rr->count,
          g_layout[rr->layout].name, rr->post, exp,
          rr->st.MPI_SOURCE, rr->st.MPI_TAG, count);
  if (rr->probed) fprintf(stderr, " (probe said source %d, tag %d, count %d)", rr->psrc, rr->ptag, rr->pcount);
  fprintf(stderr, "\n  first bytes:");
  for (int k = 0; k < count && k < 12 && k < rr->bufsize; ++k) fprintf(stderr, " %02x", rr->buf[lay_off(rr->layout, (size_t)k)]);
  fprintf(stderr, "\n");
  if (count >= 0 && count <= rr->bufsize) {
    int found = 0;
    for (int i = 0; i < g_R->nm; ++i)
      if (g_R->m[i].dst == g_rank && data_matches(rr->buf, rr->layout, count, &g_R->m[i])) {
        char got[320];
        msg_str(got, sizeof got, i);
        fprintf(stderr, "  the bytes are those of %s\n", got);
        if (++found == 3) break;
      }
    if (!found) fprintf(stderr, "  the bytes match no message of this round to this rank\n");
  }
  MPI_Abort(MPI_COMM_WORLD, 1);
}

#define FAIL(...)                                                                                  \
  do {                                                                                             \
    fprintf(stderr, "random_traffic FAILED (seed %d, %d ranks, round %d, rank %d): ", g_seed, g_size, \
            g_round, g_rank);                                                                      \
    fprintf(stderr, __VA_ARGS__);                                                                  \
    fprintf(stderr, "\n");                                                                         \
    MPI_Abort(MPI_COMM_WORLD, 1);                                                                  \
  } while (0)

static void trace(const char* what) {
  if (g_verbose >= 2) fprintf(stderr, "[rank %d round %d] %s\n", g_rank, g_round, what);
}

static RecvRun* g_rr;
static int g_nrr;
static SendRun* g_sr;
static int g_nsr;
static int g_post;

/* A receive buffer for at least `capacity` bytes in the receive's layout, all canary. */
static void size_buffer(RecvRun* rr, int capacity) {
  free(rr->buf);
  rr->count = lay_count(rr->layout, capacity);
  rr->bufsize = rr->count * g_layout[rr->layout].block;
  rr->span = lay_span(rr->layout, rr->count);
  rr->buf = malloc(rr->span + 1);
  for (size_t k = 0; k < rr->span; ++k) rr->buf[k] = canary(k);
}

static RecvRun* new_recv(int spec) {
  RecvRun* rr = &g_rr[g_nrr++];
  memset(rr, 0, sizeof *rr);
  rr->spec = spec;
  rr->req = MPI_REQUEST_NULL;
  const RecvSpec* r = &g_R->r[spec];
  const Class* c = &g_R->c[r->cls];
  rr->layout = r->layout;
  size_buffer(rr, c->maxsize + r->slack);
  return rr;
}

static void noise_probe(Rng* rt) {
  int flag = 1;
  MPI_Status st;
  OK(MPI_Iprobe(MPI_ANY_SOURCE, NOISE_TAG, g_comm[below(rt, NCOMMS)], &flag, &st));
  if (flag) FAIL("MPI_Iprobe found a message with tag %d, which nobody sends (source %d)", NOISE_TAG, st.MPI_SOURCE);
}

/* After a request completed: a persistent one is inactive and freed now; any other
 * must have become MPI_REQUEST_NULL. */
static void release(MPI_Request* req, int persistent) {
  if (!persistent) {
    if (*req != MPI_REQUEST_NULL) FAIL("a completed request is not MPI_REQUEST_NULL");
    return;
  }
  if (*req == MPI_REQUEST_NULL) FAIL("a completed persistent request became MPI_REQUEST_NULL");
  OK(MPI_Request_free(req));
  if (*req != MPI_REQUEST_NULL) FAIL("MPI_Request_free left the handle set");
}

/* One MPI_Test on a random pending request, or a Testsome over the pending receives. */
static void poke(Rng* rt) {
  const int k = below(rt, 100);
  if (k < 30) {
    noise_probe(rt);
  } else if (k < 55) {
    if (g_nrr + g_nsr == 0) return;
    int i = below(rt, g_nrr + g_nsr), flag = 0;
    if (i < g_nrr) {
      RecvRun* rr = &g_rr[i];
      if (!rr->pending) return;
      OK(MPI_Test(&rr->req, &flag, &rr->st));
      if (flag) rr->pending = 0, rr->done = 1, release(&rr->req, rr->persistent);
    } else {
      SendRun* sr = &g_sr[i - g_nrr];
      if (!sr->pending) return;
      OK(MPI_Test(&sr->req, &flag, MPI_STATUS_IGNORE));
      if (flag) sr->pending = 0, release(&sr->req, sr->persistent);
    }
  } else if (k < 65) { /* MPI_PROC_NULL: complete at once, empty status */
    MPI_Request req;
    MPI_Status st;
    char dummy[4] = {0};
    int count = -1;
    OK(MPI_Isend(dummy, 4, MPI_BYTE, MPI_PROC_NULL, 5, g_comm[below(rt, NCOMMS)], &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Irecv(dummy, 4, MPI_BYTE, MPI_PROC_NULL, 5, g_comm[below(rt, NCOMMS)], &req));
    OK(MPI_Wait(&req, &st));
    OK(MPI_Get_count(&st, MPI_BYTE, &count));
    if (st.MPI_SOURCE != MPI_PROC_NULL || st.MPI_TAG != MPI_ANY_TAG || count != 0)
      FAIL("a receive from MPI_PROC_NULL gave source %d, tag %d, count %d", st.MPI_SOURCE, st.MPI_TAG, count);
  } else if (k < 80) {
    MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)(g_nrr + 1));
    int* map = malloc(sizeof(int) * (size_t)(g_nrr + 1));
    int* idx = malloc(sizeof(int) * (size_t)(g_nrr + 1));
    MPI_Status* sts = malloc(sizeof(MPI_Status) * (size_t)(g_nrr + 1));
    int n = 0, out = 0;
    for (int i = 0; i < g_nrr; ++i)
      if (g_rr[i].pending) map[n] = i, reqs[n++] = g_rr[i].req;
    if (n > 0) {
      OK(MPI_Testsome(n, reqs, &out, idx, sts));
      if (out == MPI_UNDEFINED) FAIL("MPI_Testsome over %d active receives gave MPI_UNDEFINED", n);
      for (int j = 0; j < out; ++j) {
        RecvRun* rr = &g_rr[map[idx[j]]];
        rr->st = sts[j], rr->pending = 0, rr->done = 1;
      }
      for (int j = 0; j < n; ++j) g_rr[map[j]].req = reqs[j];
      for (int j = 0; j < out; ++j) release(&g_rr[map[idx[j]]].req, g_rr[map[idx[j]]].persistent);
    }
    free(reqs), free(map), free(idx), free(sts);
  }
}

/* Post a receive request (Irecv or Recv_init + Start) for `rr`. */
static void post_irecv(RecvRun* rr, int persistent) {
  const Class* c = &g_R->c[g_R->r[rr->spec].cls];
  rr->post = g_post++;
  if (persistent) {
    OK(MPI_Recv_init(rr->buf, rr->count, g_layout[rr->layout].type, c->src_spec, c->tag_spec, g_comm[c->comm], &rr->req));
    OK(MPI_Start(&rr->req));
    rr->persistent = 1;
  } else {
    OK(MPI_Irecv(rr->buf, rr->count, g_layout[rr->layout].type, c->src_spec, c->tag_spec, g_comm[c->comm], &rr->req));
  }
  rr->pending = 1;
}

/* A receive after a probe: the buffer is resized from the probe (sometimes exactly). */
static void probe_and_recv(RecvRun* rr, int blocking, Rng* rt) {
  const Class* c = &g_R->c[g_R->r[rr->spec].cls];
  MPI_Comm comm = g_comm[c->comm];
  MPI_Status pst;
  if (blocking) {
    OK(MPI_Probe(c->src_spec, c->tag_spec, comm, &pst));
  } else {
    int flag = 0;
    for (long polls = 0;; ++polls) {
      if (polls == POLL_LIMIT) {
        OK(MPI_Probe(c->src_spec, c->tag_spec, comm, &pst));
        break;
      }
      OK(MPI_Iprobe(c->src_spec, c->tag_spec, comm, &flag, &pst));
      if (flag) break;
      if (below(rt, 8) == 0) poke(rt);
    }
  }
  rr->probed = 1;
  rr->psrc = pst.MPI_SOURCE, rr->ptag = pst.MPI_TAG;
  OK(MPI_Get_count(&pst, MPI_BYTE, &rr->pcount));
  if (rr->pcount < 0 || rr->pcount > c->maxsize) {
    rr->st = pst;
    fail_recv(rr, -1, "probe reported a size no message of the class has");
  }
  if (chance(rt, 50)) size_buffer(rr, rr->pcount); /* (about) exactly the probed size */
  rr->post = g_post++;
  OK(MPI_Recv(rr->buf, rr->count, g_layout[rr->layout].type, pst.MPI_SOURCE, pst.MPI_TAG, comm, &rr->st));
  rr->done = 1;
}

/* Completes the pending requests of `idx` (recv index i, or g_nrr + send index) with one
 * of the completion calls. */
static void complete_group(const int* idx, int n, int how) {
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)n);
  MPI_Status* sts = malloc(sizeof(MPI_Status) * (size_t)n);
  int* ind = malloc(sizeof(int) * (size_t)n);
  for (int j = 0; j < n; ++j) reqs[j] = idx[j] < g_nrr ? g_rr[idx[j]].req : g_sr[idx[j] - g_nrr].req;
  int left = n, flag = 0, out = 0, one = 0;
#define DONE(j, status)                                                                 \
  do {                                                                                  \
    if (idx[j] < g_nrr) g_rr[idx[j]].st = (status), g_rr[idx[j]].done = 1;              \
  } while (0)
  switch (how) {
    case 0: /* MPI_Wait, one by one */
      for (int j = 0; j < n; ++j) {
        MPI_Status st;
        OK(MPI_Wait(&reqs[j], &st));
        DONE(j, st);
      }
      break;
    case 1: /* MPI_Waitall */
      OK(MPI_Waitall(n, reqs, sts));
      for (int j = 0; j < n; ++j) DONE(j, sts[j]);
      break;
    case 2: /* MPI_Waitany */
      while (left > 0) {
        MPI_Status st;
        OK(MPI_Waitany(n, reqs, &one, &st));
        if (one == MPI_UNDEFINED || one < 0 || one >= n) FAIL("MPI_Waitany gave index %d with %d active", one, left);
        DONE(one, st);
        --left;
      }
      OK(MPI_Waitany(n, reqs, &one, MPI_STATUS_IGNORE));
      if (one != MPI_UNDEFINED) FAIL("MPI_Waitany over inactive requests gave index %d", one);
      break;
    case 3: /* MPI_Waitsome */
      while (left > 0) {
        OK(MPI_Waitsome(n, reqs, &out, ind, sts));
        if (out == MPI_UNDEFINED || out < 1 || out > left) FAIL("MPI_Waitsome gave outcount %d with %d active", out, left);
        for (int j = 0; j < out; ++j) DONE(ind[j], sts[j]);
        left -= out;
      }
      break;
    case 4: /* MPI_Test loops, one by one */
      for (int j = 0; j < n; ++j) {
        MPI_Status st;
        long polls = 0;
        do OK(MPI_Test(&reqs[j], &flag, &st));
        while (!flag && ++polls < POLL_LIMIT);
        if (!flag) OK(MPI_Wait(&reqs[j], &st));
        DONE(j, st);
      }
      break;
    case 5: /* MPI_Testall loop */
      for (long polls = 0;; ++polls) {
        if (polls == POLL_LIMIT) {
          OK(MPI_Waitall(n, reqs, sts));
          break;
        }
        OK(MPI_Testall(n, reqs, &flag, sts));
        if (flag) break;
      }
      for (int j = 0; j < n; ++j) DONE(j, sts[j]);
      break;
    case 6: /* MPI_Testany loop */
      for (long polls = 0; left > 0; ++polls) {
        MPI_Status st;
        if (polls >= POLL_LIMIT) {
          OK(MPI_Waitany(n, reqs, &one, &st));
          flag = 1;
        } else {
          OK(MPI_Testany(n, reqs, &one, &flag, &st));
        }
        if (!flag) continue;
        if (one == MPI_UNDEFINED || one < 0 || one >= n) FAIL("MPI_Testany gave index %d with %d active", one, left);
        DONE(one, st);
        --left;
      }
      break;
    default: /* MPI_Testsome loop */
      for (long polls = 0; left > 0; ++polls) {
        if (polls >= POLL_LIMIT) OK(MPI_Waitsome(n, reqs, &out, ind, sts));
        else OK(MPI_Testsome(n, reqs, &out, ind, sts));
        if (out == MPI_UNDEFINED || out < 0 || out > left) FAIL("MPI_Testsome gave outcount %d with %d active", out, left);
        for (int j = 0; j < out; ++j) DONE(ind[j], sts[j]);
        left -= out;
      }
      break;
  }
#undef DONE
  for (int j = 0; j < n; ++j) {
    const int persistent = idx[j] < g_nrr ? g_rr[idx[j]].persistent : g_sr[idx[j] - g_nrr].persistent;
    if (!persistent && reqs[j] != MPI_REQUEST_NULL) FAIL("a completed request is not MPI_REQUEST_NULL (completion %d)", how);
    if (persistent) {
      if (reqs[j] == MPI_REQUEST_NULL) FAIL("a completed persistent request became MPI_REQUEST_NULL (completion %d)", how);
      OK(MPI_Request_free(&reqs[j]));
    }
    if (idx[j] < g_nrr) g_rr[idx[j]].req = MPI_REQUEST_NULL, g_rr[idx[j]].pending = 0;
    else g_sr[idx[j] - g_nrr].req = MPI_REQUEST_NULL, g_sr[idx[j] - g_nrr].pending = 0;
  }
  free(reqs), free(sts), free(ind);
}

static int cmp_key(const void* a, const void* b, const Round* R) {
  const uint64_t ka = R->r[*(const int*)a].key, kb = R->r[*(const int*)b].key;
  return ka < kb ? -1 : ka > kb;
}
static void sort_by_key(int* v, int n, const Round* R) { /* insertion sort: small */
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && cmp_key(&v[j - 1], &v[j], R) > 0; --j) {
      const int t = v[j];
      v[j] = v[j - 1], v[j - 1] = t;
    }
}

static void send_one(SendRun* sr, const Msg* m) {
  MPI_Comm comm = g_comm[m->comm];
  const int dst = comm_rank_of(m->comm, m->dst);
  const int count = m->size / g_layout[m->layout].block;
  const MPI_Datatype type = g_layout[m->layout].type;
  sr->req = MPI_REQUEST_NULL;
  switch (m->method) {
    case S_SEND: OK(MPI_Send(sr->buf, count, type, dst, m->tag, comm)); break;
    case S_SSEND: OK(MPI_Ssend(sr->buf, count, type, dst, m->tag, comm)); break;
    case S_ISEND: OK(MPI_Isend(sr->buf, count, type, dst, m->tag, comm, &sr->req)); break;
    case S_ISSEND: OK(MPI_Issend(sr->buf, count, type, dst, m->tag, comm, &sr->req)); break;
    case S_PSEND:
      OK(MPI_Send_init(sr->buf, count, type, dst, m->tag, comm, &sr->req));
      OK(MPI_Start(&sr->req));
      sr->persistent = 1;
      break;
    case S_PSSEND:
      OK(MPI_Ssend_init(sr->buf, count, type, dst, m->tag, comm, &sr->req));
      OK(MPI_Start(&sr->req));
      sr->persistent = 1;
      break;
    default: FAIL("bad send method %d", m->method);
  }
  sr->pending = sr->req != MPI_REQUEST_NULL;
}

static void run_round(Round* R, Rng* rt) {
  g_R = R;
  const int first_post = g_post;
  /* My sends and receives. */
  int nmine_r = 0;
  for (int i = 0; i < R->nr; ++i) nmine_r += R->c[R->r[i].cls].dst == g_rank;
  g_rr = malloc(sizeof(RecvRun) * (size_t)(nmine_r + 1));
  g_sr = malloc(sizeof(SendRun) * (size_t)(R->nm + 1));
  g_nrr = g_nsr = 0;
  int* sr_of_msg = malloc(sizeof(int) * (size_t)(R->nm + 1));
  for (int i = 0; i < R->nm; ++i) {
    sr_of_msg[i] = -1;
    if (R->m[i].src != g_rank) continue;
    SendRun* sr = &g_sr[g_nsr];
    memset(sr, 0, sizeof *sr);
    sr->msg = i;
    sr->req = MPI_REQUEST_NULL;
    const int l = R->m[i].layout;
    sr->span = lay_span(l, R->m[i].size / g_layout[l].block);
    sr->buf = malloc(sr->span + 1);
    for (size_t k = 0; k < sr->span; ++k) sr->buf[k] = (unsigned char)~canary(k);
    for (int k = 0; k < R->m[i].size; ++k) sr->buf[lay_off(l, (size_t)k)] = msg_byte(g_rank, R->m[i].seq, (size_t)k);
    sr_of_msg[i] = g_nsr++;
  }
  int* pre = malloc(sizeof(int) * (size_t)(R->nr + 1));
  int* late = malloc(sizeof(int) * (size_t)(R->nr + 1));
  int npre = 0, nlate = 0;
  for (int i = 0; i < R->nr; ++i) {
    if (R->c[R->r[i].cls].dst != g_rank) continue;
    const int m = R->r[i].method;
    if (m == R_PRE || m == R_PINIT) pre[npre++] = i;
    else if (m != R_SENDRECV) late[nlate++] = i;
  }
  sort_by_key(pre, npre, R);
  sort_by_key(late, nlate, R);

  /* A: pre-posted receives. */
  trace("A: pre-posting");
  for (int i = 0; i < npre; ++i) {
    RecvRun* rr = new_recv(pre[i]);
    post_irecv(rr, R->r[pre[i]].method == R_PINIT);
    if (chance(rt, 15)) poke(rt);
  }
  /* B: sends in schedule order. */
  trace("B: sending");
  for (int i = 0; i < R->nb; ++i) {
    if (R->m[i].src != g_rank) continue;
    if (g_verbose >= 3) {
      char s[320];
      msg_str(s, sizeof s, i);
      fprintf(stderr, "[rank %d round %d] send %s\n", g_rank, g_round, s);
    }
    send_one(&g_sr[sr_of_msg[i]], &R->m[i]);
    if (chance(rt, 30)) poke(rt);
  }
  /* C: exchanges in global order. */
  trace("C: exchanges");
  for (int e = 0; e < R->nx; ++e) {
    const Exch* x = &R->x[e];
    if (x->a != g_rank && x->b != g_rank) continue;
    const int out = x->a == g_rank ? x->m_ab : x->m_ba; /* message I send */
    const int in = x->a == x->b ? x->m_ab : x->a == g_rank ? x->m_ba : x->m_ab;
    const int partner = x->a == g_rank ? x->b : x->a;
    int spec = -1;
    for (int i = 0; i < R->nr; ++i)
      if (R->r[i].method == R_SENDRECV && R->c[R->r[i].cls].members[0] == in) spec = i;
    if (spec < 0) FAIL("exchange %d has no receive spec", e);
    RecvRun* rr = new_recv(spec);
    const Msg* m = &R->m[out];
    SendRun* sr = &g_sr[sr_of_msg[out]];
    rr->post = g_post++;
    OK(MPI_Sendrecv(sr->buf, m->size / g_layout[m->layout].block, g_layout[m->layout].type,
                    comm_rank_of(x->comm, partner), EXCH_TAG, rr->buf, rr->count, g_layout[rr->layout].type,
                    comm_rank_of(x->comm, partner), EXCH_TAG, g_comm[x->comm], &rr->st));
    rr->done = 1;
    if (chance(rt, 20)) poke(rt);
  }
  /* C': synchronous-send checks, in global order after the exchanges. An MPI_Issend
   * cannot complete before its receive is posted, and b posts it only after a's go. */
  trace("C': synchronous-send checks");
  for (int i = 0; i < R->nsc; ++i) {
    const SyncCheck* c = &R->sc[i];
    if (c->a != g_rank && c->b != g_rank) continue;
    unsigned char* buf = malloc((size_t)c->size + 1);
    if (c->a == g_rank) {
      MPI_Request req;
      int flag = 1;
      for (int k = 0; k < c->size; ++k) buf[k] = msg_byte(g_rank, c->seq, (size_t)k);
      OK(MPI_Issend(buf, c->size, MPI_BYTE, c->b, 0, g_comm[SYNC_COMM], &req));
      for (int t = 0; t < 1 + below(rt, 3) && flag; ++t) OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
      if (flag) FAIL("an MPI_Issend of %d bytes (%s) to world rank %d completed before its receive was posted", c->size,
                     protocol_of(c->size), c->b);
      OK(MPI_Send(NULL, 0, MPI_BYTE, c->b, 1, g_comm[SYNC_COMM]));
      OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      MPI_Status st;
      int count = -1;
      OK(MPI_Recv(NULL, 0, MPI_BYTE, c->a, 1, g_comm[SYNC_COMM], MPI_STATUS_IGNORE));
      OK(MPI_Recv(buf, c->size, MPI_BYTE, c->a, 0, g_comm[SYNC_COMM], &st));
      OK(MPI_Get_count(&st, MPI_BYTE, &count));
      if (count != c->size || st.MPI_SOURCE != c->a || st.MPI_TAG != 0)
        FAIL("synchronous-send check: got %d bytes from %d tag %d, expected %d from %d tag 0", count, st.MPI_SOURCE,
             st.MPI_TAG, c->size, c->a);
      for (int k = 0; k < count; ++k)
        if (buf[k] != msg_byte(c->a, c->seq, (size_t)k))
          FAIL("synchronous-send check: byte %d of %d from %d is 0x%02x, expected 0x%02x", k, count, c->a, buf[k],
               msg_byte(c->a, c->seq, (size_t)k));
    }
    free(buf);
  }
  /* D: late receives, then completion of everything. */
  trace("D: late receives");
  for (int i = 0; i < nlate; ++i) {
    RecvRun* rr = new_recv(late[i]);
    const Class* c = &R->c[R->r[late[i]].cls];
    switch (R->r[late[i]].method) {
      case R_RECV:
        rr->post = g_post++;
        OK(MPI_Recv(rr->buf, rr->count, g_layout[rr->layout].type, c->src_spec, c->tag_spec, g_comm[c->comm], &rr->st));
        rr->done = 1;
        break;
      case R_PROBE: probe_and_recv(rr, 1, rt); break;
      case R_IPROBE: probe_and_recv(rr, 0, rt); break;
      default: post_irecv(rr, chance(rt, 20)); break;
    }
    if (chance(rt, 20)) poke(rt);
  }
  trace("D: completing");
  {
    int* idx = malloc(sizeof(int) * (size_t)(g_nrr + g_nsr + 1));
    int n = 0;
    for (int i = 0; i < g_nrr; ++i)
      if (g_rr[i].pending) idx[n++] = i;
    for (int i = 0; i < g_nsr; ++i)
      if (g_sr[i].pending) idx[n++] = g_nrr + i;
    for (int i = n - 1; i > 0; --i) { /* shuffle */
      const int j = below(rt, i + 1), t = idx[i];
      idx[i] = idx[j], idx[j] = t;
    }
    for (int at = 0; at < n;) {
      const int g = 1 + below(rt, n - at);
      complete_group(idx + at, g, below(rt, 8));
      at += g;
    }
    free(idx);
  }
  trace("verifying");
  /* Verify, in post order, per class and source. */
  if (g_nrr != nmine_r) FAIL("ran %d receives, the schedule has %d", g_nrr, nmine_r);
  int* taken = calloc((size_t)(R->nc * g_size + 1), sizeof(int));
  for (int p = first_post; p < g_post; ++p) {
    RecvRun* rr = NULL;
    for (int i = 0; i < g_nrr; ++i)
      if (g_rr[i].post == p) rr = &g_rr[i];
    if (rr == NULL) FAIL("no receive was posted as #%d", p);
    if (!rr->done) FAIL("receive #%d never completed", p);
    const int ci = R->r[rr->spec].cls;
    const Class* c = &R->c[ci];
    const int csize = comm_size_of(c->comm, g_rank), s = rr->st.MPI_SOURCE;
    if (s < 0 || s >= csize) fail_recv(rr, -1, "MPI_SOURCE is no rank of the communicator");
    if (c->src_spec != MPI_ANY_SOURCE && s != c->src_spec) fail_recv(rr, -1, "MPI_SOURCE is not the source asked for");
    const int sw = world_of(c->comm, g_rank, s);
    int k = taken[ci * g_size + sw]++, expected = -1;
    for (int j = 0; j < c->n && expected < 0; ++j)
      if (R->m[c->members[j]].src == sw && k-- == 0) expected = c->members[j];
    if (expected < 0) fail_recv(rr, -1, "more messages from this source than it sent into the class");
    const Msg* m = &R->m[expected];
    int count = -1;
    OK(MPI_Get_count(&rr->st, MPI_BYTE, &count));
    if (rr->st.MPI_TAG != m->tag) fail_recv(rr, expected, "wrong MPI_TAG (or overtaken)");
    if (count != m->size) fail_recv(rr, expected, "wrong count (or overtaken)");
    if (rr->probed && (rr->psrc != s || rr->ptag != m->tag || rr->pcount != count))
      fail_recv(rr, expected, "the probe's status differs from the receive's");
    { /* MPI_Get_count in the receive's own type: whole elements, or MPI_UNDEFINED */
      const int block = g_layout[rr->layout].block, want = count % block == 0 ? count / block : MPI_UNDEFINED;
      int elements = -7;
      OK(MPI_Get_count(&rr->st, g_layout[rr->layout].type, &elements));
      if (elements != want) {
        char what[128];
        snprintf(what, sizeof what, "MPI_Get_count(%s) is %d for %d bytes, expected %d", g_layout[rr->layout].name,
                 elements, count, want);
        fail_recv(rr, expected, what);
      }
    }
    for (int b = 0; b < count; ++b)
      if (rr->buf[lay_off(rr->layout, (size_t)b)] != msg_byte(sw, m->seq, (size_t)b)) {
        char what[128];
        snprintf(what, sizeof what, "wrong data at byte %d (memory offset %zu): 0x%02x, expected 0x%02x", b,
                 lay_off(rr->layout, (size_t)b), rr->buf[lay_off(rr->layout, (size_t)b)], msg_byte(sw, m->seq, (size_t)b));
        fail_recv(rr, expected, what);
      }
    for (size_t p = 0; p < rr->span; ++p)
      if (!lay_covers(rr->layout, p, count) && rr->buf[p] != canary(p)) {
        char what[128];
        snprintf(what, sizeof what, "receive buffer written outside the message: memory byte %zu of %zu", p, rr->span);
        fail_recv(rr, expected, what);
      }
  }
  for (int i = 0; i < g_nsr; ++i) {
    const Msg* m = &R->m[g_sr[i].msg];
    for (size_t p = 0; p < g_sr[i].span; ++p) {
      const unsigned char want = lay_covers(m->layout, p, m->size)
                                     ? msg_byte(g_rank, m->seq, p / (size_t)g_layout[m->layout].extent *
                                                                    (size_t)g_layout[m->layout].block +
                                                                p % (size_t)g_layout[m->layout].extent)
                                     : (unsigned char)~canary(p);
      if (g_sr[i].buf[p] != want) {
        char s[320];
        msg_str(s, sizeof s, g_sr[i].msg);
        FAIL("send buffer changed at memory byte %zu during %s", p, s);
      }
    }
  }
  free(taken);
  for (int i = 0; i < g_nrr; ++i) free(g_rr[i].buf);
  for (int i = 0; i < g_nsr; ++i) free(g_sr[i].buf);
  free(g_rr), free(g_sr), free(sr_of_msg), free(pre), free(late);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_seed = argc > 1 ? atoi(argv[1]) : 1;
  const int rounds = argc > 2 ? atoi(argv[2]) : 20;
  g_max_size = argc > 3 ? atoi(argv[3]) : 1 << 20;
  g_verbose = argc > 4 ? atoi(argv[4]) : 0;
  const int packet = env_int("TWINFAB_PACKET_SIZE", 8192), tiny_env = env_int("TWINFAB_TINY_THRESHOLD", 0);
  g_payload = packet - HEADER;
  g_tiny = tiny_env == 0 || tiny_env > g_payload ? g_payload : tiny_env;
  g_eager = env_int("TWINFAB_EAGER_THRESHOLD", 32768);
  if (g_max_size < g_eager + 16) g_max_size = g_eager + 16;

  g_comm[0] = MPI_COMM_WORLD;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &g_comm[1]));
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &g_comm[SYNC_COMM]));
  make_layouts();
  OK(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_size - g_rank, &g_comm[2]));
  { /* The schedule's idea of the split must be MPI's. */
    int r, n;
    MPI_Comm_rank(g_comm[2], &r);
    MPI_Comm_size(g_comm[2], &n);
    CHECK(r == comm_rank_of(2, g_rank) && n == comm_size_of(2, g_rank), "split: rank %d of %d, expected %d of %d", r, n,
          comm_rank_of(2, g_rank), comm_size_of(2, g_rank));
    MPI_Group gw, gs;
    MPI_Comm_group(MPI_COMM_WORLD, &gw);
    MPI_Comm_group(g_comm[2], &gs);
    for (int cr = 0; cr < n; ++cr) {
      int w = -1;
      MPI_Group_translate_ranks(gs, 1, &cr, gw, &w);
      CHECK(w == world_of(2, g_rank, cr), "split rank %d is world %d, expected %d", cr, w, world_of(2, g_rank, cr));
    }
    MPI_Group_free(&gw);
    MPI_Group_free(&gs);
  }
  g_seq = calloc((size_t)g_size, sizeof(int));
  const double t0 = MPI_Wtime();
  Rng g = {(uint64_t)g_seed * 0x2545F4914F6CDD1Dull + 17};
  for (g_round = 0; g_round < rounds; ++g_round) {
    Round R;
    make_round(&g, &R);
    Rng rt = {((uint64_t)g_seed << 32) ^ ((uint64_t)g_round << 16) ^ (uint64_t)g_rank ^ 0xABCDEF};
    if (g_verbose >= 1 && g_rank == 0)
      fprintf(stderr, "round %d: %d messages, %d exchanges, %d classes%s\n", g_round, R.nm, R.nx, R.nc,
              R.barrier ? ", ANY_SOURCE (barrier)" : "");
    const double tr = MPI_Wtime();
    run_round(&R, &rt);
    if (g_verbose >= 1) fprintf(stderr, "[rank %d] round %d took %.3f ms simulated\n", g_rank, g_round, (MPI_Wtime() - tr) * 1e3);
    if (R.barrier) OK(MPI_Barrier(MPI_COMM_WORLD));
    free_round(&R);
  }
  if (g_rank == 0)
    printf("random_traffic: seed %d, %d ranks, %d rounds, packet %d tiny %d eager %d: %ld messages (%ld empty, %ld tiny, "
           "%ld short, %ld rendezvous), %ld exchanges, %ld wildcard classes, %ld barrier rounds, %.3f ms simulated: ok\n",
           g_seed, g_size, rounds, packet, g_tiny, g_eager, g_stats[0] + g_stats[1] + g_stats[2] + g_stats[3],
           g_stats[0], g_stats[1], g_stats[2], g_stats[3], g_stats[4], g_stats[6], g_stats[5], (MPI_Wtime() - t0) * 1e3);
  free(g_seq);
  OK(MPI_Comm_free(&g_comm[1]));
  OK(MPI_Comm_free(&g_comm[2]));
  OK(MPI_Comm_free(&g_comm[SYNC_COMM]));
  free_layouts();
  MPI_Finalize();
  return 0;
}
