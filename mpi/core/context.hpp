// twinfab MPI core: the per-rank context, the C++ face of point-to-point MPI.
//
// One Context per rank, built from the rank's fabric::Device and OobExchange (in the
// simulator: RankEnv::device and RankEnv::oob; on hardware: the opened device and
// PMIx). It owns everything MPI state of the rank: configuration, predefined
// datatypes, COMM_WORLD, COMM_SELF and the derived communicators, the request
// table, the pt2pt engine with its matching queues, and the channel behind the
// Channel interface (mpi/channels/channel.hpp; the RC channel today). No globals,
// threads, clocks or sleeps (ARCHITECTURE rule 1): wait() is "progress until done,
// and when progress finds nothing, Runtime::wait on the channel's wait sources until
// its wake deadline".
//
// Construction and destruction are collective (connection set-up; a drain and a
// barrier). Argument errors throw mpi::Error naming the function and argument, e.g.
// "MPI_Send(dest=7): invalid rank; communicator has 4 ranks". Protocol outcomes
// (truncation) are reported in the MessageStatus, as MPI does.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "fabric/device.hpp"
#include "fabric/oob_exchange.hpp"
#include "fabric/oob_keys.hpp"
#include "mpi/channels/channel.hpp"
#include "mpi/core/async_progress.hpp"
#include "mpi/core/background_operation.hpp"
#include "mpi/core/communicator.hpp"
#include "mpi/core/config.hpp"
#include "mpi/core/datatype.hpp"
#include "mpi/core/in_place.hpp"
#include "mpi/core/request.hpp"
#include "mpi/core/rma_counters.hpp"
#include "mpi/core/topology.hpp"
#include "mpi/pt2pt/engine.hpp"
#include "mpi/pt2pt/registration.hpp"

namespace twinfab::mpi {

/// MPI_TAG_UB this implementation guarantees.
inline constexpr int kTagUpperBound = (1 << 30) - 1;

class Context;

/// Work another layer does at every Context::progress(): one-sided communication's
/// target side (mpi/rma) applies the operations that arrived for its windows there.
/// progress() must not wait and must not call Context::progress() (it is not re-entered).
class ProgressHook {
 public:
  virtual ~ProgressHook() = default;
  /// Returns the events handled (0: nothing to do right now).
  virtual std::size_t progress(Context& context) = 0;
};

class Context {
 public:
  /// Whether the constructor applies the TWINFAB_* environment to its `config`.
  enum class Environment : std::uint8_t {
    Apply,  ///< the usual case: the environment overrides what `config` says
    /// `config` is final: the caller read the environment already and may have
    /// changed values since, which must win (the tools interface: MPI_T_cvar_write
    /// before MPI_Init). Only validated.
    Applied,
  };
  /// Collective over the ranks of `oob`. `config` gets the TWINFAB_* environment
  /// applied (unless `environment` is Applied) and is validated (mpi::Error
  /// MPI_ERR_ARG on a bad value).
  /// `config` by reference: MPI_Init's stack is the deepest a simulated rank's gets, and
  /// each page of it is memory per rank (tests/mpi/c/memory_per_rank.py).
  Context(fabric::Device& device, fabric::OobExchange& oob, const Config& config = Config{},
          Environment environment = Environment::Apply);
  /// Collective: drains the channel and meets every rank before tearing down.
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const Config& config() const noexcept { return config_; }
  /// The configuration as a block that may outlive the Context (MPI_T reads the
  /// control variables after MPI_Finalize: mpi/capi keeps it across the teardown, so
  /// no copy is made while the Context still holds its memory).
  std::shared_ptr<const Config> shared_config() const noexcept { return config_block_; }
  /// True the first time it is asked for collective `which` (0-31) on this rank:
  /// TWINFAB_COLL_FALLBACK=warn warns once per collective (mpi/coll/selection.cpp).
  bool first_collective_fallback(unsigned which) noexcept {
    const std::uint32_t bit = std::uint32_t{1} << (which & 31U);
    const bool first = (collective_fallbacks_ & bit) == 0;
    collective_fallbacks_ |= bit;
    return first;
  }
  const Communicator& world() const noexcept { return world_; }
  const Communicator& self() const noexcept { return self_; }
  const DatatypePtr& datatype(BasicKind kind) const { return datatypes_.get(kind); }
  fabric::Runtime& runtime() noexcept { return device_.runtime(); }

  // ---- communicators (mpi/core/comm_create.cpp). Derived communicators are owned
  // by the context and named by pointer; they stay valid until comm_free (or the
  // context's end). The creating calls are collective over `comm`, and agree on the
  // new communicator's context ids by a reduction (max) of every member's next free
  // id; ids are never reused, so a message for a freed communicator cannot match a
  // later one.
  /// MPI_Comm_dup: same group and topology, new matching spaces.
  const Communicator* comm_dup(const Communicator& comm);
  /// MPI_Comm_idup (mpi/core/comm_idup.cpp; an intercommunicator too): starts duplicating `comm` and returns the
  /// request; the members agree on the new context id in the background, and when
  /// they have, `on_done` gets the new communicator (called from the progress engine,
  /// before the request completes). Its ids come from a space of their own, agreed by
  /// rounds of nonblocking allreduces that claim the candidate on every member and
  /// retry above it when one member has it in use already (MPICH's and Open MPI's
  /// nonblocking context-id agreements work the same way).
  RequestId comm_idup(const Communicator& comm, std::function<void(const Communicator*)> on_done);
  /// MPI_Comm_split: the ranks with the same `color` form a communicator, ordered by
  /// `key`, then by rank in `comm`. `color` kUndefined gives null (MPI_COMM_NULL).
  const Communicator* comm_split(const Communicator& comm, int color, int key);
  /// MPI_Comm_create: the members of `group` (a subset of comm's, in group order)
  /// form a communicator; a rank outside `group` gets null. Ranks may pass different
  /// groups as long as they are disjoint (MPI-2.2). MPI_ERR_GROUP for a null group or
  /// one with a member outside `comm`.
  const Communicator* comm_create(const Communicator& comm, const GroupPtr& group);
  /// MPI_Comm_create_group: collective over the members of `group` only (the other
  /// ranks of `comm` do not call it): they form a communicator in group order and agree
  /// on its context id among themselves. A caller outside `group` gets null at once.
  /// `tag` (MPI_ERR_TAG unless in [0, kTagUpperBound]) is what MPI has programs use to
  /// keep concurrent calls apart; calls here are one at a time on each rank, so the
  /// library's own tags suffice. MPI_ERR_GROUP for a null group or one with a member
  /// outside `comm`.
  const Communicator* comm_create_group(const Communicator& comm, const GroupPtr& group, int tag);
  /// MPI_Comm_create_from_group (MPI-4.0 §7.4.2): as comm_create_group over COMM_WORLD
  /// (every group's members are world ranks), but with no communicator of the caller's:
  /// the members' agreement runs in COMM_WORLD's collective space with tags derived
  /// from `stringtag`, so that calls with different stringtags never exchange messages.
  /// Null for an empty group; MPI_ERR_GROUP for a null group or one without the caller.
  const Communicator* comm_create_from_group(const GroupPtr& group, std::string_view stringtag);
  /// MPI_Comm_split_type: kCommTypeShared groups the ranks on the same host (node()),
  /// ordered by `key`, then by rank in `comm`; kUndefined gives null. MPI_ERR_ARG for
  /// another type; MPI_ERR_OTHER when the process manager did not say where this rank
  /// runs.
  const Communicator* comm_split_type(const Communicator& comm, int split_type, int key);
  /// The host this rank runs on, as the out-of-band exchange said at construction
  /// (fabric::OobExchange::node()); empty when unknown.
  std::optional<int> node() const noexcept { return node_; }
  /// Whether some host runs more than one rank of the job (fabric::OobExchange::
  /// hosts_shared; true when the launcher does not say).
  bool hosts_shared() const noexcept { return hosts_shared_; }

  // ---- Cartesian topologies (mpi/core/comm_create.cpp; the grid logic is
  // topology.hpp). Collective over `comm`, like the constructors above.
  /// MPI_Cart_create with reorder false (the only order implemented; MPI allows
  /// ignoring reorder): comm's ranks 0 .. topology.size() - 1 form the grid in their
  /// order, the others get null. MPI_ERR_DIMS when the grid is larger than `comm`.
  const Communicator* cart_create(const Communicator& comm, CartTopology topology);
  /// MPI_Cart_sub: the ranks that differ only in the dimensions where `remain` is true
  /// form a communicator with the grid of those dimensions (zero of them: a
  /// communicator of one rank). MPI_ERR_TOPOLOGY unless `comm` is Cartesian;
  /// `remain` has one entry per dimension.
  const Communicator* cart_sub(const Communicator& comm, const std::vector<bool>& remain);

  // ---- graph and distributed graph topologies (mpi/core/comm_create.cpp; MPI-3.1
  // §7.5.3-4). Collective over `comm`; reorder is not implemented (MPI allows
  // ignoring it): rank r of `comm` is node r.
  /// MPI_Graph_create: comm's ranks 0 .. nnodes - 1 form the graph, the others get
  /// null. MPI_ERR_ARG when the graph has more nodes than `comm` has ranks.
  const Communicator* graph_create(const Communicator& comm, GraphTopology topology);
  /// MPI_Dist_graph_create_adjacent: every rank gives its own in- and out-neighbours
  /// (a dup of `comm` carrying them). MPI_ERR_RANK for a neighbour outside `comm`,
  /// MPI_ERR_ARG for a negative weight.
  const Communicator* dist_graph_create_adjacent(const Communicator& comm, DistGraphTopology topology);
  /// MPI_Dist_graph_create: each rank names any edges, sources[i] -> the next
  /// degrees[i] entries of `destinations` (with `weights`, one per edge, when
  /// `weighted`); an alltoall of counts and an alltoallv of the edges tell every rank
  /// its in- and out-neighbours. MPI_ERR_RANK for a rank outside `comm`, MPI_ERR_ARG
  /// for a negative degree or weight.
  const Communicator* dist_graph_create(const Communicator& comm, std::span<const int> sources,
                                        std::span<const int> degrees, std::span<const int> destinations,
                                        std::span<const int> weights, bool weighted);

  // ---- intercommunicators (mpi/core/intercomm.cpp; MPI-3.1 §6.6). comm_dup,
  // comm_split and comm_create take intercommunicators too (collective over both
  // groups; an intercommunicator results), the other constructors refuse them.
  /// MPI_Intercomm_create: collective over `local_comm` (an intracommunicator) and,
  /// at the same time, over the remote group's local communicator. `peer_comm` and
  /// `remote_leader` (the remote group's leader's rank in it) matter at the local
  /// leader only, which exchanges the groups with the remote leader by point-to-point
  /// messages with `tag` on peer_comm. MPI_ERR_RANK for a bad leader, MPI_ERR_TAG for
  /// a bad tag, MPI_ERR_COMM when the groups overlap.
  const Communicator* intercomm_create(const Communicator& local_comm, int local_leader,
                                       const Communicator* peer_comm, int remote_leader, int tag);
  /// MPI_Intercomm_merge: the intracommunicator of both groups, the group whose
  /// members passed high = false first (each group passes one value). MPI_ERR_COMM
  /// for an intracommunicator.
  const Communicator* intercomm_merge(const Communicator& intercomm, bool high);
  /// MPI_Comm_remote_group. MPI_ERR_COMM for an intracommunicator.
  GroupPtr comm_remote_group(const Communicator& comm) const;
  /// Throws MPI_ERR_COMM ("<where>(comm)") for an intercommunicator: what the calls
  /// MPI defines on intracommunicators only (topologies, scans, ...) check.
  static void check_intracomm(const Communicator& comm, const char* where);

  /// MPI_Comm_free: forgets the communicator and sets `comm` to null. Requests already
  /// started on it complete normally (they carry the context id, not the object).
  /// COMM_WORLD and COMM_SELF cannot be freed (MPI_ERR_COMM).
  void comm_free(const Communicator*& comm);
  /// MPI_Comm_group.
  GroupPtr comm_group(const Communicator& comm) const;
  /// Throws MPI_ERR_COMM ("<where>(comm)") unless `comm` is a live communicator of
  /// this context. Inline for COMM_WORLD and COMM_SELF: it is on every message.
  void check_comm(const Communicator& comm, const char* where) const {
    if (&comm != &world_ && &comm != &self_) check_derived_comm(comm, where);
  }

  // ---- nonblocking point-to-point (MPI_Isend, MPI_Issend, MPI_Irecv). `where` names
  // the MPI function in error messages (default: the nonblocking one); the C API
  // passes e.g. "MPI_Send" when a blocking call is built on these.
  RequestId isend(const void* buffer, std::int64_t count, const DatatypePtr& type, int dest, int tag,
                  const Communicator& comm, SendMode mode = SendMode::Standard, const char* where = nullptr);
  RequestId irecv(void* buffer, std::int64_t count, const DatatypePtr& type, int source, int tag,
                  const Communicator& comm, const char* where = nullptr);

  // ---- point-to-point in a communicator's collective matching space, for mpi/coll
  // only: invisible to user receives and probes. Any tag in [0, kTagUpperBound]; the
  // caller has checked the communicator, ranks and tags.
  RequestId coll_isend(const void* buffer, std::int64_t count, const DatatypePtr& type, int dest, int tag,
                       const Communicator& comm, const char* where);
  RequestId coll_irecv(void* buffer, std::int64_t count, const DatatypePtr& type, int source, int tag,
                       const Communicator& comm, const char* where);

  /// Checks the arguments of a send as isend does (communicator, tag, count and
  /// datatype, destination, a null buffer for a non-empty message), throwing
  /// mpi::Error that names `where`.
  /// Inline (it is on every send), with the error reported out of line.
  void check_send(const char* where, const void* buffer, std::int64_t count, const DatatypePtr& type, int dest,
                  int tag, const Communicator& comm) {
    check_comm(comm, where);
    if (tag < 0 || tag > kTagUpperBound) [[unlikely]]
      throw_bad_send(where, buffer, count, type, dest, tag, comm);
    check_buffer_type(count, type.get(), where);
    if ((dest != kProcNull && (dest < 0 || dest >= comm.peer_count())) || (buffer == nullptr && count * type->size() > 0 && !type->may_be_absolute()) ||
        buffer == kInPlace) [[unlikely]]
      throw_bad_send(where, buffer, count, type, dest, tag, comm);
  }

  // ---- completion. Each sets `request` to kRequestNull once it reports it done.
  MessageStatus wait(RequestId& request);
  /// True (and the status) when done; progresses once otherwise.
  bool test(RequestId& request, MessageStatus* status = nullptr);
  /// A send request that is complete already: what MPI_Ibsend returns once the
  /// message is in the attached buffer (its own send is the library's business).
  RequestId completed_send();
  /// MPI_Request_get_status: as test(), but a done request stays (the caller still
  /// completes it with wait or test).
  bool peek(RequestId request, MessageStatus* status = nullptr);
  /// Waits for all; `statuses` (empty, or one per request) receives their statuses.
  void waitall(std::span<RequestId> requests, std::span<MessageStatus> statuses = {});

  // ---- blocking conveniences
  /// A blocking send. A standard-mode message that fits one packet from a
  /// contiguous buffer is handed to the channel directly, without a request: it is
  /// complete once copied, which is what MPI_Send waits for (the same packet, the
  /// same order as through isend + wait).
  void send(const void* buffer, std::int64_t count, const DatatypePtr& type, int dest, int tag,
            const Communicator& comm, SendMode mode = SendMode::Standard, const char* where = nullptr);
  MessageStatus recv(void* buffer, std::int64_t count, const DatatypePtr& type, int source, int tag,
                     const Communicator& comm);

  // ---- probe and cancel
  bool iprobe(int source, int tag, const Communicator& comm, MessageStatus* status = nullptr,
              const char* where = nullptr);
  MessageStatus probe(int source, int tag, const Communicator& comm);

  // ---- matched probe and receive (MPI-3.1 §3.8.2-3.8.3)
  /// MPI_Improbe: as iprobe() (same arguments, same checks), but the message found is
  /// taken out of the matching, so that no other receive or probe can match it, and
  /// returned as a message id for imrecv(); kMessageNoProc for source kProcNull;
  /// nothing when no message matches yet.
  std::optional<MessageId> improbe(int source, int tag, const Communicator& comm, MessageStatus* status = nullptr,
                                   const char* where = nullptr);
  /// improbe() without the progress step and without argument checks, for layers that
  /// poll inside a ProgressHook (mpi/rma's target side on its windows' communicators).
  std::optional<MessageId> take_message(int source, int tag, const Communicator& comm, MessageStatus* status) {
    return engine_.take_matched(Envelope{comm.context_id(), source, tag}, status);
  }
  /// MPI_Mprobe: improbe() until a message matches.
  MessageId mprobe(int source, int tag, const Communicator& comm, MessageStatus* status = nullptr);
  /// MPI_Imrecv: starts receiving `message` into (buffer, count, type) as irecv would
  /// have on a match (the status, truncation and count are those of a receive), and
  /// sets `message` to kMessageNull. Everything is checked first, so a refused call
  /// changes nothing: the buffer as irecv does, then MPI_ERR_REQUEST when `message`
  /// is kMessageNull or names no message still to be received.
  RequestId imrecv(void* buffer, std::int64_t count, const DatatypePtr& type, MessageId& message,
                   const char* where = nullptr);
  /// MPI_Cancel: a still-posted receive completes as cancelled; anything else (a
  /// matched receive, a send, an MPI_Isendrecv, a generalized request, whose cancel
  /// callback is the C API's business) is left to complete normally. Returns whether
  /// it did. MPI_ERR_REQUEST for a nonblocking collective's request, which MPI forbids
  /// cancelling (MPI-3.1 §5.12).
  bool cancel(RequestId request);

  // ---- MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0 §3.10; mpi/core/isendrecv.cpp)
  /// Posts the receive, then the send, and returns one request that completes when
  /// both have, with the receive's status: an operation of the progress engine
  /// (Request::Kind::Exchange) holding the two. Everything is checked first, the send
  /// half before the receive is posted (as MPI_Sendrecv), so a refused call has
  /// posted nothing. kProcNull peers complete at once, as in MPI_Sendrecv.
  RequestId isendrecv(const void* sendbuf, std::int64_t sendcount, const DatatypePtr& sendtype, int dest,
                      int sendtag, void* recvbuf, std::int64_t recvcount, const DatatypePtr& recvtype, int source,
                      int recvtag, const Communicator& comm, const char* where = "MPI_Isendrecv");
  /// The same with one buffer: its (count, type) elements are packed into a
  /// temporary the operation owns before the receive is posted (as MPICH does), so
  /// the incoming message cannot overwrite data still to be sent.
  RequestId isendrecv_replace(void* buffer, std::int64_t count, const DatatypePtr& type, int dest, int sendtag,
                              int source, int recvtag, const Communicator& comm,
                              const char* where = "MPI_Isendrecv_replace");

  // ---- generalized requests (MPI-3.1 §12.2). The core only tracks completion; the
  // C API keeps the callbacks and runs them when a wait or test reports the request.
  /// MPI_Grequest_start: a request that is not done until complete_generalized().
  RequestId start_generalized();
  /// MPI_Grequest_complete: marks it done. MPI_ERR_REQUEST for a request that is not
  /// a live generalized one, or one completed already (MPI allows one call).
  void complete_generalized(RequestId request, const char* where);

  // ---- operations the progress engine advances (background_operation.hpp)
  /// Starts `operation`: advances it once now, then at every progress() until it is
  /// done, when its request (returned here) completes. Operations advance in the
  /// order they were started.
  /// `kind` is Operation (a collective's: MPI_Cancel refuses it) or Exchange.
  RequestId start_operation(std::unique_ptr<BackgroundOperation> operation,
                            Request::Kind kind = Request::Kind::Operation);

  /// Polls once, and advances the operations in flight; returns the events handled
  /// and steps taken (0: nothing to do right now).
  std::size_t progress() {
    std::size_t events = channel_->progress();
    if (!operations_.empty()) [[unlikely]] events += advance_operations();
    if (!progress_hooks_.empty()) [[unlikely]] events += run_progress_hooks();
    return events;
  }
  /// Runs `hook` at every progress() from now on, until remove_progress_hook.
  void add_progress_hook(ProgressHook* hook);
  void remove_progress_hook(ProgressHook* hook);
  /// Whether request `id` is complete, without completing it (wait/test still report
  /// it): what MPI_Testall and MPI_Waitany need. MPI_ERR_REQUEST for an unknown id.
  bool is_done(RequestId id) { return id == kRequestNull || lookup(id, "MPI_Test").done; }
  /// Polls once, and when that finds nothing, waits on the runtime until the channel
  /// has an event or `deadline` (absolute, runtime clock) passes: what wait() repeats.
  /// For callers that complete requests themselves (MPI_Waitany) or that poll
  /// (MPI_Test, MPI_Iprobe in a loop): progress() alone never lets simulated time
  /// advance, so a polling loop must give the runtime a bounded wait.
  void progress_or_wait(double deadline = fabric::Runtime::kForever);
  /// progress_or_wait() for a caller that also polls memory the device writes (a
  /// flag set by a peer's RDMA write): the wait also returns when data lands in
  /// this rank's memory (fabric::Runtime::wait rather than wait_for_completion).
  void progress_or_wait_for_memory(double deadline = fabric::Runtime::kForever);

  // ---- what one-sided communication (mpi/rma) uses below the pt2pt engine
  fabric::Device& device() noexcept { return device_; }
  /// The device's capabilities as far as the channel offers them: a channel without
  /// remote atomics (UD) reports none, whatever the device has. A copy, made when
  /// asked (window creation, lock paths): a member would cost every simulated rank
  /// 112 bytes (tests/mpi/c/memory_per_rank.py).
  fabric::DeviceCapabilities capabilities() const noexcept;
  /// What the channel offers (RDMA operations, packet payload).
  const ChannelCapabilities& channel_capabilities() const noexcept { return channel_->capabilities(); }
  /// Registrations of user buffers through the registration cache.
  MemoryRegistration& registration() noexcept { return registration_; }
  /// Posts an RDMA operation to world rank `world_peer` (never this rank), ordered
  /// with that peer's packets; its cookie must have kForeignCookieBit set, and its
  /// completion goes to the handler of set_rdma_completion_handler. The library's work
  /// for it is charged as for a packet sent (host_work.hpp).
  void post_rdma(int world_peer, const RdmaOp& op) {
    engine_.host_work().packet_sent();
    channel_->post_rdma(world_peer, op);
  }
  /// The longest RDMA write post_rdma() can send with inline data.
  std::uint32_t max_inline_write() const noexcept { return channel_->capabilities().max_inline_write; }
  void set_rdma_completion_handler(RdmaCompletionHandler* handler) noexcept {
    engine_.set_rdma_completion_handler(handler);
  }

  const ChannelCounters& channel_counters() const noexcept { return channel_->counters(); }

  /// Starts the asynchronous progress agent when the configuration asks for one
  /// (TWINFAB_ASYNC_PROGRESS; async_progress.hpp) and returns it, else nullptr. The
  /// caller is inside the library and holds it on return: from then on it brackets its
  /// calls into the Context with enter() and leave() (mpi/capi does, around every MPI
  /// call). Once only.
  AsyncProgressAgent* start_async_progress();
  const Pt2ptCounters& pt2pt_counters() const noexcept { return engine_.counters(); }
  /// One-sided communication's counters (mpi/rma keeps them up to date).
  RmaCounters& rma_counters() noexcept { return rma_counters_; }
  const RmaCounters& rma_counters() const noexcept { return rma_counters_; }
  /// Receives posted and not matched yet, and messages arrived before their receive
  /// (user and collective matching spaces): the lengths of the matching queues.
  std::size_t posted_receives() const noexcept { return engine_.posted_receives(); }
  std::size_t unexpected_messages() const noexcept { return engine_.unexpected_messages(); }
  std::size_t live_requests() const noexcept { return requests_.size(); }
  /// The registration cache's hits, misses, evictions, invalidations, fallbacks.
  /// (All zero until the first transfer that registers a user buffer makes the cache.)
  const regcache::Counters& registration_counters() const noexcept { return registration_.counters(); }

 private:
  Request& lookup(RequestId id, const char* where);
  void wait_for_progress();
  /// Advances every operation in flight once and completes the requests of those
  /// done. Not re-entered: a user-defined op run by an operation may call MPI.
  std::size_t advance_operations();
  std::size_t run_progress_hooks();
  /// A send whose arguments the caller checked (check_send, or coll_isend's contract).
  RequestId start_send(const void* buffer, std::int64_t count, const DatatypePtr& type,
                       int dest, int tag, const Communicator& comm, ContextId context_id, SendMode mode);
  RequestId start_recv(const char* where, void* buffer, std::int64_t count, const DatatypePtr& type, int source,
                       int tag, const Communicator& comm, ContextId context_id);
  /// The checks of a receive's buffer (count, datatype, null buffer, MPI_IN_PLACE);
  /// returns its packed size.
  std::uint64_t check_recv_buffer(const char* where, void* buffer, std::int64_t count, const DatatypePtr& type);
  /// The checks of a probe's arguments (communicator, tag, then a source other than
  /// kProcNull).
  void check_probe(const char* where, int source, int tag, const Communicator& comm) const;
  /// isendrecv's send, once its receive `recv` is posted: a send that fails after all
  /// cancels and completes the receive before the error leaves.
  RequestId start_posted_send(RequestId& recv, const void* buffer, std::int64_t count, const DatatypePtr& type,
                              int dest, int tag, const Communicator& comm, const char* where);
  /// Registers a communicator whose context id the members agreed on, and moves this
  /// rank's next free id past it.
  Communicator* add_communicator(ContextId context_id, int rank, std::vector<int> world_ranks);
  /// What comm_split does, for every constructor built on it (create, split_type,
  /// the topologies): collective over `comm`; `color` is >= 0 or kUndefined.
  Communicator* split(const Communicator& comm, int color, int key);
  /// Registers an intercommunicator whose context id the members of both groups
  /// agreed on (and its local intracommunicator), and moves this rank's next free id
  /// past both; null when this rank is not a member (rank < 0) or a group is empty.
  Communicator* add_intercommunicator(ContextId context_id, int rank, std::vector<int> local_world_ranks,
                                      std::vector<int> remote_world_ranks);
  /// Registers the intercommunicator (ids context_id, context_id + 1) and its local
  /// intracommunicator (context_id + 2, + 3), leaving the id counters alone.
  Communicator* emplace_intercommunicator(ContextId context_id, int rank, std::vector<int> local_world_ranks,
                                          std::vector<int> remote_world_ranks);
  /// comm_split on an intercommunicator (comm_dup and comm_create are splits too):
  /// the members of a color in each group form a new intercommunicator.
  Communicator* inter_split(const Communicator& inter, int color, int key, const char* where);
  /// What comm_dup does, without the topology: the same members in the same order,
  /// new context ids (one allreduce over `comm`).
  Communicator* duplicate(const Communicator& comm);
  /// check_comm() for a communicator other than COMM_WORLD and COMM_SELF.
  void check_derived_comm(const Communicator& comm, const char* where) const;
  /// Throws the error of the first argument check_send() refuses, in its order.
  [[noreturn]] static void throw_bad_send(const char* where, const void* buffer, std::int64_t count,
                                          const DatatypePtr& type, int dest, int tag, const Communicator& comm);

  fabric::Device& device_;
  /// The configuration the context runs with (the environment applied or not), checked.
  static std::shared_ptr<const Config> resolve_config(const Config& config, Environment environment);
  std::shared_ptr<const Config> config_block_;  ///< see shared_config()
  const Config& config_;                        ///< *config_block_
  std::uint32_t collective_fallbacks_ = 0;  ///< see first_collective_fallback
  PredefinedDatatypes datatypes_;
  Communicator world_;
  Communicator self_;
  /// Derived communicators, by point-to-point context id.
  std::unordered_map<ContextId, std::unique_ptr<Communicator>> communicators_;
  std::vector<std::unique_ptr<Communicator>> freed_communicators_;  ///< see Communicator::freed
  /// Freed ones whose member lists are not released yet: between comm_free's push and
  /// its sweep, and after it those a collective schedule still uses (a later free drops them).
  std::vector<Communicator*> freed_keeping_members_;
  /// Smallest even id this rank has not used; a new communicator's id is the max of
  /// this over its parent's members.
  ContextId next_context_id_ = kFirstDerivedContextId;
  // MPI_Comm_idup's ids (comm_idup.cpp): from kFirstIdupContextId up, apart from the
  // ids the blocking constructors agree on, so that those need not wait for an idup.
  friend class IdupOperation;
  ContextId next_idup_context_id_ = kFirstIdupContextId;
  std::unordered_set<ContextId> claimed_idup_context_ids_;  ///< in use or being agreed on
  /// The idups of this rank in a retry, by (parent's context id, call's sequence
  /// number on it): only the first may claim (comm_idup.cpp).
  std::set<std::pair<ContextId, std::uint32_t>> retrying_idups_;
  std::optional<int> node_;  ///< the host this rank runs on (OobExchange::node())
  bool hosts_shared_ = true;  ///< OobExchange::hosts_shared()
  // Before the request table: requests may still hold cached regions when it goes.
  CachedRegistration registration_;
  RequestTable requests_;
  struct OperationEntry {
    RequestId request;
    std::unique_ptr<BackgroundOperation> operation;
  };
  std::vector<OperationEntry> operations_;  ///< in flight, in start order
  bool advancing_operations_ = false;
  std::vector<ProgressHook*> progress_hooks_;
  RmaCounters rma_counters_;
  bool running_progress_hooks_ = false;
  Pt2ptEngine engine_;
  /// The OOB keys of the network and shared-memory channels (TWINFAB_SHM=1): outlive them.
  std::unique_ptr<fabric::OobKeys> oob_keys_;
  // Last: destroyed first, while the engine it delivers to still exists.
  std::unique_ptr<Channel> channel_;
  /// std::uncaught_exceptions() when this Context was made: more at its destruction
  /// means an exception is unwinding through it (the rank is failing).
  int uncaught_at_start_ = std::uncaught_exceptions();
  /// Last: stopped first, while the channel still works.
  std::unique_ptr<AsyncProgressAgent> async_progress_;
};

}  // namespace twinfab::mpi
