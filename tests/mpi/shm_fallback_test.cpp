// The shared-memory channel's bad input (issue 32): a rank whose segment cannot be made
// (a full /dev/shm, no permission) is reached through the network by the ranks of its
// host, which keep shared memory among themselves; every message arrives, nobody hangs.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "fabric/error.hpp"
#include "fabric/hook/device_decorator.hpp"
#include "mpi/coll/collectives.hpp"
#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

/// The inner device's shared memory, whose create() fails as on a full /dev/shm.
class FullShm final : public fabric::SharedMemory {
 public:
  explicit FullShm(fabric::SharedMemory& inner) : inner_(inner) {}
  std::unique_ptr<fabric::SharedSegment> create(std::size_t) override {
    throw fabric::Error(fabric::Status::NoResource, "shared memory: no space left on /dev/shm (simulated)");
  }
  std::unique_ptr<fabric::SharedSegment> attach(std::span<const std::byte> name) override { return inner_.attach(name); }
  std::vector<std::byte> identity() const override { return inner_.identity(); }
  std::unique_ptr<fabric::SharedPeer> peer(std::span<const std::byte> id) override { return inner_.peer(id); }
  void copy(void* to, const void* from, std::size_t n) override { inner_.copy(to, from, n); }
  bool single_copy() const noexcept override { return inner_.single_copy(); }
  void charge_copy(std::size_t n) override { inner_.charge_copy(n); }

 private:
  fabric::SharedMemory& inner_;
};

class FullShmDevice final : public fabric::hook::DeviceDecorator {
 public:
  explicit FullShmDevice(fabric::Device& inner) : DeviceDecorator(inner), full_(*inner.shared_memory()) {}
  fabric::SharedMemory* shared_memory() override { return &full_; }

 private:
  FullShm full_;
};

TEST(ShmFallback, ARankWithoutASegmentIsReachedThroughTheNetwork) {
  // 6 ranks, 3 per host; rank 1 (host 0) and rank 4 (host 1) get no segment.
  testing::run_forked([] {
    sim::Simulation simulation(sim::load_platform("connectx-ddr"));
    simulation.run(6, [](sim::RankEnv& env) {
      const bool full = env.rank == 1 || env.rank == 4;
      std::unique_ptr<fabric::Device> wrapped;
      if (full) wrapped = std::make_unique<FullShmDevice>(env.device);
      Context c(full ? *wrapped : env.device, env.oob, {});
      const auto& world = c.world();
      const auto& type = c.datatype(BasicKind::Long);
      const int n = world.size(), me = world.rank();
      // Everyone to everyone, both ways, tiny and rendezvous-sized.
      for (int step = 1; step < n; ++step) {
        const int to = (me + step) % n, from = (me - step + n) % n;
        for (int count : {1, 20000}) {
          std::vector<long> out(static_cast<std::size_t>(count), me * 100 + to), in(static_cast<std::size_t>(count), -1);
          auto r = c.irecv(in.data(), count, type, from, step, world);
          c.send(out.data(), count, type, to, step, world);
          c.wait(r);
          ASSERT_EQ(in.front(), from * 100 + me);
          ASSERT_EQ(in.back(), from * 100 + me);
        }
      }
      long sum = me;
      mpi::allreduce(c, mpi::kInPlace, &sum, 1, type, mpi::Op::Sum, world);
      EXPECT_EQ(sum, n * (n - 1) / 2);
      const auto& counters = c.channel_counters();
      if (full) {
        EXPECT_EQ(counters.shm_packets_sent, 0u) << "rank " << me;
        EXPECT_EQ(counters.shm_packets_received, 0u) << "rank " << me;
      } else {
        // Its other host mate still has shared memory.
        EXPECT_GT(counters.shm_packets_sent, 0u) << "rank " << me;
      }
    }, 3);
  });
}

}  // namespace
}  // namespace twinfab::mpitest
