// twinfab MPI core: requests and message statuses of the point-to-point engine.
//
// A request is owned by its rank's RequestTable and named by a RequestId (what
// MPI_Request will map to). It stays in the table until wait/test reports it done;
// the engine's protocol state hangs off it while a transfer is in flight.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "fabric/memory_region.hpp"
#include "mpi/core/datatype.hpp"
#include "mpi/core/error.hpp"
#include "mpi/core/matching.hpp"

namespace twinfab::mpi {

using RequestId = std::uint64_t;
/// MPI_REQUEST_NULL: wait/test on it return at once with an empty status.
inline constexpr RequestId kRequestNull = 0;

/// Names a message a matched probe (MPI_Mprobe, MPI_Improbe) took out of the
/// matching, until a matched receive (MPI_Mrecv, MPI_Imrecv) takes it. Never reused
/// within a rank's life, so a stale id (a message received already) finds nothing.
using MessageId = std::uint64_t;
/// MPI_MESSAGE_NULL: no message (what a matched receive leaves behind).
inline constexpr MessageId kMessageNull = 0;
/// MPI_MESSAGE_NO_PROC: what a matched probe of MPI_PROC_NULL returns; receiving it
/// completes at once with the MPI_PROC_NULL status, as a receive from MPI_PROC_NULL.
inline constexpr MessageId kMessageNoProc = 1;

/// MPI_Status, with the count in bytes (MPI_Get_count divides by the type size).
struct MessageStatus {
  int source = kAnySource;
  int tag = kAnyTag;
  ErrorClass error = ErrorClass::MPI_SUCCESS;
  std::int64_t count_bytes = 0;
  bool cancelled = false;
};

/// MPI send modes the engine distinguishes (buffered and ready behave as standard).
enum class SendMode : std::uint8_t { Standard, Synchronous };

struct IncomingMessage;  // an unexpected message (pt2pt engine)

struct Request {
  /// Operation: a BackgroundOperation's (a nonblocking collective), which the
  /// context completes when the operation is done; it carries no transfer itself.
  /// Exchange: the same for a point-to-point operation (MPI_Isendrecv), which MPI
  /// lets a program cancel, unlike a collective. Generalized: MPI_Grequest_start's,
  /// done when the program says so (Context::complete_generalized); the C API runs
  /// its callbacks, the core only keeps it in the table so that every wait and test
  /// handles it as any other request.
  enum class Kind : std::uint8_t { Send, Recv, Operation, Exchange, Generalized };
  RequestId id = kRequestNull;
  Kind kind = Kind::Send;
  bool done = false;
  MessageStatus status;

  // The user's buffer.
  void* buffer = nullptr;
  std::int64_t count = 0;
  DatatypePtr type;
  std::uint64_t bytes = 0;  ///< packed size of (count, type): what a receive can hold

  // Addressing.
  ContextId context_id = 0;
  int peer_world = -1;  ///< send: destination; recv: source once matched (world rank)
  int tag = 0;

  // Receive: where the posted entry is (for cancel) and eager reassembly progress.
  PostedQueue<Request*>::Handle posted{};
  bool is_posted = false;
  std::uint64_t received = 0;   ///< eager bytes placed so far
  std::uint64_t expected = 0;   ///< bytes the sender sends (before truncation)

  // Rendezvous: the registration and staging buffer kept until the data moved.
  std::shared_ptr<const fabric::MemoryRegion> region;
  std::vector<std::byte> staging;  ///< packed copy for non-contiguous types
  std::uint64_t transfer_bytes = 0;
  std::uint32_t rdma_outstanding = 0;
  std::uint32_t token = 0;          ///< receiver: the immediate naming this transfer
  std::uint64_t remote_request = 0; ///< the peer's request id (sender's, on a receive)
  std::uint8_t variant = 0;
  bool sync_pending = false;        ///< send: waiting for SyncAck / rendezvous end

  /// Back to a default-constructed request, member by member: RequestTable::erase
  /// does this for every message, and assigning Request{} (building, moving and
  /// destroying a temporary of all members) was the most expensive step of a small
  /// message's bookkeeping. A new member must be reset here too (see the size check
  /// below).
  void reset() noexcept {
    id = kRequestNull;
    kind = Kind::Send;
    done = false;
    status = MessageStatus{};
    buffer = nullptr;
    count = 0;
    if (type) type.reset();
    bytes = 0;
    context_id = 0;
    peer_world = -1;
    tag = 0;
    posted = {};
    is_posted = false;
    received = 0;
    expected = 0;
    if (region) region.reset();
    if (staging.capacity() != 0) staging = {};
    transfer_bytes = 0;
    rdma_outstanding = 0;
    token = 0;
    remote_request = 0;
    variant = 0;
    sync_pending = false;
  }
};
// Reminder, not a portability claim: if this fails, a member was added or removed;
// update Request::reset() and then this size.
static_assert(sizeof(void*) != 8 || sizeof(Request) == 216, "update Request::reset()");

/// Every live request of one rank, by id. A pool of Request objects reused through a
/// free list (no allocation and no hashing per message); an id is the slot's index + 1
/// in its low 32 bits and the slot's generation, bumped at every erase, in its high
/// 32 bits, so an id is never reused within a rank's life (a generation would have to
/// wrap) and a stale id (a peer echoing a finished request) finds nothing.
class RequestTable {
 public:
  Request& create(Request::Kind kind) {
    std::uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = static_cast<std::uint32_t>(slots_.size());
      slots_.push_back(Slot{std::make_unique<Request>(), 0, false});
    }
    Slot& slot = slots_[index];
    slot.live = true;
    ++live_;
    Request& request = *slot.request;
    request.id = (static_cast<RequestId>(slot.generation) << 32) | (static_cast<RequestId>(index) + 1);
    request.kind = kind;
    return request;
  }
  /// The live request `id`, or null.
  Request* find(RequestId id) noexcept {
    const auto low = static_cast<std::uint32_t>(id);
    if (low == 0 || low > slots_.size()) return nullptr;
    Slot& slot = slots_[low - 1];
    return slot.live && slot.request->id == id ? slot.request.get() : nullptr;
  }
  /// Ends request `id` (nothing if it is not live): its buffers and registration are
  /// released now, its slot is reused by a later create().
  void erase(RequestId id) {
    if (find(id) != nullptr) release(static_cast<std::uint32_t>(id) - 1);
  }
  /// The same for a live request in hand (what create() or find() gave): no lookup.
  void erase(Request& request) { release(static_cast<std::uint32_t>(request.id) - 1); }
  std::size_t size() const noexcept { return live_; }

 private:
  struct Slot {
    std::unique_ptr<Request> request;  ///< stable address while live
    std::uint32_t generation = 0;
    bool live = false;
  };
  void release(std::uint32_t index) {
    Slot& slot = slots_[index];
    slot.live = false;
    ++slot.generation;
    --live_;
    slot.request->reset();
    free_.push_back(index);
  }

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
  std::size_t live_ = 0;
};

}  // namespace twinfab::mpi
