#include "tools/twinfab/device_commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <fstream>
#include <thread>
#include <vector>

#include "backends/sim/platform.hpp"
#include "fabric/error.hpp"
#include "tools/twinfab/calibrate.hpp"
#include "tools/twinfab/cli_conventions.hpp"
#include "tools/twinfab/thread_oob.hpp"
#ifdef TWINFAB_HAVE_VERBS
#include "backends/verbs/verbs_backend.hpp"
#endif

namespace twinfab::tools {

PerfReport run_perf_pair(const PerfOptions& o, fabric::Device& dev0, fabric::Device& dev1) {
  PerfReport report;
  ThreadOobGroup group(2);
  std::exception_ptr err1;
  std::thread server([&] {
    try {
      ThreadOob oob(group, 1);
      run_perf_rank(o, dev1, oob, nullptr);
    } catch (...) {
      err1 = std::current_exception();
    }
  });
  std::exception_ptr err0;
  try {
    ThreadOob oob(group, 0);
    run_perf_rank(o, dev0, oob, &report);
  } catch (...) {
    err0 = std::current_exception();
  }
  server.join();
  if (err0) std::rethrow_exception(err0);
  if (err1) std::rethrow_exception(err1);
  return report;
}


int cmd_calibrate([[maybe_unused]] const CalibrateArgs& c) {
#ifdef TWINFAB_HAVE_VERBS
  if (c.output.empty()) throw UsageError("calibrate: -o FILE is required (the platform file to write)");
  verbs::OpenOptions open;
  open.device_name = c.device;
  auto d0 = verbs::open_device(open);
  auto d1 = verbs::open_device(open);
  CalibrationProbes p;
  p.caps = d0->capabilities();
  p.device = p.caps.device_name;
  const std::string name = c.name.empty() ? p.device + "-calibrated" : c.name;
  fmt::print("# twinfab calibrate | device {} ({}) | {} iterations per point, best of {}\n", p.device,
             fabric::to_string(p.caps.link), c.iterations, c.reps);
  auto run = [&](PerfTest test, std::vector<std::uint64_t> sizes) {
    PerfOptions o;
    o.test = test;
    o.sizes = std::move(sizes);
    o.iterations = c.iterations;
    fmt::print("# probing {} ...\n", to_string(test));
    std::fflush(stdout);
    return run_perf_pair(o, *d0, *d1);
  };
  // Every point `reps` times, its best kept (the least latency, the most bandwidth): a
  // machine whose load swings (a micro-VM under emulation) then gives its quiet state.
  p.peak_bytes = 1 << 20;
  for (unsigned rep = 0; rep < c.reps; ++rep) {
    fmt::print("# repetition {} of {}\n", rep + 1, c.reps);
    const auto lat = run(PerfTest::WriteLat, {8, 64, 512, 2048, 4096, 16384, 65536}).latency;
    for (std::size_t i = 0; i < lat.size(); ++i) {
      if (rep == 0) p.write_latency.emplace_back(lat[i].bytes, lat[i].t_typical * 1e-6);
      p.write_latency[i].second = std::min(p.write_latency[i].second, lat[i].t_typical * 1e-6);
    }
    const double read = run(PerfTest::ReadLat, {8}).latency.at(0).t_typical * 1e-6;
    p.read_latency = rep == 0 ? read : std::min(p.read_latency, read);
    if (p.caps.atomics) {
      const double atomic = run(PerfTest::AtomicLat, {8}).latency.at(0).t_typical * 1e-6;
      p.atomic_latency = rep == 0 ? atomic : std::min(p.atomic_latency, atomic);
    }
    p.small_message_rate =
        std::max(p.small_message_rate, run(PerfTest::WriteBw, {8}).bandwidth.at(0).msg_rate * 1e6);
    p.peak_bandwidth = std::max(
        p.peak_bandwidth, run(PerfTest::WriteBw, {p.peak_bytes}).bandwidth.at(0).bw_average * 1048576.0);
  }
  // Registration: the best of 5 per length (a first call pays page faults of its own).
  fmt::print("# probing registration and memcpy ...\n");
  fabric::Runtime& rt = d0->runtime();
  for (std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{65536}, std::uint64_t{1} << 20, std::uint64_t{1} << 24}) {
    std::vector<std::byte> buffer(bytes, std::byte{1});
    double best = 1e30;
    for (int k = 0; k < 5; ++k) {
      const double t0 = rt.now();
      auto mr = d0->register_memory(buffer.data(), bytes, fabric::kAllAccess);
      best = std::min(best, rt.now() - t0);
    }
    p.registration.emplace_back(bytes, best);
  }
  {
    std::vector<std::byte> from(65536, std::byte{2}), to(65536);
    double best = 1e30;
    for (int k = 0; k < 200; ++k) {
      const double t0 = rt.now();
      std::memcpy(to.data(), from.data(), from.size());
      asm volatile("" : : "r"(to.data()) : "memory");  // the copy must happen
      best = std::min(best, rt.now() - t0);
    }
    p.memcpy_bandwidth = best > 0 ? 65536.0 / best : 0;
  }
  const Calibration fit = fit_platform(p, name);
  const std::time_t now = std::time(nullptr);
  char when[32] = "?";
  std::strftime(when, sizeof when, "%Y-%m-%d", std::gmtime(&now));
  const std::string text = calibration_toml(fit, p, when);
  const std::string temporary = c.output + ".partial";
  {
    std::ofstream out(temporary);
    if (!out || !(out << text) || !out.flush())
      throw fabric::Error(fabric::Status::IoError,
                          fmt::format("calibrate: cannot write {}: {}", temporary, std::strerror(errno)));
  }
  try {
    (void)sim::load_platform(temporary);  // what was written loads back
  } catch (...) {
    std::remove(temporary.c_str());
    throw;
  }
  if (std::rename(temporary.c_str(), c.output.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(temporary.c_str());
    throw fabric::Error(fabric::Status::IoError, fmt::format("calibrate: cannot rename {} to {}: {}", temporary,
                                                             c.output, why));
  }
  fmt::print("{}", text.substr(0, text.find("\nname = ")));
  fmt::print("\n# wrote {} (platform \"{}\")\n", c.output, name);
  return 0;
#else
  throw fabric::Error(fabric::Status::Unsupported,
                      "calibrate needs an RDMA device: this twinfab was built without rdma-core (run "
                      "ci/install-deps.sh and rebuild)");
#endif
}

}  // namespace twinfab::tools
