// Memory keys on the simulated HCA: SimHca remembers the region it found last
// (sim_fabric.hpp), so a receive that names the key of a region deregistered since
// must still fail, as on an HCA, and never write to the memory it covered. (A
// remembered region kept past its deregistration is a dangling pointer: the ASan build,
// `make test-asan`, reports it as a heap-use-after-free; elsewhere the freed bytes
// decide.) And registration's modelled cost depends on the length only, never on the
// address, so a run's simulated time is the same wherever malloc put its buffers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/sim/simulation.hpp"
#include "tests/sim/sim_pair.hpp"
#include "tests/support/run_forked.hpp"

namespace twinfab {
namespace {

TEST(MemoryRegionKeys, AReceiveIntoADeregisteredRegionIsAProtectionError) {
  testing::run_forked([] {
    sim::Simulation s(sim::load_platform("connectx-ddr"));
    s.run_single([&] {
      auto da = s.open_device(0), db = s.open_device(1);
      testing::SimSide a = testing::make_side(*da, fabric::Transport::RC, 64);
      testing::SimSide b = testing::make_side(*db, fabric::Transport::RC, 64);
      testing::connect_sides(a, b);
      std::vector<std::byte> other(64, std::byte{0});
      auto region = db->register_memory(other.data(), other.size(), fabric::kAllAccess);
      const fabric::Sge into_region = region->sge(0, 64);
      const fabric::Sge payload = a.mr->sge(0, 8);
      std::memset(a.buffer.data(), 0x5a, 8);
      fabric::SendWr send;
      send.sg_list = {&payload, 1};

      // Received once into the region: its key is the one the HCA found last.
      ASSERT_EQ(b.qp->post_recv({1, {&into_region, 1}}), fabric::Status::Ok);
      ASSERT_EQ(a.qp->post_send(send), fabric::Status::Ok);
      auto wc = testing::collect(*db, *b.cq, 1, 1.0);
      ASSERT_EQ(wc.size(), 1u);
      EXPECT_EQ(wc[0].status, fabric::WcStatus::Success);
      EXPECT_EQ(other[0], std::byte{0x5a});
      ASSERT_EQ(testing::collect(*da, *a.cq, 1, 1.0).size(), 1u);

      // Deregistered: the same key no longer names memory.
      region.reset();
      other[0] = std::byte{0};
      ASSERT_EQ(b.qp->post_recv({2, {&into_region, 1}}), fabric::Status::Ok);
      ASSERT_EQ(a.qp->post_send(send), fabric::Status::Ok);
      wc = testing::collect(*db, *b.cq, 1, 1.0);
      ASSERT_EQ(wc.size(), 1u);
      EXPECT_EQ(wc[0].wr_id, 2u);
      EXPECT_EQ(wc[0].status, fabric::WcStatus::LocalProtectionError);
      EXPECT_EQ(other[0], std::byte{0}) << "nothing may be written through a deregistered key";
    });
  });
}

TEST(MemoryRegionCost, RegistrationTimeDependsOnTheLengthNotOnTheAddress) {
  testing::run_forked([] {
    sim::Platform p = sim::load_platform("connectx-ddr");
    p.registration.base = 10e-6;
    p.registration.per_page = 1e-6;
    p.registration.page_size = 4096;
    sim::Simulation s(p);
    s.run_single([&] {
      auto d = s.open_device(0);
      std::unique_ptr<void, decltype(&std::free)> memory(std::aligned_alloc(4096, 4 * 4096), &std::free);
      auto* bytes = static_cast<char*>(memory.get());
      auto cost = [&](char* at, size_t length) {
        const double start = s.now();
        auto region = d->register_memory(at, length, fabric::kAllAccess);
        return s.now() - start;
      };
      // Two pages' worth, page-aligned and straddling a third page: the same cost.
      EXPECT_DOUBLE_EQ(cost(bytes, 8192), 12e-6);
      EXPECT_DOUBLE_EQ(cost(bytes + 100, 8192), 12e-6);
      EXPECT_DOUBLE_EQ(cost(bytes + 4095, 2), 11e-6);
      EXPECT_DOUBLE_EQ(cost(bytes + 1, 8193), 13e-6);
    });
  });
}

}  // namespace
}  // namespace twinfab
