// MPI_Comm_idup: the context id of the duplicate is agreed on in the background.
//
// A blocking constructor agrees on an id in one allreduce of the members' next free
// ids (comm_create.cpp): nothing else can take an id on a member meanwhile. An idup's
// agreement runs while its ranks make other communicators, and other idups, so a
// candidate that was free on every member when proposed may have been taken on one of
// them by the time the members learn it. So idups draw their ids from a space of
// their own (kFirstIdupContextId and up, apart from the blocking constructors'), and
// agree in rounds of two nonblocking allreduces:
//   1. the max of the members' proposals (each its next free idup id) is the
//      candidate;
//   2. every member claims the candidate, unless it is claimed already there (by a
//      communicator or another idup's round), and the min of the claims says whether
//      all did. Yes: the candidate is the id. No: those that claimed it give it back,
//      and the next round proposes above it.
// A member's claims are made one at a time, so two agreements can never both hold
// one id on a rank. Every member sees the same results, so all take the same number
// of rounds. In a retry, only one idup per rank may claim: the retrying one with the
// lowest (parent's context id, sequence number), a key every member sees alike; the
// others claim nothing and go round again. Without that, two idups started in
// opposite orders on two ranks (MPICH's comm_idup_overlap) each win the shared
// candidate on one rank and lose it on the other, round after round; with it, the
// lowest one wins once no first-round claim is in its way. (First rounds claim
// freely, so an idup that meets no conflict never waits for another communicator's.)
// MPICH (MPIR_Get_contextid_nonblock, which lets only the lowest context id at the
// head of its queue take from the mask) and Open MPI (ompi_comm_nextcid_nb) use the
// same claim-and-retry scheme over masks of ids.
//
// An intercommunicator's duplicate needs its id and the next (its local
// intracommunicator's, intercomm.cpp) free on every member of both groups: its rounds
// claim both, and its allreduces run over both groups (a reduction in each group, the
// leaders swap the results, each broadcasts the other's in its group, and every member
// combines the two).
//
// Tags: the rounds carry kIdupTagBit, the call's nonblocking sequence number on the
// parent (taken at the call, so the same on every member), and the phase; they stay
// apart from every collective's, and the rounds of one idup from each other.
#include <algorithm>
#include <set>
#include <utility>

#include "mpi/coll/algorithms.hpp"
#include "mpi/core/context.hpp"

namespace twinfab::mpi {

class IdupOperation final : public BackgroundOperation {
 public:
  IdupOperation(Context& context, const Communicator& comm, std::function<void(const Communicator*)> on_done)
      : comm_(comm), sequence_(comm.next_nonblocking_sequence()), on_done_(std::move(on_done)),
        retrying_(context.retrying_idups_), key_(comm.context_id(), sequence_) {
    // Propose the next free idup id, and move past it: a second idup started before
    // this one ends proposes above it.
    proposal_ = context.next_idup_context_id_;
    context.next_idup_context_id_ = proposal_ + width();
  }

  ~IdupOperation() override { retrying_.erase(key_); }
  IdupOperation(const IdupOperation&) = delete;
  IdupOperation& operator=(const IdupOperation&) = delete;

  std::size_t advance(Context& context) override {
    std::size_t steps = 0;
    while (!done_) {
      if (!schedule_) start_phase(context);
      steps += schedule_->advance(context);
      if (!schedule_->done()) return steps;
      if (schedule_->status().error != ErrorClass::MPI_SUCCESS) {
        status_ = schedule_->status();
        done_ = true;
        break;
      }
      schedule_.reset();
      finish_phase(context);
      ++phase_;
    }
    return steps;
  }
  bool done() const noexcept override { return done_; }
  MessageStatus status() const override { return status_; }

 private:
  void start_phase(Context& context) {
    const int tag_base = coll::kIdupTagBit | static_cast<int>((sequence_ & 0xfffU) << 16) | ((phase_ & 0xff) << 8);
    schedule_ = std::make_unique<coll::Schedule>(comm_, coll::Schedule::TagBase{tag_base}, "MPI_Comm_idup");
    const DatatypePtr& type = context.datatype(BasicKind::Uint32);
    if (phase_ % 2 == 0) {
      candidate_ = proposal_;
      add_allreduce(*schedule_, &candidate_, type, Op::Max);
    } else {
      add_allreduce(*schedule_, &all_claimed_, type, Op::Min);
    }
  }

  /// The ids a duplicate takes: 2 (an intracommunicator's), or 4 (an
  /// intercommunicator's and its local intracommunicator's).
  std::uint32_t width() const noexcept { return comm_.is_inter() ? 4 : 2; }

  /// `value` becomes its op over every member of comm_, of both groups for an
  /// intercommunicator.
  static void add_allreduce(coll::Schedule& schedule, std::uint32_t* value, const DatatypePtr& type, Op op) {
    if (schedule.comm().is_inter())
      coll::add_allreduce_both_groups(schedule, value, 1, type, op);
    else
      coll::add_allreduce(schedule, kInPlace, value, 1, type, op);
  }

  /// Claims the candidate's ids on this rank: all of them, or none.
  bool claim(Context& context) const {
    auto& claimed = context.claimed_idup_context_ids_;
    for (std::uint32_t i = 0; i < width(); i += 2)
      if (claimed.contains(candidate_ + i)) return false;
    for (std::uint32_t i = 0; i < width(); i += 2) claimed.insert(candidate_ + i);
    return true;
  }

  void finish_phase(Context& context) {
    if (phase_ % 2 == 0) {
      // The candidate: claim it here unless something on this rank holds it, or, in a
      // retry, a retrying idup ahead of this one is in flight here.
      claimed_ = (phase_ == 0 || *retrying_.begin() == key_) && claim(context);
      all_claimed_ = claimed_ ? 1 : 0;
      return;
    }
    if (all_claimed_ == 0) {
      // Taken on some member: give it back here and propose above it.
      if (claimed_)
        for (std::uint32_t i = 0; i < width(); i += 2) context.claimed_idup_context_ids_.erase(candidate_ + i);
      retrying_.insert(key_);
      proposal_ = std::max(candidate_ + width(), context.next_idup_context_id_);
      context.next_idup_context_id_ = proposal_ + width();
      return;
    }
    context.next_idup_context_id_ = std::max(context.next_idup_context_id_, candidate_ + width());
    retrying_.erase(key_);
    const Communicator* result = nullptr;
    if (comm_.is_inter()) {
      std::vector<int> remote(static_cast<std::size_t>(comm_.peer_count()));
      for (int r = 0; r < comm_.peer_count(); ++r) remote[static_cast<std::size_t>(r)] = comm_.world_rank(r);
      result = context.emplace_intercommunicator(candidate_, comm_.rank(), comm_.world_ranks(), std::move(remote));
    } else {
      auto dup = std::make_unique<Communicator>(candidate_, comm_.rank(), comm_.world_ranks());
      dup->set_topology(comm_.shared_topology());  // MPI-3.1 §6.4.2: the topology comes along
      result = dup.get();
      context.communicators_.emplace(candidate_, std::move(dup));
    }
    done_ = true;
    on_done_(result);
  }

  const Communicator& comm_;
  std::uint32_t sequence_;  ///< the call's nonblocking sequence number on comm_
  std::function<void(const Communicator*)> on_done_;
  std::set<std::pair<ContextId, std::uint32_t>>& retrying_;  ///< the context's idups in a retry
  std::pair<ContextId, std::uint32_t> key_;
  int phase_ = 0;
  std::uint32_t proposal_ = 0;
  std::uint32_t candidate_ = 0;    ///< phase 0's allreduce works in place on it
  std::uint32_t all_claimed_ = 0;  ///< phase 1's, likewise
  bool claimed_ = false;
  std::unique_ptr<coll::Schedule> schedule_;
  bool done_ = false;
  MessageStatus status_;
};

RequestId Context::comm_idup(const Communicator& comm, std::function<void(const Communicator*)> on_done) {
  check_comm(comm, "MPI_Comm_idup");
  return start_operation(std::make_unique<IdupOperation>(*this, comm, std::move(on_done)));
}

}  // namespace twinfab::mpi
