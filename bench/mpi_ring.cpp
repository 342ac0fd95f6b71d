// MPI at scale in the simulator: a ring exchange (each rank sends 8 bytes to its
// right neighbour and receives from its left, 100 times) with 4096 ranks on the
// fat-tree-4096 preset, through mpi::Context (the library under the C API).
//
// Prints, next to the targets:
//  - simulator memory per rank, two ways: the peak resident set's growth over the run
//    (from after the platform was built) / ranks, the figure the 40 KB target is
//    judged on, and the whole process's peak resident set / ranks, which also counts
//    the fixed costs (the platform's hosts and links, the libraries) that the growth
//    leaves out;
//  - wall-clock cost per message at N ranks against the same ring at 2 ranks, in
//    steady state (after the first iteration, which makes on-demand connections).
// Connections are made on demand (the default above 64 ranks), so each rank holds
// two RC connections and its UD connector. This is the library alone; SMPI's figures
// for the same ring, measured in the same run as twinfab's, are bench/smpi_ring.sh's
// (a C program under both simulators). Exit status 3 when a target is missed.
//
//   bench_mpi_ring [ranks=4096] [iterations=100] [platform=fat-tree-4096]
//   bench_mpi_ring --once RANKS ITERATIONS [platform]   one run in this process (for
//                                                     perf/valgrind), prints its figures
//   bench_mpi_ring --scaling [max_ranks=4096] [platform]
//       the cost per message at 256, 512, ... max_ranks ranks against the 2-rank ring,
//       next to two references measured in the same run: the cost per resume of as
//       many bare ranks (bare_ranks.hpp: SimGrid's and the event queue's scheduling,
//       nothing else) and what a dependent load costs on this machine by how much
//       memory it ranges over (memory_latency.hpp). The ring's cost follows where one
//       iteration's working set (~8 KiB per rank, bench/footprint.sh) leaves the caches.
//   bench_mpi_ring --budget [ranks=4096] [platform]   (~45 s)
//       how many lines of private state a rank could touch per message and still meet
//       the 2x target at `ranks` ranks: bare ranks (scheduling only) that also touch K
//       lines per resume, at 2 ranks and at `ranks`, for K = 0 ... 128, as a chain of
//       dependent loads, as scattered lines at addresses known up front, and as
//       consecutive lines (bare_ranks.hpp's LineAccess); the difference is what
//       K lines cost at scale, set against the 2-rank ring's cost per message (2x
//       leaves exactly that much). The ring touches ~130 lines per rank and iteration
//       (bench/footprint.sh).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "backends/sim/simulation.hpp"
#include "bench/bare_ranks.hpp"
#include "bench/in_child.hpp"
#include "bench/memory_latency.hpp"
#include "mpi/core/context.hpp"

using namespace twinfab;
using Clock = std::chrono::steady_clock;

namespace {

/// VmHWM (peak resident set) or VmRSS of this process, in bytes.
long status_bytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1) * 1024;
  return 0;
}

struct RingResult {
  double wall = 0;              ///< seconds of wall clock of the whole run
  double bytes_per_rank = 0;    ///< peak RSS growth / ranks
  double peak_bytes = 0;        ///< peak RSS of the whole process (fixed costs included)
  double simulated = 0;         ///< simulated seconds of the ring phase
};

RingResult ring(const std::string& platform_name, unsigned ranks, unsigned iterations) {
  const sim::Platform platform = sim::load_platform(platform_name);
  RingResult result;
  {
    sim::Simulation simulation(platform);
    // After the platform is built: its hosts and links are the same for any number
    // of ranks, so they are not memory per rank.
    const long baseline = status_bytes("VmRSS");
    const auto start = Clock::now();
    const unsigned per_host = std::max(platform.ranks_per_host, (ranks + platform.hosts - 1) / platform.hosts);
    simulation.run(ranks, [&](sim::RankEnv& env) {
      // On the heap, where the C API keeps a rank's context (mpi/capi/rank_state.hpp).
      auto context_owner = std::make_unique<mpi::Context>(env.device, env.oob);
      mpi::Context& context = *context_owner;
      const auto& world = context.world();
      const auto& type = context.datatype(mpi::BasicKind::Long);
      const int n = world.size();
      const int me = world.rank();
      const double sim_start = env.runtime.now();
      for (unsigned i = 0; i < iterations; ++i) {
        long out = me + static_cast<long>(i), in = -1;
        auto r = context.irecv(&in, 1, type, (me + n - 1) % n, 0, world);
        context.send(&out, 1, type, (me + 1) % n, 0, world);
        context.wait(r);
        if (in != (me + n - 1) % n + static_cast<long>(i)) {
          fmt::print(stderr, "rank {}: iteration {} got {}\n", me, i, in);
          std::exit(1);
        }
      }
      if (me == 0) result.simulated = env.runtime.now() - sim_start;
    }, per_host);
    result.wall = std::chrono::duration<double>(Clock::now() - start).count();
    result.peak_bytes = static_cast<double>(status_bytes("VmHWM"));
    result.bytes_per_rank = (result.peak_bytes - static_cast<double>(baseline)) / ranks;
  }
  return result;
}

/// Wall clock per message in steady state: the run with `iterations` minus the same
/// run with one (start-up and shutdown of N contexts, and the first iteration, which
/// makes the connections of on-demand runs), over the messages of the other iterations.
/// Both ring sizes are measured so, whether their connections are made at start-up
/// (below 64 ranks) or on demand.
double per_message(const RingResult& with, const RingResult& first, unsigned ranks, unsigned iterations) {
  return (with.wall - first.wall) / (static_cast<double>(ranks) * (iterations - 1));
}

RingResult ring_in_child(const std::string& platform, unsigned ranks, unsigned iterations) {
  return bench::in_child<RingResult>("bench_mpi_ring", fmt::format("{}-rank run", ranks),
                                     [&] { return ring(platform, ranks, iterations); });
}

/// bare_ranks.hpp's cost per resume of `ranks` ranks, each touching `touched` lines,
/// over ~`messages` resumes: the lowest of `runs` runs (one run alone varies by a third
/// with the machine's state).
double bare_resume_in_child(const std::string& platform, unsigned ranks, unsigned messages,
                            bench::TouchedLines touched = {}, int runs = 1) {
  const unsigned rounds = std::max(100u, messages / ranks);
  double best = 0;
  for (int run = 0; run < runs; ++run) {
    const std::string what = fmt::format("{}-rank bare run touching {} lines", ranks, touched.count);
    const double cost = bench::in_child<double>("bench_mpi_ring", what, [&] {
      return bench::bare_rank_resume_cost(sim::load_platform(platform), ranks, rounds, touched);
    });
    best = run == 0 ? cost : std::min(best, cost);
  }
  return best;
}

/// `text` as a count in [low, high], or nullopt.
std::optional<unsigned> parse_count(const char* text, unsigned low, unsigned high) {
  char* end = nullptr;
  errno = 0;
  const unsigned long value = std::strtoul(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || value < low || value > high) return std::nullopt;
  return static_cast<unsigned>(value);
}

/// --scaling: see the file's comment.
int scaling(unsigned max_ranks, const std::string& platform) {
  // Every ring sends about as many messages as 4096 ranks x 100 iterations, so that the
  // small ones are not lost in the noise of the subtraction.
  constexpr unsigned kMessages = 4096 * 100;
  fmt::print("MPI ring scaling in the simulator: 8-byte send/recv rings on {}, ~{} messages each\n", platform,
             kMessages);
  std::fflush(stdout);
  const unsigned two_iterations = kMessages / 2;
  const double two = per_message(ring_in_child(platform, 2, two_iterations), ring_in_child(platform, 2, 1), 2,
                                 two_iterations);
  const double bare_two = bare_resume_in_child(platform, 2, kMessages);
  fmt::print("  2 ranks: {:.2f} us per message (the reference); bare ranks: {:.3f} us per resume\n", two * 1e6,
             bare_two * 1e6);
  fmt::print("  {:>6}  {:>10}  {:>12}  {:>9}  {:>15}  {:>10}\n", "ranks", "iterations", "us/message", "x 2-rank",
             "bare us/resume", "% of ring");
  std::vector<unsigned> counts;
  for (unsigned r = 256; r < max_ranks; r *= 2) counts.push_back(r);
  counts.push_back(max_ranks);
  for (unsigned ranks : counts) {
    const unsigned iterations = std::max(100u, kMessages / ranks);
    std::fflush(stdout);
    const double cost = per_message(ring_in_child(platform, ranks, iterations), ring_in_child(platform, ranks, 1),
                                    ranks, iterations);
    const double bare = bare_resume_in_child(platform, ranks, kMessages);
    fmt::print("  {:>6}  {:>10}  {:>12.2f}  {:>8.2f}x  {:>15.3f}  {:>9.0f}%\n", ranks, iterations, cost * 1e6,
               cost / two, bare * 1e6, 100 * bare / cost);
  }
  fmt::print("(bare ranks, bench/bare_ranks.hpp: the same number of SimGrid actors configured as the simulator's "
             "ranks, each only blocking and being woken through the event queue, once per round: the scheduling "
             "floor, with none of the fabric's or the MPI library's per-rank state, and its share of the ring's cost "
             "per message. At 2 ranks it is mostly maestro's work per round, shared by only two resumes.)\n");
  fmt::print("This machine, measured now: one dependent load over a random cycle through N MiB\n");
  std::vector<std::size_t> sizes;
  for (std::size_t mib : {1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64}) sizes.push_back(mib << 20);
  for (const auto& point : bench::dependent_load_latency(sizes, 20'000'000))
    fmt::print("  {:>3} MiB: {:6.1f} ns\n", point.bytes >> 20, point.nanoseconds);
  fmt::print("(one ring iteration's working set is the ranks times what one rank touches per iteration, "
             "which bench/footprint.sh counts: ~8 KiB when docs/mpi.md was written. The cost per message stays "
             "near the 2-rank one while that fits where loads are cheap.)\n");
  return 0;
}

/// --budget: see the file's comment.
int budget(unsigned ranks, const std::string& platform) {
  constexpr unsigned kMessages = 4096 * 100;
  fmt::print(
      "Line budget of the 2x target in the simulator: bare ranks touching K private lines per resume, "
      "2 against {} ranks on {}\n",
      ranks, platform);
  std::fflush(stdout);
  const unsigned two_iterations = kMessages / 2;
  const double two =
      per_message(ring_in_child(platform, 2, two_iterations), ring_in_child(platform, 2, 1), 2, two_iterations);
  fmt::print(
      "  the 2-rank MPI ring: {:.2f} us per message; 2x at {} ranks leaves {:.2f} us per message for what "
      "scale adds\n",
      two * 1e6, ranks, two * 1e6);
  fmt::print("  {:>5}  {:>11}  {:>13}  {:>13}  {:>13}  {:>22}\n", "lines", "loads", "us at 2", "us at N", "added at N",
             "ring at N, at best");
  for (bench::LineAccess access :
       {bench::LineAccess::chained, bench::LineAccess::scattered, bench::LineAccess::contiguous}) {
    for (unsigned count : {0u, 8u, 16u, 32u, 64u, 128u}) {
      if (count == 0 && access != bench::LineAccess::chained) continue;  // the same run
      const bench::TouchedLines touched{count, access};
      std::fflush(stdout);
      const double small = bare_resume_in_child(platform, 2, kMessages, touched, 2);
      const double large = bare_resume_in_child(platform, ranks, kMessages, touched, 2);
      const double added = std::max(0.0, large - small);
      fmt::print("  {:>5}  {:>11}  {:>13.3f}  {:>13.3f}  {:>13.3f}  {:>7.2f} us = {:>5.2f}x\n", count,
                 count == 0 ? "-" : bench::line_access_name(access), small * 1e6, large * 1e6, added * 1e6,
                 (two + added) * 1e6, (two + added) / two);
    }
  }
  fmt::print(
      "(\"added at N\": what a resume costs more at {} ranks than at 2 when each rank touches that many "
      "lines of its own (bench/bare_ranks.hpp); \"ring at N, at best\": the 2-rank ring's cost plus that, "
      "i.e. the least a ring whose ranks touch that many lines per message, reached that way, could cost at {} "
      "ranks. Chained: each line's address is read from the one before; scattered: random lines at addresses "
      "known up front; contiguous: consecutive lines. The MPI ring touches ~130 lines per rank and iteration, "
      "~1/4 of them its stack (bench/footprint.sh).)\n",
      ranks, ranks);
  return 0;
}

int usage(const std::string& problem) {
  fmt::print(stderr,
             "bench_mpi_ring: {}\n"
             "usage: bench_mpi_ring [ranks>=2 (4096)] [iterations>=2 (100)] [platform (fat-tree-4096)]\n"
             "       bench_mpi_ring --once RANKS ITERATIONS [platform]\n"
             "       bench_mpi_ring --scaling [max_ranks>=2 (4096)] [platform]\n"
             "       bench_mpi_ring --budget [ranks>=2 (4096)] [platform]\n",
             problem);
  return 2;
}

int run(int argc, char** argv) {
  constexpr unsigned kMaxRanks = 1u << 20, kMaxIterations = 1u << 24;
  // --scaling and --budget: MODE [count>=2 (4096)] [platform (fat-tree-4096)].
  const auto count_and_platform = [&](const char* count_name, int (*mode)(unsigned, const std::string&)) {
    const std::optional<unsigned> count = argc > 2 ? parse_count(argv[2], 2, kMaxRanks) : 4096u;
    if (!count) return usage(fmt::format("{} '{}' is not a count of at least 2", count_name, argv[2]));
    const std::string platform = argc > 3 ? argv[3] : "fat-tree-4096";
    sim::load_platform(platform);  // a bad one is reported here, not by each child
    return mode(*count, platform);
  };
  if (argc > 1 && std::string(argv[1]) == "--scaling") return count_and_platform("max_ranks", scaling);
  if (argc > 1 && std::string(argv[1]) == "--budget") return count_and_platform("ranks", budget);
  if (argc > 1 && std::string(argv[1]) == "--once") {
    if (argc < 4) return usage("--once needs RANKS and ITERATIONS");
    const std::optional<unsigned> ranks = parse_count(argv[2], 1, kMaxRanks);
    const std::optional<unsigned> iterations = parse_count(argv[3], 1, kMaxIterations);
    if (!ranks) return usage(fmt::format("RANKS '{}' is not a count of at least 1", argv[2]));
    if (!iterations) return usage(fmt::format("ITERATIONS '{}' is not a count of at least 1", argv[3]));
    const RingResult r = ring(argc > 4 ? argv[4] : "fat-tree-4096", *ranks, *iterations);
    fmt::print("{} ranks x {} iterations: {:.2f} s wall, {:.1f} KB per rank (growth), {:.1f} KB peak RSS / ranks, "
               "{:.1f} us simulated\n",
               *ranks, *iterations, r.wall, r.bytes_per_rank / 1024, r.peak_bytes / 1024 / *ranks, r.simulated * 1e6);
    return 0;
  }
  const std::optional<unsigned> ranks_arg = argc > 1 ? parse_count(argv[1], 2, kMaxRanks) : 4096u;
  const std::optional<unsigned> iterations_arg = argc > 2 ? parse_count(argv[2], 2, kMaxIterations) : 100u;
  if (!ranks_arg) return usage(fmt::format("ranks '{}' is not a count of at least 2", argv[1]));
  if (!iterations_arg) return usage(fmt::format("iterations '{}' is not a count of at least 2", argv[2]));
  const unsigned ranks = *ranks_arg, iterations = *iterations_arg;
  // The 2-rank reference runs ranks * iterations / 2 iterations.
  if (std::uint64_t{ranks} * iterations / 2 > kMaxIterations)
    return usage(fmt::format("{} ranks x {} iterations: the 2-rank reference would need more than {} iterations",
                             ranks, iterations, kMaxIterations));
  const std::string platform = argc > 3 ? argv[3] : "fat-tree-4096";
  sim::load_platform(platform);  // a bad one is reported here, not by each child
  fmt::print("MPI ring exchange in the simulator: {} ranks x {} iterations of 8-byte send/recv on {}\n", ranks,
             iterations, platform);
  // The 2-rank reference sends as many messages in all as the big ring.
  std::fflush(stdout);  // children must not print the parent's buffered text again
  const unsigned two_iterations = iterations * ranks / 2;
  const RingResult two = ring_in_child(platform, 2, two_iterations);
  const RingResult two_first = ring_in_child(platform, 2, 1);
  const RingResult big = ring_in_child(platform, ranks, iterations);
  const RingResult big_first = ring_in_child(platform, ranks, 1);
  const double two_per_message = per_message(two, two_first, 2, two_iterations);
  const double big_per_message = per_message(big, big_first, ranks, iterations);
  fmt::print("  simulated time of the ring phase: {:.1f} us ({:.2f} us per iteration)\n", big.simulated * 1e6,
             big.simulated * 1e6 / iterations);
  const double growth_kb = big.bytes_per_rank / 1024;
  fmt::print("  simulator memory per rank: {:.1f} KB of peak RSS growth over the run / ranks (target <= 40 KB); "
             "{:.1f} KB peak RSS / ranks ({:.0f} MB, the platform and libraries included; 2-rank run: {:.0f} MB)\n",
             growth_kb, big.peak_bytes / 1024 / ranks, big.peak_bytes / (1 << 20), two.peak_bytes / (1 << 20));
  fmt::print("  start-up, first iteration (on-demand connections) and shutdown of {} ranks: {:.2f} s of wall clock\n",
             ranks, big_first.wall);
  fmt::print("  wall clock per message after the first iteration: {:.2f} us at {} ranks vs {:.2f} us at 2 ranks = {:.2f}x "
             "(target <= 2x)\n",
             big_per_message * 1e6, ranks, two_per_message * 1e6, big_per_message / two_per_message);
  fmt::print("  (SMPI's figures for the same ring: bench/smpi_ring.sh)\n");
  const bool met = growth_kb <= 40 && big_per_message <= 2 * two_per_message;
  fmt::print("  {}\n", met ? "targets met" : "target NOT met");
  return met ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_mpi_ring: {}\n", e.what());
    return 1;
  }
}
