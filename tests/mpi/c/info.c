/* Info objects (MPI-3.1 §9) and the calls that take hints.
 *  - MPI_Info_create/set/get/get_valuelen/get_nkeys/get_nthkey/delete/dup/free:
 *    keys in the order first set, a key set again keeps its place with the new
 *    value, a deleted key set again goes last; MPI_Info_get truncates to valuelen
 *    characters plus the terminator and leaves the buffer alone when the key is
 *    absent; a dup changes independently of its original; free sets the handle to
 *    MPI_INFO_NULL, and the freed handle stays invalid (not reused by later objects).
 *  - The bounds: a key of MPI_MAX_INFO_KEY - 1 characters and a value of
 *    MPI_MAX_INFO_VAL - 1 pass, one more is refused.
 *  - The errors under MPI_ERRORS_RETURN, each leaving the object as it was:
 *    MPI_ERR_INFO (MPI_INFO_NULL, a freed handle, garbage, freeing MPI_INFO_ENV),
 *    MPI_ERR_INFO_KEY (null, empty, too long), MPI_ERR_INFO_VALUE (null, empty, too
 *    long), MPI_ERR_INFO_NOKEY (deleting an absent key), MPI_ERR_ARG (n out of range,
 *    null output pointers, negative valuelen); MPI_Error_string's text for each info
 *    class.
 *  - MPI_INFO_ENV: "maxprocs" is the number of ranks; keys can be set and deleted on
 *    it; it can be duplicated, not freed.
 *  - MPI_Alloc_mem, MPI_Comm_split_type, MPI_Comm_dup_with_info, MPI_Comm_set_info
 *    with a real info object (hints ignored), refusing an invalid one;
 *    MPI_Comm_get_info gives a new, empty info object.
 * Any number of ranks (1 and 2 in testlist). */
#include <string.h>

#include "mpitest.h"

/* The n-th key of info must be `expected`. */
static void expect_nthkey(MPI_Info info, int n, const char* expected) {
  char key[MPI_MAX_INFO_KEY];
  memset(key, '#', sizeof key);
  OK(MPI_Info_get_nthkey(info, n, key));
  CHECK(strcmp(key, expected) == 0, "key %d is '%s', expected '%s'", n, key, expected);
}

/* info must hold exactly `n` keys, in this order. */
static void expect_keys(MPI_Info info, int n, const char* const keys[]) {
  int nkeys = -1;
  OK(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == n, "%d keys, expected %d", nkeys, n);
  for (int i = 0; i < n; ++i) expect_nthkey(info, i, keys[i]);
}

/* key of info must have this value (NULL: must be absent), seen by MPI_Info_get and
 * MPI_Info_get_valuelen. */
static void expect_value(MPI_Info info, const char* key, const char* expected) {
  char value[MPI_MAX_INFO_VAL];
  memset(value, '#', sizeof value);
  value[sizeof value - 1] = '\0';
  int flag = -1, valuelen = -7;
  OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, value, &flag));
  if (expected == NULL) {
    CHECK(flag == 0, "key '%s' is set to '%s'", key, value);
    CHECK(value[0] == '#', "MPI_Info_get wrote into value for the absent key '%s'", key);
    OK(MPI_Info_get_valuelen(info, key, &valuelen, &flag));
    CHECK(flag == 0 && valuelen == -7, "MPI_Info_get_valuelen(absent '%s'): flag %d valuelen %d", key, flag, valuelen);
    return;
  }
  CHECK(flag == 1, "key '%s' is not set", key);
  CHECK(strcmp(value, expected) == 0, "key '%s' is '%s', expected '%s'", key, value, expected);
  OK(MPI_Info_get_valuelen(info, key, &valuelen, &flag));
  CHECK(flag == 1 && valuelen == (int)strlen(expected), "MPI_Info_get_valuelen('%s'): flag %d valuelen %d", key,
        flag, valuelen);
}

/* Every call that takes an info object refuses `bad` with MPI_ERR_INFO. */
static void expect_invalid(MPI_Info bad) {
  char value[16] = "untouched";
  char key[MPI_MAX_INFO_KEY] = "untouched";
  int flag = 42, n = 42;
  MPI_Info out = MPI_INFO_NULL;
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Info_set(bad, "k", "v"));
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Info_get(bad, "k", (int)sizeof value - 1, value, &flag));
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Info_get_valuelen(bad, "k", &n, &flag));
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Info_get_nkeys(bad, &n));
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Info_get_nthkey(bad, 0, key));
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Info_delete(bad, "k"));
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Info_dup(bad, &out));
  MPI_Info copy = bad;
  EXPECT_CLASS(MPI_ERR_INFO, MPI_Info_free(&copy));
  CHECK(copy == bad, "a refused MPI_Info_free changed the handle");
  CHECK(strcmp(value, "untouched") == 0 && strcmp(key, "untouched") == 0 && flag == 42 && n == 42 &&
            out == MPI_INFO_NULL,
        "a refused call wrote an output");
  /* The calls that take hints accept MPI_INFO_NULL, nothing else invalid. */
  if (bad != MPI_INFO_NULL) {
    void* base = NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    EXPECT_CLASS(MPI_ERR_INFO, MPI_Alloc_mem(16, bad, &base));
    EXPECT_CLASS(MPI_ERR_INFO, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, bad, &comm));
    EXPECT_CLASS(MPI_ERR_INFO, MPI_Comm_dup_with_info(MPI_COMM_WORLD, bad, &comm));
    EXPECT_CLASS(MPI_ERR_INFO, MPI_Comm_set_info(MPI_COMM_WORLD, bad));
    CHECK(base == NULL && comm == MPI_COMM_NULL, "a refused call wrote an output");
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(MPI_MAX_INFO_KEY == 255 && MPI_MAX_INFO_VAL == 1024, "MPI_MAX_INFO_KEY %d, MPI_MAX_INFO_VAL %d",
        MPI_MAX_INFO_KEY, MPI_MAX_INFO_VAL);

  /* ---- an empty object */
  MPI_Info info = MPI_INFO_NULL;
  OK(MPI_Info_create(&info));
  CHECK(info != MPI_INFO_NULL, "MPI_Info_create gave MPI_INFO_NULL");
  expect_keys(info, 0, NULL);
  expect_value(info, "alpha", NULL);
  char key[MPI_MAX_INFO_KEY];
  EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_get_nthkey(info, 0, key));

  /* ---- insertion order, replacement in place */
  OK(MPI_Info_set(info, "alpha", "1"));
  OK(MPI_Info_set(info, "beta", "two"));
  OK(MPI_Info_set(info, "gamma", "3"));
  {
    const char* const keys[] = {"alpha", "beta", "gamma"};
    expect_keys(info, 3, keys);
  }
  OK(MPI_Info_set(info, "beta", "a longer second value"));
  {
    const char* const keys[] = {"alpha", "beta", "gamma"};
    expect_keys(info, 3, keys);
  }
  expect_value(info, "alpha", "1");
  expect_value(info, "beta", "a longer second value");
  expect_value(info, "gamma", "3");
  OK(MPI_Info_set(info, "beta", "b"));  /* shorter again */
  expect_value(info, "beta", "b");
  expect_value(info, "Alpha", NULL);  /* keys are case sensitive */
  expect_value(info, "alph", NULL);

  /* ---- truncation: valuelen characters and the terminator, nothing beyond */
  OK(MPI_Info_set(info, "text", "abcdefgh"));
  {
    char value[16];
    int flag = -1;
    memset(value, '#', sizeof value);
    OK(MPI_Info_get(info, "text", 3, value, &flag));
    CHECK(flag == 1 && memcmp(value, "abc", 4) == 0 && value[4] == '#', "valuelen 3 gave '%.16s'", value);
    memset(value, '#', sizeof value);
    OK(MPI_Info_get(info, "text", 0, value, &flag));
    CHECK(flag == 1 && value[0] == '\0' && value[1] == '#', "valuelen 0 gave '%.16s'", value);
    memset(value, '#', sizeof value);
    OK(MPI_Info_get(info, "text", 8, value, &flag));
    CHECK(flag == 1 && strcmp(value, "abcdefgh") == 0 && value[9] == '#', "valuelen 8 gave '%.16s'", value);
    memset(value, '#', sizeof value);
    OK(MPI_Info_get(info, "text", (int)sizeof value - 1, value, &flag));
    CHECK(flag == 1 && strcmp(value, "abcdefgh") == 0 && value[9] == '#', "valuelen 15 gave '%.16s'", value);
  }

  /* ---- delete: the others keep their order; a key set again goes last */
  OK(MPI_Info_delete(info, "beta"));
  {
    const char* const keys[] = {"alpha", "gamma", "text"};
    expect_keys(info, 3, keys);
  }
  expect_value(info, "beta", NULL);
  EXPECT_CLASS(MPI_ERR_INFO_NOKEY, MPI_Info_delete(info, "beta"));
  EXPECT_CLASS(MPI_ERR_INFO_NOKEY, MPI_Info_delete(info, "never-set"));
  OK(MPI_Info_set(info, "beta", "back"));
  {
    const char* const keys[] = {"alpha", "gamma", "text", "beta"};
    expect_keys(info, 4, keys);
  }
  expect_value(info, "beta", "back");

  /* ---- dup: same keys in the same order; the two change independently */
  MPI_Info copy = MPI_INFO_NULL;
  OK(MPI_Info_dup(info, &copy));
  CHECK(copy != info && copy != MPI_INFO_NULL, "MPI_Info_dup gave handle 0x%x for 0x%x", (unsigned)copy,
        (unsigned)info);
  {
    const char* const keys[] = {"alpha", "gamma", "text", "beta"};
    expect_keys(copy, 4, keys);
  }
  expect_value(copy, "text", "abcdefgh");
  OK(MPI_Info_set(copy, "alpha", "changed in the copy"));
  OK(MPI_Info_set(copy, "only-in-copy", "x"));
  OK(MPI_Info_delete(copy, "gamma"));
  OK(MPI_Info_set(info, "only-in-original", "y"));
  OK(MPI_Info_delete(info, "text"));
  {
    const char* const original[] = {"alpha", "gamma", "beta", "only-in-original"};
    expect_keys(info, 4, original);
    const char* const duplicate[] = {"alpha", "text", "beta", "only-in-copy"};
    expect_keys(copy, 4, duplicate);
  }
  expect_value(info, "alpha", "1");
  expect_value(copy, "alpha", "changed in the copy");
  expect_value(info, "only-in-copy", NULL);
  expect_value(copy, "only-in-original", NULL);

  /* ---- bounds of keys and values */
  {
    char long_key[MPI_MAX_INFO_KEY + 1];
    memset(long_key, 'k', sizeof long_key);
    long_key[MPI_MAX_INFO_KEY - 1] = '\0'; /* MPI_MAX_INFO_KEY - 1 characters: the longest */
    OK(MPI_Info_set(copy, long_key, "long key"));
    expect_value(copy, long_key, "long key");
    int nkeys = 0;
    OK(MPI_Info_get_nkeys(copy, &nkeys));
    expect_nthkey(copy, nkeys - 1, long_key);  /* fits MPI_MAX_INFO_KEY bytes */
    OK(MPI_Info_delete(copy, long_key));
    long_key[MPI_MAX_INFO_KEY - 1] = 'k';
    long_key[MPI_MAX_INFO_KEY] = '\0'; /* one more */
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_set(copy, long_key, "v"));
    char value[8];
    int flag = 42, valuelen = 42;
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_get(copy, long_key, (int)sizeof value - 1, value, &flag));
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_get_valuelen(copy, long_key, &valuelen, &flag));
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_delete(copy, long_key));
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_set(copy, "", "v"));
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_get(copy, "", (int)sizeof value - 1, value, &flag));
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_get_valuelen(copy, "", &valuelen, &flag));
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_delete(copy, ""));
    CHECK(flag == 42 && valuelen == 42, "a refused call wrote an output");

    char long_value[MPI_MAX_INFO_VAL + 1];
    memset(long_value, 'v', sizeof long_value);
    long_value[MPI_MAX_INFO_VAL - 1] = '\0'; /* MPI_MAX_INFO_VAL - 1 characters: the longest */
    OK(MPI_Info_set(copy, "big", long_value));
    expect_value(copy, "big", long_value);
    long_value[MPI_MAX_INFO_VAL - 1] = 'v';
    long_value[MPI_MAX_INFO_VAL] = '\0'; /* one more */
    EXPECT_CLASS(MPI_ERR_INFO_VALUE, MPI_Info_set(copy, "big", long_value));
    EXPECT_CLASS(MPI_ERR_INFO_VALUE, MPI_Info_set(copy, "new", long_value));
    EXPECT_CLASS(MPI_ERR_INFO_VALUE, MPI_Info_set(copy, "big", ""));
    EXPECT_CLASS(MPI_ERR_INFO_VALUE, MPI_Info_set(copy, "new", ""));
    /* refused: the old value and the key count stay */
    long_value[MPI_MAX_INFO_VAL - 1] = '\0';
    expect_value(copy, "big", long_value);
    expect_value(copy, "new", NULL);
    OK(MPI_Info_delete(copy, "big"));
  }
  {
    const char* const duplicate[] = {"alpha", "text", "beta", "only-in-copy"};
    expect_keys(copy, 4, duplicate);
  }

  /* ---- argument errors, changing nothing */
  {
    char value[8] = "same";
    int flag = 42, n = 42;
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_get_nthkey(info, -1, key));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_get_nthkey(info, 4, key));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_get_nthkey(info, 0, NULL));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_get(info, "alpha", -1, value, &flag));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_get(info, "alpha", 4, NULL, &flag));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_get(info, "alpha", 4, value, NULL));
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_get(info, NULL, 4, value, &flag));
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_get_valuelen(info, NULL, &n, &flag));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_get_valuelen(info, "alpha", NULL, &flag));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_get_valuelen(info, "alpha", &n, NULL));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_get_nkeys(info, NULL));
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_set(info, NULL, "v"));
    EXPECT_CLASS(MPI_ERR_INFO_VALUE, MPI_Info_set(info, "k", NULL));
    EXPECT_CLASS(MPI_ERR_INFO_KEY, MPI_Info_delete(info, NULL));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_dup(info, NULL));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_create(NULL));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Info_free(NULL));
    CHECK(strcmp(value, "same") == 0 && flag == 42 && n == 42, "a refused call wrote an output");
    const char* const original[] = {"alpha", "gamma", "beta", "only-in-original"};
    expect_keys(info, 4, original);
    expect_value(info, "alpha", "1");
  }

  /* ---- invalid handles */
  expect_invalid(MPI_INFO_NULL);
  expect_invalid((MPI_Info)5);
  expect_invalid((MPI_Info)MPI_COMM_WORLD);  /* another kind's handle */
  {
    MPI_Info freed = MPI_INFO_NULL, gone;
    OK(MPI_Info_create(&freed));
    OK(MPI_Info_set(freed, "k", "v"));
    gone = freed;
    OK(MPI_Info_free(&freed));
    CHECK(freed == MPI_INFO_NULL, "MPI_Info_free left the handle 0x%x", (unsigned)freed);
    expect_invalid(gone);
    /* Later objects do not take the freed handle: it stays invalid. */
    MPI_Info later[8];
    for (int i = 0; i < 8; ++i) {
      OK(MPI_Info_create(&later[i]));
      CHECK(later[i] != gone, "MPI_Info_create reused the freed handle 0x%x", (unsigned)gone);
      for (int j = 0; j < i; ++j) CHECK(later[i] != later[j], "two objects have handle 0x%x", (unsigned)later[i]);
    }
    expect_invalid(gone);
    for (int i = 0; i < 8; ++i) OK(MPI_Info_free(&later[i]));
  }

  /* ---- error strings of the info classes: present and distinct */
  {
    const int classes[4] = {MPI_ERR_INFO, MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE, MPI_ERR_INFO_NOKEY};
    CHECK(MPI_ERR_INFO == 28 && MPI_ERR_INFO_KEY == 29 && MPI_ERR_INFO_VALUE == 30 && MPI_ERR_INFO_NOKEY == 31,
          "info error classes differ from MPICH's");
    char text[4][MPI_MAX_ERROR_STRING];
    for (int i = 0; i < 4; ++i) {
      int len = -1, cls = -1;
      OK(MPI_Error_string(classes[i], text[i], &len));
      CHECK(len > 0 && strstr(text[i], "Info") != NULL, "MPI_Error_string(%d) = '%s'", classes[i], text[i]);
      OK(MPI_Error_class(classes[i], &cls));
      CHECK(cls == classes[i], "MPI_Error_class(%d) = %d", classes[i], cls);
      for (int j = 0; j < i; ++j) CHECK(strcmp(text[i], text[j]) != 0, "classes %d and %d share '%s'", i, j, text[i]);
    }
  }

  /* ---- MPI_INFO_ENV */
  {
    char expected[16];
    snprintf(expected, sizeof expected, "%d", size);
    expect_value(MPI_INFO_ENV, "maxprocs", expected);
    int nkeys = 0;
    OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
    CHECK(nkeys == 1, "MPI_INFO_ENV has %d keys", nkeys);
    expect_nthkey(MPI_INFO_ENV, 0, "maxprocs");
    MPI_Info env_copy;
    OK(MPI_Info_dup(MPI_INFO_ENV, &env_copy));
    OK(MPI_Info_set(env_copy, "maxprocs", "changed"));
    expect_value(MPI_INFO_ENV, "maxprocs", expected);
    OK(MPI_Info_free(&env_copy));
    OK(MPI_Info_set(MPI_INFO_ENV, "mine", "set by the program"));  /* allowed: MPI does not forbid it */
    expect_value(MPI_INFO_ENV, "mine", "set by the program");
    OK(MPI_Info_delete(MPI_INFO_ENV, "mine"));
    expect_value(MPI_INFO_ENV, "mine", NULL);
    MPI_Info env = MPI_INFO_ENV;
    EXPECT_CLASS(MPI_ERR_INFO, MPI_Info_free(&env));
    CHECK(env == MPI_INFO_ENV, "a refused MPI_Info_free changed the handle");
    expect_value(MPI_INFO_ENV, "maxprocs", expected);
  }

  /* ---- calls that take hints: a real info object is accepted, its hints ignored */
  {
    MPI_Info hints;
    OK(MPI_Info_create(&hints));
    OK(MPI_Info_set(hints, "alloc_shm", "true"));
    OK(MPI_Info_set(hints, "mpi_assert_no_any_tag", "true"));
    OK(MPI_Info_set(hints, "twinfab_unknown_hint", "whatever"));

    int* block = NULL;
    OK(MPI_Alloc_mem(100 * sizeof(int), hints, &block));
    CHECK(block != NULL && (size_t)block % 64 == 0, "MPI_Alloc_mem gave %p", (void*)block);
    for (int i = 0; i < 100; ++i) block[i] = i;
    OK(MPI_Free_mem(block));
    OK(MPI_Alloc_mem(16, MPI_INFO_ENV, &block));
    OK(MPI_Free_mem(block));

    MPI_Comm host = MPI_COMM_NULL, host_null = MPI_COMM_NULL;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, hints, &host));
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host_null));
    int result = -1;
    OK(MPI_Comm_compare(host, host_null, &result));
    CHECK(result == MPI_CONGRUENT, "split_type with hints and without differ (%d)", result);
    OK(MPI_Comm_free(&host));
    OK(MPI_Comm_free(&host_null));

    MPI_Comm dup = MPI_COMM_NULL;
    OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, hints, &dup));
    OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
    CHECK(result == MPI_CONGRUENT, "MPI_Comm_dup_with_info gave a comm comparing %d to MPI_COMM_WORLD", result);
    MPI_Errhandler handler;
    OK(MPI_Comm_get_errhandler(dup, &handler));
    CHECK(handler == MPI_ERRORS_RETURN, "MPI_Comm_dup_with_info did not inherit the error handler");
    int sum = 0, one = 1;
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(sum == size, "allreduce on the dup gave %d", sum);
    MPI_Comm dup_null = MPI_COMM_NULL;
    OK(MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dup_null));
    OK(MPI_Comm_compare(dup, dup_null, &result));
    CHECK(result == MPI_CONGRUENT, "MPI_Comm_dup_with_info(MPI_INFO_NULL) compares %d", result);
    OK(MPI_Comm_free(&dup_null));

    OK(MPI_Comm_set_info(dup, hints));
    OK(MPI_Comm_set_info(dup, MPI_INFO_NULL));
    MPI_Info used = MPI_INFO_NULL;
    OK(MPI_Comm_get_info(dup, &used));
    CHECK(used != MPI_INFO_NULL && used != hints, "MPI_Comm_get_info gave 0x%x", (unsigned)used);
    expect_keys(used, 0, NULL);  /* no hint is used */
    OK(MPI_Info_set(used, "mine", "1"));  /* the caller's own object */
    MPI_Info used2 = MPI_INFO_NULL;
    OK(MPI_Comm_get_info(MPI_COMM_WORLD, &used2));
    CHECK(used2 != used, "MPI_Comm_get_info gave the same object twice");
    expect_keys(used2, 0, NULL);
    OK(MPI_Info_free(&used2));
    OK(MPI_Info_free(&used));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_get_info(dup, NULL));
    EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_get_info(MPI_COMM_NULL, &used));
    EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_set_info(MPI_COMM_NULL, hints));
    MPI_Comm untouched = MPI_COMM_NULL;
    EXPECT_CLASS(MPI_ERR_COMM, MPI_Comm_dup_with_info(MPI_COMM_NULL, hints, &untouched));
    EXPECT_CLASS(MPI_ERR_ARG, MPI_Comm_dup_with_info(dup, hints, NULL));
    CHECK(used == MPI_INFO_NULL && untouched == MPI_COMM_NULL, "a refused call wrote an output");
    OK(MPI_Comm_free(&dup));

    /* The hints object is still the caller's, unchanged. */
    const char* const keys[] = {"alloc_shm", "mpi_assert_no_any_tag", "twinfab_unknown_hint"};
    expect_keys(hints, 3, keys);
    OK(MPI_Info_free(&hints));
    expect_invalid(hints);  /* MPI_INFO_NULL now */
  }

  OK(MPI_Info_free(&info));
  OK(MPI_Info_free(&copy));
  CHECK(info == MPI_INFO_NULL && copy == MPI_INFO_NULL, "MPI_Info_free left a handle");
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("info: ok\n");
  MPI_Finalize();
  return 0;
}
