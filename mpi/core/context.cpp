#include "mpi/core/context.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mpi/channels/rc_channel.hpp"
#include "mpi/channels/hybrid_channel.hpp"
#include "mpi/channels/node_channel.hpp"
#include "mpi/channels/ud_channel.hpp"

namespace twinfab::mpi {

// Out of line, so that its copies of the configuration are off the stack by the time
// the constructor builds the channel: that is the deepest point of MPI_Init, and every
// simulated rank's stack pages up to it are memory per rank (a Config on the
// constructor's frame more took them into another page; tests/mpi/c/memory_per_rank.py).
[[gnu::noinline]] std::shared_ptr<const Config> Context::resolve_config(const Config& config,
                                                                        Environment environment) {
  auto resolved = std::make_shared<Config>(config);
  if (environment == Environment::Apply)
    apply_environment_to(*resolved);
  else
    resolved->validate();
  return resolved;
}

Context::Context(fabric::Device& device, fabric::OobExchange& oob, const Config& config, Environment environment)
    : device_(device),
      config_block_(resolve_config(config, environment)),
      config_(*config_block_),
      world_(Communicator::identity(kWorldContextId, oob.rank(), oob.size())),
      self_(kSelfContextId, 0, std::vector<int>{oob.rank()}),
      node_(oob.node()),
      hosts_shared_(oob.hosts_shared()),
      registration_(device, config_.regcache,
                    regcache::Limits{config_.regcache_max_entries, config_.regcache_max_bytes, 4096}),
      engine_(oob.rank(), oob.size(), config_, requests_, registration_, HostWork(device)) {
  // The channel behind the interface (docs/channels.md); the engine and one-sided
  // communication follow its capabilities, never its kind.
  const auto network = [this, &device](fabric::OobExchange& view, PacketSink& sink) -> std::unique_ptr<Channel> {
    if (config_.transport == Transport::Ud) return std::make_unique<UdChannel>(device, view, config_, sink);
    if (config_.transport == Transport::Hybrid) return std::make_unique<HybridChannel>(device, view, config_, sink);
    return std::make_unique<RcChannel>(device, view, config_, sink);
  };
  // Only where a host may run several ranks of the job: one rank per host (a large
  // simulation) keeps the channel alone, and its memory per rank.
  fabric::SharedMemory* shared = config_.shm != 0 && oob.hosts_shared() ? device.shared_memory() : nullptr;
  if (shared == nullptr) {
    channel_ = network(oob, engine_);
  } else {
    // Shared memory to the ranks of this host (docs/shm.md). Every rank takes the same
    // OOB steps, with peers on its host or not: the network channel's, then one fence
    // for the shared-memory segments' names.
    oob_keys_ = std::make_unique<fabric::OobKeys>(oob);
    std::vector<int> local = oob.local_ranks();
    if (local.size() > 1) {
      channel_ = std::make_unique<NodeChannel>(*shared, device.runtime(), *oob_keys_, std::move(local),
                                               config_.shm_cells, engine_, network);
    } else {
      channel_ = network(oob_keys_->view(0), engine_);
    }
    oob_keys_->view(1).fence();
  }
  engine_.attach_channel(channel_.get());
}

fabric::DeviceCapabilities Context::capabilities() const noexcept {
  // What one-sided communication may use is what the channel offers: over a channel
  // without RDMA (UD) it takes its send/receive design and progress locks.
  fabric::DeviceCapabilities caps = device_.capabilities();
  const ChannelCapabilities& channel = channel_->capabilities();
  if (!channel.rdma_atomics) caps.atomics = false;
  if (!channel.rdma_write_with_imm) caps.write_with_imm = false;
  return caps;
}

Context::~Context() {
  // A rank that fails ends as a process that dies of an exception: its peers may be
  // waiting for it, so its channel must not wait for them on the way out (issue 35:
  // the collective shutdown deadlocked, and SimGrid's kill inside it crashed the run).
  if (std::uncaught_exceptions() > uncaught_at_start_ && channel_ != nullptr) channel_->abandon();
}

AsyncProgressAgent* Context::start_async_progress() {
  if (config_.async_progress == AsyncProgress::None || async_progress_) return async_progress_.get();
  async_progress_ = std::make_unique<AsyncProgressAgent>(*this, *channel_, device_.runtime(), config_.async_progress,
                                                         config_.async_progress_interval_us * 1e-6);
  return async_progress_.get();
}

void Context::check_derived_comm(const Communicator& comm, const char* where) const {
  // A derived communicator is live when the table still holds this very object. Freed
  // ones are kept (flagged) until the Context ends, so reading a stale reference is
  // safe, and their ids are never reused.
  if (comm.freed()) throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm)", where), "communicator was freed");
  auto it = communicators_.find(comm.context_id());
  if (it == communicators_.end() || it->second.get() != &comm)
    throw Error(ErrorClass::MPI_ERR_COMM, fmt::format("{}(comm)", where),
                "not a live communicator of this context (freed, or from another rank?)");
}

namespace {
/// The explanation of an MPI_ERR_RANK for a point-to-point peer.
std::string invalid_rank(const Communicator& comm) {
  return comm.is_inter() ? fmt::format("invalid rank; the remote group has {} ranks", comm.peer_count())
                         : fmt::format("invalid rank; communicator has {} ranks", comm.size());
}
}  // namespace

void Context::throw_bad_send(const char* where, const void* buffer, std::int64_t count, const DatatypePtr& type,
                             int dest, int tag, const Communicator& comm) {
  if (tag < 0 || tag > kTagUpperBound)
    throw Error(ErrorClass::MPI_ERR_TAG, fmt::format("{}(tag={})", where, tag),
                fmt::format("invalid tag; a send's tag must be in [0, {}]", kTagUpperBound));
  check_buffer_type(count, type.get(), where);
  if (dest != kProcNull && (dest < 0 || dest >= comm.peer_count()))
    throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(dest={})", where, dest), invalid_rank(comm));
  if (buffer == nullptr && count * type->size() > 0 && !type->may_be_absolute())
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(buf)", where), "null buffer with a non-empty message");
  reject_in_place(buffer, where, "buf");
  throw Error(ErrorClass::MPI_ERR_INTERN, where, "check_send refused arguments it then found valid");
}

RequestId Context::isend(const void* buffer, std::int64_t count, const DatatypePtr& type, int dest, int tag,
                         const Communicator& comm, SendMode mode, const char* where) {
  if (where == nullptr) where = mode == SendMode::Synchronous ? "MPI_Issend" : "MPI_Isend";
  check_send(where, buffer, count, type, dest, tag, comm);
  return start_send(buffer, count, type, dest, tag, comm, comm.context_id(), mode);
}

RequestId Context::coll_isend(const void* buffer, std::int64_t count, const DatatypePtr& type, int dest, int tag,
                              const Communicator& comm, const char* where) {
  // The caller checked the communicator, rank, tag and buffer (coll::check_buffer).
  check_buffer_type(count, type.get(), where);
  return start_send(buffer, count, type, dest, tag, comm, comm.collective_context_id(), SendMode::Standard);
}

RequestId Context::start_send(const void* buffer, std::int64_t count, const DatatypePtr& type,
                              int dest, int tag, const Communicator& comm, ContextId context_id, SendMode mode) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(count * type->size());
  Request& request = requests_.create(Request::Kind::Send);
  if (dest == kProcNull) {
    request.done = true;
    return request.id;
  }
  request.buffer = const_cast<void*>(buffer);  // only read; registered for RDMA read
  request.count = count;
  request.type = type;
  request.bytes = bytes;
  request.context_id = context_id;
  request.peer_world = comm.world_rank(dest);
  request.tag = tag;
  engine_.start_send(request, comm.rank(), mode);
  return request.id;
}

RequestId Context::irecv(void* buffer, std::int64_t count, const DatatypePtr& type, int source, int tag,
                         const Communicator& comm, const char* where) {
  if (where == nullptr) where = "MPI_Irecv";
  check_comm(comm, where);
  if (tag != kAnyTag && (tag < 0 || tag > kTagUpperBound))
    throw Error(ErrorClass::MPI_ERR_TAG, fmt::format("{}(tag={})", where, tag),
                fmt::format("invalid tag; must be in [0, {}] or MPI_ANY_TAG", kTagUpperBound));
  return start_recv(where, buffer, count, type, source, tag, comm, comm.context_id());
}

RequestId Context::coll_irecv(void* buffer, std::int64_t count, const DatatypePtr& type, int source, int tag,
                              const Communicator& comm, const char* where) {
  return start_recv(where, buffer, count, type, source, tag, comm, comm.collective_context_id());
}

RequestId Context::start_recv(const char* where, void* buffer, std::int64_t count, const DatatypePtr& type,
                              int source, int tag, const Communicator& comm, ContextId context_id) {
  check_buffer_type(count, type.get(), where);
  if (source != kProcNull && source != kAnySource && (source < 0 || source >= comm.peer_count()))
    throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(source={})", where, source),
                invalid_rank(comm) + " (or use MPI_ANY_SOURCE)");
  const std::uint64_t bytes = check_recv_buffer(where, buffer, count, type);
  Request& request = requests_.create(Request::Kind::Recv);
  if (source == kProcNull) {
    request.status.source = kProcNull;
    request.status.tag = kAnyTag;
    request.done = true;
    return request.id;
  }
  request.buffer = buffer;
  request.count = count;
  request.type = type;
  request.bytes = bytes;
  request.context_id = context_id;
  request.tag = tag;
  engine_.start_recv(request, Envelope{context_id, source, tag});
  return request.id;
}

std::uint64_t Context::check_recv_buffer(const char* where, void* buffer, std::int64_t count,
                                         const DatatypePtr& type) {
  check_buffer_type(count, type.get(), where);
  const auto bytes = static_cast<std::uint64_t>(count * type->size());
  if (buffer == nullptr && bytes > 0 && !type->may_be_absolute())
    throw Error(ErrorClass::MPI_ERR_BUFFER, fmt::format("{}(buf)", where), "null buffer with a non-empty receive");
  reject_in_place(buffer, where, "buf");
  return bytes;
}

Request& Context::lookup(RequestId id, const char* where) {
  Request* request = requests_.find(id);
  if (request == nullptr)
    throw Error(ErrorClass::MPI_ERR_REQUEST, fmt::format("{}(request={})", where, id),
                "no such active request (already completed and freed?)");
  return *request;
}

RequestId Context::start_operation(std::unique_ptr<BackgroundOperation> operation, Request::Kind kind) {
  Request& request = requests_.create(kind);
  const RequestId id = request.id;
  operations_.push_back(OperationEntry{id, std::move(operation)});
  // Its first round goes out now, not at the rank's next MPI call.
  advance_operations();
  return id;
}

std::size_t Context::advance_operations() {
  if (advancing_operations_) return 0;
  advancing_operations_ = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{advancing_operations_};
  std::size_t steps = 0;
  for (std::size_t i = 0; i < operations_.size();) {
    // By index: an operation's user-defined op may start another operation.
    steps += operations_[i].operation->advance(*this);
    OperationEntry& entry = operations_[i];
    if (!entry.operation->done()) {
      ++i;
      continue;
    }
    if (Request* request = requests_.find(entry.request)) {
      request->status = entry.operation->status();
      request->done = true;
    }
    operations_.erase(operations_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return steps;
}

void Context::add_progress_hook(ProgressHook* hook) { progress_hooks_.push_back(hook); }

void Context::remove_progress_hook(ProgressHook* hook) {
  progress_hooks_.erase(std::remove(progress_hooks_.begin(), progress_hooks_.end(), hook), progress_hooks_.end());
}

std::size_t Context::run_progress_hooks() {
  if (running_progress_hooks_) return 0;
  running_progress_hooks_ = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{running_progress_hooks_};
  std::size_t events = 0;
  // By index: a hook may add or remove hooks (a window created or freed meanwhile).
  for (std::size_t i = 0; i < progress_hooks_.size(); ++i) events += progress_hooks_[i]->progress(*this);
  return events;
}

void Context::progress_or_wait_for_memory(double deadline) {
  if (progress() == 0) {
    if (async_progress_ != nullptr) [[unlikely]]
      async_progress_->rethrow_error();
    const Channel::WaitSet wait = channel_->wait_set();
    device_.runtime().wait(wait.sources, std::min(deadline, wait.deadline));
  }
}

void Context::wait_for_progress() { progress_or_wait(fabric::Runtime::kForever); }

void Context::progress_or_wait(double deadline) {
  // The channel may need to wake earlier (a connection request to re-send).
  if (progress() == 0) {
    // What stopped the asynchronous progress agent is the rank's error now.
    if (async_progress_ != nullptr) [[unlikely]]
      async_progress_->rethrow_error();
    const Channel::WaitSet wait = channel_->wait_set();
    if (wait.memory) [[unlikely]]
      device_.runtime().wait(wait.sources, std::min(deadline, wait.deadline));
    else
      device_.runtime().wait_for_completion(wait.sources, std::min(deadline, wait.deadline));
  }
}

MessageStatus Context::wait(RequestId& id) {
  if (id == kRequestNull) return MessageStatus{};
  Request& request = lookup(id, "MPI_Wait");
  while (!request.done) wait_for_progress();
  MessageStatus status = request.status;
  requests_.erase(request);
  id = kRequestNull;
  return status;
}

bool Context::test(RequestId& id, MessageStatus* status) {
  if (id == kRequestNull) {
    if (status != nullptr) *status = MessageStatus{};
    return true;
  }
  Request& request = lookup(id, "MPI_Test");
  if (!request.done) progress();
  if (!request.done) return false;
  if (status != nullptr) *status = request.status;
  requests_.erase(request);
  id = kRequestNull;
  return true;
}

RequestId Context::completed_send() {
  Request& request = requests_.create(Request::Kind::Send);
  request.done = true;
  return request.id;
}

bool Context::peek(RequestId id, MessageStatus* status) {
  Request& request = lookup(id, "MPI_Request_get_status");
  if (!request.done) progress();
  if (!request.done) return false;
  if (status != nullptr) *status = request.status;
  return true;
}

void Context::waitall(std::span<RequestId> ids, std::span<MessageStatus> statuses) {
  if (!statuses.empty() && statuses.size() != ids.size())
    throw Error(ErrorClass::MPI_ERR_ARG, "MPI_Waitall(array_of_statuses)",
                fmt::format("{} statuses for {} requests", statuses.size(), ids.size()));
  for (std::size_t i = 0; i < ids.size(); ++i) {
    MessageStatus status = wait(ids[i]);
    if (!statuses.empty()) statuses[i] = status;
  }
}

void Context::send(const void* buffer, std::int64_t count, const DatatypePtr& type, int dest, int tag,
                   const Communicator& comm, SendMode mode, const char* where) {
  if (where == nullptr) where = mode == SendMode::Synchronous ? "MPI_Ssend" : "MPI_Send";
  if (mode == SendMode::Standard && dest != kProcNull) {
    check_send(where, buffer, count, type, dest, tag, comm);
    const auto bytes = static_cast<std::uint64_t>(count * type->size());
    const int peer = comm.world_rank(dest);
    if (type->is_contiguous() && engine_.send_tiny(buffer, bytes, *type, peer, comm.context_id(), comm.rank(), tag))
      return;
  }
  RequestId id = isend(buffer, count, type, dest, tag, comm, mode, where);
  wait(id);
}

MessageStatus Context::recv(void* buffer, std::int64_t count, const DatatypePtr& type, int source, int tag,
                            const Communicator& comm) {
  RequestId id = irecv(buffer, count, type, source, tag, comm, "MPI_Recv");
  return wait(id);
}

void Context::check_probe(const char* where, int source, int tag, const Communicator& comm) const {
  check_comm(comm, where);
  // The tag is checked for MPI_PROC_NULL too, as a receive's is.
  if (tag != kAnyTag && (tag < 0 || tag > kTagUpperBound))
    throw Error(ErrorClass::MPI_ERR_TAG, fmt::format("{}(tag={})", where, tag),
                fmt::format("invalid tag; must be in [0, {}] or MPI_ANY_TAG", kTagUpperBound));
  if (source != kProcNull && source != kAnySource && (source < 0 || source >= comm.peer_count()))
    throw Error(ErrorClass::MPI_ERR_RANK, fmt::format("{}(source={})", where, source),
                invalid_rank(comm) + " (or use MPI_ANY_SOURCE)");
}

namespace {
/// The status of a probe or receive from MPI_PROC_NULL.
constexpr MessageStatus kProcNullStatus{kProcNull, kAnyTag, ErrorClass::MPI_SUCCESS, 0, false};
}  // namespace

bool Context::iprobe(int source, int tag, const Communicator& comm, MessageStatus* status, const char* where) {
  if (where == nullptr) where = "MPI_Iprobe";
  check_probe(where, source, tag, comm);
  if (source == kProcNull) {
    if (status != nullptr) *status = kProcNullStatus;
    return true;
  }
  const Envelope wanted{comm.context_id(), source, tag};
  if (engine_.probe(wanted, status)) return true;
  progress();
  return engine_.probe(wanted, status);
}

MessageStatus Context::probe(int source, int tag, const Communicator& comm) {
  MessageStatus status;
  if (iprobe(source, tag, comm, &status, "MPI_Probe")) return status;  // also checks the arguments
  const Envelope wanted{comm.context_id(), source, tag};
  while (!engine_.probe(wanted, &status)) wait_for_progress();
  return status;
}

std::optional<MessageId> Context::improbe(int source, int tag, const Communicator& comm, MessageStatus* status,
                                         const char* where) {
  if (where == nullptr) where = "MPI_Improbe";
  check_probe(where, source, tag, comm);
  if (source == kProcNull) {
    if (status != nullptr) *status = kProcNullStatus;
    return kMessageNoProc;
  }
  const Envelope wanted{comm.context_id(), source, tag};
  if (auto id = engine_.take_matched(wanted, status)) return id;
  progress();
  return engine_.take_matched(wanted, status);
}

MessageId Context::mprobe(int source, int tag, const Communicator& comm, MessageStatus* status) {
  if (auto id = improbe(source, tag, comm, status, "MPI_Mprobe")) return *id;  // also checks the arguments
  const Envelope wanted{comm.context_id(), source, tag};
  std::optional<MessageId> id;
  while (!(id = engine_.take_matched(wanted, status))) wait_for_progress();
  return *id;
}

RequestId Context::imrecv(void* buffer, std::int64_t count, const DatatypePtr& type, MessageId& message,
                          const char* where) {
  if (where == nullptr) where = "MPI_Imrecv";
  const std::uint64_t bytes = check_recv_buffer(where, buffer, count, type);
  if (message == kMessageNull)
    throw Error(ErrorClass::MPI_ERR_REQUEST, fmt::format("{}(message)", where), "message is MPI_MESSAGE_NULL");
  if (message != kMessageNoProc && !engine_.is_matched(message))
    throw Error(ErrorClass::MPI_ERR_REQUEST, fmt::format("{}(message={})", where, message),
                "no such matched message (already received?)");
  Request& request = requests_.create(Request::Kind::Recv);
  if (message == kMessageNoProc) {
    request.status = kProcNullStatus;
    request.done = true;
  } else {
    request.buffer = buffer;
    request.count = count;
    request.type = type;
    request.bytes = bytes;
    engine_.start_matched_recv(request, message);
  }
  message = kMessageNull;
  return request.id;
}

bool Context::cancel(RequestId id) {
  if (id == kRequestNull) return false;
  Request& request = lookup(id, "MPI_Cancel");
  if (request.kind == Request::Kind::Operation)
    throw Error(ErrorClass::MPI_ERR_REQUEST, "MPI_Cancel(request)",
                "a nonblocking collective's request cannot be cancelled (MPI-3.1 section 5.12)");
  // An MPI_Isendrecv completes normally, as a send does here; a generalized request's
  // cancellation is its cancel callback's (the C API calls it).
  if (request.kind == Request::Kind::Exchange || request.kind == Request::Kind::Generalized) return false;
  return engine_.cancel(request);
}

RequestId Context::start_generalized() { return requests_.create(Request::Kind::Generalized).id; }

void Context::complete_generalized(RequestId id, const char* where) {
  Request* request = requests_.find(id);
  if (request == nullptr || request->kind != Request::Kind::Generalized)
    throw Error(ErrorClass::MPI_ERR_REQUEST, fmt::format("{}(request)", where),
                "not a generalized request (made by MPI_Grequest_start)");
  if (request->done)
    throw Error(ErrorClass::MPI_ERR_REQUEST, fmt::format("{}(request)", where),
                "the generalized request was completed already; MPI_Grequest_complete is called once");
  request->done = true;
}

}  // namespace twinfab::mpi
