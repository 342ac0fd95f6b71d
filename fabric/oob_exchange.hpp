// twinfab fabric contract: out-of-band exchange of address blobs between ranks.
//
// PMIx-shaped: every rank puts its blob, all ranks fence, then any rank gets any other
// rank's blob on demand (so a 4096-rank job does not copy 4096^2 blobs). In the
// simulator it is shared memory between actors plus a simulated barrier; on hardware
// it is PMIx (PMIx_Put/Commit/Fence/Get). put/fence/barrier are collective and called
// by every rank in the same order.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace twinfab::fabric {

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
};

}  // namespace twinfab::fabric
