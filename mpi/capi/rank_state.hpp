// twinfab MPI C API: one rank's C-API state, and the boundary every entry point crosses.
//
// RankState lives in the slot RankHost::state_slot() gives the calling rank (per
// SimGrid actor in the simulator, per process on hardware); there are no other
// mutable globals in mpi/capi besides the installed-host pointer (rank_host.cpp).
// It owns the rank's mpi::Context and the tables that turn the integer handles of
// mpi.h into the C++ objects: communicators (with their error handlers), groups,
// derived datatypes, user-defined reduction operations, user-defined error handlers,
// info objects (info_table.hpp), requests, and keyvals with the attributes attached to
// communicators (attributes.hpp); the sessions (session_table.hpp); and the tools
// interface's state (tools_interface.hpp).
//
// Every MPI_* function is `return entry("MPI_Send", comm, [&](RankState& s) {...});`:
// entry() checks that the rank has its Context, i.e. that MPI_Init or an
// MPI_Session_init was called and the last of MPI_Finalize / MPI_Session_finalize was
// not (else prints "MPI_Send called before MPI_Init or MPI_Session_init" and aborts, as
// MPICH does; lifecycle.hpp says who makes and releases the Context), runs the body, and
// turns an mpi::Error (or any other std::exception, e.g. a fabric::Error from the
// backend) into the error class, handed to the communicator's error handler:
// MPI_ERRORS_ARE_FATAL aborts the job through RankHost::abort, MPI_ERRORS_RETURN
// returns the class, a handler of MPI_Comm_create_errhandler is called and the class
// returned when it returns (raise()). Exceptions that are not std::exceptions are the runtime's
// unwinding of the rank (a SimGrid actor being killed, forced unwinding): those are
// let through, and the launcher that started the rank handles them.
// The few calls MPI allows at any time (the info calls, creating and freeing error
// handlers: MPI-4.0 §11.4.1) use entry_anytime(), which makes the state when there is
// none and does not need the Context.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "mpi/capi/info_table.hpp"
#include "mpi/capi/mpi.h"
#include "mpi/capi/rank_host.hpp"
#include "mpi/coll/collectives.hpp"
#include "mpi/core/context.hpp"
#include "mpi/core/error.hpp"
#include "mpi/core/op.hpp"

namespace twinfab::mpi::capi {

struct AttributeTables;  // attributes.hpp
struct ToolsState;       // tools_interface.hpp
class SessionTable;      // session_table.hpp
struct WindowTable;      // window_table.hpp

// Handle layout: a kind in the high byte, an index in the low 24 bits.
inline constexpr std::uint32_t kHandleIndexMask = 0x00ffffff;
inline constexpr std::uint32_t kCommBase = 0x44000000;
inline constexpr std::uint32_t kGroupBase = 0x48000000;
inline constexpr std::uint32_t kBasicTypeBase = 0x4c000000;
inline constexpr std::uint32_t kDerivedTypeBase = 0x8c000000;
inline constexpr std::uint32_t kOpBase = 0x58000000;
inline constexpr std::uint32_t kUserOpBase = 0x98000000;
inline constexpr std::uint32_t kRequestBase = 0xac000000;
inline constexpr std::uint32_t kMessageBase = 0xec000000;
inline constexpr std::uint32_t kUserErrhandlerBase = 0x94000000;  ///< MPI_Comm_create_errhandler
inline constexpr std::uint32_t kSessionBase = 0xbc000000;         ///< MPI_Session_init (session_table.hpp)
// kInfoBase (0x9c000000) is in info_table.hpp, with the info table.

struct CommEntry {
  const Communicator* comm = nullptr;  ///< null: freed slot
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;  ///< MPI_Comm_set_name (a property of the handle, not copied by dup)
};

/// An error handler of MPI_Comm_create_errhandler. It lives while the program holds a
/// handle to it (the one create gave, each one MPI_Comm_get_errhandler gave, less those
/// MPI_Errhandler_free took back) or a communicator uses it (MPI-3.1 §8.3.4: freeing
/// the handle does not affect the communicators that use it). The handle is valid only
/// while the program holds one: a handle freed as often as it was given is MPI_ERR_ARG,
/// even while a communicator still runs the handler.
struct ErrhandlerEntry {
  /// null: freed slot. A session handler's MPI_Session_errhandler_function has the
  /// same type (MPI_Session and MPI_Comm are both int).
  MPI_Comm_errhandler_function* function = nullptr;
  int handle_refs = 0;  ///< handles the program holds
  int comm_refs = 0;    ///< communicators (live or being made by MPI_Comm_idup) or sessions that use it
  bool for_sessions = false;  ///< made by MPI_Session_create_errhandler: for sessions only
};

/// MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN and MPI_ERRORS_ABORT: no table entry.
inline bool is_predefined_errhandler(MPI_Errhandler handler) {
  return handler == MPI_ERRORS_ARE_FATAL || handler == MPI_ERRORS_RETURN || handler == MPI_ERRORS_ABORT;
}

/// An error class of MPI_Add_error_class or a code of MPI_Add_error_code. Their values
/// are one sequence from kFirstUserErrorCode up (above MPI_ERR_LASTCODE, as MPICH's).
struct UserErrorCode {
  int error_class = 0;  ///< the class's own value for a class
  std::string text;     ///< MPI_Add_error_string; empty until set
};
inline constexpr int kFirstUserErrorCode = MPI_ERR_LASTCODE + 1;

class RankState;

/// What MPI_Start starts for a persistent request (MPI_Send_init, MPI_Recv_init, ...,
/// and the persistent collectives, MPI_Bcast_init, ...).
struct PersistentOp {
  enum class Kind : std::uint8_t { Send, Ssend, Bsend, Recv, Collective };
  Kind kind = Kind::Send;
  void* buffer = nullptr;
  MPI_Count count = 0;
  DatatypePtr type;  ///< held: MPI_Type_free does not affect a persistent request
  int peer = 0;
  int tag = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  /// Kind::Collective: starts the collective as its nonblocking form would (on the
  /// communicator given), returns its request and sets what the request must keep
  /// alive (collectives.cpp).
  std::function<RequestId(RankState&, const Communicator&, std::shared_ptr<const void>&)> start_collective;
};

/// An op of MPI_Op_create (function) or MPI_Op_create_c (function_c, which takes an
/// MPI_Count length); both null: a freed slot.
struct UserOpEntry {
  MPI_User_function* function = nullptr;
  bool commutative = true;
  MPI_User_function_c* function_c = nullptr;
  bool live() const noexcept { return function != nullptr || function_c != nullptr; }
};

/// A generalized request's callbacks (MPI_Grequest_start; mpi/capi/grequest.cpp). Its
/// core request (Request::Kind::Generalized) says whether MPI_Grequest_complete was
/// called; these run when a wait or test reports it, as MPI-3.1 §12.2 orders.
struct Grequest {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra_state = nullptr;
  /// MPI_Request_free came before MPI_Grequest_complete: the handle's slot stays
  /// taken (the program may still complete it through a copy of the handle), and
  /// MPI_Grequest_complete calls free_fn and frees the slot.
  bool freed = false;
};

struct RequestEntry {
  RequestId id = kRequestNull;  ///< kRequestNull: free slot, or an inactive persistent request
  MPI_Comm comm = MPI_COMM_NULL;  ///< whose error handler reports its errors
  const char* what = "";          ///< "MPI_Irecv", ...: for error messages
  std::unique_ptr<PersistentOp> persistent;  ///< set for the requests of MPI_*_init
  /// A nonblocking collective's request (MPI_Ibarrier, ...): MPI_Request_free and
  /// MPI_Cancel refuse it, and its errors name the rank whose data failed.
  bool collective = false;
  /// What a nonblocking collective's schedule uses after its call returned (the
  /// binding of a user-defined op): released with the request.
  std::shared_ptr<const void> kept;
  std::unique_ptr<Grequest> grequest;  ///< set for MPI_Grequest_start's requests
};

/// A message matched by MPI_Mprobe / MPI_Improbe, until MPI_Mrecv / MPI_Imrecv.
struct MessageEntry {
  MessageId id = kMessageNull;    ///< kMessageNull: free slot
  MPI_Comm comm = MPI_COMM_NULL;  ///< whose error handler reports errors of its receive
};

/// The buffer of MPI_Buffer_attach and the buffered sends that occupy it. Space is
/// handed out circularly in allocation order (as MPICH does): a message goes after
/// the newest one still in flight, or at the start before the oldest; messages that
/// have left are reaped first.
struct BsendBuffer {
  struct Segment {
    std::size_t offset;
    std::size_t bytes;  ///< packed size + MPI_BSEND_OVERHEAD
    RequestId request;
  };
  std::byte* base = nullptr;
  std::size_t size = 0;
  bool attached = false;
  /// In allocation order. A list, not a deque: an empty deque already holds a
  /// 512-byte node, which every simulated rank would pay for a feature few use.
  std::list<Segment> active;
};

class RankState {
 public:
  RankState() = default;
  /// Frees what MPI_Alloc_mem gave and the program never gave back.
  ~RankState();
  RankState(const RankState&) = delete;
  RankState& operator=(const RankState&) = delete;

  bool initialized = false;  ///< MPI_Init was called (the World model; sessions do not count)
  bool finalized = false;    ///< MPI_Finalize was called
  /// The rank's Context was released (lifecycle.hpp): MPI cannot start again.
  bool released = false;
  /// The MPI function the rank is in (entry() sets it, a normal return restores the
  /// enclosing call's, usually none): what a launcher names for a rank that never came
  /// back (call_in_progress()).
  const char* call = nullptr;
  /// What sees the rank's outermost calls begin and end (rank_host.hpp): the host's
  /// services when they measure the program's computation between MPI calls
  /// (ProgramServices::measures_computation()), the asynchronous progress agent's
  /// hold (agent_hold, which passes them on to the host's), or nullptr; MPI_Finalize
  /// clears it.
  CallObserver* call_observer = nullptr;
  /// With TWINFAB_ASYNC_PROGRESS: the observer that lets the agent in between the
  /// rank's calls (AgentHold, rank_state.cpp).
  std::unique_ptr<CallObserver> agent_hold;
  /// The asynchronous progress agent (TWINFAB_ASYNC_PROGRESS), else nullptr: entry()
  /// holds it out of the library for every call of the rank's (async_progress.hpp).
  /// Set and cleared by the rank only, inside a call.
  AsyncProgressAgent* async_progress = nullptr;
  /// Whether the rank is in an MPI call and holds its agent out (written by the rank
  /// only: `call` is the agent's during its pass).
  bool rank_in_call = false;
  std::unique_ptr<Context> context;
  int thread_level = MPI_THREAD_SINGLE;  ///< what MPI_Init_thread provided (MPI_Query_thread)
  /// The thread that called MPI_Init (MPI_Is_thread_main); under `twinfab sim`, the
  /// rank's actor.
  std::thread::id main_thread = std::this_thread::get_id();
  /// The blocks MPI_Alloc_mem handed out and MPI_Free_mem has not taken back.
  std::unordered_map<void*, std::size_t> allocated_memory;

  Context& ctx() { return *context; }
  /// Whether the rank has its Context: what entry() requires.
  bool active() const noexcept { return context != nullptr; }
  /// The first of MPI_Init / MPI_Session_init: takes the rank's context and sets up the
  /// predefined handles, MPI_COMM_WORLD and MPI_COMM_SELF not yet live.
  void set_up(std::unique_ptr<Context> context);
  /// MPI_Init: MPI_COMM_WORLD and MPI_COMM_SELF become live, `initialized` true.
  void open_world();
  /// MPI_Finalize: MPI_COMM_WORLD and MPI_COMM_SELF are no longer live (MPI_ERR_COMM
  /// from now on, even while sessions keep the Context), `finalized` true.
  void close_world();

  // ---- sessions (session_table.hpp): null until the rank's first MPI_Session_init.
  std::unique_ptr<SessionTable> sessions;
  /// Sessions initialized and not finalized.
  int open_sessions() const noexcept;

  // ---- communicators
  // comm(), comm_entry() and type() are inline, with their errors thrown out of
  // line: every MPI call translates a communicator, most a datatype too.
  const Communicator& comm(MPI_Comm handle, const char* where) {
    const Communicator& c = *comm_entry(handle, where).comm;
    context->check_comm(c, where);
    return c;
  }
  /// A handle for `comm` (MPI_COMM_NULL for null), using error handler `inherited`.
  MPI_Comm add_comm(const Communicator* comm, MPI_Errhandler inherited);
  /// A handle for a communicator still being made (MPI_Comm_idup): invalid (as a freed
  /// one) until fill_comm() gives it its communicator.
  MPI_Comm reserve_comm(MPI_Errhandler inherited);
  void fill_comm(MPI_Comm handle, const Communicator* comm);
  /// Frees the live communicator `handle` (Context::comm_free: MPI_ERR_COMM for
  /// MPI_COMM_WORLD and MPI_COMM_SELF) and lets go of its error handler.
  void free_comm(MPI_Comm handle, const char* where);
  /// A handle of reserve_comm() that will never be filled: lets go of its error handler.
  void abandon_reserved_comm(MPI_Comm handle);
  CommEntry& comm_entry(MPI_Comm handle, const char* where) {
    const auto b = static_cast<std::uint32_t>(handle);
    const std::size_t index = b & kHandleIndexMask;
    if ((b & ~kHandleIndexMask) != kCommBase || index >= comms_.size() || comms_[index].comm == nullptr) [[unlikely]]
      throw_bad_comm(handle, where);
    return comms_[index];
  }
  /// The error handler that reports errors of a call on `handle` (COMM_WORLD's when
  /// the handle is not a live communicator).
  MPI_Errhandler errhandler_of(MPI_Comm handle) const {
    return comms_.empty() ? MPI_ERRORS_ARE_FATAL : comms_[comm_reporting(handle) & kHandleIndexMask].errhandler;
  }
  /// The communicator whose handler reports errors of a call on `handle`: `handle`
  /// itself when it is a live communicator, else MPI_COMM_WORLD.
  MPI_Comm comm_reporting(MPI_Comm handle) const;
  /// MPI_Comm_set_errhandler: `comm` uses `handler` from now on (checked as
  /// errhandler_function() does), and lets go of the one it used.
  void set_errhandler(MPI_Comm comm, MPI_Errhandler handler, const char* where);

  // ---- error handlers (MPI_Comm_create_errhandler). Slots are not reused, so a
  // freed handle stays invalid.
  MPI_Errhandler add_errhandler(MPI_Comm_errhandler_function* function, bool for_sessions = false);
  /// Whether `handle` is a live handler made by MPI_Session_create_errhandler (false for
  /// the predefined ones, which serve both).
  bool is_session_errhandler(MPI_Errhandler handle) const;
  /// Counts one more / one less communicator or session using `handler` (nothing for
  /// predefined ones).
  void hold_errhandler(MPI_Errhandler handler);
  void release_errhandler(MPI_Errhandler handler);
  /// The function of a user error handler the program holds a handle to; MPI_ERR_ARG
  /// (MPICH's class) for MPI_ERRHANDLER_NULL, a freed or an invalid handle. Null for
  /// the predefined handlers.
  MPI_Comm_errhandler_function* errhandler_function(MPI_Errhandler handle, const char* where) const;
  /// The function of the user handler a communicator uses (its handle may be freed).
  MPI_Comm_errhandler_function* errhandler_in_use(MPI_Errhandler handle) const;
  /// MPI_Comm_get_errhandler: `comm`'s handler, as a new handle the program frees.
  MPI_Errhandler get_errhandler(MPI_Comm comm, const char* where);
  /// A new handle to `handler`, which an object uses, for the program to free
  /// (MPI_Comm_get_errhandler, MPI_Session_get_errhandler).
  MPI_Errhandler new_errhandler_handle(MPI_Errhandler handler);
  /// MPI_Errhandler_free: takes back a handle of a user handler, which goes once no
  /// communicator uses it either; a predefined handler stays (only the handle goes, as
  /// in MPICH). MPI_ERR_ARG for MPI_ERRHANDLER_NULL, a freed or an invalid handle.
  void free_errhandler(MPI_Errhandler& handle, const char* where);

  // ---- groups
  const GroupPtr& group(MPI_Group handle, const char* where, const char* arg = "group");
  /// A handle for a new group; MPI_GROUP_EMPTY when it has no members (MPI-3.1 §6.3.2).
  MPI_Group add_group(GroupPtr group);
  void free_group(MPI_Group& handle, const char* where);

  // ---- datatypes
  const DatatypePtr& type(MPI_Datatype handle, const char* where, const char* arg = "datatype") {
    const auto b = static_cast<std::uint32_t>(handle);
    const std::size_t index = b & kHandleIndexMask;
    if ((b & ~kHandleIndexMask) == kBasicTypeBase && index < kBasicKindCount)
      return context->datatype(static_cast<BasicKind>(index));
    return derived_type(handle, where, arg);
  }
  /// type() for anything but a predefined datatype (small enough inline without it).
  const DatatypePtr& derived_type(MPI_Datatype handle, const char* where, const char* arg);
  MPI_Datatype add_type(DatatypePtr type);
  void free_type(MPI_Datatype& handle, const char* where);

  // ---- user-defined reduction operations (MPI_Op_create). Slots are not reused, so
  // a freed handle stays invalid.
  MPI_Op add_op(MPI_User_function* function, bool commutative);
  MPI_Op add_op(MPI_User_function_c* function, bool commutative);
  /// The live entry of a user op handle (MPI_ERR_OP for anything else, predefined
  /// ops included: callers check for those first). Returned by value: a user
  /// function may create or free ops while a reduction runs, which would move or
  /// clear an entry held by reference.
  UserOpEntry user_op(MPI_Op handle, const char* where) const;
  /// MPI_Op_free: MPI_ERR_OP for MPI_OP_NULL, a predefined op or an invalid handle.
  void free_op(MPI_Op& handle, const char* where);

  // ---- user-defined error classes and codes. Local to the rank (MPI-3.1 §8.5: the
  // values may differ between processes); never removed.
  /// MPI_Add_error_class: a new class.
  int add_error_class(const char* where);
  /// MPI_Add_error_code: a new code of `error_class`, a predefined class but
  /// MPI_SUCCESS, or one of add_error_class(); MPI_ERR_ARG for anything else.
  int add_error_code(int error_class, const char* where);
  /// MPI_Add_error_string: sets (or replaces) the text of a user-defined class or code;
  /// MPI_ERR_ARG for any other value and for a text of MPI_MAX_ERROR_STRING characters
  /// or more.
  void set_error_string(int code, std::string_view text, const char* where);
  /// The entry of a user-defined class or code; null for any other value.
  const UserErrorCode* user_error(int code) const {
    const auto index = static_cast<std::size_t>(code) - static_cast<std::size_t>(kFirstUserErrorCode);
    return code >= kFirstUserErrorCode && index < user_errors_.size() ? &user_errors_[index] : nullptr;
  }
  /// MPI_LASTUSEDCODE: the largest user-defined class or code, else MPI_ERR_LASTCODE.
  int last_used_code() const { return MPI_ERR_LASTCODE + static_cast<int>(user_errors_.size()); }
  /// How an error message names `code`: the class's name, or a user code with its text.
  std::string describe_error(int code) const;

  // ---- requests
  MPI_Request add_request(RequestId id, MPI_Comm comm, const char* what);
  /// The entry of an active request handle (MPI_ERR_REQUEST for anything else); null
  /// for MPI_REQUEST_NULL and for an inactive persistent request (MPI treats both as
  /// inactive: waits and tests return at once with an empty status).
  RequestEntry* request(MPI_Request handle, const char* where);
  /// After the request behind `handle` completed: frees it and sets the handle to
  /// MPI_REQUEST_NULL, or, for a persistent request, makes it inactive (the handle stays).
  void release_request(MPI_Request& handle);
  /// A nonblocking collective's request, keeping `kept` alive until it completes.
  MPI_Request add_collective_request(RequestId id, MPI_Comm comm, const char* what, std::shared_ptr<const void> kept);
  /// A persistent request, inactive until MPI_Start.
  MPI_Request add_persistent(PersistentOp op, const char* what);
  /// The persistent request behind `handle` (MPI_ERR_REQUEST if it is not one).
  RequestEntry& persistent(MPI_Request handle, const char* where);
  /// Frees the slot of `handle` whatever its state, and sets it to MPI_REQUEST_NULL.
  void free_request(MPI_Request& handle);
  /// MPI_Request_free: the request completes on its own; reaped by later calls.
  void detach_request(MPI_Request& handle);
  /// Completes detached requests that are done (all of them when `wait_all`).
  /// Inline for the usual case of none: MPI_Send and MPI_Recv call it every time.
  void reap_detached(bool wait_all) {
    if (!detached_.empty()) reap_detached_requests(wait_all);
  }

  // ---- keyvals and attributes (mpi/capi/attributes.cpp): null until the rank first
  // uses one, so that a rank that never does pays one pointer.
  std::unique_ptr<AttributeTables> attributes;

  // ---- matched messages (MPI_Mprobe, MPI_Improbe). Slots are reused, as request
  // slots are; the table stays empty (allocates nothing) until a matched probe.
  /// MPI_ERR_INTERN when add_message() would find no free handle: checked before the
  /// probe, since a message the core has taken out of the matching cannot go back.
  void check_message_room(const char* where) const;
  /// A handle for message `id` (not kMessageNoProc) matched on `comm`.
  MPI_Message add_message(MessageId id, MPI_Comm comm);
  /// The core id behind `handle`: kMessageNoProc for MPI_MESSAGE_NO_PROC; throws
  /// MPI_ERR_REQUEST (MPICH's class) for MPI_MESSAGE_NULL and for a handle that names
  /// no message still to be received.
  MessageId message(MPI_Message handle, const char* where) const;
  /// The communicator whose error handler reports errors of a matched receive of
  /// `handle`: the message's, or MPI_COMM_WORLD's for a handle that names none.
  MPI_Comm comm_of_message(MPI_Message handle) const;
  /// After the message was taken by a matched receive: frees its slot (nothing for
  /// MPI_MESSAGE_NO_PROC) and sets the handle to MPI_MESSAGE_NULL.
  void release_message(MPI_Message& handle);

  // ---- the tools interface, MPI_T (mpi/capi/tools_interface.cpp): null until the rank
  // first calls MPI_T_init_thread or finalizes MPI (which keeps the Config there).
  std::unique_ptr<ToolsState> tools;

  // ---- one-sided windows (mpi/capi/rma.cpp; window_table.hpp): null until the rank's
  // first window. Released before the Context (lifecycle.cpp): its engine hooks into it.
  std::unique_ptr<WindowTable> windows;

  // ---- info objects (mpi/capi/info.cpp; MPI_INFO_ENV's contents are set at MPI_Init)
  InfoTable infos;

  // ---- buffered sends (mpi/capi/buffered.cpp)
  BsendBuffer bsend;
  /// Waits for every buffered send still in flight (MPI_Buffer_detach, MPI_Finalize).
  void drain_bsends();

 private:
  std::vector<CommEntry> comms_;
  std::vector<ErrhandlerEntry> errhandlers_;
  std::vector<UserErrorCode> user_errors_;  // value kFirstUserErrorCode + index
  std::vector<GroupPtr> groups_;
  std::vector<DatatypePtr> types_;  // derived types; null: freed slot
  std::vector<UserOpEntry> ops_;
  std::vector<RequestEntry> requests_;
  std::vector<std::uint32_t> free_requests_;
  std::vector<RequestId> detached_;
  std::vector<MessageEntry> messages_;
  std::vector<std::uint32_t> free_messages_;

  void reap_detached_requests(bool wait_all);
  /// MPI_ERR_COMM / MPI_ERR_TYPE for a handle comm_entry() / type() refused.
  [[noreturn]] void throw_bad_comm(MPI_Comm handle, const char* where) const;
  [[noreturn]] static void throw_bad_type(MPI_Datatype handle, const char* where, const char* arg);
};

/// The calling rank's state, or null before MPI_Init (and before any call allowed
/// before it, such as MPI_T_init_thread, made one).
RankState* current_state();
/// Stores a new, uninitialized state in the calling rank's empty slot and returns it;
/// for MPI_Init and the calls allowed before it. end_rank() releases it.
RankState* create_state();

/// Whether `handle` has the form of a user-defined op's (live or not).
inline bool is_user_op_handle(MPI_Op handle) {
  return (static_cast<std::uint32_t>(handle) & ~kHandleIndexMask) == kUserOpBase;
}

/// Translates a predefined MPI_Op handle; MPI_ERR_OP for anything else.
Op op_of(MPI_Op handle, const char* where);

/// An MPI_Op handle resolved for one reduction call: op() is the predefined op, or
/// the user function bound to the datatype handle the caller passed, which is what
/// the function receives (MPI-3.1 §5.9.5), not a handle made up for the core's type.
/// Holds copies of the op's entry, so freeing the op while the call runs (from the
/// user function itself) does not affect it. Lives on the calling entry point's
/// stack: op() refers to this object, which therefore cannot be copied or moved.
class OpCall {
 public:
  /// MPI_ERR_OP for MPI_OP_NULL, a freed or an invalid handle.
  OpCall(const RankState& state, MPI_Op handle, MPI_Datatype datatype, const char* where);
  OpCall(const OpCall&) = delete;
  OpCall& operator=(const OpCall&) = delete;
  const ReductionOp& op() const noexcept { return op_; }

 private:
  /// ReductionOp::UserFunction: calls the C function with (in, inout, &len, &datatype),
  /// in pieces of at most INT_MAX elements (one call for an MPI_User_function_c).
  static void call(const void* self, const void* in, void* inout, std::int64_t count, const Datatype& type);

  MPI_User_function* function_ = nullptr;
  MPI_User_function_c* function_c_ = nullptr;
  MPI_Datatype datatype_;
  ReductionOp op_;
};

/// Aborts the job: prints "twinfab: rank N: <message>" (through the host; "rank N: "
/// when the calling rank has started MPI, and only once) and exits `code`.
[[noreturn]] void fatal(int code, std::string_view message);

/// Reports an error of class `error_class` raised in a call on `comm` to the handler of
/// `comm` (of MPI_COMM_WORLD when `comm` is no live communicator): under
/// MPI_ERRORS_ARE_FATAL aborts, under MPI_ERRORS_RETURN returns the class; a user
/// handler is called with a pointer to (a copy of) the communicator's handle and to
/// the code, and the code it leaves there is returned.
int raise(RankState& state, MPI_Comm comm, int error_class, std::string_view message);
/// The same for the handler `handler` of the object whose handle is `handle` (a
/// session's, or the errhandler argument of MPI_Session_init and
/// MPI_Comm_create_from_group); MPI_ERRORS_ABORT aborts as MPI_ERRORS_ARE_FATAL does.
int raise_to(RankState& state, MPI_Errhandler handler, int handle, int error_class, std::string_view message);

/// Aborts the job for `function` called while the rank has no Context (before MPI_Init
/// or MPI_Session_init, or after the last MPI_Finalize / MPI_Session_finalize).
[[noreturn]] void refuse_inactive(const char* function, const RankState* state);

/// What entry() and entry_anytime() do once they have a state: runs `body`, and turns
/// an error into what `report(state, class, message)` makes of it.
///
/// Always inlined, as are entry() and entry_anytime() and their _reporting forms: an
/// MPI function and its MPI_X_c form share one body (one lambda type, so one
/// instantiation of these templates), which the compiler otherwise keeps out of line
/// for both callers. That extra frame (~300 bytes on MPI_Sendrecv's path) took a
/// simulated rank's stack past its first page: 4 KB more per rank of a 4096-rank ring
/// (mpi.c.memory_per_rank, bench/smpi_ring.sh; docs/performance-notes.md).
/// Run by entry() when the rank has an asynchronous progress agent, before it reads
/// `call`: the rank's outermost call takes the hold (rank_in_call; AgentHold lets go
/// when the call ends); a call the agent makes (a callback of its pass) does nothing,
/// its pass holds the library and set `call`, so the call is a nested one. Out of
/// line: only with an agent.
void enter_with_agent(RankState* state);
/// Makes the rank's AgentHold for `agent`, started held by the calling rank (MPI_Init,
/// MPI_Session_init): it becomes the call observer, passing calls on to the previous
/// one (the host's measure of computation).
void hold_agent(RankState& state, AsyncProgressAgent* agent);

template <class Report, class Body>
[[gnu::always_inline]] inline int run_entry(RankState* state, const char* function, Report&& report, Body&& body) {
  // With an asynchronous progress agent the rank's outermost call holds it out, before
  // `call` is read (rank_state.cpp); the observer lets it in at the end. Nothing more
  // here: a branch more in leave() took a simulated rank's stack past a page
  // (mpi.c.memory_per_rank).
  if (state->async_progress != nullptr) [[unlikely]]
    enter_with_agent(state);
  // A call made from inside another (by a user-defined reduction operation, or by the
  // agent's pass) restores the outer one's name when it returns and leaves the
  // observer alone.
  const char* const outer = state->call;
  state->call = function;
  if (outer == nullptr && state->call_observer != nullptr) state->call_observer->mpi_call_begins();
  // The body may make the Context (MPI_Session_init), and so start the measure of
  // computation or the agent (held for this call): leave() ends the call for them.
  const auto leave = [state, outer] {
    state->call = outer;
    if (outer == nullptr && state->call_observer != nullptr) state->call_observer->mpi_call_ends();
  };
  try {
    const int rc = body(*state);
    leave();
    return rc;
  } catch (const Error& e) {
    leave();
    return report(*state, e.code(), e.what());
  } catch (const std::exception& e) {
    leave();
    return report(*state, MPI_ERR_INTERN, std::string(function) + ": internal error: " + e.what());
  }
  // Anything else is not an error of this library but the runtime unwinding the rank
  // (SimGrid killing a deadlocked actor, thread cancellation): it must pass through,
  // and `call` keeps naming where the rank was.
}

/// Runs `body` for a rank that has its Context, errors going to `report`.
template <class Report, class Body>
[[gnu::always_inline]] inline int entry_reporting(const char* function, Report&& report, Body&& body) {
  RankState* state = current_state();
  if (state == nullptr || !state->context) [[unlikely]]
    refuse_inactive(function, state);
  return run_entry(state, function, std::forward<Report>(report), std::forward<Body>(body));
}

/// Runs `body` for a rank that has its Context; the boundary described at the top.
/// Errors go to `comm`'s handler (MPI_COMM_WORLD's when it is no live communicator).
template <class Body>
[[gnu::always_inline]] inline int entry(const char* function, MPI_Comm comm, Body&& body) {
  return entry_reporting(
      function, [comm](RankState& s, int error_class, std::string_view message) {
        return raise(s, comm, error_class, message);
      },
      std::forward<Body>(body));
}

/// For the calls MPI allows at any time, before MPI_Init or MPI_Session_init and after
/// the last finalize included: makes the rank's state if it has none, and runs `body`
/// whether the rank has its Context or not. Errors go to `report`.
template <class Report, class Body>
[[gnu::always_inline]] inline int entry_anytime_reporting(const char* function, Report&& report, Body&& body) {
  RankState* state = current_state();
  if (state == nullptr) state = create_state();
  return run_entry(state, function, std::forward<Report>(report), std::forward<Body>(body));
}

/// entry_anytime_reporting() with errors going to MPI_COMM_WORLD's handler between
/// MPI_Init and MPI_Finalize, else to the initial handler, MPI_ERRORS_ARE_FATAL
/// (MPI-4.0 §9.3).
template <class Body>
[[gnu::always_inline]] inline int entry_anytime(const char* function, Body&& body) {
  return entry_anytime_reporting(
      function, [](RankState& s, int error_class, std::string_view message) {
        return raise(s, MPI_COMM_WORLD, error_class, message);
      },
      std::forward<Body>(body));
}

/// Throws MPI_ERR_ARG "<where>(<arg>): null pointer" when `p` is null.
void require_pointer(const void* p, const char* where, const char* arg);

/// A buffered-mode send (MPI_Bsend, MPI_Ibsend, a started MPI_Bsend_init): checks the
/// arguments, packs the message into the attached buffer and starts its send from
/// there; returns once the data is copied. MPI_ERR_BUFFER when no buffer is attached
/// or it stays full (buffered.cpp).
void buffered_send(RankState& s, const char* where, const void* buf, MPI_Count count, const DatatypePtr& type, int dest,
                   int tag, const Communicator& comm);
/// Writes a MessageStatus to a C status unless it is MPI_STATUS_IGNORE / null. Its
/// MPI_ERROR field is written only for the calls that complete several requests
/// (`with_error`: MPI_Waitall, MPI_Testall, MPI_Waitsome, MPI_Testsome); every other
/// call leaves it as the program set it (MPI-3.1 §3.2.5), the call's return value
/// being the error. The empty status of a null or inactive request is written whole
/// (MPI_ERROR = MPI_SUCCESS, §3.7.3): its callers pass `with_error`.
void store_status(const MessageStatus& in, MPI_Status* out, bool with_error = false);
/// The inverse: what a C status a program filled (a generalized request's query_fn) says.
MessageStatus load_status(const MPI_Status& in);

// ---- generalized requests (grequest.cpp), for the waits and tests of pt2pt.cpp.
/// After the core reported generalized request `g` done and its handle was released:
/// calls query_fn for the status, then free_fn (MPI-3.1 §12.2). The status's error is
/// the first callback's that failed, as the code it returned (MPI_SUCCESS else).
/// `g` is the caller's copy: a callback may start or free requests.
MessageStatus finish_generalized(const Grequest& g);
/// MPI_Request_get_status of a done generalized request: query_fn only.
MessageStatus query_generalized(const Grequest& g);
/// Throws the error a generalized request's status carries, naming `where`.
void check_generalized(const MessageStatus& st, const char* where);

}  // namespace twinfab::mpi::capi
