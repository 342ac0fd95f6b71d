// twinfab MPI core: the MPI-3 error classes and the exception that carries one.
//
// Every check of user input in mpi/ ends in an mpi::Error: an error class (what the
// C API returns, with MPICH's numeric values so that programs printing codes see
// familiar numbers) and a message that names the function and the argument, e.g.
// "MPI_Send(dest=7): invalid rank; communicator has 4 ranks". The C API layer
// catches it at the boundary and hands it to the communicator's error handler.
//
// The enumerators deliberately carry the standard names (ErrorClass::MPI_ERR_TYPE).
// A translation unit that also includes an mpi.h defining those names as *macros*
// cannot name them: capi's mpi.h should declare its constants as a C enum generated
// from TWINFAB_MPI_ERROR_CLASS_LIST, or such units use the integer values.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace twinfab::mpi {

// X-macro list: name, value (MPICH's), text (MPICH's MPI_Error_string wording, typos
// fixed). One list, so that name, value and text never drift apart.
#define TWINFAB_MPI_ERROR_CLASS_LIST(X)                                                                 \
  X(MPI_SUCCESS, 0, "No MPI error")                                                                     \
  X(MPI_ERR_BUFFER, 1, "Invalid buffer pointer")                                                        \
  X(MPI_ERR_COUNT, 2, "Invalid count")                                                                  \
  X(MPI_ERR_TYPE, 3, "Invalid datatype")                                                                \
  X(MPI_ERR_TAG, 4, "Invalid tag")                                                                      \
  X(MPI_ERR_COMM, 5, "Invalid communicator")                                                            \
  X(MPI_ERR_RANK, 6, "Invalid rank")                                                                    \
  X(MPI_ERR_ROOT, 7, "Invalid root")                                                                    \
  X(MPI_ERR_GROUP, 8, "Invalid group")                                                                  \
  X(MPI_ERR_OP, 9, "Invalid MPI_Op")                                                                    \
  X(MPI_ERR_TOPOLOGY, 10, "Invalid topology")                                                           \
  X(MPI_ERR_DIMS, 11, "Invalid dimension argument")                                                     \
  X(MPI_ERR_ARG, 12, "Invalid argument")                                                                \
  X(MPI_ERR_UNKNOWN, 13, "Unknown error.  Please file a bug report.")                                   \
  X(MPI_ERR_TRUNCATE, 14, "Message truncated")                                                          \
  X(MPI_ERR_OTHER, 15, "Other MPI error")                                                               \
  X(MPI_ERR_INTERN, 16, "Internal MPI error!")                                                          \
  X(MPI_ERR_IN_STATUS, 17, "See the MPI_ERROR field in MPI_Status for the error code")                 \
  X(MPI_ERR_PENDING, 18, "Pending request (no error)")                                                  \
  X(MPI_ERR_REQUEST, 19, "Invalid MPI_Request")                                                         \
  X(MPI_ERR_ACCESS, 20, "Permission denied")                                                            \
  X(MPI_ERR_AMODE, 21, "Invalid file access mode")                                                      \
  X(MPI_ERR_BAD_FILE, 22, "Invalid file name")                                                          \
  X(MPI_ERR_CONVERSION, 23, "An error occurred in a user-defined data conversion function")            \
  X(MPI_ERR_DUP_DATAREP, 24, "Conversion functions could not be registered because a data "            \
                             "representation identifier that was already defined was passed to "       \
                             "MPI_REGISTER_DATAREP")                                                   \
  X(MPI_ERR_FILE_EXISTS, 25, "File exists")                                                             \
  X(MPI_ERR_FILE_IN_USE, 26, "File operation could not be completed, as the file is currently open "   \
                             "by some process")                                                        \
  X(MPI_ERR_FILE, 27, "Invalid MPI_File")                                                               \
  X(MPI_ERR_INFO, 28, "Invalid MPI_Info")                                                               \
  X(MPI_ERR_INFO_KEY, 29, "Invalid key for MPI_Info")                                                   \
  X(MPI_ERR_INFO_VALUE, 30, "Invalid MPI_Info value")                                                   \
  X(MPI_ERR_INFO_NOKEY, 31, "MPI_Info key is not defined")                                              \
  X(MPI_ERR_IO, 32, "Other I/O error")                                                                  \
  X(MPI_ERR_NAME, 33, "Invalid service name (see MPI_Publish_name)")                                    \
  X(MPI_ERR_NO_MEM, 34, "Alloc_mem could not allocate memory")                                          \
  X(MPI_ERR_NOT_SAME, 35, "Collective argument not identical on all processes, or collective "        \
                          "routines called in a different order by different processes")              \
  X(MPI_ERR_NO_SPACE, 36, "Not enough space for file")                                                  \
  X(MPI_ERR_NO_SUCH_FILE, 37, "File does not exist")                                                    \
  X(MPI_ERR_PORT, 38, "Invalid port")                                                                   \
  X(MPI_ERR_QUOTA, 39, "Quota exceeded for files")                                                      \
  X(MPI_ERR_READ_ONLY, 40, "Read-only file or filesystem name")                                         \
  X(MPI_ERR_SERVICE, 41, "Attempt to lookup an unknown service name")                                   \
  X(MPI_ERR_SPAWN, 42, "Error in spawn call")                                                           \
  X(MPI_ERR_UNSUPPORTED_DATAREP, 43, "Unsupported datarep passed to MPI_File_set_view")                 \
  X(MPI_ERR_UNSUPPORTED_OPERATION, 44, "Unsupported file operation")                                    \
  X(MPI_ERR_WIN, 45, "Invalid MPI_Win")                                                                 \
  X(MPI_ERR_BASE, 46, "Invalid base address")                                                           \
  X(MPI_ERR_LOCKTYPE, 47, "Invalid lock type")                                                          \
  X(MPI_ERR_KEYVAL, 48, "Invalid keyval")                                                               \
  X(MPI_ERR_RMA_CONFLICT, 49, "Conflicting accesses to window")                                         \
  X(MPI_ERR_RMA_SYNC, 50, "Wrong synchronization of RMA calls")                                         \
  X(MPI_ERR_SIZE, 51, "Invalid size argument")                                                          \
  X(MPI_ERR_DISP, 52, "Invalid displacement argument")                                                  \
  X(MPI_ERR_ASSERT, 53, "Invalid assert argument")                                                      \
  X(MPI_ERR_RMA_RANGE, 55, "Target memory is not part of the window (in the case of a window "        \
                           "created with MPI_WIN_CREATE_DYNAMIC, target memory is not attached)")      \
  X(MPI_ERR_RMA_ATTACH, 56, "Memory cannot be attached (e.g., because of resource exhaustion)")         \
  X(MPI_ERR_RMA_SHARED, 57, "Memory cannot be shared (e.g., some process in the group of the "         \
                            "specified communicator cannot expose shared memory)")                     \
  X(MPI_ERR_RMA_FLAVOR, 58, "Passed window has the wrong flavor for the called function")               \
  /* The return codes of the tools interface (MPI-3.1 14.3.9), texts from its table of them */       \
  X(MPI_T_ERR_MEMORY, 59, "Out of memory")                                                              \
  X(MPI_T_ERR_NOT_INITIALIZED, 60, "Interface not initialized")                                        \
  X(MPI_T_ERR_CANNOT_INIT, 61, "Interface not in the state to be initialized")                         \
  X(MPI_T_ERR_INVALID_INDEX, 62, "The index is invalid or has been deleted")                           \
  X(MPI_T_ERR_INVALID_ITEM, 63, "Item index queried is out of range")                                  \
  X(MPI_T_ERR_INVALID_HANDLE, 64, "The handle is invalid")                                             \
  X(MPI_T_ERR_OUT_OF_HANDLES, 65, "No more handles available")                                         \
  X(MPI_T_ERR_OUT_OF_SESSIONS, 66, "No more sessions available")                                       \
  X(MPI_T_ERR_INVALID_SESSION, 67, "Session argument is not a valid session")                          \
  X(MPI_T_ERR_CVAR_SET_NOT_NOW, 68, "Variable cannot be set at this moment")                           \
  X(MPI_T_ERR_CVAR_SET_NEVER, 69, "Variable cannot be set until end of execution")                     \
  X(MPI_T_ERR_PVAR_NO_STARTSTOP, 70, "Variable cannot be started or stopped")                          \
  X(MPI_T_ERR_PVAR_NO_WRITE, 71, "Variable cannot be written or reset")                                \
  X(MPI_T_ERR_PVAR_NO_ATOMIC, 72, "Variable cannot be read and written atomically")                    \
  X(MPI_T_ERR_INVALID_NAME, 73, "Name does not match")                                                 \
  X(MPI_T_ERR_INVALID, 74, "Invalid use of the interface or bad parameter value(s)")                   \
  X(MPI_ERR_SESSION, 75, "Invalid session")                                                           \
  X(MPI_ERR_LASTCODE, 0x3fffffff, "Last error code")

/// An MPI error class. The underlying value is the integer the C API returns.
enum class ErrorClass : int {
#define TWINFAB_MPI_ERROR_CLASS_ENUM(name, value, text) name = value,
  TWINFAB_MPI_ERROR_CLASS_LIST(TWINFAB_MPI_ERROR_CLASS_ENUM)
#undef TWINFAB_MPI_ERROR_CLASS_ENUM
};

/// The standard name, e.g. "MPI_ERR_TYPE".
std::string_view to_string(ErrorClass error_class) noexcept;
/// The MPI_Error_string text, e.g. "Invalid datatype".
std::string_view error_string(ErrorClass error_class) noexcept;
/// The class with this integer value, or MPI_ERR_UNKNOWN for a value that names no
/// class (so a C caller's garbage code still maps to something printable).
ErrorClass error_class_from_int(int value) noexcept;

/// The exception every argument check in mpi/ throws.
///
/// what() is "<where>: <detail>", where `where` names the MPI function and the
/// offending argument ("MPI_Send(dest=7)") and `detail` says what is wrong and, when
/// it helps, what the valid range is ("invalid rank; communicator has 4 ranks").
class Error : public std::runtime_error {
 public:
  Error(ErrorClass error_class, std::string_view where, std::string_view detail);

  ErrorClass error_class() const noexcept { return error_class_; }
  /// The integer the C API returns.
  int code() const noexcept { return static_cast<int>(error_class_); }

 private:
  ErrorClass error_class_;
};

/// Throws Error(MPI_ERR_OTHER, where, detail): a failure below MPI (the fabric, the
/// operating system) that no more precise MPI error class names.
[[noreturn]] void fail_other(std::string_view where, std::string_view detail);

}  // namespace twinfab::mpi
