#include "mpi/capi/rank_state.hpp"

#include "mpi/capi/foreign_mpi.hpp"
#include "mpi/capi/handle_bits.hpp"
#include "mpi/capi/window_table.hpp"

#include "mpi/capi/attributes.hpp"
#include "mpi/capi/session_table.hpp"
#include "mpi/capi/tools_interface.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

namespace twinfab::mpi::capi {

// mpi.h is C and cannot include mpi/core; these keep the two in step.
#define TWINFAB_CAPI_CHECK_CLASS(name, value, text) \
  static_assert(::name == (value), "mpi.h: " #name " differs from mpi/core/error.hpp");
TWINFAB_MPI_ERROR_CLASS_LIST(TWINFAB_CAPI_CHECK_CLASS)
#undef TWINFAB_CAPI_CHECK_CLASS
static_assert(TWINFAB_MPI_BASIC_TYPE_COUNT == kBasicKindCount, "mpi.h: predefined datatype list out of date");
static_assert(static_cast<std::uint32_t>(MPI_LONG_DOUBLE_INT) - kBasicTypeBase ==
              static_cast<std::uint32_t>(BasicKind::LongDoubleInt));
static_assert(static_cast<std::uint32_t>(MPI_BYTE) - kBasicTypeBase == static_cast<std::uint32_t>(BasicKind::Byte));
static_assert(static_cast<std::uint32_t>(MPI_DOUBLE) - kBasicTypeBase ==
              static_cast<std::uint32_t>(BasicKind::Double));
static_assert(static_cast<std::uint32_t>(MPI_MINLOC) - kOpBase == static_cast<std::uint32_t>(Op::Minloc));
static_assert(static_cast<std::uint32_t>(MPI_BXOR) - kOpBase == static_cast<std::uint32_t>(Op::Bxor));
static_assert(MPI_PROC_NULL == kProcNull && MPI_ANY_SOURCE == kAnySource && MPI_ANY_TAG == kAnyTag);
static_assert(MPI_UNDEFINED == kUndefined);
static_assert(MPI_COMM_TYPE_SHARED == kCommTypeShared);
static_assert(MPI_IDENT == static_cast<int>(Comparison::Ident) && MPI_CONGRUENT == static_cast<int>(Comparison::Congruent) &&
              MPI_SIMILAR == static_cast<int>(Comparison::Similar) && MPI_UNEQUAL == static_cast<int>(Comparison::Unequal));
static_assert(static_cast<std::uint32_t>(MPI_COMM_WORLD) == kCommBase);
static_assert(static_cast<std::uint32_t>(MPI_GROUP_EMPTY) == kGroupBase);
// Info handles: MPI_INFO_NULL and MPI_INFO_ENV are outside the table's range.
static_assert((static_cast<std::uint32_t>(MPI_INFO_NULL) & ~kHandleIndexMask) != kInfoBase &&
              (static_cast<std::uint32_t>(MPI_INFO_ENV) & ~kHandleIndexMask) != kInfoBase);

namespace {

// The one mutable global of mpi/capi (rank_host.hpp): written before any rank runs.
RankHost* g_installed_host = nullptr;

int handle_of(std::uint32_t base, std::size_t index) { return static_cast<int>(base + static_cast<std::uint32_t>(index)); }

/// Handles are never reused (a freed one stays invalid), so a rank can create 2^24 of
/// each kind in its life: past that MPI_ERR_INTERN, before the table grows, instead of
/// an index spilling into the kind's bits.
void check_handle_room(std::size_t used, const char* where, const char* what) {
  if (used > kHandleIndexMask)
    throw Error(ErrorClass::MPI_ERR_INTERN, where,
                fmt::format("more than 16M {} created on one rank (handles are never reused)", what));
}

}  // namespace

void install_rank_host(RankHost* host) noexcept { g_installed_host = host; }

RankHost& rank_host() { return g_installed_host != nullptr ? *g_installed_host : default_rank_host(); }

RankState* current_state() { return static_cast<RankState*>(rank_host().state_slot()); }

void enter_with_agent(RankState* state) {
  AsyncProgressAgent* const agent = state->async_progress;
  if (agent->on_agent()) return;    // a callback of the agent's pass: nested in it (the pass holds the library)
  if (state->rank_in_call) return;  // nested in the rank's own call (rank_in_call is the rank's alone)
  agent->enter();
  state->rank_in_call = true;
}

namespace {
/// The call observer of a rank with an asynchronous progress agent: at the end of the
/// rank's outermost call it lets the agent in (enter_with_agent took the hold at its
/// start), after passing both ends on to the host's observer.
class AgentHold final : public CallObserver {
 public:
  AgentHold(RankState& state, CallObserver* inner) : state_(state), inner_(inner) {}
  void mpi_call_begins() override {
    if (inner_ != nullptr) inner_->mpi_call_begins();
  }
  void mpi_call_ends() override {
    if (inner_ != nullptr) inner_->mpi_call_ends();
    if (state_.rank_in_call && state_.async_progress != nullptr) {
      state_.rank_in_call = false;
      state_.async_progress->leave();
    }
  }

 private:
  RankState& state_;
  CallObserver* const inner_;
};
}  // namespace

void hold_agent(RankState& state, AsyncProgressAgent* agent) {
  agent->set_call_slot(&state.call);
  state.async_progress = agent;
  state.rank_in_call = true;  // the agent starts held, for the call that made it
  state.agent_hold = std::make_unique<AgentHold>(state, state.call_observer);
  state.call_observer = state.agent_hold.get();
}

RankState* create_state() {
  void*& slot = rank_host().state_slot();
  auto* state = new RankState();
  slot = state;
  return state;
}

RankOutcome end_rank() noexcept {
  void*& slot = rank_host().state_slot();
  auto* state = static_cast<RankState*>(slot);
  if (state == nullptr) return {};
  RankOutcome outcome{state->initialized, state->finalized, state->open_sessions()};
  // Without a Context (never made, or released by the last finalize) nothing
  // collective is left. A rank that still has one (MPI_Finalize not called, or a
  // session left open) keeps it: destroying it is collective, and the launcher ends
  // the job.
  if (!state->active()) {
    delete state;
    slot = nullptr;
  }
  return outcome;
}

const char* call_in_progress(const void* state) noexcept {
  return state != nullptr ? static_cast<const RankState*>(state)->call : nullptr;
}

void fatal(int code, std::string_view message) {
  std::fflush(stdout);
  // The rank is named here, once: the host prints the message as given.
  const RankState* state = current_state();
  if (state != nullptr && state->context) {
    const std::string prefix = fmt::format("rank {}: ", state->context->world().rank());
    if (!message.starts_with(prefix)) {
      rank_host().abort(code, prefix + std::string(message));
    }
  }
  rank_host().abort(code, message);
  std::_Exit(code);  // a host's abort() must not return; never leave the job running
}

void refuse_inactive(const char* function, const RankState* state) {
  if (state == nullptr || !state->released)
    fatal(MPI_ERR_OTHER, std::string(function) + " called before MPI_Init or MPI_Session_init");
  fatal(MPI_ERR_OTHER, std::string(function) +
                           (state->finalized ? " called after MPI_Finalize"
                                             : " called after the last MPI_Session_finalize") +
                           " (MPI is finalized: the World model and every session have ended)");
}

int raise(RankState& state, MPI_Comm comm, int error_class, std::string_view message) {
  return raise_to(state, state.errhandler_of(comm), state.comm_reporting(comm), error_class, message);
}

int raise_to(RankState& state, MPI_Errhandler handler, int handle, int error_class, std::string_view message) {
  if (error_class == MPI_SUCCESS) return MPI_SUCCESS;
  if (handler == MPI_ERRORS_RETURN) return error_class;
  if (!is_predefined_errhandler(handler)) {
    // Copies: the function may write through both pointers (the code it leaves is
    // what the call returns, as in MPICH and Open MPI), and may free the handler or
    // the object meanwhile.
    int object = handle;
    int code = error_class;
    state.errhandler_in_use(handler)(&object, &code);
    return code;
  }
  fatal(error_class, fmt::format("{} ({}; the error handler is {})", message, state.describe_error(error_class),
                                 handler == MPI_ERRORS_ABORT ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL"));
}

void require_pointer(const void* p, const char* where, const char* arg) {
  if (p == nullptr) throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}({})", where, arg), "null pointer");
}

void store_status(const MessageStatus& in, MPI_Status* out, bool with_error) {
  if (out == nullptr || out == MPI_STATUS_IGNORE) return;
  out->MPI_SOURCE = in.source;
  out->MPI_TAG = in.tag;
  if (with_error) out->MPI_ERROR = static_cast<int>(in.error);
  out->twinfab_cancelled = in.cancelled ? 1 : 0;
  out->twinfab_count_bytes = in.count_bytes;
}

MessageStatus load_status(const MPI_Status& in) {
  return MessageStatus{in.MPI_SOURCE, in.MPI_TAG, static_cast<ErrorClass>(in.MPI_ERROR), in.twinfab_count_bytes,
                       in.twinfab_cancelled != 0};
}

namespace {
[[noreturn]] void throw_bad_op(MPI_Op handle, const char* where) {
  if (handle == MPI_OP_NULL) throw Error(ErrorClass::MPI_ERR_OP, fmt::format("{}(op)", where), "op is MPI_OP_NULL");
  throw Error(ErrorClass::MPI_ERR_OP, fmt::format("{}(op=0x{:x})", where, handle_bits(handle)),
              "not an MPI_Op handle (neither predefined nor made by MPI_Op_create, or freed)");
}
}  // namespace

Op op_of(MPI_Op handle, const char* where) {
  const std::uint32_t b = handle_bits(handle);
  if ((b & ~kHandleIndexMask) != kOpBase || (b & kHandleIndexMask) > static_cast<std::uint32_t>(Op::Minloc))
      [[unlikely]]
    throw_bad_op(handle, where);
  return static_cast<Op>(b & kHandleIndexMask);
}

OpCall::OpCall(const RankState& state, MPI_Op handle, MPI_Datatype datatype, const char* where)
    : datatype_(datatype), op_(Op::NoOp) {
  if (!is_user_op_handle(handle)) [[likely]] {
    op_ = op_of(handle, where);
    return;
  }
  const UserOpEntry entry = state.user_op(handle, where);
  function_ = entry.function;
  function_c_ = entry.function_c;
  op_ = ReductionOp::user(&OpCall::call, this, entry.commutative);
}

void OpCall::call(const void* self, const void* in, void* inout, std::int64_t count, const Datatype& type) {
  const auto& call = *static_cast<const OpCall*>(self);
  const auto* a = static_cast<const std::byte*>(in);
  auto* b = static_cast<std::byte*>(inout);
  if (call.function_c_ != nullptr) {
    MPI_Count len = count;
    MPI_Datatype datatype = call.datatype_;
    call.function_c_(const_cast<std::byte*>(a), b, &len, &datatype);
    return;
  }
  // The C function takes an int count; the core's are 64-bit (the large-count calls,
  // MPI_Reduce_c, ..., pass them through): a larger one goes in pieces of whole
  // elements, which an elementwise op cannot tell apart.
  while (count > 0) {
    const int piece = static_cast<int>(std::min<std::int64_t>(count, std::numeric_limits<int>::max()));
    // Copies: the function may write through its pointer arguments.
    int len = piece;
    MPI_Datatype datatype = call.datatype_;
    call.function_(const_cast<std::byte*>(a), b, &len, &datatype);
    a += static_cast<std::int64_t>(piece) * type.extent();
    b += static_cast<std::int64_t>(piece) * type.extent();
    count -= piece;
  }
}

// ---- user-defined reduction operations

MPI_Op RankState::add_op(MPI_User_function* function, bool commutative) {
  check_handle_room(ops_.size(), "MPI_Op_create", "user-defined ops");
  ops_.push_back({function, commutative, nullptr});
  return handle_of(kUserOpBase, ops_.size() - 1);
}

MPI_Op RankState::add_op(MPI_User_function_c* function, bool commutative) {
  check_handle_room(ops_.size(), "MPI_Op_create_c", "user-defined ops");
  ops_.push_back({nullptr, commutative, function});
  return handle_of(kUserOpBase, ops_.size() - 1);
}

UserOpEntry RankState::user_op(MPI_Op handle, const char* where) const {
  const std::uint32_t b = handle_bits(handle);
  const std::size_t index = b & kHandleIndexMask;
  if ((b & ~kHandleIndexMask) != kUserOpBase || index >= ops_.size() || !ops_[index].live())
    throw_bad_op(handle, where);
  return ops_[index];
}

void RankState::free_op(MPI_Op& handle, const char* where) {
  if (!is_user_op_handle(handle)) {
    const Op predefined = op_of(handle, where);  // MPI_ERR_OP for anything else
    throw Error(ErrorClass::MPI_ERR_OP, fmt::format("{}(op={})", where, to_string(predefined)),
                "predefined ops cannot be freed");
  }
  user_op(handle, where);  // checks
  ops_[handle_bits(handle) & kHandleIndexMask] = {};
  handle = MPI_OP_NULL;
}

RankState::~RankState() {
  for (const auto& [block, bytes] : allocated_memory) std::free(block);
}

// ---- communicators

void RankState::set_up(std::unique_ptr<Context> c) {
  context = std::move(c);
  // Entries for MPI_COMM_WORLD and MPI_COMM_SELF from the start (their handlers report
  // the errors of calls without a communicator), live only in the World model.
  comms_ = {{nullptr, MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD"}, {nullptr, MPI_ERRORS_ARE_FATAL, "MPI_COMM_SELF"}};
  groups_ = {std::make_shared<const Group>(std::vector<int>{}, context->world().rank())};
  infos.set_up(context->world().size());
}

void RankState::open_world() {
  comms_[0].comm = &context->world();
  comms_[1].comm = &context->self();
  initialized = true;
}

void RankState::close_world() {
  for (std::size_t i = 0; i < 2; ++i) {
    comms_[i].comm = nullptr;
    // Errors without a communicator go to the initial handler again (MPI-4.0 §9.3).
    release_errhandler(std::exchange(comms_[i].errhandler, MPI_ERRORS_ARE_FATAL));
  }
  finalized = true;
}

int RankState::open_sessions() const noexcept { return sessions ? sessions->open() : 0; }

void RankState::throw_bad_comm(MPI_Comm handle, const char* where) const {
  if (handle == MPI_COMM_NULL)
    throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm)", where), "comm is MPI_COMM_NULL");
  if (handle == MPI_COMM_WORLD || handle == MPI_COMM_SELF) {
    const char* name = handle == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF";
    throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm={})", where, name),
                finalized ? fmt::format("{} is gone: MPI_Finalize was called (sessions still open do not keep it)",
                                        name)
                          : fmt::format("{} exists only after MPI_Init; a program that uses sessions only makes its "
                                        "communicators with MPI_Group_from_session_pset and "
                                        "MPI_Comm_create_from_group",
                                        name));
  }
  throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm=0x{:x})", where, handle_bits(handle)),
              "not a communicator handle (never created, or freed)");
}

MPI_Comm RankState::add_comm(const Communicator* comm, MPI_Errhandler inherited) {
  if (comm == nullptr) return MPI_COMM_NULL;
  check_handle_room(comms_.size(), "MPI_Comm_* (a new communicator)", "communicators");
  comms_.push_back({comm, inherited, {}});
  hold_errhandler(inherited);
  return handle_of(kCommBase, comms_.size() - 1);
}

MPI_Comm RankState::reserve_comm(MPI_Errhandler inherited) {
  check_handle_room(comms_.size(), "MPI_Comm_idup", "communicators");
  comms_.push_back({nullptr, inherited, {}});
  hold_errhandler(inherited);
  return handle_of(kCommBase, comms_.size() - 1);
}

void RankState::fill_comm(MPI_Comm handle, const Communicator* comm) {
  comms_[handle_bits(handle) & kHandleIndexMask].comm = comm;
}

void RankState::free_comm(MPI_Comm handle, const char* where) {
  CommEntry& e = comm_entry(handle, where);
  context->comm_free(e.comm);  // checks (COMM_WORLD/SELF) and nulls it
  release_errhandler(std::exchange(e.errhandler, MPI_ERRORS_ARE_FATAL));
}

void RankState::abandon_reserved_comm(MPI_Comm handle) {
  CommEntry& e = comms_[handle_bits(handle) & kHandleIndexMask];
  release_errhandler(std::exchange(e.errhandler, MPI_ERRORS_ARE_FATAL));
}

MPI_Comm RankState::comm_reporting(MPI_Comm handle) const {
  const std::uint32_t b = handle_bits(handle);
  const std::size_t index = b & kHandleIndexMask;
  if ((b & ~kHandleIndexMask) == kCommBase && index < comms_.size() && comms_[index].comm != nullptr) return handle;
  return MPI_COMM_WORLD;
}

void RankState::set_errhandler(MPI_Comm comm, MPI_Errhandler handler, const char* where) {
  CommEntry& e = comm_entry(comm, where);
  errhandler_function(handler, where);  // checks
  if (is_session_errhandler(handler))
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(errhandler=0x{:x})", where, handle_bits(handler)),
                "an error handler of MPI_Session_create_errhandler cannot be set on a communicator");
  hold_errhandler(handler);  // first: the old and the new one may be the same
  release_errhandler(std::exchange(e.errhandler, handler));
}

// ---- error handlers

MPI_Errhandler RankState::add_errhandler(MPI_Comm_errhandler_function* function, bool for_sessions) {
  check_handle_room(errhandlers_.size(),
                    for_sessions ? "MPI_Session_create_errhandler" : "MPI_Comm_create_errhandler", "error handlers");
  errhandlers_.push_back({function, 1, 0, for_sessions});
  return handle_of(kUserErrhandlerBase, errhandlers_.size() - 1);
}

bool RankState::is_session_errhandler(MPI_Errhandler handle) const {
  const std::uint32_t b = handle_bits(handle);
  const std::size_t index = b & kHandleIndexMask;
  return (b & ~kHandleIndexMask) == kUserErrhandlerBase && index < errhandlers_.size() &&
         errhandlers_[index].function != nullptr && errhandlers_[index].for_sessions;
}

MPI_Comm_errhandler_function* RankState::errhandler_function(MPI_Errhandler handle, const char* where) const {
  if (is_predefined_errhandler(handle)) return nullptr;
  if (handle == MPI_ERRHANDLER_NULL)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(errhandler)", where), "errhandler is MPI_ERRHANDLER_NULL");
  const std::uint32_t b = handle_bits(handle);
  const std::size_t index = b & kHandleIndexMask;
  if ((b & ~kHandleIndexMask) != kUserErrhandlerBase || index >= errhandlers_.size() ||
      errhandlers_[index].handle_refs == 0)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(errhandler=0x{:x})", where, b),
                "not an error handler handle (neither predefined nor made by MPI_Comm_create_errhandler or "
                "MPI_Session_create_errhandler, or freed)");
  return errhandlers_[index].function;
}

MPI_Comm_errhandler_function* RankState::errhandler_in_use(MPI_Errhandler handle) const {
  return errhandlers_[handle_bits(handle) & kHandleIndexMask].function;
}

MPI_Errhandler RankState::get_errhandler(MPI_Comm comm, const char* where) {
  return new_errhandler_handle(comm_entry(comm, where).errhandler);
}

MPI_Errhandler RankState::new_errhandler_handle(MPI_Errhandler handler) {
  if (!is_predefined_errhandler(handler)) ++errhandlers_[handle_bits(handler) & kHandleIndexMask].handle_refs;
  return handler;
}

void RankState::free_errhandler(MPI_Errhandler& handle, const char* where) {
  if (errhandler_function(handle, where) != nullptr) {  // checks
    ErrhandlerEntry& e = errhandlers_[handle_bits(handle) & kHandleIndexMask];
    if (--e.handle_refs == 0 && e.comm_refs == 0) e = {};
  }
  handle = MPI_ERRHANDLER_NULL;
}

// ---- user-defined error classes and codes

int RankState::add_error_class(const char* where) {
  if (last_used_code() == std::numeric_limits<int>::max())
    throw Error(ErrorClass::MPI_ERR_INTERN, where, "no error code values left");
  user_errors_.push_back({last_used_code() + 1, {}});
  if (attributes) attributes->predefined.lastusedcode = last_used_code();
  return last_used_code();
}

int RankState::add_error_code(int error_class, const char* where) {
  const UserErrorCode* user = user_error(error_class);
  const bool predefined = error_class != MPI_SUCCESS && error_class != MPI_ERR_LASTCODE &&
                          (error_class == MPI_ERR_UNKNOWN ||
                           error_class_from_int(error_class) != ErrorClass::MPI_ERR_UNKNOWN);
  if (!predefined && (user == nullptr || user->error_class != error_class))
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(errorclass={})", where, error_class),
                "not an error class (predefined but MPI_SUCCESS, or made by MPI_Add_error_class)");
  if (last_used_code() == std::numeric_limits<int>::max())
    throw Error(ErrorClass::MPI_ERR_INTERN, where, "no error code values left");
  user_errors_.push_back({error_class, {}});
  if (attributes) attributes->predefined.lastusedcode = last_used_code();
  return last_used_code();
}

void RankState::set_error_string(int code, std::string_view text, const char* where) {
  if (user_error(code) == nullptr)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(errorcode={})", where, code),
                "not an error class or code made by MPI_Add_error_class or MPI_Add_error_code (predefined "
                "texts cannot be changed)");
  if (text.size() >= MPI_MAX_ERROR_STRING)
    throw Error(ErrorClass::MPI_ERR_ARG, fmt::format("{}(string)", where),
                fmt::format("{} characters; at most MPI_MAX_ERROR_STRING - 1 = {}", text.size(),
                            MPI_MAX_ERROR_STRING - 1));
  user_errors_[static_cast<std::size_t>(code - kFirstUserErrorCode)].text = text;
}

std::string RankState::describe_error(int code) const {
  const UserErrorCode* user = user_error(code);
  if (user == nullptr) return std::string(to_string(error_class_from_int(code)));
  const std::string_view kind = user->error_class == code ? "user-defined error class" : "user-defined error code";
  return fmt::format("{} {}{}{}", kind, code, user->text.empty() ? "" : ": ", user->text);
}

void RankState::hold_errhandler(MPI_Errhandler handler) {
  if (!is_predefined_errhandler(handler)) ++errhandlers_[handle_bits(handler) & kHandleIndexMask].comm_refs;
}

void RankState::release_errhandler(MPI_Errhandler handler) {
  if (is_predefined_errhandler(handler)) return;
  ErrhandlerEntry& e = errhandlers_[handle_bits(handler) & kHandleIndexMask];
  if (--e.comm_refs == 0 && e.handle_refs == 0) e = {};
}

// ---- groups

const GroupPtr& RankState::group(MPI_Group handle, const char* where, const char* arg) {
  if (handle == MPI_GROUP_NULL)
    throw Error(ErrorClass::MPI_ERR_GROUP, fmt::format("{}({})", where, arg), "group is MPI_GROUP_NULL");
  const std::uint32_t b = handle_bits(handle);
  const std::size_t index = b & kHandleIndexMask;
  if ((b & ~kHandleIndexMask) != kGroupBase || index >= groups_.size() || !groups_[index])
    throw Error(ErrorClass::MPI_ERR_GROUP, fmt::format("{}({}=0x{:x})", where, arg, b),
                "not a group handle (never created, or freed)");
  return groups_[index];
}

MPI_Group RankState::add_group(GroupPtr g) {
  if (g->size() == 0) return MPI_GROUP_EMPTY;
  check_handle_room(groups_.size(), "MPI_Group_* (a new group)", "groups");
  groups_.push_back(std::move(g));
  return handle_of(kGroupBase, groups_.size() - 1);
}

void RankState::free_group(MPI_Group& handle, const char* where) {
  group(handle, where);  // checks
  if (handle == MPI_GROUP_EMPTY) {  // predefined: the handle goes, the group stays
    handle = MPI_GROUP_NULL;
    return;
  }
  group_free(groups_[handle_bits(handle) & kHandleIndexMask]);
  handle = MPI_GROUP_NULL;
}

// ---- datatypes

const DatatypePtr& RankState::derived_type(MPI_Datatype handle, const char* where, const char* arg) {
  const std::uint32_t b = handle_bits(handle);
  const std::size_t index = b & kHandleIndexMask;
  if ((b & ~kHandleIndexMask) == kDerivedTypeBase && index < types_.size() && types_[index]) return types_[index];
  throw_bad_type(handle, where, arg);
}

void RankState::throw_bad_type(MPI_Datatype handle, const char* where, const char* arg) {
  if (handle == MPI_DATATYPE_NULL)
    throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}({})", where, arg), "datatype is MPI_DATATYPE_NULL");
  throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}({}=0x{:x})", where, arg, handle_bits(handle)),
              "not a datatype handle (never created, or freed)" + foreign_datatype_hint(handle_bits(handle)));
}

MPI_Datatype RankState::add_type(DatatypePtr t) {
  check_handle_room(types_.size(), "MPI_Type_* (a new datatype)", "derived datatypes");
  types_.push_back(std::move(t));
  return handle_of(kDerivedTypeBase, types_.size() - 1);
}

void RankState::free_type(MPI_Datatype& handle, const char* where) {
  const DatatypePtr& t = type(handle, where);
  if (t->is_predefined())
    throw Error(ErrorClass::MPI_ERR_TYPE, fmt::format("{}(datatype={})", where, t->get_name()),
                "predefined datatypes cannot be freed");
  types_[handle_bits(handle) & kHandleIndexMask].reset();
  handle = MPI_DATATYPE_NULL;
}

// ---- requests

namespace {
std::uint32_t request_index(MPI_Request handle) { return handle_bits(handle) & kHandleIndexMask; }
}  // namespace

MPI_Request RankState::add_request(RequestId id, MPI_Comm comm, const char* what) {
  std::uint32_t index;
  if (!free_requests_.empty()) {
    index = free_requests_.back();
    free_requests_.pop_back();
  } else {
    if (requests_.size() > kHandleIndexMask) {
      detached_.push_back(id);  // it completes on its own, like a freed request
      throw Error(ErrorClass::MPI_ERR_INTERN, what, "more than 16M requests outstanding on one rank");
    }
    index = static_cast<std::uint32_t>(requests_.size());
    requests_.emplace_back();
  }
  requests_[index] = RequestEntry{id, comm, what, nullptr, false, nullptr, nullptr};
  return static_cast<MPI_Request>(kRequestBase + index);
}

MPI_Request RankState::add_collective_request(RequestId id, MPI_Comm comm, const char* what,
                                              std::shared_ptr<const void> kept) {
  const MPI_Request handle = add_request(id, comm, what);
  RequestEntry& e = requests_[request_index(handle)];
  e.collective = true;
  e.kept = std::move(kept);
  return handle;
}

MPI_Request RankState::add_persistent(PersistentOp op, const char* what) {
  const MPI_Comm comm = op.comm;
  MPI_Request handle = add_request(kRequestNull, comm, what);
  requests_[request_index(handle)].persistent = std::make_unique<PersistentOp>(std::move(op));
  return handle;
}

RequestEntry* RankState::request(MPI_Request handle, const char* where) {
  if (handle == MPI_REQUEST_NULL) return nullptr;
  const std::uint32_t b = handle_bits(handle);
  const std::size_t index = b & kHandleIndexMask;
  if ((b & ~kHandleIndexMask) != kRequestBase || index >= requests_.size() ||
      (requests_[index].id == kRequestNull && !requests_[index].persistent))
    throw Error(ErrorClass::MPI_ERR_REQUEST, fmt::format("{}(request=0x{:x})", where, b),
                "not an active request handle (already completed or freed?)");
  RequestEntry& e = requests_[index];
  return e.id == kRequestNull ? nullptr : &e;  // an inactive persistent request
}

RequestEntry& RankState::persistent(MPI_Request handle, const char* where) {
  const std::uint32_t b = handle_bits(handle);
  const std::size_t index = b & kHandleIndexMask;
  if (handle == MPI_REQUEST_NULL || (b & ~kHandleIndexMask) != kRequestBase || index >= requests_.size() ||
      !requests_[index].persistent)
    throw Error(ErrorClass::MPI_ERR_REQUEST, fmt::format("{}(request=0x{:x})", where, b),
                "not a persistent request (made by MPI_Send_init, MPI_Recv_init, ..., or a persistent collective's MPI_X_init)");
  return requests_[index];
}

void RankState::release_request(MPI_Request& handle) {
  RequestEntry& e = requests_[request_index(handle)];
  if (e.persistent) {
    e.id = kRequestNull;  // inactive until the next MPI_Start
    return;
  }
  free_request(handle);
}

void RankState::free_request(MPI_Request& handle) {
  const std::uint32_t index = request_index(handle);
  requests_[index] = {};
  free_requests_.push_back(index);
  handle = MPI_REQUEST_NULL;
}

MPI_Message RankState::add_message(MessageId id, MPI_Comm comm) {
  std::uint32_t index;
  if (!free_messages_.empty()) {
    index = free_messages_.back();
    free_messages_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(messages_.size());
    messages_.emplace_back();
  }
  messages_[index] = MessageEntry{id, comm};
  return static_cast<MPI_Message>(kMessageBase + index);
}

void RankState::check_message_room(const char* where) const {
  if (free_messages_.empty() && messages_.size() > kHandleIndexMask)
    throw Error(ErrorClass::MPI_ERR_INTERN, where, "more than 16M matched messages not received on one rank");
}

MessageId RankState::message(MPI_Message handle, const char* where) const {
  if (handle == MPI_MESSAGE_NO_PROC) return kMessageNoProc;
  const std::uint32_t b = handle_bits(handle);
  if (handle == MPI_MESSAGE_NULL)
    throw Error(ErrorClass::MPI_ERR_REQUEST, fmt::format("{}(message)", where), "message is MPI_MESSAGE_NULL");
  const std::size_t index = b & kHandleIndexMask;
  if ((b & ~kHandleIndexMask) != kMessageBase || index >= messages_.size() || messages_[index].id == kMessageNull)
    throw Error(ErrorClass::MPI_ERR_REQUEST, fmt::format("{}(message=0x{:x})", where, b),
                "not a matched message handle (already received, or not made by MPI_Mprobe or MPI_Improbe)");
  return messages_[index].id;
}

MPI_Comm RankState::comm_of_message(MPI_Message handle) const {
  const std::uint32_t b = handle_bits(handle);
  const std::size_t index = b & kHandleIndexMask;
  if ((b & ~kHandleIndexMask) != kMessageBase || index >= messages_.size() || messages_[index].id == kMessageNull)
    return MPI_COMM_WORLD;
  return messages_[index].comm;
}

void RankState::release_message(MPI_Message& handle) {
  if (handle != MPI_MESSAGE_NO_PROC) {
    const std::uint32_t index = handle_bits(handle) & kHandleIndexMask;
    messages_[index] = {};
    free_messages_.push_back(index);
  }
  handle = MPI_MESSAGE_NULL;
}

void RankState::detach_request(MPI_Request& handle) {
  const RequestId id = requests_[request_index(handle)].id;
  if (id != kRequestNull) detached_.push_back(id);
  free_request(handle);
}

void RankState::reap_detached_requests(bool wait_all) {
  std::size_t kept = 0;
  for (RequestId id : detached_) {
    if (wait_all)
      context->wait(id);
    else if (!context->test(id))
      detached_[kept++] = id;
  }
  detached_.resize(kept);
}

}  // namespace twinfab::mpi::capi
