/* Attribute caching on datatypes (MPI-3.1 §6.7.4):
 *  - set/get/delete on a derived and on a predefined datatype; the delete callback on
 *    overwrite, MPI_Type_delete_attr and MPI_Type_free (newest first), with its
 *    arguments (datatype, keyval, value, extra_state);
 *  - copies on MPI_Type_dup: MPI_TYPE_NULL_COPY_FN (not copied), MPI_TYPE_DUP_FN (same
 *    value), a copy function that makes a new value, one that declines (flag 0), and
 *    one that fails (the dup fails with its code, makes no type, and the copies
 *    already made are deleted again);
 *  - a delete callback that fails: MPI_Type_free fails with its code and keeps the type;
 *  - a keyval freed while attached: the handle becomes MPI_KEYVAL_INVALID, the old
 *    value still reads and deletes the attribute, the callbacks still run;
 *  - the keyval spaces of communicators and datatypes are distinct;
 *  - error classes under MPI_ERRORS_RETURN: MPI_ERR_KEYVAL, MPI_ERR_TYPE, MPI_ERR_ARG. */
#include "mpitest.h"

#define MAX_EVENTS 64
typedef struct {
  MPI_Datatype type;
  int keyval;
  void* value;
  void* extra;
} event;
static event deletes[MAX_EVENTS];
static int ndeletes, copies, declines;
static int fail_deletes = MPI_SUCCESS;
static int fail_copies = MPI_SUCCESS;
static int extra_a, extra_b;
static int made[8]; /* values copy_new makes point into this */

static int record_delete(MPI_Datatype type, int keyval, void* value, void* extra) {
  if (ndeletes < MAX_EVENTS) deletes[ndeletes] = (event){type, keyval, value, extra};
  ndeletes++;
  return fail_deletes;
}

static int copy_new(MPI_Datatype type, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)type, (void)keyval, (void)extra;
  if (fail_copies != MPI_SUCCESS) return fail_copies;
  copies++;
  int* v = &made[copies % 8];
  *v = *(int*)in + 100;
  *(void**)out = v;
  *flag = 1;
  return MPI_SUCCESS;
}

static int decline(MPI_Datatype type, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)type, (void)keyval, (void)extra, (void)in, (void)out;
  declines++;
  *flag = 0;
  return MPI_SUCCESS;
}

static void* get(MPI_Datatype type, int keyval, int* flag) {
  void* v = NULL;
  OK(MPI_Type_get_attr(type, keyval, &v, flag));
  return v;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Datatype vec;
  OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
  OK(MPI_Type_commit(&vec));

  int kv_record, kv_dup, kv_new, kv_decline, kv_null;
  OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, record_delete, &kv_record, &extra_a));
  OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, record_delete, &kv_dup, &extra_b));
  OK(MPI_Type_create_keyval(copy_new, record_delete, &kv_new, NULL));
  OK(MPI_Type_create_keyval(decline, MPI_TYPE_NULL_DELETE_FN, &kv_decline, NULL));
  OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kv_null, NULL));
  CHECK(((unsigned)kv_record & 0xffc00000u) == 0xa4c00000u, "type keyval 0x%x", (unsigned)kv_record);

  /* ---- set, get, overwrite, delete */
  int v1 = 1, v2 = 2, v3 = 3, v4 = 4;
  int flag = -1;
  (void)get(vec, kv_record, &flag);
  CHECK(flag == 0, "no value yet: flag %d", flag);
  OK(MPI_Type_set_attr(vec, kv_record, &v1));
  CHECK(get(vec, kv_record, &flag) == &v1 && flag == 1, "value read back");
  OK(MPI_Type_set_attr(vec, kv_record, &v2)); /* overwrite: delete callback for v1 */
  CHECK(ndeletes == 1, "overwrite ran %d delete callbacks, expected 1", ndeletes);
  CHECK(deletes[0].type == vec && deletes[0].keyval == kv_record && deletes[0].value == &v1 &&
            deletes[0].extra == &extra_a,
        "delete callback arguments on overwrite");
  CHECK(get(vec, kv_record, &flag) == &v2 && flag == 1, "overwritten value");
  OK(MPI_Type_delete_attr(vec, kv_record));
  CHECK(ndeletes == 2 && deletes[1].value == &v2, "delete ran the callback for v2");
  (void)get(vec, kv_record, &flag);
  CHECK(flag == 0, "deleted: flag %d", flag);
  OK(MPI_Type_delete_attr(vec, kv_record)); /* nothing there: no error, no callback */
  CHECK(ndeletes == 2, "deleting nothing ran a callback");

  /* ---- predefined datatypes carry attributes too */
  OK(MPI_Type_set_attr(MPI_DOUBLE, kv_null, &v3));
  CHECK(get(MPI_DOUBLE, kv_null, &flag) == &v3 && flag == 1, "attribute on MPI_DOUBLE");
  (void)get(MPI_INT, kv_null, &flag);
  CHECK(flag == 0, "MPI_INT has no attribute");

  /* ---- MPI_Type_dup runs the copy callbacks */
  OK(MPI_Type_set_attr(vec, kv_record, &v1)); /* NULL_COPY_FN: not copied */
  OK(MPI_Type_set_attr(vec, kv_dup, &v2));    /* DUP_FN: same value */
  OK(MPI_Type_set_attr(vec, kv_new, &v3));    /* copy_new: new value v3 + 100 */
  OK(MPI_Type_set_attr(vec, kv_decline, &v4));
  MPI_Datatype dup;
  OK(MPI_Type_dup(vec, &dup));
  CHECK(copies == 1 && declines == 1, "copy callbacks: %d copies, %d declines", copies, declines);
  (void)get(dup, kv_record, &flag);
  CHECK(flag == 0, "MPI_TYPE_NULL_COPY_FN copied the attribute");
  CHECK(get(dup, kv_dup, &flag) == &v2 && flag == 1, "MPI_TYPE_DUP_FN copy");
  int* copied = get(dup, kv_new, &flag);
  CHECK(flag == 1 && *copied == 103, "copy_new's value %d", flag ? *copied : -1);
  (void)get(dup, kv_decline, &flag);
  CHECK(flag == 0, "declined copy present");
  /* a dup of a predefined type copies its attributes too */
  MPI_Datatype ddup;
  OK(MPI_Type_dup(MPI_DOUBLE, &ddup));
  (void)get(ddup, kv_null, &flag);
  CHECK(flag == 0, "NULL_COPY_FN attribute copied from MPI_DOUBLE");
  OK(MPI_Type_free(&ddup));

  /* ---- MPI_Type_free deletes, newest first */
  ndeletes = 0;
  OK(MPI_Type_free(&dup));
  CHECK(dup == MPI_DATATYPE_NULL, "handle not reset");
  CHECK(ndeletes == 2, "free of dup ran %d delete callbacks, expected 2", ndeletes);
  CHECK(deletes[0].keyval == kv_new && deletes[0].value == copied, "newest (kv_new) first");
  CHECK(deletes[1].keyval == kv_dup && deletes[1].value == &v2, "then kv_dup");

  /* ---- a failing copy callback: the dup fails with its code, nothing is made and
   * the copies already made (kv_dup's) are deleted again */
  fail_copies = MPI_ERR_OTHER;
  ndeletes = 0;
  MPI_Datatype never = MPI_DATATYPE_NULL;
  EXPECT_CLASS(MPI_ERR_OTHER, MPI_Type_dup(vec, &never));
  CHECK(never == MPI_DATATYPE_NULL, "failed dup set newtype");
  CHECK(ndeletes == 1 && deletes[0].keyval == kv_dup, "copies undone: %d deletes", ndeletes);
  fail_copies = MPI_SUCCESS;

  /* ---- a failing delete callback keeps the type */
  fail_deletes = MPI_ERR_OTHER;
  MPI_Datatype keep = vec;
  EXPECT_CLASS(MPI_ERR_OTHER, MPI_Type_free(&keep));
  CHECK(keep == vec, "failed free changed the handle");
  int size = 0;
  OK(MPI_Type_size(vec, &size));
  CHECK(size == 3 * (int)sizeof(int), "type still usable: size %d", size);
  fail_deletes = MPI_SUCCESS;

  /* ---- a keyval freed while attached stays valid for its attributes */
  int kv_old = kv_record;
  OK(MPI_Type_free_keyval(&kv_record));
  CHECK(kv_record == MPI_KEYVAL_INVALID, "freed keyval handle %d", kv_record);
  CHECK(get(vec, kv_old, &flag) == &v1 && flag == 1, "value of a freed keyval still reads");
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Type_set_attr(vec, kv_old, &v2));
  ndeletes = 0;
  OK(MPI_Type_delete_attr(vec, kv_old));
  CHECK(ndeletes == 1 && deletes[0].value == &v1, "freed keyval's delete callback ran");
  /* its last attribute gone: the keyval is dead now */
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Type_get_attr(vec, kv_old, &copied, &flag));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Type_free_keyval(&kv_old));

  /* ---- distinct keyval spaces */
  int comm_kv;
  OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_kv, NULL));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Type_set_attr(vec, comm_kv, &v1));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Type_get_attr(vec, comm_kv, &copied, &flag));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Type_free_keyval(&comm_kv));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, kv_null, &v1));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&kv_null));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Type_get_attr(vec, MPI_TAG_UB, &copied, &flag));
  OK(MPI_Comm_free_keyval(&comm_kv));

  /* ---- other bad input */
  int invalid = MPI_KEYVAL_INVALID;
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Type_set_attr(vec, MPI_KEYVAL_INVALID, &v1));
  EXPECT_CLASS(MPI_ERR_KEYVAL, MPI_Type_free_keyval(&invalid));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_set_attr(MPI_DATATYPE_NULL, kv_null, &v1));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_get_attr(MPI_DATATYPE_NULL, kv_null, &copied, &flag));
  EXPECT_CLASS(MPI_ERR_TYPE, MPI_Type_delete_attr(MPI_DATATYPE_NULL, kv_null));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_attr(vec, kv_null, NULL, &flag));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_get_attr(vec, kv_null, &copied, NULL));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL));
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Type_free_keyval(NULL));

  /* ---- the rest goes with the type */
  ndeletes = 0;
  OK(MPI_Type_free(&vec));
  CHECK(ndeletes == 2, "final free ran %d delete callbacks, expected 2 (kv_new, kv_dup)", ndeletes);
  OK(MPI_Type_delete_attr(MPI_DOUBLE, kv_null));
  OK(MPI_Type_free_keyval(&kv_dup));
  OK(MPI_Type_free_keyval(&kv_new));
  OK(MPI_Type_free_keyval(&kv_decline));
  OK(MPI_Type_free_keyval(&kv_null));

  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("type_attributes: ok\n");
  MPI_Finalize();
  return 0;
}
