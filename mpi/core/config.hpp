// twinfab MPI core: the run-time parameters of the point-to-point engine.
//
// One struct, filled with the defaults of seed 000 §III.C (8 KB packets, 32 credits
// per connection) and seed 002 §3.1 (short protocol up to 32 KB), then overridden by
// TWINFAB_* environment variables, read once when a Context is created (reading the
// environment is not a clock or a global of ours: every rank reads the same values).
//
//   TWINFAB_PACKET_SIZE       bytes of one pre-registered packet buffer (>= 256)
//   TWINFAB_CREDITS           receive buffers (= send credits) per connection (>= 3)
//   TWINFAB_SEND_BUFFERS      registered send buffers shared by all connections
//   TWINFAB_TINY_THRESHOLD    largest message sent as one packet (clamped to a packet)
//   TWINFAB_EAGER_THRESHOLD   largest message sent eagerly (tiny or short); above it
//                             the rendezvous protocol is used
//   TWINFAB_RENDEZVOUS        auto | write-imm | read | write-fin
//   TWINFAB_CREDIT_UPDATE     owed credits that trigger an explicit credit update
//                             (0: credits / 2)
//   TWINFAB_CONNECT           auto | startup | on-demand: when RC connections are made
//                             (auto: on demand above TWINFAB_ON_DEMAND_THRESHOLD ranks
//                             when the device has UD and needs no connection manager)
//   TWINFAB_ON_DEMAND_THRESHOLD  ranks above which auto connects on demand (64, as
//                             MVAPICH2's MV2_ON_DEMAND_THRESHOLD)
//   TWINFAB_SRQ               0 | 1: RC receives from one shared receive queue per
//                             process instead of buffers per connection (seed 004
//                             sec. 3.1.3; docs/channels.md, "Shared receive queue")
//   TWINFAB_SRQ_SIZE          SRQ: buffers posted at start (512: MVAPICH's default)
//   TWINFAB_SRQ_LIMIT         SRQ: the low watermark: fewer posted, the pool grows
//   TWINFAB_SRQ_MAX_SIZE      SRQ: the most buffers the pool grows to (8192: seed 004)
//   TWINFAB_FASTPATH          off | on | auto: the RDMA fast path, eager packets written
//                             by RDMA into per-peer rings the receiver polls (seed
//                             003/004). It needs RDMA writes that land in order: on
//                             refuses a device without, auto leaves it off there
//                             (and says why in the debug log). Default off
//   TWINFAB_FASTPATH_THRESHOLD  packets from a peer before its ring is offered (10)
//   TWINFAB_FASTPATH_BUFFERS  ring slots of a packet each per peer (32)
//   TWINFAB_FASTPATH_MAX_PEERS  the most peers a rank polls rings for (16)
//   TWINFAB_REGCACHE          none | dme | lazy: the registration cache of rendezvous
//                             buffers (docs/regcache.md). Default lazy: MPI libraries
//                             (MVAPICH, UCX) keep their caches on, and the lazy engine
//                             also hits when a buffer is reused at an offset or in part
//   TWINFAB_REGCACHE_MAX_ENTRIES  cached registrations (memory entry records, >= 1)
//   TWINFAB_REGCACHE_MAX_BYTES    bytes the cache may keep pinned (>= 1); a larger
//                             area is registered for its transfer only
//   TWINFAB_TRANSPORT         rc | ud | hybrid: the channel under the protocols
//                             (docs/channels.md): reliable connections (default),
//                             unreliable datagrams with reliability in the library
//                             (seed 004), or UD with RC on demand to the busiest peers
//   TWINFAB_HYBRID_RC_THRESHOLD  hybrid: packets to a peer over UD before its RC connection
//   TWINFAB_HYBRID_MAX_RC     hybrid: the most peers a rank sends to over RC
//   TWINFAB_SHM               1 | 0: shared memory between the ranks of a host, beside
//                             the network channel (docs/shm.md; default 1, as MPICH,
//                             MVAPICH2 and Open MPI)
//   TWINFAB_SHM_CELLS         shared memory: packets a rank can have in flight to the
//                             ranks of its host (cells of its segment)
//   TWINFAB_UD_WINDOW         UD: unacknowledged packets per peer (the sliding window)
//   TWINFAB_UD_SEND_BUFFERS   UD: registered send buffers of an MTU (held until ACKed)
//   TWINFAB_UD_RECV_BUFFERS   UD: the most receive buffers of an MTU posted, shared by
//                             every peer
//   TWINFAB_UD_RECV_INITIAL   UD: receive buffers posted at start (doubled when a look
//                             finds half of them taken, up to TWINFAB_UD_RECV_BUFFERS)
//   TWINFAB_UD_ACK_AFTER      UD: owed ACKs that are sent at once (0: window / 4)
//   TWINFAB_UD_ACK_DELAY      UD: microseconds an owed ACK waits for a packet to ride on
//   TWINFAB_UD_RETRANSMIT_TIMEOUT  UD: microseconds without ACK before a re-send
//                             (400000: seed 004 §5's 0.4 s)
//   TWINFAB_UD_MAX_RETRIES    UD: re-sends of one packet before its peer is declared dead
//   TWINFAB_UD_RELIABILITY    UD: progress | thread | hybrid, who runs the reliability
//                             (seed 004 §4.1; ud_channel.hpp)
//   TWINFAB_UD_THREAD_WAKE    UD, thread method: microseconds between the watchdog's
//                             wake-ups (1000000: the seed's 1 s)
//   TWINFAB_ASYNC_PROGRESS    none | event | poll: an agent that progresses the rank's
//                             communication while the program computes (off by
//                             default; mpi/core/async_progress.hpp)
//   TWINFAB_ASYNC_PROGRESS_INTERVAL  microseconds the agent waits at most between looks
//   TWINFAB_RMA               auto | rdma | sendrecv: how one-sided operations move data
//                             (seed 001 ch. 3; docs/rma.md). auto: rdma
//   TWINFAB_RMA_LOCK          auto | ts | mcs | thread | event | progress: the passive-target
//                             lock design (seed 001 ch. 4). auto: ts where the device has
//                             remote atomics, progress otherwise
//   TWINFAB_RMA_LOCK_BACKOFF  ts: microseconds the first wait after a failed attempt lasts,
//                             doubling up to 1000 (1; 0: no backoff, the next attempt at
//                             once, seed 001 sec. 4.4.5's "without backoff")
//   TWINFAB_RMA_LOCK_FAIR     ts: 1 (default), a re-lock right after one's own release
//                             first leaves the lock free for a round trip; 0, seed 001's
//                             plain test-and-set, which such a rank can hold for ever
//   TWINFAB_RMA_PIGGYBACK     bytes: in an access epoch of MPI_Win_start, puts of up to this
//                             many bytes travel as messages and the last one to each
//                             target carries the epoch's end (MPICH2 ch3, seed 003's
//                             MVAPICH2-1SC); 0 (default): off, seed 001's designs
//
// Collective algorithms (docs/collectives.md; the words in collective_config.hpp):
//   TWINFAB_ALLREDUCE, TWINFAB_ALLGATHER, TWINFAB_BCAST, TWINFAB_ALLTOALL,
//   TWINFAB_REDUCE, TWINFAB_REDUCE_SCATTER, TWINFAB_GATHER, TWINFAB_SCATTER
//                             auto (the size-tuned table, mpi/coll/selection.hpp) or an
//                             algorithm's name, for experiments
//   TWINFAB_COLL_FALLBACK     error | warn | silent: when a named algorithm cannot
//                             serve a call (MPICH's MPIR_CVAR_COLLECTIVE_FALLBACK)
//   TWINFAB_ALLREDUCE_SHORT_MSG, TWINFAB_ALLGATHER_SHORT_MSG, TWINFAB_ALLGATHER_LONG_MSG,
//   TWINFAB_BCAST_SHORT_MSG, TWINFAB_BCAST_LONG_MSG, TWINFAB_BCAST_MIN_PROCS,
//   TWINFAB_ALLTOALL_SHORT_MSG, TWINFAB_ALLTOALL_MEDIUM_MSG, TWINFAB_ALLTOALL_THROTTLE,
//   TWINFAB_REDUCE_SHORT_MSG, TWINFAB_REDUCE_SCATTER_LONG_MSG
//                             the table's thresholds in bytes (MPICH 4's defaults)
//
// Bad values are a set-up error (mpi::Error MPI_ERR_ARG naming the variable).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "mpi/core/collective_config.hpp"
#include "mpi/regcache/registration_cache.hpp"

namespace twinfab::mpi {

/// How a rendezvous moves its data (seed 000 §III.H.1 and ARCHITECTURE "pt2pt").
enum class RendezvousVariant : std::uint8_t {
  Auto,       ///< write-imm when the device has it, otherwise read
  WriteImm,   ///< receiver sends CTS; sender RDMA-writes, the last write carries an immediate
  Read,       ///< receiver RDMA-reads the sender's buffer, then sends FIN
  WriteFin,   ///< receiver sends CTS; sender RDMA-writes, then sends a FIN packet
};
std::string_view to_string(RendezvousVariant variant) noexcept;

/// When the RC channel connects to its peers (see mpi/channels/ud_connector.hpp).
enum class ConnectMode : std::uint8_t {
  Auto,      ///< OnDemand above on_demand_threshold ranks when the device allows it
  Startup,   ///< every pair at start-up (all-to-all address exchange)
  OnDemand,  ///< at the first packet for a peer, through a UD connection manager
};
std::string_view to_string(ConnectMode mode) noexcept;

/// The channel the protocols run on (mpi/channels; docs/channels.md).
enum class Transport : std::uint8_t {
  Rc,  ///< RcChannel: a reliable connection per peer, RDMA
  Ud,  ///< UdChannel: one UD QP, reliability in the library, packets only (seed 004)
  Hybrid,  ///< HybridChannel: UD to every peer, RC on demand to the busiest ones
};
std::string_view to_string(Transport transport) noexcept;

/// Who runs the UD channel's reliability (seed 004 §4.1; mpi/channels/ud_channel.hpp).
enum class UdReliability : std::uint8_t {
  Progress,  ///< the progress engine only: ACKs and re-sends while the rank is in MPI
  Thread,    ///< also a watchdog agent waking periodically (TWINFAB_UD_THREAD_WAKE)
  Hybrid,    ///< progress engine; a timed-out packet goes to the peer's interrupt-driven QP,
             ///< whose agent wakes and acknowledges
};
std::string_view to_string(UdReliability reliability) noexcept;

/// Whether and how an agent progresses communication while the program computes
/// (mpi/core/async_progress.hpp).
enum class AsyncProgress : std::uint8_t {
  None,   ///< only MPI calls progress (the default, as MPICH's and MVAPICH2's)
  Event,  ///< an agent sleeping on completion events: no CPU while idle
  Poll,   ///< an agent polling the completion queues: faster, takes CPU from the rank
};
std::string_view to_string(AsyncProgress mode) noexcept;

/// How one-sided operations move their data (mpi/rma, seed 001 ch. 3).
enum class RmaDesign : std::uint8_t {
  Auto,      ///< Rdma
  Rdma,      ///< put/get as RDMA write/read straight into/out of the target window
  SendRecv,  ///< every operation a message that the target's progress applies
};
std::string_view to_string(RmaDesign design) noexcept;

/// The RC channel's RDMA fast path (rc_channel.hpp).
enum class FastPathMode : std::uint8_t {
  Off,   ///< every packet through receive buffers
  On,    ///< rings for busy peers; a device without in-order placement is refused
  Auto,  ///< On where the device places RDMA writes in order, Off elsewhere
};
std::string_view to_string(FastPathMode mode) noexcept;

/// The passive-target lock design (MPI_Win_lock; seed 001 ch. 4).
enum class RmaLockDesign : std::uint8_t {
  Auto,          ///< TestAndSet where the device has remote atomics, else TargetProgress
  TestAndSet,    ///< remote compare-and-swap / fetch-and-add on a lock word, exponential backoff
  Mcs,           ///< MCS queue lock with swap emulated by compare-and-swap
  Thread,        ///< a dedicated thread at the target serves lock requests
  Event,         ///< an event-driven thread at the target, woken by a completion
  TargetProgress,  ///< lock requests are messages the target's progress engine serves (MPICH ch3)
};
std::string_view to_string(RmaLockDesign design) noexcept;

/// How accumulate-class operations on 8-byte integers are applied (mpi/rma).
enum class RmaAccumulate : std::uint8_t {
  Messages,  ///< every accumulate a message the target's progress engine applies
  Atomics,   ///< by the HCA's fetch-and-add and compare-and-swap, element by element
};
std::string_view to_string(RmaAccumulate mode) noexcept;

struct Config {
  std::uint32_t packet_size = 8192;
  std::uint32_t credits = 32;
  std::uint32_t send_buffers = 256;
  /// Largest message sent in one packet; 0 means "whatever fits in one packet".
  std::uint64_t tiny_threshold = 0;
  std::uint64_t eager_threshold = 32768;
  RendezvousVariant rendezvous = RendezvousVariant::Auto;
  /// Owed credits that make the receiver send an explicit credit update; 0: credits/2.
  std::uint32_t credit_update_threshold = 0;
  ConnectMode connect = ConnectMode::Auto;
  std::uint32_t on_demand_threshold = 64;
  /// The RC channel's shared receive queue (rc_channel.hpp): off (0) or on (1), the
  /// buffers posted at start, the low watermark below which the pool grows, and the
  /// most buffers it grows to.
  std::uint32_t srq = 0;
  std::uint32_t srq_size = 512;
  std::uint32_t srq_limit = 30;
  std::uint32_t srq_max_size = 8192;
  /// The RC channel's RDMA fast path (rc_fast_path.hpp): the mode, packets received
  /// from a peer before the receiver offers it a ring, the ring's slots, and the most
  /// peers with a ring per rank (the polling set).
  FastPathMode fastpath = FastPathMode::Off;
  std::uint32_t fastpath_threshold = 10;
  std::uint32_t fastpath_buffers = 32;
  std::uint32_t fastpath_max_peers = 16;
  /// Registration cache of user buffers (mpi/regcache).
  regcache::CacheKind regcache = regcache::CacheKind::Lazy;
  std::uint64_t regcache_max_entries = 4096;
  std::uint64_t regcache_max_bytes = 4ull << 30;
  /// One-sided communication (mpi/rma).
  RmaDesign rma = RmaDesign::Auto;
  RmaLockDesign rma_lock = RmaLockDesign::Auto;
  RmaAccumulate rma_accumulate = RmaAccumulate::Messages;
  std::uint32_t rma_lock_backoff_us = 1;
  std::uint32_t rma_lock_fair = 1;
  std::uint32_t rma_piggyback_bytes = 0;
  /// The channel (mpi/channels) and the UD channel's parameters (ud_channel.hpp).
  Transport transport = Transport::Rc;
  std::uint32_t ud_window = 64;
  std::uint32_t ud_send_buffers = 256;
  std::uint32_t ud_recv_buffers = 256;
  std::uint32_t ud_recv_initial = 16;
  std::uint32_t ud_ack_after = 0;
  std::uint32_t ud_ack_delay_us = 200;
  std::uint32_t ud_retransmit_timeout_us = 400000;
  std::uint32_t ud_max_retries = 25;
  UdReliability ud_reliability = UdReliability::Progress;
  std::uint32_t ud_thread_wake_us = 1000000;
  /// The hybrid channel (hybrid_channel.hpp): packets to a peer over UD before its RC
  /// connection is made, and the most peers a rank sends to over RC.
  std::uint32_t hybrid_rc_threshold = 64;
  std::uint32_t hybrid_max_rc = 16;
  /// Shared memory between the ranks of a host (shm_channel.hpp): on (1) or off (0),
  /// and the cells of one packet each that every rank's segment holds.
  std::uint32_t shm = 1;
  std::uint32_t shm_cells = 64;
  /// Asynchronous progress (async_progress.hpp): the agent's kind, and the longest it
  /// waits between looks (at the rank's state while the rank is in MPI, at its
  /// deadlines otherwise).
  AsyncProgress async_progress = AsyncProgress::None;
  std::uint32_t async_progress_interval_us = 100;
  /// Collective algorithms (collective_config.hpp; auto: mpi/coll/selection.hpp's table).
  BarrierAlgorithm barrier_algorithm = BarrierAlgorithm::Auto;
  AllreduceAlgorithm allreduce_algorithm = AllreduceAlgorithm::Auto;
  AllgatherAlgorithm allgather_algorithm = AllgatherAlgorithm::Auto;
  BcastAlgorithm bcast_algorithm = BcastAlgorithm::Auto;
  AlltoallAlgorithm alltoall_algorithm = AlltoallAlgorithm::Auto;
  ReduceAlgorithm reduce_algorithm = ReduceAlgorithm::Auto;
  ReduceScatterAlgorithm reduce_scatter_algorithm = ReduceScatterAlgorithm::Auto;
  RootedAlgorithm gather_algorithm = RootedAlgorithm::Auto;
  RootedAlgorithm scatter_algorithm = RootedAlgorithm::Auto;
  CollFallback coll_fallback = CollFallback::Error;
  /// Whether auto may take the node-aware algorithms when a communicator's ranks share
  /// hosts (0 or 1; MPICH's MPIR_CVAR_ENABLE_SMP_COLLECTIVES). A named node-aware
  /// algorithm runs whatever this says.
  std::uint32_t coll_node_aware = 1;
  /// The auto table's thresholds, in bytes unless named otherwise; the defaults are
  /// MPICH 4's (MPIR_CVAR_<NAME>_SIZE; docs/collectives.md).
  std::uint64_t allreduce_short_msg = 2048;
  std::uint64_t allgather_short_msg = 81920;
  std::uint64_t allgather_long_msg = 524288;
  std::uint64_t bcast_short_msg = 12288;
  std::uint64_t bcast_long_msg = 524288;
  std::uint32_t bcast_min_procs = 8;     ///< ranks below which bcast is always binomial
  std::uint64_t alltoall_short_msg = 256;
  std::uint64_t alltoall_medium_msg = 32768;
  std::uint32_t alltoall_throttle = 32;  ///< scattered alltoall: peers per round (0: all)
  std::uint64_t reduce_short_msg = 2048;
  std::uint64_t reduce_scatter_long_msg = 524288;

  /// Throws mpi::Error(MPI_ERR_ARG) for an unusable combination.
  void validate() const;
  /// The effective credit-update threshold (resolves 0).
  std::uint32_t update_threshold() const noexcept;
};

/// `base` with every TWINFAB_* variable that is set applied; validated.
Config apply_environment(Config base);
/// The same in place (no copy of the configuration on the stack).
void apply_environment_to(Config& config);
/// `base` with the TWINFAB_* variables in `values` (name -> the text the environment
/// variable would hold) applied, parsed and checked exactly as apply_environment does;
/// a name that is not a parameter (config_variables.hpp) is MPI_ERR_ARG listing them.
Config apply_variables(Config base, const std::map<std::string, std::string>& values);

}  // namespace twinfab::mpi
