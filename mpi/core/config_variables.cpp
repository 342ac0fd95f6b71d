#include "mpi/core/config_variables.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>

#include "mpi/core/error.hpp"

namespace twinfab::mpi {

namespace {

// The words of the environment variables, in enumerator order (config.cpp's
// apply_environment accepts the same words).
constexpr std::array<std::string_view, 4> kRendezvousWords{"auto", "write-imm", "read", "write-fin"};
constexpr std::array<std::string_view, 3> kConnectWords{"auto", "startup", "on-demand"};
constexpr std::array<std::string_view, 3> kFastPathWords{"off", "on", "auto"};
constexpr std::array<std::string_view, 3> kRegcacheWords{"none", "dme", "lazy"};
constexpr std::array<std::string_view, 3> kRmaWords{"auto", "rdma", "sendrecv"};
constexpr std::array<std::string_view, 3> kTransportWords{"rc", "ud", "hybrid"};
constexpr std::array<std::string_view, 3> kUdReliabilityWords{"progress", "thread", "hybrid"};
constexpr std::array<std::string_view, 3> kAsyncProgressWords{"none", "event", "poll"};
static_assert(static_cast<int>(AsyncProgress::Poll) == 2, "the async progress words follow the enumerators");
static_assert(static_cast<int>(UdReliability::Hybrid) == 2, "the reliability words follow the enumerators");
static_assert(static_cast<int>(FastPathMode::Auto) == 2, "the fast path words follow the enumerators");
constexpr std::array<std::string_view, 6> kRmaLockWords{"auto", "ts", "mcs", "thread", "event", "progress"};
constexpr std::array<std::string_view, 2> kRmaAccumulateWords{"messages", "atomics"};
static_assert(static_cast<int>(RmaAccumulate::Atomics) == 1, "the accumulate words follow the enumerators");
static_assert(static_cast<int>(RmaDesign::SendRecv) == 2 && static_cast<int>(RmaLockDesign::TargetProgress) == 5,
              "the one-sided word lists follow the enumerators");
static_assert(static_cast<int>(RendezvousVariant::WriteFin) == 3 && static_cast<int>(ConnectMode::OnDemand) == 2 &&
                  static_cast<int>(regcache::CacheKind::Lazy) == 2,
              "the word lists follow the enumerators");

using VarKind = ConfigVariableKind;
using VarGroup = ConfigVariableGroup;

// A field as a variable: reads widen to 64 bits, writes narrow (after the range check
// in set_config_variable).
#define TWINFAB_CONFIG_FIELD(field)                                                            \
  [](const Config& c) -> std::uint64_t { return static_cast<std::uint64_t>(c.field); },        \
      [](Config& c, std::uint64_t v) { c.field = static_cast<decltype(Config::field)>(v); }

const std::array<ConfigVariable, 65> kVariables{{
    {"TWINFAB_PACKET_SIZE",
     "Bytes of one pre-registered packet buffer, header included (256 .. 16 MiB). A tiny message and each "
     "piece of a short one travel in one packet.",
     VarKind::Unsigned32, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(packet_size)},
    {"TWINFAB_CREDITS",
     "Receive buffers (= send credits) per connection (3 .. 4096); a sender without credit queues its "
     "packets until the receiver returns some.",
     VarKind::Unsigned32, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(credits)},
    {"TWINFAB_SEND_BUFFERS",
     "Registered send buffers shared by all connections (2 .. 65536, at most 4 GiB with TWINFAB_PACKET_SIZE).",
     VarKind::Unsigned32, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(send_buffers)},
    {"TWINFAB_TINY_THRESHOLD",
     "Largest message in bytes sent in one packet, envelope and data together (the tiny protocol); clamped to "
     "a packet's payload; 0: whatever fits in one packet.",
     VarKind::Unsigned64, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(tiny_threshold)},
    {"TWINFAB_EAGER_THRESHOLD",
     "Largest message in bytes sent eagerly (tiny or short protocol); above it the rendezvous protocol moves "
     "the data by RDMA.",
     VarKind::Unsigned64, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(eager_threshold)},
    {"TWINFAB_RENDEZVOUS",
     "How a rendezvous moves its data: auto (write-imm when the device has RDMA write with immediate, "
     "otherwise read), write-imm, read, write-fin.",
     VarKind::Choice, VarGroup::Protocols, kRendezvousWords, TWINFAB_CONFIG_FIELD(rendezvous)},
    {"TWINFAB_CREDIT_UPDATE",
     "Owed credits that make a receiver send an explicit credit update (below TWINFAB_CREDITS; 0: credits / 2).",
     VarKind::Unsigned32, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(credit_update_threshold)},
    {"TWINFAB_CONNECT",
     "When RC connections are made: auto (on demand above TWINFAB_ON_DEMAND_THRESHOLD ranks when the device "
     "has UD and needs no connection manager), startup, on-demand.",
     VarKind::Choice, VarGroup::Connections, kConnectWords, TWINFAB_CONFIG_FIELD(connect)},
    {"TWINFAB_ON_DEMAND_THRESHOLD", "Ranks above which TWINFAB_CONNECT=auto connects on demand.", VarKind::Unsigned32,
     VarGroup::Connections, {}, TWINFAB_CONFIG_FIELD(on_demand_threshold)},
    {"TWINFAB_SRQ",
     "1: RC connections take their receives from one shared receive queue per process (a pool whose size does "
     "not grow with the peers); 0 (the default): receive buffers per connection.",
     VarKind::Unsigned32, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(srq)},
    {"TWINFAB_SRQ_SIZE", "Shared receive queue: packet buffers posted at start (2 .. 65536).", VarKind::Unsigned32,
     VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(srq_size)},
    {"TWINFAB_SRQ_LIMIT",
     "Shared receive queue: the low watermark; when fewer buffers are posted, the pool grows by "
     "TWINFAB_SRQ_SIZE (below TWINFAB_SRQ_SIZE).",
     VarKind::Unsigned32, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(srq_limit)},
    {"TWINFAB_SRQ_MAX_SIZE", "Shared receive queue: the most buffers the pool grows to (TWINFAB_SRQ_SIZE .. 2^20).",
     VarKind::Unsigned32, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(srq_max_size)},
    {"TWINFAB_FASTPATH",
     "The RDMA fast path: packets to a busy peer are RDMA-written into a ring the receiver polls. off (the "
     "default), on (refused on a device whose RDMA writes do not land in order), auto (on where they do).",
     VarKind::Choice, VarGroup::Protocols, kFastPathWords, TWINFAB_CONFIG_FIELD(fastpath)},
    {"TWINFAB_FASTPATH_THRESHOLD", "RDMA fast path: packets received from a peer before it is offered a ring (>= 1).",
     VarKind::Unsigned32, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(fastpath_threshold)},
    {"TWINFAB_FASTPATH_BUFFERS", "RDMA fast path: slots of one packet each in a peer's ring (4 .. 4096).",
     VarKind::Unsigned32, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(fastpath_buffers)},
    {"TWINFAB_FASTPATH_MAX_PEERS", "RDMA fast path: the most peers a rank keeps rings for and polls (0 .. 65536).",
     VarKind::Unsigned32, VarGroup::Protocols, {}, TWINFAB_CONFIG_FIELD(fastpath_max_peers)},
    {"TWINFAB_REGCACHE",
     "The registration cache of rendezvous buffers: none, dme, lazy (the lazy engine also hits when a buffer "
     "is reused at an offset or in part).",
     VarKind::Choice, VarGroup::Regcache, kRegcacheWords, TWINFAB_CONFIG_FIELD(regcache)},
    {"TWINFAB_REGCACHE_MAX_ENTRIES", "Cached registrations (memory entry records, 1 .. 1048576).", VarKind::Unsigned64,
     VarGroup::Regcache, {}, TWINFAB_CONFIG_FIELD(regcache_max_entries)},
    {"TWINFAB_REGCACHE_MAX_BYTES",
     "Bytes the registration cache may keep pinned (>= 1); a larger area is registered for its transfer only.",
     VarKind::Unsigned64, VarGroup::Regcache, {}, TWINFAB_CONFIG_FIELD(regcache_max_bytes)},
    {"TWINFAB_RMA",
     "How one-sided operations move data: auto (rdma), rdma (put and get as RDMA write and read into and out of "
     "the target window), sendrecv (every operation a message the target's progress applies; seed 001's "
     "baseline).",
     VarKind::Choice, VarGroup::OneSided, kRmaWords, TWINFAB_CONFIG_FIELD(rma)},
    {"TWINFAB_RMA_LOCK",
     "The passive-target lock design: auto (ts where the device has remote atomics, else progress), ts "
     "(remote compare-and-swap with exponential backoff), mcs (an MCS queue lock, swap emulated by compare-and-"
     "swap), thread (a dedicated agent at the target serves lock requests), event (an agent woken by a "
     "completion event serves them), progress (lock requests served by the target's progress engine).",
     VarKind::Choice, VarGroup::OneSided, kRmaLockWords, TWINFAB_CONFIG_FIELD(rma_lock)},
    {"TWINFAB_RMA_ACCUMULATE",
     "How accumulates, MPI_Get_accumulate, MPI_Fetch_and_op and MPI_Compare_and_swap on 8-byte integers are "
     "applied: messages (the target's progress engine applies them) or atomics (the HCA's fetch-and-add for "
     "MPI_SUM and MPI_NO_OP, compare-and-swap loops for the other ops, element by element, the target's own "
     "included; needs remote atomics, TWINFAB_RMA=rdma and 8-byte-aligned target elements; not on dynamic or "
     "shared windows).",
     VarKind::Choice, VarGroup::OneSided, kRmaAccumulateWords, TWINFAB_CONFIG_FIELD(rma_accumulate)},
    {"TWINFAB_RMA_LOCK_BACKOFF",
     "The ts lock design: microseconds the first wait after a failed attempt lasts, doubling up to 1000 (0 .. "
     "1000; 0: no backoff, the next attempt at once, seed 001's 'without backoff').",
     VarKind::Unsigned32, VarGroup::OneSided, {}, TWINFAB_CONFIG_FIELD(rma_lock_backoff_us)},
    {"TWINFAB_RMA_LOCK_FAIR",
     "The ts lock design: 1, a rank that locks again within a round trip of its own release first leaves the "
     "lock free for that round trip (others are not starved); 0, seed 001's plain test-and-set, where such a "
     "rank wins every time.",
     VarKind::Unsigned32, VarGroup::OneSided, {}, TWINFAB_CONFIG_FIELD(rma_lock_fair)},
    {"TWINFAB_RMA_PIGGYBACK",
     "Bytes (0 .. 65536; 0, the default: off): in an access epoch of MPI_Win_start, puts of up to this many "
     "bytes travel as messages, each held until the next operation to its target, and the last one carries "
     "the epoch's end, one message fewer per epoch (MPICH2 ch3's flag on the last operation; seed 003's "
     "MVAPICH2-1SC sent small puts so). A put that does not fit in one packet, or with a request, is not held.",
     VarKind::Unsigned32, VarGroup::OneSided, {}, TWINFAB_CONFIG_FIELD(rma_piggyback_bytes)},
    {"TWINFAB_TRANSPORT",
     "The channel under the protocols: rc (a reliable connection per peer, with RDMA), ud (one unreliable-"
     "datagram QP per process, reliability in the library, packets only; seed 004) or hybrid (UD to every peer, "
     "an RC connection on demand to the peers a rank sends the most to). ud and hybrid need UD: not on iWARP.",
     VarKind::Choice, VarGroup::Transport, kTransportWords, TWINFAB_CONFIG_FIELD(transport)},
    {"TWINFAB_UD_WINDOW", "UD: unacknowledged packets per peer, the sliding window (2 .. 32768).", VarKind::Unsigned32,
     VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(ud_window)},
    {"TWINFAB_UD_SEND_BUFFERS",
     "UD: registered send buffers of an MTU, each held until its packet is acknowledged (TWINFAB_UD_WINDOW .. "
     "65536).",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(ud_send_buffers)},
    {"TWINFAB_UD_RECV_BUFFERS",
     "UD: the most receive buffers of an MTU posted, shared by every peer (2 .. 65536); a datagram finding none "
     "is lost and sent again.",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(ud_recv_buffers)},
    {"TWINFAB_UD_RECV_INITIAL",
     "UD: receive buffers posted at MPI_Init (2 .. 65536, at most TWINFAB_UD_RECV_BUFFERS are); doubled when a look "
     "at the receive queue finds half of them taken.",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(ud_recv_initial)},
    {"TWINFAB_UD_ACK_AFTER",
     "UD: owed acknowledgements that are sent at once rather than riding on a later packet (0: a quarter of the "
     "window).",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(ud_ack_after)},
    {"TWINFAB_UD_ACK_DELAY",
     "UD: microseconds an owed acknowledgement waits for a packet to ride on before it is sent alone.",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(ud_ack_delay_us)},
    {"TWINFAB_UD_RETRANSMIT_TIMEOUT",
     "UD: microseconds without acknowledgement before a packet is sent again (400000, seed 004's 0.4 s).",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(ud_retransmit_timeout_us)},
    {"TWINFAB_UD_MAX_RETRIES",
     "UD: re-sends of one packet before its peer is declared dead and the job ends with an error naming it.",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(ud_max_retries)},
    {"TWINFAB_UD_RELIABILITY",
     "UD: who runs the reliability (seed 004): progress (the progress engine only), thread (also a watchdog agent "
     "waking every TWINFAB_UD_THREAD_WAKE) or hybrid (a timed-out packet goes to the peer's interrupt-driven QP, "
     "whose agent acknowledges at once).",
     VarKind::Choice, VarGroup::Transport, kUdReliabilityWords, TWINFAB_CONFIG_FIELD(ud_reliability)},
    {"TWINFAB_UD_THREAD_WAKE",
     "UD, thread method: microseconds between the watchdog agent's wake-ups (>= 10; 1000000, seed 004's 1 s).",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(ud_thread_wake_us)},
    {"TWINFAB_HYBRID_RC_THRESHOLD",
     "hybrid: packets a rank sends to a peer over UD before it opens an RC connection to it and sends over that.",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(hybrid_rc_threshold)},
    {"TWINFAB_HYBRID_MAX_RC",
     "hybrid: the most peers a rank sends to over RC (0 .. 65536; 0: UD only); the others stay on UD.",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(hybrid_max_rc)},
    {"TWINFAB_SHM",
     "1 (the default): the ranks of a host talk through shared memory, the others through the network channel; "
     "0: every rank through the network channel.",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(shm)},
    {"TWINFAB_SHM_CELLS",
     "shared memory: packets a rank can have in flight to the ranks of its host (the cells of its segment, each "
     "one packet; 2 .. 65536).",
     VarKind::Unsigned32, VarGroup::Transport, {}, TWINFAB_CONFIG_FIELD(shm_cells)},
    {"TWINFAB_ASYNC_PROGRESS",
     "An agent that progresses the rank's communication while the program computes outside MPI: none (the "
     "default), event (it sleeps on completion events, no CPU while idle) or poll (it polls, and takes CPU from "
     "the rank's core).",
     VarKind::Choice, VarGroup::Progress, kAsyncProgressWords, TWINFAB_CONFIG_FIELD(async_progress)},
    {"TWINFAB_ASYNC_PROGRESS_INTERVAL",
     "Asynchronous progress: microseconds the agent waits at most between looks (1 .. 1000000; 100).",
     VarKind::Unsigned32, VarGroup::Progress, {}, TWINFAB_CONFIG_FIELD(async_progress_interval_us)},
    {"TWINFAB_BARRIER",
     "MPI_Barrier's algorithm: auto (node-aware when the communicator's ranks share hosts and "
     "TWINFAB_COLL_NODE_AWARE is 1, else dissemination), dissemination, node-aware (each host's ranks report to "
     "their leader, the leaders run the dissemination barrier, each leader releases its host).",
     VarKind::Choice, VarGroup::Collectives, kBarrierAlgorithmWords, TWINFAB_CONFIG_FIELD(barrier_algorithm)},
    {"TWINFAB_ALLREDUCE",
     "MPI_Allreduce's algorithm: auto (node-aware for a commutative op when ranks share hosts and "
     "TWINFAB_COLL_NODE_AWARE is 1; else recursive_doubling up to TWINFAB_ALLREDUCE_SHORT_MSG bytes, for a "
     "user-defined op and for fewer elements than the largest power of two of ranks; rabenseifner above), "
     "recursive_doubling, rabenseifner (reduce-scatter + allgather; commutative ops), node-aware (inside each "
     "host, then among hosts; commutative ops).",
     VarKind::Choice, VarGroup::Collectives, kAllreduceAlgorithmWords, TWINFAB_CONFIG_FIELD(allreduce_algorithm)},
    {"TWINFAB_ALLGATHER",
     "MPI_Allgather's algorithm: auto (node-aware below TWINFAB_ALLGATHER_SHORT_MSG total bytes when ranks "
     "share hosts and TWINFAB_COLL_NODE_AWARE is 1; else recursive_doubling below TWINFAB_ALLGATHER_LONG_MSG "
     "total bytes on a power of two of ranks, else bruck below TWINFAB_ALLGATHER_SHORT_MSG, else ring), "
     "recursive_doubling (powers of two of ranks), bruck, ring, node-aware (inside each host, then among hosts).",
     VarKind::Choice, VarGroup::Collectives, kAllgatherAlgorithmWords, TWINFAB_CONFIG_FIELD(allgather_algorithm)},
    {"TWINFAB_BCAST",
     "MPI_Bcast's algorithm: auto (node-aware when ranks share hosts and TWINFAB_COLL_NODE_AWARE is 1; else "
     "binomial up to TWINFAB_BCAST_SHORT_MSG bytes or below TWINFAB_BCAST_MIN_PROCS ranks, else "
     "scatter_recursive_doubling_allgather up to TWINFAB_BCAST_LONG_MSG on a power of two of ranks, else "
     "scatter_ring_allgather), binomial, scatter_recursive_doubling_allgather (powers of two of ranks), "
     "scatter_ring_allgather, node-aware (among hosts, then inside each).",
     VarKind::Choice, VarGroup::Collectives, kBcastAlgorithmWords, TWINFAB_CONFIG_FIELD(bcast_algorithm)},
    {"TWINFAB_ALLTOALL",
     "MPI_Alltoall's algorithm: auto (pairwise in place, else bruck up to TWINFAB_ALLTOALL_SHORT_MSG bytes per block on 8 ranks or "
     "more, else scattered up to TWINFAB_ALLTOALL_MEDIUM_MSG, else pairwise), bruck, scattered, pairwise.",
     VarKind::Choice, VarGroup::Collectives, kAlltoallAlgorithmWords, TWINFAB_CONFIG_FIELD(alltoall_algorithm)},
    {"TWINFAB_REDUCE",
     "MPI_Reduce's algorithm: auto (node-aware for a commutative op when ranks share hosts and "
     "TWINFAB_COLL_NODE_AWARE is 1; else rabenseifner above TWINFAB_REDUCE_SHORT_MSG bytes for a predefined op "
     "with at least as many elements as the largest power of two of ranks, else binomial), binomial, "
     "rabenseifner (reduce-scatter + gather; commutative ops), node-aware (inside each host, then among hosts; "
     "commutative ops).",
     VarKind::Choice, VarGroup::Collectives, kReduceAlgorithmWords, TWINFAB_CONFIG_FIELD(reduce_algorithm)},
    {"TWINFAB_REDUCE_SCATTER",
     "MPI_Reduce_scatter(_block)'s algorithm: auto (for a commutative op recursive_halving below "
     "TWINFAB_REDUCE_SCATTER_LONG_MSG total bytes, pairwise above; reduce_scatterv for a non-commutative op), "
     "recursive_halving, pairwise (both commutative ops), reduce_scatterv (a binomial reduce to rank 0, then a "
     "scatterv).",
     VarKind::Choice, VarGroup::Collectives, kReduceScatterAlgorithmWords,
     TWINFAB_CONFIG_FIELD(reduce_scatter_algorithm)},
    {"TWINFAB_GATHER", "MPI_Gather's algorithm: auto (binomial), binomial, linear.", VarKind::Choice,
     VarGroup::Collectives, kRootedAlgorithmWords, TWINFAB_CONFIG_FIELD(gather_algorithm)},
    {"TWINFAB_SCATTER", "MPI_Scatter's algorithm: auto (binomial), binomial, linear.", VarKind::Choice,
     VarGroup::Collectives, kRootedAlgorithmWords, TWINFAB_CONFIG_FIELD(scatter_algorithm)},
    {"TWINFAB_COLL_FALLBACK",
     "When an algorithm named by TWINFAB_<COLLECTIVE> cannot serve a call (a non-commutative op, a rank count "
     "that is not a power of two, too few elements): error (the call fails with MPI_ERR_ARG naming the "
     "algorithms that apply), warn (a warning once per collective, then auto's choice), silent (auto's "
     "choice).",
     VarKind::Choice, VarGroup::Collectives, kCollFallbackWords, TWINFAB_CONFIG_FIELD(coll_fallback)},
    {"TWINFAB_COLL_NODE_AWARE",
     "Whether auto takes the node-aware algorithms (barrier, bcast, reduce, allreduce, allgather) when the communicator "
     "spans several hosts and one of them holds more than one of its ranks: 1 (the default) or 0 (MPICH's "
     "MPIR_CVAR_ENABLE_SMP_COLLECTIVES). A node-aware algorithm named by TWINFAB_<COLLECTIVE> runs either way.",
     VarKind::Unsigned32, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(coll_node_aware)},
    {"TWINFAB_ALLREDUCE_SHORT_MSG",
     "Bytes up to which auto allreduces by recursive doubling (MPICH's MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE, 2048).",
     VarKind::Unsigned64, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(allreduce_short_msg)},
    {"TWINFAB_ALLGATHER_SHORT_MSG",
     "Total bytes below which auto allgathers by Bruck on a rank count that is not a power of two (MPICH's "
     "MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE, 81920).",
     VarKind::Unsigned64, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(allgather_short_msg)},
    {"TWINFAB_ALLGATHER_LONG_MSG",
     "Total bytes below which auto allgathers by recursive doubling on a power of two of ranks (MPICH's "
     "MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE, 524288).",
     VarKind::Unsigned64, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(allgather_long_msg)},
    {"TWINFAB_BCAST_SHORT_MSG",
     "Bytes up to which auto broadcasts by the binomial tree (MPICH's MPIR_CVAR_BCAST_SHORT_MSG_SIZE, 12288).",
     VarKind::Unsigned64, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(bcast_short_msg)},
    {"TWINFAB_BCAST_LONG_MSG",
     "Bytes up to which auto broadcasts by scatter + recursive-doubling allgather on a power of two of ranks, "
     "and above which by scatter + ring allgather (MPICH's MPIR_CVAR_BCAST_LONG_MSG_SIZE, 524288).",
     VarKind::Unsigned64, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(bcast_long_msg)},
    {"TWINFAB_BCAST_MIN_PROCS",
     "Ranks below which auto always broadcasts by the binomial tree (MPICH's MPIR_CVAR_BCAST_MIN_PROCS, 8).",
     VarKind::Unsigned32, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(bcast_min_procs)},
    {"TWINFAB_ALLTOALL_SHORT_MSG",
     "Bytes per block up to which auto's alltoall is Bruck's on 8 ranks or more (MPICH's "
     "MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE, 256).",
     VarKind::Unsigned64, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(alltoall_short_msg)},
    {"TWINFAB_ALLTOALL_MEDIUM_MSG",
     "Bytes per block up to which auto's alltoall is scattered, pairwise above (MPICH's "
     "MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE, 32768).",
     VarKind::Unsigned64, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(alltoall_medium_msg)},
    {"TWINFAB_ALLTOALL_THROTTLE",
     "Scattered alltoall: peers a rank exchanges with per round (MPICH's MPIR_CVAR_ALLTOALL_THROTTLE, 32; 0: "
     "all at once).",
     VarKind::Unsigned32, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(alltoall_throttle)},
    {"TWINFAB_REDUCE_SHORT_MSG",
     "Bytes up to which auto reduces by the binomial tree (MPICH's MPIR_CVAR_REDUCE_SHORT_MSG_SIZE, 2048).",
     VarKind::Unsigned64, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(reduce_short_msg)},
    {"TWINFAB_REDUCE_SCATTER_LONG_MSG",
     "Total bytes from which auto's reduce-scatter of a commutative op is pairwise rather than recursive "
     "halving (MPICH's MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE, 524288).",
     VarKind::Unsigned64, VarGroup::Collectives, {}, TWINFAB_CONFIG_FIELD(reduce_scatter_long_msg)},
}};

#undef TWINFAB_CONFIG_FIELD

}  // namespace

std::span<const ConfigVariable> config_variables() noexcept { return kVariables; }

std::optional<std::size_t> find_config_variable(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kVariables.size(); ++i)
    if (kVariables[i].name == name) return i;
  return std::nullopt;
}

void set_config_variable(Config& config, std::size_t index, std::uint64_t value) {
  if (index >= kVariables.size())
    throw Error(ErrorClass::MPI_ERR_ARG, "set_config_variable", fmt::format("no variable {}", index));
  const ConfigVariable& v = kVariables[index];
  const std::uint64_t limit = v.kind == ConfigVariableKind::Unsigned32 ? std::numeric_limits<std::uint32_t>::max()
                              : v.kind == ConfigVariableKind::Choice   ? v.choices.size() - 1
                                                                       : std::numeric_limits<std::uint64_t>::max();
  if (value > limit)
    throw Error(ErrorClass::MPI_ERR_ARG, v.name, fmt::format("{} is outside [0, {}]", value, limit));
  // On a copy: a combination validate() refuses leaves the caller's Config as it was.
  Config changed = config;
  v.put(changed, value);
  changed.validate();
  config = changed;
}

}  // namespace twinfab::mpi
