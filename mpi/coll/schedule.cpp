#include "mpi/coll/schedule.hpp"

#include <utility>

namespace twinfab::mpi::coll {

namespace {
// A nonblocking collective's tags: the bit, 13 bits of the call's sequence number
// (8192 calls may be in flight on one communicator before two could share a tag),
// and the step in the low 16 bits.
int nonblocking_tag_base(const Communicator& comm) {
  return kNonblockingTagBit | static_cast<int>((comm.next_nonblocking_sequence() & 0x1fffU) << 16);
}
}  // namespace

Schedule::Schedule(const Communicator& comm, Kind kind, const char* where, Mode mode)
    : comm_(&comm), target_(&comm), where_(where), mode_(mode),
      tag_base_(mode == Mode::Nonblocking ? nonblocking_tag_base(comm) : tag(kind)) {
  reserve();
}

Schedule::Schedule(const Communicator& comm, TagBase tag_base, const char* where)
    : comm_(&comm), target_(&comm), where_(where), mode_(Mode::Nonblocking), tag_base_(tag_base.value) {
  reserve();
}

Schedule::~Schedule() {
  comm_->drop_schedule();
  if (comm_->local_comm() != nullptr) comm_->local_comm()->drop_schedule();
}

void Schedule::reserve() {
  comm_->add_schedule();
  if (comm_->local_comm() != nullptr) comm_->local_comm()->add_schedule();
  // Enough for the log2(n)-round algorithms up to a few hundred ranks within the arena.
  steps_.reserve(20);
  types_.reserve(2);
}

void Schedule::add(Step step) { steps_.push_back(step); }

std::uint32_t Schedule::type_index(const DatatypePtr& type) {
  // The last few suffice to find a collective's one or two types; with a type per
  // peer (alltoallw) a repeat further back is just held twice.
  const std::size_t n = types_.size();
  for (std::size_t i = n; i > 0 && i + 4 > n; --i)
    if (types_[i - 1] == type) return static_cast<std::uint32_t>(i - 1);
  types_.push_back(type);
  return static_cast<std::uint32_t>(n);
}

void Schedule::send(const void* buffer, std::int64_t count, const DatatypePtr& type, int peer, int step) {
  Step s;
  s.kind = Step::Kind::Send;
  s.local = target_ != comm_;
  s.peer = comm_rank(peer);
  s.tag = tag_base_ | (step & 0xffff);
  s.in = buffer;
  s.in_count = count;
  s.in_type = type_index(type);
  add(std::move(s));
}

void Schedule::recv(void* buffer, std::int64_t count, const DatatypePtr& type, int peer, int step) {
  Step s;
  s.kind = Step::Kind::Recv;
  s.local = target_ != comm_;
  s.peer = comm_rank(peer);
  s.tag = tag_base_ | (step & 0xffff);
  s.out = buffer;
  s.out_count = count;
  s.out_type = type_index(type);
  add(std::move(s));
}

void Schedule::copy(const void* in, std::int64_t in_count, const DatatypePtr& in_type, void* out,
                    std::int64_t out_count, const DatatypePtr& out_type) {
  Step s;
  s.kind = Step::Kind::Copy;
  s.in = in;
  s.in_count = in_count;
  s.in_type = type_index(in_type);
  s.out = out;
  s.out_count = out_count;
  s.out_type = type_index(out_type);
  add(std::move(s));
}

void Schedule::reduce(const ReductionOp& op, const void* in, void* inout, std::int64_t count,
                      const DatatypePtr& type) {
  Step s;
  s.kind = Step::Kind::Reduce;
  s.in = in;
  s.out = inout;
  s.in_count = count;
  s.in_type = type_index(type);
  s.op = op;
  add(std::move(s));
}

void Schedule::next_round() {
  const std::size_t begin = round_ends_.empty() ? 0 : round_ends_.back();
  if (steps_.size() > begin) round_ends_.push_back(steps_.size());
}

void* Schedule::scratch(std::int64_t count, const Datatype& type) {
  if (count <= 0 || type.size() == 0) return nullptr;
  scratch_.emplace_back(count, type, &memory_);
  return scratch_.back().data();
}

void Schedule::record(const Error& error, int rank) {
  if (error_) return;
  error_.emplace(error);
  error_rank_ = rank;
}

void Schedule::start_round(Context& context) {
  const std::size_t begin = round_ == 0 ? 0 : round_ends_[round_ - 1];
  for (std::size_t i = begin; i < round_ends_[round_]; ++i) {
    const Step& step = steps_[i];
    const Communicator& comm = step.local ? *comm_->local_comm() : *comm_;
    try {
      switch (step.kind) {
        case Step::Kind::Send:
          pending_.push_back(context.coll_isend(step.in, step.in_count, types_[step.in_type], step.peer, step.tag, comm,
                                                where_));
          break;
        case Step::Kind::Recv:
          pending_.push_back(context.coll_irecv(step.out, step.out_count, types_[step.out_type], step.peer, step.tag,
                                                comm, where_));
          break;
        case Step::Kind::Copy:
          local_copy(step.in, step.in_count, *types_[step.in_type], step.out, step.out_count, *types_[step.out_type],
                     where_);
          break;
        case Step::Kind::Reduce:
          reduce_local(step.op, step.in, step.out, step.in_count, *types_[step.in_type], where_);
          break;
      }
    } catch (const Error& error) {
      // A local step's error (a truncating copy; an error a user-defined op raised
      // through MPI): the other steps still run.
      record(error, comm_->rank());
    }
  }
}

std::size_t Schedule::advance(Context& context) {
  std::size_t steps = 0;
  while (!done_) {
    if (!round_started_) {
      // An empty schedule (a collective with nothing to move) is done at once.
      if (round_ == 0) next_round();
      if (round_ends_.empty()) {
        done_ = true;
        return steps + 1;
      }
      start_round(context);
      round_started_ = true;
      ++steps;
    }
    // Collect the finished transfers, keeping the others in posting order.
    std::size_t kept = 0;
    for (RequestId id : pending_) {
      if (!context.is_done(id)) {
        pending_[kept++] = id;
        continue;
      }
      RequestId finished = id;
      const MessageStatus status = context.wait(finished);  // done: no waiting
      if (status.error != ErrorClass::MPI_SUCCESS) {
        try {
          check_received(status, where_);
        } catch (const Error& error) {
          record(error, status.source);
        }
      }
      ++steps;
    }
    pending_.resize(kept);
    if (!pending_.empty()) return steps;
    round_started_ = false;
    if (++round_ == round_ends_.size()) done_ = true;
  }
  return steps;
}

void Schedule::run(Context& context) {
  advance(context);
  while (!done_) {
    context.progress_or_wait();
    advance(context);
  }
  if (error_) throw *error_;
}

MessageStatus Schedule::status() const {
  MessageStatus status;
  if (error_) {
    status.error = error_->error_class();
    status.source = error_rank_;
  }
  return status;
}

RequestId execute(Context& context, std::unique_ptr<Schedule> schedule) {
  if (schedule->nonblocking()) return context.start_operation(std::move(schedule));
  schedule->run(context);
  return kRequestNull;
}

}  // namespace twinfab::mpi::coll
