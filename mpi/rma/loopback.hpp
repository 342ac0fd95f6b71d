// twinfab MPI one-sided: remote atomics on this rank's own memory, through the HCA.
//
// A lock word that other ranks change with the HCA's compare-and-swap and fetch-and-add
// must be changed by its owner the same way: verbs promises atomicity between the HCA's
// atomics only (IBV_ATOMIC_HCA), not against the CPU's (IBV_ATOMIC_GLOB is rare; rxe
// applies a remote atomic as a plain read and write under a lock of its own). So the
// owner's atomics go out through a pair of RC QPs connected to each other on its own
// device (as MVAPICH2 does for its one-sided locks), made at the first use.
#pragma once

#include <cstdint>
#include <memory>

#include "fabric/device.hpp"
#include "mpi/channels/rc_channel.hpp"

namespace twinfab::mpi::rma {

class LoopbackAtomics {
 public:
  /// Connects the pair; throws mpi::Error (MPI_ERR_OTHER) when the device refuses.
  explicit LoopbackAtomics(fabric::Device& device);
  ~LoopbackAtomics();
  LoopbackAtomics(const LoopbackAtomics&) = delete;
  LoopbackAtomics& operator=(const LoopbackAtomics&) = delete;

  /// A CompareSwap or FetchAdd on the 8-byte word at `remote_addr` (registered with
  /// `rkey` and remote atomic access); waits for it (through the runtime) and returns
  /// the old value.
  std::uint64_t execute(RdmaOp::Kind kind, std::uint64_t remote_addr, std::uint32_t rkey, std::uint64_t compare_add,
                        std::uint64_t swap);

 private:
  fabric::Device& device_;
  std::unique_ptr<fabric::CompletionQueue> cq_;
  std::unique_ptr<fabric::QueuePair> origin_;
  std::unique_ptr<fabric::QueuePair> responder_;
  std::uint64_t result_ = 0;
  std::unique_ptr<fabric::MemoryRegion> result_region_;
};

}  // namespace twinfab::mpi::rma
