#include "mpi/capi/tools_tables.hpp"

#include <array>
#include <atomic>

namespace twinfab::mpi::capi::tools {

MPI_Datatype datatype_of(const ConfigVariable& variable) noexcept {
  switch (variable.kind) {
    case ConfigVariableKind::Unsigned32: return MPI_UNSIGNED;
    case ConfigVariableKind::Unsigned64: return MPI_UNSIGNED_LONG_LONG;
    case ConfigVariableKind::Choice: return MPI_INT;
  }
  return MPI_DATATYPE_NULL;
}

bool resettable(const PerformanceVariable& variable) noexcept {
  return variable.var_class == MPI_T_PVAR_CLASS_COUNTER || variable.var_class == MPI_T_PVAR_CLASS_AGGREGATE;
}

namespace {

// Readers: plain functions (lambdas without captures), so that the table is constant.
#define TWINFAB_PT2PT(field) [](const Context& c) -> std::uint64_t { return c.pt2pt_counters().field; }
#define TWINFAB_CHANNEL(field) [](const Context& c) -> std::uint64_t { return c.channel_counters().field; }
#define TWINFAB_REGCACHE(field) [](const Context& c) -> std::uint64_t { return c.registration_counters().field; }
#define TWINFAB_RMA(field) [](const Context& c) -> std::uint64_t { return c.rma_counters().field; }

constexpr int kCounter = MPI_T_PVAR_CLASS_COUNTER;
constexpr int kAggregate = MPI_T_PVAR_CLASS_AGGREGATE;
constexpr int kLevel = MPI_T_PVAR_CLASS_LEVEL;
constexpr int kHighwater = MPI_T_PVAR_CLASS_HIGHWATERMARK;

const std::array<PerformanceVariable, 59> kPvars{{
    // ---- the point-to-point engine (Pt2ptCounters): sender side for the protocols
    {"twinfab_pt2pt_tiny_messages",
     "Messages this rank sent to another rank with the tiny protocol (envelope and data in one packet, up to "
     "TWINFAB_TINY_THRESHOLD bytes); collectives' messages included.",
     kCounter, PvarGroup::Pt2pt, TWINFAB_PT2PT(tiny)},
    {"twinfab_pt2pt_short_messages",
     "Messages this rank sent with the short protocol (eager, in several packets, up to TWINFAB_EAGER_THRESHOLD "
     "bytes); collectives' messages included.",
     kCounter, PvarGroup::Pt2pt, TWINFAB_PT2PT(short_eager)},
    {"twinfab_pt2pt_rendezvous_write_imm_messages",
     "Messages this rank sent by rendezvous, variant write-imm (above TWINFAB_EAGER_THRESHOLD bytes).", kCounter,
     PvarGroup::Pt2pt, TWINFAB_PT2PT(rendezvous_write_imm)},
    {"twinfab_pt2pt_rendezvous_read_messages",
     "Messages this rank sent by rendezvous, variant read (the receiver reads the data).", kCounter,
     PvarGroup::Pt2pt, TWINFAB_PT2PT(rendezvous_read)},
    {"twinfab_pt2pt_rendezvous_write_fin_messages",
     "Messages this rank sent by rendezvous, variant write-fin (RDMA writes, then a FIN packet).", kCounter,
     PvarGroup::Pt2pt, TWINFAB_PT2PT(rendezvous_write_fin)},
    {"twinfab_pt2pt_self_messages",
     "Messages this rank sent to itself (delivered without the channel, whatever their size).", kCounter,
     PvarGroup::Pt2pt, TWINFAB_PT2PT(self)},
    {"twinfab_pt2pt_unexpected_messages",
     "Messages (or rendezvous requests) that arrived at this rank before a matching receive was posted.", kCounter,
     PvarGroup::Pt2pt, TWINFAB_PT2PT(unexpected)},
    {"twinfab_pt2pt_registrations",
     "User buffers this rank registered (through the registration cache) for rendezvous transfers, as sender or "
     "receiver.",
     kCounter, PvarGroup::Pt2pt, TWINFAB_PT2PT(registrations)},
    {"twinfab_pt2pt_posted_receives",
     "Receives posted on this rank and not matched yet (the posted queue's length; collectives' included).", kLevel,
     PvarGroup::Pt2pt, [](const Context& c) -> std::uint64_t { return c.posted_receives(); }},
    {"twinfab_pt2pt_unexpected_queue",
     "Messages waiting in this rank's unexpected queue for a receive (its length; collectives' included).", kLevel,
     PvarGroup::Pt2pt, [](const Context& c) -> std::uint64_t { return c.unexpected_messages(); }},
    // ---- the RC channel (ChannelCounters)
    {"twinfab_channel_packets_sent", "Packets this rank posted (messages' packets and control packets).", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(packets_sent)},
    {"twinfab_channel_packets_received", "Packets this rank received.", kCounter, PvarGroup::Channel,
     TWINFAB_CHANNEL(packets_received)},
    {"twinfab_channel_credit_updates_sent",
     "Explicit credit updates this rank sent (TWINFAB_CREDIT_UPDATE owed credits and no packet to carry them).",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(credit_updates_sent)},
    {"twinfab_channel_controls_as_immediates",
     "Credit updates and Byes this rank sent as RDMA writes with immediate (no receive buffer used).", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(controls_as_immediates)},
    {"twinfab_channel_packets_deferred",
     "Packets and RDMA operations that had to wait in a connection's pending queue (no send credit or send buffer, "
     "or behind others that wait): the credit stalls.",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(packets_deferred)},
    {"twinfab_channel_pending_peak",
     "Most packets and RDMA operations waiting in pending queues at once since MPI_Init (cannot be reset).",
     kHighwater, PvarGroup::Channel, TWINFAB_CHANNEL(pending_peak)},
    {"twinfab_channel_rdma_posted", "RDMA writes and reads this rank posted (rendezvous transfers).", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(rdma_posted)},
    {"twinfab_channel_connections", "RC connections this rank made (at start-up or on demand).", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(connections)},
    {"twinfab_channel_connect_messages",
     "On-demand connection requests and replies this rank sent, re-sends included.", kCounter, PvarGroup::Channel,
     TWINFAB_CHANNEL(connect_messages)},
    {"twinfab_channel_retransmissions", "UD: packets this rank sent again because their timeout expired.", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(retransmissions)},
    {"twinfab_channel_nack_retransmissions", "UD: packets this rank sent again because a peer NACKed them or a probe's answer showed them lost.",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(nack_retransmissions)},
    {"twinfab_channel_acks_sent",
     "UD: explicit acknowledgements this rank sent (the others rode on packets: ACK coalescing).", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(acks_sent)},
    {"twinfab_channel_nacks_sent", "UD: negative acknowledgements this rank sent for a gap in a peer's packets.",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(nacks_sent)},
    {"twinfab_channel_probes_sent",
     "UD: tail-loss probes this rank sent (its newest packet unacknowledged for twice TWINFAB_UD_ACK_DELAY).",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(probes_sent)},
    {"twinfab_channel_duplicates_received",
     "UD: packets that arrived a second time (a re-send whose original had arrived), dropped.", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(duplicates_received)},
    {"twinfab_channel_held_out_of_order", "UD: packets kept until a lost packet before them arrived again.",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(held_out_of_order)},
    {"twinfab_channel_datagrams_dropped",
     "UD: datagrams dropped as malformed, foreign, from an unknown rank or beyond the window.", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(datagrams_dropped)},
    {"twinfab_channel_agent_wakeups",
     "UD: wake-ups of the reliability agent (TWINFAB_UD_RELIABILITY=thread: every TWINFAB_UD_THREAD_WAKE; hybrid: "
     "a packet sent again to this rank's interrupt-driven QP).",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(agent_wakeups)},
    {"twinfab_channel_agent_packets",
     "UD: datagrams the reliability agent took in (and acknowledged) while the rank was elsewhere.", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(agent_packets)},
    {"twinfab_channel_ud_receive_growths",
     "UD: times the receive buffers posted doubled (a look at the receive queue found half of them taken; from "
     "TWINFAB_UD_RECV_INITIAL up to TWINFAB_UD_RECV_BUFFERS).",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(ud_receive_growths)},
    {"twinfab_channel_ud_receive_overruns",
     "UD: looks at the receive queue that found every receive posted taken (a datagram may have found none and been "
     "dropped); each asks the peers it heard from to send again what they have in flight.",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(ud_receive_overruns)},
    {"twinfab_channel_shm_packets_sent",
     "Shared memory (TWINFAB_SHM=1): packets this rank sent to ranks of its host through shared memory.", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(shm_packets_sent)},
    {"twinfab_channel_shm_packets_received",
     "Shared memory: packets this rank received from ranks of its host through shared memory.", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(shm_packets_received)},
    {"twinfab_channel_shm_single_copies",
     "Shared memory: RDMA writes and reads to ranks of this host done as one copy between the processes "
     "(rendezvous data, one-sided puts and gets).",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(shm_single_copies)},
    {"twinfab_channel_srq_growths",
     "RC with TWINFAB_SRQ=1: times the shared receive queue's pool grew by TWINFAB_SRQ_SIZE buffers (fewer than "
     "TWINFAB_SRQ_LIMIT were posted, or connections needed them on a device without RNR retry).",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(srq_growths)},
    {"twinfab_channel_fastpath_rings",
     "RC with TWINFAB_FASTPATH=1: RDMA fast-path rings this rank offered to peers that sent it "
     "TWINFAB_FASTPATH_THRESHOLD packets.",
     kCounter, PvarGroup::Channel, TWINFAB_CHANNEL(fastpath_rings)},
    {"twinfab_channel_fastpath_packets_sent",
     "RC fast path: packets this rank RDMA-wrote into a peer's ring (also counted as packets sent).", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(fastpath_packets_sent)},
    {"twinfab_channel_fastpath_packets_received",
     "RC fast path: packets this rank found by polling its rings (also counted as packets received).", kCounter,
     PvarGroup::Channel, TWINFAB_CHANNEL(fastpath_packets_received)},
    // ---- the registration cache (regcache::Counters); zero while TWINFAB_REGCACHE=none
    {"twinfab_regcache_hits", "Registrations the cache found already made.", kCounter, PvarGroup::Regcache,
     TWINFAB_REGCACHE(hits)},
    {"twinfab_regcache_misses", "Acquisitions that made a new device registration.", kCounter, PvarGroup::Regcache,
     TWINFAB_REGCACHE(misses)},
    {"twinfab_regcache_evictions", "Unused cached regions deregistered to make room.", kCounter,
     PvarGroup::Regcache, TWINFAB_REGCACHE(evictions)},
    {"twinfab_regcache_invalidations", "Cached regions dropped because their memory was unmapped.", kCounter,
     PvarGroup::Regcache, TWINFAB_REGCACHE(invalidations)},
    {"twinfab_regcache_registrations", "Device registrations the cache made.", kCounter, PvarGroup::Regcache,
     TWINFAB_REGCACHE(registrations)},
    {"twinfab_regcache_deregistrations", "Device registrations the cache released.", kCounter, PvarGroup::Regcache,
     TWINFAB_REGCACHE(deregistrations)},
    {"twinfab_regcache_bytes_registered", "Sum of the lengths of the device registrations the cache made (bytes).",
     kAggregate, PvarGroup::Regcache, TWINFAB_REGCACHE(bytes_registered)},
    {"twinfab_regcache_too_large",
     "Acquisitions refused because the area is larger than TWINFAB_REGCACHE_MAX_BYTES.", kCounter,
     PvarGroup::Regcache, TWINFAB_REGCACHE(too_large)},
    {"twinfab_regcache_no_resource", "Acquisitions refused because no cached region could be evicted.", kCounter,
     PvarGroup::Regcache, TWINFAB_REGCACHE(no_resource)},
    {"twinfab_regcache_fallbacks", "Transfers registered outside the cache (for that transfer only).", kCounter,
     PvarGroup::Regcache, TWINFAB_REGCACHE(fallbacks)},
    // ---- one-sided communication (mpi/rma)
    {"twinfab_rma_puts", "MPI_Put and MPI_Rput calls of this rank (to any target, itself included).", kCounter,
     PvarGroup::Rma, TWINFAB_RMA(puts)},
    {"twinfab_rma_gets", "MPI_Get and MPI_Rget calls of this rank.", kCounter, PvarGroup::Rma, TWINFAB_RMA(gets)},
    {"twinfab_rma_accumulates",
     "MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op and MPI_Compare_and_swap calls (and their request "
     "forms) of this rank.",
     kCounter, PvarGroup::Rma, TWINFAB_RMA(accumulates)},
    {"twinfab_rma_rdma_writes", "RDMA writes one-sided communication posted: puts' pieces and PSCW flags.", kCounter,
     PvarGroup::Rma, TWINFAB_RMA(rdma_writes)},
    {"twinfab_rma_rdma_reads", "RDMA reads one-sided communication posted (gets' pieces).", kCounter, PvarGroup::Rma,
     TWINFAB_RMA(rdma_reads)},
    {"twinfab_rma_remote_atomics",
     "Compare-and-swap and fetch-and-add work requests of the test-and-set lock design (this rank's own lock "
     "word's included): seed 001's lock message complexity.",
     kCounter, PvarGroup::Rma, TWINFAB_RMA(remote_atomics)},
    {"twinfab_rma_messages",
     "Messages one-sided communication sent: operations of the send/receive design, accumulates, flush and lock "
     "requests, their acknowledgements.",
     kCounter, PvarGroup::Rma, TWINFAB_RMA(messages)},
    {"twinfab_rma_operations_applied", "Operations this rank applied as a target, arrived as messages.", kCounter,
     PvarGroup::Rma, TWINFAB_RMA(operations_applied)},
    {"twinfab_rma_lock_attempts",
     "Attempts to acquire a passive-target lock: compare-and-swaps of the ts design, requests of the progress "
     "design.",
     kCounter, PvarGroup::Rma, TWINFAB_RMA(lock_attempts)},
    {"twinfab_rma_fences", "MPI_Win_fence calls of this rank.", kCounter, PvarGroup::Rma, TWINFAB_RMA(fences)},
    {"twinfab_rma_lock_messages",
     "Messages of the thread and event lock designs (TWINFAB_RMA_LOCK=thread|event): lock requests, unlocks and "
     "closes this rank sent to other ranks' lock agents, and grants written to other origins by this rank's lock "
     "agent or its own unlock (3 per lock of a remote window: request, grant, unlock). 0 with the other designs.",
     kCounter, PvarGroup::Rma, [](const Context& c) -> std::uint64_t {
       // The rank's lock agent adds to it concurrently (an OS thread on hardware).
       return std::atomic_ref<const std::uint64_t>(c.rma_counters().lock_messages).load(std::memory_order_relaxed);
     }},
}};

#undef TWINFAB_PT2PT
#undef TWINFAB_CHANNEL
#undef TWINFAB_REGCACHE

std::vector<Category> make_categories() {
  std::vector<Category> all{
      {"twinfab_config",
       "The run-time parameters, one control variable per TWINFAB_* environment variable (set before MPI_Init; "
       "the same value on every rank).",
       {}, {}, {1, 2, 3, 4, 5, 6, 7}},
      {"twinfab_config_protocols", "Packets, credits and the thresholds and variants of the point-to-point protocols.",
       {}, {}, {}},
      {"twinfab_config_connections", "When RC connections are made.", {}, {}, {}},
      {"twinfab_config_regcache", "The registration cache of rendezvous buffers.", {}, {}, {}},
      {"twinfab_config_rma", "One-sided communication: how operations move data, the passive-target lock design.",
       {}, {}, {}},
      {"twinfab_config_transport", "The channel under the protocols (rc or ud) and the UD channel's reliability.",
       {}, {}, {}},
      {"twinfab_config_collectives",
       "The collective algorithms (auto: the size-tuned table) and the thresholds of the table.", {}, {}, {}},
      {"twinfab_config_progress", "Asynchronous progress: an agent progressing communication while the program computes.",
       {}, {}, {}},
      {"twinfab_pt2pt", "The point-to-point engine of this rank: messages per protocol, matching queues.", {}, {},
       {}},
      {"twinfab_channel", "The channel of this rank (RC or UD): packets, credits, RDMA operations, connections, UD reliability.", {}, {},
       {}},
      {"twinfab_regcache", "The registration cache of this rank.", {}, {}, {}},
      {"twinfab_rma", "One-sided communication of this rank: operations, work requests, messages, lock attempts.",
       {}, {}, {}},
  };
  // twinfab_config, then one category per ConfigVariableGroup, then one per PvarGroup.
  constexpr std::size_t kConfigGroups = static_cast<std::size_t>(ConfigVariableGroup::Progress) + 1;
  const auto cvars = config_variables();
  for (std::size_t i = 0; i < cvars.size(); ++i)
    all[1 + static_cast<std::size_t>(cvars[i].group)].cvars.push_back(static_cast<int>(i));
  for (std::size_t i = 0; i < kPvars.size(); ++i)
    all[1 + kConfigGroups + static_cast<std::size_t>(kPvars[i].group)].pvars.push_back(static_cast<int>(i));
  return all;
}

}  // namespace

std::span<const PerformanceVariable> performance_variables() noexcept { return kPvars; }

const std::vector<Category>& categories() {
  static const std::vector<Category> all = make_categories();
  return all;
}

}  // namespace twinfab::mpi::capi::tools
