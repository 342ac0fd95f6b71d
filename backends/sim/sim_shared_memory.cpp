#include "backends/sim/sim_shared_memory.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cstring>
#include <new>

#include "backends/sim/sim_fabric.hpp"
#include "backends/sim/sim_runtime.hpp"
#include "fabric/error.hpp"

namespace twinfab::sim {
namespace {

using fabric::Error;
using fabric::Status;

constexpr double kMinCharge = 1e-9;

// A segment's name and a rank's identity: a tag (so that another backend's blob, or a
// segment name given as an identity, is refused), the host, and a number.
struct Blob {
  std::uint32_t tag;
  std::uint32_t host;
  std::uint64_t value;
};
constexpr std::uint32_t kSegmentTag = 0x53534547;   // "SSEG"
constexpr std::uint32_t kIdentityTag = 0x53494454;  // "SIDT"

std::vector<std::byte> encode(const Blob& blob) {
  std::vector<std::byte> out(sizeof blob);
  std::memcpy(out.data(), &blob, sizeof blob);
  return out;
}

Blob decode(std::span<const std::byte> bytes, std::uint32_t tag, const char* what) {
  Blob blob{};
  if (bytes.size() != sizeof blob)
    throw Error(Status::InvalidArgument,
                fmt::format("shared memory: a {} of {} bytes is not one of the simulator's ({})", what, bytes.size(),
                            sizeof blob));
  std::memcpy(&blob, bytes.data(), sizeof blob);
  if (blob.tag != tag)
    throw Error(Status::InvalidArgument, fmt::format("shared memory: not a simulated {}", what));
  return blob;
}

class SimSegment final : public fabric::SharedSegment {
 public:
  SimSegment(SimSegmentTable& table, std::uint64_t id, std::shared_ptr<SimSegmentTable::Storage> storage, bool owner)
      : table_(table), id_(id), storage_(std::move(storage)), owner_(owner),
        name_(encode(Blob{kSegmentTag, storage_->host, id})) {}
  ~SimSegment() override {
    if (owner_) unlink();
  }
  std::span<std::byte> bytes() noexcept override { return {storage_->data, storage_->bytes}; }
  std::span<const std::byte> name() const noexcept override { return name_; }
  void unlink() noexcept override { table_.unlink(id_); }

 private:
  SimSegmentTable& table_;
  const std::uint64_t id_;
  std::shared_ptr<SimSegmentTable::Storage> storage_;  // the mapping: kept by every attacher
  const bool owner_;
  const std::vector<std::byte> name_;
};

class SimPeer final : public fabric::SharedPeer {
 public:
  SimPeer(SimSharedMemory& memory, std::shared_ptr<SimRuntime> runtime)
      : memory_(memory), runtime_(std::move(runtime)) {}
  // One address space: a copy is a memcpy, charged to the caller. The addresses come
  // from the peer's own messages (a rendezvous, a window), checked where they are made.
  Status read(void* local, std::uint64_t remote, std::size_t length) override {
    memory_.copy(local, reinterpret_cast<const void*>(remote), length);
    return Status::Ok;
  }
  Status write(std::uint64_t remote, const void* local, std::size_t length) override {
    memory_.copy(reinterpret_cast<void*>(remote), local, length);
    return Status::Ok;
  }
  void notify() override { runtime_->notify_memory(); }
  const std::string& last_error() const noexcept override { return none_; }

 private:
  SimSharedMemory& memory_;
  // Kept alive by the handle: a peer whose rank ended is a runtime nobody waits in,
  // and notifying it does nothing.
  std::shared_ptr<SimRuntime> runtime_;
  std::string none_;
};

}  // namespace

SimSegmentTable::Storage::Storage(std::size_t size, std::uint32_t on_host) : bytes(size), host(on_host) {
  const std::size_t page = 4096;
  mapped = (size + page - 1) / page * page;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw Error(Status::NoResource, fmt::format("shared memory: no memory for a segment of {} bytes", size));
  data = static_cast<std::byte*>(p);
}

SimSegmentTable::Storage::~Storage() { munmap(data, mapped); }

std::uint64_t SimSegmentTable::create(std::size_t bytes, std::uint32_t host, std::shared_ptr<Storage>& out) {
  const std::uint64_t id = next_++;
  out = std::make_shared<Storage>(bytes, host);
  named_.emplace(id, out);
  return id;
}

std::shared_ptr<SimSegmentTable::Storage> SimSegmentTable::find(std::uint64_t id) const {
  auto it = named_.find(id);
  return it == named_.end() ? nullptr : it->second;
}

SimSharedMemory::SimSharedMemory(SimFabric& fabric, SimRuntime& runtime, std::uint32_t host)
    : fabric_(fabric), runtime_(runtime), host_(host) {}

std::unique_ptr<fabric::SharedSegment> SimSharedMemory::create(std::size_t bytes) {
  if (bytes == 0) throw Error(Status::InvalidArgument, "shared memory: a segment needs at least one byte");
  std::shared_ptr<SimSegmentTable::Storage> storage;
  const std::uint64_t id = fabric_.segments().create(bytes, host_, storage);
  return std::make_unique<SimSegment>(fabric_.segments(), id, std::move(storage), /*owner=*/true);
}

std::unique_ptr<fabric::SharedSegment> SimSharedMemory::attach(std::span<const std::byte> name) {
  const Blob blob = decode(name, kSegmentTag, "segment name");
  if (blob.host != host_)
    throw Error(Status::InvalidArgument,
                fmt::format("shared memory: segment {} is on host {}, this rank on host {}", blob.value, blob.host, host_));
  std::shared_ptr<SimSegmentTable::Storage> storage = fabric_.segments().find(blob.value);
  if (!storage)
    throw Error(Status::NotFound, fmt::format("shared memory: segment {} is gone (unlinked)", blob.value));
  return std::make_unique<SimSegment>(fabric_.segments(), blob.value, std::move(storage), /*owner=*/false);
}

std::vector<std::byte> SimSharedMemory::identity() const {
  return encode(Blob{kIdentityTag, host_, static_cast<std::uint64_t>(runtime_.owner())});
}

std::unique_ptr<fabric::SharedPeer> SimSharedMemory::peer(std::span<const std::byte> identity) {
  const Blob blob = decode(identity, kIdentityTag, "rank identity");
  if (blob.host != host_)
    throw Error(Status::InvalidArgument,
                fmt::format("shared memory: that rank runs on host {}, this one on host {}", blob.host, host_));
  std::shared_ptr<SimRuntime> runtime = fabric_.shared_runtime_of(static_cast<aid_t>(blob.value));
  if (!runtime) throw Error(Status::NotFound, "shared memory: that rank is not running (any more)");
  return std::make_unique<SimPeer>(*this, std::move(runtime));
}

void SimSharedMemory::copy(void* to, const void* from, std::size_t length) {
  if (length > 0) std::memcpy(to, from, length);
  charge_copy(length);
}

void SimSharedMemory::charge_copy(std::size_t length) {
  const Platform& p = fabric_.platform();
  const double cost = p.shm_message_cost + static_cast<double>(length) / p.memcpy_bandwidth;
  // Below a nanosecond (the `ideal` preset's copies) nothing is charged: a computation
  // that short ends at the date it starts, which SimGrid 3.32's CPU model handles
  // badly when another actor wakes the computing one at that date ("updating an
  // action that is not running").
  if (cost >= kMinCharge) runtime_.sleep_for(cost);
}

}  // namespace twinfab::sim
