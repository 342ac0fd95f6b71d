// What the simulator's model of a platform costs per host and per switch: builds a
// preset's platform with `hosts` hosts (all of them, as a run that used them would)
// and prints the peak resident size, the growth per host against a 2-host build, and
// backends/sim/model_size.cpp's estimate. One platform per process (SimGrid), so the
// reference is a second process:
//   bench_model_size connectx-ddr 262144
//   bench_model_size fat-tree-4096 4096      (the fat tree's shape: hosts must be 4096)
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "backends/sim/model_size.hpp"
#include "backends/sim/simulation.hpp"

namespace {

using namespace twinfab;

/// Peak resident kilobytes of a child that builds `p` entirely.
long peak_kib_building(const sim::Platform& p) {
  const pid_t pid = fork();
  if (pid == 0) {
    sim::Simulation s(p);
    _exit(s.host_count() == p.hosts ? 0 : 1);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return usage.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: bench_model_size PRESET HOSTS\n");
    return 2;
  }
  sim::Platform p = sim::load_platform(argv[1]);
  const unsigned hosts = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10));
  sim::Platform small = sim::hosts_in_use(p, 2);
  if (p.topology == sim::Topology::SingleSwitch) p.hosts = hosts;
  if (p.hosts != hosts) {
    fmt::print(stderr, "{} is a fat tree of {} hosts: give that count\n", p.name, p.hosts);
    return 2;
  }
  const long base = peak_kib_building(small);
  const long full = peak_kib_building(p);
  if (base < 0 || full < 0) {
    fmt::print(stderr, "building the platform failed\n");
    return 1;
  }
  fmt::print("{}: {} hosts: peak RSS {} KiB ({} KiB with {} hosts): {:.0f} bytes per host measured; estimate {:.0f} "
             "bytes per host ({} MB in all)\n",
             p.name, p.hosts, full, base, small.hosts,
             static_cast<double>(full - base) * 1024 / (p.hosts - small.hosts),
             static_cast<double>(sim::estimate_model_bytes(p)) / p.hosts, sim::estimate_model_bytes(p) / 1000000);
  return 0;
}
