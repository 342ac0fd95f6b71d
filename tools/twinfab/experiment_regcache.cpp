#include "tools/twinfab/experiment_regcache.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "backends/sim/simulation.hpp"
#include "fabric/error.hpp"
#include "mpi/core/context.hpp"
#include "tools/twinfab/cli_conventions.hpp"

namespace twinfab::tools {

namespace {

struct Mode {
  const char* label;
  const char* description;
  mpi::Config config;
};

struct Point {
  double latency_us = 0;
  double bandwidth_mbs = 0;
};

struct ModeResult {
  std::vector<Point> points;  // by size
  mpi::regcache::Counters counters;  // rank 0's
};

unsigned iterations_for(std::uint64_t size, unsigned fixed) {
  if (fixed != 0) return fixed;
  const std::uint64_t n = (32ull << 20) / std::max<std::uint64_t>(size, 1);
  return static_cast<unsigned>(std::clamp<std::uint64_t>(n, 4, 100));
}

ModeResult run_mode(const sim::Platform& platform, const Mode& mode, const std::vector<std::uint64_t>& sizes,
                    unsigned fixed_iterations) {
  ModeResult result;
  result.points.resize(sizes.size());
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  sim::Simulation simulation(platform);
  simulation.run(2, [&](sim::RankEnv& env) {
    mpi::Context c(env.device, env.oob, mode.config);
    const auto& world = c.world();
    const auto& type = c.datatype(mpi::BasicKind::Byte);
    std::vector<std::byte> out(largest, std::byte{1});
    std::vector<std::byte> in(largest);
    const int me = world.rank();
    const int peer = 1 - me;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const auto n = static_cast<std::int64_t>(sizes[i]);
      const unsigned iterations = iterations_for(sizes[i], fixed_iterations);
      constexpr unsigned kWarmup = 2;  // Pallas-style: the first transfers are not timed
      double start = 0;
      for (unsigned it = 0; it < kWarmup + iterations; ++it) {
        if (it == kWarmup) start = c.runtime().now();
        if (me == 0) {
          c.send(out.data(), n, type, peer, 1, world);
          c.recv(in.data(), n, type, peer, 1, world);
        } else {
          c.recv(in.data(), n, type, peer, 1, world);
          c.send(out.data(), n, type, peer, 1, world);
        }
      }
      if (me == 0) {
        const double one_way = (c.runtime().now() - start) / (2.0 * iterations);
        result.points[i].latency_us = one_way * 1e6;
        result.points[i].bandwidth_mbs = static_cast<double>(sizes[i]) / one_way / 1e6;
      }
    }
    if (me == 0) result.counters = c.registration_counters();
  });
  return result;
}

std::string size_label(std::uint64_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return fmt::format("{} MiB", n >> 20);
  if (n >= 1024 && n % 1024 == 0) return fmt::format("{} KiB", n >> 10);
  return fmt::format("{} B", n);
}

}  // namespace

int run_seed000_regcache(const RegcacheExperimentOptions& options) {
  std::vector<std::uint64_t> sizes = options.sizes;
  if (sizes.empty())
    for (std::uint64_t n = 1; n <= (4u << 20); n *= 2) sizes.push_back(n);
  for (std::uint64_t n : sizes)
    if (n == 0 || n > (256ull << 20))
      throw fabric::Error(fabric::Status::InvalidArgument,
                          fmt::format("--sizes: {} is outside 1 B ... 256 MiB", n));
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  const std::uint64_t largest = sizes.back();

  // The experiment sets these itself: the environment must not change a mode.
  for (const char* name : {"TWINFAB_REGCACHE", "TWINFAB_EAGER_THRESHOLD", "TWINFAB_RENDEZVOUS",
                           "TWINFAB_REGCACHE_MAX_BYTES", "TWINFAB_REGCACHE_MAX_ENTRIES"}) {
    if (std::getenv(name) != nullptr) {
      fmt::print(stderr, "twinfab: note: {} is ignored by this experiment\n", name);
      unsetenv(name);
    }
  }

  const sim::Platform platform = sim::load_platform(options.platform);
  std::vector<Mode> modes(4);
  modes[0] = {"copy", "(a) copy-only: every message in eager packets", {}};
  modes[0].config.eager_threshold = std::max<std::uint64_t>(largest, 32768);
  modes[0].config.regcache = mpi::regcache::CacheKind::None;
  modes[1] = {"rdma", "(b) RDMA rendezvous, register/deregister per transfer", {}};
  modes[1].config.regcache = mpi::regcache::CacheKind::None;
  modes[2] = {"dme", "(c) RDMA rendezvous + Dynamic Memory Engine (seed 000)", {}};
  modes[2].config.regcache = mpi::regcache::CacheKind::Dme;
  modes[3] = {"lazy", "(d) RDMA rendezvous + lazy memory engine (seed 002)", {}};
  modes[3].config.regcache = mpi::regcache::CacheKind::Lazy;
  for (std::size_t m = 1; m < 4; ++m) {
    modes[m].config.eager_threshold = 32768;  // seed 000's 32000-byte RDMA threshold, rounded
    modes[m].config.rendezvous = mpi::RendezvousVariant::WriteImm;
  }

  fmt::print("seed 000 fig. 6: PingPong with and without RDMA and a registration cache, on {}\n", platform.name);
  fmt::print("registration cost: {:.1f} us + {:.1f} us per {}-byte page (charged on every cache miss)\n",
             platform.registration.base * 1e6, platform.registration.per_page * 1e6,
             platform.registration.page_size ? platform.registration.page_size : 4096);
  for (const Mode& m : modes) fmt::print("  {:5} {}\n", m.label, m.description);

  std::vector<ModeResult> results;
  for (const Mode& m : modes) results.push_back(run_mode(platform, m, sizes, options.iterations));

  fmt::print("\n{:>9}", "size");
  for (const Mode& m : modes) fmt::print(" | {:>9} {:>9}", fmt::format("{}[us]", m.label), "MB/s");
  fmt::print("\n");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    fmt::print("{:>9}", size_label(sizes[i]));
    for (const ModeResult& r : results)
      fmt::print(" | {:>9.2f} {:>9.1f}", r.points[i].latency_us, r.points[i].bandwidth_mbs);
    fmt::print("\n");
  }
  fmt::print("\nregistration counters (rank 0): mode: registrations / hits / misses / evictions / bytes registered\n");
  for (std::size_t m = 1; m < modes.size(); ++m) {
    const auto& c = results[m].counters;
    fmt::print("  {:5} {} / {} / {} / {} / {}\n", modes[m].label, c.registrations, c.hits, c.misses, c.evictions,
               c.bytes_registered);
  }

  if (!options.csv.empty()) {
    std::ofstream f(options.csv);
    if (!f)
      throw fabric::Error(fabric::Status::InvalidArgument,
                          fmt::format("--csv: cannot write {}: {}", options.csv, std::strerror(errno)));
    f << "size_bytes,mode,latency_us,bandwidth_MBps\n";
    for (std::size_t i = 0; i < sizes.size(); ++i)
      for (std::size_t m = 0; m < modes.size(); ++m)
        f << fmt::format("{},{},{:.4f},{:.3f}\n", sizes[i], modes[m].label, results[m].points[i].latency_us,
                         results[m].points[i].bandwidth_mbs);
    fmt::print("wrote {}\n", options.csv);
  }

  // The checks, at the largest size. The reference is what the platform's wire
  // carries as data: link bandwidth (capped by the host's PCI bus) times
  // MTU / (MTU + per-packet header).
  const double link = std::min(platform.link_bandwidth, platform.hca.pcie_bandwidth > 0
                                                            ? platform.hca.pcie_bandwidth
                                                            : platform.link_bandwidth);
  const double data_rate =
      link * platform.mtu / static_cast<double>(platform.mtu + platform.hca.header_bytes) / 1e6;
  const std::size_t last = sizes.size() - 1;
  const double bw_b = results[1].points[last].bandwidth_mbs;
  const double bw_c = results[2].points[last].bandwidth_mbs;
  const double bw_d = results[3].points[last].bandwidth_mbs;
  bool ok = true;
  auto check = [&](bool pass, const std::string& text) {
    fmt::print("{} {}\n", pass ? "PASS" : "FAIL", text);
    ok = ok && pass;
  };
  fmt::print("\nchecks at {} (link {:.0f} MB/s raw, {:.1f} MB/s of data after PCI and headers):\n",
             size_label(sizes[last]), platform.link_bandwidth / 1e6, data_rate);
  const double loss = bw_c > 0 ? 1.0 - bw_b / bw_c : 0.0;
  check(loss >= 0.5, fmt::format("(b) loses most of (c)'s bandwidth: {:.1f} vs {:.1f} MB/s, {:.0f} % lost "
                                 "(seed 000: about two thirds)",
                                 bw_b, bw_c, 100 * loss));
  check(bw_c >= 0.9 * data_rate,
        fmt::format("(c) dme within 10 % of the data bandwidth: {:.1f} MB/s = {:.1f} %", bw_c, 100 * bw_c / data_rate));
  check(bw_d >= 0.9 * data_rate,
        fmt::format("(d) lazy within 10 % of the data bandwidth: {:.1f} MB/s = {:.1f} %", bw_d, 100 * bw_d / data_rate));
  return ok ? 0 : 1;
}

ExperimentCommand::ExperimentCommand(CLI::App& app)
    : name_(std::make_shared<std::string>()), options_(std::make_shared<RegcacheExperimentOptions>()) {
  command_ = app.add_subcommand("experiment",
                                "Run an experiment in the simulator: seed000-regcache (here), or one of scenarios/ "
                                "(twinfab experiment --list; run by python3 -m twinfab.experiments)");
  command_->add_option("name", *name_, "seed000-regcache: PingPong with/without RDMA and registration caches")
      ->required();
  command_->add_option("--platform", options_->platform, "Simulated platform")->capture_default_str();
  command_->add_option("--sizes", options_->sizes, "Message sizes in bytes (default 1 B ... 4 MiB)")
      ->check(number_check(true));
  command_->add_option("--iters,-n", options_->iterations, "Iterations per size (default: by size)")
      ->check(number_check(true))
      ->check(CLI::Range(1u, 1u << 30));
  command_->add_option("--csv", options_->csv, "Also write the table as CSV to this file");
}

bool ExperimentCommand::parsed() const { return command_->parsed(); }

int ExperimentCommand::run() const {
  if (*name_ == "seed000-regcache") return run_seed000_regcache(*options_);
  throw UsageError(fmt::format("unknown experiment '{}'; available: seed000-regcache (this twinfab was built "
                               "without its Python package, -DTWINFAB_WITH_PYTHON=OFF, which runs the "
                               "experiments of scenarios/)",
                               *name_));
}

}  // namespace twinfab::tools
