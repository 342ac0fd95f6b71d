/* twinfab MPI C API (MPI-3.1 subset).
 *
 * Build with twinfab-mpicc / twinfab-mpicxx (or pkg-config twinfab-mpi, or
 * find_package(twinfab) and twinfab::mpi); run under `twinfab sim -n N ./prog` on the
 * simulated fabric. docs/mpi.md lists what is implemented: only the functions
 * declared here exist, and each really works (no stubs that pretend to succeed).
 *
 * Handles are integers, as in MPICH: a handle names an entry in the calling rank's
 * tables (MPI state is per rank; simulated ranks share one process). The C++ layer
 * behind every function is twinfab::mpi::Context (mpi/core) and mpi/coll.
 *
 * The values of the error classes, MPI_PROC_NULL, MPI_ANY_SOURCE, MPI_ANY_TAG and
 * MPI_UNDEFINED are those of mpi/core (checked at compile time in
 * mpi/capi/rank_state.cpp), which took MPICH's numbers; MPI_IN_PLACE is mpi/coll's
 * kInPlace, (void*)-1, and passes through unchanged.
 */
#ifndef TWINFAB_MPI_H
#define TWINFAB_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define TWINFAB_MPI 1

#if defined(__GNUC__)
#define TWINFAB_MPI_API __attribute__((visibility("default")))
#define TWINFAB_MPI_REMOVED_IN_MPI3(replacement) __attribute__((deprecated("removed in MPI-3.0; use " replacement)))
#define TWINFAB_MPI_DEPRECATED_SINCE_MPI2(replacement) \
  __attribute__((deprecated("deprecated since MPI-2.0; use " replacement)))
#else
#define TWINFAB_MPI_API
#define TWINFAB_MPI_REMOVED_IN_MPI3(replacement)
#define TWINFAB_MPI_DEPRECATED_SINCE_MPI2(replacement)
#endif

/* ---- handles */
typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Message;
typedef int MPI_Session;
typedef int MPI_Win;
typedef ptrdiff_t MPI_Aint;
typedef long long MPI_Count;
typedef long long MPI_Offset;

#define MPI_COMM_NULL ((MPI_Comm)0x04000000)
#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)
#define MPI_COMM_SELF ((MPI_Comm)0x44000001)

#define MPI_GROUP_NULL ((MPI_Group)0x08000000)
#define MPI_GROUP_EMPTY ((MPI_Group)0x48000000)

#define MPI_REQUEST_NULL ((MPI_Request)0x2c000000)

/* Messages of MPI_Mprobe / MPI_Improbe are 0xec000000 + an index in the rank's table
 * (MPICH's handle kind of requests, which its messages are; twinfab's requests are
 * 0xac000000 + an index, so neither is taken for the other). The predefined ones
 * have MPICH's values: MPI_MESSAGE_NULL is MPI_REQUEST_NULL's. */
#define MPI_MESSAGE_NULL ((MPI_Message)0x2c000000)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x6c000000)

/* Info objects (MPI_Info_create, ...) are 0x9c000000 + an index in the rank's table
 * (never reused). MPI_INFO_ENV, the start-up hints, is predefined (MPICH's values). */
#define MPI_INFO_NULL ((MPI_Info)0x1c000000)
#define MPI_INFO_ENV ((MPI_Info)0x5c000001)

/* Error handlers of MPI_Comm_create_errhandler are 0x94000000 + an index in the
 * rank's table (never reused, so a freed handle stays invalid). */
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0x14000000)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)0x54000001)
/* MPI-4.0 §9.3: aborts the processes of the communicator or session on which the error
 * was raised. MPI_Abort ends the whole job here, so it acts as MPI_ERRORS_ARE_FATAL. */
#define MPI_ERRORS_ABORT ((MPI_Errhandler)0x54000003)

/* Windows (MPI_Win_create, ...) are 0xa0000000 + an index in the rank's table (never
 * reused, so a freed window's handle stays invalid); MPI_WIN_NULL is MPICH's value. */
#define MPI_WIN_NULL ((MPI_Win)0x20000000)

/* Sessions (MPI_Session_init) are 0xbc000000 + an index in the rank's table (never
 * reused, so a finalized session's handle stays invalid); MPICH's values. */
#define MPI_SESSION_NULL ((MPI_Session)0x3c000000)

/* Predefined datatypes: 0x4c000000 + the index in mpi/core's
 * TWINFAB_MPI_BASIC_TYPE_LIST (same order; checked in mpi/capi/rank_state.cpp). */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0x0c000000)
#define MPI_CHAR ((MPI_Datatype)0x4c000000)
#define MPI_SIGNED_CHAR ((MPI_Datatype)0x4c000001)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)0x4c000002)
#define MPI_SHORT ((MPI_Datatype)0x4c000003)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)0x4c000004)
#define MPI_INT ((MPI_Datatype)0x4c000005)
#define MPI_UNSIGNED ((MPI_Datatype)0x4c000006)
#define MPI_LONG ((MPI_Datatype)0x4c000007)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)0x4c000008)
#define MPI_LONG_LONG ((MPI_Datatype)0x4c000009)
#define MPI_LONG_LONG_INT MPI_LONG_LONG
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x4c00000a)
#define MPI_FLOAT ((MPI_Datatype)0x4c00000b)
#define MPI_DOUBLE ((MPI_Datatype)0x4c00000c)
#define MPI_LONG_DOUBLE ((MPI_Datatype)0x4c00000d)
#define MPI_WCHAR ((MPI_Datatype)0x4c00000e)
#define MPI_INT8_T ((MPI_Datatype)0x4c00000f)
#define MPI_INT16_T ((MPI_Datatype)0x4c000010)
#define MPI_INT32_T ((MPI_Datatype)0x4c000011)
#define MPI_INT64_T ((MPI_Datatype)0x4c000012)
#define MPI_UINT8_T ((MPI_Datatype)0x4c000013)
#define MPI_UINT16_T ((MPI_Datatype)0x4c000014)
#define MPI_UINT32_T ((MPI_Datatype)0x4c000015)
#define MPI_UINT64_T ((MPI_Datatype)0x4c000016)
#define MPI_AINT ((MPI_Datatype)0x4c000017)
#define MPI_OFFSET ((MPI_Datatype)0x4c000018)
#define MPI_COUNT ((MPI_Datatype)0x4c000019)
#define MPI_C_BOOL ((MPI_Datatype)0x4c00001a)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)0x4c00001b)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)0x4c00001c)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c00001d)
#define MPI_BYTE ((MPI_Datatype)0x4c00001e)
#define MPI_PACKED ((MPI_Datatype)0x4c00001f)
#define MPI_FLOAT_INT ((MPI_Datatype)0x4c000020)
#define MPI_DOUBLE_INT ((MPI_Datatype)0x4c000021)
#define MPI_LONG_INT ((MPI_Datatype)0x4c000022)
#define MPI_2INT ((MPI_Datatype)0x4c000023)
#define MPI_SHORT_INT ((MPI_Datatype)0x4c000024)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)0x4c000025)
#define TWINFAB_MPI_BASIC_TYPE_COUNT 38

/* Predefined reduction operations: 0x58000000 + mpi::Op's value. Those of
 * MPI_Op_create are 0x98000000 + an index in the rank's table (never reused). */
#define MPI_OP_NULL ((MPI_Op)0x18000000)
#define MPI_MAX ((MPI_Op)0x58000000)
#define MPI_MIN ((MPI_Op)0x58000001)
#define MPI_SUM ((MPI_Op)0x58000002)
#define MPI_PROD ((MPI_Op)0x58000003)
#define MPI_LAND ((MPI_Op)0x58000004)
#define MPI_BAND ((MPI_Op)0x58000005)
#define MPI_LOR ((MPI_Op)0x58000006)
#define MPI_BOR ((MPI_Op)0x58000007)
#define MPI_LXOR ((MPI_Op)0x58000008)
#define MPI_BXOR ((MPI_Op)0x58000009)
#define MPI_MAXLOC ((MPI_Op)0x5800000a)
#define MPI_MINLOC ((MPI_Op)0x5800000b)
/* One-sided accumulates only (MPI_Accumulate and friends); collectives refuse them. */
#define MPI_REPLACE ((MPI_Op)0x5800000c)
#define MPI_NO_OP ((MPI_Op)0x5800000d)

/* ---- special values */
#define MPI_PROC_NULL (-1)
#define MPI_ANY_SOURCE (-2)
/* The address 0, for buffers of types built from absolute addresses (MPI_Get_address
   displacements): a null buffer with data is accepted for a derived type whose data
   does not start at offset 0, refused (MPI_ERR_BUFFER) otherwise, as in MPICH. */
#define MPI_BOTTOM ((void*)0)
/* The root of an intercommunicator collective (MPICH's value). twinfab has only
   intracommunicators, where it is an invalid root (MPI_ERR_ROOT); defined so that
   programs with intercommunicator branches build. */
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_IN_PLACE ((void*)-1)

#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_PROCESSOR_NAME 128
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
/* Info keys and values (MPICH's bounds): a key has at most MPI_MAX_INFO_KEY - 1
 * characters, a value at most MPI_MAX_INFO_VAL - 1, so that each fits with its
 * terminator in a buffer of that size. */
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
/* Sessions (MPI-4.0 §11.3): the longest process set name and MPI_Comm_create_from_group
 * stringtag, terminator included (MPICH's bounds). */
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256

/* MPI_Comm_compare results */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* MPI_Comm_split_type: the ranks that share a host (a simulated host under
 * `twinfab sim`, see --ranks-per-host; the machine on hardware). */
#define MPI_COMM_TYPE_SHARED 1
#define MPI_COMM_TYPE_HW_UNGUIDED 2 /* MPI-4.0; MPICH's values */
#define MPI_COMM_TYPE_HW_GUIDED 3

/* MPI_Topo_test results. */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3

/* The weights arguments of MPI_Dist_graph_create*: no weights at all
 * (MPI_UNWEIGHTED), or a weighted graph with no edges here (MPI_WEIGHTS_EMPTY). Two
 * distinct addresses that no array has, as in MPICH (where they are the addresses of
 * two dummies); neither is null, so a forgotten weights array is an error. */
#define MPI_UNWEIGHTED ((int*)2)
#define MPI_WEIGHTS_EMPTY ((int*)3)

/* Thread levels: this library provides at most MPI_THREAD_FUNNELED (one thread per
 * rank makes the MPI calls; there are no locks inside). */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* MPI_Type_get_envelope combiners (MPICH's values). This library makes NAMED, DUP,
 * CONTIGUOUS, VECTOR, HVECTOR, INDEXED, HINDEXED, INDEXED_BLOCK, HINDEXED_BLOCK,
 * STRUCT (MPI_Type_struct too, as in MPICH), SUBARRAY, DARRAY and RESIZED; the others are
 * defined for programs that compare against them. */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR_INTEGER 5
#define MPI_COMBINER_HVECTOR 6
#define MPI_COMBINER_INDEXED 7
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_HINDEXED 9
#define MPI_COMBINER_INDEXED_BLOCK 10
#define MPI_COMBINER_STRUCT_INTEGER 11
#define MPI_COMBINER_STRUCT 12
#define MPI_COMBINER_SUBARRAY 13
#define MPI_COMBINER_DARRAY 14
#define MPI_COMBINER_F90_REAL 15
#define MPI_COMBINER_F90_COMPLEX 16
#define MPI_COMBINER_F90_INTEGER 17
#define MPI_COMBINER_RESIZED 18
#define MPI_COMBINER_HINDEXED_BLOCK 19

/* Array storage orders of MPI_Type_create_subarray and _darray (MPICH's values). */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57

/* Distributions of MPI_Type_create_darray (MPICH's values). */
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* Predefined attribute keys (MPICH's values), readable with MPI_Comm_get_attr on any
 * communicator; each gives a pointer to an int of the calling rank:
 *   MPI_TAG_UB           the largest tag;
 *   MPI_HOST             MPI_PROC_NULL (no host process);
 *   MPI_IO               MPI_ANY_SOURCE (every rank can do I/O);
 *   MPI_WTIME_IS_GLOBAL  1 under `twinfab sim` (every rank reads the one simulated
 *                        clock), 0 on hardware (each process reads its node's clock);
 *   MPI_UNIVERSE_SIZE    the size of MPI_COMM_WORLD (no dynamic processes);
 *   MPI_LASTUSEDCODE     the largest error class or code the rank added
 *                        (MPI_Add_error_class, MPI_Add_error_code), else MPI_ERR_LASTCODE;
 *   MPI_APPNUM           absent (flag 0): no MPMD launch.
 * They cannot be set, deleted or freed (MPI_ERR_KEYVAL). Keyvals of
 * MPI_Comm_create_keyval are 0xa4400000 + an index in the rank's table (never
 * reused, so a freed keyval stays invalid). */
#define MPI_KEYVAL_INVALID 0x24000000
#define MPI_TAG_UB 0x64400001
#define MPI_HOST 0x64400003
#define MPI_IO 0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE 0x64400009
#define MPI_LASTUSEDCODE 0x6440000b
#define MPI_APPNUM 0x6440000d

/* ---- error classes (MPICH's values; the predefined error codes are the classes themselves) */
enum {
  MPI_SUCCESS = 0,
  MPI_ERR_BUFFER = 1,
  MPI_ERR_COUNT = 2,
  MPI_ERR_TYPE = 3,
  MPI_ERR_TAG = 4,
  MPI_ERR_COMM = 5,
  MPI_ERR_RANK = 6,
  MPI_ERR_ROOT = 7,
  MPI_ERR_GROUP = 8,
  MPI_ERR_OP = 9,
  MPI_ERR_TOPOLOGY = 10,
  MPI_ERR_DIMS = 11,
  MPI_ERR_ARG = 12,
  MPI_ERR_UNKNOWN = 13,
  MPI_ERR_TRUNCATE = 14,
  MPI_ERR_OTHER = 15,
  MPI_ERR_INTERN = 16,
  MPI_ERR_IN_STATUS = 17,
  MPI_ERR_PENDING = 18,
  MPI_ERR_REQUEST = 19,
  MPI_ERR_ACCESS = 20,
  MPI_ERR_AMODE = 21,
  MPI_ERR_BAD_FILE = 22,
  MPI_ERR_CONVERSION = 23,
  MPI_ERR_DUP_DATAREP = 24,
  MPI_ERR_FILE_EXISTS = 25,
  MPI_ERR_FILE_IN_USE = 26,
  MPI_ERR_FILE = 27,
  MPI_ERR_INFO = 28,
  MPI_ERR_INFO_KEY = 29,
  MPI_ERR_INFO_VALUE = 30,
  MPI_ERR_INFO_NOKEY = 31,
  MPI_ERR_IO = 32,
  MPI_ERR_NAME = 33,
  MPI_ERR_NO_MEM = 34,
  MPI_ERR_NOT_SAME = 35,
  MPI_ERR_NO_SPACE = 36,
  MPI_ERR_NO_SUCH_FILE = 37,
  MPI_ERR_PORT = 38,
  MPI_ERR_QUOTA = 39,
  MPI_ERR_READ_ONLY = 40,
  MPI_ERR_SERVICE = 41,
  MPI_ERR_SPAWN = 42,
  MPI_ERR_UNSUPPORTED_DATAREP = 43,
  MPI_ERR_UNSUPPORTED_OPERATION = 44,
  MPI_ERR_WIN = 45,
  MPI_ERR_BASE = 46,
  MPI_ERR_LOCKTYPE = 47,
  MPI_ERR_KEYVAL = 48,
  MPI_ERR_RMA_CONFLICT = 49,
  MPI_ERR_RMA_SYNC = 50,
  MPI_ERR_SIZE = 51,
  MPI_ERR_DISP = 52,
  MPI_ERR_ASSERT = 53,
  MPI_ERR_RMA_RANGE = 55,
  MPI_ERR_RMA_ATTACH = 56,
  MPI_ERR_RMA_SHARED = 57,
  MPI_ERR_RMA_FLAVOR = 58,
  /* the tools interface's return codes (MPI_T_*, below) */
  MPI_T_ERR_MEMORY = 59,
  MPI_T_ERR_NOT_INITIALIZED = 60,
  MPI_T_ERR_CANNOT_INIT = 61,
  MPI_T_ERR_INVALID_INDEX = 62,
  MPI_T_ERR_INVALID_ITEM = 63,
  MPI_T_ERR_INVALID_HANDLE = 64,
  MPI_T_ERR_OUT_OF_HANDLES = 65,
  MPI_T_ERR_OUT_OF_SESSIONS = 66,
  MPI_T_ERR_INVALID_SESSION = 67,
  MPI_T_ERR_CVAR_SET_NOT_NOW = 68,
  MPI_T_ERR_CVAR_SET_NEVER = 69,
  MPI_T_ERR_PVAR_NO_STARTSTOP = 70,
  MPI_T_ERR_PVAR_NO_WRITE = 71,
  MPI_T_ERR_PVAR_NO_ATOMIC = 72,
  MPI_T_ERR_INVALID_NAME = 73,
  MPI_T_ERR_INVALID = 74,
  MPI_ERR_SESSION = 75,
  MPI_ERR_LASTCODE = 0x3fffffff
};

/* ---- status. MPI_SOURCE, MPI_TAG and MPI_ERROR are public; the rest is private. */
typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int twinfab_cancelled;
  long long twinfab_count_bytes;
} MPI_Status;

#define MPI_STATUS_IGNORE ((MPI_Status*)1)
#define MPI_STATUSES_IGNORE ((MPI_Status*)1)

/* ---- language interoperability (MPI-3.1 §17.2.4): a Fortran handle (MPI_Fint) holds
   the C handle unchanged; a Fortran status is MPI_F_STATUS_SIZE MPI_Fints holding the
   C status. */
typedef int MPI_Fint;
#define MPI_F_STATUS_SIZE 6
TWINFAB_MPI_API MPI_Fint MPI_Comm_c2f(MPI_Comm comm);
TWINFAB_MPI_API MPI_Comm MPI_Comm_f2c(MPI_Fint comm);
TWINFAB_MPI_API MPI_Fint MPI_Type_c2f(MPI_Datatype datatype);
TWINFAB_MPI_API MPI_Datatype MPI_Type_f2c(MPI_Fint datatype);
TWINFAB_MPI_API MPI_Fint MPI_Group_c2f(MPI_Group group);
TWINFAB_MPI_API MPI_Group MPI_Group_f2c(MPI_Fint group);
TWINFAB_MPI_API MPI_Fint MPI_Request_c2f(MPI_Request request);
TWINFAB_MPI_API MPI_Request MPI_Request_f2c(MPI_Fint request);
TWINFAB_MPI_API MPI_Fint MPI_Op_c2f(MPI_Op op);
TWINFAB_MPI_API MPI_Op MPI_Op_f2c(MPI_Fint op);
TWINFAB_MPI_API MPI_Fint MPI_Info_c2f(MPI_Info info);
TWINFAB_MPI_API MPI_Info MPI_Info_f2c(MPI_Fint info);
TWINFAB_MPI_API MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler);
TWINFAB_MPI_API MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler);
TWINFAB_MPI_API MPI_Fint MPI_Message_c2f(MPI_Message message);
TWINFAB_MPI_API MPI_Message MPI_Message_f2c(MPI_Fint message);
TWINFAB_MPI_API MPI_Fint MPI_Session_c2f(MPI_Session session);
TWINFAB_MPI_API MPI_Session MPI_Session_f2c(MPI_Fint session);
TWINFAB_MPI_API int MPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status);
TWINFAB_MPI_API int MPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status);

/* ---- environment */
TWINFAB_MPI_API int MPI_Init(int* argc, char*** argv);
TWINFAB_MPI_API int MPI_Init_thread(int* argc, char*** argv, int required, int* provided);
/* MPI_Initialized and MPI_Finalized say whether MPI_Init and MPI_Finalize were called
   (the World model); sessions do not count (MPI-4.0 §11.4.1). */
TWINFAB_MPI_API int MPI_Initialized(int* flag);
TWINFAB_MPI_API int MPI_Finalize(void);
TWINFAB_MPI_API int MPI_Finalized(int* flag);
TWINFAB_MPI_API int MPI_Abort(MPI_Comm comm, int errorcode);
TWINFAB_MPI_API double MPI_Wtime(void);
TWINFAB_MPI_API double MPI_Wtick(void);
/* MPI_Pcontrol (MPI-3.1 §14.2.4): for profiling tools, which define it to hear the
   program's level; the library's own does nothing, as the standard says. */
TWINFAB_MPI_API int MPI_Pcontrol(const int level, ...);
TWINFAB_MPI_API int MPI_Get_version(int* version, int* subversion);
TWINFAB_MPI_API int MPI_Get_library_version(char* version, int* resultlen);
TWINFAB_MPI_API int MPI_Get_processor_name(char* name, int* resultlen);
/* The level MPI_Init_thread provided (MPI_THREAD_SINGLE after MPI_Init). */
TWINFAB_MPI_API int MPI_Query_thread(int* provided);
/* Whether the caller is the thread that called MPI_Init (MPI_Init_thread). */
TWINFAB_MPI_API int MPI_Is_thread_main(int* flag);
/* Plain memory, aligned to 64 bytes (to the page from 4 KiB up), not registered with
   the device in advance: a rendezvous transfer registers it through the registration
   cache like any buffer. The hints of info are ignored. MPI_Free_mem takes only what
   MPI_Alloc_mem gave. */
TWINFAB_MPI_API int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr);
TWINFAB_MPI_API int MPI_Free_mem(void* base);

/* ---- errors */
TWINFAB_MPI_API int MPI_Error_string(int errorcode, char* string, int* resultlen);
TWINFAB_MPI_API int MPI_Error_class(int errorcode, int* errorclass);
/* User-defined error classes and codes (MPI-3.1 §8.5), the calling rank's own: values
   from MPI_ERR_LASTCODE + 1 up, classes and codes from one sequence (MPI_LASTUSEDCODE
   is the last). MPI_Error_string gives the text of MPI_Add_error_string, empty until
   one is set; MPI_Error_class a code's class. A code's class is any predefined class
   but MPI_SUCCESS, or an added class. */
TWINFAB_MPI_API int MPI_Add_error_class(int* errorclass);
TWINFAB_MPI_API int MPI_Add_error_code(int errorclass, int* errorcode);
TWINFAB_MPI_API int MPI_Add_error_string(int errorcode, const char* string);
/* User error handlers (MPI-3.1 §8.3.1). When a call on comm fails and comm's handler is
   a user one, the function is called with a pointer to a copy of comm's handle
   (MPI_COMM_WORLD's, with its handler, when the call's communicator is not a valid
   one) and to the error code; the call then returns the code the function left there.
   New communicators (dup, split, create, ...) inherit their parent's handler.
   MPI_Comm_get_errhandler gives a new handle to be freed with MPI_Errhandler_free; a
   handler whose handles are all freed lives on for the communicators using it. */
typedef void MPI_Comm_errhandler_function(MPI_Comm* comm, int* errorcode, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn; /* the MPI-2.0 name */
TWINFAB_MPI_API int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* comm_errhandler_fn,
                                               MPI_Errhandler* errhandler);
TWINFAB_MPI_API int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
TWINFAB_MPI_API int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler);
/* Calls comm's handler with errorcode as if a call on comm had failed with it; returns
   MPI_SUCCESS when the handler returns (as MPICH and Open MPI do). */
TWINFAB_MPI_API int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
/* Sets *errhandler to MPI_ERRHANDLER_NULL; a predefined handler stays (as in MPICH). */
TWINFAB_MPI_API int MPI_Errhandler_free(MPI_Errhandler* errhandler);

/* ---- the Sessions model (MPI-4.0 §11.3); docs/mpi.md, "Sessions", says more.
   A session gives access to MPI without MPI_Init: its process sets are "mpi://WORLD"
   (every rank of the job) and "mpi://SELF" (the caller); MPI_Group_from_session_pset
   makes a group of one, MPI_Comm_create_from_group a communicator of a group. The
   rank's MPI resources (device, connections) are shared by MPI_Init and every open
   session: the first of MPI_Init / MPI_Session_init makes them, which is collective
   over every rank of the job (as MPI_Init is), and the last of MPI_Finalize / the last
   MPI_Session_finalize releases them, which is collective over every rank too (it
   returns once every rank has reached its own release). MPI cannot be initialized
   again after that in the same process: MPI_Session_init then fails with
   MPI_ERR_UNSUPPORTED_OPERATION. MPI_Initialized and MPI_Finalized keep their
   World-model meaning: a program that uses only sessions is not "initialized".
   MPI_COMM_WORLD and MPI_COMM_SELF exist only between MPI_Init and MPI_Finalize (else
   MPI_ERR_COMM).
   Errors of the MPI_Session_* calls go to the session's error handler
   (MPI_ERRORS_ARE_FATAL unless MPI_Session_init or MPI_Session_set_errhandler said
   otherwise), those of MPI_Session_init to its errhandler argument; an invalid session
   handle is an error without an object (MPI_COMM_WORLD's handler between MPI_Init and
   MPI_Finalize, else fatal). */
typedef void MPI_Session_errhandler_function(MPI_Session* session, int* errorcode, ...);
/* info may hold "thread_level" ("MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE"; MPI_ERR_INFO_VALUE
   for another value): the session provides at most MPI_THREAD_FUNNELED, as MPI_Init_thread
   does, and MPI_THREAD_SINGLE when the key is absent. errhandler is predefined or made by
   MPI_Session_create_errhandler (MPI_ERR_ARG else). */
TWINFAB_MPI_API int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session);
/* Sets *session to MPI_SESSION_NULL. Collective over every rank of the job when it is
   the rank's last use of MPI (no other session open, and MPI_Finalize called or
   MPI_Init never called): see above. Objects made from the session that were not freed
   live on while the rank's MPI resources do. */
TWINFAB_MPI_API int MPI_Session_finalize(MPI_Session* session);
/* A new info object (the caller frees it) with "thread_level", the level provided. */
TWINFAB_MPI_API int MPI_Session_get_info(MPI_Session session, MPI_Info* info_used);
/* 2: "mpi://WORLD" (n = 0) and "mpi://SELF" (n = 1). info is MPI_INFO_NULL or an info
   object (its hints are ignored). */
TWINFAB_MPI_API int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names);
/* *pset_len 0: sets it to the size the name needs (terminator included) and leaves
   pset_name alone; else copies at most *pset_len - 1 characters and a terminator, and
   sets *pset_len to the size needed. MPI_ERR_ARG for n outside [0, npset_names). */
TWINFAB_MPI_API int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len,
                                             char* pset_name);
/* A new info object (the caller frees it) with "mpi_size", the process set's size.
   Process set names compare without regard to case, as in MPICH ("mpi://self" works);
   MPI_ERR_ARG for a name that is no process set. */
TWINFAB_MPI_API int MPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info);
TWINFAB_MPI_API int MPI_Group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup);
/* Collective over the members of group (which must include the caller: MPI_ERR_GROUP
   else), with no parent communicator; MPI_GROUP_EMPTY gives MPI_COMM_NULL at once. The
   members agree on the new communicator by point-to-point messages whose tags derive
   from stringtag (at most MPI_MAX_STRINGTAG_LEN - 1 characters, MPI_ERR_ARG else), so
   that members that disagree on the stringtag, or make two calls in different orders,
   never build a communicator together (the calls block; the simulator reports the
   deadlock). The new communicator's error handler is errhandler (a communicator one
   or predefined); info is MPI_INFO_NULL or an info object (hints ignored). Errors go to
   errhandler. Works in the World model too (any group of MPI_COMM_WORLD's ranks). */
TWINFAB_MPI_API int MPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                                               MPI_Errhandler errhandler, MPI_Comm* newcomm);
/* Session error handlers (MPI-4.0 §9.3.4): may be made before MPI_Session_init, and
   freed with MPI_Errhandler_free. A handler made for sessions cannot be set on a
   communicator, nor a communicator's on a session (MPI_ERR_ARG). */
TWINFAB_MPI_API int MPI_Session_create_errhandler(MPI_Session_errhandler_function* session_errhandler_fn,
                                                  MPI_Errhandler* errhandler);
TWINFAB_MPI_API int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler);
/* A new handle to the session's handler, to be freed with MPI_Errhandler_free. */
TWINFAB_MPI_API int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler);
/* Calls the session's handler with errorcode; returns MPI_SUCCESS when it returns. */
TWINFAB_MPI_API int MPI_Session_call_errhandler(MPI_Session session, int errorcode);

/* ---- communicators and groups */
TWINFAB_MPI_API int MPI_Comm_rank(MPI_Comm comm, int* rank);
TWINFAB_MPI_API int MPI_Comm_size(MPI_Comm comm, int* size);
TWINFAB_MPI_API int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm);
TWINFAB_MPI_API int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm);
TWINFAB_MPI_API int MPI_Comm_free(MPI_Comm* comm);
TWINFAB_MPI_API int MPI_Comm_group(MPI_Comm comm, MPI_Group* group);
TWINFAB_MPI_API int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result);
/* Intercommunicators (MPI-3.1 §6.6). Point-to-point on an intercommunicator names
   ranks of the remote group; MPI_Comm_dup, MPI_Comm_split and MPI_Comm_create take one
   and make one; MPI_Comm_remote_size and MPI_Comm_remote_group fail with MPI_ERR_COMM
   on an intracommunicator. */
TWINFAB_MPI_API int MPI_Comm_test_inter(MPI_Comm comm, int* flag);
TWINFAB_MPI_API int MPI_Comm_remote_size(MPI_Comm comm, int* size);
TWINFAB_MPI_API int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group);
TWINFAB_MPI_API int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                         int remote_leader, int tag, MPI_Comm* newintercomm);
TWINFAB_MPI_API int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm);
/* Collective over comm; ranks outside group get MPI_COMM_NULL. */
TWINFAB_MPI_API int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm);
/* Collective over the members of group only (a subset of comm's); a caller outside
   group gets MPI_COMM_NULL at once. */
TWINFAB_MPI_API int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm);
/* Nonblocking MPI_Comm_dup: *newcomm is valid once *request completes (MPI_ERR_COMM
   before). The error handler is inherited and the attributes are copied at the call.
   MPI_Comm_idup_with_info (MPI-4.0) checks info and ignores its hints. */
TWINFAB_MPI_API int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm,
                                            MPI_Request* request);
/* split_type MPI_COMM_TYPE_SHARED (the ranks of one host), MPI_UNDEFINED, or MPI-4.0's
   hardware types, whose one level here is the host:
   - MPI_COMM_TYPE_HW_GUIDED with info key "mpi_hw_resource_type" = "mpi_shared_memory"
     (or hwloc's "machine") is MPI_COMM_TYPE_SHARED; any other value, no such key or
     MPI_INFO_NULL gives MPI_COMM_NULL (MPI-4.0 §7.4.2);
   - MPI_COMM_TYPE_HW_UNGUIDED gives the ranks of the caller's host when that is a
     strict subset of comm, and sets "mpi_hw_resource_type" = "mpi_shared_memory" in
     info (unless MPI_INFO_NULL); MPI_COMM_NULL when comm lies on one host.
   Other hints of info are ignored. */
TWINFAB_MPI_API int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm);
/* Communicator hints: none is used, so all are ignored (as MPICH ignores keys it does
   not know), and MPI_Comm_get_info gives a new, empty info object (the caller frees
   it). MPI_INFO_NULL is accepted wherever hints are. */
TWINFAB_MPI_API int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm);
TWINFAB_MPI_API int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
TWINFAB_MPI_API int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used);
TWINFAB_MPI_API int MPI_Comm_set_name(MPI_Comm comm, const char* comm_name);
TWINFAB_MPI_API int MPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen);
/* Group constructors return MPI_GROUP_EMPTY for an empty result. */
TWINFAB_MPI_API int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup);
TWINFAB_MPI_API int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup);
TWINFAB_MPI_API int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup);
TWINFAB_MPI_API int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup);
TWINFAB_MPI_API int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup);
TWINFAB_MPI_API int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup);
TWINFAB_MPI_API int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup);
TWINFAB_MPI_API int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result);
TWINFAB_MPI_API int MPI_Group_free(MPI_Group* group);
TWINFAB_MPI_API int MPI_Group_size(MPI_Group group, int* size);
TWINFAB_MPI_API int MPI_Group_rank(MPI_Group group, int* rank);
TWINFAB_MPI_API int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                                              int ranks2[]);

/* ---- attribute caching on communicators (MPI-3.1 §6.7). attribute_val_out of a copy
   callback is a void** in disguise: the callback stores the new attribute's value there
   and sets *flag to 1 to attach it to the new communicator (0: not copied).
   MPI_Comm_dup and MPI_Comm_dup_with_info call the copy callbacks (in the order the
   attributes were set); MPI_Comm_free, MPI_Comm_delete_attr and MPI_Comm_set_attr
   over an existing value call the delete callback; MPI_Finalize deletes the
   attributes of MPI_COMM_SELF, then those of MPI_COMM_WORLD, before anything else.
   Deletions of a whole communicator's attributes go in the reverse order of setting.
   A callback that returns anything but MPI_SUCCESS makes the call fail with that code
   (the attribute it was called for stays). A freed keyval stays alive for the
   attributes that still use it. As in MPICH, the null callbacks are null pointers and
   MPI_COMM_DUP_FN a function of the library. */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void* attribute_val, void* extra_state);
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function*)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function*)0)
/* Copies the value unchanged (*flag = 1). */
TWINFAB_MPI_API int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void* extra_state, void* attribute_val_in,
                                    void* attribute_val_out, int* flag);
TWINFAB_MPI_API int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                                           MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                                           void* extra_state);
/* Sets *comm_keyval to MPI_KEYVAL_INVALID. */
TWINFAB_MPI_API int MPI_Comm_free_keyval(int* comm_keyval);
TWINFAB_MPI_API int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val);
/* attribute_val is a void**: it receives the value (flag 1), or is left alone (flag 0). */
TWINFAB_MPI_API int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag);
/* Deleting a key that has no value on comm does nothing (as in MPICH). */
TWINFAB_MPI_API int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
/* The MPI-1 names, deprecated since MPI-2.0 and still provided by MPICH and Open MPI:
   the same functions and callbacks under other names. */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_NULL_COPY_FN ((MPI_Copy_function*)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function*)0)
TWINFAB_MPI_API int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void* extra_state, void* attribute_val_in,
                               void* attribute_val_out, int* flag) TWINFAB_MPI_DEPRECATED_SINCE_MPI2("MPI_COMM_DUP_FN");
TWINFAB_MPI_API int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                                      void* extra_state) TWINFAB_MPI_DEPRECATED_SINCE_MPI2("MPI_Comm_create_keyval");
TWINFAB_MPI_API int MPI_Keyval_free(int* keyval) TWINFAB_MPI_DEPRECATED_SINCE_MPI2("MPI_Comm_free_keyval");
TWINFAB_MPI_API int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val)
    TWINFAB_MPI_DEPRECATED_SINCE_MPI2("MPI_Comm_set_attr");
TWINFAB_MPI_API int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag)
    TWINFAB_MPI_DEPRECATED_SINCE_MPI2("MPI_Comm_get_attr");
TWINFAB_MPI_API int MPI_Attr_delete(MPI_Comm comm, int keyval)
    TWINFAB_MPI_DEPRECATED_SINCE_MPI2("MPI_Comm_delete_attr");

/* ---- attributes on datatypes (MPI-3.1 §6.7.4): the rules of the communicator
   attributes above, for datatype handles. MPI_Type_dup runs the copy callbacks;
   MPI_Type_free, MPI_Type_delete_attr and MPI_Type_set_attr over an existing value run
   the delete callbacks. Predefined datatypes can carry attributes too. Keyvals of
   MPI_Type_create_keyval are 0xa4c00000 + an index; a communicator keyval given to a
   datatype function (or the reverse) is MPI_ERR_KEYVAL. */
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval, void* attribute_val,
                                          void* extra_state);
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function*)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function*)0)
/* Copies the value unchanged (*flag = 1). */
TWINFAB_MPI_API int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int type_keyval, void* extra_state, void* attribute_val_in,
                                    void* attribute_val_out, int* flag);
TWINFAB_MPI_API int MPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                                           MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                                           void* extra_state);
/* Sets *type_keyval to MPI_KEYVAL_INVALID. */
TWINFAB_MPI_API int MPI_Type_free_keyval(int* type_keyval);
TWINFAB_MPI_API int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val);
/* attribute_val is a void**: it receives the value (flag 1), or is left alone (flag 0). */
TWINFAB_MPI_API int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag);
TWINFAB_MPI_API int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);

/* ---- info objects (MPI-3.1 §9). Keys are kept in the order they were first set
   (MPI_Info_get_nthkey); setting a key again replaces its value in place. In C,
   MPI_Info_get's value buffer holds valuelen characters plus the terminator. */
TWINFAB_MPI_API int MPI_Info_create(MPI_Info* info);
TWINFAB_MPI_API int MPI_Info_set(MPI_Info info, const char* key, const char* value);
TWINFAB_MPI_API int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag);
TWINFAB_MPI_API int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag);
TWINFAB_MPI_API int MPI_Info_get_nkeys(MPI_Info info, int* nkeys);
TWINFAB_MPI_API int MPI_Info_get_nthkey(MPI_Info info, int n, char* key);
TWINFAB_MPI_API int MPI_Info_delete(MPI_Info info, const char* key);
TWINFAB_MPI_API int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo);
TWINFAB_MPI_API int MPI_Info_free(MPI_Info* info);

/* ---- Cartesian topologies. reorder is ignored (allowed by MPI): rank r of comm_old is
   rank r of the grid. */
TWINFAB_MPI_API int MPI_Dims_create(int nnodes, int ndims, int dims[]);
TWINFAB_MPI_API int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                                    MPI_Comm* comm_cart);
TWINFAB_MPI_API int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
TWINFAB_MPI_API int MPI_Cartdim_get(MPI_Comm comm, int* ndims);
TWINFAB_MPI_API int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank);
TWINFAB_MPI_API int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
TWINFAB_MPI_API int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest);
TWINFAB_MPI_API int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm);
TWINFAB_MPI_API int MPI_Topo_test(MPI_Comm comm, int* status);
/* MPICH's and Open MPI's trivial mapping, the one MPI_Cart_create uses (reorder is
   ignored): the caller's rank, or MPI_UNDEFINED when it is outside the grid. */
TWINFAB_MPI_API int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank);

/* ---- graph topologies. reorder is ignored: rank r of comm_old is node r; ranks from
   nnodes on get MPI_COMM_NULL. MPI_Graph_map is MPICH's trivial mapping (the rank, or
   MPI_UNDEFINED from nnodes on). */
TWINFAB_MPI_API int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                                     int reorder, MPI_Comm* comm_graph);
TWINFAB_MPI_API int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges);
TWINFAB_MPI_API int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
TWINFAB_MPI_API int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors);
TWINFAB_MPI_API int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
TWINFAB_MPI_API int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank);

/* ---- distributed graph topologies. reorder is ignored (same ranks as comm_old); the
   info hints too. The weights are declared as pointers, not arrays: they may be
   MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY, which GCC would otherwise warn about as
   arrays of size 0 (-Wstringop-overflow). */
TWINFAB_MPI_API int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                                   const int* sourceweights, int outdegree,
                                                   const int destinations[], const int* destweights, MPI_Info info,
                                                   int reorder, MPI_Comm* comm_dist_graph);
TWINFAB_MPI_API int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                          const int destinations[], const int* weights, MPI_Info info,
                                          int reorder, MPI_Comm* comm_dist_graph);
TWINFAB_MPI_API int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted);
TWINFAB_MPI_API int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int* sourceweights,
                                             int maxoutdegree, int destinations[], int* destweights);

/* ---- point-to-point */
TWINFAB_MPI_API int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                             MPI_Status* status);
TWINFAB_MPI_API int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                              MPI_Request* request);
TWINFAB_MPI_API int MPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request);
TWINFAB_MPI_API int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                              MPI_Request* request);
/* Ready mode: a standard send (the matching receive is posted, as the caller asserts). */
TWINFAB_MPI_API int MPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request);
/* Buffered mode: the message is packed into the buffer the program attached and sent
   from there; MPI_Bsend returns at once. Each message takes its packed size plus
   MPI_BSEND_OVERHEAD bytes of the buffer until it is delivered. */
#define MPI_BSEND_OVERHEAD 96
TWINFAB_MPI_API int MPI_Buffer_attach(void* buffer, int size);
TWINFAB_MPI_API int MPI_Buffer_detach(void* buffer_addr, int* size);
TWINFAB_MPI_API int MPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
/* Its request is complete once the message is in the attached buffer, as MPI_Bsend
   returns then. */
TWINFAB_MPI_API int MPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request);
TWINFAB_MPI_API int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                                 MPI_Comm comm, MPI_Status* status);
/* The message in buf is sent and replaced by the one received: buf's (count,
   datatype) elements are packed into a temporary buffer first, as MPICH does. */
TWINFAB_MPI_API int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                         int source, int recvtag, MPI_Comm comm, MPI_Status* status);
/* MPI-4.0 nonblocking forms: the request completes when both the send and the
   receive have, with the receive's status. The _replace form packs buf's elements
   into a temporary at the call, so the buffer may be overwritten by the incoming
   message at any time until the request completes. MPI_Cancel leaves them to
   complete (as a send here). */
TWINFAB_MPI_API int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                                  MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                          int source, int recvtag, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Wait(MPI_Request* request, MPI_Status* status);
TWINFAB_MPI_API int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status* array_of_statuses);
TWINFAB_MPI_API int MPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status);
TWINFAB_MPI_API int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[]);
TWINFAB_MPI_API int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status);
/* MPI_Test without completing: a done request stays valid (flag 1 and its status)
   until MPI_Wait, MPI_Test or MPI_Request_free. */
TWINFAB_MPI_API int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status);
TWINFAB_MPI_API int MPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag,
                                MPI_Status* status);
TWINFAB_MPI_API int MPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[]);
TWINFAB_MPI_API int MPI_Testall(int count, MPI_Request array_of_requests[], int* flag,
                                MPI_Status* array_of_statuses);
TWINFAB_MPI_API int MPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                                  MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                                   MPI_Comm comm, MPI_Request* request);
/* MPI_Start of a buffered one packs the message into the attached buffer (as
   MPI_Bsend; MPI_ERR_BUFFER there); a ready one is a standard send, as MPI_Rsend. */
TWINFAB_MPI_API int MPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                                   MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                                   MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                                  MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Start(MPI_Request* request);
TWINFAB_MPI_API int MPI_Startall(int count, MPI_Request array_of_requests[]);
TWINFAB_MPI_API int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
TWINFAB_MPI_API int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status);
/* Matched probe and receive: the message found is taken out of the matching; only
 * MPI_Mrecv / MPI_Imrecv of the returned handle receive it. */
TWINFAB_MPI_API int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status);
TWINFAB_MPI_API int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                                MPI_Status* status);
TWINFAB_MPI_API int MPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status);
TWINFAB_MPI_API int MPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                               MPI_Request* request);
TWINFAB_MPI_API int MPI_Request_free(MPI_Request* request);
TWINFAB_MPI_API int MPI_Cancel(MPI_Request* request);
TWINFAB_MPI_API int MPI_Test_cancelled(const MPI_Status* status, int* flag);
TWINFAB_MPI_API int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count);
TWINFAB_MPI_API int MPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count);
TWINFAB_MPI_API int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count);
/* For a generalized request's query_fn (and any status the program fills): what
   MPI_Test_cancelled, MPI_Get_elements and MPI_Get_count then report. count is in
   basic elements of datatype, as MPI_Get_elements counts them. */
TWINFAB_MPI_API int MPI_Status_set_cancelled(MPI_Status* status, int flag);
TWINFAB_MPI_API int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count);
TWINFAB_MPI_API int MPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count);

/* ---- generalized requests (MPI-3.1 section 12.2). The request completes when the
   program calls MPI_Grequest_complete; the wait or test that then reports it calls
   query_fn to fill the status, then free_fn (MPI_Request_free: free_fn once both it
   and MPI_Grequest_complete were called); MPI_Cancel calls cancel_fn with whether
   it was completed. A callback's nonzero return is the call's error (MPI_ERR_IN_STATUS
   from the calls that complete several requests, with MPI_ERROR of its status). No
   thread completes them here: a wait on one the program has not completed waits
   forever (in twinfab sim: "simulation deadlocked"). */
typedef int MPI_Grequest_query_function(void* extra_state, MPI_Status* status);
typedef int MPI_Grequest_free_function(void* extra_state);
typedef int MPI_Grequest_cancel_function(void* extra_state, int complete);
TWINFAB_MPI_API int MPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                                       MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                                       MPI_Request* request);
TWINFAB_MPI_API int MPI_Grequest_complete(MPI_Request request);

/* ---- datatypes */
TWINFAB_MPI_API int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                    MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                                     const int array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                           MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                            const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                            MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                                 MPI_Datatype oldtype, MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                                  MPI_Datatype oldtype, MPI_Datatype* newtype);
/* order MPI_ORDER_C or MPI_ORDER_FORTRAN. The type's lower bound is 0 and its extent
   that of the whole array, so count > 1 means consecutive whole arrays. */
TWINFAB_MPI_API int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                                            const int array_of_starts[], int order, MPI_Datatype oldtype,
                                            MPI_Datatype* newtype);
/* The part of a global array (array_of_gsizes, in `order`) that process `rank` of a
   row-major grid array_of_psizes of `size` processes holds: per dimension
   MPI_DISTRIBUTE_BLOCK (darg: the block size, MPI_DISTRIBUTE_DFLT_DARG for
   ceil(gsize / psize)), MPI_DISTRIBUTE_CYCLIC (darg: the cyclic block size, default 1)
   or MPI_DISTRIBUTE_NONE (psize 1). Lower bound 0, extent the whole global array's.
   MPI_ERR_ARG for a bad size, array entry or grid (its product must be size),
   MPI_ERR_RANK for rank outside [0, size), MPI_ERR_DIMS for ndims < 1. */
TWINFAB_MPI_API int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                          const int array_of_distribs[], const int array_of_dargs[],
                                          const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                          MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                          const MPI_Aint array_of_displacements[],
                                          const MPI_Datatype array_of_types[], MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                           MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent);
TWINFAB_MPI_API int MPI_Get_address(const void* location, MPI_Aint* address);
/* Address arithmetic (MPI-3.1 §4.1.12): base + disp, and addr1 - addr2, as addresses of
   one flat address space (all twinfab platforms have one). Usable at any time. */
TWINFAB_MPI_API MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
TWINFAB_MPI_API MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
/* MPI-1 names that MPI-3.0 removed, kept as MPICH and MVAPICH2 keep them (HPL and
   HPCC call them): the same as MPI_Get_address and MPI_Type_create_struct. */
TWINFAB_MPI_API int MPI_Address(void* location, MPI_Aint* address) TWINFAB_MPI_REMOVED_IN_MPI3("MPI_Get_address");
TWINFAB_MPI_API int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                                    MPI_Datatype array_of_types[], MPI_Datatype* newtype)
    TWINFAB_MPI_REMOVED_IN_MPI3("MPI_Type_create_struct");
TWINFAB_MPI_API int MPI_Type_commit(MPI_Datatype* datatype);
TWINFAB_MPI_API int MPI_Type_free(MPI_Datatype* datatype);
TWINFAB_MPI_API int MPI_Type_size(MPI_Datatype datatype, int* size);
TWINFAB_MPI_API int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent);
TWINFAB_MPI_API int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size);
TWINFAB_MPI_API int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent);
TWINFAB_MPI_API int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent);
/* How a type was made (MPI-3.1 §4.1.13): its MPI_COMBINER_* and how many integer,
   address and datatype arguments MPI_Type_get_contents returns (0, 0, 0 for a
   predefined type, combiner MPI_COMBINER_NAMED). */
TWINFAB_MPI_API int MPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                         int* num_datatypes, int* combiner);
/* The arguments a derived type was made from, in the standard's order for its
   combiner. A derived input type comes back as a new handle to it, which the caller
   frees (freeing it leaves the type it was made from alone); a predefined one as
   itself. MPI_ERR_ARG for a predefined type and for arrays shorter than
   MPI_Type_get_envelope's counts. */
TWINFAB_MPI_API int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                         int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                                         MPI_Datatype array_of_datatypes[]);
TWINFAB_MPI_API int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen);
TWINFAB_MPI_API int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name);
TWINFAB_MPI_API int MPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
                             int* position, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                               MPI_Datatype datatype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size);
/* Pack and unpack in a portable representation (MPI-3.1 §4.2, §13.5.2). The only
   datarep is "external32" (big-endian, IEEE, the sizes of the standard's Table 13.2:
   e.g. MPI_LONG 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE 16 as IEEE binary128); any other
   is MPI_ERR_ARG. A value that does not fit its external32 size (a long beyond 32 bits)
   is MPI_ERR_CONVERSION. Too small a buffer is MPI_ERR_TRUNCATE. */
TWINFAB_MPI_API int MPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype,
                                      void* outbuf, MPI_Aint outsize, MPI_Aint* position);
TWINFAB_MPI_API int MPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                                        MPI_Aint* position, void* outbuf, int outcount, MPI_Datatype datatype);
TWINFAB_MPI_API int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                           MPI_Aint* size);

/* ---- reduction operations (MPI-3.1 §5.9.5, §5.9.7). A user function computes
 * inoutvec[i] = invec[i] op inoutvec[i] for *len elements of *datatype, the handle
 * the reduction was called with (a derived one included: *len counts its elements).
 * A non-commutative op (commute = 0) is applied in rank order. */
typedef void MPI_User_function(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);
TWINFAB_MPI_API int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op);
/* MPI-4.0's large-count user function: len is an MPI_Count, and a reduction hands it
   the whole count in one call. */
typedef void MPI_User_function_c(void* invec, void* inoutvec, MPI_Count* len, MPI_Datatype* datatype);
TWINFAB_MPI_API int MPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op);
TWINFAB_MPI_API int MPI_Op_free(MPI_Op* op);
TWINFAB_MPI_API int MPI_Op_commutative(MPI_Op op, int* commute);
TWINFAB_MPI_API int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                                     MPI_Op op);

/* ---- collectives */
TWINFAB_MPI_API int MPI_Barrier(MPI_Comm comm);
TWINFAB_MPI_API int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               int root, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm);
TWINFAB_MPI_API int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                MPI_Comm comm);
TWINFAB_MPI_API int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                 int root, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                   MPI_Comm comm);
TWINFAB_MPI_API int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
/* Alltoallv with a datatype per rank and displacements in bytes (sendbuf may be
   MPI_IN_PLACE: the outgoing blocks are recvbuf's). */
TWINFAB_MPI_API int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
TWINFAB_MPI_API int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm);
TWINFAB_MPI_API int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm);

/* ---- nonblocking collectives (MPI-3.1 §5.12): the algorithms of the blocking ones,
 * advanced by every MPI call the rank makes (any wait, test or probe) until the
 * request completes through MPI_Wait/MPI_Test and their variants. Any number may be
 * in flight on a communicator, started in the same order on every rank. Their
 * requests cannot be cancelled or freed (MPI_ERR_REQUEST), as MPI specifies. */
TWINFAB_MPI_API int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                               MPI_Request* request);
TWINFAB_MPI_API int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                int root, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                   MPI_Request* request);
TWINFAB_MPI_API int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, MPI_Request* request);

/* ---- neighbourhood collectives (MPI-3.1 §7.6) on Cartesian, graph and distributed
 * graph communicators (MPI_ERR_TOPOLOGY on others): one block per source (receive
 * side) and per destination (send side); on a Cartesian grid, for each dimension the
 * negative then the positive neighbour, MPI_PROC_NULL ones keeping their (untouched)
 * blocks. No MPI_IN_PLACE. The MPI_Ineighbor_* forms are nonblocking collectives. */
TWINFAB_MPI_API int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                            void* recvbuf, const int recvcounts[], const int displs[],
                                            MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
TWINFAB_MPI_API int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                            MPI_Request* request);
TWINFAB_MPI_API int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                             void* recvbuf, const int recvcounts[], const int displs[],
                                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                            MPI_Request* request);
TWINFAB_MPI_API int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                            MPI_Request* request);

/* ---- persistent collectives (MPI-4.0 §6.13): MPI_X_init takes MPI_X's arguments, an
   info (hints checked, none used) and gives an inactive request; MPI_Start and
   MPI_Startall run the collective with those arguments, MPI_Wait/MPI_Test complete it
   (the request stays, inactive), MPI_Request_free of an inactive one frees it. They
   match by init order, so members may start them in different orders. */
TWINFAB_MPI_API int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                   MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                    int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request);
TWINFAB_MPI_API int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request);
TWINFAB_MPI_API int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                       MPI_Request* request);
TWINFAB_MPI_API int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                      MPI_Request* request);
TWINFAB_MPI_API int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                     MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                      int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                       MPI_Request* request);
TWINFAB_MPI_API int MPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                       MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* request);
TWINFAB_MPI_API int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                  MPI_Request* request);
TWINFAB_MPI_API int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                    MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                                void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                                MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                                 void* recvbuf, const int recvcounts[], const int displs[],
                                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                                 MPI_Request* request);
TWINFAB_MPI_API int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                               MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                                MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                                const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                                MPI_Comm comm, MPI_Info info, MPI_Request* request);

/* ---- large counts (MPI-4.0 §5.2.2): MPI_X_c is MPI_X with MPI_Count counts, sizes and
   positions, and MPI_Aint displacements of the v-collectives (MPI_Count ones of the
   datatype constructors). The library's counts are 64-bit throughout.
   MPI_Type_get_envelope_c / MPI_Type_get_contents_c give a type built by an MPI_X_c
   constructor its MPI_Count arguments as large counts (MPI-4.0 §5.1.13), one built by
   an int constructor its arguments as MPI_Type_get_contents does. */
/* point-to-point and statuses */
TWINFAB_MPI_API int MPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count);
TWINFAB_MPI_API int MPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count);
TWINFAB_MPI_API int MPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                               MPI_Comm comm);
TWINFAB_MPI_API int MPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                MPI_Comm comm);
TWINFAB_MPI_API int MPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                MPI_Request* request);
TWINFAB_MPI_API int MPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                               MPI_Status* status);
TWINFAB_MPI_API int MPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                                   int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                                   int recvtag, MPI_Comm comm, MPI_Status* status);
TWINFAB_MPI_API int MPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                           int source, int recvtag, MPI_Comm comm, MPI_Status* status);
TWINFAB_MPI_API int MPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                                MPI_Status* status);
TWINFAB_MPI_API int MPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                                 MPI_Request* request);
/* buffered and ready sends, the attached buffer */
TWINFAB_MPI_API int MPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                MPI_Comm comm);
TWINFAB_MPI_API int MPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                MPI_Comm comm);
TWINFAB_MPI_API int MPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                 MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Buffer_attach_c(void* buffer, MPI_Count size);
TWINFAB_MPI_API int MPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size);
/* MPI_Isendrecv */
TWINFAB_MPI_API int MPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                                    int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                                    int recvtag, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                            int source, int recvtag, MPI_Comm comm, MPI_Request* request);
/* persistent point-to-point */
TWINFAB_MPI_API int MPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                    MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                     MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                     MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                                     MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                                    MPI_Comm comm, MPI_Request* request);
/* statuses */
TWINFAB_MPI_API int MPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count);
/* datatypes and packing */
TWINFAB_MPI_API int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                                      MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                              MPI_Datatype oldtype, MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                       MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                               MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                    const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                                    MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                                     MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                             const MPI_Count array_of_displacements[],
                                             const MPI_Datatype array_of_types[], MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                               const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[],
                                               int order, MPI_Datatype oldtype, MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                                             const int array_of_distribs[], const int array_of_dargs[],
                                             const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                             MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                              MPI_Datatype* newtype);
TWINFAB_MPI_API int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                                            MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner);
TWINFAB_MPI_API int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                                            MPI_Count max_large_counts, MPI_Count max_datatypes,
                                            int array_of_integers[], MPI_Aint array_of_addresses[],
                                            MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]);
TWINFAB_MPI_API int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size);
TWINFAB_MPI_API int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent);
TWINFAB_MPI_API int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent);
TWINFAB_MPI_API int MPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                               MPI_Count outsize, MPI_Count* position, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                                 MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size);
/* external32 */
TWINFAB_MPI_API int MPI_Pack_external_c(const char datarep[], const void* inbuf, MPI_Count incount,
                                        MPI_Datatype datatype, void* outbuf, MPI_Count outsize, MPI_Count* position);
TWINFAB_MPI_API int MPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize,
                                          MPI_Count* position, void* outbuf, MPI_Count outcount, MPI_Datatype datatype);
TWINFAB_MPI_API int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                                             MPI_Count* size);
/* reductions */
TWINFAB_MPI_API int MPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                                       MPI_Op op);
/* collectives: blocking, nonblocking, neighbourhood and persistent */
TWINFAB_MPI_API int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                 int root, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                  int root, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                   MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   int root, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                     MPI_Comm comm);
TWINFAB_MPI_API int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                    MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                    const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
TWINFAB_MPI_API int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm);
TWINFAB_MPI_API int MPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                 MPI_Comm comm);
TWINFAB_MPI_API int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                 MPI_Request* request);
TWINFAB_MPI_API int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                  int root, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                     MPI_Op op, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                  MPI_Request* request);
TWINFAB_MPI_API int MPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                   MPI_Request* request);
TWINFAB_MPI_API int MPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                   int root, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    int root, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                     MPI_Request* request);
TWINFAB_MPI_API int MPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                     MPI_Request* request);
TWINFAB_MPI_API int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                              void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                              MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                            void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                             const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                             MPI_Datatype recvtype, MPI_Comm comm);
TWINFAB_MPI_API int MPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                             const MPI_Datatype recvtypes[], MPI_Comm comm);
TWINFAB_MPI_API int MPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                              MPI_Request* request);
TWINFAB_MPI_API int MPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                               void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                             MPI_Request* request);
TWINFAB_MPI_API int MPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request);
TWINFAB_MPI_API int MPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                     MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                      MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                      MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                       MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                         MPI_Request* request);
TWINFAB_MPI_API int MPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                        MPI_Request* request);
TWINFAB_MPI_API int MPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                       int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                        MPI_Request* request);
TWINFAB_MPI_API int MPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                          void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                         MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                         MPI_Request* request);
TWINFAB_MPI_API int MPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                         const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                         MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                              MPI_Request* request);
TWINFAB_MPI_API int MPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                    MPI_Request* request);
TWINFAB_MPI_API int MPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                                  MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                                   void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                                   MPI_Request* request);
TWINFAB_MPI_API int MPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                                 void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                                 MPI_Comm comm, MPI_Info info, MPI_Request* request);
TWINFAB_MPI_API int MPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                                  const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                                  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                                  MPI_Request* request);
TWINFAB_MPI_API int MPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                                  void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                                  const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                                  MPI_Request* request);


/* ---- one-sided communication (MPI-3.1 chapter 11; mpi/rma, docs/rma.md). Windows live
   in the unified memory model. How operations move data (TWINFAB_RMA=rdma|sendrecv) and
   the passive-target lock design (TWINFAB_RMA_LOCK=ts|progress|auto) are run-time
   parameters; every design gives the semantics below. Errors: MPI_ERR_RMA_SYNC for a
   call outside its epoch (an operation without fence/start/lock, an unlock without lock,
   a complete without start, MPI_Win_free with an epoch open), MPI_ERR_RMA_RANGE for a
   target range outside the target's window (checked at the origin; for a dynamic
   window reported at the next flush, unlock, complete or fence), MPI_ERR_RMA_ATTACH for
   an overlapping attach, MPI_ERR_OP for a user-defined op or an op not defined on the
   type, MPI_ERR_TYPE for types whose basic elements differ, MPI_ERR_WIN for a bad
   handle. A window's errors go to its error handler (MPI_ERRORS_ARE_FATAL at creation). */
typedef void MPI_Win_errhandler_function(MPI_Win* win, int* errorcode, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn; /* the MPI-2.0 name */

#define MPI_WIN_BASE 0x66000001
#define MPI_WIN_SIZE 0x66000003
#define MPI_WIN_DISP_UNIT 0x66000005
#define MPI_WIN_CREATE_FLAVOR 0x66000007
#define MPI_WIN_MODEL 0x66000009

#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235

TWINFAB_MPI_API int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                   MPI_Win* win);
TWINFAB_MPI_API int MPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                     MPI_Win* win);
TWINFAB_MPI_API int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                     MPI_Win* win);
TWINFAB_MPI_API int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                       void* baseptr, MPI_Win* win);
/* The members must all be on one host (MPI_ERR_RMA_SHARED else): one POSIX shared-memory
   segment holds every member's part, contiguous in rank order. */
TWINFAB_MPI_API int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                            void* baseptr, MPI_Win* win);
TWINFAB_MPI_API int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                              void* baseptr, MPI_Win* win);
TWINFAB_MPI_API int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr);
TWINFAB_MPI_API int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit,
                                           void* baseptr);
TWINFAB_MPI_API int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win);
TWINFAB_MPI_API int MPI_Win_attach(MPI_Win win, void* base, MPI_Aint size);
TWINFAB_MPI_API int MPI_Win_detach(MPI_Win win, const void* base);
TWINFAB_MPI_API int MPI_Win_free(MPI_Win* win);
TWINFAB_MPI_API int MPI_Win_get_group(MPI_Win win, MPI_Group* group);
/* Attributes on windows (MPI-3.1 §6.7.3): the rules of the communicator attributes. The
   predefined keys (MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR, _MODEL) can be read
   only. Keyvals of MPI_Win_create_keyval are 0xa4800000 + an index. MPI_Win_free runs the
   delete callbacks. */
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void* extra_state, void* attribute_val_in,
                                       void* attribute_val_out, int* flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void* attribute_val, void* extra_state);
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function*)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function*)0)
/* Copies the value unchanged (*flag = 1). */
TWINFAB_MPI_API int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void* extra_state, void* attribute_val_in,
                                   void* attribute_val_out, int* flag);
TWINFAB_MPI_API int MPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                                          MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                                          void* extra_state);
TWINFAB_MPI_API int MPI_Win_free_keyval(int* win_keyval);
TWINFAB_MPI_API int MPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val);
TWINFAB_MPI_API int MPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag);
TWINFAB_MPI_API int MPI_Win_delete_attr(MPI_Win win, int win_keyval);
TWINFAB_MPI_API int MPI_Win_set_name(MPI_Win win, const char* win_name);
TWINFAB_MPI_API int MPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen);
TWINFAB_MPI_API int MPI_Win_set_info(MPI_Win win, MPI_Info info);
TWINFAB_MPI_API int MPI_Win_get_info(MPI_Win win, MPI_Info* info_used);
TWINFAB_MPI_API int MPI_Win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn,
                                              MPI_Errhandler* errhandler);
TWINFAB_MPI_API int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
TWINFAB_MPI_API int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler);
TWINFAB_MPI_API int MPI_Win_call_errhandler(MPI_Win win, int errorcode);

TWINFAB_MPI_API int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
TWINFAB_MPI_API int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
TWINFAB_MPI_API int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                   int target_rank, MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
TWINFAB_MPI_API int MPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                       void* result_addr, int result_count, MPI_Datatype result_datatype,
                                       int target_rank, MPI_Aint target_disp, int target_count,
                                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
TWINFAB_MPI_API int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
TWINFAB_MPI_API int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win);
TWINFAB_MPI_API int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                             MPI_Request* request);
TWINFAB_MPI_API int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                             MPI_Request* request);
TWINFAB_MPI_API int MPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                    int target_rank, MPI_Aint target_disp, int target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request);
TWINFAB_MPI_API int MPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                        void* result_addr, int result_count, MPI_Datatype result_datatype,
                                        int target_rank, MPI_Aint target_disp, int target_count,
                                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request);
TWINFAB_MPI_API int MPI_Put_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                              MPI_Datatype target_datatype, MPI_Win win);
TWINFAB_MPI_API int MPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                              MPI_Datatype target_datatype, MPI_Win win);
TWINFAB_MPI_API int MPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
TWINFAB_MPI_API int MPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                         MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                                         MPI_Win win);
TWINFAB_MPI_API int MPI_Rput_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                               MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request);
TWINFAB_MPI_API int MPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                               MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request);
TWINFAB_MPI_API int MPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request);
TWINFAB_MPI_API int MPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                          MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                                          MPI_Win win, MPI_Request* request);

TWINFAB_MPI_API int MPI_Win_fence(int assert, MPI_Win win);
TWINFAB_MPI_API int MPI_Win_post(MPI_Group group, int assert, MPI_Win win);
TWINFAB_MPI_API int MPI_Win_start(MPI_Group group, int assert, MPI_Win win);
TWINFAB_MPI_API int MPI_Win_complete(MPI_Win win);
TWINFAB_MPI_API int MPI_Win_wait(MPI_Win win);
TWINFAB_MPI_API int MPI_Win_test(MPI_Win win, int* flag);
TWINFAB_MPI_API int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
TWINFAB_MPI_API int MPI_Win_unlock(int rank, MPI_Win win);
TWINFAB_MPI_API int MPI_Win_lock_all(int assert, MPI_Win win);
TWINFAB_MPI_API int MPI_Win_unlock_all(MPI_Win win);
TWINFAB_MPI_API int MPI_Win_flush(int rank, MPI_Win win);
TWINFAB_MPI_API int MPI_Win_flush_all(MPI_Win win);
TWINFAB_MPI_API int MPI_Win_flush_local(int rank, MPI_Win win);
TWINFAB_MPI_API int MPI_Win_flush_local_all(MPI_Win win);
TWINFAB_MPI_API int MPI_Win_sync(MPI_Win win);

/* ---- The tools information interface, MPI_T (MPI-3.1 §14.3; mpi/capi/tools_interface.cpp,
   docs/mpi.md "Tools interface (MPI_T)"). Callable before MPI_Init and after MPI_Finalize
   once MPI_T_init_thread ran (reference counted with MPI_T_finalize); anything else is
   MPI_T_ERR_NOT_INITIALIZED. Every function returns its error code and never calls an
   MPI error handler; a refused call changes nothing.
   - Control variables: one per TWINFAB_* parameter, named as the environment variable,
     MPI_T_SCOPE_ALL_EQ, bound to no object. Before MPI_Init a read gives the default
     with the environment applied, and a write (checked as the environment's value would
     be: MPI_T_ERR_INVALID when refused) is what MPI_Init uses, winning over the
     environment. Every rank must write the same values (writing different ones on
     different ranks is erroneous). After MPI_Init reads give what the rank runs with
     and writes are MPI_T_ERR_CVAR_SET_NOT_NOW; after MPI_Finalize reads still give it,
     writes are MPI_T_ERR_CVAR_SET_NEVER.
   - Performance variables: the rank's protocol, channel and registration-cache
     counters (continuous; resettable per handle: a handle reads what happened since it
     was allocated or reset; MPI_T_pvar_write is MPI_T_ERR_PVAR_NO_WRITE) and the
     matching queues' lengths (read-only levels). They belong to the rank's MPI state:
     MPI_T_pvar_handle_alloc, read, reset and readreset are MPI_T_ERR_INVALID before
     MPI_Init and after MPI_Finalize (sessions can be made and freed at any time).
   - Categories are fixed: MPI_T_category_changed always gives the same stamp.
   Handles are opaque values private to the calling rank, never reused. */
typedef struct twinfab_mpi_t_enum* MPI_T_enum;
typedef struct twinfab_mpi_t_cvar_handle* MPI_T_cvar_handle;
typedef struct twinfab_mpi_t_pvar_handle* MPI_T_pvar_handle;
typedef struct twinfab_mpi_t_pvar_session* MPI_T_pvar_session;
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
/* start, stop and reset every handle of a session */
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)1)

/* Verbosity levels, increasing in this order; binding, scope and class values (MPICH's). */
enum {
  MPI_T_VERBOSITY_USER_BASIC = 221,
  MPI_T_VERBOSITY_USER_DETAIL = 222,
  MPI_T_VERBOSITY_USER_ALL = 223,
  MPI_T_VERBOSITY_TUNER_BASIC = 224,
  MPI_T_VERBOSITY_TUNER_DETAIL = 225,
  MPI_T_VERBOSITY_TUNER_ALL = 226,
  MPI_T_VERBOSITY_MPIDEV_BASIC = 227,
  MPI_T_VERBOSITY_MPIDEV_DETAIL = 228,
  MPI_T_VERBOSITY_MPIDEV_ALL = 229
};
enum {
  MPI_T_BIND_NO_OBJECT = 9700,
  MPI_T_BIND_MPI_COMM = 9701,
  MPI_T_BIND_MPI_DATATYPE = 9702,
  MPI_T_BIND_MPI_ERRHANDLER = 9703,
  MPI_T_BIND_MPI_FILE = 9704,
  MPI_T_BIND_MPI_GROUP = 9705,
  MPI_T_BIND_MPI_OP = 9706,
  MPI_T_BIND_MPI_REQUEST = 9707,
  MPI_T_BIND_MPI_WIN = 9708,
  MPI_T_BIND_MPI_MESSAGE = 9709,
  MPI_T_BIND_MPI_INFO = 9710
};
enum {
  MPI_T_SCOPE_CONSTANT = 60438,
  MPI_T_SCOPE_READONLY = 60439,
  MPI_T_SCOPE_LOCAL = 60440,
  MPI_T_SCOPE_GROUP = 60441,
  MPI_T_SCOPE_GROUP_EQ = 60442,
  MPI_T_SCOPE_ALL = 60443,
  MPI_T_SCOPE_ALL_EQ = 60444
};
enum {
  MPI_T_PVAR_CLASS_STATE = 240,
  MPI_T_PVAR_CLASS_LEVEL = 241,
  MPI_T_PVAR_CLASS_SIZE = 242,
  MPI_T_PVAR_CLASS_PERCENTAGE = 243,
  MPI_T_PVAR_CLASS_HIGHWATERMARK = 244,
  MPI_T_PVAR_CLASS_LOWWATERMARK = 245,
  MPI_T_PVAR_CLASS_COUNTER = 246,
  MPI_T_PVAR_CLASS_AGGREGATE = 247,
  MPI_T_PVAR_CLASS_TIMER = 248,
  MPI_T_PVAR_CLASS_GENERIC = 249
};

/* Initialization and finalization (§14.3.4). *provided is at most MPI_THREAD_FUNNELED,
   as for MPI_Init_thread; MPI_T_ERR_INVALID for a bad level or a null pointer, and
   MPI_T_ERR_CANNOT_INIT when, before MPI_Init, a TWINFAB_* environment variable has a
   value MPI_Init would refuse. MPI_T_finalize more often than MPI_T_init_thread is
   MPI_T_ERR_NOT_INITIALIZED; the last one frees every session and handle. */
TWINFAB_MPI_API int MPI_T_init_thread(int required, int* provided);
TWINFAB_MPI_API int MPI_T_finalize(void);

/* Enumerations (§14.3.5): MPI_T_ERR_INVALID_HANDLE for anything but an enumeration
   a variable's information gave, MPI_T_ERR_INVALID_ITEM for an item index outside
   [0, num). Strings follow §14.3.3: *len in is the buffer's size, out the string's
   length + 1; a null buffer or a zero length returns the length only. */
TWINFAB_MPI_API int MPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len);
TWINFAB_MPI_API int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name, int* name_len);

/* Control variables (§14.3.6). Indices outside [0, num) are MPI_T_ERR_INVALID_INDEX,
   unknown names MPI_T_ERR_INVALID_NAME, null required pointers MPI_T_ERR_INVALID,
   unknown or freed handles MPI_T_ERR_INVALID_HANDLE. obj_handle is ignored (no
   variable is bound to an object); count is 1. */
TWINFAB_MPI_API int MPI_T_cvar_get_num(int* num_cvar);
TWINFAB_MPI_API int MPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity,
                                        MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len,
                                        int* bind, int* scope);
TWINFAB_MPI_API int MPI_T_cvar_get_index(const char* name, int* cvar_index);
TWINFAB_MPI_API int MPI_T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle,
                                            int* count);
TWINFAB_MPI_API int MPI_T_cvar_handle_free(MPI_T_cvar_handle* handle);
TWINFAB_MPI_API int MPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf);
TWINFAB_MPI_API int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf);

/* Performance variables (§14.3.7). A handle belongs to the session it was allocated
   in (MPI_T_ERR_INVALID_HANDLE in another); freeing a session frees its handles.
   MPI_T_PVAR_ALL_HANDLES is accepted by start, stop and reset only. All variables are
   continuous: start and stop of one handle are MPI_T_ERR_PVAR_NO_STARTSTOP. Reset of a
   read-only variable is MPI_T_ERR_PVAR_NO_WRITE, readreset of a variable that is not
   atomic MPI_T_ERR_PVAR_NO_ATOMIC. */
TWINFAB_MPI_API int MPI_T_pvar_get_num(int* num_pvar);
TWINFAB_MPI_API int MPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                                        MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len,
                                        int* bind, int* readonly, int* continuous, int* atomic);
TWINFAB_MPI_API int MPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index);
TWINFAB_MPI_API int MPI_T_pvar_session_create(MPI_T_pvar_session* session);
TWINFAB_MPI_API int MPI_T_pvar_session_free(MPI_T_pvar_session* session);
TWINFAB_MPI_API int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* obj_handle,
                                            MPI_T_pvar_handle* handle, int* count);
TWINFAB_MPI_API int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle);
TWINFAB_MPI_API int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
TWINFAB_MPI_API int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
TWINFAB_MPI_API int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf);
TWINFAB_MPI_API int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf);
TWINFAB_MPI_API int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
TWINFAB_MPI_API int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf);

/* Categories (§14.3.8). get_cvars, get_pvars and get_categories write the first
   min(len, number) indices (MPI_T_ERR_INVALID for len < 0, or a null array when
   len > 0). */
TWINFAB_MPI_API int MPI_T_category_get_num(int* num_cat);
TWINFAB_MPI_API int MPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len,
                                            int* num_cvars, int* num_pvars, int* num_categories);
TWINFAB_MPI_API int MPI_T_category_get_index(const char* name, int* cat_index);
TWINFAB_MPI_API int MPI_T_category_get_cvars(int cat_index, int len, int indices[]);
TWINFAB_MPI_API int MPI_T_category_get_pvars(int cat_index, int len, int indices[]);
TWINFAB_MPI_API int MPI_T_category_get_categories(int cat_index, int len, int indices[]);
TWINFAB_MPI_API int MPI_T_category_changed(int* stamp);

/* ---- The profiling interface (MPI-3.1 §14.2): every function above is also
   PMPI_<name>, the same function under a second name. A tool defines MPI_<name> in the
   program or in a library loaded before twinfab's, does its work, and calls PMPI_<name>.
   The library's own calls between MPI functions may be seen by the tool too (MPI
   allows either). The declarations take each function's type from its MPI_ one. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define TWINFAB_PMPI(name) TWINFAB_MPI_API __typeof__(name) P##name;
TWINFAB_PMPI(MPI_Abort)
TWINFAB_PMPI(MPI_Accumulate)
TWINFAB_PMPI(MPI_Accumulate_c)
TWINFAB_PMPI(MPI_Add_error_class)
TWINFAB_PMPI(MPI_Add_error_code)
TWINFAB_PMPI(MPI_Add_error_string)
TWINFAB_PMPI(MPI_Address)
TWINFAB_PMPI(MPI_Aint_add)
TWINFAB_PMPI(MPI_Aint_diff)
TWINFAB_PMPI(MPI_Allgather)
TWINFAB_PMPI(MPI_Allgather_c)
TWINFAB_PMPI(MPI_Allgather_init)
TWINFAB_PMPI(MPI_Allgather_init_c)
TWINFAB_PMPI(MPI_Allgatherv)
TWINFAB_PMPI(MPI_Allgatherv_c)
TWINFAB_PMPI(MPI_Allgatherv_init)
TWINFAB_PMPI(MPI_Allgatherv_init_c)
TWINFAB_PMPI(MPI_Alloc_mem)
TWINFAB_PMPI(MPI_Allreduce)
TWINFAB_PMPI(MPI_Allreduce_c)
TWINFAB_PMPI(MPI_Allreduce_init)
TWINFAB_PMPI(MPI_Allreduce_init_c)
TWINFAB_PMPI(MPI_Alltoall)
TWINFAB_PMPI(MPI_Alltoall_c)
TWINFAB_PMPI(MPI_Alltoall_init)
TWINFAB_PMPI(MPI_Alltoall_init_c)
TWINFAB_PMPI(MPI_Alltoallv)
TWINFAB_PMPI(MPI_Alltoallv_c)
TWINFAB_PMPI(MPI_Alltoallv_init)
TWINFAB_PMPI(MPI_Alltoallv_init_c)
TWINFAB_PMPI(MPI_Alltoallw)
TWINFAB_PMPI(MPI_Alltoallw_c)
TWINFAB_PMPI(MPI_Alltoallw_init)
TWINFAB_PMPI(MPI_Alltoallw_init_c)
TWINFAB_PMPI(MPI_Attr_delete)
TWINFAB_PMPI(MPI_Attr_get)
TWINFAB_PMPI(MPI_Attr_put)
TWINFAB_PMPI(MPI_Barrier)
TWINFAB_PMPI(MPI_Barrier_init)
TWINFAB_PMPI(MPI_Bcast)
TWINFAB_PMPI(MPI_Bcast_c)
TWINFAB_PMPI(MPI_Bcast_init)
TWINFAB_PMPI(MPI_Bcast_init_c)
TWINFAB_PMPI(MPI_Bsend)
TWINFAB_PMPI(MPI_Bsend_c)
TWINFAB_PMPI(MPI_Bsend_init)
TWINFAB_PMPI(MPI_Bsend_init_c)
TWINFAB_PMPI(MPI_Buffer_attach)
TWINFAB_PMPI(MPI_Buffer_attach_c)
TWINFAB_PMPI(MPI_Buffer_detach)
TWINFAB_PMPI(MPI_Buffer_detach_c)
TWINFAB_PMPI(MPI_COMM_DUP_FN)
TWINFAB_PMPI(MPI_Cancel)
TWINFAB_PMPI(MPI_Cart_coords)
TWINFAB_PMPI(MPI_Cart_create)
TWINFAB_PMPI(MPI_Cart_get)
TWINFAB_PMPI(MPI_Cart_map)
TWINFAB_PMPI(MPI_Cart_rank)
TWINFAB_PMPI(MPI_Cart_shift)
TWINFAB_PMPI(MPI_Cart_sub)
TWINFAB_PMPI(MPI_Cartdim_get)
TWINFAB_PMPI(MPI_Comm_c2f)
TWINFAB_PMPI(MPI_Comm_call_errhandler)
TWINFAB_PMPI(MPI_Comm_compare)
TWINFAB_PMPI(MPI_Comm_create)
TWINFAB_PMPI(MPI_Comm_create_errhandler)
TWINFAB_PMPI(MPI_Comm_create_from_group)
TWINFAB_PMPI(MPI_Comm_create_group)
TWINFAB_PMPI(MPI_Comm_create_keyval)
TWINFAB_PMPI(MPI_Comm_delete_attr)
TWINFAB_PMPI(MPI_Comm_dup)
TWINFAB_PMPI(MPI_Comm_dup_with_info)
TWINFAB_PMPI(MPI_Comm_f2c)
TWINFAB_PMPI(MPI_Comm_free)
TWINFAB_PMPI(MPI_Comm_free_keyval)
TWINFAB_PMPI(MPI_Comm_get_attr)
TWINFAB_PMPI(MPI_Comm_get_errhandler)
TWINFAB_PMPI(MPI_Comm_get_info)
TWINFAB_PMPI(MPI_Comm_get_name)
TWINFAB_PMPI(MPI_Comm_group)
TWINFAB_PMPI(MPI_Comm_idup)
TWINFAB_PMPI(MPI_Comm_idup_with_info)
TWINFAB_PMPI(MPI_Comm_rank)
TWINFAB_PMPI(MPI_Comm_remote_group)
TWINFAB_PMPI(MPI_Comm_remote_size)
TWINFAB_PMPI(MPI_Comm_set_attr)
TWINFAB_PMPI(MPI_Comm_set_errhandler)
TWINFAB_PMPI(MPI_Comm_set_info)
TWINFAB_PMPI(MPI_Comm_set_name)
TWINFAB_PMPI(MPI_Comm_size)
TWINFAB_PMPI(MPI_Comm_split)
TWINFAB_PMPI(MPI_Comm_split_type)
TWINFAB_PMPI(MPI_Comm_test_inter)
TWINFAB_PMPI(MPI_Compare_and_swap)
TWINFAB_PMPI(MPI_DUP_FN)
TWINFAB_PMPI(MPI_Dims_create)
TWINFAB_PMPI(MPI_Dist_graph_create)
TWINFAB_PMPI(MPI_Dist_graph_create_adjacent)
TWINFAB_PMPI(MPI_Dist_graph_neighbors)
TWINFAB_PMPI(MPI_Dist_graph_neighbors_count)
TWINFAB_PMPI(MPI_Errhandler_c2f)
TWINFAB_PMPI(MPI_Errhandler_f2c)
TWINFAB_PMPI(MPI_Errhandler_free)
TWINFAB_PMPI(MPI_Error_class)
TWINFAB_PMPI(MPI_Error_string)
TWINFAB_PMPI(MPI_Exscan)
TWINFAB_PMPI(MPI_Exscan_c)
TWINFAB_PMPI(MPI_Exscan_init)
TWINFAB_PMPI(MPI_Exscan_init_c)
TWINFAB_PMPI(MPI_Fetch_and_op)
TWINFAB_PMPI(MPI_Finalize)
TWINFAB_PMPI(MPI_Finalized)
TWINFAB_PMPI(MPI_Free_mem)
TWINFAB_PMPI(MPI_Gather)
TWINFAB_PMPI(MPI_Gather_c)
TWINFAB_PMPI(MPI_Gather_init)
TWINFAB_PMPI(MPI_Gather_init_c)
TWINFAB_PMPI(MPI_Gatherv)
TWINFAB_PMPI(MPI_Gatherv_c)
TWINFAB_PMPI(MPI_Gatherv_init)
TWINFAB_PMPI(MPI_Gatherv_init_c)
TWINFAB_PMPI(MPI_Get)
TWINFAB_PMPI(MPI_Get_accumulate)
TWINFAB_PMPI(MPI_Get_accumulate_c)
TWINFAB_PMPI(MPI_Get_address)
TWINFAB_PMPI(MPI_Get_c)
TWINFAB_PMPI(MPI_Get_count)
TWINFAB_PMPI(MPI_Get_count_c)
TWINFAB_PMPI(MPI_Get_elements)
TWINFAB_PMPI(MPI_Get_elements_c)
TWINFAB_PMPI(MPI_Get_elements_x)
TWINFAB_PMPI(MPI_Get_library_version)
TWINFAB_PMPI(MPI_Get_processor_name)
TWINFAB_PMPI(MPI_Get_version)
TWINFAB_PMPI(MPI_Graph_create)
TWINFAB_PMPI(MPI_Graph_get)
TWINFAB_PMPI(MPI_Graph_map)
TWINFAB_PMPI(MPI_Graph_neighbors)
TWINFAB_PMPI(MPI_Graph_neighbors_count)
TWINFAB_PMPI(MPI_Graphdims_get)
TWINFAB_PMPI(MPI_Grequest_complete)
TWINFAB_PMPI(MPI_Grequest_start)
TWINFAB_PMPI(MPI_Group_c2f)
TWINFAB_PMPI(MPI_Group_compare)
TWINFAB_PMPI(MPI_Group_difference)
TWINFAB_PMPI(MPI_Group_excl)
TWINFAB_PMPI(MPI_Group_f2c)
TWINFAB_PMPI(MPI_Group_free)
TWINFAB_PMPI(MPI_Group_from_session_pset)
TWINFAB_PMPI(MPI_Group_incl)
TWINFAB_PMPI(MPI_Group_intersection)
TWINFAB_PMPI(MPI_Group_range_excl)
TWINFAB_PMPI(MPI_Group_range_incl)
TWINFAB_PMPI(MPI_Group_rank)
TWINFAB_PMPI(MPI_Group_size)
TWINFAB_PMPI(MPI_Group_translate_ranks)
TWINFAB_PMPI(MPI_Group_union)
TWINFAB_PMPI(MPI_Iallgather)
TWINFAB_PMPI(MPI_Iallgather_c)
TWINFAB_PMPI(MPI_Iallgatherv)
TWINFAB_PMPI(MPI_Iallgatherv_c)
TWINFAB_PMPI(MPI_Iallreduce)
TWINFAB_PMPI(MPI_Iallreduce_c)
TWINFAB_PMPI(MPI_Ialltoall)
TWINFAB_PMPI(MPI_Ialltoall_c)
TWINFAB_PMPI(MPI_Ialltoallv)
TWINFAB_PMPI(MPI_Ialltoallv_c)
TWINFAB_PMPI(MPI_Ialltoallw)
TWINFAB_PMPI(MPI_Ialltoallw_c)
TWINFAB_PMPI(MPI_Ibarrier)
TWINFAB_PMPI(MPI_Ibcast)
TWINFAB_PMPI(MPI_Ibcast_c)
TWINFAB_PMPI(MPI_Ibsend)
TWINFAB_PMPI(MPI_Ibsend_c)
TWINFAB_PMPI(MPI_Iexscan)
TWINFAB_PMPI(MPI_Iexscan_c)
TWINFAB_PMPI(MPI_Igather)
TWINFAB_PMPI(MPI_Igather_c)
TWINFAB_PMPI(MPI_Igatherv)
TWINFAB_PMPI(MPI_Igatherv_c)
TWINFAB_PMPI(MPI_Improbe)
TWINFAB_PMPI(MPI_Imrecv)
TWINFAB_PMPI(MPI_Imrecv_c)
TWINFAB_PMPI(MPI_Ineighbor_allgather)
TWINFAB_PMPI(MPI_Ineighbor_allgather_c)
TWINFAB_PMPI(MPI_Ineighbor_allgatherv)
TWINFAB_PMPI(MPI_Ineighbor_allgatherv_c)
TWINFAB_PMPI(MPI_Ineighbor_alltoall)
TWINFAB_PMPI(MPI_Ineighbor_alltoall_c)
TWINFAB_PMPI(MPI_Ineighbor_alltoallv)
TWINFAB_PMPI(MPI_Ineighbor_alltoallv_c)
TWINFAB_PMPI(MPI_Ineighbor_alltoallw)
TWINFAB_PMPI(MPI_Ineighbor_alltoallw_c)
TWINFAB_PMPI(MPI_Info_c2f)
TWINFAB_PMPI(MPI_Info_create)
TWINFAB_PMPI(MPI_Info_delete)
TWINFAB_PMPI(MPI_Info_dup)
TWINFAB_PMPI(MPI_Info_f2c)
TWINFAB_PMPI(MPI_Info_free)
TWINFAB_PMPI(MPI_Info_get)
TWINFAB_PMPI(MPI_Info_get_nkeys)
TWINFAB_PMPI(MPI_Info_get_nthkey)
TWINFAB_PMPI(MPI_Info_get_valuelen)
TWINFAB_PMPI(MPI_Info_set)
TWINFAB_PMPI(MPI_Init)
TWINFAB_PMPI(MPI_Init_thread)
TWINFAB_PMPI(MPI_Initialized)
TWINFAB_PMPI(MPI_Intercomm_create)
TWINFAB_PMPI(MPI_Intercomm_merge)
TWINFAB_PMPI(MPI_Iprobe)
TWINFAB_PMPI(MPI_Irecv)
TWINFAB_PMPI(MPI_Irecv_c)
TWINFAB_PMPI(MPI_Ireduce)
TWINFAB_PMPI(MPI_Ireduce_c)
TWINFAB_PMPI(MPI_Ireduce_scatter)
TWINFAB_PMPI(MPI_Ireduce_scatter_block)
TWINFAB_PMPI(MPI_Ireduce_scatter_block_c)
TWINFAB_PMPI(MPI_Ireduce_scatter_c)
TWINFAB_PMPI(MPI_Irsend)
TWINFAB_PMPI(MPI_Irsend_c)
TWINFAB_PMPI(MPI_Is_thread_main)
TWINFAB_PMPI(MPI_Iscan)
TWINFAB_PMPI(MPI_Iscan_c)
TWINFAB_PMPI(MPI_Iscatter)
TWINFAB_PMPI(MPI_Iscatter_c)
TWINFAB_PMPI(MPI_Iscatterv)
TWINFAB_PMPI(MPI_Iscatterv_c)
TWINFAB_PMPI(MPI_Isend)
TWINFAB_PMPI(MPI_Isend_c)
TWINFAB_PMPI(MPI_Isendrecv)
TWINFAB_PMPI(MPI_Isendrecv_c)
TWINFAB_PMPI(MPI_Isendrecv_replace)
TWINFAB_PMPI(MPI_Isendrecv_replace_c)
TWINFAB_PMPI(MPI_Issend)
TWINFAB_PMPI(MPI_Issend_c)
TWINFAB_PMPI(MPI_Keyval_create)
TWINFAB_PMPI(MPI_Keyval_free)
TWINFAB_PMPI(MPI_Message_c2f)
TWINFAB_PMPI(MPI_Message_f2c)
TWINFAB_PMPI(MPI_Mprobe)
TWINFAB_PMPI(MPI_Mrecv)
TWINFAB_PMPI(MPI_Mrecv_c)
TWINFAB_PMPI(MPI_Neighbor_allgather)
TWINFAB_PMPI(MPI_Neighbor_allgather_c)
TWINFAB_PMPI(MPI_Neighbor_allgather_init)
TWINFAB_PMPI(MPI_Neighbor_allgather_init_c)
TWINFAB_PMPI(MPI_Neighbor_allgatherv)
TWINFAB_PMPI(MPI_Neighbor_allgatherv_c)
TWINFAB_PMPI(MPI_Neighbor_allgatherv_init)
TWINFAB_PMPI(MPI_Neighbor_allgatherv_init_c)
TWINFAB_PMPI(MPI_Neighbor_alltoall)
TWINFAB_PMPI(MPI_Neighbor_alltoall_c)
TWINFAB_PMPI(MPI_Neighbor_alltoall_init)
TWINFAB_PMPI(MPI_Neighbor_alltoall_init_c)
TWINFAB_PMPI(MPI_Neighbor_alltoallv)
TWINFAB_PMPI(MPI_Neighbor_alltoallv_c)
TWINFAB_PMPI(MPI_Neighbor_alltoallv_init)
TWINFAB_PMPI(MPI_Neighbor_alltoallv_init_c)
TWINFAB_PMPI(MPI_Neighbor_alltoallw)
TWINFAB_PMPI(MPI_Neighbor_alltoallw_c)
TWINFAB_PMPI(MPI_Neighbor_alltoallw_init)
TWINFAB_PMPI(MPI_Neighbor_alltoallw_init_c)
TWINFAB_PMPI(MPI_Op_c2f)
TWINFAB_PMPI(MPI_Op_commutative)
TWINFAB_PMPI(MPI_Op_create)
TWINFAB_PMPI(MPI_Op_create_c)
TWINFAB_PMPI(MPI_Op_f2c)
TWINFAB_PMPI(MPI_Op_free)
TWINFAB_PMPI(MPI_Pack)
TWINFAB_PMPI(MPI_Pack_c)
TWINFAB_PMPI(MPI_Pack_external)
TWINFAB_PMPI(MPI_Pack_external_c)
TWINFAB_PMPI(MPI_Pack_external_size)
TWINFAB_PMPI(MPI_Pack_external_size_c)
TWINFAB_PMPI(MPI_Pack_size)
TWINFAB_PMPI(MPI_Pack_size_c)
TWINFAB_PMPI(MPI_Pcontrol)
TWINFAB_PMPI(MPI_Probe)
TWINFAB_PMPI(MPI_Put)
TWINFAB_PMPI(MPI_Put_c)
TWINFAB_PMPI(MPI_Query_thread)
TWINFAB_PMPI(MPI_Raccumulate)
TWINFAB_PMPI(MPI_Raccumulate_c)
TWINFAB_PMPI(MPI_Recv)
TWINFAB_PMPI(MPI_Recv_c)
TWINFAB_PMPI(MPI_Recv_init)
TWINFAB_PMPI(MPI_Recv_init_c)
TWINFAB_PMPI(MPI_Reduce)
TWINFAB_PMPI(MPI_Reduce_c)
TWINFAB_PMPI(MPI_Reduce_init)
TWINFAB_PMPI(MPI_Reduce_init_c)
TWINFAB_PMPI(MPI_Reduce_local)
TWINFAB_PMPI(MPI_Reduce_local_c)
TWINFAB_PMPI(MPI_Reduce_scatter)
TWINFAB_PMPI(MPI_Reduce_scatter_block)
TWINFAB_PMPI(MPI_Reduce_scatter_block_c)
TWINFAB_PMPI(MPI_Reduce_scatter_block_init)
TWINFAB_PMPI(MPI_Reduce_scatter_block_init_c)
TWINFAB_PMPI(MPI_Reduce_scatter_c)
TWINFAB_PMPI(MPI_Reduce_scatter_init)
TWINFAB_PMPI(MPI_Reduce_scatter_init_c)
TWINFAB_PMPI(MPI_Request_c2f)
TWINFAB_PMPI(MPI_Request_f2c)
TWINFAB_PMPI(MPI_Request_free)
TWINFAB_PMPI(MPI_Request_get_status)
TWINFAB_PMPI(MPI_Rget)
TWINFAB_PMPI(MPI_Rget_accumulate)
TWINFAB_PMPI(MPI_Rget_accumulate_c)
TWINFAB_PMPI(MPI_Rget_c)
TWINFAB_PMPI(MPI_Rput)
TWINFAB_PMPI(MPI_Rput_c)
TWINFAB_PMPI(MPI_Rsend)
TWINFAB_PMPI(MPI_Rsend_c)
TWINFAB_PMPI(MPI_Rsend_init)
TWINFAB_PMPI(MPI_Rsend_init_c)
TWINFAB_PMPI(MPI_Scan)
TWINFAB_PMPI(MPI_Scan_c)
TWINFAB_PMPI(MPI_Scan_init)
TWINFAB_PMPI(MPI_Scan_init_c)
TWINFAB_PMPI(MPI_Scatter)
TWINFAB_PMPI(MPI_Scatter_c)
TWINFAB_PMPI(MPI_Scatter_init)
TWINFAB_PMPI(MPI_Scatter_init_c)
TWINFAB_PMPI(MPI_Scatterv)
TWINFAB_PMPI(MPI_Scatterv_c)
TWINFAB_PMPI(MPI_Scatterv_init)
TWINFAB_PMPI(MPI_Scatterv_init_c)
TWINFAB_PMPI(MPI_Send)
TWINFAB_PMPI(MPI_Send_c)
TWINFAB_PMPI(MPI_Send_init)
TWINFAB_PMPI(MPI_Send_init_c)
TWINFAB_PMPI(MPI_Sendrecv)
TWINFAB_PMPI(MPI_Sendrecv_c)
TWINFAB_PMPI(MPI_Sendrecv_replace)
TWINFAB_PMPI(MPI_Sendrecv_replace_c)
TWINFAB_PMPI(MPI_Session_c2f)
TWINFAB_PMPI(MPI_Session_call_errhandler)
TWINFAB_PMPI(MPI_Session_create_errhandler)
TWINFAB_PMPI(MPI_Session_f2c)
TWINFAB_PMPI(MPI_Session_finalize)
TWINFAB_PMPI(MPI_Session_get_errhandler)
TWINFAB_PMPI(MPI_Session_get_info)
TWINFAB_PMPI(MPI_Session_get_nth_pset)
TWINFAB_PMPI(MPI_Session_get_num_psets)
TWINFAB_PMPI(MPI_Session_get_pset_info)
TWINFAB_PMPI(MPI_Session_init)
TWINFAB_PMPI(MPI_Session_set_errhandler)
TWINFAB_PMPI(MPI_Ssend)
TWINFAB_PMPI(MPI_Ssend_c)
TWINFAB_PMPI(MPI_Ssend_init)
TWINFAB_PMPI(MPI_Ssend_init_c)
TWINFAB_PMPI(MPI_Start)
TWINFAB_PMPI(MPI_Startall)
TWINFAB_PMPI(MPI_Status_c2f)
TWINFAB_PMPI(MPI_Status_f2c)
TWINFAB_PMPI(MPI_Status_set_cancelled)
TWINFAB_PMPI(MPI_Status_set_elements)
TWINFAB_PMPI(MPI_Status_set_elements_c)
TWINFAB_PMPI(MPI_Status_set_elements_x)
TWINFAB_PMPI(MPI_TYPE_DUP_FN)
TWINFAB_PMPI(MPI_T_category_changed)
TWINFAB_PMPI(MPI_T_category_get_categories)
TWINFAB_PMPI(MPI_T_category_get_cvars)
TWINFAB_PMPI(MPI_T_category_get_index)
TWINFAB_PMPI(MPI_T_category_get_info)
TWINFAB_PMPI(MPI_T_category_get_num)
TWINFAB_PMPI(MPI_T_category_get_pvars)
TWINFAB_PMPI(MPI_T_cvar_get_index)
TWINFAB_PMPI(MPI_T_cvar_get_info)
TWINFAB_PMPI(MPI_T_cvar_get_num)
TWINFAB_PMPI(MPI_T_cvar_handle_alloc)
TWINFAB_PMPI(MPI_T_cvar_handle_free)
TWINFAB_PMPI(MPI_T_cvar_read)
TWINFAB_PMPI(MPI_T_cvar_write)
TWINFAB_PMPI(MPI_T_enum_get_info)
TWINFAB_PMPI(MPI_T_enum_get_item)
TWINFAB_PMPI(MPI_T_finalize)
TWINFAB_PMPI(MPI_T_init_thread)
TWINFAB_PMPI(MPI_T_pvar_get_index)
TWINFAB_PMPI(MPI_T_pvar_get_info)
TWINFAB_PMPI(MPI_T_pvar_get_num)
TWINFAB_PMPI(MPI_T_pvar_handle_alloc)
TWINFAB_PMPI(MPI_T_pvar_handle_free)
TWINFAB_PMPI(MPI_T_pvar_read)
TWINFAB_PMPI(MPI_T_pvar_readreset)
TWINFAB_PMPI(MPI_T_pvar_reset)
TWINFAB_PMPI(MPI_T_pvar_session_create)
TWINFAB_PMPI(MPI_T_pvar_session_free)
TWINFAB_PMPI(MPI_T_pvar_start)
TWINFAB_PMPI(MPI_T_pvar_stop)
TWINFAB_PMPI(MPI_T_pvar_write)
TWINFAB_PMPI(MPI_Test)
TWINFAB_PMPI(MPI_Test_cancelled)
TWINFAB_PMPI(MPI_Testall)
TWINFAB_PMPI(MPI_Testany)
TWINFAB_PMPI(MPI_Testsome)
TWINFAB_PMPI(MPI_Topo_test)
TWINFAB_PMPI(MPI_Type_c2f)
TWINFAB_PMPI(MPI_Type_commit)
TWINFAB_PMPI(MPI_Type_contiguous)
TWINFAB_PMPI(MPI_Type_contiguous_c)
TWINFAB_PMPI(MPI_Type_create_darray)
TWINFAB_PMPI(MPI_Type_create_darray_c)
TWINFAB_PMPI(MPI_Type_create_hindexed)
TWINFAB_PMPI(MPI_Type_create_hindexed_block)
TWINFAB_PMPI(MPI_Type_create_hindexed_block_c)
TWINFAB_PMPI(MPI_Type_create_hindexed_c)
TWINFAB_PMPI(MPI_Type_create_hvector)
TWINFAB_PMPI(MPI_Type_create_hvector_c)
TWINFAB_PMPI(MPI_Type_create_indexed_block)
TWINFAB_PMPI(MPI_Type_create_indexed_block_c)
TWINFAB_PMPI(MPI_Type_create_keyval)
TWINFAB_PMPI(MPI_Type_create_resized)
TWINFAB_PMPI(MPI_Type_create_resized_c)
TWINFAB_PMPI(MPI_Type_create_struct)
TWINFAB_PMPI(MPI_Type_create_struct_c)
TWINFAB_PMPI(MPI_Type_create_subarray)
TWINFAB_PMPI(MPI_Type_create_subarray_c)
TWINFAB_PMPI(MPI_Type_delete_attr)
TWINFAB_PMPI(MPI_Type_dup)
TWINFAB_PMPI(MPI_Type_f2c)
TWINFAB_PMPI(MPI_Type_free)
TWINFAB_PMPI(MPI_Type_free_keyval)
TWINFAB_PMPI(MPI_Type_get_attr)
TWINFAB_PMPI(MPI_Type_get_contents)
TWINFAB_PMPI(MPI_Type_get_contents_c)
TWINFAB_PMPI(MPI_Type_get_envelope)
TWINFAB_PMPI(MPI_Type_get_envelope_c)
TWINFAB_PMPI(MPI_Type_get_extent)
TWINFAB_PMPI(MPI_Type_get_extent_c)
TWINFAB_PMPI(MPI_Type_get_extent_x)
TWINFAB_PMPI(MPI_Type_get_name)
TWINFAB_PMPI(MPI_Type_get_true_extent)
TWINFAB_PMPI(MPI_Type_get_true_extent_c)
TWINFAB_PMPI(MPI_Type_get_true_extent_x)
TWINFAB_PMPI(MPI_Type_indexed)
TWINFAB_PMPI(MPI_Type_indexed_c)
TWINFAB_PMPI(MPI_Type_set_attr)
TWINFAB_PMPI(MPI_Type_set_name)
TWINFAB_PMPI(MPI_Type_size)
TWINFAB_PMPI(MPI_Type_size_c)
TWINFAB_PMPI(MPI_Type_size_x)
TWINFAB_PMPI(MPI_Type_struct)
TWINFAB_PMPI(MPI_Type_vector)
TWINFAB_PMPI(MPI_Type_vector_c)
TWINFAB_PMPI(MPI_Unpack)
TWINFAB_PMPI(MPI_Unpack_c)
TWINFAB_PMPI(MPI_Unpack_external)
TWINFAB_PMPI(MPI_Unpack_external_c)
TWINFAB_PMPI(MPI_WIN_DUP_FN)
TWINFAB_PMPI(MPI_Wait)
TWINFAB_PMPI(MPI_Waitall)
TWINFAB_PMPI(MPI_Waitany)
TWINFAB_PMPI(MPI_Waitsome)
TWINFAB_PMPI(MPI_Win_allocate)
TWINFAB_PMPI(MPI_Win_allocate_c)
TWINFAB_PMPI(MPI_Win_allocate_shared)
TWINFAB_PMPI(MPI_Win_allocate_shared_c)
TWINFAB_PMPI(MPI_Win_attach)
TWINFAB_PMPI(MPI_Win_call_errhandler)
TWINFAB_PMPI(MPI_Win_complete)
TWINFAB_PMPI(MPI_Win_create)
TWINFAB_PMPI(MPI_Win_create_c)
TWINFAB_PMPI(MPI_Win_create_dynamic)
TWINFAB_PMPI(MPI_Win_create_errhandler)
TWINFAB_PMPI(MPI_Win_create_keyval)
TWINFAB_PMPI(MPI_Win_delete_attr)
TWINFAB_PMPI(MPI_Win_detach)
TWINFAB_PMPI(MPI_Win_fence)
TWINFAB_PMPI(MPI_Win_flush)
TWINFAB_PMPI(MPI_Win_flush_all)
TWINFAB_PMPI(MPI_Win_flush_local)
TWINFAB_PMPI(MPI_Win_flush_local_all)
TWINFAB_PMPI(MPI_Win_free)
TWINFAB_PMPI(MPI_Win_free_keyval)
TWINFAB_PMPI(MPI_Win_get_attr)
TWINFAB_PMPI(MPI_Win_get_errhandler)
TWINFAB_PMPI(MPI_Win_get_group)
TWINFAB_PMPI(MPI_Win_get_info)
TWINFAB_PMPI(MPI_Win_get_name)
TWINFAB_PMPI(MPI_Win_lock)
TWINFAB_PMPI(MPI_Win_lock_all)
TWINFAB_PMPI(MPI_Win_post)
TWINFAB_PMPI(MPI_Win_set_attr)
TWINFAB_PMPI(MPI_Win_set_errhandler)
TWINFAB_PMPI(MPI_Win_set_info)
TWINFAB_PMPI(MPI_Win_set_name)
TWINFAB_PMPI(MPI_Win_shared_query)
TWINFAB_PMPI(MPI_Win_shared_query_c)
TWINFAB_PMPI(MPI_Win_start)
TWINFAB_PMPI(MPI_Win_sync)
TWINFAB_PMPI(MPI_Win_test)
TWINFAB_PMPI(MPI_Win_unlock)
TWINFAB_PMPI(MPI_Win_unlock_all)
TWINFAB_PMPI(MPI_Win_wait)
TWINFAB_PMPI(MPI_Wtick)
TWINFAB_PMPI(MPI_Wtime)
#undef TWINFAB_PMPI
#pragma GCC diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* TWINFAB_MPI_H */
