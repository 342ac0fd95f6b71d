// Internal: the simulator's shared memory (fabric/shared_memory.hpp). Simulated ranks
// are actors of one process, so a segment is plain memory every rank of the host
// reaches at the same address; what makes it a model is the time: every copy is CPU
// time of the caller (host.shm_message_cost + bytes / host.memcpy_bandwidth), spent in
// the runtime as a computation is, and notify() resumes a peer blocked in
// Runtime::wait() as data landing from the HCA does.
#pragma once

#include <simgrid/s4u/Actor.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fabric/shared_memory.hpp"

namespace twinfab::sim {

class SimFabric;
class SimRuntime;

/// The segments of one simulation, by number (SimFabric owns it). Memory comes from
/// anonymous mappings, so the pages a rank's queue never touches cost nothing (a
/// simulation of 64 ranks per host at scale keeps its footprint).
class SimSegmentTable {
 public:
  struct Storage {
    Storage(std::size_t bytes, std::uint32_t host);
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
    std::byte* data = nullptr;
    std::size_t bytes = 0;
    std::size_t mapped = 0;
    std::uint32_t host = 0;
  };
  /// A new segment on `host`, its number.
  std::uint64_t create(std::size_t bytes, std::uint32_t host, std::shared_ptr<Storage>& out);
  /// The segment numbered `id` while it is named; nullptr once unlinked or unknown.
  std::shared_ptr<Storage> find(std::uint64_t id) const;
  void unlink(std::uint64_t id) noexcept { named_.erase(id); }

 private:
  std::uint64_t next_ = 1;
  std::map<std::uint64_t, std::shared_ptr<Storage>> named_;
};

/// One rank's shared memory (SimDevice::shared_memory()).
class SimSharedMemory final : public fabric::SharedMemory {
 public:
  SimSharedMemory(SimFabric& fabric, SimRuntime& runtime, std::uint32_t host);

  std::unique_ptr<fabric::SharedSegment> create(std::size_t bytes) override;
  std::unique_ptr<fabric::SharedSegment> attach(std::span<const std::byte> name) override;
  std::vector<std::byte> identity() const override;
  std::unique_ptr<fabric::SharedPeer> peer(std::span<const std::byte> identity) override;
  void copy(void* to, const void* from, std::size_t length) override;
  bool single_copy() const noexcept override { return true; }
  void charge_copy(std::size_t length) override;

 private:
  SimFabric& fabric_;
  SimRuntime& runtime_;
  const std::uint32_t host_;
};

}  // namespace twinfab::sim
