// Point-to-point semantics: order, wildcards, truncation, probe, cancel, many
// outstanding requests, synchronous sends, argument errors.
#include <gtest/gtest.h>

#include <vector>

#include "tests/mpi/mpi_test_support.hpp"

namespace twinfab::mpitest {
namespace {

using mpi::ErrorClass;
using mpi::kAnySource;
using mpi::kAnyTag;
using mpi::MessageStatus;
using mpi::RequestId;

TEST(Pt2pt, PingPongOnTwoRanks) {
  run_ranks("ideal", 2, {}, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    int value = 0;
    if (world.rank() == 0) {
      value = 42;
      c.send(&value, 1, type, 1, 7, world);
      MessageStatus s = c.recv(&value, 1, type, 1, 8, world);
      EXPECT_EQ(value, 43);
      EXPECT_EQ(s.source, 1);
      EXPECT_EQ(s.tag, 8);
      EXPECT_EQ(s.count_bytes, 4);
    } else {
      c.recv(&value, 1, type, 0, 7, world);
      ++value;
      c.send(&value, 1, type, 0, 8, world);
    }
  });
}

TEST(Pt2pt, MessagesFromOneSenderDoNotOvertake) {
  run_ranks("connectx-ddr", 2, {}, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    constexpr int kCount = 200;
    if (world.rank() == 0) {
      // Mixed sizes: tiny, short and rendezvous messages, all on one tag.
      std::vector<std::vector<int>> data(kCount);
      std::vector<RequestId> requests;
      for (int i = 0; i < kCount; ++i) {
        data[i].assign(i % 3 == 0 ? 1 : i % 3 == 1 ? 3000 : 20000, i);
        requests.push_back(c.isend(data[i].data(), static_cast<std::int64_t>(data[i].size()), type, 1, 5, world));
      }
      c.waitall(requests);
    } else {
      for (int i = 0; i < kCount; ++i) {
        std::vector<int> in(20000, -1);
        MessageStatus s = c.recv(in.data(), 20000, type, kAnySource, kAnyTag, world);
        ASSERT_EQ(in[0], i) << "message " << i << " overtaken";
        EXPECT_EQ(s.count_bytes / 4, i % 3 == 0 ? 1 : i % 3 == 1 ? 3000 : 20000);
      }
    }
  });
}

TEST(Pt2pt, WildcardsMatchInArrivalOrderAndByTag) {
  run_ranks("ideal", 4, {}, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    if (world.rank() != 0) {
      int v = world.rank() * 100;
      c.send(&v, 1, type, 0, world.rank(), world);
      v += 1;
      c.send(&v, 1, type, 0, 50, world);
      return;
    }
    // Tag-specific receive from any source picks exactly that sender's message.
    int v = 0;
    MessageStatus s = c.recv(&v, 1, type, kAnySource, 2, world);
    EXPECT_EQ(s.source, 2);
    EXPECT_EQ(v, 200);
    // Source-specific, any tag: rank 3's first message.
    s = c.recv(&v, 1, type, 3, kAnyTag, world);
    EXPECT_EQ(s.tag, 3);
    EXPECT_EQ(v, 300);
    std::vector<int> seen;
    for (int i = 0; i < 4; ++i) {
      s = c.recv(&v, 1, type, kAnySource, kAnyTag, world);
      EXPECT_EQ(v, s.source * 100 + (s.tag == 50 ? 1 : 0));
      seen.push_back(v);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, (std::vector<int>{100, 101, 201, 301}));
  });
}

TEST(Pt2pt, TruncationIsReportedInTheStatusForEveryProtocol) {
  mpi::Config config;
  config.eager_threshold = 16384;
  run_ranks("ideal", 2, config, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Byte);
    const std::vector<std::size_t> sizes{100, 10000, 100000};
    for (std::size_t n : sizes) {
      if (world.rank() == 0) {
        auto data = pattern(n, static_cast<unsigned>(n));
        c.send(data.data(), static_cast<std::int64_t>(n), type, 1, 1, world);
      } else {
        std::vector<std::byte> in(n / 2 + 1);
        MessageStatus s = c.recv(in.data(), static_cast<std::int64_t>(in.size()), type, 0, 1, world);
        EXPECT_EQ(s.error, ErrorClass::MPI_ERR_TRUNCATE) << n;
        EXPECT_EQ(s.count_bytes, static_cast<std::int64_t>(in.size())) << n;
        auto want = pattern(n, static_cast<unsigned>(n));
        EXPECT_TRUE(std::equal(in.begin(), in.end(), want.begin())) << n;
      }
    }
    // An empty receive truncates a rendezvous to nothing; both sides still finish.
    if (world.rank() == 0) {
      auto data = pattern(100000, 1);
      c.send(data.data(), 100000, type, 1, 2, world);
    } else {
      MessageStatus s = c.recv(nullptr, 0, type, 0, 2, world);
      EXPECT_EQ(s.error, ErrorClass::MPI_ERR_TRUNCATE);
      EXPECT_EQ(s.count_bytes, 0);
    }
  });
}

TEST(Pt2pt, ProbeSeesUnexpectedMessagesWithoutReceivingThem) {
  run_ranks("ideal", 2, {}, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Double);
    if (world.rank() == 0) {
      std::vector<double> big(50000, 1.5);
      double one = 2.5;
      c.send(&one, 1, type, 1, 9, world);
      c.send(big.data(), 50000, type, 1, 10, world);
    } else {
      MessageStatus s = c.probe(0, 10, world);  // the rendezvous one, behind tag 9
      EXPECT_EQ(s.tag, 10);
      EXPECT_EQ(s.count_bytes, 50000 * 8);
      EXPECT_TRUE(c.iprobe(kAnySource, 9, world, &s));
      EXPECT_EQ(s.count_bytes, 8);
      EXPECT_FALSE(c.iprobe(0, 11, world));
      std::vector<double> big(50000);
      double one = 0;
      c.recv(big.data(), 50000, type, 0, 10, world);
      c.recv(&one, 1, type, 0, 9, world);
      EXPECT_EQ(one, 2.5);
      EXPECT_EQ(big[49999], 1.5);
    }
  });
}

TEST(Pt2pt, CancelRemovesAPostedReceive) {
  run_ranks("ideal", 2, {}, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    if (world.rank() == 1) {
      int a = -1, b = -1;
      RequestId cancelled = c.irecv(&a, 1, type, 0, 1, world);
      RequestId kept = c.irecv(&b, 1, type, 0, 1, world);
      EXPECT_TRUE(c.cancel(cancelled));
      MessageStatus s = c.wait(cancelled);
      EXPECT_TRUE(s.cancelled);
      EXPECT_EQ(cancelled, mpi::kRequestNull);
      int go = 1;
      c.send(&go, 1, type, 0, 2, world);
      s = c.wait(kept);
      EXPECT_FALSE(s.cancelled);
      EXPECT_EQ(b, 77);
      EXPECT_EQ(a, -1);
    } else {
      int go = 0;
      c.recv(&go, 1, type, 1, 2, world);
      int v = 77;
      c.send(&v, 1, type, 1, 1, world);
    }
  });
}

TEST(Pt2pt, ManyOutstandingRequestsInBothDirections) {
  mpi::Config config;
  config.credits = 8;
  run_ranks("ideal", 2, config, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    constexpr int kCount = 1000;
    const int peer = 1 - world.rank();
    std::vector<int> out(kCount), in(kCount, -1);
    std::vector<RequestId> requests;
    for (int i = 0; i < kCount; ++i) requests.push_back(c.irecv(&in[i], 1, type, peer, i, world));
    for (int i = 0; i < kCount; ++i) {
      out[i] = world.rank() * 100000 + i;
      requests.push_back(c.isend(&out[i], 1, type, peer, kCount - 1 - i, world));  // reverse tag order
    }
    std::vector<MessageStatus> statuses(requests.size());
    c.waitall(requests, statuses);
    for (int i = 0; i < kCount; ++i) EXPECT_EQ(in[i], peer * 100000 + (kCount - 1 - i));
    EXPECT_EQ(c.live_requests(), 0u);
  });
}

TEST(Pt2pt, SynchronousSendCompletesOnlyWhenMatched) {
  run_ranks("ideal", 2, {}, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    if (world.rank() == 0) {
      int v = 5;
      RequestId r = c.isend(&v, 1, type, 1, 1, world, mpi::SendMode::Synchronous);
      // The receiver posts only after our go message: ssend cannot have completed.
      for (int i = 0; i < 100; ++i) EXPECT_FALSE(c.test(r));
      int go = 1;
      c.send(&go, 1, type, 1, 2, world);
      c.wait(r);
    } else {
      int go = 0, v = 0;
      c.recv(&go, 1, type, 0, 2, world);
      c.recv(&v, 1, type, 0, 1, world);
      EXPECT_EQ(v, 5);
    }
  });
}

TEST(Pt2pt, SelfMessagesOnWorldAndSelf) {
  run_ranks("ideal", 2, {}, [](Context& c) {
    const auto& type = c.datatype(BasicKind::Byte);
    for (const mpi::Communicator* comm : {&c.world(), &c.self()}) {
      auto data = pattern(100000, 3);
      std::vector<std::byte> in(100000);
      RequestId r = c.irecv(in.data(), 100000, type, comm->rank(), 4, *comm);
      c.send(data.data(), 100000, type, comm->rank(), 4, *comm, mpi::SendMode::Synchronous);
      MessageStatus s = c.wait(r);
      EXPECT_EQ(s.count_bytes, 100000);
      EXPECT_EQ(in, data);
    }
  });
}

TEST(Pt2pt, OneRankTalksToItself) {
  run_ranks("ideal", 1, {}, [](Context& c) {
    int out = 9, in = 0;
    RequestId r = c.irecv(&in, 1, c.datatype(BasicKind::Int), 0, 1, c.world());
    c.send(&out, 1, c.datatype(BasicKind::Int), 0, 1, c.world());
    EXPECT_EQ(c.wait(r).count_bytes, 4);
    EXPECT_EQ(in, 9);
  });
}

TEST(Pt2pt, ProcNullCompletesAtOnce) {
  run_ranks("ideal", 2, {}, [](Context& c) {
    int v = 1;
    c.send(&v, 1, c.datatype(BasicKind::Int), mpi::kProcNull, 0, c.world());
    MessageStatus s = c.recv(&v, 1, c.datatype(BasicKind::Int), mpi::kProcNull, 0, c.world());
    EXPECT_EQ(s.source, mpi::kProcNull);
    EXPECT_EQ(s.count_bytes, 0);
  });
}

TEST(Pt2pt, BadArgumentsAreClearErrors) {
  run_ranks("ideal", 2, {}, [](Context& c) {
    const auto& world = c.world();
    const auto& type = c.datatype(BasicKind::Int);
    int v = 0;
    expect_error([&] { c.isend(&v, 1, type, 7, 0, world); }, ErrorClass::MPI_ERR_RANK, "MPI_Isend(dest=7)");
    expect_error([&] { c.irecv(&v, 1, type, -5, 0, world); }, ErrorClass::MPI_ERR_RANK, "MPI_Irecv(source=-5)");
    expect_error([&] { c.isend(&v, 1, type, 1, -1, world); }, ErrorClass::MPI_ERR_TAG, "MPI_Isend(tag=-1)");
    expect_error([&] { c.irecv(&v, 1, type, 1, -3, world); }, ErrorClass::MPI_ERR_TAG, "MPI_Irecv(tag=-3)");
    expect_error([&] { c.isend(&v, -1, type, 1, 0, world); }, ErrorClass::MPI_ERR_COUNT, "MPI_Isend");
    expect_error([&] { c.isend(&v, 1, nullptr, 1, 0, world); }, ErrorClass::MPI_ERR_TYPE, "MPI_Isend");
    auto uncommitted = mpi::Datatype::contiguous(2, type);
    expect_error([&] { c.irecv(&v, 1, uncommitted, 1, 0, world); }, ErrorClass::MPI_ERR_TYPE, "MPI_Irecv");
    expect_error([&] { c.isend(nullptr, 1, type, 1, 0, world); }, ErrorClass::MPI_ERR_BUFFER, "MPI_Isend(buf)");
    expect_error([&] { c.iprobe(2, 0, world); }, ErrorClass::MPI_ERR_RANK, "MPI_Iprobe(source=2)");
    RequestId bogus = 12345;
    expect_error([&] { c.wait(bogus); }, ErrorClass::MPI_ERR_REQUEST, "MPI_Wait(request=12345)");
    expect_error([&] { c.isend(&v, 1, type, 1, 0, c.self()); }, ErrorClass::MPI_ERR_RANK,
                 "communicator has 1 ranks");
    EXPECT_EQ(c.live_requests(), 0u);  // no failed call left a request behind
  });
}

TEST(Pt2pt, BadEnvironmentIsAClearError) {
  testing::run_forked([] {
    setenv("TWINFAB_RENDEZVOUS", "carrier-pigeon", 1);
    sim::Simulation simulation(sim::load_platform("ideal"));
    try {
      simulation.run(1, [](sim::RankEnv& env) { Context c(env.device, env.oob); });
      ADD_FAILURE() << "expected an error";
    } catch (const mpi::Error& e) {
      EXPECT_EQ(e.error_class(), ErrorClass::MPI_ERR_ARG);
      EXPECT_NE(std::string(e.what()).find("TWINFAB_RENDEZVOUS"), std::string::npos) << e.what();
    }
  });
}

}  // namespace
}  // namespace twinfab::mpitest
