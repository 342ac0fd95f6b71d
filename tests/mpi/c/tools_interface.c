/* The tools information interface (MPI_T, MPI-3.1 §14.3), before MPI_Init, while MPI
 * runs and after MPI_Finalize:
 *  - control variables: the TWINFAB_* parameters; the environment shows in them (run
 *    with the argument "env", the testlist sets some and the program insists on
 *    finding one); TWINFAB_EAGER_THRESHOLD and TWINFAB_TINY_THRESHOLD written before
 *    MPI_Init change the protocols MPI then uses (winning over the environment), which
 *    the protocol counters show exactly; values MPI_Init would refuse are refused;
 *  - performance variables: a handle counts exactly the messages sent since it was
 *    allocated or reset, per session; the queue lengths; start/stop/write/reset rules;
 *  - categories, enumerations, the string convention, and the error code of every
 *    bad argument.
 * Hardware-independent: the rendezvous variant is whatever the device gives. */
#include <stdint.h>
#include <string.h>

#include "mpitest.h"

/* The rank while MPI runs, -1 before MPI_Init and after MPI_Finalize (when a failed
 * check cannot call MPI_Abort). */
static int me = -1;

#define FAIL(...)                                                     \
  do {                                                                \
    fprintf(stderr, "rank %d: %s:%d: ", me, __FILE__, __LINE__);     \
    fprintf(stderr, __VA_ARGS__);                                     \
    fprintf(stderr, "\n");                                            \
    if (me >= 0) MPI_Abort(MPI_COMM_WORLD, 1);                        \
    exit(1);                                                          \
  } while (0)
#define T_CHECK(cond, ...)                                      \
  do {                                                          \
    if (!(cond)) FAIL("check failed: " #cond ": " __VA_ARGS__); \
  } while (0)
/* A call that must return exactly this code. */
#define T_CODE(expected, call)                                                                               \
  do {                                                                                                       \
    int t_rc_ = (call);                                                                                      \
    if (t_rc_ != (expected)) FAIL("%s returned %d, expected %s (%d)", #call, t_rc_, #expected, (int)(expected)); \
  } while (0)
#define T_OK(call) T_CODE(MPI_SUCCESS, call)

static int cvar(const char* name) {
  int index = -1;
  T_OK(MPI_T_cvar_get_index(name, &index));
  return index;
}

static int pvar(const char* name, int var_class) {
  int index = -1;
  T_OK(MPI_T_pvar_get_index(name, var_class, &index));
  return index;
}

static unsigned long long read_cvar(const char* name) {
  MPI_T_cvar_handle h;
  int count = 0;
  MPI_Datatype type;
  T_OK(MPI_T_cvar_get_info(cvar(name), NULL, NULL, NULL, &type, NULL, NULL, NULL, NULL, NULL));
  T_OK(MPI_T_cvar_handle_alloc(cvar(name), NULL, &h, &count));
  unsigned long long value = 0;
  if (type == MPI_UNSIGNED) {
    unsigned u = 0;
    T_OK(MPI_T_cvar_read(h, &u));
    value = u;
  } else if (type == MPI_INT) {
    int i = -1;
    T_OK(MPI_T_cvar_read(h, &i));
    value = (unsigned long long)i;
  } else {
    T_OK(MPI_T_cvar_read(h, &value));
  }
  T_OK(MPI_T_cvar_handle_free(&h));
  return value;
}

/* The control variables' descriptions, the environment in their values, strings. */
static void check_cvar_info(int want_env) {
  int num = 0;
  T_OK(MPI_T_cvar_get_num(&num));
  T_CHECK(num == 65, "%d control variables", num);
  int from_env = 0;
  for (int i = 0; i < num; ++i) {
    char name[64], desc[512];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope, index = -1;
    MPI_Datatype type;
    MPI_T_enum enumtype = (MPI_T_enum)0x31415926; /* must be overwritten */
    T_OK(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &bind, &scope));
    T_CHECK(strncmp(name, "TWINFAB_", 8) == 0 && name_len == (int)strlen(name) + 1, "%s %d", name, name_len);
    T_CHECK(desc_len > 20 && desc_len == (int)strlen(desc) + 1, "%s: description length %d", name, desc_len);
    T_CHECK(bind == MPI_T_BIND_NO_OBJECT && scope == MPI_T_SCOPE_ALL_EQ, "%s: bind %d scope %d", name, bind, scope);
    T_CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL, "%s", name);
    T_CHECK(type == MPI_UNSIGNED || type == MPI_UNSIGNED_LONG_LONG || type == MPI_INT, "%s: type", name);
    T_CHECK((type == MPI_INT) == (enumtype != MPI_T_ENUM_NULL), "%s: enumeration", name);
    T_OK(MPI_T_cvar_get_index(name, &index));
    T_CHECK(index == i, "%s: index %d", name, index);
    /* The environment, as MPI_Init would read it, is the value. */
    const char* text = getenv(name);
    if (text != NULL) {
      const unsigned long long value = read_cvar(name);
      if (type == MPI_INT) {
        char word[32];
        int word_len = sizeof word, item_value = -1;
        T_OK(MPI_T_enum_get_item(enumtype, (int)value, &item_value, word, &word_len));
        T_CHECK(strcmp(word, text) == 0 && item_value == (int)value, "%s=%s reads as %s", name, text, word);
      } else {
        T_CHECK(value == strtoull(text, NULL, 10), "%s=%s reads as %llu", name, text, value);
      }
      ++from_env;
    }
  }
  T_CHECK(!want_env || from_env > 0, "run with \"env\" but no TWINFAB_* variable is set");

  /* §14.3.3: a null buffer or a zero length give the length only; a short buffer a
     truncated string; a null length nothing at all. */
  char buf[8];
  int len = 0;
  memset(buf, 'x', sizeof buf);
  T_OK(MPI_T_cvar_get_info(0, buf, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  T_CHECK(len == (int)strlen("TWINFAB_PACKET_SIZE") + 1 && buf[0] == 'x', "len %d", len);
  len = 5;
  T_OK(MPI_T_cvar_get_info(0, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  T_CHECK(len == 20, "len %d", len);
  len = 5;
  T_OK(MPI_T_cvar_get_info(0, buf, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  T_CHECK(strcmp(buf, "TWIN") == 0 && len == 20 && buf[5] == 'x', "'%s' %d", buf, len);
  memset(buf, 'x', sizeof buf);
  T_OK(MPI_T_cvar_get_info(0, buf, NULL, NULL, NULL, NULL, buf, NULL, NULL, NULL));
  T_CHECK(buf[0] == 'x', "a null length must leave the buffer alone");

  /* Bad arguments. */
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_get_num(NULL));
  T_CODE(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  T_CODE(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  int index = 77;
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_get_index(NULL, &index));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_get_index("TWINFAB_CREDITS", NULL));
  T_CODE(MPI_T_ERR_INVALID_NAME, MPI_T_cvar_get_index("TWINFAB_NO_SUCH_VARIABLE", &index));
  T_CODE(MPI_T_ERR_INVALID_NAME, MPI_T_cvar_get_index("twinfab_credits", &index));
  T_CHECK(index == 77, "a refused call wrote %d", index);
}

/* TWINFAB_RENDEZVOUS is an MPI_INT with an enumeration of its words. */
static void check_enumeration(void) {
  MPI_T_enum e = MPI_T_ENUM_NULL;
  MPI_Datatype type;
  T_OK(MPI_T_cvar_get_info(cvar("TWINFAB_RENDEZVOUS"), NULL, NULL, NULL, &type, &e, NULL, NULL, NULL, NULL));
  T_CHECK(type == MPI_INT && e != MPI_T_ENUM_NULL, "rendezvous type");
  int num = 0, value = -1, len = 32;
  char name[32];
  T_OK(MPI_T_enum_get_info(e, &num, name, &len));
  T_CHECK(num == 4 && strcmp(name, "TWINFAB_RENDEZVOUS") == 0, "%d items, '%s'", num, name);
  const char* words[] = {"auto", "write-imm", "read", "write-fin"};
  for (int i = 0; i < num; ++i) {
    len = sizeof name;
    T_OK(MPI_T_enum_get_item(e, i, &value, name, &len));
    T_CHECK(value == i && strcmp(name, words[i]) == 0, "item %d: %d '%s'", i, value, name);
  }
  T_CODE(MPI_T_ERR_INVALID_ITEM, MPI_T_enum_get_item(e, 4, &value, name, &len));
  T_CODE(MPI_T_ERR_INVALID_ITEM, MPI_T_enum_get_item(e, -1, &value, name, &len));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_enum_get_info(MPI_T_ENUM_NULL, &num, name, &len));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_enum_get_info((MPI_T_enum)0x31415926, &num, name, &len));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_enum_get_item(MPI_T_ENUM_NULL, 0, &value, name, &len));
}

/* Writes before MPI_Init: checked as MPI_Init would check them. Leaves
   TWINFAB_EAGER_THRESHOLD at 4096 and TWINFAB_TINY_THRESHOLD at 512. */
static void write_cvars(void) {
  MPI_T_cvar_handle eager, tiny, packet, rendezvous, update, stale;
  int count = 0;
  T_OK(MPI_T_cvar_handle_alloc(cvar("TWINFAB_EAGER_THRESHOLD"), NULL, &eager, &count));
  T_CHECK(count == 1 && eager != MPI_T_CVAR_HANDLE_NULL, "count %d", count);
  unsigned long long ull = 4096, back = 0;
  T_OK(MPI_T_cvar_write(eager, &ull));
  T_OK(MPI_T_cvar_read(eager, &back));
  T_CHECK(back == 4096, "eager threshold reads %llu", back);
  T_OK(MPI_T_cvar_handle_alloc(cvar("TWINFAB_TINY_THRESHOLD"), NULL, &tiny, &count));
  ull = 512;
  T_OK(MPI_T_cvar_write(tiny, &ull));

  /* Refused values change nothing. */
  T_OK(MPI_T_cvar_handle_alloc(cvar("TWINFAB_PACKET_SIZE"), NULL, &packet, &count));
  unsigned before = 0, u = 100, after = 0;
  T_OK(MPI_T_cvar_read(packet, &before));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_write(packet, &u)); /* below 256 */
  T_OK(MPI_T_cvar_read(packet, &after));
  T_CHECK(after == before, "packet size %u became %u", before, after);
  T_OK(MPI_T_cvar_handle_alloc(cvar("TWINFAB_RENDEZVOUS"), NULL, &rendezvous, &count));
  int word = -1, bad = 4;
  T_OK(MPI_T_cvar_read(rendezvous, &word));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_write(rendezvous, &bad));
  bad = -1;
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_write(rendezvous, &bad));
  int word_after = -2;
  T_OK(MPI_T_cvar_read(rendezvous, &word_after));
  T_CHECK(word_after == word, "rendezvous %d became %d", word, word_after);
  T_OK(MPI_T_cvar_handle_alloc(cvar("TWINFAB_CREDIT_UPDATE"), NULL, &update, &count));
  u = (unsigned)read_cvar("TWINFAB_CREDITS"); /* must stay below the credits */
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_write(update, &u));

  /* Bad handles, indices, pointers. */
  T_CODE(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_handle_alloc(-1, NULL, &stale, &count));
  T_CODE(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_handle_alloc(65, NULL, &stale, &count));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_handle_alloc(0, NULL, NULL, &count));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_handle_alloc(0, NULL, &stale, NULL));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &u));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_read((MPI_T_cvar_handle)0x1234, &u));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_write((MPI_T_cvar_handle)0x1234, &u));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_read(packet, NULL));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_write(packet, NULL));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_cvar_handle_free(NULL));
  stale = packet;
  T_OK(MPI_T_cvar_handle_free(&packet));
  T_CHECK(packet == MPI_T_CVAR_HANDLE_NULL, "free must null the handle");
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_handle_free(&packet));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_handle_free(&stale));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_read(stale, &u));
  T_OK(MPI_T_cvar_handle_free(&eager));
  T_OK(MPI_T_cvar_handle_free(&tiny));
  T_OK(MPI_T_cvar_handle_free(&rendezvous));
  T_OK(MPI_T_cvar_handle_free(&update));
}

/* Performance variables' descriptions (available before MPI_Init), and sessions
   without MPI: a handle needs the rank's MPI state. */
static void check_pvar_info(void) {
  int num = 0;
  T_OK(MPI_T_pvar_get_num(&num));
  T_CHECK(num >= 20, "%d performance variables", num);
  for (int i = 0; i < num; ++i) {
    char name[64];
    int len = sizeof name, verbosity, var_class, bind, readonly, continuous, atomic, index = -1;
    MPI_Datatype type;
    MPI_T_enum e = (MPI_T_enum)0x31415926;
    T_OK(MPI_T_pvar_get_info(i, name, &len, &verbosity, &var_class, &type, &e, NULL, NULL, &bind, &readonly,
                             &continuous, &atomic));
    T_CHECK(strncmp(name, "twinfab_", 8) == 0 && type == MPI_UNSIGNED_LONG_LONG && e == MPI_T_ENUM_NULL &&
                bind == MPI_T_BIND_NO_OBJECT && continuous == 1,
            "%s", name);
    /* Counters can be reset (atomically with a read); levels cannot. */
    if (var_class == MPI_T_PVAR_CLASS_COUNTER || var_class == MPI_T_PVAR_CLASS_AGGREGATE)
      T_CHECK(readonly == 0 && atomic == 1, "%s", name);
    else
      T_CHECK(readonly == 1 && atomic == 0, "%s", name);
    T_OK(MPI_T_pvar_get_index(name, var_class, &index));
    T_CHECK(index == i, "%s: index %d", name, index);
  }
  int index = -1;
  T_CODE(MPI_T_ERR_INVALID_NAME, MPI_T_pvar_get_index("twinfab_pt2pt_tiny_messages", MPI_T_PVAR_CLASS_LEVEL, &index));
  T_CODE(MPI_T_ERR_INVALID_NAME, MPI_T_pvar_get_index("no_such_pvar", MPI_T_PVAR_CLASS_COUNTER, &index));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_pvar_get_index(NULL, MPI_T_PVAR_CLASS_COUNTER, &index));
  T_CODE(MPI_T_ERR_INVALID_INDEX,
         MPI_T_pvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_pvar_get_num(NULL));

  MPI_T_pvar_session session = MPI_T_PVAR_SESSION_NULL;
  MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
  int count = 0;
  T_OK(MPI_T_pvar_session_create(&session));
  T_CHECK(session != MPI_T_PVAR_SESSION_NULL, "session");
  T_CODE(MPI_T_ERR_INVALID,
         MPI_T_pvar_handle_alloc(session, pvar("twinfab_pt2pt_tiny_messages", MPI_T_PVAR_CLASS_COUNTER), NULL, &h,
                                 &count));
  T_CHECK(h == MPI_T_PVAR_HANDLE_NULL, "a refused alloc set the handle");
  T_OK(MPI_T_pvar_session_free(&session));
  T_CHECK(session == MPI_T_PVAR_SESSION_NULL, "free must null the session");
  T_CODE(MPI_T_ERR_INVALID, MPI_T_pvar_session_create(NULL));
}

/* Categories: fixed; every variable in one of them. */
static void check_categories(void) {
  int num = 0, num_cvars = 0, num_pvars = 0, stamp = -1, stamp2 = -2;
  T_OK(MPI_T_category_get_num(&num));
  T_OK(MPI_T_cvar_get_num(&num_cvars));
  T_OK(MPI_T_pvar_get_num(&num_pvars));
  T_CHECK(num == 12, "%d categories", num);
  int cvars_seen = 0, pvars_seen = 0, eager_found = 0;
  const int eager = cvar("TWINFAB_EAGER_THRESHOLD");
  for (int i = 0; i < num; ++i) {
    char name[64];
    int len = sizeof name, nc = -1, np = -1, ncat = -1, index = -1;
    T_OK(MPI_T_category_get_info(i, name, &len, NULL, NULL, &nc, &np, &ncat));
    T_OK(MPI_T_category_get_index(name, &index));
    T_CHECK(index == i && strncmp(name, "twinfab_", 8) == 0, "%s: index %d", name, index);
    int list[64];
    T_OK(MPI_T_category_get_cvars(i, 64, list));
    for (int k = 0; k < nc; ++k) eager_found += list[k] == eager;
    T_OK(MPI_T_category_get_pvars(i, 64, list));
    for (int k = 0; k < np; ++k) T_CHECK(list[k] >= 0 && list[k] < num_pvars, "%s: pvar %d", name, list[k]);
    T_OK(MPI_T_category_get_categories(i, 64, list));
    for (int k = 0; k < ncat; ++k) T_CHECK(list[k] >= 0 && list[k] < num && list[k] != i, "%s: category", name);
    if (strcmp(name, "twinfab_config") == 0) T_CHECK(ncat == 7 && nc == 0, "twinfab_config: %d, %d", ncat, nc);
    cvars_seen += nc;
    pvars_seen += np;
  }
  T_CHECK(cvars_seen == num_cvars && pvars_seen == num_pvars && eager_found == 1, "%d %d %d", cvars_seen,
          pvars_seen, eager_found);
  /* Only the first len indices are written. */
  int two[3] = {-1, -1, -7};
  int config_regcache = -1;
  T_OK(MPI_T_category_get_index("twinfab_config_regcache", &config_regcache));
  T_OK(MPI_T_category_get_cvars(config_regcache, 2, two));
  T_CHECK(two[0] >= 0 && two[1] >= 0 && two[2] == -7, "%d %d %d", two[0], two[1], two[2]);
  T_OK(MPI_T_category_get_cvars(config_regcache, 0, NULL));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_category_get_cvars(config_regcache, -1, two));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_category_get_pvars(config_regcache, 1, NULL));
  T_CODE(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_categories(num, 3, two));
  T_CODE(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  T_CODE(MPI_T_ERR_INVALID_NAME, MPI_T_category_get_index("twinfab", &config_regcache));
  T_OK(MPI_T_category_changed(&stamp));
  T_OK(MPI_T_category_changed(&stamp2));
  T_CHECK(stamp == stamp2, "the categories are fixed: %d, %d", stamp, stamp2);
  T_CODE(MPI_T_ERR_INVALID, MPI_T_category_changed(NULL));
}

/* ---- while MPI runs */

enum { TINY, SHORT, WRITE_IMM, READ, WRITE_FIN, SELF, UNEXPECTED, REGISTRATIONS, NCOUNTERS };
static const char* counter_names[NCOUNTERS] = {
    "twinfab_pt2pt_tiny_messages",          "twinfab_pt2pt_short_messages",
    "twinfab_pt2pt_rendezvous_write_imm_messages", "twinfab_pt2pt_rendezvous_read_messages",
    "twinfab_pt2pt_rendezvous_write_fin_messages", "twinfab_pt2pt_self_messages",
    "twinfab_pt2pt_unexpected_messages",    "twinfab_pt2pt_registrations"};

static unsigned long long read_pvar(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
  unsigned long long v = 0;
  T_OK(MPI_T_pvar_read(s, h, &v));
  return v;
}

/* Rank 0 sends rank 1 three tiny (100 B), two short (2000 B) and one rendezvous
   (10000 B) message, then a tiny "go": with the thresholds written before MPI_Init
   (4096, 512) and not with the defaults or the environment's, once rank 1 said it is
   ready. Rank 1 takes "go" first,
   so the six wait in its unexpected queue. Returns a handle of session `s` kept for
   after MPI_Finalize. */
static MPI_T_pvar_handle check_counters(MPI_T_pvar_session s, MPI_T_pvar_session other, int size) {
  MPI_T_pvar_handle h[NCOUNTERS], posted, queued, in_other;
  int count = 0;
  for (int i = 0; i < NCOUNTERS; ++i) {
    T_OK(MPI_T_pvar_handle_alloc(s, pvar(counter_names[i], MPI_T_PVAR_CLASS_COUNTER), NULL, &h[i], &count));
    T_CHECK(count == 1, "count %d", count);
  }
  T_OK(MPI_T_pvar_handle_alloc(s, pvar("twinfab_pt2pt_posted_receives", MPI_T_PVAR_CLASS_LEVEL), NULL, &posted,
                               &count));
  T_OK(MPI_T_pvar_handle_alloc(s, pvar("twinfab_pt2pt_unexpected_queue", MPI_T_PVAR_CLASS_LEVEL), NULL, &queued,
                               &count));
  T_OK(MPI_T_pvar_handle_alloc(other, pvar(counter_names[TINY], MPI_T_PVAR_CLASS_COUNTER), NULL, &in_other, &count));

  static char big[10000], small[2000], tiny[100];
  int go = 0;
  MPI_Request go_request = MPI_REQUEST_NULL;
  if (me == 1) {
    OK(MPI_Irecv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &go_request));
    T_CHECK(read_pvar(s, posted) == 1, "posted receives: %llu", read_pvar(s, posted));
  }
  OK(MPI_Barrier(MPI_COMM_WORLD));
  T_OK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES)); /* counting starts now, in `s` only */
  /* Rank 0 sends once rank 1 has reset its counters: leaving the barrier does not say
     that rank 1 has (rank 0 may leave it first, and its messages reach rank 1 still
     inside). Rank 1's "ready" is one more tiny message of rank 1's. */
  int ready = 0;
  if (me == 1) OK(MPI_Send(&ready, 1, MPI_INT, 0, 98, MPI_COMM_WORLD));
  if (me == 0 && size > 1) OK(MPI_Recv(&ready, 1, MPI_INT, 1, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  if (me == 0 && size > 1) {
    MPI_Request r[6];
    for (int i = 0; i < 3; ++i) OK(MPI_Isend(tiny, sizeof tiny, MPI_BYTE, 1, i, MPI_COMM_WORLD, &r[i]));
    for (int i = 3; i < 5; ++i) OK(MPI_Isend(small, sizeof small, MPI_BYTE, 1, i, MPI_COMM_WORLD, &r[i]));
    OK(MPI_Isend(big, sizeof big, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &r[5]));
    OK(MPI_Send(&go, 1, MPI_INT, 1, 99, MPI_COMM_WORLD));
    OK(MPI_Waitall(6, r, MPI_STATUSES_IGNORE));
  } else if (me == 1) {
    OK(MPI_Wait(&go_request, MPI_STATUS_IGNORE));
    /* Everything rank 0 sent before "go" has arrived (one connection keeps order). */
    T_CHECK(read_pvar(s, queued) == 6 && read_pvar(s, posted) == 0, "unexpected queue %llu, posted %llu",
            read_pvar(s, queued), read_pvar(s, posted));
    T_CHECK(read_pvar(s, h[UNEXPECTED]) == 6, "unexpected messages %llu", read_pvar(s, h[UNEXPECTED]));
    for (int i = 0; i < 3; ++i) OK(MPI_Recv(tiny, sizeof tiny, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 3; i < 5; ++i) OK(MPI_Recv(small, sizeof small, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Recv(big, sizeof big, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    T_CHECK(read_pvar(s, queued) == 0, "unexpected queue %llu", read_pvar(s, queued));
  }
  /* And one message to itself, of a size that would be a rendezvous to another rank. */
  MPI_Request self;
  OK(MPI_Irecv(big, sizeof big, MPI_BYTE, me, 7, MPI_COMM_WORLD, &self));
  OK(MPI_Send(big, sizeof big, MPI_BYTE, me, 7, MPI_COMM_WORLD));
  OK(MPI_Wait(&self, MPI_STATUS_IGNORE));

  unsigned long long v[NCOUNTERS];
  for (int i = 0; i < NCOUNTERS; ++i) v[i] = read_pvar(s, h[i]);
  const unsigned long long rendezvous = v[WRITE_IMM] + v[READ] + v[WRITE_FIN];
  if (me == 0 && size > 1) {
    T_CHECK(v[TINY] == 4 && v[SHORT] == 2 && rendezvous == 1 && v[SELF] == 1 && v[REGISTRATIONS] == 1,
            "rank 0 sent tiny %llu short %llu rendezvous %llu self %llu, registered %llu (expected 4, 2, 1, 1, 1)",
            v[TINY], v[SHORT], rendezvous, v[SELF], v[REGISTRATIONS]);
  } else {
    const unsigned long long tiny_sent = me == 1 ? 1 : 0; /* "ready" */
    T_CHECK(v[TINY] == tiny_sent && v[SHORT] == 0 && rendezvous == 0 && v[SELF] == 1,
            "rank %d sent tiny %llu short %llu rendezvous %llu self %llu (expected %llu, 0, 0, 1)", me, v[TINY],
            v[SHORT], rendezvous, v[SELF], tiny_sent);
  }
  if (me == 1) T_CHECK(v[REGISTRATIONS] == 1, "rank 1 registered %llu buffers", v[REGISTRATIONS]);

  /* Sessions are apart: `other`'s handle was not reset, and counted the barrier too. */
  const unsigned long long other_before = read_pvar(other, in_other);
  T_CHECK(other_before >= v[TINY], "other session %llu < %llu", other_before, v[TINY]);
  unsigned long long got = 99;
  T_OK(MPI_T_pvar_readreset(s, h[TINY], &got));
  T_CHECK(got == v[TINY] && read_pvar(s, h[TINY]) == 0, "readreset gave %llu", got);
  T_OK(MPI_T_pvar_reset(s, h[SELF]));
  T_CHECK(read_pvar(s, h[SELF]) == 0, "reset");
  T_CHECK(read_pvar(other, in_other) == other_before, "a reset in one session changed another");

  /* What the variables allow. */
  unsigned long long value = 5;
  T_CODE(MPI_T_ERR_PVAR_NO_STARTSTOP, MPI_T_pvar_start(s, h[TINY]));
  T_CODE(MPI_T_ERR_PVAR_NO_STARTSTOP, MPI_T_pvar_stop(s, h[TINY]));
  T_OK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES)); /* continuous ones are skipped */
  T_OK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
  T_CODE(MPI_T_ERR_PVAR_NO_WRITE, MPI_T_pvar_write(s, h[TINY], &value));
  T_CODE(MPI_T_ERR_PVAR_NO_WRITE, MPI_T_pvar_write(s, posted, &value));
  T_CODE(MPI_T_ERR_PVAR_NO_WRITE, MPI_T_pvar_reset(s, posted));
  T_CODE(MPI_T_ERR_PVAR_NO_ATOMIC, MPI_T_pvar_readreset(s, queued, &value));
  T_CHECK(value == 5, "a refused call wrote %llu", value);
  /* Bad sessions and handles. */
  T_CODE(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, h[TINY], &value));
  T_CODE(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_read((MPI_T_pvar_session)0x99, h[TINY], &value));
  T_CODE(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_reset(MPI_T_PVAR_SESSION_NULL, MPI_T_PVAR_ALL_HANDLES));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_read(other, h[TINY], &value)); /* a handle of `s` */
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &value));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_read(s, MPI_T_PVAR_HANDLE_NULL, &value));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_write(s, MPI_T_PVAR_ALL_HANDLES, &value));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_readreset(s, MPI_T_PVAR_ALL_HANDLES, &value));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_start(s, (MPI_T_pvar_handle)0x1234));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_pvar_read(s, h[TINY], NULL));
  T_CODE(MPI_T_ERR_INVALID_INDEX, MPI_T_pvar_handle_alloc(s, -1, NULL, &in_other, &count));
  T_CODE(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, 0, NULL, &in_other, &count));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_pvar_handle_alloc(s, 0, NULL, NULL, &count));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_handle_free(s, &in_other)); /* `other`'s */
  T_CODE(MPI_T_ERR_INVALID, MPI_T_pvar_handle_free(s, NULL));

  /* Freeing a handle, then a session with its handles. */
  MPI_T_pvar_handle stale = h[SHORT];
  T_OK(MPI_T_pvar_handle_free(s, &h[SHORT]));
  T_CHECK(h[SHORT] == MPI_T_PVAR_HANDLE_NULL, "free must null the handle");
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_read(s, stale, &value));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_handle_free(s, &stale));
  MPI_T_pvar_session gone = other;
  T_OK(MPI_T_pvar_session_free(&other));
  T_CODE(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_read(gone, in_other, &value));
  T_CODE(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_session_free(&gone));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_pvar_session_free(NULL));
  return h[TINY];
}

int main(int argc, char** argv) {
  const int want_env = argc > 1 && strcmp(argv[1], "env") == 0;
  int provided = -1, num = 0;

  /* ---- before MPI_Init */
  T_CODE(MPI_T_ERR_NOT_INITIALIZED, MPI_T_cvar_get_num(&num));
  T_CODE(MPI_T_ERR_NOT_INITIALIZED, MPI_T_finalize());
  T_CODE(MPI_T_ERR_INVALID, MPI_T_init_thread(MPI_THREAD_SINGLE, NULL));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_init_thread(42, &provided));
  T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  T_CHECK(provided == MPI_THREAD_SINGLE, "provided %d", provided);
  T_OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided)); /* counted: two finalizes end it */
  T_CHECK(provided == MPI_THREAD_FUNNELED, "provided %d", provided);
  check_cvar_info(want_env);
  check_enumeration();
  check_pvar_info();
  check_categories();
  write_cvars();
  const char* env_eager = getenv("TWINFAB_EAGER_THRESHOLD");
  T_CHECK(read_cvar("TWINFAB_EAGER_THRESHOLD") == 4096, "the write wins over TWINFAB_EAGER_THRESHOLD=%s",
          env_eager ? env_eager : "(unset)");
  MPI_T_cvar_handle stale;
  int count = 0;
  T_OK(MPI_T_cvar_handle_alloc(cvar("TWINFAB_CREDITS"), NULL, &stale, &count));
  T_OK(MPI_T_finalize()); /* one left */

  /* ---- while MPI runs */
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  T_CHECK(read_cvar("TWINFAB_EAGER_THRESHOLD") == 4096 && read_cvar("TWINFAB_TINY_THRESHOLD") == 512,
          "MPI runs with eager %llu, tiny %llu", read_cvar("TWINFAB_EAGER_THRESHOLD"),
          read_cvar("TWINFAB_TINY_THRESHOLD"));
  unsigned credits = 0, other_credits = 8;
  T_OK(MPI_T_cvar_read(stale, &credits));
  T_CODE(MPI_T_ERR_CVAR_SET_NOT_NOW, MPI_T_cvar_write(stale, &other_credits));
  T_OK(MPI_T_cvar_read(stale, &other_credits));
  T_CHECK(other_credits == credits, "credits %u became %u", credits, other_credits);
  /* The codes are error classes too. */
  int error_class = -1, len = 0;
  char text[MPI_MAX_ERROR_STRING];
  OK(MPI_Error_class(MPI_T_ERR_INVALID_HANDLE, &error_class));
  OK(MPI_Error_string(MPI_T_ERR_INVALID_HANDLE, text, &len));
  CHECK(error_class == MPI_T_ERR_INVALID_HANDLE && len > 0, "class %d, '%s'", error_class, text);

  MPI_T_pvar_session session, other;
  T_OK(MPI_T_pvar_session_create(&session));
  T_OK(MPI_T_pvar_session_create(&other));
  T_CHECK(session != other, "two sessions, one handle");
  MPI_T_pvar_handle kept = check_counters(session, other, size);
  const int was = me;
  MPI_Finalize();

  /* ---- after MPI_Finalize: the control variables keep the values MPI ran with */
  me = -1;
  T_CHECK(read_cvar("TWINFAB_EAGER_THRESHOLD") == 4096, "after MPI_Finalize");
  T_CODE(MPI_T_ERR_CVAR_SET_NEVER, MPI_T_cvar_write(stale, &other_credits));
  unsigned long long value = 7;
  T_CODE(MPI_T_ERR_INVALID, MPI_T_pvar_read(session, kept, &value)); /* the counters went with MPI */
  T_CODE(MPI_T_ERR_INVALID, MPI_T_pvar_reset(session, kept));
  T_CODE(MPI_T_ERR_INVALID, MPI_T_pvar_handle_alloc(session, 0, NULL, &kept, &count));
  T_OK(MPI_T_pvar_get_num(&num));
  T_OK(MPI_T_pvar_handle_free(session, &kept));
  T_OK(MPI_T_pvar_session_free(&session));
  T_OK(MPI_T_finalize());
  T_CODE(MPI_T_ERR_NOT_INITIALIZED, MPI_T_cvar_get_num(&num));
  T_CODE(MPI_T_ERR_NOT_INITIALIZED, MPI_T_finalize());
  /* Again: the last MPI_T_finalize freed the handles, the values stay. */
  T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  T_CODE(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_read(stale, &credits));
  T_CHECK(read_cvar("TWINFAB_TINY_THRESHOLD") == 512, "tiny threshold after re-initializing");
  T_OK(MPI_T_finalize());
  if (was == 0) printf("tools_interface: %d ranks ok\n", size);
  return 0;
}
