#include "tools/twinfab/perf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <numeric>

#include "fabric/error.hpp"

namespace twinfab::tools {

using fabric::Error;
using fabric::Status;
using fabric::WcStatus;

namespace {

struct TestName {
  PerfTest test;
  const char* name;
};
constexpr TestName kNames[] = {{PerfTest::WriteLat, "write-lat"}, {PerfTest::ReadLat, "read-lat"},
                               {PerfTest::SendLat, "send-lat"},   {PerfTest::AtomicLat, "atomic-lat"},
                               {PerfTest::WriteBw, "write-bw"},   {PerfTest::SendBw, "send-bw"},
                               {PerfTest::WriteCompleteLat, "write-complete-lat"}};

constexpr double kWaitLimit = 60.0;  // seconds (simulated or real) before a stuck test fails
constexpr uint64_t kDoneWrId = ~0ull;

/// Everything one rank uses: a CQ pair, an RC QP, and a buffer made of a source half
/// and a target half, registered once at the largest size.
struct Endpoint {
  fabric::Device& device;
  fabric::Runtime& rt;
  std::unique_ptr<fabric::CompletionQueue> send_cq;
  std::unique_ptr<fabric::CompletionQueue> recv_cq;
  std::unique_ptr<fabric::QueuePair> qp;
  // A second QP for the handshakes between sizes, so their receives never mix with
  // the measured traffic's; it always has one receive posted.
  std::unique_ptr<fabric::CompletionQueue> ctrl_cq;
  std::unique_ptr<fabric::QueuePair> ctrl_qp;
  std::vector<std::byte> buffer;
  std::unique_ptr<fabric::MemoryRegion> mr;
  uint64_t half = 0;
  uint64_t peer_addr = 0;  ///< peer's target half
  uint32_t peer_rkey = 0;
  uint32_t inline_size = 0;  ///< PerfOptions::inline_size
  uint64_t sends_outstanding = 0;
  unsigned handshakes_received = 0;  ///< the peer may run ahead by one handshake
  bool control_heard = false;  ///< a control message from the peer has arrived (see handshake)

  explicit Endpoint(fabric::Device& d) : device(d), rt(d.runtime()) {}
  std::byte* source() { return buffer.data(); }
  std::byte* target() { return buffer.data() + half; }
  uint32_t lkey() const { return mr->lkey(); }
};

double deadline(fabric::Runtime& rt) { return rt.now() + kWaitLimit; }

void check(const fabric::WorkCompletion& wc, const char* what) {
  if (wc.status != WcStatus::Success)
    throw Error(Status::IoError, fmt::format("{}: work completion failed with {}", what, to_string(wc.status)));
}

void check_post(Status s, fabric::QueuePair& qp, const char* what) {
  if (s != Status::Ok)
    throw Error(s, fmt::format("{}: post failed: {} ({})", what, fabric::to_string(s), qp.last_error()));
}

/// How many empty CQ polls (or checks of a byte) a waiting loop spins through before it
/// asks the runtime to wait. perftest busy-polls (`do ibv_poll_cq() while (ne == 0)`,
/// `while (*poll_buf != value)`), and so does the tool at first: long enough to cover
/// a round trip on hardware and on a software device in a VM. After that it alternates
/// one poll with Runtime::wait, which keeps the deadline, lets a hardware runtime move
/// from spinning to yielding and napping (a rank idle through a bandwidth test must
/// leave its CPU to the device), and is the only place where time passes in the
/// simulator (an empty poll costs nothing simulated there).
constexpr unsigned kSpins = 256;
/// Checking a byte costs a fraction of a CQ poll: spin through as much time.
constexpr unsigned kByteSpins = 64 * kSpins;

/// Receives a send-lat side keeps posted (see send_lat).
constexpr unsigned kSendLatReceives = 2;

/// Waits for one completion on `cq`.
fabric::WorkCompletion wait_one(Endpoint& ep, fabric::CompletionQueue& cq, const char* what) {
  fabric::WorkCompletion wc;
  for (unsigned i = 0; i < kSpins; ++i) {
    if (cq.poll({&wc, 1}) == 1) {
      check(wc, what);
      return wc;
    }
  }
  fabric::CompletionQueue* sources[] = {&cq};
  const double limit = deadline(ep.rt);
  while (cq.poll({&wc, 1}) == 0) {
    if (ep.rt.wait(sources, limit) == Status::Timeout)
      throw Error(Status::Timeout, fmt::format("{}: no completion within {} s", what, kWaitLimit));
  }
  check(wc, what);
  return wc;
}

/// Reaps send completions without blocking: one poll, as a CQ that returns fewer
/// than asked is empty (for now).
void reap_sends(Endpoint& ep) {
  fabric::WorkCompletion wcs[32];
  size_t n;
  do {
    n = ep.send_cq->poll(wcs);
    for (size_t i = 0; i < n; ++i) check(wcs[i], "send completion");
    ep.sends_outstanding -= n;
  } while (n == std::size(wcs));
}

void post_recv(Endpoint& ep, uint64_t bytes, uint64_t wr_id) {
  fabric::Sge sge = ep.mr->sge(ep.half, static_cast<uint32_t>(std::max<uint64_t>(bytes, 1)));
  fabric::RecvWr wr{wr_id, {&sge, 1}};
  check_post(ep.qp->post_recv(wr), *ep.qp, "post_recv");
}

void post(Endpoint& ep, fabric::Opcode op, uint64_t bytes, uint64_t wr_id, uint64_t remote_offset = 0) {
  fabric::Sge sge = ep.mr->sge(0, static_cast<uint32_t>(bytes));
  fabric::SendWr wr;
  wr.wr_id = wr_id;
  wr.opcode = op;
  wr.flags = fabric::SendFlags::Signaled;
  if ((op == fabric::Opcode::Send || op == fabric::Opcode::RdmaWrite) && bytes > 0 && bytes <= ep.inline_size)
    wr.flags = wr.flags | fabric::SendFlags::Inline;
  wr.sg_list = {&sge, bytes ? 1u : 0u};
  wr.remote_addr = ep.peer_addr + remote_offset;
  wr.rkey = ep.peer_rkey;
  if (op == fabric::Opcode::AtomicFetchAdd) {
    wr.sg_list = {&sge, 1};
    wr.compare_add = 1;
  }
  check_post(ep.qp->post_send(wr), *ep.qp, "post_send");
  ++ep.sends_outstanding;
}

void post_ctrl_recv(Endpoint& ep) {
  fabric::RecvWr wr{kDoneWrId, {}};
  check_post(ep.ctrl_qp->post_recv(wr), *ep.ctrl_qp, "post_recv (control)");
}

/// Blocks until both sides are at the same point, through the data path (a rank
/// blocked in an out-of-band barrier would not serve RDMA in the simulator).
/// `listen_first`: on a device whose active side must send first (iWARP), rank 1
/// (the passive side, as in the MPI channel) only sends on the control connection
/// once rank 0's first message has arrived.
void handshake(Endpoint& ep, bool listen_first) {
  if (listen_first && !ep.control_heard) {
    while (ep.handshakes_received == 0) {
      fabric::WorkCompletion wc = wait_one(ep, *ep.ctrl_cq, "handshake");
      if (wc.opcode != fabric::WcOpcode::Recv) throw Error(Status::IoError, "handshake: unexpected completion");
      ++ep.handshakes_received;
      post_ctrl_recv(ep);
    }
  }
  ep.control_heard = true;
  fabric::SendWr wr;
  wr.wr_id = kDoneWrId;
  wr.opcode = fabric::Opcode::Send;
  wr.flags = fabric::SendFlags::Signaled;
  check_post(ep.ctrl_qp->post_send(wr), *ep.ctrl_qp, "post_send (control)");
  bool sent = false;
  while (!sent || ep.handshakes_received == 0) {
    fabric::WorkCompletion wc = wait_one(ep, *ep.ctrl_cq, "handshake");
    if (wc.opcode == fabric::WcOpcode::Recv) {
      ++ep.handshakes_received;
      post_ctrl_recv(ep);
    } else {
      sent = true;
    }
  }
  --ep.handshakes_received;
}

void connect(Endpoint& ep, fabric::OobExchange& oob, uint64_t max_size, unsigned depth, uint32_t inline_size) {
  ep.send_cq = ep.device.create_cq(depth * 2 + 64);
  ep.recv_cq = ep.device.create_cq(depth * 2 + 64);
  fabric::QpConfig cfg;
  cfg.transport = fabric::Transport::RC;
  cfg.send_cq = ep.send_cq.get();
  cfg.recv_cq = ep.recv_cq.get();
  cfg.max_send_wr = depth + 16;
  cfg.max_recv_wr = depth + 16;
  cfg.max_send_sge = 1;
  cfg.max_recv_sge = 1;
  cfg.max_inline = inline_size;
  ep.inline_size = inline_size;
  ep.qp = ep.device.create_qp(cfg);
  ep.ctrl_cq = ep.device.create_cq(16);
  fabric::QpConfig ctrl = cfg;
  ctrl.max_inline = 0;
  ctrl.send_cq = ctrl.recv_cq = ep.ctrl_cq.get();
  ctrl.max_send_wr = ctrl.max_recv_wr = 4;
  // The peer may run one handshake ahead: keep two receives posted.
  ep.ctrl_qp = ep.device.create_qp(ctrl);
  ep.half = std::max<uint64_t>(max_size, 64);
  ep.buffer.assign(2 * ep.half, std::byte{0});
  ep.mr = ep.device.register_memory(ep.buffer.data(), ep.buffer.size(), fabric::kAllAccess);

  // blob: [u32 length of the data QP address][data QP address][control QP address][u64 addr][u32 rkey]
  fabric::Address mine = ep.qp->local_address();
  fabric::Address mine_ctrl = ep.ctrl_qp->local_address();
  std::vector<std::byte> blob(4);
  uint32_t len = static_cast<uint32_t>(mine.bytes().size());
  std::memcpy(blob.data(), &len, 4);
  blob.insert(blob.end(), mine.bytes().begin(), mine.bytes().end());
  blob.insert(blob.end(), mine_ctrl.bytes().begin(), mine_ctrl.bytes().end());
  uint64_t addr = ep.mr->remote_addr(ep.half);
  uint32_t rkey = ep.mr->rkey();
  blob.resize(blob.size() + 12);
  std::memcpy(blob.data() + blob.size() - 12, &addr, 8);
  std::memcpy(blob.data() + blob.size() - 4, &rkey, 4);
  oob.put(blob);
  oob.fence();
  std::vector<std::byte> peer = oob.get(1 - oob.rank());
  uint32_t peer_len = 0;
  if (peer.size() >= 4) std::memcpy(&peer_len, peer.data(), 4);
  if (peer.size() < 16 || peer_len > peer.size() - 16)
    throw Error(Status::InvalidArgument, "perf: peer published a truncated blob");
  std::memcpy(&ep.peer_addr, peer.data() + peer.size() - 12, 8);
  std::memcpy(&ep.peer_rkey, peer.data() + peer.size() - 4, 4);
  fabric::Address peer_qp = fabric::Address::from_bytes({peer.data() + 4, peer_len});
  fabric::Address peer_ctrl = fabric::Address::from_bytes({peer.data() + 4 + peer_len, peer.size() - 16 - peer_len});
  // Connection-manager devices complete the handshake over several calls on both
  // sides; keep calling both QPs until both are up.
  const double limit = deadline(ep.rt);
  Status s1 = Status::InProgress, s2 = Status::InProgress;
  while (s1 == Status::InProgress || s2 == Status::InProgress) {
    if (s1 == Status::InProgress) s1 = ep.qp->connect(&peer_qp);
    if (s2 == Status::InProgress) s2 = ep.ctrl_qp->connect(&peer_ctrl);
    if (s1 != Status::InProgress && s2 != Status::InProgress) break;
    if (ep.rt.now() > limit) throw Error(Status::Timeout, "perf: connection not established in time");
    ep.rt.wait({}, ep.rt.now() + 1e-4);
  }
  if (s1 != Status::Ok) throw Error(s1, fmt::format("perf: connect failed: {}", ep.qp->last_error()));
  if (s2 != Status::Ok) throw Error(s2, fmt::format("perf: connect failed: {}", ep.ctrl_qp->last_error()));
  post_ctrl_recv(ep);
  post_ctrl_recv(ep);
  oob.fence();  // both control receives are posted before any handshake message flies
}

LatencyRow latency_stats(uint64_t bytes, std::vector<double> samples_us) {
  LatencyRow row;
  row.bytes = bytes;
  row.iterations = static_cast<unsigned>(samples_us.size());
  std::sort(samples_us.begin(), samples_us.end());
  const size_t n = samples_us.size();
  row.t_min = samples_us.front();
  row.t_max = samples_us.back();
  row.t_typical = samples_us[n / 2];  // perftest's "typical" is the median
  double sum = std::accumulate(samples_us.begin(), samples_us.end(), 0.0);
  row.t_avg = sum / static_cast<double>(n);
  double var = 0;
  for (double s : samples_us) var += (s - row.t_avg) * (s - row.t_avg);
  row.t_stdev = std::sqrt(var / static_cast<double>(n));
  row.p99 = samples_us[std::min(n - 1, static_cast<size_t>(std::ceil(0.99 * static_cast<double>(n))) - 1)];
  row.p999 = samples_us[std::min(n - 1, static_cast<size_t>(std::ceil(0.999 * static_cast<double>(n))) - 1)];
  return row;
}

/// Waits until the last byte of the target half's first `bytes` equals `value`,
/// spinning on it as perftest's ib_write_lat does (see kSpins).
void wait_for_byte(Endpoint& ep, uint64_t bytes, uint8_t value) {
  volatile const uint8_t* last = reinterpret_cast<volatile const uint8_t*>(ep.target() + bytes - 1);
  for (unsigned i = 0; i < kByteSpins; ++i)
    if (*last == value) return;
  const double limit = deadline(ep.rt);
  while (*last != value) {
    if (ep.rt.wait({}, limit) == Status::Timeout) throw Error(Status::Timeout, "write-lat: the peer's write never arrived");
  }
}

std::vector<double> write_lat(Endpoint& ep, int rank, uint64_t bytes, unsigned iters) {
  std::vector<double> samples;
  samples.reserve(iters);
  for (unsigned i = 0; i < iters; ++i) {
    const auto value = static_cast<uint8_t>(i % 255 + 1);
    const double t0 = ep.rt.now();
    if (rank == 0) {
      ep.source()[bytes - 1] = std::byte{value};
      post(ep, fabric::Opcode::RdmaWrite, bytes, i);
      wait_for_byte(ep, bytes, value);
      samples.push_back((ep.rt.now() - t0) / 2 * 1e6);
    } else {
      wait_for_byte(ep, bytes, value);
      ep.source()[bytes - 1] = std::byte{value};
      post(ep, fabric::Opcode::RdmaWrite, bytes, i);
    }
    reap_sends(ep);
  }
  return samples;
}

/// Two receives are kept posted (prepost_receives posts the first two), and each one
/// consumed is re-posted after the reply has been sent: the peer's next message can
/// only come after that reply, and it still finds the other receive posted, so the
/// re-post is off the critical path (as an MPI library re-posts its eager buffers).
/// perftest's run_iter_lat_send re-posts before it sends, on the path; docs/hardware.md
/// says what that difference is worth.
std::vector<double> send_lat(Endpoint& ep, int rank, uint64_t bytes, unsigned iters) {
  std::vector<double> samples;
  samples.reserve(iters);
  for (unsigned i = 0; i < iters; ++i) {
    const double t0 = ep.rt.now();
    if (rank == 0) {
      post(ep, fabric::Opcode::Send, bytes, i);
      wait_one(ep, *ep.recv_cq, "send-lat receive");
      samples.push_back((ep.rt.now() - t0) / 2 * 1e6);
    } else {
      wait_one(ep, *ep.recv_cq, "send-lat receive");
      post(ep, fabric::Opcode::Send, bytes, i);
    }
    if (i + kSendLatReceives < iters) post_recv(ep, bytes, 0);
    reap_sends(ep);
  }
  return samples;
}

std::vector<double> one_sided_lat(Endpoint& ep, fabric::Opcode op, uint64_t bytes, unsigned iters) {
  std::vector<double> samples;
  samples.reserve(iters);
  for (unsigned i = 0; i < iters; ++i) {
    const double t0 = ep.rt.now();
    post(ep, op, bytes, i);
    wait_one(ep, *ep.send_cq, "one-sided completion");
    --ep.sends_outstanding;
    samples.push_back((ep.rt.now() - t0) * 1e6);
  }
  return samples;
}

BandwidthRow bandwidth(Endpoint& ep, int rank, fabric::Opcode op, uint64_t bytes, unsigned iters, unsigned depth) {
  BandwidthRow row;
  row.bytes = bytes;
  row.iterations = iters;
  const bool two_sided = op == fabric::Opcode::Send;
  if (rank == 1) {
    if (two_sided) {
      // prepost_receives posted the first min(iters, depth).
      unsigned posted = std::min(iters, depth), received = 0;
      while (received < iters) {
        wait_one(ep, *ep.recv_cq, "send-bw receive");
        ++received;
        if (posted < iters) post_recv(ep, bytes, posted++);
      }
    }
    return row;
  }
  const double t0 = ep.rt.now();
  unsigned posted = 0, completed = 0;
  fabric::WorkCompletion wcs[64];
  fabric::CompletionQueue* sources[] = {ep.send_cq.get()};
  const double limit = deadline(ep.rt);
  while (completed < iters) {
    while (posted < iters && posted - completed < depth) post(ep, op, bytes, posted++);
    size_t n = ep.send_cq->poll(wcs);
    for (size_t i = 0; i < n; ++i) check(wcs[i], "bandwidth completion");
    completed += static_cast<unsigned>(n);
    ep.sends_outstanding -= n;
    if (n == 0 && ep.rt.wait(sources, limit) == Status::Timeout)
      throw Error(Status::Timeout, "bandwidth test: completions stopped arriving");
  }
  const double seconds = ep.rt.now() - t0;
  row.bw_average = static_cast<double>(bytes) * iters / seconds / 1048576.0;
  row.msg_rate = iters / seconds / 1e6;
  return row;
}

/// Posts the receives a two-sided test starts with. Called before the handshake that
/// starts the test, so that none of the peer's sends can arrive before its receive:
/// devices without RNR flow control (iWARP) fail the connection instead of retrying.
void prepost_receives(Endpoint& ep, PerfTest test, int rank, uint64_t bytes, unsigned iters, unsigned depth) {
  if (test == PerfTest::SendLat)
    for (unsigned posted = 0; posted < std::min(iters, kSendLatReceives); ++posted) post_recv(ep, bytes, 0);
  if (test == PerfTest::SendBw && rank == 1)
    for (unsigned posted = 0; posted < std::min(iters, depth); ++posted) post_recv(ep, bytes, posted);
}

}  // namespace

PerfTest parse_perf_test(const std::string& name) {
  for (const auto& n : kNames)
    if (name == n.name) return n.test;
  std::string valid;
  for (const auto& n : kNames) valid += fmt::format("{}{}", valid.empty() ? "" : ", ", n.name);
  throw Error(Status::InvalidArgument, fmt::format("unknown perf test '{}'; valid tests: {}", name, valid));
}

std::string to_string(PerfTest t) {
  for (const auto& n : kNames)
    if (n.test == t) return n.name;
  return "?";
}

std::vector<std::string> perf_test_names() {
  std::vector<std::string> out;
  for (const auto& n : kNames) out.emplace_back(n.name);
  return out;
}

bool is_latency_test(PerfTest t) { return t != PerfTest::WriteBw && t != PerfTest::SendBw; }

std::vector<uint64_t> default_sizes() {
  std::vector<uint64_t> s;
  for (uint64_t b = 2; b <= (8ull << 20); b *= 2) s.push_back(b);
  return s;
}

unsigned iterations_for(const PerfOptions& o, uint64_t bytes) {
  uint64_t cap = std::max<uint64_t>(10, o.max_bytes_per_size / std::max<uint64_t>(bytes, 1));
  return static_cast<unsigned>(std::min<uint64_t>(o.iterations, cap));
}

void run_perf_rank(const PerfOptions& options, fabric::Device& device, fabric::OobExchange& oob, PerfReport* report) {
  if (oob.size() != 2) throw Error(Status::InvalidArgument, "perf tests run on exactly two ranks");
  const int rank = oob.rank();
  const auto& caps = device.capabilities();
  std::vector<uint64_t> sizes = options.sizes.empty() ? default_sizes() : options.sizes;
  if (options.test == PerfTest::AtomicLat) {
    if (!caps.atomics)
      throw Error(Status::Unsupported, fmt::format("atomic-lat: device {} lacks remote atomics", caps.device_name));
    sizes = {8};
  }
  for (uint64_t s : sizes)
    if (s == 0 || s > (1ull << 31)) throw Error(Status::InvalidArgument, fmt::format("perf: size {} out of range", s));
  if (options.inline_size > caps.max_inline)
    throw Error(Status::InvalidArgument, fmt::format("perf: inline size {} exceeds device {}'s max_inline of {} bytes",
                                                     options.inline_size, caps.device_name, caps.max_inline));
  const uint64_t max_size = *std::max_element(sizes.begin(), sizes.end());

  Endpoint ep(device);
  connect(ep, oob, max_size, options.tx_depth, options.inline_size);
  const bool listen_first = caps.active_side_sends_first && rank != 0;
  if (report) report->test = options.test;
  for (uint64_t bytes : sizes) {
    const unsigned iters = iterations_for(options, bytes);
    prepost_receives(ep, options.test, rank, bytes, iters, options.tx_depth);
    handshake(ep, listen_first);
    switch (options.test) {
      case PerfTest::WriteLat: {
        auto s = write_lat(ep, rank, bytes, iters);
        if (report) report->latency.push_back(latency_stats(bytes, std::move(s)));
        break;
      }
      case PerfTest::SendLat: {
        auto s = send_lat(ep, rank, bytes, iters);
        if (report) report->latency.push_back(latency_stats(bytes, std::move(s)));
        break;
      }
      case PerfTest::ReadLat:
      case PerfTest::AtomicLat:
      case PerfTest::WriteCompleteLat:
        if (rank == 0) {
          const auto op = options.test == PerfTest::ReadLat     ? fabric::Opcode::RdmaRead
                          : options.test == PerfTest::AtomicLat ? fabric::Opcode::AtomicFetchAdd
                                                                : fabric::Opcode::RdmaWrite;
          auto s = one_sided_lat(ep, op, bytes, iters);
          if (report) report->latency.push_back(latency_stats(bytes, std::move(s)));
        }
        break;
      case PerfTest::WriteBw:
      case PerfTest::SendBw: {
        auto op = options.test == PerfTest::WriteBw ? fabric::Opcode::RdmaWrite : fabric::Opcode::Send;
        auto row = bandwidth(ep, rank, op, bytes, iters, options.tx_depth);
        if (report && rank == 0) report->bandwidth.push_back(row);
        break;
      }
    }
    // Drain what is still in flight so the next size starts clean.
    while (ep.sends_outstanding > 0) {
      wait_one(ep, *ep.send_cq, "drain");
      --ep.sends_outstanding;
    }
  }
  handshake(ep, listen_first);
}

std::string format_report(const PerfReport& r) {
  std::string out;
  const std::string rule(100, '-');
  if (is_latency_test(r.test)) {
    out += rule + "\n";
    out += fmt::format(" {:>8} {:>12} {:>12} {:>12} {:>16} {:>12} {:>14} {:>22} {:>24}\n", "#bytes", "#iterations",
                       "t_min[usec]", "t_max[usec]", "t_typical[usec]", "t_avg[usec]", "t_stdev[usec]",
                       "99% percentile[usec]", "99.9% percentile[usec]");
    for (const auto& l : r.latency)
      out += fmt::format(" {:>8} {:>12} {:>12.2f} {:>12.2f} {:>16.2f} {:>12.2f} {:>14.2f} {:>22.2f} {:>24.2f}\n",
                         l.bytes, l.iterations, l.t_min, l.t_max, l.t_typical, l.t_avg, l.t_stdev, l.p99, l.p999);
    out += rule + "\n";
  } else {
    out += rule + "\n";
    out += fmt::format(" {:>8} {:>12} {:>20} {:>16}\n", "#bytes", "#iterations", "BW average[MB/sec]",
                       "MsgRate[Mpps]");
    for (const auto& b : r.bandwidth)
      out += fmt::format(" {:>8} {:>12} {:>20.2f} {:>16.6f}\n", b.bytes, b.iterations, b.bw_average, b.msg_rate);
    out += rule + "\n";
  }
  return out;
}

std::string format_csv(const PerfReport& r) {
  std::string out;
  if (is_latency_test(r.test)) {
    out += "test,bytes,iterations,t_min_us,t_max_us,t_typical_us,t_avg_us,t_stdev_us,p99_us,p999_us\n";
    for (const auto& l : r.latency)
      out += fmt::format("{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f}\n", to_string(r.test), l.bytes,
                         l.iterations, l.t_min, l.t_max, l.t_typical, l.t_avg, l.t_stdev, l.p99, l.p999);
  } else {
    out += "test,bytes,iterations,bw_average_MBps,msg_rate_Mpps\n";
    for (const auto& b : r.bandwidth)
      out += fmt::format("{},{},{},{:.6f},{:.6f}\n", to_string(r.test), b.bytes, b.iterations, b.bw_average,
                         b.msg_rate);
  }
  return out;
}

}  // namespace twinfab::tools
