// twinfab MPI coll: a collective algorithm as a schedule of rounds (libNBC's and
// MPICH's "sched" design), run to completion by a blocking collective or advanced by
// the progress engine for a nonblocking one.
//
// Every algorithm in mpi/coll is written once, as a function that adds steps to a
// Schedule: sends and receives in the communicator's collective matching space,
// local copies and local reductions. Steps are grouped into rounds: a round's steps
// start together, in the order they were added (a copy or reduction runs on the
// spot, a transfer is posted), and the next round starts once every transfer of the
// round has completed. So "receive from the child; reduce what came" is
// recv(); next_round(); reduce().
//
// Blocking collectives run() their schedule: it advances, waits through
// Context::progress_or_wait when it must, and throws the first error once every
// transfer has ended (no transfer outlives the call, and no rank's message is left to
// match a later collective). Nonblocking collectives hand it to start(): the context
// advances it at every progress (background_operation.hpp) and its request completes
// with the first error's class.
//
// Tags: a blocking collective's steps carry tag(kind, step) (coll_support.hpp); a
// nonblocking one's carry kNonblockingTagBit, the communicator's sequence number of
// the call and the step, so that concurrent nonblocking collectives on one
// communicator, and blocking ones started while they run, never match each other's
// messages. Within one schedule, messages between two ranks are matched in the order
// their rounds post them (non-overtaking).
//
// After an error (a truncated receive, a local copy that does not fit) the schedule
// still runs every step, so the other ranks are not left waiting for messages this
// rank would not send; the data may then be wrong, and the error says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <array>
#include <memory_resource>
#include <optional>
#include <span>
#include <vector>

#include "mpi/coll/coll_support.hpp"
#include "mpi/core/background_operation.hpp"

namespace twinfab::mpi::coll {

/// Set in the tags of nonblocking collectives' messages (blocking ones use
/// tag(kind, step), below 2^24).
inline constexpr int kNonblockingTagBit = 1 << 29;
/// Set in the tags of MPI_Comm_idup's agreement messages (mpi/core/comm_idup.cpp).
inline constexpr int kIdupTagBit = 1 << 28;
/// Set in the tags of MPI_Comm_create_from_group's agreement messages, on
/// COMM_WORLD (mpi/core/comm_create.cpp); bits 16-26 and the step hold the stringtag's.
inline constexpr int kFromGroupTagBit = 1 << 27;

class Schedule final : public BackgroundOperation {
 public:
  /// The schedule of a blocking collective of `kind` (tags tag(kind, step)), or of a
  /// nonblocking one, which takes the communicator's next sequence number for its
  /// tags (so every rank must make one for each nonblocking call, even with nothing
  /// to move). `where` names the MPI function in errors.
  Schedule(const Communicator& comm, Kind kind, const char* where, Mode mode);
  /// A schedule whose steps' tags are `tag_base` | step, for an operation that keeps
  /// its own tag space (MPI_Comm_idup's agreement, mpi/core/comm_idup.cpp); run or
  /// advanced by its owner, never through execute().
  struct TagBase {
    int value;
  };
  Schedule(const Communicator& comm, TagBase tag_base, const char* where);
  /// Counted in the communicator (and an intercommunicator's local one) while it
  /// lives: see Communicator::add_schedule.
  ~Schedule() override;
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  /// The communicator the steps added now address: the schedule's, or the local
  /// intracommunicator of an intercommunicator's between local_group(true) and
  /// local_group(false). Algorithms take ranks and sizes from here, so the same
  /// builder serves an intracommunicator and an intercommunicator's local group.
  const Communicator& comm() const noexcept { return *target_; }
  /// For an intercommunicator's schedule (intercomm.cpp): whether the steps added
  /// next run in its local group (on its local intracommunicator, same tags) or
  /// address the remote group (the default).
  void local_group(bool local) noexcept { target_ = local ? comm_->local_comm() : comm_; }
  /// The ranks the steps added next address, and this rank's place among them: all
  /// of comm() (the default), or a subset of its ranks (the node-aware algorithms run
  /// the flat ones on a host's members, then on one rank per host; node_aware.cpp).
  /// The algorithms take size() and rank() from here and name peers by their index
  /// in the subset, which send() and recv() turn into comm() ranks.
  int size() const noexcept { return view_.empty() ? target_->size() : static_cast<int>(view_.size()); }
  int rank() const noexcept { return view_.empty() ? target_->rank() : view_rank_; }
  /// Restricts the steps added next to `members` (comm() ranks, which must outlive
  /// the schedule: keep() what holds them), this rank being members[my_index], except
  /// that entry `substitute` (if >= 0) stands for comm() rank `substitute_rank`. An
  /// empty subset restores all of comm().
  void view(std::span<const int> members, int my_index, int substitute = -1, int substitute_rank = -1) noexcept {
    view_ = members;
    view_rank_ = my_index;
    substitute_ = substitute;
    substitute_rank_ = substitute_rank;
  }
  void view_all() noexcept { view(std::span<const int>(), 0); }
  const char* where() const noexcept { return where_; }
  bool nonblocking() const noexcept { return mode_ == Mode::Nonblocking; }

  // ---- building. `step` distinguishes the messages of an algorithm's steps (0-65535).
  void send(const void* buffer, std::int64_t count, const DatatypePtr& type, int peer, int step = 0);
  void recv(void* buffer, std::int64_t count, const DatatypePtr& type, int peer, int step = 0);
  /// A local copy, as coll::local_copy (MPI_ERR_TRUNCATE when the input is longer).
  void copy(const void* in, std::int64_t in_count, const DatatypePtr& in_type, void* out, std::int64_t out_count,
            const DatatypePtr& out_type);
  /// inout = in op inout, as reduce_local.
  void reduce(const ReductionOp& op, const void* in, void* inout, std::int64_t count, const DatatypePtr& type);
  /// Ends the current round: the steps added next start once every transfer added
  /// so far has completed. An empty round is not made.
  void next_round();
  /// Scratch memory the schedule owns, laid out as TempBuffer (coll_support.hpp);
  /// null for no data.
  void* scratch(std::int64_t count, const Datatype& type);
  /// Keeps `object` alive as long as the schedule (a user-defined op's binding, say).
  void keep(std::shared_ptr<const void> object) { kept_.push_back(std::move(object)); }

  // ---- running
  /// Blocking: runs every step, then throws the first error.
  void run(Context& context);
  std::size_t advance(Context& context) override;
  bool done() const noexcept override { return done_; }
  MessageStatus status() const override;

 private:
  struct Step {
    enum class Kind : std::uint8_t { Send, Recv, Copy, Reduce };
    Kind kind = Kind::Send;
    bool local = false;  ///< addresses the local group of an intercommunicator (local_group())
    int peer = 0;
    int tag = 0;
    const void* in = nullptr;
    void* out = nullptr;
    std::int64_t in_count = 0;
    std::int64_t out_count = 0;
    std::uint32_t in_type = 0;   ///< index in types_
    std::uint32_t out_type = 0;  ///< index in types_
    ReductionOp op = Op::NoOp;
  };
  void add(Step step);
  /// The comm() rank of the view's member `peer`.
  int comm_rank(int peer) const noexcept {
    if (view_.empty()) return peer;
    return peer == substitute_ ? substitute_rank_ : view_[static_cast<std::size_t>(peer)];
  }
  void reserve();
  /// The index of `type` in types_, added if new: steps name their datatypes by index,
  /// so that a step holds no reference count (a collective uses one or two types).
  std::uint32_t type_index(const DatatypePtr& type);
  void start_round(Context& context);
  /// Keeps the first error: what run() throws and status() reports.
  void record(const Error& error, int rank);

  const Communicator* comm_;
  const Communicator* target_;  ///< comm(): comm_ or its local intracommunicator
  std::span<const int> view_;   ///< see view(); empty: all of comm()
  int view_rank_ = 0;
  int substitute_ = -1;
  int substitute_rank_ = -1;
  const char* where_;
  Mode mode_;
  int tag_base_;
  // A collective is short-lived and small: its steps, rounds and transfers live in
  // an arena inside the schedule (more spill to the heap), so a blocking collective
  // costs one allocation for its bookkeeping instead of one per vector growth (they
  // were a fifth of a 2-rank barrier's or allreduce's cost).
  std::array<std::byte, 4096> arena_;
  std::pmr::monotonic_buffer_resource memory_{arena_.data(), arena_.size()};
  std::pmr::vector<Step> steps_{&memory_};
  std::pmr::vector<DatatypePtr> types_{&memory_};  ///< held: the program may free them meanwhile
  std::pmr::vector<std::size_t> round_ends_{&memory_};  ///< one past each round's last step
  std::pmr::vector<TempBuffer> scratch_{&memory_};  ///< moving one keeps its data() in place
  std::vector<std::shared_ptr<const void>> kept_;

  std::size_t round_ = 0;
  bool round_started_ = false;
  bool done_ = false;
  std::pmr::vector<RequestId> pending_{&memory_};  ///< the current round's transfers still running
  std::optional<Error> error_;
  int error_rank_ = kAnySource;
};

/// What a collective call does with its schedule: a blocking one runs it and returns
/// kRequestNull (or throws its first error); a nonblocking one starts it, the context
/// advancing it from then on, and returns its request.
RequestId execute(Context& context, std::unique_ptr<Schedule> schedule);

}  // namespace twinfab::mpi::coll
