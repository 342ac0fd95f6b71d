#include "mpi/core/config.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "mpi/core/config_variables.hpp"
#include "mpi/core/error.hpp"

namespace twinfab::mpi {

std::string_view to_string(RendezvousVariant variant) noexcept {
  switch (variant) {
    case RendezvousVariant::Auto: return "auto";
    case RendezvousVariant::WriteImm: return "write-imm";
    case RendezvousVariant::Read: return "read";
    case RendezvousVariant::WriteFin: return "write-fin";
  }
  return "?";
}

std::string_view to_string(ConnectMode mode) noexcept {
  switch (mode) {
    case ConnectMode::Auto: return "auto";
    case ConnectMode::Startup: return "startup";
    case ConnectMode::OnDemand: return "on-demand";
  }
  return "?";
}

std::string_view to_string(Transport transport) noexcept {
  switch (transport) {
    case Transport::Rc: return "rc";
    case Transport::Ud: return "ud";
    case Transport::Hybrid: return "hybrid";
  }
  return "?";
}

std::string_view to_string(AsyncProgress mode) noexcept {
  switch (mode) {
    case AsyncProgress::None: return "none";
    case AsyncProgress::Event: return "event";
    case AsyncProgress::Poll: return "poll";
  }
  return "?";
}

std::string_view to_string(UdReliability reliability) noexcept {
  switch (reliability) {
    case UdReliability::Progress: return "progress";
    case UdReliability::Thread: return "thread";
    case UdReliability::Hybrid: return "hybrid";
  }
  return "?";
}

std::string_view to_string(RmaDesign design) noexcept {
  switch (design) {
    case RmaDesign::Auto: return "auto";
    case RmaDesign::Rdma: return "rdma";
    case RmaDesign::SendRecv: return "sendrecv";
  }
  return "?";
}

std::string_view to_string(FastPathMode mode) noexcept {
  switch (mode) {
    case FastPathMode::Off: return "off";
    case FastPathMode::On: return "on";
    case FastPathMode::Auto: return "auto";
  }
  return "?";
}

std::string_view to_string(RmaAccumulate mode) noexcept {
  return mode == RmaAccumulate::Atomics ? "atomics" : "messages";
}

std::string_view to_string(RmaLockDesign design) noexcept {
  switch (design) {
    case RmaLockDesign::Auto: return "auto";
    case RmaLockDesign::TestAndSet: return "ts";
    case RmaLockDesign::Mcs: return "mcs";
    case RmaLockDesign::Thread: return "thread";
    case RmaLockDesign::Event: return "event";
    case RmaLockDesign::TargetProgress: return "progress";
  }
  return "?";
}

void Config::validate() const {
  // Each refusal names the field and the environment variable that sets it.
  if (packet_size < 256 || packet_size > (1u << 24))
    throw Error(ErrorClass::MPI_ERR_ARG, "packet_size (TWINFAB_PACKET_SIZE)",
                fmt::format("{} bytes is outside [256, 16 MiB]", packet_size));
  // Below 3 credits the credit-update rule (one credit reserved for updates, updates
  // never answered by updates) cannot work: see rc_channel.hpp.
  if (credits < 3 || credits > 4096)
    throw Error(ErrorClass::MPI_ERR_ARG, "credits (TWINFAB_CREDITS)", fmt::format("{} is outside [3, 4096]", credits));
  if (send_buffers < 2 || send_buffers > 65536)
    throw Error(ErrorClass::MPI_ERR_ARG, "send_buffers (TWINFAB_SEND_BUFFERS)",
                fmt::format("{} is outside [2, 65536]", send_buffers));
  // The send buffers are one registered allocation per rank.
  if (std::uint64_t{send_buffers} * packet_size > (std::uint64_t{1} << 32))
    throw Error(ErrorClass::MPI_ERR_ARG, "send_buffers (TWINFAB_SEND_BUFFERS)",
                fmt::format("{} buffers of {} bytes (TWINFAB_PACKET_SIZE) are more than 4 GiB of registered memory",
                            send_buffers, packet_size));
  if (credit_update_threshold >= credits)
    throw Error(ErrorClass::MPI_ERR_ARG, "credit_update_threshold (TWINFAB_CREDIT_UPDATE)",
                fmt::format("{} must be below credits ({})", credit_update_threshold, credits));
  if (srq > 1)
    throw Error(ErrorClass::MPI_ERR_ARG, "srq (TWINFAB_SRQ)",
                fmt::format("{} is neither 0 (buffers per connection) nor 1 (a shared receive queue)", srq));
  if (srq_size < 2 || srq_size > 65536)
    throw Error(ErrorClass::MPI_ERR_ARG, "srq_size (TWINFAB_SRQ_SIZE)", fmt::format("{} is outside [2, 65536]", srq_size));
  if (srq_limit >= srq_size)
    throw Error(ErrorClass::MPI_ERR_ARG, "srq_limit (TWINFAB_SRQ_LIMIT)",
                fmt::format("{} must be below TWINFAB_SRQ_SIZE ({}): the pool would grow at once", srq_limit, srq_size));
  if (srq_max_size < srq_size || srq_max_size > (1u << 20))
    throw Error(ErrorClass::MPI_ERR_ARG, "srq_max_size (TWINFAB_SRQ_MAX_SIZE)",
                fmt::format("{} is outside [TWINFAB_SRQ_SIZE ({}), 1048576]", srq_max_size, srq_size));
  if (fastpath_threshold < 1)
    throw Error(ErrorClass::MPI_ERR_ARG, "fastpath_threshold (TWINFAB_FASTPATH_THRESHOLD)", "must be >= 1");
  if (fastpath_buffers < 4 || fastpath_buffers > 4096)
    throw Error(ErrorClass::MPI_ERR_ARG, "fastpath_buffers (TWINFAB_FASTPATH_BUFFERS)",
                fmt::format("{} is outside [4, 4096]", fastpath_buffers));
  if (fastpath_max_peers > 65536)
    throw Error(ErrorClass::MPI_ERR_ARG, "fastpath_max_peers (TWINFAB_FASTPATH_MAX_PEERS)",
                fmt::format("{} is above 65536", fastpath_max_peers));
  if (regcache_max_entries == 0 || regcache_max_entries > (1u << 20))
    throw Error(ErrorClass::MPI_ERR_ARG, "regcache_max_entries (TWINFAB_REGCACHE_MAX_ENTRIES)",
                fmt::format("{} is outside [1, 1048576]", regcache_max_entries));
  if (ud_window < 2 || ud_window > 32768)
    throw Error(ErrorClass::MPI_ERR_ARG, "ud_window (TWINFAB_UD_WINDOW)", fmt::format("{} is outside [2, 32768]", ud_window));
  // A full window must fit the send buffers, or one peer could never fill it.
  if (ud_send_buffers < ud_window || ud_send_buffers > 65536)
    throw Error(ErrorClass::MPI_ERR_ARG, "ud_send_buffers (TWINFAB_UD_SEND_BUFFERS)",
                fmt::format("{} is outside [TWINFAB_UD_WINDOW ({}), 65536]", ud_send_buffers, ud_window));
  if (ud_recv_buffers < 2 || ud_recv_buffers > 65536)
    throw Error(ErrorClass::MPI_ERR_ARG, "ud_recv_buffers (TWINFAB_UD_RECV_BUFFERS)",
                fmt::format("{} is outside [2, 65536]", ud_recv_buffers));
  // Above TWINFAB_UD_RECV_BUFFERS it is not an error: the channel posts at most that
  // many (so lowering the maximum alone stays valid).
  if (ud_recv_initial < 2 || ud_recv_initial > 65536)
    throw Error(ErrorClass::MPI_ERR_ARG, "ud_recv_initial (TWINFAB_UD_RECV_INITIAL)",
                fmt::format("{} is outside [2, 65536]", ud_recv_initial));
  if (ud_ack_after > ud_window)
    throw Error(ErrorClass::MPI_ERR_ARG, "ud_ack_after (TWINFAB_UD_ACK_AFTER)",
                fmt::format("{} is above TWINFAB_UD_WINDOW ({}): the window would stop the sender first", ud_ack_after,
                            ud_window));
  if (ud_retransmit_timeout_us < 1)
    throw Error(ErrorClass::MPI_ERR_ARG, "ud_retransmit_timeout_us (TWINFAB_UD_RETRANSMIT_TIMEOUT)", "must be >= 1 us");
  if (ud_ack_delay_us >= ud_retransmit_timeout_us)
    throw Error(ErrorClass::MPI_ERR_ARG, "ud_ack_delay_us (TWINFAB_UD_ACK_DELAY)",
                fmt::format("{} us must be below TWINFAB_UD_RETRANSMIT_TIMEOUT ({} us), or every delayed ACK "
                            "comes after the re-send it should prevent",
                            ud_ack_delay_us, ud_retransmit_timeout_us));
  if (ud_max_retries < 1)
    throw Error(ErrorClass::MPI_ERR_ARG, "ud_max_retries (TWINFAB_UD_MAX_RETRIES)", "must be >= 1");
  if (hybrid_max_rc > 65536)
    throw Error(ErrorClass::MPI_ERR_ARG, "hybrid_max_rc (TWINFAB_HYBRID_MAX_RC)",
                fmt::format("{} is above 65536", hybrid_max_rc));
  if (rma_lock_backoff_us > 1000)
    throw Error(ErrorClass::MPI_ERR_ARG, "rma_lock_backoff_us (TWINFAB_RMA_LOCK_BACKOFF)",
                fmt::format("{} is outside [0, 1000] microseconds (the most any wait lasts)", rma_lock_backoff_us));
  if (rma_lock_fair > 1)
    throw Error(ErrorClass::MPI_ERR_ARG, "rma_lock_fair (TWINFAB_RMA_LOCK_FAIR)",
                fmt::format("{} is neither 0 (seed 001's plain test-and-set) nor 1 (a re-lock leaves the lock free "
                            "for a round trip first)",
                            rma_lock_fair));
  if (rma_piggyback_bytes > 65536)
    throw Error(
        ErrorClass::MPI_ERR_ARG, "rma_piggyback_bytes (TWINFAB_RMA_PIGGYBACK)",
        fmt::format("{} is above 65536 bytes (a put is held only when it fits in one packet)", rma_piggyback_bytes));
  if (shm > 1)
    throw Error(ErrorClass::MPI_ERR_ARG, "shm (TWINFAB_SHM)",
                fmt::format("{} is neither 0 (off) nor 1 (shared memory between the ranks of a host)", shm));
  if (shm_cells < 2 || shm_cells > 65536)
    throw Error(ErrorClass::MPI_ERR_ARG, "shm_cells (TWINFAB_SHM_CELLS)",
                fmt::format("{} is outside 2 .. 65536", shm_cells));
  if (ud_thread_wake_us < 10)
    throw Error(ErrorClass::MPI_ERR_ARG, "ud_thread_wake_us (TWINFAB_UD_THREAD_WAKE)",
                fmt::format("{} us is below 10 us: the watchdog would wake more often than a datagram travels",
                            ud_thread_wake_us));
  if (async_progress_interval_us < 1 || async_progress_interval_us > 1000000)
    throw Error(ErrorClass::MPI_ERR_ARG, "async_progress_interval_us (TWINFAB_ASYNC_PROGRESS_INTERVAL)",
                fmt::format("{} us is outside [1, 1000000]", async_progress_interval_us));
  if (coll_node_aware > 1)
    throw Error(ErrorClass::MPI_ERR_ARG, "coll_node_aware (TWINFAB_COLL_NODE_AWARE)",
                fmt::format("{} is neither 0 (off) nor 1 (on)", coll_node_aware));
  if (regcache_max_bytes == 0)
    throw Error(ErrorClass::MPI_ERR_ARG, "regcache_max_bytes (TWINFAB_REGCACHE_MAX_BYTES)", "must be >= 1");
}

std::uint32_t Config::update_threshold() const noexcept {
  if (credit_update_threshold != 0) return credit_update_threshold;
  return credits / 2 < 2 ? 2 : credits / 2;
}

namespace {

std::uint64_t parse_number(const char* name, const char* text) {
  errno = 0;
  char* end = nullptr;
  // Digits only: strtoull would also take leading blanks, a sign, and "-1" as 2^64 - 1.
  const bool digits = text[0] >= '0' && text[0] <= '9';
  const unsigned long long value = digits ? std::strtoull(text, &end, 10) : 0;
  if (!digits || errno != 0 || *end != '\0')
    throw Error(ErrorClass::MPI_ERR_ARG, name, fmt::format("'{}' is not a non-negative integer", text));
  return value;
}

/// Where the TWINFAB_* values come from: the process environment, or a map of
/// name -> text (a launcher or sweep checking parameters before a run).
using Lookup = std::function<const char*(const char* name)>;

template <class T>
void override_from(const Lookup& lookup, const char* name, T& field) {
  if (const char* text = lookup(name)) {
    const std::uint64_t value = parse_number(name, text);
    if (value > static_cast<std::uint64_t>(static_cast<T>(~T{})))
      throw Error(ErrorClass::MPI_ERR_ARG, name, fmt::format("{} is too large", value));
    field = static_cast<T>(value);
  }
}

/// `field` set from the word in environment variable `name`, one of `choices`; an
/// unknown word is MPI_ERR_ARG listing the allowed ones.
template <class E>
void choice_from(const Lookup& lookup, const char* name, E& field,
                 std::initializer_list<std::pair<std::string_view, E>> choices) {
  const char* text = lookup(name);
  if (text == nullptr) return;
  std::string allowed;
  for (const auto& [word, value] : choices) {
    if (word == text) {
      field = value;
      return;
    }
    allowed += allowed.empty() ? std::string(word) : fmt::format(", {}", word);
  }
  throw Error(ErrorClass::MPI_ERR_ARG, name, fmt::format("'{}' is not one of {}", text, allowed));
}

/// The same for an enumeration whose words are listed in enumerator order
/// (collective_config.hpp).
template <class E, std::size_t N>
void word_from(const Lookup& lookup, const char* name, E& field, const std::array<std::string_view, N>& words) {
  const char* text = lookup(name);
  if (text == nullptr) return;
  std::string allowed;
  for (std::size_t i = 0; i < N; ++i) {
    if (words[i] == text) {
      field = static_cast<E>(i);
      return;
    }
    allowed += i == 0 ? std::string(words[i]) : fmt::format(", {}", words[i]);
  }
  throw Error(ErrorClass::MPI_ERR_ARG, name, fmt::format("'{}' is not one of {}", text, allowed));
}

/// In place: no Config on the stack (MPI_Init's is the deepest a simulated rank's stack
/// gets; Context::resolve_config).
void apply_from(Config& base, const Lookup& lookup) {
  override_from(lookup, "TWINFAB_PACKET_SIZE", base.packet_size);
  override_from(lookup, "TWINFAB_CREDITS", base.credits);
  override_from(lookup, "TWINFAB_SEND_BUFFERS", base.send_buffers);
  override_from(lookup, "TWINFAB_TINY_THRESHOLD", base.tiny_threshold);
  override_from(lookup, "TWINFAB_EAGER_THRESHOLD", base.eager_threshold);
  override_from(lookup, "TWINFAB_CREDIT_UPDATE", base.credit_update_threshold);
  choice_from(lookup, "TWINFAB_RENDEZVOUS", base.rendezvous,
              {{"auto", RendezvousVariant::Auto},
               {"write-imm", RendezvousVariant::WriteImm},
               {"read", RendezvousVariant::Read},
               {"write-fin", RendezvousVariant::WriteFin}});
  override_from(lookup, "TWINFAB_ON_DEMAND_THRESHOLD", base.on_demand_threshold);
  choice_from(lookup, "TWINFAB_CONNECT", base.connect,
              {{"auto", ConnectMode::Auto}, {"startup", ConnectMode::Startup}, {"on-demand", ConnectMode::OnDemand}});
  override_from(lookup, "TWINFAB_SRQ", base.srq);
  override_from(lookup, "TWINFAB_SRQ_SIZE", base.srq_size);
  override_from(lookup, "TWINFAB_SRQ_LIMIT", base.srq_limit);
  override_from(lookup, "TWINFAB_SRQ_MAX_SIZE", base.srq_max_size);
  choice_from(lookup, "TWINFAB_FASTPATH", base.fastpath,
              {{"off", FastPathMode::Off}, {"on", FastPathMode::On}, {"auto", FastPathMode::Auto}});
  override_from(lookup, "TWINFAB_FASTPATH_THRESHOLD", base.fastpath_threshold);
  override_from(lookup, "TWINFAB_FASTPATH_BUFFERS", base.fastpath_buffers);
  override_from(lookup, "TWINFAB_FASTPATH_MAX_PEERS", base.fastpath_max_peers);
  override_from(lookup, "TWINFAB_REGCACHE_MAX_ENTRIES", base.regcache_max_entries);
  override_from(lookup, "TWINFAB_REGCACHE_MAX_BYTES", base.regcache_max_bytes);
  choice_from(lookup, "TWINFAB_REGCACHE", base.regcache,
              {{"none", regcache::CacheKind::None},
               {"dme", regcache::CacheKind::Dme},
               {"lazy", regcache::CacheKind::Lazy}});
  choice_from(lookup, "TWINFAB_RMA", base.rma,
              {{"auto", RmaDesign::Auto}, {"rdma", RmaDesign::Rdma}, {"sendrecv", RmaDesign::SendRecv}});
  choice_from(lookup, "TWINFAB_RMA_LOCK", base.rma_lock,
              {{"auto", RmaLockDesign::Auto},
               {"ts", RmaLockDesign::TestAndSet},
               {"mcs", RmaLockDesign::Mcs},
               {"thread", RmaLockDesign::Thread},
               {"event", RmaLockDesign::Event},
               {"progress", RmaLockDesign::TargetProgress}});
  choice_from(lookup, "TWINFAB_RMA_ACCUMULATE", base.rma_accumulate,
              {{"messages", RmaAccumulate::Messages}, {"atomics", RmaAccumulate::Atomics}});
  override_from(lookup, "TWINFAB_RMA_LOCK_BACKOFF", base.rma_lock_backoff_us);
  override_from(lookup, "TWINFAB_RMA_LOCK_FAIR", base.rma_lock_fair);
  override_from(lookup, "TWINFAB_RMA_PIGGYBACK", base.rma_piggyback_bytes);
  choice_from(lookup, "TWINFAB_TRANSPORT", base.transport,
              {{"rc", Transport::Rc}, {"ud", Transport::Ud}, {"hybrid", Transport::Hybrid}});
  override_from(lookup, "TWINFAB_UD_WINDOW", base.ud_window);
  override_from(lookup, "TWINFAB_UD_SEND_BUFFERS", base.ud_send_buffers);
  override_from(lookup, "TWINFAB_UD_RECV_BUFFERS", base.ud_recv_buffers);
  override_from(lookup, "TWINFAB_UD_RECV_INITIAL", base.ud_recv_initial);
  override_from(lookup, "TWINFAB_UD_ACK_AFTER", base.ud_ack_after);
  override_from(lookup, "TWINFAB_UD_ACK_DELAY", base.ud_ack_delay_us);
  override_from(lookup, "TWINFAB_UD_RETRANSMIT_TIMEOUT", base.ud_retransmit_timeout_us);
  override_from(lookup, "TWINFAB_UD_MAX_RETRIES", base.ud_max_retries);
  choice_from(lookup, "TWINFAB_UD_RELIABILITY", base.ud_reliability,
              {{"progress", UdReliability::Progress}, {"thread", UdReliability::Thread},
               {"hybrid", UdReliability::Hybrid}});
  override_from(lookup, "TWINFAB_UD_THREAD_WAKE", base.ud_thread_wake_us);
  override_from(lookup, "TWINFAB_HYBRID_RC_THRESHOLD", base.hybrid_rc_threshold);
  override_from(lookup, "TWINFAB_HYBRID_MAX_RC", base.hybrid_max_rc);
  override_from(lookup, "TWINFAB_SHM", base.shm);
  override_from(lookup, "TWINFAB_SHM_CELLS", base.shm_cells);
  choice_from(lookup, "TWINFAB_ASYNC_PROGRESS", base.async_progress,
              {{"none", AsyncProgress::None}, {"event", AsyncProgress::Event}, {"poll", AsyncProgress::Poll}});
  override_from(lookup, "TWINFAB_ASYNC_PROGRESS_INTERVAL", base.async_progress_interval_us);
  word_from(lookup, "TWINFAB_BARRIER", base.barrier_algorithm, kBarrierAlgorithmWords);
  word_from(lookup, "TWINFAB_ALLREDUCE", base.allreduce_algorithm, kAllreduceAlgorithmWords);
  word_from(lookup, "TWINFAB_ALLGATHER", base.allgather_algorithm, kAllgatherAlgorithmWords);
  word_from(lookup, "TWINFAB_BCAST", base.bcast_algorithm, kBcastAlgorithmWords);
  word_from(lookup, "TWINFAB_ALLTOALL", base.alltoall_algorithm, kAlltoallAlgorithmWords);
  word_from(lookup, "TWINFAB_REDUCE", base.reduce_algorithm, kReduceAlgorithmWords);
  word_from(lookup, "TWINFAB_REDUCE_SCATTER", base.reduce_scatter_algorithm, kReduceScatterAlgorithmWords);
  word_from(lookup, "TWINFAB_GATHER", base.gather_algorithm, kRootedAlgorithmWords);
  word_from(lookup, "TWINFAB_SCATTER", base.scatter_algorithm, kRootedAlgorithmWords);
  word_from(lookup, "TWINFAB_COLL_FALLBACK", base.coll_fallback, kCollFallbackWords);
  override_from(lookup, "TWINFAB_COLL_NODE_AWARE", base.coll_node_aware);
  override_from(lookup, "TWINFAB_ALLREDUCE_SHORT_MSG", base.allreduce_short_msg);
  override_from(lookup, "TWINFAB_ALLGATHER_SHORT_MSG", base.allgather_short_msg);
  override_from(lookup, "TWINFAB_ALLGATHER_LONG_MSG", base.allgather_long_msg);
  override_from(lookup, "TWINFAB_BCAST_SHORT_MSG", base.bcast_short_msg);
  override_from(lookup, "TWINFAB_BCAST_LONG_MSG", base.bcast_long_msg);
  override_from(lookup, "TWINFAB_BCAST_MIN_PROCS", base.bcast_min_procs);
  override_from(lookup, "TWINFAB_ALLTOALL_SHORT_MSG", base.alltoall_short_msg);
  override_from(lookup, "TWINFAB_ALLTOALL_MEDIUM_MSG", base.alltoall_medium_msg);
  override_from(lookup, "TWINFAB_ALLTOALL_THROTTLE", base.alltoall_throttle);
  override_from(lookup, "TWINFAB_REDUCE_SHORT_MSG", base.reduce_short_msg);
  override_from(lookup, "TWINFAB_REDUCE_SCATTER_LONG_MSG", base.reduce_scatter_long_msg);
  base.validate();
}

}  // namespace

void apply_environment_to(Config& config) {
  apply_from(config, [](const char* name) { return static_cast<const char*>(std::getenv(name)); });
}

Config apply_environment(Config base) {
  apply_environment_to(base);
  return base;
}

Config apply_variables(Config base, const std::map<std::string, std::string>& values) {
  for (const auto& [name, text] : values) {
    if (!find_config_variable(name)) {
      std::string known;
      for (const auto& v : config_variables()) known += known.empty() ? std::string(v.name) : fmt::format(", {}", v.name);
      throw Error(ErrorClass::MPI_ERR_ARG, name, fmt::format("is not a twinfab MPI parameter; known: {}", known));
    }
  }
  apply_from(base, [&values](const char* name) -> const char* {
    const auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  });
  return base;
}

}  // namespace twinfab::mpi
