// twinfab MPI one-sided: the C++ face of MPI-3.1 chapter 11 for one rank.
//
// One RmaEngine per rank, made at the rank's first window (the C API keeps it next to
// the Context). It owns the rank's windows and hooks into the Context twice: as a
// ProgressHook (every progress() applies the operations that arrived for its windows
// as a target, answers flush and lock requests and reaps replies), and as the handler
// of the RDMA completions it posted itself.
//
// Designs (docs/rma.md has the reasons; seed 001 chapters 3 and 4):
//  - Data movement (TWINFAB_RMA): `rdma` puts and gets by RDMA write and read straight
//    into and out of the target window, one work request per contiguous piece of the
//    target layout (the origin's data is used in place when contiguous, else packed);
//    `sendrecv` carries every operation as a message that the target's progress engine
//    applies (seed 001's baseline). Accumulates are applied at the target by its
//    progress engine in both designs (MPI's atomicity then holds for every type and
//    op, against accumulates from every origin, the target's own included); so are all
//    operations on dynamic windows, whose attached regions only the target knows.
//  - Active target: fence completes the rank's operations and meets the others in a
//    barrier; PSCW uses the seed's RDMA-written flags, here counters in each rank's
//    control block (a post writes the origin's counter, a complete the target's), so
//    communication starts as soon as the target posted.
//  - Passive target (TWINFAB_RMA_LOCK): `ts`, the seed's test-and-set on a lock word by
//    remote compare-and-swap with exponential backoff (shared holders count up,
//    exclusive is -1, release by fetch-and-add); `progress`, lock requests as messages
//    the target's progress engine grants (MPICH ch3's design, and the default where the
//    device has no remote atomics); `mcs`, the seed's MCS queue lock with swap emulated
//    by compare-and-swap (exclusive holders queue, readers count on the ts word);
//    `thread` and `event`, a lock agent per rank and window granting requests sent as
//    messages, polling (a dedicated thread) or sleeping on a completion channel
//    (event-driven), lock_service.hpp.
//
// Completion: an operation is complete at the target when its RDMA work request
// completed at the origin (an RC completion means the responder acknowledged it, and
// the data is placed), or, for one carried as a message, when the target answered a
// FlushRequest sent after it (the target applies messages from one origin in order).
// flush, unlock, complete and fence wait for both; flush_local waits for local
// completion only (the origin buffer may be reused).
//
// Errors throw mpi::Error naming the MPI function and the argument:
// MPI_ERR_RMA_SYNC (an operation outside an epoch, unlock without lock, complete
// without start, an illegal mix of synchronization modes), MPI_ERR_RMA_RANGE (a
// target range outside the target's window, checked at the origin before anything is
// sent; for dynamic windows the target checks and the origin reports it at its next
// flush), MPI_ERR_RMA_ATTACH (overlapping attach), MPI_ERR_OP / MPI_ERR_TYPE
// (accumulate with a user-defined op, or types whose basic elements differ), MPI_ERR_RANK,
// MPI_ERR_ARG. Not thread-safe: driven by the rank's own calls, like the Context.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "mpi/core/context.hpp"
#include "mpi/core/host_work.hpp"
#include "mpi/core/op.hpp"
#include "mpi/rma/bounce_slots.hpp"
#include "mpi/rma/in_flight_table.hpp"
#include "mpi/rma/loopback.hpp"
#include "mpi/rma/messages.hpp"
#include "mpi/rma/window.hpp"

namespace twinfab::mpi::rma {

class RmaEngine final : public ProgressHook, public RdmaCompletionHandler {
 public:
  explicit RmaEngine(Context& context);
  /// Frees every window still open (MPI_Finalize with windows the program did not free).
  ~RmaEngine() override;
  RmaEngine(const RmaEngine&) = delete;
  RmaEngine& operator=(const RmaEngine&) = delete;

  // ---- creation (collective over `comm`; mpi/rma/window_create.cpp)
  /// MPI_Win_create: `size` bytes at `base` (null allowed when size is 0).
  Window* create(void* base, std::int64_t size, int disp_unit, const Communicator& comm, const char* where);
  /// MPI_Win_allocate: the window owns `size` bytes (8-byte aligned) at window->base.
  Window* allocate(std::int64_t size, int disp_unit, const Communicator& comm, const char* where);
  /// MPI_Win_allocate_shared: the members on one host share one segment, each
  /// member's part contiguous after the previous one's (MPI_ERR_RMA_SHARED when the
  /// members are not all on one host).
  Window* allocate_shared(std::int64_t size, int disp_unit, const Communicator& comm, const char* where);
  /// MPI_Win_create_dynamic: no memory until attach().
  Window* create_dynamic(const Communicator& comm, const char* where);
  /// MPI_Win_attach / MPI_Win_detach (local).
  void attach(Window& window, void* base, std::int64_t size, const char* where);
  void detach(Window& window, const void* base, const char* where);
  /// MPI_Win_free: collective; MPI_ERR_RMA_SYNC while this rank has an epoch open.
  /// Sets `window` to null.
  void free(Window*& window, const char* where);
  /// MPI_Win_shared_query: the base, size and displacement unit of `rank`'s part
  /// (kProcNull: the first member with a nonzero size).
  void shared_query(const Window& window, int rank, std::int64_t* size, int* disp_unit, void** base,
                    const char* where) const;
  /// Whether `window` is one of this engine's live windows.
  bool is_live(const Window* window) const noexcept;

  // ---- communication (mpi/rma/origin.cpp). `request`: null for MPI_Put and the like;
  // for the request forms (MPI_Rput, ...) it receives a request that completes when the
  // operation is locally complete (origin and result buffers usable).
  void put(Window& window, const void* origin, std::int64_t origin_count, const DatatypePtr& origin_type,
           int target, std::int64_t target_disp, std::int64_t target_count, const DatatypePtr& target_type,
           const char* where, RequestId* request = nullptr);
  void get(Window& window, void* origin, std::int64_t origin_count, const DatatypePtr& origin_type, int target,
           std::int64_t target_disp, std::int64_t target_count, const DatatypePtr& target_type, const char* where,
           RequestId* request = nullptr);
  /// MPI_Accumulate (op: a predefined op or Replace).
  void accumulate(Window& window, const void* origin, std::int64_t origin_count, const DatatypePtr& origin_type,
                  int target, std::int64_t target_disp, std::int64_t target_count, const DatatypePtr& target_type,
                  Op op, const char* where, RequestId* request = nullptr);
  /// MPI_Get_accumulate (op may be NoOp, when origin is ignored) and MPI_Fetch_and_op.
  void get_accumulate(Window& window, const void* origin, std::int64_t origin_count,
                      const DatatypePtr& origin_type, void* result, std::int64_t result_count,
                      const DatatypePtr& result_type, int target, std::int64_t target_disp,
                      std::int64_t target_count, const DatatypePtr& target_type, Op op, const char* where,
                      RequestId* request = nullptr);
  /// MPI_Compare_and_swap: one element of a predefined integer, logical or byte type.
  void compare_and_swap(Window& window, const void* origin, const void* compare, void* result,
                        const DatatypePtr& type, int target, std::int64_t target_disp, const char* where);

  // ---- synchronization (mpi/rma/sync.cpp, mpi/rma/locks.cpp)
  void fence(Window& window, int assertions, const char* where);
  void post(Window& window, const GroupPtr& group, int assertions, const char* where);
  void start(Window& window, const GroupPtr& group, int assertions, const char* where);
  void complete(Window& window, const char* where);
  void wait(Window& window, const char* where);
  /// MPI_Win_test: true (and the exposure epoch closed) when every origin completed.
  bool test(Window& window, const char* where);
  void lock(Window& window, LockType type, int target, int assertions, const char* where);
  void unlock(Window& window, int target, const char* where);
  void lock_all(Window& window, int assertions, const char* where);
  void unlock_all(Window& window, const char* where);
  /// MPI_Win_flush (local = false) and MPI_Win_flush_local (true); kProcNull: none.
  void flush(Window& window, int target, bool local, const char* where);
  /// MPI_Win_flush_all / MPI_Win_flush_local_all.
  void flush_all(Window& window, bool local, const char* where);
  /// MPI_Win_sync: a memory barrier between the public and private copies (one copy
  /// here: the unified model).
  void sync(Window& window, const char* where);

  /// What one-sided communication did at this rank (kept by the Context, for MPI_T).
  const RmaCounters& counters() const noexcept { return counters_; }
  Context& context() noexcept { return context_; }

  // ProgressHook
  std::size_t progress(Context& context) override;
  // RdmaCompletionHandler
  void on_rdma_done(std::uint32_t cookie, fabric::WcStatus status) override;

 private:
  // One RDMA operation this rank posted, by cookie.
  struct RdmaInFlight {
    std::uint32_t window = 0;
    int target = 0;
    /// What must live until completion: the packed origin data or the staging buffer
    /// of a get, and the origin buffer's registration.
    std::shared_ptr<std::vector<std::byte>> staging;
    std::shared_ptr<const fabric::MemoryRegion> region;
    /// A get into a non-contiguous origin: unpack `staging` there when the last of
    /// the operation's work requests completes (shared between them).
    struct Unpack {
      void* buffer = nullptr;
      std::int64_t count = 0;
      DatatypePtr type;
      std::uint32_t remaining = 0;
    };
    std::shared_ptr<Unpack> unpack;
    RequestId user_request = kRequestNull;  ///< completed with the operation's last work request
    std::shared_ptr<std::uint32_t> user_remaining;  ///< work requests of that operation not done
    /// A small get read into bounce slot `bounce_slot` (BounceSlots): its `copy_bytes`
    /// go to `copy_to` when the read completes.
    std::byte* copy_to = nullptr;
    std::uint32_t bounce_slot = 0;
    std::uint32_t copy_bytes = 0;
    bool inline_data = false;  ///< a write whose data was copied at post
  };
  // A user request (MPI_Rput, ...) that completes with internal requests of the message
  // path: by internal request id, the user request and how many internal ones remain.
  struct UserRequest {
    RequestId user = kRequestNull;
    std::shared_ptr<std::uint32_t> remaining;
  };

  Window* make_window(const Communicator& comm, Flavor flavor, const char* where);
  void publish(Window& window, const char* where);
  void resolve_designs(Window& window, const char* where);
  Window& checked(Window* window);

  // origin.cpp
  void check_access(Window& window, int target, const char* where);
  /// The target's blocks for (count, type) at `disp`, relative to the returned offset;
  /// checks the range against the target's window (MPI_ERR_RMA_RANGE).
  std::uint64_t target_range(Window& window, int target, std::int64_t disp, std::int64_t count,
                             const Datatype& type, std::vector<Block>& blocks, const char* where);
  bool uses_rdma(const Window& window, int target) const;
  /// What a put and a get start with: the buffers' and the target's checks, the target
  /// layout (into `blocks`) and its offset; nothing when no byte moves (MPI_PROC_NULL,
  /// zero bytes), `request` then complete at once.
  std::optional<std::uint64_t> begin_transfer(Window& window, std::int64_t origin_count,
                                              const DatatypePtr& origin_type, int target, std::int64_t target_disp,
                                              std::int64_t target_count, const DatatypePtr& target_type,
                                              std::vector<Block>& blocks, const char* where, RequestId* request);
  /// Sends an operation message (header, blocks, and the data inline or apart);
  /// returns the ids of the sends, which the target state tracks.
  std::vector<RequestId> send_operation(Window& window, int target, ControlHeader header,
                                        const std::vector<Block>& blocks, const void* data, std::int64_t data_count,
                                        const DatatypePtr& data_type);
  /// The most bytes (header, blocks, data) one control message carries: one packet.
  std::uint64_t message_inline_limit() const;
  /// An operation's control message: the header (its block count, data size and
  /// data_inline set here), the blocks, and the data when it fits in one packet.
  std::shared_ptr<std::vector<std::byte>> operation_message(ControlHeader& header, const std::vector<Block>& blocks,
                                                            const void* data, std::int64_t data_count,
                                                            const DatatypePtr& data_type);
  /// TWINFAB_RMA_PIGGYBACK: holds the put of (`count`, `type`) at `origin` to `target` as
  /// its control message (TargetState::held_put) instead of sending it, when it
  /// qualifies (an MPI_Win_start epoch, no request, another rank, at most the variable's
  /// bytes, one packet); false, nothing held, when not.
  bool hold_put(Window& window, int target, std::uint64_t offset, const std::vector<Block>& blocks, const void* origin,
                std::int64_t count, const DatatypePtr& type, RequestId* request);
  /// Sends the put held for `target`, if any; `ends_epoch`: flagged as the end of this
  /// rank's access epoch there (kPutEndsEpoch), which the target counts as it counts a
  /// Completed message.
  void send_held_put(Window& window, int target, bool ends_epoch);
  std::uint32_t reply_tag(Window& window);
  void rdma_put(Window& window, int target, const void* origin, std::int64_t count, const DatatypePtr& type,
                std::uint64_t offset, const std::vector<Block>& blocks, RequestId* request);
  void rdma_get(Window& window, int target, void* origin, std::int64_t count, const DatatypePtr& type,
                std::uint64_t offset, const std::vector<Block>& blocks, RequestId* request);
  std::uint32_t new_cookie(RdmaInFlight entry) { return rdma_.insert(std::move(entry)); }
  /// Posts one RDMA write or read per piece (at most 1 GiB) of the target's `blocks`,
  /// moving consecutive bytes at `local` (in `region`: the origin buffer's, a staging
  /// buffer's or the bounce slots'; null for writes of at most the inline size, inline).
  /// Each piece's completion gets a copy of `base`; `request` (when not null) becomes a
  /// request that completes with the last piece. Returns the number of pieces.
  std::uint32_t post_pieces(Window& window, int target, RdmaOp::Kind kind, RdmaInFlight base,
                            const fabric::MemoryRegion* region, std::byte* local, std::uint64_t offset,
                            const std::vector<Block>& blocks, RequestId* request);
  /// Makes *user (when not null) a request that completes with `internal`.
  void link_request(RequestId* user, const std::vector<RequestId>& internal);
  /// An internal request completed and was released: completes its user request.
  void internal_done(RequestId internal);
  /// Releases the requests to `target` that completed (all of them, waiting, when `wait`).
  std::size_t reap_target(TargetState& state, bool wait);
  /// The target's memory at `offset` for an operation on this rank itself.
  std::byte* local_target(Window& window, std::uint64_t offset);

  // target.cpp
  std::size_t serve(Window& window);
  bool apply(Window& window, IncomingOperation& op);
  void parse(Window& window, IncomingOperation& op);
  void reply(Window& window, int origin, std::uint32_t tag, std::vector<std::byte> data);
  void send_ack(Window& window, int origin, MessageKind kind, std::uint64_t sequence);
  void handle_lock_request(Window& window, int origin, LockType type);
  void release_lock(Window& window, int origin);
  void grant_waiting(Window& window);
  std::size_t reap(Window& window);
  /// Applies an accumulate of `bytes` packed elements of `basic` to `blocks` at `base`.
  static void accumulate_into(std::byte* base, const std::vector<Block>& blocks, const std::byte* data,
                              std::uint64_t bytes, Op op, BasicKind basic);

  // sync.cpp
  /// Waits until every operation to `target` is complete (locally only when `local`).
  void complete_target(Window& window, int target, bool local, const char* where);
  /// On iWARP a write's completion only says the data left (RFC 5040: it was handed to
  /// the transport, not placed at the target). When RDMA writes went to `target` since
  /// the last check, posts an 8-byte RDMA read on the same connection: its response
  /// comes after the target placed them (the responder processes a stream in order).
  /// The read counts in the target's rdma_in_flight, which complete_target waits for.
  void confirm_placement(Window& window, int target);
  void complete_all(Window& window, bool local, const char* where);
  /// One poll of the progress engine that may wait 100 ns for an event (`memory`: or
  /// for data the device writes): what a call that had nothing to wait for costs, as a
  /// failed MPI_Test does, so that programs polling through it let others run.
  void idle_poll(bool memory);
  /// Whether `origin` ended `wanted` access epochs on this rank (PSCW: its counter in the
  /// control block, or its Completed messages in the send/receive design).
  bool completed(Window& window, int origin, std::uint64_t wanted);
  /// Sends `target` a FlushRequest when operations went to it as messages since the last.
  void request_flush(Window& window, int target);
  /// MPI_ERR_RANK unless `rank` is in the window's group.
  static void check_rank(const Window& window, int rank, const char* where);
  void raise_target_error(Window& window, int target, const char* where);
  std::vector<int> group_ranks(const Window& window, const GroupPtr& group, const char* where) const;
  /// Writes `value` into word `word` of `peer`'s control block (by RDMA, or a store for
  /// this rank), through staging word `which` (ControlLayout::staging).
  void write_counter(Window& window, int peer, std::size_t word, std::uint64_t value, int which);
  /// Waits (progressing) until `done()`, noticing memory the device writes.
  template <class Done>
  void wait_until(Done&& done) {
    while (!done()) context_.progress_or_wait_for_memory();
  }
  /// Sends a header-only control message (flush, lock) to `target`.
  void send_control(Window& window, int target, const ControlHeader& header, bool tracked);

  // locks.cpp
  void acquire(Window& window, int target, LockType type, int assertions, const char* where);
  void release(Window& window, int target, const char* where);
  // lock_atomic.cpp
  /// A compare-and-swap or fetch-and-add on word `word` of `target`'s control block;
  /// returns the old value, or (wait false) returns at once and lets the completion be
  /// reaped later.
  std::uint64_t remote_atomic(Window& window, int target, std::size_t word, RdmaOp::Kind kind,
                              std::uint64_t compare_add, std::uint64_t swap, bool wait);
  /// An atomic posted and not yet waited for; its old value lands in result slot
  /// `slot` (done at once for this rank's own window, through the loopback pair).
  struct PendingAtomic {
    std::uint32_t cookie = 0;
    std::size_t slot = 0;  ///< control-block word
    bool done = false;
    std::uint64_t value = 0;
  };
  PendingAtomic post_atomic(Window& window, int target, std::size_t word, RdmaOp::Kind kind,
                            std::uint64_t compare_add, std::uint64_t swap, std::size_t slot);
  /// post_atomic() on any 8-byte word of `target`'s registered memory.
  PendingAtomic post_atomic_at(Window& window, int target, std::uint64_t remote_addr, std::uint32_t rkey,
                               RdmaOp::Kind kind, std::uint64_t compare_add, std::uint64_t swap, std::size_t slot);
  // accumulate_atomic.cpp
  /// Whether accumulate-class operations on `basic` elements of `window` are applied by
  /// the HCA's atomics (TWINFAB_RMA_ACCUMULATE=atomics: 8-byte integers).
  static bool by_hca_atomics(const Window& window, BasicKind basic);
  /// Applies an accumulate-class operation to `target`'s elements at `offset` + `blocks`
  /// by the HCA's atomics, element by element and waiting for each: fetch-and-add for
  /// MPI_SUM and MPI_NO_OP (adding 0), a compare-and-swap loop for the other ops.
  /// `values` holds the origin's packed elements (ignored for MPI_NO_OP). Returns the
  /// old values, packed in the target layout's order. Checks every element's alignment
  /// before touching any.
  std::vector<std::byte> hca_accumulate(Window& window, int target, std::uint64_t offset,
                                        const std::vector<Block>& blocks, const std::byte* values, Op op,
                                        BasicKind basic, const char* where);
  /// One compare-and-swap by the HCA on `target`'s 8-byte element at `offset`.
  std::uint64_t hca_compare_and_swap(Window& window, int target, std::uint64_t offset, std::uint64_t compare,
                                     std::uint64_t swap, const char* where);
  std::uint64_t wait_atomic(Window& window, const PendingAtomic& pending);
  void ts_acquire(Window& window, int target, LockType type);
  void ts_release(Window& window, int target);
  /// MCS exclusive lock (shared ones are ts_acquire's).
  void mcs_acquire(Window& window, int target);
  void mcs_release(Window& window, int target);
  // lock_thread.cpp
  /// Collective over the window: makes, connects and starts the window's LockService.
  void start_lock_service(Window& window, const char* where);
  void service_acquire(Window& window, int target, LockType type, const char* where);
  void service_release(Window& window, int target, const char* where);

  Context& context_;
  std::uint32_t next_window_id_ = 1;
  std::vector<std::unique_ptr<Window>> windows_;  ///< live, in creation order
  /// Charges the copies out of bounce slots where the host is modelled.
  HostWork work_;
  /// Made at the first small get; declared before rdma_, whose entries name its slots.
  std::unique_ptr<BounceSlots> bounce_;
  InFlightTable<RdmaInFlight> rdma_;
  /// Put's and get's target layouts, the capacity reused (ScratchBlocks in origin.cpp).
  std::vector<Block> blocks_scratch_;
  std::unordered_map<RequestId, UserRequest> user_requests_;
  RmaCounters& counters_;  ///< the Context's
  bool hooked_ = false;
  std::unique_ptr<LoopbackAtomics> loopback_;  ///< made at the first lock of this rank's own window (ts)
  /// Where confirm_placement's reads land (the value is not used); registered at the
  /// first one.
  std::uint64_t placement_sink_ = 0;
  std::unique_ptr<fabric::MemoryRegion> placement_region_;
};

}  // namespace twinfab::mpi::rma
