// A connected pair of QPs on two simulated hosts, driven by one actor, for the
// simulator's own tests (loss, ICM, reliability).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "fabric/device.hpp"

namespace twinfab::testing {

struct SimSide {
  std::unique_ptr<fabric::CompletionQueue> cq;
  std::unique_ptr<fabric::QueuePair> qp;
  std::vector<std::byte> buffer;
  std::unique_ptr<fabric::MemoryRegion> mr;
};

inline SimSide make_side(fabric::Device& d, fabric::Transport t, size_t bytes, fabric::QpConfig cfg = {}) {
  SimSide s;
  s.cq = d.create_cq(4096);
  cfg.transport = t;
  cfg.send_cq = cfg.recv_cq = s.cq.get();
  cfg.max_send_wr = cfg.max_recv_wr = 1024;
  s.qp = d.create_qp(cfg);
  s.buffer.assign(bytes, std::byte{0});
  s.mr = d.register_memory(s.buffer.data(), bytes, fabric::kAllAccess);
  return s;
}

inline void connect_sides(SimSide& a, SimSide& b) {
  fabric::Address aa = a.qp->local_address(), ba = b.qp->local_address();
  bool ud = a.qp->transport() == fabric::Transport::UD;
  ASSERT_EQ(a.qp->connect(ud ? nullptr : &ba), fabric::Status::Ok) << a.qp->last_error();
  ASSERT_EQ(b.qp->connect(ud ? nullptr : &aa), fabric::Status::Ok) << b.qp->last_error();
}

/// `count` RC connections between `da` and `db`, each side with `bytes` of registered
/// buffer: a[i] on da is connected to b[i] on db.
inline void connect_many(fabric::Device& da, fabric::Device& db, unsigned count, size_t bytes,
                         std::vector<SimSide>& a, std::vector<SimSide>& b) {
  for (unsigned i = 0; i < count; ++i) {
    a.push_back(make_side(da, fabric::Transport::RC, bytes));
    b.push_back(make_side(db, fabric::Transport::RC, bytes));
    connect_sides(a.back(), b.back());
  }
}

/// Polls `cq` until `n` completions arrived or `seconds` of simulated time passed.
inline std::vector<fabric::WorkCompletion> collect(fabric::Device& d, fabric::CompletionQueue& cq, size_t n,
                                                   double seconds) {
  std::vector<fabric::WorkCompletion> out;
  fabric::CompletionQueue* src[] = {&cq};
  const double limit = d.runtime().now() + seconds;
  fabric::WorkCompletion wc[64];
  while (out.size() < n) {
    size_t k = cq.poll(wc);
    out.insert(out.end(), wc, wc + k);
    if (k == 0 && d.runtime().wait(src, limit) == fabric::Status::Timeout) break;
  }
  return out;
}

}  // namespace twinfab::testing
