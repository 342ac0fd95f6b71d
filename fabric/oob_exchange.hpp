// twinfab fabric contract: out-of-band exchange of address blobs between ranks.
//
// PMIx-shaped: every rank puts its blob, all ranks fence, then any rank gets any other
// rank's blob on demand (so a 4096-rank job does not copy 4096^2 blobs). In the
// simulator it is shared memory between actors plus a simulated barrier; on hardware
// it is PMIx (PMIx_Put/Commit/Fence/Get). put/fence/barrier are collective and called
// by every rank in the same order.
//
// It also says where each rank runs (node()): the process manager is what knows the
// placement (PMIx's locality keys on hardware, the platform's ranks per host in the
// simulator), and MPI needs it for MPI_Comm_split_type(MPI_COMM_TYPE_SHARED).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace twinfab::fabric {

/// A barrier a rank has started and not necessarily finished (OobExchange::start_barrier()).
class PendingBarrier {
 public:
  virtual ~PendingBarrier() = default;
  /// Whether every rank has started it: then it is over for this rank.
  virtual bool done() const = 0;
};

class OobExchange {
 public:
  virtual ~OobExchange() = default;
  virtual int rank() const noexcept = 0;
  virtual int size() const noexcept = 0;
  /// Publishes this rank's blob (replacing an earlier one) for the next fence.
  virtual void put(std::span<const std::byte> blob) = 0;
  /// Collective: after it returns, every rank's blob from before the fence is visible.
  virtual void fence() = 0;
  /// `rank`'s blob as of the last fence; throws fabric::Error(InvalidArgument) for a
  /// rank outside [0, size()).
  virtual std::vector<std::byte> get(int rank) const = 0;
  /// Synchronisation only.
  virtual void barrier() { fence(); }
  /// A barrier that returns at once, for a rank that must keep serving the others until
  /// all have arrived (a UD channel at its end answers the re-sends of peers that missed
  /// its last ACK): it polls done() between its own waits. When the barrier completes,
  /// every rank blocked in its runtime's Runtime::wait() (not wait_for_completion()) is
  /// woken, and one that waits later returns at once, so the loop
  /// `while (!b->done()) { if (work() == 0 && !b->done()) runtime.wait(cqs, deadline); }`
  /// ends without a bounded deadline. Collective, like barrier(): every rank calls it at
  /// the same point of its sequence of fences and barriers, and keeps the handle until
  /// done(). Null when this exchange cannot (the default; so far only the simulator's
  /// can, where a rank's helper agent costs memory that a 16,384-rank run counts): the
  /// caller then blocks in barrier() while one of its agents does the serving.
  virtual std::unique_ptr<PendingBarrier> start_barrier() { return nullptr; }
  /// The host (node) this rank runs on: ranks on the same host, which share its
  /// memory, have the same value, ranks on different hosts different ones (a
  /// non-negative id, not necessarily 0..hosts-1). Local: no communication. Empty when
  /// the process manager does not say. The simulator gives the simulated host's
  /// index; on hardware it comes from PMIx.
  virtual std::optional<int> node() const noexcept = 0;
  /// The ranks on this rank's host (node()), ascending, this rank included: who can
  /// share memory with it (a shared-memory channel's peers). Local: no communication.
  /// Empty when the process manager does not say (the default), which leaves every
  /// peer to the network. The simulator gives the placement's; on hardware PMIx's
  /// PMIX_LOCAL_PEERS.
  virtual std::vector<int> local_ranks() const { return {}; }
  /// Whether some host of the job runs more than one of its ranks (the same answer on
  /// every rank). True when the process manager does not say: the caller then prepares
  /// for shared memory, which costs every rank a fence. The simulator knows its
  /// placement (one rank per host: false).
  virtual bool hosts_shared() const { return true; }
};

}  // namespace twinfab::fabric
