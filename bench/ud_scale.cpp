// Simulator scale with UD: simulator memory per simulated UD QP, and a 4096-host run in
// which every host sends one UD message to 16 others.
//
// Targets (issue 2): <= 1 KB of simulator memory per UD QP (the modelled memory the
// simulator reports for the QP is separate), and the 4096-host run under 10 s of wall
// clock. Both figures are printed next to their target.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

#include "backends/sim/simulation.hpp"

using namespace twinfab;
using Clock = std::chrono::steady_clock;

namespace {

long resident_bytes() {
  long pages_total = 0, pages_resident = 0;
  std::ifstream statm("/proc/self/statm");
  statm >> pages_total >> pages_resident;
  return pages_resident * sysconf(_SC_PAGESIZE);
}

/// Simulator memory per UD QP: RSS growth while one actor creates `count` UD QPs.
double bytes_per_ud_qp(sim::Simulation& s, unsigned count) {
  double per_qp = 0;
  s.run_single([&] {
    auto dev = s.open_device(0);
    auto cq = dev->create_cq(1024);
    fabric::QpConfig cfg;
    cfg.transport = fabric::Transport::UD;
    cfg.send_cq = cfg.recv_cq = cq.get();
    std::vector<std::unique_ptr<fabric::QueuePair>> qps;
    qps.reserve(count);
    // Warm the allocator and hash tables with a first batch, then measure a second.
    for (unsigned i = 0; i < count; ++i) qps.push_back(dev->create_qp(cfg));
    for (auto& q : qps) q->connect(nullptr);
    long before = resident_bytes();
    for (unsigned i = 0; i < count; ++i) qps.push_back(dev->create_qp(cfg));
    for (size_t i = count; i < qps.size(); ++i) qps[i]->connect(nullptr);
    long after = resident_bytes();
    per_qp = static_cast<double>(after - before) / count;
  });
  return per_qp;
}

struct ScaleResult {
  double wall = 0;
  double simulated = 0;
  unsigned received = 0;
  sim::Counters counters;
};

ScaleResult all_send_to_16(sim::Simulation& s, unsigned hosts, unsigned fanout) {
  ScaleResult r;
  std::vector<unsigned> received(hosts, 0);
  const double t_sim0 = s.now();
  const auto t0 = Clock::now();
  s.run(hosts, [&](sim::RankEnv& env) {
    auto cq = env.device.create_cq(4 * fanout);
    fabric::QpConfig cfg;
    cfg.transport = fabric::Transport::UD;
    cfg.send_cq = cfg.recv_cq = cq.get();
    cfg.max_send_wr = cfg.max_recv_wr = 2 * fanout;
    auto qp = env.device.create_qp(cfg);
    qp->connect(nullptr);
    std::vector<std::byte> buf((fanout + 1) * 128);
    auto mr = env.device.register_memory(buf.data(), buf.size(), fabric::kAllAccess);
    for (unsigned i = 0; i < fanout; ++i) {
      fabric::Sge sge = mr->sge(128 * (i + 1), 128);
      qp->post_recv({i, {&sge, 1}});
    }
    env.oob.put(qp->local_address().bytes());
    env.oob.fence();
    fabric::Sge payload = mr->sge(0, 64);
    std::vector<std::unique_ptr<fabric::AddressHandle>> ahs;
    for (unsigned k = 1; k <= fanout; ++k) {
      auto peer = env.oob.get(static_cast<int>((env.rank + k) % env.size));
      ahs.push_back(env.device.create_address_handle(fabric::Address::from_bytes(peer)));
      fabric::SendWr wr;
      wr.wr_id = k;
      wr.sg_list = {&payload, 1};
      wr.ah = ahs.back().get();
      qp->post_send(wr);
    }
    unsigned sends = 0, recvs = 0;
    fabric::WorkCompletion wc[32];
    fabric::CompletionQueue* src[] = {cq.get()};
    const double limit = env.runtime.now() + 1.0;
    while ((sends < fanout || recvs < fanout) && env.runtime.now() < limit) {
      size_t n = cq->poll(wc);
      for (size_t i = 0; i < n; ++i) (wc[i].opcode == fabric::WcOpcode::Recv ? recvs : sends)++;
      if (n == 0) env.runtime.wait(src, limit);
    }
    received[env.rank] = recvs;
  });
  r.wall = std::chrono::duration<double>(Clock::now() - t0).count();
  r.simulated = s.now() - t_sim0;
  for (unsigned v : received) r.received += v;
  r.counters = s.counters();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string preset = argc > 1 ? argv[1] : "fat-tree-4096";
  try {
    sim::Platform p = sim::load_platform(preset);
    sim::Simulation s(p);
    const double per_qp = bytes_per_ud_qp(s, 20000);
    fmt::print("simulator memory per UD QP: {:.0f} bytes (target <= 1024; modelled memory per UD QP on {}: {} "
               "bytes, reported separately)\n",
               per_qp, p.name, p.memory.ud_qp_bytes);
    const unsigned hosts = p.hosts;
    const unsigned fanout = argc > 2 ? static_cast<unsigned>(std::stoul(argv[2])) : 16;
    ScaleResult r = all_send_to_16(s, hosts, fanout);
    fmt::print("{} hosts x 1 UD QP, each sends to {} others: {:.2f} s wall clock (target < 10 s), {:.2f} us "
               "simulated, {} of {} messages received, {} dropped\n",
               hosts, fanout, r.wall, r.simulated * 1e6, r.received, hosts * fanout, r.counters.messages_dropped);
    const bool ok = per_qp <= 1024 && r.wall < 10 && r.received == hosts * fanout;
    fmt::print("{}\n", ok ? "UD scale targets met" : "UD scale targets NOT met");
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_ud_scale: {}\n", e.what());
    return 1;
  }
}
