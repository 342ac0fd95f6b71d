/* Attribute caching on communicators (MPI-3.1 §6.7):
 *  - the predefined attributes (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
 *    MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE; MPI_APPNUM absent) on MPI_COMM_WORLD and on
 *    a duplicate, as pointers to ints that stay put;
 *  - set/get/delete, the delete callback on overwrite, delete and MPI_Comm_free, with
 *    its arguments (communicator, keyval, value, extra_state) and the order (newest
 *    first);
 *  - copies on MPI_Comm_dup, MPI_Comm_dup_with_info and the dup of a Cartesian
 *    communicator: MPI_COMM_NULL_COPY_FN (not copied), MPI_COMM_DUP_FN (same value), a
 *    copy function that makes a new value, and one that declines (flag 0);
 *  - callbacks that fail: their code is what the call returns, and the call changes
 *    nothing (the attribute stays, the communicator is not freed, the duplicate is
 *    not made and the copies already made are deleted again);
 *  - a keyval freed while attributes use it: the handle becomes MPI_KEYVAL_INVALID,
 *    the old value still reads and deletes the attributes (MPI-3.1 6.7.2) but sets
 *    none, and the attributes still get copied and deleted;
 *  - the MPI-1 names (MPI_Keyval_create, MPI_Attr_put, ...);
 *  - every error class under MPI_ERRORS_RETURN: MPI_ERR_KEYVAL, MPI_ERR_ARG,
 *    MPI_ERR_COMM;
 *  - at MPI_Finalize, MPI_COMM_SELF's attribute is deleted first, then
 *    MPI_COMM_WORLD's: the delete callbacks print what they saw, which the testlist
 *    checks (match=). */
#include <string.h>

#include "mpitest.h"

static int rank, size;

/* What the delete callbacks saw, in order. */
#define MAX_EVENTS 64
typedef struct {
  MPI_Comm comm;
  int keyval;
  void* value;
  void* extra;
} event;
static event deletes[MAX_EVENTS];
static int ndeletes;
static int copies, declines;
static int fail_deletes = MPI_SUCCESS; /* what failing_delete returns */

static int counting_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  CHECK(ndeletes < MAX_EVENTS, "too many deletes");
  deletes[ndeletes++] = (event){comm, keyval, value, extra};
  return MPI_SUCCESS;
}

static int failing_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  counting_delete(comm, keyval, value, extra);
  return fail_deletes;
}

/* The copy is the next element of the int array the value points into. */
static int next_copy(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)oldcomm, (void)keyval;
  CHECK(extra == (void*)&copies, "copy callback got extra_state %p", extra);
  ++copies;
  *(int**)out = (int*)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}

static int declining_copy(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out;
  ++declines;
  *flag = 0;
  return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out;
  *flag = 1;
  return MPI_ERR_QUOTA;
}

/* The attribute of `keyval` on `comm`: its value, or NULL with *found 0. */
static void* get(MPI_Comm comm, int keyval, int* found) {
  void* value = (void*)0x1; /* must be left alone when there is none */
  OK(MPI_Comm_get_attr(comm, keyval, &value, found));
  if (!*found) CHECK(value == (void*)0x1, "attribute_val written although flag is 0");
  return *found ? value : NULL;
}

static void check_event(int i, MPI_Comm comm, int keyval, void* value, void* extra) {
  CHECK(i < ndeletes, "delete callback %d never ran (%d ran)", i, ndeletes);
  const event* e = &deletes[i];
  CHECK(e->comm == comm && e->keyval == keyval && e->value == value && e->extra == extra,
        "delete %d: (comm 0x%x, keyval 0x%x, value %p, extra %p), expected (0x%x, 0x%x, %p, %p)", i,
        (unsigned)e->comm, (unsigned)e->keyval, e->value, e->extra, (unsigned)comm, (unsigned)keyval, value, extra);
}

static void test_predefined(MPI_Comm comm) {
  int found = 0;
  int* tag_ub = get(comm, MPI_TAG_UB, &found);
  CHECK(found && *tag_ub >= 32767, "MPI_TAG_UB: found %d", found);
  int* again = get(comm, MPI_TAG_UB, &found);
  CHECK(again == tag_ub, "MPI_TAG_UB moved: %p then %p", (void*)tag_ub, (void*)again);
  int* host = get(comm, MPI_HOST, &found);
  CHECK(found && *host == MPI_PROC_NULL, "MPI_HOST: found %d, %d", found, found ? *host : 0);
  int* io = get(comm, MPI_IO, &found);
  CHECK(found && *io == MPI_ANY_SOURCE, "MPI_IO: found %d, %d", found, found ? *io : 0);
  /* Global only where every rank reads one clock: the simulator's. */
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  OK(MPI_Get_processor_name(name, &len));
  const int simulated = strstr(name, "(simulated") != NULL;
  int* global = get(comm, MPI_WTIME_IS_GLOBAL, &found);
  CHECK(found && *global == simulated, "MPI_WTIME_IS_GLOBAL: found %d, %d (simulated: %d)", found,
        found ? *global : -1, simulated);
  int* universe = get(comm, MPI_UNIVERSE_SIZE, &found);
  CHECK(found && *universe == size, "MPI_UNIVERSE_SIZE: found %d, %d", found, found ? *universe : 0);
  int* last = get(comm, MPI_LASTUSEDCODE, &found);
  CHECK(found && *last == MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE: found %d, %d", found, found ? *last : 0);
  get(comm, MPI_APPNUM, &found);
  CHECK(!found, "MPI_APPNUM should be absent");
}

static void test_set_get_delete(void) {
  static int values[4];
  int keyval = MPI_KEYVAL_INVALID, found = 0;
  OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, counting_delete, &keyval, &values[3]));
  CHECK(keyval != MPI_KEYVAL_INVALID, "no keyval");
  get(MPI_COMM_WORLD, keyval, &found);
  CHECK(!found, "a new keyval has a value");
  ndeletes = 0;
  OK(MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &values[0]));
  CHECK(get(MPI_COMM_WORLD, keyval, &found) == &values[0] && found, "set/get");
  get(MPI_COMM_SELF, keyval, &found);
  CHECK(!found, "the value is per communicator");
  CHECK(ndeletes == 0, "delete callback ran on a first set");
  /* Overwrite: the old value's delete callback first. */
  OK(MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &values[1]));
  CHECK(ndeletes == 1, "overwrite: %d deletes", ndeletes);
  check_event(0, MPI_COMM_WORLD, keyval, &values[0], &values[3]);
  CHECK(get(MPI_COMM_WORLD, keyval, &found) == &values[1], "overwritten value");
  /* A null value is a value. */
  OK(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL));
  void* v = get(MPI_COMM_SELF, keyval, &found);
  CHECK(found && v == NULL, "null value: found %d", found);
  OK(MPI_Comm_delete_attr(MPI_COMM_SELF, keyval));
  CHECK(ndeletes == 2, "delete: %d deletes", ndeletes);
  check_event(1, MPI_COMM_SELF, keyval, NULL, &values[3]);
  OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval));
  CHECK(ndeletes == 3, "delete: %d deletes", ndeletes);
  check_event(2, MPI_COMM_WORLD, keyval, &values[1], &values[3]);
  get(MPI_COMM_WORLD, keyval, &found);
  CHECK(!found, "deleted attribute still there");
  /* Deleting what is not there does nothing (MPICH). */
  OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval));
  CHECK(ndeletes == 3, "delete of nothing called the callback");
  OK(MPI_Comm_free_keyval(&keyval));
  CHECK(keyval == MPI_KEYVAL_INVALID, "freed keyval is 0x%x", (unsigned)keyval);
}

static void test_copies(void) {
  static int values[8];
  int k_null, k_dup, k_next, k_decline, found = 0;
  OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, counting_delete, &k_null, NULL));
  OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, counting_delete, &k_dup, NULL));
  OK(MPI_Comm_create_keyval(next_copy, counting_delete, &k_next, &copies));
  OK(MPI_Comm_create_keyval(declining_copy, MPI_COMM_NULL_DELETE_FN, &k_decline, NULL));
  MPI_Comm base, d;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &base));
  OK(MPI_Comm_set_attr(base, k_null, &values[0]));
  OK(MPI_Comm_set_attr(base, k_dup, &values[1]));
  OK(MPI_Comm_set_attr(base, k_next, &values[2]));
  OK(MPI_Comm_set_attr(base, k_decline, &values[4]));

  for (int variant = 0; variant < 3; ++variant) {
    copies = declines = ndeletes = 0;
    MPI_Comm from = base;
    if (variant == 0) {
      OK(MPI_Comm_dup(base, &d));
    } else if (variant == 1) {
      OK(MPI_Comm_dup_with_info(base, MPI_INFO_NULL, &d));
    } else {
      /* A Cartesian communicator's duplicate: same rules. */
      int dims[1] = {size}, periods[1] = {0};
      OK(MPI_Cart_create(base, 1, dims, periods, 0, &from));
      OK(MPI_Comm_set_attr(from, k_dup, &values[1]));
      OK(MPI_Comm_set_attr(from, k_next, &values[2]));
      OK(MPI_Comm_set_attr(from, k_decline, &values[4]));
      OK(MPI_Comm_dup(from, &d));
      int topo = 0;
      OK(MPI_Topo_test(d, &topo));
      CHECK(topo == MPI_CART, "the dup of a Cartesian communicator is not Cartesian");
    }
    CHECK(copies == 1 && declines == 1, "variant %d: %d copies, %d declines", variant, copies, declines);
    get(d, k_null, &found);
    CHECK(!found, "variant %d: MPI_COMM_NULL_COPY_FN copied", variant);
    CHECK(get(d, k_dup, &found) == &values[1] && found, "variant %d: MPI_COMM_DUP_FN", variant);
    CHECK(get(d, k_next, &found) == &values[3] && found, "variant %d: custom copy", variant);
    get(d, k_decline, &found);
    CHECK(!found, "variant %d: a declined copy is attached", variant);
    /* The original keeps its values. */
    CHECK(get(from, k_dup, &found) == &values[1] && get(from, k_next, &found) == &values[2],
          "variant %d: original changed", variant);
    CHECK(ndeletes == 0, "variant %d: dup deleted something", variant);
    /* Freeing the duplicate deletes its two attributes, newest first. */
    const MPI_Comm handle = d;
    OK(MPI_Comm_free(&d));
    CHECK(d == MPI_COMM_NULL, "freed handle");
    CHECK(ndeletes == 2, "variant %d: free ran %d delete callbacks", variant, ndeletes);
    check_event(0, handle, k_next, &values[3], &copies);
    check_event(1, handle, k_dup, &values[1], NULL);
    if (variant == 2) {
      ndeletes = 0;
      const MPI_Comm cart = from;
      OK(MPI_Comm_free(&from));
      CHECK(ndeletes == 2, "cart free: %d deletes", ndeletes); /* k_decline has no delete callback */
      check_event(0, cart, k_next, &values[2], &copies);
      check_event(1, cart, k_dup, &values[1], NULL);
    }
  }
  ndeletes = 0;
  OK(MPI_Comm_free(&base));
  CHECK(ndeletes == 3, "base free: %d deletes", ndeletes);
  OK(MPI_Comm_free_keyval(&k_null));
  OK(MPI_Comm_free_keyval(&k_dup));
  OK(MPI_Comm_free_keyval(&k_next));
  OK(MPI_Comm_free_keyval(&k_decline));
}

static void test_failing_callbacks(void) {
  static int values[4];
  int k_fail, k_dup, k_bad_copy, found = 0;
  OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, failing_delete, &k_fail, NULL));
  OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, counting_delete, &k_dup, NULL));
  OK(MPI_Comm_create_keyval(failing_copy, counting_delete, &k_bad_copy, NULL));
  MPI_Comm c;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  OK(MPI_Comm_set_attr(c, k_fail, &values[0]));
  fail_deletes = MPI_ERR_NO_MEM;
  ndeletes = 0;
  /* delete_attr, set_attr over a value and MPI_Comm_free fail with the callback's code
     and keep the attribute (and the communicator). */
  int rc = MPI_Comm_delete_attr(c, k_fail);
  CHECK(rc == MPI_ERR_NO_MEM, "delete_attr returned %d, expected the callback's %d", rc, MPI_ERR_NO_MEM);
  CHECK(get(c, k_fail, &found) == &values[0], "a failed delete removed the attribute");
  rc = MPI_Comm_set_attr(c, k_fail, &values[1]);
  CHECK(rc == MPI_ERR_NO_MEM, "set_attr returned %d", rc);
  CHECK(get(c, k_fail, &found) == &values[0], "a failed overwrite changed the value");
  const MPI_Comm handle = c;
  rc = MPI_Comm_free(&c);
  CHECK(rc == MPI_ERR_NO_MEM, "MPI_Comm_free returned %d", rc);
  CHECK(c == handle, "a failed MPI_Comm_free changed the handle");
  int crank = -1;
  OK(MPI_Comm_rank(c, &crank));
  CHECK(crank == rank && get(c, k_fail, &found) == &values[0], "a failed MPI_Comm_free freed something");
  CHECK(ndeletes == 3, "%d delete callbacks ran", ndeletes);
  check_event(2, c, k_fail, &values[0], NULL);

  /* A copy callback that fails: MPI_Comm_dup returns its code, makes no communicator,
     and the copy made before it (k_dup's) is deleted again. */
  fail_deletes = MPI_SUCCESS;
  OK(MPI_Comm_delete_attr(c, k_fail));
  OK(MPI_Comm_set_attr(c, k_dup, &values[2]));
  OK(MPI_Comm_set_attr(c, k_bad_copy, &values[3]));
  ndeletes = 0;
  MPI_Comm d = (MPI_Comm)0x1234;
  rc = MPI_Comm_dup(c, &d);
  CHECK(rc == MPI_ERR_QUOTA, "MPI_Comm_dup returned %d, expected the copy callback's %d", rc, MPI_ERR_QUOTA);
  CHECK(d == (MPI_Comm)0x1234, "a failed MPI_Comm_dup wrote newcomm");
  CHECK(ndeletes == 1, "the copy made before the failure: %d deletes", ndeletes);
  CHECK(deletes[0].keyval == k_dup && deletes[0].value == &values[2] && deletes[0].comm != c,
        "the wrong copy was deleted");
  rc = MPI_Comm_dup_with_info(c, MPI_INFO_NULL, &d);
  CHECK(rc == MPI_ERR_QUOTA, "MPI_Comm_dup_with_info returned %d", rc);
  CHECK(get(c, k_dup, &found) == &values[2] && get(c, k_bad_copy, &found) == &values[3],
        "a failed dup changed the original");
  /* Later communicators are still fine. */
  OK(MPI_Comm_delete_attr(c, k_bad_copy));
  OK(MPI_Comm_dup(c, &d));
  CHECK(get(d, k_dup, &found) == &values[2], "dup after a failed one");
  OK(MPI_Barrier(d));
  OK(MPI_Comm_free(&d));
  OK(MPI_Comm_free(&c));
  OK(MPI_Comm_free_keyval(&k_fail));
  OK(MPI_Comm_free_keyval(&k_dup));
  OK(MPI_Comm_free_keyval(&k_bad_copy));
}

static void test_freed_keyval_in_use(void) {
  static int value;
  int keyval, found = 0;
  OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, counting_delete, &keyval, &value));
  const int stale = keyval;
  MPI_Comm c, d;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  OK(MPI_Comm_set_attr(c, keyval, &value));
  OK(MPI_Comm_free_keyval(&keyval));
  CHECK(keyval == MPI_KEYVAL_INVALID, "freed keyval is 0x%x", (unsigned)keyval);
  /* MPI-3.1 6.7.2: the program frees the attributes left "via calls to
   * MPI_COMM_DELETE_ATTR", so the old handle still reads and deletes them (as in
   * MPICH); it no longer sets one, nor frees the keyval again. */
  void* v = (void*)0x1;
  OK(MPI_Comm_get_attr(c, stale, &v, &found));
  CHECK(found && v == &value, "the attribute of a freed keyval: found %d, value %p", found, v);
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(c, stale, &value));
  int again = stale;
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&again));
  CHECK(again == stale, "a refused free changed the handle");
  /* Still copied and deleted: the keyval lives on for its attributes. */
  ndeletes = 0;
  OK(MPI_Comm_dup(c, &d));
  const MPI_Comm dh = d, ch = c;
  OK(MPI_Comm_free(&d));
  OK(MPI_Comm_free(&c));
  CHECK(ndeletes == 2, "%d deletes for a freed keyval's attributes", ndeletes);
  check_event(0, dh, stale, &value, &value);
  check_event(1, ch, stale, &value, &value);
  /* Deleted through the old handle; once no attribute uses it, the handle is gone. */
  OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, counting_delete, &keyval, &value));
  const int stale2 = keyval;
  OK(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, &value));
  OK(MPI_Comm_free_keyval(&keyval));
  ndeletes = 0;
  OK(MPI_Comm_delete_attr(MPI_COMM_SELF, stale2));
  CHECK(ndeletes == 1, "%d deletes through a freed keyval's handle", ndeletes);
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_SELF, stale2, &v, &found));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(MPI_COMM_SELF, stale2));
}

static void test_errors(void) {
  static int value;
  int keyval, found = 7;
  void* v = (void*)0x1;
  OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, counting_delete, &keyval, NULL));
  ndeletes = 0;
  /* Invalid keyvals. */
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &found));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &v, &found));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_WORLD, (int)MPI_INT, &v, &found)); /* another kind */
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_WORLD, keyval + 1000, &v, &found)); /* never made */
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB + 0x100, &v, &found));
  CHECK(v == (void*)0x1 && found == 7, "a refused get wrote its outputs");
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &value));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, 12345, &value));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(MPI_COMM_WORLD, 12345));
  int bad = 12345;
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&bad));
  bad = MPI_KEYVAL_INVALID;
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&bad));
  /* Predefined keys cannot be set, deleted or freed. */
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_APPNUM, &value));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL));
  int predefined = MPI_TAG_UB;
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&predefined));
  CHECK(predefined == MPI_TAG_UB, "a refused free changed the handle");
  int* tag_ub = get(MPI_COMM_WORLD, MPI_TAG_UB, &found);
  CHECK(found && *tag_ub >= 32767, "MPI_TAG_UB after refused changes");
  /* Null pointers. */
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_free_keyval(NULL));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, NULL, &found));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &v, NULL));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL, &found));
  /* Invalid communicators: null, freed, not a communicator. */
  MPI_Comm freed;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &freed));
  const MPI_Comm stale = freed;
  OK(MPI_Comm_free(&freed));
  const MPI_Comm bad_comms[3] = {MPI_COMM_NULL, stale, (MPI_Comm)MPI_INT};
  for (int i = 0; i < 3; ++i) {
    EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_set_attr(bad_comms[i], keyval, &value));
    EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_get_attr(bad_comms[i], keyval, &v, &found));
    EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_get_attr(bad_comms[i], MPI_TAG_UB, &v, &found));
    EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_delete_attr(bad_comms[i], keyval));
  }
  CHECK(ndeletes == 0, "a refused call ran a callback");
  /* MPI_COMM_WORLD cannot be freed: its attributes stay, no callback runs. */
  OK(MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value));
  MPI_Comm world = MPI_COMM_WORLD;
  EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_free(&world));
  CHECK(ndeletes == 0 && get(MPI_COMM_WORLD, keyval, &found) == &value, "refused free of MPI_COMM_WORLD");
  OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval));
  OK(MPI_Comm_free_keyval(&keyval));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&keyval)); /* now MPI_KEYVAL_INVALID */
}

/* The MPI-1 names, deprecated since MPI-2.0 (the header says so: silenced here). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void test_mpi1_names(void) {
  static int values[2];
  int k_dup, k_null, found = 0;
  OK(MPI_Keyval_create(MPI_DUP_FN, counting_delete, &k_dup, &values[1]));
  OK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k_null, NULL));
  MPI_Comm c, d;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  OK(MPI_Attr_put(c, k_dup, &values[0]));
  OK(MPI_Attr_put(c, k_null, &values[1]));
  void* v = NULL;
  OK(MPI_Attr_get(c, k_dup, &v, &found));
  CHECK(found && v == &values[0], "MPI_Attr_get");
  int* tag_ub = NULL;
  OK(MPI_Attr_get(c, MPI_TAG_UB, &tag_ub, &found));
  CHECK(found && *tag_ub >= 32767, "MPI_Attr_get(MPI_TAG_UB)");
  OK(MPI_Comm_dup(c, &d));
  OK(MPI_Attr_get(d, k_dup, &v, &found));
  CHECK(found && v == &values[0], "MPI_DUP_FN did not copy");
  OK(MPI_Attr_get(d, k_null, &v, &found));
  CHECK(!found, "MPI_NULL_COPY_FN copied");
  ndeletes = 0;
  OK(MPI_Attr_delete(c, k_dup));
  CHECK(ndeletes == 1, "MPI_Attr_delete: %d deletes", ndeletes);
  check_event(0, c, k_dup, &values[0], &values[1]);
  OK(MPI_Keyval_free(&k_dup));
  CHECK(k_dup == MPI_KEYVAL_INVALID, "MPI_Keyval_free");
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Attr_put(c, k_dup, &values[0]));
  OK(MPI_Comm_free(&d)); /* d's copy is deleted: the freed keyval lives on */
  CHECK(ndeletes == 2, "freeing the dup: %d deletes", ndeletes);
  OK(MPI_Keyval_free(&k_null));
  OK(MPI_Comm_free(&c));
}
#pragma GCC diagnostic pop

/* MPI_Finalize: MPI_COMM_SELF's attributes first, then MPI_COMM_WORLD's. The callbacks
   may still call MPI; the output line is what the testlist matches. */
static int self_deleted;

static int self_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval, (void)extra;
  int finalized = 1, r = -1;
  MPI_Finalized(&finalized);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (comm == MPI_COMM_SELF && value == &self_deleted && !finalized && r == rank) self_deleted = 1;
  return MPI_SUCCESS;
}

static int world_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval, (void)value, (void)extra;
  int finalized = 1;
  MPI_Finalized(&finalized);
  printf("rank %d: MPI_Finalize deleted the attributes of %s%s\n", rank,
         self_deleted ? "MPI_COMM_SELF then " : "(not MPI_COMM_SELF) ",
         comm == MPI_COMM_WORLD && !finalized ? "MPI_COMM_WORLD" : "something else");
  fflush(stdout);
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)); /* dups inherit it */
  OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

  test_predefined(MPI_COMM_WORLD);
  test_predefined(MPI_COMM_SELF);
  MPI_Comm d;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  test_predefined(d);
  OK(MPI_Comm_free(&d));
  test_set_get_delete();
  test_copies();
  test_failing_callbacks();
  test_freed_keyval_in_use();
  test_errors();
  test_mpi1_names();

  int k_self, k_world;
  OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, world_delete, &k_world, NULL));
  OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &k_self, NULL));
  /* World's first, so that an implementation deleting in order of setting, or
     COMM_WORLD's first, would be caught. */
  OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k_world, NULL));
  OK(MPI_Comm_set_attr(MPI_COMM_SELF, k_self, &self_deleted));
  OK(MPI_Comm_free_keyval(&k_self)); /* still called at MPI_Finalize */
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_Finalize());
  return 0;
}
